"""Synthetic rulebooks N times the size of megaciv.civ, for measuring how commands scale.

    python benchmarks/synthetic.py 16 /tmp/synth16     # writes the chain, prints the main file

The size is a multiple of megaciv.civ's size in bytes. Copy 1 is megaciv.civ itself, without
its author invariants (they count its advances); copies 2, 3, ... (as many as the size needs)
repeat its advances, calamities and commodities under new names
("Pottery 2"), every quoted reference inside a copied block renamed with it, so the copies
credit, require and modify each other as the originals do. The rulebook limits (2 MB and
250,000 tokens a file) allow about 60 copies in one file, so larger sizes are a chain of
files of at most 32 copies each, every file extending the one before.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEGACIV = ROOT / "rulebooks" / "megaciv.civ"
COPIED = ("advance", "calamity", "commodity")
PER_FILE = 32


def _items(text: str) -> list[tuple[str, str]]:
    """(keyword, text) of every top-level statement, comments and blank lines kept with the next."""
    items: list[tuple[str, str]] = []
    lines = text.split("\n")
    i = 0
    pending: list[str] = []
    while i < len(lines):
        line = lines[i]
        word = re.match(r"[a-z_]+", line)
        if not word:
            pending.append(line)
            i += 1
            continue
        block = [line]
        if line.rstrip().endswith("{") and not line.rstrip().endswith("}"):
            i += 1
            while i < len(lines) and lines[i] != "}":
                block.append(lines[i])
                i += 1
            if i < len(lines):
                block.append(lines[i])
        items.append((word.group(), "\n".join(pending + block)))
        pending = []
        i += 1
    if pending:
        items.append(("", "\n".join(pending)))
    return items


def _names(items) -> set[str]:
    out = set()
    for word, text in items:
        if word in COPIED:
            m = re.search(rf'^{word} "([^"]+)"', text, re.M)
            if m:
                out.add(m.group(1))
    return out


def _copy(text: str, names: set[str], j: int) -> str:
    return re.sub(r'"([^"\\\n]+)"', lambda m: f'"{m.group(1)} {j}"' if m.group(1) in names else m.group(0), text)


def generate(times: float, folder: Path) -> Path:
    """Write a rulebook chain `times` megaciv's size (in bytes) into `folder`; the main file's path."""
    folder.mkdir(parents=True, exist_ok=True)
    source = MEGACIV.read_text(encoding="utf-8")
    target = times * len(source.encode("utf-8"))
    items = _items(source)
    names = _names(items)
    first = [text for word, text in items if word != "assert"]
    first[0] = first[0].replace("edition megaciv ", "edition synthetic_1 ", 1)
    body = [text for word, text in items if word in COPIED]
    files: list[Path] = []
    written = 0
    j = 2
    chunk = "\n".join(first)
    in_file = 1
    while True:
        while in_file < PER_FILE and written + len(chunk.encode("utf-8")) < target:
            chunk += "\n\n" + "\n\n".join(_copy(t, names, j) for t in body)
            j += 1
            in_file += 1
        path = folder / f"synthetic_{len(files) + 1}.civ"
        path.write_text(chunk + "\n", encoding="utf-8")
        written += len(chunk.encode("utf-8")) + 1
        files.append(path)
        if written >= target or in_file < PER_FILE:
            return path
        chunk = (f'language 1\nedition synthetic_{len(files) + 1} "Synthetic, file {len(files) + 1}" '
                 f'extends "{path.name}"\n')
        in_file = 0


if __name__ == "__main__":
    print(generate(float(sys.argv[1]), Path(sys.argv[2])))
