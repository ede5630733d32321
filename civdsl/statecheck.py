"""A question's state checked: every fact against the vocabulary (its type and bounds), the items
it names by any declared name or `aka` in any case, the rule switches, then the rulebook's own
checks (factchecks.py); every problem reported at once, each naming the closest valid name. The
page runs it translated (companion/py2es.py), so this module keeps to the engine subset
(docs/engine-route.md).
"""

from __future__ import annotations

from .errors import StateError
from .factchecks import check_ast_facts, check_purchase_facts
from .state import casefolded, hint_text, nfc, short_text, split_names, value_text

MAX_PROBLEMS = 20  # problems listed in one message (each looks for the closest valid name)
MAX_COUNT = 999_999_999  # no count on a game board comes near; keeps arithmetic and output small


def question_state(module, facts_table: dict, holds: list, facts: dict, source: str = "state") -> tuple:
    """The advances held (`holds` first, then the state's), the state's facts checked and its
    rule switches, for one question; FACTS_TABLE is the vocabulary's (vocabulary.FACTS)."""
    facts = by_own_names(module, facts)
    problems = []
    held = _kept(problems, [], lambda: canonical_names(module, "advance", holds, "--holds"))
    switches = _kept(problems, {}, lambda: check_options(getattr(module, "OPTIONS", {}), facts.get("options") or {},
                                                         source))
    clean = _kept(problems, {}, lambda: check_state({k: v for k, v in facts.items() if k != "options"}, facts_table,
                                                    module.ADVANCES, module.COMMODITIES, module.GROUPS, source))
    _kept(problems, None, lambda: check_ast_facts(clean, getattr(module, "CIVILIZATIONS", {}), module.AST, source))
    _kept(problems, None, lambda: check_purchase_facts(clean, module, source))
    if problems:
        raise StateError("\n".join(problems))
    out = []
    for h in list(held) + list(clean.get("holds") or []):  # held is a set: a name given twice is held once
        if h not in out:
            out.append(h)
    return out, {k: v for k, v in clean.items() if k != "holds"}, switches


def _kept(problems: list, default, check):
    """check(), or DEFAULT with its StateError kept in PROBLEMS: every problem of a state is
    reported at once."""
    try:
        return check()
    except StateError as exc:
        problems.append(str(exc))
        return default


def by_own_names(module, facts: dict) -> dict:
    """A state's advances and cards by their own names (an unknown name is left for check_state,
    which names the closest); no `holds` key when it holds nothing (an empty list or none), and
    any value that is not a list kept for check_state to refuse."""
    out = {k: v for k, v in facts.items() if k != "holds"}
    from_state = facts.get("holds")
    if _names(from_state):
        from_state = canonical_names(module, "advance", from_state, "holds", False)
    if not (from_state is None or from_state == []):
        out["holds"] = from_state
    for fact, kind in (("commodities", "commodity"), ("others_hold", "advance")):
        counts = out.get(fact)
        if isinstance(counts, dict) and _names(list(counts)):
            out[fact] = _canonical_counts(module, kind, fact, counts)
    return out


def _names(value) -> bool:
    """A list of names, as a state's `holds` should be; a value of another shape is left for
    check_state to report."""
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def _canonical_counts(module, kind: str, fact: str, counts: dict) -> dict:
    """Cards counted by name (a hand of commodities, the advances others hold) by each item's own
    name (cards named twice, by `aka`, added up)."""
    names = canonical_names(module, kind, list(counts), fact, False)
    merged = {}
    for own, n in zip(names, counts.values()):
        if own in merged and whole_number(n) and whole_number(merged[own]):
            merged[own] = merged[own] + n
        else:
            merged[own] = n
    return merged


def check_options(declared: dict, given, source: str = "state") -> dict:
    """Rule switches set for one question: names the rulebook declares (`option NAME ...`), each
    on or off (`on`/`off`/`true`/`false` in any case, or true/false)."""
    if not isinstance(given, dict):
        raise StateError(f"{source}: `options` must be a mapping of option: on/off")
    out = {}
    bad = []
    for name, value in given.items():
        value = _switch(value)
        out[name] = value
        if name not in declared:
            bad.append(f"{source}: unknown option `{short_text(name)}`{_option_hint(name, list(declared))}")
        elif not isinstance(value, bool):
            bad.append(f"{source}: option `{name}` is on or off, not {value_text(value)}")
    if bad:
        raise StateError("\n".join(bad))
    return out


def _switch(value):
    """An option's value as given: `on`/`off`/`true`/`false` (any case) are true and false."""
    if isinstance(value, str) and casefolded(value) in ("on", "off", "true", "false"):
        return casefolded(value) in ("on", "true")
    return value


def _option_hint(name, declared: list) -> str:
    """The closest declared option, else the declared ones, else that there are none."""
    from .diagnostics import did_you_mean

    best = did_you_mean(str(name), declared)
    if best:
        return f" (did you mean `{best}`?)"
    return f"; options: {', '.join(declared)}" if declared else "; the rulebook declares no options"


def check_state(data: dict, facts_table: dict, advances, commodities, groups, source: str = "state") -> dict:
    """Validate facts against the vocabulary (FACTS_TABLE: name -> its type and minimum) and the
    rulebook's names; returns a clean copy."""
    checker = _FactChecker(source, advances, commodities, groups)
    clean = {}
    for key, value in nfc(data).items():
        if not isinstance(key, str) or key not in facts_table:
            checker.problem(f"unknown key `{key_text(key)}`{checker.hint(key, list(facts_table))}")
            continue
        fact = facts_table[key]
        if fact.type == "int":
            clean[key] = checker.check_int(key, fact, value)
        elif fact.type == "list":
            clean[key] = checker.check_list(key, value)
        elif fact.type == "map":
            clean[key] = checker.check_map(key, value)
        else:
            clean[key] = checker.check_simple(key, fact, value)
    if checker.problems:
        raise StateError("\n".join(first_problems(checker.problems)))
    return clean


class _FactChecker:
    """Checks facts of one state, one `check_<type>` per fact type of the vocabulary; every
    problem is kept, in order, and the state is rejected if there is any."""

    def __init__(self, source: str, advances, commodities, groups):
        self.source, self.advances, self.groups = source, advances, groups
        # what the names of a list fact (advances) or a map fact (groups) are, where not these
        self.named = {"start_credits_used": (groups, "group"), "commodities": (commodities, "commodity"),
                      "others_hold": (advances, "advance")}
        self.problems = []

    def problem(self, text: str) -> None:
        self.problems.append(f"{self.source}: {text}")

    def hint(self, name, candidates: list) -> str:  # the closest names only for the problems shown
        return hint_text(name, candidates) if len(self.problems) < MAX_PROBLEMS else ""

    def check_int(self, key: str, fact, value):
        if not whole_number(value):
            self.problem(f"`{key}` must be a whole number, not {value_text(value)}")
        elif fact.minimum is not None and value < fact.minimum:
            self.problem(f"`{key}` cannot be below {fact.minimum} (got {value_text(value)})")
        elif value > MAX_COUNT:
            self.problem(f"`{key}` cannot be above {thousands(MAX_COUNT)}")
        return value

    def check_simple(self, key: str, fact, value):
        if fact.type == "bool" and not isinstance(value, bool):
            self.problem(f"`{key}` must be true or false, not {value_text(value)}")
        elif fact.type == "str" and not isinstance(value, str):
            self.problem(f"`{key}` must be text, not {value_text(value)}")
        return value

    def check_list(self, key: str, value):
        if isinstance(value, str):
            value = split_names(value)
        if not _names(value):
            self.problem(f"`{key}` must be a list of names")
            return value
        valid, what = self.named.get(key, (self.advances, "advance"))
        for name in value:
            if name not in valid:
                self.problem(f"`{key}` names unknown {what} `{short_text(name)}`{self.hint(name, list(valid))}")
        return value

    def check_map(self, key: str, value):
        if not isinstance(value, dict):
            self.problem(f"`{key}` must be a mapping of name: number")
            return value
        valid, what = self.named.get(key, (self.groups, "group"))
        for name, n in value.items():
            if name not in valid:
                self.problem(f"`{key}` names unknown {what} `{key_text(name)}`{self.hint(name, list(valid))}")
            elif not count(n):
                self.problem(f"`{key}.{name}` must be a whole number from 0 to {thousands(MAX_COUNT)}")
            elif what == "advance" and valid[name].get("supply") is not None and n > valid[name]["supply"]:
                self.problem(f"`{key}.{name}` is {n}, but the box has {valid[name]['supply']} cards of it")
        return value


def whole_number(value) -> bool:
    """VALUE is a whole number, not a yes/no (Python's bool is an int)."""
    return isinstance(value, int) and not isinstance(value, bool)


def count(n) -> bool:
    """N is a count a board can hold: a whole number from 0 to MAX_COUNT."""
    return whole_number(n) and 0 <= n <= MAX_COUNT


def thousands(n: int) -> str:
    """A whole number from 0 written with a comma between thousands, as f"{n:,}" writes it."""
    text = str(n)
    out = ""
    while len(text) > 3:
        out = "," + text[-3:] + out
        text = text[:-3]
    return text + out


def first_problems(problems: list) -> list:
    """At most MAX_PROBLEMS problems, then how many more."""
    if len(problems) <= MAX_PROBLEMS:
        return problems
    return problems[:MAX_PROBLEMS] + [f"... and {thousands(len(problems) - MAX_PROBLEMS)} more"]


def key_text(key) -> str:
    """A key of a mapping for a message: a name as it is, any other value as Python writes it."""
    return short_text(key) if isinstance(key, str) else value_text(key)


def _items(module, kind: str) -> dict:
    """The items of a kind a command may name (advance, calamity, commodity)."""
    if kind == "advance":
        return module.ADVANCES
    if kind == "calamity":
        return module.CALAMITIES
    return module.COMMODITIES


def item_names(module, kind: str) -> dict:
    """Every name the rulebook declares for an item of this kind, its `aka` names included,
    casefolded -> the item's own name."""
    table = {}
    for alias, name in getattr(module, "ALIASES", {}).get(kind, {}).items():
        table.setdefault(casefolded(alias), name)
    for name in _items(module, kind):
        table[casefolded(name)] = name  # an item's own name wins over another's aka
    return table


def canonical_names(module, kind: str, names: list, option: str, strict: bool = True) -> list:
    """The items named, by their own names: any declared name or `aka`, in any case. An unknown
    name is an error naming the closest name (aka names and single words considered); with
    strict=False it is kept as given, for the state check to report."""
    valid = _items(module, kind)
    names = [nfc(n) if isinstance(n, str) else n for n in names]
    if all(isinstance(n, str) and n in valid for n in names):  # the usual case: every item by its own name
        return names
    table = item_names(module, kind)
    found = [_own_name(n, valid, table) for n in names]
    bad = [n for n, own in zip(names, found) if own is None]
    if bad and strict:
        raise StateError("\n".join(first_problems(_unknown_items(module, kind, bad, option, table))))
    return [n if own is None else own for n, own in zip(names, found)]


def _unknown_items(module, kind: str, bad: list, option: str, table: dict) -> list:
    """The problem naming each unknown item (the first MAX_PROBLEMS with the closest declared name)."""
    known = list(_items(module, kind))
    known.extend(list(getattr(module, "ALIASES", {}).get(kind, {})))
    problems = [f"{option}: unknown {kind} `{short_text(n)}`{_item_hint(n, known, table)}" for n in bad[:MAX_PROBLEMS]]
    problems.extend([str(n) for n in bad[MAX_PROBLEMS:]])
    return problems


def _own_name(name, valid, table: dict):
    """The item's own name for any declared name or `aka` of it, in any case; None for a name
    the rulebook does not declare."""
    if not isinstance(name, str):
        return None
    if name in valid:
        return name
    return table.get(casefolded(name))


def _item_hint(name, known: list, table: dict) -> str:
    """The closest declared name (its single words considered), with the item's own name when
    the closest is another's `aka`."""
    if not isinstance(name, str) or len(name) > 200:
        return ""
    from .diagnostics import did_you_mean_words

    best = did_you_mean_words(name, known)
    if best is None:
        return ""
    own = table.get(casefolded(best), best)
    return f" (did you mean `{best}`?)" if own == best else f" (did you mean `{best}`, that is `{own}`?)"


def check_names(names: list, valid, what: str, option: str) -> None:
    """Every name one of VALID (an A.S.T. track given with `--ast`, say)."""
    unknown = [n for n in names if n not in valid]
    bad = [f"{option}: unknown {what} `{short_text(n)}`{hint_text(n, list(valid))}" for n in unknown[:MAX_PROBLEMS]]
    bad.extend(unknown[MAX_PROBLEMS:])
    if bad:
        raise StateError("\n".join(first_problems(bad)))


def assigned_amount(role: str, assigned) -> int:
    """The amount assigned to a secondary victim (`--assigned`), checked."""
    if role != "secondary":
        raise StateError("--assigned is the amount assigned to a secondary victim: use it with --role secondary")
    if not whole_number(assigned) or assigned < 0:
        raise StateError(f"--assigned must be a whole number from 0, not {value_text(assigned)}")
    return assigned


def check_track(module, track) -> None:
    """`--ast TRACK`: an unknown track names the closest and every valid one."""
    if track is None or track in module.AST:
        return
    from .diagnostics import did_you_mean

    valid = list(module.AST)
    best = did_you_mean(track, valid)  # never TRACK itself: that is a valid track
    hint = f" (did you mean `{best}`?)" if best else ""
    listing = ", ".join(f"`{t}`" for t in valid) if valid else "none"
    raise StateError(f"--ast: unknown A.S.T. track `{track}`{hint}; {module.EDITION['id']} has: {listing}")
