"""`civdsl plan`: the advances to buy this turn (civdsl.planner does the search)."""

from __future__ import annotations

import click

from .common import emit_json, facts, open_rulebook


@click.command()
@click.argument("rulebook")
@click.option("--state", "state_file", type=click.Path(dir_okay=False), help="Player state (YAML): holds, credits, "
              "commodities, treasury, players.")
@click.option("--holds", help="Advances held before this turn (added to the state's).")
@click.option("--set", "sets", multiple=True, help="A fact, key=value (repeatable).")
@click.option("--objective", "objective_spec", help="vp (default where advances have VP), points (printed cost), "
              "cards, or an expression per advance such as \"vp * 100 + cost\".")
@click.option("--want", help="Advances the plan must buy, comma-separated.")
@click.option("--avoid", help="Advances the plan must not buy, comma-separated.")
@click.option("--top", type=click.IntRange(1, 100), default=1, show_default=True, help="List the K best plans.")
@click.option("--explain", is_flag=True, help="Show why the plan beats the next best ones.")
@click.option("--horizon", type=click.IntRange(1, 2), default=1, show_default=True,
              help="2 adds a look-ahead to next turn (an estimate: the hand is assumed unchanged).")
@click.option("--hand-limit", "hand_limit", type=click.IntRange(0, None),
              help="Base hand limit, instead of the rulebook's (advances' abilities still apply).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def plan(rulebook, state_file, holds, sets, objective_spec, want, avoid, top, explain, horizon, hand_limit, as_json):
    """The advances to buy this turn that maximise an objective, their prices and the payment."""
    from ..planner import plan as make_plan
    from ..planner import render
    from ..state import split_names

    rb = open_rulebook(rulebook)
    report = make_plan(rb, facts(state_file, sets), holds=split_names(holds), objective_spec=objective_spec,
                       want=split_names(want), avoid=split_names(avoid), top=top, explain=explain, horizon=horizon,
                       hand_limit=hand_limit)
    if as_json:
        emit_json(report)
    else:
        click.echo(render(report))
