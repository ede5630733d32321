"""`civdsl game`: a whole game kept in a game file (civdsl/ledger does the bookkeeping).

`game new` writes a game file from the edition's set-up; `game add` checks events against the
rules and the state and appends them (a refused event leaves the file byte-identical); `game
show` replays the file to any point; `game undo` drops the last event; `game fmt` rewrites a file
edited by hand in the form `game` writes."""

from __future__ import annotations

from pathlib import Path

import click

from .common import CONTEXT_SETTINGS, Conventions, command, emit_json, open_rulebook
from .common import fail_located as _fail


class _Group(Conventions, click.Group):
    pass


@click.group(cls=_Group, context_settings=dict(CONTEXT_SETTINGS))
def game():
    """Keep a whole game in a game file: every player's state, turn after turn, with a log and undo."""


def _load(path: str):
    """The game file, its rulebook and the game replayed; a file that cannot be read or replayed
    is a located diagnostic."""
    from ..ledger import gamefile

    try:
        gf = gamefile.read(Path(path))
    except gamefile.GameFileError as exc:
        _fail_reading(exc, path)
    rb = open_rulebook(gamefile.edition_source(gf, path))
    return gf, rb


def _fail_reading(exc, path: str):
    """A game file that cannot be read, located at its line (and column, for a byte that is not UTF-8)."""
    from ..ledger import gamefile

    if isinstance(exc, gamefile.NotUtf8):
        shown = Path(path).read_bytes().decode("utf-8", errors="replace")  # the line, its wrong byte as U+FFFD
        _fail(exc.code, str(exc), path, exc.line, exc.column, source=shown, help="save the file as UTF-8")
    _fail(exc.code, str(exc), path, exc.line, 1)


def _replay(rb, gf, path: str, upto: int | None = None):
    from ..gcpause import paused
    from ..ledger import gamefile

    try:
        with paused():  # a replay keeps what it builds (states, log) and frees the rest without cycles: see gcpause
            return gamefile.replay(rb, gf, upto)
    except gamefile.SetupError as exc:
        line = _line_naming(path, exc.civilization)
        _fail(exc.code, str(exc), path, line, 1, notes=exc.notes)
    except gamefile.GameFileError as exc:
        _fail(exc.code, str(exc), path, exc.line, 1)
    except gamefile.ReplayError as exc:
        r = exc.refusal
        _fail(r.code, f"event {exc.index + 1}: {r.message}", path, exc.line, 3, notes=r.choices)


def _line_naming(path: str, civilization: str | None) -> int | None:
    """The first line of the game file that names the civilization as a player's."""
    if civilization is None:
        return None
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    return next((i + 1 for i, text in enumerate(lines) if "civilization" in text and civilization in text), None)


@command("new")
@click.argument("edition")
@click.option("--players", required=True, metavar="NAME[:CIVILIZATION],...",
              help="The players in seat order, each with his civilization: anna:Egypt,bruno:Babylon.")
@click.option("--ast", "track", metavar="TRACK", help="The A.S.T. track played, where the edition has several.")
@click.option("--last-turn", type=click.IntRange(1, 1000), help="The last turn, where the edition lets players "
              "agree one.")
@click.option("--seed", type=click.IntRange(0, 2**31), default=0, show_default=True,
              help="Seed of the random choices the rules make.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="The game file to write.")
def new(edition, players, track, last_turn, seed, output, as_json):
    """Write a new game file for EDITION from its set-up: the players, their civilizations, and
    the start credits the player count gives."""
    from ..ledger import gamefile
    from .common import write_output

    if Path(output).exists():
        raise click.UsageError(f"{output} exists: `game new` never overwrites a game")
    rb = open_rulebook(edition)
    seats = []
    for part in [p.strip() for p in players.split(",") if p.strip()]:
        name, _, civ = part.partition(":")
        seats.append((name.strip(), civ.strip() or None))
    if not seats:
        raise click.UsageError("--players names no player: give each seat as NAME or NAME:CIVILIZATION, "
                               "separated by commas")
    tracks = list(rb.module.AST)
    if track is None and len(tracks) > 1:
        raise click.UsageError(f"{rb.name} has several A.S.T. tracks: choose one with --ast ({', '.join(tracks)})")
    _deck_for(rb, players, len(seats))
    setup = gamefile.new_setup(edition, rb, seats, track, last_turn, seed)
    try:
        data = {**setup, "events": []}
        gf = gamefile.checked(data)
        game = gamefile.start(rb, gf.setup)
    except gamefile.SetupError as exc:
        at = _civilization_column(players, exc.civilization)
        _fail(exc.code, str(exc), "<players>", 1, at[0] if at else 1, at[1] if at else len(players) + 1,
              notes=exc.notes,
              source=players, help="nothing was written")
    except gamefile.GameFileError as exc:
        raise click.UsageError(str(exc)) from None
    write_output(Path(output), gamefile.text(gf))
    if as_json:
        emit_json({"file": output, "state": _state_data(game)}, rb.id)
        return
    click.echo(f"{output}: {rb.name}, {len(seats)} players" + (f", set-up {game.setup}" if game.setup else ""))
    _start_credits(rb, game)
    if game.stacks is not None:
        decks = list(game.stacks.decks.values())
        click.echo(f"trade stacks dealt from the deck{'s' if len(decks) > 1 else ''} "
                   + ", ".join(f'"{d}"' for d in decks))
    else:
        click.echo(f"no trade deck declared for {len(seats)} players: the players enter the cards they draw")
    _expects(game)


def _deck_for(rb, players: str, count: int) -> None:
    """A game of an edition that declares its trade-card decks by player count needs the deck of its
    own count: without it the ledger would deal nothing and the players' draws go unchecked."""
    from ..ledger.gameview import missing_deck

    missing = missing_deck(rb.module, rb.name, count)
    if missing is None:
        return
    _fail("CIV184", missing[0], "<players>", 1, 1, len(players) + 1, notes=missing[1:], source=players,
          help="nothing was written; docs/ledger.md lists the player counts the seed texts leave without a deck")


def _civilization_column(players: str, civilization: str | None) -> tuple[int, int] | None:
    """Where `--players` names the civilization (1-based first column, end column)."""
    if civilization is None:
        return None
    offset = 0
    for part in players.split(","):
        _, colon, civ = part.partition(":")
        if colon and civ.strip() == civilization:
            col = offset + part.index(":") + 1 + (len(civ) - len(civ.lstrip())) + 1
            return col, col + len(civilization)
        offset += len(part) + 1
    return None


def _start_credits(rb, game) -> None:
    p = next(iter(game.players.values()))
    sc = rb.state((), game.facts(p)).start_credits
    if sc and sc.get("per_group"):
        click.echo(f"start credits: {sc['per_group']} in every group for each player")


@command("add")
@click.argument("path", metavar="GAME", type=click.Path(dir_okay=False))
@click.argument("words", nargs=-1, required=True)
def add(path, words, as_json):
    """Check events against the rules and the game's state and append them to GAME (several
    events separated by `/`); a refused event leaves the file unchanged."""
    from ..ledger import gamefile, gameview
    from ..ledger.play import Refused

    gf, rb = _load(path)
    game = _replay(rb, gf, path)
    from ..sourcemap import rules_of

    try:
        with rules_of(rb.module):  # a rule failing while it runs is located at its rulebook line
            added = gameview.add_words(game, list(words))
    except Refused as r:
        start, end = r.columns
        _fail(r.code, r.message, "<event>", 1, start, end, notes=r.choices, source=" ".join(r.typed),
              help="nothing was written: the game file is unchanged" + _usage(r.typed, r))
    gf.events += added
    from .common import write_output

    write_output(Path(path), gamefile.text(gf))
    if as_json:
        emit_json({"added": added, "state": _state_data(game)}, rb.id)
        return
    _echo_log(rb, [e for e in game.log if e.event is not None and e.event >= len(gf.events) - len(added)])
    _expects(game)


@command("draw")
@click.argument("path", metavar="GAME", type=click.Path(dir_okay=False))
@click.option("--seed", type=click.IntRange(0, 2**31), help="Seed of the draws (default: one derived from the "
              "game's seed and the turn, so the same game always draws the same cards).")
def draw(path, seed, as_json):
    """Draw the trade cards for every player who has not drawn this step, in the order the rules
    give, from the stacks the rulebook's trade decks deal; each draw is added as an event with its
    seed, so that a replay draws the same cards."""
    from ..ledger import gamefile, gameview
    from ..ledger.play import Refused
    from ..sourcemap import rules_of

    gf, rb = _load(path)
    game = _replay(rb, gf, path)
    if seed is None:
        seed = gameview.drawn_seed(game)
    try:
        with rules_of(rb.module):  # a rule failing while it runs is located at its rulebook line
            added = gameview.draw_for_everyone(game, seed)
    except Refused as r:
        _fail(r.code, r.message, path, None, 1, notes=r.choices, help="nothing was written: the game file is unchanged")
    gf.events += added
    from .common import write_output

    write_output(Path(path), gamefile.text(gf))
    if as_json:
        emit_json({"added": added, "seed": seed, "state": _state_data(game)}, rb.id)
        return
    _echo_log(rb, [e for e in game.log if e.event is not None and e.event >= len(gf.events) - len(added)])
    if not added:
        click.echo("every player with cities has drawn in this step")
    _expects(game)


def _usage(words: list[str], refusal) -> str:
    """How the event is written, when the refusal is about how it was written."""
    from ..ledger.words import usage

    about_words = refusal.code == "CIV142" and (refusal.field in (None, "do") or str(refusal.field).startswith("#"))
    return f"; usage: {usage(words[0])}" if about_words and usage(words[0]) is not None else ""


@command("undo")
@click.argument("path", metavar="GAME", type=click.Path(dir_okay=False))
def undo(path, as_json):
    """Drop the last event of GAME."""
    from ..ledger import gamefile
    from .common import write_output

    gf, rb = _load(path)
    if not gf.events:
        raise click.UsageError(f"{path} has no event to undo")
    dropped = gf.events.pop()
    game = _replay(rb, gf, path)
    write_output(Path(path), gamefile.text(gf))
    if as_json:
        emit_json({"dropped": dropped, "state": _state_data(game)}, rb.id)
        return
    click.echo(f"dropped event {len(gf.events) + 1}: {_event_words(dropped)}")
    _expects(game)


@command("fmt")
@click.argument("path", metavar="GAME", type=click.Path(dir_okay=False))
@click.option("--check", is_flag=True, help="Change nothing: exit 1 at the first place GAME departs from the form.")
def fmt(path, check, as_json):
    """Rewrite GAME, a game file edited by hand, in the form `civdsl game` writes (which the game page
    reads); a file that cannot be read as a game file is left unchanged."""
    from ..ledger import gamefile
    from .common import write_output

    try:
        gf = gamefile.read(Path(path))
    except gamefile.GameFileError as exc:
        _fail_reading(exc, path)
    departs = gamefile.canonical_error(Path(path))
    if departs is not None and check:
        from ..ledger.gametext import FMT_HINT

        _fail("CIV185", f"not in the form `civdsl game` writes: {str(departs).removesuffix('; ' + FMT_HINT)}", path,
              departs.line, departs.column, help=f"`civdsl game fmt {path}` rewrites it in that form (the same game)")
    if departs is not None:
        try:
            written = gamefile.text(gf)
        except gamefile.gametext.TextError as exc:  # a value the YAML reader gives and no game file holds
            _fail("CIV144", str(exc), path, None, 1)
        write_output(Path(path), written)
    if as_json:
        emit_json({"rewritten": departs is not None}, gf.setup["edition"])
        return
    click.echo(f"{path}: rewritten in the form `civdsl game` writes" if departs is not None
               else f"{path}: in the form `civdsl game` writes already")


@command("show")
@click.argument("path", metavar="GAME", type=click.Path(dir_okay=False))
@click.option("--turn", type=click.IntRange(1, None), help="The state at the end of this turn.")
@click.option("--event", "upto", type=click.IntRange(0, None), help="The state after the first N events.")
@click.option("--player", help="Only this player's state and log.")
@click.option("--log/--no-log", default=True, show_default=True, help="Show the log in words.")
def show(path, turn, upto, player, log, as_json):
    """Every player's state at any point of GAME, the log with the rule behind each change, and
    what the next step expects."""
    from ..gcpause import paused

    with paused():  # the file read, the replay and its log are all kept until the answer is written
        _show(path, turn, upto, player, log, as_json)


def _show(path, turn, upto, player, log, as_json) -> None:
    gf, rb = _load(path)
    last_turn = gf.events[-1]["turn"] if gf.events else 1
    if turn is not None and turn > last_turn:  # a turn not played yet has no state to show
        raise click.UsageError(f"--turn {turn}: the events of {path} reach turn {last_turn} "
                               f"(--turn {last_turn} shows where the game stands)")
    if upto is not None and upto > len(gf.events):
        raise click.UsageError(f"--event {upto}: {path} holds {len(gf.events)} events")
    if turn is not None:
        from ..ledger.gameview import events_up_to_turn

        upto = events_up_to_turn(gf.events, turn)
    game = _replay(rb, gf, path, upto)
    _check_player(game, player, path)
    if as_json:
        emit_json(_state_data(game, player), rb.id)
        return
    from ..ledger.gameview import heading

    click.echo(heading(rb.name, game))
    for p in game.players.values():
        if player in (None, p.name):
            click.echo(_player_line(game, p))
    if game.stacks is not None and player is None:
        _show_stacks(game)
    if log:
        _show_log(rb, game, player)
    if game.scores:
        _show_scores(game)
    from ..ledger.gameview import takes_line

    click.echo(takes_line(game))  # the heading above says where the game stands


def _check_player(game, player: str | None, path) -> None:
    if player is not None and player not in game.players:
        from ..diagnostics import did_you_mean

        best = did_you_mean(player, list(game.players))
        raise click.UsageError(f"no player `{player}` in {path}" + (f" (did you mean `{best}`?)" if best else ""))


def _show_stacks(game) -> None:
    from ..ledger.gameview import stacks_lines

    for line in stacks_lines(game):
        click.echo(line)


def _show_log(rb, game, player: str | None) -> None:
    """The log, or the lines that name the player."""
    click.echo("log:")
    _echo_log(rb, game.log, player, "  ")


def _show_scores(game) -> None:
    from ..ledger.gameview import score_lines

    click.echo("final scores:")
    for line in score_lines(game):
        click.echo(line)


def _player_line(game, p) -> str:
    from ..ledger.gameview import player_line

    return player_line(game, p)


def _echo_log(rb, entries: list, player: str | None = None, indent: str = "") -> None:
    """The log lines of ENTRIES (those about PLAYER), written at once: a game's log holds
    thousands of lines, and each echo of its own would flush the output."""
    from ..ledger.gameview import log_lines

    lines = log_lines(rb.module.SOURCE_PATH, entries, player)
    if lines:
        click.echo("\n".join([indent + line for line in lines]))


def _event_words(event: dict) -> str:
    from ..ledger.gameview import event_text

    return event_text(event)


def _expects(game) -> None:
    from ..ledger.gameview import expects_line

    click.echo(expects_line(game))


def _state_data(game, player: str | None = None) -> dict:
    return {"turn": game.turn, "step": game.step + 1, "step_name": game.current["name"], "ended": game.ended,
            "players": [p.to_data() for p in game.players.values() if player in (None, p.name)],
            "trade_stacks": game.stacks.to_data() if game.stacks is not None else None,
            "log": [e.to_data() for e in game.log],
            "expects": game.expects(), "scores": game.scores}


for _cmd in (new, add, draw, undo, show, fmt):
    game.add_command(_cmd)
