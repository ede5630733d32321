"""Pass 4b: a rulebook's citations and acknowledgements checked against its edition's clause list.

Every clause a `cites` or a `clause` names must be in the list (CIV161, with the nearest id); a
`covered_by` must name listed clauses, an `errata` acknowledgement an errata line of the chain
(CIV164), and an `out_of_scope` one of the scopes below. A chain that cites clauses but has no
clause list is told where the list is looked for (CIV162).
"""

from __future__ import annotations

from pathlib import Path

from . import clauses
from .diagnostics import Diagnostics, Span, did_you_mean
from .model import Edition

# What a printed rule may be out of scope for: what the tool does not model, and says so.
OUT_OF_SCOPE = {
    "map": "it happens on the board: areas, movement, conflict, placement",
    "table": "it is handled at the table: shuffling, dealing, the order of the players' turns",
    "variant": "a variant or scenario the rulebook does not model",
}


def check(ed: Edition, chain: list, diags: Diagnostics) -> clauses.ClauseList | None:
    """Check every clause id of the chain against its clause list: a file's `cites` and `clause`
    against the list of that file's edition, or of the nearest base that has one (a house rule is
    checked against its base's list unless it brings its own). The most derived list is remembered
    on the edition (its path and digest: the check cache keys on it) and returned."""
    lists = _lists_by_file(chain, diags)
    leaf = lists.get(chain[-1].display) if chain else None
    if leaf is not None:
        ed.clause_list = (leaf.path, leaf.digest)
    missing: dict[str, Span] = {}
    for cite in ed.citations:
        listed = lists.get(cite.span.path)
        ids = listed.clauses if listed is not None else ()
        for clause_id, span in cite.clauses:
            if clause_id not in ids:  # the usual listed clause costs one look-up, no call
                _known(clause_id, span, listed, diags, missing)
    errata_codes = {e.code for e in ed.errata}
    for ack in ed.acknowledgements:
        _acknowledgement(ack, lists.get(ack.span.path), errata_codes, diags, missing)
    for path, span in missing.items():
        _no_clause_list(next(f for f in chain if f.display == path), span, diags)
    return leaf


def _lists_by_file(chain: list, diags: Diagnostics) -> dict[str, clauses.ClauseList | None]:
    """Each file's clause list (by its display path): its edition's, or its nearest base's; each
    list read once."""
    paths = [f.path for f in chain]
    editions = [f.ast.edition for f in chain]
    lists: dict[str, clauses.ClauseList | None] = {}
    read: dict[Path, clauses.ClauseList | None] = {}
    for k, f in enumerate(chain):
        found = clauses.find(paths[:k + 1], editions[:k + 1])
        if found is not None and found not in read:
            read[found] = clauses.read(_shown(found), diags)
        lists[f.display] = read.get(found) if found is not None else None
    return lists


def _acknowledgement(ack, listed: clauses.ClauseList | None, errata_codes: set, diags: Diagnostics,
                     missing: dict[str, Span]) -> None:
    """An acknowledgement's clauses, and what its kind names: listed clauses (`covered_by`), an
    errata line of the chain (`errata`), a known scope (`out_of_scope`)."""
    for clause_id, span in ack.clauses:
        _known(clause_id, span, listed, diags, missing)
    if ack.kind == "covered_by":
        for clause_id, span in ack.detail:
            _known(clause_id, span, listed, diags, missing)
    elif ack.kind == "errata" and ack.detail[0] not in errata_codes:
        diags.error("CIV164", f"no errata line of the rulebook has code {ack.detail[0]}", ack.detail[1],
                    help=f"an `errata` acknowledgement names the errata line that records the departure: "
                         f"add `errata {ack.detail[0]} \"ITEM\" \"why\"`, or acknowledge the clause otherwise")
    elif ack.kind == "out_of_scope" and ack.detail[0] not in OUT_OF_SCOPE:
        name, _, span = ack.detail
        hint = did_you_mean(name, list(OUT_OF_SCOPE))
        diags.error("CIV164", f"`{name}` is no scope a clause can be out of", span,
                    help=(f"did you mean `{hint}`? " if hint else "")
                    + "one of: " + ", ".join(f"`{k}` ({v})" for k, v in OUT_OF_SCOPE.items()))


def _no_clause_list(f, span: Span, diags: Diagnostics) -> None:
    """A file cites clauses but its edition has no clause list: where the list is looked for."""
    where = Path(f.path).parent / clauses.FOLDER / f"{f.ast.edition}{clauses.SUFFIX}"
    diags.error("CIV162", f"edition `{f.ast.edition}` has no clause list to check this clause against", span,
                help=f"write one ({_shown(where)}; tools/make_clauses.py makes it from a copy of the rules), "
                     "or remove the citation")


def _shown(path: Path) -> Path:
    """A path as diagnostics show it: relative to the working folder when inside it."""
    try:
        return path.absolute().relative_to(Path.cwd())
    except ValueError:
        return path


def _known(clause_id: str, span: Span, listed: clauses.ClauseList | None, diags: Diagnostics,
           missing: dict[str, Span]) -> None:
    if listed is None:
        missing.setdefault(span.path, span)  # reported once per file
        return
    if clause_id in listed.clauses:
        return
    hint = did_you_mean(clause_id, list(listed.clauses))
    diags.error("CIV161", f"clause `{clause_id}` is not in the edition's clause list", span,
                help=f"did you mean `{hint}`?" if hint else "cite a clause id of the clause list "
                                                              "(`civdsl cover EDITION` lists them)")
