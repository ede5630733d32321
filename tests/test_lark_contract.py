"""The private parts of Lark that civdsl relies on, pinned to the tested range in pyproject.toml
(`lark>=1.3.1,<1.4`). Each is checked for existence and signature (or, for attributes, by using
it the way civdsl does), so a Lark release that changes one fails here, naming the civdsl code
that uses it, instead of silently slowing or breaking the parse, the formatter or the editor.
`test_every_private_lark_name_civdsl_uses_is_pinned_here` reads civdsl/ (the language server
included) and fails when code starts relying on a private Lark name this file does not check."""

from __future__ import annotations

import ast
import inspect
import io
from pathlib import Path

import lark
import lark.common
import lark.exceptions
import lark.grammar
import lark.lexer
import lark.visitors
import pytest
from lark.parsers.lalr_interactive_parser import InteractiveParser
from lark.parsers.lalr_parser_state import ParserState

from civdsl import parser, syntax

# (Lark object, the signature civdsl calls it with, the civdsl places that use it)
PRIVATE_CALLABLES = [
    (lambda: lark.Transformer._transform_tree, "(self, tree)",
     "syntax._ToSyntax._transform_tree overrides it (Transformer.transform must call it)"),
    (lambda: lark.Transformer._call_userfunc, "(self, tree, new_children=None)",
     "syntax._ToSyntax._transform_node calls it for rules without a fast-path function"),
    (lambda: lark.Lark._load, "(self, f, **kwargs)",
     "parser.build_lark loads the analysed grammar kept in the cache"),
    (lambda: lark.visitors._vargs_meta, "(f, _data, children, meta)",
     "syntax_dispatch._rule_functions recognises v_args(meta=True) callbacks"),
    (lambda: lark.visitors._VArgsWrapper.__init__, "(self, func, visit_wrapper)",
     "syntax_dispatch._rule_functions reads base_func and visit_wrapper"),
    (lambda: lark.lexer.LexerThread.from_text, "(lexer, text_or_slice)",
     "lsp.tokens.lex_line lexes one line"),
    (lambda: lark.lexer.LexerThread.lex, "(self, parser_state)",
     "lsp.tokens.lex_line lexes one line"),
    (lambda: lark.lexer.BasicLexer.__init__, "(self, conf, comparator=None)",
     "lsp.tokens.lexer builds the editor's line lexer from the parser's lexer_conf"),
    (lambda: lark.exceptions.VisitError.__init__, "(self, rule, obj, orig_exc)",
     "syntax._ToSyntax._transform_node wraps a callback's error as Lark would"),
]


# Lark's classes whose private members civdsl could reach: through an instance, a subclass's
# override, or `super()`.
LARK_CLASSES = [lark.Lark, lark.Transformer, lark.Tree, lark.Token, lark.lexer.Lexer, lark.lexer.BasicLexer,
                lark.lexer.LexerThread, lark.common.LexerConf, InteractiveParser, ParserState]
PACKAGE = Path(__file__).resolve().parent.parent / "civdsl"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _pinned_names() -> set[str]:
    """The private names the signature checks above cover (`_VArgsWrapper.__init__` pins the class)."""
    names = set()
    for get, _, _ in PRIVATE_CALLABLES:
        qualified = get().__qualname__ if hasattr(get(), "__qualname__") else ""
        names |= {part for part in qualified.split(".") if _private(part)}
    return names


def _lark_private_members() -> set[str]:
    return {n for cls in LARK_CLASSES for n in dir(cls) if _private(n)}


def private_lark_uses(package: Path = PACKAGE) -> dict[str, list[str]]:
    """{private Lark name: where civdsl uses it} for every module that imports Lark: names imported
    from a Lark module, members of Lark's classes read on any object or overridden in a subclass."""
    members = _lark_private_members()
    found: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if not _imports_lark(tree):
            continue
        where = str(path.relative_to(package.parent))
        for node in ast.walk(tree):
            for name in _private_names(node, members):
                found.setdefault(name, []).append(f"{where}:{node.lineno}")
    return found


def _imports_lark(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lark"):
            return True
        if isinstance(node, ast.Import) and any(a.name.startswith("lark") for a in node.names):
            return True
    return False


# Lark's modules that are its machinery rather than its API.
_INTERNAL_MODULES = ("lark.parsers", "lark.parser_frontends", "lark.load_grammar")


def _private_names(node: ast.AST, members: set[str]) -> list[str]:
    """The private Lark names one node uses: imported, read as an attribute, or overridden."""
    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lark"):
        internal = [node.module] if node.module.startswith(_INTERNAL_MODULES) else []
        return [a.name for a in node.names if _private(a.name)] + internal
    if isinstance(node, ast.Attribute) and node.attr in members:
        return [node.attr]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in members:
        return [node.name]  # a method of a Transformer subclass overriding Lark's own
    return []


def _plain(sig: inspect.Signature) -> str:
    """The signature's parameter names, kinds and defaults, without annotations."""
    return str(sig.replace(parameters=[p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()],
                           return_annotation=inspect.Signature.empty))


def test_installed_lark_is_in_the_pinned_range():
    major, minor, patch = (int(x) for x in lark.__version__.split(".")[:3])
    assert (1, 3, 1) <= (major, minor, patch) < (1, 4, 0), lark.__version__


@pytest.mark.parametrize("get, expected, users", PRIVATE_CALLABLES, ids=[u.split()[0] for _, _, u in PRIVATE_CALLABLES])
def test_private_lark_callable_keeps_its_signature(get, expected, users):
    try:
        target = get()
    except AttributeError as exc:
        pytest.fail(f"Lark {lark.__version__} no longer has it ({exc}); used by {users}")
    assert _plain(inspect.signature(target)) == expected, f"signature changed; used by {users}"


def test_plain_signature_drops_annotations_only():
    def f(a: int, *, b: str = "x") -> int: ...
    assert _plain(inspect.signature(f)) == "(a, *, b='x')"


def test_transform_goes_through_transform_tree():
    # syntax._ToSyntax relies on Transformer.transform calling the overridable _transform_tree
    seen = []

    class Probe(lark.Transformer):
        def _transform_tree(self, tree):
            seen.append(tree.data)
            return "done"

    assert Probe().transform(lark.Tree("x", [])) == "done" and seen == ["x"]


def test_syntax_fast_path_recognises_every_v_args_callback():
    # empty when this Lark keeps v_args differently (the parse still works, a fifth slower)
    functions = syntax.transformer_class()._rule_functions
    assert functions
    assert any(with_meta for _, with_meta in functions.values())
    assert any(not with_meta for _, with_meta in functions.values())


def test_parser_attributes_the_editor_and_item_recovery_read():
    built = parser.lark_parser()
    # lsp.tokens.lexer: the parser's lexer configuration
    assert isinstance(built.lexer_conf, lark.common.LexerConf)
    tokens = list(lark.lexer.LexerThread.from_text(lark.lexer.BasicLexer(built.lexer_conf), "edition x").lex(None))
    assert [t.value for t in tokens] == ["edition", "x"]
    # parser._value_stack: what an interactive parser has shifted so far
    interactive = built.parse_interactive('language 1\nedition x "X"\n')
    interactive.exhaust_lexer()
    stack = interactive.parser_state.value_stack
    assert isinstance(stack, list) and stack
    assert parser._value_stack(interactive) is stack


def test_the_cached_grammar_loads_through_lark_load():
    # parser.build_lark falls back to analysing the grammar afresh when loading fails, so the
    # load is done here directly: a failure would otherwise only show as a slow start
    parser.build_lark(propagate_positions=False)
    kept = parser.cache.read(parser.grammar_cache_name(propagate_positions=False))
    if kept is None:
        pytest.skip("no cache folder to keep the analysed grammar in")
    options = {k: v for k, v in {**parser.LARK_OPTIONS, "propagate_positions": False}.items()
               if k in parser._LOAD_OPTIONS}
    loaded = lark.Lark.__new__(lark.Lark)._load(io.BytesIO(kept), **options)
    assert isinstance(loaded, lark.Lark)
    assert loaded.parse('language 1\nedition x "X"\n').data == "start"


def test_grammar_tables_the_keyword_and_statement_edge_readers_use():
    # parser.keywords, keyword_terminals, statement_edges read the analysed grammar's tables
    built = parser.lark_parser()
    terminal = next(t for t in built.terminals if t.pattern.type == "str")
    assert isinstance(terminal, lark.lexer.TerminalDef) and isinstance(terminal.pattern.value, str)
    rule = next(r for r in built.rules if str(r.origin.name) == "item")
    assert isinstance(rule, lark.grammar.Rule)
    assert all(isinstance(s.is_term, bool) and s.name for s in rule.expansion)
    starts, ends = parser.statement_edges()
    assert starts and ends


def test_every_private_lark_name_civdsl_uses_is_pinned_here():
    unpinned = {name: where for name, where in private_lark_uses().items() if name not in _pinned_names()}
    assert not unpinned, ("civdsl relies on private Lark names no test here checks: add each to PRIVATE_CALLABLES "
                          f"(or use Lark's public API): {unpinned}")


def test_the_private_use_scanner_finds_imports_overrides_and_reads(tmp_path):
    (tmp_path / "m.py").write_text(
        "import lark\nfrom lark.visitors import _vargs_meta\n"
        "class T(lark.Transformer):\n    def _transform_tree(self, tree):\n"
        "        return super()._call_userfunc(tree)\n"
        "x = lark.Lark.__new__(lark.Lark)._load(None)\n", encoding="utf-8")
    (tmp_path / "other.py").write_text("def f(x):\n    return x._load()\n", encoding="utf-8")  # imports no Lark
    found = private_lark_uses(tmp_path)
    assert set(found) == {"_vargs_meta", "_transform_tree", "_call_userfunc", "_load"}
    assert found["_load"] == [f"{tmp_path.name}/m.py:6"]


def test_every_pinned_private_name_is_still_used():
    # a pin nothing uses any more is a range kept narrow for nothing
    assert _pinned_names() <= set(private_lark_uses()), _pinned_names() - set(private_lark_uses())


def test_the_options_a_cached_grammar_loads_with_are_lark_s_own():
    # parser._LOAD_OPTIONS restates Lark's private list of the options `Lark._load` takes (the rest
    # shape the analysed grammar and so key its cache): a Lark that takes another must fail here
    assert parser._LOAD_OPTIONS == lark.lark._LOAD_ALLOWED_OPTIONS
