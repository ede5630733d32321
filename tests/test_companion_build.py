"""`civdsl build` writes generated/<edition>/companion.html for every rulebook it builds, house
rules included, deterministically, checked by `build --check` like every other output, and the
index links each page. (The page in a browser: tests/test_companion_page.py.)"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from civdsl.build import render
from civdsl.frontend import check_file
from civdsl.resources import shipped_house_rules, shipped_rulebooks

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def _cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], cwd=cwd, capture_output=True, text=True)


def test_build_writes_a_companion_page_checked_like_the_other_outputs(tmp_path):
    out = tmp_path / "gen"
    fixture = str(FIXTURES / "semantics.civ")
    assert _cli("build", fixture, "-o", str(out)).returncode == 0
    page = out / "semantics" / "companion.html"
    first = page.read_bytes()
    assert first.startswith(b"<!DOCTYPE html>") and b"Content-Security-Policy" in first
    assert _cli("build", fixture, "-o", str(out)).returncode == 0
    assert page.read_bytes() == first  # deterministic
    assert _cli("build", fixture, "-o", str(out), "--check").returncode == 0
    page.write_bytes(first.replace(b"</main>", b"<p>edited</p></main>"))
    proc = _cli("build", fixture, "-o", str(out), "--check")
    assert proc.returncode == 1 and "semantics/companion.html: differs from a fresh build" in proc.stderr


def test_a_house_rule_gets_its_own_page_and_the_index_links_every_page(tmp_path):
    """A full build (no PATHS) in a folder of rulebooks writes the index: one companion link per
    edition, to a file the build wrote."""
    work = tmp_path / "work"
    (work / "rulebooks").mkdir(parents=True)
    (work / "rulebooks" / "mini.civ").write_text((FIXTURES / "mini.civ").read_text(encoding="utf-8"), encoding="utf-8")
    (work / "rulebooks" / "hard.civ").write_text(
        'language 1\nedition hard "Hard famine" extends "mini.civ"\n'
        'change calamity "Famine" { primary { damage(12) } }\n', encoding="utf-8")
    proc = _cli("build", cwd=work)
    assert proc.returncode == 0, proc.stderr
    index = (work / "generated" / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'href="([^"]*companion\.html)"', index)
    assert sorted(links) == ["hard/companion.html", "mini/companion.html"]
    for link in links:
        assert (work / "generated" / link).is_file()
    house = (work / "generated" / "hard" / "companion.html").read_text(encoding="utf-8")
    assert "Hard famine" in house and "Hard famine" not in (work / "generated" / "mini" / "companion.html").read_text()


def test_every_shipped_house_rule_renders_a_page():
    for path in shipped_house_rules():
        checked = check_file(path)
        assert checked.ok
        html = render(checked).files["companion.html"]
        assert checked.edition.name.split(" (")[0] in html


PAGE_WEIGHT_GOAL = 250_000  # bytes (issue 18: a page a phone loads at once)


@pytest.mark.parametrize("rulebook", list(shipped_rulebooks().values()) + shipped_house_rules(),
                         ids=lambda p: Path(p).stem)
def test_every_shipped_page_weighs_under_250_kb(rulebook):
    """The page exactly as `civdsl build` writes it (build.render), UTF-8 bytes."""
    checked = check_file(rulebook)
    assert checked.ok
    weight = len(render(checked).files["companion.html"].encode("utf-8"))
    assert weight < PAGE_WEIGHT_GOAL, f"{checked.edition.id}: {weight} bytes"
