"""How py2es writes a call: of a local or a module's function, of a class, of a built-in (one
runtime helper each, or a form of its own), of a list's, dict's or set's method, and of a name
another module gives. `CallTranslation` is a part of py2es's `_Module`, which supplies `expr`,
`refuse` and the module's functions, classes and imports.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from . import jsops

_TYPES = {"int": "pyIsInt({})", "bool": 'typeof {} === "boolean"', "float": "{} instanceof PyFloat", "str": 'typeof {} === "string"',
          "tuple": "Array.isArray({})", "list": "Array.isArray({})", "dict": "{} instanceof PyDict",
          "set": "{} instanceof PySet", "frozenset": "{} instanceof PySet", "Fraction": "{} instanceof Frac",
          "Unknown": "{} instanceof Unknown"}
# built-in calls of one helper each (their arguments positional)
_CALLS = {"len": "pyLen", "enumerate": "pyEnumerate", "zip": "pyZip", "range": "pyRange", "float": "pyFloat",
          "int": "pyInt", "Fraction": "pyFraction", "combinations": "it_combinations", "str": "pyStr",
          "math.floor": jsops.MATH_CALLS["floor"], "math.ceil": jsops.MATH_CALLS["ceil"],
          "abs": jsops.MATH_CALLS["abs"], "heapq.heappush": "hq_heappush", "heapq.heapreplace": "hq_heapreplace",
          "heapq.heappop": "hq_heappop", "chain.from_iterable": "it_chain_from_iterable", "functools.partial": "pyPartial",
          "functools.cache": "pyCache", "bool": "truthy", "ord": "pyOrd", "functools.cmp_to_key": "pyCmpToKey",
          "copy.copy": "pyCopy", "chr": "pyChr", "math.sqrt": jsops.MATH_CALLS["sqrt"],
          "repr": "rp_repr_of", "unicodedata.normalize": "pyNormalize"}
# built-ins of a form of their own (below) written through one helper each
_HELPERS = {"any": "pyAny", "all": "pyAll", "min": "pyMin", "max": "pyMax"}
# built-ins whose result does not depend on the order they walk their argument in (a set may be walked)
_ANY_ORDER = {"sum", "any", "all", "frozenset", "set", "len"}
# built-ins with a form of their own (a method of CallTranslation: the call's text, or None where it does not fit)
_BUILTIN_FORMS = {"float": "_float_of_infinity", "any": "_any_all", "all": "_any_all", "sum": "_sum_call",
                  "sorted": "_sorted_call", "max": "_min_max", "min": "_min_max", "tuple": "_container",
                  "list": "_container", "set": "_container", "frozenset": "_container", "dict": "_container",
                  "isinstance": "_isinstance", "getattr": "_getattr"}
# a container built from nothing, and from one iterable
_CONTAINERS = {"tuple": ("[]", "pyList({})"), "list": ("[]", "pyList({})"),
               "set": ("new PySet()", "pySetOf(pyIterAny({}))"), "frozenset": ("new PySet()", "pySetOf(pyIterAny({}))"),
               "dict": ("new PyDict()", "pyDict({})")}
# methods of list, dict and set, written as the runtime's (PyDict and PySet have Python's names)
DICT_SET_METHODS = {"get", "setdefault", "items", "keys", "values", "update", "copy", "add", "discard", "union",
                     "difference", "intersection", "issubset", "isdisjoint"}
NO_ATTRIBUTES = {"constructor", "prototype", "__proto__"}
# methods of str with one argument (where no class of the module defines one of that name): one
# helper each, which refuses a receiver that is not text as Python would
# methods a list, dict, set or text has under one name (where no class of the module defines one of
# that name): one helper each, which does what Python does for the receiver's type: its helper
# and the most arguments it takes
_ANY_METHODS = {"pop": ("pyPop", 2), "clear": ("pyClear", 0), "lower": ("pyLower", 0),
                "casefold": ("pyCasefold", 0), "strip": ("pyStrip", 0), "isascii": ("pyIsAscii", 0),
                "isspace": ("pyIsSpace", 0)}
# a method of Python's text that JavaScript's text has under the same name with another meaning
# (`replace` there replaces the first occurrence only): refused where no class of the module
# defines one, never left to run as JavaScript's
_JS_NAMESAKES = {"replace"}
# every method of Python's texts, lists, dicts and sets: one the translation has no helper for and
# no engine class defines would be left to JavaScript, which has it under another meaning or not at
# all (a list's count() is no Array method): refused instead
# (a list's reverse() is an Array's, in place, the same)
_BUILTIN_METHODS = frozenset(m for t in (str, list, tuple, dict, set, frozenset) for m in dir(t)
                             if not m.startswith("_")) - {"reverse"}
_STR_METHODS = {"partition": "pyPartition", "rpartition": "pyRpartition", "startswith": "pyStartsWith",
                "endswith": "pyEndsWith", "split": "pySplit"}


@dataclass
class _Signature:
    """A function's parameters in call order (positional, then keyword-only) and which have defaults."""
    params: list[str]
    required: set[str]

    @classmethod
    def of(cls, fn: ast.FunctionDef, method: bool) -> "_Signature":
        a = fn.args
        positional = [p.arg for p in a.posonlyargs + a.args][1 if method else 0:]
        defaulted = {p.arg for p in (a.posonlyargs + a.args)[len(a.posonlyargs + a.args) - len(a.defaults):]}
        defaulted |= {p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None}
        params = positional + [p.arg for p in a.kwonlyargs]
        return cls(params, {p for p in params if p not in defaulted})


class CallTranslation:
    """The calls of one engine module's translation (a part of py2es._Module)."""


    def _keywords(self, call: ast.Call, allowed: set) -> dict:
        out = {}
        for k in call.keywords:
            if k.arg is None or k.arg not in allowed:
                self.refuse(call, f"the keyword {k.arg or '**'} here")
            out[k.arg] = self.expr(k.value)
        return out

    def _arg(self, a, any_order: bool = False) -> str:
        if isinstance(a, ast.Starred):
            self.refuse(a, "a starred argument")
        if any_order and isinstance(a, (ast.ListComp, ast.GeneratorExp)):
            return self.expr_ListComp(a, any_order=True)
        return jsops.bare(self.expr(a))

    def expr_Call(self, e) -> str:
        f = ast.unparse(e.func)
        if self._is_type_of(e.func):
            # type(x)(...): a new instance of x's own class (a subclass's, where x is one)
            if e.keywords:
                self.refuse(e, "keywords in a call of type(x)")
            return f"new ({self.expr(e.func.args[0])}.constructor)({', '.join(self._arg(a) for a in e.args)})"
        if isinstance(e.func, ast.Name) and self.is_local(e.func.id):
            if e.keywords:
                self.refuse(e, "keywords in a call of a local function")
            return f"{self.name(e.func)}({', '.join(self._arg(a) for a in e.args)})"
        if isinstance(e.func, ast.Name) and (f in self.functions or f in self.classes):
            return self._module_call(e, f)
        if isinstance(e.func, ast.Name) and f in self.host:
            return self._imported_call(e, f)
        if isinstance(e.func, ast.Name):
            return self._builtin(e, f)
        if f in _CALLS:
            self._keywords(e, set())
            return f"{_CALLS[f]}({', '.join(self._arg(a) for a in e.args)})"
        if isinstance(e.func, ast.Attribute):
            return self._method_call(e)
        self.refuse(e, f"a call of {f}")

    def _is_type_of(self, func) -> bool:
        """FUNC is `type(x)`, the built-in (not a name of the module's or a local's)."""
        return (isinstance(func, ast.Call) and ast.unparse(func.func) == "type" and len(func.args) == 1
                and not func.keywords and "type" not in self._own_names() and not self.is_local("type"))

    def _imported_call(self, e: ast.Call, f: str) -> str:
        """A call of a name another module gives: another engine module's (keywords placed by its
        parameters) or the hand-written runtime's (positional only)."""
        made = "new " if f in self.host_classes else ""
        source = self.imported_signature_source(f)
        if e.keywords and source is not None:
            fn, method = source
            sig = _Signature.of(fn, method) if fn else _Signature([], set())
            return f"{made}{self.host[f]}({self._ordered(e, sig)})"
        if e.keywords:
            self.refuse(e, f"keywords in a call of {f} (the runtime's)")
        return f"{made}{self.host[f]}({', '.join(self._arg(a) for a in e.args)})"

    def _module_call(self, e: ast.Call, f: str) -> str:
        if f in self.classes:
            init = self.init_of(self.classes[f])
            sig = _Signature.of(init, True) if init else _Signature([], set())
            return f"new {self.global_name(f)}({self._ordered(e, sig)})"
        return f"{self.global_name(f)}({self._ordered(e, _Signature.of(self.functions[f], False))})"

    def _ordered(self, e: ast.Call, sig: _Signature) -> str:
        """The arguments of a call in the callee's parameter order (keywords placed by name; a
        parameter left out is `undefined`, so its default applies)."""
        if len(e.args) > len(sig.params):
            self.refuse(e, "more arguments than parameters")
        values = [self._arg(a) for a in e.args] + [None] * (len(sig.params) - len(e.args))
        for k in e.keywords:
            if k.arg is None or k.arg not in sig.params or values[sig.params.index(k.arg)] is not None:
                self.refuse(e, f"the keyword {k.arg or '**'}")
            values[sig.params.index(k.arg)] = jsops.bare(self.expr(k.value))
        for p, v in zip(sig.params, values):
            if v is None and p in sig.required:
                self.refuse(e, f"a call without {p}")
        while values and values[-1] is None:
            values.pop()
        return ", ".join("undefined" if v is None else v for v in values)

    def _builtin(self, e: ast.Call, f: str) -> str:
        """A built-in's call: one helper of _CALLS (its arguments positional), else the form of
        _BUILTIN_FORMS that writes it; a form that does not fit (None) is refused."""
        form = _BUILTIN_FORMS.get(f)
        text = getattr(self, form)(e, f) if form else None
        if text is None and f in _CALLS:
            self._keywords(e, set())
            text = f"{_CALLS[f]}({', '.join(self._arg(a, f in _ANY_ORDER) for a in e.args)})"
        if text is None:
            self.refuse(e, f"the built-in {f}()")
        return text

    def _float_of_infinity(self, e: ast.Call, f: str) -> str | None:
        args = e.args
        if len(args) == 1 and isinstance(args[0], ast.Constant) and args[0].value in ("inf", "-inf"):
            return "pf(Infinity)" if args[0].value == "inf" else "pf(-Infinity)"
        return None

    def _any_all(self, e: ast.Call, f: str) -> str | None:
        if len(e.args) != 1 or e.keywords:
            return None
        if isinstance(e.args[0], ast.GeneratorExp):
            return self._early(e.args[0], f == "any")
        return f"{_HELPERS[f]}({self._arg(e.args[0], True)})"

    def _sum_call(self, e: ast.Call, f: str) -> str | None:
        args = e.args
        if e.keywords or not 1 <= len(args) <= 2:
            return None
        if len(args) == 1 and isinstance(args[0], ast.GeneratorExp):
            return self._sum(args[0])
        return f"pySum({', '.join(self._arg(a, True) for a in args)})"

    def _sorted_call(self, e: ast.Call, f: str) -> str | None:
        if len(e.args) != 1:
            return None
        kw = self._keywords(e, {"key", "reverse"})
        return f"pySorted({self._arg(e.args[0], 'key' not in kw)}, {kw.get('key', 'null')}, " \
               f"{kw.get('reverse', 'false')})"

    def _min_max(self, e: ast.Call, f: str) -> str | None:
        args = e.args
        if not args:
            return None
        kw = self._keywords(e, {"key", "default"})
        if len(args) == 2 and not kw:
            return f"{jsops.MATH_CALLS[f]}({self._arg(args[0])}, {self._arg(args[1])})"
        if len(args) > 1 and "default" in kw:
            self.refuse(e, f"{f}() of several values with a default")
        if len(args) > 1:
            items = ", ".join(self._arg(a) for a in args)
            return f"{_HELPERS[f]}([{items}], {kw.get('key', 'null')})"
        listed = self._arg(args[0], "key" not in kw)
        return f"{_HELPERS[f]}([{listed}], {kw.get('key', 'null')}, {kw.get('default', 'undefined')})"

    def _container(self, e: ast.Call, f: str) -> str | None:
        """tuple(), list(), set(), frozenset() and dict() of nothing or of one iterable."""
        if len(e.args) > 1 or e.keywords:
            return None
        empty, of = _CONTAINERS[f]
        return of.format(self._arg(e.args[0], f in _ANY_ORDER)) if e.args else empty

    def _getattr(self, e: ast.Call, f: str) -> str | None:
        """getattr(x, "NAME", default): a module's optional table."""
        args = e.args
        if e.keywords or len(args) != 3 or not (isinstance(args[1], ast.Constant) and isinstance(args[1].value, str)) \
                or not args[1].value.isidentifier() or args[1].value in NO_ATTRIBUTES or args[1].value.startswith("__"):
            return None
        return f"pyGetattr({self.expr(args[0])}, {self.expr(args[1])}, {self.expr(args[2])})"

    def _isinstance(self, e: ast.Call, f: str) -> str | None:
        args = e.args
        if len(args) != 2 or e.keywords:
            return None
        kinds = args[1].elts if isinstance(args[1], ast.Tuple) else [args[1]]
        value = self.expr(args[0])
        tests = []
        for k in kinds:
            name = ast.unparse(k)
            if name not in _TYPES:
                self.refuse(e, f"isinstance of {name}")
            tests.append(_TYPES[name].format(value))
        return "(" + " || ".join(dict.fromkeys(tests)) + ")"

    def _method_call(self, e: ast.Call) -> str:
        func, m = e.func, e.func.attr
        self._check_receiver(e)
        if m in ("append", "sort"):
            self.refuse(e, f"the value of {m}() (None): call it as a statement")
        list_form = self._list_method(e)
        if list_form is not None:
            return list_form
        target = self.expr(func.value)
        if m == "copy" and not e.args and not e.keywords:  # a list's is an Array's slice()
            return f"pyCopyOf({target})"
        if m in DICT_SET_METHODS:
            self._keywords(e, set())
            any_order = m in ("union", "update")
            return f"{target}.{m}({', '.join(self._arg(a, any_order) for a in e.args)})"
        if m.startswith("__") or m in NO_ATTRIBUTES:
            self.refuse(e, f"the method {m}")
        if m in _JS_NAMESAKES and not self._defines_method(m):
            self.refuse(e, f"{m}() (JavaScript's text method of that name means another thing)")
        if m in _BUILTIN_METHODS and not self.engine_method(m):
            self.refuse(e, f"{m}() of a text, list, dict or set (the runtime has no translation of it)")
        if e.keywords:
            return f"{target}.{m}({self._ordered(e, _Signature.of(self._only_method(e, m), True))})"
        return f"{target}.{m}({', '.join(self._arg(a) for a in e.args)})"

    def _check_receiver(self, e: ast.Call) -> None:
        """A method of super() or of an imported module is no method of the subset."""
        func = e.func
        if ast.unparse(func.value) == "super()":
            self.refuse(e, "super() other than a dict subclass's first super().__init__()")
        if isinstance(func.value, ast.Name) and func.value.id in self.imported and not self.is_local(func.value.id):
            self.refuse(e, f"{ast.unparse(func)}() (not a function of the subset)")

    def _list_method(self, e: ast.Call) -> str | None:
        """A list's extend(), a list's or tuple's index() (where no class of the module has an
        index()), or a text's join() (where none has a join(): no list, dict or set has one)."""
        m = e.func.attr
        if m == "join" and len(e.args) == 1 and not e.keywords and not self._defines_method("join"):
            return f"pyJoin({self.expr(e.func.value)}, {self._arg(e.args[0])})"
        if m == "extend":
            return f"pyExtend({self.expr(e.func.value)}, {self._arg(e.args[0])})"
        if m == "index" and len(e.args) == 1 and not e.keywords and not self._defines_method("index"):
            return f"pyIndexOf({self.expr(e.func.value)}, {self._arg(e.args[0])})"
        return self._text_method(e, m)

    def _text_method(self, e: ast.Call, m: str) -> str | None:
        """A text's split() at white space, one of its methods of one argument (_STR_METHODS), or a
        method any value has (_ANY_METHODS), where no class of the module defines a method so named."""
        if e.keywords or self._defines_method(m):
            return None
        if m == "split" and not e.args:
            return f"pySplitSpace({self.expr(e.func.value)})"
        if m in _STR_METHODS and len(e.args) == 1:
            return f"{_STR_METHODS[m]}({self.expr(e.func.value)}, {self._arg(e.args[0])})"
        if m in _ANY_METHODS and len(e.args) <= _ANY_METHODS[m][1]:
            args = "".join(f", {self._arg(a)}" for a in e.args)
            return f"{_ANY_METHODS[m][0]}({self.expr(e.func.value)}{args})"
        return None

    def _only_method(self, e: ast.Call, m: str) -> ast.FunctionDef:
        """The one method named M among the module's classes (a call with keywords needs its parameters)."""
        defs = [d for c in self.classes.values() for d in c.body if isinstance(d, ast.FunctionDef) and d.name == m]
        if len(defs) != 1:
            self.refuse(e, f"keywords in a call of {m}, a method of no single class of the module")
        return defs[0]

    def _defines_method(self, name: str) -> bool:
        return any(isinstance(d, ast.FunctionDef) and d.name == name for c in self.classes.values() for d in c.body)

