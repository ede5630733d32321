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
