"""Every diagnostic code: a title, the long explanation, and a wrong and a right example.

`civdsl explain CODE` prints these; a test makes sure every code the compiler can report is
listed here and has a failing-input UI test under tests/ui/.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Code:
    code: str
    title: str
    explanation: str
    wrong: str
    right: str


_ALL = [
    Code("CIV001", "syntax error", "The parser met a token it did not expect. The note lists what could come next.",
         'advance "Pottery" { cost }', 'advance "Pottery" { cost 60 }'),
    Code("CIV002", "unexpected character", "A character that no token of the language starts with, or a string that "
         "is not closed on its line.", 'advance "Pottery { cost 60 }', 'advance "Pottery" { cost 60 }'),
    Code("CIV003", "unsupported language version", "The file declares a language version this civdsl does not read.",
         "language 7", "language 1"),
    Code("CIV004", "unreadable file", "The file is missing, unreadable, not UTF-8, or contains NUL characters.",
         "(a file saved as Latin-1)", "(the same file saved as UTF-8)"),
    Code("CIV005", "input limit exceeded", "The file is too large, a line too long, brackets nested too deep, an "
         "expression too long, or a number has too many digits. The limits keep every check fast and bounded.",
         "const x = 99999999999999999999", "const x = 999"),
    Code("CIV006", "extends path not allowed", "`extends` may name a shipped edition id or a relative path that stays "
         "inside the rulebook's own folder tree (or the shipped rulebooks). Absolute paths, `..` escapes, symlinks out "
         "of the tree and URLs are refused.", 'edition h "H" extends "/etc/base.civ"', 'edition h "H" extends "base.civ"'),
    Code("CIV007", "extends base not found", "The base named by `extends` does not exist.",
         "edition h \"H\" extends megacvi", "edition h \"H\" extends megaciv"),
    Code("CIV008", "extends cycle", "Rulebooks extend each other in a circle (or the chain is too long).",
         'a.civ: extends "b.civ"   b.civ: extends "a.civ"', 'a.civ: extends megaciv   b.civ: extends "a.civ"'),
    Code("CIV009", "unknown string escape", "A backslash in a string starts an escape this language does not know.",
         'summary "C:\\path"', 'summary "C:\\\\path"'),
    Code("CIV010", "unknown advance", "A name used as an advance (in holds(), credits, prerequisites) is not declared.",
         'when holds("Potery") { prevent damage 5 }', 'when holds("Pottery") { prevent damage 5 }'),
    Code("CIV011", "unknown item to change or remove", "`change` or `remove` names an item the base does not have.",
         'remove calamity "Famin"', 'remove calamity "Famine"'),
    Code("CIV012", "unknown group", "An advance, credit or filter names a group that is not declared with `group`.",
         "groups craft", "groups crafts"),
    Code("CIV013", "unknown name", "An expression reads a name that is neither a constant, an option nor a player fact.",
         "cancel when cites == 0", "cancel when cities == 0"),
    Code("CIV014", "bad function call", "An unknown function, or a known one with the wrong arguments.",
         "require count_advances(cost=100) >= 3", "require count_advances(cost_at_least=100) >= 3"),
    Code("CIV015", "unknown effect kind", "An effect or modifier names an effect kind the vocabulary does not declare "
         "(`civdsl vocab` lists them).", "primary { damages(10) }", "primary { damage(10) }"),
    Code("CIV016", "unknown ability", "An advance's `ability` names no declared ability.",
         "ability tax(1)", "ability tax_rate(1)"),
    Code("CIV017", "bad parameter", "A parameter of an effect, ability or modifier is unknown, missing, given twice, "
         "or has a value outside its choices.", "damage(10, aera=coastal)", "damage(10, area=coastal)"),
    Code("CIV018", "unknown commodity", "cards(\"X\") names a commodity the rulebook does not declare.",
         'prevent damage 4 per cards("Grian")', 'prevent damage 4 per cards("Grain")'),
    Code("CIV019", "unknown policy, beneficiary or exclusion", "The word is not one the language knows here.",
         "beneficiary traderr", "beneficiary trader"),
    Code("CIV020", "declared twice", "The same advance, calamity, group, constant, epoch or edition is declared twice "
         "in one file. (In a house rule, redeclaring a base's item replaces it.)",
         'advance "Law" {...}  advance "Law" {...}', 'advance "Law" {...}'),
    Code("CIV021", "field given twice", "A field that holds one value is given twice in one item.",
         "cost 60 cost 70", "cost 60"),
    Code("CIV022", "missing required field", "An item lacks something it needs (a cost, a group, a stack, a class, "
         "a primary effect, a credit policy ...).", 'calamity "Flood" { stack 3 }',
         'calamity "Flood" { stack 3 class major tradable primary { damage(15) } }'),
    Code("CIV023", "no such stack", "Trade stacks run from 1 to 9.", "stack 12", "stack 9"),
    Code("CIV024", "bad dual group", "An advance has more than two groups, or the same group twice.",
         "groups arts, arts", "groups arts, religion"),
    Code("CIV025", "negative quantity", "Costs, credits, counts and effect amounts cannot be negative; use `prevent` "
         "to lower a value.", "add damage -5", "prevent damage 5"),
    Code("CIV026", "credit to itself", "An advance gives a specific credit to itself.",
         'advance "Law" { credit "Law" 10 }', 'advance "Law" { credit "Democracy" 10 }'),
    Code("CIV030", "victory points contradict the tiers", "An explicit `vp` disagrees with the edition's vp tiers for "
         "the advance's cost.", "cost 120 vp 1   (tiers: below 100: 1, below 200: 3)", "cost 120 vp 3"),
    Code("CIV032", "bad vp tiers", "Tiers must rise in cost and end with `else`.",
         "vp tiers { below 200: 3, below 100: 1 }", "vp tiers { below 100: 1, below 200: 3, else: 6 }"),
    Code("CIV036", "modifier changes an effect the calamity lacks", "A warning: the modifier can never change anything "
         "because the calamity never causes that effect.", "primary { damage(5) } when holds(\"Law\") { prevent reduce_cities 1 }",
         "primary { reduce_cities(2) } when holds(\"Law\") { prevent reduce_cities 1 }"),
    Code("CIV040", "set values disagree with the rule", "A commodity's printed set values are not what `set_value` "
         "gives. Fix the numbers, or record a printed mistake with `errata CIV040 \"Name\" \"why\"`.",
         "set_value n * n * face  commodity \"Salt\" { value 3 printed 3, 12, 26 }",
         "commodity \"Salt\" { value 3 printed 3, 12, 27 }"),
    Code("CIV041", "deck does not add up", "A `deck stack N size M` line disagrees with the commodity counts and "
         "calamities of that stack. Fix a count, or record a printed mistake with `errata CIV041 \"stack N\" \"why\"`.",
         "deck stack 1 size 12  (commodities of stack 1 count 11)", "deck stack 1 size 11"),
    Code("CIV042", "assertion failed", "An author invariant (`assert`) does not hold for the data.",
         'assert count(advances) == 52 "52 advances"', 'assert count(advances) == 51 "51 advances"'),
    Code("CIV043", "assertion cannot be evaluated", "An assert or set_value hit a type error (a number compared with a "
         "collection, division by zero, ...).", 'assert advances > 3 "..."', 'assert count(advances) > 3 "..."'),
    Code("CIV044", "errata matches nothing", "A warning: an errata line acknowledges a diagnostic that no longer "
         "occurs. Remove it, or fix its code or item name.", 'errata CIV040 "Slat" "..."', 'errata CIV040 "Salt" "..."'),
    Code("CIV050", "prerequisite cycle", "Advances require each other in a circle, so none can be bought.",
         'advance "A" { requires "B" }  advance "B" { requires "A" }', 'advance "B" { requires "A" }'),
    Code("CIV051", "table bands overlap", "Bands of a `table` overlap or are empty.",
         "table t { 1..5: 1, 4..9: 2 }", "table t { 1..5: 1, 6..9: 2 }"),
    Code("CIV052", "constant used before it is declared", "A constant may read only constants declared above it, "
         "so that none is defined in terms of itself.", "const a = b + 1\nconst b = 2", "const b = 2\nconst a = b + 1"),
    Code("CIV060", "edit without a base", "`change` and `remove` only work in a rulebook that extends another.",
         'edition x "X"  remove advance "Law"', 'edition x "X" extends megaciv  remove advance "Law"'),
    Code("CIV061", "nothing to drop", "`drop when COND [for ROLE]` names a modifier the calamity does not have: no "
         "modifier with that condition, or none for that role. The message names the role asked for; the help gives "
         "the roles the condition does have, or the closest other condition.",
         'change calamity "Famine" { drop when holds("Potery") }', 'change calamity "Famine" { drop when holds("Pottery") }'),
    Code("CIV100", "block never closed", "A `{` has no matching `}`: the file ends, or a new item starts at the "
         "block's own indentation, before the block is closed. The error points at the `{` that is still open, and "
         "the help names the line after which the `}` presumably belongs.",
         'advance "Printing" {\n  cost 100\n\ncalamity "Famine" { stack 3 }',
         'advance "Printing" {\n  cost 100\n}\n\ncalamity "Famine" { stack 3 }'),
    Code("CIV101", "inherited item declared whole", "A house rule declares an advance, calamity or commodity its "
         "base already has. That replaces the base's item entirely: every field the new declaration does not repeat "
         "(credits, abilities, modifiers, summary, ...) is gone. To edit some fields and keep the rest, write "
         "`change advance \"NAME\" { ... }`; to replace it on purpose, `remove advance \"NAME\"` first "
         "and then declare it.",
         'edition h "H" extends megaciv\nadvance "Library" { cost 100  groups sciences }',
         'edition h "H" extends megaciv\nchange advance "Library" { cost 100 }'),
    Code("CIV070", "`instead` without a rule to replace", "`instead if COND { ... }` replaces the rule just before it "
         "when COND holds, so it must follow an `if` (without `else`) or another `instead if` in the same block.",
         'rule "Food" { add unrest 5  instead if food < 10 { add unrest 10 } }',
         'rule "Food" { if food < 20 { add unrest 5 } instead if food < 10 { add unrest 10 } }'),
    Code("CIV071", "wrong kind of value", "Round rules keep whole numbers, exact fractions, reals and true/false "
         "apart. A stat holds a whole number: `/` (exact division) can leave a fraction and `sqrt` gives a real, so "
         "round them with `floor()`/`ceil()` or divide with `//`. Conditions must be true/false, and arithmetic "
         "needs numbers. The same holds for an assert's functions (`sum` adds numbers, `all`, `any` and `where` "
         "test true/false), and `unknown` is a value only for an assert reading the model (a cost printed as "
         "unknown), never in a rule a player's state is run through.", "set population = luxury * sqrt(food) / 2",
         "set population = floor(luxury * sqrt(food) / 2)"),
    Code("CIV072", "statement names the wrong thing", "A round statement names something it cannot work on: `set` "
         "and `add` write stats (and `set` flags), `move` moves a track, `roll` rolls a dice pool or an event table, "
         "`draw`, `discard` and the hand functions need a deck of cards, and colours must be the deck's.",
         "move unrest 2", "move rebellion 2"),
    Code("CIV073", "bad round declaration", "A stat, track, dice pool, event table or deck is malformed: empty bounds, "
         "a start, stage or mark off the track, overlapping stages, an event table whose rows do not cover every face "
         "of its die exactly once, a non-constant initial value, a threshold or choice that reads itself, or a second "
         "deck.", 'event_table weather "Weather" die 6 { 1..3: "Rain" { } }',
         'event_table weather "Weather" die 6 { 1..3: "Rain" { } 4..6: "Sun" { } }'),
    Code("CIV074", "name used twice", "Stats, flags, tracks, thresholds, choices, dice pools, event tables, constants, "
         "tables and options share one namespace, and a `let` or `roll x =` name must be new.",
         'stat food "Food" initial 0  flag food "Food shortage"',
         'stat food "Food" initial 0  flag food_shortage "Food shortage"'),
    Code("CIV080", "bad amounts setting", "`amounts { ... }` declares how effect amounts are limited and combined: "
         "`bound holdings` (an amount never exceeds what the player has) or `bound none`; `floor zero` or `floor none`; "
         "`order` listing add and prevent (together, add_prevent, or apart), set and cap, each once, and at most one floor step; a setting may end with `when OPTION` (it holds while that declared option is on); `losses least_over` or `losses none`; `prevention unselect` (cities are selected, then prevention unselects some) or `prevention amount`. A calamity may repeat a setting as its own exception.",
         'amounts { bound everything }', 'amounts { bound holdings "chapter 8: a player loses what he has" }'),
    Code("CIV081", "option no rule reads", "An `option` is a rule switch: `--option NAME=on|off` (or `options:` in a "
         "state or table file) turns it on or off for one question. An option that no rule reads would switch nothing, "
         "so it is a warning; read it in a condition, or acknowledge a deliberately inert option with `errata CIV081`.",
         'option calamity_floor "24.1" off',
         'option calamity_floor "24.1" off\ncalamity "Famine" { ... when calamity_floor { cap damage max(0, unit_points - 15) } }'),
    Code("CIV085", "bad resolution setting", "`resolution { ... }` declares how `civdsl table` runs the calamity phase "
         "for a whole table: `limit`, `major_limit`, `minor_limit` (constants), `discard` (duplicates, random), `order` "
         "(minor_first, stack, nontradable_first, ast), `beneficiary_rank` (facts), `beneficiary_ties` (ast or victim), "
         "`beneficiary_among` and `secondary_among` (a table relation), `nominee_without` (a fact), `nominee_forced_if` "
         "(an advance) and `assign` (ask or ast). A calamity may repeat the beneficiary, nominee, secondary and assign "
         "settings as its own exception; the others are edition-wide.",
         'resolution { order stack, alphabetical }', 'resolution { order minor_first, stack, nontradable_first, ast }'),
    Code("CIV086", "setting names an unknown constant or fact", "`limit`, `major_limit` and `minor_limit` "
         "of `resolution`, and `city_points` of `amounts`, name a whole-number constant of the rulebook; "
         "`beneficiary_rank` names player facts or derived names (`civdsl vocab`), compared from the first to the last.",
         'resolution { limit calamity_limt }', 'const calamity_limit = 3\nresolution { limit calamity_limit }'),
    Code("CIV087", "unknown table relation", "A table query (`neighbours(by=...)`, `most_among(..., among=...)`) "
         "names how other players relate to this one: others, everyone, land, water or near (the table file's `borders`), "
         "or same_block (the players' trade-card blocks).",
         'cancel when neighbours(by=lnd) == 0', 'cancel when neighbours(by=land) == 0'),
    Code("CIV116", "nominee rule names an unknown advance", "`nominee_forced_if` of `resolution` names the advance "
         "whose holder does not choose his nominee (e.g. Philosophy in the 1981 Civil War): a one-word advance the "
         "edition declares.",
         'calamity "Civil War" { ... resolution { nominee_forced_if Philosophi } }',
         'calamity "Civil War" { ... resolution { nominee_forced_if Philosophy } }'),
    Code("CIV091", "row on an unknown A.S.T. track", "A civilization's `ast TRACK at ...` row names a track the "
         "rulebook does not declare with `ast TRACK \"Name\" { ... }`.",
         'civilization "Minoa" { ast basci at 6, 9, 11, 14, 15 }',
         'civilization "Minoa" { ast basic at 6, 9, 11, 14, 15 }'),
    Code("CIV092", "A.S.T. row does not fit its track", "A civilization's row gives the first space of each epoch "
         "after the first, in order: one number per epoch after the first, each larger than the one before (the first "
         "epoch runs from space 1; space 0 is the start arrow), none beyond the last space. The number of spaces "
         "comes from the row (`spaces N`) or from the track.",
         'ast basic "Basic" { spaces 15  epoch "Stone Age" { }  epoch "Bronze Age" { } }\n'
         '    civilization "Minoa" { ast basic at 6, 9 }',
         'ast basic "Basic" { spaces 15  epoch "Stone Age" { }  epoch "Bronze Age" { } }\n'
         '    civilization "Minoa" { ast basic at 6 }'),
    Code("CIV093", "`except` names no epoch of the track", "`backward when COND except \"Epoch\"` exempts markers in "
         "the named epochs from stepping back; each name must be an epoch of the same track.",
         'backward when cities == 0 except "Stone"', 'backward when cities == 0 except "Stone Age"'),
    Code("CIV094", "A.S.T. ranking given twice", "The A.S.T. ranking (`rank N`) orders the civilizations as the "
         "table lists them, top to bottom; two civilizations cannot share a place.",
         'civilization "Minoa" { rank 1 }  civilization "Saba" { rank 1 }',
         'civilization "Minoa" { rank 1 }  civilization "Saba" { rank 2 }'),
    Code("CIV110", "lone surrogate in a string escape", "`\\uD800` to `\\uDFFF` are halves of a UTF-16 surrogate "
         "pair, not characters. A high half followed by a low half (`\\ud83d\\ude00`, as JSON writes an emoji) is "
         "the one character they encode; either half alone cannot be printed, saved or shown, so it is an error.",
         'summary "smile \\ud83d"', 'summary "smile \\ud83d\\ude00"'),
    Code("CIV111", "not a colour", "A group's `color` is a hexadecimal colour, `#rgb` or `#rrggbb`, so that every "
         "chart can use it as it is.", 'group arts "Arts" color "blue"', 'group arts "Arts" color "#1565c0"'),
    Code("CIV112", "number out of range", "Every number a rulebook writes has a range that fits its meaning (a die "
         "has 1 to 1,000 sides, a commodity 0 to 1,000 cards, a cost 0 to 10,000 ...), so that no check, chart or "
         "game grows with a mistyped or hostile number. `docs/security.md` lists every range.",
         'event_table weather "Weather" die 999999999 { 1..6: "Rain" { } }',
         'event_table weather "Weather" die 6 { 1..6: "Rain" { } }'),
    Code("CIV130", "a rule failed while running", "A rule raised an error when a command ran it on a player's "
         "state: a division by zero, a table with no band for the value, a value of the wrong kind. The "
         "diagnostic points at the rule itself, in the file that states it: for a rule a house rule inherits, "
         "the base's file. Check the values the command was given (`--set`, `--state`), or guard the rule.",
         'primary { damage(12 // cities) }', 'primary { if cities > 0 { damage(12 // cities) } }'),
    Code("CIV131", "a house rule's modifier stacks on the base's", "A `change` adds a modifier with exactly the "
         "condition and role of one the base calamity already has. Both apply, one after the other, which is "
         "rarely what a house rule means: to replace the base's modifier, `drop` it first; if both are meant to "
         "apply, drop it and write one modifier with the operations of both, so a reader sees them together.",
         'change calamity "Famine" { when holds("Pottery") { prevent damage 4 per cards("Grain") } }',
         'change calamity "Famine" { drop when holds("Pottery")  when holds("Pottery") { prevent damage 8 } }'),
    Code("CIV132", "a change keeps a summary that may be wrong", "A `change` alters what an advance or calamity does "
         "(its abilities, or its primary or secondary effects) but gives no `summary`, so the base's summary, "
         "written for the old rule, is kept and shown in charts and `explain`. Give the changed item a summary "
         "that says what it now does.",
         'change advance "Cloth Making" { ability ship_range(2) }',
         'change advance "Cloth Making" { ability ship_range(2)  summary "Ships move two more areas." }'),
    Code("CIV133", "a name close to one the engine reads", "The engine reads a few constants and tables by their "
         "name (`civdsl vocab` lists them: `card_limit`, `hand_limit`, `hand_limit_by_players`, `token_points`, "
         "`city_points`). A constant or table whose name is close to one of them but not equal is almost always a "
         "misspelling, and the engine would silently go on without it (no card limit, the default unit points). "
         "Rename it; if the name is meant, acknowledge it with `errata CIV133`.",
         'const card_limt = 11 "advances a player may hold"', 'const card_limit = 11 "advances a player may hold"'),
    Code("CIV134", "a name the engine reads has the wrong kind or type", "A constant or table the engine reads by "
         "name must be declared as what the engine reads (`const card_limit`, but `table hand_limit_by_players`) "
         "and be known before any player state (it may not read player facts): otherwise the engine cannot read "
         "it, an error. Its value should be a whole number at least the smallest that makes sense (a card limit "
         "of at least 1); another number is read as it is, with a warning.",
         'const city_points = 5 / 2', 'const city_points = 5'),
    Code("CIV135", "unknown field in an item", "An advance, calamity, commodity or civilization block holds a "
         "line that is none of its fields (`civdsl/fields.py` declares each kind's fields; docs/language.md lists "
         "them): usually a misspelling, or a field of another kind of item. The line is skipped and the rest of "
         "the file is still checked; the field it looks like is not also reported missing from the item.",
         'advance "Pottery" { cots 45 groups crafts }', 'advance "Pottery" { cost 45 groups crafts }'),
    Code("CIV136", "a credit larger than the advance it credits", "A specific credit (`credit \"Name\" N`) "
         "lowers the price of one advance; a credit larger than that advance's cost would make it free by itself "
         "and is almost always a misprinted figure (a credit or a cost). Printed credits to one card are a "
         "fraction of its cost.",
         'advance "Mysticism" { ... credit "Philosophy" 300 }  # Philosophy costs 240',
         'advance "Mysticism" { ... credit "Philosophy" 30 }'),
    Code("CIV140", "unknown phase action", "A step of the sequence of play (`turn { step \"...\" { ... } }`) "
         "calls a phase action the language does not have. The phase actions (`civdsl vocab`, docs/language.md) "
         "say what a step does to a game's ledger: census, collect_tax, draw_trade_cards, buy_trade_cards, trade, "
         "resolve_calamities, buy_advances, hand_limit, alter_ast, end_game.",
         'step "Taxation" { colect_tax(rate=tax_rate) }', 'step "Taxation" { collect_tax(rate=tax_rate) }'),
    Code("CIV141", "a phase action done twice in a turn", "Most phase actions happen once a turn (players tax, "
         "draw, trade, resolve calamities, buy advances and move their markers once); only `census` (the map "
         "changes after several steps) and `end_game` (one rule per A.S.T. track) may stand in several steps.",
         'step "Tax" { collect_tax(rate=2) }  step "Tax again" { collect_tax(rate=2) }',
         'step "Tax" { collect_tax(rate=2) }'),
    Code("CIV142", "a game event the rules refuse", "`civdsl game add` checks an event against the rules and the "
         "game's state before it is written: a purchase a player cannot pay, a card he does not hold, a trade "
         "that breaks a tradability rule, a census over the pieces the rulebook declares, an event in a step "
         "that does not take it. The game file is left unchanged; the message says which rule refuses it. "
         "Replaying a game file (`game show`) reports the first such event at its line.",
         "game add g.yaml buy anna Monarchy   (anna's cards and treasury pay 40 of 60)",
         "game add g.yaml buy anna Pottery pay Ochre Ochre treasury 5"),
    Code("CIV143", "a choice the rules leave to a player", "The event needs a decision the rules leave to a "
         "player (which cards to discard down to the hand limit, who the secondary victims of a calamity are, "
         "which cities a loss takes): civdsl never guesses it. The message lists the choices; give one in the "
         "event.", "game add g.yaml next   (anna holds 10 cards, the limit is 8)",
         "game add g.yaml discard anna Ochre Flax"),
    Code("CIV144", "a game file that cannot be read", "The game file is not YAML the ledger reads: a missing or "
         "misspelt key, a value of the wrong type, an unknown player, edition or event, or a file beyond the size "
         "and nesting limits. The message names the place in the file.", "players: anna", "players:\n  - name: anna"),
    Code("CIV145", "civilizations no set-up uses", "Where the edition declares its set-ups by player count "
         "(`setups` of each civilization), `civdsl game new` plays the civilizations of one set-up for the number "
         "of players: a set-up is for as many players as civilizations name it, and each civilization is chosen "
         "once. The notes list the set-ups for the player count.",
         "game new megaciv --players a:Minoa,b:Saba,c:Hatti,d:Hellas,e:Egypt",
         "game new megaciv --players a:Minoa,b:Assyria,c:Hatti,d:Hellas,e:Egypt"),
    Code("CIV146", "a trade deck that does not fit the rulebook", "A `trade_deck` names the cards of each trade "
         "stack for a range of player counts: each card must be a commodity or calamity of that stack, the block "
         "and a `clear` quantity must be declared, no two decks may deal the same block to the same player count, "
         "and at no player count may the decks hold more cards of a commodity than its `count`.",
         'trade_deck "West" for 5..8 block west { stack 1 { "Ochre" 9, "Papyri" 8 } }',
         'trade_deck "West" for 5..8 block west { stack 1 { "Ochre" 9 } stack 2 { "Papyri" 8 } }'),
    Code("CIV147", "a set-up that does not fit its civilizations", "`block ID for \"SETUP\", ...` says which "
         "trade block a civilization plays in some of its set-ups (Mega Civilization's combined games move Assyria "
         "and Egypt East): each set-up must be one of its `setups`, and the block another declared block. "
         "`setups \"NAME\" for LOW..HIGH` lets that many players choose among the civilizations naming the set-up: "
         "no more players than civilizations.",
         'civilization "Assyria" { block west setups "12" block east for "13" }',
         'civilization "Assyria" { block west setups "12", "13" block east for "13" }'),
    Code("CIV160", "a `cites` with nothing to cite", "`cites` names the printed clauses implemented by the statement "
         "written just before it (or, first in a block, by the block's own statement). At the top of a rulebook, "
         "before any statement, it cites nothing.",
         'language 1\nedition e "E"\ncites "19.1"', 'const calamities_per_round = 2 "19.7"\ncites "19.7"'),
    Code("CIV161", "unknown clause", "A `cites` or `clause` names a clause id that the edition's clause list "
         "(`clauses/<edition>.clauses` beside the rulebook) does not list: usually a typing mistake, or a "
         "paragraph of another edition. The nearest listed id is suggested; `civdsl cover EDITION` lists them all.",
         'calamity "Flood" { cites "22.2.7.9" ... }', 'calamity "Flood" { cites "22.2.7.4" ... }'),
    Code("CIV162", "no clause list", "The rulebook cites or acknowledges printed clauses, but no file of its "
         "chain has a clause list beside it (`clauses/<edition>.clauses`), so the ids cannot be checked. Write "
         "one with tools/make_clauses.py from a copy of the rules, or remove the citations.",
         'cites "19.1"   # and no clauses/EDITION.clauses', 'cites "19.1"   # with clauses/EDITION.clauses'),
    Code("CIV163", "a clause list that cannot be read", "A line of the clause list is none of its statements "
         "(`clauses`, `edition`, `text`, `segment`, `chapter`, `repair`, `skip`, `require`, `kind`, `clause`), "
         "a clause is listed twice, or a kind or scheme is unknown. The format is described at the top of "
         "civdsl/clauses.py; tools/make_clauses.py writes it.",
         'clause "19.1" rules 3f2a9c0b1d2e3f40 "Calamities"', 'clause "19.1" rule 3f2a9c0b1d2e3f40 "Calamities"'),
    Code("CIV164", "an acknowledgement that says nothing", "A `clause ... errata CODE` names an errata code no "
         "errata line of the chain has, or a `clause ... out_of_scope SCOPE` names a scope that is none of `map`, "
         "`table`, `variant`: the acknowledgement would explain nothing.",
         'clause "22.1.2" errata CIV041', 'errata CIV040 "Bronze" "why"\nclause "22.1.2" errata CIV040'),
    Code("CIV180", "ruling fails", "A ruling of the rulebook (`ruling NAME \"question\" { ... }`) gets another "
         "answer from the rules than the one it expects. The message gives what was expected and what the rules "
         "answered; the notes give the question, the citation and the trace of the answer. Either a rule is wrong, or "
         "the ruling's situation or expected answer is.",
         'ruling f "Famine with Agriculture?" { player(holds("Agriculture")) resolve("Famine") expect(damage == 10) '
         'cite("8") }',
         'ruling f "Famine with Agriculture?" { player(holds("Agriculture")) resolve("Famine") expect(damage == 15) '
         'cite("8") }'),
    Code("CIV181", "ruling cannot be run", "A ruling's block is read as calls: `player(...)` (the situation), one "
         "question (`resolve`, `cost`, `epoch`, `score`, `hand` or `table`), `expect(...)` with comparisons of the "
         "answer's values with literals, and `cite(...)`. An unknown call, a second question, a value the answer does "
         "not have, a missing expectation or citation, or a situation the rulebook refuses (an unknown advance, a fact "
         "of the wrong type) stops the ruling from being run.",
         'ruling f "?" { player(holds("Agriculture")) resolve("Famine") expect(damagee == 15) cite("8") }',
         'ruling f "?" { player(holds("Agriculture")) resolve("Famine") expect(damage == 15) cite("8") }'),
    Code("CIV182", "house rule changes an inherited ruling", "A warning: a ruling of the base rulebook gets another "
         "answer under the house rule. That may be the point of the house rule; say so with `overrules NAME \"why\"` "
         "(the warning becomes a note), or fix the house rule.",
         'edition kind "Kind" extends megaciv\nchange calamity "Famine" { primary { damage(8) } }',
         'edition kind "Kind" extends megaciv\nchange calamity "Famine" { primary { damage(8) } }\n'
         'overrules famine_agriculture "famine is kinder at our table"'),
    Code("CIV183", "overrules excuses nothing", "A warning: `overrules NAME` names no ruling the rulebook inherits, "
         "or a ruling whose answer the house rule does not change. Remove the line, or correct the name.",
         'overrules famine_agriculturre "kinder"', 'overrules famine_agriculture "kinder"'),
    Code("CIV184", "no trade deck for the player count", "`civdsl game new` writes a game of an edition that "
         "declares its trade-card decks by player count (`trade_deck ... for LOW..HIGH`) only for a player count one "
         "of them covers: the ledger deals that deck and checks every draw against its stacks. Where the seed text "
         "does not give a count's stacks, the rulebook declares none, and the note lists the counts it has.",
         "game new uigame.civ --players a,b,c,d",
         "game new uigame.civ --players a,b,c"),
    Code("CIV185", "game file not in the form civdsl game writes", "`civdsl game fmt --check` found a game file "
         "that is not laid out as `civdsl game` writes it (a comment line, the set-up one key a line, `events:` and "
         "one event a line as JSON with `, ` and `: ` between items): the game page imports only that form. The "
         "message names the first place the file departs from it and what was expected there; `civdsl game fmt "
         "GAME` rewrites the file in it (the same game).",
         "  - {\"turn\": 1, \"step\": 2, \"do\":\"next\"}", "  - {\"turn\": 1, \"step\": 2, \"do\": \"next\"}"),
    Code("CIV170", "law broken", "`civdsl check --laws` found a situation that breaks a law of the rulebook (`law NAME "
         "\"what it says\" { property(...) cite(...) }`), or of a base the house rule extends. The notes give the two "
         "answers that break it, the rule lines involved and the commands that show it; the situation is written as "
         "a state file. A house rule that means to break an inherited law says so: `drop law NAME \"why\"`.",
         'edition h "H" extends megaciv\nchange calamity "Famine" { primary { damage(5 + advances) } }',
         'edition h "H" extends megaciv\nchange calamity "Famine" { primary { damage(5 + advances) } }\n'
         'drop law advances_protect "every advance held makes famine worse at our table"'),
    Code("CIV171", "law cannot be read", "A law's block names one property (`property(NAME)`, one of "
         "`bounded_by_holdings`, `advances_never_hurt`, `credits_never_raise_prices`, `cities_never_lose_epochs`, "
         "`advances_never_lose_epochs`) and cites where the printed rules imply it (`cite(\"...\")`).",
         'law l "..." { property(advances_never_hurts) cite("9") }',
         'law l "..." { property(advances_never_hurt) cite("9") }'),
    Code("CIV172", "drop law drops nothing", "A warning: `drop law NAME` names no law of the rulebook or of the "
         "rulebooks it extends. Remove the line, or correct the name.",
         'drop law advances_protec "..."', 'drop law advances_protect "..."'),
]

CODES: dict[str, Code] = {c.code: c for c in _ALL}


def explain(code: str) -> str | None:
    c = CODES.get(code.upper())
    if c is None:
        return None
    return (f"{c.code}: {c.title}\n\n{c.explanation}\n\nWrong:\n\n    {c.wrong}\n\nRight:\n\n    {c.right}\n")
