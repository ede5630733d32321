"""Charts as Markdown (for a code forge) and CSV (one file per table).

Every piece of rulebook text is escaped: Markdown inline syntax by backslash, HTML by entity,
table pipes as `\\|`, line breaks inside a table cell as `<br>`. CSV goes through the csv
module; a text cell that a spreadsheet would run as a formula gets a leading apostrophe.
"""

from __future__ import annotations

import csv
import io
from urllib.parse import quote

from .. import escape
from .cells import SIGN_GLYPH, SIGN_WORD, Cell, Chart, Chip, Gap, Link, Quote, Sign, Strong, CellTable, part_writer

# the one Markdown escaping of the project (civdsl/escape.py)
md_escape = escape.markdown


def href(target: str) -> str:
    return quote(target, safe="/#.-_~")


def _chip_md(p: Chip) -> str:
    amount = f" {p.amount}" if p.amount is not None else ""
    return md_escape(f"{p.symbol} {p.name}{amount}")


def _strong_md(p: Strong) -> str:
    text = p.text.strip()
    return f"**{md_escape(text)}**" if text else ""


# how each kind of part of a cell is written (cells.py), in the order they are tried
_PART_MD = (
    (str, md_escape),
    (Chip, _chip_md),
    (Sign, lambda p: f"**{SIGN_GLYPH[p.direction]}**"),  # our own glyph, not rulebook text
    (Strong, _strong_md),
    (Quote, lambda p: f"*\u201c{md_escape(p.text)}\u201d*"),
    (Link, lambda p: f"[{md_escape(p.text)}]({href(p.href)})"),
    (Gap, lambda p: ", "),
)


md_part = part_writer(_PART_MD)


def md_cell(c: Cell) -> str:
    out = "<br>".join("".join(_spaced(line)) for line in c.lines)
    return out or " "


def _spaced(line):
    # a Strong part loses its own edge spaces (Markdown emphasis may not start with one): keep them outside
    for p in line:
        if isinstance(p, Strong):
            lead = " " if p.text[:1].isspace() else ""
            trail = " " if p.text[-1:].isspace() else ""
            yield lead + md_part(p) + trail
        else:
            yield md_part(p)


def md_table(t: CellTable) -> str:
    if not t.rows:
        return f"*{md_escape(t.empty)}*\n"
    head = "| " + " | ".join(md_escape(c.name) if c.chip is None else md_part(c.chip) for c in t.columns) + " |"
    rule = "|" + "|".join("---:" if c.numeric else "---" for c in t.columns) + "|"
    body = ["| " + " | ".join(md_cell(c) for c in r.cells) + " |" for r in t.rows]
    return "\n".join([head, rule, *body]) + "\n"


def md_chart(chart: Chart, edition_name: str, level: int = 1) -> str:
    h = "#" * level
    out = [f"{h} {md_escape(chart.title)}: {md_escape(edition_name)}", "", *_paragraphs(chart.intro)]
    for link in chart.links:
        out += [f"- {md_part(link)}"]
    if chart.links:
        out.append("")
    for t in chart.tables:
        if t.listed:
            out += [f"{h}# {md_escape(t.title)}", "", *_paragraphs(t.intro), md_table(t)]
    if chart.notes:
        out += [f"{h}# Rulebook notes", ""]
        out += [f"- {md_escape(about)}: {md_part(Quote(n))}" for about, n in chart.notes]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _paragraphs(texts: list[str]) -> list[str]:
    """Our own words, a paragraph each."""
    return [line for p in texts for line in (md_escape(p), "")]


def legend_md(chips, signs: bool = True) -> str:
    out = []
    if chips:
        out.append("Groups: " + ", ".join(md_escape(f"{c.symbol} {c.name}") for c in chips.values()) + ".")
    if signs:
        out.append("Modifier signs (for the victim): "
                   + ", ".join(f"**{md_escape(SIGN_GLYPH[k])}** {md_escape(SIGN_WORD[k])}" for k in SIGN_GLYPH) + ".")
    return " ".join(out)


# --- CSV ----------------------------------------------------------------------------------

def _csv_value(c: Cell):
    if c.value is not None and not isinstance(c.value, str):
        return c.value
    return escape.csv_text(c.plain("\n") if c.value is None else c.value)


def csv_table(t: CellTable) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([_csv_header(c) for c in t.columns])
    for r in t.rows:
        w.writerow([_csv_value(c) for c in r.cells])
    return buf.getvalue()


def _csv_header(col) -> str:
    return escape.csv_text(col.name)
