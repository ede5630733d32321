"""No comment in civdsl/, tests/ or benchmarks/ (Python; and the page's JavaScript and the grammars,
grammar/ too) quotes a timing or an issue number: a comment says
why the code is as it is, which stays true; a figure measured once and the number of the issue that
asked for a change do not (timings live in docs/performance.md with the command that measures them,
and a benchmark's docstring may state its goal). Comments are read with `tokenize`, so strings,
docstrings and code are not comments here; in JavaScript and Lark a string is skipped whole, so a
`//` inside one is no comment."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("civdsl", "tests", "benchmarks")
ISSUE = re.compile(r"\bissues? ?#?\d+|(?<![\w&])#\d{1,4}\b", re.I)
TIMING = re.compile(r"\b\d+(?:[.,]\d+)?\s?(?:ms|µs|us|ns|s|secs?|seconds?|milliseconds?|minutes?)(?!\w)"
                    r"|\b\d+(?:\.\d+)?\s?[x×] (?:faster|slower)", re.I)


def quoted_figures(source: str) -> list[tuple[int, str, str]]:
    """(line, what, comment) for each comment of SOURCE that quotes an issue number or a timing."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.COMMENT:
            continue
        for pattern, what in ((ISSUE, "an issue number"), (TIMING, "a timing")):
            if pattern.search(token.string):
                found.append((token.start[0], what, token.string.strip()))
    return found


def test_the_scan_reads_comments_only():
    source = ('x = "issue 25 took 3 s"  # why: the cap keeps the walk bounded\n'
              '"""A docstring: 200 ms."""\n'
              'y = 1  # about 15 s of one core\n'
              '# as issue 17 asked\n'
              '# see #12\n'
              'z = 2  # 1.5x faster than before\n'
              '# stable since 3 runs; colour #fff; the 2 seats\n')
    assert [(line, what) for line, what, _ in quoted_figures(source)] == [
        (3, "a timing"), (4, "an issue number"), (5, "an issue number"), (6, "a timing")]


def test_no_comment_quotes_a_timing_or_an_issue_number():
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for line, what, comment in quoted_figures(path.read_text(encoding="utf-8")):
                found.append(f"{path.relative_to(ROOT)}:{line}: {what}: {comment}")
    assert found == []


# a JavaScript or Lark string (skipped whole) or comment (the group)
_OTHER_COMMENTS = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\]|\\.)*`|(//[^\n]*|/\*.*?\*/)', re.S)


def other_quoted_figures(source: str) -> list[tuple[int, str, str]]:
    """As quoted_figures, for a JavaScript or Lark source."""
    found = []
    for match in _OTHER_COMMENTS.finditer(source):
        comment = match.group(1)
        for pattern, what in ((ISSUE, "an issue number"), (TIMING, "a timing")):
            if comment and pattern.search(comment):
                found.append((source.count("\n", 0, match.start()) + 1, what, comment.strip()))
    return found


def test_the_other_scan_reads_comments_only():
    source = 'const a = "// 3 s";\nlet b = 1; // about 15 ms\n/* issue 12 */ x = `see #4`;\n'
    assert [(line, what) for line, what, _ in other_quoted_figures(source)] == [(2, "a timing"),
                                                                                (3, "an issue number")]


def test_no_comment_of_the_pages_scripts_or_the_grammars_quotes_a_figure():
    found = []
    for path in sorted((ROOT / "civdsl").rglob("*")) + sorted((ROOT / "grammar").rglob("*")):
        if path.suffix in (".js", ".lark"):
            for line, what, comment in other_quoted_figures(path.read_text(encoding="utf-8")):
                found.append(f"{path.relative_to(ROOT)}:{line}: {what}: {comment}")
    assert found == []
