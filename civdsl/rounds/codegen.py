"""Round rules, pass 5: the Python they compile to, appended to the edition's generated module.

Every identifier below is a fixed prefix, a counter and an ASCII slug; every rulebook value is
written with repr(). Phase functions map (GameState, random.Random) to (next GameState, trace)
through `civdsl.rounds.runtime` (imported by the generated module as `_rr`). Each statement type
has its `visit_<Node>` in `_Block`.
"""

from __future__ import annotations

from .. import describe
from .. import vocabulary as vocab
from ..expressions import PlainLogicCompiler, unparse, walk
from ..diagnostics import Span
from ..model import Edition
from ..pysource import Writer, comment_text, slug
from ..syntax import Call, Name
from .model import rules
from .syntax import (DiscardStmt, DrawStmt, IfStmt, InsteadStmt, LetStmt, NoteStmt, ResetStmt, RollStmt, RuleStmt,
                     ShuffleStmt, StatementVisitor)

# the generated module's name for the round runtime
RUNTIME_IMPORT = "from civdsl.rounds import runtime as _rr"



class _RoundCompiler(PlainLogicCompiler):
    """Compiles round expressions over `s` (a rounds.runtime.RoundState): stats, flags and tracks are
    `s.v[...]`, thresholds and choices are computed on reading, `let`/`roll` names are locals.
    Round rules read no player facts, so no value is ever unknown: plain Python logic."""

    # round rules divide by their own rules (rounds.runtime.round_div: exact where it can be)
    BINARY = {**PlainLogicCompiler.BINARY, "/": "_rr.round_div({}, {})", "//": "_rr.round_floordiv({}, {})"}

    def __init__(self, consts, options, ed: Edition):
        super().__init__(consts, options, set(ed.tables))
        self.ed = ed
        self.locals: dict[str, str] = {}
        self.runtime_options = False  # a round state has no player's options: the rulebook's setting

    def visit_Name(self, e: Name) -> str:
        head = e.parts[0]
        if head in self.locals:
            return self.locals[head]
        r = rules(self.ed)
        if head in r.stats or head in r.flags or head in r.tracks:
            return f"s.v[{head!r}]"
        if head in r.thresholds:
            return f"s.threshold({head!r})"
        if head in r.choices:
            return f"s.choice({head!r})"
        return super().visit_Name(e)

    def visit_Call(self, e: Call) -> str:
        if e.name in vocab.ROUND_FUNCTIONS and e.name not in self.tables:
            if e.name == "hand_limit":
                return "s.hand_limit()"
            color = e.kwargs.get("color")
            word = repr(color.parts[0]) if isinstance(color, Name) else "None"
            return f"s.{e.name}({word})"
        return super().visit_Call(e)


class _Block(StatementVisitor):
    """Emits the statements of one Python function body, with fresh local names."""

    def __init__(self, w: Writer, c: _RoundCompiler):
        self.w = w
        self.c = c
        self.counter = 0

    def fresh(self, prefix: str, name: str = "") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}_{slug(name, 24)}" if name else f"{prefix}{self.counter}"

    def body(self, stmts: list, indent: str) -> None:
        saved = dict(self.c.locals)
        before = len(self.w.lines)
        i = 0
        while i < len(stmts):
            s = stmts[i]
            if (isinstance(s, IfStmt) and not s.otherwise and i + 1 < len(stmts)
                    and isinstance(stmts[i + 1], InsteadStmt)):
                j = i + 1
                while j < len(stmts) and isinstance(stmts[j], InsteadStmt):
                    j += 1
                self.chain(stmts[i:j], indent)
                i = j
                continue
            self.stmt(s, indent)
            i += 1
        if len(self.w.lines) == before:
            self.w.line(f"{indent}pass")
        self.c.locals = saved

    def chain(self, chain: list, indent: str) -> None:
        """`if A {..} instead if B {..}`: the last rule whose condition holds replaces the others."""
        w, c = self.w, self.c
        conds = []
        for s in chain:
            var = self.fresh("c")
            conds.append((var, s))
            w.line(f"{indent}{var} = bool({c.compile(s.expr)})", s.span)
        for k in range(len(conds) - 1, -1, -1):
            var, s = conds[k]
            keyword = "if" if k == len(conds) - 1 else "elif"
            w.line(f"{indent}{keyword} {var}:", s.span)
            if k > 0:
                earlier = ", ".join(f"({e.span.line!r}, {v})" for v, e in conds[:k])
                w.line(f"{indent}    s.instead({s.span.line!r}, [l for l, held in ({earlier},) if held])", s.span)
            self.body(s.body, indent + "    ")

    def stmt(self, s, indent: str) -> None:
        self.visit(s, indent)

    def visit_NoteStmt(self, s: NoteStmt, indent: str) -> None:
        pass  # a reading: no code

    def _change(self, s, indent: str) -> None:
        self.w.line(f"{indent}s.{s.keyword}({s.target!r}, {self.c.compile(s.expr)}, {s.span.line!r})", s.span)

    visit_SetStmt = visit_AddStmt = visit_MoveStmt = _change

    def visit_ResetStmt(self, s: ResetStmt, indent: str) -> None:
        self.w.line(f"{indent}s.reset({s.target!r}, {s.span.line!r})", s.span)

    def visit_LetStmt(self, s: LetStmt, indent: str) -> None:
        value = self.c.compile(s.expr)
        var = self.fresh("l", s.target)
        self.c.locals[s.target] = var
        self.w.line(f"{indent}{var} = {value}", s.span)

    def visit_IfStmt(self, s: IfStmt, indent: str) -> None:
        self.w.line(f"{indent}if {self.c.compile(s.expr)}:", s.span)
        self.body(s.body, indent + "    ")
        if s.otherwise:
            self.w.line(f"{indent}else:")
            self.body(s.otherwise, indent + "    ")

    def visit_InsteadStmt(self, s: InsteadStmt, indent: str) -> None:
        # reached only for an `instead if` that follows no plain `if` (the checks report it)
        self.w.line(f"{indent}if {self.c.compile(s.expr)}:", s.span)
        self.body(s.body, indent + "    ")

    def visit_RuleStmt(self, s: RuleStmt, indent: str) -> None:
        self.w.line(f"{indent}s.rules.append({s.text!r})", s.span)
        self.body(s.body, indent)
        self.w.line(f"{indent}s.rules.pop()", s.span)

    def visit_RollStmt(self, s: RollStmt, indent: str) -> None:
        line = s.span.line
        call = (f"s.roll({s.source!r}, {line!r})" if s.source in rules(self.c.ed).pools
                else f"s.roll_table({s.source!r}, {line!r})")
        if s.target is not None:
            var = self.fresh("r", s.target)
            self.c.locals[s.target] = var
            self.w.line(f"{indent}{var} = {call}", s.span)
        else:
            self.w.line(f"{indent}{call}", s.span)

    def visit_ShuffleStmt(self, s: ShuffleStmt, indent: str) -> None:
        self.w.line(f"{indent}s.shuffle({s.span.line!r})", s.span)

    def visit_DrawStmt(self, s: DrawStmt, indent: str) -> None:
        self.w.line(f"{indent}s.draw({self.c.compile(s.expr)}, {s.span.line!r})", s.span)

    def visit_DiscardStmt(self, s: DiscardStmt, indent: str) -> None:
        self.w.line(f"{indent}s.discard_to({self.c.compile(s.expr)}, {s.span.line!r})", s.span)


def _function(w: Writer, c: _RoundCompiler, name: str, params: str, doc: str, at: Span, stmts: list,
              wrap: str | None = None) -> None:
    """A function whose body is a block of statements; `wrap` names a phase (state in, state out)."""
    w.line("")
    w.line("")
    w.line(f"def {name}({params}):", at)
    w.line(f"    {doc!r}")
    w.line(f"    # {comment_text(at.path)}:{at.line}")
    c.locals = {}
    if wrap is not None:
        w.line(f"    s = _rr.RoundState(_MODULE, state, rng, {wrap!r})")
    _Block(w, c).body(stmts, "    ")
    if wrap is not None:
        w.line("    return s.finish()")


def _names_read(ed: Edition, expr, seen: set | None = None) -> set[str]:
    """Values a computed name depends on: stats, flags, tracks, and '@hand' for the cards."""
    seen = set() if seen is None else seen
    out: set[str] = set()
    r = rules(ed)
    for node in walk(expr):
        if isinstance(node, Name):
            head = node.parts[0]
            if head in r.thresholds or head in r.choices:
                if head not in seen:
                    seen.add(head)
                    inner = r.thresholds[head].condition if head in r.thresholds else r.choices[head].default
                    out |= _names_read(ed, inner, seen)
            elif head in r.stats or head in r.flags or head in r.tracks:
                out.add(head)
        elif isinstance(node, Call) and node.name in vocab.ROUND_FUNCTIONS:
            out.add("@hand")
    return out


def emit(w: Writer, consts: dict, options: dict, ed: Edition) -> None:
    """The round part of an edition's generated module (after its main part): the data, one
    function per computed name, dice pool, track mark, event row, end condition and phase, then
    the tables that name those functions."""
    c = _RoundCompiler(consts, options, ed)
    w.line("")
    w.line("")
    w.line("# --- round rules ---------------------------------------------------------------------")
    _data(w, ed)
    fns = {"choices": _choice_functions(w, c, ed), "thresholds": _threshold_functions(w, c, ed),
           "pools": _pool_functions(w, c, ed), "marks": _mark_functions(w, c, ed),
           "events": _event_functions(w, c, ed), "ends": _end_functions(w, c, ed)}
    fns["setup"], fns["phases"] = _phase_functions(w, c, ed)
    w.line("")
    w.line("")
    _computed_tables(w, ed, fns)
    _rule_tables(w, ed, fns)


def _data(w: Writer, ed: Edition) -> None:
    w.line("STATS = {")
    for st in rules(ed).stats.values():
        data = {"name": st.name, "initial": st.initial_value, "low": st.low, "high": st.high, "line": st.span.line}
        w.line(f"    {st.id!r}: {data!r},", st.span)
    w.line("}")
    w.line("FLAGS = {")
    for fl in rules(ed).flags.values():
        w.line(f"    {fl.id!r}: {{'name': {fl.name!r}, 'initial': {fl.on!r}, 'line': {fl.span.line!r}}},", fl.span)
    w.line("}")
    deck = next(iter(rules(ed).card_decks.values()), None)
    if deck is None:
        w.line("CARD_DECK = None")
        w.line("CARDS = {}")
        return
    cards = {(r.name, s.name): (r.value, s.color) for s in deck.suits for r in deck.ranks}
    data = {"id": deck.id, "name": deck.name, "suits": tuple((s.name, s.color) for s in deck.suits),
            "ranks": tuple((r.name, r.value) for r in deck.ranks), "hand_limit": deck.hand_limit,
            "line": deck.span.line}
    w.line(f"CARD_DECK = {data!r}", deck.span)
    w.line(f"CARDS = {cards!r}")


def _expression_function(w: Writer, fn: str, at: Span, doc: str | None, value: str) -> None:
    """`def fn(s): return value`: a name computed when read, or an end condition (`value` is
    compiled by the caller, with no local names)."""
    w.line("")
    w.line("")
    w.line(f"def {fn}(s):", at)
    if doc is not None:
        w.line(f"    {doc!r}")
    w.line(f"    return {value}  # {comment_text(at.path)}:{at.line}", at)


def _choice_functions(w: Writer, c: _RoundCompiler, ed: Edition) -> dict[str, str]:
    """Choices are computed when read: their default policy, unless the state decides them."""
    out = {}
    for i, ch in enumerate(rules(ed).choices.values()):
        out[ch.id] = f"choice_{i}_{slug(ch.id)}"
        c.locals = {}
        _expression_function(w, out[ch.id], ch.span, "Default policy for the choice: " + ch.name,
                             c.compile(ch.default))
    return out


def _threshold_functions(w: Writer, c: _RoundCompiler, ed: Edition) -> dict[str, tuple[str, str | None]]:
    """Each threshold's test, and the block it runs when it switches on."""
    out = {}
    for i, th in enumerate(rules(ed).thresholds.values()):
        fn = f"threshold_{i}_{slug(th.id)}"
        c.locals = {}
        _expression_function(w, fn, th.span, th.name, f"bool({c.compile(th.condition)})")
        body = None
        if th.body:
            body = f"{fn}_on"
            _function(w, c, body, "s", f"When {th.name} switches on", th.span, th.body)
        out[th.id] = (fn, body)
    return out


def _pool_functions(w: Writer, c: _RoundCompiler, ed: Edition) -> dict[str, str]:
    """Each dice pool's sides and dice, as the state makes them when it is rolled."""
    out = {}
    for i, pool in enumerate(rules(ed).pools.values()):
        fn = f"pool_{i}_{slug(pool.id)}"
        out[pool.id] = fn
        c.locals = {}
        w.line("")
        w.line("")
        w.line(f"def {fn}(s):", pool.span)
        w.line(f"    {('Sides and dice of ' + pool.name)!r}")
        base = c.compile(pool.base) if pool.base is not None else "0"
        w.line(f"    terms = [('base', {base})]", pool.span)
        for term in pool.terms:
            _pool_term(w, c, term)
        sides = c.compile(pool.sides) if pool.sides is not None else "6"
        w.line(f"    return {sides}, terms", pool.span)
    return out


def _pool_term(w: Writer, c: _RoundCompiler, term) -> None:
    label = term.label or (describe.condition(term.condition) if term.condition is not None else unparse(term.amount))
    if term.condition is not None:
        w.line(f"    if {c.compile(term.condition)}:", term.span)
        w.line(f"        terms.append(({label!r}, {c.compile(term.amount)}))", term.span)
    else:
        w.line(f"    terms.append(({label!r}, {c.compile(term.amount)}))", term.span)


def _mark_functions(w: Writer, c: _RoundCompiler, ed: Edition) -> dict[str, dict]:
    """What happens when a track's marker arrives at a marked position: track -> position ->
    (label, function or None, line)."""
    out = {}
    for i, track in enumerate(rules(ed).tracks.values()):
        marks = {}
        for mark in track.marks:
            fn = None
            if mark.body:
                fn = f"track_{i}_{slug(track.id)}_at_{mark.position if mark.position >= 0 else 'm' + str(-mark.position)}"
                _function(w, c, fn, "s", f"{track.name}: {mark.label}", mark.span, mark.body)
            marks[mark.position] = (mark.label, fn, mark.span.line)
        out[track.id] = marks
    return out


def _event_functions(w: Writer, c: _RoundCompiler, ed: Edition) -> dict[str, list]:
    """One function per row of each event table: table -> [(low, high, label, function, line)]."""
    out = {}
    for i, table in enumerate(rules(ed).event_tables.values()):
        rows = []
        for j, row in enumerate(table.rows):
            fn = f"event_{i}_{j}_{slug(row.label)}"
            _function(w, c, fn, "s", f"{table.name}, {row.low}..{row.high}: {row.label}", row.span, row.body)
            rows.append((row.low, row.high, row.label, fn, row.span.line))
        out[table.id] = rows
    return out


def _end_functions(w: Writer, c: _RoundCompiler, ed: Edition) -> list[tuple[str, str, int]]:
    out = []
    for i, end in enumerate(rules(ed).ends):
        fn = f"end_{i}"
        c.locals = {}
        _expression_function(w, fn, end.span, None, f"bool({c.compile(end.condition)})")
        out.append((fn, end.text, end.span.line))
    return out


def _phase_functions(w: Writer, c: _RoundCompiler, ed: Edition) -> tuple[str | None, list]:
    """The setup's function (or None) and each phase's: (id, name, function)."""
    setup_fn = None
    setup = rules(ed).setup
    if setup is not None:
        setup_fn = "phase_setup"
        _function(w, c, setup_fn, "state, rng", "Setup: run once to start a game", setup.span,
                  setup.body, wrap="setup")
    phase_fns = []
    for i, phase in enumerate(rules(ed).phases.values()):
        fn = f"phase_{i}_{slug(phase.id)}"
        phase_fns.append((phase.id, phase.name, fn))
        _function(w, c, fn, "state, rng", f"{phase.name}: maps a state to (next state, trace)", phase.span,
                  phase.body, wrap=phase.id)
    return setup_fn, phase_fns


def _computed_tables(w: Writer, ed: Edition, fns: dict) -> None:
    """CHOICES, THRESHOLDS and which values each threshold is checked after (THRESHOLD_WATCH)."""
    w.line("CHOICES = {")
    for ch in rules(ed).choices.values():
        w.line(f"    {ch.id!r}: {{'name': {ch.name!r}, 'default': {fns['choices'][ch.id]}, 'line': {ch.span.line!r}}},")
    w.line("}")
    w.line("THRESHOLDS = {")
    for th in rules(ed).thresholds.values():
        test, body = fns["thresholds"][th.id]
        w.line(f"    {th.id!r}: {{'name': {th.name!r}, 'test': {test}, 'body': {body or 'None'}, "
               f"'line': {th.span.line!r}}},")
    w.line("}")
    watch: dict[str, list[str]] = {}
    for th in rules(ed).thresholds.values():
        for name in sorted(_names_read(ed, th.condition)):
            watch.setdefault(name, []).append(th.id)
    w.line(f"THRESHOLD_WATCH = {({k: tuple(v) for k, v in sorted(watch.items())})!r}")


def _rule_tables(w: Writer, ed: Edition, fns: dict) -> None:
    """POOLS, TRACKS, EVENT_TABLES, ENDS, SETUP and PHASES, naming the functions above."""
    w.line("POOLS = {")
    for pool in rules(ed).pools.values():
        w.line(f"    {pool.id!r}: {{'name': {pool.name!r}, 'dice': {fns['pools'][pool.id]}, "
               f"'success': {pool.success!r}, 'line': {pool.span.line!r}}},")
    w.line("}")
    w.line("TRACKS = {")
    for track in rules(ed).tracks.values():
        stages = tuple((s.low, s.high, s.name) for s in track.stages)
        marks = ", ".join(f"{pos!r}: ({label!r}, {fn or 'None'}, {ln!r})"
                          for pos, (label, fn, ln) in fns["marks"][track.id].items())
        w.line(f"    {track.id!r}: {{'name': {track.name!r}, 'start': {track.start!r}, 'low': {track.low!r}, "
               f"'high': {track.high!r}, 'stages': {stages!r}, 'marks': {{{marks}}}, 'line': {track.span.line!r}}},")
    w.line("}")
    w.line("EVENT_TABLES = {")
    for table in rules(ed).event_tables.values():
        rows = "".join(f"({lo!r}, {hi!r}, {label!r}, {fn}, {ln!r}), "
                       for lo, hi, label, fn, ln in fns["events"][table.id])
        w.line(f"    {table.id!r}: {{'name': {table.name!r}, 'die': {table.die!r}, 'rows': ({rows}), "
               f"'line': {table.span.line!r}}},")
    w.line("}")
    w.line(f"ENDS = ({''.join(f'({fn}, {text!r}, {ln!r}), ' for fn, text, ln in fns['ends'])})")
    w.line(f"SETUP = {fns['setup'] or 'None'}")
    w.line("PHASES = (")
    for pid, name, fn in fns["phases"]:
        w.line(f"    ({pid!r}, {name!r}, {fn}),")
    w.line(")")
