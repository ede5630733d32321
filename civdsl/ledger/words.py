"""Events written as words on the command line (`civdsl game add GAME census anna cities=3`),
turned into the mappings the game file records. Each word keeps its column, so that a refusal
points at the word it is about. An engine module (py2es): the game page reads typed events with
the same words and refuses them with the same messages."""

from __future__ import annotations

from ..diagnostics import did_you_mean
from .refusals import ILLEGAL, Refused

SEPARATOR = "/"  # between two events of one `game add`
USAGE = (
    ("tax", "tax PLAYER rate=N"),
    ("census", "census PLAYER cities=N tokens=N ships=N [treasury=N]"),
    ("draw", "draw PLAYER CARD... | draw PLAYER seed=N"),
    ("buy-cards", "buy-cards PLAYER CARD... | buy-cards PLAYER stack=N,... seed=N"),
    ("trade", "trade PLAYER CARD... for PLAYER CARD..."),
    ("choose", "choose PLAYER [CALAMITY [occurrence=N]] [secondary=NAME:N,...] [beneficiary=NAME] [cities=N] [tokens=N] "
               "[cards=CARD,...] [given=NAME:CARD,...] [land=NAME,...] [FACT=N]"),
    ("buy", "buy PLAYER ADVANCE... [pay CARD...] [treasury N]"),
    ("discard", "discard PLAYER CARD..."),
    ("ast", "ast PLAYER forward|stays|back"),
    ("leave", "leave PLAYER"),
    ("next", "next"),
)


def kinds() -> list:
    """The events, in the order the usage lists them."""
    return [kind for kind, _ in USAGE]


def usage(kind: str) -> str | None:
    """How the event is typed (None: no such event)."""
    for k, text in USAGE:
        if k == kind:
            return text
    return None


def thousands(n: int) -> str:
    """A whole number with its thousands separated by commas (as Python's `{n:,}`)."""
    text = str(n)
    groups = []
    while len(text) > 3:
        groups.append(text[len(text) - 3:])
        text = text[:len(text) - 3]
    groups.append(text)
    groups.reverse()
    return ",".join(groups)


def split_events(words: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for w in words:
        if w == SEPARATOR:
            out.append([])
        else:
            out[-1].append(w)
    return [e for e in out if e]


def columns(words: list[str]) -> dict[int, int]:
    """The column (1-based) where each word starts in the words joined by spaces."""
    out, col = {}, 1
    for i, w in enumerate(words):
        out[i] = col
        col += len(w) + 1
    return out


def _cards(words: list[str]) -> list[str]:
    """Card names; `NAME*N` stands for N cards of a name."""
    out = []
    for w in words:
        name, _, times = w.rpartition("*")
        n = int(times) if _is_whole(times) and len(times) <= 3 else 0
        if name and 0 < n <= 100:
            out.extend(name for _ in range(n))
        else:
            out.append(w)
    return out


def _is_whole(word: str) -> bool:
    """A whole number in the digits 0-9 (str.isdigit takes other scripts' digits, which int() may not read)."""
    return len(word) > 0 and all(c in "0123456789" for c in word)


def _number(word: str, key: str) -> int:
    if not _is_whole(word) or len(word) > 9:
        raise Refused(ILLEGAL, f"`{key}` needs a whole number, not `{word}`", field=key)
    return int(word)


def parse(words: list[str]) -> tuple[dict, dict[str, int]]:
    """The event, and for each of its keys the index of the word that gave it."""
    kind = words[0]
    quoted = kind.split()
    if usage(kind) is None and len(quoted) > 1 and usage(quoted[0]) is not None:
        # an event quoted whole on a command line arrives as one word
        raise Refused(ILLEGAL, f"`{kind}` arrived as one word: give the event's words apart (not in one pair of "
                      "quotes), several events separated by `/`", field="do")
    if usage(kind) is None:
        best = did_you_mean(kind, kinds())
        raise Refused(ILLEGAL, f"no event `{kind}`" + (f" (did you mean `{best}`?)" if best else "")
                      + f"; events: {', '.join(kinds())} (`next` ends the step)", field="do")
    at = {"do": 0}
    if kind == "next":
        if len(words) > 1:
            raise Refused(ILLEGAL, "`next` takes nothing after it", field="do")
        return {"do": "next"}, at
    if len(words) < 2:
        raise Refused(ILLEGAL, f"usage: {usage(kind)}", field="do")
    event: dict = {"do": kind, "player": words[1]}
    at["player"] = 1
    try:
        _read(kind, event, at, words[2:])
    except Refused as r:  # a word that cannot be read: located at that word (its key's, once known)
        if r.field in at:
            r.field = f"#{at[r.field]}"
        raise
    return event, at


def _census(event: dict, at: dict, rest: list[str]) -> None:
    _assignments(event, at, rest, 2, ("cities", "tokens", "ships", "treasury"))


def _draw(event: dict, at: dict, rest: list[str]) -> None:
    if len(rest) == 1 and rest[0].startswith("seed="):
        at["seed"] = 2
        event["seed"] = _number(rest[0][5:], "seed")
    else:
        _card_list(event, at, rest)


def _buy_cards(event: dict, at: dict, rest: list[str]) -> None:
    if not rest or not all(w.startswith(("stack=", "seed=")) for w in rest):
        return _card_list(event, at, rest)
    for j, w in enumerate(rest):
        key, _, value = w.partition("=")
        if key == "stack":
            at["stack"] = at["stacks"] = j + 2
            event["stacks"] = [_number(v, "stack") for v in value.split(",") if v][:100]
        else:
            at["seed"] = j + 2
            event["seed"] = _number(value, "seed")


def _card_list(event: dict, at: dict, rest: list[str]) -> None:
    event["cards"] = _cards(rest)
    at["cards"] = 2


def _trade(event: dict, at: dict, rest: list[str]) -> None:
    if "for" not in rest or rest.index("for") + 1 >= len(rest):
        raise Refused(ILLEGAL, f"usage: {usage('trade')}", field="do")
    i = rest.index("for")
    event.update({"gives": _cards(rest[:i]), "with": rest[i + 1], "gets": _cards(rest[i + 2:])})
    at.update({"gives": 2, "with": i + 3, "gets": i + 4})


def _ast(event: dict, at: dict, rest: list[str]) -> None:
    if len(rest) != 1:
        raise Refused(ILLEGAL, f"usage: {usage('ast')}", field="do")
    event["move"], at["move"] = rest[0], 2


def _leave(event: dict, at: dict, rest: list[str]) -> None:
    if rest:
        raise Refused(ILLEGAL, f"usage: {usage('leave')}", field="do")


def _assignments(event: dict, at: dict, words: list[str], first: int, keys) -> None:
    for j, w in enumerate(words):
        key, eq, value = w.partition("=")
        if not eq or (keys and key not in keys):
            raise Refused(ILLEGAL, f"expected {' or '.join(f'{k}=N' for k in keys)}, not `{w}`", field=f"#{first + j}")
        at[key] = first + j
        event[key] = _number(value, key)


def _buy(event: dict, at: dict, rest: list[str]) -> None:
    marks = [i for i, w in enumerate(rest) if w in ("pay", "treasury")]
    end = marks[0] if marks else len(rest)
    event["advances"] = rest[:end]
    at["advances"] = 2
    i = end
    while i < len(rest):
        if rest[i] == "treasury" and i + 1 < len(rest):
            at["treasury"] = i + 3
            event["treasury"] = _number(rest[i + 1], "treasury")
            i += 2
        elif rest[i] == "pay":
            j = i + 1
            while j < len(rest) and rest[j] != "treasury":
                j += 1
            event["pay"] = _cards(rest[i + 1:j])
            at["pay"] = i + 3
            i = j
        else:
            raise Refused(ILLEGAL, f"usage: {usage('buy')}", field=f"#{i + 2}")


def _choose(event: dict, at: dict, rest: list[str]) -> None:
    facts = {}
    for j, w in enumerate(rest):
        key, eq, value = w.partition("=")
        if not eq:
            if "calamity" in event:
                raise Refused(ILLEGAL, f"usage: {usage('choose')}", field=f"#{j + 2}")
            event["calamity"], at["calamity"] = w, j + 2
            continue
        at[key] = j + 2
        if not _read_choice(event, key, value):
            facts[key] = _number(value, key) if _is_whole(value) else value
            at.setdefault("facts", j + 2)
    if facts:
        event["facts"] = facts


def _secondary(event: dict, key: str, value: str) -> None:
    """`secondary=bruno:10,eva:5` (amounts), or `secondary=bruno,eva` (names only)."""
    pairs = [p.partition(":") for p in value.split(",") if p]
    event["secondary"] = ({n: _number(v, "secondary") for n, _, v in pairs} if all(c for _, c, _ in pairs)
                          else [n for n, _, _ in pairs])


def _border(event: dict, key: str, value: str) -> None:
    event.setdefault("borders", {})[key] = [n for n in value.split(",") if n]


def _name(event: dict, key: str, value: str) -> None:
    event[key] = value


def _card_names(event: dict, key: str, value: str) -> None:
    event[key] = _cards([c for c in value.split(",") if c])


def _count(event: dict, key: str, value: str) -> None:
    event[key] = _number(value, key)


def _given(event: dict, key: str, value: str) -> None:
    """`given=bruno:Ochre,chloe:Salt*2`: the cards each other player receives."""
    given: dict[str, list[str]] = {}
    for pair in (p for p in value.split(",") if p):
        name, colon, card = pair.partition(":")
        if not colon or not name or not card:
            raise Refused(ILLEGAL, f"`given` pairs a player with a card (given=NAME:CARD,...), not `{pair}`",
                          field="given")
        given.setdefault(name, []).extend(_cards([card]))
    event["given"] = given


def _read(kind: str, event: dict, at: dict, rest: list) -> None:
    """How each event reads its words after the player's name."""
    if kind == "census":
        _census(event, at, rest)
    elif kind == "tax":
        _assignments(event, at, rest, 2, ("rate",))
    elif kind == "draw":
        _draw(event, at, rest)
    elif kind == "buy-cards":
        _buy_cards(event, at, rest)
    elif kind == "discard":
        _card_list(event, at, rest)
    elif kind == "trade":
        _trade(event, at, rest)
    elif kind == "buy":
        _buy(event, at, rest)
    elif kind == "choose":
        _choose(event, at, rest)
    elif kind == "ast":
        _ast(event, at, rest)
    else:
        _leave(event, at, rest)


def _read_choice(event: dict, key: str, value: str) -> bool:
    """How `choose` reads each key it knows; False for any other (a fact of the map: `volcano_cities=1`)."""
    if key == "secondary":
        _secondary(event, key, value)
    elif key == "beneficiary":
        _name(event, key, value)
    elif key == "cards":
        _card_names(event, key, value)
    elif key == "given":
        _given(event, key, value)
    elif key in ("land", "water", "near"):
        _border(event, key, value)
    elif key in ("cities", "tokens", "occurrence"):
        _count(event, key, value)
    else:
        return False
    return True
