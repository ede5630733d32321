"""Facts the charts derive from the model, so that nothing is typed twice in a rulebook.

- which way a modifier pushes a calamity (worse or better for its victim), from its
  operations and the calamity's base values;
- which calamities an advance softens or worsens, read off the calamities' modifiers;
- what one held advance credits towards another under the edition's credit policy;
- chains of specific credits, and cost bands for the strategy explorer.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import describe
from .. import vocabulary as vocab
from ..model import Advance, Calamity, Edition, Effect, EffectBranch, Modifier, ModifierOp
from ..references import uses_in
from ..syntax import Call, ChangeOp, ImmuneOp, Neg, NodeVisitor, Num, OptionOp, Str

# --- direction of a modifier --------------------------------------------------------------

# Parameters where a larger value is better for the victim (what the victim keeps or picks).
# The vocabulary says so in the parameter's doc ("cities kept"); by_victim is the victim's share.
_MORE_IS_BETTER_EXTRA = {("faction_split", "by_victim")}


def more_is_better(kind: str | None, param: str | None) -> bool:
    k = vocab.EFFECT_KINDS.get(kind or "")
    if k is None:
        return False
    name = param or k.main
    if (kind, name) in _MORE_IS_BETTER_EXTRA:
        return True
    p = k.param(name) if name else None
    return bool(p and "kept" in p.doc.split())


def _literal(e) -> int | None:
    if isinstance(e, Num):
        return e.value
    if isinstance(e, Neg) and isinstance(e.operand, Num):
        return -e.operand.value
    return None


def _effects(items):
    for e in items:
        if isinstance(e, EffectBranch):
            yield from _effects(e.then)
            yield from _effects(e.otherwise)
        elif isinstance(e, Effect):
            yield e


def base_values(cal: Calamity, role: str, kind: str, param: str | None) -> list[int | None]:
    """The calamity's own values of KIND.PARAM for the victims of ROLE (None where not literal)."""
    k = vocab.EFFECT_KINDS.get(kind)
    name = param or (k.main if k else "amount")
    return [_base_value(e, k, name) for pool in _victim_effects(cal, role) for e in _effects(pool) if e.kind == kind]


def _victim_effects(cal: Calamity, role: str) -> list[list]:
    """The calamity's effects on the victims of ROLE ("any": primary and secondary)."""
    pools = []
    if role in ("primary", "any"):
        pools.append(cal.primary)
    if role in ("secondary", "any") and cal.secondary is not None:
        pools.append(cal.secondary.effects)
    return pools


def _base_value(e: Effect, k, name: str) -> int | None:
    """The effect's value of parameter NAME: its default where the effect leaves it out, None where
    it is not a literal."""
    raw = e.args.get(name)
    if raw is not None:
        return _literal(raw)
    p = k.param(name) if k else None
    return p.default if p is not None and isinstance(p.default, int) else None


class _Direction(NodeVisitor):
    """Which way each modifier operation type moves things for the victim, one `visit_<Op>` each."""

    def visit_ImmuneOp(self, o: ImmuneOp, cal: Calamity, role: str) -> str:
        return "better"

    visit_CancelOp = visit_ImmuneOp

    def visit_OptionOp(self, o: OptionOp, cal: Calamity, role: str) -> str:
        return "choice"

    visit_StopOp = visit_OptionOp

    def visit_ChangeOp(self, o: ChangeOp, cal: Calamity, role: str) -> str:
        up_is_better = more_is_better(o.kind, o.param)
        if o.op == "cap":
            return "worse" if up_is_better else "better"
        if o.op == "set":
            grows = _set_grows(o, cal, role)
            if grows is None:
                return "mixed"
        else:  # add or prevent: a negative amount turns the change around
            amount = _literal(o.amount)
            grows = (o.op == "prevent") if amount is not None and amount < 0 else (o.op == "add")
        return "better" if grows == up_is_better else "worse"


def _set_grows(o: ChangeOp, cal: Calamity, role: str) -> bool | None:
    """Whether `set` raises every value it replaces (False: lowers every one; None: it depends)."""
    new = _literal(o.amount)
    olds = base_values(cal, role, o.kind, o.param)
    if new is None or not olds or any(v is None for v in olds):
        return None
    if all(new > v for v in olds):
        return True
    if all(new < v for v in olds):
        return False
    return None


_DIRECTION = _Direction()


def op_direction(o: ModifierOp, cal: Calamity, role: str) -> str:
    """"worse", "better", "mixed" (depends on the situation) or "choice" for the victim."""
    return _DIRECTION.visit(o, cal, role)


def modifier_direction(m: Modifier, cal: Calamity) -> str:
    dirs = {op_direction(o, cal, m.role) for o in m.ops}
    if dirs == {"choice"}:
        return "choice"
    dirs.discard("choice")
    return dirs.pop() if len(dirs) == 1 else "mixed"


# --- advances named by a condition --------------------------------------------------------


def held_advances(e) -> list[tuple[str, bool]]:
    """(advance, negated) for every holds("X") in a condition (the index of references' uses)."""
    return [(r.name, r.negated) for r in uses_in(e) if r.kind == "advance"]


def positive_advances(m: Modifier) -> list[str]:
    """The advances whose holding triggers the modifier: Modifier.advances, less those negated."""
    negated = {name for name, neg in held_advances(m.condition) if neg}
    positive = {name for name, neg in held_advances(m.condition) if not neg}
    return [a for a in m.advances if a in positive or a not in negated]


def is_plain_holds(m: Modifier, name: str) -> bool:
    c = m.condition
    return isinstance(c, Call) and c.name == "holds" and len(c.args) == 1 and isinstance(c.args[0], Str) \
        and c.args[0].value == name


@dataclass
class Interaction:
    calamity: Calamity
    modifier: Modifier
    direction: str
    text: str  # the modifier in words, without the condition when it is just this advance


def interactions(ed: Edition) -> dict[str, list[Interaction]]:
    """Advance name -> the calamity modifiers its holding triggers, in calamity order."""
    out: dict[str, list[Interaction]] = {name: [] for name in ed.advances}
    for cal in ed.calamities.values():
        for m in cal.modifiers:
            direction = modifier_direction(m, cal)
            for name in positive_advances(m):
                if is_plain_holds(m, name):
                    text = "; ".join(describe.op(o) for o in m.ops) + describe.ROLE_TEXT[m.role]
                else:
                    text = describe.modifier(m)
                out.setdefault(name, []).append(Interaction(cal, m, direction, text))
    return out


# --- credits -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CardCredit:
    amount: int
    group_part: int
    special: int


def card_credit(ed: Edition, held: Advance, target: Advance) -> CardCredit:
    """What one held advance alone credits towards buying TARGET, under the edition's policy.

    best_group: the held card's credit to the better of the target's groups, plus its specific
    credits to the target (group credits of several held cards add up per group).
    per_card: the larger of the two, never both.
    """
    group_part = max([held.credits.get(g, 0) for g in target.groups] or [0])
    special = sum(s.amount for s in held.specific if s.target == target.name)
    if ed.credit_policy == "per_card":
        amount = max(group_part, special)
    else:
        amount = group_part + special
    return CardCredit(amount, group_part, special)


def chains(ed: Edition, limit: int = 400) -> list[list[tuple[str, int]]]:
    """Maximal paths of specific credits: [(advance, credit to the next), ..., (last, 0)]."""
    walk = _ChainWalk(_credit_edges(ed), limit)
    incoming = {t for targets in walk.edges.values() for t, _ in targets}
    for n in ed.advances:
        if n in walk.edges and n not in incoming:
            walk.start(n)
    # advances in a cycle of credits with no way in: start from each of them
    for n in ed.advances:
        if n in walk.edges and n not in walk.seen:
            walk.start(n)
    return walk.paths


def _credit_edges(ed: Edition) -> dict[str, list[tuple[str, int]]]:
    """Advance -> (the other declared advance it credits, the amount), in declaration order."""
    edges: dict[str, list[tuple[str, int]]] = {}
    for a in ed.advances.values():
        for s in a.specific:
            if s.target in ed.advances and s.target != a.name:
                edges.setdefault(a.name, []).append((s.target, s.amount))
    return edges


class _ChainWalk:
    """The chains found so far, walking the credits depth first (at most LIMIT chains)."""

    def __init__(self, edges: dict[str, list[tuple[str, int]]], limit: int):
        self.edges = edges
        self.limit = limit
        self.seen: set[str] = set()
        self.paths: list[list[tuple[str, int]]] = []

    def start(self, advance: str) -> None:
        self.walk(advance, [], {advance})

    def walk(self, node: str, path: list[tuple[str, int]], on_path: set[str]) -> None:
        if len(self.paths) >= self.limit:
            return
        self.seen.add(node)
        nxt = [(t, amt) for t, amt in self.edges.get(node, []) if t not in on_path]
        if not nxt:
            self.paths.append(path + [(node, 0)])
        for t, amt in nxt:
            self.walk(t, path + [(node, amt)], on_path | {t})


# --- cost bands -----------------------------------------------------------------------------


@dataclass
class Band:
    key: str  # "low", "mid", "high", "unknown"
    label: str
    members: list[str]


def bands(ed: Edition) -> list[Band]:
    """Low / mid / high cost bands: the VP tiers where the edition has three, else tertiles."""
    known = [a for a in ed.advances.values() if a.cost is not None]
    unknown = [a.name for a in ed.advances.values() if a.cost is None]
    out = _tier_bands(ed.vp_tiers, known) if len(ed.vp_tiers) == 3 else _tertile_bands(known)
    if unknown:
        out.append(Band("unknown", "cost unknown", unknown))
    return out


def _tier_bands(tiers: list, known: list[Advance]) -> list[Band]:
    """One band per VP tier, named by its costs and its VP."""
    out = []
    lows = [None] + [b for b, _ in tiers[:-1]]
    for key, (below, vp), low in zip(("low", "mid", "high"), tiers, lows):
        members = [a.name for a in known if (low is None or a.cost >= low) and (below is None or a.cost < below)]
        out.append(Band(key, _tier_label(low, below, vp), members))
    return out


def _tier_label(low: int | None, below: int | None, vp) -> str:
    """A VP tier's band named by its costs (from LOW, under BELOW; None: open) and its VP."""
    if below is None:
        return f"cost {low} or more ({vp} VP)"
    if low is None:
        return f"cost under {below} ({vp} VP)"
    return f"cost {low} to {below - 1} ({vp} VP)"


def _tertile_bands(known: list[Advance]) -> list[Band]:
    """The distinct costs cut in three (fewer bands where there are fewer costs)."""
    costs = sorted({a.cost for a in known})
    n = len(costs)
    cuts = [costs[:max(1, n // 3)], costs[max(1, n // 3):max(2, 2 * n // 3)], costs[max(2, 2 * n // 3):]]
    out = []
    for key, values in zip(("low", "mid", "high"), cuts):
        if values:
            members = [a.name for a in known if values[0] <= a.cost <= values[-1]]
            label = f"cost {values[0]}" if values[0] == values[-1] else f"cost {values[0]} to {values[-1]}"
            out.append(Band(key, label, members))
    return out
