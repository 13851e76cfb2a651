"""Message objects of an AsyncAPI export: one per catalog message and wire form.

A wire form is ``(protocol, mode)``:
- ``binary``: the payload is the data; the CloudEvents attributes travel as protocol headers
  (``ce_type`` on Kafka, ``ce-type`` on HTTP and NATS, ``cloudEvents_type`` AMQP application
  properties, MQTT 5 user properties named as the attributes, ``CE-``/``CE_`` Pulsar and
  RocketMQ properties), described by the message's ``headers`` schema;
- ``structured``: the payload is the JSON event format envelope (``specversion``, ``type``,
  ..., ``data`` or ``data_base64``), content type ``application/cloudevents+json``;
- ``plain``: a message without the CloudEvents envelope: its payload and its protocol headers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import formats
from ..build import is_json_content_type
from ..model import ir
from ..model.resolved import ResolvedMessage, ResolvedSchema
from . import asyncapi_protocols as protocols
from .asyncapi_payloads import Payloads

STRUCTURED = "application/cloudevents+json"
#: ``time`` with this value means "now": no constant
_NOW = "0000-01-01T00:00:00Z"
_REQUIRED = ("specversion", "id", "source", "type")
_FORMATS = {"uri": "uri", "urireference": "uri-reference", "timestamp": "date-time"}


def attribute_schema(
    a: ir.Attribute, *, header: bool, described: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The schema of CloudEvents attribute ``a``: in a header its canonical string form, in
    the JSON envelope its JSON type. ``described``: the catalog's attribute descriptions."""
    s: dict[str, Any] = {"type": "string"}
    if not header and a.kind == "integer":
        s = {"type": "integer"}
    elif not header and a.kind == "boolean":
        s = {"type": "boolean"}
    elif a.kind in _FORMATS:
        s["format"] = _FORMATS[a.kind]
    elif a.kind == "binary":
        s["contentEncoding"] = "base64"
    value = a.value
    if a.kind == "uritemplate" and isinstance(value, str):
        s["description"] = f"CloudEvents attribute {a.name}, URI template: {value}"
    elif value is not None and not (a.kind == "timestamp" and value == _NOW):
        if header:
            s["const"] = str(value).lower() if isinstance(value, bool) else str(value)
        else:
            s["const"] = value
    note = (described or {}).get(a.name)
    if "description" not in s:
        s["description"] = f"CloudEvents attribute {a.name}"
    if note:
        s["description"] += f": {note}"
    return s


def descriptions(data: Mapping[str, Any]) -> dict[str, str]:
    """The ``description`` of each envelope attribute the message declares."""
    meta = data.get("envelopemetadata")
    if not isinstance(meta, dict):
        return {}
    return {
        name: spec["description"]
        for name, spec in meta.items()
        if isinstance(spec, dict) and isinstance(spec.get("description"), str)
    }


def _required(a: ir.Attribute) -> bool:
    return a.required or a.name in _REQUIRED


def _entry_schema(value: Any) -> dict[str, Any]:
    if isinstance(value, str) and "{" in value:
        return {"type": "string", "description": f"URI template: {value}"}
    return {
        "type": "string",
        "const": str(value).lower() if isinstance(value, bool) else str(value),
    }


def headers(
    message: ir.Message, protocol: str | None, mode: str, described: Mapping[str, str]
) -> dict[str, Any] | None:
    """The ``headers`` schema of a wire form: the message's own protocol headers, and in
    binary mode the CloudEvents attributes and the content type header."""
    pmap = protocols.lookup(protocol)
    props: dict[str, Any] = {}
    required: list[str] = []
    if mode == "binary" and pmap.header is not None:
        for a in message.attributes:
            if a.name == "datacontenttype":
                continue
            name = pmap.header(a.name)
            props[name] = attribute_schema(a, header=True, described=described)
            if _required(a):
                required.append(name)
        if pmap.content_type_header and message.datacontenttype:
            props[pmap.content_type_header] = {
                "type": "string",
                "const": message.datacontenttype,
                "description": "CloudEvents attribute datacontenttype",
            }
    for name, value in protocols.header_entries(protocol, message).items():
        if name not in props:
            props[name] = _entry_schema(value)
            required.append(name)
    if not props:
        return None
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


def envelope(
    message: ir.Message, data: tuple[str, dict[str, Any]], described: Mapping[str, str]
) -> dict[str, Any]:
    """The JSON event format of ``message``: its attributes and ``data`` (``("data",
    schema)`` or ``("data_base64", schema)``)."""
    props: dict[str, Any] = {}
    required: list[str] = []
    for a in message.attributes:
        props[a.name] = attribute_schema(a, header=False, described=described)
        if _required(a):
            required.append(a.name)
    props[data[0]] = data[1]
    return {"type": "object", "properties": props, "required": required}


def _data(
    schema: ResolvedSchema | None, ref: str | None, content_type: str | None
) -> tuple[str, dict[str, Any]]:
    """The member of the JSON event format that holds the data, and its schema: ``data`` for
    JSON (a JSON Schema payload by reference) and text, ``data_base64`` for anything else.
    """
    what = f"the {schema.format or schema.family} schema {ref}" if schema and ref else None
    if _json(content_type):
        fmt = formats.get(schema.family) if schema is not None else None
        if fmt is not None and ref is not None and fmt.JSON_SCHEMA:
            return "data", {"$ref": ref}
        return "data", ({"description": f"the data as JSON, described by {what}"} if what else {})
    if _text(content_type):
        text: dict[str, Any] = {"type": "string"}
        if what:
            text["description"] = f"the data as text ({content_type}), described by {what}"
        return "data", text
    raw: dict[str, Any] = {"type": "string", "contentEncoding": "base64"}
    if content_type:
        raw["contentMediaType"] = content_type
    if what:
        raw["description"] = f"the data ({content_type}), described by {what}"
    return "data_base64", raw


def _json(content_type: str | None) -> bool:
    return is_json_content_type(content_type)


def _text(content_type: str | None) -> bool:
    ct = (content_type or "").split(";", 1)[0].strip().lower()
    return ct.startswith("text/") or ct.endswith("/xml") or ct.endswith("+xml")


def message_object(
    message: ir.Message,
    resolved: ResolvedMessage | None,
    protocol: str | None,
    mode: str,
    payloads: Payloads,
    structured_format: str | None = None,
) -> dict[str, Any]:
    """The AsyncAPI message of one wire form of ``message``."""
    out: dict[str, Any] = {"name": message.id}
    data = resolved.data if resolved is not None else {}
    if isinstance(data.get("name"), str):
        out["title"] = data["name"]
    if message.description:
        out["description"] = message.description
    schema = resolved.schema if resolved is not None else None
    ref = payloads.ref(schema, message.id) if schema is not None else None
    content_type = message.datacontenttype
    if mode == "structured":
        content_type = structured_format or STRUCTURED
        data_member = _data(schema, ref, message.datacontenttype)
        out["payload"] = envelope(message, data_member, descriptions(data))
    elif ref is not None:
        out["payload"] = {"$ref": ref}
    hdrs = headers(message, protocol, mode, descriptions(data))
    if hdrs is not None:
        out["headers"] = hdrs
    if content_type:
        out["contentType"] = content_type
    bindings = protocols.message_bindings(protocol, message, content_type)
    if bindings:
        out["bindings"] = bindings
    out["tags"] = [{"name": message.group_id}]
    if "deprecated" in data:
        out["deprecated"] = True
    out["x-xregistry-message"] = _record(message, data, protocol, mode)
    if ref is not None:
        out["x-xregistry-message"]["payload"] = ref
    return out


def _record(
    message: ir.Message, data: Mapping[str, Any], protocol: str | None, mode: str
) -> dict[str, Any]:
    """What the catalog says of the message that AsyncAPI has no field for."""
    rec: dict[str, Any] = {"messageid": message.id, "messagegroup": message.group_id}
    if message.alias_of:
        rec["xref"] = message.alias_of
    for key in (
        "envelope",
        "protocol",
        "protocoloptions",
        "dataschemaformat",
        "dataschemauri",
        "dataschemaxid",
        "labels",
        "documentation",
        "epoch",
        "createdat",
        "modifiedat",
    ):
        if key in data:
            rec[key] = data[key]
    if protocol is not None and protocol != message.protocol:
        rec["carriedby"] = protocol
    rec["mode"] = mode
    return rec
