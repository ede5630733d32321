"""Quick-reference charts generated from the compiled model (see docs/charts.md).

`render_all(edition, base)` renders every chart file of one edition; `site_files(results)` the
top-level index and the cross-edition comparison of a full build. All chart words are made
from structure (describe.py); rulebook `summary` and `note` strings are shown as quotations.
"""

from __future__ import annotations

from fractions import Fraction

import yaml

from ..model import Edition
from ..serialize import to_data
from . import builders
from .cells import Link, chips_for
from .diff import Diff, compute
from .explorer import to_dot, to_svg
from .html import edition_page
from .markdown import csv_table, href, legend_md, md_chart, md_escape

__all__ = ["render_all", "site_files", "charts_for", "model_yaml"]

CHART_TITLES = {"turns": "Turn sequence", "calamities": "Calamities", "advances": "Advances", "credits": "Credits matrix and chains",
                "explorer": "Strategy explorer", "epochs": "Epochs (A.S.T.)", "commodities": "Commodities"}


def charts_for(edition: Edition, base: Edition | None = None, only_content: bool = False):
    """(charts by kind, diff or None): the format-neutral charts of one edition (with ONLY_CONTENT,
    only the kinds the edition declares items for)."""
    diff = compute(base, edition) if base is not None else None
    return builders.build(edition, diff, only_content), diff


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
    """Safe YAML (libyaml's emitter when present: same bytes, faster) that also writes exact
    fractions, as model.json does: an integer, or the string "n/d"."""


def _fraction(dumper, value: Fraction):
    if value.denominator == 1:
        return dumper.represent_int(int(value))
    return dumper.represent_str(f"{value.numerator}/{value.denominator}")


_Dumper.add_representer(Fraction, _fraction)


def model_yaml(data) -> str:
    """The compiled model as YAML, in the model's own order."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100)


def _readme(ed: Edition, charts, diff: Diff | None, base: Edition | None, files: dict) -> str:
    out = [f"# {md_escape(ed.name)}: quick-reference charts", "",
           f"Generated from the compiled rulebook of edition `{md_escape(ed.id)}`. "
           f"Printable page: [{md_escape(ed.id)}.html]({href(ed.id + '.html')}).", ""]
    if diff is not None:
        out += [f"A house rule on {md_escape(base.name)}: see the [house-rule summary](house-summary.md); "
                "rows it adds or changes are marked in every chart.", ""]
    if "charts/impact.md" in files:
        out += ["What it changes for players, situation by situation: [impact.md](impact.md) (printable: "
                "[impact.html](impact.html)).", ""]
    legend = legend_md(chips_for(ed), signs=bool(ed.calamities))
    if legend:
        out += [legend, ""]
    if not charts:
        out += [md_escape(builders.nothing_chart(ed).intro[0]), ""]
    out += [_readme_line(kind, chart, files) for kind, chart in charts.items()]
    if "charts/reference.md" in files:
        out.append("- [the round reference](reference.md) (printable: [reference.html](reference.html))")
    out += ["- [the compiled model as YAML](model.yaml); as JSON: [../model.json](../model.json)", ""]
    return "\n".join(out)


def _readme_line(kind: str, chart, files: dict) -> str:
    """A chart's line in the README, with its CSV files (and the explorer's drawing)."""
    extra = [f"[{md_escape(t.slug)}.csv]({href(t.slug + '.csv')})" for t in chart.tables
             if t.csv and f"charts/{t.slug}.csv" in files]
    if kind == "explorer" and "charts/explorer.dot" in files:
        # listed whether or not Graphviz drew the SVG here: the README never depends on it
        extra += ["[explorer.svg](explorer.svg) (drawn where Graphviz is installed)", "[explorer.dot](explorer.dot)"]
    return f"- [{md_escape(CHART_TITLES[kind])}]({kind}.md)" + (f" ({', '.join(extra)})" if extra else "")


def render_all(edition: Edition, base: Edition | None = None, effect=None) -> tuple[dict[str, str | bytes], list[str]]:
    """Every chart file of one edition, keyed by path under generated/<edition>/, and messages;
    with EFFECT (a house rule's impact against BASE, impact.py), its impact page too."""
    charts, diff = charts_for(edition, base, only_content=True)
    files: dict[str, str | bytes] = {}
    messages: list[str] = []
    for kind, chart in charts.items():
        files.update(_chart_files(kind, chart, edition.name))
    if "explorer" in charts:
        messages += _explorer_files(edition, diff, files)
    files["charts/model.yaml"] = model_yaml(to_data(edition))
    files.update(_round_reference_files(edition))
    files.update(_pages(edition, base, charts, diff, has_reference="charts/reference.html" in files))
    if effect is not None and base is not None:
        files.update(impact_files(edition, base, effect))
    files["charts/README.md"] = _readme(edition, charts, diff, base, files)
    return dict(sorted(files.items())), messages


def _chart_files(name: str, chart, edition_name: str) -> dict[str, str]:
    """A chart in Markdown and each of its tables written as CSV."""
    files = {f"charts/{name}.md": md_chart(chart, edition_name)}
    files.update({f"charts/{t.slug}.csv": csv_table(t) for t in chart.tables if t.csv})
    return files


def _explorer_files(edition: Edition, diff: Diff | None, files: dict) -> list[str]:
    """Add the strategy explorer's Graphviz source to FILES, and its drawing where Graphviz is
    installed; the message saying why it could not be drawn, if any."""
    dot = to_dot(edition, builders.marks_for(diff, "advances"))
    files["charts/explorer.dot"] = dot
    svg, problem = to_svg(dot)
    if svg is not None:
        files["charts/explorer.svg"] = svg
        return []
    return [problem] if problem else []


def _round_reference_files(edition: Edition) -> dict[str, str]:
    """Editions with round rules (stats, phases, dice) get their own printable reference."""
    from ..rounds.reference import render_round_reference
    from .mdhtml import to_html

    files = {}
    for name, text in render_round_reference(edition).items():
        files[f"charts/{name}"] = text
        if name.endswith(".md"):
            files[f"charts/{name[:-3]}.html"] = to_html(text, f"{edition.name}: round reference")
    return files


def _pages(edition: Edition, base: Edition | None, charts: dict, diff: Diff | None, has_reference: bool) -> dict:
    """The printable page of every chart; for a house rule also its summary, first on the page and
    on a page (and in Markdown and CSV) of its own."""
    chips = chips_for(edition)
    page_charts = list(charts.values()) or [builders.nothing_chart(edition)]
    files = {}
    subtitle = ""
    if diff is not None:
        house = builders.house_chart(edition, base, diff)
        files.update(_chart_files("house-summary", house, edition.name))
        files["charts/house-summary.html"] = edition_page(edition, [house], chips, house=True,
                                                          subtitle=f"A house rule on {base.name}.")
        page_charts = [house] + page_charts
        subtitle = f"A house rule on {base.name}: marked rows differ from it."
    links = [Link("the round reference", "reference.html")] if has_reference else []
    files[f"charts/{edition.id}.html"] = edition_page(edition, page_charts, chips, house=diff is not None,
                                                      subtitle=subtitle, links=links)
    return files


def impact_files(edition: Edition, base: Edition, effect) -> dict[str, str]:
    """A house rule's impact (impact.py) as a printable page, in Markdown and as CSV."""
    chart = builders.impact_chart(effect, base.name)
    files = _chart_files("impact", chart, edition.name)
    files["charts/impact.html"] = edition_page(edition, [chart], chips_for(edition), house=True,
                                               subtitle=f"A house rule on {base.name}: what it changes for players.")
    return files


def site_files(results) -> dict[str, str]:
    """index.html and the cross-edition comparison (compare.md, compare.html) of a full build."""
    from .compare import site

    return site(results)
