"""`civdsl explain RULEBOOK ITEM`: everything a rulebook says about one advance or calamity.

For an advance: its fields, what its abilities do in words, the credits it gives and the
credits it receives (group credits from every advance of its groups, specific credits aimed
at it), prerequisites both ways, and every calamity modifier that asks whether a player holds
it. For a calamity: its fields, the rule in words, each modifier with its source line. For
both: where the extends chain defines, replaces, changes or removes it (file:line), so that a
house rule's edits can be traced to the line that made them. Commodities are explained too.
"""

from __future__ import annotations

from pathlib import Path

from . import describe, roundexplain
from .expressions import quote, unparse
from .model import Advance, Calamity, Commodity, Edition, Effect
from .references import Index, index_chain, mentions
from .state import StateError


def _load(rulebook: str):
    from .api import RulebookError, locate
    from .frontend import check_file

    path = locate(rulebook)
    checked = check_file(Path(path))
    if not checked.ok:
        raise RulebookError(f"{rulebook} has errors", checked.diagnostics)
    return checked


def _find(ed: Edition, item: str, others: list[str]) -> tuple[str, str, str | None]:
    """(kind, name, the name asked for when it was an `aka`); `others`: more names to suggest."""
    pools = (("advance", ed.advances), ("calamity", ed.calamities), ("commodity", ed.commodities),
             ("civilization", ed.civilizations))
    for kind, pool in pools:
        if item in pool:
            return kind, item, None
    lowered = item.casefold()
    for kind, pool in pools:
        for name in pool:
            if name.casefold() == lowered:
                return kind, name, None
    for kind, pool in pools:
        for name, obj in pool.items():
            if any(a.casefold() == lowered for a in obj.aka):
                return kind, name, item
    from .diagnostics import did_you_mean

    names = list(ed.advances) + list(ed.calamities) + list(ed.commodities) + list(ed.civilizations) + others
    best = did_you_mean(item, names)
    hint = f" (did you mean `{best}`?)" if best else ""
    raise StateError(f"{ed.id} has no advance, calamity, commodity or civilization `{item}`{hint}")


def _history(index: Index, kind: str, names: set[str], files: int) -> list[str]:
    """Every statement of the chain that defines, replaces, changes or removes the item (the
    declarations, changes and removals of the index of references, in chain order)."""
    out = []
    declared = False
    for ref in index.refs:
        if ref.kind != kind or ref.name not in names or ref.role == "ref":
            continue
        item, ast = ref.part, index.asts[ref.file]
        where = f"{item.span.path}:{item.span.line}"
        role = "base " if ref.file < files - 1 else ""
        if ref.role == "def":
            verb = "replaced whole" if declared and ref.file > 0 else "defined"
            declared = True
            out.append(f"{where}  {verb}: {kind} {quote(item.name)} (in {role}{ast.edition})")
        elif ref.role == "change":
            out.append(f"{where}  changed: {_changed_fields(item)} (in {role}{ast.edition})")
            out += _drops(item)
        else:
            out.append(f"{where}  removed (in {role}{ast.edition})")
    return out


def _changed_fields(item) -> str:
    return ", ".join(dict.fromkeys(f.key if f.key != "modifier" else "when" for f in item.fields)) or "nothing"


def _drops(item) -> list[str]:
    out = []
    for f in item.fields:
        if f.key == "drop":
            cond, r = f.value
            out.append(f"{f.span.path}:{f.span.line}    drops the modifier `when {unparse(cond)}`"
                       + (f" for {r}" if r != "any" else ""))
    return out


def _where(span) -> str:
    return f"{span.path}:{span.line}"


def explain_item(rulebook: str, item: str) -> str:
    """Everything RULEBOOK says about ITEM (an advance, a calamity or a commodity), as text.

    Raises StateError (with a did-you-mean) for an unknown item, RulebookError when the
    rulebook does not check.
    """
    checked = _load(rulebook)
    ed = checked.edition
    index = index_chain(checked.chain)
    round_name = roundexplain.find(index, item)  # a stat, a dice pool, ... of the round rules
    if round_name is not None:
        return roundexplain.explain(ed, index, *round_name)
    kind, name, asked = _find(ed, item, roundexplain.names(index))
    obj = {"advance": ed.advances, "calamity": ed.calamities, "commodity": ed.commodities,
           "civilization": ed.civilizations}[kind][name]
    title = f"{name}: {kind} in {ed.id} ({ed.name})"
    lines = [title, "=" * len(title)]
    if asked:
        lines.append(f"(`{asked}` is another name of {name}: aka)")
    if kind == "advance":
        lines += _advance(ed, obj, index)
    elif kind == "calamity":
        lines += _calamity(ed, obj)
    elif kind == "civilization":
        lines += _civilization(ed, obj)
    else:
        lines += _commodity(ed, obj)
    lines += ["", "Source lines (the extends chain, base first):"]
    history = _history(index, kind, {name, *obj.aka}, len(checked.chain))
    lines += ["  " + h for h in history] or [f"  {_where(obj.span)}"]
    return "\n".join(lines)


def _advance(ed: Edition, adv: Advance, index: Index) -> list[str]:
    # the advances, calamities and tracks that name it: its uses in force in the index of references
    users = {(r.owner, r.via) for r in index.uses("advance", adv.name) if index.in_force(r)}
    out = _advance_head(ed, adv)
    out += _prerequisites(ed, adv, users)
    out += _credits_given(adv)
    out += _credits_received(ed, adv, users)
    out += _calamities_naming(ed, adv, users)
    out += _requirements_naming(ed, adv, users)
    if adv.notes:
        out += ["", "Notes:"] + [f"  {n}" for n in adv.notes]
    return out


def _advance_head(ed: Edition, adv: Advance) -> list[str]:
    vp = f", {adv.vp} VP" if adv.vp is not None else ""
    cost = adv.cost if adv.cost is not None else "unknown"
    out = [f"cost {cost}{vp}; group{'s' if len(adv.groups) != 1 else ''} "
           f"{', '.join(ed.groups[g].name if g in ed.groups else g for g in adv.groups) or 'none'}"
           + (f"; supply {adv.supply} cards" if adv.supply is not None else ""),
           f"defined at {_where(adv.span)}"]
    if adv.summary:
        out.append(f"summary: {adv.summary}")
    if adv.aka:
        out.append("also called: " + ", ".join(adv.aka))
    if adv.abilities:
        out += ["", "Abilities:"]
        out += [f"  {describe.ability(a.kind, a.args)}  [{unparse(a.call)}]  {_where(a.span)}" for a in adv.abilities]
    return out


def _prerequisites(ed: Edition, adv: Advance, users: set) -> list[str]:
    needed_by = [a.name for a in ed.advances.values() if (("advance", a.name), "requires") in users]
    return ["", "Prerequisites:",
            "  requires: " + (", ".join(adv.requires) if adv.requires else "nothing"),
            "  required by: " + (", ".join(needed_by) if needed_by else "nothing")]


def _credits_given(adv: Advance) -> list[str]:
    out = ["", "Credits it gives (while held, towards later purchases):"]
    if adv.credits:
        out.append("  group credits: " + ", ".join(f"{g} {n}" for g, n in adv.credits.items()))
    out += [f"  {s.amount} towards {s.target}  {_where(s.span)}" for s in adv.specific]
    if not adv.credits and not adv.specific:
        out.append("  none")
    return out


def _credits_received(ed: Edition, adv: Advance, users: set) -> list[str]:
    out = ["", f"Credits towards buying it (credit policy {ed.credit_policy}):"]
    for g in adv.groups:
        givers = [(a.name, a.credits[g]) for a in ed.advances.values() if a.credits.get(g) and a.name != adv.name]
        if givers:
            out.append(f"  {g} credits from: " + ", ".join(f"{n} {amt}" for n, amt in givers))
    out += [f"  {s.amount} from {a.name} (specific)  {_where(s.span)}" for a in ed.advances.values()
            if (("advance", a.name), "credit") in users for s in a.specific if s.target == adv.name]
    return out if len(out) > 2 else out + ["  none"]


def _calamities_naming(ed: Edition, adv: Advance, users: set) -> list[str]:
    out = []
    for cal in ed.calamities.values():
        if (("calamity", cal.name), "holds") not in users:
            continue
        out += [f"  {cal.name}: {describe.modifier(m)}  {_where(m.span)}" for m in cal.modifiers
                if adv.name in m.advances]
        out += [f"  {cal.name}: {describe.exclusion(x)} may be chosen as a secondary victim  {_where(x.span)}"
                for x in cal.exclusions if x.condition is not None and mentions(x.condition, "advance", adv.name)]
        out += [f"  {cal.name}: cancelled if {describe.condition(c)}  {_where(span)}" for c, span in cal.cancel
                if mentions(c, "advance", adv.name)]
    return ["", "Calamities that mention it:"] + (out or ["  none"])


def _requirements_naming(ed: Edition, adv: Advance, users: set) -> list[str]:
    epochs = [(t.id, e.name, r) for t in ed.asts.values() if (("ast", t.id), "holds") in users
              for e in t.epochs for r in e.requirements if mentions(r.expr, "advance", adv.name)]
    if not epochs:
        return []
    return ["", "A.S.T. requirements that mention it:"] + [
        f"  {t} / {e}: {unparse(r.expr)}  {_where(r.span)}" for t, e, r in epochs]


def _calamity(ed: Edition, cal: Calamity) -> list[str]:
    out = [f"stack {cal.stack}, {cal.klass}; beneficiary: {describe.beneficiary(cal, ed)}",
           f"defined at {_where(cal.span)}",
           f"in words: {describe.calamity(cal)}"]
    if cal.summary:
        out.append(f"summary: {cal.summary}")
    if cal.aka:
        out.append("also called: " + ", ".join(cal.aka))
    out += ["", "Primary victim:"]
    out += [f"  {describe.effect(e)}  [{_effect_text(e)}]  {_where(e.span)}" for e in cal.primary] or ["  nothing"]
    if cal.secondary is not None:
        out += ["", "Secondary victims:", f"  {describe.secondary(cal)}  {_where(cal.secondary.span)}"]
    if cal.exclusions:
        out += ["", "Who may not be a secondary victim:"]
        out += [f"  {describe.exclusion(x)}  {_where(x.span)}" for x in cal.exclusions]
    if cal.cancel:
        out += ["", "Cancelled when:"]
        out += [f"  {describe.condition(c)}  [{unparse(c)}]  {_where(s)}" for c, s in cal.cancel]
    out += ["", "Modifiers (in source order; adds and prevents, then set by priority, then cap):"]
    if cal.modifiers:
        for m in cal.modifiers:
            prio = f" priority {m.priority}" if m.priority else ""
            out.append(f"  {describe.modifier(m)}  [when {unparse(m.condition)}"
                       f"{'' if m.role == 'any' else ' for ' + m.role}{prio}]  {_where(m.span)}")
    else:
        out.append("  none")
    mentioned = sorted({a for m in cal.modifiers for a in m.advances})
    out += ["", "Advances it mentions: " + (", ".join(mentioned) if mentioned else "none")]
    if cal.notes:
        out += ["", "Notes:"] + [f"  {n}" for n in cal.notes]
    return out


def _effect_text(e) -> str:
    if isinstance(e, Effect):
        return unparse(e.call)
    return f"if {unparse(e.condition)} ..."


def _commodity(ed: Edition, com: Commodity) -> list[str]:
    out = [f"value {com.value}, {com.count} cards, stack {com.stack}" + (f", block {com.block}" if com.block else ""),
           f"defined at {_where(com.span)}"]
    if com.printed:
        out.append("printed set values: " + ", ".join(map(str, com.printed)))
    if com.summary:
        out.append(f"summary: {com.summary}")
    if com.aka:
        out.append("also called: " + ", ".join(com.aka))
    uses = [(cal.name, m) for cal in ed.calamities.values() for m in cal.modifiers
            if mentions(m.condition, "commodity", com.name) or mentions(m.ops, "commodity", com.name)]
    out += ["", "Calamities that count it:"]
    out += [f"  {c}: {describe.modifier(m)}  {_where(m.span)}" for c, m in uses] or ["  none"]
    if com.notes:
        out += ["", "Notes:"] + [f"  {n}" for n in com.notes]
    return out


def _civilization(ed: Edition, civ) -> list[str]:
    """Its ranking, block and its row on each A.S.T. track: the spaces each epoch covers."""
    bits = [f"A.S.T. ranking {civ.rank}" if civ.rank is not None else "A.S.T. ranking not given"]
    if civ.block:
        bits.append(f"block {civ.block}")
    out = [", ".join(bits), f"defined at {_where(civ.span)}"]
    if civ.summary:
        out.append(f"summary: {civ.summary}")
    for track in ed.asts.values():
        row = civ.rows.get(track.id)
        if row is None:
            out += ["", f"{track.name}: no row (the epoch of a position is not known)"]
            continue
        spaces = row.spaces if row.spaces is not None else track.spaces
        firsts = [1] + list(row.starts)
        out += ["", f"{track.name} ({spaces} spaces after the start arrow):"]
        for i, epoch in enumerate(track.epochs):
            last = firsts[i + 1] - 1 if i + 1 < len(firsts) else spaces
            span = f"space {firsts[i]}" if last == firsts[i] else f"spaces {firsts[i]}-{last}"
            out.append(f"  {epoch.name}: {span}")
    if civ.notes:
        out += ["", "Notes:"] + [f"  {n}" for n in civ.notes]
    return out
