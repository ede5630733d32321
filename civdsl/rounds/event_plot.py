"""Round rules, the plot of a simulation: the cumulative share of games in which each event
(a threshold or flag switching on, a track mark reached, the game ending) has happened, by
round. SVG written by hand (no dependency); PNG through matplotlib when it is installed.
"""

from __future__ import annotations

from pathlib import Path

from ..state import StateError
from .simulate import checkpoints, clip


_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442", "#000000")


def _xml(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;"))


def plot_svg(result: dict) -> str:
    """Cumulative share of games in which each event has happened, by round (hand-written SVG)."""
    series = [(ev["label"], ev["by_round"]) for ev in result["events"].values() if ev["share"] > 0]
    width, height = 760, 420
    left, right, top, bottom = 60, 250, 40, 50
    pw, ph = width - left - right, height - top - bottom
    rounds = max(result["rounds"], 1)

    def x(r: float) -> float:
        return left + (r - 1) / max(rounds - 1, 1) * pw

    def y(share: float) -> float:
        return top + (1 - share) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="22" font-size="14">{_xml(result["edition"])}: share of {result["runs"]} games '
           f'in which each event happened, by round (seed {result["seed"]})</text>']
    for i in range(0, 11, 2):
        share = i / 10
        out.append(f'<line x1="{left}" y1="{y(share):.1f}" x2="{left + pw}" y2="{y(share):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 8}" y="{y(share) + 4:.1f}" text-anchor="end">{int(share * 100)}%</text>')
    for r in checkpoints(rounds):
        out.append(f'<text x="{x(r):.1f}" y="{top + ph + 18}" text-anchor="middle">{r}</text>')
    out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 12}" text-anchor="middle">round</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
    for i, (label, values) in enumerate(series):
        color = _COLORS[i % len(_COLORS)]
        points = " ".join(f"{x(r + 1):.1f},{y(v):.1f}" for r, v in enumerate(values))
        out.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"/>')
        ly = top + 14 + i * 18
        out.append(f'<line x1="{left + pw + 12}" y1="{ly - 4}" x2="{left + pw + 30}" y2="{ly - 4}" stroke="{color}" '
                   f'stroke-width="2"/>')
        out.append(f'<text x="{left + pw + 36}" y="{ly}">{_xml(clip(label, 32))}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_plot(result: dict, path: Path) -> None:
    suffix = path.suffix.lower()
    if suffix == ".svg":
        from ..atomicfile import atomic_write

        atomic_write(path, plot_svg(result))
        return
    if suffix != ".png":
        raise StateError(f"--plot {path}: write .svg (or .png with matplotlib installed)")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise StateError(f"--plot {path}: PNG plots need matplotlib, which is not installed; write .svg") from None
    fig, ax = plt.subplots(figsize=(9, 5))
    for ev in result["events"].values():
        if ev["share"] > 0:
            ax.plot(range(1, result["rounds"] + 1), [v * 100 for v in ev["by_round"]], label=ev["label"])
    ax.set_xlabel("round")
    ax.set_ylabel("% of games")
    ax.legend(fontsize="small")
    fig.savefig(path, dpi=100)
    plt.close(fig)
