"""Pieces of Python's standard library written in the engine subset (docs/engine-route.md), so
that the engines run the same steps on the command line and, translated by py2es, in the page:
the translator writes a call of these where an engine module calls the standard library's, and
the page's hand-written runtime keeps only what the subset is translated into (its values,
operators and built-ins)."""
