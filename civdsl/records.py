"""`Record`: an immutable value class declared like a frozen dataclass, for the modules every
question imports (vocabulary, phrases).

`@dataclass(frozen=True)` compiles six methods per class when its module is imported, a cost per
class that every `civdsl resolve` paid at start-up for tables it only reads. A Record's methods
are shared and generic instead. What it keeps of a frozen
dataclass: fields from the class's annotations in order, defaults from the values given in
the class body, positional or keyword construction, no assignment after construction,
equality and hashing by field values (same class only), and a repr that lists the fields.
`class C(Record, frozen=False)` is a plain `@dataclass` instead: assignable and unhashable.
"""

from __future__ import annotations

_MISSING = object()


class Record:
    _record_fields: tuple[str, ...] = ()
    _record_defaults: dict[str, object] = {}

    def __init_subclass__(cls, frozen: bool = True, **kwargs):
        super().__init_subclass__(**kwargs)
        if not frozen:  # as `@dataclass` (eq, not frozen): fields may change, so no hash
            cls.__setattr__, cls.__delattr__, cls.__hash__ = object.__setattr__, object.__delattr__, None
        own = [n for n in cls.__dict__.get("__annotations__", {}) if not n.startswith("__")]
        fields = tuple(dict.fromkeys([*cls._record_fields, *own]))
        defaults = dict(cls._record_defaults)
        for name in own:
            if name in cls.__dict__:
                defaults[name] = cls.__dict__[name]
        seen_default = None
        for name in fields:  # the rule a function's parameters follow, as dataclass() enforces it
            if name in defaults:
                seen_default = name
            elif seen_default is not None:
                raise TypeError(f"non-default field {name!r} follows default field {seen_default!r}")
        cls._record_fields, cls._record_defaults, cls.__match_args__ = fields, defaults, fields

    def __init__(self, *args, **kwargs):
        # the fields go into the instance's __dict__ in one step, in field order (what assigning
        # them one by one did, at a third of the cost: every question builds the vocabulary's
        # tables of Records at start-up)
        fields = self._record_fields
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__}() takes {len(fields)} arguments but {len(args)} were given")
        values = dict(zip(fields, args))
        for name, value in kwargs.items():
            if name not in fields:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {name!r}")
            if name in values:
                raise TypeError(f"{type(self).__name__}() got multiple values for argument {name!r}")
            values[name] = value
        if len(values) < len(fields):
            defaults = self._record_defaults
            for name in fields:
                if name not in values and name not in defaults:
                    raise TypeError(f"{type(self).__name__}() missing required argument: {name!r}")
            values = {name: values[name] if name in values else defaults[name] for name in fields}
        elif kwargs:
            values = {name: values[name] for name in fields}
        self.__dict__.update(values)

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete field {name!r}")

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self._record_fields)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self):
        return hash(self._values())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._record_fields)
        return f"{type(self).__qualname__}({inner})"
