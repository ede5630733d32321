"""Every statement type of the round-rules language has a checker, a code generator and a
renderer (the printed reference): a new statement without one fails here, not in a user's game."""

from __future__ import annotations

import dataclasses

import pytest

from civdsl.rounds import syntax
from civdsl.rounds.checks import RoundChecker
from civdsl.rounds.codegen import _Block
from civdsl.rounds.reference import _Statements

STAGES = {"checker": RoundChecker, "code generator": _Block, "renderer": _Statements}


def _node_types() -> list[type]:
    found = []
    stack = [syntax.RoundStmt]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            found.append(sub)
            stack.append(sub)
    return found


def test_the_node_list_names_every_statement_type():
    assert set(_node_types()) == set(syntax.STATEMENT_TYPES)
    assert all(dataclasses.is_dataclass(t) and t.keyword for t in syntax.STATEMENT_TYPES)


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("node", syntax.STATEMENT_TYPES, ids=lambda t: t.__name__)
def test_every_statement_type_has_a_visitor_in_every_stage(stage, node):
    assert callable(getattr(STAGES[stage], f"visit_{node.__name__}", None)), \
        f"the round {stage} has no visit_{node.__name__}"


def test_every_grammar_statement_becomes_a_typed_node():
    """Each `ps_*` alternative of the grammar has a transformer callback that builds a node."""
    import re

    from civdsl.resources import grammar_text

    alternatives = set(re.findall(r"-> (ps_\w+)", grammar_text())) | {"ps_if"}
    missing = [a for a in alternatives if not hasattr(syntax.RoundsToSyntax, a)]
    assert not missing
    keywords = {t.keyword for t in syntax.STATEMENT_TYPES}
    assert {a[3:] for a in alternatives} <= keywords


def test_a_missing_visitor_is_an_error_not_a_silent_skip():
    class Partial(syntax.StatementVisitor):
        pass

    with pytest.raises(AttributeError, match="visit_ShuffleStmt"):
        Partial().visit(syntax.ShuffleStmt(span=None))
