"""The language server's incremental analysis answers exactly what a full check answers: the
statements' starts, the token count and the brackets it keeps line by line equal a scan of the
whole text, and the diagnostics after random edits of shipped rulebooks equal `civdsl check`'s on
the same text."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from civdsl import parser
from civdsl.frontend import check_file
from civdsl.lsp import Engine, FileInfo, tokenize
from civdsl.lsp.incremental import TextState
from civdsl.lsp.tokens import split_statements
from conftest import advances_checked

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = ROOT / "rulebooks"

# Pieces an edit inserts: ones that open or close brackets, start or end statements, break a line
# or a string, and whole statements.
PIECES = ["\n", "x", " ", '"', "{", "}", "(", ")", "\n\n", "# note {\n", "advance", "calamity ", 'holds("Potery")',
          'advance "New" { cost 50 groups crafts credits crafts 5 }\n', "const k = 3\n", "}\n}\n", "{ {",
          'when holds("Pottery") { prevent damage 5 }\n']


def _edit(rng: random.Random, text: str, source: str, step: int) -> str:
    """A random edit: mostly an insertion or a deletion somewhere, now and then a line inserted
    before a statement (every later statement moves), or back to the original text."""
    pos = rng.randrange(len(text) + 1)
    if step % 7 == 6:
        return source
    if step % 7 == 0:
        starts = [m.start() for m in re.finditer(r"\n(?=[a-z])", text)] or [0]
        at = rng.choice(starts)
        return text[:at] + "\n# moved\n" + text[at:]
    if rng.random() < 0.6:
        return text[:pos] + rng.choice(PIECES) + text[pos:]
    return text[:pos] + text[pos + rng.randint(1, 60):]


def _full_scan(text: str, tokens: list | None = None) -> list[tuple[int, int]]:
    """Where a scan of the whole text finds the statements' starts, as 0-based (line, column);
    TOKENS, when given, are `tokenize(text)` already made."""
    info = FileInfo(text, "x.civ", None)
    tokens = tokenize(text) if tokens is None else tokens
    return [info.position(tokens[i].start) if tokens else (0, 0) for i in split_statements(tokens)]


@pytest.mark.parametrize("name", ["megaciv.civ", "civ1981.civ", "cardgame.civ", "house/gentle.civ"])
def test_statements_tokens_and_limits_kept_line_by_line_equal_a_scan_of_the_whole_text(name):
    source = (RULEBOOKS / name).read_text(encoding="utf-8")
    rng = random.Random(name)
    state = TextState()
    text = source
    for step in range(60):
        state.update(text)
        whole = tokenize(text)  # the reference, lexed once a step: most of this test's time
        assert state.marks == _full_scan(text, whole), f"step {step}"
        assert state.token_count() == parser.count_tokens(text), f"step {step}"
        assert state.brackets() == parser.bracket_skeleton(text), f"step {step}"
        assert FileInfo(text, "x.civ", None, state=state).tokens == whole, f"step {step}"
        text = _edit(rng, text, source, step)
    # most edits found the statements again around the change alone
    assert state.stats["windows"] > state.stats["full scans"], state.stats


def test_a_bracket_left_open_is_followed_line_by_line_not_by_a_scan_of_the_whole_text():
    """An edit that opens a block mid-file swallows every later statement: the statements are
    found by passing over the lines inside the bracket, and found back where the bracket closes."""
    source = (RULEBOOKS / "megaciv.civ").read_text(encoding="utf-8")
    at = source.index('\nadvance "Pottery"') + 1
    state = TextState()
    state.update(source)
    for text in (source[:at] + "advance {\n" + source[at:], source, source[:at] + "x = (\n" + source[at:],
                 source[:at] + "x = (\n)\n" + source[at:], source[:at] + "}\n" + source[at:]):
        state.update(text)
        assert state.marks == _full_scan(text)
    assert state.stats["full scans"] == 1 and state.stats["reached on"] >= 2, state.stats


def test_an_analysis_keeps_the_lines_it_was_made_of():
    """The lines and tokens of an earlier analysis are not those of a later edit."""
    source = (RULEBOOKS / "civ1981.civ").read_text(encoding="utf-8")
    engine = Engine()
    doc = engine.open("untitled:a.civ", source, 1)
    first = engine.analyse(doc)
    engine.update("untitled:a.civ", "# a new first line\n" + source, 2)
    engine.analyse(doc)
    assert first.doc.lines == source.split("\n")
    assert first.doc.tokens == tokenize(source)


@pytest.mark.parametrize("name", ["megaciv.civ", "civ1980.civ", "cardgame.civ", "house/strict_credits.civ"])
def test_incremental_diagnostics_equal_check_on_random_edits(tmp_path, name):
    original = RULEBOOKS / name
    source = original.read_text(encoding="utf-8")
    path = tmp_path / original.name
    rng = random.Random(f"check {name}")
    engine = Engine()
    doc = engine.open(path.as_uri(), source, 0)
    text = source
    for step in range(16):
        path.write_text(text, encoding="utf-8")
        engine.update(path.as_uri(), text, step + 1)
        analysis = engine.analyse(doc)
        checked = check_file(path)
        assert analysis.diagnostics.to_json() == checked.diagnostics.to_json(), f"step {step}"
        assert _in_order(analysis.edition) == _in_order(checked.edition), f"step {step}"
        text = _edit(rng, text, source, step)
    assert doc.parser.stats["reused"] > 0


def test_an_edit_reads_again_only_the_items_it_changed_or_moved():
    """The resolver keeps each item declared whole with its model object for the next edit: an
    item the edit left alone is the same object, the edited one and those it moved are read again."""
    source = (RULEBOOKS / "megaciv.civ").read_text(encoding="utf-8")
    engine = Engine()
    doc = engine.open("untitled:m.civ", source, 0)
    first = engine.analyse(doc).edition
    at = source.index('advance "Pottery"')
    engine.update("untitled:m.civ", source[:at] + source[at:].replace("cost 60", "cost 61", 1), 1)
    second = engine.analyse(doc).edition
    assert second.advances["Pottery"].cost == 61 and second.advances["Pottery"] is not first.advances["Pottery"]
    assert second.advances["Astronavigation"] is first.advances["Astronavigation"]
    assert second.calamities["Famine"] is first.calamities["Famine"]
    engine.update("untitled:m.civ", source[:at] + "\n" + source[at:], 2)
    third = engine.analyse(doc).edition
    assert third.advances["Pottery"].span.line == first.advances["Pottery"].span.line + 1
    fresh = Engine()
    assert third == fresh.analyse(fresh.open("untitled:m.civ", source[:at] + "\n" + source[at:], 0)).edition


def _in_order(edition):
    """An edition with its citations in file order (a whole-file parse lists nested ones last)."""
    import dataclasses

    if edition is None:
        return None
    return dataclasses.replace(edition, citations=sorted(edition.citations, key=lambda c: (c.span.line, c.span.column)))


# The language server's modules in the order of docs/architecture.md: each imports only those before it.
LSP_MODULES = ["tokens", "files", "incremental", "splice", "engine", "navigation", "hover", "completion", "outline", "protocol",
               "server"]


def test_the_language_server_modules_import_only_those_before_them():
    import ast

    folder = ROOT / "civdsl" / "lsp"
    assert sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__") == sorted(LSP_MODULES)
    for k, name in enumerate(LSP_MODULES):
        tree = ast.parse((folder / f"{name}.py").read_text(encoding="utf-8"))
        inside = {node.module.split(".")[0] for node in ast.walk(tree)
                  if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module}
        assert inside <= set(LSP_MODULES[:k]), f"lsp/{name}.py imports {sorted(inside - set(LSP_MODULES[:k]))}"


def test_an_edit_of_comments_and_spaces_alone_keeps_the_analysis_and_answers_as_check(tmp_path):
    """Comments typed after a line's tokens, spaces at a line's end, a comment line changed: every
    token stays where it was, so the last analysis holds (not run again) and still equals `check`;
    any other edit is analysed afresh."""
    source = (RULEBOOKS / "megaciv.civ").read_text(encoding="utf-8").replace('holds("Pottery")', 'holds("Potery")', 1)
    path = tmp_path / "megaciv.civ"
    engine = Engine()
    doc = engine.open(path.as_uri(), source, 0)
    engine.analyse(doc)
    lines = source.split("\n")
    bad = next(n for n, line in enumerate(lines) if '"Potery"' in line)
    comment = next(n for n, line in enumerate(lines) if line.lstrip().startswith("#"))
    edits = [(bad, lines[bad] + "   # a note"), (bad, lines[bad] + "   # a note, longer"), (comment, "# changed"),
             (bad, lines[bad] + "  ")]
    for version, (n, line) in enumerate(edits, 1):
        text = "\n".join(lines[:n] + [line] + lines[n + 1:])
        path.write_text(text, encoding="utf-8")
        engine.update(path.as_uri(), text, version)
        analysis = engine.analyse(doc)
        assert analysis.diagnostics.to_json() == check_file(path).diagnostics.to_json(), line
        assert doc.state.stats["layout only"] == version, line
        assert analysis.doc.text == text and analysis.version == version
    [d] = analysis.diagnostics.errors
    assert d.code == "CIV010"
    # a token moved (a space before it): analysed afresh, the diagnostic's column moves with it
    text = "\n".join(lines[:bad] + [" " + lines[bad]] + lines[bad + 1:])
    path.write_text(text, encoding="utf-8")
    engine.update(path.as_uri(), text, 9)
    analysis = engine.analyse(doc)
    assert doc.state.stats["layout only"] == len(edits)
    assert analysis.diagnostics.to_json() == check_file(path).diagnostics.to_json()
    assert analysis.diagnostics.errors[0].span.column == d.span.column + 1


def test_the_lines_kept_stay_within_a_few_times_the_buffers_own():
    """Each keystroke leaves a line behind in the cache of lexed lines; it is pruned to the
    buffer's lines, so a long session does not grow it without bound."""
    state = TextState()
    text = "language 1\nedition t \"T\"\n" + "note \"x\"\n" * 50
    for k in range(5_000):
        state.update(text + f"# {k}\n")
        assert len(state.lexed) <= 2 * len(state.lines) + 1_000
    assert state.token_count() == parser.count_tokens(text + "# 4999\n")
    assert state.brackets() == parser.bracket_skeleton(text)


def test_a_buffer_over_the_size_limit_is_refused_before_it_is_lexed():
    engine = Engine()
    text = 'language 1\nedition t "T"\n' + ("note \"" + "x" * 900 + "\"\n") * (parser.MAX_BYTES // 900 + 10)
    doc = engine.open("untitled:big.civ", text, 1)
    [d] = engine.analyse(doc).diagnostics.errors
    assert d.code == "CIV005"
    assert doc.state.stats["lines lexed"] == 0


def test_the_index_of_references_after_edits_equals_one_made_from_scratch():
    """Statements that moved keep their uses, moved with them; each edit's index equals the index
    of a fresh analysis of the same text, use for use, span for span."""
    source = (RULEBOOKS / "megaciv.civ").read_text(encoding="utf-8")
    rng = random.Random("index")
    engine = Engine()
    doc = engine.open("untitled:m.civ", source, 0)
    engine.analyse(doc)
    text = source
    for step in range(12):
        text = _edit(rng, text, source, step if step % 2 else 0)  # every other edit moves statements
        engine.update("untitled:m.civ", text, step + 1)
        kept = engine.analyse(doc)
        fresh = Engine()
        again = fresh.analyse(fresh.open("untitled:m.civ", text, 1))
        if kept.doc.ast is None:
            assert again.doc.ast is None
            continue
        assert kept.refs().refs == again.refs().refs, f"step {step}"
    assert doc.parser.stats["shifted"] > 0


def test_the_header_of_a_buffer_that_does_not_parse_is_read_from_its_first_lines():
    """Go to definition in a buffer with a syntax error finds its bases from the header's tokens,
    which are the buffer's first tokens, made without tokenizing the whole buffer."""
    source = (RULEBOOKS / "house" / "gentle.civ").read_text(encoding="utf-8")
    state = TextState()
    for text in (source, "\n\n# a comment\n\n" + source, "", "language"):
        state.update(text)
        info = FileInfo(text, "x.civ", None, state=state)
        assert info.first_tokens(12) == tokenize(text)[:12]
        assert "tokens" not in info.__dict__


def test_an_edit_checks_again_only_the_items_it_changed_or_whose_context_changed(monkeypatch):
    """The validator keeps what each advance, calamity and commodity reported: an edit inside
    one advance checks that advance alone; a new constant (a name every expression may read)
    checks every item again; and what they report stays what a fresh analysis reports."""
    checked = advances_checked(monkeypatch)
    source = (RULEBOOKS / "megaciv.civ").read_text(encoding="utf-8")
    at = source.index('advance "Naval Warfare"')
    engine = Engine()
    doc = engine.open("untitled:m.civ", source, 0)
    engine.analyse(doc)
    assert len(checked) > 40
    for version, text in enumerate([source[:at] + source[at:].replace("cost 160", "cost 5", 1),
                                    source[:at] + "const naval_cost = 160\n" + source[at:]], 1):
        checked.clear()
        engine.update("untitled:m.civ", text, version)
        got = engine.analyse(doc).diagnostics
        checked_here = list(checked)
        fresh = Engine()
        assert got.to_json() == fresh.analyse(fresh.open("untitled:m.civ", text, 0)).diagnostics.to_json()
        if version == 1:
            # Naval Warfare, and Cloth Making, whose credit of 10 to it now exceeds its cost
            assert ("CIV136", "Cloth Making") in {(d.code, d.item) for d in got.items}
            assert sorted(checked_here) == ["Cloth Making", "Naval Warfare"]
        else:
            assert len(checked_here) > 40


def test_the_prerequisite_cycles_are_searched_again_only_when_an_advance_changed(monkeypatch):
    """The search for prerequisite cycles reads only the advances' names and prerequisites: an edit
    elsewhere (here lines inserted above the advances, which move) reports the same cycle at its
    new place without searching, and so does an edit of an advance that leaves its prerequisites;
    an edit of prerequisites searches again, and what is reported stays what a fresh analysis
    reports."""
    from civdsl import validator

    searched: list[int] = []
    cycles = validator._Validator._prerequisite_cycles

    def counting(self):
        searched.append(1)
        return cycles(self)

    counting.__name__ = cycles.__name__
    monkeypatch.setattr(validator._Validator, "_prerequisite_cycles", counting)
    source = (RULEBOOKS / "megaciv.civ").read_text(encoding="utf-8")
    at = source.index('advance "Naval Warfare"')
    looped = source[:at] + source[at:].replace("cost 160", 'cost 160\n  requires "Naval Warfare"', 1)
    assert looped != source
    texts = [(looped, True), (looped.replace("const tokens_per", "# a note\nconst tokens_per", 1), False),
             (looped.replace('const', '# c\nconst', 1), False), (source, True), (source + "\n", False),
             # an advance edited without touching its prerequisites: the values the search reads are the same
             (source.replace('summary "', 'summary "x', 1), False)]
    engine = Engine()
    doc = engine.open("untitled:m.civ", source, 0)
    engine.analyse(doc)
    for version, (text, again) in enumerate(texts, 1):
        searched.clear()
        engine.update("untitled:m.civ", text, version)
        got = engine.analyse(doc).diagnostics
        assert (len(searched) == 1) is again, version
        fresh = Engine()
        assert got.to_json() == fresh.analyse(fresh.open("untitled:m.civ", text, 0)).diagnostics.to_json()
        assert ("CIV050" in {d.code for d in got.items}) is ('requires "Naval Warfare"' in text), version
