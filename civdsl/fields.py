"""The one declaration of the fields of each item kind (advance, calamity, commodity, civilization).

For every field: the word a rulebook writes, the key the syntax tree gives it, what it holds,
whether an item may give it more than once, what it names, how a house rule's `change` treats
it, and its words for charts and `explain`. The parser's unknown-field diagnostic (CIV135, with
did-you-mean), the resolver's "given twice" check and `change` semantics, the LSP's field
completion, the language reference's field tables and the field lines of `civdsl explain`
(`EXPLAIN_HEAD`, `FieldSpec.explain`, `FieldSpec.section`) derive from here, and so do, for a
field whose value has one of the shapes of VALUES: its syntax callback (syntax_fields.py registers one
per row, under the row's grammar alias `rule`), its model attribute (model.py adds it where the
item's class does not declare it), the range its numbers must fall in (`bound`), and its part
of schemas/model.schema.json (`schema_fragment`). A field of another shape names no value shape,
has a callback of its own in syntax.py and declares its `schema`.

This module imports nothing from civdsl but the bounds table (itself importing nothing): every
pass may read it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .bounds import FIELDS as BOUNDS
from .bounds import Bound

# How a house rule's `change` treats a field it gives:
CHANGES = {
    "replace": "replaces the base's value",
    "replace_all": "replaces the base's whole list of this field (all its lines together)",
    "add": "adds to the base's",
    "merge": "overrides the base's settings it names, keeps the others",
    "remove": "removes from the base's (only in a `change`)",
}


# The value shapes a field may have, as the syntax pass decodes them from the tokens of its
# grammar alternative after the keyword: "number" is its INT, "names with places" each NAME with
# where it is written (a diagnostic about the name points there), and so on. `tokens`: what the
# alternative writes after its keyword (a test holds the grammar to it); `numbers`: the shape
# holds numbers (the row must declare their range); `data`: the JSON Schema of one value in the
# compiled model's data.
@dataclass(frozen=True)
class ValueShape:
    tokens: str
    numbers: bool
    data: dict
    model: str  # the Python type of one value in the model (once the resolver has read it)


_TEXTS = {"type": "array", "items": {"type": "string"}}
VALUES = {
    "number": ValueShape("INT", True, {"type": "integer"}, "int"),
    "number or unknown": ValueShape("(INT | UNKNOWN)", True, {"type": ["integer", "null"]}, "int"),
    "numbers": ValueShape("INT (COMMA INT)*", True, {"type": "array", "items": {"type": "integer"}}, "list[int]"),
    "string": ValueShape("STRING", False, {"type": "string"}, "str"),
    "strings": ValueShape("STRING (COMMA STRING)*", False, _TEXTS, "list[str]"),
    "strings with places": ValueShape("STRING (COMMA STRING)*", False, _TEXTS, "list[str]"),
    "name": ValueShape("NAME", False, {"type": "string"}, "str"),
    "name with place": ValueShape("NAME", False, {"type": "string"}, "str"),
    "table name": ValueShape("TABLE NAME", False, {"type": "string"}, "str"),  # `table ID`: a declared table
    "names with places": ValueShape("NAME (COMMA NAME)*", False, _TEXTS, "list[str]"),
}

# The grammar alias of an item kind's field is `<prefix>_<key>` unless its row names another
# (the fields every kind shares are one rule each: `summary`, `aka`, `note`).
RULE_PREFIX = {"advance": "adv", "calamity": "cal", "commodity": "com", "civilization": "civ"}


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
    # How the field's value is read and kept. `value`: a shape of VALUES, or "" for a field whose
    # syntax callback is written out in syntax.py. `bound`: the range of its numbers (a field whose
    # shape holds numbers cannot be declared without one). `required`: every item of the kind
    # gives it (the model's data never holds null for it). `schema`: its data's JSON Schema where
    # the shape does not give it. `rule`: its grammar alias, when not `<prefix>_<key>`.
    value: str = ""
    bound: Bound | None = None
    required: bool = False
    schema: dict | None = None
    rule: str = ""

    def __post_init__(self):
        if self.value and self.value not in VALUES:
            raise ValueError(f"field `{self.word}`: unknown value shape {self.value!r} (one of {', '.join(VALUES)})")
        if self.value and VALUES[self.value].numbers and self.bound is None:
            raise ValueError(f"field `{self.word}` holds numbers but declares no range (`bound`)")
        if not self.value and self.schema is None and not self.change_only:
            raise ValueError(f"field `{self.word}` has neither a value shape nor a `schema` for its data")

    def rule_of(self, kind: str) -> str:
        """Its grammar alias as an item field of `kind`."""
        return self.rule or f"{RULE_PREFIX[kind]}_{self.key}"

    def schema_fragment(self, nullable: bool) -> dict:
        """The JSON Schema of the field's value in the compiled model's data; `nullable`: the
        model holds None for it when an item does not give it."""
        if self.schema is not None:
            return self.schema
        one = dict(VALUES[self.value].data)
        if self.bound is not None:
            limits = {"minimum": self.bound.low, "maximum": self.bound.high}
            if one.get("type") == "array":
                one["items"] = {**one["items"], **limits}
            else:
                one.update(limits)
        if self.repeatable:
            return {"type": "array", "items": one}
        if nullable and not self.required and "null" not in one["type"]:
            one["type"] = [one["type"], "null"]
        return one

    @property
    def model_attr(self) -> str:
        return self.attr or self.key

    @property
    def data_key(self) -> str:
        return self.data or self.model_attr


def _common(change: str | None) -> tuple[FieldSpec, ...]:
    return (
        FieldSpec("summary", "summary", "string", False, None, change and "replace", "summary",
                  "what the item does, in one line of our own words", prose=True, explain="summary: {}",
                  value="string", rule="summary"),
        FieldSpec("aka", "aka", "string", True, None, change and "add", "also known as",
                  "another name the item is known by (explain and the LSP find it)", prose=True,
                  explain="also called: {}", value="string", rule="aka"),
        FieldSpec("note", "note", "string", True, None, change and "add", "note",
                  "a reading the authors chose where the printed rules are ambiguous", attr="notes",
                  prose=True, section="Notes", value="string", rule="note"),
    )


ITEM_FIELDS: dict[str, tuple[FieldSpec, ...]] = {
    "advance": (
        FieldSpec("cost", "cost", "number or `unknown`", False, None, "replace", "cost", "the printed cost",
                  explain="cost {}", missing="unknown", value="number or unknown", bound=BOUNDS["cost"]),
        FieldSpec("groups", "groups", "group ids, comma-separated", False, "group", "replace", "groups",
                  "the groups (colours) the advance belongs to", explain="; group{s} {}",
                  missing="none", value="names with places",
                  schema={"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2}),
        FieldSpec("vp", "vp", "number", False, None, "replace", "victory points",
                  "victory points, where not derived from the cost by `vp tiers`", explain=", {} VP",
                  value="number", bound=BOUNDS["vp"]),
        FieldSpec("credits", "credits", "group id and amount pairs", True, "group", "replace_all", "credits",
                  "credit points toward later advances of each group", bound=BOUNDS["credit"],
                  schema={"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}),
        FieldSpec("credit", "credit", "advance name and amount", True, "advance", "replace_all", "special credit",
                  "a credit toward one named advance, at most its cost (CIV136)", attr="specific",
                  data="specific_credits", bound=BOUNDS["credit"],
                  schema={"type": "array", "items": {
                      "type": "object", "properties": {"target": {"type": "string"},
                                                       "amount": {"type": "integer", "minimum": 0}},
                      "required": ["target", "amount"], "additionalProperties": False}}),
        FieldSpec("requires", "requires", "advance names", True, "advance", "replace_all", "requires",
                  "advances that must be held before this one is bought", value="strings with places",
                  schema={"type": "array", "items": {"type": "string"}}),
        FieldSpec("supply", "supply", "number", False, None, "replace", "cards in the supply",
                  "how many cards of the advance the game has", explain="; supply {} cards",
                  value="number", bound=Bound(0, 1_000, "the number of cards of an advance")),
        FieldSpec("supply", "supply_table", "`table` and a table name", False, "table", "replace", "cards in use by players",
                  "where the cards in use depend on the number of players: the table whose bands give them (a state "
                  "without `players` is held to `supply`, the box's)", explain="; in use: {}",
                  value="table name"),
        FieldSpec("ability", "ability", "an ability call (vocabulary)", True, "ability", "replace_all", "ability",
                  "what holding the advance lets a player do", what_it_does=True, attr="abilities",
                  section="Abilities", schema={"type": "array", "items": {"$ref": "#/$defs/ability"}}),
    ) + _common("replace"),
    "calamity": (
        FieldSpec("stack", "stack", "number", False, None, "replace", "trade stack",
                  "the trade card stack the calamity is shuffled into", explain="stack {}",
                  value="number", bound=BOUNDS["stack"], required=True),
        FieldSpec("class", "class", "`minor`, `major tradable` or `major nontradable`", False, None, "replace",
                  "class", "minor or major, tradable or not", attr="klass", data="class", explain=", {}",
                  schema={"enum": ["minor", "major tradable", "major nontradable"]}),
        FieldSpec("beneficiary", "beneficiary", "a beneficiary (vocabulary)", False, "beneficiary", "replace",
                  "beneficiary", "who gains from the calamity", explain="; beneficiary: {}",
                  value="name with place"),
        FieldSpec("primary", "primary", "an effect block", False, "effect", "replace", "primary victim",
                  "the effects on the primary victim", what_it_does=True,
                  section="Primary victim", empty="nothing",
                  schema={"type": "array", "items": {"$ref": "#/$defs/effect"}}),
        FieldSpec("secondary", "secondary", "`count` / `share` and an effect block", False, "effect", "replace",
                  "secondary victims", "the effects on secondary victims", what_it_does=True,
                  section="Secondary victims", schema={"oneOf": [{"type": "null"}, {"$ref": "#/$defs/secondary"}]}),
        FieldSpec("exclude", "exclude", "a role or `when` condition", True, "player role", "add", "excluded",
                  "players who cannot be secondary victims", attr="exclusions",
                  section="Who may not be a secondary victim",
                  schema={"type": "array", "items": {
                      "type": "object", "properties": {"role": {"type": ["string", "null"]},
                                                       "when": {"type": ["string", "null"]},
                                                       "line": {"type": "integer"}},
                      "required": ["role", "when", "line"], "additionalProperties": False}}),
        FieldSpec("cancel", "cancel", "`when` condition", True, None, "add", "cancelled when",
                  "a condition under which the calamity has no effect", section="Cancelled when",
                  schema={"type": "array", "items": {
                      "type": "object", "properties": {"when": {"type": "string"}, "line": {"type": "integer"}},
                      "required": ["when", "line"], "additionalProperties": False}}),
        FieldSpec("when", "modifier", "a condition, role, priority and operations", True, "advance", "add",
                  "modifier", "changes the effects when a condition holds", attr="modifiers",
                  section="Modifiers (in source order; adds and prevents, then set by priority, then cap)", empty="none",
                  schema={"type": "array", "items": {"$ref": "#/$defs/modifier"}}),
        FieldSpec("amounts", "amounts", "amounts settings", True, None, "merge", "amounts",
                  "how this calamity's amounts are bounded and combined (an exception to the edition's)",
                  schema={"$ref": "#/$defs/amounts"}),
        FieldSpec("resolution", "resolution", "resolution settings", True, None, "merge", "resolution",
                  "how the table resolves this calamity: its beneficiary and default assignment (an exception to "
                  "the edition's)",
                  schema={"type": "object", "description": "this calamity's exceptions to the edition's `resolution` "
                                                           "settings (setting -> values)",
                          "additionalProperties": {"type": "array", "items": {"type": "string"}}}),
        FieldSpec("drop", "drop", "`when` condition and role", True, None, "remove", "dropped modifier",
                  "removes the base's modifier with this condition", change_only=True, attr="modifiers"),
    ) + _common("replace"),
    "commodity": (
        FieldSpec("value", "value", "number", False, None, "replace", "value", "the face value of one card",
                  explain="value {}", value="number", bound=Bound(0, 1_000, "a commodity's face value"),
                  required=True),
        FieldSpec("count", "count", "number", False, None, "replace", "cards", "how many cards of it the game has",
                  explain=", {} cards", value="number",
                  bound=BOUNDS["commodity count"], required=True),
        FieldSpec("stack", "stack", "number", False, None, "replace", "trade stack",
                  "the trade card stack it is dealt from", explain=", stack {}",
                  missing="none", value="number", bound=BOUNDS["stack"]),
        FieldSpec("block", "block", "a trade block id", False, "block", "replace", "block",
                  "the trade block whose deck holds it", explain=", block {}",
                  value="name"),
        FieldSpec("block", "block_when", "`block ID when OPTION`: a trade block id and a declared option", True,
                  None, "replace_all", "block under an option",
                  "the trade block while the option is on (another reading of `block`)",
                  schema={"type": "array", "items": {
                      "type": "object", "properties": {"when": {"type": "string"}, "block": {"type": "string"}},
                      "required": ["when", "block"], "additionalProperties": False}}),
        FieldSpec("printed", "printed", "numbers, comma-separated", False, None, "replace", "printed values",
                  "the values printed on the card, where they differ from the set formula",
                  explain="printed set values: {}", value="numbers",
                  bound=Bound(0, 100_000_000, "a printed set value")),
    ) + _common("replace"),
    "civilization": (
        FieldSpec("rank", "rank", "number", False, None, None, "A.S.T. rank", "its place in the A.S.T. ranking",
                  explain="A.S.T. ranking {}", missing="not given", value="number", bound=BOUNDS["ast rank"]),
        FieldSpec("block", "block", "a trade block id", False, "block", None, "block", "its trade block",
                  explain=", block {}", value="name"),
        FieldSpec("ast", "row", "track id, optional `spaces N`, `at` first spaces", True, "A.S.T. track", None,
                  "A.S.T. row", "where each epoch begins on a track for this civilization", attr="rows",
                  schema={"type": "object", "additionalProperties": {
                      "type": "object", "properties": {"spaces": {"type": ["integer", "null"]},
                                                       "starts": {"type": "array", "items": {"type": "integer"}}},
                      "required": ["spaces", "starts"], "additionalProperties": False}}),
        FieldSpec("setups", "setups", "set-up names, comma-separated strings", False, None, None, "set-ups",
                  "the set-ups by player count that use it: a game's civilizations are those of one set-up",
                  explain="set-ups: {}", value="strings"),
        FieldSpec("block", "block_for", "`block ID for \"SETUP\", ...`: a trade block id and set-up names", True,
                  "block", None, "block in set-ups",
                  "the trade block it plays in those of its set-ups instead of `block` (a combined game)",
                  schema={"type": "array", "description": "(block, set-ups): the block played in those set-ups",
                          "items": {"type": "array", "prefixItems": [{"type": "string"},
                                                                     {"type": "array", "items": {"type": "string"}}],
                                    "minItems": 2, "maxItems": 2}}),
    ) + _common(None),
}


# The parts of each kind's first line in `civdsl explain`, in order (each field's `explain` words
# them): "cost 60, 1 VP; groups Crafts; supply 3 cards".
EXPLAIN_HEAD = {
    "advance": ("cost", "vp", "groups", "supply", "supply_table"),
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


def ranges() -> dict[str, Bound]:
    """Every range a number written in a rulebook must fall in: bounds.FIELDS (the meanings more
    than one statement shares) and the ranges item fields declare in their rows, as
    `<kind> <word>`."""
    out = dict(BOUNDS)
    shared = {id(b) for b in BOUNDS.values()}
    for kind, fs in ITEM_FIELDS.items():
        for f in fs:
            if f.bound is not None and id(f.bound) not in shared:
                out[f"{kind} {f.word}"] = f.bound
                shared.add(id(f.bound))
    return out
