"""A compiled rulebook module read back by its callers: where a generated line comes from (its
source map), and an error one of its rules raised re-stated at that rule's rulebook file and line
(`RulebookRuntimeError`, shown as diagnostic CIV130). Generated modules never call it; the tools
and the round rules' runtime do. It imports nothing from the compiler.
"""

from __future__ import annotations

from .errors import RulebookRuntimeError


def resolve(module, calamity: str, role: str, state):
    """A calamity resolved for one role of a player state, its rules' errors located."""
    fn = module.CALAMITY_FUNCTIONS[calamity]
    try:
        return fn(state, role)
    except (ArithmeticError, TypeError, ValueError, KeyError) as exc:
        raise located(exc, module) from exc


def source_of(module, generated_line: int) -> tuple[str, int, int, int | None] | None:
    """The rulebook file, line, column and end column of the rule whose code is at this line of
    a generated module (the last rule line at or before it), from its source map (`LINES`,
    `LINE_FILES`, `LINE_SOURCES`), or None when no rule's code comes before it."""
    found = None
    for index, (pl, rl) in enumerate(module.LINES):
        if pl > generated_line:
            break
        found = (index, rl)
    if found is None:
        return None
    index, line = found
    sources = getattr(module, "LINE_SOURCES", None)
    if sources is None:  # a module built before the map recorded files
        return module.SOURCE_PATH, line, 1, None
    file_index, column, end = source_entries(sources)[index]
    return module.LINE_FILES[file_index], line, column, end


def source_entries(sources: str) -> list[tuple[int, int, int | None]]:
    """A generated module's LINE_SOURCES, parallel to LINES: `"0:3:14 1:5:-"` -> (index in
    LINE_FILES, column, end column or None). Kept a string (read only when an error is located),
    so that compiling the module stays cheap."""
    out = []
    for entry in sources.split():
        file_index, column, end = entry.split(":")
        out.append((int(file_index), int(column), None if end == "-" else int(end)))
    return out


_REASONS = {ZeroDivisionError: "a division by zero"}


class rules_of:
    """`with rules_of(module): ...` re-states an error that one of the module's rules raised (a
    division by zero, a value outside every band of a table) at the rulebook file and line of
    that rule; errors raised elsewhere pass unchanged."""

    def __init__(self, module):
        self.module = module

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if exc is None or isinstance(exc, RulebookRuntimeError) or not isinstance(exc, _RULE_ERRORS):
            return False
        if _rule_line(tb, self.module) is not None:
            raise located(exc, self.module) from exc
        return False


_RULE_ERRORS = (ArithmeticError, TypeError, ValueError, KeyError, RecursionError)


def _rule_line(tb, module) -> int | None:
    """The line of the generated module that raised, the innermost of its frames in the traceback
    TB; None when the error did not pass through the module's code."""
    line = None
    filename = getattr(module, "__file__", None)
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def located(exc: Exception, module) -> RulebookRuntimeError:
    """Re-state an error from generated code at the rulebook file and line that produced it."""
    line = _rule_line(exc.__traceback__, module)
    where = source_of(module, line) if line is not None else None
    reason = _REASONS.get(type(exc), f"{type(exc).__name__}: {exc}")
    if where is None:
        return RulebookRuntimeError(f"{module.SOURCE_PATH}: {type(exc).__name__}: {exc}", module.SOURCE_PATH,
                                    reason=reason)
    path, rule_line, column, end = where
    return RulebookRuntimeError(f"{path}:{rule_line}: {type(exc).__name__}: {exc}", path, rule_line, column, reason,
                                end)
