"""Rules in words: every effect, modifier, exclusion and ability renders itself as a short
English phrase generated from structure (never copied from a rulebook's prose).

Each node type has a renderer here; tests check that every vocabulary entry and every
modifier operation has one, so a chart can never print a class name instead of a rule.
"""

from __future__ import annotations

from . import vocabulary as vocab
from .phrases import effect_text
from .expressions import unparse
from .model import Calamity, Effect, EffectBranch, Exclusion, Modifier, ModifierOp
from .syntax import BinOp, Bool, Call, Expr, Name, Not, Num, Str

def condition(e: Expr) -> str:
    """A condition in words: holds("Law") and not holds("Democracy") -> 'Law and not Democracy'."""
    if isinstance(e, Call) and e.name == "holds" and e.args and isinstance(e.args[0], Str):
        return e.args[0].value
    if isinstance(e, Call) and e.name == "cards" and e.args and isinstance(e.args[0], Str):
        return f"{e.args[0].value} cards held"
    if isinstance(e, Bool):
        return "always" if e.value else "never"
    if isinstance(e, Not):
        return f"not {condition(e.operand)}"
    if isinstance(e, BinOp) and e.op in ("and", "or"):
        return f"{condition(e.left)} {e.op} {condition(e.right)}"
    if isinstance(e, BinOp):
        return f"{quantity(e.left)} {_COMPARE.get(e.op, e.op)} {quantity(e.right)}"
    if isinstance(e, Name):
        return e.dotted.replace("_", " ")
    return unparse(e)


_COMPARE = {"==": "is", "!=": "is not", "<": "below", "<=": "at most", ">": "above", ">=": "at least"}


def quantity(e: Expr) -> str:
    if isinstance(e, Num):
        return str(e.value)
    if isinstance(e, Name):
        return e.dotted.replace("_", " ")
    if isinstance(e, Call) and e.name == "cards" and e.args and isinstance(e.args[0], Str):
        return f"{e.args[0].value} cards held"
    if isinstance(e, Call) and e.name == "count_advances":
        bits = []
        for key, value in e.kwargs.items():
            bits.append({"cost_at_least": "costing {} or more", "cost_below": "costing under {}",
                         "vp": "worth {} VP", "group": "of group {}"}[key].format(quantity(value)))
        return "advances " + " and ".join(bits) if bits else "advances"
    return unparse(e)


def effect(e: Effect | EffectBranch) -> str:
    if isinstance(e, EffectBranch):
        then = "; ".join(effect(x) for x in e.then)
        other = "; ".join(effect(x) for x in e.otherwise)
        text = f"if {condition(e.condition)}: {then}"
        return f"{text}; otherwise {other}" if other else text
    return effect_call(e.kind, e.args)


def effect_call(kind_name: str, args: dict) -> str:
    """An effect in words; `args` may hold expressions (from the model) or plain values."""
    kind = vocab.EFFECT_KINDS.get(kind_name)
    plain = {}
    for name, raw in args.items():
        p = kind.param(name) if kind else None
        if hasattr(raw, "span"):
            plain[name] = raw.parts[0] if isinstance(raw, Name) and p is not None and p.kind == "enum" else quantity(raw)
        else:
            plain[name] = raw
    return effect_text(kind_name, plain)


def op(o: ModifierOp) -> str:
    what = (o.kind or "").replace("_", " ")
    if o.op == "immune":
        return "suffers nothing"
    if o.op == "cancel":
        return "the calamity is cancelled"
    if o.op == "option":
        each = " for each one" if o.each else ""
        return f"may {effect_call(o.replacement.name, _args(o.replacement))} instead of {what}{each}"
    amount = quantity(o.amount)
    per = f" per {quantity(o.per)}" if o.per is not None else ""
    target = f"{what} {o.param.replace('_', ' ')}" if o.param else what
    if o.op == "add":
        return f"{amount} more {target}{per}"
    if o.op == "prevent":
        return f"{amount} less {target}{per}"
    if o.op == "set":
        return f"{target} becomes {amount}"
    if o.op == "cap":
        return f"at most {amount} {target}"
    raise ValueError(o.op)


def _args(call: Call) -> dict:
    kind = vocab.EFFECT_KINDS.get(call.name)
    names = [p.name for p in kind.params] if kind else []
    args = dict(zip(names, call.args))
    args.update(call.kwargs)
    return args


ROLE_TEXT = {"any": "", "primary": " (primary victim)", "secondary": " (secondary victim)"}


def modifier(m: Modifier) -> str:
    return f"{condition(m.condition)}{ROLE_TEXT[m.role]}: {'; '.join(op(o) for o in m.ops)}"


def exclusion(x: Exclusion) -> str:
    if x.role:
        return f"not the {x.role}"
    return f"not a player with {condition(x.condition)}"


def secondary(cal: Calamity) -> str | None:
    sec = cal.secondary
    if sec is None:
        return None
    effects = "; ".join(effect(e) for e in sec.effects)
    if sec.share is not None:
        text = f"shares {quantity(sec.share)} in total among other players, each at most: {effects}"
    else:
        n = quantity(sec.count)
        text = f"{n} other player{'s' if n != '1' else ''} each: {effects}"
    if cal.exclusions:
        text += f" ({', '.join(exclusion(x) for x in cal.exclusions)})"
    return text


def calamity(cal: Calamity) -> str:
    """One sentence for the whole calamity, for charts and docstrings."""
    parts = ["; ".join(effect(e) for e in cal.primary) or "no effect"]
    sec = secondary(cal)
    if sec:
        parts.append(sec)
    if cal.cancel:
        parts.append("cancelled if " + " or ".join(condition(c) for c, _ in cal.cancel))
    return ". ".join(p[0].upper() + p[1:] for p in parts if p) + "."


def ability(kind_name: str, args: dict) -> str:
    kind = vocab.ABILITY_KINDS.get(kind_name)
    if kind is None:
        return kind_name.replace("_", " ")
    values = {p.name: args.get(p.name, p.default) for p in kind.params}
    try:
        return kind.text.format(**values)
    except (ValueError, TypeError, KeyError):
        return kind_name.replace("_", " ") + " " + ", ".join(f"{k}={v}" for k, v in args.items())


def beneficiary(name: str) -> str:
    return vocab.BENEFICIARIES.get(name, name)
