"""The planner's answer (`civdsl plan`): the problem built from a state, searched, its plans
priced again and reported, with the notes of what it assumes and, with --explain, why each
advance not bought was left out."""

from __future__ import annotations

from ..errors import StateError
from ..pricing import supply_notes
from ..runtime import PlayerState
from ..startcredits import start_credits
from ..unknown import number
from .hand import hand_report
from .payment import CHOICE_WORK, PAYING, WORK
from .purchase import Choice, PurchaseProblem, with_want
from .search import ProgrammeStopped, by_price, priced_sets


# --- the planner's answer -------------------------------------------------------------------

def _notes(problem: PurchaseProblem) -> list[str]:
    """What the plan assumes or leaves unchecked: the limits, the payment's abilities held, the
    rulebook's supply and prerequisites."""
    notes = []
    if problem.card_limit is not None and len(problem.holds) > problem.card_limit:
        notes.append(f"the state holds {len(problem.holds)} advances, more than the card limit")
    return notes + _payment_notes(problem) + _rulebook_notes(problem.module, problem.facts)


def _payment_notes(problem: PurchaseProblem) -> list[str]:
    """How the advances held change the payment: token value, cards into treasury, a substitute."""
    notes = []
    if problem.treasury_value != 1:
        notes.append(f"treasury counts {problem.treasury_value} per token (an advance held); it may exceed "
                     f"the price by at most {problem.treasury_value - 1}")
    if problem.payments.rate:
        notes.append(f"commodity cards may first be turned into {problem.payments.rate} treasury per face-value "
                     f"point (card_treasury, an advance held); tokens not needed stay in the treasury; the "
                     f"stock of tokens is not checked")
    if problem.payments.substitute:
        notes.append("one card of at least the same face value may complete an incomplete set "
                     "(substitute_card, an advance held)")
    return notes


def _rulebook_notes(module, facts: dict) -> list[str]:
    """The rulebook's rules the plan does not check (the supply limits the state's FACTS cannot
    check) or reads strictly (prerequisites)."""
    notes = supply_notes(module, facts)
    if any(a["requires"] for a in module.ADVANCES.values()):
        notes.append("prerequisites must be held before this turn")
    return notes


def _missing_notes(module, held, facts: dict, hand: dict) -> list[str]:
    """What the plan could not count for want of a fact: start credits without the player count,
    the trade-block value of a set without the player's block."""
    notes = []
    start = start_credits(module, PlayerState(module, held, facts))
    if start is not None and start["per_group"] is None:
        notes.append("start credits are not counted: they depend on "
                     + (", ".join(f"`{m}`" for m in start["missing"]) or start["problem"] or "?"))
    if "block" in hand.get("missing_facts", ()):
        notes.append("sets are valued in their native trade block: the state does not give `block` "
                     "(or `civilization`)")
    return notes


def answer(module, rulebook_id: str, edition_name: str, held, facts: dict, obj, *, want=None, avoid=None,
           among=None, hand_limit: int | None = None, top: int = 1, explain: bool = False, horizon: int = 1,
           info: dict | None = None) -> dict:
    """The best purchases this turn (and, with horizon 2, an estimate of the next turn's) for the
    player who holds HELD with FACTS (a checked state's), maximising OBJ (objectives.Objective);
    INFO, when given, is the rulebook's purchase.advance_infos, kept between questions."""
    if horizon not in (1, 2):
        raise StateError("--horizon is 1 (this turn) or 2 (this turn and an estimate of the next)")
    problem = PurchaseProblem(module, held, facts, obj, want=want, avoid=avoid, among=among, hand_limit=hand_limit,
                              info=info)
    shown = max(int(top), 5 if explain else 1)
    choices = problem.search(shown)
    hand = hand_report(module, problem.cards, PlayerState(module, held, facts))
    report: dict = {
        "rulebook": rulebook_id,
        "edition": edition_name,
        "objective": {"name": obj.name, "label": obj.label},
        "holds": list(held),
        "budget": {
            "hand": hand,
            "treasury": problem.treasury,
            "treasury_value": problem.treasury_value,
            "total": number(problem.payments.budget(problem.limit_max)),
        },
        "hand_limit": {"limit": problem.limit0, "from": problem.limit_source,
                       "note": "after this turn's purchases; advances bought with a hand_limit ability change it"},
        "card_limit": problem.card_limit,
        "card_room": problem.max_new,
        "credit_policy": module.CREDIT_POLICY,
        "plans": [],
        "not_considered": problem.excluded,
        "candidates": len(problem.candidates),
        "sets_examined": problem.visited,
        "search": problem.method,
        # False where the search stopped at its work limit (only under the strict single-use credit
        # variant): the plans are the best found, and no purchase gives more than total_at_most
        "complete": problem.complete,
        "total_at_most": None,
        # why it is not: the walk stopped at its work limit; the number of sets priced by a
        # single-use placement stopped at its cap (their price payable, maybe not the least)
        "stopped": problem.stopped,
        "prices_capped": len(problem.capped_least),
        "notes": _notes(problem) + _missing_notes(module, held, facts, hand),
    }
    if not choices:
        need = problem.exact_price(problem.want)
        raise StateError(f"--want: {', '.join(problem.want)} cost {need} together after credits; "
                         f"the hand and treasury pay at most {report['budget']['total']}")
    report["plans"] = [problem.plan_dict(c, i + 1) for i, c in enumerate(choices[:max(1, int(top))])]
    report["total_at_most"] = number(choices[0].objective if problem.complete else problem.total_at_most)
    if explain:
        report["explain"] = _explain(problem, choices)
    if horizon == 2:
        from .horizon import two_turns  # here, not at the top: most plans look one turn ahead (start-up)

        report["horizon"] = two_turns(problem, one=choices[:1])
    _payment_limit(report, problem)
    return report


def _payment_limit(report: dict, problem: PurchaseProblem) -> None:
    """The payment table's work limit, and what it stopped (the plans' payments are worked out by
    now): stopped working out what the hand can pay, the plans are the best found with whole sets
    (`complete` false; no plan gives more than the objective bound of all the hand and treasury
    could pay, the hand limit aside); stopped choosing the payment, the ranking is proven but the
    payment named may keep less than the best one."""
    pay = problem.payments
    report["payment_work_limit"] = WORK
    report["payment_choice_limit"] = CHOICE_WORK
    report["payment_stopped"] = list(pay.stopped)
    if not pay.stopped:
        return
    report["complete"] = False
    if PAYING in pay.stopped:
        most = pay.most_payable()
        report["total_at_most"] = number(max(report["total_at_most"], problem.root_bound(most)))


# --- explaining -----------------------------------------------------------------------------

def _compare(best: Choice, other: Choice, label: str) -> str:
    """Why `best` ranks above `other`, naming the first criterion that separates them."""
    n = number
    if other.objective != best.objective:
        return f"{n(other.objective)} {label} against {n(best.objective)}"
    same = f"the same {n(best.objective)} {label}"
    if other.spent != best.spent:
        return f"{same}, but hands over {n(other.spent)} against {n(best.spent)}"
    same = same + f" for the same {n(best.spent)} handed over"
    if other.credit != best.credit:
        return f"{same}, but {n(other.credit)} credit points for later turns against {n(best.credit)}"
    if len(other.buys) != len(best.buys):
        return f"{same} and credit, but {len(other.buys)} advances against {len(best.buys)} (fewer come first)"
    return f"{same} and credit; the plan merely comes first in rulebook order"


def _explain(problem: PurchaseProblem, choices: list[Choice]) -> dict:
    """Why the plan beats the next best plans, and for every advance it leaves out, the best
    purchase that includes it (or why none fits)."""
    best = choices[0]
    label = problem.objective.label
    runners = [{"buy": list(c.buys), "objective": number(c.objective), "spent": number(c.spent),
                "credit": number(c.credit), "why_not": _compare(best, c, label)} for c in choices[1:]]
    left_out = [name for name in problem.candidates if name not in best.buys]
    # the searches to make: for advances in no listed plan, where the card limit leaves room
    room = problem.max_new is None or len(problem.want) < problem.max_new
    to_search = [n for n in left_out if room and not any(n in c.buys for c in choices)]
    entries = _settle_all(problem, best, to_search)
    to_search = [n for n in to_search if n not in entries]
    # the bound of every purchase with each; those it cannot prove out are searched first, so that
    # where the work limit stops the searches it falls on advances the bound still answers
    bounds = {n: problem.bound_with(n) for n in to_search}
    order = ([n for n in to_search if not bounds[n] < best.objective]
             + [n for n in to_search if bounds[n] < best.objective])
    problem.explain_pending = len(order)
    entries.update({n: _not_bought(problem, choices, n, bounds[n]) for n in order})
    others = [entries[n] if n in entries else _not_bought(problem, choices, n, None) for n in left_out]
    answer = {"runners_up": runners, "advances_not_bought": _near_then_far(problem, others)}
    answer.update(_explain_work(problem))
    return answer


def _explain_work(problem: PurchaseProblem) -> dict:
    """Whether the explanation is proven, and the work its searches did against their limits."""
    # the comparisons are proven only when the ranking is and no search here (the purchases with an
    # advance left out share the problem's prices) priced a set by a capped placement (single_use)
    return {"complete": (problem.complete and not problem.capped_least and not problem.explain_stopped
                         and not problem.explain_unsearched),
            "work_limit": problem.explain_cap, "sets_examined": problem.explain_sets,
            "programme_limit": None if problem.single_use else problem.explain_programmes,
            "programmes_run": problem.explain_runs,
            "programme_cell_limit": None if problem.single_use else problem.explain_cells,
            "programme_cells": problem.explain_cells_held,
            "point_limit": None if problem.single_use else problem.explain_points,
            "points": problem.explain_points_held,
            "not_worked_out": problem.explain_unsearched}


def _near_then_far(problem: PurchaseProblem, others: list[dict]) -> list[dict]:
    """The advances left out, near misses first (the best purchases with them, best first, by
    their ranking key, which then goes), then the unaffordable ones (most objective, cheapest,
    rulebook order)."""
    from fractions import Fraction

    near = sorted((e for e in others if "rank_key" in e), key=lambda e: e["rank_key"], reverse=True)
    far = sorted((e for e in others if "rank_key" not in e),
                 key=lambda e: (-Fraction(e["objective"]), e["price"], problem.order[e["advance"]]))
    for e in near:
        del e["rank_key"]
    return near + far


def _not_bought(problem: PurchaseProblem, choices: list[Choice], name: str, bound) -> dict:
    """An advance the plan leaves out: the best purchase that includes it and why the plan beats
    it (with its ranking key, for the order), or why no purchase with it fits; where the work
    limit left it unsearched, whether `bound` (of every purchase with it: None, none worked out)
    proves it out."""
    entry = {"advance": name, "objective": number(problem.objective.values[name]),
             "price": problem.base[name]}
    searched, got = _best_with(problem, choices, name)
    if not searched:
        limit = (f"the explanation's searches reached their work limit ({_grouped(problem.explain_cap)} sets of advances"
                 + ("" if problem.single_use else f" and {problem.explain_programmes} programmes over price"
                                                    f" of {_grouped(problem.explain_cells)} cells in all")
                 + (f"; the programmes over every advance at once stopped at {_grouped(problem.explain_points)} points"
                    if problem.explain_points_held > problem.explain_points else "") + ")")
        best = choices[0].objective
        if bound is not None and bound < best:  # the knapsack bound of every purchase with it proves it out
            entry["why_not"] = (f"no purchase with it gives more than {number(bound)} "
                                f"{problem.objective.label} against {number(best)} ({limit})")
        else:
            problem.explain_unsearched = problem.explain_unsearched + 1
            entry["why_not"] = f"not worked out: {limit}"
        return entry
    if got is None:
        entry["why_not"] = _unaffordable(problem, name)
        return entry
    entry["best_with_it"] = list(got.buys)
    entry["rank_key"] = got.key
    entry["why_not"] = (f"the best purchase with it ({', '.join(got.buys)}) gives "
                        + _compare(choices[0], got, problem.objective.label))
    return entry


def _settle_all(problem: PurchaseProblem, best: Choice, names: list) -> dict:
    """The entries of the advances of `names` that lose to the plan on the objective or on what is
    handed over, by the most objective and least handed over of a purchase with each, exact and
    found for all at once (best_with_each); the others tie with the plan there and are searched."""
    exact = best_with_each(problem, names) or {}
    plan_key = (best.objective, -best.spent)
    return {n: _settled(problem, best, n, exact[n]) for n in names
            if n in exact and (exact[n] is None or exact[n] < plan_key)}


def _settled(problem: PurchaseProblem, best: Choice, name: str, key) -> dict:
    """An advance left out that loses to the plan on the objective or on what is handed over:
    the most objective of a purchase with it and the least handed over for that, exact (`key`,
    as best_with_each gives it; None: no purchase with it fits)."""
    entry = {"advance": name, "objective": number(problem.objective.values[name]), "price": problem.base[name]}
    if key is None:
        entry["why_not"] = _unaffordable(problem, name)
        return entry
    n, label = number, problem.objective.label
    entry["best_objective"], entry["least_spent"], entry["rank_key"] = n(key[0]), n(-key[1]), key
    if key[0] != best.objective:
        entry["why_not"] = f"the best purchases with it give {n(key[0])} {label} against {n(best.objective)}"
    else:
        entry["why_not"] = (f"the best purchases with it give the same {n(key[0])} {label}, but hand over "
                            f"{n(-key[1])} against {n(best.spent)}")
    return entry


def _best_with(problem: PurchaseProblem, choices: list[Choice], name: str) -> tuple:
    """Whether --explain's work limit let it search, and the best purchase that includes `name`:
    the first of the ranked plans that does (every plan ranked above it is listed and leaves it
    out: no search needed then), else a search that wants it too where the card limit leaves
    room; None when no purchase with it fits."""
    for c in choices:
        if name in c.buys:
            return True, c
    if problem.max_new is not None and len(problem.want) >= problem.max_new:
        return True, None
    # a branch and bound within an even share of the sets left; where it stops short and prices add
    # up, the plan's own exact programme from what it reached, up to explain_programmes of them;
    # under single-use credits it stops with the best found
    share = (problem.explain_cap - problem.explain_sets) // max(1, problem.explain_pending)
    problem.explain_pending = problem.explain_pending - 1
    clone = with_want(problem, [name])
    floor = None
    if share > 0:
        clone.complete, clone.stopped = True, False
        got, floor = clone._branch_and_bound(1, min(share, clone.single_use_cap) if clone.single_use else share)
        if got is not None:
            problem.explain_sets = problem.explain_sets + clone.visited
            problem.explain_stopped = problem.explain_stopped + (1 if clone.stopped else 0)
            return True, (got[0] if got else None)
        problem.explain_sets = problem.explain_sets + share
    left = problem.explain_cells - problem.explain_cells_held
    if clone.single_use or problem.explain_runs >= problem.explain_programmes or left <= 0:
        return False, None
    problem.explain_runs = problem.explain_runs + 1
    try:
        found = clone.programme(1, floor, left)
    except ProgrammeStopped:
        problem.explain_cells_held = problem.explain_cells
        return False, None
    problem.explain_cells_held = problem.explain_cells_held + clone.stats["cells"]
    return True, (found[0] if found else None)


def _unaffordable(problem: PurchaseProblem, name: str) -> str:
    """Why no purchase that includes `name` fits."""
    budget = number(problem.budget_max)
    if problem.eff[name] > problem.budget_max:
        return f"costs {problem.base[name]} after credits; the budget is {budget}"
    return (f"costs {problem.base[name]} after credits; no purchase that includes it "
            f"(and every --want) fits the budget of {budget} and the card limit")


def _grouped(n: int) -> str:
    """A whole number not below 0 with a comma between groups of three digits (f"{n:,}")."""
    text = str(n)
    out = text[-3:]
    text = text[:-3]
    while text:
        out = text[-3:] + "," + out
        text = text[:-3]
    return out


# --- the best purchase with each advance, on the first two criteria ---------------------------
# One forward and one backward programme over the candidates in the machine's order (dearest
# first) per set T of same-turn advances bought: a cell is (machine state, hand-limit change,
# advances bought) and holds the points (price, objective) no other point of it beats (the least
# price of each objective reached). A purchase with advance i is a forward point before i, i
# itself, and a backward point after i from the machine state i leaves: prices add up along the
# machine's steps, so the best such purchase is found by joining the two lists, for every i at
# once. Only the objective and the least handed over are exact here (credit does not add up).

class _FrontStopped(Exception):
    """The forward and backward programmes passed `explain_points`."""


def _pareto(points: list) -> list:
    """The points no other beats, by price: each of more objective than every cheaper one."""
    out: list = []
    for p, o in sorted(points):
        if out and o <= out[-1][1]:
            continue
        if out and out[-1][0] == p:
            out[-1] = (p, o)
        else:
            out.append((p, o))
    return out


def _gather(cells: dict, key, points: list, work: list, limit: int) -> None:
    """`points` into `cells[key]`, counted against `limit`."""
    if points:
        work[0] = work[0] + len(points)
        if work[0] > limit:
            raise _FrontStopped("the explanation's limit of points")
        got = cells.get(key)
        if got is None:
            cells[key] = list(points)
        else:
            got.extend(points)


class _Fronts:
    """The forward layers and the backward cells (memoised by position and machine state) of
    one set T of same-turn advances bought."""

    def __init__(self, problem: PurchaseProblem, items: list, must, machine, work: list):
        self.items, self.must, self.machine, self.work = items, must, machine, work
        self.budget, self.limit = problem.budget_max, problem.explain_points
        self.step = 0 if problem.max_new is None else 1
        self.room = len(items) if problem.max_new is None else problem.max_new
        self.memo: dict = {}
        layer: dict = {(machine.start, 0, 0): [(0, 0)]}
        self.layers = [layer]
        for c in items:
            cells: dict = {}
            for (ms, hd, cnt), points in layer.items():
                if c.name not in must:
                    _gather(cells, (ms, hd, cnt), points, work, self.limit)
                if cnt + self.step <= self.room:
                    ms2, delta = machine.step(ms, c.name)
                    cut = self.budget + machine.most_off(ms2) - delta  # what the open abilities may still take off
                    _gather(cells, (ms2, hd + c.hand, cnt + self.step),
                            [(p + delta, o + c.objective) for p, o in points if p <= cut], work, self.limit)
            layer = {k: _pareto(v) for k, v in cells.items()}
            self.layers.append(layer)

    def after(self, i: int, ms) -> dict:
        """(hand-limit change, advances bought) -> the points of the advances from position i on,
        starting from machine state `ms`, the abilities still waiting landed at the end."""
        got = self.memo.get((i, ms))
        if got is not None:
            return got
        if i == len(self.items):
            got = {(0, 0): [(self.machine.finish(ms), 0)]}
        else:
            c, cells = self.items[i], {}
            if c.name not in self.must:
                for key, points in self.after(i + 1, ms).items():
                    _gather(cells, key, points, self.work, self.limit)
            ms2, delta = self.machine.step(ms, c.name)
            for (hd, cnt), points in self.after(i + 1, ms2).items():
                if cnt + self.step <= self.room:
                    _gather(cells, (hd + c.hand, cnt + self.step),
                            [(p + delta, o + c.objective) for p, o in points if p + delta <= self.budget],
                            self.work, self.limit)
            got = {k: _pareto(v) for k, v in cells.items()}
        self.memo[(i, ms)] = got
        return got

    def best_with(self, i: int, problem: PurchaseProblem):
        """The best (objective, -handed over) of the purchases with the advance at position i."""
        c, best = self.items[i], None
        for (ms, hd, cnt), points in self.layers[i].items():
            if cnt + self.step > self.room:
                continue
            ms2, delta = self.machine.step(ms, c.name)
            first = [(p + delta, o + c.objective) for p, o in points]
            for (hd2, cnt2), rest in self.after(i + 1, ms2).items():
                limit = problem.limit0 + hd + c.hand + hd2
                if cnt + self.step + cnt2 > self.room:
                    continue
                got = _join(first, rest, problem.payments.budget(limit))
                if got is not None:
                    paid = problem.payments.spent(got[1], limit)
                    if paid is not None and (best is None or (got[0], -paid) > best):
                        best = (got[0], -paid)
        return best


def _join(first: list, rest: list, cap):
    """The most objective of a point of each list within price `cap`, and the least price that
    reaches it (None: no pair fits). Both lists rise in price and objective together."""
    most, j = None, len(rest) - 1
    for p, o in first:
        while j >= 0 and p + rest[j][0] > cap:
            j = j - 1
        if j < 0:
            break
        if most is None or o + rest[j][1] > most:
            most = o + rest[j][1]
    if most is None:
        return None
    least, j = None, 0
    for k in range(len(first) - 1, -1, -1):
        p, o = first[k]
        while j < len(rest) and o + rest[j][1] < most:
            j = j + 1
        if j == len(rest):
            break
        if least is None or p + rest[j][0] < least:
            least = p + rest[j][0]
    return most, least


def best_with_each(problem: PurchaseProblem, names: list):
    """For each advance of `names`, the best (objective, -handed over) of the purchases that
    include it and every --want (None: none fits); None for all where prices do not add up or the
    programmes passed `explain_points` (the count `explain_points_held` says how far they went)."""
    if problem.single_use or not names:
        return None
    same = sorted(problem.same_turn, key=lambda n: problem.order[n])
    best: dict = {n: None for n in names}
    work = [0]
    try:
        for T, machine, priced_items in priced_sets(problem.search_candidates(), frozenset(problem.want),
                                                    problem.machine_for, same, problem.max_new):
            items = by_price(priced_items)
            fronts = _Fronts(problem, items, frozenset(problem.want) | frozenset(T), machine, work)
            for i, c in enumerate(items):
                if c.name in best:
                    got = fronts.best_with(i, problem)
                    if got is not None and (best[c.name] is None or got > best[c.name]):
                        best[c.name] = got
    except _FrontStopped:
        problem.explain_points_held = work[0]
        return None
    problem.explain_points_held = work[0]
    return best
