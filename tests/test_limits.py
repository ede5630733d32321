"""Input limits: every oversized or over-nested input gets a CIV005 diagnostic in bounded time and
memory, never a RecursionError, a MemoryError or a hang. The limits are stated in
docs/security.md (parser.MAX_BYTES, MAX_LINE, MAX_NESTING, MAX_DEPTH, MAX_TOKENS, MAX_DIGITS).

Big inputs run in a subprocess with a timeout, so that a regression shows up as a failed test
rather than a stuck test run; times and peak memory are measured and printed (-s), and asserted
only loosely (this suite runs on small, busy CI machines).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import run_process

from civdsl import parser
from civdsl.codegen import generate
from civdsl.frontend import check_file

ROOT = Path(__file__).resolve().parent.parent
HEAD = 'language 1\nedition big "Big"\n'  # the first two lines of every generated file


def run_timed(*args, timeout=120):
    """The command in its own process (a stuck run is stopped by the timeout, not the suite), and its time."""
    start = time.monotonic()
    proc = run_process(*args, timeout=timeout, cwd=ROOT)
    return proc, time.monotonic() - start


MEASURE = textwrap.dedent("""
    import json, resource, sys, time
    sys.path.insert(0, sys.argv[1])
    from pathlib import Path
    from civdsl.frontend import check_file
    from civdsl.codegen import generate
    out = {}
    start = time.process_time()
    checked = check_file(Path(sys.argv[2]))
    out["check_cpu"] = time.process_time() - start
    out["ok"] = checked.ok
    out["errors"] = [(d.code, d.span.line if d.span else None, d.span.column if d.span else None, d.message)
                     for d in checked.diagnostics.errors[:5]]
    if checked.ok and len(sys.argv) > 3:
        start = time.process_time()
        source = generate(checked.edition, {f.display: f.text for f in checked.chain})
        compile(source, "effects.py", "exec")
        out["generate_cpu"] = time.process_time() - start
    out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))
""")


def measure(path: Path, *, generate_too: bool = False, timeout: int = 180, memory_mb: int = 2048) -> dict:
    """Check (and compile) `path` in a subprocess limited in time and address space."""
    def limit():  # runs in the child: a runaway allocation fails instead of swapping the machine
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 2**20, memory_mb * 2**20))

    start = time.monotonic()
    args = [sys.executable, "-c", MEASURE, str(ROOT), str(path)] + (["generate"] if generate_too else [])
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout, preexec_fn=limit)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    out = json.loads(proc.stdout)
    out["wall"] = time.monotonic() - start
    print(f"\n{path.name}: {out}")
    return out


def first_error(path: Path):
    checked = check_file(path)
    assert not checked.ok
    return checked.diagnostics.errors[0]


# --- size ---------------------------------------------------------------------------------------

def test_huge_file_is_refused_without_reading_it_all(tmp_path):
    path = tmp_path / "huge.civ"
    with open(path, "w") as fh:  # 10 MB of plausible content
        fh.write(HEAD)
        line = 'note "' + "x" * 90 + '"\n'
        for _ in range(10_000_000 // len(line) + 1):
            fh.write(line)
    assert path.stat().st_size > 10_000_000
    proc, elapsed = run_timed("check", path, timeout=60)
    print(f"\n10 MB file: {elapsed:.2f} s")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"{path}:1:1: error[CIV005]" in proc.stderr
    assert elapsed < 30


def test_limit_is_on_bytes_and_exact(tmp_path):
    path = tmp_path / "edge.civ"
    filler = parser.MAX_BYTES - len(HEAD)
    comment = ("#" + "c" * 98 + "\n") * (filler // 100)
    path.write_text(HEAD + comment + "#" * (filler - len(comment)), encoding="utf-8")
    assert path.stat().st_size == parser.MAX_BYTES
    assert check_file(path).ok
    with open(path, "a") as fh:
        fh.write("#")
    err = first_error(path)
    assert (err.code, err.span.line, err.span.column) == ("CIV005", 1, 1)


def test_too_many_tokens_is_refused_quickly(tmp_path):
    path = tmp_path / "tokens.civ"
    # `printed 1,1,1,...` is one token a byte: far more tokens than bytes would suggest
    rows = "".join("  printed " + ",".join(["1"] * 2000) + "\n" for _ in range(80))
    path.write_text(HEAD + 'commodity "Salt" {\n' + rows + "}\n", encoding="utf-8")
    assert path.stat().st_size < parser.MAX_BYTES
    start = time.monotonic()
    err = first_error(path)
    print(f"\n{parser.MAX_TOKENS:,}+ tokens refused in {time.monotonic() - start:.2f} s")
    assert err.code == "CIV005" and "tokens" in err.message
    # 8 tokens on lines 1-3, then 4,000 a row (`printed`, 2,000 ones, 1,999 commas) from line 4
    assert err.span.line == 4 + (parser.MAX_TOKENS + 1 - 8 - 1) // 4000


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("CIVDSL_SLOW"), reason="about 15 s of CPU: set CIVDSL_SLOW=1 to run")
def test_largest_accepted_token_count_checks_in_bounded_time(tmp_path):
    path = tmp_path / "many-notes.civ"
    n = (parser.MAX_TOKENS - 5) // 2  # 5 tokens in the header; `note "x"` is two
    path.write_text(HEAD + 'note "x"\n' * n, encoding="utf-8")
    out = measure(path, timeout=240)
    assert out["ok"], out
    assert out["check_cpu"] < 90, out  # several times what an idle core takes (docs/performance.md)


# --- lines and numbers ------------------------------------------------------------------------

@pytest.mark.parametrize("newline", ["\n", ""], ids=["newline", "end-of-file"])
def test_line_limit_is_exact(tmp_path, newline):
    path = tmp_path / "line.civ"
    line = "#" * parser.MAX_LINE
    path.write_text(HEAD + line + newline, encoding="utf-8")
    assert check_file(path).ok, "a line of exactly MAX_LINE characters is allowed"
    path.write_text(HEAD + line + "#" + newline, encoding="utf-8")
    err = first_error(path)
    assert (err.code, err.span.line, err.span.column) == ("CIV005", 3, 1)
    assert f"{parser.MAX_LINE + 1:,} characters" in err.message


def test_number_with_ten_thousand_digits(tmp_path):
    path = tmp_path / "digits.civ"
    path.write_text(HEAD + "const x =\n" + "9" * 10_000 + "\n", encoding="utf-8")
    err = first_error(path)
    assert (err.code, err.span.line, err.span.column) == ("CIV005", 4, 1)
    assert "10000 digits" in err.message


def test_digit_limit_is_exact(tmp_path):
    path = tmp_path / "d.civ"
    path.write_text(HEAD + f"const x = {'9' * parser.MAX_DIGITS}\n", encoding="utf-8")
    assert check_file(path).ok
    path.write_text(HEAD + f"const x = {'9' * (parser.MAX_DIGITS + 1)}\n", encoding="utf-8")
    assert first_error(path).code == "CIV005"


# --- nesting ----------------------------------------------------------------------------------

@pytest.mark.parametrize("sep", ["", "\n"], ids=["one-line", "one-per-line"])
def test_ten_thousand_parentheses(tmp_path, sep):
    path = tmp_path / "parens.civ"
    path.write_text(HEAD + "const x = " + ("(" + sep) * 10_000 + "1" + (")" + sep) * 10_000 + "\n", encoding="utf-8")
    err = first_error(path)
    assert err.code == "CIV005" and "nested" in err.message
    # the bracket one past the limit
    expected = (3, 11 + parser.MAX_NESTING) if sep == "" else (3 + parser.MAX_NESTING, 1)
    assert (err.span.line, err.span.column) == expected


CHAINS = {
    "plus": ("const x = 1", "\n+ 1", ""),
    "and": ("assert true", "\nand true", ' "m"'),
}


def test_twenty_thousand_term_chains_on_many_lines(tmp_path):
    """The line limit does not catch a chain written one term a line: the depth limit does,
    before the left-deep syntax tree is built and walked recursively."""
    paths = []
    for name, (start, term, end) in CHAINS.items():
        path = tmp_path / f"chain-{name}.civ"
        path.write_text(HEAD + start + term * 20_000 + end + "\n", encoding="utf-8")
        paths.append(path)
    for name, prefix in (("not", "assert\n" + "not\n" * 20_000 + 'true "m"'), ("neg", "const x =\n" + "-\n" * 20_000 + "1")):
        path = tmp_path / f"chain-{name}.civ"
        path.write_text(HEAD + prefix + "\n", encoding="utf-8")
        paths.append(path)
    proc, elapsed = run_timed("check", *paths, timeout=180)
    print(f"\n{len(paths)} chains of 20,000 terms: {elapsed:.1f} s")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "RecursionError" not in proc.stderr
    for path in paths:
        assert f"{path}:" in proc.stderr and "error[CIV005]" in proc.stderr
    for path in paths[: len(CHAINS)]:  # a chain is reported where it starts
        assert f"{path}:3:11: error[CIV005]" in proc.stderr or f"{path}:3:8: error[CIV005]" in proc.stderr


def _chain_rulebook(terms: int) -> str:
    """A valid rulebook whose score line is a chain of `terms` player facts."""
    chain = " + ".join(["cities"] * terms)
    return HEAD + f"score {{\n  points \"p\" {chain}\n}}\n"


def test_depth_limit_boundary_compiles_and_runs_with_little_stack(tmp_path):
    """The deepest expression accepted compiles to Python that CPython accepts (it refuses 200
    nested brackets) and checks and compiles even with a small recursion limit: the limit
    leaves a wide margin below every recursive pass."""
    path = tmp_path / "deep.civ"
    accepted = 0
    for terms in range(50, parser.MAX_DEPTH + 10):
        path.write_text(_chain_rulebook(terms), encoding="utf-8")
        checked = check_file(path)
        if not checked.ok:
            assert checked.diagnostics.errors[0].code == "CIV005"
            break
        accepted = terms
    assert parser.MAX_DEPTH - 10 <= accepted < parser.MAX_DEPTH
    path.write_text(_chain_rulebook(accepted), encoding="utf-8")
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        from civdsl.frontend import check_file
        from civdsl.codegen import generate
        from civdsl.build import render
        sys.setrecursionlimit(450)  # the default is 1000
        checked = check_file(Path({str(path)!r}))
        assert checked.ok, checked.diagnostics.render()
        compile(generate(checked.edition, {{f.display: f.text for f in checked.chain}}), "effects.py", "exec")
        render(checked)
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "ok", proc.stderr[-3000:]


def test_nested_if_blocks_up_to_the_bracket_limit_compile(tmp_path):
    depth = parser.MAX_NESTING // 2 - 2  # an `if` block is one brace level, inside calamity { primary { ... } }
    body = "".join(f"if cities > {i} {{ " for i in range(depth)) + "damage(1) " + "} else { damage(2) } " * depth
    path = tmp_path / "ifs.civ"
    path.write_text(HEAD + f'calamity "C" {{\n stack 2\n class minor\n primary {{ {body} }}\n}}\n', encoding="utf-8")
    checked = check_file(path)
    assert checked.ok, checked.diagnostics.render()
    compile(generate(checked.edition, {f.display: f.text for f in checked.chain}), "effects.py", "exec")


# --- many items -------------------------------------------------------------------------------

def _advances(n: int, reverse: bool = False) -> str:
    def req(i):
        j = i + 1 if reverse else i - 1
        return f'requires "A{j}"' if 0 <= j < n else ""
    return (HEAD + "credit policy best_group\ngroup g \"G\"\ngroup h \"H\"\n" + "".join(
        f'advance "A{i}" {{ cost {10 + i % 200} groups g, h credits g 1 credit "A{(i + 7) % n}" 5 {req(i)} }}\n'
        for i in range(n)))


def test_five_thousand_advances_check_and_compile_in_bounded_time(tmp_path):
    path = tmp_path / "many.civ"
    path.write_text(_advances(5000), encoding="utf-8")
    out = measure(path, generate_too=True, timeout=300)
    assert out["ok"], out["errors"]
    assert out["check_cpu"] < 60, out  # several times what an idle core takes (docs/performance.md)
    assert out["max_rss_mb"] < 1500, out


def test_long_prerequisite_chain_is_checked_without_recursion(tmp_path):
    path = tmp_path / "chain.civ"
    path.write_text(_advances(2000, reverse=True), encoding="utf-8")
    out = measure(path, timeout=180)
    assert out["ok"], out["errors"]


def test_many_syntax_errors_stop_early(tmp_path):
    path = tmp_path / "junk.civ"
    path.write_text(HEAD + "} ) ] , = ..\n" * 30_000, encoding="utf-8")
    start = time.monotonic()
    checked = check_file(path)
    elapsed = time.monotonic() - start
    print(f"\n180,000 junk tokens: {elapsed:.2f} s, {len(checked.diagnostics.errors)} errors")
    assert not checked.ok and len(checked.diagnostics.errors) <= 20
    assert elapsed < 60


def test_constants_cannot_grow_without_bound(tmp_path):
    lines = ["const c0 = " + " * ".join(["999999999"] * 40)]
    for i in range(1, 6):
        lines.append(f"const c{i} = " + " * ".join([f"c{i - 1}"] * 40))
    path = tmp_path / "grow.civ"
    path.write_text(HEAD + "\n".join(lines) + "\n", encoding="utf-8")
    try:
        out = measure(path, timeout=10, memory_mb=1024)
    except (subprocess.TimeoutExpired, AssertionError) as exc:
        pytest.fail(f"no diagnostic in bounded time and memory: {type(exc).__name__}")
    assert not out["ok"] and out["errors"][0][0].startswith("CIV")
