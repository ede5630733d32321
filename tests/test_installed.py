"""civdsl works installed, not only from the checkout: grammar, schemas and shipped rulebooks
travel as package data, and a build from the installed copy gives the same bytes."""

import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _dependency_dirs() -> list[str]:
    """The site folders this interpreter takes civdsl's dependencies from (a venv's or the system's)."""
    return [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()]



def test_every_package_of_the_source_is_installed():
    """Every folder of civdsl/ that is a package is listed in pyproject.toml's packages, so that a
    plain `pip install .` carries it (an editable install finds any folder and would hide a miss)."""
    import re

    listed = set(re.findall(r'"(civdsl(?:\.[a-z_]+)*)"', re.search(r"^packages = \[(.*)\]$",
                                                                   (ROOT / "pyproject.toml").read_text(), re.M)[1]))
    packages = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "civdsl").rglob("__init__.py")}
    assert packages - listed == set(), "add them to [tool.setuptools] packages in pyproject.toml"

@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    # A venv of its own that sees the running interpreter's dependencies through a .pth file:
    # `system_site_packages=True` would mean the *base* interpreter's, which inside a venv lacks
    # them. Path lines of a .pth add folders without running their .pth files, so an editable
    # install of the checkout is not seen: only the copy pip installs below is.
    env_dir = tmp_path_factory.mktemp("venv")
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    own = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True).stdout.strip()
    (Path(own) / "civdsl_test_dependencies.pth").write_text("\n".join(_dependency_dirs()) + "\n")
    proc = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps",
                           str(ROOT)], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"pip install failed:\n{proc.stderr[-2000:]}")
    return env_dir / "bin"


def test_installed_command_finds_grammar_schemas_and_rulebooks(installed, tmp_path):
    civdsl = str(installed / "civdsl")
    where = subprocess.run([str(installed / "python"), "-c", "import civdsl; print(civdsl.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert where.returncode == 0 and str(ROOT) not in where.stdout, where.stdout + where.stderr
    check = subprocess.run([civdsl, "check", "--schema"], cwd=tmp_path, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    assert "rulebooks checked" in check.stdout
    resolve = subprocess.run([civdsl, "resolve", "megaciv", "Famine", "--holds", "Agriculture,Pottery"],
                             cwd=tmp_path, capture_output=True, text=True, env={"CIVDSL_CACHE": str(tmp_path / "c"),
                                                                                 "PATH": "/usr/bin:/bin"})
    assert resolve.returncode == 0, resolve.stderr
    assert "take 10 damage" in resolve.stdout


def test_installed_build_matches_the_committed_effects_modules(installed, tmp_path):
    civdsl = str(installed / "civdsl")
    proc = subprocess.run([civdsl, "build", "megaciv", "-o", str(tmp_path / "gen")], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    fresh = subprocess.run([sys.executable, str(ROOT / "cli.py"), "build", "megaciv", "-o", str(tmp_path / "gen2")],
                           cwd=ROOT, capture_output=True, text=True)
    assert fresh.returncode == 0, fresh.stderr
    assert (tmp_path / "gen" / "megaciv" / "effects.py").read_bytes() == (tmp_path / "gen2" / "megaciv" / "effects.py").read_bytes()
    # the companion page: its runtime, UI and CSS are package data of the installed copy
    assert (tmp_path / "gen" / "megaciv" / "companion.html").read_bytes() == \
        (tmp_path / "gen2" / "megaciv" / "companion.html").read_bytes()


def _checkout(tmp_path: Path) -> Path:
    """A copy of this checkout's rulebooks, grammar and pyproject.toml: a checkout to stand in."""
    import shutil

    co = tmp_path / "checkout"
    shutil.copytree(ROOT / "rulebooks", co / "rulebooks")
    shutil.copytree(ROOT / "grammar", co / "grammar")
    shutil.copy(ROOT / "pyproject.toml", co / "pyproject.toml")
    return co


def test_installed_copy_inside_a_checkout_reads_the_checkout_and_warns(installed, tmp_path):
    import json
    import re

    civdsl = str(installed / "civdsl")
    co = _checkout(tmp_path)
    env = {"CIVDSL_CACHE": str(tmp_path / "c"), "PATH": "/usr/bin:/bin"}
    ask = [civdsl, "resolve", "megaciv", "Famine", "--holds", "Agriculture"]
    # the checkout's rulebooks are the installed ones: nothing to warn about
    same = subprocess.run(ask, cwd=co, capture_output=True, text=True, env=env)
    assert same.returncode == 0 and "warning" not in same.stderr, same.stderr
    line = int(re.search(r"megaciv\.civ:(\d+)\]", same.stdout).group(1))
    # edit the checkout: a line on top of megaciv.civ, a new house rule
    mega = co / "rulebooks" / "megaciv.civ"
    mega.write_text("# edited in the checkout\n" + mega.read_text(encoding="utf-8"), encoding="utf-8")
    (co / "rulebooks" / "house" / "added_here.civ").write_text(
        (ROOT / "rulebooks" / "house" / "gentle.civ").read_text(encoding="utf-8").replace("gentle", "added_here"),
        encoding="utf-8")
    edited = subprocess.run(ask, cwd=co / "rulebooks" / "house", capture_output=True, text=True, env=env)
    assert edited.returncode == 0, edited.stderr
    assert f"megaciv.civ:{line + 1}]" in edited.stdout  # the answer comes from the edited file
    assert "warning: civdsl runs from an installed copy" in edited.stderr
    assert "rulebooks/megaciv.civ" in edited.stderr and "pip install -e" in edited.stderr
    # check with no paths in the checkout takes its rulebooks, house rules included
    proc = subprocess.run([civdsl, "check", "--json"], cwd=co, capture_output=True, text=True, env=env)
    data = json.loads(proc.stdout)
    assert proc.returncode == 0, proc.stderr
    assert "rulebooks/house/added_here.civ" in data["rulebooks"] and "rulebooks/megaciv.civ" in data["rulebooks"]


def test_installed_copy_never_rewrites_its_own_files(installed, tmp_path):
    civdsl = str(installed / "civdsl")
    env = {"CIVDSL_CACHE": str(tmp_path / "c"), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([civdsl, "fmt"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert proc.returncode == 1 and "no rulebooks in the current folder" in proc.stderr
    proc = subprocess.run([civdsl, "fmt", "megaciv"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert proc.returncode == 1 and "part of the installed civdsl package" in proc.stderr
    proc = subprocess.run([civdsl, "fmt", "--diff", "megaciv"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr  # reading is fine
