"""Every chart of one edition as format-neutral tables (see cells.py).

All words here are generated from structure: describe.py renders effects, modifiers,
conditions and abilities; the only rulebook strings shown are `summary` and `note` texts, set
apart as quotations.
"""

from __future__ import annotations


from .. import describe
from .. import vocabulary as vocab
from ..model import Edition
from ..phrases import sentence
from ..validator import set_value
from . import derive
from .cells import (MARK_GLYPH, MARK_TEXT, Cell, Chart, Column, Link, Quote, Row, Sign, Strong, Table, cell,
                    chips_for, joined, lines, number)
from .diff import CATEGORY_TITLES, Diff

KINDS = ("turns", "calamities", "advances", "credits", "explorer", "epochs", "commodities")
CLASS_ORDER = ("minor", "major tradable", "major nontradable")
CLASS_TEXT = {"minor": "minor", "major tradable": "major, tradable", "major nontradable": "major, not tradable",
              None: "unclassified"}


def _mark_column(marks) -> list[Column]:
    return [Column("vs base", 0.85)] if marks is not None else []


def _mark_cell(marks, key: str) -> list[Cell]:
    if marks is None:
        return []
    status = marks.get(key)
    return [_mark(status)]


def _mark(status: str | None) -> Cell:
    """The "vs base" cell: glyph and word in print, the bare word in CSV."""
    if not status:
        return cell()
    return cell(Strong(f"{MARK_GLYPH[status]} {MARK_TEXT[status]}"), value=status)


def _row(marks, key: str, cells: list[Cell], head: bool = True) -> Row:
    status = marks.get(key) if marks is not None else None
    return Row(_mark_cell(marks, key) + cells, mark=status, head=head)


def advance_order(ed: Edition) -> list[str]:
    """Advances by cost (unknown last), ties in rulebook order."""
    names = list(ed.advances)
    return sorted(names, key=lambda n: (ed.advances[n].cost is None, ed.advances[n].cost or 0, names.index(n)))


def calamity_order(ed: Edition) -> list[str]:
    names = list(ed.calamities)

    def key(n):
        c = ed.calamities[n]
        klass = CLASS_ORDER.index(c.klass) if c.klass in CLASS_ORDER else len(CLASS_ORDER)
        return (c.stack is None, c.stack or 0, klass, names.index(n))

    return sorted(names, key=key)


# --- calamities -----------------------------------------------------------------------------


def stack_grid(ed: Edition, marks=None) -> Table:
    """Which calamity sits in each trade-card stack, by class."""
    order = calamity_order(ed)
    classes = [k for k in CLASS_ORDER if any(c.klass == k for c in ed.calamities.values())]
    if any(c.klass not in CLASS_ORDER for c in ed.calamities.values()):
        classes.append(None)
    stacks = sorted({ed.calamities[n].stack for n in order if ed.calamities[n].stack is not None})
    if any(ed.calamities[n].stack is None for n in order):
        stacks.append(None)
    grid = Table(
        "calamity-stacks", "Calamities by stack and class",
        [Column("Stack", 0.4, numeric=True)] + [Column(CLASS_TEXT[k].capitalize(), 2) for k in classes],
        [], intro=["Which calamity sits in each trade-card stack; tradable calamities can be passed on in trade."])
    for s in stacks:
        row = [number(s) if s is not None else cell("?")]
        for k in classes:
            names = [n for n in order if ed.calamities[n].stack == s and ed.calamities[n].klass == k]
            row.append(lines(*[(n, _mark_suffix(marks, n)) for n in names]))
        grid.rows.append(Row(row, head=True))

    return grid


def calamities_chart(ed: Edition, marks=None) -> Chart:
    order = calamity_order(ed)
    grid = stack_grid(ed, marks)
    detail = Table(
        "calamities", "Calamities",
        _mark_column(marks) + [Column("Stack", 0.55, numeric=True), Column("Calamity", 1.9), Column("Class", 0.9),
                               Column("Beneficiary", 1.2), Column("Effect", 3.4), Column("Modifiers", 3.6)],
        [], intro=["Effect: what the primary victim suffers, then the secondary victims and when the calamity "
                   "is cancelled. Modifiers: the condition, then what changes; the sign says whether it is "
                   "worse (+) or better (\u2212) for the victim, mixed (\u00b1), or a choice (\u21c4)."])
    for n in order:
        c = ed.calamities[n]
        name = lines(Strong(c.name), *[("also called ", a) for a in c.aka], Quote(c.summary) if c.summary else None)
        name.value = c.name
        mods = lines(*[(Sign(derive.modifier_direction(m, c)), " ", describe.modifier(m)) for m in c.modifiers])
        if not c.modifiers:
            mods = cell("none")
        detail.rows.append(_row(marks, n, [
            number(c.stack), name, cell(CLASS_TEXT.get(c.klass, str(c.klass))),
            cell(describe.beneficiary(c, ed)), cell(describe.calamity(c)), mods]))

    flat = Table("calamity-modifiers", "Calamity modifiers, one per line",
                 [Column("Calamity"), Column("Stack", numeric=True), Column("Role"), Column("Condition"),
                  Column("Advances"), Column("Direction"), Column("Change"), Column("Priority", numeric=True)], [])
    flat.listed = False
    for n in order:
        c = ed.calamities[n]
        for m in c.modifiers:
            flat.rows.append(Row([cell(c.name), number(c.stack), cell(m.role), cell(describe.condition(m.condition)),
                                  cell(", ".join(derive.positive_advances(m))),
                                  cell(Sign(derive.modifier_direction(m, c))),
                                  cell("; ".join(describe.op(o) for o in m.ops)), number(m.priority)]))
    return Chart("calamities", "Calamities", [grid, detail, flat])


def _mark_suffix(marks, key):
    if marks and marks.get(key):
        return Strong(f" ({MARK_GLYPH[marks[key]]} {MARK_TEXT[marks[key]]})")
    return None


# --- advances -------------------------------------------------------------------------------


def advances_chart(ed: Edition, marks=None) -> Chart:
    chips = chips_for(ed)
    inter = derive.interactions(ed)
    order = advance_order(ed)
    has_req = any(a.requires for a in ed.advances.values())
    has_supply = any(a.supply is not None for a in ed.advances.values())
    has_vp = any(a.vp is not None for a in ed.advances.values())
    cols = _mark_column(marks) + [Column("Advance", 2.4), Column("Cost", 0.55, numeric=True), Column("Groups", 1.2)]
    if has_vp:
        cols.append(Column("VP", 0.35, numeric=True))
    # group credits one column per colour, as the printed advance sheets give them
    group_cols = list(chips.values())
    cols += [Column(g.name, 0.42, numeric=True, vertical=True, chip=g) for g in group_cols]
    cols += [Column("Specific credits", 1.5), Column("Abilities", 1.5), Column("Calamities it changes", 2.8)]
    if has_req:
        cols.append(Column("Requires", 0.9))
    if has_supply:
        cols.append(Column("Cards", 0.65, numeric=True))
    t = Table("advances", "Advances", cols, [], intro=[
        "Sorted by cost. Group credits (a column per group) count towards any advance of that group; "
        "specific credits towards "
        "the advance named. The last column is derived from the calamities' modifiers: + worse, "
        "\u2212 better, \u00b1 mixed, \u21c4 a choice for the holder."])
    for n in order:
        a = ed.advances[n]
        name = lines(Strong(a.name), *[("also called ", x) for x in a.aka], Quote(a.summary) if a.summary else None)
        name.value = a.name
        groups = joined([chips[g] for g in a.groups if g in chips])
        specific = lines(*[(f"\u2192 {s.target} ", Strong(str(s.amount))) for s in a.specific])
        abilities = lines(*[describe.ability(ab.kind, ab.args) for ab in a.abilities])
        cal = lines(*[(Sign(i.direction), " ", Strong(i.calamity.name), ": ", i.text) for i in inter.get(n, [])])
        row = [name, number(a.cost) if a.cost_known else cell("unknown"), groups]
        if has_vp:
            row.append(number(a.vp))
        row += [number(a.credits[g.id]) if a.credits.get(g.id) else cell() for g in group_cols]
        row += [specific, abilities, cal]
        if has_req:
            row.append(cell(", ".join(a.requires)))
        if has_supply:
            row.append(number(a.supply) if a.supply is not None else cell())
        t.rows.append(_row(marks, n, row))

    flat = Table("advance-calamities", "Calamities each advance changes, one per line",
                 [Column("Advance"), Column("Calamity"), Column("Direction"), Column("Change")], [])
    flat.listed = False
    for n in order:
        for i in inter.get(n, []):
            flat.rows.append(Row([cell(n), cell(i.calamity.name), cell(Sign(i.direction)), cell(i.text)]))
    return Chart("advances", "Advances", [t, flat])


# --- credits ---------------------------------------------------------------------------------

MATRIX_CHUNK = 26  # advances-to-buy columns per printed table
# The advance-by-advance matrix has a cell for every pair of advances, so its size grows with the
# square of their number while what it says does not: each cell is the held card's group credit
# to the better of the target's groups and its specific credit to the target. Up to four printed
# parts (the printed sheets of every shipped edition fit in two) it is written cell by cell; a
# larger edition gets the same facts in tables that grow with the advances and credits declared
# (`_credits_factored`), so that a build's time and memory follow the rulebook's size.
MATRIX_LIMIT = 4 * MATRIX_CHUNK


def credits_chart(ed: Edition, marks=None) -> Chart:
    chips = chips_for(ed)
    order = advance_order(ed)
    groups = list(chips.values())
    policy = ed.credit_policy or "best_group"
    declared = (f"Credit policy {policy.replace('_', ' ')}: {vocab.CREDIT_POLICIES.get(policy, '')}"
                if ed.credit_policy else "No credit policy is declared; the cells read it as best group")
    declared += "; group credits of several held cards add up per group first" if policy == "best_group" else ""
    if len(order) > MATRIX_LIMIT:
        return Chart("credits", "Credits", _credits_factored(ed, order, chips, policy, declared, marks)
                     + [_chain_table(ed)])
    intro = [declared + ". Rows: an advance you hold. Columns: a group, then an advance you buy. A cell is what "
             "that one held card credits; bold cells include a specific credit; \u2014 is the card itself."]

    # Every cell is worked out once: the full matrix (for CSV) and its printed parts share their
    # rows, and the cells that say nothing are one shared object, so that the chart's time and
    # memory follow the cells that say something (the matrix grows with the square of the
    # number of advances; building it twice, and an object per empty cell, made it dominate
    # large builds).
    empty = cell(numeric=True)
    itself = cell("\u2014", numeric=True, value="")
    width = len(groups)
    rows: list[tuple[list, object]] = []
    for hn in order:
        held = ed.advances[hn]
        row = [cell(Strong(hn), _mark_suffix(marks, hn))]
        row += [number(held.credits[g.id]) if held.credits.get(g.id) else empty for g in groups]
        for tname in order:
            if tname == hn:
                row.append(itself)
                continue
            cc = derive.card_credit(ed, held, ed.advances[tname])
            row.append(_credit_cell(cc, policy) if cc.amount else empty)
        rows.append((row, marks.get(hn) if marks else None))

    def matrix(slug, title, start, stop, with_groups, listed=True):
        """The columns of advances order[start:stop] (and the group columns if asked)."""
        cols = [Column("Held \u2193, buying \u2192", 2.6)]
        if with_groups:
            cols += [Column(g.name, 0.7, numeric=True, vertical=True, chip=g) for g in groups]
        cols += [Column(tname, 0.7, numeric=True, vertical=True) for tname in order[start:stop]]
        table = Table(slug, title, cols, [], matrix=True)
        table.listed = listed
        for row, mark in rows:
            cells = row[:1] + (row[1:1 + width] if with_groups else []) + row[1 + width + start:1 + width + stop]
            table.rows.append(Row(cells, mark=mark, head=True))
        return table

    tables = [matrix("credits", "Credits matrix", 0, len(order), True, listed=False)]
    starts = list(range(0, len(order), MATRIX_CHUNK)) or [0]
    for i, start in enumerate(starts):
        title = "Credits matrix" if len(starts) == 1 else f"Credits matrix, part {i + 1} of {len(starts)}"
        t = matrix(f"credits-{i + 1}", title, start, start + MATRIX_CHUNK, i == 0)
        t.csv = False
        t.new_page = i > 0
        if i == 0:
            t.intro = intro
        tables.append(t)

    tables.append(_chain_table(ed))
    return Chart("credits", "Credits", tables)


def _credit_cell(cc: derive.CardCredit, policy: str) -> Cell:
    """One held card's credit towards one purchase: bold when it includes a specific credit."""
    if cc.special and (policy != "per_card" or cc.special >= cc.group_part):
        return cell(Strong(str(cc.amount)), numeric=True, value=cc.amount)
    return number(cc.amount)


def _credits_factored(ed: Edition, order: list[str], chips, policy: str, declared: str, marks) -> list[Table]:
    """The credits matrix of a large edition as the two tables its cells are made of: each held
    advance's group credits (with its own groups, to look up a target's), and each specific
    credit with the cell it makes. Every cell of the matrix follows from these."""
    groups = list(chips.values())
    rule = ("plus its specific credit to that advance" if policy != "per_card"
            else "or its specific credit to that advance when that is larger")
    by_group = Table("credits", "Credits by group",
                     [Column("Held \u2193, buying an advance of \u2192", 2.6), Column("Its groups", 1.2)]
                     + [Column(g.name, 0.7, numeric=True, vertical=True, chip=g) for g in groups], [], matrix=True,
                     intro=[f"{declared}. This edition has {len(order)} advances: the advance-by-advance matrix "
                            f"(written for at most {MATRIX_LIMIT}) is given as the two tables it is made of. "
                            "One held card credits towards an advance you buy its credit to the better of that "
                            f"advance's groups (a column here; the advance's own row names its groups), {rule} "
                            "(the next table, where the two are added up)."])
    for hn in order:
        held = ed.advances[hn]
        row = [cell(Strong(hn), _mark_suffix(marks, hn)), joined([chips[g] for g in held.groups if g in chips])]
        row += [number(held.credits[g.id]) if held.credits.get(g.id) else cell(numeric=True) for g in groups]
        by_group.rows.append(Row(row, mark=marks.get(hn) if marks else None, head=True))
    specific = Table("credits-specific", "Specific credits",
                     [Column("Held", 2.6), Column("Buying", 2.6), Column("Specific credit", 0.9, numeric=True),
                      Column("The held card credits", 1.1, numeric=True)], [],
                     intro=["Each specific credit, by the held advance's cost, and what that one card credits "
                            "towards the advance it names (bold where the specific credit counts)."])
    for hn in order:
        held = ed.advances[hn]
        for target in dict.fromkeys(s.target for s in held.specific):
            if target == hn or target not in ed.advances:
                continue
            cc = derive.card_credit(ed, held, ed.advances[target])
            specific.rows.append(Row([cell(Strong(hn), _mark_suffix(marks, hn)), cell(target), number(cc.special),
                                      _credit_cell(cc, policy)], mark=marks.get(hn) if marks else None, head=True))
    return [by_group, specific]


def _chain_table(ed: Edition) -> Table:
    chain_table = Table("credit-chains", "Specific-credit chains",
                        [Column("Chain", 6), Column("Credits along it", 1.2)], [],
                        intro=["Each chain follows specific credits from an advance that none credits, "
                               "to one that credits no other; figures are costs and credits."])
    for ch in derive.chains(ed):
        parts: list = []
        for i, (name, amt) in enumerate(ch):
            a = ed.advances[name]
            parts += [Strong(name), f" ({a.cost if a.cost is not None else '?'})"]
            if i < len(ch) - 1:
                parts.append(f" \u2192{amt}\u2192 ")
        amounts = [amt for _, amt in ch[:-1]]
        # in words, not arithmetic: "45 (20 and 25)"
        parts_text = ", ".join(str(x) for x in amounts[:-1]) + f" and {amounts[-1]}" if len(amounts) > 1 else ""
        total = f"{sum(amounts)} ({parts_text})" if parts_text else str(sum(amounts))
        chain_table.rows.append(Row([cell(*parts), cell(total, value=sum(amounts))]))
    return chain_table


# --- strategy explorer ------------------------------------------------------------------------


def explorer_chart(ed: Edition, marks=None) -> Chart:
    chips = chips_for(ed)
    t = Table("explorer-bands", "Cost bands of the strategy explorer",
              [Column("Band", 1.2), Column("Advances", 6)], [],
              intro=["The explorer draws every advance in its cost band, left to right, with an arrow for "
                     "each specific credit; a node shows the colour and symbol of each of its groups."])
    for b in derive.bands(ed):
        t.rows.append(Row([cell(Strong(b.label)), cell(", ".join(b.members))], head=True))
    edges = Table("explorer-edges", "Specific credits",
                  [Column("From"), Column("To"), Column("Credit", numeric=True), Column("From band"),
                   Column("To band")], [])
    edges.listed = False
    band_of = {n: b.key for b in derive.bands(ed) for n in b.members}
    for n in advance_order(ed):
        for s in ed.advances[n].specific:
            edges.rows.append(Row([cell(n), cell(s.target), number(s.amount), cell(band_of.get(n, "")),
                                   cell(band_of.get(s.target, ""))]))
    # both links always: the page must not depend on whether Graphviz was there to draw the SVG
    links = [Link("explorer.svg (drawn where Graphviz is installed)", "explorer.svg"),
             Link("explorer.dot (Graphviz source)", "explorer.dot")]
    from .figure import explorer_svg

    return Chart("explorer", "Strategy explorer", [t, edges], links=links, figure=explorer_svg(ed, marks),
                 intro=[f"Groups: {', '.join(f'{c.symbol} {c.name}' for c in chips.values())}."] if chips else [])


# --- epochs --------------------------------------------------------------------------------


def epochs_chart(ed: Edition, marks=None) -> Chart:
    tracks = list(ed.asts.values())
    depth = max((len(t.epochs) for t in tracks), default=0)
    cols = [Column("Step", 0.4, numeric=True)] + [Column(t.name, 4) for t in tracks]
    if marks is not None:
        cols = [Column("vs base", 0.85)] + cols
    table = Table("epochs", "Epochs side by side", cols, [],
                  intro=["Each column is one A.S.T. track; a marker enters an epoch when every requirement "
                         "listed for it holds."])
    for i in range(depth):
        row, status = [number(i + 1)], None
        for t in tracks:
            if i >= len(t.epochs):
                row.append(cell())
                continue
            e = t.epochs[i]
            key = f"{t.name} / {e.name}"
            mark = (marks or {}).get(key)
            status = status or mark
            reqs = [("\u2022 ", describe.condition(r.expr)) for r in e.requirements] or ["no requirement"]
            row.append(lines((Strong(e.name), _mark_suffix(marks, key)), *reqs))
        if marks is not None:
            row = [_mark(status)] + row
        table.rows.append(Row(row, mark=status, head=True))
    if any(t.backward for t in tracks):
        row = [cell("back")] + [lines(*[("moves back a step with ", describe.condition(b)) for b, _ in t.backward])
                                if t.backward else cell("never moves back") for t in tracks]
        if marks is not None:
            row = [cell()] + row
        table.rows.append(Row(row, head=True))
    notes = [(t.name, n) for t in tracks for n in t.notes]
    notes += [(c.name, n) for c in ed.civilizations.values() for n in c.notes]
    return Chart("epochs", "Epochs (A.S.T.)", [table, _civilization_rows(ed, tracks)], notes=notes)


def _civilization_rows(ed: Edition, tracks: list) -> Table:
    """Each civilization's own row: the space on which each epoch after the first begins."""
    cols = [Column("Rank", 0.4, numeric=True), Column("Civilization", 1.4), Column("Block", 0.6)]
    cols += [Column(f"{t.name}: {e.name}", 0.6, numeric=True) for t in tracks for e in t.epochs[1:]]
    cols += [Column(f"{t.name}: finish", 0.6, numeric=True) for t in tracks]
    table = Table("epoch-rows", "Rows by civilization", cols, [],
                  intro=["The first space of each epoch on each civilization's own row (the start arrow is "
                         "space 0; the first epoch runs from space 1); the finish is the last space. A blank "
                         "means the rulebook gives no row for that civilization."],
                  empty="the rulebook declares no civilizations")
    civs = sorted(ed.civilizations.values(), key=lambda c: (c.rank is None, c.rank or 0, c.name))
    for civ in civs:
        row = [number(civ.rank) if civ.rank is not None else cell(), cell(civ.name), cell(civ.block or "")]
        for t in tracks:
            r = civ.rows.get(t.id)
            row += [number(s) for s in r.starts] if r and len(r.starts) == len(t.epochs) - 1 else \
                [cell() for _ in t.epochs[1:]]
        for t in tracks:
            r = civ.rows.get(t.id)
            row.append(number(r.spaces if r.spaces is not None else t.spaces) if r else cell())
        table.rows.append(Row(row))
    return table


# --- commodities -----------------------------------------------------------------------------


def commodities_chart(ed: Edition, marks=None) -> Chart:
    items = list(ed.commodities.values())
    names = list(ed.commodities)
    items.sort(key=lambda c: (c.stack is None, c.stack or 0, -(c.value or 0), names.index(c.name)))
    has_block = any(c.block for c in items)
    top = max((c.count or 0 for c in items), default=0)
    cols = _mark_column(marks) + [Column("Commodity", 1.3), Column("Value", 0.45, numeric=True),
                                  Column("Count", 0.45, numeric=True)]
    if has_block:
        cols.append(Column("Block", 0.5))
    cols.append(Column("Stack", 0.55, numeric=True))
    cols += [Column(f"{n} card{'s' if n > 1 else ''}", 0.55, numeric=True) for n in range(1, top + 1)]
    table = Table("commodities", "Commodities and set values", cols, [], intro=[
        "A set of n identical cards is worth the value shown under n (up to the number of cards there are). "
        "Where the printed card shows another figure it follows in brackets."])
    errors = []
    for c in items:
        label = lines(Strong(c.name), *[("also called ", a) for a in c.aka], Quote(c.summary) if c.summary else None)
        label.value = c.name
        row = [label, number(c.value), number(c.count)]
        if has_block:
            row.append(cell(c.block or "\u2014"))
        row.append(number(c.stack) if c.stack is not None else cell("none"))
        for n in range(1, top + 1):
            if c.count is None or n > c.count or c.value is None or ed.set_value is None:
                row.append(cell())
                continue
            try:
                v = set_value(ed, n, c.value)
            except Exception as exc:  # an edition whose set_value reads names we cannot supply
                errors.append(f"{c.name}: {exc}")
                row.append(cell("?", numeric=True))
                continue
            v = int(v) if float(v).is_integer() else v
            printed = c.printed[n - 1] if c.printed and n <= len(c.printed) else None
            if printed is not None and printed != v:
                row.append(cell(str(v), Strong(f" (card {printed})"), numeric=True, value=v))
            else:
                row.append(number(v))
        table.rows.append(_row(marks, c.name, row))
    chart = Chart("commodities", "Commodities", [table])
    if ed.decks:
        decks = Table("decks", "Trade-card stacks", [Column("Stack", numeric=True), Column("Cards", numeric=True)],
                      [Row([number(d.stack), number(d.size)], head=True)
                       for d in sorted(ed.decks.values(), key=lambda d: d.stack)])
        chart.tables.append(decks)
    return chart


# --- house-rule summary --------------------------------------------------------------------


def house_chart(ed: Edition, base: Edition, diff: Diff) -> Chart:
    table = Table("house-summary", f"What {ed.name} changes", [
        Column("Change", 0.85), Column("Kind", 0.9), Column("Item", 1.6), Column("Field", 1.0),
        Column("In the base", 3.0), Column("In the house rule", 3.0)], [],
        empty="nothing: this house rule plays exactly as its base")
    for ch in diff.changes:
        fields = ch.fields or [("", "", "")]
        table.rows.append(Row([_mark(ch.status), cell(CATEGORY_TITLES[ch.category]), cell(Strong(ch.key)),
                               lines(*[f for f, _, _ in fields]), lines(*[b for _, b, _ in fields]),
                               lines(*[h for _, _, h in fields])], mark=ch.status))
    counts = {s: sum(1 for c in diff.changes if c.status == s) for s in ("added", "changed", "removed")}
    intro = [f"House rule {ed.name} against its base {base.name}: "
             f"{counts['added']} added, {counts['changed']} changed, {counts['removed']} removed. "
             "The other charts of this edition mark the same rows."]
    return Chart("house-summary", "House-rule summary", [table], intro=intro)


# --- all ----------------------------------------------------------------------------------


def turns_chart(ed: Edition, marks=None) -> Chart:
    """The sequence of play on one page, as the rulebook declares it (`turn { step ... }`)."""
    t = Table("turns", ed.turn_title or "Sequence of play",
              [Column("#", 0.3, numeric=True), Column("Step", 3), Column("When, and in which order", 4)], [],
              intro=["Each turn, in this order; a step with nothing to do is skipped."])
    for i, step in enumerate(ed.turn, 1):
        t.rows.append(Row([number(i), cell(Strong(step.name)), cell(step.when or "")], head=True))
    return Chart("turns", "Turn sequence", [t])


def glance_chart(ed: Edition, marks=None) -> Chart:
    """Calamities at a glance, for a cheat sheet: by stack and class, what each calamity does to
    its victims in a line (the modifiers are on the full calamities chart)."""
    brief = Table("calamities-brief", "What each calamity does",
                  [Column("Stack", 0.45, numeric=True), Column("Calamity", 1.6), Column("Class", 0.9),
                   Column("Effect", 6)], [],
                  intro=["By stack, before any advance changes it; the calamities chart lists the modifiers."])
    for n in calamity_order(ed):
        c = ed.calamities[n]
        text = " ".join(sentence(p) for p in (describe.effects(c.primary) or "no effect", describe.secondary(c)) if p)
        brief.rows.append(Row([number(c.stack), cell(Strong(c.name)), cell(CLASS_TEXT.get(c.klass, str(c.klass))),
                               cell(text)], head=True, mark=marks.get(n) if marks else None))
    return Chart("glance", "Calamities at a glance", [brief])


def has_content(ed: Edition, kind: str) -> bool:
    """Whether the edition declares anything this kind of chart shows."""
    if kind in ("calamities", "glance"):
        return bool(ed.calamities)
    if kind == "turns":
        return bool(ed.turn)
    if kind in ("advances", "credits", "explorer"):
        return bool(ed.advances)
    if kind == "epochs":
        return bool(ed.asts)
    if kind == "commodities":
        return bool(ed.commodities)
    return True


def nothing_chart(ed: Edition) -> Chart:
    return Chart("charts", "Charts", [], intro=[
        f"{ed.name} declares none of the items these charts show (advances, calamities, A.S.T. tracks, "
        "commodities); its compiled model is in model.json and charts/model.yaml."])


def build(ed: Edition, diff: Diff | None = None, only_content: bool = False) -> dict[str, Chart]:
    """Every chart by kind; with ONLY_CONTENT, just the kinds the edition has items for."""
    marks = (lambda cat: diff.marks(cat)) if diff is not None else (lambda cat: None)
    if only_content:
        full = build(ed, diff)
        return {k: c for k, c in full.items() if has_content(ed, k)}
    return {
        "turns": turns_chart(ed),
        "calamities": calamities_chart(ed, marks("calamities")),
        "advances": advances_chart(ed, marks("advances")),
        "credits": credits_chart(ed, marks("advances")),
        "explorer": explorer_chart(ed, marks("advances")),
        "epochs": epochs_chart(ed, marks("epochs")),
        "commodities": commodities_chart(ed, marks("commodities")),
    }
