"""`civdsl game` on the command line: a short game from `game new` to the final state, undo,
time travel, JSON, the one-turn questions on a game file, the schema, and hostile game files
(tests/hostile/game_*.yaml: each starts `# expect: TEXT`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import run_cli

from civdsl.ledger import gamefile

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = sorted((ROOT / "tests" / "hostile").glob("game_*.yaml"))
GAMES = sorted((ROOT / "tests" / "games").glob("*.yaml"))


def test_a_short_game_from_new_to_undo(tmp_path):
    game = tmp_path / "g.yaml"
    made = run_cli("game", "new", "megaciv", "--players", "anna:Egypt,bruno:Assyria,chloe:Minoa,dario:Hellas,eva:Hatti",
                  "--ast", "basic", "-o", game)
    assert made.returncode == 0, made.stderr
    assert "start credits: 10 in every group" in made.stdout  # chapter 4, five players
    added = run_cli("game", "add", game, "census", "anna", "cities=2", "tokens=8", "/", "next")
    assert added.returncode == 0, added.stderr
    assert "anna: census: cities 0 -> 2, tokens 0 -> 8  [rulebooks/megaciv.civ:" in added.stdout
    shown = run_cli("game", "show", game, "--player", "anna")
    assert "anna (Egypt): 2 cities, 8 tokens (47 in stock)" in shown.stdout
    assert "this step takes: census" in shown.stdout  # Movement takes map outcomes too
    data = json.loads(run_cli("game", "show", game, "--json").stdout)
    assert (data["turn"], data["step"], data["step_name"]) == (1, 3, "Movement")
    assert run_cli("game", "show", game, "--event", "1", "--json").returncode == 0
    before = json.loads(run_cli("game", "show", game, "--event", "0", "--json").stdout)
    assert before["players"][0]["cities"] == 0
    assert run_cli("game", "undo", game).returncode == 0
    assert len(gamefile.read(game).events) == 1
    assert run_cli("game", "new", "megaciv", "--players", "anna", "-o", game).returncode == 2  # never overwrites


def test_game_new_needs_a_track_where_the_edition_has_several(tmp_path):
    proc = run_cli("game", "new", "megaciv", "--players", "anna:Egypt", "-o", tmp_path / "g.yaml")
    assert proc.returncode == 2 and "--ast" in proc.stderr


def test_the_time_travel_of_show_by_turn():
    path = next(p for p in GAMES if p.stem == "megaciv-5")
    data = json.loads(run_cli("game", "show", path, "--turn", "3", "--json").stdout)
    assert data["turn"] == 4 and data["step"] <= 2


@pytest.mark.parametrize("command", ["score", "epoch", "plan"])
def test_the_one_turn_questions_read_a_player_of_a_game_file(command):
    path = next(p for p in GAMES if p.stem == "megaciv-5")
    proc = run_cli(command, "megaciv", "--state", path, "--player", "anna", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    shown = json.loads(run_cli("game", "show", path, "--json").stdout)
    anna = next(p for p in shown["players"] if p["name"] == "anna")
    if command == "score":
        assert json.loads(proc.stdout)["points"][0]["points"] == anna["cities"]
    wrong = run_cli(command, "megaciv", "--state", path, "--player", "zed")
    assert wrong.returncode == 1 and "no player `zed`" in wrong.stderr


# what each one-turn question asks besides the rulebook and the player
ASKED = {"score": [], "epoch": [], "plan": [], "cost": ["--buy", "Law"], "resolve": ["Famine"], "hand": []}


@pytest.mark.parametrize("command", list(ASKED))
def test_a_game_file_in_the_rulebook_place_asks_with_its_own_edition(command):
    path = next(p for p in GAMES if p.stem == "civ1981-5")
    named = run_cli(command, "civ1981", *ASKED[command], "--state", path, "--player", "chloe", "--json")
    alone = run_cli(command, path, *ASKED[command], "--player", "chloe", "--json")
    assert named.returncode == alone.returncode and not alone.stderr
    assert json.loads(alone.stdout) == json.loads(named.stdout)
    both = run_cli(command, path, *ASKED[command], "--state", path, "--player", "chloe")
    assert both.returncode == 2 and "not both" in both.stderr


@pytest.mark.parametrize("command", list(ASKED))
def test_a_game_of_another_edition_is_refused_not_replayed_under_the_wrong_rules(command):
    path = next(p for p in GAMES if p.stem == "civ1981-5")
    proc = run_cli(command, "expansion", *ASKED[command], "--state", path, "--player", "anna")
    assert proc.returncode == 2
    assert "is a game of civ1981, not of expansion" in proc.stderr


@pytest.mark.parametrize("command", ["epoch", "plan"])
def test_a_game_file_without_a_player_names_its_players(command):
    path = next(p for p in GAMES if p.stem == "civ1981-5")
    proc = run_cli(command, path)
    assert proc.returncode == 2
    assert "add --player NAME (players: anna, bruno, chloe, dario, eva)" in proc.stderr


def test_score_of_a_game_file_ranks_every_player_with_the_tie_breakers_of_a_tie():
    path = next(p for p in GAMES if p.stem == "megaciv-5")
    table = run_cli("score", path, "--json")
    assert table.returncode == 0, table.stderr
    rows = json.loads(table.stdout)["players"]
    assert sorted(r["player"] for r in rows) == ["anna", "bruno", "chloe", "dario", "eva"]
    for row in rows:  # each total is the player's own answer
        own = json.loads(run_cli("score", path, "--player", row["player"], "--json").stdout)
        assert row["total"] == own["total"]
    totals = [r["total"] for r in rows]
    assert totals == sorted(totals, reverse=True)
    text = run_cli("score", path).stdout.splitlines()
    assert [line.split(":")[0].strip() for line in text] == [f"{i}. {r['player']}" for i, r in enumerate(rows, 1)]
    tied = [line for line, r in zip(text, rows) if totals.count(r["total"]) > 1]
    alone = [line for line, r in zip(text, rows) if totals.count(r["total"]) == 1]
    assert tied and all("tie-break" in line for line in tied)  # bruno and anna: 62 each
    assert alone and not any("tie-break" in line for line in alone)
    # the first tie-breaker that differs orders them: the total price of the advances held
    first, second = [r for r in rows if totals.count(r["total"]) > 1]
    differ = next(a["value"] for a, b in zip(first["tiebreaks"], second["tiebreaks"]) if a["value"] != b["value"])
    assert differ > next(b["value"] for a, b in zip(first["tiebreaks"], second["tiebreaks"]) if a["value"] != b["value"])


def test_the_schema_file_is_derived_and_every_recorded_game_follows_it():
    import jsonschema
    import yaml

    schema = json.loads((ROOT / "schemas" / "game.schema.json").read_text(encoding="utf-8"))
    assert schema == gamefile.game_schema()
    for path in GAMES:
        jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), schema)


@pytest.mark.parametrize("path", HOSTILE, ids=[p.stem for p in HOSTILE])
def test_a_hostile_game_file_gets_a_clear_error(path):
    expect = path.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0].removeprefix("# expect: ")
    for command in (["game", "show", path], ["game", "add", path, "next"]):
        before = path.read_bytes()
        proc = run_cli(*command)
        assert proc.returncode == 1, (command, proc.stdout, proc.stderr)
        assert expect in proc.stderr
        assert path.read_bytes() == before


def test_a_game_file_over_the_size_limit_is_refused_unread(tmp_path):
    path = tmp_path / "huge.yaml"
    head = "civdsl_game: 1\nedition: megaciv\nplayers:\n- {name: anna, civilization: Egypt}\nevents:\n"
    path.write_text(head + '  - {"turn": 1, "step": 2, "do": "next"}\n' * 40_000, encoding="utf-8")
    proc = run_cli("game", "show", path)
    assert proc.returncode == 1 and "larger than" in proc.stderr


def test_an_error_in_json_mode_is_one_object_with_its_diagnostic():
    path = ROOT / "tests" / "hostile" / "game_unknown_player.yaml"
    proc = run_cli("game", "show", path, "--json")
    assert proc.returncode == 1 and proc.stderr == ""
    data = json.loads(proc.stdout)
    assert data["error"]["diagnostics"][0]["code"] == "CIV142"
    assert data["error"]["diagnostics"][0]["line"] == 11


def test_the_readme_game_runs_as_written(tmp_path):
    import re
    import shlex

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- game: run -->\n```console\n(.*?)```", text, re.S).group(1)
    steps: list[tuple[str, list[str]]] = []
    for line in block.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    for command, expected in steps:
        args = shlex.split(command)
        assert args[0] == "civdsl"
        proc = run_cli(*args[1:], cwd=tmp_path, env={"NO_COLOR": "1"})
        assert (proc.stdout + proc.stderr).rstrip("\n") == "\n".join(expected), command


def test_game_new_refuses_a_player_count_the_edition_gives_no_deck_for(tmp_path):
    # seed 002, 14.34: 16-18 players split the shared commodities between the sets without numbers
    game = tmp_path / "g.yaml"
    names = ",".join(f"p{i}" for i in range(16))
    refused = run_cli("game", "new", "expansion", "--players", names, "-o", game)
    assert refused.returncode == 1 and not game.exists()
    assert "error[CIV184]" in refused.stderr and "no trade deck for 16 players" in refused.stderr
    assert "5-7, 8-11, 12-15 players" in refused.stderr
    twelve = ",".join(f"p{i}:{c}" for i, c in enumerate(["Crete", "Arabia", "Illyria", "Chorasmia", "Assyria",
                                                          "Dravidian", "Thrace", "Babylon", "Carthage", "Mauryan",
                                                          "Rome", "Kushan"]))
    made = run_cli("game", "new", "expansion", "--players", twelve, "-o", game)
    assert made.returncode == 0, made.stderr
    assert 'trade stacks dealt from the decks "West, 12-15 players", "East, 12-15 players"' in made.stdout


def test_game_fmt_rewrites_a_hand_edited_file_in_the_form_game_writes(tmp_path):
    import yaml

    source = GAMES[0].read_text(encoding="utf-8")
    data = yaml.safe_load(source)
    game = tmp_path / "g.yaml"
    edition = data["edition"]
    game.write_text(yaml.safe_dump(data, sort_keys=False, default_flow_style=False), encoding="utf-8")
    checked = run_cli("game", "fmt", "--check", game)
    assert checked.returncode == 1 and "error[CIV185]" in checked.stderr
    assert "g.yaml:1:1:" in checked.stderr and "expected the comment line" in checked.stderr
    before = run_cli("game", "show", game, "--json").stdout
    formatted = run_cli("game", "fmt", game)
    assert formatted.returncode == 0, formatted.stderr
    assert game.read_text(encoding="utf-8") == source
    assert run_cli("game", "show", game, "--json").stdout == before
    assert run_cli("game", "fmt", "--check", game).returncode == 0
    assert "already" in run_cli("game", "fmt", game).stdout


def test_game_fmt_leaves_a_file_it_cannot_read_unchanged(tmp_path):
    game = tmp_path / "g.yaml"
    broken = GAMES[0].read_text(encoding="utf-8").replace('"turn": 1,', '"turn":"one",', 1).replace("edition:",
                                                                                                  "edition:  ", 1)
    game.write_text(broken, encoding="utf-8")
    proc = run_cli("game", "fmt", game)
    assert proc.returncode == 1 and "error[CIV144]" in proc.stderr and "`turn` is a whole number" in proc.stderr
    assert game.read_text(encoding="utf-8") == broken


def test_game_new_writes_any_name_in_the_form_and_reads_it_back(tmp_path):
    import yaml

    game = tmp_path / "g.yaml"
    names = ["Zoë", "7", "yes", '#1 "q"']
    made = run_cli("game", "new", "civ1980", "--players",
                   ",".join(f"{n}:{c}" for n, c in zip(names, ["Asia", "Assyria", "Babylon", "Crete"])), "-o", game)
    assert made.returncode == 0, made.stderr
    assert run_cli("game", "add", game, "census", "Zoë", "cities=1", "tokens=3").returncode == 0
    assert run_cli("game", "fmt", "--check", game).returncode == 0
    assert [p["name"] for p in yaml.safe_load(game.read_text(encoding="utf-8"))["players"]] == names
    from civdsl.api import load

    assert [p.name for p in gamefile.replay(load("civ1980"), gamefile.read(game)).players.values()] == names


def test_game_new_refuses_a_last_turn_where_the_edition_ends_only_at_the_finish(tmp_path):
    # seed 000, 44: the game ends when a player reaches a finish circle; no time limit is printed
    game = tmp_path / "g.yaml"
    proc = run_cli("game", "new", "civ1980", "--players", "anna:Asia,bruno:Italy,chloe:Crete", "--last-turn", "3",
                   "-o", game)
    assert proc.returncode == 2 and "does not end on a last turn the players agree" in proc.stderr
    assert "Traceback" not in proc.stderr and not game.exists()


@pytest.mark.parametrize("typed, word", [("census ann cities=x", "cities=x"),
                                         ("census ann cities=2 tokens=-1", "tokens=-1"),
                                         ("draw ann seed=abc", "seed=abc")])
def test_a_word_that_is_no_whole_number_is_pointed_at(tmp_path, typed, word):
    game = tmp_path / "g.yaml"
    assert run_cli("game", "new", "civ1981", "--players", "ann,bob,cy", "-o", game).returncode == 0
    before = game.read_bytes()
    proc = run_cli("game", "add", game, *typed.split())
    assert proc.returncode == 1 and game.read_bytes() == before
    lines = proc.stderr.splitlines()
    column = typed.index(word) + 1
    assert lines[0].startswith(f"<event>:1:{column}: error[CIV142]: ")
    caret = next(line for line in lines if "^" in line)
    assert caret.split("| ", 1)[1] == " " * (column - 1) + "^" * len(word)


@pytest.mark.parametrize("command", [["score"], ["plan", "--player", "anna"], ["epoch", "--player", "anna"]])
def test_a_question_of_a_game_file_the_replay_refuses_is_located_at_its_event(tmp_path, command):
    path = tmp_path / "game.yaml"
    lines = next(p for p in GAMES if p.stem == "civ1981-5").read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"do": "census"' in line)
    lines[at] = re.sub(r'"cities": \d+', '"cities": 99', lines[at])  # over the pieces a player has
    path.write_text("".join(lines), encoding="utf-8")
    proc = run_cli(command[0], path, *command[1:])
    assert proc.returncode == 1
    first = proc.stderr.splitlines()[0]
    assert first.startswith(f"{path}:{at + 1}:3: error[CIV142]: event ") and "99 cities" in first


def test_an_advance_named_twice_is_refused_never_priced_twice(tmp_path):
    """`cost --buy Pottery,Pottery` once priced Pottery twice (total 120); a game's `buy` event
    reads the same price engine."""
    proc = run_cli("cost", "megaciv", "--buy", "Pottery,pottery,Agriculture")
    assert proc.returncode == 1 and "--buy: named more than once: Pottery" in proc.stderr


def test_a_plan_for_a_player_of_a_game_knows_what_the_others_hold():
    # in the recorded five-player game every card of Drama and Poetry in the box (4, seed 001 22.3.1)
    # is held by bruno, chloe, dario and eva, so anna cannot buy it; nothing is left unchecked
    proc = run_cli("plan", ROOT / "tests" / "games" / "civ1981-5.yaml", "--player", "anna")
    assert proc.returncode == 0, proc.stderr
    assert "  Drama and Poetry: sold out: the other players hold all 4 cards in use" in proc.stdout.splitlines()
    assert "supply" not in proc.stdout
    held = run_cli("plan", ROOT / "tests" / "games" / "civ1981-5.yaml", "--player", "bruno")
    assert "Drama and Poetry" not in held.stdout  # bruno holds one himself


def test_the_price_for_a_player_of_a_game_refuses_what_the_others_hold_every_card_of():
    proc = run_cli("cost", ROOT / "tests" / "games" / "civ1981-5.yaml", "--player", "anna", "--buy",
                   "Drama and Poetry")
    assert proc.returncode == 1
    assert "illegal purchase: Drama and Poetry: sold out: the other players hold all 4 cards in use" in proc.stderr
    resolved = run_cli("resolve", ROOT / "tests" / "games" / "civ1981-5.yaml", "Famine", "--player", "anna")
    assert resolved.returncode == 0 and "primary victim holding Music, Mysticism, Pottery" in resolved.stdout


def test_the_hand_of_a_player_of_a_game_is_his_cards_unless_others_are_given():
    game = ROOT / "tests" / "games" / "civ1981-5.yaml"
    shown = json.loads(run_cli("game", "show", game, "--json").stdout)
    anna = next(p for p in shown["players"] if p["name"] == "anna")
    own = json.loads(run_cli("hand", game, "--player", "anna", "--json").stdout)
    from civdsl.api import load

    commodities = load("civ1981").module.COMMODITIES
    held = {c: n for c, n in anna["cards"].items() if c in commodities}
    assert held and {s["commodity"]: s["cards"] for s in own["sets"]} == held
    given = json.loads(run_cli("hand", game, "--player", "anna", "--cards", "Salt x3", "--json").stdout)
    assert [(s["commodity"], s["cards"]) for s in given["sets"]] == [("Salt", 3)]
    assert run_cli("hand", "civ1981", "--cards", "Salt", "--player", "anna").returncode == 2


def test_an_event_quoted_whole_is_refused_with_how_to_give_its_words(tmp_path):
    # a shell passes "census ann cities=0" as one word: the event kind would be the whole line
    game = tmp_path / "g.yaml"
    assert run_cli("game", "new", "civ1981", "--players", "ann,bob,cy", "-o", game).returncode == 0
    before = game.read_bytes()
    proc = run_cli("game", "add", game, "census ann cities=0 tokens=1 ships=0", "next")
    assert proc.returncode == 1 and game.read_bytes() == before
    first = proc.stderr.splitlines()[0]
    assert first.startswith("<event>:1:1: error[CIV142]: `census ann cities=0 tokens=1 ships=0` arrived as one word")
    assert "separated by `/`" in first
    added = run_cli("game", "add", game, "census", "ann", "cities=0", "tokens=1", "ships=0", "/", "next")
    assert added.returncode == 0, added.stderr


def test_show_refuses_a_turn_or_an_event_the_game_has_not_reached(tmp_path):
    game = tmp_path / "g.yaml"
    assert run_cli("game", "new", "civ1981", "--players", "ann,bob,cy", "-o", game).returncode == 0
    assert run_cli("game", "add", game, "census", "ann", "cities=0", "tokens=1", "ships=0", "/", "next").returncode == 0
    beyond = run_cli("game", "show", game, "--turn", "2")
    assert beyond.returncode == 2 and "--turn 2: the events of" in beyond.stderr and "reach turn 1" in beyond.stderr
    assert "Traceback" not in beyond.stderr
    assert run_cli("game", "show", game, "--turn", "1").returncode == 0
    assert run_cli("game", "show", game, "--event", "2").returncode == 0
    more = run_cli("game", "show", game, "--event", "3")
    assert more.returncode == 2 and "holds 2 events" in more.stderr


@pytest.mark.parametrize("players", ["", " , ,"])
def test_game_new_without_a_player_says_so(tmp_path, players):
    game = tmp_path / "g.yaml"
    proc = run_cli("game", "new", "civ1981", "--players", players, "-o", game)
    assert proc.returncode == 2 and "--players names no player" in proc.stderr and not game.exists()
