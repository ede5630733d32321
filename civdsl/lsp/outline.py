"""The outline (document symbols), read from tokens so that it works while the text does not
parse, and formatting through `civdsl.fmt`."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

from .. import parser
from ..references import ERRATA_TARGETS
from .files import FileInfo
from .tokens import Tok, split_statements, unquote_string

log = logging.getLogger("civdsl.lsp")


@dataclass
class OutlineItem:
    name: str
    kind: str  # advance, calamity, commodity, civilization (its setups, block), track, epoch, group, const,
    # table, option, score, change, remove, trade_deck, setups
    start: int
    end: int
    name_start: int
    name_end: int
    detail: str | None = None
    children: list["OutlineItem"] = field(default_factory=list)


def outline(info: FileInfo) -> list[OutlineItem]:
    """The document's top-level statements, from its tokens (so it works while the text does not
    parse), tracks with their epochs."""
    toks = info.tokens
    marks = split_statements(toks)
    ends = [m - 1 for m in marks[1:]] + [len(toks) - 1]
    found = [_outline_item(toks, m, end) for m, end in list(zip(marks, ends))[_first_statement(toks):] if end >= m]
    return [o for o in found if o is not None]


def _first_statement(toks: list[Tok]) -> int:
    """Which piece of split_statements is the first statement: the first piece is the header,
    unless the text starts with a statement."""
    return 0 if toks and toks[0].kind == "kw" and toks[0].text in parser.item_starters() else 1


class _Statement(NamedTuple):
    """The tokens m..end of one top-level statement, as the outline reads them."""

    toks: list[Tok]
    m: int
    end: int

    def token(self, k: int, kind: str) -> Tok | None:
        """Its k-th token, if it is of `kind` (name, string, ...)."""
        return self.toks[self.m + k] if self.m + k <= self.end and self.toks[self.m + k].kind == kind else None

    def entry(self, name: str, kind: str, name_tok: Tok, detail: str | None = None) -> OutlineItem:
        return OutlineItem(name, kind, self.toks[self.m].start, self.toks[self.end].end, name_tok.start, name_tok.end,
                           detail)


def _outline_item(toks: list[Tok], m: int, end_i: int) -> OutlineItem | None:
    """The outline entry of the statement of tokens m..end_i, or None for one the outline skips."""
    statement = _Statement(toks, m, end_i)
    keyword = toks[m].text
    if keyword in _OUTLINE_WORDS:
        return _named_entry(statement, *_OUTLINE_WORDS[keyword])
    outlined = _OUTLINE.get(keyword)
    return outlined(statement) if outlined is not None else None


def _item_entry(st: _Statement) -> OutlineItem | None:
    """`advance "Pottery" { ... }` (a calamity, a commodity)."""
    name = st.token(1, "string")
    return st.entry(unquote_string(name.text), st.toks[st.m].text, name) if name is not None else None


def _edit_entry(st: _Statement) -> OutlineItem | None:
    """`change advance "Pottery" { ... }`, `remove calamity "Flood"`."""
    name = st.token(2, "string")
    if name is None:
        return None
    keyword = st.toks[st.m].text
    return st.entry(f"{keyword} {st.toks[st.m + 1].text} {unquote_string(name.text)}", keyword, name)


def _ast_entry(st: _Statement) -> OutlineItem | None:
    """An A.S.T. track, with its epochs."""
    track = _named_entry(st, "track", True)
    if track is not None:
        track.children = [_epoch_entry(st.toks, j, st.end) for j in range(st.m, st.end)
                          if st.toks[j].kind == "kw" and st.toks[j].text == "epoch" and st.toks[j + 1].kind == "string"]
    return track


def _named_entry(st: _Statement, kind: str, titled: bool) -> OutlineItem | None:
    """A statement declaring a bare name (`group arts "Arts"`, `stat food "Food"`), its title the
    detail when `titled`."""
    name = st.token(1, "name")
    if name is None:
        return None
    title = st.token(2, "string") if titled else None
    return st.entry(name.text, kind, name, unquote_string(title.text) if title is not None else None)


def _clause_end(toks: list[Tok], j: int, end_i: int) -> int:
    """The last token of the clause starting at keyword j inside a block: its words up to the
    next keyword or brace that is not part of a list (`setups "5 West", "10"`, `block east for "11"`)."""
    k = j
    while k + 1 <= end_i and (toks[k + 1].kind in ("name", "string", "int") or toks[k + 1].text in (",", "..")
                              or (toks[k + 1].text == "for" and toks[k].kind == "name")):
        k += 1
    return k


def _words(toks: list[Tok], first: int, last: int) -> str:
    return " ".join(t.text for t in toks[first:last + 1]).replace(" ,", ",").replace(" .. ", "..")


def _civilization_entry(st: _Statement) -> OutlineItem | None:
    """A civilization, with its set-up clauses: the set-ups that use it (`setups`) and the block
    it plays in some of them (`block ID for "SETUP", ...`)."""
    civ = _item_entry(st)
    if civ is None:
        return None
    toks = st.toks
    for j in range(st.m + 2, st.end + 1):
        is_setups = toks[j].text == "setups" and toks[j].kind == "kw"
        is_block_for = (toks[j].text == "block" and toks[j].kind == "kw" and j + 2 <= st.end
                        and toks[j + 1].kind == "name" and toks[j + 2].text == "for")
        if is_setups or is_block_for:
            last = _clause_end(toks, j, st.end)
            name_tok = toks[j] if is_setups else toks[j + 1]
            civ.children.append(OutlineItem(
                "setups" if is_setups else f"block {toks[j + 1].text}", "setups" if is_setups else "block",
                toks[j].start, toks[last].end, name_tok.start, name_tok.end,
                _words(toks, j + 1 if is_setups else j + 2, last)))
    return civ


def _titled_entry(kind: str) -> Callable[[_Statement], OutlineItem | None]:
    """`trade_deck "West, 5-8 players" for 5..8 block west { ... }`, `setups "3 players" for 3`:
    the title is the name, the words after it up to the block the detail."""

    def entry(st: _Statement) -> OutlineItem | None:
        title = st.token(1, "string")
        if title is None:
            return None
        last = st.m + 1
        while last + 1 <= st.end and st.toks[last + 1].text != "{" and st.toks[last + 1].kind != "string":
            last += 1
        return st.entry(unquote_string(title.text), kind, title, _words(st.toks, st.m + 2, last) or None)

    return entry


# The statements the outline lists, by keyword: those declaring a bare name, (their kind, whether
# their title is the detail) (a round track is `round_track`, as in the index of references), and
# the others, each with its own reading.
_OUTLINE_WORDS = {"group": ("group", True), "const": ("const", False), "table": ("table", False),
                  "option": ("option", False), "deck": ("deck", True), "track": ("round_track", True),
                  **{w: (w, True) for w in ("stat", "flag", "choice", "threshold", "pool", "event_table", "phase")}}
_OUTLINE: dict[str, Callable[[_Statement], OutlineItem | None]] = {
    **{k: _item_entry for k in ERRATA_TARGETS}, "change": _edit_entry, "remove": _edit_entry, "ast": _ast_entry,
    "score": lambda st: st.entry("score", "score", st.toks[st.m]), "civilization": _civilization_entry,
    "trade_deck": _titled_entry("trade_deck"), "setups": _titled_entry("setups")}


def _epoch_entry(toks: list[Tok], j: int, end_i: int) -> OutlineItem:
    """An epoch of a track: from its keyword to the `}` closing its block."""
    close, depth = j + 1, 0
    for c in range(j + 1, end_i + 1):
        depth += {"{": 1, "}": -1}.get(toks[c].text, 0)
        if toks[c].text == "}" and depth == 0:
            close = c
            break
    return OutlineItem(unquote_string(toks[j + 1].text), "epoch", toks[j].start, toks[close].end, toks[j + 1].start,
                       toks[j + 1].end)


# --- formatting


def format_document(text: str, display: str) -> str | None:
    """The formatted text (`civdsl.fmt`), or None when it cannot be formatted."""
    from .. import fmt

    try:
        return fmt.format_text(text, display)
    except Exception as exc:  # a file with syntax errors is left alone; diagnostics say why
        log.info("formatting %s failed: %s", display, exc)
        return None
