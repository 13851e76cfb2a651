"""The basemessage merge table: objects deep-merge, scalars and arrays replace."""

import pytest

from xrgen.resolve import deep_merge


@pytest.mark.parametrize(
    ("base", "child", "expected"),
    [
        ({"a": 1}, {"b": 2}, {"a": 1, "b": 2}),
        ({"a": 1}, {"a": 2}, {"a": 2}),
        ({"a": {"x": 1, "y": 1}}, {"a": {"y": 2}}, {"a": {"x": 1, "y": 2}}),
        ({"a": [1, 2]}, {"a": [3]}, {"a": [3]}),
        ({"a": {"x": 1}}, {"a": "scalar"}, {"a": "scalar"}),
        ({"a": "scalar"}, {"a": {"x": 1}}, {"a": {"x": 1}}),
        ({"a": {"b": {"c": 1, "d": 1}}}, {"a": {"b": {"d": 2}}}, {"a": {"b": {"c": 1, "d": 2}}}),
        ({"a": None}, {"a": 1}, {"a": 1}),
    ],
)
def test_merge_table(base: dict, child: dict, expected: dict) -> None:
    before = repr(base)
    assert deep_merge(base, child) == expected
    assert repr(base) == before  # inputs are not mutated
