"""The shape of a wire message: whether each field holds a value of its declared type.

Wire messages come from adapters, from connectors and from user code, and nothing stops a
caller from putting ``object()`` in ``KafkaMessage.value`` or an ``int`` in
``MqttMessage.payload``. The dispatcher dead-letters such a message as ``malformed-message``
(``_outcome.MALFORMED_MESSAGE``) rather than let it fail somewhere in decoding or matching.
The rules come from the type hints of the ``*Message`` dataclasses (declared once, in
``bindings/<x>/spec.py``):

- ``str``, ``bytes``, ``int``, ``bool``: an instance (subclasses included; ``bool`` is an
  ``int``); ``X | None`` admits ``None``; an ``int`` lies in the 64-bit range
  (``-2**63`` to ``2**64 - 1``) that every protocol's integers fit;
- ``tuple[tuple[str, X], ...]`` (headers, user properties): a tuple or list of name/value
  pairs (tuples or lists of two), names ``str``, values ``X``; ``tuple[str, ...]``: a tuple or
  list of ``str``;
- ``Mapping[str, X]``: a mapping with ``str`` keys and ``X`` values (``Any``: any value but an
  ``int`` outside the 64-bit range).

Two checks: :func:`shape_check` is the fast one the dispatcher runs on every message (the
field types, not the items of headers and mappings: those are read by every decoder, which
fails on most wrong items); :func:`wire_problem` checks everything and says what is wrong, run
when decoding or matching a message failed unexpectedly.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from dataclasses import fields
from types import NoneType, UnionType
from typing import Any

__all__ = ["shape_check", "wire_problem"]

_INT_MIN, _INT_END = -(2**63), 2**64
#: wire message type -> the fast check; -> (field name, rule) of every field
_FAST: dict[type, Callable[[Any], bool]] = {}
_RULES: dict[type, tuple[tuple[str, _Rule], ...]] = {}


class _Rule:
    """What one field (or item) must hold: ``types`` (``None`` for ``Any``), ``items`` (the
    rule of a sequence's items), ``pair`` (the rule of a pair's value: items are name/value
    pairs), ``values`` (the rule of a mapping's values)."""

    __slots__ = ("types", "optional", "kind", "item")

    def __init__(
        self,
        types: tuple[type, ...] | None,
        optional: bool = False,
        kind: str = "scalar",
        item: _Rule | None = None,
    ) -> None:
        self.types = types
        self.optional = optional
        #: "scalar", "pairs", "items", "mapping"
        self.kind = kind
        self.item = item

    def fast(self, value: Any) -> bool:
        if value is None:
            return self.optional
        if self.types is not None and not isinstance(value, self.types):
            return False
        return not isinstance(value, int) or _INT_MIN <= value < _INT_END

    def problem(self, value: Any, where: str) -> str | None:
        """What is wrong with ``value`` (``None``: nothing), naming ``where`` it is."""
        if value is None:
            return None if self.optional else f"{where} is None"
        if self.types is not None and not isinstance(value, self.types):
            expected = " or ".join(t.__name__ for t in self.types)
            return f"{where} is {type(value).__name__}, not {expected}"
        if isinstance(value, int) and not _INT_MIN <= value < _INT_END:
            return f"{where} is an integer outside the 64-bit range"
        item = self.item
        if self.kind == "mapping":
            assert item is not None
            for key, v in value.items():
                if not isinstance(key, str):
                    return f"{where} has a key of type {type(key).__name__}, not str"
                found = item.problem(v, f"{where}[{key[:40]!r}]")
                if found is not None:
                    return found
        elif self.kind == "pairs":
            assert item is not None
            for i, pair in enumerate(value):
                if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                    return f"{where}[{i}] is not a (name, value) pair"
                if not isinstance(pair[0], str):
                    return f"{where}[{i}] has a name of type {type(pair[0]).__name__}, not str"
                found = item.problem(pair[1], f"{where}[{i}] value")
                if found is not None:
                    return found
        elif self.kind == "items":
            assert item is not None
            for i, v in enumerate(value):
                found = item.problem(v, f"{where}[{i}]")
                if found is not None:
                    return found
        return None


_SEQUENCES = (tuple, list)


def _rule(hint: Any) -> _Rule:
    """The rule of a field's type hint (see the module doc)."""
    if hint is Any:
        return _Rule(None)
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin is UnionType or origin is typing.Union:
        rest = [a for a in args if a is not NoneType]
        inner = _rule(rest[0]) if len(rest) == 1 else _Rule(tuple(rest))
        inner.optional = True
        return inner
    if origin is tuple:
        item = args[0]
        if typing.get_origin(item) is tuple:  # name/value pairs
            return _Rule(_SEQUENCES, kind="pairs", item=_rule(typing.get_args(item)[1]))
        return _Rule(_SEQUENCES, kind="items", item=_rule(item))
    if origin is not None and issubclass(origin, Mapping):
        return _Rule((Mapping,), kind="mapping", item=_rule(args[1]))
    if isinstance(hint, type):
        return _Rule((hint,))
    raise TypeError(f"no shape rule for {hint!r}")


def _rules(message_type: type) -> tuple[tuple[str, _Rule], ...]:
    rules = _RULES.get(message_type)
    if rules is None:
        hints = typing.get_type_hints(message_type)
        rules = _RULES[message_type] = tuple(
            (f.name, _rule(hints[f.name])) for f in fields(message_type)
        )
    return rules


def shape_check(message_type: type) -> Callable[[Any], bool]:
    """The fast check of ``message_type``'s messages: ``True`` when every field holds a value
    of its declared type (items of headers and mappings not checked). Built once per type:
    one expression over the fields that tests the usual exact class of each value with
    ``is`` (subclasses, and ints for their range, go to the field's rule)."""
    check = _FAST.get(message_type)
    if check is not None:
        return check
    namespace: dict[str, Any] = {"lo": _INT_MIN, "hi": _INT_END}
    terms = []
    for i, (name, rule) in enumerate(_rules(message_type)):
        if rule.types is None:
            continue
        namespace[f"r{i}"] = rule.fast
        usual = [
            dict if t is Mapping else t for t in rule.types if t is not int
        ]  # ``Mapping``: a dict
        tests = [f"v.__class__ is {t.__name__}" for t in usual]
        if int in rule.types:
            tests.append("(v.__class__ is int and lo <= v < hi)")
        if rule.optional:
            tests.insert(0, "v is None")
        tests[0] = tests[0].replace("v", f"(v := m.{name})", 1)  # the value, read once
        terms.append(f"({' or '.join(tests)} or r{i}(v))")
    body = " and ".join(terms) or "True"
    exec(
        f"def check(m):\n    return {body}\n", namespace
    )  # noqa: S102 - built from type hints
    built: Callable[[Any], bool] = namespace["check"]
    _FAST[message_type] = built
    return built


def wire_problem(message: object) -> str | None:
    """What makes ``message`` (a ``*Message``) malformed: the first field, header or property
    whose value is not of its declared type, described in one line; ``None`` when it is well
    formed, and for any other object."""
    cls = message.__class__
    try:
        rules = _RULES.get(cls) or _rules(cls)
    except TypeError:  # not a dataclass
        return None
    for name, rule in rules:
        found = rule.problem(getattr(message, name, None), name)
        if found is not None:
            return found
    return None
