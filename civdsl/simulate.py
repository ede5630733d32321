"""Round rules at play: `civdsl step` (one phase or one round, with the trace of every rule that
fired), `civdsl simulate` (many seeded games, with distributions and a plot), and the printable
reference of an edition's round rules.

Nothing here names a game: everything is read from the generated module of an edition that
declares round rules (stats, phases, dice pools, tracks, event tables, a deck of cards). Every
random choice comes from a `random.Random` made from the seed, never from the global generator,
so the same seed always gives the same games.
"""

from __future__ import annotations

import random
from pathlib import Path

from . import runtime
from .diagnostics import did_you_mean
from .state import StateError, parse_assignment

STATE_KEYS = ("round", "stats", "hand", "deck", "discard", "thresholds_on", "choices", "ended")


def _hint(name: str, candidates) -> str:
    best = did_you_mean(str(name), candidates)
    return f" (did you mean `{best}`?)" if best else ""


def require_rounds(module) -> None:
    if not hasattr(module, "PHASES") or not module.PHASES:
        raise StateError(f"edition `{module.EDITION['id']}` declares no phases: it is not played in rounds")


# --- states -----------------------------------------------------------------------------------

def _parse_card(module, text, where: str):
    if not isinstance(text, str) or " of " not in text:
        raise StateError(f"{where}: a card is written `RANK of SUIT` (e.g. `10 of Hearts`), not {text!r}")
    rank, suit = text.rsplit(" of ", 1)
    card = (rank.strip(), suit.strip())
    if card not in module.CARDS:
        ranks = [r for r, _ in module.CARD_DECK["ranks"]] if module.CARD_DECK else []
        suits = [s for s, _ in module.CARD_DECK["suits"]] if module.CARD_DECK else []
        if card[0] not in ranks:
            raise StateError(f"{where}: unknown rank `{card[0]}`{_hint(card[0], ranks)}")
        raise StateError(f"{where}: unknown suit `{card[1]}`{_hint(card[1], suits)}")
    return card


def _value(module, name: str, value, where: str):
    if name in module.FLAGS:
        if not isinstance(value, bool):
            raise StateError(f"{where}: `{name}` is a flag: true or false, not {value!r}")
        return value
    spec = module.STATS.get(name) or module.TRACKS.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise StateError(f"{where}: `{name}` must be a whole number, not {value!r}")
    if spec["low"] is not None and value < spec["low"] or spec["high"] is not None and value > spec["high"]:
        low = "" if spec["low"] is None else spec["low"]
        high = "" if spec["high"] is None else spec["high"]
        raise StateError(f"{where}: `{name}` = {value} is outside its bounds {low}..{high}")
    return value


def state_from_data(module, data: dict, rng: random.Random, source: str = "state") -> runtime.GameState:
    """A GameState from a state file's mapping; values not given keep their initial value, and
    cards not in the hand or discard pile form the draw pile, shuffled with `rng`."""
    require_rounds(module)
    if not isinstance(data, dict):
        raise StateError(f"{source}: a state is a mapping (round, stats, hand, ...)")
    for key in data:
        if key not in STATE_KEYS:
            raise StateError(f"{source}: unknown key `{key}`{_hint(key, STATE_KEYS)}; "
                             f"a state has {', '.join(STATE_KEYS)}")
    state = runtime.new_state(module)
    names = list(module.STATS) + list(module.FLAGS) + list(module.TRACKS)
    stats = data.get("stats") or {}
    if not isinstance(stats, dict):
        raise StateError(f"{source}: `stats` is a mapping of name: value")
    for name, value in stats.items():
        if name not in names:
            raise StateError(f"{source}: `stats` names unknown `{name}`{_hint(name, names)}")
        state.values[name] = _value(module, name, value, f"{source}: stats.{name}")
    piles = {}
    seen: dict = {}
    for pile in ("hand", "deck", "discard"):
        if pile not in data or data[pile] is None:
            continue
        if not isinstance(data[pile], list):
            raise StateError(f"{source}: `{pile}` is a list of cards")
        if data[pile] and module.CARD_DECK is None:
            raise StateError(f"{source}: `{pile}`: edition `{module.EDITION['id']}` has no cards")
        cards = []
        for i, text in enumerate(data[pile]):
            card = _parse_card(module, text, f"{source}: {pile}[{i}]")
            if card in seen:
                raise StateError(f"{source}: {runtime.card_text(card)} is in `{seen[card]}` and `{pile}`: "
                                 f"each card exists once")
            seen[card] = pile
            cards.append(card)
        piles[pile] = cards
    state.hand = piles.get("hand", [])
    state.discard = piles.get("discard", [])
    if "deck" in piles:
        state.deck = piles["deck"]
    else:
        state.deck = [c for c in state.deck if c not in seen]
        rng.shuffle(state.deck)
    limit = module.CARD_DECK["hand_limit"] if module.CARD_DECK else None
    if limit is not None and len(state.hand) > limit:
        raise StateError(f"{source}: `hand` holds {len(state.hand)} cards; the hand limit is {limit}")
    on = data.get("thresholds_on") or []
    if not isinstance(on, list):
        raise StateError(f"{source}: `thresholds_on` is a list of threshold names")
    for name in on:
        if name not in module.THRESHOLDS:
            raise StateError(f"{source}: unknown threshold `{name}`{_hint(name, module.THRESHOLDS)}")
    state.on = set(on)
    state.choices = check_choices(module, data.get("choices") or {}, f"{source}: choices")
    rnd = data.get("round", 0)
    if isinstance(rnd, bool) or not isinstance(rnd, int) or rnd < 0:
        raise StateError(f"{source}: `round` must be a whole number of at least 0")
    state.round = rnd
    ended = data.get("ended")
    if ended is not None and not isinstance(ended, str):
        raise StateError(f"{source}: `ended` is text (why the game ended) or absent")
    state.ended = ended
    return state


def check_choices(module, choices, where: str) -> dict:
    if not isinstance(choices, dict):
        raise StateError(f"{where}: a mapping of choice: value")
    out = {}
    for name, value in choices.items():
        if name not in module.CHOICES:
            raise StateError(f"{where}: unknown choice `{name}`{_hint(name, module.CHOICES)}")
        if not isinstance(value, (bool, int)):
            raise StateError(f"{where}: `{name}` must be a whole number or true/false, not {value!r}")
        out[name] = value
    return out


def assignments(module, sets: tuple[str, ...], chooses: tuple[str, ...]) -> tuple[dict, dict]:
    stats, choices = {}, {}
    names = list(module.STATS) + list(module.FLAGS) + list(module.TRACKS)
    for item in sets:
        key, value = parse_assignment(item)
        if key not in names:
            raise StateError(f"--set: unknown stat, flag or track `{key}`{_hint(key, names)}")
        stats[key] = _value(module, key, value, f"--set {item}")
    for item in chooses:
        key, value = parse_assignment(item)
        choices.update(check_choices(module, {key: value}, "--choose"))
    return stats, choices


def phase_ids(module) -> list[str]:
    return [pid for pid, _, _ in module.PHASES]


# --- text output ------------------------------------------------------------------------------

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
    return runtime.number(v)


def _trace_lines(module, trace: list[dict]) -> list[str]:
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


# --- step ---------------------------------------------------------------------------------------

def step(module, state: runtime.GameState, phase: str | None, rng: random.Random):
    """One phase (by id), or a whole round when `phase` is None."""
    if phase is None:
        return runtime.play_round(module, state, rng)
    return runtime.run_phase(module, phase, state, rng)


def render_step(module, new: runtime.GameState, before: dict, trace: list[dict], phase: str | None,
                seed: int) -> str:
    """The text `civdsl step` prints: what was applied, the trace, the stats and what changed."""
    what = f"phase {phase}" if phase else f"round {new.round}"
    lines = [f"{module.EDITION['name']}: {what} (seed {seed})"]
    lines.extend(_trace_lines(module, trace))
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
        lines.append(f"hand ({len(new.hand)}): " + (", ".join(runtime.card_text(c) for c in new.hand) or "empty"))
    if new.on:
        lines.append("thresholds on: " + ", ".join(sorted(new.on)))
    if new.ended:
        lines.append(f"the game has ended: {new.ended}")
    return "\n".join(lines)


# --- simulate ------------------------------------------------------------------------------------

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
        state, _ = runtime.new_game(module, rng)
        if stats:
            state.values.update(stats)
            state.settled = False
        state.choices.update(choices or {})
        first: dict[str, int] = {}
        played = 0
        for _ in range(rounds):
            state, trace = runtime.play_round(module, state, rng)
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
        lines.append(f"{_clip(ev['label'], 50):<52}{row}   {mean:>10}")
    lines.append("")
    lines.append(f"{'stat at the end':<22}{'mean':>10}{'min':>8}{'p10':>8}{'p50':>8}{'p90':>8}{'max':>8}")
    rows = dict(result["stats"])
    rows["(rounds played)"] = result["rounds_played"]
    for name, s in rows.items():
        if s["mean"] is None:
            continue
        lines.append(f"{_clip(name, 20):<22}{s['mean']:>10.1f}{s['min']:>8}{s['p10']:>8}{s['p50']:>8}{s['p90']:>8}"
                     f"{s['max']:>8}")
    return "\n".join(lines)


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


# --- plots -----------------------------------------------------------------------------------------

_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442", "#000000")


def _xml(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;"))


def plot_svg(result: dict) -> str:
    """Cumulative share of games in which each event has happened, by round (hand-written SVG)."""
    series = [(ev["label"], ev["by_round"]) for ev in result["events"].values() if ev["share"] > 0]
    width, height = 760, 420
    left, right, top, bottom = 60, 250, 40, 50
    pw, ph = width - left - right, height - top - bottom
    rounds = max(result["rounds"], 1)

    def x(r: float) -> float:
        return left + (r - 1) / max(rounds - 1, 1) * pw

    def y(share: float) -> float:
        return top + (1 - share) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="22" font-size="14">{_xml(result["edition"])}: share of {result["runs"]} games '
           f'in which each event happened, by round (seed {result["seed"]})</text>']
    for i in range(0, 11, 2):
        share = i / 10
        out.append(f'<line x1="{left}" y1="{y(share):.1f}" x2="{left + pw}" y2="{y(share):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 8}" y="{y(share) + 4:.1f}" text-anchor="end">{int(share * 100)}%</text>')
    for r in checkpoints(rounds):
        out.append(f'<text x="{x(r):.1f}" y="{top + ph + 18}" text-anchor="middle">{r}</text>')
    out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 12}" text-anchor="middle">round</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
    for i, (label, values) in enumerate(series):
        color = _COLORS[i % len(_COLORS)]
        points = " ".join(f"{x(r + 1):.1f},{y(v):.1f}" for r, v in enumerate(values))
        out.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"/>')
        ly = top + 14 + i * 18
        out.append(f'<line x1="{left + pw + 12}" y1="{ly - 4}" x2="{left + pw + 30}" y2="{ly - 4}" stroke="{color}" '
                   f'stroke-width="2"/>')
        out.append(f'<text x="{left + pw + 36}" y="{ly}">{_xml(_clip(label, 32))}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_plot(result: dict, path: Path) -> None:
    suffix = path.suffix.lower()
    if suffix == ".svg":
        path.write_text(plot_svg(result), encoding="utf-8")
        return
    if suffix != ".png":
        raise StateError(f"--plot {path}: write .svg (or .png with matplotlib installed)")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise StateError(f"--plot {path}: PNG plots need matplotlib, which is not installed; write .svg") from None
    fig, ax = plt.subplots(figsize=(9, 5))
    for ev in result["events"].values():
        if ev["share"] > 0:
            ax.plot(range(1, result["rounds"] + 1), [v * 100 for v in ev["by_round"]], label=ev["label"])
    ax.set_xlabel("round")
    ax.set_ylabel("% of games")
    ax.legend(fontsize="small")
    fig.savefig(path, dpi=100)
    plt.close(fig)


# --- printable reference ---------------------------------------------------------------------------

def _statements(stmts: list, indent: str, out: list[str]) -> None:
    from .expressions import unparse

    i = 0
    for s in stmts:
        op = s.op
        line = f"  ⟨{s.span.line}⟩"
        if op == "note":
            out.append(f"{indent}*Reading:* {s.text}")
        elif op == "rule":
            out.append(f"{indent}- **{s.text}**{line}")
            _statements(s.body, indent + "  ", out)
        elif op in ("if", "instead"):
            word = "instead, if" if op == "instead" else "if"
            out.append(f"{indent}- {word} `{unparse(s.expr)}`:{line}")
            _statements(s.body, indent + "  ", out)
            if s.otherwise:
                out.append(f"{indent}- otherwise:")
                _statements(s.otherwise, indent + "  ", out)
        elif op == "set":
            out.append(f"{indent}- `{s.target} = {unparse(s.expr)}`{line}")
        elif op == "add":
            out.append(f"{indent}- `{s.target} += {unparse(s.expr)}`{line}")
        elif op == "let":
            out.append(f"{indent}- let `{s.target} = {unparse(s.expr)}`{line}")
        elif op == "move":
            out.append(f"{indent}- move track `{s.target}` by `{unparse(s.expr)}`{line}")
        elif op == "reset":
            out.append(f"{indent}- reset `{s.target}`{line}")
        elif op == "roll":
            bind = f"`{s.target}` = " if s.target else ""
            out.append(f"{indent}- {bind}roll `{s.source}`{line}")
        elif op == "shuffle":
            out.append(f"{indent}- shuffle the deck{line}")
        elif op == "draw":
            out.append(f"{indent}- draw `{unparse(s.expr)}` cards{line}")
        elif op == "discard":
            out.append(f"{indent}- discard down to `{unparse(s.expr)}` cards (lowest first){line}")
        i += 1


def render_cardgame_reference(edition) -> dict[str, str]:
    """A printable reference of an edition's round rules (any edition that declares them): the
    round's phases with their formulas, tables and bands, thresholds, dice pools, tracks, event
    tables, the deck and the readings. Returns {file name: Markdown}."""
    from .expressions import unparse

    ed = edition
    if not ed.has_rounds:
        return {}
    out = [f"# {ed.name}: round reference", ""]
    if ed.source:
        out += [f"Source: {ed.source}", ""]
    out += ["Numbers in ⟨ ⟩ are rulebook lines. `/` is exact division, `//` rounds down, `sqrt` gives a real "
            "number; a stat always holds a whole number.", ""]
    if ed.phases:
        out += ["## The round", ""]
        for i, phase in enumerate(ed.phases.values(), 1):
            out += [f"### {i}. {phase.name} (`{phase.id}`)", ""]
            _statements(phase.body, "", out)
            out.append("")
    if ed.setup is not None:
        out += ["## Setup", ""]
        _statements(ed.setup.body, "", out)
        out.append("")
    if ed.stats or ed.flags:
        out += ["## Stats", "", "| stat | name | starts at | bounds |", "|---|---|---|---|"]
        for st in ed.stats.values():
            low = "" if st.low is None else st.low
            high = "" if st.high is None else st.high
            out.append(f"| `{st.id}` | {st.name} | {st.initial_value} | {low}..{high} |")
        for fl in ed.flags.values():
            out.append(f"| `{fl.id}` | {fl.name} | {'true' if fl.on else 'false'} | true/false |")
        out.append("")
    if ed.consts:
        out += ["## Numbers", "", "| constant | value | meaning |", "|---|---|---|"]
        for c in ed.consts.values():
            out.append(f"| `{c.id}` | {runtime.number(c.value) if c.value is not None else unparse(c.expr)} | "
                       f"{c.doc or ''} |")
        out.append("")
    if ed.tables:
        out += ["## Tables", ""]
        for t in ed.tables.values():
            out += [f"**`{t.id}`** — {t.doc or ''}", "", "| range | value |", "|---|---|"]
            for b in t.bands:
                rng = f"{b.low}" if b.high == b.low else f"{b.low}–{b.high if b.high is not None else ''}"
                if b.high is None:
                    rng = f"{b.low}+"
                out.append(f"| {rng} | {unparse(b.value)} |")
            out.append("")
    if ed.thresholds:
        out += ["## Thresholds", "", "| threshold | on when | when it switches on |", "|---|---|---|"]
        for th in ed.thresholds.values():
            effects: list[str] = []
            if th.body:
                _statements(th.body, "", effects)
            out.append(f"| {th.name} (`{th.id}`) | `{unparse(th.condition)}` | "
                       f"{'<br>'.join(e.lstrip('- ') for e in effects) or '—'} |")
        out.append("")
    if ed.pools:
        out += ["## Dice pools", "", "| pool | sides | dice | result |", "|---|---|---|---|"]
        for p in ed.pools.values():
            dice = [unparse(p.base)] if p.base is not None else []
            for term in p.terms:
                cond = f" if `{unparse(term.condition)}`" if term.condition is not None else ""
                dice.append(f"+ `{unparse(term.amount)}`{cond}" + (f" ({term.label})" if term.label else ""))
            result = "total of the dice"
            if p.success is not None:
                result = f"dice showing {p.success[0]}–{p.success[1] if p.success[1] is not None else 'top'}"
            sides = unparse(p.sides) if p.sides is not None else ""
            out.append(f"| {p.name} (`{p.id}`) | {sides} | {'<br>'.join(dice)} | {result} |")
        out.append("")
        for p in ed.pools.values():
            for n in p.notes:
                out.append(f"- *Reading ({p.name}):* {n}")
        if any(p.notes for p in ed.pools.values()):
            out.append("")
    if ed.tracks:
        out += ["## Tracks", ""]
        for t in ed.tracks.values():
            out += [f"**{t.name}** (`{t.id}`): positions {t.low}–{t.high}, starts at {t.start}", ""]
            for s in t.stages:
                span = f"{s.low}" if s.low == s.high else f"{s.low}–{s.high}"
                out.append(f"- {span}: {s.name}")
            for m in t.marks:
                effects: list[str] = []
                if m.body:
                    _statements(m.body, "", effects)
                what = "; ".join(e.lstrip("- ") for e in effects)
                out.append(f"- at {m.position}: **{m.label}**" + (f" — {what}" if what else ""))
            for n in t.notes:
                out.append(f"- *Reading:* {n}")
            out.append("")
    if ed.event_tables:
        out += ["## Event tables", ""]
        for t in ed.event_tables.values():
            out += [f"**{t.name}** (`{t.id}`): roll one {t.die}-sided die", "", "| roll | event | effect |",
                    "|---|---|---|"]
            for row in t.rows:
                effects: list[str] = []
                _statements(row.body, "", effects)
                face = f"{row.low}" if row.low == row.high else f"{row.low}–{row.high}"
                out.append(f"| {face} | {row.label} | {'; '.join(e.lstrip('- ') for e in effects) or '—'} |")
            out.append("")
    for deck in ed.card_decks.values():
        out += [f"## Cards: {deck.name}", ""]
        suits = ", ".join(f"{s.name} ({s.color})" for s in deck.suits)
        out += [f"Suits: {suits}.", "", "| rank | value |", "|---|---|"]
        for r in deck.ranks:
            out.append(f"| {r.name} | {r.value} |")
        out.append("")
        if deck.hand_limit is not None:
            out += [f"Hand limit: {deck.hand_limit} cards.", ""]
        for n in deck.notes:
            out.append(f"- *Reading:* {n}")
        out.append("")
    if ed.choices:
        out += ["## Choices (and the default policy of simulations)", "", "| choice | meaning | default |",
                "|---|---|---|"]
        for ch in ed.choices.values():
            out.append(f"| `{ch.id}` | {ch.name} | `{unparse(ch.default)}` |")
        out.append("")
    if ed.ends:
        out += ["## End of the game", ""]
        for end in ed.ends:
            out.append(f"- when `{unparse(end.condition)}`: {end.text}")
        out.append("")
    readings = [text for text, _ in ed.notes]
    if readings:
        out += ["## Readings", ""]
        out += [f"- {text}" for text in readings]
        out.append("")
    return {"reference.md": "\n".join(out).rstrip("\n") + "\n"}
