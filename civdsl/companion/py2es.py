"""The engines' JavaScript: a declared subset of Python translated to ES2017, so that an engine is
written once (in Python) and the companion page runs the same steps (docs/engine-route.md).

`engine_source()` is the JavaScript of every module of ENGINE_MODULES, each name prefixed by its
module's prefix (`plan.search.search` is `ps_search`); the page's build joins it to the runtime
files (jsgen.engine_parts). `translate_source(text, module, prefix)` translates one module's text.

Exact by construction: every operator is written through the runtime's operator table
(`jsops.BINARY`, the one the rules use), and every built-in through one helper of
runtime/pylib.js whose meaning is Python's (dict and set order, tuple order, stable sorting both
ways, `/` and `//`, whole numbers checked below 2^53). What is outside the subset is refused with
the module, the line and the construct (`Refused`), never translated approximately; the rules of
the subset are in docs/engine-route.md and tests/test_engine_subset.py checks every engine
module against them. Text reaches the output only through `escape.js_string`.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
from dataclasses import dataclass, field
from importlib import resources

from . import jsops, pynumbers, pyscopes
from .pymodules import ENGINE_MODULES, LEDGER_MODULES, LIBRARY_MODULES, class_nodes_of, classes_of, defined_in
from .pymodules import engine_method_names, function_nodes_of, init_in, module_text, parsed
from .pycalls import DICT_SET_METHODS, NO_ATTRIBUTES, CallTranslation
from .pystatements import BINARY as _BINARY, StatementTranslation, is_super_init as _is_super_init
from ..escape import js_string

# Names an engine module may import from a civdsl module that is not an engine module: the page's
# hand-written runtime's name for each (the value model and its host). A module added to
# ENGINE_MODULES takes precedence: its names become the generated ones.
HOST_NAMES = {"civdsl.unknown": {"Unknown": "Unknown", "number": "number", "unknown_of": "unknownOf",
                                 "sum_if_known": "sumIfKnown"},
              "civdsl.errors": {"StateError": "UserError"},
              "civdsl.runtime": {"lookup": "lookup"},
              # a calamity resolved for one role of a player state by the edition's compiled
              # calamity function (the page's: the rules' JavaScript, resolve.js's `resolution`
              # read with runtime.Resolution's names)
              "civdsl.sourcemap": {"resolve": "calamityResolution"}}
# Names of the language's vocabulary an engine module may import as data: the names each declares
# (a mapping's keys, a tuple's items), written into the engines' part of the script as constants
# by `engine_source`, with each text an escaped literal. The game ledger reads them (which facts a
# player may give, which are derived, which relations a border has).
HOST_DATA = {"civdsl.vocabulary": {"FACTS": "VOCABULARY_FACTS", "DERIVED_NAMES": "VOCABULARY_DERIVED_NAMES",
                                   "TRANSFER_KINDS": "VOCABULARY_TRANSFER_KINDS"},
             "civdsl.table.tablefile": {"RELATIONS": "TABLE_RELATIONS"}}
# Mappings of names to names the vocabulary declares, written whole (a dict of escaped texts): the
# fact each fact relation compares (`same_block` -> `block`).
HOST_MAPPINGS = {"civdsl.vocabulary": {"FACT_RELATIONS": "VOCABULARY_FACT_RELATIONS"}}
for _table in (HOST_DATA, HOST_MAPPINGS):
    for _module, _names in _table.items():
        HOST_NAMES.setdefault(_module, {}).update(_names)
# the hand-written runtime's classes among HOST_NAMES (constructed with `new`; `raise`d and caught)
_HOST_CLASSES = {"Unknown", "UserError"}
# Python's exceptions an engine may catch: the runtime raises each as a RuleError of that kind (a
# table without a band for a value: runtime.lookup's message in both)
BUILTIN_EXCEPTIONS = frozenset({"ValueError"})

# the first line of the engines' part of the script
GENERATED_MARK = "// ---- the engines, translated from Python by civdsl/companion/py2es.py"

# What an engine module may import, by module: the names it may take from it (None: the module itself).
_IMPORTS = {"__future__": {"annotations"}, "functools": None, "heapq": None, "math": None, "copy": None, "unicodedata": None,
            "itertools": {"chain", "combinations"}, "typing": {"Any", "Callable", "Iterable"},
            "fractions": {"Fraction"}}

# Python's `/` is not the rules' exact division (core.js `div`): two ints give a float
_BITS = {ast.BitOr: "pyBitOr", ast.BitAnd: "pyBitAnd", ast.LShift: "pyShl", ast.RShift: "pyShr",
         ast.Div: "truediv", ast.Mod: "pyMod"}
_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_INT_COMPARE = {"==": "===", "!=": "!=="}
_BOOL_CALLS = {"isinstance", "any", "all", "bool"}
_JS_RESERVED = set("""break case catch class const continue debugger default delete do else enum export extends
false finally for function if import in instanceof new null return super switch this throw true try typeof var
void while with yield let static implements interface package private protected public await arguments eval
undefined NaN Infinity Object Array Map Set Math Number String JSON Symbol Error""".split())


class Refused(Exception):
    """A construct outside the subset: where it is and what it is."""

    def __init__(self, module: str, line: int, construct: str):
        super().__init__(f"{module}:{line}: {construct} is outside the engine subset")
        self.module, self.line, self.construct = module, line, construct


@functools.cache
def _runtime_names() -> frozenset:
    """The names the runtime files declare at their top level: a Python local of the same name is
    renamed, so it can never hide a helper the translation calls."""
    names = set()
    for path in resources.files("civdsl.companion").joinpath("runtime").iterdir():
        if path.name.endswith(".js"):
            names.update(re.findall(r"^(?:function\*?|class|const|let)\s+([A-Za-z_$][\w$]*)",
                                    path.read_text(encoding="utf-8"), re.M))
    return frozenset(names)


@dataclass
class _Scope:
    """One function's names: its locals (declared once at its top: Python's scope is the
    function), those declared `int`, and whether it is a method (`self`)."""
    names: set[str]
    ints: set[str] = field(default_factory=set)
    numbers: set[str] = field(default_factory=set)  # locals that only ever hold a number
    cls: ast.ClassDef | None = None
    short: dict[str, str] = field(default_factory=dict)  # name -> its short name, for the page


class _Module(StatementTranslation, CallTranslation):
    """One engine module's translation."""

    def __init__(self, source: str, module: str, prefix: str, short: bool = False, qualified: str | None = None):
        self.module, self.prefix, self.short = module, prefix, short
        self.package = qualified.rsplit(".", 1)[0] if qualified else None
        self.fresh: list[str] = []
        self.tree = parsed(source)
        self.functions: dict[str, ast.FunctionDef] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.imported: dict[str, str] = {}  # local name -> "module" or "module.name"
        self.host: dict[str, str] = {}  # a name imported from another civdsl module -> its JavaScript name
        self.host_classes: set[str] = set()  # those of them that are classes
        self.engine_imports: dict[str, str] = {}  # a name imported from an engine module -> that module
        self.constants: dict[str, ast.expr] = {}
        self.out: list[str] = []
        self.depth = 0
        self.scopes: list[_Scope] = []
        self.temps = 0
        self._handling: list[str] = []  # the exceptions the enclosing except clauses caught, innermost last

    # -- the whole module --------------------------------------------------------------------------

    def refuse(self, node, construct: str):
        raise Refused(self.module, getattr(node, "lineno", 0), construct)

    def translate(self) -> str:
        body = self._body_without_docstring(self.tree.body)
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self._import(node)
            elif isinstance(node, ast.FunctionDef):
                self.functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
            elif self._is_constant_definition(node):
                self.constants[node.targets[0].id] = node.value
            else:
                self.refuse(node, f"module-level {type(node).__name__} (an engine module holds functions, classes "
                                  "and constants of tuples, text, numbers and the runtime's values)")
        for node in body:
            if isinstance(node, ast.ClassDef):
                self._class(node)
        for name, value in self.constants.items():
            self.line(f"const {self.global_name(name)} = {self.expr(value)};")
        for node in body:
            if isinstance(node, ast.FunctionDef):
                self.fresh = list(_short_names()) if self.short else []
                self._function(node, self.global_name(node.name))
        return "\n".join(self.out) + "\n"

    def _is_constant_definition(self, node) -> bool:
        """NAME = a value no engine can change: constants, tuples of them, and the runtime's values
        made of them (`Unknown(("ast_position",))`); no list, dict or set."""
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            return False
        for n in ast.walk(node.value):
            if isinstance(n, ast.Call):
                if not (isinstance(n.func, ast.Name) and n.func.id in self.host_classes and not n.keywords):
                    return False
            elif not isinstance(n, (ast.Constant, ast.Tuple, ast.Load, ast.Name, ast.UnaryOp, ast.USub)):
                return False
        return True

    @staticmethod
    def _body_without_docstring(body: list) -> list:
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            return body[1:]
        return body

    def _import(self, node) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name not in _IMPORTS or _IMPORTS[alias.name] is not None or alias.asname:
                    self.refuse(node, f"import of {alias.name}")
                self.imported[alias.name] = alias.name
            return
        if node.level and self.package is not None and node.module and node.level <= self.package.count(".") + 1:
            package = self.package.rsplit(".", node.level - 1)[0] if node.level > 1 else self.package
            self._import_civdsl(node, f"{package}.{node.module}")
            return
        if node.level or node.module not in _IMPORTS or _IMPORTS[node.module] is None:
            self.refuse(node, f"import from {'.' * node.level}{node.module or ''}")
        for alias in node.names:
            if alias.name not in _IMPORTS[node.module] or alias.asname:
                self.refuse(node, f"import of {node.module}.{alias.name}")
            self.imported[alias.name] = f"{node.module}.{alias.name}"

    def _import_civdsl(self, node: ast.ImportFrom, qualified: str) -> None:
        """Names from another civdsl module: an engine module's generated ones (also where another
        module re-exports them: `runtime.PlayerState` is playerstate's), else the hand-written
        runtime's (HOST_NAMES)."""
        for alias in node.names:
            if alias.asname:
                self.refuse(node, f"import of {qualified}.{alias.name} under another name")
            home = defined_in(qualified, alias.name)
            if home in ENGINE_MODULES:
                classes = classes_of(home)
                js = f"{ENGINE_MODULES[home]}_{alias.name}"
                self.engine_imports[alias.name] = home
            elif alias.name in HOST_NAMES.get(qualified, {}):
                js = HOST_NAMES[qualified][alias.name]
                classes = {alias.name} if js in _HOST_CLASSES else set()
            else:
                self.refuse(node, f"import of {qualified}.{alias.name} (neither an engine module's nor the runtime's)")
            self.host[alias.name] = js
            if qualified in ENGINE_MODULES:
                self.engine_imports[alias.name] = qualified
            if alias.name in classes:
                self.host_classes.add(alias.name)

    def _engine_base(self, node: ast.ClassDef) -> ast.ClassDef | None:
        """The class of another engine module NODE is based on (it inherits its __init__ and
        methods), or None."""
        if len(node.bases) != 1 or not isinstance(node.bases[0], ast.Name):
            return None
        base = self._imported_class(node.bases[0].id)
        if base is None or [ast.unparse(b) for b in base.bases] not in ([],):
            return None
        return base

    def init_of(self, cls: ast.ClassDef) -> ast.FunctionDef | None:
        """The __init__ a class is made with: its own, or the one of the engine class it is based on."""
        own = next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None)
        if own is None and self._engine_base(cls) is not None:
            return self.init_of(self._engine_base(cls))
        return own

    def _imported_class(self, name: str) -> ast.ClassDef | None:
        """The class another engine module defines, imported under NAME (None: not one)."""
        qualified = self.engine_imports.get(name)
        return class_nodes_of(qualified).get(name) if qualified else None

    def imported_signature_source(self, name: str) -> tuple[ast.FunctionDef | None, bool] | None:
        """What gives the parameters of a call of a name imported from another engine module: its
        function, or its class's __init__ (None: a class without one), and whether that is a method;
        None where the name is not one of another engine module's."""
        qualified = self.engine_imports.get(name)
        if qualified is None:
            return None
        cls = class_nodes_of(qualified).get(name)
        if cls is not None:
            return init_in(qualified, cls), True
        fn = function_nodes_of(qualified).get(name)
        return (fn, False) if fn is not None else None

    def engine_method(self, name: str) -> bool:
        """Whether a class of the engine modules, of this module or of the runtime (its dicts and
        sets) has a method NAME."""
        return name in _method_names() or self._defines_method(name)

    def global_name(self, name: str) -> str:
        return f"{self.prefix}_{name}"

    def line(self, text: str) -> None:
        self.out.append("  " * self.depth + text)

    def temp(self) -> str:
        self.temps += 1
        return f"${self.temps}"

    # -- classes and functions --------------------------------------------------------------------

    def _class(self, node: ast.ClassDef) -> None:
        if node.decorator_list or node.keywords:
            self.refuse(node, "a decorated class or class keywords")
        bases = [ast.unparse(b) for b in node.bases]
        if self._exception_base(node) is not None:
            self._exception_class(node)
            return
        base = self._engine_base(node)
        if bases not in ([], ["dict"]) and base is None:
            self.refuse(node, f"a class based on {', '.join(bases)} (only dict, for __missing__, Exception, or "
                              "a class of another engine module)")
        self.line(f"// {self.module}:{node.lineno} {node.name}")
        extends = f" extends {self.host[base.name]}" if base is not None else " extends PyDict" if bases else ""
        self.line(f"class {self.global_name(node.name)}{extends} {{")
        self.depth += 1
        constants = []
        for item in self._body_without_docstring(node.body):
            if isinstance(item, ast.Assign) and [ast.unparse(t) for t in item.targets] == ["__slots__"]:
                continue  # the fields are the constructor's assignments
            if self._is_constant_definition(item):
                constants.append(item)
                continue
            if not isinstance(item, ast.FunctionDef):
                self.refuse(item, f"a class-level {type(item).__name__}")
            self._method(node, item, bool(bases))
        self.depth -= 1
        self.line("}")
        # a class constant is read through an instance (`self.limit`), which an assignment to the
        # instance would shadow, as Python's class attribute is: the prototype's property
        for item in constants:
            name = item.targets[0].id
            if name in NO_ATTRIBUTES or name.startswith("__"):
                self.refuse(item, f"the class constant {name}")
            self.line(f"{self.global_name(node.name)}.prototype.{name} = {self.expr(item.value)};")

    def _exception_base(self, node: ast.ClassDef) -> str | None:
        """The JavaScript class an exception class of the module extends: Error (based on
        Exception), the runtime's (based on one of HOST_NAMES' classes, `StateError`) or the
        module's own exception it is based on; None: not an exception class."""
        bases = [ast.unparse(b) for b in node.bases]
        if bases == ["Exception"]:
            return "Error"
        if len(bases) != 1:
            return None
        if bases[0] in self.host_classes and self.host[bases[0]] == "UserError":
            return "UserError"
        own = self.classes.get(bases[0])
        if own is not None and own is not node and self._exception_base(own) is not None:
            return self.global_name(bases[0])
        return None

    def _exception_class(self, node: ast.ClassDef) -> None:
        """An exception of the module, raised and caught by class: made with its message only, or
        by an `__init__` that passes its message to `super().__init__` first (or, based on an
        exception of the module with fields, that exception's parameters) and then keeps its fields
        (a JavaScript class extending Error, whose message `str()` gives)."""
        body = [item for item in self._body_without_docstring(node.body) if not isinstance(item, ast.Pass)]
        base = self._exception_base(node)
        self.line(f"// {self.module}:{node.lineno} {node.name}")
        if not body:
            self.line(f"class {self.global_name(node.name)} extends {base} {{}}")
            return
        init = body[0]
        any_arguments = base not in ("Error", "UserError")
        if len(body) != 1 or not isinstance(init, ast.FunctionDef) or init.name != "__init__" \
                or not _calls_super_with_message(init, any_arguments):
            self.refuse(node, "an exception class with a body other than an __init__ that starts with "
                              "super().__init__(message)")
        self.line(f"class {self.global_name(node.name)} extends {base} {{")
        self.depth += 1
        self._exception_init = True
        self._method(node, init, False)
        self._exception_init = False
        self.depth -= 1
        self.line("}")

    def _exception(self, node) -> str:
        """The JavaScript class of an exception a `raise` or `except` names: the module's or the runtime's."""
        name = ast.unparse(node)
        if name in self.classes and self._exception_base(self.classes[name]) is not None:
            return self.global_name(name)
        if name in self.host_classes:
            return self.host[name]
        self.refuse(node, f"the exception {name} (neither the module's nor the runtime's)")

    def _builtin_exception(self, node) -> str | None:
        """The kind of the RuleError the page raises for Python's exception NODE names, or None."""
        name = ast.unparse(node)
        if name in BUILTIN_EXCEPTIONS and not self.is_local(name) and name not in self._own_names():
            return js_string(name)
        return None

    def _caught(self, node, caught: str) -> str:
        """Whether the exception CAUGHT is of the class an `except` names: Python's own (a RuleError
        of that kind in the page), the module's or the runtime's."""
        kind = self._builtin_exception(node)
        if kind is not None:
            return f"{caught} instanceof RuleError && {caught}.kind === {kind}"
        return f"{caught} instanceof {self._exception(node)}"

    def _method(self, cls: ast.ClassDef, fn: ast.FunctionDef, dict_based: bool) -> None:
        decorators = [ast.unparse(d) for d in fn.decorator_list]
        static = decorators == ["staticmethod"]
        # a property is read-only in both targets: a JavaScript getter
        getter = decorators == ["property"] and len(fn.args.args) == 1 and not pyscopes.is_generator(fn)
        if fn.decorator_list and not (static or getter):
            self.refuse(fn, "a decorator other than @staticmethod or @property (of self alone)")
        if fn.name.startswith("__") and fn.name not in ("__init__", "__missing__"):
            self.refuse(fn, f"the special method {fn.name}")
        name = "constructor" if fn.name == "__init__" else fn.name
        body = self._body_without_docstring(fn.body)
        # `self` is `this` (arrow functions keep it) unless a function nested in the method needs its own
        nested = any(isinstance(n, ast.FunctionDef) for n in pyscopes.own_nodes(fn.body) if n is not fn)
        prologue = ["const self = this;"] if not static and nested else []
        if dict_based and fn.name == "__init__":
            if not body or ast.unparse(body[0]) != "super().__init__()":
                self.refuse(fn, "a dict subclass whose __init__ does not start with super().__init__()")
            body = body[1:]
            prologue.insert(0, "super();")
        self._self_is_this = not nested
        self.fresh = list(_short_names()) if self.short else []
        self._function(fn, name, method=not static, cls=cls, prologue=prologue, body=body,
                       keyword="get" if getter else "")
        self._self_is_this = False

    def _function(self, fn: ast.FunctionDef, name: str, method: bool = False, cls=None, prologue=(), body=None,
                  keyword: str = "function") -> None:
        if fn.args.vararg or fn.args.kwarg:
            self.refuse(fn, "*args or **kwargs")
        if fn.decorator_list and keyword == "function":
            self.refuse(fn, "a decorated function")
        params, defaults = self._parameters(fn.args, method)
        body = self._body_without_docstring(fn.body) if body is None else body
        scope, assigned = self._function_scope(params, body, method, cls)
        self.scopes.append(scope)
        texts = [self.js_name(p.arg) + ("" if d is None else f" = {self._default(d)}") for p, d in zip(params, defaults)]
        star = "*" if pyscopes.is_generator(fn) else ""
        head = f"{keyword}{star} {name}" if keyword else f"{star}{name}"
        if keyword == "function":
            self.line(f"// {self.module}:{fn.lineno} {fn.name}")
        self.line(f"{head}({', '.join(texts)}) {{")
        self.depth += 1
        for text in prologue:
            self.line(text)
        if assigned:
            self.line(f"let {', '.join(self.js_name(n) for n in assigned)};")
        self._function_body(body, pyscopes.is_generator(fn), returns=name != "constructor")
        self.scopes.pop()
        self.depth -= 1
        self.line("}")

    @staticmethod
    def _parameters(a: ast.arguments, method: bool) -> tuple[list, list]:
        """The parameters in call order (a method's without `self`) and each one's default or None."""
        params = (a.posonlyargs + a.args)[1 if method else 0:] + a.kwonlyargs
        defaults = [None] * (len(a.posonlyargs + a.args) - len(a.defaults)) + list(a.defaults)
        return params, defaults[1 if method else 0:] + list(a.kw_defaults)

    def _function_scope(self, params: list, body: list, method: bool, cls) -> tuple[_Scope, list[str]]:
        """The function's scope (its parameters, the names it assigns and the functions it defines)
        and the assigned names, declared at its top."""
        scope = _Scope(set(), cls=cls)
        self.declare(scope, [p.arg for p in params] + (["self"] if method else []))
        scope.ints = {p.arg for p in params if pyscopes.is_int_annotation(p.annotation)}
        assigned = sorted(pyscopes.assigned_names(body) - scope.names - pyscopes.nested_defs(body))
        self.declare(scope, assigned + sorted(pyscopes.nested_defs(body)))
        scope.ints |= pyscopes.int_declared(body)
        scope.numbers = pynumbers.number_locals(body, {p.arg for p in params}, scope.ints, self._own_names())
        return scope, assigned

    def _own_names(self) -> set:
        """The module's own functions and classes: one of a built-in's name is not the built-in."""
        return set(self.functions) | set(self.classes)

    def _function_body(self, body: list, generator: bool, returns: bool) -> None:
        outer, self._in_generator = self._in_generator, generator
        self.block(body)
        if returns and not generator and not (body and isinstance(body[-1], (ast.Return, ast.Raise))):
            self.line("return null;")  # Python's None, where the body ends without a return
        self._in_generator = outer

    def _default(self, node) -> str:
        empty_tuple = isinstance(node, ast.Tuple) and not node.elts  # a new array per call in JavaScript
        if not (isinstance(node, ast.Constant) or empty_tuple):
            self.refuse(node, "a default that is not a constant")
        return self.expr(node)

    # -- names ------------------------------------------------------------------------------------

    def declare(self, scope: _Scope, names) -> None:
        """NAMES are locals of SCOPE; for the page each gets a short name no other name of the
        function has (so no inner name hides an outer one it reads)."""
        for n in names:
            if n not in scope.names:
                scope.names.add(n)
                if self.short and n != "self":
                    scope.short[n] = self.fresh.pop(0)

    def js_name(self, name: str) -> str:
        """A local's JavaScript name: its own unless JavaScript reserves it or the runtime declares it
        (or, for the page, its short name)."""
        for scope in reversed(self.scopes):
            if name in scope.names:
                if name in scope.short:
                    return scope.short[name]
                break
        return f"{name}_" if name in _JS_RESERVED or name in _runtime_names() else name

    def is_local(self, name: str) -> bool:
        return any(name in s.names for s in self.scopes)

    def name(self, node: ast.Name) -> str:
        n = node.id
        if n == "self" and self.scopes and self.scopes[-1].cls is not None and self._self_is_this:
            return "this"
        if self.is_local(n):
            return self.js_name(n)
        if n in self.functions or n in self.classes or n in self.constants:
            return self.global_name(n)
        if n in self.host:
            return self.host[n]
        self.refuse(node, f"the name {n} (neither a local nor a function, class or constant of the module)")

    # -- expressions ------------------------------------------------------------------------------

    def expr(self, e) -> str:
        handler = getattr(self, f"expr_{type(e).__name__}", None)
        if handler is None:
            self.refuse(e, f"the expression {type(e).__name__}")
        return handler(e)

    def test(self, e) -> str:
        """E as a JavaScript condition: Python's truth of its value."""
        if isinstance(e, ast.BoolOp):
            op = " && " if isinstance(e.op, ast.And) else " || "
            # one comparison binds tighter than && and ||: its own parentheses only group
            return "(" + op.join(jsops.bare(self.test(v)) if isinstance(v, ast.Compare) and len(v.ops) == 1
                                 else self.test(v) for v in e.values) + ")"
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            return f"!{self.test(e.operand)}"
        text = self.expr(e)
        return text if self.is_bool(e) else f"truthy({text})"

    def is_bool(self, e) -> bool:
        if isinstance(e, (ast.Compare,)) or (isinstance(e, ast.Constant) and isinstance(e.value, bool)):
            return True
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            return True
        if isinstance(e, ast.BoolOp):
            return all(self.is_bool(v) for v in e.values)
        if isinstance(e, ast.Call):
            f = ast.unparse(e.func)
            if f in _BOOL_CALLS:
                return True
            fn = self.functions.get(f) or self._method_def(e.func)
            return fn is not None and ast.unparse(fn.returns or ast.Constant(None)) == "bool"
        return False

    def _own_field(self, e: ast.Attribute) -> bool:
        """Whether E is `self.NAME` where the current class defines no method NAME: a field (the
        subset has no subclasses of engine classes)."""
        cls = self.scopes[-1].cls if self.scopes else None
        return cls is not None and ast.unparse(e.value) == "self" and self._method_def(e) is None

    def _method_def(self, func) -> ast.FunctionDef | None:
        """The method `self.m` names, when the current class defines it."""
        cls = self.scopes[-1].cls if self.scopes else None
        if cls is None or not isinstance(func, ast.Attribute) or ast.unparse(func.value) != "self":
            return None
        return next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == func.attr), None)

    def is_int(self, e) -> bool:
        """Whether E is surely an int: a whole-number literal, a name the source declares `int`, a
        count, or + - * // of those."""
        if isinstance(e, ast.Constant):
            return type(e.value) is int
        if isinstance(e, ast.Name):
            return any(e.id in s.ints for s in self.scopes[-1:])
        if isinstance(e, ast.Call):
            return ast.unparse(e.func) == "len"
        if isinstance(e, ast.BinOp) and type(e.op) in _BINARY:
            return self.is_int(e.left) and self.is_int(e.right)
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            return self.is_int(e.operand)
        return False

    def expr_Constant(self, e) -> str:
        v = e.value
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            if abs(v) > 2 ** 53 - 1:
                self.refuse(e, "a whole number beyond 2^53")
            return str(v)
        if isinstance(v, float):
            return f"pf({v!r})"
        if isinstance(v, str):
            return js_string(v)
        self.refuse(e, f"a constant of type {type(v).__name__}")

    def expr_Name(self, e) -> str:
        return self.name(e)

    def expr_Attribute(self, e) -> str:
        whole = ast.unparse(e)
        if whole == "math.inf":
            return "pf(Infinity)"
        if isinstance(e.value, ast.Name) and e.value.id in self.imported and not self.is_local(e.value.id):
            self.refuse(e, f"{whole} as a value")
        text = f"{self.expr(e.value)}.{self.attribute(e)}"
        method = self._method_def(e)
        if method is not None and not _is_property(method):
            return f"{text}.bind({self.expr(e.value)})"  # a bound method as a value
        if (e.attr in _method_names() or self._defines_method(e.attr)) and not self._own_field(e):
            # maybe another object's bound method as a value (`key=self.order.get`, `spent=table.spent`):
            # bound where it is one, the value itself where it is a field
            return f"pyBound({self.expr(e.value)}, {js_string(e.attr)})"
        return text

    def attribute(self, e: ast.Attribute) -> str:
        if e.attr in NO_ATTRIBUTES or e.attr.startswith("__"):
            self.refuse(e, f"the attribute {e.attr}")
        return e.attr

    def expr_Tuple(self, e) -> str:
        return "[" + ", ".join(self.expr(x) for x in e.elts) + "]"

    expr_List = expr_Tuple

    def expr_Set(self, e) -> str:
        return "pySetOf([" + ", ".join(self.expr(x) for x in e.elts) + "])"

    def expr_Dict(self, e) -> str:
        pairs = [(k, v) for k, v in zip(e.keys, e.values) if k is not None]
        spread = [v for k, v in zip(e.keys, e.values) if k is None]
        if len(spread) > 1 or (spread and e.keys[0] is not None):
            self.refuse(e, "a dict display with other than one leading **")
        text = "[" + ", ".join(f"[{self.expr(k)}, {self.expr(v)}]" for k, v in pairs) + "]"
        if spread:
            return f"pyDictWith({self.expr(spread[0])}, {text})"
        return f"pyDict({text})" if pairs else "pyDict()"  # pylib.js: pyDict of nothing is a new empty dict

    def expr_BinOp(self, e) -> str:
        op = type(e.op)
        if op is ast.Mod and (isinstance(e.left, ast.JoinedStr)
                              or isinstance(e.left, ast.Constant) and isinstance(e.left.value, str)):
            self.refuse(e, "a text formatted with % (write an f-string)")
        left, right = self.expr(e.left), self.expr(e.right)
        if op in _BINARY:
            if self.is_int(e.left) and self.is_int(e.right) and op is not ast.FloorDiv:
                return f"exact({left} {_BINARY[op]} {right})"
            return jsops.BINARY[_BINARY[op]].format(left, right)
        if op in _BITS:
            return f"{_BITS[op]}({left}, {right})"
        self.refuse(e, f"the operator {type(e.op).__name__}")

    def expr_UnaryOp(self, e) -> str:
        if isinstance(e.op, ast.Not):
            return f"!{self.test(e.operand)}"
        if isinstance(e.op, ast.USub):
            if isinstance(e.operand, ast.Constant) and type(e.operand.value) in (int, float):
                return f"({self.expr(ast.Constant(-e.operand.value, lineno=e.lineno))})"
            return f"(-{self.expr(e.operand)})" if self.is_int(e.operand) else jsops.NEG.format(self.expr(e.operand))
        self.refuse(e, f"the operator {type(e.op).__name__}")

    def expr_BoolOp(self, e) -> str:
        if all(self.is_bool(v) for v in e.values):
            return self.test(e)
        # Python's value of `a or b` is a or b itself: core.js's and_/or_ over thunks
        op = "and" if isinstance(e.op, ast.And) else "or"
        first, rest = self.expr(e.values[0]), [f"() => {self.expr(v)}" for v in e.values[1:]]
        return f"{op}_({', '.join([first] + rest)})"

    def expr_IfExp(self, e) -> str:
        return f"({self.test(e.test)} ? {self.expr(e.body)} : {self.expr(e.orelse)})"

    def expr_Compare(self, e) -> str:
        parts = []
        left = e.left
        for i, (op, right) in enumerate(zip(e.ops, e.comparators)):
            if i and not isinstance(left, (ast.Name, ast.Constant)):
                self.refuse(e, "a chained comparison with a computed middle")
            parts.append(self._compare(left, op, right))
            left = right
        return parts[0] if len(parts) == 1 else "(" + " && ".join(parts) + ")"

    def _compare(self, left, op, right) -> str:
        a, b = self.expr(left), self.expr(right)
        if isinstance(op, (ast.Is, ast.IsNot)):
            if not (isinstance(right, ast.Constant) and (right.value is None or isinstance(right.value, bool))):
                self.refuse(right, "`is` with other than None, True or False")
            return f"({a} {'===' if isinstance(op, ast.Is) else '!=='} {b})"
        if isinstance(op, (ast.In, ast.NotIn)):
            return f"{'' if isinstance(op, ast.In) else '!'}pyIn({a}, {b})"
        symbol = _COMPARE[type(op)]
        if (self.is_int(left) and self.is_int(right)) or (symbol in _INT_COMPARE and _is_text(left, right)):
            # a value equals a text only if it is that text: JavaScript's === is Python's == there
            return f"({a} {_INT_COMPARE.get(symbol, symbol)} {b})"
        return jsops.BINARY[symbol].format(a, b)

    def expr_Subscript(self, e) -> str:
        if isinstance(e.slice, ast.Slice):
            if e.slice.step is not None:
                self.refuse(e, "a slice with a step")
            lo = self.expr(e.slice.lower) if e.slice.lower is not None else "null"
            hi = self.expr(e.slice.upper) if e.slice.upper is not None else "null"
            return f"pySlice({self.expr(e.value)}, {lo}, {hi})"
        return f"pyItem({self.expr(e.value)}, {self.expr(e.slice)})"

    def expr_Lambda(self, e) -> str:
        a = e.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs:
            self.refuse(e, "a lambda with other than plain parameters")
        names = [p.arg for p in a.args]
        self.scopes.append(_Scope(set(), cls=self.scopes[-1].cls if self.scopes else None))
        self.declare(self.scopes[-1], names)
        body = self.expr(e.body)
        params = ", ".join(self.js_name(n) for n in names)
        self.scopes.pop()
        return f"(({params}) => {body})"

    # comprehensions: a loop in an arrow function called at once (its names are its own, as in Python)

    def _no_late_binding(self, e) -> None:
        """A lambda made in a comprehension that reads the comprehension's loop name sees its last
        value in Python and each turn's in JavaScript: refused."""
        looped = set()
        for gen in e.generators:
            looped |= set(pyscopes.target_names(gen.target))
        for value in pyscopes.comprehension_values(e):
            for node in ast.walk(value):
                if isinstance(node, ast.Lambda):
                    own = {a.arg for a in node.args.args}
                    if any(isinstance(n, ast.Name) and n.id in looped - own for n in ast.walk(node.body)):
                        self.refuse(node, "a lambda in a comprehension that reads the loop's name")

    def _comprehension(self, e, start: str, add: str, result: str, any_order: bool) -> str:
        self._no_late_binding(e)
        self.scopes.append(_Scope(set(), cls=self.scopes[-1].cls if self.scopes else None))
        heads = []
        for gen in e.generators:
            if gen.is_async:
                self.refuse(e, "an async comprehension")
            it = self.expr(gen.iter)  # the names of this generator are not yet bound in its iterable
            self.declare(self.scopes[-1], sorted(pyscopes.target_names(gen.target)))
            walk = "pyIterAny" if any_order else "pyIter"
            head = f"for (const {self.target(gen.target)} of {walk}({it}))"
            conds = [self.test(c) for c in gen.ifs]
            heads.append(head + (f" if ({' && '.join(conds)})" if conds else ""))
        values = [self.expr(x) for x in pyscopes.comprehension_values(e)]
        if len(e.generators) == 1:
            # one loop: pylib's pyComp (a lighter page than the loop written out)
            gen = e.generators[0]
            param = f"({self.target(gen.target)})"
            value = f"[{values[0]}, {values[1]}]" if len(values) == 2 else values[0]
            test = f", {param} => {' && '.join(self.test(c) for c in gen.ifs)}" if gen.ifs else ""
            self.scopes.pop()
            listed = f"pyComp({f'pyIterAny({it})' if any_order else it}, {param} => {value}{test})"
            return {"[]": listed, "new PySet()": f"pySetOf({listed})", "new PyDict()": f"pyDict({listed})"}[start]
        body = add.format(*values)
        self.scopes.pop()
        return f"(() => {{ const $r = {start}; {' '.join(heads)} {body}; return {result}; }})()"

    def expr_ListComp(self, e, any_order: bool = False) -> str:
        return self._comprehension(e, "[]", "$r.push({})", "$r", any_order)

    def expr_GeneratorExp(self, e, any_order: bool = False) -> str:
        # a generator expression is consumed whole by every built-in the subset passes it to but
        # any and all, which stop early (test()); walking it eagerly gives the same values in order
        return self.expr_ListComp(e, any_order)

    def expr_SetComp(self, e) -> str:
        return self._comprehension(e, "new PySet()", "$r.add({})", "$r", True)

    def expr_DictComp(self, e) -> str:
        return self._comprehension(e, "new PyDict()", "$r.setItem({}, {})", "$r", False)

    def _loop_heads(self, e) -> list[str]:
        """The loops of a generator expression consumed where its order cannot show (any, all, sum),
        in a new scope (the caller pops it)."""
        self.scopes.append(_Scope(set(), cls=self.scopes[-1].cls if self.scopes else None))
        heads = []
        for gen in e.generators:
            it = self.expr(gen.iter)
            self.declare(self.scopes[-1], sorted(pyscopes.target_names(gen.target)))
            conds = [self.test(c) for c in gen.ifs]
            heads.append(f"for (const {self.target(gen.target)} of pyIterAny({it}))"
                         + (f" if ({' && '.join(conds)})" if conds else ""))
        return heads

    def _sum(self, e: ast.GeneratorExp) -> str:
        """sum(...) of a generator expression: added up in its loop, left to right from 0."""
        heads = self._loop_heads(e)
        value = self.expr(e.elt)
        self.scopes.pop()
        return f"(() => {{ let $s = 0; {' '.join(heads)} $s = add($s, {value}); return $s; }})()"

    def _early(self, e: ast.GeneratorExp, want: bool) -> str:
        """any(...) or all(...) of a generator expression: stops at the first deciding value."""
        hit = "return true" if want else "return false"
        test = "{}" if want else "!{}"
        heads = self._loop_heads(e)
        value = self.test(e.elt)
        self.scopes.pop()
        return f"(() => {{ {' '.join(heads)} if ({test.format(value)}) {hit}; return {str(not want).lower()}; }})()"

    def expr_Yield(self, e) -> str:
        self.refuse(e, "yield inside an expression")

    def expr_JoinedStr(self, e) -> str:
        parts = []
        for v in e.values:
            if isinstance(v, ast.Constant):
                parts.append(js_string(v.value))
            elif isinstance(v, ast.FormattedValue) and v.conversion == -1 and v.format_spec is None:
                parts.append(f"pyStr({self.expr(v.value)})")
            else:
                self.refuse(e, "an f-string with a conversion or format")
        return "(" + " + ".join(parts or ['""']) + ")"


# --- the engines -------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)  # the page with the ledger and the one without share most modules
def translate_source(source: str, module: str, prefix: str, short: bool = False, qualified: str | None = None) -> str:
    """The JavaScript of one engine module's text; Refused for a construct outside the subset.
    SHORT: locals renamed to one or two letters and the commonest helpers called by their aliases
    (HELPER_ALIASES; the page's lighter copy). QUALIFIED: the module's
    dotted name, which lets it import from its package's modules (HOST_NAMES, ENGINE_MODULES)."""
    js = _Module(source, module, prefix, short, qualified).translate()
    return aliased(js) if short else js


def _is_property(fn: ast.FunctionDef) -> bool:
    return [ast.unparse(d) for d in fn.decorator_list] == ["property"]


def _calls_super_with_message(init: ast.FunctionDef, any_arguments: bool = False) -> bool:
    body = [s for s in init.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return bool(body) and isinstance(body[0], ast.Expr) and _is_super_init(body[0].value, any_arguments)


@functools.cache
def _method_names() -> frozenset:
    """The names of every method of the engine modules' classes and of the runtime's dicts and
    sets: an attribute read of one of them, not called, may be a bound method."""
    return frozenset(DICT_SET_METHODS) | {"append", "extend", "sort", "index", "pop"} | engine_method_names()


@functools.cache
def _short_names() -> tuple[str, ...]:
    """One- and two-letter names that are neither JavaScript's nor the runtime's."""
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    names = list(letters) + [a + b for a in letters for b in letters + "0123456789"]
    return tuple(n for n in names if n not in _JS_RESERVED and n not in _runtime_names())


def _is_text(*nodes) -> bool:
    """Whether one of NODES is a text literal."""
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in nodes)


def engine_name(module: str, name: str) -> str:
    """The page's name of the function or class NAME of the engine module MODULE."""
    return f"{ENGINE_MODULES[module]}_{name}"


# The page's copy calls the runtime helpers the translation writes most through these aliases
# (declared once by HELPER_ALIASES, before the engines).
SHORT_HELPERS = {"pyItem": "$I", "truthy": "$T", "pySetItem": "$S", "pyComp": "$C", "pyIter": "$L", "pyDict": "$D",
                 "pyIterAny": "$A", "pyStr": "$t", "pyLen": "$N", "pySetOf": "$O", "pyList": "$l", "pyUnpack": "$U",
                 "pyEnumerate": "$E", "pyIn": "$i", "rp_repr_of": "$R", "pySlice": "$P", "pyRange": "$g",
                 "pyFromPlain": "$F", "pyGetattr": "$G", "pySorted": "$o", "pyHash": "$H", "add": "$a", "exact": "$x",
                 "number": "$n", "pyMax": "$M", "pyItems": "$y", "pySum": "$u", "max_": "$m", "sub": "$d",
                 "mul": "$e", "and_": "$f", "neg": "$j", "or_": "$k", "min_": "$p", "pyBitOr": "$q", "pyInt": "$v",
                 "not_": "$w", "pyMod": "$z", "pyJoin": "$J", "pyFloat": "$K", "pyZip": "$Z", "pyMin": "$Q",
                 "pySort": "$B", "floordiv": "$V", "pyBound": "$b"}
HELPER_ALIASES = "const " + ", ".join(f"{alias} = {name}" for name, alias in SHORT_HELPERS.items()) + ";"
# (a call, not the declaration of a helper that is itself translated: Python's library, civdsl/pystd)
_HELPER_CALL = re.compile(r'("(?:[^"\\]|\\.)*")|(?<![\w$.])(?<!function )(' + "|".join(SHORT_HELPERS) + r")(?=\()")


def aliased(js: str) -> str:
    """JS with each call of a helper of SHORT_HELPERS written through its alias (text literals,
    which escape.js_string writes in double quotes, left as they are)."""
    return _HELPER_CALL.sub(lambda m: m.group(1) or SHORT_HELPERS[m.group(2)], js)


@functools.cache
def engine_source(short: bool = False, ledger: bool = True) -> str:
    """The JavaScript of every engine module (ENGINE_MODULES), in the table's order; SHORT: with
    short local names and helper aliases (the page's copy; Node and the tests read the long one);
    without LEDGER: without the game ledger's modules (LEDGER_MODULES)."""
    parts = [GENERATED_MARK] + ([HELPER_ALIASES] if short else [])
    if ledger:
        parts.append(host_data_source())
    for name, prefix in ENGINE_MODULES.items():
        if not ledger and name in LEDGER_MODULES:
            continue
        _, text = module_text(name)
        parts.append(f"// {name}")
        parts.append(translate_source(text, name.rsplit(".", 1)[-1] + ".py", prefix, short, name))
    return "\n".join(parts)


def library_source(ledger: bool = False) -> str:
    """The JavaScript of LIBRARY_MODULES alone, for a script that runs one translated module;
    without LEDGER: without those only the game ledger's host calls (LEDGER_MODULES)."""
    parts = []
    for name in LIBRARY_MODULES:
        if not ledger and name in LEDGER_MODULES:
            continue
        parts.append(translate_source(module_text(name)[1], name.rsplit(".", 1)[-1] + ".py", ENGINE_MODULES[name],
                                      qualified=name))
    return "\n".join(parts)


def host_data_source() -> str:
    """The constants of HOST_DATA: each a tuple (an array) of the names the vocabulary declares,
    in its order, or a set of them where it declares a mapping (the engines test membership); and
    of HOST_MAPPINGS, each a dict of the names it maps to names."""
    out = []
    for module, names in HOST_DATA.items():
        values = importlib.import_module(module)
        for name, js in names.items():
            value = getattr(values, name)
            items = ", ".join(js_string(str(v)) for v in value)
            out.append(f"const {js} = pySetOf([{items}]);" if isinstance(value, dict) else f"const {js} = [{items}];")
    for module, names in HOST_MAPPINGS.items():
        values = importlib.import_module(module)
        for name, js in names.items():
            pairs = ", ".join(f"[{js_string(str(k))}, {js_string(str(v))}]" for k, v in getattr(values, name).items())
            out.append(f"const {js} = pyDict([{pairs}]);")
    return "\n".join(out)
