"""Where the grammar, the schemas and the shipped rulebooks live, installed or in a checkout.

In a checkout they are the top-level folders grammar/, schemas/ and rulebooks/; an installed
package carries the same folders as package data (civdsl.grammar, civdsl.schemas,
civdsl.rulebooks; see pyproject.toml), so one lookup serves both.
"""

from __future__ import annotations

import functools
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


def _folder(name: str) -> Path:
    installed = Path(__file__).resolve().parent / name  # package data of an installed copy
    if installed.is_dir():
        return installed
    return _CHECKOUT / name


def grammar_path() -> Path:
    return _folder("grammar") / "civdsl.lark"


def grammar_parts() -> list[Path]:
    """The grammar's files: the main language, then each sub-language composed into it with
    `%extend` (today the round rules of civdsl/rounds/)."""
    return [grammar_path(), Path(__file__).resolve().parent / "rounds" / "grammar.lark"]


@functools.lru_cache(maxsize=1)
def grammar_text() -> str:
    """The whole grammar: the parts joined in order (a part may extend rules of an earlier one)."""
    return "\n".join(p.read_text(encoding="utf-8") for p in grammar_parts())


def schemas_dir() -> Path:
    return _folder("schemas")


def rulebooks_dir() -> Path:
    return _folder("rulebooks")


def shipped_rulebooks() -> dict[str, Path]:
    """Edition id -> path of every shipped rulebook (the file stem is its id)."""
    root = rulebooks_dir()
    return {p.stem: p for p in sorted(root.glob("*.civ"))}


def shipped_house_rules() -> list[Path]:
    return sorted((rulebooks_dir() / "house").glob("*.civ"))
