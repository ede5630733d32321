"""The Python API: `civdsl.load("megaciv" or path)` -> a compiled rulebook that answers questions.

Compiled modules are cached by the hashes of every file in the extends chain (and the
generator version), like Jinja's bytecode cache. When the cache is current, loading reads and
hashes the source files and imports the module: the parser, the validator and jsonschema are
never imported.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from pathlib import Path

from . import runtime
from .errors import RulebookError  # re-exported: `civdsl.api.RulebookError`
from .state import StateError, check_ast_facts, check_names, check_state

CACHE_FORMAT = "1"


def cache_dir() -> Path:
    if os.environ.get("CIVDSL_CACHE"):
        return Path(os.environ["CIVDSL_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "civdsl"


def locate(name: str) -> Path:
    from .resources import shipped_rulebooks

    shipped = shipped_rulebooks()
    if name in shipped:
        return shipped[name]
    path = Path(name)
    if path.is_file():
        return path
    from .diagnostics import did_you_mean

    best = did_you_mean(name, shipped)
    hint = f" (did you mean `{best}`?)" if best else f"; shipped rulebooks: {', '.join(shipped)}"
    raise RulebookError(f"no rulebook `{name}`: not a shipped edition id nor a file{hint}")


def _digest(paths: list[str]) -> dict[str, str] | None:
    out = {}
    for p in paths:
        try:
            out[p] = hashlib.sha256(Path(p).read_bytes()).hexdigest()
        except OSError:
            return None
    return out


_LOADED: dict[Path, tuple[dict, "Rulebook"]] = {}


def load(name: str | os.PathLike) -> "Rulebook":
    path = locate(str(name)).resolve()
    known = _LOADED.get(path)
    if known is not None and _digest(list(known[0])) == known[0]:
        return known[1]
    rulebook = _load(path)
    _LOADED[path] = (rulebook._files, rulebook)
    return rulebook


def _load(path: Path) -> "Rulebook":
    key = hashlib.sha256(f"{CACHE_FORMAT}|{sys.version_info[:2]}|{path}".encode()).hexdigest()[:24]
    folder = cache_dir() / key
    manifest = folder / "manifest.json"
    try:
        recorded = json.loads(manifest.read_text())
        if recorded.get("generator") == _generator_version() and _digest(list(recorded["files"])) == recorded["files"]:
            return Rulebook(_import(folder / "effects.py", key), recorded["files"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    source, files = compile_source(path)
    try:
        _write_cache(folder, source, files)
        return Rulebook(_import(folder / "effects.py", key), files)
    except OSError:
        # an unwritable cache: compile into a private temporary folder instead
        import tempfile  # only here: importing it costs start-up time on every question

        tmp = Path(tempfile.mkdtemp(prefix="civdsl-"))
        _write_cache(tmp, source, files)
        return Rulebook(_import(tmp / "effects.py", key), files)


_FINGERPRINT: str | None = None
# The modules whose code decides what a compiled rulebook does: a change to any of them makes
# every cached module stale.
_COMPILER_MODULES = ("codegen.py", "runtime.py", "expressions.py", "describe.py", "vocabulary.py",
                     "resolver.py", "syntax.py", "validator.py")


def _generator_version() -> str:
    """A fingerprint of the compiler's own code (read, not imported: the fast path stays fast)."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        here = Path(__file__).resolve().parent
        digest = hashlib.sha256()
        for name in _COMPILER_MODULES:
            try:
                digest.update((here / name).read_bytes())
            except OSError:
                digest.update(name.encode())
        _FINGERPRINT = digest.hexdigest()[:16]
    return _FINGERPRINT


def compile_source(path: Path) -> tuple[str, dict[str, str]]:
    """Check and compile; returns the module source and {absolute path: hash} of its files."""
    from .codegen import CodegenError, generate
    from .compiler import check_file

    checked = check_file(path)
    if not checked.ok:
        raise RulebookError(f"{path} has errors", checked.diagnostics)
    texts = {f.display: f.text for f in checked.chain}
    try:
        source = generate(checked.edition, texts)
    except CodegenError as exc:  # a rule the validator let through but Python cannot hold
        checked.diagnostics.error(exc.code, str(exc), exc.span or checked.edition.span)
        raise RulebookError(f"{path} has errors", checked.diagnostics) from None
    files = _digest([str(f.path.resolve()) for f in checked.chain]) or {}
    return source, files


def _write_cache(folder: Path, source: str, files: dict[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    from .build import atomic_write

    atomic_write(folder / "effects.py", source)
    atomic_write(folder / "manifest.json", json.dumps({"generator": _generator_version(), "files": files}, indent=1))


def _import(path: Path, key: str):
    name = f"civdsl_compiled_{key}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def import_module_file(path: Path, name: str):
    """Import a generated module from a file (e.g. generated/<id>/effects.py)."""
    return _import(Path(path), name)


class Rulebook:
    """A compiled rulebook: its data and the answers its rules give."""

    def __init__(self, module, files: dict[str, str] | None = None):
        self.module = module
        self._files = dict(files or {})  # absolute path -> sha256 of every file compiled in
        self.id = module.EDITION["id"]
        self.name = module.EDITION["name"]

    @property
    def advances(self) -> dict:
        return self.module.ADVANCES

    @property
    def calamities(self) -> dict:
        return self.module.CALAMITIES

    @property
    def tracks(self) -> list[str]:
        return list(self.module.AST)

    def state(self, holds=(), facts: dict | None = None, source: str = "state") -> runtime.PlayerState:
        facts = dict(facts or {})
        from_state = facts.pop("holds", [])
        problems = []
        try:
            clean = check_state({**facts, "holds": from_state} if from_state else facts, self.module.ADVANCES,
                                self.module.COMMODITIES, self.module.GROUPS, source)
        except StateError as exc:
            problems.append(str(exc))
            clean = {}
        try:
            check_ast_facts(clean, getattr(self.module, "CIVILIZATIONS", {}), self.module.AST, source)
        except StateError as exc:
            problems.append(str(exc))
        try:
            check_names(list(holds), self.module.ADVANCES, "advance", "--holds")
        except StateError as exc:
            problems.append(str(exc))
        if problems:
            raise StateError("\n".join(problems))
        held = list(holds) + [h for h in clean.pop("holds", []) if h not in holds]
        return runtime.PlayerState(self.module, held, clean)

    def calamity_name(self, name: str) -> str:
        if name in self.module.CALAMITIES:
            return name
        lowered = {n.lower(): n for n in self.module.CALAMITIES}
        if name.lower() in lowered:
            return lowered[name.lower()]
        check_names([name], self.module.CALAMITIES, "calamity", "calamity")
        return name

    def resolve(self, calamity: str, role: str = "primary", holds=(), state: dict | None = None) -> runtime.Resolution:
        if role not in ("primary", "secondary"):
            raise StateError(f"role must be primary or secondary, not {role!r}")
        name = self.calamity_name(calamity)
        return runtime.resolve(self.module, name, role, self.state(holds, state))

    def cost(self, holds=(), buy=(), state: dict | None = None) -> dict:
        st = self.state(holds, state)
        check_names(list(buy), self.module.ADVANCES, "advance", "--buy")
        already = [b for b in buy if b in st.held_set]
        if already:
            raise StateError("--buy: already held: " + ", ".join(already))
        return runtime.prices(self.module, st.held, list(buy), st.facts.get("credits"))

    def epochs(self, track: str | None = None, holds=(), state: dict | None = None) -> list[dict]:
        tracks = [track] if track else list(self.module.AST)
        for t in tracks:
            if t not in self.module.AST:
                check_names([t], self.module.AST, "A.S.T. track", "--ast")
        out = []
        for t in tracks:
            out.append(runtime.epochs(self.module, t, self.state(holds, state)))
        return out

    def score(self, holds=(), state: dict | None = None) -> dict:
        return runtime.score(self.module, self.state(holds, state))

    def hand(self, cards: dict) -> dict:
        check_names(list(cards), self.module.COMMODITIES, "commodity", "--cards")
        return runtime.hand_value(self.module, cards)
