"""Compiling a generated module, reusing the bytecode of the functions a build already compiled.

A house rule's module restates most of its base's module word for word: every calamity it does
not change is generated to the same text. compile() costs in proportion to the text, so a build
of the shipped rulebooks compiled each base's functions once for the base and once again for
every house rule on it. Here a module is compiled one top-level definition at a time, and a
definition whose text was compiled before reuses that code object, moved to its line in this
module and renamed to this module's file. The result runs exactly as the whole module compiled
at once would: the same statements, in order, in one namespace, with the same line numbers.

The memo holds the definitions of the last few modules compiled in this process (a build, the
language server, a test run) and nothing else; `forget()` empties it.
"""

from __future__ import annotations

import __future__
import functools
import operator
import re
from types import CodeType

# (text of one top-level definition, future flags) -> its code, compiled at line 1
_MEMO: dict[tuple[str, int], CodeType] = {}
_MEMO_LIMIT = 4096  # definitions; a shipped module has about 100, so several modules fit
# (text, future flags, first line, file name) -> its code placed there (code objects never change)
_PLACED: dict[tuple[str, int, int, str], CodeType] = {}


class CompiledModule:
    """The bytecode of a generated module as the code objects of its parts, run in order."""

    __slots__ = ("parts",)

    def __init__(self, parts: tuple[CodeType, ...]):
        self.parts = parts

    def run(self, namespace: dict) -> None:
        for part in self.parts:
            exec(part, namespace)


def forget() -> None:
    _MEMO.clear()
    _PLACED.clear()


def compile_module(source: str, filename: str) -> CompiledModule:
    """Compile `source` (a generated module) as the file `filename`; a SyntaxError is raised for
    the whole module, with its own line numbers, exactly as compile() would raise it."""
    parts: list[CodeType] = []
    try:
        for first, text in _definitions(source):
            # the module's `from __future__` imports (in its first part) hold for every part
            futures = parts[0].co_flags & _FUTURE_FLAGS if parts else 0
            parts.append(_compiled(text, first, filename, futures))
    except SyntaxError:
        # raises, located in the whole module; a module that compiles whole but not cut into
        # parts (a cut inside a statement) is kept whole
        return CompiledModule((compile(source, filename, "exec", dont_inherit=True),))
    return CompiledModule(tuple(parts))


# Where a part starts: a top-level `def`, or a top-level assignment to a module constant (the
# data tables: a house rule restates most of its base's word for word, as it does its functions)
_PART_START = re.compile(r"\n(?=def |[A-Z_][A-Z0-9_]* = )")


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


_FUTURE_FLAGS = functools.reduce(operator.or_, (getattr(__future__, name).compiler_flag
                                                 for name in __future__.all_feature_names))


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


def _moved(code: CodeType, lines: int, filename: str) -> CodeType:
    """`code` and the code it holds, `lines` further down and in the file `filename` (line numbers
    are stored relative to co_firstlineno, so moving the first line moves every line)."""
    consts = code.co_consts
    if any(type(c) is CodeType for c in consts):
        consts = tuple(_moved(c, lines, filename) if type(c) is CodeType else c for c in consts)
    return code.replace(co_firstlineno=code.co_firstlineno + lines, co_filename=filename, co_consts=consts)
