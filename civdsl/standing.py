"""A player's standing: the epoch requirements generated code states, the epochs reached on the
A.S.T. track, where the player's marker is and where it moves, the A.S.T. points and the score.

Every rule comes from the compiled module (`AST`: tracks, rows, epochs and their requirements,
backward rules; the scoring table); the player state is the runtime's `PlayerState`, read through
its methods. It imports only `unknown`, `errors` and the price engine's ability lookup, so the
runtime's player state can derive facts from it (`ast_points`, whether the marker may be in the
last epoch) and re-export the requirement constructors generated code calls (`requirement`,
`requirement_bool`, `requirement_any`). The page runs it translated (companion/py2es.py), so it
keeps to the engine subset (docs/engine-route.md).
"""

from __future__ import annotations

from .errors import StateError
from .pricing import abilities_of
from .unknown import Unknown, number, sum_if_known, unknown_of


def _compared(op: str, left, right):
    """LEFT OP RIGHT, one of the comparisons a requirement states (Unknown where either is)."""
    if op == "==":
        return left == right
    if op == "!=":
        return left != right
    if op == "<":
        return left < right
    if op == "<=":
        return left <= right
    return left > right if op == ">" else left >= right


def _met(value):
    """True, False, or None when the requirement depends on a missing fact."""
    return None if isinstance(value, Unknown) else bool(value)


def requirement(text: str, left, op: str, right, line: int, each_step: bool = False) -> dict:
    out = {"requirement": text, "met": _met(_compared(op, left, right)), "value": number(left),
           "needs": f"{op} {number(right)}", "line": line, "each_step": each_step}
    needs = unknown_of(left, right).facts
    if needs:
        out["depends_on"] = list(needs)
    return out


def requirement_bool(text: str, value, line: int, each_step: bool = False) -> dict:
    out = {"requirement": text, "met": _met(value), "value": _met(value), "needs": "true", "line": line,
           "each_step": each_step}
    if isinstance(value, Unknown):
        out["depends_on"] = list(value.facts)
    return out


def _met_by(decisive: bool, values) -> bool | None:
    """Three-valued `all` (DECISIVE False) or `any` (True) of requirements met (True, False or
    None when unknown): DECISIVE if any is, else None if any is unknown, else not DECISIVE."""
    values = list(values)
    if decisive in values:  # values are True, False or None, so `in` is `is`
        return decisive
    return None if None in values else not decisive


def all_met(values) -> bool | None:
    return _met_by(False, values)


def any_met(values) -> bool | None:
    return _met_by(True, values)


def requirement_any(text: str, alternatives: list, line: int, each_step: bool = False) -> dict:
    """A requirement met by any one of its alternatives (each a list of parts that must all hold);
    every part keeps the player's own count, so a met "or" still shows what was counted."""
    met = any_met(all_met(p["met"] for p in alt) for alt in alternatives)
    return {"requirement": text, "met": met, "value": None, "needs": "any", "line": line, "each_step": each_step,
            "alternatives": alternatives}


def epochs(module, track: str, state: PlayerState) -> dict:
    """Each epoch's requirements; `reached` is the last epoch surely reached. An epoch whose
    requirements depend on missing facts is neither met nor failed (`met` is None).
    `moves_backward` is three-valued: a backward rule met moves the marker back only outside the
    track's exempt epochs, so while the marker's epoch may be exempt the answer is None and names
    the fact that would tell."""
    t = module.AST[track]
    counted_state, counted = ast_counted(module, state)
    out = []
    for name, fn in t["epochs"]:
        reqs = fn(counted_state)
        out.append({"epoch": name, "met": all_met(r["met"] for r in reqs), "requirements": reqs})
    reached = None
    for e in out:  # the last of the epochs met one after the other from the first
        if e["met"] is not True:
            break
        reached = e["epoch"]
    backward = [b(state) for b in t["backward"]]
    position = state.fact("ast_position") if state.gives("ast_position") else NOT_GIVEN_POSITION
    result = {"track": track, "name": t["name"], "epochs": out, "reached": reached,
              "moves_backward": _goes_back(module, track, state, position, backward), "backward_rules": backward,
              "counted": counted}
    if any(state.gives(name) for name in _MARKER_FACTS):
        result["marker"] = marker(module, track, state, out, backward, result["moves_backward"])
    result["missing_facts"] = list(state.missing)
    result["complete"] = state.complete
    return result


def ast_counted(module, state: PlayerState) -> tuple[PlayerState, list[dict]]:
    """The state the epoch requirements read, and how it was counted: each fact of
    AST_COUNTED_FACTS plus the `delta` of every held advance with the fact's ability kind (a
    backward rule keeps reading STATE: what is on the board). A fact not given stays missing."""
    counted, shown = state, []
    for fact, kind in getattr(module, "AST_COUNTED_FACTS", {}).items():
        adds = [{"advance": name, "delta": args["delta"]} for name, args in abilities_of(module, state.held, kind)]
        if not adds:
            continue
        given = state.fact(fact)
        value = given + sum(a["delta"] for a in adds)
        shown.append({"fact": fact, "given": number(given), "value": number(value), "adds": adds})
        if not isinstance(value, Unknown):
            counted = counted.with_fact(fact, value)
    return counted, shown


# the facts that place the marker on a track: with any of them the answer is about the player's marker
_MARKER_FACTS = ("ast_position", "civilization", "ast_epoch")
NOT_GIVEN_POSITION = Unknown(("ast_position",))


# --- the player's marker: position -> epoch on the player's own row ---------------------------

class AstRowUnknown(Exception):
    """The epoch of a position cannot be told: no row for the civilization, or rows disagree."""


def ast_rows(module, track: str, civilization: str | None) -> list[dict]:
    """The rows a marker may be on: the civilization's own, or without one every declared row.
    Raises AstRowUnknown when there is none."""
    t = module.AST[track]
    civs = getattr(module, "CIVILIZATIONS", {})
    if civilization is not None:
        row = civs.get(civilization, {}).get("rows", {}).get(track)
        if row is None:
            raise AstRowUnknown(f"the rulebook gives no row on {t['name']} for {civilization}")
        return [row]
    rows = [c["rows"][track] for c in civs.values() if track in c["rows"]]
    if not rows:
        raise AstRowUnknown(f"the rulebook gives no civilization's row on {t['name']}")
    return rows


def epoch_index(row: dict, position: int) -> int:
    """The epoch (0 = the first) of a space; the start arrow (space 0) is in the first epoch."""
    index = 0
    for i, start in enumerate(row["starts"]):
        if position >= start:
            index = i + 1
    return index


def epochs_possible(module, track: str, state: PlayerState, position) -> tuple[set[int], str | None]:
    """The epochs (indexes) the marker may be in, and the fact that would tell which when more than
    one: the state's `ast_epoch`; else the start arrow's first epoch; else the epochs of the space on
    every row it may be on (the civilization's, else every declared row); else, with no row, what
    the track itself allows (every epoch holds at least one space, so the k-th epoch starts no
    earlier than space k and leaves a space to each later epoch before the finish)."""
    names = [name for name, _ in module.AST[track]["epochs"]]
    given = state.given("ast_epoch")
    if given is not None:
        if given not in names:
            shown = given if len(given) <= 80 else given[:77] + "..."  # a hostile state may hold megabytes
            raise StateError(f"ast_epoch: `{shown}` is no epoch of {module.AST[track]['name']}; it has: "
                             + ", ".join(names))
        return {names.index(given)}, None
    if isinstance(position, Unknown):
        return set(range(len(names))), "ast_position"
    if position == 0:
        return {0}, None
    try:
        possible = {epoch_index(r, position) for r in ast_rows(module, track, state.given("civilization"))}
        tell = "civilization"
    except AstRowUnknown:
        finish = module.AST[track]["spaces"]
        last = len(names) - 1
        possible = {i for i in range(len(names)) if i <= position and (finish is None or last - i <= finish - position)}
        tell = "ast_epoch"
    return possible, (tell if len(possible) > 1 else None)


def _goes_back(module, track: str, state: PlayerState, position, backward: list) -> bool | None:
    """Whether the marker moves back a space: a backward rule met, off the start arrow and outside
    the exempt epochs. None while either depends on a fact not given, that fact recorded missing."""
    back = any_met(b["met"] for b in backward)
    if back is False or (not isinstance(position, Unknown) and position == 0):
        return False
    exempt_names = module.AST[track]["backward_except"]
    possible, tell = epochs_possible(module, track, state, position)
    names = [name for name, _ in module.AST[track]["epochs"]]
    exempt = {names.index(n) for n in exempt_names if n in names}
    if possible.issubset(exempt):
        return False
    if back is None:
        return None
    if not possible.isdisjoint(exempt):
        state.fact(tell)  # recorded as missing: it would tell whether the marker's epoch is exempt
        return None
    return True


def _agreed(values: set, what: str) -> int:
    if len(values) > 1:
        raise AstRowUnknown(f"{what} differs by civilization: give `civilization`")
    return min(values)  # the only one


def marker(module, track: str, state: PlayerState, epochs_out: list, backward: list,
           goes_back: bool | None) -> dict:
    """Where the marker is, what moving one space forward needs, and whether it moves at all.
    Without a civilization the answer stands only where every row agrees; where the marker's epoch
    is not known the answer still says whether it moves back when that does not depend on it."""
    t = module.AST[track]
    names = [name for name, _ in t["epochs"]]
    civ = state.given("civilization")
    position = state.fact("ast_position")
    out = {"civilization": civ, "space": number(position), "epoch": None, "next_space": None, "next_epoch": None,
           "needs": [], "meets": None, "move": None, "finish": None, "row": None, "unknown": None}
    if isinstance(position, Unknown):
        out["unknown"] = "the state does not give ast_position"
        return out
    if t["spaces"] is not None and position > t["spaces"]:
        out["unknown"] = f"space {position} is beyond the finish of {t['name']} (space {t['spaces']})"
        return out
    try:
        rows, finish, here, there = _marker_place(module, track, civ, position)
    except AstRowUnknown as exc:
        out["unknown"] = str(exc)
        _unknown_move(out, state, module, track, position, goes_back, epochs_out, backward)
        return out
    if len(rows) == 1:
        out["row"] = {"spaces": rows[0]["spaces"], "starts": dict(zip(names[1:], rows[0]["starts"]))}
    out["finish"] = finish
    out["epoch"] = names[here]
    exempt = names[here] in t["backward_except"]
    out["backward_exempt"] = exempt
    if not exempt and position > 0:
        _moves_back(out, position, backward)
    if there is None:
        out["move"] = out["move"] or "finished"
    else:
        _step_forward(out, position, names[there], epochs_out[there]["requirements"], there == here)
    return out


def _unknown_move(out: dict, state: PlayerState, module, track: str, position: int, goes_back: bool | None,
                  epochs_out: list, backward: list) -> None:
    """The marker's move where its row's epochs are not known: back when that does not depend on
    them; forward or staying when every place the marker may be on agrees (a step inside an epoch
    needs its `each step` requirements, entering the next all of them); otherwise not known, naming
    the fact that would place the marker."""
    if goes_back is True:
        out["move"], out["back_to"] = "back", position - 1
        out["back_rules"] = [b for b in backward if b["met"]]
        return
    if goes_back is None:
        out["move"] = "unknown"
        return
    if position == module.AST[track]["spaces"]:
        out["move"] = "finished"
        return
    meets = {all_met(r["met"] for r in step_needs(epochs_out[there]["requirements"], here == there))
             for here, there in steps_possible(module, track, state, position)}
    if len(meets) == 1 and None not in meets:
        out["move"] = "forward" if meets == {True} else "stays"
        return
    _, tell = epochs_possible(module, track, state, position)
    if tell is not None:
        state.fact(tell)  # recorded as missing: where the marker goes depends on its epoch
    out["move"] = "unknown"


def steps_possible(module, track: str, state: PlayerState, position: int) -> set[tuple[int, int]]:
    """(the epoch of the marker's space, the epoch of the next) on every row the marker may be on;
    with no row, the next space is in the same epoch or the one after."""
    try:
        rows = ast_rows(module, track, state.given("civilization"))
        if not state.gives("ast_epoch"):
            return {(epoch_index(r, position), epoch_index(r, position + 1)) for r in rows}
    except AstRowUnknown:
        pass
    last = len(module.AST[track]["epochs"]) - 1
    here, _ = epochs_possible(module, track, state, position)
    return {(h, n) for h in here for n in (h, h + 1) if n <= last}


def step_needs(reqs: list, inside: bool) -> list:
    """What a step needs: entering an epoch all its requirements, a step inside one only those
    marked `each step`."""
    return [r for r in reqs if r.get("each_step")] if inside else reqs


def _step_forward(out: dict, position: int, epoch: str, reqs: list, inside: bool) -> None:
    """What moving the marker one space forward, into EPOCH, needs and whether it is met: entering
    an epoch needs all its requirements; a step INSIDE one only those marked `each step`."""
    out["next_space"], out["next_epoch"] = position + 1, epoch
    out["needs"] = step_needs(reqs, inside)
    out["meets"] = all_met(r["met"] for r in out["needs"])
    if out["move"] is None:
        out["move"] = {True: "forward", False: "stays", None: "unknown"}[out["meets"]]


def _marker_place(module, track: str, civ, position: int) -> tuple:
    """(the rows that may be the player's, the finish, the epoch of the space, the epoch of the
    next space or None at the finish), each agreed by every row; AstRowUnknown where they differ."""
    t = module.AST[track]
    rows = ast_rows(module, track, civ)
    finish = _agreed({r["spaces"] for r in rows}, f"the last space of {t['name']}")
    if position > finish:
        raise AstRowUnknown(f"space {position} is beyond the finish of {t['name']} (space {finish})")
    here = _agreed({epoch_index(r, position) for r in rows}, f"the epoch of space {position}")
    there = None
    if position < finish:
        there = _agreed({epoch_index(r, position + 1) for r in rows}, f"the epoch of space {position + 1}")
    return rows, finish, here, there


def _moves_back(out: dict, position: int, backward: list) -> None:
    """A backward rule met moves the marker back a space (unknown while one may be met)."""
    back = any_met(b["met"] for b in backward)
    if back is None:
        out["move"] = "unknown"
    elif back is True:
        out["move"] = "back"
        out["back_to"] = position - 1
        out["back_rules"] = [b for b in backward if b["met"]]


def ast_standing(module, state: PlayerState) -> dict | None:
    """The marker's space and the points it is worth, on the track the state names (or the only one,
    or any when every track values a step alike)."""
    chosen = _standing_track(module, state)
    if chosen is None:
        state.fact("ast_track")  # recorded as missing
        return None
    points = module.AST[chosen]["step_points"]
    if points is None:
        return None
    position = state.fact("ast_position")
    return {"track": chosen, "space": position, "points": position * points, "per_step": points}


def _standing_track(module, state: PlayerState) -> str | None:
    """The track the state names, else the only one, else any when every track values a step
    alike; None when it matters which and the state does not say."""
    tracks = list(module.AST)
    chosen = state.given("ast_track")
    if chosen is None and (len(tracks) == 1 or len({module.AST[t]["step_points"] for t in tracks}) == 1):
        return tracks[0]
    return chosen


def score(module, state: PlayerState) -> dict:
    points = [{"label": label, "points": number(fn(state)), "line": line} for label, fn, line in module.SCORE_POINTS]
    for p in points:
        if p["line"] in getattr(module, "SCORE_AST", ()):
            p["ast_space"] = number(state.fact("ast_position"))
    ties = [{"label": label, "value": number(fn(state)), "line": line} for label, fn, line in module.SCORE_TIEBREAKS]
    # a line that depends on a missing fact is null, and so is the total
    return {"complete": state.complete, "points": points, "total": sum_if_known(p["points"] for p in points),
            "tiebreaks": ties, "missing_facts": list(state.missing)}
