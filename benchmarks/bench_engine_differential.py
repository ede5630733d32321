"""Both engines on many random states per edition: the page's JavaScript (its planner's programme
generated from civdsl/plan/search.py by civdsl/companion/py2es.py) in Node against the Python
engine, answer for answer.

    python benchmarks/bench_engine_differential.py [--states 10000] [--first 100000] [--editions megaciv,...] [--page]
        [--standing | --resolve]

For each edition, `--states` random states (drawn as tests/test_companion_cost_plan.py draws its
random plans: holds, hand, treasury, credits, an objective, wanted and avoided advances, several
plans, and in turn the whole deck, --explain and the two-turn look-ahead), each asked as `plan` and
as `cost`; seeds from `--first` on (the tests use seeds below 100). Every answer must equal the
command line's (companion_harness.first_difference); the first differences are printed and the exit
code is 1 if there is any. With --page the JavaScript is the page's own copy (the first script of
companion.html: short local names, functions nothing reaches left out, minified). Prints the count and time per edition. Needs `node`. It is long (the
Python engine answers about 80,000 questions at the default size): a benchmark, not a test.
With --standing the questions are `epoch` and `score` instead (the generated standing.py and
handvalue.py), on the random states tests/test_companion_equality.py draws, with rule switches;
with --resolve they are that draw's `resolve` questions (every calamity, both roles: the rules'
JavaScript over the generated losses.py and calamity_answer.py).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import re  # noqa: E402

import civdsl  # noqa: E402
from companion_harness import cli_answer, first_difference, js_answers, node_available, run_engine  # noqa: E402
import test_companion_cost_plan as questions  # noqa: E402  (registers the Python answers of cost and plan)
import test_companion_equality as equality  # noqa: E402

EDITIONS = ("megaciv", "expansion", "civ1981", "civ1980")


def page_engine(edition: str) -> str:
    from civdsl.companion.page import companion_html
    from companion_harness import checked_edition

    return re.findall(r"<script>(.*?)</script>", companion_html(civdsl.load(edition).module, checked_edition(edition)),
                      re.S)[0]


def standing_queries(edition: str, seeds: range, commands: tuple = ("epoch", "score")) -> list[tuple[int, str, dict]]:
    """COMMANDS' questions on one random state per seed (some facts absent, rule switches set)."""
    import random

    module = civdsl.load(edition).module
    out = []
    for seed in seeds:
        rng = random.Random(f"standing:{edition}:{seed}")
        state = equality.random_state(module, rng, dense=rng.choice((0.3, 0.7, 1.0)))
        out += [(seed, name, q) for name, q in equality._questions(module, state, f"seed {seed}", rng)
                if q["command"] in commands]
    return out


def compare(edition: str, states: int, first: int, page: bool, chunk: int = 500,
            standing: bool = False, resolve: bool = False) -> tuple[int, list[str], float, float]:
    """(answers compared, differences, seconds in Node, seconds in Python) for one edition."""
    asked, differences, node_s, python_s = 0, [], 0.0, 0.0
    script = page_engine(edition) if page else None
    if resolve:
        def draw(edition, seeds):
            return standing_queries(edition, seeds, ("resolve",))
    else:
        draw = standing_queries if standing else questions._random_queries
    for start in range(first, first + states, chunk):
        batch = draw(edition, range(start, min(start + chunk, first + states)))
        if page:  # the page leaves out the look-ahead and --explain (page.PAGE_LEAVES_OUT): asked without
            for _, _, q in batch:
                q["options"].pop("explain", None)
                q["options"].pop("horizon", None)
        queries = [q for _, _, q in batch]
        t = time.perf_counter()
        got = run_engine(script, queries) if page else js_answers(edition, queries)
        node_s += time.perf_counter() - t
        for (_, name, query), answer in zip(batch, got):
            t = time.perf_counter()
            expected = cli_answer(edition, query)
            python_s += time.perf_counter() - t
            found = f"crash: {answer['crash']}" if "crash" in answer else first_difference(expected, answer)
            if found:
                differences.append(f"{name}: {found}")
            asked += 1
    return asked, differences, node_s, python_s


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--states", type=int, default=10000)
    ap.add_argument("--first", type=int, default=100000)
    ap.add_argument("--editions", default=",".join(EDITIONS))
    ap.add_argument("--page", action="store_true", help="the page's own copy of the engine")
    ap.add_argument("--standing", action="store_true", help="epoch and score instead of plan and cost")
    ap.add_argument("--resolve", action="store_true", help="resolve (every calamity) instead of plan and cost")
    args = ap.parse_args(argv)
    if not node_available():
        print("node is not installed")
        return 2
    failed = False
    for edition in args.editions.split(","):
        asked, differences, node_s, python_s = compare(edition, args.states, args.first, args.page,
                                                       standing=args.standing, resolve=args.resolve)
        print(f"{edition:<10} {args.states} states, {asked} answers: {len(differences)} different "
              f"(Node {node_s:.1f} s, Python {python_s:.1f} s)", flush=True)
        for d in differences[:5]:
            print(f"  {d}")
        failed = failed or bool(differences)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
