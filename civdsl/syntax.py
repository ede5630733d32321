"""Pass 2: Lark parse tree -> civdsl syntax tree (plain dataclasses with source spans).

The transformer only reshapes; it checks nothing but what it must decode (string escapes,
over-long numbers, numbers outside their field's bound in `bounds.FIELDS` or its row of
`fields.ITEM_FIELDS`, colours), and records those problems instead of raising, so that every
later check still runs and all errors come out in one report.

An item field whose row in `fields.ITEM_FIELDS` gives a value shape has no callback written here:
one per row is registered under its grammar alias (`syntax_fields._register_field_callbacks`). The
nodes it makes are declared in `syntax_nodes.py` and importable from here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from lark import Discard, Token, Transformer, Tree, v_args
from lark.exceptions import GrammarError, VisitError

from .bounds import Bound
from .diagnostics import Diagnostics, Span, span_from, span_of
from .parser import CHAINS, MAX_DEPTH, MAX_DIGITS, TOKEN_TYPES, TooDeep, named_alternatives, node_depth
from .sublanguages import registered
from .syntax_dispatch import _NOWHERE, _place, _rule_functions
from .syntax_fields import _bound, _register_field_callbacks
# The nodes are the syntax pass's output: its users import them from here.
from .syntax_nodes import (OP_TYPES, Acknowledgement, BinOp, Bool, Branch, Call, CancelOp, ChangeOp, Citation, Cites,
                           EffectCall, Expr, Field, ImmuneOp, Item, ModifierAst, Name, Neg, NodeVisitor, Not, Num, Op,
                           OptionOp, RulebookAst, StopOp, Str, Unknown, Where)

ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "0": "\0"}
# A high surrogate escape followed by a low one is one character written JSON-style
# (`\ud83d\ude00` is U+1F600); matched first so that the pair combines.
ESCAPE_RE = re.compile(r"\\(u[dD][89abAB][0-9A-Fa-f]{2}\\u[dD][c-fC-F][0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|.)", re.S)
_COLOR_RE = re.compile(r"#[0-9A-Fa-f]{3}(?:[0-9A-Fa-f]{3})?")


class _Located(int):
    """An integer literal that remembers where it was written (from `signed_int`), so that the
    item it belongs to can check it against its field's bound at its own position."""

    span: Span


def _keyed_names_block(key: str):
    """The two rule callbacks of a `key { ... }` block of `_keyed_names` lines (amounts, resolution):
    the block as a top-level item (a rulebook-wide default) and as a field of a calamity."""

    @v_args(meta=True)
    def as_item(self, meta, c):
        return Item(key, None, self._span(meta), value=[x for x in c if isinstance(x, tuple)])

    @v_args(meta=True)
    def as_field(self, meta, c):
        return self._field(key, [x for x in c if isinstance(x, tuple)], meta)

    return as_item, as_field


def _nfc(text: str) -> str:
    """A string as the rulebook means it: in NFC, so that `Café` written with a precomposed é and
    with e + U+0301 is one name (a state, an argument and a base file may each spell it either way)."""
    import unicodedata

    return text if text.isascii() or unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


class _ToSyntax(Transformer):
    """The main language's transformer; `transformer` composes it with each sub-language's
    callbacks (its `transformer` mixin), which use its helpers."""

    _rule_functions: dict[str, tuple[Callable, bool]] = {}  # _rule_functions() of the composed class

    def __init__(self, path: str, diags: Diagnostics):
        super().__init__(visit_tokens=False)
        self.file = path
        self.diags = diags
        self._citations: list[Citation] = []  # every `cites` of the text, in the order their statements end
        self._carried: list[Cites] = []  # a bare block's own `cites`, for the statement that holds the block

    def _cite(self, cites: Cites, previous: tuple[Token, Token] | None, own: list | None) -> list | None:
        """OWN with CITES added when they cite the node itself (written first in its block); else
        they cite the statement just before them, recorded now."""
        if previous is None:
            return [cites] if own is None else own + [cites]
        self._citations.append(Citation(cites.clauses, cites.span, span_of(self.file, previous[0])))
        return own

    def _own_cites(self, rule: str, own: list, first: Token | None) -> None:
        """The `cites` a node's block opens with: a bare block passes them on to the node that
        holds it; any other node is what they cite."""
        if rule in _BARE_BLOCKS:
            self._carried = own
        else:
            self._citations.extend(Citation(c.clauses, c.span, span_of(self.file, first)) for c in own)

    def _transform_tree(self, tree):
        return self._transform_node(tree, 0)[0]

    def _transform_node(self, tree, level: int) -> tuple[Any, Token | None, Token | None, int]:
        """(what the node becomes, its first token, its last token, its depth), for a node `level`
        levels below the root.

        Lark's tree builder can record every node's position (propagate_positions), but that costs
        more than a third of the parse; civdsl's parser does without it (parser.lark_parser), and the
        position is derived here, in the walk that happens anyway: a node starts where its first
        token starts and ends where its last token ends, which is what Lark records for this
        grammar (every terminal is named and kept, and a rule inlined with `?` has one child;
        tests/test_front_paths.py checks the two agree on every node).

        The depth is measured here too, as parser.MAX_DEPTH counts it (parser.node_depth), so a file
        needs no walk of its own for it: past MAX_DEPTH this raises parser.TooDeep (a node that far
        down is too deep whatever it holds), before the recursion could run out of stack."""
        if level > MAX_DEPTH:
            raise TooDeep
        # the node's children transformed, its first and last token, its depth, and the `cites`
        # written first in its block (which cite the node itself), found in one loop. Lark's
        # version collects each node's children through a generator (two frames and a generator
        # object per node); this loop does the same for this transformer, which visits no tokens
        # (they are passed through as they are). It runs once per node of every file, so what
        # most nodes do not need (the list of `cites`, the children's depths) is made only when
        # needed
        rule = tree.data
        children: list = []
        first = last = None
        own: list[Cites] | None = None
        previous: tuple[Token, Token] | None = None  # the statement just before, in this node's block
        kids: list[int] | None = [] if rule in CHAINS else None  # in a chain of operators, each child's depth
        depth = 0
        for c in tree.children:
            if not isinstance(c, Tree):
                previous = None
                if kids is not None:
                    kids.append(0)  # a token
                if c is not None:  # a token (None: an optional part left out)
                    last = c
                    if first is None:
                        first = c
                children.append(c)
                continue
            c, start, end, d = self._transform_node(c, level + 1)
            if type(c) is Cites and rule != "start":
                own = self._cite(c, previous, own)
                continue
            if self._carried:  # a bare block's first `cites`: they cite this node
                own = (own or []) + self._carried
                self._carried = []
            if start is not None:
                previous = (start, end)
                last = end
                if first is None:
                    first = start
            else:
                previous = None
            if kids is not None:
                kids.append(d)
            if d > depth:
                depth = d
            if c is not Discard:
                children.append(c)
        depth = node_depth(tree, kids) if kids is not None else depth + 1
        if depth > MAX_DEPTH:
            raise TooDeep
        if own:
            self._own_cites(rule, own, first)
        return self._call_rule(tree, children, first, last), first, last, depth

    def _call_rule(self, tree, children: list, first: Token | None, last: Token | None) -> Any:
        """What the rule's callback makes of the node's children."""
        # Lark's dispatch (_call_userfunc) makes a fresh `v_args` wrapper (functools.update_wrapper) for every
        # node, a fifth of this pass: each rule's function is looked up once (_rule_functions) and called here
        # the way Lark would call it, errors wrapped the same way; other rules go through Lark's own dispatch
        entry = self._rule_functions.get(tree.data)
        if entry is None:
            _place(tree.meta, first, last)
            return super()._call_userfunc(tree, children)
        func, with_meta = entry
        try:
            if with_meta:
                # the rule's `meta` is the node's span: from its first token to its last
                span = (_NOWHERE if first is None
                        else span_from(self.file, first.line, first.column, last.end_line, last.end_column))
                return func(self, span, children)
            return func(self, children)
        except GrammarError:
            raise
        except Exception as exc:
            raise VisitError(tree.data, tree, exc) from exc

    # --- helpers
    def _span(self, meta) -> Span:
        # a rule's `meta` is the node's span already (_transform_node), or Lark's position
        return meta if type(meta) is Span else span_of(self.file, meta)

    def _string(self, tok: Token) -> str:
        raw = tok.value[1:-1]

        def unescape(m: re.Match) -> str:
            esc = m.group(1)
            if esc in ESCAPES:
                return ESCAPES[esc]
            if esc.startswith("u") and len(esc) == 11:  # a surrogate pair
                high, low = int(esc[1:5], 16), int(esc[7:], 16)
                return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            if esc.startswith("u") and len(esc) == 5:
                code = int(esc[1:], 16)
                if 0xD800 <= code <= 0xDFFF:
                    # a lone surrogate is no character: no file, terminal or page can hold it
                    at = span_of(self.file, tok)
                    start = at.column + 1 + m.start()  # strings are on one line
                    self.diags.error("CIV110", f"`\\{esc}` is half of a surrogate pair, not a character",
                                     Span(at.path, at.line, start, start + len(m.group())),
                                     help="write the character itself, or both halves of the pair "
                                          "(`\\ud83d\\ude00`), or its code point as UTF-8 text")
                    return "\ufffd"
                return chr(code)
            self.diags.error("CIV009", f"unknown escape `\\{esc}` in a string", span_of(self.file, tok),
                             help='write `\\\\` for a backslash; known escapes are \\" \\\\ \\n \\t \\r \\0 \\uXXXX')
            return esc

        return _nfc(ESCAPE_RE.sub(unescape, raw))

    def _int(self, tok: Token, field: str | Bound | None = None) -> int:
        """A number token; with `field`, held to that field's bound (reported at the number, and
        the nearest allowed value kept, so no later pass works in proportion to a huge value)."""
        if len(tok.value) > MAX_DIGITS:
            self.diags.error("CIV005", f"the number has {len(tok.value)} digits; at most {MAX_DIGITS} are allowed",
                             span_of(self.file, tok))
            return _bound(field).clamp(0) if field else 0
        value = int(tok.value)
        return self._bounded(value, span_of(self.file, tok), field) if field else value

    def _bounded(self, value: int, span: Span, field: str | Bound) -> int:
        bound = _bound(field)
        if value in bound:
            return int(value)
        self.diags.error(bound.code, bound.message(value), span)
        return bound.clamp(value)

    def _located(self, value, field: str) -> int:
        """A `signed_int` checked against `field`."""
        return self._bounded(value, value.span, field) if isinstance(value, _Located) else value

    def _color(self, tok: Token) -> str:
        value = self._string(tok)
        if _COLOR_RE.fullmatch(value):
            return value
        shown = value.encode("unicode_escape").decode("ascii")[:40]
        self.diags.error("CIV111", f"`{shown}` is not a colour", span_of(self.file, tok),
                         help="write a colour as `#rgb` or `#rrggbb` in hexadecimal, e.g. `#2e7d32`")
        return "#000000"

    @staticmethod
    def _tokens(children, *types):
        return [c for c in children if isinstance(c, TOKEN_TYPES) and c.type in types]

    @staticmethod
    def _fields(children) -> list[Field]:
        return [c for c in children if isinstance(c, Field)]

    def _item(self, kind: str, name: str | None, meta, fields: list[Field], value: Any = None) -> Item:
        return Item(kind, name, self._span(meta), fields, value)

    # --- file
    @v_args(meta=True)
    def start(self, meta, children):
        lang, header, *items = children
        # a top-level `note` comes out of the shared rule as a Field; make it an Item
        items = [Item("note", None, i.span, value=i.value) if isinstance(i, Field)
                 else Item("cites", None, i.span, value=Citation(i.clauses, i.span, None)) if type(i) is Cites
                 else i for i in items]
        items = [i for i in items if i is not None]
        # every citation becomes a statement at the end: the resolver collects them from there, and
        # the language server, which parses a statement at a time, keeps them with their statement
        items.extend(Item("cites", None, c.span, value=c) for c in self._citations)
        self._citations = []
        return lang, header, items

    def language_decl(self, children):
        tok = self._tokens(children, "INT")[0]
        return self._int(tok), span_of(self.file, tok)

    def header(self, children):
        name = self._tokens(children, "NAME")[0]
        display = self._string(self._tokens(children, "STRING")[0])
        ext = next((c for c in children if isinstance(c, tuple)), None)
        return name.value, span_of(self.file, name), display, ext

    def extends_clause(self, children):
        tok = children[1]
        if tok.type == "STRING":
            return self._string(tok), True, span_of(self.file, tok)
        return tok.value, False, span_of(self.file, tok)

    # --- simple top-level items
    @v_args(meta=True)
    def source_decl(self, meta, children):
        return Item("source", None, self._span(meta), value=self._string(children[1]))

    @v_args(meta=True)
    def const_decl(self, meta, children):
        doc = self._string(children[4]) if len(children) > 4 and children[4] is not None else None
        return Item("const", children[1].value, self._span(meta), value=(children[3], doc),
                    name_span=span_of(self.file, children[1]))

    @v_args(meta=True)
    def group_decl(self, meta, children):
        attrs = dict(c for c in children[3:] if isinstance(c, tuple))
        return Item("group", children[1].value, self._span(meta),
                    value={"name": self._string(children[2]), **attrs}, name_span=span_of(self.file, children[1]))

    def group_color(self, children):
        return ("color", self._color(children[1]))

    def group_symbol(self, children):
        return ("symbol", self._string(children[1]))

    @v_args(meta=True)
    def credit_policy(self, meta, children):
        tok = children[2]
        variants = [Field("variant", t.value, span_of(self.file, t)) for t in self._tokens(children[3:], "NAME")]
        at = span_of(self.file, tok)
        return Item("credit_policy", tok.value, self._span(meta), variants, value=at, name_span=at)

    @v_args(meta=True)
    def scenario_decl(self, meta, c):
        strings = self._tokens(c, "STRING")
        return Item("scenario", self._string(strings[0]), self._span(meta),
                    value=self._string(strings[1]) if len(strings) > 1 else None)

    @v_args(meta=True)
    def edition_ability(self, meta, c):
        doc = self._tokens(c, "STRING")
        return Item("ability", None, self._span(meta), value=(c[1], self._string(doc[0]) if doc else None))

    @v_args(meta=True)
    def start_credits_decl(self, meta, c):
        exprs = [x for x in c[2:] if not isinstance(x, TOKEN_TYPES)]
        unless = exprs[1] if len(exprs) > 1 else None
        doc = self._tokens(c, "STRING")
        return Item("start_credits", None, self._span(meta),
                    value={"amount": exprs[0], "unless": unless, "once": bool(self._tokens(c, "ONCE")),
                           "doc": self._string(doc[-1]) if doc else None})

    @v_args(meta=True)
    def vp_tiers(self, meta, children):
        tiers = [c for c in children if isinstance(c, tuple)]
        # `vp tiers when OPTION`: the item is named by the option its reading is under
        option = self._tokens(children, "NAME")
        if option:
            return Item("vp_tiers", option[0].value, self._span(meta), value=tiers, name_span=span_of(self.file, option[0]))
        return Item("vp_tiers", None, self._span(meta), value=tiers)

    @v_args(meta=True)
    def tier_below(self, meta, children):
        return (self._int(children[1], "cost"), self._int(children[3], "vp"), self._span(meta))

    @v_args(meta=True)
    def tier_else(self, meta, children):
        return (None, self._int(children[2], "vp"), self._span(meta))

    @v_args(meta=True)
    def table_decl(self, meta, children):
        doc_tok = self._tokens(children, "STRING")
        bands = [c for c in children if isinstance(c, tuple)]
        return Item("table", children[1].value, self._span(meta),
                    value={"doc": self._string(doc_tok[0]) if doc_tok else None, "bands": bands},
                    name_span=span_of(self.file, children[1]))

    @v_args(meta=True)
    def band(self, meta, children):
        ints = [self._located(c, "table band") for c in children if isinstance(c, int)]
        low = ints[0]
        high = ints[1] if len(ints) > 1 else None
        return (low, high, children[-1], self._span(meta))

    def signed_int(self, children):
        value = _Located(-self._int(children[-1]) if len(children) > 1 else self._int(children[-1]))
        value.span = span_of(self.file, children[0] if len(children) > 1 else children[-1])
        return value

    @v_args(meta=True)
    def option_decl(self, meta, children):
        doc = self._tokens(children, "STRING")
        state = self._tokens(children, "ON", "OFF")[0].type == "ON"
        return Item("option", children[1].value, self._span(meta),
                    value={"doc": self._string(doc[0]) if doc else None, "on": state},
                    name_span=span_of(self.file, children[1]))

    @v_args(meta=True)
    def turn_decl(self, meta, c):
        title = [self._string(t) for t in c if isinstance(t, TOKEN_TYPES) and t.type == "STRING"]
        steps = [x for x in c if isinstance(x, tuple)]
        return Item("turn", title[0] if title else None, self._span(meta), value=steps)

    @v_args(meta=True)
    def turn_step(self, meta, c):
        texts = self._tokens(c, "STRING")
        actions = next((x for x in c if isinstance(x, list)), [])
        return (self._string(texts[0]), self._string(texts[1]) if len(texts) > 1 else None, self._span(meta),
                actions)

    def step_actions(self, c):
        return [x for x in c if isinstance(x, Call)]

    # --- items with blocks
    @v_args(meta=True)
    def advance(self, meta, children):
        return self._block_item("advance", children, meta)

    @v_args(meta=True)
    def calamity(self, meta, children):
        return self._block_item("calamity", children, meta)

    @v_args(meta=True)
    def commodity(self, meta, children):
        return self._block_item("commodity", children, meta)

    def _block_item(self, kind, children, meta):
        name_tok = children[1]
        fields = [c for c in children if isinstance(c, Field)]
        item = Item(kind, self._string(name_tok), self._span(meta), fields)
        item.value = item.name_span = span_of(self.file, name_tok)
        return item

    def _field(self, key, value, meta):
        return Field(key, value, self._span(meta))

    @v_args(meta=True)
    def adv_credits(self, meta, c):
        names = self._tokens(c, "NAME")
        amounts = self._tokens(c, "INT")
        return self._field("credits", [(n.value, self._int(a, "credit"), span_of(self.file, n)) for n, a in zip(names, amounts)], meta)

    @v_args(meta=True)
    def adv_specific(self, meta, c):
        return self._field("credit", (self._string(c[1]), self._int(c[2], "credit"), span_of(self.file, c[1])), meta)

    @v_args(meta=True)
    def adv_ability(self, meta, c):
        return self._field("ability", c[1], meta)

    @v_args(meta=True)
    def cal_class(self, meta, c):
        return self._field("class", c[1], meta)

    def calamity_class(self, c):
        words = [t.value for t in c]
        return "minor" if words == ["minor"] else "major " + words[1]

    @v_args(meta=True)
    def cal_primary(self, meta, c):
        return self._field("primary", c[1], meta)

    @v_args(meta=True)
    def cal_secondary(self, meta, c):
        specs = [x for x in c if isinstance(x, tuple)]
        return self._field("secondary", (specs, c[-1]), meta)

    def sec_count(self, c):
        return ("count", c[1])

    def sec_share(self, c):
        return ("share", c[1])

    @v_args(meta=True)
    def cal_exclude(self, meta, c):
        return self._field("exclude", c[1], meta)

    @v_args(meta=True)
    def exclude_role(self, meta, c):
        return ("role", c[0].value, self._span(meta))

    @v_args(meta=True)
    def exclude_when(self, meta, c):
        return ("when", c[1], self._span(meta))

    # --- amounts { bound holdings  floor zero  order add_prevent, set, cap }
    def _keyed_names(self, meta, c):
        """One `key name, name ... "doc"` line, the shape amounts { } and resolution { } share:
        (key, names, doc, line span, key span, the span of every name)."""
        key = c[0]
        values = self._tokens(c[1:], "NAME")
        doc = self._tokens(c, "STRING")
        return (key.value, [v.value for v in values], self._string(doc[0]) if doc else None,
                self._span(meta), span_of(self.file, key), [span_of(self.file, v) for v in values])

    @v_args(meta=True)
    def amounts_field(self, meta, c):
        # `... when OPTION`: the setting holds while that rule option is on (its name is the NAME after WHEN)
        when = next((i for i, x in enumerate(c) if isinstance(x, TOKEN_TYPES) and x.type == "WHEN"), None)
        option = None
        if when is not None:
            option = (c[when + 1].value, span_of(self.file, c[when + 1]))
            c = c[:when] + c[when + 2:]
        *line, value_spans = self._keyed_names(meta, c)
        return (*line, value_spans[0], option)  # amounts' checks point at the first value

    amounts_decl, cal_amounts = _keyed_names_block("amounts")

    # --- resolution { limit calamity_limit  order stack, ast ... }: the same shape,
    # with the span of every value (a diagnostic points at the one that is wrong)
    @v_args(meta=True)
    def resolution_field(self, meta, c):
        return self._keyed_names(meta, c)

    resolution_decl, cal_resolution = _keyed_names_block("resolution")

    @v_args(meta=True)
    def cal_cancel(self, meta, c):
        return self._field("cancel", c[2], meta)

    @v_args(meta=True)
    def cal_modifier(self, meta, c):
        cond = c[1]
        role = next((x for x in c if isinstance(x, tuple) and x[0] == "role"), ("role", "any"))[1]
        prio = next((x for x in c if isinstance(x, tuple) and x[0] == "priority"), ("priority", 0))[1]
        ops = [x for x in c if isinstance(x, Op)]
        return self._field("modifier", ModifierAst(cond, role, prio, ops, self._span(meta)), meta)

    def role(self, c):
        return ("role", c[1].value)

    def priority(self, c):
        return ("priority", self._int(c[1], "priority"))

    def effect_block(self, c):
        return [x for x in c if not isinstance(x, TOKEN_TYPES)]

    @v_args(meta=True)
    def effect(self, meta, c):
        return EffectCall(c[0], self._span(meta))

    @v_args(meta=True)
    def branch(self, meta, c):
        blocks = [x for x in c if isinstance(x, list)]
        return Branch(c[1], blocks[0], blocks[1] if len(blocks) > 1 else [], self._span(meta))

    def _op(self, op, c, meta, with_amount=True):
        target = c[1]
        amount = c[2] if with_amount else None
        per = c[3] if len(c) > 3 else None
        return ChangeOp(op, target[0], target[1], amount, per, None, False, self._span(meta))

    @v_args(meta=True)
    def op_add(self, meta, c):
        return self._op("add", c, meta)

    @v_args(meta=True)
    def op_prevent(self, meta, c):
        return self._op("prevent", c, meta)

    @v_args(meta=True)
    def op_set(self, meta, c):
        return self._op("set", c, meta)

    @v_args(meta=True)
    def op_cap(self, meta, c):
        return self._op("cap", c, meta)

    @v_args(meta=True)
    def op_immune(self, meta, c):
        return ImmuneOp("immune", None, None, None, None, None, False, self._span(meta))

    @v_args(meta=True)
    def op_cancel(self, meta, c):
        return CancelOp("cancel", None, None, None, None, None, False, self._span(meta))

    @v_args(meta=True)
    def op_option(self, meta, c):
        each = any(isinstance(x, TOKEN_TYPES) and x.type == "EACH" for x in c)
        return OptionOp("option", c[2].value, None, None, None, c[4], each, self._span(meta))

    @v_args(meta=True)
    def op_stop(self, meta, c):
        return StopOp("stop", None, None, None, None, c[3], False, self._span(meta))

    def target(self, c):
        names = self._tokens(c, "NAME")
        return (names[0].value, names[1].value if len(names) > 1 else None)

    def per(self, c):
        return c[1]

    # --- epochs, score
    @v_args(meta=True)
    def ast_decl(self, meta, c):
        fields = [x for x in c if isinstance(x, Field)]
        item = Item("ast", c[1].value, self._span(meta), fields, name_span=span_of(self.file, c[1]))
        item.value = self._string(c[2])
        return item

    @v_args(meta=True)
    def epoch(self, meta, c):
        reqs = [x for x in c if isinstance(x, tuple)]
        return Field("epoch", (self._string(c[1]), reqs), self._span(meta), span_of(self.file, c[1]))

    @v_args(meta=True)
    def requirement(self, meta, c):
        strings = self._tokens(c[2:], "STRING")
        why = self._string(strings[0]) if strings else None
        each_step = any(x is True for x in c[2:])
        return (c[1], why, self._span(meta), each_step)

    def each_step(self, c):
        return True

    @v_args(meta=True)
    def ast_backward(self, meta, c):
        except_ = c[3] if len(c) > 3 and c[3] is not None else []
        return self._field("backward", (c[2], except_), meta)

    def backward_except(self, c):
        return [(self._string(t), span_of(self.file, t)) for t in self._tokens(c, "STRING")]

    @v_args(meta=True)
    def ast_spaces(self, meta, c):
        return self._field("spaces", self._int(c[1], "ast spaces"), meta)

    @v_args(meta=True)
    def ast_step_points(self, meta, c):
        return self._field("step_points", self._int(c[1], "vp"), meta)

    # --- civilizations and their A.S.T. rows
    @v_args(meta=True)
    def civilization_decl(self, meta, c):
        return self._block_item("civilization", c, meta)

    @v_args(meta=True)
    def civ_block_for(self, meta, c):
        return self._field("block_for", (c[1].value, [self._string(t) for t in self._tokens(c, "STRING")]), meta)

    @v_args(meta=True)
    def civ_row(self, meta, c):
        track = self._tokens(c, "NAME")[0]
        spaces = None
        if self._tokens(c, "SPACES"):
            spaces = self._int(c[3], "ast spaces")
        at = next(i for i, x in enumerate(c) if isinstance(x, TOKEN_TYPES) and x.type == "AT")
        starts = [self._int(t, "ast space") for t in self._tokens(c[at:], "INT")]
        return self._field("row", (track.value, span_of(self.file, track), spaces, starts), meta)

    @v_args(meta=True)
    def score_decl(self, meta, c):
        return Item("score", None, self._span(meta), [x for x in c if isinstance(x, Field)])

    @v_args(meta=True)
    def score_points(self, meta, c):
        return self._field("points", (self._string(c[1]), c[2]), meta)

    @v_args(meta=True)
    def score_tiebreak(self, meta, c):
        return self._field("tiebreak", (self._string(c[1]), c[2]), meta)

    # --- commodities
    @v_args(meta=True)
    def com_block_when(self, meta, c):
        """`block ID when OPTION`: the block under a reading a declared option switches on."""
        names = self._tokens(c, "NAME")
        option = Name((names[1].value,), self._span(meta))
        return self._field("block_when", (option, names[0].value), meta)

    @v_args(meta=True)
    def set_value(self, meta, c):
        return Item("set_value", None, self._span(meta), value=c[1])

    @v_args(meta=True)
    def set_value_off_block(self, meta, c):
        exprs = [x for x in c[2:] if not isinstance(x, TOKEN_TYPES)]
        return Item("set_value_off_block", None, self._span(meta),
                    value=(exprs[0], exprs[1] if len(exprs) > 1 else None))

    @v_args(meta=True)
    def deck_decl(self, meta, c):
        ints = self._tokens(c, "INT")
        return Item("deck", None, self._span(meta), value=(self._int(ints[0], "stack"), self._int(ints[1], "deck size")))

    # --- set-ups chosen from more civilizations than players
    @v_args(meta=True)
    def setup_players_decl(self, meta, c):
        texts = self._tokens(c, "STRING")
        ints = self._tokens(c, "INT")
        low = self._int(ints[0], "players")
        high = self._int(ints[1], "players") if len(ints) > 1 else low
        return Item("setup_players", self._string(texts[0]), self._span(meta),
                    value=(low, high, self._string(texts[1]) if len(texts) > 1 else None),
                    name_span=span_of(self.file, texts[0]))

    # --- trade-card decks by player count
    @v_args(meta=True)
    def trade_deck_decl(self, meta, c):
        ints = self._tokens(c, "INT")
        low = self._int(ints[0], "players")
        high = self._int(ints[1], "players") if len(ints) > 1 else None
        block = self._tokens(c, "NAME")
        stacks = [x for x in c if isinstance(x, tuple)]
        notes = [f.value for f in self._fields(c) if f.key == "note"]
        return Item("trade_deck", self._string(self._tokens(c, "STRING")[0]), self._span(meta),
                    value={"players": (low, high), "block": block[0].value if block else None,
                           "block_span": span_of(self.file, block[0]) if block else None,
                           "range_span": span_of(self.file, ints[-1]), "stacks": stacks, "notes": notes},
                    name_span=span_of(self.file, self._tokens(c, "STRING")[0]))

    @v_args(meta=True)
    def deck_stack(self, meta, c):
        return (self._int(self._tokens(c, "INT")[0], "stack"), [x for x in c if isinstance(x, dict)],
                self._span(meta))

    def deck_under(self, c):
        return c[-1]

    @v_args(meta=True)
    def deck_layer(self, meta, c):
        clear = None
        if any(isinstance(t, TOKEN_TYPES) and t.type == "CLEAR" for t in c):
            tok = c[-1]
            clear = self._int(tok, "deck size") if tok.type == "INT" else tok.value
        return {"cards": [x for x in c if isinstance(x, tuple)], "clear": clear, "span": self._span(meta)}

    @v_args(meta=True)
    def deck_card(self, meta, c):
        ints = self._tokens(c, "INT")
        return (self._string(c[0]), self._int(ints[0], "commodity count") if ints else 1, self._span(meta))

    # --- printed clauses
    @v_args(meta=True)
    def cites(self, meta, c):
        return Cites([(self._string(t), span_of(self.file, t)) for t in self._tokens(c, "STRING")], self._span(meta))

    @v_args(meta=True)
    def clause_decl(self, meta, c):
        ack = c[-1]
        ids = [(self._string(t), span_of(self.file, t)) for t in self._tokens(c[:-1], "STRING")]
        return Item("clause", None, self._span(meta), value=Acknowledgement(ids, ack[0], ack[1], self._span(meta)))

    def ack_out_of_scope(self, c):
        return ("out_of_scope", (c[1].value, self._string(c[2]), span_of(self.file, c[1])))

    def ack_flavour(self, c):
        return ("flavour", (self._string(c[1]),) if len(c) > 1 and c[1] is not None else ())

    def ack_covered_by(self, c):
        return ("covered_by", tuple((self._string(t), span_of(self.file, t)) for t in self._tokens(c, "STRING")))

    def ack_departs(self, c):
        return ("departs", (self._string(c[1]),))

    def ack_errata(self, c):
        return ("errata", (c[1].value, span_of(self.file, c[1])))

    # --- checks and edits
    @v_args(meta=True)
    def assert_decl(self, meta, c):
        return Item("assert", None, self._span(meta), value=(c[1], self._string(c[2])))

    @v_args(meta=True)
    def ruling_decl(self, meta, c):
        calls = [x for x in c if isinstance(x, Call)]
        return Item("ruling", c[1].value, self._span(meta), value=(self._string(c[2]), calls),
                    name_span=span_of(self.file, c[1]))

    @v_args(meta=True)
    def overrules_decl(self, meta, c):
        return Item("overrules", c[1].value, self._span(meta), value=self._string(c[2]),
                    name_span=span_of(self.file, c[1]))

    @v_args(meta=True)
    def law_decl(self, meta, c):
        calls = [x for x in c if isinstance(x, Call)]
        return Item("law", c[1].value, self._span(meta), value=(self._string(c[2]), calls),
                    name_span=span_of(self.file, c[1]))

    @v_args(meta=True)
    def drop_law_decl(self, meta, c):
        return Item("drop_law", c[2].value, self._span(meta), value=self._string(c[3]),
                    name_span=span_of(self.file, c[2]))

    @v_args(meta=True)
    def errata(self, meta, c):
        return Item("errata", c[1].value, self._span(meta),
                    value=(self._string(c[2]), self._string(c[3]), span_of(self.file, c[2])))

    @v_args(meta=True)
    def remove_decl(self, meta, c):
        return Item("remove", self._string(c[2]), self._span(meta), value=c[1], name_span=span_of(self.file, c[2]))

    def item_kind(self, c):
        return c[0].value

    @v_args(meta=True)
    def change_advance(self, meta, c):
        return self._change("advance", c, meta)

    @v_args(meta=True)
    def change_calamity(self, meta, c):
        return self._change("calamity", c, meta)

    @v_args(meta=True)
    def change_commodity(self, meta, c):
        return self._change("commodity", c, meta)

    def _change(self, kind, c, meta):
        item = Item("change", self._string(c[2]), self._span(meta), [x for x in c if isinstance(x, Field)],
                    name_span=span_of(self.file, c[2]))
        item.value = kind
        return item

    @v_args(meta=True)
    def drop_modifier(self, meta, c):
        role = next((x[1] for x in c if isinstance(x, tuple) and x[0] == "role"), "any")
        return self._field("drop", (c[2], role), meta)

    # --- calls and expressions
    @v_args(meta=True)
    def call(self, meta, c):
        return self._make_call(c[0].value, [x for x in c[1:] if not isinstance(x, TOKEN_TYPES) and x is not None], meta)

    @v_args(meta=True)
    def ruling_call(self, meta, c):
        return self._make_call(c[0].value, [x for x in c[1:] if not isinstance(x, TOKEN_TYPES) and x is not None], meta)

    @v_args(meta=True)
    def func_call(self, meta, c):
        return self._make_call(c[0].value, [x for x in c[1:] if not isinstance(x, TOKEN_TYPES) and x is not None], meta)

    def _make_call(self, name, args, meta):
        positional, kwargs, spans = [], {}, {}
        for a in args:
            if isinstance(a, tuple) and a[0] == "kwarg":
                kwargs[a[1]] = a[2]
                spans[a[1]] = a[3]
            else:
                positional.append(a)
        return Call(name, positional, kwargs, self._span(meta), spans)

    def kwarg(self, c):
        return ("kwarg", c[0].value, c[2], span_of(self.file, c[0]))

    @v_args(meta=True)
    def filtered(self, meta, c):
        return Where(c[0], c[2], self._span(meta))

    @v_args(meta=True)
    def int_lit(self, meta, c):
        return Num(self._int(c[0]), self._span(meta))

    @v_args(meta=True)
    def str_lit(self, meta, c):
        return Str(self._string(c[0]), self._span(meta))

    @v_args(meta=True)
    def true_lit(self, meta, c):
        return Bool(True, self._span(meta))

    @v_args(meta=True)
    def false_lit(self, meta, c):
        return Bool(False, self._span(meta))

    @v_args(meta=True)
    def unknown_lit(self, meta, c):
        return Unknown(self._span(meta))

    def atom(self, c):
        return c[1]  # ( expr )

    def name_ref(self, c):
        return c[0]

    @v_args(meta=True)
    def path(self, meta, c):
        return Name(tuple(t.value for t in self._tokens(c, "NAME")), self._span(meta))

    @v_args(meta=True)
    def or_expr(self, meta, c):
        """Operands joined by binary operators, left-deep (`a - b - c` is `(a - b) - c`): every level of
        precedence of the grammar is such a chain."""
        left = c[0]
        for i in range(1, len(c), 2):
            op_tok, right = c[i], c[i + 1]
            left = BinOp(op_tok.value, left, right, self._span(meta))
        return left

    and_expr = comparison = sum = product = or_expr

    @v_args(meta=True)
    def not_(self, meta, c):
        return Not(c[1], self._span(meta))

    @v_args(meta=True)
    def neg(self, meta, c):
        return Neg(c[1], self._span(meta))


# Blocks that are no statement of their own: a `cites` first in one cites the statement holding it
# (`primary { cites "52.3" ... }` cites the primary effects).
_BARE_BLOCKS = frozenset({"effect_block"})


_register_field_callbacks(_ToSyntax)


@functools.lru_cache(maxsize=4)
def _composed(subs: tuple) -> type:
    cls = type("_ToSyntax", (*(s.transformer for s in subs), _ToSyntax), {}) if subs else _ToSyntax
    unhandled = unhandled_alternatives(cls, named_alternatives())
    if unhandled:
        # without a callback Lark keeps the alternative as a bare tree, which no item reads: the
        # value written would be dropped without a word
        raise TypeError(f"the grammar's {', '.join(f'`-> {name}`' for name in unhandled)} has no callback: an "
                        "item field's alternative needs its row in fields.ITEM_FIELDS (with a value shape), any "
                        "other its callback in syntax.py or in its sub-language's transformer")
    cls._rule_functions = _rule_functions(cls)
    return cls


def unhandled_alternatives(cls: type, alternatives: frozenset[str]) -> list[str]:
    """The grammar's named alternatives that the transformer class CLS has no callback for."""
    return sorted(name for name in alternatives if not callable(getattr(cls, name, None)))


def transformer_class() -> type:
    """The whole language's transformer class: the main rules and every registered sub-language's."""
    return _composed(registered())


def transformer(path: str, diags: Diagnostics) -> _ToSyntax:
    """A transformer of one file's parse tree (or a statement's: the language server's)."""
    return transformer_class()(path, diags)


def to_syntax(tree: Tree, path: str, diags: Diagnostics) -> RulebookAst:
    """The syntax tree of a parse tree; raises parser.TooDeep for one nested deeper than
    parser.MAX_DEPTH (which parser.parse refuses unless told the depth is measured here)."""
    return rulebook_ast(path, *transformer(path, diags).transform(tree))


def rulebook_ast(path: str, head: tuple, header: tuple, items: list) -> RulebookAst:
    """A file's syntax tree from what the transformer makes of its parts: the `language` line,
    the `edition` header, the statements (the language server parses them apart)."""
    (language, lang_span), (edition, edition_span, display, ext) = head, header
    return RulebookAst(
        path=path, language=language, language_span=lang_span, edition=edition, edition_span=edition_span,
        display_name=display, extends=ext[0] if ext else None, extends_is_path=bool(ext and ext[1]),
        extends_span=ext[2] if ext else None, items=items,
    )
