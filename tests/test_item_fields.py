"""Item fields declared once (civdsl/fields.py): an unknown or misspelt field is CIV135 with
did-you-mean and the rest of the file is still checked; the resolver's "given twice" and `change`
rules and the language reference's field tables derive from the table."""

import time
from pathlib import Path

from civdsl import fields, parser
from civdsl.frontend import check_file

ROOT = Path(__file__).resolve().parent.parent
HEAD = 'language 1\nedition t "T"\ngroup crafts "Crafts"\ncredit policy best_group\n'


def _check(tmp_path, body: str, name: str = "t.civ"):
    path = tmp_path / name
    path.write_text(HEAD + body, encoding="utf-8")
    return check_file(path).diagnostics.items


def test_a_misspelt_field_has_did_you_mean_and_later_errors_are_still_reported(tmp_path):
    items = _check(tmp_path, 'advance "Pottery" { cost 45 groups crafts supplyy 3 }\n'
                             'calamity "Flood" { stack 3 class minor primary { damage(1) } benficiary trader }\n'
                             'advance "Mining" { cost 180 groups craft }\n')
    found = [(d.code, d.span.line, d.help) for d in items]
    assert ("CIV135", 5, "did you mean `supply`?") in found
    assert ("CIV135", 6, "did you mean `beneficiary`?") in found
    assert ("CIV012", 7, "did you mean `crafts`?") in found  # the rest of the file is checked
    assert not any(d.code == "CIV001" for d in items)


def test_a_misspelt_required_field_is_not_also_reported_missing(tmp_path):
    items = _check(tmp_path, 'advance "Pottery" { cots 45 groups crafts }\n'
                             'advance "Mining" { cots 45 grups crafts }\n'
                             'advance "Law" { groups crafts }\n')
    assert [(d.code, d.span.line) for d in items] == [("CIV135", 5), ("CIV135", 6), ("CIV135", 6), ("CIV022", 7)]


def test_a_field_of_another_kind_says_whose_it_is(tmp_path):
    [d] = [d for d in _check(tmp_path, 'advance "Pottery" { cost 45 groups crafts value 3 }\n') if d.code == "CIV135"]
    assert d.message == "`value` is not a field of advance `Pottery`" and d.item == "Pottery" and "`value` is a field of: commodity" in d.notes[0]
    assert (d.span.line, d.span.column, d.span.end_column) == (5, 43, 48)


def test_an_unknown_field_with_a_block_is_skipped_whole(tmp_path):
    items = _check(tmp_path, 'calamity "Flood" { stack 3 class minor primary { damage(1) }\n'
                             '  whn holds("X") { add damage 2 }\n  summary "s" }\n')
    assert [(d.code, d.span.line) for d in items if d.level == "error"] == [("CIV135", 6)]


def test_a_change_block_is_recovered_too(tmp_path):
    base = tmp_path / "base.civ"
    base.write_text(HEAD + 'advance "Pottery" { cost 45 groups crafts }\n', encoding="utf-8")
    house = tmp_path / "house.civ"
    house.write_text('language 1\nedition h "H" extends "base.civ"\nchange advance "Pottery" { cots 50 }\n',
                     encoding="utf-8")
    items = check_file(house).diagnostics.items
    assert [(d.code, d.help) for d in items] == [("CIV135", "did you mean `cost`?")]


def test_other_syntax_errors_stay_syntax_errors(tmp_path):
    # a missing `}` before the next item, and a bad token in an expression, are not unknown fields
    items = _check(tmp_path, 'advance "Pottery" { cost 45 groups crafts\nadvance "B" { cost 1 groups crafts }\n')
    assert [d.code for d in items] == ["CIV100"]  # the block never closed
    items = _check(tmp_path, 'calamity "Flood" { stack 3 class minor primary { damage(1 2) } }\n')
    assert [d.code for d in items] == ["CIV001"]


def test_recovery_is_bounded_on_a_file_full_of_unknown_fields(tmp_path):
    body = "".join(f'advance "A{i}" {{ cost 1 groups crafts bogus {i} }}\n' for i in range(2000))
    started = time.perf_counter()
    items = _check(tmp_path, body)
    assert time.perf_counter() - started < 60  # a generous bound: the point is it ends
    codes = [d.code for d in items]
    assert 1 <= codes.count("CIV135") <= parser.MAX_UNKNOWN_FIELDS and codes[-1] == "CIV001"


def test_given_twice_and_change_rules_come_from_the_table():
    from civdsl import resolver

    assert resolver._SINGLE == {f.key for fs in fields.ITEM_FIELDS.values() for f in fs if not f.repeatable}
    assert resolver._WHAT_IT_DOES["advance"] == ("ability",)
    assert {f.word for f in fields.ITEM_FIELDS["advance"] if f.change == "replace_all"} == {
        "credits", "credit", "requires", "ability"}


def test_the_language_reference_lists_the_field_tables():
    docs = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    assert fields.markdown() in docs


def test_every_field_word_is_a_keyword_of_the_grammar():
    keywords = set(parser.keywords())
    assert {f.word for fs in fields.ITEM_FIELDS.values() for f in fs} <= keywords


def test_the_lsp_completes_an_items_fields_from_the_table():
    from civdsl.lsp import Engine, completions

    megaciv = ROOT / "rulebooks" / "megaciv.civ"
    source = megaciv.read_text(encoding="utf-8")
    engine = Engine()

    def labels(text: str, offset: int) -> list[str]:
        doc = engine.open(megaciv.resolve().as_uri(), text, 1)
        return [c.label for c in completions(engine.analyse(doc), offset)]

    at = source.index("groups", source.index('advance "Pottery"'))  # the start of a field line
    assert labels(source, at) == [f.word for f in fields.ITEM_FIELDS["advance"]]
    at = source.index("\n", source.index('calamity "Famine"')) + 1
    text = source[:at] + "  st\n" + source[at:]
    assert labels(text, at + 4) == [f.word for f in fields.ITEM_FIELDS["calamity"] if not f.change_only]
    # inside a field's value it is not a field that comes next
    at = source.index("groups crafts")
    assert "cost" not in labels(source, at + len("groups "))


def test_the_lsp_hover_on_a_field_and_an_engine_constant_comes_from_the_tables():
    from civdsl import vocabulary as vocab
    from civdsl.lsp import Engine, hover_text

    megaciv = ROOT / "rulebooks" / "megaciv.civ"
    source = megaciv.read_text(encoding="utf-8")
    engine = Engine()
    analysis = engine.analyse(engine.open(megaciv.resolve().as_uri(), source, 1))
    at = source.index("groups", source.index("\nadvance ")) + 1
    text, _ = hover_text(analysis, at)
    spec = fields.field("advance", "groups")
    assert text.startswith("**groups** (advance field") and spec.doc in text
    at = source.index("stack", source.index("\ncalamity ")) + 1
    text, _ = hover_text(analysis, at)
    assert fields.field("calamity", "stack").doc in text and fields.CHANGES["replace"] in text
    at = source.index("city_points") + 1
    text, _ = hover_text(analysis, at)
    assert vocab.ENGINE_NAMES["city_points"].doc in text


def test_every_field_the_resolver_must_decode_has_a_handler():
    """A field whose value is not stored as it is needs `_<kind>_<key>` in the resolver; the
    others are stored by the table. Every declared field is one or the other, and every handler
    is for a declared field."""
    from civdsl.resolver import _Applier

    for kind in ("advance", "calamity", "commodity"):
        keys = {f.key for f in fields.ITEM_FIELDS[kind]}
        handlers = {name[len(kind) + 2:] for name in dir(_Applier) if name.startswith(f"_{kind}_")} - {"fields"}
        assert handlers <= keys, (kind, handlers - keys)


def test_every_field_the_syntax_tree_gives_an_item_is_declared():
    """A field added to the grammar but not to fields.ITEM_FIELDS would have no did-you-mean, no
    given-twice rule and no documentation: every field key of every shipped rulebook's items
    (house rules' `change` blocks included) is in the table."""
    from civdsl import loader
    from civdsl.diagnostics import Diagnostics

    seen = set()
    for path in sorted((ROOT / "rulebooks").glob("*.civ")):
        diags = Diagnostics()
        loaded = loader.parse_file(path, diags)
        for item in loaded.ast.items:
            kind = item.value if item.kind == "change" else item.kind
            if kind in fields.ITEM_FIELDS:
                for f in item.fields:
                    assert fields.field(kind, f.key) is not None, (path.name, kind, f.key)
                    seen.add((kind, f.key))
    assert len(seen) > 20  # the check saw the shipped rulebooks' fields


def test_a_field_holding_numbers_cannot_be_declared_without_its_range():
    import pytest

    from civdsl.bounds import Bound

    with pytest.raises(ValueError, match="declares no range"):
        fields.FieldSpec("upkeep", "upkeep", "number", False, None, "replace", "upkeep", "d", value="number")
    with pytest.raises(ValueError, match="unknown value shape"):
        fields.FieldSpec("upkeep", "upkeep", "number", False, None, "replace", "upkeep", "d", value="integer",
                         bound=Bound(0, 1, "an upkeep"))
    with pytest.raises(ValueError, match="neither a value shape nor a `schema`"):
        fields.FieldSpec("upkeep", "upkeep", "number", False, None, "replace", "upkeep", "d")


def test_every_field_has_its_callback_model_attribute_range_and_schema():
    import dataclasses

    from civdsl import syntax
    from civdsl.model import ITEM_CLASSES
    from civdsl.modelschema import ITEM_KEYS, model_schema

    schema = model_schema()["properties"]
    for kind, specs in fields.ITEM_FIELDS.items():
        attrs = {f.name for f in dataclasses.fields(ITEM_CLASSES[kind])}
        data = schema[ITEM_KEYS[kind]]["items"]["properties"]
        for spec in specs:
            assert spec.model_attr in attrs, (kind, spec.key)
            if spec.change_only:
                continue
            assert spec.data_key in data, (kind, spec.key)
            if spec.value:
                rule = spec.rule_of(kind)
                callback = syntax.transformer_class()._rule_functions[rule][0]
                assert callback.__doc__.startswith(f"`{spec.word} ...`"), rule
                if fields.VALUES[spec.value].numbers:
                    assert spec.bound in fields.ranges().values()


def test_a_field_s_range_is_checked_through_its_row(tmp_path):
    # the commodity's value range is declared only in its row
    bound = fields.field("commodity", "value").bound
    assert "commodity value" in fields.ranges() and bound.high == 1_000
    items = _check(tmp_path, 'commodity "Salt" { value 1001 count 2 stack 1 }\n')
    assert [(d.code, d.message) for d in items] == [
        ("CIV112", "a commodity's face value is 1,001; it must be 0 to 1,000")]


def test_each_shaped_field_s_grammar_alternative_writes_its_shape():
    """The grammar alternative of a field with a value shape is its keyword and the shape's tokens
    (`VP INT -> adv_vp`), so the registered callback reads what the parser gives it."""
    import re

    from civdsl.resources import grammar_text

    grammar = grammar_text()
    seen = 0
    for kind, specs in fields.ITEM_FIELDS.items():
        for spec in (s for s in specs if s.value):
            rule = spec.rule_of(kind)
            found = (re.search(rf"^\s*(?:\?\w+:|\|)?\s*[A-Z_]+ (.+?)\s+-> {rule}\s*$", grammar, re.M)
                     or re.search(rf"^{rule}: [A-Z_]+ (.+?)\s*$", grammar, re.M))
            assert found, f"no grammar alternative `-> {rule}`"
            assert found[1] == fields.VALUES[spec.value].tokens, (kind, spec.key, found[1])
            seen += 1
    assert seen >= 20


def test_a_field_cannot_have_both_a_value_shape_and_a_written_callback():
    import pytest
    from lark import Transformer

    from civdsl import syntax

    class Written(Transformer):
        def adv_vp(self, children):
            return children

    with pytest.raises(TypeError, match="`adv_vp` has a callback in syntax.py and a value shape"):
        syntax._register_field_callbacks(Written)
    fresh = type("Fresh", (Transformer,), {})
    syntax._register_field_callbacks(fresh)
    assert "adv_vp" in fresh.__dict__ and "summary" in fresh.__dict__
