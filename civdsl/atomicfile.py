"""Files written atomically: a reader sees the old content or the new, never a torn file.

The build writes every generated file this way, and so does every command that rewrites a file
the user keeps (`fmt`, `new`, a game file, a law's counterexample, an event plot). It imports
nothing of civdsl, so any layer may write with it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path


def atomic_write(path: Path, content: str | bytes) -> None:
    """Write a file so that readers see the old or the new content, never a torn one.

    A symlink stays a symlink (its target is rewritten), an existing file keeps its mode, and a
    new file gets the user's umask, as an editor's save would. A file with other hard links keeps
    them: it is rewritten in place (see _rewrite_in_place), since a rename would split it from them."""
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    data = encoded(content)
    try:
        st = os.stat(path)
        mode = stat.S_IMODE(st.st_mode)
    except FileNotFoundError:
        st, mode = None, None
    fd, tmp = create_temporary(path.parent, f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if mode is not None:
                os.fchmod(fh.fileno(), mode)
        if st is not None and st.st_nlink > 1 and stat.S_ISREG(st.st_mode):
            os.unlink(tmp)  # written whole: the disk had room for the new text
            _rewrite_in_place(path, data, st)
        else:
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _rewrite_in_place(path: Path, data: bytes, st: os.stat_result) -> None:
    """Write `data` over the file itself (its inode, so every hard link sees it): opened without
    following a symlink and checked to be the same file, overwritten, cut to length and synced;
    on a failure the old bytes are written back."""
    fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "r+b") as fh:
        now = os.fstat(fh.fileno())
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            raise OSError(f"{path} changed while it was being written")
        old = fh.read()
        try:
            fh.seek(0)
            fh.write(data)
            fh.truncate(len(data))
            fh.flush()
            os.fsync(fh.fileno())
        except BaseException:
            with contextlib.suppress(OSError):
                fh.seek(0)
                fh.write(old)
                fh.truncate(len(old))
                fh.flush()
            raise


def create_temporary(folder: Path, prefix: str) -> tuple[int, str]:
    """A new file in `folder` created with mode 0666 less the umask (mkstemp would make it 0600,
    and the mode would survive the rename); never an existing file or a symlink."""
    for _ in range(100):
        name = os.path.join(folder, f"{prefix}{secrets.token_hex(6)}.tmp")
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder}")


def encoded(content: str | bytes) -> bytes:
    return content.encode("utf-8") if isinstance(content, str) else content
