"""The cross-edition comparison and the site index.

An item of one edition is the same card as an item of another when both have the same name,
or when one lists the other's name under `aka`; nothing is matched by resemblance. House
rules (editions that extend another) are left out: their own summary page compares them with
their base.
"""

from __future__ import annotations

from dataclasses import replace

from .. import describe
from . import derive
from .cells import Cell, Chart, Column, Link, Row, Sign, Strong, CellTable, cell, chips_for, joined, lines, number
from .html import chart_html, chip_html, esc, page, table_html
from .markdown import md_chart, md_escape
from .builders import CLASS_TEXT, advance_order, calamity_order

DIFFERS = "\u2260"


class _Union:
    def __init__(self):
        self.parent: dict = {}

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def linked(editions: list, kind: str) -> list[list[tuple[int, str]]]:
    """Groups of (edition index, item name) that are one card across editions (name or aka)."""
    order = [(i, n) for i, ed in enumerate(editions) for n in _ORDERS[kind](ed)]
    uf = _Union()
    for a, b in _same_cards(editions, kind, _by_name(order)):
        uf.union(a, b)
    groups: dict = {}
    for key in order:
        groups.setdefault(uf.find(key), []).append(key)
    return [g for g in groups.values() if len({i for i, _ in g}) > 1]


# each kind's items of an edition in the charts' order
_ORDERS = {"calamities": calamity_order, "advances": advance_order}


def _by_name(entries: list[tuple[int, str]]) -> dict[str, list[tuple[int, str]]]:
    """Each name with the (edition index, name) entries that bear it."""
    index: dict[str, list[tuple[int, str]]] = {}
    for i, n in entries:
        index.setdefault(n, []).append((i, n))
    return index


def _same_cards(editions: list, kind: str, index: dict) -> list[tuple[tuple[int, str], tuple[int, str]]]:
    """Pairs of (edition index, name) that are one card: the name or an aka of one is the other's name."""
    return [((i, n), (j, m)) for i, ed in enumerate(editions) for n, item in getattr(ed, kind).items()
            for other in [n, *item.aka] for j, m in index.get(other, []) if j != i]


def _attr_rows(editions, group, attrs) -> list[Row]:
    return [_attr_row(_cells(editions, group, fn), label) for label, fn in attrs]


def _cells(editions: list, group: list[tuple[int, str]], fn) -> list[Cell]:
    """One cell per edition that has the card (in edition order), FN of its items."""
    return [_cell_of(editions[i], [n for j, n in group if j == i], fn) for i in sorted({i for i, _ in group})]


def _cell_of(ed, names: list[str], fn) -> Cell:
    """One edition's cell of a row: its item's, or the lines of each of its items that are the card."""
    parts = [fn(ed, n) for n in names]
    return parts[0] if len(parts) == 1 else Cell([line for p in parts for line in p.lines])


def _attr_row(cells: list[Cell], label: str) -> Row:
    """A row of the editions' cells, marked where they differ."""
    differ = len({c.plain() for c in cells}) > 1
    head = cell(Strong(label), f" {DIFFERS}" if differ else "")
    return Row([head] + cells, mark="changed" if differ else None, head=True)


def _lines_or_none(items: list) -> Cell:
    """One line per item, or `none`."""
    return lines(*items) if items else cell("none")


def _cal_attrs():
    def mods(ed, n):
        c = ed.calamities[n]
        return _lines_or_none([(Sign(derive.modifier_direction(m, c)), " ", describe.modifier(m)) for m in c.modifiers])

    return [
        ("Name", lambda ed, n: cell(n)),
        ("Stack", lambda ed, n: number(ed.calamities[n].stack)),
        ("Class", lambda ed, n: cell(CLASS_TEXT.get(ed.calamities[n].klass, str(ed.calamities[n].klass)))),
        ("Beneficiary", lambda ed, n: cell(describe.beneficiary(ed.calamities[n], ed))),
        ("Effect", lambda ed, n: cell(describe.calamity(ed.calamities[n]))),
        ("Modifiers", mods),
    ]


def _adv_attrs(inter_by_ed):
    def chips(ed):
        return chips_for(ed)

    def cal(ed, n):
        return _lines_or_none([(Sign(i.direction), " ", Strong(i.calamity.name), ": ", i.text)
                               for i in inter_by_ed[id(ed)].get(n, [])])

    return [
        ("Name", lambda ed, n: cell(n)),
        ("Cost", lambda ed, n: number(ed.advances[n].cost)),
        ("Groups", lambda ed, n: joined(_group_chips(chips(ed), ed.advances[n].groups))),
        ("VP", lambda ed, n: number(ed.advances[n].vp)),
        ("Group credits", lambda ed, n: joined(_credit_chips(chips(ed), ed.advances[n].credits))),
        ("Specific credits", lambda ed, n: _lines_or_none([f"\u2192 {s.target} {s.amount}"
                                                           for s in ed.advances[n].specific])),
        ("Abilities", lambda ed, n: _lines_or_none([describe.ability(a.kind, a.args)
                                                    for a in ed.advances[n].abilities])),
        ("Calamities it changes", cal),
    ]


def _group_chips(chips: dict, groups: list[str]) -> list:
    """The badges of an advance's groups (a group without one left out)."""
    return [chips[g] for g in groups if g in chips]


def _credit_chips(chips: dict, credits: dict) -> list:
    """The badges of an advance's group credits, each with its amount."""
    return [replace(chips[g], amount=v) for g, v in credits.items() if g in chips]


def comparison(editions: list) -> list[Chart]:
    """Two charts: calamities and advances found in more than one edition, side by side."""
    inter = {id(ed): derive.interactions(ed) for ed in editions}
    out = []
    for kind, title, attrs in (("calamities", "Calamities in several editions", _cal_attrs()),
                               ("advances", "Advances in several editions", _adv_attrs(inter))):
        tables = [_card_table(editions, kind, g, attrs) for g in linked(editions, kind)]
        out.append(Chart(f"compare-{kind}", title, tables, intro=[
            f"An item appears here when two or more editions have it under the same name or one lists the "
            f"other's name as also-known-as. {DIFFERS} marks the lines that differ."]))
    return out


def _card_table(editions: list, kind: str, group: list[tuple[int, str]], attrs) -> CellTable:
    """One card across the editions that have it: a column each, a row per attribute."""
    names = list(dict.fromkeys(n for _, n in group))
    cols = [Column("", 1.1)] + [Column(editions[i].name, 3) for i in sorted({i for i, _ in group})]
    return CellTable(f"{kind}-{names[0]}", ", also called ".join(names), cols, _attr_rows(editions, group, attrs))


def compare_files(editions: list) -> dict[str, str]:
    charts = comparison(editions)
    intro, compared = _compared(editions)
    # a symbol may stand for different groups in different editions: each edition's key by name
    keys = [(ed, list(chips_for(ed).values())) for ed in compared]
    keys = [(ed, chips) for ed, chips in keys if chips]
    return {"compare.md": _compare_md(intro, keys, charts), "compare.html": _compare_html(intro, keys, charts)}


def _compared(editions: list) -> tuple[str, list]:
    """(the page's introduction, the editions compared): only editions that share an item with
    another are compared (the card game shares none)."""
    shared = _sharing(editions)
    compared = [ed for i, ed in enumerate(editions) if i in shared]
    left_out = [ed for i, ed in enumerate(editions) if i not in shared]
    return _intro(compared) + _not_compared(left_out), compared


def _intro(compared: list) -> str:
    names = ", ".join(f"{ed.name} ({ed.id})" for ed in compared) or "none"
    return f"Editions compared: {names}. House rules are compared with their base on their own summary page."


def _sharing(editions: list) -> set[int]:
    """The editions (by index) that share a calamity or an advance with another."""
    return {i for kind in _ORDERS for g in linked(editions, kind) for i, _ in g}


def _not_compared(editions: list) -> str:
    if not editions:
        return ""
    return (" Not compared, having no calamity or advance in common with another edition: "
            + ", ".join(ed.name for ed in editions) + ".")


def _compare_md(intro: str, keys: list, charts: list) -> str:
    md = ["# Editions compared", "", md_escape(intro), ""]
    if keys:
        md += ["Groups of each edition:", ""]
        md += [f"- {md_escape(ed.name)}: " + ", ".join(md_escape(f"{c.symbol} {c.name}") for c in chips)
               for ed, chips in keys] + [""]
    md += [md_chart(c, "all editions", level=2) for c in charts]
    return "\n".join(md).rstrip("\n") + "\n"


def _compare_html(intro: str, keys: list, charts: list) -> str:
    body = [f"<header><h1>Editions compared</h1><p>{esc(intro)}</p>",
            '<p class="links"><a href="index.html">all editions</a></p>']
    if keys:
        body.append('<div class="key"><p><b>Groups of each edition</b> (a badge always names its group):</p>'
                    + "".join(f"<p>{esc(ed.name)}: {' '.join(chip_html(c) for c in chips)}</p>" for ed, chips in keys)
                    + "</div>")
    body.append("</header>")
    body += [chart_html(c) for c in charts]
    return page("Editions compared", "\n".join(body))


# the files of an edition the site index links to, with their words
_SITE_LINKS = (("companion.html", "companion (for the table)"), ("game.html", "whole games (the ledger)"),
               ("charts/{id}.html", "printable charts"),
               ("charts/reference.html", "round reference"), ("charts/house-summary.html", "house-rule summary"),
               ("charts/README.md", "Markdown charts"), ("charts/explorer.svg", "explorer (SVG)"),
               ("charts/explorer.dot", "explorer (DOT)"), ("model.json", "model (JSON)"),
               ("charts/model.yaml", "model (YAML)"))


def index_html(results) -> str:
    table = CellTable("editions", "Editions", [Column("Edition", 2.2), Column("Id", 1), Column("Extends", 1),
                                           Column("Advances", 0.9, numeric=True),
                                           Column("Calamities", 0.95, numeric=True),
                                           Column("Commodities", 1.1, numeric=True), Column("Charts", 4)], [])
    for r in results:
        ed = r.edition
        table.rows.append(Row([cell(Strong(ed.name)), cell(ed.id), cell(", ".join(ed.bases) or "\u2014"),
                               number(len(ed.advances)), number(len(ed.calamities)), number(len(ed.commodities)),
                               cell(*_links(r))], head=True))
    body = ["<header><h1>civdsl rulebooks</h1>",
            "<p>Every compiled edition with its quick-reference charts, and the cross-edition comparison.</p>",
            '<p class="links"><a href="compare.html">editions compared</a> <a href="compare.md">(Markdown)</a></p>',
            "</header>", "<section id=\"editions\">", table_html(table, with_title=False), "</section>"]
    return page("civdsl rulebooks", "\n".join(body))


def _links(r) -> list:
    """The links of one edition's row, a dot between each two."""
    files = r.files or {}
    links = [Link(text, f"{r.id}/{rel}") for rel, text in _site_links(r.edition) if _built(rel, files)]
    return [part for link in links for part in (" \u00b7 ", link)][1:]


def _site_links(ed) -> list[tuple[str, str]]:
    """(path under the edition's folder, words) of each file the index may link to."""
    return [(rel.format(id=ed.id), text) for rel, text in _SITE_LINKS]


def _built(rel: str, files: dict) -> bool:
    """Whether the build wrote REL. The SVG is linked wherever its DOT source is, so the page never
    depends on whether Graphviz drew it on the machine that built it."""
    return rel in files or (rel.endswith(".svg") and rel[:-4] + ".dot" in files)


def site(results) -> dict[str, str]:
    results = [r for r in results if getattr(r, "edition", None) is not None]
    bases = [r.edition for r in results if not r.edition.bases]
    out = {"index.html": index_html(results)}
    out.update(compare_files(bases))
    return out
