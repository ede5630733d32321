"""Code generation, the compiled-module cache, the build and the schemas."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli

from civdsl import runtime
from civdsl.codegen import generate
from civdsl.frontend import check_file
from civdsl.resources import shipped_rulebooks
from civdsl.schemas import load_schema, validate_model
from civdsl.state import state_schema

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parent.parent


def _module_source(path: Path) -> str:
    checked = check_file(path)
    assert checked.ok, checked.diagnostics.render()
    return generate(checked.edition, {f.display: f.text for f in checked.chain})


def test_generated_module_is_readable_typed_and_located():
    src = _module_source(FIXTURES / "semantics.civ")
    tree = ast.parse(src)
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    storm = funcs["calamity_0_storm"]
    doc = ast.get_docstring(storm)
    assert doc.startswith("Storm (stack 3, major tradable). Take 10 damage; lose 4 treasury.")
    assert "Alpha: 5 more points of damage" in doc
    assert storm.returns is not None and all(a.annotation is not None for a in storm.args.args)
    assert "# tests/fixtures/semantics.civ:20" in src or "semantics.civ:20" in src
    assert "eval(" not in src and "exec(" not in src


def test_generation_is_deterministic():
    assert _module_source(FIXTURES / "semantics.civ") == _module_source(FIXTURES / "semantics.civ")


def test_line_map_points_rules_at_rulebook_lines():
    src = _module_source(FIXTURES / "semantics.civ")
    lines = runtime.line_map(ast.literal_eval(src.split("LINES = _rt.line_map(", 1)[1].split("\n", 1)[0][:-1]))
    python_lines = src.split("\n")
    # the line generated for the Alpha modifier maps to rulebook line 28
    mapped = [rl for pl, rl in lines if "'Alpha' in held" in python_lines[pl - 1]]
    assert 28 in mapped  # the condition of the Alpha modifier
    assert all(rl in (28, 33, 34) for rl in mapped)


@pytest.mark.parametrize("edition", sorted(shipped_rulebooks()))
def test_model_json_of_every_shipped_rulebook_matches_the_schema(edition):
    checked = check_file(shipped_rulebooks()[edition])
    assert validate_model(checked.edition) == []


def test_schema_rejects_a_broken_model():
    import jsonschema

    checked = check_file(FIXTURES / "semantics.civ")
    from civdsl.serialize import to_data

    data = to_data(checked.edition)
    data["calamities"][0]["stack"] = 12
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, load_schema("model.schema.json"))


def test_state_schema_file_is_derived_from_the_vocabulary():
    assert load_schema("state.schema.json") == state_schema()


def test_state_schema_and_state_checker_agree():
    import jsonschema

    from civdsl.schemas import validate_state
    from civdsl.state import StateError
    from civdsl.statecheck import check_state
    from civdsl.vocabulary import FACTS

    samples = [{"cities": 3}, {"cities": -1}, {"citys": 1}, {"treasury": "many"}, {"holds": ["Alpha"]},
               {"commodities": {"Grain": 2}}, {"commodities": {"Grain": -2}}, {"sole_leader": 1}]
    for sample in samples:
        schema_ok = validate_state(sample) == []
        try:
            check_state(sample, FACTS, {"Alpha": {}}, {"Grain": {}}, {"red": {}})
            checker_ok = True
        except StateError:
            checker_ok = False
        assert schema_ok == checker_ok, sample
    del jsonschema


def test_build_check_detects_drift_and_errors_write_nothing(tmp_path):
    out = tmp_path / "gen"
    fixture = str(FIXTURES / "semantics.civ")
    assert run_cli("build", fixture, "-o", str(out), cwd=ROOT).returncode == 0
    assert (out / "semantics" / "effects.py").is_file() and (out / "semantics" / "model.json").is_file()
    first = {p.name: p.read_bytes() for p in (out / "semantics").rglob("*") if p.is_file()}
    assert run_cli("build", fixture, "-o", str(out), cwd=ROOT).returncode == 0
    assert first == {p.name: p.read_bytes() for p in (out / "semantics").rglob("*") if p.is_file()}
    assert run_cli("build", fixture, "-o", str(out), "--check", cwd=ROOT).returncode == 0
    (out / "semantics" / "model.json").write_text("{}")
    proc = run_cli("build", fixture, "-o", str(out), "--check", cwd=ROOT)
    assert proc.returncode == 1 and "semantics/model.json: differs from a fresh build" in proc.stderr
    broken = tmp_path / "broken.civ"
    broken.write_text((FIXTURES / "semantics.civ").read_text().replace('groups blue credits blue 10', 'groups bleu'))
    empty = tmp_path / "empty"
    proc = run_cli("build", fixture, str(broken), "-o", str(empty), cwd=ROOT)
    assert proc.returncode == 1 and "nothing was written" in proc.stderr and "Traceback" not in proc.stderr
    assert not (empty / "semantics").exists()


def test_answering_from_a_current_compiled_module_does_not_load_the_compiler(tmp_path):
    env = {**__import__("os").environ, "CIVDSL_CACHE": str(tmp_path / "cache")}
    code = ("import sys, civdsl; rb = civdsl.load(sys.argv[1]); rb.resolve('Storm', holds=['Alpha'], state={'cities': 2});"
            "print(sorted(m for m in ('lark', 'jsonschema', 'civdsl.parser', 'civdsl.validator') if m in sys.modules))")
    fixture = str(FIXTURES / "semantics.civ")
    first = subprocess.run([sys.executable, "-c", code, fixture], cwd=ROOT, env=env, capture_output=True, text=True)
    assert "lark" in first.stdout  # the first call compiles
    second = subprocess.run([sys.executable, "-c", code, fixture], cwd=ROOT, env=env, capture_output=True, text=True)
    assert second.stdout.strip() == "[]", second.stderr


def test_cache_notices_an_edited_rulebook(tmp_path):
    import civdsl

    path = tmp_path / "x.civ"
    path.write_text((FIXTURES / "semantics.civ").read_text())
    assert civdsl.load(str(path)).resolve("Storm", state={"cities": 2}).amount("damage") == 10
    path.write_text(path.read_text().replace("primary { damage(10)", "primary { damage(12)"))
    assert civdsl.load(str(path)).resolve("Storm", state={"cities": 2}).amount("damage") == 12


def test_cli_answers_in_text_and_json():
    fixture = str(FIXTURES / "semantics.civ")
    proc = run_cli("resolve", fixture, "Storm", "--holds", "Alpha,Beta", "--set", "cities=2", "--set", "treasury=0", cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    # the damage prevented down to nothing is no clause; the trace says why
    assert "take 0 damage" not in proc.stdout and "+5 Alpha: points of damage 10 \u2192 15" in proc.stdout
    assert "semantics.civ:28]" in proc.stdout
    data = json.loads(run_cli("resolve", fixture, "Storm", "--role", "secondary", "--holds", "Beta", "--json",
                           "--set", "cities=1", "--set", "treasury=0", cwd=ROOT).stdout)
    assert data["immune"] is True
    proc = run_cli("cost", fixture, "--holds", "Alpha", "--buy", "Gamma", cwd=ROOT)
    assert "Gamma: 130" in proc.stdout and "-10 Alpha" in proc.stdout
    proc = run_cli("epoch", fixture, "--holds", "Gamma", "--set", "cities=2", cwd=ROOT)
    assert "Track: the requirements are met up to Second" in proc.stdout
    proc = run_cli("score", fixture, "--holds", "Gamma", "--set", "cities=2", "--set", "treasury=1", cwd=ROOT)
    assert "total: 7" in proc.stdout


def test_cli_reports_missing_facts_and_state_errors(tmp_path):
    fixture = str(FIXTURES / "semantics.civ")
    proc = run_cli("resolve", fixture, "Quake", cwd=ROOT)
    assert proc.returncode == 1 and "does not say how many cities touched by a volcano, cities" in proc.stdout \
        and "--set volcano_cities=N --set cities=N" in proc.stdout
    state = tmp_path / "state.yaml"
    state.write_text("citys: 3\ntreasury: -2\nholds: [Alfa]\n")
    proc = run_cli("resolve", fixture, "Storm", "--state", str(state), cwd=ROOT)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "unknown key `citys` (did you mean `cities`?)" in proc.stderr
    assert "`treasury` cannot be below 0" in proc.stderr
    assert "unknown advance `Alfa` (did you mean `Alpha`?)" in proc.stderr
