"""What the command line prints is safe for a terminal, and its file errors are one line (issue 17).

- Control characters from rulebook text, arguments, state files and file names are escaped
  (civdsl/cli/terminal.py), on a real terminal (a pty) as well as in a pipe; civdsl's own
  colours still reach a terminal; JSON output stays valid JSON with the same values.
- `step --save` / `simulate --plot` into a missing folder, and commands run from a deleted
  working directory, end with `error: ...`, never a traceback.
- `simulate` refuses more than MAX_ROUNDS_PLAYED rounds in one run.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CLI, run_cli, run_process

from civdsl.cli.terminal import escape_controls
from civdsl.rounds.simulate import MAX_ROUNDS_PLAYED

ROOT = Path(__file__).resolve().parent.parent
ESC = "\x1b"
CLEAR, TITLE, C1_CSI = "\x1b[2J", "\x1b]0;pwned\x07", "\x9b2J"


def on_a_terminal(*args, cwd=ROOT) -> bytes:
    """The bytes a terminal would receive (stdout and stderr on one pty)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: become the command
        try:
            os.chdir(cwd)
            os.execv(sys.executable, CLI + [os.fsencode(a) if isinstance(a, bytes) else str(a) for a in args])
        finally:
            os._exit(127)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    os.close(fd)
    return out


def raw_controls(data: bytes) -> list[str]:
    """Control sequences in terminal output other than civdsl's own colours and line ends."""
    import re

    text = data.decode("utf-8", errors="replace")
    text = re.sub(r"\x1b\[(?:[0-9;]*)m", lambda m: "" if set(m.group()[2:-1].split(";")) <= {"", "0", "1", "31", "32", "33", "36"} else m.group(), text)
    return sorted({c for c in text if (ord(c) < 32 and c not in "\n\t\r") or 0x7F <= ord(c) < 0xA0})


def test_escape_controls_keeps_text_newlines_and_tabs():
    assert escape_controls("a\tb\nc") == "a\tb\nc"
    assert escape_controls(f"x{CLEAR}y") == "x\\x1b[2Jy"
    assert escape_controls(TITLE) == "\\x1b]0;pwned\\x07"
    assert escape_controls("\r\x00\x7f\x9b") == "\\x0d\\x00\\u007f\\u009b"
    assert escape_controls("caf\udce9") == "caf\\udce9"  # an undecodable byte of a file name
    assert escape_controls("é🏛") == "é🏛"
    assert escape_controls("\x1b[1;31mred\x1b[0m", keep_styles=True) == "\x1b[1;31mred\x1b[0m"
    assert escape_controls("\x1b[30;40mhidden\x1b[0m", keep_styles=True) == "\\x1b[30;40mhidden\x1b[0m"


@pytest.fixture
def hostile_book(tmp_path) -> Path:
    text = (Path(ROOT / "tests" / "fixtures" / "mini.civ").read_text()
            .replace('calamity "Flood"', 'calamity "Flood\\u001b[2J\\u001b]0;pwned\\u0007\\u009b2J"'))
    path = tmp_path / "hostile.civ"
    path.write_text(text)
    return path


def test_rulebook_text_reaches_a_terminal_escaped(hostile_book):
    out = on_a_terminal("resolve", hostile_book, "Flood\x1b[2J\x1b]0;pwned\x07\x9b2J")
    assert b"Flood\\x1b[2J\\x1b]0;pwned\\x07\\u009b2J" in out, out
    assert raw_controls(out) == [], out


def test_arguments_reach_a_terminal_escaped():
    out = on_a_terminal("resolve", f"nosuch{CLEAR}{TITLE}", "Famine")
    assert b"nosuch\\x1b[2J\\x1b]0;pwned\\x07" in out and raw_controls(out) == [], out
    out = on_a_terminal("resolve", "megaciv", "Famine", "--set", f"citys{TITLE}=1")
    assert b"citys\\x1b]0;pwned\\x07" in out and raw_controls(out) == [], out


def test_civdsls_own_colours_still_reach_a_terminal():
    out = on_a_terminal("check", ROOT / "tests" / "ui" / "CIV010_unknown_advance.civ")
    assert b"\x1b[1;31merror[CIV010]" in out


def test_progress_bars_still_draw_on_a_terminal():
    """A progress bar is civdsl's own drawing (no data): it keeps its carriage return."""
    out = on_a_terminal("simulate", "cardgame", "--runs", "20", "--rounds", "3")
    assert b"\r\x1b[?25lsimulating" in out


def test_state_text_and_file_names_in_a_pipe(tmp_path):
    state = tmp_path / "s.yaml"
    state.write_text('holds: ["Pottery\\e]0;pwned\\a"]\n')
    proc = run_cli("resolve", "megaciv", "Famine", "--state", str(state))
    assert proc.returncode == 1 and "Pottery\\x1b]0;pwned\\x07" in proc.stderr and ESC not in proc.stderr
    odd = tmp_path / os.fsdecode(b"rules\x1b]0;t\x07\xff.civ")
    odd.write_text("language 1\nedition x \"X\"\ncredit policy nope\n")
    proc = run_cli("check", str(odd))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert ESC not in proc.stderr and "rules\\u001b]0;t\\u0007\\udcff.civ\":3:15: error[CIV019]" in proc.stderr


def test_json_output_stays_valid_with_the_same_values(hostile_book):
    proc = run_cli("resolve", str(hostile_book), f"Flood{CLEAR}{TITLE}{C1_CSI}", "--json")
    assert proc.returncode in (0, 1) and proc.stdout, proc.stderr  # 1: the answer names a missing fact
    assert "\x9b" not in proc.stdout and ESC not in proc.stdout
    assert json.loads(proc.stdout)["calamity"] == f"Flood{CLEAR}{TITLE}{C1_CSI}"


# --- files the user names ----------------------------------------------------------------------

@pytest.mark.parametrize("args", [["step", "cardgame", "--save", "missing/state.yaml"],
                                  ["simulate", "cardgame", "--runs", "2", "--plot", "missing/plot.svg"],
                                  ["chart", "megaciv", "-o", "file.txt/x.html"]])
def test_writing_into_a_missing_folder_is_one_line(tmp_path, args):
    (tmp_path / "file.txt").write_text("a file, not a folder")
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("error: cannot write "), proc.stderr


@pytest.mark.parametrize("args", [["check", "foo.civ"], ["check", "megaciv"], ["resolve", "megaciv", "Famine"],
                                  ["chart", "megaciv", "-o", "x.html"], ["step", "cardgame", "--save", "s.yaml"],
                                  ["simulate", "cardgame", "--runs", "2", "--plot", "p.svg"],
                                  ["build", "megaciv", "-o", "out"], ["new", "h", "-o", "h.civ"]])
def test_commands_from_a_deleted_working_directory_never_print_a_traceback(tmp_path, args):
    gone = tmp_path / "gone"
    gone.mkdir()
    script = ("import os, subprocess, sys; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]); "
              "sys.exit(subprocess.run(sys.argv[2:]).returncode)")
    proc = subprocess.run([sys.executable, "-c", script, str(gone), *CLI, *args], capture_output=True, text=True)
    assert "Traceback" not in proc.stderr, proc.stderr
    if proc.returncode:
        assert proc.stderr.strip().splitlines()[-1].startswith("error: "), proc.stderr


def test_simulate_refuses_more_rounds_than_its_bound():
    import resource

    def cap():  # a simulation that starts playing 10^10 rounds is stopped by the kernel, not a timer
        resource.setrlimit(resource.RLIMIT_CPU, (60, 60))
    proc = run_process("simulate", "cardgame", "--rounds", "10000", "--runs", "1000000", timeout=None, preexec_fn=cap)
    assert proc.returncode == 1 and f"at most {MAX_ROUNDS_PLAYED:,}" in proc.stderr
    assert "Traceback" not in proc.stderr


# --- names that would read as something else -------------------------------------------------

BIDI = ["\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200f", "\u200e", "\u202a", "\u202b", "\u202c", "\u202d"]


@pytest.mark.parametrize("control", BIDI)
def test_bidirectional_controls_are_escaped(control):
    assert escape_controls(f"anna{control}gnp.exe") == f"anna\\u{ord(control):04x}gnp.exe"


def test_a_player_named_with_a_right_to_left_override_reaches_the_terminal_escaped():
    out = on_a_terminal("resolve", "megaciv", "Famine", "--set", "cityz\u202egnp=1")
    assert "cityz\\u202egnp".encode() in out and "\u202e".encode() not in out, out


def test_file_names_are_quoted_as_git_quotes_them(tmp_path):
    """A newline in a file name would print as a real line break (a fake line of output), a
    right-to-left override would turn the name around: such names are C-quoted."""
    odd = tmp_path / "two\nlines\u202e.civ"
    odd.write_text("language 1\nedition x \"X\"\ncredit policy nope\n")
    proc = run_cli("check", odd.name, cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert '"two\\nlines\\u202e.civ":3:15: error[CIV019]' in proc.stderr, proc.stderr
    state = tmp_path / "s\n.yaml"
    state.write_text("- not a mapping\n")
    proc = run_cli("resolve", "megaciv", "Famine", "--state", state.name, cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr.startswith('error: "s\\n.yaml": '), proc.stderr
    plain = tmp_path / "plain.civ"
    plain.write_text("language 1\nedition x \"X\"\ncredit policy nope\n")
    proc = run_cli("check", "plain.civ", cwd=tmp_path)
    assert "plain.civ:3:15: error[CIV019]" in proc.stderr and '"plain.civ"' not in proc.stderr
