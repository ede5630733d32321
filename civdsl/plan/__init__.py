"""The purchase planner (`civdsl plan`, `civdsl hand`): which advances to buy this turn, how to
pay for them, and what a hand of commodity cards is worth.

- `objectives.py`: what a plan maximises (`--objective`);
- `hand.py`: the hand (`--cards`, `civdsl hand`);
- `payment.py`: the payment table;
- `purchase.py`: the problem (candidates, prices from the credit engine) and its branch and bound;
- `question.py`: the planner's question (`plan`): the rulebook, the state and the objective read;
- `answer.py`: the planner's answer, its notes and `--explain`;
- `text.py`: the answer and a hand's value as text;
- `search.py`: the exact dynamic programme over price the branch and bound hands over to;
- `horizon.py`: the two-turn look-ahead (`--horizon 2`), loaded only when asked for.

Method, bounds and measurements: docs/planner.md.
"""

from .question import plan
from .hand import hand_report, parse_cards
from .text import render, render_hand

__all__ = ["hand_report", "parse_cards", "plan", "render", "render_hand"]
