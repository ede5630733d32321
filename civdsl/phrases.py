"""Effects in words from plain values: what `civdsl resolve` prints, and the grammar every
chart sentence shares (plurals, "more"/"fewer", numbers that depend on the situation).

The words themselves are declared once, in the vocabulary: each effect kind's template and
the nouns its parameters count (`Kind.nouns`), each fact's noun (`Fact.words`, `states`), each
derived name's noun (`DERIVED_WORDS`). Kept apart from describe.py (which renders the model's
expressions) so that answering a question from a compiled rulebook never imports the parser.
"""

from __future__ import annotations

from . import vocabulary as vocab
from .records import Record

AREA_TEXT = {"any": "", "coastal": " from coastal areas", "flood_plain": " from the flood plain",
             "volcano": " in areas touched by the volcano", "open_sea": " next to the open sea",
             "adjacent": " in an adjacent area"}

# A kind's sentence when one of its parameters is zero (the clause about it disappears).
ZERO_VARIANTS = {
    ("faction_split", "by_victim"): "a faction of {amount} {unit_points}, all picked by the beneficiary, breaks away",
    # a rate the holder may only raise; with `lower` the sentence gives the whole range he picks from
    ("tax_rate", "lower"): "tax rate {delta:+d} per city",
}


class Count(Record):
    """How many, in words, when it is not a plain number: `rate` per `per` (a noun, singular
    and plural), at most `cap` / at least `floor`; or `all_of` (everything of a fact the
    victim has); or free `words` ("the smaller of ... and ...")."""

    rate: int = 1
    per: tuple[str, str] | None = None
    cap: int | None = None
    floor: int | None = None
    all_of: tuple[str, str] | None = None
    words: str | None = None

    def suffix(self) -> str:
        """What follows the sentence built with `rate` as its number."""
        if self.per is None:
            return f", as many as {self.words}" if self.words else ""
        text = f" per {self.per[0]}"
        if self.cap is not None:
            text += f", at most {self.cap}"
        if self.floor is not None:
            text += f", at least {self.floor}"
        return text

    def text(self) -> str:
        """The number alone, as a noun phrase: "2 per city", "your cities", "the smaller of ..."."""
        if self.all_of is not None:
            return f"all your {self.all_of[1]}"
        if self.per is not None:
            return f"{self.rate}{self.suffix()}"
        return self.words or "some"


def noun(n, words: tuple[str, str]) -> str:
    """`words` in the number that agrees with N ("1 city", "2 cities", "0 cities")."""
    return words[0] if str(n) == "1" else words[1]


def counted(n, words: tuple[str, str]) -> str:
    """"1 city", "3 cities", or the Count's words."""
    if isinstance(n, Count):
        if n.all_of is not None:
            return f"all your {words[1]}"
        if n.per is not None:
            return f"{n.rate} {noun(n.rate, words)}{n.suffix()}"
        return f"{words[1]}{n.suffix()}"
    return f"{n} {noun(n, words)}"


def change(op: str, n, words: tuple[str, str]) -> str:
    """A modifier's change to a counted parameter: "1 more city reduced", "5 fewer points of
    damage", "at most 7 points of damage", "no city destroyed"."""
    say = _CHANGE_WORDS.get(op)
    if say is None:
        raise ValueError(op)
    return say(op, n, words)


def _more_or_fewer(op: str, n, words: tuple[str, str]) -> str:
    more = "more" if op == "add" else "fewer"
    return f"{more} {counted(n, words)}" if isinstance(n, Count) else f"{n} {more} {noun(n, words)}"


def _exactly(op: str, n, words: tuple[str, str]) -> str:
    return f"no {words[0]}" if str(n) == "0" else f"exactly {counted(n, words)}"


def _at_most(op: str, n, words: tuple[str, str]) -> str:
    return f"at most {counted(n, words)}"


# the words of each modifier operation that changes a number
_CHANGE_WORDS = {"add": _more_or_fewer, "prevent": _more_or_fewer, "set": _exactly, "cap": _at_most}


def is_zero(value) -> bool:
    return not isinstance(value, Count) and str(value) == "0"


def effect_text(kind_name: str, args: dict) -> str:
    """One effect in words; "" when its main number is zero (the clause disappears)."""
    kind = vocab.EFFECT_KINDS.get(kind_name)
    if kind is None:
        return kind_name.replace("_", " ")
    values = _with_defaults(kind, args)
    amount = values.get("amount")
    if kind.main == "amount" and is_zero(amount):
        return ""
    template = kind_template(kind_name, kind.text, values)
    values["amount"], one, suffix = _amount_words(amount)
    values.update(_plurals(one))
    values.update(_where_and_who(values))
    text = template.format(**values).replace("\0 ", "").replace("\0", "")
    return text + suffix


def _with_defaults(kind, args: dict) -> dict:
    """Each parameter of KIND: its argument in ARGS, else its default."""
    return {p.name: p.default if args.get(p.name) is None else args[p.name] for p in kind.params}


def _plurals(one: bool) -> dict[str, str]:
    """Each declared noun (vocabulary.PLURALS) in the number the amount calls for."""
    return {word: sing if one else plural for word, (sing, plural) in vocab.PLURALS.items()}


def _where_and_who(values: dict) -> dict[str, str]:
    """The words of where an effect acts and who chooses or receives: `area_text`, `area`, `chooser`, `to`."""
    area = values.get("area", "any")
    return {"area_text": AREA_TEXT.get(str(area), f" ({values.get('area')})"), "area": str(area).replace("_", " "),
            "chooser": str(values.get("chooser", "victim")), "to": str(values.get("to", "beneficiary"))}


def kind_template(kind_name: str, text: str, values: dict) -> str:
    """The kind's sentence, or its variant for a parameter that is zero (ZERO_VARIANTS)."""
    for (k, param), variant in ZERO_VARIANTS.items():
        if k == kind_name and is_zero(values.get(param)):
            text = variant
    return text


def _amount_words(amount) -> tuple:
    """(the amount as the sentence says it, whether its nouns are singular, what follows the sentence)."""
    if not isinstance(amount, Count):
        return amount, str(amount) == "1", ""
    if amount.all_of is not None:
        return "all your", False, ""
    if amount.per is not None:
        return amount.rate, amount.rate == 1, amount.suffix()
    # "destroy as many cities as the smaller of ...": the number said after its noun
    return "as many", False, f" as {amount.words}" if amount.words else ""


def fact_words(name: str) -> tuple[str, str] | None:
    """The declared noun of a fact or derived name, singular and plural."""
    fact = vocab.FACTS.get(name)
    if fact is not None and fact.words is not None:
        return fact.words
    return vocab.DERIVED_WORDS.get(name)


def name_words(name: str) -> str:
    """A fact, derived name or kind parameter for a person: its plural noun, else its spaced name."""
    words = fact_words(name)
    return words[1] if words else name.replace("_", " ")


def sentence(text: str) -> str:
    """Capitalised, with one final full stop (never "A.S.T..")."""
    text = text.strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text.endswith(".") else text + "."


# what a counted requirement asks for, by its comparison ("at least 2 needed"): the epoch answer's
# words on the command line and on the companion page
REQUIREMENT_NEEDS = {">=": "at least {}", ">": "more than {}", "<=": "at most {}", "<": "fewer than {}",
                     "==": "exactly {}", "!=": "other than {}"}
