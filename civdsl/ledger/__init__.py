"""The ledger: a whole game, every player's state carried from turn to turn (`civdsl game`).

The rulebook's sequence of play says what each step does (`turn { step "..." { ACTION } }`,
vocabulary.PHASE_ACTIONS); these modules interpret those actions generically, over plain data,
and import nothing of the command line:

- `players.py`: one player's pieces, cards, advances and marker, and the facts a rule reads;
- `steps.py`: the turn as the rulebook declares it, and the quantities its actions read;
- `refusals.py`: the verdicts an event may get (refused, or waiting for a player's choice);
- `play.py`: the game's state;
- `events.py`: the events players enter, each checked against the rules and the state, and the
  steps' automatic bookkeeping;
- `ending.py`: the end of the game and the final scores;
- `decks.py`: the trade-card stacks;
- `turn.py`: the turn's flow, which hands each event to its handler and moves from step to step;
- `words.py`: events as players type them;
- `calamities.py`: the calamity step, built from the players' states, one calamity at a time;
- `gamecheck.py`: the game file's data checked, and the game its set-up starts;
- `gamefile.py`: the game file (YAML) read and written atomically;
- `sniff.py`: whether a file is a game file, told without importing the rest of the ledger.

All but `calamities.py`, `gamefile.py`, `reads.py` and `sniff.py` are engine modules (companion/py2es.py
translates them for the page: docs/engine-route.md); `gamefile.py` is their host here (it hands
the game its start-credit memo and locates a rule's error at its rulebook line).
"""
