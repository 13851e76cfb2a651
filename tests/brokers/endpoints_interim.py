"""``ENDPOINTS`` of a catalog built in the test, for a generated package that has none."""

from __future__ import annotations

from types import MappingProxyType, ModuleType
from typing import Any

from xrgen_runtime.endpoints import Authorization, Endpoint
from xrgen_runtime.endpoints._model import placeholders_of


def build(catalog: dict[str, Any], package: ModuleType) -> Any:
    from xrgen_runtime import DispatcherBase

    out: dict[str, Endpoint[Any]] = {}
    for endpoint_id, ep in catalog["endpoints"].items():
        options = dict(ep.get("protocoloptions", {}))
        entries = options.pop("endpoints", [])
        auth = tuple(Authorization(**a) for a in options.pop("authorization", []))
        deployed = options.pop("deployed", True)
        uris: list[str] = []
        for entry in entries:
            uris.extend(entry.get("bootstrap.servers", [])) if "bootstrap.servers" in entry else uris.append(entry["uri"])
        ids = tuple(
            m
            for ref in ep.get("messagegroups", [])
            for m in catalog["messagegroups"][ref.rsplit("/", 1)[-1]]["messages"]
        )
        defs = tuple(package.MESSAGES[m].definition for m in ids)

        def init(self: Any, dead_letter: Any = None, _defs: Any = defs) -> None:
            DispatcherBase.__init__(self, _defs, dead_letter)

        cls = type("Dispatcher_" + endpoint_id.replace(".", "_"), (DispatcherBase,), {"__init__": init})
        out[endpoint_id] = Endpoint(
            id=endpoint_id,
            usage=tuple(ep["usage"]),
            protocol={"AMQP": "AMQP/1.0", "MQTT": "MQTT/5.0"}.get(ep["protocol"], ep["protocol"]),
            channel=ep.get("channel"),
            envelope=ep.get("envelope"),
            envelope_options=ep.get("envelopeoptions", {}),
            uris=tuple(uris),
            options=options,
            authorization=auth,
            deployed=deployed,
            message_ids=ids,
            placeholders=tuple(sorted(placeholders_of(options, placeholders_of(uris, set())))),
            package=package.__name__,
            dispatcher_class=cls,
        )
    return MappingProxyType(out)
