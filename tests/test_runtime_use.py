"""The hand-written runtime (civdsl/companion/runtime/*.js) holds only what the page uses: every
top-level declaration is reached from the generated code (the engines py2es translates, the rules
jsgen compiles, and the helpers their code generators can write), from the page's interface or
from the runtime's own top-level statements (civdsl/companion/runtimeuse.py)."""

from __future__ import annotations

from pathlib import Path

from civdsl.companion import jsgen, py2es, runtimeuse
from companion_harness import checked_edition

ROOT = Path(__file__).resolve().parent.parent
COMPANION = ROOT / "civdsl" / "companion"
# the code generators: a helper one of them can write is used though no shipped rulebook needs it yet
GENERATORS = ("jsgen.py", "jsops.py", "py2es.py", "pycalls.py", "pystatements.py", "pynumbers.py", "pyscopes.py",
              "page.py")


def _roots() -> str:
    texts = [py2es.engine_source(ledger=True), runtimeuse.declarations()[1]]
    texts += [p.read_text(encoding="utf-8") for p in sorted((COMPANION / "page").glob("*.js"))]
    texts += [(COMPANION / name).read_text(encoding="utf-8") for name in GENERATORS]
    texts += [jsgen.rules_source(checked_edition(rb)) for rb in ("megaciv", "civ1981", "expansion", "civ1980")]
    return "\n".join(texts)


def test_every_runtime_declaration_is_used():
    reached = runtimeuse.reached(_roots())
    unused = [f"{d.file}: {d.name}" for d in runtimeuse.declarations()[0] if d.name not in reached]
    assert unused == [], "declared in the runtime and used by nothing the page runs"


def test_a_runtime_name_is_declared_once():
    names = [d.name for d in runtimeuse.declarations()[0]]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []


def test_a_declaration_nothing_reaches_is_found(monkeypatch):
    decls, statements = runtimeuse.declarations()
    dead = runtimeuse.Declaration("deadHelper", "core.js", "function deadHelper(x) {\n  return pyLen(x);\n}")
    monkeypatch.setattr(runtimeuse, "declarations", lambda: (decls + (dead,), statements))
    reached = runtimeuse.reached("const y = pyLen([]);")
    assert "pyLen" in reached and "deadHelper" not in reached
    # what a declaration uses is reached through it
    assert "deadHelper" in runtimeuse.reached("deadHelper([1]);") and "pyLen" in runtimeuse.reached("deadHelper(1)")


def test_the_declarations_are_split_where_they_end():
    decls = {d.name: d for d in runtimeuse.declarations()[0]}
    assert decls["PY_LOW"].text.startswith("const PY_LOW = 2 ** 26;") and "\n" not in decls["PY_LOW"].text
    assert decls["pyLen"].text.rstrip().endswith("}") and "function pyOrd" not in decls["pyLen"].text
    # the host's API object and its wrappers run when the script loads: roots of their own
    assert "globalThis.civdsl" in runtimeuse.declarations()[1]


def test_the_engines_use_report_names_each_helper_with_its_modules():
    uses = runtimeuse.engine_uses()
    assert "civdsl.closematch" in uses["pyDict"] and "civdsl.texts" in uses["pyNormalize"]
    assert "matchRatio" not in uses and all(uses.values())
