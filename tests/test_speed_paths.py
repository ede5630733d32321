"""The pipeline's speed measures keep their meaning: the collector pause, compile() as the check."""

from __future__ import annotations

import dataclasses
import gc
import sys
import types

import pytest

from civdsl import runtime
from civdsl.codegen import generate, generate_module
from civdsl.frontend import check_file
from civdsl.gcpause import paused
from civdsl.resources import shipped_house_rules, shipped_rulebooks


def test_the_collector_is_paused_inside_and_back_on_after_even_on_error():
    assert gc.isenabled()
    with pytest.raises(ValueError):
        with paused():
            assert not gc.isenabled()
            with paused():  # nested: the outer block decides
                assert not gc.isenabled()
            assert not gc.isenabled()
            raise ValueError
    assert gc.isenabled()


def test_a_caller_that_paused_the_collector_keeps_it_paused():
    gc.disable()
    try:
        with paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


class _Node:
    def __init__(self):
        self.other = None


def test_what_a_paused_block_built_goes_to_the_oldest_generation_and_its_cycles_are_still_freed():
    import weakref
    with paused():
        kept = [_Node() for _ in range(50)]
        a, b = _Node(), _Node()
        a.other, b.other = b, a  # a cycle only the collector can free
        gone = weakref.ref(a)
        del a, b
    oldest = {id(x) for x in gc.get_objects(generation=2)}
    assert all(id(x) in oldest for x in kept)
    assert not any(id(x) in {id(y) for y in gc.get_objects(generation=0)} for x in kept)
    assert gone() is not None  # nothing walked it yet
    gc.collect()
    assert gone() is None


def test_objects_the_program_froze_stay_frozen_after_a_paused_block():
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        with paused():
            _Node()
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_checking_a_rulebook_leaves_the_collector_on():
    assert check_file(shipped_rulebooks()["civ1980"]).ok
    assert gc.isenabled()


def test_generated_module_comes_with_its_bytecode_and_the_same_source():
    checked = check_file(shipped_rulebooks()["civ1980"])
    files = {f.display: f.text for f in checked.chain}
    source, code = generate_module(checked.edition, files, "where.py")
    # the functions are compiled on their first call: kept as their text until then, as this file's
    deferred = [p for p in code.parts if not isinstance(p, types.CodeType)]
    assert deferred and all(p[3] == "where.py" for p in deferred)
    compiled = code.compile_all().parts
    assert compiled and all(isinstance(p, types.CodeType) and p.co_filename == "where.py" for p in compiled)
    assert source == generate(checked.edition, files)
    module = types.ModuleType("civdsl_test_module")
    sys.modules[module.__name__] = module
    try:
        code.run(module.__dict__)
    finally:
        del sys.modules[module.__name__]
    assert module.EDITION["id"] == "civ1980"
    assert module.LINES and all(isinstance(g, int) and isinstance(r, int) for g, r in module.LINES)


def test_line_map_reads_generated_and_rulebook_lines():
    assert runtime.line_map("12:40 15:41") == ((12, 40), (15, 41))
    assert runtime.line_map("") == ()


def test_data_tables_read_back_exactly_as_the_model_gives_them():
    from civdsl.codegen import _json_exact, _records
    from civdsl.pysource import Writer

    for edition in ("megaciv", "expansion", "cardgame"):
        checked = check_file(shipped_rulebooks()[edition])
        source, code = generate_module(checked.edition, {f.display: f.text for f in checked.chain})
        module = types.ModuleType(f"civdsl_test_{edition}")
        sys.modules[module.__name__] = module
        try:
            code.run(module.__dict__)
        finally:
            del sys.modules[module.__name__]
        for name, advance in checked.edition.advances.items():
            data = module.ADVANCES[name]
            assert data["groups"] == tuple(advance.groups) and type(data["requires"]) is tuple
            assert all(type(a) is tuple for a in data["abilities"])
    # what JSON cannot carry exactly is written as Python literals
    from fractions import Fraction

    assert not _json_exact({"x": Fraction(1, 2)}) and not _json_exact([1]) and not _json_exact(float("inf"))
    w = Writer("x")
    _records(w, "T", [("a", {"v": Fraction(1, 2), "t": (1, True)})])
    namespace = {"Fraction": Fraction}
    exec("\n".join(w.lines).replace("Fraction(1, 2)", "Fraction(1, 2)"), namespace)
    assert namespace["T"] == {"a": {"v": Fraction(1, 2), "t": (1, True)}}
    w = Writer("x")
    _records(w, "T", [("a", {"n": None, "t": (1, True, "s"), "d": {"k": 1.5}})])
    namespace = {"_rt": runtime}
    exec("\n".join(w.lines), namespace)
    assert repr(namespace["T"]) == repr({"a": {"n": None, "t": (1, True, "s"), "d": {"k": 1.5}}})


def test_trade_decks_and_commodities_read_back_as_the_displays_gave_them(tmp_path):
    """The trade decks written as JSON text read back exactly as the dict displays written before
    gave them: stacks by their numbers (ints), every array a tuple; a commodity's `block_when` a
    tuple of (option, block) pairs. A deck JSON cannot carry is still written as a display."""
    from fractions import Fraction

    from civdsl import codegen
    from civdsl.codegen import _trade_decks
    from civdsl.pysource import Writer

    for edition in ("megaciv", "expansion"):
        checked = check_file(shipped_rulebooks()[edition])
        source, code = generate_module(checked.edition, {f.display: f.text for f in checked.chain})
        assert "TRADE_DECKS = _rt.trade_decks((" in source
        module = types.ModuleType(f"civdsl_test_decks_{edition}")
        sys.modules[module.__name__] = module
        try:
            code.run(module.__dict__)
        finally:
            del sys.modules[module.__name__]
        displayed = tuple({"name": d.name, "players": (d.low, d.high), "block": d.block,
                           "stacks": {n: tuple({"cards": tuple((c, k) for c, k, _ in layer.cards), "clear": layer.clear}
                                               for layer in layers) for n, layers in d.stacks.items()},
                           "line": d.span.line} for d in checked.edition.trade_decks.values())
        assert displayed and repr(module.TRADE_DECKS) == repr(displayed)
        for name, com in checked.edition.commodities.items():
            assert module.COMMODITIES[name]["block_when"] == tuple((o.dotted, b) for o, b in com.block_when)
    deck = next(iter(check_file(shipped_rulebooks()["megaciv"]).edition.trade_decks.values()))
    layer = deck.stacks[next(iter(deck.stacks))][0]
    odd = dataclasses.replace(deck, stacks={1: [dataclasses.replace(layer, clear=Fraction(1, 2))]})
    codegen.forget_written()
    w = Writer("x")
    _trade_decks(w, types.SimpleNamespace(trade_decks={odd.name: odd}))
    assert "TRADE_DECKS = (" in w.lines and "Fraction(1, 2)" in "\n".join(w.lines)


def test_a_modifier_operation_changes_the_value_and_traces_it():
    for op, expected in (("add", 7), ("prevent", 3), ("cap", 2), ("set", 2)):
        trace = []
        assert runtime.change(trace, op, "damage", "amount", 2, 5, ("Pottery",), 9, "r.civ") == expected
        assert trace == [(op, "damage", "amount", 2, 5, expected, ("Pottery",), 9, "r.civ")]


def test_a_span_from_lark_positions_equals_the_one_built_the_ordinary_way():
    from pathlib import Path

    from civdsl.diagnostics import Span, span_of

    class Meta:
        def __init__(self, **kw):
            self.__dict__.update(kw)

    cases = [(Meta(line=3, column=4, end_line=3, end_column=9), Span("r.civ", 3, 4, 9)),
             (Meta(line=3, column=4, end_line=5, end_column=9), Span("r.civ", 3, 4, None)),
             (Meta(line=0, column=None, end_line=None, end_column=None), Span("r.civ", 1, 1, None)),
             (Meta(), Span("r.civ", 1, 1, None)),
             (Meta(line=7, column=2), Span("r.civ", 7, 2, None))]
    for meta, expected in cases:
        for path in ("r.civ", Path("r.civ")):
            got = span_of(path, meta)
            assert got == expected and hash(got) == hash(expected) and repr(got) == repr(expected)
            assert type(got.path) is str
    with pytest.raises(AttributeError):
        got.line = 5  # still frozen


def test_a_reference_built_without_init_equals_the_ordinary_one():
    import dataclasses

    from civdsl import references
    from civdsl.diagnostics import Span

    span = Span("a.civ", 3, 5, 9)
    args = ("name", "tax_rate", "ref", span, 1, "name", ("calamity", "Famine"), "modifier", None, "Famine", True, None)
    fast, slow = references._ref(*args), references.Ref(*args)
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.kind = "const"
    changed = references._with(fast, kind="const")
    assert changed == dataclasses.replace(slow, kind="const") and fast.kind == "name"
    assert references._ref(*args[:-1], part=object()) == slow  # `part` is not compared


def test_the_index_skips_leaves_but_finds_every_name():
    from civdsl import references
    from civdsl.syntax import Name, Num, Str, Where
    from civdsl.diagnostics import Span

    sp = Span("a.civ", 1, 1, 2)
    value = {"a": [Num(3, sp), Str("x", sp), (Name(("tax_rate",), sp), 4, None, True)], "b": sp,
             "c": Where(Name(("advances",), sp), Name(("cost",), sp), sp)}
    out: list = []
    indexer = references._FileIndexer.__new__(references._FileIndexer)
    indexer.file, indexer.out = 0, out
    indexer.expressions(value, ("", None), None, None, None)
    indexer.expressions(7, ("", None), None, None, None)
    assert sorted(r.name for r in out) == ["advances", "tax_rate"]  # `cost` is an attribute of the items


def test_house_rules_checked_in_a_row_index_their_base_once_with_the_same_answer():
    from civdsl import frontend, loader, references
    from civdsl.diagnostics import Diagnostics
    from civdsl.resources import shipped_house_rules

    rules = [p for p in shipped_house_rules() if p.stem in ("gentle", "granary")]
    chains = [loader.load_chain(p, Diagnostics()) for p in rules]
    assert chains[0][0].ast is chains[1][0].ast  # one syntax tree of the base (loader._PARSED)
    memo: dict = {}
    first, second = (references.index_chain(c, memo) for c in chains)
    base_uses = [r for r in second.refs if r.file == 0 and r.kind == "advance"]
    assert base_uses and all(any(r is q for q in first.refs) for r in base_uses[:20])  # reused
    fresh = references.index_chain(chains[1])
    assert second.refs == fresh.refs and second.declared == fresh.declared
    # the front end keeps such a memo: checking gives the same diagnostics either way
    frontend._INDEX_MEMO.clear()
    again = [frontend.check_file(p).diagnostics.render() for p in rules]
    frontend._INDEX_MEMO.clear()
    assert [frontend.check_file(p).diagnostics.render() for p in reversed(rules)][::-1] == again


def _functions_by_name(namespace: dict) -> dict:
    return {k: v.__code__ for k, v in namespace.items() if isinstance(v, types.FunctionType)}


@pytest.mark.parametrize("edition", ["megaciv", "cardgame", "civ1981"])
def test_a_module_compiled_by_definitions_runs_as_the_whole_module_would(edition):
    from civdsl import bytecode

    checked = check_file(shipped_rulebooks()[edition])
    source = generate(checked.edition, {f.display: f.text for f in checked.chain})
    whole: dict = {}
    parts: dict = {}
    for namespace, run in ((whole, lambda ns: exec(compile(source, "m.py", "exec"), ns)),
                           (parts, lambda ns: bytecode.compile_module(source, "m.py").compile_all().run(ns))):
        sys.modules["civdsl_test_parts"] = types.ModuleType("civdsl_test_parts")
        namespace["__name__"] = "civdsl_test_parts"
        try:
            run(namespace)
        finally:
            del sys.modules["civdsl_test_parts"]
    assert sorted(whole) == sorted(parts)
    assert whole["LINES"] == parts["LINES"] and whole["__doc__"] == parts["__doc__"]
    expected, got = _functions_by_name(whole), _functions_by_name(parts)
    assert expected.keys() == got.keys() and len(got) > 5
    for name, code in expected.items():
        # the same lines and locals; the instructions may differ only in how a call on an imported
        # module is looked up (the whole module's compiler knows `_rt` is an import, a part's does not)
        assert got[name].co_filename == "m.py" and got[name].co_firstlineno == code.co_firstlineno, name
        assert {line for *_, line in got[name].co_lines()} == {line for *_, line in code.co_lines()}, name
        assert got[name].co_varnames == code.co_varnames and got[name].co_flags == code.co_flags, name


def test_a_house_rule_compiles_only_what_differs_from_its_base(monkeypatch):
    from civdsl import bytecode

    bytecode.forget()
    base = check_file(shipped_rulebooks()["megaciv"])
    house = check_file(next(p for p in shipped_house_rules() if p.stem == "strict_credits"))
    base_source = generate(base.edition, {f.display: f.text for f in base.chain})
    house_source = generate(house.edition, {f.display: f.text for f in house.chain})
    bytecode.forget()  # generate() compiled both
    bytecode.compile_module(base_source, "base.py").compile_all()  # every function, as if each were called
    compiled: list[str] = []

    def counting(text, *args, **kwargs):
        compiled.append(text)
        return compile(text, *args, **kwargs)

    monkeypatch.setattr(bytecode, "compile", counting, raising=False)
    module = bytecode.compile_module(house_source, "house.py").compile_all()
    definitions = house_source.count("\ndef ")
    # only its own statements: the edition, its files and their hashes, the credit variant, the
    # lines map; every function and every data table is its base's
    assert 2 < len(compiled) < 12 < definitions
    assert all(len(text) < 2000 or text.startswith("LINE") for text in compiled), compiled
    assert not [text for text in compiled if text.startswith(("ADVANCES", "CALAMITIES", "def "))]
    assert all(p.co_filename == "house.py" for p in module.parts)
    bytecode.forget()
    assert len(bytecode.compile_module(house_source, "house.py").parts) == len(module.parts)


def test_a_syntax_error_in_generated_code_is_located_in_the_whole_module():
    from civdsl import bytecode

    source = "X = 1\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return (\n"
    with pytest.raises(SyntaxError) as caught:
        bytecode.compile_module(source, "bad.py")
    assert caught.value.filename == "bad.py" and caught.value.lineno >= 9


def _run_as_module(run, name: str) -> dict:
    namespace: dict = {"__name__": name}
    sys.modules[name] = types.ModuleType(name)
    try:
        run(namespace)
    finally:
        del sys.modules[name]
    return namespace


def _answer(resolution) -> str:
    """A calamity's answer but for the module it names (each namespace is a module of its own), as
    text (an unknown fact's value refuses to be compared)."""
    return repr(resolution[1:])


def test_a_function_compiled_on_its_first_call_becomes_the_function_the_whole_module_makes(monkeypatch):
    from civdsl import api, bytecode

    checked = check_file(shipped_rulebooks()["megaciv"])
    source = generate(checked.edition, {f.display: f.text for f in checked.chain})
    whole = _run_as_module(lambda ns: exec(compile(source, "m.py", "exec"), ns), "civdsl_test_whole")
    bytecode.forget()
    compiled: list[str] = []

    def counting(text, *args, **kwargs):
        compiled.append(text)
        return compile(text, *args, **kwargs)

    monkeypatch.setattr(bytecode, "compile", counting, raising=False)
    module = bytecode.compile_module(source, "m.py")
    deferred = _run_as_module(module.run, "civdsl_test_deferred")
    assert compiled and not [text for text in compiled if text.startswith("def ")]  # no function yet
    functions = _functions_by_name(whole)
    assert functions.keys() == _functions_by_name(deferred).keys() and len(functions) > 30
    from civdsl import vocabulary as vocab

    # every number and switch known, so that the answers compare without deciding on an unknown
    facts = {f.name: max(f.minimum or 0, 3) if f.type == "int" else False
             for f in vocab.FACTS.values() if f.type in ("int", "bool")}
    state = api.load("megaciv").state(holds=("Pottery", "Agriculture"), facts=facts)
    for calamity, function in deferred["CALAMITY_FUNCTIONS"].items():
        assert function is deferred[function.__name__]  # the table made before any call holds the same function
        before = len(compiled)
        assert _answer(function(state, "primary")) == _answer(whole["CALAMITY_FUNCTIONS"][calamity](state, "primary"))
        assert [text.split("(")[0] for text in compiled[before:]] == [f"def {function.__name__}"]  # this one only
        assert _answer(function(state, "secondary")) == _answer(whole["CALAMITY_FUNCTIONS"][calamity](state, "secondary"))
        assert len(compiled) == before + 1  # compiled once
        assert function is deferred[function.__name__]  # still the module's, now with its own code
        expected, got = functions[function.__name__], function.__code__
        # the same code as the whole module's, at the same lines of the same file
        assert got.co_filename == "m.py" and got.co_firstlineno == expected.co_firstlineno, calamity
        assert {line for *_, line in got.co_lines()} == {line for *_, line in expected.co_lines()}, calamity
        assert got.co_varnames == expected.co_varnames and got.co_flags == expected.co_flags, calamity
        assert function.__module__ == "civdsl_test_deferred" and function.__qualname__ == function.__name__
        assert function.__annotations__ == whole[function.__name__].__annotations__


@pytest.mark.parametrize("path", list(shipped_rulebooks().values()) + shipped_house_rules(), ids=lambda p: p.stem)
def test_every_function_of_a_shipped_module_waits_for_its_first_call_and_compiles(path):
    import ast

    from civdsl import bytecode

    checked = check_file(path)
    source, module = generate_module(checked.edition, {f.display: f.text for f in checked.chain}, "m.py")
    functions = [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]
    assert functions and [p[0] for p in module.parts if not isinstance(p, types.CodeType)] == functions
    every = module.compile_all()  # what a call of each would compile, here all at once
    assert all(isinstance(p, types.CodeType) and p.co_filename == "m.py" for p in every.parts)
    assert len(every.parts) == len(module.parts) == len(bytecode.compile_module(source, "m.py", deferred=False).parts)


def test_a_syntax_error_in_a_function_compiled_on_its_first_call_is_located_in_the_whole_module():
    from civdsl import bytecode

    source = ("from __future__ import annotations\n\n\ndef f() -> int:\n    return 1\n\n\n"
              "def g() -> int:\n    return (\n")
    module = bytecode.compile_module(source, "bad.py")
    assert sum(not isinstance(p, types.CodeType) for p in module.parts) == 2  # f and g: deferred
    namespace: dict = {}
    module.run(namespace)
    assert namespace["f"]() == 1
    with pytest.raises(SyntaxError) as caught:
        namespace["g"]()
    assert caught.value.filename == "bad.py" and caught.value.lineno >= 9
    with pytest.raises(SyntaxError) as caught:
        module.compile_all()
    assert caught.value.filename == "bad.py" and caught.value.lineno >= 9
    with pytest.raises(SyntaxError) as caught:  # compiled now, as compile() would
        bytecode.compile_module(source, "bad.py", deferred=False)
    assert caught.value.filename == "bad.py" and caught.value.lineno >= 9


@pytest.mark.parametrize("text", ["def f(x=1) -> int:\n    return x\n", "def f() -> int:\n    return 1\nf = 2\n",
                                  "def f(\n    x=1,\n) -> int:\n    return x\n", "def f() -> int: return 1\n"])
def test_a_definition_whose_running_does_more_than_bind_a_function_is_compiled_with_the_module(text):
    from civdsl import bytecode

    source = f"from __future__ import annotations\n\n\n{text}"
    module = bytecode.compile_module(source, "m.py")
    assert all(isinstance(p, types.CodeType) for p in module.parts)
    namespace: dict = {}
    module.run(namespace)
    whole: dict = {}
    exec(compile(source, "m.py", "exec"), whole)
    assert (namespace["f"] if isinstance(namespace["f"], int) else namespace["f"]()) == (
        whole["f"] if isinstance(whole["f"], int) else whole["f"]())


# house rules that change what a calamity function's text depends on, each in its own way: a
# constant the functions fold in, the edition's amount rules, one calamity's rules, the options
# (the compiler's settings), the calamities' order (their functions' names); and one that
# changes no calamity
_REUSE_CASES = {
    "constant": "const city_points = 4\n",
    "amounts": "amounts { bound none }\n",
    "one_calamity": 'change calamity "Tempest" { amounts { bound none "owed in full" } }\n',
    "option": 'option strict_test_switch "a switch" on\n',
    "order": ('remove calamity "Tempest"\nerrata CIV042 "24 calamities" "one fewer"\n'
              'errata CIV042 "8 minor calamities" "one fewer"\n'),
    "no_calamity": 'change advance "Pottery" { summary "Changed." }\n',
}


@pytest.mark.parametrize("case", sorted(_REUSE_CASES))
def test_a_house_rule_module_is_the_same_whether_or_not_its_base_was_generated_first(tmp_path, case):
    from civdsl import bytecode, codegen

    path = tmp_path / f"{case}.civ"
    path.write_text(f'language 1\nedition {case} "Test" extends megaciv\n{_REUSE_CASES[case]}', encoding="utf-8")
    chains = [check_file(p) for p in (shipped_rulebooks()["megaciv"], *shipped_house_rules(), path)]
    assert all(c.ok for c in chains), [c.diagnostics.render() for c in chains]

    def source(checked):
        return generate(checked.edition, {f.display: f.text for f in checked.chain})

    codegen.forget_written()
    after_others = [source(c) for c in chains]  # each house rule after its base and the others
    alone = []
    for checked in chains:
        codegen.forget_written()
        bytecode.forget()
        alone.append(source(checked))
    assert after_others == alone
    # and the base's functions were reused where nothing they depend on changed
    codegen.forget_written()
    source(chains[0])
    generated: list[str] = []
    real = codegen._calamity

    def counting(w, c, cal, fn, *rest):
        generated.append(cal.name)
        return real(w, c, cal, fn, *rest)

    codegen._calamity = counting
    try:
        source(chains[-1])
    finally:
        codegen._calamity = real
    total = len(chains[-1].edition.calamities)
    expected_fresh = {"constant": total, "amounts": total, "one_calamity": 1, "option": total, "order": total,
                      "no_calamity": 0}[case]
    assert len(generated) == expected_fresh, generated


def test_a_house_rule_writes_afresh_only_the_records_of_the_items_it_changes(tmp_path, monkeypatch):
    from civdsl import bytecode, codegen

    path = tmp_path / "pottery.civ"
    path.write_text('language 1\nedition pottery "Test" extends megaciv\n'
                    'change advance "Pottery" { summary "Changed." }\n', encoding="utf-8")
    base, house = check_file(shipped_rulebooks()["megaciv"]), check_file(path)
    assert base.ok and house.ok, house.diagnostics.render()

    def source(checked):
        return generate(checked.edition, {f.display: f.text for f in checked.chain})

    codegen.forget_written()
    bytecode.forget()
    alone = source(house)
    codegen.forget_written()
    source(base)
    written: list[str] = []
    for name in ("_advance_record", "_commodity_record"):
        real = getattr(codegen, name)
        monkeypatch.setattr(codegen, name, lambda item, real=real: written.append(item.name) or real(item))
    assert source(house) == alone
    # the base's advances and commodities are the house rule's very objects, but for the one it changes
    assert written == ["Pottery"]


def test_a_constant_equal_only_in_python_gets_its_own_function(tmp_path):
    """`const k = true` (a warning where a whole number is expected) folds in `True` where its
    base's `const k = 1` folds in `1`: equal in Python (True == 1), so the house rule's calamity
    function must not be the base's replayed, or its module would depend on what was generated
    before it in the process."""
    from civdsl import bytecode, codegen

    base = tmp_path / "base.civ"
    base.write_text('language 1\nedition base "B" extends megaciv\nconst k = 1\n'
                    'change calamity "Tempest" { primary { lose_treasury(k) } }\n', encoding="utf-8")
    (tmp_path / "house.civ").write_text('language 1\nedition house "H" extends "base.civ"\nconst k = true\n',
                                        encoding="utf-8")
    chains = [check_file(p) for p in (base, tmp_path / "house.civ")]
    assert all(c.ok for c in chains), [c.diagnostics.render() for c in chains]

    def source(checked):
        return generate(checked.edition, {f.display: f.text for f in checked.chain})

    codegen.forget_written()
    source(chains[0])
    after_base = source(chains[1])
    codegen.forget_written()
    bytecode.forget()
    alone = source(chains[1])
    assert after_base == alone
    assert "e0_amount = True" in alone


def test_the_floor_is_taken_on_the_locals_where_every_effect_is_in_the_list():
    """Famine's secondary victim with Pottery and Calendar: 5 damage, 10 prevented, floored to 0
    and traced at the calamity's line, without the runtime's pass over the effect list."""
    import civdsl

    rb = civdsl.load("megaciv")
    source = generate(check_file(shipped_rulebooks()["megaciv"]).edition, {})
    famine = source[source.index("def calamity_10_famine"):source.index("\ndef ", source.index("def calamity_10_famine"))]
    assert "floor_effects" not in famine and "< 0:" in famine
    answer = rb.resolve("Famine", "secondary", ["Pottery", "Calendar"])
    assert answer.amount("damage") == 0
    line = rb.module.CALAMITIES["Famine"]["line"]
    assert [t for t in answer.trace if t["op"] == "floor"] == [
        {"op": "floor", "kind": "damage", "param": "amount", "value": 0, "before": -5, "after": 0, "by": [],
         "path": "rulebooks/megaciv.civ", "line": line}]


def test_effects_a_branch_may_leave_out_are_floored_over_the_list():
    """Where an effect is conditional (or immune-wrapped, or counts a prevention apart) the floor
    stays the runtime's pass over the list the resolution gives."""
    source = generate(check_file(shipped_rulebooks()["expansion"]).edition, {})
    assert "_rt.floor_effects(" in source



def _parsed_expression(text: str):
    """The expression of `const x = TEXT` in a rulebook of its own."""
    from civdsl.diagnostics import Diagnostics
    from civdsl.loader import parse_text

    ast = parse_text(f'language 1\nedition t "T"\nconst x = {text}\n', "t.civ", Diagnostics())
    return next(item for item in ast.items if item.kind == "const").value[0]


@pytest.mark.parametrize("text, names, value", [
    ("1 + 2 * 3", {}, 7),
    ("7 // 2 + 7 / 2", {}, __import__("fractions").Fraction(13, 2)),
    ("-a + max(a, 4)", {"a": 3}, 1),
    ("not (a == 1) or a != 2", {"a": 1}, True),
    ("a == \"x\"", {"a": "x"}, True),
    ("false and missing", {}, False),  # the right side of a deciding `and` is never read
    ("true or missing", {}, True),
    ("unknown", {}, None),
])
def test_an_expression_evaluates_as_written_reading_only_what_decides(text, names, value):
    from civdsl.expressions import evaluate, evaluator

    expr = _parsed_expression(text)
    read = []

    def lookup(name):
        read.append(name.dotted)
        return names[name.dotted]

    assert evaluate(expr, lookup) == value and type(evaluate(expr, lookup)) is type(value)
    assert "missing" not in read
    made = evaluator(expr)  # made once, evaluated again and again with other names
    assert [made(lambda n: names[n.dotted], None) for _ in range(3)] == [value] * 3


@pytest.mark.parametrize("text, message", [
    ("a + b", "expected a number, got the text 'x'"),  # both sides read first, then checked
    ("1 / (b - b)", "division by zero"),
    ("sqrt(0 - 1)", "`sqrt` cannot be evaluated: math domain error"),
    ("count(a)", "`count` cannot be evaluated here"),
    ("a and b", "expected true or false, got the text 'x'"),
    ("999999999 * 999999999 * 999999999", "the number is too large (the limit is 10^18)"),
])
def test_an_expression_that_cannot_be_evaluated_says_why_at_its_place(text, message):
    from civdsl.expressions import EvalError, evaluate

    expr = _parsed_expression(text)
    with pytest.raises(EvalError) as raised:
        evaluate(expr, lambda name: {"a": "x", "b": 2}[name.dotted])
    assert str(raised.value) == message and raised.value.span.path == "t.civ"


def test_an_invariant_over_a_collection_makes_each_condition_evaluable_once(monkeypatch):
    """An author invariant evaluates its condition once per item: the condition is made into its
    evaluator once per validation, not once per item."""
    from civdsl import frontend, invariants

    made, evaluated = [], []
    make, evaluate = invariants.evaluator, invariants.ModelEvaluator.evaluate
    monkeypatch.setattr(invariants, "evaluator", lambda e: made.append(e) or make(e))
    monkeypatch.setattr(invariants.ModelEvaluator, "evaluate",
                        lambda self, *args: evaluated.append(args[0]) or evaluate(self, *args))
    frontend.forget()
    checked = check_file(shipped_rulebooks()["civ1980"])
    assert checked.ok and len(checked.edition.asserts) == 26
    assert len(evaluated) > 4 * len(made)  # each condition read for every advance, calamity or commodity
    assert len(made) == len({id(e) for e in made}) == len({id(e) for e in evaluated})
