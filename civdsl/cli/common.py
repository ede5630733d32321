"""The conventions every command follows, in one place: `-h`, colour, JSON mode, exit codes, and
what the commands share (opening a rulebook, the facts of --state and --set). Imports only
click at module level: engines are imported by the functions that need them.

Exit codes (the same for every command):

    0  answered (`check`: no errors; `diff`: also when the rulebooks differ, unless --exit-code)
    1  a user error (a rulebook with errors, a bad state file, an unknown name, a file that
       would be overwritten) or an incomplete answer (the state lacks a fact the rules need;
       `fmt --check` with files to reformat; `build --check` with a stale output folder;
       `diff --exit-code` with differences)
    2  a usage error (an unknown command or option, a missing argument, a bad option value)

A closed pipe (`civdsl vocab | head -3`) ends a command quietly, with 0.

JSON mode (`--json`, on every command but `lsp`): stdout carries exactly one JSON object, the
answer or the error; progress and nothing else goes to stderr. Every object starts with
"command" (the command's name) and "rulebook" (the edition id answered for; `null` where none
applies; commands over several rulebooks give "rulebooks", a list). An error is
    {"command": ..., "rulebook": ..., "error": {"kind": "usage" | "user" | "rulebook",
                                                "message": "...", "diagnostics": [...]}}
with "diagnostics" (as `check --json` gives them) only for a rulebook with errors.

Colour: `--color auto|always|never` on every command; `auto` (the default) colours only a
terminal, and never when the NO_COLOR environment variable is set and not empty.
"""

from __future__ import annotations

import os
import sys

import click

EXIT_OK = 0
EXIT_USER = 1
EXIT_USAGE = 2

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}


class UserError(Exception):
    """A mistake of the user's, already phrased ("error: ..." is added when printed as text)."""


def fail(message: str):
    """Stop the command with a user error (exit 1), printed as text or as JSON."""
    raise UserError(message.removeprefix("error: "))


# --- colour -------------------------------------------------------------------------------

def _set_color(ctx, _param, value):
    from .terminal import ask_for_styles

    ctx.meta["civdsl.color"] = value
    ask_for_styles(value == "always")
    return value


def use_color(err: bool = False) -> bool:
    """Whether text for stdout (or stderr) gets colour under the command's --color and NO_COLOR."""
    ctx = click.get_current_context(silent=True)
    choice = ctx.meta.get("civdsl.color", "auto") if ctx is not None else "auto"
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    stream = sys.stderr if err else sys.stdout
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def echo(text: str, err: bool = False, nl: bool = True) -> None:
    """click.echo that keeps colour codes when --color always asks for them on a pipe."""
    click.echo(text, err=err, nl=nl, color=True if use_color(err) else None)


# --- JSON -----------------------------------------------------------------------------------

def _json_text(data) -> str:
    import json

    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


def _command_name() -> str | None:
    ctx = click.get_current_context(silent=True)
    return ctx.command.name if ctx is not None else None


def emit_json(data: dict, rulebook: str | None = None, *, rulebooks: list[str] | None = None) -> None:
    """The command's answer as one JSON object naming the command and the rulebook(s)."""
    head: dict = {"command": _command_name()}
    if rulebooks is not None:
        head["rulebooks"] = rulebooks
    else:
        head["rulebook"] = rulebook
    click.echo(_json_text({**head, **{k: v for k, v in data.items() if k not in head}}))


def json_requested(args: list[str]) -> bool:
    """--json among the raw arguments (before any `--`): a usage error is then answered in JSON too."""
    if "--" in args:
        args = args[: args.index("--")]
    return "--json" in args


def _error_json(command: str | None, rulebook, kind: str, message: str, diagnostics=None) -> str:
    error: dict = {"kind": kind, "message": message}
    if diagnostics is not None:
        error["diagnostics"] = [d.to_json() for d in diagnostics.sorted()]
    return _json_text({"command": command, "rulebook": rulebook, "error": error})


# --- errors and exit codes ------------------------------------------------------------------

def _rulebook_param(ctx) -> str | None:
    value = ctx.params.get("rulebook") if ctx is not None else None
    return value if isinstance(value, str) else None


def report_error(ctx, exc: Exception) -> int:
    """Print a user error as text (stderr) or JSON (stdout); returns the exit code."""
    from ..errors import RulebookError

    as_json = bool(ctx is not None and ctx.params.get("as_json"))
    command = ctx.command.name if ctx is not None else None
    diagnostics = exc.diagnostics if isinstance(exc, RulebookError) else None
    if isinstance(exc, click.UsageError):
        kind, code = "usage", EXIT_USAGE
    elif diagnostics is not None:
        kind, code = "rulebook", EXIT_USER
    else:
        kind, code = "user", EXIT_USER
    message = exc.format_message() if isinstance(exc, click.ClickException) else str(exc)
    if as_json:
        click.echo(_error_json(command, _rulebook_param(ctx), kind, message, diagnostics))
    elif isinstance(exc, click.UsageError):
        exc.show()
    elif diagnostics is not None:
        echo(diagnostics.render(color=use_color(err=True)), err=True)
    else:
        click.echo(f"error: {message}", err=True)
    return code


def _quiet_closed_pipe() -> None:
    """After the reader of stdout went away: point stdout at /dev/null so that the interpreter's
    final flush does not complain, and end with 0 (a closed pipe is not an error)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


class Conventions:
    """Mixed into the group and every command: user errors of any command become one message or
    one JSON error object with the exit code of the table above; a closed pipe is quiet."""

    def invoke(self, ctx):
        from ..errors import RulebookError, RulebookRuntimeError, StateError

        try:
            return super().invoke(ctx)
        except (UserError, StateError, RulebookError) as exc:
            sys.exit(report_error(ctx, exc))
        except RulebookRuntimeError as exc:  # a rule failed while running: CIV130 at the rule's line
            from ..diagnostics import runtime_error

            sys.exit(report_error(ctx, RulebookError(f"a rule failed while running: {exc.reason}",
                                                     runtime_error(exc))))
        except click.ClickException as exc:
            if ctx.params.get("as_json"):
                sys.exit(report_error(ctx, exc))
            raise
        except BrokenPipeError:  # caught here: click's own handler would exit 1
            _quiet_closed_pipe()
            sys.exit(EXIT_OK)
        except OSError as exc:  # a file or folder named by the user: missing, unwritable, ...
            sys.exit(report_error(ctx, UserError(os_error(exc))))

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        raw = list(sys.argv[1:] if args is None else args)
        if not standalone_mode:
            return super().main(raw, prog_name, complete_var, standalone_mode, **extra)
        try:
            rv = super().main(raw, prog_name, complete_var, standalone_mode=False, **extra)
        except click.ClickException as exc:
            from ..errors import cut_long_words

            exc.message = cut_long_words(exc.message)  # an unknown option or a bad value, echoed
            if json_requested(raw):
                command = _first_word(raw) if isinstance(self, click.Group) else self.name
                kind = "usage" if isinstance(exc, click.UsageError) else "user"
                click.echo(_error_json(command, None, kind, exc.format_message()))
            else:
                exc.show()
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(EXIT_USER)
        except BrokenPipeError:
            _quiet_closed_pipe()
            sys.exit(EXIT_OK)
        sys.exit(rv if isinstance(rv, int) else EXIT_OK)


def _first_word(args: list[str]) -> str | None:
    return next((a for a in args if not a.startswith("-")), None)


class Command(Conventions, click.Command):
    pass


_COLOR_HELP = "Colour: auto (only on a terminal, and not when NO_COLOR is set), always or never."
_JSON_HELP = "Answer as one JSON object on stdout, errors included."


def command(name: str | None = None, *, json_mode: bool = True, **attrs):
    """`@click.command` with the conventions: -h, --color, and (unless json_mode=False) --json,
    passed to the function as `as_json`. The shared options come last in the help."""

    def decorate(f):
        cmd = click.command(name, cls=Command, context_settings=dict(CONTEXT_SETTINGS), **attrs)(f)
        if json_mode:
            cmd.params.append(click.Option(["--json", "as_json"], is_flag=True, help=_JSON_HELP))
        cmd.params.append(click.Option(["--color"], type=click.Choice(["auto", "always", "never"]), default="auto",
                                       show_default=True, expose_value=False, is_eager=True, callback=_set_color,
                                       help=_COLOR_HELP))
        return cmd

    return decorate


# --- what commands share --------------------------------------------------------------------

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

    from ..atomicfile import atomic_write

    path = Path(path)
    try:
        atomic_write(path, content)
    except OSError as exc:
        from ..escape import shown_name

        fail(f"error: cannot write {shown_name(path)}: {os_error(exc).removeprefix(f'{exc.filename}: ')}")


def open_rulebook(rulebook: str):
    """The compiled rulebook (an edition id or a path); a compile error propagates as RulebookError
    (reported by Conventions.invoke with its diagnostics, exit 1)."""
    from ..api import load
    from ..gcpause import paused

    with paused():
        return load(rulebook)


def fail_located(code: str, message: str, path: str, line: int | None, column: int, end: int | None = None,
                 notes=(), source: str | None = None, help: str | None = None):
    """An error in a file the user gave (a game file, its event), located at its line and column
    with the line and a caret, as the compiler reports a rulebook's: raised as RulebookError."""
    from pathlib import Path

    from ..diagnostics import Diagnostics, Span
    from ..errors import RulebookError

    d = Diagnostics()
    if source is None and line is not None:
        try:
            source = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            source = None
    if source is not None:
        d.add_source(path, source)
    span = Span(path, line, column, end) if line is not None else None
    d.error(code, message if span else f"{path}: {message}", span, notes=list(notes), help=help)
    raise RulebookError(message, d)


def game_question(rulebook: str, state_file: str | None) -> tuple[str, str | None]:
    """A game file where the rulebook goes (`civdsl plan GAME --player P`): the game's own edition,
    the file as the state. Anything else is returned as given."""
    if rulebook.endswith(".civ") or not os.path.isfile(rulebook):  # an edition id or a rulebook
        return rulebook, state_file
    from ..ledger import gamefile

    if not is_game_file(rulebook):
        return rulebook, state_file

    if state_file is not None:
        raise click.UsageError("the game file is the state already: give --state or a game file, not both")
    return gamefile.edition_source(read_game(rulebook), rulebook), rulebook


def read_game(path: str):
    """The game file at PATH (ledger.gamefile.read); one it cannot read is an error at its line.
    A question reads it twice (its edition, then its state): the second read is the first's, while
    the file is unchanged."""
    from pathlib import Path

    from ..ledger import gamefile

    stat = os.stat(path)
    key = (os.path.realpath(path), stat.st_mtime_ns, stat.st_size)
    if key not in _GAMES_READ:
        try:
            _GAMES_READ.clear()
            _GAMES_READ[key] = gamefile.read(Path(path))
        except gamefile.GameFileError as exc:
            fail_located(exc.code, str(exc), path, exc.line, 1)
    return _GAMES_READ[key]


_GAMES_READ: dict = {}  # the last game file read, by its path, time and size


def game_error(exc, path: str):
    """A game's event the replay refuses, at its line of the file (the column of its `{`), as
    `civdsl game show` reports it."""
    fail_located(exc.code, str(exc), path, exc.line, 3 if exc.line is not None else 1)


def facts(state_file: str | None, sets: tuple[str, ...], options: tuple[str, ...] = (), player: str | None = None,
          rulebook=None) -> dict:
    """The facts of a --state file and --set; a game file as --state gives PLAYER's state in it now."""
    from ..state import facts_from

    if state_file is not None and is_game_file(state_file):
        from ..ledger import gamefile

        gf = played_with(state_file, rulebook)
        if player is None:
            raise click.UsageError(f"a game file answers for one of its players: add --player NAME (players: "
                                   f"{', '.join(p['name'] for p in gf.setup['players'])})")
        try:
            given = gamefile.player_facts(gf, player, rulebook)
        except gamefile.GameFileError as exc:
            game_error(exc, state_file)
        extra = facts_from(None, sets, options)
        return {**given, **extra}
    if player is not None:
        raise click.UsageError("--player reads a game file (`civdsl game new`) as --state"
                               + ("; the --state file is not one" if state_file is not None else ""))
    return facts_from(state_file, sets, options)


def is_game_file(path: str) -> bool:
    """Whether PATH is a game file (`civdsl game new`), the ledger imported only when asked."""
    from ..ledger import sniff

    return sniff.is_game_file(path)


def played_with(game_path: str, rulebook):
    """The game file, refused where it is a game of another rulebook than the question's: its
    states only mean something under the rules that made them."""
    from pathlib import Path

    from ..escape import shown_name
    from ..ledger import gamefile

    gf = read_game(game_path)
    source = gamefile.edition_source(gf, game_path)
    if rulebook is not None and open_rulebook(source).module is not rulebook.module:
        raise click.UsageError(f"{shown_name(Path(game_path))} is a game of {gf.setup['edition']}, not of "
                               f"{rulebook.id}: ask with its rulebook, or give the game file in its place "
                               "(civdsl plan GAME --player NAME)")
    return gf


PLAYER_HELP = "With a game file (as RULEBOOK or --state): answer for this player's state in it, after its last event."


# `--option NAME=on|off` on every question command: a rule switch the rulebook declares
option_switch = click.option("--option", "options", multiple=True, metavar="NAME=on|off",
                             help="Switch a rule option the rulebook declares (repeatable).")


STATE_HELP = "Player state (YAML): holds, commodities, treasury, players and other facts (see `civdsl vocab`)."
HOLDS_HELP = 'Advances held, comma-separated: "Pottery,Calendar" (added to the state\'s).'
SET_HELP = ("A fact, NAME=VALUE, overriding the state (repeatable); a map entry as "
            "NAME.KEY=VALUE, e.g. commodities.Grain=2.")
