"""Payload format benchmark: xrgen's format codecs against the libraries used by hand.

Avro: a round trip of catalogs/avro's ``Order`` (nested records, unions, enums, arrays, maps,
timestamp-millis, date, decimal, uuid): validate a dict into the generated pydantic model,
encode it as Confluent-framed Avro, decode the bytes and validate them back into the model.
xrgen's ``AvroCodec`` (registered by the generated package) against confluent-kafka's
``AvroSerializer`` + ``AvroDeserializer`` with ``to_dict``/``from_dict`` around the same model
and the same in-memory registry. Target: xrgen at least 2x faster.

Protobuf (when the catalogs/protobuf package generates): the same round trip through xrgen's
``ProtobufCodec`` against the compiled ``_pb2`` class used by hand around the same pydantic
model (``model_dump`` -> constructor -> ``SerializeToString``; ``ParseFromString`` ->
``MessageToDict`` -> ``model_validate``). Target: xrgen within 1.5x.

Prints microseconds per round trip (best of N short rounds, contenders interleaved in each
round) and the ratios. Run: ``python bench/bench_formats.py [--quick]``.
"""

from __future__ import annotations

import importlib
import json
import sys
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
QUICK = "--quick" in sys.argv
ROUNDS = 8 if QUICK else 40
NUMBER = 200 if QUICK else 500

ORDER = {
    "orderId": "6f1c1d3e-0b7a-4c55-9a43-0d5e3d2f1a10",
    "placedAt": "2024-05-01T10:00:00.123Z",
    "deliveryDate": "2024-05-03",
    "total": "12.50",
    "status": "PAID",
    "customer": {"name": "Ann", "email": "ann@example.com", "address": {"street": "Main 1", "city": "Berlin"}},
    "lines": [
        {"sku": "a-1", "quantity": 2, "unitPrice": "6.25"},
        {"sku": "b-2", "quantity": 1, "unitPrice": "0.00"},
        {"sku": "c-3", "quantity": 7, "unitPrice": "1.10"},
    ],
    "attributes": {"gift": "yes", "channel": "web"},
    "payment": {"last4": "4242", "network": "VISA"},
    "priority": 2,
}


def generate(catalog: str, package: str, out: Path, **kw: Any) -> Any:
    from xrgen import api
    from xrgen.format import Formatter
    from xrgen.write import write

    result = api.generate([str(ROOT / "catalogs" / catalog / "catalog.json")], package,
                          formatter=Formatter(cache_dir=out / ".cache"), **kw)
    if not result.ok:
        raise SystemExit("\n".join(str(d) for d in result.diagnostics.sorted()))
    write(out, package, result.files)
    sys.path.insert(0, str(out))
    return importlib.import_module(package)


def best(contenders: dict[str, Callable[[], object]]) -> dict[str, float]:
    """Microseconds per call, best round of each contender (interleaved rounds)."""
    out = {name: float("inf") for name in contenders}
    for _ in range(ROUNDS):
        for name, fn in contenders.items():
            t = timeit.timeit(fn, number=NUMBER) / NUMBER * 1e6
            out[name] = min(out[name], t)
    return out


def report(title: str, times: dict[str, float], baseline: str, ours: str, target: str) -> None:
    print(f"\n{title}")
    for name, us in times.items():
        print(f"  {name:<46} {us:8.2f} us")
    ratio = times[baseline] / times[ours]
    print(f"  ratio {baseline} / {ours}: {ratio:.2f}x  (target: {target})")


def bench_avro(out: Path) -> None:
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext
    from xrgen_runtime import formats
    from xrgen_runtime.formats import avro as avro_format

    pkg = generate("avro", "bench_avro_shop", out / "avro", avro_framing="confluent")
    Order = pkg.models.Order
    codec = formats.codec_for(Order, "avro")
    plain = avro_format.AvroCodec(Order, codec.schema)
    registry = SchemaRegistryClient.new_client({"url": "mock://bench-formats"})
    avro_format.use_schema_registry(registry)
    ctx = SerializationContext("shop.orders", MessageField.VALUE)
    ser = AvroSerializer(registry, json.dumps(codec.schema),
                         to_dict=lambda m, c: m.model_dump(by_alias=True))
    de = AvroDeserializer(registry, json.dumps(codec.schema),
                          from_dict=lambda d, c: Order.model_validate(d))
    validate = Order.model_validate

    def xrgen_confluent() -> object:
        return codec.decode(codec.encode(validate(ORDER)))

    def xrgen_plain() -> object:
        return plain.decode(plain.encode(validate(ORDER)))

    def confluent() -> object:
        return de(ser(validate(ORDER), ctx), ctx)

    first = validate(ORDER)
    assert xrgen_confluent() == first == confluent() == xrgen_plain()
    # the same bytes: confluent-kafka reads ours and we read theirs
    assert de(codec.encode(first), ctx) == first and codec.decode(ser(first, ctx)) == first
    times = best({
        "confluent-kafka AvroSerializer+AvroDeserializer": confluent,
        "xrgen AvroCodec (confluent framing)": xrgen_confluent,
        "xrgen AvroCodec (plain)": xrgen_plain,
    })
    report("Avro round trip (validate, encode, decode, validate): Order",
           times, "confluent-kafka AvroSerializer+AvroDeserializer",
           "xrgen AvroCodec (confluent framing)", ">= 2x")
    avro_format.use_schema_registry(None)


def bench_protobuf(out: Path) -> None:
    if not (ROOT / "catalogs" / "protobuf" / "catalog.json").exists():
        print("\nProtobuf: catalogs/protobuf is absent; skipped")
        return
    from google.protobuf.json_format import MessageToDict
    from xrgen_runtime import formats

    pkg = generate("protobuf", "bench_proto_shop", out / "protobuf")
    info = pkg.MESSAGES[PROTO_MESSAGE]
    model = info.model
    codec = formats.codec_for(model, "protobuf")
    cls = codec.message_class
    validate = model.model_validate

    def xrgen() -> object:
        return codec.decode(codec.encode(validate(PROTO_DATA)))

    def by_hand() -> object:
        m = validate(PROTO_DATA)
        wire = cls(**m.model_dump(by_alias=True, exclude_none=True)).SerializeToString()
        msg = cls.FromString(wire)
        return validate(
            MessageToDict(
                msg, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
            )
        )

    assert xrgen() == by_hand()
    times = best({"compiled _pb2 class by hand": by_hand, "xrgen ProtobufCodec": xrgen})
    report("Protobuf round trip (validate, encode, decode, validate): DeviceReport", times,
           "compiled _pb2 class by hand", "xrgen ProtobufCodec", "within 1.5x: ratio >= 0.67")


PROTO_MESSAGE = "example.telemetry.DeviceReport"
#: catalogs/protobuf's DeviceReport (no bytes field: MessageToDict writes bytes as base64 text)
PROTO_DATA: dict[str, Any] = {
    "device_id": "d-1",
    "sequence": 12345678901,
    "temperature": 21.5,
    "status": "DEGRADED",
    "readings": [{"sensor": "t", "value": 1.25, "quality": 3}, {"sensor": "h", "value": -0.5}],
    "labels": {"site": "berlin"},
    "location": {"lat": 52.5, "lon": 13.4},
    "battery_level": 0.75,
    "note": "hi",
    "codes": [-1, 2, -300],
    "latest": {"t": {"sensor": "t", "value": 9.0, "quality": 1}},
}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        bench_avro(Path(tmp))
        bench_protobuf(Path(tmp))


if __name__ == "__main__":
    main()
