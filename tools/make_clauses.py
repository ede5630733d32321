"""Write an edition's clause list (rulebooks/clauses/<edition>.clauses) from a copy of its rules.

    python tools/make_clauses.py EDITION RULES.txt [--names CHAPTER=advances|calamities ...]

The list's header (its `segment`, `chapter`, `repair`, `skip` and `require` lines) is kept as
written by hand; the clauses are those segment.py finds in the copy, each with its fingerprint.
A clause already listed keeps its kind and title (hand edits survive); one listed with no
fingerprint (`-`: the copy lost its heading) is kept where it was. `--names` gives, for a chapter
cut by headings, the rulebook's items whose names are its headings (Mega Civilization: chapter 8
the calamities, chapter 9 the advances). The copy itself is never written anywhere.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from civdsl import api, clauses, frontend  # noqa: E402
from civdsl.diagnostics import Diagnostics  # noqa: E402
from civdsl.segment import segment  # noqa: E402

_COLLECTIONS = {"advances": "advances", "calamities": "calamities"}


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
        fresh[s.id] = clauses.Clause(s.id, kept.kind if kept else "rule", s.fingerprint,
                                     kept.title if kept else s.title, 0)
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
