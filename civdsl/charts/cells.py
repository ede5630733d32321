"""The format-neutral shape of a chart: tables of cells made of typed parts.

Chart builders (`builders.py`) say *what* a cell holds (plain text, a group badge, a sign, a
rulebook summary shown as such); each renderer (Markdown, HTML, CSV) says how to print it and
escapes every piece of text for its own format. Nothing here knows a file format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# --- parts of a cell ------------------------------------------------------------------


@dataclass(frozen=True)
class Chip:
    """A group badge: its colour, its symbol and its name, so black-and-white prints read."""

    id: str
    name: str
    color: str
    symbol: str
    amount: int | None = None  # a credit: "▲ Arts 10"


@dataclass(frozen=True)
class Sign:
    """How a modifier changes a calamity for its victim."""

    direction: str  # "worse", "better", "mixed", "choice"


SIGN_GLYPH = {"worse": "+", "better": "\u2212", "mixed": "\u00b1", "choice": "\u21c4"}
SIGN_WORD = {"worse": "worsens", "better": "softens", "mixed": "changes", "choice": "gives a choice"}


@dataclass(frozen=True)
class Strong:
    text: str


@dataclass(frozen=True)
class Quote:
    """A `summary` or `note` string of the rulebook, shown as such (set apart, in italics)."""

    text: str


@dataclass(frozen=True)
class Gap:
    """Between items of one line: a space in HTML (badges wrap), a comma in text."""


@dataclass(frozen=True)
class Link:
    text: str
    href: str  # relative, built by us; escaped by the renderer all the same


Part = "str | Chip | Sign | Strong | Quote | Link"


@dataclass
class Cell:
    lines: list[tuple] = field(default_factory=list)  # each line: a tuple of parts
    numeric: bool = False
    value: object = None  # the raw value for CSV when it differs from the text (numbers)

    def plain(self, sep: str = "\n") -> str:
        return sep.join("".join(plain_part(p) for p in line) for line in self.lines)


def part_writer(ways):
    """The function writing one part of a cell in a format: WAYS are (kind of part, how it is
    written) pairs, tried in order (a part is of the first kind it is an instance of)."""
    def write(p) -> str:
        for kind, way in ways:
            if isinstance(p, kind):
                return way(p)
        raise TypeError(p)
    return write


# a part as plain text (CSV, search, the bare values of cells)
plain_part = part_writer((
    (str, str),
    (Chip, lambda p: f"{p.name} {p.amount}" if p.amount is not None else p.name),
    (Sign, lambda p: SIGN_WORD[p.direction]),
    ((Strong, Quote, Link), lambda p: p.text),
    (Gap, lambda p: ", "),
))


def cell(*parts, numeric: bool = False, value=None) -> Cell:
    """One line of parts. `cell()` is empty; `cell(12)` a number."""
    if len(parts) == 1 and isinstance(parts[0], int) and not isinstance(parts[0], bool):
        return Cell([(str(parts[0]),)], numeric=True, value=parts[0])
    clean = tuple(p for p in parts if p is not None and p != "")
    return Cell([clean] if clean else [], numeric=numeric, value=value)


def lines(*rows) -> Cell:
    """Several lines; each row is a part or a tuple of parts; empty rows are dropped."""
    out = []
    for r in rows:
        t = r if isinstance(r, tuple) else (r,)
        t = tuple(p for p in t if p is not None and p != "")
        if t:
            out.append(t)
    return Cell(out)


def joined(items) -> Cell:
    """Items on one line, separated by a Gap; each item is a part or a tuple of parts."""
    parts: list = []
    for i, item in enumerate(items):
        if i:
            parts.append(Gap())
        parts.extend(item if isinstance(item, tuple) else (item,))
    return cell(*parts)


def number(n) -> Cell:
    if n is None:
        return Cell([("?",)], numeric=True, value=None)
    return cell(int(n)) if isinstance(n, int) else cell(str(n), numeric=True, value=n)


# --- tables -------------------------------------------------------------------------------


@dataclass
class Column:
    name: str
    width: float = 1.0  # relative width in print
    numeric: bool = False
    vertical: bool = False  # a narrow matrix column: header printed sideways
    chip: Chip | None = None  # a group column: the header shows the badge


@dataclass
class Row:
    cells: list[Cell]
    mark: str | None = None  # "added", "changed", "removed" against the base edition
    head: bool = False  # the first cell heads the row (<th>)


@dataclass
class CellTable:
    slug: str  # file stem of its CSV
    title: str
    columns: list[Column]
    rows: list[Row]
    intro: list[str] = field(default_factory=list)  # our own words
    matrix: bool = False
    marked: bool = False  # a "vs base" column is shown (house rules)
    empty: str = "nothing in this edition"
    listed: bool = True  # shown in Markdown and HTML (else CSV only)
    csv: bool = True  # written as a CSV file
    new_page: bool = False  # printed from a new page


@dataclass
class Chart:
    id: str  # calamities, advances, ...
    title: str
    tables: list[CellTable]
    intro: list[str] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (what it is about, rulebook note)
    links: list[Link] = field(default_factory=list)
    figure: str = ""  # an inline SVG drawn by civdsl (charts/figure.py), already escaped


MARK_TEXT = {"added": "added", "changed": "changed", "removed": "removed"}
MARK_GLYPH = {"added": "+", "changed": "\u0394", "removed": "\u2212"}

# --- colours ---------------------------------------------------------------------------

# Okabe-Ito: colour-blind-safe, used when a group declares no colour of its own.
FALLBACK_COLORS = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999")
_HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")


def safe_color(color: str | None, index: int) -> str:
    """The group's colour if it is a plain #rgb/#rrggbb value, else a colour-blind-safe default."""
    if color and _HEX.match(color):
        if len(color) == 4:
            color = "#" + "".join(c * 2 for c in color[1:])
        return color.upper()
    return FALLBACK_COLORS[index % len(FALLBACK_COLORS)]


def ink(color: str) -> str:
    """Black or white text, whichever reads better on this background (WCAG luminance)."""
    r, g, b = (int(color[i:i + 2], 16) / 255 for i in (1, 3, 5))

    def lin(c):
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    lum = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    return "#000000" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "#FFFFFF"


def chips_for(ed) -> dict[str, Chip]:
    """A badge for every group of the edition: colour and symbol (a letter if it has none)."""
    out = {}
    used = {g.symbol for g in ed.groups.values() if g.symbol}
    for i, g in enumerate(ed.groups.values()):
        symbol = g.symbol
        if not symbol:
            symbol = (g.name[:1] or g.id[:1]).upper()
            if symbol in used:
                symbol = g.name[:2] or g.id[:2]
        used.add(symbol)
        out[g.id] = Chip(g.id, g.name, safe_color(g.color, i), symbol)
    return out
