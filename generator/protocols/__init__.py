"""Protocol bindings: one module per binding, registered in ``PROTOCOLS``.

Each module (``kafka``, ``amqp``, ``mqtt``, ``nats``, ``http``, ``pulsar``, ``rocketmq``) holds
its binding's spellings and versions, its option model and checks, the mapping of its options
to the IR (``*Binding`` fields of the runtime) and its routing fields. What the runtime needs
too (family, transit and case-insensitive fields, Spark landing shape) the module reads from
the runtime's declaration of the binding (``xrgen_runtime.bindings.BINDINGS``), and each
declared binding has its module here, named like it. Adding a binding means a module here
plus its runtime declaration, codec and adapter; the rest of the generator asks this table.

``lookup`` is the one protocol normalizer: ``"Kafka/3.6"`` is ``KAFKA``, ``"MQTT/3.1"``
``MQTT/3.1.1``, bare ``"MQTT"`` ``MQTT/5.0``, ``"HTTP/1.1"`` ``HTTP``, ``"AMQP/0.9.1"`` nothing.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from xrgen_runtime.bindings import BINDINGS

from ._base import (
    CONNECTION_OPTIONS,
    Protocol,
    SparkLanding,
    check_shared,
    defaults,
    entries,
    literal,
    option_value,
    placeholders_of,
    to_ir,
    with_defaults,
)
from ._endpoint import ROLES, EndpointOption, EndpointOptions

__all__ = [
    "CONNECTION_OPTIONS",
    "ENDPOINT_OPTIONS",
    "ROLES",
    "EndpointOption",
    "EndpointOptions",
    "PROTOCOLS",
    "SPARK_LANDINGS",
    "Protocol",
    "SparkLanding",
    "check_shared",
    "defaults",
    "entries",
    "literal",
    "lookup",
    "option_value",
    "placeholders_of",
    "to_ir",
    "with_defaults",
]

#: the module of each binding the runtime declares, in the runtime's order
_MODULES: tuple[ModuleType, ...] = tuple(
    importlib.import_module(f"{__name__}.{name}") for name in BINDINGS
)

#: canonical protocol id -> its binding
PROTOCOLS: dict[str, Protocol] = {p.id: p for m in _MODULES for p in m.PROTOCOLS}

#: canonical protocol id -> the rc4 endpoint model of its binding (bindings without one:
#: Pulsar, RocketMQ)
ENDPOINT_OPTIONS: dict[str, EndpointOptions] = {
    e.protocol: e for m in _MODULES for e in getattr(m, "ENDPOINTS", ())
}

#: Spark landing shapes: the bindings' own, and structured CloudEvents JSON (any binding)
_JSON_LANDING = SparkLanding(
    "json",
    "decode_json",
    'Decode a DataFrame with one string column "value" of structured CloudEvents JSON.',
)
#: one per binding (both MQTT versions land in one shape), in the order of ``PROTOCOLS``
_LANDINGS = [
    SparkLanding.of(runtime)
    for runtime in dict.fromkeys(p.runtime for p in PROTOCOLS.values())
]
SPARK_LANDINGS: tuple[SparkLanding, ...] = (_LANDINGS[0], _JSON_LANDING, *_LANDINGS[1:])

_CACHE: dict[str, Protocol | None] = {}


def lookup(name: object) -> Protocol | None:
    """The binding a protocol string spells (case-insensitive, any spacing), or ``None``."""
    if not isinstance(name, str):
        return None
    try:
        return _CACHE[name]
    except KeyError:
        pass
    family, _, version = name.strip().lower().partition("/")
    family, version = family.strip(), version.strip()
    found = next((p for p in PROTOCOLS.values() if family in p.names and p.accepts(version)), None)
    if len(_CACHE) < 1024:
        _CACHE[name] = found
    return found
