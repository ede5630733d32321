"""The resolved edition after an edit, made from the last one when the edit changed only
advances, calamities and commodities (and the `cites` nested in them) without changing their
names: the statements the edit replaced are read, their entries and citations put where the old
ones were, and nothing else is walked. Any other edit, and any edit after a resolution that
reported something, is resolved whole (`resolver.resolve`, which keeps each unchanged item's
reading in the same memo). Either way the edition equals the one `check` resolves."""

from __future__ import annotations

import bisect
import copy
import dataclasses
from dataclasses import dataclass
from typing import Any

from ..diagnostics import Diagnostics
from ..loader import LoadedFile
from ..references import kept_ends
from ..resolver import WHOLE_ITEMS, applier, citation_of, resolve, tier_figures

_LAST = "last resolved"  # the memo's entry holding `_Resolved` (the other entries are the resolver's)


@dataclass
class _Resolved:
    """What the last resolution of a buffer was made of, and what it made."""

    bases: list  # the bases' syntax trees
    header: tuple  # the buffer's header, as `_header`
    items: list  # the buffer's statements
    edition: Any  # model.Edition
    clean: bool  # whether resolving reported nothing
    edited: frozenset  # (kind, name) of the items the buffer's `change` and `remove` statements edit


def resolve_edit(chain: list[LoadedFile], diags: Diagnostics, memo: dict, stats: dict | None = None):
    """The chain's edition, as `resolve(chain, diags, memo)` gives it; `memo` is kept by the caller
    from one edit of the chain's last file to the next. `stats` counts the editions made from the
    last one ("spliced") and those resolved whole ("resolved")."""
    last = memo.pop(_LAST, None)
    asts = [f.ast for f in chain]
    edition = _spliced(asts, last, memo) if last is not None else None
    clean, edited = True, last.edited if edition is not None else None
    if stats is not None:
        key = "resolved" if edition is None else "spliced"
        stats[key] = stats.get(key, 0) + 1
    if edition is None:
        first = len(diags.items)
        edition = resolve(chain, diags, memo)
        clean = len(diags.items) == first
        # the statements an edit can splice are never these, so the set holds while it splices
        edited = frozenset((i.value, i.name) for i in asts[-1].items if i.kind in ("change", "remove"))
    if edition is not None:
        memo[_LAST] = _Resolved(asts[:-1], _header(asts[-1]), asts[-1].items, edition, clean, edited)
    return edition


def _header(ast) -> tuple:
    return ast.edition, ast.display_name, ast.language, ast.edition_span


def _spliced(asts: list, last: _Resolved, memo: dict):
    """The edition of `asts` made from `last`'s, or None when the edit is not one this can do."""
    if not _same_chain(asts, last):
        return None
    old, new = last.items, asts[-1].items
    head, tail = kept_ends(old, new)
    gone, came = old[head:len(old) - tail], new[head:len(new) - tail]
    if not _names_kept(gone, came) or any((i.kind, i.name) in last.edited for i in came):
        return None  # a later `change` or `remove` of the buffer edits what the statement declares
    edition = _copy(last.edition)
    read: dict = {}
    scratch = Diagnostics()
    # not as a house rule's: the edition holds the buffer's own items where a base's would be, and
    # none of these names is a base's (declaring one reports CIV101: the last resolution was clean)
    applier(edition, scratch, False, (memo, read)).apply([i for i in came if i.kind != "cites"])
    if scratch.items:
        return None
    following = new[len(new) - tail:]
    if following and following[0].kind == "cites" and following[0].value.target is None:
        return None  # it cites the statement before it, one the edit replaced
    after = next((i for i in following if i.kind != "cites"), None)
    citations = _citations(came, after, read)
    if citations is None or not _replace_citations(edition.citations, gone, citations, memo):
        return None
    for item in gone:
        memo.pop(id(item), None)
    memo.update(read)
    _tier_figures(edition, came)
    return edition


def _same_chain(asts: list, last: _Resolved) -> bool:
    """Whether `asts` are the chain `last` resolved, its last file edited but for its header,
    after a resolution that reported nothing."""
    return (last.clean and len(asts) - 1 == len(last.bases) and all(a is b for a, b in zip(asts, last.bases))
            and _header(asts[-1]) == last.header)


def _tier_figures(edition, came: list) -> None:
    """The tier rule's figures of the advances read again (`resolver._tier_vp` for those alone:
    the tiers are the same, no statement declaring them changed)."""
    for item in came:
        adv = edition.advances.get(item.name) if item.kind == "advance" else None
        if adv is not None and not adv.vp_explicit:
            adv.vp, adv.vp_when = tier_figures(edition, adv)


def _names_kept(gone: list, came: list) -> bool:
    """Whether the statements replaced are items declared whole and `cites` nested in them, with
    the same kinds and names in the same order, before and after."""
    def named(items):
        if any(i.kind not in WHOLE_ITEMS and (i.kind != "cites" or i.value.target is None) for i in items):
            return None
        return [(i.kind, i.name) for i in items if i.kind != "cites"]

    before = named(gone)
    return before is not None and before == named(came)


def _citations(came: list, after, read: dict) -> list | None:
    """The citations of the `cites` among the new statements, each in the statement it is nested
    in (recorded in `read` as the resolver records them); None when one's target is not inside
    the new statements (`after` is the statement that follows them)."""
    statements = [i for i in came if i.kind != "cites"]
    out = []
    for item in came:
        if item.kind != "cites":
            continue
        at = item.value.target
        k = bisect.bisect_right(statements, (at.line, at.column), key=lambda i: (i.span.line, i.span.column)) - 1
        if k < 0 or (after is not None and (at.line, at.column) >= (after.span.line, after.span.column)):
            return None
        owner = statements[k]
        citation = citation_of(item.value, at, owner)
        read[id(item)] = (item, owner, statements[k + 1] if k + 1 < len(statements) else after, citation)
        out.append(citation)
    return out


def _replace_citations(citations: list, gone: list, new: list, memo: dict) -> bool:
    """Put the new citations where those of the replaced `cites` were (one run: statements apply
    in order); False when those are not found there."""
    old = [memo.get(id(i)) for i in gone if i.kind == "cites"]
    if any(entry is None or entry[0] is not item for entry, item in zip(old, [i for i in gone if i.kind == "cites"])):
        return False
    if not old:
        return not new
    first = old[0][3]
    at = next((k for k, c in enumerate(citations) if c is first), None)
    if at is None or at + len(old) > len(citations) or any(
            citations[at + k] is not entry[3] for k, entry in enumerate(old)):
        return False
    citations[at:at + len(old)] = new
    return True


def _copy(edition):
    """A copy of the edition whose collections are its own (the last analysis keeps the old)."""
    out = copy.copy(edition)
    for f in dataclasses.fields(out):
        value = getattr(out, f.name)
        if type(value) in (dict, list):
            setattr(out, f.name, type(value)(value))
    return out
