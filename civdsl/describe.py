"""Rules in words: every effect, modifier, exclusion and ability renders itself as a short
English phrase generated from structure (never copied from a rulebook's prose).

Each node type has a renderer here; tests check that every vocabulary entry and every
modifier operation has one, so a chart can never print a class name instead of a rule. The
words (nouns with their plurals, templates) are declared in the vocabulary; the grammar that
puts them together is in phrases.py. A number that depends on the situation is said in words
("1 point of damage per city", "at least 2 cities, 1 with Monument"), never as an
expression; a clause whose number is zero disappears.
"""

from __future__ import annotations

import operator
from functools import partial

from . import vocabulary as vocab
from .expressions import unparse
from .model import Calamity, Effect, EffectBranch, Exclusion, Modifier, ModifierOp
from .phrases import Count, change, effect_text, fact_words, kind_template, name_words, noun, sentence
from .syntax import (BinOp, Bool, Call, CancelOp, ChangeOp, Expr, ImmuneOp, Name, Neg, NodeVisitor, Not, Num, OptionOp,
                     Str, StopOp, Unknown, Where)

_COMPARE = {"==": "is", "!=": "is not", "<": "is below", "<=": "is at most", ">": "is above", ">=": "is at least"}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_COUNT_FILTERS = {"cost_at_least": "costing {} or more", "cost_below": "costing under {}",
                  "vp": "worth {} VP", "group": "of group {}"}

# --- numbers ------------------------------------------------------------------------------


def _noun_of(e: Expr) -> tuple[str, str] | None:
    """What one unit of a countable expression is: a fact's noun, "Grain card held", ..."""
    if isinstance(e, Name):
        return fact_words(e.parts[0]) if len(e.parts) == 1 else None
    nouns = _CALL_NOUNS.get(e.name) if isinstance(e, Call) else None
    return nouns(e) if nouns is not None else None


def _cards_noun(e: Call) -> tuple[str, str] | None:
    """cards("Grain"): the cards of one commodity a player holds."""
    name = _text_arg(e, "cards")
    return None if name is None else (f"{name} card held", f"{name} cards held")


def _neighbours_noun(e: Call) -> tuple[str, str]:
    """A table query: the other players bordering this one."""
    by = _relation(e, "by", "land")
    return (f"other player bordering by {by}", f"other players bordering by {by}")


def _advances_noun(e: Call) -> tuple[str, str]:
    """count_advances(...): the advances held, with the filters its arguments give in words."""
    bits = " and ".join(_COUNT_FILTERS[k].format(quantity_words(v)) for k, v in e.kwargs.items()
                        if k in _COUNT_FILTERS)
    return ("advance " + bits, "advances " + bits) if bits else ("advance", "advances")


# the functions whose value counts something, with the noun of what they count
_CALL_NOUNS = {"cards": _cards_noun, "neighbours": _neighbours_noun, "count_advances": _advances_noun}


def amount(e: Expr):
    """A number: an int when the rulebook wrote one, else a phrases.Count in words."""
    if isinstance(e, Num):
        return e.value
    words = _noun_of(e)
    if words is not None:
        return Count(per=words)
    return _scaled_or_bounded(e) or Count(words=quantity_words(e))


def _scaled_or_bounded(e: Expr) -> Count | None:
    """A count times a number (N * count), or with a cap or a floor (min or max of N and a count)."""
    if _is_op(e, ("*",)):
        return _scaled(e.left, e.right) or _scaled(e.right, e.left)
    if isinstance(e, Call) and e.name in _LIMITS and len(e.args) == 2:
        return _bounded(e.name, e.args[0], e.args[1]) or _bounded(e.name, e.args[1], e.args[0])
    return None


def _per_unit_beside(a: Expr, b: Expr) -> Count | None:
    """B as a count per unit, when A is a written number (the N of N * count, of min(N, count))."""
    inner = amount(b)
    return inner if isinstance(a, Num) and isinstance(inner, Count) and inner.per else None


def _scaled(a: Expr, b: Expr) -> Count | None:
    """N * (a count per unit): N times the rate."""
    inner = _per_unit_beside(a, b)
    if inner is not None and inner.cap is None:
        return Count(rate=a.value * inner.rate, per=inner.per)
    return None


# the bound min(N, count) and max(N, count) put on a count
_LIMITS = {"min": "cap", "max": "floor"}


def _bounded(fn: str, a: Expr, b: Expr) -> Count | None:
    """min(N, a count) or max(N, a count): the count with a cap or a floor (not a second one)."""
    inner = _per_unit_beside(a, b)
    limit = _LIMITS[fn]
    if inner is None or getattr(inner, limit) is not None:
        return None
    bounds = {"cap": inner.cap, "floor": inner.floor, limit: a.value}
    return Count(rate=inner.rate, per=inner.per, **bounds)


def quantity_words(e: Expr) -> str:
    """Any number as a noun phrase, operators said in words."""
    words = _noun_of(e)
    if words is not None:
        return f"the {words[1]}"
    say = _QUANTITY_WORDS.get(type(e))
    return say(e) if say is not None else condition(e)


_SAID = {"+": "plus", "-": "minus", "*": "times", "/": "divided by", "//": "divided by", "%": "modulo"}


def _held_bonus(e: Expr) -> tuple[int, str] | None:
    """N * holds("X"): a number that only a held advance adds (N and X), else None."""
    if _is_op(e, ("*",)) and isinstance(e.left, Num) and isinstance(e.right, Call) and e.right.name == "holds" \
            and len(e.right.args) == 1 and isinstance(e.right.args[0], Str):
        return e.left.value, e.right.args[0].value
    return None


def _binop_words(e: BinOp) -> str:
    left, right = quantity_words(e.left), quantity_words(e.right)
    bonus = _held_bonus(e.right) if e.op in ("+", "-") else None
    if bonus is not None:
        return f"{left}, {bonus[0]} {'more' if e.op == '+' else 'fewer'} with {bonus[1]}"
    if e.op == "*" and isinstance(e.left, Num):
        return {1: right, 2: f"twice {right}"}.get(e.left.value, f"{e.left.value} times {right}")
    text = f"{left} {_SAID.get(e.op, e.op)} {right}"
    return text + ", rounded down" if e.op == "//" else text


# a function of one number, in words ({} stands for the number)
_ONE_ARG_WORDS = {"floor": "{}, rounded down", "ceil": "{}, rounded up", "sqrt": "the square root of {}",
                  "abs": "the size of {}"}


def _call_words(e: Call) -> str:
    say = _CALL_WORDS.get(e.name)
    words = say(e) if say is not None else None
    if words is not None:
        return words
    if len(e.args) == 1:
        return _ONE_ARG_WORDS.get(e.name, "{}").format(quantity_words(e.args[0]))
    return condition(e)


def _extreme_words(e: Call) -> str | None:
    """min(a, b), max(a, b): the smaller or the larger of the two."""
    if len(e.args) != 2:
        return None
    which = "smaller" if e.name == "min" else "larger"
    return f"the {which} of {quantity_words(e.args[0])} and {quantity_words(e.args[1])}"


# the players a table query ranks, by its `among`
_AMONG_WORDS = {"others": "other players", "everyone": "players", "near": "players within reach"}


def _most_among_words(e: Call) -> str | None:
    """A table query, in the players' words: the most of something among some players."""
    if not e.args:
        return None
    among = _relation(e, "among", "others")
    who = _AMONG_WORDS.get(among, f"players bordering by {among}")
    return f"the most {quantity_words(e.args[0]).removeprefix('the ')} among the {who}"


def _whose_words(e: Call) -> str | None:
    """of_beneficiary(x), of_trader(x): another player's number."""
    if not e.args:
        return None
    return f"the {e.name.removeprefix('of_')}'s {quantity_words(e.args[0]).removeprefix('the ')}"


# functions said in words of their own (None when their arguments do not fit)
_CALL_WORDS = {"min": _extreme_words, "max": _extreme_words, "most_among": _most_among_words,
               "of_beneficiary": _whose_words, "of_trader": _whose_words}


# how each kind of expression node is said as a quantity (others: as a condition)
_QUANTITY_WORDS = {
    Num: lambda e: str(e.value),
    Str: lambda e: f"“{e.value}”",
    Name: lambda e: e.dotted.replace("_", " ").replace(".", " "),
    Neg: lambda e: f"minus {quantity_words(e.operand)}",
    BinOp: _binop_words,
    Call: _call_words,
    Unknown: lambda e: "an unknown amount",
    Where: lambda e: f"{quantity_words(e.items)} where {condition(e.condition)}",
}


def _relation(e: Call, key: str, default: str) -> str:
    value = e.kwargs.get(key)
    return value.parts[0] if isinstance(value, Name) else default


def _evaluate(e: Expr, name: str, x: int):
    """The value of an expression of one fact NAME at X, for the few operators a count uses."""
    at = _VALUE_AT.get(type(e))
    return at(e, name, x) if at is not None else None


def _num_at(e: Num, name: str, x: int) -> int:
    return e.value


def _name_at(e: Name, name: str, x: int) -> int | None:
    return x if e.dotted == name else None


def _neg_at(e: Neg, name: str, x: int) -> int | None:
    return _apply(operator.neg, [e.operand], name, x)


def _binop_at(e: BinOp, name: str, x: int) -> int | None:
    return _apply(_ARITHMETIC.get(e.op), [e.left, e.right], name, x)


def _call_at(e: Call, name: str, x: int) -> int | None:
    return _apply(_EXTREMES.get(e.name) if len(e.args) == 2 else None, e.args, name, x)


def _apply(fn, args: list[Expr], name: str, x: int) -> int | None:
    """FN of the values of ARGS at X; None when there is no FN or an argument has no value."""
    if fn is None:
        return None
    values = [_evaluate(arg, name, x) for arg in args]
    return None if None in values else fn(*values)


_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_EXTREMES = {"min": min, "max": max}
# the nodes a count's value is computed through (others have no value here)
_VALUE_AT = {Num: _num_at, Name: _name_at, Neg: _neg_at, BinOp: _binop_at, Call: _call_at}


def _names(e) -> set[str]:
    if isinstance(e, Name):
        return {e.dotted}
    out: set[str] = set()
    for child in (getattr(e, "left", None), getattr(e, "right", None), getattr(e, "operand", None),
                  *getattr(e, "args", ())):
        if child is not None and hasattr(child, "span"):
            out |= _names(child)
    return out


def step(e: Expr) -> tuple[int, str] | None:
    """A number that is N in one situation and 0 otherwise ("1 - min(volcano_cities, 1)"):
    (N, the situation in words), read by evaluating it for 0 to 40 of its one fact."""
    names = _names(e)
    if isinstance(e, Num) or len(names) != 1:
        return None
    name = names.pop()
    words = fact_words(name)
    values = [_evaluate(e, name, x) for x in range(41)]
    cut = _step_at(values) if words is not None and None not in values else None
    return None if cut is None else _situation(values, cut, words)


def _situation(values: list[int], cut: int, words: tuple[str, str]) -> tuple[int, str]:
    """(the number that is not 0, the situation it holds in): below CUT of the fact, or from CUT on."""
    if values[0] != 0:
        return values[0], f"no {words[0]}" if cut == 1 else f"fewer than {cut} {words[1]}"
    return values[cut], f"at least {cut} {noun(cut, words)}"


def _step_at(values: list[int]) -> int | None:
    """Where VALUES change, when they change once, between 0 and one other number."""
    if len(set(values)) != 2 or 0 not in values:
        return None
    cut = next(i for i in range(1, len(values)) if values[i] != values[i - 1])
    return cut if all(v == values[cut] for v in values[cut:]) else None


# --- conditions ---------------------------------------------------------------------------


def _is_op(e: Expr, ops: tuple[str, ...] | dict) -> bool:
    """Whether E is a binary operation with one of the operators OPS."""
    return isinstance(e, BinOp) and e.op in ops


def _disjuncts(e: Expr) -> list[list[Expr]]:
    if _is_op(e, ("or",)):
        return _disjuncts(e.left) + _disjuncts(e.right)
    return [_conjuncts(e)]


def _conjuncts(e: Expr) -> list[Expr]:
    if _is_op(e, ("and",)):
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _text_arg(e: Expr, fn: str) -> str | None:
    """X of FN("X"): the advance of holds("X"), the commodity of cards("X")."""
    if isinstance(e, Call) and e.name == fn and e.args and isinstance(e.args[0], Str):
        return e.args[0].value
    return None


def _held(e: Expr) -> tuple[str, bool] | None:
    """(advance, held?) for holds("X") and not holds("X")."""
    name = _text_arg(e, "holds")
    if name is not None:
        return name, True
    inner = _held(e.operand) if isinstance(e, Not) else None
    return (inner[0], not inner[1]) if inner is not None else None


def _comparison(e: Expr) -> tuple[tuple[str, str], str, int] | None:
    """(noun, operator, number) for a countable expression compared with a number."""
    if not _is_op(e, _FLIP):
        return None
    left, op, right = e.left, e.op, e.right
    if isinstance(left, Num) and not isinstance(right, Num):
        left, op, right = right, _FLIP[op], left
    words = _noun_of(left)
    if words is None or not isinstance(right, Num):
        return None
    return words, op, right.value


# a comparison of a count with the number n in words (its noun's singular and plural), by operator
_AMOUNT_PHRASES = {
    ">=": lambda n, w: f"at least {n} {noun(n, w)}",
    ">": lambda n, w: f"at least 1 {w[0]}" if n == 0 else f"more than {n} {w[1]}",
    "<=": lambda n, w: f"no {w[0]}" if n == 0 else f"at most {n} {noun(n, w)}",
    "<": lambda n, w: f"no {w[0]}" if n == 1 else f"fewer than {n} {w[1]}",
    "==": lambda n, w: f"no {w[0]}" if n == 0 else f"exactly {n} {noun(n, w)}",
    "!=": lambda n, w: f"at least 1 {w[0]}" if n == 0 else f"other than {n} {w[1]}",
}


def _amount_phrase(op: str, n: int, words: tuple[str, str]) -> str:
    return _AMOUNT_PHRASES.get(op, _AMOUNT_PHRASES["!="])(n, words)


def _literal(e: Expr) -> str:
    """One condition that is not an and/or: the first of _LITERALS that reads it, else as a quantity."""
    for read in _LITERALS:
        text = read(e)
        if text is not None:
            return text
    say = _QUANTITY_WORDS.get(type(e))
    # quantity_words reads what it has no words for as a condition: asking it back would never end
    return say(e) if say is not None else "an expression"


def _counted_words(e: Expr) -> str | None:
    """A count compared with a number: "at least 2 cities"."""
    cmp = _comparison(e)
    return _amount_phrase(cmp[1], cmp[2], cmp[0]) if cmp is not None else None


def _bool_words(e: Expr) -> str | None:
    return ("always" if e.value else "never") if isinstance(e, Bool) else None


def _not_words(e: Expr) -> str | None:
    return f"not {condition(e.operand)}" if isinstance(e, Not) else None


def _compared_words(e: Expr) -> str | None:
    """Two quantities compared, or joined by and/or (nested inside another node). A counted fact
    bounded by a number and what adds to it reads as a possession ("at most 35 unit points, 5
    more with Music"), which fits after "with" as every other condition does."""
    if _is_op(e, _COMPARE):
        right = quantity_words(e.right)
        noun = _noun_of(e.left) if e.op in _BOUND_WORDS else None
        head, sep, rest = right.partition(", ")
        if noun is not None and head.isdigit():
            return f"{_BOUND_WORDS[e.op]} {head} {noun[0] if head == '1' else noun[1]}{sep}{rest}"
        if noun is not None:  # "more unit points in stock than the most ... among the players within reach"
            return _AS_MANY[e.op].format(noun=noun[1], than=right)
        return f"{quantity_words(e.left)} {_COMPARE[e.op]} {right}"
    return condition(e) if _is_op(e, ("and", "or")) else None


_BOUND_WORDS = {"<=": "at most", ">=": "at least", "<": "fewer than", ">": "more than", "==": "exactly"}
_AS_MANY = {"<=": "at most as many {noun} as {than}", ">=": "at least as many {noun} as {than}",
            "<": "fewer {noun} than {than}", ">": "more {noun} than {than}", "==": "as many {noun} as {than}"}


def _state_fact(e: Expr) -> str | None:
    """A yes/no or text fact in its declared words: traded_by != "" -> "a card traded to the victim"."""
    negated = isinstance(e, Not)
    test = _fact_test(e.operand if negated else e)
    states = getattr(vocab.FACTS.get(test[0]), "states", None) if test is not None else None
    if states is None:
        return None
    return states[0] if test[1] != negated else states[1]


def _fact_test(e: Expr) -> tuple[str, bool] | None:
    """(the fact a yes/no test reads, whether it asks for it to hold): `f`, `f != ""`, `f == ""`."""
    if isinstance(e, Name) and len(e.parts) == 1:
        return e.parts[0], True
    if _is_empty_text_test(e):
        return e.left.dotted, e.op == "!="
    return None


def _is_empty_text_test(e: Expr) -> bool:
    """name == "" or name != "": whether a text fact is blank."""
    return _is_op(e, ("==", "!=")) and isinstance(e.left, Name) and isinstance(e.right, Str) and e.right.value == ""


# the readings of one condition, in the order they are tried
_LITERALS = (_counted_words, _bool_words, _state_fact, partial(_text_arg, fn="holds"), _not_words, _compared_words)


def _names_list(names: list[str], word: str) -> str:
    """"A and B"; with a serial comma when a name holds the word itself ("Music, and Drama and Poetry")."""
    if len(names) < 2:
        return "".join(names)
    comma = "," if any(f" {word} " in n for n in names) else ""
    return ", ".join(names[:-1]) + f"{comma} {word} " + names[-1]


def _advances_text(held: list[tuple[str, bool]]) -> str:
    having = _names_list([n for n, h in held if h], "and")
    lacking = [n for n, h in held if not h]
    return " ".join(filter(None, [having, "without " + _names_list(lacking, "or") if lacking else ""]))


def _held_in(lits: list[Expr]) -> list[tuple[str, bool]]:
    """The advance tests of a conjunction, (advance, held?) each."""
    return [h for h in map(_held, lits) if h is not None]


def _others(lits: list[Expr]) -> list[Expr]:
    """The parts of a conjunction that test no advance."""
    return [x for x in lits if _held(x) is None]


def _conjunction(lits: list[Expr]) -> str:
    held = _held_in(lits)
    return " and ".join(([_advances_text(held)] if held else []) + [_literal(x) for x in _others(lits)])


def _threshold(d: list[Expr]):
    """(comparison, advances tested) of an alternative that compares one count and tests advances; or None."""
    cmps = _others(d)
    cmp = _comparison(cmps[0]) if len(cmps) == 1 else None
    return None if cmp is None else (cmp, _held_in(d))


def _compact(ds: list[list[Expr]]) -> str | None:
    """Alternatives that differ in one threshold: "at least 2 cities, 1 with Monument"."""
    rows = [_threshold(d) for d in ds]
    if None in rows or len({(words, op) for (words, op, _), _ in rows}) != 1 or len(rows) < 2:
        return None
    (words, op, first), held = rows[0]
    out = [_amount_phrase(op, first, words) + _with(held)]
    return ", ".join(out + [f"{n}{_with(held)}" for (_, _, n), held in rows[1:]])


def _with(held: list[tuple[str, bool]]) -> str:
    """The advances an alternative tests, after its number: " with X", " without Y", or ""."""
    if not held:
        return ""
    adv = _advances_text(held)
    return f" {adv}" if adv.startswith("without") else f" with {adv}"


def _disjunction(ds: list[list[Expr]]) -> str:
    if len(ds) == 1:
        return _conjunction(ds[0])
    # group the alternatives around the advance most of them name: "without Philosophy: ..."
    key = _common_held(ds)
    return _alternatives(ds, "; or ") if key is None else _grouped(ds, key)


def _grouped(ds: list[list[Expr]], key: tuple[str, bool]) -> str:
    """The alternatives that test KEY as one group ("with X: ..."), in place among the others."""
    has_key = [key in map(_held, d) for d in ds]
    group = _group(key, [[x for x in d if _held(x) != key] for d, k in zip(ds, has_key) if k])
    outside = [d for d, k in zip(ds, has_key) if not k]
    if not outside:
        return group
    # the group and the rest, in the order of the first alternative of each
    pieces = sorted([(has_key.index(True), group), (has_key.index(False), _alternatives(outside, "; or "))])
    return "; or ".join(text for _, text in pieces)


def _group(key: tuple[str, bool], inside: list[list[Expr]]) -> str:
    """"with X: a, or b": the alternatives that test KEY, each without that test."""
    label = ("with " if key[1] else "without ") + key[0]
    # one level of grouping only: a nested group would read as a sibling of its parent
    return label if any(not d for d in inside) else f"{label}: {_alternatives(inside, ', or ')}"


def _common_held(ds: list[list[Expr]]) -> tuple[str, bool] | None:
    """(advance, held) that two or more of the alternatives test, the most often tested (the
    first tested of those tested as often); or None."""
    counts: dict[tuple[str, bool], int] = {}
    for h in (h for d in ds for h in dict.fromkeys(map(_held, d)) if h is not None):
        counts[h] = counts.get(h, 0) + 1
    key, n = max(counts.items(), key=lambda kv: kv[1], default=(None, 0))
    return key if n >= 2 else None


def _alternatives(ds: list[list[Expr]], separator: str) -> str:
    """Alternatives in words: compacted where they differ in one number, else each in turn."""
    return _compact(ds) or separator.join(_conjunction(d) for d in ds)


def condition(e: Expr) -> str:
    """A condition in words: holds("Law") and not holds("Democracy") -> 'Law without Democracy';
    cities >= 2 or holds("X") and cities >= 1 -> 'at least 2 cities, 1 with X'."""
    return _disjunction(_disjuncts(e))


def quantity(e: Expr) -> str:
    """What a number counts, as a label: "cities", "advances costing 100 or more", "3"."""
    words = _noun_of(e)
    return words[1] if words is not None else quantity_words(e)


def quantity_text(e: Expr) -> str:
    """A number alone, in words ("3", "1 per city", "the smaller of ...")."""
    q = amount(e)
    return q.text() if isinstance(q, Count) else str(q)


# --- effects, modifiers -------------------------------------------------------------------


def effect(e: Effect | EffectBranch) -> str:
    """An effect in words; "" when it does nothing (a zero amount)."""
    if isinstance(e, EffectBranch):
        then = _effects(e.then) or "nothing happens"
        other = _effects(e.otherwise)
        text = f"with {condition(e.condition)}: {then}"
        return f"{text}; otherwise {other}" if other else text
    return effect_call(e.kind, e.args)


def effects(items) -> str:
    """Several effects in words, the ones that do nothing left out."""
    return "; ".join(t for t in (effect(x) for x in items) if t)


_effects = effects


def effect_call(kind_name: str, args: dict) -> str:
    """An effect in words; `args` may hold expressions (from the model) or plain values."""
    kind = vocab.EFFECT_KINDS.get(kind_name)
    return effect_text(kind_name, {name: _plain(kind, name, raw) for name, raw in args.items()})


def _plain(kind, name: str, raw):
    """One argument as effect_text takes it: a plain value as it is, the word of an enum, else an amount."""
    if not hasattr(raw, "span"):
        return raw
    p = kind.param(name) if kind else None
    if isinstance(raw, Name) and p is not None and p.kind == "enum":
        return raw.parts[0]
    return _all_of(amount(raw), kind, name)


def _all_of(q, kind, param: str):
    """1 per ship as the number of ships lost is "all your ships"."""
    own = kind.noun(param) if kind else None
    if own and _one_per_unit(q) and own[0].split()[0] == q.per[0].split()[0]:
        return Count(all_of=q.per)
    return q


def _one_per_unit(q) -> bool:
    """1 per unit, with no cap and no floor: as many as there are units."""
    return isinstance(q, Count) and bool(q.per) and q.rate == 1 and q.cap is None and q.floor is None


def _op_words(o: ModifierOp) -> tuple[str, str]:
    kind = vocab.EFFECT_KINDS.get(o.kind or "")
    words = kind.noun(o.param) if kind else None
    if words is None:
        what = " ".join(x for x in (o.kind, o.param) if x).replace("_", " ")
        words = (what, what)
    return words


class _OpText(NodeVisitor):
    """The words of each modifier operation type, one `visit_<Op>` each."""

    def visit_ImmuneOp(self, o: ImmuneOp) -> str:
        return "suffers nothing"

    def visit_CancelOp(self, o: CancelOp) -> str:
        return "the calamity is cancelled"

    def visit_StopOp(self, o: StopOp) -> str:
        return f"may {effect_call(o.replacement.name, _args(o.replacement))} to stop the calamity for everyone"

    def visit_OptionOp(self, o: OptionOp) -> str:
        words = _op_words(o)
        replacement = effect_call(o.replacement.name, _args(o.replacement))
        if o.each:
            return f"may {replacement} per {words[0]} instead"
        return f"may {replacement} instead of the {words[1]}"

    def visit_ChangeOp(self, o: ChangeOp) -> str:
        text = change(o.op, amount(o.amount), _op_words(o))
        if o.per is not None:
            per = _noun_of(o.per)
            text += f" per {per[0]}" if per else f" for each of {quantity_words(o.per)}"
        return text


_OP_TEXT = _OpText()


def op(o: ModifierOp) -> str:
    return _OP_TEXT.visit(o)


def _args(call: Call) -> dict:
    kind = vocab.EFFECT_KINDS.get(call.name)
    names = [p.name for p in kind.params] if kind else []
    args = dict(zip(names, call.args))
    args.update(call.kwargs)
    return args


ROLE_TEXT = {"any": "", "primary": " (primary victim)", "secondary": " (secondary victim)"}


def modifier(m: Modifier) -> str:
    who = "every victim" if isinstance(m.condition, Bool) and m.condition.value else condition(m.condition)
    return f"{who}{ROLE_TEXT[m.role]}: {'; '.join(op(o) for o in m.ops)}"


def exclusion(x: Exclusion) -> str:
    if x.role:
        return f"not the {x.role}"
    return f"not a player with {condition(x.condition)}"


def _every_other(e: Expr) -> bool:
    """players - 1: every player but the victim."""
    return _is_op(e, ("-",)) and isinstance(e.left, Name) and e.left.dotted == "players" and \
        isinstance(e.right, Num) and e.right.value == 1


def secondary(cal: Calamity) -> str | None:
    """The secondary victims in words; None when there are none (a count of 0, no effect)."""
    sec = cal.secondary
    effects = _effects(sec.effects) if sec is not None else ""
    who = _secondary_victims(sec) if effects else None
    if who is None:
        return None
    text = f"{who}: {effects}"
    return text + f" ({', '.join(exclusion(x) for x in cal.exclusions)})" if cal.exclusions else text


def _secondary_victims(sec) -> str | None:
    """Who the secondary victims are, said before their effects; None when they are none."""
    if sec.share is not None:
        return f"other players share {quantity_text(sec.share)} among them, at most this much each"
    if _every_other(sec.count):
        return "every other player"
    return _counted_victims(sec.count)


def _counted_victims(count: Expr) -> str | None:
    """`count N` victims in words: a number, a count per something, or a number in one situation."""
    q, when = amount(count), step(count)
    if when is not None:
        n, situation = when
        return f"with {situation}, {n} other {noun(n, ('player', 'players'))} each"
    if isinstance(q, Count):
        return _victims_counted(q)
    return None if q == 0 else f"{q} other {noun(q, ('player', 'players'))} each"


def _victims_counted(q: Count) -> str:
    """Victims as many as a count: one per unit of a fact ("each of the players ..."), or the count."""
    if q.per and q.rate == 1 and q.cap is None:
        return f"each of the {q.per[1]}"
    return f"other players, as many as {q.text()}, each"


def cancelled(cal: Calamity) -> str | None:
    if not cal.cancel:
        return None
    # several `cancel when` lines are one disjunction: grouped together ("without Philosophy: ...")
    return "cancelled for a victim with " + _disjunction([d for c, _ in cal.cancel for d in _disjuncts(c)])


def unselecting(cal: Calamity) -> str | None:
    """`amounts { prevention unselect }` in words: what is selected before prevention unselects."""
    if cal.amounts.get("prevention") != ("unselect",):
        return None
    first = _first_unselecting(cal)
    if first is None:
        return None
    words = _op_words(first)
    return (f"the {words[1]} are selected first, never more than the victim has; "
            f"protection then unselects some and only the rest count")


def _first_unselecting(cal: Calamity) -> ModifierOp | None:
    """The first protection (`prevent`) of CAL against an effect whose selection prevention unselects."""
    return next((o for m in cal.modifiers for o in m.ops if o.op == "prevent" and o.kind in vocab.UNSELECT_KINDS), None)


def calamity(cal: Calamity) -> str:
    """The whole calamity in a few sentences, for charts and docstrings."""
    parts = [_effects(cal.primary) or "no effect", secondary(cal), cancelled(cal), unselecting(cal)]
    return " ".join(sentence(p) for p in parts if p)


def ability(kind_name: str, args: dict) -> str:
    kind = vocab.ABILITY_KINDS.get(kind_name)
    if kind is None:
        return kind_name.replace("_", " ")
    values = {p.name: args.get(p.name, p.default) for p in kind.params}
    try:
        return kind_template(kind_name, kind.text, values).format(**values)
    except (ValueError, TypeError, KeyError):
        return kind_name.replace("_", " ") + ": " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in args.items())


def beneficiary(cal: Calamity, edition=None) -> str:
    """Who gains from CAL in words: the declared kind, with the edition's own ranking (`resolution`) spelled out
    where the kind leaves the choice to it, so a chart never says "the edition's ranking" without saying which."""
    kind = cal.beneficiary
    if kind not in _RANKED_BENEFICIARIES:
        return vocab.BENEFICIARIES.get(kind, kind)
    ranked = _ranking_words(cal, edition)
    return ranked if kind == "most_stock" else f"the player who traded the card, else {ranked}"


_RANKED_BENEFICIARIES = ("most_stock", "trader_or_most_stock")

_RELATION_WORDS = {"others": "", "everyone": " (the victim included)", "land": " among the victim's land neighbours",
                   "water": " among the players bordering the victim by water",
                   "near": " among the players within reach of the victim",
                   "same_block": " among the players of the victim's trade-card block"}


def _separate_blocks(const: tuple[str, ...], edition) -> str:
    """When blocks are separate (`separate_blocks CONST`): from the constant's number of players."""
    value = edition.consts[const[0]].value if const and edition is not None and const[0] in edition.consts else None
    return f" (blocks are separate from {value} players)" if isinstance(value, int) else ""


def _setting(cal: Calamity, edition, name: str) -> tuple[str, ...]:
    """A `resolution` setting for CAL: its own, else the edition's, else the declared default."""
    if edition is not None:
        return edition.resolution_setting(name, cal)
    return cal.resolution.get(name, vocab.RESOLUTION_SETTINGS[name].default)


def _ranking_words(cal: Calamity, edition) -> str:
    """The beneficiary ranking of `resolution` (beneficiary_rank/prefer/ties/among) as one phrase."""
    ties = _setting(cal, edition, "beneficiary_ties")[0]
    return (_ranked_by(cal, edition) + _among(cal, edition)
            + ("; the victim breaks ties" if ties == "victim" else "; ties by A.S.T. order"))


def _ranked_by(cal: Calamity, edition) -> str:
    """"the player with the most X, then the most Y" (or the fewest)."""
    most = "fewest" if _setting(cal, edition, "beneficiary_prefer") == ("fewest",) else "most"
    facts = [name_words(f) for f in _setting(cal, edition, "beneficiary_rank")]
    words = f"the player with the {most} {facts[0]}" if facts else "a player"
    return words + "".join(f", then the {most} {f}" for f in facts[1:])


def _among(cal: Calamity, edition) -> str:
    """Among which players the beneficiary is ranked (and from how many players blocks are separate)."""
    among = _setting(cal, edition, "beneficiary_among")[0]
    words = _RELATION_WORDS.get(among, f" among the players related by {among.replace('_', ' ')}")
    if among == "same_block":
        words += _separate_blocks(_setting(cal, edition, "separate_blocks"), edition)
    return words


def cards_in_use(ed, table: str) -> str:
    """The bands of an advance's `supply table TABLE`: "1 with 2-3 players, 2 with 4-5 players"."""
    if table not in ed.tables:
        return table
    return ", ".join(f"{unparse(b.value)} with {_players(b.low, b.high)}" for b in ed.tables[table].bands)


def _players(low: int, high: int | None) -> str:
    if high is None:
        return f"{low} or more players"
    return f"{low} player{'' if low == 1 else 's'}" if low == high else f"{low}-{high} players"
