"""Answers for a player at the table: `resolve`, `cost`, `epoch`, `score` and `hand`. Each opens a
compiled rulebook (from the cache when current, so the parser is never imported) and prints
the engine's answer as text or JSON."""

from __future__ import annotations

import sys

import click

from .common import HOLDS_HELP, SET_HELP, STATE_HELP, command
from .common import emit_json as _emit_json
from .common import facts as _facts
from .common import open_rulebook as _open


def _describe_effect(e: dict) -> str:
    kind = e["kind"]
    args = {k: v for k, v in e.items() if k != "kind"}
    from ..phrases import effect_text

    return effect_text(kind, args)


@command()
@click.argument("rulebook")
@click.argument("calamity")
@click.option("--role", type=click.Choice(["primary", "secondary"]), default="primary", show_default=True,
              help="The victim asked about: the primary victim or a secondary one.")
@click.option("--holds", help=HOLDS_HELP)
@click.option("--state", "state_file", type=click.Path(dir_okay=False), help=STATE_HELP)
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help=SET_HELP)
def resolve(rulebook, calamity, role, holds, state_file, sets, as_json):
    """What CALAMITY does to a victim, after every modifier, with a trace."""
    from ..state import split_names

    rb = _open(rulebook)
    r = rb.resolve(calamity, role, split_names(holds), _facts(state_file, sets))
    data = r.to_dict()
    if as_json:
        _emit_json(data, rb.id)
        sys.exit(1 if data["missing_facts"] else 0)
    held = ", ".join(r.state.held) or "no advances"
    click.echo(f"{r.calamity} ({rb.calamities[r.calamity]['class']}, stack {rb.calamities[r.calamity]['stack']}) "
               f"- {role} victim holding {held}")
    if data.get("excluded"):
        x = data["excluded"]
        click.echo(f"  may not be chosen as a secondary victim: {x['why']}  [{x['path']}:{x['line']}]")
    if data["cancelled"]:
        why = data.get("cancel_reason", {})
        click.echo(f"  cancelled: {why.get('why', '')}  [{why.get('path')}:{why.get('line')}]")
    else:
        for e in data["effects"]:
            click.echo(f"  {_describe_effect(e)}")
    for t in data["trace"]:
        sign = {"add": "+", "prevent": "-", "set": "=", "cap": "<="}.get(t["op"], t["op"])
        by = ", ".join(t["by"]) or "rule"
        change = f"{t['kind']} {t['before']} -> {t['after']}" if t.get("param") else t["op"]
        click.echo(f"    {sign}{t['value'] if t['value'] is not None else ''} {by}: {change}  [{t['path']}:{t['line']}]")
    if data.get("secondary") and not data["cancelled"]:
        s = data["secondary"]
        effects = "; ".join(_describe_effect(e) for e in s["effects"])
        if s["share"] is not None:
            click.echo(f"  assigns {s['share']} in total among other players (at most per player: {effects})")
        else:
            click.echo(f"  assigns to {s['count']} other player{'s' if s['count'] != 1 else ''}: {effects} each")
    for o in data["options"]:
        each = " for each" if o["each"] else ""
        click.echo(f"  option ({', '.join(o['by'])}): {_describe_effect({'kind': o['kind'], **o['args']})} "
                   f"instead of {o['instead_of'].replace('_', ' ')}{each}")
    if data["missing_facts"]:
        click.echo(f"  incomplete: the state does not give {', '.join(data['missing_facts'])} "
                   f"(pass --set NAME=VALUE or a --state file)")
        sys.exit(1)


@command()
@click.argument("rulebook")
@click.option("--holds", help="Advances held before this turn, comma-separated (added to the state's).")
@click.option("--buy", required=True, help='Advances to buy this turn, comma-separated: "Pottery,Mysticism".')
@click.option("--state", "state_file", type=click.Path(dir_okay=False), help=STATE_HELP)
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help=SET_HELP)
def cost(rulebook, holds, buy, state_file, sets, as_json):
    """Price of each advance to buy after credits, with a breakdown and the total."""
    from ..state import split_names

    rb = _open(rulebook)
    data = rb.cost(split_names(holds), split_names(buy), _facts(state_file, sets))
    incomplete = data["total"] is None  # a price the rules leave unknown: exit 1, as missing facts do
    if as_json:
        _emit_json(data, rb.id)
        sys.exit(1 if incomplete else 0)
    for row in data["items"]:
        if row["price"] is None:
            click.echo(f"{row['advance']}: price unknown ({row['note']})")
            continue
        click.echo(f"{row['advance']}: {row['price']}  (printed {row['printed']})")
        for c in row["credits"]:
            click.echo(f"    -{c['amount']} {c['from']}")
    total = data["total"] if data["total"] is not None else "unknown"
    click.echo(f"total: {total}  (credit policy: {data['policy']}; treasury counts {data['treasury_value']} per token)")
    sys.exit(1 if incomplete else 0)


@command()
@click.argument("rulebook")
@click.option("--ast", "track", is_flag=False, flag_value="", metavar="TRACK",
              help="Show one A.S.T. track (default: every track); `--ast` with no name lists the rulebook's tracks.")
@click.option("--holds", help=HOLDS_HELP)
@click.option("--state", "state_file", type=click.Path(dir_okay=False), help=STATE_HELP)
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help=SET_HELP)
def epoch(rulebook, track, holds, state_file, sets, as_json):
    """Each epoch's requirements: met or not, and why."""
    from ..state import split_names

    rb = _open(rulebook)
    if track == "":  # `--ast` with no name
        _list_tracks(rb, as_json)
        return
    _check_track(rb, track)
    data = rb.epochs(track, split_names(holds), _facts(state_file, sets))
    incomplete = any(t["missing_facts"] for t in data)
    if as_json:
        _emit_json({"tracks": data}, rb.id)
        sys.exit(1 if incomplete else 0)
    for t in data:
        click.echo(f"{t['name']}: reached {t['reached'] or 'no epoch'}")
        for e in t["epochs"]:
            click.echo(f"  [{'x' if e['met'] else ' '}] {e['epoch']}")
            for r in e["requirements"]:
                detail = "" if r["needs"] == "true" else f": {r['value']} (needs {r['needs']})"
                click.echo(f"        {'ok ' if r['met'] else 'no '} {r['requirement']}{detail}")
        if t["moves_backward"]:
            click.echo("  the marker moves back a step")
        if t["missing_facts"]:
            click.echo(f"  incomplete: the state does not give {', '.join(t['missing_facts'])}")
    sys.exit(1 if incomplete else 0)


def _list_tracks(rb, as_json: bool) -> None:
    tracks = [{"id": k, "name": v["name"]} for k, v in rb.module.AST.items()]
    if as_json:
        _emit_json({"tracks": tracks}, rb.id)
        return
    if not tracks:
        click.echo(f"{rb.name} has no A.S.T. track")
    width = max((len(t["id"]) for t in tracks), default=0)
    for t in tracks:
        click.echo(f"{t['id']:<{width}}  {t['name']}")


def _check_track(rb, track: str | None) -> None:
    """An unknown track names the closest and every valid one."""
    if track is None or track in rb.module.AST:
        return
    from ..diagnostics import did_you_mean
    from ..errors import StateError

    valid = list(rb.module.AST)
    best = did_you_mean(track, valid)
    hint = f" (did you mean `{best}`?)" if best and best != track else ""
    listing = ", ".join(f"`{t}`" for t in valid) if valid else "none"
    raise StateError(f"--ast: unknown A.S.T. track `{track}`{hint}; {rb.id} has: {listing}")


@command()
@click.argument("rulebook")
@click.option("--holds", help=HOLDS_HELP)
@click.option("--state", "state_file", type=click.Path(dir_okay=False), help=STATE_HELP)
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help=SET_HELP)
def score(rulebook, holds, state_file, sets, as_json):
    """Victory points and tie-breakers for one player."""
    from ..state import split_names

    rb = _open(rulebook)
    data = rb.score(split_names(holds), _facts(state_file, sets))
    if as_json:
        _emit_json(data, rb.id)
        sys.exit(1 if data["missing_facts"] else 0)
    for p in data["points"]:
        click.echo(f"{p['label']}: {p['points']}")
    click.echo(f"total: {data['total']}")
    for t in data["tiebreaks"]:
        click.echo(f"  tie-break {t['label']}: {t['value']}")
    if data["missing_facts"]:
        click.echo(f"incomplete: the state does not give {', '.join(data['missing_facts'])}")
        sys.exit(1)


@command()
@click.argument("rulebook")
@click.option("--cards", required=True, help='Commodity cards: "Grain x3, Salt x2, Oil".')
def hand(rulebook, cards, as_json):
    """The value of a hand of commodity cards: each set, worthless cards and the total."""
    from ..planner import hand_report, parse_cards, render_hand

    rb = _open(rulebook)
    report = hand_report(rb.module, parse_cards(rb.module, cards))
    if as_json:
        _emit_json(report, rb.id)
    else:
        click.echo(render_hand(report, rb.name))
