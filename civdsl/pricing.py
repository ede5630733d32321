"""The credit and price engine: what each advance of a purchase costs a player under the
rulebook's declared credit policy and variants (group credits, single-use placement, one-time
discounts, free advances, advances acquired automatically) and trade-card prices. The credits a
player starts with are `startcredits.py`'s.

Every rule comes from the compiled module's data (`CREDIT_POLICY`, `CREDIT_VARIANTS`, the
advances' credits and abilities); the player's holdings and credit tokens come as plain values.
It imports only `unknown` and `placement`, so the runtime's player state can derive facts from it
(`credit_total`), and the planner, the ledger and the questions call it directly.
"""

from __future__ import annotations

from .placement import greedy_total, place
from .unknown import sum_if_known


def group_credits(module, holds, extra: dict | None = None) -> dict[str, int]:
    credits: dict[str, int] = {g: 0 for g in module.GROUPS}
    for name in holds:
        for g, amount in module.ADVANCES[name]["credits"].items():
            credits[g] = credits.get(g, 0) + amount
    for g, amount in (extra or {}).items():
        credits[g] = credits.get(g, 0) + int(amount)
    return credits


def ability(module, name: str, kind: str) -> list[dict]:
    return [args for k, args in module.ADVANCES[name]["abilities"] if k == kind]


def abilities_of(module, names, kind: str) -> list[tuple]:
    """(advance, args) of every ability of KIND the advances NAMES carry, in their order: most
    advances carry none, and every price, hand value and marker asks it of the cards held."""
    out = []
    for name in names:
        carried = module.ADVANCES[name]["abilities"]
        if carried:
            for k, args in carried:
                if k == kind:
                    out.append((name, args))
    return out


def prices(module, holds, buys, extra_credits: dict | None = None, work: list | None = None) -> dict:
    """Price of each advance bought this turn after credits, with a breakdown.

    Credits come only from `holds` (advances held before this turn); the policy is the
    rulebook's declared one. One-time discounts and free advances carried by an advance bought
    this turn apply to one other advance of the same purchase: the dearest eligible one. WORK,
    if given ([n]), counts the states the single-use placement makes (the planner's budget).
    """
    holds, buys = list(holds), list(buys)
    rows, total, complete, least, stopped = _priced(module, holds, buys, extra_credits, work)
    return {
        "policy": module.CREDIT_POLICY,
        "variants": list(getattr(module, "CREDIT_VARIANTS", ())),
        "items": [_answer_row(r) for r in rows],
        "acquired": acquired_with(module, holds, buys),
        "total": total,
        # False where the single-use placement stopped at SINGLE_USE_PLACEMENT_CAP short of a
        # proof: the prices are a real placement's (payable), and no placement pays less than
        # total_at_least, the total less what the best placement could save more (gap) and,
        # where same-turn abilities or advances acquired automatically follow, less the most
        # they could take off any placement.
        "complete": complete,
        "total_at_least": least,
        # where the answer is not complete, the declared limit that stopped the placement
        "stopped": None if complete else _placement_limit(stopped),
        "unknown": [r[_ADVANCE] for r in rows if r[_PRICE] is None],
        "treasury_value": _treasury_value(module, holds),
    }


# A row of `_priced`: [advance, printed cost, credits as (from, amount) pairs, price left] (a list,
# not the answer's dict: the planner prices thousands of sets, and the page's copy of a Python dict
# costs a hash per field read); `_answer_row` makes the answer's row of it.
_ADVANCE = 0
_PRINTED = 1
_CREDITS = 2
_PRICE = 3


def _answer_row(row: list) -> dict:
    """The answer's row of a `_priced` row."""
    credits = [{"from": source, "amount": amount} for source, amount in row[_CREDITS]]
    if row[_PRINTED] is None:
        return {"advance": row[_ADVANCE], "printed": None, "credits": credits, "price": None,
                "note": "the printed cost is unknown in this rulebook"}
    return {"advance": row[_ADVANCE], "printed": row[_PRINTED], "credits": credits, "price": row[_PRICE]}


def _priced(module, holds: list, buys: list, extra_credits: dict | None, work: list | None) -> tuple:
    """What `prices` and `purchase_total` share: the rows after every step (`_ADVANCE`...), their
    total, whether the answer is the full search's (complete), the least total any placement pays
    and the limit that stopped the single-use placement ("states", "work" or None)."""
    if "single_use" in getattr(module, "CREDIT_VARIANTS", ()):
        rows, gap, stopped = _single_use_rows(module, holds, buys, extra_credits or {}, work)
    else:
        rows, gap, stopped = _policy_rows(module, holds, buys, extra_credits or {}), None, None
    # after the credits, before what follows (only a capped placement's least price reads it)
    placed = sum_if_known(r[_PRICE] for r in rows) if gap is not None else None
    # what follows may take more off another placement than off the one found (it lands on the
    # dearest advance): where the placement stopped at its cap, the least price allows for it
    taken = 0 if gap is None else _most_taken(module, [r[_ADVANCE] for r in rows if r[_PRICE] is not None],
                                              holds, buys)
    # an advance a held or bought card acquires automatically costs nothing; this comes first, so
    # a one-time discount of the same purchase goes to an advance that is still paid for
    _acquired_automatically(module, rows, holds + buys)
    _same_turn_abilities(module, rows)
    for row in rows:
        if row[_PRICE] is not None:
            row[_PRICE] = max(0, row[_PRICE])
    total = sum_if_known(r[_PRICE] for r in rows)
    complete = gap is None or (gap == 0 and not taken)
    return rows, total, complete, _least_total(total, placed, gap, taken), stopped


def _placement_limit(stopped: str) -> dict:
    """The declared limit a single-use placement met (STOPPED: "states" or "work"): what it bounds
    and its value, as `cost` states it."""
    if stopped == "states":
        return {"limit": "states per held card", "bound": SINGLE_USE_PLACEMENT_CAP}
    return {"limit": "units of work", "bound": SINGLE_USE_PLACEMENT_WORK}


def _least_total(total: int | None, placed: int | None, gap: int | None, taken: int) -> int | None:
    """The least any placement of the credits pays (prices' total_at_least): the TOTAL where the
    placement is the full search's (GAP None); else the total less GAP, the most the best
    placement could save more; where steps after the credits could take up to TAKEN off another
    placement, the total after the credits (PLACED) less both."""
    if gap is None or total is None:
        return total
    return max(0, placed - gap - taken if taken else total - gap)


def _most_taken(module, priced: list, holds: list, buys: list) -> int:
    """The most that advances acquired automatically (a held or bought card's `acquire_all`), the
    one-time discounts and the free advances of the advances bought could take off the prices of
    PRICED under any placement of the credits: each covered advance's printed cost, each
    discount, the dearest printed cost a free advance covers."""
    taken = 0
    for source in holds + buys:
        for kind, args in module.ADVANCES[source]["abilities"]:
            if kind == "discount" and source in buys:
                taken += args["amount"]
            elif kind == "acquire_all" or (kind == "free_advance" and source in buys):
                costs = [module.ADVANCES[n]["cost"] for n in priced if n != source and _covered(module.ADVANCES[n], args)]
                taken += sum(costs) if kind == "acquire_all" else max(costs, default=0)
    return taken


def item_prices(module, holds, buys, extra_credits: dict | None = None) -> list:
    """The price of each advance of BUYS after every step of `prices` (None where its cost is
    unknown), in their order, without the answer's rows: the planner prices every candidate."""
    rows = _priced(module, list(holds), list(buys), extra_credits, None)[0]
    return [r[_PRICE] for r in rows]


def treasury_value(module, holds) -> int:
    """`prices`' treasury_value alone: what one treasury token pays toward advances."""
    return _treasury_value(module, list(holds))


def _treasury_value(module, holds: list) -> int:
    """What one treasury token pays toward advances: 1, or more by a held `treasury_value` ability."""
    return max([a["value"] for _, a in abilities_of(module, holds, "treasury_value")] or [1])


def _price_row(name: str, adv: dict, credits: list[tuple]) -> list:
    """One advance's row (`_ADVANCE`...): its printed cost, the credits it takes and the price left."""
    cost = adv["cost"]
    if cost is None:
        return [name, None, [], None]
    return [name, cost, credits, cost - sum(amount for _, amount in credits)]


def _best_group_credits(name: str, adv: dict, pool: dict, toward: dict) -> list[tuple]:
    """`best_group`: the group credit tokens of the advance's best group, plus each held card's
    specific credit toward it (`toward`, `_specific_toward`)."""
    out = []
    groups = adv["groups"]
    if groups:
        # the group with the most credits, the first listed between equals
        best, most = groups[0], pool.get(groups[0], 0)
        for g in groups:
            amount = pool.get(g, 0)
            if amount > most:
                best, most = g, amount
        if most:
            out.append((f"{best} credits", most))
    out.extend(toward.get(name, ()))
    return out


def _specific_toward(module, holds: list, buys) -> dict:
    """Each advance of BUYS -> the held cards' specific credits toward it, (held card, amount) in
    the order of HOLDS: one pass over the cards held, not one per advance priced (the planner
    prices every candidate with dozens of cards held)."""
    wanted = set(buys)
    toward: dict = {}
    for held in holds:
        for target, amount in module.ADVANCES[held]["specific"].items():
            if amount and target in wanted:
                toward.setdefault(target, []).append((held, amount))
    return toward


def _per_card_credits(module, holds: list, name: str, adv: dict, pool: dict) -> list[tuple]:
    """`per_card`: each held card's larger credit (group or specific), plus the free credit tokens
    of the advance's groups."""
    out = []
    for held in holds:
        h = module.ADVANCES[held]
        group_part = max([h["credits"].get(g, 0) for g in adv["groups"]] or [0])
        special = h["specific"].get(name, 0)
        amount = max(group_part, special)
        if amount:
            kind = "special credit" if special >= group_part else "group credit"
            out.append((f"{held} ({kind})", amount))
    for g, amount in pool.items():
        if g in adv["groups"] and amount:
            out.append((f"{g} credits", int(amount)))
    return out


class UnknownCreditPolicy(Exception):
    """A compiled module whose credit policy this engine does not know (the validator admits none)."""


def _policy_credits(module, holds: list, name: str, adv: dict, pool: dict | None, toward: dict) -> list[tuple]:
    """The credits an advance takes under the module's credit policy, from POOL (_policy_pool) and
    the specific credits TOWARD it (`_specific_toward`, read by `best_group`)."""
    if module.CREDIT_POLICY == "best_group":
        return _best_group_credits(name, adv, pool, toward)
    if module.CREDIT_POLICY == "per_card":
        return _per_card_credits(module, holds, name, adv, pool)
    raise UnknownCreditPolicy(f"unknown credit policy `{module.CREDIT_POLICY}`")


def _policy_pool(module, holds: list, extra: dict | None) -> dict:
    """The credit tokens a policy reads: under `best_group` every group's credits from the cards
    held and the free tokens; under `per_card` the free tokens alone (the cards count one by one)."""
    return group_credits(module, holds, extra) if module.CREDIT_POLICY == "best_group" else extra or {}


def _policy_rows(module, holds: list, buys, extra_credits: dict | None) -> list[list]:
    """The rows of the usual reading: every credit counts toward every advance of the turn."""
    pool = _policy_pool(module, holds, extra_credits)
    toward = _specific_toward(module, holds, buys) if module.CREDIT_POLICY == "best_group" else {}
    rows = []
    for name in buys:
        adv = module.ADVANCES[name]
        rows.append(_price_row(name, adv, _policy_credits(module, holds, name, adv, pool, toward)
                               if adv["cost"] is not None else []))
    return rows


def _acquired_automatically(module, rows: list[list], sources: list) -> None:
    """An advance that a held or bought card's `acquire_all` ability covers costs nothing."""
    acquirers = abilities_of(module, sources, "acquire_all")
    for row in rows:
        adv = module.ADVANCES[row[_ADVANCE]]
        for source, args in acquirers:
            if source != row[_ADVANCE] and row[_PRICE] and _covered(adv, args):
                row[_CREDITS].append((f"{source} (acquired automatically)", row[_PRICE]))
                row[_PRICE] = 0


def _single_use_rows(module, holds: list, buys: list, extra: dict,
                     work: list | None = None) -> tuple[list[list], int, str]:
    """The strict reading (variant `single_use`): each held card's credit, and each group's free
    credit tokens, count toward one advance of the turn only. Under `best_group` a card gives an
    advance its credit in the group the advance is discounted by (a dual-group advance is
    discounted by one of its groups, the same for every credit it takes) plus its specific credit;
    under `per_card` the larger of the two. A credit larger than what is left of a price saves
    only the rest.

    The player places each credit where it serves best, so the answer is the placement with the
    largest total saving: an exact search, not a greedy placement (which is not always best and
    depended on the order the purchases were listed in). Purchases are taken in rulebook order,
    so the answer never depends on how the buys were listed. Also returns how much more than the
    placement found the best one could save (None: the search never reached a limit) and which
    limit stopped it ("states", "work" or None)."""
    sources, priced = _single_use_sources(module, holds, buys, extra)
    given, gap, stopped = _place_single_use_credits(module, sources, priced, work)
    return [_price_row(name, module.ADVANCES[name], given.get(name, [])) for name in buys], gap, stopped


def _single_use_sources(module, holds: list, buys: list, extra: dict) -> tuple[list, list]:
    """The credit sources (each held card, then each group's free tokens) and the advances of BUYS
    with a price, in rulebook order."""
    sources = [(h, module.ADVANCES[h]["credits"], module.ADVANCES[h]["specific"]) for h in holds]
    sources.extend([(f"{g} credits", {g: int(a)}, {}) for g, a in sorted(extra.items()) if a])
    return sources, _in_rulebook_order(module, [b for b in buys if module.ADVANCES[b]["cost"] is not None])


def _in_rulebook_order(module, names: list) -> list:
    """NAMES in the order the rulebook declares its advances (a name given twice comes twice). A
    walk of the advances with a count of the few names: the planner asks for thousands of sets,
    and a table of every advance's position made for each would cost more than the walk."""
    times: dict[str, int] = {}
    for name in names:
        times[name] = times.get(name, 0) + 1
    return [name for name in module.ADVANCES if name in times for _ in range(times[name])]


def purchase_total(module, holds, buys, extra_credits: dict | None = None, work: list | None = None) -> tuple:
    """(total, complete, total_at_least) of `prices`, which the planner needs for thousands of
    sets. Under `single_use`, where a greedy placement already saves all the credits can give (or
    the whole price) and nothing after the credits depends on where they went, that saving is the
    best placement's, so the total is known without the placement's search: the total prices()
    gives, with none of its work."""
    holds, buys = list(holds), list(buys)
    if ("single_use" in getattr(module, "CREDIT_VARIANTS", ()) and not _most_taken(module, buys, holds, buys)
            and all(module.ADVANCES[b]["cost"] is not None for b in buys)):
        sources, priced = _single_use_sources(module, holds, buys, extra_credits or {})
        names, costs, groups, per_card = _placement_problem(module, priced)
        left = greedy_total(names, costs, groups, sources, per_card, work)
        if left is not None:  # the greedy saving is the most any placement saves
            return left, True, left
    _, total, complete, least, _ = _priced(module, holds, buys, extra_credits, work)
    return total, complete, least


# The most partial placements the single-use credit placement keeps after each source. Placing
# credits so is strongly NP-hard (bin covering), so the exact search can meet exponentially many
# states; past the cap it keeps the greedy placement's state and those that saved most so far,
# which bounds its time and memory (at most this many states per source) and still ends in a real
# placement, with a proven bound on the best.
SINGLE_USE_PLACEMENT_CAP = 1000
# The most work one placement does: each state a source's step makes and each (source, advance)
# pair the greedy placements weigh. The cap alone
# lets a purchase of 30 advances with 25 held cards make a quarter of a million states; past this
# much work the search goes on with the greedy placement's state only, so it still ends in a real
# placement, never worse than the greedy one, with a proven bound on the best.
SINGLE_USE_PLACEMENT_WORK = 60_000


def _place_single_use_credits(module, sources: list, priced: list,
                              work: list | None = None) -> tuple[dict[str, list], int, str]:
    """The placement of credits with the largest total saving (placement.place, under this
    module's limits): the credits each advance of PRICED takes, how much more the best placement
    could save (None: the full search's) and which limit stopped it ("states", "work" or None)."""
    names, costs, groups, per_card = _placement_problem(module, priced)
    found, gap, stopped = place(names, costs, groups, sources, per_card, SINGLE_USE_PLACEMENT_CAP,
                                SINGLE_USE_PLACEMENT_WORK, work)
    given = {name: [(f"{source} (single use)", amount) for source, amount in credits]
             for name, credits in zip(priced, found)}
    return given, gap, stopped


def _placement_problem(module, priced: list) -> tuple:
    """placement.place's plain data but the sources: the advances' names, printed costs and groups,
    and whether the policy is `per_card`."""
    return (priced, [module.ADVANCES[b]["cost"] for b in priced], [module.ADVANCES[b]["groups"] for b in priced],
            module.CREDIT_POLICY == "per_card")


def trade_card_prices(module, holds, stacks: list[int], treasury: int | None = None) -> dict:
    """Trade cards bought for treasury, one row per card asked for: the cheapest offer among the
    rulebook's own (`ability trade_card_purchase(...)` outside an advance) and the advances held.
    A stack nobody sells from, more cards than `trade_card_purchase_limit` allows, or more
    treasury than the state holds makes the purchase illegal."""
    offers, limits = _trade_card_offers(module, holds)
    rows = []
    for stack in stacks:
        price, seller = min(offers.get(stack, []), default=(None, None))
        rows.append({"stack": stack, "price": price, "from": seller})
    total = sum_if_known(r["price"] for r in rows)
    return {"items": rows, "total": total, "illegal": _trade_card_problems(offers, limits, rows, total, treasury),
            "offers": {s: sorted(o) for s, o in sorted(offers.items())}}


def _trade_card_problems(offers: dict, limits: list, rows: list[dict], total, treasury) -> list[dict]:
    """Why a purchase of trade cards is illegal: a stack nobody sells from, more cards than a limit
    allows, more treasury than the state holds."""
    sellers = ", ".join(str(s) for s in sorted(offers)) or "none"
    illegal = [{"stack": r["stack"], "why": f"no rule sells cards from stack {r['stack']} to this player "
                                            f"(stacks on sale: {sellers})"} for r in rows if r["from"] is None]
    illegal.extend([{"stack": None, "why": f"{len(rows)} trade cards, but at most {cards} may be bought a turn "
                                           f"({doc})"} for cards, doc in limits if len(rows) > cards])
    if treasury is not None and total is not None and total > treasury:
        illegal.append({"stack": None, "why": f"{total} treasury needed, {treasury} held"})
    return illegal


def _trade_card_offers(module, holds) -> tuple[dict[int, list], list]:
    """({stack: [(price, who sells)]}, [(most cards a turn, why)]): the rulebook's own offers and
    limits, then those of the advances held."""
    offers: dict[int, list] = {}
    limits = []
    for kind, args, doc in getattr(module, "ABILITIES", ()):
        if kind == "trade_card_purchase":
            offers.setdefault(args["stack"], []).append((args["price"], doc or "the rulebook"))
        elif kind == "trade_card_purchase_limit":
            limits.append((args["cards"], doc or "the rulebook"))
    for name, args in abilities_of(module, holds, "trade_card_purchase"):
        offers.setdefault(args["stack"], []).append((args["price"], name))
    return offers, limits


def purchase_problems(module, holds, buys, facts: dict) -> list[dict]:
    """Why a purchase is not allowed, advance by advance: the checks `plan` applies to its
    candidates. Prerequisites must be held before this turn: all advances of a turn are bought
    together (1981 17.10), so one bought alongside does not count; a `card_limit` constant caps
    the advances held; an advance whose every card the other players hold (the `others_hold` fact
    of FACTS) is sold out."""
    held = set(holds)
    out, seen = [], set()
    for name in buys:
        why = _purchase_problem(module, name, held, seen, buys) or sold_out(module, name, facts)
        if why is not None:
            out.append({"advance": name, "why": why})
        seen.add(name)
    limit = module.CONSTS.get("card_limit")
    if limit is not None and len(held | seen) > limit:
        out.append({"advance": None, "why": f"{len(held | seen)} advances held after the purchase, but the card "
                                            f"limit is {limit}"})
    return out


def _purchase_problem(module, name: str, held: set, seen: set, buys) -> str | None:
    """Why one advance of a purchase may not be bought: held already, named before in the same
    purchase (SEEN), or a prerequisite not held before this turn; None when it may."""
    if name in held:
        return "already held"
    if name in seen:
        return "named twice: one copy of each advance"
    missing = [r for r in module.ADVANCES[name]["requires"] if r not in held]
    if not missing:
        return None
    alongside = any(r in buys for r in missing)
    return f"needs {', '.join(missing)} held before this turn" + (
        " (bought in the same turn does not count)" if alongside else "")


def acquired_with(module, holds, buys) -> list[dict]:
    """Advances gained at no cost by buying an advance with `acquire_all` (the Expansion Project's
    Anatomy, 33.0681): every one of its group under its cost bound that the player lacks."""
    owned = set(holds) | set(buys)
    out = []
    for source in buys:  # a held source acquired its cards already; a state lacking them prices them at 0
        for args in ability(module, source, "acquire_all"):
            for name, adv in module.ADVANCES.items():
                if name not in owned and _covered(adv, args):
                    owned.add(name)
                    out.append({"advance": name, "printed": adv["cost"], "price": 0,
                                "credits": [{"from": f"{source} (acquired automatically)", "amount": adv["cost"]}]})
    return out


def _same_turn_abilities(module, rows: list[list]) -> None:
    """The one-time discounts and free advances an advance bought this turn gives another
    advance of the same purchase: the dearest one still paid for (and eligible)."""
    for row in rows:
        name = row[_ADVANCE]
        if not module.ADVANCES[name]["abilities"]:
            continue  # most advances carry no ability, and the planner prices thousands of sets
        for args in ability(module, name, "discount"):
            target = _dearest_other(module, rows, name)
            if target is not None:
                target[_CREDITS].append((f"{name} (one-time discount)", args["amount"]))
                target[_PRICE] = target[_PRICE] - args["amount"]
        for args in ability(module, name, "free_advance"):
            target = _dearest_other(module, rows, name, args)
            if target is not None:
                target[_CREDITS].append((f"{name} (free advance)", target[_PRICE]))
                target[_PRICE] = 0


def _dearest_other(module, rows: list[list], name: str, free: dict | None = None) -> list | None:
    """The row, other than NAME's, with the highest price still to pay (then the last name; the
    first of equal rows), of an advance a `free_advance` ability's FREE arguments cover when
    given; None when there is none."""
    best = None
    for r in rows:
        price = r[_PRICE]
        if r[_ADVANCE] == name or price is None or price <= 0:
            continue
        if best is not None and (price < best[_PRICE] or (price == best[_PRICE] and r[_ADVANCE] <= best[_ADVANCE])):
            continue
        if free is None or _covered(module.ADVANCES[r[_ADVANCE]], free):
            best = r
    return best


def _covered(adv: dict, args: dict) -> bool:
    """An advance of the group that an `acquire_all` or `free_advance` ability names, under its cost bound."""
    return args["group"] in adv["groups"] and adv["cost"] is not None and adv["cost"] < args["cost_below"]


def sold_out(module, name: str, facts: dict) -> str | None:
    """Why the box has no card of an advance left: the rulebook limits its supply (the cards in
    use for the number of players, where a `supply TABLE` gives them) and the other players hold
    every card of it (the `others_hold` fact of FACTS; without it nothing is known to be sold out).
    Without `players` an advance whose cards in use depend on it is held to the box's `supply`."""
    taken = facts.get("others_hold")
    in_use = cards_in_use(module, name, facts.get("players"))
    if in_use is None or taken is None or taken.get(name, 0) < in_use:
        return None
    if in_use == 0:
        return "none of its cards is in use in this game"
    return "sold out: the other players hold " + ("the one card in use" if in_use == 1 else f"all {in_use} cards in use")


def cards_in_use(module, name: str, players) -> int | None:
    """The cards of an advance in the game: its `supply TABLE`'s band for PLAYERS where it has one
    and the number is known, else its `supply` (None: not limited)."""
    adv = module.ADVANCES[name]
    table = adv["supply_table"]
    if table is not None and players is not None:
        for low, high, value in module.TABLES[table]:
            if players >= low and (high is None or players <= high):
                return value
    return adv["supply"]


def supply_limited(module) -> list[str]:
    """The advances whose cards the rulebook limits (`supply` or `supply TABLE`)."""
    return [n for n, a in module.ADVANCES.items() if a["supply"] is not None or a["supply_table"] is not None]


def supply_notes(module, facts: dict) -> list[str]:
    """The notes of an answer on the rulebook's supply limits it cannot check: all of them without
    what the other players hold (`others_hold`), those that depend on an unknown `players`."""
    limited = supply_limited(module)
    if not limited:
        return []
    if facts.get("others_hold") is None:
        return ["supply (cards of each advance in the box) is not checked: the state does not say what other players "
                "hold (`others_hold`)"]
    by_players = [n for n in limited if module.ADVANCES[n]["supply_table"] is not None]
    if by_players and facts.get("players") is None:
        return [f"the cards in use of {', '.join(by_players)} depend on the number of players, which the state does "
                "not give (`players`): the box's supply is checked instead"]
    return []


def cost_notes(module, start: dict | None, facts: dict) -> list[str]:
    """What a price leaves out: the supply limits the state's FACTS cannot check (supply_notes),
    and the start credits (START, startcredits' answer for the state) where the state cannot give
    them."""
    notes = supply_notes(module, facts)
    if start is not None and start["per_group"] is None:
        need = ", ".join(f"`{m}`" for m in start["missing"])
        notes.append(f"start credits are not counted: they depend on {need}" if need else
                     f"start credits are not counted: {start['problem']}")
    return notes
