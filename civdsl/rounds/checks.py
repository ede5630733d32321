"""Round rules, pass 4: is what they say right? One namespace of readable names, statement
targets, the kinds of values (whole numbers, fractions, reals, true/false), and the shape of
tracks, pools, event tables and decks. Codes CIV070-CIV074 (and the shared CIV013, CIV014,
CIV022). Called by the validator through `check`; each statement type has its `visit_<Node>`.
"""

from __future__ import annotations

from fractions import Fraction

from .. import vocabulary as vocab
from ..diagnostics import Diagnostics, Span, suggestion
from ..expressions import EvalError, evaluate, unparse, walk
from ..model import Edition
from ..syntax import BinOp, Bool, Call, Name, Neg, Not, Num, Str, Unknown, Where
from .model import rules
from .syntax import (AddStmt, DiscardStmt, DrawStmt, IfStmt, InsteadStmt, LetStmt, MoveStmt, NoteStmt, ResetStmt,
                     RollStmt, RuleStmt, SetStmt, ShuffleStmt, StatementVisitor)


def check(ed: Edition, diags: Diagnostics) -> None:
    """Report every problem of the edition's round rules."""
    RoundChecker(ed, diags).run()

_NUMBER_RANK = {"int": 0, "rational": 1, "real": 2}
_KIND_WORDS = {"int": "a whole number", "rational": "an exact fraction", "real": "a real number",
               "bool": "true/false", "text": "text"}
_LITERAL_KINDS = {Num: "int", Str: "text", Bool: "bool"}
# the kind of value a name of each kind of declaration reads (choices and constants: their own)
_NAME_KINDS = {"stat": "int", "track": "int", "flag": "bool", "threshold": "bool", "option": "bool"}
# declarations that are no value, and how they are used instead
_HOW_TO_USE = {"table": "call it: `{0}(x)`", "dice pool": "roll it: `roll x = {0}`",
               "event table": "roll it: `roll x = {0}`"}
# what each statement that changes a value does to it, in words
_VERBS = {"set": "set", "add": "add to", "move": "move", "reset": "reset"}
# how to change a value of each kind that a statement cannot change
_TARGET_HINTS = {"track": "move a track with `move`", "local name": "a `let` name is fixed; use a stat"}
_MATH_ARITY = {"floor": 1, "ceil": 1, "sqrt": 1, "abs": 1, "min": 2, "max": 2}


def _join_numbers(a: str, b: str) -> str:
    return a if _NUMBER_RANK[a] >= _NUMBER_RANK[b] else b


def _join_all(kinds: list[str]) -> str:
    """The kind of a value computed from values of these kinds (a real beats a fraction beats a
    whole number)."""
    out = kinds[0]
    for k in kinds[1:]:
        out = _join_numbers(out, k)
    return out


# the kind of a folded value, by its Python type (the first that matches: a bool is an int too)
_VALUE_KINDS = ((bool, "bool"), (int, "int"), (float, "real"), (str, "text"))


def _value_kind(value) -> str:
    if isinstance(value, Fraction):
        return "int" if value.denominator == 1 else "rational"
    return next((kind for python_type, kind in _VALUE_KINDS if isinstance(value, python_type)), "any")


class RoundChecker(StatementVisitor):
    """Checks round rules: one namespace of readable names, statement targets, the kinds of
    values (whole numbers, fractions, reals, true/false), and the shape of tracks, pools, event
    tables and decks. Codes CIV070-CIV074."""

    def __init__(self, ed: Edition, diags: Diagnostics):
        self.ed = ed
        self.rules = rules(ed)
        self.d = diags
        self.kinds: dict[str, str] = {}  # readable name -> what it is
        self._choice_kinds: dict[str, str] = {}
        self._resolving: list[str] = []

    # --- names
    def run(self) -> None:
        self._namespace()
        self._declarations()
        self._dependency_cycles()
        self._rules()

    def _declarations(self) -> None:
        """Stats, tracks, the deck and the kinds of value of the choices."""
        for stat in self.rules.stats.values():
            self._stat(stat)
        for track in self.rules.tracks.values():
            self._track(track)
        if len(self.rules.card_decks) > 1:
            extra = list(self.rules.card_decks.values())[1]
            self.d.error("CIV073", "an edition has at most one deck of playing cards", extra.span, item=extra.id,
                         help="hand functions and `draw` read the one deck")
        for deck in self.rules.card_decks.values():
            self._deck(deck)
        for choice in self.rules.choices.values():
            self._choice_kind(choice.id)

    def _rules(self) -> None:
        """What is computed and done: thresholds, pools, event tables, the end, setup and the phases."""
        for th in self.rules.thresholds.values():
            self._condition(th.condition, {}, th.id)
            self._block(th.body or [], {}, th.id)
        for pool in self.rules.pools.values():
            self._pool(pool)
        for table in self.rules.event_tables.values():
            self._event_table(table)
        for end in self.rules.ends:
            self._condition(end.condition, {}, "end")
        if self.rules.setup is not None:
            self._block(self.rules.setup.body, {}, "setup")
        for phase in self.rules.phases.values():
            self._block(phase.body, {}, phase.id)

    def _namespace(self) -> None:
        groups = [("constant", self.ed.consts), ("option", self.ed.options), ("table", self.ed.tables),
                  ("stat", self.rules.stats), ("flag", self.rules.flags), ("track", self.rules.tracks),
                  ("threshold", self.rules.thresholds), ("choice", self.rules.choices), ("dice pool", self.rules.pools),
                  ("event table", self.rules.event_tables)]
        spans: dict[str, Span] = {}
        for kind, items in groups:
            for name, obj in items.items():
                if name in self.kinds:
                    self.d.error("CIV074", f"`{name}` is both a {self.kinds[name]} and a {kind}", obj.span, item=name,
                                 notes=[f"the {self.kinds[name]} is declared at {spans[name]}"],
                                 help="stats, flags, tracks, thresholds, choices, pools, event tables, constants, "
                                      "tables and options share one namespace: rename one")
                    continue
                self.kinds[name] = kind
                spans[name] = obj.span

    def _name_kind(self, name: str, env: dict, span: Span, item: str) -> str | None:
        """The value kind a bare name reads, or None after reporting it."""
        if name in env:
            return env[name]
        kind = self.kinds.get(name)
        if kind in _NAME_KINDS:
            return _NAME_KINDS[kind]
        if kind == "choice":
            return self._choice_kind(name)
        if kind == "constant":
            return self._constant_kind(name, span, item)
        if kind in _HOW_TO_USE:
            self.d.error("CIV072", f"`{name}` is a {kind}, not a value", span, item=item,
                         help=_HOW_TO_USE[kind].format(name))
            return None
        candidates = list(env) + [n for n, k in self.kinds.items() if k not in ("dice pool", "event table")]
        self.d.error("CIV013", f"unknown name `{name}`", span, item=item,
                     help=suggestion(name, candidates) or "round rules read stats, flags, tracks, thresholds, choices, "
                                                          "constants and options")
        return None

    def _constant_kind(self, name: str, span: Span, item: str) -> str | None:
        """The kind of a constant's value; None (reported) for one that reads player facts."""
        const = self.ed.consts[name]
        if const.value is None:
            self.d.error("CIV013", f"constant `{name}` reads player facts; round rules cannot use it", span, item=item)
            return None
        return _value_kind(const.value)

    def _choice_kind(self, name: str) -> str | None:
        if name in self._choice_kinds:
            return self._choice_kinds[name]
        if name in self._resolving:
            return "any"  # a cycle: reported by _dependency_cycles
        self._resolving.append(name)
        choice = self.rules.choices[name]
        kind = self._expr(choice.default, {}, name) or "any"
        self._resolving.pop()
        self._choice_kinds[name] = kind
        return kind

    def _dependency_cycles(self) -> None:
        """Thresholds and choices are computed on reading: one that reads itself never ends."""
        computed = {**self.rules.thresholds, **self.rules.choices}

        def reads(name: str) -> list[str]:
            obj = computed[name]
            expr = obj.condition if name in self.rules.thresholds else obj.default
            out = []
            for node in walk(expr):
                if isinstance(node, Name) and node.parts[0] in computed and node.parts[0] not in out:
                    out.append(node.parts[0])
            return out

        state: dict[str, int] = {}
        for start in computed:
            if start in state:
                continue
            stack = [(start, [start])]
            while stack:
                name, path = stack.pop()
                state[name] = 1
                for nxt in reads(name):
                    if nxt in path:
                        cycle = path[path.index(nxt):] + [nxt]
                        self.d.error("CIV073", f"`{nxt}` depends on itself: {' -> '.join(cycle)}", computed[nxt].span,
                                     item=nxt, help="a threshold or choice may not read itself, directly or through others")
                        continue
                    if nxt not in state:
                        stack.append((nxt, path + [nxt]))

    # --- declarations
    def _stat(self, stat) -> None:
        if stat.low is not None and stat.high is not None and stat.high < stat.low:
            self.d.error("CIV073", f"bounds {stat.low}..{stat.high} of stat `{stat.id}` are empty",
                         stat.field_spans.get("bounds", stat.span), item=stat.id)
        if stat.initial is not None and self._expr(stat.initial, {}, stat.id) is not None:
            self._initial_value(stat)

    def _initial_value(self, stat) -> None:
        """A stat's initial value: a constant whole number, within the stat's bounds."""
        try:
            value = evaluate(stat.initial, lambda n: self._const(n))
        except EvalError as exc:
            self.d.error("CIV073", f"the initial value of stat `{stat.id}` must be a constant: {exc}",
                         stat.field_spans.get("initial", stat.span), item=stat.id)
            return
        if _value_kind(value) != "int":
            self.d.error("CIV071", f"stat `{stat.id}` holds a whole number; its initial value is "
                                   f"{_KIND_WORDS.get(_value_kind(value), 'not a number')}",
                         stat.field_spans.get("initial", stat.span), item=stat.id, help="round it with floor() or ceil()")
            return
        if (stat.low is not None and value < stat.low) or (stat.high is not None and value > stat.high):
            self.d.error("CIV073", f"the initial value {value} of stat `{stat.id}` is outside its bounds",
                         stat.field_spans.get("initial", stat.span), item=stat.id)

    def _const(self, name: Name):
        const = self.ed.consts.get(name.parts[0])
        if const is not None and const.value is not None:
            return const.value
        raise EvalError(f"`{name.dotted}` is not a constant", name.span)

    def _track(self, track) -> None:
        if track.low is None or track.high is None:
            self.d.error("CIV022", f"track `{track.id}` has no bounds", track.span, item=track.id,
                         help="add `bounds LOW..HIGH`")
            return
        if track.high < track.low:
            self.d.error("CIV073", f"bounds {track.low}..{track.high} of track `{track.id}` are empty",
                         track.field_spans.get("bounds", track.span), item=track.id)
            return
        inside = range(track.low, track.high + 1)
        if track.start not in inside:
            self.d.error("CIV073", f"track `{track.id}` starts at {track.start}, outside {track.low}..{track.high}",
                         track.field_spans.get("start", track.span), item=track.id)
        self._stages(track, inside)
        self._marks(track, inside)

    def _stages(self, track, inside: range) -> None:
        """A track's stages: ranges of its positions that do not overlap."""
        previous = None
        for stage in sorted(track.stages, key=lambda s: s.low):
            if stage.high < stage.low or stage.low not in inside or stage.high not in inside:
                self.d.error("CIV073", f"stage `{stage.name}` ({stage.low}..{stage.high}) is not a range of positions "
                                       f"of track `{track.id}` ({track.low}..{track.high})", stage.span, item=track.id)
            elif previous is not None and previous.high >= stage.low:
                self.d.error("CIV073", f"stages `{previous.name}` and `{stage.name}` of track `{track.id}` overlap",
                             stage.span, item=track.id)
            previous = stage

    def _marks(self, track, inside: range) -> None:
        """A track's marks: each on a position of the track, none twice, and their rules."""
        seen: dict[int, Span] = {}
        for mark in track.marks:
            if mark.position not in inside:
                self.d.error("CIV073", f"position {mark.position} is not on track `{track.id}` "
                                       f"({track.low}..{track.high})", mark.span, item=track.id)
            elif mark.position in seen:
                self.d.error("CIV073", f"position {mark.position} of track `{track.id}` is marked twice", mark.span,
                             item=track.id, notes=[f"first marked at {seen[mark.position]}"])
            seen.setdefault(mark.position, mark.span)
            self._block(mark.body or [], {}, track.id)

    def _deck(self, deck) -> None:
        if not deck.suits or not deck.ranks:
            self.d.error("CIV022", f"deck `{deck.id}` needs at least one `suit` and one `rank`", deck.span, item=deck.id)
        for what, entries in (("suit", deck.suits), ("rank", deck.ranks)):
            self._declared_once(deck, what, entries)
        if deck.hand_limit is not None and deck.hand_limit < 1:
            self.d.error("CIV073", "a hand limit must be at least 1", deck.field_spans.get("hand_limit", deck.span),
                         item=deck.id)

    def _declared_once(self, deck, what: str, entries: list) -> None:
        """The suits (or ranks) of a deck: no name twice."""
        seen: dict[str, Span] = {}
        for entry in entries:
            if entry.name in seen:
                self.d.error("CIV073", f"{what} `{entry.name}` of deck `{deck.id}` is declared twice", entry.span,
                             item=deck.id, notes=[f"first declared at {seen[entry.name]}"])
            seen.setdefault(entry.name, entry.span)

    def _pool(self, pool) -> None:
        if pool.sides is None:
            self.d.error("CIV022", f"dice pool `{pool.id}` has no `sides`", pool.span, item=pool.id,
                         help="add `sides 6`")
        else:
            self._number(pool.sides, {}, pool.id, whole=True, what="the number of sides")
        if pool.base is not None:
            self._number(pool.base, {}, pool.id, whole=True, what="the number of dice")
        for term in pool.terms:
            self._number(term.amount, {}, pool.id, whole=True, what="the number of dice")
            if term.condition is not None:
                self._condition(term.condition, {}, pool.id)
        if pool.success is not None:
            self._success(pool)

    def _success(self, pool) -> None:
        """The faces a pool counts as successes: a range of the faces of its dice."""
        low, high = pool.success
        sides = self._fold(pool.sides) if pool.sides is not None else None
        top = high if high is not None else sides
        if low < 1 or (top is not None and top < low) or (isinstance(sides, int) and top is not None and top > sides):
            self.d.error("CIV073", f"success {low}..{high if high is not None else ''} is not a range of faces "
                                   f"of pool `{pool.id}`", pool.field_spans.get("success", pool.span), item=pool.id)

    def _fold(self, expr):
        try:
            return evaluate(expr, lambda n: self._const(n))
        except EvalError:
            return None

    def _event_table(self, table) -> None:
        if table.die < 1:
            self.d.error("CIV073", f"event table `{table.id}` rolls a die of {table.die} sides", table.span,
                         item=table.id)
            return
        # Rows are compared as ranges, never face by face: the work grows with the rows written,
        # not with the size of the die.
        covered: list = []  # rows accepted so far
        for row in table.rows:
            if row.high < row.low or row.low < 1 or row.high > table.die:
                self.d.error("CIV073", f"row {row.low}..{row.high} of `{table.id}` is not a range of faces of a "
                                       f"{table.die}-sided die", row.span, item=table.id)
            else:
                self._row_clash(table, row, covered)
                covered.append(row)
            self._block(row.body, {}, table.id)
        missing = _uncovered(1, table.die, [(r.low, r.high) for r in covered], limit=10)
        if missing:
            faces = ", ".join(map(str, missing))
            self.d.error("CIV073", f"no row of `{table.id}` covers face{'s' if len(missing) > 1 else ''} {faces}",
                         table.span, item=table.id, help="give every face of the die a row (an empty `{ }` for no effect)")

    def _row_clash(self, table, row, covered: list) -> None:
        """A row of an event table sharing a face with a row before it: the lowest such face."""
        clash = [(max(row.low, other.low), other) for other in covered if other.low <= row.high and row.low <= other.high]
        if clash:
            face, other = min(clash, key=lambda c: c[0])
            self.d.error("CIV073", f"face {face} of `{table.id}` is in two rows", row.span, item=table.id,
                         notes=[f"also in the row at {other.span}"])

    # --- statements
    def _block(self, stmts: list, env: dict, item: str) -> None:
        env = dict(env)
        previous = None
        for s in stmts:
            self.visit(s, env, item, previous)
            previous = s

    def visit_NoteStmt(self, s: NoteStmt, env: dict, item: str, previous) -> None:
        pass  # a reading: nothing to check

    def visit_SetStmt(self, s: SetStmt, env: dict, item: str, previous) -> None:
        kind = self._target(s, env, item, ("stat", "flag", "track"))
        if kind == "flag":
            self._condition(s.expr, env, item)
        elif kind is not None:
            self._number(s.expr, env, item, whole=True, what=f"the value of {kind} `{s.target}`")
        else:
            self._expr(s.expr, env, item)

    def visit_AddStmt(self, s: AddStmt, env: dict, item: str, previous) -> None:
        kind = self._target(s, env, item, ("stat",))
        self._number(s.expr, env, item, whole=kind is not None, what=f"the amount added to `{s.target}`")

    def visit_MoveStmt(self, s: MoveStmt, env: dict, item: str, previous) -> None:
        self._target(s, env, item, ("track",))
        self._number(s.expr, env, item, whole=True, what="the number of steps")

    def visit_ResetStmt(self, s: ResetStmt, env: dict, item: str, previous) -> None:
        self._target(s, env, item, ("track", "stat", "flag"))

    def visit_LetStmt(self, s: LetStmt, env: dict, item: str, previous) -> None:
        kind = self._expr(s.expr, env, item)
        self._bind(s.target, s.target_span or s.span, env, item, kind or "any")

    def visit_IfStmt(self, s: IfStmt, env: dict, item: str, previous) -> None:
        self._condition(s.expr, env, item)
        self._block(s.body, env, item)
        if s.otherwise:
            self._block(s.otherwise, env, item)

    def visit_InsteadStmt(self, s: InsteadStmt, env: dict, item: str, previous) -> None:
        follows_chain = isinstance(previous, InsteadStmt) or (isinstance(previous, IfStmt) and not previous.otherwise)
        if not follows_chain:
            self.d.error("CIV070", "`instead if` must follow an `if` (or another `instead if`) in the same block",
                         s.span, item=item, help="write the rule it replaces first: `if A { ... } instead if B { ... }`")
        self._condition(s.expr, env, item)
        self._block(s.body, env, item)

    def visit_RuleStmt(self, s: RuleStmt, env: dict, item: str, previous) -> None:
        self._block(s.body, env, item)

    def visit_RollStmt(self, s: RollStmt, env: dict, item: str, previous) -> None:
        self._roll(s, env, item)

    def visit_ShuffleStmt(self, s: ShuffleStmt, env: dict, item: str, previous) -> None:
        self._cards(s, item)

    def visit_DrawStmt(self, s: DrawStmt, env: dict, item: str, previous) -> None:
        self._cards(s, item)
        self._number(s.expr, env, item, whole=True, what="the number of cards")

    def visit_DiscardStmt(self, s: DiscardStmt, env: dict, item: str, previous) -> None:
        self._cards(s, item)
        self._number(s.expr, env, item, whole=True, what="the number of cards")

    def _cards(self, s, item: str) -> None:
        if not self.rules.card_decks:
            self.d.error("CIV072", f"`{s.keyword}` needs a deck of cards, and the edition declares none", s.span,
                         item=item, help='declare one: `deck ID "Name" { suit "Hearts" red ... }`')

    def _target(self, s, env: dict, item: str, allowed: tuple[str, ...]) -> str | None:
        kind = "local name" if s.target in env else self.kinds.get(s.target)
        if kind in allowed:
            return kind
        self._wrong_target(s, kind, allowed, item)
        return None

    def _wrong_target(self, s, kind: str | None, allowed: tuple[str, ...], item: str) -> None:
        """CIV072: a statement's target is nothing declared, or not of a kind it works on."""
        name, span = s.target, s.target_span or s.span
        wanted = allowed[0] if len(allowed) == 1 else ", ".join(allowed[:-1]) + " or " + allowed[-1]
        if kind is None:
            candidates = [n for n, k in self.kinds.items() if k in allowed]
            self.d.error("CIV072", f"there is no {wanted} `{name}` to {_VERBS[s.keyword]}", span, item=item,
                         help=suggestion(name, candidates) or f"declare it: `{allowed[0]} {name} \"...\"`")
        else:
            self.d.error("CIV072", f"`{name}` is a {kind}; `{s.keyword}` works on a {wanted}", span, item=item,
                         help=_TARGET_HINTS.get(kind))

    def _bind(self, name: str, span: Span, env: dict, item: str, kind: str) -> None:
        if name in self.kinds or name in env:
            what = self.kinds.get(name) or "local name"
            self.d.error("CIV074", f"`{name}` is already a {what}; a local name must be new", span, item=item)
        env[name] = kind

    def _roll(self, s, env: dict, item: str) -> None:
        source = s.source
        span = s.source_span or s.span
        if source in self.rules.pools:
            if s.target is None:
                self.d.error("CIV072", f"rolling pool `{source}` needs a name for the result", s.span, item=item,
                             help=f"write `roll result = {source}`")
        elif source not in self.rules.event_tables:
            self._not_rollable(source, span, item)
        if s.target is not None:
            self._bind(s.target, s.target_span or s.span, env, item, "int")

    def _not_rollable(self, source: str, span: Span, item: str) -> None:
        """CIV072: a `roll` of something that is no dice pool or event table."""
        what = self.kinds.get(source)
        candidates = list(self.rules.pools) + list(self.rules.event_tables)
        message = (f"`{source}` is a {what}, not a dice pool or event table" if what
                   else f"there is no dice pool or event table `{source}`")
        self.d.error("CIV072", message, span, item=item, help=suggestion(source, candidates))

    # --- expressions
    def _condition(self, e, env: dict, item: str) -> None:
        kind = self._expr(e, env, item)
        if kind is not None and kind not in ("bool", "any"):
            self.d.error("CIV071", f"a condition must be true/false; this is {_KIND_WORDS[kind]}", e.span, item=item,
                         help="compare it: `x > 0`")

    def _number(self, e, env: dict, item: str, whole: bool, what: str) -> None:
        kind = self._expr(e, env, item)
        if kind in (None, "any"):
            return
        if kind in ("bool", "text"):
            self.d.error("CIV071", f"{what} must be a number; this is {_KIND_WORDS[kind]}", e.span, item=item)
        elif whole and kind != "int":
            how = "exact division `/` can leave a fraction: use `//` or floor()" if kind == "rational" else \
                "sqrt gives a real number: round it with floor() or ceil()"
            self.d.error("CIV071", f"{what} must be a whole number; this is {_KIND_WORDS[kind]}", e.span, item=item,
                         help=how)

    def _numeric(self, e, env: dict, item: str) -> str | None:
        kind = self._expr(e, env, item)
        if kind in ("bool", "text"):
            self.d.error("CIV071", f"expected a number, got {_KIND_WORDS[kind]}", e.span, item=item)
            return None
        return kind

    def _expr(self, e, env: dict, item: str) -> str | None:
        """The kind of value an expression gives (reporting what is wrong in it), by node type."""
        kind = _LITERAL_KINDS.get(type(e))
        if kind is not None:
            return kind
        check = getattr(self, f"_kind_{type(e).__name__}", None)
        return check(e, env, item) if check is not None else None

    def _kind_Unknown(self, e: Unknown, env: dict, item: str) -> None:
        self.d.error("CIV071", "`unknown` has no value in round rules", e.span, item=item)

    def _kind_Name(self, e: Name, env: dict, item: str) -> str | None:
        if len(e.parts) > 1:
            self.d.error("CIV013", f"unknown name `{e.dotted}`", e.span, item=item,
                         help="round rules read plain names (stats, flags, tracks, ...)")
            return None
        return self._name_kind(e.parts[0], env, e.span, item)

    def _kind_Not(self, e: Not, env: dict, item: str) -> str:
        self._condition(e.operand, env, item)
        return "bool"

    def _kind_Neg(self, e: Neg, env: dict, item: str) -> str | None:
        return self._numeric(e.operand, env, item)

    def _kind_BinOp(self, e: BinOp, env: dict, item: str) -> str | None:
        if e.op in ("and", "or"):
            self._condition(e.left, env, item)
            self._condition(e.right, env, item)
            return "bool"
        if e.op in ("==", "!="):
            a, b = self._expr(e.left, env, item), self._expr(e.right, env, item)
            if a and b and "any" not in (a, b) and (a in _NUMBER_RANK) != (b in _NUMBER_RANK):
                self.d.error("CIV071", f"`{e.op}` compares {_KIND_WORDS[a]} with {_KIND_WORDS[b]}", e.span, item=item)
            return "bool"
        a, b = self._numeric(e.left, env, item), self._numeric(e.right, env, item)
        if e.op in ("<", "<=", ">", ">="):
            return "bool"
        return _arithmetic_kind(e.op, a, b)

    def _kind_Where(self, e: Where, env: dict, item: str) -> None:
        self.d.error("CIV014", "`where` filters only work in asserts", e.span, item=item)

    def _kind_Call(self, e: Call, env: dict, item: str) -> str | None:
        if e.name in self.ed.tables:
            return self._table_call(e, env, item)
        if e.name in _MATH_ARITY:
            return self._math_call(e, env, item)
        fn = vocab.ROUND_FUNCTIONS.get(e.name)
        if fn is None:
            known = sorted(_MATH_ARITY) + sorted(vocab.ROUND_FUNCTIONS) + sorted(self.ed.tables)
            other = vocab.FUNCTIONS.get(e.name)
            message = (f"`{e.name}` reads {'a player of the map game' if other.scope == 'player' else 'the rulebook'}; "
                       f"round rules cannot use it") if other else f"unknown function `{e.name}`"
            self.d.error("CIV014", message, e.span, item=item, help=suggestion(e.name, known))
            return None
        return self._hand_call(e, fn, item)

    def _table_call(self, e: Call, env: dict, item: str) -> str:
        """`table(x)`: the kind of value its bands hold."""
        if len(e.args) != 1 or e.kwargs:
            self.d.error("CIV014", f"table `{e.name}` takes exactly one argument", e.span, item=item)
        for a in e.args:
            self._number(a, env, item, whole=False, what="a table's argument")
        return self._table_kind(self.ed.tables[e.name])

    def _table_kind(self, table) -> str:
        """The kind of value a table's bands hold: the widest of their numbers, or any when they
        are not all numbers."""
        kinds = {self._value_kind_of_band(b.value) for b in table.bands}
        numbers = [k for k in kinds if k in _NUMBER_RANK]
        if not numbers or len(numbers) != len(kinds):
            return "any"
        return _join_all(numbers)

    def _math_call(self, e: Call, env: dict, item: str) -> str | None:
        """floor, ceil, sqrt, abs, min, max: whole numbers stay whole except through sqrt."""
        n = _MATH_ARITY[e.name]
        if len(e.args) != n or e.kwargs:
            self.d.error("CIV014", f"`{e.name}` takes {n} argument{'s' if n != 1 else ''}, got {len(e.args)}",
                         e.span, item=item)
        kinds = [self._numeric(a, env, item) for a in e.args]
        return None if None in kinds else _math_kind(e.name, kinds)

    def _hand_call(self, e: Call, fn, item: str) -> str:
        """A function of the hand (`hand_value(color=red)`, ...): a whole number; its colour must
        be one of the deck's."""
        if e.args:
            self.d.error("CIV014", f"`{e.name}` takes no positional arguments", e.span, item=item,
                         help="name the colour: `hand_value(color=red)`" if fn.kwargs else None)
        if not self.rules.card_decks:
            self.d.error("CIV072", f"`{e.name}` reads the hand, and the edition declares no deck of cards", e.span,
                         item=item)
            return "int"
        self._hand_kwargs(e, fn, item)
        return "int"

    def _hand_kwargs(self, e: Call, fn, item: str) -> None:
        """A hand function's named arguments: its parameters, each naming a colour of the deck."""
        colors = [c for deck in self.rules.card_decks.values() for c in deck.colors]
        for key, value in e.kwargs.items():
            span = e.kwarg_spans.get(key, e.span)
            if key not in fn.kwargs:
                self.d.error("CIV014", f"`{e.name}` has no parameter `{key}`", span, item=item,
                             help=suggestion(key, fn.kwargs) or f"parameters: {', '.join(fn.kwargs) or 'none'}")
            elif not _names_one_of(value, colors):
                self.d.error("CIV072", f"unknown colour `{unparse(value)}`", value.span, item=item,
                             help=suggestion(unparse(value), colors) or f"colours of the deck: {', '.join(colors)}")

    def _value_kind_of_band(self, expr) -> str:
        value = self._fold(expr)
        return _value_kind(value) if value is not None else "any"


def _math_kind(name: str, kinds: list[str]) -> str:
    """The kind of a math function's value from its arguments' kinds."""
    if name in ("floor", "ceil"):
        return "int"
    if "any" in kinds:
        return "any"
    if name == "sqrt":
        return "real"
    return _join_all(kinds) if kinds else "int"


def _names_one_of(value, words) -> bool:
    """Whether an expression is a plain name that is one of `words`."""
    return isinstance(value, Name) and len(value.parts) == 1 and value.parts[0] in words


def _arithmetic_kind(op: str, a: str | None, b: str | None) -> str | None:
    """The kind of `a op b` for an arithmetic operator (None when an operand's is not known):
    `//` gives a whole number, `/` at least a fraction, the rest the wider of the two."""
    if a is None or b is None:
        return None
    if "any" in (a, b):
        return "any"
    if op == "//":
        return "int"
    joined = _join_numbers(a, b)
    return _join_numbers(joined, "rational") if op == "/" else joined


def _uncovered(low: int, high: int, ranges: list[tuple[int, int]], limit: int) -> list[int]:
    """The first `limit` numbers of low..high that no range covers, in order (ranges may overlap)."""
    out: list[int] = []
    nxt = low  # the first number not yet covered nor listed
    for a, b in sorted(ranges) + [(high + 1, high)]:  # the last range, just past the end, ends the search
        out.extend(range(nxt, min(a, high + 1))[: limit - len(out)])
        if len(out) >= limit:
            return out
        nxt = max(nxt, a, b + 1)
    return out
