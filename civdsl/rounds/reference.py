"""Round rules, the printable reference (a chart of `civdsl charts` for editions that declare
round rules): the round's phases with their formulas, tables and bands, thresholds, dice pools,
tracks, event tables, the deck and the readings, as Markdown. Each statement type has its
`visit_<Node>` renderer.
"""

from __future__ import annotations

from ..expressions import unparse
from ..runtime import number
from .syntax import (AddStmt, DiscardStmt, DrawStmt, IfStmt, InsteadStmt, LetStmt, MoveStmt, NoteStmt, ResetStmt,
                     RollStmt, RuleStmt, SetStmt, ShuffleStmt, StatementVisitor)


class _Statements(StatementVisitor):
    """Statements as Markdown list lines; each statement type has its `visit_<Node>`."""

    def __init__(self, out: list[str]):
        self.out = out

    def block(self, stmts: list, indent: str) -> None:
        for s in stmts:
            self.visit(s, indent, f"  ⟨{s.span.line}⟩")

    def visit_NoteStmt(self, s: NoteStmt, indent: str, line: str) -> None:
        self.out.append(f"{indent}*Reading:* {s.text}")

    def visit_RuleStmt(self, s: RuleStmt, indent: str, line: str) -> None:
        self.out.append(f"{indent}- **{s.text}**{line}")
        self.block(s.body, indent + "  ")

    def visit_IfStmt(self, s: IfStmt, indent: str, line: str, word: str = "if") -> None:
        self.out.append(f"{indent}- {word} `{unparse(s.expr)}`:{line}")
        self.block(s.body, indent + "  ")
        if getattr(s, "otherwise", None):
            self.out.append(f"{indent}- otherwise:")
            self.block(s.otherwise, indent + "  ")

    def visit_InsteadStmt(self, s: InsteadStmt, indent: str, line: str) -> None:
        self.visit_IfStmt(s, indent, line, word="instead, if")

    def visit_SetStmt(self, s: SetStmt, indent: str, line: str) -> None:
        self.out.append(f"{indent}- `{s.target} = {unparse(s.expr)}`{line}")

    def visit_AddStmt(self, s: AddStmt, indent: str, line: str) -> None:
        self.out.append(f"{indent}- `{s.target} += {unparse(s.expr)}`{line}")

    def visit_LetStmt(self, s: LetStmt, indent: str, line: str) -> None:
        self.out.append(f"{indent}- let `{s.target} = {unparse(s.expr)}`{line}")

    def visit_MoveStmt(self, s: MoveStmt, indent: str, line: str) -> None:
        self.out.append(f"{indent}- move track `{s.target}` by `{unparse(s.expr)}`{line}")

    def visit_ResetStmt(self, s: ResetStmt, indent: str, line: str) -> None:
        self.out.append(f"{indent}- reset `{s.target}`{line}")

    def visit_RollStmt(self, s: RollStmt, indent: str, line: str) -> None:
        bind = f"`{s.target}` = " if s.target else ""
        self.out.append(f"{indent}- {bind}roll `{s.source}`{line}")

    def visit_ShuffleStmt(self, s: ShuffleStmt, indent: str, line: str) -> None:
        self.out.append(f"{indent}- shuffle the deck{line}")

    def visit_DrawStmt(self, s: DrawStmt, indent: str, line: str) -> None:
        self.out.append(f"{indent}- draw `{unparse(s.expr)}` cards{line}")

    def visit_DiscardStmt(self, s: DiscardStmt, indent: str, line: str) -> None:
        self.out.append(f"{indent}- discard down to `{unparse(s.expr)}` cards (lowest first){line}")


def _statements(stmts: list, indent: str, out: list[str]) -> None:
    _Statements(out).block(stmts, indent)


def render_round_reference(edition) -> dict[str, str]:
    """A printable reference of an edition's round rules (any edition that declares them): the
    round's phases with their formulas, tables and bands, thresholds, dice pools, tracks, event
    tables, the deck and the readings. Returns {file name: Markdown}."""
    ed = edition
    if not ed.has_rounds:
        return {}
    out = [f"# {ed.name}: round reference", ""]
    if ed.source:
        out += [f"Source: {ed.source}", ""]
    out += ["Numbers in ⟨ ⟩ are rulebook lines. `/` is exact division, `//` rounds down, `sqrt` gives a real "
            "number; a stat always holds a whole number.", ""]
    if ed.phases:
        out += ["## The round", ""]
        for i, phase in enumerate(ed.phases.values(), 1):
            out += [f"### {i}. {phase.name} (`{phase.id}`)", ""]
            _statements(phase.body, "", out)
            out.append("")
    if ed.setup is not None:
        out += ["## Setup", ""]
        _statements(ed.setup.body, "", out)
        out.append("")
    if ed.stats or ed.flags:
        out += ["## Stats", "", "| stat | name | starts at | bounds |", "|---|---|---|---|"]
        for st in ed.stats.values():
            low = "" if st.low is None else st.low
            high = "" if st.high is None else st.high
            out.append(f"| `{st.id}` | {st.name} | {st.initial_value} | {low}..{high} |")
        for fl in ed.flags.values():
            out.append(f"| `{fl.id}` | {fl.name} | {'true' if fl.on else 'false'} | true/false |")
        out.append("")
    if ed.consts:
        out += ["## Numbers", "", "| constant | value | meaning |", "|---|---|---|"]
        for c in ed.consts.values():
            out.append(f"| `{c.id}` | {number(c.value) if c.value is not None else unparse(c.expr)} | "
                       f"{c.doc or ''} |")
        out.append("")
    if ed.tables:
        out += ["## Tables", ""]
        for t in ed.tables.values():
            out += [f"**`{t.id}`** — {t.doc or ''}", "", "| range | value |", "|---|---|"]
            for b in t.bands:
                rng = f"{b.low}" if b.high == b.low else f"{b.low}–{b.high if b.high is not None else ''}"
                if b.high is None:
                    rng = f"{b.low}+"
                out.append(f"| {rng} | {unparse(b.value)} |")
            out.append("")
    if ed.thresholds:
        out += ["## Thresholds", "", "| threshold | on when | when it switches on |", "|---|---|---|"]
        for th in ed.thresholds.values():
            effects: list[str] = []
            if th.body:
                _statements(th.body, "", effects)
            out.append(f"| {th.name} (`{th.id}`) | `{unparse(th.condition)}` | "
                       f"{'<br>'.join(e.lstrip('- ') for e in effects) or '—'} |")
        out.append("")
    if ed.pools:
        out += ["## Dice pools", "", "| pool | sides | dice | result |", "|---|---|---|---|"]
        for p in ed.pools.values():
            dice = [unparse(p.base)] if p.base is not None else []
            for term in p.terms:
                cond = f" if `{unparse(term.condition)}`" if term.condition is not None else ""
                dice.append(f"+ `{unparse(term.amount)}`{cond}" + (f" ({term.label})" if term.label else ""))
            result = "total of the dice"
            if p.success is not None:
                result = f"dice showing {p.success[0]}–{p.success[1] if p.success[1] is not None else 'top'}"
            sides = unparse(p.sides) if p.sides is not None else ""
            out.append(f"| {p.name} (`{p.id}`) | {sides} | {'<br>'.join(dice)} | {result} |")
        out.append("")
        for p in ed.pools.values():
            for n in p.notes:
                out.append(f"- *Reading ({p.name}):* {n}")
        if any(p.notes for p in ed.pools.values()):
            out.append("")
    if ed.tracks:
        out += ["## Tracks", ""]
        for t in ed.tracks.values():
            out += [f"**{t.name}** (`{t.id}`): positions {t.low}–{t.high}, starts at {t.start}", ""]
            for s in t.stages:
                span = f"{s.low}" if s.low == s.high else f"{s.low}–{s.high}"
                out.append(f"- {span}: {s.name}")
            for m in t.marks:
                effects: list[str] = []
                if m.body:
                    _statements(m.body, "", effects)
                what = "; ".join(e.lstrip("- ") for e in effects)
                out.append(f"- at {m.position}: **{m.label}**" + (f" — {what}" if what else ""))
            for n in t.notes:
                out.append(f"- *Reading:* {n}")
            out.append("")
    if ed.event_tables:
        out += ["## Event tables", ""]
        for t in ed.event_tables.values():
            out += [f"**{t.name}** (`{t.id}`): roll one {t.die}-sided die", "", "| roll | event | effect |",
                    "|---|---|---|"]
            for row in t.rows:
                effects: list[str] = []
                _statements(row.body, "", effects)
                face = f"{row.low}" if row.low == row.high else f"{row.low}–{row.high}"
                out.append(f"| {face} | {row.label} | {'; '.join(e.lstrip('- ') for e in effects) or '—'} |")
            out.append("")
    for deck in ed.card_decks.values():
        out += [f"## Cards: {deck.name}", ""]
        suits = ", ".join(f"{s.name} ({s.color})" for s in deck.suits)
        out += [f"Suits: {suits}.", "", "| rank | value |", "|---|---|"]
        for r in deck.ranks:
            out.append(f"| {r.name} | {r.value} |")
        out.append("")
        if deck.hand_limit is not None:
            out += [f"Hand limit: {deck.hand_limit} cards.", ""]
        for n in deck.notes:
            out.append(f"- *Reading:* {n}")
        out.append("")
    if ed.choices:
        out += ["## Choices (and the default policy of simulations)", "", "| choice | meaning | default |",
                "|---|---|---|"]
        for ch in ed.choices.values():
            out.append(f"| `{ch.id}` | {ch.name} | `{unparse(ch.default)}` |")
        out.append("")
    if ed.ends:
        out += ["## End of the game", ""]
        for end in ed.ends:
            out.append(f"- when `{unparse(end.condition)}`: {end.text}")
        out.append("")
    readings = [text for text, _ in ed.notes]
    if readings:
        out += ["## Readings", ""]
        out += [f"- {text}" for text in readings]
        out.append("")
    return {"reference.md": "\n".join(out).rstrip("\n") + "\n"}
