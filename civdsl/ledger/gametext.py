"""The game file's text as `civdsl game` writes it, and only that text read back: `text(setup,
events)` writes it and `parse(text)` reads it, refusing anything else at its line and column with
what was expected there. An engine module (py2es): the game page exports and imports the same text
with this same code.

The form (docs/ledger.md, *The game file*): a comment line; the set-up, one `key: value` line each
(a list of mappings as `key:` and one `- {...}` line an item); `events:` and one event a line,
`  - {...}`, or `events: []`. A value is written as JSON with `, ` and `: ` between items, which is
also YAML's flow style, so any YAML reader reads the file to the same data; in the set-up a name
that YAML reads as text without quotes is written without them (`edition: civ1980`). A character
YAML would not keep as it is (a control, a line separator, C1 controls) is escaped (`\\u0085`).

Hostile text is refused within stated bounds: MAX_TEXT characters in all, MAX_LINE on a line,
values nested MAX_DEPTH deep, whole numbers within MAX_WHOLE (the largest both targets read
exactly), at most MAX_EVENTS events (the game file's own limit).
"""

from __future__ import annotations

from ..errors import StateError
from .words import thousands

MAX_TEXT = 1_000_000
MAX_LINE = 100_000
MAX_DEPTH = 16
MAX_WHOLE = 9_007_199_254_740_991
MAX_EVENTS = 100_000

COMMENT = "# a civdsl game file: `civdsl game show` replays it"
EVENTS_KEY = "events"
EVENT_PREFIX = "  - "
ITEM_PREFIX = "- "
FMT_HINT = "`civdsl game fmt FILE` rewrites a game file edited by hand in the form `civdsl game` writes"

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_DIGITS = "0123456789"
_HEX = "0123456789abcdef"
_HEX_UPPER = "0123456789ABCDEF"
# the printable ASCII characters text is written with as they are (all but `"` and `\\`): the
# common case, told apart without a character's code
_AS_IS = (" !#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~")
# the characters of a name written without quotes (after a first letter): none of them is YAML's
# sign of anything inside a flow collection
_PLAIN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./"
# words YAML 1.1 reads as true, false or null, in any case: a name spelt so is quoted
_YAML_WORDS = ("y", "n", "yes", "no", "true", "false", "on", "off", "null")
# the escapes JSON writes short, as (character, escape)
_SHORT = (("\"", "\\\""), ("\\", "\\\\"), ("\b", "\\b"), ("\f", "\\f"), ("\n", "\\n"), ("\r", "\\r"),
          ("\t", "\\t"))


class TextError(StateError):
    """A game text that is not the form `civdsl game` writes: where (line and column, from 1) and
    what was expected there."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.line = line
        self.column = column


# --- writing -----------------------------------------------------------------------------------------

def text(setup, events: list) -> str:
    """The game file's text: the set-up (its keys in their order, a key without a value left out),
    then the events one a line. A value no game file holds is a TextError at the line it would
    have had."""
    lines = [COMMENT]
    for key in setup:
        if setup[key] is not None:
            try:
                _setup_lines(key, setup[key], lines)
            except TextError as exc:
                raise TextError(f"`{key}`: {exc}" if isinstance(key, str) else str(exc), len(lines) + 1, 1)
    lines.append(EVENTS_KEY + (":" if len(events) > 0 else ": []"))
    _event_lines(events, 0, lines)
    return "\n".join(lines) + "\n"


def appended(setup, before: str, count: int, added: list) -> str:
    """What `text` gives for a game's COUNT events and ADDED after them, from BEFORE, what it gave
    for the COUNT events: their lines appended (a game that keeps its file as it grows writes only
    the new events' lines, not its thousands)."""
    if count == 0 or len(added) == 0:
        return text(setup, added) if count == 0 else before
    lines = []
    _event_lines(added, count, lines, len(before.split("\n")) - 1)
    return before + "\n".join(lines) + "\n"


def _event_lines(events: list, count: int, lines: list, at: int = 0) -> None:
    """The events' lines added to LINES (COUNT events before them in the file, its lines before
    LINES' AT); a value no game file holds is a TextError at its line."""
    first = len(lines)
    for event in events:
        try:
            if not isinstance(event, dict):
                raise TextError("an event is a mapping", 1, 1)
            lines.append(EVENT_PREFIX + value_text(event, False))
        except TextError as exc:
            raise TextError(f"event {count + len(lines) - first + 1}: {exc}", at + len(lines) + 1,
                            len(EVENT_PREFIX) + 1)


def _setup_lines(key, value, lines: list) -> None:
    """A key of the set-up: `key: value`, or `key:` and a line `- item` an item for a list of
    lists or mappings (as YAML writes it by default)."""
    if key == EVENTS_KEY or not isinstance(key, str):
        raise TextError(f"the set-up has a key {_shown(key)} a game file cannot hold", 1, 1)
    if isinstance(value, (list, tuple)) and any(isinstance(v, (list, tuple, dict)) for v in value):
        lines.append(f"{_scalar_text(key, True)}:")
        for item in value:
            lines.append(ITEM_PREFIX + value_text(item, True))
    else:
        lines.append(f"{_scalar_text(key, True)}: {value_text(value, True)}")


def value_text(value, plain: bool, depth: int = 0) -> str:
    """A value as JSON with `, ` and `: ` between items (YAML's flow style too); PLAIN: a name YAML
    reads as text is written without quotes."""
    if depth > MAX_DEPTH:
        raise TextError(f"a value nested deeper than {MAX_DEPTH}", 1, 1)
    if isinstance(value, dict):
        items = []
        for k in value:
            if not isinstance(k, str):
                raise TextError(f"a key {_shown(k)} that is not text", 1, 1)
            items.append(_scalar_text(k, plain) + ": " + value_text(value[k], plain, depth + 1))
        return "{" + ", ".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join([value_text(v, plain, depth + 1) for v in value]) + "]"
    return _scalar_text(value, plain)


def _scalar_text(value, plain: bool) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return value if plain and is_plain(value) else quoted(value)
    if isinstance(value, int) and not isinstance(value, bool):
        if value > MAX_WHOLE or value < -MAX_WHOLE:
            raise TextError(f"a whole number beyond {thousands(MAX_WHOLE)}", 1, 1)
        return str(value)
    raise TextError(f"a value {_shown(value)} a game file cannot hold (text, whole numbers, true, false, "
                    "lists and mappings)", 1, 1)


def _shown(value) -> str:
    if isinstance(value, str):
        return f"`{value[:40]}`"
    if value is None or isinstance(value, bool) or (isinstance(value, int) and -MAX_WHOLE <= value <= MAX_WHOLE):
        return _scalar_text(value, False)
    return "(neither text nor a whole number)"


def is_plain(name: str) -> bool:
    """Whether YAML reads NAME written without quotes as this text: a letter, then letters, digits,
    `_-./` and single spaces between them, and none of YAML's words for true, false and null."""
    if len(name) == 0 or name[0] not in _LETTERS or name.lower() in _YAML_WORDS:
        return False
    space = False
    for ch in name:
        if ch == " ":
            if space:
                return False
            space = True
        elif ch in _PLAIN:
            space = False
        else:
            return False
    return not space


def quoted(value: str) -> str:
    """Text in double quotes as JSON writes it (`ensure_ascii=False`), with the characters YAML does
    not keep as they are escaped too."""
    for ch in value:
        if ch not in _AS_IS:
            return _escaped_text(value)
    return "\"" + value + "\""


def _escaped_text(value: str) -> str:
    out = ["\""]
    for ch in value:
        short = _short_escape(ch)
        if short is not None:
            out.append(short)
        elif _escaped(ord(ch)):
            out.append(_u_escape(ord(ch)))
        else:
            code = ord(ch)
            if 0xD800 <= code <= 0xDFFF:
                raise TextError("text with half of a character (a lone surrogate)", 1, 1)
            out.append(ch)
    out.append("\"")
    return "".join(out)


def _short_escape(ch: str):
    for plain, escape in _SHORT:
        if ch == plain:
            return escape
    return None


def _escaped(code: int) -> bool:
    """Written \\uXXXX: the controls (C0 but the short ones, DEL, C1), the line and paragraph
    separators, the byte order mark and the two non-characters YAML refuses."""
    return code < 0x20 or 0x7F <= code <= 0x9F or code in (0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF)


def _u_escape(code: int) -> str:
    return "\\u" + "".join([_HEX[(code // d) % 16] for d in (4096, 256, 16, 1)])


# --- reading -----------------------------------------------------------------------------------------

def parse(source: str, event_values=None) -> tuple:
    """(set-up, events, the line of each event) of a text `text` wrote; anything else is a
    TextError at its line and column. EVENT_VALUES, where given, reads the event lines' JSON
    faster (the lines after `  - `): a list with each line's event as the reader here reads it, or
    None for a line (or instead of the list) it leaves to that reader."""
    lines = _lines(source)
    setup = {}
    at = 1
    while True:
        if at >= len(lines):
            raise TextError(f"expected `{EVENTS_KEY}:` and the events; {FMT_HINT}", at + 1, 1)
        line = lines[at]
        at += 1
        if line == EVENTS_KEY + ":" or line == EVENTS_KEY + ": []":
            break
        at = _setup_line(lines, at, setup)
    first = at + 1
    if line == EVENTS_KEY + ": []":
        if at < len(lines):
            raise TextError(f"expected the end of the text after `{EVENTS_KEY}: []`; {FMT_HINT}", at + 1, 1)
        return setup, [], []
    if at >= len(lines):
        raise TextError(f"expected an event (`{EVENT_PREFIX}{{...}}`) after `{EVENTS_KEY}:` "
                        f"(`{EVENTS_KEY}: []` when there is none); {FMT_HINT}", at + 1, 1)
    end, last, head = at, min(len(lines), at + MAX_EVENTS), EVENT_PREFIX + "{"
    while end < last and lines[end].startswith(head):
        end += 1
    bodies = [line[len(EVENT_PREFIX):] for line in lines[at:end]]
    at = end
    # the lines before the first that is no event line are read first: a file's first problem is its error
    events = _events(bodies, first, event_values)
    if at < len(lines):
        if len(events) >= MAX_EVENTS:
            raise TextError(f"more than {thousands(MAX_EVENTS)} events", at + 1, 1)
        _differ(lines[at], EVENT_PREFIX + "{", at + 1, "an event")
    return setup, events, list(range(first, first + len(events)))


def _lines(source: str) -> list:
    """The text's lines, once its size, its line lengths, its line breaks and its first line (the
    comment `text` writes) are checked."""
    if len(source) > MAX_TEXT:
        raise TextError(f"the text is longer than {thousands(MAX_TEXT)} characters", 1, 1)
    if not source.endswith("\n"):
        lines = source.split("\n")
        raise TextError(f"expected the text to end with a line break; {FMT_HINT}", len(lines),
                        len(lines[-1]) + 1)
    lines = source.split("\n")
    lines.pop()
    for i, line in enumerate(lines):
        if len(line) > MAX_LINE:
            raise TextError(f"a line longer than {thousands(MAX_LINE)} characters", i + 1, MAX_LINE + 1)
        if line.endswith("\r"):
            raise TextError(f"expected a line break without a carriage return; {FMT_HINT}", i + 1, len(line))
    if len(lines) == 0 or lines[0] != COMMENT:
        _differ(lines[0] if len(lines) > 0 else "", COMMENT, 1, "the comment line `civdsl game` writes first")
    return lines


def _events(bodies: list, first: int, event_values) -> list:
    """The events of the event lines' BODIES (the first at line FIRST), each read by EVENT_VALUES
    where it reads it, else by the reader here."""
    values = event_values(bodies) if event_values is not None else None
    if values is not None and None not in values:  # every line read by EVENT_VALUES: a game holds thousands
        return values
    events = []
    for i, body in enumerate(bodies):
        value = values[i] if values is not None else None
        if value is None:
            value = _read_whole(body, first + i, len(EVENT_PREFIX) + 1, False, "an event")
        events.append(value)
    return events


def _setup_line(lines: list, at: int, setup: dict) -> int:
    """One key of the set-up read from LINES[AT - 1] (and the item lines after it); the next line's
    index."""
    line = lines[at - 1]
    chars = list(line)
    reader = _Reader(chars, at, 1, True)
    if len(chars) > 0 and chars[0] == " ":
        reader.fail("a key of the set-up at the start of the line")
    key = reader.key()
    if key in setup:
        raise TextError(f"the key `{key}` twice; {FMT_HINT}", at, 1)
    if key == EVENTS_KEY:
        raise TextError(f"expected `{EVENTS_KEY}:` alone on its line, then the events one a line; {FMT_HINT}", at, 1)
    if reader.at == len(chars) - 1 and chars[reader.at] == ":":
        items = []
        while at < len(lines) and lines[at].startswith(ITEM_PREFIX):
            items.append(_read_whole(lines[at][len(ITEM_PREFIX):], at + 1, len(ITEM_PREFIX) + 1, True,
                                     "an item"))
            at += 1
        if len(items) == 0 or not any(isinstance(v, (list, dict)) for v in items):
            raise TextError(f"expected the value after `{key}:` on its line (an item `{ITEM_PREFIX}` on each line "
                            f"after it only for a list of lists or mappings); {FMT_HINT}", at, len(chars) + 1)
        setup[key] = items
        return at
    reader.literal(": ", "`: ` after the key")
    start = reader.at
    value = reader.value(0)
    reader.end()
    if value is None:
        reader.fail("a value (a key without one is left out of the set-up)", start)
    if isinstance(value, list) and len(value) > 0 and any(isinstance(v, (list, dict)) for v in value):
        raise TextError(f"expected a list of lists or mappings one item a line (`{key}:`, then `{ITEM_PREFIX}...`); "
                        f"{FMT_HINT}", at, 1)
    setup[key] = value
    return at


def _read_whole(body: str, line: int, column: int, plain: bool, what: str):
    chars = list(body)
    reader = _Reader(chars, line, column, plain)
    value = reader.value(0)
    reader.end()
    if what == "an event" and not isinstance(value, dict):
        raise TextError(f"expected an event, a mapping (`{{...}}`); {FMT_HINT}", line, column)
    return value


def _differ(line: str, want: str, number: int, what: str) -> None:
    """A TextError at the first character where LINE departs from WANT."""
    have = list(line)
    need = list(want)
    i = 0
    while i < len(have) and i < len(need) and have[i] == need[i]:
        i += 1
    found = _found(have, i)
    expected = what if "`" in want else f"{what} (`{want}`)"
    raise TextError(f"expected {expected}, found {found}; {FMT_HINT}", number, i + 1)


def _found(chars: list, i: int) -> str:
    if i >= len(chars):
        return "the end of the line"
    ch = chars[i]
    code = ord(ch)
    if ch == " ":
        return "a space"
    if _escaped(code) or 0xD800 <= code <= 0xDFFF:
        return "the character U+" + "".join([_HEX_UPPER[(code // d) % 16] for d in (4096, 256, 16, 1)])
    return f"`{ch}`"


class _Reader:
    """One line's value, read character by character (code points in both targets: a column is the
    same number in the page as in Python)."""

    def __init__(self, chars: list, line: int, column: int, plain: bool):
        self.chars = chars
        self.at = 0
        self.line = line
        self.column = column  # the column of chars[0]
        self.plain = plain

    def fail(self, expected: str, at=None):
        where = self.at if at is None else at
        raise TextError(f"expected {expected}, found {_found(self.chars, where)}; {FMT_HINT}", self.line,
                        self.column + where)

    def peek(self) -> str:
        return self.chars[self.at] if self.at < len(self.chars) else ""

    def literal(self, want: str, expected: str) -> None:
        for ch in want:
            if self.peek() != ch:
                self.fail(expected)
            self.at += 1

    def end(self) -> None:
        if self.at < len(self.chars):
            self.fail("the end of the line")

    def key(self) -> str:
        ch = self.peek()
        start = self.at
        if ch == "\"":
            key = self.quoted()
        elif self.plain and ch != "" and ch in _LETTERS:
            key = self.word()
            if not is_plain(key):
                self.fail("a key (a name, or text in double quotes)", start)
        else:
            key = ""
            self.fail("a key (a name, or text in double quotes)" if self.plain else "a key in double quotes")
        return key

    def value(self, depth: int):
        if depth > MAX_DEPTH:
            raise TextError(f"values nested deeper than {MAX_DEPTH}", self.line, self.column + self.at)
        ch = self.peek()
        if ch == "{":
            return self.mapping(depth)
        if ch == "[":
            return self.sequence(depth)
        if ch == "\"":
            return self.quoted()
        if ch == "-" or (ch != "" and ch in _DIGITS):
            return self.whole()
        if ch != "" and ch in _LETTERS:
            start = self.at
            word = self.word()
            if word == "true":
                return True
            if word == "false":
                return False
            if word == "null":
                return None
            if self.plain and is_plain(word):
                return word
            self.fail("true, false, null" + (", a name" if self.plain else "") + " or text in double quotes", start)
        self.fail("a value (text in double quotes, a whole number, true, false, null, `[` or `{`)")

    def word(self) -> str:
        """Letters, digits, `_-./` and single spaces between them."""
        start = self.at
        chars = self.chars
        while self.at < len(chars):
            ch = chars[self.at]
            if ch in _PLAIN:
                self.at += 1
            elif ch == " " and self.at + 1 < len(chars) and chars[self.at + 1] in _PLAIN and self.plain:
                self.at += 1
            else:
                break
        return "".join(chars[start:self.at])

    def whole(self) -> int:
        start = self.at
        if self.peek() == "-":
            self.at += 1
        if self.peek() == "0":
            self.at += 1
        elif self.peek() != "" and self.peek() in _DIGITS:
            while self.peek() != "" and self.peek() in _DIGITS:
                self.at += 1
                if self.at - start > 17:
                    break
        else:
            self.fail("a digit")
        digits = "".join(self.chars[start:self.at])
        if digits == "-0":
            self.fail("a whole number as `0`", start)
        if self.peek() in (".", "e", "E"):
            self.fail("a whole number (a game file holds no fractions)")
        magnitude = digits[1:] if digits.startswith("-") else digits
        if len(magnitude) > 16 or (len(magnitude) == 16 and magnitude > str(MAX_WHOLE)):
            raise TextError(f"a whole number beyond {thousands(MAX_WHOLE)}; {FMT_HINT}", self.line, self.column + start)
        number = int(digits)
        return number

    def quoted(self) -> str:
        start = self.at
        chars = self.chars
        end: int = len(chars)
        at: int = self.at + 1
        out = []
        while True:
            if at >= end:
                self.at = at
                self.fail("`\"` to close the text")
            ch = chars[at]
            if ch in _AS_IS:
                out.append(ch)
                at += 1
                continue
            if ch == "\"":
                at += 1
                break
            self.at = at
            if ch == "\\":
                out.append(self.escape())
                at = self.at
                continue
            code = ord(ch)
            if _escaped(code) or 0xD800 <= code <= 0xDFFF:
                self.fail(f"the character written `{_u_escape(code)}`")
            at += 1
            out.append(ch)
        self.at = at
        text_value = "".join(out)
        if self.plain and is_plain(text_value):
            self.fail(f"the name `{text_value}` without quotes", start)
        return text_value

    def escape(self) -> str:
        start = self.at
        self.at += 1
        ch = self.peek()
        for plain, written in _SHORT:
            if written[1] == ch:
                self.at += 1
                return plain
        if ch != "u":
            self.fail("an escape JSON writes (`\\\"`, `\\\\`, `\\b`, `\\f`, `\\n`, `\\r`, `\\t`, `\\u` and four hex "
                      "digits)", start)
        self.at += 1
        code = 0
        for _ in range(4):
            digit = self.peek()
            if digit == "" or digit not in _HEX:
                self.fail("four hex digits in lower case after `\\u`")
            code = code * 16 + _HEX.index(digit)
            self.at += 1
        if _short_escape(chr(code)) is not None or not _escaped(code):
            self.fail("the character as it is (or its short escape), not `\\u`", start)
        return chr(code)

    def mapping(self, depth: int) -> dict:
        self.at += 1
        out = {}
        if self.peek() == "}":
            self.at += 1
            return out
        while True:
            start = self.at
            key = self.key()
            if key in out:
                self.fail(f"each key once (`{key[:40]}` again)", start)
            self.literal(": ", "`: ` after the key")
            out[key] = self.value(depth + 1)
            if self.peek() == "}":
                self.at += 1
                return out
            self.literal(", ", "`, ` or `}`")

    def sequence(self, depth: int) -> list:
        self.at += 1
        out = []
        if self.peek() == "]":
            self.at += 1
            return out
        while True:
            out.append(self.value(depth + 1))
            if self.peek() == "]":
                self.at += 1
                return out
            self.literal(", ", "`, ` or `]`")
