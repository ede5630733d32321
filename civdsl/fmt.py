"""`civdsl fmt`: one canonical layout for rulebook files.

The formatter works on the parse tree (every terminal of the grammar is named, so the tree
keeps every token) plus the comments the lexer skips, collected through a lexer callback. It
re-emits the same tokens with canonical whitespace:

- one statement per line; blocks indent by two spaces; `}` on a line of its own;
- a statement whose blocks were each written on one line (`{` and `}` on the same line)
  stays on one line if it fits in 100 columns; otherwise every block of that statement
  gets one statement per line (and each inner statement is decided the same way); a block
  written over several lines stays that way; an empty block is `{ }`;
- one space between tokens, none inside `( )`, before `,` `:` or after a unary `-`, none
  around `.`, `..` or the `=` of a keyword argument;
- bands of `vp tiers` and `table` blocks are separated by `, ` on one line, and end with `,`
  when one per line;
- blank lines between statements are kept (at most one); at the top level a multi-line
  statement always has a blank line before and after it;
- every comment is kept: a comment on its own line stays on its own line before the
  statement (or `}`) it precedes, at that statement's indentation; a comment after code stays
  at the end of that code's line, two spaces after it.

Formatting never changes meaning: the output is parsed again and must give the same tokens
and the same comments in the same order, or nothing is written.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import lark

from . import parser
from .diagnostics import Diagnostics, Span

WIDTH = 100
INDENT = "  "
CONTINUATION = 2  # extra indent levels for a statement broken by a comment

_LISTY = {"vp_tiers", "table_decl"}  # blocks of comma-separated bands
_OPERAND_END = {"INT", "STRING", "NAME", "RPAR", "TRUE", "FALSE", "UNKNOWN"}


class FormatError(Exception):
    """The file cannot be formatted; `diagnostics` holds the syntax errors, if any."""

    def __init__(self, message: str, diagnostics: Diagnostics | None = None):
        super().__init__(message)
        self.diagnostics = diagnostics


# --- reading: tree and comments -> layout ---------------------------------------------------

@dataclass
class Comment:
    text: str
    line: int
    column: int
    blank_before: bool = False


@dataclass(eq=False)
class Tok:
    type: str
    value: str
    line: int
    column: int
    unary: bool = False  # a unary minus
    tight: bool = False  # `=` of a keyword argument
    leading: list[Comment] = field(default_factory=list)  # own-line comments just before it
    trailing: Comment | None = None  # the comment after it on its line
    blank_before: bool = False


@dataclass(eq=False)
class Block:
    open: Tok
    entries: list["Stmt"]
    close: Tok
    listy: bool = False


@dataclass(eq=False)
class Stmt:
    parts: list  # of Tok | Block

    def first(self) -> Tok:
        p = self.parts[0]
        return p if isinstance(p, Tok) else p.open

    def last(self) -> Tok:
        p = self.parts[-1]
        return p if isinstance(p, Tok) else p.close


class _Sink:
    def __init__(self):
        self.comments: list[lark.Token] = []

    def __call__(self, tok: lark.Token) -> None:
        self.comments.append(tok)


_SINK = _Sink()


def _lark() -> lark.Lark:
    from .resources import grammar_text

    return _lark_of(grammar_text())


@functools.lru_cache(maxsize=2)
def _lark_of(grammar: str) -> lark.Lark:
    from .parser import build_lark

    # keyed by the joined grammar (a registered sub-language's statements are formatted too);
    # the compiler's grammar with every token kept (the formatter rewrites them) and the
    # comments collected; built, and cached, the one way the grammar always is
    return build_lark(keep_all_tokens=True, lexer_callbacks={"COMMENT": _SINK})


def _parse(text: str) -> tuple[lark.Tree, list[lark.Token]]:
    _SINK.comments = []
    tree = _lark().parse(text)
    comments, _SINK.comments = _SINK.comments, []
    return tree, comments


class _Builder:
    def __init__(self):
        self.tokens: list[Tok] = []

    def tok(self, t: lark.Token, parent: str) -> Tok:
        out = Tok(t.type, t.value, t.line, t.column,
                  unary=t.type == "MINUS" and parent in ("neg", "signed_int"),
                  tight=t.type == "EQUALS" and parent == "kwarg")
        self.tokens.append(out)
        return out

    def stmt(self, node) -> Stmt:
        parts: list = []
        if isinstance(node, lark.Token):
            parts.append(self.tok(node, ""))
        else:
            self.walk(node, parts)
        return Stmt(parts)

    def walk(self, node: lark.Tree, parts: list) -> None:
        """Flatten a node into `parts`; each `{ ... }` among its children becomes a Block whose
        entries are the statements between the braces."""
        children = iter([c for c in node.children if c is not None])
        for c in children:
            if _is_token(c, "LBRACE"):
                parts.append(self.block(node, c, *_until_close(children)))
            elif isinstance(c, lark.Token):
                parts.append(self.tok(c, node.data))
            else:
                self.walk(c, parts)

    def block(self, node: lark.Tree, opening, inner: list, closing) -> Block:
        open_tok = self.tok(opening, node.data)
        listy = node.data in _LISTY or any(_is_token(c, "COMMA") for c in inner)
        entries: list[Stmt] = []
        for c in inner:
            if listy and entries and _is_token(c, "COMMA"):  # a band's comma stays with the band
                entries[-1].parts.append(self.tok(c, node.data))
            else:
                entries.append(self.stmt(c) if isinstance(c, lark.Tree) else Stmt([self.tok(c, node.data)]))
        return Block(open_tok, entries, self.tok(closing, node.data), listy)


def _until_close(children) -> tuple[list, lark.Token]:
    """The children after a `{` up to its `}` (braces nest only inside child trees), and the `}`."""
    inner = []
    for c in children:
        if _is_token(c, "RBRACE"):
            return inner, c
        inner.append(c)
    raise ValueError("a block without its `}`")  # the grammar never gives one


def _is_token(c, type_: str) -> bool:
    return isinstance(c, lark.Token) and c.type == type_


def _attach(tokens: list[Tok], comments: list[lark.Token], eof: list[Comment]) -> None:
    """Comments to the tokens they belong to; blank-line flags from the source."""
    items: list[tuple[int, int, object]] = [(t.line, t.column, t) for t in tokens]
    items += [(c.line, c.column, Comment(c.value.rstrip(), c.line, c.column)) for c in comments]
    items.sort(key=lambda x: (x[0], x[1]))
    prev_line = items[0][0] if items else 0
    last_tok: Tok | None = None
    pending: list[Comment] = []
    for line, _col, obj in items:
        obj.blank_before = line - prev_line > 1
        if isinstance(obj, Tok):
            obj.leading, pending = pending, []
            last_tok = obj
        elif _ends_line_of(last_tok, line) and not pending:
            last_tok.trailing = obj
        else:
            pending.append(obj)
        prev_line = line
    eof.extend(pending)


def _ends_line_of(tok: Tok | None, line: int) -> bool:
    """Whether a comment on `line` comes after `tok` on its line."""
    return tok is not None and tok.line == line


def _normalise_listy(stmt: Stmt) -> None:
    """Drop the commas between bands (the writer puts them back), keeping their comments."""
    for part in stmt.parts:
        if not isinstance(part, Block):
            continue
        if part.listy:
            _drop_commas(part)
        for entry in part.entries:
            _normalise_listy(entry)


def _drop_commas(block: Block) -> None:
    """The commas ending the bands of one block go; their comments stay with the band before
    or the token after."""
    for i, entry in enumerate(block.entries):
        after = block.entries[i + 1].first() if i + 1 < len(block.entries) else block.close
        while entry.parts and isinstance(entry.parts[-1], Tok) and entry.parts[-1].type == "COMMA":
            comma = entry.parts.pop()
            _keep_comments(comma, entry.last(), after)


def _keep_comments(comma: Tok, last: Tok, after: Tok) -> None:
    """A dropped comma's comments: one after it ends the band's line (when that line has none),
    the others go before the token after it."""
    moved = list(comma.leading)
    if comma.trailing is not None and last.trailing is None and not moved:
        last.trailing = comma.trailing
    elif comma.trailing is not None:  # a comma on a line of its own, between two comments
        moved.append(comma.trailing)
    after.leading[:0] = moved


# --- writing ---------------------------------------------------------------------------------

# No space before these tokens, and none after those.
_TIGHT_BEFORE = frozenset({"RPAR", "COMMA", "COLON", "DOT", "RANGE"})
_TIGHT_AFTER = frozenset({"LPAR", "DOT", "RANGE"})


def _space(prev: Tok | None, cur: Tok) -> str:
    if prev is None or cur.type in _TIGHT_BEFORE or prev.type in _TIGHT_AFTER:
        return ""
    return "" if _glued(prev, cur) else " "


def _glued(prev: Tok, cur: Tok) -> bool:
    """Tokens written together: a unary minus and its operand, a keyword argument's `=` and what
    is around it, a call's name and its `(`."""
    return prev.unary or cur.tight or prev.tight or (cur.type == "LPAR" and prev.type == "NAME")


def _has_comments_inside(stmt: Stmt) -> bool:
    """Comments that force line breaks inside a statement (not before it, not after it)."""
    first, last = stmt.first(), stmt.last()
    for t in _stmt_tokens(stmt):
        if t is not first and t.leading:
            return True
        if t is not last and t.trailing is not None:
            return True
    return False


def _stmt_tokens(stmt: Stmt):
    for p in stmt.parts:
        if isinstance(p, Tok):
            yield p
        else:
            yield p.open
            for e in p.entries:
                yield from _stmt_tokens(e)
            yield p.close


def _block_one_line_in_source(b: Block) -> bool:
    if not b.entries and not b.close.leading:
        return True
    return b.open.line == b.close.line and all(_block_one_line_in_source(inner) for inner in _inner_blocks(b))


def _inner_blocks(b: Block):
    """The blocks of the statements of a block (one level down)."""
    return (p for e in b.entries for p in e.parts if isinstance(p, Block))


def _inline(stmt: Stmt) -> str | None:
    """The statement on one line, or None when its source layout or comments forbid it."""
    if _has_comments_inside(stmt):
        return None
    out: list[str] = []
    prev: Tok | None = None
    for p in stmt.parts:
        if isinstance(p, Tok):
            out.append(_space(prev, p) + p.value)
            prev = p
        else:
            text = _inline_block(p)
            if text is None:
                return None
            out.append((" " if prev is not None else "") + text)
            prev = p.close
    return "".join(out)


def _inline_block(b: Block) -> str | None:
    if not _block_one_line_in_source(b):
        return None
    if not b.entries:
        return "{ }"
    texts = [_inline(e) for e in b.entries]
    return None if None in texts else "{ " + (", " if b.listy else " ").join(texts) + " }"


def _has_block(stmt: Stmt) -> bool:
    return any(isinstance(p, Block) for p in stmt.parts)


def _with_trailing(text: str, tok: Tok) -> str:
    """A line's text, with the comment after `tok` (if any) at its end."""
    return text + "  " + tok.trailing.text if tok.trailing is not None else text


def _set_apart(first: bool, prev_multi: bool, multi: bool) -> bool:
    """At the top level a multi-line statement has a blank line before and after it."""
    return not first and (prev_multi or multi)


class _Writer:
    def __init__(self):
        self.lines: list[str] = []

    def blank(self) -> None:
        if self.lines and self.lines[-1] != "":
            self.lines.append("")

    def comments(self, comments: list[Comment], level: int, first: bool) -> bool:
        """Own-line comments; returns whether the next line is still the first of its block."""
        for c in comments:
            if c.blank_before and not first:
                self.blank()
            self.lines.append(INDENT * level + c.text)
            first = False
        return first

    def entries(self, stmts: list[Stmt], level: int, top: bool = False, listy: bool = False) -> bool:
        """Statements of one block (or of the file); returns whether the last one took several lines."""
        first = True
        prev_multi = False
        for stmt in stmts:
            head = stmt.first()
            lines = self.render(stmt, level, listy=listy)
            multi = len(lines) > 1
            cites = head.type == "CITES"  # it belongs to the statement before it: never set apart
            if top and not cites and _set_apart(first, prev_multi, multi):
                self.blank()
            first = self.comments(head.leading, level, first)
            if head.blank_before and not first:
                self.blank()
            self.lines.extend(lines)
            first = False
            prev_multi = multi or (cites and prev_multi)
        return prev_multi

    def render(self, stmt: Stmt, level: int, listy: bool = False) -> list[str]:
        """The statement's lines (its leading comments are the caller's)."""
        pad = INDENT * level
        comma = "," if listy else ""
        text = _inline(stmt)
        if text is not None and (len(pad + text + comma) <= WIDTH or not _has_block(stmt)):
            return [_with_trailing(pad + text + comma, stmt.last())]
        sub = _Writer()
        sub._stmt(stmt, level, comma)
        return sub.lines

    def _stmt(self, stmt: Stmt, level: int, comma: str) -> None:
        pad = INDENT * level
        cont = INDENT * (level + CONTINUATION)
        cur: str | None = pad  # the line being built; None: none in progress
        prev: Tok | None = None
        first_tok = stmt.first()

        def flush():
            nonlocal cur
            if cur is not None:
                self.lines.append(cur)
            cur = None

        def put(t: Tok, suffix: str = ""):
            nonlocal cur, prev
            if t.leading and t is not first_tok:
                flush()
                self.comments(t.leading, level + CONTINUATION, True)
            if cur is None:
                cur, prev = cont, None
            cur, prev = _with_trailing(cur + _space(prev, t) + t.value + suffix, t), t
            if t.trailing is not None:
                flush()

        last_index = len(stmt.parts) - 1
        for index, p in enumerate(stmt.parts):
            suffix = comma if index == last_index else ""
            if isinstance(p, Tok):
                put(p, suffix)
                continue
            put(p.open)
            flush()
            self.entries(p.entries, level + 1, listy=p.listy)
            self.comments(p.close.leading, level + 1, not p.entries)
            cur, prev = _with_trailing(pad + p.close.value + suffix, p.close), p.close
            if p.close.trailing is not None:
                flush()
        flush()


def format_text(text: str, path: str = "<text>") -> str:
    """The canonical layout of a rulebook's text. Raises FormatError on a syntax error."""
    text = parser.normalise(text)
    tree, comments = _parsed(text, path)
    try:
        _check_complete(text, tree, comments, path)
        out = _layout(tree, comments)
        same = _signature(tree, comments) == _signature(*_parse(out))
    except RecursionError:  # nested deeper than the formatter's walks reach
        raise _unreadable(text, path) from None
    if not same:
        raise FormatError(f"{path}: internal error: formatting would change the tokens or comments; nothing written")
    return out


def _parsed(text: str, path: str) -> tuple[lark.Tree, list[lark.Token]]:
    """The tree and comments of a text within the input limits; FormatError with civdsl's
    diagnostics when it is beyond them or does not parse."""
    diags = Diagnostics()
    diags.add_source(path, text)
    if not parser.check_limits(text, path, diags):
        raise FormatError(f"{path} is beyond the input limits", diags)
    try:
        return _parse(text)
    except (lark.exceptions.LarkError, RecursionError):
        raise _unreadable(text, path) from None


def _unreadable(text: str, path: str) -> FormatError:
    """The error for a text the formatter cannot read, with what the compiler says of it (the
    same grammar and limits: its syntax errors, or its nesting limit, in civdsl's words)."""
    diags = Diagnostics()
    diags.add_source(path, text)
    parser.parse(text, path, diags)
    if not diags.has_errors:
        diags.error("CIV001", "the file does not parse", Span(path, 1, 1))
    return FormatError(f"{path} has syntax errors", diags)


def _layout(tree: lark.Tree, comments: list[lark.Token]) -> str:
    """The file's statements and comments, written in the canonical layout."""
    builder = _Builder()
    stmts = [builder.stmt(c) for c in tree.children if c is not None]
    eof: list[Comment] = []
    _attach(builder.tokens, comments, eof)
    for s in stmts:
        _normalise_listy(s)
    w = _Writer()
    last_multi = w.entries(stmts, 0, top=True)
    if eof and last_multi and w.lines:
        w.blank()
    w.comments(eof, 0, not w.lines)
    return "\n".join(w.lines).rstrip("\n") + "\n"


# --- safety -----------------------------------------------------------------------------------

def _tree_tokens(tree: lark.Tree) -> list[lark.Token]:
    return sorted(tree.scan_values(lambda v: isinstance(v, lark.Token)), key=lambda t: t.start_pos)


def _check_complete(text: str, tree: lark.Tree, comments: list[lark.Token], path: str) -> None:
    """Every character of the file is a token of the tree, a comment or whitespace."""
    covered = bytearray(len(text))
    for t in list(_tree_tokens(tree)) + comments:
        covered[t.start_pos:t.end_pos] = b"\x01" * (t.end_pos - t.start_pos)
    for i, ch in enumerate(text):
        if not covered[i] and not ch.isspace():
            raise FormatError(f"{path}: internal error: the formatter would lose `{ch}` at offset {i}")


def _signature(tree: lark.Tree, comments: list[lark.Token]) -> tuple[list[tuple[str, str]], list[str]]:
    toks = [(t.type, t.value) for t in _tree_tokens(tree)]
    # a trailing comma before `}` in a list of bands is optional: the formatter adds or drops it
    clean = [t for t, after in zip(toks, toks[1:] + [("", "")]) if (t[0], after[0]) != ("COMMA", "RBRACE")]
    return clean, [c.value.rstrip() for c in comments]


# --- files and the command ----------------------------------------------------------------------

@dataclass
class Result:
    path: Path
    changed: bool = False
    new_text: str | None = None
    old_text: str | None = None
    error: FormatError | None = None


def format_file(path: Path) -> Result:
    from .loader import decode_source, display_path, read_bytes

    display = display_path(path)
    diags = Diagnostics()
    # read once, with the compiler's limits (a regular file, never past the size limit, never
    # blocking on a FIFO): the text formatted is the text compared
    data = read_bytes(path, display, diags)
    text = None if data is None else decode_source(data, display, diags)
    raw = data.decode("utf-8") if text is not None else None
    if text is None:
        return Result(path, error=FormatError(f"cannot read {display}", diags))
    try:
        new = format_text(text, display)
    except FormatError as exc:
        return Result(path, error=exc)
    return Result(path, changed=new != raw, new_text=new, old_text=raw)
