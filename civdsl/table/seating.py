"""The table's players as the calamity phase reads them: each player's state, his A.S.T. rank,
who borders whom, and the seat one player takes for one calamity (read by the player state's
table queries). `civdsl table` builds one from a table file (tablefile.py), the game ledger from
the players' states (ledger/calamities.py)."""

from __future__ import annotations

from .. import vocabulary as vocab
from ..handvalue import player_block


class Seat:
    """One player's place at the table, seen from one calamity: the other players, how they
    border this one, and who the beneficiary and the trader are (read by runtime.PlayerState's
    table queries)."""

    __slots__ = ("table", "name", "roles")

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
        if relation in vocab.FACT_RELATIONS:
            return self._sharing(vocab.FACT_RELATIONS[relation])
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
        if relation in vocab.FACT_RELATIONS:
            return f"players.{self.name}.{vocab.FACT_RELATIONS[relation]}"
        return f"borders.{relation}"

    def role(self, role: str):
        name = self.roles.get(role)
        return None if name is None else (name, self.table.fresh(name))


class Table:
    """The players (name -> PlayerState as loaded), their A.S.T. ranks, the borders and the
    calamities drawn this turn."""

    def __init__(self, rulebook, players: dict, ranks: dict, borders: dict, calamities: list, options: dict):
        self.rulebook = rulebook
        self.module = rulebook.module
        self.players = players
        self.ranks = ranks  # name -> A.S.T. rank (None when neither the table nor the civilization says)
        self.borders = borders  # relation -> {name: set of names}
        self.calamities = calamities  # [{"index", "calamity", "victim", "traded_by", "secondary", "beneficiary"}]
        self.options = options
        # (player, fact) -> (the state it was read from, its value): a ranking reads the same
        # facts of every player for each calamity, and a state never changes once built
        self._values: dict = {}
        self._relation_facts: dict = {}

    def value(self, name: str, fact: str):
        """A player's fact, or the derived fact of that name (vocabulary.DERIVED_NAMES), as a
        question about him alone reads it (an Unknown where the table does not give it)."""
        base = self.players[name]
        kept = self._values.get((name, fact))
        if kept is not None and kept[0] is base:
            return kept[1]
        if fact in vocab.DERIVED_NAMES:
            v = self.fresh(name).derived(fact)
        else:  # a fact the state gives is read as given; else it reads the default or records it missing
            v = base.facts[fact] if fact in base.facts else self.fresh(name).fact(fact)
        self._values[(name, fact)] = (base, v)
        return v

    def relation_fact(self, name: str, fact: str):
        """A player's value of a fact relation's fact (`same_block`: his block), None when not
        known; kept like `value`'s, since every calamity asks it of every player."""
        base = self.players[name]
        kept = self._relation_facts.get((name, fact))
        if kept is not None and kept[0] is base:
            return kept[1]
        v = player_block(self.module, base) if fact == "block" else (base.facts.get(fact) or None)
        self._relation_facts[(name, fact)] = (base, v)
        return v

    def fresh(self, name: str, seat: Seat | None = None, **facts):
        """A copy of a player's state for one question, seated (SEAT) and with the FACTS this
        question adds (the calamity's `traded_by`): missing facts and undecided rules are recorded
        per answer, never carried from one answer into the next, and the table's own states never
        change, so one table serves every calamity of a step."""
        st = self.players[name].for_question(facts)
        st.seat = seat
        return st
