"""The event lines of a game file read by Python's `json` (in C) where that gives what gametext's
reader gives, for speed: an 18-player game holds thousands of event lines, which gametext, written
to be translated for the page, reads a character at a time (about 2.5 times slower in Python).
`event_value` answers exactly as gametext does or None (then gametext reads the line);
tests/test_gametext.py checks the two agree on random, recorded and mutated lines."""

from __future__ import annotations

import json

from .gametext import MAX_DEPTH, MAX_WHOLE


def _whole(digits: str) -> int:
    number = int(digits)
    if not -MAX_WHOLE <= number <= MAX_WHOLE:
        raise ValueError(digits)
    return number


def _refused(text: str):
    raise ValueError(text)


# one reader for every line (json.loads with these hooks would build a new one per line)
_READER = json.JSONDecoder(parse_float=_refused, parse_constant=_refused, parse_int=_whole)


def event_value(body: str):
    """The event an event line's JSON holds, where it is the text gametext.value_text writes for it
    (ASCII only, nested no deeper than gametext reads, each number whole and within its range), or
    None: a line with other characters or any other form is left to gametext's reader."""
    if not body.isascii() or "\x7f" in body or body.count("{") + body.count("[") > MAX_DEPTH:
        return None
    try:
        value = _READER.decode(body)
    except (ValueError, RecursionError):
        return None
    if type(value) is not dict or json.dumps(value, ensure_ascii=False) != body:
        return None
    return value

