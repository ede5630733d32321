"""The command line of round rules: `civdsl step` (one phase or one round, with the trace of every
rule that fired) and `civdsl simulate` (many seeded games, with distributions and a plot). The
work is done by civdsl.rounds (state.py, simulate.py, event_plot.py); this module only reads the
options and prints.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import click

from .rounds import runtime
from .rounds.event_plot import write_plot
from .rounds.simulate import render_report, simulate, step, trace_lines
from .rounds.state import assignments, hint, phase_ids, require_rounds, state_from_data
from .state import StateError, parse_yaml

# --- step ---------------------------------------------------------------------------------------

def _open_module(rulebook: str):
    from .cli import _open

    module = _open(rulebook).module
    require_rounds(module)
    return module


@click.command("step")
@click.argument("rulebook")
@click.option("--state", "state_file", type=click.Path(dir_okay=False),
              help="State (YAML: round, stats, hand, deck, discard, thresholds_on, choices). Default: a new game.")
@click.option("--phase", help="Apply this phase only (its id; `setup` starts a game). Default: a whole round.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the dice and shuffles.")
@click.option("--set", "sets", multiple=True, help="A stat, flag or track value, name=value (repeatable).")
@click.option("--choose", "chooses", multiple=True, help="A player's choice, name=value (repeatable).")
@click.option("--save", type=click.Path(dir_okay=False), help="Write the new state to this YAML file.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def step_command(rulebook, state_file, phase, seed, sets, chooses, save, as_json):
    """Apply one phase (or one whole round) of RULEBOOK's round rules to a state; print the new
    stats and the trace of every rule that fired."""
    module = _open_module(rulebook)
    rng = random.Random(seed)
    if state_file:
        state = state_from_data(module, parse_yaml(Path(state_file)), rng, source=state_file)
    elif phase == "setup":
        state = runtime.new_state(module)
    else:
        state, _ = runtime.new_game(module, rng)
    stats, choices = assignments(module, sets, chooses)
    if stats:
        state.values.update(stats)
        state.settled = False
    state.choices.update(choices)
    if phase is not None and phase != "setup" and phase not in phase_ids(module):
        raise StateError(f"--phase: unknown phase `{phase}`{hint(phase, phase_ids(module))}; "
                         f"phases: {', '.join(phase_ids(module))}")
    if phase == "setup" and module.SETUP is None:
        raise StateError("--phase setup: this edition has no setup")
    before = dict(state.values)
    try:
        new, trace = step(module, state, phase, rng)
    except runtime.RulebookRuntimeError as exc:
        raise StateError(str(exc)) from None
    if save:
        import yaml

        Path(save).write_text(yaml.safe_dump(new.to_dict(), sort_keys=False, allow_unicode=True), encoding="utf-8")
    if as_json:
        click.echo(json.dumps({"phase": phase or "round", "seed": seed, "state": new.to_dict(), "trace": trace},
                              indent=2, ensure_ascii=False, default=str))
        return
    what = f"phase {phase}" if phase else f"round {new.round}"
    click.echo(f"{module.EDITION['name']}: {what} (seed {seed})")
    for line in trace_lines(module, trace):
        click.echo(line)
    click.echo("stats:")
    width = max((len(n) for n in new.values), default=0)
    for name, value in new.values.items():
        old = before.get(name)
        change = f"   (was {runtime.number(old)})" if old != value else ""
        stage = ""
        if name in module.TRACKS:
            label = next((lb for lo, hi, lb in module.TRACKS[name]["stages"] if lo <= value <= hi), None)
            stage = f"  {label}" if label else ""
        click.echo(f"  {name:<{width}}  {runtime.number(value)}{stage}{change}")
    if module.CARD_DECK is not None:
        click.echo(f"hand ({len(new.hand)}): " + (", ".join(runtime.card_text(c) for c in new.hand) or "empty"))
    if new.on:
        click.echo("thresholds on: " + ", ".join(sorted(new.on)))
    if new.ended:
        click.echo(f"the game has ended: {new.ended}")


# --- simulate ------------------------------------------------------------------------------------

@click.command("simulate")
@click.argument("rulebook")
@click.option("--rounds", type=click.IntRange(1, 10_000), default=20, show_default=True, help="Rounds per game at most.")
@click.option("--runs", type=click.IntRange(1, 1_000_000), default=1000, show_default=True, help="Games to play.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed: the same seed gives the same games.")
@click.option("--set", "sets", multiple=True, help="Start every game with this stat, flag or track value, name=value.")
@click.option("--choose", "chooses", multiple=True, help="Fix a player's choice in every game, name=value.")
@click.option("--plot", type=click.Path(dir_okay=False), help="Write a plot of the events by round (.svg, or .png).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def simulate_command(rulebook, rounds, runs, seed, sets, chooses, plot, as_json):
    """Play many seeded games of RULEBOOK's round rules from a fresh setup and report how often
    each threshold, flag, track mark and game end happens by each round."""
    module = _open_module(rulebook)
    stats, choices = assignments(module, sets, chooses)
    with click.progressbar(length=runs, label="simulating", file=sys.stderr) as bar:
        try:
            result = simulate(module, rounds, runs, seed, stats, choices, progress=bar.update)
        except runtime.RulebookRuntimeError as exc:
            raise StateError(str(exc)) from None
    if plot:
        write_plot(result, Path(plot))
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    click.echo(render_report(result))
    if plot:
        click.echo(f"plot written to {plot}")
