"""A typed line's words as a shell gives them to `civdsl game add`: `shlex.split(line)` written in
the engine subset (POSIX rules: split at spaces, tabs and line ends; `'...'` keeps every character,
`"..."` too but for a backslash before `"` or another backslash; a backslash outside quotes keeps the
next character), so the game page splits a typed line as the command line's shell would
(tests/test_pystd.py checks it against shlex)."""

from __future__ import annotations

from ..errors import StateError

_WHITESPACE = " \t\r\n"
_QUOTES = "'\""
# the states of the walk besides a quote character (inside that quote)
_BETWEEN = " "
_IN_WORD = "a"
_ESCAPE = "\\"


def split(line: str) -> list:
    """shlex.split(LINE); ValueError where a quote is not closed or the line ends in a backslash."""
    words, ended_in = _walk(line)
    if ended_in == _ESCAPE:
        raise ValueError("No escaped character")
    if ended_in in _QUOTES:
        raise ValueError("No closing quotation")
    return words


def typed_words(line: str) -> list:
    """The words of a line typed on the game page; a quote left open or a backslash at the end is
    the player's mistake (StateError), said in the player's words."""
    words, ended_in = _walk(line)
    if ended_in == _ESCAPE:
        raise StateError("the line ends in a backslash, which escapes nothing")
    if ended_in in _QUOTES:
        raise StateError("a quote in the line is not closed")
    return words


def _walk(line: str) -> tuple:
    """(the words of LINE, the state its end is in: a quote or an escape left open, or not)."""
    words = []
    word = ""
    open_word = False  # a word is begun (it may be empty: `''`)
    state = _BETWEEN
    escaped_in = _IN_WORD  # the state an escape returns to
    for ch in line:
        if state == _ESCAPE:
            # within double quotes a backslash escapes only a quote or a backslash, and stays otherwise
            if escaped_in in _QUOTES and ch != _ESCAPE and ch != escaped_in:
                word = word + _ESCAPE
            word = word + ch
            state = escaped_in
        elif state in _QUOTES:
            if ch == state:
                state = _IN_WORD
            elif ch == _ESCAPE and state == '"':
                escaped_in = state
                state = _ESCAPE
            else:
                word = word + ch
        elif ch in _WHITESPACE:
            if open_word:
                words.append(word)
            word = ""
            open_word = False
            state = _BETWEEN
        else:
            open_word = True
            if ch == _ESCAPE:
                escaped_in = _IN_WORD
                state = _ESCAPE
            elif ch in _QUOTES:
                state = ch
            else:
                word = word + ch
                state = _IN_WORD
    if open_word:
        words.append(word)
    return words, state
