"""Reading rulebook files and following `extends` chains, inside the allowed roots only.

A base may be named by edition id (a shipped rulebook) or by a relative path. Paths resolve
against the extending file's folder and must stay inside that file's own tree or the shipped
rulebooks folder: absolute paths, `..` escapes, symlinks leading out and URLs are refused.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import Diagnostics, Span, suggestion
from .escape import shown_name
from .resources import rulebooks_dir, shipped_rulebooks

LANGUAGE_VERSIONS = (1,)
MAX_CHAIN = 16


@dataclass
class LoadedFile:
    path: Path
    display: str
    text: str
    ast: syntax.RulebookAst
    # sha256 of the exact bytes the text was decoded from (what the compile cache is keyed by)
    digest: str = ""
    # the path as reached, before symlinks are followed: as given for the first file, as written
    # after `extends` for a base. The cache re-reads this path, so a re-pointed link is noticed.
    named: Path | None = None


def display_path(path: Path, shipped: Path | None = None) -> str:
    """A short, stable way to name a file in diagnostics and generated code.

    Shipped rulebooks are always `rulebooks/...`, wherever the package is installed, so that
    a build gives the same bytes from a checkout and from an installed copy. `shipped`: the
    shipped rulebooks' folder, resolved, when the caller has it already (see load_chain).
    """
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError, ValueError):  # a symlink loop: name it as given
        return shown_name(path)
    shipped = shipped or rulebooks_dir().resolve()
    if inside(resolved, shipped):
        return "rulebooks/" + resolved.relative_to(shipped).as_posix()
    try:
        return shown_name(resolved.relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):  # OSError: the current folder was deleted
        return shown_name(path)


def read_source(path: Path, display: str, diags: Diagnostics, within: "Within | None" = None) -> str | None:
    data = read_bytes(path, display, diags, within)
    return None if data is None else decode_source(data, display, diags)


@dataclass
class Within:
    """Where a base named by `extends` must lie, checked again on the file actually opened: a
    name checked and then opened can be swapped for a symlink in between."""
    roots: list[Path]
    target: str
    span: Span


def _opened_path(fd: int, path: Path) -> Path:
    """The real path of an open file: exact where the system says it (/proc on Linux), else the
    path resolved again and compared with the open file's identity."""
    try:
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        real = Path(os.path.realpath(path))
        opened, named = os.fstat(fd), os.stat(real)
        if (opened.st_dev, opened.st_ino) != (named.st_dev, named.st_ino):
            raise OSError(f"{path} changed while it was being opened") from None
        return real


def read_bytes(path: Path, display: str, diags: Diagnostics, within: Within | None = None) -> bytes | None:
    """The bytes of a rulebook, read once through one open file: what was checked (a regular
    file, not too big, inside its allowed roots) is what is read, even if the name is swapped
    for a symlink meanwhile."""
    # the parser (and Lark) only where a rulebook is read: a check answered from its kept result
    # reads no rulebook
    from . import parser

    try:
        # open without blocking (a FIFO would wait for a writer forever)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            data = _read_open(fh, path, display, diags, within)
    except FileNotFoundError:
        diags.error("CIV004", f"no such file: {display}")
        return None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        diags.error("CIV004", f"cannot read {display}: {getattr(exc, 'strerror', None) or exc}")
        return None
    if data is None:
        return None
    if len(data) > parser.MAX_BYTES:
        diags.error("CIV005", f"{display} is more than {parser.MAX_BYTES:,} bytes long; the limit is {parser.MAX_BYTES:,}",
                    Span(display, 1, 1), help="split the rulebook, or extend a base rulebook instead of copying it")
        return None
    return data


def _read_open(fh, path: Path, display: str, diags: Diagnostics, within: Within | None) -> bytes | None:
    """The bytes of an open file, if it is a regular file inside its allowed roots; never more
    than one byte over the limit (a huge file or /dev/zero)."""
    from . import parser

    if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
        diags.error("CIV004", f"cannot read {display}: not a regular file")
        return None
    if within is not None and not any(inside(_opened_path(fh.fileno(), path), r) for r in within.roots):
        diags.error("CIV006", f"`{within.target}` leads outside this rulebook's folder", within.span,
                    notes=["the path changed between checking it and opening it"])
        return None
    return fh.read(parser.MAX_BYTES + 1)


def decode_source(data: bytes, display: str, diags: Diagnostics) -> str | None:
    """Bytes read by `read_bytes` as normalised text, or None with a located CIV004."""
    from . import parser

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        prefix = parser.normalise(prefix)
        line = prefix.count("\n") + 1
        column = len(prefix) - (prefix.rfind("\n") + 1) + 1
        diags.error("CIV004", f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02x})", Span(display, line, column),
                    help="save the file as UTF-8")
        return None
    text = parser.normalise(text)
    if "\0" in text:
        prefix = text[: text.index("\0")]
        line = prefix.count("\n") + 1
        diags.error("CIV004", "the file contains a NUL character", Span(display, line, len(prefix) - (prefix.rfind("\n") + 1) + 1))
        return None
    diags.add_source(display, text)
    return text


# Syntax trees of files that parsed cleanly, by (display path, text): a build of house rules
# reads the same base many times, and later passes only read the trees.
_PARSED: dict[tuple[str, str], syntax.RulebookAst] = {}
_PARSED_LIMIT = 64


def forget_parsed() -> None:
    """Forget the syntax trees kept for the next parse of the same text in this process."""
    _PARSED.clear()


def parse_file(path: Path, diags: Diagnostics, display: str | None = None,
               within: Within | None = None) -> LoadedFile | None:
    display = display or display_path(path)
    data = read_bytes(path, display, diags, within)
    text = None if data is None else decode_source(data, display, diags)
    if text is None:
        return None
    ast = _PARSED.get((display, text)) or _parse(text, display, diags)
    if ast is None:
        return None
    check_language(ast, diags)
    return LoadedFile(path, display, text, ast, hashlib.sha256(data).hexdigest(), path)


def check_language(ast: syntax.RulebookAst, diags: Diagnostics) -> None:
    """CIV003 for a `language` this civdsl does not read."""
    if ast.language not in LANGUAGE_VERSIONS:
        diags.error("CIV003", f"language {ast.language} is not supported; this civdsl reads language "
                              f"{', '.join(map(str, LANGUAGE_VERSIONS))}", ast.language_span)


def parse_text(text: str, display: str, diags: Diagnostics) -> syntax.RulebookAst | None:
    """Passes 1 and 2 on a file's text: its syntax tree, or None (reported)."""
    from . import parser, syntax

    tree = parser.parse(text, display, diags, depth=False)  # the syntax pass measures the depth
    if tree is None:
        return None
    before = len(diags.items)
    try:
        return syntax.to_syntax(tree, display, diags)
    except parser.TooDeep:
        # reported as parser.parse reports it, with nothing of the syntax pass, as if it never ran
        del diags.items[before:]
        parser.report_too_deep(tree, display, diags)
        return None
    except RecursionError:
        diags.error("CIV005", "the file is nested too deeply", Span(display, 1, 1))
        return None


def _parse(text: str, display: str, diags: Diagnostics) -> syntax.RulebookAst | None:
    """`parse_text`, keeping a tree that came with no diagnostic in _PARSED."""
    before = len(diags.items)
    ast = parse_text(text, display, diags)
    if ast is not None and len(diags.items) == before:
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[(display, text)] = ast
    return ast


def load_chain(path: Path, diags: Diagnostics) -> list[LoadedFile]:
    """The file and its bases, base first. Empty when the first file cannot be read."""
    chain: list[LoadedFile] = []
    seen: list[Path] = []
    named = [path]  # each file's path as reached (see LoadedFile.named)
    current = path
    within: Within | None = None
    by: LoadedFile | None = None  # the file whose `extends` names `current`
    # which folder holds the shipped rulebooks is looked up once for the chain (finding out
    # walks the folders above the current one, each time)
    shipped = rulebooks_dir().resolve()
    while not extends_cycle(seen, _resolved(current), by, diags):
        loaded = parse_file(current, diags, display_path(current, shipped), within)
        if loaded is None:
            break
        chain.append(loaded)
        current = next_base(loaded, len(chain), diags)
        if current is None:
            break
        within = _within(loaded, shipped)
        named.append(loaded.path.parent / loaded.ast.extends if within is not None else current)
        by = loaded
    for loaded, as_named in zip(chain, named):
        loaded.named = as_named
    chain.reverse()
    return chain


def extends_cycle(seen: list[Path], resolved: Path, by, diags: Diagnostics) -> bool:
    """Whether the file a chain reaches next (`resolved`, named by the `extends` of `by`) is one
    it holds already (reported); else it is added to `seen`."""
    if resolved in seen:
        names = " -> ".join(display_path(p) for p in seen + [resolved])
        diags.error("CIV008", f"extends cycle: {names}", by.ast.extends_span)
        return True
    seen.append(resolved)
    return False


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):  # a symlink loop: let reading report it
        return path.absolute()


def next_base(loaded: LoadedFile, files: int, diags: Diagnostics) -> Path | None:
    """The base the file extends, as the chain's `files`-th file; None (reported) when the chain
    would grow too long or the base cannot be used, and None when the file extends nothing."""
    if loaded.ast.extends is None:
        return None
    if files >= MAX_CHAIN:
        diags.error("CIV008", f"extends chain longer than {MAX_CHAIN} files", loaded.ast.extends_span)
        return None
    return resolve_base(loaded, diags)


def _within(loaded: LoadedFile, shipped: Path) -> Within | None:
    """Where the base a file names by path must lie (None for a shipped edition named by id):
    its own folder's tree or `shipped`, the shipped rulebooks' folder."""
    if not loaded.ast.extends_is_path:
        return None
    return Within([loaded.path.resolve().parent, shipped], loaded.ast.extends,
                  loaded.ast.extends_span)


# What `extends` refuses to follow before looking at the disk, and why.
_REFUSED = (
    (re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://|^//"),
     "extends cannot fetch a URL; name a shipped edition id or a file beside this one"),
    (re.compile(r"^(/|[A-Za-z]:[\\/]|\\\\)"), "extends takes a relative path, not an absolute one"),
    (re.compile("\0"), "extends path contains a NUL character"),
)


def _refusal(target: str) -> str | None:
    """Why `extends` will not follow this path, if it will not (_REFUSED)."""
    return next((why for pattern, why in _REFUSED if pattern.search(target)), None)


def resolve_base(loaded: LoadedFile, diags: Diagnostics) -> Path | None:
    """The file a rulebook's `extends` names, or None after reporting why it cannot be used."""
    ast = loaded.ast
    if not ast.extends_is_path:
        return _shipped_base(loaded, diags)
    refused = _refusal(ast.extends)
    if refused is not None:
        diags.error("CIV006", refused, ast.extends_span)
        return None
    try:
        return _base_in_tree(loaded, diags)
    except RuntimeError:  # Python 3.11 raises it for a symlink loop
        diags.error("CIV006", f"`{ast.extends}` is a symlink loop", ast.extends_span)
    except (OSError, ValueError) as exc:
        diags.error("CIV006", f"`{ast.extends}` cannot be used as a path: {getattr(exc, 'strerror', None) or exc}",
                    ast.extends_span)
    return None


def _shipped_base(loaded: LoadedFile, diags: Diagnostics) -> Path | None:
    """A base named by edition id: a shipped rulebook (a file of that name beside this one gets
    a hint to name it by path)."""
    target = loaded.ast.extends
    shipped = shipped_rulebooks()
    if target in shipped:
        return shipped[target]
    if (loaded.path.parent / f"{target}.civ").is_file():
        hint = f'`{target}.civ` is beside this file: write extends "{target}.civ"'
    else:
        hint = suggestion(target, shipped) or f"shipped rulebooks: {', '.join(shipped)}"
    diags.error("CIV007", f"no shipped rulebook `{target}`", loaded.ast.extends_span, help=hint)
    return None


def _base_in_tree(loaded: LoadedFile, diags: Diagnostics) -> Path | None:
    """A base named by relative path: a file in this file's folder tree or the shipped rulebooks'."""
    target, span = loaded.ast.extends, loaded.ast.extends_span
    resolved = (loaded.path.parent / target).resolve()
    if not any(inside(resolved, root) for root in (loaded.path.resolve().parent, rulebooks_dir().resolve())):
        diags.error("CIV006", f"`{target}` leads outside this rulebook's folder", span,
                    help="keep a house rule and its bases in one folder tree, or extend a shipped edition by id")
        return None
    if not resolved.is_file():
        diags.error("CIV007", f"no rulebook at `{target}`", span)
        return None
    return resolved


def inside(path: Path, root: Path) -> bool:
    """`path` lies in `root`'s tree (both already resolved)."""
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


def find_rulebook(name: str) -> Path | None:
    """An edition id of a shipped rulebook, or a path to a file."""
    from .resources import rulebook_argument

    path = rulebook_argument(name)
    return path if name in shipped_rulebooks() or path.exists() else None
