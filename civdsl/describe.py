"""Rules in words: every effect, modifier, exclusion and ability renders itself as a short
English phrase generated from structure (never copied from a rulebook's prose).

Each node type has a renderer here; tests check that every vocabulary entry and every
modifier operation has one, so a chart can never print a class name instead of a rule. The
words (nouns with their plurals, templates) are declared in the vocabulary; the grammar that
puts them together is in phrases.py. A number that depends on the situation is said in words
("1 point of damage per city", "at least 2 cities, 1 with Wonder of the World"), never as an
expression; a clause whose number is zero disappears.
"""

from __future__ import annotations

from . import vocabulary as vocab
from .model import Calamity, Effect, EffectBranch, Exclusion, Modifier, ModifierOp
from .phrases import Count, change, effect_text, fact_words, name_words, noun, sentence
from .syntax import (BinOp, Bool, Call, CancelOp, ChangeOp, Expr, ImmuneOp, Name, Neg, NodeVisitor, Not, Num, OptionOp,
                     Str, StopOp)

_COMPARE = {"==": "is", "!=": "is not", "<": "is below", "<=": "is at most", ">": "is above", ">=": "is at least"}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_COUNT_FILTERS = {"cost_at_least": "costing {} or more", "cost_below": "costing under {}",
                  "vp": "worth {} VP", "group": "of group {}"}

# --- numbers ------------------------------------------------------------------------------


def _noun_of(e: Expr) -> tuple[str, str] | None:
    """What one unit of a countable expression is: a fact's noun, "Grain card held", ..."""
    if isinstance(e, Name) and len(e.parts) == 1:
        return fact_words(e.parts[0])
    if isinstance(e, Call) and e.name == "cards" and e.args and isinstance(e.args[0], Str):
        return (f"{e.args[0].value} card held", f"{e.args[0].value} cards held")
    if isinstance(e, Call) and e.name == "neighbours":  # a table query: other players bordering this one
        by = _relation(e, "by", "land")
        return (f"other player bordering by {by}", f"other players bordering by {by}")
    if isinstance(e, Call) and e.name == "count_advances":
        bits = " and ".join(_COUNT_FILTERS[k].format(quantity_words(v)) for k, v in e.kwargs.items()
                            if k in _COUNT_FILTERS)
        return ("advance " + bits if bits else "advance", "advances " + bits if bits else "advances")
    return None


def amount(e: Expr):
    """A number: an int when the rulebook wrote one, else a phrases.Count in words."""
    if isinstance(e, Num):
        return e.value
    words = _noun_of(e)
    if words is not None:
        return Count(per=words)
    if isinstance(e, BinOp) and e.op == "*":
        found = _scaled(e.left, e.right) or _scaled(e.right, e.left)
    elif isinstance(e, Call) and e.name in ("min", "max") and len(e.args) == 2:
        found = _bounded(e.name, e.args[0], e.args[1]) or _bounded(e.name, e.args[1], e.args[0])
    else:
        found = None
    return found or Count(words=quantity_words(e))


def _scaled(a: Expr, b: Expr) -> Count | None:
    """N * (a count per unit): N times the rate."""
    inner = amount(b)
    if isinstance(a, Num) and isinstance(inner, Count) and inner.per and inner.cap is None:
        return Count(rate=a.value * inner.rate, per=inner.per)
    return None


def _bounded(fn: str, a: Expr, b: Expr) -> Count | None:
    """min(N, a count) or max(N, a count): the count with a cap or a floor."""
    inner = amount(b)
    if not (isinstance(a, Num) and isinstance(inner, Count) and inner.per):
        return None
    if fn == "min" and inner.cap is None:
        return Count(rate=inner.rate, per=inner.per, cap=a.value, floor=inner.floor)
    if fn == "max" and inner.floor is None:
        return Count(rate=inner.rate, per=inner.per, cap=inner.cap, floor=a.value)
    return None


def quantity_words(e: Expr) -> str:
    """Any number as a noun phrase, operators said in words."""
    words = _noun_of(e)
    if words is not None:
        return f"the {words[1]}"
    say = _QUANTITY_WORDS.get(type(e))
    return say(e) if say is not None else condition(e)


_SAID = {"+": "plus", "-": "minus", "*": "times", "/": "divided by", "//": "divided by", "%": "modulo"}


def _binop_words(e: BinOp) -> str:
    left, right = quantity_words(e.left), quantity_words(e.right)
    if e.op == "*" and isinstance(e.left, Num):
        return {1: right, 2: f"twice {right}"}.get(e.left.value, f"{e.left.value} times {right}")
    text = f"{left} {_SAID.get(e.op, e.op)} {right}"
    return text + ", rounded down" if e.op == "//" else text


# a function of one number, in words ({} stands for the number)
_ONE_ARG_WORDS = {"floor": "{}, rounded down", "ceil": "{}, rounded up", "sqrt": "the square root of {}",
                  "abs": "the size of {}"}


def _call_words(e: Call) -> str:
    if len(e.args) == 2 and e.name in ("min", "max"):
        which = "smaller" if e.name == "min" else "larger"
        return f"the {which} of {quantity_words(e.args[0])} and {quantity_words(e.args[1])}"
    if e.name == "most_among" and e.args:  # table queries, in the players' words
        among = _relation(e, "among", "others")
        who = {"others": "other players", "everyone": "players", "near": "players within reach"}.get(
            among, f"players bordering by {among}")
        return f"the most {quantity_words(e.args[0]).removeprefix('the ')} among the {who}"
    if e.name in ("of_beneficiary", "of_trader") and e.args:
        return f"the {e.name.removeprefix('of_')}'s {quantity_words(e.args[0]).removeprefix('the ')}"
    if len(e.args) == 1:
        return _ONE_ARG_WORDS.get(e.name, "{}").format(quantity_words(e.args[0]))
    return condition(e)


# how each kind of expression node is said as a quantity (others: as a condition)
_QUANTITY_WORDS = {
    Num: lambda e: str(e.value),
    Str: lambda e: f"“{e.value}”",
    Name: lambda e: e.dotted.replace("_", " ").replace(".", " "),
    Neg: lambda e: f"minus {quantity_words(e.operand)}",
    BinOp: _binop_words,
    Call: _call_words,
}


def _relation(e: Call, key: str, default: str) -> str:
    value = e.kwargs.get(key)
    return value.parts[0] if isinstance(value, Name) else default


def _evaluate(e: Expr, name: str, x: int):
    """The value of an expression of one fact NAME at X, for the few operators a count uses."""
    if isinstance(e, Num):
        return e.value
    if isinstance(e, Name):
        return x if e.dotted == name else None
    if isinstance(e, Neg):
        v = _evaluate(e.operand, name, x)
        return None if v is None else -v
    if isinstance(e, BinOp) and e.op in ("+", "-", "*"):
        a, b = _evaluate(e.left, name, x), _evaluate(e.right, name, x)
        if a is None or b is None:
            return None
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    if isinstance(e, Call) and e.name in ("min", "max") and len(e.args) == 2:
        a, b = (_evaluate(arg, name, x) for arg in e.args)
        if a is None or b is None:
            return None
        return min(a, b) if e.name == "min" else max(a, b)
    return None


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
    if words is None or None in values or len(set(values)) != 2 or 0 not in values:
        return None
    cut = next(i for i in range(1, 41) if values[i] != values[i - 1])
    if any(values[i] != values[cut] for i in range(cut, 41)):
        return None
    if values[0] != 0:
        when = f"no {words[0]}" if cut == 1 else f"fewer than {cut} {words[1]}"
        return values[0], when
    return values[cut], f"at least {cut} {noun(cut, words)}"


# --- conditions ---------------------------------------------------------------------------


def _disjuncts(e: Expr) -> list[list[Expr]]:
    if isinstance(e, BinOp) and e.op == "or":
        return _disjuncts(e.left) + _disjuncts(e.right)
    return [_conjuncts(e)]


def _conjuncts(e: Expr) -> list[Expr]:
    if isinstance(e, BinOp) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _held(e: Expr) -> tuple[str, bool] | None:
    """(advance, held?) for holds("X") and not holds("X")."""
    if isinstance(e, Call) and e.name == "holds" and e.args and isinstance(e.args[0], Str):
        return e.args[0].value, True
    if isinstance(e, Not):
        inner = _held(e.operand)
        if inner is not None:
            return inner[0], not inner[1]
    return None


def _comparison(e: Expr) -> tuple[tuple[str, str], str, int] | None:
    """(noun, operator, number) for a countable expression compared with a number."""
    if not isinstance(e, BinOp) or e.op not in _FLIP:
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
    """One condition that is not an and/or."""
    cmp = _comparison(e)
    if cmp is not None:
        words, op, n = cmp
        return _amount_phrase(op, n, words)
    if isinstance(e, Bool):
        return "always" if e.value else "never"
    fact = _state_fact(e)
    if fact is not None:
        return fact
    if isinstance(e, Call) and e.name == "holds" and e.args and isinstance(e.args[0], Str):
        return e.args[0].value
    if isinstance(e, Not):
        return f"not {condition(e.operand)}"
    if isinstance(e, BinOp) and e.op in _COMPARE:
        return f"{quantity_words(e.left)} {_COMPARE[e.op]} {quantity_words(e.right)}"
    if isinstance(e, BinOp) and e.op in ("and", "or"):
        return condition(e)
    return quantity_words(e)


def _state_fact(e: Expr) -> str | None:
    """A yes/no or text fact in its declared words: traded_by != "" -> "a card traded to the victim"."""
    negated = False
    if isinstance(e, Not):
        e, negated = e.operand, True
    if isinstance(e, Name) and len(e.parts) == 1:
        fact, holds = vocab.FACTS.get(e.parts[0]), True
    elif isinstance(e, BinOp) and e.op in ("==", "!=") and isinstance(e.left, Name) and isinstance(e.right, Str) \
            and e.right.value == "":
        fact, holds = vocab.FACTS.get(e.left.dotted), e.op == "!="
    else:
        return None
    if fact is None or fact.states is None:
        return None
    return fact.states[0] if holds != negated else fact.states[1]


def _names_list(names: list[str], word: str) -> str:
    """"A and B"; with a serial comma when a name holds the word itself ("Music, and Drama and Poetry")."""
    if len(names) < 2:
        return "".join(names)
    if any(f" {word} " in n for n in names):
        return ", ".join(names[:-1]) + f", {word} " + names[-1]
    return ", ".join(names[:-1]) + f" {word} " + names[-1]


def _advances_text(held: list[tuple[str, bool]]) -> str:
    having = [n for n, h in held if h]
    lacking = [n for n, h in held if not h]
    text = _names_list(having, "and")
    if lacking:
        text += (" " if text else "") + "without " + _names_list(lacking, "or")
    return text


def _conjunction(lits: list[Expr]) -> str:
    held = [h for h in (_held(x) for x in lits) if h is not None]
    rest = [_literal(x) for x in lits if _held(x) is None]
    parts = [_advances_text(held)] if held else []
    return " and ".join(parts + rest)


def _compact(ds: list[list[Expr]]) -> str | None:
    """Alternatives that differ in one threshold: "at least 2 cities, 1 with Wonder of the World"."""
    rows = []
    for d in ds:
        cmps = [x for x in d if _held(x) is None]
        if len(cmps) != 1 or _comparison(cmps[0]) is None:
            return None
        rows.append((_comparison(cmps[0]), [_held(x) for x in d if _held(x) is not None]))
    if len({(words, op) for (words, op, _), _ in rows}) != 1 or len(rows) < 2:
        return None
    out = []
    for i, ((words, op, n), held) in enumerate(rows):
        text = _amount_phrase(op, n, words) if i == 0 else str(n)
        if held:
            adv = _advances_text(held)
            text += f" {adv}" if adv.startswith("without") else f" with {adv}"
        out.append(text)
    return ", ".join(out)


def _disjunction(ds: list[list[Expr]]) -> str:
    if len(ds) == 1:
        return _conjunction(ds[0])
    # group the alternatives around the advance most of them name: "without Philosophy: ..."
    key = _common_held(ds)
    if key is None:
        return _alternatives(ds, "; or ")
    has_key = [key in {_held(x) for x in d} for d in ds]
    inside = [[x for x in d if _held(x) != key] for d, k in zip(ds, has_key) if k]
    outside = [d for d, k in zip(ds, has_key) if not k]
    label = ("with " if key[1] else "without ") + key[0]
    # one level of grouping only: a nested group would read as a sibling of its parent
    group = label if any(not d for d in inside) else f"{label}: {_alternatives(inside, ', or ')}"
    if not outside:
        return group
    pieces = sorted([(has_key.index(True), group), (has_key.index(False), _alternatives(outside, "; or "))])
    return "; or ".join(text for _, text in pieces)


def _common_held(ds: list[list[Expr]]) -> tuple[str, bool] | None:
    """(advance, held) that two or more of the alternatives test, the most often tested; or None."""
    counts: dict[tuple[str, bool], int] = {}
    for d in ds:
        for h in {_held(x) for x in d} - {None}:
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
    plain = {}
    for name, raw in args.items():
        p = kind.param(name) if kind else None
        if not hasattr(raw, "span"):
            plain[name] = raw
        elif isinstance(raw, Name) and p is not None and p.kind == "enum":
            plain[name] = raw.parts[0]
        else:
            plain[name] = _all_of(amount(raw), kind, name)
    return effect_text(kind_name, plain)


def _all_of(q, kind, param: str):
    """1 per ship as the number of ships lost is "all your ships"."""
    own = kind.noun(param) if kind else None
    if isinstance(q, Count) and q.per and q.rate == 1 and q.cap is None and q.floor is None and own \
            and own[0].split()[0] == q.per[0].split()[0]:
        return Count(all_of=q.per)
    return q


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
    return (isinstance(e, BinOp) and e.op == "-" and isinstance(e.left, Name) and e.left.dotted == "players"
            and isinstance(e.right, Num) and e.right.value == 1)


def secondary(cal: Calamity) -> str | None:
    """The secondary victims in words; None when there are none (a count of 0, no effect)."""
    sec = cal.secondary
    if sec is None:
        return None
    effects = _effects(sec.effects)
    if not effects:
        return None
    if sec.share is not None:
        text = f"other players share {quantity_text(sec.share)} among them, each at most: {effects}"
    elif _every_other(sec.count):
        text = f"every other player: {effects}"
    else:
        q, when = amount(sec.count), step(sec.count)
        if when is not None:
            n, situation = when
            text = f"with {situation}, {n} other {noun(n, ('player', 'players'))} each: {effects}"
        elif isinstance(q, Count) and q.per and q.rate == 1 and q.cap is None:
            text = f"each of the {q.per[1]}: {effects}"
        elif isinstance(q, Count):
            text = f"other players, as many as {q.text()}, each: {effects}"
        elif q == 0:
            return None
        else:
            text = f"{q} other {noun(q, ('player', 'players'))} each: {effects}"
    if cal.exclusions:
        text += f" ({', '.join(exclusion(x) for x in cal.exclusions)})"
    return text


def cancelled(cal: Calamity) -> str | None:
    if not cal.cancel:
        return None
    # several `cancel when` lines are one disjunction: grouped together ("without Philosophy: ...")
    return "cancelled for a victim with " + _disjunction([d for c, _ in cal.cancel for d in _disjuncts(c)])


def unselecting(cal: Calamity) -> str | None:
    """`amounts { prevention unselect }` in words: what is selected before prevention unselects."""
    if cal.amounts.get("prevention") != ("unselect",):
        return None
    ops = [o for m in cal.modifiers for o in m.ops if o.op == "prevent" and o.kind in vocab.UNSELECT_KINDS]
    if not ops:
        return None
    words = _op_words(ops[0])
    return (f"the {words[1]} are selected first, never more than the victim has; "
            f"protection then unselects some and only the rest count")


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
        return kind.text.format(**values)
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


def _ranking_words(cal: Calamity, edition) -> str:
    """The beneficiary ranking of `resolution` (beneficiary_rank/prefer/ties/among) as one phrase."""
    def setting(name: str) -> tuple[str, ...]:
        if edition is not None:
            return edition.resolution_setting(name, cal)
        return cal.resolution.get(name, vocab.RESOLUTION_SETTINGS[name].default)

    most = "fewest" if setting("beneficiary_prefer") == ("fewest",) else "most"
    facts = [name_words(f) for f in setting("beneficiary_rank")]
    words = f"the player with the {most} {facts[0]}" if facts else "a player"
    words += "".join(f", then the {most} {f}" for f in facts[1:])
    among = setting("beneficiary_among")[0]
    words += _RELATION_WORDS.get(among, f" among the players related by {among.replace('_', ' ')}")
    if among == "same_block":
        words += _separate_blocks(setting("separate_blocks"), edition)
    ties = setting("beneficiary_ties")[0]
    return words + ("; the victim breaks ties" if ties == "victim" else "; ties by A.S.T. order")
