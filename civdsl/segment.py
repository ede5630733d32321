"""Cutting a copy of the printed rules into clauses, the way its clause list (clauses.py) says.

Two schemes, declared by the list (`segment numbered` or `segment headings`):

- numbered: every numbered paragraph is a clause (`19.6`, `22.2.6.4`, `43.61`), wherever the copy
  prints its number: at the start of a line after any Markdown (`### 22.2.4`, `**20.2**`,
  `- 22.2.1`), or glued to the heading before it (`**11. CONFLICT****11.1**`). A number is taken
  only where a paragraph number can stand: not in a table cell (a line that starts with a tab),
  not in a table of contents (dot leaders), a number of one part only before a capital (`6 tokens`
  at the start of a sentence is none) and never going back more than a chapter or jumping more
  than ten (tables of figures print small numbers at the start of lines). A line inside a
  paragraph that opens a worked example (`Example:`, `Example of trade offer`, `For example,`,
  `As an example,`) starts a clause of its own, the paragraph's id and `example` (`28.3 example`,
  `28.3 example 2`): the rule before it and the example are told apart, each with its fingerprint.
- headings: the edition's chapters are declared (`chapter "8" "..."`); each heading inside one is a
  clause `ch 8 / Famine`, and the chapter's own text before its first heading is `ch 8`. A heading is
  a Markdown heading, or any line that starts with one of the chapter's names in capitals
  (`(IVIL WAR`, `MASONRY + CYCLONE: ...`, a minor calamity printed in one line with its effect);
  a line where the name is followed by a colon (`CIVIL DISORDER: Reduce 1 additional city.`)
  prints a card's modifier, not a heading. The names come from the clause list's own headings (or,
  for the generator, from the rulebook's items), compared as fingerprints compare text (scanning
  damage undone, clauses.fold), so `Y(LONE` is Cyclone. In a chapter marked `names`, only names
  start clauses; in the others every Markdown heading does, except those that read as sentences
  (ending in a colon, or words in lower case after one) and the lines the list says to skip.

Each clause's fingerprint is that of its text (its heading and body, without its number). The
work is linear in the text: every line is looked at once, and a name is compared only with the
names that start with the same two folded letters.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from .clauses import ClauseList, chapter_id, fingerprint, fold

# The largest copy read (the largest seed is 127 KB).
MAX_TEXT = 4 * 1024 * 1024


@dataclass
class Segment:
    id: str
    title: str
    line: int  # 1-based, in the copy
    fingerprint: str
    name: bool = False  # its heading is one of the names given (headings scheme)
    body: str = field(default="", repr=False)  # its printed text (the generator reads its kind)


class TextTooLarge(ValueError):
    pass


def segment_copy(text: str, clause_list: ClauseList) -> list[Segment]:
    """A user's copy cut as its clause list says, with the list's own headings as the names."""
    names: dict[str, list[str]] = {}
    for clause in clause_list.clauses.values():
        head, _, rest = clause.id.partition(" / ")
        if rest:
            names.setdefault(head, []).append(clause.title)
    return segment(text, clause_list, names)


def segment(text: str, clause_list: ClauseList, names: dict[str, list[str]] | None = None) -> list[Segment]:
    """The clauses of `text`; `names` are the headings expected in each chapter (`ch 8`: [...])."""
    if len(text) > MAX_TEXT:
        raise TextTooLarge(f"the text is {len(text):,} characters; at most {MAX_TEXT:,} are read")
    lines = text.splitlines()
    if clause_list.scheme == "headings":
        starts = _HeadingCutter(clause_list, names or {}).cut(lines)
    else:
        starts = _with_examples(_numbered(lines), lines)
    return _with_fingerprints(starts, lines)


# A start: (id, title, line index, column where the clause's text starts on that line, is a name)
_Start = tuple[str, str, int, int, bool]


def _with_fingerprints(starts: list[_Start], lines: list[str]) -> list[Segment]:
    out = []
    for k, (cid, title, index, column, name) in enumerate(starts):
        if k + 1 < len(starts):
            end_index, end_column = starts[k + 1][2], starts[k + 1][3]
        else:
            end_index, end_column = len(lines), 0
        if end_index == index:
            body = lines[index][column:end_column]
        else:
            body = "\n".join([lines[index][column:], *lines[index + 1:end_index],
                              lines[end_index][:end_column] if end_index < len(lines) else ""])
        out.append(Segment(cid, title, index + 1, fingerprint(body), name, body))
    return out


# --- numbered paragraphs ---------------------------------------------------------------------------

_MARKUP = "#*->_ "
_NUMBER = re.compile(r"(\d{1,3}(?:\.\d{1,5})*)(\.?)(?=[\s*]|$)")
_GLUED = re.compile(r"\*\*(\d{1,3}(?:\.\d{1,5})+)\.?(?=[\s*])")
_MARKER = re.compile(r"(?:<\|[^|\n]*\|>)*")  # a copy's own markers glued to a line's start
_LEADERS = re.compile(r"\.{4,}|…")
_MOST_WORDS_IN_A_HEADING = 8
_MOST_WORDS_IN_A_LOWER_CASE_HEADING = 4  # `Land area`: longer, words in lower case make a sentence
_ABBREVIATION = re.compile(r"(?:[A-Z]\.){2,}")  # `A.S.T.`: a heading may end with its full stop
_FARTHEST_JUMP = 10


def _numbered(lines: list[str]) -> list[_Start]:
    """Every numbered paragraph: the candidates in order of the text, then, of a number printed
    twice, the one printed where it belongs (after a paragraph of its own chapter: a copy that
    misprints 31.3 as 32.3 before chapter 32 begins prints the real 32.3 later)."""
    found = _candidates(lines)
    chosen: dict[str, tuple[int, bool]] = {}
    chapter = None  # the chapter whose heading came last
    for k, (number, *_rest) in enumerate(found):
        if "." not in number:
            chapter = number
        at_home = chapter is None or number.split(".", 1)[0] == chapter
        if number not in chosen or (at_home and not chosen[number][1]):
            chosen[number] = (k, at_home)
    keep = sorted(k for k, _ in chosen.values())
    titles = {found[k][0]: found[k][1] for k in keep if found[k][1]}
    return [(found[k][0], found[k][1] or _ancestor_title(found[k][0], titles), found[k][2], found[k][3], False)
            for k in keep]


_EXAMPLE_LINE = re.compile(r"[#*_>\- ]*(?:example\b|for example\b|as an example\b)", re.I)
EXAMPLE = "example"  # the word after a paragraph's id in the id of an example printed in it


def _with_examples(starts: list[_Start], lines: list[str]) -> list[_Start]:
    """The numbered paragraphs and, after each, the worked examples that open a line inside it."""
    out: list[_Start] = []
    for k, start in enumerate(starts):
        out.append(start)
        end = starts[k + 1][2] if k + 1 < len(starts) else len(lines)
        count = 0
        for index in range(start[2] + 1, end):
            if _EXAMPLE_LINE.match(lines[index]):
                count += 1
                suffix = f" {EXAMPLE}" + (f" {count}" if count > 1 else "")
                out.append((start[0] + suffix, "Example", index, 0, False))
    return out


def _candidates(lines: list[str]) -> list[tuple[str, str, int, int]]:
    """(number, its own heading or "", line index, column where its text starts), in text order."""
    found = []
    top: int | None = None
    for index, line in enumerate(lines):
        if line.startswith("\t") or _LEADERS.search(line):
            continue
        lead = _MARKER.match(line).end()
        lead += len(line[lead:]) - len(line[lead:].lstrip(_MARKUP))
        m = _NUMBER.match(line, lead)
        if m is None:
            continue
        number = m.group(1)
        first = int(number.split(".", 1)[0])
        rest = line[m.end():]
        if rest.startswith("\t"):  # a table's row
            continue
        words = rest.strip(_MARKUP + "\t")
        if "." not in number:
            # a chapter prints its heading; a number alone is a page's, one before lower case a sentence's
            if top is not None and not top <= first <= top + _FARTHEST_JUMP:
                continue
            if not words or not (words[0].isupper() or words[0] == "("):
                continue
        elif top is not None and not top <= first <= top + _FARTHEST_JUMP:
            continue
        top = first
        glued = _GLUED.search(rest)
        found.append((number, _heading_title(rest[:glued.start()] if glued else rest), index, m.end()))
        if glued:
            found.append((glued.group(1), _heading_title(rest[glued.end():]), index, m.end() + glued.end()))
    return _with_inline(found, lines)


def _with_inline(found: list, lines: list[str]) -> list:
    """Paragraphs a copy runs on after the end of a sentence (`... the same turn. 17.15 A player
    cannot ...`): only the very next number after a paragraph's own, before a capital, counts."""
    out = []
    for k, entry in enumerate(found):
        out.append(entry)
        number, _title, index, column = entry
        head, _, last = number.rpartition(".")
        if not head:
            continue
        following = f"{head}.{int(last) + 1}"
        end_index = found[k + 1][2] if k + 1 < len(found) else len(lines)
        for j in range(index, min(end_index + 1, len(lines))):
            start = column if j == index else 0
            m = re.search(rf"[.!?)]\s+{re.escape(following)}\s+(?=[A-Z])", lines[j][start:])
            if m and not any(f[0] == following for f in found):
                out.append((following, "", j, start + m.end()))
                break
    return out


def _heading_title(text: str) -> str:
    """The heading a numbered line prints after its number, if it prints one (not a sentence)."""
    words = text.replace("*", " ").replace("#", " ").split()
    if not words or len(words) > _MOST_WORDS_IN_A_HEADING:
        return ""
    plain = " ".join(words)
    if plain[-1] in ".:;,!?" and not _ABBREVIATION.fullmatch(words[-1]) or not plain[0].isupper():
        return ""
    if len(words) > _MOST_WORDS_IN_A_LOWER_CASE_HEADING and \
            any(w[0].islower() and w not in _SMALL_WORDS for w in words):
        return ""
    return _tidy(plain, {})


def _ancestor_title(number: str, titles: dict[str, str]) -> str:
    """The heading of the nearest numbered paragraph above one that prints none: `22.2.6` for
    `22.2.6.4`; `43.6` for `43.61` (numbered by adding a digit)."""
    candidate = number
    while candidate:
        if "." in candidate and len(candidate.rsplit(".", 1)[1]) > 1:
            candidate = candidate[:-1]
        elif "." in candidate:
            candidate = candidate.rsplit(".", 1)[0]
        else:
            return titles.get(candidate, "")
        if candidate in titles:
            return titles[candidate]
    return ""


# --- chapters and headings -------------------------------------------------------------------------

_CHAPTER = re.compile(r"[#*\s]*(\d{1,2})\.\s*(.*\S)")
_SMALL_WORDS = {"a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with"}
_SAME_NAME = 0.85  # how alike two folded names must be to be one (a word lost, `/` for `or`)
_SAME_CHAPTER = 0.7


class _HeadingCutter:
    def __init__(self, clause_list: ClauseList, names: dict[str, list[str]]):
        self.list = clause_list
        self.chapters = clause_list.chapters
        self.names = names
        self.bare = clause_list.bare_headings

    def cut(self, lines: list[str]) -> list[_Start]:
        starts: list[_Start] = []
        chapter_index = -1
        used: set[str] = set()
        index_of_names: dict[str, list[tuple[str, str]]] = {}
        names_only = False
        for index, line in enumerate(lines):
            found = self._chapter_heading(line, chapter_index)
            if found is not None:
                chapter_index = found
                chapter = self.chapters[found]
                cid = chapter_id(chapter.id, "headings")
                starts.append((cid, chapter.title, index, 0, False))
                used = {cid}
                index_of_names = _name_index(self.names.get(cid, ()))
                names_only = chapter.names_only
                continue
            if chapter_index < 0:
                continue
            cid = chapter_id(self.chapters[chapter_index].id, "headings")
            name = _name_at(line, index_of_names)
            if name is not None and f"{cid} / {name}" not in used:
                title = name
                is_name = True
            elif names_only:
                continue
            else:
                title = self._heading(line)
                is_name = False
                if not title:
                    continue
            clause_id = f"{cid} / {title}"
            copy = 2
            while clause_id in used:
                clause_id = f"{cid} / {title} ({copy})"
                copy += 1
            used.add(clause_id)
            starts.append((clause_id, title, index, 0, is_name))
        return starts

    def _chapter_heading(self, line: str, current: int) -> int | None:
        m = _CHAPTER.match(line)
        if m is None or not line.lstrip().startswith(("#", "*")) and not self.bare:
            return None
        for k in range(current + 1, len(self.chapters)):
            if self.chapters[k].id == m.group(1):
                printed, declared = fold(m.group(2)), fold(self.chapters[k].title)
                if printed.startswith(declared) or declared.startswith(printed) or \
                        difflib.SequenceMatcher(None, printed, declared).ratio() >= _SAME_CHAPTER:
                    return k
        return None

    def _heading(self, line: str) -> str:
        """The title of a heading line that is no name, or "" for a line that is none."""
        stripped = line.strip()
        markdown = stripped.startswith("#")
        if not markdown and not (self.bare and _all_capitals(stripped)):
            return ""
        text = " ".join(stripped.replace("#", " ").replace("*", " ").replace("_", " ").split())
        if not text or not (text[0].isalnum() or text[0] == "(") or fingerprint(text) in self.list.skips:
            return ""
        head, colon, after = text.partition(":")
        if colon and (not after.strip() or any(ch.islower() for ch in after)):
            return ""
        if text[-1] == "." and not _ABBREVIATION.fullmatch(text.split()[-1]):  # a sentence
            return ""
        if len(text.split()) > 10 or sum(ch.isalpha() for ch in text) < 3:
            return ""
        return _tidy(text, self.list.repairs)


def _all_capitals(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    return len(letters) >= 3 and all(ch.isupper() for ch in letters)


def _name_index(names) -> dict[str, list[tuple[str, str]]]:
    index: dict[str, list[tuple[str, str]]] = {}
    for name in names:
        folded = fold(name)
        if folded:
            index.setdefault(folded[:2], []).append((folded, name))
    return index


def _name_at(line: str, index: dict[str, list[tuple[str, str]]]) -> str | None:
    """The name a line starts with, printed in capitals and not followed by a colon."""
    if not index:
        return None
    words = []
    for word in line.replace("*", " ").replace("#", " ").split()[:_MOST_WORDS_IN_A_HEADING]:
        if any(ch.islower() for ch in word):
            break
        words.append(word)
    if not words or not any(ch.isalpha() for ch in words[0]):
        return None
    best = None  # (exact, likeness, words, name): an exact name first, then the likest
    for k in range(1, len(words) + 1):
        folded = fold(" ".join(words[:k]))
        for name_folded, name in index.get(folded[:2], ()):
            if folded == name_folded:
                found = (True, 1.0, k, name)
            elif len(name_folded) >= 8 and abs(len(folded) - len(name_folded)) <= 3 \
                    and _digits(folded) == _digits(name_folded):
                likeness = difflib.SequenceMatcher(None, folded, name_folded).ratio()
                if likeness < _SAME_NAME:
                    continue
                found = (False, likeness, k, name)
            else:
                continue
            if best is None or found[:2] > best[:2]:
                best = found
    if best is not None:
        best = (best[2], best[3])
    if best is None or words[best[0] - 1].endswith(":"):
        return None
    return best[1]


def _capitalised(word: str) -> str:
    for k, ch in enumerate(word):
        if ch.isalpha():
            return word[:k + 1] + word[k + 1:].lower()
    return word


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def _tidy(text: str, repairs: dict[str, str]) -> str:
    """A printed heading as a title: capitals lowered but for the first letter of each word (small
    words lower case), `(` read for a lost C restored, the list's repairs applied."""
    words = []
    split = text.split()
    for k, word in enumerate(split):
        if word in repairs:
            word = repairs[word]
        closed = any(")" in later for later in split[k:])  # `(TURN ORDER)` is a parenthesis, `(ITY` a lost C
        if word.startswith("(") and not closed and len(word) > 1 and word[1:].isupper():
            word = "C" + word[1:]
        if word.isupper() and "." not in word and not any(ch.isdigit() for ch in word):
            word = word.lower() if k and word.lower() in _SMALL_WORDS else _capitalised(word)
        words.append(repairs.get(word, word))
    return " ".join(words)
