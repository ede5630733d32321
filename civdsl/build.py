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
from pathlib import Path

from .codegen import generate
from .compiler import Checked, check_file
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
    out.files["model.json"] = json.dumps(to_data(ed), indent=2, ensure_ascii=False, sort_keys=False) + "\n"
    from . import charts

    rendered, messages = charts.render_all(ed, base.edition if base else None)
    out.files.update(rendered)
    out.messages.extend(messages)
    return out


def _base_of(checked: Checked) -> Checked | None:
    """For a house rule, its nearest base (charts mark what the house rule changes)."""
    if len(checked.chain) < 2:
        return None
    return check_file(checked.chain[-2].path)


def compile_all(paths: list[Path], diags: Diagnostics, progress=None) -> list[EditionOutputs] | None:
    results = []
    ids: dict[str, Path] = {}
    for path in paths:
        checked = check_file(path, diags)
        if progress:
            progress(path)
        if not checked.ok:
            continue
        if checked.edition.id in ids:
            diags.error("CIV020", f"edition `{checked.edition.id}` is built from two files: {ids[checked.edition.id]} and {path}",
                        checked.edition.span)
            continue
        ids[checked.edition.id] = path
        results.append(render(checked, _base_of(checked)))
    if diags.has_errors:
        return None
    return results


@contextlib.contextmanager
def _locked(out_dir: Path):
    import fcntl

    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / ".civdsl-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _safe_child(out_dir: Path, name: str) -> Path:
    """Every output path stays inside the output folder, whatever an edition id says."""
    target = (out_dir / name).resolve()
    root = out_dir.resolve()
    if target == root or root not in target.parents:
        raise ValueError(f"refusing to write outside {out_dir}: {name}")
    return target


def write(results: list[EditionOutputs], out_dir: Path, top: dict[str, str] | None = None,
          fail_after: int | None = None) -> None:
    """Replace each edition's folder whole. `fail_after` injects a failure (tests)."""
    written = 0
    with _locked(out_dir):
        for res in results:
            final = _safe_child(out_dir, res.id)
            staging = Path(tempfile.mkdtemp(prefix=f".{res.id}.staging-", dir=out_dir))
            try:
                for rel, content in sorted(res.files.items()):
                    target = _safe_child(staging, rel)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    data = content.encode("utf-8") if isinstance(content, str) else content
                    target.write_bytes(data)
                    written += 1
                    if fail_after is not None and written >= fail_after:
                        raise RuntimeError("injected failure while writing")
                old = None
                if final.exists():
                    old = Path(tempfile.mkdtemp(prefix=f".{res.id}.old-", dir=out_dir))
                    os.replace(final, old / "x")
                os.replace(staging, final)
                if old is not None:
                    shutil.rmtree(old, ignore_errors=True)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
        for rel, content in sorted((top or {}).items()):
            atomic_write(_safe_child(out_dir, rel), content)


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
