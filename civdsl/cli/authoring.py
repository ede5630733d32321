"""Writing and publishing rulebooks: `check`, `build`, `fmt`, `new`, `diff`, `explain`, `vocab`.

With no PATHS, check, build and fmt act on the rulebooks of the current folder (rulebooks/ and
rulebooks/house/, or *.civ and house/), else check and build take the shipped ones; nothing
ever writes into an installed civdsl package (resources.rulebook_paths)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..escape import shown_name
from .common import UserError, command, echo, emit_json, fail, os_error, use_color


def _display(path: Path) -> str:
    from ..loader import display_path

    return display_path(path)


def _inside_installed_package(path: Path) -> bool:
    from ..resources import installed_package_dir

    package = installed_package_dir()
    if package is None:
        return False
    try:
        Path(path).resolve().relative_to(package)
        return True
    except ValueError:
        return False


@command()
@click.argument("paths", nargs=-1)
@click.option("--schema", is_flag=True, help="Also validate the compiled model against schemas/model.schema.json.")
@click.option("-v", "--verbose", is_flag=True, help="Also show notes (e.g. diagnostics acknowledged by errata).")
@click.option("--laws", "search_laws", is_flag=True,
              help="Also search every law of each rulebook for a situation that breaks it (writes each one found as "
                   "a state file).")
@click.option("--seed", type=int, default=0, show_default=True, help="With --laws: the seed of the search.")
@click.option("--budget", type=click.IntRange(1, 100_000), default=None,
              help="With --laws: situations tried per law at most, shared by its parts (a part no larger than its "
                   "share is walked whole); default 600.")
@click.option("--counterexamples", type=click.Path(file_okay=False), default=".", show_default=True,
              help="With --laws: the folder the counterexamples are written to.")
def check(paths, schema, verbose, search_laws, seed, budget, counterexamples, as_json):
    """Check rulebooks and report every problem.

    PATHS are files, folders or shipped edition ids; with none, the rulebooks of the current
    folder (rulebooks/ and rulebooks/house/ included), else every shipped rulebook."""
    from ..frontend import check_file
    from ..diagnostics import Diagnostics
    from ..resources import rulebook_paths

    diags = Diagnostics()
    targets = rulebook_paths(paths)
    # an unchanged rulebook chain is not checked again: its result (and diagnostics) is cached
    checked = [check_file(p, diags, reuse=True) for p in targets]
    _run_rulings(targets, checked, diags)
    _run_laws(targets, checked, diags, search_laws, budget, seed, Path(counterexamples))
    if schema:
        _check_schema(checked, diags)
    if as_json:
        items = diags.sorted()
        emit_json({"checked": len(checked), "errors": sum(d.level == "error" for d in items),
                   "warnings": sum(d.level == "warning" for d in items),
                   "diagnostics": [d.to_json() for d in items]}, rulebooks=[_display(p) for p in targets])
    else:
        _check_report(diags, len(checked), verbose)
    sys.exit(1 if diags.has_errors else 0)


def _run_rulings(targets: list, checked: list, diags) -> None:
    """Every ruling of each rulebook without errors, run on its compiled rules, and its laws read.
    What they report is kept with the chain's other results (same key: the bytes of every file and
    of the compiler), so that a check of an unchanged rulebook loads neither the model nor Lark."""
    import pickle

    from .. import cache
    from ..frontend import chain_files

    for path, c in zip(targets, checked):
        if not c.ok:
            continue
        files = chain_files(c.chain)
        name = f"rulings-{cache.chain_key(files)}.pickle" if all(files.values()) else None
        kept = cache.read(name) if name else None
        if kept is not None:
            try:
                diags.items.extend(pickle.loads(kept))
                continue
            except Exception:  # a damaged file: run them again
                pass
        before = len(diags.items)
        from ..laws import check_declared
        from ..api import run_rulings

        run_rulings(path, c, diags)
        check_declared(c.edition, diags)
        if name:
            cache.write(name, pickle.dumps(diags.items[before:], protocol=pickle.HIGHEST_PROTOCOL))


def _run_laws(targets: list, checked: list, diags, search_them: bool, budget: int, seed: int, folder: Path) -> None:
    """With --laws, every law of each rulebook without errors searched on its compiled rules."""
    if not search_them:
        return
    from ..laws import DEFAULT_BUDGET, check_laws

    if not folder.is_dir():
        fail(f"--counterexamples: {folder} is not a folder")
    for path, c in zip(targets, checked):
        if c.ok:
            check_laws(path, c, diags, budget or DEFAULT_BUDGET, seed, folder)


def _check_schema(checked: list, diags) -> None:
    """`check --schema`: each compiled model against schemas/model.schema.json."""
    from ..schemas import validate_model

    for c in checked:
        if c.ok:
            for problem in validate_model(c.edition):
                diags.error("CIV090", f"model does not match the schema: {problem}", c.edition.span)


def _check_report(diags, count: int, verbose: bool) -> None:
    """The diagnostics (on stderr where there is an error), or how many rulebooks are fine."""
    report = diags.render(color=use_color(err=diags.has_errors), notes=verbose)
    if report:
        echo(report, err=diags.has_errors)
    if not diags.has_errors:
        click.echo(f"ok: {_counted(count, 'rulebook')} checked")


def _counted(n: int, word: str) -> str:
    """"1 rulebook", "2 rulebooks"."""
    from ..phrases import counted

    return counted(n, (word, word + "s"))


@command()
@click.argument("paths", nargs=-1)
@click.option("-o", "--output", "out", type=click.Path(file_okay=False), default="generated", show_default=True,
              help="Output folder (relative to the current folder).")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 if the output folder differs from a "
              "fresh build.")
def build(paths, out, check_only, as_json):
    """Compile rulebooks into OUTPUT/<edition>/ (effects.py, model.json, charts).

    PATHS as for `check`; a build of no PATHS also writes the index and the cross-edition pages, and
    into a checkout's own folder (generated/) rewrites the stale files of its schemas/ (each
    generated from its declarations)."""
    from ..build import compare, write
    from ..charts import site_files
    from ..diagnostics import Diagnostics
    from ..resources import rulebook_paths
    from ..schemas import checkout_schemas_dir, stale
    from ..schemas import write as write_schemas

    out_dir = Path(out)
    if not check_only and _inside_installed_package(out_dir):
        fail(f"{shown_name(out_dir)} is inside the installed civdsl package: build into a folder of your own (-o DIR)")
    diags = Diagnostics()
    targets = rulebook_paths(paths)
    results = _compile_targets(targets, diags, as_json)
    # the index and cross-edition pages describe every rulebook: only a full build writes them
    top = site_files(results) if not paths else None
    for message in sorted({m for r in results for m in r.messages}):
        click.echo(message, err=True)
    ids = [r.id for r in results]
    # a full build into a checkout's own output folder also keeps its schemas/ equal to their declarations
    schemas = checkout_schemas_dir() if not paths else None
    if schemas is not None and out_dir.resolve().parent != schemas.resolve().parent:
        schemas = None
    if check_only:
        problems = compare(results, out_dir, top) + (stale(schemas) if schemas is not None else [])
        _check_output(problems, out_dir, len(results), ids, as_json)
        return
    write(results, out_dir, top)
    if schemas is not None:
        write_schemas(schemas)
    _built(out_dir, ids, sum(len(r.files) for r in results), as_json)


def _built(out_dir: Path, ids: list[str], files: int, as_json: bool) -> None:
    """What a build wrote."""
    if as_json:
        emit_json({"output": str(out_dir), "files": files}, rulebooks=ids)
    else:
        click.echo(f"built {_counted(len(ids), 'rulebook')} into {shown_name(out_dir)} ({files} files)")


def _compile_targets(targets: list, diags, as_json: bool) -> list:
    """Every rulebook compiled (a progress bar on a terminal); on any error, the diagnostics and exit 1."""
    from ..build import compile_all
    from ..errors import RulebookError
    from .terminal import unescaped

    show = sys.stderr.isatty() and len(targets) > 1 and not as_json
    with click.progressbar(length=len(targets), label="compiling", file=unescaped(sys.stderr)) if show else _null() as bar:
        results = compile_all(targets, diags, progress=(lambda _p: bar.update(1)) if show else None)
    if results is None:
        if as_json:
            raise RulebookError("build stopped: nothing was written", diags)
        echo(diags.render(color=use_color(err=True)), err=True)
        click.echo("build stopped: nothing was written", err=True)
        sys.exit(1)
    return results


def _check_output(problems: list[str], out_dir: Path, count: int, ids: list, as_json: bool) -> None:
    """`build --check`: whether the output folder is what a build would write."""
    if as_json:
        emit_json({"output": str(out_dir), "up_to_date": not problems, "problems": problems}, rulebooks=ids)
        sys.exit(1 if problems else 0)
    if problems:
        click.echo("\n".join(problems), err=True)
        click.echo(f"{shown_name(out_dir)} is out of date: run `civdsl build`", err=True)
        sys.exit(1)
    click.echo(f"{shown_name(out_dir)} is up to date ({count} rulebooks)")


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n):
        pass


@command()
@click.argument("paths", nargs=-1)
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 listing files that would change.")
@click.option("--diff", "show_diff", is_flag=True, help="Show what would change as a unified diff (writes nothing).")
def fmt(paths, check_only, show_diff, as_json):
    """Rewrite rulebooks in the canonical layout.

    PATHS are files, folders (every .civ inside) or shipped edition ids; with none, the
    rulebooks of the current folder (rulebooks/ and rulebooks/house/ included). Comments are
    kept; files with syntax errors are reported and never rewritten, and nothing inside an
    installed civdsl package is ever rewritten."""
    from ..fmt import format_file
    from ..resources import local_rulebooks, rulebook_paths

    if not paths and local_rulebooks() is None:
        fail("no rulebooks in the current folder (rulebooks/*.civ, or *.civ): give the files or folders to format")
    targets = rulebook_paths(paths)
    run = _FmtRun(check_only, show_diff, as_json)
    if run.writes:
        _refuse_installed(targets)
    for path in targets:
        run.file(path, format_file(path))
    if as_json:
        emit_json(run.answer(), rulebooks=[_display(p) for p in targets])
    else:
        run.summary()
    sys.exit(1 if run.failed or (run.changed and check_only) else 0)


def _refuse_installed(targets: list) -> None:
    """Nothing inside an installed civdsl package is ever rewritten."""
    locked = [_display(p) for p in targets if _inside_installed_package(p)]
    if locked:
        fail(f"{', '.join(locked)}: part of the installed civdsl package, never rewritten (copy the file "
             f"to change it, or use --diff)")


def _files(n: int) -> str:
    return _counted(n, "file")


class _FmtRun:
    """What `fmt` did to each file: formatted (or would), unchanged, or not formatted (an error)."""

    def __init__(self, check_only: bool, show_diff: bool, as_json: bool):
        self.check_only, self.show_diff, self.as_json = check_only, show_diff, as_json
        self.writes = not (check_only or show_diff)
        self.failed: list[dict] = []
        self.changed: list[str] = []
        self.diffs: dict[str, str] = {}
        self.unchanged = 0

    def say(self, text: str, **kw) -> None:
        if not self.as_json:
            click.echo(text, **kw)

    def file(self, path, res) -> None:
        name = _display(path)
        if res.error is not None:
            self._failure(name, res.error)
        elif not res.changed:
            self.unchanged += 1
        else:
            self._changed(path, name, res)

    def _failure(self, name: str, error) -> None:
        diagnostics = error.diagnostics if error.diagnostics is not None and error.diagnostics.items else None
        self.failed.append({"path": name, "message": str(error),
                            "diagnostics": [d.to_json() for d in diagnostics.sorted()] if diagnostics else []})
        if self.as_json:
            return
        if diagnostics is not None:
            echo(diagnostics.render(color=use_color(err=True)), err=True)
        else:
            click.echo(f"error: {error}", err=True)
        click.echo(f"{name}: not formatted", err=True)

    def _changed(self, path, name: str, res) -> None:
        import difflib

        from ..atomicfile import atomic_write

        self.changed.append(name)
        if self.show_diff:
            self.diffs[name] = "".join(difflib.unified_diff((res.old_text or "").splitlines(True),
                                                            res.new_text.splitlines(True), f"{name}",
                                                            f"{name} (formatted)"))
            self.say(self.diffs[name], nl=False)
        if self.check_only:
            self.say(f"would reformat {name}")
        elif self.writes:
            atomic_write(path, res.new_text)
            self.say(f"formatted {name}")

    def answer(self) -> dict:
        """What `fmt --json` answers."""
        answer = {"changed": self.changed, "unchanged": self.unchanged, "failed": self.failed, "written": self.writes}
        if self.show_diff:
            answer["diffs"] = self.diffs
        return answer

    def summary(self) -> None:
        changed, unchanged = len(self.changed), self.unchanged
        if changed and not self.writes:
            click.echo(f"{_files(changed)} would be reformatted, {unchanged} already formatted", err=True)
        elif not self.failed:
            click.echo(f"{_files(changed)} formatted, {unchanged} unchanged" if self.writes
                       else f"{_files(unchanged)} already formatted")


@command()
@click.argument("name")
@click.option("--from", "--base", "--extends", "base", default="megaciv", show_default=True,
              help="The rulebook to extend: a shipped edition id or a path.")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False), help="Where to write it (default: NAME.civ).")
@click.option("--title", help="Display name (default: derived from NAME and the base).")
def new(name, base, output, title, as_json):
    """Write a commented house-rule skeleton NAME.civ that extends a rulebook (--from) and passes `civdsl check`."""
    from ..scaffold import ScaffoldError, check_name, skeleton

    out = Path(output) if output else Path(f"{name}.civ")
    try:
        check_name(name)
        _check_new_file(out)
        text = skeleton(name, base, out, title)
    except ScaffoldError as exc:
        raise UserError(str(exc)) from None
    _write_new(out, text)
    if as_json:
        emit_json({"path": str(out), "extends": base}, name)
        return
    click.echo(f"wrote {shown_name(out)}: a house rule `{name}` extending {base}")
    click.echo(f"next: edit it, then `civdsl check {shown_name(out)}`")


def _check_new_file(out: Path) -> None:
    """`new` writes a new file, into an existing folder of the user's own."""
    from ..scaffold import ScaffoldError

    if out.exists():
        raise ScaffoldError(f"{shown_name(out)} already exists; not overwriting it (choose another -o, or delete it first)")
    if not out.parent.exists():
        raise ScaffoldError(f"folder {out.parent} does not exist")
    if _inside_installed_package(out):
        raise ScaffoldError(f"{shown_name(out)} is inside the installed civdsl package: write it into a folder of your own")


def _write_new(out: Path, text: str) -> None:
    """Never overwrite: create the file exclusively, then fill it atomically."""
    import os

    from ..atomicfile import atomic_write

    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise UserError(f"{shown_name(out)} already exists; not overwriting it") from None
    os.close(fd)
    atomic_write(out, text)


@command()
@click.argument("a")
@click.argument("b")
@click.option("--format", "fmt", type=click.Choice(["text", "md"]), default="text", show_default=True,
              help="Text for a terminal, or Markdown for a web page or a pull request (--json for data).")
@click.option("--prose", is_flag=True, help="Also list changed summaries, notes and descriptions.")
@click.option("--exit-code", "exit_code", is_flag=True,
              help="Exit 1 when the rules differ (as `git diff --exit-code`); prose counts only with --prose.")
@click.option("--impact", "show_impact", is_flag=True,
              help="What the change does to players: every calamity and role, price and A.S.T. track resolved in "
                   "both rulebooks over a grid of situations; per item, how many situations change and by how much.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="With --impact: the seed of the situations drawn where a space is too large to walk whole.")
def diff(a, b, fmt, prose, exit_code, show_impact, seed, as_json):
    """What changes from rulebook A to rulebook B (edition ids or paths, in any mix).

    Compares the resolved rules (a house rule with everything it inherits): advances,
    calamities and commodities field by field, constants, credit policy, vp tiers, A.S.T.
    epochs and their requirements, score lines. Exit 0 whether or not they differ, unless
    --exit-code.
    """
    if show_impact:
        _impact(a, b, seed, exit_code, as_json)
        return
    from ..diff import diff as compute_diff
    from ..diff import load_edition, render_md, render_text, to_json

    ea, eb = load_edition(a), load_edition(b)
    changes = compute_diff(ea, eb)
    differ = any(prose or c.section != "prose" for c in changes)
    if as_json:
        emit_json(to_json(ea, eb, changes), rulebooks=[ea.id, eb.id])
    elif fmt == "md":
        click.echo(render_md(ea, eb, changes, prose=prose), nl=False)
    else:
        echo(render_text(ea, eb, changes, color=use_color(), prose=prose))
    sys.exit(1 if exit_code and differ else 0)


def _impact(a: str, b: str, seed: int, exit_code: bool, as_json: bool) -> None:
    """`diff --impact`: the impact report, as text or JSON."""
    from ..api import impact_of
    from ..impact import render_text

    result = impact_of(a, b, seed)
    if as_json:
        emit_json({"impact": result.to_dict()}, rulebooks=[result.a, result.b])
    else:
        echo(render_text(result))
    sys.exit(1 if exit_code and result.changed() else 0)


@command()
@click.argument("words", nargs=-1, required=True, metavar="CODE | RULEBOOK ITEM")
def explain(words, as_json):
    """Explain a diagnostic code, or everything a rulebook says about one advance, calamity or
    player fact.

    \b
    civdsl explain CIV012             a diagnostic code
    civdsl explain megaciv Pottery    an advance or a calamity
    civdsl explain megaciv cities     a player fact and the rules that read it"""
    if len(words) == 1:
        from ..codes import explain as explain_code

        text = explain_code(words[0])
        if text is None:
            fail(f"no diagnostic code {words[0]!r} (codes look like CIV012; for an item: civdsl explain RULEBOOK ITEM)")
        if as_json:
            emit_json({"code": words[0].upper(), "text": text}, None)
            return
        click.echo(text)
        return
    if len(words) != 2:
        raise click.UsageError("give a code (civdsl explain CIV012) or a rulebook and an item "
                               "(civdsl explain megaciv Famine)")
    from ..itemexplain import explain_item

    text = explain_item(words[0], words[1])
    if as_json:
        emit_json({"item": words[1], "text": text}, words[0])
        return
    click.echo(text)


@command()
def vocab(as_json):
    """The language's vocabulary: effect kinds, abilities, player facts and functions."""
    from .. import vocabulary as v

    if as_json:
        answer = {key: {e.name: entry(e) for e in entries.values()} for key, entries, entry in _vocab_json(v)}
        emit_json({**answer, "relations": dict(v.RELATIONS)}, None)
        return
    for title, entries, line in _vocab_sections(v):
        click.echo(f"{title}:")
        for entry in entries:
            click.echo(f"  {line(entry)}")


def _kind_json(k) -> dict:
    return {"params": [p.__dict__ for p in k.params], "doc": k.doc}


def _vocab_json(v) -> tuple:
    """(key, entries by name, one entry's data) for each part of `civdsl vocab --json`, in order."""
    return (
        ("effects", v.EFFECT_KINDS, _kind_json),
        ("abilities", v.ABILITY_KINDS, _kind_json),
        ("facts", v.FACTS, lambda f: {"type": f.type, "doc": f.doc}),
        ("functions", v.FUNCTIONS, lambda f: {"args": f.args, "kwargs": f.kwargs, "doc": f.doc}),
        ("engine_names", v.ENGINE_NAMES, lambda e: {"declared_as": e.declared_as, "type": e.type,
                                                    "default": e.default, "minimum": e.minimum, "doc": e.doc}),
        ("resolution_settings", v.RESOLUTION_SETTINGS, lambda s: {"values": s.values, "default": s.default,
                                                                  "per_calamity": s.per_calamity, "doc": s.doc}),
    )


def _params(k) -> str:
    return ", ".join(p.name + ("" if p.required else "=" + str(p.default)) for p in k.params)


def _vocab_sections(v) -> tuple:
    """(title, entries, one entry's line) for each part of `civdsl vocab`'s text, in order."""
    return (
        ("Effect kinds", v.EFFECT_KINDS.values(), lambda k: f"{k.name}({_params(k)}): {k.doc}"),
        ("Abilities", v.ABILITY_KINDS.values(), lambda k: f"{k.name}({_params(k)}): {k.doc}"),
        ("Player facts", v.FACTS.values(), lambda f: f"{f.name} ({f.type}): {f.doc}"),
        ("Derived names", v.DERIVED_NAMES.items(), lambda nd: f"{nd[0]}: {nd[1]}"),
        ("Functions", v.FUNCTIONS.values(),
         lambda f: f"{f.name}({', '.join(list(f.args) + [k + '=' for k in f.kwargs])}): {f.doc}"),
        ("Resolution settings (`resolution { ... }`, the calamity phase of `civdsl table`)", v.RESOLUTION_SETTINGS.values(),
         lambda s: f"{s.name} {s.values if isinstance(s.values, str) else '|'.join(s.values)}"
                   f"{' (also per calamity)' if s.per_calamity else ''}: {s.doc}"),
        ("Table relations (`by=`, `among=` of table queries; a table file's `borders`)", v.RELATIONS.items(),
         lambda nd: f"{nd[0]}: {nd[1]}"),
        ("Constants and tables the engine reads by name", v.ENGINE_NAMES.values(),
         lambda e: f"{e.declared_as} {e.name} ({e.type} >= {e.minimum}"
                   f"{'' if e.default is None else f', default {e.default}'}): {e.doc}"),
    )


@command()
@click.argument("rulebook")
@click.option("--text", "copy", type=click.Path(dir_okay=False), default=None, metavar="RULES.txt",
              help="Your copy of the printed rules: list the clauses whose text differs from the copy the clause "
                   "list was made from, and the new and gone ones.")
@click.option("--format", "fmt", type=click.Choice(["text", "md", "html"]), default="text", show_default=True,
              help="Text for a terminal, Markdown or HTML for a page (--json for data).")
@click.option("--all", "show_all", is_flag=True, help="List every clause (text lists only the uncovered and changed).")
def cover(rulebook, copy, fmt, show_all, as_json):
    """Which statement implements each printed clause of RULEBOOK, which are acknowledged, which
    are uncovered; with --text, what a new printing changes. Exit 1 when a clause of a chapter the
    clause list requires is uncovered."""
    from pathlib import Path

    from ..api import locate
    from ..coverage import cover as compute, render_html, render_md, render_text, to_json
    from ..errors import RulebookError
    from ..frontend import check_file
    from ..segment import TextTooLarge

    checked = check_file(locate(rulebook))
    if not checked.ok:
        raise RulebookError(f"{rulebook} has errors", checked.diagnostics)
    from .. import clauses as clause_lists
    from ..diagnostics import Diagnostics

    if checked.edition.clause_list is None:
        fail(f"{rulebook} has no clause list (clauses/{checked.edition.id}.clauses beside the rulebook); "
             "tools/make_clauses.py makes one from a copy of the rules")
    diags = Diagnostics()
    listed = clause_lists.read(Path(checked.edition.clause_list[0]), diags)
    text = None
    if copy is not None:
        try:
            text = Path(copy).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            fail(f"error: cannot read {copy}: {os_error(exc).removeprefix(f'{exc.filename}: ')}")
    try:
        report = compute(checked, listed, text)
    except TextTooLarge as exc:
        fail(f"error: {copy}: {exc}")
    if as_json:
        emit_json(to_json(report), rulebook)
    elif fmt == "md":
        click.echo(render_md(report), nl=False)
    elif fmt == "html":
        click.echo(render_html(report), nl=False)
    else:
        echo(render_text(report, full=show_all))
    sys.exit(1 if report.required_uncovered else 0)
