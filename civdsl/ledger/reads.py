"""A rule's answer kept by what the rule read: a state that records every fact, option and holding
a rule reads, and a memo that gives the answer again to any later state that reads the same values
there. The ledger builds a player's state after each change of his; a rule such as the start
credits may read any fact, but in a game it reads a few (the player count, the scenario), so a
change of hand or treasury keeps its answer without knowing in advance what the rule reads."""

from __future__ import annotations

import copy

from ..runtime import PlayerState

_ABSENT = object()
_EVERY = "*every*"  # the rule read the whole mapping (iterated it, copied it)
_HELD = ("held", None)
_KEPT = 64  # the answers a memo keeps at most, then it starts again


class _Reads(dict):
    """A state's facts or options that note each name read (and the whole mapping, where a rule
    iterates it) in LOG under KIND."""

    def __init__(self, plain: dict, kind: str, log: dict):
        super().__init__(plain)
        self.plain, self.kind, self.log = plain, kind, log

    def _note(self, name):
        key = (self.kind, name)
        if key not in self.log:
            value = self.plain.get(name, _ABSENT)
            self.log[key] = value if value is _ABSENT else copy.deepcopy(value)
        return name

    def __getitem__(self, name):
        return super().__getitem__(self._note(name))

    def get(self, name, default=None):
        return super().get(self._note(name), default)

    def __contains__(self, name) -> bool:
        return super().__contains__(self._note(name))

    def _every(self) -> None:
        self.log.setdefault((self.kind, _EVERY), copy.deepcopy(self.plain))

    def __iter__(self):
        self._every()
        return super().__iter__()

    def keys(self):
        self._every()
        return super().keys()

    def items(self):
        self._every()
        return super().items()

    def values(self):
        self._every()
        return super().values()

    def __len__(self) -> int:
        self._every()
        return super().__len__()

    def copy(self) -> dict:
        self._every()
        return dict(self.plain)


class _Held(tuple):
    """A state's held advances that note, at the first use, that the rule read them (a rule that only
    passes them on to a state of its own has not)."""

    log: dict

    def _note(self) -> tuple:
        self.log.setdefault(_HELD, tuple.__new__(tuple, tuple.__iter__(self)))
        return self

    def __iter__(self):
        return tuple.__iter__(self._note())

    def __len__(self) -> int:
        return tuple.__len__(self._note())

    def __getitem__(self, i):
        return tuple.__getitem__(self._note(), i)

    def __contains__(self, name) -> bool:
        return tuple.__contains__(self._note(), name)

    def __eq__(self, other) -> bool:
        return tuple.__eq__(self._note(), other)

    def __ne__(self, other) -> bool:
        return tuple.__ne__(self._note(), other)

    def __hash__(self) -> int:
        return tuple.__hash__(self._note())


class ReadingState(PlayerState):
    """A player state that records what its readers read (`log`); a state a rule makes from it
    (`type(state)(module, state.held, state.facts, ...)`, its copies) records into the same log."""

    def __init__(self, module, holds=(), facts=None, options=None, held_set=None):
        log = facts.log if isinstance(facts, _Reads) else {}
        holds = tuple.__new__(tuple, tuple.__iter__(holds)) if isinstance(holds, _Held) else tuple(holds)
        facts = facts.plain if isinstance(facts, _Reads) else dict(facts or {})
        options = options.plain if isinstance(options, _Reads) else dict(options or {})
        super().__init__(module, holds, facts, options, held_set)
        self.log = log
        self.facts = _Reads(self.facts, "fact", log)
        self.options = _Reads(self.options, "option", log)
        held = tuple.__new__(_Held, holds)
        held.log = log
        self._held = held

    @property
    def held(self) -> tuple:
        return self._held

    @held.setter
    def held(self, value) -> None:
        self._held = value

    # a set is read through operations that never call back into Python: any use is a read of all
    @property
    def held_set(self) -> frozenset:
        self.log.setdefault(_HELD, tuple.__new__(tuple, tuple.__iter__(self._held)))
        return self._held_set

    @held_set.setter
    def held_set(self, value) -> None:
        self._held_set = value


def _reads_same(log: dict, state: PlayerState) -> bool:
    """Whether STATE gives every value the rule read where it read it."""
    for (kind, name), value in log.items():
        if kind == "held":
            if tuple(state.held) != value:
                return False
            continue
        source = state.facts if kind == "fact" else state.options
        if name == _EVERY:
            if source != value:
                return False
        elif source.get(name, _ABSENT) != value:
            return False
    return True


class Memo:
    """A rule's answers, each with what the rule read to give it. An answer is shared by every
    state that reads the same values: its readers must not change it."""

    def __init__(self, rule):
        self.rule = rule  # rule(state) -> answer; reads the state only through its facts, options, holdings
        self.answers: list[tuple[dict, object]] = []

    def __call__(self, state: PlayerState):
        for log, answer in self.answers:
            if _reads_same(log, state):
                return answer
        reading = ReadingState(state.module, state.held, state.facts, state.options)
        answer = self.rule(reading)
        if len(self.answers) >= _KEPT:
            self.answers.clear()
        self.answers.append((dict(reading.log), answer))
        return answer
