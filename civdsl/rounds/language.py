"""The round rules as a sub-language of civdsl (civdsl/sublanguages.py): each pass's hook, and what
their statements declare and name for the index of references. Importing this module registers
them; `sublanguages.BUILTIN` names it, so every pass has them without importing civdsl/rounds/.
"""

from __future__ import annotations

from pathlib import Path

from ..sublanguages import References, SubLanguage, register
from . import checks, codegen, diff, serialize
from .model import NAME, RoundRules
from .resolve import RoundsApplier
from .syntax import AddStmt, MoveStmt, ResetStmt, RollStmt, RoundsToSyntax, SetStmt

# The names the round rules declare (grammar.lark), by the statement declaring them: stats, flags,
# choices, thresholds, dice pools, tracks, event tables, the deck and the phases. A round track is
# `round_track` in the index: `track` is the A.S.T.'s.
ROUND_KINDS = {"stat": "stat", "flag": "flag", "choice": "choice", "threshold": "threshold", "pool": "pool",
               "track": "round_track", "event_table": "event_table", "card_deck": "deck", "phase": "phase"}


def _target(indexer, node, local: frozenset, neg: bool):
    """A round statement's target: `set food = ...`, `move war_track 1`, `reset rebellion` name a
    stat, flag or track as a bare name in an expression does (one namespace, checks.py)."""
    indexer.use("name", node.target, node.target_span, node.keyword, neg)
    return indexer.parts(node, local, neg)


def _roll(indexer, node: RollStmt, local: frozenset, neg: bool) -> tuple:
    """`roll gained = luxury_dice` or `roll natural_events`: the dice pool or event table rolled
    (the name bound to the result is local to its block)."""
    indexer.use("name", node.source, node.source_span, "roll", neg)
    return ()


def _suit(indexer, f, owner) -> None:
    """A deck's suit declares its colour (`suit "Hearts" red`), which hand functions read
    (`hand_value(color=red)`)."""
    _, color, span = f.value
    indexer.add("color", color, "def", span, "declaration", owner, f.key, part=f)


ROUNDS = register(SubLanguage(
    name=NAME,
    title="Round rules",
    grammar=Path(__file__).resolve().parent / "grammar.lark",
    transformer=RoundsToSyntax,
    model=RoundRules,
    declared=lambda rules: rules.declared,
    applier=RoundsApplier,
    check=checks.check,
    emit=codegen.emit,
    runtime_import=codegen.RUNTIME_IMPORT,
    to_data=serialize.to_data,
    changes=diff.changes,
    references=References(
        declares=ROUND_KINDS,
        # a bare name may stand for these after the main language's kinds (not the deck or a
        # phase), and the suits' colours last
        name_kinds=(*(k for k in ROUND_KINDS.values() if k not in ("deck", "phase")), "color"),
        field_visits={("card_deck", "suit"): _suit},
        node_visits={SetStmt: _target, AddStmt: _target, MoveStmt: _target, ResetStmt: _target, RollStmt: _roll},
    ),
))
