"""`civdsl build`: compile rulebooks into generated/<edition>/, all or nothing.

A build first renders every output of every rulebook in memory. Only if no rulebook has an
error does it write, each edition into a fresh staging folder that then replaces the old one
by rename, under a lock so that two builds on one output folder never interleave files.
`--check` renders the same way and compares, writing nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from .codegen import CodegenError, generate
from .compiler import Checked, check_file
from .api import RulebookError
from .diagnostics import Diagnostics
from .serialize import to_data

# Outputs whose bytes depend on the tools installed (Graphviz's version): compared loosely.
TOOL_DEPENDENT_SUFFIXES = (".svg",)


def atomic_write(path: Path, content: str | bytes) -> None:
    """Write a file so that readers see the old or the new content, never a torn one."""
    path = Path(path)
    data = content.encode("utf-8") if isinstance(content, str) else content
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


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
    out.files["effects.py"] = generate(ed, texts)
    out.files["model.json"] = json.dumps(to_data(ed), indent=2, ensure_ascii=False, sort_keys=False,
                                         default=_json_value) + "\n"
    from . import charts

    rendered, messages = charts.render_all(ed, base.edition if base else None)
    out.files.update(rendered)
    out.messages.extend(messages)
    return out


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
            results.append(render(checked, _base_of(checked)))
        except CodegenError as exc:
            diags.error(exc.code, str(exc), exc.span or checked.edition.span)
    if diags.has_errors:
        return None
    return results


class BuildError(RulebookError):
    """The output folder cannot be written (shown as `error: ...`, exit 1)."""


@contextlib.contextmanager
def _locked(out_dir: Path):
    import fcntl

    out_dir.mkdir(parents=True, exist_ok=True)
    # O_NOFOLLOW: a symlink planted as the lock file must not make us create or touch its target
    fd = os.open(out_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with os.fdopen(fd, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


LOCK_NAME = ".civdsl-build.lock"


def _safe_child(root: Path, rel: str) -> Path:
    """`root/rel`, refusing any `rel` that could lead outside `root`: absolute paths, `..`, empty
    or odd components, and folders on the way that are symlinks (checked without following)."""
    parts = str(rel).replace("\\", "/").split("/")
    if (not rel or str(rel).startswith("/") or "\0" in str(rel)
            or any(p in ("", ".", "..") or ":" in p for p in parts)):
        raise BuildError(f"refusing to write outside {root}: {rel!r}")
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

    Each edition is written whole into a staging folder inside `out_dir`; only when every file of
    every edition is on disk are the folders swapped in by rename (the old one moved aside until
    the last swap is done). A failure at any point (`fail_after` counts steps: files written and
    renames; it injects one) removes what was staged and moves back what was already swapped, so
    `out_dir` is as it was. A hard crash (kill -9) during the swaps can leave some editions old
    and some new, each folder complete; the next build cleans up and repairs that.
    """
    out_dir = Path(out_dir)
    try:
        with _locked(out_dir):
            _recover(out_dir)
            _write_locked(results, out_dir, top or {}, fail_after)
    except OSError as exc:
        raise BuildError(f"cannot write {out_dir}: {exc.strerror or exc}"
                         + (f" ({exc.filename})" if exc.filename else "")) from None


def _recover(out_dir: Path) -> None:
    """Undo what a crashed build left behind: restore folders it had moved aside, drop its staging."""
    for entry in sorted(out_dir.iterdir()):
        name = entry.name
        if not name.startswith(".") or entry.is_symlink():
            continue
        if ".old-" in name and entry.is_dir():
            final = out_dir / name[1:].split(".old-")[0]
            kept = entry / "x"
            if kept.is_dir() and not final.exists() and not final.is_symlink():
                os.replace(kept, final)
            shutil.rmtree(entry, ignore_errors=True)
        elif ".staging-" in name and entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        elif name.endswith(".tmp") and entry.is_file():
            with contextlib.suppress(OSError):
                entry.unlink()


def _write_locked(results: list[EditionOutputs], out_dir: Path, top: dict[str, str], fail_after: int | None) -> None:
    steps = 0

    def step() -> None:
        nonlocal steps
        steps += 1
        if fail_after is not None and steps >= fail_after:
            _injected_failure()

    staged: list[tuple[Path, Path]] = []        # (final folder, staging folder)
    top_staged: list[tuple[Path, Path]] = []    # (final file, temporary file)
    swapped: list[tuple[Path, Path | None]] = []  # (final folder, where its old version waits)
    top_old: list[tuple[Path, bytes | None]] = []
    try:
        for res in results:
            final = _safe_child(out_dir, res.id)
            staging = Path(tempfile.mkdtemp(prefix=f".{res.id}.staging-", dir=out_dir))
            staged.append((final, staging))
            for rel, content in sorted(res.files.items()):
                target = _safe_child(staging, rel)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
                step()
        for rel, content in sorted(top.items()):
            final = _safe_child(out_dir, rel)
            final.parent.mkdir(parents=True, exist_ok=True)
            # staged at the top of out_dir (one filesystem, so the rename is atomic), where
            # _recover finds what a crash leaves
            fd, tmp = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".tmp", dir=out_dir)
            top_staged.append((final, Path(tmp)))
            with os.fdopen(fd, "wb") as fh:
                fh.write(content.encode("utf-8") if isinstance(content, str) else content)
            step()
        # every output is complete on disk: swap them in
        for final, staging in staged:
            old = None
            if final.exists() or final.is_symlink():
                old = Path(tempfile.mkdtemp(prefix=f".{final.name}.old-", dir=out_dir)) / "x"
                os.replace(final, old)
            swapped.append((final, old))
            os.replace(staging, final)
            step()
        for final, tmp in top_staged:
            top_old.append((final, final.read_bytes() if final.is_file() and not final.is_symlink() else None))
            os.replace(tmp, final)
            step()
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
                    trash = Path(tempfile.mkdtemp(prefix=f".{final.name}.staging-", dir=out_dir))
                    os.replace(final, trash / "x")
                if old is not None:
                    os.replace(old, final)
                    shutil.rmtree(old.parent, ignore_errors=True)
        for _, staging in staged:
            shutil.rmtree(staging, ignore_errors=True)
        for _, tmp in top_staged:
            with contextlib.suppress(OSError):
                tmp.unlink()
        _recover(out_dir)
        raise
    for _, old in swapped:
        if old is not None:
            shutil.rmtree(old.parent, ignore_errors=True)


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
