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


def check(ed: Edition, paths: list[Path], editions: list[str], diags: Diagnostics) -> clauses.ClauseList | None:
    """Read the chain's clause list (when the chain cites or acknowledges a clause, or has one)
    and check every clause id against it. The list is remembered on the edition (its path and
    digest, for the check cache)."""
    found = clauses.find(paths, editions)
    if found is None:
        first = _first_use(ed)
        if first is not None:
            where = Path(paths[-1]).parent / clauses.FOLDER / f"{editions[-1]}{clauses.SUFFIX}"
            diags.error("CIV162", f"edition `{ed.id}` has no clause list to check this clause against", first,
                        help=f"write one ({where}; tools/make_clauses.py makes it from a copy of the rules), "
                             "or remove the citation")
        return None
    listed = clauses.read(_shown(found), diags)
    if listed is None:
        return None
    ed.clause_list = (str(found), listed.digest)
    known = listed.clauses
    for cite in ed.citations:
        for clause_id, span in cite.clauses:
            _known(clause_id, span, known, diags)
    errata_codes = {e.code for e in ed.errata}
    for ack in ed.acknowledgements:
        for clause_id, span in ack.clauses:
            _known(clause_id, span, known, diags)
        if ack.kind == "covered_by":
            for clause_id, span in ack.detail:
                _known(clause_id, span, known, diags)
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
    return listed


def _shown(path: Path) -> Path:
    """A path as diagnostics show it: relative to the working folder when inside it."""
    try:
        return path.absolute().relative_to(Path.cwd())
    except ValueError:
        return path


def _first_use(ed: Edition) -> Span | None:
    spans = [c.clauses[0][1] for c in ed.citations] + [a.clauses[0][1] for a in ed.acknowledgements]
    return min(spans, key=lambda s: (s.path, s.line, s.column)) if spans else None


def _known(clause_id: str, span: Span, known: dict, diags: Diagnostics) -> None:
    if clause_id in known:
        return
    hint = did_you_mean(clause_id, list(known))
    diags.error("CIV161", f"clause `{clause_id}` is not in the edition's clause list", span,
                help=f"did you mean `{hint}`?" if hint else "cite a clause id of the clause list "
                                                              "(`civdsl cover EDITION` lists them)")
