"""The companion: every rulebook's engine as JavaScript, for a page that answers at the table.

`jsgen.engine_script(edition, module)` compiles an edition's rules (the same resolved model
codegen.py compiles to Python, handed down with the module compiled from it) into one self-contained JavaScript program over the generic runtime in
runtime/*.js; it sets `globalThis.civdsl` with `resolve`, `epoch`, `score` (and `cost`, `plan`),
each answering exactly what the command line prints with --json. docs/companion.md describes it.
"""
