"""What a change of the rules does to players: `civdsl diff A B --impact`.

`diff` says what a house rule writes ("Famine: primary damage 10 -> 8"); the impact says what it
does. For every calamity and role, every combination of the advances whose modifiers touch it
(in A or in B) is crossed with a grid over the player facts its rules read (FACT_GRID), and each
situation is resolved by both compiled rulebooks; the same for the price of each advance over
the sets of advances that credit it (bought alone and with each advance of its group), and for
each A.S.T. track over holdings and the facts its epochs read. A space of at most EXHAUSTIVE
situations is walked whole; a larger one is sampled (a stated sample size, reproducible with a
seed). A situation either
rulebook refuses as a state file (an A.S.T. position past the finish, say) is left out.

Per item the report gives how many situations change, by how much (mean, least and most), the
situation that changes most, and the rule lines of A and of B that differ for it. An answer that
is incomplete on either side (it depends on a fact the grid does not vary) is counted apart and
never compared. An item whose rules are the same in A and B (the same serialized rules, and the
same edition-wide rules) cannot answer differently: it is listed as unchanged without being run.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

from . import pricing, runtime, sourcemap, standing
from . import vocabulary as vocab
from .model import Calamity, Edition
from .serialize import advance_data, ast_data, calamity_data, to_data
from .syntax import Call, Name, Str

# The values an int fact takes in the grid: none, few, the amounts calamities print, more than any.
FACT_GRID = {"int": (0, 1, 3, 6, 10, 15, 25), "bool": (False, True)}
CARD_GRID = (0, 1, 2, 4)  # cards of a commodity a rule reads (`cards("Grain")`)
EXHAUSTIVE = 4096  # situations per item walked whole; a larger space is sampled
SAMPLE = 2048  # situations per item drawn from a larger space
PRICE_HELD_SETS = 64  # held sets per advance priced in a sampled space (all of them when there are no more)
PRICE_MOST_HELD = 6  # a drawn held set has at most this many of the advance's creditors
EPOCH_SITUATIONS = 192  # holdings and cities drawn per A.S.T. track whose space is sampled
ROLES = ("primary", "secondary")
# The edition-wide rules a calamity's rules may read (the rest, such as the credit policy, never
# changes what a calamity does).
CALAMITY_READS = ("consts", "tables", "options", "amounts", "resolution", "groups")
# The parts of the serialized model that are not rules (names, prose, the items compared one by one).
_NOT_RULES = {"format", "id", "name", "source", "files", "bases", "notes", "errata", "asserts", "rulings",
              "overrules", "advances", "calamities", "commodities", "asts", "civilizations", "score", "scenarios",
              "path", "line", "text", "summary", "aka", "doc"}


@dataclass
class Stats:
    """How much a measure changes over the situations that change: mean, least and most."""

    count: int = 0
    total: float = 0
    low: float | None = None
    high: float | None = None

    def add(self, delta: float) -> None:
        self.count += 1
        self.total += delta
        self.low = delta if self.low is None else min(self.low, delta)
        self.high = delta if self.high is None else max(self.high, delta)

    def to_dict(self) -> dict:
        return {"changed": self.count, "mean": round(self.total / self.count, 3) if self.count else None,
                "min": self.low, "max": self.high}


@dataclass
class ItemImpact:
    kind: str  # calamity, price, epoch
    item: str  # the calamity, advance or track
    role: str | None  # a calamity's role
    measure: str  # what is compared, in words
    same_rules: bool = False  # the same rules in A and B: not run
    space: int = 0  # situations in the whole space
    situations: int = 0  # situations resolved in both
    exhaustive: bool = True
    incomplete: int = 0  # answers incomplete on either side: counted apart, never compared
    changed: int = 0
    deltas: dict[str, Stats] = field(default_factory=dict)  # per measured value (effect kind, price, epoch)
    worst: dict | None = None  # the situation that changes most
    lines_a: list[str] = field(default_factory=list)
    lines_b: list[str] = field(default_factory=list)
    varied: list[str] = field(default_factory=list)  # facts and advances the grid varies
    not_varied: list[str] = field(default_factory=list)  # facts its rules read that the grid cannot vary
    walked: list[dict] = field(default_factory=list, repr=False)  # the situations resolved, as state files say them

    def to_dict(self) -> dict:
        return {"kind": self.kind, "item": self.item, "role": self.role, "measure": self.measure,
                "same_rules": self.same_rules, "space": self.space, "situations": self.situations,
                "exhaustive": self.exhaustive, "compared": self.situations - self.incomplete,
                "incomplete": self.incomplete, "changed": self.changed,
                "deltas": {k: v.to_dict() for k, v in self.deltas.items()}, "worst": self.worst,
                "lines_a": self.lines_a, "lines_b": self.lines_b, "varied": self.varied,
                "not_varied": self.not_varied}


@dataclass
class Impact:
    a: str
    b: str
    seed: int
    items: list[ItemImpact]

    def changed(self) -> list[ItemImpact]:
        return [i for i in self.items if i.changed]

    def uncompared(self) -> list[ItemImpact]:
        """Items with incomplete answers and no situation that changes among the others."""
        return [i for i in self.items if i.incomplete and not i.changed]

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "seed": self.seed, "exhaustive_limit": EXHAUSTIVE, "sample_size": SAMPLE,
                "items": [i.to_dict() for i in self.items]}


# --- what the rules read --------------------------------------------------------------------

def _stripped(value):
    """A serialized part of the model without its lines and prose: what the rules say."""
    if isinstance(value, dict):
        return {k: _stripped(v) for k, v in value.items() if k not in _NOT_RULES}
    if isinstance(value, list):
        return [_stripped(v) for v in value]
    return value


def _edition_rules(ed: Edition) -> dict:
    return _stripped(to_data(ed))


def model_nodes(root):
    """Every syntax node reachable from a model object."""
    stack, seen = [root], set()
    while stack:
        x = stack.pop()
        if x is None or isinstance(x, (str, int, float, bool)) or id(x) in seen:
            continue
        seen.add(id(x))
        yield x
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple, set, frozenset)):
            stack.extend(x)
        elif hasattr(x, "__dict__"):
            stack.extend(vars(x).values())


def facts_read(*roots) -> tuple[list[str], list[str]]:
    """(player facts, commodities by `cards("X")`) that the rules under `roots` read."""
    facts, cards = set(), set()
    for node in (n for root in roots for n in model_nodes(root)):
        if isinstance(node, Name) and (node.parts[0] in vocab.FACTS or node.parts[0] in vocab.DERIVED_FACTS):
            facts.add(node.parts[0])
        elif isinstance(node, Call) and node.name == "cards" and node.args and isinstance(node.args[0], Str):
            cards.add(node.args[0].value)
    return sorted(facts), sorted(cards)


def bound_facts(module, calamity: str) -> set[str]:
    """The holdings that bound the calamity's effects (`amounts { bound holdings }`), as an answer
    given no facts names them."""
    out = set()
    with sourcemap.rules_of(module):
        for role in ROLES:
            r = sourcemap.resolve(module, calamity, role, runtime.PlayerState(module, [], {}, {}))
            out.update(args["bound"] for _k, args, _l in r._effects if isinstance(args.get("bound"), str))
    return out


def _reads_derived(root) -> bool:
    """Whether rules read names derived from the advances held (`advance_vp`, `groups_held`, ...):
    their answers then depend on the advances' own data too."""
    return any(isinstance(n, Name) and n.parts[0] in vocab.DERIVED_NAMES for n in model_nodes(root))


# --- situations ---------------------------------------------------------------------------------

def _space(axes: list[tuple[str, tuple]], rng: random.Random) -> tuple[int, bool, list[tuple]]:
    """(size of the whole space, walked whole?, the situations: one value per axis)."""
    size = 1
    for _, values in axes:
        size *= len(values)
    if size <= EXHAUSTIVE:
        return size, True, list(itertools.product(*(v for _, v in axes)))
    drawn = {tuple(rng.choice(v) for _, v in axes) for _ in range(SAMPLE * 2)}
    return size, False, sorted(drawn, key=repr)[:SAMPLE]


def _situation_words(axes: list[tuple[str, tuple]], values: tuple) -> dict:
    """A situation as a state file says it: holds, facts, cards."""
    state: dict = {"holds": []}
    for (name, _), v in zip(axes, values):
        if name.startswith("holds:"):
            if v:
                state["holds"].append(name[6:])
        elif name.startswith("cards:"):
            state.setdefault("commodities", {})[name[6:]] = v
        else:
            state[name] = v
    return state


def possible_situation(modules, state: dict, known: dict) -> bool:
    """Whether both rulebooks accept the situation's facts as a state file (an A.S.T. position
    past the finish, say, is no situation a player can be in); each set of facts checked once."""
    from .factchecks import check_ast_facts, check_purchase_facts
    from .state import StateError
    from .statecheck import check_state
    from .vocabulary import FACTS

    facts = {k: v for k, v in state.items() if k not in ("holds", "buy")}
    key = repr(sorted(facts.items()))
    if key not in known:
        try:
            for m in modules:
                clean = check_state(dict(facts), FACTS, m.ADVANCES, m.COMMODITIES, m.GROUPS, "situation")
                check_ast_facts(clean, getattr(m, "CIVILIZATIONS", {}), m.AST, "situation")
                check_purchase_facts(clean, m, "situation")
            known[key] = True
        except StateError:
            known[key] = False
    return known[key]


def _player(module, state: dict) -> runtime.PlayerState:
    facts = {k: v for k, v in state.items() if k != "holds"}
    return runtime.PlayerState(module, list(state["holds"]), facts, {})


# --- calamities ---------------------------------------------------------------------------------

def _calamity_answer(module, name: str, role: str, state: dict) -> tuple[bool, dict]:
    """(complete, {measured value: number}) of one victim's resolution."""
    r = sourcemap.resolve(module, name, role, _player(module, state))
    if r.state.missing:
        return False, {}
    out = {"cancelled": int(r.is_cancelled), "immune": int(bool(r.immune))}
    for kind, args, _line in r._effects:
        taken = args.get("taken", args.get("amount", True))
        out[kind] = int(taken) if isinstance(taken, (bool, int)) else taken
    return True, out


def _role_parts(c: Calamity, role: str) -> dict:
    """The serialized parts of a calamity that decide a role's answer, by a key naming each."""
    data = calamity_data(c)
    parts = {f"{role} effects": _stripped(data.get("primary" if role == "primary" else "secondary"))}
    for i, m in enumerate(c.modifiers):
        if m.role in (role, "any"):
            parts[f"modifier {_stripped(data['modifiers'][i])}"] = m
    for key in ("cancel", "exclusions", "amounts"):
        parts[key] = _stripped(data.get(key))
    return parts


def _changed_lines(ca: Calamity, cb: Calamity, role: str) -> tuple[list[str], list[str]]:
    """The rule lines of A and of B for the parts of the role's rules that differ."""
    pa, pb = _role_parts(ca, role), _role_parts(cb, role)
    effects_field = "primary" if role == "primary" else "secondary"

    def lines(mine: dict, other: dict, c: Calamity) -> list[str]:
        out = []
        for key, value in mine.items():
            if key in other and (key.startswith("modifier") or other[key] == value):
                continue
            span = value.span if key.startswith("modifier") else c.field_spans.get(effects_field if "effects" in key
                                                                                   else key)
            if span is not None:
                out.append(f"{span.path}:{span.line}")
        return sorted(set(out), key=_line_order)

    return lines(pa, pb, ca), lines(pb, pa, cb)


def _line_order(where: str):
    path, _, line = where.rpartition(":")
    return (path, int(line)) if line.isdigit() else (where, 0)


def _calamity_item(a, b, eda: Edition, edb: Edition, name: str, role: str, rng: random.Random,
                   same_rules: bool, advances_same: bool) -> ItemImpact:
    ca, cb = eda.calamities[name], edb.calamities[name]
    item = ItemImpact("calamity", name, role, "what the victim loses")
    axes = _calamity_axes(item, a, b, eda, edb, role)
    if same_rules and _stripped(calamity_data(ca)) == _stripped(calamity_data(cb)) and (
            advances_same or not (_reads_derived(ca) or _reads_derived(cb))):
        item.same_rules = True
        return item
    item.space, item.exhaustive, situations = _space(axes, rng)
    known: dict = {}
    situations = [s for s in situations if possible_situation((a, b), _situation_words(axes, s), known)]
    item.lines_a, item.lines_b = _changed_lines(ca, cb, role)
    answers = []
    for module in (a, b):
        with sourcemap.rules_of(module):
            answers.append([_calamity_answer(module, name, role, _situation_words(axes, s)) for s in situations])
    _compare(item, situations, *answers, lambda s: _situation_words(axes, s))
    return item


def _calamity_axes(item: ItemImpact, a, b, eda: Edition, edb: Edition, role: str) -> list:
    """The axes of a calamity's grid for one role: each advance a modifier of the role names (held
    or not), each fact read that has a grid of values, each commodity's cards; the facts read
    without a grid are named on the item as not varied."""
    name = item.item
    ca, cb = eda.calamities[name], edb.calamities[name]
    advances = sorted({x for c in (ca, cb) for m in c.modifiers if m.role in (role, "any") for x in m.advances
                       if x in eda.advances and x in edb.advances})
    facts, cards = facts_read(ca, cb)
    facts = sorted(set(facts) | bound_facts(a, name) | bound_facts(b, name))
    grid = [f for f in facts if vocab.FACTS.get(f) is not None and vocab.FACTS[f].type in FACT_GRID
            or f in vocab.DERIVED_FACTS]
    item.not_varied = [f for f in facts if f not in grid]
    item.varied = advances + grid + [f"cards of {c}" for c in cards]
    return ([(f"holds:{x}", (False, True)) for x in advances]
            + [(f, FACT_GRID[vocab.FACTS[f].type] if f in vocab.FACTS else FACT_GRID["int"]) for f in grid]
            + [(f"cards:{c}", CARD_GRID) for c in cards])


def _compare(item: ItemImpact, situations, answers_a, answers_b, words) -> None:
    """Count and measure the situations whose answers differ; incomplete ones apart."""
    item.situations = len(situations)
    item.walked = [words(s) for s in situations]
    worst = None
    for s, (ok_a, x), (ok_b, y) in zip(situations, answers_a, answers_b):
        if not (ok_a and ok_b):
            item.incomplete += 1
            continue
        if x == y:
            continue
        item.changed += 1
        size = 0
        for key in sorted(set(x) | set(y)):
            u, v = x.get(key, 0), y.get(key, 0)
            if u != v and isinstance(u, (int, float)) and isinstance(v, (int, float)):
                item.deltas.setdefault(key, Stats()).add(v - u)
                size += abs(v - u)
        if worst is None or size > worst[0]:
            worst = (size, s, x, y)
    if worst is not None:
        _, s, x, y = worst
        item.worst = {"situation": words(s), "a": x, "b": y}


# --- prices ---------------------------------------------------------------------------------------

def creditors_of(ed: Edition, target: str) -> list[str]:
    """The advances whose credits count towards TARGET (by group or by name)."""
    adv = ed.advances[target]
    groups = set(adv.groups)
    return sorted(n for n, a in ed.advances.items() if n != target and (
        groups & set(a.credits) or any(c.target == target for c in a.specific)))


def _price(module, held: list[str], buy: list[str]) -> int | None:
    result = pricing.prices(module, held, buy, None)
    return result["items"][0]["price"] if result["complete"] else None


def _price_item(a, b, eda: Edition, edb: Edition, name: str, rng: random.Random) -> ItemImpact:
    item = ItemImpact("price", name, None, "the price after credits")
    in_a, in_b = set(creditors_of(eda, name)), set(creditors_of(edb, name))
    creditors = sorted(in_a & in_b | (in_a ^ in_b) & set(eda.advances) & set(edb.advances))
    peers = sorted(n for n in eda.advances if n != name and n in edb.advances
                   and set(eda.advances[n].groups) & set(eda.advances[name].groups))
    item.varied = creditors
    axes = [(f"holds:{x}", (False, True)) for x in creditors]
    situations, buys = _purchases(item, creditors, peers, rng)
    answers = []
    for module in (a, b):
        with sourcemap.rules_of(module):
            answers.append([_priced(module, [x for x, h in zip(creditors, s) if h], buy)
                            for s, buy in zip(situations, buys)])
    item.lines_a, item.lines_b = _advance_lines(eda, edb, [name, *creditors])
    _compare(item, list(zip(situations, map(tuple, buys))), *answers,
             lambda s: {**_situation_words(axes, s[0]), "buy": list(s[1])})
    return item


def _purchases(item: ItemImpact, creditors: list[str], peers: list[str],
               rng: random.Random) -> tuple[list[tuple[bool, ...]], list[list[str]]]:
    """(the held sets, what each buys): every held set of the creditors, the advance bought alone
    and with each advance of its group not held; past the exhaustive bound, a sample of held sets
    with one companion each. Sets the item's space and whether it is exhaustive."""
    name = item.item
    held_space = 2 ** len(creditors)
    item.space = held_space * (1 + len(peers))
    item.exhaustive = item.space <= EXHAUSTIVE
    situations, buys = [], []
    if item.exhaustive:
        for s in itertools.product((False, True), repeat=len(creditors)):
            held = {x for x, h in zip(creditors, s) if h}
            for buy in [[name]] + [[name, p] for p in peers if p not in held]:
                situations.append(s)
                buys.append(buy)
        item.space = len(situations)  # a held advance is never bought
        return situations, buys
    held_sets = (list(itertools.product((False, True), repeat=len(creditors))) if held_space <= PRICE_HELD_SETS
                 else sorted({_few(rng, len(creditors)) for _ in range(PRICE_HELD_SETS * 2)},
                             key=repr)[:PRICE_HELD_SETS])
    for s in held_sets:
        held = [x for x, h in zip(creditors, s) if h]
        companions = [p for p in peers if p not in held]
        for buy in ([name], [name, rng.choice(companions)] if companions else None):
            if buy is not None:
                situations.append(s)
                buys.append(buy)
    return situations, buys


def _few(rng: random.Random, n: int) -> tuple[bool, ...]:
    """A held set of up to PRICE_MOST_HELD of N creditors (most purchases are made holding a few)."""
    chosen = set(rng.sample(range(n), rng.randint(0, min(n, PRICE_MOST_HELD))))
    return tuple(i in chosen for i in range(n))


def _priced(module, held: list[str], buy: list[str]) -> tuple[bool, dict]:
    price = _price(module, held, buy)
    return (price is not None), ({"price": price} if price is not None else {})


def _advance_lines(eda: Edition, edb: Edition, names: list[str]) -> tuple[list[str], list[str]]:
    out_a, out_b = [], []
    for n in names:
        x, y = eda.advances.get(n), edb.advances.get(n)
        if x is None or y is None:
            continue
        dx, dy = _stripped(advance_data(x)), _stripped(advance_data(y))
        for key in sorted(k for k in set(dx) | set(dy) if dx.get(k) != dy.get(k)):
            for adv, out in ((x, out_a), (y, out_b)):
                span = adv.field_spans.get(_ADVANCE_FIELD_SPANS.get(key, key), adv.span)
                out.append(f"{span.path}:{span.line}")
    if (eda.credit_policy, list(eda.credit_variants)) != (edb.credit_policy, list(edb.credit_variants)):
        out_a.append(f"{eda.span.path}: credit policy")
        out_b.append(f"{edb.span.path}: credit policy")
    return sorted(set(out_a), key=_line_order), sorted(set(out_b), key=_line_order)


# the field span of each serialized key of an advance that differs (fields.py words)
_ADVANCE_FIELD_SPANS = {"specific": "credit", "abilities": "ability"}


# --- epochs ---------------------------------------------------------------------------------------

def _epoch_answer(module, track: str, state: dict) -> tuple[bool, dict]:
    e = standing.epochs(module, track, _player(module, state))
    # the epoch reached is incomplete only where the first epoch not surely met may be met; a fact
    # read elsewhere (the marker's position, for a step back) does not change it
    if next((x["met"] for x in e["epochs"] if x["met"] is not True), False) is None:
        return False, {}
    reached = [x["epoch"] for x in e["epochs"]].index(e["reached"]) if e["reached"] else -1
    return True, {"epoch reached": reached}


def _epoch_item(a, b, eda: Edition, edb: Edition, track: str, rng: random.Random) -> ItemImpact:
    ta, tb = eda.asts[track], edb.asts[track]
    item = ItemImpact("epoch", track, None, "the epoch reached (0 = the first)")
    names = sorted(set(eda.advances) & set(edb.advances))
    facts, _cards = facts_read(ta, tb)
    grid = [f for f in facts if f in vocab.FACTS and vocab.FACTS[f].type in FACT_GRID]
    item.not_varied = [f for f in facts if f not in grid]
    item.varied = ["advances held"] + grid
    axes_facts = [(f, FACT_GRID[vocab.FACTS[f].type]) for f in grid]
    fact_values = list(itertools.product(*(v for _, v in axes_facts)))
    item.space = 2 ** len(names) * len(fact_values)
    item.exhaustive = item.space <= EXHAUSTIVE
    situations = []
    if item.exhaustive:
        for held_flags in itertools.product((False, True), repeat=len(names)):
            held = tuple(n for n, h in zip(names, held_flags) if h)
            situations += [(held, values) for values in fact_values]
    else:
        for _ in range(EPOCH_SITUATIONS):
            size = rng.randint(0, len(names))
            held = tuple(sorted(rng.sample(names, size)))
            situations.append((held, tuple(rng.choice(v) for _, v in axes_facts)))
    situations = sorted(set(situations), key=repr)

    def state(s) -> dict:
        held, values = s
        return {"holds": list(held), **dict(zip(grid, values))}

    known: dict = {}
    situations = [s for s in situations if possible_situation((a, b), state(s), known)]

    answers = []
    for module in (a, b):
        with sourcemap.rules_of(module):
            answers.append([_epoch_answer(module, track, state(s)) for s in situations])
    if _stripped(ast_data(ta)) != _stripped(ast_data(tb)):
        item.lines_a, item.lines_b = [f"{ta.span.path}:{ta.span.line}"], [f"{tb.span.path}:{tb.span.line}"]
    _compare(item, situations, *answers, state)
    return item


# --- the whole comparison ------------------------------------------------------------------------

def impact(a, b, eda: Edition, edb: Edition, seed: int = 0) -> Impact:
    """Every calamity and role, every advance's price and every A.S.T. track that both rulebooks
    have, resolved in both over the situations described above. `a` and `b` are the compiled
    modules, `eda` and `edb` the editions they were compiled from."""
    rng = random.Random(seed)
    ra, rb = _edition_rules(eda), _edition_rules(edb)
    same_edition = ra == rb
    # what a calamity's rules may read of the edition-wide rules
    same_for_calamities = all(ra.get(k) == rb.get(k) for k in CALAMITY_READS)
    advances_same = same_edition and set(eda.advances) == set(edb.advances) and all(
        _stripped(advance_data(x)) == _stripped(advance_data(edb.advances[n])) for n, x in eda.advances.items())
    items: list[ItemImpact] = []
    for name in (n for n in eda.calamities if n in edb.calamities):
        for role in ROLES:
            items.append(_calamity_item(a, b, eda, edb, name, role, rng, same_for_calamities, advances_same))
    for name in (n for n in eda.advances if n in edb.advances):
        if advances_same:
            items.append(ItemImpact("price", name, None, "the price after credits", same_rules=True))
        else:
            items.append(_price_item(a, b, eda, edb, name, rng))
    for track in (t for t in eda.asts if t in edb.asts):
        if advances_same and _stripped(ast_data(eda.asts[track])) == _stripped(ast_data(edb.asts[track])):
            items.append(ItemImpact("epoch", track, None, "the epoch reached (0 = the first)", same_rules=True))
        else:
            items.append(_epoch_item(a, b, eda, edb, track, rng))
    return Impact(eda.id, edb.id, seed, items)


# --- in words -------------------------------------------------------------------------------------

def item_title(i: ItemImpact) -> str:
    if i.kind == "calamity":
        return f"{i.item} ({i.role} victim)"
    return f"price of {i.item}" if i.kind == "price" else f"A.S.T. track {i.item}"


def measure_words(key: str) -> str:
    """A compared value in a player's words ("points of damage", "price", "cancelled")."""
    kind = vocab.EFFECT_KINDS.get(key)
    words = kind.noun(None) if kind else None
    return words[1] if words else key.replace("_", " ")


def situation_text(state: dict) -> str:
    """A situation as a player says it: "holding Pottery; 6 unit points; buying Agriculture"."""
    from .phrases import name_words

    parts = ["holding " + ", ".join(state["holds"]) if state.get("holds") else "holding no advance"]
    for key, value in state.items():
        if key == "holds":
            continue
        if key == "commodities":
            parts += [f"{n} {c} cards" for c, n in value.items()]
        elif key == "buy":
            parts.append("buying " + ", ".join(value))
        elif isinstance(value, bool):
            parts.append(f"{name_words(key)}: {'yes' if value else 'no'}")
        else:
            parts.append(f"{value} {name_words(key)}")
    return "; ".join(parts)


def _number(x) -> str:
    text = f"{round(x, 2):+g}" if isinstance(x, (int, float)) else str(x)
    return text.replace("-", "\u2212")


def change_text(i: ItemImpact) -> str:
    """By how much: per compared value, the mean over the situations that change and the range."""
    return "; ".join(f"{measure_words(k)}: mean {_number(s.total / s.count)}, from {_number(s.low)} to "
                     f"{_number(s.high)}" for k, s in sorted(i.deltas.items()) if s.count)


def worst_text(i: ItemImpact) -> str:
    if not i.worst:
        return ""
    a, b = i.worst["a"], i.worst["b"]
    moves = [f"{measure_words(k)} {a.get(k, 0)} \u2192 {b.get(k, 0)}" for k in sorted(set(a) | set(b))
             if a.get(k, 0) != b.get(k, 0)]
    return f"{situation_text(i.worst['situation'])}: {', '.join(moves)}"


def coverage_text(i: ItemImpact) -> str:
    how = "every situation" if i.exhaustive else f"a sample of {i.situations} of {i.space} situations"
    apart = f"; {i.incomplete} incomplete, counted apart" if i.incomplete else ""
    return f"{i.changed} of {i.situations} situations change ({how}{apart})"


def render_text(imp: Impact) -> str:
    changed = imp.changed()
    same = sum(1 for i in imp.items if i.same_rules)
    out = [f"Impact of {imp.b} against {imp.a} (seed {imp.seed}): {len(changed)} of {len(imp.items)} items "
           f"change for players", ""]
    for i in changed:
        out.append(f"{item_title(i)}: {i.measure}")
        out.append(f"  {coverage_text(i)}")
        if i.changed:
            out.append(f"  {change_text(i)}")
            out.append(f"  most changed: {worst_text(i)}")
        if i.lines_a or i.lines_b:
            out.append(f"  rules: {imp.a}: {', '.join(i.lines_a) or 'none'}; {imp.b}: {', '.join(i.lines_b) or 'none'}")
        if i.not_varied:
            out.append(f"  not varied: {', '.join(i.not_varied)}")
        out.append("")
    apart = imp.uncompared()
    if apart:
        out.append("Incomplete answers in A or B, counted apart (no situation compared changes):")
        out += [f"  {item_title(i)}: {i.incomplete} of {i.situations} situations"
                + (f"; the grid does not vary {', '.join(i.not_varied)}" if i.not_varied else "") for i in apart]
        out.append("")
    unchanged = len(imp.items) - len(changed) - len(apart)
    out.append(f"Unchanged: {unchanged} items ({same} with the same rules in both, not resolved; "
               f"{unchanged - same} resolved, no situation changes)")
    return "\n".join(out) + "\n"


