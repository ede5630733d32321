"""The command line sits on top: engines never import it, and start-up loads only what a
command uses. Checked from the code's own imports (every `import`, including those inside
functions) and from `sys.modules` after running a command, never by timing."""

from __future__ import annotations

import ast
import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "civdsl"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def _imports(path: Path) -> frozenset[str]:
    """Every module the file imports, anywhere in it, as absolute names (each file parsed once a
    run: the import graph's tests all read the same unchanged sources)."""
    name = _module_name(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            out.add(prefix)
            out.update(f"{prefix}.{a.name}" for a in node.names)
    return frozenset(out)


ENGINE_FILES = sorted(p for p in PACKAGE.rglob("*.py") if "cli" not in p.relative_to(PACKAGE).parts)


def test_the_walk_sees_the_engines():
    names = {_module_name(p) for p in ENGINE_FILES}
    assert {"civdsl.plan.purchase", "civdsl.rounds.simulate", "civdsl.lsp", "civdsl.fmt", "civdsl.charts"} <= names
    assert "civdsl.cli.main" not in names


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_engines_never_import_the_command_line(path):
    bad = sorted(m for m in _imports(path) if m == "civdsl.cli" or m.startswith("civdsl.cli.") or m == "click"
                 or m.startswith("click."))
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}: commands belong in civdsl/cli/"


# The layers of docs/architecture.md ("Layers"), bottom up: a module imports only modules of its
# own layer or a lower one (every import, inside functions too). A package stands in one layer as a
# whole, except the round rules' modules, which stand each with the stage it serves. The round
# rules' passes stand above the main passes: those find them through civdsl/sublanguages.py only.
LAYERS = {
    "foundations": ("errors", "records", "escape", "codes", "bounds", "fields", "resources", "gcpause", "pysource",
                    "bytecode", "safeyaml", "cache", "diagnostics", "unknown", "atomicfile", "sublanguages",
                    "closematch", "texts", "pystd"),
    "runtime": ("pricing", "placement", "startcredits", "handvalue", "standing", "losses", "calamity_answer", "runtime", "sourcemap", "vocabulary", "state", "factchecks", "statecheck", "effectlist", "playerfacts", "playerstate", "stateanswers",
                "phrases", "rounds.runtime", "rounds.state", "rounds.simulate"),
    "passes": ("parser", "syntax_nodes", "syntax_dispatch", "syntax_fields", "syntax", "loader", "references",
               "expressions", "model", "applied_bases", "resolver", "validator", "clauses", "citations", "segment", "describe",
               "rulewalk", "codegen", "serialize", "invariants", "cardchecks"),
    "sub-languages": ("rounds.syntax", "rounds.model", "rounds.resolve", "rounds.checks", "rounds.codegen",
                      "rounds.serialize", "rounds.diff", "rounds.language"),
    "tools": ("frontend", "api", "build", "schemas", "modelschema", "diff", "fmt", "highlight", "lsp", "scaffold", "itemexplain",
              "roundexplain", "coverage", "rulings", "impact", "laws", "plan", "table", "ledger", "charts",
              "companion", "rounds.reference", "rounds.event_plot"),
    "command line": ("cli",),
}
# The passes in the order of the document's table ("The passes"): a pass never imports a later one.
PASSES = ("parser", "syntax", "loader", "resolver", "validator", "citations", "codegen")
# The modules that do part of one pass's work (the document's rows marked `-` under it, or named
# with it): each stands where its pass stands in the order, so it imports no later pass either.
PASS_PARTS = {"syntax_nodes": "syntax", "syntax_dispatch": "syntax", "syntax_fields": "syntax",
              "applied_bases": "resolver", "cardchecks": "validator", "invariants": "validator",
              "clauses": "citations", "rulewalk": "codegen"}
# The import cycles the document names as not yet untied ("Layers"); any other cycle fails.
NAMED_CYCLES: tuple[set[str], ...] = ()


def _unit(module: str) -> str | None:
    """The name under which LAYERS lists a module (`civdsl.plan.search` -> `plan`)."""
    rest = module.removeprefix("civdsl.")
    if module == "civdsl" or rest == module:
        return None  # the package's face (load, Rulebook on first use) and modules outside civdsl
    listed = {name for names in LAYERS.values() for name in names}
    if any(name.startswith(rest + ".") for name in listed):
        return None  # a package whose modules stand each in their own layer: its face (`rounds`)
    parts = rest.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in listed:
            return ".".join(parts[:n])
    return rest


_LAYER_OF = {name: i for i, names in enumerate(LAYERS.values()) for name in names}
ALL_FILES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_stands_in_one_layer():
    listed = [name for names in LAYERS.values() for name in names]
    assert len(listed) == len(set(listed))
    units = {_unit(_module_name(p)) for p in ALL_FILES} - {None}
    assert sorted(units - set(listed)) == [], "a new module: give it its layer here and in docs/architecture.md"
    assert sorted(set(listed) - units) == []


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_never_imports_a_higher_layer(path):
    own = _unit(_module_name(path))
    if own is None:
        return
    higher = sorted({m for m in _imports(path) if (u := _unit(m)) in _LAYER_OF and _LAYER_OF[u] > _LAYER_OF[own]})
    assert not higher, (f"{path.relative_to(ROOT)} ({list(LAYERS)[_LAYER_OF[own]]}) imports {higher}: "
                        "a lower layer never imports a higher one")


@pytest.mark.parametrize("index", range(len(PASSES)), ids=lambda i: PASSES[i])
def test_a_pass_never_imports_a_later_one(index):
    later = PASSES[index + 1:]
    bad = sorted(m for m in _imports(PACKAGE / f"{PASSES[index]}.py") if _unit(m) in later)
    assert not bad, f"civdsl/{PASSES[index]}.py imports {bad}: a pass never imports a later one"


@pytest.mark.parametrize("part", sorted(PASS_PARTS))
def test_a_part_of_a_pass_never_imports_a_later_pass(part):
    later = PASSES[PASSES.index(PASS_PARTS[part]) + 1:]
    later_units = set(later) | {other for other, owner in PASS_PARTS.items() if owner in later}
    bad = sorted(m for m in _imports(PACKAGE / f"{part}.py") if _unit(m) in later_units)
    assert not bad, f"civdsl/{part}.py (part of {PASS_PARTS[part]}) imports {bad}: a pass never imports a later one"
    assert f"`{part}.py`" in _section("The passes"), f"docs/architecture.md's passes do not name {part}.py"


def _import_graph() -> dict[str, set[str]]:
    names = {_module_name(p) for p in ALL_FILES}
    graph = {}
    for path in ALL_FILES:
        name = _module_name(path)
        targets = set()
        for m in _imports(path):
            parts = m.split(".")
            while parts and ".".join(parts) not in names:
                parts.pop()  # `from .x import NAME` names NAME too: the module is what stands
            target = ".".join(parts)
            # a package's module that imports its own package (`from . import sibling`) loads the
            # package first, which is no cycle of theirs
            if target and target != name and not name.startswith(target + "."):
                targets.add(target)
        graph[name] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_the_cycle_search_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_but_those_the_document_names():
    cycles = _cycles(_import_graph())
    assert [c for c in cycles if c not in NAMED_CYCLES] == []
    assert [c for c in NAMED_CYCLES if c not in cycles] == [], "a named cycle is untied: take it off the list"


def test_the_ledgers_imports_run_one_way():
    """The game's state (play.py) imports none of the modules that change it; the turn's flow
    (turn.py) drives them."""
    graph = _import_graph()
    changers = {"civdsl.ledger.events", "civdsl.ledger.taxes", "civdsl.ledger.calamities", "civdsl.ledger.ending",
                "civdsl.ledger.turn"}
    assert graph["civdsl.ledger.play"] & changers == set()
    assert changers - {"civdsl.ledger.turn"} <= graph["civdsl.ledger.turn"]


def _rooms(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The import graph with each folder of civdsl/ drawn as one box (`civdsl.plan.search` -> `civdsl.plan`)."""
    def room(module: str) -> str:
        return ".".join(module.split(".")[:2])

    rooms: dict[str, set[str]] = {}
    for name, targets in graph.items():
        rooms.setdefault(room(name), set()).update(room(t) for t in targets if room(t) != room(name))
    return rooms


def test_no_folder_imports_back_up():
    """Drawn with each folder as one box, every arrow points down: no loop of imports runs between
    two boxes (a loop inside one folder is a module cycle, which the test above checks)."""
    assert _cycles(_rooms(_import_graph())) == []


def test_the_folder_walk_sees_a_loop_between_folders():
    graph = {"civdsl.a.x": {"civdsl.b"}, "civdsl.b": {"civdsl.a.y"}, "civdsl.a.y": set()}
    assert _cycles(_rooms(graph)) == [{"civdsl.a", "civdsl.b"}]


def _section(title: str) -> str:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def test_the_document_states_these_layers_and_passes():
    """docs/architecture.md says what this file checks: its layer table lists the same modules in
    the same layers, its pass table the same passes in the same order."""
    import re

    rows = [line.split("|") for line in _section("Layers").splitlines() if line.startswith("| ")]
    documented = {cells[1].strip(): tuple(name.replace("/", ".") for name in re.findall(r"`([\w./]+?)(?:\.py|/)?`", cells[2]))
                  for cells in rows[1:]}
    assert documented == LAYERS
    passes = [line.split("|")[2] for line in _section("The passes").splitlines() if re.match(r"\| \d", line)]
    assert tuple(re.search(r"`(\w+)\.py`", cell)[1] for cell in passes) == PASSES


def test_modules_are_named_for_their_job():
    names = {_module_name(p) for p in ENGINE_FILES}
    # the front end (check_file) and the Pygments highlighter, once `compiler` and `lexer`
    assert {"civdsl.frontend", "civdsl.highlight"} <= names
    assert not {"civdsl.compiler", "civdsl.lexer"} & names


@pytest.mark.parametrize("name", PASSES)
def test_a_pass_never_imports_what_sits_on_top(name):
    on_top = LAYERS["tools"] + LAYERS["command line"]
    bad = sorted(m for m in _imports(PACKAGE / f"{name}.py") if _unit(m) in on_top)
    assert not bad, f"civdsl/{name}.py imports {bad}: a pass never imports the front end or a tool"


def test_the_import_walk_resolves_relative_imports():
    imports = _imports(PACKAGE / "cli" / "questions.py")
    assert "civdsl.cli.common" in imports and "civdsl.state" in imports


HEAVY = ("lark", "yaml", "jsonschema", "pygls", "lsprotocol")


def _modules_after(args: list[str], env_extra: dict | None = None) -> tuple[int, set[str]]:
    code = ("import json, sys\nfrom civdsl.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    code = e.code or 0\nelse:\n    code = 0\n"
            "sys.stderr.write('\\nMODULES ' + json.dumps([code, sorted(sys.modules)]) + '\\n')\n")
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("MODULES ")][-1]
    code, modules = json.loads(line[len("MODULES "):])
    return code, set(modules)


# the modules of the command line every command loads; each command's own module is loaded only
# to run it or to show its help (`civdsl --help` lists the commands from cli/main.py's table)
CLI_CORE = {"civdsl.cli", "civdsl.cli.main", "civdsl.cli.common", "civdsl.cli.terminal"}


@pytest.mark.parametrize("args, own", [(["--help"], set()), (["-h"], set()), (["resolve", "--help"], {"civdsl.cli.questions"}),
                                       (["plan", "--help"], {"civdsl.cli.plan"})], ids=lambda a: " ".join(a) if isinstance(a, list) else "")
def test_help_loads_no_engine(args, own):
    code, modules = _modules_after(args)
    assert code == 0
    assert not [m for m in HEAVY if m in modules]
    # civdsl.resources only finds files (the checkout around the current folder), civdsl.gcpause
    # only pauses the collector while start-up builds what it keeps: no engine
    engines = sorted(m for m in modules if m.startswith("civdsl.") and not m.startswith("civdsl.cli")
                     and m not in ("civdsl.errors", "civdsl.resources", "civdsl.gcpause"))
    assert not engines, f"`civdsl {' '.join(args)}` imported {engines}"
    commands = sorted(m for m in modules if m.startswith("civdsl.cli") and m not in CLI_CORE | own)
    assert not commands, f"`civdsl {' '.join(args)}` imported {commands}"
    # the standard library's modules that showing help does not use (textwrap is click's wrapping;
    # click's parser tries a short option such as -h as a long one first, and its "no such
    # option" error, made and caught, looks for close matches with difflib)
    unused = {"shutil", "tempfile", "fractions", "decimal", "dataclasses"} | ({"difflib"} if "-h" not in args else set())
    assert not unused & modules, f"`civdsl {' '.join(args)}` imported {sorted(unused & modules)}"


@pytest.mark.parametrize("width", [20, 50, 60, 78, 200])
def test_help_lists_each_command_with_the_first_sentence_of_its_own_help(width):
    """`civdsl --help` lists the commands from COMMANDS without importing them: the list is the
    one click makes from the commands themselves (a changed first sentence of a command's help
    must be copied into cli/main.py's table), at every width."""
    import importlib

    import click

    from civdsl.cli.main import COMMANDS, main

    real = {name: getattr(importlib.import_module(module), attr) for name, (module, attr, _) in COMMANDS.items()}
    assert all(cmd.name == name and not cmd.hidden and not cmd.short_help for name, cmd in real.items())
    listed, expected = [], []
    for group, out in ((main, listed), (click.Group(commands=list(real.values())), expected)):
        ctx = click.Context(main, info_name="civdsl", terminal_width=width)
        formatter = ctx.make_formatter()
        group.format_commands(ctx, formatter)
        out.append(formatter.getvalue())
    assert listed == expected
    assert "resolve" in listed[0] and "lsp" in listed[0]


@pytest.mark.parametrize("args", [["resolve", "megaciv", "Famine"], ["cost", "megaciv", "--buy", "Pottery"],
                                  ["epoch", "megaciv"], ["score", "megaciv"]], ids=lambda a: a[0])
def test_questions_from_a_current_cache_load_no_parser(args):
    _modules_after(args)  # fills the compiled-module cache if needed
    code, modules = _modules_after(args)
    assert code in (0, 1)
    assert not [m for m in ("lark", "yaml", "jsonschema", "pygls") if m in modules]
    assert "civdsl.parser" not in modules and "civdsl.validator" not in modules


def test_a_check_answered_from_its_kept_result_loads_no_parser():
    """`civdsl check` of an unchanged rulebook reads its kept diagnostics: neither Lark, the parser,
    the passes nor the model's classes are loaded."""
    args = ["check", "rulebooks/megaciv.civ", "rulebooks/house/granary.civ"]
    _modules_after(args)
    code, modules = _modules_after(args)
    assert code == 0
    assert not [m for m in HEAVY if m in modules]
    loaded = {"civdsl.parser", "civdsl.syntax", "civdsl.model", "civdsl.resolver", "civdsl.validator"} & modules
    assert not loaded, f"a kept check imported {sorted(loaded)}"


def test_a_state_file_asked_again_loads_no_yaml_reader(tmp_path):
    """The value of a state or table file is kept for its text (a date, which JSON cannot give back,
    is read afresh each time); a changed file is read again."""
    state = tmp_path / "state.yaml"
    state.write_text("holds: [Pottery]\ntreasury: 12\n")
    args = ["cost", "megaciv", "--state", str(state), "--buy", "Agriculture"]
    _modules_after(args)
    code, modules = _modules_after(args)
    assert code == 0 and "yaml" not in modules
    state.write_text("holds: [Pottery]\ntreasury: 13\n")
    code, modules = _modules_after(args)
    assert code == 0 and "yaml" in modules


# What a question answered from a current cache may load (its start-up time): the command line,
# the cache, the runtime and what states and answers are checked and said with. Anything more is
# import work every question pays for; a module needed only on a rare path (a mistake to name, a
# division) is imported where that path starts.
QUESTION_PATH = {"civdsl", "civdsl.api", "civdsl.bytecode", "civdsl.cache", "civdsl.cli", "civdsl.cli.common", "civdsl.cli.main",
                 "civdsl.cli.terminal", "civdsl.errors", "civdsl.gcpause", "civdsl.phrases", "civdsl.resources", "civdsl.runtime",
                 "civdsl.unknown", "civdsl.pricing", "civdsl.placement", "civdsl.startcredits", "civdsl.handvalue", "civdsl.standing", "civdsl.losses", "civdsl.calamity_answer", "civdsl.sourcemap",
                 "civdsl.records", "civdsl.state", "civdsl.statecheck", "civdsl.factchecks", "civdsl.effectlist", "civdsl.playerfacts", "civdsl.playerstate", "civdsl.stateanswers", "civdsl.vocabulary",
                 "civdsl.texts"}
QUESTIONS = [(["resolve", "megaciv", "Famine", "--holds", "Pottery"], {"civdsl.cli.questions"}),
             (["cost", "megaciv", "--holds", "Pottery", "--buy", "Agriculture,Medicine"], {"civdsl.cli.questions"}),
             (["epoch", "megaciv", "--holds", "Pottery"], {"civdsl.cli.questions"}),
             (["score", "megaciv", "--holds", "Pottery,Medicine"], {"civdsl.cli.questions"}),
             (["plan", "megaciv", "--set", "treasury=30", "--set", "players=5"],
              {"civdsl.cli.plan", "civdsl.plan", "civdsl.plan.answer", "civdsl.plan.question", "civdsl.plan.hand",
               "civdsl.plan.objectives",
               "civdsl.plan.payment", "civdsl.plan.purchase", "civdsl.plan.text", "civdsl.plan.search",
               # heapq and itertools written in the subset (the page runs the same steps)
               "civdsl.pystd", "civdsl.pystd.heaps", "civdsl.pystd.iterate"}),
             # asked again of the same table file: its YAML value is kept, the YAML reader not loaded
             (["table", "megaciv", "examples/table.yaml"], {"civdsl.cli.table", "civdsl.cli.questions", "civdsl.table",
                                                        "civdsl.table.tablefile", "civdsl.table.calamity_phase",
                                                        "civdsl.table.seating", "civdsl.table.resolving"})]


@pytest.mark.parametrize("args, own", QUESTIONS, ids=lambda a: a[0] if isinstance(a, list) else "")
def test_each_question_loads_only_its_path(args, own):
    _modules_after(args)  # fills the compiled-module cache if needed
    code, modules = _modules_after(args)
    assert code in (0, 1)
    ours = {m for m in modules if m.startswith("civdsl") and not m.startswith("civdsl_compiled_")}
    assert ours - QUESTION_PATH - own == set(), f"`civdsl {args[0]}` imported more than its path"
    assert "civdsl.plan" not in modules or args[0] == "plan"
    # the standard library's heavier modules that answering does not use (fractions: only a
    # division, an objective expression or a bound with a remainder makes a Fraction;
    # difflib/did-you-mean: only a mistake; dataclasses: the tables on this path are
    # civdsl.records classes, which compile nothing at import; copy: only a plan with a wanted
    # advance clones its problem)
    unused = {"fractions", "decimal", "difflib", "tempfile", "shutil", "hashlib", "dataclasses", "copy",
              "civdsl.diagnostics"}
    assert not unused & modules, f"`civdsl {args[0]}` imported {sorted(unused & modules)}"


def test_a_missing_dependency_is_named_without_a_traceback(tmp_path):
    """An interpreter without one of civdsl's dependencies (here lark is blocked) gets one line that
    names the package and how to install it, exit code 1."""
    code = ("import sys; sys.modules['lark'] = None; sys.argv = ['civdsl', 'check', 'rulebooks/civ1980.civ']; "
            "from civdsl.cli import main; main()")
    env = {**os.environ, "CIVDSL_CACHE": str(tmp_path)}   # an empty cache: check must parse
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "needs the Python package `lark`" in proc.stderr


def test_a_kept_state_file_keeps_its_order_and_values(tmp_path, monkeypatch):
    """The value kept for a state file is the value read: the same keys in the same order (a hand's
    commodities are listed as the file lists them), and a value JSON cannot give back exactly (a
    date) is read afresh each time."""
    import datetime

    from civdsl import state

    monkeypatch.setenv("CIVDSL_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "state.yaml"
    path.write_text("commodities: {Salt: 2, Grain: 3, Ochre: 1}\ntreasury: 4.5\nholds: [Pottery]\n")
    first, again = state.parse_yaml(path), state.parse_yaml(path)
    assert list(again) == list(first) == ["commodities", "treasury", "holds"]
    assert list(again["commodities"]) == ["Salt", "Grain", "Ochre"] and again == first
    path.write_text("when: 2026-12-01\n")
    assert state.parse_yaml(path) == state.parse_yaml(path) == {"when": datetime.date(2026, 12, 1)}


# The page's build walks down only: the build hands the companion the checked edition and the
# module compiled from it, so nothing of the page can check a rulebook again or reach the
# compiler's cache, even through the modules it imports (the rulings and the impact it words
# are run and loaded by `api`, not by those modules).
_CHECKING = ("civdsl.api", "civdsl.frontend", "civdsl.loader", "civdsl.build", "civdsl.codegen")
_PAGE_BUILD = ("civdsl.companion.jsgen", "civdsl.companion.jsops", "civdsl.companion.py2es",
                "civdsl.companion.pyscopes", "civdsl.companion.pymodules", "civdsl.companion.pynumbers", "civdsl.companion.pystatements",
               "civdsl.companion.page")


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


@pytest.mark.parametrize("module", _PAGE_BUILD)
def test_the_pages_build_has_no_path_back_to_the_rulebook_checker(module):
    graph = _import_graph()
    assert module in graph
    back = sorted(_reachable(graph, module) & set(_CHECKING))
    assert not back, f"{module} reaches {back}: the build hands it the checked edition"


COMPANION_FILES = sorted((PACKAGE / "companion").rglob("*.py"))


def _private_uses(path: Path) -> list[str]:
    """The underscore names a file takes from another module: `from m import _x` and `m._x` of a
    module it imported by name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules, found = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name.startswith("_") and alias.name != "__future__" and node.module != "__future__":
                    found.append(f"{node.module or '.'}.{alias.name}")
                modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def test_the_private_use_scan_sees_both_forms():
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.py"
        probe.write_text("from ..codegen import _requirement as r\nfrom .. import phrases\nx = phrases._AREA\n"
                         "y = phrases.AREA\n", encoding="utf-8")
        assert _private_uses(probe) == ["codegen._requirement", "phrases._AREA"]


@pytest.mark.parametrize("path", COMPANION_FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_companion_uses_only_public_names_of_other_modules(path):
    private = _private_uses(path)
    assert not private, f"{path.relative_to(ROOT)} takes {private}: make what it needs a public, documented name"


# The underscore names one module still takes from another, each with why; any other fails below,
# and so does a name here that is no longer taken (docs/architecture.md, "Layers").
NAMED_PRIVATE_USES = {
    # pass 2 in three modules: the transformer's dispatch and its field callbacks are its own machinery
    "civdsl/syntax.py": {"syntax_dispatch._NOWHERE", "syntax_dispatch._place", "syntax_dispatch._rule_functions",
                         "syntax_fields._bound", "syntax_fields._register_field_callbacks"},
    # Lark's own internals, pinned by tests/test_lark_contract.py
    "civdsl/syntax_dispatch.py": {"lark.visitors._vargs_meta", "lark.visitors._VArgsWrapper"},
    # Python's own: the caller's frame, where a rule's error is located
    "civdsl/rounds/runtime.py": {"sys._getframe"},
    # within one package: a module's helpers shared with its sibling
    "civdsl/cli/table.py": {"questions._describe_effect"},
    "civdsl/table/calamity_phase.py": {"resolving._primary_victims_by_name", "resolving._resolve_one",
                                       "resolving._took_part"},
    # the game ledger's engine modules (py2es) reading the table's and the state reader's helpers
    "civdsl/ledger/calamities.py": {"table.resolving._resolve_one", "table.resolving._primary_victims_by_name",
                                    "table.resolving._took_part"},
    "civdsl/ledger/gamefile.py": {"state._decode", "state._parse_text", "state._read_limited"},
    "civdsl/ledger/play.py": {"standing._goes_back"},
}


def test_no_module_takes_another_modules_underscore_name_but_those_named():
    taken = {str(p.relative_to(ROOT)): set(uses) for p in ALL_FILES if (uses := _private_uses(p))}
    assert {path: sorted(names) for path, names in taken.items() if names != NAMED_PRIVATE_USES.get(path)} == {}, \
        "make what a module needs from another a public, documented name (or name the exception here, with why)"
    assert sorted(set(NAMED_PRIVATE_USES) - set(taken)) == []


# The language server's modules in the order docs/architecture.md gives them ("each importing only
# those before it").
LSP_ORDER = ("tokens", "files", "incremental", "splice", "engine", "navigation", "hover", "completion", "outline",
             "protocol", "server")


def test_the_language_servers_modules_import_only_those_before_them():
    import re

    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    listed = doc[doc.index("`lsp/` (the language server:"):doc.index("each importing only those before it")]
    listed = re.sub(r"\([^()]*\)", "", listed[len("`lsp/` (the language server:"):])  # asides name no module
    assert tuple(re.findall(r"`(\w+)`", listed)) == LSP_ORDER
    assert {p.stem for p in (PACKAGE / "lsp").glob("*.py")} - {"__init__"} == set(LSP_ORDER)
    for i, name in enumerate(LSP_ORDER):
        used = {m.split(".")[2] for m in _imports(PACKAGE / "lsp" / f"{name}.py") if m.startswith("civdsl.lsp.")}
        assert used <= set(LSP_ORDER[:i]), f"lsp/{name}.py imports {sorted(used - set(LSP_ORDER[:i]))}, listed after it"
