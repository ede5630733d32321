"""The `civdsl` group. Each command is imported only when it is run or listed for help, and the
command modules import the engines only inside their commands: `civdsl --help` loads click and
this package, never the parser, YAML or jsonschema (tests/test_layering.py checks it)."""

from __future__ import annotations

import importlib
import os
import sys

import click

from .common import CONTEXT_SETTINGS, Conventions, use_color

# name -> (module, attribute). A new command: its function in one of the modules, one line here.
COMMANDS = {
    "resolve": ("civdsl.cli.questions", "resolve"),
    "cost": ("civdsl.cli.questions", "cost"),
    "epoch": ("civdsl.cli.questions", "epoch"),
    "score": ("civdsl.cli.questions", "score"),
    "hand": ("civdsl.cli.questions", "hand"),
    "table": ("civdsl.cli.table", "table"),
    "plan": ("civdsl.cli.plan", "plan"),
    "check": ("civdsl.cli.authoring", "check"),
    "build": ("civdsl.cli.authoring", "build"),
    "fmt": ("civdsl.cli.authoring", "fmt"),
    "new": ("civdsl.cli.authoring", "new"),
    "diff": ("civdsl.cli.authoring", "diff"),
    "explain": ("civdsl.cli.authoring", "explain"),
    "vocab": ("civdsl.cli.authoring", "vocab"),
    "chart": ("civdsl.cli.charts", "chart"),
    "step": ("civdsl.cli.cardgame", "step"),
    "simulate": ("civdsl.cli.cardgame", "simulate"),
    "lsp": ("civdsl.cli.lsp", "lsp"),
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
        from .terminal import install

        install()  # before arguments are parsed: a usage error echoes them
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
            module, attr = COMMANDS[name]
            return getattr(importlib.import_module(module), attr)
        return super().get_command(ctx, name)


@click.group(cls=LazyGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(package_name="civdsl")
def main():
    """civdsl: rules of the Civilization board-game family as data, compiled and checked."""


if __name__ == "__main__":
    main()
