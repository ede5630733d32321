"""The page's own engine (the first script of companion.html: functions nothing reaches left out,
the generated rules' locals renamed short, then minified) answers as the Python engine does, for
every shipped rulebook and every house rule; and the two page-only steps do what they say."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import civdsl
from civdsl.companion.page import companion_html, short_locals, short_runtime_locals, without_unused
from companion_harness import checked_edition, cli_answer, first_difference, node_available, run_engine
from test_companion_equality import _questions, random_state

ROOT = Path(__file__).resolve().parent.parent


def _page_engine(rulebook, module) -> str:
    return re.findall(r"<script>(.*?)</script>", companion_html(module, checked_edition(rulebook)), re.S)[0]


def _rulebooks():
    from civdsl.resources import shipped_rulebooks

    return list(shipped_rulebooks()) + sorted(str(p) for p in (ROOT / "rulebooks" / "house").glob("*.civ"))


@pytest.mark.skipif(not node_available(), reason="node is not installed (apt-get install nodejs)")
@pytest.mark.parametrize("rulebook", _rulebooks(), ids=lambda r: Path(r).stem)
def test_the_page_engine_answers_as_python(rulebook):
    from civdsl.companion.page import page_answers

    module = civdsl.load(rulebook).module
    if not page_answers(module):
        pytest.skip("no page for this rulebook")
    rng = random.Random(f"page:{rulebook}")
    named = _questions(module, {}, "empty state") + _questions(module, {"holds": list(module.ADVANCES)}, "every advance")
    for i in range(4):
        named += _questions(module, random_state(module, rng, dense=rng.choice((0.5, 1.0))), f"random {i}", rng)
    answers = run_engine(_page_engine(rulebook, module), [q for _, q in named])
    problems = [f"{name}: {got.get('crash') or first_difference(cli_answer(rulebook, query), got)}"
                for (name, query), got in zip(named, answers)
                if "crash" in got or first_difference(cli_answer(rulebook, query), got)]
    assert not problems, f"{len(problems)} of {len(named)} answers differ:\n" + "\n".join(problems[:5])


RULES = """// rules
function rule_x(s, role) {
  const held = s.heldSet;
  let trace, amount, effects;
  trace = [];
  amount = s.amount ? amount : 2;
  effects = [{amount: amount, "trace": "trace"}, s.trace, trace];
  return f(trace, effects, amount);
}
"""


def test_short_locals_renames_references_only():
    out = short_locals(RULES, {"s", "role", "held", "heldSet", "f", "amount", "trace", "effects", "a"})
    assert "let b, c, d;" in out
    assert 'effects = [{amount: c, "trace": "trace"}, s.trace, b];' not in out  # effects is d
    assert 'd = [{amount: c, "trace": "trace"}, s.trace, b];' in out
    assert "c = s.amount ? c : 2;" in out
    assert "return f(b, d, c);" in out


def test_short_locals_keeps_a_function_with_a_shorthand_property():
    text = RULES.replace("return f(trace, effects, amount);", "return {trace, effects};")
    assert short_locals(text, set()) == text


def test_without_unused_leaves_out_what_nothing_reaches():
    parts = ["function used() {\n  return helper();\n}\nfunction helper() { return 1; }\n"
             "function unused() { return other(); }\nfunction other() { return 2; }\n", "used();\n"]
    out = "\n".join(without_unused(parts, ""))
    assert "function used(" in out and "function helper(" in out
    assert "unused" not in out and "function other(" not in out
    assert "function other(" in "\n".join(without_unused(parts, "other"))


RUNTIME = """function price(state, options) {
  const total = state.cost + options.extra;
  for (const card of state.cards) { total.push(card.name); }
  return helper(total, (item) => item.options, {options: total});
}
function helper(values, fn, extra) { return values; }
"""


def test_short_runtime_locals_renames_declared_names_only():
    out = short_runtime_locals([RUNTIME])[0]
    # the most written first: options (the word three times), total, state
    assert "function price(c, a) {" in out and "const b = c.cost + a.extra;" in out
    assert "for (const d of c.cards) { b.push(d.name); }" in out
    # a property after a dot and an object's key keep their names; a top-level function too
    assert "return helper(b, (e) => e.options, {options: b});" in out
    assert "function helper(a, c, b) { return a; }" in out


def test_short_runtime_locals_keeps_a_top_level_name_an_inner_scope_shadows():
    text = "function f(value) {\n  helper(value);\n  [1].map((helper) => helper + value);\n}\nfunction helper(v) { return v; }\n"
    out = short_runtime_locals([text])[0]
    assert "helper(a);" in out and "(helper) => helper + a" in out


def test_short_runtime_locals_renames_a_spread_name():
    out = short_runtime_locals(["function f(first, ...rest) {\n  return g(first, ...rest, rest.length);\n}\n"])[0]
    assert "function f(b, ...a) {" in out and "return g(b, ...a, a.length);" in out


@pytest.mark.parametrize("body", ["return {state, options};", "const {cost} = state; return cost;",
                                  "return {options() { return state; }};"])
def test_short_runtime_locals_keeps_a_function_whose_locals_may_be_keys(body):
    text = f"function f(state, options) {{\n  {body}\n}}\n"
    assert short_runtime_locals([text])[0] == text


@pytest.mark.parametrize("rulebook", _rulebooks(), ids=lambda r: Path(r).stem)
def test_a_shared_rule_literal_is_a_constant_only_where_rules_repeat_it(rulebook):
    from civdsl.companion.jsgen import rules_source

    source = rules_source(checked_edition(rulebook))
    assert "\0" not in source
    for name in re.findall(r"^const (ruleData[0-9]+) = ", source, re.M):
        assert len(re.findall(rf"\b{name}\b", source)) > 2, name  # declared once, read at least twice


def test_a_calamitys_inline_condition_and_effect_parameters_are_written_without_extra_weight():
    from civdsl.companion.jsgen import rules_source

    from civdsl.resources import shipped_rulebooks

    source = rules_source(checked_edition(shipped_rulebooks()["expansion"]))
    assert re.search(r"^\s*c = [^(]", source, re.M) and not re.search(r"^\s*c = \(\w+\.has\(", source, re.M)
    assert "pyFromPlain({amount: " in source and 'pyDict([["amount", ' not in source
