"""Syntax highlighting: the Pygments lexer and the VS Code extension's TextMate grammar."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pygments = pytest.importorskip("pygments", reason="pygments is not installed: the lexer needs it")

from pygments.token import Comment, Error, Keyword, Name, Number, Operator, String  # noqa: E402

from civdsl import parser  # noqa: E402
from civdsl import vocabulary as vocab  # noqa: E402
from civdsl.highlight import CivdslLexer, textmate_grammar, textmate_json, word_lists  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = sorted((ROOT / "rulebooks").rglob("*.civ"))
VSCODE = ROOT / "editors" / "vscode"


def _tokens(text: str):
    return [(t, v) for t, v in CivdslLexer().get_tokens(text) if v.strip()]


@pytest.mark.parametrize("path", RULEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_error_tokens_in_shipped_rulebooks(path):
    text = path.read_text(encoding="utf-8")
    tokens = list(CivdslLexer().get_tokens(text))
    errors = [(t, v) for t, v in tokens if t in Error]
    assert not errors, errors[:5]
    assert "".join(v for _, v in tokens).rstrip("\n") == text.rstrip("\n")  # nothing lost


def test_keywords_strings_and_the_rest_are_classified():
    text = ('language 1\nedition x "X \\"quoted\\"" # a comment\n'
            'advance "Pottery" { cost 60 groups crafts }\n'
            'calamity "Famine" { primary { damage(10, area=coastal) } when holds("Pottery") and true { } }\n'
            'errata CIV040 "Salt" "why"\n')
    toks = _tokens(text)
    kinds = dict((v, t) for t, v in toks)
    assert kinds["language"] in Keyword and kinds["advance"] in Keyword and kinds["cost"] in Keyword
    assert kinds["primary"] in Keyword and kinds["when"] in Keyword
    assert kinds["true"] in Keyword.Constant and kinds["and"] in Operator.Word
    assert kinds["damage"] in Name.Builtin and kinds["holds"] in Name.Builtin
    assert kinds["crafts"] in Name and kinds["crafts"] not in Name.Builtin
    assert kinds["60"] in Number and kinds["CIV040"] in Name.Label
    assert kinds["# a comment"] in Comment
    assert kinds["Pottery"] in String and kinds['\\"'] in String.Escape
    assert [v for t, v in toks if t in String.Double and v != '"'] == ['X ', 'quoted', 'Pottery', 'Famine',
                                                                        'Pottery', 'Salt', 'why']


def test_every_keyword_of_the_grammar_is_a_keyword():
    for word in parser.keywords():
        [(token, value)] = _tokens(word)
        assert value == word and (token in Keyword or token in Operator.Word), (word, token)


def test_every_vocabulary_name_is_highlighted():
    keywords = set(parser.keywords())
    for word in list(vocab.EFFECT_KINDS) + list(vocab.ABILITY_KINDS) + list(vocab.FUNCTIONS):
        [(token, _)] = _tokens(word)
        assert token in (Keyword if word in keywords else Name.Builtin), word
    for word in list(vocab.FACTS) + list(vocab.DERIVED_NAMES):
        [(token, _)] = _tokens(word)
        assert token in Name.Variable or token in Keyword or token in Name.Builtin, word


def test_mistakes_are_error_tokens():
    assert any(t in Error for t, _ in CivdslLexer().get_tokens('note "unterminated\nnote "x"\n'))
    assert any(t in Error for t, _ in CivdslLexer().get_tokens('note "bad \\q escape"\n'))
    assert not any(t in Error for t, _ in CivdslLexer().get_tokens('note "\\u00e9 \\n \\\\"\n'))


def test_lexer_is_registered_by_name_when_installed():
    from pygments.lexers import find_lexer_class_for_filename, get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name("civdsl")
    except ClassNotFound:
        pytest.skip("the pygments.lexers entry point is not installed (pip install -e .)")
    assert isinstance(lexer, CivdslLexer)
    assert find_lexer_class_for_filename("megaciv.civ") is CivdslLexer


# --- the VS Code extension ------------------------------------------------------------------------


def test_textmate_grammar_is_current():
    path = VSCODE / "syntaxes" / "civdsl.tmLanguage.json"
    assert json.loads(path.read_text(encoding="utf-8")) == textmate_grammar(), \
        "regenerate: python -m civdsl.highlight --textmate editors/vscode/syntaxes/civdsl.tmLanguage.json"
    assert path.read_text(encoding="utf-8") == textmate_json()


def test_textmate_grammar_classifies_like_the_lexer():
    import re

    grammar = textmate_grammar()
    rules = [(p["name"], re.compile(p["match"])) for p in grammar["patterns"] if "match" in p]

    def scope(word: str) -> str:
        return next(name for name, rx in rules if rx.fullmatch(word))

    lists = word_lists()
    for word in lists["declaration"]:
        assert scope(word) == "storage.type.civdsl", word
    for word in lists["keyword"]:
        assert scope(word) == "keyword.other.civdsl", word
    for word in lists["builtin"]:
        assert scope(word) == "support.function.civdsl", word
    assert scope("CIV010") == "constant.other.diagnostic-code.civdsl"
    assert scope("true") == "constant.language.civdsl"


def test_vscode_manifest():
    manifest = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    [language] = manifest["contributes"]["languages"]
    assert language["id"] == "civdsl" and ".civ" in language["extensions"]
    [grammar] = manifest["contributes"]["grammars"]
    assert grammar["scopeName"] == textmate_grammar()["scopeName"]
    assert (VSCODE / grammar["path"]).is_file()
    assert (VSCODE / language["configuration"]).is_file()
    assert (VSCODE / manifest["main"]).is_file()
    assert "vscode-languageclient" in manifest["dependencies"]
    assert "onLanguage:civdsl" in manifest.get("activationEvents", ["onLanguage:civdsl"])
    config = json.loads((VSCODE / "language-configuration.json").read_text(encoding="utf-8"))
    assert config["comments"]["lineComment"] == "#"
    main = (VSCODE / manifest["main"]).read_text(encoding="utf-8")
    assert "vscode-languageclient/node" in main and '"lsp"' in main


def test_vscode_client_is_valid_javascript():
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: cannot syntax-check extension.js")
    subprocess.run([node, "--check", str(VSCODE / "extension.js")], check=True)
