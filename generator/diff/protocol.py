"""Protocol rules: the binding and its options (topic, key, partition, subject, path, method,
headers, qos, AMQP properties, ...), compared on the IR's normalized option paths, so a
legacy spelling and its current name are the same option.

- protocol changed: the wire message differs (both directions); bound where it was
  protocol-less: NEW consumers only match events that arrived over that protocol (backward);
  unbound: NEW producers no longer promise the binding's routing (forward);
- an option's value changed (topic, subject, path, method, key, headers, properties, ...):
  consumers match options like constants and templates (both);
- an option added: NEW consumers expect it and OLD producers do not set it (backward);
  removed: OLD consumers expect it and NEW producers do not set it (forward);
- options brokers may change in transit (MQTT ``qos``, ``retain``,
  ``message_expiry_interval``, Kafka ``partition``, Pulsar ``event_time``: each binding's
  ``transit`` fields in the runtime's declaration) are never matched: a lower ``qos`` weakens
  what OLD consumers were built to expect (duplicates or losses, forward); everything else
  about them is a compatible change.
"""

from __future__ import annotations

from xrgen_runtime.bindings import BindingSpec, by_protocol

from ..diagnostics import pointer as ptr
from ..model import ir
from .changes import BACKWARD, BOTH, FORWARD, NEITHER, Finding
from .templates import compare_value


def compare_protocol(old: ir.Message, new: ir.Message) -> list[Finding]:
    a, b = old.protocol, new.protocol
    if a != b:
        if a is None:
            return [
                Finding(
                    "XRG531", "/protocol", f"bound to protocol {b} (was protocol-less)", BACKWARD
                )
            ]
        if b is None:
            return [Finding("XRG532", "/protocol", f"no longer bound to protocol {a}", FORWARD)]
        return [Finding("XRG530", "/protocol", f"protocol changed from {a} to {b}", BOTH)]
    runtime = by_protocol(a)
    olds = {_key(runtime, o.path): o for o in old.options}
    news = {_key(runtime, o.path): o for o in new.options}
    out: list[Finding] = []
    for path in sorted(olds.keys() | news.keys()):
        o, n = olds.get(path), news.get(path)
        if o != n:
            out.extend(_option(runtime, path, o, n))
    return out


def _key(runtime: BindingSpec | None, path: tuple[str, ...]) -> tuple[str, ...]:
    """Entry names of case-insensitive fields (HTTP and NATS headers) compare in lower case,
    as the dispatcher matches them."""
    if runtime is not None and len(path) == 2 and path[0] in runtime.caseless:
        return (path[0], path[1].lower())
    return path


def _option(
    runtime: BindingSpec | None,
    path: tuple[str, ...],
    a: ir.ProtocolOption | None,
    b: ir.ProtocolOption | None,
) -> list[Finding]:
    where = ptr("protocoloptions", *path)
    name = ".".join(path)
    label = f"protocol option {name!r}"
    transit = runtime is not None and path[0] in runtime.transit
    if a is None and b is not None:
        return [
            Finding(
                "XRG534", where, f"{label} added ({b.value!r})", NEITHER if transit else BACKWARD
            )
        ]
    if b is None and a is not None:
        return [
            Finding(
                "XRG535",
                where,
                f"{label} removed (was {a.value!r})",
                NEITHER if transit else FORWARD,
            )
        ]
    assert a is not None and b is not None
    if transit:
        if a.value == b.value:
            return []
        breaks = NEITHER
        if path[0] == "qos" and isinstance(a.value, int) and isinstance(b.value, int):
            breaks = FORWARD if b.value < a.value else NEITHER
        return [
            Finding("XRG536", where, f"{label} changed from {a.value!r} to {b.value!r}", breaks)
        ]
    return [
        Finding(f.code, where, f.text, f.breaks)
        for f in compare_value(label, a.value, b.value, "XRG533")
    ]
