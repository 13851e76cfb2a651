"""Avro and Protobuf payloads in the decoder: the connector check and the Arrow path.

``SparkDecoder`` reads a payload whose content type is Avro binary or
Protobuf in one of two ways (``payloads=``):

- ``native``: ``from_avro`` / ``from_protobuf`` column expressions. They need Spark's
  connector packages on the cluster (``org.apache.spark:spark-avro_2.13``,
  ``org.apache.spark:spark-protobuf_2.13``); :func:`connector_present` checks the JVM for
  them when the decoder is built.
- ``arrow``: an Arrow UDF per payload type over the rows' match and payload bytes (or, on
  PySpark without ``arrow_udf``, ``DataFrame.mapInArrow``), decoded in Python by
  :func:`decode_array` with the runtime's compiled Avro codec (``_avro_compile`` in Spark
  mode: the values ``from_avro`` gives) or with Protobuf message classes built from the
  package's descriptor set; values take the payload's Spark type. Runs on any cluster whose
  executors have Python with ``xrgen-runtime``, ``pyarrow`` and ``fastavro`` / ``protobuf``
  (the generated package itself is not imported there: a :class:`PayloadSpec` carries the
  schema or descriptor set).

Framing of Avro bytes (:class:`PayloadSpec` ``framing``): ``plain``; ``single-object`` (``C3 01``
and the 8-byte CRC-64-AVRO fingerprint of the writer schema, checked); ``confluent`` (magic
byte ``0`` and a 4-byte big-endian schema id; the decoder routes by id when it knows the ids
of a message, see ``SparkDecoder``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .names import CORRUPT_FIELD, END_FIELD

__all__ = [
    "CONNECTORS",
    "PayloadSpec",
    "connector_present",
    "decode_array",
    "decode_batches",
]

#: wire format -> (Maven coordinate of Spark's connector, a JVM class only that package has)
CONNECTORS: dict[str, tuple[str, str]] = {
    "avro": (
        "org.apache.spark:spark-avro_2.13",
        "org.apache.spark.sql.avro.AvroDataToCatalyst",
    ),
    "protobuf": (
        "org.apache.spark:spark-protobuf_2.13",
        "org.apache.spark.sql.protobuf.ProtobufDataToCatalyst",
    ),
}
SINGLE_OBJECT = b"\xc3\x01"


def connector_present(spark: Any, fmt: str) -> bool | None:
    """Whether the session's JVM has Spark's connector of ``fmt`` (``None``: cannot tell,
    e.g. a Spark Connect session, which has no JVM on the client)."""
    jvm = getattr(spark, "_jvm", None)
    if jvm is None:
        return None
    try:
        jvm.java.lang.Class.forName(CONNECTORS[fmt][1])
    except Exception:  # py4j's Py4JJavaError (ClassNotFoundException)
        return False
    return True


@dataclass(frozen=True)
class PayloadSpec:
    """How to decode one binary payload type (plain data: pickled to the executors)."""

    #: "avro" or "protobuf"
    format: str
    #: the payload's Spark type in its JSON form (``DataType.jsonValue()``; not part of the
    #: spec's identity: the decode function does not depend on it)
    dtype: Any = field(compare=False)
    #: Avro: the writer schema (JSON text)
    schema: str = ""
    framing: str = "plain"
    #: Avro single-object: the schema's 8-byte fingerprint
    fingerprint: bytes = b""
    #: Confluent: the schema ids this type accepts (empty: any)
    schema_ids: frozenset[int] = field(default_factory=frozenset)
    #: Protobuf: the message's full name and a serialized FileDescriptorSet holding it
    message: str = ""
    descriptors: bytes = b""

    def body(self, data: bytes) -> bytes:
        """The datum bytes of ``data`` without its framing; ``ValueError`` on a bad header."""
        if self.framing == "single-object":
            if data[:2] != SINGLE_OBJECT:
                raise ValueError("not Avro single-object encoding (no C3 01 marker)")
            if data[2:10] != self.fingerprint:
                raise ValueError(
                    f"schema fingerprint {data[2:10].hex()} is not the writer schema's"
                )
            return data[10:]
        if self.framing == "confluent":
            if len(data) < 5 or data[0] != 0:
                raise ValueError("not the Confluent wire format (no magic byte 0)")
            if (
                self.schema_ids
                and int.from_bytes(data[1:5], "big") not in self.schema_ids
            ):
                raise ValueError(
                    f"schema id {int.from_bytes(data[1:5], 'big')} is not known"
                )
            return data[5:]
        return data


#: decode functions built on this process, by spec (executors build them once per worker)
_DECODERS: dict[PayloadSpec, Any] = {}


def _avro_decoder(spec: PayloadSpec) -> Any:
    import fastavro

    from ..formats._avro_compile import Unsupported, compile_codec

    parsed = fastavro.parse_schema(json.loads(spec.schema))
    try:
        return compile_codec(parsed, spark=True)[1]
    except Unsupported:
        import io

        def decode(data: bytes) -> Any:
            buf = io.BytesIO(data)
            try:
                datum = fastavro.schemaless_reader(buf, parsed, None)
            except Exception as exc:
                raise ValueError(f"not Avro binary of the schema: {exc!r}") from None
            if buf.tell() != len(data):
                raise ValueError(f"{len(data) - buf.tell()} bytes after the Avro datum")
            return datum

        return decode


def _protobuf_decoder(spec: PayloadSpec) -> Any:
    from google.protobuf import (  # type: ignore[import-untyped]
        descriptor_pb2,
        descriptor_pool,
        message_factory,
    )

    from ..formats.protobuf import _converter

    pool = descriptor_pool.DescriptorPool()
    for proto in descriptor_pb2.FileDescriptorSet.FromString(spec.descriptors).file:
        pool.Add(proto)
    descriptor = pool.FindMessageTypeByName(spec.message)
    cls = message_factory.GetMessageClass(descriptor)
    to_dict = _converter(descriptor, {})

    def decode(data: bytes) -> Any:
        try:
            message = cls.FromString(data)
        except Exception as exc:  # google.protobuf.message.DecodeError and others
            raise ValueError(f"not Protobuf of {spec.message}: {exc}") from None
        return to_dict(message)

    return decode


def _decoder(spec: PayloadSpec) -> Any:
    found = _DECODERS.get(spec)
    if found is None:
        build = _avro_decoder if spec.format == "avro" else _protobuf_decoder
        found = _DECODERS[spec] = build(spec)
    return found


def _conform(value: Any, dtype: Any) -> Any:
    """``value`` shaped for Spark type ``dtype`` (JSON form): a structure where the type is a
    string becomes its JSON text (recursive types), ``memberN`` dicts and the rest pass.
    """
    if value is None:
        return None
    if dtype == "string":
        return value if isinstance(value, str) else json.dumps(value, default=str)
    if isinstance(dtype, dict):
        kind = dtype.get("type")
        if kind == "struct" and isinstance(value, Mapping):
            return {
                f["name"]: _conform(value.get(f["name"]), f["type"])
                for f in dtype["fields"]
            }
        if kind == "array" and isinstance(value, (list, tuple)):
            return [_conform(v, dtype["elementType"]) for v in value]
        if kind == "map" and isinstance(value, Mapping):
            return {str(k): _conform(v, dtype["valueType"]) for k, v in value.items()}
    return value


def decode_array(
    matched: Any,
    payloads: Any,
    indexes: frozenset[int],
    spec: PayloadSpec,
    arrow_type: Any,
) -> Any:
    """The decoded values of one Arrow batch: ``payloads`` (binary) of the rows whose
    ``matched`` target index is one of ``indexes`` decoded with ``spec``.

    A row gets ``{"v": value, "_xr_end": true}`` or, when its bytes do not decode,
    ``{"_xr_corrupt": reason}`` (the shape of the decoder's JSON parse results); other rows
    (another index, or no bytes) get null. The body of the Arrow UDF (``arrow_udf``: only
    these two columns cross into Python) and of the ``mapInArrow`` step.
    """
    decode = _decoder(spec)
    m_list = matched.to_pylist()
    values: list[Any] = [None] * len(m_list)
    decoded = [False] * len(m_list)
    bad: dict[int, str] = {}
    for i, (m, data) in enumerate(zip(m_list, payloads.to_pylist(), strict=True)):
        if data is None or m not in indexes:
            continue
        try:
            values[i] = decode(spec.body(data))
            decoded[i] = True
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            bad[i] = str(exc)[:200] or type(exc).__name__
    built = _columns(values, decoded, bad, arrow_type)
    if built is not None:
        return built
    rows: list[Any] = [
        (
            {"v": value, END_FIELD: True}
            if ok
            else {CORRUPT_FIELD: bad[i]} if i in bad else None
        )
        for i, (value, ok) in enumerate(zip(values, decoded, strict=True))
    ]
    return _arrow(rows, arrow_type, spec.dtype)


def _columns(
    values: list[Any], decoded: list[bool], bad: Mapping[int, str], arrow_type: Any
) -> Any:
    """The result array built column by column (one conversion of the decoded values, no
    wrapper dict per row), or ``None`` when a value does not fit its Arrow type (then
    :func:`_arrow` finds which rows)."""
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.compute as pc  # type: ignore[import-untyped]

    try:
        v = pa.array(values, type=arrow_type.field("v").type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError, ValueError):
        return None
    ok = pa.array(decoded, type=pa.bool_())
    end = pc.if_else(ok, True, pa.scalar(None, pa.bool_()))  # true or null
    n = len(values)
    if bad:
        corrupt = pa.array([bad.get(i) for i in range(n)], type=pa.string())
        null = pc.and_(pc.invert(ok), pc.is_null(corrupt))  # neither decoded nor bad
    else:
        corrupt, null = pa.nulls(n, type=pa.string()), pc.invert(ok)
    return pa.StructArray.from_arrays(
        [v, end, corrupt], fields=list(arrow_type), mask=null
    )


def decode_batches(
    batches: Iterable[Any],
    groups: Sequence[tuple[str, frozenset[int], PayloadSpec]],
    arrow_types: Mapping[str, Any],
    index_column: str,
    bytes_column: str,
) -> Iterator[Any]:
    """``mapInArrow`` body (PySpark without ``arrow_udf``): each record batch with one
    column per group (output column, matched target indexes, spec) appended, filled by
    :func:`decode_array`."""
    import pyarrow as pa

    for batch in batches:
        matched = batch.column(index_column)
        payloads = batch.column(bytes_column)
        arrays = list(batch.columns)
        names = list(batch.schema.names)
        for name, indexes, spec in groups:
            arrays.append(
                decode_array(matched, payloads, indexes, spec, arrow_types[name])
            )
            names.append(name)
        yield pa.RecordBatch.from_arrays(arrays, names=names)


def _arrow(rows: list[Any], arrow_type: Any, dtype: Any) -> Any:
    """``rows`` as an Arrow array of ``arrow_type``; values that do not fit it (after
    :func:`_conform`) make their row corrupt."""
    import pyarrow as pa

    try:
        return pa.array(rows, type=arrow_type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError, ValueError):
        pass
    fixed: list[Any] = []
    for row in rows:
        if row is not None and "v" in row:
            row = {"v": _conform(row["v"], dtype), END_FIELD: True}
            try:
                pa.array([row], type=arrow_type)
            except (
                pa.ArrowInvalid,
                pa.ArrowTypeError,
                OverflowError,
                TypeError,
                ValueError,
            ) as exc:
                reason = f"value does not fit the Spark type: {exc}"[:200]
                row = {CORRUPT_FIELD: reason}
        fixed.append(row)
    return pa.array(fixed, type=arrow_type)
