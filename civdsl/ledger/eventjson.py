"""The event lines of a game file read by Python's `json` (in C) where that gives what gametext's
reader gives, for speed: an 18-player game holds thousands of event lines, which gametext, written
to be translated for the page, reads a character at a time (about 2.5 times slower in Python).
`event_values` answers exactly as gametext does or None (then gametext reads the line);
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


# one reader for every line (json.loads with these hooks would build a new one per line); where no
# number in the text has as many digits as MAX_WHOLE, none can exceed it, and the reader without
# the check of each number (a Python call each) reads it: the check is most of the reading's time
_READER = json.JSONDecoder(parse_float=_refused, parse_constant=_refused, parse_int=_whole)
_SHORT_NUMBERS_READER = json.JSONDecoder(parse_float=_refused, parse_constant=_refused)
_DIGITS_AS_9 = bytes(57 if 48 <= b <= 57 else 32 for b in range(256))  # every digit a 9, the rest a space
_AS_MANY_DIGITS = b"9" * len(str(MAX_WHOLE))


def _reader(text: str) -> json.JSONDecoder:
    """The reader for TEXT (ASCII): the one that checks each number where one may exceed MAX_WHOLE."""
    return _READER if _AS_MANY_DIGITS in text.encode("ascii").translate(_DIGITS_AS_9) else _SHORT_NUMBERS_READER


def event_value(body: str):
    """The event an event line's JSON holds, where it is the text gametext.value_text writes for it
    (ASCII only, nested no deeper than gametext reads, each number whole and within its range), or
    None: a line with other characters or any other form is left to gametext's reader."""
    if not body.isascii() or "\x7f" in body or body.count("{") + body.count("[") > MAX_DEPTH:
        return None
    try:
        value = _reader(body).decode(body)
    except (ValueError, RecursionError):
        return None
    if type(value) is not dict or json.dumps(value, ensure_ascii=False) != body:
        return None
    return value



def event_values(bodies: list[str]) -> list:
    """The events of the event lines (each without its `  - `) as `event_value` reads them, read
    in one call of the JSON reader where every line is plain (ASCII, no DEL, shallow, no `}, {`
    inside, so that the joins are the only places one event ends and the next begins), else line
    by line."""
    joined = "[" + ", ".join(bodies) + "]"
    if joined.isascii() and "\x7f" not in joined and all(
            body.endswith("}") and "}, {" not in body and body.count("{") + body.count("[") <= MAX_DEPTH
            for body in bodies):
        try:
            values = _reader(joined).decode(joined)
        except (ValueError, RecursionError):
            values = None
        if values is not None and len(values) == len(bodies) and all(type(v) is dict for v in values) \
                and json.dumps(values, ensure_ascii=False) == joined:
            return values
    return [event_value(body) for body in bodies]
