"""What the commands share: opening a rulebook (diagnostics rendered, exit 1), the facts of
--state and --set, JSON output. Imports only click at module level: engines are imported by
the functions that need them."""

from __future__ import annotations

import sys

import click


def fail(message: str, code: int = 1):
    click.echo(message, err=True)
    sys.exit(code)


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


def facts(state_file: str | None, sets: tuple[str, ...]) -> dict:
    from ..state import facts_from

    return facts_from(state_file, sets)


def emit_json(data) -> None:
    import json

    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
