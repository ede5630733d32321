"""Answers for a player at the table: `resolve`, `cost`, `epoch`, `score` and `hand`. Each opens a
compiled rulebook (from the cache when current, so the parser is never imported) and prints
the engine's answer as text or JSON."""

from __future__ import annotations

import sys

import click

from .common import HOLDS_HELP, PLAYER_HELP, SET_HELP, STATE_HELP, command
from .common import emit_json as _emit_json
from .common import facts as _facts
from .common import is_game_file as _is_game_file
from .common import game_question as _game_question
from .common import open_rulebook as _open
from .common import option_switch as _option_switch


# what an answer's effect says about how it was met, beside the effect's own arguments
_EFFECT_DETAILS = ("kind", "depends_on", "bound", "taken", "loss", "discard", "select", "support")


def _describe_effect(e: dict) -> str:
    """One effect of an answer in words, with how the player meets it."""
    from ..phrases import effect_text

    kind = e["kind"]
    args = _effect_args(e)
    select = e.get("select")
    if select is not None:  # select, then unselect: the rest are taken
        args["amount"] = select["selected"]
        return (f"{effect_text(kind, args)}: {select['selected']} selected, {select['unselected']} unselected, "
                f"{e['taken']} taken")
    taken = e.get("taken")
    if taken is not None and taken != e.get("amount"):  # nothing beyond what the player has
        args["amount"] = taken
        return f"{effect_text(kind, args)} (the rule demands {e['amount']}; you have only {taken})"
    return effect_text(kind, args) + "".join(note(e[key]) for key, note in _EFFECT_NOTES.items() if e.get(key))


def _effect_args(e: dict) -> dict:
    """The effect's own arguments, as the phrases take them: `?` for a number not known."""
    return {k: ("?" if v is None else v) for k, v in e.items() if k not in _EFFECT_DETAILS}


def _loss_note(loss: dict) -> str:
    """Met exactly, or exceeded by as little as possible."""
    from ..phrases import counted

    over = f", {loss['over']} over" if loss["over"] else ", exactly"
    return f" (lose {counted(loss['cities'], ('city', 'cities'))} and {counted(loss['tokens'], ('token', 'tokens'))}{over})"


def _support_note(support: dict) -> str:
    """Reduce until supported: the check at the changed rate."""
    from ..phrases import counted

    return (f" (support {support['rate']} tokens per city, {support['withheld']} withheld: reduce "
            f"{counted(support['reduced'], ('city', 'cities'))}, {support['cities_left']} left)")


def _discard_note(discard: dict) -> str:
    """Discard by value: the least excess."""
    which = ", ".join(f"{name} x{n}" for name, n in discard["cards"].items()) or "nothing"
    return f" (discard {which}: face value {discard['face_value']})"


def _depends_note(names: list) -> str:
    """A number the answer cannot know: it needs facts not given."""
    return f" (? depends on {_facts_words(names)}, not given)"


# the notes after an effect, in this order, each where the effect has that detail
_EFFECT_NOTES = {"loss": _loss_note, "support": _support_note, "discard": _discard_note, "depends_on": _depends_note}


def _facts_words(names) -> str:
    """Facts in the words the vocabulary declares, as the charts say them."""
    from ..phrases import name_words

    return "the " + ", ".join(name_words(f) for f in names)


def _exit_if_incomplete(data) -> None:
    """An answer that depends on a fact the user did not give exits 1, in text and JSON alike."""
    answers = data if isinstance(data, list) else [data]
    if any(a.get("missing_facts") for a in answers):
        sys.exit(1)


def _undecided(data: dict) -> None:
    for u in data.get("undecided", ()):
        click.echo(f"  undecided: {u['what']} depends on {_facts_words(u['depends_on'])}  "
                   f"[{u['path']}:{u['line']}]")


@command()
@click.argument("rulebook")
@click.argument("calamity")
@click.option("--role", type=click.Choice(["primary", "secondary"]), default="primary", show_default=True,
              help="The victim asked about: the primary victim or a secondary one.")
@click.option("--holds", help=HOLDS_HELP)
@click.option("--state", "state_file", type=click.Path(dir_okay=False), help=STATE_HELP)
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help=SET_HELP)
@click.option("--assigned", type=click.IntRange(0, None), metavar="N",
              help="With --role secondary: the amount the primary victim assigned to this victim.")
@click.option("--player", help=PLAYER_HELP)
@_option_switch
def resolve(rulebook, calamity, role, holds, state_file, sets, assigned, player, options, as_json):
    """What CALAMITY does to a victim, after every modifier, with a trace. RULEBOOK may be a game
    file (`civdsl game new`): its own rulebook, and the state of --player in it."""
    from ..state import split_names

    rulebook, state_file = _game_question(rulebook, state_file)
    rb = _open(rulebook)
    r = rb.resolve(calamity, role, split_names(holds), _facts(state_file, sets, options, player, rb), assigned=assigned)
    data = r.to_dict()
    if as_json:
        _emit_json(data, rb.id)
        _exit_if_incomplete(data)
        return
    held = ", ".join(r.state.held) or "no advances"
    click.echo(f"{r.calamity} ({rb.calamities[r.calamity]['class']}, stack {rb.calamities[r.calamity]['stack']}) "
               f"\u2014 {role} victim holding {held}")
    _outcome(data)
    for line in _trace_lines(data["trace"]):
        click.echo(line)
    _undecided(data)
    _secondary(data)
    for o in data["options"]:
        click.echo(_option_line(o))
    if data["missing_facts"]:
        click.echo(_incomplete(data["missing_facts"]))
        sys.exit(1)


def _outcome(data: dict) -> None:
    """Whether the victim may be chosen, and what the calamity does or why it is cancelled."""
    if data.get("excluded"):
        x = data["excluded"]
        click.echo(f"  may not be chosen as a secondary victim: {x['why']}  [{x['path']}:{x['line']}]")
    if data["cancelled"]:
        why = data.get("cancel_reason", {})
        click.echo(f"  cancelled: {why.get('why', '')}  [{why.get('path')}:{why.get('line')}]")
        return
    # an effect brought down to zero is no clause: one line says so (the trace shows what prevented it)
    for e in data["effects"]:
        text = _describe_effect(e)
        if text:
            click.echo(f"  {text}")
        elif e.get("amount") == 0:
            by = list(dict.fromkeys(b for t in data["trace"] if t["kind"] == e["kind"] and t["op"] != "floor"
                                    for b in t["by"]))
            if by:
                click.echo(f"  no {_trace_what({'kind': e['kind'], 'param': None})}: "
                           f"{', '.join(by)} bring{'s' if len(by) == 1 else ''} it to 0")


# how the trace shows each kind of change before its value
_TRACE_SIGN = {"add": "+", "prevent": "\u2212", "set": "=", "cap": "at most ", "undecided": "?"}


def _trace_lines(trace: list[dict]) -> list[str]:
    """The trace's steps; a step the floor then raises to zero is shown with the floor's 0 (never a
    negative amount), and a floor step on its own says "never below zero"."""
    out = []
    for i, t in enumerate(trace):
        if t["op"] == "floor" and i and _floors(trace[i - 1], t):
            continue
        step = dict(t, after=0, floored=True) if i + 1 < len(trace) and _floors(t, trace[i + 1]) else t
        out.append(_trace_line(step))
    return out


def _floors(t: dict, after: dict) -> bool:
    """Whether step AFTER is the floor raising what step T left below zero."""
    return (after["op"] == "floor" and t["op"] != "floor" and (t["kind"], t["param"]) == (after["kind"], after["param"])
            and t["after"] == after["before"])


def _trace_line(t: dict) -> str:
    """One step of the trace: the change, who made it and where the rule is."""
    from ..phrases import name_words

    before, after = (_value(t[k]) for k in ("before", "after"))
    where = f"[{t['path']}:{t['line']}]"
    if t["op"] == "bound":  # nothing beyond what the player has: by names the bounding fact
        held = name_words(t["by"][0]) if t["by"] else "of it"
        return f"    you have only {t['value']} {held}: {_trace_what(t)} {before} \u2192 {after}  {where}"
    if t["op"] == "floor":
        return f"    never below zero: {_trace_what(t)} {before} \u2192 {after}  {where}"
    change = f"{_trace_what(t)} {before} \u2192 {after}" if t.get("param") else t["op"]
    if t.get("floored"):
        change += " (never below zero)"
    if t.get("depends_on"):
        change += f" (depends on {_facts_words(t['depends_on'])})"
    value = t["value"] if t["value"] is not None else ""
    by = ", ".join(t["by"]) or "rule"
    return f"    {_TRACE_SIGN.get(t['op'], t['op'])}{value} {by}: {change}  {where}"


def _trace_what(t: dict) -> str:
    """What a trace step changes, in the vocabulary's words ("points of damage", "cities kept")."""
    from .. import vocabulary

    kind = vocabulary.EFFECT_KINDS.get(t["kind"] or "")
    words = kind.noun(t.get("param")) if kind else None
    return words[1] if words else str(t["kind"]).replace("_", " ")


def _secondary(data: dict) -> None:
    """What the primary victim passes on to other players, if anything."""
    s = data.get("secondary")
    if not s or s["count"] == 0 or data["cancelled"]:
        return
    effects = "; ".join(filter(None, (_describe_effect(e) for e in s["effects"])))
    if not effects:
        return
    from ..phrases import counted

    if s["share"] is not None:
        click.echo(f"  assigns {s['share']} in total among other players (at most per player: {effects})")
    elif s["count"] is None:  # how many depends on a fact the state does not give (named below)
        click.echo(f"  assigns to other players (how many is not known yet): {effects} each")
    else:
        click.echo(f"  assigns to {counted(s['count'], ('other player', 'other players'))}: {effects} each")


def _option_line(o: dict) -> str:
    from .. import vocabulary

    kind = vocabulary.EFFECT_KINDS.get(o["instead_of"])
    words = (kind.noun(None) if kind else None) or (o["instead_of"].replace("_", " "),) * 2
    instead = f"per {words[0]} instead" if o["each"] else f"instead of the {words[1]}"
    if o["instead_of"] == "calamity":  # `may stop with ...`: the whole calamity, for everyone
        instead = "to stop the calamity for everyone"
    by = f" ({', '.join(o['by'])})" if o["by"] else ""
    return f"  option{by}: {_describe_effect({'kind': o['kind'], **o['args']})} {instead}"


def _incomplete(missing: list) -> str:
    """The facts the answer needs and how to give them."""
    from .. import vocabulary
    from ..phrases import name_words

    # a rule asking about the other players (a table query) is answered only at a table
    table = "  incomplete: the rule asks about the other players at the table (ask civdsl table with a table file)"
    mine = [f for f in missing if f in vocabulary.FACTS]
    if not mine:
        return table
    said = ", ".join(name_words(f) for f in mine)
    line = f"  incomplete: the state does not say how many {said} (pass {_set_options(mine)}, or a --state file)"
    return line + ("\n" + table if len(mine) < len(missing) else "")


def _set_options(facts: list[str]) -> str:
    """How to give FACTS: a number or a word with --set; a hand of cards only in a state file."""
    from .. import vocabulary

    kinds = {f: vocabulary.FACTS[f].type for f in facts}
    return " ".join(f"--set {f}={'N' if t == 'int' else 'VALUE'}" for f, t in kinds.items()
                    if t not in ("map", "list")) or "the hand of cards"


@command()
@click.argument("rulebook")
@click.argument("advances", nargs=-1, metavar="[ADVANCE]...")
@click.option("--holds", help="Advances held before this turn, comma-separated (added to the state's).")
@click.option("--buy", help='Advances to buy this turn, comma-separated: "Pottery,Mysticism" (or named after RULEBOOK).')
@click.option("--trade-cards", "trade_cards", help='Trade cards to buy for treasury, by stack: "9x2,3".')
@click.option("--state", "state_file", type=click.Path(dir_okay=False), help=STATE_HELP)
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help=SET_HELP)
@click.option("--player", help=PLAYER_HELP)
@_option_switch
def cost(rulebook, advances, holds, buy, trade_cards, state_file, sets, player, options, as_json):
    """Price of each advance to buy after credits, with a breakdown and the total; or, with
    --trade-cards, the treasury price of trade cards bought from the stacks. RULEBOOK may be a game
    file (`civdsl game new`): its own rulebook, and the state of --player in it, with what the
    other players hold (an advance whose cards they all hold is sold out)."""
    from ..state import split_names
    from ..stateanswers import cost_asked

    if advances:  # `cost megaciv Agriculture "Drama and Poetry"`: each word an advance, with --buy's
        buy = ",".join(([buy] if buy else []) + list(advances))
    cost_asked(buy, trade_cards)
    rulebook, state_file = _game_question(rulebook, state_file)
    rb = _open(rulebook)
    if trade_cards:
        _trade_cards(rb, holds, trade_cards, _facts(state_file, sets, options, player, rb), as_json)
    if buy:
        _buy(rb, split_names(holds), split_names(buy), _facts(state_file, sets, options, player, rb), as_json)


def _buy(rb, holds: list[str], buy: list[str], facts: dict, as_json: bool) -> None:
    """The price of each advance to buy; exits 1 where a price is unknown or a purchase illegal."""
    data = rb.cost(holds, buy, facts)
    # a price the rules leave unknown is an incomplete answer, an illegal purchase a user error: exit 1
    incomplete = data["total"] is None or bool(data["illegal"])
    if as_json:
        _emit_json(data, rb.id)
        sys.exit(1 if incomplete else 0)
    _cost_lines(data)
    for note in data["notes"]:
        click.echo(f"note: {note}")
    _illegal(data["illegal"])
    sys.exit(1 if incomplete else 0)


def _illegal(purchases: list[dict]) -> None:
    """Each illegal purchase (the advance, where it names one, and why), on stderr."""
    for p in purchases:
        click.echo(f"illegal purchase: {p['advance'] + ': ' if p.get('advance') else ''}{p['why']}", err=True)


def _cost_lines(data: dict) -> None:
    """Each advance's price with its credits, the total and the start credits counted."""
    for row in data["items"]:
        _price_lines(row)
    for row in data["acquired"]:
        click.echo(f"{row['advance']}: 0  (printed {row['printed']}; {row['credits'][0]['from']})")
    policy = ", ".join(x.replace("_", " ") for x in [data["policy"]] + data["variants"])
    click.echo(f"total: {_known(data['total'])}  (credit policy: {policy}; treasury counts "
               f"{data['treasury_value']} per token)")
    if not data["complete"]:
        limit = data["stopped"]
        click.echo(f"the best placement of the credits found, maybe not the least (the placement search "
                   f"stopped at its limit of {limit['bound']:,} {limit['limit']}): no placement pays less than "
                   f"{data['total_at_least']}")
    sc = data["start_credits"]
    if sc and sc["per_group"]:
        used = f"; spent: {', '.join(sc['used'])}" if sc["used"] else ""
        click.echo(f"start credits: {sc['per_group']} of every group, counted in the group credits above{used}")


def _price_lines(row: dict) -> None:
    """An advance's price and each credit taken off it."""
    if row["price"] is None:
        click.echo(f"{row['advance']}: price unknown ({row['note']})")
        return
    click.echo(f"{row['advance']}: {row['price']}  (printed {row['printed']})")
    for c in row["credits"]:
        click.echo(f"    -{c['amount']} {c['from']}")


def _stacks(text: str) -> list[int]:
    """ "9x2, 3" -> [9, 9, 3]"""
    from ..stateanswers import trade_card_stacks

    return trade_card_stacks(text)


def _trade_cards(rb, holds, text: str, facts: dict, as_json: bool) -> None:
    from ..state import split_names

    data = rb.trade_cards(_stacks(text), split_names(holds), facts)
    if as_json:
        _emit_json(data, rb.id)
    else:
        for row in data["items"]:
            if row["price"] is not None:
                click.echo(f"trade card from stack {row['stack']}: {row['price']} treasury  ({row['from']})")
        click.echo(f"total: {_known(data['total'])} treasury")
    if data["illegal"]:
        _illegal(data["illegal"])
        sys.exit(1)


@command()
@click.argument("rulebook")
@click.option("--ast", "track", is_flag=False, flag_value="", metavar="TRACK",
              help="Show one A.S.T. track (default: every track); `--ast` with no name lists the rulebook's tracks.")
@click.option("--holds", help=HOLDS_HELP)
@click.option("--state", "state_file", type=click.Path(dir_okay=False), help=STATE_HELP)
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help=SET_HELP)
@click.option("--player", help=PLAYER_HELP)
@_option_switch
def epoch(rulebook, track, holds, state_file, sets, player, options, as_json):
    """Where your marker is and what the next space needs; or each epoch's requirements.

    With `civilization` and `ast_position` in the state, the answer is for your own row: the
    space and epoch you are on, what moving one space forward needs with your count for every
    requirement, and whether the marker moves forward, stays or moves back. RULEBOOK may be a game
    file (`civdsl game new`): its own rulebook, and the state of --player in it."""
    from ..state import split_names

    rulebook, state_file = _game_question(rulebook, state_file)
    rb = _open(rulebook)
    if track == "":  # `--ast` with no name
        _list_tracks(rb, as_json)
        return
    _check_track(rb, track)
    data = rb.epochs(track, split_names(holds), _facts(state_file, sets, options, player, rb))
    incomplete = any(t["missing_facts"] for t in data)
    if as_json:
        _emit_json({"tracks": data}, rb.id)
        sys.exit(1 if incomplete else 0)
    for t in data:
        _track_answer(t)
    _exit_if_incomplete(data)


def _track_answer(t: dict) -> None:
    """One track's answer: your own row where the marker's epoch is known, else the epochs reached."""
    m = t.get("marker")
    if m is not None and m["epoch"] is not None:
        _marker(t, m)
    else:
        _epochs_reached(t, m)
    for c in t.get("counted", ()):
        click.echo(f"  {counted_text(c)}")
    if t["missing_facts"]:
        click.echo(f"  incomplete: the state does not give {', '.join(t['missing_facts'])}")


def counted_text(c: dict) -> str:
    """A fact the requirements counted with what held advances add ("counted for the A.S.T.: 2
    cities (1 given + 1 for Wonder of the World)"); the companion page says the same."""
    from ..phrases import fact_words, noun

    words = fact_words(c["fact"]) or (c["fact"], c["fact"])
    adds = "".join(f" + {a['delta']} for {a['advance']}" for a in c["adds"])
    return (f"counted for the A.S.T.: {_value(c['value'])} {noun(c['value'], words)} "
            f"({_value(c['given'])} given{adds})")


# whether the marker moves back a step (None: it depends on facts not given; no line when it stays)
_MOVES_BACK = {True: "  the marker moves back a step", None: "  whether the marker moves back is not known"}


def _epochs_reached(t: dict, m: dict | None) -> None:
    """A track without a known marker: the epochs reached and each one's requirements."""
    if m is not None:
        click.echo(f"{t['name']}: the epoch of your marker is not known: {m['unknown']}")
    click.echo(f"{t['name']}: " + (f"the requirements are met up to {t['reached']}" if t["reached"] else
                                    "no epoch's requirements are met"))
    for e in t["epochs"]:
        click.echo(f"  [{_mark(e['met'], 'x', ' ')}] {e['epoch']}")
        for r in e["requirements"]:
            click.echo(f"        {_mark(r['met'], 'ok ', 'no ')} {_requirement(r)}")
    if t["moves_backward"] in _MOVES_BACK:
        click.echo(_MOVES_BACK[t["moves_backward"]])


def _list_tracks(rb, as_json: bool) -> None:
    from ..stateanswers import track_list

    tracks = track_list(rb.module)
    if as_json:
        _emit_json({"tracks": tracks}, rb.id)
        return
    if not tracks:
        click.echo(f"{rb.name} has no A.S.T. track")
    width = max((len(t["id"]) for t in tracks), default=0)
    for t in tracks:
        click.echo(f"{t['id']:<{width}}  {t['name']}")


def _check_track(rb, track: str | None) -> None:
    """An unknown track names the closest and every valid one (statecheck.check_track)."""
    from ..statecheck import check_track

    check_track(rb.module, track)


def _known(value) -> str:
    from ..texts import known_text  # an engine module: `--help` imports none

    return known_text(value)


def _mark(met, yes: str, no: str) -> str:
    """A requirement's box: met, not met, or unknown (it needs a fact not given)."""
    return "?" + " " * (len(yes) - 1) if met is None else (yes if met else no)


def _count(r: dict) -> str:
    """One part of a requirement in words: the player's own count and what is needed
    ("1 city (at least 2 needed)", "Wonder of the World: yes")."""
    if r["needs"] == "true":
        return f"{r['requirement']}: {_yes(r['value'])}"
    from ..phrases import fact_words, noun

    words = fact_words(r["requirement"])
    if words is not None and r["value"] is not None:
        return f"{r['value']} {noun(r['value'], words)} ({_needed(r)})"
    return f"{r['requirement']}: {_value(r['value'])} ({_needed(r)})"


def _needed(r: dict) -> str:
    """What a counted requirement asks for, in words ("at least 2 needed")."""
    from ..phrases import REQUIREMENT_NEEDS  # the companion page's words too

    op, _, amount = r["needs"].partition(" ")
    return REQUIREMENT_NEEDS[op].format(amount) + " needed" if op in REQUIREMENT_NEEDS else r["needs"]


def _yes(value) -> str:
    return "?" if value is None else ("yes" if value else "no")


def _value(value) -> str:
    """A count, or `?` when it depends on a fact not given."""
    return "?" if value is None else str(value)


def _requirement(r: dict) -> str:
    """A requirement with the player's count; an "or" shows the count of every alternative."""
    if "alternatives" in r:
        alts = [" and ".join(_count(p) for p in alt) for alt in r["alternatives"]]
        return f"{r['requirement']}: either " + ", or ".join(alts)
    if r["needs"] == "true":
        return f"{r['requirement']}: {_yes(r['value'])}"
    return f"{r['requirement']}: {_value(r['value'])} ({_needed(r)})"


def _marker(t: dict, m: dict) -> None:
    """Your own row of track T: where the marker is, what the next space needs, where it goes."""
    who = f" ({m['civilization']})" if m["civilization"] else ""
    click.echo(f"{t['name']}{who}")
    here = f"your marker is on space {m['space']} ({m['epoch']})"
    if m["next_space"] is None:
        click.echo(f"  {here}: the finish")
    else:
        click.echo(f"  {here}; to move to space {m['next_space']} ({m['next_epoch']}) you need:")
        _needs(m)
    move = _MOVE.get(m["move"])
    if move:
        click.echo(move(m))
    if m.get("backward_exempt") and any(b["met"] for b in t["backward_rules"]):
        click.echo(f"  no step back in the {m['epoch']}")


def _needs(m: dict) -> None:
    """What moving one space forward needs, and whether the player meets it."""
    for r in m["needs"]:
        click.echo(f"    {_mark(r['met'], 'ok ', 'no ')} {_requirement(r)}")
    if not m["needs"]:
        click.echo("    nothing")
    if m["meets"] is False:
        click.echo("  you lack " + ", ".join(r["requirement"] for r in m["needs"] if not r["met"]))
    else:
        click.echo(_MEETS[m["meets"]])


# whether the player meets what the next space needs (None: it depends on facts not given)
_MEETS = {True: "  you meet it", None: "  whether you meet it depends on facts not given"}


def _moves_back(m: dict) -> str:
    why = "; ".join(r["requirement"] for r in m["back_rules"])
    return f"  the marker moves back to space {m['back_to']} ({why})"


# where the marker goes at the end of the turn, by the engine's word for it (no line for the others)
_MOVE = {"back": _moves_back,
         "forward": lambda m: f"  the marker moves to space {m['next_space']}",
         "stays": lambda m: f"  the marker stays on space {m['space']}"}


@command()
@click.argument("rulebook")
@click.option("--holds", help=HOLDS_HELP)
@click.option("--state", "state_file", type=click.Path(dir_okay=False), help=STATE_HELP)
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help=SET_HELP)
@click.option("--player", help=PLAYER_HELP)
@_option_switch
def score(rulebook, holds, state_file, sets, player, options, as_json):
    """Victory points and tie-breakers for one player; for every player of a game file.

    RULEBOOK may be a game file (`civdsl game new`): its own rulebook, and every player's score in
    it now, best first (--player: one player's)."""
    from ..state import split_names

    rulebook, state_file = _game_question(rulebook, state_file)
    rb = _open(rulebook)
    _require_score(rb)
    if player is None and state_file is not None and not holds and not sets and _is_game_file(state_file):
        _standings(rb, state_file, as_json)
        return
    data = rb.score(split_names(holds), _facts(state_file, sets, options, player, rb))
    if as_json:
        _emit_json(data, rb.id)
        _exit_if_incomplete(data)
        return
    for p in data["points"]:
        if "ast_space" in p:  # the marker's space and what it is worth
            click.echo(f"{p['label']}: space {_known(p['ast_space'])}, {_known(p['points'])} points")
        else:
            click.echo(f"{p['label']}: {_known(p['points'])}")
    click.echo(f"total: {_known(data['total'])}")
    for t in data["tiebreaks"]:
        click.echo(f"  tie-break {t['label']}: {_known(t['value'])}")
    if data["missing_facts"]:
        click.echo(f"incomplete: the state does not give {', '.join(data['missing_facts'])}")
    _exit_if_incomplete(data)


def _standings(rb, game_path: str, as_json: bool) -> None:
    """Every seated player's score in the game now, best first, with the tie-breakers that rank
    them (the final scores once the game is over)."""
    from ..gcpause import paused
    from ..ledger import gamefile
    from ..ledger.gameview import standing_lines
    from .common import game_error, played_with

    gf = played_with(game_path, rb)
    try:
        with paused():
            rows = gamefile.standings(rb, gf)
    except gamefile.GameFileError as exc:
        game_error(exc, game_path)
    if as_json:
        _emit_json({"players": rows}, rb.id)
    else:
        for line in standing_lines(rows):
            click.echo(line)
    if not all(r["complete"] for r in rows):  # a score that depends on facts the game does not give
        sys.exit(1)


def _require_score(rb) -> None:
    """A rulebook that declares no score lines has no score to give: say so, how its games end
    (its `end when` declarations) and, where it is played in rounds, the commands that play them,
    rather than a total of 0 (or refusing a round state's keys one by one)."""
    from ..errors import StateError

    module = rb.module
    if module.SCORE_POINTS or module.SCORE_TIEBREAKS:
        return
    ends = [text for _, text, _ in getattr(module, "ENDS", ())]
    message = f"{rb.id} declares no score"
    if ends:
        message += ": a game ends when " + " or when ".join(ends)
    if getattr(module, "PHASES", None):
        message += (f"; it is played in rounds: `civdsl step {rb.id} --state FILE` plays a round from a round "
                    f"state (round, stats, hand, ...), `civdsl simulate {rb.id}` whole games")
    raise StateError(message)


@command()
@click.argument("rulebook")
@click.option("--cards", help='Commodity cards: "Grain x3, Salt x2, Oil" (with a game file and --player, '
              "his hand when not given).")
@click.option("--holds", help="Advances held (Trade Routes, Trade Empire, ...).")
@click.option("--state", "state_file", type=click.Path(dir_okay=False),
              help="Player state (YAML): players, civilization or block for the trade-block bonus.")
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help=SET_HELP)
@click.option("--player", help=PLAYER_HELP)
@_option_switch
def hand(rulebook, cards, holds, state_file, sets, player, options, as_json):
    """The value of a hand of commodity cards: each set, worthless cards and the total; with a
    state, what the player's block and advances make of it. RULEBOOK may be a game file (`civdsl
    game new`): its own rulebook, and the state and hand of --player in it."""
    from ..plan import hand_report, parse_cards, render_hand
    from ..factchecks import hand_limits
    from ..state import StateError, split_names

    rulebook, state_file = _game_question(rulebook, state_file)
    rb = _open(rulebook)
    asked = holds or state_file or sets or options or player
    facts = _facts(state_file, sets, options, player, rb) if asked else None
    if cards is None:
        if player is None:
            raise click.UsageError("give --cards, or a game file and --player for his hand")
        cards = _hand_of(rb.module, facts.get("commodities", {}))
    calamities: dict = {}  # calamity cards held, where the edition values them (calamity_card_value)
    parsed = parse_cards(rb.module, cards, calamities)
    impossible = hand_limits(parsed, rb.module.COMMODITIES, "--cards")
    if impossible:
        raise StateError("\n".join(impossible))
    state = None
    if facts is not None:
        state = rb.state(split_names(holds), facts)
    from ..sourcemap import rules_of

    with rules_of(rb.module):  # a rule failing on this hand is a diagnostic at its rulebook line
        report = hand_report(rb.module, parsed, state, calamities)
    if as_json:
        _emit_json(report, rb.id)
    else:
        click.echo(render_hand(report, rb.name))
        _hand_extras(report)
    _exit_if_incomplete(report)


def _hand_of(module, held: dict) -> str:
    """A game player's cards as `--cards` writes them: the calamity cards among them only where the
    edition values them in a hand (`calamity_card_value`)."""
    valued = "calamity_card_value" in module.CONSTS
    return ", ".join(f"{name} x{n}" for name, n in held.items() if n and (valued or name not in module.CALAMITIES))


def _hand_extras(report: dict) -> None:
    """What the player's state makes of the hand beyond its sets: treasury, a substitute card, a missing fact."""
    for row in report["sets"]:
        if "treasury" in row:
            click.echo(f"  as treasury ({row['treasury_from']}): {row['commodity']} x{row['cards']} -> "
                       f"{row['treasury']} tokens")
    sub = report.get("substitution")
    if sub:
        click.echo(f"  {sub['from']}: one {sub['substitute']} card completes {sub['set']} "
                   f"(set worth {sub['value']}; the hand gains {sub['gain']})")
    if report.get("missing_facts"):
        click.echo(f"incomplete: the state does not give {', '.join(report['missing_facts'])} "
                   f"(a set redeemed outside its trade block may be worth more)")
