"""The user's own cache folder: what may be kept there, and how it is read and written safely.

Three things are kept, each under a name derived from a hash of what it was made from, so that
a name is never reused for different content: the analysed grammar (`grammar-*.lark`, a Lark
pickle), compiled rulebooks (`module-<key>.py` and their bytecode `module-<key>.bytecode`), and
checked rulebooks (`checked-<key>.pickle`, what `check` and `build` reuse). `chain-*.json`
records, for one rulebook path, which files its extends chain read and their hashes.

Two of these are pickles, which run code when loaded, and the modules are executed: the folder
is used only when it belongs to this user and nobody else may write to it, a file is read only
when it is a regular file of this user (opened without following a symlink, checked on the
open descriptor), and files are written to a fresh temporary name and renamed into place, so a
symlink planted at a cache path is replaced, never written through. When the folder cannot be
used, nothing is kept and nothing is left behind: every command still works, compiling afresh.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from pathlib import Path

try:  # CPython's built-in SHA-256: the same digests as hashlib's, without loading OpenSSL (which
    # every question would pay for at start-up)
    from _sha256 import sha256  # Python 3.11
except ImportError:
    try:
        from _sha2 import sha256  # Python 3.12 and later
    except ImportError:
        from hashlib import sha256

# Bumped when the layout of the folder or of a cached file changes.
FORMAT = "3"
# No cached file is anywhere near this; a bigger one is not ours.
MAX_FILE = 64 * 1024 * 1024


def cache_dir() -> Path:
    if os.environ.get("CIVDSL_CACHE"):
        return Path(os.environ["CIVDSL_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "civdsl"


def _trusted(st: os.stat_result) -> bool:
    """Owned by this user and not writable by anyone else."""
    return st.st_uid == os.geteuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def folder() -> Path | None:
    """The cache folder (created, private, if missing), or None when it must not be used."""
    path = cache_dir()
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        st = os.stat(path)  # a symlinked folder is judged by what it leads to
    except (OSError, ValueError):
        return None
    if not stat.S_ISDIR(st.st_mode) or not _trusted(st):
        return None
    return path


def read(name: str) -> bytes | None:
    """The content of the cache file `name`, or None (missing, or not to be trusted)."""
    base = folder()
    if base is None:
        return None
    try:
        fd = os.open(base / name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or not _trusted(st) or st.st_size > MAX_FILE:
            return None
        try:
            return fh.read(MAX_FILE + 1)
        except OSError:
            return None


def write(name: str, data: bytes) -> Path | None:
    """Store `data` as the cache file `name` (atomically); its path, or None if it cannot be kept."""
    base = folder()
    if base is None:
        return None
    target = base / name
    import tempfile  # here, not at the top: a question answered from the cache never writes

    try:
        # mkstemp creates a new file (O_EXCL: never through a symlink); the rename then replaces
        # whatever is at the name, a planted symlink included, without following it
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=base)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return None
    return target


def remove(name: str) -> None:
    base = folder()
    if base is not None:
        with contextlib.suppress(OSError):
            os.unlink(base / name)


def read_json(name: str):
    data = read(name)
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


def write_json(name: str, value) -> None:
    write(name, json.dumps(value, indent=1, sort_keys=True).encode("utf-8"))


_FINGERPRINT: str | None = None


def compiler_fingerprint() -> str:
    """A hash of every source file of the compiler (every module of the package, the grammar)
    and of the Python version: a change to any of them makes every cached result stale. The
    files are read, not imported, so the fast path stays fast."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        from .resources import grammar_path

        package, grammar = Path(__file__).resolve().parent, grammar_path()
        # Hashing the ~1 MB of sources would cost every process; the hash is kept under a key made
        # of every file's path, size, inode, modification and change times in nanoseconds (Python's
        # own .pyc check trusts the seconds; a rewrite can put the modification time back, but not
        # the change time), so only a changed source file costs a hashing.
        key = stat_key(compiler_sources(package) + [grammar])
        name = f"fingerprint-{key}.txt" if key is not None else None
        kept = read(name) if name else None
        if kept is not None and len(kept) == 64 and kept.isascii():
            _FINGERPRINT = kept.decode()
        else:
            _FINGERPRINT = fingerprint_of(package, grammar)
            if name:
                write(name, _FINGERPRINT.encode())
    # a sub-language registered from outside the package changes the language too; none can be
    # while the registry is not even imported (a question answered from the cache never imports it)
    registry = sys.modules.get(f"{__package__}.sublanguages")
    added = registry.added_identity() if registry is not None else ""
    if not added:
        return _FINGERPRINT
    return sha256(f"{_FINGERPRINT}\0{added}".encode("utf-8", "surrogatepass")).hexdigest()


def compiler_sources(package: Path) -> list[str]:
    """The files whose text a build output depends on: every module, and the JavaScript and CSS
    that the companion pages embed (civdsl/companion/), each kind in path order.

    Every question computes this to check its cache: one os.walk finds what three pathlib
    rglob() walks found (the same names, symlinked folders not entered, in the same order: a
    path's parts compared in turn), as text, for less than pathlib's cost."""
    found: dict[str, list[str]] = {".py": [], ".js": [], ".css": []}
    for folder_path, folders, files in os.walk(package):
        for name in folders + files:  # rglob matches a folder's name as well as a file's
            for suffix, kind in found.items():
                if name.endswith(suffix):
                    kind.append(os.path.join(folder_path, name))
    return [path for kind in found.values() for path in sorted(kind, key=lambda path: path.split(os.sep))]


def stat_key(paths: list[str | Path]) -> str | None:
    """A key that changes whenever one of `paths` may have changed (None when one cannot be read)."""
    stats = sha256(f"{FORMAT}|{sys.version_info[:2]}".encode())
    try:
        for path in paths:
            st = os.stat(path)
            stats.update(f"\0{path}\0{st.st_size}\0{st.st_ino}\0{st.st_mtime_ns}\0{st.st_ctime_ns}"
                         .encode("utf-8", "surrogatepass"))
    except OSError:
        return None
    return stats.hexdigest()[:32]


def fingerprint_of(package: Path, grammar: Path) -> str:
    digest = sha256(f"{FORMAT}|{sys.version_info[:2]}|{sys.implementation.name}".encode())
    for path in [*map(Path, compiler_sources(package)), grammar]:
        try:
            data = path.read_bytes()
        except OSError:
            data = b"unreadable"
        name = path.relative_to(package).as_posix() if path.is_relative_to(package) else path.name
        digest.update(f"\0{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def file_digest(path: str | Path) -> str | None:
    """The sha256 of a file's current content (through symlinks), or None if unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return None
    with os.fdopen(fd, "rb") as fh:
        try:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None
            # a rulebook is at most 2 MB (parser.MAX_BYTES); reading a little more is enough to
            # tell that a file grew past what was compiled
            return sha256(fh.read(4_000_000)).hexdigest()
        except OSError:
            return None


def unchanged(files: dict[str, str]) -> bool:
    """Every file still has the content it had (by hash) when its result was cached."""
    return bool(files) and all(file_digest(p) == h for p, h in files.items())


def chain_key(files: dict[str, str]) -> str:
    """The key of a result made from these files (path -> hash) by this compiler."""
    digest = sha256(compiler_fingerprint().encode())
    for path, sha in sorted(files.items()):
        digest.update(f"\0{path}\0{sha}".encode("utf-8", "surrogatepass"))  # a file name need not be UTF-8
    return digest.hexdigest()[:32]


def text_key(text: str) -> str:
    """The key of a value computed from this text by this compiler."""
    digest = sha256(compiler_fingerprint().encode())
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:32]


def path_key(path: str | Path) -> str:
    return sha256(f"{FORMAT}|{os.path.abspath(path)}".encode("utf-8", "surrogatepass")).hexdigest()[:24]
