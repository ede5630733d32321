"""The one declaration of civdsl's vocabulary.

Effect kinds, advance abilities, player-state facts and expression functions are declared
here once. The validator checks calls against these tables (so a misspelt parameter is an
error, never silently ignored), the chart generator renders effects with the templates, the
state schema is derived from FACTS, and `civdsl vocab` documents all of it.
Nothing here names an edition or a card: these are the nouns and verbs every edition shares.
"""

from __future__ import annotations

from .records import Record


class Param(Record):
    """One parameter of an effect kind or ability."""

    name: str
    kind: str  # "int" (an expression), "enum", "bool", "name" (an advance name), "str"
    required: bool = False
    choices: tuple[str, ...] = ()
    default: object = None
    doc: str = ""


class Kind(Record):
    """An effect kind or an ability: its parameters and how to say it in words."""

    name: str
    params: tuple[Param, ...]
    text: str  # a str.format template over the parameters, in our own words
    doc: str
    # the parameter that modifiers (add/prevent/set/cap) change when they name only the kind
    main: str | None = "amount"
    # what one unit of each counted parameter is, singular and plural, in the words a modifier
    # uses: "1 more city reduced", "5 fewer points of damage" (phrases.py builds the sentences)
    nouns: tuple[tuple[str, str, str], ...] = ()

    def noun(self, param: str | None) -> tuple[str, str] | None:
        name = param or self.main
        return next(((one, many) for p, one, many in self.nouns if p == name), None)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


AREAS = ("any", "coastal", "flood_plain", "volcano", "open_sea", "adjacent")
CHOOSERS = ("victim", "beneficiary")


def _amount(doc: str = "how many", required: bool = True) -> Param:
    return Param("amount", "int", required=required, doc=doc)


def _area(doc: str = "which areas the units come from") -> Param:
    return Param("area", "enum", choices=AREAS, default="any", doc=doc)


_EFFECTS = [
    Kind("damage", (_amount("unit points removed"), _area()),
         "take {amount} damage{area_text}", "Remove units worth this many unit points (token 1, city 5).",
         nouns=(("amount", "point of damage", "points of damage"),)),
    Kind("destroy_cities", (_amount("cities"), _area()),
         "destroy {amount} {cities}{area_text}", "Remove cities without replacing them by tokens.",
         nouns=(("amount", "city destroyed", "cities destroyed"),)),
    Kind("destroy_area_units", (_area("the areas whose units are all destroyed"),),
         "destroy every unit in the {area} areas", "Destroy all units, whoever owns them, in the areas named.", main=None),
    Kind("reduce_cities", (_amount("cities"), _area()),
         "reduce {amount} {cities}{area_text}", "Replace cities by tokens up to the population limit.",
         nouns=(("amount", "city reduced", "cities reduced"),)),
    Kind("reduce_all_but_cities", (_amount("cities kept"),),
         "reduce all cities but {amount}", "Reduce every city except this many.",
         nouns=(("amount", "city kept", "cities kept"),)),
    Kind("annex_unit_points", (_amount("unit points"),),
         "the beneficiary annexes {amount} {unit_points}", "The beneficiary replaces the victim's units with its own.",
         nouns=(("amount", "unit point annexed", "unit points annexed"),)),
    Kind("annex_all_but_unit_points", (_amount("unit points kept"),),
         "the beneficiary annexes all but {amount} {unit_points}", "All the victim's unit points above this many change hands.",
         nouns=(("amount", "unit point kept", "unit points kept"),)),
    Kind("annex_cities", (_amount("cities"),),
         "the beneficiary annexes {amount} {cities}", "The beneficiary replaces cities with its own.",
         nouns=(("amount", "city annexed", "cities annexed"),)),
    Kind("pirate_cities", (_amount("cities"), _area()),
         "{amount} {cities}{area_text} {turn} pirate", "Cities are replaced by pirate cities.",
         nouns=(("amount", "pirate city", "pirate cities"),)),
    Kind("barbarian_tokens", (_amount("barbarian tokens"),),
         "{amount} barbarian {tokens} attack a city", "Barbarian tokens attack one of the victim's cities.",
         nouns=(("amount", "barbarian token", "barbarian tokens"),)),
    Kind("lose_treasury", (_amount("treasury tokens"),),
         "lose {amount} treasury", "Return treasury tokens to stock (all of them if fewer are held).",
         nouns=(("amount", "treasury token lost", "treasury tokens lost"),)),
    Kind("pay_treasury", (_amount("treasury tokens"),),
         "pay {amount} treasury", "Voluntarily return exactly this much treasury (only as a replacement option).",
         nouns=(("amount", "treasury token paid", "treasury tokens paid"),)),
    Kind("discard_face_value", (_amount("face value points"),),
         "discard commodity cards worth at least {amount} in face value", "Discard cards by face value, not set value.",
         nouns=(("amount", "point of face value to discard", "points of face value to discard"),)),
    Kind("discard_cards", (_amount("cards"),),
         "discard {amount} commodity {cards}", "Discard commodity cards of the victim's choice.",
         nouns=(("amount", "card discarded", "cards discarded"),)),
    Kind("give_cards", (_amount("cards"), Param("to", "enum", choices=("beneficiary", "trader", "others"), default="beneficiary")),
         "give {amount} commodity {cards} to the {to}", "Hand commodity cards to another player.",
         nouns=(("amount", "card given", "cards given"),)),
    Kind("lose_ships", (_amount("ships"),),
         "lose {amount} {ships}", "Remove ships from the board.",
         nouns=(("amount", "ship lost", "ships lost"),)),
    Kind("ast_back", (_amount("steps"),),
         "move back {amount} {steps} on the A.S.T. track", "The succession marker moves backward.",
         nouns=(("amount", "step back on the A.S.T.", "steps back on the A.S.T."),)),
    Kind("advance_after_back", (),
         "your marker may still move forward this turn, if it meets the requirements",
         "A step back does not stop the marker advancing in the A.S.T. phase of the same turn.", main=None),
    Kind("city_support_rate", (_amount("tokens per city added to the support rate"),),
         "city support rises by {amount} per city; reduce unsupported cities", "A temporary rise of the city support rate.",
         nouns=(("amount", "token of city support per city", "tokens of city support per city"),)),
    Kind("civil_war_faction", (_amount("unit points in the breakaway faction"),
                               Param("chooser", "enum", choices=CHOOSERS, default="victim", doc="who picks the faction's units")),
         "a faction of {amount} unit points, chosen by the {chooser}, breaks away", "Part of the civilization goes to another player.",
         nouns=(("amount", "unit point in the faction", "unit points in the faction"),)),
    Kind("lose_tokens", (_amount("tokens"), _area()),
         "lose {amount} {tokens}{area_text}", "Tokens (not cities) return to stock.",
         nouns=(("amount", "token lost", "tokens lost"),)),
    Kind("cancelled", (), "the calamity has no effect", "Reported when a cancel condition holds.", main=None),
    Kind("faction_split", (_amount("unit points in the breakaway faction"),
                           Param("by_victim", "int", default=0, doc="how many of them the victim picks; the beneficiary picks the rest")),
         "a faction of {amount} unit points breaks away, {by_victim} of them picked by the victim and the rest by the beneficiary",
         "Civil war in two factions: the victim keeps the faction of its choice and the beneficiary annexes the other.",
         nouns=(("amount", "unit point in the faction", "unit points in the faction"), ("by_victim", "unit point the victim picks", "unit points the victim picks"),)),
    Kind("support_tokens_withheld", (_amount("tokens that may not count as city support"),),
         "{amount} of your {tokens} may not support cities; reduce unsupported cities",
         "Tokens stay on the board but do not count towards city support while the calamity is resolved.",
         nouns=(("amount", "token withheld from city support", "tokens withheld from city support"),)),
]

_ABILITIES = [
    Kind("tax_rate", (Param("delta", "int", required=True),
                      Param("lower", "int", default=0, doc="how far the holder may lower the rate instead")),
         "tax rate -{lower} to {delta:+d} per city", "The holder may raise the tokens taxed per city by up to delta (or lower "
         "them by up to lower), his choice each turn, the same for every city.", main="delta"),
    Kind("city_support", (Param("delta", "int", required=True),), "city support {delta:+d} per city", "Changes tokens needed per city.", main="delta"),
    Kind("ship_range", (Param("delta", "int", required=True),), "ships move {delta:+d} areas", "Changes ship movement.", main="delta"),
    Kind("ship_capacity", (Param("delta", "int", required=True),), "ships carry {delta:+d} tokens", "Changes ship capacity.", main="delta"),
    Kind("movement", (Param("delta", "int", required=True),), "tokens move {delta:+d} areas", "Changes land movement.", main="delta"),
    Kind("hand_limit", (Param("delta", "int", required=True),), "hand limit {delta:+d} cards", "Changes the commodity hand limit.", main="delta"),
    Kind("population_limit", (Param("delta", "int", required=True),), "population limits {delta:+d}", "Changes area population limits.", main="delta"),
    Kind("treasury_value", (Param("value", "int", required=True),), "each treasury token pays {value} when buying advances",
         "Read by the credit engine: treasury's worth in purchases.", main="value"),
    Kind("discount", (Param("amount", "int", required=True),
                      Param("scope", "enum", choices=("other_same_turn",), default="other_same_turn")),
         "{amount} off one other advance bought in the same turn", "Read by the credit engine: a one-time discount."),
    Kind("free_credits", (Param("amount", "int", required=True),), "{amount} credit points in colours of your choice, once",
         "Credit tokens allocated freely at purchase."),
    Kind("free_advance", (Param("group", "str", required=True), Param("cost_below", "int", required=True)),
         "a free {group} advance costing under {cost_below} on purchase", "Read by the credit engine: a free advance.", main=None),
    Kind("acquire_all", (Param("group", "str", required=True), Param("cost_below", "int", required=True)),
         "its holder acquires every {group} advance costing under {cost_below}, at no cost",
         "Read by the credit engine: every advance of the group under the cost bound is acquired at once, "
         "for nothing, while this card is held.", main=None),
    Kind("trade_card_purchase", (Param("stack", "int", required=True), Param("price", "int", required=True)),
         "buy extra stack-{stack} trade cards for {price} treasury",
         "Read by `civdsl cost --trade-cards`: extra trade cards bought from a stack for treasury, per card.",
         main="price"),
    Kind("card_treasury", (Param("rate", "int", required=True),),
         "turn commodity cards into {rate} treasury per face-value point",
         "Read by `civdsl hand`: each card may become treasury tokens, rate times its face value.", main="rate"),
    Kind("substitute_card", (),
         "once a turn, one commodity card of at least the same face value completes an incomplete set",
         "Read by `civdsl hand`: the best single substitution is shown with what it adds.", main=None),
    Kind("trade_card_purchase_limit", (Param("cards", "int", required=True),),
         "at most {cards} trade cards bought a turn",
         "Read by `civdsl cost --trade-cards`: the most trade cards bought in one turn, whatever the advances held.",
         main="cards"),
    Kind("city_attack_tokens", (Param("delta", "int", required=True),), "city attacks need {delta:+d} tokens", "Changes tokens needed to attack a city.", main="delta"),
    Kind("city_defense_tokens", (Param("delta", "int", required=True),), "cities count {delta:+d} tokens in defence", "Changes a city's defence strength.", main="delta"),
    Kind("city_build_tokens", (Param("delta", "int", required=True),), "cities cost {delta:+d} tokens to build", "Changes tokens needed for a city.", main="delta"),
    Kind("no_tax_revolt", (), "your cities never revolt over a tax shortfall",
         "Read by the ledger's tax collection: the holder pays what his stock holds and none of his cities revolt.",
         main=None),
    Kind("ast_cities", (Param("delta", "int", required=True),), "adds {delta} to the cities the A.S.T. requirements count",
         "Read by `civdsl epoch`: added to the cities the epoch requirements count (AST_COUNTED_FACTS); a "
         "backward rule still reads the cities on the board.", main="delta"),
]

EFFECT_KINDS: dict[str, Kind] = {k.name: k for k in _EFFECTS}

# Nothing beyond what the player has (Mega Civilization chapter 8 "Insufficient units,
# cities or treasury"): the player fact that bounds each effect kind's amount, by the effect's
# area ("*": any other area). A rulebook that declares `amounts { bound holdings }` takes
# min(demanded, held) whenever the state gives the fact; kinds not listed are never bounded
# (an "all but N" keeps a number, barbarians and support rates take nothing from a holding).
BOUNDS: dict[str, dict[str, str]] = {
    "damage": {"*": "unit_points", "flood_plain": "flood_plain_units", "volcano": "volcano_units",
               "coastal": "coastal_units"},
    "destroy_cities": {"*": "cities", "coastal": "coastal_cities", "volcano": "volcano_cities",
                       "open_sea": "cities_adjacent_open_sea"},
    "reduce_cities": {"*": "cities", "coastal": "coastal_cities", "volcano": "volcano_cities",
                      "open_sea": "cities_adjacent_open_sea"},
    "annex_unit_points": {"*": "unit_points"},
    "annex_cities": {"*": "cities"},
    "pirate_cities": {"*": "cities", "coastal": "coastal_cities"},
    "lose_treasury": {"*": "treasury"},
    "discard_face_value": {"*": "commodity_face_value"},
    "discard_cards": {"*": "commodity_cards"},
    "give_cards": {"*": "commodity_cards"},
    "lose_ships": {"*": "ships"},
    "ast_back": {"*": "ast_position"},
    "civil_war_faction": {"*": "unit_points"},
    "faction_split": {"*": "unit_points"},
    "lose_tokens": {"*": "tokens"},
}

# Holdings computed from the state for a bound: name -> (how a chart says it, what it needs).
BOUND_HOLDINGS = {
    "commodity_cards": ("the commodity cards in hand", "commodities"),
    "commodity_face_value": ("the face value of the commodity cards in hand", "commodities"),
}


def bound_fact(kind: str, area: str | None = None) -> str | None:
    """The player fact that bounds an effect of this kind in this area, or None."""
    by_area = BOUNDS.get(kind)
    if not by_area:
        return None
    return by_area.get(area or "any", by_area.get("*"))


# `amounts { ... }`: how an edition combines and limits effect amounts. Each setting,
# its allowed values and the language's default when an edition does not declare it.
AMOUNT_SETTINGS = {
    "bound": (("holdings", "none"), ("none",),
              "holdings: an amount never exceeds what the player has (see BOUNDS); none: amounts as computed"),
    "floor": (("zero", "none"), ("zero",),
              "zero: prevention never takes an amount below zero; none: no floor is applied"),
    "order": (("add_prevent", "add", "prevent", "floor", "set", "cap"), ("add_prevent", "set", "cap"),
              "the order in which modifier operations apply: add and prevent (together as add_prevent, or "
              "apart), set and cap each once; floor (an amount below zero becomes zero there) at most once"),
    "losses": (("least_over", "none"), ("none",),
               "least_over: a loss of unit points is met exactly, or exceeded by as little as possible, from "
               "the cities (each worth the edition's city_points) and tokens the state gives; none: not split"),
    # a constant's name ("const"): the unit points of a city for this calamity's losses and bounds,
    # where the text declares another value (1981 22.2.8.2, Expansion Epidemic: a city counts 4)
    "city_points": ("const", (),
                    "a whole-number constant: the unit points a city counts for this calamity (its losses split "
                    "by least_over and the unit points that bound it); absent: the edition's city_points"),
    "prevention": (("unselect", "amount"), ("amount",),
                   "unselect: for cities a rule selects (see UNSELECT_KINDS), the victim first selects the demanded "
                   "number, never more than he has, then prevention unselects some and the rest are taken; "
                   "amount: prevention lowers the amount before any bound"),
}

def amount_order_fits(words) -> bool:
    """Whether an `amounts { order ... }` lists each stage once: additions and preventions
    (together, `add_prevent`, or apart), `set` and `cap`, and at most one `floor` step."""
    stages = [w for word in words for w in (("add", "prevent") if word == "add_prevent" else (word,))]
    return (sorted(w for w in stages if w != "floor") == ["add", "cap", "prevent", "set"]
            and stages.count("floor") <= 1)


# `resolution { ... }`: how an edition runs the calamity phase for a whole table (`civdsl table`),
# edition-wide or inside a calamity (an exception, where `per_calamity`). Each
# setting: (allowed values, or "const" for the name of a whole-number constant, or "facts" for
# player facts and derived names; the language default; may a calamity override it; what it means).
class ResolutionSetting(Record):
    """One setting of a `resolution` block."""

    name: str
    values: tuple[str, ...] | str  # the allowed values, or "const" / "facts" / "advance"
    default: tuple[str, ...]
    per_calamity: bool
    doc: str
    many: bool = False  # a list of values (each once), else exactly one


# each key of the order of resolution, and what it means in a player's words
RESOLUTION_ORDER_WORDS = {"minor_first": "minor calamities before the others", "stack": "ascending stack",
                          "nontradable_first": "non-tradable before tradable within a stack", "ast": "A.S.T. ranking"}
RESOLUTION_ORDER = tuple(RESOLUTION_ORDER_WORDS)
RELATIONS = {
    "others": "every other player",
    "everyone": "every player, this one included",
    "land": "the players sharing a land border with this player (the table's `borders.land`)",
    "water": "the players bordering this player by water (the table's `borders.water`)",
    "near": "the players within the edition's reach of this player (the table's `borders.near`, e.g. eight areas)",
    "same_block": "the other players of this player's trade-card block (the `block` fact, else his civilization's)",
}
# Relations the table derives from a player fact, not from a `borders` list: relation -> fact.
# Two players are related when both values are known and equal (handvalue.player_block for `block`).
FACT_RELATIONS = {"same_block": "block"}

RESOLUTION_SETTINGS: dict[str, ResolutionSetting] = {s.name: s for s in [
    ResolutionSetting("limit", "const", (), False,
                      "the most calamities a player resolves as primary victim in a turn (a constant)"),
    ResolutionSetting("major_limit", "const", (), False, "of which at most this many major (a constant)"),
    ResolutionSetting("minor_limit", "const", (), False, "of which at most this many minor (a constant)"),
    ResolutionSetting("separate_blocks", "const", (), False,
                      "the fewest players whose trade-card blocks are separate (a constant): with fewer at the table, "
                      "`same_block` relates every player; not declared, blocks are always separate"),
    ResolutionSetting("discard", ("duplicates", "random", "highest_stack"), ("random",), False,
                      "how the calamities beyond the limits are discarded, in this order: duplicates (one of each "
                      "name held twice, first), random (at random, `--seed`), highest_stack (those of the highest "
                      "stacks: the lowest are kept)", many=True),
    ResolutionSetting("order", RESOLUTION_ORDER, ("stack", "ast"), False,
                      "the order of resolution, key by key: "
                      + ", ".join(f"{k} ({w})" for k, w in RESOLUTION_ORDER_WORDS.items()), many=True),
    ResolutionSetting("beneficiary_rank", "facts", ("cities_in_stock", "tokens_in_stock"), True,
                      "the beneficiary not named by a trade is the candidate with most of the first fact, ties by "
                      "the next, ...", many=True),
    ResolutionSetting("beneficiary_prefer", ("most", "fewest"), ("most",), True,
                      "whether the ranking names the candidate with the most or the fewest of each fact"),
    ResolutionSetting("beneficiary_ties", ("ast", "victim"), ("ast",), True,
                      "who breaks the remaining ties: ast (A.S.T. ranking) or victim (the primary victim chooses: "
                      "the table names the choice)"),
    ResolutionSetting("beneficiary_among", tuple(RELATIONS), ("others",), True,
                      "the candidates for beneficiary: the victim's relation (RELATIONS); the victim himself only "
                      "with everyone"),
    ResolutionSetting("secondary_among", tuple(RELATIONS), ("others",), True,
                      "the players the primary victim may name as secondary victims: his relation (RELATIONS)"),
    ResolutionSetting("nominee_without", "facts", (), True,
                      "a nominee (`beneficiary nominee`) must be a candidate with none of this fact when any candidate "
                      "has none; when only one has none he is named without asking"),
    ResolutionSetting("nominee_forced_if", "advance", (), True,
                      "when the victim holds this advance (a one-word name) the nominee is not his choice: the player "
                      "ranked first by `beneficiary_rank` (`beneficiary_prefer`, `beneficiary_ties`) among every "
                      "player, the victim included"),
    ResolutionSetting("secondary_once", ("per_name", "none"), ("none",), False,
                      "per_name: a player is a secondary victim of a calamity name at most once a turn, and not while "
                      "he is a primary victim or a beneficiary of a calamity of that name; none: no such rule"),
    ResolutionSetting("assign", ("ask", "ast"), ("ask",), True,
                      "secondary losses the table does not assign: ask (the answer is incomplete until the primary "
                      "victim assigns them) or ast (eligible players in A.S.T. order, each the most allowed)"),
]}

def resolution_settings_markdown() -> str:
    """RESOLUTION_SETTINGS as the Markdown table docs/language.md shows (a test keeps them equal)."""
    rows = ["| setting | values | meaning | default |", "|---|---|---|---|"]
    for x in RESOLUTION_SETTINGS.values():
        values = ("a constant's name" if x.values == "const" else "player facts and derived names"
                  if x.values == "facts" else "an advance's name" if x.values == "advance"
                  else ", ".join(f"`{a}`" for a in x.values))
        also = " (a calamity may repeat it)" if x.per_calamity else ""
        rows.append(f"| `{x.name}` | {values} | {x.doc}{also} | {', '.join(x.default) or 'none'} |")
    return "\n".join(rows) + "\n"


# Transfers: what the victim loses to these effects goes to the calamity's beneficiary (his units
# replace the victim's, as far as his stock allows; cards go to his hand). The ledger moves them
# between the two players' states (civdsl/ledger/calamities.py); with no beneficiary they are lost.
TRANSFER_KINDS = ("annex_unit_points", "annex_all_but_unit_points", "annex_cities", "civil_war_faction",
                  "faction_split", "give_cards")

# Select, then unselect (`amounts { prevention unselect }`, Mega Civilization and Expansion
# Cyclone): for these kinds the selection (additions, never more than the bounding holding) is made
# before prevention unselects some of it, so prevention is never lost against a short holding. The
# answer says how many were selected and unselected (runtime.unselect).
UNSELECT_KINDS = ("reduce_cities", "destroy_cities")

# The procedure `amounts { losses least_over }` runs, by effect kind: the loss is split into the
# cities and tokens that go (runtime.least_over). Only a loss in unit points anywhere on the board
# can be split from the state's cities and tokens; an area's loss needs the area's units.
LOSS_SPLIT_KINDS = ("damage",)

# Discard by value: an effect of these kinds asks for commodity cards worth at least its amount in
# face value; with the hand given, the answer picks the cards with the least excess (then the
# fewest cards), or the whole hand when it is worth less (runtime.discard_by_value).
VALUE_DISCARD_KINDS = ("discard_face_value",)

# Reduce until supported (Mega Civilization and Expansion Slave Revolt): an effect of these kinds
# changes the city support check, by what it names: "rate" adds to the support rate (the edition's
# `city_support` plus held `city_support` abilities), "withheld" keeps tokens from counting. With
# cities, tokens and reduced_city_tokens given, cities are reduced one at a time, the tokens each
# leaves counting at once, until the rest are supported (runtime.reduce_until_supported).
SUPPORT_KINDS = {"city_support_rate": "rate", "support_tokens_withheld": "withheld"}
ABILITY_KINDS: dict[str, Kind] = {k.name: k for k in _ABILITIES}

# What a step of the sequence of play does to the game's ledger (`turn { step "..." { ACTION } }`,
# civdsl/ledger/): the bookkeeping every edition shares, named for what it does, never for a phase
# of one edition. A "quantity" is a whole number, a constant's name, or a table's name read at the
# number of players. The map itself (movement, conflict, building) is not played: players enter
# its outcome as a census, which the ledger checks against the limits `census` declares.
_PHASE_ACTIONS = [
    Kind("census", (Param("cities", "quantity", doc="cities a player has (board and stock together)"),
                    Param("tokens", "quantity", doc="tokens a player has (board, stock and treasury together)"),
                    Param("ships", "quantity", doc="ships a player may have on the board"),
                    Param("treasury", "enum", choices=("spend",),
                          doc="spend: this step's census may lower a player's treasury (tokens he pays on the "
                              "board, for ships), never raise it")),
         "players enter the cities, tokens and ships they have on the board",
         "Map outcomes entered as facts; every later step reads them. The quantities are the pieces each player "
         "has: the census never exceeds them, and tokens in stock are the tokens left off the board and out of "
         "the treasury. Where `treasury=spend`, a census may also give the treasury left after what the player "
         "paid on the board (ships built or kept); the tokens paid go back to his stock.", main=None),
    Kind("collect_tax", (Param("rate", "quantity", required=True, doc="treasury tokens per city"),
                         Param("bound", "enum", choices=("stock", "none"), default="stock",
                               doc="stock: never more than the tokens in stock; the cities not taxed revolt"),
                         Param("revolt_rank", "str", doc="the fact whose most makes a player the beneficiary of "
                                                         "a tax revolt (absent: the edition's `beneficiary_rank`)"),
                         Param("unclaimed_revert", "option", doc="the rule option that, on, gives revolting cities "
                                                                 "no player can take over back to their owner "
                                                                 "(absent or off: they are destroyed)"),
                         Param("whole_cities", "option", doc="the rule option that, on, has a player short of tokens "
                                                             "pay only the tax of the cities that do not revolt, "
                                                             "keeping the tokens that pay no whole city's tax "
                                                             "(absent or off: he moves all his stock)")),
         "each player moves {rate} tokens per city from stock to treasury",
         "Automatic: treasury grows by the rate times the cities (a held `tax_rate` ability is its holder's "
         "choice: the step then waits for his `tax` event); with "
         "bound stock a player short of tokens moves all he has (only the tax of the cities he keeps where the "
         "`whole_cities` option is on) and the cities he could not tax revolt: the "
         "player with the most `revolt_rank` (no victim of a revolt) annexes them as his cities in stock allow, "
         "then the next, in A.S.T. order of the victims; the rest are destroyed, or stay their owner's where "
         "the `unclaimed_revert` option is on.",
         main=None),
    Kind("draw_trade_cards", (Param("stacks", "quantity", required=True, doc="the highest stack"),
                              Param("order", "enum", choices=("fewest_cities", "seat"), default="seat",
                                    doc="who draws first: fewest_cities (ties in A.S.T. order) or seat order"),
                              Param("empty", "str", doc="the card drawn in place of one from an empty stack "
                                                        "(absent: nothing is drawn)")),
         "each player draws one trade card per city, one from each stack from 1 up (at most stack {stacks})",
         "Each player enters the cards he drew: one per city, the first from stack 1, the next from stack 2 "
         "and so on; a card of no stack (water) stands for one from an empty stack. Where the rulebook "
         "declares a `trade_deck` for the player count, the ledger keeps every stack's cards and draws for "
         "the players on request (`civdsl game draw`), in the order given, with a seed.", main=None),
    Kind("buy_trade_cards", (Param("after", "enum", choices=("own_draw", "every_draw"), default="own_draw",
                                   doc="own_draw: a player buys once he has drawn, in his turn to draw; "
                                       "every_draw: only when every player with cities has drawn, in the "
                                       "order of the draw (a player buys no more once one after him has)"),),
         "players may buy trade cards as the edition's trade card purchases allow",
         "Each card bought is paid from treasury at the price of its stack (the `trade_card_purchase` "
         "abilities, capped by `trade_card_purchase_limit`).", main=None),
    Kind("trade", (Param("least_cards", "quantity", doc="the fewest cards each side gives"),
                   Param("received_calamities", "enum", choices=("tradable", "kept"), default="tradable",
                         doc="kept: a calamity received in trade is its receiver's to act on and may not be "
                             "traded on; tradable: it may be traded again")),
         "players trade cards, each side giving at least {least_cards}",
         "Each trade names what each side gives; a card he does not hold or a calamity that may not be traded "
         "is refused, and a traded calamity remembers who traded it.", main=None),
    Kind("resolve_calamities", (Param("drawn_tradable", "enum", choices=("resolve", "keep"), default="resolve",
                                      doc="resolve: a tradable calamity its drawer still holds strikes him; keep: "
                                          "only a player it was traded to resolves it, its drawer may keep it"),),
         "the calamities held are resolved, one at a time, each seeing the losses of those before",
         "The edition's `resolution` rules choose, order and resolve them from the players' states; the "
         "choices the rules leave to a player are asked for, never guessed.", main=None),
    Kind("buy_advances", (),
         "players buy civilization advances, paying with card sets and treasury",
         "Priced by the edition's credit rules from the advances held before the step; the payment must "
         "cover the price, with no more treasury than needed.", main=None),
    Kind("hand_limit", (Param("limit", "quantity", required=True, doc="commodity cards a player keeps"),
                        Param("calamities", "enum", choices=("count", "apart"), default="apart",
                              doc="count: calamity cards kept in hand count toward the limit")),
         "each player keeps at most {limit} commodity cards (plus held `hand_limit` abilities)",
         "The step ends only when every hand is within the limit: the players discard what they choose.",
         main=None),
    Kind("alter_ast", (),
         "each succession marker moves forward, stays or moves back by the epoch rules",
         "Automatic: the answer of `civdsl epoch` for each player, applied in A.S.T. order.", main=None),
    Kind("end_game", (Param("reach", "enum", choices=("last_epoch", "last_space"), required=True,
                            doc="what a marker reaches to end the game"),
                      Param("track", "str", doc="the A.S.T. track this rule is for (absent: every track)"),
                      Param("extra_turns", "quantity", doc="turns still played after a marker reaches it"),
                      Param("turn_limit", "enum", choices=("agreed", "none"), default="none",
                            doc="agreed: the game also ends after a last turn the players set at the start"),
                      Param("winner", "enum", choices=("score", "reached"), default="score",
                            doc="reached: the players whose markers reach it rank first, the score deciding "
                                "between them; score: the score alone ranks the players")),
         "the game ends when a marker reaches the {reach} of its track",
         "Checked after the step: then the final scores are the edition's `score`, with the tie-breakers; "
         "`sole_leader` is true for a player alone in the last epoch.", main=None),
]
PHASE_ACTIONS: dict[str, Kind] = {k.name: k for k in _PHASE_ACTIONS}


def phase_actions_markdown() -> str:
    """PHASE_ACTIONS as the Markdown table docs/language.md shows (a test keeps them equal)."""
    rows = ["| action | parameters | what the ledger does |", "|---|---|---|"]
    for k in PHASE_ACTIONS.values():
        params = "; ".join(f"`{p.name}`" + (f" ({', '.join(p.choices)}; default {p.default})" if p.choices else
                                             " (required)" if p.required else "") + f": {p.doc}" for p in k.params)
        rows.append(f"| `{k.name}` | {params or 'none'} | {k.doc} |")
    return "\n".join(rows) + "\n"


# Irregular plurals used by the text templates ("1 city", "2 cities").
PLURALS = {"cities": ("city", "cities"), "cards": ("card", "cards"), "ships": ("ship", "ships"),
           "steps": ("step", "steps"), "tokens": ("token", "tokens"), "unit_points": ("unit point", "unit points"),
           "turn": ("turns", "turn")}


class Fact(Record):
    """A fact of the player's situation that a state file or `--set` gives."""

    name: str
    type: str  # "int", "bool", "str", "list", "map"
    doc: str
    minimum: int | None = 0
    default: object = None  # the value an absent fact has (None: absent facts are missing, never guessed)
    # how a chart counts it, singular and plural ("city touched by a volcano", ...); a
    # condition says "no city touched by a volcano", "at least 2 cities touched by a volcano"
    words: tuple[str, str] | None = None
    # for a yes/no or text fact: how a condition says it holds (true / not empty) and not
    states: tuple[str, str] | None = None
    # a yes/no fact about the A.S.T.'s last epoch: absent, it reads false wherever the marker
    # cannot be in that epoch (runtime.PlayerState.fact), and only there is it asked
    last_epoch_only: bool = False


# The player's situation: the facts a calamity, an epoch or a score can read.
FACTS: dict[str, Fact] = {f.name: f for f in [
    Fact("holds", "list", "civilization advances held before this turn's purchases"),
    Fact("cities", "int", "cities on the board", words=("city", "cities")),
    Fact("coastal_cities", "int", "cities in coastal areas", words=("coastal city", "coastal cities")),
    Fact("cities_adjacent_open_sea", "int", "cities in areas directly adjacent to an open sea area",
         words=("city beside an open sea", "cities beside an open sea")),
    Fact("volcano_cities", "int", "cities in areas touched by a volcano",
         words=("city touched by a volcano", "cities touched by a volcano")),
    Fact("flood_plain_units", "int", "unit points on the flood plain worst hit",
         words=("unit point on the flood plain", "unit points on the flood plain")),
    Fact("edge_units", "int", "unit points bordering the map edge or a zero-population area",
         words=("unit point by the map edge or an empty area", "unit points by the map edge or an empty area")),
    Fact("tokens", "int", "tokens on the board", words=("token", "tokens")),
    Fact("reduced_city_tokens", "int", "tokens a city leaves when reduced (the population limit of its area; one "
         "figure for the cities that would be reduced)",
         words=("token a reduced city leaves", "tokens a reduced city leaves")),
    Fact("unit_points", "int", "unit points on the board; when not given, derived from the tokens and cities "
         "(each token and city worth the points the rulebook gives them, 1 and 5 unless it says otherwise)",
         words=("unit point", "unit points")),
    Fact("cities_in_stock", "int", "cities in stock", words=("city in stock", "cities in stock")),
    Fact("tokens_in_stock", "int", "tokens in stock", words=("token in stock", "tokens in stock")),
    Fact("treasury", "int", "treasury tokens", words=("treasury token", "treasury tokens")),
    Fact("ships", "int", "ships on the board", words=("ship", "ships")),
    Fact("ast_position", "int", "the space the succession marker is on: steps taken on the A.S.T. (0 = the start arrow)",
         words=("step on the A.S.T.", "steps on the A.S.T.")),
    Fact("civilization", "str", "the player's civilization or nation, as the rulebook's `civilization` declarations name it",
         words=("civilization", "civilization")),
    Fact("scenario", "str", "the scenario played, as the rulebook's `scenario` declarations name it (absent: the full game)",
         default=""),
    Fact("start_credits_used", "list", "groups whose single-use start credit is already spent (rulebooks with `start credits ... once`)"),
    Fact("block", "str", "the player's trade block (e.g. west or east); from `civilization` when not given"),
    Fact("ast_track", "str", "the A.S.T. track the game uses (e.g. basic or expert), where the rulebook has several",
         words=("A.S.T. track in play", "A.S.T. track in play")),
    Fact("players", "int", "players in the game", minimum=1, words=("player", "players")),
    Fact("commodities", "map", "commodity cards in hand, by name"),
    Fact("credits", "map", "credit points held by group, from free allocations (e.g. credit tokens of your choice)"),
    Fact("others_hold", "map", "cards of each civilization advance the other players hold: where the rulebook limits "
         "an advance's `supply`, one they hold every card of is sold out (absent: the supply is not checked)"),
    Fact("traded_by", "str", "who traded the calamity to the victim: a player name, or empty if drawn",
         states=("a card traded to the victim", "a card the victim drew"),
         words=("player who traded the card", "player who traded the card")),
    Fact("sole_leader", "bool", "the player alone reached the last epoch (for end-game bonuses); not asked of a "
         "player whose marker cannot be in the last epoch", last_epoch_only=True,
         states=("the lead alone in the last epoch", "no lead alone in the last epoch"),
         words=("lead alone in the last epoch", "lead alone in the last epoch")),
    Fact("volcano_units", "int", "unit points in areas touched by a volcano",
         words=("unit point touched by a volcano", "unit points touched by a volcano")),
    Fact("trader_ships", "int", "ships of the player who traded the calamity that can reach the victim's coastal cities",
         words=("ship of the trader that can reach the victim's coastal cities", "ships of the trader that can reach the victim's coastal cities")),
    Fact("flood_plain_players", "int", "other players with units on the flood plain the victim's flood strikes (0 when it strikes the coast)",
         words=("other player on the struck flood plain", "other players on the struck flood plain")),
    Fact("tokens_over_limit", "int", "tokens on the board above the printed population limits of their areas, "
         "counted with no regard for Agriculture, once a calamity's losses are taken",
         words=("token above the printed limits", "tokens above the printed limits")),
    Fact("ast_rank", "int", "the player's place in the A.S.T. ranking, the order the nations are listed in (1 first); "
         "when not given, his civilization's `rank`", minimum=1,
         words=("place in the A.S.T. ranking", "places in the A.S.T. ranking")),
    Fact("coastal_units", "int", "unit points in coastal areas (an area-scoped loss on the coast takes at most these)",
         words=("unit point in coastal areas", "unit points in coastal areas")),
    Fact("ast_epoch", "str", "the epoch the succession marker is in, as the board shows it (e.g. Stone Age): tells "
         "whether a backward step applies where the rulebook gives no row for the player's civilization",
         words=("epoch of the marker", "epoch of the marker")),
    Fact("open_sea_players", "int", "other players with cities beside the open sea area the victim's cyclone strikes",
         words=("other player beside the struck open sea", "other players beside the struck open sea")),
]}

class EngineName(Record):
    """A constant (or table) the engine reads from a rulebook by its name: the validator checks
    that a rulebook declares it with the right kind and type, and warns on a near miss
    (`const card_limt = 3`), since a misspelt one would be silently ignored."""

    name: str
    declared_as: str  # "const" or "table" (a table's bands are looked up by a number)
    type: str  # "int": a whole number (a table: every band's value)
    default: object  # what the engine uses when the rulebook declares none (None: no such rule)
    doc: str
    minimum: int = 0


ENGINE_NAMES: dict[str, EngineName] = {e.name: e for e in [
    EngineName("card_limit", "const", "int", None, "the most civilization advances a player may hold: `cost` and "
               "the planner refuse a purchase that would exceed it (absent: no limit)", minimum=1),
    EngineName("hand_limit", "const", "int", None, "commodity cards a player may keep at the end of a turn: the "
               "planner's hand limit when there is no `hand_limit_by_players` table"),
    EngineName("hand_limit_by_players", "table", "int", None, "the hand limit by the number of players (the "
               "`players` fact): the planner reads it before `hand_limit`"),
    EngineName("token_points", "const", "int", 1, "unit points of a token: `unit_points`, when not given, is "
               "tokens x token_points + cities x city_points"),
    EngineName("city_points", "const", "int", 5, "unit points of a city (see `token_points`)"),
    EngineName("calamity_card_value", "const", "int", None, "the trade value of a calamity card held in a hand "
               "(1981 16.6: 0): `hand` accepts calamity cards where it is declared (absent: a hand holds commodity "
               "cards only)"),
    EngineName("city_support", "const", "int", 2, "tokens on the board each city needs (the city support rate "
               "before a held `city_support` ability): reducing until supported starts from it"),
]}


def engine_names_markdown() -> str:
    """ENGINE_NAMES as the Markdown table docs/language.md shows (a test keeps them equal)."""
    rows = ["| name | declared as | type | default | meaning |", "|---|---|---|---|---|"]
    for e in ENGINE_NAMES.values():
        kind = "a whole number" + (f" >= {e.minimum}" if e.minimum else " >= 0")
        rows.append(f"| `{e.name}` | `{e.declared_as}` | {kind} | {'none' if e.default is None else e.default} | {e.doc} |")
    return "\n".join(rows) + "\n"


# Facts computed from others when absent: name -> the facts it needs.
DERIVED_FACTS = {"unit_points": ("tokens", "cities")}
# Facts that, when absent, are the player's civilization's declaration: fact -> the civilization's field.
CIVILIZATION_FACTS = {"ast_rank": "rank"}
# the facts that are a place in a ranking: a tie-breaker that is one of them is won by the lower place
LOWER_FIRST_FACTS = ("ast_rank",)

# Facts the A.S.T. requirements count with what held advances add to them: fact -> the ability
# kind whose `delta` each held advance adds (Mega Civilization's Wonder of the World is a city
# during A.S.T. alteration). The epoch answer shows the count it used beside the given fact.
AST_COUNTED_FACTS = {"cities": "ast_cities"}


class Function(Record):
    """A function rule expressions may call."""

    name: str
    args: tuple[str, ...]
    kwargs: tuple[str, ...]
    doc: str
    scope: str  # "player" (reads the state), "table" (reads the other players), "model" (the rulebook data), "math"


FUNCTIONS: dict[str, Function] = {f.name: f for f in [
    Function("holds", ("advance",), (), "the player holds this advance", "player"),
    Function("cards", ("commodity",), (), "commodity cards of this name in hand", "player"),
    Function("count_advances", (), ("cost_at_least", "cost_below", "vp", "group"),
             "advances held that match every filter given", "player"),
    # table queries: facts about the other players at the table (`civdsl table`);
    # a question about one isolated player leaves them unknown (missing fact `table`)
    Function("neighbours", (), ("by",), "how many other players border this player by the relation `by` "
             "(land, water, near; default land)", "table"),
    Function("most_among", ("value",), ("among",), "the largest value of the expression among the other players "
             "of the relation `among` (others, land, water, near; default others); 0 when there is none", "table"),
    Function("of_beneficiary", ("value",), (), "the expression for the beneficiary of the calamity resolved "
             "(unknown without one)", "table"),
    Function("of_trader", ("value",), (), "the expression for the player who traded the calamity to the victim "
             "(unknown when it was drawn)", "table"),
    Function("floor", ("x",), (), "round down", "math"),
    Function("ceil", ("x",), (), "round up", "math"),
    Function("sqrt", ("x",), (), "square root (a real number)", "math"),
    Function("min", ("a", "b"), (), "the smaller", "math"),
    Function("max", ("a", "b"), (), "the larger", "math"),
    Function("abs", ("x",), (), "absolute value", "math"),
    Function("count", ("items",), (), "how many items (asserts)", "model"),
    Function("sum", ("items", "field"), (), "the total of a field (asserts)", "model"),
    Function("all", ("items", "condition"), (), "the condition holds for every item (asserts)", "model"),
    Function("any", ("items", "condition"), (), "the condition holds for some item (asserts)", "model"),
]}

# Names an expression may read that are computed from the state and the rulebook together.
DERIVED_NAMES = {
    "advances": "number of advances held",
    "advance_vp": "victory points of the advances held",
    "advance_points": "total printed cost of the advances held",
    "groups_held": "number of groups among the advances held (a dual-group advance counts for both)",
    "credit_max_group": "the highest credit total of a single group",
    "credit_total": "all credit points held",
    "hand_value": "the set value of the commodity cards in hand",
    "commodity_cards": "the number of commodity cards in hand",
    "ast_points": "points of the marker's A.S.T. position: its space times the track's `points N per step`",
    "stock_points": "unit points in stock: cities_in_stock x city_points + tokens_in_stock x token_points",
}

# How a chart counts each derived name, singular and plural (as Fact.words).
DERIVED_WORDS = {
    "advances": ("advance", "advances"),
    "advance_vp": ("victory point in advances", "victory points in advances"),
    "advance_points": ("point of advance cost", "points of advance cost"),
    "groups_held": ("group held", "groups held"),
    "credit_max_group": ("credit point in the best group", "credit points in the best group"),
    "credit_total": ("credit point", "credit points"),
    "hand_value": ("point of hand value", "points of hand value"),
    "commodity_cards": ("commodity card in hand", "commodity cards in hand"),
    "ast_points": ("A.S.T. point", "A.S.T. points"),
    "stock_points": ("unit point in stock", "unit points in stock"),
}

# Collections and item attributes that author invariants (assert) can read.
MODEL_COLLECTIONS = ("advances", "calamities", "commodities", "specific_credits")
ITEM_ATTRIBUTES = {
    "advances": ("name", "cost", "vp", "groups", "supply", "specific_credits", "credit_total", "group_count",
                 "first_group", "second_group"),
    "calamities": ("name", "stack", "tradable", "major", "modifier_count"),
    "commodities": ("name", "value", "count", "stack"),
    "specific_credits": ("target", "amount", "source"),
}

CREDIT_POLICIES = {
    "best_group": "a dual-group advance takes the larger of its two groups' credits; specific credits add; "
                  "price never below zero",
    "per_card": "each held card credits a purchase at most once, the larger of its group credit and its "
                "special credit; dual-group cards credit both groups",
}

# Variants a rulebook may switch on after its policy: `credit policy best_group single_use`.
CREDIT_VARIANTS = {
    "single_use": "each held card's credit (and each free credit token) counts toward only one advance "
                  "bought in a turn: the strict reading some player tools offer",
}

BENEFICIARIES = {
    "none": "no beneficiary",
    "trader": "the player who traded the card to the victim",
    "most_stock": "the player the edition's ranking names (by default the one with the most cities in stock, then "
                  "tokens in stock)",
    "trader_or_most_stock": "the player who traded the card, else the one the edition's ranking names",
    "nominee": "a player the victim names (where a rule says, one forced on it)",
}

EXCLUDE_ROLES = ("beneficiary", "trader")

# Functions of round rules (phases, thresholds, pools, choices): they read the cards in the
# player's hand. `color=` names a colour the edition's deck declares with `suit "X" COLOUR`.
ROUND_FUNCTIONS: dict[str, Function] = {f.name: f for f in [
    Function("hand_value", (), ("color",), "the total value of the cards in hand (of one colour)", "round"),
    Function("hand_cards", (), ("color",), "the number of cards in hand (of one colour)", "round"),
    Function("hand_limit", (), (), "the most cards a hand may hold (the deck's `hand limit`)", "round"),
]}

# Value kinds of round expressions: whole numbers, exact fractions (from `/`), reals (from sqrt),
# and true/false. A stat holds a whole number: a fraction or a real must be rounded explicitly.
NUMBER_KINDS = ("int", "rational", "real")
