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

from collections.abc import Iterable, Iterator
import dataclasses
from dataclasses import dataclass
from typing import Any

from . import fields as item_fields
from . import vocabulary as vocab
from .diagnostics import Span
from .syntax import Bool, Call, Item, Name, Not, Num, RulebookAst, Str, Where

# The kinds of item whose fields fields.ITEM_FIELDS declares: a house rule may `change` them.
ITEM_KINDS = tuple(item_fields.ITEM_FIELDS)
# What an errata names: any of these, whichever is declared.
ERRATA_TARGETS = ("advance", "calamity", "commodity")
# Statements the chain collects rather than replaces: a later one never hides an earlier one.
_COLLECTED = frozenset({"assert", "note", "errata", "ability", "scenario", "change", "remove", "source"})
# The fields whose value names things, by what they name (fields.ITEM_FIELDS' `references`):
# each reads a list of (name, ..., span) or one such tuple (see syntax.py).
_NAMING_FIELDS = {"groups": "group", "credits": "group", "credit": "advance", "requires": "advance"}
# A call whose first argument, a string, names an item.
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
    """The span of a name at the start of a node (a call's name, a dotted name's first part)."""
    return Span(span.path, span.line, span.column, span.column + len(name))


class _FileIndexer:
    """The declarations and uses of one file's syntax tree."""

    def __init__(self, ast: RulebookAst, file: int, out: list[Ref], memo: dict | None = None,
                 fresh: dict | None = None):
        self.ast = ast
        self.file = file
        self.out = out
        self.memo = memo if memo is not None else {}
        self.fresh = fresh if fresh is not None else {}

    def add(self, kind: str, name: str, role: str, span: Span | None, via: str, owner, fld=None,
            scope=None, label=None, part=None, negated=False) -> None:
        if span is not None:
            self.out.append(_ref(kind, name, role, span, self.file, via, owner, fld, scope, label, negated, part))

    def run(self) -> None:
        ast = self.ast
        self.add("edition", ast.edition, "def", ast.edition_span, "declaration", ("edition", ast.edition))
        if ast.extends is not None:
            self.add("edition", ast.extends, "ref", ast.extends_span, "extends", ("edition", ast.edition))
        for item in ast.items:
            # an editor parses again only the statements that changed (lsp.IncrementalParser): the
            # others are the same objects, at the same line unless they moved, with the same uses
            key = id(item)
            kept = self.memo.get(key)
            if kept is not None and kept[0] is item and kept[1] == item.span.line and kept[2] == self.file:
                self.out.extend(kept[3])
            else:
                start = len(self.out)
                self.item(item)
                kept = (item, item.span.line, self.file, self.out[start:])
            self.fresh[key] = kept

    def item(self, item: Item) -> None:
        kind = item.value if item.kind in ("change", "remove") else item.kind
        owner = (kind, item.name)
        label = self._label(item)
        if item.kind in ("change", "remove"):
            self.add(kind, item.name, item.kind, item.name_span, "declaration", owner, part=item)
        elif item.kind in ("group", "const", "table", "option", "civilization") or item.kind in ITEM_KINDS:
            self.add(item.kind, item.name, "def", item.name_span, "declaration", owner, part=item)
        elif item.kind == "ast":
            self.add("track", item.name, "def", item.name_span, "declaration", owner, part=item)
        elif item.kind == "errata":
            target, _, span = item.value
            self.add("item", target, "ref", span, "errata", owner, label=target)
        if item.kind == "ast":
            self._track(item, owner)
        else:
            for f in item.fields:
                self.field(f, owner, label)
        if item.kind not in ("errata", "credit_policy"):
            self.expressions(item.value, owner, None, label, None)

    def _label(self, item: Item) -> str | None:
        if item.kind in _LABELS:
            return _LABELS[item.kind]
        if item.kind == "assert":
            return item.value[1]
        if item.kind == "ability":
            return self.ast.edition
        return item.name

    def field(self, f, owner, label) -> None:
        kind = _NAMING_FIELDS.get(f.key)
        if kind is not None:
            for entry in (f.value if isinstance(f.value, list) else [f.value]):
                self.add(kind, entry[0], "ref", entry[-1], f.key, owner, f.key, label=owner[1], part=f)
            return
        if f.key == "row":  # a civilization's row on a track
            track, span, _, _ = f.value
            self.add("track", track, "ref", span, "row", owner, f.key, label=owner[1], part=f)
            return
        if f.key in ("points", "tiebreak"):  # score lines are labelled by their own words
            label = f.value[0]
        self.expressions(f.value, owner, f.key, label, f)

    def _track(self, item: Item, owner) -> None:
        for f in item.fields:
            if f.key == "epoch":
                name, reqs = f.value
                self.add("epoch", name, "def", f.name_span, "declaration", owner, f.key, scope=item.name, part=f)
                self.expressions(reqs, owner, f.key, name, f)
            elif f.key == "backward":
                expr, except_ = f.value
                for name, span in except_:
                    self.add("epoch", name, "ref", span, "except", owner, f.key, scope=item.name,
                             label=item.name, part=f)
                self.expressions(expr, owner, f.key, item.name, f)
            else:
                self.field(f, owner, item.name)

    # --- expressions, anywhere in a statement's value (round rules' nodes included). Each node on
    # the stack comes with the item attributes in scope there (inside a `where`) and whether it
    # stands under an odd number of `not`s (the charts tell "holds X" from "does not hold X").
    def expressions(self, value, owner, fld, label, part, attrs: frozenset = frozenset()) -> None:
        if type(value) in _LEAVES:  # most fields: `cost 60`
            return
        self._at = (owner, fld, label, part)
        stack: list = [(value, attrs, False)]
        while stack:
            node, local, neg = stack.pop()
            t = type(node)
            if t in _LEAVES:
                continue
            if t in (list, tuple):
                stack.extend((x, local, neg) for x in node)
            elif t is dict:
                stack.extend((x, local, neg) for x in node.values())
            elif t is Name:
                self._name(node, local, neg)
            elif t is Call:
                stack.extend(self._call(node, local, neg))
            elif t is Where:
                stack += [(node.items, local, neg), (node.condition, local | _attributes(node.items), neg)]
            elif t is Not:
                stack.append((node.operand, local, not neg))
            elif hasattr(t, "__dataclass_fields__") and t is not Span:
                stack.extend((v, local, neg) for v in node.__dict__.values())

    def _use(self, kind: str, name: str, span: Span, via: str, neg: bool) -> None:
        owner, fld, label, part = self._at
        self.add(kind, name, "ref", span, via, owner, fld, label=label, part=part, negated=neg)

    def _name(self, node: Name, local: frozenset, neg: bool) -> None:
        first = node.parts[0]
        if first not in local:
            self._use("name", first, _name_span(node.span, first), "name", neg)

    def _call(self, call: Call, local: frozenset, neg: bool) -> list:
        named = NAMING_CALLS.get(call.name)
        if named is not None and call.args and isinstance(call.args[0], Str):
            self._use(named, call.args[0].value, call.args[0].span, call.name, neg)
            return []
        self._use("call", call.name, _name_span(call.span, call.name), "call", neg)
        group = _group_argument(call)
        word = group.value if type(group) is Str else group.parts[0] if type(group) is Name and len(group.parts) == 1 \
            else None
        if word is not None:
            self._use("group", word, group.span, "group=", neg)
        todo = [(v, local, neg) for v in call.kwargs.values() if v is not group]
        fn = vocab.FUNCTIONS.get(call.name)
        # `count(advances where ..., cost)`: the later arguments read the items' attributes
        inner = local | _attributes(call.args[0]) if fn is not None and fn.scope == "model" and call.args else local
        return todo + [(a, local if i == 0 else inner, neg) for i, a in enumerate(call.args) if a is not group]


def _group_argument(call: Call):
    """The argument naming a group: `group=` of a function, or the `group` parameter of an effect
    kind or ability (vocabulary.py), given by name or by position."""
    if "group" in call.kwargs:
        return call.kwargs["group"]
    kind = vocab.EFFECT_KINDS.get(call.name) or vocab.ABILITY_KINDS.get(call.name)
    names = [p.name for p in kind.params] if kind is not None else []
    at = names.index("group") if "group" in names else len(call.args)
    return call.args[at] if at < len(call.args) else None


# Values that name nothing (most of what a statement holds): skipped before any other test.
_LEAVES = frozenset({str, int, float, bool, type(None), Span, Num, Str, Bool})


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
        raw: list[Ref] = []
        fresh: dict = {}
        for i, ast in enumerate(self.asts):
            if ast is not None:
                _FileIndexer(ast, i, raw, memo, fresh).run()
        if memo is not None:
            memo.clear()
            memo.update(fresh)
        self.declared: dict[str, set[str]] = {}
        for r in raw:
            if r.role == "def":
                self.declared.setdefault(r.kind, set()).add(r.name)
        self.refs = [self._resolved(r) for r in raw if r.kind != "call" or self._is_table(r)]
        self._by_name: dict[tuple[str, str], list[Ref]] = {}
        for r in self.refs:
            self._by_name.setdefault((r.kind, r.name), []).append(r)

    # --- scope resolution: what a bare name or a call stands for where it is written
    def _is_table(self, r: Ref) -> bool:
        return r.name in self.declared.get("table", ())

    def _resolved(self, r: Ref) -> Ref:
        if r.kind == "call":
            return _with(r, kind="table")
        if r.kind == "name":
            for kind in ("const", "option", "group"):
                if r.name in self.declared.get(kind, ()):
                    return _with(r, kind=kind)
            if r.name in vocab.FACTS or r.name in vocab.DERIVED_NAMES:
                return _with(r, kind="fact")
        if r.kind == "item":
            for kind in ERRATA_TARGETS:
                if r.name in self.declared.get(kind, ()):
                    return _with(r, kind=kind)
        return r

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
        best = None
        for r in self.refs:
            s = r.span
            if s.path == path and s.line == line and s.column <= column <= (s.end_column or s.column):
                if best is None or s.column > best.span.column:
                    best = r
        return best

    def in_force(self, r: Ref) -> bool:
        """Whether the resolved rulebook still holds this use: no later file of the chain declares its
        statement whole or removes it, nor `change`s the field holding it in a way that replaces the
        base's (fields.ITEM_FIELDS `change`), nor drops the modifier holding it."""
        kind, name = r.owner
        for later in self.asts[r.file + 1:]:
            for it in (later.items if later is not None else ()):
                if it.name != name:
                    continue
                if it.kind == kind and kind not in _COLLECTED:
                    return False
                if it.kind == "remove" and it.value == kind:
                    return False
                if it.kind == "change" and it.value == kind and r.field is not None and _edits(it, kind, r):
                    return False
        return True

    def unknown(self, kind: str, known: Iterable[str]) -> list[Ref]:
        """The uses in force of `kind` that name nothing in `known` (the resolved rulebook's names)."""
        known = set(known)
        return [r for r in self.of_kind(kind, role="ref")
                if r.name not in known and r.field != "drop" and self.in_force(r)]


def _edits(change: Item, kind: str, r: Ref) -> bool:
    """Whether a later `change` takes the use's field out: it replaces that field, or drops the
    modifier holding the use."""
    from .expressions import unparse

    for f in change.fields:
        if f.key == r.field:
            spec = item_fields.field(kind, f.key)
            if spec is not None and spec.change in ("replace", "replace_all"):
                return True
        if f.key == "drop" and r.field == "modifier" and r.part is not None:
            cond, role = f.value
            mod = r.part.value
            if unparse(cond) == unparse(mod.condition) and role == mod.role:
                return True
    return False


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
