"""What `civdsl explain RULEBOOK NAME` and the language server's hover say about a name the round
rules declare (a stat, flag, choice, threshold, dice pool, track, event table, deck, phase, or the
colour of a deck's suits): what it is, in one line made from the resolved rules (never the
rulebook's prose), and every statement that reads, changes or rolls it, from the index of
references (references.py), across the extends chain.
"""

from __future__ import annotations

from .expressions import unparse
from .references import Index
from .rounds.language import ROUND_KINDS
from .rounds.model import rules

# Each kind of name the round rules declare (rounds.language.ROUND_KINDS, and the suits' colours), in
# words, and the field of their model holding its declarations (rounds.model.RoundRules).
KIND_WORDS = {"stat": "stat", "flag": "flag", "choice": "choice", "threshold": "threshold", "pool": "dice pool",
              "round_track": "track", "event_table": "event table", "deck": "deck of cards", "phase": "phase",
              "color": "card colour"}
_MODEL = {"stat": "stats", "flag": "flags", "choice": "choices", "threshold": "thresholds", "pool": "pools",
          "round_track": "tracks", "event_table": "event_tables", "deck": "card_decks", "phase": "phases"}
KINDS = (*ROUND_KINDS.values(), "color")
# How a statement uses a name, by how the index says it is named (Ref.via).
_USES = {"name": "reads it", "set": "sets it", "add": "adds to it", "move": "moves it", "reset": "resets it",
         "roll": "rolls it"}


def _range(low, high) -> str:
    return f"{'' if low is None else low}..{'' if high is None else high}"


def _stat(stat, ed) -> str:
    initial = unparse(stat.initial) if stat.initial is not None else stat.initial_value
    return f"initial {initial}, bounds {_range(stat.low, stat.high)}"


def _flag(flag, ed) -> str:
    return f"true/false, {'on' if flag.on else 'off'} at the start"


def _choice(choice, ed) -> str:
    return f"a player's decision; by default {unparse(choice.default)}"


def _threshold(threshold, ed) -> str:
    runs = "; its rules run each time it begins to hold" if threshold.body else ""
    return f"holds while {unparse(threshold.condition)}{runs}"


def _pool(pool, ed) -> str:
    size = unparse(pool.base) if pool.base is not None else "0"
    terms = [f"; +{unparse(t.amount)}" + (f" when {unparse(t.condition)}" if t.condition is not None else "")
             for t in pool.terms]
    sides = unparse(pool.sides) if pool.sides is not None else "6"
    return f"{size} dice of {sides} sides{''.join(terms)}"


def _track(track, ed) -> str:
    stages = ", ".join(f"{s.name} ({_range(s.low, s.high)})" for s in track.stages)
    stages = f"; stages {stages}" if stages else ""
    return f"start {track.start}, positions {_range(track.low, track.high)}{stages}"


def _event_table(table, ed) -> str:
    rows = "; ".join(f"{r.low if r.low == r.high else _range(r.low, r.high)}: {r.label}" for r in table.rows)
    return f"one die of {table.die} sides: {rows}"


def _deck(deck, ed) -> str:
    limit = f", hand limit {deck.hand_limit}" if deck.hand_limit is not None else ""
    return f"{len(deck.suits) * len(deck.ranks)} cards: suits {', '.join(s.name for s in deck.suits)}{limit}"


def _phase(phase, ed) -> str:
    order = list(rules(ed).phases)
    return f"phase {order.index(phase.id) + 1} of {len(order)} of a round"


_SUMMARIES = {"stat": _stat, "flag": _flag, "choice": _choice, "threshold": _threshold, "pool": _pool,
              "round_track": _track, "event_table": _event_table, "deck": _deck, "phase": _phase}


def summary(ed, kind: str, name: str) -> str | None:
    """One line on the declaration of `name`, a round name of `kind`, in the resolved edition:
    its title and what the rules make of it; None when the edition does not hold it."""
    if kind == "color":
        suits = [s.name for d in rules(ed).card_decks.values() for s in d.suits if s.color == name]
        return f"the colour of the suits {', '.join(suits)}" if suits else None
    obj = getattr(rules(ed), _MODEL[kind], {}).get(name)
    return None if obj is None else f"\"{obj.name}\": {_SUMMARIES[kind](obj, ed)}"


def names(index: Index) -> list[str]:
    """Every round name the chain declares, sorted."""
    return sorted({n for kind in KINDS for n in index.names(kind)})


def find(index: Index, name: str) -> tuple[str, str] | None:
    """(kind, name) of the round name asked for (its case aside), or None."""
    folded = name.casefold()
    for kind in KINDS:
        for declared in sorted(index.names(kind)):
            if declared.casefold() == folded:
                return kind, declared
    return None


def _where(ref) -> str:
    return f"{ref.span.path}:{ref.span.line}"


def _statement(owner: tuple[str, str | None]) -> str:
    kind, name = owner
    return f"{kind.replace('_', ' ')} {name}" if name else kind


def explain(ed, index: Index, kind: str, name: str) -> str:
    """Everything the rulebook says about one round name, as text: what it is, where it is
    declared, and each statement using it (in force, in chain order)."""
    title = f"{name}: {KIND_WORDS[kind]} in {ed.id} ({ed.name})"
    used = _uses(index, kind, name)
    return "\n".join([title, "=" * len(title), summary(ed, kind, name) or "", "", *_declared(index, kind, name), "",
                      "Used by:" if used else "Used by: nothing", *used])


def _declared(index: Index, kind: str, name: str) -> list[str]:
    """Where the chain declares the name, base first: the first declaration, then those that
    replace it whole."""
    defs = [r for r in index.named(kind, name) if r.role == "def"]
    return [f"{'replaced whole' if r.file > defs[0].file else 'declared'} at {_where(r)} "
            f"(in {index.asts[r.file].edition})" for r in defs]


def _uses(index: Index, kind: str, name: str) -> list[str]:
    """Each statement using the name, in force, in the order of the chain."""
    uses = sorted((r for r in index.uses(kind, name) if index.in_force(r)),
                  key=lambda r: (r.file, r.span.line, r.span.column))
    return [f"  {_statement(r.owner)} {_USES.get(r.via, 'names it')}  {_where(r)}" for r in uses]
