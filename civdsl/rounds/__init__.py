"""The round-rules language: games played in rounds of phases over declared stats (dice pools,
tracks, event tables, a deck of cards). One module per stage, in pass order:

    grammar.lark   its grammar part, composed into grammar/civdsl.lark with `%extend item`
    syntax.py      typed statement nodes and the transformer callbacks (composed with civdsl.syntax's)
    model.py       the resolved declarations (`RoundRules`, an edition's `extensions["rounds"]`)
    resolve.py     declarations -> model (composed with civdsl.resolver's applier)
    checks.py      what is wrong with them (called by civdsl.validator; codes CIV070-CIV074)
    codegen.py     the Python they compile to (called by civdsl.codegen)
    runtime.py     what compiled phases call: GameState, RoundState, rounds and phases
    state.py       loading a state (YAML data) into a GameState
    simulate.py    stepping and many seeded games, with their reports
    event_plot.py  the plot of how often each event happened by round
    reference.py   the printable round reference (a chart of `civdsl charts`)
    serialize.py   the round part of the JSON model; diff.py: its changes between two editions
    language.py    the hooks above as a registered sub-language, and what the index of references reads

The main passes never import this package: they find its hooks through civdsl/sublanguages.py
(`language.py` registers them: the transformer mixin, the model, the resolver mixin,
`checks.check`, `codegen.emit`, `serialize.to_data`, `diff.changes`, the references). A new
round statement is one node class in syntax.py, one grammar alternative, and one `visit_<Node>`
method in checks.py, codegen.py and reference.py each.
"""
