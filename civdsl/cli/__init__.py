"""The `civdsl` command line: one module per family of commands, each importing the engines it
drives only inside its commands. Nothing outside this package imports it (tests/test_layering.py).

    main.py       the group, with the table of commands and where each lives (loaded lazily)
    common.py     what every command shares: opening a rulebook, facts from --state/--set, JSON
    questions.py  resolve, cost, epoch, score, hand: answers for a player at the table
    plan.py       plan: which advances to buy this turn
    authoring.py  check, build, fmt, new, diff, explain, vocab: writing and publishing rulebooks
    charts.py     chart: one chart of one rulebook
    cardgame.py   step, simulate: the card-and-dice game's round rules
    lsp.py        lsp: the language server for editors
"""

from ..gcpause import paused

# The collector paused while click and the group are imported (and, in the group and in
# open_rulebook, while a command's module and its rulebook load): start-up builds what it keeps,
# and the fifteen or so collections it triggered found nothing, at a cost every command paid.
with paused():
    from .main import main

__all__ = ["main"]
