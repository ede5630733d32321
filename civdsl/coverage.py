"""`civdsl cover`: the printed clauses of an edition, clause by clause, against its rulebook.

For each clause of the clause list: the statements that implement it (`cites`, with file and
line), or its acknowledgement (`clause ... ACK`, or its kind when it prints no rule), or nothing
("uncovered"); the clauses per kind; the top-level statements that cite no clause; the share
covered per chapter. In a chapter that must be complete, a kind acknowledges a clause only where
it was read by hand (a `kind` line of the list): the generator's reading of kinds is a guess, and a
guess must not hide a rule nobody implements. A house rule's own citations are the clauses it
changes, the base's cover the rest. With a copy of the printed rules, the copy is cut into
clauses (segment.py) and each clause's fingerprint compared: which clauses differ from the copy
the list was made from, which are new, which are gone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import clauses as clause_lists
from .clauses import ClauseList
from .frontend import Checked
from .segment import segment_copy

# Statements that are no rule of play: they need no clause.
_NOT_RULES = frozenset({"source", "note", "assert", "errata", "cites", "clause", "remove"})
_WIDTH = 90  # of a statement's line as shown beside a clause


@dataclass
class Implementation:
    path: str
    line: int
    text: str  # the statement's first line as written
    owner: str  # the top-level statement holding it, as written (its first line)
    changed_by_house_rule: bool = False


@dataclass
class ClauseCover:
    id: str
    title: str
    kind: str
    required: bool
    implementations: list[Implementation] = field(default_factory=list)
    acknowledged: str | None = None  # how (the acknowledgement's words), if not implemented
    text: str | None = None  # with a copy: "same", "differs", "gone", "not fingerprinted"

    @property
    def status(self) -> str:
        if self.implementations:
            return "implemented"
        if self.acknowledged:
            return "acknowledged"
        return "uncovered"


@dataclass
class Report:
    edition: str
    clause_list: str
    clauses: list[ClauseCover]
    uncited: list[Implementation]  # top-level statements that cite no clause
    chapters: list[tuple[str, str, int, int]]  # (chapter, title, covered, total)
    new_in_copy: list[tuple[str, str, int]] = field(default_factory=list)  # (id, title, line of the copy)
    house_rule: bool = False

    @property
    def changed_by_house_rule(self) -> list[ClauseCover]:
        return [c for c in self.clauses if any(i.changed_by_house_rule for i in c.implementations)]

    @property
    def required_uncovered(self) -> list[ClauseCover]:
        return [c for c in self.clauses if c.required and c.status == "uncovered"]


def cover(checked: Checked, listed: ClauseList, copy: str | None = None) -> Report:
    ed = checked.edition
    line_of = _Lines(checked.chain)
    own_file = checked.chain[-1].display if len(checked.chain) > 1 else None
    # what the house rule changes: its own statements, and the base's items it changes or removes
    changed = {(i.value, i.name) for i in checked.chain[-1].ast.items if i.kind in ("change", "remove")} \
        if own_file else set()
    by_clause, cited_owners = _implementations(ed, line_of, own_file, changed)
    acks, covering = _acknowledged(ed)
    rows = []
    for c in listed.clauses.values():
        required = listed.is_required(c.id)
        ack = acks.get(c.id) or (f"{c.kind}: {clause_lists.KINDS[c.kind]}" if _kind_acknowledges(listed, c, required)
                                 else None)
        rows.append(ClauseCover(c.id, c.title, c.kind, required, by_clause.get(c.id, []), ack))
    _uncover_what_covers_nothing(rows, covering)
    uncited = [Implementation(item.span.path, item.span.line, line_of(item.span.path, item.span.line), "",
                              item.span.path == own_file)
               for f in checked.chain for item in f.ast.items
               if item.kind not in _NOT_RULES and (item.span.path, item.span.line, item.span.column) not in cited_owners]
    report = Report(ed.id, listed.path, rows, uncited, _chapters(listed, rows), house_rule=own_file is not None)
    if copy is not None:
        _compare(report, listed, copy)
    return report


class _Lines:
    """A line of a file of the chain as a report shows it: stripped, cut to the report's width."""

    def __init__(self, chain: list):
        self.texts = {f.display: f.text.splitlines() for f in chain}

    def __call__(self, path: str, line: int) -> str:
        lines = self.texts.get(path, ())
        text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        return text if len(text) <= _WIDTH else text[:_WIDTH - 1] + "…"


def _implementations(ed, line_of: _Lines, own_file: str | None,
                     changed: set) -> tuple[dict[str, list[Implementation]], set[tuple[str, int, int]]]:
    """(each cited clause's implementations, where the statements that cite are)."""
    by_clause: dict[str, list[Implementation]] = {}
    cited_owners: set[tuple[str, int, int]] = set()
    for cite in ed.citations:
        cited_owners.add((cite.owner.path, cite.owner.line, cite.owner.column))
        impl = Implementation(cite.target.path, cite.target.line, line_of(cite.target.path, cite.target.line),
                              line_of(cite.owner.path, cite.owner.line),
                              cite.span.path == own_file or (cite.owner_kind, cite.owner_name) in changed)
        for clause_id, _ in cite.clauses:
            by_clause.setdefault(clause_id, []).append(impl)
    return by_clause, cited_owners


def _acknowledged(ed) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(each acknowledged clause's words, each clause acknowledged as covered by others: those others)."""
    acks: dict[str, str] = {}
    covering: dict[str, list[str]] = {}
    for ack in ed.acknowledgements:
        words = _acknowledgement_words(ack)
        for clause_id, _ in ack.clauses:
            acks[clause_id] = words
            if ack.kind == "covered_by":
                covering[clause_id] = [i for i, _ in ack.detail]
    return acks, covering


def _kind_acknowledges(listed: ClauseList, clause: clause_lists.Clause, required: bool) -> bool:
    if clause.kind == "rule":
        return False
    return not required or listed.hand_kind(clause.id) == clause.kind


def kinds(report: Report) -> list[tuple[str, int, int]]:
    """Per kind of clause (in the order of clauses.KINDS): (kind, clauses, of which uncovered)."""
    counts = {kind: [0, 0] for kind in clause_lists.KINDS}
    for c in report.clauses:
        counts[c.kind][0] += 1
        counts[c.kind][1] += c.status == "uncovered"
    return [(kind, total, uncovered) for kind, (total, uncovered) in counts.items()]


def _uncover_what_covers_nothing(rows: list[ClauseCover], covering: dict[str, list[str]]) -> None:
    """A clause `covered_by` others is covered only while every one of them is (in turn, to any depth)."""
    by_id = {r.id: r for r in rows}
    changed = True
    while changed:
        changed = False
        for clause_id, others in covering.items():
            row = by_id.get(clause_id)
            if row is not None and row.acknowledged and not row.implementations and \
                    any(by_id[o].status == "uncovered" for o in others if o in by_id):
                row.acknowledged = None
                changed = True


def _acknowledgement_words(ack) -> str:
    if ack.kind == "out_of_scope":
        return f"out of scope ({ack.detail[0]}): {ack.detail[1]}"
    if ack.kind == "flavour":
        return "flavour" + (f": {ack.detail[0]}" if ack.detail else "")
    if ack.kind == "covered_by":
        return "covered by " + ", ".join(i for i, _ in ack.detail)
    if ack.kind == "departs":
        return f"departs: {ack.detail[0]}"
    return f"errata {ack.detail[0]}"


def _chapters(listed: ClauseList, rows: list[ClauseCover]) -> list[tuple[str, str, int, int]]:
    order: dict[str, list[int]] = {}
    for row in rows:
        counts = order.setdefault(listed.chapter_of(row.id), [0, 0])
        counts[1] += 1
        counts[0] += row.status != "uncovered"
    return [(ch, listed.chapter_title(ch), covered, total) for ch, (covered, total) in order.items()]


def _compare(report: Report, listed: ClauseList, copy: str) -> None:
    found = {s.id: s for s in segment_copy(copy, listed)}
    for row in report.clauses:
        clause = listed.clauses[row.id]
        segment = found.get(row.id)
        if segment is None:
            row.text = "gone" if clause.fingerprint is not None else None
        elif clause.fingerprint is None:
            row.text = "not fingerprinted"
        else:
            row.text = "same" if segment.fingerprint == clause.fingerprint else "differs"
    report.new_in_copy = [(s.id, s.title, s.line) for s in found.values() if s.id not in listed.clauses]


# --- answers -----------------------------------------------------------------------------------

def to_json(report: Report) -> dict:
    return {
        "edition": report.edition,
        "clause_list": report.clause_list,
        "house_rule": report.house_rule,
        "clauses": [{
            "id": c.id, "title": c.title, "kind": c.kind, "required": c.required, "status": c.status,
            "implemented_by": [{"path": i.path, "line": i.line, "statement": i.text, "in": i.owner,
                                "changed_by_house_rule": i.changed_by_house_rule} for i in c.implementations],
            "acknowledged": c.acknowledged,
            **({"text": c.text} if c.text is not None else {}),
        } for c in report.clauses],
        "uncited": [{"path": u.path, "line": u.line, "statement": u.text} for u in report.uncited],
        "kinds": [{"kind": k, "clauses": total, "uncovered": n} for k, total, n in kinds(report)],
        "chapters": [{"chapter": ch, "title": t, "covered": n, "clauses": total} for ch, t, n, total in report.chapters],
        "required_uncovered": [c.id for c in report.required_uncovered],
        **({"changed_by_house_rule": [c.id for c in report.changed_by_house_rule]} if report.house_rule else {}),
        "text_differs": [c.id for c in report.clauses if c.text == "differs"],
        "text_gone": [c.id for c in report.clauses if c.text == "gone"],
        "text_new": [{"id": i, "title": t, "line": line} for i, t, line in report.new_in_copy],
    }


def _status_words(c: ClauseCover) -> list[str]:
    if c.implementations:
        return [f"{i.path}:{i.line}  {i.text}" + ("  (in what the house rule changes)" if i.changed_by_house_rule else "")
                for i in c.implementations]
    return [c.acknowledged or "UNCOVERED"]


def render_text(report: Report, full: bool = True) -> str:
    out = [f"Clauses of {report.edition} ({report.clause_list})", ""]
    for c in report.clauses:
        if not full and c.status != "uncovered" and c.text in (None, "same"):
            continue
        mark = {"implemented": "ok", "acknowledged": "--", "uncovered": "!!"}[c.status]
        text = f"  [printed text {c.text}]" if c.text not in (None, "same") else ""
        words = _status_words(c)
        out.append(f"{mark} {c.id}  {c.title}{'  (required)' if c.required and c.status == 'uncovered' else ''}{text}")
        out.extend(f"     {w}" for w in words)
    out += ["", "Clauses per kind:"]
    out += [f"  {kind:<11} {total:>4}  {'(' + str(n) + ' uncovered)' if n else ''}".rstrip()
            for kind, total, n in kinds(report)]
    out += ["", "Covered per chapter:"]
    for ch, title, covered, total in report.chapters:
        out.append(f"  {ch:<8} {title[:50]:<50} {covered:>4}/{total:<4} {100 * covered // max(total, 1):>3}%")
    if report.uncited:
        out += ["", f"Statements that cite no clause ({len(report.uncited)}):"]
        out += [f"  {u.path}:{u.line}  {u.text}" for u in report.uncited]
    if report.house_rule:
        changed = report.changed_by_house_rule
        out += ["", f"Clauses cited in what the house rule writes or changes ({len(changed)}): "
                + ", ".join(c.id for c in changed)]
    out += _text_changes(report)
    missing = report.required_uncovered
    out += ["", f"{len(missing)} clause(s) of the required chapters uncovered" + (": " + ", ".join(c.id for c in missing)
                                                                                  if missing else "")]
    return "\n".join(out) + "\n"


def _text_changes(report: Report) -> list[str]:
    differs = [c for c in report.clauses if c.text == "differs"]
    gone = [c for c in report.clauses if c.text == "gone"]
    if not (differs or gone or report.new_in_copy) and not any(c.text for c in report.clauses):
        return []
    out = ["", "Against the copy given:"]
    out.append(f"  text differs ({len(differs)}): " + ", ".join(c.id for c in differs))
    out.append(f"  gone ({len(gone)}): " + ", ".join(c.id for c in gone))
    out.append(f"  new ({len(report.new_in_copy)}): " + ", ".join(f"{i} (line {line})"
                                                                   for i, _, line in report.new_in_copy))
    return out


def render_md(report: Report) -> str:
    from .escape import markdown as md

    out = [f"# Clauses of {md(report.edition)}", "", "| clause | heading | status | implemented by or why |",
           "|---|---|---|---|"]
    for c in report.clauses:
        words = "<br>".join(md(w) for w in _status_words(c))
        out.append(f"| {md(c.id)} | {md(c.title)} | {c.status}{' (text ' + c.text + ')' if c.text else ''} | {words} |")
    out += ["", "| chapter | title | covered |", "|---|---|---|"]
    out += [f"| {md(ch)} | {md(t)} | {n}/{total} |" for ch, t, n, total in report.chapters]
    return "\n".join(out) + "\n"


def render_html(report: Report) -> str:
    from .escape import html as h

    rows = "".join(
        f"<tr class=\"{c.status}\"><td>{h(c.id)}</td><td>{h(c.title)}</td><td>{c.status}"
        f"{' (text ' + h(c.text) + ')' if c.text else ''}</td><td>{'<br>'.join(h(w) for w in _status_words(c))}</td></tr>"
        for c in report.clauses)
    chapters = "".join(f"<tr><td>{h(ch)}</td><td>{h(t)}</td><td>{n}/{total}</td></tr>"
                       for ch, t, n, total in report.chapters)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Clauses of {h(report.edition)}</title><style>.uncovered td{{background:#fdd}}"
            "td{vertical-align:top;padding:2px 6px}</style></head><body>"
            f"<h1>Clauses of {h(report.edition)}</h1><table><tr><th>clause</th><th>heading</th><th>status</th>"
            f"<th>implemented by or why</th></tr>{rows}</table><h2>Per chapter</h2><table>{chapters}</table>"
            "</body></html>\n")
