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
