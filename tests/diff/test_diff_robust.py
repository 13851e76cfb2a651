"""The schema comparisons never raise, whatever the schemas hold (catalog text is untrusted),
and a schema compared with itself has no changes."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from xrgen.diff.payload import schema_findings

KEYS = st.sampled_from(
    ["type", "name", "fields", "symbols", "items", "values", "aliases", "default", "properties",
     "required", "enum", "const", "additionalProperties", "$ref", "allOf", "anyOf", "oneOf",
     "not", "minimum", "maxLength", "pattern", "size", "namespace", "definitions", "x"]
)  # fmt: skip
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, width=16),
    st.sampled_from(["record", "enum", "array", "map", "fixed", "int", "string", "null",
                     "object", "integer", "number", "#/definitions/a", "#", "a", "R"]),
)  # fmt: skip
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=25,
)
PROTO = st.lists(
    st.sampled_from(["message", "M", "{", "}", ";", "=", "1", "int32", "x", "reserved", "to",
                     "max", "enum", "oneof", "map", "<", ">", ",", "repeated", "[", "]", '"s"',
                     "package", "p.q", "option"]),
    max_size=30,
).map(" ".join)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(family=st.sampled_from(["json", "avro"]), old=JSON, new=JSON)
def test_json_and_avro_comparisons_never_raise(family: str, old: Any, new: Any) -> None:
    schema_findings(family, old, new)
    assert schema_findings(family, old, old) == []


@settings(max_examples=300, deadline=None)
@given(old=PROTO, new=PROTO)
def test_protobuf_comparison_never_raises(old: str, new: str) -> None:
    schema_findings("protobuf", old, new)


def test_deep_schemas_are_reported_not_raised() -> None:
    deep: Any = {"type": "string"}
    for _ in range(5000):
        deep = {"type": "object", "properties": {"a": deep}}
    other: Any = {"type": "integer"}
    for _ in range(5000):
        other = {"type": "object", "properties": {"a": other}}
    [finding] = schema_findings("json", deep, other)
    assert finding.code == "XRG545"
