"""The calamity phase of a whole table (issue 13 §3, `civdsl table`).

Everything edition-specific is read from the compiled rulebook: the calamity limits, the
discard rule and the order of resolution (`TABLE_RULES`, from `resolution { ... }`), each
calamity's beneficiary kind and its `resolution` exceptions (`CALAMITIES`), and the effects
(`CALAMITY_FUNCTIONS`). The phase:

1. limits: each primary victim keeps at most the declared numbers of calamities (all, major,
   minor); the rest are discarded, duplicates first where the edition says so, then at random
   (`random.Random(seed)`);
2. order: the kept calamities sorted by the declared keys (minor first, stack, the non-tradable
   of a stack first, A.S.T. ranking), the table file's order breaking what remains;
3. each calamity: its beneficiary by the declared rule, the primary victim resolved with table
   queries answered from the table, then each secondary victim with his own advances on the
   amount assigned to him (by the table, or by the declared default policy).

Each calamity is resolved against the table as given: the table has no map, so the losses of
one calamity are not taken from the facts before the next (the answer lists them all).
A fact the answer needs and the table does not give is named, never guessed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from . import runtime
from .errors import StateError
from .table import Seat, Table


@dataclass
class Discard:
    victim: str
    calamity: str
    index: int
    why: str  # "duplicate" or "random"


@dataclass
class Beneficiary:
    name: str | None
    why: str  # in words: "the trader", "most cities in stock (4), then tokens in stock", ...
    candidates: list[str] = field(default_factory=list)


@dataclass
class Resolved:
    """One calamity of the phase: who suffers what, and why."""

    index: int
    calamity: str
    victim: str
    traded_by: str | None
    beneficiary: Beneficiary | None
    primary: runtime.Resolution
    secondary: list[tuple[str, int | None, runtime.Resolution]]
    notes: list[str]
    missing: list[str]


@dataclass
class Phase:
    table: Table
    discarded: list[Discard]
    resolved: list[Resolved]
    seed: int | None
    notes: list[str]

    @property
    def missing_facts(self) -> list[str]:
        out: list[str] = []
        for r in self.resolved:
            for f in r.missing:
                if f not in out:
                    out.append(f)
        return out

    @property
    def complete(self) -> bool:
        return not self.missing_facts

    def to_dict(self, only: str | None = None) -> dict:
        rules = self.table.module.TABLE_RULES
        shown = [r for r in self.resolved if only is None or r.calamity == only]
        return {
            "complete": self.complete,
            "players": [{"name": n, "ast_rank": self.table.ranks.get(n)} for n in self.table.players],
            "rules": {k: (list(v) if isinstance(v, tuple) else v) for k, v in rules.items() if k != "lines"},
            "seed": self.seed,
            "discarded": [{"victim": d.victim, "calamity": d.calamity, "index": d.index, "why": d.why}
                          for d in self.discarded],
            "calamities": [_resolved_dict(r) for r in shown],
            "outcomes": outcomes(shown, list(self.table.players)),
            "notes": list(self.notes),
            "missing_facts": self.missing_facts,
        }


def _resolved_dict(r: Resolved) -> dict:
    return {
        "index": r.index, "calamity": r.calamity, "victim": r.victim, "traded_by": r.traded_by,
        "beneficiary": None if r.beneficiary is None else {"name": r.beneficiary.name, "why": r.beneficiary.why,
                                                           "candidates": r.beneficiary.candidates},
        "primary": r.primary.to_dict(),
        "secondary": [{"player": name, "assigned": amount, **res.to_dict()} for name, amount, res in r.secondary],
        "notes": list(r.notes),
        "missing_facts": list(r.missing),
    }


def outcomes(resolved: list[Resolved], players: list[str]) -> dict:
    """Each player's part in the phase: the calamities he suffers (as primary or secondary victim)
    and those he benefits from, in the order of resolution."""
    out: dict = {p: [] for p in players}
    for r in resolved:
        out[r.victim].append({"calamity": r.calamity, "role": "primary", "cancelled": r.primary.is_cancelled,
                              "effects": r.primary.to_dict()["effects"]})
        for name, amount, res in r.secondary:
            out[name].append({"calamity": r.calamity, "role": "secondary", "assigned": amount,
                              "cancelled": res.is_cancelled, "effects": res.to_dict()["effects"]})
        if r.beneficiary is not None and r.beneficiary.name is not None:
            out[r.beneficiary.name].append({"calamity": r.calamity, "role": "beneficiary", "effects": []})
    return out


# --- 1. limits ---------------------------------------------------------------------------------

def _is_major(module, name: str) -> bool:
    return module.CALAMITIES[name]["class"].startswith("major")


def apply_limits(table: Table, rng: random.Random) -> tuple[list[dict], list[Discard]]:
    """The calamities each victim keeps, and those discarded, as the edition declares."""
    module = table.module
    rules = module.TABLE_RULES
    kept: list[dict] = []
    discarded: list[Discard] = []
    by_victim: dict[str, list[dict]] = {}
    for c in table.calamities:
        by_victim.setdefault(c["victim"], []).append(c)
    for victim, held in by_victim.items():
        held = list(held)
        for how in rules["discard"]:
            if how == "duplicates":
                # one of each name held twice goes first (identical cards: which one does not matter)
                seen: set[str] = set()
                for c in list(held):
                    if c["calamity"] in seen:
                        held.remove(c)
                        discarded.append(Discard(victim, c["calamity"], c["index"], "duplicate"))
                    seen.add(c["calamity"])
            elif how in ("random", "highest_stack"):
                for c in _over_limits(module, rules, held, rng if how == "random" else None):
                    held.remove(c)
                    discarded.append(Discard(victim, c["calamity"], c["index"], how))
        kept.extend(held)
    kept.sort(key=lambda c: c["index"])
    return kept, discarded


def _over_limits(module, rules: dict, held: list[dict], rng: random.Random | None) -> list[dict]:
    """Calamities discarded until every declared limit holds (major, then minor, then all): drawn
    at random, or without `rng` the one of the highest stack (the latest drawn of equal ones)."""
    out: list[dict] = []
    left = list(held)
    for limit, chosen in ((rules["major_limit"], lambda c: _is_major(module, c["calamity"])),
                          (rules["minor_limit"], lambda c: not _is_major(module, c["calamity"])),
                          (rules["limit"], lambda c: True)):
        if limit is None:
            continue
        while True:
            pool = [c for c in left if chosen(c)]
            if len(pool) <= limit:
                break
            if rng is not None:
                gone = pool[rng.randrange(len(pool))]
            else:
                gone = max(pool, key=lambda c: (module.CALAMITIES[c["calamity"]]["stack"] or 0, c["index"]))
            left.remove(gone)
            out.append(gone)
    return out


# --- 2. order ----------------------------------------------------------------------------------

def order(table: Table, kept: list[dict], notes: list[str]) -> list[dict]:
    module = table.module
    keys = module.TABLE_RULES["order"]

    def key(c: dict) -> tuple:
        cal = module.CALAMITIES[c["calamity"]]
        out = []
        for k in keys:
            if k == "minor_first":
                out.append(0 if cal["class"] == "minor" else 1)
            elif k == "stack":
                out.append(cal["stack"] if cal["stack"] is not None else 0)
            elif k == "nontradable_first":
                out.append(0 if cal["class"] == "major nontradable" else 1)
            elif k == "ast":
                rank = table.ranks.get(c["victim"])
                out.append(rank if rank is not None else float("inf"))
        return tuple(out)

    ordered = sorted(kept, key=lambda c: (key(c), c["index"]))
    if "ast" in keys:  # a tie the A.S.T. ranking breaks, with a ranking not given: say so
        for a, b in zip(ordered, ordered[1:]):
            if key(a)[:-1] == key(b)[:-1] and a["victim"] != b["victim"] and \
                    None in (table.ranks.get(a["victim"]), table.ranks.get(b["victim"])):
                notes.append(f"{a['calamity']} of {a['victim']} and {b['calamity']} of {b['victim']} are "
                             "resolved in A.S.T. order, but the table gives no A.S.T. rank for "
                             + " and ".join(v for v in (a["victim"], b["victim"]) if table.ranks.get(v) is None)
                             + ": the table's order is kept")
    return ordered


# --- 3. beneficiary ----------------------------------------------------------------------------

def _value(table: Table, name: str, fact: str):
    st = table.fresh(name)
    from . import vocabulary as vocab

    v = st.derived(fact) if fact in vocab.DERIVED_NAMES else st.fact(fact)
    return v


def beneficiary(table: Table, c: dict, missing: list[str]) -> Beneficiary | None:
    """The beneficiary of one calamity by its declared kind and the edition's ranking rules."""
    module = table.module
    cal = module.CALAMITIES[c["calamity"]]
    kind = cal["beneficiary"]
    if kind == "none":
        return None
    trader = c["traded_by"]
    if kind in ("trader", "trader_or_most_stock") and trader is not None:
        return Beneficiary(trader, "the player who traded the calamity to the victim")
    if kind == "trader":
        return Beneficiary(None, "no trader: the victim drew the card")
    if kind == "nominee":
        return _nominee(table, c, cal["resolution"], missing)
    return _most_stock(table, c, cal["resolution"], missing)


def _nominee(table: Table, c: dict, rules: dict, missing: list[str]) -> Beneficiary:
    """The victim's nominee, as far as the declared rules leave him a choice: forced by a held
    advance (`nominee_forced_if`: the ranking among every player, the victim included), limited to
    the candidates without a fact (`nominee_without`: named without asking when only one is left),
    else any candidate of `beneficiary_among`; a named nominee outside them is an error naming the
    rule."""
    where = f"calamities[{c['index']}] ({c['calamity']})"
    forced_if = rules["nominee_forced_if"]
    if forced_if and table.fresh(c["victim"]).holds(forced_if[0]):
        ben = _most_stock(table, c, {**rules, "beneficiary_among": ("everyone",)}, missing)
        ben.why = f"`nominee_forced_if {forced_if[0]}`: the victim holds {forced_if[0]}, " + ben.why
        return ben
    among = rules["beneficiary_among"][0]
    seat = Seat(table, c["victim"], {})
    related = seat.related(among)
    if related is None:
        missing.append(seat.missing(among))
        return Beneficiary(None, f"the candidates are the victim's {among} players, and the table does not say who")
    candidates = [n for n, _ in related]
    rule = f"`beneficiary_among {among}`"
    for fact in rules["nominee_without"]:
        values = {n: _value(table, n, fact) for n in candidates}
        unknown = [n for n, v in values.items() if v.__class__ is runtime.Unknown]
        if unknown:
            for n in unknown:
                for f in values[n].facts:
                    if f"players.{n}.{f}" not in missing:
                        missing.append(f"players.{n}.{f}")
            return Beneficiary(None, f"`nominee_without {fact}`: not given for {', '.join(unknown)}", candidates)
        without = [n for n in candidates if values[n] == 0]
        if without:
            candidates, rule = without, f"`nominee_without {fact}`: no {fact.replace('_', ' ')}"
            if len(without) == 1:
                return Beneficiary(without[0], f"{rule} (the only one)", candidates)
    chosen = c["beneficiary"]
    if chosen is None:
        missing.append(f"calamities[{c['index']}].beneficiary")
        return Beneficiary(None, f"the victim names a nominee among {', '.join(candidates) or 'nobody'} ({rule}); "
                           "the table does not say whom", candidates)
    if chosen not in candidates:
        raise StateError(f"{where}: `beneficiary` {chosen} may not be the nominee: the rule {rule} allows only "
                         f"{', '.join(candidates) or 'nobody'}")
    return Beneficiary(chosen, f"the victim's nominee ({rule})", candidates)


def _most_stock(table: Table, c: dict, rules: dict, missing: list[str]) -> Beneficiary:
    victim = c["victim"]
    among = rules["beneficiary_among"][0]
    seat = Seat(table, victim, {})
    related = seat.related(among)
    if related is None:
        missing.append(seat.missing(among))
        return Beneficiary(None, f"the candidates are the victim's {among} players, and the table does not say who")
    candidates = [n for n, _ in related]
    if not candidates:
        return Beneficiary(None, "no candidate" + ("" if among == "others" else f" bordering the victim by {among}"))
    ranking = rules["beneficiary_rank"]
    fewest = rules["beneficiary_prefer"] == ("fewest",)
    left = list(candidates)
    said = []
    for fact in ranking:
        values = {n: _value(table, n, fact) for n in left}
        unknown = [n for n, v in values.items() if v.__class__ is runtime.Unknown]
        if unknown:
            for n in unknown:
                for f in values[n].facts:
                    name = f"players.{n}.{f}"
                    if name not in missing:
                        missing.append(name)
            return Beneficiary(None, f"the most {fact.replace('_', ' ')}, not given for {', '.join(unknown)}",
                               candidates)
        best = min(values.values()) if fewest else max(values.values())
        left = [n for n in left if values[n] == best]
        said.append(f"{fact.replace('_', ' ')} {best}")
        if len(left) == 1:
            break
    why = ("fewest " if fewest else "most ") + ", then ".join(said)
    if len(left) == 1:
        return Beneficiary(left[0], why, candidates)
    return _break_tie(table, c, rules["beneficiary_ties"][0], left, why, candidates, missing)


def _break_tie(table: Table, c: dict, ties: str, left: list[str], why: str, candidates: list[str],
               missing: list[str]) -> Beneficiary:
    """The beneficiary among LEFT, tied on every ranked fact: the victim's choice or the first
    in A.S.T. order, as the rulebook's `beneficiary_ties` says."""
    if ties == "victim":
        chosen = c["beneficiary"]
        if chosen is None:
            missing.append(f"calamities[{c['index']}].beneficiary")
            return Beneficiary(None, f"{why}: tied between {', '.join(left)}, and the victim chooses", candidates)
        if chosen not in left:
            raise StateError(f"calamities[{c['index']}] ({c['calamity']}): `beneficiary` {chosen} is not among "
                             f"the tied candidates ({', '.join(left)})")
        return Beneficiary(chosen, f"{why}: tied with {', '.join(n for n in left if n != chosen)}, the victim's "
                           "choice", candidates)
    ranks = {n: table.ranks.get(n) for n in left}
    if None in ranks.values():
        for n, r in ranks.items():
            if r is None and f"players.{n}.ast_rank" not in missing:
                missing.append(f"players.{n}.ast_rank")
        return Beneficiary(None, f"{why}: tied between {', '.join(left)}, broken by the A.S.T. ranking", candidates)
    first = min(left, key=lambda n: ranks[n])
    return Beneficiary(first, f"{why}: tied with {', '.join(n for n in left if n != first)}, first in A.S.T. order",
                       candidates)


# --- 4. the phase ------------------------------------------------------------------------------

def resolve_phase(table: Table, seed: int | None = None) -> Phase:
    module = table.module
    rng = random.Random(seed if seed is not None else 0)
    notes: list[str] = []
    kept, discarded = apply_limits(table, rng)
    if any(d.why == "random" for d in discarded) and seed is None:
        notes.append("calamities over the limits were discarded at random with seed 0 (pass --seed N for another "
                     "draw, or leave the discarded card out of the table)")
    resolved = []
    # who took part in each calamity name so far (`resolution { secondary_once per_name }`): every
    # primary victim of the name from the start, beneficiaries and secondary victims as they come
    taken: dict[str, set] = {}
    if module.TABLE_RULES["secondary_once"] == ("per_name",):
        for c in kept:
            taken.setdefault(c["calamity"], set()).add(c["victim"])
    with runtime.rules_of(module):
        for c in order(table, kept, notes):
            r = _resolve_one(table, c, taken)
            resolved.append(r)
            if module.TABLE_RULES["secondary_once"] == ("per_name",):
                part = taken.setdefault(c["calamity"], set())
                part.update(name for name, _, _ in r.secondary)
                if r.beneficiary is not None and r.beneficiary.name is not None:
                    part.add(r.beneficiary.name)
    return Phase(table, discarded, resolved, seed, notes)


def _resolve_one(table: Table, c: dict, taken: dict | None = None) -> Resolved:
    module = table.module
    missing: list[str] = []
    notes: list[str] = []
    # what naming the beneficiary lacks counts only if the calamity is not cancelled
    ben_missing: list[str] = []
    ben = beneficiary(table, c, ben_missing)
    where = f"calamities[{c['index']}] ({c['calamity']})"
    if c["beneficiary"] is not None and (ben is None or (ben.name is not None and ben.name != c["beneficiary"])):
        said = "has no beneficiary" if ben is None else f"names {ben.name} ({ben.why})"
        raise StateError(f"{where}: `beneficiary` is {c['beneficiary']}, but the rule {said}")
    roles = {"beneficiary": ben.name if ben else None, "trader": c["traded_by"]}
    victim = table.fresh(c["victim"])
    victim.seat = Seat(table, c["victim"], roles)
    victim.facts["traded_by"] = c["traded_by"] or ""  # the table says who traded this card (`traded_by` fact)
    primary = runtime.resolve(module, c["calamity"], "primary", victim)
    if primary.is_cancelled and ben is not None and ben.name is None:
        ben = None  # no calamity, so nobody benefits: what naming him would need is not asked
    else:
        missing.extend(ben_missing)
    secondary = []
    if primary.assignment is None and c["secondary"]:
        raise StateError(f"{where}: `secondary` names secondary victims, but {c['calamity']} has none")
    if primary.assignment is not None and not primary.is_cancelled:
        busy = (taken or {}).get(c["calamity"], set())
        secondary = _secondary(table, c, primary, roles, missing, notes, busy)
    for st in [primary.state] + [r.state for _, _, r in secondary]:
        for f in st.missing:
            if f not in missing:
                missing.append(f)
    return Resolved(c["index"], c["calamity"], c["victim"], c["traded_by"], ben, primary, secondary, notes, missing)


def _secondary(table: Table, c: dict, primary: runtime.Resolution, roles: dict, missing: list[str],
               notes: list[str], busy: set = frozenset()) -> list:
    """The secondary victims: the table's assignment, checked, or the declared default policy."""
    module = table.module
    cal = module.CALAMITIES[c["calamity"]]
    count, share, effects, _line = primary.assignment
    where = f"calamities[{c['index']}] ({c['calamity']})"
    if count.__class__ is runtime.Unknown or share.__class__ is runtime.Unknown:
        return []  # how many depends on a missing fact: already named by the primary's answer
    if count == 0 or share == 0:
        return []
    excluded_roles = {r: roles.get(r) for r in cal["exclude"]}
    # `secondary_among`: only the victim's related players may be named (e.g. his trade block)
    among = cal["resolution"]["secondary_among"][0]
    allowed = None
    if among != "others":
        seat = Seat(table, c["victim"], {})
        related = seat.related(among)
        if related is None:
            missing.append(seat.missing(among))
            return []
        allowed = {n for n, _ in related}

    def resolve_for(name: str, amount: int | None):
        st = table.fresh(name)
        st.seat = Seat(table, name, roles)
        st.assigned = amount
        try:
            return runtime.resolve(module, c["calamity"], "secondary", st)
        except StateError as exc:
            raise StateError(f"{where}: `secondary.{name}`: {exc}") from None

    def eligible(name: str) -> str | None:
        """Why this player may not be a secondary victim, or None."""
        if name == c["victim"]:
            return "the primary victim"
        if name in busy:
            return f"already a victim or the beneficiary of a {c['calamity']} this turn"
        if allowed is not None and name not in allowed:
            return f"not among the victim's {among} players (`secondary_among {among}`)"
        for role, holder in excluded_roles.items():
            if holder == name:
                return f"the {role}"
        probe = resolve_for(name, None)
        if probe.excluded:
            return probe.excluded[1]
        return None

    given = c["secondary"]
    per_player = effects[0][1].get("amount") if effects else None
    if given is None:
        policy = cal["resolution"]["assign"][0]
        if policy == "ask":
            missing.append(f"calamities[{c['index']}].secondary")
            notes.append("the primary victim assigns the secondary losses: the table does not say to whom")
            return []
        # "ast": the eligible players in A.S.T. order, each the most allowed
        names = [n for n in sorted(table.players, key=lambda n: (table.ranks.get(n) or float("inf"),
                                                                 list(table.players).index(n)))
                 if eligible(n) is None]
        given = _default_assignment(names, count, share, per_player)
        notes.append("secondary victims chosen by the edition's default: "
                     + ", ".join(n if a is None else f"{n} ({a})" for n, a in given) + " (A.S.T. order)")
    else:
        for name, _amount in given:
            why = eligible(name)
            if why is not None:
                raise StateError(f"{where}: `secondary` names {name}, who may not be a secondary victim: {why}")
        _check_assignment(given, count, share, where, notes)
    return [(name, amount, resolve_for(name, amount)) for name, amount in given]


def _default_assignment(names: list[str], count: int | None, share: int | None, per_player) -> list:
    """The default ("ast") assignment: NAMES (eligible, in A.S.T. order) each take the most
    allowed (PER_PLAYER when it is a number) until COUNT players or the SHARE are used up."""
    given = []
    left = share
    for n in names:
        if count is not None and len(given) >= count:
            break
        if share is not None:
            if left <= 0:
                break
            amount = min(left, per_player) if isinstance(per_player, int) else left
            left -= amount
            given.append((n, amount))
        else:
            given.append((n, None))
    return given


def _check_assignment(given: list, count: int | None, share: int | None, where: str, notes: list[str]) -> None:
    """The table's own assignment against how many players and how much the primary victim assigns:
    too many or too much is an error, too few or too little a note."""
    if count is not None and len(given) > count:
        raise StateError(f"{where}: `secondary` names {len(given)} players, but the primary victim assigns "
                         f"to {count}")
    if share is not None:
        total = sum(a for _, a in given if a is not None)
        if any(a is None for _, a in given):
            raise StateError(f"{where}: `secondary` must say how much each player is assigned "
                             f"({share} in total)")
        if total > share:
            raise StateError(f"{where}: `secondary` assigns {total}, more than the {share} to share")
        if total < share:
            notes.append(f"{share - total} of the {share} to share is not assigned")
    elif count is not None and len(given) < count:
        notes.append(f"{len(given)} of {count} secondary victims named")
