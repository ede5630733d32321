"""The whole front end against the bare parser, in one process on the same files.

For every shipped rulebook (the five editions and the house rules): read, parse, build the
syntax tree, resolve, validate and generate the Python module (checked with `compile()`),
against Lark's LALR parse alone of the same files with the same grammar and options. Prints
both times and their ratio (goal: at most 2x). Run:  python benchmarks/bench_pipeline.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import lark  # noqa: E402

from civdsl import loader, parser  # noqa: E402
from civdsl.codegen import generate  # noqa: E402
from civdsl.frontend import check_file  # noqa: E402
from civdsl.resources import grammar_text, shipped_house_rules, shipped_rulebooks  # noqa: E402


def rulebooks() -> list[Path]:
    return list(shipped_rulebooks().values()) + shipped_house_rules()


def bare_parser() -> lark.Lark:
    """The same grammar and options as civdsl.parser, built the same way (without its cache)."""
    return lark.Lark(grammar_text(), **parser.LARK_OPTIONS)


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main(repeat: int = 7) -> None:
    paths = rulebooks()
    texts = [parser.normalise(p.read_text(encoding="utf-8")) for p in paths]
    lark_parser = bare_parser()
    parser._parser()  # both parsers built before timing

    def bare():
        for text in texts:
            lark_parser.parse(text)

    def pipeline():
        loader._PARSED.clear()  # no syntax trees from an earlier round
        for path in paths:
            checked = check_file(path)
            assert checked.ok, checked.diagnostics.render()
            generate(checked.edition, {f.display: f.text for f in checked.chain})

    pipeline()  # import everything once
    t_bare = best_of(bare, repeat)
    t_pipe = best_of(pipeline, repeat)
    size = sum(len(t) for t in texts)
    print(f"{len(paths)} shipped rulebooks, {size:,} characters (best of {repeat}, CPU time)")
    print(f"bare Lark LALR parse:  {t_bare * 1000:7.1f} ms")
    print(f"full pipeline:         {t_pipe * 1000:7.1f} ms  (parse, syntax tree, resolve, validate, generate + compile)")
    print(f"ratio pipeline/parse = {t_pipe / t_bare:.2f} (goal: at most 2)")


if __name__ == "__main__":
    main()
