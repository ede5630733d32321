"""The table's players as the calamity phase reads them: each player's state, his A.S.T. rank,
who borders whom, and the seat one player takes for one calamity (read by the player state's
table queries). `civdsl table` builds one from a table file (tablefile.py), the game ledger from
the players' states (ledger/calamities.py), each built when first read. An engine module (py2es):
the game page resolves its calamity steps with this code."""

from __future__ import annotations

from ..handvalue import player_block
from ..vocabulary import DERIVED_NAMES, FACT_RELATIONS


class NotSeated(Exception):
    """A player read of the table who is not seated at it (a fault of the caller, not of a file)."""


class Seat:
    """One player's place at the table, seen from one calamity: the other players, how they
    border this one, and who the beneficiary and the trader are (read by runtime.PlayerState's
    table queries)."""

    def __init__(self, table: "Table", name: str, roles: dict[str, str | None]):
        self.table = table
        self.name = name
        self.roles = roles

    def related(self, relation: str) -> list | None:
        """(name, state) of the players related to this one; None when the table does not say."""
        names = self.related_names(relation)
        return None if names is None else [(n, self.table.fresh(n)) for n in names]

    def related_names(self, relation: str) -> list[str] | None:
        """The players related to this one; None when the table does not say."""
        if relation in ("others", "everyone"):
            return [n for n in self.table.players if n != self.name or relation == "everyone"]
        if relation in FACT_RELATIONS:
            return self._sharing(FACT_RELATIONS[relation])
        return self._bordering(relation)

    def _others(self) -> list[str]:
        return [n for n in self.table.players if n != self.name]

    def _sharing(self, fact: str) -> list[str] | None:
        """The other players with this player's value of FACT; None when his is not known."""
        if self._one_block(fact):
            return self._others()
        mine = self._fact(self.name, fact)
        if mine is None:
            return None
        return [n for n in self._others() if self._fact(n, fact) == mine]

    def _bordering(self, relation: str) -> list[str] | None:
        """The other players the table's borders of this relation link to this one."""
        pairs = self.table.borders.get(relation)
        if pairs is None:
            return None
        mine = pairs.get(self.name, ())
        return [n for n in self._others() if n in mine]

    def _one_block(self, fact: str) -> bool:
        """The block, with fewer players than `resolution { separate_blocks }`: one block."""
        least = self.table.module.TABLE_RULES.get("separate_blocks")
        return fact == "block" and least is not None and len(self.table.players) < least

    def _fact(self, name: str, fact: str):
        """A player's value of a fact relation's fact, None when not known (the block falls back
        on the civilization's, as in one-player answers)."""
        return self.table.relation_fact(name, fact)

    def missing(self, relation: str) -> str:
        """What the table lacks when `related(relation)` is None."""
        if relation in FACT_RELATIONS:
            return f"players.{self.name}.{FACT_RELATIONS[relation]}"
        return f"borders.{relation}"

    def role(self, role: str):
        name = self.roles.get(role)
        return None if name is None else (name, self.table.fresh(name))


class Table:
    """The players (their names in seat order, each one's state as loaded), their A.S.T. ranks, the
    borders and the calamities drawn this turn. STATES: the players' states by name, every one
    (a table file's) or those built so far, BUILD making the others when first read (the game
    ledger's: a step whose calamities read only their victims builds no other)."""

    def __init__(self, rulebook, states: dict, ranks: dict, borders: dict, calamities: list, options: dict,
                 names: list | None = None, build=None):
        self.rulebook = rulebook
        self.module = rulebook.module
        self.states = states
        self.players = list(states) if names is None else names  # the seated players' names, in seat order
        self.build = build
        self.ranks = ranks  # name -> A.S.T. rank (None when neither the table nor the civilization says)
        self.borders = borders  # relation -> {name: set of names}
        self.calamities = calamities  # [{"index", "calamity", "victim", "traded_by", "secondary", "beneficiary"}]
        self.options = options
        # player -> {fact: value}: a ranking reads the same facts of every player for each
        # calamity, and a state does not change until `changed` says so
        self._values: dict = {}
        self._relation_facts: dict = {}

    def state(self, name: str):
        """The player's state as loaded (shared: a question reads a copy, `fresh`)."""
        st = self.states.get(name)
        if st is None:
            if self.build is None or name not in self.players:
                raise NotSeated(name)
            st = self.build(name)
            self.states[name] = st
        return st

    def changed(self, names: list) -> None:
        """The players whose state changed (the ledger's calamity took its losses): their states
        are built again, and their facts read again, when next read."""
        for name in names:
            self.states.pop(name, None)
            self._values.pop(name, None)
            self._relation_facts.pop(name, None)

    def value(self, name: str, fact: str):
        """A player's fact, or the derived fact of that name (vocabulary.DERIVED_NAMES), as a
        question about him alone reads it (an Unknown where the table does not give it)."""
        kept = self._values.setdefault(name, {})
        if fact in kept:
            return kept[fact]
        base = self.state(name)
        if fact in DERIVED_NAMES:
            v = self.fresh(name).derived(fact)
        else:  # a fact the state gives is read as given; else it reads the default or records it missing
            v = base.given(fact) if base.gives(fact) else self.fresh(name).fact(fact)
        kept[fact] = v
        return v

    def relation_fact(self, name: str, fact: str):
        """A player's value of a fact relation's fact (`same_block`: his block), None when not
        known; kept like `value`'s, since every calamity asks it of every player."""
        kept = self._relation_facts.setdefault(name, {})
        if fact in kept:
            return kept[fact]
        base = self.state(name)
        v = player_block(self.module, base) if fact == "block" else (base.given(fact) or None)
        kept[fact] = v
        return v

    def fresh(self, name: str, seat: Seat | None = None, facts: dict | None = None):
        """A copy of a player's state for one question, seated (SEAT) and with the FACTS this
        question adds (the calamity's `traded_by`): missing facts and undecided rules are recorded
        per answer, never carried from one answer into the next, and the table's own states never
        change, so one table serves every calamity of a step."""
        st = self.state(name).for_question(facts)
        st.seat = seat
        return st
