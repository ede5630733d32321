"""Hostile rulebooks and state files (the corpus in tests/hostile/, one file per case).

Each corpus file starts with `# expect: ...`:
- `# expect: ok` (codegen_*.civ): the rulebook is valid however hostile its text; it must
  compile to a module that `py_compile` accepts, whose source holds no invisible or bidi
  characters, whose comments are printable ASCII, whose only imports are the runtime's, in
  which no rulebook text became a name, and whose import (and every rule it runs) makes no
  call outside the runtime: a subprocess imports it under `sys.addaudithook` and reports
  every audit event (os.system, subprocess.Popen, open of another file, exec/compile of
  anything but the module itself...). Its data must hold the hostile text exactly.
- `# expect: CIVnnn [LINE:COL]` (reject_*.civ): rejected with that diagnostic first, at that
  position (or anywhere inside the file when no position is given), never a traceback.
- `# expect: text | text` (state_*.yaml): `civdsl resolve civ1981 Famine --state FILE` exits 1
  and prints every text, with no traceback.
"""

from __future__ import annotations

import ast
import io
import json
import os
import py_compile
import shutil
import subprocess
import sys
import tokenize
import unicodedata
from xml.etree import ElementTree
from pathlib import Path

import pytest
from conftest import run_cli

from civdsl.build import compile_all
from civdsl.codegen import generate
from civdsl.frontend import check_file
from civdsl.diagnostics import Diagnostics

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "hostile"
def expectation(path: Path) -> str:
    first = path.read_bytes().split(b"\n", 1)[0].decode("ascii")
    assert first.startswith("# expect: "), f"{path.name}: the first line must be `# expect: ...`"
    return first[len("# expect: "):].strip()


OK_CASES = sorted(p for p in CORPUS.glob("*.civ") if expectation(p) == "ok")
REJECT_CASES = sorted(p for p in CORPUS.glob("*.civ") if expectation(p) != "ok")
STATE_CASES = sorted(CORPUS.glob("state_*.yaml"))

# Names that must never appear as identifiers in generated code (they come from the corpus).
FORBIDDEN_NAMES = {"os", "system", "eval", "exec", "__import__", "open", "subprocess", "getattr", "setattr",
                   "globals", "locals", "vars", "__builtins__", "compile", "breakpoint", "input", "PWNED",
                   "popen", "__class__", "__subclasses__", "__globals__"}
ALLOWED_IMPORTS = {("__future__", "annotations"), ("civdsl", "runtime")}


def test_corpus_is_complete():
    assert len(OK_CASES) >= 20 and len(REJECT_CASES) >= 15 and len(STATE_CASES) >= 20
    for path in OK_CASES + REJECT_CASES:
        assert path.name.startswith(("codegen_", "reject_")), path.name


# --- valid but hostile rulebooks: compiled, inspected, imported under an audit hook -------------

AUDIT_SCRIPT = r"""
import importlib.util, json, sys, traceback
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import civdsl.api as api           # imported before the hook is installed: only generated code is watched
import civdsl.runtime
import fractions                   # the runtime imports it on its first division (start-up): part of the runtime
cases = json.loads(sys.stdin.read())
watching = None
events = []

def hook(event, args):
    if watching is None:
        return
    try:
        if event == "exec":
            detail = [getattr(args[0], "co_filename", repr(args[0])[:200])]
        elif event == "compile":
            detail = [repr(args[0])[:80], str(args[1])]
        else:
            detail = [repr(a)[:200] for a in args]
    except Exception as exc:  # never let the hook itself fail
        detail = ["?", repr(exc)]
    events.append([watching, event, detail])

sys.addaudithook(hook)
out = {}
for name, path in cases:
    report = {"errors": []}
    watching = name
    try:
        spec = importlib.util.spec_from_file_location("hostile_" + name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        rb = api.Rulebook(module)
        for cal in list(module.CALAMITIES):
            for role in ("primary", "secondary"):
                try:
                    rb.resolve(cal, role, [], {})
                except Exception as exc:
                    report["errors"].append(f"resolve {cal!r} {role}: {type(exc).__name__}: {exc}")
        for call in (lambda: rb.epochs(None, [], {}), lambda: rb.score([], {}),
                     lambda: rb.cost([], list(module.ADVANCES)[:2], {})):
            try:
                call()
            except Exception as exc:
                report["errors"].append(f"{type(exc).__name__}: {exc}")
    except BaseException as exc:
        report["errors"].append("import: " + "".join(traceback.format_exception(exc))[-2000:])
    finally:
        watching = None
    try:
        report["data"] = {
            "name": module.EDITION["name"], "id": module.EDITION["id"],
            "advances": list(module.ADVANCES), "calamities": list(module.CALAMITIES),
            "commodities": list(module.COMMODITIES), "groups": list(module.GROUPS),
        }
    except Exception as exc:
        report["errors"].append(f"data: {type(exc).__name__}: {exc}")
    out[name] = report
out["__events__"] = events
print(json.dumps(out))
"""


def _allowed_event(event: str, detail: list, module_path: str) -> bool:
    real = os.path.realpath(module_path)
    if event == "open":
        opened = detail[0].strip("'\"")
        return os.path.realpath(opened) == real or (
            os.path.dirname(os.path.dirname(opened)) == os.path.dirname(module_path) and opened.endswith(".pyc"))
    if event == "compile":
        return os.path.realpath(detail[1]) == real
    if event == "exec":
        return os.path.realpath(detail[0]) == real
    if event == "import":
        return detail[0].strip("'\"") in ("civdsl", "civdsl.runtime", "__future__")
    return False


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """Every `ok` case checked and compiled; then all imported in one audited subprocess."""
    out_dir = tmp_path_factory.mktemp("hostile-modules")
    cases = {}
    for i, path in enumerate(OK_CASES):
        checked = check_file(path)
        entry = {"checked": checked, "source": None, "module": None}
        cases[path.name] = entry
        if not checked.ok:
            continue
        entry["source"] = generate(checked.edition, {f.display: f.text for f in checked.chain})
        module = out_dir / f"case{i}" / "effects.py"
        module.parent.mkdir()
        module.write_text(entry["source"], encoding="utf-8")
        entry["module"] = str(module)
    todo = [[name, e["module"]] for name, e in cases.items() if e["module"]]
    proc = subprocess.run([sys.executable, "-c", AUDIT_SCRIPT, str(ROOT)], input=json.dumps(todo),
                          capture_output=True, text=True, timeout=300, cwd=out_dir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    for name, event, detail in report.pop("__events__"):
        cases[name].setdefault("events", []).append((event, detail))
    for name, r in report.items():
        cases[name]["run"] = r
    return cases


@pytest.mark.parametrize("path", OK_CASES, ids=lambda p: p.stem)
def test_hostile_text_compiles_to_inert_python(path, compiled, tmp_path):
    case = compiled[path.name]
    checked = case["checked"]
    assert checked.ok, checked.diagnostics.render()
    source = case["source"]

    # 1. Python accepts it (py_compile: the same check an installer's byte-compilation does)
    target = tmp_path / "effects.py"
    target.write_text(source, encoding="utf-8")
    py_compile.compile(str(target), cfile=str(tmp_path / "effects.pyc"), doraise=True)

    # 2. no invisible characters anywhere in the source (Trojan Source): repr() escapes them
    bad = {ch for ch in source if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")}
    assert not bad, f"invisible characters in the generated source: {sorted(map(hex, map(ord, bad)))}"

    # 3. comments are printable ASCII; the docstring is one string and the next statement is
    #    the __future__ import (nothing was smuggled between them)
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            assert all(32 <= ord(c) < 127 for c in tok.string), tok.string
    tree = ast.parse(source)
    assert isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Constant)
    assert isinstance(tree.body[0].value.value, str)
    assert isinstance(tree.body[1], ast.ImportFrom) and tree.body[1].module == "__future__"

    # 4. the only imports are the runtime's, and no rulebook text became an identifier
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            pytest.fail(f"`import {', '.join(a.name for a in node.names)}` in generated code")
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                assert (node.module, alias.name) in ALLOWED_IMPORTS or node.module == "civdsl.runtime", \
                    f"from {node.module} import {alias.name}"
        if isinstance(node, ast.Name):
            assert node.id not in FORBIDDEN_NAMES, f"name `{node.id}` at line {node.lineno}"
        if isinstance(node, ast.Attribute):
            assert node.attr not in FORBIDDEN_NAMES, f"attribute `.{node.attr}` at line {node.lineno}"
        if isinstance(node, ast.FunctionDef):
            assert node.name.isascii() and node.name.isidentifier(), node.name
            assert node.name not in FORBIDDEN_NAMES

    # 5. importing it and running every rule made no call outside the runtime
    events = case.get("events", [])
    unexpected = [(e, d) for e, d in events if not _allowed_event(e, d, case["module"])]
    assert not unexpected, f"audit events outside the runtime: {unexpected[:5]}"
    run = case["run"]
    crashes = [e for e in run["errors"] if not e.startswith(("StateError", "RulebookRuntimeError"))]
    assert not crashes, crashes

    # 6. the hostile text survived as data, character for character
    ed = checked.edition
    data = run["data"]
    assert data["name"] == ed.name and data["id"] == ed.id
    assert data["advances"] == list(ed.advances)
    assert data["calamities"] == list(ed.calamities)
    assert data["commodities"] == list(ed.commodities)
    assert data["groups"] == list(ed.groups)


@pytest.mark.parametrize("path", OK_CASES, ids=lambda p: p.stem)
def test_hostile_text_builds(path):
    """The whole build (model.json, charts) renders hostile text without crashing."""
    diags = Diagnostics()
    results = compile_all([path], diags)
    assert results is not None, diags.render()
    files = results[0].files
    json.loads(files["model.json"])
    if shutil.which("dot"):  # Graphviz renders the explorer, whatever the names hold
        assert "charts/explorer.svg" in files, results[0].messages
    for name, content in files.items():  # an SVG is XML: one forbidden character makes it unreadable
        if name.endswith(".svg"):
            ElementTree.fromstring(content if isinstance(content, bytes) else content.encode("utf-8"))
    assert files["effects.py"] == generate(results[0].edition, {f.display: f.text for f in check_file(path).chain})


def test_generated_source_escapes_the_docstring_attack():
    path = CORPUS / "codegen_docstring_name.civ"
    checked = check_file(path)
    source = generate(checked.edition, {f.display: f.text for f in checked.chain})
    doc = ast.get_docstring(ast.parse(source), clean=False)
    assert 'a"""; import os; os.system("echo PWNED"); """' in doc  # the text is there, as text


# --- rejected rulebooks ---------------------------------------------------------------------------

def _lines_of(path: Path) -> int:
    data = path.read_bytes().replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


@pytest.mark.parametrize("path", REJECT_CASES, ids=lambda p: p.stem)
def test_hostile_rulebook_is_rejected_with_a_located_diagnostic(path):
    code, _, where = expectation(path).partition(" ")
    checked = check_file(path)
    assert not checked.ok
    first = checked.diagnostics.errors[0]
    assert first.code == code, checked.diagnostics.render()
    assert first.span is not None
    if where:
        assert f"{first.span.line}:{first.span.column}" == where, checked.diagnostics.render()
    else:
        assert 1 <= first.span.line <= _lines_of(path)
    rendered = checked.diagnostics.render()
    assert "Traceback" not in rendered


def test_cli_reports_every_rejected_file_without_a_traceback():
    proc = run_cli("check", *[str(p.relative_to(ROOT)) for p in REJECT_CASES], timeout=120, cwd=ROOT)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    for path in REJECT_CASES:
        code, _, where = expectation(path).partition(" ")
        prefix = f"{path.relative_to(ROOT)}:{where}: " if where else f"{path.relative_to(ROOT)}:"
        assert any(line.startswith(prefix) and f"error[{code}]" in line for line in proc.stderr.splitlines()), \
            (path.name, proc.stderr[-2000:])


# --- hostile state files --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def state_runs():
    return {p.name: run_cli("resolve", "civ1981", "Famine", "--state", str(p.relative_to(ROOT)), timeout=120, cwd=ROOT)
            for p in STATE_CASES}


@pytest.mark.parametrize("path", STATE_CASES, ids=lambda p: p.stem)
def test_hostile_state_file_is_a_one_line_error(path, state_runs):
    proc = state_runs[path.name]
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "PWNED" not in proc.stdout + proc.stderr
    assert proc.stderr.startswith("error: "), proc.stderr[:500]
    assert len(proc.stderr) < 5000, "messages about a hostile state must stay short"
    for text in expectation(path).split(" | "):
        assert text in proc.stderr, (text, proc.stderr[:1000])


# --- defects in files this suite does not own (diffs in docs/security.md) -------------------------

MINI = (Path(__file__).resolve().parent / "fixtures" / "mini.civ").read_text(encoding="utf-8")


@pytest.mark.parametrize("expr", ["sqrt(0 - 1)", "max()", "min(1)", "1 / 0", "sqrt(" + " * ".join(["999999999"] * 40) + ")"],
                         ids=["sqrt-negative", "max-no-args", "min-one-arg", "division-by-zero", "float-overflow"])
def test_math_errors_in_constants_are_diagnostics(tmp_path, expr):
    path = tmp_path / "math.civ"
    path.write_text(MINI.replace("const hand_limit = 8", f"const hand_limit = {expr}"), encoding="utf-8")
    checked = check_file(path)  # must not raise
    assert not checked.ok and checked.diagnostics.errors[0].span.line == 8


def test_table_values_that_read_the_player_are_refused_by_check(tmp_path):
    path = tmp_path / "table.civ"
    path.write_text(MINI.replace("{ 2..4: 8, 5..: 9 }", "{ 2..4: cities, 5..: 9 }"), encoding="utf-8")
    checked = check_file(path)
    assert [(d.code, d.span.line) for d in checked.diagnostics.errors] == [("CIV043", 16)]


def test_an_uncompilable_rule_is_a_diagnostic_in_build(tmp_path):
    path = tmp_path / "table.civ"
    path.write_text(MINI.replace("{ 2..4: 8, 5..: 9 }", "{ 2..4: cities, 5..: 9 }"), encoding="utf-8")
    diags = Diagnostics()
    assert compile_all([path], diags) is None
    assert [(d.code, d.span.line, d.span.column) for d in diags.errors] == [("CIV043", 16, 71)]


def test_an_uncompilable_rule_is_a_diagnostic_in_resolve(tmp_path):
    path = tmp_path / "table.civ"
    path.write_text(MINI.replace("{ 2..4: 8, 5..: 9 }", "{ 2..4: cities, 5..: 9 }"), encoding="utf-8")
    proc = run_cli("resolve", str(path), "Famine", timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-1500:]
    assert f"{path}:16:71: error[CIV043]" in proc.stderr


@pytest.mark.parametrize("args", [
    ["check", "--" + "x" * 100_000, "megaciv"],
    ["resolve", "megaciv", "Famine", "--option", "y" * 100_000 + "=on"],
    ["plan", "megaciv", "--horizon", "7" * 100_000],
    ["plan", "megaciv", "--horizon", "7" * 100_000, "--json"],
])
def test_a_long_unknown_option_or_value_is_echoed_cut_short(args):
    """Values are cut short in messages (docs/security.md): an unknown option name or a bad value
    of 100,000 characters gives a message of a few lines, not 100 KB."""
    proc = run_cli(*args)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert len(proc.stdout) + len(proc.stderr) < 1_000, (len(proc.stdout), len(proc.stderr))
    assert "..." in proc.stdout + proc.stderr
