"""civdsl: rules of the Civilization board-game family as data, compiled and checked.

    >>> import civdsl
    >>> rb = civdsl.load("megaciv")
    >>> rb.resolve("Famine", role="primary", holds=["Pottery"]).amount("damage")
"""

from .api import Rulebook, RulebookError, load
from .state import StateError

__all__ = ["load", "Rulebook", "RulebookError", "StateError"]
