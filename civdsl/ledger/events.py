"""The events players enter, one handler each, and the steps' automatic bookkeeping. A handler
checks everything before it changes anything (turn.Ledger.apply restores the state on a refusal
all the same), and logs each change with the rulebook line of the action behind it. An engine
module (py2es): the game page applies events with this code."""

from __future__ import annotations

from ..diagnostics import did_you_mean
from ..errors import StateError
from ..handvalue import hand_value, player_block
from ..pricing import abilities_of, trade_card_prices
from ..stateanswers import purchase_for
from ..statecheck import item_names
from ..table.resolving import in_words
from ..table.tablefile import RELATIONS
from ..vocabulary import FACTS
from .decks import declared_counts
from .draws import Draws
from .play import Game
from .quantities import PIECES
from .refusals import CHOICE, ILLEGAL, Refused
from .taxes import tax
from .words import thousands

# each event, in the words `game show` uses for what a step expects
EVENT_WORDS = (
    ("tax", "the tax rate a player chooses where his advances let him vary it (tax PLAYER rate=N)"),
    ("census", "a player's cities, tokens and ships on the board (census PLAYER cities=N tokens=N ships=N)"),
    ("draw", "the trade cards a player drew (draw PLAYER CARD...), or drawn for him from the stacks (draw PLAYER "
             "seed=N, or `civdsl game draw` for every player)"),
    ("buy-cards", "trade cards a player buys for treasury (buy-cards PLAYER CARD..., or buy-cards PLAYER "
                  "stack=N,... seed=N to draw them from the stacks)"),
    ("trade", "a trade between two players (trade PLAYER CARD... for PLAYER CARD...)"),
    ("choose", "a victim's choices for a calamity (choose PLAYER CALAMITY secondary=NAME:N,... beneficiary=NAME), "
               "or a fact it needs (choose PLAYER fact=value)"),
    ("buy", "advances a player buys and the payment (buy PLAYER ADVANCE... pay CARD... treasury N)"),
    ("discard", "cards a player discards (discard PLAYER CARD...)"),
    ("ast", "a marker's move where the rulebook gives no row to tell it (ast PLAYER forward|stays|back, with "
            "epoch=NAME: the epoch of his marker's space, which the requirements of a step forward depend on)"),
)


def event_words(event: str, args: dict | None = None) -> str:
    """What the event gives, in words (with ARGS, its step's action's: a census that may spend
    treasury says so)."""
    for kind, words in EVENT_WORDS:
        if kind == event:
            if kind == "census" and args is not None and args.get("treasury") == "spend":
                return CENSUS_SPENDING_WORDS
            return words
    return event


CENSUS_SPENDING_WORDS = ("a player's cities, tokens and ships on the board, and his treasury after what he paid "
                         "for ships (census PLAYER cities=N tokens=N ships=N treasury=N)")


# every key an event may have and what it holds (the game file's schema says the same)
_TEXT = "a name"
_NAMES = "a list of names"
_COUNT = "a whole number"
_MAP = "a mapping"
_COUNTS = "a list of at most 100 whole numbers"
_GIVEN = "a mapping of player: the cards he is given"
_SECONDARY = "a list of names or a mapping of name: amount"
EVENT_FIELDS = (("do", _TEXT), ("player", _TEXT), ("with", _TEXT), ("calamity", _TEXT), ("beneficiary", _TEXT),
                ("move", _TEXT), ("cards", _NAMES), ("gives", _NAMES), ("gets", _NAMES), ("advances", _NAMES),
                ("pay", _NAMES), ("treasury", _COUNT), ("cities", _COUNT), ("tokens", _COUNT), ("ships", _COUNT),
                ("turn", _COUNT), ("step", _COUNT), ("secondary", _SECONDARY), ("facts", _MAP), ("borders", _MAP),
                ("occurrence", _COUNT), ("seed", _COUNT), ("stacks", _COUNTS), ("given", _GIVEN),
                ("rate", _COUNT), ("epoch", _TEXT))


def _is_count(value) -> bool:
    # a truth value is an int to isinstance: told apart by identity (there are only the two)
    return value is not True and value is not False and isinstance(value, int) and value >= 0


def _is_names(value) -> bool:
    if not isinstance(value, list):
        return False
    for v in value:  # a loop, not all() over a generator: every event's lists of names are checked
        if not isinstance(v, str):
            return False
    return True


def _is_secondary(value) -> bool:
    return _is_names(value) or (isinstance(value, dict)
                                and all(isinstance(k, str) and _is_count(v) for k, v in value.items()))


def _holds_type(value, kind: str) -> bool:
    """How each kind of field is checked."""
    if kind == _TEXT:
        return isinstance(value, str)
    if kind == _NAMES:
        return _is_names(value)
    if kind == _COUNT:
        return _is_count(value)
    if kind == _MAP:
        return isinstance(value, dict) and all(isinstance(k, str) for k in value)
    if kind == _COUNTS:
        return isinstance(value, list) and len(value) <= 100 and all(_is_count(v) for v in value)
    if kind == _GIVEN:
        return isinstance(value, dict) and all(isinstance(k, str) and _is_names(v) for k, v in value.items())
    return _is_secondary(value)


def field_kinds() -> dict:
    """Each key an event may have -> what it holds (EVENT_FIELDS), for check_fields."""
    return {k: kind for k, kind in EVENT_FIELDS}


def check_fields(event: dict, kinds: dict | None = None) -> None:
    """Every key of the event known and holding what it should: a refusal, never a crash. KINDS:
    field_kinds(), which a caller checking many events builds once."""
    if not isinstance(event, dict):
        raise Refused(ILLEGAL, "an event is a mapping of its keys")
    if kinds is None:
        kinds = field_kinds()
    for key, value in event.items():
        if key not in kinds:
            raise Refused(ILLEGAL, f"an event has no key `{key}`", field=key)
        if value is None:
            continue
        kind = kinds[key]
        # the kinds nearly every event has (turn, step, counts, player) checked here, the others by _holds_type
        if kind == _COUNT:
            fits = _is_count(value)
        elif kind == _TEXT:
            fits = isinstance(value, str)
        else:
            fits = _holds_type(value, kind)
        if not fits:
            raise Refused(ILLEGAL, f"`{key}` must be {kind}", field=key)


def _line(game: Game, kind: str) -> int | None:
    return game.current_actions().get(kind, {}).get("line")


def _once(game: Game, what: str, player: str) -> None:
    if game.done.get((what, player)):
        raise Refused(ILLEGAL, f"{player} has already done `{what}` in this step", field="player")
    game.done[(what, player)] = True


def _whole(event: dict, key: str) -> int | None:
    value = event.get(key)
    if value is None:
        return None
    if not _is_count(value):
        raise Refused(ILLEGAL, f"`{key}` must be a whole number 0 or more", field=key)
    return value


def _card_names(game: Game, cards, key: str = "cards") -> list[str]:
    """Card names (commodities or calamities, any declared name), each as the rulebook names it."""
    if not _is_names(cards):
        raise Refused(ILLEGAL, f"`{key}` must be a list of card names", field=key)
    module = game.module
    by_name = game.kept.get(("card names",))
    if by_name is None:  # every card name, in lower case -> its own name
        by_name = {k.lower(): v for k, v in item_names(module, "commodity").items()}
        by_name.update({k.lower(): v for k, v in item_names(module, "calamity").items()})
        game.kept[("card names",)] = by_name
    out, unknown = [], []
    for c in cards:
        own = by_name.get(c.lower())
        if own:
            out.append(own)
        else:
            unknown.append(c)
    if unknown:
        best = did_you_mean(unknown[0], list(module.COMMODITIES) + list(module.CALAMITIES))
        raise Refused(ILLEGAL, f"no card `{unknown[0]}` in this edition" + (f" (did you mean `{best}`?)" if best else ""),
                      field=key)
    return out


def _stack(game: Game, card: str) -> int | None:
    item = game.module.COMMODITIES.get(card) or game.module.CALAMITIES.get(card)
    return item["stack"]


def _holds(player, cards: list[str], key: str) -> None:
    """The player holds every card named (a calamity among them: in his calamities)."""
    need: dict[str, int] = {}
    for c in cards:
        need[c] = need.get(c, 0) + 1
    held = dict(player.cards)
    for name, _ in player.calamities:
        held[name] = held.get(name, 0) + 1
    short = [f"{n - held.get(c, 0)} {c}" for c, n in need.items() if n > held.get(c, 0)]
    if short:
        raise Refused(ILLEGAL, f"{player.name} does not hold {', '.join(short)} (holds: "
                      f"{_hand_words(player) or 'no cards'})", field=key)


def _hand_words(player) -> str:
    cards = [f"{n} {c}" for c, n in sorted(player.cards.items())] + [c for c, _ in player.calamities]
    return ", ".join(cards)


def _receive(game: Game, player, cards: list[str], traded_by: str | None = None) -> None:
    commodities = []
    for c in cards:
        if c in game.module.CALAMITIES:
            player.calamities.append((c, traded_by))
        else:
            commodities.append(c)
    player.give_cards(commodities)


def _part_with(game: Game, player, cards: list[str], drawn_first: bool = False) -> list[tuple[str, str | None]]:
    """Take the cards from the player's hand; the calamities among them, with who traded each
    (DRAWN_FIRST: a calamity he drew himself before one traded to him)."""
    gone = []
    commodities = []
    for c in cards:
        if c in game.module.CALAMITIES:
            held = [(n, t) for n, t in player.calamities]
            i = held.index((c, None)) if drawn_first and (c, None) in held else [n for n, _ in held].index(c)
            gone.append(player.calamities.pop(i))
        else:
            commodities.append(c)
    player.take_cards(commodities)
    return gone


def _supply(game: Game, p, cards: list[str]) -> None:
    """No more cards of a commodity in hands than the game has (its `count`, where declared), as
    the tally of every hand P shares with the other players counts them."""
    for c in sorted(set(cards)):  # the first over its count named the same in every run
        count = game.module.COMMODITIES.get(c, {}).get("count")
        if count:
            held = p.tally.get(c, 0)
            if held > count:
                raise Refused(ILLEGAL, f"the game has {count} {c} cards and the hands would hold {held}", field="cards")


# --- census ----------------------------------------------------------------------------------

def census(game: Game, event: dict) -> None:
    p = game.player(event.get("player"))
    pieces = game.pieces
    given = {k: _whole(event, k) for k in PIECES}
    treasury = _spent_treasury(game, p, event)
    if all(v is None for v in given.values()) and treasury is None:
        raise Refused(ILLEGAL, "a census gives cities, tokens or ships", field="do")
    for key, value in given.items():
        if value is not None and pieces.get(key) is not None and value > pieces[key]:
            raise Refused(ILLEGAL, f"{value} {key} on the board, but a player has {pieces[key]}", field=key)
    tokens = given["tokens"] if given["tokens"] is not None else p.tokens
    kept = treasury if treasury is not None else p.treasury
    if pieces.get("tokens") is not None and tokens + kept > pieces["tokens"]:
        raise Refused(ILLEGAL, f"{tokens} tokens on the board and {kept} in treasury: more than the "
                      f"{pieces['tokens']} tokens a player has", field="tokens")
    changes = []
    for key, value in given.items():
        if value is not None and value != p.piece_count(key):
            changes.append(f"{key} {p.piece_count(key)} -> {value}")
            p.set_piece_count(key, value)
    if treasury is not None and treasury != p.treasury:
        changes.append(f"treasury {p.treasury} -> {treasury} (spent on the board)")
        p.treasury = treasury
    game.note(f"{p.name}: census: {', '.join(changes) or 'no change'}", _line(game, "census"))


def _spent_treasury(game: Game, p, event: dict) -> int | None:
    """The treasury a census gives, where its step lets players pay treasury on the board (ships
    built or kept): never more than he holds, since the census records only what was spent."""
    treasury = _whole(event, "treasury")
    if treasury is None:
        return None
    if game.current_actions()["census"].get("treasury") != "spend":
        raise Refused(ILLEGAL, f"step \"{game.current['name']}\" does not spend treasury: a census gives the "
                      "treasury only in a step where players pay it on the board (ships)", field="treasury")
    if treasury > p.treasury:
        raise Refused(ILLEGAL, f"treasury {treasury}: {p.name} holds {p.treasury}, and a census only records "
                      "treasury spent", field="treasury")
    return treasury


# --- trade cards -----------------------------------------------------------------------------

MAX_SEED = 9_007_199_254_740_991  # a seed's digits stay few whatever a game file holds (2^53 - 1: a whole number the page reads exactly)


def draw(game: Game, event: dict) -> None:
    p = game.player(event.get("player"))
    args = game.current_actions()["draw_trade_cards"]
    seed = _whole(event, "seed")
    if seed is not None and seed > MAX_SEED:
        raise Refused(ILLEGAL, f"a seed is a whole number up to {thousands(MAX_SEED)}", field="seed")
    if seed is not None and event.get("cards") is not None:
        raise Refused(ILLEGAL, "a draw gives the cards drawn or a seed to draw them with, not both", field="seed")
    if args.get("order") == "fewest_cities":
        # 1980 43.8, 1981 15.2, the Expansion 27, Mega Civilization 6a: the cards left in the stacks
        # depend on it; a player without cities waits for nobody, equal counts are left to the table
        for q in game.seated():
            if q.cities > 0 and q.cities < p.cities and not game.done.get(("draw", q.name)):
                raise Refused(ILLEGAL, f"{q.name} draws first (fewer cities)", field="player")
    _once(game, "draw", p.name)
    reach = min(p.cities, game.quantity(args["stacks"]) or p.cities)
    if seed is not None:
        cards = _from_top(game, p, list(range(1, reach + 1)), Draws(f"{seed}:{p.name}"),
                          "enter the cards drawn (draw PLAYER CARD...)", False)
    else:
        cards = _card_names(game, event.get("cards"))
        _drawn_by_hand(game, p, cards, reach)
    _receive(game, p, cards)
    _supply(game, p, cards)
    how = f" (drawn for {p.name} from the stacks with seed {seed})" if seed is not None else ""
    game.note(f"{p.name} draws {', '.join(cards) or 'nothing'}{how}", args["line"])


def _drawn_by_hand(game: Game, p, cards: list[str], reach: int) -> None:
    if len(cards) > reach:
        raise Refused(ILLEGAL, f"{p.name} draws at most {reach} cards (one per city, from stack 1 up to stack "
                      f"{reach}), not {len(cards)}", field="cards")
    stacks = [_stack(game, c) for c in cards]
    seen: set[int] = set()
    for card, stack in zip(cards, stacks):
        if stack is not None and (stack > reach or stack in seen):
            why = "a second card" if stack in seen else f"a card of stack {stack}, beyond stack {reach}"
            raise Refused(ILLEGAL, f"{card} is {why}: {p.name} draws one card from each of stacks 1 to {reach}",
                          field="cards")
        if stack is not None:
            seen.add(stack)
    _block(game, p, cards)
    _from_stacks(game, p, cards, "cards")


def _stack_block(game: Game, p) -> str | None:
    """The block of the stacks the player draws from (None: the edition's one deck)."""
    block = game.block(p)
    if block in game.stacks.layers:
        return block
    if None in game.stacks.layers:
        return None
    raise Refused(ILLEGAL, f"no trade deck of {p.name}'s block ({block or 'none'}) is dealt in this game "
                  f"(dealt: {', '.join(game.stacks.decks.values())})", field="player")


def _from_stacks(game: Game, p, cards: list[str], key: str) -> None:
    """With the stacks kept, each card named is taken from its stack: one it does not hold is refused."""
    if game.stacks is None:
        return
    block = _stack_block(game, p)
    for card in cards:
        number = _stack(game, card)
        if number is None:
            continue
        if not game.stacks.take(block, number, card):
            where = f"stack {number}" + (f" of the {block} block" if block else "")
            raise Refused(ILLEGAL, f"{where} holds no {card} now ({game.stacks.cards_in(block, number)} cards left in it; "
                          "the others are in hands or on the discard pile)", field=key)


def _from_top(game: Game, p, numbers: list[int], rng: Draws, instead: str, bought: bool) -> list[str]:
    """The top card of each stack NUMBERS names, drawn with RNG from the stacks kept. An empty
    stack gives the step's `empty` card (Mega Civilization 6a, 6b: water, at the stack's price
    when bought); without one a card drawn is forgone (1980 43.8, 1981 15.4) and a card bought
    is refused (1981 15.6: "if available"), never treasury spent on nothing."""
    if game.stacks is None:
        declared = declared_counts(game.module)
        raise Refused(ILLEGAL, f"the rulebook has no trade deck for {len(game.seated())} players to draw from: "
                      f"{instead}"
                      + (f"; decks are declared for {declared} players" if declared else ""), field="seed")
    empty = game.current_actions().get("draw_trade_cards", {}).get("empty")
    if empty is not None:
        empty = _card_names(game, [empty], "seed")[0]
    block = _stack_block(game, p)
    cards = []
    for number in numbers:
        card = game.stacks.draw(block, number, rng) or empty
        if card is not None:
            cards.append(card)
        elif bought:
            raise Refused(ILLEGAL, f"stack {number} is empty: no card to buy", field="stacks")
    return cards


def draw_order(game: Game, args: dict) -> list:
    """The players in the order they draw: seat order, or the fewest cities first (ties in A.S.T. order)."""
    players = game.seated()
    if args.get("order") == "fewest_cities":
        return sorted(players, key=lambda p: (p.cities, game.ast_order(p)))
    return players


def _block(game: Game, p, cards: list[str]) -> None:
    """With separate trade-card blocks (`resolution { separate_blocks }`), a player draws from his own."""
    least = game.module.TABLE_RULES.get("separate_blocks")
    if least is None or len(game.seated()) < least or game.stacks is not None:
        return  # with the stacks dealt, each block's stacks say what it holds (_from_stacks)
    mine = player_block(game.module, game.state(p))
    for c in cards:
        block = game.module.COMMODITIES.get(c, {}).get("block")
        if block and mine and block != mine:
            raise Refused(ILLEGAL, f"{c} belongs to the {block} block; {p.name} draws from the {mine} block",
                          field="cards")


def _in_turn_to_buy(game: Game, p) -> None:
    """Refuse a purchase of trade cards before the draws its step's `after` waits for: the buyer's
    own (1980 43.8, 1981 15.6: in his turn to draw; the Expansion 27.51: right after his draw), or
    every draw (Mega Civilization 6b: after all players have drawn, in the order of the draw: one
    who bought closes the turn to buy of those before him)."""
    acts = game.current_actions()
    draws = acts.get("draw_trade_cards")
    if draws is None:
        return
    if acts["buy_trade_cards"].get("after") != "every_draw":
        if p.cities and not game.done.get(("draw", p.name)):
            raise Refused(ILLEGAL, f"{p.name} buys after his draw", field="player")
        return
    owing = [q.name for q in draw_order(game, draws) if q.cities and not game.done.get(("draw", q.name))]
    if owing:
        raise Refused(ILLEGAL, f"trade cards are bought once every player with cities has drawn: {', '.join(owing)} "
                      f"{'has' if len(owing) == 1 else 'have'} not", field="player")
    seats = [q.name for q in game.seated()]
    later = [q.name for q in game.seated() if _draws_after(draws, seats, q, p) and game.done.get(("buy-cards", q.name))]
    if later:
        raise Refused(ILLEGAL, f"{p.name}'s turn to buy has passed: {later[0]}, after him in the order of the draw, "
                      "has bought", field="player")


def _draws_after(args: dict, seats: list, q, p) -> bool:
    """Whether Q's turn in the draw comes after P's: more cities (fewest_cities; equal counts are
    the table's to order), or a later seat (SEATS: the seated players' names in seat order)."""
    if args.get("order") == "fewest_cities":
        return q.cities > p.cities
    return seats.index(q.name) > seats.index(p.name)


def buy_cards(game: Game, event: dict) -> None:
    """Cards bought for treasury: named (the player took them), or drawn from the top of the
    stacks named with a seed (`buy-cards PLAYER stack=9,9 seed=N`)."""
    p = game.player(event.get("player"))
    seed = _whole(event, "seed")
    if seed is not None:
        numbers = event.get("stacks")
        if not numbers or event.get("cards") is not None or seed > MAX_SEED:
            raise Refused(ILLEGAL, "a purchase with a seed names the stacks bought from (stack=N,...) and no cards, "
                          f"with a seed up to {thousands(MAX_SEED)}", field="seed")
    else:
        cards = _card_names(game, event.get("cards"))
        numbers = [_stack(game, c) or 0 for c in cards]
    _in_turn_to_buy(game, p)
    _once(game, "buy-cards", p.name)
    answer = trade_card_prices(game.module, p.advances, list(numbers), p.treasury)
    if answer["illegal"]:
        raise Refused(ILLEGAL, "; ".join(i["why"] for i in answer["illegal"]), field="stacks" if seed else "cards")
    if seed is not None:
        cards = _from_top(game, p, numbers, Draws(f"{seed}:{p.name}:buy"),
                          "name the cards bought (buy-cards PLAYER CARD...)", True)
    else:
        _from_stacks(game, p, cards, "cards")
    p.treasury = p.treasury - answer["total"]
    _receive(game, p, cards)
    _supply(game, p, cards)
    how = f" (drawn from stack {', '.join(str(n) for n in numbers)} with seed {seed})" if seed is not None else ""
    game.note(f"{p.name} buys {', '.join(cards) or 'nothing'} for {answer['total']} treasury (treasury {p.treasury})"
              f"{how}", _line(game, "buy_trade_cards"))


def trade(game: Game, event: dict) -> None:
    a, b = game.player(event.get("player")), game.player(event.get("with"))
    if a.name == b.name:
        raise Refused(ILLEGAL, "a trade is between two players", field="with")
    gives, gets = _card_names(game, event.get("gives"), "gives"), _card_names(game, event.get("gets"), "gets")
    args = game.current_actions()["trade"]
    least = game.quantity(args.get("least_cards"))
    kept = args.get("received_calamities") == "kept"
    for who, cards, key in ((a, gives, "gives"), (b, gets, "gets")):
        if least is not None and len(cards) < least:
            raise Refused(ILLEGAL, f"{who.name} gives {len(cards)} card{'s' if len(cards) != 1 else ''}: each side "
                          f"of a trade gives at least "
                          f"{least}", field=key)
        _holds(who, cards, key)
        for c in cards:
            cal = game.module.CALAMITIES.get(c)
            if cal is not None and cal["class"] == "major nontradable":
                raise Refused(ILLEGAL, f"{c} is a calamity that may not be traded", field=key)
        if kept:
            _drawn_calamities_only(game, who, cards, key)
    moved_a, moved_b = _part_with(game, a, gives, kept), _part_with(game, b, gets, kept)
    _receive(game, b, [c for c in gives if c not in game.module.CALAMITIES])
    _receive(game, a, [c for c in gets if c not in game.module.CALAMITIES])
    b.calamities.extend((c, a.name) for c, _ in moved_a)
    a.calamities.extend((c, b.name) for c, _ in moved_b)
    game.note(f"{a.name} gives {', '.join(gives)} to {b.name} for {', '.join(gets)}", args["line"])


def _drawn_calamities_only(game: Game, who, cards: list[str], key: str) -> None:
    """`received_calamities=kept`: a calamity traded to a player is his to act on, never traded on."""
    for c in sorted(set(c for c in cards if c in game.module.CALAMITIES)):
        drawn = sum(1 for n, t in who.calamities if n == c and t is None)
        if sum(1 for g in cards if g == c) > drawn:
            raise Refused(ILLEGAL, f"{who.name} received {c} in trade and must act on it: it may not be traded on",
                          field=key)


def discard(game: Game, event: dict) -> None:
    p = game.player(event.get("player"))
    cards = _card_names(game, event.get("cards"))
    _holds(p, cards, "cards")
    _part_with(game, p, cards)
    game.discarded(p, cards)
    game.note(f"{p.name} discards {', '.join(cards)}", _line(game, "hand_limit"))


def hand_limit(game: Game, player, args: dict) -> int | None:
    limit = game.quantity(args["limit"])
    if limit is None:
        return None
    return limit + sum(ab.get("delta", 0) for _, ab in abilities_of(game.module, player.advances, "hand_limit"))


def check_owed_events(game: Game, args: dict, event: str) -> None:
    """The step of an action (its ARGS) ends only when every seated player with cities has
    entered EVENT (the trade cards each draws: one per city, every player), listed in the order
    the action gives; which cards he drew is his to enter, never guessed."""
    owing = [p.name for p in draw_order(game, args) if p.cities and not game.done.get((event, p.name))]
    if owing:
        raise Refused(CHOICE, f"the step ends only when every player with cities has entered `{event}`: "
                      f"{', '.join(owing)} {'has' if len(owing) == 1 else 'have'} not",
                      [f"{event} {n} ...: {event_words(event)}" for n in owing],
                      field="step", needs=[{"player": n, "calamity": None, "key": event} for n in owing])


def check_hand_limits(game: Game, args: dict) -> None:
    over, needs = [], []
    for p in game.seated():
        limit = hand_limit(game, p, args)
        held = p.card_count() + (len(p.calamities) if args["calamities"] == "count" else 0)
        if limit is not None and held > limit:
            over.append(f"discard {p.name} ... ({held} cards held, {limit} kept: {held - limit} of "
                        f"{_hand_words(p)})")
            needs.append({"player": p.name, "calamity": None, "key": "discard", "amount": held - limit})
    if over:
        raise Refused(CHOICE, "the step ends only when every hand is within the hand limit, and which cards go "
                      "is each player's choice", over, needs=needs)


# --- advances --------------------------------------------------------------------------------

def buy(game: Game, event: dict) -> None:
    p = game.player(event.get("player"))
    wanted = event.get("advances")
    if not isinstance(wanted, list) or not wanted or not all(isinstance(a, str) for a in wanted):
        raise Refused(ILLEGAL, "`advances` must name the advances bought", field="advances")
    pay = _card_names(game, event.get("pay") or [], "pay")
    treasury = _whole(event, "treasury") or 0
    _once(game, "buy", p.name)
    cost = _priced(game, p, wanted)
    paid = _paid(game, p, pay, treasury, cost)
    p.take_cards(pay)
    game.discarded(p, pay)
    p.treasury = p.treasury - treasury
    bought = [i["advance"] for i in cost["items"]] + [a["advance"] if isinstance(a, dict) else a
                                                      for a in cost.get("acquired", [])]
    p.advances.extend([a for a in bought if a not in p.advances])
    game.note(f"{p.name} buys {', '.join(bought)} for {cost['total']} (paid {paid}: {', '.join(pay) or 'no cards'}"
              f"{f', {treasury} treasury' if treasury else ''})", _line(game, "buy_advances"))


def _priced(game: Game, p, wanted: list[str]) -> dict:
    """The price of the advances by the edition's price engine, for what the player holds now;
    an unknown, held or illegal purchase is refused."""
    try:
        cost = purchase_for(game.module, game.state(p, game.others_hold(p)), wanted)
    except StateError as exc:  # an unknown or an already held advance
        raise Refused(ILLEGAL, _without_prefix(str(exc), "--buy: "), field="advances")
    if cost["illegal"]:
        raise Refused(ILLEGAL, "; ".join((f"{i['advance']}: " if i["advance"] else "") + i["why"]
                                         for i in cost["illegal"]), field="advances")
    return cost


def _without_prefix(text: str, prefix: str) -> str:
    """The text without every PREFIX in it (the command line's option a message names)."""
    return "".join(text.split(prefix))


def _paid(game: Game, p, pay: list[str], treasury: int, cost: dict) -> int:
    """What the payment is worth: cards the player holds (their sets' value) and treasury, at
    least the price and with no more treasury than the price needs."""
    if any(c in game.module.CALAMITIES for c in pay):
        raise Refused(ILLEGAL, "calamity cards pay for nothing", field="pay")
    _holds(p, pay, "pay")
    if treasury > p.treasury:
        raise Refused(ILLEGAL, f"{p.name} pays {treasury} treasury but holds {p.treasury}", field="treasury")
    # the cards are the rulebook's own names (_card_names) and in his hand (_holds), which the supply
    # check keeps within each commodity's count: hand_for's checks of a hand typed by a user are met
    cards_value = hand_value(game.module, _counted(pay), game.state(p))["total"] if pay else 0
    worth, total = cost["treasury_value"], cost["total"]
    paid = cards_value + treasury * worth
    if paid < total:
        names = ", ".join(i["advance"] for i in cost["items"])
        raise Refused(ILLEGAL, f"the price of {names} is {total}; the payment is worth {paid} ({cards_value} in cards, "
                      f"{treasury * worth} in treasury)", field="pay")
    if treasury and cards_value + (treasury - 1) * worth >= total:
        raise Refused(ILLEGAL, f"{treasury} treasury is more than needed: the cards pay {cards_value} of {total}, "
                      "and no more treasury may be spent than the price needs", field="treasury")
    return paid


def _counted(cards: list[str]) -> dict:
    out: dict[str, int] = {}
    for c in cards:
        out[c] = out.get(c, 0) + 1
    return out


# --- calamity choices, leaving, next ---------------------------------------------------------

def choose(game: Game, event: dict) -> None:
    """A player's choices: as a calamity's victim (`_calamity_choice`), the players bordering him
    and facts of the map this turn's calamities read. Everything is checked before anything is kept."""
    p = game.player(event.get("player"))
    facts = event.get("facts") or {}
    if not isinstance(facts, dict) or not all(isinstance(v, (int, str)) for v in facts.values()):
        raise Refused(ILLEGAL, "`facts` must map fact names to values", field="facts")
    typed = event.get("calamity")
    name = _calamity_choice(game, p, event) if typed is not None else None
    borders = _borders(game, p, event.get("borders") or {})
    unknown = [k for k in facts if k not in FACTS]
    if unknown:
        raise Refused(ILLEGAL, f"no player fact `{unknown[0]}` (see `civdsl vocab`)", field="facts")
    game.turn_facts.setdefault(p.name, {}).update(facts)
    said = ", ".join([f"{in_words(k)} {v}" for k, v in facts.items()]
                     + [f"{r} neighbours {', '.join(n) or 'none'}" for r, n in borders.items()])
    occurrence = event.get("occurrence") or 1
    chosen = [_choice_words(k, v) for k, v in game.choices.get((name, p.name, occurrence), {}).items()] if name else []
    nth = f" (occurrence {occurrence})" if occurrence > 1 else ""
    game.note(f"{p.name} chooses{f' for {typed}{nth}' if name else ''}: "
              f"{'; '.join(chosen + ([said] if said else []))}", _line(game, "resolve_calamities"))


def _calamity_choice(game: Game, p, event: dict) -> str:
    """The victim's choices for one calamity held this turn (CHOICE_KEYS), kept by (calamity,
    victim, occurrence); the calamity's own name."""
    name = _card_names(game, [event["calamity"]], "calamity")[0]
    held = 0  # the cards of this calamity in every hand at the table
    for q in game.seated():
        for n, _ in q.calamities:
            if n == name:
                held += 1
    if not held:
        raise Refused(ILLEGAL, f"nobody holds {name} this turn", field="calamity")
    for who in _secondary_names(event.get("secondary")):
        game.player(who)
    if event.get("beneficiary") is not None:
        game.player(event["beneficiary"])
    for key in ("cities", "tokens", "occurrence"):
        _whole(event, key)
    occurrence = 1 if event.get("occurrence") is None else event["occurrence"]
    if not 1 <= occurrence <= held:
        raise Refused(ILLEGAL, f"{name} occurrence {occurrence}: {held} {name} held this turn, so a player "
                      f"suffers it from once to {held} times", field="occurrence")
    chosen = {k: event[k] for k in CHOICE_KEYS if event.get(k) is not None}
    if "cards" in chosen:
        chosen["cards"] = _card_names(game, chosen["cards"])
    if "given" in chosen:
        chosen["given"] = _given(game, p, chosen["given"])
    key = (name, p.name, occurrence)
    kept = dict(game.choices.get(key, {}))
    kept.update(chosen)
    game.choices[key] = kept
    return name


def _borders(game: Game, p, borders) -> dict:
    """The players bordering P this turn, by relation, kept for the table's relations."""
    if not isinstance(borders, dict) or any(r not in RELATIONS or not isinstance(v, list) for r, v in borders.items()):
        raise Refused(ILLEGAL, f"`borders` maps a relation ({', '.join(RELATIONS)}) to the players that border "
                      f"{p.name} by it", field="borders")
    for relation, names in borders.items():
        for other in names:
            game.player(other)
            game.borders.setdefault(relation, set()).add(frozenset((p.name, other)))
        game.borders.setdefault(relation, set())
    return borders


def _given(game: Game, giver, given: dict) -> dict:
    """The cards a victim hands to other players, by receiver: each a player at the table, not
    the giver himself; the cards as the rulebook names them."""
    out = {}
    for name, cards in given.items():
        receiver = game.player(name)
        if receiver.name == giver.name:
            raise Refused(ILLEGAL, f"{giver.name} gives cards to other players, not to himself", field="given")
        out[receiver.name] = _card_names(game, cards, "given")
    return out


def _choice_words(key: str, value) -> str:
    if isinstance(value, dict):
        value = ", ".join(f"{n} {', '.join(v) if isinstance(v, list) else v}" for n, v in value.items())
    elif isinstance(value, list):
        value = ", ".join(value)
    return f"{key} {value}"


# what a player chooses for a calamity: as its victim, who the secondary victims are and the
# beneficiary where the rules let him pick; as any victim, the pieces or cards a loss takes, and
# who receives each card he hands to the other players
CHOICE_KEYS = ("secondary", "beneficiary", "cities", "tokens", "cards", "given")


def _secondary_names(given) -> list:
    if given is None:
        return []
    if isinstance(given, dict):
        return list(given)
    if isinstance(given, list):
        return given
    raise Refused(ILLEGAL, "`secondary` is a list of players or a mapping of player: amount", field="secondary")


def leave(game: Game, event: dict) -> None:
    p = game.player(event.get("player"))
    game.leaves(p)
    hand = [c for c, n in p.cards.items() for _ in range(n)]
    hand.extend(c for c, _ in p.calamities)
    game.discarded(p, hand)  # his cards go back to their stacks
    p.take_cards([c for c, n in p.cards.items() for _ in range(n)])
    p.calamities = []
    game.note(f"{p.name} leaves the game" + (f" (his {len(hand)} trade cards go back to their stacks)"
                                                if hand and game.stacks is not None else ""))






def _marker(game: Game, p) -> dict:
    return game.marker(p, game.track())


def ast(game: Game, event: dict) -> None:
    """A marker's move the players enter where the rulebook cannot tell it (a track without the
    civilization's row): the rules' own answer is never overridden."""
    p = game.player(event.get("player"))
    move = event.get("move")
    if move not in ("forward", "stays", "back"):
        raise Refused(ILLEGAL, "the move is forward, stays or back", field="move")
    epoch = event.get("epoch")
    if epoch is not None:  # the epoch of the marker's space, as the players' board shows it
        names = [name for name, _ in game.module.AST[game.track()]["epochs"]]
        if epoch not in names:
            raise Refused(ILLEGAL, f"no epoch `{epoch}` on the track (epochs: {', '.join(names)})", field="epoch")
        facts = dict(game.turn_facts.get(p.name) or {})
        facts["ast_epoch"] = epoch
        game.turn_facts[p.name] = facts
    marker = _marker(game, p)
    if marker.get("move") not in (None, "unknown"):
        raise Refused(ILLEGAL, f"the rules move {p.name}'s marker themselves ({marker['move']}): nothing to enter",
                      field="move")
    implied = _forward_held_to_requirements(game, p) if move == "forward" else ""
    game.ast_moves[p.name] = move
    words = "stays" if move == "stays" else f"moves {move}"
    game.note(f"{p.name}: the marker {words} (entered: the rulebook gives no row to tell{implied})",
              _line(game, "alter_ast"))


def _forward_held_to_requirements(game: Game, p) -> str:
    """An entered step forward, held to the epoch requirements of every place the marker may be
    on (1980 43.13, 1981 20, the Expansion 34: entering an epoch needs its cities and cards):
    refused where none allows it; where only some do, or where what one needs is not known, the
    log says what the move tells of the map (the players' word on their board)."""
    steps = game.forward_steps(p, game.track())
    possible = [s for s in steps if s["met"] is not False]
    if not possible:
        raise Refused(ILLEGAL, f"{p.name}'s marker cannot move forward: " + "; ".join(_unmet_words(s) for s in steps),
                      field="move")
    told = "" if len(possible) == len(steps) else ": so the next space " + " or ".join(
        (f"enters {s['epoch']}" if s["enters"] else f"is still in {s['epoch']}") for s in possible)
    unknown = [_unmet_words(s) for s in possible if s["met"] is None]
    return told + ("; not known from the game: " + "; ".join(unknown) if unknown else "")


def _unmet_words(step: dict) -> str:
    what = f"entering {step['epoch']}" if step["enters"] else f"a step inside {step['epoch']}"
    unmet = [f"{r['requirement']} ({'not known' if r['met'] is None else r['value']}, needs {r['needs']})"
             for r in step["needs"] if r["met"] is not True]
    return f"{what} needs {', '.join(unmet)}"


def alter_ast(game: Game, args: dict) -> None:
    ranked = sorted(game.seated(), key=lambda p: game.ast_order(p))
    markers = {p.name: _marker(game, p) for p in ranked}  # read before any marker moves
    unknown = [p.name for p in ranked if markers[p.name].get("move") in (None, "unknown")
               and p.name not in game.ast_moves]
    if unknown:
        raise Refused(CHOICE, "the rulebook gives no A.S.T. row to tell where these markers go: the players enter "
                      "each move", [f"ast {n} forward|stays|back" for n in unknown],
                      needs=[{"player": n, "calamity": None, "key": "ast"} for n in unknown])
    for p in ranked:
        marker = markers[p.name]
        move = marker.get("move")
        if move in (None, "unknown"):
            move = game.ast_moves[p.name]
        before = p.ast_position
        if move == "forward":
            p.ast_position = p.ast_position + 1
        elif move == "back" and p.ast_position > 0:
            p.ast_position = p.ast_position - 1
        went = "forward" if p.ast_position > before else "back" if p.ast_position < before else "stays"
        game.note(f"{p.name}: marker {went} {'on' if went == 'stays' else 'to'} space {p.ast_position}"
                  f"{_epoch_words(marker)}", args["line"])


def _epoch_words(marker: dict) -> str:
    epoch = marker.get("next_epoch") if marker.get("move") == "forward" else marker.get("epoch")
    return f" ({epoch})" if epoch else ""


# the events players enter, each with its handler (`handle`)
EVENT_KINDS = ("tax", "census", "draw", "buy-cards", "trade", "discard", "buy", "choose", "ast", "leave")


def handle(game: Game, kind: str, event: dict) -> None:
    """The event applied by its handler (KIND is one of EVENT_KINDS)."""
    if kind == "census":
        census(game, event)
    elif kind == "tax":
        tax(game, event)
    elif kind == "draw":
        draw(game, event)
    elif kind == "buy-cards":
        buy_cards(game, event)
    elif kind == "trade":
        trade(game, event)
    elif kind == "discard":
        discard(game, event)
    elif kind == "buy":
        buy(game, event)
    elif kind == "choose":
        choose(game, event)
    elif kind == "ast":
        ast(game, event)
    else:
        leave(game, event)
