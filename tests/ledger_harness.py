"""The translated game ledger on an edition's page engine, in Node, beside Python's replay: what
tests/test_ledger_translated.py compares event by event and benchmarks/bench_ledger_page.py times.

`python_game(path)` replays a recorded game in Python and answers after its start
and each event (a snapshot, or the refusal); `js_game(edition, setup, events)` does the same with
the page's translated modules and returns the answers and each applied event's time in Node.
Values cross as tagged JSON (`encode` here, `dec`/`enc` in the drivers).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from fractions import Fraction
from importlib import resources
from pathlib import Path

from civdsl.api import load
from civdsl.ledger import gamefile
from companion_harness import NODE


def encode(v):
    """A Python value as tagged JSON, read back by the driver's `dec` into the page's values."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, Fraction):
        return {"frac": [str(v.numerator), str(v.denominator)]}
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, (list, tuple)):
        return [encode(x) for x in v]
    if isinstance(v, dict):
        return {"dict": [[encode(k), encode(x)] for k, x in v.items()]}
    if isinstance(v, (set, frozenset)):
        return {"set": sorted((encode(x) for x in v), key=json.dumps)}
    raise TypeError(type(v))


# the drivers' reading of `_encode`'s tagged JSON into the page's values, and back
CODEC = r"""
function dec(v) {
  if (Array.isArray(v)) return v.map(dec);
  if (v !== null && typeof v === "object") {
    if ("int" in v) return Number(v.int);
    if ("frac" in v) return pyFraction(Number(v.frac[0]), Number(v.frac[1]));
    if ("float" in v) return pyFloat(Number(v.float));
    if ("dict" in v) return pyDict(v.dict.map(([k, x]) => [dec(k), dec(x)]));
    if ("set" in v) return pySetOf(v.set.map(dec));
  }
  return v;
}
function enc(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") return {int: String(v)};
  if (Array.isArray(v)) return v.map(enc);
  if (v instanceof PyDict) return {dict: v.items().map(([k, x]) => [enc(k), enc(x)])};
  return {unknown: String(v)};
}
"""

# --- whole games: the translated turn's flow, event by event ------------------------------------
#
# The recorded games replay in Node with the ledger's translated modules (turn, events, play, ...)
# on the edition's page engine, and after every event the game is Python's: each player's data,
# the log in words, the turn and step, what the step expects; a refused event is refused with the
# same code, message and choices, every calamity step included (its table and the edition's calamity
# functions as the page runs them), to the game's end.

# the game page's host, as the page joins it to the engine (companion/gamepage.py)
GAME_HOST = resources.files("civdsl.companion").joinpath("runtime", "gamehost.js").read_text(encoding="utf-8")

GAME_DRIVER = r"""
const ledgerInput = JSON.parse(require("fs").readFileSync(0, "utf8"));
""" + CODEC + r"""
const ledgerRulebook = gameRulebook();  // the page's host's (runtime/gamehost.js): the rulebook the ledger reads
// each snapshot holds what changed since the last, as python_game writes it: the log's entries as
// [k, newer], the first k entries the last snapshot's, unchanged (compared as text), and `newer`
// the rest (`_newer_entries`); the players as [n, [[i, data], ...]], how many and those whose data
// changed (all of them in the first: `_changed_players`). Equal snapshots after every event mean
// equal games at every step.
let loggedTexts = [];
let playerTexts = [];
function gameSnapshot(g) {
  const log = g.log.map((e) => enc(e.to_data()));
  const texts = log.map((entry) => JSON.stringify(entry));
  let kept = 0;
  while (kept < texts.length && kept < loggedTexts.length && texts[kept] === loggedTexts[kept]) kept++;
  loggedTexts = texts;
  const players = g.players.values().map((p) => enc(p.to_data()));
  const now = players.map((data) => JSON.stringify(data));
  const changed = [];
  for (let i = 0; i < now.length; i++) if (now[i] !== playerTexts[i]) changed.push([{int: String(i)}, players[i]]);
  playerTexts = now;
  return enc([g.turn, g.step, g.ended, g.events])
    .concat([[{int: String(now.length)}, changed], [kept, log.slice(kept)], enc(g.expects())]);
}
const ledgerTimes = [];  // each applied event's time in ms (its snapshot apart)
const ledgerOut = (() => {
  let g = null;
  const out = [];
  try {
    g = gc_ledger_for(ledgerRulebook, dec(ledgerInput.setup));  // the set-up checked, the first steps run
  } catch (exc) {
    return [{crash: String(exc && exc.stack || exc)}];
  }
  out.push(gameSnapshot(g));
  for (const event of dec(ledgerInput.events)) {
    try {
      const started = process.hrtime.bigint();
      g.apply(event);
      ledgerTimes.push(Number(process.hrtime.bigint() - started) / 1e6);
      out.push(gameSnapshot(g));
    } catch (exc) {
      if (exc instanceof rf_Refused) {
        out.push({refused: [exc.code, pyStr(exc), exc.field, exc.choices]});
        continue;
      }
      out.push({crash: String(exc && exc.stack || exc)});
      break;
    }
  }
  return out;
})();
process.stdout.write(JSON.stringify({answers: ledgerOut, ms: ledgerTimes}));
"""


def _game_snapshot(game, seen: dict) -> list:
    """The game after an event as the driver's gameSnapshot sends it: the players as the changes
    since the last snapshot, the log as the entries kept from it and the newer ones (SEEN: what the
    last snapshot held, updated here)."""
    return encode([game.turn, game.step, game.ended, game.events]) + [
        _changed_players([encode(p.to_data()) for p in game.players.values()], seen.setdefault("players", [])),
        _newer_entries(game.log, seen), encode(game.expects())]


def _newer_entries(log: list, seen: dict) -> list:
    """[k, newer]: the first k entries of LOG equal the last snapshot's (a log entry is never
    changed once written, so the same entry is equal; another is compared by its data, as the
    driver compares texts), NEWER the rest, encoded."""
    before, encoded = seen.get("log", []), seen.get("encoded", [])
    kept = 0
    while kept < len(log) and kept < len(before) and (
            log[kept] is before[kept] or encode(log[kept].to_data()) == encoded[kept]):
        kept += 1
    newer = [encode(e.to_data()) for e in log[kept:]]
    seen["log"], seen["encoded"] = list(log), encoded[:kept] + newer
    return [kept, newer]


def _changed_players(players: list, seen: list) -> list:
    """[how many, [[index, data] of each player whose data differs from SEEN's]]: a snapshot equal
    to the page's after every event means both games equal at every step, as long as the first
    (which holds every player) is; comparing changes keeps an 18-player game's comparison small."""
    changed = [[encode(i), data] for i, data in enumerate(players) if i >= len(seen) or seen[i] != data]
    seen[:] = players
    return [encode(len(players)), changed]


def game_events(path: Path, mixed: int = 0) -> list:
    """The recorded game's events with the refused ones tried first (a refusal changes nothing);
    with MIXED, that many random events (`random_event`) mixed among the first turn's (both
    replays see the same list)."""
    recorded = list(gamefile.read(path).events)
    if not mixed:
        return REFUSED + recorded
    import random

    gf = gamefile.read(path)
    module = load(gf.setup["edition"]).module
    rng = random.Random(f"{path.stem}:{mixed}")
    out = list(recorded)
    for i in range(mixed):  # among the first turn's events
        out.insert(rng.randint(0, min(len(out), 30 + i)), random_event(rng, [p["name"] for p in gf.setup["players"]],
                                                                        module))
    return REFUSED + out


def random_event(rng, players: list, module) -> dict:
    """An event as a careless player might enter it: any player (or nobody), any cards the
    edition names (a calamity, an unknown name), counts from 0 to past the pieces."""
    cards = list(module.COMMODITIES)[:8] + list(module.CALAMITIES)[:3] + ["Unobtainium"]
    who = rng.choice(players + ["nobody"])
    hand = [rng.choice(cards) for _ in range(rng.randint(0, 4))]
    kind = rng.choice(["census", "census", "draw", "draw", "trade", "trade", "discard", "buy-cards", "ast",
                       "choose", "buy"])
    if kind == "census":
        return {"do": kind, "player": who, rng.choice(["cities", "tokens", "ships"]): rng.randint(0, 60)}
    if kind == "draw":
        return {"do": kind, "player": who, "cards": hand} if rng.random() < 0.5 else \
            {"do": kind, "player": who, "seed": rng.randint(0, 2 ** 31)}
    if kind == "trade":
        return {"do": kind, "player": who, "with": rng.choice(players), "gives": hand,
                "gets": [rng.choice(cards) for _ in range(rng.randint(0, 4))]}
    if kind == "buy-cards":
        return {"do": kind, "player": who, "cards": hand}
    if kind == "ast":
        return {"do": kind, "player": who, "move": rng.choice(["forward", "stays", "back", "sideways"])}
    if kind == "choose":
        return {"do": kind, "player": who, "facts": {rng.choice(["volcano_cities", "no_such_fact"]): 1}}
    return {"do": kind, "player": who, "cards": hand}


def calamity_choice_events(path: Path, per_step: int = 8) -> list:
    """The recorded game's events with random choices for its calamities (`random_choice`) entered
    at each calamity step: PER_STEP before the step's recorded choices (which may override them;
    the others stay and change the resolution: a fact of the map, a beneficiary named, cards given)
    and, at the game's last calamity step, PER_STEP after them, just before the step's end resolves
    them (accepted or refused there)."""
    import random

    from civdsl.ledger.steps import actions, steps

    gf = gamefile.read(path)
    module = load(gf.setup["edition"]).module
    step = 1 + [i for i, s in enumerate(steps(module)) if "resolve_calamities" in actions(s)][0]
    players = [p["name"] for p in gf.setup["players"]]
    named = sorted({e["calamity"] for e in gf.events if e.get("do") == "choose" and e.get("calamity")})
    rng = random.Random(f"{path.stem}:choices")
    at_step = [i for i, e in enumerate(gf.events) if e.get("step") == step]
    ends = [i for i in at_step if gf.events[i].get("do") == "next"]
    firsts = {min(i for i in at_step if gf.events[i].get("turn") == gf.events[j].get("turn")) for j in ends}
    out = []
    for i, event in enumerate(gf.events):
        if i in firsts or (ends and i == ends[-1]):
            out.extend(random_choice(rng, players, module, named) for _ in range(per_step))
        out.append(event)
    return REFUSED + out


def random_choice(rng, players: list, module, named: list) -> dict:
    """A `choose` event as a careless victim might enter it: a calamity of the game's (or any the
    edition names), secondary victims with or without amounts (himself among them at times), a
    beneficiary, cities and tokens, cards to discard or give, an occurrence, facts of the map and
    borders."""
    cards = list(module.COMMODITIES)[:6] + ["Unobtainium"]
    who = rng.choice(players + ["nobody"] * (rng.random() < 0.05))
    event: dict = {"do": "choose", "player": who}
    if rng.random() < 0.8:
        event["calamity"] = rng.choice(named + list(module.CALAMITIES)[:4] if named else list(module.CALAMITIES))
    for key in rng.sample(["secondary", "beneficiary", "cities", "tokens", "cards", "given", "occurrence", "facts",
                           "borders"], rng.randint(1, 3)):
        if key == "secondary":
            chosen = rng.sample(players, rng.randint(1, min(3, len(players))))
            event[key] = chosen if rng.random() < 0.5 else {n: rng.randint(0, 12) for n in chosen}
        elif key == "beneficiary":
            event[key] = rng.choice(players)
        elif key in ("cities", "tokens"):
            event[key] = rng.randint(0, 8)
        elif key == "occurrence":
            event[key] = rng.randint(1, 3)
        elif key == "cards":
            event[key] = [rng.choice(cards) for _ in range(rng.randint(0, 3))]
        elif key == "given":
            event[key] = {rng.choice(players): [rng.choice(cards) for _ in range(rng.randint(1, 2))]}
        elif key == "facts":
            event[key] = {rng.choice(["reduced_city_tokens", "volcano_cities", "coastal_cities", "flood_plain_units",
                                      "cities_adjacent_open_sea", "no_such_fact"]): rng.randint(0, 3)}
        else:
            event[key] = {rng.choice(["land", "water", "sea"]): rng.sample(players, rng.randint(0, 2))}
    return event


def python_game(path: Path, mixed: int = 0, events: list | None = None) -> tuple[dict, list]:
    """The game's set-up as the driver reads it, and Python's answer after its start and after
    each event (EVENTS, else `game_events(path, mixed)`) to the end."""
    from civdsl.ledger import refusals

    gf = gamefile.read(path)
    rb = load(gf.setup["edition"])
    game = gamefile.start(rb, gf.setup)
    setup = {"setup": gf.setup, "name": rb.name}
    seen: dict = {}
    answers = [_game_snapshot(game, seen)]
    for event in events if events is not None else game_events(path, mixed):
        try:
            game.apply(event)
        except refusals.Refused as r:
            answers.append({"refused": [r.code, str(r), r.field, r.choices]})
            continue
        answers.append(_game_snapshot(game, seen))
    return setup, answers


def js_game(edition: str, setup, events: list) -> tuple[list, list]:
    from civdsl.companion.jsgen import engine_parts
    from companion_harness import checked_edition

    module = load(edition).module
    parts = engine_parts(checked_edition(edition), module, ledger=True)
    script = "\n".join(parts[:-1] + [GAME_HOST, GAME_DRIVER, parts[-1]])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.js"
        path.write_text(script, encoding="utf-8")
        done = subprocess.run([NODE, str(path)], input=json.dumps({"setup": encode(setup["setup"]),
                                                                   "events": encode(events)}),
                              capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    return out["answers"], out["ms"]


# events the recorded games do not hold, refused whatever the state: tried after the game's start
REFUSED = [{"do": "census", "player": "nobody", "cities": 1}, {"do": "census", "player": "anna"},
                   {"do": "census", "player": "anna", "cities": 10 ** 6}, {"do": "trade", "player": "anna"},
                   {"do": "fly"}, {"do": "draw", "player": "anna", "cards": ["Unobtainium"]},
                   {"do": "census", "cities": "three"}, {"do": "census", "colour": "red"}]


