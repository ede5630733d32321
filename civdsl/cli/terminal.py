"""What reaches a terminal: control characters escaped, as git and ls do.

Rulebook text, arguments, player states and file names can hold control characters (a `\\u001b`
escape in a name, a file called `x\\x1b]0;title\\x07.civ`): printed raw, ESC sequences clear the
screen, move the cursor or set the window title, and a carriage return overwrites the line.
Every character the command line prints goes through `escape_controls`, installed once on
stdout and stderr for the whole run (`EscapingStream`), so no command can forget it. Newline and
tab stay; other C0 characters are written as `\\x1b`, DEL, C1 characters and the surrogates
Python uses for undecodable bytes of a file name as `\\u009b` (printing a surrogate would
otherwise raise UnicodeEncodeError). civdsl's own colours pass to a terminal. Binary output (`.buffer`, used
by the language server's protocol stream) is not text for a terminal and passes unchanged.
"""

from __future__ import annotations

import re
import sys

# C0 as `\x1b` (json.dumps never leaves one raw, so no JSON string meets this form); DEL, C1 and
# lone surrogates as `\u009b`, which inside a JSON string is the same character it replaces, so
# JSON printed through the stream stays valid and means the same.
# The table (over 2,000 entries) is built on the first text that needs it: most output has
# nothing to escape, and building it would be paid by every command.
_TABLE: dict[int, str] = {}
# the bidirectional controls (and the line and paragraph separators): printed raw they reorder or
# break the text around them, so a name `anna\u202egnp.exe` would read as `annaexe.png`
_BIDI = [0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]


def _table() -> dict[int, str]:
    if not _TABLE:
        _TABLE.update({c: f"\\x{c:02x}" for c in range(0x00, 0x20) if c not in (0x09, 0x0A)})
        _TABLE.update({c: f"\\u{c:04x}" for c in [0x7F, *range(0x80, 0xA0), *range(0xD800, 0xE000), *_BIDI]})
    return _TABLE


def _plain(text: str) -> bool:
    """Nothing to escape: every character printable, or a newline or tab (a character that
    is not printable but not in the table either only sends the text the long way)."""
    return text.isprintable() or text.replace("\n", "").replace("\t", "").isprintable()


# civdsl's own colours on a terminal (diagnostics, diff): SGR sequences of bold, reset and four
# foreground colours. Only these pass, and only to a terminal; every other sequence (clearing
# the screen, moving the cursor, OSC titles and links) is escaped like any control character.
_SGR = re.compile(r"\x1b\[([0-9;]*)m")
_OWN_STYLES = frozenset({"", "0", "1", "31", "32", "33", "36"})


def escape_controls(text: str, *, keep_styles: bool = False) -> str:
    """`text` with every control character (but newline and tab) written as a visible escape;
    with `keep_styles`, the colour sequences civdsl itself uses are kept."""
    if _plain(text):
        return text
    if not keep_styles or "\x1b" not in text:
        return text.translate(_table())
    out, last = [], 0
    for m in _SGR.finditer(text):
        if set(m.group(1).split(";")) <= _OWN_STYLES:
            out.append(text[last:m.start()].translate(_table()))
            out.append(m.group())
            last = m.end()
    out.append(text[last:].translate(_table()))
    return "".join(out)


_STYLES_ASKED = False  # `--color always`: civdsl's own colours pass to a pipe or file too


def ask_for_styles(asked: bool) -> None:
    global _STYLES_ASKED
    _STYLES_ASKED = asked


class EscapingStream:
    """A text stream that escapes control characters in everything written to it."""

    def __init__(self, stream):
        self._stream = stream
        try:
            self._tty = stream.isatty()
        except (AttributeError, ValueError, OSError):
            self._tty = False

    def write(self, text):
        if not isinstance(text, str):
            return self._stream.write(text)
        return self._stream.write(escape_controls(text, keep_styles=self._tty or _STYLES_ASKED))

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def unescaped(stream):
    """The stream below the escaping, for civdsl's own drawing that holds no data: a progress
    bar redraws its line with a carriage return and hides the cursor while it runs."""
    return stream._stream if isinstance(stream, EscapingStream) else stream


def install() -> None:
    """Escape everything printed to stdout and stderr from now on (idempotent)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, EscapingStream):
            setattr(sys, name, EscapingStream(stream))
