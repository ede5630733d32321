"""Tax collection, the one action a step runs by itself (`collect_tax`): each player's tax into his
treasury, bounded by his stock, the cities he cannot tax in revolt and annexed by the revolt's
beneficiary; and the `tax` event, a holder's choice of rate where his advances let him vary it.
An engine module (py2es): the game page collects taxes with the same code."""

from __future__ import annotations

from ..pricing import abilities_of
from ..table.resolving import in_words
from ..vocabulary import DERIVED_NAMES
from .play import Game
from .refusals import CHOICE, ILLEGAL, Refused


def _tax_range(game: Game, args: dict, p) -> tuple:
    """The lowest and highest tax rate the player may choose: the rulebook's rate, raised by up to
    his held `tax_rate` abilities' `delta` and lowered by up to their `lower` (never below 0)."""
    base = game.quantity(args["rate"])
    held = abilities_of(game.module, p.advances, "tax_rate")
    return (max(base - sum(ab.get("lower", 0) for _, ab in held), 0),
            base + sum(ab.get("delta", 0) for _, ab in held))


def _tax_choosers(game: Game, args: dict) -> list:
    """The players with cities whose advances let them choose their tax rate, each with his range."""
    out = []
    for p in game.seated():
        if p.cities:
            low, high = _tax_range(game, args, p)
            if low != high:
                out.append((p, low, high))
    return out


def tax(game: Game, event: dict) -> None:
    """The tax rate a player chooses for this turn, within what his advances allow."""
    p = game.player(event.get("player"))
    acts = game.current_actions()
    if "collect_tax" not in game.waiting:
        raise Refused(ILLEGAL, "the tax is collected already: no rate to choose", field="do")
    low, high = _tax_range(game, acts["collect_tax"], p)
    if low == high:
        raise Refused(ILLEGAL, f"{p.name} has no choice of tax rate: {low} per city", field="player")
    rate = event.get("rate")
    if rate is None:
        raise Refused(ILLEGAL, f"usage: tax {p.name} rate=N (from {low} to {high})", field="do")
    if rate < low or rate > high:
        raise Refused(ILLEGAL, f"{p.name}'s tax rate is from {low} to {high} per city, not {rate}", field="rate")
    game.tax_rates[p.name] = rate
    game.note(f"{p.name} chooses a tax rate of {rate} per city", acts["collect_tax"]["line"])


def collect_tax(game: Game, args: dict) -> None:
    unchosen = [(p, low, high) for p, low, high in _tax_choosers(game, args) if p.name not in game.tax_rates]
    if unchosen:
        raise Refused(CHOICE, "these players' advances let them choose their tax rate: each enters it",
                      [f"tax {p.name} rate=" + "|".join(str(r) for r in range(low, high + 1)) for p, low, high in unchosen],
                      needs=[{"player": p.name, "calamity": None, "key": "tax", "low": low, "high": high}
                             for p, low, high in unchosen])
    revolts = []
    for p in game.seated():
        if not p.cities:
            continue
        rate = game.tax_rates[p.name] if p.name in game.tax_rates else _tax_range(game, args, p)[0]
        paid, stock, short, immune = _tax_payment(game, args, p, rate)
        p.treasury = p.treasury + paid
        revolting = p.cities - stock // rate if short and not immune else 0
        if revolting:
            revolts.append((p, revolting))
        revolt = f": {stock} in stock, so {_n(revolting, 'city revolts', 'cities revolt')}" if revolting else ""
        if immune:
            revolt = f": {stock} in stock, and his cities never revolt over taxes"
        game.note(f"{p.name} pays {paid} tax ({rate} per city on {p.cities}) into treasury {p.treasury}{revolt}",
                  args["line"])
    _tax_revolts(game, sorted(revolts, key=lambda r: game.ast_order(r[0])), args)


def _tax_payment(game: Game, args: dict, p, rate: int) -> tuple:
    """(what the player pays, his tokens in stock, whether he is short of the tax due, whether his
    cities never revolt over it). Short of tokens he pays his whole stock, or, where the rule
    option that `whole_cities` names is on, only the tax of the cities that do not revolt."""
    due = rate * p.cities
    stock = p.tokens_in_stock(game.pieces)
    paid = due if args["bound"] == "none" or stock is None else min(due, stock)
    short = rate != 0 and paid != due
    immune = short and bool(abilities_of(game.module, p.advances, "no_tax_revolt"))
    whole = args.get("whole_cities")
    if short and not immune and whole and game.option(whole):
        paid = (stock // rate) * rate
    return paid, stock, short, immune


def _n(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _tax_revolts(game: Game, revolts: list, args: dict) -> None:
    """After every player has paid: each victim's revolting cities go to the player with the most
    of the revolt's rank fact (the edition's `beneficiary_rank` by default), no victim of a revolt,
    as far as his cities in stock allow, then to the next; the rest are destroyed. A tie the
    ranking leaves goes to the first of the tied in A.S.T. order where the edition's
    `beneficiary_ties` says so (and every tied civilization has its place); otherwise it is the
    table's to settle: entered as a census."""
    victims = {p.name for p, _ in revolts}
    ranks = (args["revolt_rank"],) if args.get("revolt_rank") else game.module.TABLE_RULES.get(
        "beneficiary_rank", ("cities_in_stock",))
    ast_breaks_ties = game.module.TABLE_RULES.get("beneficiary_ties", ("ast",))[0] == "ast"
    values: dict[str, tuple] = {}  # each candidate's rank facts, read again only once his cities change

    def ranked(q) -> tuple:
        if q.name not in values:
            values[q.name] = _rank_values(game, q, ranks)
        return values[q.name]

    for victim, cities in revolts:
        while cities:
            candidates = [q for q in game.seated() if q.name not in victims and _cities_in_stock(game, q)]
            if not candidates:
                revert = args.get("unclaimed_revert")
                if revert and game.option(revert):
                    game.note(f"{victim.name}: {_n(cities, 'revolting city reverts', 'revolting cities revert')} to "
                              "him (no other player has cities in stock, and the reading of the rules in play gives "
                              "them back)", args["line"])
                    break
                victim.cities = victim.cities - cities
                game.note(f"{victim.name}: {_n(cities, 'revolting city is', 'revolting cities are')} destroyed "
                          "(no other player has cities in stock)", args["line"])
                break
            keyed = sorted(((ranked(q), q) for q in candidates),
                           key=lambda kq: kq[0], reverse=True)
            tied = [q for k, q in keyed if k == keyed[0][0]]
            gainer = _revolt_gainer(game, tied, ast_breaks_ties)
            if gainer is None:
                game.note(f"{victim.name}: {_n(cities, 'revolting city', 'revolting cities')} for the beneficiary, "
                          f"but {', '.join(q.name for q in tied)} tie on {', '.join(in_words(r) for r in ranks)}: "
                          "the table decides, enter it as a census",
                          args["line"])
                break
            taken = min(cities, _cities_in_stock(game, gainer))
            victim.cities = victim.cities - taken
            gainer.cities = gainer.cities + taken
            cities = cities - taken
            values.pop(gainer.name, None)
            broken = ", first of the tied in A.S.T. order" if len(tied) > 1 else ""
            game.note(f"{victim.name}: {_n(taken, 'revolting city', 'revolting cities')} annexed by {gainer.name} "
                      f"(the most {' then '.join(in_words(r) for r in ranks)}{broken})", args["line"])


def _revolt_gainer(game: Game, tied: list, ast_breaks_ties: bool):
    """The one ranked first, the first of the TIED in A.S.T. order where that breaks ties and
    every tied civilization has its place, or None: the table decides."""
    if len(tied) == 1:
        return tied[0]
    if not ast_breaks_ties:
        return None
    ranks = [game.ast_place(q) for q in tied]
    if any(r is None for r in ranks):
        return None
    return tied[ranks.index(min(ranks))]


def _rank_values(game: Game, p, ranks: tuple) -> tuple:
    """The facts that rank a revolt's beneficiary, in order: the player's own, or derived from them."""
    st = game.state(p)
    values = [st.derived(name) if name in DERIVED_NAMES else st.fact(name) for name in ranks]
    return tuple(v if isinstance(v, int) and not isinstance(v, bool) else 0 for v in values)


def _cities_in_stock(game: Game, p) -> int:
    total = game.pieces.get("cities")
    return 0 if total is None else max(total - p.cities, 0)


def run_automatic(game: Game, kind: str, args: dict) -> None:
    if kind == "collect_tax":
        collect_tax(game, args)


def waits_for_choices(game: Game, kind: str, args: dict) -> bool:
    """The automatic action leaves a player a choice: the step waits for it."""
    return kind == "collect_tax" and len(_tax_choosers(game, args)) > 0
