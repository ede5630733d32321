"""The Python API: `civdsl.load("megaciv" or path)` -> a compiled rulebook that answers questions.

Compiled modules are cached by the hashes of every file in the extends chain and of every
source file of the compiler, like Jinja's bytecode cache (see civdsl/cache.py). When the cache
is current, loading reads and hashes the source files and runs the cached bytecode: the parser,
the validator and jsonschema are never imported.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import re
import sys
import types
from pathlib import Path

from . import cache, handvalue, runtime, sourcemap, standing
from . import vocabulary as vocab
from .bytecode import CompiledModule, is_part
from .errors import RulebookError  # re-exported: `civdsl.api.RulebookError`
from .state import StateError  # re-exported: `civdsl.api.StateError`
from .stateanswers import calamity_asked, checked_hand, cost_for, hand_for, player_for, tracks_asked, trade_cards_for
from .statecheck import assigned_amount, canonical_names, check_options


def cache_dir() -> Path:
    from .cache import cache_dir as folder

    return folder()


def locate(name: str) -> Path:
    from .resources import shipped_rulebooks

    from .resources import rulebook_argument

    shipped = shipped_rulebooks()
    path = rulebook_argument(name, shipped)
    if name in shipped or path.is_file():
        return path
    from .diagnostics import did_you_mean

    best = did_you_mean(name, shipped)
    hint = f" (did you mean `{best}`?)" if best else f"; shipped rulebooks: {', '.join(shipped)}"
    raise RulebookError(f"no rulebook `{name}`: not a shipped edition id nor a file{hint}")


def _digest(paths: list[str]) -> dict[str, str] | None:
    out = {}
    for p in paths:
        digest = cache.file_digest(p)
        if digest is None:
            return None
        out[p] = digest
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


# The bytecode cache's own header: Python's magic number (bytecode of another Python version is
# never loaded) and the cache key the code was compiled under.
_BYTECODE_TAG = b"civdsl-bytecode\0"


def _load(path: Path) -> "Rulebook":
    """The compiled module of `path`, from the cache when every file of its chain has the same
    bytes and the compiler is the same, else compiled now (and kept when the cache is usable).

    The module's file name holds the key (a hash of the chain's bytes and of the compiler), so a
    name never stands for two contents; its bytecode is kept explicitly beside it, under the same
    key, whatever PYTHONDONTWRITEBYTECODE says, and imported without Python's own .pyc logic
    (which trusts a file's size and modification time)."""
    manifest_name = f"module-{cache.path_key(path)}.json"
    manifest = cache.read_json(manifest_name)
    manifest = manifest if isinstance(manifest, dict) else {}
    kept = _kept_module(manifest)
    if kept is not None:
        return kept
    key, source, code, files = compile_source(path)
    if cache.write(f"module-{key}.py", source.encode("utf-8")) is not None:
        cache.write(f"module-{key}.bytecode", _bytecode_head(key) + marshal.dumps(code.parts))
        cache.write_json(manifest_name, {"files": files, "key": key})
        _forget_module(manifest.get("key"), key)
    return Rulebook(_module(code, key, _cache_file(key, ".py")), files)


def _kept_module(manifest: dict) -> "Rulebook | None":
    """The module a manifest names, when every file of its chain has the bytes it was compiled
    from and its bytecode is kept."""
    files = manifest.get("files")
    if not isinstance(files, dict):
        return None
    key = cache.chain_key(files)
    code = _cached_bytecode(key) if manifest.get("key") == key and cache.unchanged(files) else None
    return Rulebook(_module(code, key, _cache_file(key, ".py")), files) if code is not None else None


def _forget_module(old, key: str) -> None:
    """Remove the module a rulebook's manifest named before `key` replaced it."""
    if isinstance(old, str) and old != key and re.fullmatch(r"[0-9a-f]{32}", old):
        cache.remove(f"module-{old}.py")
        cache.remove(f"module-{old}.bytecode")


def _bytecode_head(key: str) -> bytes:
    """What a kept module's bytecode starts with: the tag, Python's magic number and the key."""
    return _BYTECODE_TAG + importlib.util.MAGIC_NUMBER + key.encode() + b"\0"


def _cache_file(key: str, suffix: str) -> str:
    """Where the module of `key` is (or would be) kept: its name in tracebacks and in `located`."""
    return str(cache.cache_dir() / f"module-{key}{suffix}")


def _cached_bytecode(key: str):
    data = cache.read(f"module-{key}.bytecode")
    head = _bytecode_head(key)
    if data is None or not data.startswith(head):
        return None
    try:
        parts = marshal.loads(data[len(head):])
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(parts, tuple) or not all(is_part(p) for p in parts):
        return None  # kept by an earlier civdsl, as one code object
    return CompiledModule(parts)


def compile_source(path: Path):
    """Check and compile: (cache key, module source, its bytecode, {file: hash of the bytes compiled})."""
    from .codegen import CodegenError, generate_module
    from .frontend import chain_files, check_file

    checked = check_file(path, reuse=True)
    if not checked.ok:
        raise RulebookError(f"{path} has errors", checked.diagnostics)
    texts = {f.display: f.text for f in checked.chain}
    files = chain_files(checked.chain)
    key = cache.chain_key(files)
    try:
        source, code = generate_module(checked.edition, texts, _cache_file(key, ".py"))
    except CodegenError as exc:  # a rule the validator let through but Python cannot hold
        checked.diagnostics.error(exc.code, str(exc), exc.span or checked.edition.span)
        raise RulebookError(f"{path} has errors", checked.diagnostics) from None
    return key, source, code, files


def _module(code, key: str, filename: str):
    """A module made by running compiled rules (its name unique per content, like its file)."""
    name = f"civdsl_compiled_{key}"
    known = sys.modules.get(name)
    if known is not None and getattr(known, "__file__", None) == filename:
        return known
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    try:
        code.run(module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module


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
        return player_for(self.module, vocab.FACTS, holds, facts or {}, source)

    def options(self, given: dict, source: str = "state") -> dict:
        """Rule switches set for one question: names the rulebook declares (`option NAME ...`),
        each on or off (true/false)."""
        return check_options(getattr(self.module, "OPTIONS", {}), given, source)

    def calamity_name(self, name: str) -> str:
        """A calamity by any name the rulebook declares for it (`aka` included), in any case."""
        return canonical_names(self.module, "calamity", [name], "calamity")[0]

    def item_names(self, kind: str, names, option: str) -> list[str]:
        """Advances, calamities or commodities by any declared name (`aka` included), in any case."""
        return canonical_names(self.module, kind, list(names), option)

    def resolve(self, calamity: str, role: str = "primary", holds=(), state: dict | None = None,
                assigned: int | None = None) -> runtime.Resolution:
        """What a calamity does to one victim; `assigned` is the amount the primary victim assigned
        to this secondary victim (by default the per-player maximum)."""
        name = calamity_asked(self.module, calamity, role)
        st = self.state(holds, state)
        if assigned is not None:
            st.assigned = assigned_amount(role, assigned)
        return sourcemap.resolve(self.module, name, role, st)

    def cost(self, holds=(), buy=(), state: dict | None = None) -> dict:
        return self.cost_for(self.state(holds, state), buy)

    def cost_for(self, st: runtime.PlayerState, buy=()) -> dict:
        """`cost` for a state already built (the ledger's, whose facts need no check)."""
        with sourcemap.rules_of(self.module):
            return cost_for(self.module, st, list(buy))

    def trade_cards(self, stacks, holds=(), state: dict | None = None) -> dict:
        """The treasury price of trade cards bought from the stacks named (one entry per card)."""
        st = self.state(holds, state)
        with sourcemap.rules_of(self.module):
            return trade_cards_for(self.module, st, [int(s) for s in stacks])

    def epochs(self, track: str | None = None, holds=(), state: dict | None = None) -> list[dict]:
        """Each track's epochs, or the one `--ast` names, else the one the state's `ast_track`
        says the game uses."""
        out = []
        tracks = tracks_asked(self.module, track, (state or {}).get("ast_track"))
        for t in tracks:
            st = self.state(holds, state)
            with sourcemap.rules_of(self.module):
                out.append(standing.epochs(self.module, t, st))
        return out

    def score(self, holds=(), state: dict | None = None) -> dict:
        st = self.state(holds, state)
        with sourcemap.rules_of(self.module):
            return standing.score(self.module, st)

    def hand(self, cards: dict, state: dict | None = None) -> dict:
        """Each set's value; with a state (players, civilization or block, holds), the trade-block
        bonus and what Trade Routes and Trade Empire make of the hand."""
        cards = checked_hand(self.module, cards)
        player = None
        if state is not None:
            facts = dict(state)
            player = self.state(facts.pop("holds", []), facts)
        with sourcemap.rules_of(self.module):
            return handvalue.hand_value(self.module, cards, player)

    def hand_for(self, cards: dict, player: runtime.PlayerState | None) -> dict:
        """`hand` for a state already built (the ledger's, whose facts need no check)."""
        with sourcemap.rules_of(self.module):
            return hand_for(self.module, cards, player)


# --- what the tools ask of a rulebook given by path: loaded here, so that the tools themselves
# (rulings, impact) work on what they are handed and never load a rulebook --------------------

def run_rulings(path, checked, diags) -> list:
    """`rulings.check` for a rulebook the front end checked without errors: its compiled module is
    loaded (from the cache when unchanged) and every ruling of its chain run on it."""
    from .rulings import check

    try:
        rulebook = load(path)
    except RulebookError as exc:  # a rule the validator let through but Python cannot hold
        diags.items.extend(d for d in exc.diagnostics.items if d not in diags.items)
        return []
    return check(checked.edition, rulebook, diags)


def impact_of(a: str, b: str, seed: int = 0):
    """The impact of rulebook B against rulebook A (edition ids or paths), each checked and compiled
    (from the cache when unchanged). Raises RulebookError for a rulebook with errors."""
    from .frontend import check_file
    from .impact import impact

    loaded = []
    for name in (a, b):
        path = Path(locate(name))
        checked = check_file(path, reuse=True)
        if not checked.ok:
            raise RulebookError(f"{name} has errors", checked.diagnostics)
        loaded.append((load(path).module, checked.edition))
    (ma, ea), (mb, eb) = loaded
    return impact(ma, mb, ea, eb, seed)
