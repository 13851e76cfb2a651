"""How the decoder reads Avro binary and Protobuf payloads: a :class:`.payloads.PayloadSpec`
per definition (schema or descriptor set, framing, Confluent schema ids), and the choice
between Spark's connectors (``from_avro`` / ``from_protobuf``) and the Arrow path.
"""

from __future__ import annotations

import json
import warnings
import zlib
from collections.abc import Iterable, Mapping
from typing import Any

import pyspark
from pyspark.sql import SparkSession

from ..formats import codec_for, wire_format
from .payloads import CONNECTORS, PayloadSpec, connector_present
from .targets import Target

#: how Avro / Protobuf payloads are decoded (``SparkDecoder(payloads=...)``)
PAYLOAD_MODES = ("auto", "native", "arrow", "off")
#: the payload formats read by a :class:`PayloadSpec`
BINARY_FORMATS = frozenset({"avro", "protobuf"})


def payload_spec(
    t: Target,
    avro_schemas: Mapping[str, str],
    proto_descriptors: Mapping[str, tuple[str, bytes]],
    schema_ids: Mapping[str, int | Iterable[int]],
    registry: Any,
) -> PayloadSpec | None:
    """How ``t``'s payload is decoded when its content type is Avro binary (with its
    Avro schema known) or Protobuf (with its descriptor set known); else ``None``.
    """
    if t.dtype is None:
        return None
    fmt = wire_format(t.defn.datacontenttype)
    dtype = t.dtype.jsonValue()
    if fmt == "protobuf" and t.defn.id in proto_descriptors:
        message, descriptors = proto_descriptors[t.defn.id]
        return PayloadSpec(
            "protobuf", dtype, message=message, descriptors=bytes(descriptors)
        )
    if fmt != "avro" or t.defn.id not in avro_schemas:
        return None
    schema = avro_schemas[t.defn.id]
    framing, codec = "plain", None
    if t.defn.model is not None:
        codec = codec_for(t.defn.model, "avro")
        if codec is not None:
            framing = getattr(codec, "framing_by_type", {}).get(
                t.defn.type, getattr(codec, "framing", "plain")
            )
    fingerprint = b""
    if framing == "single-object":
        from fastavro.schema import fingerprint as _fp
        from fastavro.schema import to_parsing_canonical_form

        hex_ = _fp(to_parsing_canonical_form(json.loads(schema)), "CRC-64-AVRO")
        fingerprint = int(hex_, 16).to_bytes(8, "little")
    ids: frozenset[int] = frozenset()
    if framing == "confluent":
        given = schema_ids.get(t.defn.id)
        if given is not None:
            ids = frozenset([given] if isinstance(given, int) else given)
        elif registry is not None:
            ids = _registry_ids(t, schema, registry)
    return PayloadSpec(
        "avro",
        dtype,
        schema=schema,
        framing=framing,
        fingerprint=fingerprint,
        schema_ids=ids,
    )


def _registry_ids(t: Target, schema: str, registry: Any) -> frozenset[int]:
    """The ids under which ``registry`` (confluent-kafka ``SchemaRegistryClient``
    interface) has ``schema``: looked up (never registered) under the subjects the
    Avro codec writes with, ``<topic>-value`` for a literal Kafka topic option, and the
    record's full name."""
    subjects = [
        f"{o.value}-value"
        for o in t.defn.options
        if o.path == ("topic",) and not o.template and isinstance(o.value, str)
    ]
    parsed = json.loads(schema)
    if isinstance(parsed, dict) and isinstance(parsed.get("name"), str):
        name, space = parsed["name"], parsed.get("namespace")
        subjects.append(f"{space}.{name}" if space and "." not in name else name)
    try:
        from confluent_kafka.schema_registry import Schema

        wanted: Any = Schema(schema, "AVRO")
    except ImportError:
        from ..formats.avro import _Schema

        wanted = _Schema(schema)
    ids = set()
    for subject in subjects:
        try:
            ids.add(int(registry.lookup_schema(subject, wanted).schema_id))
        except Exception:  # not registered under that subject
            continue
    return frozenset(ids)


def spec_key(spec: PayloadSpec) -> str:
    """What tells two payload specs apart (besides their Spark type), as text."""
    digest = zlib.crc32(spec.descriptors)
    return json.dumps(
        [
            spec.schema,
            spec.framing,
            spec.fingerprint.hex(),
            sorted(spec.schema_ids),
            spec.message,
            digest,
        ]
    )


def choose_payloads(
    requested: str, formats: Iterable[str], spark: Any, stacklevel: int
) -> str | None:
    """``"native"`` or ``"arrow"``: how the payloads of ``formats`` are decoded on the
    session (``None``: no session yet, decided later). ``native`` without the connector is
    an error, ``auto`` falls back to Arrow with a warning naming the missing package
    (``stacklevel`` frames above this function)."""
    if requested == "arrow":
        return "arrow"
    if spark is None:
        spark = SparkSession.getActiveSession()
        if spark is None:
            return None
    wanted = sorted(set(formats))
    present = {f: connector_present(spark, f) for f in wanted}
    missing = [f for f in wanted if present[f] is False]
    if not missing:
        return "native"
    packages = ",".join(f"{CONNECTORS[f][0]}:{pyspark.__version__}" for f in missing)
    what = " and ".join(f"{f} ({CONNECTORS[f][0]})" for f in missing)
    if requested == "native":
        raise RuntimeError(
            f"the Spark connector for {what} is not on this cluster: start Spark with "
            f"--packages {packages}, or use payloads='arrow'"
        )
    warnings.warn(
        f"the Spark connector for {what} is not on this cluster: Avro/Protobuf payloads "
        f"are decoded over Arrow (Python on the executors); "
        f"--packages {packages} enables from_avro/from_protobuf",
        RuntimeWarning,
        stacklevel=stacklevel + 1,
    )
    return "arrow"
