"""What a player state already built answers (`cost`, `hand`, `score`): the advances priced with
their legality, a hand's value, the score. api.Rulebook asks them for a state it has checked, and
the ledger for the states it builds. An engine module (py2es): the page's ledger asks the same."""

from __future__ import annotations

from .errors import StateError
from .factchecks import hand_limits
from .handvalue import hand_value
from .pricing import cost_notes, prices, purchase_problems
from .standing import score
from .playerstate import PlayerState
from .pricing import trade_card_prices
from .startcredits import apply_start_credits
from .statecheck import canonical_names, check_names, question_state
from .texts import nfc, split_names


def cost_for(module, st, buy: list) -> dict:
    """The price of the advances BUY (any declared name) for the state, with the purchase's
    problems (`illegal`: reported, never priced silently) and the start credits' notes."""
    result = purchase_for(module, st, buy)
    result["notes"] = cost_notes(module, st.start_credits, st.facts)
    return result


def purchase_for(module, st, buy: list) -> dict:
    """`cost_for` without its notes on what the price leaves out, which only a reader of the
    answer sees: the game ledger's purchase, which checks and keeps the price and shows no notes."""
    buy = canonical_names(module, "advance", list(buy), "--buy")
    seen, twice = set(), []
    for b in buy:  # an advance is bought once: a second naming would be priced again
        if b in seen and b not in twice:
            twice.append(b)
        seen.add(b)
    if twice:
        raise StateError("--buy: named more than once: " + ", ".join(twice))
    already = [b for b in buy if b in st.held_set]
    if already:
        raise StateError("--buy: already held: " + ", ".join(already))
    result = prices(module, st.held, list(buy), st.facts.get("credits"))
    # the same legality `plan` applies to its candidates
    result["illegal"] = purchase_problems(module, st.held, list(buy), st.facts)
    result["start_credits"] = st.start_credits
    return result


def checked_hand(module, cards: dict) -> dict:
    """A hand by each commodity's own name, within the cards the box holds."""
    names = canonical_names(module, "commodity", list(cards), "--cards")
    merged = {}
    for own, n in zip(names, cards.values()):
        merged[own] = merged.get(own, 0) + n
    impossible = hand_limits(merged, module.COMMODITIES, "--cards")
    if impossible:
        raise StateError("\n".join(impossible))
    return merged


def hand_for(module, cards: dict, player) -> dict:
    """Each set's value of the hand; with a player's state, what his block and advances make of it."""
    return hand_value(module, checked_hand(module, cards), player)


def score_of(module, st) -> dict:
    return score(module, st)


# --- a question's player and the names it asks about: what the command line (api.Rulebook, cli)
# and the page (api.js) read from the question before they answer it

def player_for(module, fact_types: dict, holds: list, facts: dict, source: str = "state"):
    """The player state of a question: the advances HOLDS (`--holds`, any declared name) and the
    state's FACTS checked against FACT_TYPES (vocabulary.FACTS), given its start credits."""
    held, clean, options = question_state(module, fact_types, nfc(list(holds)), nfc(dict(facts)), source)
    st = PlayerState(module, held, clean, options)
    apply_start_credits(module, st)
    return st


def calamity_asked(module, calamity: str, role: str) -> str:
    """`resolve CALAMITY --role ROLE`: the calamity's own name (any declared name, in any case)."""
    if role not in ("primary", "secondary"):
        raise StateError(f"role must be primary or secondary, not {repr(role)}")
    return canonical_names(module, "calamity", [calamity], "calamity")[0]


def track_list(module) -> list:
    """`epoch --ast` with no name: the rulebook's A.S.T. tracks."""
    return [{"id": k, "name": v["name"]} for k, v in module.AST.items()]


def tracks_asked(module, track, in_play) -> list:
    """The A.S.T. tracks an `epoch` question is about: the one `--ast` names, else the one the
    state's `ast_track` (IN_PLAY) says the game uses, else every track."""
    if not track and isinstance(in_play, str) and in_play in module.AST:  # else the state check refuses it
        track = in_play
    tracks = [track] if track else list(module.AST)
    check_names(tracks, module.AST, "A.S.T. track", "--ast")
    return tracks


def cost_asked(buy, trade_cards) -> None:
    """`cost` prices a purchase (`--buy`) or trade cards (`--trade-cards`): one at least is asked."""
    if not buy and not trade_cards:
        raise StateError("give --buy ADVANCES or --trade-cards STACKS")


def trade_card_stacks(text: str) -> list:
    """`--trade-cards "9x2, 3"` -> [9, 9, 3]: each a stack number (up to three digits 0-9),
    optionally times a count (`x` and up to three digits)."""
    out = []
    for part in split_names(text):
        stack, _, times = "".join(part.split(" ")).partition("x")
        if not _digits(stack, 1) or not _digits(times, 0):
            raise StateError(f"--trade-cards: `{part}` is not a stack number (optionally xN)")
        out.extend([int(stack) for _ in range(int(times) if times else 1)])
    return out


def _digits(text: str, least: int) -> bool:
    """TEXT is from LEAST to three digits 0-9."""
    return len(text) >= least and len(text) <= 3 and all(c in "0123456789" for c in text)


def trade_cards_for(module, st, stacks: list) -> dict:
    """The treasury price of trade cards bought from the STACKS (one entry per card)."""
    return trade_card_prices(module, st.held, stacks, st.facts.get("treasury"))
