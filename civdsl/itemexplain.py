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
from . import fields as item_fields
from . import vocabulary as vocab
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


# the item kinds `explain` answers for, in the order a name is looked up, with their pools
_POOLS = {"advance": "advances", "calamity": "calamities", "commodity": "commodities",
          "civilization": "civilizations"}


def _match_rank(item: str, name: str, obj) -> int | None:
    """How well NAME answers ITEM: 0 exactly, 1 but for case, 2 as one of its `aka`; None not at all."""
    if name == item:
        return 0
    lowered = item.casefold()
    if name.casefold() == lowered:
        return 1
    return 2 if any(a.casefold() == lowered for a in obj.aka) else None


def _find(ed: Edition, item: str, others: list[str]) -> tuple[str, str, str | None]:
    """(kind, name, the name asked for when it was an `aka`): the best match, an exact name
    before a name but for case before an `aka`, in the order of _POOLS; `others`: more names to
    suggest for an unknown one."""
    found = [(rank, order, kind, name) for order, (kind, pool) in enumerate(_POOLS.items())
             for name, obj in getattr(ed, pool).items() if (rank := _match_rank(item, name, obj)) is not None]
    if not found:
        raise _unknown(ed, item, others)
    rank, _, kind, name = min(found, key=lambda m: m[:2])
    return kind, name, item if rank == 2 else None


def _unknown(ed: Edition, item: str, others: list[str]) -> StateError:
    """The error for a name the edition does not declare, with the nearest name it does."""
    from .diagnostics import did_you_mean

    best = did_you_mean(item, [name for pool in _POOLS.values() for name in getattr(ed, pool)] + others)
    hint = f" (did you mean `{best}`?)" if best else ""
    return StateError(f"{ed.id} has no advance, calamity, commodity or civilization `{item}`{hint}")


def _history(index: Index, kind: str, names: set[str], files: int) -> list[str]:
    """Every statement of the chain that defines, replaces, changes or removes the item, in
    chain order, each with the file that makes it (a base's or the rulebook's own)."""
    refs = _statements(index, kind, names)
    first = next((r for r in refs if r.role == "def"), None)
    out = []
    for ref in refs:
        out += _HISTORY[ref.role](ref.part, kind, _file_of(index, ref, files), ref is not first and ref.file > 0)
    return out


def _file_of(index: Index, ref, files: int) -> str:
    """"(in base megaciv)": the edition whose file makes a statement, a base's or the rulebook's own."""
    return f"(in {'base ' if ref.file < files - 1 else ''}{index.asts[ref.file].edition})"


def _statements(index: Index, kind: str, names: set[str]) -> list:
    """The declarations, changes and removals of the item in the index of references."""
    return [r for r in index.of_kind(kind) if r.name in names and r.role != "ref"]


def _defined(item, kind: str, place: str, again: bool) -> list[str]:
    """A declaration: the first, or one in a later file that replaces the item whole."""
    return [f"{_where(item.span)}  {'replaced whole' if again else 'defined'}: {kind} {quote(item.name)} {place}"]


def _changed(item, kind: str, place: str, again: bool) -> list[str]:
    """A `change`: the fields it gives, then each modifier it drops."""
    return [f"{_where(item.span)}  changed: {_changed_fields(item, kind)} {place}"] + _drops(item)


def _removed(item, kind: str, place: str, again: bool) -> list[str]:
    return [f"{_where(item.span)}  removed {place}"]


_HISTORY = {"def": _defined, "change": _changed, "remove": _removed}


def _changed_fields(item, kind: str) -> str:
    """The fields a change gives, each once, as a rulebook writes them (`when` for a modifier)."""
    return ", ".join(dict.fromkeys(getattr(item_fields.field(kind, f.key), "word", f.key) for f in item.fields)) \
        or "nothing"


def _drops(item) -> list[str]:
    return [_drop(f) for f in item.fields if f.key == "drop"]


def _drop(f) -> str:
    """A `drop` of a change: the base's modifier it removes, by condition and role."""
    cond, role = f.value
    return f"{_where(f.span)}    drops the modifier `when {unparse(cond)}`" + (f" for {role}" if role != "any" else "")


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
    if item in vocab.FACTS or item in vocab.DERIVED_NAMES:
        return _fact_text(ed, index, item)
    kind, name, asked = _find(ed, item, roundexplain.names(index) + list(vocab.FACTS) + list(vocab.DERIVED_NAMES))
    obj = getattr(ed, _POOLS[kind])[name]
    lines = _title(ed, kind, name, asked) + _item_text(ed, kind, obj, index)
    lines += _printed_clauses(ed, kind, {name, *obj.aka}) + _rulings(ed, name)
    lines += ["", "Source lines (the extends chain, base first):"]
    history = _history(index, kind, {name, *obj.aka}, len(checked.chain))
    lines += ["  " + h for h in history] or [f"  {_where(obj.span)}"]
    return "\n".join(lines)


# a fact's value in a state file, by the fact's type
_STATE_EXAMPLES = {"int": "3", "list": "[Pottery]", "map": "{Pottery: 2}", "bool": "true", "str": "Egypt"}


def _fact_text(ed: Edition, index: Index, name: str) -> str:
    """A player fact (or a number the rules derive from the facts): what it is, how a state gives
    it, and each statement of the rulebook that reads it."""
    fact = vocab.FACTS.get(name)
    title = f"{name}: {'a player fact' if fact else 'a number derived from the player facts'} in {ed.id} ({ed.name})"
    lines = [title, "=" * len(title), fact.doc if fact else vocab.DERIVED_NAMES[name]]
    if fact is not None:
        lines.append(f"a state gives it as `{name}: {_STATE_EXAMPLES.get(fact.type, '...')}`")
    readers = sorted((r for r in index.uses("fact", name) if index.in_force(r)),
                     key=lambda r: (r.file, r.span.line, r.span.column))
    said = [f"  {_owner_words(r.owner)}  {_where(r.span)}" for r in readers]
    return "\n".join(lines + ["", f"Rules of this rulebook that read it ({len(said)}):" if said else
                               "Rules of this rulebook that read it: none"] + said)


def _owner_words(owner: tuple) -> str:
    kind, name = owner
    return f"{kind.replace('_', ' ')} {name}" if name else kind.replace("_", " ")


def _rulings(ed: Edition, name: str) -> list[str]:
    """The rulings about the item (`civdsl check` runs them): question, answer, citation, place."""
    from . import rulings

    entries = []
    for r in rulings.rulings_of(ed, name):
        s = rulings.summary(r)
        entries.append(f"{s['question']} {s['answer']} ({s['cited']})  {_where(r.span)}")
    return _titled("Rulings", entries) if entries else []


_MOST_OTHERS = 2  # other statements shown per clause


def _printed_clauses(ed: Edition, kind: str, names: set[str]) -> list[str]:
    """The printed clauses the item's statements cite (`civdsl cover`), and where else a statement
    cites one of them (a calamity's modifier printed on this advance's card)."""
    ids = ed.cited_clauses(kind, names)
    if not ids:
        return []
    own = [c for c in ed.citations if c.owner_kind == kind and c.owner_name in names]
    titles = _clause_titles(ed)
    out = ["", "Printed clauses it implements (civdsl cover):"]
    for clause_id in ids:
        out += _clause_lines(ed, clause_id, titles.get(clause_id, ""), own)
    return out


def _clause_titles(ed: Edition) -> dict[str, str]:
    """Each clause's title in the edition's clause list (none without a list)."""
    if ed.clause_list is None:
        return {}
    from . import clauses
    from .diagnostics import Diagnostics

    listed = clauses.read(Path(ed.clause_list[0]), Diagnostics())
    return {k: v.title for k, v in listed.clauses.items()} if listed is not None else {}


def _clause_lines(ed: Edition, clause_id: str, title: str, own: list) -> list[str]:
    """One clause: where the item's statements cite it, then the first other statements citing it."""
    at = ", ".join(_where(c.target) for c in own if any(i == clause_id for i, _ in c.clauses))
    out = [f"  {clause_id}" + (f" ({title})" if title and not clause_id.endswith(title) else "") + f"  {at}"]
    others = [c for c in ed.citations if c not in own and any(i == clause_id for i, _ in c.clauses)]
    for c in others[:_MOST_OTHERS]:
        out.append(f"    also in {c.owner_kind}{' ' + c.owner_name if c.owner_name else ''}  {_where(c.target)}")
    if len(others) > _MOST_OTHERS:
        out.append(f"    and {len(others) - _MOST_OTHERS} more statements (civdsl cover {ed.id} --all)")
    return out


def _title(ed: Edition, kind: str, name: str, asked: str | None) -> list[str]:
    """The title, underlined, and the name asked for when it was one of the item's `aka`."""
    title = f"{name}: {kind} in {ed.id} ({ed.name})"
    return [title, "=" * len(title)] + ([f"(`{asked}` is another name of {name}: aka)"] if asked else [])


# --- the item's fields, as fields.py words them ----------------------------------------------


def _item_text(ed: Edition, kind: str, obj, index: Index) -> list[str]:
    """Its first line, where it is defined, its field lines and sections, what names it (the
    kind's relations), and its prose sections (notes) last."""
    head = [item_fields.field(kind, key) for key in item_fields.EXPLAIN_HEAD[kind]]
    out = ["".join(_words(spec, _value(ed, obj, spec)) for spec in head), f"defined at {_where(obj.span)}"]
    out += _IN_WORDS.get(kind, _no_words)(obj)
    out += _field_lines(ed, obj, [spec for spec in item_fields.ITEM_FIELDS[kind] if spec not in head])
    out += _sections(obj, kind, prose=False)
    return out + _RELATIONS[kind](ed, obj, index) + _sections(obj, kind, prose=True)


def _field_lines(ed: Edition, obj, specs: list[item_fields.FieldSpec]) -> list[str]:
    """A line for each field with `explain` words that the item gives (or has words for lacking)."""
    said = [_words(spec, _value(ed, obj, spec)) for spec in specs if spec.explain]
    return [text for text in said if text]


def _value(ed: Edition, obj, spec: item_fields.FieldSpec):
    """What the item gives for a field, in the words of the edition where it names something."""
    value = getattr(obj, spec.model_attr)
    return _NAMED[spec.key](ed, obj, value) if spec.key in _NAMED else value


def _group_names(ed: Edition, adv: Advance, groups: list[str]) -> list[str]:
    return [ed.groups[g].name if g in ed.groups else g for g in groups]


def _beneficiary(ed: Edition, cal: Calamity, kind: str) -> str:
    return describe.beneficiary(cal, ed)


def _cards_by_players(ed: Edition, adv: Advance, table: str) -> str:
    return describe.cards_in_use(ed, table)


_NAMED = {"groups": _group_names, "beneficiary": _beneficiary, "supply_table": _cards_by_players}


def _words(spec: item_fields.FieldSpec, value) -> str:
    """A field in its `explain` words; "" when the item does not give it and it has no words for that."""
    if value not in (None, "", []):
        return spec.explain.format(_said(value), s="" if isinstance(value, list) and len(value) == 1 else "s")
    return "" if spec.missing is None else spec.explain.format(spec.missing, s="s")


def _said(value) -> str:
    """A value in a line: a list joined with commas."""
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _sections(obj, kind: str, prose: bool) -> list[str]:
    """The fields of KIND explained as sections, the prose ones or the others."""
    return [line for spec in item_fields.ITEM_FIELDS[kind] if spec.section and spec.prose == prose
            for line in _section(obj, spec)]


def _section(obj, spec: item_fields.FieldSpec) -> list[str]:
    """A field listed under its title, one line per value (a value's text from _ENTRIES)."""
    entries = [_ENTRIES.get(spec.key, _note)(obj, v) for v in _values(obj, spec)]
    if entries:
        return _titled(spec.section, entries)
    return [] if spec.empty is None else _titled(spec.section, [spec.empty])


def _values(obj, spec: item_fields.FieldSpec) -> list:
    """A field's values: the items of a repeatable one, the value of a single one when given."""
    value = getattr(obj, spec.model_attr)
    if isinstance(value, list):
        return value
    return [] if value is None else [value]


def _titled(title: str, entries: list[str]) -> list[str]:
    """A section of the explanation: a blank line, its title, its lines indented."""
    return ["", f"{title}:"] + [f"  {e}" for e in entries]


def _note(item, text: str) -> str:
    return text


def _ability(adv: Advance, a) -> str:
    return f"{describe.ability(a.kind, a.args)}  [{unparse(a.call)}]  {_where(a.span)}"


def _effect(cal: Calamity, e) -> str:
    said = unparse(e.call) if isinstance(e, Effect) else f"if {unparse(e.condition)} ..."
    return f"{describe.effect(e)}  [{said}]  {_where(e.span)}"


def _secondary(cal: Calamity, sec) -> str:
    return f"{describe.secondary(cal)}  {_where(sec.span)}"


def _exclusion(cal: Calamity, x) -> str:
    return f"{describe.exclusion(x)}  {_where(x.span)}"


def _cancel(cal: Calamity, cancel) -> str:
    c, span = cancel
    return f"{describe.condition(c)}  [{unparse(c)}]  {_where(span)}"


def _modifier(cal: Calamity, m) -> str:
    role = "" if m.role == "any" else f" for {m.role}"
    prio = f" priority {m.priority}" if m.priority else ""
    return f"{describe.modifier(m)}  [when {unparse(m.condition)}{role}{prio}]  {_where(m.span)}"


# the line of one value of a field explained as a section, by field key (others: the value itself)
_ENTRIES = {"ability": _ability, "primary": _effect, "secondary": _secondary, "exclude": _exclusion,
            "cancel": _cancel, "modifier": _modifier}


def _no_words(item) -> list[str]:
    return []


def _calamity_in_words(cal: Calamity) -> list[str]:
    return [f"in words: {describe.calamity(cal)}"]


# a kind's own lines after `defined at`: a calamity's whole rule in words
_IN_WORDS = {"calamity": _calamity_in_words}


# --- what names the item (its relations) ---------------------------------------------------------


def _advance(ed: Edition, adv: Advance, index: Index) -> list[str]:
    # the advances, calamities and tracks that name it: its uses in force in the index of references
    users = {(r.owner, r.via) for r in index.uses("advance", adv.name) if index.in_force(r)}
    return (_prerequisites(ed, adv, users) + _credits_given(adv) + _credits_received(ed, adv, users)
            + _calamities_naming(ed, adv, users) + _requirements_naming(ed, adv, users))


def _prerequisites(ed: Edition, adv: Advance, users: set) -> list[str]:
    needed_by = [a.name for a in ed.advances.values() if (("advance", a.name), "requires") in users]
    return _titled("Prerequisites", ["requires: " + (", ".join(adv.requires) or "nothing"),
                                     "required by: " + (", ".join(needed_by) or "nothing")])


def _credits_given(adv: Advance) -> list[str]:
    out = ["group credits: " + ", ".join(f"{g} {n}" for g, n in adv.credits.items())] if adv.credits else []
    out += [f"{s.amount} towards {s.target}  {_where(s.span)}" for s in adv.specific]
    return _titled("Credits it gives (while held, towards later purchases)", out or ["none"])


def _credits_received(ed: Edition, adv: Advance, users: set) -> list[str]:
    out = [f"{g} credits from: " + ", ".join(givers) for g in adv.groups if (givers := _group_givers(ed, adv, g))]
    out += _specific_givers(ed, adv, users)
    return _titled(f"Credits towards buying it (credit policy {ed.credit_policy})", out or ["none"])


def _group_givers(ed: Edition, adv: Advance, group: str) -> list[str]:
    """"name amount" of every other advance whose credits count towards GROUP."""
    return [f"{a.name} {a.credits[group]}" for a in ed.advances.values() if a.credits.get(group) and a.name != adv.name]


def _specific_givers(ed: Edition, adv: Advance, users: set) -> list[str]:
    """The specific credits aimed at ADV, with the advance that gives each."""
    return [f"{s.amount} from {a.name} (specific)  {_where(s.span)}" for a in ed.advances.values()
            if (("advance", a.name), "credit") in users for s in a.specific if s.target == adv.name]


def _calamities_naming(ed: Edition, adv: Advance, users: set) -> list[str]:
    out = [line for cal in ed.calamities.values() if (("calamity", cal.name), "holds") in users
           for line in _mentions_in(cal, adv.name)]
    return _titled("Calamities that mention it", out or ["none"])


def _mentions_in(cal: Calamity, name: str) -> list[str]:
    """The modifiers, exclusions and cancel conditions of CAL that ask whether a player holds NAME."""
    out = [f"{cal.name}: {describe.modifier(m)}  {_where(m.span)}" for m in cal.modifiers if name in m.advances]
    out += [f"{cal.name}: {describe.exclusion(x)} may be chosen as a secondary victim  {_where(x.span)}"
            for x in cal.exclusions if mentions(x.condition, "advance", name)]  # a role's exclusion has none
    return out + [f"{cal.name}: cancelled if {describe.condition(c)}  {_where(span)}" for c, span in cal.cancel
                  if mentions(c, "advance", name)]


def _requirements_naming(ed: Edition, adv: Advance, users: set) -> list[str]:
    epochs = [line for t in ed.asts.values() if (("ast", t.id), "holds") in users for line in _track_naming(t, adv.name)]
    return _titled("A.S.T. requirements that mention it", epochs) if epochs else []


def _track_naming(track, name: str) -> list[str]:
    """The epoch requirements of TRACK that ask whether a player holds the advance NAME."""
    return [f"{track.id} / {e.name}: {unparse(r.expr)}  {_where(r.span)}" for e in track.epochs for r in e.requirements
            if mentions(r.expr, "advance", name)]


def _calamity(ed: Edition, cal: Calamity, index: Index) -> list[str]:
    mentioned = sorted({a for m in cal.modifiers for a in m.advances})
    return ["", "Advances it mentions: " + (", ".join(mentioned) or "none")]


def _commodity(ed: Edition, com: Commodity, index: Index) -> list[str]:
    uses = [f"{cal.name}: {describe.modifier(m)}  {_where(m.span)}" for cal in ed.calamities.values()
            for m in cal.modifiers if mentions((m.condition, m.ops), "commodity", com.name)]
    return _titled("Calamities that count it", uses or ["none"])


def _civilization(ed: Edition, civ, index: Index) -> list[str]:
    """The block it plays in some of its set-ups instead of its printed one (`block ID for`), and
    its row on each A.S.T. track: the spaces each epoch covers."""
    moved = [f"block {block} in set-up{'s' if len(setups) != 1 else ''} {', '.join(setups)} (instead of "
             f"{'block ' + civ.block if civ.block else 'no block'})" for block, setups in civ.block_for]
    return moved + [line for track in ed.asts.values() for line in _row(track, civ.rows.get(track.id))]


def _row(track, row) -> list[str]:
    if row is None:
        return ["", f"{track.name}: no row (the epoch of a position is not known)"]
    spaces = row.spaces if row.spaces is not None else track.spaces
    ends = [first - 1 for first in row.starts] + [spaces]  # an epoch ends where the next begins
    return _titled(f"{track.name} ({spaces} spaces after the start arrow)",
                   [f"{epoch.name}: {_spaces(first, last)}" for epoch, first, last in
                    zip(track.epochs, [1] + list(row.starts), ends)])


def _spaces(first: int, last: int) -> str:
    return f"space {first}" if last == first else f"spaces {first}-{last}"


# what names an item of each kind, after its field lines and sections
_RELATIONS = {"advance": _advance, "calamity": _calamity, "commodity": _commodity, "civilization": _civilization}
