"""Benchmark of `civdsl table`: the calamity phase of an 18-player Mega Civilization table with
18 calamities (issue 13 §3; target: under 50 ms of CPU after start-up).

    python benchmarks/bench_table.py [--runs 20] [--seed 7] [--edition megaciv]

Each table has 18 players with random holdings (5-20 advances), cities, tokens and stock, land
and water borders, and 18 calamities drawn from the edition's deck (some traded), so that the
limits discard some, the beneficiaries are ranked among the players and every calamity with
secondary victims names them (by share or by count). The time is the CPU time of
`table.load_table` (every player through the state loader) plus `table.resolve_phase`,
the rulebook already loaded (start-up is the cost of `civdsl.load`, shown apart), on one core;
the median and the worst of the runs are printed, with the ratio to the 50 ms target.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import civdsl  # noqa: E402
from civdsl import sourcemap  # noqa: E402
from civdsl.table import load_table  # noqa: E402
from civdsl.table.seating import Seat  # noqa: E402
from civdsl.table import resolve_phase  # noqa: E402

TARGET_MS = 50.0
PLAYERS = 18
CALAMITIES = 18


def random_table(rb, rng: random.Random) -> dict:
    module = rb.module
    names = [f"p{i:02d}" for i in range(PLAYERS)]
    civs = list(getattr(module, "CIVILIZATIONS", {}))
    rng.shuffle(civs)
    players = []
    for i, name in enumerate(names):
        held = rng.sample(list(module.ADVANCES), rng.randint(5, 20))
        cities = rng.randint(0, 9)
        player = {"name": name, "holds": held, "cities": cities, "tokens": rng.randint(5, 40),
                  "coastal_cities": rng.randint(0, cities), "cities_adjacent_open_sea": rng.randint(0, cities),
                  "volcano_cities": 0, "flood_plain_units": rng.randint(0, 10),
                  "cities_in_stock": 9 - cities, "tokens_in_stock": rng.randint(0, 50),
                  "treasury": rng.randint(0, 20), "ships": rng.randint(0, 4), "ast_position": rng.randint(0, 10),
                  "commodities": {}, "reduced_city_tokens": 1, "trader_ships": 0,
                  "flood_plain_players": 0, "open_sea_players": 0, "volcano_units": 0}
        if i < len(civs):
            player["civilization"] = civs[i]
        else:
            player["ast_rank"] = i + 1
        players.append(player)
    land = [[a, b] for a, b in zip(names, names[1:]) if rng.random() < 0.8]
    water = [[rng.choice(names), rng.choice(names)] for _ in range(10)]
    water = [p for p in water if p[0] != p[1]]
    calamities = []
    deck = list(module.CALAMITIES)
    for _ in range(CALAMITIES):
        cal = rng.choice(deck)
        victim = rng.choice(names)
        entry = {"calamity": cal, "victim": victim}
        klass = module.CALAMITIES[cal]["class"]
        if klass == "major tradable" and rng.random() < 0.5:
            entry["traded_by"] = rng.choice([n for n in names if n != victim])
        calamities.append(entry)
    return {"players": players, "borders": {"land": land, "water": water, "near": land + water},
            "calamities": calamities}


def assign_secondaries(rb, data: dict, seed: int) -> None:
    """Name every secondary victim the primary victims must name, as a table file would (the
    calamities over the limits discarded with the SEED the timed phase uses)."""
    table = load_table(rb, data=data)
    phase = resolve_phase(table, seed)
    # `secondary_once per_name`: nobody suffers or gains from two calamities of one name
    once = rb.module.TABLE_RULES["secondary_once"] == ("per_name",)
    taken: dict[str, set] = {}
    for r in phase.resolved:
        taken.setdefault(r.calamity, set()).add(r.victim if once else None)
    for r in phase.resolved:
        entry = data["calamities"][r.index]
        part = taken[r.calamity] if once else set()
        if r.beneficiary is not None:
            part.add(r.beneficiary.name)
        count, share, effects, _ = r.primary.assignment or (None, None, None, None)
        if r.primary.is_cancelled or not isinstance(count, int) and not isinstance(share, int):
            part.update(name for name, _, _ in r.secondary)  # the edition's default, if any, stays
            continue
        among = rb.module.CALAMITIES[r.calamity]["resolution"]["secondary_among"][0]
        allowed = {n for n, _ in Seat(table, r.victim, {}).related(among) or ()}
        excluded = part | {r.beneficiary.name if r.beneficiary else None, entry.get("traded_by"), entry["victim"]}
        others = [p["name"] for p in data["players"] if p["name"] not in excluded and p.get("cities", 0) > 0
                  and p["name"] in allowed
                  and not sourcemap.resolve(rb.module, r.calamity, "secondary", table.fresh(p["name"])).excluded]
        if share is not None:
            most = effects[0][1].get("amount") if effects else share
            chosen, left = {}, share
            for n in others:
                if left <= 0:
                    break
                chosen[n] = min(most, left)
                left -= chosen[n]
            entry["secondary"] = chosen
        else:
            entry["secondary"] = others[:count]
        part.update(entry["secondary"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--edition", default="megaciv")
    args = ap.parse_args()
    t0 = time.process_time()
    rb = civdsl.load(args.edition)
    startup = (time.process_time() - t0) * 1000
    rng = random.Random(args.seed)
    tables = []
    for _ in range(args.runs):
        data = random_table(rb, rng)
        assign_secondaries(rb, data, args.seed)
        tables.append(data)
    times = []
    resolved = 0
    for data in tables:
        t = time.process_time()
        phase = resolve_phase(load_table(rb, data=data), args.seed)
        times.append((time.process_time() - t) * 1000)
        resolved += len(phase.resolved) + sum(len(r.secondary) for r in phase.resolved)
    median, worst = statistics.median(times), max(times)
    print(f"{args.edition}: {PLAYERS} players, {CALAMITIES} calamities a table, {args.runs} tables "
          f"({resolved / args.runs:.1f} victims resolved a table); start-up {startup:.0f} ms")
    print(f"calamity phase CPU: median {median:.1f} ms, worst {worst:.1f} ms "
          f"(target {TARGET_MS:.0f} ms: median at {median / TARGET_MS:.2f} of it)")


if __name__ == "__main__":
    main()
