"""The pipeline's parse by lark-cython (parser.fast_parse) against Lark's own: the same tree for
every file the project ships or tests with, the same report for every file either rejects, and
the same checked output with the accelerator and without it (the package is an optional extra,
so both paths are what some user runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from civdsl import parser
from civdsl.diagnostics import Diagnostics
from civdsl.frontend import check_file
from civdsl.resources import shipped_house_rules, shipped_rulebooks

pytest.importorskip("lark_cython")

TESTS = Path(__file__).parent
SHIPPED = list(shipped_rulebooks().values()) + shipped_house_rules()
CORPUS = sorted([*SHIPPED, *(TESTS / "hostile").glob("*.civ"), *(TESTS / "ui").glob("*.civ")])


@pytest.fixture
def pure_lark(monkeypatch):
    """The pipeline as it runs where lark-cython is not installed."""
    monkeypatch.setattr(parser, "accelerator_plugins", lambda: None)
    parser._fast_parser_of.cache_clear()
    yield
    parser._fast_parser_of.cache_clear()


def _is_token(value) -> bool:
    return isinstance(value, parser.TOKEN_TYPES)


def _shape(tree) -> list:
    """Each node's rule and its children's kinds, top down (iteratively: some of the hostile
    files nest deeper than Python's recursion limit, which Tree.__eq__ would need)."""
    return [(t.data, [c.data if hasattr(c, "data") else (c is None) for c in t.children])
            for t in tree.iter_subtrees_topdown()]


def _tokens(tree) -> list:
    """Each token's type, text and position, node by node top down."""
    return [(c.type, c.value, c.line, c.column, c.end_line, c.end_column)
            for t in tree.iter_subtrees_topdown() for c in t.children if _is_token(c)]


def _text(path: Path) -> str | None:
    try:
        return parser.normalise(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def _outcome(parse, text: str):
    try:
        return "tree", parse(text)
    except Exception as exc:  # what each parser makes of a file it rejects is compared by the report below
        return "error", type(exc).__name__


def test_the_accelerator_is_in_use_where_installed():
    fast = parser._fast_parser_of(parser.grammar_text())
    assert fast is not None and type(fast.parser.parser).__module__.startswith("lark_cython")
    tree = parser.fast_parse(_text(SHIPPED[0]))
    first = next(tree.scan_values(_is_token))  # a shipped rulebook is shallow: scan_values recurses
    assert isinstance(first, parser.TOKEN_TYPES) and not isinstance(first, str)


def _tree_differs(path: Path) -> str | None:
    """How lark-cython's outcome for the file differs from Lark's (None: the same)."""
    text = _text(path)
    if text is None:
        return None  # not UTF-8 text: rejected before any parse
    fast = _outcome(parser.fast_parse, text)
    plain = _outcome(parser.lark_parser().parse, text)
    if fast[0] == "tree" or plain[0] == "tree":
        if (fast[0], _shape(fast[1])) != (plain[0], _shape(plain[1])):
            return "the trees differ"
        if _tokens(fast[1]) != _tokens(plain[1]):
            return "the tokens differ"
        return None
    return None if fast == plain else f"rejected differently: {fast[1]} against {plain[1]}"


def test_the_same_tree_as_lark_for_every_file():
    # one test over the corpus (each case a parse or two): its failure names every file that differs
    differs = {p.name: why for p in CORPUS if (why := _tree_differs(p)) is not None}
    assert not differs
    assert len(CORPUS) > 150  # the shipped rulebooks, the hostile corpus and the UI cases


def test_the_same_report_with_and_without_the_accelerator(monkeypatch):
    def reports() -> dict:
        out = {}
        for path in CORPUS:
            text = _text(path)
            if path.parent.name == "ui" and text is not None:
                diags = Diagnostics()
                parser.parse(text, str(path), diags)
                out[path.name] = diags.render()
        return out

    with_it = reports()
    monkeypatch.setattr(parser, "accelerator_plugins", lambda: None)
    parser._fast_parser_of.cache_clear()
    try:
        without = reports()
    finally:
        parser._fast_parser_of.cache_clear()
    assert {k for k in with_it if with_it[k] != without[k]} == set()
    assert any("error[CIV001]" in r for r in with_it.values())  # syntax errors among them


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_a_checked_rulebook_is_the_same_without_the_accelerator(path, request):
    from civdsl import frontend
    from civdsl.codegen import generate

    def compiled():
        frontend.forget()
        checked = check_file(path)
        assert checked.ok, checked.diagnostics.render()
        return generate(checked.edition, {f.display: f.text for f in checked.chain})

    with_it = compiled()
    request.getfixturevalue("pure_lark")
    without = compiled()
    assert parser._fast_parser_of(parser.grammar_text()) is None
    assert without == with_it
