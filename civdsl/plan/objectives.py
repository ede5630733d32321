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


# Names an objective expression may read, besides the rulebook's constants and group ids: an
# advance's printed cost, victory points, number of groups, group credit points it gives,
# specific credit points it gives to named advances, and cards of it in the box (0 when the
# rulebook does not limit them).
ATTRIBUTES = ("cost", "vp", "group_count", "credit_total", "specific_total", "supply")


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
                         f"or an expression over {', '.join(ATTRIBUTES)} and group names, "
                         f"e.g. \"vp * 100 + cost\")")
    values = {}
    for n, a in module.ADVANCES.items():
        values[n] = _evaluate_for(module, read[0], n, spec) if a["cost"] is not None else 0
    return Objective(spec, spec, values)


def _stripped(text: str) -> str:
    """TEXT without the grammar's whitespace at either end."""
    chars = [c for c in text]
    lo, hi = 0, len(chars)
    while lo < hi and chars[lo] in WHITESPACE:
        lo = lo + 1
    while hi > lo and chars[hi - 1] in WHITESPACE:
        hi = hi - 1
    return "".join(chars[lo:hi])


# --- reading an expression: the grammar's `expr` rule -------------------------------------

# The grammar's binary operators by level, lowest first (`or_expr`, `and_expr`, `comparison`,
# `sum`, `product`); `not` stands before a comparison, unary `-` before an atom. Every level
# but the comparison joins any number of operands left to right; a comparison joins two.
LEVELS = (("or",), ("and",), ("==", "!=", "<=", ">=", "<", ">"), ("+", "-"), ("*", "/", "//"))
_COMPARISON = 2
# The keywords that may begin an operand (and `not`, a comparison), and those that may follow one
# (`where` after a call's argument).
_OPERAND = ("true", "false", "unknown")
_NOT = ("not", "true", "false", "unknown")
_AFTER = ("or", "and")
_AFTER_ARGUMENT = ("or", "and", "where")
# The grammar's punctuation (its terminals other than words, numbers and strings), longest first
# where one begins another: what the rulebook's lexer reads, so a `{` is an unexpected `{`, not
# an unexpected character.
_PUNCTUATION = ("..", "//", "==", "!=", "<=", ">=", ".", "=", ",", ":", "{", "}", "(", ")", "+", "-", "*", "/",
                "<", ">")
# the grammar's WHITESPACE
WHITESPACE = " \t\x0c\r\n\xa0\ufeff"
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_DIGITS = "0123456789"
_HEX = "0123456789abcdef0123456789ABCDEF"
# a string's escapes (syntax.ESCAPES): the letter after the backslash, and what it writes
_ESCAPED = '"\\ntr0'
_ESCAPES = '"\\\n\t\r\0'
# The parser's limits (civdsl/parser.py: MAX_NESTING, MAX_DEPTH, MAX_DIGITS; tests check they agree)
MAX_NESTING = 64
MAX_DEPTH = 100
MAX_DIGITS = 9
# The math functions (vocabulary.FUNCTIONS of scope "math") and how many arguments each takes.
MATH_FUNCTIONS = (("floor", 1), ("ceil", 1), ("sqrt", 1), ("min", 2), ("max", 2), ("abs", 1))


class _Stop(Exception):
    """A refusal met (kept on the reader or the advance: its message, and where)."""


def read_expression(text: str):
    """(tree, None) for an expression of the grammar's `expr` rule, else (None, (message,
    column)) of its first refusal as the rulebook parser reports it: brackets nested too deep
    before anything else, then the first syntax error, then a tree nested too deep, then the
    first literal the syntax pass refuses (a number too long, a bad escape).

    A tree is made of tuples whose second item is where the node starts (the index of its first
    character): ("int", at, value), ("str", at, text), ("bool", at, value), ("unknown", at),
    ("name", at, [part, ...]), ("paren", at, inner), ("not", at, operand), ("neg", at, operand),
    ("chain", at, [operand, ...], [operator, ...]), ("call", at, name, [argument, ...]),
    ("kwarg", at, name, value), ("where", at, items, condition)."""
    chars = [c for c in text]
    reader = _Reader(chars)
    problem = None
    nested = _too_nested(chars)
    if nested is not None:
        problem = (f"brackets are nested more than {MAX_NESTING} deep", nested)
    else:
        try:
            tree = reader.level(0, False)
            reader.expect("end")
            deep = _first_too_deep(tree)
            if deep is not None:
                problem = (f"this is nested more than {MAX_DEPTH} levels deep", deep[1])
            elif reader.literal_problems:
                problem = reader.literal_problems[0]
        except _Stop:
            problem = reader.problem
    if problem is not None:
        return None, (problem[0], problem[1] + 1)
    return tree, None


def _too_nested(chars: list) -> int | None:
    """The index of the first bracket nested more than MAX_NESTING deep, strings (to their end or
    the text's) and comments skipped, as the parser's scan counts them."""
    depth = 0
    i = 0
    while i < len(chars) and chars[i] != "#":
        c = chars[i]
        if c == '"':
            i = i + 1
            while i < len(chars) and chars[i] != '"':
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

    def peek(self, names: bool, keywords: tuple, dot: bool = False):
        """(kind, text, start, end) of the next token: kind is the keyword itself, "NAME", "INT",
        "STRING", the punctuation itself, "end" or "char" (no token begins there). `names`: whether
        a name may stand here; `keywords`: the keywords that may; `dot`: whether a `.` may (after
        a name: then `..` is a `.` and another)."""
        chars = self.chars
        while self.at < len(chars) and chars[self.at] in WHITESPACE:
            self.at = self.at + 1
        start = self.at
        c = chars[start] if start < len(chars) and chars[start] != "#" else ""
        if c == "":  # the end is where the text ends, after a comment
            return "end", "", len(chars), len(chars)
        if c in _LETTERS:
            return _word(chars, start, names, keywords)
        end = start + 1
        if c in _DIGITS:
            while end < len(chars) and chars[end] in _DIGITS:
                end = end + 1
            return "INT", "".join(chars[start:end]), start, end
        if c == '"':
            while end < len(chars) and chars[end] != '"':
                end = end + (2 if chars[end] == "\\" else 1)
            return ("char", c, start, start + 1) if end >= len(chars) else \
                ("STRING", "".join(chars[start:end + 1]), start, end + 1)
        for p in _PUNCTUATION:
            if _begins(chars, start, p):
                p = "." if dot and p == ".." else p
                return p, p, start, start + len(p)
        return "char", c, start, end

    def after(self, filtered: bool, dot: bool):
        """The token after an operand (`filtered`: a call's argument, which `where` may follow;
        `dot`: the operand is a name, which `.` may follow)."""
        return self.peek(False, _AFTER_ARGUMENT if filtered else _AFTER, dot)

    def take(self, token) -> None:
        self.at = token[3]

    def refuse(self, token) -> None:
        kind, text = token[0], token[1]
        what = f"unexpected `{text}`"
        if kind == "STRING":
            what = f"unexpected string {text}"
        if kind == "end":
            what = "unexpected end of file"
        if kind == "char":
            what = "unterminated string" if text == '"' else f"unexpected character `{_char_text(text)}`"
        self.problem = (what, token[2])
        raise _Stop("refused")

    def expect(self, kind: str) -> None:
        token = self.peek(False, ())
        if token[0] != kind:
            self.refuse(token)
        self.take(token)

    def prefixes(self, op: str, words: tuple) -> list:
        """Where each of the OPs (`not` or `-`) in a row before an operand starts."""
        starts = []
        token = self.peek(True, words)
        while token[0] == op:
            self.take(token)
            starts.append(token[2])
            token = self.peek(True, words)
        return starts

    def level(self, index: int, filtered: bool):
        """The operands joined by LEVELS[index]'s operators (before a comparison, any `not`s);
        `filtered`: a call's argument, which `where` may follow."""
        if index == len(LEVELS):
            return _prefixed("neg", self.prefixes("-", _OPERAND), self.atom(filtered))
        nots = self.prefixes("not", _NOT) if index == _COMPARISON else []
        first = self.level(index + 1, filtered)
        operands, operators = [first], []
        token = self.after(filtered, False)
        while token[0] in LEVELS[index] and not (index == _COMPARISON and operators):
            self.take(token)
            operators.append(token[0])
            operands.append(self.level(index + 1, filtered))
            token = self.after(filtered, False)
        return _prefixed("not", nots, ("chain", first[1], operands, operators) if operators else first)

    def atom(self, filtered: bool):
        token = self.peek(True, _OPERAND)
        kind, text, start = token[0], token[1], token[2]
        self.take(token)
        if kind == "INT":
            if len(text) > MAX_DIGITS:
                self.literal_problems.append((f"the number has {len(text)} digits; at most {MAX_DIGITS} are allowed",
                                              start))
                return "int", start, 0
            value = 0
            for c in text:
                value = value * 10 + _DIGITS.index(c)
            return "int", start, value
        if kind == "STRING":
            return "str", start, self.string(text, start)
        if kind == "true" or kind == "false":
            return "bool", start, kind == "true"
        if kind == "unknown":
            return ("unknown", start)
        if kind == "(":
            inner = self.level(0, False)
            self.expect(")")
            return "paren", start, inner
        if kind != "NAME":
            self.refuse(token)
        after = self.after(filtered, True)
        if after[0] == "(":
            self.take(after)
            return "call", start, text, self.arguments()
        parts = [text]
        while after[0] == ".":
            self.take(after)
            part = self.peek(True, ())
            if part[0] != "NAME":
                self.refuse(part)
            self.take(part)
            parts.append(part[1])
            after = self.after(filtered, True)
        return "name", start, parts

    def arguments(self) -> list:
        """A call's arguments after its `(`, up to and with its `)`: expressions, `NAME = expr`, and
        `expr where expr`."""
        args = []
        token = self.peek(True, _NOT)
        while token[0] != ")" or args:
            args.append(self.argument())
            token = self.peek(False, ())
            if token[0] != ",":
                break
            self.take(token)
        self.expect(")")
        return args

    def argument(self):
        token = self.peek(True, _NOT)
        mark = self.at
        if token[0] == "NAME":
            self.take(token)
            if self.after(True, True)[0] == "=":
                self.expect("=")
                return "kwarg", token[2], token[1], self.level(0, False)
            self.at = mark
        items = self.level(0, True)
        token = self.peek(False, _AFTER_ARGUMENT)
        if token[0] != "where":
            return items
        self.take(token)
        return "where", items[1], items, self.level(0, False)

    def string(self, literal: str, start: int) -> str:
        """A string literal's text as the syntax pass reads it: its escapes (\\" \\\\ \\n \\t \\r \\0
        \\uXXXX, a surrogate pair as one character), in NFC; a bad escape is a literal problem."""
        chars = [c for c in literal]
        out = []
        i = 1
        while i < len(chars) - 1:
            c = chars[i]
            i = i + 1
            if c == "\\":
                c = chars[i]
                code = _hex_code(chars, i + 1) if c == "u" else None
                i = i + 1
                if code is None and c in _ESCAPED:
                    c = _ESCAPES[_ESCAPED.index(c)]
                elif code is None:
                    self.literal_problems.append((f"unknown escape `\\{c}` in a string", start))
                else:
                    i = i + 4
                    low = _hex_code(chars, i + 2) if 0xD800 <= code < 0xDC00 and _begins(chars, i, "\\u") else None
                    if low is not None and 0xDC00 <= low < 0xE000:
                        code = 0x10000 + (code - 0xD800) * 1024 + low - 0xDC00
                        i = i + 6
                    elif 0xD800 <= code < 0xE000:
                        escape = "".join(chars[i - 6:i])
                        self.literal_problems.append((f"`{escape}` is half of a surrogate pair, not a character",
                                                      start + i - 6))
                        code = 0xFFFD
                    c = chr(code)
            out.append(c)
        return nfc("".join(out))


def _word(chars: list, start: int, names: bool, keywords: tuple):
    """The token of a word: a keyword that may stand here, or where no name may, a keyword that
    may stand here and begins the word; else a name."""
    end = start + 1
    while end < len(chars) and (chars[end] in _LETTERS or chars[end] in _DIGITS):
        end = end + 1
    word = "".join(chars[start:end])
    if word in keywords:
        return word, word, start, end
    for k in keywords:
        if not names and _begins(chars, start, k):
            return k, k, start, start + len(k)
    return "NAME", word, start, end


def _prefixed(kind: str, starts: list, node):
    """NODE under a `not` or `-` (KIND) for each start, the first outermost."""
    for i in range(len(starts) - 1, -1, -1):
        node = (kind, starts[i], node)
    return node


def _begins(chars: list, at: int, word: str) -> bool:
    return "".join(chars[at:at + len(word)]) == word


def _char_text(c: str) -> str:
    """A character as Python's repr() writes it inside its quotes."""
    return "".join([x for x in value_text(c)][1:-1])


def _hex_code(chars: list, at: int):
    """The number four hexadecimal digits at AT write, or None."""
    code = 0
    for c in chars[at:at + 4]:
        if c not in _HEX:
            return None
        code = code * 16 + _HEX.index(c) % 16
    return code if at + 4 <= len(chars) else None


# -- depth, as the parser counts it ---------------------------------------------------------

def _parts(node) -> list:
    kind = node[0]
    if kind == "chain":
        return node[2]
    if kind == "call" or kind == "where":
        return node[3] if kind == "call" else [node[2], node[3]]
    return [node[len(node) - 1]] if kind in ("paren", "not", "neg", "kwarg") else []


def _first_too_deep(tree):
    """The first node nested deeper than MAX_DEPTH in the order the parser looks for one (its
    parts last to first, each after its own parts), or None. A node's depth is the parse tree's
    (parser.node_depth): a name two levels (`name_ref` over `path`), a chain of N operators N
    levels, anything else one over its deepest part."""
    depths = []
    stack = [(tree, False)]
    while stack:
        node, done = stack.pop()
        kids = _parts(node)
        if not done:
            stack.append((node, True))
            stack.extend([(kid, False) for kid in kids])
            continue
        kid_depths = [depths.pop() for _ in kids]  # the first part's depth was kept last
        d = 1 + max(kid_depths, default=0)
        if node[0] == "name":
            d = 2
        elif node[0] == "chain":
            d = len(kids) - 1 + kid_depths[0]
            for i in range(1, len(kids)):
                d = max(d, len(kids) - i + kid_depths[i])
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
    arity = dict(MATH_FUNCTIONS).get(name, -1)
    if arity < 0:
        scope.refuse(f"`{name}` cannot be evaluated here")
    args = [_number(_value(a, scope), scope) for a in node[3] if a[0] != "kwarg"]
    if len(args) != arity:
        scope.refuse(f"`{name}` takes {arity} argument{'s' if arity != 1 else ''}")
    x = args[0]
    if name == "sqrt" and x < 0:
        scope.refuse("`sqrt` cannot be evaluated: math domain error")
    if name == "floor" or name == "ceil":
        return math.floor(x) if name == "floor" else math.ceil(x)
    if name == "sqrt" or name == "abs":
        return math.sqrt(x) if name == "sqrt" else abs(x)
    return min(x, args[1]) if name == "min" else max(x, args[1])


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
    if isinstance(v, str):
        return f"the text {value_text(v)}"
    return "unknown" if v is None else ("true/false" if isinstance(v, bool) else "a number")
