"""`civdsl fmt`: canonical layout, idempotent, comment-preserving, never changes meaning."""

from __future__ import annotations

from pathlib import Path

import pytest

from civdsl.frontend import check_file
from civdsl.fmt import FormatError, _parse, format_text
from civdsl.resources import shipped_house_rules, shipped_rulebooks
from civdsl.serialize import to_data
from conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(shipped_rulebooks().values()) + shipped_house_rules()
FIXTURES = sorted((ROOT / "tests" / "fixtures").glob("*.civ"))


def _meaning(data):
    """The resolved model without positions: what the rulebook means, not where it says it."""
    if isinstance(data, dict):
        return {k: _meaning(v) for k, v in data.items() if k not in ("line", "path", "files")}
    if isinstance(data, list):
        return [_meaning(x) for x in data]
    return data


def _comments(text: str) -> list[str]:
    return [c.value.rstrip() for c in _parse(text)[1]]


def _model(path: Path) -> dict:
    checked = check_file(path)
    assert checked.ok, checked.diagnostics.render()
    return _meaning(to_data(checked.edition))


@pytest.mark.parametrize("path", SHIPPED + FIXTURES, ids=lambda p: p.name)
def test_fmt_is_idempotent_and_keeps_comments(path):
    text = path.read_text(encoding="utf-8")
    once = format_text(text, str(path))
    assert format_text(once, str(path)) == once
    assert _comments(once) == _comments(text)
    assert once.endswith("\n") and not once.endswith("\n\n")
    assert all(line == line.rstrip() for line in once.split("\n"))


@pytest.mark.parametrize("path", SHIPPED + FIXTURES, ids=lambda p: p.name)
def test_fmt_never_changes_meaning(path, tmp_path):
    """The resolved model (serialize.to_data minus line numbers) is identical after formatting.

    A house rule is formatted together with the other house rules of its folder, so that a
    relative `extends "gentle.civ"` resolves to a formatted base too.
    """
    before = _model(path)
    folder = tmp_path / path.parent.name
    folder.mkdir()
    for f in path.parent.glob("*.civ"):
        (folder / f.name).write_text(format_text(f.read_text(encoding="utf-8"), str(f)), encoding="utf-8")
    after = _model(folder / path.name)
    assert after == before


def test_canonical_layout():
    src = '''# header


language 1 # the version
edition weird "Weird"   extends   megaciv
const   a=1+ -2*( 3 -1 )   "doc"   # trailing
const b = max(1,2)//3
vp tiers { below 100 : 1 , below 200: 3, else: 6, }
change calamity "Famine" { # opening
  # first inside

  primary { damage( 8 ) }   # eight
  when holds("Pottery") and not holds("Calendar") { prevent damage 4 per cards("Grain") }


  drop when holds("Calendar")
  # last inside
}
change advance "Pottery" { cost 70 }
table t { -5..-1: 1,
  0..: 2 # zero up
}
'''
    expected = '''# header

language 1  # the version
edition weird "Weird" extends megaciv
const a = 1 + -2 * (3 - 1) "doc"  # trailing
const b = max(1, 2) // 3
vp tiers { below 100: 1, below 200: 3, else: 6 }

change calamity "Famine" {  # opening
  # first inside

  primary { damage(8) }  # eight
  when holds("Pottery") and not holds("Calendar") { prevent damage 4 per cards("Grain") }

  drop when holds("Calendar")
  # last inside
}

change advance "Pottery" { cost 70 }

table t {
  -5..-1: 1,
  0..: 2,  # zero up
}
'''
    assert format_text(src) == expected
    assert format_text(expected) == expected


def test_long_one_line_blocks_are_expanded_and_stay_expanded():
    src = ('language 1\nedition x "X"\n'
           'calamity "Flood" { stack 3 class major nontradable primary { if flood_plain_units > 0 '
           '{ damage(15, area=flood_plain) } else { damage(5, area=coastal) } } }\n')
    out = format_text(src)
    assert out == '''language 1
edition x "X"

calamity "Flood" {
  stack 3
  class major nontradable
  primary {
    if flood_plain_units > 0 { damage(15, area=flood_plain) } else { damage(5, area=coastal) }
  }
}
'''
    assert format_text(out) == out


def test_multiline_block_is_never_joined_and_empty_block_is_braces():
    src = 'language 1\nedition x "X"\nscore {\n  points "Cities" cities\n}\nast a "A" {\n  epoch "S" {\n  }\n}\n'
    out = format_text(src)
    assert 'score {\n  points "Cities" cities\n}' in out
    assert 'epoch "S" { }' in out


def test_comment_inside_an_expression_breaks_the_line_and_is_kept():
    src = ('language 1\nedition x "X"\nassert count(advances) >= 0 and # first half\n'
           '  count(calamities) >= 0\n  # the message follows\n  "non-negative"\n')
    out = format_text(src)
    assert out == ('language 1\nedition x "X"\n\nassert count(advances) >= 0 and  # first half\n'
                   '    count(calamities) >= 0\n    # the message follows\n    "non-negative"\n')
    assert format_text(out) == out


def test_comment_at_end_of_file_and_blank_lines_collapse():
    src = 'language 1\n\n\n\nedition x "X"\n# the end\n\n\n# really\n'
    assert format_text(src) == 'language 1\n\nedition x "X"\n# the end\n\n# really\n'


def test_crlf_and_bom_are_normalised():
    src = '\ufefflanguage 1\r\nedition x "X"\r\n'
    assert format_text(src) == 'language 1\nedition x "X"\n'


def test_syntax_error_is_reported_not_formatted():
    with pytest.raises(FormatError) as info:
        format_text('language 1\nedition x "X"\nconst a = \n', "bad.civ")
    assert info.value.diagnostics is not None
    assert any(d.code == "CIV001" for d in info.value.diagnostics.errors)


def test_a_file_nested_too_deeply_is_reported_not_a_traceback():
    deep = 'language 1\nedition x "X"\nconst a = ' + "not " * 2000 + "true\n"
    with pytest.raises(FormatError) as info:
        format_text(deep, "deep.civ")
    assert [d.code for d in info.value.diagnostics.errors] == ["CIV005"]
    res = run_cli("fmt", "--check", str(ROOT / "tests" / "hostile" / "reject_not_chain.civ"))
    # run_cli raises any exception that escapes the command: reaching here, none did
    assert res.exit_code == 1 and "error[CIV005]" in res.output and "Traceback" not in res.output


# --- the command ----------------------------------------------------------------------------------

def test_fmt_command_rewrites_and_check_reports(tmp_path):
    messy = tmp_path / "messy.civ"
    messy.write_text('language 1\nedition messy "M"   extends megaciv\nchange advance "Pottery" {cost 70}\n')
    tidy = tmp_path / "tidy.civ"
    tidy.write_text(format_text(messy.read_text()))
    res = run_cli("fmt", "--check", str(messy), str(tidy))
    assert res.exit_code == 1
    assert f"would reformat {messy}" in res.output and str(tidy) not in res.output.replace("would reformat " + str(messy), "")
    assert messy.read_text().startswith('language 1\nedition messy "M"   extends')  # --check writes nothing
    res = run_cli("fmt", str(tmp_path))
    assert res.exit_code == 0, res.output
    assert messy.read_text() == tidy.read_text()
    res = run_cli("fmt", "--check", str(tmp_path))
    assert res.exit_code == 0, res.output
    assert "2 files already formatted" in res.output


def test_fmt_command_never_rewrites_a_file_with_syntax_errors(tmp_path):
    bad = tmp_path / "bad.civ"
    text = 'language 1\nedition bad "B"\nconst   a = \n'
    bad.write_text(text)
    res = run_cli("fmt", str(bad))
    assert res.exit_code == 1
    assert "error[CIV001]" in res.output and "not formatted" in res.output
    assert bad.read_text() == text
    res = run_cli("fmt", "--check", str(bad))
    assert res.exit_code == 1
    assert bad.read_text() == text


def test_fmt_diff_option_shows_changes_and_writes_nothing(tmp_path):
    f = tmp_path / "x.civ"
    f.write_text('language 1\nedition x  "X"\n')
    res = run_cli("fmt", "--diff", str(f))
    assert '-edition x  "X"' in res.output and '+edition x "X"' in res.output
    assert f.read_text() == 'language 1\nedition x  "X"\n'


def test_shipped_ids_are_accepted(tmp_path):
    res = run_cli("fmt", "--diff", "civ1981")
    assert res.exit_code == 0, res.output


def test_house_rules_are_formatted():
    """The house rules in rulebooks/house are the formatter's own output."""
    for path in shipped_house_rules():
        text = path.read_text(encoding="utf-8")
        assert format_text(text, str(path)) == text, f"{path} is not formatted: run civdsl fmt {path}"
