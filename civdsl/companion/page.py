"""The companion page: one self-contained HTML file per rulebook, for players at the table.

`companion_html(module, edition)` puts together, inline, the page's CSS (page/page.css), the edition's
engine (`jsgen.engine_script`, which sets `globalThis.civdsl`) and the user interface
(page/ui.js, which asks only that engine and reads only its MODEL). The page fetches nothing:
a Content-Security-Policy allows exactly these inline script and style texts, by their sha256
hashes, and nothing else (no 'unsafe-inline', no network, no frames, no forms posting away).

Rulebook text reaches the page three ways, each made safe by construction: the edition's name
in the title and heading through `escape.html`; names and summaries inside the engine as
JSON string literals (jsgen escapes `<`, `>`, `&`, U+2028 and U+2029, so `</script` cannot
appear); and, at run time, through text nodes only (ui.js never parses a string as HTML).
The vocabulary's words the UI needs (facts, effect templates) are given to ui.js the same way.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import re
import sys
import types
from functools import lru_cache
from importlib import resources

from .. import escape
from .. import phrases
from .. import vocabulary as vocab
from .py2es import GENERATED_MARK
from .jsgen import RULES_MARK, checked_engine, engine_parts, js_json, js_string

# Facts the page always offers steppers for, whatever the rulebook reads: a player's cities,
# tokens, stock and treasury (the rest appear when some answer of this rulebook needs them).
BASE_FACTS = ("cities", "tokens", "cities_in_stock", "tokens_in_stock", "treasury")
_PAGE_MARK = "/*PAGE*/null"


@lru_cache(maxsize=None)
def asset_text(name: str) -> str:
    return resources.files(__package__).joinpath("page", name).read_text(encoding="utf-8")


def page_words() -> dict:
    """What ui.js needs from the vocabulary: every fact (its type, meaning, minimum and noun),
    every effect kind's sentence template and parameters, the plural words they use, the nouns of
    derived names and what a counted requirement needs ("at least 2 needed")."""
    return {"facts": _fact_rows(), "effects": _effect_words(), "plurals": {k: list(v) for k, v in vocab.PLURALS.items()},
            "areas": dict(phrases.AREA_TEXT), "base_facts": list(BASE_FACTS),
            "derived_words": {k: list(v) for k, v in vocab.DERIVED_WORDS.items()}, "needed": dict(phrases.REQUIREMENT_NEEDS)}


def _effect_words() -> dict:
    """Each effect kind's sentence, main parameter and defaults, in the words `civdsl resolve`
    prints with (phrases.py's sentences a zero parameter changes), so the page says an effect
    as the command line does."""
    effects = {}
    for kind in vocab.EFFECT_KINDS.values():
        zero = {param: text for (k, param), text in phrases.ZERO_VARIANTS.items() if k == kind.name}
        words = {"text": kind.text, "params": {p.name: p.default for p in kind.params}}
        # an absent `main` or `zero` reads as none in ui.js: a lighter page
        if kind.main is not None:
            words["main"] = kind.main
        if zero:
            words["zero"] = zero
        effects[kind.name] = words
    return effects


def _fact_rows() -> dict:
    """The facts as rows of values with their field names once (ui.js rebuilds the records): the
    same words, a third lighter."""
    return {"fields": ["name", "type", "doc", "minimum", "words", "states"],
            "rows": [[f.name, f.type, f.doc, f.minimum, list(f.words) if f.words else None,
                      list(f.states) if f.states else None] for f in vocab.FACTS.values()]}


_DOM_MARK = "  /*DOM*/\n"


def with_dom(name: str) -> str:
    """The page asset NAME (a page's interface, one wrapping function) with the DOM helpers both
    pages share (page/dom.js) joined in at its mark, indented as the function's body."""
    source = asset_text(name)
    if source.count(_DOM_MARK) != 1:
        raise RuntimeError(f"{name} must hold the DOM helpers' mark exactly once")
    return source.replace(_DOM_MARK, re.sub(r"^(?=.)", "  ", asset_text("dom.js"), flags=re.M))


@lru_cache(maxsize=None)
def ui_script() -> str:
    """ui.js with the DOM helpers and the vocabulary's words written in (as a JSON.parse of a safe
    string literal)."""
    source = with_dom("ui.js")
    if source.count(_PAGE_MARK) != 1:
        raise RuntimeError("ui.js must hold the page data mark exactly once")
    return source.replace(_PAGE_MARK, js_json(page_words()))


def csp_hash(text: str) -> str:
    """The CSP source expression that allows exactly this inline script or style text."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(scripts: list[str], styles: list[str]) -> str:
    """Nothing but the page's own inline code: no network (default-src 'none' covers fetch,
    images, fonts and frames), no base URL, no form target; data: images only (none are used
    today, but a favicon request would otherwise be a console error on some browsers)."""
    return "; ".join([
        "default-src 'none'",
        "script-src " + " ".join(csp_hash(s) for s in scripts),
        "style-src " + " ".join(csp_hash(s) for s in styles),
        "img-src data:",
        "base-uri 'none'",
        "form-action 'none'",
    ])


# After these characters and words a `/` starts a regular expression, elsewhere it divides.
_REGEX_AFTER_CHARS = set("(,=:[!&|?{};+-*%<>~^")
_REGEX_AFTER_WORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw",
                      "instanceof", "yield", "await"}
_JS_TOKEN = re.compile(r"""
    (?P<code>[^"'`/\n]+)
  | (?P<nl>\n)
  | (?P<str>"[^"\\\n]*(?:\\.[^"\\\n]*)*"|'[^'\\\n]*(?:\\.[^'\\\n]*)*')
  | (?P<line>//[^\n]*)
  | (?P<block>/\*.*?\*/)
  | (?P<slash>/)
""", re.X | re.S)
_JS_REGEX = re.compile(r"/(?:[^/\\\[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/[A-Za-z]*")
_SPACES = re.compile(r"[ \t\r\f\v]+")
_LAST_WORD = re.compile(r"[A-Za-z0-9_$]+$")


def _js_tokens(text: str) -> list[tuple[str, str]] | None:
    """TEXT as (kind, token) pairs, the kinds of `_JS_TOKEN` and "regex"; None for text this
    scanner cannot read (a backtick, i.e. a template literal, or a quote or comment that never
    closes). compact_script and minify_script both read JavaScript through it."""
    tokens: list[tuple[str, str]] = []
    last = ""  # the last significant character or word: is a `/` a division or a regex?
    pos, n = 0, len(text)
    while pos < n:
        m = _JS_TOKEN.match(text, pos)
        if m is not None and m.lastgroup == "slash" and _regex_may_start(last):
            m = _JS_REGEX.match(text, pos)
            kind = "regex"
        elif m is not None:
            kind = m.lastgroup
        if m is None:
            return None
        pos = m.end()
        last = _last_significant(kind, m.group(), last)
        tokens.append((kind, m.group()))
    return tokens


def _regex_may_start(last: str) -> bool:
    """After LAST (a character or word), a `/` starts a regular expression rather than dividing."""
    return last == "" or last in _REGEX_AFTER_CHARS or last in _REGEX_AFTER_WORDS


def _last_significant(kind: str, token: str, last: str) -> str:
    """The last significant character or word once TOKEN is read (line breaks and comments are not)."""
    if kind in ("nl", "block", "line"):
        return last
    if kind != "code":
        return token[-1]  # a string's quote, a regex's flag or slash, a division
    code = token.rstrip()
    if not code:
        return last
    word = _LAST_WORD.search(code)
    return word.group() if word else code[-1]


class _CompactLines:
    """compact_script's output as it is written: the finished lines and the one being written,
    one method per kind of token (a string, a regex and a division are copied as they are)."""

    def __init__(self):
        self.out: list[str] = []
        self.line: list[str] = []

    def add(self, kind: str, token: str) -> None:
        getattr(self, f"_{kind}", self._copy)(token)

    def _code(self, token: str) -> None:
        token = _SPACES.sub(" ", token)
        self.line.append(token[1:] if token[:1] == " " and self.line and self.line[-1][-1:] == " " else token)

    def _nl(self, token: str) -> None:
        code = "".join(self.line).strip()
        if code:
            self.out.append(code)
        self.line = []

    def _block(self, token: str) -> None:
        """A block comment: a line break if it spans lines, else a space."""
        if "\n" in token:
            self._nl(token)
        elif self.line and self.line[-1][-1:] != " ":
            self.line.append(" ")

    def _line(self, token: str) -> None:
        pass  # a line comment: its line break follows

    def _copy(self, token: str) -> None:
        self.line.append(token)

    def text(self) -> str:
        self._nl("")
        return "\n".join(self.out) + "\n"


def compact_script(text: str) -> str:
    """JavaScript without its comments, indentation and blank lines: the same program, lighter.

    A small scanner that knows strings, regular expressions and comments: tokens and string
    contents are copied as they are, line breaks are kept (so automatic semicolon insertion
    sees the same lines), runs of spaces between tokens become one, a comment becomes a space,
    or a line break if it spans lines. Text it cannot scan (a template literal, an unterminated
    string or comment) is returned unchanged."""
    tokens = _js_tokens(text)
    if tokens is None:
        return text
    lines = _CompactLines()
    for kind, token in tokens:
        lines.add(kind, token)
    return lines.text()


# minify_script: which characters make one token with their neighbour if nothing separates them.
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$\\")
# Pairs of characters a dropped space would fuse into another token (`a + +b`, `a - -b`, `1 .x`)
# or into the start of an HTML-like comment (`<!--`, `-->`); a `/` keeps its spaces always
# (`a / /re/`, `/re/ in x`), so a division can never become a comment or a regex's flags.
_FUSING_PAIRS = frozenset({"++", "--", "<!", "->", "..", "+.", "-."})
# A line ending in one of these cannot be a finished statement, so the line break after it
# never ends one by automatic semicolon insertion (ASI) and the next line may follow directly.
_OPEN_ENDINGS = frozenset("{([,;=:?&|<>+-*%!~^")
# A line starting with one of these continues the line before; a break before it is never an
# ASI point that changes the program (before `}` a semicolon is inserted with or without it).
_CLOSING_STARTS = frozenset("})],;:?")


def _is_word(char: str) -> bool:
    return char in _WORD_CHARS or char > "\x7f"


def _needs_space(before: str, after: str) -> bool:
    """Whether the space between a token ending in BEFORE and one starting with AFTER matters."""
    if _is_word(before) and _is_word(after):
        return True
    if before == "/" or after == "/":
        return True
    if before.isdigit() and after == ".":
        return True
    return before + after in _FUSING_PAIRS


def _joins(line: str, following: str) -> bool:
    """Whether LINE and the FOLLOWING one can be one line with the same meaning: the break
    between them is neither a place where ASI inserts a semicolon nor inside a restricted
    production (`return`, `break`, `continue`, `throw`, `yield` or postfix `++`/`--` across it)."""
    if _break_stays(line, following):
        return False
    end, start = line[-1], following[0]
    # after a `}`, a line starting with a word: a semicolon is inserted there only if the word cannot
    # go on the line before (then the joined line does not parse, a change never silent), otherwise
    # the break meant nothing; before a `(`, `[`, `/`, `+` or `-` it stays
    return end in _OPEN_ENDINGS or start in _CLOSING_STARTS or end + start in _MEMBER_ACCESS \
        or (end == "}" and _is_word(start))


# A line starting with `.` after a call or an index continues it (`f()` then `.x`).
_MEMBER_ACCESS = frozenset({").", "]."})


def _break_stays(line: str, following: str) -> bool:
    """The break must stay whatever the lines hold: a postfix `++`/`--` may not cross it (a
    restricted production), and after a `/` or `*/` the scanner's reading ends there."""
    return line[-2:] in ("++", "--", "*/") or following[:2] in ("++", "--") or line[-1] == "/"


def minify_script(text: str) -> str:
    """compact_script's program with the spaces no token needs and the line breaks no statement
    needs removed: still the same tokens in the same order, so the same program.

    A space goes where two identifier characters, two `+` or `-`, a number and a dot would
    otherwise fuse, and around every `/`; strings and regular expressions are copied as they
    are. A line break stays unless `_joins` shows it cannot matter. Text it cannot scan (a
    template literal, an unterminated string or comment) is returned unchanged."""
    scanned = _js_tokens(text)
    if scanned is None:
        return text
    lines: list[list[str | None]] = [[]]  # tokens of each line, None where a space was
    for kind, token in scanned:
        if kind == "nl" or (kind == "block" and "\n" in token):
            lines.append([])
        else:
            lines[-1].extend(_MINIFY_PIECES.get(kind, _copied)(token))
    return _minified_lines(lines)


# The keyword `const` of a declaration: `let` declares the same block-scoped binding and differs
# only in refusing a later assignment, which a program that runs never makes; two bytes less at
# each of the page's thousand declarations.
_CONST_KEYWORD = re.compile(r"(?<![\w$.])const(?![\w$:])")


def _code_pieces(token: str) -> list[str | None]:
    """A run of code as its pieces between spaces, None where a space was; declarations by `let`."""
    pieces: list[str | None] = []
    for i, piece in enumerate(_SPACES.split(_CONST_KEYWORD.sub("let", token))):
        if i:
            pieces.append(None)
        if piece:
            pieces.append(piece)
    return pieces


def _copied(token: str) -> list[str | None]:
    return [token]


def _comment_piece(token: str) -> list[str | None]:
    return [None]  # a comment on one line: a space


# what minify_script keeps of each kind of token on a line (a string, a regex, a division: itself)
_MINIFY_PIECES = {"code": _code_pieces, "block": _comment_piece, "line": _comment_piece}


def _minified_lines(lines: list[list[str | None]]) -> str:
    """minify_script's output from its scanned lines (tokens, None where a space was): each
    line with only the spaces `_needs_space` keeps, joined to the line before where `_joins` allows."""
    out: list[str] = []
    for text_line in filter(None, map(_minified_line, lines)):
        if out and _joins(out[-1], text_line):
            out[-1] += (" " if _needs_space(out[-1][-1], text_line[0]) else "") + text_line
        else:
            out.append(text_line)
    return "\n".join(out) + "\n"


def minified_parts(parts: list[str], whole: str) -> str:
    """minify_script(compact_script(WHOLE)) where WHOLE is PARTS joined with line breaks, each part
    scanned and minified on its own (the runtime files, the same in every page, once per process:
    `_minified_part`) and the lines joined as minify_script joins them: the same text, because no
    token crosses a line break between parts and every part opens with a token that does not need
    to know the one before it (a part that does not, or that the scanner cannot read, gives the
    whole text's minify_script instead)."""
    scanned = [_minified_part(part) for part in parts]
    if any(lines is None for lines in scanned):
        return minify_script(compact_script(whole))
    out: list[str] = []
    for text_line in (line for lines in scanned for line in lines):
        if out and _joins(out[-1], text_line):
            out[-1] += (" " if _needs_space(out[-1][-1], text_line[0]) else "") + text_line
        else:
            out.append(text_line)
    return "\n".join(out) + "\n"


@lru_cache(maxsize=64)
def _minified_part(text: str) -> tuple[str, ...] | None:
    """One part's minified lines before any line is joined to the one before (minify_script of
    compact_script, its lines not joined); None where the scanner cannot read the part or its
    first token is a `/` (a division or a regex only the token before it tells apart)."""
    compacted = compact_script(text)
    scanned = _js_tokens(compacted)
    if scanned is None or compacted is text:  # compact_script gives back what it cannot scan
        return None
    first = next((kind for kind, _ in scanned if kind not in ("nl", "block", "line")), None)
    if first in ("slash", "regex"):
        return None
    lines: list[list[str | None]] = [[]]
    for kind, token in scanned:
        if kind == "nl" or (kind == "block" and "\n" in token):
            lines.append([])
        else:
            lines[-1].extend(_MINIFY_PIECES.get(kind, _copied)(token))
    return tuple(filter(None, map(_minified_line, lines)))


@lru_cache(maxsize=None)
def _page_script() -> str:
    """ui.js minified, the same in every page, its functions' locals renamed as the engine's are
    (its functions are those of one wrapping function: read one indent less, they are top-level)."""
    body = re.sub(r"^  ", "", ui_script(), flags=re.M)
    return inline_safe(minify_script(compact_script(short_runtime_locals([body])[0])), "script")


@lru_cache(maxsize=None)
def _page_style() -> str:
    """page.css compacted, the same in every page."""
    return inline_safe(compact_css(asset_text("page.css")), "style")


def _minified_line(tokens: list[str | None]) -> str:
    """One scanned line with only the spaces `_needs_space` keeps."""
    text_line = ""
    space = False
    for token in tokens:
        if token is None:
            space = True
            continue
        if space and text_line and _needs_space(text_line[-1], token[0]):
            text_line += " "
        text_line += token
        space = False
    return text_line


_CSS_TOKEN = re.compile(r"""(?P<str>"[^"\\\n]*(?:\\.[^"\\\n]*)*"|'[^'\\\n]*(?:\\.[^'\\\n]*)*')|(?P<comment>/\*.*?\*/)|(?P<code>[^"'/]+|/)""", re.S)
_CSS_SPACE = re.compile(r"\s+")
_CSS_AROUND = re.compile(r" ?([{};,]) ?")


def compact_css(text: str) -> str:
    """The style sheet without comments and without the spaces no rule needs: runs of white
    space become one space, none is kept around `{`, `}`, `;` and `,` or after a `:` followed
    by a space, nor a rule's last `;` (a property's colon; a selector's pseudo-class has none after it). Strings
    are copied as they are; text it cannot scan (a quote that never closes) is unchanged."""
    out: list[str] = []
    code: list[str] = []  # the code since the last string, a comment as a space

    def flush():
        spaced = _CSS_SPACE.sub(" ", "".join(code))
        out.append(_CSS_AROUND.sub(r"\1", spaced.replace(": ", ":")).replace(";}", "}"))
        code.clear()

    pos, n = 0, len(text)
    while pos < n:
        m = _CSS_TOKEN.match(text, pos)
        if m is None:
            return text
        pos = m.end()
        if m.lastgroup == "str":
            flush()
            out.append(m.group())
        else:
            code.append(" " if m.lastgroup == "comment" else m.group())
    flush()
    return "".join(out).strip()


# Engine functions the page never calls (it asks for no look-ahead, no explanation and no price of
# trade cards), with the option that would: the page's copy of the engine holds, in their place, a
# function that refuses the question, which keeps every page within its weight goal. In Node and
# in the tests' engine (`engine_script`) they are all there.
PAGE_LEAVES_OUT = {"ph_two_turns": "--horizon 2 (the look-ahead)", "pa__explain": "--explain",
                   "sa_trade_card_stacks": "--trade-cards", "pr_trade_card_prices": "--trade-cards"}


def page_engine(parts: list[str]) -> list[str]:
    """The engine's PARTS (`jsgen.engine_parts`) without the functions of PAGE_LEAVES_OUT, each
    replaced by one that throws the engine's UserError naming the option, so the page's
    `civdsl.plan(state, {horizon: 2})` answers `{error}`. A function found in no part is a
    generator bug; an engine with a part the scanner cannot read (a template literal) is kept
    whole, as compact_script keeps such text (the page is heavier, and its weight test says so)."""
    done = [_without_unasked(part) for part in parts]
    if any(found is None for _, found in done):
        return parts
    missing = set(PAGE_LEAVES_OUT).difference(*(found for _, found in done))
    if missing:
        raise RuntimeError(f"the engine has no function {', '.join(sorted(missing))} to leave out of the page")
    return [part for part, _ in done]


_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def without_unused(parts: list[str], also_reads: str) -> list[str]:
    """PARTS without the top-level functions and classes nothing reaches: neither the code outside every
    top-level function, nor ALSO_READS (the page's own script), nor a function reached. The
    runtime files hold helpers that only some editions' rules call (and the helpers of what the
    page leaves out): this edition's page carries only what it can run. Any word counts as a
    reference, in a string too (the conservative reading: a function kept that need not be).
    Parts the scanner cannot read are kept whole, with every name in them a reference."""
    found = [_top_functions(part, classes=True) for part in parts]
    bodies: dict[str, set[str]] = {}
    roots = set(_IDENTIFIER.findall(also_reads))
    for part, spans in zip(parts, found):
        if spans is None:
            roots.update(_IDENTIFIER.findall(part))
            continue
        pos = 0
        for name, (start, end) in spans.items():
            roots.update(_IDENTIFIER.findall(part, pos, start))
            bodies[name] = set(_IDENTIFIER.findall(part, part.index(name, start) + len(name), end))
            pos = end
        roots.update(_IDENTIFIER.findall(part, pos))
    live, todo = set(), [name for name in bodies if name in roots]
    while todo:
        name = todo.pop()
        if name not in live:
            live.add(name)
            todo.extend(bodies[name] & bodies.keys() - live)
    out = []
    for part, spans in zip(parts, found):
        for name, (start, end) in reversed(list((spans or {}).items())):
            if name not in live:
                part = part[:start] + part[end:]
        out.append(part)
    return out


_LOCALS = re.compile(r"\n *let ([A-Za-z_$][A-Za-z0-9_$]*(?:, [A-Za-z_$][A-Za-z0-9_$]*)*);")


def short_locals(part: str, taken: set[str]) -> str:
    """PART with the rules' shared constants (`rulePath0`) and the variables each top-level
    generated rule function declares in its `let` line renamed to the shortest names used
    nowhere in the page (TAKEN: every word of it): the
    generated calamity functions repeat their locals (`e0_amount`, `effects`, `trace`) hundreds of
    times. Only code is renamed (never a string, a regular expression or a property after a dot
    or before a colon); a function where a local could be an object's shorthand property keeps its
    names. PART unchanged where the scanner cannot read it."""
    fresh = _fresh_names(taken)
    # the constants the rules share (a rule's file, a repeated literal) are read in every rule
    shared = re.findall(r"^const (rule(?:Path|Data)[0-9]+) = ", part, re.M)
    part = _renamed(part, shared, fresh)
    fresh = fresh[len(shared):]
    spans = _top_functions(part)
    if spans is None:
        return part
    out, pos = [], 0
    for name, (start, end) in spans.items():
        declared = _LOCALS.search(part, start, end) if name.startswith("rule") else None
        if declared is None:
            continue
        text = part[start:end]
        # its own other names: the role parameter, the held advances, the stage of a loop
        own = [n for n, mark in (("role", ", role)"), ("held", "const held = "), ("stage", "const stage of "))
               if mark in text]
        renamed = _renamed(text, declared.group(1).split(", ") + own, fresh)
        out.append(part[pos:start])
        out.append(renamed)
        pos = end
    out.append(part[pos:])
    return "".join(out)


# The names a function declares for itself: its parameters and those of the functions and arrows in
# it, its `const`/`let`/`var` lists (`let a, b;`, the first of `const a = ...`) and `catch (e)`.
_PARAMS = re.compile(r"\bfunction\b\s*[A-Za-z0-9_$]*\s*\(([^()]*)\)|\(([^()]*)\)\s*=>|([A-Za-z_$][A-Za-z0-9_$]*)\s*=>")
_DECLARED = re.compile(r"\b(?:const|let|var)\s+([A-Za-z_$][A-Za-z0-9_$]*(?:\s*,\s*[A-Za-z_$][A-Za-z0-9_$]*)*)\s*[;=]"
                       r"|\b(?:const|let|var)\s+([A-Za-z_$][A-Za-z0-9_$]*)\s+of\b|\bcatch\s*\(\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*\)"
                       r"|\b(?:const|let|var)\s+\[([A-Za-z0-9_$,\s]*)\]\s*=")
# the top-level names of every part and the platform's globals: a function may read them as well as
# declare the same name in an inner scope, so they keep their names
_TOP_NAMES = re.compile(r"^(?:function|const|let|var|class)\s+([A-Za-z_$][A-Za-z0-9_$]*)", re.M)
_JS_GLOBALS = frozenset({"undefined", "globalThis", "arguments", "Math", "JSON", "Object", "Array", "Map", "Set",
                         "Number", "String", "Boolean", "Symbol", "Error", "TypeError", "RangeError", "BigInt",
                         "isNaN", "isFinite", "parseInt", "parseFloat", "Infinity", "NaN", "console", "this",
                         "document", "window", "localStorage", "sessionStorage", "navigator", "location",
                         "setTimeout", "clearTimeout", "Blob", "URL", "FileReader", "Date", "Promise", "Intl",
                         "alert", "confirm", "crypto", "performance", "civdsl", "PAGE", "event", "history"})


_ENGINE_TOP_NAME = re.compile(r"^(?:function\*?|const|let|var|class)\s+([a-z]{2}_[A-Za-z0-9_$]*)", re.M)
_QUOTED = r'"(?:[^"\\\n]|\\.)*"' + r"|'(?:[^'\\\n]|\\.)*'"
# a whole word of a script not read as a property (`name`, never `x.name` nor part of `names`)
_UNQUALIFIED_WORD = re.compile(r"(?<![\w$.])[\w$]+")
# a text in quotes (kept as it is), else such a word
_QUOTED_OR_WORD = re.compile("(" + _QUOTED + r")|(?<![\w$.])([\w$]+)")


def short_engine_names(parts: list[str], ui: str) -> list[str]:
    """PARTS with each top-level name of the generated engines (`st_requirement`, module prefix
    and Python name) that the page's interface UI does not call renamed to a short free name
    (`$0`, `$1`, ...) wherever the script calls it: the names keep the Python module's words for
    Node and the tests, and the page pays for none of them. Text in quotes and a name read as a
    property (`.name`) are left as they are."""
    engine = next((part for part in parts if part.startswith(GENERATED_MARK)), None)
    if engine is None:
        return parts
    called = set(_UNQUALIFIED_WORD.findall(ui))  # one scan of UI, whatever the number of names
    names = [name for name in dict.fromkeys(_ENGINE_TOP_NAME.findall(engine)) if name not in called]
    if not names:
        return parts
    taken = set(_IDENTIFIER.findall("\n".join(parts) + ui))
    free = (f"${n}" for n in itertools.count())
    short = {name: next(alias for alias in free if alias not in taken) for name in names}
    # one pattern for every word and a lookup, not an alternation of the names (which the regular
    # expression engine tries one by one at every position)
    return [_QUOTED_OR_WORD.sub(lambda m: m.group(1) or short.get(m.group(2), m.group(2)), part) for part in parts]


def short_runtime_locals(parts: list[str]) -> list[str]:
    """PARTS (the runtime's and the generated engine's) with the locals each top-level function
    declares renamed to the shortest names that function's text does not hold: the runtime's
    locals (`state`, `options`, `assignment`) are most of its words. A name declared at the top
    level of any part or by the platform keeps its name (an inner scope may shadow it while the
    function reads the outer one too); a function that destructures an object (`const {a} = o`,
    where the name is also the key) keeps all its names, as does one where a local may be an
    object's shorthand property or method (`_renamed`). Parts the scanner cannot read are kept."""
    keep = set(_JS_GLOBALS)
    for part in parts:
        keep.update(_TOP_NAMES.findall(part))
    out = []
    for part in parts:
        # the rules' functions get their own short names (short_locals)
        spans = None if part.startswith(RULES_MARK) else _top_functions(part)
        if not spans:
            out.append(part)
            continue
        pieces, pos = [], 0
        for start, end in spans.values():
            pieces.append(part[pos:start])
            text = part[start:end]
            pieces.append(_short_function(text, frozenset(keep & _declared(text))))
            pos = end
        pieces.append(part[pos:])
        out.append("".join(pieces))
    return out


def _declared(function: str) -> set[str]:
    names = set()
    for m in _PARAMS.finditer(function):
        params = m.group(1) if m.group(1) is not None else (m.group(2) if m.group(2) is not None else m.group(3))
        for param in params.split(","):
            found = re.match(r"\s*(?:\.\.\.)?([A-Za-z_$][A-Za-z0-9_$]*)\s*(?:=|$)", param)
            if found:
                names.add(found.group(1))
    for m in _DECLARED.finditer(function):
        listed = next(g for g in m.groups() if g is not None)
        names.update(n.strip() for n in listed.split(",") if n.strip())
    return names


@lru_cache(maxsize=4096)
def _short_function(function: str, keep: frozenset[str]) -> str:
    """FUNCTION (a top-level one) with its declared locals but KEEP renamed, the most used first."""
    if re.search(r"\b(?:const|let|var)\s*\{", function) or _js_tokens(function) is None:
        return function
    names = sorted(_declared(function) - keep - _JS_RESERVED_WORDS)
    words = _IDENTIFIER.findall(function)
    counts = {n: 0 for n in names}
    for w in words:
        if w in counts:
            counts[w] += 1
    fresh = _fresh_names(set(words))
    # a rename that does not shorten the name is no gain
    chosen, new = [], []
    for name in sorted(names, key=lambda n: (-counts[n] * len(n), n)):
        if len(fresh[len(new)]) < len(name):
            chosen.append(name)
            new.append(fresh[len(new)])
    return _renamed(function, chosen, new)


_JS_RESERVED_WORDS = frozenset({"async", "await", "function", "return", "new", "typeof", "instanceof", "void",
                                "delete", "in", "of", "this", "true", "false", "null", "if", "else", "for", "while"})


_JS_RESERVED = frozenset({"do", "if", "in"})  # the two-letter keywords
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_SHORT_NAMES = tuple(n for n in list(_LETTERS) + [a + b for a in _LETTERS for b in _LETTERS + "0123456789_$"]
                     if n not in _JS_RESERVED)


def _fresh_names(taken: set[str]) -> list[str]:
    return [n for n in _SHORT_NAMES if n not in taken]


def _renamed(function: str, names: list[str], fresh: list[str]) -> str:
    """FUNCTION's text with its locals NAMES renamed to the first of FRESH, in order; unchanged
    where a local may be a shorthand property (`{trace}`)."""
    if not names:
        return function
    tokens = _js_tokens(function)
    if tokens is None:
        return function
    new = dict(zip(names, fresh))
    out, brackets = [], []  # the brackets open where the scan is (_track_brackets)
    for i, (kind, token) in enumerate(tokens):
        text = _renamed_code(tokens, i, new, brackets) if kind == "code" else token
        if text is None:
            return function
        out.append(text)
    return "".join(out)


_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def _renamed_code(tokens, i: int, new: dict[str, str], brackets: list[str]) -> str | None:
    """The code token I with the locals of NEW renamed, BRACKETS tracked through it; None where a
    local may be a shorthand property or a method (the function keeps its names)."""
    token = tokens[i][1]
    pieces, pos, scanned = [], 0, 0
    for m in _WORD.finditer(token):
        _track_brackets(brackets, token[scanned:m.start()],
                        token[:scanned].rstrip()[-1:] or _last_code_char(tokens, i), token[:scanned])
        scanned = m.end()
        if m.group() not in new:
            continue
        before = token[:m.start()].rstrip()[-1:] or _last_code_char(tokens, i)
        after = token[m.end():].lstrip()[:1] or _next_code_char(tokens, i)
        use = _local_use(before, after, brackets[-1:] == ["o"], lambda: _spread(token[:m.start()], tokens, i))
        if use is None:
            return None
        if use:
            pieces.append(token[pos:m.start()])
            pieces.append(new[m.group()])
            pos = m.end()
    _track_brackets(brackets, token[scanned:], token[:scanned].rstrip()[-1:] or _last_code_char(tokens, i),
                    token[:scanned])
    pieces.append(token[pos:])
    return "".join(pieces)


def _local_use(before: str, after: str, in_braces: bool, spread) -> bool | None:
    """Whether a local's name between the characters BEFORE and AFTER is the local (renamed): not
    a property nor an object's key (False); None where it may be a shorthand property `{trace}`
    or a method `{trace() {...}}`. SPREAD says whether a `...` comes right before the name."""
    if before == "." and not spread():
        return False  # a property
    if in_braces and before in "{," and after in ",}":
        return None  # perhaps `{trace}`
    if in_braces and before in "{," and after == ":":
        return False  # an object's key
    if in_braces and before in "{," and after == "(":
        return None  # perhaps a method
    return True


def _spread(code: str, tokens, i: int) -> bool:
    """Whether CODE (the token's text before a word) ends with a spread `...` (the word a name, not
    a property), the dots perhaps closing the token before."""
    text = code.rstrip()
    if not text:
        before = [t for k, t in tokens[:i] if k not in ("nl", "block", "line") and t.strip()]
        text = before[-1].rstrip() if before else ""
    return text.endswith("...")


def _track_brackets(brackets: list[str], code: str, before: str = "", read: str = "") -> None:
    """BRACKETS (a stack) once CODE is read: "o" for a brace that opens an object (after an
    operator, a comma, an opening bracket or `return`, where a block cannot start), "{" for a
    block; BEFORE is the last significant character before CODE, READ its token's text before it."""
    last = before
    for i, ch in enumerate(code):
        if ch == "{":
            value = (last and last in "(,[:=?&|!") or re.search(r"\breturn\s*$", read + code[:i])
            brackets.append("o" if value else "{")
        elif ch in "([":
            brackets.append(ch)
        elif ch in "})]" and brackets:
            brackets.pop()
        if not ch.isspace():
            last = ch


def _last_code_char(tokens, i: int) -> str:
    for kind, token in reversed(tokens[:i]):
        text = token.rstrip() if kind in ("code", "str", "regex", "div", "slash") else ""
        if kind not in ("nl", "block", "line") and text:
            return text[-1]
    return ""


def _next_code_char(tokens, i: int) -> str:
    for kind, token in tokens[i + 1:]:
        text = token.lstrip() if kind not in ("nl", "block", "line") else ""
        if text:
            return text[0]
    return ""


_FUNCTION = re.compile(r"function ([A-Za-z_$][A-Za-z0-9_$]*)\(")
_BRACE = re.compile(r"[{}]")
_CLASS_OR_FUNCTION = re.compile(r"(?:function ([A-Za-z_$][A-Za-z0-9_$]*)\(|class ([A-Za-z_$][A-Za-z0-9_$]*)"
                                r"(?: extends [A-Za-z_$][A-Za-z0-9_$]*)? \{)")


@lru_cache(maxsize=64)
def _top_functions(part: str, classes: bool = False) -> dict[str, tuple[int, int]] | None:
    """Where each top-level `function NAME(...) {...}` (with CLASSES, and `class NAME {...}`) of
    PART (its keyword at the start of a line) starts and ends, in the order written; None for a
    part the scanner cannot read, one that declares a name twice or one left open."""
    tokens = _js_tokens(part)
    if tokens is None:
        return None
    spans: dict[str, tuple[int, int]] = {}
    for name, start, end in _declarations(tokens, _CLASS_OR_FUNCTION if classes else _FUNCTION):
        if name in spans or end is None:
            return None
        spans[name] = (start, end)
    return spans


def _declarations(tokens: list[tuple[str, str]], declaration: re.Pattern):
    """Each top-level declaration of TOKENS, in the order written: a code token at the start of a
    line that DECLARATION matches (the name: its group that matched), up to the brace that closes
    it, braces counted in code only (never in a string, a regular expression or a comment):
    (name, start, end) in the text of TOKENS, end None for the last one if it is never closed."""
    pos, start, name, depth, line_start = 0, None, None, 0, True
    for kind, token in tokens:
        m = declaration.match(token) if start is None and kind == "code" and line_start else None
        if m:
            start, name, depth = pos, m.group(m.lastindex), 0
        if start is not None and kind == "code":
            for brace in _BRACE.finditer(token):
                depth += 1 if brace.group() == "{" else -1
                if depth == 0 and brace.group() == "}":
                    yield name, start, pos + brace.end()
                    start = None
                    break
        line_start = kind == "nl"
        pos += len(token)
    if start is not None:
        yield name, start, None


@lru_cache(maxsize=64)
def _without_unasked(part: str) -> tuple[str, frozenset[str] | None]:
    """PART without the functions of PAGE_LEAVES_OUT it defines, and their names (None: a part the
    scanner cannot read). The runtime files are the same part in every page: done once."""
    found, tokens = set(), _js_tokens(part)
    for name, option in PAGE_LEAVES_OUT.items():
        if tokens is None:
            return part, None
        span = _function_span(tokens, name)
        if span is not None:
            refusal = js_string(f"{option} is not part of the page")
            part = part[:span[0]] + f"function {name}() {{ throw new UserError({refusal}); }}" + part[span[1]:]
            found.add(name)
            tokens = _js_tokens(part)  # the part changed: the next name is found in its new text
    return part, frozenset(found)


def _function_span(tokens: list[tuple[str, str]], name: str) -> tuple[int, int] | None:
    """Where the first top-level `function NAME(...) {...}` (at the start of a line) starts and
    ends in the text of TOKENS, from its keyword to its closing brace; None where TOKENS define no
    such function or leave it open."""
    for _, start, end in _declarations(tokens, re.compile(f"function ({re.escape(name)})\\(")):
        return None if end is None else (start, end)
    return None


def inline_safe(text: str, tag: str) -> str:
    """Refuse (a generator bug, never user input) code that could close its own element."""
    if f"</{tag}" in text.lower() or "<!--" in text:
        raise RuntimeError(f"inline {tag} text would end its element early")
    return text


def module_from_code(code, edition_id: str) -> types.ModuleType:
    """The module of compiled rules `code` (codegen.generate_module's bytecode), run without
    being kept in sys.modules (a build renders it once; `civdsl.load` caches modules itself)."""
    name = f"civdsl_companion_{edition_id}"
    module = types.ModuleType(name)
    module.__file__ = "effects.py"
    sys.modules[name] = module  # the module finds itself there while it runs (runtime.this_module)
    try:
        code.run(module.__dict__)
    finally:
        sys.modules.pop(name, None)
    return module


def rulings_section(edition) -> str:
    """The rulebook's rulings as a short list below the player's answers: the question, the answer
    the rules give (`civdsl check` runs each one) and where it comes from; none, no section."""
    from .. import rulings

    found = [(rulings.summary(r), rulings.subjects(r)) for r in edition.rulings.values()]
    if not found:
        return ""
    items = "".join(
        f"<li><strong>{escape.html(s['question'])}</strong> {escape.html(s['answer'])}"
        f' <span class="muted">({escape.html(s["cited"])}{escape.html("; about " + ", ".join(about)) if about else ""})'
        "</span></li>\n"
        for s, about in found)
    return (f'<section id="rulings" class="page" aria-labelledby="rulings-title"><details><summary id="rulings-title">Rulings ({len(found)})</summary>\n'
            f"<ul>\n{items}</ul></details></section>\n")


# The items whose printed clauses the page cites, by the model's table and the kind a citation names.
_CITED_ITEMS = (("calamities", "calamity"), ("advances", "advance"))


def clauses_section(edition) -> str:
    """The printed clauses each calamity and advance implements (`cites`, what civdsl cover
    reads), so a player can look up the paragraph behind an answer; none cited, no section."""
    rows = [(name, ids) for table, kind in _CITED_ITEMS for name, item in getattr(edition, table).items()
            if (ids := edition.cited_clauses(kind, {name, *getattr(item, "aka", ())}))]
    if not rows:
        return ""
    items = "".join(f"<li><strong>{escape.html(name)}</strong> {escape.html(', '.join(ids))}</li>\n"
                    for name, ids in rows)
    return (f'<section id="clauses" class="page" aria-labelledby="clauses-title"><details><summary id="clauses-title">Printed rules ({len(rows)})</summary>\n'
            f"<ul>\n{items}</ul></details></section>\n")


def impact_section(effect) -> str:
    """A house rule's impact (impact.py) in short: each item that changes for players, how many
    situations and by how much; the printable impact page has the rest."""
    from .. import impact

    changed = effect.changed()
    if not changed:
        return ""
    items = "".join(f"<li><strong>{escape.html(impact.item_title(i))}</strong>: {escape.html(impact.coverage_text(i))}; "
                    f"{escape.html(impact.change_text(i))}</li>\n" for i in changed)
    return (f'<section id="impact" class="page" aria-labelledby="impact-title"><details><summary id="impact-title">What this house rule changes against '
            f"{escape.html(effect.a)} ({len(changed)})</summary>\n<ul>\n{items}</ul></details></section>\n")


# What the page answers, by the compiled module's constant that declares it: advances to price
# and plan, calamities to resolve, A.S.T. tracks, score lines.
_PAGE_QUESTIONS = ("ADVANCES", "CALAMITIES", "AST", "SCORE_POINTS", "SCORE_TIEBREAKS")


def page_answers(module) -> bool:
    """Whether the companion page has a question to answer for this rulebook. A rulebook that
    declares none of advances, calamities, an A.S.T. or score lines (one played only in rounds,
    whose state and steps `civdsl step` answers and the page's engine does not) gets no page:
    a page of the board game's facts and a score of 0 would claim an answer it does not have."""
    return any(getattr(module, name, None) for name in _PAGE_QUESTIONS)


def page_engine_script(parts: list[str], ui: str) -> str:
    """An engine's parts (those the page's UI reaches) as the page's one script: the runtime's and
    the engines' names shortened, the rules' locals renamed clear of every name in use, minified,
    checked to parse, safe inside a <script> element."""
    parts = short_engine_names(short_runtime_locals(parts), ui)
    taken = set(_IDENTIFIER.findall("\n".join(parts) + ui))
    parts = [short_locals(part, taken) if part.startswith(RULES_MARK) else part for part in parts]
    return inline_safe(minified_parts(parts, checked_engine("\n".join(parts) + "\n")), "script")


def page_name(module) -> str:
    """The edition's name as HTML text."""
    return escape.html((getattr(module, "EDITION", {}) or {}).get("name", ""))


def page_head(title: str, scripts: list[str], css: str) -> str:
    """Every page's head: its CSP naming exactly its SCRIPTS and style, a phone's viewport, no
    referrer, TITLE (already HTML text), and the opening of its body."""
    csp = escape.html(content_security_policy(scripts, [css]))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{title}</title>\n"
        f"<style>{css}</style>\n</head>\n<body>\n"
    )


def companion_html(module, edition, effect=None) -> str:
    """The companion page of one compiled rulebook, as HTML text: MODULE is compiled from EDITION
    (the checked, resolved model), and the page's engine from the same EDITION, both handed down
    by the build; with EFFECT (a house rule's impact against its base), the page sums up what the
    house rule changes for players."""
    extra = rulings_section(edition) + clauses_section(edition) + (impact_section(effect) if effect else "")
    # the engines generated from Python with short locals (py2es), the rules' renamed here
    parts = page_engine(engine_parts(edition, module, short_names=True))
    engine = page_engine_script(without_unused(parts, ui_script()), ui_script())
    ui, css = _page_script(), _page_style()
    name = page_name(module)
    return (
        page_head(f"{name}: companion", [engine, ui], css)
        + f'<header class="page"><h1>{name}</h1>\n'
        # the edition's id is a command-line name (a house rule's may be snake_case): its name says it
        '<p class="muted">Companion generated by civdsl from the compiled rulebook. '
        "It works offline: nothing leaves this page.</p>\n"
        f"{_game_link(module)}</header>\n"
        '<nav role="tablist" id="tabs" aria-label="Players"></nav>\n'
        '<main id="player" role="tabpanel"><div id="app"><noscript>This page needs JavaScript.</noscript></div></main>\n'
        '<p id="summary" role="status" aria-live="polite"></p>\n'
        f"{extra}"
        f"<script>{engine}</script>\n"
        f"<script>{ui}</script>\n"
        "</body>\n</html>\n"
    )


# --- the game page: whole games kept in the browser ----------------------------------------------

GAME_PAGE = "game.html"


def keeps_games(module) -> bool:
    """Whether the rulebook declares the order of a turn's steps (`turn { step ... }`), which the
    game ledger plays: only then is there a game page beside the companion page."""
    return bool(getattr(module, "TURN", None))


def _game_link(module) -> str:
    if not keeps_games(module):
        return ""
    return f'<p><a id="game-link" href="{GAME_PAGE}">Keep whole games: the game ledger</a></p>\n'
