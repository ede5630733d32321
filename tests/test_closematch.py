"""The texts of the hints and messages, written once in the engine subset (closematch.py, texts.py,
plan/hand.py's --cards parsing): the closest name is difflib's answer exactly, and the page's
translation (py2es) answers as the Python does on the same inputs."""

from __future__ import annotations

import difflib
import json
import random
import re
import subprocess
import tempfile
from pathlib import Path

from hypothesis import given, settings, strategies as st
import pytest

from civdsl import closematch, texts
from civdsl.companion import py2es
from civdsl.plan.hand import card_count
from companion_harness import NODE, node_available

RUNTIME = Path(__file__).resolve().parent.parent / "civdsl" / "companion" / "runtime"
needs_node = pytest.mark.skipif(not node_available(), reason="node is not installed")

# names as players mistype them: a small alphabet, so that near misses are common
_NAMEISH = st.text(alphabet="aeimnorstAEMR -'é", max_size=14)


@settings(max_examples=400, deadline=None)
@given(_NAMEISH, _NAMEISH)
def test_the_ratio_is_difflibs(a, b):
    assert closematch.ratio(a, b) == difflib.SequenceMatcher(None, a, b).ratio()


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab c", min_size=200, max_size=260), st.text(alphabet="abc d", max_size=40))
def test_a_long_word_leaves_out_its_popular_characters_as_difflib_does(word, name):
    assert closematch.ratio(name, word) == difflib.SequenceMatcher(None, name, word).ratio()


@settings(max_examples=400, deadline=None)
@given(_NAMEISH, st.lists(_NAMEISH, max_size=8, unique=True))
def test_the_closest_name_is_get_close_matches(word, names):
    want = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    assert closematch.close_match(word, names) == (want[0] if want else None)


def test_a_tie_goes_to_the_greater_name_as_in_difflib():
    names = ["Mining", "Mixing"]  # both one letter from "Mizing"
    assert closematch.close_match("mizing", [n.lower() for n in names]) == "mixing"
    assert difflib.get_close_matches("mizing", ["mining", "mixing"], n=1) == ["mixing"]


def test_did_you_mean_matches_names_and_words():
    assert closematch.did_you_mean("potery", ["Pottery", "Mysticism"]) == "Pottery"
    assert closematch.did_you_mean("Astronomy", ["Pottery"]) is None
    assert closematch.did_you_mean_words("Volcano", ["Volcanic Eruption or Earthquake", "Flood"]) \
        == "Volcanic Eruption or Earthquake"


# --- --cards: the count and the name, as the regular expression that read them before --------------

_OLD_CARD = re.compile(r"^\s*(?:(\d+)\s*[x×*]?\s+)?(.*?)(?:\s*[x×*]\s*(\d+))?\s*$", re.I)


def _old_card_count(part: str) -> tuple:
    m = _OLD_CARD.match(part)
    count = int(m.group(1) or m.group(3) or 1) if m else 1
    return count, (m.group(2) if m else part).strip()


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=" \t\n\r\x1c\x85\u3000xX×*0937aG", max_size=10))
def test_a_card_entry_reads_as_the_regular_expression_read_it(part):
    assert card_count(part) == _old_card_count(part)


def test_a_card_entry_examples():
    assert card_count("Grain x3") == (3, "Grain")
    assert card_count("3 Grain") == (3, "Grain")
    assert card_count("3x Salt") == (3, "Salt")
    assert card_count("Oil*2") == (2, "Oil")
    assert card_count("Oil") == (1, "Oil")


# --- the page's translation answers as the Python does ------------------------------------------------

_DRIVER = r"""
const calls = JSON.parse(require("fs").readFileSync(0, "utf8"));
function dec(v) {
  if (Array.isArray(v)) return v.map(dec);
  if (v !== null && typeof v === "object" && "int" in v) return Number(v.int);
  if (v !== null && typeof v === "object" && "float" in v) return pf(Number(v.float));
  if (v !== null && typeof v === "object" && "dict" in v) return pyDict(v.dict.map(dec));
  return v;
}
const out = calls.map(([name, args]) => {
  try {
    const got = FUNCTIONS[name].apply(null, dec(args));
    return {ok: got === undefined ? null : got};
  } catch (exc) {
    return {error: exc instanceof RuleError ? exc.kind : exc instanceof UserError ? "StateError" : String(exc)};
  }
});
process.stdout.write(JSON.stringify(out));
"""

_FUNCTIONS = {"cm_did_you_mean": closematch.did_you_mean, "cm_did_you_mean_words": closematch.did_you_mean_words,
              "tx_hint_text": texts.hint_text, "tx_short_text": texts.short_text, "tx_value_text": texts.value_text,
              "tx_split_names": texts.split_names, "tx_casefolded": texts.casefolded, "hd_card_count": card_count}


def _enc(v):
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, (list, tuple)):
        return [_enc(x) for x in v]
    if isinstance(v, dict):
        return {"dict": [[_enc(k), _enc(x)] for k, x in v.items()]}
    raise TypeError(type(v))


def _node(calls: list) -> list:
    runtime = "\n".join((RUNTIME / n).read_text(encoding="utf-8") for n in ("core.js", "pylib.js"))
    table = "const FUNCTIONS = {" + ", ".join(f"{n}: {n}" for n in _FUNCTIONS) + "};\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.js"
        path.write_text('"use strict";\n' + runtime + "\n" + py2es.engine_source(ledger=False) + "\n" + table + _DRIVER,
                        encoding="utf-8")
        done = subprocess.run([NODE, str(path)], input=json.dumps([[n, _enc(a)] for n, a in calls]),
                              capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _python(fn, args):
    try:
        got = fn(*args)
        return {"ok": list(got) if isinstance(got, tuple) else got}
    except ValueError as exc:
        return {"error": type(exc).__name__}


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("aeimnorstAEMR -'éßﬁ\U0001d400") for _ in range(rng.randint(0, 12)))


def _value(rng: random.Random):
    return rng.choice([_word(rng), rng.randint(-10 ** 6, 10 ** 6), None, True, 2.5, [_word(rng), 3],
                       {_word(rng): rng.randint(0, 9)}, "x" * rng.randint(70, 90), "\U0001d400" * 79 + "ab",
                       "it's \"quoted\"\n\x07"])


@needs_node
def test_the_page_gives_the_same_hints_and_texts():
    rng = random.Random(25)
    calls = []
    for _ in range(150):
        names = [_word(rng) for _ in range(rng.randint(0, 6))]
        calls.append(("cm_did_you_mean", [_word(rng), names]))
        calls.append(("cm_did_you_mean_words", [_word(rng), names]))
        calls.append(("tx_hint_text", [_word(rng), names]))
        calls.append(("tx_short_text", [_value(rng)]))
        calls.append(("tx_value_text", [_value(rng)]))
        calls.append(("tx_split_names", [",".join(_word(rng) for _ in range(rng.randint(0, 4))) + " ,\u3000"]))
        calls.append(("tx_casefolded", [_word(rng)]))
        calls.append(("hd_card_count", ["".join(rng.choice(" \txX×*0937aG\n") for _ in range(rng.randint(0, 9)))]))
    got = _node(calls)
    for (name, args), answer in zip(calls, got):
        assert answer == _python(_FUNCTIONS[name], args), f"{name}{tuple(args)}"
