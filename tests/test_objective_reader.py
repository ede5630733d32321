"""The objective reader (plan/objectives.py, in the engine subset so the page runs it) against the
rulebook grammar: random expressions give the same tree and value through both, and the grammar's
refusals are the reader's (same message, same column)."""

from __future__ import annotations

import functools
import re
import sys
from fractions import Fraction

import lark
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import civdsl
from civdsl import expressions, parser, syntax, vocabulary
from civdsl.diagnostics import Diagnostics, did_you_mean
from civdsl.plan import objectives
from civdsl.state import StateError, value_text
from civdsl.syntax_nodes import BinOp, Bool, Call, Name, Neg, Not, Num, Str, Unknown, Where

SETTINGS = settings(max_examples=400, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


@functools.cache
def _expr_parser() -> lark.Lark:
    """The rulebook grammar with its `expr` rule as a start: the language an objective is written in."""
    return parser.build_lark(start=["start", "expr"])


def grammar_read(text: str):
    """(syntax tree, None) or (None, (message, column)): the rulebook parser's and syntax pass's
    reading of TEXT as the grammar's `expr`."""
    diags = Diagnostics()
    if not parser.check_limits(text, "-", diags):
        return None, _first(diags)
    try:
        tree = _expr_parser().parse(text, start="expr")
    except lark.exceptions.UnexpectedInput as exc:
        parser._report_syntax_error(exc, text, "-", diags)
        return None, _first(diags)
    if parser._too_deep(tree) is not None:
        parser.report_too_deep(tree, "-", diags)
        return None, _first(diags)
    expr = syntax.transformer("-", diags).transform(tree)
    return (None, _first(diags)) if diags.has_errors else (expr, None)


def _first(diags: Diagnostics):
    error = diags.errors[0]
    return error.message, error.span.column


def canonical(e):
    """A syntax-pass expression as plain tuples (column first where the node has one)."""
    if isinstance(e, Num):
        return ("num", e.span.column, e.value)
    if isinstance(e, Str):
        return ("str", e.span.column, e.value)
    if isinstance(e, Bool):
        return ("bool", e.span.column, e.value)
    if isinstance(e, Unknown):
        return ("unknown", e.span.column)
    if isinstance(e, Name):
        return ("name", e.span.column, tuple(e.parts))
    if isinstance(e, Not):
        return ("not", e.span.column, canonical(e.operand))
    if isinstance(e, Neg):
        return ("neg", e.span.column, canonical(e.operand))
    if isinstance(e, BinOp):
        return ("bin", e.span.column, e.op, canonical(e.left), canonical(e.right))
    if isinstance(e, Call):
        return ("call", e.span.column, e.name, tuple(canonical(a) for a in e.args),
                tuple((k, canonical(v)) for k, v in e.kwargs.items()))
    if isinstance(e, Where):
        return ("where", e.span.column, canonical(e.items), canonical(e.condition))
    raise TypeError(e)


def reader_canonical(node):
    """The reader's tree in canonical()'s form: brackets dropped, a chain left-deep, keywords apart,
    columns from 1."""
    node = (node[0], node[1] + 1, *node[2:])
    kind = node[0]
    if kind == "int":
        return ("num", node[1], node[2])
    if kind in ("str", "bool"):
        return node
    if kind == "unknown":
        return node
    if kind == "name":
        return ("name", node[1], tuple(node[2]))
    if kind == "paren":
        return reader_canonical(node[2])
    if kind in ("not", "neg"):
        return (kind, node[1], reader_canonical(node[2]))
    if kind == "chain":
        left = reader_canonical(node[2][0])
        for op, right in zip(node[3], node[2][1:]):
            left = ("bin", node[1], op, left, reader_canonical(right))
        return left
    if kind == "call":
        kwargs = {}
        for a in node[3]:
            if a[0] == "kwarg":
                kwargs[a[2]] = reader_canonical(a[3])
        return ("call", node[1], node[2], tuple(reader_canonical(a) for a in node[3] if a[0] != "kwarg"),
                tuple(kwargs.items()))
    if kind == "where":
        return ("where", node[1], reader_canonical(node[2]), reader_canonical(node[3]))
    raise TypeError(node)


# The one difference left, in messages only: where the grammar's LALR tables merge states, its
# contextual lexer reads a refused word that begins with a keyword of another statement (`1 vpx`)
# as that keyword (`unexpected `vp``); the reader names the whole word (`unexpected `vpx``), at the
# same column.
def same_refusal(grammar, reader) -> bool:
    if grammar == reader:
        return True
    (gm, gc), (rm, rc) = grammar, reader
    g, r = re.fullmatch(r"unexpected `(\w+)`", gm), re.fullmatch(r"unexpected `(\w+)`", rm)
    return gc == rc and bool(g and r) and g.group(1) in parser.keywords() and r.group(1).startswith(g.group(1))


def check_agree(text: str):
    expr, refused = grammar_read(text)
    tree, problem = objectives.read_expression(text)
    if refused is not None or problem is not None:
        assert refused is not None and problem is not None and same_refusal(refused, problem), \
            (text, refused, problem)
        return None, None
    assert reader_canonical(tree) == canonical(expr), text
    return expr, tree


# --- random texts ---------------------------------------------------------------------------

NAMES = ["cost", "vp", "group_count", "credit_total", "specific_total", "supply", "crafts", "arts", "civics",
         "tax_rate", "vpp", "costs", "holds", "x", "a_b", "order", "andes", "notes", "wherever", "truth"]
FUNCTIONS = ["floor", "ceil", "sqrt", "min", "max", "abs", "count", "holds", "fact"]
OPERATORS = ["+", "-", "*", "/", "//", "==", "!=", "<", "<=", ">", ">=", "and", "or"]
SPACE = st.sampled_from(["", " ", "  ", "\t"])


def _glue(parts: list, spaces: list) -> str:
    return "".join(p + s for p, s in zip(parts, spaces + [""] * len(parts)))


@st.composite
def expression_texts(draw, depth: int = 0):
    """An expression of the sub-language, spaced at random (no space at all may glue two words:
    both readers must agree on whatever the text then says)."""
    sp = lambda: draw(SPACE)  # noqa: E731
    leaf = depth >= 4 or draw(st.integers(0, 3)) == 0
    if leaf:
        kind = draw(st.integers(0, 9))
        if kind <= 4:
            name = draw(st.sampled_from(NAMES))
            return name if draw(st.integers(0, 9)) else f"{name}{sp()}.{sp()}{draw(st.sampled_from(NAMES))}"
        if kind <= 7:
            return str(draw(st.one_of(st.integers(0, 200), st.integers(0, 10**11))))
        return draw(st.sampled_from(['"x"', '"a\\"b"', "true", "false", "unknown", '"\\u00e9"']))
    shape = draw(st.integers(0, 5))
    inner = lambda: draw(expression_texts(depth + 1))  # noqa: E731
    if shape == 0:
        return f"-{sp()}{inner()}"
    if shape == 1:
        return f"not {inner()}"
    if shape == 2:
        return f"({sp()}{inner()}{sp()})"
    if shape == 3:
        fn = draw(st.sampled_from(FUNCTIONS))
        args = [inner() for _ in range(draw(st.integers(0, 2)))]
        if args and draw(st.booleans()):
            args[-1] = f"{args[-1]} where {inner()}"
        if draw(st.integers(0, 5)) == 0:
            args.append(f"key{sp()}={sp()}{inner()}")
        return f"{fn}({sp()}{(',' + sp()).join(args)})"
    op = draw(st.sampled_from(OPERATORS))
    left, right = inner(), inner()
    return f"{left}{' ' if op[0].isalpha() else sp()}{op}{' ' if op[0].isalpha() else sp()}{right}"


TOKENS = NAMES + FUNCTIONS + OPERATORS + ["not", "where", "true", "false", "unknown", "(", ")", ",", ".", "=",
                                          "..", ":", "{", "}", "0", "12", "1234567890", '"s"', '"open', '"\\q"',
                                          '"\\ud800"', "$", "!", "#", "@", "é"]


@st.composite
def token_soups(draw):
    """Words and symbols of the sub-language in any order: mostly refused, sometimes not."""
    parts = draw(st.lists(st.sampled_from(TOKENS), min_size=0, max_size=10))
    spaces = draw(st.lists(st.sampled_from(["", " "]), min_size=len(parts), max_size=len(parts)))
    return _glue(parts, spaces)


@SETTINGS
@given(expression_texts())
def test_random_expressions_read_alike(text):
    check_agree(text)


@SETTINGS
@given(token_soups())
def test_random_token_soups_are_refused_alike(text):
    check_agree(text)


@pytest.mark.parametrize("text", [
    "vp andvp", "vp orcost", "(and)", "vp + not", "not not vp", "- not", "f(x wherey)", "f(x = 1, y == 2)",
    "f(x.y = 1)", "a . b . c", "f()", "f(,)", "1(2)", "(vp)(2)", "a.1", "vp < 3 < 4", "vp = 3", "vp #c", "# c",
    "", "   ", "vp ..", '"\\ud83d\\ude00"', '"\\ud83d"', '"\\uZZZZ"', '"x\\', "9999999999 + \"\\q\"",
    "(" * 65 + "1" + ")" * 65, "(" * 64 + "1" + ")" * 64, "not " * 99 + "x", "not " * 100 + "x",
    "-" * 99 + "1", "-" * 100 + "1", "+".join(["1"] * 100), "+".join(["1"] * 101),
    "f(" * 30 + ")" * 30, "vp CIV001", "true == 1", "min(cost where vp, 2)",
])
def test_edge_texts_read_alike(text):
    check_agree(text)


def test_a_word_glued_to_an_operator_keyword_is_read_as_the_grammar_reads_it():
    tree, problem = objectives.read_expression("vp andvp")
    assert problem is None and tree[3] == ["and"]
    assert objectives.read_expression("order")[0] == ("name", 0, ["order"])  # a name where one may stand


# --- values: the reader's evaluation against expressions.evaluate -------------------------------

@functools.cache
def _megaciv():
    return civdsl.load("megaciv").module


def grammar_values(module, expr, text):
    """Per advance, the old reading's value (expressions.evaluate over the syntax tree) or its message."""
    out = {}
    for name, adv in module.ADVANCES.items():
        if adv["cost"] is None:
            out[name] = 0
            continue
        values = {"cost": adv["cost"], "vp": adv["vp"], "group_count": len(adv["groups"]),
                  "credit_total": sum(adv["credits"].values()), "specific_total": sum(adv["specific"].values()),
                  "supply": adv["supply"] or 0}

        def lookup(node, adv=adv, values=values, name=name):
            head = node.parts[0]
            if len(node.parts) == 1:
                if head in values:
                    if values[head] is None:
                        raise expressions.EvalError(f"`{head}` is unknown for {name}", node.span)
                    return values[head]
                if head in module.GROUPS:
                    return 1 if head in adv["groups"] else 0
                if head in module.CONSTS:
                    return module.CONSTS[head]
            readable = list(values) + list(module.GROUPS)
            best = did_you_mean(node.dotted, readable + list(module.CONSTS))
            hint = f"; did you mean `{best}`?" if best else ""
            raise expressions.EvalError(f"unknown name `{node.dotted}`{hint} (an objective reads "
                                        f"{', '.join(readable)} and the rulebook's constants)", node.span)

        try:
            value = expressions.evaluate(expr, lookup)
        except expressions.EvalError as exc:
            return f"--objective {value_text(text)}: {exc}"
        if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
            return f"--objective {value_text(text)}: gives {value_text(value)} for {name}, not a number"
        out[name] = civdsl.unknown.number(value)
    return out


def reader_values(module, text):
    try:
        return objectives._expression_objective(module, text).values
    except StateError as exc:
        return str(exc)


@SETTINGS
@given(expression_texts())
def test_random_expressions_give_the_same_values(text):
    expr, tree = check_agree(text)
    if expr is None or objectives._stripped(text) != text or text.lower() in ("vp", "points", "cards"):
        return
    module = _megaciv()
    want, got = grammar_values(module, expr, text), reader_values(module, text)
    assert got == want, text
    if isinstance(want, dict):  # the same kind of number too (1 and 1.0 are equal)
        assert [type(v) for v in got.values()] == [type(v) for v in want.values()], text


@pytest.mark.parametrize("text", [
    "vp / 3 + cost / 7", "cost // 0", "cost / 0", "sqrt(cost)", "sqrt(-cost)", "min(cost, 100) // 10",
    "max(vp, cost / 2)", "floor(cost / 7) + ceil(cost / 7)", "abs(-vp)",
    "vp * 100 + cost - 10 * crafts + tax_rate", "vp and cost", "not cost", "\"a\" + 1", "unknown", "true",
    "vp > 1", "count(x)", "floor(x=1)", "floor(1, 2)", "999999999 * 999999999 * 10", "cost / 999999999 / 999999999",
    "vpp", "a.b", "sqrt(cost) / 3", "-(-cost)", "cost == 100 or vp == 2",
])
def test_values_and_messages_agree(text):
    expr, _ = check_agree(text)
    module = _megaciv()
    assert reader_values(module, text) == grammar_values(module, expr, text)


def test_an_unknown_name_is_answered_with_the_nearest():
    with pytest.raises(StateError, match=r"unknown name `vpp`; did you mean `vp`\?"):
        objectives.objective(_megaciv(), "vp + vpp")


def test_a_syntax_error_says_its_column():
    with pytest.raises(StateError, match=r"^--objective 'vp \+ \)': unexpected `\)` at column 6 \(write vp"):
        objectives.objective(_megaciv(), "vp + )")


# --- the reader's tables against their one declaration ----------------------------------------

def test_the_operator_levels_are_the_grammars():
    from civdsl.resources import grammar_text

    text = grammar_text()
    terminals = {t.name: t.pattern for t in _expr_parser().terminals}
    levels = []
    for rule in ("or_expr", "and_expr", "comparison", "sum", "product"):
        body = re.search(rf"^\?{rule}:(.*)$", text, re.M).group(1)
        ops = set()
        for name in re.findall(r"\b[A-Z_]+\b", body):
            pattern = terminals[name]
            ops |= {pattern.value} if pattern.type == "str" else set(re.findall(r"[=!<>]=|[<>]", pattern.value))
        levels.append(ops)
    assert levels == [set(level) for level in objectives.LEVELS]


def test_the_limits_and_functions_are_the_parsers_and_vocabularys():
    assert (objectives.MAX_NESTING, objectives.MAX_DEPTH, objectives.MAX_DIGITS) == \
        (parser.MAX_NESTING, parser.MAX_DEPTH, parser.MAX_DIGITS)
    assert objectives.MAX_MAGNITUDE == expressions.MAX_MAGNITUDE
    math = {f.name: len(f.args) for f in vocabulary.FUNCTIONS.values() if f.scope == "math"}
    assert dict(objectives.MATH_FUNCTIONS) == math
    assert set(objectives.ATTRIBUTES) == {"cost", "vp", "group_count", "credit_total", "specific_total", "supply"}


def test_the_reader_skips_the_grammars_whitespace():
    pattern = next(t for t in _expr_parser().terminals if t.name == "WHITESPACE").pattern.value
    spaces = "".join(chr(c) for c in range(sys.maxunicode + 1) if re.fullmatch(pattern, chr(c)))
    assert sorted(objectives.WHITESPACE) == sorted(spaces)
    assert objectives.objective(_megaciv(), "\ufeff Points\t").name == "points"
