"""Encodings and line endings: diagnostics point at the exact `path:line:col` whatever the bytes.

Lines are counted on `\\n`, `\\r\\n` and a lone `\\r` alike (and nothing else: U+2028, U+0085
and form feeds inside strings or comments do not start a line). Columns count characters
(Unicode code points) from 1; a tab is one column. A byte-order mark at the start is dropped
before counting. A file that is not UTF-8 is refused with CIV004 at the first bad byte.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli

from civdsl.frontend import check_file

ROOT = Path(__file__).resolve().parent.parent
GOOD = 'language 1\nedition enc "Encodings"\n'


def located(path: Path, data: bytes):
    path.write_bytes(data)
    checked = check_file(path)
    assert not checked.ok
    d = checked.diagnostics.errors[0]
    return d.code, f"{d.span.line}:{d.span.column}" if d.span else None


# A syntax error (`1` where a keyword belongs) at line 4, column 3 of the LF version.
BODY = ["language 1", 'edition enc "Encodings"', 'note "ok"', "  1"]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"], ids=["no-BOM", "BOM"])
def test_line_endings_and_bom_do_not_move_positions(tmp_path, newline, bom):
    data = bom + (newline.join(BODY) + newline).encode()
    assert located(tmp_path / "f.civ", data) == ("CIV001", "4:3")


def test_mixed_line_endings(tmp_path):
    data = b"language 1\r\nedition enc \"E\"\rnote \"a\"\n\r\n  1\n"
    assert located(tmp_path / "f.civ", data) == ("CIV001", "5:3")


def test_tabs_count_as_one_column(tmp_path):
    data = GOOD.encode() + b"\tnote\t\"x\"\t\t1\n"
    assert located(tmp_path / "f.civ", data) == ("CIV001", "3:12")


def test_columns_count_characters_not_bytes(tmp_path):
    # é is 2 bytes, 🏛 is 4 bytes (and 2 UTF-16 units): each is one column
    data = GOOD.encode() + 'note "é🏛" 1\n'.encode()
    assert located(tmp_path / "f.civ", data) == ("CIV001", "3:11")


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"], ids=["LF", "CRLF", "CR"])
def test_invalid_utf8_is_located_at_the_first_bad_byte(tmp_path, newline):
    data = newline.join([b"language 1", b'edition enc "E"', b'note "caf\xc3\xa9 \xff"']) + newline
    # n-o-t-e-space-quote-c-a-f-é-space: the bad byte is the 12th character of line 3
    assert located(tmp_path / "f.civ", data) == ("CIV004", "3:12")


def test_invalid_utf8_after_a_bom(tmp_path):
    assert located(tmp_path / "f.civ", b"\xef\xbb\xbf\xfflanguage 1\n") == ("CIV004", "1:1")


@pytest.mark.parametrize("data,where", [
    (b"language 1\nedition e \"\xe9t\xe9\"\n", "2:12"),            # Latin-1
    (b"\xff\xfel\x00a\x00n\x00", "1:1"),                          # UTF-16 with its BOM
    (b"language 1\n\xc0\x80\n", "2:1"),                           # overlong NUL
    (b"language 1\nnote \"\xed\xb2\x80\"\n", "2:7"),              # encoded surrogate
    (b"language 1\nnote \"\xf4\x90\x80\x80\"\n", "2:7"),          # above U+10FFFF
    (b"language 1\nnote \"\xe2\x82\"\n", "2:7"),                  # truncated sequence
], ids=["latin-1", "utf-16", "overlong", "surrogate", "too-high", "truncated"])
def test_not_utf8(tmp_path, data, where):
    assert located(tmp_path / "f.civ", data) == ("CIV004", where)


def test_raw_nul_is_located(tmp_path):
    assert located(tmp_path / "f.civ", GOOD.encode() + b'note "a\r\n\x00"\n') == ("CIV004", "4:1")


def test_unicode_line_breaks_inside_strings_do_not_start_lines(tmp_path):
    text = GOOD + 'note "a\u2028b\u2029c\u0085d\x0ce"  # \u2028 in a comment\n  1\n'
    assert located(tmp_path / "f.civ", text.encode()) == ("CIV001", "4:3")


def test_bom_in_the_middle_is_whitespace_and_counts_as_a_column(tmp_path):
    text = GOOD + "\ufeffnote \ufeff1\n"
    assert located(tmp_path / "f.civ", text.encode()) == ("CIV001", "3:8")


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_later_passes_locate_errors_the_same_way(tmp_path, newline):
    """Positions from the resolver and validator (not just the parser) survive CRLF and tabs."""
    lines = ["language 1", 'edition enc "E"', "credit policy best_group", 'group g "G"',
             'advance "A" {', "\tcost 10\tgroups g", '\trequires\t"Nope"', "}"]
    assert located(tmp_path / "f.civ", (newline.join(lines) + newline).encode()) == ("CIV010", "7:11")


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_unexpected_end_of_file_is_located_at_the_end(tmp_path, newline):
    data = (newline.join(["language 1", 'edition enc "E"', "const x ="]) + newline).encode()
    assert located(tmp_path / "f.civ", data) == ("CIV001", "4:1")  # the (empty) line after the last newline
    assert located(tmp_path / "g.civ", data.rstrip(newline.encode())) == ("CIV001", "3:10")
    # a block the file leaves open is reported at its `{`, whatever the line ends
    data = (newline.join(["language 1", 'edition enc "E"', 'advance "A" {', "  cost 10"]) + newline).encode()
    assert located(tmp_path / "h.civ", data) == ("CIV100", "3:13")
    assert located(tmp_path / "i.civ", data.rstrip(newline.encode())) == ("CIV100", "3:13")


def test_cli_prints_exact_positions_without_a_traceback(tmp_path):
    crlf = tmp_path / "crlf.civ"
    crlf.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(BODY).encode() + b"\r\n")
    latin = tmp_path / "latin.civ"
    latin.write_bytes(b"language 1\r\nedition e \"\xe9\"\r\n")
    tabs = tmp_path / "tabs.civ"
    tabs.write_bytes(GOOD.encode() + b"\tnote\t\"x\"\t\t1\n")
    proc = run_cli("check", str(crlf), str(latin), str(tabs), timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"{crlf}:4:3: error[CIV001]" in proc.stderr
    assert f"{latin}:2:12: error[CIV004]" in proc.stderr
    assert f"{tabs}:3:12: error[CIV001]" in proc.stderr
    assert "\r" not in proc.stderr  # no stray carriage return moves the terminal cursor
