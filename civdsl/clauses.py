"""An edition's clause list: the printed clauses of its rules text, each with its id, its heading,
its kind and a fingerprint of its printed text (a hash: the printed texts are not ours to ship).

A clause list is a file of its own, `clauses/<edition>.clauses` beside the rulebook (the shipped
ones in `rulebooks/clauses/`), written by `tools/make_clauses.py` from a copy of the rules and
edited by hand where a kind or a heading needs it. It is one statement per line (`#` starts a
comment):

    clauses 1                                  the format's version
    edition civ1981
    text "seed 001: Avalon Hill, 1981"         the copy the fingerprints were made from
    segment numbered                           how a copy is cut into clauses (segment.py); `segment
                                               headings bare`: lines all in capitals are headings too
    chapter "8" "The Calamities" names         (headings) a chapter; `names`: only names start clauses
    repair "Grovps" "Groups"                   (headings) a damaged word of the copy's headings
    skip "3f2a9c0b1d2e3f40"                    (headings) a heading-like line that is none (its fingerprint)
    require "19", "22.2"                       chapters that must be covered or acknowledged
    kind "19.5" example                        a kind read by hand where the generator's guess is wrong
    clause "19.1" rule 3f2a9c0b1d2e3f40 "Calamities"
    clause "ch 9 / Medicine" rule - "Medicine"  a clause the copy lost (no fingerprint)

The file is read with a regular expression per line, not a YAML parser: it is read by every
check of a rulebook that cites clauses, and a pure-Python YAML load of 700 clauses costs most of
a second.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

try:  # CPython's built-in SHA-256 (see cache.py: hashlib would load OpenSSL at start-up)
    from _sha256 import sha256
except ImportError:  # pragma: no cover - Python 3.12 and later
    try:
        from _sha2 import sha256
    except ImportError:
        from hashlib import sha256

from .diagnostics import Diagnostics, Span

FORMAT = 1
SUFFIX = ".clauses"
FOLDER = "clauses"
# What a clause prints. Only a `rule` needs a statement that implements it or an acknowledgement;
# the others are acknowledged by their kind (cover says which).
KINDS = {
    "rule": "a rule",
    "example": "an example",
    "flavour": "flavour text",
    "components": "a list of components",
    "map": "a rule of the board only",
}
# The chapters' segmentation schemes (segment.py).
SCHEMES = ("numbered", "headings")
# A clause list bigger than this is not one (the largest edition has about 700 clauses).
MAX_BYTES = 2 * 1024 * 1024

_STRING = r'"((?:[^"\\\n]|\\.)*)"'
_STRINGS = rf'{_STRING}(?:\s*,\s*{_STRING})*'
_LINES = {
    "clauses": re.compile(r"clauses\s+(\d+)"),
    "edition": re.compile(r"edition\s+([A-Za-z_][A-Za-z0-9_]*)"),
    "text": re.compile(rf"text\s+{_STRING}"),
    "segment": re.compile(r"segment\s+([a-z]+)(\s+bare)?"),
    "chapter": re.compile(rf"chapter\s+{_STRING}\s+{_STRING}(\s+names)?"),
    "repair": re.compile(rf"repair\s+{_STRING}\s+{_STRING}"),
    "skip": re.compile(rf"skip\s+{_STRING}"),
    "require": re.compile(rf"require\s+({_STRINGS})"),
    "kind": re.compile(rf"kind\s+{_STRING}\s+([a-z]+)"),
    "clause": re.compile(rf"clause\s+{_STRING}\s+([a-z]+)\s+([0-9a-f]{{16}}|-)\s+{_STRING}"),
}
_COMMENT = re.compile(r'\s*(?:#.*)?$')
# a `clause` line with no escapes and nothing after it but a comment: the fast path of `parse`
_CLAUSE_LINE = re.compile(r'clause "([^"\\\n]*)" ([a-z]+) ([0-9a-f]{16}|-) "([^"\\\n]*)"\s*(?:#.*)?$')
_EACH_STRING = re.compile(_STRING)


@dataclass
class Clause:
    id: str
    kind: str
    fingerprint: str | None  # None: the copy the list was made from lost this clause
    title: str
    line: int  # in the clause list


@dataclass
class Chapter:
    id: str
    title: str
    names_only: bool = False


@dataclass
class ClauseList:
    edition: str
    path: str
    digest: str  # sha256 of the file's bytes (the check cache's key includes it)
    text: str = ""
    scheme: str = "numbered"
    bare_headings: bool = False  # (headings) a line all in capitals is a heading too
    chapters: list[Chapter] = field(default_factory=list)
    repairs: dict[str, str] = field(default_factory=dict)
    skips: set[str] = field(default_factory=set)
    required: list[str] = field(default_factory=list)
    kinds: dict[str, str] = field(default_factory=dict)  # hand-read kinds (`kind` lines)
    clauses: dict[str, Clause] = field(default_factory=dict)

    def chapter_of(self, clause_id: str) -> str:
        """The chapter a clause belongs to: `ch 8` of `ch 8 / Famine`, `19` of `19.6`."""
        if self.scheme == "headings":
            return clause_id.split(" / ", 1)[0]
        return clause_id.split(".", 1)[0].split(" ", 1)[0]  # `51 example` is printed in 51

    def chapter_title(self, chapter: str) -> str:
        for c in self.chapters:
            if chapter_id(c.id, self.scheme) == chapter:
                return c.title
        own = self.clauses.get(chapter)
        return own.title if own is not None else ""

    def parent_of(self, clause_id: str) -> str:
        """The clause a clause is printed below: `2.2` of `2.2.1`, `ch 8` of `ch 8 / Famine`; "" for a chapter."""
        if self.scheme == "headings":
            head, _, rest = clause_id.partition(" / ")
            return head if rest else ""
        paragraph, _, example = clause_id.partition(" ")  # `28.3 example`: an example printed in 28.3
        return paragraph if example else clause_id.rpartition(".")[0]

    def hand_kind(self, clause_id: str) -> str | None:
        """The kind read by hand (`kind` lines) for a clause or the nearest clause above it."""
        while clause_id:
            if clause_id in self.kinds:
                return self.kinds[clause_id]
            clause_id = self.parent_of(clause_id)
        return None

    def is_required(self, clause_id: str) -> bool:
        return any(within(clause_id, prefix) for prefix in self.required)


def chapter_id(number: str, scheme: str) -> str:
    """A chapter's clause id: `ch 8` in an edition cut by headings, `19` in a numbered one."""
    return f"ch {number}" if scheme == "headings" else number


def within(clause_id: str, prefix: str) -> bool:
    """Whether a clause is `prefix` or below it (`19.6` is within `19`, `ch 8 / Famine` within `ch 8`,
    the example printed in 51, `51 example`, within `51`)."""
    return clause_id == prefix or clause_id.startswith((prefix + ".", prefix + " / ", prefix + " example"))


# --- fingerprints ------------------------------------------------------------------------------

# Damage a scanned copy does to letters that a clean one prints: `(` read for `C` ("(IVIL WAR"),
# `C` lost ("OINAGE"), `V` read for `U` ("VNITS"). The fingerprint drops every c and reads v as u,
# so a clean copy and the damaged one agree; any other change of letters or digits changes it.
_FOLD = str.maketrans({"c": None, "v": "u"})
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def fold(text: str) -> str:
    """The letters and digits of a text as the fingerprint reads them: no accents, no case, no
    spaces or punctuation, with the scanning damage above undone."""
    plain = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch)).casefold()
    return _NOT_ALNUM.sub("", plain).translate(_FOLD)


def fingerprint(text: str) -> str:
    """16 hex digits of the sha256 of the folded text."""
    return sha256(fold(text).encode("utf-8")).hexdigest()[:16]


# --- reading -------------------------------------------------------------------------------------

def _unquote(raw: str) -> str:
    return re.sub(r"\\(.)", r"\1", raw)


def quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse(text: str, path: str, diags: Diagnostics) -> ClauseList:
    """A clause list from its text; every malformed line is a located error (CIV163)."""
    result = ClauseList(edition="", path=path, digest=sha256(text.encode("utf-8")).hexdigest())
    diags.add_source(path, text)
    version_seen = False
    fast = _CLAUSE_LINE.match
    listed = result.clauses
    for number, raw in enumerate(text.splitlines(), 1):
        m = fast(raw)  # the common line, read without building anything it does not keep
        if m is not None and m.group(2) in KINDS and m.group(1) not in listed:
            fp = m.group(3)
            listed[m.group(1)] = Clause(m.group(1), m.group(2), None if fp == "-" else fp, m.group(4), number)
            continue
        body = raw.strip()
        if not body or body.startswith("#"):
            continue
        word = body.split(None, 1)[0]
        pattern = _LINES.get(word)
        match = pattern.match(body) if pattern else None
        if match is None or not _COMMENT.match(body, match.end()):
            known = ", ".join(_LINES)
            column = raw.index(word) + 1
            diags.error("CIV163", f"this line of the clause list is not one of its statements ({known})",
                        Span(path, number, column, column + len(word)),
                        help="see the format at the top of civdsl/clauses.py, or regenerate the list "
                             "with tools/make_clauses.py")
            continue
        at = Span(path, number, raw.index(word) + 1)
        _read_line(result, word, match, at, number, diags)
        version_seen = version_seen or word == "clauses"
    if not version_seen:
        diags.error("CIV163", f"the clause list does not say its format (`clauses {FORMAT}` first)",
                    Span(path, 1, 1))
    return result


def _read_line(result: ClauseList, word: str, m: re.Match, at: Span, number: int, diags: Diagnostics) -> None:
    if word == "clauses":
        if int(m.group(1)) != FORMAT:
            diags.error("CIV163", f"clause list format {m.group(1)} is not known (this civdsl reads {FORMAT})", at)
    elif word == "edition":
        result.edition = m.group(1)
    elif word == "text":
        result.text = _unquote(m.group(1))
    elif word == "segment":
        if m.group(1) not in SCHEMES:
            diags.error("CIV163", f"`{m.group(1)}` is no segmentation scheme (one of {', '.join(SCHEMES)})", at)
        else:
            result.scheme = m.group(1)
            result.bare_headings = bool(m.group(2))
    elif word == "chapter":
        result.chapters.append(Chapter(_unquote(m.group(1)), _unquote(m.group(2)), bool(m.group(3))))
    elif word == "repair":
        result.repairs[_unquote(m.group(1))] = _unquote(m.group(2))
    elif word == "skip":
        result.skips.add(_unquote(m.group(1)))
    elif word == "require":
        result.required.extend(_unquote(s) for s in _EACH_STRING.findall(m.group(1)))
    elif word == "kind":
        if m.group(2) not in KINDS:
            diags.error("CIV163", f"`{m.group(2)}` is no kind of clause (one of {', '.join(KINDS)})", at)
        else:
            result.kinds[_unquote(m.group(1))] = m.group(2)
    else:
        clause_id, kind, fp, title = _unquote(m.group(1)), m.group(2), m.group(3), _unquote(m.group(4))
        if kind not in KINDS:
            diags.error("CIV163", f"`{kind}` is no kind of clause (one of {', '.join(KINDS)})", at)
        if clause_id in result.clauses:
            diags.error("CIV163", f"clause `{clause_id}` is listed twice", at,
                        notes=[f"first listed at {result.path}:{result.clauses[clause_id].line}"])
            return
        result.clauses[clause_id] = Clause(clause_id, kind, None if fp == "-" else fp, title, number)


def read(path: Path, diags: Diagnostics) -> ClauseList | None:
    try:
        data = path.read_bytes()
    except OSError as exc:
        diags.error("CIV163", f"cannot read the clause list: {exc.strerror or exc}", Span(str(path), 1, 1))
        return None
    if len(data) > MAX_BYTES:
        diags.error("CIV163", f"the clause list is {len(data):,} bytes; at most {MAX_BYTES:,} are read",
                    Span(str(path), 1, 1))
        return None
    kept = _READ.get((str(path), data))
    if kept is not None:
        diags.add_source(str(path), kept[1])  # as parse() does
        return kept[0]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        diags.error("CIV163", "the clause list is not UTF-8 text", Span(str(path), 1, 1))
        return None
    before = len(diags.items)
    listed = parse(text, str(path), diags)
    if len(diags.items) == before:
        if len(_READ) >= _READ_LIMIT:
            _READ.pop(next(iter(_READ)))
        _READ[str(path), data] = (listed, text)
    return listed


# Clause lists read without a diagnostic, by path and bytes: a build checks each house rule
# against its base's list, which it read for the base already. Only read, never changed, once made.
_READ: dict[tuple[str, bytes], tuple[ClauseList, str]] = {}
_READ_LIMIT = 8


def forget_read() -> None:
    _READ.clear()


def find(rulebook_paths: list[Path], editions: list[str]) -> Path | None:
    """The clause list of a chain: `clauses/<edition>.clauses` beside a file of the chain, the
    most derived file first (a house rule may bring its own list; else its base's is used), else
    the shipped list of one of its editions."""
    for path, edition in zip(reversed(rulebook_paths), reversed(editions)):
        candidate = Path(path).parent / FOLDER / f"{edition}{SUFFIX}"
        if candidate.is_file():
            return candidate
    # a copy of a shipped rulebook, moved away from its list, keeps the shipped list of its edition
    from .resources import rulebooks_dir

    for edition in reversed(editions):
        candidate = rulebooks_dir() / FOLDER / f"{edition}{SUFFIX}"
        if candidate.is_file():
            return candidate
    return None


def write(result: ClauseList) -> str:
    """The text of a clause list (the generator writes it; a hand edit keeps the layout)."""
    out = [f"clauses {FORMAT}", f"edition {result.edition}"]
    if result.text:
        out.append(f"text {quote(result.text)}")
    out.append(f"segment {result.scheme}" + (" bare" if result.bare_headings else ""))
    for c in result.chapters:
        out.append(f"chapter {quote(c.id)} {quote(c.title)}" + (" names" if c.names_only else ""))
    for damaged, repaired in result.repairs.items():
        out.append(f"repair {quote(damaged)} {quote(repaired)}")
    for skipped in sorted(result.skips):
        out.append(f"skip {quote(skipped)}")
    if result.required:
        out.append("require " + ", ".join(quote(r) for r in result.required))
    for clause_id, kind in result.kinds.items():
        out.append(f"kind {quote(clause_id)} {kind}")
    out.append("")
    return "\n".join(out) + "\n" + clause_lines(result)


def clause_lines(result: ClauseList) -> str:
    """The `clause` lines of a list, in its order."""
    return "".join(f"clause {quote(c.id)} {c.kind} {c.fingerprint or '-'} {quote(c.title)}\n"
                   for c in result.clauses.values())
