"""Round rules, the printable reference (a chart of `civdsl chart` for editions that declare
round rules): the round's phases, tables, thresholds, dice pools, tracks, event tables, the
deck and the readings, as Markdown written for a player at the table.

Nothing here prints code: every stat, flag, choice, track, pool and table is called by the name
the rulebook declares for it, constants by their value, and formulas are said with words and
the signs of arithmetic ("If food is below population × 4: +10 civil unrest"). Each statement
type has its `visit_<Node>` renderer; every piece of rulebook text goes through the one
Markdown escaping (civdsl/escape.py).
"""

from __future__ import annotations

from ..escape import markdown as md
from ..unknown import number
from ..syntax import BinOp, Bool, Call, Name, Neg, NodeVisitor, Not, Num, Str, Unknown
from .model import rules
from .syntax import (AddStmt, DiscardStmt, DrawStmt, IfStmt, InsteadStmt, LetStmt, MoveStmt, NoteStmt, ResetStmt,
                     RollStmt, RuleStmt, SetStmt, ShuffleStmt, StatementVisitor)

# how tightly each operator binds, for parentheses in words
_PREC = {"or": 1, "and": 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, "+": 5, "-": 5, "*": 6, "/": 6,
         "//": 6, "%": 6}
_SAID = {"or": "or", "and": "and", "==": "is", "!=": "is not", "<": "is below", "<=": "is at most",
         ">": "is above", ">=": "is at least", "+": "plus", "-": "minus", "*": "\u00d7", "/": "\u00f7",
         "//": "\u00f7", "%": "modulo"}
DASH = "\u2014"


def _lower(name: str) -> str:
    """A declared name inside a sentence: "Civil Unrest" -> "civil unrest" (acronyms kept)."""
    return " ".join(w if (len(w) > 1 and w.isupper()) else w[:1].lower() + w[1:] for w in name.split(" "))


def _short(name: str) -> str:
    """A threshold's name up to its colon: "30+ unrest: lose 1 state action" -> "30+ unrest"."""
    return name.split(":", 1)[0].strip()


# functions said in words: of the cards in hand (`which`: the colour asked for, if any), of two
# numbers, and of one (with how tightly the words bind their argument, for parentheses)
_HAND_WORDS = {"hand_value": "the value of the {which}cards in hand", "hand_cards": "the {which}cards in hand",
               "hand_limit": "the hand limit"}
_OF_TWO = {"min": "the smaller of {} and {}", "max": "the larger of {} and {}"}
_OF_ONE = {"floor": ("the whole part of {}", 7), "ceil": ("{} rounded up", 7), "sqrt": ("the square root of {}", 7),
           "abs": ("the size of {}", 0)}


class Words(NodeVisitor):
    """An edition's round expressions in words: `expr(e, outer)`, with one `visit_<Node>` per
    expression node; `outer` is how tightly the operator around it binds (for parentheses)."""

    def __init__(self, ed):
        self.ed = ed
        self.rules = rules(ed)
        self.lets: set[str] = set()

    expr = NodeVisitor.visit

    def name(self, n: str) -> str:
        ed = self.ed
        if n in self.rules.stats:
            return _lower(self.rules.stats[n].name)
        for named in (self.rules.flags, self.rules.thresholds, self.rules.choices):
            if n in named:
                return _lower(_short(named[n].name))
        if n in self.rules.tracks:
            return f"the {_lower(self.rules.tracks[n].name)}"
        if n in ed.consts:
            c = ed.consts[n]
            return number(c.value) if c.value is not None else self.expr(c.expr)
        if n in ed.options:
            return _lower(ed.options[n].doc or n.replace("_", " "))
        return n.replace("_", " ")

    def visit_Num(self, e: Num, outer: int = 0) -> str:
        return str(e.value)

    def visit_Bool(self, e: Bool, outer: int = 0) -> str:
        return "yes" if e.value else "no"

    def visit_Str(self, e: Str, outer: int = 0) -> str:
        return f"\u201c{e.value}\u201d"

    def visit_Name(self, e: Name, outer: int = 0) -> str:
        return self.name(e.dotted)

    def visit_Neg(self, e: Neg, outer: int = 0) -> str:
        return f"minus {self.expr(e.operand, 7)}"

    def visit_Not(self, e: Not, outer: int = 0) -> str:
        return f"not {self.expr(e.operand, 3)}"

    def visit_BinOp(self, e: BinOp, outer: int = 0) -> str:
        p = _PREC.get(e.op, 5)
        text = f"{self.expr(e.left, p)} {_SAID.get(e.op, e.op)} {self.expr(e.right, p + 1)}"
        if e.op == "//":
            text += ", rounded down"
        return f"({text})" if p < outer or (e.op == "//" and outer > 0) else text

    def visit_Unknown(self, e: Unknown, outer: int = 0) -> str:
        return "?"  # no words for `unknown` or `where`, which round rules do not use

    visit_Where = visit_Unknown

    def visit_Call(self, e: Call, outer: int = 0) -> str:
        args = [self.expr(a) for a in e.args]
        if e.name in _HAND_WORDS:
            colour = e.kwargs.get("color")
            return _HAND_WORDS[e.name].format(which=f"{colour.dotted} " if isinstance(colour, Name) else "")
        if e.name in _OF_TWO and len(args) == 2:
            return _OF_TWO[e.name].format(*args)
        if e.name in _OF_ONE and args:
            words, binding = _OF_ONE[e.name]
            return words.format(self.expr(e.args[0], binding))
        if e.name in self.ed.tables:
            t = self.ed.tables[e.name]
            label = (t.doc or e.name.replace("_", " ")).split(" (")[0]
            return f"{label} (table) for {', '.join(args)}"
        return f"{e.name.replace('_', ' ')} of {', '.join(args)}"


class _Statements(StatementVisitor):
    """Statements as Markdown list lines in words; each statement type has its `visit_<Node>`."""

    def __init__(self, out: list[str], words: Words):
        self.out = out
        self.w = words

    def block(self, stmts: list, indent: str) -> None:
        for s in stmts:
            self.visit(s, indent)

    def line(self, indent: str, text: str) -> None:
        self.out.append(f"{indent}- {md(text[:1].upper() + text[1:])}")

    def one_line(self, s) -> str | None:
        """A simple statement as a clause (for "If ...: clause"), else None."""
        inner: list[str] = []
        _Statements(inner, self.w).visit(s, "")
        if len(inner) == 1 and inner[0].startswith("- "):
            text = inner[0][2:]
            return text if text[:2] == "**" or text[1:2].isupper() else text[:1].lower() + text[1:]
        return None

    def visit_NoteStmt(self, s: NoteStmt, indent: str) -> None:
        self.out.append(f"{indent}- *Reading:* {md(s.text)}")

    def visit_RuleStmt(self, s: RuleStmt, indent: str) -> None:
        self.out.append(f"{indent}- **{md(s.text)}**")
        self.block(s.body, indent + "  ")

    def visit_IfStmt(self, s: IfStmt, indent: str, word: str = "if") -> None:
        cond = self.w.expr(s.expr)
        head = f"{word} {cond}"
        otherwise = getattr(s, "otherwise", None)
        if len(s.body) == 1 and not otherwise and (clause := self.one_line(s.body[0])) is not None:
            self.out.append(f"{indent}- {md(head[:1].upper() + head[1:])}: {clause}")
            return
        self.line(indent, head + ":")
        self.block(s.body, indent + "  ")
        if otherwise:
            self.line(indent, "otherwise:")
            self.block(otherwise, indent + "  ")

    def visit_InsteadStmt(self, s: InsteadStmt, indent: str) -> None:
        self.visit_IfStmt(s, indent, word="instead, if")

    def visit_SetStmt(self, s: SetStmt, indent: str) -> None:
        if s.target in self.w.rules.flags and isinstance(s.expr, Bool):
            flag = _lower(_short(self.w.rules.flags[s.target].name))
            self.line(indent, f"now: {flag}" if s.expr.value else f"no longer: {flag}")
            return
        self.line(indent, f"{self.w.name(s.target)} becomes {self.w.expr(s.expr)}")

    def visit_AddStmt(self, s: AddStmt, indent: str) -> None:
        target = self.w.name(s.target)
        e = s.expr
        if isinstance(e, Num):
            sign = "+" if e.value >= 0 else "\u2212"
            self.line(indent, f"{sign}{abs(e.value)} {target}")
        elif isinstance(e, Neg):
            self.line(indent, f"{target} falls by {self.w.expr(e.operand)}")
        else:
            self.line(indent, f"{target} rises by {self.w.expr(e)}")

    def visit_LetStmt(self, s: LetStmt, indent: str) -> None:
        self.w.lets.add(s.target)
        self.line(indent, f"\u201c{s.target.replace('_', ' ')}\u201d is {self.w.expr(s.expr)}")

    def visit_MoveStmt(self, s: MoveStmt, indent: str) -> None:
        track = self.w.name(s.target)
        e = s.expr
        if isinstance(e, Num):
            steps = f"{abs(e.value)} step{'s' if abs(e.value) != 1 else ''}"
            self.line(indent, f"move {track} {steps} {'forward' if e.value >= 0 else 'back'}")
        elif isinstance(e, Neg):
            self.line(indent, f"move {track} back by {self.w.expr(e.operand)}")
        else:
            self.line(indent, f"move {track} forward by {self.w.expr(e)}")

    def visit_ResetStmt(self, s: ResetStmt, indent: str) -> None:
        track = self.w.rules.tracks.get(s.target)
        start = f" (position {track.start})" if track is not None else ""
        self.line(indent, f"put {self.w.name(s.target)} back to its start{start}")

    def visit_RollStmt(self, s: RollStmt, indent: str) -> None:
        if s.source in self.w.rules.event_tables:
            what = f"roll on the table {self.w.rules.event_tables[s.source].name}"
        elif s.source in self.w.rules.pools:
            what = f"roll the {_lower(self.w.rules.pools[s.source].name)}"
        else:
            what = f"roll {s.source.replace('_', ' ')}"
        if s.target:
            self.w.lets.add(s.target)
            what += f", and call the result \u201c{s.target.replace('_', ' ')}\u201d"
        self.line(indent, what)

    def visit_ShuffleStmt(self, s: ShuffleStmt, indent: str) -> None:
        self.line(indent, "shuffle the deck")

    def visit_DrawStmt(self, s: DrawStmt, indent: str) -> None:
        self.line(indent, f"draw {self.w.expr(s.expr)} cards")

    def visit_DiscardStmt(self, s: DiscardStmt, indent: str) -> None:
        self.line(indent, f"discard down to {self.w.expr(s.expr)} cards, lowest first")


def _clauses(words: Words, stmts: list) -> str:
    """A few statements on one line: top-level ones separated by semicolons, what an "if"
    holds after its colon, separated by commas ("If X: now: Y, Z becomes 1")."""
    out: list[str] = []
    _Statements(out, words).block(stmts, "")
    parts: list[str] = []
    for line in out:
        text = line.lstrip(" ").removeprefix("- ").strip()
        if line.startswith(" ") and parts:
            parts[-1] += (" " if parts[-1].endswith(":") else ", ") + text[:1].lower() + text[1:]
        else:
            parts.append(text)
    return "; ".join(parts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|") if "\\|" not in text else text


def _named(x, bold: bool = False) -> str:
    """An item's name, its other names (`aka`) and its `summary`, as the advance and calamity
    charts show them."""
    name = f"**{md(x.name)}**" if bold else md(x.name)
    if x.aka:
        name += " (also called " + ", ".join(md(a) for a in x.aka) + ")"
    if x.summary:
        name += f" \u2014 *{md(x.summary)}*"
    return name


def _bounds(low, high) -> str:
    if low is None and high is None:
        return "any"
    if high is None:
        return f"{low} or more"
    if low is None:
        return f"at most {high}"
    return f"{low} to {high}"


def render_round_reference(edition) -> dict[str, str]:
    """A printable reference of an edition's round rules (any edition that declares them): the
    round's phases, tables, thresholds, dice pools, tracks, event tables, the deck and the
    readings, in words. Returns {file name: Markdown}."""
    ed = edition
    if not rules(ed).declared:
        return {}
    w = Words(ed)
    out = [f"# {md(ed.name)}: round reference", ""]
    if ed.source:
        out += [f"Source: {md(ed.source)}", ""]
    out += ["Each phase lists what happens, in order. Names are the rulebook's own; “Reading” marks how an "
            "unclear rule is read. A stat always holds a whole number.", ""]
    for section in _SECTIONS:
        section(ed, w, out)
    return {"reference.md": "\n".join(out).rstrip("\n") + "\n"}


def _section_phases(ed, w: Words, out: list[str]) -> None:
    """The round: each phase's statements, in order."""
    if w.rules.phases:
        out += ["## The round", ""]
        for i, phase in enumerate(w.rules.phases.values(), 1):
            out += [f"### {i}. {md(phase.name)}", ""]
            _Statements(out, w).block(phase.body, "")
            out.append("")


def _section_setup(ed, w: Words, out: list[str]) -> None:
    """The statements that start a game."""
    if w.rules.setup is not None:
        out += ["## Setup", ""]
        _Statements(out, w).block(w.rules.setup.body, "")
        out.append("")


def _table(out: list[str], title: str, columns: tuple[str, ...], rows: list[tuple]) -> None:
    """A section that is one table, if it has rows: its heading, the header and a line per row."""
    if rows:
        out += [f"## {title}", "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        out += ["| " + " | ".join(map(str, cells)) + " |" for cells in rows]
        out.append("")


def _readings(notes, label: str = "") -> list[str]:
    """An item's readings (its notes), a line each."""
    return [f"- *Reading{label}:* {md(n)}" for n in notes]


def _section_stats(ed, w: Words, out: list[str]) -> None:
    """Each stat and flag: where it starts and its range."""
    _table(out, "Stats", ("stat", "starts at", "range"),
           [(md(st.name), st.initial_value, _bounds(st.low, st.high)) for st in w.rules.stats.values()]
           + [(md(fl.name), "yes" if fl.on else "no", "yes or no") for fl in w.rules.flags.values()])


def _section_numbers(ed, w: Words, out: list[str]) -> None:
    """The constants, by value."""
    _table(out, "Numbers", ("number", "meaning"),
           [(md(number(c.value) if c.value is not None else w.expr(c.expr)), md(c.doc or c.id.replace("_", " ")))
            for c in ed.consts.values()])


def _range(low, high) -> str:
    """A band of values as a player reads it: "3", or "3\u20135"."""
    return f"{low}" if low == high else f"{low}\u2013{high}"


def _section_tables(ed, w: Words, out: list[str]) -> None:
    """Each table's bands."""
    if ed.tables:
        out += ["## Tables", ""]
        for t in ed.tables.values():
            out += [f"**{md((t.doc or t.id.replace('_', ' ')))}**", "", "| range | value |", "|---|---|"]
            for b in t.bands:
                rng = f"{b.low}+" if b.high is None else _range(b.low, b.high)
                out.append(f"| {rng} | {md(w.expr(b.value))} |")
            out.append("")


def _section_thresholds(ed, w: Words, out: list[str]) -> None:
    """Each threshold: when it is on, and what it does when it switches on."""
    _table(out, "Thresholds", ("threshold", "on while", "when it switches on"),
           [(md(th.name), md(w.expr(th.condition)), _cell(_clauses(w, th.body) if th.body else "") or DASH)
            for th in w.rules.thresholds.values()])


def _section_pools(ed, w: Words, out: list[str]) -> None:
    """Each dice pool: sides, dice and result, then its readings."""
    _table(out, "Dice pools", ("pool", "sides", "dice", "result"), [_pool_row(w, p) for p in w.rules.pools.values()])
    for p in w.rules.pools.values():
        out += _readings(p.notes, f" ({md(p.name)})")
    if any(p.notes for p in w.rules.pools.values()):
        out.append("")


def _pool_row(w: Words, p) -> tuple[str, str, str, str]:
    """A dice pool's sides, its dice (a base and terms, each perhaps with a condition) and its result."""
    dice = [w.expr(p.base)] if p.base is not None else []
    for term in p.terms:
        cond = f" if {w.expr(term.condition)}" if term.condition is not None else ""
        dice.append(f"plus {w.expr(term.amount)}{cond}")
    result = "the total of the dice"
    if p.success is not None:
        top = p.success[1] if p.success[1] is not None else "the top face"
        result = f"the dice showing {p.success[0]} to {top}"
    sides = w.expr(p.sides) if p.sides is not None else ""
    return _cell(_named(p)), md(sides), md("; ".join(dice)), result


def _section_tracks(ed, w: Words, out: list[str]) -> None:
    """Each track: positions, stages, marks and readings."""
    if w.rules.tracks:
        out += ["## Tracks", ""]
        for t in w.rules.tracks.values():
            out += [f"{_named(t, bold=True)}: positions {_bounds(t.low, t.high)}, starts at {t.start}", ""]
            for s in t.stages:
                span = _range(s.low, s.high)
                out.append(f"- {span}: {md(s.name)}")
            for m in t.marks:
                what = _clauses(w, m.body) if m.body else ""
                out.append(f"- at {m.position}: **{md(m.label)}**" + (f" \u2014 {what}" if what else ""))
            out += _readings(t.notes)
            out.append("")


def _section_event_tables(ed, w: Words, out: list[str]) -> None:
    """Each event table's rows."""
    if w.rules.event_tables:
        out += ["## Event tables", ""]
        for t in w.rules.event_tables.values():
            out += [f"{_named(t, bold=True)}: roll one {t.die}-sided die", "", "| roll | event | effect |", "|---|---|---|"]
            for row in t.rows:
                face = _range(row.low, row.high)
                out.append(f"| {face} | {md(row.label)} | {_cell(_clauses(w, row.body)) or DASH} |")
            out.append("")
            out += _readings(t.notes)
            if t.notes:
                out.append("")


def _section_cards(ed, w: Words, out: list[str]) -> None:
    """The deck of cards: suits, ranks, hand limit, readings."""
    for deck in w.rules.card_decks.values():
        out += [f"## Cards: {md(deck.name)}", ""]
        if deck.aka or deck.summary:
            out += [_named(deck, bold=True), ""]
        suits = ", ".join(f"{md(s.name)} ({md(s.color)})" for s in deck.suits)
        out += [f"Suits: {suits}.", "", "| rank | value |", "|---|---|"]
        for r in deck.ranks:
            out.append(f"| {md(r.name)} | {r.value} |")
        out.append("")
        if deck.hand_limit is not None:
            out += [f"Hand limit: {deck.hand_limit} cards.", ""]
        out += _readings(deck.notes)
        out.append("")


def _section_choices(ed, w: Words, out: list[str]) -> None:
    """Each choice, and what simulations choose."""
    _table(out, "Choices (and what simulations choose)", ("choice", "simulations choose"),
           [(md(ch.name), md(w.expr(ch.default))) for ch in w.rules.choices.values()])


def _section_ends(ed, w: Words, out: list[str]) -> None:
    """What ends the game."""
    if w.rules.ends:
        out += ["## End of the game", ""]
        for end in w.rules.ends:
            out.append(f"- When {md(w.expr(end.condition))}: {md(end.text)}")
        out.append("")


def _section_readings(ed, w: Words, out: list[str]) -> None:
    """The edition's readings (its top-level notes)."""
    readings = [text for text, _ in ed.notes]
    if readings:
        out += ["## Readings", ""]
        out += [f"- {md(text)}" for text in readings]
        out.append("")


# the reference's sections, in the order they are printed
_SECTIONS = (_section_phases, _section_setup, _section_stats, _section_numbers, _section_tables, _section_thresholds,
             _section_pools, _section_tracks, _section_event_tables, _section_cards, _section_choices, _section_ends,
             _section_readings)
