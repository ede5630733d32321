"""Compiling a generated module, reusing the bytecode of the functions a build already compiled,
and compiling a function only when it is first called.

A house rule's module restates most of its base's module word for word: every calamity it does
not change is generated to the same text. compile() costs in proportion to the text, so a build
of the shipped rulebooks compiled each base's functions once for the base and once again for
every house rule on it. Here a module is compiled one top-level definition at a time, and a
definition whose text was compiled before reuses that code object, moved to its line in this
module and renamed to this module's file. The result runs exactly as the whole module compiled
at once would: the same statements, in order, in one namespace, with the same line numbers.

A check or a build runs few of a module's functions (the rulings, a page's questions), and
compiling the functions is most of compile()'s time on a module. So a top-level `def` whose
header evaluates nothing (no defaults, annotations postponed) is kept as its text: running the
module binds its name to a function that compiles that text on its first call, takes the
compiled code as its own (the same object, so every reference to it made earlier sees the real
function) and calls it. Once called it is the function the whole module would have made, with
the same code, line numbers and file. A syntax error in such a text (which the generator never
writes) is raised at that first call, located in the whole module; `compile_all` compiles every
part at once, for whoever must see every error now.

The memo holds the definitions of the last few modules compiled in this process (a build, the
language server, a test run) and nothing else; `forget()` empties it.
"""

from __future__ import annotations

import __future__
import functools
import operator
import re
from types import CodeType, FunctionType

# (text of one top-level definition, future flags) -> its code, compiled at line 1
_MEMO: dict[tuple[str, int], CodeType] = {}
_MEMO_LIMIT = 4096  # definitions; a shipped module has about 100, so several modules fit
# (text, future flags, first line, file name) -> its code placed there (code objects never change)
_PLACED: dict[tuple[str, int, int, str], CodeType] = {}


class CompiledModule:
    """The bytecode of a generated module as its parts, run in order: the code object of each
    statement, or for a function compiled on its first call a `deferred` tuple (its name, text,
    first line, file and future flags; marshal keeps both kinds, so the cache does too)."""

    __slots__ = ("parts",)

    def __init__(self, parts: tuple):
        self.parts = parts

    def run(self, namespace: dict) -> None:
        for part in self.parts:
            if type(part) is CodeType:
                exec(part, namespace)
            else:
                namespace[part[0]] = _deferred_function(part, namespace)

    def compile_all(self) -> "CompiledModule":
        """The same module with every part compiled now (a syntax error raised here)."""
        return CompiledModule(tuple(part if type(part) is CodeType else _compiled_part(part) for part in self.parts))


def forget() -> None:
    _MEMO.clear()
    _PLACED.clear()


def compile_module(source: str, filename: str, deferred: bool = True) -> CompiledModule:
    """Compile `source` (a generated module) as the file `filename`, each function whose header
    evaluates nothing on its first call unless not DEFERRED; a SyntaxError is raised for the whole
    module, with its own line numbers, exactly as compile() would raise it."""
    parts: list = []
    try:
        for first, text in _definitions(source):
            # the module's `from __future__` imports (in its first part) hold for every part
            futures = parts[0].co_flags & _FUTURE_FLAGS if parts else 0
            name = _deferrable(text, futures) if deferred and parts else None
            if name is not None:
                parts.append((name, text, first, filename, futures))
            else:
                parts.append(_compiled(text, first, filename, futures))
    except SyntaxError:
        # raises, located in the whole module; a module that compiles whole but not cut into
        # parts (a cut inside a statement) is kept whole
        return CompiledModule((compile(source, filename, "exec", dont_inherit=True),))
    return CompiledModule(tuple(parts))


def is_part(part) -> bool:
    """Whether `part` (read back from a cache) is a part of a CompiledModule."""
    if type(part) is CodeType:
        return True
    return (type(part) is tuple and len(part) == 5 and type(part[0]) is str and type(part[1]) is str
            and type(part[2]) is int and type(part[3]) is str and type(part[4]) is int
            and _deferrable(part[1], part[4]) == part[0])


# Where a part starts: a top-level `def`, or a top-level assignment to a module constant (the
# data tables: a house rule restates most of its base's word for word, as it does its functions)
_PART_START = re.compile(r"\n(?=def |[A-Z_][A-Z0-9_]* = )")
# a one-line function header that evaluates nothing when the `def` runs but its annotations:
# no default value, no decorator
_PLAIN_HEADER = re.compile(r"def ([A-Za-z_][A-Za-z0-9_]*)\([^=\n]*:\n")
# a line at column 0 that could start a statement of its own (neither blank nor a comment)
_STATEMENT_LINE = re.compile(r"\n[^\s#]")


def _definitions(source: str):
    """(number of lines before it, text) for each run of lines from one top-level `def` or
    constant's assignment (or the module's start) to the next. Generated modules write every
    function from `def` at column 0 and nothing else at column 0 inside a statement (a line
    inside brackets is indented; the module's docstring says no `NAME = `), so these are whole
    statements."""
    start, lines = 0, 0
    for cut in _PART_START.finditer(source):
        text = source[start:cut.start()]
        yield lines, text
        lines += text.count("\n") + 1
        start = cut.start() + 1
    yield lines, source[start:]


def _deferrable(text: str, futures: int) -> str | None:
    """The function's name when `text` is one `def` statement alone whose running evaluates
    nothing (so running it later changes nothing): a one-line header without defaults, its
    annotations postponed, and no later line at column 0 but blank lines and comments."""
    header = _PLAIN_HEADER.match(text)
    if header is None or not futures & _POSTPONED_ANNOTATIONS:
        return None
    return None if _STATEMENT_LINE.search(text, header.end() - 1) else header.group(1)


_FUTURE_FLAGS = functools.reduce(operator.or_, (getattr(__future__, name).compiler_flag
                                                 for name in __future__.all_feature_names))
_POSTPONED_ANNOTATIONS = __future__.annotations.compiler_flag


def _compiled(text: str, first: int, filename: str, futures: int) -> CodeType:
    placed = _PLACED.get((text, futures, first, filename))
    if placed is not None:
        return placed
    code = _MEMO.get((text, futures))
    if code is None:
        code = compile(text, filename, "exec", flags=futures, dont_inherit=True)
        if len(_MEMO) >= _MEMO_LIMIT:
            _MEMO.clear()
        _MEMO[text, futures] = code
    if first != 0 or code.co_filename != filename:
        code = _moved(code, first, filename)
    # a house rule's module starts as its base's does: its definitions up to the first it changes
    # stand on the same lines, and moving a code object again costs as much as compiling a small one
    if len(_PLACED) >= _MEMO_LIMIT:
        _PLACED.clear()
    _PLACED[text, futures, first, filename] = code
    return code


def _compiled_part(part: tuple) -> CodeType:
    """The code of a deferred function's `def`; a syntax error is located in the whole module."""
    _, text, first, filename, futures = part
    try:
        return _compiled(text, first, filename, futures)
    except SyntaxError as error:
        error.filename = filename
        if error.lineno is not None:
            error.lineno += first
        if error.end_lineno is not None:
            error.end_lineno += first
        raise


def _first_call(*args, _define_and_call=None, **kwargs):
    """The code of a deferred function until its first call (see `_deferred_function`)."""
    return _define_and_call(args, kwargs)


def _deferred_function(part: tuple, namespace: dict) -> FunctionType:
    """A function, bound in `namespace`, that compiles `part` on its first call and becomes the
    function running that `def` in `namespace` makes, then returns what that call returns."""
    name = part[0]
    function = FunctionType(_first_call.__code__, namespace, name)
    function.__qualname__ = name

    def define_and_call(args, kwargs):
        if function.__code__ is _first_call.__code__:  # not defined yet by a call before this one
            _define(function, _compiled_part(part), namespace)
        return function(*args, **kwargs)

    function.__kwdefaults__ = {"_define_and_call": define_and_call}
    return function


def _define(function: FunctionType, code: CodeType, namespace: dict) -> None:
    """Make `function` what running `code` (one `def` of its name) in `namespace` makes. The `def`
    binds its name in a dictionary of its own (the module's stays as it is), and the function it
    makes reads its globals from `namespace`, as the module's own would."""
    made_here: dict = {}
    exec(code, namespace, made_here)
    made = made_here[function.__name__]
    function.__code__ = made.__code__
    function.__defaults__ = made.__defaults__
    function.__kwdefaults__ = made.__kwdefaults__
    function.__annotations__ = made.__annotations__
    function.__doc__ = made.__doc__
    function.__dict__.update(made.__dict__)


def _moved(code: CodeType, lines: int, filename: str) -> CodeType:
    """`code` and the code it holds, `lines` further down and in the file `filename` (line numbers
    are stored relative to co_firstlineno, so moving the first line moves every line)."""
    consts = code.co_consts
    if any(type(c) is CodeType for c in consts):
        consts = tuple(_moved(c, lines, filename) if type(c) is CodeType else c for c in consts)
    return code.replace(co_firstlineno=code.co_firstlineno + lines, co_filename=filename, co_consts=consts)
