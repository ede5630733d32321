"""Builds are all or nothing.

- A build with an error in any rulebook writes nothing (not even the output folder).
- A build that fails at any step (`build.write(fail_after=N)` injects the failure after N steps:
  files written and renames) leaves the previous output exactly as it was, with no staging
  or old folders behind; so does a KeyboardInterrupt or a failing rename.
- A build killed outright (simulated with os._exit at every step) leaves every edition folder
  complete, old or new; the next build cleans up and completes the tree.
- Two `civdsl build -o DIR` processes at once end with a tree equal to a fresh build.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import CLI, run_cli

from civdsl import build
from civdsl.build import EditionOutputs

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "fixtures" / "mini.civ"


def outputs(version: str) -> tuple[list[EditionOutputs], dict[str, str]]:
    results = [
        EditionOutputs(ed, files={
            "effects.py": f"# {ed} {version}\nVERSION = {version!r}\n",
            "model.json": f'{{"id": "{ed}", "version": "{version}"}}\n',
            "charts/table.html": f"<p>{ed} {version}</p>\n",
            "charts/deep/graph.dot": f"digraph {{ {ed} }} // {version}\n".encode(),
        })
        for ed in ("alpha", "beta", "gamma")
    ]
    if version == "new":
        results[1].files["charts/added.txt"] = "only in the new build\n"
        del results[2].files["charts/table.html"]
    return results, {"index.html": f"<h1>{version}</h1>\n", "site/all.html": f"{version}\n"}


def snapshot(folder: Path) -> dict:
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*")) if p.name != build.MANIFEST_NAME}


def expected_tree(version: str) -> dict:
    results, top = outputs(version)
    tree = {}
    for res in results:
        tree[res.id] = None
        for rel, content in res.files.items():
            parts = rel.split("/")
            for i in range(1, len(parts)):
                tree["/".join([res.id] + parts[:i])] = None
            tree[f"{res.id}/{rel}"] = content.encode() if isinstance(content, str) else content
    for rel, content in top.items():
        if "/" in rel:
            tree[rel.rsplit("/", 1)[0]] = None
        tree[rel] = content.encode()
    return dict(sorted(tree.items()))


def steps_of_a_build() -> int:
    results, top = outputs("new")
    return sum(len(r.files) for r in results) + len(top) + len(results) + len(top)


@pytest.fixture
def previous(tmp_path) -> Path:
    out = tmp_path / "generated"
    build.write(*outputs("old")[:1], out, top=outputs("old")[1])
    assert snapshot(out) == expected_tree("old")
    return out


def test_a_clean_write_gives_exactly_the_new_tree(previous):
    results, top = outputs("new")
    build.write(results, previous, top=top)
    assert snapshot(previous) == expected_tree("new")  # gamma's removed chart is gone too


@pytest.mark.parametrize("step", range(1, steps_of_a_build() + 1))
def test_failure_at_any_step_leaves_the_previous_output_intact(previous, step):
    before = snapshot(previous)
    results, top = outputs("new")
    with pytest.raises(RuntimeError, match="injected"):
        build.write(results, previous, top=top, fail_after=step)
    assert snapshot(previous) == before
    build.write(results, previous, top=top)  # and the next build is unaffected
    assert snapshot(previous) == expected_tree("new")


def test_the_steps_cover_the_whole_write(previous):
    results, top = outputs("new")
    build.write(results, previous, top=top, fail_after=steps_of_a_build() + 1)  # never reached
    assert snapshot(previous) == expected_tree("new")


@pytest.mark.parametrize("step", [1, 5, steps_of_a_build() - 2, steps_of_a_build()])
def test_keyboard_interrupt_rolls_back_too(previous, step, monkeypatch):
    def interrupt():
        raise KeyboardInterrupt

    monkeypatch.setattr(build, "_injected_failure", interrupt)
    before = snapshot(previous)
    with pytest.raises(KeyboardInterrupt):
        build.write(*outputs("new")[:1], previous, top=outputs("new")[1], fail_after=step)
    assert snapshot(previous) == before


@pytest.mark.parametrize("nth", [1, 2, 3, 4, 5])
def test_a_failing_rename_rolls_back(previous, nth, monkeypatch):
    real = os.replace
    calls = []

    def flaky(src, dst):
        calls.append((src, dst))
        if len(calls) == nth:
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(build.os, "replace", flaky)
    before = snapshot(previous)
    with pytest.raises(build.BuildError, match="No space left"):
        build.write(*outputs("new")[:1], previous, top=outputs("new")[1])
    monkeypatch.setattr(build.os, "replace", real)
    assert snapshot(previous) == before


def test_hard_crash_at_any_step_leaves_complete_folders_and_the_next_build_repairs(previous):
    """os._exit stands in for kill -9 or a power cut: no rollback runs."""
    results, top = outputs("new")
    old, new = expected_tree("old"), expected_tree("new")
    for step in range(1, steps_of_a_build() + 1):
        build.write(*outputs("old")[:1], previous, top=outputs("old")[1])
        pid = os.fork()
        if pid == 0:  # the child crashes hard at `step`
            build._injected_failure = lambda: os._exit(7)
            try:
                build.write(results, previous, top=top, fail_after=step)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        assert os.WEXITSTATUS(status) == 7
        for res in results:  # every edition folder, as found: all old or all new
            mine = {k: v for k, v in snapshot(previous).items() if k == res.id or k.startswith(res.id + "/")}
            if mine:  # a folder may be missing only while moved aside (restored below)
                assert mine in ({k: v for k, v in old.items() if k == res.id or k.startswith(res.id + "/")},
                                {k: v for k, v in new.items() if k == res.id or k.startswith(res.id + "/")}), step
        build.write(results, previous, top=top)
        assert snapshot(previous) == new, f"not repaired after a crash at step {step}"


def test_recovery_restores_a_folder_moved_aside(previous):
    """A build killed between moving the old folder aside and moving the new one in."""
    work = previous / build.WORK_NAME
    (work / "old").mkdir(parents=True)
    (work / build._MARKER).write_text("")
    os.replace(previous / "beta", work / "old" / "beta")
    (work / "new" / "alpha").mkdir(parents=True)
    (work / "top.12345.tmp").write_text("half")
    build.write([], previous)
    assert snapshot(previous) == expected_tree("old")


def test_a_users_dot_files_that_look_like_staging_are_never_touched(previous):
    """Only civdsl's own work folder is cleaned up: a user's files named like an older
    civdsl's staging patterns stay (issue 17)."""
    mine = {".notes.old-1": "dir", ".x.staging-2": "dir", ".draft.tmp": "file", "alpha.tmp": "file"}
    for name, kind in mine.items():
        (previous / name).mkdir() if kind == "dir" else (previous / name).write_text("keep")
    (previous / ".notes.old-1" / "x").mkdir()
    build.write(*outputs("new")[:1], previous, top=outputs("new")[1])
    for name, kind in mine.items():
        assert (previous / name).is_dir() if kind == "dir" else (previous / name).read_text() == "keep"
    assert (previous / ".notes.old-1" / "x").is_dir()


# --- the command line ---------------------------------------------------------------------------

def test_a_build_with_errors_writes_nothing(tmp_path):
    bad = tmp_path / "bad.civ"
    bad.write_text(MINI.read_text().replace("cost 60", "cost sixty"))
    out = tmp_path / "out"
    proc = run_cli("build", str(MINI), str(bad), "-o", str(out), timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "nothing was written" in proc.stderr
    assert not out.exists()
    out.mkdir()
    (out / "keep.txt").write_text("x")
    proc = run_cli("build", str(MINI), str(bad), "-o", str(out), timeout=120)
    assert proc.returncode == 1
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_two_concurrent_builds_end_with_a_fresh_tree(tmp_path):
    out = tmp_path / "generated"
    books = ["rulebooks/civ1980.civ", "rulebooks/civ1981.civ"]  # two editions keep this quick
    procs = [subprocess.Popen(CLI + ["build", *books, "-o", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, cwd=ROOT) for _ in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0 and "Traceback" not in err, err
    proc = run_cli("build", "--check", *books, "-o", str(out), timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert not [p.name for p in out.iterdir() if ".staging-" in p.name or ".old-" in p.name or p.name.endswith(".tmp")]


def test_concurrent_builds_of_different_versions_never_mix(tmp_path):
    """Two builds of one edition from different sources: the folder is wholly one or the other."""
    v1, v2 = tmp_path / "v1" / "mini.civ", tmp_path / "v2" / "mini.civ"
    for path, name in ((v1, "Version One"), (v2, "Version Two")):
        path.parent.mkdir()
        path.write_text(MINI.read_text().replace("Mini Civilization", name))
    out = tmp_path / "out"
    procs = [subprocess.Popen(CLI + ["build", str(src), "-o", str(out)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for src in (v1, v2)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    files = {p.relative_to(out / "mini"): p.read_bytes() for p in (out / "mini").rglob("*") if p.is_file()}
    versions = {name for name in ("Version One", "Version Two") if any(name.encode() in data for data in files.values())}
    assert len(versions) == 1, versions
    assert all(b"Mini Civilization" not in data for data in files.values())


@pytest.mark.parametrize("nth", [1, 2, 3, 5])
def test_a_full_disk_leaves_no_trace_in_an_output_folder_that_did_not_exist(tmp_path, nth, monkeypatch):
    """ENOSPC at the marker of the work folder or at any staged file: neither the work folder nor
    the output folder this build made is left behind."""
    import errno

    real = Path.write_bytes
    calls = []

    def full(self, data):
        calls.append(self)
        if len(calls) >= nth:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full)  # write_text writes through write_bytes
    out = tmp_path / "new-out"
    with pytest.raises(build.BuildError, match="No space left"):
        build.write(*outputs("new")[:1], out, top=outputs("new")[1])
    assert not out.exists(), sorted(p.name for p in out.rglob("*"))


def test_a_full_disk_keeps_an_output_folder_that_existed(tmp_path, monkeypatch):
    import errno

    def full(self, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setattr(Path, "write_bytes", full)
    with pytest.raises(build.BuildError, match="No space left"):
        build.write(*outputs("new")[:1], out, top=outputs("new")[1])
    assert out.is_dir() and list(out.iterdir()) == []


def test_building_into_a_symlinked_folder_says_it_is_a_symlink(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to("real")
    proc = run_cli("build", str(MINI), "-o", str(tmp_path / "link"))
    assert proc.returncode == 1 and "is a symlink" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert list((tmp_path / "real").iterdir()) == []
