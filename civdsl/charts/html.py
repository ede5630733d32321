"""Self-contained printable HTML: inline CSS, no scripts, no external fetches.

Print layout: landscape on A4 or Letter (the narrower, Letter, sets the printable width),
each chart from a new page, fixed-layout tables that wrap long words, a small print font.
Group badges carry the group's symbol and name besides its colour so that black-and-white
prints read. Every piece of rulebook text goes through html.escape.
"""

from __future__ import annotations


from .. import escape
from .cells import (MARK_GLYPH, MARK_TEXT, SIGN_GLYPH, SIGN_WORD, Cell, Chart, Chip, Gap, Link, Quote, Sign,
                    Strong, CellTable, ink, part_writer)
from .markdown import href

PRINT_WIDTH_MM = 259  # Letter landscape (279.4 mm) less 2 x 10 mm margins; A4 landscape is wider

CSS = """
@page { size: landscape; margin: 10mm; }
* { box-sizing: border-box; }
html { font-family: "DejaVu Sans", "Liberation Sans", Arial, Helvetica, sans-serif; font-size: 11px;
  line-height: 1.3; color: #111; background: #fff; }
body { margin: 0 auto; max-width: %(width)smm; padding: 6mm 0; }
h1 { font-size: 1.8em; margin: 0 0 .2em; }
h2 { font-size: 1.45em; margin: 0 0 .3em; border-bottom: 2px solid #333; }
h3 { font-size: 1.15em; margin: .8em 0 .25em; }
p { margin: .25em 0 .45em; }
nav a, .links a { margin-right: 1.2em; }
a { color: #0b4f8a; }
section { margin-top: 8mm; }
table { width: 100%%; table-layout: fixed; border-collapse: collapse; margin: .3em 0 .6em; }
th, td { border: 1px solid #9a9a9a; padding: 2px 3px; vertical-align: top; text-align: left;
  overflow-wrap: anywhere; word-break: break-word; hyphens: auto; }
thead th { background: #e9e9e9; }
tbody th { font-weight: normal; background: #f7f7f7; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
th.v { vertical-align: bottom; text-align: left; padding: 3px 0; }
th.v span { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; display: inline-block;
  max-height: 34mm; overflow: hidden; text-overflow: ellipsis; }
th.v .chip { padding: 2px 1px; }
table.matrix td { text-align: center; padding: 1px 0; }
table.matrix td.self { color: #777; }
/* row guides: every other row shaded and a firmer rule every fifth, so a row can be followed
   across the whole matrix (kept in print) */
table.matrix tbody tr:nth-child(even) > * { background: #eef1f5; -webkit-print-color-adjust: exact;
  print-color-adjust: exact; }
table.matrix tbody tr:nth-child(5n) > * { border-bottom: 2px solid #555; }
thead { display: table-header-group; }
tr { break-inside: avoid; }
.chip { display: inline-block; border: 1px solid #333; border-radius: 3px; padding: 0 3px; margin: 1px 2px 1px 0;
  white-space: nowrap; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
.sign { display: inline-block; min-width: 1.1em; font-weight: bold; text-align: center; border-radius: 2px; }
.s-worse { color: #A33C00; } .s-better { color: #005A8E; } .s-mixed { color: #555; } .s-choice { color: #6B2F5E; }
q.rb { font-style: italic; color: #333; display: block; font-size: .92em; }
ul.notes { margin: 0; padding-left: 1.2em; }
ul.notes q.rb { display: inline; }
.muted { color: #555; }
tr.m-added > *, tr.m-changed > * { background: #fff3c4; }
tr.m-removed > * { background: #eee; text-decoration: line-through; }
tr.m-added > :first-child, tr.m-changed > :first-child, tr.m-removed > :first-child { border-left: 3px solid #333; }
.key { border: 1px solid #bbb; padding: 2mm 3mm; margin: 2mm 0; }
figure { margin: 2mm 0; }
svg.explorer { display: block; width: 100%%; height: auto; max-height: 160mm; font-family: inherit; }
/* phone width: a table becomes a pile of cards, one a row, each cell under its column's name,
   so no word is broken letter by letter; the credits matrix scrolls sideways instead */
@media screen and (max-width: 640px) {
  html { font-size: 14px; }
  body { padding: 3mm; }
  table:not(.matrix), table:not(.matrix) > tbody, table:not(.matrix) > tbody > tr,
  table:not(.matrix) > tbody > tr > th, table:not(.matrix) > tbody > tr > td { display: block; width: auto; }
  table:not(.matrix) > thead, table:not(.matrix) > colgroup { display: none; }
  table:not(.matrix) > tbody > tr { border: 1px solid #9a9a9a; border-radius: 4px; margin: 0 0 3mm; }
  table:not(.matrix) > tbody > tr > th, table:not(.matrix) > tbody > tr > td {
    border: none; border-top: 1px solid #e2e2e2; text-align: left; overflow-wrap: break-word; word-break: normal;
    hyphens: manual; padding: 3px 6px; }
  table:not(.matrix) > tbody > tr > :first-child { border-top: none; }
  table:not(.matrix) > tbody > tr > td:empty { display: none; }
  table:not(.matrix) td[data-label]::before, table:not(.matrix) th[data-label]::before {
    content: attr(data-label); display: block; font-size: .8em; font-weight: bold; color: #555; }
  table.matrix { display: block; overflow-x: auto; table-layout: auto; width: auto; }
  table.matrix th, table.matrix td { overflow-wrap: normal; word-break: normal; min-width: 2em; }
  table.matrix tbody th { min-width: 10em; }
}
@media print {
  html { font-size: 7.5pt; }
  body { max-width: none; padding: 0; }
  /* charts follow each other on the page (a chart forced onto a page of its own left pages
     mostly blank); a heading stays with what follows it and a row never splits */
  section { margin-top: 5mm; break-before: auto; }
  h2 { break-after: avoid; break-inside: avoid; }
  p.muted, .key, figure, div.keep { break-inside: avoid; }
  h2 { break-after: avoid; }
  h3 { break-after: avoid; }
  a { color: inherit; text-decoration: none; }
  th, td { padding: 1px 3px; }
  table { line-height: 1.2; }
  h3.new-page { break-before: auto; }
  table.matrix { font-size: 6.3pt; line-height: 1.05; }
  table.matrix td, table.matrix tbody th { padding: 0 2px; }
  th.v span { max-height: 26mm; }
  body.sheet { font-size: 6.6pt; }
  body.sheet section { margin-top: 3mm; }
}
""" % {"width": PRINT_WIDTH_MM}

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


esc = escape.html  # the one HTML escaping of the project (civdsl/escape.py)


def chip_html(c: Chip) -> str:
    amount = f" {c.amount}" if c.amount is not None else ""
    return (f'<span class="chip" style="background:{c.color};color:{ink(c.color)}" title="{esc(c.name)}">'
            f"{esc(c.symbol)} {esc(c.name)}{esc(amount)}</span>")


# how each kind of part of a cell is written (cells.py), in the order they are tried
_PART_HTML = (
    (str, esc),
    (Chip, chip_html),
    (Sign, lambda p: f'<span class="sign s-{p.direction}" title="{esc(SIGN_WORD[p.direction])}">'
                     f'{esc(SIGN_GLYPH[p.direction])}</span>'),
    (Strong, lambda p: f"<b>{esc(p.text)}</b>"),
    (Quote, lambda p: f'<q class="rb">{esc(p.text)}</q>'),
    (Link, lambda p: f'<a href="{esc(href(p.href))}">{esc(p.text)}</a>'),
    (Gap, lambda p: " "),
)


part_html = part_writer(_PART_HTML)


def cell_html(c: Cell) -> str:
    return "<br>".join("".join(part_html(p) for p in line) for line in c.lines)


def table_html(t: CellTable, with_title: bool = True) -> str:
    out = []
    if with_title:
        out.append(f"<h3{_classes('new-page' if t.new_page else '')}>{esc(t.title)}</h3>")
    out += [f'<p class="muted">{esc(p)}</p>' for p in t.intro]
    out += _grid_html(t) if t.rows else [f"<p><i>{esc(t.empty)}</i></p>"]
    return "\n".join(out)


def _grid_html(t: CellTable) -> list[str]:
    """The <table> itself: its columns' widths and heads, then a line per row."""
    total = sum(c.width for c in t.columns) or 1
    return [f'<table{_classes("matrix" if t.matrix else "")} data-slug="{esc(t.slug)}">',
            "<colgroup>" + "".join(f'<col style="width:{100 * c.width / total:.3f}%">' for c in t.columns)
            + "</colgroup>",
            "<thead><tr>" + "".join(_column_head(c) for c in t.columns) + "</tr></thead>",
            "<tbody>", *[_row_html(t, r) for r in t.rows], "</tbody></table>"]


def _row_html(t: CellTable, r) -> str:
    head = _head_index(t) if r.head else None
    return (f"<tr{_classes(f'm-{r.mark}' if r.mark else '')}>"
            + "".join(_cell(t, i == head, col, c) for i, (col, c) in enumerate(zip(t.columns, r.cells))) + "</tr>")


def _classes(*names: str) -> str:
    """A class attribute of the names that apply (none: no attribute)."""
    shown = " ".join(n for n in names if n)
    return f' class="{shown}"' if shown else ""


def _column_head(c) -> str:
    inner = chip_html(c.chip) if c.chip is not None else esc(c.name)
    attr = _classes("v" if c.vertical else "", "n" if c.numeric and not c.vertical else "")
    return f'<th scope="col"{attr}>' + (f"<span>{inner}</span>" if c.vertical else inner) + "</th>"


def _cell(t: CellTable, head: bool, col, c: Cell) -> str:
    """One cell of a row; the row's head cell is a <th>."""
    tag, scope = ("th", ' scope="row"') if head else ("td", "")
    # right-aligned numbers; the matrix's own cell (an advance against itself) greyed
    cattr = _classes("n" if c.numeric or col.numeric else "", "self" if t.matrix and c.plain() == "\u2014" else "")
    # the column's name, shown above the cell where a phone lays rows out as cards
    label = f' data-label="{esc(col.name)}"' if not t.matrix and col.name else ""
    return f"<{tag}{scope}{cattr}{label}>{cell_html(c)}</{tag}>"


def _head_index(t: CellTable) -> int:
    return 1 if t.columns and t.columns[0].name == "vs base" else 0


def chart_html(chart: Chart) -> str:
    out = [f'<section id="{esc(chart.id)}">']
    head = [f"<h2>{esc(chart.title)}</h2>"] + [f"<p>{esc(p)}</p>" for p in chart.intro] + _links_html(chart.links)
    if chart.figure:
        # the heading goes to the page the figure is printed on
        out.append('<div class="keep">' + "\n".join(head) + f"\n<figure>{chart.figure}</figure></div>")
    else:
        out += head
    listed = [t for t in chart.tables if t.listed]
    # a chart of one table titled as the chart says its title once
    out += [table_html(t, with_title=len(listed) > 1 or t.title != chart.title) for t in listed]
    out += _notes_html(chart.notes)
    out.append("</section>")
    return "\n".join(out)


def _notes_html(notes: list[tuple[str, str]]) -> list[str]:
    """The rulebook's notes on what a chart shows, quoted; nothing where there are none."""
    if not notes:
        return []
    return ["<h3>Rulebook notes</h3>",
            '<ul class="notes">' + "".join(f'<li>{esc(about)}: <q class="rb">{esc(n)}</q></li>' for about, n in notes)
            + "</ul>"]


def _links_html(links) -> list[str]:
    """A paragraph of LINKS, or nothing where there are none."""
    if not links:
        return []
    return ['<p class="links">' + "".join(part_html(link) for link in links) + "</p>"]


def key_html(chips, house: bool, signs: bool = True) -> str:
    out = ['<div class="key">']
    if chips:
        out.append(f"<p><b>Groups:</b> {' '.join(chip_html(c) for c in chips.values())}</p>")
    if signs:
        text = "; ".join(f'<span class="sign s-{k}">{esc(SIGN_GLYPH[k])}</span> {esc(SIGN_WORD[k])}' for k in SIGN_GLYPH)
        out.append(f"<p><b>Calamity modifiers, for the victim:</b> {text}.</p>")
    if house:
        marks = "; ".join(f"<b>{esc(MARK_GLYPH[k])} {esc(MARK_TEXT[k])}</b>" for k in ("added", "changed"))
        out.append(f"<p><b>Against the base edition:</b> {marks} rows are shaded and marked.</p>")
    out.append("</div>")
    return "\n".join(out)


def page(title: str, body: str, body_class: str = "") -> str:
    attr = f' class="{esc(body_class)}"' if body_class else ""
    return ("<!DOCTYPE html>\n"
            '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body{attr}>\n{body}\n</body>\n</html>\n")


def edition_page(ed, charts: list[Chart], chips, house: bool, subtitle: str = "", links=(), sheet: bool = False) -> str:
    """Every chart of CHARTS on one printable page; SHEET prints it denser (a cheat sheet)."""
    nav = " ".join(f'<a href="#{esc(c.id)}">{esc(c.title)}</a>' for c in charts)
    head = [f"<header><h1>{esc(ed.name)}</h1>",
            f'<p class="muted">Quick-reference charts for edition <b>{esc(ed.id)}</b>, generated from the '
            f"compiled rulebook. {esc(subtitle)}</p>"]
    head += _links_html(links)
    if len(charts) > 1:
        head.append(f"<nav>{nav}</nav>")
    if chips or house or ed.calamities:
        head.append(key_html(chips, house, signs=bool(ed.calamities)))
    head.append("</header>")
    return page(f"{ed.name}: quick reference", "\n".join(head) + "\n" + "\n".join(chart_html(c) for c in charts),
                "sheet" if sheet else "")
