"""Round rules at play: `step` and `simulate` (civdsl.rounds plays them; this module reads options and prints)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .common import command, emit_json, open_rulebook


def _open_module(rulebook: str):
    from ..rounds.state import require_rounds

    module = open_rulebook(rulebook).module
    require_rounds(module)
    return module


@command()
@click.argument("rulebook")
@click.option("--state", "state_file", type=click.Path(dir_okay=False),
              help="State (YAML: round, stats, hand, deck, discard, thresholds_on, choices). Default: a new game.")
@click.option("--phase", help="Apply this phase only (its id; `setup` starts a game). Default: a whole round.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the dice and shuffles.")
@click.option("--set", "sets", multiple=True, help="A stat, flag or track value, name=value (repeatable).")
@click.option("--choose", "chooses", multiple=True, help="A player's choice, name=value (repeatable).")
@click.option("--save", type=click.Path(dir_okay=False), help="Write the new state to this YAML file.")
def step(rulebook, state_file, phase, seed, sets, chooses, save, as_json):
    """Apply one phase (or one whole round) of RULEBOOK's round rules to a state; print the new
    stats and the trace of every rule that fired."""
    import random

    from ..rounds.simulate import render_step
    from ..rounds.simulate import step as play
    from ..rounds.state import assignments

    module = _open_module(rulebook)
    rng = random.Random(seed)
    state = _start_state(module, state_file, phase, rng)
    stats, choices = assignments(module, sets, chooses)
    if stats:
        state.values.update(stats)
        state.settled = False
    state.choices.update(choices)
    _check_phase(module, phase)
    before = dict(state.values)
    new, trace = play(module, state, phase, rng)  # a rule's runtime error becomes a diagnostic (cli/main.py)
    if save:
        import yaml

        from .common import write_output

        write_output(save, yaml.safe_dump(new.to_dict(), sort_keys=False, allow_unicode=True))
    if as_json:
        emit_json({"phase": phase or "round", "seed": seed, "state": new.to_dict(), "trace": trace},
                  module.EDITION["id"])
        return
    click.echo(render_step(module, new, before, trace, phase, seed))


def _start_state(module, state_file: str | None, phase: str | None, rng):
    """The state a step starts from: the state file's, a bare one before `setup`, else a new game's."""
    from ..rounds import runtime
    from ..rounds.state import state_from_data
    from ..state import parse_yaml

    if state_file:
        return state_from_data(module, parse_yaml(Path(state_file)), rng, source=state_file)
    if phase == "setup":
        return runtime.new_state(module)
    return runtime.new_game(module, rng)[0]


def _check_phase(module, phase: str | None) -> None:
    """--phase names one of the edition's phases, or `setup` where it has one."""
    from ..rounds.state import hint, phase_ids
    from ..state import StateError

    if phase is not None and phase != "setup" and phase not in phase_ids(module):
        raise StateError(f"--phase: unknown phase `{phase}`{hint(phase, phase_ids(module))}; "
                         f"phases: {', '.join(phase_ids(module))}")
    if phase == "setup" and module.SETUP is None:
        raise StateError("--phase setup: this edition has no setup")


@command()
@click.argument("rulebook")
@click.option("--rounds", type=click.IntRange(1, 10_000), default=20, show_default=True, help="Rounds per game at most.")
@click.option("--runs", type=click.IntRange(1, 1_000_000), default=1000, show_default=True, help="Games to play.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed: the same seed gives the same games.")
@click.option("--set", "sets", multiple=True, help="Start every game with this stat, flag or track value, name=value.")
@click.option("--choose", "chooses", multiple=True, help="Fix a player's choice in every game, name=value.")
@click.option("--plot", type=click.Path(dir_okay=False), help="Write a plot of the events by round (.svg, or .png).")
def simulate(rulebook, rounds, runs, seed, sets, chooses, plot, as_json):
    """Play many seeded games of RULEBOOK's round rules from a fresh setup and report how often
    each threshold, flag, track mark and game end happens by each round."""
    from ..rounds.event_plot import write_plot
    from ..rounds.simulate import render_report
    from ..rounds.simulate import simulate as play_games
    from ..rounds.state import assignments

    if plot and not Path(plot).absolute().parent.is_dir():  # say so before playing the games
        from .common import fail

        fail(f"error: cannot write {plot}: no folder {Path(plot).parent}")
    from ..rounds.simulate import check_size

    check_size(rounds, runs)
    module = _open_module(rulebook)
    stats, choices = assignments(module, sets, chooses)
    from .terminal import unescaped

    with click.progressbar(length=runs, label="simulating", file=unescaped(sys.stderr)) as bar:
        result = play_games(module, rounds, runs, seed, stats, choices, progress=bar.update)
    if plot:
        write_plot(result, Path(plot))
    if as_json:
        emit_json(result, module.EDITION["id"])
        return
    click.echo(render_report(result))
    if plot:
        click.echo(f"plot written to {plot}")
