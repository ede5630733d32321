"""The calamity phase of a whole table (`civdsl table`).

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
from .. import sourcemap
from ..records import Record
from .resolving import Discard, Resolved, _primary_victims_by_name, _resolve_one, _took_part, apply_limits, order
from .seating import Table


class CalamityPhase(Record, frozen=False):
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
            "rules": _rules_data(rules),
            "seed": self.seed,
            "discarded": [{"victim": d.victim, "calamity": d.calamity, "index": d.index, "why": d.why}
                          for d in self.discarded],
            "calamities": [_resolved_dict(r) for r in shown],
            "outcomes": outcomes(shown, list(self.table.players)),
            "notes": list(self.notes),
            "missing_facts": self.missing_facts,
        }


def _rules_data(rules: dict) -> dict:
    """The edition's resolution rules as data: settings by name (tuples as lists), without the
    rulebook lines they come from."""
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in rules.items() if k not in ("lines", "paths")}


def _resolved_dict(r: Resolved) -> dict:
    return {
        "index": r.index, "calamity": r.calamity, "victim": r.victim, "traded_by": r.traded_by,
        "beneficiary": None if r.beneficiary is None else {"name": r.beneficiary.name, "why": r.beneficiary.why,
                                                           "candidates": list(r.beneficiary.candidates)},
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


# --- 4. the phase ------------------------------------------------------------------------------

def resolve_phase(table: Table, seed: int | None = None) -> CalamityPhase:
    module = table.module
    rng = random.Random(seed if seed is not None else 0)
    notes: list[str] = []
    kept, discarded = apply_limits(table, rng)
    if any(d.why == "random" for d in discarded) and seed is None:
        notes.append("calamities over the limits were discarded at random with seed 0 (pass --seed N for another "
                     "draw, or leave the discarded card out of the table)")
    resolved = []
    taken = _primary_victims_by_name(module, kept)
    with sourcemap.rules_of(module):
        for c in order(table, kept, notes):
            r = _resolve_one(table, c, taken)
            resolved.append(r)
            _took_part(taken, r)
    return CalamityPhase(table, discarded, resolved, seed, notes)


