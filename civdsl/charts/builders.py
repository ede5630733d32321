"""Every chart of one edition as format-neutral tables (see cells.py).

All words here are generated from structure: describe.py renders effects, modifiers,
conditions and abilities; the only rulebook strings shown are `summary` and `note` texts, set
apart as quotations.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import describe
from .. import vocabulary as vocab
from ..model import Edition
from ..phrases import sentence
from ..cardchecks import set_value
from . import derive
from .cells import (MARK_GLYPH, MARK_TEXT, Cell, Chart, Chip, Column, Link, Quote, Row, Sign, Strong, CellTable, cell,
                    chips_for, joined, lines, number)
from .diff import CATEGORY_TITLES, Diff

KINDS = ("turns", "calamities", "advances", "credits", "explorer", "epochs", "commodities")
CLASS_ORDER = ("minor", "major tradable", "major nontradable")
CLASS_TEXT = {"minor": "minor", "major tradable": "major, tradable", "major nontradable": "major, not tradable",
              None: "unclassified"}


def _status(marks, key: str) -> str | None:
    """KEY's change against the base ("added", "changed", "removed"), None when unchanged or no house rule."""
    return marks.get(key) if marks else None


def _mark_words(status: str) -> str:
    return f"{MARK_GLYPH[status]} {MARK_TEXT[status]}"


def _mark_column(marks) -> list[Column]:
    return [Column("vs base", 0.85)] if marks is not None else []


def _mark_cell(marks, status: str | None) -> list[Cell]:
    """The "vs base" cell of a row, where the chart has that column."""
    return [_mark(status)] if marks is not None else []


def _mark(status: str | None) -> Cell:
    """The "vs base" cell: glyph and word in print, the bare word in CSV."""
    if not status:
        return cell()
    return cell(Strong(_mark_words(status)), value=status)


def _mark_suffix(marks, key):
    """The change of KEY after its name, where the chart has no "vs base" column for it."""
    status = _status(marks, key)
    return Strong(f" ({_mark_words(status)})") if status else None


def _row(marks, key: str, cells: list[Cell], head: bool = True) -> Row:
    status = _status(marks, key)
    return Row(_mark_cell(marks, status) + cells, mark=status, head=head)


def _name_cell(item) -> Cell:
    """An item's name in bold, its other names and its rulebook summary; the bare name in CSV."""
    name = lines(Strong(item.name), *[("also called ", a) for a in item.aka],
                 Quote(item.summary) if item.summary else None)
    name.value = item.name
    return name


def _class_cell(c) -> Cell:
    return cell(CLASS_TEXT.get(c.klass, str(c.klass)))


def _number_or_blank(n) -> Cell:
    """A number, or an empty cell where the rulebook gives none (not the "?" of an unknown figure)."""
    return cell() if n is None else number(n)


@dataclass(frozen=True)
class _Field:
    """One column of an item table and the cell each item gives it; a column with HAS is shown only
    where some item has the value."""

    column: Column
    fill: Callable[[Any], Cell]
    has: Callable[[Any], bool] | None = None


def _shown(fields: list[_Field], items) -> list[_Field]:
    return [f for f in fields if f.has is None or any(f.has(i) for i in items)]


def _item_table(slug: str, title: str, intro: list[str], fields: list[_Field], items: dict, order: list[str],
                marks) -> CellTable:
    """A row per item in ORDER: the "vs base" column, then each field shown."""
    shown = _shown(fields, items.values())
    return CellTable(slug, title, _mark_column(marks) + [f.column for f in shown],
                 [_row(marks, key, [f.fill(items[key]) for f in shown]) for key in order], intro=intro)


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


def _keys_used(known: list, used: set) -> list:
    """The keys of KNOWN (in its order) that USED holds, then None if USED holds anything else."""
    keys = [k for k in known if k in used]
    if used - set(known):
        keys.append(None)
    return keys


# --- calamities -----------------------------------------------------------------------------


def stack_grid(ed: Edition, marks=None) -> CellTable:
    """Which calamity sits in each trade-card stack, by class."""
    classes = _keys_used(list(CLASS_ORDER), {c.klass for c in ed.calamities.values()})
    stacks = {c.stack for c in ed.calamities.values()}
    stacks = _keys_used(sorted(stacks - {None}), stacks)
    slots = _calamities_by_slot(ed)
    grid = CellTable(
        "calamity-stacks", "Calamities by stack and class",
        [Column("Stack", 0.4, numeric=True)] + [Column(CLASS_TEXT[k].capitalize(), 2) for k in classes],
        [], intro=["Which calamity sits in each trade-card stack; tradable calamities can be passed on in trade."])
    grid.rows = [_stack_row(s, classes, slots, marks) for s in stacks]
    return grid


def _stack_row(stack: int | None, classes: list, slots: dict, marks) -> Row:
    """One trade-card stack ("?" for calamities of no stack): its calamities of each class."""
    row = [number(stack) if stack is not None else cell("?")]
    row += [lines(*[(n, _mark_suffix(marks, n)) for n in slots.get((stack, k), [])]) for k in classes]
    return Row(row, head=True)


def _calamities_by_slot(ed: Edition) -> dict[tuple, list[str]]:
    """(stack, class) -> its calamities in chart order. A class outside CLASS_ORDER has no column of
    the grid: the "unclassified" one holds the calamities without a class."""
    slots: dict[tuple, list[str]] = {}
    for n in calamity_order(ed):
        c = ed.calamities[n]
        slots.setdefault((c.stack, c.klass), []).append(n)
    return slots


def calamities_chart(ed: Edition, marks=None) -> Chart:
    order = calamity_order(ed)
    grid = stack_grid(ed, marks)
    detail = CellTable(
        "calamities", "Calamities",
        _mark_column(marks) + [Column("Stack", 0.55, numeric=True), Column("Calamity", 1.9), Column("Class", 0.9),
                               Column("Beneficiary", 1.2), Column("Effect", 3.4), Column("Modifiers", 3.6)]
        + ([Column("Printed rule", 1.0)] if ed.citations else []),
        [], intro=["Effect: what the primary victim suffers, then the secondary victims and when the calamity "
                   "is cancelled. Modifiers: the condition, then what changes; the sign says whether it is "
                   "worse (+) or better (\u2212) for the victim, mixed (\u00b1), or a choice (\u21c4)."])
    for n in order:
        c = ed.calamities[n]
        detail.rows.append(_row(marks, n, [
            number(c.stack), _name_cell(c), _class_cell(c),
            cell(describe.beneficiary(c, ed)), cell(describe.calamity(c)), _modifiers_cell(c)]
            + ([_clauses_cell(ed, "calamity", c)] if ed.citations else [])))

    flat = CellTable("calamity-modifiers", "Calamity modifiers, one per line",
                 [Column("Calamity"), Column("Stack", numeric=True), Column("Role"), Column("Condition"),
                  Column("Advances"), Column("Direction"), Column("Change"), Column("Priority", numeric=True)], [])
    flat.listed = False
    flat.rows = [_modifier_row(ed.calamities[n], m) for n in order for m in ed.calamities[n].modifiers]
    return Chart("calamities", "Calamities", [grid, detail, flat] + ([options_table(ed)] if ed.options else [])
                 + _rulings_table(ed, "calamity-rulings", order))


def options_table(ed: Edition) -> CellTable:
    """The rule options: each reading the rulebook records, its default and how a question switches it."""
    table = CellTable("options", "Rule options",
                  [Column("Switch", 2.2), Column("Default", 0.7), Column("What it switches", 5.0),
                   Column("Settings", 2.4)], [],
                  intro=["Where the printed rules can be read two ways, the rulebook follows one reading and "
                         "declares the other as an option: switch it for one question with --option NAME=on "
                         "(or options: in a state file), or with the companion page's rule options."])
    for name, opt in ed.options.items():
        settings = [f"{k} {', '.join(v)}".replace("_", " ") + (f" ({c.name})" if c is not ed else "")
                    for c in (ed, *ed.calamities.values()) for k, v in c.amounts_when.get(name, {}).items()]
        if name in ed.vp_tiers_when:  # `vp tiers when OPTION`: the bands it reads, in the rulebook's words
            settings.append("vp tiers " + ", ".join(f"below {below}: {vp}" if below is not None else f"else: {vp}"
                                                    for below, vp in ed.vp_tiers_when[name][0]))
        # the switch is what the player types; the option's text is the rulebook's, quoted
        table.rows.append(Row([cell(Strong(f"--option {name}=on")), cell("on" if opt.on else "off"),
                               cell(Quote(opt.doc or "")), cell("; ".join(settings) or "\u2014")]))
    return table


def _rulings_table(ed: Edition, slug: str, order: list[str]) -> list[CellTable]:
    """The rulings about each item of the chart, under its name: the question, the answer the
    rulebook's rulings expect and where it comes from (`civdsl check` runs each one)."""
    from .. import rulings

    rows = [Row([cell(n), cell(s["question"]), cell(s["answer"]), cell(s["cited"])])
            for n in order for s in map(rulings.summary, rulings.rulings_of(ed, n))]
    if not rows:
        return []
    return [CellTable(slug, "Rulings", [Column("About", 1.2), Column("Question", 3.4), Column("Answer", 2.4),
                                    Column("Cited", 2.2)], rows,
                  intro=["Worked examples and answers the rulebook records; checking the rulebook runs each one "
                         "against these rules."])]


def _clauses_cell(ed: Edition, kind: str, item) -> Cell:
    """The printed clauses an item's statements cite (civdsl cover), one a line."""
    return lines(*[(Strong(c),) for c in ed.cited_clauses(kind, {item.name, *item.aka})])


def _modifiers_cell(c) -> Cell:
    """A calamity's modifiers, a line each with its sign."""
    if not c.modifiers:
        return cell("none")
    return lines(*[(Sign(derive.modifier_direction(m, c)), " ", describe.modifier(m)) for m in c.modifiers])


def _modifier_row(c, m) -> Row:
    return Row([cell(c.name), number(c.stack), cell(m.role), cell(describe.condition(m.condition)),
                cell(", ".join(derive.positive_advances(m))), cell(Sign(derive.modifier_direction(m, c))),
                cell("; ".join(describe.op(o) for o in m.ops)), number(m.priority)])


# --- advances -------------------------------------------------------------------------------


def advances_chart(ed: Edition, marks=None) -> Chart:
    inter = derive.interactions(ed)
    order = advance_order(ed)
    t = _item_table("advances", "Advances", [
        "Sorted by cost. Group credits (a column per group) count towards any advance of that group; "
        "specific credits towards "
        "the advance named. The last column is derived from the calamities' modifiers: + worse, "
        "\u2212 better, \u00b1 mixed, \u21c4 a choice for the holder."],
        _advance_fields(ed, chips_for(ed), inter) + [_Field(Column("Printed rule", 1.0),
                                                         lambda a: _clauses_cell(ed, "advance", a),
                                                         has=lambda a: bool(ed.cited_clauses("advance", a.name)))],
        ed.advances, order, marks)

    flat = CellTable("advance-calamities", "Calamities each advance changes, one per line",
                 [Column("Advance"), Column("Calamity"), Column("Direction"), Column("Change")], [])
    flat.listed = False
    flat.rows = [Row([cell(n), cell(i.calamity.name), cell(Sign(i.direction)), cell(i.text)])
                 for n in order for i in inter.get(n, [])]
    # the options that change an advance's victory points are listed beside the advances too
    options = [options_table(ed)] if ed.vp_tiers_when else []
    return Chart("advances", "Advances", [t, flat, *options, *_rulings_table(ed, "advance-rulings", order)])


def _advance_fields(ed: Edition, chips: dict, inter: dict) -> list[_Field]:
    """The advances table's columns in print order; the group credits get a column per colour, as
    the printed advance sheets give them."""
    return [
        _Field(Column("Advance", 2.4), _name_cell),
        _Field(Column("Cost", 0.55, numeric=True), lambda a: number(a.cost) if a.cost_known else cell("unknown")),
        _Field(Column("Groups", 1.2), lambda a: _group_chips(chips, a)),
        _Field(Column("VP", 0.35, numeric=True), lambda a: number(a.vp), has=lambda a: a.vp is not None),
        *[_group_credit_field(g) for g in chips.values()],
        _Field(Column("Specific credits", 1.5),
               lambda a: lines(*[(f"\u2192 {s.target} ", Strong(str(s.amount))) for s in a.specific])),
        _Field(Column("Abilities", 1.5), lambda a: lines(*[describe.ability(ab.kind, ab.args) for ab in a.abilities])),
        _Field(Column("Calamities it changes", 2.8), lambda a: lines(
            *[(Sign(i.direction), " ", Strong(i.calamity.name), ": ", i.text) for i in inter.get(a.name, [])])),
        _Field(Column("Requires", 0.9), lambda a: cell(", ".join(a.requires)), has=lambda a: bool(a.requires)),
        _Field(Column("Cards", 0.65, numeric=True), lambda a: _cards(ed, a),
               has=lambda a: a.supply is not None or a.supply_table is not None)]


def _cards(ed: Edition, a) -> Cell:
    """The cards of an advance in the box and, where the player count sets them, those in use."""
    if a.supply_table is None:
        return _number_or_blank(a.supply)
    return lines("" if a.supply is None else str(a.supply), f"in use: {describe.cards_in_use(ed, a.supply_table)}")


def _group_credit_field(g: Chip) -> _Field:
    return _Field(Column(g.name, 0.42, numeric=True, vertical=True, chip=g), lambda a: _group_credit(a, g, cell()))


def _group_chips(chips: dict, a) -> Cell:
    return joined([chips[g] for g in a.groups if g in chips])


def _group_credit(held, g: Chip, blank: Cell) -> Cell:
    """What a held advance credits towards any advance of group G; BLANK where nothing."""
    amount = held.credits.get(g.id)
    return number(amount) if amount else blank


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
    policy = ed.credit_policy or "best_group"
    declared = _policy_text(ed, policy)
    if len(order) > MATRIX_LIMIT:
        tables = _credits_factored(ed, order, chips, policy, declared, marks)
    else:
        matrix = _CreditsMatrix(order, list(chips.values()), _matrix_rows(ed, order, chips, policy, marks))
        tables = matrix.tables(
            [declared + ". Rows: an advance you hold. Columns: a group, then an advance you buy. A cell is what "
             "that one held card credits; bold cells include a specific credit; \u2014 is the card itself."])
    return Chart("credits", "Credits", tables + [_chain_table(ed)])


def _policy_text(ed: Edition, policy: str) -> str:
    """The credit policy the cells follow, in words."""
    if not ed.credit_policy:
        declared = "No credit policy is declared; the cells read it as best group"
    else:
        declared = f"Credit policy {policy.replace('_', ' ')}: {vocab.CREDIT_POLICIES.get(policy, '')}"
    if policy == "best_group":
        declared += "; group credits of several held cards add up per group first"
    return declared


def _matrix_rows(ed: Edition, order: list[str], chips: dict, policy: str, marks) -> list[tuple[list[Cell], object]]:
    """Every cell of the credits matrix, worked out once: the full matrix (for CSV) and its printed
    parts share these rows, and the cells that say nothing are one shared object, so that the chart's
    time and memory follow the cells that say something (the matrix grows with the square of the
    number of advances; building it twice, and an object per empty cell, made it dominate large
    builds)."""
    empty = cell(numeric=True)
    itself = cell("\u2014", numeric=True, value="")
    rows = []
    for hn in order:
        held = ed.advances[hn]
        row = [cell(Strong(hn), _mark_suffix(marks, hn))] + [_group_credit(held, g, empty) for g in chips.values()]
        row += [itself if tname == hn else _purchase_cell(ed, held, tname, policy, empty) for tname in order]
        rows.append((row, _status(marks, hn)))
    return rows


def _purchase_cell(ed: Edition, held, target: str, policy: str, empty: Cell) -> Cell:
    """What one held card credits towards buying TARGET; EMPTY where nothing."""
    cc = derive.card_credit(ed, held, ed.advances[target])
    return _credit_cell(cc, policy) if cc.amount else empty


@dataclass
class _CreditsMatrix:
    """The credits matrix's rows, of which each table is a range of columns."""

    order: list[str]
    groups: list[Chip]
    rows: list[tuple[list[Cell], object]]

    def table(self, slug: str, title: str, start: int, stop: int, with_groups: bool) -> CellTable:
        """The columns of advances order[start:stop] (and the group columns if asked)."""
        cols = [Column("Held \u2193, buying \u2192", 2.6)]
        width = len(self.groups) if with_groups else 0
        cols += [Column(g.name, 0.7, numeric=True, vertical=True, chip=g) for g in self.groups[:width]]
        cols += [Column(tname, 0.7, numeric=True, vertical=True) for tname in self.order[start:stop]]
        first = 1 + len(self.groups)
        rows = [Row(row[:1 + width] + row[first + start:first + stop], mark=mark, head=True) for row, mark in self.rows]
        return CellTable(slug, title, cols, rows, matrix=True)

    def tables(self, intro: list[str]) -> list[CellTable]:
        """The whole matrix (CSV only), then its printed parts of MATRIX_CHUNK advances each."""
        whole = self.table("credits", "Credits matrix", 0, len(self.order), True)
        whole.listed = False
        starts = list(range(0, len(self.order), MATRIX_CHUNK)) or [0]
        parts = [self._part(i, start, len(starts)) for i, start in enumerate(starts)]
        parts[0].intro = intro
        return [whole] + parts

    def _part(self, i: int, start: int, count: int) -> CellTable:
        title = "Credits matrix" if count == 1 else f"Credits matrix, part {i + 1} of {count}"
        t = self.table(f"credits-{i + 1}", title, start, start + MATRIX_CHUNK, i == 0)
        t.csv = False
        t.new_page = i > 0
        return t


def _credit_cell(cc: derive.CardCredit, policy: str) -> Cell:
    """One held card's credit towards one purchase: bold when it includes a specific credit."""
    if cc.special and (policy != "per_card" or cc.special >= cc.group_part):
        return cell(Strong(str(cc.amount)), numeric=True, value=cc.amount)
    return number(cc.amount)


def _credits_factored(ed: Edition, order: list[str], chips, policy: str, declared: str, marks) -> list[CellTable]:
    """The credits matrix of a large edition as the two tables its cells are made of: each held
    advance's group credits (with its own groups, to look up a target's), and each specific
    credit with the cell it makes. Every cell of the matrix follows from these."""
    groups = list(chips.values())
    rule = ("plus its specific credit to that advance" if policy != "per_card"
            else "or its specific credit to that advance when that is larger")
    by_group = CellTable("credits", "Credits by group",
                     [Column("Held \u2193, buying an advance of \u2192", 2.6), Column("Its groups", 1.2)]
                     + [Column(g.name, 0.7, numeric=True, vertical=True, chip=g) for g in groups], [], matrix=True,
                     intro=[f"{declared}. This edition has {len(order)} advances: the advance-by-advance matrix "
                            f"(written for at most {MATRIX_LIMIT}) is given as the two tables it is made of. "
                            "One held card credits towards an advance you buy its credit to the better of that "
                            f"advance's groups (a column here; the advance's own row names its groups), {rule} "
                            "(the next table, where the two are added up)."])
    by_group.rows = [_group_credits_row(ed.advances[hn], chips, marks) for hn in order]
    specific = CellTable("credits-specific", "Specific credits",
                     [Column("Held", 2.6), Column("Buying", 2.6), Column("Specific credit", 0.9, numeric=True),
                      Column("The held card credits", 1.1, numeric=True)], [],
                     intro=["Each specific credit, by the held advance's cost, and what that one card credits "
                            "towards the advance it names (bold where the specific credit counts)."])
    specific.rows = [_specific_row(ed, hn, target, policy, marks) for hn in order
                     for target in _credited_advances(ed, hn)]
    return [by_group, specific]


def _group_credits_row(held, chips: dict, marks) -> Row:
    """A held advance, its own groups and its credit to each group."""
    row = [cell(Strong(held.name), _mark_suffix(marks, held.name)), _group_chips(chips, held)]
    row += [_group_credit(held, g, cell(numeric=True)) for g in chips.values()]
    return Row(row, mark=_status(marks, held.name), head=True)


def _credited_advances(ed: Edition, hn: str) -> list[str]:
    """The other declared advances HN names in a specific credit, once each."""
    return [t for t in dict.fromkeys(s.target for s in ed.advances[hn].specific) if t != hn and t in ed.advances]


def _specific_row(ed: Edition, hn: str, target: str, policy: str, marks) -> Row:
    cc = derive.card_credit(ed, ed.advances[hn], ed.advances[target])
    return Row([cell(Strong(hn), _mark_suffix(marks, hn)), cell(target), number(cc.special), _credit_cell(cc, policy)],
               mark=_status(marks, hn), head=True)


def _chain_table(ed: Edition) -> CellTable:
    chain_table = CellTable("credit-chains", "Specific-credit chains",
                        [Column("Chain", 6), Column("Credits along it", 1.2)], [],
                        intro=["Each chain follows specific credits from an advance that none credits, "
                               "to one that credits no other; figures are costs and credits."])
    for ch in derive.chains(ed):
        amounts = [amt for _, amt in ch[:-1]]
        chain_table.rows.append(Row([cell(*_chain_parts(ed, ch)), cell(_chain_total(amounts), value=sum(amounts))]))
    return chain_table


def _chain_parts(ed: Edition, ch: list) -> list:
    """A chain's advances with their costs, and the credit passed along each arrow."""
    parts: list = []
    for i, (name, amt) in enumerate(ch):
        a = ed.advances[name]
        parts += [Strong(name), f" ({a.cost if a.cost is not None else '?'})"]
        if i < len(ch) - 1:
            parts.append(f" \u2192{amt}\u2192 ")
    return parts


def _chain_total(amounts: list[int]) -> str:
    """The credits along a chain in words, not arithmetic: "45 (20 and 25)"."""
    if len(amounts) < 2:
        return str(sum(amounts))
    return f"{sum(amounts)} ({', '.join(str(x) for x in amounts[:-1])} and {amounts[-1]})"


# --- strategy explorer ------------------------------------------------------------------------


def explorer_chart(ed: Edition, marks=None) -> Chart:
    chips = chips_for(ed)
    t = CellTable("explorer-bands", "Cost bands of the strategy explorer",
              [Column("Band", 1.2), Column("Advances", 6)], [],
              intro=["The explorer draws every advance in its cost band, left to right, with an arrow for "
                     "each specific credit; a node shows the colour and symbol of each of its groups."])
    bands = derive.bands(ed)
    t.rows = [Row([cell(Strong(b.label)), cell(", ".join(b.members))], head=True) for b in bands]
    # both links always: the page must not depend on whether Graphviz was there to draw the SVG
    links = [Link("explorer.svg (drawn where Graphviz is installed)", "explorer.svg"),
             Link("explorer.dot (Graphviz source)", "explorer.dot")]
    from .figure import explorer_svg

    return Chart("explorer", "Strategy explorer", [t, _explorer_edges(ed, bands)], links=links, figure=explorer_svg(ed, marks),
                 intro=[f"Groups: {', '.join(f'{c.symbol} {c.name}' for c in chips.values())}."] if chips else [])


def _explorer_edges(ed: Edition, bands: list) -> CellTable:
    """The explorer's arrows, one per specific credit, with the bands they join (CSV only)."""
    edges = CellTable("explorer-edges", "Specific credits",
                  [Column("From"), Column("To"), Column("Credit", numeric=True), Column("From band"),
                   Column("To band")], [])
    edges.listed = False
    band_of = {n: b.key for b in bands for n in b.members}
    edges.rows = [Row([cell(n), cell(s.target), number(s.amount), cell(band_of.get(n, "")),
                       cell(band_of.get(s.target, ""))]) for n in advance_order(ed) for s in ed.advances[n].specific]
    return edges


# --- epochs --------------------------------------------------------------------------------


def epochs_chart(ed: Edition, marks=None) -> Chart:
    tracks = list(ed.asts.values())
    depth = max((len(t.epochs) for t in tracks), default=0)
    table = CellTable("epochs", "Epochs side by side",
                  _mark_column(marks) + [Column("Step", 0.4, numeric=True)] + [Column(t.name, 4) for t in tracks],
                  [], intro=["Each column is one A.S.T. track; a marker enters an epoch when every requirement "
                             "listed for it holds."] + _counted_by_advances(ed))
    table.rows = [_epoch_row(tracks, i, marks) for i in range(depth)]
    table.rows += _backward_rows(tracks, marks)
    # the rulebook's notes on the tracks, then on the civilizations' rows
    notes = [(x.name, n) for x in [*tracks, *ed.civilizations.values()] for n in x.notes]
    return Chart("epochs", "Epochs (A.S.T.)", [table, _civilization_rows(ed, tracks)], notes=notes)


def _counted_by_advances(ed: Edition) -> list[str]:
    """What held advances add to the facts the requirements count (vocabulary.AST_COUNTED_FACTS):
    "Wonder of the World adds 1 to the cities the A.S.T. requirements count."."""
    kinds = set(vocab.AST_COUNTED_FACTS.values())
    return [sentence(f"{a.name} {describe.ability(ab.kind, ab.args)}") for a in ed.advances.values()
            for ab in a.abilities if ab.kind in kinds]


def _epoch_key(t, e) -> str:
    """How a house rule's diff names an epoch of a track."""
    return f"{t.name} / {e.name}"


def _epoch_row(tracks: list, i: int, marks) -> Row:
    """Step I + 1 of every track side by side, marked with the first change among them."""
    changes = (_status(marks, _epoch_key(t, t.epochs[i])) for t in tracks if i < len(t.epochs))
    status = next(filter(None, changes), None)
    row = [number(i + 1)] + [_epoch_cell(t, i, marks) for t in tracks]
    return Row(_mark_cell(marks, status) + row, mark=status, head=True)


def _epoch_cell(t, i: int, marks) -> Cell:
    """Epoch I of track T, its name and each requirement for entering it; blank past its last."""
    if i >= len(t.epochs):
        return cell()
    e = t.epochs[i]
    reqs = [("\u2022 ", describe.condition(r.expr)) for r in e.requirements] or ["no requirement"]
    return lines((Strong(e.name), _mark_suffix(marks, _epoch_key(t, e))), *reqs)


def _backward_rows(tracks: list, marks) -> list[Row]:
    """The row saying when each track's marker moves back, where any track has such a rule."""
    if not any(t.backward for t in tracks):
        return []
    return [Row(_mark_cell(marks, None) + [cell("back")] + [_backward_cell(t) for t in tracks], head=True)]


def _backward_cell(t) -> Cell:
    if not t.backward:
        return cell("never moves back")
    return lines(*[("moves back a step with ", describe.condition(b)) for b, _ in t.backward])


def _civilization_rows(ed: Edition, tracks: list) -> CellTable:
    """Each civilization's own row: the space on which each epoch after the first begins."""
    cols = [Column("Rank", 0.4, numeric=True), Column("Civilization", 1.4), Column("Block", 0.6)]
    cols += [Column(f"{t.name}: {e.name}", 0.6, numeric=True) for t in tracks for e in t.epochs[1:]]
    cols += [Column(f"{t.name}: finish", 0.6, numeric=True) for t in tracks]
    table = CellTable("epoch-rows", "Rows by civilization", cols, [],
                  intro=["The first space of each epoch on each civilization's own row (the start arrow is "
                         "space 0; the first epoch runs from space 1); the finish is the last space. A blank "
                         "means the rulebook gives no row for that civilization."],
                  empty="the rulebook declares no civilizations")
    civs = sorted(ed.civilizations.values(), key=lambda c: (c.rank is None, c.rank or 0, c.name))
    table.rows = [_civilization_row(civ, tracks) for civ in civs]
    return table


def _civilization_row(civ, tracks: list) -> Row:
    row = [_number_or_blank(civ.rank), cell(civ.name), cell(civ.block or "")]
    row += [c for t in tracks for c in _epoch_starts(civ.rows.get(t.id), t)]
    return Row(row + [_finish_cell(civ.rows.get(t.id), t) for t in tracks])


def _epoch_starts(r, t) -> list[Cell]:
    """The spaces of civilization row R on which the epochs of track T after the first begin;
    blanks unless R gives one for each."""
    if r and len(r.starts) == len(t.epochs) - 1:
        return [number(s) for s in r.starts]
    return [cell() for _ in t.epochs[1:]]


def _finish_cell(r, t) -> Cell:
    """The last space of civilization row R (the track's own length where R gives none)."""
    if not r:
        return cell()
    return number(r.spaces if r.spaces is not None else t.spaces)


# --- commodities -----------------------------------------------------------------------------


def commodities_chart(ed: Edition, marks=None) -> Chart:
    items = ed.commodities
    # by stack, then dearest first; ties keep rulebook order (the sort is stable)
    order = sorted(items, key=lambda n: (items[n].stack is None, items[n].stack or 0, -(items[n].value or 0)))
    top = max((c.count or 0 for c in items.values()), default=0)
    table = _item_table("commodities", "Commodities and set values", [
        "A set of n identical cards is worth the value shown under n (up to the number of cards there are). "
        "Where the printed card shows another figure it follows in brackets."],
        _commodity_fields(ed, top), items, order, marks)
    return Chart("commodities", "Commodities", [table] + _decks_tables(ed))


def _decks_tables(ed: Edition) -> list[CellTable]:
    """The size of each trade-card stack, where the rulebook declares them."""
    if not ed.decks:
        return []
    return [CellTable("decks", "Trade-card stacks", [Column("Stack", numeric=True), Column("Cards", numeric=True)],
                  [Row([number(d.stack), number(d.size)], head=True)
                   for d in sorted(ed.decks.values(), key=lambda d: d.stack)])]


def _commodity_fields(ed: Edition, top: int) -> list[_Field]:
    """The commodities table's columns: the card, then what a set of 1 to TOP cards is worth."""
    return [
        _Field(Column("Commodity", 1.3), _name_cell),
        _Field(Column("Value", 0.45, numeric=True), lambda c: number(c.value)),
        _Field(Column("Count", 0.45, numeric=True), lambda c: number(c.count)),
        _Field(Column("Block", 0.5), lambda c: cell(c.block or "\u2014"), has=lambda c: bool(c.block)),
        _Field(Column("Stack", 0.55, numeric=True), lambda c: number(c.stack) if c.stack is not None else cell("none")),
        *[_set_field(ed, n) for n in range(1, top + 1)]]


def _set_field(ed: Edition, n: int) -> _Field:
    return _Field(Column(f"{n} card{'s' if n > 1 else ''}", 0.55, numeric=True), lambda c: _set_value_cell(ed, c, n))


def _set_value_cell(ed: Edition, c, n: int) -> Cell:
    """What a set of N cards of commodity C is worth, with the printed card's figure where it differs;
    blank where there are fewer cards or no value to work from."""
    if c.count is None or n > c.count or c.value is None or ed.set_value is None:
        return cell()
    try:
        v = set_value(ed, n, c.value)
    except Exception:  # an edition whose set_value reads names we cannot supply
        return cell("?", numeric=True)
    return _worth_cell(c, n, int(v) if float(v).is_integer() else v)


def _worth_cell(c, n: int, v) -> Cell:
    """The worth V of a set of N cards of C, with the printed card's figure in brackets where that differs."""
    printed = c.printed[n - 1] if n <= len(c.printed or ()) else None
    if printed is not None and printed != v:
        return cell(str(v), Strong(f" (card {printed})"), numeric=True, value=v)
    return number(v)


# --- house-rule summary --------------------------------------------------------------------


def house_chart(ed: Edition, base: Edition, diff: Diff) -> Chart:
    table = CellTable("house-summary", f"What {ed.name} changes", [
        Column("Change", 0.85), Column("Kind", 0.9), Column("Item", 1.6), Column("Field", 1.0),
        Column("In the base", 3.0), Column("In the house rule", 3.0)], [],
        empty="nothing: this house rule plays exactly as its base")
    for ch in diff.changes:
        # the field, its base value and its house-rule value: a column each, a line per field
        fields = zip(*(ch.fields or [("", "", "")]))
        table.rows.append(Row([_mark(ch.status), cell(CATEGORY_TITLES[ch.category]), cell(Strong(ch.key)),
                               *[lines(*column) for column in fields]], mark=ch.status))
    counts = Counter(c.status for c in diff.changes)
    intro = [f"House rule {ed.name} against its base {base.name}: "
             f"{counts['added']} added, {counts['changed']} changed, {counts['removed']} removed. "
             "The other charts of this edition mark the same rows."]
    return Chart("house-summary", "House-rule summary", [table], intro=intro)


# --- all ----------------------------------------------------------------------------------


def turns_chart(ed: Edition, marks=None) -> Chart:
    """The sequence of play on one page, as the rulebook declares it (`turn { step ... }`)."""
    t = CellTable("turns", ed.turn_title or "Sequence of play",
              [Column("#", 0.3, numeric=True), Column("Step", 3), Column("When, and in which order", 4)], [],
              intro=["Each turn, in this order; a step with nothing to do is skipped."])
    for i, step in enumerate(ed.turn, 1):
        t.rows.append(Row([number(i), cell(Strong(step.name)), cell(step.when or "")], head=True))
    return Chart("turns", "Turn sequence", [t])


def glance_chart(ed: Edition, marks=None) -> Chart:
    """Calamities at a glance, for a cheat sheet: by stack and class, what each calamity does to
    its victims in a line (the modifiers are on the full calamities chart)."""
    brief = CellTable("calamities-brief", "What each calamity does",
                  [Column("Stack", 0.45, numeric=True), Column("Calamity", 1.6), Column("Class", 0.9),
                   Column("Effect", 6)], [],
                  intro=["By stack, before any advance changes it; the calamities chart lists the modifiers."])
    for n in calamity_order(ed):
        c = ed.calamities[n]
        text = " ".join(sentence(p) for p in (describe.effects(c.primary) or "no effect", describe.secondary(c)) if p)
        brief.rows.append(Row([number(c.stack), cell(Strong(c.name)), _class_cell(c), cell(text)], head=True,
                              mark=_status(marks, n)))
    return Chart("glance", "Calamities at a glance", [brief])


# The edition's collection each kind of chart shows; a kind not named here always has content.
CONTENT = {"calamities": "calamities", "glance": "calamities", "turns": "turn", "advances": "advances",
           "credits": "advances", "explorer": "advances", "epochs": "asts", "commodities": "commodities"}


def has_content(ed: Edition, kind: str) -> bool:
    """Whether the edition declares anything this kind of chart shows."""
    return kind not in CONTENT or bool(getattr(ed, CONTENT[kind]))


def nothing_chart(ed: Edition) -> Chart:
    return Chart("charts", "Charts", [], intro=[
        f"{ed.name} declares none of the items these charts show (advances, calamities, A.S.T. tracks, "
        "commodities); its compiled model is in model.json and charts/model.yaml."])


# Each kind of chart (in KINDS order) and the category of the house-rule diff that marks its rows.
CHARTS = {"turns": (turns_chart, None), "calamities": (calamities_chart, "calamities"),
          "advances": (advances_chart, "advances"), "credits": (credits_chart, "advances"),
          "explorer": (explorer_chart, "advances"), "epochs": (epochs_chart, "epochs"),
          "commodities": (commodities_chart, "commodities")}


def build(ed: Edition, diff: Diff | None = None, only_content: bool = False) -> dict[str, Chart]:
    """Every chart by kind; with ONLY_CONTENT, just the kinds the edition has items for."""
    kinds = [k for k in KINDS if not only_content or has_content(ed, k)]
    return {k: CHARTS[k][0](ed, marks_for(diff, CHARTS[k][1])) for k in kinds}


def marks_for(diff: Diff | None, category: str | None) -> dict[str, str] | None:
    """The rows of CATEGORY a house rule changes; None for an edition that is no house rule."""
    return diff.marks(category) if diff is not None and category else None


def impact_chart(imp, title_a: str) -> Chart:
    """A house rule's impact (impact.py) as a chart, for the printable page and the Markdown and
    CSV files."""
    from ..impact import (EPOCH_SITUATIONS, EXHAUSTIVE, PRICE_HELD_SETS, SAMPLE, change_text, item_title,
                          worst_text)

    rows = [Row([cell(item_title(i)), cell(i.measure), number(i.situations), number(i.changed), number(i.incomplete),
                 cell(change_text(i)), cell(worst_text(i)), cell(", ".join(i.lines_a)), cell(", ".join(i.lines_b))])
            for i in imp.changed()]
    same = sum(1 for i in imp.items if i.same_rules)
    table = CellTable("impact", "What the house rule changes for players",
                  [Column("Item", 1.4), Column("Compared", 1.1), Column("Situations", 0.6, numeric=True),
                   Column("Changed", 0.6, numeric=True), Column("Incomplete", 0.6, numeric=True),
                   Column("By how much (over the situations that change)", 2.2), Column("Most changed", 2.6),
                   Column(f"Rules in {title_a}", 1.2), Column("Rules here", 1.2)], rows,
                  intro=[f"Every calamity and role, every advance's price and every A.S.T. track resolved in both "
                         f"rulebooks: for a calamity, every combination of the advances that modify it and a grid "
                         f"over the facts its rules read (every situation up to {EXHAUSTIVE}, else a sample of "
                         f"{SAMPLE}, seed {imp.seed}); for a price, the sets of advances that credit it, bought alone "
                         f"and with each other advance of its group (every situation up to {EXHAUSTIVE}, else "
                         f"{PRICE_HELD_SETS} sets, each bought alone and with one such advance drawn at random); for "
                         f"a track, the advances held and the facts its epochs read (every situation up to "
                         f"{EXHAUSTIVE}, else {EPOCH_SITUATIONS} drawn at random). A situation either rulebook "
                         f"refuses as a state (an A.S.T. position past the finish, say) is left out. Incomplete answers are counted apart, never compared.",
                         f"{len(imp.items) - len(rows)} items do not change: {same} have the same rules in both "
                         f"and were not resolved."],
                  empty="no situation changes")
    return Chart("impact", "Impact", [table])
