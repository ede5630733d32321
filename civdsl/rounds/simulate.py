"""Round rules at play: one phase or one round of a state (`step`), and many seeded games from a
fresh setup (`simulate`), with the trace and the report in words.

Nothing here names a game: everything is read from the generated module of an edition that
declares round rules. Every random choice comes from a `random.Random` made from the seed, never
from the global generator, so the same seed always gives the same games.
"""

from __future__ import annotations

import random

from ..errors import StateError
from .runtime import GameState, card_text, new_game, number, play_round, run_phase
from .state import require_rounds


def words(name: str) -> str:
    """A stat's, flag's, pool's or table's name as a player reads it: `at_war` is "at war"."""
    return str(name).replace("_", " ")


def shown(value) -> str:
    """A value as a player reads it: a flag yes or no, an unknown "unknown", a number as it is."""
    if value is True or value is False:
        return "yes" if value else "no"
    value = number(value)
    return "unknown" if value is None else str(value)


def _changed(e: dict) -> str:
    sign = "+" if e["by"] >= 0 else ""
    text = f"{words(e['name'])} {sign}{e['by']}: {shown(e['before'])} -> {shown(e['after'])}"
    return text + (f" ({e['stage']})" if e["op"] == "move" and e.get("stage") else "")


def _rolled(e: dict) -> str:
    terms = ", ".join(f"{t['label']} {t['dice']}" for t in e["terms"])
    return f"roll {words(e['pool'])}: {len(e['dice'])}d{e['sides']} ({terms}) -> {e['dice']} = {e['result']}"


# each kind of trace entry (its `op`, written by rounds.runtime.RoundState) in words
_ENTRY_WORDS = {
    "set": lambda e: f"{words(e['name'])} = {shown(e['after'])}" + (f" (was {shown(e['before'])})"
                                                                    if e["before"] != e["after"] else ""),
    "add": _changed,
    "move": _changed,
    "reset": lambda e: f"{words(e['name'])} reset to {shown(e['after'])}",
    "roll": _rolled,
    "event": lambda e: f"{words(e['table'])}: rolled {e['face']} -> {e['row']}",
    "threshold": lambda e: f"threshold {words(e['label'])}: {e['state']}",
    "reached": lambda e: f"{words(e['track'])} reached {e['position']}: {e['label']}",
    "instead": lambda e: f"instead of the rule at line{'s' if len(e['replaces']) > 1 else ''} "
                         + ", ".join(map(str, e["replaces"])),
    "draw": lambda e: f"draw {e['asked']}: " + (", ".join(e["cards"]) or "no card"),
    "discard": lambda e: f"discard to {e['to']}: " + (", ".join(e["cards"]) or "nothing to discard"),
    "shuffle": lambda e: f"shuffle ({e['cards']} cards)",
    "reshuffle": lambda e: f"reshuffle ({e['cards']} cards)",
    "end": lambda e: f"the game ends: {e['why']}",
}


def describe_entry(e: dict) -> str:
    """One trace entry in words."""
    words = _ENTRY_WORDS.get(e["op"])
    return words(e) if words is not None else e["op"]


def trace_lines(module, trace: list[dict]) -> list[str]:
    out = []
    phase = None
    names = {pid: name for pid, name, _ in module.PHASES}
    for e in trace:
        if e["phase"] != phase:
            phase = e["phase"]
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
    lines.extend(_stat_lines(module, new.values, before))
    lines.extend(_table_lines(module, new))
    return "\n".join(lines)


def _table_lines(module, state: GameState) -> list[str]:
    """What is on the table besides the stats: the hand (in a game of cards), the thresholds on,
    and why the game ended, if it did."""
    lines = []
    if module.CARD_DECK is not None:
        lines.append(f"hand ({len(state.hand)}): " + (", ".join(card_text(c) for c in state.hand) or "empty"))
    if state.on:
        lines.append("thresholds on: " + ", ".join(words(t) for t in sorted(state.on)))
    if state.ended:
        lines.append(f"the game has ended: {state.ended}")
    return lines


def _stat_lines(module, values: dict, before: dict) -> list[str]:
    """Each stat, flag and track: its value, a track's stage, and what it was if it changed."""
    width = max((len(n) for n in values), default=0)
    lines = []
    for name, value in values.items():
        old = before.get(name)
        change = f"   (was {shown(old)})" if old != value else ""
        label = _stage(module, name, value)
        stage = f"  {label}" if label else ""
        lines.append(f"  {words(name):<{width}}  {shown(value)}{stage}{change}")
    return lines


def _stage(module, name: str, value) -> str | None:
    """The label of the stage of a track that a value falls in (None for a stat or flag, or
    between stages)."""
    stages = module.TRACKS[name]["stages"] if name in module.TRACKS else ()
    return next((label for low, high, label in stages if low <= value <= high), None)


def run_seed(seed: int, run: int) -> random.Random:
    """The generator of one simulated game: fixed by the seed and the run's number."""
    return random.Random(f"civdsl-simulate:{seed}:{run}")


# Rounds one simulation may play (games x rounds per game). The card game plays about 15,000
# rounds a second on one core of the test machine, so this is at most about six minutes; the
# options alone (10,000 rounds, 1,000,000 games) would allow 10^10 rounds, about a week.
MAX_ROUNDS_PLAYED = 5_000_000


def check_size(rounds: int, runs: int) -> None:
    if rounds * runs > MAX_ROUNDS_PLAYED:
        raise StateError(f"--rounds {rounds:,} x --runs {runs:,} is {rounds * runs:,} rounds; one simulation plays "
                         f"at most {MAX_ROUNDS_PLAYED:,}")


def simulate(module, rounds: int, runs: int, seed: int, stats: dict | None = None, choices: dict | None = None,
             progress=None) -> dict:
    """Play `runs` games of at most `rounds` rounds each from a fresh setup; for every event (a
    threshold or flag switching on, a track mark reached, the game ending) count in how many games
    it happened by each round, and summarise each stat at the end."""
    check_size(rounds, runs)
    require_rounds(module)
    labels = event_labels(module)
    tally = _Tally(labels, module.STATS)
    for run in range(runs):
        tally.add(*_play_game(module, rounds, run_seed(seed, run), stats, choices))
        if progress is not None:
            progress(1)
    return {
        "edition": module.EDITION["id"], "rounds": rounds, "runs": runs, "seed": seed,
        "events": {key: _event_summary(labels[key], firsts, rounds, runs) for key, firsts in tally.events.items()},
        "stats": {name: _summary(values) for name, values in tally.finals.items()},
        "rounds_played": _summary(tally.lengths),
    }


class _Tally:
    """What a simulation keeps of each game: the round each event first happened in (None: it
    did not), each stat at the end, and the rounds played."""

    def __init__(self, events, stats):
        self.events: dict[str, list[int | None]] = {key: [] for key in events}
        self.finals: dict[str, list] = {name: [] for name in stats}
        self.lengths: list[int] = []

    def add(self, state: GameState, first: dict[str, int]) -> None:
        for key, firsts in self.events.items():
            firsts.append(first.get(key))
        for name, values in self.finals.items():
            values.append(state.values[name])
        self.lengths.append(state.round)


def _event_summary(label: str, firsts: list[int | None], rounds: int, runs: int) -> dict:
    """An event's line of the report: the share of games it happened in by each round, in all,
    and the mean round it first happened in."""
    by_round = _cumulative(firsts, rounds, runs)
    return {"label": label, "by_round": by_round, "share": by_round[-1] if by_round else 0.0,
            "mean_first_round": _mean([r for r in firsts if r is not None])}


def event_labels(module) -> dict[str, str]:
    """The events a simulation counts, by key: thresholds and flags switching on, track marks
    reached, and the end of the game."""
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
    return labels


def _play_game(module, rounds: int, rng: random.Random, stats: dict | None, choices: dict | None):
    """One game from a fresh setup: the final state and the round each event first happened."""
    state, _ = new_game(module, rng)
    if stats:
        state.values.update(stats)
        state.settled = False
    state.choices.update(choices or {})
    first: dict[str, int] = {}
    for _ in range(rounds):
        state, trace = play_round(module, state, rng)
        for e in trace:
            key = _event_key(e)
            if key is not None:
                first.setdefault(key, state.round)
        if state.ended:
            first.setdefault("end", state.round)
            break
    return state, first


def _event_key(e: dict) -> str | None:
    """The event a trace entry is, in event_labels' keys, or None."""
    if e["op"] == "threshold" and e["state"] == "on":
        return f"threshold:{e['name']}"
    if e["op"] == "reached":
        return f"mark:{e['track']}:{e['position']}"
    if e["op"] == "set" and e["after"] is True and e["before"] is False:
        return f"flag:{e['name']}"
    return None


def _cumulative(firsts: list, rounds: int, runs: int) -> list[float]:
    """The share of games in which an event had happened by each round."""
    counts = [0] * (rounds + 1)
    for r in firsts:
        if r is not None:
            counts[r] += 1
    cumulative, total = [], 0
    for r in range(1, rounds + 1):
        total += counts[r]
        cumulative.append(total / runs if runs else 0.0)
    return cumulative


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
    lines.extend(_stat_table(result))
    return "\n".join(lines)


def _stat_table(result: dict) -> list[str]:
    """The report's second table: each stat's spread at the end of the games, and the rounds played."""
    lines = [f"{'stat at the end':<22}{'mean':>10}{'min':>8}{'p10':>8}{'p50':>8}{'p90':>8}{'max':>8}"]
    rows = dict(result["stats"])
    rows["(rounds played)"] = result["rounds_played"]
    for name, s in rows.items():
        if s["mean"] is not None:
            lines.append(f"{clip(words(name), 20):<22}{s['mean']:>10.1f}{s['min']:>8}{s['p10']:>8}{s['p50']:>8}"
                         f"{s['p90']:>8}{s['max']:>8}")
    return lines


def clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
