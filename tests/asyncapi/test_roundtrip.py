"""Round trip: what a reader of the exported document sees (the official parser's model of
operations, channels and messages, and the payload schemas followed through their ``$ref``s)
is what the catalog declares (the pipeline's resolved catalog)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from xrgen.model import ir
from xrgen.protocols import PROTOCOLS

from .conftest import Exported

CYCLE = "<cycle>"


def deref(node: Any, root: Any, seen: tuple[str, ...] = ()) -> Any:
    """``node`` with every local ``$ref`` replaced by what it points to (in ``root``; a ref
    through the root's own ``$id`` is local too, as JSON Schema reads it); a ref back into its
    own expansion becomes ``CYCLE``."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        base = root.get("$id") if isinstance(root, dict) else None
        if (
            isinstance(ref, str)
            and isinstance(base, str)
            and ref.startswith(base + "#")
        ):
            ref = ref[len(base) :]
        if isinstance(ref, str) and (ref == "#" or ref.startswith("#/")):
            if ref in seen:
                return CYCLE
            target: Any = root
            for token in ref[2:].split("/") if ref != "#" else []:
                token = token.replace("~1", "/").replace("~0", "~")
                target = (
                    target[int(token)] if isinstance(target, list) else target[token]
                )
            rest = {k: v for k, v in node.items() if k != "$ref"}
            out = deref(target, root, (*seen, ref))
            return (
                {**out, **deref(rest, root, seen)}
                if rest and isinstance(out, dict)
                else out
            )
        return {k: deref(v, root, seen) for k, v in node.items()}
    if isinstance(node, list):
        return [deref(v, root, seen) for v in node]
    return node


def _draft04(node: Any) -> Any:
    """A draft-04 schema in its draft-06+ spelling: ``{"minimum": 1, "exclusiveMinimum":
    true}`` is ``{"exclusiveMinimum": 1}`` (JSON Schema's own equivalence)."""
    if isinstance(node, list):
        return [_draft04(v) for v in node]
    if not isinstance(node, dict):
        return node
    data = ("default", "const", "enum", "examples")  # values, not schemas
    out = {k: v if k in data else _draft04(v) for k, v in node.items()}
    for flag, bound in (
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ):
        if isinstance(out.get(flag), bool):
            if out.pop(flag) and bound in out:
                out[flag] = out.pop(bound)
    return out


def _messages(exported: Exported) -> list[ir.Message]:
    assert exported.analysis.catalog is not None
    return list(exported.analysis.catalog.messages())


def _resolved(exported: Exported) -> dict[tuple[str, str], Any]:
    assert exported.analysis.resolved is not None
    return {
        (g.id, m.id): m for g in exported.analysis.resolved.groups for m in g.messages
    }


def _own_address(m: ir.Message) -> str | None:
    proto = PROTOCOLS.get(m.protocol or "")
    if proto is None:
        return None
    return next(
        (
            o.value
            for o in m.options
            if o.path == (proto.runtime.destination,) and isinstance(o.value, str)
        ),
        None,
    )


def _check_operations(e: Exported) -> None:
    catalog = e.analysis.catalog
    assert catalog is not None
    ops = e.model["operations"]
    raw_ops = e.document.get("operations", {})
    by_endpoint: dict[str | None, list[str]] = {}
    for op_id in ops:
        record = raw_ops[op_id].get("x-xregistry-endpoint")
        by_endpoint.setdefault(record["endpointid"] if record else None, []).append(
            op_id
        )
    groups = {g.id: g for g in catalog.groups}
    carried: set[tuple[str, str]] = set()
    for ep in catalog.endpoints:
        mine = by_endpoint.pop(ep.id, [])
        if ep.protocol == "HTTP" and set(ep.usage) == {"subscriber"}:
            assert not mine, f"{e.name}: {ep.id} transfers no messages"
            continue
        assert mine, f"{e.name}: no operation for endpoint {ep.id}"
        action = "send" if "producer" in ep.usage else "receive"
        assert {ops[o]["action"] for o in mine} == {action}, (e.name, ep.id)
        # its groups' messages its protocol can carry (every group when it names none)
        reach = [
            m
            for gid in ep.group_ids
            for m in groups[gid].messages
            if m.id in ep.message_ids
            and (m.protocol is None or ep.protocol in (None, m.protocol))
        ]
        names = Counter(n for o in mine for n in ops[o]["messages"])
        assert names == Counter(m.id for m in reach), (e.name, ep.id, names)
        options = dict(ep.options)
        messages = {m.id: m for m in reach}
        carried |= {(m.group_id, m.id) for m in reach}
        for o in mine:
            (address,) = ops[o]["channels"]
            listen = next(
                (
                    options[k]
                    for k in (
                        "topicfilter",
                        "subjectfilter",
                        "topic",
                        "subject",
                        "node",
                    )
                    if isinstance(options.get(k), str)
                ),
                None,
            )
            if action == "receive" and listen is not None:
                assert address == listen, (e.name, ep.id, address)
            for name in ops[o]["messages"]:
                own = _own_address(messages[name])
                if (
                    action == "send"
                    and own is not None
                    and messages[name].protocol == ep.protocol
                ):
                    assert address is not None and address.endswith(own), (
                        e.name,
                        ep.id,
                        name,
                        address,
                    )
        servers = [
            s
            for s in e.document.get("servers", {}).values()
            if s["x-xregistry-endpoint"] == ep.id
        ]
        assert len(servers) == len(ep.uris), (e.name, ep.id)
        for server, uri in zip(servers, ep.uris, strict=True):
            assert server["host"] in uri, (server, uri)
    # the messages no endpoint carries: each in one send operation, on its own address
    rest = [m for m in catalog.messages() if (m.group_id, m.id) not in carried]
    free = by_endpoint.pop(None, [])
    assert not by_endpoint, f"{e.name}: operations of unknown endpoints {by_endpoint}"
    assert Counter(n for o in free for n in ops[o]["messages"]) == Counter(
        m.id for m in rest
    )
    for o in free:
        assert ops[o]["action"] == "send"
        (address,) = ops[o]["channels"]
        for name in ops[o]["messages"]:
            assert any(_own_address(m) == address for m in rest if m.id == name), (
                e.name,
                name,
                address,
            )


def _check_messages(e: Exported) -> None:
    """Every message of the document is a catalog message with its payload schema."""
    resolved = _resolved(e)
    by_id: dict[str, list[Any]] = {}
    for (_, mid), rm in resolved.items():
        by_id.setdefault(mid, []).append(rm)
    components = e.document.get("components", {}).get("messages", {})
    assert {m["name"] for m in components.values()} == {m.id for m in _messages(e)}
    for key, message in components.items():
        record = message["x-xregistry-message"]
        rm = resolved[(record["messagegroup"], record["messageid"])]
        assert message["name"] == rm.id
        if rm.schema is None:
            assert "payload" not in message or record["mode"] == "structured", key
            continue
        assert record["payload"].startswith("#/components/schemas/"), key
        _check_payload(key, deref({"$ref": record["payload"]}, e.document), rm.schema)
        payload = deref(message["payload"], e.document)
        if record["mode"] == "structured":
            assert message["contentType"].startswith("application/cloudevents")
            assert {"specversion", "id", "source", "type"} <= set(payload["required"])
            data = payload["properties"].get(
                "data", payload["properties"].get("data_base64")
            )
            if rm.schema.family == "json" and "$ref" in message["payload"][
                "properties"
            ].get("data", {}):
                _check_payload(key, deref(data, e.document), rm.schema)
            else:
                assert record["payload"] in data.get("description", ""), key
        else:
            assert message["payload"] == {"$ref": record["payload"]}, key
        if record["mode"] == "binary":
            headers = message["headers"]["properties"]
            assert any(
                h.lower().endswith("type") and headers[h].get("const") for h in headers
            ), key


def _check_payload(key: str, payload: Any, schema: Any) -> None:
    body = schema.schema
    if (
        "x-xregistry-schema" in payload
    ):  # a schema xrgen cannot use: bytes, schema beside
        assert (
            payload["x-xregistry-schema"] == body and payload["format"] == "binary"
        ), key
    elif schema.family == "json" and "schemaFormat" not in payload:
        assert payload == _draft04(deref({"$ref": "#"}, body)), key
    elif schema.family == "avro":
        assert payload == {
            "schemaFormat": "application/vnd.apache.avro;version=1.9.0",
            "schema": body,
        }, key
    elif schema.family == "protobuf":
        assert payload["schemaFormat"].startswith(
            "application/vnd.google.protobuf;version="
        )
        assert payload["schema"].replace("// @RootNode\n", "", 1) == body, key
    elif schema.family == "xsd":
        assert payload == {"schemaFormat": "application/xml", "schema": body}, key
    elif schema.family == "jsonstructure":
        # pointers rebased onto the component ($ref followed by deref): the document again
        assert payload["schemaFormat"] == schema.format, key
        assert _unbased(payload["schema"]) == deref(body, body), key
    else:
        assert payload["schemaFormat"] == schema.format, key
        assert payload["schema"] == deref(body, body), key


_COMPONENT = re.compile(r"^#/components/schemas/[^/]+/schema(?=/|$)")


def _unbased(value: Any) -> Any:
    """A JSON Structure document with its ``$ref`` / ``$extends`` / ``$root`` pointers taken
    back from the component to the document."""
    if isinstance(value, dict):
        return {
            k: (
                _COMPONENT.sub("#", v)
                if k in ("$ref", "$extends", "$root") and isinstance(v, str)
                else (
                    [_COMPONENT.sub("#", x) for x in v]
                    if k == "$extends" and isinstance(v, list)
                    else _unbased(v)
                )
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_unbased(v) for v in value]
    return value


def test_sample_catalogs_round_trip(sample_exports: dict[str, Exported]) -> None:
    for e in sample_exports.values():
        _check_operations(e)
        _check_messages(e)


def test_real_catalogs_round_trip(real_exports: dict[str, Exported]) -> None:
    for e in real_exports.values():
        _check_operations(e)
        _check_messages(e)


def test_the_endpoints_catalog_reads_as_declared(
    sample_exports: dict[str, Exported],
) -> None:
    """The rc4 endpoint sample, operation by operation, as the parser reads it."""
    ops = sample_exports["endpoints"].model["operations"]
    want = {
        "com.example.orders.producer": ("send", ["orders.{tenant}"]),
        "com.example.orders.billing": ("receive", ["orders.{tenant}"]),
        "com.example.telemetry.dashboard": ("receive", ["devices/{tenant}/#"]),
        "com.example.legacy.monitor": ("receive", ["legacy/{tenant}/+/status"]),
        "com.example.jobs.submit": ("send", ["/queue/jobs-{tenant}"]),
        "com.example.jobs.workers": ("receive", ["/queue/jobs-{tenant}"]),
        "com.example.alerts.handlers": ("receive", ["alerts.{tenant}.*"]),
        "com.example.invoices.webhook": ("send", ["/invoices"]),
    }
    for op, (action, channels) in want.items():
        assert (ops[op]["action"], ops[op]["channels"]) == (action, channels), op
    # the will message has a topic of its own: the publisher sends it there
    assert ops["com.example.telemetry.publisher.devices_tenant_status"]["messages"] == [
        "com.example.telemetry.DeviceOffline"
    ]
    doc = sample_exports["endpoints"].document
    assert doc["operations"]["com.example.orders.billing"]["bindings"]["kafka"][
        "groupId"
    ] == {
        "type": "string",
        "description": "URI template: billing-{tenant}",
    }
    assert (
        doc["operations"]["com.example.alerts.handlers"]["bindings"]["nats"]["queue"]
        == "handlers"
    )
    webhook = doc["components"]["messages"]["com.example.invoices.InvoiceIssued"]
    assert webhook["contentType"] == "application/cloudevents+json"
    assert webhook["payload"]["properties"]["data"] == {
        "$ref": "#/components/schemas/InvoiceIssued"
    }
    assert doc["servers"]["com.example.orders.secure"]["protocol"] == "kafka-secure"
    scheme = doc["components"]["securitySchemes"][
        "com.example.orders.secure.SASL.SCRAM-SHA-256"
    ]
    assert scheme["type"] == "scramSha256"


def test_the_edge_catalog_reads_as_declared(
    sample_exports: dict[str, Exported],
) -> None:
    edge = sample_exports["edge"]
    doc, model = edge.document, edge.model
    messages = doc["components"]["messages"]
    # one message id in two groups, and a message in two wire forms: each its own message
    assert {
        "edge.Same.kafka-binary",
        "edge.Same.http-structured",
        "edge.Same_2",
    } <= set(messages)
    assert (
        messages["edge.Same.http-structured"]["contentType"]
        == "application/cloudevents+json"
    )
    headers = messages["edge.Same.kafka-binary"]["headers"]
    assert headers["properties"]["ce_flag"] == {
        "type": "string",
        "const": "true",
        "description": "CloudEvents attribute flag",
    }
    assert (
        "const" not in headers["properties"]["ce_time"]
    )  # "0000-01-01T00:00:00Z": now
    assert headers["properties"]["ce_sequence"]["description"] == (
        "CloudEvents attribute sequence: position in the stream"
    )
    assert {"ce_sequence", "ce_type", "ce_source", "ce_id", "ce_specversion"} <= set(
        headers["required"]
    )
    assert "cloudEvents_type" in messages["edge.Job"]["headers"]["properties"]
    assert messages["edge.Job"]["headers"]["properties"]["origin"]["const"] == "edge"
    assert "CE-type" in messages["edge.Tick"]["headers"]["properties"]
    # MQTT 3.1.1 has no binary mode
    assert messages["edge.Legacy"]["contentType"] == "application/cloudevents+json"
    # the .proto's first message is the payload, as xrgen models it
    proto = model["messages"]["edge.Proto.kafka-binary"]["payload"]["schema"]
    assert proto["title"] == "Reading"
    # draft-04 bounds in draft-07 form; data left as written
    same = doc["components"]["schemas"]["SameData"]["properties"]
    assert same["ratio"] == {"type": "number", "exclusiveMinimum": 0, "maximum": 1}
    assert same["count"] == {"type": "integer", "maximum": 10}
    assert same["kind"] == {"default": {"exclusiveMinimum": True, "minimum": 3}}
    # $defs and the $id self reference point into the component
    order = doc["components"]["schemas"]["OrderData"]["properties"]
    assert order["line"] == {"$ref": "#/components/schemas/OrderData/$defs/line"}
    assert order["again"] == order["line"]
    schemes = doc["components"]["securitySchemes"]
    assert {k: v["type"] for k, v in schemes.items()} == {
        "edge.kafka.out.SASL.SCRAM-SHA-512": "scramSha512",
        "edge.kafka.out.SASL.OAUTHBEARER": "oauth2",
        "edge.kafka.out.X509Cert": "X509",
        "edge.http.in.Plain": "http",
        "edge.http.in.OAuth2": "http",
        "edge.http.in.APIKey": "httpApiKey",
        "edge.mqtt.watch.APIKey": "apiKey",
        "edge.mqtt.watch.Plain": "userPassword",
    }
    assert schemes["edge.http.in.APIKey"]["name"] == "X-Key"
    assert schemes["edge.http.in.APIKey"]["in"] == "query"
    assert (
        schemes["edge.kafka.out.SASL.OAUTHBEARER"]["flows"]["clientCredentials"][
            "tokenUrl"
        ]
        == "https://idp.example.com/token"
    )
    ops = model["operations"]
    assert ops["edge.http.in"]["channels"] == ["/hooks/{tenant}"]
    assert doc["operations"]["edge.http.in"]["bindings"]["http"]["method"] == "PUT"
    assert (
        "edge.http.subscriptions" not in ops
    )  # a subscription manager moves no messages
    assert doc["servers"]["edge.http.subscriptions"]["host"] == "{host}"
    assert ops["edge.abstract"]["channels"] == ["persistent://public/default/ticks"]
    assert (
        doc["operations"]["edge.template"]["x-xregistry-endpoint"]["deployed"] is False
    )
    assert "edge.Legacy" not in ops["edge.kafka.empty"]["messages"]  # bound to MQTT
    assert doc["channels"]["orders.tenant.id"]["parameters"] == {
        "tenant.id": {"description": "placeholder {tenant.id}"}
    }
