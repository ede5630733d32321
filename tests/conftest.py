import os
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
    import subprocess

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
