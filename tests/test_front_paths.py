"""The front end's fast paths answer exactly as the plain ones they stand for.

The syntax pass's walk of the parse tree does two jobs of its own: it derives every node's
position from its tokens (the parser runs without Lark's propagate_positions), exactly what Lark
would have recorded, and it measures the nesting depth parser.parse would otherwise check in a
walk of its own, with the same answer. The bracket limit is checked by string operations first."""

from __future__ import annotations

from pathlib import Path

import random

import lark
import pytest

from civdsl import loader, parser, syntax
from civdsl.diagnostics import Diagnostics
from civdsl.resources import grammar_text, shipped_house_rules, shipped_rulebooks

TESTS = Path(__file__).parent


def _inputs() -> list[Path]:
    """Every rulebook the project ships or tests with: shipped, house rules, UI cases, hostile files."""
    found = list(shipped_rulebooks().values()) + shipped_house_rules()
    for folder in ("ui", "hostile", "fixtures"):
        found += sorted((TESTS / folder).rglob("*.civ"))
    return found


@pytest.fixture(scope="module")
def positioned() -> lark.Lark:
    """The grammar with Lark's own positions (the options the benchmark's bare parse uses)."""
    return lark.Lark(grammar_text(), **parser.LARK_OPTIONS)


def _edges(tree: lark.Tree) -> dict[int, tuple]:
    """{id(node): (first token, last token) or (None, None)} for every node, children first."""
    edges: dict[int, tuple] = {}
    for node in tree.iter_subtrees():  # every child before its parent, without recursion
        first = last = None
        for c in node.children:
            start, end = edges[id(c)] if isinstance(c, lark.Tree) else (c, c)
            if start is not None:
                first, last = first or start, end
        edges[id(node)] = (first, last)
    return edges


def _parsed(_parser: lark.Lark, path: Path) -> lark.Tree | None:
    try:
        return _parser.parse(parser.normalise(path.read_bytes().decode("utf-8")))
    except (UnicodeDecodeError, lark.exceptions.LarkError, RecursionError):
        return None


def test_the_civdsl_parser_records_no_positions_itself():
    assert parser.lark_parser().options.propagate_positions is False
    assert parser.LARK_OPTIONS["propagate_positions"] is True  # the grammar's defining options keep them


def test_lark_places_every_node_from_its_first_token_to_its_last(positioned):
    """What _ToSyntax._transform_node relies on: for this grammar, Lark's propagated position of a
    node is its first token's start and its last token's end (no terminal is filtered out, and a
    rule inlined with `?` has a single child); a node without tokens has no position."""
    nodes = 0
    for path in _inputs():
        tree = _parsed(positioned, path)
        if tree is None:
            continue
        edges = _edges(tree)
        for node in tree.iter_subtrees():
            first, last = edges[id(node)]
            if first is None:
                assert node.meta.empty, (path, node.data)
                continue
            meta = node.meta
            assert (meta.line, meta.column, meta.start_pos) == (first.line, first.column, first.start_pos), (path, node.data)
            assert (meta.end_line, meta.end_column, meta.end_pos) == (last.end_line, last.end_column, last.end_pos), \
                (path, node.data)
            nodes += 1
    assert nodes > 20_000  # every shipped rulebook was looked at


def _syntax(tree: lark.Tree, display: str) -> tuple:
    diags = Diagnostics()
    return syntax.to_syntax(tree, display, diags), diags.items


def test_the_syntax_tree_of_a_tree_without_positions_equals_the_one_lark_placed(positioned):
    """The spans of every syntax node, and the diagnostics, whether Lark placed the nodes or not."""
    for path in list(shipped_rulebooks().values()) + shipped_house_rules() + sorted((TESTS / "ui").glob("*.civ")):
        bare, placed = _parsed(parser.lark_parser(), path), _parsed(positioned, path)
        if placed is None:
            continue
        assert _syntax(bare, str(path)) == _syntax(placed, str(path)), path


def test_rules_lark_dispatches_itself_get_the_same_positions(monkeypatch):
    """A rule without a function of its own in `_rule_functions` goes through Lark's dispatch, which
    reads the node's meta: the derived position is written there first."""
    path = shipped_rulebooks()["megaciv"]
    expected = _syntax(_parsed(parser.lark_parser(), path), "m")
    monkeypatch.setattr(syntax.transformer_class(), "_rule_functions", {})
    assert _syntax(_parsed(parser.lark_parser(), path), "m") == expected


def test_spans_run_from_the_first_token_to_the_last():
    text = 'language 1\nedition x "X"\nconst a = (1 + b) * 2\nconst c = 1 +\n  2\n'
    diags = Diagnostics()
    ast = syntax.to_syntax(parser.parse(text, "f.civ", diags), "f.civ", diags)
    one_line, two_lines = ast.items
    assert (one_line.span.line, one_line.span.column, one_line.span.end_column) == (3, 1, 22)
    product = one_line.value[0]
    assert (product.span.column, product.span.end_column) == (11, 22)
    assert (product.left.span.column, product.left.span.end_column) == (12, 17)  # `( expr )` is the expr
    assert (product.left.left.span.column, product.left.left.span.end_column) == (12, 13)
    assert (two_lines.span.line, two_lines.span.column, two_lines.span.end_column) == (4, 1, None)  # ends on line 5
    assert (ast.edition_span.line, ast.edition_span.column) == (2, 9)


def test_too_deep_is_reported_at_the_first_token_of_the_node():
    text = "language 1\nedition x \"X\"\nconst a = 1\nassert " + " and ".join(["a"] * 120) + ' "deep"\n'
    diags = Diagnostics()
    assert parser.parse(text, "f.civ", diags) is None
    (found,) = diags.items
    assert found.code == "CIV005" and (found.span.line, found.span.column) == (4, 8)


def _chained(depth: int) -> str:
    """A file whose assert nests exactly `depth` levels (a chain of N `and`s is N levels, and
    the statement itself one more), with a bad escape (CIV009) before it and after it."""
    chain = " and ".join(["a"] * depth)  # depth - 1 operators: depth - 1 levels, +1 for the assert
    return (f'language 1\nedition x "X"\nconst a = true\nconst s = "\\q"\n'
            f'assert {chain} "deep"\nconst t = "\\q"\n')


@pytest.mark.parametrize("depth", [parser.MAX_DEPTH - 1, parser.MAX_DEPTH, parser.MAX_DEPTH + 1, 3 * parser.MAX_DEPTH])
def test_the_syntax_pass_measures_depth_as_the_parser_would(depth):
    """loader.parse_text leaves the depth to the syntax pass: the same diagnostics as parser.parse
    checking it first (and none of the syntax pass's when the file is too deep)."""
    text = _chained(depth)
    fused = Diagnostics()
    ast = loader.parse_text(text, "f.civ", fused)
    walked = Diagnostics()
    tree = parser.parse(text, "f.civ", walked)
    if tree is not None:
        syntax.to_syntax(tree, "f.civ", walked)
    assert fused.items == walked.items
    assert (ast is None) == (tree is None)
    codes = [d.code for d in fused.items]
    assert codes == (["CIV005"] if tree is None else ["CIV009", "CIV009"])


def test_a_tree_taller_than_the_limit_is_refused_before_the_stack_runs_out():
    text = 'language 1\nedition x "X"\nconst a = ' + "not\n" * 5000 + "true\n"
    diags = Diagnostics()
    assert loader.parse_text(text, "f.civ", diags) is None
    (found,) = diags.items
    assert found.code == "CIV005" and "levels deep" in found.message
    walked = Diagnostics()
    assert parser.parse(text, "f.civ", walked) is None
    assert walked.items == diags.items


def _nested_by_loop(text: str) -> int | None:
    """The first bracket nested past MAX_NESTING, by the plain scan (parser._BRACKET_SCAN)."""
    depth = 0
    for m in parser._BRACKET_SCAN.finditer(text):
        if m.group() in "({":
            depth += 1
            if depth > parser.MAX_NESTING:
                return m.start()
        elif m.group() in ")}":
            depth = max(0, depth - 1)
    return None


def test_the_bracket_check_answers_as_the_plain_scan():
    """Brackets, some in strings (closed or not, with escapes) and comments, nested near the limit,
    with unmatched closers and openers: the same first offset, or none."""
    rng = random.Random(15)
    pieces = ["(", ")", "{", "}", "x", "\n", '"(("', '"a\\"(', '"\\"))"', '"unclosed ((', "# ((( {{\n", " "]
    weights = [30, 24, 10, 8, 10, 3, 2, 1, 1, 1, 2, 8]
    found = 0
    for _ in range(3000):
        opened = rng.choice("({") * rng.randrange(40, 70)  # near the limit, the rest decides
        text = "".join(rng.choices(pieces, weights, k=rng.randrange(50, 400)))
        at = rng.randrange(len(text))
        text = text[:at] + opened + text[at:]
        expected = _nested_by_loop(text)
        assert parser._first_too_nested(text, len(text)) == expected, text
        found += expected is not None
    assert 300 < found < 2700  # both answers were met often


@pytest.mark.parametrize("depth", [0, 1, parser._MOST_ROUNDS, parser._MOST_ROUNDS + 1, parser.MAX_NESTING, parser.MAX_NESTING + 1])
def test_plain_nesting_past_the_rounds_is_left_to_the_loop(depth):
    text = "(" * depth + ")" * depth
    assert parser._shallow(text) == (depth <= parser._MOST_ROUNDS)
    assert parser._first_too_nested(text, len(text)) == (parser.MAX_NESTING if depth > parser.MAX_NESTING else None)


def test_hostile_bracket_files_get_the_loop_s_answer():
    for text in ("(" * 5000 + ")" * 5000, "(()" * 3000, "()" * 50000, "(" * 64 + "x" + ")" * 64 + "()" * 9000):
        assert parser._first_too_nested(text, len(text)) == _nested_by_loop(text)


def test_shipped_rulebooks_take_the_string_path():
    for path in list(shipped_rulebooks().values()) + shipped_house_rules():
        assert parser._shallow(parser.normalise(path.read_text(encoding="utf-8"))), path
