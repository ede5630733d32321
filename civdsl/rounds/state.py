"""Round rules, state loading: a state file's data (YAML: round, stats, hand, deck, discard,
thresholds_on, choices, ended) -> a `GameState`, checked against the edition's generated module,
and `--set` / `--choose` assignments of the command line. Every problem is a `StateError`
naming where it is, with a did-you-mean for a misspelt name.
"""

from __future__ import annotations

import random

from ..diagnostics import did_you_mean
from ..state import StateError, parse_assignment
from ..statecheck import whole_number
from .runtime import GameState, card_text, new_state


STATE_KEYS = ("round", "stats", "hand", "deck", "discard", "thresholds_on", "choices", "ended")


def hint(name: str, candidates) -> str:
    best = did_you_mean(str(name), candidates)
    return f" (did you mean `{best}`?)" if best else ""


def _require_known(name, names, unknown: str, after: str = "") -> None:
    """Raise the StateError `unknown `name`` (with a did-you-mean, then `after`) unless `name` is
    one of `names`."""
    if name not in names:
        raise StateError(f"{unknown} `{name}`{hint(name, names)}{after}")


def require_rounds(module) -> None:
    if not hasattr(module, "PHASES") or not module.PHASES:
        raise StateError(f"edition `{module.EDITION['id']}` declares no phases: it is not played in rounds")


def _parse_card(module, text, where: str):
    if not isinstance(text, str) or " of " not in text:
        raise StateError(f"{where}: a card is written `RANK of SUIT` (e.g. `10 of Hearts`), not {text!r}")
    rank, suit = text.rsplit(" of ", 1)
    card = (rank.strip(), suit.strip())
    if card in module.CARDS:
        return card
    ranks = _deck_words(module, "ranks")
    if card[0] not in ranks:
        raise StateError(f"{where}: unknown rank `{card[0]}`{hint(card[0], ranks)}")
    raise StateError(f"{where}: unknown suit `{card[1]}`{hint(card[1], _deck_words(module, 'suits'))}")


def _deck_words(module, part: str) -> list[str]:
    """The words of the card deck's `ranks` or `suits` (none when the edition has no cards)."""
    return [word for word, _ in module.CARD_DECK[part]] if module.CARD_DECK else []


def _value(module, name: str, value, where: str):
    """The value of a stat, flag or track as a state gives it: a flag true or false, a number
    whole and within its declared bounds."""
    if name in module.FLAGS:
        if not isinstance(value, bool):
            raise StateError(f"{where}: `{name}` is a flag: true or false, not {value!r}")
        return value
    spec = module.STATS.get(name) or module.TRACKS.get(name)
    if not whole_number(value):
        raise StateError(f"{where}: `{name}` must be a whole number, not {value!r}")
    low, high = spec["low"], spec["high"]
    if _outside(value, low, high):
        raise StateError(f"{where}: `{name}` = {value} is outside its bounds "
                         f"{'' if low is None else low}..{'' if high is None else high}")
    return value


def _outside(value: int, low: int | None, high: int | None) -> bool:
    """Whether a number is below its lower bound or above its upper one (None: no such bound)."""
    return (low is not None and value < low) or (high is not None and value > high)


def _value_names(module) -> list[str]:
    """What a state's `stats` (or `--set`) may give: every stat, flag and track."""
    return list(module.STATS) + list(module.FLAGS) + list(module.TRACKS)


def state_from_data(module, data: dict, rng: random.Random, source: str = "state") -> GameState:
    """A GameState from a state file's mapping; values not given keep their initial value, and
    cards not in the hand or discard pile form the draw pile, shuffled with `rng`. Parts are read
    in a fixed order, so the first problem reported is always the same."""
    require_rounds(module)
    if not isinstance(data, dict):
        raise StateError(f"{source}: a state is a mapping (round, stats, hand, ...)")
    for key in data:
        _require_known(key, STATE_KEYS, f"{source}: unknown key", f"; a state has {', '.join(STATE_KEYS)}")
    state = new_state(module)
    _read_stats(module, data, state, source)
    _read_cards(module, data, state, rng, source)
    state.on = _thresholds_on(module, data, source)
    state.choices = check_choices(module, data.get("choices") or {}, f"{source}: choices")
    _read_progress(data, state, source)
    return state


def _read_progress(data: dict, state: GameState, source: str) -> None:
    """How far the game is: the round played last, and why it ended (if it did)."""
    state.round = data.get("round", 0)
    if not whole_number(state.round) or state.round < 0:
        raise StateError(f"{source}: `round` must be a whole number of at least 0")
    state.ended = data.get("ended")
    if not isinstance(state.ended, (str, type(None))):
        raise StateError(f"{source}: `ended` is text (why the game ended) or absent")


def _read_stats(module, data: dict, state: GameState, source: str) -> None:
    names = _value_names(module)
    stats = data.get("stats") or {}
    if not isinstance(stats, dict):
        raise StateError(f"{source}: `stats` is a mapping of name: value")
    for name, value in stats.items():
        _require_known(name, names, f"{source}: `stats` names unknown")
        state.values[name] = _value(module, name, value, f"{source}: stats.{name}")


def _read_cards(module, data: dict, state: GameState, rng: random.Random, source: str) -> None:
    """The hand, draw pile and discard pile: each card once; cards in none of the piles given
    form the draw pile, shuffled, unless the state gives the draw pile itself."""
    piles = {}
    seen: dict = {}
    for pile in ("hand", "deck", "discard"):
        if data.get(pile) is not None:
            piles[pile] = _read_pile(module, data, pile, seen, source)
    state.hand = piles.get("hand", [])
    state.discard = piles.get("discard", [])
    if "deck" in piles:
        state.deck = piles["deck"]
    else:
        state.deck = [c for c in state.deck if c not in seen]
        rng.shuffle(state.deck)
    _check_hand_limit(module, state.hand, source)


def _check_hand_limit(module, hand: list, source: str) -> None:
    limit = module.CARD_DECK["hand_limit"] if module.CARD_DECK else None
    if limit is not None and len(hand) > limit:
        raise StateError(f"{source}: `hand` holds {len(hand)} cards; the hand limit is {limit}")


def _read_pile(module, data: dict, pile: str, seen: dict, source: str) -> list:
    if not isinstance(data[pile], list):
        raise StateError(f"{source}: `{pile}` is a list of cards")
    if data[pile] and module.CARD_DECK is None:
        raise StateError(f"{source}: `{pile}`: edition `{module.EDITION['id']}` has no cards")
    cards = []
    for i, text in enumerate(data[pile]):
        card = _parse_card(module, text, f"{source}: {pile}[{i}]")
        if card in seen:
            raise StateError(f"{source}: {card_text(card)} is in `{seen[card]}` and `{pile}`: each card exists once")
        seen[card] = pile
        cards.append(card)
    return cards


def _thresholds_on(module, data: dict, source: str) -> set:
    on = data.get("thresholds_on") or []
    if not isinstance(on, list):
        raise StateError(f"{source}: `thresholds_on` is a list of threshold names")
    for name in on:
        _require_known(name, module.THRESHOLDS, f"{source}: unknown threshold")
    return set(on)


def check_choices(module, choices, where: str) -> dict:
    if not isinstance(choices, dict):
        raise StateError(f"{where}: a mapping of choice: value")
    out = {}
    for name, value in choices.items():
        _require_known(name, module.CHOICES, f"{where}: unknown choice")
        if not isinstance(value, (bool, int)):
            raise StateError(f"{where}: `{name}` must be a whole number or true/false, not {value!r}")
        out[name] = value
    return out


def assignments(module, sets: tuple[str, ...], chooses: tuple[str, ...]) -> tuple[dict, dict]:
    stats, choices = {}, {}
    names = _value_names(module)
    for item in sets:
        key, value = parse_assignment(item)
        _require_known(key, names, "--set: unknown stat, flag or track")
        stats[key] = _value(module, key, value, f"--set {item}")
    for item in chooses:
        key, value = parse_assignment(item)
        choices.update(check_choices(module, {key: value}, "--choose"))
    return stats, choices


def phase_ids(module) -> list[str]:
    return [pid for pid, _, _ in module.PHASES]
