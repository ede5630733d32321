"""Each calamity of a turn's calamity phase, as the edition declares it: the limits (which a victim
keeps), the order of resolution, the beneficiary, and each victim's resolution with its
secondary victims. Read by the phase of a table file (calamity_phase.py) and the game ledger's
calamity step (ledger/calamities.py). An engine module (py2es): the game page resolves its
calamity steps with this code, each victim by the edition's compiled calamity functions
(sourcemap.resolve: the page's are the rules' JavaScript)."""

from __future__ import annotations

from ..errors import StateError
from ..sourcemap import resolve
from ..unknown import Unknown
from .seating import Seat, Table


class Discard:
    """A calamity a victim discards beyond the limits: WHY is "duplicate", "random" or "highest_stack"."""

    def __init__(self, victim: str, calamity: str, index: int, why: str):
        self.victim = victim
        self.calamity = calamity
        self.index = index
        self.why = why


class Beneficiary:
    """Who benefits from a calamity (None: nobody, or not known), why in words ("the trader",
    "most cities in stock (4), then tokens in stock", ...), and the players he was chosen among."""

    def __init__(self, name: str | None, why: str, candidates: tuple = ()):
        self.name = name
        self.why = why
        self.candidates = candidates


class Resolved:
    """One calamity of the phase: who suffers what (runtime.Resolution: the primary victim's, and
    (name, amount assigned, resolution) of each secondary victim), and why."""

    def __init__(self, index: int, calamity: str, victim: str, traded_by: str | None, beneficiary: Beneficiary | None,
                 primary, secondary: list, notes: list, missing: list):
        self.index = index
        self.calamity = calamity
        self.victim = victim
        self.traded_by = traded_by
        self.beneficiary = beneficiary
        self.primary = primary
        self.secondary = secondary
        self.notes = notes
        self.missing = missing


def in_words(name: str) -> str:
    """A declared name in words: `cities_in_stock` is "cities in stock"."""
    return " ".join(name.split("_"))



# --- 1. limits ---------------------------------------------------------------------------------

def _is_major(module, name: str) -> bool:
    return module.CALAMITIES[name]["class"].startswith("major")


def apply_limits(table: Table, rng) -> tuple[list[dict], list[Discard]]:
    """The calamities each victim keeps, and those discarded, as the edition declares (RNG: the
    draws of `discard random`, anything with `randrange`)."""
    module = table.module
    rules = module.TABLE_RULES
    kept: list[dict] = []
    discarded: list[Discard] = []
    by_victim: dict[str, list[dict]] = {}
    for c in table.calamities:
        by_victim.setdefault(c["victim"], []).append(c)
    for victim, held in by_victim.items():
        held = list(held)
        for how in rules["discard"]:
            why, gone = _discarded_by(how, module, rules, held, rng)
            held = _without(held, gone)
            discarded.extend(Discard(victim, c["calamity"], c["index"], why) for c in gone)
        kept.extend(held)
    kept.sort(key=lambda c: c["index"])
    return kept, discarded


def _without(cards: list[dict], gone: list[dict]) -> list[dict]:
    """`cards` but those of `gone` (each calamity known by its place in the table, `index`), in
    their order: one pass, however many go."""
    if not gone:
        return cards
    places = {c["index"] for c in gone}
    return [c for c in cards if c["index"] not in places]


def _duplicates(module, rules: dict, held: list[dict], rng) -> tuple[str, list[dict]]:
    """`discard duplicates`: one of each name held twice goes first (identical cards: which one
    does not matter)."""
    seen: set[str] = set()
    gone = []
    for c in held:
        if c["calamity"] in seen:
            gone.append(c)
        seen.add(c["calamity"])
    return "duplicate", gone


def _at_random(module, rules: dict, held: list[dict], rng) -> tuple[str, list[dict]]:
    """`discard random`: drawn at random until the limits hold."""
    return "random", _over_limits(module, rules, held, rng)


def _highest_stack(module, rules: dict, held: list[dict], rng) -> tuple[str, list[dict]]:
    """`discard highest_stack`: those of the highest stacks until the limits hold."""
    return "highest_stack", _over_limits(module, rules, held, None)


def _discarded_by(how: str, module, rules: dict, held: list[dict], rng) -> tuple[str, list[dict]]:
    """`resolution { discard ... }`: each rule -> (why, the cards it discards from a victim's hand)."""
    if how == "duplicates":
        return _duplicates(module, rules, held, rng)
    if how == "random":
        return _at_random(module, rules, held, rng)
    return _highest_stack(module, rules, held, rng)


def _over_limits(module, rules: dict, held: list[dict], rng) -> list[dict]:
    """Calamities discarded until every declared limit holds (major, then minor, then all): drawn
    at random, or without `rng` the one of the highest stack (the latest drawn of equal ones).
    A victim may hold thousands (a hostile table file): each limit costs O(n log n), never a
    search of the whole hand per card discarded."""
    out: list[dict] = []
    left = list(held)
    for limit, chosen in ((rules["major_limit"], lambda c: _is_major(module, c["calamity"])),
                          (rules["minor_limit"], lambda c: not _is_major(module, c["calamity"])),
                          (rules["limit"], lambda c: True)):
        pool = [c for c in left if chosen(c)]
        if limit is None or len(pool) <= limit:
            continue
        gone = _drawn(pool, len(pool) - limit, rng) if rng is not None else _highest(module, pool, len(pool) - limit)
        left = _without(left, gone)
        out.extend(gone)
    return out


def _highest(module, pool: list[dict], count: int) -> list[dict]:
    """The `count` cards of the highest stacks (the latest drawn of equal ones), highest first:
    the cards that taking the highest one `count` times would take, in that order."""
    return sorted(pool, key=lambda c: (module.CALAMITIES[c["calamity"]]["stack"] or 0, c["index"]),
                  reverse=True)[:count]


def _drawn(pool: list[dict], count: int, rng) -> list[dict]:
    """`count` cards drawn one at a time with `rng.randrange(cards left)` from `pool` in its order,
    each drawn card taken out: the position drawn is found among the cards left in O(log n) (a
    Fenwick tree of the cards still there), so the draws and the cards they give are those of
    drawing from a list and removing each card."""
    n = len(pool)
    tree = [0 for _ in range(n + 1)]
    for i in range(1, n + 1):  # every card present: the tree of n ones, built in O(n)
        tree[i] += 1
        parent = i + _lowest_bit(i)
        if parent <= n:
            tree[parent] = tree[parent] + tree[i]
    top = 1  # the least power of two above n
    while top <= n:
        top = top * 2
    out = []
    for left in range(n, n - count, -1):
        rank = rng.randrange(left)  # the (rank+1)-th card still present
        pos = 0
        step = top
        while step:
            nxt = pos + step
            if nxt <= n and tree[nxt] <= rank:
                pos = nxt
                rank = rank - tree[nxt]
            step = step // 2
        out.append(pool[pos])
        i = pos + 1
        while i <= n:
            tree[i] -= 1
            i = i + _lowest_bit(i)
    return out


def _lowest_bit(i: int) -> int:
    """The lowest set bit of I (from 1): `i & -i`, with whole numbers from 0 only."""
    return i - (i & (i - 1))


# --- 2. order ----------------------------------------------------------------------------------

def _minor_first(table: Table, cal: dict, c: dict):
    return 0 if cal["class"] == "minor" else 1


def _by_stack(table: Table, cal: dict, c: dict):
    return cal["stack"] if cal["stack"] is not None else 0


def _nontradable_first(table: Table, cal: dict, c: dict):
    return 0 if cal["class"] == "major nontradable" else 1


def _by_ast(table: Table, cal: dict, c: dict):
    rank = table.ranks.get(c["victim"])
    return rank if rank is not None else float("inf")


def _order_key(key: str, table: Table, cal: dict, c: dict):
    """`resolution { order ... }`: a calamity's value of one key of the order of resolution."""
    if key == "minor_first":
        return _minor_first(table, cal, c)
    if key == "stack":
        return _by_stack(table, cal, c)
    if key == "nontradable_first":
        return _nontradable_first(table, cal, c)
    return _by_ast(table, cal, c)


def order(table: Table, kept: list[dict], notes: list[str]) -> list[dict]:
    module = table.module
    keys = module.TABLE_RULES["order"]
    # (the declared keys, the table's order, the calamity): the table's order breaks what remains
    keyed = sorted(((tuple(_order_key(k, table, module.CALAMITIES[c["calamity"]], c) for k in keys), c["index"], c)
                    for c in kept), key=lambda t: t[:2])
    if "ast" in module.TABLE_RULES["order"]:
        notes.extend(_unranked_ties(table, keyed))
    return [c for _, _, c in keyed]


def _unranked_ties(table: Table, keyed: list[tuple]) -> list[str]:
    """A tie the A.S.T. ranking breaks, with a ranking not given: a note saying the table's order is kept."""
    out = []
    for (key_a, _, a), (key_b, _, b) in zip(keyed, keyed[1:]):
        unranked = [v for v in (a["victim"], b["victim"]) if table.ranks.get(v) is None]
        if key_a[:-1] == key_b[:-1] and a["victim"] != b["victim"] and unranked:
            out.append(f"{a['calamity']} of {a['victim']} and {b['calamity']} of {b['victim']} are "
                       "resolved in A.S.T. order, but the table gives no A.S.T. rank for "
                       + " and ".join(unranked) + ": the table's order is kept")
    return out


# --- 3. beneficiary ----------------------------------------------------------------------------

def _of_player(name: str, fact: str) -> str:
    """A fact one player's answer lacks, named as the table names every player's: `players.NAME.FACT`
    (a name already placed in the table, or a role the table assigns, stays as it is)."""
    if "." in fact or "[" in fact or fact in ("other_players", "beneficiary", "trader"):
        return fact
    return f"players.{name}.{fact}"


def _add_missing(missing: list[str], names) -> None:
    """The facts an answer lacks, each named once, in the order met."""
    for name in names:
        if name not in missing:
            missing.append(name)


def _fact_values(table: Table, names: list[str], fact: str, missing: list[str]) -> tuple[dict, list[str]]:
    """Each player's value of FACT, and the players whose value the table does not give (what
    it lacks for them recorded in MISSING)."""
    values = {n: table.value(n, fact) for n in names}
    unknown = [n for n, v in values.items() if isinstance(v, Unknown)]
    _add_missing(missing, [f"players.{n}.{f}" for n in unknown for f in values[n].facts])
    return values, unknown


def _related_names(table: Table, victim: str, among: str, missing: list[str]) -> list[str] | None:
    """The players related to the victim by AMONG; None, what the table lacks recorded in MISSING,
    when the table does not say."""
    seat = Seat(table, victim, {})
    related = seat.related_names(among)
    if related is None:
        missing.append(seat.missing(among))
    return related


def _candidates_not_known(among: str) -> Beneficiary:
    return Beneficiary(None, f"the candidates are the victim's {among} players, and the table does not say who")


def _victims_choice(c: dict, allowed: list[str], missing: list[str], refusal: str) -> str | None:
    """The beneficiary the table names where the victim chooses among ALLOWED: None (and the
    choice recorded as missing) when it names none; one outside them is an error saying REFUSAL."""
    chosen = c["beneficiary"]
    if chosen is None:
        missing.append(f"calamities[{c['index']}].beneficiary")
        return None
    if chosen not in allowed:
        raise StateError(f"calamities[{c['index']}] ({c['calamity']}): `beneficiary` {chosen} {refusal}")
    return chosen


def beneficiary(table: Table, c: dict, missing: list[str]) -> Beneficiary | None:
    """The beneficiary of one calamity by its declared kind and the edition's ranking rules."""
    module = table.module
    cal = module.CALAMITIES[c["calamity"]]
    kind = cal["beneficiary"]
    if kind == "none":
        return None
    trader = c["traded_by"]
    if kind in ("trader", "trader_or_most_stock") and trader is not None:
        return Beneficiary(trader, "the player who traded the calamity to the victim")
    if kind == "trader":
        return Beneficiary(None, "no trader: the victim drew the card")
    if kind == "nominee":
        return _nominee(table, c, cal["resolution"], missing)
    return _most_stock(table, c, cal["resolution"], missing)


def _nominee(table: Table, c: dict, rules: dict, missing: list[str]) -> Beneficiary:
    """The victim's nominee, as far as the declared rules leave him a choice: forced by a held
    advance (`nominee_forced_if`: the ranking among every player, the victim included), limited to
    the candidates without a fact (`nominee_without`: named without asking when only one is left),
    else any candidate of `beneficiary_among`; a named nominee outside them is an error naming the
    rule."""
    forced_if = rules["nominee_forced_if"]
    if forced_if and table.fresh(c["victim"]).holds(forced_if[0]):
        everyone = dict(rules)
        everyone["beneficiary_among"] = ("everyone",)
        ben = _most_stock(table, c, everyone, missing)
        ben.why = f"`nominee_forced_if {forced_if[0]}`: the victim holds {forced_if[0]}, " + ben.why
        return ben
    among = rules["beneficiary_among"][0]
    candidates = _related_names(table, c["victim"], among, missing)
    if candidates is None:
        return _candidates_not_known(among)
    rule = f"`beneficiary_among {among}`"
    for fact in rules["nominee_without"]:
        values, unknown = _fact_values(table, candidates, fact, missing)
        if unknown:
            return Beneficiary(None, f"`nominee_without {fact}`: not given for {', '.join(unknown)}", candidates)
        without = [n for n in candidates if values[n] == 0]
        if len(without) == 1:
            return Beneficiary(without[0], f"`nominee_without {fact}`: no {in_words(fact)} (the only one)",
                               without)
        if without:
            candidates, rule = without, f"`nominee_without {fact}`: no {in_words(fact)}"
    return _named_nominee(c, candidates, rule, missing)


def _named_nominee(c: dict, candidates: list[str], rule: str, missing: list[str]) -> Beneficiary:
    """The nominee the table names, among the candidates the rules leave (RULE says which)."""
    allowed = ", ".join(candidates) or "nobody"
    chosen = _victims_choice(c, candidates, missing, f"may not be the nominee: the rule {rule} allows only {allowed}")
    if chosen is None:
        return Beneficiary(None, f"the victim names a nominee among {allowed} ({rule}); the table does not say whom",
                           candidates)
    return Beneficiary(chosen, f"the victim's nominee ({rule})", candidates)


def _most_stock(table: Table, c: dict, rules: dict, missing: list[str]) -> Beneficiary:
    """The candidate ranked first by the declared facts (`beneficiary_rank`, most or fewest), a
    tie broken as `beneficiary_ties` says."""
    among = rules["beneficiary_among"][0]
    candidates = _related_names(table, c["victim"], among, missing)
    if candidates is None:
        return _candidates_not_known(among)
    if not candidates:
        return Beneficiary(None, "no candidate" + ("" if among == "others" else f" bordering the victim by {among}"))
    if len(candidates) == 1:  # a ranking of one needs none of the ranked facts
        return Beneficiary(candidates[0], "the only candidate" + ("" if among == "others"
                                                                else f" bordering the victim by {among}"), candidates)
    left, why = _ranked(table, candidates, rules, missing)
    if len(left) == 1:
        return Beneficiary(left[0], why, candidates)
    if not left:
        return Beneficiary(None, why, candidates)
    return _break_tie(table, c, rules["beneficiary_ties"][0], left, why, candidates, missing)


def _ranked(table: Table, candidates: list[str], rules: dict, missing: list[str]) -> tuple[list[str], str]:
    """The candidates first by the declared facts in turn (until one is left), and the ranking in
    words; nobody when a fact is not given (the words say for whom)."""
    fewest = rules["beneficiary_prefer"] == ("fewest",)
    left = list(candidates)
    said = []
    for fact in rules["beneficiary_rank"]:
        values, unknown = _fact_values(table, left, fact, missing)
        if unknown:
            return [], f"the most {in_words(fact)}, not given for {', '.join(unknown)}"
        best = min(values.values()) if fewest else max(values.values())
        left = [n for n in left if values[n] == best]
        said.append(f"{in_words(fact)} {best}")
        if len(left) == 1:
            break
    return left, ("fewest " if fewest else "most ") + ", then ".join(said)


def _break_tie(table: Table, c: dict, ties: str, left: list[str], why: str, candidates: list[str],
               missing: list[str]) -> Beneficiary:
    """The beneficiary among LEFT, tied on every ranked fact: the victim's choice or the first
    in A.S.T. order, as the rulebook's `beneficiary_ties` says."""
    if ties == "victim":
        return _tie_chosen(c, left, why, candidates, missing)
    unranked = [n for n in left if table.ranks.get(n) is None]
    if unranked:
        _add_missing(missing, [f"players.{n}.ast_rank" for n in unranked])
        return Beneficiary(None, f"{why}: tied between {', '.join(left)}, broken by the A.S.T. ranking", candidates)
    first = min(left, key=lambda n: table.ranks[n])
    return Beneficiary(first, f"{why}: tied with {', '.join(n for n in left if n != first)}, first in A.S.T. order",
                       candidates)


def _tie_chosen(c: dict, left: list[str], why: str, candidates: list[str], missing: list[str]) -> Beneficiary:
    """`beneficiary_ties victim`: the tied candidate the victim chooses, as the table names him."""
    chosen = _victims_choice(c, left, missing, f"is not among the tied candidates ({', '.join(left)})")
    if chosen is None:
        return Beneficiary(None, f"{why}: tied between {', '.join(left)}, and the victim chooses", candidates)
    return Beneficiary(chosen, f"{why}: tied with {', '.join(n for n in left if n != chosen)}, the victim's choice",
                       candidates)


def _primary_victims_by_name(module, kept: list[dict]) -> dict[str, set] | None:
    """Under `resolution { secondary_once per_name }`, who takes part in each calamity name: every
    primary victim of the name from the start (beneficiaries and secondary victims join as they
    come); None without the rule."""
    if module.TABLE_RULES["secondary_once"] != ("per_name",):
        return None
    taken: dict[str, set] = {}
    for c in kept:
        taken.setdefault(c["calamity"], set()).add(c["victim"])
    return taken


def _took_part(taken: dict[str, set] | None, r: Resolved) -> None:
    """The secondary victims and the beneficiary of a resolved calamity take part in its name."""
    if taken is None:
        return
    part = taken.setdefault(r.calamity, set())
    for name, _, _ in r.secondary:
        part.add(name)
    if r.beneficiary is not None and r.beneficiary.name is not None:
        part.add(r.beneficiary.name)


def _resolve_one(table: Table, c: dict, taken: dict | None = None) -> Resolved:
    missing: list[str] = []
    notes: list[str] = []
    # what naming the beneficiary lacks counts only if the calamity is not cancelled
    ben_missing: list[str] = []
    ben = _checked_beneficiary(table, c, ben_missing)
    roles = {"beneficiary": ben.name if ben is not None else None, "trader": c["traded_by"]}
    primary = resolve(table.module, c["calamity"], "primary", _primary_victim(table, c, roles))
    if primary.is_cancelled:
        ben = None  # no calamity, so nobody benefits: what naming him would need is not asked
    else:
        missing.extend(ben_missing)
    busy = taken.get(c["calamity"], set()) if taken is not None else set()
    secondary = _secondary(table, c, primary, roles, missing, notes, busy)
    for who, st in [(c["victim"], primary.state)] + [(name, r.state) for name, _, r in secondary]:
        _add_missing(missing, [_of_player(who, f) for f in st.missing])
    return Resolved(c["index"], c["calamity"], c["victim"], c["traded_by"], ben, primary, secondary, notes, missing)


def _primary_victim(table: Table, c: dict, roles: dict):
    """The primary victim's state for this calamity: seated at the table, with the beneficiary
    and the trader (ROLES) known, and the `traded_by` fact the table gives for this card."""
    return table.fresh(c["victim"], Seat(table, c["victim"], roles), {"traded_by": c["traded_by"] or ""})


def _checked_beneficiary(table: Table, c: dict, missing: list[str]) -> Beneficiary | None:
    """The calamity's beneficiary by the rules; a different one named by the table is an error."""
    ben = beneficiary(table, c, missing)
    named = c["beneficiary"]
    if named is not None and (ben is None or ben.name not in (None, named)):
        said = "has no beneficiary" if ben is None else f"names {ben.name} ({ben.why})"
        raise StateError(f"calamities[{c['index']}] ({c['calamity']}): `beneficiary` is {named}, but the rule {said}")
    return ben


class _SecondaryVictims:
    """Who may be a secondary victim of one calamity, and what each suffers."""

    def __init__(self, table: Table, c: dict, roles: dict, busy: set, allowed: set | None):
        self.table = table
        self.c = c
        self.roles = roles
        self.busy = busy
        self.allowed = allowed
        self.cal = table.module.CALAMITIES[c["calamity"]]
        self.where = f"calamities[{c['index']}] ({c['calamity']})"

    def resolve_for(self, name: str, amount: int | None):
        st = self.table.fresh(name, Seat(self.table, name, self.roles))
        st.assigned = amount
        try:
            return resolve(self.table.module, self.c["calamity"], "secondary", st)
        except StateError as exc:
            raise StateError(f"{self.where}: `secondary.{name}`: {exc}")

    def ineligible(self, name: str) -> str | None:
        """Why this player may not be a secondary victim, or None."""
        if name == self.c["victim"]:
            return "the primary victim"
        if name in self.busy:
            return f"already a victim or the beneficiary of a {self.c['calamity']} this turn"
        if self.allowed is not None and name not in self.allowed:
            among = self.cal["resolution"]["secondary_among"][0]
            return f"not among the victim's {among} players (`secondary_among {among}`)"
        for role in self.cal["exclude"]:
            if self.roles.get(role) == name:
                return f"the {role}"
        probe = self.resolve_for(name, None)
        return probe.excluded[1] if probe.excluded else None

    def check_named(self, given: list) -> None:
        """Every player the table names may be a secondary victim."""
        for name, _amount in given:
            why = self.ineligible(name)
            if why is not None:
                raise StateError(f"{self.where}: `secondary` names {name}, who may not be a secondary victim: {why}")

    def unnamed(self, count, share, effects: list, missing: list[str], notes: list[str]) -> list:
        """The secondary victims when the table names none: the victim's to choose (`assign ask`:
        missing), or the edition's default (`assign ast`: the eligible players in A.S.T. order,
        each the most allowed)."""
        if self.cal["resolution"]["assign"][0] == "ask":
            missing.append(f"calamities[{self.c['index']}].secondary")
            notes.append("the primary victim assigns the secondary losses: the table does not say to whom")
            return []
        table = self.table
        seats = list(table.players)
        names = [n for n in sorted(seats, key=lambda n: (table.ranks.get(n) or float("inf"), seats.index(n)))
                 if self.ineligible(n) is None]
        given = _default_assignment(names, count, share, effects[0][1].get("amount") if effects else None)
        notes.append("secondary victims chosen by the edition's default: "
                     + ", ".join(n if a is None else f"{n} ({a})" for n, a in given) + " (A.S.T. order)")
        return given


def _secondary_victims(table: Table, c: dict, roles: dict, busy: set, missing: list[str]) -> _SecondaryVictims | None:
    """The choice for calamity C, limited by `secondary_among` to the victim's related players
    (e.g. his trade block); None when the table does not say who they are (recorded in MISSING)."""
    among = table.module.CALAMITIES[c["calamity"]]["resolution"]["secondary_among"][0]
    if among == "others":
        return _SecondaryVictims(table, c, roles, busy, None)
    allowed = _related_names(table, c["victim"], among, missing)
    return None if allowed is None else _SecondaryVictims(table, c, roles, busy, set(allowed))


def _secondary(table: Table, c: dict, primary, roles: dict, missing: list[str],
               notes: list[str], busy: set | None = None) -> list:
    """The secondary victims: the table's assignment, checked, or the declared default policy."""
    if primary.assignment is None:
        if c["secondary"]:
            raise StateError(f"calamities[{c['index']}] ({c['calamity']}): `secondary` names secondary victims, "
                             f"but {c['calamity']} has none")
        return []
    count, share, effects, _line = primary.assignment
    if primary.is_cancelled or _none_to_assign(count, share):
        return []
    victims = _secondary_victims(table, c, roles, busy if busy is not None else set(), missing)
    if victims is None:
        return []
    given = c["secondary"]
    if given is None:
        given = victims.unnamed(count, share, effects, missing, notes)
    else:
        victims.check_named(given)
        _check_assignment(given, count, share, victims.where, notes)
    return [(name, amount, victims.resolve_for(name, amount)) for name, amount in given]


def _none_to_assign(count, share) -> bool:
    """No secondary victim to name: none assigned, or how many depends on a missing fact (already
    named by the primary's answer)."""
    return isinstance(count, Unknown) or isinstance(share, Unknown) or count == 0 or share == 0


def _default_assignment(names: list[str], count: int | None, share: int | None, per_player) -> list:
    """The default ("ast") assignment: NAMES (eligible, in A.S.T. order) each take the most
    allowed (PER_PLAYER when it is a number) until COUNT players or the SHARE are used up."""
    if count is not None:
        names = names[:count]
    if share is None:
        return [(n, None) for n in names]
    given = []
    left = share
    for n in names:
        if left <= 0:
            break
        amount = min(left, per_player) if isinstance(per_player, int) else left
        left = left - amount
        given.append((n, amount))
    return given


def _check_assignment(given: list, count: int | None, share: int | None, where: str, notes: list[str]) -> None:
    """The table's own assignment against how many players and how much the primary victim assigns:
    too many or too much is an error, too few or too little a note."""
    if count is not None and len(given) > count:
        raise StateError(f"{where}: `secondary` names {len(given)} players, but the primary victim assigns "
                         f"to {count}")
    if share is not None:
        _check_share(given, share, where, notes)
    elif count is not None and len(given) < count:
        notes.append(f"{len(given)} of {count} secondary victims named")


def _check_share(given: list, share: int, where: str, notes: list[str]) -> None:
    """The amounts the table assigns against the SHARE to assign: each given, not more in total."""
    if any(a is None for _, a in given):
        raise StateError(f"{where}: `secondary` must say how much each player is assigned ({share} in total)")
    total = sum(a for _, a in given)
    if total > share:
        raise StateError(f"{where}: `secondary` assigns {total}, more than the {share} to share")
    if total < share:
        notes.append(f"{share - total} of the {share} to share is not assigned")
