"""What a player state derives from its facts and the advances held (vocabulary.DERIVED_NAMES):
an advance's victory points under the question's rule options, the advances counted by cost,
points and group, and each derived name. runtime.PlayerState's methods call these; the page runs
them translated (companion/py2es.py), so this module keeps to the engine subset
(docs/engine-route.md).
"""

from __future__ import annotations

from .handvalue import hand_value
from .pricing import group_credits
from .standing import ast_standing


class UnknownDerived(Exception):
    """A name that is not one of vocabulary.DERIVED_NAMES (the compiler never writes one)."""


def advance_vp(s, name: str):
    """An advance's victory points under the question's rule options: the first `vp tiers
    when OPTION` reading switched on that gives it another figure, else the rulebook's."""
    adv = s.module.ADVANCES[name]
    for option, vp in adv.get("vp_when", ()):
        if s.option(option):
            return vp
    return adv["vp"]


def count_advances(s, cost_at_least=None, cost_below=None, vp=None, group=None) -> int:
    """The advances held whose printed cost, victory points and groups match every test given."""
    n = 0
    for name in s.held:
        adv = s.module.ADVANCES[name]
        cost = adv["cost"]
        if cost_at_least is not None and (cost is None or cost < cost_at_least):
            continue
        if cost_below is not None and (cost is None or cost >= cost_below):
            continue
        if vp is not None and advance_vp(s, name) != vp:
            continue
        if group is not None and group not in adv["groups"]:
            continue
        n += 1
    return n


def derived(s, name: str):
    """A name of vocabulary.DERIVED_NAMES, computed from the state."""
    if name in ("advances", "advance_vp", "advance_points", "groups_held"):
        return _of_held(s, name)
    if name in ("credit_max_group", "credit_total"):
        credits = group_credits(s.module, s.held, s.given("credits") or {})
        if name == "credit_total":
            return sum(credits.values())
        return max(credits.values()) if credits else 0
    if name in ("commodity_cards", "hand_value"):
        return _of_hand(s, name)
    if name == "ast_points":
        standing = ast_standing(s.module, s)
        return standing["points"] if standing else 0
    if name == "stock_points":  # cities and tokens in stock, in unit points (Expansion 30.4112)
        points = s.module.UNIT_POINTS
        return s.fact("cities_in_stock") * points["city"] + s.fact("tokens_in_stock") * points["token"]
    raise UnknownDerived(name)


def _of_held(s, name: str):
    """A derived name read from the advances held alone."""
    module = s.module
    if name == "advances":
        return len(s.held)
    if name == "advance_vp":
        return sum(advance_vp(s, n) or 0 for n in s.held)
    if name == "advance_points":
        return sum(module.ADVANCES[n]["cost"] or 0 for n in s.held)
    return len({g for n in s.held for g in module.ADVANCES[n]["groups"]})


def _of_hand(s, name: str):
    """A derived name read from the commodity cards held; recorded missing where the hand is:
    the answer then says it needs the hand."""
    if not s.gives("commodities"):
        return s.fact("commodities")
    if name == "commodity_cards":
        return sum(s.given("commodities").values())
    return hand_value(s.module, s.given("commodities"))["total"]
