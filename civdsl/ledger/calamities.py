"""The calamity step of a game: the calamity phase (table/calamity_phase.py) built from the players' states,
each calamity resolved against the states the calamities before it left.

Which calamities strike: every calamity card in a hand, except, where the edition's
`resolve_calamities(drawn_tradable=keep)` says so, a tradable one its drawer still holds (he may
keep it). The edition's `resolution` rules discard the excess and set the order. A loss is taken
from the fact that bounds its effect kind (vocabulary.BOUNDS): treasury, ships, tokens, the
A.S.T. marker and destroyed cities at once; a loss whose pieces the rules leave to the player
(unit points without the edition's `losses least_over`, cards to discard, the tokens a reduced
city leaves) is asked for (CIV143) and given with `choose`; transfers to another player
(annexations, factions, cards given) are entered as the next census."""

from __future__ import annotations

import random

from .. import sourcemap
from ..table.tablefile import Table
from ..table.calamity_phase import _resolve_one, _primary_victims_by_name, _took_part, apply_limits, order
from .play import CHOICE, ILLEGAL, Game, Refused

CITY_FACTS = ("cities", "coastal_cities", "volcano_cities", "cities_adjacent_open_sea")
SIMPLE_FACTS = ("treasury", "ships", "tokens", "ast_position")


def striking(game: Game, args: dict) -> list[dict]:
    out = []
    for p in game.seated():
        for name, trader in p.calamities:
            cal = game.module.CALAMITIES[name]
            if args["drawn_tradable"] == "keep" and trader is None and cal["class"] == "major tradable":
                continue
            before = sum(c["calamity"] == name and c["victim"] == p.name for c in out)
            out.append({"index": len(out), "calamity": name, "victim": p.name, "traded_by": trader,
                        **_chosen(game, name, p.name, before + 1)})
    return out


def _chosen(game: Game, name: str, victim: str, occurrence: int) -> dict:
    choice = game.choices.get((name, victim, occurrence), {})
    secondary = choice.get("secondary")
    if isinstance(secondary, list):
        secondary = [(n, None) for n in secondary]
    elif isinstance(secondary, dict):
        secondary = list(secondary.items())
    return {"secondary": secondary, "beneficiary": choice.get("beneficiary")}


def _table(game: Game, calamities: list[dict]) -> Table:
    states = {p.name: game.state(p, **game.turn_facts.get(p.name, {})) for p in game.seated()}
    ranks = {}
    for p in game.seated():
        civ = getattr(game.module, "CIVILIZATIONS", {}).get(p.civilization)
        ranks[p.name] = civ["rank"] if civ else None
    borders = {relation: {p: {q for pair in pairs if p in pair for q in pair if q != p} for p in states}
               for relation, pairs in game.borders.items()}
    return Table(game.rulebook, states, ranks, borders, calamities, dict(game.options))


def resolve_step(game: Game, args: dict) -> None:
    held = striking(game, args)
    table = _table(game, held)
    kept, discarded = apply_limits(table, random.Random(f"{game.seed}:{game.turn}"))
    for d in discarded:
        _discard_calamity(game, d.victim, d.calamity)
        game.note(f"{d.victim} discards {d.calamity} ({'a second of the same name' if d.why == 'duplicate' else d.why}"
                  " beyond the calamity limits)", game.module.TABLE_RULES.get("lines", {}).get("discard"))
    taken = _primary_victims_by_name(game.module, kept)
    # how many calamities of each name each player has suffered this step: a second one of a name
    # (where the edition lets it strike) has its own choices, `choose ... occurrence=2`
    suffered: dict[tuple[str, str], int] = {}
    with sourcemap.rules_of(game.module):
        for c in order(table, kept, []):
            c["occurrence"] = suffered.get((c["calamity"], c["victim"]), 0) + 1
            c.update(_chosen(game, c["calamity"], c["victim"], c["occurrence"]))
            table = _table(game, held)  # the states the calamities before this one left
            r = _resolve_one(table, c, taken)
            _took_part(taken, r)
            if r.missing:
                needs = [_need(c, m) for m in r.missing]
                raise Refused(CHOICE, f"{c['calamity']} against {c['victim']} needs what the rules leave to the "
                              "players or the map: give it with `choose`", [_need_words(n) for n in needs],
                              needs=needs)
            _apply(game, r, suffered)
            _discard_calamity(game, c["victim"], c["calamity"])
    if args["drawn_tradable"] == "keep":
        return
    for p in game.seated():  # a calamity never stays in hand past its step where every one strikes
        p.calamities = []


def _need(c: dict, missing: str) -> dict:
    """What a missing fact of the table asks of whom: a victim's choice for the calamity
    (`secondary`, `beneficiary`) or a map fact of a player (`players.NAME.FACT`, or the victim's)."""
    if missing.startswith("calamities[") or missing == "beneficiary":
        return {"player": c["victim"], "calamity": c["calamity"], "key": missing.rpartition(".")[2],
                "occurrence": c.get("occurrence", 1)}
    if missing.startswith("borders."):
        return {"player": c["victim"], "calamity": None, "key": missing}
    if missing.startswith("players."):
        _, name, fact = missing.split(".", 2)
        return {"player": name, "calamity": None, "key": fact}
    return {"player": c["victim"], "calamity": None, "key": missing}


def _need_words(n: dict) -> str:
    if n["key"] == "secondary":
        return f"choose {n['player']} {which(n['calamity'], n['occurrence'])} secondary=NAME:N,... (the secondary " \
               "victims he names)"
    if n["key"] == "beneficiary":
        return f"choose {n['player']} {which(n['calamity'], n['occurrence'])} beneficiary=NAME (the beneficiary he " \
               "names)"
    if n["key"].startswith("borders."):
        return f"choose {n['player']} {n['key'][8:]}=NAME,... (the players bordering him by {n['key'][8:]})"
    return f"choose {n['player']} {n['key']}=N (a fact of the map)"


def which(calamity: str, occurrence: int) -> str:
    """A calamity as `choose` names it: the second one of a name a player suffers in the step
    is `occurrence=2`."""
    return f'"{calamity}"' + (f" occurrence={occurrence}" if occurrence > 1 else "")


def _discard_calamity(game: Game, victim: str, name: str) -> None:
    p = game.players[victim]
    i = next((i for i, (n, _) in enumerate(p.calamities) if n == name), None)
    if i is not None:
        p.calamities.pop(i)


def _apply(game: Game, r, suffered: dict) -> None:
    line = game.module.CALAMITIES[r.calamity]["line"]
    victims = [(r.victim, r.primary, "primary")] + [(n, res, "secondary") for n, _, res in r.secondary]
    ben = f", beneficiary {r.beneficiary.name}" if r.beneficiary is not None and r.beneficiary.name else ""
    for name, res, role in victims:
        if res.is_cancelled:
            game.note(f"{r.calamity}: {name} ({role} victim) suffers nothing: the calamity is cancelled", line)
            continue
        occurrence = suffered.get((r.calamity, name), 0) + 1
        suffered[(r.calamity, name)] = occurrence
        lost = [_take(game, game.players[name], e, r.calamity, occurrence) for e in res.to_dict()["effects"]]
        lost = [x for x in lost if x]
        game.note(f"{r.calamity}: {name} ({role} victim{ben}) {'; '.join(lost) or 'loses nothing'}", line)


def _take(game: Game, p, effect: dict, calamity: str, occurrence: int) -> str:
    """Take one effect's loss from the player's ledger; its words."""
    amount = effect.get("taken", effect.get("amount"))
    kind, bound = effect["kind"], effect.get("bound")
    if not amount:
        return ""
    choice = game.choices.get((calamity, p.name, occurrence), {})
    if effect.get("loss"):
        return _pieces(p, effect["loss"]["cities"], effect["loss"]["tokens"])
    if bound in SIMPLE_FACTS:
        setattr(p, bound, max(getattr(p, bound) - amount, 0))
        return f"{amount} {bound.replace('_', ' ')} lost"
    if bound in CITY_FACTS and kind == "destroy_cities":
        return _pieces(p, amount, 0)
    if bound in CITY_FACTS and kind == "reduce_cities":
        left = game.turn_facts.get(p.name, {}).get("reduced_city_tokens")
        if left is None:
            raise Refused(CHOICE, f"{calamity} reduces {amount} of {p.name}'s cities: how many tokens does each "
                          "leave?", [f"choose {p.name} reduced_city_tokens=N"],
                          needs=[{"player": p.name, "calamity": None, "key": "reduced_city_tokens", "amount": amount}])
        stock = p.tokens_in_stock(game.pieces)
        placed = amount * left if stock is None else min(amount * left, stock)  # tokens come from stock
        p.cities = max(p.cities - amount, 0)
        p.tokens += placed
        return f"{_n(amount, 'city', 'cities')} reduced ({placed} tokens from stock replace them)"
    if bound == "unit_points" or (bound or "").endswith("_units"):  # anywhere, or in an area: his pieces
        return _chosen_pieces(game, p, amount, choice, calamity, occurrence)
    if bound in ("commodity_cards", "commodity_face_value"):
        return _chosen_cards(game, p, amount, effect, choice, calamity, occurrence)
    return f"{kind.replace('_', ' ')} {amount} (not kept by the ledger: enter what changes on the map as a census)"


def _pieces(p, cities: int, tokens: int) -> str:
    p.cities, p.tokens = max(p.cities - cities, 0), max(p.tokens - tokens, 0)
    return f"{_n(cities, 'city', 'cities')} and {_n(tokens, 'token', 'tokens')} lost"


def _n(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _chosen_pieces(game: Game, p, amount: int, choice: dict, calamity: str, occurrence: int) -> str:
    city, token = game.module.UNIT_POINTS["city"], game.module.UNIT_POINTS["token"]
    have = p.cities * city + p.tokens * token
    if have <= amount:
        return _pieces(p, p.cities, p.tokens)
    if "cities" not in choice and "tokens" not in choice:
        raise Refused(CHOICE, f"{calamity}: {p.name} loses {amount} unit points, from cities ({city} each) and "
                      f"tokens ({token} each) of his choice",
                      [f"choose {p.name} {which(calamity, occurrence)} cities=C tokens=T (C x {city} + T x {token} "
                       f"at least {amount})"], needs=[{"player": p.name, "calamity": calamity, "key": "pieces",
                                                      "amount": amount, "occurrence": occurrence}])
    cities, tokens = choice.get("cities", 0), choice.get("tokens", 0)
    worth = cities * city + tokens * token
    least = min([x for x, n in ((city, cities), (token, tokens)) if n] or [0])
    if cities > p.cities or tokens > p.tokens or worth < amount or worth - least >= amount:
        nth = f" (occurrence {occurrence})" if occurrence > 1 else ""
        raise Refused(ILLEGAL, f"{calamity}{nth}: {cities} cities and {tokens} tokens are worth {worth}: {p.name} loses "
                      f"{amount} unit points, no piece more than needed, from {p.cities} cities and {p.tokens} tokens")
    return _pieces(p, cities, tokens)


def _chosen_cards(game: Game, p, amount: int, effect: dict, choice: dict, calamity: str, occurrence: int) -> str:
    cards = (effect.get("discard") or {}).get("cards") or choice.get("cards")
    if cards is None and p.card_count() <= amount and effect["bound"] == "commodity_cards":
        cards = [c for c, n in p.cards.items() for _ in range(n)]
    if cards is None:
        raise Refused(CHOICE, f"{calamity}: {p.name} discards commodity cards ({effect['kind'].replace('_', ' ')} "
                      f"{amount}) of his choice", [f"choose {p.name} {which(calamity, occurrence)} cards=CARD,CARD,..."],
                      needs=[{"player": p.name, "calamity": calamity, "key": effect["kind"], "amount": amount,
                              "occurrence": occurrence}])
    if isinstance(cards, dict):
        cards = [c for c, n in cards.items() for _ in range(n)]
    if any(p.cards.get(c, 0) < cards.count(c) for c in set(cards)):
        raise Refused(ILLEGAL, f"{calamity}: {p.name} does not hold all of {', '.join(cards)}")
    p.take_cards(list(cards))
    return f"discards {', '.join(cards) or 'nothing'}"
