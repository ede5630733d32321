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
        self.start_credits: dict | None = None  # what `start_credits` gave, once applied to `credits`

    def holds(self, name: str) -> bool:
        return name in self.held_set

    def fact(self, name: str):
        if name in self.facts:
            return self.facts[name]
        if name == "unit_points" and "tokens" in self.facts and "cities" in self.facts:
            return self.facts["tokens"] + self.facts["cities"] * self.module.UNIT_POINTS["city"]
        defaults = getattr(self.module, "FACT_DEFAULTS", {})
        if name in defaults:  # an absent fact with a meaning of its own (no scenario: the full game)
            return defaults[name]
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
    single_use = "single_use" in getattr(module, "CREDIT_VARIANTS", ())
    for name in ([] if single_use else buys):
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
    if single_use:
        rows = _single_use_rows(module, holds, list(buys), extra_credits or {})
    _same_turn_abilities(module, rows)
    for row in rows:  # an advance a held or bought card acquires automatically costs nothing
        for source in holds + [b for b in buys if b != row["advance"]]:
            for args in ability(module, source, "acquire_all"):
                adv = module.ADVANCES[row["advance"]]
                if (row["price"] and args["group"] in adv["groups"] and adv["cost"] is not None
                        and adv["cost"] < args["cost_below"]):
                    row["credits"].append({"from": f"{source} (acquired automatically)", "amount": row["price"]})
                    row["price"] = 0
    for row in rows:
        if row["price"] is not None:
            row["price"] = max(0, row["price"])
    known = [r["price"] for r in rows if r["price"] is not None]
    treasury_value = max([a["value"] for h in holds for a in ability(module, h, "treasury_value")] or [1])
    return {
        "policy": policy,
        "variants": list(getattr(module, "CREDIT_VARIANTS", ())),
        "items": rows,
        "acquired": acquired_with(module, holds, buys),
        "total": sum(known) if len(known) == len(rows) else None,
        "unknown": [r["advance"] for r in rows if r["price"] is None],
        "treasury_value": treasury_value,
    }


def _single_use_rows(module, holds: list, buys: list, extra: dict) -> list[dict]:
    """The strict reading (variant `single_use`): each held card's credit, and each group's free
    credit tokens, count toward one advance of the turn only. Under `best_group` a card gives an
    advance its credit in the group the advance is discounted by (one group per advance, the
    better choice tried for each dual-group advance) plus its specific credit; under `per_card`
    the larger of the two. Each credit goes where it saves most, the largest saving first; a
    credit larger than what is left of a price saves only the rest."""
    sources = [(h, module.ADVANCES[h]["credits"], module.ADVANCES[h]["specific"]) for h in holds]
    sources += [(f"{g} credits", {g: int(a)}, {}) for g, a in sorted(extra.items()) if a]
    priced = [b for b in buys if module.ADVANCES[b]["cost"] is not None]
    choices = [module.ADVANCES[b]["groups"] or ("",) for b in priced]
    best = None
    for combo in _group_choices(choices):
        group_of = dict(zip(priced, combo))
        left = {b: module.ADVANCES[b]["cost"] for b in priced}
        given: dict[str, list] = {b: [] for b in priced}
        unused = list(range(len(sources)))
        while unused:
            pick = None
            for i in unused:
                name, gcred, spec = sources[i]
                for b in priced:
                    if left[b] <= 0:
                        continue
                    if module.CREDIT_POLICY == "per_card":
                        value = max(max([gcred.get(g, 0) for g in module.ADVANCES[b]["groups"]] or [0]), spec.get(b, 0))
                    else:
                        value = gcred.get(group_of[b], 0) + spec.get(b, 0)
                    saving = min(value, left[b])
                    if saving > 0 and (pick is None or saving > pick[0]):
                        pick = (saving, i, b)
            if pick is None:
                break
            saving, i, b = pick
            left[b] -= saving
            given[b].append({"from": f"{sources[i][0]} (single use)", "amount": saving})
            unused.remove(i)
        total = sum(module.ADVANCES[b]["cost"] - left[b] for b in priced)
        if best is None or total > best[0]:
            best = (total, given)
    rows = []
    for name in buys:
        adv = module.ADVANCES[name]
        if adv["cost"] is None:
            rows.append({"advance": name, "printed": None, "credits": [], "price": None,
                         "note": "the printed cost is unknown in this rulebook"})
            continue
        credits = best[1][name] if best else []
        rows.append({"advance": name, "printed": adv["cost"], "credits": credits,
                     "price": adv["cost"] - sum(c["amount"] for c in credits)})
    return rows


def _group_choices(choices: list) -> list[tuple]:
    """Every way to pick one group per advance (dual-group advances give two), at most 64."""
    combos = [()]
    for options in choices:
        combos = [c + (g,) for c in combos for g in options][:64]
    return combos


def purchase_problems(module, holds, buys) -> list[dict]:
    """Why a purchase is not allowed, advance by advance: the checks `plan` applies to its
    candidates. Prerequisites must be held before this turn: all advances of a turn are bought
    together (1981 17.10), so one bought alongside does not count; a `card_limit` constant caps
    the advances held."""
    held = set(holds)
    out, seen = [], set()
    for name in buys:
        adv = module.ADVANCES[name]
        if name in held:
            out.append({"advance": name, "why": "already held"})
        elif name in seen:
            out.append({"advance": name, "why": "named twice: one copy of each advance"})
        else:
            missing = [r for r in adv["requires"] if r not in held]
            if missing:
                alongside = [r for r in missing if r in buys]
                why = f"needs {', '.join(missing)} held before this turn"
                if alongside:
                    why += " (bought in the same turn does not count)"
                out.append({"advance": name, "why": why})
        seen.add(name)
    limit = module.CONSTS.get("card_limit")
    if limit is not None and len(held | seen) > limit:
        out.append({"advance": None, "why": f"{len(held | seen)} advances held after the purchase, but the card "
                                            f"limit is {limit}"})
    return out


def acquired_with(module, holds, buys) -> list[dict]:
    """Advances gained at no cost by buying an advance with `acquire_all` (the Expansion Project's
    Anatomy, 33.0681): every one of its group under its cost bound that the player lacks."""
    owned = set(holds) | set(buys)
    out = []
    for source in buys:  # a held source acquired its cards already; a state lacking them prices them at 0
        for args in ability(module, source, "acquire_all"):
            for name, adv in module.ADVANCES.items():
                if (name not in owned and args["group"] in adv["groups"] and adv["cost"] is not None
                        and adv["cost"] < args["cost_below"]):
                    owned.add(name)
                    out.append({"advance": name, "printed": adv["cost"], "price": 0,
                                "credits": [{"from": f"{source} (acquired automatically)", "amount": adv["cost"]}]})
    return out


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


def start_credits(module, state: PlayerState) -> dict | None:
    """The credit points of each group the player started with, from the rulebook's `start credits`
    (e.g. Mega Civilization's table by number of players, none in The Short Game). Facts it needs
    and lacks are listed under `missing` (not in the state's own list: a calamity never needs them)."""
    sc = getattr(module, "START_CREDITS", None)
    if sc is None:
        return None
    probe = PlayerState(module, state.held, state.facts)
    amount, waived, problem = None, False, None
    try:
        waived = sc["unless"] is not None and bool(sc["unless"](probe))
        amount = 0 if waived else number(sc["amount"](probe))
    except ValueError as exc:  # a table without a band for this count (or for a missing fact read as 0)
        problem = str(exc)
    if probe.missing or problem:
        amount = None
    used = [g for g in state.facts.get("start_credits_used") or []]
    groups = {} if amount is None else {g: (0 if sc["once"] and g in used else amount) for g in module.GROUPS}
    return {"per_group": amount, "groups": groups, "waived": waived, "once": sc["once"], "used": used,
            "missing": list(probe.missing), "problem": None if probe.missing else problem, "doc": sc["doc"],
            "line": sc["line"]}


def apply_start_credits(module, state: PlayerState) -> None:
    """Start credit tokens are credit tokens the player holds: they join the freely allocated
    `credits`, so prices, plans and the credit tie-breakers all count them."""
    info = start_credits(module, state)
    state.start_credits = info
    if info and info["groups"]:
        credits = dict(state.facts.get("credits") or {})
        for g, amount in info["groups"].items():
            if amount:
                credits[g] = credits.get(g, 0) + amount
        state.facts["credits"] = credits


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
