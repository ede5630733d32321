"""`civdsl chart`: one chart of one rulebook, in one format, to stdout or a file (the charts are
drawn by civdsl.charts)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .common import fail as _fail

KINDS = ("calamities", "advances", "credits", "explorer", "epochs", "commodities", "all")
FORMATS = ("md", "html", "csv", "json", "yaml", "svg", "dot")

# The part of the compiled model (serialize.to_data) each kind shows in JSON and YAML.
MODEL_KEYS = {
    "calamities": ("id", "name", "calamities"),
    "advances": ("id", "name", "groups", "vp_tiers", "advances"),
    "credits": ("id", "name", "credit_policy", "groups", "advances"),
    "explorer": ("id", "name", "groups", "vp_tiers", "advances"),
    "epochs": ("id", "name", "asts"),
    "commodities": ("id", "name", "commodities", "set_value", "decks"),
}


def _load(rulebook: str):
    from ..api import RulebookError, locate
    from ..compiler import check_file

    try:
        path = locate(rulebook)
    except RulebookError as exc:
        _fail(f"error: {exc}")
    checked = check_file(path)
    if not checked.ok:
        click.echo(checked.diagnostics.render(color=sys.stderr.isatty()), err=True)
        sys.exit(1)
    base = None
    if len(checked.chain) >= 2:
        parent = check_file(checked.chain[-2].path)
        if parent.ok:
            base = parent.edition
    return checked.edition, base


def render_chart(edition, base, kind: str, fmt: str) -> tuple[dict[str, str | bytes], list[str]]:
    """{file name: content} for one kind in one format (several files only for CSV of `all`)."""
    from ..serialize import to_data
    from ..charts import charts_for, model_yaml
    from ..charts.cells import chips_for
    from ..charts.diff import compute
    from ..charts.explorer import to_dot, to_svg
    from ..charts.html import edition_page
    from ..charts.markdown import csv_table, md_chart
    from ..charts.tables import house_chart

    if fmt in ("svg", "dot") and kind != "explorer":
        raise click.UsageError(f"--format {fmt} draws the strategy explorer: use --kind explorer")
    if fmt in ("json", "yaml"):
        data = to_data(edition)
        if kind != "all":
            data = {k: data[k] for k in MODEL_KEYS[kind]}
        text = (json.dumps(data, indent=2, ensure_ascii=False) + "\n") if fmt == "json" else model_yaml(data)
        return {f"{kind}.{fmt}": text}, []
    marks = compute(base, edition).marks("advances") if base is not None else None
    if fmt == "dot":
        return {"explorer.dot": to_dot(edition, marks)}, []
    if fmt == "svg":
        svg, problem = to_svg(to_dot(edition, marks))
        if svg is None:
            raise click.ClickException(problem)
        return {"explorer.svg": svg}, []
    charts, diff = charts_for(edition, base)
    chosen = list(charts.values()) if kind == "all" else [charts[kind]]
    if diff is not None and kind == "all":
        chosen = [house_chart(edition, base, diff)] + chosen
    if fmt == "md":
        return {f"{kind}.md": "\n".join(md_chart(c, edition.name) for c in chosen)}, []
    if fmt == "html":
        return {f"{kind}.html": edition_page(edition, chosen, chips_for(edition), house=diff is not None)}, []
    # csv: every table of the chosen charts
    out = {}
    for c in chosen:
        for t in c.tables:
            if t.csv:
                out[f"{t.slug}.csv"] = csv_table(t)
    return out, []


@click.command("chart")
@click.argument("rulebook")
@click.option("--kind", type=click.Choice(KINDS), default="all", show_default=True, help="Which chart.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="md", show_default=True, help="Output format.")
@click.option("-o", "--output", "out", type=click.Path(), help="Write to this file (a folder for several CSV files).")
def chart(rulebook, kind, fmt, out):
    """Quick-reference charts of RULEBOOK (an edition id or a .civ file)."""
    edition, base = _load(rulebook)
    files, messages = render_chart(edition, base, kind, fmt)
    for m in messages:
        click.echo(m, err=True)
    if len(files) > 1 or (fmt == "csv" and kind == "all"):
        if not out:
            primary = _primary_csv(kind, files)
            if primary is None:
                _fail(f"error: --kind {kind} --format csv writes {len(files)} files: give a folder with -o")
            files = {primary: files[primary]}
        else:
            folder = Path(out)
            folder.mkdir(parents=True, exist_ok=True)
            for name, content in files.items():
                _write(folder / name, content)
            click.echo(f"wrote {len(files)} files into {folder}", err=True)
            return
    (name, content), = files.items()
    if out:
        _write(Path(out), content)
        return
    if isinstance(content, bytes):
        sys.stdout.buffer.write(content)
    else:
        click.echo(content, nl=False)


def _primary_csv(kind: str, files: dict) -> str | None:
    """The main table of a kind, printed alone when no folder is given."""
    main = {"calamities": "calamities.csv", "advances": "advances.csv", "credits": "credits.csv",
            "explorer": "explorer-edges.csv", "epochs": "epochs.csv", "commodities": "commodities.csv"}
    name = main.get(kind)
    return name if name in files else None


def _write(path: Path, content) -> None:
    from ..build import atomic_write

    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, content)
