"""The README's Speed section is a short summary that points to docs/performance.md, where each
goal is a row of the table "Goals" with the command that measures it: run logs and figures live
there, once, so the README cannot fall out of date with them."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _section(path: Path, heading: str) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    start = lines.index(heading)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return [line for line in lines[start + 1:end] if line.strip()]


def test_the_readme_speed_section_is_a_short_summary_pointing_to_the_goals():
    speed = _section(ROOT / "README.md", "## Speed")
    assert 0 < len(speed) <= 12, f"{len(speed)} lines: keep the figures in docs/performance.md"
    assert "(docs/performance.md)" in " ".join(speed)
    assert not [line for line in speed if line.startswith(("|", "```", "    "))], "a table or a log: not a summary"


def test_every_goal_of_the_performance_page_names_its_command():
    rows = [line for line in _section(ROOT / "docs" / "performance.md", "## Goals") if line.startswith("| ")]
    assert rows[0].startswith("| goal | command |") and len(rows) > 10
    for row in rows[2:]:
        command = row.split(" | ")[1]
        assert re.search(r"`[^`]*(?:benchmarks/|civdsl )[^`]*`|same run|`--bound`", command), row[:80]
