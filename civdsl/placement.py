"""The strict reading's credit placement (credit variant `single_use`): each held card's credit,
and each group's free credit tokens, go to at most one advance of the purchase, placed where they
save most. Placing them so is strongly NP-hard (bin covering), so the search is bounded by the
limits its caller declares (pricing.SINGLE_USE_PLACEMENT_CAP, SINGLE_USE_PLACEMENT_WORK) and then
ends in a real placement with a proven bound on the best.

Plain data in and out, no rulebook: an engine module of the page too (py2es.ENGINE_MODULES,
prefix `pl_`), so the placement is written once. The advances priced are given in rulebook order
by name, printed cost and groups; a source is (name, its group credits {group: n}, its specific
credits {advance: n}).
"""

from __future__ import annotations

import functools


def place(names: list, costs: list, groups: list, sources: list, per_card: bool, cap: int, work_limit: int,
          work: list | None = None) -> tuple:
    """The placement of credits with the largest total saving, each source's credit going to at
    most one of the advances NAMES (printed COSTS, GROUPS), as ([(source, amount), ...] per advance,
    in the sources' order; the gap; what stopped it). The gap is how much more the best placement
    could save than the one found (None: the search never dropped a state, so it is the full
    search's); what stopped it is "work" once WORK_LIMIT was reached, else "states" where CAP was,
    else None. A state is the prices still to pay and, under `best_group`, the group each advance
    is being discounted by (None until its first group credit). Equal states merge, so the work
    follows the number of distinct states, not the number of placements.

    A state that cannot reach a greedy placement's saving is dropped (_within_reach): every state
    it leads to falls short too, so neither the best final state nor a back-pointer on its path
    changes -- the answer is the one the full search gives. Past CAP states after a source, the
    search keeps the greedy placement's state and those that saved most so far (_keep_within_cap);
    past WORK_LIMIT units of work (each state made, counted as it is made, and the greedy
    placements' pairs), only the greedy placement's state. The best any dropped or unexpanded
    state could still reach bounds the gap. WORK ([n]), if given, is added this placement's work."""
    start = _start(costs)
    useful = _useful_sources(names, groups, sources, per_card)
    spent = [0]
    _count_greedy_work(spent, sources, useful, names)
    greedy = _greedy_placement(start, useful)
    reach, most = _within_reach(start, useful, sum(start[0]) - sum(greedy[-1][0]))
    layers: list = []     # per useful source: state -> (previous state, index of the advance or None)
    states = {start: None}
    beyond = None
    stopped = None
    for k, (name, options, _) in enumerate(useful):
        step, unexpanded = _after_source(states, options, spent, work_limit, greedy[k])
        if unexpanded:
            # a state left unexpanded at the work limit could still have saved most(k - 1, state)
            beyond = _most_of(beyond, [most(k - 1, s) for s in unexpanded])
            stopped = "work"
        states = {s: back for s, back in step.items() if reach(k, s)}
        kept = 1 if spent[0] >= work_limit else cap
        if len(states) > kept:
            states, dropped = _keep_within_cap(states, greedy[k + 1], kept)
            beyond = _most_of(beyond, [most(k, s) for s in dropped])
            if kept == 1:
                stopped = "work"
            elif stopped is None:
                stopped = "states"
        layers.append((name, states))
    if work is not None:
        work[0] = work[0] + spent[0]
    best = min(states, key=lambda s: (sum(s[0]), s[0]))
    gap = None if beyond is None else max(0, beyond - (sum(start[0]) - sum(best[0])))
    return _placement(layers, best, len(names)), gap, stopped


def greedy_total(names: list, costs: list, groups: list, sources: list, per_card: bool, work: list | None = None):
    """The total a greedy placement leaves to pay where it provably saves the most any placement
    can (all the credits can give, or the whole price), else None: then only `place` knows the
    least. Counts in WORK what finding it weighs (pricing.purchase_total's shortcut)."""
    start = _start(costs)
    useful = _useful_sources(names, groups, sources, per_card)
    _count_greedy_work(work, sources, useful, names)
    left = sum(_greedy_placement(start, useful)[-1][0])
    _, most = _within_reach(start, useful, 0)
    return left if sum(start[0]) - left == most(-1, start) else None


def _start(costs: list) -> tuple:
    """The placement's first state: every advance's printed cost still to pay, no group chosen."""
    return tuple(costs), tuple(None for _ in costs)


def _most_of(beyond, values: list):
    """The larger of BEYOND (None: nothing yet) and the largest of VALUES."""
    for v in values:
        if beyond is None or v > beyond:
            beyond = v
    return beyond


def _count_greedy_work(work: list | None, sources: list, useful: list, names: list) -> None:
    """Count in WORK what finding the useful sources and the greedy placements weighs: every
    (source, advance) pair once, every (useful source, advance) pair four times (two orders, each
    replayed). A purchase of many advances with many held cards weighs thousands of pairs before
    its search makes any state, so the limits that bound a question's time count them too."""
    if work is not None:
        work[0] += len(names) * (len(sources) + 4 * len(useful))


def _keep_within_cap(states: dict, greedy: tuple, cap: int) -> tuple[dict, list]:
    """The CAP states to go on with (in the order found) and the dropped ones: the greedy
    placement's state first (so the answer is never worse than it), then those with the least left
    to pay, then the first found."""
    listed = list(states.items())
    ranked = sorted(range(len(listed)), key=lambda i: (0 if listed[i][0] == greedy else 1, sum(listed[i][0][0]), i))
    kept = sorted(ranked[:cap])
    return dict(listed[i] for i in kept), [listed[i][0] for i in ranked[cap:]]


def _useful_sources(names: list, groups: list, sources: list, per_card: bool) -> list[tuple]:
    """(name, options, the most it gives one advance) for each source that can discount one of the
    advances NAMES, in the sources' order; options[i](chosen) is (credit, group it fixes) for each
    way the source can discount advance i."""
    useful = []
    for name, gcred, spec in sources:
        options = [functools.partial(_credit_options, per_card, tuple(groups[i]), gcred, spec.get(names[i], 0))
                   for i in range(len(names))]
        most = max([c for option in options for c, _ in option(None)], default=0)
        if most > 0:
            useful.append((name, options, most))
    return useful


def _greedy_placement(start: tuple, useful: list) -> list[tuple]:
    """The states of the better of two greedy placements (the first of equals): the sources chosen
    in their order, or largest credit first (_greedy_path)."""
    by_credit = sorted(range(len(useful)), key=lambda j: -useful[j][2])
    return max([_greedy_path(start, useful, order) for order in (list(range(len(useful))), by_credit)],
               key=lambda path: -sum(path[-1][0]))


def _greedy_path(start: tuple, useful: list, order: list) -> list[tuple]:
    """The states of one placement the search can reach (START, then the state after each source):
    each source, taken in ORDER (indices of USEFUL), goes to the advance it saves most on; then
    the sources are placed so in their own order, as the search places them (which group an
    advance is discounted by depends on that order). A placement, so never saving more than the
    best one."""
    target: list = [None for _ in useful]     # the advance each source went to in ORDER
    path: list = []
    for sequence in (order, list(range(len(useful)))):
        left, chosen = list(start[0]), list(start[1])
        path = [start]
        for j in sequence:
            advances = list(range(len(left))) if target[j] is None else [target[j]]
            best = None     # the first (saving, advance, group) of the largest saving
            for i in advances:
                option = useful[j][1][i]
                for c, g in option(chosen[i]):
                    if best is None or min(c, left[i]) > best[0]:
                        best = (min(c, left[i]), i, g)
            gain, i, group = best
            if gain > 0:
                left[i] = left[i] - gain
                chosen[i] = group
                target[j] = i
            path.append((tuple(left), tuple(chosen)))
    return path


def _within_reach(start: tuple, useful: list, greedy: int):
    """reach(k, state): whether STATE, after the first k + 1 useful sources, can still save as much
    as a greedy placement does (GREEDY: the better of the sources chosen in their order and
    largest credit first); and most(k, state), the most any placement through it saves. The most
    a state can still save is what is left to pay, and at most the sum of the largest credit each
    remaining source gives; a source's credit never grows once an advance's group is fixed."""
    rest = [0 for _ in range(len(useful) + 1)]      # rest[k]: the most sources k, k + 1, ... give together
    for k in range(len(useful) - 1, -1, -1):
        rest[k] = rest[k + 1] + useful[k][2]
    total = sum(start[0])

    def most(k: int, state: tuple) -> int:
        to_pay = sum(state[0])
        return total - to_pay + min(to_pay, rest[k + 1])
    return (lambda k, state: most(k, state) >= greedy), most


def _credit_options(per_card: bool, groups: tuple, gcred: dict, specific: int, chosen) -> list[tuple]:
    """(credit, group it fixes) for each way a source (group credits GCRED, SPECIFIC credit toward
    the advance) can discount an advance of GROUPS already discounted by the group CHOSEN (None:
    not yet). Under `per_card` the larger of its group and specific credit, no group fixed."""
    if per_card:
        return [(max(max([gcred.get(g, 0) for g in groups], default=0), specific), None)]
    if chosen is not None:
        return [(gcred.get(chosen, 0) + specific, chosen)]
    found = [(gcred[g] + specific, g) for g in groups if gcred.get(g, 0)]
    if specific > 0 and len(found) < len(groups) or not found:
        # the specific credit alone, the group left open: a later source may then fix a group this
        # one gives nothing toward (its specific credit counts whatever the group)
        found.append((specific, None))
    return found


def _after_source(states: dict, options: list, spent: list, work_limit: int, greedy: tuple) -> tuple[dict, list]:
    """Every state one source leads to, its credit placed on one advance still to pay or on none:
    state -> (the state before, index of the advance or None). Equal states merge. Each state made
    counts in SPENT; once it reaches WORK_LIMIT the states not yet expanded, but the greedy
    placement's (GREEDY), go on with the credit placed on none, and are listed second."""
    step: dict = {}
    ways: list = [{} for _ in options]     # per advance, its group so far -> the source's options
    unexpanded = []
    for state in states:
        left, chosen = state
        made = len(step)
        step.setdefault(state, (state, None))
        if spent[0] >= work_limit and state != greedy:
            unexpanded.append(state)
            spent[0] += len(step) - made
            continue
        for i in range(len(options)):
            if left[i] <= 0:
                continue
            option = options[i]
            found = ways[i].get(chosen[i])
            if found is None:
                found = option(chosen[i])
                ways[i][chosen[i]] = found
            for credit, group in found:
                if credit > 0:
                    # the tuples of a state are shared where they do not change (fewer made in the page)
                    after_left = list(left)
                    after_left[i] = max(0, left[i] - credit)
                    after_chosen = chosen
                    if group != chosen[i]:
                        changed = list(chosen)
                        changed[i] = group
                        after_chosen = tuple(changed)
                    step.setdefault((tuple(after_left), after_chosen), (state, i))
        spent[0] += len(step) - made
    return step, unexpanded


def _placement(layers: list, state: tuple, count: int) -> list:
    """The credits each of the COUNT advances takes, [(source, amount), ...] in the sources' order,
    read back from the final STATE through the LAYERS (each source's step)."""
    given: list = [[] for _ in range(count)]
    for k in range(len(layers) - 1, -1, -1):
        name, step = layers[k]
        previous, i = step[state]
        if i is not None:
            given[i].append((name, previous[0][i] - state[0][i]))
        state = previous
    return [[credits[len(credits) - 1 - t] for t in range(len(credits))] for credits in given]
