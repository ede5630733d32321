"""A printable HTML page from the Markdown subset civdsl's own generators write (headings,
nested bullet lists, pipe tables, **bold**, *italic*, `code`). Not a general Markdown
renderer: it only has to read what we emit, and it escapes all text."""

from __future__ import annotations

import html
import re

from .html import esc, page

_INLINE = re.compile(r"`([^`]+)`|\*\*((?:\\.|[^*\\])+)\*\*|\*((?:\\.|[^*\\])+)\*")
_BACKSLASH = re.compile(r"\\([!-/:-@\[-`{-~])")


def _text(md: str) -> str:
    """Markdown text (as civdsl/escape.py writes it) back to plain text, then escaped for HTML."""
    return esc(html.unescape(_BACKSLASH.sub(r"\1", md)))


def inline(text: str) -> str:
    out, last = [], 0
    for m in _INLINE.finditer(text):
        out.append(_text(text[last:m.start()]))
        if m.group(1) is not None:
            out.append(f"<code>{esc(m.group(1))}</code>")
        elif m.group(2) is not None:
            out.append(f"<strong>{_text(m.group(2))}</strong>")
        else:
            out.append(f"<em>{_text(m.group(3))}</em>")
        last = m.end()
    out.append(_text(text[last:]))
    return "".join(out)


def to_html(markdown: str, title: str) -> str:
    body: list[str] = []
    depth = 0  # open <ul> levels
    lines = markdown.split("\n")
    i = 0

    def close_lists(to: int) -> None:
        nonlocal depth
        while depth > to:
            body.append("</li></ul>")
            depth -= 1

    while i < len(lines):
        line = lines[i]
        bullet = re.match(r"^( *)- (.*)$", line)
        if bullet:
            level = len(bullet.group(1)) // 2 + 1
            if level > depth:
                while depth < level:
                    body.append("<ul><li>")
                    depth += 1
            else:
                close_lists(level)
                body.append("</li><li>")
            body.append(inline(bullet.group(2)))
        elif line.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[-:| ]+\|$", lines[i + 1]):
            close_lists(0)
            head = [c.strip() for c in line.strip("|").split("|")]
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append([c.strip() for c in lines[i].strip("|").split("|")])
                i += 1
            body.append("<table><thead><tr>" + "".join(f"<th>{inline(c)}</th>" for c in head) + "</tr></thead><tbody>")
            # each cell carries its column's name, shown above it where a phone lays rows out as cards
            body += ["<tr>" + "".join(f'<td data-label="{esc(h)}">{inline(c)}</td>' for h, c in zip(head, r)) + "</tr>"
                     for r in rows]
            body.append("</tbody></table>")
            continue
        elif line.startswith("#"):
            close_lists(0)
            level = min(len(line) - len(line.lstrip("#")), 4)
            body.append(f"<h{level}>{inline(line[level:].strip())}</h{level}>")
        elif line.strip():
            if depth and line.startswith("  "):
                body.append(f"<br>{inline(line.strip())}")
            else:
                close_lists(0)
                body.append(f"<p>{inline(line.strip())}</p>")
        i += 1
    close_lists(0)
    return page(title, "<main>\n" + "\n".join(body) + "\n</main>")
