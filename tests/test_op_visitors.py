"""Every modifier operation type (`add`, `immune`, `option`, ...) is its own node, and every stage
that handles operations has a `visit_<Node>` for each: a new operation without a code generator,
a checker, a renderer or a chart direction fails here, not in a user's rulebook."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from civdsl import syntax
from civdsl.charts.derive import _Direction
from civdsl.codegen import _RoleBody
from civdsl.companion.jsgen import _JSRoleBody
from civdsl.describe import _OpText
from civdsl.validator import _Validator

STAGES = {"code generator": _RoleBody, "JavaScript code generator": _JSRoleBody, "checker": _Validator,
          "renderer": _OpText, "chart direction": _Direction}


def test_the_node_list_names_every_operation_type():
    assert set(syntax.Op.__subclasses__()) == set(syntax.OP_TYPES)


def test_every_operation_word_of_the_grammar_becomes_a_typed_node():
    import re

    from civdsl.resources import grammar_text

    words = set(re.findall(r"-> op_(\w+)", grammar_text()))
    assert words == {"add", "prevent", "set", "cap", "immune", "cancel", "option", "stop"}
    for word in words:
        assert callable(getattr(syntax._ToSyntax, f"op_{word}", None)), word


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("node", syntax.OP_TYPES, ids=lambda t: t.__name__)
def test_every_operation_type_has_a_visitor_in_every_stage(stage, node):
    assert callable(getattr(STAGES[stage], f"visit_{node.__name__}", None)), \
        f"the {stage} has no visit_{node.__name__}"


@pytest.mark.parametrize("generator", (_RoleBody, _JSRoleBody), ids=lambda t: t.__name__)
def test_the_code_generators_visit_both_kinds_of_effect_node(generator):
    from civdsl.model import Effect, EffectBranch

    for node in (Effect, EffectBranch):
        assert callable(getattr(generator, f"visit_{node.__name__}", None))


def test_both_code_generators_share_one_walk_and_write_each_operation_themselves():
    """Python and JavaScript differ only in how a statement is written: the walk (which effects,
    modifiers and operations, in which order) is one class, and each target writes every operation
    that emits code itself, so a new operation type cannot fall back to the other language's text."""
    from civdsl.rulewalk import RoleWalk

    assert issubclass(_RoleBody, RoleWalk) and issubclass(_JSRoleBody, RoleWalk)
    for node in syntax.OP_TYPES:
        name = f"visit_{node.__name__}"
        if name in vars(RoleWalk):
            continue  # immunity only records a flag each target writes in its own words
        assert name in vars(_RoleBody) and name in vars(_JSRoleBody), name


def test_a_missing_visitor_is_an_error_not_a_silent_skip():
    class Partial(syntax.NodeVisitor):
        pass

    node = syntax.ImmuneOp("immune", None, None, None, None, None, False, None)
    with pytest.raises(AttributeError, match="visit_ImmuneOp"):
        Partial().visit(node)


def test_the_parser_builds_the_typed_nodes():
    from civdsl.frontend import check_file

    ed = check_file(Path(__file__).parent.parent / "rulebooks" / "civ1980.civ").edition
    types = {type(o) for cal in ed.calamities.values() for m in cal.modifiers for o in m.ops}
    assert syntax.ChangeOp in types and types <= set(syntax.OP_TYPES)


def test_every_derived_name_has_its_computation():
    """A name added to vocabulary.DERIVED_NAMES without its computation in playerfacts.derived
    fails here; a name that is not one is refused, never answered."""
    import civdsl
    from civdsl import playerfacts, vocabulary

    state = civdsl.load("megaciv").state(("Pottery",), {"cities": 2, "commodities": {}})
    missing = []
    for name in vocabulary.DERIVED_NAMES:
        try:
            playerfacts.derived(state, name)
        except playerfacts.UnknownDerived:
            missing.append(name)
    assert not missing
    with pytest.raises(playerfacts.UnknownDerived):
        playerfacts.derived(state, "treasury")


@pytest.mark.parametrize("node", typing.get_args(syntax.Expr), ids=lambda t: t.__name__)
def test_every_expression_node_has_a_compiler_and_a_text(node):
    """A new expression node without its Python compilation or its canonical text fails here."""
    from civdsl.expressions import _UNPARSE, PythonCompiler

    assert callable(getattr(PythonCompiler, f"visit_{node.__name__}", None))
    assert node in _UNPARSE


def test_every_model_collection_has_its_view():
    """An author invariant can read each collection vocabulary.MODEL_COLLECTIONS names."""
    from civdsl import vocabulary
    from civdsl.invariants import ModelEvaluator

    assert all(callable(getattr(ModelEvaluator, f"_collection_{n}", None)) for n in vocabulary.MODEL_COLLECTIONS)
