"""Play seeded example games through the ledger and write their game files (tests/games/).

Every event goes through `Game.apply`, the checks `civdsl game add` makes: a refused event is
never written. The players follow a plain policy (grow, draw, trade, buy what the hand pays,
answer each choice the rules ask for with the first that fits); the map is not played, its
outcome is entered as census facts. Run from the repository root:

    python tools/play_games.py            # writes tests/games/*.yaml
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from civdsl.api import load  # noqa: E402
from civdsl.ledger import gamefile  # noqa: E402
from civdsl.ledger import steps as turn_steps  # noqa: E402
from civdsl.ledger.play import CHOICE, Refused  # noqa: E402

GAMES = {
    "megaciv-18": ("megaciv", 18, "basic", 12, None),
    "megaciv-5": ("megaciv", 5, "expert", 12, None),
    # a seed whose calamities ask no fact the policy cannot answer (a secondary victim's A.S.T. rank)
    "expansion-6": ("expansion", 6, None, 11, 11, "expansion-6/1"),
    "civ1981-5": ("civ1981", 5, None, 11, None),
    # a seed whose turns need no two losses of one calamity name from one player (the ledger asks
    # one choice per calamity name and player)
    "civ1980-4": ("civ1980", 4, None, 11, None, "civ1980-4/3"),
}


class Player:
    def __init__(self, rb, setup, rng):
        self.rb, self.rng = rb, rng
        self.gf = gamefile.GameFile(setup, [], [])
        self.game = gamefile.start(rb, setup)

    def add(self, event: dict) -> bool:
        stamped = gamefile.stamped(self.game, event)
        try:
            self.game.apply(stamped)
        except Refused:
            return False
        self.gf.events.append(stamped)
        return True

    def turn(self) -> None:
        g = self.game
        start = g.turn
        self.excluded, self.tries = {}, 0
        while not g.ended and g.turn == start:
            acts = turn_steps.actions(g.current)
            for kind in acts:
                getattr(self, f"_{kind}", lambda a: None)(acts[kind])
            self._next()

    def _next(self) -> None:
        for _ in range(200):
            stamped = gamefile.stamped(self.game, {"do": "next"})
            try:
                self.game.apply(stamped)
                self.gf.events.append(stamped)
                return
            except Refused as r:
                if r.code != CHOICE and (self._rename_secondary(r.message) or self._pieces_again(r.message)):
                    continue
                if r.code != CHOICE or not r.needs:
                    raise
                for need in r.needs:
                    self._answer(need)
        raise RuntimeError("no way past the step")

    # --- each step's events
    def _census(self, args) -> None:
        g = self.game
        pieces = g.pieces
        if not any(v is not None for v in args.values() if v != args.get("line")) and g.turn > 1 and self.rng.random() < 0.7:
            return
        for p in g.seated():
            cap = pieces.get("cities") or 9
            cities = max(0, min(cap, p.cities + self.rng.choice((0, 1, 1, 1, 2)) if g.turn > 1 else 1))
            total = pieces.get("tokens") or 55
            tokens = max(0, min(total - p.treasury - 5, cities * 2 + self.rng.randint(4, 12)))
            ships = min(pieces.get("ships") or 4, self.rng.randint(0, 2))
            self.add({"do": "census", "player": p.name, "cities": cities, "tokens": tokens, "ships": ships})

    def _draw_trade_cards(self, args) -> None:
        """Where the rulebook deals the stacks, every player draws from them with a seed (as `civdsl
        game draw` does); otherwise he names a card of each stack."""
        from civdsl.ledger.events import draw_order

        g, m = self.game, self.game.module
        if g.stacks is not None:
            seed = self.rng.randrange(2**31)
            for p in draw_order(g, args):
                if p.cities:
                    assert self.add({"do": "draw", "player": p.name, "seed": seed})
            return
        stacks = g.quantity(args["stacks"]) or 9
        for p in sorted(g.seated(), key=lambda p: p.cities):
            cards = []
            for stack in range(1, min(p.cities, stacks) + 1):
                pool = [c for c, x in m.COMMODITIES.items() if x["stack"] == stack]
                calamities = [c for c, x in m.CALAMITIES.items() if x["stack"] == stack]
                if calamities and self.rng.random() < 0.12:
                    cards.append(self.rng.choice(calamities))
                elif pool:
                    cards.append(self.rng.choice(pool))
            for _ in range(20):
                if self.add({"do": "draw", "player": p.name, "cards": cards}):
                    break
                cards = [self._other_card(c) for c in cards]  # another of the stack (block, supply)

    def _other_card(self, card: str) -> str:
        m = self.game.module
        stack = (m.COMMODITIES.get(card) or m.CALAMITIES.get(card))["stack"]
        return self.rng.choice([c for c, x in m.COMMODITIES.items() if x["stack"] == stack])

    def _buy_trade_cards(self, args) -> None:
        from civdsl.ledger.events import draw_order

        g, m = self.game, self.game.module
        draws = g.current_actions().get("draw_trade_cards")
        # where purchases wait for every draw, they go in the order of the draw (Mega Civilization 6b)
        for p in (draw_order(g, draws) if draws and args.get("after") == "every_draw" else g.seated()):
            if p.treasury >= 18 and self.rng.random() < 0.5:
                if g.stacks is not None:  # the top card of his stack 9, drawn with a seed
                    self.add({"do": "buy-cards", "player": p.name, "stacks": [9], "seed": self.rng.randrange(2**31)})
                    continue
                nine = [c for c, x in m.COMMODITIES.items() if x["stack"] == 9]
                for _ in range(5):
                    if self.add({"do": "buy-cards", "player": p.name, "cards": [self.rng.choice(nine)]}):
                        break

    def _trade(self, args) -> None:
        g = self.game
        least = g.quantity(args.get("least_cards")) or 3
        players = g.seated()
        for _ in range(len(players)):
            a, b = self.rng.sample(players, 2)
            ga, gb = self._offer(a, least), self._offer(b, least)
            if ga and gb:
                self.add({"do": "trade", "player": a.name, "gives": ga, "with": b.name, "gets": gb})

    def _offer(self, p, least: int) -> list[str] | None:
        cards = [c for c, n in sorted(p.cards.items()) for _ in range(n)]
        tradable = [c for c, t in p.calamities if self.game.module.CALAMITIES[c]["class"] == "major tradable"]
        if len(cards) < least:
            return None
        offer = self.rng.sample(cards, least)
        if tradable and self.rng.random() < 0.6:
            offer[-1] = tradable[0]
        return offer

    def _buy_advances(self, args) -> None:
        g, rb = self.game, self.rb
        for p in g.seated():
            hand = [c for c, n in sorted(p.cards.items()) for _ in range(n)]
            worth = rb.hand(dict(p.cards), g.facts(p))["total"] if hand else 0
            options = [a for a in rb.advances if a not in p.advances]
            self.rng.shuffle(options)
            for adv in options[:15]:
                cost = rb.cost(p.advances, [adv], g.facts(p))
                price = cost["total"]
                if cost["illegal"] or price is None or price > worth + p.treasury:
                    continue
                treasury = max(0, price - worth) if worth < price else 0
                pay = hand if treasury or worth >= price else hand
                if self.add({"do": "buy", "player": p.name, "advances": [adv], "pay": pay if worth else [],
                             "treasury": treasury}):
                    break
                if self.add({"do": "buy", "player": p.name, "advances": [adv], "pay": [], "treasury": price}):
                    break

    def _rename_secondary(self, message: str) -> bool:
        """A secondary victim the rules refuse at the end of the step: name the others instead."""
        import re

        share = re.search(r"\((.+?)\): `secondary` must say how much .* \((\d+) in total\)", message)
        if share:
            self.totals = {**getattr(self, "totals", {}), share.group(1): int(share.group(2))}
            return self._share(share.group(1), int(share.group(2)))
        most = re.search(r"\((.+?)\): `secondary\.\w+`: .* at most (\d+)", message)
        if most and most.group(1) in getattr(self, "totals", {}):
            self.caps = {**getattr(self, "caps", {}), most.group(1): int(most.group(2))}
            self.tries = getattr(self, "tries", 0) + 1
            return self._share(most.group(1), self.totals[most.group(1)])
        m = re.search(r"\((.+?)\): `secondary` names (\w+)", message)
        if not m:
            return False
        cal, bad = m.groups()
        self.excluded = getattr(self, "excluded", {})
        self.excluded.setdefault(cal, set()).add(bad)
        if cal in getattr(self, "totals", {}):
            return self._share(cal, self.totals[cal])
        done = False
        for (name, victim, nth), chosen in list(self.game.choices.items()):
            named = list(chosen.get("secondary") or [])
            if name == cal and bad in named:
                others = [q.name for q in self.game.seated()
                          if q.name not in (victim, *named) and q.name not in self.excluded[cal]]
                rest = [n for n in named if n != bad] + others[:1]  # nobody left: none named
                done |= self.add({"do": "choose", "player": victim, "calamity": cal, "secondary": rest,
                                  **_occurrence(nth)})
        return done

    def _pieces_again(self, message: str) -> bool:
        """A loss chosen before the calamities ahead of it took their share: choose it again from
        the pieces the refusal says are left."""
        import re

        m = re.search(r"^(.+?)(?: \(occurrence (\d+)\))?: \d+ cities and \d+ tokens are worth \d+: (\w+) loses (\d+) "
                      r"unit points, no piece more than needed, from (\d+) cities and (\d+) tokens", message)
        if not m:
            return False
        cal, nth, name, amount, cities_left, tokens_left = m.groups()
        amount, cities_left, tokens_left = int(amount), int(cities_left), int(tokens_left)
        city = self.game.module.UNIT_POINTS["city"]
        cities = min(cities_left, amount // city)
        tokens = amount - cities * city
        if tokens > tokens_left:
            cities, tokens = min(cities_left, cities + 1), 0
        if cities * city + tokens < amount:
            cities, tokens = cities_left, tokens_left
        return self.add({"do": "choose", "player": name, "calamity": cal, "cities": cities, "tokens": tokens,
                         **_occurrence(int(nth or 1))})

    def _share(self, cal: str, total: int) -> bool:
        """Losses shared among secondary victims: the total split among some others, for every
        player holding the calamity (the refusal does not name its victim)."""
        self.tries = getattr(self, "tries", 0) + 1
        done = False
        for victim in [p.name for p in self.game.seated() if any(n == cal for n, _ in p.calamities)]:
            others = [q.name for q in self.game.seated()
                      if q.name != victim and q.name not in getattr(self, "excluded", {}).get(cal, ())]
            if not others:  # nobody may take a share: none is assigned
                done |= self.add({"do": "choose", "player": victim, "calamity": cal, "secondary": {},
                                  **_occurrence(getattr(self, "asked", {}).get((victim, cal), 1))})
                continue
            k = min(len(others), 2 + self.tries % 4)
            names = self.rng.sample(others, k)
            cap = getattr(self, "caps", {}).get(cal, total)
            parts = [min(cap, total // k + (1 if i < total % k else 0)) for i in range(k)]
            done |= self.add({"do": "choose", "player": victim, "calamity": cal, "secondary": dict(zip(names, parts)),
                              **_occurrence(getattr(self, "asked", {}).get((victim, cal), 1))})
        return done

    # --- answers to the choices the rules leave to players
    def _answer(self, need: dict) -> None:
        g = self.game
        p = g.players[need["player"]]
        key, cal = need["key"], need.get("calamity")
        nth = _occurrence(need.get("occurrence", 1))
        self.asked = {**getattr(self, "asked", {}), (p.name, cal): need.get("occurrence", 1)}
        if key == "discard":
            cards = [c for c, n in sorted(p.cards.items()) for _ in range(n)] + [c for c, _ in p.calamities]
            self.add({"do": "discard", "player": p.name, "cards": cards[: need["amount"]]})
        elif key == "secondary":
            others = [q.name for q in g.seated() if q.name != p.name]
            for k in (1, 2, 3, len(others)):
                if self.add({"do": "choose", "player": p.name, "calamity": cal, "secondary": others[:k], **nth}):
                    return
        elif key == "beneficiary":
            for q in g.seated():
                if q.name != p.name and self.add({"do": "choose", "player": p.name, "calamity": cal,
                                                  "beneficiary": q.name, **nth}):
                    return
        elif key == "pieces":
            city = g.module.UNIT_POINTS["city"]
            cities = min(p.cities, need["amount"] // city)
            tokens = need["amount"] - cities * city
            if tokens > p.tokens:
                cities, tokens = min(p.cities, cities + 1), 0
            self.add({"do": "choose", "player": p.name, "calamity": cal, "cities": cities, "tokens": tokens, **nth})
        elif key == "units":  # the units in an area: cities first
            cities = min(p.cities, need["amount"])
            self.add({"do": "choose", "player": p.name, "calamity": cal, "cities": cities,
                      "tokens": need["amount"] - cities, **nth})
        elif key in ("discard_cards", "discard_face_value", "give_cards"):
            cards = [c for c, n in sorted(p.cards.items(), key=lambda kv: -g.module.COMMODITIES[kv[0]]["value"])
                     for _ in range(n)]
            self.add({"do": "choose", "player": p.name, "calamity": cal, "cards": cards[: max(need["amount"], 1)],
                      **nth})
        elif key == "tax":  # the highest rate his stock pays in full (no revolt), else the lowest
            stock = p.tokens_in_stock(g.pieces) or 0
            paid = [r for r in range(need["low"], need["high"] + 1) if r * p.cities <= stock]
            self.add({"do": "tax", "player": p.name, "rate": paid[-1] if paid else need["low"]})
        elif key == "ast":
            move = "forward" if p.cities >= 2 and self.rng.random() < 0.8 else "stays"
            self.add({"do": "ast", "player": p.name, "move": move})
        elif key.startswith("borders."):
            others = [q.name for q in g.seated() if q.name != p.name]
            self.add({"do": "choose", "player": p.name, "borders": {key[8:]: self.rng.sample(others, 1)}})
        else:  # a fact of the map
            value = min(p.cities, 1) if "cities" in key else 0 if "players" in key else 2
            self.add({"do": "choose", "player": p.name, "facts": {key: value}})


def _occurrence(n: int) -> dict:
    """The `occurrence` of a choice: written only for a second calamity of a name."""
    return {"occurrence": n} if n > 1 else {}


def play(name: str, folder: Path | None = None, spec: tuple | None = None) -> Path:
    edition, count, track, turns, last_turn, *seed = spec or GAMES[name]
    rb = load(edition)
    civs = list(getattr(rb.module, "CIVILIZATIONS", {}))
    fits = gamefile.setups_for(getattr(rb.module, "CIVILIZATIONS", {}), count, getattr(rb.module, "SETUP_PLAYERS", {}))
    if any(fits.values()):  # the first civilizations of the edition's first set-up for the player count
        civs = next(names for names in fits.values() if names)
    names = ["anna", "bruno", "chloe", "dario", "eva", "femke", "gus", "hana", "ivo", "jana", "kees", "lena",
             "milo", "nora", "otto", "pia", "quin", "rosa"][:count]
    seats = [(n, civs[i] if i < len(civs) else None) for i, n in enumerate(names)]
    setup = gamefile.new_setup(edition, rb, seats, track, last_turn, 7)
    player = Player(rb, setup, random.Random(seed[0] if seed else name))
    for _ in range(turns):
        if player.game.ended:
            break
        player.turn()
    out = (folder or ROOT / "tests" / "games") / f"{name}.yaml"
    gamefile.write(out, player.gf)
    return out


if __name__ == "__main__":
    for name in sys.argv[1:] or GAMES:
        path = play(name)
        print(path.relative_to(ROOT))
