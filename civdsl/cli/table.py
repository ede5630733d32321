"""`civdsl table`: the calamity phase for every player at once (issue 13 §3). Opens the compiled
rulebook, loads the table file (each player through the state loader), resolves the phase with
the edition's declared rules (civdsl/table_phase.py) and prints each calamity with its trace and
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
    from ..table_phase import resolve_phase

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
        sys.exit(0 if data["complete"] else 1)
    _print(rb, phase, data)
    if not data["complete"]:
        sys.exit(1)


def _where(rb, setting: str) -> str:
    line = rb.module.TABLE_RULES["lines"].get(setting)
    return f"  [{rb.module.SOURCE_PATH}:{line}]" if line else ""


def _print(rb, phase, data: dict) -> None:
    from .questions import _describe_effect

    rules = rb.module.TABLE_RULES
    kept = len(phase.resolved)
    echo(f"Calamity phase of {len(data['players'])} players: {kept} calamit{'y' if kept == 1 else 'ies'} resolved"
         + (f", {len(data['discarded'])} discarded" if data["discarded"] else ""))
    for d in data["discarded"]:
        how = {"duplicate": "one of two of the same name", "random": "at random, over the limits",
               "highest_stack": "the highest stack, over the limits"}[d["why"]]
        echo(f"  discarded: {d['victim']}'s {d['calamity']} ({how}){_where(rb, 'discard')}")
    echo(f"  order: {', '.join(o.replace('_', ' ') for o in rules['order'])}{_where(rb, 'order')}")
    for n in data["notes"]:
        echo(f"  note: {n}")
    for i, c in enumerate(data["calamities"], 1):
        cal = rb.calamities[c["calamity"]]
        traded = f", traded by {c['traded_by']}" if c["traded_by"] else ""
        echo("")
        echo(f"{i}. {c['calamity']} ({cal['class']}, stack {cal['stack']}) \u2014 {c['victim']}{traded}")
        b = c["beneficiary"]
        if b is not None:
            echo(f"   beneficiary: {b['name'] or '?'} ({b['why']})")
        _victim(c["victim"], "primary victim", c["primary"], _describe_effect)
        for s in c["secondary"]:
            assigned = f", assigned {s['assigned']}" if s["assigned"] is not None else ""
            _victim(s["player"], f"secondary victim{assigned}", s, _describe_effect)
        for n in c["notes"]:
            echo(f"   note: {n}")
    echo("")
    echo("Outcome by player")
    for name, parts in data["outcomes"].items():
        if not parts:
            echo(f"  {name}: nothing")
            continue
        said = []
        for p in parts:
            if p["role"] == "beneficiary":
                said.append(f"beneficiary of {p['calamity']}")
                continue
            effects = "; ".join(filter(None, (_describe_effect(e) for e in p["effects"] if e["kind"] != "cancelled")))
            what = "cancelled" if p["cancelled"] else (effects or "nothing")
            said.append(f"{p['calamity']} ({p['role']}): {what}")
        echo(f"  {name}: " + " | ".join(said))
    if data["missing_facts"]:
        echo(f"incomplete: the table does not give {', '.join(data['missing_facts'])}")


def _victim(name: str, role: str, r: dict, describe) -> None:
    echo(f"   {name} ({role}):")
    if r.get("excluded"):
        echo(f"     may not be a secondary victim: {r['excluded']['why']}")
    if r["cancelled"]:
        why = r.get("cancel_reason", {})
        echo(f"     {why.get('why', 'cancelled')}  [{why.get('path')}:{why.get('line')}]")
        return
    texts = [t for t in (describe(e) for e in r["effects"]) if t]
    for t in texts or ["nothing"]:
        echo(f"     {t}")
    for t in r["trace"]:
        before, after = ("?" if t[k] is None else t[k] for k in ("before", "after"))
        by = ", ".join(t["by"]) or "rule"
        echo(f"       {t['op']} {t['value'] if t['value'] is not None else ''} {by}: {before} \u2192 {after}  "
             f"[{t['path']}:{t['line']}]")
    for u in r.get("undecided", ()):
        echo(f"     undecided: {u['what']} (depends on {', '.join(u['depends_on'])})  [{u['path']}:{u['line']}]")
