"""Round rules at play: one phase or one round of a state (`step`), and many seeded games from a
fresh setup (`simulate`), with the trace and the report in words.

Nothing here names a game: everything is read from the generated module of an edition that
declares round rules. Every random choice comes from a `random.Random` made from the seed, never
from the global generator, so the same seed always gives the same games.
"""

from __future__ import annotations

import random

from .runtime import GameState, card_text, new_game, number, play_round, run_phase
from .state import require_rounds


def describe_entry(e: dict) -> str:
    """One trace entry in words."""
    op = e["op"]
    if op == "set":
        return f"{e['name']} = {_num(e['after'])}" + (f" (was {_num(e['before'])})" if e["before"] != e["after"] else "")
    if op in ("add", "move"):
        sign = "+" if e["by"] >= 0 else ""
        text = f"{e['name']} {sign}{e['by']}: {_num(e['before'])} -> {_num(e['after'])}"
        if op == "move" and e.get("stage"):
            text += f" ({e['stage']})"
        return text
    if op == "reset":
        return f"{e['name']} reset to {_num(e['after'])}"
    if op == "roll":
        terms = ", ".join(f"{t['label']} {t['dice']}" for t in e["terms"])
        return f"roll {e['pool']}: {len(e['dice'])}d{e['sides']} ({terms}) -> {e['dice']} = {e['result']}"
    if op == "event":
        return f"{e['table']}: rolled {e['face']} -> {e['row']}"
    if op == "threshold":
        return f"threshold {e['label']}: {e['state']}"
    if op == "reached":
        return f"{e['track']} reached {e['position']}: {e['label']}"
    if op == "instead":
        return f"instead of the rule at line{'s' if len(e['replaces']) > 1 else ''} " + \
            ", ".join(map(str, e["replaces"]))
    if op == "draw":
        return f"draw {e['asked']}: " + (", ".join(e["cards"]) or "no card")
    if op == "discard":
        return f"discard to {e['to']}: " + (", ".join(e["cards"]) or "nothing to discard")
    if op in ("shuffle", "reshuffle"):
        return f"{op} ({e['cards']} cards)"
    if op == "end":
        return f"the game ends: {e['why']}"
    return op


def _num(v):
    return number(v)


def trace_lines(module, trace: list[dict]) -> list[str]:
    out = []
    phase = None
    for e in trace:
        if e["phase"] != phase:
            phase = e["phase"]
            names = {pid: name for pid, name, _ in module.PHASES}
            out.append(f"{names.get(phase, phase)}:")
        where = f"  [{module.SOURCE_PATH}:{e['line']}]" if e.get("line") else ""
        rule = f"{e['rule']}: " if e.get("rule") else ""
        out.append(f"  {rule}{describe_entry(e)}{where}")
    return out


def step(module, state: GameState, phase: str | None, rng: random.Random):
    """One phase (by id), or a whole round when `phase` is None."""
    if phase is None:
        return play_round(module, state, rng)
    return run_phase(module, phase, state, rng)


def render_step(module, new: GameState, before: dict, trace: list[dict], phase: str | None, seed: int) -> str:
    """The text `civdsl step` prints: what was applied, the trace, the stats and what changed."""
    what = f"phase {phase}" if phase else f"round {new.round}"
    lines = [f"{module.EDITION['name']}: {what} (seed {seed})"]
    lines.extend(trace_lines(module, trace))
    lines.append("stats:")
    width = max((len(n) for n in new.values), default=0)
    for name, value in new.values.items():
        old = before.get(name)
        change = f"   (was {_num(old)})" if old != value else ""
        stage = ""
        if name in module.TRACKS:
            label = next((lb for lo, hi, lb in module.TRACKS[name]["stages"] if lo <= value <= hi), None)
            stage = f"  {label}" if label else ""
        lines.append(f"  {name:<{width}}  {_num(value)}{stage}{change}")
    if module.CARD_DECK is not None:
        lines.append(f"hand ({len(new.hand)}): " + (", ".join(card_text(c) for c in new.hand) or "empty"))
    if new.on:
        lines.append("thresholds on: " + ", ".join(sorted(new.on)))
    if new.ended:
        lines.append(f"the game has ended: {new.ended}")
    return "\n".join(lines)


def run_seed(seed: int, run: int) -> random.Random:
    """The generator of one simulated game: fixed by the seed and the run's number."""
    return random.Random(f"civdsl-simulate:{seed}:{run}")


def simulate(module, rounds: int, runs: int, seed: int, stats: dict | None = None, choices: dict | None = None,
             progress=None) -> dict:
    """Play `runs` games of at most `rounds` rounds each from a fresh setup; for every event (a
    threshold or flag switching on, a track mark reached, the game ending) count in how many games
    it happened by each round, and summarise each stat at the end."""
    require_rounds(module)
    events: dict[str, list[int | None]] = {}
    labels: dict[str, str] = {}
    for name, th in module.THRESHOLDS.items():
        labels[f"threshold:{name}"] = th["name"]
    for name, fl in module.FLAGS.items():
        if not fl["initial"]:
            labels[f"flag:{name}"] = fl["name"]
    for name, tr in module.TRACKS.items():
        for pos, (label, _fn, _line) in tr["marks"].items():
            labels[f"mark:{name}:{pos}"] = f"{tr['name']}: {label}"
    if module.ENDS:
        labels["end"] = "the game ended"
    for key in labels:
        events[key] = []
    finals: dict[str, list] = {name: [] for name in module.STATS}
    lengths = []
    for run in range(runs):
        rng = run_seed(seed, run)
        state, _ = new_game(module, rng)
        if stats:
            state.values.update(stats)
            state.settled = False
        state.choices.update(choices or {})
        first: dict[str, int] = {}
        played = 0
        for _ in range(rounds):
            state, trace = play_round(module, state, rng)
            played = state.round
            for e in trace:
                op = e["op"]
                if op == "threshold" and e["state"] == "on":
                    first.setdefault(f"threshold:{e['name']}", played)
                elif op == "reached":
                    first.setdefault(f"mark:{e['track']}:{e['position']}", played)
                elif op == "set" and e["after"] is True and e["before"] is False:
                    first.setdefault(f"flag:{e['name']}", played)
            if state.ended:
                first.setdefault("end", played)
                break
        for key in events:
            events[key].append(first.get(key))
        for name in finals:
            finals[name].append(state.values[name])
        lengths.append(played)
        if progress is not None:
            progress(1)
    by_round = {}
    for key, firsts in events.items():
        counts = [0] * (rounds + 1)
        for r in firsts:
            if r is not None:
                counts[r] += 1
        cumulative, total = [], 0
        for r in range(1, rounds + 1):
            total += counts[r]
            cumulative.append(total / runs if runs else 0.0)
        by_round[key] = cumulative
    return {
        "edition": module.EDITION["id"], "rounds": rounds, "runs": runs, "seed": seed,
        "events": {key: {"label": labels[key], "by_round": by_round[key],
                         "share": by_round[key][-1] if by_round[key] else 0.0,
                         "mean_first_round": _mean([r for r in events[key] if r is not None])}
                   for key in labels},
        "stats": {name: _summary(values) for name, values in finals.items()},
        "rounds_played": _summary(lengths),
    }


def _mean(values: list) -> float | None:
    return sum(values) / len(values) if values else None


def _summary(values: list) -> dict:
    if not values:
        return {"mean": None, "min": None, "p10": None, "p50": None, "p90": None, "max": None}
    ordered = sorted(values)

    def q(p: float):
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))]

    return {"mean": sum(ordered) / len(ordered), "min": ordered[0], "p10": q(0.1), "p50": q(0.5), "p90": q(0.9),
            "max": ordered[-1]}


def checkpoints(rounds: int) -> list[int]:
    marks = [r for r in (1, 2, 3, 5, 10, 15, 20, 25, 30, 40, 50, 75, 100) if r < rounds]
    return marks + [rounds]


def render_report(result: dict) -> str:
    lines = [f"{result['runs']} games of up to {result['rounds']} rounds (seed {result['seed']}), "
             f"edition {result['edition']}"]
    cps = checkpoints(result["rounds"])
    head = "".join(f"{'by ' + str(r):>9}" for r in cps)
    lines.append("")
    lines.append(f"{'share of games in which, by round':<52}{head}   mean round")
    for key, ev in result["events"].items():
        row = "".join(f"{ev['by_round'][r - 1] * 100:8.1f}%" for r in cps)
        mean = f"{ev['mean_first_round']:.1f}" if ev["mean_first_round"] is not None else "-"
        lines.append(f"{clip(ev['label'], 50):<52}{row}   {mean:>10}")
    lines.append("")
    lines.append(f"{'stat at the end':<22}{'mean':>10}{'min':>8}{'p10':>8}{'p50':>8}{'p90':>8}{'max':>8}")
    rows = dict(result["stats"])
    rows["(rounds played)"] = result["rounds_played"]
    for name, s in rows.items():
        if s["mean"] is None:
            continue
        lines.append(f"{clip(name, 20):<22}{s['mean']:>10.1f}{s['min']:>8}{s['p10']:>8}{s['p50']:>8}{s['p90']:>8}"
                     f"{s['max']:>8}")
    return "\n".join(lines)


def clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
