"""Writing and publishing rulebooks: `check`, `build`, `fmt`, `new`, `diff`, `explain`, `vocab`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .common import emit_json as _emit_json
from .common import fail as _fail


def _default_paths() -> list[Path]:
    from ..resources import shipped_house_rules, shipped_rulebooks

    return list(shipped_rulebooks().values()) + shipped_house_rules()


def _paths(paths: tuple[str, ...]) -> list[Path]:
    if not paths:
        return _default_paths()
    from ..resources import shipped_rulebooks

    shipped = shipped_rulebooks()
    return [shipped[p] if p in shipped and not Path(p).exists() else Path(p) for p in paths]


@click.command()
@click.argument("paths", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", help="Diagnostics as text or JSON.")
@click.option("--schema", is_flag=True, help="Also validate the compiled model against schemas/model.schema.json.")
@click.option("-v", "--verbose", is_flag=True, help="Also show notes (e.g. diagnostics acknowledged by errata).")
def check(paths, fmt, schema, verbose):
    """Check rulebooks (default: every shipped rulebook) and report every problem."""
    from ..compiler import check_file
    from ..diagnostics import Diagnostics

    diags = Diagnostics()
    checked = [check_file(p, diags) for p in _paths(paths)]
    if schema:
        from ..schemas import validate_model

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


@click.command()
@click.argument("paths", nargs=-1)
@click.option("-o", "--output", "out", type=click.Path(file_okay=False), default="generated", show_default=True,
              help="Output folder.")
@click.option("--check", "check_only", is_flag=True, help="Exit 1 if the output folder differs from a fresh build.")
def build(paths, out, check_only):
    """Compile rulebooks into OUTPUT/<edition>/ (effects.py, model.json, charts)."""
    from ..build import compare, compile_all, write
    from ..charts import site_files
    from ..diagnostics import Diagnostics

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




@click.command()
@click.argument("words", nargs=-1, required=True, metavar="CODE | RULEBOOK ITEM")
def explain(words):
    """Explain a diagnostic code (civdsl explain CIV012), or everything a rulebook says about one
    advance or calamity (civdsl explain megaciv Pottery)."""
    if len(words) == 1:
        from ..codes import explain as explain_code

        text = explain_code(words[0])
        if text is None:
            _fail(f"error: no diagnostic code {words[0]!r} (codes look like CIV012; for an item: civdsl explain RULEBOOK ITEM)")
        click.echo(text)
        return
    if len(words) != 2:
        _fail("error: give a code (civdsl explain CIV012) or a rulebook and an item (civdsl explain megaciv Famine)")
    from ..itemexplain import explain_item

    click.echo(explain_item(words[0], words[1]))


@click.command()
@click.option("--json", "as_json", is_flag=True)
def vocab(as_json):
    """The language's vocabulary: effect kinds, abilities, player facts and functions."""
    from .. import vocabulary as v

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


@click.command()
@click.argument("paths", nargs=-1)
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 listing files that would change.")
@click.option("--diff", "show_diff", is_flag=True, help="Show what would change as a unified diff (writes nothing).")
def fmt(paths, check_only, show_diff):
    """Rewrite rulebooks (default: every shipped one) in the canonical layout.

    PATHS are files, folders (every .civ inside) or shipped edition ids. Comments are kept;
    files with syntax errors are reported and never rewritten.
    """
    import difflib

    from ..build import atomic_write
    from ..fmt import _expand, format_file
    from ..loader import display_path

    failed = False
    changed = []
    unchanged = 0
    for path in _expand(paths):
        res = format_file(path)
        name = display_path(path)
        if res.error is not None:
            failed = True
            if res.error.diagnostics is not None and res.error.diagnostics.items:
                click.echo(res.error.diagnostics.render(color=sys.stderr.isatty()), err=True)
            else:
                click.echo(f"error: {res.error}", err=True)
            click.echo(f"{name}: not formatted", err=True)
            continue
        if not res.changed:
            unchanged += 1
            continue
        changed.append(name)
        if show_diff:
            click.echo("".join(difflib.unified_diff((res.old_text or "").splitlines(True), res.new_text.splitlines(True),
                                                    f"{name}", f"{name} (formatted)")), nl=False)
        if check_only:
            click.echo(f"would reformat {name}")
        elif not show_diff:
            atomic_write(path, res.new_text)
            click.echo(f"formatted {name}")
    if check_only or show_diff:
        if changed:
            click.echo(f"{len(changed)} file{'s' if len(changed) != 1 else ''} would be reformatted, "
                       f"{unchanged} already formatted", err=True)
        elif not failed:
            click.echo(f"{unchanged} file{'s' if unchanged != 1 else ''} already formatted")
        sys.exit(1 if (changed and check_only) or failed else 0)
    if not failed:
        click.echo(f"{len(changed)} file{'s' if len(changed) != 1 else ''} formatted, {unchanged} unchanged")
    sys.exit(1 if failed else 0)


@click.command()
@click.argument("name")
@click.option("--from", "base", default="megaciv", show_default=True,
              help="The rulebook to extend: a shipped edition id or a path.")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False), help="Where to write it (default: NAME.civ).")
@click.option("--title", help="Display name (default: derived from NAME and the base).")
def new(name, base, output, title):
    """Write a commented house-rule skeleton NAME.civ that extends BASE and passes `civdsl check`."""
    import os

    from ..build import atomic_write
    from ..scaffold import ScaffoldError, check_name, skeleton

    out = Path(output) if output else Path(f"{name}.civ")
    try:
        check_name(name)
        if out.exists():
            raise ScaffoldError(f"{out} already exists; not overwriting it (choose another -o, or delete it first)")
        if not out.parent.exists():
            raise ScaffoldError(f"folder {out.parent} does not exist")
        text = skeleton(name, base, out, title)
    except ScaffoldError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    # never overwrite: create the file exclusively, then fill it atomically
    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        click.echo(f"error: {out} already exists; not overwriting it", err=True)
        sys.exit(1)
    os.close(fd)
    atomic_write(out, text)
    click.echo(f"wrote {out}: a house rule `{name}` extending {base}")
    click.echo(f"next: edit it, then `civdsl check {out}`")


@click.command()
@click.argument("a")
@click.argument("b")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "md"]), default="text", show_default=True)
@click.option("--prose", is_flag=True, help="Also list changed summaries, notes and descriptions.")
def diff(a, b, fmt, prose):
    """What changes from rulebook A to rulebook B (edition ids or paths, in any mix).

    Compares the resolved rules (a house rule with everything it inherits): advances,
    calamities and commodities field by field, constants, credit policy, vp tiers, A.S.T.
    epochs and their requirements, score lines. Exit 0 whether or not they differ.
    """
    from ..diff import diff as compute_diff
    from ..diff import load_edition, render_md, render_text, to_json

    ea, eb = load_edition(a), load_edition(b)
    changes = compute_diff(ea, eb)
    if fmt == "json":
        click.echo(json.dumps(to_json(ea, eb, changes), indent=2, ensure_ascii=False, default=str))
    elif fmt == "md":
        click.echo(render_md(ea, eb, changes, prose=prose), nl=False)
    else:
        click.echo(render_text(ea, eb, changes, color=sys.stdout.isatty(), prose=prose))
