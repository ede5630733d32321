"""The ledger's modules the page runs, translated by py2es, answer as Python does.

Every recorded game (tests/games/) is replayed in Python with its trade-card stacks watched: the
deal, every card drawn with a seed, taken by name, given back, and every turn's end. The same
calls are then made in Node on the translated stacks (`dk_deal`, `dk_Stacks`, `dr_Draws`), and
each answer and the stacks after each turn must be Python's. The seeded generator itself is
checked against Python on many seeds. The Node half skips without node.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import pytest

from civdsl.api import load
from civdsl.companion import py2es
from civdsl.ledger import decks, draws, gamefile, turn
from companion_harness import NODE, node_available
from ledger_harness import CODEC, REFUSED, calamity_choice_events, encode, game_events, js_game, python_game

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "civdsl" / "companion" / "runtime"
GAMES = sorted((ROOT / "tests" / "games").glob("*.yaml"))
needs_node = pytest.mark.skipif(not node_available(), reason="node is not installed")


_DRIVER = r"""
"use strict";
const fs = require("fs");
const games = JSON.parse(fs.readFileSync(0, "utf8"));
""" + CODEC + r"""
function snapshot(stacks) {
  return enc([stacks.layers, stacks.pending, stacks.to_data()]);
}
const out = games.map((g) => {
  const module = {};  // the compiled module's tables as its attributes, as engineModule() gives them
  for (const [name, table] of dec(g.module).items()) module[name] = table;
  const rngs = [];
  const answers = [];
  let stacks = null;
  try {
    for (const op of g.ops) {
      const [what, args] = [op[0], dec(op[1])];
      if (what === "deal") {
        stacks = dk_deal(module, args[0], args[1], args[2], args[3]);
        answers.push(stacks === null ? null : snapshot(stacks));
      } else if (what === "rng") {
        rngs.push(new dr_Draws(args[0]));
      } else if (what === "draw") {
        answers.push(enc(stacks.draw(args[0], args[1], rngs[args[2]])));
      } else if (what === "take") {
        answers.push(enc(stacks.take(args[0], args[1], args[2])));
      } else if (what === "give_back") {
        answers.push(enc(stacks.give_back(args[0], args[1], args[2], args[3])));
      } else if (what === "end_turn") {
        stacks.end_turn();
        answers.push(snapshot(stacks));
      }
    }
    answers.push(stacks === null ? null : snapshot(stacks));
  } catch (exc) {
    answers.push({crash: String(exc && exc.stack || exc)});
  }
  return answers;
});
process.stdout.write(JSON.stringify(out));
"""


def _ledger_js() -> str:
    runtime = "\n".join((RUNTIME / name).read_text(encoding="utf-8") for name in ("core.js", "pylib.js"))
    # every engine module: the ledger's call the others' (the hints of closematch.py, the texts of texts.py)
    return runtime + "\n" + py2es.engine_source(ledger=True)


def _run_node(payload, driver: str = _DRIVER) -> list:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ledger.js"
        path.write_text(_ledger_js() + driver, encoding="utf-8")
        done = subprocess.run([NODE, str(path)], input=json.dumps(payload), capture_output=True, text=True,
                              timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _snapshot(stacks) -> list:
    return encode([stacks.layers, stacks.pending, stacks.to_data()])


class _Watch:
    """The calls a replay makes on the game's stacks, with Python's answers."""

    def __init__(self, monkeypatch):
        self.ops: list = []
        self.answers: list = []
        self.rngs: dict[int, int] = {}
        self.kept: list = []  # the generators seen (their ids stay theirs)
        self.stacks = None
        watch = self
        deal, init = decks.deal, draws.Draws.__init__

        def watched_deal(module, players, blocks, seed, options=None):
            watch.stacks = deal(module, players, blocks, seed, options)
            watch.ops.append(["deal", encode([players, set(blocks), seed, options])])
            watch.answers.append(None if watch.stacks is None else _snapshot(watch.stacks))
            return watch.stacks

        def watched_init(rng, seed):
            init(rng, seed)
            watch.rngs[id(rng)] = len(watch.kept)
            watch.kept.append(rng)
            watch.ops.append(["rng", encode([str(seed)])])

        monkeypatch.setattr(decks, "deal", watched_deal)
        monkeypatch.setattr(turn, "deal", watched_deal)  # the name the turn's flow calls
        monkeypatch.setattr(draws.Draws, "__init__", watched_init)
        for name in ("draw", "take", "give_back", "end_turn"):
            monkeypatch.setattr(decks.Stacks, name, self._method(getattr(decks.Stacks, name), name))

    def _method(self, method, name):
        watch = self

        def watched(stacks, *args):
            answer = method(stacks, *args)
            if stacks is not watch.stacks:
                return answer  # a copy's (a refused event's): not the game's stacks
            if name == "draw":
                watch.ops.append(["draw", encode([args[0], args[1], watch.rngs[id(args[2])]])])
            else:
                watch.ops.append([name, encode(list(args))])
            watch.answers.append(_snapshot(stacks) if name == "end_turn" else encode(answer))
            return answer
        return watched


def _module_data(module) -> dict:
    """The compiled module's tables the stacks read (of each commodity, its block and the options
    that move it)."""
    commodities = {c: {"block": row.get("block"), "block_when": row.get("block_when")}
                   for c, row in module.COMMODITIES.items()}
    return {"TRADE_DECKS": list(getattr(module, "TRADE_DECKS", ())), "COMMODITIES": commodities,
            "CONSTS": dict(module.CONSTS), "TABLES": dict(module.TABLES), "OPTIONS": dict(module.OPTIONS)}


def test_every_recorded_game_draws_from_dealt_stacks():
    """The differential test below is about something: most recorded games keep stacks."""
    kept = [p.stem for p in GAMES if gamefile.replay(load(gamefile.read(p).setup["edition"]), gamefile.read(p)).stacks]
    assert len(kept) >= 4, kept


@needs_node
def test_the_translated_stacks_replay_every_recorded_game_as_python(monkeypatch):
    payload, expected = [], []
    for path in GAMES:
        with monkeypatch.context() as m:
            watch = _Watch(m)
            gf = gamefile.read(path)
            rb = load(gf.setup["edition"])
            game = gamefile.replay(rb, gf)
        assert [op[0] for op in watch.ops].count("deal") == 1, path.name
        payload.append({"module": encode(_module_data(rb.module)), "ops": watch.ops})
        expected.append(watch.answers + [None if game.stacks is None else _snapshot(game.stacks)])
    got = _run_node(payload)
    for path, want, have in zip(GAMES, expected, got):
        assert len(have) == len(want), (path.name, have[-1])
        for i, (a, b) in enumerate(zip(want, have)):
            assert a == b, f"{path.name}: answer {i} differs"


@needs_node
def test_the_translated_generator_draws_as_python():
    seeds = [0, 1, 7, "7:anna", "1259932357:chloe:buy", "", "é✓", 2 ** 31 - 1]
    rng = draws.Draws("seeds")
    seeds += [rng.randrange(2 ** 31 - 2) for _ in range(40)]
    sizes = [1, 2, 3, 7, 10, 100, 1000, 2 ** 30 + 1, 2 ** 31 - 2]
    want = []
    for s in seeds:
        r = draws.Draws(s)
        want.append([r.randrange(n) for n in sizes] + [r.weighted({"c": 5, "a": 1, "b": 0}),
                                                        r.sample(list(range(20)), 7)])
    script = _ledger_js() + r"""
const fs = require("fs");
const seeds = JSON.parse(fs.readFileSync(0, "utf8"));
const sizes = %s;
process.stdout.write(JSON.stringify(seeds.map((s) => {
  const r = new dr_Draws(s);
  return sizes.map((n) => r.randrange(n)).concat([r.weighted(pyDict([["c", 5], ["a", 1], ["b", 0]])),
    r.sample(pyList(pyRange(20)), 7)]);
})));
""" % json.dumps(sizes)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "draws.js"
        path.write_text(script, encoding="utf-8")
        done = subprocess.run([NODE, str(path)], input=json.dumps(seeds), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == want


def test_a_draw_is_uniform_and_refuses_nothing_to_draw_from():
    r = draws.Draws("uniform")
    counts = [0] * 6
    for _ in range(6000):
        counts[r.randrange(6)] += 1
    assert all(850 < c < 1150 for c in counts), counts  # each within 5 standard deviations of 1,000
    with pytest.raises(draws.NoDraw):
        r.randrange(0)
    with pytest.raises(draws.NoDraw):
        r.randrange(2 ** 31 - 1)  # past the span: no uniform draw (never a loop without end)
    with pytest.raises(draws.NoDraw):
        r.weighted({"a": 0})
    assert sorted(r.sample(list(range(10)), 10)) == list(range(10))
    assert draws.Draws("7:anna").randrange(1000) == draws.Draws("7:anna").randrange(1000)
    assert draws.Draws("7:anna").randrange(10 ** 6) != draws.Draws("7:bruno").randrange(10 ** 6)


_PLAYERS_DRIVER = r"""
"use strict";
const games = JSON.parse(require("fs").readFileSync(0, "utf8"));
""" + CODEC + r"""
process.stdout.write(JSON.stringify(games.map((g) => {
  const [pieces, facts] = [dec(g.pieces), dec(g.game)];
  return g.players.map((args) => {
    const p = new lp_Player(...dec(args));
    const copy = p.copy();
    const cards = pySorted(p.cards, null, false);
    copy.take_cards(cards);
    copy.give_cards(cards.concat(cards));
    return enc([p.to_data(), p.facts(pieces, facts), p.card_count(), p.tokens_in_stock(pieces), copy.to_data(),
                p.to_data()]);
  });
})));
"""


def _player_args(p) -> list:
    return [p.name, p.civilization, p.cities, p.tokens, p.ships, p.treasury, p.ast_position, list(p.advances),
            dict(p.cards), [list(c) for c in p.calamities], p.left]


@needs_node
def test_the_translated_players_read_every_recorded_games_players_as_python():
    """Each player at the end of each recorded game: his facts for a rule, his stock, his data,
    and a copy whose hand changes while his does not."""
    payload, expected = [], []
    for path in GAMES:
        gf = gamefile.read(path)
        game = gamefile.replay(load(gf.setup["edition"]), gf)
        pieces, facts = game.pieces, game.game_facts()
        payload.append({"pieces": encode(pieces), "game": encode(facts),
                        "players": [encode(_player_args(p)) for p in game.players.values()]})
        rows = []
        for p in game.players.values():
            copy = p.copy()
            cards = sorted(p.cards)
            copy.take_cards(cards)
            copy.give_cards(cards + cards)
            rows.append(encode([p.to_data(), p.facts(pieces, facts), p.card_count(), p.tokens_in_stock(pieces),
                                 copy.to_data(), p.to_data()]))
        expected.append(rows)
    assert _run_node(payload, _PLAYERS_DRIVER) == expected


def test_the_ledgers_modules_are_engine_modules_joined_only_where_asked():
    """A page that keeps no games carries none of the ledger's code (its weight unchanged); the
    whole translation, which Node and the subset's tests read, has every one."""
    assert py2es.LEDGER_MODULES <= set(py2es.ENGINE_MODULES)
    without, whole = py2es.engine_source(ledger=False), py2es.engine_source()
    for module in py2es.LEDGER_MODULES:
        prefix = py2es.ENGINE_MODULES[module]
        assert f" {prefix}_" not in without and f"// {module}\n" not in without, module
        assert f"// {module}\n" in whole and (f"class {prefix}_" in whole or f"function {prefix}_" in whole), module


# typed events: every reader of words.py, its refusals, and what a player mistypes
_TYPED = [
    "next", "next now", "census anna cities=3 tokens=12 ships=1", "census anna cities=3 boats=2", "census anna cities=x",
    "census anna cities=1234567890", "census anna cities=²", "census anna cities", "census", "cencus anna",
    "draw anna Ochre Papyri Fish", "draw anna seed=7", "draw anna seed=x", "draw anna Salt*3 Gold*0 Wax*101 *2 Iron*",
    "buy-cards anna Gold", "buy-cards anna stack=9 seed=4", "buy-cards anna stack=9,,3 seed=4", "buy-cards anna stack=",
    "buy-cards anna stack=9 Gold", "trade anna Ochre Salt Wax for bruno Flax Iron Tempest", "trade anna Ochre for",
    "trade anna Ochre bruno Flax", "trade anna for bruno", "choose anna Epidemic secondary=bruno:10,eva:5",
    "choose anna Tempest tokens=2", "choose anna land=bruno", "choose anna volcano_cities=1 coast=north",
    "choose anna Banditry given=bruno:Hides,chloe:Salt*2", "choose anna Banditry given=bruno", "choose anna given=:Salt",
    "choose anna Epidemic secondary=bruno,eva beneficiary=chloe", "choose anna Epidemic Flood",
    "choose bruno Epidemic occurrence=2 cities=1 tokens=5", "choose anna cards=Ochre,Salt*2 water=eva,,bruno near=",
    "choose anna secondary=bruno:x", "buy anna Pottery Mysticism pay Ochre*3 Salt treasury 5", "buy anna Pottery treasury",
    "buy anna Pottery treasury 5 pay Salt", "buy anna pay", "buy anna Pottery treasury five",
    "discard anna Ochre", "discard anna", "ast anna forward", "ast anna", "ast anna back now", "leave anna",
    "leave anna now", "Census anna", "buy_cards anna Gold", "trade", "choose",
]
_TOKENS = ["anna", "bruno", "Ochre", "Salt*2", "for", "pay", "treasury", "5", "seed=3", "stack=1,2", "cities=2",
           "tokens=x", "secondary=bruno:3", "given=bruno:Salt", "land=eva", "occurrence=1", "Epidemic", "=", "*", "",
           "x=", "ships=0", "é✓", "forward"]
_KINDS = ["census", "draw", "buy-cards", "trade", "choose", "buy", "discard", "ast", "leave", "next", "nxet"]


def _typed_events() -> list[list[str]]:
    import random

    rng = random.Random(27)
    out = [t.split() for t in _TYPED]
    for _ in range(400):
        out.append([rng.choice(_KINDS)] + [rng.choice(_TOKENS) for _ in range(rng.randint(0, 6))])
    return out


def _parsed(words: list[str]):
    from civdsl.ledger import words as typed
    from civdsl.ledger.refusals import Refused

    try:
        event, at = typed.parse(words)
    except Refused as exc:
        return {"refused": [exc.code, str(exc), exc.field, exc.choices]}
    return encode([event, at])


_WORDS_DRIVER = r"""
"use strict";
const typed = JSON.parse(require("fs").readFileSync(0, "utf8"));
""" + CODEC + r"""
process.stdout.write(JSON.stringify({
  parsed: typed.events.map((words) => {
    try {
      return enc(wd_parse(words));
    } catch (exc) {
      if (!(exc instanceof rf_Refused)) return {crash: String(exc && exc.stack || exc)};
      return {refused: [exc.code, pyStr(exc), exc.field, exc.choices]};
    }
  }),
  split: enc(wd_split_events(typed.line)),
  columns: enc(wd_columns(typed.line)),
}));
"""


def test_a_typed_number_is_read_in_the_digits_0_to_9_only():
    """`²` is a digit to str.isdigit but not a number int() reads: a refusal, never a crash."""
    from civdsl.ledger import words as typed
    from civdsl.ledger.refusals import Refused

    with pytest.raises(Refused, match="`cities` needs a whole number, not `²`"):
        typed.parse("census anna cities=²".split())
    assert typed.parse("draw anna Salt*²".split())[0]["cards"] == ["Salt*²"]


@needs_node
def test_the_translated_words_read_typed_events_as_python():
    """Every event as typed (the readers, their refusals with their messages and the word they
    point at, random mistypings), and a `game add` line split at its separators, as Python reads them."""
    from civdsl.ledger import words as typed

    events = _typed_events()
    line = "census anna cities=3 / next / / draw anna seed=2 /".split()
    got = _run_node({"events": events, "line": line}, _WORDS_DRIVER)
    assert len(got["parsed"]) == len(events)
    for words, have in zip(events, got["parsed"]):
        assert have == _parsed(words), " ".join(words)
    assert got["split"] == encode(typed.split_events(line))
    assert got["columns"] == encode(typed.columns(line))
    refused = sum("refused" in p for p in got["parsed"])
    assert 20 < refused < len(events) - 20, refused  # both verdicts are exercised


@needs_node
@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_the_translated_ledger_replays_each_recorded_game_as_python(path, monkeypatch):
    setup, want = python_game(path)
    gf = gamefile.read(path)
    have, _ = js_game(gf.setup["edition"], setup, game_events(path))
    assert "crash" not in have[-1], have[-1]["crash"]
    for i, (a, b) in enumerate(zip(want, have)):
        assert b == a, f"{path.name}: after event {i} (0: the start) the page's game differs"
    assert len(have) == len(want)
    applied = [a for a in want if isinstance(a, list)]
    assert len(applied) >= 20 and sum("refused" in a for a in want if isinstance(a, dict)) >= len(REFUSED)
    print(f"{path.stem}: {len(applied) - 1} of {len(gf.events)} events applied alike, then {want[-1]}")


@needs_node
@pytest.mark.parametrize("path", GAMES[:3], ids=[p.stem for p in GAMES[:3]])
def test_the_translated_ledger_answers_random_events_as_python(path, monkeypatch):
    """Random events (any player, any cards, counts past the pieces) mixed into a recorded game:
    applied or refused, the page's game stays Python's."""
    setup, want = python_game(path, mixed=120)
    have, _ = js_game(gamefile.read(path).setup["edition"], setup, game_events(path, mixed=120))
    assert "crash" not in have[-1], have[-1]["crash"]
    for i, (a, b) in enumerate(zip(want, have)):
        assert b == a, f"{path.name}: after event {i} (0: the start) the page's game differs"
    assert len(have) == len(want)
    kinds = {a["refused"][1].split(" ")[0] for a in want if isinstance(a, dict) and "refused" in a}
    assert len(kinds) >= 5, kinds  # refusals of several kinds, not one repeated


@needs_node
@pytest.mark.parametrize("path", [p for p in GAMES if p.stem != "megaciv-18"],
                         ids=[p.stem for p in GAMES if p.stem != "megaciv-18"])
def test_the_translated_calamity_step_takes_random_choices_as_python(path):
    """Random choices for the calamities (secondary victims, beneficiaries, cities and tokens, cards
    discarded or given, facts of the map, borders) at every calamity step of a recorded game: each
    accepted or refused alike, and each step resolved with them (or refused, naming what it needs)
    alike, so the states after it are Python's."""
    events = calamity_choice_events(path)
    setup, want = python_game(path, events=events)
    have, _ = js_game(gamefile.read(path).setup["edition"], setup, events)
    assert "crash" not in have[-1], have[-1]["crash"]
    for i, (a, b) in enumerate(zip(want, have)):
        assert b == a, f"{path.name}: after event {i} (0: the start) the page's game differs"
    assert len(have) == len(want)
    chosen = [a for e, a in zip(events, want[1:]) if e.get("do") == "choose" and e.get("turn") is None]
    refused = [a for a in chosen if isinstance(a, dict)]
    assert len(refused) >= 10 and len(chosen) - len(refused) >= 10, (len(chosen), len(refused))


_CHECK_DRIVER = r"""
"use strict";
const files = JSON.parse(require("fs").readFileSync(0, "utf8"));
""" + CODEC + r"""
process.stdout.write(JSON.stringify(files.map((data) => {
  try {
    const [setup, events] = gc_checked(dec(data));
    return enc([setup, events.length]);
  } catch (exc) {
    if (!(exc instanceof gc_GameFileError)) return {crash: String(exc && exc.stack || exc)};
    return {refused: [pyStr(exc), exc.line, exc.code, exc instanceof UserError]};
  }
})));
"""


def _game_file_data() -> list:
    """Every game file the tests hold (the recorded games and the hostile ones) as its reader gives
    it, where the reader takes it (a file the YAML reader refuses is the host's, not the checks')."""
    from civdsl.state import _parse_text

    out = []
    for path in GAMES + sorted((ROOT / "tests" / "hostile").glob("game_*.yaml")):
        try:
            out.append((path.name, _parse_text(path.read_text(encoding="utf-8"), path)))
        except Exception:  # the reader's own refusal (too deep, an alias bomb): not a check's
            continue
    variants = [{"civdsl_game": 1, "edition": "megaciv", "players": [{"name": " \xa0"}]},
                {"civdsl_game": 1, "edition": "megaciv", "players": [{"name": "a"}], "seed": True},
                {"civdsl_game": 1, "edition": "megaciv", "players": [{"name": "a"}], "events": [None]},
                {"civdsl_game": 1, "edition": "megaciv", "players": [{"name": "a"}], "options": [1]},
                {"civdsl_game": 1, "edition": "megaciv", "players": [{"name": "a"}], "edtion": 3},
                [1, 2], None, "text", 3.5]
    return out + [(f"variant {i}", v) for i, v in enumerate(variants)]


@needs_node
def test_the_translated_game_file_checks_refuse_as_python():
    """Every game file the tests hold and a few broken ones: the page's checks accept the same
    set-ups and refuse the others with the same message, line and code (CIV144, CIV145)."""
    from civdsl.ledger import gamecheck

    files = _game_file_data()
    want = []
    for _, data in files:
        try:
            setup, events, _ = gamecheck.checked(data)
            want.append(encode([setup, len(events)]))
        except gamecheck.GameFileError as exc:
            want.append({"refused": [str(exc), exc.line, exc.code, True]})
    have = _run_node([encode(data) for _, data in files], _CHECK_DRIVER)
    for (name, _), a, b in zip(files, want, have):
        assert b == a, name
    assert sum("refused" in a for a in want if isinstance(a, dict)) >= 8 and sum(isinstance(a, list) for a in want) >= 5
