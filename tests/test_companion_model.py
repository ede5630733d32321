"""MODEL travels in the page lighter (jsgen.js_model: its tables of records as rows of values,
field names once) and `modelRows` rebuilds it in JavaScript: `civdsl.model` must be exactly
`model_data(module)`, the same keys in the same order, for every shipped rulebook and for
names that are hard for JavaScript objects (`__proto__`, integer-like keys)."""

from __future__ import annotations

import json
import subprocess

import pytest

import civdsl
from civdsl.companion.jsgen import MODEL_ROWS_JS, _record_fields, js_json, js_model, model_data
from civdsl.resources import shipped_house_rules, shipped_rulebooks

from companion_harness import NODE, engine, node_available

needs_node = pytest.mark.skipif(not node_available(), reason="Node (apt-get install nodejs) runs the engines")


def _ordered(text: str):
    """JSON text with every object as its list of (key, value) pairs: order counts."""
    return json.loads(text, object_pairs_hook=list)


def _node(script: str, tmp_path) -> str:
    path = tmp_path / "model.js"
    path.write_text(script, encoding="utf-8")
    done = subprocess.run([NODE, str(path)], capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_tables_are_mappings_of_records_with_the_same_fields_in_the_same_order():
    assert _record_fields({"a": {"x": 1, "y": 2}, "b": {"x": 3, "y": None}}) == ["x", "y"]
    assert _record_fields({"a": {"x": 1, "y": 2}, "b": {"y": 3, "x": 4}}) is None  # order differs
    assert _record_fields({"a": {"x": 1}, "b": {"x": 1, "y": 2}}) is None
    assert _record_fields({"a": {"x": 1}}) is None                                   # one record: no gain
    assert _record_fields({"a": {}, "b": {}}) is None
    assert _record_fields({"a": {"x": 1}, "b": [1]}) is None
    assert _record_fields([{"x": 1}, {"x": 2}]) is None
    # records inside records of one shape travel as rows too, at any depth
    assert _record_fields({"a": {"x": {"p": 1, "q": {"r": 1}}, "y": {"p": 1}},
                           "b": {"x": {"p": 2, "q": {"r": None}}, "y": {"z": 1}}}) == [["x", ["p", ["q", ["r"]]]], "y"]


@needs_node
def test_model_rows_rebuild_hard_names_as_own_keys(tmp_path):
    data = {
        "T": {"__proto__": {"cost": 1, "__proto__": [1]}, "10": {"cost": 2, "__proto__": None},
              "2": {"cost": 3, "__proto__": {"a": 1}}, "constructor": {"cost": 4, "__proto__": "x"}},
        "PLAIN": {"a": 1, "b": [1, 2]},
        "MIXED": {"a": {"x": 1}, "b": {"y": 2}},
        "NESTED": {"a": {"__proto__": {"10": 1, "__proto__": {"k": [1]}}, "n": 1},
                   "b": {"__proto__": {"10": 2, "__proto__": {"k": None}}, "n": 2}},
        "EDITION": {"id": "x", "name": "</script><script>alert(1)</script>"},
    }
    # the same object JSON.parse makes of the plain JSON (JavaScript puts integer-like keys first
    # in both), with no key turned into a prototype
    out = _node(MODEL_ROWS_JS + f"\nconst M = {js_model(data)};\nconst P = {js_json(data)};\n"
                "process.stdout.write(JSON.stringify([JSON.stringify(M) === JSON.stringify(P), JSON.stringify(M),"
                " Object.getPrototypeOf(M.T) === Object.prototype,"
                " Object.getPrototypeOf(M.T.__proto__) === Object.prototype, Object.keys(M.T).length]));\n", tmp_path)
    same, text, plain_proto, record_proto, count = json.loads(out)
    assert same, text
    assert _ordered(text)[0][1][2] == ("__proto__", [("cost", 1), ("__proto__", [1])])
    assert plain_proto and record_proto and count == 4
    assert "<" not in js_model(data)


@needs_node
@pytest.mark.parametrize("rulebook", list(shipped_rulebooks()) + [str(p) for p in shipped_house_rules()],
                         ids=lambda r: r.rsplit("/", 1)[-1])
def test_the_engine_model_is_model_data(rulebook, tmp_path):
    module = civdsl.load(rulebook).module
    script = engine(rulebook) + "\nprocess.stdout.write(JSON.stringify(globalThis.civdsl.model));\n"
    expected = json.dumps(model_data(module), allow_nan=False)
    assert _ordered(_node(script, tmp_path)) == _ordered(expected)
    assert "modelRows(" in script  # the tables did travel as rows
