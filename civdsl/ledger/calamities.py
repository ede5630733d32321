"""The calamity step of a game: the calamity phase (table/calamity_phase.py) built from the players' states,
each calamity resolved against the states the calamities before it left.

Which calamities strike: every calamity card in a hand, except, where the edition's
`resolve_calamities(drawn_tradable=keep)` says so, a tradable one its drawer still holds (he may
keep it). The edition's `resolution` rules discard the excess and set the order. A loss is taken
from the fact that bounds its effect kind (vocabulary.BOUNDS): treasury, ships, tokens, the
A.S.T. marker and destroyed cities at once; a loss whose pieces the rules leave to the player
(unit points without the edition's `losses least_over`, cards to discard, the tokens a reduced
city leaves) is asked for (CIV143) and given with `choose`; what a transfer takes (annexations,
factions, cards given: vocabulary.TRANSFER_KINDS) goes to the calamity's beneficiary.

An engine module (py2es): the game page ends its calamity steps with this code. A rule's error is
located at its rulebook line around the ledger (gamefile.apply), not here."""

from __future__ import annotations

from ..calamity_answer import effect_dict
from ..table.seating import Table
from ..table.resolving import _resolve_one, _primary_victims_by_name, _took_part, apply_limits, in_words, order
from ..vocabulary import TRANSFER_KINDS
from .draws import Draws
from .play import Game
from .refusals import CHOICE, ILLEGAL, Refused

CITY_FACTS = ("cities", "coastal_cities", "volcano_cities", "cities_adjacent_open_sea")
SIMPLE_FACTS = ("treasury", "ships", "tokens", "ast_position")


def striking(game: Game, args: dict) -> list[dict]:
    out = []
    for p in game.seated():
        held: dict[str, int] = {}  # how many of each name he holds so far: its occurrence
        for name, trader in p.calamities:
            cal = game.module.CALAMITIES[name]
            if args["drawn_tradable"] == "keep" and trader is None and cal["class"] == "major tradable":
                continue
            held[name] = held.get(name, 0) + 1
            c = {"index": len(out), "calamity": name, "victim": p.name, "traded_by": trader}
            c.update(_chosen(game, name, p.name, held[name]))
            out.append(c)
    return out


def _chosen(game: Game, name: str, victim: str, occurrence: int) -> dict:
    choice = game.choices.get((name, victim, occurrence), {})
    secondary = choice.get("secondary")
    if isinstance(secondary, list):
        secondary = [(n, None) for n in secondary]
    elif isinstance(secondary, dict):
        secondary = list(secondary.items())
    return {"secondary": secondary, "beneficiary": choice.get("beneficiary")}


def _state(game: Game, name: str):
    """The player's state as the table keeps it: shared, since the table copies it for each question."""
    return game.base_state(game.players[name], game.turn_facts.get(name))


def _table(game: Game, calamities: list[dict]) -> Table:
    """The seated players' table, each player's state built when the phase first reads it (a step
    whose calamities read only their victims and beneficiaries builds no other) and built again
    at the next read after a calamity changed him (`Table.changed`)."""
    names = [p.name for p in game.seated()]
    ranks = {p.name: game.ast_place(p) for p in game.seated()}
    borders = {relation: {p: {q for pair in pairs if p in pair for q in pair if q != p} for p in names}
               for relation, pairs in game.borders.items()}
    return Table(game.rulebook, {}, ranks, borders, calamities, dict(game.options), names,
                 lambda name: _state(game, name))


def resolve_step(game: Game, args: dict) -> None:
    held = striking(game, args)
    table = _table(game, held)
    kept, discarded = apply_limits(table, Draws(f"{game.seed}:{game.turn}"))
    for d in discarded:
        _discard_calamity(game, d.victim, d.calamity)
        why = "a second of the same name" if d.why == "duplicate" else in_words(d.why)
        game.note(f"{d.victim} discards {d.calamity} ({why} beyond the calamity limits)",
                  game.module.TABLE_RULES.get("lines", {}).get("discard"))
    taken = _primary_victims_by_name(game.module, kept)
    # how many calamities of each name each player has suffered this step: a second one of a name
    # (where the edition lets it strike) has its own choices, `choose ... occurrence=2`
    suffered: dict[tuple[str, str], int] = {}
    for c in order(table, kept, []):
        c["occurrence"] = suffered.get((c["calamity"], c["victim"]), 0) + 1
        c.update(_chosen(game, c["calamity"], c["victim"], c["occurrence"]))
        r = _resolve_one(table, c, taken)
        _took_part(taken, r)
        if r.missing:
            needs = [_need(c, m) for m in r.missing]
            raise Refused(CHOICE, f"{c['calamity']} against {c['victim']} needs what the rules leave to the "
                          "players or the map: give it with `choose`", [_need_words(n) for n in needs],
                          needs=needs)
        changed = _apply(game, r, suffered, c.get("traded_by"))
        _discard_calamity(game, c["victim"], c["calamity"])
        # the next calamity sees the losses of this one: only its victims' and gainer's states change
        table.changed(sorted(changed))
    if args["drawn_tradable"] == "keep":
        return
    for p in game.seated():  # a calamity never stays in hand past its step where every one strikes
        game.discarded(p, [n for n, _ in p.calamities])
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
        name, _, fact = missing[len("players."):].rpartition(".")  # a fact's name has no dot; a player's may
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
    for i, (n, _) in enumerate(p.calamities):
        if n == name:
            p.calamities.pop(i)
            game.discarded(p, [name])
            return


def _apply(game: Game, r, suffered: dict, trader: str | None = None) -> set[str]:
    """Each victim's losses taken from the ledger, in words in the log; the players whose state changed."""
    changed = set()
    line = game.module.CALAMITIES[r.calamity]["line"]
    victims = [(r.victim, r.primary, "primary")] + [(n, res, "secondary") for n, _, res in r.secondary]
    ben = f", beneficiary {r.beneficiary.name}" if r.beneficiary is not None and r.beneficiary.name else ""
    for name, res, role in victims:
        if res.is_cancelled:
            game.note(f"{r.calamity}: {name} ({role} victim) suffers nothing: the calamity is cancelled", line)
            continue
        occurrence = suffered.get((r.calamity, name), 0) + 1
        suffered[(r.calamity, name)] = occurrence
        gains = r.beneficiary.name if r.beneficiary is not None and r.beneficiary.name in game.players else None
        lost = []
        for e in [effect_dict(x.kind, x.args) for x in res.effects]:  # the answer's effects, without its trace
            recipient = _recipient(e, trader, gains)
            lost.append(_take(game, game.players[name], e, r.calamity, occurrence, recipient))
            changed.add(name)
            if recipient is not None:
                changed.add(recipient)
            if e.get("to") == "others":
                for given_to in game.choices.get((r.calamity, name, occurrence), {}).get("given", {}):
                    changed.add(given_to)
        lost = [x for x in lost if x]
        game.note(f"{r.calamity}: {name} ({role} victim{ben}) {'; '.join(lost) or 'loses nothing'}", line)
    return changed


def _recipient(effect: dict, trader: str | None, beneficiary: str | None) -> str | None:
    """Who gains what a transfer takes: the beneficiary, or the trader where the effect names him
    (`give_cards(to=trader)`); None for cards handed to the other players (the victim says who
    receives which: `_given_to_others`) or with nobody to gain them."""
    to = effect.get("to", "beneficiary")
    return trader if to == "trader" else beneficiary if to == "beneficiary" else None


def _take(game: Game, p, effect: dict, calamity: str, occurrence: int, beneficiary: str | None = None) -> str:
    """Take one effect's loss from the player's ledger; its words. What a transfer takes goes to
    the beneficiary (vocabulary.TRANSFER_KINDS)."""
    amount = effect.get("taken", effect.get("amount"))
    kind, bound = effect["kind"], effect.get("bound")
    if not amount and kind != "destroy_area_units":
        return ""
    choice = game.choices.get((calamity, p.name, occurrence), {})
    if kind == "destroy_area_units":  # no amount: every unit in the areas, as many as the victim has there
        return _area_units(game, p, effect["area"], choice, calamity, occurrence)
    if kind in TRANSFER_KINDS and effect.get("to") == "others":
        return _given_to_others(game, p, amount, choice, calamity, occurrence)
    if kind in TRANSFER_KINDS and beneficiary is not None and beneficiary != p.name:
        return _transfer(game, p, game.players[beneficiary], effect, amount, calamity, occurrence)
    if effect.get("loss"):
        return _pieces(p, effect["loss"]["cities"], effect["loss"]["tokens"])
    if bound in SIMPLE_FACTS:
        _set_simple_fact(p, bound, max(_simple_fact(p, bound) - amount, 0))
        return f"{amount} {in_words(bound)} lost"
    if bound in CITY_FACTS and kind == "destroy_cities":
        return _pieces(p, amount, 0)
    if bound in CITY_FACTS and kind == "reduce_cities":
        return _reduced(game, p, amount, calamity)
    if bound == "unit_points" or (bound or "").endswith("_units"):  # anywhere, or in an area: his pieces
        return _chosen_pieces(game, p, amount, choice, calamity, occurrence)
    if bound in ("commodity_cards", "commodity_face_value"):
        return _chosen_cards(game, p, amount, effect, choice, calamity, occurrence)
    return f"{in_words(kind)} {amount} (not kept by the ledger: enter what changes on the map as a census)"


def _reduced(game: Game, p, amount: int, calamity: str) -> str:
    """AMOUNT of the player's cities reduced: each leaves the tokens he says (a fact of the map),
    as far as his stock holds them."""
    left = game.turn_facts.get(p.name, {}).get("reduced_city_tokens")
    if left is None:
        raise Refused(CHOICE, f"{calamity} reduces {amount} of {p.name}'s cities: how many tokens does each "
                      "leave?", [f"choose {p.name} reduced_city_tokens=N"],
                      needs=[{"player": p.name, "calamity": None, "key": "reduced_city_tokens", "amount": amount}])
    stock = p.tokens_in_stock(game.pieces)
    placed = amount * left if stock is None else min(amount * left, stock)  # tokens come from stock
    p.cities = max(p.cities - amount, 0)
    p.tokens = p.tokens + placed
    return f"{_n(amount, 'city', 'cities')} reduced ({placed} tokens from stock replace them)"


def _simple_fact(p, bound: str) -> int:
    """The player's count of a fact a loss is taken from at once (SIMPLE_FACTS)."""
    if bound == "treasury":
        return p.treasury
    if bound == "ast_position":
        return p.ast_position
    return p.piece_count(bound)


def _set_simple_fact(p, bound: str, value: int) -> None:
    if bound == "treasury":
        p.treasury = value
    elif bound == "ast_position":
        p.ast_position = value
    else:
        p.set_piece_count(bound, value)



def _transfer(game: Game, victim, gainer, effect: dict, amount: int, calamity: str, occurrence: int) -> str:
    """A transfer: the victim's cities, unit points (cities and tokens of his choice) or cards go
    to the beneficiary, whose own pieces replace them as far as his stock allows (the rest leave
    the board); the log says what moved, so the next census starts from it."""
    before = (victim.cities, victim.tokens, dict(victim.cards))
    if effect["kind"] == "annex_all_but_unit_points":  # the amount is what the victim keeps
        points = game.module.UNIT_POINTS
        amount = max(victim.cities * points["city"] + victim.tokens * points["token"] - amount, 0)
        if not amount:
            return f"keeps all his units ({effect['amount']} unit points are his to keep)"
    if effect["kind"] == "annex_cities":
        _pieces(victim, amount, 0)
    elif effect.get("loss"):  # split into cities and tokens by the edition's `losses least_over`
        _pieces(victim, effect["loss"]["cities"], effect["loss"]["tokens"])
    elif effect.get("bound") == "commodity_cards":
        _chosen_cards(game, victim, amount, effect, game.choices.get((calamity, victim.name, occurrence), {}),
                      calamity, occurrence, to_pile=False)
    else:
        _chosen_pieces(game, victim, amount, game.choices.get((calamity, victim.name, occurrence), {}),
                       calamity, occurrence)
    cities, tokens = before[0] - victim.cities, before[1] - victim.tokens
    cards = [c for c, n in before[2].items() for _ in range(n - victim.cards.get(c, 0))]
    pieces = game.pieces
    room_cities = cities if pieces.get("cities") is None else min(cities, max(pieces["cities"] - gainer.cities, 0))
    stock = gainer.tokens_in_stock(pieces)
    room_tokens = tokens if stock is None else min(tokens, stock)
    gainer.cities = gainer.cities + room_cities
    gainer.tokens = gainer.tokens + room_tokens
    gainer.give_cards(cards)
    if cards:
        return f"{', '.join(cards)} given to {gainer.name}"
    lost = [_n(n, one, many) for n, one, many in ((cities, "city", "cities"), (tokens, "token", "tokens")) if n]
    short = (cities - room_cities) + (tokens - room_tokens)
    return (f"{' and '.join(lost) or 'nothing'} annexed by {gainer.name}"
            + (f" ({short} beyond the pieces in his stock leave the board)" if short else ""))


def _pieces(p, cities: int, tokens: int) -> str:
    p.cities = max(p.cities - cities, 0)
    p.tokens = max(p.tokens - tokens, 0)
    return f"{_n(cities, 'city', 'cities')} and {_n(tokens, 'token', 'tokens')} lost"


def _n(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _area_units(game: Game, p, area: str, choice: dict, calamity: str, occurrence: int) -> str:
    """Every unit in the AREA areas is lost, whoever owns it: the victim's are the units he entered
    as his `AREA_units` fact (cities and tokens: which is his to say where he has both); the
    other players' there are a fact of the map the ledger is not given, so the log says so."""
    fact = f"{area}_units"
    units = min((game.turn_facts.get(p.name) or {}).get(fact) or 0, p.cities + p.tokens)
    if not units:
        return ""
    others = f"; every other player's units in the {in_words(area)} areas are lost too (enter them as a census)"
    if units == p.cities + p.tokens or not p.cities or not p.tokens:
        return _pieces(p, min(units, p.cities), units - min(units, p.cities)) + others
    if "cities" not in choice and "tokens" not in choice:
        raise Refused(CHOICE, f"{calamity}: {p.name} loses his {units} units in the {in_words(area)} areas, cities "
                      "and tokens as they stand on the map",
                      [f"choose {p.name} {which(calamity, occurrence)} cities=C tokens=T (C + T = {units})"],
                      needs=[{"player": p.name, "calamity": calamity, "key": "units", "amount": units,
                              "occurrence": occurrence}])
    cities, tokens = choice.get("cities", 0), choice.get("tokens", 0)
    if cities + tokens != units or cities > p.cities or tokens > p.tokens:
        raise Refused(ILLEGAL, f"{calamity}: {p.name} loses his {units} units in the {in_words(area)} areas, from "
                      f"{p.cities} cities and {p.tokens} tokens: not {cities} cities and {tokens} tokens")
    return _pieces(p, cities, tokens) + others


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


def _chosen_cards(game: Game, p, amount: int, effect: dict, choice: dict, calamity: str, occurrence: int,
                  to_pile: bool = True) -> str:
    cards = (effect.get("discard") or {}).get("cards") or choice.get("cards")
    if cards is None and p.card_count() <= amount and effect["bound"] == "commodity_cards":
        cards = [c for c, n in p.cards.items() for _ in range(n)]
    if cards is None:
        raise Refused(CHOICE, f"{calamity}: {p.name} {'gives' if not to_pile else 'discards'} commodity cards "
                      f"({in_words(effect['kind'])} "
                      f"{amount}) of his choice", [f"choose {p.name} {which(calamity, occurrence)} cards=CARD,CARD,..."],
                      needs=[{"player": p.name, "calamity": calamity, "key": effect["kind"], "amount": amount,
                              "occurrence": occurrence}])
    if isinstance(cards, dict):
        cards = [c for c, n in cards.items() for _ in range(n)]
    if any(p.cards.get(c, 0) < _count(cards, c) for c in set(cards)):
        raise Refused(ILLEGAL, f"{calamity}: {p.name} does not hold all of {', '.join(cards)}")
    p.take_cards(list(cards))
    if to_pile:
        game.discarded(p, list(cards))
    return f"discards {', '.join(cards) or 'nothing'}"


def _given_to_others(game: Game, p, amount: int, choice: dict, calamity: str, occurrence: int) -> str:
    """Cards the victim hands to the other players (`give_cards(to=others)`): AMOUNT cards in all
    (every card he holds, when he holds fewer), and which player receives which is his to say
    (`given`): asked for, never dealt out by the ledger."""
    owed = min(amount, p.card_count())
    if not owed:
        return "gives nothing (no commodity cards in hand)"
    given = choice.get("given")
    if given is None:
        others = [q.name for q in game.seated() if q.name != p.name]
        raise Refused(CHOICE, f"{calamity}: {p.name} gives {_n(owed, 'commodity card', 'commodity cards')} of his "
                      "choice to other players, and says who receives which",
                      [f"choose {p.name} {which(calamity, occurrence)} given=PLAYER:CARD,... ({owed} cards in all, to "
                       f"any of {', '.join(others)})"],
                      needs=[{"player": p.name, "calamity": calamity, "key": "given", "amount": owed,
                              "occurrence": occurrence}])
    cards = [c for named in given.values() for c in named]
    if len(cards) != owed:
        raise Refused(ILLEGAL, f"{calamity}: {p.name} gives {owed} cards in all, not {len(cards)}")
    if any(p.cards.get(c, 0) < _count(cards, c) for c in set(cards)):
        raise Refused(ILLEGAL, f"{calamity}: {p.name} does not hold all of {', '.join(cards)}")
    p.take_cards(cards)
    for name, named in given.items():
        game.players[name].give_cards(named)
    return "; ".join(f"{', '.join(named)} given to {name}" for name, named in given.items() if named)


def _count(cards: list, card: str) -> int:
    return sum(1 for c in cards if c == card)
