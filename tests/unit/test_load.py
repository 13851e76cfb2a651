"""Unit tests of the load stage: input kinds, stacking, legacy normalization, URLs, errors."""

from __future__ import annotations

import http.server
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from netutil import http_server

from xrgen.diagnostics import Diagnostics
from xrgen.limits import Limits
from xrgen.load import (
    IO_ERROR_CODES,
    display_name,
    is_cloudevents,
    is_io_error,
    load,
    schema_format_family,
    schema_format_version,
)


def ce_message(type_: str, **extra: Any) -> dict[str, Any]:
    return {
        "envelope": "CloudEvents/1.0",
        "envelopemetadata": {"type": {"value": type_}, "source": {"value": "/src"}},
        **extra,
    }


def doc_with(messages: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"messagegroups": {"g": {"envelope": "CloudEvents/1.0", "messages": messages}}, **top}


def write(path: Path, data: Any) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def codes(diags: Diagnostics) -> list[str]:
    return [d.code for d in diags.sorted()]


@pytest.fixture()
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ------------------------------------------------------------------------------ input kinds


def test_json_file(in_tmp: Path) -> None:
    write(in_tmp / "cat.json", doc_with({"a": ce_message("a", messageid="a")}))
    diags = Diagnostics()
    reg = load(["cat.json"], diags)
    msg = reg.messagegroups["g"].messages["a"]
    assert msg.data["envelopemetadata"]["type"]["value"] == "a"
    assert (msg.file, msg.pointer) == ("cat.json", "/messagegroups/g/messages/a")
    assert reg.sources == ["cat.json"]
    assert codes(diags) == []


def test_yaml_file_keeps_timestamps_and_stringifies_keys(in_tmp: Path) -> None:
    (in_tmp / "cat.yaml").write_text(
        "messagegroups:\n"
        "  g:\n"
        "    messages:\n"
        "      a:\n"
        "        messageid: a\n"
        "        envelope: CloudEvents/1.0\n"
        "        envelopemetadata:\n"
        "          time: {type: timestamp, value: 2024-01-01T00:00:00Z}\n"
        "schemagroups:\n"
        "  s:\n"
        "    schemas:\n"
        "      x:\n"
        "        versions:\n"
        "          1.0: {format: Avro/1.11, schema: {type: string}}\n",
        encoding="utf-8",
    )
    diags = Diagnostics()
    reg = load(["cat.yaml"], diags)
    time = reg.messagegroups["g"].messages["a"].data["envelopemetadata"]["time"]["value"]
    assert time == "2024-01-01T00:00:00Z"
    assert list(reg.schemagroups["s"].schemas["x"].versions) == ["1.0"]
    assert codes(diags) == []


def test_split_folder(in_tmp: Path) -> None:
    root = in_tmp / "split"
    write(root / "index.json", doc_with({"a": ce_message("a", messageid="a")}))
    write(root / "messagegroups/g/messages/b/index.json", ce_message("b", messageid="b"))
    write(root / "schemagroups/s/schemas/x$meta/index.json", {"defaultversionid": "2"})
    write(
        root / "schemagroups/s/schemas/x/index.json",
        {"format": "JsonSchema/draft-07", "versions": {"1": {"schema": {"type": "string"}}}},
    )
    write(root / "schemagroups/s/schemas/x/versions/2/index.json", {"type": "object"})
    write(root / "endpoints/e/index.json", {"usage": ["producer"], "protocol": "KAFKA"})
    diags = Diagnostics()
    reg = load(["split"], diags)
    assert set(reg.messagegroups["g"].messages) == {"a", "b"}
    b = reg.messagegroups["g"].messages["b"]
    assert (b.file, b.pointer) == ("split/messagegroups/g/messages/b/index.json", "")
    schema = reg.schemagroups["s"].schemas["x"]
    assert schema.default_version == "2"
    assert schema.versions["2"].data["schema"] == {"type": "object"}
    assert schema.versions["2"].file == "split/schemagroups/s/schemas/x/versions/2/index.json"
    assert schema.versions["1"].pointer == "/versions/1"
    assert reg.endpoints["e"].data["protocol"] == "KAFKA"
    assert codes(diags) == []


def test_split_folder_ignores_unknown_paths(in_tmp: Path) -> None:
    write(in_tmp / "split/index.json", {})
    write(in_tmp / "split/other/index.json", {"x": 1})
    diags = Diagnostics()
    load(["split"], diags)
    assert [str(d) for d in diags] == [
        "split/other/index.json#: warning XRG106: file is not at an xRegistry path; ignored"
    ]


# ------------------------------------------------------------------------------- stacking


def test_later_document_shadows_entities(in_tmp: Path) -> None:
    first = doc_with(
        {"a": ce_message("a-old", messageid="a"), "b": ce_message("b", messageid="b")},
        schemagroups={"s": {"schemas": {"x": {"versions": {"1": {"schema": {"type": "string"}}}}}}},
        endpoints={"e": {"usage": ["producer"], "protocol": "NATS"}},
    )
    first["messagegroups"]["g"]["description"] = "old"
    second = doc_with(
        {"a": ce_message("a-new", messageid="a")},
        schemagroups={
            "s": {"schemas": {"x": {"versions": {"2": {"schema": {"type": "integer"}}}}}}
        },
        endpoints={"e": {"usage": ["consumer"], "protocol": "KAFKA"}},
    )
    write(in_tmp / "one.json", first)
    write(in_tmp / "two.json", second)
    diags = Diagnostics()
    reg = load(["one.json", "two.json"], diags)
    group = reg.messagegroups["g"]
    assert group.messages["a"].data["envelopemetadata"]["type"]["value"] == "a-new"
    assert group.messages["a"].file == "two.json"
    assert group.messages["b"].file == "one.json"
    assert group.entity.data["description"] == "old"  # group attributes merge
    assert set(reg.schemagroups["s"].schemas["x"].versions) == {"1", "2"}
    assert reg.endpoints["e"].data["usage"] == ["consumer"]
    assert "protocoloptions" not in reg.endpoints["e"].data
    assert reg.sources == ["one.json", "two.json"]
    assert codes(diags) == []


def test_stacking_order_is_command_line_order(in_tmp: Path) -> None:
    write(in_tmp / "one.json", doc_with({"a": ce_message("one", messageid="a")}))
    write(in_tmp / "two.json", doc_with({"a": ce_message("two", messageid="a")}))
    reg = load(["two.json", "one.json"], Diagnostics())
    assert reg.messagegroups["g"].messages["a"].data["envelopemetadata"]["type"]["value"] == "one"


# --------------------------------------------------------------------------- normalization


def test_legacy_message_spellings(in_tmp: Path) -> None:
    legacy = {
        "id": "a",
        "format": "CloudEvents/1.0",
        "metadata": {"attributes": {"type": {"value": "a"}, "time": {"type": "datetime"}}},
        "schemaurl": "#/schemagroups/s/schemas/x",
    }
    doc = {
        "messagegroups": {
            "g": {"id": "g", "format": "CloudEvents/1.0", "definitions": {"a": legacy}}
        }
    }
    write(in_tmp / "cat.json", doc)
    diags = Diagnostics()
    reg = load(["cat.json"], diags)
    group = reg.messagegroups["g"]
    assert group.entity.data == {"messagegroupid": "g", "envelope": "CloudEvents/1.0"}
    msg = group.messages["a"]
    assert msg.pointer == "/messagegroups/g/definitions/a"
    assert msg.data == {
        "messageid": "a",
        "envelope": "CloudEvents/1.0",
        "envelopemetadata": {"type": {"value": "a"}, "time": {"type": "timestamp"}},
        "dataschemauri": "#/schemagroups/s/schemas/x",
    }
    assert [str(d).split("#", 1)[1] for d in diags.sorted()] == [
        "/messagegroups/g/definitions: warning XRG110: legacy attribute 'definitions' read as 'messages'",
        "/messagegroups/g/definitions/a/envelopemetadata/time/type: warning XRG116: attribute type 'datetime' read as 'timestamp'",
        "/messagegroups/g/definitions/a/format: warning XRG110: legacy attribute 'format' read as 'envelope'",
        "/messagegroups/g/definitions/a/id: warning XRG111: legacy attribute 'id' read as 'messageid'",
        "/messagegroups/g/definitions/a/metadata: warning XRG110: legacy attribute 'metadata' read as 'envelopemetadata'",
        "/messagegroups/g/definitions/a/schemaurl: warning XRG110: legacy attribute 'schemaurl' read as 'dataschemauri'",
        "/messagegroups/g/format: warning XRG110: legacy attribute 'format' read as 'envelope'",
        "/messagegroups/g/id: warning XRG111: legacy attribute 'id' read as 'messagegroupid'",
    ]


def test_missing_messageid_uses_key_and_mismatch_is_error(in_tmp: Path) -> None:
    write(
        in_tmp / "cat.json", doc_with({"a": ce_message("a"), "b": ce_message("b", messageid="c")})
    )
    diags = Diagnostics()
    reg = load(["cat.json"], diags)
    assert reg.messagegroups["g"].messages["a"].data["messageid"] == "a"
    assert [str(d).split("#", 1)[1] for d in diags.sorted()] == [
        "/messagegroups/g/messages/a: warning XRG112: 'messageid' missing; using the map key 'a'",
        "/messagegroups/g/messages/b/messageid: error XRG113: 'messageid' 'c' differs from its map key 'b'",
    ]


def test_legacy_group_format_naming_a_protocol(in_tmp: Path) -> None:
    write(in_tmp / "cat.json", {"messagegroups": {"g": {"format": "MQTT/3.1.1", "messages": {}}}})
    reg = load(["cat.json"], Diagnostics())
    assert reg.messagegroups["g"].entity.data["protocol"] == "MQTT/3.1.1"


def test_protocol_option_legacy_spellings(in_tmp: Path) -> None:
    amqp = {
        "messageid": "a",
        "protocol": "AMQP/1.0",
        "protocoloptions": {"application_properties": {"p": {"type": "string"}}},
    }
    mqtt = {
        "messageid": "m",
        "protocol": "MQTT/5.0",
        "protocoloptions": {
            "properties": {"topic": {"value": "t/{x}"}, "qos": {"value": 1}},
            "user-properties": [],
        },
    }
    write(in_tmp / "cat.json", {"messagegroups": {"g": {"messages": {"a": amqp, "m": mqtt}}}})
    diags = Diagnostics()
    reg = load(["cat.json"], diags)
    msgs = reg.messagegroups["g"].messages
    assert msgs["a"].data["protocoloptions"] == {
        "application-properties": {"p": {"type": "string"}}
    }
    assert msgs["m"].data["protocoloptions"] == {
        "topic_name": {"value": "t/{x}"},
        "qos": {"value": 1},
        "user_properties": [],
    }
    assert codes(diags) == ["XRG117", "XRG117", "XRG117", "XRG117"]


def test_legacy_endpoint_config(in_tmp: Path) -> None:
    ep = {
        "id": "e",
        "usage": "producer",
        "config": {"protocol": "HTTP", "endpoints": ["https://x"]},
        "format": "CloudEvents/1.0",
    }
    write(in_tmp / "cat.json", {"endpoints": {"e": ep}})
    reg = load(["cat.json"], Diagnostics())
    assert reg.endpoints["e"].data == {
        "endpointid": "e",
        "usage": ["producer"],
        "envelope": "CloudEvents/1.0",
        "protocol": "HTTP",
        "protocoloptions": {"endpoints": [{"uri": "https://x"}]},
    }


def test_schema_without_versions_becomes_version_1(in_tmp: Path) -> None:
    schemas = {
        "x": {"format": "Avro/1.11", "schema": {"type": "string"}},
        "y": {"defaultversionid": "1", "versions": {"1": {"schemaurl": "https://s"}}},
    }
    write(in_tmp / "cat.json", {"schemagroups": {"s": {"schemas": schemas}}})
    diags = Diagnostics()
    reg = load(["cat.json"], diags)
    x = reg.schemagroups["s"].schemas["x"]
    assert list(x.versions) == ["1"]
    assert x.versions["1"].data == {
        "format": "Avro/1.11",
        "schema": {"type": "string"},
        "versionid": "1",
    }
    assert x.versions["1"].pointer == "/schemagroups/s/schemas/x"
    y = reg.schemagroups["s"].schemas["y"]
    assert y.default_version == "1" and y.entity.data["meta"] == {"defaultversionid": "1"}
    assert codes(diags) == ["XRG115", "XRG110"]


@pytest.mark.parametrize(
    ("text", "family", "version"),
    [
        ("JsonSchema/draft-07", "json", "draft-07"),
        ("JSONSchema/Draft-07", "json", "draft-07"),
        ("jsonschema/draft7", "json", "draft-07"),
        ("JsonSchema/draft/2020-12", "json", "2020-12"),
        ("jsonschema", "json", None),
        ("Avro/1.11.1", "avro", "1.11.1"),
        ("AVRO/1.11.2", "avro", "1.11.2"),
        ("Protobuf/3.0", "protobuf", "3"),
        ("Proto/3", "protobuf", "3"),
        ("proto3", "protobuf", "3"),
        ("XSD/1.1", "xsd", "1.1"),
        ("", None, None),
        (None, None, None),
    ],
)
def test_schema_format_helpers(text: str | None, family: str | None, version: str | None) -> None:
    assert schema_format_family(text) == family
    assert schema_format_version(text) == version


def test_protocol_and_envelope_helpers() -> None:
    assert is_cloudevents("cloudevents/1.0") and not is_cloudevents("CloudEvents/2.0")


# --------------------------------------------------------------------------------- errors


def test_json_parse_error_has_line_and_column(in_tmp: Path) -> None:
    (in_tmp / "bad.json").write_text(
        '{\n  "messagegroups": {\n    "g": [1,,]\n  }\n}\n', encoding="utf-8"
    )
    diags = Diagnostics()
    reg = load(["bad.json"], diags)
    assert [str(d) for d in diags] == [
        "bad.json#: error XRG101: invalid JSON at line 3:13: Expecting value"
    ]
    assert not reg.messagegroups


def test_yaml_parse_error_has_line_and_column(in_tmp: Path) -> None:
    (in_tmp / "bad.yaml").write_text("messagegroups:\n  g: [a, b\n  h: 1\n", encoding="utf-8")
    diags = Diagnostics()
    load(["bad.yaml"], diags)
    (diag,) = diags
    assert diag.code == "XRG101"
    assert diag.message.startswith("invalid YAML at line 3:4:")


def test_missing_file_is_io_error_and_others_still_load(in_tmp: Path) -> None:
    write(in_tmp / "ok.json", doc_with({"a": ce_message("a", messageid="a")}))
    diags = Diagnostics()
    reg = load(["nope.json", "ok.json"], diags)
    (diag,) = diags
    assert str(diag) == "nope.json#: error XRG100: cannot read file: No such file or directory"
    assert is_io_error(diag.code) and "XRG100" in IO_ERROR_CODES and not is_io_error("XRG101")
    assert "a" in reg.messagegroups["g"].messages


def test_document_root_must_be_an_object(in_tmp: Path) -> None:
    write(in_tmp / "list.json", [1, 2])
    write(in_tmp / "coll.json", {"messagegroups": [1]})
    diags = Diagnostics()
    load(["list.json", "coll.json"], diags)
    assert codes(diags) == ["XRG103", "XRG102"]


def test_display_names(in_tmp: Path) -> None:
    assert display_name("./a/../cat.json") == "cat.json"
    assert display_name(str(in_tmp / "sub" / "c.json")) == "sub/c.json"
    assert display_name("/elsewhere/c.json", cwd=in_tmp) == "/elsewhere/c.json"
    assert display_name("https://x.example/reg") == "https://x.example/reg"


# ---------------------------------------------------------------------------------- URLs


class _Registry(http.server.BaseHTTPRequestHandler):
    """A tiny xRegistry server: / links its collections, /?inline=* inlines them;
    /doc.json is a plain document; /root-links-only never inlines (collections by url)."""

    doc: dict[str, Any] = {}
    log: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        self.log.append(self.path)
        base = f"http://{self.headers['Host']}"
        if self.path == "/doc.json":
            self._send(self.doc)
        elif self.path == "/?inline=*":
            self._send({"specversion": "1.0-rc2", **self.doc})
        elif self.path in ("/", "/root-links-only"):
            self._send(
                {
                    "specversion": "1.0-rc2",
                    "messagegroupsurl": base + "/messagegroups",
                    "messagegroupscount": 1,
                }
            )
        elif self.path == "/messagegroups?inline=*":
            self._send(self.doc["messagegroups"])
        elif self.path == "/broken":
            self._send_raw(b"{ not json")
        else:
            self.send_error(404, "Not Found")

    def _send(self, data: Any) -> None:
        self._send_raw(json.dumps(data).encode())

    def _send_raw(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[str]:
    _Registry.doc = doc_with({"a": ce_message("a", messageid="a")})
    _Registry.log = []
    with http_server(_Registry) as url:
        yield url


def test_url_returning_a_document(server: str) -> None:
    diags = Diagnostics()
    reg = load([server + "/doc.json"], diags)
    msg = reg.messagegroups["g"].messages["a"]
    assert msg.file == server + "/doc.json"
    assert codes(diags) == [] and _Registry.log == ["/doc.json"]


def test_url_of_server_root_is_fetched_inline(server: str) -> None:
    diags = Diagnostics()
    reg = load([server + "/"], diags)
    assert "a" in reg.messagegroups["g"].messages
    assert _Registry.log == ["/", "/?inline=*"]
    assert codes(diags) == []


def test_url_collections_fetched_by_their_url(server: str) -> None:
    diags = Diagnostics()
    reg = load([server + "/root-links-only"], diags)
    assert "a" in reg.messagegroups["g"].messages
    assert _Registry.log == [
        "/root-links-only",
        "/root-links-only?inline=*",
        "/messagegroups?inline=*",
    ]


def test_url_errors_are_diagnostics(server: str) -> None:
    diags = Diagnostics()
    load([server + "/missing.json", server + "/broken"], diags)
    assert [str(d) for d in diags] == [
        f"{server}/missing.json#: error XRG100: HTTP 404 Not Found fetching {server}/missing.json",
        f"{server}/broken#: error XRG101: invalid JSON at line 1:3: Expecting property name enclosed in double quotes",
    ]


def test_unreachable_url_is_io_error() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    diags = Diagnostics()
    load([f"http://127.0.0.1:{port}/x.json"], diags, limits=Limits(fetch_timeout=2))
    (diag,) = diags
    assert diag.code == "XRG100" and is_io_error(diag.code)
    assert diag.message.startswith(f"cannot fetch http://127.0.0.1:{port}/x.json:")
