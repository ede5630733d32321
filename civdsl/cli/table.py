"""`civdsl table`: the calamity phase for every player at once. Opens the compiled
rulebook, loads the table file (each player through the state loader), resolves the phase with
the edition's declared rules (civdsl/table/calamity_phase.py) and prints each calamity with its trace and
each player's outcome, or the same as JSON."""

from __future__ import annotations

import sys

import click

from .common import command, echo
from .common import emit_json as _emit_json
from .common import open_rulebook as _open
from .common import option_switch as _option_switch

TABLE_HELP = "The table (YAML): players with their facts, borders, this turn's calamities, options."


@command("table")
@click.argument("rulebook")
@click.argument("table_file", metavar="TABLE", type=click.Path(dir_okay=False))
@click.option("--calamity", help="Show only this calamity (the limits and the order still count every calamity).")
@click.option("--seed", type=int, metavar="N", help="The seed of the random discards beyond the calamity limits.")
@_option_switch
def table(rulebook, table_file, calamity, seed, options, as_json):
    """Resolve the calamity phase of a whole TABLE: beneficiaries, limits, order, secondary victims."""
    from ..errors import StateError
    from ..table import load_table
    from ..table import resolve_phase

    rb = _open(rulebook)
    only = rb.calamity_name(calamity) if calamity else None
    tb = load_table(rb, table_file, options=options)
    try:
        phase = resolve_phase(tb, seed)
    except StateError as exc:  # a choice the table makes against the rules: located in the file, like load errors
        raise StateError(f"{table_file}: {exc}") from None
    data = phase.to_dict(only)
    if as_json:
        _emit_json(data, rb.id)
    else:
        _print(rb, phase, data)
    sys.exit(0 if data["complete"] else 1)


def _where(rb, setting: str) -> str:
    line = rb.module.TABLE_RULES["lines"].get(setting)
    path = rb.module.TABLE_RULES.get("paths", {}).get(setting, rb.module.SOURCE_PATH)
    return f"  [{path}:{line}]" if line else ""


# why a calamity over the limits was discarded, in words (`resolution { discard ... }`)
DISCARD_WHY = {"duplicate": "one of two of the same name", "random": "at random, over the limits",
               "highest_stack": "the highest stack, over the limits"}


def _print(rb, phase, data: dict) -> None:
    from .questions import _describe_effect

    _print_limits(rb, phase, data)
    for i, c in enumerate(data["calamities"], 1):
        _print_calamity(rb, i, c, _describe_effect)
    echo("")
    echo("Outcome by player")
    for name, parts in data["outcomes"].items():
        echo(f"  {name}: " + (" | ".join(_outcome_text(p, _describe_effect) for p in parts) or "nothing"))
    if data["missing_facts"]:
        echo(f"incomplete: the table does not give {'; '.join(_missing_words(m, data) for m in data['missing_facts'])}")


def _missing_words(path: str, data: dict) -> str:
    """What the table lacks, in words: a player's fact, the victim's choice for a calamity, a border."""
    import re

    from ..phrases import name_words

    player = re.fullmatch(r"players\.(.+)\.(\w+)", path)
    if player:
        return f"{player.group(1)}'s {name_words(player.group(2))}"
    choice = re.fullmatch(r"calamities\[(\d+)\]\.(\w+)", path)
    if choice:
        c = next((c for c in data["calamities"] if c["index"] == int(choice.group(1))), None)
        what = f"{c['victim']}'s {c['calamity']}" if c else f"calamity {int(choice.group(1)) + 1}"
        if choice.group(2) == "secondary":
            return f"to whom {what} passes its secondary losses (calamities[{choice.group(1)}].secondary)"
        return f"whom {what} names as {name_words(choice.group(2))} (calamities[{choice.group(1)}].{choice.group(2)})"
    border = re.fullmatch(r"borders\.(\w+)", path)
    if border:
        return f"which players are {name_words(border.group(1))} neighbours (borders.{border.group(1)})"
    return name_words(path)


def _print_limits(rb, phase, data: dict) -> None:
    """The head of the answer: how many calamities are resolved, those the limits discard, the
    order of resolution and the phase's notes."""
    kept = len(phase.resolved)
    echo(f"Calamity phase of {len(data['players'])} player{'' if len(data['players']) == 1 else 's'}: {kept} calamit{'y' if kept == 1 else 'ies'} resolved"
         + (f", {len(data['discarded'])} discarded" if data["discarded"] else ""))
    for d in data["discarded"]:
        echo(f"  discarded: {d['victim']}'s {d['calamity']} ({DISCARD_WHY[d['why']]}){_where(rb, 'discard')}")
    from ..vocabulary import RESOLUTION_ORDER_WORDS

    order = rb.module.TABLE_RULES["order"]
    echo(f"  order: {'; '.join(RESOLUTION_ORDER_WORDS.get(o, o) for o in order)}{_where(rb, 'order')}")
    for n in data["notes"]:
        echo(f"  note: {n}")


def _print_calamity(rb, i: int, c: dict, describe) -> None:
    """One resolved calamity: its victim, beneficiary, and what each victim suffers."""
    cal = rb.calamities[c["calamity"]]
    traded = f", traded by {c['traded_by']}" if c["traded_by"] else ""
    echo("")
    echo(f"{i}. {c['calamity']} ({cal['class']}, stack {cal['stack']}) \u2014 {c['victim']}{traded}")
    b = c["beneficiary"]
    if b is not None:
        echo(f"   beneficiary: {b['name'] or '?'} ({b['why']})")
    _victim(c["victim"], "primary victim", c["primary"], describe)
    for s in c["secondary"]:
        assigned = f", assigned {s['assigned']}" if s["assigned"] is not None else ""
        _victim(s["player"], f"secondary victim{assigned}", s, describe)
    for n in c["notes"]:
        echo(f"   note: {n}")


def _outcome_text(part: dict, describe) -> str:
    """A player's part in one calamity, in a few words."""
    if part["role"] == "beneficiary":
        return f"beneficiary of {part['calamity']}"
    if part["cancelled"]:
        return f"{part['calamity']} ({part['role']}): cancelled"
    effects = "; ".join(filter(None, (describe(e) for e in part["effects"] if e["kind"] != "cancelled")))
    return f"{part['calamity']} ({part['role']}): {effects or 'nothing'}"


def _victim(name: str, role: str, r: dict, describe) -> None:
    echo(f"   {name} ({role}):")
    if r.get("excluded"):
        echo(f"     may not be a secondary victim: {r['excluded']['why']}")
    if r["cancelled"]:
        why = r.get("cancel_reason", {})
        echo(f"     {why.get('why', 'cancelled')}  [{why.get('path')}:{why.get('line')}]")
        return
    _victim_losses(r, describe)


def _victim_losses(r: dict, describe) -> None:
    """What a victim whose calamity is not cancelled suffers: the effects, the modifiers' trace
    and the rules the answer cannot decide."""
    texts = [t for t in (describe(e) for e in r["effects"]) if t]
    for t in texts or ["nothing"]:
        echo(f"     {t}")
    for t in r["trace"]:
        echo(_trace_line(t))
    for u in r.get("undecided", ()):
        echo(f"     undecided: {u['what']} (depends on {', '.join(_depends_words(d) for d in u['depends_on'])})"
             f"  [{u['path']}:{u['line']}]")


def _depends_words(fact: str) -> str:
    """A fact a rule depends on, in words: another player's as "P2's cities in stock"."""
    from ..phrases import name_words

    who, _, name = fact.rpartition(".")
    return f"{who.removeprefix('players.')}'s {name_words(name)}" if who else f"the {name_words(fact)}"


def _trace_line(t: dict) -> str:
    """One step of a victim's trace: the modifier, who caused it, the amount before and after."""
    before, after = ("?" if t[k] is None else t[k] for k in ("before", "after"))
    value = "" if t["value"] is None else t["value"]
    by = ", ".join(t["by"]) or "rule"
    if t["op"] == "floor":
        return f"       never below zero: {before} \u2192 {after}  [{t['path']}:{t['line']}]"
    return f"       {t['op']} {value} {by}: {before} \u2192 {after}  [{t['path']}:{t['line']}]"
