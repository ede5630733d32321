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
import secrets
import shutil
import stat
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from .codegen import CodegenError, generate_module
from .frontend import Checked, check_file
from .api import RulebookError
from .diagnostics import Diagnostics
from .serialize import to_data

# Outputs whose bytes depend on the tools installed (Graphviz's version): compared loosely.
TOOL_DEPENDENT_SUFFIXES = (".svg",)


def atomic_write(path: Path, content: str | bytes) -> None:
    """Write a file so that readers see the old or the new content, never a torn one.

    A symlink stays a symlink (its target is rewritten), an existing file keeps its mode, and a
    new file gets the user's umask, as an editor's save would."""
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = _create_temporary(path.parent, f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if mode is not None:
                os.fchmod(fh.fileno(), mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _create_temporary(folder: Path, prefix: str) -> tuple[int, str]:
    """A new file in `folder` created with mode 0666 less the umask (mkstemp would make it 0600,
    and the mode would survive the rename); never an existing file or a symlink."""
    for _ in range(100):
        name = os.path.join(folder, f"{prefix}{secrets.token_hex(6)}.tmp")
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder}")


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

    rendered, messages = charts.render_all(ed, base.edition if base else None)
    out.files.update(rendered)
    out.messages.extend(messages)
    from .companion.page import companion_html, module_from_code

    out.files["companion.html"] = companion_html(module_from_code(code, ed.id), ed)
    return out


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
    if (not rel or str(rel).startswith("/") or "\0" in str(rel)
            or any(p in ("", ".", "..") or ":" in p for p in parts)):
        raise BuildError(f"refusing to write outside {root}: {rel!r}")
    if parts[0] in (MANIFEST_NAME, WORK_NAME):
        raise BuildError(f"refusing to write {rel!r}: the name is civdsl's own")
    target = Path(root)
    for part in parts[:-1]:
        target = target / part
        if target.is_symlink():
            raise BuildError(f"refusing to write through the symlink {target}")
    return target / parts[-1]


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
    try:
        with _locked(out_dir):
            _recover(out_dir)
            manifest = _read_manifest(out_dir)
            had_manifest = manifest is not None
            if manifest is None:
                manifest = _adopt_legacy(out_dir)
            _check_ownership(out_dir, results, top or {}, manifest)
            _write_locked(results, out_dir, top or {}, manifest, had_manifest, fail_after)
    except OSError as exc:
        raise BuildError(f"cannot write {out_dir}: {exc.strerror or exc}"
                         + (f" ({exc.filename})" if exc.filename else "")) from None


def _read_manifest(out_dir: Path) -> dict | None:
    path = out_dir / MANIFEST_NAME
    if not path.exists() and not path.is_symlink():
        return None
    if path.is_symlink() or not path.is_file():
        raise BuildError(f"{path} is not a file civdsl wrote; remove it to build into {out_dir}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        editions = {str(k): [str(f) for f in v] for k, v in data["editions"].items()}
        return {"editions": editions, "files": [str(f) for f in data["files"]]}
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        raise BuildError(f"{path} is damaged; remove it (and check what {out_dir} holds) to build again") from None


def _adopt_legacy(out_dir: Path) -> dict | None:
    """The manifest an output folder of an older civdsl (which kept none) would have had: its
    edition folders (recognised by the generated module's docstring) with the files they hold,
    and the plain files beside them (the site files that civdsl wrote there). None when the
    folder holds no such edition: then it is not an older output and nothing in it is ours."""
    editions = {d.name: sorted(_files_under(d)) for d in sorted(out_dir.iterdir())
                if d.is_dir() and not d.is_symlink() and not d.name.startswith(".") and _is_legacy_edition(d)}
    if not editions:
        return None
    files = sorted(f.name for f in out_dir.iterdir()
                   if f.is_file() and not f.is_symlink() and not f.name.startswith("."))
    return {"editions": editions, "files": files}


def _is_legacy_edition(folder: Path) -> bool:
    try:
        with open(folder / "effects.py", "rb") as fh:
            return _LEGACY_SIGNATURE in fh.read(1000)
    except OSError:
        return False


def _files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir() or p.is_symlink()}


def _check_ownership(out_dir: Path, results: list[EditionOutputs], top: dict[str, str], manifest: dict | None) -> None:
    """Refuse, before writing anything, to replace what an earlier build did not write: a folder
    named like an edition id that is not in the manifest, a file inside an edition folder that
    its manifest entry does not list, a symlink, or a top-level file not in the manifest."""
    problems = []
    for res in results:
        final = out_dir / res.id
        if not final.exists() and not final.is_symlink():
            continue
        if final.is_symlink() or not final.is_dir():
            problems.append(f"{final} is not a folder civdsl wrote")
        elif manifest is not None and res.id in manifest["editions"]:
            extra = sorted(_files_under(final) - set(manifest["editions"][res.id]))
            if extra:
                problems.append(f"{final / extra[0]} was not written by civdsl"
                                + (f" (and {len(extra) - 1} more)" if len(extra) > 1 else ""))
        else:
            problems.append(f"{final} was not written by civdsl")
    owned_top = set(manifest["files"]) if manifest is not None else set()
    for rel in sorted(top):
        final = out_dir / rel
        if not final.exists() and not final.is_symlink():
            continue
        if final.is_symlink() or not final.is_file():
            problems.append(f"{final} is not a file civdsl wrote")
        elif rel not in owned_top:
            problems.append(f"{final} was not written by civdsl")
    if problems:
        raise BuildError(f"refusing to overwrite {problems[0]}"
                         + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
                         + "; move it away or choose another output folder")


def _work_folder(out_dir: Path) -> Path | None:
    """The work folder of a build, if one is there; refuses one that civdsl did not make."""
    work = out_dir / WORK_NAME
    if not work.exists() and not work.is_symlink():
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
    if old.is_dir():
        for aside in sorted(old.iterdir()):
            final = out_dir / aside.name
            if aside.is_dir() and not aside.is_symlink() and not final.exists() and not final.is_symlink():
                os.replace(aside, final)
    shutil.rmtree(work)


def _write_manifest(out_dir: Path, work: Path, manifest: dict) -> None:
    fd, tmp = _create_temporary(work, "manifest.")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, sort_keys=True)
        fh.write("\n")
    os.replace(tmp, out_dir / MANIFEST_NAME)


def _write_locked(results: list[EditionOutputs], out_dir: Path, top: dict[str, str], manifest: dict | None,
                  had_manifest: bool, fail_after: int | None) -> None:
    steps = 0

    def step() -> None:
        nonlocal steps
        steps += 1
        if fail_after is not None and steps >= fail_after:
            _injected_failure()

    for res in results:  # refuse a bad id or file name before anything is written
        _safe_child(out_dir, res.id)
        for rel in res.files:
            _safe_child(out_dir / res.id, rel)
    for rel in top:
        _safe_child(out_dir, rel)
    # Folders are made with the default mode (the umask applies), files likewise: the output is
    # readable as any other file the user makes, not 0700/0600 as mkdtemp/mkstemp would leave.
    work = out_dir / WORK_NAME
    work.mkdir()
    (work / _MARKER).write_text("a civdsl build is writing here; the next build removes this folder\n")
    (work / "new").mkdir()
    (work / "old").mkdir()
    previous_manifest = (out_dir / MANIFEST_NAME).read_bytes() if had_manifest else None
    staged: list[tuple[Path, Path]] = []        # (final folder, staging folder)
    top_staged: list[tuple[Path, Path]] = []    # (final file, temporary file)
    swapped: list[tuple[Path, Path | None]] = []  # (final folder, where its old version waits)
    top_old: list[tuple[Path, bytes | None]] = []
    try:
        for res in results:
            final = _safe_child(out_dir, res.id)
            staging = work / "new" / res.id
            staging.mkdir()
            staged.append((final, staging))
            for rel, content in sorted(res.files.items()):
                target = _safe_child(staging, rel)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
                step()
        for rel, content in sorted(top.items()):
            final = _safe_child(out_dir, rel)
            final.parent.mkdir(parents=True, exist_ok=True)
            # staged in the work folder (one filesystem, so the rename is atomic)
            fd, tmp = _create_temporary(work, "top.")
            top_staged.append((final, Path(tmp)))
            with os.fdopen(fd, "wb") as fh:
                fh.write(content.encode("utf-8") if isinstance(content, str) else content)
            step()
        # The manifest claims the new outputs before they are swapped in, so that after a crash
        # during the swaps the next build still recognises every folder as its own.
        claimed = {"editions": dict(manifest["editions"]) if manifest else {},
                   "files": sorted(set(manifest["files"] if manifest else ()) | set(top))}
        for res in results:
            claimed["editions"][res.id] = sorted(set(claimed["editions"].get(res.id, ())) | set(res.files))
        _write_manifest(out_dir, work, claimed)
        # every output is complete on disk: swap them in
        for final, staging in staged:
            old = None
            if final.exists() or final.is_symlink():
                old = work / "old" / final.name
                os.replace(final, old)
            swapped.append((final, old))
            os.replace(staging, final)
            step()
        for final, tmp in top_staged:
            top_old.append((final, final.read_bytes() if final.is_file() and not final.is_symlink() else None))
            os.replace(tmp, final)
            step()
        # the manifest now says exactly what each edition folder holds
        exact = {"editions": dict(claimed["editions"]), "files": claimed["files"]}
        for res in results:
            exact["editions"][res.id] = sorted(res.files)
        _write_manifest(out_dir, work, exact)
    except BaseException:
        for final, previous in reversed(top_old):
            with contextlib.suppress(OSError):
                if previous is None:
                    final.unlink()
                else:
                    atomic_write(final, previous)
        for final, old in reversed(swapped):
            with contextlib.suppress(OSError):
                if final.exists() and not final.is_symlink():
                    shutil.rmtree(final)
                if old is not None:
                    os.replace(old, final)
        with contextlib.suppress(OSError):
            if previous_manifest is None:
                (out_dir / MANIFEST_NAME).unlink()
            else:
                atomic_write(out_dir / MANIFEST_NAME, previous_manifest)
        with contextlib.suppress(OSError):
            shutil.rmtree(work)
        raise
    shutil.rmtree(work)


def compare(results: list[EditionOutputs], out_dir: Path, top: dict[str, str] | None = None) -> list[str]:
    """Differences between a fresh build and what is on disk (empty when in sync)."""
    problems = []
    for res in results:
        folder = out_dir / res.id
        expected = set(res.files)
        present = {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()} if folder.is_dir() else set()
        for rel in sorted(expected - present):
            problems.append(f"{res.id}/{rel}: missing")
        for rel in sorted(present - expected):
            if rel.endswith(TOOL_DEPENDENT_SUFFIXES) and any(rel[: -len(suf)] + ".dot" in expected
                                                              for suf in TOOL_DEPENDENT_SUFFIXES if rel.endswith(suf)):
                continue  # drawn from a DOT source this build produced, where the tool is installed
            problems.append(f"{res.id}/{rel}: not produced by the build (stale)")
        for rel in sorted(expected & present):
            content = res.files[rel]
            data = content.encode("utf-8") if isinstance(content, str) else content
            on_disk = (folder / rel).read_bytes()
            if rel.endswith(TOOL_DEPENDENT_SUFFIXES):
                continue  # rendered by an external tool whose version may differ; the DOT source is compared
            if on_disk != data:
                problems.append(f"{res.id}/{rel}: differs from a fresh build")
    for rel, content in sorted((top or {}).items()):
        path = out_dir / rel
        if not path.is_file() or path.read_text(encoding="utf-8") != content:
            problems.append(f"{rel}: differs from a fresh build")
    return problems
