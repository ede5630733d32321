"""The game file's text (civdsl/ledger/gametext.py), written and read once for the command line and
the page: every recorded game's text is what `text` writes and reads back to the same game in Python
and in Node (the translated module); random set-ups and events are written alike in both targets and
read back alike; random changes to a text are refused (or read) alike, with the same message at the
same line and column; PyYAML reads every text `text` writes to the same data; the fast path of
Python's `json` (eventjson.py) answers as gametext's own reader and writer. The Node half skips
without node.
"""

from __future__ import annotations

import json
import random
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from civdsl.companion import py2es, pymodules
from civdsl.ledger import eventjson, gamefile, gametext
from companion_harness import NODE, node_available
from ledger_harness import CODEC, encode

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "civdsl" / "companion" / "runtime"
GAMES = sorted((ROOT / "tests" / "games").glob("*.yaml"))
needs_node = pytest.mark.skipif(not node_available(), reason="node is not installed")
SETTINGS = settings(max_examples=150, database=None, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# characters that test the escapes: quotes, backslash, controls, C1 controls, the line and
# paragraph separators, YAML's signs, letters of other scripts and past the BMP
TRICKY = "a Zé\"\\\n\t\r\x00\x1f\x7f\x85\x9f\u2028\u2029\ufeff\ufffe\uffff:#-,[]{}'&*!|>%@` 0.9😀ß"
names = st.text(alphabet=st.sampled_from(list(TRICKY) + list("abcxyz")), max_size=12) | st.sampled_from(
    ["anna", "Anna Maria", "yes", "No", "true", "null", "7", "-1", "a: b", "# x", " lead", "trail ", "a  b",
     "civ1980", "rulebooks/house/x.civ", "Ägypten", "", "y", "ON"])
wholes = st.integers(-gametext.MAX_WHOLE, gametext.MAX_WHOLE) | st.integers(-3, 30)
scalars = st.none() | st.booleans() | wholes | names
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(names, inner, max_size=4),
                      max_leaves=12)
events = st.dictionaries(names, values, max_size=6)
setups = st.dictionaries(names.filter(lambda k: k != "events"), values | st.lists(st.dictionaries(names, scalars,
                                                                                                  max_size=3),
                                                                                  min_size=1, max_size=3),
                         max_size=6)


def _outcome(source: str, fast: bool = False):
    """What parse answers for SOURCE, as JSON both targets give: the data, or the refusal."""
    try:
        setup, evs, lines = gametext.parse(source, eventjson.event_values if fast else None)
    except gametext.TextError as exc:
        return {"refused": [str(exc), exc.line, exc.column]}
    return encode([setup, evs, lines])


def _written(setup, evs):
    try:
        return gametext.text(setup, evs)
    except gametext.TextError as exc:
        return {"refused": [str(exc), exc.line, exc.column]}


_DRIVER = CODEC + r"""
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
function attempt(f) {
  try {
    return f();
  } catch (exc) {
    if (exc instanceof gx_TextError) return {refused: [pyStr(exc), exc.line, exc.column]};
    return {crash: String(exc && exc.stack || exc)};
  }
}
const out = {
  parsed: input.texts.map((t) => attempt(() => {
    const [setup, evs, lines] = gx_parse(t);
    return enc([setup, evs, lines]);
  })),
  written: input.games.map(([setup, evs]) => attempt(() => gx_text(dec(setup), dec(evs)))),
};
process.stdout.write(JSON.stringify(out));
"""


def _node(texts: list[str], games: list) -> dict:
    runtime = "\n".join((RUNTIME / name).read_text(encoding="utf-8") for name in ("core.js", "pylib.js"))
    parts = [py2es.library_source()]
    for module in (m for m in py2es.ENGINE_MODULES if m in py2es.LEDGER_MODULES):
        origin, source = pymodules.module_text(module)
        parts.append(py2es.translate_source(source, Path(origin).name, py2es.ENGINE_MODULES[module], qualified=module))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "gametext.js"
        path.write_text(runtime + "\n" + "\n".join(parts) + "\n" + _DRIVER, encoding="utf-8")
        done = subprocess.run([NODE, str(path)], input=json.dumps({"texts": texts, "games": games}),
                              capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _mutations(source: str, rng: random.Random, count: int) -> list[str]:
    """COUNT random changes of SOURCE: a character deleted, inserted, replaced; a line doubled or
    dropped; two characters swapped."""
    out = []
    alphabet = list(TRICKY) + list("{}[]\":, -0123456789tfn\\u")
    for _ in range(count):
        chars = list(source)
        kind = rng.randrange(6)
        i = rng.randrange(len(chars))
        if kind == 0:
            del chars[i]
        elif kind == 1:
            chars.insert(i, rng.choice(alphabet))
        elif kind == 2:
            chars[i] = rng.choice(alphabet)
        elif kind == 3 and i + 1 < len(chars):
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        else:
            lines = "".join(chars).split("\n")
            j = rng.randrange(len(lines))
            lines[j:j + 1] = [lines[j]] * (2 if kind == 4 else 0)
            chars = list("\n".join(lines))
        out.append("".join(chars))
    return out


def _games():
    return [gamefile.read(p) for p in GAMES]


def test_every_recorded_game_is_the_text_gametext_writes():
    for path, gf in zip(GAMES, _games()):
        source = path.read_text(encoding="utf-8")
        assert gamefile.text(gf) == source, path.name
        setup, evs, lines = gametext.parse(source)
        assert evs == gf.events and lines == gf.lines, path.name
        assert yaml.safe_load(source) == {**setup, "events": evs}, path.name


def test_a_hand_edited_file_is_refused_where_it_departs_and_read_by_yaml_alike(tmp_path):
    source = GAMES[0].read_text(encoding="utf-8")
    edited = source.replace('"do": "next"}', '"do":"next"}', 1)
    line = source[: source.index('"do": "next"}')].count("\n") + 1
    with pytest.raises(gametext.TextError) as refused:
        gametext.parse(edited)
    assert (refused.value.line, refused.value.column) == (line, len(edited.splitlines()[line - 1]) - 6)
    assert "expected `: ` after the key, found `\"`" in str(refused.value)
    assert "civdsl game fmt FILE" in str(refused.value)
    (tmp_path / "g.yaml").write_text(edited, encoding="utf-8")
    assert gamefile.read(tmp_path / "g.yaml").events == gamefile.read(GAMES[0]).events


@pytest.mark.parametrize("name, written", [("anna", "anna"), ("Anna Maria", "Anna Maria"), ("yes", '"yes"'),
                                           ("7", '"7"'), ("a: b", '"a: b"'), ("# x", '"# x"'),
                                           (" lead", '" lead"'), ("Ägypten", '"Ägypten"'),
                                           ("a\x85b", '"a\\u0085b"'), ("q\"", '"q\\""')])
def test_a_name_in_the_set_up_is_quoted_only_where_yaml_needs_it(name, written):
    source = gametext.text({"civdsl_game": 1, "edition": name}, [])
    assert source.splitlines()[2] == f"edition: {written}"
    assert yaml.safe_load(source)["edition"] == name
    assert gametext.parse(source)[0]["edition"] == name


@pytest.mark.parametrize("line, message", [
    ('  - {"a": 1.5}', "expected a whole number (a game file holds no fractions), found `.`"),
    ('  - {"a": 9007199254740992}', "a whole number beyond 9,007,199,254,740,991"),
    ('  - {"a": 1, "a": 2}', "expected each key once (`a` again)"),
    ('  - {"a": "\\ud800"}', "expected the character as it is (or its short escape), not `\\u`"),
    ('  - {"a": "\\u00e9"}', "expected the character as it is (or its short escape), not `\\u`"),
    ('  - {"a": NaN}', "expected true, false, null or text in double quotes"),
    ('  - {"a": -0}', "expected a whole number as `0`"),
    ('  - {"a": 1}x', "expected the end of the line, found `x`"),
    ('  - {"a": "\x85"}', "expected the character written `\\u0085`, found the character U+0085"),
    ('  - [1]', "expected an event (`  - {`), found `[`"),
])
def test_json_that_both_targets_could_read_apart_is_refused(line, message):
    with pytest.raises(gametext.TextError) as refused:
        gametext.parse(f"{gametext.COMMENT}\nedition: x\nevents:\n{line}\n")
    assert message in str(refused.value)
    assert refused.value.line == 4
    assert eventjson.event_value(line[4:]) is None


def test_event_lines_that_join_into_other_events_are_refused_alike():
    """Two lines that are no events alone, but whose join reads as two events."""
    source = f'{gametext.COMMENT}\nevents:\n  - {{"a": "}}\n  - {{"}}, {{"b": 1}}\n'
    assert _outcome(source, fast=True) == _outcome(source)
    assert _outcome(source)["refused"][1:] == [3, 13]


def test_the_limits_are_refused_with_their_numbers():
    deep = "  - {\"a\": " + "[" * 20 + "]" * 20 + "}"
    with pytest.raises(gametext.TextError, match="nested deeper than 16"):
        gametext.parse(f"{gametext.COMMENT}\nevents:\n{deep}\n")
    with pytest.raises(gametext.TextError, match="longer than 1,000,000 characters"):
        gametext.parse("#" * (gametext.MAX_TEXT + 1))
    with pytest.raises(gametext.TextError, match="a line longer than 100,000 characters"):
        gametext.parse(f"{gametext.COMMENT}\nedition: \"{'x' * gametext.MAX_LINE}\"\nevents: []\n")
    with pytest.raises(gametext.TextError, match="`seed`: a whole number beyond"):
        gametext.text({"seed": 2 ** 60}, [])
    with pytest.raises(gametext.TextError, match="event 2: a value") as refused:
        gametext.text({}, [{}, {"a": 1.5}])
    assert refused.value.line == 4
    with pytest.raises(gametext.TextError, match="event 1: text with half of a character") as refused:
        gametext.text({"edition": "x"}, [{"do": "\ud800"}])
    assert refused.value.line == 4


@SETTINGS
@given(setups, st.lists(events, max_size=4))
def test_what_text_writes_parse_reads_back_and_yaml_reads_alike(setup, evs):
    source = _written(setup, evs)
    if isinstance(source, dict):
        return
    kept = {k: v for k, v in setup.items() if v is not None}
    assert gametext.parse(source) == (json.loads(json.dumps(kept)), json.loads(json.dumps(evs)),
                                      list(range(len(source.splitlines()) - len(evs) + 1,
                                                 len(source.splitlines()) + 1)))
    assert _outcome(source, fast=True) == _outcome(source)
    assert yaml.safe_load(source) == {**json.loads(json.dumps(kept)), "events": json.loads(json.dumps(evs))}


@SETTINGS
@given(events)
def test_the_json_fast_path_reads_what_gametext_writes_as_gametext(event):
    try:
        line = gametext.value_text(event, False)
    except gametext.TextError:
        return
    value = eventjson.event_value(line)
    assert value is None or value == json.loads(json.dumps(event))
    if line.isascii() and "\\" not in line and line.count("{") + line.count("[") <= gametext.MAX_DEPTH:
        assert value is not None  # the fast path is taken for the common line


def test_the_json_fast_path_reads_mutated_lines_as_gametext():
    rng = random.Random(27)
    lines = [line for gf in _games() for line in gamefile.text(gf).splitlines() if line.startswith("  - {")]
    for line in rng.sample(lines, 200):
        for changed in _mutations(line[4:], rng, 20):
            source = f"{gametext.COMMENT}\nevents:\n  - {changed}\n"
            assert _outcome(source, fast=True) == _outcome(source), changed


@pytest.mark.parametrize("number", [gametext.MAX_WHOLE, gametext.MAX_WHOLE + 1, -gametext.MAX_WHOLE - 1,
                                    10 ** 15 - 1, 10 ** 15, 10 ** 40, 10 ** 16 + 7])
def test_the_json_fast_path_reads_long_numbers_as_gametext(number):
    # a number with as many digits as MAX_WHOLE may exceed it: the fast path checks it then, alone
    # or among other lines, and reads it as gametext does (refused beyond MAX_WHOLE)
    line = f'{{"do": "census", "turn": 1, "cities": {number}}}'
    source = f"{gametext.COMMENT}\nevents:\n  - {{\"do\": \"next\"}}\n  - {line}\n"
    assert _outcome(source, fast=True) == _outcome(source)
    within = abs(number) <= gametext.MAX_WHOLE
    assert (eventjson.event_value(line) is not None) == within
    values = eventjson.event_values(['{"do": "next"}', line])
    assert (values[1] is not None and values[1]["cities"] == number) == within


def test_a_text_parse_reads_is_the_one_text_writes_for_what_it_reads():
    """The form is one text a game: whatever parse accepts, text writes back byte for byte."""
    rng = random.Random(5)
    sources = ["".join(GAMES[1].read_text(encoding="utf-8").splitlines(keepends=True)[:30]),
               gametext.text({"civdsl_game": 1, "edition": "Zoë: \"x\"", "options": {"a b": True, "yes": [1, None]},
                              "players": [{"name": "a"}, ["b", {}]], "seed": -3}, [{"a": {"b": ["\x85", ""]}}])]
    accepted = 0
    for source in sources:
        for changed in _mutations(source, rng, 400):
            assert _outcome(changed, fast=True) == _outcome(changed), changed
            try:
                setup, evs, _ = gametext.parse(changed)
            except gametext.TextError:
                continue
            accepted += 1
            assert gametext.text(setup, evs) == changed
    assert accepted > 20


@needs_node
def test_the_page_reads_and_writes_every_recorded_game_as_python():
    texts = [p.read_text(encoding="utf-8") for p in GAMES]
    games = [[encode({"civdsl_game": 1, **gf.setup}), encode(gf.events)] for gf in _games()]
    got = _node(texts, games)
    assert got["parsed"] == [_outcome(t) for t in texts]
    assert got["written"] == texts


@needs_node
def test_the_page_writes_random_games_and_refuses_changed_texts_as_python():
    collected: list = []

    @SETTINGS
    @given(setups, st.lists(events, max_size=3))
    def collect(setup, evs):
        collected.append((setup, evs))

    collect()
    rng = random.Random(3)
    written = [_written(s, e) for s, e in collected]
    texts = [w for w in written if isinstance(w, str)]
    head = "".join(GAMES[4].read_text(encoding="utf-8").splitlines(keepends=True)[:12])
    for source in texts[:60] + [head] * 10:
        texts.extend(_mutations(source, rng, 8))
    got = _node(texts, [[encode(s), encode(e)] for s, e in collected])
    assert got["written"] == written
    refused = 0
    for source, have in zip(texts, got["parsed"]):
        want = _outcome(source)
        refused += "refused" in want
        assert have == want, source
    assert refused > len(texts) // 3  # the mutations are refused, most of them
