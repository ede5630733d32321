"""`civdsl new NAME --from BASE`: a commented house-rule skeleton that already checks.

The skeleton extends BASE and carries commented-out examples of each kind of edit (change,
drop when, add a modifier, remove, add, redeclare) written with names the base really has, so
that uncommenting any of them gives a rulebook that still checks.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .expressions import quote, unparse
from .loader import inside

ID_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ScaffoldError(Exception):
    pass


def check_name(name: str) -> None:
    from .parser import keywords
    from .resources import shipped_rulebooks

    if not ID_RE.match(name):
        raise ScaffoldError(f"`{name}` is not a valid edition id: use letters, digits and `_`, "
                            f"starting with a letter (e.g. `gentle_famine`)")
    if name in keywords():
        raise ScaffoldError(f"`{name}` is a keyword of the language; pick another edition id")
    if name in shipped_rulebooks():
        raise ScaffoldError(f"`{name}` is the id of a shipped rulebook; a house rule needs an id of its own")


def _extends_clause(base: str, base_path: Path, out: Path) -> str:
    """`extends megaciv` for a shipped edition, `extends "rel/path.civ"` for a file."""
    from .resources import rulebooks_dir, shipped_rulebooks

    shipped = shipped_rulebooks()
    if base in shipped:  # an id is the shipped rulebook, as for every command (resources.rulebook_argument)
        return base
    if base_path.resolve().parent == rulebooks_dir().resolve() and base_path.stem in shipped:
        return base_path.stem
    rel = os.path.relpath(base_path.resolve(), out.resolve().parent)
    rel = rel.replace(os.sep, "/")
    home = out.resolve().parent
    target = base_path.resolve()
    if not any(inside(target, root) for root in (home, rulebooks_dir().resolve())):
        raise ScaffoldError(f"{base_path} is outside {home}: a house rule may extend a shipped edition by id, or a file "
                            f"in its own folder tree; write the new file beside its base (-o)")
    return quote(rel)


def _header(title: str) -> str:
    return f"# --- {title} ".ljust(96, "-")


def _first(items, *tests):
    """The first item (in declaration order) passing the first test any item passes: the examples
    are chosen by the base's declared structure, never by card names, so every edition gets the
    fullest example it allows."""
    items = list(items)
    for test in tests:
        found = next((x for x in items if test(x)), None)
        if found is not None:
            return found
    return items[0] if items else None


def _amount(cal) -> int | None:
    """The number the calamity's first primary effect starts with (`damage(10)`), if any."""
    from .model import Effect
    from .syntax import Num

    effect = cal.primary[0] if cal.primary else None
    if isinstance(effect, Effect) and effect.call.args and isinstance(effect.call.args[0], Num):
        return effect.call.args[0].value
    return None


def skeleton(name: str, base: str, out: Path, title: str | None = None) -> str:
    """The text of a new house rule extending `base` (an edition id or a path)."""
    from .diff import load_edition
    from .api import locate

    base_path = Path(locate(base))
    ed = load_edition(base)
    extends = _extends_clause(base, base_path, out)
    display = title or f"{name.replace('_', ' ').capitalize()} (house rule for {ed.name})"
    lines = [
        f"# {display}",
        f"# A house rule: everything {ed.name} says, except what this file changes.",
        "# Written by `civdsl new`: the examples below are commented out. Uncomment one, edit it, then",
        f"#   civdsl check {out.as_posix()}  (is it right?)",
        f"#   civdsl diff {ed.id} {out.as_posix()}  (what does it change?)",
        "# civdsl's README (\"Write your own house rules\") walks through it; `civdsl explain CODE` helps.",
        "language 1",
        f"edition {name} {quote(display)} extends {extends}",
        f'source "house rule {name}, based on {ed.id}"',
        "",
    ]
    header = list(lines)
    for title, code in _examples(ed):
        example = _with_errata(header, code, out)
        if example:
            lines += title + example
    lines += [_header("edition-wide rules: redeclaring one replaces the base's")]
    lines += _edition_wide(ed)
    lines += [
        "",
        '# note "Say here anything players should know about this house rule."',
    ]
    return "\n".join(lines) + "\n"


def _examples(ed) -> list[tuple[list[str], list[str]]]:
    """(title lines, code) of each commented example the base allows: change a calamity, change an
    advance, remove an item, add one."""
    examples = (_calamity_example(ed), _advance_example(ed), _remove_example(ed), _add_example(ed))
    return [x for x in examples if x is not None]


def _calamity_example(ed):
    # a calamity whose example can lower a number, drop a modifier and add one, else the fullest one
    cal = _first([c for c in ed.calamities.values() if c.primary],
                 lambda c: (_amount(c) or 0) > 2 and bool(c.modifiers), lambda c: bool(c.modifiers))
    return _calamity_examples(cal, ed) if cal is not None else None


def _advance_example(ed):
    adv = _first(ed.advances.values(), lambda a: a.cost is not None)
    return ([_header("change part of an advance")], _advance_examples(adv)) if adv is not None else None


def _remove_example(ed):
    small = [c for c in ed.calamities.values() if c.klass == "minor"] or list(ed.calamities.values())
    if not small:
        return None
    return [_header("remove an item (advance, calamity or commodity)")], [f"remove calamity {quote(small[-1].name)}"]


def _add_example(ed):
    group = next(iter(ed.groups), None)
    if group is None:
        return None
    return ([_header("add a new item, or replace one whole by declaring it again under its own name")],
            _new_advance(ed, group))


def _edition_wide(ed) -> list[str]:
    """Commented examples of the base's edition-wide rules, each set the other way."""
    lines = (_const_line(ed), _policy_line(ed), _option_line(ed))
    return [line for line in lines if line is not None]


def _const_line(ed) -> str | None:
    const = next(iter(ed.consts.values()), None)
    if const is None:
        return None
    doc = f" {quote(const.doc)}" if const.doc else ""
    return f"# const {const.id} = {unparse(const.expr)}{doc}"


def _policy_line(ed) -> str | None:
    if not ed.credit_policy:
        return None
    other = "per_card" if ed.credit_policy == "best_group" else "best_group"
    return f"# credit policy {other}  # {ed.id} uses {ed.credit_policy}"


def _option_line(ed) -> str | None:
    if not ed.options:
        return None
    opt = next(iter(ed.options.values()))
    return f"# option {opt.id} {'off' if opt.on else 'on'}  # {ed.id}: {'on' if opt.on else 'off'}"


def _calamity_examples(cal, ed) -> tuple[list[str], list[str]]:
    from . import describe
    from .model import Effect

    title = [_header(f"change part of a calamity: the fields you give replace {ed.id}'s"),
             f"# {cal.name} in {ed.id}: {describe.calamity(cal)}"]
    effect = cal.primary[0] if cal.primary else None
    lowered = _lowered(cal, effect, ed)
    code = [f"change calamity {quote(cal.name)} {{"] + lowered[:1]
    if cal.modifiers:
        target = cal.modifiers[0]
        role = f" for {target.role}" if target.role != "any" else ""
        code.append(f"  drop when {unparse(target.condition)}{role}  # removes: {describe.modifier(target)}")
    kind = effect.kind if isinstance(effect, Effect) else None
    adv = _protector(cal, kind, ed) if kind is not None else None
    if adv is not None:
        code.append(f"  when holds({quote(adv.name)}) for primary {{ prevent {kind} 2 }}  # a new modifier")
    return title, code + lowered[1:] + ["}"]


def _lowered(cal, effect, ed) -> list[str]:
    """The example's primary effect with its first number lowered by 2, and the summary it then
    needs (the base's describes the old effect: CIV132); nothing where that number is 2 or less."""
    from . import describe

    amount = _amount(cal)
    if amount is None or amount <= 2:
        return []
    call = effect.call
    args = [str(amount - 2)] + [unparse(x) for x in call.args[1:]]
    text = ", ".join(args + [f"{k}={unparse(v)}" for k, v in call.kwargs.items()])
    args_now = dict(effect.args)
    args_now[next(iter(args_now))] = amount - 2
    words = describe.effect_call(call.name, args_now)
    return [f"  primary {{ {call.name}({text}) }}  # was: {unparse(call)}",
            f"  summary {quote(f'As in {ed.id}, but the primary victim must {words}.')}"]


def _new_advance(ed, group: str) -> list[str]:
    """A new advance in the base's first group, priced like that group's first advance."""
    label = group.replace("_", " ")
    name = f"New {label} advance"
    n = 2
    while name in ed.advances:  # a base could already use the placeholder name
        name, n = f"New {label} advance {n}", n + 1
    like = _first(ed.advances.values(), lambda a: group in getattr(a, "groups", ()) and a.cost is not None,
                  lambda a: a.cost is not None)
    cost = like.cost if like is not None and like.cost is not None else 100
    return [f"advance {quote(name)} {{", f"  cost {cost}", f"  groups {group}", f"  credits {group} 10",
            f'  summary "What the new {label} advance gives its holder."', "}"]


def _protector(cal, kind: str, ed):
    """An advance for the example's new modifier: the first (in the base's order) that already
    protects against this kind of effect in another calamity, else the first this calamity's
    modifiers do not name."""
    named = {a for m in cal.modifiers for a in m.advances}
    elsewhere = {a for c in ed.calamities.values() if c is not cal for a in _protectors(c, kind)}
    return _first([a for a in ed.advances.values() if a.name not in named], lambda a: a.name in elsewhere)


def _protectors(cal, kind: str) -> list[str]:
    """The advances named by the calamity's modifiers that prevent some of KIND."""
    return [a for m in cal.modifiers if any(_prevents(op, kind) for op in m.ops) for a in m.advances]


def _prevents(op, kind: str) -> bool:
    return getattr(op, "op", None) == "prevent" and getattr(op, "kind", None) == kind


def _advance_examples(adv) -> list[str]:
    cost = max(adv.cost - 10, 0) if adv.cost is not None else 50
    was = f"  # was: cost {adv.cost}" if adv.cost is not None else ""
    return [f"change advance {quote(adv.name)} {{ cost {cost} }}{was}"]


# diagnostics a house rule may acknowledge with `errata CODE "item" "why"`: invariants of the base
# (asserts, set values, deck sizes) that a deliberate departure breaks
ERRATA_CODES = ("CIV040", "CIV041", "CIV042")


def _with_errata(header: list[str], code: list[str], out: Path) -> list[str]:
    """A commented example, followed by the errata lines it would need: adding or removing an
    item can break an invariant the base asserts (`assert count(calamities) == 24`)."""
    failed = _trial(header + code, out)
    if failed is None:
        return []  # the example would not check against this base: leave it out
    lines = ["# " + c if c.strip() else "#" for c in code]
    if failed:
        lines += ["# This breaks invariants of the base; `civdsl check` reports each one until you",
                  "# acknowledge the deliberate departure:"]
        lines += [f"# errata {c} {quote(item)} \"this house rule differs\"" for c, item in failed]
    return lines + [""]


def _trial(lines: list[str], out: Path) -> list[tuple[str, str]] | None:
    """The (code, item) of each base invariant these lines would break, or None when they
    cause any other error."""
    import tempfile

    from .frontend import check_file

    fd, tmp = tempfile.mkstemp(prefix=".civdsl-new-", suffix=".civ", dir=out.resolve().parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
        checked = check_file(Path(tmp))
    finally:
        os.unlink(tmp)
    errors = checked.diagnostics.errors
    if checked.edition is None or any(d.code not in ERRATA_CODES or not d.item for d in errors):
        return None
    return list(dict.fromkeys((d.code, d.item) for d in errors))
