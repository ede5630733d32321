"""The front end in one call: read, parse, resolve and validate a rulebook and its bases."""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from pathlib import Path

from . import cache
from .diagnostics import Diagnostics
from .gcpause import paused
from .loader import LoadedFile, load_chain
from .model import Edition
from .references import index_chain
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


def check_file(path: Path, diags: Diagnostics | None = None, reuse: bool = False) -> Checked:
    """Check a rulebook and its bases. With `reuse`, a result kept in the cache folder for the
    same bytes of every file of the chain and the same compiler is returned instead (with the
    same diagnostics), and a clean result is kept for next time (`check` and `build` do this)."""
    diags = diags or Diagnostics()
    if reuse:
        kept = _reuse(Path(path), diags)
        if kept is not None:
            return kept
    before = len(diags.items)
    with paused():
        checked = _check_file(path, diags)
    if reuse and checked.ok:
        _keep(Path(path), checked, diags.items[before:])
    return checked


def chain_files(chain: list[LoadedFile]) -> dict[str, str]:
    """{path as reached: sha256 of the bytes compiled} for every file of a chain."""
    return {str(f.named.absolute() if f.named else f.path.absolute()): f.digest for f in chain}


def _keep(path: Path, checked: Checked, items: list) -> None:
    files = chain_files(checked.chain)
    if not all(files.values()):
        return
    key = cache.chain_key(files)
    record = {"edition": checked.edition, "diagnostics": items,
              "chain": [(f.path, f.display, f.text, f.digest, f.named) for f in checked.chain]}
    try:
        with paused():
            data = pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return
    if cache.write(f"checked-{key}.pickle", data) is not None:
        cache.write_json(f"check-{cache.path_key(path)}.json", {"files": files, "key": key})


def _reuse(path: Path, diags: Diagnostics) -> Checked | None:
    manifest = cache.read_json(f"check-{cache.path_key(path)}.json")
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        return None
    files = manifest["files"]
    key = cache.chain_key(files)
    if manifest.get("key") != key or not cache.unchanged(files):
        return None
    data = cache.read(f"checked-{key}.pickle")
    if data is None:
        return None
    try:
        with paused():
            record = pickle.loads(data)
        chain = [LoadedFile(Path(p), display, text, None, digest, named)
                 for p, display, text, digest, named in record["chain"]]
        edition, items = record["edition"], list(record["diagnostics"])
    except Exception:  # a damaged file: compile afresh
        return None
    for f in chain:
        diags.add_source(f.display, f.text)
    diags.items.extend(items)
    return Checked(edition, diags, chain)


# The uses of the statements indexed by the last check (references.Index's memo): the house rules
# of a build share their base's syntax trees (loader._PARSED), so each indexes the base's
# statements once, not once per house rule. Only statements of the very same syntax tree are
# reused; the memo holds the last chain's and nothing else.
_INDEX_MEMO: dict = {}


def _check_file(path: Path, diags: Diagnostics) -> Checked:
    chain = load_chain(Path(path), diags)
    if not chain or diags.has_errors and len(chain) == 0:
        return Checked(None, diags, chain)
    # syntax errors in any file of the chain stop here: the model would be guesswork
    if any(d.code in ("CIV001", "CIV002", "CIV004", "CIV005", "CIV007", "CIV008", "CIV006") for d in diags.errors):
        return Checked(None, diags, chain)
    edition = resolve(chain, diags)
    if edition is not None:
        validate(edition, diags, index_chain(chain, _INDEX_MEMO))
    return Checked(edition, diags, chain)
