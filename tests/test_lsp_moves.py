"""A statement that moves (lines inserted or deleted above it, or the statement cut and pasted
elsewhere) keeps what the language server made of it: its syntax objects, model object, reports
and uses, their lines moved with it. Whatever sequence of edits, the diagnostics, the resolved
edition and the index of references equal those made from scratch (`civdsl check`)."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from civdsl.frontend import check_file
from civdsl.lsp import Engine
from civdsl.lsp.incremental import AnchoredSpan
from conftest import advances_checked

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = ROOT / "rulebooks"


def _starts(text: str) -> list[int]:
    """Where the top-level statements of a shipped rulebook start (each at a line's start)."""
    return [m.start() + 1 for m in re.finditer(r"\n(?=[a-z])", text)]


def _statement(text: str, k: int) -> tuple[int, int]:
    starts = _starts(text)
    if not starts:
        return 0, 0
    k %= len(starts)
    return starts[k], starts[k + 1] if k + 1 < len(starts) else len(text)


PIECES = ["\n", "x", " ", '"', "{", "}", "\n\n", "# note {\n", "advance", 'holds("Potery")', "const k = 3\n",
          'advance "New" { cost 50 groups crafts credits crafts 5 }\n', "}\n"]

# (kind, a, b, piece): what each edit does, applied to the text as the edits before left it
EDITS = st.tuples(st.sampled_from(["insert", "delete", "line", "lines out", "move", "copy", "field twice", "back",
                                   "in a string", "cites inside", "summary out"]),
                  st.integers(0, 10_000), st.integers(0, 10_000), st.sampled_from(PIECES))


def _apply(edit: tuple, text: str, source: str) -> str:
    kind, a, b, piece = edit
    if kind == "back":
        return source
    if kind == "insert":
        at = a % (len(text) + 1)
        return text[:at] + piece + text[at:]
    if kind == "delete":
        at = a % (len(text) + 1)
        return text[:at] + text[at + 1 + b % 40:]
    if kind in ("in a string", "summary out"):  # edits that keep the statement's kind and name
        found = [m.end() for m in re.finditer(r'\n  summary "', text)]
        if not found:
            return text
        at = found[a % len(found)]
        if kind == "in a string":
            return text[:at] + "xy"[b % 2] + text[at:]
        line = text.rfind("\n", 0, at - 1)
        return text[:line] + text[text.index("\n", at):]
    start, end = _statement(text, a)
    if kind == "cites inside":  # a `cites` nested in the statement (its first line opens a block)
        first = text.find("\n", start, end)
        if first < 0 or not text[start:first].rstrip().endswith("{"):
            return text
        return text[:first + 1] + f'  cites "ch {b % 5}"\n' + text[first + 1:]
    if kind == "line":  # every later statement moves down
        return text[:start] + "\n# moved\n" * (1 + b % 3) + text[start:]
    if kind == "lines out":  # ... or up: the blank lines and comments before a statement removed
        before = text[:start]
        kept = before.rstrip("\n")
        kept = kept[:kept.rfind("\n") + 1] if kept.rsplit("\n", 1)[-1].startswith("#") else kept + "\n"
        return kept + text[start:]
    if kind in ("move", "copy"):  # cut (or copy) a statement and paste it before another
        piece = text[start:end]
        rest = text[:start] + text[end:] if kind == "move" else text
        at, _ = _statement(rest, b)
        return rest[:at] + piece + rest[at:]
    # a field given twice: its note names the line of the first (CIV021), a line that moves
    body = text[start:end]
    field = re.search(r"\n( +[a-z_]+ [^\n{]*)\n", body)
    if field is None:
        return text
    at = start + field.end()
    return text[:at] + field.group(1) + "\n" + text[at:]


def _same_as_check(engine: Engine, doc, path: Path, text: str, version: int) -> None:
    path.write_text(text, encoding="utf-8")
    engine.update(path.as_uri(), text, version)
    analysis = engine.analyse(doc)
    checked = check_file(path)
    assert analysis.diagnostics.to_json() == checked.diagnostics.to_json()
    if analysis.edition is not None or checked.edition is not None:
        assert _by_line(analysis.edition) == _by_line(checked.edition)
    if analysis.doc.ast is not None and analysis.edition is not None:
        fresh = Engine()
        again = fresh.analyse(fresh.open(path.as_uri(), text, 0))
        assert analysis.refs().refs == again.refs().refs
        assert analysis.refs()._by_name == again.refs()._by_name  # each name's uses, in chain order


def _by_line(edition):
    """An edition with its citations in file order (a whole-file parse lists nested ones last)."""
    import dataclasses

    return dataclasses.replace(edition, citations=sorted(edition.citations, key=lambda c: (c.span.line,
                                                                                          c.span.column)))


@settings(max_examples=24, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(name=st.sampled_from(["megaciv.civ", "civ1980.civ", "cardgame.civ", "house/strict_credits.civ"]),
       edits=st.lists(EDITS, min_size=1, max_size=6))
def test_incremental_analysis_equals_check_after_any_sequence_of_edits(name, edits):
    original = RULEBOOKS / name
    source = original.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / original.name
        engine = Engine()
        doc = engine.open(path.as_uri(), source, 0)
        engine.analyse(doc)
        text = source
        for version, edit in enumerate(edits, 1):
            text = _apply(edit, text, source)
            _same_as_check(engine, doc, path, text, version)


def test_a_moved_statement_is_not_read_indexed_or_checked_again(monkeypatch):
    """Lines inserted above half the statements move them: their model objects are the same objects,
    none of them is checked again, their spans (and those of their uses) moved by the lines
    inserted, and everything equals a fresh analysis of the same text."""
    checked = advances_checked(monkeypatch)
    source = (RULEBOOKS / "megaciv.civ").read_text(encoding="utf-8")
    at = source.index('advance "Pottery"')
    engine = Engine()
    doc = engine.open("untitled:m.civ", source, 0)
    first = engine.analyse(doc)
    line = first.edition.advances["Pottery"].span.line
    uses = [r.span.line for r in first.refs().named("advance", "Pottery")]
    checked.clear()
    parsed = doc.parser.stats["parsed"]
    text = source[:at] + "\n\n# two lines\n" + source[at:]
    engine.update("untitled:m.civ", text, 1)
    second = engine.analyse(doc)
    # the statement before the lines (which now hold them) is parsed again, no other
    assert doc.parser.stats["parsed"] == parsed + 1 and doc.parser.stats["shifted"] > 40
    assert second.edition.advances["Pottery"] is first.edition.advances["Pottery"]
    assert second.edition.advances["Pottery"].span.line == line + 3
    assert isinstance(second.edition.advances["Pottery"].span, AnchoredSpan)
    before = re.findall(r'\nadvance "([^"]+)"', source[:at])[-1]  # now holding the lines: read again
    assert checked == [before]
    # the citations nested in kept statements are kept with them (each still in the same statement)
    kept = {id(c) for c in first.edition.citations}
    assert sum(id(c) in kept for c in second.edition.citations) > len(second.edition.citations) // 2
    assert [r.span.line for r in second.refs().named("advance", "Pottery")] == [
        n + 3 if n >= line else n for n in uses]
    fresh = Engine()
    again = fresh.analyse(fresh.open("untitled:m.civ", text, 0))
    assert second.diagnostics.to_json() == again.diagnostics.to_json()
    assert second.edition == again.edition
    assert second.refs().refs == again.refs().refs


def test_a_moved_statement_whose_note_names_its_own_line_is_read_again():
    """`cost` given twice: CIV021's note names the line of the first. When the advance moves, the
    note names its new line, as `check` does."""
    source = (RULEBOOKS / "megaciv.civ").read_text(encoding="utf-8")
    at = source.index('advance "Pottery"')
    start = source.index("\n  cost", at) + 1
    end = source.index("\n", start) + 1
    twice = source[:end] + source[start:end] + source[end:]
    engine = Engine()
    doc = engine.open("untitled:m.civ", twice, 0)
    [note] = [d.notes for d in engine.analyse(doc).diagnostics.items if d.code == "CIV021"]
    moved = twice[:at] + "# a line\n" + twice[at:]
    engine.update("untitled:m.civ", moved, 1)
    got = engine.analyse(doc).diagnostics
    fresh = Engine()
    assert got.to_json() == fresh.analyse(fresh.open("untitled:m.civ", moved, 0)).diagnostics.to_json()
    assert [d.notes for d in got.items if d.code == "CIV021"] != [note]


def test_the_index_keeps_each_kept_statements_uses_resolved_while_no_name_changes_meaning():
    """A statement kept from the last edit keeps its uses as resolved by scope while the edit
    declares no new name; a new constant (a bare name now means it) resolves every use again,
    and each index equals a fresh one."""
    source = (RULEBOOKS / "megaciv.civ").read_text(encoding="utf-8")
    at = source.index('advance "Pottery"')
    engine = Engine()
    doc = engine.open("untitled:m.civ", source, 0)
    engine.analyse(doc).refs()
    kept = {key: entry.resolved for key, entry in doc.refs_memo.items() if key != "meaning"}
    for version, (text, same) in enumerate([(source[:at] + "\n# a line\n" + source[at:], True),
                                            (source[:at] + "const pottery_x = 3\n" + source[at:], False)], 1):
        engine.update("untitled:m.civ", text, version)
        index = engine.analyse(doc).refs()
        again = {key: entry.resolved for key, entry in doc.refs_memo.items() if key != "meaning"}
        shared = [key for key in again if key in kept]
        assert len(shared) > 200
        assert all((again[key] is kept[key]) == same for key in shared)
        fresh = Engine()
        assert index.refs == fresh.analyse(fresh.open("untitled:m.civ", text, 0)).refs().refs
        kept = again


def test_an_edit_inside_an_advance_reads_that_advance_alone_and_the_edition_equals_a_fresh_one(monkeypatch):
    """Typing in an advance's summary, adding a `cites` inside it or misspelling a name it asks
    about gives the edition made from the last one (`lsp.splice`): the resolver reads that
    advance alone, walks no other statement, and the edition, its citations and the diagnostics
    equal a fresh analysis of the text. Declaring a constant resolves the whole file again."""
    from civdsl import resolver

    applied: list[str] = []
    whole = resolver._Applier._whole_item

    def counting(self, kind, item, *rest):
        applied.append(item.name)
        return whole(self, kind, item, *rest)

    monkeypatch.setattr(resolver._Applier, "_whole_item", counting)
    source = (RULEBOOKS / "megaciv.civ").read_text(encoding="utf-8")

    def at(text: str, what: str, after: str = "") -> int:
        return text.index(what, text.index(after) if after else 0) + len(what)

    def summary(text):  # in Written Record's summary
        here = at(text, 'summary "', '\nadvance "Written Record"')
        return text[:here] + "x" + text[here:]

    def cites(text):
        block = at(text, "{\n", '\nadvance "Pottery"')
        return text[:block] + '  cites "ch 9"\n' + text[block:]

    def misspelt(text):
        holds = at(text, 'holds("P')
        return text[:holds] + text[holds + 1:]

    def constant(text):
        start = text.index('\nadvance "Pottery"') + 1
        return text[:start] + "const pottery_x = 3\n" + text[start:]

    engine = Engine()
    doc = engine.open("untitled:m.civ", source, 0)
    engine.analyse(doc)
    edits, text = [], source
    for edit, expected in [(summary, ["Written Record"]), (cites, ["Pottery"]), (misspelt, None), (constant, "all")]:
        text = edit(text)
        edits.append((text, expected))  # each edit on the text the one before left
    for version, (text, expected) in enumerate(edits, 1):
        applied.clear()
        spliced, indexed = doc.stats.get("spliced", 0), doc.stats.get("index spliced", 0)
        engine.update("untitled:m.civ", text, version)
        got = engine.analyse(doc)
        if expected == "all":
            assert doc.stats["spliced"] == spliced
            assert len(applied) == sum(map(len, (got.edition.advances, got.edition.calamities,
                                                 got.edition.commodities)))
        else:
            assert doc.stats["spliced"] == spliced + 1
            assert (applied == expected) if expected else (len(applied) == 1), (version, applied)
        fresh = Engine()
        again = fresh.analyse(fresh.open("untitled:m.civ", text, 0))
        assert got.diagnostics.to_json() == again.diagnostics.to_json()
        assert _by_line(got.edition) == _by_line(again.edition)
        assert sorted(got.edition.citations, key=repr) == sorted(again.edition.citations, key=repr)
        assert got.refs().refs == again.refs().refs and got.refs()._by_name == again.refs()._by_name
        # the index too is made from the last one while no statement declares another name
        assert doc.stats.get("index spliced", 0) == indexed + (expected != "all")


def test_an_item_a_later_change_or_remove_edits_is_resolved_whole_after_an_edit(tmp_path):
    """In a house rule, an advance the same file later `change`s (or `remove`s) is not taken from
    the last edition when edited: what the later statement does to it is done again, as `check`
    does; an advance no statement edits is."""
    path = tmp_path / "house.civ"
    base = Path(os.path.relpath(RULEBOOKS / "megaciv.civ", tmp_path)).as_posix()
    head = (f'language 1\nedition house "A house rule" extends "{base}"\n\n'
            'advance "Granary" {\n  cost 90\n  groups crafts\n  summary "Stores grain."\n}\n\n'
            'advance "Mill" {\n  cost 80\n  groups crafts\n  summary "Grinds grain."\n}\n\n')
    for later, spliced in (('change advance "Granary" {\n  cost 99\n}\n', 0), ('remove advance "Granary"\n', 0),
                           ('change advance "Mill" {\n  cost 99\n}\n', 1)):
        text = head + later
        engine = Engine()
        doc = engine.open(path.as_uri(), text, 0)
        engine.analyse(doc)
        edited = text.replace("Stores grain", "Stores the grain")
        engine.update(path.as_uri(), edited, 1)
        got = engine.analyse(doc)
        path.write_text(edited, encoding="utf-8")
        checked = check_file(path)
        assert doc.stats.get("spliced", 0) == spliced, later
        assert got.diagnostics.to_json() == checked.diagnostics.to_json()
        assert _by_line(got.edition) == _by_line(checked.edition)
