"""`civdsl build`: compile rulebooks into generated/<edition>/, all or nothing.

A build first renders every output of every rulebook in memory. Only if no rulebook has an
error does it write, each edition into a fresh staging folder that then replaces the old one
by rename, under a lock so that two builds on one output folder never interleave files.
`--check` renders the same way and compares, writing nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from .codegen import CodegenError, generate_module
from .frontend import Checked, check_file
from .api import RulebookError, run_rulings
from .atomicfile import atomic_write, create_temporary, encoded
from .diagnostics import Diagnostics
from .escape import shown_name
from .laws import check_declared
from .serialize import to_data

# Outputs whose bytes depend on the tools installed (Graphviz's version): compared loosely.
TOOL_DEPENDENT_SUFFIXES = (".svg",)


@dataclass
class EditionOutputs:
    id: str
    edition: object = None  # the model.Edition these files were rendered from
    files: dict[str, str | bytes] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)


def render(checked: Checked, base: Checked | None = None) -> EditionOutputs:
    ed = checked.edition
    out = EditionOutputs(ed.id, ed)
    texts = {f.display: f.text for f in checked.chain}
    source, code = generate_module(ed, texts)
    out.files["effects.py"] = source
    out.files["model.json"] = json.dumps(to_data(ed), indent=2, ensure_ascii=False, sort_keys=False,
                                         default=_json_value) + "\n"
    from . import charts

    effect = _impact_of_house_rule(checked, base)
    rendered, messages = charts.render_all(ed, base.edition if base else None, effect)
    out.files.update(rendered)
    out.messages.extend(messages)
    from .companion.gamepage import game_html
    from .companion.page import GAME_PAGE, companion_html, keeps_games, module_from_code, page_answers

    module = module_from_code(code, ed.id)
    if page_answers(module):  # a rulebook played only in rounds has no question for the page
        out.files["companion.html"] = companion_html(module, ed, effect)
        if keeps_games(module):  # the turn's steps declared: the ledger plays whole games
            out.files[GAME_PAGE] = game_html(module, ed)
    return out


def _impact_of_house_rule(checked: Checked, base: Checked | None):
    """What a house rule changes for players against its nearest base (impact.py), or None for
    an edition of its own."""
    if base is None:
        return None
    from .api import load
    from .impact import impact

    return impact(load(base.chain[-1].path).module, load(checked.chain[-1].path).module, base.edition,
                  checked.edition)


def _render_reusing(checked: Checked) -> EditionOutputs:
    """`render`, or what it gave for the same bytes of every file of the chain, the same compiler
    and the same Graphviz (the SVG charts are its output), kept in the cache folder."""
    import pickle

    from . import cache
    from .frontend import chain_files

    files = chain_files(checked.chain)
    key = None
    if all(files.values()):
        key = hashlib.sha256(f"{cache.chain_key(files)}|{_graphviz_identity()}".encode()).hexdigest()[:32]
        kept = cache.read(f"build-{key}.pickle")
        if kept is not None:
            try:
                edition_id, rendered, messages = pickle.loads(kept)
                if edition_id == checked.edition.id:
                    return EditionOutputs(edition_id, checked.edition, dict(rendered), list(messages))
            except Exception:  # a damaged file: render afresh
                pass
    out = render(checked, _base_of(checked))
    if key is not None:
        cache.write(f"build-{key}.pickle", pickle.dumps((out.id, out.files, out.messages),
                                                        protocol=pickle.HIGHEST_PROTOCOL))
    return out


def _graphviz_identity() -> str:
    """Which `dot` renders the SVG charts (its path, size and time), or none."""
    exe = shutil.which("dot")
    if exe is None:
        return "no dot"
    try:
        st = os.stat(exe)
    except OSError:
        return exe
    return f"{exe}|{st.st_size}|{st.st_mtime_ns}"


def _json_value(value):
    """JSON for the folded constants json cannot write: an exact fraction as "n/d"."""
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def _base_of(checked: Checked) -> Checked | None:
    """For a house rule, its nearest base (charts mark what the house rule changes)."""
    if len(checked.chain) < 2:
        return None
    return check_file(checked.chain[-2].path, reuse=True)


def compile_all(paths: list[Path], diags: Diagnostics, progress=None) -> list[EditionOutputs] | None:
    results = []
    ids: dict[str, Path] = {}
    for path in paths:
        checked = check_file(path, diags, reuse=True)
        if progress:
            progress(path)
        if not checked.ok:
            continue
        if checked.edition.id in ids:
            diags.error("CIV020", f"edition `{checked.edition.id}` is built from two files: {ids[checked.edition.id]} and {path}",
                        checked.edition.span)
            continue
        ids[checked.edition.id] = path
        before = len(diags.errors)
        run_rulings(path, checked, diags)
        check_declared(checked.edition, diags)
        if len(diags.errors) > before:
            continue  # a failing ruling: the rules do not answer as the rulebook says they do
        try:
            results.append(_render_reusing(checked))
        except CodegenError as exc:
            diags.error(exc.code, str(exc), exc.span or checked.edition.span)
    if diags.has_errors:
        return None
    return results


class BuildError(RulebookError):
    """The output folder cannot be written (shown as `error: ...`, exit 1)."""


@contextlib.contextmanager
def _locked(out_dir: Path):
    """An exclusive lock on the output folder itself (flock on the folder), so that nothing is
    left behind once the build is done and no planted file or symlink is ever opened."""
    import fcntl

    out_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(out_dir, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


# What a build keeps in DIR besides the outputs: the manifest of everything it wrote (so that it
# replaces only those, and refuses to touch a user's file or folder of the same name), and,
# while it writes, a work folder holding the staged editions, the staged top-level files and
# the old editions moved aside. The work folder carries a marker file; a build removes it when
# done, and the next build finishes the job of one that was killed (restoring a folder moved
# aside). Nothing else in DIR is ever renamed or deleted: a user's `.x.old-1` or `y.tmp` is safe.
MANIFEST_NAME = ".civdsl-manifest.json"
WORK_NAME = ".civdsl-build"
_MARKER = "civdsl-build-work-folder"
# How an edition folder written before manifests existed is recognised (the generated module's
# docstring), so that an output folder from an older civdsl is updated rather than refused.
_LEGACY_SIGNATURE = b"Generated by civdsl from "


def _safe_child(root: Path, rel: str) -> Path:
    """`root/rel`, refusing any `rel` that could lead outside `root`: absolute paths, `..`, empty
    or odd components, and folders on the way that are symlinks (checked without following)."""
    parts = str(rel).replace("\\", "/").split("/")
    if _leads_out(str(rel), parts):
        raise BuildError(f"refusing to write outside {root}: {rel!r}")
    if parts[0] in (MANIFEST_NAME, WORK_NAME):
        raise BuildError(f"refusing to write {rel!r}: the name is civdsl's own")
    target = Path(root)
    for part in parts[:-1]:
        target = target / part
        if target.is_symlink():
            raise BuildError(f"refusing to write through the symlink {target}")
    return target / parts[-1]


def _leads_out(rel: str, parts: list[str]) -> bool:
    """Whether REL (split into PARTS) is absolute, empty, or has a part that could lead elsewhere."""
    return not rel or rel.startswith("/") or "\0" in rel or any(p in ("", ".", "..") or ":" in p for p in parts)


def _injected_failure() -> None:
    """Called when `fail_after` steps are done; tests replace it (os._exit) to simulate a crash."""
    raise RuntimeError("injected failure while writing")


def write(results: list[EditionOutputs], out_dir: Path, top: dict[str, str] | None = None,
          fail_after: int | None = None) -> None:
    """Replace every edition's folder and the top-level files together, or change nothing.

    Each edition is written whole into a staging folder; only when every file of every edition
    is on disk are the folders swapped in by rename (the old one moved aside until the last swap
    is done). A failure at any point (`fail_after` counts steps: files written and renames; it
    injects one) removes what was staged and moves back what was already swapped, so `out_dir`
    is as it was. A hard crash (kill -9) during the swaps can leave some editions old and some
    new, each folder complete; the next build cleans up and repairs that. Only what the manifest
    says an earlier build wrote is ever replaced (see `_check_ownership`).
    """
    out_dir = Path(out_dir)
    top = top or {}
    if out_dir.is_symlink():  # the lock opens the folder without following links: say why it is refused
        raise BuildError(f"cannot write {shown_name(out_dir)}: it is a symlink (to {shown_name(os.readlink(out_dir))}); "
                         "build into the folder itself or another one")
    existed = out_dir.exists()
    try:
        with _locked(out_dir):
            _recover(out_dir)
            manifest = _read_manifest(out_dir)
            had_manifest = manifest is not None
            manifest = manifest or _adopt_legacy(out_dir)
            _keep_drawings(results, out_dir)
            _check_ownership(out_dir, results, top, manifest)
            _write_locked(results, out_dir, top, manifest, had_manifest, fail_after)
    except BaseException as exc:
        if not existed:  # an output folder this build made, left empty by the failure: gone too
            with contextlib.suppress(OSError):
                out_dir.rmdir()
        if isinstance(exc, OSError):
            raise BuildError(f"cannot write {shown_name(out_dir)}: {exc.strerror or exc}"
                             + (f" ({shown_name(exc.filename)})" if exc.filename else "")) from None
        raise


def _read_manifest(out_dir: Path) -> dict | None:
    path = out_dir / MANIFEST_NAME
    if _absent(path):
        return None
    if path.is_symlink() or not path.is_file():
        raise BuildError(f"{path} is not a file civdsl wrote; remove it to build into {out_dir}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        editions = {str(k): [str(f) for f in v] for k, v in data["editions"].items()}
        return {"editions": editions, "files": [str(f) for f in data["files"]]}
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        raise BuildError(f"{path} is damaged; remove it (and check what {out_dir} holds) to build again") from None


def _absent(path: Path) -> bool:
    """Nothing at PATH, not even a dangling symlink."""
    return not path.exists() and not path.is_symlink()


def _plain(path: Path) -> bool:
    """Neither a symlink nor a hidden name: what an older civdsl may have written."""
    return not path.is_symlink() and not path.name.startswith(".")


def _adopt_legacy(out_dir: Path) -> dict | None:
    """The manifest an output folder of an older civdsl (which kept none) would have had: its
    edition folders (recognised by the generated module's docstring) with the files they hold,
    and the plain files beside them (the site files that civdsl wrote there). None when the
    folder holds no such edition: then it is not an older output and nothing in it is ours."""
    entries = [p for p in sorted(out_dir.iterdir()) if _plain(p)]
    editions = {d.name: sorted(_files_under(d)) for d in entries if d.is_dir() and _is_legacy_edition(d)}
    if not editions:
        return None
    return {"editions": editions, "files": sorted(f.name for f in entries if f.is_file())}


def _is_legacy_edition(folder: Path) -> bool:
    try:
        with open(folder / "effects.py", "rb") as fh:
            return _LEGACY_SIGNATURE in fh.read(1000)
    except OSError:
        return False


def _files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir() or p.is_symlink()}


def _first_of(problems: list[str]) -> str:
    """The first of PROBLEMS, saying how many more there are."""
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return problems[0] + more


def _check_ownership(out_dir: Path, results: list[EditionOutputs], top: dict[str, str], manifest: dict | None) -> None:
    """Refuse, before writing anything, to replace what an earlier build did not write: a folder
    named like an edition id that is not in the manifest, a file inside an edition folder that
    its manifest entry does not list, a symlink, or a top-level file not in the manifest."""
    manifest = manifest or {"editions": {}, "files": []}
    problems = [_edition_folder_problem(out_dir / res.id, manifest["editions"].get(res.id)) for res in results]
    problems += [_top_file_problem(out_dir / rel, rel in manifest["files"]) for rel in sorted(top)]
    problems = [p for p in problems if p]
    if problems:
        raise BuildError(f"refusing to overwrite {_first_of(problems)}; move it away or choose another output folder")


def _edition_folder_problem(final: Path, listed: list[str] | None) -> str | None:
    """Why the edition folder FINAL may not be replaced (LISTED: its files in the manifest), if it may not."""
    if _absent(final):
        return None
    if final.is_symlink() or not final.is_dir():
        return f"{final} is not a folder civdsl wrote"
    if listed is None:
        return f"{final} was not written by civdsl"
    extra = sorted(_files_under(final) - set(listed))
    return _first_of([f"{final / rel} was not written by civdsl" for rel in extra]) if extra else None


def _top_file_problem(final: Path, owned: bool) -> str | None:
    """Why the top-level file FINAL may not be replaced (OWNED: the manifest lists it), if it may not."""
    if _absent(final):
        return None
    if final.is_symlink() or not final.is_file():
        return f"{final} is not a file civdsl wrote"
    return None if owned else f"{final} was not written by civdsl"


def _work_folder(out_dir: Path) -> Path | None:
    """The work folder of a build, if one is there; refuses one that civdsl did not make."""
    work = out_dir / WORK_NAME
    if _absent(work):
        return None
    if work.is_symlink() or not work.is_dir() or not (work / _MARKER).is_file():
        raise BuildError(f"{work} was not made by civdsl; remove it to build into {out_dir}")
    return work


def _recover(out_dir: Path) -> None:
    """Finish what a killed build left: put back the folders it had moved aside, drop the rest."""
    work = _work_folder(out_dir)
    if work is None:
        return
    old = work / "old"
    aside = sorted(old.iterdir()) if old.is_dir() else []
    for folder in aside:
        final = out_dir / folder.name
        if folder.is_dir() and not folder.is_symlink() and _absent(final):
            os.replace(folder, final)
    shutil.rmtree(work)


def _write_manifest(out_dir: Path, work: Path, manifest: dict) -> None:
    fd, tmp = create_temporary(work, "manifest.")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, sort_keys=True)
        fh.write("\n")
    os.replace(tmp, out_dir / MANIFEST_NAME)


def _check_names(results: list[EditionOutputs], out_dir: Path, top: dict[str, str]) -> None:
    """Refuse a bad edition id or file name before anything is written."""
    for res in results:
        _safe_child(out_dir, res.id)
        for rel in res.files:
            _safe_child(out_dir / res.id, rel)
    for rel in top:
        _safe_child(out_dir, rel)


def _claimed(manifest: dict | None, results: list[EditionOutputs], top: dict[str, str]) -> dict:
    """The manifest while the new outputs are swapped in: what the old one listed and the new
    files, so that after a crash during the swaps the next build recognises every folder as its own."""
    editions = dict(manifest["editions"]) if manifest else {}
    for res in results:
        editions[res.id] = sorted(set(editions.get(res.id, ())) | set(res.files))
    return {"editions": editions, "files": sorted(set(manifest["files"] if manifest else ()) | set(top))}


class _Swap:
    """One build's writes under the lock, all or nothing: every output is staged in the work folder,
    claimed in the manifest, then swapped in by rename; `undo` puts back what was replaced so far."""

    def __init__(self, out_dir: Path, previous_manifest: bytes | None, fail_after: int | None):
        self.out_dir = out_dir
        self.work = out_dir / WORK_NAME
        self.previous_manifest = previous_manifest
        self.fail_after = fail_after
        self.steps = 0
        self.staged: list[tuple[Path, Path]] = []        # (final folder, staging folder)
        self.top_staged: list[tuple[Path, Path]] = []    # (final file, temporary file)
        self.swapped: list[tuple[Path, Path | None]] = []  # (final folder, where its old version waits)
        self.top_old: list[tuple[Path, bytes | None]] = []
        self.made_work = False  # the work folder is this build's (undo may delete it)

    def step(self) -> None:
        """One file written or renamed: where a test injects a failure."""
        self.steps += 1
        if self.fail_after is not None and self.steps >= self.fail_after:
            _injected_failure()

    def make_work_folder(self) -> None:
        # Folders are made with the default mode (the umask applies), files likewise: the output is
        # readable as any other file the user makes, not 0700/0600 as mkdtemp/mkstemp would leave.
        self.work.mkdir()
        self.made_work = True
        (self.work / _MARKER).write_text("a civdsl build is writing here; the next build removes this folder\n")
        (self.work / "new").mkdir()
        (self.work / "old").mkdir()

    def stage_edition(self, res: EditionOutputs) -> None:
        staging = self.work / "new" / res.id
        staging.mkdir()
        self.staged.append((_safe_child(self.out_dir, res.id), staging))
        for rel, content in sorted(res.files.items()):
            target = _safe_child(staging, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(encoded(content))
            self.step()

    def stage_top(self, rel: str, content: str | bytes) -> None:
        final = _safe_child(self.out_dir, rel)
        final.parent.mkdir(parents=True, exist_ok=True)
        # staged in the work folder (one filesystem, so the rename is atomic)
        fd, tmp = create_temporary(self.work, "top.")
        self.top_staged.append((final, Path(tmp)))
        with os.fdopen(fd, "wb") as fh:
            fh.write(encoded(content))
        self.step()

    def swap_in(self) -> None:
        """Every output is complete on disk: move each into place, the old folders aside."""
        for final, staging in self.staged:
            old = None
            if not _absent(final):
                old = self.work / "old" / final.name
                os.replace(final, old)
            self.swapped.append((final, old))
            os.replace(staging, final)
            self.step()
        for final, tmp in self.top_staged:
            self.top_old.append((final, final.read_bytes() if final.is_file() and not final.is_symlink() else None))
            os.replace(tmp, final)
            self.step()

    def undo(self) -> None:
        """Put back every top-level file and folder replaced so far, and the previous manifest."""
        for final, previous in reversed(self.top_old):
            with contextlib.suppress(OSError):
                _restore_file(final, previous)
        for final, old in reversed(self.swapped):
            with contextlib.suppress(OSError):
                _restore_folder(final, old)
        with contextlib.suppress(OSError):
            _restore_file(self.out_dir / MANIFEST_NAME, self.previous_manifest)
        if self.made_work:
            with contextlib.suppress(OSError):
                shutil.rmtree(self.work)


def _restore_file(final: Path, previous: bytes | None) -> None:
    """FINAL as it was: PREVIOUS, or no file where there was none."""
    if previous is None:
        final.unlink()
    else:
        atomic_write(final, previous)


def _restore_folder(final: Path, old: Path | None) -> None:
    """The folder FINAL as it was: the one moved aside to OLD, or none."""
    if final.exists() and not final.is_symlink():
        shutil.rmtree(final)
    if old is not None:
        os.replace(old, final)


def _write_locked(results: list[EditionOutputs], out_dir: Path, top: dict[str, str], manifest: dict | None,
                  had_manifest: bool, fail_after: int | None) -> None:
    _check_names(results, out_dir, top)
    swap = _Swap(out_dir, (out_dir / MANIFEST_NAME).read_bytes() if had_manifest else None, fail_after)
    try:
        swap.make_work_folder()  # inside: a full disk can stop it after the folder is made
        for res in results:
            swap.stage_edition(res)
        for rel, content in sorted(top.items()):
            swap.stage_top(rel, content)
        claimed = _claimed(manifest, results, top)
        _write_manifest(out_dir, swap.work, claimed)
        swap.swap_in()
        # the manifest now says exactly what each edition folder holds
        exact = {"editions": {**claimed["editions"], **{res.id: sorted(res.files) for res in results}},
                 "files": claimed["files"]}
        _write_manifest(out_dir, swap.work, exact)
    except BaseException:
        swap.undo()
        raise
    shutil.rmtree(swap.work)


def compare(results: list[EditionOutputs], out_dir: Path, top: dict[str, str] | None = None) -> list[str]:
    """Differences between a fresh build and what is on disk (empty when in sync)."""
    problems = [p for res in results for p in _compare_edition(res, out_dir / res.id)]
    for rel, content in sorted((top or {}).items()):
        path = out_dir / rel
        if not path.is_file() or path.read_text(encoding="utf-8") != content:
            problems.append(f"{rel}: differs from a fresh build")
    return problems


def _compare_edition(res: EditionOutputs, folder: Path) -> list[str]:
    """How the edition folder on disk differs from the files of a fresh build."""
    expected = set(res.files)
    present = _files_in(folder)
    problems = [f"{res.id}/{rel}: missing" for rel in sorted(expected - present)]
    # an SVG drawn from a DOT source this build produced, where the tool is installed, is no stale file
    problems += [f"{res.id}/{rel}: not produced by the build (stale)" for rel in sorted(present - expected)
                 if not _drawn_by_tool(rel, expected)]
    problems += [f"{res.id}/{rel}: differs from a fresh build" for rel in sorted(expected & present)
                 if _differs(folder / rel, res.files[rel])]
    # a drawing the charts link, which this machine cannot make (no Graphviz) and the folder lacks
    problems += [f"{res.id}/{drawing}: missing (the charts link it; install Graphviz and build again)"
                 for _, drawing in _undrawn(res.files) if drawing not in present]
    return problems


def _files_in(folder: Path) -> set[str]:
    """Every file below FOLDER, relative to it; none where there is no such folder."""
    if not folder.is_dir():
        return set()
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def _differs(path: Path, content: str | bytes) -> bool:
    """Whether the file at PATH is not CONTENT. An output rendered by an external tool may differ
    with its version and is not compared: its DOT source is."""
    return not path.name.endswith(TOOL_DEPENDENT_SUFFIXES) and path.read_bytes() != encoded(content)


def _undrawn(files: dict) -> list[tuple[str, str]]:
    """(DOT source, its drawing) for each DOT among FILES whose drawing is not: the tool was missing."""
    return [(rel, rel[: -len(".dot")] + suf) for rel in sorted(files) if rel.endswith(".dot")
            for suf in TOOL_DEPENDENT_SUFFIXES if rel[: -len(".dot")] + suf not in files]


def _keep_drawings(results: list[EditionOutputs], out_dir: Path) -> None:
    """Where the tool that draws a DOT source is missing, the drawing an earlier build made of the
    same source stays (the charts link it); of another source it goes, and `build --check`
    reports it missing."""
    for res in results:
        folder = out_dir / res.id
        for dot, drawing in _undrawn(res.files):
            old_dot, old_drawing = folder / dot, folder / drawing
            if old_drawing.is_file() and old_dot.is_file() and old_dot.read_bytes() == encoded(res.files[dot]):
                res.files[drawing] = old_drawing.read_bytes()
                res.messages.append(f"{res.id}/{drawing}: kept, drawn by an earlier build from the same {dot}")


def _drawn_by_tool(rel: str, expected: set[str]) -> bool:
    """Whether REL is a tool's drawing of a DOT source among EXPECTED."""
    return any(rel.endswith(suf) and rel[: -len(suf)] + ".dot" in expected for suf in TOOL_DEPENDENT_SUFFIXES)
