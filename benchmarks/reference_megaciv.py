"""Hand-written Python versions of three Mega Civilization calamities, as a careful programmer
would write them without civdsl: the yardstick for the generated functions' speed.

They build the same answer object the generated code does (runtime.Resolution: the effects with
the bound of what the player holds, the secondary assignment, the secondary victim's assigned
amount, and a trace naming each card and rulebook line that changed a number), and
benchmarks/bench_core.py asserts the two equal before timing them, so the comparison is fair.
The rulebook lines are written here as such a programmer would cite them, counted from the line
that declares each calamity (so that an edit elsewhere in the rulebook moves them all); the
assertion fails, naming the calamity, if the calamity's own text changes.
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

    at = {name: module.CALAMITIES[name]["line"] for name in ("Famine", "Epidemic", "Civil Disorder")}
    f, e, c = at["Famine"], at["Epidemic"], at["Civil Disorder"]
    f4, f5, f6, f7, f8 = (f + k for k in (4, 5, 6, 7, 8))
    e4, e5, e7, e8, e9, e10, e11 = (e + k for k in (4, 5, 7, 8, 9, 10, 11))
    more_kept = (("Music", c + 5), ("Drama and Poetry", c + 6), ("Law", c + 7), ("Democracy", c + 8))
    fewer_kept = (("Advanced Military", c + 9), ("Naval Warfare", c + 10))
    c4 = c + 4

    def famine(s, role: str) -> Resolution:
        held, trace = s.held_set, []
        if role == "primary":
            damage = 10
            if "Agriculture" in held:
                damage = _changed(trace, "add", "damage", "Agriculture", f6, damage, 5)
        else:
            damage = 5 if s.assigned is None else assigned(s, 5, "damage")
        if "Pottery" in held:
            damage = _changed(trace, "prevent", "damage", "Pottery", f7, damage, 5)
        if "Calendar" in held:
            damage = _changed(trace, "prevent", "damage", "Calendar", f8, damage, 5)
        if role == "primary":
            effects = _damage(s, damage, f4, trace)
            return Resolution((module, "Famine", role, s, effects,
                               (3, None, [("damage", {"amount": 5, "area": "any"})], f5), trace, (), False, None, None))
        return Resolution((module, "Famine", role, s, _damage(s, damage, f5, trace), None, trace, (), False, None,
                           None))

    def epidemic(s, role: str) -> Resolution:
        held, trace = s.held_set, []
        primary = role == "primary"
        damage = 15 if primary else (10 if s.assigned is None else assigned(s, 10, "damage"))
        if "Medicine" in held:
            damage = _changed(trace, "prevent", "damage", "Medicine", e7, damage, 5)
        if primary:
            if "Enlightenment" in held:
                damage = _changed(trace, "prevent", "damage", "Enlightenment", e8, damage, 5)
            if "Roadbuilding" in held:
                damage = _changed(trace, "add", "damage", "Roadbuilding", e9, damage, 5)
            if "Trade Empire" in held:
                damage = _changed(trace, "add", "damage", "Trade Empire", e10, damage, 5)
            effects = _damage(s, damage, e4, trace)
            return Resolution((module, "Epidemic", role, s, effects,
                               (2, None, [("damage", {"amount": 10, "area": "any"})], e5), trace, (), False, None,
                               None))
        if "Anatomy" in held:
            damage = _changed(trace, "prevent", "damage", "Anatomy", e11, damage, 5)
        return Resolution((module, "Epidemic", role, s, _damage(s, damage, e5, trace), None, trace, (), False, None,
                           None))

    def civil_disorder(s, role: str) -> Resolution:
        if role != "primary":
            return Resolution((module, "Civil Disorder", role, s, [], None, (), (), False, None, None))
        held, trace, kept = s.held_set, [], 3
        for card, line in more_kept:
            if card in held:
                kept = _changed(trace, "add", "reduce_all_but_cities", card, line, kept, 1)
        for card, line in fewer_kept:
            if card in held:
                kept = _changed(trace, "prevent", "reduce_all_but_cities", card, line, kept, 1)
        return Resolution((module, "Civil Disorder", role, s,
                           [("reduce_all_but_cities", {"amount": kept if kept > 0 else 0}, c4)], None, trace, (),
                           False, None, None))

    return {"Famine": famine, "Epidemic": epidemic, "Civil Disorder": civil_disorder}
