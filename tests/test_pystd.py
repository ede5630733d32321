"""Python's library written in the engine subset (civdsl/pystd): each piece answers as the
standard library's does (Hypothesis against heapq, itertools, ...), and its translation (py2es)
answers in Node as the Python does on the same inputs."""

from __future__ import annotations

import heapq
import itertools
import json
import shlex
import random
import subprocess
import tempfile
from pathlib import Path

from hypothesis import given, settings, strategies as st
import pytest

from civdsl.companion import py2es
from civdsl.errors import StateError
from civdsl.pystd import heaps, iterate, reprs, shellwords
from companion_harness import NODE, node_available

RUNTIME = Path(__file__).resolve().parent.parent / "civdsl" / "companion" / "runtime"
needs_node = pytest.mark.skipif(not node_available(), reason="node is not installed")

# heap entries as the planner's are: tuples compared item by item, with ties on the first item
_ENTRIES = st.tuples(st.integers(-5, 5), st.integers(0, 3))
# a heap's operations: ("push", entry), ("pop",), ("replace", entry)
_OPS = st.lists(st.one_of(st.tuples(st.just("push"), _ENTRIES), st.tuples(st.just("pop")),
                          st.tuples(st.just("replace"), _ENTRIES)), max_size=40)


def _heap_run(lib, ops) -> tuple[list, list]:
    """The heap after OPS and what each pop or replace gave (an error as its class's name)."""
    heap: list = []
    given_back = []
    for op in ops:
        try:
            if op[0] == "push":
                lib.heappush(heap, op[1])
            elif op[0] == "pop":
                given_back.append(lib.heappop(heap))
            else:
                given_back.append(lib.heapreplace(heap, op[1]))
        except IndexError:
            given_back.append("IndexError")
    return heap, given_back


@settings(max_examples=500, deadline=None)
@given(_OPS)
def test_the_heap_is_heapqs_step_for_step(ops):
    # the same list, not only the same order of pops: equal entries end where heapq puts them
    assert _heap_run(heaps, ops) == _heap_run(heapq, ops)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-3, 3), max_size=7), st.integers(-1, 8))
def test_combinations_are_itertools(items, r):
    try:
        want = list(itertools.combinations(items, r))
    except ValueError:
        with pytest.raises(ValueError):
            list(iterate.combinations(items, r))
        return
    assert list(iterate.combinations(items, r)) == want


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(), max_size=4), max_size=5))
def test_chain_from_iterable_is_itertools(lists):
    assert list(iterate.chain_from_iterable(iter(x) for x in lists)) == list(itertools.chain.from_iterable(lists))


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.lists(st.integers(), max_size=4), st.tuples(st.integers(), st.text(max_size=2))), st.integers(-2, 5))
def test_a_list_repeated_is_pythons_times(items, times):
    assert iterate.repeated(items, times) == list(items * times)


def test_the_planner_runs_the_subsets_heap_and_combinations():
    """The engines import them from the subset (the command line runs the page's steps), not the
    standard library."""
    from civdsl.plan import purchase, search
    assert search.heappush is heaps.heappush and purchase.heapreplace is heaps.heapreplace
    assert search.combinations is iterate.combinations
    for module in (search, purchase):
        assert "heapq" not in vars(module) and "itertools" not in vars(module)


# the characters a state file may plausibly hold: printable ones, controls, separators, the format
# characters (bidi marks) and lone surrogates
_FORMAT = [0xAD, 0x180E, 0xFEFF, 0xFFF9, 0xFFFA, 0xFFFB, 0xD800, 0xDBFF, 0xDC00, 0xDFFF,
           *range(0x200B, 0x2010), *range(0x2028, 0x202F), *range(0x2060, 0x2065), *range(0x2066, 0x2070)]
_CHARS = st.one_of(st.characters(categories=("L", "N", "P", "S", "Zs", "Cc")), st.sampled_from([chr(c) for c in _FORMAT]),
                   st.sampled_from(list("'\"\\\n\r\t")))
_TEXTS = st.text(_CHARS, max_size=12)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 15, 10 ** 15), _TEXTS,
                     st.floats(allow_nan=True, allow_infinity=True), st.fractions(max_denominator=50))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(_TEXTS, inner, max_size=4)), max_leaves=12)


@settings(max_examples=600, deadline=None)
@given(_TEXTS)
def test_a_texts_repr_is_pythons(text):
    assert reprs.text_repr(text) == repr(text)


@settings(max_examples=400, deadline=None)
@given(_VALUES.filter(lambda v: "nan" not in repr(v)))
def test_a_values_repr_is_pythons(value):
    assert reprs.repr_of(value) == repr(value)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.just(set()), st.builds(lambda x: {x}, st.one_of(st.integers(), _TEXTS))))
def test_a_sets_repr_is_pythons(value):
    assert reprs.repr_of(value) == repr(value)


@settings(max_examples=400, deadline=None)
@given(_VALUES, st.integers(0, 4))
def test_dumps_is_json_dumps_as_the_command_line_prints(value, indent):
    assert reprs.dumps(value, indent) == json.dumps(value, indent=indent, ensure_ascii=False, default=str)


# typed lines: words, both quotes, backslashes, the white space shlex splits at and some it does not
_LINES = st.text(alphabet="ab \t\n\r'\"\\\xa0é", max_size=16)


@settings(max_examples=1500, deadline=None)
@given(_LINES)
def test_a_line_splits_as_shlex_splits_it(line):
    try:
        want = shlex.split(line)
    except ValueError as exc:
        with pytest.raises(ValueError, match=str(exc)):
            shellwords.split(line)
        return
    assert shellwords.split(line) == want


@settings(max_examples=500, deadline=None)
@given(_LINES)
def test_a_typed_line_is_refused_where_the_shell_would_refuse_it(line):
    try:
        want = shlex.split(line)
    except ValueError:
        with pytest.raises(StateError, match="a quote in the line is not closed|the line ends in a backslash"):
            shellwords.typed_words(line)
        return
    assert shellwords.typed_words(line) == want


def test_a_typed_line_names_its_mistake():
    assert shellwords.typed_words('choose anna "Civil War" beneficiary=bruno') == \
        ["choose", "anna", "Civil War", "beneficiary=bruno"]
    with pytest.raises(StateError, match="^a quote in the line is not closed$"):
        shellwords.typed_words("buy anna 'Drama and Poetry")
    with pytest.raises(StateError, match="^the line ends in a backslash, which escapes nothing$"):
        shellwords.typed_words("buy anna \\")


# --- the translation in Node against the Python ----------------------------------------------------

_DRIVER = r"""
const calls = JSON.parse(require("fs").readFileSync(0, "utf8"));
function heapRun(ops) {
  const heap = [], back = [];
  for (const op of ops) {
    try {
      if (op[0] === "push") hq_heappush(heap, op[1]);
      else if (op[0] === "pop") back.push(hq_heappop(heap));
      else back.push(hq_heapreplace(heap, op[1]));
    } catch (exc) {
      if (!(exc instanceof RuleError)) throw exc;
      back.push(exc.kind);
    }
  }
  return [heap, back];
}
const FUNCTIONS = {
  heap_run: heapRun,
  combinations: (items, r) => Array.from(it_combinations(items, r)),
  chain: (lists) => Array.from(it_chain_from_iterable(lists)),
  repeated: (items, times) => mul(items, times),
  repr_of: (value) => rp_repr_of(pyFromState(value)),
  dumps: (value, indent) => rp_dumps(pyFromState(value), indent),
  split: (line) => sw_split(line),
  typed_words: (line) => {
    try {
      return sw_typed_words(line);
    } catch (exc) {
      if (!(exc instanceof UserError)) throw exc;
      return "refused: " + exc.message;
    }
  },
};
const out = calls.map(([name, args]) => {
  try {
    return {ok: FUNCTIONS[name].apply(null, args)};
  } catch (exc) {
    if (!(exc instanceof RuleError)) throw exc;
    return {error: exc.kind};
  }
});
process.stdout.write(JSON.stringify(out));
"""


def _node(calls: list) -> list:
    runtime = "\n".join((RUNTIME / n).read_text(encoding="utf-8") for n in ("core.js", "pylib.js"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.js"
        path.write_text('"use strict";\n' + runtime + "\n" + py2es.library_source(ledger=True) + "\n" + _DRIVER, encoding="utf-8")
        done = subprocess.run([NODE, str(path)], input=json.dumps(calls), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _plain(v):
    """A Python answer as JSON gives it back (tuples as lists)."""
    return json.loads(json.dumps(v))


def _python(name: str, args: list):
    try:
        if name == "heap_run":
            return {"ok": _plain(_heap_run(heaps, [tuple(op[:1]) + tuple(tuple(x) for x in op[1:]) for op in args[0]]))}
        if name == "repr_of":
            return {"ok": reprs.repr_of(args[0])}
        if name == "dumps":
            return {"ok": reprs.dumps(*args)}
        if name == "split":
            return {"ok": shellwords.split(args[0])}
        if name == "typed_words":
            try:
                return {"ok": shellwords.typed_words(args[0])}
            except StateError as exc:
                return {"ok": f"refused: {exc}"}
        if name == "repeated":
            return {"ok": _plain(args[0] * args[1])}
        if name == "combinations":
            return {"ok": _plain(list(iterate.combinations(*args)))}
        return {"ok": _plain(list(iterate.chain_from_iterable(args[0])))}
    except ValueError:
        return {"error": "ValueError"}


def _random_text(rng: random.Random) -> str:
    pool = "aZ9 '\"\\\n\t\x00\x1f\x7f\xa0\xad\u200e\u2028\u3000\ufeffé€𝄞"
    return "".join(rng.choice(pool) for _ in range(rng.randint(0, 8)))


def _random_value(rng: random.Random, depth: int):
    """A value as a state or an answer holds (a float never whole: JSON would give it back an int)."""
    kind = rng.randrange(8 if depth else 5)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.randint(-10 ** 6, 10 ** 6)
    if kind == 2:
        return rng.choice([0.5, -2.25, 1e-07, 2.5e-20, 123456.789, 0.1])
    if kind in (3, 4):
        return _random_text(rng)
    if kind in (5, 6):
        return [_random_value(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    return {_random_text(rng): _random_value(rng, depth - 1) for _ in range(rng.randint(0, 3))}


def _random_calls(rng: random.Random) -> list:
    calls = []
    for _ in range(150):
        ops = [rng.choice([["push", [rng.randint(-4, 4), rng.randint(0, 2)]], ["pop"],
                           ["replace", [rng.randint(-4, 4), rng.randint(0, 2)]]]) for _ in range(rng.randint(0, 30))]
        calls.append(["heap_run", [ops]])
        calls.append(["combinations", [[rng.randint(0, 5) for _ in range(rng.randint(0, 6))], rng.randint(-1, 7)]])
        calls.append(["chain", [[[rng.randint(0, 9) for _ in range(rng.randint(0, 3))] for _ in range(rng.randint(0, 4))]]])
        calls.append(["repeated", [[rng.randint(0, 9) for _ in range(rng.randint(0, 3))], rng.randint(-1, 4)]])
        value = _random_value(rng, 3)
        calls.append(["repr_of", [value]])
        calls.append(["dumps", [value, rng.randint(0, 3)]])
        line = "".join(rng.choice("ab  \t'\"\\é𝄞") for _ in range(rng.randint(0, 12)))
        calls.append(["split", [line]])
        calls.append(["typed_words", [line]])
    return calls


@needs_node
@pytest.mark.parametrize("seed", [1, 2])
def test_the_translation_answers_as_the_python(seed):
    calls = _random_calls(random.Random(seed))
    for (name, args), got in zip(calls, _node(calls)):
        assert got == _python(name, args), f"{name}{tuple(args)}"


@needs_node
def test_the_pages_copy_declares_each_translated_helper_once():
    """A helper of the library that the page calls by an alias ($R for repr) is declared under its
    own name and aliased once: the page's copy of the engines is valid ES2017."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "engine.js"
        runtime = "\n".join((RUNTIME / n).read_text(encoding="utf-8") for n in ("core.js", "pylib.js"))
        path.write_text(runtime + "\n" + py2es.engine_source(short=True), encoding="utf-8")
        done = subprocess.run([NODE, "--check", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "function rp_repr_of(" in py2es.engine_source(short=True)
