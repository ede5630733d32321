"""Hover: a summary generated from the resolved rules (never the rulebook's prose) and where the
chain declares the thing; on a field keyword its meaning (fields.py); on a word of the vocabulary
its signature and doc."""

from __future__ import annotations

from typing import Any

from .. import describe, roundexplain
from .. import fields as item_fields
from .. import vocabulary as vocab
from ..diagnostics import did_you_mean
from ..expressions import unparse
from .engine import Analysis
from .files import FileInfo, Symbol
from .navigation import Target, definitions, target_at
from .tokens import Tok, block_opener, unquote_string

def _where(f: FileInfo, s: Symbol) -> str:
    return f"{f.display}:{f.position(s.start)[0] + 1}"


def advance_summary(adv, edition) -> str:
    vp = adv.vp if adv.vp is not None else edition.tier_vp(adv.cost)
    bits = ["cost unknown" if adv.cost is None else f"cost {adv.cost}",
            _listed("groups" if len(adv.groups) > 1 else "group", adv.groups),
            f"{vp} VP" if vp is not None else "",
            _listed("credits", [f"{g} {n}" for g, n in adv.credits.items()]),
            *[f"credit {sc.amount} to {sc.target}" for sc in adv.specific],
            _listed("requires", adv.requires),
            f"supply {adv.supply}" if adv.supply is not None else "",
            *[describe.ability(ab.kind, ab.args) for ab in adv.abilities]]
    return "; ".join(b for b in bits if b)


def _listed(head: str, items) -> str:
    """`head a, b, c`; nothing for no items."""
    return f"{head} {', '.join(items)}" if items else ""


def calamity_summary(cal, edition=None) -> str:
    head = ", ".join(x for x in (f"stack {cal.stack}" if cal.stack is not None else None, cal.klass,
                                 f"beneficiary: {describe.beneficiary(cal, edition)}"
                                 if cal.beneficiary and cal.beneficiary != "none" else None) if x)
    return f"({head}) {describe.calamity(cal)}" if head else describe.calamity(cal)


def hover_text(analysis: Analysis, offset: int) -> tuple[str, Symbol | Tok] | None:
    """Markdown for the thing under the cursor, and the token it is about."""
    target = target_at(analysis, offset)
    if target is not None and target.kind == "edition":
        return _edition_hover(analysis, target)
    if target is not None:
        return _target_hover(analysis, target), target.symbol
    return _word_hover(analysis, offset)


def _edition_hover(analysis: Analysis, target: Target) -> tuple[str, Symbol] | None:
    defs = definitions(analysis, target)
    if not defs:
        return None
    info, sym = defs[0]
    tokens = [t for t in info.tokens if t.start > sym.start][:1]
    title = unquote_string(tokens[0].text) if tokens and tokens[0].kind == "string" else ""
    return f"**{sym.name}** (edition) {title}".rstrip() + f"\n\n`{info.display}`", target.symbol


# Names the vocabulary or the rulebook's header statements declare, hovered with their own text.
_WORD_KINDS = ("const", "table", "option", "fact")
# A kind of name in words, where it is not its own word.
_KIND_WORDS = {"track": "A.S.T. track", **roundexplain.KIND_WORDS}


def _target_hover(analysis: Analysis, target: Target) -> str:
    """What the thing is (from the resolved rules or the vocabulary), then where the chain declares
    it, or that nothing does."""
    edition = analysis.edition or analysis.last_edition
    if target.kind in _WORD_KINDS:
        lines = [vocabulary_hover(target.name, edition) or f"**{target.name}** ({target.kind})"]
    else:
        lines = [f"**{target.name}** ({_KIND_WORDS.get(target.kind, target.kind)})"]
        lines += _describe_target(edition, target)
    defs = definitions(analysis, target)
    if defs:
        lines.append(_declared_where(analysis, target, defs))
    elif target.kind not in ("track", "epoch", "fact"):
        best = did_you_mean(target.name, analysis.refs().names(target.kind))
        lines.append(f"no {target.kind} `{target.name}` is declared in this rulebook or its bases"
                     + (f"; did you mean `{best}`?" if best else ""))
    return "\n\n".join(lines)


def _declared_where(analysis: Analysis, target: Target, defs: list[tuple[FileInfo, Symbol]]) -> str:
    """Where the declaration in force is, the declarations of earlier files it replaces, the others
    of its own file (a colour of two suits) and the `change`s of the chain."""
    def places(found) -> str:
        return ", ".join(f"`{_where(f, s)}`" for f, s in found)

    here = defs[0][0]
    changes = [analysis.located(r) for r in analysis.refs().named(target.kind, target.name, target.scope)
               if r.role == "change"]
    parts = (("defined at", defs[:1]), ("also at", [d for d in defs[1:] if d[0] is here]),
             ("replacing", [d for d in defs[1:] if d[0] is not here]), ("changed at", changes))
    return "; ".join(f"{words} {places(found)}" for words, found in parts if found)


def _word_hover(analysis: Analysis, offset: int) -> tuple[str, Tok] | None:
    """A keyword (a field of the enclosing item: what fields.ITEM_FIELDS says of it) or a word
    of the vocabulary."""
    i, tok = analysis.doc.token_at(offset)
    if tok is None or tok.kind not in ("name", "kw"):
        return None
    found = _field_at(analysis.doc.tokens, i) if tok.kind == "kw" else None
    if found is not None:
        return field_hover(*found), tok
    text = vocabulary_hover(tok.text, analysis.edition or analysis.last_edition)
    return (text, tok) if text else None


def _field_at(toks: list[Tok], i: int) -> tuple[str, Any] | None:
    """(item kind, field) of the keyword at token i when it is a field (fields.ITEM_FIELDS) of the
    item whose block it stands in."""
    kind = next((t.text for t in block_opener(toks, i) if t.kind == "kw" and t.text in item_fields.ITEM_FIELDS), "")
    spec = next((f for f in item_fields.ITEM_FIELDS.get(kind, ()) if f.word == toks[i].text), None)
    return (kind, spec) if spec is not None else None


def field_hover(kind: str, spec) -> str:
    """A field's hover: its meaning, what it holds and names, and what a house rule's `change` does."""
    lines = [f"**{spec.word}** ({kind} field: {spec.words})", spec.doc,
             f"holds {spec.type}" + (f", naming {spec.references}" if spec.references else "")
             + ("; may be given more than once" if spec.repeatable else "; given at most once")]
    if spec.change is not None:
        lines.append(f"in a `change`: {item_fields.CHANGES[spec.change]}")
    return "\n\n".join(lines)


def _describe_target(edition, target: Target) -> list[str]:
    describe_kind = _DESCRIBE.get(target.kind)
    return describe_kind(edition, target) if edition is not None and describe_kind is not None else []


def _describe_advance(edition, target: Target) -> list[str]:
    adv = edition.advances.get(target.name)
    if adv is None:
        return []
    return [advance_summary(adv, edition)] + ([f"*{adv.summary}*"] if adv.summary else []) + _rulings_hover(edition,
                                                                                                       adv.name)


def _describe_calamity(edition, target: Target) -> list[str]:
    cal = edition.calamities.get(target.name)
    if cal is None:
        return []
    modifiers = ["\n".join(f"- {describe.modifier(m)}" for m in cal.modifiers)] if cal.modifiers else []
    return [calamity_summary(cal, edition)] + modifiers + _rulings_hover(edition, cal.name)


def _rulings_hover(edition, name: str) -> list[str]:
    """The rulings about an item, a line each: question, expected answer, citation."""
    from .. import escape, rulings

    found = [rulings.summary(r) for r in rulings.rulings_of(edition, name)]
    if not found:
        return []
    return ["Rulings:\n" + "\n".join(f"- {escape.markdown(s['question'])} {escape.markdown(s['answer'])} "
                                     f"({escape.markdown(s['cited'])})" for s in found)]


def _describe_commodity(edition, target: Target) -> list[str]:
    com = edition.commodities.get(target.name)
    if com is None:
        return []
    bits = [words.format(getattr(com, attr)) for attr, words in _COMMODITY_WORDS if getattr(com, attr) is not None]
    if com.block:
        bits.append(f"block {com.block}")
    return ["; ".join(bits)]


# What hover says of a commodity's fields that it has, in order.
_COMMODITY_WORDS = (("value", "value {}"), ("count", "{} cards"), ("stack", "stack {}"))


def _describe_group(edition, target: Target) -> list[str]:
    g = edition.groups.get(target.name)
    if g is None:
        return []
    members = [a.name for a in edition.advances.values() if target.name in a.groups]
    deco = " ".join(x for x in (g.symbol, f"`{g.color}`" if g.color else None) if x)
    return [f"\"{g.name}\" {deco}".rstrip() + f"; {len(members)} advance{'s' if len(members) != 1 else ''}"]


def _describe_track(edition, target: Target) -> list[str]:
    t = edition.asts.get(target.name)
    return [f"\"{t.name}\": " + " → ".join(e.name for e in t.epochs)] if t is not None else []


def _describe_epoch(edition, target: Target) -> list[str]:
    t = edition.asts.get(target.scope)
    names = [e.name for e in t.epochs] if t is not None else []
    if target.name not in names:
        return []
    at = names.index(target.name)
    reqs = "; ".join(r.why or describe.condition(r.expr) for r in t.epochs[at].requirements) or "no requirements"
    return [f"epoch {at + 1} of {len(t.epochs)} on `{t.id}`: {reqs}"]


def _describe_round(edition, target: Target) -> list[str]:
    line = roundexplain.summary(edition, target.kind, target.name)
    return [line] if line is not None else []


_DESCRIBE = {"advance": _describe_advance, "calamity": _describe_calamity, "commodity": _describe_commodity,
             "group": _describe_group, "track": _describe_track, "epoch": _describe_epoch,
             **dict.fromkeys(roundexplain.KINDS, _describe_round)}


def signature(kind: vocab.Kind) -> str:
    params = ", ".join(p.name if p.required else f"{p.name}={p.default}" for p in kind.params)
    return f"{kind.name}({params})"


def call_signature(f) -> str:
    """A function of the vocabulary as it is called: `count(items, group=)`."""
    return f"{f.name}({', '.join(list(f.args) + [k + '=' for k in f.kwargs])})"


# What hover says about a word of the language, by the vocabulary table that declares it (the
# first table holding the word wins, in this order).
_VOCABULARY_HOVERS = (
    (vocab.EFFECT_KINDS, lambda word, k: f"**{signature(k)}** (effect kind)\n\n{k.doc}"),
    (vocab.ABILITY_KINDS, lambda word, k: f"**{signature(k)}** (ability)\n\n{k.doc}"),
    (vocab.FUNCTIONS, lambda word, f: f"**{call_signature(f)}** (function)\n\n{f.doc}"),
    (vocab.FACTS, lambda word, f: f"**{f.name}** (player fact, {f.type})\n\n{f.doc}"),
    (vocab.DERIVED_NAMES, lambda word, doc: f"**{word}** (derived name)\n\n{doc}"),
    (vocab.CREDIT_POLICIES, lambda word, doc: f"**{word}** (credit policy)\n\n{doc}"),
    (vocab.BENEFICIARIES, lambda word, doc: f"**{word}** (beneficiary)\n\n{doc}"),
)


def vocabulary_hover(word: str, edition=None) -> str | None:
    for table, say in _VOCABULARY_HOVERS:
        if word in table:
            return say(word, table[word])
    return _edition_word_hover(word, edition) if edition is not None else None


def _edition_word_hover(word: str, edition) -> str | None:
    """A constant, table or option the rulebook declares, with its value and doc."""
    for pool, say in _EDITION_WORDS:
        declared = getattr(edition, pool).get(word)
        if declared is not None:
            return say(word, declared)
    return None


def _paragraphs(*texts: str | None) -> str:
    return "\n\n".join(t for t in texts if t)


def _const_hover(word: str, c) -> str:
    value = c.value if c.value is not None else unparse(c.expr)
    engine = vocab.ENGINE_NAMES.get(word)
    return _paragraphs(f"**{word}** = {value} (constant)", c.doc,
                       f"read by the engine: {engine.doc}" if engine is not None else None)


def _table_hover(word: str, t) -> str:
    bands = ", ".join(f"{b.low}..{'' if b.high is None else b.high}: {unparse(b.value)}" for b in t.bands)
    return _paragraphs(f"**{word}** (table) {{ {bands} }}", t.doc)


def _option_hover(word: str, o) -> str:
    return _paragraphs(f"**{word}** (option, {'on' if o.on else 'off'})", o.doc)


# The rulebook's own words hover shows, by the edition's pool declaring them (first match first).
_EDITION_WORDS = (("consts", _const_hover), ("tables", _table_hover), ("options", _option_hover))
