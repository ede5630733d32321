"""Laws: properties of the rules over every situation, searched for the smallest counterexample.

A law names one of PROPERTIES and cites where the printed rules imply it:

    law advances_protect "Holding one more advance never makes a calamity harsher, unless one of
                          its modifiers on that calamity can" {
      property(advances_never_hurt)
      cite("chapter 9")
    }

Each property is generic (no edition's names): it is a space of situations (the calamity and
role, the advance bought, or the A.S.T. track; the advances held, and a grid over the facts the
rules read) and a test that one situation breaks it. `civdsl check --laws` walks a space of at
most the budget's size whole, in order of size, and searches a larger one with Hypothesis (its
`find` shrinks a breach to the smallest it can), seeded by `--seed`. A breach is reported with
the law, the two answers that break it, the rule lines involved, and the situation written as a
state file that `civdsl resolve --state` (or `cost`, `epoch`) reproduces.

A house rule inherits its bases' laws; breaking one is an error (CIV170) unless the house rule
says `drop law NAME "why"`.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from pathlib import Path

from . import pricing, runtime, sourcemap, standing
from . import vocabulary as vocab
from .charts.derive import held_advances, modifier_direction, more_is_better
from .diagnostics import Diagnostics, Span, suggestion
from .impact import CARD_GRID, FACT_GRID, bound_facts, creditors_of, possible_situation, facts_read
from .model import Edition, Law
from .syntax import Call, Name, Str

DEFAULT_BUDGET = 600  # situations tried per law at most, unless --budget says otherwise
ITEM_SHARE = 250  # situations tried per part of a law at most (an A.S.T. track, a calamity and role)


@dataclass
class Item:
    """One part of a property's space: what is asked (a calamity and role, an advance, a track) and
    the axes of its situations, each a name and the values it takes (the first is the smallest)."""

    what: tuple
    axes: list[tuple[str, tuple]]


@dataclass
class Breach:
    """A situation that breaks a law: the two answers compared, in words, and how to reproduce them."""

    state: dict  # the situation as a state file says it
    words: list[str]  # what happens, line by line
    commands: list[str]  # the commands that show it, {file} standing for the state file
    lines: list[str] = field(default_factory=list)  # rule lines involved


@dataclass
class Property:
    name: str
    doc: str
    items: object  # (Context) -> list[Item]
    broken: object  # (Context, Item, values) -> Breach | None


@dataclass
class Context:
    module: object
    ed: Edition
    known: dict = field(default_factory=dict)  # facts already checked as a state


# --- situations ------------------------------------------------------------------------------

def _state(item: Item, values: tuple) -> tuple[dict, object]:
    """(the state a situation gives, the value of its `extra` axis, if any)."""
    state: dict = {"holds": []}
    extra = None
    for (name, _), v in zip(item.axes, values):
        if name == "extra":
            extra = v
        elif name.startswith("holds:"):
            if v:
                state["holds"].append(name[6:])
        elif name.startswith("cards:"):
            if v:
                state.setdefault("commodities", {})[name[6:]] = v
        else:
            state[name] = v
    return state, extra


def _player(module, state: dict) -> runtime.PlayerState:
    return runtime.PlayerState(module, list(state["holds"]), {k: v for k, v in state.items() if k != "holds"}, {})


def _fact_axes(facts: list[str], cards: list[str]) -> list[tuple[str, tuple]]:
    axes = [(f, FACT_GRID[vocab.FACTS[f].type]) for f in facts if f in vocab.FACTS and vocab.FACTS[f].type in FACT_GRID]
    return axes + [(f"cards:{c}", CARD_GRID) for c in cards]


# --- calamities --------------------------------------------------------------------------------

def _calamity_items(ctx: Context, with_extra: bool) -> list[Item]:
    out = []
    for name, c in ctx.ed.calamities.items():
        facts, cards = facts_read(c)
        facts = sorted(set(facts) | bound_facts(ctx.module, name) | _holdings(c))
        for role in ("primary", "secondary"):
            relevant = sorted({a for m in c.modifiers if m.role in (role, "any") for a in m.advances
                               if a in ctx.ed.advances})
            axes = [(f"holds:{a}", (False, True)) for a in relevant] + _fact_axes(facts, cards)
            if with_extra:
                axes.append(("extra", tuple(relevant + sorted(set(ctx.ed.advances) - set(relevant)))))
            out.append(Item((name, role), axes))
    return out


def _holdings(c) -> set[str]:
    """The player facts that hold what the calamity's effects take (vocabulary.BOUNDS), whatever the
    edition's `amounts` setting: the law is about what the player has, not about the setting."""
    from .impact import model_nodes
    from .model import Effect

    kinds = {e.kind for e in model_nodes(c) if isinstance(e, Effect)}
    return {f for k in kinds for f in vocab.BOUNDS.get(k, {}).values() if f in vocab.FACTS}


def _harm(module, calamity: str, role: str, state: dict):
    """The resolution and, per effect kind, how hard it hits (higher is harsher); None if incomplete."""
    r = sourcemap.resolve(module, calamity, role, _player(module, state))
    if r.state.missing:
        return r, None
    harm = {}
    for kind, args, _ in r._effects:
        taken = args.get("taken", args.get("amount", True))
        if isinstance(taken, (bool, int)):
            harm[kind] = -int(taken) if more_is_better(kind, None) else int(taken)
    return r, (bool(r.is_cancelled or r.immune), harm)


def _trace_lines(ctx: Context, r) -> list[str]:
    """The rule lines of a resolution: where the role's effects are stated, then each modifier that fired."""
    c = ctx.ed.calamities[r.calamity]
    span = c.field_spans.get(r.role, c.span)
    return [f"{r.calamity} ({r.role} victim): the effects at {span.path}:{span.line}"] + [
        f"{', '.join(t['by']) or 'rule'}: {t['op']} {t['kind']} {t['before']} -> {t['after']}  [{t['path']}:{t['line']}]"
        for t in r.trace]


def _bounded_broken(ctx: Context, item: Item, values: tuple) -> Breach | None:
    calamity, role = item.what
    state, _ = _state(item, values)
    if not possible_situation((ctx.module,), state, ctx.known):
        return None
    r = sourcemap.resolve(ctx.module, calamity, role, _player(ctx.module, state))
    for kind, args, _line in r._effects:
        bound, taken = vocab.bound_fact(kind, args.get("area")), args.get("taken", args.get("amount"))
        have = state.get(bound) if bound is not None else None
        if isinstance(taken, int) and not isinstance(taken, bool) and (taken < 0 or (have is not None and taken > have)):
            words = [f"{calamity} ({role} victim) takes {taken} {kind.replace('_', ' ')}"
                     + (f" from a player who has {have} {bound.replace('_', ' ')}" if have is not None else "")]
            return Breach(state, words, [f"civdsl resolve {{edition}} {_q(calamity)} --role {role} --state {{file}}"],
                          _trace_lines(ctx, r))
    return None


def _exempt(ctx: Context, calamity: str, role: str, advance: str) -> bool:
    """Whether the advance may make the calamity harsher: one of its modifiers for the role is not
    plainly better for the victim, or its holding takes a better one away (`not holds(...)`)."""
    c = ctx.ed.calamities[calamity]
    for m in c.modifiers:
        if m.role not in (role, "any"):
            continue
        named = dict(held_advances(m.condition))
        if advance in m.advances and (modifier_direction(m, c) != "better" or named.get(advance)):
            return True
    return advance in _advances_in_effects(c)


def _advances_in_effects(c) -> set[str]:
    """Advances the calamity's effects themselves read (`if holds(...)`): no direction is declared."""
    found = set()
    for root in (c.primary, c.secondary):
        stack = [root]
        while stack:
            x = stack.pop()
            if isinstance(x, Call) and x.name == "holds" and x.args and isinstance(x.args[0], Str):
                found.add(x.args[0].value)
            if isinstance(x, (list, tuple)):
                stack.extend(x)
            elif hasattr(x, "__dict__") and not isinstance(x, (Span, Name, Str)):
                stack.extend(vars(x).values())
    return found


def _advances_broken(ctx: Context, item: Item, values: tuple) -> Breach | None:
    calamity, role = item.what
    state, extra = _state(item, values)
    if (extra in state["holds"] or not possible_situation((ctx.module,), state, ctx.known)
            or _exempt(ctx, calamity, role, extra)):
        return None
    more = {**state, "holds": state["holds"] + [extra]}
    r0, without = _harm(ctx.module, calamity, role, state)
    r1, with_it = _harm(ctx.module, calamity, role, more)
    if without is None or with_it is None:
        return None  # an incomplete answer decides nothing
    spared_before, harm0 = without
    spared_after, harm1 = with_it
    worse = [k for k in harm0 if k in harm1 and harm1[k] > harm0[k]]
    if not (worse or (spared_before and not spared_after)):
        return None
    words = [f"{calamity} ({role} victim) without {extra}: {_effects_words(r0)}",
             f"{calamity} ({role} victim) with {extra} as well: {_effects_words(r1)}"]
    cmd = f"civdsl resolve {{edition}} {_q(calamity)} --role {role} --state {{file}}"
    return Breach(state, words, [cmd, f"{cmd} --holds {_q(extra)}"], _trace_lines(ctx, r0) + _trace_lines(ctx, r1)[1:])


def _effects_words(r) -> str:
    if r.is_cancelled:
        return "cancelled"
    parts = [f"{kind.replace('_', ' ')} {args.get('taken', args.get('amount'))}" for kind, args, _ in r._effects]
    return ", ".join(parts) or "nothing"


def _q(name: str) -> str:
    return f'"{name}"' if " " in name else name


# --- prices -------------------------------------------------------------------------------------

def _price_items(ctx: Context) -> list[Item]:
    out = []
    for name in ctx.ed.advances:
        creditors = creditors_of(ctx.ed, name)
        if creditors:
            out.append(Item((name,), [(f"holds:{a}", (False, True)) for a in creditors] + [("extra", tuple(creditors))]))
    return out


def _price(module, state: dict, buy: str):
    result = pricing.prices(module, state["holds"], [buy], None)
    return result if result["complete"] else None


def _credits_broken(ctx: Context, item: Item, values: tuple) -> Breach | None:
    (target,) = item.what
    state, extra = _state(item, values)
    if extra in state["holds"]:
        return None
    with sourcemap.rules_of(ctx.module):
        p0 = _price(ctx.module, state, target)
        p1 = _price(ctx.module, {**state, "holds": state["holds"] + [extra]}, target)
    if p0 is None or p1 is None:
        return None
    x, y = p0["items"][0]["price"], p1["items"][0]["price"]
    if y <= x:
        return None
    words = [f"{target} costs {x} without {extra}", f"{target} costs {y} with {extra} held as well"]
    cmd = f"civdsl cost {{edition}} --state {{file}} --buy {_q(target)}"
    lines = [f"{row['advance']}: {row['printed']}" + "".join(f" - {c['amount']} {c['from']}" for c in row["credits"])
             for row in (p0["items"][0], p1["items"][0])]
    return Breach(state, words, [cmd, f"{cmd} --holds {_q(extra)}"], lines)


# --- epochs -------------------------------------------------------------------------------------

def _epoch_items(ctx: Context, with_extra: bool) -> list[Item]:
    out = []
    names = sorted(ctx.ed.advances)
    for track, t in ctx.ed.asts.items():
        facts, cards = facts_read(t)
        axes = [(f"holds:{a}", (False, True)) for a in names] + _fact_axes(sorted(set(facts) | {"cities"}), cards)
        if with_extra:
            axes.append(("extra", tuple(names)))
        out.append(Item((track,), axes))
    return out


def _reached(module, track: str, state: dict) -> int | None:
    with sourcemap.rules_of(module):
        e = standing.epochs(module, track, _player(module, state))
    if e["missing_facts"]:
        return None
    names = [x["epoch"] for x in e["epochs"]]
    return names.index(e["reached"]) if e["reached"] in names else -1


def _epoch_breach(ctx: Context, track: str, state: dict, more: dict, change: str, flag: str) -> Breach | None:
    if not (possible_situation((ctx.module,), state, ctx.known) and possible_situation((ctx.module,), more, ctx.known)):
        return None
    x, y = _reached(ctx.module, track, state), _reached(ctx.module, track, more)
    if x is None or y is None or y >= x:
        return None
    epochs = [e.name for e in ctx.ed.asts[track].epochs]
    name = (lambda i: epochs[i] if 0 <= i < len(epochs) else "no epoch")
    cmd = f"civdsl epoch {{edition}} --ast {track} --state {{file}}"
    return Breach(state, [f"A.S.T. track {track}: {name(x)} reached", f"with {change}: {name(y)} reached"],
                  [cmd, f"{cmd} {flag}"])


def _cities_broken(ctx: Context, item: Item, values: tuple) -> Breach | None:
    (track,) = item.what
    state, _ = _state(item, values)
    more = {**state, "cities": state.get("cities", 0) + 1}
    return _epoch_breach(ctx, track, state, more, "one more city", f"--set cities={more['cities']}")


def _epoch_advances_broken(ctx: Context, item: Item, values: tuple) -> Breach | None:
    (track,) = item.what
    state, extra = _state(item, values)
    if extra in state["holds"]:
        return None
    more = {**state, "holds": state["holds"] + [extra]}
    return _epoch_breach(ctx, track, state, more, f"{extra} held as well", f"--holds {_q(extra)}")


PROPERTIES = {p.name: p for p in [
    Property("bounded_by_holdings", "no calamity takes more than the player has, nor less than nothing",
             lambda ctx: _calamity_items(ctx, False), _bounded_broken),
    Property("advances_never_hurt", "holding one more advance never makes a calamity harsher, unless one of that "
             "advance's modifiers on the calamity can", lambda ctx: _calamity_items(ctx, True), _advances_broken),
    Property("credits_never_raise_prices", "holding one more advance that gives credit never raises a price",
             _price_items, _credits_broken),
    Property("cities_never_lose_epochs", "one more city never takes a player to an earlier epoch",
             lambda ctx: _epoch_items(ctx, False), _cities_broken),
    Property("advances_never_lose_epochs", "holding one more advance never takes a player to an earlier epoch",
             lambda ctx: _epoch_items(ctx, True), _epoch_advances_broken),
]}


# --- reading laws ----------------------------------------------------------------------------------

class LawError(Exception):
    def __init__(self, message: str, span: Span, help: str | None = None):
        super().__init__(message)
        self.span = span
        self.help = help


def read(law: Law) -> tuple[Property, list[str]]:
    """(the property the law names, its citations), or LawError."""
    prop, cites = None, []
    for call in law.calls:
        if call.name == "property" and len(call.args) == 1 and isinstance(call.args[0], Name) and not call.kwargs:
            word = call.args[0].dotted
            if word not in PROPERTIES:
                raise LawError(f"unknown property `{word}`", call.args[0].span, suggestion(word, PROPERTIES))
            if prop is not None:
                raise LawError("a law names one property", call.span)
            prop = PROPERTIES[word]
        elif call.name == "cite" and call.args and all(isinstance(a, Str) for a in call.args):
            cites += [a.value for a in call.args]
        else:
            raise LawError(f"a law's block is property(NAME) and cite(\"...\"), not `{call.name}(...)`", call.span,
                           suggestion(call.name, ["property", "cite"]))
    if prop is None:
        raise LawError("a law names the property it states: property(" + " | ".join(PROPERTIES) + ")", law.span)
    if not cites:
        raise LawError("a law cites where the printed rules imply it: cite(\"paragraph\")", law.span)
    return prop, cites


def check_declared(ed: Edition, diags: Diagnostics) -> list[tuple[Law, Property]]:
    """The laws in force (read; a law that cannot be read is CIV171) and `drop law` lines that drop
    nothing (CIV172). Cheap: `check` runs it always, `check --laws` then searches the laws."""
    in_force = []
    for law in ed.laws.values():
        try:
            prop, _ = read(law)
        except LawError as exc:
            diags.error("CIV171", f"law `{law.name}` cannot be read: {exc}", exc.span, item=law.name, help=exc.help)
            continue
        if law.name not in ed.dropped_laws:
            in_force.append((law, prop))
    for name, d in ed.dropped_laws.items():
        if name not in ed.laws:
            diags.warning("CIV172", f"`drop law {name}` names no law of this rulebook or its bases",
                          d.name_span or d.span, item=name, help=suggestion(name, ed.laws))
    return in_force


# --- searching -------------------------------------------------------------------------------------

def _size(item: Item) -> int:
    size = 1
    for _, values in item.axes:
        size *= len(values)
    return size


def _walked(ctx: Context, prop: Property, item: Item) -> tuple[tuple, Breach] | None:
    """Every situation of one item, smallest first (fewest advances, then the lowest values)."""
    every = sorted(itertools.product(*(v for _, v in item.axes)),
                   key=lambda values: sum(vals.index(v) for (_, vals), v in zip(item.axes, values)))
    for values in every:
        breach = prop.broken(ctx, item, values)
        if breach is not None:
            return values, breach
    return None


def _searched(ctx: Context, prop: Property, item: Item, examples: int, seed: int) -> tuple[tuple, Breach] | None:
    """Hypothesis's search of one item for a breach, shrunk to the smallest it finds."""
    from hypothesis import HealthCheck, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    strategy = st.tuples(*(st.sampled_from(values) for _, values in item.axes))
    found: dict = {}

    def breaks(values) -> bool:
        breach = prop.broken(ctx, item, values)
        if breach is not None:
            found[values] = breach
        return breach is not None

    try:
        values = find(strategy, breaks, random=random.Random(seed),
                      settings=settings(max_examples=examples, database=None, deadline=None, derandomize=False,
                                        suppress_health_check=list(HealthCheck)))
    except NoSuchExample:
        return None
    return values, found.get(values) or prop.broken(ctx, item, values)


@dataclass
class Verdict:
    law: Law
    prop: Property
    space: int
    tried: str  # "every situation" or "a search of N situations"
    breach: Breach | None = None
    file: str | None = None


def search(module, ed: Edition, law: Law, prop: Property, budget: int = DEFAULT_BUDGET, seed: int = 0) -> Verdict:
    """The law's space, item by item (each calamity and role, advance or track gets an equal share
    of the budget): an item no larger than its share is walked whole, a larger one searched with
    Hypothesis. The first item with a breach gives the counterexample, shrunk."""
    ctx = Context(module, ed)
    items = prop.items(ctx)
    if not items:
        return Verdict(law, prop, 0, "no situation")
    space = sum(_size(i) for i in items)
    share = max(1, min(budget // len(items), ITEM_SHARE))
    walked = sum(1 for i in items if _size(i) <= share)
    tried = (f"every situation ({space})" if walked == len(items) else
             f"{walked} of {len(items)} parts walked whole, the others searched with {share} situations each "
             f"(seed {seed}), of {space} situations")
    with sourcemap.rules_of(module):
        for n, item in enumerate(items):
            hit = _walked(ctx, prop, item) if _size(item) <= share else _searched(ctx, prop, item, share, seed + n)
            if hit is not None:
                return Verdict(law, prop, space, tried, hit[1])
    return Verdict(law, prop, space, tried)


def write_counterexample(verdict: Verdict, ed: Edition, folder: Path) -> Path:
    """The breach's situation as a state file (atomically), with the law and the commands in comments."""
    import json

    from .atomicfile import atomic_write

    breach = verdict.breach
    path = folder / f"counterexample-{ed.id}-{verdict.law.name}.yaml"
    state = {k: v for k, v in breach.state.items() if v or k == "holds"}
    head = [f"# A situation that breaks law `{verdict.law.name}` of {ed.id}: {verdict.law.text}",
            *(f"#   {w}" for w in breach.words), "# Reproduce:",
            *(f"#   {c.format(edition=_rulebook_word(ed), file=path.name)}" for c in breach.commands)]
    # JSON is YAML: the state file reads back as it is written, with the comments above it
    atomic_write(path, "\n".join(head) + "\n" + json.dumps(state, indent=2, ensure_ascii=False) + "\n")
    return path


def _rulebook_word(ed: Edition) -> str:
    """How a command names the rulebook: its file as the checker reached it (a shipped edition's
    file works as well as its id)."""
    return _q(ed.files[-1]) if ed.files else ed.id


def report(verdict: Verdict, ed: Edition, diags: Diagnostics, folder: Path) -> None:
    """CIV170 for a law the rules break, with the counterexample written as a state file."""
    if verdict.breach is None:
        return
    path = write_counterexample(verdict, ed, folder)
    verdict.file = str(path)
    law = verdict.law
    own = law.span.path == (ed.files[-1] if ed.files else law.span.path)
    notes = [f"law `{law.name}` ({verdict.prop.name}) is at {law.span}" if not own else f"{verdict.prop.doc}",
             *verdict.breach.words, f"the smallest situation found ({verdict.tried}) is written to {path}",
             *("reproduce: " + c.format(edition=_rulebook_word(ed), file=path) for c in verdict.breach.commands),
             *verdict.breach.lines]
    message = f"law `{law.name}` is broken: {law.text}"
    if own:
        diags.error("CIV170", message, law.span, item=law.name, notes=notes)
    else:
        diags.error("CIV170", message, ed.span, item=law.name, notes=notes,
                    help=f'if the house rule means to break it, say so: drop law {law.name} "why"')


def check_laws(path, checked, diags: Diagnostics, budget: int = DEFAULT_BUDGET, seed: int = 0,
               folder: Path = Path(".")) -> list[Verdict]:
    """`check --laws` for a rulebook the front end checked without errors: its laws in force searched
    on its compiled rules, each breach reported (CIV170) and written to FOLDER. (Laws that cannot be
    read are reported by `check` itself: check_declared.)"""
    in_force = check_declared(checked.edition, Diagnostics())
    if not in_force:
        return []
    from .api import load

    module = load(path).module
    verdicts = [search(module, checked.edition, law, prop, budget, seed) for law, prop in in_force]
    for v in verdicts:
        report(v, checked.edition, diags, folder)
    return verdicts
