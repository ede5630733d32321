"""The engine modules' Python as the translator (py2es) reads it: which modules the page runs
translated (ENGINE_MODULES, with the prefix of their names), each module's text and its syntax tree,
parsed once, and what the modules define that a translation of another needs (classes and what
they are made with, functions, methods, names imported and so re-exported)."""

from __future__ import annotations

import ast
import functools
import importlib.util

# The engine modules the page runs, with the prefix of their names in the page's script.
ENGINE_MODULES = {"civdsl.pystd.heaps": "hq", "civdsl.pystd.iterate": "it", "civdsl.pystd.reprs": "rp",
                  "civdsl.pystd.shellwords": "sw", "civdsl.closematch": "cm", "civdsl.texts": "tx",
                  "civdsl.plan.search": "ps", "civdsl.plan.payment": "pp", "civdsl.plan.objectives": "ob",
                  "civdsl.placement": "pl", "civdsl.pricing": "pr", "civdsl.standing": "st", "civdsl.handvalue": "hv",
                  "civdsl.factchecks": "fc", "civdsl.statecheck": "sc", "civdsl.playerfacts": "pf",
                  "civdsl.losses": "ls", "civdsl.effectlist": "ef", "civdsl.calamity_answer": "ca",
                  "civdsl.plan.purchase": "pu", "civdsl.plan.horizon": "ph", "civdsl.plan.hand": "hd",
                  "civdsl.plan.answer": "pa", "civdsl.ledger.draws": "dr", "civdsl.ledger.quantities": "qt",
                  "civdsl.ledger.decks": "dk", "civdsl.ledger.players": "lp", "civdsl.playerstate": "pt",
                  "civdsl.startcredits": "cr", "civdsl.stateanswers": "sa", "civdsl.ledger.refusals": "rf",
                  "civdsl.ledger.steps": "ts", "civdsl.ledger.words": "wd", "civdsl.ledger.play": "lg",
                  "civdsl.ledger.ending": "le", "civdsl.ledger.taxes": "tc", "civdsl.ledger.events": "ev",
                  "civdsl.table.seating": "tb", "civdsl.table.resolving": "rv", "civdsl.ledger.calamities": "lc",
                  "civdsl.ledger.turn": "lt", "civdsl.ledger.gamecheck": "gc", "civdsl.ledger.gametext": "gx",
                  "civdsl.ledger.gameview": "gv"}
# The game ledger's modules among them: translated and tested against Python
# (tests/test_ledger_translated.py), and joined only to a page that keeps games
# (`engine_source(ledger=True)`), so a page without the ledger does not carry its weight.
LEDGER_MODULES = frozenset({"civdsl.pystd.shellwords", "civdsl.ledger.draws", "civdsl.ledger.quantities",
                            "civdsl.ledger.decks", "civdsl.ledger.players", "civdsl.ledger.refusals",
                            "civdsl.ledger.steps", "civdsl.ledger.words", "civdsl.ledger.play",
                            "civdsl.ledger.ending", "civdsl.ledger.taxes", "civdsl.ledger.events",
                            "civdsl.ledger.turn", "civdsl.ledger.gamecheck", "civdsl.table.seating",
                            "civdsl.table.resolving", "civdsl.ledger.calamities", "civdsl.ledger.gametext",
                            "civdsl.ledger.gameview"})

# Python's library written in the subset (civdsl/pystd): the translation calls these where an engine
# calls a library function or a composite built-in, so every script that runs a translated module
# carries them (library_source).
LIBRARY_MODULES = tuple(m for m in ENGINE_MODULES if m.startswith("civdsl.pystd."))


@functools.lru_cache(maxsize=None)
def parsed(source: str) -> ast.Module:
    """An engine module's syntax tree, parsed once (the translation never changes it)."""
    return ast.parse(source)


def module_text(name: str) -> tuple[str, str]:
    spec = importlib.util.find_spec(name)
    return spec.origin, open(spec.origin, encoding="utf-8").read()


@functools.cache
def class_nodes_of(qualified: str) -> dict:
    """The classes an engine module defines, by name (their __init__ gives a call's parameters)."""
    return {n.name: n for n in parsed(module_text(qualified)[1]).body if isinstance(n, ast.ClassDef)}


def init_in(qualified: str, cls: ast.ClassDef) -> ast.FunctionDef | None:
    """The __init__ a class of the engine module QUALIFIED is made with: its own, or the one of the
    class of another engine module it is based on (found through the module's imports)."""
    own = next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None)
    if own is not None or len(cls.bases) != 1 or not isinstance(cls.bases[0], ast.Name):
        return own
    base = cls.bases[0].id
    package = qualified.rsplit(".", 1)[0]
    for node in parsed(module_text(qualified)[1]).body:
        if isinstance(node, ast.ImportFrom) and node.level and node.module \
                and any(a.name == base and not a.asname for a in node.names):
            origin = (package.rsplit(".", node.level - 1)[0] if node.level > 1 else package) + "." + node.module
            if origin in ENGINE_MODULES and base in class_nodes_of(origin):
                return init_in(origin, class_nodes_of(origin)[base])
    return None


@functools.cache
def function_nodes_of(qualified: str) -> dict:
    return {n.name: n for n in parsed(module_text(qualified)[1]).body if isinstance(n, ast.FunctionDef)}


@functools.cache
def defined_in(qualified: str, name: str) -> str:
    """The engine module whose NAME the module QUALIFIED imports by name and so re-exports, else
    QUALIFIED itself."""
    if qualified in ENGINE_MODULES or importlib.util.find_spec(qualified) is None:
        return qualified
    package = qualified.rsplit(".", 1)[0]
    for node in parsed(module_text(qualified)[1]).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module \
                and any(a.name == name and a.asname is None for a in node.names) \
                and f"{package}.{node.module}" in ENGINE_MODULES:
            return f"{package}.{node.module}"
    return qualified


@functools.cache
def classes_of(qualified: str) -> frozenset:
    """The classes an engine module defines (what its importers construct with `new`)."""
    return frozenset(class_nodes_of(qualified))


@functools.cache
def engine_method_names() -> frozenset:
    """The names of every method (but the special ones) of the engine modules' classes."""
    names = set()
    for qualified in ENGINE_MODULES:
        for node in parsed(module_text(qualified)[1]).body:
            if isinstance(node, ast.ClassDef):
                names.update(m.name for m in node.body if isinstance(m, ast.FunctionDef) and not m.name.startswith("__"))
    return frozenset(names)
