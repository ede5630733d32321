"""The passes a calamity's rules run over their finished effect list (runtime's ABI re-exports
them): the floor at zero, the bound of what the player holds, select-then-unselect, reduce until
supported, the loss of unit points with the least excess and the discard by value. An effect is
(kind, its parameters as a dict, its rulebook line). The page runs them translated
(companion/py2es.py), so this module keeps to the engine subset (docs/engine-route.md).
"""

from __future__ import annotations

from .losses import cheapest_discard, cities_supported, floor_step, least_loss
from .pricing import ability
from .unknown import Unknown


def floor_effects(effects: list, trace: list, mains: dict, line: int, path: str) -> None:
    """The edition's `floor zero` over a finished effect list: each main amount of the kinds in
    MAINS (kind -> its main parameter) that went below zero becomes zero, traced."""
    for effect in effects:
        kind, args = effect[0], effect[1]
        param = mains.get(kind)
        if param is not None:
            args[param] = floor_step(trace, kind, param, args[param], line, path)


def bound_effects(s, effects: list, trace: list, bounds: dict, path: str, city=None) -> None:
    """Nothing beyond what the player has: each effect whose kind a holding bounds gets `bound`
    (the fact) and, when the state gives it, `taken` = the smaller of the demanded amount and the
    holding; the trace says when the bound applied. `amount` stays the amount the rule demands.
    `city`: a city's unit points for this calamity (`amounts { city_points ... }`)."""
    for i, effect in enumerate(effects):
        kind, args, line = effect
        fact = _bounding_fact(bounds, kind, args)
        demanded = args.get("amount")
        if fact is None or demanded is None or isinstance(demanded, Unknown):
            continue
        have = s.holding(fact, city)
        new = dict(args)
        new["bound"] = fact
        if have is not None:
            taken = demanded if demanded <= have else have
            new["taken"] = taken
            if taken < demanded and "unselected" not in args:  # a selection is bounded by unselect
                trace.append(("bound", kind, "amount", have, demanded, taken, (fact,), line, path))
        effects[i] = (kind, new, line)


def _bounding_fact(bounds: dict, kind: str, args: dict):
    """The holding that bounds an effect of KIND in its area (BOUNDS: the rulebook's reading of
    vocabulary.BOUNDS, kind -> area or "*" -> fact), or None when none does."""
    by_area = bounds.get(kind)
    if not by_area:
        return None
    return by_area.get(args.get("area", "any"), by_area.get("*"))


def unselect(s, effects: list, trace: list, bounds: dict, path: str) -> None:
    """Select, then unselect: an effect carrying `unselected` (the prevention declared for it) first
    selects `selected` (its amount before prevention, never more than the bounding holding when the
    state gives it), then unselects up to that many; the rest are taken. `selected`, `unselected` and
    `taken` replace the plain bound of such an effect."""
    for i, effect in enumerate(effects):
        kind, args, line = effect
        if "unselected" not in args:
            continue
        wanted, prevented = args["selected"], args["unselected"]
        if isinstance(wanted, Unknown) or isinstance(prevented, Unknown):
            effects[i] = (kind, {k: v for k, v in args.items() if k not in ("selected", "unselected")}, line)
            continue
        fact = _bounding_fact(bounds, kind, args)
        have = s.holding(fact) if fact is not None else None
        selected = max(wanted, 0) if have is None else max(min(wanted, have), 0)
        unselected = min(max(prevented, 0), selected)
        new = {k: v for k, v in args.items() if k not in ("selected", "unselected", "taken")}
        new["select"] = {"selected": selected, "unselected": unselected}
        new["taken"] = selected - unselected
        if have is not None and wanted > have:
            trace.append(("bound", kind, "amount", have, wanted, selected, (fact,), line, path))
        effects[i] = (kind, new, line)


def reduce_until_supported(s, effects: list, kinds: dict) -> None:
    """Reduce until supported: with the cities, tokens and reduced_city_tokens the state gives, the
    support check at the changed rate (or with tokens withheld) reduces one city at a time, the
    tokens it leaves counting at once, until the rest are supported; adds `support` = {rate,
    withheld, reduced, cities_left} to each such effect. Withheld tokens are never more than the
    tokens on the board; the tokens a reduced city leaves always count. Without
    reduced_city_tokens the procedure still runs where its result does not depend on it (every
    city supported, or reduced alike whether a city leaves none or enough for the rest); a fact
    the result depends on is recorded missing, so the answer says it is incomplete."""
    for i, effect in enumerate(effects):
        kind, args, line = effect
        what = kinds.get(kind)
        amount = args.get("amount")
        if what is None or amount is None or isinstance(amount, Unknown):
            continue
        cities, tokens = s.fact("cities"), s.fact("tokens")
        if isinstance(cities, Unknown) or isinstance(tokens, Unknown):
            continue
        rate = _city_support(s) + amount if what == "rate" else _city_support(s)
        withheld = min(amount, tokens) if what == "withheld" else 0
        left = _cities_left(s, cities, tokens - withheld, rate)
        if left is None:
            continue
        effects[i] = (kind, {**args, "support": {"rate": rate, "withheld": withheld, "reduced": cities - left,
                                                 "cities_left": left}}, line)


def _cities_left(s, cities: int, available: int, rate: int):
    """The cities the support check leaves; without reduced_city_tokens, the same count whether a
    reduced city leaves no token or enough to support every other city, else None (the fact
    recorded missing)."""
    leave = s.given("reduced_city_tokens")
    if leave is not None:
        return cities_supported(cities, available, rate, leave)
    fewest = cities_supported(cities, available, rate, 0)
    if fewest == cities_supported(cities, available, rate, max(rate, 0) * cities):
        return fewest
    s.fact("reduced_city_tokens")  # recorded as missing: the count depends on it
    return None


def _city_support(s):
    """The tokens a city needs: the `city_support` constant changed by the held advances'
    `city_support` abilities."""
    module = s.module
    base = module.CONSTS.get("city_support", 2)
    for name in sorted(s.held):
        if name in module.ADVANCES:
            base = base + sum(a.get("delta", 0) for a in ability(module, name, "city_support"))
    return base


def least_over(s, effects: list, kinds: tuple, city=None) -> None:
    """A loss of unit points met exactly, or exceeded by as little as possible (1981 22.2.12.2,
    Expansion 29.64), from the cities and tokens the state gives: adds `loss` = {cities, tokens,
    over} to each such effect. Among equally small excesses the fewest cities go (our reading:
    a player keeps his cities where he can)."""
    cities, tokens = s.given("cities"), s.given("tokens")
    if cities is None or tokens is None:
        return
    value = s.module.UNIT_POINTS["city"] if city is None else city  # a calamity's own city value
    for i, effect in enumerate(effects):
        kind, args, line = effect
        if kind not in kinds or args.get("area", "any") != "any":
            continue
        need = args.get("taken", args.get("amount"))
        if need is None or isinstance(need, Unknown) or need <= 0:
            continue
        effects[i] = (kind, {**args, "loss": least_loss(need, cities, tokens, value)}, line)


def discard_by_value(s, effects: list, kinds: tuple) -> None:
    """Commodity cards worth at least the amount in face value, from the hand the state gives: the
    selection with the least excess, then the fewest cards (the victim's best choice; any other
    meeting the amount is legal), or the whole hand when it is worth less. Adds `discard` =
    {cards: {name: n}, face_value, over} to each such effect."""
    hand = s.given("commodities")
    if hand is None:
        return
    faces = s.module.COMMODITIES
    cards = []
    for name in sorted(hand):
        cards.extend([name for _ in range(hand[name])])
    for i, effect in enumerate(effects):
        kind, args, line = effect
        need = args.get("taken", args.get("amount"))
        if kind not in kinds or need is None or isinstance(need, Unknown):
            continue
        chosen, value = cheapest_discard(cards, faces, need)
        effects[i] = (kind, {**args, "discard": {"cards": chosen, "face_value": value,
                                                 "over": max(0, value - need)}}, line)
