"""The ledger: a whole game, every player's state carried from turn to turn (`civdsl game`).

The rulebook's sequence of play says what each step does (`turn { step "..." { ACTION } }`,
vocabulary.PHASE_ACTIONS); these modules interpret those actions generically, over plain data,
and import nothing of the command line:

- `players.py`: one player's pieces, cards, advances and marker, and the facts a rule reads;
- `steps.py`: the turn as the rulebook declares it, and the quantities its actions read;
- `play.py`: the game's state, and the verdicts an event may get;
- `events.py`: the events players enter, each checked against the rules and the state, and the
  steps' automatic bookkeeping;
- `ending.py`: the end of the game and the final scores;
- `decks.py`: the trade-card stacks;
- `turn.py`: the turn's flow, which hands each event to its handler and moves from step to step;
- `words.py`: events as players type them;
- `calamities.py`: the calamity step, built from the players' states, one calamity at a time;
- `gamefile.py`: the game file (YAML) read, checked and written atomically.
"""
