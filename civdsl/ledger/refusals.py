"""The verdicts an event may get: refused by the rules (CIV142), or waiting for a choice the
rules leave to a player (CIV143). An engine module (py2es): the page refuses with the same words."""

from __future__ import annotations

ILLEGAL = "CIV142"  # an event the rules refuse
CHOICE = "CIV143"  # a choice the rules leave to a player


class Refused(Exception):
    """An event the rules or the state refuse; `choices` lists what a player may choose instead."""

    def __init__(self, code: str, message: str, choices: list | None = None, field: str | None = None,
                 needs: list | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.choices = list(choices) if choices else []
        self.field = field  # the event's key the refusal is about, where one is
        # what a choice refusal asks for, as data: {"player", "calamity", "key", "amount"}
        self.needs = list(needs) if needs else []
