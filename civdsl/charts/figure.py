"""The strategy explorer drawn as an SVG by civdsl itself, for the printable page.

Graphviz draws the finer explorer.svg where it is installed; this figure is laid out here, in
plain Python, so that the printable page holds the diagram inline and is the same on every
machine (`build --check` compares it byte for byte). Layout: one column per cost band, left to
right; in a column the advances by first group, then cost; an arrow for each specific credit
(a curve from the right edge of the giver to the left edge of the receiver, or round the right
side within a column) with the credit at its middle. Every text goes through escape.html.
"""

from __future__ import annotations

from ..escape import html as esc
from ..model import Edition
from . import derive
from .cells import MARK_GLYPH, chips_for, ink

NODE_W, NODE_H, ROW, GAP, CELL, TOP = 180, 26, 32, 120, 16, 30


def _order(ed: Edition, members: list[str]) -> list[str]:
    groups = list(ed.groups)

    def key(n):
        a = ed.advances[n]
        first = groups.index(a.groups[0]) if a.groups and a.groups[0] in groups else len(groups)
        return (first, a.cost if a.cost is not None else 10**9, n)

    return sorted(members, key=key)


def _edge(start: tuple, end: tuple, amount) -> list[str]:
    """A specific credit's arrow between two placed advances, with its amount."""
    (bi, x1, y1), (bj, x2, y2) = start, end
    y1, y2 = y1 + NODE_H / 2, y2 + NODE_H / 2
    if bi == bj:  # within a band: round the right side
        sx, ex = x1 + NODE_W, x2 + NODE_W
        bend = 30 + abs(y2 - y1) / 8
        d = f"M{sx},{y1} C{sx + bend},{y1} {ex + bend},{y2} {ex + 2},{y2}"
        mx, my = max(sx, ex) + bend * 0.75, (y1 + y2) / 2
    else:
        forward = bj > bi
        sx = x1 + NODE_W if forward else x1
        ex = x2 if forward else x2 + NODE_W
        pull = (ex - sx) / 2
        d = f"M{sx},{y1} C{sx + pull},{y1} {ex - pull},{y2} {ex},{y2}"
        mx, my = (sx + ex) / 2, (y1 + y2) / 2
    return [f'<path d="{d}" fill="none" stroke="#555" stroke-opacity=".55" stroke-width="1" '
            'marker-end="url(#arrow)"/>',
            f'<text x="{mx:.1f}" y="{my + 3:.1f}" font-size="8" text-anchor="middle" fill="#333" '
            f'stroke="#fff" stroke-width="2.5" paint-order="stroke">{amount}</text>']


def _badge(c, cx: float, y: float) -> str:
    """A group's colour and symbol at the left of an advance's box."""
    return (f'<rect x="{cx}" y="{y}" width="{CELL}" height="{NODE_H}" fill="{c.color}" stroke="#333"/>'
            f'<text x="{cx + CELL / 2}" y="{y + 17}" font-size="10" text-anchor="middle" '
            f'fill="{ink(c.color)}">{esc(c.symbol)}</text>')


def _node(a, x: float, y: float, chips: dict, mark: str | None) -> list[str]:
    """An advance's box: its group colours, its name (marked when a house rule changes it) and its cost."""
    n = a.name
    cells = [chips[g] for g in a.groups if g in chips]
    border = ' stroke-width="2.2"' if mark else ""
    out = [f'<g><title>{esc(n)}</title><rect x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}" rx="3" '
           f'fill="#fff" stroke="#333"{border}/>']
    out += [_badge(c, x + k * CELL, y) for k, c in enumerate(cells)]
    left = x + len(cells) * CELL + 4
    flag = f"{MARK_GLYPH[mark]} " if mark else ""
    cost = a.cost if a.cost is not None else "?"
    room = x + NODE_W - 26 - left  # the name is squeezed, never overlaps the cost
    fit = f' textLength="{room}" lengthAdjust="spacingAndGlyphs"' if len(flag + n) * 5.6 > room else ""
    out.append(f'<text x="{left}" y="{y + 17}" font-size="10"{fit}>{esc(flag + n)}</text>'
               f'<text x="{x + NODE_W - 4}" y="{y + 17}" font-size="9" text-anchor="end" fill="#444">'
               f"{esc(cost)}</text></g>")
    return out


def _placement(ed: Edition, bands: list) -> dict[str, tuple[int, float, float]]:
    """Advance -> (band index, x, y): each band a column, its advances one under another."""
    return {n: (i, i * (NODE_W + GAP), TOP + j * ROW)
            for i, b in enumerate(bands) for j, n in enumerate(_order(ed, b.members))}


def _drawn_credits(ed: Edition, place: dict) -> list[tuple]:
    """(advance, specific credit) for each credit between two advances placed in the figure."""
    return [(a, s) for a in ed.advances.values() for s in a.specific if a.name in place and s.target in place]


def explorer_svg(ed: Edition, marks: dict[str, str] | None = None) -> str:
    """An inline <svg> of the explorer (empty string for an edition without advances)."""
    marks = marks or {}
    chips = chips_for(ed)
    bands = [b for b in derive.bands(ed) if b.members]
    if not bands:
        return ""
    place = _placement(ed, bands)
    width = len(bands) * NODE_W + (len(bands) - 1) * GAP + 40
    height = TOP + max(len(b.members) for b in bands) * ROW + 10
    out = [f'<svg class="explorer" xmlns="http://www.w3.org/2000/svg" viewBox="-10 0 {width} {height}" '
           f'role="img" aria-label="{esc(ed.name)}: specific credits by cost band">',
           '<defs><marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="6" markerHeight="6" '
           'orient="auto-start-reverse"><path d="M0,0 L8,4 L0,8 z" fill="#555"/></marker></defs>']
    out += [f'<text x="{i * (NODE_W + GAP) + NODE_W / 2}" y="16" text-anchor="middle" font-size="12" '
            f'font-weight="bold">{esc(b.label)}</text>' for i, b in enumerate(bands)]
    # edges first, so the nodes are drawn over them
    for a, s in _drawn_credits(ed, place):
        out += _edge(place[a.name], place[s.target], s.amount)
    for n, (_, x, y) in place.items():
        out += _node(ed.advances[n], x, y, chips, marks.get(n))
    out.append("</svg>")
    return "\n".join(out)
