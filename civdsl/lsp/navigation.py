"""Go to definition, find references and rename: the index of references answers, across the
extends chain."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import parser, roundexplain
from .engine import Analysis
from .files import FileInfo, Symbol
from .tokens import quote_string


@dataclass
class Target:
    kind: str
    name: str
    scope: str | None
    symbol: Symbol


def target_at(analysis: Analysis, offset: int) -> Target | None:
    sym = analysis.symbol_at(offset)
    return None if sym is None else Target(sym.kind, sym.name, sym.scope, sym)


def definitions(analysis: Analysis, target: Target) -> list[tuple[FileInfo, Symbol]]:
    """Where the thing is declared, the declaration in force first (the nearest file of the chain)."""
    if target.kind == "edition" and target.symbol.role == "ref":
        return _base_header(analysis)
    if target.kind == "edition":
        return [(analysis.doc, target.symbol)]
    return [analysis.located(r) for r in analysis.refs().declarations(target.kind, target.name, target.scope)]


def _base_header(analysis: Analysis) -> list[tuple[FileInfo, Symbol]]:
    """What `extends X` names: the header of the base file (X may be a path)."""
    return [(f, s) for f in analysis.bases[-1:] for s in analysis.symbols(f) if s.kind == "edition" and s.role == "def"]


def references(analysis: Analysis, target: Target, include_declaration: bool = True) -> list[tuple[FileInfo, Symbol]]:
    if target.kind == "edition":  # an edition: its header (see definitions)
        return definitions(analysis, target) if include_declaration else []
    return [analysis.located(r) for r in analysis.refs().named(target.kind, target.name, target.scope)
            if include_declaration or r.role != "def"]


# Names written as strings (their span holds the quotes) and as bare identifiers; the others (player
# facts, editions) are not the rulebook's to rename.
_STRING_NAMED = frozenset({"advance", "calamity", "commodity", "civilization", "epoch"})
_WORD_NAMED = frozenset({"group", "const", "table", "option", "track", *roundexplain.KINDS})
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def rename_edits(analysis: Analysis, offset: int, new_name: str) -> list[tuple[FileInfo, int, int, str]] | None:
    """Every declaration and use of the name under the cursor, across the chain, written anew:
    (file, start, end, new text). None where nothing renamable is; ValueError for a new name that
    cannot stand where the old one does (a constant's must be an identifier and no keyword)."""
    target = target_at(analysis, offset)
    if target is None or target.kind not in _STRING_NAMED | _WORD_NAMED:
        return None
    _check_new_name(analysis, target, new_name)
    text = _written(target.kind, new_name)
    if len(text) > parser.MAX_LINE:
        raise ValueError(f"a name of {len(new_name):,} characters is longer than a line may be "
                         f"({parser.MAX_LINE:,} characters)")
    return [(f, s.start, s.end, text) for f, s in references(analysis, target)]


def _check_new_name(analysis: Analysis, target: Target, new_name: str) -> None:
    """ValueError for a new name no rulebook should hold: empty, with a control character (a line
    break, NUL or ESC would be written raw into every file renamed), or another item's name."""
    import unicodedata

    if not new_name.strip():
        raise ValueError("a new name cannot be empty")
    bad = next((c for c in new_name if unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp")), None)
    if bad is not None:
        raise ValueError(f"a name cannot hold the control character U+{ord(bad):04X}")
    if new_name != target.name and analysis.index is not None and new_name in analysis.index.names(target.kind):
        article = "an" if target.kind[0] in "aeiou" else "a"
        raise ValueError(f"there is already {article} {target.kind} named `{new_name}`")


def _written(kind: str, new_name: str) -> str:
    """A new name as a rulebook writes a name of this kind: quoted, or as it is when it is an
    identifier and no keyword (ValueError otherwise)."""
    if kind in _STRING_NAMED:
        return quote_string(new_name)
    if _IDENTIFIER.fullmatch(new_name) and new_name not in parser.keywords():
        return new_name
    raise ValueError(f"`{new_name}` cannot name a {kind}: write a name of letters, digits and `_` that is no keyword")
