"""Which names of the hand-written runtime (runtime/*.js) the page uses: each top-level
declaration of the runtime files, and the runtime names a text of JavaScript calls or reads. The
generated code (the engines py2es translates, the rules jsgen compiles), the page's interface and
the runtime's own top-level statements use names; a declaration nothing reaches from them is dead
(tests/test_runtime_use.py). `python -m civdsl.companion.runtimeuse` lists, for each runtime
name, the engine modules whose translation uses it.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from importlib import resources

_DECLARATION = re.compile(r"^(function\*?|class|const|let)\s+([A-Za-z_$][\w$]*)", re.M)
_IDENTIFIER = re.compile(r"(?<![\w$.])[A-Za-z_$][\w$]*")


@dataclass(frozen=True)
class Declaration:
    """A top-level declaration of a runtime file: its name, file and text (from its keyword to its
    closing line)."""
    name: str
    file: str
    text: str


def _end_of(text: str, start: int, keyword: str) -> int:
    """Where the declaration at START ends: a function's or class's closing brace at the start of a
    line; a constant's first unindented line ending with `;`."""
    if keyword in ("const", "let"):
        for m in re.finditer(r"^.*;[ \t]*(?://[^\n]*)?$", text[start:], re.M):
            if m.start() == 0 or not text[start + m.start()].isspace():
                return start + m.end()
        return len(text)
    m = re.compile(r"^}", re.M).search(text, start)
    return m.end() if m else len(text)


@functools.cache
def runtime_files() -> dict[str, str]:
    folder = resources.files("civdsl.companion").joinpath("runtime")
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir(), key=lambda p: p.name)
            if p.name.endswith(".js")}


@functools.cache
def declarations() -> tuple[tuple[Declaration, ...], str]:
    """Every top-level declaration of the runtime files, and the runtime's top-level statements
    (what runs when the script loads: the host's API object, its wrappers)."""
    found, rest = [], []
    for name, text in runtime_files().items():
        at = 0
        for m in _DECLARATION.finditer(text):
            if m.start() < at:
                continue
            end = _end_of(text, m.start(), m.group(1))
            rest.append(text[at:m.start()])
            found.append(Declaration(m.group(2), name, text[m.start():end]))
            at = end
        rest.append(text[at:])
    statements = "\n".join(re.sub(r"//[^\n]*", "", r) for r in rest)
    return tuple(found), statements


def names_in(js: str) -> set[str]:
    """The runtime names JS (a text of JavaScript) names."""
    declared = {d.name for d in declarations()[0]}
    return {n for n in _IDENTIFIER.findall(re.sub(r"//[^\n]*", "", js)) if n in declared}


def reached(roots: str) -> set[str]:
    """The runtime names the code ROOTS uses, with every name their declarations use in turn."""
    decls = {d.name: d for d in declarations()[0]}
    seen: set[str] = set()
    todo = list(names_in(roots))
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        body = decls[name].text.split("\n", 1)[1] if "\n" in decls[name].text else decls[name].text
        todo.extend(names_in(body) - seen)
    return seen


def engine_uses() -> dict[str, list[str]]:
    """Each runtime name -> the engine modules (py2es.ENGINE_MODULES) whose translation names it."""
    from . import py2es

    uses: dict[str, list[str]] = {}
    source = py2es.engine_source()
    # engine_source writes each module's translation after a line `// civdsl.module`
    for module, js in zip(re.findall(r"^// (civdsl\.[\w.]+)$", source, re.M),
                          re.split(r"^// civdsl\.[\w.]+$", source, flags=re.M)[1:]):
        for name in names_in(js):
            uses.setdefault(name, []).append(module)
    return dict(sorted(uses.items()))


def main() -> None:
    used = engine_uses()
    for d in declarations()[0]:
        modules = used.get(d.name, [])
        sys.stdout.write(f"{d.file:<11} {d.name:<22} {len(modules):>3}  {' '.join(m.removeprefix('civdsl.') for m in modules[:6])}"
                         f"{' ...' if len(modules) > 6 else ''}\n")


if __name__ == "__main__":
    main()
