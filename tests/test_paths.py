"""Paths: `extends` stays inside the rulebook's folder tree or the shipped rulebooks, and `build -o
DIR` writes only inside DIR.

A relative `extends` path resolves against the extending file's folder, following symlinks;
the result must lie inside that folder (or the shipped rulebooks folder). Absolute paths,
drive and UNC paths, URLs, NUL characters, `..` escapes and symlinks leading out are refused
with CIV006 at the path string; what does not exist or is not a regular file is CIV007.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import run_cli

from civdsl import build
from civdsl.build import BuildError, EditionOutputs
from civdsl.frontend import check_file
from civdsl.resources import rulebooks_dir

ROOT = Path(__file__).resolve().parent.parent
MINI = (ROOT / "tests" / "fixtures" / "mini.civ").read_text(encoding="utf-8")
COLUMN = len('edition h "H" extends ') + 1  # where the path string starts on line 2


def house(folder: Path, target: str, name: str = "house.civ") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f'language 1\nedition h "H" extends "{target}"\n', encoding="utf-8")
    return path


def errors(path: Path):
    checked = check_file(path)
    return checked, [(d.code, f"{d.span.line}:{d.span.column}" if d.span else None) for d in checked.diagnostics.errors]


@pytest.fixture
def tree(tmp_path):
    """tmp/outside/secret.civ (a valid rulebook outside), tmp/tree/ (the house rule's folder)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.civ").write_text(MINI, encoding="utf-8")
    (tmp_path / "tree" / "sub").mkdir(parents=True)
    (tmp_path / "tree" / "sub" / "base.civ").write_text(MINI, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("target", [
    "../outside/secret.civ",
    "sub/../../outside/secret.civ",
    "./../outside/secret.civ",
    "sub/../../tree/../outside/secret.civ",
], ids=["dotdot", "down-and-out", "dot-dotdot", "zigzag"])
def test_dotdot_escapes_are_refused(tree, target):
    path = house(tree / "tree", target)
    checked, errs = errors(path)
    assert errs == [("CIV006", f"2:{COLUMN}")]
    assert "leads outside" in checked.diagnostics.errors[0].message


@pytest.mark.parametrize("make_target", [
    lambda t: str(t / "outside" / "secret.civ"),
    lambda t: "/etc/passwd",
    lambda t: "C:\\\\Windows\\\\win.ini",
    lambda t: "c:/x.civ",
    lambda t: "\\\\\\\\server\\\\share\\\\x.civ",
    lambda t: "//server/share/x.civ",
    lambda t: "http://example.com/x.civ",
    lambda t: "https://example.com/x.civ",
    lambda t: "file:///etc/passwd",
    lambda t: "ftp://example.com/x.civ",
    lambda t: "a\\0b.civ",
], ids=["absolute", "etc-passwd", "drive-backslash", "drive-slash", "unc", "double-slash", "http", "https",
        "file-url", "ftp", "nul"])
def test_absolute_paths_urls_and_nul_are_refused(tree, make_target):
    path = house(tree / "tree", make_target(tree))
    _, errs = errors(path)
    assert errs == [("CIV006", f"2:{COLUMN}")]


def test_symlink_out_of_the_tree_is_refused(tree):
    (tree / "tree" / "link.civ").symlink_to(tree / "outside" / "secret.civ")
    (tree / "tree" / "dirlink").symlink_to(tree / "outside", target_is_directory=True)
    assert errors(house(tree / "tree", "link.civ"))[1] == [("CIV006", f"2:{COLUMN}")]
    assert errors(house(tree / "tree", "dirlink/secret.civ", "h2.civ"))[1] == [("CIV006", f"2:{COLUMN}")]


def test_symlink_inside_the_tree_is_followed(tree):
    (tree / "tree" / "alias.civ").symlink_to(tree / "tree" / "sub" / "base.civ")
    checked, errs = errors(house(tree / "tree", "alias.civ"))
    assert errs == [] and checked.ok


def test_symlink_loop_is_refused(tree):
    (tree / "tree" / "a.civ").symlink_to(tree / "tree" / "b.civ")
    (tree / "tree" / "b.civ").symlink_to(tree / "tree" / "a.civ")
    checked, errs = errors(house(tree / "tree", "a.civ"))
    assert errs == [("CIV006", f"2:{COLUMN}")]
    assert "loop" in checked.diagnostics.errors[0].message


def test_a_path_that_comes_back_inside_is_allowed(tree):
    checked, errs = errors(house(tree / "tree", "../tree/sub/base.civ"))
    assert errs == [] and checked.ok


def test_the_shipped_rulebooks_folder_is_allowed_by_relative_path(tree):
    rel = os.path.relpath(rulebooks_dir() / "civ1981.civ", tree / "tree")
    checked, errs = errors(house(tree / "tree", rel))
    assert errs == [] and checked.ok


def test_a_base_must_stay_inside_its_own_folder_too(tree):
    """Each file of a chain is held to its own folder: sub/base2 cannot reach back up."""
    (tree / "tree" / "sub" / "base2.civ").write_text('language 1\nedition b "B" extends "../top.civ"\n')
    (tree / "tree" / "top.civ").write_text(MINI)
    _, errs = errors(house(tree / "tree", "sub/base2.civ"))
    assert ("CIV006", f"2:{COLUMN}") in errs  # `edition b "B" extends` is as long as `edition h "H" extends`


@pytest.mark.parametrize("target,code", [
    ("missing.civ", "CIV007"),
    ("sub", "CIV007"),
    ("", "CIV007"),
    ("x" * 5000 + ".civ", "CIV006"),
], ids=["missing", "directory", "empty", "name-too-long"])
def test_what_is_not_a_rulebook_file(tree, target, code):
    _, errs = errors(house(tree / "tree", target))
    assert errs == [(code, f"2:{COLUMN}")]


def test_special_files_never_hang(tree):
    """A FIFO would block a plain open() forever; /dev/zero would never end."""
    fifo = tree / "tree" / "fifo.civ"
    os.mkfifo(fifo)
    via_extends = house(tree / "tree", "fifo.civ")
    proc = run_cli("check", str(fifo), "/dev/zero", str(via_extends), timeout=60)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"cannot read {fifo}: not a regular file" in proc.stderr
    assert "cannot read /dev/zero: not a regular file" in proc.stderr
    assert f"{via_extends}:2:{COLUMN}: error[CIV007]" in proc.stderr


def test_extends_cycles_and_long_chains(tree):
    folder = tree / "tree"
    (folder / "a.civ").write_text('language 1\nedition a "A" extends "b.civ"\n')
    (folder / "b.civ").write_text('language 1\nedition b "B" extends "a.civ"\n')
    assert ("CIV008", f"2:{COLUMN}") in errors(folder / "a.civ")[1]
    for i in range(40):
        (folder / f"c{i}.civ").write_text(f'language 1\nedition c{i} "C" extends "c{i + 1}.civ"\n')
    (folder / "c40.civ").write_text(MINI)
    assert [code for code, _ in errors(folder / "c0.civ")[1]] == ["CIV008"]


def test_edition_ids_cannot_carry_a_path():
    for header in ('edition ../evil "X"', 'edition a/b "X"', 'edition "x" "X"', "edition . \"X\""):
        from civdsl import parser
        from civdsl.diagnostics import Diagnostics
        diags = Diagnostics()
        assert parser.parse(f"language 1\n{header}\n", "f.civ", diags) is None
        assert diags.errors[0].code in ("CIV001", "CIV002") and diags.errors[0].span.line == 2


# --- build -o DIR ----------------------------------------------------------------------------------

def snapshot(folder: Path) -> dict[str, bytes | str]:
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = str(p.relative_to(folder))
        out[rel] = ("link:" + os.readlink(p)) if p.is_symlink() else (p.read_bytes() if p.is_file() else "dir")
    return out


def test_cli_build_writes_only_inside_the_output_folder(tmp_path):
    parent = tmp_path / "parent"
    parent.mkdir()
    (parent / "neighbour.txt").write_text("keep")
    proc = run_cli("build", str(ROOT / "tests" / "fixtures" / "mini.civ"), "-o", str(parent / "out"), timeout=120,
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in parent.iterdir()) == ["neighbour.txt", "out"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["parent"]
    names = {p.name for p in (parent / "out").iterdir()}
    assert names == {"mini", build.MANIFEST_NAME}, names  # no staging, old folders or lock file left behind


@pytest.mark.parametrize("edition_id", ["../evil", "/tmp/evil", "a/../../evil", "..", ".", "", "a\0b", "x:y"])
def test_write_refuses_ids_that_leave_the_folder(tmp_path, edition_id):
    out = tmp_path / "out"
    before = snapshot(tmp_path)
    good = EditionOutputs("good", files={"effects.py": "x = 1\n"})
    with pytest.raises(BuildError):
        build.write([good, EditionOutputs(edition_id, files={"effects.py": "pwned = 1\n"})], out)
    after = snapshot(tmp_path)
    assert {k: v for k, v in after.items() if not k.startswith("out")} == before
    assert not (out / "good").exists(), "all or nothing: the good edition is not written either"


@pytest.mark.parametrize("rel", ["../../escape.py", "/tmp/escape.py", "charts/../../../escape.py", "charts//x", ""])
def test_write_refuses_file_paths_that_leave_the_edition(tmp_path, rel):
    out = tmp_path / "out"
    with pytest.raises(BuildError):
        build.write([EditionOutputs("e", files={rel: "pwned = 1\n"})], out)
    assert not list(tmp_path.rglob("escape.py"))
    assert not (out / "e").exists()


def test_a_planted_symlink_is_refused_not_written_through(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "effects.py").write_text("original")
    out = tmp_path / "out"
    out.mkdir()
    (out / "mini").symlink_to(victim, target_is_directory=True)
    with pytest.raises(BuildError, match="refusing to overwrite .*mini is not a folder civdsl wrote"):
        build.write([EditionOutputs("mini", files={"effects.py": "new = 1\n"})], out)
    assert (victim / "effects.py").read_text() == "original"
    assert (out / "mini").is_symlink()


@pytest.mark.parametrize("name", [build.WORK_NAME, build.MANIFEST_NAME])
def test_a_planted_symlink_at_civdsls_own_names_is_not_followed(tmp_path, name):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / build._MARKER).write_text("planted")
    out = tmp_path / "out"
    out.mkdir()
    (out / name).symlink_to(victim, target_is_directory=True)
    with pytest.raises(BuildError):
        build.write([EditionOutputs("e", files={"effects.py": "x = 1\n"})], out)
    assert sorted(p.name for p in victim.iterdir()) == [build._MARKER]


def test_top_level_files_are_not_written_through_symlinked_folders(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "site").symlink_to(victim, target_is_directory=True)
    with pytest.raises(BuildError):
        build.write([EditionOutputs("e", files={"effects.py": "x = 1\n"})], out, top={"site/index.html": "pwned"})
    assert list(victim.iterdir()) == []
    assert not (out / "e").exists()


def test_output_folder_under_a_file_is_a_one_line_error(tmp_path):
    target = tmp_path / "file"
    target.write_text("not a folder")
    proc = run_cli("build", str(ROOT / "tests" / "fixtures" / "mini.civ"), "-o", str(target / "out"), timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and proc.stderr.startswith("error: cannot write"), proc.stderr
    assert target.read_text() == "not a folder"
    # an output "folder" that is a file is refused by the option parser itself (usage error, exit 2)
    proc = run_cli("build", str(ROOT / "tests" / "fixtures" / "mini.civ"), "-o", str(target), timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "is a file" in proc.stderr
    assert target.read_text() == "not a folder"
