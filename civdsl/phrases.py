"""Effects in words from plain values: what `civdsl resolve` prints.

Kept apart from describe.py (which renders the model's expressions) so that answering a
question from a compiled rulebook never imports the parser.
"""

from __future__ import annotations

from . import vocabulary as vocab

_AREA_TEXT = {"any": "", "coastal": " from coastal areas", "flood_plain": " from the flood plain",
              "volcano": " in areas touched by the volcano", "open_sea": " next to the open sea",
              "adjacent": " in an adjacent area"}


def effect_text(kind_name: str, args: dict) -> str:
    kind = vocab.EFFECT_KINDS.get(kind_name)
    if kind is None:
        return kind_name.replace("_", " ")
    values = {p.name: args.get(p.name, p.default) if args.get(p.name) is not None else p.default for p in kind.params}
    amount = values.get("amount")
    one = str(amount) == "1"
    for word, (sing, plural) in vocab.PLURALS.items():
        values[word] = sing if one else plural
    values["area_text"] = _AREA_TEXT.get(str(values.get("area", "any")), f" ({values.get('area')})")
    values["area"] = str(values.get("area", "any")).replace("_", " ")
    values["chooser"] = str(values.get("chooser", "victim"))
    values["to"] = str(values.get("to", "beneficiary"))
    return kind.text.format(**values)
