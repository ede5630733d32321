import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    """Compiled-module cache per test session, so tests never read a stale user cache."""
    os.environ["CIVDSL_CACHE"] = str(tmp_path_factory.mktemp("civdsl-cache"))
    yield


@pytest.fixture
def root() -> Path:
    return ROOT


def _checkout_state() -> str | None:
    """What git says of the checkout's tracked and untracked files (None outside a git checkout)."""
    try:
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT,
                                capture_output=True, text=True, timeout=60)
        diff = subprocess.run(["git", "diff", "--binary"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return None if status.returncode else status.stdout + diff.stdout


def pytest_sessionstart(session):
    session.config._civdsl_checkout_before = _checkout_state()


def pytest_sessionfinish(session, exitstatus):
    """Tests never write into the checkout (generated/, the rulebooks, examples): a test that does
    would hide a stale generated/ from `build --check` and rewrite files under review."""
    before = getattr(session.config, "_civdsl_checkout_before", None)
    after = _checkout_state()
    if before is not None and after is not None and before != after and not os.environ.get("CIVDSL_BLESS"):
        changed = sorted(set(after.splitlines()) - set(before.splitlines()))[:10]
        print("\nerror: the test run changed files in the checkout:\n  " + "\n  ".join(changed), file=sys.stderr)
        session.exitstatus = 1


CLI = [sys.executable, str(ROOT / "cli.py")]  # this checkout's command line, as its own process


def run_process(*args, cwd=None, env=None, input=None, timeout=300, preexec_fn=None) -> subprocess.CompletedProcess:
    """`civdsl ARGS` in a Python process of its own, for the tests whose subject is the process: a
    kernel limit (`preexec_fn`), a terminal, a crash as the shell sees it, concurrent runs, what a
    fresh interpreter imports. `env` is added to this environment; text in and out."""
    return subprocess.run(CLI + [os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in args],
                          cwd=cwd, env=None if env is None else {**os.environ, **env}, input=input,
                          capture_output=True, text=True, timeout=timeout, preexec_fn=preexec_fn)


class Ran:
    """What one run of the command line gave back, named as subprocess.CompletedProcess names it."""

    def __init__(self, args: list[str], returncode: int, stdout: str, stderr: str, output: str):
        self.args, self.returncode, self.stdout, self.stderr = args, returncode, stdout, stderr
        self.output = output  # stdout and stderr interleaved, as a terminal shows them

    @property
    def exit_code(self) -> int:  # click's Result calls it so
        return self.returncode

    def __repr__(self) -> str:
        return f"Ran({self.args!r}, returncode={self.returncode}, stderr={self.stderr[-2000:]!r})"


class RanTooLong(BaseException):
    """Raised into a command run in this process that outlives its `timeout` (a BaseException, so
    that no handler of the command's own takes it for one of its errors)."""


def run_cli(*args, cwd=None, env=None, input=None, timeout=None) -> Ran:
    """`civdsl ARGS` run in this process: click's CliRunner on the real `civdsl.cli` group, stdout
    and stderr kept apart, the exit code, `cwd` as the current folder and `env` over the environment
    for this run only. A test whose subject is the process itself (the installed script, the shell's
    view of a crash, start-up imports, signals, limits, concurrency) starts one instead.

    An exception that escapes the command is raised here, with its traceback: run as a process it
    would have printed one, which every test of a user error rules out. With `timeout` (seconds), a
    command that runs longer is stopped by RanTooLong, as subprocess.run's timeout stops a process."""
    from click.testing import CliRunner

    from civdsl.cli import main
    from civdsl.cli.terminal import ask_for_styles

    argv = [os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in args]
    before = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    if timeout is not None:
        def stop(_signum, _frame):
            raise RanTooLong(f"civdsl {' '.join(argv)[:200]} ran longer than {timeout} s")
        previous = signal.signal(signal.SIGALRM, stop)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        result = CliRunner(catch_exceptions=False).invoke(main, argv, input=input, env=env, prog_name="civdsl")
    finally:
        if timeout is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        os.chdir(before)
        # the one setting a run leaves in the command line's modules (`--color always`); its
        # compile and load caches are keyed by file content, so a later run never gets a stale answer
        ask_for_styles(False)
    return Ran(argv, result.exit_code, result.stdout, result.stderr, result.output)


@pytest.fixture(scope="session")
def rendered():
    """`rendered(path)`: (check_file(path), build.render of it), made once per session for every test
    that asks for the same rulebook: the outputs are shared, so read them and never change them."""
    from civdsl.build import render
    from civdsl.frontend import check_file

    made: dict[str, tuple] = {}

    def get(path):
        key = os.fspath(path)
        if key not in made:
            checked = check_file(path)
            made[key] = (checked, render(checked) if checked.ok else None)
        return made[key]

    return get


def step_named(game, words: str, exact: bool = False) -> None:
    """Pass a ledger game's steps (`next`) until the current step's name contains WORDS (is WORDS)."""
    for _ in range(40):
        if words == game.current["name"] or (not exact and words in game.current["name"]):
            return
        next_step(game)
    raise AssertionError(f"no step {words!r}")



def through_the_turn(game) -> None:
    """Pass a ledger game's steps (`next`) to the next turn, every A.S.T. move it waits for
    entered as "stays" and every trade-card draw it waits for as a draw of nothing."""
    turn = game.turn
    while game.turn == turn:
        next_step(game, ast="stays")


def next_step(game, ast: str | None = None) -> None:
    """End a ledger game's step (`next`); where it waits for a player's trade-card draw, enter it
    as a draw of nothing first, and with AST, each marker move it waits for as that move. Any
    other refusal (one with nothing to enter, or another choice) is raised."""
    from civdsl.ledger.play import Refused

    try:
        game.apply({"do": "next"})
        return
    except Refused as r:
        answers = {"draw": lambda n: {"do": "draw", "player": n, "cards": []},
                   "ast": (lambda n: {"do": "ast", "player": n, "move": ast}) if ast else None}
        if not r.needs or any(answers.get(need["key"]) is None for need in r.needs):
            raise
        for need in r.needs:
            game.apply(answers[need["key"]](need["player"]))
    game.apply({"do": "next"})


def advances_checked(monkeypatch) -> list[str]:
    """The names of the advances the validator checks from now on, in order (it keeps what each
    reported: the language server's tests count what an edit checks again)."""
    from civdsl import validator

    checked: list[str] = []
    advance = validator._Validator._advance

    def counting(self, adv):
        checked.append(adv.name)
        return advance(self, adv)

    monkeypatch.setattr(validator._Validator, "_advance", counting)
    return checked
