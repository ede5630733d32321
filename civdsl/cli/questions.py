"""Answers for a player at the table: `resolve`, `cost`, `epoch`, `score` and `hand`. Each opens a
compiled rulebook (from the cache when current, so the parser is never imported) and prints
the engine's answer as text or JSON."""

from __future__ import annotations

import sys

import click

from .common import emit_json as _emit_json
from .common import facts as _facts
from .common import open_rulebook as _open


def _describe_effect(e: dict) -> str:
    kind = e["kind"]
    args = {k: v for k, v in e.items() if k != "kind"}
    from ..phrases import effect_text

    return effect_text(kind, args)


@click.command()
@click.argument("rulebook")
@click.argument("calamity")
@click.option("--role", type=click.Choice(["primary", "secondary"]), default="primary", show_default=True)
@click.option("--holds", help='Advances held, comma-separated: "Pottery,Calendar".')
@click.option("--state", "state_file", type=click.Path(dir_okay=False), help="Player state (YAML).")
@click.option("--set", "sets", multiple=True, help="A fact, key=value (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def resolve(rulebook, calamity, role, holds, state_file, sets, as_json):
    """What CALAMITY does to a victim, after every modifier, with a trace."""
    from ..state import split_names

    rb = _open(rulebook)
    r = rb.resolve(calamity, role, split_names(holds), _facts(state_file, sets))
    data = r.to_dict()
    if as_json:
        _emit_json(data)
        return
    held = ", ".join(r.state.held) or "no advances"
    click.echo(f"{r.calamity} ({rb.calamities[r.calamity]['class']}, stack {rb.calamities[r.calamity]['stack']}) "
               f"\u2014 {role} victim holding {held}")
    if data.get("excluded"):
        x = data["excluded"]
        click.echo(f"  may not be chosen as a secondary victim: {x['why']}  [{x['path']}:{x['line']}]")
    if data["cancelled"]:
        why = data.get("cancel_reason", {})
        click.echo(f"  cancelled: {why.get('why', '')}  [{why.get('path')}:{why.get('line')}]")
    else:
        # an effect brought down to zero is no clause (the trace shows what prevented it)
        for text in filter(None, (_describe_effect(e) for e in data["effects"])):
            click.echo(f"  {text}")
    for t in data["trace"]:
        sign = {"add": "+", "prevent": "-", "set": "=", "cap": "<="}.get(t["op"], t["op"])
        by = ", ".join(t["by"]) or "rule"
        change = f"{t['kind']} {t['before']} -> {t['after']}" if t.get("param") else t["op"]
        click.echo(f"    {sign}{t['value'] if t['value'] is not None else ''} {by}: {change}  [{t['path']}:{t['line']}]")
    s = data.get("secondary")
    effects = "; ".join(filter(None, (_describe_effect(e) for e in s["effects"]))) if s else ""
    if s and effects and s["count"] != 0 and not data["cancelled"]:
        if s["share"] is not None:
            click.echo(f"  assigns {s['share']} in total among other players (at most per player: {effects})")
        else:
            click.echo(f"  assigns to {s['count']} other player{'s' if s['count'] != 1 else ''}: {effects} each")
    for o in data["options"]:
        from .. import vocabulary

        kind = vocabulary.EFFECT_KINDS.get(o["instead_of"])
        words = (kind.noun(None) if kind else None) or (o["instead_of"].replace("_", " "),) * 2
        instead = f"per {words[0]} instead" if o["each"] else f"instead of the {words[1]}"
        by = f" ({', '.join(o['by'])})" if o["by"] else ""
        click.echo(f"  option{by}: {_describe_effect({'kind': o['kind'], **o['args']})} {instead}")
    if data["missing_facts"]:
        from ..phrases import name_words

        said = ", ".join(name_words(f) for f in data["missing_facts"])
        sets = " ".join(f"--set {f}=N" for f in data["missing_facts"])
        click.echo(f"  incomplete: the state does not say how many {said} (pass {sets}, or a --state file)")
        sys.exit(1)


@click.command()
@click.argument("rulebook")
@click.option("--holds", help="Advances held before this turn.")
@click.option("--buy", required=True, help="Advances to buy this turn.")
@click.option("--state", "state_file", type=click.Path(dir_okay=False))
@click.option("--set", "sets", multiple=True)
@click.option("--json", "as_json", is_flag=True)
def cost(rulebook, holds, buy, state_file, sets, as_json):
    """Price of each advance to buy after credits, with a breakdown and the total."""
    from ..state import split_names

    rb = _open(rulebook)
    data = rb.cost(split_names(holds), split_names(buy), _facts(state_file, sets))
    if as_json:
        _emit_json(data)
        return
    for row in data["items"]:
        if row["price"] is None:
            click.echo(f"{row['advance']}: price unknown ({row['note']})")
            continue
        click.echo(f"{row['advance']}: {row['price']}  (printed {row['printed']})")
        for c in row["credits"]:
            click.echo(f"    -{c['amount']} {c['from']}")
    total = data["total"] if data["total"] is not None else "unknown"
    click.echo(f"total: {total}  (credit policy: {data['policy']}; treasury counts {data['treasury_value']} per token)")


@click.command()
@click.argument("rulebook")
@click.option("--ast", "track", help="A.S.T. track (default: every track).")
@click.option("--holds")
@click.option("--state", "state_file", type=click.Path(dir_okay=False))
@click.option("--set", "sets", multiple=True)
@click.option("--json", "as_json", is_flag=True)
def epoch(rulebook, track, holds, state_file, sets, as_json):
    """Where your marker is and what the next space needs; or each epoch's requirements.

    With `civilization` and `ast_position` in the state, the answer is for your own row: the
    space and epoch you are on, what moving one space forward needs with your count for every
    requirement, and whether the marker moves forward, stays or moves back."""
    from ..state import split_names

    rb = _open(rulebook)
    data = rb.epochs(track, split_names(holds), _facts(state_file, sets))
    if as_json:
        _emit_json(data)
        return
    for t in data:
        m = t.get("marker")
        if m is not None and m["epoch"] is not None:
            _marker(t, m)
        else:
            if m is not None:
                click.echo(f"{t['name']}: the epoch of your marker is not known: {m['unknown']}")
            click.echo(f"{t['name']}: reached {t['reached'] or 'no epoch'}")
            for e in t["epochs"]:
                click.echo(f"  [{'x' if e['met'] else ' '}] {e['epoch']}")
                for r in e["requirements"]:
                    click.echo(f"        {'ok ' if r['met'] else 'no '} {_requirement(r)}")
            if t["moves_backward"]:
                click.echo("  the marker moves back a step")
        if t["missing_facts"]:
            click.echo(f"  incomplete: the state does not give {', '.join(t['missing_facts'])}")


def _count(r: dict) -> str:
    if r["needs"] == "true":
        return f"{r['requirement']} {'yes' if r['value'] else 'no'}"
    return f"{r['requirement']} {r['value']} (needs {r['needs']})"


def _requirement(r: dict) -> str:
    """A requirement with the player's count; an "or" shows the count of every alternative."""
    if "alternatives" in r:
        alts = [" and ".join(_count(p) for p in alt) for alt in r["alternatives"]]
        return f"{r['requirement']}: either " + ", or ".join(alts)
    if r["needs"] == "true":
        return f"{r['requirement']}: {'yes' if r['value'] else 'no'}"
    return f"{r['requirement']}: {r['value']} (needs {r['needs']})"


def _marker(t: dict, m: dict) -> None:
    who = f" ({m['civilization']})" if m["civilization"] else ""
    click.echo(f"{t['name']}{who}")
    here = f"your marker is on space {m['space']} ({m['epoch']})"
    if m["next_space"] is None:
        click.echo(f"  {here}: the finish")
    else:
        click.echo(f"  {here}; to move to space {m['next_space']} ({m['next_epoch']}) you need:")
        for r in m["needs"]:
            click.echo(f"    {'ok ' if r['met'] else 'no '} {_requirement(r)}")
        if not m["needs"]:
            click.echo("    nothing")
        if m["meets"]:
            click.echo("  you meet it")
        else:
            click.echo("  you lack " + ", ".join(r["requirement"] for r in m["needs"] if not r["met"]))
    if m["move"] == "back":
        why = "; ".join(r["requirement"] for r in m["back_rules"])
        click.echo(f"  the marker moves back to space {m['back_to']} ({why})")
    elif m["move"] == "forward":
        click.echo(f"  the marker moves to space {m['next_space']}")
    elif m["move"] == "stays":
        click.echo(f"  the marker stays on space {m['space']}")
    if m.get("backward_exempt") and any(b["met"] for b in t["backward_rules"]):
        click.echo(f"  no step back in the {m['epoch']}")


@click.command()
@click.argument("rulebook")
@click.option("--holds")
@click.option("--state", "state_file", type=click.Path(dir_okay=False))
@click.option("--set", "sets", multiple=True)
@click.option("--json", "as_json", is_flag=True)
def score(rulebook, holds, state_file, sets, as_json):
    """Victory points and tie-breakers for one player."""
    from ..state import split_names

    rb = _open(rulebook)
    data = rb.score(split_names(holds), _facts(state_file, sets))
    if as_json:
        _emit_json(data)
        return
    for p in data["points"]:
        if "ast_space" in p:  # the marker's space and what it is worth
            click.echo(f"{p['label']}: space {p['ast_space']}, {p['points']} points")
        else:
            click.echo(f"{p['label']}: {p['points']}")
    click.echo(f"total: {data['total']}")
    for t in data["tiebreaks"]:
        click.echo(f"  tie-break {t['label']}: {t['value']}")
    if data["missing_facts"]:
        click.echo(f"incomplete: the state does not give {', '.join(data['missing_facts'])}")


@click.command()
@click.argument("rulebook")
@click.option("--cards", required=True, help='Commodity cards: "Grain x3, Salt x2, Oil".')
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def hand(rulebook, cards, as_json):
    """The value of a hand of commodity cards: each set, worthless cards and the total."""
    from ..planner import hand_report, parse_cards, render_hand

    rb = _open(rulebook)
    report = hand_report(rb.module, parse_cards(rb.module, cards))
    if as_json:
        _emit_json(report)
    else:
        click.echo(render_hand(report, rb.name))
