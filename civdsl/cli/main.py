"""The `civdsl` group. Each command's module is imported only when the command is run (or its own
help is asked for), and the command modules import the engines only inside their commands:
`civdsl --help` lists the commands from the table below and loads click and this package's
common parts, never a command's module, the parser, YAML or jsonschema (tests/test_layering.py
checks it)."""

from __future__ import annotations

import importlib
import os
import sys

import click

from ..gcpause import paused
from .common import CONTEXT_SETTINGS, Conventions, use_color

# name -> (module, attribute, summary). A new command: its function in one of the modules, one line
# here. The summary is the first sentence of the command's help, which `civdsl --help` lists: kept
# here so that listing the commands imports none of their modules (a third of --help's time);
# tests/test_layering.py checks that each summary is its command's own first sentence.
COMMANDS = {
    "resolve": ("civdsl.cli.questions", "resolve",
                "What CALAMITY does to a victim, after every modifier, with a trace."),
    "cost": ("civdsl.cli.questions", "cost",
             "Price of each advance to buy after credits, with a breakdown and the total; or, with "
             "--trade-cards, the treasury price of trade cards bought from the stacks."),
    "epoch": ("civdsl.cli.questions", "epoch",
              "Where your marker is and what the next space needs; or each epoch's requirements."),
    "score": ("civdsl.cli.questions", "score", "Victory points and tie-breakers for one player; for every player of a game file."),
    "hand": ("civdsl.cli.questions", "hand",
             "The value of a hand of commodity cards: each set, worthless cards and the total; with a "
             "state, what the player's block and advances make of it."),
    "table": ("civdsl.cli.table", "table",
              "Resolve the calamity phase of a whole TABLE: beneficiaries, limits, order, secondary victims."),
    "plan": ("civdsl.cli.plan", "plan",
             "The advances to buy this turn that maximise an objective, their prices and the payment."),
    "check": ("civdsl.cli.authoring", "check", "Check rulebooks and report every problem."),
    "build": ("civdsl.cli.authoring", "build",
              "Compile rulebooks into OUTPUT/<edition>/ (effects.py, model.json, charts)."),
    "fmt": ("civdsl.cli.authoring", "fmt", "Rewrite rulebooks in the canonical layout."),
    "new": ("civdsl.cli.authoring", "new",
            "Write a commented house-rule skeleton NAME.civ that extends a rulebook (--from) and passes `civdsl check`."),
    "diff": ("civdsl.cli.authoring", "diff",
             "What changes from rulebook A to rulebook B (edition ids or paths, in any mix)."),
    "explain": ("civdsl.cli.authoring", "explain",
                "Explain a diagnostic code, or everything a rulebook says about one advance, calamity or "
                "player fact."),
    "cover": ("civdsl.cli.authoring", "cover",
              "Which statement implements each printed clause of RULEBOOK, which are acknowledged, which are "
              "uncovered; with --text, what a new printing changes."),
    "vocab": ("civdsl.cli.authoring", "vocab",
              "The language's vocabulary: effect kinds, abilities, player facts and functions."),
    "chart": ("civdsl.cli.charts", "chart", "Quick-reference charts of RULEBOOK (an edition id or a .civ file)."),
    "step": ("civdsl.cli.cardgame", "step",
             "Apply one phase (or one whole round) of RULEBOOK's round rules to a state; print the new stats "
             "and the trace of every rule that fired."),
    "simulate": ("civdsl.cli.cardgame", "simulate",
                 "Play many seeded games of RULEBOOK's round rules from a fresh setup and report how often each "
                 "threshold, flag, track mark and game end happens by each round."),
    "game": ("civdsl.cli.game", "game",
             "Keep a whole game in a game file: every player's state, turn after turn, with a log and undo."),
    "lsp": ("civdsl.cli.lsp", "lsp",
            "Run the civdsl language server (Language Server Protocol over stdio) for editors."),
}


def _help_width() -> int:
    """click's own rule for the width of help (terminal columns, at most 80, less 2), found without
    `shutil`, whose import (with its compression modules) would cost `civdsl --help` a tenth."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 80
    return max(min(columns, 80) - 2, 50)


class LazyGroup(Conventions, click.Group):
    """Finds commands in COMMANDS, importing their module on first use; Conventions answers
    usage errors (exit 2) and errors outside any one command."""

    def main(self, *args, **kwargs):
        from ..gcpause import skip_collections_at_exit
        from .terminal import install

        install()  # before arguments are parsed: a usage error echoes them
        skip_collections_at_exit()  # a run of the command line ends the process
        return super().main(*args, **kwargs)

    def make_context(self, info_name, args, parent=None, **extra):
        extra.setdefault("terminal_width", _help_width())
        return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx):
        from ..resources import install_drift

        warning = install_drift()  # an installed copy run inside a checkout that differs from it
        if warning:
            click.echo(click.style(warning, fg="yellow", bold=True) if use_color(err=True) else warning, err=True)
        try:
            return super().invoke(ctx)
        except ModuleNotFoundError as error:
            # a dependency (lark, yaml, jsonschema, ...) missing from this interpreter: say which and
            # how to install it, never a traceback; a missing module of civdsl itself is a bug
            if not error.name or error.name.split(".")[0] == "civdsl":
                raise
            click.echo(f"error: civdsl needs the Python package `{error.name.split('.')[0]}`, which this "
                       f"interpreter ({sys.executable}) does not have: install civdsl with its "
                       "dependencies (`pip install -e .` in a checkout, see the README's Quick start)", err=True)
            ctx.exit(1)

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS))

    def get_command(self, ctx, name):
        if name in COMMANDS and name not in self.commands:
            module, attr, _ = COMMANDS[name]
            with paused():
                return getattr(importlib.import_module(module), attr)
        return super().get_command(ctx, name)

    def format_commands(self, ctx, formatter):
        """The list of commands in `civdsl --help`, laid out by click from each command's summary in
        COMMANDS (a command that only stands in for it, so nothing is imported)."""
        listed = click.Group(commands=[click.Command(name, help=summary) for name, (_, _, summary) in COMMANDS.items()])
        listed.commands.update(self.commands)
        listed.format_commands(ctx, formatter)


@click.group(cls=LazyGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(package_name="civdsl")
def main():
    """civdsl: rules of the Civilization board-game family as data, compiled and checked."""


if __name__ == "__main__":
    main()
