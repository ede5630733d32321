"""Every command follows the conventions of civdsl/cli/common.py: `-h` is `--help`, every option
has help text, `--color` and (but for `lsp`) `--json` everywhere, errors in JSON mode are one
JSON object on stdout, and the exit codes follow the one table (0 answered, 1 user error or
incomplete answer, 2 usage error; a closed pipe is not an error)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from conftest import run_cli

from civdsl.cli.main import COMMANDS, main

ROOT = Path(__file__).resolve().parent.parent
ALL = sorted(COMMANDS)
JSON_COMMANDS = [n for n in ALL if n != "lsp"]


def _command(name: str) -> click.Command:
    return main.get_command(click.Context(main), name)


def test_the_walk_covers_the_group():
    assert set(main.list_commands(click.Context(main))) == set(ALL)
    assert {"resolve", "plan", "check", "build", "chart", "step", "lsp"} <= set(ALL)


@pytest.mark.parametrize("name", ALL)
def test_dash_h_is_help(name):
    short, long = run_cli(name, "-h"), run_cli(name, "--help")
    assert short.exit_code == 0 and long.exit_code == 0
    assert short.stdout == long.stdout
    assert short.stdout.startswith(f"Usage: main {name}") or short.stdout.startswith(f"Usage: civdsl {name}")
    assert "-h, --help" in short.stdout


def test_dash_h_on_the_group():
    res = run_cli("-h")
    assert res.exit_code == 0 and "Commands:" in res.stdout


@pytest.mark.parametrize("name", ALL)
def test_every_option_has_help_text(name):
    bare = [p.opts[0] for p in _command(name).params if isinstance(p, click.Option) and not (p.help or "").strip()]
    assert not bare, f"`civdsl {name}`: options without help: {bare}"


def _leaves() -> list[tuple[str, click.Command]]:
    """Every command that runs, a group's subcommands (`game show`) in place of the group."""
    out = []
    for name in ALL:
        cmd = _command(name)
        if isinstance(cmd, click.Group):
            out += [(f"{name} {sub}", cmd.commands[sub]) for sub in sorted(cmd.commands)]
        else:
            out.append((name, cmd))
    return out


@pytest.mark.parametrize("name, command", _leaves(), ids=[n for n, _ in _leaves()])
def test_shared_options_everywhere(name, command):
    opts = {o for p in command.params for o in p.opts}
    assert "--color" in opts
    assert ("--json" in opts) == (name != "lsp")
    # one spelling for machine output: no command offers json through --format
    for p in command.params:
        if "--format" in p.opts and name != "chart":  # chart's --format is the chart's notation
            assert "json" not in p.type.choices


@pytest.mark.parametrize("name", JSON_COMMANDS)
def test_usage_error_in_json_mode_is_json_with_exit_2(name):
    res = run_cli(name, "--no-such-option", "--json")
    assert res.exit_code == 2
    data = json.loads(res.stdout)
    assert data["command"] == name and data["rulebook"] is None
    assert data["error"]["kind"] == "usage" and "--no-such-option" in data["error"]["message"]


def test_usage_error_in_text_mode_exits_2():
    res = run_cli("resolve", "megaciv")
    assert res.exit_code == 2 and "Missing argument" in res.output
    res = run_cli("no-such-command", "--json")
    assert res.exit_code == 2 and json.loads(res.stdout)["error"]["kind"] == "usage"


# A user error for each command that can have one: (arguments, the "rulebook" named, kind).
USER_ERRORS = {
    "resolve": (["no-such-book", "Famine"], "no-such-book", "user"),
    "cost": (["megaciv", "--buy", "Potery"], "megaciv", "user"),
    "epoch": (["megaciv", "--ast", "nope"], "megaciv", "user"),
    "score": (["megaciv", "--holds", "Nothing"], "megaciv", "user"),
    "hand": (["megaciv", "--cards", "Gld x2"], "megaciv", "user"),
    "table": (["megaciv", "examples/table.yaml", "--calamity", "Epidemc"], "megaciv", "user"),
    "plan": (["megaciv", "--set", "players=0"], "megaciv", "user"),
    "chart": (["tests/ui/CIV015_unknown_effect.civ"], "tests/ui/CIV015_unknown_effect.civ", "rulebook"),
    "step": (["megaciv"], "megaciv", "user"),
    "simulate": (["megaciv", "--runs", "1"], "megaciv", "user"),
    "new": (["not a name"], None, "user"),
    "diff": (["no-such-book", "megaciv"], None, "user"),
    "explain": (["CIV999"], None, "user"),
    "build": (["tests/ui/CIV015_unknown_effect.civ", "-o", "{tmp}"], None, "rulebook"),
    "cover": (["megaciv", "--text", "no-such-copy.txt"], "megaciv", "user"),
}


def test_every_json_command_has_a_user_error_case_or_none_possible():
    # vocab takes no input; check and fmt answer with their findings (below); game's subcommands
    # answer a game file's errors as located diagnostics (tests/test_game_cli.py)
    assert set(USER_ERRORS) | {"vocab", "check", "fmt", "game"} == set(JSON_COMMANDS)


@pytest.mark.parametrize("name", sorted(USER_ERRORS))
def test_user_error_in_json_mode_is_one_object_with_exit_1(name, tmp_path):
    args, rulebook, kind = USER_ERRORS[name]
    res = run_cli(name, *[a.replace("{tmp}", str(tmp_path / "out")) for a in args], "--json")
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    assert list(data)[:2] == ["command", "rulebook"] and set(data) == {"command", "rulebook", "error"}
    assert data["command"] == name and data["rulebook"] == rulebook
    assert data["error"]["kind"] == kind and data["error"]["message"]
    if kind == "rulebook":
        assert data["error"]["diagnostics"][0]["code"] == "CIV015"
    res = run_cli(name, *[a.replace("{tmp}", str(tmp_path / "out2")) for a in args])
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert res.stdout == "" or name in ("step",), res.stdout  # text errors go to stderr


def test_check_and_fmt_answer_their_findings_in_json(tmp_path):
    res = run_cli("check", "tests/ui/CIV015_unknown_effect.civ", "--json")
    assert res.exit_code == 1
    data = json.loads(res.stdout)
    assert data["command"] == "check" and data["errors"] == 1 and data["diagnostics"][0]["code"] == "CIV015"
    bad = tmp_path / "bad.civ"
    bad.write_text("edition x {\n", encoding="utf-8")
    res = run_cli("fmt", str(bad), "--json")
    assert res.exit_code == 1
    data = json.loads(res.stdout)
    assert data["command"] == "fmt" and data["failed"][0]["path"].endswith("bad.civ")


ANSWERS = [
    (["resolve", "megaciv", "Famine"], "megaciv"),
    (["cost", "megaciv", "--buy", "Pottery"], "megaciv"),
    (["epoch", "megaciv", "--holds", "Pottery"], "megaciv"),
    (["epoch", "megaciv", "--ast"], "megaciv"),
    (["score", "megaciv", "--set", "cities=3", "--set", "tokens=10"], "megaciv"),
    (["hand", "megaciv", "--cards", "Grain x3"], "megaciv"),
    (["plan", "megaciv", "--set", "players=5", "--set", "treasury=20"], "megaciv"),
    (["chart", "megaciv", "--kind", "epochs"], "megaciv"),
    (["step", "cardgame"], "cardgame"),
    (["simulate", "cardgame", "--runs", "2", "--rounds", "2"], "cardgame"),
    (["explain", "CIV012"], None),
    (["explain", "megaciv", "Famine"], "megaciv"),
    (["vocab"], None),
]


@pytest.mark.parametrize("args, rulebook", ANSWERS, ids=lambda a: " ".join(a) if isinstance(a, list) else "")
def test_every_json_answer_is_an_object_naming_command_and_rulebook(args, rulebook):
    res = run_cli(*args, "--json")
    data = json.loads(res.stdout[res.stdout.index("{"):])
    assert isinstance(data, dict)
    assert list(data)[:2] == ["command", "rulebook"]
    assert data["command"] == args[0] and data["rulebook"] == rulebook
    assert "error" not in data
    assert res.exit_code in (0, 1)


def test_json_answers_over_several_rulebooks_name_them_all(tmp_path):
    data = json.loads(run_cli("diff", "civ1980", "civ1981", "--json").stdout)
    assert data["command"] == "diff" and data["rulebooks"] == ["civ1980", "civ1981"]
    data = json.loads(run_cli("check", "civ1981", "--json").stdout)
    assert data["rulebooks"] == [str(Path("rulebooks/civ1981.civ"))] or data["rulebooks"][0].endswith("civ1981.civ")
    data = json.loads(run_cli("build", "civ1981", "-o", str(tmp_path / "g"), "--json").stdout)
    assert data["command"] == "build" and data["rulebooks"] == ["civ1981"] and data["files"] > 0


def test_exit_codes_answered_incomplete_and_differences():
    assert run_cli("resolve", "megaciv", "Famine").exit_code == 0
    # an incomplete answer (the rules need a fact the state does not give) exits 1, text or JSON
    res = run_cli("score", "megaciv")
    assert res.exit_code == 1 and "incomplete" in res.stdout
    res = run_cli("score", "megaciv", "--json")
    assert res.exit_code == 1 and json.loads(res.stdout)["missing_facts"]
    # diff: 0 whether or not they differ; --exit-code: 1 when they differ, 0 when they do not
    assert run_cli("diff", "civ1980", "civ1981").exit_code == 0
    assert run_cli("diff", "civ1980", "civ1981", "--exit-code").exit_code == 1
    assert run_cli("diff", "civ1981", "civ1981", "--exit-code").exit_code == 0


def test_a_closed_pipe_is_not_an_error():
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "vocab"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()  # the reader goes away, as `| head -1` does
    err = proc.stderr.read()
    assert proc.wait() == 0, err
    assert b"Traceback" not in err and b"BrokenPipe" not in err and err == b""


BAD = "tests/ui/CIV015_unknown_effect.civ"


def test_colour_follows_the_option_the_terminal_and_no_color():
    ansi = re.compile("\x1b\\[")
    # CliRunner's streams are not terminals: auto gives no colour
    assert not ansi.search(run_cli("check", BAD).output)
    assert ansi.search(run_cli("check", BAD, "--color", "always").output)
    assert not ansi.search(run_cli("check", BAD, "--color", "never").output)
    assert not ansi.search(run_cli("diff", "civ1980", "civ1981", "--color", "never").output)
    assert ansi.search(run_cli("diff", "civ1980", "civ1981", "--color", "always").output)
    res = run_cli("check", BAD, "--color", "bright")
    assert res.exit_code == 2


def test_no_color_turns_colour_off_on_a_terminal(monkeypatch):
    from civdsl.cli import common

    class Tty:
        def isatty(self):
            return True

    monkeypatch.setattr(common.sys, "stdout", Tty())
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert common.use_color() is True
    monkeypatch.setenv("NO_COLOR", "1")
    assert common.use_color() is False
    monkeypatch.setenv("NO_COLOR", "")  # set but empty: no effect (no-color.org)
    assert common.use_color() is True


def test_nested_set_gives_one_entry_of_a_map():
    res = run_cli("plan", "megaciv", "--set", "players=5", "--set", "commodities.Grain=4", "--set", "commodities.Salt=2",
                  "--json")
    data = json.loads(res.stdout)
    assert res.exit_code == 0
    assert {s["commodity"]: s["cards"] for s in data["budget"]["hand"]["sets"]} == {"Grain": 4, "Salt": 2}
    res = run_cli("resolve", "megaciv", "Famine", "--set", "commodities.Grian=2")
    assert res.exit_code == 1 and "did you mean `Grain`" in res.output
    res = run_cli("resolve", "megaciv", "Famine", "--set", "players=5", "--set", "players.x=1")
    assert res.exit_code == 1 and "`players` is not a map" in res.output


def test_plan_save_writes_the_state_after_the_purchase(tmp_path):
    import yaml

    state = tmp_path / "state.yaml"
    state.write_text("holds: [Pottery]\ncommodities: {Grain: 4, Salt: 3, Ochre: 2}\ntreasury: 6\nplayers: 5\n",
                     encoding="utf-8")
    res = run_cli("plan", "megaciv", "--state", str(state), "--save", str(state), "--json")
    assert res.exit_code == 0, res.output
    best = json.loads(res.stdout)["plans"][0]
    after = yaml.safe_load(state.read_text(encoding="utf-8"))
    assert after["holds"] == ["Pottery", *best["buy"]] and best["buy"]
    assert after["treasury"] == best["payment"]["treasury_left"]
    assert after["commodities"] == {k: v for k, v in best["payment"]["kept"].items() if v}
    assert after["players"] == 5
    # the saved state is a valid state: the next turn plans from it
    again = run_cli("plan", "megaciv", "--state", str(state), "--json")
    assert again.exit_code == 0
    assert not set(json.loads(again.stdout)["plans"][0]["buy"]) & set(after["holds"])


def test_ast_lists_tracks_and_an_unknown_track_names_the_valid_ones():
    res = run_cli("epoch", "megaciv", "--ast")
    assert res.exit_code == 0
    assert re.search(r"^basic\s+Basic A\.S\.T\.$", res.stdout, re.M) and "expert" in res.stdout
    res = run_cli("epoch", "megaciv", "--ast", "bsic")
    assert res.exit_code == 1
    assert "did you mean `basic`" in res.output and "`basic`, `expert`" in res.output
    assert "lists the rulebook's tracks" in " ".join(run_cli("epoch", "-h").stdout.split())


def test_help_of_the_group_lists_every_command():
    res = run_cli("--help")
    for name in ALL:
        assert re.search(rf"^  {name}\s", res.stdout, re.M), name


def test_new_names_no_file_an_installed_user_lacks(tmp_path):
    out = tmp_path / "mine.civ"
    res = run_cli("new", "mine", "-o", str(out))
    assert res.exit_code == 0, res.output
    text = out.read_text(encoding="utf-8") + res.output
    # an installed copy carries no docs/, tests/ or README file: the skeleton points at commands
    assert not re.search(r"\b(docs|tests|generated)/|\.md\b", text), text
