"""Hostile documents and servers: every limit of the load stage is a diagnostic with its
location, within bounded time and memory (docs/limits.md)."""

from __future__ import annotations

import http.server
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from netutil import http_server

from xrgen.diagnostics import Diagnostics
from xrgen.limits import MAX_DEPTH, Limits
from xrgen.load import load


def load_text(tmp_path: Path, name: str, text: str, **limits: Any) -> tuple[Any, list[str]]:
    (tmp_path / name).write_text(text, encoding="utf-8")
    diags = Diagnostics()
    reg = load([str(tmp_path / name)], diags, limits=Limits(**limits))
    prefix = str(tmp_path / name)
    lines = [str(d).replace(prefix, name, 1) for d in diags.sorted()]
    return reg, lines


def group_doc(groups: str) -> str:
    return '{"messagegroups": {' + groups + "}}"


# ------------------------------------------------------------------------------ JSON


def test_json_nested_100k_deep_is_an_error(tmp_path: Path) -> None:
    _, lines = load_text(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    assert lines == [f"deep.json#: error XRG105: arrays and objects nested deeper than {MAX_DEPTH} levels"]


def test_json_nested_past_the_limit_names_the_pointer(tmp_path: Path) -> None:
    inner = "[" * 200 + "]" * 200
    _, lines = load_text(tmp_path, "deep.json", group_doc('"g": {"x": ' + inner + "}"))
    assert len(lines) == 1
    assert lines[0].startswith("deep.json#/messagegroups/g/x/0/0/0/")
    assert f"error XRG105: arrays and objects nested deeper than {MAX_DEPTH} levels" in lines[0]


def test_json_depth_within_the_limit_loads(tmp_path: Path) -> None:
    inner = "[" * (MAX_DEPTH - 3) + "]" * (MAX_DEPTH - 3)
    reg, lines = load_text(tmp_path, "ok.json", group_doc('"g": {"x": ' + inner + "}"))
    assert [line for line in lines if " note XRG129: 'x' " not in line] == []
    assert "g" in reg.messagegroups


def test_unknown_attribute_names_are_compared_a_bounded_number_of_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Countless distinct extension names cost bounded time: each distinct name is compared
    with the defined ones once, and at most SEARCHES of them per load."""
    from xrgen.load import attributes

    calls: list[str] = []
    real = attributes.closest
    monkeypatch.setattr(attributes, "closest", lambda key, known: calls.append(key) or real(key, known))
    monkeypatch.setattr(attributes, "SEARCHES", 50)
    names = ", ".join(f'"x-{i}": 1' for i in range(200))
    groups = ", ".join(f'"g{j}": {{{names}, "descripton": "d"}}' for j in range(3))
    _, lines = load_text(tmp_path, "many.json", group_doc(groups))
    assert len(calls) == 50  # 201 distinct names, in three groups: compared 50 times in all
    # one note per name and file; past the bound even a misspelling is read as an extension
    assert sum(" note XRG129: " in line for line in lines) == 201
    assert not any(" warning XRG128: " in line for line in lines)


def test_json_integer_past_the_digit_limit(tmp_path: Path) -> None:
    _, lines = load_text(tmp_path, "big.json", group_doc('"g": {"x": ' + "9" * 5000 + "}"))
    assert lines == ["big.json#: error XRG108: an integer has more than 4300 digits"]


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_nan_and_infinity_are_refused(tmp_path: Path, constant: str) -> None:
    _, lines = load_text(tmp_path, "nan.json", group_doc('"g": {"x": ' + constant + "}"))
    assert lines == [f"nan.json#: error XRG108: {constant} is not a JSON number"]


def test_json_duplicate_keys_are_an_error(tmp_path: Path) -> None:
    _, lines = load_text(
        tmp_path, "dup.json", group_doc('"g": {"messages": {"a": {}, "b": {}, "a": {}}}')
    )
    assert lines == [
        "dup.json#/messagegroups/g/messages/a: error XRG109: duplicate key 'a': "
        "an object may hold each key once"
    ]


def test_document_size_cap(tmp_path: Path) -> None:
    text = group_doc('"g": {"description": "' + "x" * 5000 + '"}')
    _, lines = load_text(tmp_path, "big.json", text, max_document_bytes=4096)
    assert lines == [
        "big.json#: error XRG104: the document is larger than 4096 bytes "
        "(--max-document-bytes, [tool.xrgen] max-document-bytes)"
    ]


def test_string_length_cap(tmp_path: Path) -> None:
    text = group_doc('"g": {"description": "' + "x" * 5000 + '"}')
    _, lines = load_text(tmp_path, "long.json", text, max_string_chars=4000)
    assert lines == [
        "long.json#/messagegroups/g/description: error XRG104: "
        "a string longer than 4000 characters"
    ]


# ------------------------------------------------------------------------------ YAML

BOMB = "".join(
    f"{n}: &{n} [{', '.join(['*' + p] * 9 if p else ['x'] * 9)}]\n"
    for p, n in zip(["", "a", "b", "c", "d", "e", "f", "g", "h"], "abcdefghi", strict=True)
)


def test_yaml_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    started = time.perf_counter()
    _, lines = load_text(tmp_path, "bomb.yaml", BOMB)
    assert time.perf_counter() - started < 5  # unbounded: MemoryError after minutes
    assert len(lines) == 1
    assert "error XRG107: YAML aliases expand the document by more than 1000000 nodes" in lines[0]


def test_yaml_aliases_within_the_limit_are_expanded_as_copies(tmp_path: Path) -> None:
    reg, lines = load_text(
        tmp_path,
        "ok.yaml",
        "messagegroups:\n  g: &g {description: d}\n  h: *g\n",
    )
    assert lines == []
    g, h = reg.messagegroups["g"].entity.data, reg.messagegroups["h"].entity.data
    assert g["description"] == h["description"] == "d" and g is not h


def test_yaml_recursive_alias(tmp_path: Path) -> None:
    _, lines = load_text(tmp_path, "rec.yaml", "a: &a [1, *a]\n")
    assert lines == [
        "rec.yaml#: error XRG107: a YAML alias refers to its own anchor (line 1:4): "
        "the document is infinite"
    ]


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        ("messagegroups: !!set {x, y}\n", "tag:yaml.org,2002:set"),
        ("messagegroups: {g: {description: !!binary aGVsbG8=}}\n", "tag:yaml.org,2002:binary"),
        ("messagegroups: !!python/name:os.system x\n", "tag:yaml.org,2002:python/name:os.system"),
        ("messagegroups: !!omap [a: 1]\n", "tag:yaml.org,2002:omap"),
        ("messagegroups: !custom x\n", "!custom"),
    ],
)
def test_yaml_tags_that_are_not_json_data(tmp_path: Path, text: str, tag: str) -> None:
    _, lines = load_text(tmp_path, "tag.yaml", text)
    assert len(lines) == 1
    assert f"error XRG108: YAML tag {tag} is not JSON data" in lines[0]
    assert lines[0].startswith("tag.yaml#/messagegroups")


def test_yaml_nan_and_big_integers(tmp_path: Path) -> None:
    _, lines = load_text(tmp_path, "nan.yaml", "messagegroups: {g: {x: .nan}}\n")
    assert lines == ["nan.yaml#/messagegroups/g/x: error XRG108: .nan is not a JSON number (line 1:24)"]
    _, lines = load_text(tmp_path, "int.yaml", "x: " + "9" * 5000 + "\n")
    assert lines == ["int.yaml#/x: error XRG108: an integer has more than 4300 digits (line 1:4)"]


def test_yaml_non_string_keys_keep_their_text(tmp_path: Path) -> None:
    reg, lines = load_text(
        tmp_path,
        "keys.yaml",
        "messagegroups:\n  1.0: {}\n  1.00: {}\n  true: {}\n  True: {}\n  yes: {}\n  2: {}\n",
    )
    assert sorted(reg.messagegroups) == ["1.0", "1.00", "2", "True", "true", "yes"]
    assert lines == [
        "keys.yaml#/messagegroups/1.00: warning XRG119: YAML key 1.00 is a float, not a string; "
        "read as the string '1.00' as written, not '1.0' (quote it to say so)",
        "keys.yaml#/messagegroups/True: warning XRG119: YAML key True is a bool, not a string; "
        "read as the string 'True' as written, not 'true' (quote it to say so)",
        "keys.yaml#/messagegroups/yes: warning XRG119: YAML key yes is a bool, not a string; "
        "read as the string 'yes' as written, not 'true' (quote it to say so)",
    ]


def test_yaml_duplicate_keys_are_an_error(tmp_path: Path) -> None:
    _, lines = load_text(tmp_path, "dup.yaml", "messagegroups:\n  '1.0': {}\n  1.0: {}\n")
    assert lines == [
        "dup.yaml#/messagegroups/1.0: error XRG109: duplicate key '1.0' (line 3:3): "
        "an object may hold each key once"
    ]


def test_yaml_merge_keys_are_overridden_not_duplicates(tmp_path: Path) -> None:
    reg, lines = load_text(
        tmp_path,
        "merge.yaml",
        "base: &b {description: base, format: x}\n"
        "messagegroups:\n  g:\n    <<: *b\n    description: own\n",
    )
    assert lines == [
        "merge.yaml#/base: note XRG129: 'base' is not an attribute of a registry document in"
        " xRegistry 1.0: kept as an extension attribute and not read"
    ]
    assert reg.messagegroups["g"].entity.data["description"] == "own"
    assert reg.messagegroups["g"].entity.data["format"] == "x"


def test_yaml_deep_nesting(tmp_path: Path) -> None:
    _, lines = load_text(tmp_path, "deep.yaml", "x: " + "[" * 150 + "]" * 150 + "\n")
    assert len(lines) == 1 and f"error XRG105: arrays and objects nested deeper than {MAX_DEPTH}" in lines[0]
    _, lines = load_text(tmp_path, "deeper.yaml", "[" * 100_000)
    assert len(lines) == 1 and "error XRG101: invalid YAML" in lines[0]  # libyaml's own limit


# ------------------------------------------------------------------------------ URLs


class _Hostile(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    routes: dict[str, Callable[[_Hostile], None]] = {}

    def do_GET(self) -> None:
        route = self.routes.get(self.path.split("?")[0])
        if route is None:
            self.send_error(404, "Not Found")
        else:
            route(self)

    def log_message(self, *args: Any) -> None:
        pass


def _drip(h: _Hostile) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", "100000")
    h.end_headers()
    try:
        for _ in range(100_000):
            h.wfile.write(b" ")
            h.wfile.flush()
            time.sleep(0.05)
    except OSError:
        pass


def _huge(h: _Hostile) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.end_headers()  # no Content-Length: read until the cap
    h.close_connection = True
    try:
        for _ in range(10_000):
            h.wfile.write(b" " * 65536)
    except OSError:
        pass


def _redirect(target: str) -> Callable[[_Hostile], None]:
    def route(h: _Hostile) -> None:
        h.send_response(302)
        h.send_header("Location", target)
        h.send_header("Content-Length", "0")
        h.end_headers()

    return route


def _json(doc: Any) -> Callable[[_Hostile], None]:
    def route(h: _Hostile) -> None:
        body = json.dumps(doc).encode()
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    return route


@pytest.fixture()
def hostile(tmp_path: Path) -> Iterator[str]:
    secret = tmp_path / "secret.json"
    secret.write_text('{"messagegroups": {"stolen": {}}}')
    _Hostile.routes = {
        "/drip": _drip,
        "/huge": _huge,
        "/to-file": _redirect(secret.as_uri()),
        "/to-ftp": _redirect("ftp://127.0.0.1/x.json"),
        "/links-file": _json(
            {"messagegroupsurl": secret.as_uri(), "messagegroupscount": 1}
        ),
    }
    with http_server(_Hostile) as url:
        yield url


def test_slow_drip_stops_at_the_total_deadline(hostile: str) -> None:
    diags = Diagnostics()
    started = time.perf_counter()
    load([hostile + "/drip"], diags, limits=Limits(fetch_timeout=1.0))
    assert time.perf_counter() - started < 3
    assert [str(d) for d in diags] == [
        f"{hostile}/drip#: error XRG100: fetching took longer than 1 s "
        "(--fetch-timeout, [tool.xrgen] fetch-timeout)"
    ]


def test_huge_body_stops_at_the_size_cap(hostile: str) -> None:
    diags = Diagnostics()
    load([hostile + "/huge"], diags, limits=Limits(max_document_bytes=1_000_000))
    assert [str(d) for d in diags] == [
        f"{hostile}/huge#: error XRG104: the document is larger than 1000000 bytes "
        "(--max-document-bytes, [tool.xrgen] max-document-bytes)"
    ]


@pytest.mark.parametrize(("path", "scheme"), [("/to-file", "file"), ("/to-ftp", "ftp")])
def test_redirects_stay_on_http(hostile: str, path: str, scheme: str) -> None:
    diags = Diagnostics()
    reg = load([hostile + path], diags)
    (d,) = diags
    assert d.code == "XRG100" and "only http(s) is followed" in d.message
    assert f"redirects to '{scheme}://" in d.message
    assert "stolen" not in reg.messagegroups


def test_follow_up_fetches_stay_on_http(hostile: str) -> None:
    diags = Diagnostics()
    reg = load([hostile + "/links-file"], diags)
    assert "stolen" not in reg.messagegroups
    (d,) = diags
    assert d.code == "XRG100" and "only http(s) URLs are loaded" in d.message


@pytest.mark.parametrize("source", ["file:///etc/passwd", "ftp://127.0.0.1/x.json"])
def test_other_schemes_are_not_sources(source: str) -> None:
    diags = Diagnostics()
    load([source], diags)
    assert [(d.code, d.message) for d in diags] == [("XRG100", "only http(s) URLs are loaded")]


# ------------------------------------------------------------------------------ resolve


def test_long_basemessage_cycles_and_chains(tmp_path: Path) -> None:
    """Resolution is iterative: a 3,000-message cycle is one XRG201 naming its ends, and a
    3,000-message chain merges (the recursion limit is about 1,000)."""
    from xrgen.resolve import resolve

    def message(mid: str, base: str | None) -> dict[str, Any]:
        m: dict[str, Any] = {
            "messageid": mid,
            "envelope": "CloudEvents/1.0",
            "envelopemetadata": {"type": {"value": mid}},
        }
        if base:
            m["basemessage"] = f"/messagegroups/g/messages/{base}"
        return m

    n = 3000
    msgs = {f"c{i}": message(f"c{i}", f"c{(i + 1) % n}") for i in range(n)}
    msgs["k0"] = message("k0", None)
    msgs["k0"]["envelopemetadata"]["source"] = {"value": "/root"}
    msgs.update({f"k{i}": message(f"k{i}", f"k{i - 1}") for i in range(1, n)})
    (tmp_path / "c.json").write_text(json.dumps({"messagegroups": {"g": {"messages": msgs}}}))
    diags = Diagnostics()
    resolved = resolve(load([str(tmp_path / "c.json")], diags), diags)
    errors = [d for d in diags if d.severity == "error"]
    assert [(d.code, d.pointer) for d in errors] == [
        ("XRG201", f"/messagegroups/g/messages/c{n - 1}/basemessage")
    ]
    assert f"... ({n + 1 - 10} more) ..." in errors[0].message
    (group,) = resolved.groups
    last = next(m for m in group.messages if m.id == f"k{n - 1}")
    assert last.data["envelopemetadata"]["source"]["value"] == "/root"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_endless_file_stops_at_the_size_cap() -> None:
    diags = Diagnostics()
    load(["/dev/zero"], diags, limits=Limits(max_document_bytes=1000))
    assert [(d.code, d.file) for d in diags] == [("XRG104", "/dev/zero")]


def test_json_number_that_overflows_to_infinity(tmp_path: Path) -> None:
    _, lines = load_text(tmp_path, "big.json", group_doc('"g": {"x": [1e308, -1e400]}'))
    assert lines == ["big.json#: error XRG108: -1e400 is too large for a floating-point number"]
    _, lines = load_text(tmp_path, "big.yaml", "x: 1.0e+400\n")
    assert lines == ["big.yaml#/x: error XRG108: 1.0e+400 is not a JSON number (line 1:4)"]


# ------------------------------------------------------------------------------ fuzz

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

#: YAML and JSON fragments that exercise tags, anchors, aliases, merges, keys and numbers
_PIECES = st.sampled_from(
    [
        "&a ", "*a", "<<: *a\n", "!!set ", "!!binary ", "!!python/name:os.system ", "!x ",
        "[", "]", "{", "}", ", ", ": ", "\n", "  ", "- ", "1.0", "1e400", ".nan", "-.inf",
        "true", "~", "yes", "'k'", '"k"', "messagegroups", "g", "9" * 50, "? ", "|\n  x\n",
        "NaN", "Infinity", '"\\u0000"', "#c\n", "%YAML 1.1\n---\n", "...\n",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(_PIECES, max_size=40), yaml_syntax=st.booleans())
def test_any_text_loads_into_diagnostics_never_an_exception(
    tmp_path: Path, pieces: list[str], yaml_syntax: bool
) -> None:
    """Whatever the text, ``load`` returns (no exception) within a bounded time, and anything
    it refuses is an error diagnostic with a code."""
    path = tmp_path / ("c.yaml" if yaml_syntax else "c.json")
    path.write_text("".join(pieces), encoding="utf-8")
    diags = Diagnostics()
    started = time.perf_counter()
    load([str(path)], diags, limits=Limits(max_alias_nodes=10_000))
    assert time.perf_counter() - started < 5
    assert all(d.code.startswith("XRG1") for d in diags)


_KEYS = st.sampled_from(
    [
        "messagegroups", "messages", "schemagroups", "schemas", "versions", "endpoints",
        "envelope", "envelopemetadata", "protocol", "protocoloptions", "basemessage", "xref",
        "dataschema", "dataschemauri", "dataschemaformat", "schema", "format", "type", "value",
        "$ref", "properties", "pattern", "items", "allOf", "g", "m", "1", "meta", "usage",
        "messageid", "defaultversionid", "topic", "headers", "qos", "required", "enum",
    ]
)
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(
        [
            "CloudEvents/1.0", "KAFKA", "MQTT/5.0", "HTTP", "AMQP/1.0", "JsonSchema/draft-07",
            "Avro/1.11", "Protobuf/3", "#/$defs/A", "#", "/messagegroups/g/messages/m",
            "#/schemagroups/g/schemas/s", "{x}", "string", "object", "(?=a)", "[a", "", "x",
        ]
    ),
)
_TREES = st.recursive(
    _SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(_KEYS, children, max_size=5)
    ),
    max_leaves=40,
)


_ENTITY = st.dictionaries(_KEYS, _TREES, max_size=6)
_CATALOGS = st.fixed_dictionaries(
    {},
    optional={
        "messagegroups": st.dictionaries(
            st.sampled_from(["g", "h"]),
            st.fixed_dictionaries(
                {"messages": st.dictionaries(st.sampled_from(["m", "n", "o"]), _ENTITY, max_size=3)},
                optional={"envelope": _SCALARS, "protocol": _SCALARS},
            ),
            max_size=2,
        ),
        "schemagroups": st.dictionaries(
            st.sampled_from(["g"]),
            st.fixed_dictionaries(
                {
                    "schemas": st.dictionaries(
                        st.sampled_from(["s", "t"]),
                        st.fixed_dictionaries(
                            {"versions": st.dictionaries(st.sampled_from(["1", "2"]), _ENTITY, max_size=2)},
                            optional={"format": _SCALARS},
                        ),
                        max_size=2,
                    )
                }
            ),
            max_size=1,
        ),
        "endpoints": st.dictionaries(st.sampled_from(["e"]), _ENTITY, max_size=1),
    },
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=_CATALOGS)
def test_any_catalog_shape_is_diagnostics_never_an_internal_error(tmp_path: Path, doc: dict[str, Any]) -> None:
    """Random catalog-shaped documents through load, validate, resolve and build: problems
    are diagnostics of the stage, never XRG90x (an unexpected exception)."""
    from xrgen import api

    (tmp_path / "c.json").write_text(json.dumps(doc), encoding="utf-8")
    analysis = api.analyze([str(tmp_path / "c.json")])
    internal = [str(d) for d in analysis.diagnostics if d.code.startswith("XRG9")]
    assert not internal, (internal, analysis.error)
