"""The ledger's seeded draws: the one generator every random choice of a game makes (the cards a
stack deals and a player draws, the calamities discarded at random), written once in the engine
subset so that the companion page, which runs its translation, draws the same cards from the
same seed as the command line. Python's `random` cannot be matched exactly in the page (its
seeding of text and its floats), so the ledger does not use it.

The generator is the Lehmer "minimal standard" (multiplier 48271, modulus 2^31 - 1): every
product stays below 2^47, exact in both targets. A seed is text (the game's seed with what the
draw is for, `"7:anna"`), folded into the generator's state one code point at a time.
"""

from __future__ import annotations

MODULUS = 2147483647
MULTIPLIER = 48271
# the state's first values are close to the seed's fold: a few steps apart them
WARM_UP = 8


class NoDraw(Exception):
    """A draw from nothing (no member, or weights that sum to nothing)."""


class Draws:
    """A stream of draws from one seed (text)."""

    def __init__(self, seed):
        state = 0
        for ch in str(seed):
            state = (state * 131 + ord(ch)) % MODULUS
        self.state = state if state else 1
        for _ in range(WARM_UP):
            self.step()

    def step(self) -> int:
        """The next state, from 1 to MODULUS - 1."""
        self.state = self.state * MULTIPLIER % MODULUS
        return self.state

    def randrange(self, n: int) -> int:
        """A whole number from 0 to n - 1, every one equally likely (states past the last whole
        multiple of n are drawn again); n is at most the generator's span, 2^31 - 2."""
        span = MODULUS - 1
        if n <= 0:
            raise NoDraw("a draw from nothing")
        if n > span:
            raise NoDraw(f"a draw from more than {span} (the generator's span)")
        limit = span - span % n
        x = self.step() - 1
        while x >= limit:
            x = self.step() - 1
        return x % n

    def weighted(self, counts: dict):
        """One of the names COUNTS counts (whole numbers, at least one above zero), each as likely
        as its count, the names taken in their sorted order."""
        r = self.randrange(sum(counts.values()))
        for name in sorted(counts):
            if r < counts[name]:
                return name
            r = r - counts[name]
        raise NoDraw("weights that sum to nothing")

    def sample(self, population: list, k: int) -> list:
        """K members of POPULATION drawn without replacement, in the order drawn."""
        pool = list(population)
        for i in range(k):
            j = i + self.randrange(len(pool) - i)
            chosen = pool[j]
            pool[j] = pool[i]
            pool[i] = chosen
        return pool[:k]
