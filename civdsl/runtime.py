"""The small runtime that compiled rulebook modules call.

Generated modules hold an edition's data as literals and its rules as plain functions; this
module supplies the player state they read, the `Resolution` they build, and the generic
engines (credits, epochs, scoring) that interpret the policies a rulebook declares. It imports
nothing from the compiler, so answering a question never loads the parser.
"""

from __future__ import annotations

import math
from operator import itemgetter
from fractions import Fraction


class MissingFact(Exception):
    pass


class RulebookRuntimeError(Exception):
    """An error raised while running a rule, located at the rulebook line that states it."""


def this_module(name: str):
    """The generated module itself, which its rule functions hand to `Resolution`."""
    import sys
    return sys.modules[name]


# --- arithmetic helpers used by compiled expressions -----------------------------------------

class Unknown:
    """A value the answer cannot know because it depends on facts the user did not give.

    A missing fact is never read as 0 (that could cancel a calamity or make a negative count):
    it reads as an Unknown naming the fact, and everything computed from it is Unknown too,
    naming every fact it depends on. An Unknown has no truth value: each place where a rule
    decides (a cancel condition, a modifier, a branch) asks `PlayerState.decide`, which records
    the decision as undecided instead of guessing either way.
    """

    __slots__ = ("facts",)

    def __init__(self, facts: tuple[str, ...]):
        self.facts = facts

    def __repr__(self) -> str:
        return f"unknown({', '.join(self.facts)})"

    def __bool__(self):
        raise TypeError(f"a rule decided on an unknown value (it needs {', '.join(self.facts)})")

    def _join(self, *others) -> "Unknown":
        return unknown_of(self, *others)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _join
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _join
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _join  # type: ignore[assignment]
    __hash__ = object.__hash__

    def __neg__(self):
        return self

    __pos__ = __abs__ = __floor__ = __ceil__ = __neg__


def unknown_of(*values) -> Unknown:
    """The Unknown that depends on every fact any of `values` depends on (in first-seen order)."""
    facts: list[str] = []
    for v in values:
        if v.__class__ is Unknown:
            facts.extend(f for f in v.facts if f not in facts)
    return Unknown(tuple(facts))


def known(v) -> bool:
    return v.__class__ is not Unknown


def div(a, b):
    if a.__class__ is Unknown or b.__class__ is Unknown:
        return unknown_of(a, b)
    return Fraction(a) / Fraction(b)


def floordiv(a, b):
    if a.__class__ is Unknown or b.__class__ is Unknown:
        return unknown_of(a, b)
    return math.floor(Fraction(a) / Fraction(b))


def floor(x):
    return math.floor(x)


def ceil(x):
    return math.ceil(x)


def sqrt(x):
    return x if x.__class__ is Unknown else math.sqrt(x)


def min_(a, b):
    """The rulebook's `min` (two values; unknown if either is)."""
    if a.__class__ is Unknown or b.__class__ is Unknown:
        return unknown_of(a, b)
    return b if b < a else a


def max_(a, b):
    """The rulebook's `max`."""
    if a.__class__ is Unknown or b.__class__ is Unknown:
        return unknown_of(a, b)
    return b if b > a else a


abs = abs  # noqa: A001 - re-exported under the rulebook's name; Unknown answers abs() itself


# Kleene's three-valued logic for `and`, `or` and `not`: a known answer wherever the known part
# decides it ("false and unknown" is false), unknown otherwise. The right side is a thunk so that
# it is evaluated only when Python's own short-circuit would evaluate it, or when the left side
# is unknown (then its facts are needed too).

def not_(x):
    return x if x.__class__ is Unknown else not x


def and_(a, *rights):
    """`a and r1 and r2 ...` (a chain is one call: deep nesting would strain Python's parser)."""
    unknown = None
    for right in (None, *rights):
        v = a if right is None else right()
        if v.__class__ is Unknown:
            unknown = v if unknown is None else unknown_of(unknown, v)
        elif not v:
            return v
    return unknown if unknown is not None else v


def or_(a, *rights):
    unknown = None
    for right in (None, *rights):
        v = a if right is None else right()
        if v.__class__ is Unknown:
            unknown = v if unknown is None else unknown_of(unknown, v)
        elif v:
            return v
    return unknown if unknown is not None else v


def lookup(bands, x):
    if x.__class__ is Unknown:
        return x
    for low, high, value in bands:
        if x >= low and (high is None or x <= high):
            return value
    raise ValueError(f"no band of the table covers {x}")


def number(v):
    """Integral Fractions print as integers; an unknown value prints as None (null in JSON)."""
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v)
    if v.__class__ is Unknown:
        return None
    return v


# --- the player's situation ---------------------------------------------------------------

class PlayerState:
    """Facts about one player. Missing facts are recorded, not guessed: see `missing`."""

    def __init__(self, module, holds=(), facts: dict | None = None):
        self.module = module
        self.held = tuple(holds)
        self.held_set = frozenset(holds)
        self.facts = dict(facts or {})
        self.missing: list[str] = []
        # decisions a rule could not take because they depend on missing facts:
        # (rulebook line, path, what was left undecided, the facts it needs)
        self.undecided: list[tuple] = []

    @property
    def complete(self) -> bool:
        return not self.missing

    def holds(self, name: str) -> bool:
        return name in self.held_set

    def _missing(self, name: str) -> Unknown:
        if name not in self.missing:
            self.missing.append(name)
        return Unknown((name,))

    def fact(self, name: str):
        if name in self.facts:
            return self.facts[name]
        if name == "unit_points" and "tokens" in self.facts and "cities" in self.facts:
            return self.facts["tokens"] + self.facts["cities"] * self.module.UNIT_POINTS["city"]
        return self._missing(name)

    def decide(self, value, line: int, path: str, what: str) -> bool:
        """Whether a rule applies: never guessed when its condition is unknown (recorded instead)."""
        if value.__class__ is Unknown:
            self.undecided.append((line, path, what, value.facts))
            return False
        return bool(value)

    def cards(self, name: str):
        hand = self.facts.get("commodities")
        if hand is None:
            return self._missing("commodities")
        return int(hand.get(name, 0))

    def count_advances(self, cost_at_least=None, cost_below=None, vp=None, group=None) -> int:
        n = 0
        for name in self.held:
            adv = self.module.ADVANCES[name]
            cost = adv["cost"]
            if cost_at_least is not None and (cost is None or cost < cost_at_least):
                continue
            if cost_below is not None and (cost is None or cost >= cost_below):
                continue
            if vp is not None and adv["vp"] != vp:
                continue
            if group is not None and group not in adv["groups"]:
                continue
            n += 1
        return n

    def derived(self, name: str):
        advs = [self.module.ADVANCES[n] for n in self.held]
        if name == "advances":
            return len(advs)
        if name == "advance_vp":
            return sum(a["vp"] or 0 for a in advs)
        if name == "advance_points":
            return sum(a["cost"] or 0 for a in advs)
        if name == "groups_held":
            return len({g for a in advs for g in a["groups"]})
        if name in ("credit_max_group", "credit_total"):
            credits = group_credits(self.module, self.held, self.facts.get("credits", {}))
            return (max(credits.values()) if credits else 0) if name == "credit_max_group" else sum(credits.values())
        if name == "hand_value":
            if "commodities" not in self.facts:
                return self._missing("commodities")
            return hand_value(self.module, self.facts["commodities"])["total"]
        raise KeyError(name)


# --- calamity resolution ------------------------------------------------------------------

class EffectResult:
    """One effect a victim suffers, with its final parameters."""

    __slots__ = ("kind", "args", "line")

    def __init__(self, kind: str, args: dict, line: int):
        self.kind = kind
        self.args = args
        self.line = line

    @property
    def amount(self):
        return self.args.get("amount", True)


class Resolution(tuple):
    """What one victim suffers from one calamity, with a trace of every rule that changed it.

    Compiled calamity functions compute everything in straight-line code and build one of
    these at the end, as a single tuple (module, calamity, role, state, effects, assignment,
    trace, options, immune, cancel_reason, excluded): creating it costs next to nothing, and
    the readable views below are computed only when asked for. Effects are (kind, args, line),
    trace entries (op, kind, param, value, before, after, by, line), options (instead_of, kind,
    args, each, by, line), the assignment (count, share, [(kind, args)], line).
    """

    __slots__ = ()

    module = property(itemgetter(0))
    calamity = property(itemgetter(1))
    role = property(itemgetter(2))
    state = property(itemgetter(3))
    _effects = property(itemgetter(4))
    assignment = property(itemgetter(5))
    _trace = property(itemgetter(6))
    _options = property(itemgetter(7))
    immune = property(itemgetter(8))
    cancel_reason = property(itemgetter(9))  # (line, why, path)
    excluded = property(itemgetter(10))  # (line, why, path)

    @classmethod
    def make(cls, module, calamity: str, role: str, state: "PlayerState", effects: list, assignment=None, trace=(),
             options=(), immune: bool = False, cancel_reason=None, excluded=None) -> "Resolution":
        return cls((module, calamity, role, state, effects, assignment, trace, options, immune, cancel_reason, excluded))

    @property
    def is_cancelled(self) -> bool:
        return self.cancel_reason is not None

    @property
    def effects(self) -> list[EffectResult]:
        return [EffectResult(kind, args, line) for kind, args, line in self._effects]

    @property
    def trace(self) -> list[dict]:
        out = []
        for op, kind, param, value, before, after, by, line, path in self._trace:
            entry = {"op": op, "kind": kind, "param": param, "value": number(value), "before": number(before),
                     "after": number(after), "by": list(by), "path": path, "line": line}
            needs = unknown_of(value, before, after).facts
            if needs:
                entry["depends_on"] = list(needs)
            out.append(entry)
        return out

    @property
    def options(self) -> list[dict]:
        return [{"instead_of": instead, "kind": kind, "args": {k: number(v) for k, v in args.items()}, "each": each,
                 "by": list(by), "path": path, "line": line} for instead, kind, args, each, by, line, path in self._options]

    def amount(self, kind: str):
        for k, args, _line in self._effects:
            if k == kind:
                return args.get("amount", True)
        return None

    @property
    def complete(self) -> bool:
        """False when the answer depends on a fact the user did not give (see `missing_facts`)."""
        return self.state.complete

    def to_dict(self) -> dict:
        out = {
            "calamity": self.calamity,
            "role": self.role,
            "complete": self.state.complete,
            "cancelled": self.is_cancelled,
            "immune": number(self.immune),
            "effects": [effect_dict(kind, args) for kind, args, _ in self._effects],
            "trace": self.trace,
            "options": self.options,
            "missing_facts": list(self.state.missing),
            "undecided": undecided(self.state),
        }
        if self.cancel_reason:
            line, why, where = self.cancel_reason
            out["cancel_reason"] = {"line": line, "path": where, "why": why}
        if self.excluded:
            line, why, where = self.excluded
            out["excluded"] = {"line": line, "path": where, "why": why}
        if self.assignment:
            count, share, effects, line = self.assignment
            out["secondary"] = {"count": number(count), "share": number(share), "line": line,
                                "effects": [effect_dict(k, args) for k, args in effects]}
            needs = unknown_of(count, share).facts
            if needs:
                out["secondary"]["depends_on"] = list(needs)
        return out


def effect_dict(kind: str, args: dict) -> dict:
    """An effect as data; a parameter that depends on missing facts is null, and `depends_on`
    names those facts."""
    out = {"kind": kind, **{k: number(v) for k, v in args.items()}}
    needs = unknown_of(*args.values()).facts
    if needs:
        out["depends_on"] = list(needs)
    return out


def undecided(state: "PlayerState") -> list[dict]:
    return [{"line": line, "path": path, "what": what, "depends_on": list(facts)}
            for line, path, what, facts in state.undecided]


def unless_immune(immune, value):
    """An effect's amount for a victim who may be immune (an unknown immunity: an unknown amount)."""
    if value is None or immune is False:
        return value
    if immune.__class__ is Unknown:
        return unknown_of(immune, value)
    return 0 if immune else value


def cancelled(module, calamity: str, role: str, state: PlayerState, line: int, why: str, path: str) -> Resolution:
    return Resolution.make(module, calamity, role, state, [("cancelled", {}, line)], cancel_reason=(line, why, path))


def clamp(value):
    """Effects never go below zero (prevention cannot make a victim gain anything)."""
    if value is None or isinstance(value, bool) or value.__class__ is Unknown:
        return value
    return 0 if value < 0 else value


def resolve(module, calamity: str, role: str, state: PlayerState) -> Resolution:
    fn = module.CALAMITY_FUNCTIONS[calamity]
    try:
        return fn(state, role)
    except (ArithmeticError, TypeError, ValueError, KeyError) as exc:
        raise located(exc, module) from exc


def located(exc: Exception, module) -> RulebookRuntimeError:
    """Re-state an error from generated code at the rulebook line that produced it."""
    tb = exc.__traceback__
    line = None
    filename = getattr(module, "__file__", None)
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    where = module.SOURCE_PATH
    if line is not None:
        mapped = [rl for pl, rl in module.LINES if pl <= line]
        if mapped:
            where = f"{module.SOURCE_PATH}:{mapped[-1]}"
    return RulebookRuntimeError(f"{where}: {type(exc).__name__}: {exc}")


# --- credits and prices -------------------------------------------------------------------

def group_credits(module, holds, extra: dict | None = None) -> dict[str, int]:
    credits: dict[str, int] = {g: 0 for g in module.GROUPS}
    for name in holds:
        for g, amount in module.ADVANCES[name]["credits"].items():
            credits[g] = credits.get(g, 0) + amount
    for g, amount in (extra or {}).items():
        credits[g] = credits.get(g, 0) + int(amount)
    return credits


def ability(module, name: str, kind: str) -> list[dict]:
    return [args for k, args in module.ADVANCES[name]["abilities"] if k == kind]


def prices(module, holds, buys, extra_credits: dict | None = None) -> dict:
    """Price of each advance bought this turn after credits, with a breakdown.

    Credits come only from `holds` (advances held before this turn); the policy is the
    rulebook's declared one. One-time discounts and free advances carried by an advance bought
    this turn apply to one other advance of the same purchase: the dearest eligible one.
    """
    policy = module.CREDIT_POLICY
    holds = list(holds)
    rows = []
    credits = group_credits(module, holds, extra_credits) if policy == "best_group" else None
    for name in buys:
        adv = module.ADVANCES[name]
        row = {"advance": name, "printed": adv["cost"], "credits": [], "price": None}
        if adv["cost"] is None:
            row["note"] = "the printed cost is unknown in this rulebook"
            rows.append(row)
            continue
        if policy == "best_group":
            if adv["groups"]:
                best = max(adv["groups"], key=lambda g: (credits.get(g, 0), -adv["groups"].index(g)))
                if credits.get(best, 0):
                    row["credits"].append({"from": f"{best} credits", "amount": credits[best]})
            for held in holds:
                amount = module.ADVANCES[held]["specific"].get(name, 0)
                if amount:
                    row["credits"].append({"from": held, "amount": amount})
        elif policy == "per_card":
            for held in holds:
                h = module.ADVANCES[held]
                group_part = max([h["credits"].get(g, 0) for g in adv["groups"]] or [0])
                special = h["specific"].get(name, 0)
                amount = max(group_part, special)
                if amount:
                    kind = "special credit" if special >= group_part else "group credit"
                    row["credits"].append({"from": f"{held} ({kind})", "amount": amount})
            for g, amount in (extra_credits or {}).items():
                if g in adv["groups"] and amount:
                    row["credits"].append({"from": f"{g} credits", "amount": int(amount)})
        else:
            raise ValueError(f"unknown credit policy {policy!r}")
        row["price"] = adv["cost"] - sum(c["amount"] for c in row["credits"])
        rows.append(row)
    _same_turn_abilities(module, rows)
    for row in rows:
        if row["price"] is not None:
            row["price"] = max(0, row["price"])
    known = [r["price"] for r in rows if r["price"] is not None]
    treasury_value = max([a["value"] for h in holds for a in ability(module, h, "treasury_value")] or [1])
    return {
        "policy": policy,
        "items": rows,
        "total": sum(known) if len(known) == len(rows) else None,
        "unknown": [r["advance"] for r in rows if r["price"] is None],
        "treasury_value": treasury_value,
    }


def _same_turn_abilities(module, rows: list[dict]) -> None:
    for row in rows:
        name = row["advance"]
        for args in ability(module, name, "discount"):
            others = [r for r in rows if r["advance"] != name and r["price"] is not None and r["price"] > 0]
            if others:
                target = max(others, key=lambda r: (r["price"], r["advance"]))
                target["credits"].append({"from": f"{name} (one-time discount)", "amount": args["amount"]})
                target["price"] -= args["amount"]
        for args in ability(module, name, "free_advance"):
            eligible = [r for r in rows if r["advance"] != name and r["price"] is not None and r["price"] > 0
                        and args["group"] in module.ADVANCES[r["advance"]]["groups"]
                        and module.ADVANCES[r["advance"]]["cost"] < args["cost_below"]]
            if eligible:
                target = max(eligible, key=lambda r: (r["price"], r["advance"]))
                target["credits"].append({"from": f"{name} (free advance)", "amount": target["price"]})
                target["price"] = 0


# --- commodities --------------------------------------------------------------------------

def hand_value(module, cards: dict) -> dict:
    sets = []
    for name, n in sorted(cards.items()):
        face = module.COMMODITIES[name]["value"]
        sets.append({"commodity": name, "cards": n, "face": face, "value": number(module.set_value(n, face)) if n else 0})
    return {"sets": sets, "total": sum(s["value"] for s in sets)}


# --- epochs and score -----------------------------------------------------------------------

_COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _met(value):
    """True, False, or None when the requirement depends on a missing fact."""
    return None if value.__class__ is Unknown else bool(value)


def requirement(text: str, left, op: str, right, line: int) -> dict:
    out = {"requirement": text, "met": _met(_COMPARE[op](left, right)), "value": number(left),
           "needs": f"{op} {number(right)}", "line": line}
    needs = unknown_of(left, right).facts
    if needs:
        out["depends_on"] = list(needs)
    return out


def requirement_bool(text: str, value, line: int) -> dict:
    out = {"requirement": text, "met": _met(value), "value": _met(value), "needs": "true", "line": line}
    if value.__class__ is Unknown:
        out["depends_on"] = list(value.facts)
    return out


def all_met(values) -> bool | None:
    """Three-valued `all`: False if any is False, else None if any is unknown, else True."""
    values = list(values)
    if any(v is False for v in values):
        return False
    return None if any(v is None for v in values) else True


def epochs(module, track: str, state: PlayerState) -> dict:
    """Each epoch's requirements; `reached` is the last epoch surely reached. An epoch whose
    requirements depend on missing facts is neither met nor failed (`met` is None)."""
    t = module.AST[track]
    out = []
    reached = None
    still = True
    for name, fn in t["epochs"]:
        reqs = fn(state)
        met = all_met(r["met"] for r in reqs)
        still = still and met is True
        if still:
            reached = name
        out.append({"epoch": name, "met": met, "requirements": reqs})
    backward = [b(state) for b in t["backward"]]
    back = [b["met"] for b in backward]
    moves = True if any(v is True for v in back) else (None if any(v is None for v in back) else False)
    return {"track": track, "name": t["name"], "complete": state.complete, "epochs": out, "reached": reached,
            "moves_backward": moves, "backward_rules": backward, "missing_facts": list(state.missing)}


def score(module, state: PlayerState) -> dict:
    """Victory points; a line that depends on a missing fact is null, and so is the total."""
    points = [{"label": label, "points": number(fn(state)), "line": line} for label, fn, line in module.SCORE_POINTS]
    ties = [{"label": label, "value": number(fn(state)), "line": line} for label, fn, line in module.SCORE_TIEBREAKS]
    known_points = [p["points"] for p in points if p["points"] is not None]
    total = sum(known_points) if len(known_points) == len(points) else None
    return {"complete": state.complete, "points": points, "total": total, "tiebreaks": ties,
            "missing_facts": list(state.missing)}


# --- round rules: games played in rounds of phases over declared stats ----------------------
# A generated module of an edition with round rules has STATS, FLAGS, TRACKS, CHOICES,
# THRESHOLDS, THRESHOLD_WATCH, POOLS, EVENT_TABLES, CARD_DECK, CARDS, ENDS, SETUP and PHASES.
# Each phase function maps (GameState, random.Random) to (next GameState, trace); the trace
# lists every rule application that fired, with the rulebook line that states it.

class GameState:
    """One player's situation between phases: stat, flag and track values, the cards (hand, draw
    pile top first, discard pile), the thresholds switched on, the choices decided in advance
    (choice -> value; the rest follow the rulebook's default policy), the round, and why the game
    ended (None while it goes on). Phase functions never change the state they are given."""

    __slots__ = ("values", "hand", "deck", "discard", "on", "choices", "round", "ended", "settled")

    def __init__(self, values: dict, hand=(), deck=(), discard=(), on=(), choices=None, round: int = 0,
                 ended: str | None = None, settled: bool = False):
        self.values = dict(values)
        self.hand = list(hand)
        self.deck = list(deck)
        self.discard = list(discard)
        self.on = set(on)
        self.choices = dict(choices or {})
        self.round = round
        self.ended = ended
        # True when a phase function produced this state, so its thresholds agree with its values;
        # a state built or edited by hand has its thresholds checked at the start of the next phase
        self.settled = settled

    def copy(self) -> "GameState":
        return GameState(self.values, self.hand, self.deck, self.discard, self.on, self.choices, self.round, self.ended,
                         self.settled)

    def __getitem__(self, name: str):
        return self.values[name]

    def to_dict(self) -> dict:
        return {"round": self.round, "stats": dict(self.values), "hand": [card_text(c) for c in self.hand],
                "deck": [card_text(c) for c in self.deck], "discard": [card_text(c) for c in self.discard],
                "thresholds_on": sorted(self.on), "choices": dict(self.choices), "ended": self.ended}


def round_div(a, b):
    """`/` of round rules: exact (a Fraction) for whole numbers and fractions; real (a float) as
    soon as one side is real, dividing by a fraction as a multiplication and a division by whole
    numbers so that an exact quotient stays exact."""
    if type(a) is float or type(b) is float:
        if b == 0:
            raise ZeroDivisionError("division by zero")
        if isinstance(b, Fraction):
            return (a * b.denominator) / b.numerator
        if isinstance(a, Fraction):
            return a.numerator / (a.denominator * b)
        return a / b
    if type(a) is int and type(b) is int:
        return Fraction(a, b)
    return Fraction(a) / Fraction(b)


def round_floordiv(a, b):
    """`//` of round rules: whole numbers divide directly; anything else exactly, then down."""
    if type(a) is int and type(b) is int:
        return a // b
    return floordiv(a, b)


def card_text(card) -> str:
    return f"{card[0]} of {card[1]}"


def new_state(module) -> GameState:
    """The state before setup: every value at its initial value, the whole deck in order, no hand."""
    values = {name: s["initial"] for name, s in module.STATS.items()}
    values.update({name: f["initial"] for name, f in module.FLAGS.items()})
    values.update({name: t["start"] for name, t in module.TRACKS.items()})
    deck = []
    if module.CARD_DECK is not None:
        deck = [(rank, suit) for suit, _ in module.CARD_DECK["suits"] for rank, _ in module.CARD_DECK["ranks"]]
    return GameState(values, deck=deck)


def new_game(module, rng) -> tuple[GameState, list]:
    """A fresh game: the initial state after the rulebook's setup (which may shuffle and deal)."""
    state = new_state(module)
    if module.SETUP is None:
        return state, []
    return run_phase(module, "setup", state, rng)


def run_phase(module, phase: str, state: GameState, rng) -> tuple[GameState, list]:
    """Apply one phase (or "setup"); errors are reported at the rulebook line that caused them."""
    if phase == "setup":
        fn = module.SETUP
    else:
        fn = _phase_functions(module).get(phase)
    if fn is None:
        raise KeyError(phase)
    try:
        return fn(state, rng)
    except RulebookRuntimeError:
        raise
    except (ArithmeticError, TypeError, ValueError, KeyError, RecursionError) as exc:
        raise located(exc, module) from exc


def _phase_functions(module) -> dict:
    table = module.__dict__.get("_PHASE_FUNCTIONS")
    if table is None:
        table = {pid: fn for pid, _, fn in module.PHASES}
        module._PHASE_FUNCTIONS = table
    return table


def ended_by(module, state: GameState) -> str | None:
    """The text of the first `end when` condition that holds, or None."""
    if not module.ENDS:
        return None
    s = RoundState.view(module, state)
    for fn, text, _line in module.ENDS:
        if fn(s):
            return text
    return None


def play_round(module, state: GameState, rng) -> tuple[GameState, list]:
    """One round: every phase in order; stops after a phase that ends the game."""
    state = state.copy()
    state.round += 1
    trace: list = []
    for pid, _name, _fn in module.PHASES:
        state, entries = run_phase(module, pid, state, rng)
        trace.extend(entries)
        why = ended_by(module, state)
        if why is not None:
            state.ended = why
            trace.append({"round": state.round, "phase": pid, "rule": None, "line": None, "op": "end", "why": why})
            break
    return state, trace


class RoundState:
    """The working state inside one phase function: what compiled statements read and change."""

    def __init__(self, module, state: GameState, rng, phase: str | None, check: bool = True):
        self.m = module
        self.v = dict(state.values)
        # the card piles are shared with the given state until a statement changes them
        self.hand, self.deck, self.discard = state.hand, state.deck, state.discard
        self._own_cards = False
        self.on = set(state.on)
        self.choices = state.choices
        self.round = state.round
        self.ended = state.ended
        self.rng = rng
        self.phase = phase
        self.trace: list[dict] = []
        self.rules: list[str] = []
        self._checking = False
        self._pending: set = set()
        if check and module.THRESHOLDS and not state.settled:
            self._check(set(module.THRESHOLDS))  # thresholds switched on by changes made outside a phase

    @classmethod
    def view(cls, module, state: GameState) -> "RoundState":
        """A read-only view of a state, for evaluating conditions between phases (nothing copied)."""
        s = cls.__new__(cls)
        s.m, s.v, s.hand, s.deck, s.discard = module, state.values, state.hand, state.deck, state.discard
        s.on, s.choices, s.round, s.ended = state.on, state.choices, state.round, state.ended
        s.rng, s.phase, s.trace, s.rules, s._checking, s._pending = None, None, [], [], False, set()
        s._own_cards = False
        return s

    # --- reading
    def threshold(self, name: str) -> bool:
        return self.m.THRESHOLDS[name]["test"](self)

    def choice(self, name: str):
        if name in self.choices:
            return self.choices[name]
        return self.m.CHOICES[name]["default"](self)

    def hand_value(self, color=None) -> int:
        cards = self.m.CARDS
        return sum(cards[c][0] for c in self.hand if color is None or cards[c][1] == color)

    def hand_cards(self, color=None) -> int:
        if color is None:
            return len(self.hand)
        cards = self.m.CARDS
        return sum(1 for c in self.hand if cards[c][1] == color)

    def hand_limit(self) -> int:
        deck = self.m.CARD_DECK
        limit = deck["hand_limit"] if deck else None
        return limit if limit is not None else 10 ** 6

    # --- the trace
    def _entry(self, op: str, line, **data) -> dict:
        entry = {"round": self.round, "phase": self.phase, "rule": self.rules[-1] if self.rules else None,
                 "line": line, "op": op}
        entry.update(data)
        self.trace.append(entry)
        return entry

    def push_rule(self, label: str, line: int) -> None:
        self.rules.append(label)

    def pop_rule(self) -> None:
        self.rules.pop()

    def instead(self, line: int, replaced: list) -> None:
        if replaced:
            self._entry("instead", line, replaces=list(replaced))

    def _fail(self, line, message: str):
        raise RulebookRuntimeError(f"{self.m.SOURCE_PATH}:{line}: {message}")

    # --- changing values
    def _whole(self, name: str, value, line):
        if type(value) is int:
            return value
        if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
            what = "true/false" if isinstance(value, bool) else ("a real number" if isinstance(value, float)
                                                                else type(value).__name__)
            self._fail(line, f"`{name}` holds a whole number; got {what} ({value!r})")
        if isinstance(value, Fraction):
            if value.denominator != 1:
                self._fail(line, f"`{name}` holds a whole number; got the fraction {value}")
            value = int(value)
        return value

    def _store(self, name: str, value, line):
        """Clamp into bounds, store, and return the value before."""
        spec = self.m.STATS.get(name) or self.m.TRACKS.get(name)
        if spec is not None:
            value = self._whole(name, value, line)
            if spec["low"] is not None and value < spec["low"]:
                value = spec["low"]
            if spec["high"] is not None and value > spec["high"]:
                value = spec["high"]
        elif name in self.m.FLAGS:
            if not isinstance(value, bool):
                self._fail(line, f"`{name}` is a flag: it holds true or false, not {value!r}")
        else:
            self._fail(line, f"`{name}` is not a stat, flag or track")
        before = self.v[name]
        self.v[name] = value
        return before, value

    def _after(self, name: str, before, after) -> None:
        if before == after:
            return
        track = self.m.TRACKS.get(name)
        if track is not None and after in track["marks"]:
            label, fn, mark_line = track["marks"][after]
            self._entry("reached", mark_line, track=name, position=after, label=label)
            if fn is not None:
                self.rules.append(label)
                fn(self)
                self.rules.pop()
        watch = self.m.THRESHOLD_WATCH.get(name)
        if watch:
            self._check(watch)

    def set(self, name: str, value, line: int) -> None:
        before, after = self._store(name, value, line)
        rules = self.rules
        self.trace.append({"round": self.round, "phase": self.phase, "rule": rules[-1] if rules else None,
                           "line": line, "op": "set", "name": name, "before": before, "after": after})
        if before != after:
            self._after(name, before, after)

    def add(self, name: str, delta, line: int) -> None:
        if type(delta) is not int:
            delta = self._whole(name, delta, line)
        before, after = self._store(name, self.v[name] + delta, line)
        rules = self.rules
        self.trace.append({"round": self.round, "phase": self.phase, "rule": rules[-1] if rules else None,
                           "line": line, "op": "add", "name": name, "by": delta, "before": before, "after": after})
        if before != after:
            self._after(name, before, after)

    def move(self, name: str, steps, line: int) -> None:
        steps = self._whole(name, steps, line)
        before, after = self._store(name, self.v[name] + steps, line)
        self._entry("move", line, name=name, by=steps, before=before, after=after, stage=self.stage(name, after))
        self._after(name, before, after)

    def reset(self, name: str, line: int) -> None:
        if name in self.m.TRACKS:
            value = self.m.TRACKS[name]["start"]
        elif name in self.m.STATS:
            value = self.m.STATS[name]["initial"]
        else:
            value = self.m.FLAGS[name]["initial"]
        before, after = self._store(name, value, line)
        self._entry("reset", line, name=name, before=before, after=after)
        self._after(name, before, after)

    def stage(self, track: str, position: int | None = None) -> str | None:
        position = self.v[track] if position is None else position
        for low, high, label in self.m.TRACKS[track]["stages"]:
            if low <= position <= high:
                return label
        return None

    # --- thresholds
    def _check(self, names) -> None:
        if self._checking:
            self._pending.update(names)
            return
        self._checking = True
        try:
            pending = set(names)
            for _ in range(100):
                if not pending:
                    return
                current, pending = pending, set()
                self._pending = pending
                for name, th in self.m.THRESHOLDS.items():
                    if name not in current:
                        continue
                    now = bool(th["test"](self))
                    if now == (name in self.on):
                        continue
                    (self.on.add if now else self.on.discard)(name)
                    self._entry("threshold", th["line"], name=name, label=th["name"], state="on" if now else "off")
                    if now and th["body"] is not None:
                        self.rules.append(th["name"])
                        th["body"](self)
                        self.rules.pop()
            if pending:
                self._fail(self.m.THRESHOLDS[next(iter(pending))]["line"], "thresholds keep switching each other")
        finally:
            self._checking = False
            self._pending = set()

    # --- dice
    def roll(self, pool: str, line: int):
        spec = self.m.POOLS[pool]
        sides, terms = spec["dice"](self)
        sides = self._whole(f"{pool}.sides", sides, line)
        if sides < 1:
            self._fail(line, f"pool `{pool}` has {sides} sides")
        terms = [(label, self._whole(pool, n, line)) for label, n in terms]
        size = max(0, sum(n for _, n in terms))
        randint = self.rng.randint
        dice = [randint(1, sides) for _ in range(size)]
        success = spec["success"]
        if success is None:
            result = sum(dice)
        else:
            low, high = success
            high = sides if high is None else high
            result = sum(1 for d in dice if low <= d <= high)
        self._entry("roll", line, pool=pool, sides=sides, terms=[{"label": lb, "dice": n} for lb, n in terms if n],
                    dice=dice, result=result)
        return result

    def roll_table(self, table: str, line: int) -> int:
        spec = self.m.EVENT_TABLES[table]
        face = self.rng.randint(1, spec["die"])
        for low, high, label, fn, row_line in spec["rows"]:
            if low <= face <= high:
                self._entry("event", row_line, table=table, face=face, row=label)
                self.rules.append(label)
                fn(self)
                self.rules.pop()
                return face
        self._fail(line, f"no row of `{table}` covers {face}")

    # --- cards
    def _cards(self) -> None:
        if not self._own_cards:
            self.hand, self.deck, self.discard = list(self.hand), list(self.deck), list(self.discard)
            self._own_cards = True

    def shuffle(self, line: int) -> None:
        self._cards()
        self.rng.shuffle(self.deck)
        self._entry("shuffle", line, cards=len(self.deck))

    def draw(self, n, line: int) -> None:
        n = self._whole("draw", n, line)
        self._cards()
        drawn = []
        limit = self.hand_limit()
        for _ in range(max(0, n)):
            if len(self.hand) >= limit:
                break
            if not self.deck:
                if not self.discard:
                    break
                self.deck, self.discard = self.discard, []
                self.rng.shuffle(self.deck)
                self._entry("reshuffle", line, cards=len(self.deck))
            card = self.deck.pop(0)
            self.hand.append(card)
            drawn.append(card_text(card))
        self._entry("draw", line, asked=n, cards=drawn)
        if drawn and "@hand" in self.m.THRESHOLD_WATCH:
            self._check(self.m.THRESHOLD_WATCH["@hand"])

    def discard_to(self, n, line: int) -> None:
        """Discard down to n cards, the lowest-valued first (among equals, the earliest held)."""
        n = max(0, self._whole("discard", n, line))
        self._cards()
        gone = []
        cards = self.m.CARDS
        while len(self.hand) > n:
            i = min(range(len(self.hand)), key=lambda k: (cards[self.hand[k]][0], k))
            card = self.hand.pop(i)
            self.discard.append(card)
            gone.append(card_text(card))
        self._entry("discard", line, to=n, cards=gone)
        if gone and "@hand" in self.m.THRESHOLD_WATCH:
            self._check(self.m.THRESHOLD_WATCH["@hand"])

    def finish(self) -> tuple[GameState, list]:
        state = GameState.__new__(GameState)  # hands over this phase's values without copying them again
        state.values, state.on, state.choices = self.v, self.on, self.choices
        state.hand, state.deck, state.discard = self.hand, self.deck, self.discard
        state.round, state.ended, state.settled = self.round, self.ended, True
        return state, self.trace
