"""Whether a file is a game file, told from its first key: the question commands ask it of every
file given as a rulebook or a state, so it reads no further than needed and imports nothing of
the ledger."""

from __future__ import annotations

import os


def is_game_file(path) -> bool:
    """Whether a YAML file is a game file (its first key says so), read no further than needed.
    Only a regular file is opened: a FIFO or a device named as a state would block the read or
    never end, and the state reader refuses them with its own words."""
    if not os.path.isfile(path):
        return False
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return "\ncivdsl_game:" in "\n" + head
