"""The texts a question's messages are made of: a value cut short for a message, the "did you
mean" hint, names compared without case, a comma-separated list of names, text in NFC. Written in
the engine subset: the command line calls them and the page runs them translated (py2es), so a
message reads the same in both.
"""

from __future__ import annotations

import unicodedata


def hint_text(name, candidates) -> str:
    """" (did you mean `X`?)" for the closest of CANDIDATES to a name; nothing for a key that is
    not a name, or one too long to compare."""
    if not isinstance(name, str) or len(name) > 200:
        return ""
    from .closematch import did_you_mean  # only for a mistake: answering never loads it

    best = did_you_mean(name, candidates)
    return f" (did you mean `{best}`?)" if best else ""


def short_text(value, limit: int = 80) -> str:
    """A name (as is) or any other value (its repr) for a message, cut short: a hostile state
    can hold megabytes, or an integer too long for repr() to write."""
    try:
        text = value if isinstance(value, str) else repr(value)
    except ValueError:
        text = "a number too long to show"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def known_text(value) -> str:
    """A figure an answer may not know: the number, or `unknown`."""
    return "unknown" if value is None else str(value)


def value_text(value) -> str:
    """A value for a message as the user's file holds it, in YAML's flow form: a text quoted (as
    Python quotes it), true and false, an empty value (YAML's null) as `empty`, lists and mappings
    with their first items; cut short. Python's own words (None, True) never reach a player."""
    return short_text(_flow(value, 0))


def _flow(value, depth: int) -> str:
    if isinstance(value, str):
        return repr(value[:200])
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple, dict)) and depth >= 3:
        return "..."
    if isinstance(value, (list, tuple)):
        more = ", ..." if len(value) > 20 else ""
        return "[" + ", ".join([_flow(v, depth + 1) for v in value[:20]]) + more + "]"
    if isinstance(value, dict):
        pairs = list(value.items())
        more = ", ..." if len(pairs) > 20 else ""
        return "{" + ", ".join([f"{_flow(k, depth + 1)}: {_flow(v, depth + 1)}" for k, v in pairs[:20]]) + more + "}"
    return short_text(value)


def casefolded(text: str) -> str:
    """TEXT as names are compared without case (str.casefold)."""
    return text.casefold()


def split_names(text: str | None) -> list[str]:
    """ "Pottery, Mysticism" -> ["Pottery", "Mysticism"] (each in NFC; empty names left out)."""
    if not text:
        return []
    return [nfc(n.strip()) for n in text.split(",") if n.strip()]


def nfc(value):
    """Every text in `value` (a name, or a state's lists and mappings) in NFC, as rulebook strings
    are: one name whichever way its accents were typed."""
    if isinstance(value, str):
        return value if value.isascii() else unicodedata.normalize("NFC", value)
    if isinstance(value, list):
        return [nfc(v) for v in value]
    if isinstance(value, dict):
        return {nfc(k): nfc(v) for k, v in value.items()}
    return value
