"""The purchase planner (`civdsl plan`, `civdsl hand`): which advances to buy this turn, how to
pay for them, and what a hand of commodity cards is worth.

- `purchase.py`: the problem (candidates, prices from the credit engine, objectives, the payment
  table), its branch and bound, the answer and its words;
- `search.py`: the exact dynamic programme over price the branch and bound hands over to;
- `horizon.py`: the two-turn look-ahead (`--horizon 2`), loaded only when asked for.

Method, bounds and measurements: docs/planner.md.
"""

from .purchase import hand_report, parse_cards, plan, render, render_hand

__all__ = ["hand_report", "parse_cards", "plan", "render", "render_hand"]
