"""What a house rule reuses of its base's checking within one process: the reuse saves work but
never changes a diagnostic (the same as checking the house rule alone, in any order)."""

from __future__ import annotations

from pathlib import Path

import pytest

from civdsl import invariants, validator
from civdsl.frontend import check_file
from civdsl.resources import shipped_house_rules, shipped_rulebooks

MEGACIV = shipped_rulebooks()["megaciv"]


def house(tmp_path: Path, name: str, body: str) -> Path:
    """A house rule on Mega Civilization in `tmp_path`."""
    path = tmp_path / f"{name}.civ"
    path.write_text(f'language 1\nedition {name} "A house rule" extends megaciv\n{body}', encoding="utf-8")
    return path


def rendered(path: Path) -> list[dict]:
    return [d.to_json() for d in check_file(path).diagnostics.items]


@pytest.fixture
def counted(monkeypatch):
    """The author invariants evaluated, by message."""
    seen: list[str] = []
    evaluate = validator._Validator._assertion

    def counting(self, a, evaluator):
        seen.append(a.message)
        return evaluate(self, a, evaluator)

    monkeypatch.setattr(validator._Validator, "_assertion", counting)
    return seen


def forget(monkeypatch) -> None:
    monkeypatch.setattr(invariants, "_HELD_ASSERTS", None)


def test_the_base_invariants_a_house_rule_leaves_alone_are_not_evaluated_again(tmp_path, monkeypatch, counted):
    forget(monkeypatch)
    calm = house(tmp_path, "calm", 'note "nothing the invariants read changes"\n')
    alone = rendered(calm)
    assert counted, "the invariants are evaluated when nothing is held"
    forget(monkeypatch)
    check_file(MEGACIV)
    counted.clear()
    assert rendered(calm) == alone
    assert counted == []


def test_an_invariant_whose_inputs_change_is_evaluated_and_reported(tmp_path, monkeypatch, counted):
    dearer = house(tmp_path, "dearer", 'change advance "Pottery" {\n  cost 70\n}\n')
    forget(monkeypatch)
    alone = rendered(dearer)
    assert "CIV042" in {d["code"] for d in alone}
    forget(monkeypatch)
    check_file(MEGACIV)
    counted.clear()
    assert rendered(dearer) == alone
    # the invariants reading the advances' costs are evaluated again; those reading other fields
    # of the advances, or only calamities or commodities, are not
    assert "printed costs total 7,920" in counted
    assert "there are 51 civilization advances" not in counted
    assert not [m for m in counted if "calamit" in m.lower() and "advance" not in m.lower()]
    # and the base, checked again after the house rule, still holds everywhere
    assert not check_file(MEGACIV).diagnostics.has_errors


def test_every_shipped_rulebook_checks_the_same_alone_and_after_the_others(monkeypatch):
    paths = list(shipped_rulebooks().values()) + shipped_house_rules()
    alone = {}
    for path in paths:
        forget(monkeypatch)
        alone[path] = rendered(path)
    for order in (paths, paths[::-1]):
        forget(monkeypatch)
        assert {path: rendered(path) for path in order} == alone


def test_the_walk_for_unread_options_starts_where_the_index_finds_them(monkeypatch):
    """Mega Civilization's one option is read by its start credits: the walk looks there first
    and stops, instead of walking every calamity and advance before it."""
    checked = check_file(MEGACIV)
    ed = checked.edition
    from civdsl.references import index_chain

    v = validator._Validator(ed, checked.diagnostics, index_chain(checked.chain))
    assert ed.start_credits in v._likely_readers(set(ed.options))
    visited: list = []
    kinds = validator._HELD_KINDS

    class Counting(dict):
        def get(self, key, default=None):
            visited.append(key)
            return kinds.get(key, default)

    monkeypatch.setattr(validator, "_HELD_KINDS", Counting())
    v._unread_options()
    assert visited and len(visited) < 200
    assert not [d for d in checked.diagnostics.items if d.code == "CIV081"]


def test_the_walk_stops_once_every_wanted_name_is_found():
    from civdsl.diagnostics import Span
    from civdsl.syntax import Name

    at = Span("x.civ", 1, 1)
    never = [Name(("other",), at) for _ in range(50)]
    assert validator._names_read([never, Name(("wanted",), at)], {"wanted"}) == {"wanted"}
    assert validator._names_read([never, Name(("wanted",), at)], {"wanted", "missing"}) == {"wanted", "other"}


def test_a_clause_list_is_read_once_while_its_bytes_stay_the_same(tmp_path):
    from civdsl import clauses
    from civdsl.diagnostics import Diagnostics

    shipped = Path(clauses.__file__).resolve().parent.parent / "rulebooks" / "clauses" / "megaciv.clauses"
    copy = tmp_path / "megaciv.clauses"
    copy.write_bytes(shipped.read_bytes())
    first, second = Diagnostics(), Diagnostics()
    listed = clauses.read(copy, first)
    assert clauses.read(copy, second) is listed
    assert second.sources == first.sources and str(copy) in second.sources
    copy.write_bytes(shipped.read_bytes().replace(b"\n", b"\n\n", 1))
    assert clauses.read(copy, Diagnostics()) is not listed


def test_forgetting_what_the_front_end_keeps_evaluates_everything_again(counted):
    from civdsl import frontend, loader

    check_file(MEGACIV)
    counted.clear()
    check_file(MEGACIV)
    assert counted == []  # nothing it reads changed
    frontend.forget()
    assert not loader._PARSED and invariants._HELD_ASSERTS is None
    check_file(MEGACIV)
    assert counted


@pytest.mark.parametrize("path", list(shipped_rulebooks().values()) + shipped_house_rules(), ids=lambda p: p.stem)
def test_validation_leaves_the_edition_as_it_found_it(path):
    """The validator only reads the model (its marks, such as which errata excused something,
    stay in its own state), so a resolved edition can be shared with what validates it again."""
    import pickle

    from civdsl.diagnostics import Diagnostics
    from civdsl.loader import load_chain
    from civdsl.references import index_chain
    from civdsl.resolver import resolve

    diags = Diagnostics()
    chain = load_chain(path, diags)
    edition = resolve(chain, diags)
    before = pickle.dumps(edition)
    validator.validate(edition, diags, index_chain(chain))
    assert pickle.dumps(edition) == before


def test_an_errata_line_is_checked_afresh_on_each_validation(tmp_path):
    """An errata line that excused a diagnostic once is reported as excusing nothing when the
    same edition is validated again without that diagnostic."""
    from civdsl.diagnostics import Diagnostics
    from civdsl.loader import load_chain
    from civdsl.references import index_chain
    from civdsl.resolver import resolve

    path = house(tmp_path, "dear", 'change advance "Pottery" {\n  cost 70\n}\n'
                 'errata CIV042 "printed costs total 7,920" "a dearer Pottery"\n')
    diags = Diagnostics()
    chain = load_chain(path, diags)
    edition = resolve(chain, diags)
    validator.validate(edition, diags, index_chain(chain))
    assert "CIV044" not in {d.code for d in diags.items}
    edition.advances["Pottery"].cost = 60
    again = Diagnostics()
    validator.validate(edition, again, index_chain(chain))
    assert "CIV044" in {d.code for d in again.items}


def _resolved_alone(path: Path):
    """The house rule's edition and diagnostics resolved with nothing kept from before."""
    from civdsl import frontend
    from civdsl.diagnostics import Diagnostics
    from civdsl.loader import load_chain
    from civdsl.resolver import resolve

    frontend.forget()
    diags = Diagnostics()
    edition = resolve(load_chain(path, diags), diags)
    return edition, [d.to_json() for d in diags.items]


def test_a_house_rule_resolves_from_its_bases_applied_before_and_leaves_them_as_they_were(tmp_path, monkeypatch):
    """The house rule's edition starts from a copy of its base's as its files made it: only its own
    file is applied, the base's items are shared, and what it changes (the tier rule, removed and
    changed items, settings under an option) never reaches the base's edition."""
    import pickle

    from civdsl import frontend, resolver
    from civdsl.diagnostics import Diagnostics
    from civdsl.loader import load_chain
    from civdsl.resolver import resolve

    rule = house(tmp_path, "reworked", 'vp tiers { below 100: 2, below 200: 4, else: 7 }\n'
                 'remove commodity "Ochre"\n'
                 'change advance "Pottery" {\n  cost 70\n}\n'
                 'amounts {\n  floor none when vp_cost_200_is_3\n}\n'
                 'option extra_rule "a rule of this house" off\n')
    alone = _resolved_alone(rule)
    frontend.forget()
    base_diags = Diagnostics()
    base = resolve(load_chain(MEGACIV, base_diags), base_diags)
    base_before = pickle.dumps(base)
    applied: list = []
    apply = resolver._Applier.apply
    monkeypatch.setattr(resolver._Applier, "apply", lambda self, items: (applied.append(items), apply(self, items)))
    diags = Diagnostics()
    chain = load_chain(rule, diags)
    edition = resolve(chain, diags)
    assert applied == [chain[-1].ast.items]  # only the house rule's own file
    assert edition.advances["Agriculture"] is base.advances["Agriculture"] or \
        edition.advances["Agriculture"].vp != base.advances["Agriculture"].vp
    assert edition.advances["Mysticism"] is not base.advances["Mysticism"]  # other tiers: a copy
    # equal field by field (pickled, the shared objects would be written once where fresh ones twice)
    assert (edition, [d.to_json() for d in diags.items]) == alone
    assert pickle.dumps(base) == base_before
    assert "Ochre" in base.commodities and base.advances["Pottery"].cost != 70
    assert "vp_cost_200_is_3" not in base.amounts_when or "floor" not in base.amounts_when["vp_cost_200_is_3"]


def test_a_base_applied_before_gives_its_diagnostics_again(tmp_path):
    """A base whose own statements draw a warning: the house rule resolved from the base kept
    reports it as resolving the whole chain does."""
    base = tmp_path / "warned.civ"
    base.write_text('language 1\nedition warned "A base with a warning" extends megaciv\n'
                    'advance "Pottery" {\n  cost 60\n  groups crafts\n  credits crafts 10\n}\n',
                    encoding="utf-8")
    rule = tmp_path / "on_warned.civ"
    rule.write_text('language 1\nedition on_warned "On the warned base" extends "warned.civ"\nnote "nothing"\n',
                    encoding="utf-8")
    alone = rendered_fresh(rule)
    assert "CIV101" in {d["code"] for d in alone}
    check_file(base)
    assert rendered(rule) == alone


def rendered_fresh(path: Path) -> list[dict]:
    from civdsl import frontend

    frontend.forget()
    return rendered(path)


def _every_rulebook() -> list[Path]:
    tests = Path(__file__).resolve().parent
    return (list(shipped_rulebooks().values()) + shipped_house_rules()
            + sorted(p for folder in ("ui", "fixtures", "hostile") for p in (tests / folder).glob("*.civ")))


def _outcome(path: Path) -> tuple:
    """A rulebook's diagnostics and, where it checks clean, its generated module."""
    from civdsl.codegen import generate

    checked = check_file(path)
    module = generate(checked.edition, {f.display: f.text for f in checked.chain}) if checked.ok else None
    return [d.to_json() for d in checked.diagnostics.items], module


def test_every_rulebook_gives_the_same_diagnostics_and_module_alone_and_after_the_others():
    """What checking keeps for the next check (syntax trees, applied bases, validation memo,
    invariants held, generated and compiled functions) never changes an answer: every shipped, UI,
    fixture and hostile rulebook, each checked with nothing kept and all in a row in both orders."""
    from civdsl import bytecode, codegen, frontend

    def fresh() -> None:
        frontend.forget()
        bytecode.forget()
        codegen.forget_written()

    paths = _every_rulebook()
    alone = {}
    for path in paths:
        fresh()
        alone[path] = _outcome(path)
    for order in (paths, paths[::-1]):
        fresh()
        in_a_row = {path: _outcome(path) for path in order}
        assert [p.name for p in paths if in_a_row[p] != alone[p]] == []


def test_the_same_items_give_an_invariant_its_inputs_without_viewing_them_again(monkeypatch, counted):
    """A house rule's edition shares its base's items: the invariants' inputs are found by the
    items' identity, not by viewing and comparing every item again; a figure the tier rule set
    on the same advance (as the language server's resolver memo keeps an advance and sets its
    figures again) still makes the invariants reading it be evaluated again."""
    from civdsl import frontend
    from civdsl.diagnostics import Diagnostics
    from civdsl.loader import load_chain
    from civdsl.references import index_chain
    from civdsl.resolver import resolve

    frontend.forget()
    diags = Diagnostics()
    chain = load_chain(MEGACIV, diags)
    edition = resolve(chain, diags)
    refs = index_chain(chain)
    validator.validate(edition, Diagnostics(), refs)
    viewed: list = []
    items = invariants._HeldAsserts._items
    monkeypatch.setattr(invariants._HeldAsserts, "_items",
                        lambda self, name, fields: (viewed.append(name), items(self, name, fields))[1])
    counted.clear()
    again = Diagnostics()
    validator.validate(edition, again, refs)
    assert viewed == [] and counted == [] and not again.has_errors
    pottery = edition.advances["Pottery"]
    pottery.vp = {1: 3, 3: 6, 6: 1}[pottery.vp]
    validator.validate(edition, Diagnostics(), refs)
    assert "advances" in viewed and "17 advances are worth 1 VP" in counted
    assert "printed costs total 7,920" not in counted  # costs unchanged: its inputs are the same
