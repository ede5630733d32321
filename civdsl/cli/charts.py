"""`civdsl chart`: one chart of one rulebook, in one format, to stdout or a file (the charts are
drawn by civdsl.charts)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .common import command, emit_json
from .common import fail as _fail

KINDS = ("turns", "calamities", "glance", "advances", "credits", "explorer", "epochs", "commodities", "reference", "all")


def _kinds(ctx, param, value: str) -> str:
    """--kind: one kind, or several separated by commas (a cheat sheet: "calamities,epochs")."""
    parts = [k.strip() for k in value.split(",") if k.strip()]
    bad = [k for k in parts if k not in KINDS]
    if not parts or bad:
        raise click.BadParameter(f"{', '.join(bad) or 'nothing'} is not a chart; choose from {', '.join(KINDS)}, "
                                 "or several separated by commas")
    if "all" in parts and len(parts) > 1:
        raise click.BadParameter("`all` already holds every chart")
    return ",".join(dict.fromkeys(parts))
FORMATS = ("md", "html", "csv", "json", "yaml", "svg", "dot")

# The part of the compiled model (serialize.to_data) each kind shows in JSON and YAML.
MODEL_KEYS = {
    "calamities": ("id", "name", "calamities"),
    "advances": ("id", "name", "groups", "vp_tiers", "advances"),
    "credits": ("id", "name", "credit_policy", "groups", "advances"),
    "explorer": ("id", "name", "groups", "vp_tiers", "advances"),
    "epochs": ("id", "name", "asts"),
    "commodities": ("id", "name", "commodities", "set_value", "decks"),
    "glance": ("id", "name", "calamities"),
    "turns": ("id", "name"),
}


def _load(rulebook: str):
    from ..api import RulebookError, locate
    from ..frontend import check_file

    checked = check_file(locate(rulebook))
    if not checked.ok:
        raise RulebookError(f"{rulebook} has errors", checked.diagnostics)
    base = None
    if len(checked.chain) >= 2:
        parent = check_file(checked.chain[-2].path)
        if parent.ok:
            base = parent.edition
    return checked.edition, base


def render_chart(edition, base, kind: str, fmt: str) -> tuple[dict[str, str | bytes], list[str]]:
    """{file name: content} for one kind in one format (several files only for CSV of `all`)."""
    if fmt in ("svg", "dot") and kind != "explorer":
        raise click.UsageError(f"--format {fmt} draws the strategy explorer: use --kind explorer")
    if fmt in ("json", "yaml"):
        return _model_files(edition, kind, fmt), []
    if fmt in ("svg", "dot"):
        return _explorer_files(edition, base, fmt), []
    chosen, diff, reference = _chosen_charts(edition, base, kind.split(","))
    return _CHART_FILES[fmt](edition, kind, chosen, diff, reference), []


def _md_files(edition, kind: str, chosen: list, diff, reference: str | None) -> dict[str, str]:
    from ..charts.markdown import md_chart

    parts = [md_chart(c, edition.name) for c in chosen] + ([reference] if reference else [])
    return {f"{kind.replace(',', '-')}.md": "\n".join(parts)}


def _csv_files(edition, kind: str, chosen: list, diff, reference: str | None) -> dict[str, str]:
    """Every table of the chosen charts."""
    from ..charts.markdown import csv_table

    return {f"{t.slug}.csv": csv_table(t) for c in chosen for t in c.tables if t.csv}


def _model_files(edition, kind: str, fmt: str) -> dict[str, str]:
    """The part of the compiled model the chart shows, as JSON or YAML."""
    import json

    from ..charts import model_yaml
    from ..serialize import to_data

    data = to_data(edition)
    if kind != "all":
        keys = [key for k in kind.split(",") for key in MODEL_KEYS.get(k, ("id", "name"))]
        data = {k: data[k] for k in dict.fromkeys(keys)}
    text = (json.dumps(data, indent=2, ensure_ascii=False) + "\n") if fmt == "json" else model_yaml(data)
    return {f"{kind}.{fmt}": text}


def _explorer_files(edition, base, fmt: str) -> dict[str, str | bytes]:
    """The strategy explorer as Graphviz source or drawn (what a house rule changes marked)."""
    from ..charts.diff import compute
    from ..charts.explorer import to_dot, to_svg

    marks = compute(base, edition).marks("advances") if base is not None else None
    if fmt == "dot":
        return {"explorer.dot": to_dot(edition, marks)}
    svg, problem = to_svg(to_dot(edition, marks))
    if svg is None:
        raise click.ClickException(problem)
    return {"explorer.svg": svg}


def _chosen_charts(edition, base, kinds: list[str]) -> tuple[list, object, str | None]:
    """(the charts asked for, the house rule's diff against its base or None, the round reference
    text or None). `all` is every chart the edition has items for; a chart asked for by name is
    drawn even when empty."""
    from ..charts import charts_for
    from ..charts.builders import glance_chart, house_chart, marks_for

    every = kinds == ["all"]
    charts, diff = charts_for(edition, base, only_content=every)
    if "glance" in kinds:  # the cheat-sheet view of the calamities, never part of `all`
        charts["glance"] = glance_chart(edition, marks_for(diff, "calamities"))
    _check_drawn(edition, kinds, charts)
    chosen = list(charts.values()) if every else [charts[k] for k in kinds if k in charts]
    if diff is not None and every:
        chosen = [house_chart(edition, base, diff)] + chosen
    return chosen, diff, _round_reference(edition, kinds)


def _check_drawn(edition, kinds: list[str], charts: dict) -> None:
    """A chart asked for by name that the edition has none of is an error."""
    missing = [k for k in kinds if k not in ("all", "reference") and k not in charts]
    if missing:
        raise click.ClickException(f"{edition.name} has no {', '.join(missing)} chart")


def _round_reference(edition, kinds: list[str]) -> str | None:
    """The round reference of an edition with round rules: part of `all`, or asked for by name."""
    from ..rounds.reference import render_round_reference

    if "all" not in kinds and "reference" not in kinds:
        return None
    reference = render_round_reference(edition).get("reference.md")
    if "reference" in kinds and reference is None:
        raise click.ClickException(f"{edition.name} declares no round rules: it has no round reference")
    return reference


def _html_files(edition, kind: str, chosen: list, diff, reference: str | None) -> dict[str, str]:
    from ..charts.cells import chips_for
    from ..charts.html import edition_page
    from ..charts.mdhtml import to_html

    if reference and not chosen:
        return {f"{kind}.html": to_html(reference, f"{edition.name}: round reference")}
    # several kinds chosen by name make a cheat sheet: printed denser
    return {f"{kind.replace(',', '-')}.html": edition_page(edition, chosen, chips_for(edition),
                                                           house=diff is not None, sheet=len(kind.split(",")) > 1)}


# how each format of the charts writes the charts chosen
_CHART_FILES = {"md": _md_files, "html": _html_files, "csv": _csv_files}


@command()
@click.argument("rulebook")
@click.option("--kind", default="all", show_default=True, callback=_kinds,
              help=f"Which chart: {', '.join(KINDS)}; several separated by commas make a cheat sheet.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="md", show_default=True,
              help="The chart's notation (json and yaml give the part of the compiled model the chart shows).")
@click.option("-o", "--output", "out", type=click.Path(), help="Write to this file (a folder for several CSV files).")
def chart(rulebook, kind, fmt, out, as_json):
    """Quick-reference charts of RULEBOOK (an edition id or a .civ file).

    With --json the answer is one object holding every file of the chart by name (written to
    -o instead when given, and then listed)."""
    edition, base = _load(rulebook)
    files, messages = render_chart(edition, base, kind, fmt)
    for m in messages:
        click.echo(m, err=True)
    if as_json:
        _answer_json(edition.id, kind, fmt, files, out)
        return
    if len(files) > 1 or (fmt == "csv" and kind == "all"):
        if out:
            _write_folder(Path(out), files)
            click.echo(f"wrote {len(files)} files into {Path(out)}", err=True)
            return
        files = _primary_only(kind, files)
    (name, content), = files.items()
    if out:
        _write(Path(out), content)
    else:
        _print(content)


def _print(content: str | bytes) -> None:
    """One file to stdout: bytes as they are, text through click."""
    if isinstance(content, bytes):
        sys.stdout.buffer.write(content)
    else:
        click.echo(content, nl=False)


def _write_folder(folder: Path, files: dict) -> list[str]:
    """Write FILES into FOLDER; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        _write(folder / name, content)
    return [str(folder / name) for name in files]


def _primary_only(kind: str, files: dict) -> dict:
    """Several files with no folder to write them to: the kind's main table alone, if it has one."""
    primary = _primary_csv(kind, files)
    if primary is None:
        _fail(f"error: --kind {kind} --format csv writes {len(files)} files: give a folder with -o")
    return {primary: files[primary]}


def _answer_json(rulebook: str, kind: str, fmt: str, files: dict, out: str | None) -> None:
    answer: dict = {"kind": kind, "format": fmt}
    if out:
        answer["written"] = _write_files(Path(out), files)
    else:
        answer["files"] = {name: content.decode("utf-8") if isinstance(content, bytes) else content
                           for name, content in files.items()}
    emit_json(answer, rulebook)


def _write_files(out: Path, files: dict) -> list[str]:
    """Write FILES to OUT (a folder when there are several); the paths written."""
    if len(files) > 1:
        return _write_folder(out, files)
    for content in files.values():
        _write(out, content)
    return [str(out)] * len(files)


def _primary_csv(kind: str, files: dict) -> str | None:
    """The main table of a kind, printed alone when no folder is given."""
    main = {"calamities": "calamities.csv", "advances": "advances.csv", "credits": "credits.csv",
            "explorer": "explorer-edges.csv", "epochs": "epochs.csv", "commodities": "commodities.csv"}
    name = main.get(kind)
    return name if name in files else None


def _write(path: Path, content) -> None:
    from .common import os_error, write_output

    try:
        if path.parent and not path.parent.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _fail(f"error: cannot write {path}: {os_error(exc).removeprefix(f'{exc.filename}: ')}")
    write_output(path, content)
