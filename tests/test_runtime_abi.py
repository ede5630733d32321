"""`civdsl/runtime.py` is the ABI of generated code: its `__all__` lists exactly the names that
compiled rulebook modules call, and the page's JavaScript runtime defines every function the
JavaScript generator calls.

Every shipped rulebook and house rule is compiled, with the fixtures and UI rulebooks that
exercise rare effects, and the generated source is read (Python with `ast`, JavaScript with a
scan that drops string literals and comments first), so a generator path that starts calling a
new runtime name fails here until the name is declared."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from civdsl import runtime
from civdsl.companion import jsgen
from civdsl.expressions import PythonCompiler
from civdsl.frontend import check_file

ROOT = Path(__file__).resolve().parents[1]
RULEBOOKS = (sorted((ROOT / "rulebooks").rglob("*.civ")) + sorted((ROOT / "tests" / "fixtures").rglob("*.civ"))
             + sorted((ROOT / "tests" / "ui").rglob("*.civ")))
# the package's modules: any that writes `_rt.NAME` in a string is a generator of Python code
PACKAGE_FILES = sorted((ROOT / "civdsl").rglob("*.py"))
# names in __all__ that no generator writes literally, with the reason they are ABI anyway
DOCUMENTED: dict[str, str] = {}
JS_BUILTINS = {"Map", "Set", "Array", "Object", "Number", "String", "Math", "JSON", "Error", "BigInt", "Boolean"}
JS_KEYWORDS = {"if", "for", "while", "switch", "function", "return", "catch", "typeof", "new", "await", "in",
               "of", "do", "else", "void", "delete", "throw"}
_JS_STRINGS_AND_COMMENTS = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\]|\\.)*`|//[^\n]*|/\*.*?\*/',
                                      re.S)
_JS_CALL = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]*)\s*\(")
_JS_DEFINITION = re.compile(r"\b(?:function\s*\*?\s*|class\s+|(?:const|let|var)\s+)([A-Za-z_$][\w$]*)")


@pytest.fixture(scope="module")
def editions():
    checked = [check_file(path) for path in RULEBOOKS]
    found = [c.edition for c in checked if c.ok]
    # every shipped rulebook and house rule must be among them (a UI rulebook may be an error case)
    shipped = [path for path in RULEBOOKS if "rulebooks" in path.relative_to(ROOT).parts[:1]]
    assert all(c.ok for path, c in zip(RULEBOOKS, checked) if path in shipped)
    assert len(found) >= len(shipped) + 3
    return found


def _runtime_names(source: str, module: str = "civdsl.runtime") -> set[str]:
    """Every name of `module` a generated module uses, whatever alias it imports it as."""
    tree = ast.parse(source)
    package, _, leaf = module.rpartition(".")
    aliases, names = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == package:
            aliases |= {a.asname or a.name for a in node.names if a.name == leaf}
        elif isinstance(node, ast.ImportFrom) and node.module == module:
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.Import):
            aliases |= {a.asname for a in node.names if a.name == module and a.asname}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            names.add(node.attr)
    return names


@pytest.fixture(scope="module")
def generated_python(editions) -> list[str]:
    from civdsl.codegen import generate

    return [generate(ed, {}) for ed in editions]


@pytest.fixture(scope="module")
def emitted_python(generated_python) -> set[str]:
    return set().union(*(_runtime_names(source) for source in generated_python))


def _template_strings(source: str) -> list[str]:
    """The string literals of a module, f-strings' literal parts included, docstrings and comments
    not: what the module can write."""
    tree = ast.parse(source)
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def _generator_python_names(files=PACKAGE_FILES) -> set[str]:
    """The runtime names the Python generators can write, read from their templates in any module."""
    names = set()
    for path in files:
        for text in _template_strings(path.read_text(encoding="utf-8")):
            names |= set(re.findall(r"_rt\.([A-Za-z_]\w*)", text))
            for imported in re.findall(r"from civdsl\.runtime import ([\w, ]+)", text):
                names |= {n.strip() for n in imported.split(",")}
    names |= {call.removeprefix("_rt.") for call in PythonCompiler.MATH_CALLS.values()}
    names |= {PythonCompiler.LOGIC.format(op=op, operands="").split("(")[0].removeprefix("_rt.")
              for op in ("and", "or")}
    return names


def test_alias_scan_reads_any_alias():
    source = "import civdsl.runtime as q\nfrom civdsl import runtime as r\nfrom civdsl.runtime import A\nq.x(); r.y"
    assert _runtime_names(source) == {"A", "x", "y"}


def test_the_template_scan_reads_strings_not_comments_or_docstrings(tmp_path):
    module = tmp_path / "gen.py"
    module.write_text('"""Writes `_rt.old`."""\n# _rt.gone\n'
                      'def f(w, n):\n    w.line(f"x = _rt.div({n}, 2)")\n    return "from civdsl.runtime import A, B"\n',
                      encoding="utf-8")
    assert _generator_python_names([module]) - _generator_python_names([]) == {"div", "A", "B"}


def test_every_runtime_name_generated_python_uses_is_in_all(emitted_python):
    assert emitted_python, "no generated module called the runtime"
    assert sorted(emitted_python - set(runtime.__all__)) == []


def test_every_round_runtime_name_generated_python_uses_exists(generated_python):
    from civdsl.rounds import runtime as round_runtime

    used = set().union(*(_runtime_names(source, "civdsl.rounds.runtime") for source in generated_python))
    assert used, "no generated module of the fixtures called the round rules' runtime"
    assert sorted(name for name in used if not hasattr(round_runtime, name)) == []


def test_every_name_the_python_generators_can_write_is_in_all():
    assert sorted(_generator_python_names() - set(runtime.__all__)) == []


def test_every_name_in_all_is_emitted_or_documented(emitted_python):
    reachable = emitted_python | _generator_python_names() | set(DOCUMENTED)
    assert sorted(set(runtime.__all__) - reachable) == []
    assert len(runtime.__all__) == len(set(runtime.__all__))
    for name in runtime.__all__:
        assert hasattr(runtime, name), name


def _js_code(text: str) -> str:
    return _JS_STRINGS_AND_COMMENTS.sub('""', text)


# a declaration at the start of a line: the runtime files' own top level (a function's local
# variable or inner function, indented, cannot be what generated rules call)
_JS_TOP_DEFINITION = re.compile(r"^(?:function\s*\*?\s*|class\s+|(?:const|let|var)\s+)([A-Za-z_$][\w$]*)", re.M)


def _js_runtime_definitions() -> set[str]:
    """The page runtime's top-level names: the hand-written files' and the generated engines'."""
    from civdsl.companion import py2es

    names = set(_JS_TOP_DEFINITION.findall(_js_code(py2es.engine_source())))
    for path in (ROOT / "civdsl" / "companion" / "runtime").glob("*.js"):
        names |= set(_JS_TOP_DEFINITION.findall(_js_code(path.read_text(encoding="utf-8"))))
    return names


def test_js_scan_ignores_strings_comments_methods_and_local_functions():
    code = _js_code('const a = f(1); // g(2)\nx.h(3); "i(4)"; function j(k) { return k(5); }')
    found = {m for m in _JS_CALL.findall(code) if m not in JS_KEYWORDS} - set(_JS_DEFINITION.findall(code))
    assert found == {"f", "k"}


def test_every_function_the_js_generator_calls_is_in_the_page_runtime(editions):
    defined = _js_runtime_definitions()
    assert {"st_requirement", "lookup", "not_"} <= defined
    missing: dict[str, str] = {}
    calls: set[str] = set()
    for ed in editions:
        code = _js_code(jsgen.rules_source(ed))
        local = set(_JS_DEFINITION.findall(code))
        for name in _JS_CALL.findall(code):
            if name in JS_KEYWORDS or name in local or name in JS_BUILTINS:
                continue
            calls.add(name)
            if name not in defined:
                missing.setdefault(name, ed.id)
    assert len(calls) > 20
    assert missing == {}


def test_every_function_in_the_js_compiler_templates_is_in_the_page_runtime():
    c = jsgen.JSCompiler
    templates = [c.NOT, c.NEG, c.TABLE, *c.BINARY.values(), *c.MATH_CALLS.values(),
                 *(c.LOGIC.format(op=op, operands="") for op in ("and", "or"))]
    called = {name for t in templates for name in _JS_CALL.findall(_js_code(t if "(" in t else t + "("))}
    assert sorted(called - _js_runtime_definitions() - JS_BUILTINS) == []
