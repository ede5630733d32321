"""The `civdsl` command line (click). Commands import the compiler only when they need it, so
that answering a question from a current compiled rulebook stays fast."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .api import RulebookError, load
from .state import StateError, parse_assignment, parse_yaml, split_names


def _fail(message: str, code: int = 1):
    click.echo(message, err=True)
    sys.exit(code)


def _open(rulebook: str):
    try:
        return load(rulebook)
    except RulebookError as exc:
        if exc.diagnostics is not None:
            click.echo(exc.diagnostics.render(color=sys.stderr.isatty()), err=True)
            sys.exit(1)
        _fail(f"error: {exc}")


def _facts(state_file: str | None, sets: tuple[str, ...]) -> dict:
    facts: dict = {}
    if state_file:
        facts.update(parse_yaml(Path(state_file)))
    for item in sets:
        key, value = parse_assignment(item)
        facts[key] = value
    return facts


def _emit_json(data) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


# Commands that live in their own modules, imported only when used (keeps start-up small).
LAZY_COMMANDS = {
    "chart": ("civdsl.charts.command", "chart"),
    "diff": ("civdsl.diff", "diff_command"),
    "fmt": ("civdsl.fmt", "fmt_command"),
    "new": ("civdsl.scaffold", "new_command"),
    "plan": ("civdsl.planner", "plan_command"),
    "hand": ("civdsl.planner", "hand_command"),
    "lsp": ("civdsl.lsp", "lsp_command"),
    "step": ("civdsl.simulate", "step_command"),
    "simulate": ("civdsl.simulate", "simulate_command"),
}


class _Group(click.Group):
    """Turns user mistakes raised anywhere in a command into a one-line error, exit 1."""

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(LAZY_COMMANDS))

    def get_command(self, ctx, name):
        if name in LAZY_COMMANDS and name not in self.commands:
            import importlib

            module, attr = LAZY_COMMANDS[name]
            try:
                return getattr(importlib.import_module(module), attr)
            except (ImportError, AttributeError):
                return None
        return super().get_command(ctx, name)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except StateError as exc:
            _fail(f"error: {exc}")
        except RulebookError as exc:
            if exc.diagnostics is not None:
                click.echo(exc.diagnostics.render(color=sys.stderr.isatty()), err=True)
                sys.exit(1)
            _fail(f"error: {exc}")


@click.group(cls=_Group)
@click.version_option(package_name="civdsl")
def main():
    """civdsl: rules of the Civilization board-game family as data, compiled and checked."""


def _default_paths() -> list[Path]:
    from .resources import shipped_house_rules, shipped_rulebooks

    return list(shipped_rulebooks().values()) + shipped_house_rules()


def _paths(paths: tuple[str, ...]) -> list[Path]:
    if not paths:
        return _default_paths()
    from .resources import shipped_rulebooks

    shipped = shipped_rulebooks()
    return [shipped[p] if p in shipped and not Path(p).exists() else Path(p) for p in paths]


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", help="Diagnostics as text or JSON.")
@click.option("--schema", is_flag=True, help="Also validate the compiled model against schemas/model.schema.json.")
@click.option("-v", "--verbose", is_flag=True, help="Also show notes (e.g. diagnostics acknowledged by errata).")
def check(paths, fmt, schema, verbose):
    """Check rulebooks (default: every shipped rulebook) and report every problem."""
    from .compiler import check_file
    from .diagnostics import Diagnostics

    diags = Diagnostics()
    checked = [check_file(p, diags) for p in _paths(paths)]
    if schema:
        from .schemas import validate_model

        for c in checked:
            if c.ok:
                for problem in validate_model(c.edition):
                    diags.error("CIV090", f"model does not match the schema: {problem}", c.edition.span)
    if fmt == "json":
        click.echo(diags.to_json())
    else:
        report = diags.render(color=sys.stdout.isatty(), notes=verbose)
        if report:
            click.echo(report, err=diags.has_errors)
        if not diags.has_errors:
            click.echo(f"ok: {len(checked)} rulebook{'s' if len(checked) != 1 else ''} checked")
    sys.exit(1 if diags.has_errors else 0)


@main.command()
@click.argument("paths", nargs=-1)
@click.option("-o", "--output", "out", type=click.Path(file_okay=False), default="generated", show_default=True,
              help="Output folder.")
@click.option("--check", "check_only", is_flag=True, help="Exit 1 if the output folder differs from a fresh build.")
def build(paths, out, check_only):
    """Compile rulebooks into OUTPUT/<edition>/ (effects.py, model.json, charts)."""
    from .build import compare, compile_all, write
    from .charts import site_files
    from .diagnostics import Diagnostics

    diags = Diagnostics()
    targets = _paths(paths)
    show = sys.stderr.isatty() and len(targets) > 1
    with click.progressbar(length=len(targets), label="compiling", file=sys.stderr) if show else _null() as bar:
        results = compile_all(targets, diags, progress=(lambda _p: bar.update(1)) if show else None)
    if results is None:
        click.echo(diags.render(color=sys.stderr.isatty()), err=True)
        click.echo("build stopped: nothing was written", err=True)
        sys.exit(1)
    out_dir = Path(out)
    # the index and cross-edition pages describe every rulebook: only a full build writes them
    top = site_files(results) if not paths else None
    for message in sorted({m for r in results for m in r.messages}):
        click.echo(message, err=True)
    if check_only:
        problems = compare(results, out_dir, top)
        if problems:
            click.echo("\n".join(problems), err=True)
            click.echo(f"{out_dir} is out of date: run `civdsl build`", err=True)
            sys.exit(1)
        click.echo(f"{out_dir} is up to date ({len(results)} rulebooks)")
        return
    write(results, out_dir, top)
    files = sum(len(r.files) for r in results)
    click.echo(f"built {len(results)} rulebook{'s' if len(results) != 1 else ''} into {out_dir} ({files} files)")


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n):
        pass


def _describe_effect(e: dict) -> str:
    kind = e["kind"]
    args = {k: v for k, v in e.items() if k != "kind"}
    from .phrases import effect_text

    return effect_text(kind, args)


@main.command()
@click.argument("rulebook")
@click.argument("calamity")
@click.option("--role", type=click.Choice(["primary", "secondary"]), default="primary", show_default=True)
@click.option("--holds", help='Advances held, comma-separated: "Pottery,Calendar".')
@click.option("--state", "state_file", type=click.Path(dir_okay=False), help="Player state (YAML).")
@click.option("--set", "sets", multiple=True, help="A fact, key=value (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def resolve(rulebook, calamity, role, holds, state_file, sets, as_json):
    """What CALAMITY does to a victim, after every modifier, with a trace."""
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
        from . import vocabulary

        kind = vocabulary.EFFECT_KINDS.get(o["instead_of"])
        words = (kind.noun(None) if kind else None) or (o["instead_of"].replace("_", " "),) * 2
        instead = f"per {words[0]} instead" if o["each"] else f"instead of the {words[1]}"
        by = f" ({', '.join(o['by'])})" if o["by"] else ""
        click.echo(f"  option{by}: {_describe_effect({'kind': o['kind'], **o['args']})} {instead}")
    if data["missing_facts"]:
        from .phrases import name_words

        said = ", ".join(name_words(f) for f in data["missing_facts"])
        sets = " ".join(f"--set {f}=N" for f in data["missing_facts"])
        click.echo(f"  incomplete: the state does not say how many {said} (pass {sets}, or a --state file)")
        sys.exit(1)


@main.command()
@click.argument("rulebook")
@click.option("--holds", help="Advances held before this turn.")
@click.option("--buy", required=True, help="Advances to buy this turn.")
@click.option("--state", "state_file", type=click.Path(dir_okay=False))
@click.option("--set", "sets", multiple=True)
@click.option("--json", "as_json", is_flag=True)
def cost(rulebook, holds, buy, state_file, sets, as_json):
    """Price of each advance to buy after credits, with a breakdown and the total."""
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


@main.command()
@click.argument("rulebook")
@click.option("--ast", "track", help="A.S.T. track (default: every track).")
@click.option("--holds")
@click.option("--state", "state_file", type=click.Path(dir_okay=False))
@click.option("--set", "sets", multiple=True)
@click.option("--json", "as_json", is_flag=True)
def epoch(rulebook, track, holds, state_file, sets, as_json):
    """Each epoch's requirements: met or not, and why."""
    rb = _open(rulebook)
    data = rb.epochs(track, split_names(holds), _facts(state_file, sets))
    if as_json:
        _emit_json(data)
        return
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


@main.command()
@click.argument("rulebook")
@click.option("--holds")
@click.option("--state", "state_file", type=click.Path(dir_okay=False))
@click.option("--set", "sets", multiple=True)
@click.option("--json", "as_json", is_flag=True)
def score(rulebook, holds, state_file, sets, as_json):
    """Victory points and tie-breakers for one player."""
    rb = _open(rulebook)
    data = rb.score(split_names(holds), _facts(state_file, sets))
    if as_json:
        _emit_json(data)
        return
    for p in data["points"]:
        click.echo(f"{p['label']}: {p['points']}")
    click.echo(f"total: {data['total']}")
    for t in data["tiebreaks"]:
        click.echo(f"  tie-break {t['label']}: {t['value']}")
    if data["missing_facts"]:
        click.echo(f"incomplete: the state does not give {', '.join(data['missing_facts'])}")


@main.command()
@click.argument("words", nargs=-1, required=True, metavar="CODE | RULEBOOK ITEM")
def explain(words):
    """Explain a diagnostic code (civdsl explain CIV012), or everything a rulebook says about one
    advance or calamity (civdsl explain megaciv Pottery)."""
    if len(words) == 1:
        from .codes import explain as explain_code

        text = explain_code(words[0])
        if text is None:
            _fail(f"error: no diagnostic code {words[0]!r} (codes look like CIV012; for an item: civdsl explain RULEBOOK ITEM)")
        click.echo(text)
        return
    if len(words) != 2:
        _fail("error: give a code (civdsl explain CIV012) or a rulebook and an item (civdsl explain megaciv Famine)")
    from .itemexplain import explain_item

    click.echo(explain_item(words[0], words[1]))


@main.command()
@click.option("--json", "as_json", is_flag=True)
def vocab(as_json):
    """The language's vocabulary: effect kinds, abilities, player facts and functions."""
    from . import vocabulary as v

    if as_json:
        _emit_json({
            "effects": {k.name: {"params": [p.__dict__ for p in k.params], "doc": k.doc} for k in v.EFFECT_KINDS.values()},
            "abilities": {k.name: {"params": [p.__dict__ for p in k.params], "doc": k.doc} for k in v.ABILITY_KINDS.values()},
            "facts": {f.name: {"type": f.type, "doc": f.doc} for f in v.FACTS.values()},
            "functions": {f.name: {"args": f.args, "kwargs": f.kwargs, "doc": f.doc} for f in v.FUNCTIONS.values()},
        })
        return
    for title, table in (("Effect kinds", v.EFFECT_KINDS), ("Abilities", v.ABILITY_KINDS)):
        click.echo(f"{title}:")
        for k in table.values():
            params = ", ".join(p.name + ("" if p.required else "=" + str(p.default)) for p in k.params)
            click.echo(f"  {k.name}({params}): {k.doc}")
    click.echo("Player facts:")
    for f in v.FACTS.values():
        click.echo(f"  {f.name} ({f.type}): {f.doc}")
    click.echo("Derived names:")
    for name, doc in v.DERIVED_NAMES.items():
        click.echo(f"  {name}: {doc}")
    click.echo("Functions:")
    for f in v.FUNCTIONS.values():
        click.echo(f"  {f.name}({', '.join(list(f.args) + [k + '=' for k in f.kwargs])}): {f.doc}")


if __name__ == "__main__":
    main()
