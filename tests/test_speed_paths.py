"""The pipeline's speed measures keep their meaning: the collector pause, compile() as the check."""

from __future__ import annotations

import gc
import sys
import types

import pytest

from civdsl import runtime
from civdsl.codegen import generate, generate_module
from civdsl.compiler import check_file
from civdsl.gcpause import paused
from civdsl.resources import shipped_rulebooks


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


def test_checking_a_rulebook_leaves_the_collector_on():
    assert check_file(shipped_rulebooks()["civ1980"]).ok
    assert gc.isenabled()


def test_generated_module_comes_with_its_bytecode_and_the_same_source():
    checked = check_file(shipped_rulebooks()["civ1980"])
    files = {f.display: f.text for f in checked.chain}
    source, code = generate_module(checked.edition, files, "where.py")
    assert isinstance(code, types.CodeType) and code.co_filename == "where.py"
    assert source == generate(checked.edition, files)
    module = types.ModuleType("civdsl_test_module")
    sys.modules[module.__name__] = module
    try:
        exec(code, module.__dict__)
    finally:
        del sys.modules[module.__name__]
    assert module.EDITION["id"] == "civ1980"
    assert module.LINES and all(isinstance(g, int) and isinstance(r, int) for g, r in module.LINES)


def test_line_map_reads_generated_and_rulebook_lines():
    assert runtime.line_map("12:40 15:41") == ((12, 40), (15, 41))
    assert runtime.line_map("") == ()
