"""A calamity's answer as data (what `civdsl resolve --json` prints and the page's `resolve`
returns): each effect with its final parameters, the trace of every rule that changed one, the
options, what is missing or undecided, why it was cancelled or excluded, the secondary victims'
share. A parameter that depends on missing facts is null, and `depends_on` names those facts.

It reads plain values (the parts of `runtime.Resolution` and its player state), so the page runs
the same code translated (companion/py2es.py); it keeps to the engine subset
(docs/engine-route.md).
"""

from __future__ import annotations

from .unknown import Unknown, number


def facts_of(values) -> list:
    """The facts any of VALUES depends on, in first-seen order."""
    facts = []
    for v in values:
        if isinstance(v, Unknown):
            for f in v.facts:
                if f not in facts:
                    facts.append(f)
    return facts


def effect_dict(kind: str, args: dict) -> dict:
    """An effect as data."""
    out = {"kind": kind}
    for k, v in args.items():
        out[k] = number(v)
    needs = facts_of(args.values())
    if needs:
        out["depends_on"] = needs
    return out


def trace_dicts(trace) -> list:
    """Each change a rule made: (op, kind, param, value, before, after, by, line, path) as data."""
    out = []
    for op, kind, param, value, before, after, by, line, path in trace:
        entry = {"op": op, "kind": kind, "param": param, "value": number(value), "before": number(before),
                 "after": number(after), "by": list(by), "path": path, "line": line}
        needs = facts_of((value, before, after))
        if needs:
            entry["depends_on"] = needs
        out.append(entry)
    return out


def option_dicts(options) -> list:
    """Each option a victim has: (instead_of, kind, args, each, by, line, path) as data."""
    return [{"instead_of": instead, "kind": kind, "args": {k: number(v) for k, v in args.items()}, "each": each,
             "by": list(by), "path": path, "line": line} for instead, kind, args, each, by, line, path in options]


def undecided(entries) -> list:
    """The decisions a rule could not take: (line, path, what, the facts it needs) as data."""
    return [{"line": line, "path": path, "what": what, "depends_on": list(facts)}
            for line, path, what, facts in entries]


def resolution_dict(calamity: str, role: str, state, effects, assignment, trace, options, immune, cancel_reason,
                    excluded) -> dict:
    """The whole answer; STATE is the player state the calamity read (`complete`, `missing`,
    `undecided`)."""
    out = {
        "calamity": calamity,
        "role": role,
        "complete": state.complete,
        "cancelled": cancel_reason is not None,
        "immune": number(immune),
        "effects": [effect_dict(kind, args) for kind, args, _ in effects],
        "trace": trace_dicts(trace),
        "options": option_dicts(options),
        "missing_facts": list(state.missing),
        "undecided": undecided(state.undecided),
    }
    for key, reason in (("cancel_reason", cancel_reason), ("excluded", excluded)):
        if reason:
            out[key] = {"line": reason[0], "path": reason[2], "why": reason[1]}
    if assignment:
        count, share, shared, line = assignment
        out["secondary"] = {"count": number(count), "share": number(share), "line": line,
                            "effects": [effect_dict(k, args) for k, args in shared]}
        needs = facts_of((count, share))
        if needs:
            out["secondary"]["depends_on"] = needs
    return out
