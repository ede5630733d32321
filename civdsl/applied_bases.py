"""The editions of house rules' bases applied before in this process (pass 3's shared work): a
house rule's chain starts from a copy of its base's edition and applies only its own files."""

from __future__ import annotations

import copy
import dataclasses

from .diagnostics import Diagnostics
from .loader import LoadedFile
from .model import Advance, Edition


class AppliedBases:
    """The editions of the chains applied last in this process, each as its files made it (before
    the tier rule and the checks of the whole), with the diagnostics applying them gave.

    A build checks each house rule after its base, and a house rule's chain begins with its
    base's whole chain, read from the same syntax trees (loader._PARSED): its edition starts from
    a copy of the base's and applies only its own files. The copy is one level deep (each
    collection copied, the items in them shared): applying a file only adds, replaces or removes
    items and never edits one it did not make (`change` edits a copy, resolver's `_editable_copy`), and the
    passes after resolving only read the model. A base whose sub-language models hold anything is
    applied afresh (their models are theirs to copy). Kept by the syntax trees' identity, the
    trees kept with them."""

    KEPT = 8

    def __init__(self) -> None:
        self._kept: dict[tuple, tuple[tuple, Edition, list]] = {}

    def start(self, chain: list[LoadedFile], subs: tuple, edition: Edition,
              diags: Diagnostics) -> tuple[int, dict[int, Advance]]:
        """(how many files of `chain` are applied already, the advances shared by id): the
        longest base chain kept is copied into `edition` and its diagnostics are given again."""
        for files in range(len(chain) - 1, 0, -1):
            asts = tuple(f.ast for f in chain[:files])
            found = self._kept.get((subs, tuple(map(id, asts))))
            if found is None or any(a is not b for a, b in zip(found[0], asts)):
                continue
            _, base, items = found
            _fork_into(base, edition)
            diags.items.extend(copy.copy(d) for d in items)
            return files, {id(a): a for a in base.advances.values()}
        return 0, {}

    def keep(self, chain: list[LoadedFile], subs: tuple, edition: Edition, items: list) -> None:
        """Keep the chain's edition as its files made it, with the diagnostics applying them gave."""
        if any(s.declared(edition.extensions[s.name]) for s in subs if s.name in edition.extensions):
            return
        asts = tuple(f.ast for f in chain)
        kept = Edition(id=edition.id, name=edition.name, language=edition.language, span=edition.span)
        _fork_into(edition, kept)
        if len(self._kept) >= self.KEPT:
            del self._kept[next(iter(self._kept))]
        self._kept[subs, tuple(map(id, asts))] = (asts, kept, [copy.copy(d) for d in items])

    def forget(self) -> None:
        self._kept.clear()


# What an edition never takes from its base: its identity, and its sub-language models (an
# edition is copied from a base only while those hold nothing: `AppliedBases.keep`)
_OWN = frozenset({"id", "name", "language", "span", "files", "bases", "extensions"})


def _fork_into(base: Edition, edition: Edition) -> None:
    """Give `edition` the base's declarations: each collection copied (a dict of settings by
    option, `amounts_when`, each inner dict too), so adding to one leaves the base as it is."""
    for f in dataclasses.fields(Edition):
        if f.name in _OWN:
            continue
        value = getattr(base, f.name)
        if f.name == "amounts_when":
            value = {option: dict(settings) for option, settings in value.items()}
        elif type(value) in (dict, list):
            value = type(value)(value)
        setattr(edition, f.name, value)


APPLIED = AppliedBases()


def forget_applied() -> None:
    """Forget the bases applied so far (a benchmark's fresh run, a test's)."""
    APPLIED.forget()
