"""civdsl.records.Record behaves as the frozen dataclass it replaces on the question path (and,
with frozen=False, as a plain dataclass): checked side by side with dataclasses itself."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from civdsl import vocabulary
from civdsl.records import Record


class Point(Record):
    """A test record."""

    x: int
    y: int = 0
    label: str | None = None


@dataclass(frozen=True)
class DPoint:
    """The dataclass it stands for."""

    x: int
    y: int = 0
    label: str | None = None


class Cell(Record, frozen=False):
    """A mutable test record."""

    key: tuple
    value: int = 1


def test_construction_defaults_and_repr_match_a_dataclass():
    for args, kwargs in [((1,), {}), ((1, 2), {}), ((1,), {"label": "a"}), ((), {"x": 3, "y": 4})]:
        r, d = Point(*args, **kwargs), DPoint(*args, **kwargs)
        assert (r.x, r.y, r.label) == (d.x, d.y, d.label)
        assert repr(r) == repr(d).replace("DPoint", "Point")
    assert Point.__match_args__ == DPoint.__match_args__


@pytest.mark.parametrize("args, kwargs", [((), {}), ((1, 2, 3, 4), {}), ((1,), {"x": 2}), ((1,), {"z": 2})])
def test_bad_construction_is_a_type_error(args, kwargs):
    with pytest.raises(TypeError):
        DPoint(*args, **kwargs)
    with pytest.raises(TypeError):
        Point(*args, **kwargs)


def test_frozen_equal_and_hashable_by_value():
    p = Point(1, 2)
    with pytest.raises(AttributeError):
        p.x = 5
    with pytest.raises(AttributeError):
        del p.y
    assert p == Point(1, 2) and p != Point(1, 3) and hash(p) == hash(Point(1, 2))
    assert len({Point(1), Point(1), Point(2)}) == 2
    assert p != DPoint(1, 2)  # another class is never equal, as with dataclasses
    assert (p == (1, 2, None)) is False


def test_not_frozen_is_assignable_and_unhashable():
    c = Cell((1,))
    c.value = 7
    assert c == Cell((1,), 7)
    with pytest.raises(TypeError):
        hash(c)


def test_a_required_field_after_a_default_is_refused():
    with pytest.raises(TypeError):
        class Bad(Record):
            a: int = 1
            b: int


def test_vocabulary_tables_are_records():
    fact = vocabulary.FACTS["cities"]
    assert isinstance(fact, Record) and fact.minimum == 0 and fact.words == ("city", "cities")
    with pytest.raises(AttributeError):
        fact.minimum = 5
