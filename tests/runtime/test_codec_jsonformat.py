"""JSON event format (json-format.md): members, data vs data_base64, batches, errors."""

from __future__ import annotations

import importlib
import json
from datetime import datetime, timezone
from types import ModuleType

import pytest
from pydantic import BaseModel

BASE = {"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}


@pytest.fixture()
def jf(runtime_package: ModuleType) -> ModuleType:
    return importlib.import_module(f"{runtime_package.__name__}.bindings.jsonformat")


def test_spec_example_decodes(jf: ModuleType) -> None:
    body = """{
        "specversion" : "1.0", "type" : "com.example.someevent", "source" : "/mycontext",
        "subject": null, "id" : "C234-1234-1234", "time" : "2018-04-05T17:31:00Z",
        "comexampleextension1" : "value", "comexampleothervalue" : 5,
        "unsetextension": null, "datacontenttype" : "application/vnd.apache.thrift.binary",
        "data_base64" : "... base64 encoded string ..."
    }"""
    with pytest.raises(Exception) as exc:  # the spec's placeholder is not valid base64
        jf.decode(body)
    assert exc.value.reason == "invalid-encoding"
    ok = json.loads(body)
    ok["data_base64"] = "AAE="
    event = jf.decode(json.dumps(ok))
    assert event.data == b"\x00\x01"
    assert "subject" not in event.attributes and "unsetextension" not in event.attributes
    assert event.attributes["comexampleothervalue"] == 5
    assert event.attributes["time"] == datetime(2018, 4, 5, 17, 31, tzinfo=timezone.utc)


def test_data_forms(jf: ModuleType, runtime_package: ModuleType) -> None:
    Event = runtime_package.Event
    enc = lambda attrs, data: json.loads(jf.encode(Event({**BASE, **attrs}, data)))  # noqa: E731
    assert enc({}, b"\x01")["data_base64"] == "AQ=="
    assert "datacontenttype" not in enc({}, b"\x01")  # MUST NOT add one
    assert enc({}, {"a": 1})["data"] == {"a": 1}
    assert enc({"datacontenttype": "application/vnd.x+json; v=1"}, [1])["data"] == [1]
    assert enc({"datacontenttype": "TEXT/JSON"}, "s")["data"] == "s"
    assert enc({"datacontenttype": "text/plain"}, "hi")["data"] == "hi"
    assert enc({"datacontenttype": "text/xml"}, {"a": 1})["data"] == '{"a":1}'
    assert "data" not in enc({}, None)

    class M(BaseModel):
        x: int
        y: str = "d"

    assert enc({}, M(x=1))["data"] == {"x": 1}  # exclude_unset: only what the caller set


def test_decoded_data_types(jf: ModuleType, runtime_package: ModuleType) -> None:
    def dec(**members: object) -> object:
        return jf.decode(json.dumps({**BASE, **members})).data

    assert dec(data={"a": 1}) == {"a": 1}
    assert dec(data='{"a": 1}') == '{"a": 1}'  # a string is never parsed again
    assert dec(datacontenttype="text/plain", data="x") == "x"
    assert dec(data=None) is None
    assert dec() is None


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"{", "invalid-json"),
        (b"\xff\xfe", "invalid-json"),
        (b"[]", "invalid-json"),
        (json.dumps({"id": "1", "source": "/s", "type": "t"}), "missing-attribute"),
        (json.dumps({**BASE, "specversion": "0.3"}), "invalid-specversion"),
        (json.dumps({**BASE, "id": 1}), "invalid-attribute"),
        (json.dumps({**BASE, "time": "2018-04-05 17:31:00Z"}), "invalid-attribute"),
        (json.dumps({**BASE, "ext": 1.5}), "invalid-attribute"),
        (json.dumps({**BASE, "ext": 2**31}), "invalid-attribute"),
        (json.dumps({**BASE, "ext": {"a": 1}}), "invalid-attribute"),
        (json.dumps({**BASE, "Ext": "x"}), "invalid-attribute-name"),
        (json.dumps({**BASE, "data": 1, "data_base64": "AA=="}), "invalid-data"),
        (json.dumps({**BASE, "datacontenttype": "text/plain", "data": {"a": 1}}), "invalid-data"),
        (json.dumps({**BASE, "data_base64": "!!"}), "invalid-encoding"),
        (json.dumps({**BASE, "data_base64": 5}), "invalid-data"),
        ("[" * 100000, "invalid-json"),
    ],
)
def test_decode_errors(jf: ModuleType, runtime_package: ModuleType, body: bytes | str, reason: str) -> None:
    with pytest.raises(runtime_package.DecodeError) as exc:
        jf.decode(body)
    assert exc.value.reason == reason


def test_batch(jf: ModuleType, runtime_package: ModuleType) -> None:
    events = [runtime_package.Event({**BASE, "id": str(i)}, {"i": i}) for i in range(2)]
    body = jf.encode_batch(events)
    assert [e.attributes for e in jf.decode_batch(body)] == [e.attributes for e in events]
    assert jf.decode_batch(b"[]") == []
    with pytest.raises(runtime_package.DecodeError) as exc:
        jf.decode_batch(b"{}")
    assert exc.value.reason == "invalid-batch"
