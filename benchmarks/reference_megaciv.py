"""Hand-written Python versions of three Mega Civilization calamities, as a careful programmer
would write them without civdsl: the yardstick for the generated functions' speed.

They compute the same answer the generated code does (final amounts, the secondary
assignment, and a trace naming each card that changed a number) so the comparison is fair.
"""


def _apply(amount, trace, kind, delta, card):
    trace.append({"kind": kind, "by": card, "before": amount, "after": amount + delta})
    return amount + delta


def famine(holds: frozenset, role: str) -> dict:
    trace = []
    damage = 10 if role == "primary" else 5
    if role == "primary" and "Agriculture" in holds:
        damage = _apply(damage, trace, "damage", 5, "Agriculture")
    if "Pottery" in holds:
        damage = _apply(damage, trace, "damage", -5, "Pottery")
    if "Calendar" in holds:
        damage = _apply(damage, trace, "damage", -5, "Calendar")
    out = {"effects": {"damage": max(0, damage)}, "trace": trace}
    if role == "primary":
        out["secondary"] = {"count": 3, "effects": {"damage": 5}}
    return out


def epidemic(holds: frozenset, role: str) -> dict:
    trace = []
    damage = 15 if role == "primary" else 10
    if "Medicine" in holds:
        damage = _apply(damage, trace, "damage", -5, "Medicine")
    if role == "primary":
        if "Enlightenment" in holds:
            damage = _apply(damage, trace, "damage", -5, "Enlightenment")
        if "Roadbuilding" in holds:
            damage = _apply(damage, trace, "damage", 5, "Roadbuilding")
        if "Trade Empire" in holds:
            damage = _apply(damage, trace, "damage", 5, "Trade Empire")
    elif "Anatomy" in holds:
        damage = _apply(damage, trace, "damage", -5, "Anatomy")
    out = {"effects": {"damage": max(0, damage)}, "trace": trace}
    if role == "primary":
        out["secondary"] = {"count": 2, "effects": {"damage": 10}}
    return out


def civil_disorder(holds: frozenset, role: str) -> dict:
    if role != "primary":
        return {"effects": {}, "trace": []}
    trace = []
    kept = 3
    for card in ("Music", "Drama and Poetry", "Law", "Democracy"):
        if card in holds:
            kept = _apply(kept, trace, "reduce_all_but_cities", 1, card)
    for card in ("Advanced Military", "Naval Warfare"):
        if card in holds:
            kept = _apply(kept, trace, "reduce_all_but_cities", -1, card)
    return {"effects": {"reduce_all_but_cities": max(0, kept)}, "trace": trace}


REFERENCE = {"Famine": famine, "Epidemic": epidemic, "Civil Disorder": civil_disorder}
