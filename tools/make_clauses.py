"""Write an edition's clause list (rulebooks/clauses/<edition>.clauses) from a copy of its rules.

    python tools/make_clauses.py EDITION RULES.txt [--names CHAPTER=advances|calamities ...]

The list's header (its `segment`, `chapter`, `repair`, `skip`, `require` and `kind` lines) is
kept as written by hand; the clauses are those segment.py finds in the copy, each with its
fingerprint. A clause already listed keeps its title (hand edits survive); one listed with no
fingerprint (`-`: the copy lost its heading) is kept where it was. `--names` gives, for a chapter
cut by headings, the rulebook's items whose names are its headings (Mega Civilization: chapter 8
the calamities, chapter 9 the advances). The copy itself is never written anywhere.

Each clause's kind is read from its printed text (`guess_kind`), a generic reading of its heading
and first words, the same for every edition: a heading or an opening that says "Example" (or "For
example") is an `example`; a heading of an introduction, history or designer's note is `flavour`;
a heading of the components, inventory or contents is `components`; a heading about the board
itself (mapboard, areas, boundaries, movement, conflict, ships) is `map`, and a clause below such a
heading is of its kind unless its own reads otherwise. Everything else is a `rule`. Where the
reading is wrong, a `kind "ID" KIND` line in the header says the kind read by hand, and wins, for
that clause and those below it (unless one of them has a `kind` line of its own).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from civdsl import api, clauses, frontend  # noqa: E402
from civdsl.diagnostics import Diagnostics  # noqa: E402
from civdsl.segment import segment  # noqa: E402

_COLLECTIONS = {"advances": "advances", "calamities": "calamities"}

# The kinds read from a clause's heading (a word anywhere in it) and from its opening words.
_EXAMPLE_HEADING = re.compile(r"\bexamples?\b", re.I)
_EXAMPLE_OPENING = re.compile(r"(?:example\b|for example\b|for instance\b)", re.I)
_HEADING_KINDS = (
    ("flavour", re.compile(r"\b(?:introduction|histor(?:y|ical)|designer'?s?|background)\b", re.I)),
    ("components", re.compile(r"^(?:game )?(?:components|inventory|contents|playing pieces)$", re.I)),
    ("map", re.compile(r"\b(?:mapboard|map|board|land areas?|water areas?|land boundar(?:y|ies)|"
                       r"water boundar(?:y|ies)|movement|conflict|ships?|boats?)\b", re.I)),
)
# How far into a clause its opening words are looked for (after its heading).
_OPENING_CHARACTERS = 40
_INHERITED = ("flavour", "components", "map")
_MARKUP = " #*_-:.()0123456789"  # Markdown and a paragraph's number before its heading or text


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("edition")
    args.add_argument("text", type=Path)
    args.add_argument("--names", action="append", default=[], metavar="CHAPTER=KIND")
    opts = args.parse_args(argv)
    path = ROOT / "rulebooks" / clauses.FOLDER / f"{opts.edition}{clauses.SUFFIX}"
    diags = Diagnostics()
    old = clauses.read(path, diags) if path.exists() else clauses.ClauseList(opts.edition, str(path), "")
    if diags.has_errors or old is None:
        print(diags.render(), file=sys.stderr)
        return 1
    old.edition = opts.edition
    names = _names(opts.edition, opts.names, old.scheme)
    found = segment(opts.text.read_text(encoding="utf-8"), old, names)
    fresh: dict[str, clauses.Clause] = {}
    previous: dict[str, str | None] = {}
    last = None
    for c in old.clauses.values():
        previous[c.id] = last
        last = c.id
    for s in found:
        kept = old.clauses.get(s.id)
        parent = fresh.get(old.parent_of(s.id))
        kind = old.hand_kind(s.id) or guess_kind(s.title, s.body, parent.kind if parent else "rule")
        fresh[s.id] = clauses.Clause(s.id, kind, s.fingerprint, kept.title if kept else s.title, 0)
    for clause_id in old.kinds:
        if clause_id not in fresh and clause_id not in old.clauses:
            print(f"a kind is read by hand for {clause_id}, which is no clause", file=sys.stderr)
    for c in old.clauses.values():
        if c.id not in fresh and c.fingerprint is None:
            fresh = _insert_after(fresh, previous[c.id], c)
        elif c.id not in fresh:
            print(f"no longer found: {c.id}", file=sys.stderr)
    old.clauses = fresh
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():  # the header as written by hand, comments and all; the clauses afresh
        text = path.read_text(encoding="utf-8")
        at = text.find("\nclause ")
        path.write_text((text[:at + 1] if at >= 0 else text) + clauses.clause_lines(old), encoding="utf-8")
    else:
        path.write_text(clauses.write(old), encoding="utf-8")
    print(f"{path.relative_to(ROOT)}: {len(fresh)} clauses")
    return 0


def guess_kind(title: str, body: str, parent_kind: str = "rule") -> str:
    """A clause's kind read from its heading and its first words (see the module's text)."""
    opening = " ".join(body.split()).lstrip(_MARKUP)
    plain_title = " ".join(title.split())
    if plain_title and opening.casefold().startswith(plain_title.casefold()):
        opening = opening[len(plain_title):]
    opening = opening.lstrip(_MARKUP)[:_OPENING_CHARACTERS]
    if _EXAMPLE_HEADING.search(title) or _EXAMPLE_OPENING.match(opening):
        return "example"
    for kind, heading in _HEADING_KINDS:
        if heading.search(title):
            return kind
    return parent_kind if parent_kind in _INHERITED else "rule"


def _names(edition: str, specs: list[str], scheme: str) -> dict[str, list[str]]:
    if not specs:
        return {}
    ed = frontend.check_file(api.locate(edition)).edition
    out: dict[str, list[str]] = {}
    for spec in specs:
        chapter, _, kind = spec.partition("=")
        items = getattr(ed, _COLLECTIONS[kind])
        out[clauses.chapter_id(chapter, scheme)] = list(items)
    return out


def _insert_after(fresh: dict, after: str | None, clause: clauses.Clause) -> dict:
    out: dict = {}
    if after is None:
        out[clause.id] = clause
    for key, value in fresh.items():
        out[key] = value
        if key == after:
            out[clause.id] = clause
    if clause.id not in out:
        out[clause.id] = clause
    return out


if __name__ == "__main__":
    sys.exit(main())
