"""The sub-languages composed into the main language, and how the passes find them.

A sub-language (the round rules of civdsl/rounds/ are one) brings one hook per pass: its grammar
part, its parse-tree callbacks, its own model, the items it applies, its checks, the code it
compiles to, its part of the JSON model, its changes between two editions, and what its
statements declare and name for the index of references. The main passes never import a
sub-language: they ask this registry, as Jinja's parser asks its environment for the extensions
that handle a tag. The built-in sub-languages are named by import path (`BUILTIN`) and imported on
first use, as Jinja's `Environment(extensions=["jinja2.ext.i18n"])` loads its own; a program may
`register` another in-process (tests/test_sublanguages.py does).

An edition holds each sub-language's model in `Edition.extensions`, by the sub-language's name.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

# The sub-languages every civdsl has, by the module that registers each.
BUILTIN = ("civdsl.rounds.language",)


@dataclass(frozen=True, eq=False)
class References:
    """What a sub-language's statements declare and name, for the index of references
    (civdsl/references.py): the kind of name each declaring item declares, the kinds a bare name
    in an expression may stand for (after the main language's, first match first), the visits of
    its own fields (by (item kind, field key)) and of its own syntax nodes (by type), each called
    as the index's own visits are."""

    declares: Mapping[str, str] = field(default_factory=dict)
    name_kinds: tuple[str, ...] = ()
    field_visits: Mapping[tuple[str, str], Callable] = field(default_factory=dict)
    node_visits: Mapping[type, Callable] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class SubLanguage:
    """One sub-language's hooks, one per pass (each pass calls only its own)."""

    name: str  # its key in Edition.extensions, in the JSON model and in `civdsl diff`'s sections
    title: str  # its section's heading in `civdsl diff`
    grammar: Path  # its grammar part, joined after the main grammar's (it may `%extend` rules of it)
    transformer: type  # a mixin of the parse-tree callbacks of its rules (syntax._ToSyntax's helpers)
    model: Callable[[], Any]  # a fresh, empty model of its declarations for one edition
    declared: Callable[[Any], bool]  # whether a model holds any declaration
    applier: type  # a mixin of the resolver's `_item_<kind>` handlers of its items
    check: Callable[[Any, Any], None]  # (edition, diagnostics): reports what is wrong
    emit: Callable[[Any, dict, dict, Any], None]  # (writer, constants, options, edition): its code
    to_data: Callable[[Any], Any]  # edition -> its part of the JSON model
    changes: Callable[[Any, Any, Callable], None]  # (edition a, edition b, add) for `civdsl diff`
    runtime_import: str = ""  # the line a generated module that uses it imports its runtime with, if any
    references: References = References()


_registered: dict[str, SubLanguage] = {}
_builtin_loaded = False


def register(sub: SubLanguage) -> SubLanguage:
    """Add a sub-language; every pass run after this one uses it. A name is registered once."""
    known = _registered.get(sub.name)
    if known is not None and known is not sub:
        raise ValueError(f"a sub-language named {sub.name!r} is registered already")
    _registered[sub.name] = sub
    return sub


def unregister(name: str) -> None:
    """Remove a sub-language registered by `register` (a test's own, when it is done)."""
    _registered.pop(name, None)


def registered() -> tuple[SubLanguage, ...]:
    """Every registered sub-language, the built-in ones first, in the order registered. The
    passes cache what they compose from this tuple by its identity-hashed members."""
    global _builtin_loaded
    if not _builtin_loaded:
        _builtin_loaded = True
        for module in BUILTIN:
            importlib.import_module(module)
    return tuple(_registered.values())


def added_identity() -> str:
    """What identifies the sub-languages registered beyond the built-in ones (whose files the
    compiler's fingerprint already hashes): their names, hook modules and grammar parts' text, so
    that a cached result is never reused under another language. "" when there are none; the
    built-in ones are not imported for this."""
    builtin = {m.rsplit(".", 1)[0] for m in BUILTIN}
    out = []
    for sub in _registered.values():
        if sub.transformer.__module__.rsplit(".", 1)[0] in builtin:
            continue
        try:
            grammar = sub.grammar.read_text(encoding="utf-8")
        except OSError:
            grammar = "unreadable"
        out.append(f"{sub.name}\0{sub.transformer.__module__}\0{grammar}")
    return "\0\0".join(out)


def used_by(edition) -> list[SubLanguage]:
    """The sub-languages whose declarations the edition holds, in registration order."""
    return [s for s in registered() if s.name in edition.extensions and s.declared(edition.extensions[s.name])]
