"""`civdsl plan`: the advances to buy this turn (civdsl.plan does the search)."""

from __future__ import annotations

from pathlib import Path

import click

from .common import PLAYER_HELP, SET_HELP, command, emit_json, facts, game_question, open_rulebook, option_switch


@command()
@click.argument("rulebook")
@click.option("--state", "state_file", type=click.Path(dir_okay=False), help="Player state (YAML): holds, credits, "
              "commodities, treasury, players.")
@click.option("--holds", help="Advances held before this turn (added to the state's).")
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help=SET_HELP)
@click.option("--player", help=PLAYER_HELP)
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
@click.option("--save", type=click.Path(dir_okay=False),
              help="Write the state after the best plan's purchase to this YAML file (it may be --state's).")
@option_switch
def plan(rulebook, state_file, holds, sets, player, objective_spec, want, avoid, top, explain, horizon, hand_limit, save,
         options, as_json):
    """The advances to buy this turn that maximise an objective, their prices and the payment.

    RULEBOOK may be a game file (`civdsl game new`): its own rulebook, and the state of --player in it."""
    from ..plan import plan as make_plan
    from ..plan import render
    from ..sourcemap import rules_of
    from ..state import split_names

    rulebook, state_file = game_question(rulebook, state_file)
    rb = open_rulebook(rulebook)
    given = facts(state_file, sets, options, player, rb)  # `--option NAME=on|off`: switches the rules read (start credits, ...)
    with rules_of(rb.module):  # a rule failing on this state is a diagnostic at its rulebook line
        report = make_plan(rb, dict(given), holds=split_names(holds), objective_spec=objective_spec,
                           want=split_names(want), avoid=split_names(avoid), top=top, explain=explain,
                           horizon=horizon, hand_limit=hand_limit)
    if save:
        after = state_after(given, split_names(holds), report["plans"][0])
        _write_state(Path(save), after)
    if as_json:
        emit_json(report, rb.id)
    else:
        click.echo(render(report))
        if save:
            click.echo(f"state after the purchase written to {save}")


def state_after(given: dict, more_holds: list[str], best: dict) -> dict:
    """The player's state once the plan is bought: the advances held, the cards kept and the
    treasury left; every other fact as given."""
    after = dict(given)
    after["holds"] = list(dict.fromkeys([*given.get("holds", []), *more_holds, *best["buy"]]))
    pay = best.get("payment")
    if pay:
        after["commodities"] = {name: n for name, n in pay["kept"].items() if n}
        after["treasury"] = pay["treasury_left"]
    return after


def _write_state(path: Path, data: dict) -> None:
    import yaml

    from .common import write_output

    write_output(path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
