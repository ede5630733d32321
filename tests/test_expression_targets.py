"""One walk over the expression nodes (expressions.ExpressionCompiler) serves every target language:
the Python of the generated module, the JavaScript of the companion page, the round rules' Python
and a set's value in both. A target declares only its words; a node type without its visit fails here."""

from __future__ import annotations

import typing

import pytest

from civdsl import syntax
from civdsl.codegen import _SetValueCompiler
from civdsl.companion.jsgen import JSCompiler, _SetValueJS
from civdsl.diagnostics import Span
from civdsl.expressions import ExpressionCompiler, PlainLogicCompiler, PythonCompiler
from civdsl.pysource import CodegenError
from civdsl.rounds.codegen import _RoundCompiler

TARGETS = (PythonCompiler, PlainLogicCompiler, JSCompiler, _SetValueCompiler, _SetValueJS, _RoundCompiler)
WORDS = [name for name in typing.get_type_hints(ExpressionCompiler) if name.isupper()]


@pytest.mark.parametrize("node", typing.get_args(syntax.Expr), ids=lambda t: t.__name__)
def test_the_shared_walk_visits_every_expression_node(node):
    assert callable(getattr(ExpressionCompiler, f"visit_{node.__name__}", None))


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.__name__)
def test_every_target_declares_all_its_words(target):
    assert WORDS, "ExpressionCompiler declares the words a target gives"
    missing = [w for w in WORDS if not hasattr(target, w)]
    assert not missing
    assert target.literal is not ExpressionCompiler.literal
    assert target._arguments is not ExpressionCompiler._arguments


def _span():
    return Span("t.civ", 1, 1)


def _expr(text_op: str, left, right):
    return syntax.BinOp(text_op, left, right, _span())


def test_one_expression_in_both_languages():
    """The same tree, each target in its own words: literals, names, logic, operators, calls."""
    s = _span()
    tree = _expr("and",
                 _expr(">=", syntax.Name(("cities",), s), syntax.Num(3, s)),
                 _expr("or", syntax.Call("holds", [syntax.Str("Law", s)], {}, s),
                       syntax.Not(syntax.Call("min", [syntax.Neg(syntax.Name(("k",), s), s), syntax.Num(2, s)],
                                              {}, s), s)))
    py = PythonCompiler({"k": 4}, {}, set()).compile(tree)
    js = JSCompiler({"k": 4}, {}, set()).compile(tree)
    assert py == ("_rt.and_((s.fact('cities') >= 3), lambda: _rt.or_(('Law' in s.held_set), "
                  "lambda: _rt.not_(_rt.min_((-4), 2))))")
    assert js == 'and_(ge(s.fact("cities"), 3), () => or_(s.held_set.has("Law"), () => not_(min_(neg(4), 2))))'


def test_a_player_function_passes_keywords_as_each_language_does():
    s = _span()
    call = syntax.Call("count_advances", [], {"group": syntax.Name(("science",), s), "vp": syntax.Num(1, s)}, s)
    assert PythonCompiler({}, {}, set()).compile(call) == "s.count_advances(group='science', vp=1)"
    # the page's state is playerstate.py translated: its keywords are positions, in the vocabulary's order
    assert JSCompiler({}, {}, set()).compile(call) == 's.count_advances(undefined, undefined, 1, "science")'


def test_the_states_keyword_methods_take_the_vocabularys_keywords_in_order():
    """The page passes a player function's keywords by position: the method's parameters must be
    the vocabulary's keywords, in its order."""
    import inspect

    from civdsl import vocabulary as vocab
    from civdsl.playerstate import PlayerState

    with_keywords = [fn for fn in vocab.FUNCTIONS.values() if fn.kwargs and hasattr(PlayerState, fn.name)]
    assert with_keywords
    for fn in with_keywords:
        params = list(inspect.signature(getattr(PlayerState, fn.name)).parameters)[1 + len(fn.args):]
        assert tuple(params) == tuple(fn.kwargs), fn.name


@pytest.mark.parametrize("target", (_SetValueCompiler, _SetValueJS), ids=lambda t: t.__name__)
@pytest.mark.parametrize("bad", [
    syntax.Str("x", Span("t.civ", 1, 1)),
    syntax.Name(("cities",), Span("t.civ", 1, 1)),
    syntax.Name(("n", "x"), Span("t.civ", 1, 1)),
    syntax.Call("holds", [syntax.Str("Law", Span("t.civ", 1, 1))], {}, Span("t.civ", 1, 1)),
    syntax.Unknown(Span("t.civ", 1, 1)),
], ids=lambda e: type(e).__name__)
def test_a_set_value_reads_only_n_face_constants_and_math(target, bad):
    tree = _expr("*", syntax.Name(("n",), _span()), bad)
    with pytest.raises(CodegenError, match="set_value cannot use"):
        target({"k": 2}, {}, set()).compile(tree)


def test_a_set_value_in_both_languages():
    s = _span()
    tree = _expr("+", _expr("*", syntax.Name(("n",), s), syntax.Name(("face",), s)),
                 syntax.Call("max", [syntax.Name(("k",), s), syntax.Num(1, s)], {}, s))
    assert _SetValueCompiler({"k": 2}, {}, set()).compile(tree) == "((n * face) + _rt.max_(2, 1))"
    assert _SetValueJS({"k": 2}, {}, set()).compile(tree) == "add(mul(n, face), max_(2, 1))"
