"""The checks run as passes (``api.PASSES``, ``api.PLAN_PASSES``), not inside the stages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from xrgen import api
from xrgen.diagnostics import Diagnostics
from xrgen.load.sources import load
from xrgen.resolve import resolve


def _ce(message_type: str) -> dict[str, Any]:
    return {
        "envelope": "CloudEvents/1.0",
        "envelopemetadata": {
            "type": {"value": message_type},
            "source": {"value": "/s"},
        },
    }


def _write(tmp_path: Path, catalog: dict[str, Any]) -> str:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(catalog))
    return str(path)


def _kafka(usage: str, *groups: str) -> dict[str, Any]:
    return {
        "usage": [usage],
        "protocol": "KAFKA",
        "protocoloptions": {
            "endpoints": [{"bootstrap.servers": ["localhost:9092"]}],
            "topic": "t",
        },
        "messagegroups": [f"#/messagegroups/{g}" for g in groups],
    }


def test_resolve_leaves_the_endpoint_protocol_check_to_its_pass(tmp_path: Path) -> None:
    source = _write(
        tmp_path,
        {
            "messagegroups": {
                "g": {
                    "messages": {
                        "m": {"messageid": "m", **_ce("m"), "protocol": "AMQP/1.0"}
                    }
                }
            },
            "endpoints": {"e": _kafka("producer", "g")},
        },
    )
    diags = Diagnostics()
    registry = load([source], diags)
    resolved = resolve(registry, diags)
    assert "XRG234" not in [d.code for d in diags]
    analysis = api.Analysis(resolved, None, diags, registry=registry)
    for check in api.PASSES["resolve"]:
        check(analysis)
    assert [(d.code, d.pointer) for d in diags if d.code == "XRG234"] == [
        ("XRG234", "/endpoints/e/messagegroups/0")
    ]


def test_endpoint_protocol_check_reads_the_declared_protocol(tmp_path: Path) -> None:
    """A message without a protocol takes the one of the endpoints carrying its group; the
    other endpoints referencing the group (a subscriber, an unknown binding) are not checked
    against it, only against what the message or its group declares."""
    mqtt = {
        "usage": ["subscriber"],
        "protocol": "MQTT/5.0",
        "protocoloptions": {"endpoints": [{"uri": "mqtt://localhost"}], "topic": "x"},
        "messagegroups": ["#/messagegroups/g"],
    }
    source = _write(
        tmp_path,
        {
            "messagegroups": {
                "g": {
                    "messages": {
                        "m": {"messageid": "m", **_ce("m")},
                        "m2": {"messageid": "m2", **_ce("m2"), "protocol": "AMQP/1.0"},
                    }
                }
            },
            "endpoints": {"a": _kafka("producer", "g"), "b": mqtt},
        },
    )
    found = [d for d in api.check([source]).diagnostics if d.code == "XRG234"]
    assert [d.pointer for d in found] == [
        "/endpoints/a/messagegroups/0",
        "/endpoints/b/messagegroups/0",
    ]
    assert all("whose message 'm2' is bound to AMQP/1.0" in d.message for d in found)


def _recursive(pattern: str | None = None) -> dict[str, Any]:
    tree: dict[str, Any] = {
        "type": "object",
        "properties": {"v": {"anyOf": [{"$ref": "#"}, {"type": "string"}]}},
    }
    if pattern is not None:
        tree["properties"]["p"] = {"type": "string", "pattern": pattern}
    return {
        "messagegroups": {
            "g": {
                "messages": {
                    "m": {
                        "messageid": "m",
                        **_ce("m"),
                        "dataschemaformat": "JsonSchema/draft-07",
                        "dataschemauri": "#/schemagroups/s/schemas/r",
                    }
                }
            }
        },
        "schemagroups": {
            "s": {
                "schemas": {
                    "r": {
                        "versions": {
                            "1": {"format": "JsonSchema/draft-07", "schema": tree}
                        }
                    }
                }
            }
        },
    }


def test_spark_recursion_is_checked_before_planning_for_a_spark_output(
    tmp_path: Path,
) -> None:
    source = _write(tmp_path, _recursive())
    assert "XRG325" in [d.code for d in api.check([source]).diagnostics]
    assert "XRG325" not in [
        d.code for d in api.check([source], spark=False).diagnostics
    ]
    # after an error nothing is planned, and nothing planning would report is checked
    source = _write(tmp_path, _recursive(pattern="(a)\\1"))
    codes = [d.code for d in api.check([source]).diagnostics]
    assert "XRG340" in codes and "XRG325" not in codes
