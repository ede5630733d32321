"""What a plan maximises: the objectives (`--objective vp|points|cards|EXPRESSION`), an
expression per advance read and evaluated against the rulebook's own facts.

An expression is read here, not by the rulebook parser, so that the page runs this very module
(it keeps to the engine subset, docs/engine-route.md): a tokenizer and precedence-climbing parser
of exactly the rulebook grammar's `expr` rule (grammar/civdsl.lark, "calls and expressions"),
keywords read where the grammar's contextual lexer reads them, with the parser's limits (brackets,
depth, digits) and the syntax pass's string escapes; the evaluator is expressions.evaluate's.
tests/test_objective_reader.py proves on random expressions that both readers give the same tree,
value and refusal (message and column).
"""

from __future__ import annotations

import math
from typing import Iterable

from ..errors import StateError
from ..playerfacts import advance_vp
from ..state import casefolded, nfc, value_text
from ..unknown import number


# --- objectives ---------------------------------------------------------------------------

class Objective:
    """What a plan maximises: the sum over the advances bought of `values[name]`."""

    def __init__(self, name: str, label: str, values):
        self.name = name  # "vp", "points", "cards" or the expression's text
        self.label = label  # how to say one unit of it ("VP", "points", "advances", or the expression)
        self.values = values

    def of(self, names: Iterable[str]):
        return sum(self.values[n] for n in names)


# Names an objective expression may read, besides the rulebook's constants and group ids, and
# what each is (--help).
ATTRIBUTES = (("cost", "printed cost"), ("vp", "victory points"), ("group_count", "number of groups (1 or 2)"),
              ("credit_total", "group credit points it gives"),
              ("specific_total", "specific credit points it gives to named advances"),
              ("supply", "cards of it in the box (0 when the rulebook does not limit them)"))


def objective(module, spec: str | None = None, state=None) -> Objective:
    """`vp`, `points` (printed cost), `cards` (one per advance) or an expression per advance.

    Without a spec: victory points where the edition gives every advance some, else points
    (the editions without victory points per advance score the printed costs).
    """
    spec = _stripped(spec or "") or _default_objective(module)
    word = casefolded(spec)
    if word == "vp":
        return _vp_objective(module, state)
    if word == "points":
        # advances of unknown cost are never bought: their objective is never read (0)
        return Objective("points", "points", {n: a["cost"] or 0 for n, a in module.ADVANCES.items()})
    if word == "cards":
        return Objective("cards", "advances", {n: 1 for n in module.ADVANCES})
    return _expression_objective(module, spec)


def _default_objective(module) -> str:
    """`vp` where every advance that may be bought has victory points, else `points`."""
    return "vp" if all(a["vp"] is not None for a in module.ADVANCES.values() if a["cost"] is not None) else "points"


def _vp_objective(module, state) -> Objective:
    """Each advance's victory points, under STATE's rule options where given (`vp tiers when`)."""
    advances = module.ADVANCES
    missing = [n for n, a in advances.items() if a["vp"] is None and a["cost"] is not None]
    if missing:
        raise StateError(f"--objective vp: {module.EDITION['name']} gives no victory points to advances "
                         f"(e.g. {missing[0]}); use --objective points (printed cost) or cards")
    return Objective("vp", "VP", {n: (a["vp"] if state is None else advance_vp(state, n)) or 0
                                  for n, a in advances.items()})


def _expression_objective(module, spec: str) -> Objective:
    """An expression evaluated per advance (0 for those of unknown cost: never bought)."""
    if len(spec) > 500 or "\n" in spec or "\r" in spec:
        raise StateError("--objective: an expression is one line of at most 500 characters")
    read = read_expression(spec)
    if read[1] is not None:
        message, column = read[1]
        raise StateError(f"--objective {value_text(spec)}: {message} at column {column} (write vp, points, cards "
                         f"or an expression over {', '.join(a[0] for a in ATTRIBUTES)} and group names, "
                         f"e.g. \"vp * 100 + cost\")")
    values = {}
    for n, a in module.ADVANCES.items():
        values[n] = _evaluate_for(module, read[0], n, spec) if a["cost"] is not None else 0
    return Objective(spec, spec, values)


# Python's str.strip(): the characters str.isspace() holds (tests/test_objective_reader.py)
_PY_SPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
             "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def _stripped(text: str) -> str:
    chars = [c for c in text]
    lo, hi = 0, len(chars)
    while lo < hi and chars[lo] in _PY_SPACE:
        lo = lo + 1
    while hi > lo and chars[hi - 1] in _PY_SPACE:
        hi = hi - 1
    return "".join(chars[lo:hi])


# --- reading an expression: the grammar's `expr` rule -------------------------------------

# The grammar's binary operators by level, lowest first (`or_expr`, `and_expr`, `comparison`,
# `sum`, `product`); `not` stands before a comparison, unary `-` before an atom. Every level
# but the comparison joins any number of operands left to right; a comparison joins two.
LEVELS = (("or",), ("and",), ("==", "!=", "<=", ">=", "<", ">"), ("+", "-"), ("*", "/", "//"))
_COMPARISON = 2
# The grammar's punctuation (its terminals other than words, numbers and strings), longest first
# where one begins another: what the rulebook's lexer reads, so a `{` is an unexpected `{`, not
# an unexpected character.
_PUNCTUATION = ("..", "//", "==", "!=", "<=", ">=", ".", "=", ",", ":", "{", "}", "(", ")", "+", "-", "*", "/",
                "<", ">")
# the grammar's WHITESPACE and its comment's start
_WHITESPACE = " \t\x0c\r\n\xa0\ufeff"
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_DIGITS = "0123456789"
_HEX = "0123456789abcdef"
_HEX_UPPER = "0123456789ABCDEF"
# The parser's limits (civdsl/parser.py: MAX_NESTING, MAX_DEPTH, MAX_DIGITS; tests check they agree)
MAX_NESTING = 64
MAX_DEPTH = 100
MAX_DIGITS = 9
# The math functions (vocabulary.FUNCTIONS of scope "math") and how many arguments each takes.
MATH_FUNCTIONS = (("floor", 1), ("ceil", 1), ("sqrt", 1), ("min", 2), ("max", 2), ("abs", 1))


class _Stop(Exception):
    """The reader met a refusal (kept on the reader: its message and column)."""


def read_expression(text: str):
    """(tree, None) for an expression of the grammar's `expr` rule, else (None, (message,
    column)) of its first refusal as the rulebook parser reports it: brackets nested too deep
    before anything else, then the first syntax error, then a tree nested too deep, then the
    first literal the syntax pass refuses (a number too long, a bad escape).

    A tree is made of tuples whose second item is the column (from 1) where the node starts:
    ("int", col, value), ("str", col, text), ("bool", col, value), ("unknown", col),
    ("name", col, [part, ...]), ("paren", col, inner), ("not", col, operand), ("neg", col, operand),
    ("chain", col, [operand, ...], [operator, ...]), ("call", col, name, [argument, ...]),
    ("kwarg", col, name, value), ("where", col, items, condition)."""
    chars = [c for c in text]
    nested = _too_nested(chars)
    if nested is not None:
        return None, (f"brackets are nested more than {MAX_NESTING} deep", nested + 1)
    reader = _Reader(chars)
    try:
        tree = reader.expression(False)
        reader.expect_end()
    except _Stop:
        return None, reader.problem
    deep = _first_too_deep(tree)
    if deep is not None:
        return None, (f"this is nested more than {MAX_DEPTH} levels deep", deep[1])
    if reader.literal_problems:
        return None, reader.literal_problems[0]
    return tree, None


def _too_nested(chars: list) -> int | None:
    """The index of the first bracket nested more than MAX_NESTING deep, strings (to their end or
    the text's) and comments skipped, as the parser's scan counts them."""
    depth = 0
    i = 0
    n = len(chars)
    while i < n:
        c = chars[i]
        if c == "#":
            return None
        if c == '"':
            i = i + 1
            while i < n and chars[i] != '"':
                i = i + (2 if chars[i] == "\\" else 1)
        elif c == "(" or c == "{":
            depth = depth + 1
            if depth > MAX_NESTING:
                return i
        elif c == ")" or c == "}":
            depth = max(0, depth - 1)
        i = i + 1
    return None


class _Reader:
    """One expression's tokens, read as the grammar's contextual lexer reads them: a word is a
    keyword only where the parser may take that keyword, and where it may take no name (after an
    operand) a word beginning with a keyword it may take is that keyword and the rest."""

    def __init__(self, chars: list):
        self.chars = chars
        self.at = 0
        self.problem = None
        self.literal_problems = []

    # -- tokens

    def skip_space(self) -> None:
        chars = self.chars
        while self.at < len(chars):
            c = chars[self.at]
            if c in _WHITESPACE:
                self.at = self.at + 1
            elif c == "#":
                self.at = len(chars)
            else:
                return

    def peek(self, names: bool, keywords: tuple, dot: bool = False):
        """(kind, text, start, end) of the next token: kind is the keyword itself, "NAME", "INT",
        "STRING", the punctuation itself, "end" or "char" (no token begins there). `names`: whether
        a name may stand here; `keywords`: the keywords that may; `dot`: whether a `.` may (after
        a name: then `..` is a `.` and another)."""
        self.skip_space()
        chars, start = self.chars, self.at
        if start >= len(chars):
            return "end", "", start, start
        c = chars[start]
        if c in _LETTERS:
            end = start + 1
            while end < len(chars) and (chars[end] in _LETTERS or chars[end] in _DIGITS):
                end = end + 1
            word = "".join(chars[start:end])
            if word in keywords:
                return word, word, start, end
            if not names:
                for k in keywords:
                    if _begins(chars, start, k):
                        return k, k, start, start + len(k)
            return "NAME", word, start, end
        if c in _DIGITS:
            end = start + 1
            while end < len(chars) and chars[end] in _DIGITS:
                end = end + 1
            return "INT", "".join(chars[start:end]), start, end
        if c == '"':
            end = start + 1
            while end < len(chars) and chars[end] != '"':
                if chars[end] == "\\" and end + 1 < len(chars):
                    end = end + 1
                elif chars[end] == "\\":
                    return "char", c, start, start + 1
                end = end + 1
            if end >= len(chars):
                return "char", c, start, start + 1
            return "STRING", "".join(chars[start:end + 1]), start, end + 1
        if dot and _begins(chars, start, "."):
            return ".", ".", start, start + 1
        for p in _PUNCTUATION:
            if _begins(chars, start, p):
                return p, p, start, start + len(p)
        return "char", c, start, start + 1

    def take(self, token) -> None:
        self.at = token[3]

    def refuse(self, token) -> None:
        kind, text = token[0], token[1]
        if kind == "char":
            what = "unterminated string" if text == '"' else f"unexpected character `{_char_text(text)}`"
            self.problem = (what, token[2] + 1)
        elif kind == "end":
            self.problem = ("unexpected end of file", token[2] + 1)
        elif kind == "STRING":
            self.problem = (f"unexpected string {text}", token[2] + 1)
        else:
            self.problem = (f"unexpected `{text}`", token[2] + 1)
        raise _Stop("refused")

    def expect_end(self) -> None:
        token = self.peek(False, ())
        if token[0] != "end":
            self.refuse(token)

    # -- the grammar's rules

    def expression(self, filtered: bool):
        """`expr`; `filtered`: a call's argument, which `where` may follow."""
        return self.level(0, filtered)

    def level(self, index: int, filtered: bool):
        """The operands joined by LEVELS[index]'s operators."""
        if index == len(LEVELS):
            return self.unary(filtered)
        if index == _COMPARISON:
            return self.negation(filtered)
        after = _after_operand(filtered)
        first = self.level(index + 1, filtered)
        operands, operators = [first], []
        while True:
            token = self.peek(False, after)
            if token[0] not in LEVELS[index]:
                break
            self.take(token)
            operators.append(token[0])
            operands.append(self.level(index + 1, filtered))
        if not operators:
            return first
        return "chain", first[1], operands, operators

    def negation(self, filtered: bool):
        """`not_expr`: any number of `not` before a comparison of two sums at most."""
        nots = []
        while True:
            token = self.peek(True, ("not", "true", "false", "unknown"))
            if token[0] != "not":
                break
            self.take(token)
            nots.append(token[2] + 1)
        left = self.level(_COMPARISON + 1, filtered)
        token = self.peek(False, _after_operand(filtered))
        if token[0] in LEVELS[_COMPARISON]:
            self.take(token)
            right = self.level(_COMPARISON + 1, filtered)
            left = ("chain", left[1], [left, right], [token[0]])
        for i in range(len(nots) - 1, -1, -1):
            left = ("not", nots[i], left)
        return left

    def unary(self, filtered: bool):
        """`unary`: any number of `-` before an atom."""
        minuses = []
        while True:
            token = self.peek(True, ("true", "false", "unknown"))
            if token[0] != "-":
                break
            self.take(token)
            minuses.append(token[2] + 1)
        out = self.atom(filtered)
        for i in range(len(minuses) - 1, -1, -1):
            out = ("neg", minuses[i], out)
        return out

    def atom(self, filtered: bool):
        token = self.peek(True, ("true", "false", "unknown"))
        kind, column = token[0], token[2] + 1
        if kind == "INT":
            self.take(token)
            if len(token[1]) > MAX_DIGITS:
                self.literal_problems.append((f"the number has {len(token[1])} digits; at most {MAX_DIGITS} "
                                              f"are allowed", column))
                return "int", column, 0
            return "int", column, _whole_number(token[1])
        if kind == "STRING":
            self.take(token)
            return "str", column, self.string(token)
        if kind == "true" or kind == "false":
            self.take(token)
            return "bool", column, kind == "true"
        if kind == "unknown":
            self.take(token)
            return ("unknown", column)
        if kind == "(":
            self.take(token)
            inner = self.expression(False)
            self.expect(")")
            return "paren", column, inner
        if kind == "NAME":
            self.take(token)
            after = self.peek(False, _after_operand(filtered), True)
            if after[0] == "(":
                self.take(after)
                return "call", column, token[1], self.arguments()
            parts = [token[1]]
            while after[0] == ".":
                self.take(after)
                part = self.peek(True, ())
                if part[0] != "NAME":
                    self.refuse(part)
                self.take(part)
                parts.append(part[1])
                after = self.peek(False, _after_operand(filtered), True)
            return "name", column, parts
        self.refuse(token)

    def expect(self, kind: str) -> None:
        token = self.peek(False, ())
        if token[0] != kind:
            self.refuse(token)
        self.take(token)

    def arguments(self) -> list:
        """A call's arguments after its `(`, up to and with its `)`: expressions, `NAME = expr`, and
        `expr where expr`."""
        args = []
        token = self.peek(True, ("not", "true", "false", "unknown"))
        if token[0] == ")":
            self.take(token)
            return args
        while True:
            args.append(self.argument())
            token = self.peek(False, ())
            if token[0] == ")":
                self.take(token)
                return args
            if token[0] != ",":
                self.refuse(token)
            self.take(token)

    def argument(self):
        token = self.peek(True, ("not", "true", "false", "unknown"))
        if token[0] == "NAME":
            mark = self.at
            self.take(token)
            after = self.peek(False, _after_operand(True), True)
            if after[0] == "=":
                self.take(after)
                return "kwarg", token[2] + 1, token[1], self.expression(False)
            self.at = mark
        items = self.expression(True)
        token = self.peek(False, ("where",))
        if token[0] != "where":
            return items
        self.take(token)
        return "where", items[1], items, self.expression(False)

    # -- literals, as the syntax pass reads them

    def string(self, token) -> str:
        """A string literal's text: its escapes (\\" \\\\ \\n \\t \\r \\0 \\uXXXX, a surrogate pair
        as one character), in NFC; a bad escape is a literal problem."""
        chars = [c for c in token[1]]
        out = []
        i = 1
        while i < len(chars) - 1:
            c = chars[i]
            if c != "\\":
                out.append(c)
                i = i + 1
                continue
            esc = chars[i + 1]
            simple = _simple_escape(esc)
            if simple is not None:
                out.append(simple)
                i = i + 2
                continue
            code = _hex_code(chars, i + 2) if esc == "u" else None
            if code is not None and 0xD800 <= code <= 0xDBFF and i + 11 < len(chars) and chars[i + 6] == "\\" \
                    and chars[i + 7] == "u":
                low = _hex_code(chars, i + 8)
                if low is not None and 0xDC00 <= low <= 0xDFFF:
                    out.append(chr(0x10000 + (code - 0xD800) * 1024 + (low - 0xDC00)))
                    i = i + 12
                    continue
            if code is not None and 0xD800 <= code <= 0xDFFF:
                escape = "".join(chars[i:i + 6])
                self.literal_problems.append((f"`{escape}` is half of a surrogate pair, not a character",
                                              token[2] + 1 + i))
                out.append("\ufffd")
                i = i + 6
            elif code is not None:
                out.append(chr(code))
                i = i + 6
            else:
                self.literal_problems.append((f"unknown escape `\\{esc}` in a string", token[2] + 1))
                out.append(esc)
                i = i + 2
        return nfc("".join(out))


def _after_operand(filtered: bool) -> tuple:
    """The keywords that may follow an operand: `or` and `and` anywhere, `where` after a call's
    argument (`filtered`)."""
    return ("or", "and", "where") if filtered else ("or", "and")


def _whole_number(digits: str) -> int:
    value = 0
    for c in digits:
        value = value * 10 + _digit(_DIGITS, c)
    return value


def _digit(digits: str, c: str) -> int:
    """C's value among DIGITS, or -1."""
    i = 0
    for d in digits:
        if d == c:
            return i
        i = i + 1
    return -1


def _begins(chars: list, at: int, word: str) -> bool:
    """Whether the text at AT begins with WORD."""
    if at + len(word) > len(chars):
        return False
    i = 0
    for c in word:
        if chars[at + i] != c:
            return False
        i = i + 1
    return True


def _char_text(c: str) -> str:
    """A character as Python's repr() writes it inside its quotes."""
    shown = value_text(c)
    return "".join([x for x in shown][1:-1])


def _simple_escape(esc: str):
    if esc == '"' or esc == "\\":
        return esc
    if esc == "n":
        return "\n"
    if esc == "t":
        return "\t"
    if esc == "r":
        return "\r"
    if esc == "0":
        return "\0"
    return None


def _hex_code(chars: list, at: int):
    """The number four hexadecimal digits at AT write, or None."""
    if at + 4 > len(chars):
        return None
    code = 0
    for c in chars[at:at + 4]:
        digit = max(_digit(_HEX, c), _digit(_HEX_UPPER, c))
        if digit < 0:
            return None
        code = code * 16 + digit
    return code


# -- depth, as the parser counts it ---------------------------------------------------------

def _children(node) -> list:
    kind = node[0]
    if kind == "paren" or kind == "not" or kind == "neg":
        return [node[2]]
    if kind == "chain" or kind == "call":
        return node[2] if kind == "chain" else node[3]
    if kind == "kwarg":
        return [node[3]]
    if kind == "where":
        return [node[2], node[3]]
    return []


def _node_depth(node, kids: list) -> int:
    """A node's depth as parser.node_depth counts it in the parse tree: a name is two levels
    (`name_ref` over `path`), a chain of N operators N levels, anything else one over its deepest part."""
    if node[0] == "name":
        return 2
    if node[0] == "chain":
        k = len(kids)
        deepest = k - 1 + kids[0]
        for i in range(1, k):
            deepest = max(deepest, k - i + kids[i])
        return deepest
    return 1 + max(kids, default=0)


def _first_too_deep(tree):
    """The first node nested deeper than MAX_DEPTH in the order the parser looks for one (its
    parts last to first, each after its own parts), or None."""
    depths = []
    stack = [(tree, False)]
    while stack:
        node, done = stack.pop()
        kids = _children(node)
        if not done:
            stack.append((node, True))
            for kid in kids:
                stack.append((kid, False))
            continue
        kid_depths = [depths.pop() for _ in kids]  # the first part's depth was kept last
        d = _node_depth(node, kid_depths)
        if d > MAX_DEPTH:
            return node
        depths.append(d)
    return None


# --- evaluating an expression per advance: expressions.evaluate's meaning ------------------

# the largest number an expression may make (expressions.MAX_MAGNITUDE, a float: every whole
# number up to it compares exactly with it)
MAX_MAGNITUDE = 1e18


class _Advance:
    """What an expression reads for one advance, and the first thing it could not evaluate."""

    def __init__(self, module, name: str):
        adv = module.ADVANCES[name]
        self.module, self.name, self.adv = module, name, adv
        self.values = {"cost": adv["cost"], "vp": adv["vp"], "group_count": len(adv["groups"]),
                       "credit_total": sum(adv["credits"].values()),
                       "specific_total": sum(adv["specific"].values()), "supply": adv["supply"] or 0}
        self.problem = None

    def refuse(self, message: str) -> None:
        self.problem = message
        raise _Stop("refused")

    def lookup(self, parts: list):
        head = parts[0]
        if len(parts) == 1:
            if head in self.values:
                if self.values[head] is None:
                    self.refuse(f"`{head}` is unknown for {self.name}")
                return self.values[head]
            if head in self.module.GROUPS:
                return 1 if head in self.adv["groups"] else 0
            if head in self.module.CONSTS:
                return self.module.CONSTS[head]
        from ..diagnostics import did_you_mean  # here, not at the top: only a mistake loads it (start-up)

        dotted = ".".join(parts)
        readable = list(self.values) + list(self.module.GROUPS)
        best = did_you_mean(dotted, readable + list(self.module.CONSTS))
        hint = f"; did you mean `{best}`?" if best else ""
        self.refuse(f"unknown name `{dotted}`{hint} (an objective reads {', '.join(readable)} and the rulebook's "
                    f"constants)")


def _evaluate_for(module, tree, name: str, text: str):
    """The expression's value for the advance NAME: a number, or a StateError saying why not."""
    from fractions import Fraction  # here: only an objective expression makes one (start-up)

    scope = _Advance(module, name)
    try:
        value = _value(tree, scope)
        if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
            scope.refuse(f"gives {value_text(value)} for {name}, not a number")
    except _Stop:
        raise StateError(f"--objective {value_text(text)}: {scope.problem}")
    return number(value)


def _value(node, scope):
    kind = node[0]
    if kind == "int" or kind == "str" or kind == "bool":
        return node[2]
    if kind == "unknown":
        return None
    if kind == "name":
        return scope.lookup(node[2])
    if kind == "paren":
        return _value(node[2], scope)
    if kind == "not":
        return not _truth(_value(node[2], scope), scope)
    if kind == "neg":
        return -_number(_value(node[2], scope), scope)
    if kind == "chain":
        return _chain_value(node, scope)
    if kind == "call":
        return _call_value(node, scope)
    scope.refuse("`where` filters only work inside count, sum, all and any")


def _chain_value(node, scope):
    """Operands joined left to right; `and` and `or` evaluate their right side only when it decides."""
    operands, operators = node[2], node[3]
    left = _value(operands[0], scope)
    i = 0
    for op in operators:
        i = i + 1
        if op == "and":
            left = _truth(left, scope) and _truth(_value(operands[i], scope), scope)
        elif op == "or":
            left = _truth(left, scope) or _truth(_value(operands[i], scope), scope)
        else:
            left = _binary(op, left, _value(operands[i], scope), scope)
    return left


def _binary(op: str, a, b, scope):
    from fractions import Fraction

    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    a = _number(a, scope)
    b = _number(b, scope)
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    if op == ">=":
        return a >= b
    if op == "+":
        return _bounded(a + b, scope)
    if op == "-":
        return _bounded(a - b, scope)
    if op == "*":
        return _bounded(a * b, scope)
    if b == 0:
        scope.refuse("division by zero")
    quotient = Fraction(a) / Fraction(b)
    return _bounded(quotient if op == "/" else math.floor(quotient), scope)


def _call_value(node, scope):
    """A math function's value; any other function reads what an objective cannot (a player's facts)."""
    name = node[2]
    arity = -1
    for fn in MATH_FUNCTIONS:
        if fn[0] == name:
            arity = fn[1]
    if arity < 0:
        scope.refuse(f"`{name}` cannot be evaluated here")
    args = [_number(_value(a, scope), scope) for a in node[3] if a[0] != "kwarg"]
    if len(args) != arity:
        scope.refuse(f"`{name}` takes {arity} argument{'s' if arity != 1 else ''}")
    x = args[0]
    if name == "floor":
        return math.floor(x)
    if name == "ceil":
        return math.ceil(x)
    if name == "sqrt":
        if x < 0:
            scope.refuse("`sqrt` cannot be evaluated: math domain error")
        return math.sqrt(x)
    if name == "abs":
        return abs(x)
    if name == "min":
        return min(x, args[1])
    return max(x, args[1])


def _bounded(v, scope):
    """Refuse a number past any board-game size (expressions._bounded)."""
    from fractions import Fraction

    if not abs(v) <= MAX_MAGNITUDE or (isinstance(v, Fraction) and v.denominator > MAX_MAGNITUDE):
        scope.refuse("the number is too large (the limit is 10^18)")
    return v


def _number(v, scope):
    from fractions import Fraction

    if isinstance(v, bool) or not isinstance(v, (int, float, Fraction)):
        scope.refuse(f"expected a number, got {_described(v)}")
    return v


def _truth(v, scope) -> bool:
    """A condition's value: true or false; unknown reads as not true."""
    if v is not None and not isinstance(v, bool):
        scope.refuse(f"expected true or false, got {_described(v)}")
    return v is True


def _described(v) -> str:
    if v is None:
        return "unknown"
    if isinstance(v, bool):
        return "true/false"
    if isinstance(v, str):
        return f"the text {value_text(v)}"
    return "a number"
