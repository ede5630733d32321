"""A game in words and events typed in words: what `civdsl game show` prints (each player's line,
the log with the rulebook line behind each change, the stacks, the final scores, what the step
expects) and what `civdsl game add` does with a typed line (each event parsed, stamped with its
turn and step, and applied, or refused with the place of the word at fault). An engine module
(py2es): the game page shows and adds events with the same code, so its texts are the command
line's."""

from __future__ import annotations

from ..texts import known_text
from .decks import declared_counts, decks_for
from .draws import MODULUS, Draws
from .events import draw_order
from .refusals import ILLEGAL, Refused
from .steps import events_of
from .words import columns, parse, split_events


def stamped(game, event: dict) -> dict:
    """The event as the file records it: the turn and step (1 = the turn's first) it happened in first."""
    out = {"turn": game.turn, "step": game.step + 1}
    for k, v in event.items():
        if k not in ("turn", "step"):
            out[k] = v
    return out


def count_words(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def heading(name: str, game) -> str:
    """Where the game stands: the edition, the turn and the step."""
    over = " (the game is over)" if game.ended else ""
    return f"{name}: turn {game.turn}, step {game.step + 1} of {len(game.steps)}: \"{game.current['name']}\"{over}"


def player_line(game, p) -> str:
    """One player's state: his pieces, treasury, A.S.T. space, advances, cards and calamities."""
    cards = ", ".join([c + (f" x{n}" if n > 1 else "") for c, n in sorted(p.cards.items())]) or "none"
    cals = ", ".join([c for c, _ in p.calamities])
    civ = f" ({p.civilization})" if p.civilization else ""
    stock = p.tokens_in_stock(game.pieces)
    in_stock = f" ({stock} in stock)" if stock is not None else ""
    left = " [left]" if p.left else ""
    return (f"  {p.name}{civ}{left}: {count_words(p.cities, 'city', 'cities')}, "
            f"{count_words(p.tokens, 'token', 'tokens')}{in_stock}, "
            f"{count_words(p.ships, 'ship', 'ships')}, treasury {p.treasury}, "
            f"A.S.T. space {p.ast_position}; advances: {', '.join(p.advances) or 'none'}; cards: {cards}"
            + (f"; calamities: {cals}" if cals else ""))


def stacks_lines(game) -> list[str]:
    """The trade stacks' counts and the cards waiting on their discard piles, one line a block."""
    if game.stacks is None:
        return []
    out = []
    for s in game.stacks.to_data():
        counts = " ".join([f"{n}:{k}" for n, k in s["stacks"].items()])
        waiting = sum(s["discarded"].values())
        out.append(f"  trade stacks ({s['deck']}): {counts}" + (f"; {waiting} on the discard piles" if waiting else ""))
    return out


def log_line(source: str, entry) -> str:
    """One line of the log, with the rulebook line behind it (SOURCE: the rulebook's path)."""
    where = f"  [{source}:{entry.line}]" if entry.line else ""
    return f"turn {entry.turn}, {entry.step}: {entry.text}{where}"


def log_lines(source: str, entries: list, player: str | None = None) -> list[str]:
    """The log lines of ENTRIES (`log_line`), or those about PLAYER (`names_player`)."""
    return [log_line(source, e) for e in entries if player is None or names_player(e, player)]


def names_player(entry, player: str) -> bool:
    """Whether a log line is about PLAYER (the lines `game show --player` keeps)."""
    return entry.text.startswith(player) or f" {player}" in entry.text


def score_lines(game) -> list[str]:
    """The final scores, best first, a tie the tie-breakers leave said to be the table's."""
    return standing_lines(game.scores or [])


def standing_lines(rows: list) -> list[str]:
    """Scores (ending.final_scores' rows), best first, each with what makes it up and, where
    another player has the same total, the tie-breakers; a tie they leave said to be the table's."""
    out = []
    totals = [s["total"] for s in rows]
    for i, s in enumerate(rows):
        tied = f" (tied with {s['tied_with']} after every tie-breaker: the table decides)" if "tied_with" in s else ""
        parts = [f"{p['label']} {known_text(p['points'])}" for p in s["points"]]
        if len([t for t in totals if t == s["total"]]) > 1:
            parts.extend(f"tie-break {t['label']} {known_text(t['value'])}" for t in s["tiebreaks"])
        out.append(f"  {i + 1}. {s['player']}: {known_text(s['total'])}{tied}" + (f" ({'; '.join(parts)})" if parts else ""))
    return out


def expects_line(game) -> str:
    """Where the game stands and the events its step takes (`next` among them, ending it): the
    command line's last line, far from the heading."""
    if game.ended:
        return _OVER
    return f"turn {game.turn}, step {game.step + 1} of {len(game.steps)}, \"{game.current['name']}\", takes: " + \
        "; ".join(game.expects())


def takes_line(game) -> str:
    """The events the current step takes, for a view that shows the heading just above (the page)."""
    return _OVER if game.ended else "this step takes: " + "; ".join(game.expects())


_OVER = "the game is over: it takes no more events"


def event_text(event: dict) -> str:
    """An event as typed, roughly (the values after its kind, without turn and step)."""
    return " ".join([str(v) for k, v in event.items() if k not in ("turn", "step")])


def add_words(game, words: list[str]) -> list[dict]:
    """The events typed in WORDS (several separated by `/`) parsed, stamped and applied to GAME in
    order; a refusal is raised as `Refused` with `typed` (the event's words) and `columns` (the
    first and end column of the word at fault, 1-based), after the events before it were applied:
    the caller that keeps the game whole on a refusal starts again from its copy."""
    added = []
    for one in split_events(words):
        at = {}
        try:
            event, at = parse(one)
            event = stamped(game, event)
            game.apply(event)
        except Refused as r:
            r.typed = one
            r.columns = refused_columns(one, at, r)
            raise
        added.append(event)
    return added


def events_up_to_turn(events: list, turn: int) -> int:
    """How many of EVENTS (as the file records them) `game show --turn TURN` replays: those recorded
    up to the end of that turn."""
    return len([e for e in events if e["turn"] <= turn])


def turn_ends(events: list) -> list[int]:
    """For each turn from the first to the one before the last the events reach, how many of them
    `game show --turn N` replays (a look back at the end of each turn over)."""
    last = events[-1]["turn"] if events else 0
    return [events_up_to_turn(events, turn) for turn in range(1, last)]


def drawn_seed(game) -> int:
    """The seed a draw for everyone draws with when none is given: derived from the game's seed and
    the turn, so that the same game always draws the same cards (below 2^31, as a typed seed)."""
    return Draws(f"{game.seed}:{game.turn}").randrange(MODULUS - 1)


def draw_for_everyone(game, seed: int) -> list[dict]:
    """Every player with cities who has not drawn in this step draws his trade cards from the
    stacks with SEED, in the order the step's rules give, each draw added to GAME as an event (as
    the file records it). A step that draws no trade cards, or a draw refused, is raised as
    `Refused` (the draws before it then applied: the caller that keeps the game whole starts again
    from its copy)."""
    args = game.current_actions().get("draw_trade_cards")
    if args is None:
        raise Refused(ILLEGAL, f"step \"{game.current['name']}\" draws no trade cards: a draw for everyone is for "
                      "the step that does (add `next` to reach it)")
    added = []
    for p in draw_order(game, args):
        if game.done.get(("draw", p.name)) or not p.cities:
            continue
        event = stamped(game, {"do": "draw", "player": p.name, "seed": seed})
        try:
            game.apply(event)
        except Refused as r:
            raise Refused(r.code, f"drawing for {p.name}: {r.message}", r.choices, r.field, r.needs)
        added.append(event)
    return added


def refused_columns(words: list[str], at: dict, refusal) -> list:
    """Where in the typed event the refusal points: the first column of the word its field names
    and the column after it (None when it names no word: the caret goes under the first)."""
    col = columns(words)
    field = refusal.field
    index = at.get(field, int(field[1:]) if field and field.startswith("#") else 0)
    start = col.get(index, 1)
    return [start, start + len(words[index]) if index < len(words) else None]


def replay_events(game, events: list) -> None:
    """EVENTS (as the file records them) applied to GAME in order, each at the turn and step it was
    recorded at; the first refused, or recorded at another turn or step than the game is in, is
    raised as `Refused` with `index` (its place among EVENTS), the game then unfinished."""
    for i, event in enumerate(events):
        try:
            if event.get("turn") != game.turn or event.get("step") != game.step + 1:
                raise Refused(ILLEGAL, f"the event is recorded at turn {event.get('turn')}, step {event.get('step')}, "
                              f"but the game is at turn {game.turn}, step {game.step + 1} ({game.current['name']})")
            game.apply(event, False)  # a refusal ends the replay: no copy to restore
        except Refused as r:
            r.index = i
            raise


def missing_deck(module, name: str, count: int) -> list | None:
    """Why a game of COUNT players cannot start, where the edition (NAME) declares its trade-card
    decks by player count and none for COUNT: the message and its note (CIV184); None otherwise
    (without a deck the ledger would deal nothing and the players' draws go unchecked)."""
    declared = getattr(module, "TRADE_DECKS", ())
    if not declared or decks_for(module, count):
        return None
    words = declared_counts(module)
    return [f"{name} declares no trade deck for {count} players: the cards of each trade stack for {count} players "
            "are not given", f"trade decks are declared for {words} players (`trade_deck`)"]


def step_events(game) -> list[str]:
    """The events the current step takes, in the order its actions are declared (a form offers
    them first); `leave` and `next`, taken in every step, are not among them."""
    out = []
    for action in game.current_actions():
        for kind in events_of(action):
            if kind not in out:
                out.append(kind)
    return out
