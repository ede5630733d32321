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

def div(a, b):
    return Fraction(a) / Fraction(b)


def floordiv(a, b):
    return math.floor(Fraction(a) / Fraction(b))


def floor(x):
    return math.floor(x)


def ceil(x):
    return math.ceil(x)


def sqrt(x):
    return math.sqrt(x)


min = min  # noqa: A001 - re-exported under the rulebook's name
max = max  # noqa: A001
abs = abs  # noqa: A001


def lookup(bands, x):
    for low, high, value in bands:
        if x >= low and (high is None or x <= high):
            return value
    raise ValueError(f"no band of the table covers {x}")


def number(v):
    """Integral Fractions print as integers."""
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v)
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

    def holds(self, name: str) -> bool:
        return name in self.held_set

    def fact(self, name: str):
        if name in self.facts:
            return self.facts[name]
        if name == "unit_points" and "tokens" in self.facts and "cities" in self.facts:
            return self.facts["tokens"] + self.facts["cities"] * self.module.UNIT_POINTS["city"]
        if name not in self.missing:
            self.missing.append(name)
        return 0

    def cards(self, name: str) -> int:
        return int(self.facts.get("commodities", {}).get(name, 0))

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
            return hand_value(self.module, self.facts.get("commodities", {}))["total"]
        if name == "ast_points":
            standing = ast_standing(self.module, self)
            return standing["points"] if standing else 0
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
        return [{"op": op, "kind": kind, "param": param, "value": number(value), "before": number(before),
                 "after": number(after), "by": list(by), "path": path, "line": line}
                for op, kind, param, value, before, after, by, line, path in self._trace]

    @property
    def options(self) -> list[dict]:
        return [{"instead_of": instead, "kind": kind, "args": {k: number(v) for k, v in args.items()}, "each": each,
                 "by": list(by), "path": path, "line": line} for instead, kind, args, each, by, line, path in self._options]

    def amount(self, kind: str):
        for k, args, _line in self._effects:
            if k == kind:
                return args.get("amount", True)
        return None

    def to_dict(self) -> dict:
        out = {
            "calamity": self.calamity,
            "role": self.role,
            "cancelled": self.is_cancelled,
            "immune": self.immune,
            "effects": [{"kind": kind, **{k: number(v) for k, v in args.items()}} for kind, args, _ in self._effects],
            "trace": self.trace,
            "options": self.options,
            "missing_facts": list(self.state.missing),
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
                                "effects": [{"kind": k, **{a: number(v) for a, v in args.items()}} for k, args in effects]}
        return out


def cancelled(module, calamity: str, role: str, state: PlayerState, line: int, why: str, path: str) -> Resolution:
    return Resolution.make(module, calamity, role, state, [("cancelled", {}, line)], cancel_reason=(line, why, path))


def clamp(value):
    """Effects never go below zero (prevention cannot make a victim gain anything)."""
    return 0 if value is not None and not isinstance(value, bool) and value < 0 else value


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

def requirement(text: str, left, op: str, right, line: int, each_step: bool = False) -> dict:
    met = {"==": left == right, "!=": left != right, "<": left < right, "<=": left <= right,
           ">": left > right, ">=": left >= right}[op]
    return {"requirement": text, "met": bool(met), "value": number(left), "needs": f"{op} {number(right)}", "line": line,
            "each_step": each_step}


def requirement_bool(text: str, value, line: int, each_step: bool = False) -> dict:
    return {"requirement": text, "met": bool(value), "value": bool(value), "needs": "true", "line": line,
            "each_step": each_step}


def requirement_any(text: str, alternatives: list, line: int, each_step: bool = False) -> dict:
    """A requirement met by any one of its alternatives (each a list of parts that must all hold);
    every part keeps the player's own count, so a met "or" still shows what was counted."""
    met = any(all(p["met"] for p in alt) for alt in alternatives)
    return {"requirement": text, "met": met, "value": None, "needs": "any", "line": line, "each_step": each_step,
            "alternatives": alternatives}


def epochs(module, track: str, state: PlayerState) -> dict:
    t = module.AST[track]
    out = []
    reached = None
    still = True
    for name, fn in t["epochs"]:
        reqs = fn(state)
        met = all(r["met"] for r in reqs)
        still = still and met
        if still:
            reached = name
        out.append({"epoch": name, "met": met, "requirements": reqs})
    backward = [b(state) for b in t["backward"]]
    result = {"track": track, "name": t["name"], "epochs": out, "reached": reached,
              "moves_backward": any(b["met"] for b in backward), "backward_rules": backward}
    if "ast_position" in state.facts or "civilization" in state.facts:
        result["marker"] = marker(module, track, state, out, backward)
        result["moves_backward"] = result["marker"]["move"] == "back"
    result["missing_facts"] = list(state.missing)
    return result


# --- the player's marker: position -> epoch on the player's own row ---------------------------

class AstRowUnknown(Exception):
    """The epoch of a position cannot be told: no row for the civilization, or rows disagree."""


def ast_rows(module, track: str, civilization: str | None) -> list[dict]:
    """The rows a marker may be on: the civilization's own, or without one every declared row.
    Raises AstRowUnknown when there is none."""
    t = module.AST[track]
    civs = getattr(module, "CIVILIZATIONS", {})
    if civilization is not None:
        row = civs.get(civilization, {}).get("rows", {}).get(track)
        if row is None:
            raise AstRowUnknown(f"the rulebook gives no row on {t['name']} for {civilization}")
        return [row]
    rows = [c["rows"][track] for c in civs.values() if track in c["rows"]]
    if not rows:
        raise AstRowUnknown(f"the rulebook gives no civilization's row on {t['name']}")
    return rows


def epoch_index(row: dict, position: int) -> int:
    """The epoch (0 = the first) of a space; the start arrow (space 0) is in the first epoch."""
    index = 0
    for i, start in enumerate(row["starts"]):
        if position >= start:
            index = i + 1
    return index


def _agreed(values: set, what: str) -> int:
    if len(values) > 1:
        raise AstRowUnknown(f"{what} differs by civilization: give `civilization`")
    return next(iter(values))


def marker(module, track: str, state: PlayerState, epochs_out: list, backward: list) -> dict:
    """Where the marker is, what moving one space forward needs, and whether it moves at all.
    Without a civilization the answer stands only where every row agrees."""
    t = module.AST[track]
    names = [name for name, _ in t["epochs"]]
    civ = state.facts.get("civilization")
    position = state.fact("ast_position")
    out = {"civilization": civ, "space": position, "epoch": None, "next_space": None, "next_epoch": None,
           "needs": [], "meets": None, "move": None, "finish": None, "row": None, "unknown": None}
    try:
        rows = ast_rows(module, track, civ)
        finish = _agreed({r["spaces"] for r in rows}, f"the last space of {t['name']}")
        if position > finish:
            raise AstRowUnknown(f"space {position} is beyond the finish of {t['name']} (space {finish})")
        here = _agreed({epoch_index(r, position) for r in rows}, f"the epoch of space {position}")
        there = None
        if position < finish:
            there = _agreed({epoch_index(r, position + 1) for r in rows}, f"the epoch of space {position + 1}")
    except AstRowUnknown as exc:
        out["unknown"] = str(exc)
        return out
    if len(rows) == 1:
        out["row"] = {"spaces": rows[0]["spaces"], "starts": dict(zip(names[1:], rows[0]["starts"]))}
    out["finish"] = finish
    out["epoch"] = names[here]
    exempt = names[here] in t["backward_except"]
    out["backward_exempt"] = exempt
    if any(b["met"] for b in backward) and not exempt and position > 0:
        out["move"] = "back"
        out["back_to"] = position - 1
        out["back_rules"] = [b for b in backward if b["met"]]
    if there is None:
        out["move"] = out["move"] or "finished"
        return out
    out["next_space"], out["next_epoch"] = position + 1, names[there]
    reqs = epochs_out[there]["requirements"]
    # entering an epoch needs all its requirements; a step inside one only those marked `each step`
    out["needs"] = reqs if there != here else [r for r in reqs if r.get("each_step")]
    out["meets"] = all(r["met"] for r in out["needs"])
    if out["move"] is None:
        out["move"] = "forward" if out["meets"] else "stays"
    return out


def ast_standing(module, state: PlayerState) -> dict | None:
    """The marker's space and the points it is worth, on the track the state names (or the only one,
    or any when every track values a step alike)."""
    tracks = list(module.AST)
    chosen = state.facts.get("ast_track")
    if chosen is None:
        values = {module.AST[t]["step_points"] for t in tracks}
        if len(tracks) == 1 or len(values) == 1:
            chosen = tracks[0] if tracks else None
    if chosen is None:
        state.fact("ast_track")  # recorded as missing
        return None
    points = module.AST[chosen]["step_points"]
    if points is None:
        return None
    position = state.fact("ast_position")
    return {"track": chosen, "space": position, "points": position * points, "per_step": points}


def score(module, state: PlayerState) -> dict:
    points = [{"label": label, "points": number(fn(state)), "line": line} for label, fn, line in module.SCORE_POINTS]
    for p in points:
        if p["line"] in getattr(module, "SCORE_AST", ()):
            p["ast_space"] = state.fact("ast_position")
    ties = [{"label": label, "value": number(fn(state)), "line": line} for label, fn, line in module.SCORE_TIEBREAKS]
    return {"points": points, "total": sum(p["points"] for p in points), "tiebreaks": ties,
            "missing_facts": list(state.missing)}
