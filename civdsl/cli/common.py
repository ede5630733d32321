"""What the commands share: opening a rulebook (diagnostics rendered, exit 1), the facts of
--state and --set, JSON output. Imports only click at module level: engines are imported by
the functions that need them."""

from __future__ import annotations

import sys

import click


def fail(message: str, code: int = 1):
    click.echo(message, err=True)
    sys.exit(code)


def os_error(exc: OSError) -> str:
    """A failed file operation in one line: the file, the reason, and, when the current folder
    has been deleted (every relative path then fails), that."""
    import os

    what = f"{exc.filename}: " if exc.filename else ""
    try:
        os.getcwd()
    except OSError:
        if not exc.filename:  # a relative path failed before it was named
            return "the current folder no longer exists; cd to one that does"
        return f"{what}{exc.strerror or exc} (the current folder no longer exists; cd to one that does)"
    return f"{what}{exc.strerror or exc}"


def write_output(path, content: str | bytes) -> None:
    """Write a file the user asked for (--save, --plot, -o): whole or not at all, with the
    user's umask, and a missing folder or a refused write as a one-line error, exit 1."""
    from pathlib import Path

    from ..build import atomic_write

    path = Path(path)
    try:
        atomic_write(path, content)
    except OSError as exc:
        fail(f"error: cannot write {path}: {os_error(exc).removeprefix(f'{exc.filename}: ')}")


def open_rulebook(rulebook: str):
    """The compiled rulebook (an edition id or a path); on a compile error, its diagnostics and exit 1."""
    from ..api import load
    from ..errors import RulebookError

    try:
        return load(rulebook)
    except RulebookError as exc:
        if exc.diagnostics is not None:
            click.echo(exc.diagnostics.render(color=sys.stderr.isatty()), err=True)
            sys.exit(1)
        fail(f"error: {exc}")


def facts(state_file: str | None, sets: tuple[str, ...], options: tuple[str, ...] = ()) -> dict:
    from ..state import facts_from

    return facts_from(state_file, sets, options)


# `--option NAME=on|off` on every question command: a rule switch the rulebook declares
option_switch = click.option("--option", "options", multiple=True, metavar="NAME=on|off",
                             help="Switch a rule option the rulebook declares (repeatable).")


def emit_json(data) -> None:
    import json

    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
