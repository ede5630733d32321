"""civdsl: rules of the Civilization board-game family as data, compiled and checked.

    >>> import civdsl
    >>> rb = civdsl.load("megaciv")
    >>> rb.resolve("Famine", role="primary", holds=["Pottery"]).amount("damage")

The public names are imported on first use (PEP 562), so that `import civdsl.cli` for
`civdsl --help` does not pay for the engines.
"""

from .errors import RulebookError, StateError

__all__ = ["load", "Rulebook", "RulebookError", "StateError"]


def __getattr__(name: str):
    if name in ("load", "Rulebook"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'civdsl' has no attribute {name!r}")
