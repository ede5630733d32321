"""The planner's question (`civdsl plan`, `civdsl.plan`): a rulebook and a state in, the answer of
answer.answer out. What it does here the page does in its own interface: load the rulebook, check
the state and read the objective; the answer itself is written once (answer.py, translated)."""

from __future__ import annotations

import weakref

from .answer import answer
from .objectives import objective
from .purchase import advance_infos

# Per compiled rulebook, the planner's facts of each advance (purchase.advance_infos): they depend
# on the rulebook alone, so a process that asks many questions of one rulebook makes them once
_INFOS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def plan(rulebook, state: dict | None = None, *, holds=(), objective_spec: str | None = None, want=(), avoid=(),
         top: int = 1, explain: bool = False, horizon: int = 1, hand_limit: int | None = None, among=None) -> dict:
    """The best purchases this turn (and, with horizon 2, an estimate of the next turn's).

    `rulebook` is a Rulebook (civdsl.load) or an edition id / path; `state` the facts of a state
    file (holds, credits, commodities, treasury, players, ...).
    """
    if not hasattr(rulebook, "module"):
        from ..api import load

        rulebook = load(rulebook)
    module = rulebook.module
    st = rulebook.state(holds, dict(state or {}))
    obj = objective(module, objective_spec, st)
    info = _INFOS.get(module)
    if info is None:
        info = _INFOS[module] = advance_infos(module)
    return answer(module, rulebook.id, rulebook.name, st.held, st.facts, obj, want=want, avoid=avoid, among=among,
                  hand_limit=hand_limit, top=top, explain=explain, horizon=horizon, info=info)
