"""What an endpoint adds to sending and dispatching a message, measured in one run.

    python bench/bench_endpoints.py [--quick]

A generated package (one message group, an 8-field JSON payload) with one producer endpoint per
binding (Kafka, MQTT 5.0, AMQP, NATS, HTTP). Per binding and content mode, microseconds of CPU
time per message (best of interleaved rounds):

- ``codec``: ``bindings.<x>.encode(event, mode, <routing>)``, what a hand-written sender calls
  before handing the wire message to the client;
- ``endpoint``: the encoder behind ``ep.sender().send(event)``: the check that the event is one
  of the endpoint's messages, the endpoint's routing where the event has none, the same codec;
- ``dispatch``: the package's ``consumer.Dispatcher`` on the encoded message, against the
  endpoint's dispatcher (``ep.dispatcher()``, restricted to the endpoint's messages).

Target: ``endpoint / codec`` and ``endpoint dispatcher / package dispatcher`` at 1.00x within the
noise (no cost added to sending or dispatching a message).
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

SCHEMA = {
    "title": "Reading",
    "type": "object",
    "properties": {
        "sensor": {"type": "string"},
        "plant": {"type": "string"},
        "value": {"type": "number"},
        "count": {"type": "integer"},
        "unit": {"type": "string", "enum": ["celsius", "kelvin"]},
        "ok": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "taken": {"type": "string", "format": "date-time"},
    },
    "required": ["sensor", "plant", "value", "count", "unit", "ok", "tags", "taken"],
}
PAYLOAD = {
    "sensor": "s-17",
    "plant": "p1",
    "value": 21.5,
    "count": 3,
    "unit": "celsius",
    "ok": True,
    "tags": ["a", "b"],
    "taken": "2024-05-06T07:08:09.123Z",
}
#: binding -> (endpoint protocol, URI, options, the codec's routing arguments)
BINDINGS: dict[str, tuple[str, str, dict[str, Any], dict[str, Any]]] = {
    "kafka": ("KAFKA", "127.0.0.1:9092", {"topic": "readings"}, {"topic": "readings"}),
    "mqtt": ("MQTT/5.0", "mqtt://127.0.0.1", {"topic": "readings"}, {"topic": "readings"}),
    "amqp": ("AMQP/1.0", "amqp://127.0.0.1", {"node": "readings"}, {}),
    "nats": ("NATS", "nats://127.0.0.1:4222", {"subject": "readings"}, {"subject": "readings"}),
    "http": ("HTTP", "http://127.0.0.1/readings", {}, {}),
}
MESSAGE = "acme.Reading"


def catalog() -> dict[str, Any]:
    return {
        "messagegroups": {
            "acme": {
                "envelope": "CloudEvents/1.0",
                "messages": {
                    MESSAGE: {
                        "envelope": "CloudEvents/1.0",
                        "envelopemetadata": {
                            "type": {"value": MESSAGE},
                            "source": {"type": "uritemplate", "value": "/plants/{plant}"},
                        },
                        "dataschemaformat": "JsonSchema/draft-07",
                        "dataschema": SCHEMA,
                    }
                },
            }
        }
    }


def package(work: Path) -> ModuleType:
    path = work / "bench_ep.json"
    path.write_text(json.dumps(catalog()))
    subprocess.run(
        [sys.executable, "-m", "xrgen", "generate", str(path), "--out", str(work),
         "--package", "bench_ep", "--no-spark", "--quiet"],
        check=True, cwd=ROOT, capture_output=True,
    )
    sys.path.insert(0, str(work))
    return importlib.import_module("bench_ep")


def endpoint(pkg: ModuleType, binding: str, mode: str) -> Any:
    from xrgen_runtime.endpoints import Endpoint

    protocol, uri, options, _ = BINDINGS[binding]
    return Endpoint(
        id=f"bench.{binding}",
        usage=("producer",),
        protocol=protocol,
        channel=None,
        envelope="CloudEvents/1.0",
        envelope_options={"mode": mode},
        uris=(uri,),
        options=options,
        authorization=(),
        deployed=True,
        message_ids=(MESSAGE,),
        placeholders=(),
        package=pkg.__name__,
        dispatcher_class=pkg.consumer.AcmeDispatcher,
    )


def encoders(pkg: ModuleType, binding: str, mode: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    from xrgen_runtime.endpoints._encode import checked_encoder
    from xrgen_runtime.endpoints._resolve import resolve

    codec = importlib.import_module(f"xrgen_runtime.bindings.{binding}")
    routing = BINDINGS[binding][3]
    settings = resolve(endpoint(pkg, binding, mode), "producer", {})
    endpoint_encode = checked_encoder(settings, settings.support.encoder(settings))

    def direct(event: Any) -> Any:
        return codec.encode(event, mode, **routing)

    return direct, endpoint_encode


def measure(fns: list[Callable[[], object]], number: int, rounds: int) -> list[float]:
    """Microseconds of CPU time per call: best of ``rounds``, the functions interleaved."""
    for fn in fns:
        fn()
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            t = timeit.timeit(fn, timer=time.process_time, number=number)
            best[i] = min(best[i], t / number * 1e6)
    return best


def main() -> None:
    quick = "--quick" in sys.argv
    number, rounds = (500, 15) if quick else (2000, 40)
    pkg = package(Path(tempfile.mkdtemp(prefix="xrbench-ep-")))
    event = pkg.MESSAGES[MESSAGE].create(PAYLOAD, plant="p1")
    print(f"python {sys.version.split()[0]}, CPU time, best of {rounds} rounds of {number}")
    print(f"{'binding':8} {'mode':11} {'codec us':>9} {'endpoint us':>12} {'ratio':>7}"
          f" {'dispatch us':>12} {'ep dispatch us':>15} {'ratio':>7}")
    for binding in BINDINGS:
        for mode in ("binary", "structured"):
            direct, through = encoders(pkg, binding, mode)
            wire = direct(event)
            whole = pkg.consumer.Dispatcher(dead_letter=lambda *a: None)
            only = endpoint(pkg, binding, mode).dispatcher(dead_letter=lambda *a: None)
            for d in (whole, only):
                d.on(MESSAGE)(lambda e, p: None)
            calls: list[Callable[[], object]] = [
                lambda f=direct: f(event),  # type: ignore[misc]
                lambda f=through: f(event),  # type: ignore[misc]
                lambda f=whole.dispatch, w=wire: f(w),  # type: ignore[misc]
                lambda f=only.dispatch, w=wire: f(w),  # type: ignore[misc]
            ]
            a, b, c, d = measure(calls, number, rounds)
            print(f"{binding:8} {mode:11} {a:9.2f} {b:12.2f} {b / a:6.2f}x"
                  f" {c:12.2f} {d:15.2f} {d / c:6.2f}x")


if __name__ == "__main__":
    main()
