"""The user-facing error types, in a module that imports nothing, so that the command line
can catch them without importing the engines that raise them."""

from __future__ import annotations


# the longest word (a run without spaces) a message echoes from what the user gave; longer ones are
# cut, so a 100,000-character option name gives a message of one line, not 100 KB
MAX_ECHOED = 80


def cut_short(text: str, limit: int = MAX_ECHOED) -> str:
    """`text` as a message echoes it: at most `limit` characters, "..." marking a cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def cut_long_words(message: str, limit: int = MAX_ECHOED) -> str:
    """`message` with every word longer than `limit` (an echoed name or value) cut short."""
    if len(message) <= limit:
        return message
    import re

    return re.sub(r"\S{%d,}" % (limit + 1), lambda m: cut_short(m.group(), limit), message)


class RulebookError(Exception):
    """The rulebook could not be compiled; `diagnostics` holds the rendered report."""

    def __init__(self, message: str, diagnostics=None):
        super().__init__(message)
        self.diagnostics = diagnostics


class StateError(Exception):
    """A problem in a player state, already phrased for the user."""


class RulebookRuntimeError(Exception):
    """An error raised while running a rule, located at the rulebook file, line and column of the
    rule that raised it (an inherited rule is located in its base file). `reason` says what went
    wrong in words; str() is `path:line: reason` for logs and tests."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None, column: int | None = None,
                 reason: str | None = None, end_column: int | None = None):
        super().__init__(message)
        self.path = path
        self.line = line
        self.column = column
        self.end_column = end_column
        self.reason = reason or message

