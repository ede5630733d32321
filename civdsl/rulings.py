"""Rulings: a rulebook's worked examples and community answers, run against its compiled rules.

A ruling's block is a list of calls, written in the rulebook's own call syntax:

    ruling music_credit "Holding Mysticism, what does Music cost?" {
      player(holds("Mysticism"), treasury=10, cards("Grain", 3))   # the situation
      cost("Music")                                                 # the question
      expect(price("Music") == 55)                                   # the answer
      cite("17.5")                                                   # where the answer comes from
    }

The situation is one player (`player(...)`: advances held, cards in hand, credit points and any
player fact), or the players of a table (`player("anna", ...)` several times, with `border`,
`secondary` and the table question); `option(NAME=on)` switches a declared rule option. The
question is one of QUESTIONS; `expect` compares the answer's values (ANSWERS) with literals;
`cite` names the printed paragraph, an errata card (`cite(errata="...")`) or an FAQ entry
(`cite(faq="...")`). Everything a ruling says is read here (`read`), so that a mistake in one is
a located diagnostic (CIV181), and run (`run`) on the compiled module, which is cheap: the
generated functions answer in microseconds.

`check` reports a ruling whose answer differs (CIV180 for the rulebook's own rulings; CIV182,
a warning, for a ruling a house rule inherits and changes the answer of, unless the house rule
says `overrules NAME "why"`; CIV183 for an `overrules` that names no inherited ruling or whose
ruling still gives its answer).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import vocabulary as vocab
from .diagnostics import Diagnostics, Span, suggestion
from .errors import RulebookRuntimeError, StateError
from .model import Edition, Ruling
from .syntax import BinOp, Bool, Call, Name, Neg, Num, Str, Unknown

# The questions a ruling may ask: the call's word -> (what it asks, in words; its keyword arguments).
QUESTIONS = {
    "resolve": ("what a calamity does to the player", ("role", "assigned")),
    "cost": ("the price of the advances bought", ()),
    "epoch": ("where the player stands on an A.S.T. track", ()),
    "score": ("the player's victory points", ()),
    "hand": ("the value of the player's cards", ()),
    "table": ("the calamity phase of a table", ("victim", "traded_by", "beneficiary")),
}
# The situation and the rest of a ruling's block.
OTHER_CALLS = ("player", "option", "border", "secondary", "expect", "cite")
# How two players of a table may border each other (a table file's `borders`).
BORDER_KINDS = ("land", "water", "near")
# What a citation may name: a paragraph of the printed rules (no keyword), an errata card, an FAQ entry.
CITATION_KINDS = ("errata", "faq")
# Calls inside `player(...)` that give a part of the state.
_PLAYER_PARTS = ("holds", "cards", "credits")

# What an expectation may read of each question's answer, besides the per-item names
# (`price("X")` of a cost, `points("label")` of a score, an effect kind of a resolve, and
# `NAME.kind` for each player of a table).
ANSWERS = {
    "resolve": ("cancelled", "immune", "complete", "missing", "secondary.count", "secondary.share"),
    "cost": ("total", "complete", "illegal", "acquired"),
    "epoch": ("reached", "complete", "missing", "marker.space", "marker.epoch", "marker.next_space",
              "marker.next_epoch", "marker.meets", "marker.move"),
    "score": ("total", "complete", "missing"),
    "hand": ("total",),
    "table": ("beneficiary", "complete", "missing", "discarded"),
}


class RulingError(Exception):
    """A ruling that cannot be read or run (CIV181), at the span of the call at fault."""

    def __init__(self, message: str, span: Span, help: str | None = None):
        super().__init__(message)
        self.span = span
        self.help = help


@dataclass
class Expectation:
    key: str  # the answer's value compared, as ANSWERS and answer() name it
    value: object
    span: Span
    text: str  # as written


@dataclass
class Reading:
    """A ruling as data: the situation, the question and the answer it expects."""

    ruling: Ruling
    players: list[dict]  # each: name (None for the one player of a single-player question), holds, facts
    options: dict
    question: str
    subject: list[str]  # the question's positional arguments (calamity, advances, track)
    question_args: dict
    question_span: Span
    expected: list[Expectation]
    citations: list[tuple[str, str]]  # (kind: "rules", "errata" or "faq", text)
    borders: dict = field(default_factory=dict)
    secondary: dict | None = None  # the secondary victims named, with their amounts; None when not said


@dataclass
class Outcome:
    """A ruling run: each expectation's value got, the mismatches and the trace of the answer."""

    reading: Reading
    got: dict
    mismatches: list[tuple[Expectation, object]]
    trace: list[str]

    @property
    def holds(self) -> bool:
        return not self.mismatches


# --- reading -------------------------------------------------------------------------------

def _literal(expr, what: str):
    """The value of a literal argument (a string, a number, true/false, unknown, or a bare word)."""
    if isinstance(expr, (Str, Num, Bool)):
        return expr.value
    if isinstance(expr, Neg) and isinstance(expr.operand, Num):
        return -expr.operand.value
    if isinstance(expr, Unknown):
        return None
    if isinstance(expr, Name) and len(expr.parts) == 1:
        return expr.parts[0]
    raise RulingError(f"{what} must be a string, a number, true or false", expr.span)


def _strings(call: Call) -> list[str]:
    out = []
    for a in call.args:
        value = _literal(a, f"an argument of `{call.name}`")
        if not isinstance(value, str):
            raise RulingError(f"`{call.name}` takes names (strings)", a.span)
        out.append(value)
    return out


def _player(call: Call) -> dict:
    """`player([NAME,] holds(...), cards(NAME, N), credits(GROUP=N), FACT=VALUE, ...)`."""
    player: dict = {"name": None, "holds": [], "facts": {}}
    for a in call.args:
        if isinstance(a, Call) and a.name in _PLAYER_PARTS:
            _player_part(player, a)
        elif isinstance(a, Str) and player["name"] is None and a is call.args[0]:
            player["name"] = a.value
        else:
            raise RulingError("a part of `player` must be its name (first), holds(...), cards(...), credits(...) "
                              "or FACT=VALUE", a.span)
    for key, value in call.kwargs.items():
        player["facts"][key] = _literal(value, f"`{key}`")
    return player


def _player_part(player: dict, part: Call) -> None:
    if part.name == "holds":
        player["holds"].extend(_strings(part))
    elif part.name == "cards":  # cards("Grain", 3, "Salt", 1): pairs of a commodity and a count
        values = [_literal(a, "an argument of `cards`") for a in part.args]
        if len(values) % 2 or not all(isinstance(n, str) and isinstance(c, int) for n, c in zip(values[::2], values[1::2])):
            raise RulingError('`cards` takes pairs of a commodity and a count: cards("Grain", 3, "Salt", 1)', part.span)
        hand = player["facts"].setdefault("commodities", {})
        hand.update(zip(values[::2], values[1::2]))
    else:
        player["facts"].setdefault("credits", {}).update(
            {k: _literal(v, f"credits `{k}`") for k, v in part.kwargs.items()})


def _secondary(call: Call, named: dict | None) -> dict:
    """The secondary victims the primary victim names, with the amount assigned to each."""
    values = [_literal(a, "an argument of `secondary`") for a in call.args]
    if len(values) not in (0, 2) or (values and not (isinstance(values[0], str) and isinstance(values[1], int))):
        raise RulingError('`secondary` names a victim and the amount assigned to him: secondary("bruno", 10), '
                          "or none: secondary()", call.span)
    out = dict(named or {})
    if values:
        out[values[0]] = values[1]
    return out


def _expectation(expr) -> Expectation:
    """`KEY == VALUE`, or a bare KEY (expected true)."""
    from .expressions import unparse

    if isinstance(expr, BinOp) and expr.op == "==":
        return Expectation(_answer_key(expr.left), _literal(expr.right, "an expected value"), expr.span, unparse(expr))
    return Expectation(_answer_key(expr), True, expr.span, unparse(expr))


def _answer_key(expr) -> str:
    """The name of an answer's value: `total`, `secondary.count`, `price("Music")`."""
    if isinstance(expr, Name):
        return expr.dotted
    if isinstance(expr, Call) and len(expr.args) == 1 and isinstance(expr.args[0], Str) and not expr.kwargs:
        return f'{expr.name}("{expr.args[0].value}")'
    raise RulingError("an expectation compares a value of the answer with a literal: `total == 110`, "
                      '`price("Music") == 55`, `cancelled`', expr.span)


@dataclass
class _Calls:
    """What a ruling's calls say, gathered one call at a time (`add`)."""
    players: list = field(default_factory=list)
    options: dict = field(default_factory=dict)
    expected: list = field(default_factory=list)
    citations: list = field(default_factory=list)
    borders: dict = field(default_factory=dict)
    secondary: dict | None = None  # None: the ruling names no secondary victims, {}: it names none
    questions: list = field(default_factory=list)

    def add(self, call: Call) -> None:
        if call.name in QUESTIONS:
            self.questions.append(call)
        elif call.name in OTHER_CALLS:
            getattr(self, f"_{call.name}")(call)
        else:
            raise RulingError(f"unknown call `{call.name}` in a ruling", call.span,
                              suggestion(call.name, list(QUESTIONS) + list(OTHER_CALLS)))

    def _player(self, call: Call) -> None:
        self.players.append(_player(call))

    def _option(self, call: Call) -> None:
        self.options.update({k: _literal(v, f"option `{k}`") for k, v in call.kwargs.items()})

    def _expect(self, call: Call) -> None:
        self.expected.extend(_expectation(a) for a in call.args)

    def _cite(self, call: Call) -> None:
        self.citations.extend(("rules", text) for text in _strings(call))
        self.citations.extend((_citation_kind(k, call), _citation_text(v, k)) for k, v in call.kwargs.items())

    def _border(self, call: Call) -> None:  # border("anna", "bruno", "land")
        names = _strings(call)
        if len(names) not in (2, 3) or names[2:] and names[2] not in BORDER_KINDS:
            raise RulingError('`border` names two players and how they border: border("anna", "bruno", "land"), '
                              "`land`, `water` or `near`", call.span)
        self.borders.setdefault(names[2] if len(names) == 3 else "land", []).append(names[:2])

    def _secondary(self, call: Call) -> None:  # secondary("bruno", 10): the amount assigned to him; secondary(): none
        self.secondary = _secondary(call, self.secondary)


def read(ruling: Ruling) -> Reading:
    """The ruling as data, or RulingError at its first mistake."""
    calls = _Calls()
    for call in ruling.calls:
        calls.add(call)
    questions, expected = calls.questions, calls.expected
    if len(questions) != 1:
        raise RulingError("a ruling asks one question: " + ", ".join(f"{q}(...)" for q in QUESTIONS)
                          + (f" (it asks {len(questions)})" if questions else ""),
                          questions[1].span if questions else ruling.span)
    if not expected:
        raise RulingError("a ruling says the answer it expects: expect(...)", ruling.span)
    if not calls.citations:
        raise RulingError("a ruling cites where its answer comes from: cite(\"paragraph\"), cite(errata=\"...\") "
                          "or cite(faq=\"...\")", ruling.span)
    q = questions[0]
    _check_question(q, calls.players)
    for e in expected:
        _check_answer_key(q.name, e)
    return Reading(ruling, calls.players or [{"name": None, "holds": [], "facts": {}}], calls.options, q.name,
                   _strings(q), {k: _literal(v, f"`{k}`") for k, v in q.kwargs.items()}, q.span, expected,
                   calls.citations, calls.borders, calls.secondary)


def _citation_text(value, key: str) -> str:
    if not isinstance(value, Str):
        raise RulingError(f"cite `{key}` is words in quotes: cite({key}=\"...\")", value.span)
    return value.value


def _citation_kind(key: str, call: Call) -> str:
    if key not in CITATION_KINDS:
        raise RulingError(f"unknown citation `{key}`: cite(\"paragraph\"), cite(errata=\"...\") or cite(faq=\"...\")",
                          call.kwarg_spans.get(key, call.span), suggestion(key, CITATION_KINDS))
    return key


def _check_question(q: Call, players: list[dict]) -> None:
    allowed = QUESTIONS[q.name][1]
    for key in q.kwargs:
        if key not in allowed:
            raise RulingError(f"`{q.name}` takes no argument `{key}`" + (f" (it takes {', '.join(allowed)})" if allowed
                                                                          else ""),
                              q.kwarg_spans.get(key, q.span), suggestion(key, allowed))
    named = [p for p in players if p["name"] is not None]
    if q.name == "table":
        if len(named) != len(players) or not players:
            raise RulingError("a table question names every player: player(\"anna\", ...)", q.span)
    elif len(players) > 1 or named:
        raise RulingError(f"`{q.name}` asks about one player: give one player(...) without a name", q.span)
    wants_subject = {"resolve": 1, "table": 1, "epoch": 1}.get(q.name)
    if wants_subject is not None and len(q.args) != wants_subject:
        raise RulingError(f"`{q.name}` names one {'A.S.T. track' if q.name == 'epoch' else 'calamity'}", q.span)
    if q.name == "cost" and not q.args:
        raise RulingError("`cost` names the advances bought", q.span)


def _check_answer_key(question: str, e: Expectation) -> None:
    key = e.key
    fixed = ANSWERS[question]
    if key in fixed:
        return
    per_item = {"cost": "price", "score": "points"}.get(question)
    if per_item and key.startswith(per_item + "("):
        return
    effect = key.split(".", 1)[-1] if question == "table" else key.removeprefix("demanded.").removeprefix("secondary.")
    if question in ("resolve", "table") and effect in vocab.EFFECT_KINDS:
        return
    names = list(fixed) + ([f'{per_item}("...")'] if per_item else []) + (
        sorted(vocab.EFFECT_KINDS) if question == "resolve" else [])
    raise RulingError(f"the answer of `{question}` has no value `{key}`", e.span, suggestion(key, names))


# --- running -------------------------------------------------------------------------------

def run(rulebook, reading: Reading) -> Outcome:
    """Ask the compiled rulebook the ruling's question; StateError or RulingError for a situation
    the rulebook refuses (an unknown advance, say), RulebookRuntimeError from a rule."""
    _check_subject(rulebook, reading)
    ask = _ASK[reading.question]
    got, trace = ask(rulebook, reading)
    # an incomplete answer is never taken for the expected one, unless the ruling expects it incomplete
    incomplete = bool(got.get("missing")) and not any(e.key in ("missing", "complete") for e in reading.expected)
    mismatches = [(e, got.get(e.key)) for e in reading.expected if incomplete or not _same(got.get(e.key), e.value)]
    return Outcome(reading, got, mismatches, trace)


def _check_subject(rulebook, reading: Reading) -> None:
    """The calamity, advances or track the question names exist (RulingError at the question)."""
    try:
        if reading.question in ("resolve", "table"):
            rulebook.calamity_name(reading.subject[0])
        elif reading.question == "cost":
            rulebook.item_names("advance", reading.subject, "cost")
        elif reading.question == "epoch" and reading.subject[0] not in rulebook.tracks:
            raise RulingError(f"no A.S.T. track `{reading.subject[0]}`", reading.question_span,
                              suggestion(reading.subject[0], rulebook.tracks))
    except StateError as exc:
        raise RulingError(str(exc), reading.question_span) from None


def _same(got, expected) -> bool:
    if isinstance(got, (list, tuple)):
        got = ", ".join(str(x) for x in got)
    if isinstance(got, bool) or isinstance(expected, bool):
        return got is expected
    return got == expected


def _one(reading: Reading) -> tuple[list[str], dict]:
    p = reading.players[0]
    facts = dict(p["facts"])
    if reading.options:
        facts["options"] = dict(reading.options)
    return list(p["holds"]), facts


def _ask_resolve(rulebook, reading: Reading) -> tuple[dict, list[str]]:
    holds, facts = _one(reading)
    r = rulebook.resolve(reading.subject[0], reading.question_args.get("role", "primary"), holds, facts,
                         assigned=reading.question_args.get("assigned"))
    data = r.to_dict()
    return resolution_answer(data), [trace_text(t) for t in data["trace"]]


def resolution_answer(data: dict, prefix: str = "") -> dict:
    """The values a ruling may read of one victim's resolution (`resolve --json`'s answer)."""
    got = {f"{prefix}{k}": v for k, v in effect_amounts(data["effects"]).items()}
    got.update({f"{prefix}demanded.{k}": v for k, v in demanded_amounts(data["effects"]).items()})
    got.update({f"{prefix}cancelled": data["cancelled"], f"{prefix}immune": data["immune"],
                f"{prefix}complete": data["complete"], f"{prefix}missing": data["missing_facts"]})
    sec = data.get("secondary")
    if sec and not prefix:
        got.update({"secondary.count": sec["count"], "secondary.share": sec["share"]})
        got.update({f"secondary.{k}": v for k, v in effect_amounts(sec["effects"]).items()})
    return got


def effect_amounts(effects: list[dict]) -> dict:
    """Each effect's amount actually taken (bounded by the victim's holding where the edition says so)."""
    return {e["kind"]: e.get("taken", e.get("amount", True)) for e in effects if e["kind"] != "cancelled"}


def demanded_amounts(effects: list[dict]) -> dict:
    """Each effect's amount as the rule demands it, before the bound by the victim's holdings."""
    return {e["kind"]: e.get("amount", True) for e in effects if e["kind"] != "cancelled"}


def trace_text(t: dict) -> str:
    """One step of a resolution's trace, short: who changed what, from what to what, and where."""
    by = ", ".join(t["by"]) or "rule"
    what = str(t["kind"]).replace("_", " ")
    before, after = ("?" if v is None else v for v in (t["before"], t["after"]))
    return f"{by}: {t['op']} {what} {before} -> {after}  [{t['path']}:{t['line']}]"


def _ask_cost(rulebook, reading: Reading) -> tuple[dict, list[str]]:
    holds, facts = _one(reading)
    result = rulebook.cost(holds, reading.subject, facts)
    got = {f'price("{row["advance"]}")': row["price"] for row in result["items"]}
    got.update(total=result["total"], complete=result["complete"],
               illegal=[p["advance"] for p in result["illegal"]], acquired=[r["advance"] for r in result["acquired"]])
    trace = [f'{row["advance"]}: {row["printed"]}' + "".join(f' - {c["amount"]} {c["from"]}' for c in row["credits"])
             + f' = {row["price"]}' for row in result["items"]]
    return got, trace


def _ask_epoch(rulebook, reading: Reading) -> tuple[dict, list[str]]:
    holds, facts = _one(reading)
    [track] = rulebook.epochs(reading.subject[0], holds, facts)
    got = {"reached": track["reached"], "complete": track["complete"], "missing": track["missing_facts"]}
    for k, v in (track.get("marker") or {}).items():
        got[f"marker.{k}"] = v
    trace = [f'{e["epoch"]}: {"met" if e["met"] else "not met"}' for e in track["epochs"]]
    return got, trace


def _ask_score(rulebook, reading: Reading) -> tuple[dict, list[str]]:
    holds, facts = _one(reading)
    result = rulebook.score(holds, facts)
    got = {"total": result["total"], "complete": result["complete"], "missing": result.get("missing_facts", [])}
    got.update({f'points("{p["label"]}")': p["points"] for p in result["points"]})
    return got, [f'{p["label"]}: {p["points"]}  [line {p["line"]}]' for p in result["points"]]


def _ask_hand(rulebook, reading: Reading) -> tuple[dict, list[str]]:
    holds, facts = _one(reading)
    cards = facts.pop("commodities", {})
    result = rulebook.hand(cards, {"holds": holds, **facts} if holds or facts else None)
    return {"total": result["total"]}, [f'{s["commodity"]} x{s["cards"]}: {s["value"]}' for s in result["sets"]]


def _ask_table(rulebook, reading: Reading) -> tuple[dict, list[str]]:
    phase = table_phase(rulebook, reading)
    got = {"complete": phase.complete, "missing": phase.missing_facts,
           "discarded": [f"{d.victim}'s {d.calamity}" for d in phase.discarded]}
    trace = []
    if phase.resolved:
        first = phase.resolved[0]
        got["beneficiary"] = first.beneficiary.name if first.beneficiary else None
        victims = [(first.victim, first.primary)] + [(name, r) for name, _, r in first.secondary]
        for name, r in victims:
            data = r.to_dict()
            got.update(resolution_answer(data, f"{name}."))
            trace.extend(f"{name}: {trace_text(t)}" for t in data["trace"])
    return got, trace


def table_phase(rulebook, reading: Reading):
    """The table the ruling describes, its calamity resolved by `civdsl table`'s engine."""
    from .table import load_table
    from .table import resolve_phase

    players = [{"name": p["name"], "holds": p["holds"], **p["facts"]} for p in reading.players]
    entry = {"calamity": reading.subject[0], **reading.question_args}
    entry.setdefault("victim", players[0]["name"])
    if reading.secondary is not None:
        entry["secondary"] = dict(reading.secondary)
    data = {"players": players, "borders": reading.borders, "calamities": [entry]}
    if reading.options:
        data["options"] = dict(reading.options)
    return resolve_phase(load_table(rulebook, data=data))


_ASK = {"resolve": _ask_resolve, "cost": _ask_cost, "epoch": _ask_epoch, "score": _ask_score, "hand": _ask_hand,
        "table": _ask_table}


# --- what an item's rulings are ----------------------------------------------------------------

def subjects(ruling: Ruling) -> list[str]:
    """The items a ruling is about: the calamity or advances of its question, the advances its
    situation holds and the commodities in hand (an item's rulings are listed under it in charts,
    `explain`, hover and the companion page)."""
    out: list[str] = []
    for call in ruling.calls:
        if call.name in QUESTIONS and call.name != "epoch":
            out.extend(a.value for a in call.args if isinstance(a, Str))
        elif call.name == "player":  # the advances held and the commodities in hand
            for part in call.args:
                if isinstance(part, Call) and part.name in ("holds", "cards"):
                    out.extend(a.value for a in part.args if isinstance(a, Str))
    return list(dict.fromkeys(out))


def rulings_of(ed: Edition, item: str) -> list[Ruling]:
    return [r for r in ed.rulings.values() if item in subjects(r)]


# How the answer's values read to a player ("secondary.count" is never shown as such).
_ANSWER_WORDS = {
    "cancelled": "cancelled", "immune": "immune", "complete": "complete", "missing": "depends on",
    "secondary.count": "secondary victims", "secondary.share": "shared among the secondary victims",
    "total": "total", "illegal": "not allowed", "acquired": "gained with the purchase", "reached": "reaches",
    "beneficiary": "beneficiary", "discarded": "discarded",
}


def _kind_words(kind: str) -> str:
    k = vocab.EFFECT_KINDS.get(kind)
    words = k.noun(None) if k else None
    return words[1] if words else kind.replace("_", " ")


def answer_words(e: Expectation) -> str:
    """One expected value in a player's words: "points of damage: 15", "Music costs 55"."""
    value = e.value
    shown = ("yes" if value else "no") if isinstance(value, bool) else "unknown" if value is None else str(value)
    key = e.key
    if key.startswith(("price(", "points(")):
        name = key[key.index("(") + 2:-2]
        return f"{name} costs {shown}" if key.startswith("price(") else f"{name}: {shown} points"
    if key in _ANSWER_WORDS:
        return f"{_ANSWER_WORDS[key]}: {shown}"
    head, _, last = key.rpartition(".")
    if head == "marker":
        return f"marker, {last.replace('_', ' ')}: {shown}"
    prefix = {"": "", "secondary": "each secondary victim, ", "demanded": "demanded, "}.get(head, f"{head}, ")
    return f"{prefix}{_kind_words(last)}: {shown}"


def summary(ruling: Ruling) -> dict:
    """A ruling in a player's words: the question, the expected answer and the citation."""
    try:
        reading = read(ruling)
    except RulingError:
        return {"name": ruling.name, "question": ruling.question, "answer": "", "cited": ""}
    return {"name": ruling.name, "question": ruling.question,
            "answer": "; ".join(answer_words(e) for e in reading.expected), "cited": citation_text(ruling)}


def citation_text(ruling: Ruling) -> str:
    """Where the ruling's answer comes from, in words ("17.5", "errata: ...", "FAQ: ...")."""
    try:
        cites = read(ruling).citations
    except RulingError:
        return ""
    words = {"rules": "", "errata": "errata: ", "faq": "FAQ: "}
    return "; ".join(words[k] + text for k, text in cites)


# --- checking --------------------------------------------------------------------------------

def check(ed: Edition, rulebook, diags: Diagnostics) -> list[Outcome]:
    """Run every ruling of the edition (its own and those of its bases) on its compiled rulebook,
    and report those whose answer differs (CIV180, CIV182), those that cannot be run (CIV181) and
    `overrules` lines that excuse nothing (CIV183)."""
    own_file = ed.files[-1] if ed.files else None
    outcomes = []
    changed: set[str] = set()
    for ruling in ed.rulings.values():
        inherited = own_file is not None and ruling.span.path != own_file
        try:
            outcome = run(rulebook, read(ruling))
        except RulingError as exc:
            diags.error("CIV181", f"ruling `{ruling.name}` cannot be run: {exc}", exc.span, item=ruling.name,
                        help=exc.help)
            continue
        except StateError as exc:  # a situation the rulebook refuses, reported where the situation is
            diags.error("CIV181", f"ruling `{ruling.name}` cannot be run: {exc}", _situation_span(ruling),
                        item=ruling.name)
            continue
        except RulebookRuntimeError as exc:
            where = Span(exc.path, exc.line, exc.column or 1, exc.end_column) if exc.path and exc.line else ruling.span
            diags.error("CIV130", f"this rule failed while running ruling `{ruling.name}`: {exc.reason}", where,
                        item=ruling.name, notes=[f"ruling `{ruling.name}` is at {ruling.span}"])
            continue
        outcomes.append(outcome)
        if outcome.holds:
            continue
        if inherited:
            changed.add(ruling.name)
            _report_changed(ed, ruling, outcome, diags)
        else:
            first = outcome.mismatches[0][0]
            diags.error("CIV180", f"ruling `{ruling.name}` fails: {_mismatch_words(outcome)}", first.span,
                        item=ruling.name, notes=_notes(outcome))
    for name, o in ed.overrules.items():
        if name not in ed.rulings or ed.rulings[name].span.path == own_file:
            diags.warning("CIV183", f"`overrules {name}` names no ruling this rulebook inherits", o.name_span or o.span,
                          item=name, help=suggestion(name, [n for n, r in ed.rulings.items()
                                                             if r.span.path != own_file]))
        elif name not in changed:
            diags.warning("CIV183", f"ruling `{name}` still gives its answer: `overrules {name}` overrules nothing",
                          o.name_span or o.span, item=name, help="remove the `overrules` line")
    return outcomes


def _situation_span(ruling: Ruling) -> Span:
    return next((c.span for c in ruling.calls if c.name == "player"), ruling.span)


def _report_changed(ed: Edition, ruling: Ruling, outcome: Outcome, diags: Diagnostics) -> None:
    """A house rule that changes an inherited ruling's answer: a warning at the house rule's
    header, or a note when it says `overrules NAME "why"`."""
    o = ed.overrules.get(ruling.name)
    message = f"this house rule changes the answer of ruling `{ruling.name}`: {_mismatch_words(outcome)}"
    notes = [f"ruling `{ruling.name}` is at {ruling.span}"] + _notes(outcome)
    if o is not None:
        diags.report("note", "CIV182", message + f" (overruled: {o.why})", o.span, item=ruling.name, notes=notes)
        return
    diags.warning("CIV182", message, ed.span, item=ruling.name, notes=notes,
                  help=f'if the change is meant, say so: overrules {ruling.name} "why"')


def _mismatch_words(outcome: Outcome) -> str:
    missing = outcome.got.get("missing")
    if not missing:
        return "; ".join(f"expected {e.text}, got {_shown(got)}" for e, got in outcome.mismatches)
    why = f"the answer depends on {', '.join(missing)}"
    return "; ".join(f"expected {e.text}, got " + (f"an unknown value ({why})" if got is None
                                                   else f"{_shown(got)} in an incomplete answer ({why})")
                     for e, got in outcome.mismatches)


def _shown(value) -> str:
    if value is None:
        return "nothing (unknown or absent)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return '"' + ", ".join(str(x) for x in value) + '"' if value else "none"
    return f'"{value}"' if isinstance(value, str) else str(value)


def _notes(outcome: Outcome) -> list[str]:
    r = outcome.reading
    notes = [f"question: {r.ruling.question}", "cited: " + citation_text(r.ruling)]
    missing = outcome.got.get("missing")
    if missing:
        notes.append("the answer is incomplete: it depends on " + ", ".join(missing))
    notes.extend(outcome.trace)
    return notes
