"""One escaping function per output format. Rulebook text (names, summaries, notes) reaches
Markdown, HTML, DOT, SVG and CSV files; every writer escapes through these and nothing else,
so a name like `<script>`, `# Heading`, `A&nbsp;B` or `Grain\\r=cmd()` prints as itself.
"""

from __future__ import annotations

import html as _html
import json
import re

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~#!{}])")
_MD_BLOCK_START = re.compile(r"^(\d+)([.)])|^([-+=>])")
_LINE_BREAKS = re.compile(r"\s*(?:\r\n|\r|\n|\u2028|\u2029|\x0b|\x0c|\x85)+\s*")
# the characters XML 1.0 forbids (C0 controls but tab and line ends, U+FFFE, U+FFFF): one of them
# in an SVG makes the whole file unreadable, so each is written as visible text instead
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_chars(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def markdown(text) -> str:
    """Inline Markdown text that renders as itself, in a table cell, a list item or a
    paragraph: raw HTML and entities made text, inline syntax by backslash, line breaks as
    spaces, and a leading list, quote or heading marker made literal."""
    text = _LINE_BREAKS.sub(" ", str(text))
    # & and < start entities and raw HTML; > matters only where it starts a block quote
    text = text.replace("&", "&amp;").replace("<", "&lt;")
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _MD_BLOCK_START.sub(lambda m: f"{m.group(1)}\\{m.group(2)}" if m.group(1) else f"\\{m.group(3)}", text)


def html(text) -> str:
    """Text or an attribute value in HTML (and in XML: SVG)."""
    return _html.escape(_xml_chars(str(text)), quote=True)


def dot_string(text) -> str:
    """A DOT double-quoted string. Graphviz reads HTML entities inside quoted strings
    ("&nbsp;" becomes a character, an unknown "&x;" passes into the SVG raw), so & is written
    &amp;; backslashes and quotes are escaped, line breaks become \\n, and what XML forbids is
    written as visible text (the SVG is XML)."""
    text = _xml_chars(str(text).replace("\r\n", "\n").replace("\r", "\n"))
    text = text.replace("&", "&amp;").replace("\\", "\\\\").replace('"', '\\"')
    text = text.replace("\n", "\\n")
    return f'"{text}"'


def dot_html(text) -> str:
    """Text inside a DOT HTML-like label (XML rules)."""
    return _html.escape(_xml_chars(str(text)), quote=True)


# what makes a name read as something else on a terminal: line breaks and tabs (a name would look
# like two lines of output), control characters, and the bidirectional controls that reorder
# the text around them (U+202E shows `anna\u202egnp.exe` as `annaexe.png`)
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_NOT_PLAIN_NAME = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\ud800-\\udfff{_BIDI}\"\\\\]")
_C_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", '"': '\\"', "\\": "\\\\"}


def shown_name(text) -> str:
    """A file name as `git` quotes one: as it is when every character prints plainly, else in double
    quotes with C escapes (`\\n`, `\\t`, `\\"`, `\\\\`) and `\\u202e` for any other control or
    bidirectional character. Names reach the terminal through this, so none can fake a line of
    output or turn the text around it."""
    text = str(text)
    if not _NOT_PLAIN_NAME.search(text.replace("\\", "")):
        return text
    return '"' + _NOT_PLAIN_NAME.sub(lambda m: _C_ESCAPES.get(m.group(), f"\\u{ord(m.group()):04x}"), text) + '"'


_FORMULA = ("=", "+", "-", "@", "\t", "\r", "\n")


def csv_text(text: str) -> str:
    """A CSV text cell: line breaks as \\n only (a bare CR would start a new row in many
    readers, since the csv module quotes only around its own line terminator), and a leading
    apostrophe on a cell that a spreadsheet would run as a formula (plain numbers excepted)."""
    text = str(text).replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith(_FORMULA) and not re.fullmatch(r"[-+]?\d+(\.\d+)?", text):
        text = "'" + text
    return text


def js_string(text: str) -> str:
    """A JavaScript string literal for `text`: JSON with every non-ASCII character escaped (U+2028,
    U+2029 and lone surrogates included) and `<`, `>`, `&` escaped, so that neither `</script` nor
    `<!--` can appear, whatever the text says."""
    out = json.dumps(str(text), ensure_ascii=True)
    return out.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
