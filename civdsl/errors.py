"""The two user-facing error types, in a module that imports nothing, so that the command line
can catch them without importing the engines that raise them."""

from __future__ import annotations


class RulebookError(Exception):
    """The rulebook could not be compiled; `diagnostics` holds the rendered report."""

    def __init__(self, message: str, diagnostics=None):
        super().__init__(message)
        self.diagnostics = diagnostics


class StateError(Exception):
    """A problem in a player state, already phrased for the user."""
