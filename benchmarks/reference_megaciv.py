"""Hand-written Python versions of three Mega Civilization calamities, as a careful programmer
would write them without civdsl: the yardstick for the generated functions' speed.

They build the same answer object the generated code does (runtime.Resolution: the effects with
the bound of what the player holds, the secondary assignment, the secondary victim's assigned
amount, and a trace naming each card and rulebook line that changed a number), and
benchmarks/bench_core.py asserts the two equal before timing them, so the comparison is fair.
The rulebook lines are written here as such a programmer would cite them; the assertion fails
(naming the calamity) if the rulebook moves them.
"""

from civdsl.runtime import Resolution, assigned, bound_effects

PATH = "rulebooks/megaciv.civ"
BOUNDS = {"damage": {"*": "unit_points"}}  # the holding that bounds damage


def _changed(trace: list, op: str, kind: str, by: str, line: int, old: int, step: int) -> int:
    new = old + step if op == "add" else old - step
    trace.append((op, kind, "amount", step, old, new, (by,), line, PATH))
    return new


def _damage(s, amount: int, line: int, trace: list) -> list:
    """The damage effect, bounded by what the player holds (chapter 8) with the runtime's own
    helper, which the answer object's `bound` and `taken` follow."""
    effects = [("damage", {"amount": amount if amount > 0 else 0, "area": "any"}, line)]
    bound_effects(s, effects, trace, BOUNDS, PATH)
    return effects


def make_reference(module) -> dict:
    """Calamity name -> hand-written function (state, role) -> Resolution, for the compiled
    Mega Civilization `module` (the answer object names it)."""

    def famine(s, role: str) -> Resolution:
        held, trace = s.held_set, []
        if role == "primary":
            damage = 10
            if "Agriculture" in held:
                damage = _changed(trace, "add", "damage", "Agriculture", 562, damage, 5)
        else:
            damage = 5 if s.assigned is None else assigned(s, 5, "damage")
        if "Pottery" in held:
            damage = _changed(trace, "prevent", "damage", "Pottery", 563, damage, 5)
        if "Calendar" in held:
            damage = _changed(trace, "prevent", "damage", "Calendar", 564, damage, 5)
        if role == "primary":
            effects = _damage(s, damage, 560, trace)
            return Resolution((module, "Famine", role, s, effects,
                               (3, None, [("damage", {"amount": 5, "area": "any"})], 561), trace, (), False, None, None))
        return Resolution((module, "Famine", role, s, _damage(s, damage, 561, trace), None, trace, (), False, None,
                           None))

    def epidemic(s, role: str) -> Resolution:
        held, trace = s.held_set, []
        primary = role == "primary"
        damage = 15 if primary else (10 if s.assigned is None else assigned(s, 10, "damage"))
        if "Medicine" in held:
            damage = _changed(trace, "prevent", "damage", "Medicine", 662, damage, 5)
        if primary:
            if "Enlightenment" in held:
                damage = _changed(trace, "prevent", "damage", "Enlightenment", 663, damage, 5)
            if "Roadbuilding" in held:
                damage = _changed(trace, "add", "damage", "Roadbuilding", 664, damage, 5)
            if "Trade Empire" in held:
                damage = _changed(trace, "add", "damage", "Trade Empire", 665, damage, 5)
            effects = _damage(s, damage, 659, trace)
            return Resolution((module, "Epidemic", role, s, effects,
                               (2, None, [("damage", {"amount": 10, "area": "any"})], 660), trace, (), False, None,
                               None))
        if "Anatomy" in held:
            damage = _changed(trace, "prevent", "damage", "Anatomy", 666, damage, 5)
        return Resolution((module, "Epidemic", role, s, _damage(s, damage, 660, trace), None, trace, (), False, None,
                           None))

    def civil_disorder(s, role: str) -> Resolution:
        if role != "primary":
            return Resolution((module, "Civil Disorder", role, s, [], None, (), (), False, None, None))
        held, trace, kept = s.held_set, [], 3
        for card, line in (("Music", 689), ("Drama and Poetry", 690), ("Law", 691), ("Democracy", 692)):
            if card in held:
                kept = _changed(trace, "add", "reduce_all_but_cities", card, line, kept, 1)
        for card, line in (("Advanced Military", 693), ("Naval Warfare", 694)):
            if card in held:
                kept = _changed(trace, "prevent", "reduce_all_but_cities", card, line, kept, 1)
        return Resolution((module, "Civil Disorder", role, s,
                           [("reduce_all_but_cities", {"amount": kept if kept > 0 else 0}, 688)], None, trace, (),
                           False, None, None))

    return {"Famine": famine, "Epidemic": epidemic, "Civil Disorder": civil_disorder}
