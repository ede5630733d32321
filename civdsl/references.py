"""The one index of references: every declaration and every use of every name a rulebook gives
(advances, calamities, commodities, civilizations, groups, constants, tables, options, A.S.T.
tracks and their epochs, editions) and every use of a name the vocabulary declares (player
facts), with its span, across the extends chain.

Built from the syntax trees (pass 2), in the manner of textX's scope providers: what a name in
a given place may refer to is decided by where it stands (a string in `requires` names an
advance, the argument of `holds(...)` an advance, of `cards(...)` a commodity, a bare name in
an expression a constant, option, group or player fact, unless an item attribute of a `where`
shadows it; an epoch name is looked up in its own track). Nothing here reports: the validator
says which uses name nothing, `explain` lists the uses of an item, the language server answers
definition, references and hover from it, and the charts cross-reference with it.

The same use can stop counting when a later file of the chain edits its statement: a house
rule that declares an item whole, removes it, or `change`s a field that replaces the base's
(fields.py says which do) takes the base's uses out of force. `Index.in_force` says which uses
the resolved rulebook still holds.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

from . import fields as item_fields
from . import vocabulary as vocab
from .diagnostics import Span
from .sublanguages import registered
from .syntax import Bool, Call, Item, Name, Not, Num, RulebookAst, Str, Where

# The kinds of item whose fields fields.ITEM_FIELDS declares: a house rule may `change` them.
ITEM_KINDS = tuple(item_fields.ITEM_FIELDS)
# The kind of name each declaring statement of the main language declares, by its keyword; each
# sub-language adds its own (civdsl/sublanguages.py, `References.declares`): `_composed_tables`.
_DECLARES = {**{k: k for k in ("group", "const", "table", "option", "civilization", *ITEM_KINDS)}, "ast": "track"}
# What a bare name in an expression (or a sub-language statement's target) may stand for, first
# match first: the main language's kinds, then each sub-language's (`name_kinds()`).
_NAME_KINDS = ("const", "option", "group")
# What an errata names: any of these, whichever is declared.
ERRATA_TARGETS = ("advance", "calamity", "commodity")
# Statements the chain collects rather than replaces: a later one never hides an earlier one.
_COLLECTED = frozenset({"assert", "note", "errata", "ability", "scenario", "change", "remove", "source"})
# The fields whose value names things, by what they name (fields.ITEM_FIELDS' `references`):
# each reads a list of (name, ..., span) or one such tuple (see syntax.py).
_NAMING_FIELDS = {"groups": "group", "credits": "group", "credit": "advance", "requires": "advance"}
# A call whose first argument, a string, names an item (as does every later string argument).
NAMING_CALLS = {"holds": "advance", "cards": "commodity"}
# The label a diagnostic about a use carries (errata match it), for statements not named by
# their own name: the epoch a requirement belongs to, an assertion's message, ...
_LABELS = {"start_credits": "start credits", "set_value": "set_value", "set_value_off_block": "set_value"}


@dataclass(frozen=True)
class Ref:
    """One declaration or use of a name."""

    kind: str  # advance, calamity, commodity, civilization, group, const, table, option, track, epoch,
    #            edition, fact, item (an errata's target: one of ERRATA_TARGETS)
    name: str
    role: str  # def, ref, change, remove
    span: Span  # the name as written (a string with its quotes)
    file: int  # the file's place in the extends chain, base first
    via: str  # how it is named: declaration, requires, credit, groups, credits, holds, cards, name, call,
    #           group=, errata, extends, row, except
    owner: tuple[str, str | None] = ("", None)  # the statement holding it: (kind, name); a change: the changed kind
    field: str | None = None  # the key of the item field holding it
    scope: str | None = None  # an epoch's track
    label: str | None = None  # the item a diagnostic about it names (errata match it)
    negated: bool = False  # under an odd number of `not`s: `not holds("X")`
    # the syntax node holding it: the Field of a use, the Item of a declaration, change or removal
    part: Any = dataclasses.field(default=None, compare=False, repr=False, hash=False)


_new = object.__new__


def _ref(kind: str, name: str, role: str, span: Span, file: int, via: str, owner, fld=None, scope=None,
         label=None, negated=False, part=None) -> Ref:
    """Ref(...) without the frozen dataclass's __init__ (one object.__setattr__ per field): a
    rulebook chain has thousands of uses, and building them was most of the index's time in
    every check. Same object, same equality and hash."""
    r = _new(Ref)
    r.__dict__.update(kind=kind, name=name, role=role, span=span, file=file, via=via, owner=owner, field=fld,
                      scope=scope, label=label, negated=negated, part=part)
    return r


def _name_span(span: Span, name: str) -> Span:
    """The span of a name at the start of a node (a call's name, a dotted name's first part): a
    copy of the node's span (of its class: one the language server keeps moves with its
    statement) ending after the name."""
    named = _new(type(span))
    named.__dict__.update(span.__dict__)
    named.__dict__["end_column"] = span.column + len(name)
    return named


class _Statement:
    """One statement's declarations and uses as written (`refs`), the names it declares (`defs`),
    and its uses resolved by scope (`resolved`) under the meanings they were resolved with."""

    __slots__ = ("item", "file", "refs", "defs", "meaning", "resolved")

    def __init__(self, item, file: int, refs: list[Ref]):
        self.item, self.file, self.refs = item, file, refs
        self.defs = [(r.kind, r.name) for r in refs if r.role == "def"]
        self.meaning: dict | None = None
        self.resolved: list[Ref] = []


class _FileIndexer:
    """The declarations and uses of one file's syntax tree."""

    def __init__(self, ast: RulebookAst, file: int, out: list["_Statement"], memo: dict | None = None,
                 fresh: dict | None = None):
        self.ast = ast
        self.file = file
        self.statements = out  # each statement's declarations and uses (and the file's own first)
        self.out: list[Ref] = []  # those of the statement being indexed
        self.memo = memo if memo is not None else {}
        self.fresh = fresh if fresh is not None else {}
        # what declares and which fields name things: the main language's and the sub-languages'
        self._declares, _, self._field_visits = _composed_tables(registered())

    def add(self, kind: str, name: str, role: str, span: Span | None, via: str, owner, fld=None,
            scope=None, label=None, part=None, negated=False) -> None:
        if span is not None:
            self.out.append(_ref(kind, name, role, span, self.file, via, owner, fld, scope, label, negated, part))

    def run(self) -> None:
        ast = self.ast
        self.add("edition", ast.edition, "def", ast.edition_span, "declaration", ("edition", ast.edition))
        if ast.extends is not None:
            self.add("edition", ast.extends, "ref", ast.extends_span, "extends", ("edition", ast.edition))
        self.statements.append(_Statement(None, self.file, self.out))
        for item in ast.items:
            self.statement(item)

    def statement(self, item: Item) -> None:
        """One statement's declarations and uses, kept from the memo while its syntax object is."""
        # an editor parses again only the statements that changed (lsp.incremental.IncrementalParser): the
        # others are the same objects with the same uses, and the spans of a statement that moved
        # move with it (lsp.incremental.AnchoredSpan), those of its uses as well (`_name_span`)
        key = id(item)
        kept = self.memo.get(key)
        if kept is None or kept.item is not item or kept.file != self.file:
            self.out = []
            self.item(item)
            kept = _Statement(item, self.file, self.out)
        self.statements.append(kept)
        self.fresh[key] = kept

    def item(self, item: Item) -> None:
        owner = self._declared(item)
        label = self._label(item)
        for f in item.fields:
            self.field(f, owner, label)
        if item.kind not in ("errata", "credit_policy"):
            self.expressions(item.value, owner, None, label, None)

    def _declared(self, item: Item) -> tuple[str, str | None]:
        """Record what the statement declares, changes, removes or (an errata) names; its owner."""
        if item.kind in ("change", "remove"):
            owner = (item.value, item.name)
            self.add(item.value, item.name, item.kind, item.name_span, "declaration", owner, part=item)
            return owner
        owner = (item.kind, item.name)
        declares = self._declares.get(item.kind)
        if declares is not None:
            self.add(declares, item.name, "def", item.name_span, "declaration", owner, part=item)
        elif item.kind == "errata":
            target, _, span = item.value
            self.add("item", target, "ref", span, "errata", owner, label=target)
        elif item.kind == "vp_tiers" and item.name is not None:  # `vp tiers when OPTION`
            self.add("option", item.name, "ref", item.name_span, "vp tiers when", owner)
        return owner

    def _label(self, item: Item) -> str | None:
        if item.kind in _LABELS:
            return _LABELS[item.kind]
        if item.kind == "assert":
            return item.value[1]
        if item.kind == "ability":
            return self.ast.edition
        return item.name

    def field(self, f, owner, label) -> None:
        """The declarations and uses in one field of the statement `owner` (kind, name)."""
        visit = self._field_visits.get((owner[0], f.key)) or (_FileIndexer._naming if f.key in _NAMING_FIELDS else None)
        if visit is not None:
            visit(self, f, owner)
            return
        if f.key in ("points", "tiebreak"):  # score lines are labelled by their own words
            label = f.value[0]
        self.expressions(f.value, owner, f.key, label, f)

    def _naming(self, f, owner) -> None:
        """A field whose value names things (`requires "Pottery"`, `groups arts, crafts`)."""
        kind = _NAMING_FIELDS[f.key]
        for entry in (f.value if isinstance(f.value, list) else [f.value]):
            self.add(kind, entry[0], "ref", entry[-1], f.key, owner, f.key, label=owner[1], part=f)

    def _row(self, f, owner) -> None:
        """A civilization's row on an A.S.T. track."""
        track, span, _, _ = f.value
        self.add("track", track, "ref", span, "row", owner, f.key, label=owner[1], part=f)

    def _epoch(self, f, owner) -> None:
        """An epoch of an A.S.T. track: a name in its track's scope, and its requirements."""
        name, reqs = f.value
        self.add("epoch", name, "def", f.name_span, "declaration", owner, f.key, scope=owner[1], part=f)
        self.expressions(reqs, owner, f.key, name, f)

    def _backward(self, f, owner) -> None:
        """A track's backward movement, but for the epochs it names."""
        expr, except_ = f.value
        for name, span in except_:
            self.add("epoch", name, "ref", span, "except", owner, f.key, scope=owner[1], label=owner[1], part=f)
        self.expressions(expr, owner, f.key, owner[1], f)

    # --- expressions, anywhere in a statement's value (round rules' statements included). Each node
    # on the stack comes with the item attributes in scope there (inside a `where`) and whether it
    # stands under an odd number of `not`s (the charts tell "holds X" from "does not hold X"). A node
    # type's visit (`_VISITS`) records its uses and returns the nodes inside it.
    def expressions(self, value, owner, fld, label, part, attrs: frozenset = frozenset()) -> None:
        if type(value) in _LEAVES:  # most fields: `cost 60`
            return
        self._at = (owner, fld, label, part)
        stack: list = [(value, attrs, False)]
        visits = _VISITS
        while stack:
            node, local, neg = stack.pop()
            t = type(node)
            if t not in _LEAVES:
                stack.extend((visits.get(t) or _visit_for(t))(self, node, local, neg))

    # the visits of containers and syntax nodes leave out the leaves they hold (most of what
    # they hold: spans, words, numbers), which would only be popped from the stack and skipped
    def _items(self, node, local: frozenset, neg: bool) -> Iterable:
        return [(x, local, neg) for x in node if type(x) not in _LEAVES]

    def _values(self, node, local: frozenset, neg: bool) -> Iterable:
        return [(x, local, neg) for x in node.values() if type(x) not in _LEAVES]

    def parts(self, node, local: frozenset, neg: bool) -> Iterable:
        """The fields of any other syntax node (an operator, a round statement, ...)."""
        return [(v, local, neg) for v in node.__dict__.values() if type(v) not in _LEAVES]

    def _where(self, node: Where, local: frozenset, neg: bool) -> Iterable:
        return (node.items, local, neg), (node.condition, local | _attributes(node.items), neg)

    def _not(self, node: Not, local: frozenset, neg: bool) -> Iterable:
        return ((node.operand, local, not neg),)

    def use(self, kind: str, name: str, span: Span, via: str, neg: bool) -> None:
        """Record a use of `name` in the expression being walked (a sub-language's visits call it too)."""
        owner, fld, label, part = self._at
        self.add(kind, name, "ref", span, via, owner, fld, label=label, part=part, negated=neg)

    def _name(self, node: Name, local: frozenset, neg: bool) -> tuple:
        first = node.parts[0]
        if first not in local:
            self.use("name", first, _name_span(node.span, first), "name", neg)
        return ()

    def _call(self, call: Call, local: frozenset, neg: bool) -> list:
        named = _item_named(call)
        if named is not None:  # every string names one (a ruling's `holds("A", "B")`, `cards("Grain", 3, "Salt", 1)`)
            for a in call.args:
                if isinstance(a, Str):
                    self.use(named, a.value, a.span, call.name, neg)
            return []
        self.use("call", call.name, _name_span(call.span, call.name), "call", neg)
        group = _group_argument(call)
        word = _group_word(group)
        if word is not None:
            self.use("group", word, group.span, "group=", neg)
        return _arguments(call, group, local, neg)


def _group_argument(call: Call):
    """The argument naming a group: `group=` of a function, or the `group` parameter of an effect
    kind or ability (vocabulary.py), given by name or by position."""
    if "group" in call.kwargs:
        return call.kwargs["group"]
    kind = vocab.EFFECT_KINDS.get(call.name) or vocab.ABILITY_KINDS.get(call.name)
    names = [p.name for p in kind.params] if kind is not None else []
    at = names.index("group") if "group" in names else len(call.args)
    return call.args[at] if at < len(call.args) else None


def _item_named(call: Call) -> str | None:
    """The kind of item a call names by its first argument, a string (`holds("Pottery")`)."""
    named = NAMING_CALLS.get(call.name)
    return named if named is not None and call.args and isinstance(call.args[0], Str) else None


def _arguments(call: Call, group, local: frozenset, neg: bool) -> list:
    """A call's arguments but the group's, each with the names in scope where it stands."""
    inner = _later_scope(call, local)
    todo = [(v, local, neg) for v in call.kwargs.values() if v is not group]
    return todo + [(a, local if i == 0 else inner, neg) for i, a in enumerate(call.args) if a is not group]


def _group_word(group) -> str | None:
    """The group a group argument names: a string, or a bare name of one part."""
    if type(group) is Str:
        return group.value
    return group.parts[0] if type(group) is Name and len(group.parts) == 1 else None


def _later_scope(call: Call, local: frozenset) -> frozenset:
    """The names in scope in a call's later arguments: `count(advances where ..., cost)` reads
    the attributes of the items a model function ranges over."""
    fn = vocab.FUNCTIONS.get(call.name)
    if fn is None or fn.scope != "model" or not call.args:
        return local
    return local | _attributes(call.args[0])


# Values that name nothing (most of what a statement holds): skipped before any other test.
_LEAVES = frozenset({str, int, float, bool, type(None), Span, Num, Str, Bool})
# How the expression walk visits each type of node (`_visit_for` adds the others as it meets them).
_VISITS = {list: _FileIndexer._items, tuple: _FileIndexer._items, dict: _FileIndexer._values,
           Name: _FileIndexer._name, Call: _FileIndexer._call, Where: _FileIndexer._where, Not: _FileIndexer._not}


# Fields that declare or name things, by (the kind of statement, the field's key); the fields of
# _NAMING_FIELDS are read alike in every statement.
_FIELD_VISITS = {("ast", "epoch"): _FileIndexer._epoch, ("ast", "backward"): _FileIndexer._backward,
                 ("civilization", "row"): _FileIndexer._row}


def _visit_for(t: type):
    """The visit of a node type met for the first time: a sub-language's own visit of it, else its
    fields for a syntax node (a dataclass), nothing for any other value."""
    visit = next((s.references.node_visits[t] for s in registered() if t in s.references.node_visits), None)
    if visit is None:
        visit = _FileIndexer.parts if hasattr(t, "__dataclass_fields__") else _no_parts
    _VISITS[t] = visit
    return visit


def name_kinds() -> tuple[str, ...]:
    """What a bare name may stand for, first match first: the main language's kinds, then each
    registered sub-language's (which share one namespace with constants and options)."""
    return _composed_tables(registered())[1]


@functools.lru_cache(maxsize=4)
def _composed_tables(subs: tuple) -> tuple[dict, tuple, dict]:
    declares, kinds, fields = dict(_DECLARES), list(_NAME_KINDS), dict(_FIELD_VISITS)
    for sub in subs:
        declares.update(sub.references.declares)
        kinds += sub.references.name_kinds
        fields.update(sub.references.field_visits)
    return declares, tuple(kinds), fields


def _no_parts(indexer, node, local: frozenset, neg: bool) -> tuple:
    return ()


def _attributes(items) -> frozenset:
    """The attributes of the items a `where` or a model function ranges over (vocabulary)."""
    while isinstance(items, Where):
        items = items.items
    coll = items.parts[0] if isinstance(items, Name) else ""
    return frozenset(vocab.ITEM_ATTRIBUTES.get(coll, ()))


class Index:
    """Every declaration and use of a chain of syntax trees (base first), resolved by scope."""

    def __init__(self, asts: Iterable[RulebookAst | None], memo: dict | None = None):
        """`memo`: kept by a caller that indexes the same statements again and again (the language
        server, from one edit to the next); it is updated to hold this index's statements."""
        self.asts = [a for a in asts]
        last = memo.get(_MEANING) if memo is not None else None
        statements = _index_files(self.asts, memo)
        self.declared: dict[str, set[str]] = {}
        for statement in statements:
            for kind, name in statement.defs:
                self.declared.setdefault(kind, set()).add(name)
        # scope resolution: what a bare name, a call or an errata's target stands for where it is
        # written, by the kinds it may be (first match first); a name none declares stays as it is
        meaning = {"name": self._first_declared(name_kinds(), dict.fromkeys([*vocab.FACTS, *vocab.DERIVED_NAMES],
                                                                          "fact")),
                   "call": {name: "table" for name in self.declared.get("table", ())},
                   "item": self._first_declared(ERRATA_TARGETS, {})}
        # the same meanings as the last index's (an edit that declares no new name): a statement
        # kept from it keeps its uses resolved with them
        self._meaning = meaning = last if last == meaning else meaning
        if memo is not None:
            memo[_MEANING] = meaning
        self._resolve_statements(statements)
        self.refs = [r for statement in statements for r in statement.resolved]
        self._statements = statements
        self._by_name: dict[tuple[str, str], list[Ref]] = {}
        for r in self.refs:
            self._by_name.setdefault((r.kind, r.name), []).append(r)
        self._names: dict[str, set[str]] | None = None  # kind -> the names used or declared (`_named`)

    def after_edit(self, asts: list[RulebookAst | None], memo: dict) -> "Index | None":
        """The index of `asts`, made from this one (the index of the same chain before an edit of
        its last file, `memo` as for Index) when the edit changed statements without changing
        what any declares: only the statements it replaced are indexed, their uses put where the
        old ones were. None when the edit is not one of those (then index it whole)."""
        if not self._same_chain(asts):
            return None
        file = len(asts) - 1
        old, new = self.asts[-1].items, asts[-1].items
        head, tail = kept_ends(old, new)
        first = len(self._statements) - len(old)  # the file's first statement is its header's
        gone = self._statements[first + head:len(self._statements) - tail]
        came: list[_Statement] = []
        fresh: dict = {}
        indexer = _FileIndexer(asts[-1], file, came, memo, fresh)
        for item in new[head:len(new) - tail]:
            indexer.statement(item)
        if sorted(d for s in gone for d in s.defs) != sorted(d for s in came for d in s.defs):
            return None
        out = _new(Index)
        out.asts, out.declared, out._meaning = list(asts), self.declared, self._meaning
        out._resolve_statements(came)
        out._statements = self._statements[:first + head] + came + self._statements[len(self._statements) - tail:]
        at = sum(len(s.resolved) for s in self._statements[:first + head])
        removed = [r for s in gone for r in s.resolved]
        added = [r for s in came for r in s.resolved]
        out.refs = self.refs[:at] + added + self.refs[at + len(removed):]
        out._by_name, out._names = dict(self._by_name), None if self._names is None else dict(self._names)
        for key in {(r.kind, r.name) for r in removed + added}:
            out._splice_name(key, self._by_name.get(key, []), removed, added,
                             (file, new[head]) if head < len(new) - tail else None)
        for statement in gone:
            memo.pop(id(statement.item), None)
        memo.update(fresh)
        return out

    def _same_chain(self, asts: list[RulebookAst | None]) -> bool:
        """Whether `asts` are this index's chain, its last file edited but for its header."""
        old = self.asts
        return (len(asts) == len(old) and all(a is b for a, b in zip(asts[:-1], old))
                and asts[-1] is not None and old[-1] is not None and _header(asts[-1]) == _header(old[-1]))

    def _resolve_statements(self, statements: list[_Statement]) -> None:
        """Each statement's uses resolved by scope under this index's meanings (kept when they are)."""
        calls = self._meaning["call"]
        for statement in statements:
            if statement.meaning is not self._meaning:
                statement.resolved = [self._resolved(r) for r in statement.refs if r.kind != "call" or r.name in calls]
                statement.meaning = self._meaning

    def _splice_name(self, key: tuple[str, str], uses: list[Ref], removed: list[Ref], added: list[Ref],
                     where: tuple | None) -> None:
        """One name's entry in the table of names (and the names of its kind) after an edit
        replaced `removed` by `added`; `where` is (the file, the first statement that came)."""
        self._by_name[key] = _spliced_uses(uses, removed, added, key, where)
        if not self._by_name[key]:
            del self._by_name[key]
        if self._names is not None and (key in self._by_name) != (key[1] in self._names.get(key[0], ())):
            names = self._names[key[0]] = set(self._names.get(key[0], ()))  # the last index keeps its own
            (names.add if key in self._by_name else names.discard)(key[1])

    def _first_declared(self, kinds: Iterable[str], otherwise: dict[str, str]) -> dict[str, str]:
        """{name: the first of `kinds` declaring it}, falling back on `otherwise`."""
        out = dict(otherwise)
        for kind in reversed(tuple(kinds)):
            out.update(dict.fromkeys(self.declared.get(kind, ()), kind))
        return out

    def _resolved(self, r: Ref) -> Ref:
        kind = self._meaning.get(r.kind, {}).get(r.name)
        return r if kind is None else _with(r, kind=kind)

    # --- questions
    def named(self, kind: str, name: str, scope: str | None = None) -> list[Ref]:
        """Every declaration and use of one thing, in chain order."""
        return [r for r in self._by_name.get((kind, name), []) if kind != "epoch" or r.scope == scope]

    def declarations(self, kind: str, name: str, scope: str | None = None) -> list[Ref]:
        """Where the thing is declared, the declaration in force first (the nearest file)."""
        found = [r for r in self.named(kind, name, scope) if r.role == "def"]
        return sorted(found, key=lambda r: -r.file)

    def uses(self, kind: str, name: str, scope: str | None = None) -> list[Ref]:
        return [r for r in self.named(kind, name, scope) if r.role == "ref"]

    def names(self, kind: str) -> set[str]:
        """The names declared as `kind` anywhere in the chain."""
        return set(self.declared.get(kind, ()))

    def of_kind(self, *kinds: str, role: str | None = None) -> Iterator[Ref]:
        return (r for r in self.refs if r.kind in kinds and (role is None or r.role == role))

    def at(self, path: str, line: int, column: int) -> Ref | None:
        """The declaration or use whose span holds (line, column) of `path` (1-based)."""
        here = [r for r in self.refs if r.span.path == path and r.span.line == line
                and r.span.column <= column <= (r.span.end_column or r.span.column)]
        return max(here, key=lambda r: r.span.column, default=None)  # the innermost

    def _named(self, kind: str) -> set[str]:
        """The names of `kind` used or declared anywhere in the chain (kept by an index made from
        this one after an edit, `after_edit`)."""
        if self._names is None:
            self._names = {}
            for k, name in self._by_name:
                self._names.setdefault(k, set()).add(name)
        return self._names.get(kind, set())

    def in_force(self, r: Ref) -> bool:
        """Whether the resolved rulebook still holds this use: no later file of the chain declares its
        statement whole or removes it, nor `change`s the field holding it in a way that replaces the
        base's (fields.ITEM_FIELDS `change`), nor drops the modifier holding it."""
        name = r.owner[1]
        return not any(_takes_out(it, r) for later in self.asts[r.file + 1:] if later is not None
                       for it in later.items if it.name == name)

    def unknown(self, kind: str, known: Iterable[str]) -> list[Ref]:
        """The uses in force of `kind` that name nothing in `known` (the resolved rulebook's names)."""
        # the names of `kind` used or declared that name nothing known, found by the table of
        # names: usually none, and then the chain's uses are not walked at all
        unknown = self._named(kind).difference(known)
        if not unknown:
            return []
        # each name's uses from the table (in chain order: by file, then by place in the file)
        found = [r for name in unknown for r in self._by_name.get((kind, name), ())
                 if r.role == "ref" and r.field != "drop" and self.in_force(r)]
        return sorted(found, key=lambda r: (r.file, r.span.line, r.span.column))


_MEANING = "meaning"  # the memo's entry holding the last index's meanings (`Index._meaning`)


def _header(ast: RulebookAst) -> tuple:
    """What a file's header statement indexes (`_FileIndexer.run`)."""
    return ast.edition, ast.edition_span, ast.extends, ast.extends_span


def kept_ends(old: list, new: list) -> tuple[int, int]:
    """How many leading and trailing statements the two lists share (the very objects)."""
    most = min(len(old), len(new))
    head = 0
    while head < most and old[head] is new[head]:
        head += 1
    tail = 0
    while tail < most - head and old[-1 - tail] is new[-1 - tail]:
        tail += 1
    return head, tail


def _spliced_uses(uses: list[Ref], removed: list[Ref], added: list[Ref], key: tuple[str, str],
                  where: tuple | None) -> list[Ref]:
    """One name's declarations and uses in chain order after an edit replaced `removed` by
    `added` (`where`: the file and the first statement that came, None when none came):
    statements are in file order and each one's uses lie inside it, so those before the edit
    are those placed before the first new statement."""
    gone = {id(r) for r in removed}
    kept = [r for r in uses if id(r) not in gone]
    mine = [r for r in added if (r.kind, r.name) == key]
    if not mine:
        return kept
    file, first = where
    start = (file, first.span.line, first.span.column)
    at = bisect.bisect_left(kept, start, key=lambda r: (r.file, r.span.line, r.span.column))
    return kept[:at] + mine + kept[at:]


def _index_files(asts: list[RulebookAst | None], memo: dict | None) -> list[_Statement]:
    """The declarations and uses of every file of the chain, as written (not yet resolved by
    scope), statement by statement; `memo` (see Index) is updated to hold these statements'."""
    statements: list[_Statement] = []
    fresh: dict = {}
    for i, ast in enumerate(asts):
        if ast is not None:
            _FileIndexer(ast, i, statements, memo, fresh).run()
    if memo is not None:
        memo.clear()
        memo.update(fresh)
    return statements


def _takes_out(later: Item, r: Ref) -> bool:
    """Whether a later statement of the same name takes the use out of force: it declares the
    use's statement whole (but for statements the chain collects), removes it, or `change`s it in
    a way that takes the use out."""
    kind = r.owner[0]
    if later.kind == "change":
        return later.value == kind and r.field is not None and _edits(later, kind, r)
    if later.kind == "remove":
        return later.value == kind
    return later.kind == kind and kind not in _COLLECTED


def _edits(change: Item, kind: str, r: Ref) -> bool:
    """Whether a later `change` takes the use's field out: it replaces that field, or drops the
    modifier holding the use."""
    return any(_replaces(f, kind, r) or _drops(f, r) for f in change.fields)


def _replaces(f, kind: str, r: Ref) -> bool:
    """Whether a field of a `change` replaces the field holding the use (fields.ITEM_FIELDS)."""
    spec = item_fields.field(kind, f.key) if f.key == r.field else None
    return spec is not None and spec.change in ("replace", "replace_all")


def _drops(f, r: Ref) -> bool:
    """Whether a field of a `change` is the `drop` of the modifier holding the use."""
    from .expressions import unparse

    if f.key != "drop" or r.field != "modifier" or r.part is None:
        return False
    cond, role = f.value
    mod = r.part.value
    return unparse(cond) == unparse(mod.condition) and role == mod.role


def _with(r: Ref, **changes) -> Ref:
    out = _new(Ref)
    out.__dict__.update(r.__dict__, **changes)  # as _ref: no per-field __setattr__
    return out


def index_chain(chain, memo: dict | None = None) -> Index:
    """The index of a loaded extends chain (loader.LoadedFile objects, base first); `memo` as
    for Index."""
    return Index((getattr(f, "ast", None) for f in chain), memo)


def uses_in(node) -> list[Ref]:
    """The uses of names inside one syntax node or model object (a modifier, a condition), by
    where they stand: `holds("X")` names an advance, `cards("X")` a commodity, ... (a bare name
    stays kind `name`: which declaration it reads needs the chain, `Index`)."""
    out: list[Ref] = []
    indexer = _FileIndexer.__new__(_FileIndexer)
    indexer.file, indexer.out = 0, out
    indexer.expressions(node, ("", None), None, None, None)
    return out


def mentions(node, kind: str, name: str) -> bool:
    """Whether `node` names the `kind` called `name` (see `uses_in`)."""
    return any(r.kind == kind and r.name == name for r in uses_in(node))


def advances_named(expr) -> list[str]:
    """The advances an expression asks about (`holds("...")`), sorted: a modifier's `advances`."""
    return sorted({r.name for r in uses_in(expr) if r.kind == "advance"})
