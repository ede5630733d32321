"""Pass 1: text -> Lark parse tree, with friendly syntax errors.

Input limits are enforced here, before Lark sees the text, so that hostile input (huge files,
deep nesting, enormous numbers) gets a diagnostic instead of a hang or a RecursionError.
"""

from __future__ import annotations

import functools
import hashlib
import io
import itertools
import re
import sys

import lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import cache
from . import fields as item_fields
from .diagnostics import Diagnostics, Span, did_you_mean
from .resources import grammar_text

MAX_BYTES = 2_000_000
MAX_NESTING = 64
MAX_DIGITS = 9
MAX_LINE = 10_000
# How deep the syntax tree may nest, counted the way the later passes (and the generated
# Python) nest: each bracket, `not`, unary minus, call or block is a level, and a chain of N
# binary operators (`1 + 1 + ... + 1`, `a and b and ...`) is N levels, because the syntax tree
# turns it into left-deep operations that later passes walk recursively. Python itself refuses
# more than 200 nested brackets in the generated module, so this stays well below that.
MAX_DEPTH = 100
# Tokens in one file. Parsing and checking cost time in proportion to tokens, not bytes
# (`printed 1,1,1,...` is a token a byte): this bounds every pass for the largest file
# accepted (docs/security.md states the bound). The largest shipped rulebook has about 4,000 tokens.
MAX_TOKENS = 250_000
_WORD = re.compile(r"[A-Za-z0-9_]+")
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|[A-Za-z0-9_]+|\.\.|//|[=!<>]=|\S')

# How a terminal is named in "expected ..." lists.
_TERMINAL_WORDS = {
    "NAME": "a name", "INT": "a number", "STRING": "a string", "CODE": "a diagnostic code (CIVnnn)",
    "COMP_OP": "a comparison", "LBRACE": "`{`", "RBRACE": "`}`", "LPAR": "`(`", "RPAR": "`)`",
    "COMMA": "`,`", "COLON": "`:`", "EQUALS": "`=`", "DOT": "`.`", "RANGE": "`..`", "PLUS": "`+`",
    "MINUS": "`-`", "STAR": "`*`", "SLASH": "`/`", "FLOORDIV": "`//`", "$END": "the end of the file",
}


# The grammar's Lark options: the formatter's parser uses them with its own additions; civdsl's
# parser (lark_parser: the pipeline, the language server) turns position propagation off.
# benchmarks/bench_pipeline.py measures against a bare parse with each.
LARK_OPTIONS = dict(parser="lalr", strict=True, propagate_positions=True, maybe_placeholders=True)


def lark_parser() -> lark.Lark:
    """The Lark parser of the whole grammar, the main language's and each registered sub-language's
    (LARK_OPTIONS without positions): the pipeline's, and the language server's lexer, statement
    parse and completion."""
    return _parser_of(grammar_text())


@functools.lru_cache(maxsize=2)
def _parser_of(grammar: str) -> lark.Lark:
    # keyed by the joined grammar, so registering a sub-language gives a parser of its own.
    # Without Lark's position propagation, which costs more than a third of the parse: the syntax
    # pass derives every node's position from its tokens (syntax._ToSyntax._transform_node), and
    # the tokens keep theirs
    return build_lark(propagate_positions=False)


def accelerator_plugins():
    """lark-cython's plugins (Lark's LALR parser and lexer compiled to C), or None where the
    package is not installed: the same grammar, tables and trees, its tokens of its own class."""
    try:
        import lark_cython
    except ImportError:
        return None
    return lark_cython.plugins


# What a token of a parse tree may be: Lark's, or lark-cython's where the pipeline parsed with
# it (fast_parse); neither class derives from the other.
try:
    from lark_cython.lark_cython import Token as _CompiledToken
except ImportError:
    TOKEN_TYPES: tuple[type, ...] = (lark.Token,)
else:
    TOKEN_TYPES = (lark.Token, _CompiledToken)


def fast_parse(text: str) -> lark.Tree:
    """The parse tree of `text` as lark_parser() gives it, by lark-cython where it is installed
    (the same tables, a quarter faster: the parse is most of a check's time); where the compiled
    parser finds an error, Lark's own parses again, so that every syntax error is reported from
    Lark's exceptions as before."""
    fast = _fast_parser_of(grammar_text())
    if fast is not None:
        try:
            return fast.parse(text)
        except Exception:  # an error: reported from Lark's own parse, below
            pass
    return lark_parser().parse(text)


@functools.lru_cache(maxsize=2)
def _fast_parser_of(grammar: str) -> lark.Lark | None:
    plugins = accelerator_plugins()
    return None if plugins is None else build_lark(propagate_positions=False, _plugins=plugins)


# Options Lark takes when loading an analysed grammar (not kept in the pickle: callbacks and the
# like are objects of this process).
_LOAD_OPTIONS = frozenset({"postlex", "transformer", "lexer_callbacks", "use_bytes", "debug", "g_regex_flags",
                           "regex", "propagate_positions", "tree_class", "_plugins"})


def grammar_cache_name(**extra) -> str:
    """The cache file name of the grammar analysed with LARK_OPTIONS plus `extra`."""
    options = {**LARK_OPTIONS, **extra}
    shaping = sorted((k, repr(v)) for k, v in options.items() if k not in _LOAD_OPTIONS)
    key = hashlib.sha256(f"{lark.__version__}|{sys.version_info[:2]}|{shaping}|{grammar_text()}"
                         .encode()).hexdigest()[:24]
    return f"grammar-{key}.lark"


def build_lark(**extra) -> lark.Lark:
    """The one place the grammar becomes a Lark parser: LARK_OPTIONS plus `extra` (the formatter
    keeps every token and collects comments).

    Analysing the grammar takes seconds, so the result is kept in the user's own cache folder
    (civdsl/cache.py: never a shared temporary folder, never a folder or file another user could
    have written, because the kept form is a pickle), keyed by the grammar, the options that
    shape the tables, Lark's version and Python's."""
    options = {**LARK_OPTIONS, **extra}
    name = grammar_cache_name(**extra)
    kept = cache.read(name)
    if kept is not None:
        try:
            loaded = lark.Lark.__new__(lark.Lark)
            return loaded._load(io.BytesIO(kept), **{k: v for k, v in options.items() if k in _LOAD_OPTIONS})
        except Exception:  # a damaged or foreign file: analyse the grammar afresh
            pass
    built = lark.Lark(grammar_text(), **options)
    buffer = io.BytesIO()
    try:
        built.save(buffer, _LOAD_OPTIONS)
    except Exception:  # nothing to keep; the parser itself is fine
        return built
    cache.write(name, buffer.getvalue())
    return built


def keywords() -> list[str]:
    """Every keyword of the language, from the grammar itself."""
    return sorted(t.pattern.value for t in lark_parser().terminals
                  if t.pattern.type == "str" and re.fullmatch(r"[a-z_]+", t.pattern.value))


def named_alternatives() -> frozenset[str]:
    """The names the grammar gives its alternatives (`-> adv_cost`): each is a callback the syntax
    pass must have."""
    return frozenset(str(rule.alias) for rule in lark_parser().rules if rule.alias)


def statement_edges() -> tuple[frozenset[str], frozenset[str]]:
    """The terminals that can begin and end a top-level statement (the grammar's `item` rule):
    where the editor's incremental parse may cut a text into statements."""
    return _statement_edges(lark_parser())


@functools.lru_cache(maxsize=2)
def _statement_edges(built: lark.Lark) -> tuple[frozenset[str], frozenset[str]]:
    rules: dict[str, list] = {}
    for r in built.rules:
        rules.setdefault(str(r.origin.name), []).append(r.expansion)
    nullable = _nullable(rules)
    return (frozenset(_edge_terminals(rules, nullable, "item", False)),
            frozenset(_edge_terminals(rules, nullable, "item", True)))


def _nullable(rules: dict[str, list]) -> set[str]:
    """The rules that can match nothing (a fixed point: a rule is nullable when one of its
    expansions holds only nullable rules)."""
    nullable: set[str] = set()
    changed = True
    while changed:
        found = {name for name, expansions in rules.items() if name not in nullable
                 and any(all(not s.is_term and s.name in nullable for s in e) for e in expansions)}
        nullable |= found
        changed = bool(found)
    return nullable


def _edge_terminals(rules: dict[str, list], nullable: set[str], rule: str, last: bool, seen: tuple = ()) -> set[str]:
    """The terminals that can begin (or, `last`, end) a match of `rule`."""
    out: set[str] = set()
    for expansion in rules.get(rule, []):
        for sym in (reversed(expansion) if last else expansion):
            if sym.is_term:
                out.add(sym.name)
                break
            if sym.name not in seen:
                out |= _edge_terminals(rules, nullable, str(sym.name), last, seen + (rule,))
            if sym.name not in nullable:
                break
    return out


def keyword_terminals() -> dict[str, str]:
    """{terminal name: keyword} for every keyword of the grammar (`ADVANCE` -> `advance`)."""
    words, _ = _terminal_words()
    return {name: word for word, name in words.items()}


def item_starters() -> frozenset[str]:
    """Keywords that can begin a top-level statement: the first terminals of the grammar's `item`."""
    first, _ = statement_edges()
    return frozenset(word for name, word in keyword_terminals().items() if name in first)


def describe_terminal(name: str) -> str:
    if name in _TERMINAL_WORDS:
        return _TERMINAL_WORDS[name]
    for t in lark_parser().terminals:
        if t.name == name and t.pattern.type == "str":
            return f"`{t.pattern.value}`"
    return name.lower()


def normalise(text: str) -> str:
    """One line-ending convention, so that every position counts lines the same way."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


# What the bracket count must skip: strings (ended by `"` or, unterminated, by the line's end) and
# comments. Only these and the brackets are matched, so the scan runs in the regex engine.
_BRACKET_SCAN = re.compile(r'"(?:[^"\\\n]|\\.)*"?|#[^\n]*|[(){}]')


def check_limits(text: str, path: str, diags: Diagnostics, tokens: int | None = None,
                  brackets: str | None = None, lines: list[str] | None = None) -> bool:
    """Whether the text is within the limits (else one CIV005 says which); `tokens` is
    `count_tokens(text)`, `brackets` is `bracket_skeleton(text)` and `lines` its lines when the
    caller keeps them (an editor, line by line)."""
    if len(text) > MAX_BYTES:
        diags.error("CIV005", f"the file is {len(text):,} characters long; the limit is {MAX_BYTES:,}",
                    Span(path, 1, 1), help="split the rulebook, or extend a base rulebook instead of copying it")
        return False
    long_line = _first_long_line(text, lines)
    # the first bracket nested too deep, unless a long line ends before it (the error met first)
    nested = _first_too_nested(text, long_line[2] if long_line else len(text), brackets)
    if nested is not None:
        diags.error("CIV005", f"brackets are nested more than {MAX_NESTING} deep", Span(path, *_position(text, nested)))
        return False
    if long_line is not None:
        number, length, _ = long_line
        diags.error("CIV005", f"line {number} is {length:,} characters long; the limit is {MAX_LINE:,}",
                    Span(path, number, 1))
        return False
    excess = _first_excess_token(text, tokens)
    if excess is not None:
        diags.error("CIV005", f"the file has more than {MAX_TOKENS:,} tokens (words, numbers, strings, symbols)",
                    Span(path, *_position(text, excess)),
                    help="split the rulebook, or extend a base rulebook instead of copying it")
        return False
    return True


def _position(text: str, offset: int) -> tuple[int, int]:
    """(line, column), both from 1, of a character offset in normalised text."""
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


def _first_long_line(text: str, lines: list[str] | None = None) -> tuple[int, int, int] | None:
    """The first line longer than MAX_LINE: its number, length, and the offset where it ends
    (`lines`: the text's lines, when the caller has them)."""
    if len(text) <= MAX_LINE:
        return None
    lines = lines if lines is not None else text.split("\n")
    if not lines or max(map(len, lines)) <= MAX_LINE:  # the loop only for a file that has such a line
        return None
    offset = 0
    for number, line in enumerate(lines, 1):
        offset += len(line)
        if len(line) > MAX_LINE:
            return number, len(line), offset
        offset += 1
    return None


def _first_too_nested(text: str, end: int, brackets: str | None = None) -> int | None:
    """The offset of the first bracket before `end` nested more than MAX_NESTING deep."""
    if end == len(text) and _shallow(text, brackets):  # the usual file: no loop over brackets
        return None
    depth = 0
    for m in _BRACKET_SCAN.finditer(text, 0, end):
        ch = m.group()
        if ch == "(" or ch == "{":
            depth += 1
            if depth > MAX_NESTING:
                return m.start()
        elif ch == ")" or ch == "}":
            depth = max(0, depth - 1)
    return None


# What _BRACKET_SCAN skips (strings, comments) and the runs of text between them without a bracket.
_NOT_A_BRACKET = re.compile(r'[^"#(){}]+|"(?:[^"\\\n]|\\.)*"?|#[^\n]*')
_BRACES_AS_PARENTHESES = str.maketrans("{}", "()")


# How many rounds _shallow takes at most: more than rulebooks nest brackets (the shipped ones, 7).
_MOST_ROUNDS = 16


def bracket_skeleton(text: str) -> str:
    """The brackets of the text outside strings and comments, in order. Strings and comments end
    at their line's end, so a text's skeleton is its lines' skeletons joined."""
    return _NOT_A_BRACKET.sub("", text)


def _shallow(text: str, brackets: str | None = None) -> bool:
    """Whether brackets surely nest no deeper than MAX_NESTING in `text` (as _first_too_nested
    counts them), found by string operations: the brackets alone, `{}` as `()`, lose their
    innermost pairs `()` round after round, and matched pairs nested k deep are gone after k
    rounds; what is left is closers never opened (nesting nothing) and openers never closed (a
    level each), so rounds + openers left bound the nesting. False (the loop decides) after
    _MOST_ROUNDS rounds, or with more than MAX_NESTING openers in a row, so that a hostile file costs a
    few passes over its text."""
    brackets = (bracket_skeleton(text) if brackets is None else brackets).translate(_BRACES_AS_PARENTHESES)
    if "(" * (MAX_NESTING + 1) in brackets:
        return False
    rounds = 0
    while "()" in brackets:
        if rounds == _MOST_ROUNDS:
            return False
        brackets = brackets.replace("()", "")
        rounds += 1
    return rounds + brackets.count("(") <= MAX_NESTING


def count_tokens(text: str) -> int:
    """The matches the token limit counts, comments included. No match spans a line, so a text's
    count is the sum of its lines' counts."""
    return len(_TOKEN.findall(text))


def _first_excess_token(text: str, matches: int | None = None) -> int | None:
    """The offset of the first token past MAX_TOKENS, comments not counted; `matches` is
    `count_tokens(text)` when known.

    Only a file whose matches (comments included) pass the limit needs the exact count, and only
    a file longer than the limit can: every match is at least one character long."""
    if len(text) <= MAX_TOKENS or (matches if matches is not None else count_tokens(text)) <= MAX_TOKENS:
        return None
    tokens = (m for m in _TOKEN.finditer(text) if m.group()[0] != "#")
    excess = next(itertools.islice(tokens, MAX_TOKENS, None), None)
    return excess.start() if excess else None


def parse(text: str, path: str, diags: Diagnostics, depth: bool = True,
          within_limits: bool = False) -> lark.Tree | None:
    """Parse normalised text; on failure report the first syntax error. Without `depth`, the tree
    is not checked against MAX_DEPTH here: the caller's syntax pass measures it on its way
    (syntax.to_syntax raises TooDeep) and reports it with `report_too_deep`. `within_limits`:
    the caller found the text within the limits (its length still counts)."""
    if not (within_limits and len(text) <= MAX_BYTES) and not check_limits(text, path, diags):
        return None
    # Only the first syntax error is reported: LALR error recovery mostly produces cascades
    # that point away from the real mistake. Every later pass reports all of its findings.
    try:
        tree = _parse_past_unknown_fields(text, path, diags)
    except UnexpectedInput as exc:
        _report_syntax_error(exc, text, path, diags)
        return None
    except RecursionError:
        diags.error("CIV005", "the file is nested too deeply to parse", Span(path, 1, 1))
        return None
    if depth and _too_deep(tree) is not None:
        report_too_deep(tree, path, diags)
        return None
    return tree


def report_too_deep(tree: lark.Tree, path: str, diags: Diagnostics) -> None:
    """CIV005 at the first node (innermost first) of a tree nested deeper than MAX_DEPTH."""
    deep = _first_too_deep(tree)
    diags.error("CIV005", f"this is nested more than {MAX_DEPTH} levels deep", Span(path, *_start(deep or tree)),
                notes=["brackets, `not`, unary `-`, calls and blocks each count a level; "
                       "a chain of N operators (`a + b + ...`) counts N"],
                help="split the expression using `const` declarations")


def _parse_past_unknown_fields(text: str, path: str, diags: Diagnostics) -> lark.Tree:
    """The parse tree, or raises the first syntax error. An unknown field inside an item (`cots 60`)
    is the one mistake recovered from: it is reported with did-you-mean (CIV135), blanked out, and
    the text parsed again, so that the rest of the file is still checked. The repairs are bounded
    so a hostile file full of them costs at most a few full parses' worth of characters."""
    repairs = max(1, min(MAX_UNKNOWN_FIELDS, REPAIR_BUDGET // max(len(text), 1)))
    while True:
        try:
            return fast_parse(text)
        except UnexpectedToken as exc:
            found = _unknown_field(exc, text) if repairs > 0 else None
            if found is None:
                raise
            repairs -= 1
            start, end = found[0], found[1]
            _report_unknown_field(found, text, path, diags)
            text = text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


# The rules whose nodes are chains of binary operators (see MAX_DEPTH).
CHAINS = frozenset({"or_expr", "and_expr", "comparison", "sum", "product"})


class TooDeep(Exception):
    """A tree nested deeper than MAX_DEPTH, found by a walk that measures depth on its way."""


def _depth(node: lark.Tree, level: int) -> int:
    """The node's depth, counted as described at MAX_DEPTH; raises TooDeep past MAX_DEPTH.

    Recursive, and so about seven times faster than the exact search below, but only to a
    bounded level: a node's depth is at least the height of its tree, so a tree higher than
    MAX_DEPTH is too deep whatever it holds (`not not not ... x` builds one)."""
    if level > MAX_DEPTH:
        raise TooDeep
    if node.data in CHAINS:
        d = node_depth(node, [_depth(c, level + 1) if isinstance(c, lark.Tree) else 0 for c in node.children])
    else:  # most nodes: a plain loop, with no list built (this walk runs on every parse)
        d = 0
        for c in node.children:
            if isinstance(c, lark.Tree):
                d = max(d, _depth(c, level + 1))
        d += 1
    if d > MAX_DEPTH:
        raise TooDeep
    return d


def _start(node: lark.Tree) -> tuple[int, int]:
    """(line, column) where a node of the parse tree starts: at its first token (1, 1 if it has none)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, TOKEN_TYPES):
            return n.line, n.column
        if isinstance(n, lark.Tree):
            stack.extend(reversed(n.children))
    return 1, 1


def node_depth(node: lark.Tree, kids: list[int]) -> int:
    """A node's depth from its children's depths (0 for a token)."""
    if node.data in CHAINS and len(kids) > 1:
        operands = kids[0::2]
        k = len(operands)
        # left-deep: the first operand sits k-1 levels down, operand i (i >= 1) k-i levels
        return max([k - 1 + operands[0]] + [k - i + operands[i] for i in range(1, k)])
    return 1 + max(kids, default=0)


def _too_deep(tree: lark.Tree) -> lark.Tree | None:
    """The first node (innermost first) nested deeper than MAX_DEPTH, or None."""
    try:
        _depth(tree, 0)
        return None
    except TooDeep:
        return _first_too_deep(tree)


def _first_too_deep(tree: lark.Tree) -> lark.Tree | None:
    """The first node (innermost first) nested deeper than MAX_DEPTH, or None. Iterative."""
    depth: dict[int, int] = {}
    stack: list[tuple[lark.Tree, bool]] = [(tree, False)]
    while stack:
        node, done = stack.pop()
        if not done:
            stack.append((node, True))
            stack.extend((c, False) for c in node.children if isinstance(c, lark.Tree))
            continue
        d = node_depth(node, [depth.pop(id(c), 0) if isinstance(c, lark.Tree) else 0 for c in node.children])
        if d > MAX_DEPTH:
            return node
        depth[id(node)] = d
    return None


MAX_UNKNOWN_FIELDS = 50
REPAIR_BUDGET = 4_000_000  # characters re-parsed, at most, to recover from unknown fields


def _terminal_words() -> tuple[dict[str, str], frozenset[str]]:
    """({keyword: terminal name}, the terminals that can start an item), from the grammar."""
    return _terminal_words_of(lark_parser())


@functools.lru_cache(maxsize=2)
def _terminal_words_of(built: lark.Lark) -> tuple[dict[str, str], frozenset[str]]:
    words = {t.pattern.value: t.name for t in built.terminals
             if t.pattern.type == "str" and re.fullmatch(r"[a-z_]+", t.pattern.value)}
    interactive = built.parse_interactive('language 1\nedition x "X"\n')
    interactive.exhaust_lexer()
    return words, frozenset(interactive.accepts())


def _unknown_field(exc: UnexpectedToken, text: str) -> tuple | None:
    """(start, end, item kind, word, item name or None) of an unknown field the parser stopped at, or None when the
    error is not one: the token must be a name, or a field word of another item kind (and not a
    word that starts an item: then a `}` is more likely missing), standing where the fields of
    one kind of fields.ITEM_FIELDS are expected. The field runs, brackets balanced, up to the next
    field word of that kind or the item's closing `}`."""
    tok = exc.token
    if tok.type == "$END":
        return None
    found = _field_word(exc, text)
    if found is None:
        return None
    start, word, expected, interactive = found
    kind = _item_kind(expected)
    if kind is None or "RBRACE" not in expected:
        return None
    end = _field_end(text, tok.end_pos, word, set(_field_words(kind)))
    return start, end, kind, word, _item_name(interactive)


def _field_word(exc: UnexpectedToken, text: str) -> tuple | None:
    """(start, the word, the terminals the parser expected there, its interactive parser) of the
    word the parser stopped at, or None when that word cannot be a field."""
    tok = exc.token
    start = _word_start(text, tok.start_pos)
    if start != tok.start_pos:
        return _glued_field_word(text, start, tok.end_pos)
    _, item_starts = _terminal_words()
    if tok.type != "NAME" and (not item_fields.kinds_with_word(tok.value) or tok.type in item_starts):
        return None
    return start, tok.value, set(exc.expected or ()), getattr(exc, "interactive_parser", None)


def _word_start(text: str, end: int) -> int:
    """Where the word that runs up to `end` begins."""
    start = end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    return start


def _glued_field_word(text: str, start: int, end: int) -> tuple | None:
    """_field_word's answer when the lexer read a keyword glued to the rest of the word (`supplyy`
    as `supply` `y`, since where only keywords may stand it tries only them): the word from
    `start` to `end` is the field, and the parser state is the one before it."""
    try:
        interactive = lark_parser().parse_interactive(text[:start])
        interactive.exhaust_lexer()
    except UnexpectedInput:
        return None
    return start, text[start:end], set(interactive.accepts()), interactive


def _field_words(kind: str, in_change: bool = True) -> list[str]:
    """The words of an item kind's fields, with (`in_change`) or without those only a `change`
    may give; a word two fields share (`block` and `block ... when`) once."""
    return list(dict.fromkeys(f.word for f in item_fields.ITEM_FIELDS[kind] if in_change or not f.change_only))


def _item_kind(expected: set) -> str | None:
    """The item kind whose fields (all of them) the parser expects, the one with most fields."""
    words, _ = _terminal_words()
    kind, size = None, 0
    for k in item_fields.ITEM_FIELDS:
        wanted = {words.get(word) for word in _field_words(k, in_change=False)}
        if None not in wanted and wanted <= expected and len(wanted) > size:
            kind, size = k, len(wanted)
    return kind


# How each bracket changes the nesting depth (other tokens change nothing).
_NESTING = {"(": 1, "{": 1, ")": -1, "}": -1}


def _field_end(text: str, end: int, word: str, stops: set) -> int:
    """Where an unknown field's value ends: brackets balanced, up to the next field word of its
    kind or the item's closing `}`."""
    depth, prev = 0, word
    for m in _TOKEN.finditer(text, end):
        t = m.group()
        if t[0] == "#":
            continue
        if depth == 0 and _ends_field(t, prev, "\n" in text[end:m.start()], stops):
            return end
        depth += _NESTING.get(t, 0)
        end, prev = m.end(), t
    return len(text)


def _ends_field(token: str, prev: str, new_line: bool, stops: set) -> bool:
    """Whether `token`, outside brackets, is past the end of an unknown field's value: it is `}`,
    a field word, on a new line (unless the line before ends with a comma), or a word after a
    number or string (the next field, misspelt too: `cots 45 grups crafts`)."""
    if token == "}" or token in stops or (new_line and prev != ","):
        return True
    return bool(_WORD.fullmatch(token)) and not token[0].isdigit() and (prev[0].isdigit() or prev[0] == '"')


def _item_name(interactive) -> str | None:
    """The name of the item whose block the parser is in: the string before the last `{` it
    has shifted (inner blocks are reduced by then), or None."""
    stack = _value_stack(interactive)
    brace = _innermost_brace(stack)
    before = stack[brace - 1] if brace else None
    return before.value[1:-1] if _is_token(before, "STRING") else None


def _value_stack(interactive) -> list:
    """What the (interactive) parser has shifted and reduced so far, or [] when it is not known."""
    return getattr(getattr(interactive, "parser_state", None), "value_stack", None) or []


def _innermost_brace(stack: list) -> int | None:
    """The index on a value stack of the innermost `{` still open, or None."""
    return next((i for i in range(len(stack) - 1, -1, -1) if _is_token(stack[i], "LBRACE")), None)


def _is_token(value, kind: str) -> bool:
    return isinstance(value, lark.Token) and value.type == kind


def _report_unknown_field(found: tuple, text: str, path: str, diags: Diagnostics) -> None:
    start, _, kind, word, name = found
    line, column = _position(text, start)
    names = _field_words(kind, in_change=False)
    a_kind = f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"
    elsewhere = [k for k in item_fields.kinds_with_word(word) if k != kind]
    which = f"{kind} `{name}`" if name is not None else a_kind
    notes = [f"{a_kind}'s fields: {', '.join(names)}"]
    if elsewhere:
        message = f"`{word}` is not a field of {which}"
        notes.insert(0, f"`{word}` is a field of: {', '.join(elsewhere)}")
    else:
        message = f"unknown field `{word}` in {which}"
    best = did_you_mean(word, _field_words(kind))
    diags.error("CIV135", message, Span(path, line, column, column + len(word)), notes=notes,
                help=unknown_field_help(best) if best else None, item=name)


def unknown_field_help(field: str) -> str:
    """CIV135's help when the unknown field looks like `field` (the validator then does not also
    report that field missing from the item)."""
    return f"did you mean `{field}`?"


def _report_syntax_error(exc: UnexpectedInput, text: str, path: str, diags: Diagnostics) -> None:
    if isinstance(exc, UnexpectedCharacters):
        _report_unexpected_character(exc, text, Span(path, *_stopped_at(exc)), diags)
        return
    expected = sorted({describe_terminal(t) for t in exc.expected or () if not t.startswith("__")})
    line, column, found, width = _found(exc, text)
    if "`}`" in expected and _report_unclosed(exc, text, path, line, column, found, diags):
        return
    notes = [f"expected {_join_expected(expected)}"] if expected else []
    diags.error("CIV001", f"unexpected {found}", Span(path, line, column, column + width), notes=notes)


def _stopped_at(exc: UnexpectedInput) -> tuple[int, int]:
    """(line, column) where Lark says the parser stopped (1, 1 where it does not say)."""
    return getattr(exc, "line", 1) or 1, getattr(exc, "column", 1) or 1


def _found(exc: UnexpectedEOF | UnexpectedToken, text: str) -> tuple[int, int, str, int]:
    """(line, column, how it is named, width) of what the parser met where it stopped: a token,
    or the end of the file (at its very end, wherever Lark places it)."""
    if isinstance(exc, UnexpectedEOF) or exc.token.type == "$END":
        return (*_position(text, len(text)), "end of file", 1)
    tok = exc.token
    return (*_stopped_at(exc), f"`{tok}`" if tok.type != "STRING" else f"string {tok}", len(str(tok)))


def _report_unexpected_character(exc: UnexpectedCharacters, text: str, at: Span, diags: Diagnostics) -> None:
    """CIV002: a character no token starts with (a string left open is the usual one)."""
    ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else ""
    if ch == '"':
        diags.error("CIV002", "unterminated string", at, help='close the string with `"` on the same line')
    else:
        shown = repr(ch)[1:-1] if ch else "end of input"
        diags.error("CIV002", f"unexpected character `{shown}`", Span(at.path, at.line, at.column, at.column + 1))


def _open_brace(exc: UnexpectedInput) -> lark.Token | None:
    """The innermost `{` still open where the parser stopped (the last on its value stack), if its
    position is known."""
    stack = _value_stack(getattr(exc, "interactive_parser", None))
    at = _innermost_brace(stack)
    return stack[at] if at is not None and stack[at].line is not None else None


def _report_unclosed(exc: UnexpectedInput, text: str, path: str, line: int, column: int, found: str,
                     diags: Diagnostics) -> bool:
    """A block left open is reported at its `{`, not where the parser gave up: at the end of the
    file, or at a token on a later line that starts no further right than the block's own first
    line (a new item, written as if the block were closed). The innermost `{` still open is on
    the parser's value stack. False when the error is not that (a mistake inside the block)."""
    brace = _open_brace(exc)
    if brace is None:
        return False
    lines = text.split("\n")
    opening = lines[brace.line - 1]
    indent = len(opening) - len(opening.lstrip())
    at_end = found == "end of file"
    if not (at_end or (line > brace.line and column - 1 <= indent)):
        return False
    header = " ".join(opening[indent:brace.column - 1].split())
    what = f"`{header}`" if header else "this block"
    # the block presumably ends after the last line with text before the error
    last = next((n for n in range(line - 1, brace.line, -1) if lines[n - 1].strip()), brace.line)
    why = "the file ends first" if at_end else f"{found} on line {line} comes before its `}}`"
    diags.error("CIV100", f"{what} opened here is never closed", Span(path, brace.line, brace.column, brace.column + 1),
                notes=[why], help=f"add `}}` where the block ends (after line {last}?)")
    return True


# Closing brackets are listed first in "expected ..." so that a long list never hides them.
_CLOSERS = ("`}`", "`)`")


def _join_expected(words: list[str]) -> str:
    words = [w for w in _CLOSERS if w in words] + [w for w in words if w not in _CLOSERS]
    if len(words) > 8:
        return ", ".join(words[:8]) + f" or one of {len(words) - 8} more"
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]
