"""The one declaration of the fields of each item kind (advance, calamity, commodity, civilization).

For every field: the word a rulebook writes, the key the syntax tree gives it, what it holds,
whether an item may give it more than once, what it names, how a house rule's `change` treats
it, and its words for charts and `explain`. The parser's unknown-field diagnostic (CIV135, with
did-you-mean), the resolver's "given twice" check and `change` semantics, the LSP's field
completion, the language reference's field tables and the field lines of `civdsl explain`
(`EXPLAIN_HEAD`, `FieldSpec.explain`, `FieldSpec.section`) derive from here.

This module imports nothing from civdsl: every pass may read it.
"""

from __future__ import annotations

from dataclasses import dataclass

# How a house rule's `change` treats a field it gives:
CHANGES = {
    "replace": "replaces the base's value",
    "replace_all": "replaces the base's whole list of this field (all its lines together)",
    "add": "adds to the base's",
    "merge": "overrides the base's settings it names, keeps the others",
    "remove": "removes from the base's (only in a `change`)",
}


@dataclass(frozen=True)
class FieldSpec:
    word: str  # as a rulebook writes it: `cost 60`
    key: str  # the syntax tree's Field.key
    type: str  # what it holds, in words
    repeatable: bool  # may an item give it more than once
    references: str | None  # what its value names: "group", "advance", "player role", ... or None
    change: str | None  # a key of CHANGES; None: the kind has no `change`
    words: str  # its name in charts and `explain`
    doc: str
    what_it_does: bool = False  # part of what the item does (a `change` of it may outdate the summary)
    change_only: bool = False  # only in a `change` block
    attr: str = ""  # the model attribute it fills, when not named `key`
    prose: bool = False  # words for readers (summary, aka, note), not a rule: diffs list them apart
    data: str = ""  # its key in the compiled model's data (serialize.py), when not `model_attr`
    # How `civdsl explain` words it. `explain`: a template, `{}` the value (a list joined with
    # ", "), `{s}` a list's plural ending; a field named in EXPLAIN_HEAD is a part of the item's
    # first line (its template starts with the separator from the part before), any other a line
    # of its own. `missing`: the value's words when the item does not give it (none, or an empty
    # list; None: left out).
    explain: str = ""
    missing: str | None = None
    # `section`: explain lists each of its values under this title; `empty`: the section's one
    # line when there are none (None: the section is left out). Prose sections come last.
    section: str = ""
    empty: str | None = None

    @property
    def model_attr(self) -> str:
        return self.attr or self.key

    @property
    def data_key(self) -> str:
        return self.data or self.model_attr


def _common(change: str | None) -> tuple[FieldSpec, ...]:
    return (
        FieldSpec("summary", "summary", "string", False, None, change and "replace", "summary",
                  "what the item does, in one line of our own words", prose=True, explain="summary: {}"),
        FieldSpec("aka", "aka", "string", True, None, change and "add", "also known as",
                  "another name the item is known by (explain and the LSP find it)", prose=True,
                  explain="also called: {}"),
        FieldSpec("note", "note", "string", True, None, change and "add", "note",
                  "a reading the authors chose where the printed rules are ambiguous", attr="notes",
                  prose=True, section="Notes"),
    )


ITEM_FIELDS: dict[str, tuple[FieldSpec, ...]] = {
    "advance": (
        FieldSpec("cost", "cost", "number or `unknown`", False, None, "replace", "cost", "the printed cost",
                  explain="cost {}", missing="unknown"),
        FieldSpec("groups", "groups", "group ids, comma-separated", False, "group", "replace", "groups",
                  "the groups (colours) the advance belongs to", explain="; group{s} {}",
                  missing="none"),
        FieldSpec("vp", "vp", "number", False, None, "replace", "victory points",
                  "victory points, where not derived from the cost by `vp tiers`", explain=", {} VP"),
        FieldSpec("credits", "credits", "group id and amount pairs", True, "group", "replace_all", "credits",
                  "credit points toward later advances of each group"),
        FieldSpec("credit", "credit", "advance name and amount", True, "advance", "replace_all", "special credit",
                  "a credit toward one named advance, at most its cost (CIV136)", attr="specific",
                  data="specific_credits"),
        FieldSpec("requires", "requires", "advance names", True, "advance", "replace_all", "requires",
                  "advances that must be held before this one is bought"),
        FieldSpec("supply", "supply", "number", False, None, "replace", "cards in the supply",
                  "how many cards of the advance the game has", explain="; supply {} cards"),
        FieldSpec("ability", "ability", "an ability call (vocabulary)", True, "ability", "replace_all", "ability",
                  "what holding the advance lets a player do", what_it_does=True, attr="abilities",
                  section="Abilities"),
    ) + _common("replace"),
    "calamity": (
        FieldSpec("stack", "stack", "number", False, None, "replace", "trade stack",
                  "the trade card stack the calamity is shuffled into", explain="stack {}"),
        FieldSpec("class", "class", "`minor`, `major tradable` or `major nontradable`", False, None, "replace",
                  "class", "minor or major, tradable or not", attr="klass", data="class", explain=", {}"),
        FieldSpec("beneficiary", "beneficiary", "a beneficiary (vocabulary)", False, "beneficiary", "replace",
                  "beneficiary", "who gains from the calamity", explain="; beneficiary: {}"),
        FieldSpec("primary", "primary", "an effect block", False, "effect", "replace", "primary victim",
                  "the effects on the primary victim", what_it_does=True,
                  section="Primary victim", empty="nothing"),
        FieldSpec("secondary", "secondary", "`count` / `share` and an effect block", False, "effect", "replace",
                  "secondary victims", "the effects on secondary victims", what_it_does=True,
                  section="Secondary victims"),
        FieldSpec("exclude", "exclude", "a role or `when` condition", True, "player role", "add", "excluded",
                  "players who cannot be secondary victims", attr="exclusions",
                  section="Who may not be a secondary victim"),
        FieldSpec("cancel", "cancel", "`when` condition", True, None, "add", "cancelled when",
                  "a condition under which the calamity has no effect", section="Cancelled when"),
        FieldSpec("when", "modifier", "a condition, role, priority and operations", True, "advance", "add",
                  "modifier", "changes the effects when a condition holds", attr="modifiers",
                  section="Modifiers (in source order; adds and prevents, then set by priority, then cap)", empty="none"),
        FieldSpec("amounts", "amounts", "amounts settings", True, None, "merge", "amounts",
                  "how this calamity's amounts are bounded and combined (an exception to the edition's)"),
        FieldSpec("resolution", "resolution", "resolution settings", True, None, "merge", "resolution",
                  "how the table resolves this calamity: its beneficiary and default assignment (an exception to "
                  "the edition's)"),
        FieldSpec("drop", "drop", "`when` condition and role", True, None, "remove", "dropped modifier",
                  "removes the base's modifier with this condition", change_only=True, attr="modifiers"),
    ) + _common("replace"),
    "commodity": (
        FieldSpec("value", "value", "number", False, None, "replace", "value", "the face value of one card",
                  explain="value {}"),
        FieldSpec("count", "count", "number", False, None, "replace", "cards", "how many cards of it the game has",
                  explain=", {} cards"),
        FieldSpec("stack", "stack", "number", False, None, "replace", "trade stack",
                  "the trade card stack it is dealt from", explain=", stack {}",
                  missing="none"),
        FieldSpec("block", "block", "a trade block id", False, "block", "replace", "block",
                  "the trade block whose deck holds it", explain=", block {}"),
        FieldSpec("block", "block_when", "`block ID when OPTION`: a trade block id and a declared option", True,
                  None, "replace_all", "block under an option",
                  "the trade block while the option is on (another reading of `block`)"),
        FieldSpec("printed", "printed", "numbers, comma-separated", False, None, "replace", "printed values",
                  "the values printed on the card, where they differ from the set formula",
                  explain="printed set values: {}"),
    ) + _common("replace"),
    "civilization": (
        FieldSpec("rank", "rank", "number", False, None, None, "A.S.T. rank", "its place in the A.S.T. ranking",
                  explain="A.S.T. ranking {}", missing="not given"),
        FieldSpec("block", "block", "a trade block id", False, "block", None, "block", "its trade block", explain=", block {}"),
        FieldSpec("ast", "row", "track id, optional `spaces N`, `at` first spaces", True, "A.S.T. track", None,
                  "A.S.T. row", "where each epoch begins on a track for this civilization", attr="rows"),
        FieldSpec("setups", "setups", "set-up names, comma-separated strings", False, None, None, "set-ups",
                  "the set-ups by player count that use it: a game's civilizations are those of one set-up",
                  explain="set-ups: {}"),
        FieldSpec("block", "block_for", "`block ID for \"SETUP\", ...`: a trade block id and set-up names", True,
                  "block", None, "block in set-ups",
                  "the trade block it plays in those of its set-ups instead of `block` (a combined game)"),
    ) + _common(None),
}


# The parts of each kind's first line in `civdsl explain`, in order (each field's `explain` words
# them): "cost 60, 1 VP; groups Crafts; supply 3 cards".
EXPLAIN_HEAD = {
    "advance": ("cost", "vp", "groups", "supply"),
    "calamity": ("stack", "class", "beneficiary"),
    "commodity": ("value", "count", "stack", "block"),
    "civilization": ("rank", "block"),
}


# each kind's fields by syntax key (the first declared, where a key repeats): the resolver looks
# one up for every field of every item
_BY_KEY = {kind: {f.key: f for f in reversed(fields)} for kind, fields in ITEM_FIELDS.items()}


def field(kind: str, key: str) -> FieldSpec | None:
    """The field of `kind` whose syntax key is `key`."""
    return _BY_KEY.get(kind, {}).get(key)


def single_keys() -> frozenset[str]:
    """Keys of the fields an item may give at most once, over every kind."""
    return frozenset(f.key for fields in ITEM_FIELDS.values() for f in fields if not f.repeatable)


def list_attrs(kind: str) -> tuple[str, ...]:
    """Model attributes of `kind` that repeatable fields fill (lists or dicts a change may edit)."""
    return tuple(dict.fromkeys(f.model_attr for f in ITEM_FIELDS.get(kind, ()) if f.repeatable))


def kinds_with_word(word: str) -> list[str]:
    """The item kinds that have a field written `word`."""
    return [k for k, fields in ITEM_FIELDS.items() if any(f.word == word for f in fields)]


def markdown() -> str:
    """The field tables of docs/language.md (a test keeps the page equal to this)."""
    out = []
    for kind, fs in ITEM_FIELDS.items():
        out += [f"`{kind}`:", "", "| field | holds | more than once | names | in a `change` | meaning |",
                "|---|---|---|---|---|---|"]
        for f in fs:
            change = "no `change`" if f.change is None else CHANGES[f.change]
            out.append(f"| `{f.word}` | {f.type} | {'yes' if f.repeatable else 'no'} | {f.references or ''} | "
                       f"{change} | {f.doc}{' (only in a `change`)' if f.change_only else ''} |")
        out.append("")
    return "\n".join(out)
