"""The engines' Python subset and its translation to JavaScript (civdsl/companion/py2es.py).

Every engine module of py2es.ENGINE_MODULES translates (a refusal fails naming the module, the
line and the construct); each construct of the subset, translated and run in Node, answers as
Python does on random values; what is outside the subset is refused, never translated
approximately (docs/engine-route.md, "The Python subset"). The Node half skips without node.
"""

from __future__ import annotations

import ast
import json
import random
import re
import subprocess
import tempfile
from fractions import Fraction
from pathlib import Path

import pytest

from civdsl.companion import py2es, pymodules
from companion_harness import NODE, node_available

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "civdsl" / "companion" / "runtime"
needs_node = pytest.mark.skipif(not node_available(), reason="node is not installed")


# --- the engine modules -----------------------------------------------------------------------------

@pytest.mark.parametrize("module", sorted(py2es.ENGINE_MODULES))
def test_every_function_of_an_engine_module_translates(module):
    origin, text = pymodules.module_text(module)
    try:
        js = py2es.translate_source(text, Path(origin).name, py2es.ENGINE_MODULES[module], qualified=module)
    except py2es.Refused as exc:
        pytest.fail(f"{exc.module}:{exc.line}: {exc.construct} (outside the engine subset)")
    # every function and class of the module is in the translation, under its prefixed name
    prefix = py2es.ENGINE_MODULES[module]
    tree = ast.parse(text)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            assert f" {prefix}_{node.name}" in js or f"class {prefix}_{node.name}" in js, node.name


def test_the_translation_is_deterministic():
    py2es.engine_source.cache_clear()
    first = py2es.engine_source()
    py2es.engine_source.cache_clear()
    assert py2es.engine_source() == first


@needs_node
def test_the_translation_is_valid_es2017():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "engine.js"
        path.write_text(_runtime_files() + py2es.engine_source(), encoding="utf-8")
        done = subprocess.run([NODE, "--check", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# --- the subset's rules: what is refused, with its line ------------------------------------------------

REFUSED = [
    ("import os\n", 1, "import of os"),
    ("from .runtime import prices\n", 1, "import from .runtime"),
    ("X = []\n", 1, "module-level Assign"),
    ("def f(x):\n    return id(x)\n", 2, "the built-in id()"),
    ("def f(x):\n    return x is 3\n", 2, "`is` with other than None"),
    ("def f(x):\n    global y\n    return x\n", 2, "the statement Global"),
    ("def f(x):\n    try:\n        return x\n    except KeyError:\n        return 0\n", 4, "the exception KeyError"),
    ("def f(x):\n    try:\n        return x\n    finally:\n        pass\n", 2, "try ... else or finally"),
    ("def f(x):\n    try:\n        return x\n    except:\n        return 0\n", 4, "an except of other than one"),
    ("def f(x):\n    raise KeyError\n", 2, "a raise of other than an exception class with its message"),
    ("class A:\n    @property\n    def m(self, x):\n        return x\n", 3, "a decorator other than @staticmethod"),
    ("def f(x):\n    return type(x)(1, k=2)\n", 2, "keywords in a call of type(x)"),
    ("class E(Exception):\n    def m(self):\n        return 1\n", 1, "an exception class with a body"),
    ("X = (1, [2])\n", 1, "module-level Assign"),
    ("def f(*xs):\n    return xs\n", 1, "*args or **kwargs"),
    ("def f(x):\n    return g(*x)\n\ndef g(a):\n    return a\n", 2, "a starred argument"),
    ("class A(list):\n    pass\n", 1, "a class based on list"),
    ("class A:\n    def __call__(self):\n        return 1\n", 2, "the special method __call__"),
    ("class A(dict):\n    def __init__(self):\n        self.x = 1\n", 2, "does not start with super().__init__()"),
    ("def f(x):\n    return x ** 2\n", 2, "the operator Pow"),
    ("def f(x):\n    return x @ 2\n", 2, "the operator MatMult"),
    ("def f(x):\n    return x[::2]\n", 2, "a slice with a step"),
    ("def f(x):\n    return print(x)\n", 2, "the built-in print()"),
    ("def f(x):\n    return undefined_name\n", 2, "the name undefined_name"),
    ("def f(x):\n    return x + 12345678901234567890\n", 2, "a whole number beyond 2^53"),
    ("def f(x, y=[]):\n    return y\n", 1, "a default that is not a constant"),
    ("def f(x):\n    for a in x:\n        pass\n    else:\n        pass\n", 2, "for ... else"),
    ("def f(x):\n    return lambda *a: a\n", 2, "a lambda with other than plain parameters"),
    ("def f(x):\n    return math.log(x)\n", 2, "math.log() (not a function of the subset)"),
    ("def f(x):\n    return x.append(1)\n", 2, "the value of append() (None)"),
    # Python extends a list (and changes a set or dict) in place where `x = x + y` makes a new one
    ("def f(xs, ys):\n    xs += ys\n    return xs\n", 2, "`xs +=` on a value not surely a number"),
    ("def f(xs):\n    ys = [1]\n    ys *= 2\n    return ys\n", 3, "`ys *=` on a value not surely a number"),
    ("def f(s, t):\n    s |= t\n    return s\n", 2, "`s |=` on a value not surely a number"),
    ("def f(xs):\n    n = 0\n    if xs:\n        n = xs\n    n += xs\n    return n\n", 5, "`n +=`"),
    ("def f(xs):\n    n = 0\n    for n in xs:\n        pass\n    n += xs\n    return n\n", 5, "`n +=`"),
    ("class A:\n    def m(self, more):\n        self.a += more\n", 3, "`self.a +=`"),
    ("def f(d, k, ys):\n    d[k] += ys\n    return d\n", 2, "`d[k] +=`"),
    # JavaScript's `replace` replaces the first occurrence only: never left to run as JavaScript's
    ("def f(s):\n    return s.replace('_', ' ')\n", 2, "replace() (JavaScript's text method"),
    # a method of Python's values the runtime does not translate is never left to JavaScript: an
    # Array has no count(), and a text's split(sep, n) keeps n pieces there, not n splits
    ("def f(xs):\n    return xs.count(1)\n", 2, "count() of a text, list, dict or set"),
    ("def f(s):\n    return s.split('.', 2)\n", 2, "split() of a text, list, dict or set"),
    ("def f(xs):\n    xs.insert(0, 1)\n    return xs\n", 2, "insert() of a text, list, dict or set"),
    ("def f(s):\n    return s.upper()\n", 2, "upper() of a text, list, dict or set"),
    ("def f(n):\n    return '%d cards' % n\n", 2, "a text formatted with %"),
    # Python's lambda sees the loop name's last value, JavaScript's each turn's own
    ("def f(n):\n    return [lambda x: x + i for i in range(n)]\n", 2, "a lambda in a comprehension that reads"),
]


def test_no_engine_class_names_a_method_as_a_builtin_value_does():
    """A call of a built-in value's method the runtime does not translate is refused unless an engine
    class defines one so named; such a class method would let `xs.count(1)` on a list through, so
    none is named like one (the runtime's dicts and sets keep Python's names: they are the values)."""
    from civdsl.companion import pycalls

    kept = pycalls.DICT_SET_METHODS | {"append", "extend", "sort", "index", "pop"}
    assert (py2es._method_names() & pycalls._BUILTIN_METHODS) - kept == set()


@pytest.mark.parametrize("source, line, construct", REFUSED, ids=[r[2] for r in REFUSED])
def test_outside_the_subset_is_refused_with_its_line(source, line, construct):
    with pytest.raises(py2es.Refused) as caught:
        py2es.translate_source("import math\n" + source, "snippet.py", "t")
    assert caught.value.module == "snippet.py"
    assert caught.value.line == line + 1
    assert construct in caught.value.construct
    assert str(caught.value).startswith(f"snippet.py:{line + 1}: ")


def test_the_page_copy_has_short_locals_and_the_same_globals():
    long, short = py2es.engine_source(), py2es.engine_source(short=True)
    assert re.search(r"\bforced\b", long) and not re.search(r"\bforced\b", short)
    assert set(re.findall(r"\bps_\w+", long)) == set(re.findall(r"\bps_\w+", short))


def test_a_module_imports_the_runtime_values_and_other_engines_by_their_page_names():
    js = py2es.translate_source("from .unknown import Unknown, number\n\nGONE = Unknown(('x',))\n\n\n"
                                "def f(v):\n    return number(v), GONE\n", "s.py", "t", qualified="civdsl.s")
    assert 'const t_GONE = new Unknown(["x"]);' in js
    assert "return [number(v), t_GONE];" in js
    with pytest.raises(py2es.Refused, match="import of civdsl.runtime.prices"):
        py2es.translate_source("from .runtime import prices\n", "s.py", "t", qualified="civdsl.s")
    js = py2es.translate_source("from .standing import AstRowUnknown, ast_rows\n\n\ndef f(m):\n"
                                "    return ast_rows(m, 't', None)\n", "s.py", "t", qualified="civdsl.s")
    assert 'return st_ast_rows(m, "t", null);' in js
    # keywords in a call of another engine module's function: placed by that module's parameters
    js = py2es.translate_source("from .standing import ast_rows\n\n\ndef f(m):\n"
                                "    return ast_rows(m, civilization=None, track='t')\n", "s.py", "t", qualified="civdsl.s")
    assert 'return st_ast_rows(m, "t", null);' in js
    with pytest.raises(py2es.Refused, match="the keyword colour"):
        py2es.translate_source("from .standing import ast_rows\n\n\ndef f(m):\n"
                               "    return ast_rows(m, 't', colour=None)\n", "s.py", "t", qualified="civdsl.s")


def test_a_name_an_engine_module_defines_is_its_own_where_another_module_re_exports_it():
    """`from ..runtime import PlayerState` (the generated code's ABI re-exports it) is
    playerstate.py's class, made with `new`; a name runtime.py defines itself is still refused."""
    js = py2es.translate_source("from ..runtime import PlayerState\n\n\ndef f(m, held, facts):\n"
                                "    return PlayerState(m, held, facts)\n", "x.py", "t", qualified="civdsl.plan.x")
    assert "return new pt_PlayerState(m, held, facts);" in js
    # a modifier's change is losses.py's, which runtime re-exports for generated modules
    js = py2es.translate_source("from ..runtime import change\n\n\ndef f(t):\n    return change(t, 'set', 'k', 'p', 1, 0, (), 1, 'x')\n",
                                "x.py", "t", qualified="civdsl.plan.x")
    assert "return ls_change(t, " in js
    with pytest.raises(py2es.Refused, match="import of civdsl.runtime.min_"):
        py2es.translate_source("from ..runtime import PlayerState, min_\n", "x.py", "t", qualified="civdsl.plan.x")


def test_a_module_of_a_subpackage_imports_from_the_enclosing_package():
    """`from ..handvalue import off_block` in civdsl.plan.x names civdsl.handvalue's generated function;
    a relative import past the top package is refused."""
    js = py2es.translate_source("from ..handvalue import off_block\n\n\ndef f(m, n, s):\n"
                                "    return off_block(m, n, s)\n", "x.py", "t", qualified="civdsl.plan.x")
    assert "return hv_off_block(m, n, s);" in js
    with pytest.raises(py2es.Refused, match="import of civdsl.runtime.prices"):
        py2es.translate_source("from ..runtime import prices\n", "x.py", "t", qualified="civdsl.plan.x")
    with pytest.raises(py2es.Refused, match=r"import from \.\.\.handvalue"):
        py2es.translate_source("from ...handvalue import off_block\n", "x.py", "t", qualified="civdsl.plan.x")


def test_the_page_copy_calls_the_commonest_helpers_by_alias_and_leaves_text_alone():
    js = py2es.translate_source('def f(d):\n    return d["pyItem(x)"], "truthy(\\"", d["a"]\n', "s.py", "t", short=True)
    assert '$I(a, "pyItem(x)")' in js and '"truthy(\\""' in js and '$I(a, "a")' in js and "pyItem" not in js.replace(
        '"pyItem(x)"', "")
    assert set(py2es.SHORT_HELPERS.values()).isdisjoint(py2es._runtime_names())
    # an alias the translation also writes for itself (a comprehension's result, a sum) would be
    # renamed with that function's locals in the page's copy
    own = set(re.findall(r"(?<![\w$.])(\$[A-Za-z_][\w$]*)", py2es.engine_source(short=False)))
    assert set(py2es.SHORT_HELPERS.values()).isdisjoint(own)


def test_a_local_never_hides_a_runtime_helper():
    # `floor` and `add` are core.js functions the translation calls; `new` is JavaScript's
    js = py2es.translate_source("def f(floor, add):\n    new = floor + add\n    return new\n", "s.py", "t")
    assert "function t_f(floor_, add_)" in js
    assert "new_ = add(floor_, add_);" in js


def test_text_reaches_the_output_only_escaped():
    js = py2es.translate_source('def f():\n    return "</script><!--\\u2028"\n', "s.py", "t")
    assert "</script" not in js and "<!--" not in js and "\u2028" not in js


def test_a_name_declared_int_is_written_with_plain_operators_and_the_safe_check():
    js = py2es.translate_source("def f(a: int, b):\n    c: int = a * 2\n    return c + b, c + a, c < a\n",
                                "s.py", "t")
    assert "c = exact(a * 2);" in js
    assert "add(c, b)" in js and "exact(c + a)" in js and "(c < a)" in js


# --- each construct in Node against Python, on random values ----------------------------------------------

CONSTRUCTS = '''
import copy
import functools
import heapq
import math
import unicodedata
from fractions import Fraction
from itertools import chain, combinations


def arith(a, b, c):
    return a + b - c, a * b, a // (c or 1), -a, (a - b) // 3, abs(a - c), max(a, b), min(b, c)


def true_division(a, b):
    return a / (b or 1), Fraction(a) / (b or 1), float(a) * 2, math.floor(Fraction(a, 1) / 7), math.ceil(a / 3)


def square_roots(a, b):
    return math.sqrt(abs(a)), math.sqrt(Fraction(abs(a), abs(b) + 1)), Fraction(abs(b), 3).denominator


def typed(a: int, b: int):
    c: int = a * 3 + b
    return c - a, c // 2, c < b, c == a, -c


def tuples(xs):
    return sorted(xs), sorted(xs, reverse=True), sorted(xs, key=lambda t: t[0], reverse=True), \\
        max(xs, default=None), min(xs, key=lambda t: (t[1], -t[0]), default=(0, 0)), xs[:2] > xs[-2:]


def stable(xs):
    ys = list(xs)
    ys.sort(key=lambda t: t[1] % 3)
    zs = sorted(xs, key=lambda t: t[0] % 2, reverse=True)
    return ys, zs


def dicts(xs):
    d = {}
    for k, v in xs:
        d[k] = d.get(k, 0) + v
        d.setdefault(v, k)
    for k in list(d):
        if k % 3 == 0:
            del d[k]
    e = {k: v for k, v in d.items() if v}
    e[(1, "a")] = frozenset([1, 2])
    return list(d.items()), list(e), (1, "a") in e, len(e), {**d, 99: 1}


def sets(xs, ys):
    a, b = frozenset(xs), set(ys)
    b.add(7)
    keyed = {frozenset([1, 2]): 1, frozenset([2, 1]): 2}
    return sorted(a | b), sorted(a - b), sorted(a & b), 3 in a, len(keyed), sum(x for x in a), \\
        sorted({x * 2 for x in b if x > 1}), any(x > 5 for x in a), all(x > -9 for x in b), a == frozenset(xs)


def logic(a, b, c):
    return a or b, a and b, (a and b) or c, not a, b if a else c, a < b < c, a is None, c is not None


def items(xs, i, j):
    ys = list(xs)
    ys[i % len(ys)] = -1
    ys[-1] += 5
    return ys[i % len(ys)], ys[-1], ys[1:], ys[:-2], ys[i:j], xs[-2:], (ys + [1, 2]) * 2


class Box:
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b

    def total(self, more: int = 0):
        self.a += more
        return self.a + self.b

    @property
    def both(self):
        return (self.a, self.total())


class Memo(dict):
    def __init__(self, step):
        super().__init__()
        self.step = step

    def __missing__(self, key):
        got = self[key] = key * self.step
        return got


def classes(a, b):
    box = Box(a, b)
    m = Memo(b)
    return box.total(more=3), box.a, m[a], m[a], len(m), box.both


def comprehensions(xs):
    pairs = [(x, y) for x in xs for y in xs if x < y if (x + y) % 2 == 0]
    return pairs, {x: [y for y in xs if y > x] for x in xs[:3]}, [i * x for i, x in enumerate(xs)], \\
        list(zip(xs, xs[1:])), [x for x in range(len(xs), -1, -2)]


def generators(xs):
    def walk(n):
        if n <= 0:
            yield 0
            return
        for k in range(n):
            yield k
        yield from walk(n - 2)
    return list(walk(len(xs))), list(chain.from_iterable(combinations(xs[:4], r) for r in range(3)))


def counted(xs, start):
    return [(i, x) for i, x in enumerate(xs, start)], [i * 2 for i, _ in enumerate(xs, 1)], list(enumerate(xs))


def heaps(xs):
    h = []
    for i, x in enumerate(xs):
        if len(h) < 3:
            heapq.heappush(h, (x, i))
        elif (x, i) > h[0]:
            heapq.heapreplace(h, (x, i))
    return h, sorted(h, reverse=True)


def bits(xs):
    mask = 0
    for x in xs:
        mask = mask | 1 << (x % 50)
    return mask, [r for r in range(50) if mask >> r & 1], mask & 1023


def calls(xs):
    total = functools.partial(_plus, 10)
    square = functools.cache(_square)
    return [total(x) for x in xs], [square(x) for x in xs], isinstance(xs[0], int), isinstance(1.5, (int, float))


def _plus(a, b):
    return a + b


def _square(x):
    return x * x


def loops(n):
    out = []
    i = 0
    while True:
        i += 1
        if i % 3 == 0:
            continue
        if i > n:
            break
        out.append(i)
    return out, f"{n} loops of {len(out)}"


LIMITS = (3, ("a", -2))


class TooBig(Exception):
    """raised and caught by its class"""


class Odd(Exception):
    """an exception with fields: its message first, then what it carries"""

    def __init__(self, message: str, value: int, hint: str | None = None):
        super().__init__(message)
        self.value = value
        self.hint = hint


def _checked(x):
    if x > LIMITS[0]:
        raise TooBig(f"{x} is past {LIMITS[0]}")
    if x % 2:
        raise Odd(f"{x} is odd", x, hint="halve it" if x > 0 else None)
    return x


def _reraised(x):
    try:
        return _checked(x)
    except TooBig:
        if x > 100:
            raise
        return -1


def exceptions(xs):
    out = []
    for x in xs:
        try:
            out.append(_reraised(x))
        except TooBig as exc:
            out.append(str(exc))
        except Odd as exc:
            out.append([str(exc), exc.value, exc.hint])
    box = Box(xs[0], 1)
    return out, LIMITS[1], [x for x in xs if bool(x % 2) is True], xs.index(xs[-1]), getattr(box, "a", 7), \
        getattr(box, "c", 7)


def _band(x, d):
    if x > 3:
        raise ValueError(f"no band of the table covers {x}")
    return x // d


def builtin_exceptions(xs, d):
    out = []
    for x in xs:
        try:
            out.append(_band(x, d))
        except ValueError as exc:  # a ZeroDivisionError passes through, in both
            out.append(str(exc))
    return out


class Shape:
    def __init__(self, a, b=()):
        self.a = a
        self.b = tuple(b)

    @property
    def size(self) -> int:
        return len(self.b) + self.a

    def grown(self, n):
        return type(self)(self.a + n, self.b)


def properties(a, xs):
    s = Shape(a, xs).grown(2)
    return s.size, s.a, s.b, Shape(a).size, Shape(a).b


def texts(xs):
    return ", ".join(str(x) for x in xs), "".join([]), [ord(c) for c in "".join(str(x) for x in xs) + "é✓"], \
        "".join(chr(ord(c) + 1) for c in "az\u00e9\U0001f600")


def text_methods(ws):
    out = []
    for w in ws:
        out.append([w.partition("="), w.rpartition("*"), w.partition(":="), w.split(","), w.startswith("a"),
                    w.startswith(("b=", "=")), w.endswith("*"), w.endswith(("1", "2"))])
    xs = list(ws)
    popped = [xs.pop(), xs.pop(0), xs.pop(-2)] if len(xs) > 2 else []
    d = {w: i for i, w in enumerate(ws)}
    popped.extend([d.pop(ws[0]), d.pop("never", 5), len(d)])
    s = set(ws)
    d.clear()
    s.clear()
    xs.clear()
    out.append([popped, len(d), len(s), xs, [w.lower() for w in ws + ["ÀB", "ΟΔΟΣ"]]])
    # a name bound twice in one target keeps its last value
    return out, [(a, _) for a, _, _ in [w.partition("=") for w in ws]], any(_ == "=" for _, _, x in [("", "=", 1)])


def text_builtins(ws):
    # Python's white space (U+001C and U+0085 are space, U+FEFF is not), case folding, NFC, repr
    out = []
    for w in ws + ["\\x1c a\\u3000b \\x85", "\\ufeffx ", "Stra\\u00dfe \\ufb01", "Cafe\\u0301", "\\U0001d400" * 3]:
        out.append([w.strip(), w.split(), w.casefold(), w.isspace(), w.isascii(),
                    unicodedata.normalize("NFC", w), repr(w), w[1:], w[:-1]])
    return out, repr([1, "a", None, True, 2.5, {"k": [1]}]), repr({})


def texts_only(xs):
    return "-".join(xs)


def containers_as_text(xs):
    ys = xs.copy()
    ys.append(len(xs))
    d = {"a": xs[0], "b": [None, True]}
    return str(xs), f"{d}|{set(xs[:1])}", str(ys), len(xs), str(d.copy()), (xs[0] + 0.5) // 2, -xs[1] // 2.0


def aliases(xs, a):
    ys = list(xs)
    zs = ys
    zs.extend([7])
    ws = ys
    ws = ws + [8]
    n = 0
    for x in xs:
        n += x
    n -= a
    d = {}
    d[a] = 1
    d[a] += n
    return ys, zs, ws, n, d


def floats(a, b):
    x = 0.0
    x += a
    return x, float(a) / 3, x < b, float("inf") > b, 1e-9 + a, isinstance(x, float)


class Limits:
    cap = 3
    name = "limits"

    def __init__(self, step):
        self.step = step
        self.seen = [step]

    def over(self, x):
        return x > self.cap * self.step


def _by_last_digit(x, y):
    return (x % 10) - (y % 10)


def objects(xs, a):
    import copy  # a late import, as an engine makes one for start-up time

    lim = Limits(a % 5 + 1)
    first = lim.cap
    twin = copy.copy(lim)
    twin.cap = 10
    twin.seen.append(1)
    twin.step = 2
    over = lim.over
    order = {x: -i for i, x in enumerate(xs)}
    ranked = sorted(xs, key=order.get)
    by_digit = sorted(xs, key=functools.cmp_to_key(_by_last_digit), reverse=a % 2 == 0)
    return (first, lim.cap, twin.cap, lim.step, twin.step, lim.seen, lim.name, [over(x) for x in xs],
            [twin.over(x) for x in xs], ranked, by_digit, copy.copy(xs) + [a], copy.copy(order))
'''


def _ints(rng, k=6, big=False):
    top = 2 ** 40 if big else 30
    return [rng.randint(-top, top) for _ in range(k)]


def _pairs(rng):
    return [(rng.randint(0, 4), rng.randint(-3, 3)) for _ in range(rng.randint(1, 8))]


def _arguments(name: str, rng: random.Random) -> list:
    """Random arguments for each function of CONSTRUCTS."""
    a, b, c = _ints(rng, 3, big=rng.random() < 0.3)
    small = _ints(rng, rng.randint(2, 8))
    return {
        "arith": [a, b, c], "true_division": [a, b], "square_roots": [a % 10**6, b % 10**6], "typed": [a % 1000, b % 1000], "tuples": [_pairs(rng)],
        "stable": [_pairs(rng)], "dicts": [_pairs(rng)], "sets": [small, _ints(rng, 4)],
        "logic": [rng.choice([0, 1, 2, None]), rng.choice([0, 3, "", "x"]), rng.randint(-2, 2)],
        "items": [small, rng.randint(-5, 5), rng.randint(-5, 9)], "classes": [a % 100, b % 100],
        "comprehensions": [small], "generators": [small], "heaps": [_ints(rng, rng.randint(0, 9))],
        "counted": [small, rng.randint(-3, 5)],
        "bits": [[abs(x) for x in small]], "calls": [small], "loops": [rng.randint(0, 12)],
        "floats": [a % 50, b % 50], "aliases": [small, a], "objects": [small, a % 1000], "exceptions": [small],
        "builtin_exceptions": [small, rng.randint(0, 2)], "properties": [a % 100, small], "texts": [small],
        "texts_only": [small], "containers_as_text": [small], "text_builtins": [["".join(rng.choice(" \tab'\"\n\u00e9\x1c") for _ in range(rng.randint(0, 6)))
                                                  for _ in range(4)]],
        "text_methods": [["".join(rng.choice("ab=*:,12") for _ in range(rng.randint(0, 7))) for _ in range(6)]],
    }[name]


def _encode(v):
    """A Python value as tagged JSON (the Node driver writes the same for the JavaScript value)."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, Fraction):
        return {"frac": [str(v.numerator), str(v.denominator)]}
    if isinstance(v, (list, tuple)):
        return [_encode(x) for x in v]
    if isinstance(v, dict):
        return {"dict": [[_encode(k), _encode(x)] for k, x in v.items()]}
    if isinstance(v, (set, frozenset)):
        return {"set": sorted(json.dumps(_encode(x), sort_keys=True) for x in v)}
    raise TypeError(type(v))


_DRIVER = r"""
"use strict";
const fs = require("fs");
const calls = JSON.parse(fs.readFileSync(0, "utf8"));
function dec(v) {
  if (Array.isArray(v)) return v.map(dec);
  if (v !== null && typeof v === "object" && "int" in v) return Number(v.int);
  return v;
}
function enc(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") return {int: String(v)};
  if (v instanceof PyFloat) return {float: floatRepr(v.v)};
  if (v instanceof Frac) return {frac: [String(v.n), String(v.d)]};
  if (Array.isArray(v)) return v.map(enc);
  if (v instanceof PyDict) return {dict: v.items().map(([k, x]) => [enc(k), enc(x)])};
  if (v instanceof PySet) return {set: v.members().map((x) => stable(enc(x))).sort()};
  return {unknown: String(v)};
}
function stable(v) {  // JSON with sorted keys, as Python's json.dumps(sort_keys=True)
  if (Array.isArray(v)) return "[" + v.map(stable).join(", ") + "]";
  if (v !== null && typeof v === "object") {
    return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ": " + stable(v[k])).join(", ") + "}";
  }
  return JSON.stringify(v);
}
const out = calls.map(([name, args]) => {
  try {
    return {ok: enc(FUNCTIONS[name].apply(null, dec(args)))};
  } catch (exc) {
    return {error: exc instanceof RuleError ? exc.kind : String(exc)};
  }
});
process.stdout.write(JSON.stringify(out));
"""


def _runtime_files() -> str:
    return "\n".join((RUNTIME / name).read_text(encoding="utf-8") for name in ("core.js", "pylib.js"))


def _runtime() -> str:
    """The hand-written runtime and Python's library translated (what a translated module calls)."""
    return _runtime_files() + "\n" + py2es.library_source()


def _run_node(js_module: str, names: list[str], calls: list) -> list:
    table = "const FUNCTIONS = {" + ", ".join(f"{n}: t_{n}" for n in names) + "};\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.js"
        path.write_text(_runtime() + "\n" + js_module + "\n" + table + _DRIVER, encoding="utf-8")
        done = subprocess.run([NODE, str(path)], input=json.dumps(calls), capture_output=True, text=True,
                              timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _python_answer(fn, args):
    try:
        return {"ok": _encode(fn(*args))}
    except (ZeroDivisionError, TypeError, ValueError, KeyError, IndexError) as exc:
        return {"error": type(exc).__name__}


def _past_2_53(encoded) -> bool:
    if isinstance(encoded, dict) and "int" in encoded:
        return abs(int(encoded["int"])) > 2 ** 53 - 1
    if isinstance(encoded, dict):
        return any(_past_2_53(v) for v in encoded.values())
    if isinstance(encoded, list):
        return any(_past_2_53(v) for v in encoded)
    return False


FUNCTIONS = [n.name for n in ast.parse(CONSTRUCTS).body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]


@needs_node
@pytest.mark.parametrize("seed, short", [(1, False), (2, False), (3, True)])
def test_each_construct_answers_in_node_as_in_python(seed, short):
    """SHORT: the page's copy, its locals renamed to one or two letters."""
    scope: dict = {}
    exec(compile(CONSTRUCTS, "constructs.py", "exec"), scope)
    js = (py2es.HELPER_ALIASES + "\n" if short else "") + py2es.translate_source(CONSTRUCTS, "constructs.py", "t", short)
    rng = random.Random(seed)
    calls = [(name, _arguments(name, rng)) for _ in range(60) for name in FUNCTIONS]
    answers = _run_node(js, FUNCTIONS, [(name, _encode(args)) for name, args in calls])
    for (name, args), got in zip(calls, answers):
        want = _python_answer(scope[name], args)
        if got == {"error": "OverflowError"} and _past_2_53(want):
            continue  # JavaScript cannot hold the answer exactly, and says so
        assert got == want, f"{name}{tuple(args)}: JavaScript {got}, Python {want}"


@needs_node
def test_a_whole_number_past_2_53_is_an_error_in_javascript_never_a_rounded_number():
    js = py2es.translate_source("def f(a):\n    return a * a\n\ndef g(a: int):\n    return a * 4 + 1\n",
                                "s.py", "t")
    got = _run_node(js, ["f", "g"], [["f", [{"int": str(2 ** 30)}]], ["g", [{"int": str(2 ** 52)}]],
                                     ["f", [{"int": "3"}]]])
    assert got == [{"error": "OverflowError"}, {"error": "OverflowError"}, {"ok": {"int": "9"}}]


@needs_node
def test_walking_a_set_where_its_order_shows_is_an_error():
    js = py2es.translate_source("def f(xs):\n    return [x for x in frozenset(xs)]\n\n"
                                "def g(xs):\n    return sorted(frozenset(xs), key=lambda x: x % 2)\n\n"
                                "def h(xs):\n    return sum(x for x in frozenset(xs))\n", "s.py", "t")
    got = _run_node(js, ["f", "g", "h"], [["f", [[{"int": "1"}, {"int": "2"}]]],
                                          ["g", [[{"int": "1"}, {"int": "3"}]]],
                                          ["h", [[{"int": "1"}, {"int": "2"}]]]])
    assert got == [{"error": "TypeError"}, {"error": "TypeError"}, {"ok": {"int": "3"}}]


def test_bare_drops_only_parentheses_that_group_the_whole_expression():
    from civdsl.companion.jsops import bare
    assert bare("(a === b)") == "a === b"
    assert bare("((a === b) && c)") == "(a === b) && c"
    assert bare("(a) + (b)") == "(a) + (b)"  # the first pair closes before the end
    assert bare("(() => 1)()") == "(() => 1)()"
    assert bare("(a, b)") == "(a, b)"  # a sequence expression keeps its parentheses
    assert bare("(f(a, b) + \")\")") == "f(a, b) + \")\""
    assert bare("(\"\\\"(\" + x)") == "\"\\\"(\" + x"
    assert bare("('(' + x) + (y)") == "('(' + x) + (y)"


def test_the_translation_writes_a_condition_and_a_returned_value_without_extra_parentheses():
    from civdsl.companion.py2es import translate_source
    js = translate_source("def f(a: int, b: int) -> bool:\n    if a == b:\n        return a < b\n    return False\n",
                          "m.py", "m")
    assert "if (a === b) {" in js and "return a < b;" in js


def test_a_comparison_among_and_or_or_loses_only_its_own_parentheses():
    from civdsl.companion.py2es import translate_source
    js = translate_source("def f(a, b, c) -> bool:\n    return a is None and (b is None or c is None)\n", "m.py", "m")
    assert "return a === null && (b === null || c === null);" in js


def test_an_empty_dict_display_is_a_call_of_pydict_of_nothing_and_a_function_ending_in_a_raise_returns_nothing_after():
    from civdsl.companion.py2es import translate_source
    js = translate_source("class Stop(Exception):\n    pass\n\n\ndef f(a):\n    if a:\n        return {}\n"
                          "    raise Stop('no')\n", "m.py", "m")
    assert "return pyDict();" in js and "return null;" not in js


def test_an_effects_parameters_are_a_plain_object_made_a_dict_unless_a_name_is_not_a_plain_key():
    from civdsl.companion.jsgen import _dict_of
    assert _dict_of([("amount", "a"), ("area", "b")]) == "pyFromPlain({amount: a, area: b})"
    assert _dict_of([("amount", "a"), ("2", "b")]) == 'pyDict([["amount", a], ["2", b]])'
    assert _dict_of([("__proto__", "a")]) == 'pyDict([["__proto__", a]])'
