"""The checks of a state's facts against what the rulebook declares: the civilization, the A.S.T.
track and the marker's space on the player's row; the scenario, the trade block, spent start
credits and the cards a hand may hold. The page runs them translated (companion/py2es.py), so
this module keeps to the engine subset (docs/engine-route.md).
"""

from __future__ import annotations

from .errors import StateError
from .state import hint_text, short_text


def check_ast_facts(facts: dict, civilizations: dict, tracks: dict, source: str = "state") -> None:
    """`civilization` and `ast_track` must be the rulebook's names, and the marker must be on the
    player's row (the finish being its last space)."""
    civ, track = facts.get("civilization"), facts.get("ast_track")
    problems = _unknown_ast_names(civ, track, civilizations, tracks, source)
    position = facts.get("ast_position")
    if position is not None and not problems:
        problems.extend(_beyond_finish(position, civ, track, civilizations, tracks, source))
    if problems:
        raise StateError("\n".join(problems))


def _unknown_ast_names(civ, track, civilizations: dict, tracks: dict, source: str) -> list[str]:
    """The civilization and the A.S.T. track the state names, where the rulebook declares no such."""
    problems = []
    if civ is not None and civ not in civilizations:
        listed = "; the rulebook declares none" if not civilizations else hint_text(civ, list(civilizations))
        problems.append(f"{source}: `civilization` names unknown civilization `{short_text(civ)}`{listed}")
    if track is not None and track not in tracks:
        problems.append(f"{source}: `ast_track` names unknown A.S.T. track `{short_text(track)}`{hint_text(track, list(tracks))}")
    return problems


def _beyond_finish(position: int, civ, track, civilizations: dict, tracks: dict, source: str) -> list[str]:
    """The marker cannot stand past the finish of the player's row (or, without a civilization,
    of the track)."""
    rows = civilizations.get(civ, {}).get("rows", {}) if civ is not None else {}
    if rows:
        return _beyond_row(position, civ, track, rows, source)
    declared = [tracks[t]["spaces"] for t in ([track] if track else tracks) if tracks[t]["spaces"] is not None]
    if declared and position > max(declared):
        return [f"{source}: `ast_position` {position} is beyond the finish of the A.S.T. (space {max(declared)})"]
    return []


def _beyond_row(position: int, civ: str, track, rows: dict, source: str) -> list[str]:
    """Past the finish of the civilization's row on the track (without `ast_track`, of every row)."""
    ends = {t: row["spaces"] for t, row in rows.items() if (track is None or t == track) and row["spaces"]}
    if not ends or position <= max(ends.values()):
        return []
    t = max(ends, key=lambda name: ends[name])
    return [f"{source}: `ast_position` {position} is beyond the finish of {civ}'s row on `{t}` (space {ends[t]})"]


def check_purchase_facts(facts: dict, module, source: str = "state") -> None:
    """The scenario must be one the rulebook declares; spent start credits need single-use ones;
    no hand holds more cards of a commodity than the edition's deck has."""
    blocks = sorted({c["block"] for c in getattr(module, "CIVILIZATIONS", {}).values() if c["block"]})
    problems = (_undeclared(facts.get("scenario"), getattr(module, "SCENARIOS", ()), "scenario", "scenario",
                            "scenarios", source)
                + _undeclared(facts.get("block"), blocks, "block", "trade block", "blocks", source))
    sc = getattr(module, "START_CREDITS", None)
    if facts.get("start_credits_used") and not (sc and sc["once"]):
        problems.append(f"{source}: `start_credits_used` is given, but this rulebook's start credits are "
                        + ("kept all game (not single-use)" if sc else "not declared"))
    problems.extend(hand_limits(facts.get("commodities") or {}, module.COMMODITIES,
                                f"{source}: `commodities`"))
    if problems:
        raise StateError("\n".join(problems))


def _undeclared(value, declared, key: str, what: str, plural: str, source: str) -> list[str]:
    """A fact (KEY) naming something the rulebook does not declare: the closest name, else the
    declared ones, else that there are none."""
    if value is None or value in declared:
        return []
    listed = f"; {plural}: {', '.join(declared)}" if declared else "; the rulebook declares none"
    return [f"{source}: `{key}` names unknown {what} `{short_text(value)}`{hint_text(value, declared) or listed}"]


def hand_limits(cards: dict, commodities: dict, where: str) -> list[str]:
    """A hand cannot hold more cards of a commodity than the deck has (`count`; 0 means the
    rulebook gives no number, and then nothing is checked)."""
    out = []
    for name, n in cards.items():
        limit = (commodities.get(name) or {}).get("count")
        if limit and isinstance(n, int) and n > limit:
            out.append(f"{where}: {n} {name} cards, but the deck holds {limit}")
    return out
