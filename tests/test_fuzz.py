"""Property-based and fuzz tests (hypothesis).

- Valid rulebooks generated within the grammar (random groups, advances, commodities,
  calamities with effects and modifiers, epochs, scoring; names drawn from all of Unicode)
  check without errors, compile to Python that CPython accepts, and keep every name exactly.
- Shipped rulebooks mutated at random (characters or lines deleted, inserted, duplicated or
  swapped; numbers set at and just beyond their declared bounds) give either a clean check or
  diagnostics located inside the file, never an exception; whatever still checks cleanly also
  compiles.
- Player states (random mappings, random YAML text, YAML built from anchors and aliases up to a
  "billion laughs" or a cycle) are either accepted or refused with a StateError; an accepted
  state is small and can be used to answer questions.

Bounded for CI: the number of examples per test is CIVDSL_FUZZ_EXAMPLES (default 25; the whole
file stays well under a minute). Run longer locally, e.g. `CIVDSL_FUZZ_EXAMPLES=2000 pytest
tests/test_fuzz.py`; failing examples are then saved in .hypothesis/ and replayed first.
"""

from __future__ import annotations

import os
import re
import string
import sys
import tempfile
import types
import unicodedata
from functools import partial
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from civdsl import build, describe, parser, safeyaml
from civdsl.bounds import FIELDS
from civdsl import vocabulary as vocab
from civdsl.codegen import generate
from civdsl.frontend import check_file
from civdsl.expressions import quote
from civdsl.resources import rulebooks_dir
from civdsl.state import StateError, parse_yaml
from civdsl.statecheck import check_state
from civdsl.vocabulary import FACTS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = int(os.environ.get("CIVDSL_FUZZ_EXAMPLES", "25"))
LONG_RUN = "CIVDSL_FUZZ_EXAMPLES" in os.environ
FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, derandomize=not LONG_RUN,
    database=None if not LONG_RUN else settings.default.database,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
WORK = Path(tempfile.mkdtemp(prefix="civdsl-fuzz-"))


def write(name: str, text: str | bytes) -> Path:
    path = WORK / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def render_everything(checked) -> None:
    """Every generator a build runs (module, describer, charts, companion page) on a rulebook that
    checks: `check` and `build` never disagree. The explorer's SVG must be well-formed XML."""
    import xml.etree.ElementTree as ET

    for cal in checked.edition.calamities.values():
        describe.calamity(cal)
    out = build.render(checked)
    svg = out.files.get("charts/explorer.svg")
    if svg:
        ET.fromstring(svg if isinstance(svg, bytes) else svg.encode("utf-8"))


# --- valid rulebooks ------------------------------------------------------------------------

names = st.text(min_size=1, max_size=12)  # any Unicode but surrogates: quote() escapes what it must
small = st.integers(min_value=0, max_value=30)
EFFECTS = [k for k in vocab.EFFECT_KINDS.values() if k.params and k.name != "cancelled"]


def effect_call(draw, groups) -> tuple[str, str]:
    kind = draw(st.sampled_from(EFFECTS))
    args = []
    for p in kind.params:
        if not (p.required or draw(st.booleans())):
            continue
        if p.kind == "enum":
            value = draw(st.sampled_from(p.choices))
        elif p.kind == "int":
            value = str(draw(small))
        else:
            value = draw(st.sampled_from(groups))
        args.append(f"{p.name}={value}")
    return kind.name, f"{kind.name}({', '.join(args)})"


def condition(draw, advances, commodities) -> str:
    atoms = [st.sampled_from(advances).map(lambda a: f"holds({quote(a)})"),
             st.sampled_from(advances).map(lambda a: f"not holds({quote(a)})"),
             st.tuples(st.sampled_from(["cities", "coastal_cities", "treasury", "ast_position"]),
                       st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), small).map(lambda t: f"{t[0]} {t[1]} {t[2]}")]
    if commodities:
        atoms.append(st.sampled_from(commodities).map(lambda c: f"cards({quote(c)}) > 0"))
    parts = draw(st.lists(st.one_of(atoms), min_size=1, max_size=3))
    joins = [draw(st.sampled_from([" and ", " or "])) for _ in parts[1:]]
    text = parts[0]
    for j, p in zip(joins, parts[1:]):
        text += j + p
    return f"({text})" if draw(st.booleans()) else text


@st.composite
def rulebooks(draw):
    """(text, expected names): a valid rulebook in language 1, as varied as the grammar allows."""
    all_names = draw(st.lists(names, min_size=4, max_size=14, unique_by=lambda n: unicodedata.normalize("NFC", n)))
    n_adv = draw(st.integers(1, max(1, len(all_names) - 3)))
    advances, rest = all_names[:n_adv], all_names[n_adv:]
    n_com = draw(st.integers(0, len(rest) - 1))
    commodities, calamities = rest[:n_com], rest[n_com:]
    groups = [f"g{i}" for i in range(draw(st.integers(1, 3)))]
    out = ["# generated by test_fuzz", "language 1",
           f"edition fuzz {quote(draw(names))}", f"source {quote(draw(st.text(max_size=30)))}",
           f"credit policy {draw(st.sampled_from(sorted(vocab.CREDIT_POLICIES)))}",
           "vp tiers { below 100: 1, below 200: 3, else: 6 }",
           f"const k_cities = {draw(small)} {quote(draw(st.text(max_size=10)))}",
           f"const k_half = {draw(small)} / {draw(st.integers(1, 9))}",
           f"option o_flag {draw(st.sampled_from(['on', 'off']))}",
           f"table t_band {{ 0..{draw(small)}: {draw(small)}, 31..: k_cities }}"]
    for g in groups:
        attrs = ""
        if draw(st.booleans()):
            attrs += f" color {quote(draw(st.from_regex(r'#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?', fullmatch=True)))}"
        if draw(st.booleans()):
            attrs += f" symbol {quote(draw(st.text(max_size=3)))}"
        out.append(f"group {g} {quote(draw(names))}{attrs}")
    # every cost first: a specific credit is at most its target's cost (CIV136)
    costs = {name: draw(st.integers(0, 400)) if draw(st.integers(0, 9)) else None for name in advances}
    for i, name in enumerate(advances):
        fields = [f"cost {costs[name]}" if costs[name] is not None else "cost unknown"]
        mine = draw(st.lists(st.sampled_from(groups), min_size=1, max_size=2, unique=True))
        fields.append("groups " + ", ".join(mine))
        credits = draw(st.lists(st.sampled_from(groups), max_size=len(groups), unique=True))
        if credits:
            fields.append("credits " + ", ".join(f"{g} {draw(small)}" for g in credits))
        others = [a for a in advances if a != name]
        if others and draw(st.booleans()):
            target = draw(st.sampled_from(others))
            amount = draw(small) if costs[target] is None else draw(st.integers(0, costs[target]))
            fields.append(f"credit {quote(target)} {amount}")
        earlier = advances[:i]
        if earlier and draw(st.booleans()):
            fields.append("requires " + ", ".join(quote(a) for a in draw(st.lists(
                st.sampled_from(earlier), min_size=1, max_size=2, unique=True))))
        for key in ("summary", "aka", "note"):
            if draw(st.booleans()):
                fields.append(f"{key} {quote(draw(st.text(max_size=20)))}")
        out.append(f"advance {quote(name)} {{\n  " + "\n  ".join(fields) + "\n}")
    for name in commodities:
        out.append(f"commodity {quote(name)} {{ value {draw(st.integers(0, 9))} count {draw(st.integers(1, 9))} "
                   f"stack {draw(st.integers(1, 9))} }}")
    for name in calamities:
        kinds = []
        fields = [f"stack {draw(st.integers(1, 9))}",
                  "class " + draw(st.sampled_from(["minor", "major tradable", "major nontradable"])),
                  "beneficiary " + draw(st.sampled_from(sorted(vocab.BENEFICIARIES)))]
        effects = []
        for _ in range(draw(st.integers(1, 3))):
            kind, call = effect_call(draw, groups)
            kinds.append(kind)
            effects.append(call)
        if draw(st.booleans()):
            kind, call = effect_call(draw, groups)
            kinds.append(kind)
            effects = [f"if {condition(draw, advances, commodities)} {{ {call} }} else {{ {' '.join(effects)} }}"]
        fields.append("primary { " + " ".join(effects) + " }")
        if draw(st.booleans()):
            kind, call = effect_call(draw, groups)
            kinds.append(kind)
            fields.append(f"secondary count {draw(st.integers(1, 4))} {{ {call} }}")
        if draw(st.booleans()):
            fields.append(f"cancel when {condition(draw, advances, commodities)}")
        numeric = sorted({k for k in kinds if vocab.EFFECT_KINDS[k].main is not None
                          and vocab.EFFECT_KINDS[k].param(vocab.EFFECT_KINDS[k].main).kind == "int"})
        for _ in range(draw(st.integers(0, 3))):
            ops = ["immune", "cancel"]
            if numeric:
                k = draw(st.sampled_from(numeric))
                n = draw(small)
                ops += [f"add {k} {n}", f"prevent {k} {n}", f"set {k} {n}", f"cap {k} {n}",
                        f"prevent {k} {n} per advances", f"may replace {k} with lose_treasury({n})"]
            role = draw(st.sampled_from(["", " for primary", " for secondary", " for any"]))
            prio = draw(st.sampled_from(["", f" priority {draw(st.integers(0, 5))}"]))
            chosen = draw(st.lists(st.sampled_from(ops), min_size=1, max_size=3))
            fields.append(f"when {condition(draw, advances, commodities)}{role}{prio} {{ {' '.join(chosen)} }}")
        if draw(st.booleans()):
            fields.append(f"summary {quote(draw(st.text(max_size=20)))}")
        out.append(f"calamity {quote(name)} {{\n  " + "\n  ".join(fields) + "\n}")
    epochs = draw(st.lists(names, min_size=1, max_size=3, unique_by=lambda n: unicodedata.normalize("NFC", n)))
    body = []
    for e in epochs:
        reqs = " ".join(f"require {condition(draw, advances, commodities)} {quote(draw(st.text(max_size=10)))}"
                        for _ in range(draw(st.integers(0, 2))))
        body.append(f"epoch {quote(e)} {{ {reqs} }}")
    out.append(f"ast track {quote(draw(names))} {{ {' '.join(body)} backward when cities == 0 }}")
    out.append("score {\n"
               f"  points {quote(draw(names))} cities * k_cities + advance_vp\n"
               f"  points {quote(draw(names))} t_band(cities) + k_half\n"
               f"  tiebreak {quote(draw(names))} ast_position\n}}")
    out.append(f"assert count(advances) == {len(advances)} {quote(draw(st.text(max_size=20)))}")
    out.append(f"note {quote(draw(st.text(max_size=30)))}")
    return "\n".join(out) + "\n", {"advances": advances, "commodities": commodities, "calamities": calamities}


@FUZZ
@given(rulebooks())
def test_generated_valid_rulebooks_check_and_compile(case):
    text, expected = case
    path = write("valid.civ", text)
    checked = check_file(path)
    assert checked.ok, checked.diagnostics.render() + "\n" + text
    source = generate(checked.edition, {f.display: f.text for f in checked.chain})
    code = compile(source, "effects.py", "exec")
    module = types.ModuleType("fuzz_module")
    sys.modules["fuzz_module"] = module  # the generated module finds itself through sys.modules
    try:
        exec(code, module.__dict__)  # its own code only: data literals and function definitions
    finally:
        del sys.modules["fuzz_module"]
    # names are kept as written, in NFC (one name however its accents were typed)
    nfc = partial(unicodedata.normalize, "NFC")
    assert list(module.ADVANCES) == list(map(nfc, expected["advances"]))
    assert list(module.COMMODITIES) == list(map(nfc, expected["commodities"]))
    assert list(module.CALAMITIES) == list(map(nfc, expected["calamities"]))
    render_everything(checked)


# --- mutated rulebooks ---------------------------------------------------------------------------

LIMIT_NUMBERS = sorted({str(v) for b in FIELDS.values() for v in (b.low - 1, b.low, b.high, b.high + 1) if v >= 0})
SEEDS = {p.name: p.read_text(encoding="utf-8") for p in
         [ROOT / "tests" / "fixtures" / "mini.civ", rulebooks_dir() / "civ1980.civ", rulebooks_dir() / "civ1981.civ",
          *sorted((rulebooks_dir() / "house").glob("*.civ"))]}
SPICE = ['"', "\\", "{", "}", "(", ")", "#", "\n", "\r", "\t", "\u2028", "\u202e", "\ufeff", "\0", "..", ",", "=",
         "not ", " and ", "-", "//", "999999999999", "extends", "../", "\\u12", "é", "🏛", "CIV040"]
SAME_KIND = [  # (a token pattern, hostile values of that kind)
    (r'"(?:[^"\\\n]|\\.)*"', ['""', '"\\u2028"', '"x\\"); import os #"', '"\\"\\"\\""']),
    # numbers at and just beyond every declared bound (civdsl/bounds.py), and beyond any digit limit
    (r"\b\d+\b", ["0", "999999999", "1000000000"] + LIMIT_NUMBERS),
    (r"\b[a-z_][a-z_0-9]*\b", ["cities", "_rt", "s", "role", "none", "any", "__import__"]),
]
insert_text = st.one_of(st.sampled_from(SPICE), st.text(max_size=5), st.text(string.printable, max_size=8))


@st.composite
def mutated(draw):
    name = draw(st.sampled_from(sorted(SEEDS)))
    text = SEEDS[name]
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "swap", "dup_line", "del_line", "truncate", "replace_token",
                                   "same_kind", "same_kind", "same_kind"]))
        n = len(text)
        i = draw(st.integers(0, max(0, n - 1)))
        if op == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 20)):]
        elif op == "insert":
            text = text[:i] + draw(insert_text) + text[i:]
        elif op == "swap":
            j = draw(st.integers(0, max(0, n - 1)))
            i, j = min(i, j), max(i, j)
            if i < j:
                text = text[:i] + text[j] + text[i + 1:j] + text[i] + text[j + 1:]
        elif op in ("dup_line", "del_line"):
            lines = text.split("\n")
            k = draw(st.integers(0, len(lines) - 1))
            lines[k:k + 1] = [lines[k], lines[k]] if op == "dup_line" else []
            text = "\n".join(lines)
        elif op == "truncate":
            text = text[:i]
        elif op == "same_kind":
            # keeps the syntax: a string, number or name replaced by another of the file's own
            # (or a hostile one), to reach the resolver and the validator
            pattern, extra = draw(st.sampled_from(SAME_KIND))
            found = list(re.finditer(pattern, text))
            if found:
                m = draw(st.sampled_from(found))
                new = draw(st.sampled_from(sorted({f.group() for f in found}) + extra))
                text = text[:m.start()] + new + text[m.end():]
        else:
            tokens = text.split(" ")
            k = draw(st.integers(0, len(tokens) - 1))
            tokens[k] = draw(st.sampled_from(["", "1", "-1", '"x"', "cities", "{", "}", "advance", "0", "999999999",
                                              "unknown", "not", "(", ")", "when", "holds(\"Pottery\")"]))
            text = " ".join(tokens)
    return name, text


@FUZZ
@given(mutated())
@example(("mini.civ", SEEDS["mini.civ"].replace("cost 60", "cost 60 cost 70")))
@example(("civ1981.civ", SEEDS["civ1981.civ"][: len(SEEDS["civ1981.civ"]) // 2]))
@example(("civ1980.civ", SEEDS["civ1980.civ"].replace("primary { damage(9) }", "primary { damage(unknown) }")))
@example(("civ1980.civ", SEEDS["civ1980.civ"].replace("prevent damage 4 per", "prevent damage unknown per")))
def test_mutated_rulebooks_give_located_diagnostics_never_exceptions(case):
    name, text = case
    path = write(name, text)  # house rules extend by edition id or by a name beside them
    checked = check_file(path)
    lines_of = {p: src.count("\n") + 1 for p, src in checked.diagnostics.sources.items()}
    for d in checked.diagnostics.items:
        assert d.span is not None, f"{d.code}: {d.message} has no position"
        assert d.span.column >= 1
        if d.span.path in lines_of:
            assert 1 <= d.span.line <= lines_of[d.span.path], (d.span, d.message)
    rendered = checked.diagnostics.render()
    assert "Traceback" not in rendered
    if checked.ok:
        compile(generate(checked.edition, {f.display: f.text for f in checked.chain}), "effects.py", "exec")
        render_everything(checked)


@FUZZ
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash_the_front_end(data):
    path = write("bytes.civ", b"language 1\nedition b \"B\"\n" + data)
    checked = check_file(path)
    for d in checked.diagnostics.errors:
        assert d.span is not None and d.span.line >= 1 and d.span.column >= 1


# --- player state -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def rulebook():
    from civdsl.api import load
    return load("civ1981")


leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=-(10**30), max_value=10**30),
                   st.floats(allow_nan=True), st.text(max_size=12), st.sampled_from(["Pottery", "Grain", "crafts"]))
values = st.recursive(leaves, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                      st.dictionaries(st.text(max_size=8) | st.sampled_from(
                                                          ["Grain", "Salt", "crafts", "arts"]), inner, max_size=4)),
                      max_leaves=12)
keys = st.one_of(st.sampled_from(sorted(vocab.FACTS)), st.text(max_size=10), st.integers(), st.none())
states = st.dictionaries(keys, values, max_size=6)


@FUZZ
@given(states)
def test_random_states_are_accepted_or_refused_with_a_message(rulebook, data):
    module = rulebook.module
    try:
        clean = check_state(data, FACTS, module.ADVANCES, module.COMMODITIES, module.GROUPS)
    except StateError as exc:
        assert str(exc).strip()
        return
    # an accepted state answers questions (or names what is missing), without other exceptions
    try:
        rulebook.resolve("Famine", "primary", [], dict(clean))
        rulebook.score([], dict(clean))
        rulebook.epochs(None, [], dict(clean))
    except StateError:
        pass


yaml_text = st.one_of(
    st.text(max_size=200),
    st.lists(st.tuples(st.sampled_from(sorted(vocab.FACTS) + ["x", "- ", "? "]),
                       st.sampled_from([": 1", ": -1", ": [a, b]", ": {Grain: 2}", ": &a [*a]", ": !!binary aGk=",
                                        ": !!python/name:os.system", ": 1e999", ": '", ': "\\x', ": ~", ":", ""]))
             .map("".join), max_size=8).map("\n".join),
)


@FUZZ
@given(yaml_text)
def test_random_yaml_is_a_mapping_or_a_state_error(text):
    path = write("state.yaml", text)
    try:
        data = parse_yaml(path)
    except StateError as exc:
        assert str(exc).startswith(str(path))
        return
    assert isinstance(data, dict)


@st.composite
def alias_yaml(draw):
    """A state file built from anchors and aliases: nested repeats (up to a "billion laughs"),
    aliases of scalars, mappings and lists, and sometimes a value that contains itself."""
    width, depth = draw(st.integers(1, 12)), draw(st.integers(1, 9))
    leaf = draw(st.sampled_from(['["lol"]', "1", "Pottery", "{Grain: 2}", "[Pottery, Law]"]))
    lines = [f"a0: &a0 {leaf}"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, depth + 1)]
    key = draw(st.sampled_from(sorted(vocab.FACTS)))
    lines.append(f"{key}: *a{draw(st.integers(0, depth))}")
    if draw(st.booleans()):
        lines.append("loop: &loop [x, *loop]")
    return "\n".join(lines) + "\n"


@FUZZ
@given(alias_yaml())
def test_alias_states_are_refused_or_small(rulebook, text):
    path = write("aliases.yaml", text)
    try:
        data = parse_yaml(path)
    except StateError as exc:
        assert str(exc).startswith(str(path))
        return
    # accepted: the value is small whatever its aliases, and checking it is an answer or a message
    assert safeyaml.measure(__import__("yaml").compose(text)) <= safeyaml.MAX_NODES
    module = rulebook.module
    try:
        check_state(data, FACTS, module.ADVANCES, module.COMMODITIES, module.GROUPS)
    except StateError as exc:
        assert str(exc).strip()


def test_the_fuzz_settings_are_bounded():
    assert EXAMPLES > 0
    assert parser.MAX_TOKENS > 0  # and the limits tests keep each example fast
