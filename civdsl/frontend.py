"""The front end in one call: read, parse, resolve and validate a rulebook and its bases."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import TYPE_CHECKING

from . import cache
from .diagnostics import Diagnostics
from .gcpause import paused
from .loader import LoadedFile

if TYPE_CHECKING:
    from .model import Edition


class Checked:
    """A rulebook chain checked: its resolved model (None where errors stopped it), diagnostics and
    files. A result kept in the cache holds its model pickled until it is asked for: `check` asks
    only for the diagnostics, so it loads neither the model's classes nor the parser (Lark)."""

    def __init__(self, edition: "Edition | None", diagnostics: Diagnostics, chain: list[LoadedFile],
                 kept: bytes | None = None):
        self._edition, self._kept = edition, kept
        self.diagnostics, self.chain = diagnostics, chain

    @property
    def edition(self) -> "Edition | None":
        if self._kept is not None:
            with paused():
                self._edition = pickle.loads(self._kept)
            self._kept = None
        return self._edition

    @property
    def ok(self) -> bool:
        return (self._kept is not None or self._edition is not None) and not self.diagnostics.has_errors


def check_file(path: Path, diags: Diagnostics | None = None, reuse: bool = False) -> Checked:
    """Check a rulebook and its bases. With `reuse`, a result kept in the cache folder for the
    same bytes of every file of the chain and the same compiler is returned instead (with the
    same diagnostics), and a clean result is kept for next time (`check` and `build` do this)."""
    diags = diags or Diagnostics()
    if not reuse:
        return _check_file(path, diags)
    return _reuse(Path(path), diags) or _check_and_keep(Path(path), diags)


def _check_and_keep(path: Path, diags: Diagnostics) -> Checked:
    """Check the rulebook, and keep a clean result in the cache folder with its diagnostics."""
    before = len(diags.items)
    checked = _check_file(path, diags)
    if checked.ok:
        _keep(path, checked, diags.items[before:])
    return checked


def chain_files(chain: list[LoadedFile]) -> dict[str, str]:
    """{path as reached: sha256 of the bytes compiled} for every file of a chain."""
    return {str(f.named.absolute() if f.named else f.path.absolute()): f.digest for f in chain}


def _keep(path: Path, checked: Checked, items: list) -> None:
    files = chain_files(checked.chain)
    if not all(files.values()):
        return
    if checked.edition.clause_list is not None:  # the result depends on the clause list too
        listed, digest = checked.edition.clause_list
        files[str(Path(listed).absolute())] = digest
    key = cache.chain_key(files)
    # the model pickled apart, so that a check reading the kept record need not unpickle it
    edition = _pickled(checked.edition)
    data = None if edition is None else _pickled({
        "edition": edition, "diagnostics": items,
        "chain": [(f.path, f.display, f.text, f.digest, f.named) for f in checked.chain]})
    if data is not None and cache.write(f"checked-{key}.pickle", data) is not None:
        cache.write_json(f"check-{cache.path_key(path)}.json", {"files": files, "key": key})


def _pickled(record) -> bytes | None:
    """A result as the cache keeps it; None for one that cannot be pickled (it is not kept)."""
    try:
        with paused():
            return pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return None


def _reuse(path: Path, diags: Diagnostics) -> Checked | None:
    key = _kept_key(path)
    data = cache.read(f"checked-{key}.pickle") if key is not None else None
    kept = _unpickled(data) if data is not None else None
    if kept is None:
        return None
    edition, items, chain = kept
    for f in chain:
        diags.add_source(f.display, f.text)
    diags.items.extend(items)
    return Checked(None, diags, chain, kept=edition)


def _kept_key(path: Path) -> str | None:
    """The cache key of the result kept for this rulebook, if every file of its chain is as it
    was when the result was kept."""
    manifest = cache.read_json(f"check-{cache.path_key(path)}.json")
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        return None
    files = manifest["files"]
    key = cache.chain_key(files)
    return key if manifest.get("key") == key and cache.unchanged(files) else None


def _unpickled(data: bytes) -> tuple[bytes, list, list[LoadedFile]] | None:
    """(the edition still pickled, diagnostics, chain) of a kept result; None for a damaged one
    (compile afresh). The edition is unpickled by Checked.edition when asked for: the record is
    written whole and atomically under the compiler's fingerprint, so a record that unpickles
    holds an edition this compiler can unpickle."""
    try:
        with paused():
            record = pickle.loads(data)
        chain = [LoadedFile(Path(p), display, text, None, digest, named)
                 for p, display, text, digest, named in record["chain"]]
        edition = record["edition"]
        if not isinstance(edition, bytes):
            return None
        return edition, list(record["diagnostics"]), chain
    except Exception:
        return None


# The uses of the statements indexed by the last check (references.Index's memo): the house rules
# of a build share their base's syntax trees (loader._PARSED), so each indexes the base's
# statements once, not once per house rule. Only statements of the very same syntax tree are
# reused; the memo holds the last chain's and nothing else.
_INDEX_MEMO: dict = {}
# What each advance, calamity and commodity of the last edition validated reported
# (validator.validate's memo): a house rule's edition shares its base's items (applied_bases.AppliedBases),
# and an item object checked before under the same context reports the same again.
_VALIDATION_MEMO: dict = {}


def forget() -> None:
    """Forget what checking kept for the next check in this process (the syntax trees, the bases
    applied, the index's statements, the invariants found to hold, the clause lists read): a
    benchmark's fresh run."""
    from . import applied_bases, clauses, loader, validator

    loader.forget_parsed()
    applied_bases.forget_applied()
    _INDEX_MEMO.clear()
    _VALIDATION_MEMO.clear()
    validator.forget_held()
    clauses.forget_read()


# Errors after which the chain is not resolved: a file that cannot be read or parsed, a base that
# cannot be found or followed. The model would be guesswork.
STOP_CODES = frozenset({"CIV001", "CIV002", "CIV004", "CIV005", "CIV006", "CIV007", "CIV008"})


def stopped(diags: Diagnostics) -> bool:
    """Whether the diagnostics so far stop the chain from being resolved (STOP_CODES)."""
    return any(d.code in STOP_CODES for d in diags.errors)


def _check_file(path: Path, diags: Diagnostics) -> Checked:
    """Passes 0-4 (the collector paused: see gcpause)."""
    from .citations import check as check_citations
    from .loader import load_chain
    from .references import index_chain
    from .resolver import resolve
    from .validator import validate

    with paused():
        chain = load_chain(Path(path), diags)
        if not chain or stopped(diags):
            return Checked(None, diags, chain)
        edition = resolve(chain, diags)
        if edition is not None:
            validate(edition, diags, index_chain(chain, _INDEX_MEMO), _VALIDATION_MEMO)
            check_citations(edition, chain, diags)
        return Checked(edition, diags, chain)
