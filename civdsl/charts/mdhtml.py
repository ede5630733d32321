"""A printable HTML page from the Markdown subset civdsl's own generators write (headings,
nested bullet lists, pipe tables, **bold**, *italic*, `code`). Not a general Markdown
renderer: it only has to read what we emit, and it escapes all text."""

from __future__ import annotations

import html
import re

from .html import esc, page

# an escaped character first: `\`` is a literal backtick, never the start of a code span
_INLINE = re.compile(r"\\.|`([^`]+)`|\*\*((?:\\.|[^*\\])+)\*\*|\*((?:\\.|[^*\\])+)\*")
_BACKSLASH = re.compile(r"\\([!-/:-@\[-`{-~])")


def _text(md: str) -> str:
    """Markdown text (as civdsl/escape.py writes it) back to plain text, then escaped for HTML."""
    return esc(html.unescape(_BACKSLASH.sub(r"\1", md)))


def inline(text: str) -> str:
    out, last = [], 0
    for m in _INLINE.finditer(text):
        out.append(_text(text[last:m.start()]))
        if m.group().startswith("\\"):
            out.append(_text(m.group()))
        elif m.group(1) is not None:
            out.append(f"<code>{esc(m.group(1))}</code>")
        elif m.group(2) is not None:
            out.append(f"<strong>{_text(m.group(2))}</strong>")
        else:
            out.append(f"<em>{_text(m.group(3))}</em>")
        last = m.end()
    out.append(_text(text[last:]))
    return "".join(out)


_BULLET = re.compile(r"^( *)- (.*)$")
_TABLE_RULE = re.compile(r"^\|[-:| ]+\|$")


def to_html(markdown: str, title: str) -> str:
    body = _Body()
    lines = markdown.split("\n")
    i = 0
    while i < len(lines):
        i = body.block(lines, i)
    body.close_lists(0)
    return page(title, "<main>\n" + "\n".join(body.parts) + "\n</main>")


# a cell ends at a pipe that no backslash escapes (`\\|` is a literal pipe inside a cell)
_CELL = re.compile(r"((?:\\.|[^|\\])*)\|")


def _cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    return [c.strip() for c in _CELL.findall(body if body.endswith("|") else body + "|")]


class _Body:
    """The HTML of a page being read block by block, with the bullet lists still open."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.depth = 0  # open <ul> levels

    def block(self, lines: list[str], i: int) -> int:
        """Write the block that starts at line I; the index of the line after it."""
        line = lines[i]
        bullet = _BULLET.match(line)
        if bullet:
            self.bullet(len(bullet.group(1)) // 2 + 1, bullet.group(2))
        elif line.startswith("|") and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1]):
            return self.table(lines, i)
        elif line.startswith("#"):
            self.heading(line)
        elif line.strip():
            self.text(line)
        return i + 1

    def close_lists(self, to: int) -> None:
        while self.depth > to:
            self.parts.append("</li></ul>")
            self.depth -= 1

    def bullet(self, level: int, text: str) -> None:
        if level > self.depth:
            self.parts += ["<ul><li>"] * (level - self.depth)
            self.depth = level
        else:
            self.close_lists(level)
            self.parts.append("</li><li>")
        self.parts.append(inline(text))

    def table(self, lines: list[str], i: int) -> int:
        """The pipe table whose head is line I (its rule follows); the index of the line after it."""
        self.close_lists(0)
        head = _cells(lines[i])
        end = i + 2
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        self.parts.append("<table><thead><tr>" + "".join(f"<th>{inline(c)}</th>" for c in head)
                          + "</tr></thead><tbody>")
        # each cell carries its column's name, shown above it where a phone lays rows out as cards
        self.parts += ["<tr>" + "".join(f'<td data-label="{esc(h)}">{inline(c)}</td>' for h, c in zip(head, _cells(r)))
                       + "</tr>" for r in lines[i + 2:end]]
        self.parts.append("</tbody></table>")
        return end

    def heading(self, line: str) -> None:
        self.close_lists(0)
        level = min(len(line) - len(line.lstrip("#")), 4)
        self.parts.append(f"<h{level}>{inline(line[level:].strip())}</h{level}>")

    def text(self, line: str) -> None:
        """A paragraph, or a line continuing the open bullet (indented under it)."""
        if self.depth and line.startswith("  "):
            self.parts.append(f"<br>{inline(line.strip())}")
        else:
            self.close_lists(0)
            self.parts.append(f"<p>{inline(line.strip())}</p>")
