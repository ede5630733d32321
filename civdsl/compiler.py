"""The front end in one call: read, parse, resolve and validate a rulebook and its bases."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .diagnostics import Diagnostics
from .gcpause import paused
from .loader import LoadedFile, load_chain
from .model import Edition
from .resolver import resolve
from .validator import validate


@dataclass
class Checked:
    edition: Edition | None
    diagnostics: Diagnostics
    chain: list[LoadedFile]

    @property
    def ok(self) -> bool:
        return self.edition is not None and not self.diagnostics.has_errors


def check_file(path: Path, diags: Diagnostics | None = None) -> Checked:
    with paused():
        return _check_file(path, diags or Diagnostics())


def _check_file(path: Path, diags: Diagnostics) -> Checked:
    chain = load_chain(Path(path), diags)
    if not chain or diags.has_errors and len(chain) == 0:
        return Checked(None, diags, chain)
    # syntax errors in any file of the chain stop here: the model would be guesswork
    if any(d.code in ("CIV001", "CIV002", "CIV004", "CIV005", "CIV007", "CIV008", "CIV006") for d in diags.errors):
        return Checked(None, diags, chain)
    edition = resolve(chain, diags)
    if edition is not None:
        validate(edition, diags)
    return Checked(edition, diags, chain)
