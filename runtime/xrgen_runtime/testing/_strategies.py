"""Hypothesis strategies of valid events (imported only by ``example_events``).

The payload strategy is written over the JSON Schema subset that pydantic's
``model_json_schema()`` emits (``$ref``/``$defs``, ``allOf``, ``anyOf``/``oneOf``, ``const``,
``enum``, object properties and ``additionalProperties``, arrays with ``items``/
``prefixItems``/bounds/``uniqueItems``, strings with lengths, ``pattern`` and ``format``,
numbers with bounds and ``multipleOf``); each drawn document is validated from JSON by the
model and rejected (``assume``) when a constraint outside that subset refuses it.
``hypothesis.strategies.from_type`` is not used: pydantic 2 models do not register
strategies with hypothesis, and building them from ``__init__`` ignores field constraints.
"""

from __future__ import annotations

import json
import math
import string
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy
from pydantic import BaseModel, ValidationError

from .._event import Event
from ._schema import (
    FORMATS,
    PLAIN_FORMATS,
    MessageInfoLike,
    Parameter,
    bounds,
    exclusive_groups,
    merge_all_of,
    multiple,
    parameters,
    payload_schema,
    resolve,
    simple_type,
    split_overrides,
)

#: placeholder values: characters every binding's destination names accept unencoded
PLACEHOLDER_ALPHABET = string.ascii_letters + string.digits + "-_"
_INT64 = 2**63 - 1
_PRINTABLE = string.ascii_letters + string.digits + string.punctuation + " "
_UTC = st.just(timezone.utc)
_DATETIMES = st.datetimes(
    min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1), timezones=_UTC
)
_FORMATS: dict[str, SearchStrategy[str]] = {
    "date-time": _DATETIMES.map(lambda d: d.isoformat()),
    "date": st.dates().map(lambda d: d.isoformat()),
    "time": st.times().map(lambda t: t.isoformat()),
    "uuid": st.uuids().map(str),
    "uuid1": st.uuids(version=1).map(str),
    "uuid3": st.uuids(version=3).map(str),
    "uuid4": st.uuids(version=4).map(str),
    "uuid5": st.uuids(version=5).map(str),
    "ipv4": st.ip_addresses(v=4).map(str),
    "ipv6": st.ip_addresses(v=6).map(str),
    "uri": st.text(PLACEHOLDER_ALPHABET, max_size=12).map(
        lambda s: f"https://example.com/{s}"
    ),
}


class _Payloads:
    """Strategies of JSON documents for the schemas of one root schema."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.refs: dict[str, SearchStrategy[Any]] = {}

    def of(self, schema: Mapping[str, Any]) -> SearchStrategy[Any]:
        ref = schema.get("$ref")
        if isinstance(ref, str) and len(schema) == 1:
            if ref not in self.refs:  # deferred: models may refer to themselves
                target = resolve(schema, self.root)
                self.refs[ref] = st.deferred(lambda: self.of(target))
            return self.refs[ref]
        schema = resolve(schema, self.root)
        if "allOf" in schema:
            schema = merge_all_of(schema, self.root)
        if "const" in schema:
            return st.just(schema["const"])
        if "enum" in schema:
            return st.sampled_from(schema["enum"])
        for key in ("anyOf", "oneOf"):
            if key in schema:
                rest = {
                    k: v for k, v in schema.items() if k not in (key, "discriminator")
                }
                return st.one_of(
                    [self.of({**rest, **o} if rest else o) for o in schema[key]]
                )
        kind = simple_type(schema)
        if kind == "object":
            return self.object(schema)
        if kind == "array":
            return self.array(schema)
        if kind == "string":
            return self.string(schema)
        if kind == "integer":
            return self.integer(schema)
        if kind == "number":
            return self.number(schema)
        if kind == "boolean":
            return st.booleans()
        if kind == "null":
            return st.none()
        return st.one_of(
            st.none(), st.booleans(), st.integers(-_INT64, _INT64), st.text()
        )

    def object(self, schema: Mapping[str, Any]) -> SearchStrategy[dict[str, Any]]:
        props: Mapping[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", ()))
        groups = [
            [m for m in g if m in props and m not in required]
            for g in exclusive_groups(schema)
        ]
        grouped = {m for g in groups for m in g}
        fixed = st.fixed_dictionaries(
            {k: self.of(v) for k, v in props.items() if k in required},
            optional={
                k: self.of(v)
                for k, v in props.items()
                if k not in required and k not in grouped
            },
        )
        if grouped:  # at most one member of each group (a oneof)
            parts = [fixed] + [
                st.one_of(
                    st.just({}),
                    *(st.fixed_dictionaries({m: self.of(props[m])}) for m in g),
                )
                for g in groups
            ]
            fixed = st.tuples(*parts).map(
                lambda ds: {k: v for d in ds for k, v in d.items()}
            )
        extra = schema.get("additionalProperties")
        if props or not isinstance(extra, dict):
            return fixed
        names = self.string(schema.get("propertyNames", {}))
        low = schema.get("minProperties", 0)
        high = schema.get("maxProperties", low + 3)
        return st.dictionaries(names, self.of(extra), min_size=low, max_size=high)

    def array(self, schema: Mapping[str, Any]) -> SearchStrategy[list[Any]]:
        low = schema.get("minItems", 0)
        high = schema.get("maxItems", low + 4)
        items = schema.get("items", {})
        prefix = [self.of(p) for p in schema.get("prefixItems", [])]
        if prefix:
            head = st.tuples(*prefix).map(list)
            if items is False or len(prefix) >= high:
                return head
            tail = st.lists(self.of(items), max_size=high - len(prefix))
            return st.tuples(head, tail).map(lambda ht: ht[0] + ht[1])
        unique = schema.get("uniqueItems", False)
        return st.lists(
            self.of(items if isinstance(items, dict) else {}),
            min_size=low,
            max_size=high,
            unique_by=(lambda v: json.dumps(v, sort_keys=True)) if unique else None,
        )

    def string(self, schema: Mapping[str, Any]) -> SearchStrategy[str]:
        low = schema.get("minLength", 0)
        high = schema.get("maxLength")
        pattern = schema.get("pattern")
        fmt = schema.get("format")
        if isinstance(pattern, str):
            base = st.from_regex(pattern)
        elif isinstance(fmt, str) and fmt in _FORMATS:
            base = _FORMATS[fmt]
        elif fmt in PLAIN_FORMATS:  # bytes: their length counts UTF-8 bytes
            return st.text(_PRINTABLE, min_size=low, max_size=high)
        elif isinstance(fmt, str) and fmt in FORMATS:
            base = st.just(FORMATS[fmt])
        else:
            return st.text(min_size=low, max_size=high)
        if low or high is not None:
            base = base.filter(
                lambda s: low <= len(s) and (high is None or len(s) <= high)
            )
        return base

    @staticmethod
    def integer(schema: Mapping[str, Any]) -> SearchStrategy[int]:
        low, high = bounds(schema, True)
        lo = -_INT64 if low is None else math.ceil(low)
        hi = _INT64 if high is None else math.floor(high)
        multiple = schema.get("multipleOf")
        if isinstance(multiple, int) and multiple > 0:
            step = multiple
            return st.integers(math.ceil(lo / step), math.floor(hi / step)).map(
                lambda n: n * step
            )
        return st.integers(lo, hi)

    @staticmethod
    def number(schema: Mapping[str, Any]) -> SearchStrategy[float]:
        step_of = schema.get("multipleOf")
        low, high = bounds(schema, False)
        if isinstance(step_of, int | float) and step_of > 0:
            step = step_of
            lo = None if low is None else math.ceil(low / step)
            hi = None if high is None else math.floor(high / step)
            return st.integers(lo, hi).map(lambda n: multiple(n, step))
        return st.floats(
            min_value=schema.get("exclusiveMinimum", schema.get("minimum")),
            max_value=schema.get("exclusiveMaximum", schema.get("maximum")),
            exclude_min="exclusiveMinimum" in schema,
            exclude_max="exclusiveMaximum" in schema,
            allow_nan=False,
            allow_infinity=False,
        )


def payloads(model: type[BaseModel]) -> SearchStrategy[BaseModel]:
    """Instances of ``model`` validated from drawn JSON documents."""
    schema = payload_schema(model)
    documents = _Payloads(schema).of(schema)

    @st.composite
    def valid(draw: st.DrawFn) -> BaseModel:
        document = draw(documents)
        try:
            return model.model_validate_json(json.dumps(document))
        except ValidationError:
            assume(False)
            raise  # unreachable: assume(False) raises

    return valid()


def argument(p: Parameter) -> SearchStrategy[Any]:
    """Values of a placeholder or extension attribute parameter."""
    kind = p.attribute.kind if p.attribute is not None else None
    if p.kind == "datetime":
        return _DATETIMES
    if p.kind == "bool":
        return st.booleans()
    if p.kind == "int":
        return st.integers(-(2**31), 2**31 - 1)
    if p.kind == "bytes":
        return st.binary(min_size=1, max_size=16)
    text = st.text(PLACEHOLDER_ALPHABET, min_size=1, max_size=16)
    if kind == "uri":
        return text.map(lambda s: f"https://example.com/{s}")
    if kind == "urireference":
        return text.map(lambda s: f"/{s}")
    return text


def _drawn(draw: st.DrawFn, value: Any) -> Any:
    return draw(value) if isinstance(value, SearchStrategy) else value


def events(
    info: MessageInfoLike, overrides: Mapping[str, Any]
) -> SearchStrategy[Event[Any]]:
    """Valid events of ``info`` made by its producer method (see ``example_events``)."""
    params, names = parameters(info)
    arguments, fields = split_overrides(info, names, overrides)
    drawn = {p.name: argument(p) for p in params if p.name not in arguments}
    if "time" not in arguments and "time" in names:
        drawn["time"] = _DATETIMES
    model = info.definition.model
    data = None if "data" in arguments else payloads(model) if model else st.binary()

    @st.composite
    def event(draw: st.DrawFn) -> Event[Any]:
        kwargs = {k: _drawn(draw, v) for k, v in arguments.items()}
        kwargs.update((k, draw(v)) for k, v in drawn.items())
        if data is not None:
            payload = draw(data)
            if fields and isinstance(payload, BaseModel):
                document = payload.model_dump(by_alias=True)
                document.update((k, _drawn(draw, v)) for k, v in fields.items())
                payload = document
            kwargs["data"] = payload
        return info.create(kwargs.pop("data"), **kwargs)

    return event()
