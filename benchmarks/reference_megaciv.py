"""Hand-written Python versions of three Mega Civilization calamities, as a careful programmer
would write them without civdsl: the yardstick for the generated functions' speed.

They build the same answer object the generated code does (runtime.Resolution: the effects with
the bound of what the player holds, the secondary assignment, the secondary victim's assigned
amount, and a trace naming each card and rulebook line that changed a number), and
benchmarks/bench_core.py asserts the two equal before timing them, so the comparison is fair.
The rulebook lines such a programmer would cite are looked up once in the rulebook's text (so
that an edit elsewhere in the rulebook moves them all); the assertion fails, naming the
calamity, if the calamity's own rules change.
"""

from civdsl.runtime import Resolution, assigned, bound_effects

PATH = "rulebooks/megaciv.civ"
BOUNDS = {"damage": {"*": "unit_points"}}  # the holding that bounds damage


def _changed(trace: list, op: str, kind: str, by: str, line: int, old: int, step: int) -> int:
    new = old + step if op == "add" else old - step
    trace.append((op, kind, "amount", step, old, new, (by,), line, PATH))
    return new


def _floored(trace: list, kind: str, amount: int, line: int) -> int:
    """An amount the modifiers took below zero is zero (the edition's `floor zero`), traced at the
    calamity's line."""
    if amount < 0:
        trace.append(("floor", kind, "amount", 0, amount, 0, (), line, PATH))
        return 0
    return amount


def _damage(s, amount: int, line: int, trace: list, calamity_line: int) -> list:
    """The damage effect, floored at zero and bounded by what the player holds (chapter 8) with the
    runtime's own helper, which the answer object's `bound` and `taken` follow."""
    effects = [("damage", {"amount": _floored(trace, "damage", amount, calamity_line), "area": "any"}, line)]
    bound_effects(s, effects, trace, BOUNDS, PATH)
    return effects


def _lines(module, calamity: str, *marks: str) -> list[int]:
    """The rulebook lines a programmer would cite for one calamity, looked up once in its block of
    the rulebook's text: the first line from the calamity's own on that holds each mark (an
    effect's opening words, or an advance in `holds("...")`)."""
    from pathlib import Path

    first = module.CALAMITIES[calamity]["line"]
    text = Path(module.SOURCE_PATH).read_text(encoding="utf-8").splitlines()
    block = text[first - 1:]
    end = next(i for i, line in enumerate(block) if line.startswith("}"))
    found = []
    for mark in marks:
        needle = mark if mark.endswith("{") or mark == "secondary" else f'holds("{mark}")'
        found.append(first + next(i for i, line in enumerate(block[:end]) if needle in line))
    return found


def make_reference(module) -> dict:
    """Calamity name -> hand-written function (state, role) -> Resolution, for the compiled
    Mega Civilization `module` (the answer object names it)."""

    f, e, c = (module.CALAMITIES[name]["line"] for name in ("Famine", "Epidemic", "Civil Disorder"))
    f4, f5, f6, f7, f8 = _lines(module, "Famine", "primary {", "secondary", "Agriculture", "Pottery", "Calendar")
    e4, e5, e7, e8, e9, e10, e11 = _lines(module, "Epidemic", "primary {", "secondary", "Medicine", "Enlightenment",
                                          "Roadbuilding", "Trade Empire", "Anatomy")
    c4, *kept_by = _lines(module, "Civil Disorder", "primary {", "Music", "Drama and Poetry", "Law", "Democracy",
                          "Advanced Military", "Naval Warfare")
    more_kept = tuple(zip(("Music", "Drama and Poetry", "Law", "Democracy"), kept_by[:4]))
    fewer_kept = tuple(zip(("Advanced Military", "Naval Warfare"), kept_by[4:]))

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
            effects = _damage(s, damage, f4, trace, f)
            return Resolution((module, "Famine", role, s, effects,
                               (3, None, [("damage", {"amount": 5, "area": "any"})], f5), trace, (), False, None, None))
        return Resolution((module, "Famine", role, s, _damage(s, damage, f5, trace, f), None, trace, (), False, None,
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
            effects = _damage(s, damage, e4, trace, e)
            return Resolution((module, "Epidemic", role, s, effects,
                               (2, None, [("damage", {"amount": 10, "area": "any"})], e5), trace, (), False, None,
                               None))
        if "Anatomy" in held:
            damage = _changed(trace, "prevent", "damage", "Anatomy", e11, damage, 5)
        return Resolution((module, "Epidemic", role, s, _damage(s, damage, e5, trace, e), None, trace, (), False, None,
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
                           [("reduce_all_but_cities", {"amount": _floored(trace, "reduce_all_but_cities", kept, c)},
                             c4)], None, trace, (),
                           False, None, None))

    return {"Famine": famine, "Epidemic": epidemic, "Civil Disorder": civil_disorder}
