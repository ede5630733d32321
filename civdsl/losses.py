"""What a calamity's victim loses, once the amounts are known: an amount floored at zero (traced),
an amount for a victim who may be immune, the cities a support check leaves, the cities and
tokens that meet a loss of unit points with the least excess, and the commodity cards that meet
a discard by value with the least excess.

Plain values in, plain values out (numbers, lists, dicts, the trace list the caller appends to),
so the runtime's calamity procedures (runtime.py: bound, unselect, reduce until supported, least
over, discard by value) and the page's run the same code: the page runs it translated
(companion/py2es.py), so it keeps to the engine subset (docs/engine-route.md).
"""

from __future__ import annotations

from .errors import StateError
from .unknown import Unknown, unknown_of


def floor_step(trace: list, kind: str, param: str, old, line: int, path: str):
    """An amount below zero becomes zero here (`amounts { floor zero }`, or the `floor` step of
    its `order`), traced; an absent or unknown amount stays as it is."""
    if old is None or isinstance(old, Unknown) or old >= 0:
        return old
    trace.append(("floor", kind, param, 0, old, 0, (), line, path))
    return 0


def change(trace: list, op: str, kind: str, param: str, value, old, by: tuple, line: int, path: str):
    """A modifier operation whose condition held: the parameter's new value, traced (`add`,
    `prevent` takes away, `cap` keeps the smaller, unknown if either is; `set`).

    One call in the generated module instead of a trace tuple and an assignment per operation:
    the module is shorter, and compile() (a large part of building a rulebook) has less to do."""
    if op == "add":
        new = old + value
    elif op == "prevent":
        new = old - value
    elif op != "cap":
        new = value
    elif isinstance(old, Unknown) or isinstance(value, Unknown):
        new = unknown_of(old, value)
    else:
        new = value if value < old else old
    trace.append((op, kind, param, value, old, new, by, line, path))
    return new


def assigned(s, most, kind: str):
    """The amount assigned to a secondary victim (`--assigned`): at most the per-player amount
    MOST the rule allows."""
    if not isinstance(most, Unknown) and s.assigned > most:
        raise StateError(f"--assigned {s.assigned}: a secondary victim of this calamity suffers at most {most} "
                         f"({' '.join(kind.split('_'))})")
    return s.assigned


def unless_immune(immune, value):
    """An effect's amount for a victim who may be immune (an unknown immunity: an unknown amount)."""
    if value is None or immune is False:
        return value
    if isinstance(immune, Unknown):
        return unknown_of(immune, value)
    return 0 if immune else value


def cities_supported(cities, available, rate, leave):
    """The cities left once reduced one at a time, the tokens each leaves counting at once, until
    the AVAILABLE tokens support the rest at RATE."""
    left = cities
    while left > 0 and available < rate * left:
        left -= 1
        available = available + leave
    return left


def least_loss(need, cities, tokens, value) -> dict:
    """The cities (each worth VALUE) and tokens that meet NEED with the least excess, then the
    fewest cities; everything when the player has less."""
    best = None
    for k in range(cities + 1):
        t = max(need - k * value, 0)
        key = (k * value + t - need, k)
        if t <= tokens and (best is None or key < best[0]):
            best = (key, k, t)
    if best is None:  # more than he has: everything goes (what the bound takes)
        return {"cities": cities, "tokens": tokens, "over": 0}
    return {"cities": best[1], "tokens": best[2], "over": best[0][0]}


def cheapest_discard(cards: list, faces: dict, need) -> tuple:
    """({card: n}, face value) of the cards worth at least `need` with the least excess, then the
    fewest cards; the whole hand when it is worth less."""
    best = fewest_cards_by_value(cards, faces)
    enough = [v for v in best if v >= need]
    if enough:
        value = min(enough, key=lambda v: (v, len(best[v])))
        picked = best[value]
    else:
        value = sum(faces[c]["value"] for c in cards)
        picked = range(len(cards))
    chosen: dict = {}
    for index in picked:
        chosen[cards[index]] = chosen.get(cards[index], 0) + 1
    return chosen, value


def fewest_cards_by_value(cards: list, faces: dict) -> dict:
    """Face value -> the fewest cards (their indices in CARDS) worth exactly that much, for every
    value up to the whole hand's worth."""
    best: dict = {0: ()}
    for index, name in enumerate(cards):
        face = faces[name]["value"]
        for v, picked in list(best.items()):
            w = v + face
            if w not in best or len(best[w]) > len(picked) + 1:
                best[w] = picked + (index,)
    return best
