"""Constants and tables the engine reads by name (vocabulary.ENGINE_NAMES): declared once, checked
like facts (CIV133 near misses, CIV134 wrong kind or type), listed by `civdsl vocab` and in
docs/language.md from the one table, and both `token_points` and `city_points` count where unit
points are derived."""

from pathlib import Path

import pytest

import civdsl
from civdsl import vocabulary as vocab
from civdsl.frontend import check_file
from conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "fixtures" / "semantics.civ"
HEAD = 'language 1\nedition t "T"\ngroup crafts "Crafts"\ncredit policy best_group\n'


def _codes(tmp_path, body: str) -> list[tuple[str, str, int]]:
    path = tmp_path / "t.civ"
    path.write_text(HEAD + body, encoding="utf-8")
    return [(d.level, d.code, d.span.line) for d in check_file(path).diagnostics.items]


def test_token_points_and_city_points_both_count_in_derived_unit_points(tmp_path):
    path = tmp_path / "u.civ"
    path.write_text(FIXTURE.read_text(encoding="utf-8").replace(
        "const city_points = 5\n", "const city_points = 4\nconst token_points = 2\n"), encoding="utf-8")
    state = civdsl.load(path).state([], {"tokens": 3, "cities": 2})
    assert state.fact("unit_points") == 3 * 2 + 2 * 4
    assert state.holding("unit_points") == 3 * 2 + 2 * 4
    # absent constants take the table's defaults (a token 1, a city 5)
    path.write_text(FIXTURE.read_text(encoding="utf-8").replace("const city_points = 5\n", ""), encoding="utf-8")
    state = civdsl.load(path).state([], {"tokens": 3, "cities": 2})
    assert state.fact("unit_points") == 3 * vocab.ENGINE_NAMES["token_points"].default + 2 * vocab.ENGINE_NAMES["city_points"].default == 13


def test_a_near_miss_is_a_warning_and_the_rest_is_still_checked(tmp_path):
    codes = _codes(tmp_path, 'const card_limt = 3\nconst hand_limits = 6\nconst epidemic_city_points = 4\n'
                             'advance "Pottery" { cost 45 groups craft }\n')
    assert ("warning", "CIV133", 5) in codes and ("warning", "CIV133", 6) in codes
    assert not any(line == 7 for _, _, line in codes)  # a rulebook's own name that only ends alike
    assert ("error", "CIV012", 8) in codes


@pytest.mark.parametrize("body", ["table token_points { 1..: 1 }", "const hand_limit_by_players = 6",
                                  "const city_points = cities"])
def test_a_wrong_kind_or_a_value_known_only_at_play_is_an_error(tmp_path, body):
    codes = _codes(tmp_path, body + "\n")
    assert any(level == "error" and code == "CIV134" for level, code, _ in codes), codes


@pytest.mark.parametrize("body", ["const card_limit = 0", "const city_points = 5 / 2", "const hand_limit = true",
                                  "table hand_limit_by_players { 1..: 6 / 4 }"])
def test_a_value_of_the_wrong_type_is_a_warning(tmp_path, body):
    codes = _codes(tmp_path, body + "\n")
    assert [(level, code) for level, code, _ in codes] == [("warning", "CIV134")], codes


def test_right_declarations_and_shipped_rulebooks_are_clean(tmp_path):
    body = ("const card_limit = 11\nconst hand_limit = 6\nconst token_points = 1\nconst city_points = 5\n"
            "table hand_limit_by_players { 2..3: 8, 4..: 6 }\n")
    assert not [c for c in _codes(tmp_path, body) if c[1] in ("CIV133", "CIV134")]
    for path in sorted((ROOT / "rulebooks").glob("*.civ")):
        items = check_file(path).diagnostics.items
        assert not [d for d in items if d.code in ("CIV133", "CIV134")], path


def test_vocab_and_the_language_reference_list_the_table():
    out = run_cli("vocab").output
    for e in vocab.ENGINE_NAMES.values():
        assert f"{e.declared_as} {e.name} (" in out
    data = run_cli("vocab", "--json").output
    assert '"token_points"' in data
    docs = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    assert vocab.engine_names_markdown() in docs
