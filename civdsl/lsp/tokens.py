"""Tokens of a rulebook as the editor sees them: the grammar's own lexer (Lark's, over the
grammar's terminals, keywords told from names the way the parser tells them), driven line by line
so that it works on any text, even text the parser rejects: hover, completion and the outline keep
working while a file is being typed. No token spans a line (strings and comments end at the line's
end), so a character no terminal matches costs one `error` token and the line goes on; a string
still open at the end of its line is one `ustring` token.

Also what the features read from tokens alone: where top-level statements start, and the block
enclosing a token."""

from __future__ import annotations

import functools
import itertools
import re
from typing import NamedTuple

from .. import parser, syntax

class Tok(NamedTuple):
    kind: str  # kw, name, string, ustring (unterminated), code, int, op, error
    text: str
    start: int  # offsets into the (normalised) text
    end: int
    type: str = ""  # the grammar's terminal (ADVANCE, NAME, LBRACE, ...); "" for error and ustring


_KINDS = {"NAME": "name", "STRING": "string", "INT": "int", "CODE": "code"}


def lexer():
    """The lexer of the grammar as composed now, with every registered sub-language's terminals."""
    return _lexer_of(parser.lark_parser())


# keyed by the parser, which is the composed grammar's: a sub-language registered later in the
# process gets a lexer that knows its keywords
@functools.lru_cache(maxsize=2)
def _lexer_of(built):
    from lark.lexer import BasicLexer

    return BasicLexer(built.lexer_conf)


def tokenize(text: str) -> list[Tok]:
    """Every token of the text but whitespace and comments, lexed line by line (an open buffer's
    lines are kept lexed from edit to edit by its `incremental.TextState`)."""
    lines = text.split("\n")
    starts = list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
    return tokens_of_lines([lex_line(line) for line in lines], starts)


def tokens_of_lines(entries: list[list[tuple]], line_starts: list[int], first: int = 0,
                    last: int | None = None) -> list[Tok]:
    """The tokens of lines first..last-1 (every line by default), from each line's lexed entries
    (`lex_line`) and the offsets where the lines start."""
    out: list[Tok] = []
    append = out.append
    for n in range(first, len(entries) if last is None else last):
        base = line_starts[n]
        for kind, value, start, end, type_ in entries[n]:
            append(Tok(kind, value, base + start, base + end, type_))
    return out


def lex_line(line: str) -> list[tuple[str, str, int, int, str]]:
    from lark.exceptions import UnexpectedCharacters
    from lark.lexer import LexerThread

    keywords = parser.keyword_terminals()
    lex = lexer()
    out: list[tuple[str, str, int, int, str]] = []
    pos = 0
    while pos < len(line):
        try:
            for tok in LexerThread.from_text(lex, line[pos:]).lex(None):
                start = pos + tok.start_pos
                kind = "kw" if tok.type in keywords else _KINDS.get(tok.type, "op")
                out.append((kind, tok.value, start, start + len(tok.value), tok.type))
            break
        except UnexpectedCharacters as exc:
            at = pos + exc.pos_in_stream
            if line[at] == '"':  # a string the line ends inside
                out.append(("ustring", line[at:], at, len(line), ""))
                break
            out.append(("error", line[at], at, at + 1, ""))
            pos = at + 1
    return out


def unquote_string(text: str) -> str:
    body = text[1:-1] if len(text) > 1 and text.endswith('"') and not text.endswith('\\"') else text[1:]

    def unescape(m: re.Match) -> str:
        esc = m.group(1)
        if esc in syntax.ESCAPES:
            return syntax.ESCAPES[esc]
        if esc.startswith("u") and len(esc) == 5:
            return chr(int(esc[1:], 16))
        return esc

    return syntax.ESCAPE_RE.sub(unescape, body)


def quote_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def split_statements(tokens: list[Tok]) -> list[int]:
    """Token indexes where top-level statements start: a keyword that can begin an `item`, outside
    brackets, after a token that can end one (so `ast track` or `change advance` are not split).
    Index 0 is always included: the header. A wrong guess costs time, never correctness: a piece
    that does not parse on its own sends the text to the whole-file parser."""
    return scan_statements(tokens)[0]


def scan_statements(tokens: list[Tok]) -> tuple[list[int], int]:
    """`split_statements`, and the depth of nesting after the last token."""
    first, last = parser.statement_edges()
    out = [0]
    depth = 0
    prev = None
    for i, t in enumerate(tokens):
        if t.kind == "op":
            depth = max(0, depth + NESTING.get(t.text, 0))
        elif t.kind == "kw" and depth == 0 and t.type in first and prev is not None and prev.type in last:
            out.append(i)
        prev = t
    return out, depth


# How a bracket changes the depth of nesting.
NESTING = {"(": 1, "{": 1, ")": -1, "}": -1}


def block_opener(toks: list[Tok], upto: int) -> list[Tok]:
    """The tokens that open the innermost `{` enclosing token index `upto`: from the statement
    keyword owning the block (_BLOCK_OWNERS), not past another brace."""
    j = _open_brace(toks, upto)
    if j is None:
        return []
    k = j - 1
    while k >= 0 and not (toks[k].kind == "kw" and toks[k].text in _BLOCK_OWNERS):
        if toks[k].kind == "op" and toks[k].text in "{}":
            break
        k -= 1
    return toks[max(k, 0): j]


def _open_brace(toks: list[Tok], upto: int) -> int | None:
    """The index of the innermost `{` before token `upto` that is still open there."""
    depth = 0
    for j in range(upto - 1, -1, -1):
        t = toks[j]
        if t.kind != "op":
            continue
        if t.text == "{" and depth == 0:
            return j
        depth += _BRACES_BACKWARDS.get(t.text, 0)
    return None


# Walking back: a `}` opens a block to skip, its `{` closes it.
_BRACES_BACKWARDS = {"}": 1, "{": -1}


# The keywords whose statement owns a block that completion and hover look into.
_BLOCK_OWNERS = frozenset({"primary", "secondary", "if", "else", "when", "advance", "calamity", "commodity", "ast",
                           "epoch", "score", "tiers", "table", "change"})
