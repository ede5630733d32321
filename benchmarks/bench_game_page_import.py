"""Benchmark of a game file's import on the game page, in Node: what the page's interface asks of its
engine when a player imports a recorded game (page/game.js, importFile then render), phase by phase:
the file read (`readFile`: the translated gametext and gamecheck), the replay (`replay`: every event
applied by the translated ledger), the file written for the browser's storage (`fileText`), what the
table shows (`shown`: the texts `game show` prints) and the turn picker's counts (`eventsUpToTurn`,
where the page has one).

    python benchmarks/bench_game_page_import.py [--runs 7] [--html PAGE] [GAME.yaml]

GAME defaults to the 18-player Mega Civilization game of tests/games/ (1,919 events); PAGE to the game
page `civdsl build` renders for its edition now. Give the game page of another tree (`--html
/tmp/base/generated/megaciv/game.html`) to compare two trees: run the two in turn, several times, on
a machine under load. Printed: each phase's time in the first run (a page imports once, its code not yet compiled
by the JIT), its median and least over the runs, in ms; the DOM's own
work is not timed (Node has none).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from companion_harness import NODE, node_available  # noqa: E402

# An import replays every event of the file once, so its budget is per event: a recorded game of
# the largest table (18 players, 12 turns) imports in the wait of opening a saved document, on the
# phone profile of bench_ledger_page.py (a phone taken as PHONE_FACTOR times slower than this
# machine's Node); one added event keeps its own budget there.
IMPORT_BUDGET_MS_PER_EVENT = 0.5
PHONE_FACTOR = 4

DRIVER = r"""
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const G = globalThis.civdslGame;
const times = {};
function timed(name, fn) {
  const started = process.hrtime.bigint();
  const value = fn();
  (times[name] = times[name] || []).push(Number(process.hrtime.bigint() - started) / 1e6);
  return value;
}
for (let run = 0; run < input.runs; run++) {
  const read = timed("readFile", () => G.readFile(input.text));
  if (read.refused) throw new Error(JSON.stringify(read.refused));
  const replayed = timed("replay", () => G.replay(read.setup, read.events));
  if (!replayed.game || replayed.refused) throw new Error(JSON.stringify(replayed.refused));
  timed("fileText", () => G.fileText(read.setup, read.events));
  timed("shown", () => G.shown(replayed.game, ""));
  if (G.turnEnds) timed("turnEnds", () => G.turnEnds(read.events));
  // an event added: the file kept in the store, written whole or (where the page can) its line appended
  const last = read.events.slice(-1);
  const before = G.fileText(read.setup, read.events.slice(0, -1));
  timed("keep: whole", () => G.fileText(read.setup, read.events));
  if (G.fileAppended) timed("keep: appended", () => G.fileAppended(read.setup, before, read.events.length - 1, last));
}
process.stdout.write(JSON.stringify(times));
"""


def engine_of(html: str) -> str:
    """The page's first script: the engine with the ledger and its host."""
    return re.findall(r"<script>(.*?)</script>", html, re.S)[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--html", type=Path)
    parser.add_argument("game", nargs="?", type=Path, default=ROOT / "tests" / "games" / "megaciv-18.yaml")
    args = parser.parse_args()
    if not node_available():
        print("node is not installed")
        return 1
    text = args.game.read_text(encoding="utf-8")
    from civdsl.ledger import gamefile

    events = len(gamefile.read(args.game).events)
    if args.html is not None:
        html = args.html.read_text(encoding="utf-8")
    else:
        from test_game_page import pages

        import civdsl

        html, _ = pages(civdsl.load(gamefile.read(args.game).setup["edition"]).module.EDITION["id"])
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "import.js"
        script.write_text(engine_of(html) + DRIVER, encoding="utf-8")
        done = subprocess.run([NODE, str(script)], input=json.dumps({"text": text, "runs": args.runs}),
                              capture_output=True, text=True, timeout=1200)
    if done.returncode != 0:
        print(done.stderr[-3000:])
        return 1
    total = 0.0
    first = 0.0
    for name, ms in json.loads(done.stdout).items():
        total += sorted(ms)[len(ms) // 2]
        first += ms[0]
        print(f"{name:15} first {ms[0]:8.1f} ms  median {sorted(ms)[len(ms) // 2]:8.1f} ms  least {min(ms):8.1f} ms")
    print(f"{'in all':15} first {first:8.1f} ms  median {total:8.1f} ms ({args.game.name}, {args.runs} runs)")
    per_event = IMPORT_BUDGET_MS_PER_EVENT * events
    print(f"goal: a whole game imported within {IMPORT_BUDGET_MS_PER_EVENT} ms an event in Node "
          f"({IMPORT_BUDGET_MS_PER_EVENT * PHONE_FACTOR:g} ms on the phone profile): {per_event:.0f} ms for its "
          f"{events:,} events; the median run {total / events:.3f} ms an event, "
          f"{'met' if total <= per_event else 'NOT met'} (the first run, before the JIT: {first / events:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
