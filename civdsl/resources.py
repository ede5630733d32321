"""Where the grammar, the schemas and the shipped rulebooks live, installed or in a checkout,
and which rulebooks a command acts on when given none.

In a checkout they are the top-level folders grammar/, schemas/ and rulebooks/; an installed
package carries the same folders as package data (civdsl.grammar, civdsl.schemas,
civdsl.rulebooks; see pyproject.toml), so one lookup serves both.

Run inside a civdsl checkout by a copy installed from elsewhere (a plain `pip install .`),
edition ids name the checkout's rulebooks, not the installed copy's, so that an edit is never
silently ignored; `install_drift()` says when the installed copy differs from the checkout.
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
    """The grammar's files: the main language, then each registered sub-language's part
    (civdsl/sublanguages.py), composed into it with `%extend`."""
    from .sublanguages import registered

    return _parts(registered())


def _parts(subs: tuple) -> list[Path]:
    return [grammar_path(), *(s.grammar for s in subs)]


def grammar_text() -> str:
    """The whole grammar: the parts joined in order (a part may extend rules of an earlier one)."""
    from .sublanguages import registered

    return _joined(registered())


# by the registered sub-languages (the parser asks for the text on every parse: no file is looked at then)
@functools.lru_cache(maxsize=4)
def _joined(subs: tuple) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in _parts(subs))


def schemas_dir() -> Path:
    return _folder("schemas")


def _own_rulebooks_dir() -> Path:
    return _folder("rulebooks")


def checkout_here(start: Path | None = None) -> Path | None:
    """The civdsl checkout the current folder lies in (a folder with rulebooks/ and a
    pyproject.toml naming the project civdsl), or None."""
    try:
        here = (start or Path.cwd()).resolve()
    except OSError:  # the current folder was deleted: no checkout around it
        return None
    for folder in (here, *here.parents):
        if (folder / "rulebooks").is_dir() and (folder / "pyproject.toml").is_file():
            try:
                text = (folder / "pyproject.toml").read_text(encoding="utf-8", errors="replace")
            except OSError:
                return None
            return folder if 'name = "civdsl"' in text else None
    return None


def _foreign_checkout() -> Path | None:
    """A checkout around the current folder that is not where this copy of civdsl runs from."""
    checkout = checkout_here()
    if checkout is None or checkout == _CHECKOUT:
        return None
    own = _own_rulebooks_dir().resolve()
    return None if own == (checkout / "rulebooks").resolve() else checkout


def rulebooks_dir() -> Path:
    foreign = _foreign_checkout()
    return foreign / "rulebooks" if foreign is not None else _own_rulebooks_dir()


def install_drift() -> str | None:
    """A warning when civdsl runs from an installed copy inside a checkout that differs from it
    (rulebooks, house rules or grammar); None when there is no such checkout or they agree."""
    checkout = _foreign_checkout()
    if checkout is None:
        return None
    installed = _own_rulebooks_dir()

    def files(root: Path) -> dict[str, bytes]:
        out = {}
        for p in sorted([*root.glob("*.civ"), *root.glob("house/*.civ"), *root.glob("clauses/*.clauses")]):
            try:
                out[p.relative_to(root).as_posix()] = p.read_bytes()
            except OSError:
                pass
        return out

    ours, theirs = files(installed), files(checkout / "rulebooks")
    differ = sorted(n for n in set(ours) | set(theirs) if ours.get(n) != theirs.get(n))
    try:
        grammar_differs = grammar_path().read_bytes() != (checkout / "grammar" / "civdsl.lark").read_bytes()
    except OSError:
        grammar_differs = False
    if not differ and not grammar_differs:
        return None
    what = ", ".join(f"rulebooks/{n}" for n in differ[:5]) + (f" and {len(differ) - 5} more" if len(differ) > 5 else "")
    if grammar_differs:
        what = ", ".join(x for x in (what, "the grammar") if x)
    return (f"warning: civdsl runs from an installed copy ({Path(__file__).resolve().parent}) inside the checkout "
            f"{checkout}, and they differ ({what}). Edition ids name the checkout's rulebooks, but the grammar and "
            f"the compiler are the installed copy's: install the checkout instead with `pip install -e '{checkout}'`.")


def installed_package_dir() -> Path | None:
    """The folder of an installed (not editable) civdsl package, whose files a command must
    never rewrite; None when civdsl runs from a checkout."""
    package = Path(__file__).resolve().parent
    return package if (package / "rulebooks").is_dir() else None


def local_rulebooks(folder: Path | None = None) -> list[Path] | None:
    """The rulebooks a folder holds: rulebooks/*.civ and rulebooks/house/*.civ (a checkout, or a
    project laid out like one), else its own *.civ and house/*.civ; None when it holds none."""
    folder = folder or Path(".")
    for root in (folder / "rulebooks", folder):
        found = sorted(root.glob("*.civ")) + sorted((root / "house").glob("*.civ"))
        if found:
            return found
    return None


def rulebook_paths(paths: tuple[str, ...] | list[str]) -> list[Path]:
    """What check, build and fmt act on. No PATHS: the current folder's rulebooks
    (local_rulebooks), else the shipped ones with their house rules. A PATH is a file, a folder
    (every .civ inside, house rules included) or a shipped edition id."""
    if not paths:
        local = local_rulebooks()
        return local if local is not None else list(shipped_rulebooks().values()) + shipped_house_rules()
    shipped = shipped_rulebooks()
    out: list[Path] = []
    for p in paths:
        if p not in shipped and Path(p).is_dir():
            out.extend(sorted(Path(p).rglob("*.civ")))
        else:
            out.append(rulebook_argument(p, shipped))
    return out


def shipped_rulebooks() -> dict[str, Path]:
    """Edition id -> path of every shipped rulebook (the file stem is its id)."""
    root = rulebooks_dir()
    return {p.stem: p for p in sorted(root.glob("*.civ"))}


def rulebook_argument(name: str, shipped: dict[str, Path] | None = None) -> Path:
    """What a rulebook named on the command line (or to the API) means, the same for every
    command: a shipped edition id is the shipped rulebook even when the current folder holds a
    file of that name (a predictable answer whatever folder a command runs in); anything else is
    a path, so a local file named like an id is reached as `./megaciv`. `shipped`: the shipped
    rulebooks when the caller has them already (finding them lists the folder)."""
    shipped = shipped_rulebooks() if shipped is None else shipped
    return shipped[name] if name in shipped else Path(name)


def shipped_house_rules() -> list[Path]:
    return sorted((rulebooks_dir() / "house").glob("*.civ"))
