"""Avro binary and Protobuf payload groups in the decoder's plan: natively with
``from_avro`` / ``from_protobuf``, or over Arrow (an Arrow UDF per group, or one
``mapInArrow`` step on PySpark without ``arrow_udf``) with the runtime's codecs
(:mod:`.payloads`, what runs on the executors).

Only plain data crosses to the executors: target indexes and :class:`.payloads.PayloadSpec`
(never a definition, which would need the generated package there).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.avro.functions import from_avro
from pyspark.sql.protobuf.functions import from_protobuf
from pyspark.sql.types import StructField, StructType

from . import names as N
from . import sql as S
from .columns import parse_result, parse_type
from .payloads import SINGLE_OBJECT, PayloadSpec, decode_array, decode_batches
from .plan import Group
from .sql import Expr as X

_MAX_INT = 2**31 - 1


def parse_native(spec: PayloadSpec, data: X) -> Any:
    """``from_avro`` / ``from_protobuf`` of the payload bytes ``data`` (framing stripped and
    checked) as the result struct of a JSON parse (``v``, ``_xr_end``, ``_xr_corrupt``):
    a ``Column``, as ``pyspark.sql.avro`` / ``pyspark.sql.protobuf`` build them.
    """
    if spec.format == "protobuf":
        decoded = from_protobuf(
            data.column(),
            spec.message,
            options={"mode": "PERMISSIVE", "emit.default.values": "true"},
            binaryDescriptorSet=spec.descriptors,
        )
        corrupt = decoded.isNull()
    else:
        ok = S.lit(True)
        if spec.framing == "single-object":
            header = bytearray(SINGLE_OBJECT + spec.fingerprint)
            ok = S.fn("substring", data, 1, 10) == header
            data = S.fn("substring", data, 11, _MAX_INT)
        elif spec.framing == "confluent":
            ok = (S.fn("length", data) >= 5) & (
                S.fn("substring", data, 1, 1) == bytearray(1)
            )
            data = S.fn("substring", data, 6, _MAX_INT)
        decoded = from_avro(
            S.when(ok, data).column(), spec.schema, {"mode": "PERMISSIVE"}
        )
        # PERMISSIVE from_avro gives a record whose fields are all null for bytes it
        # cannot read (not a null record), so that is what marks a corrupt row. A valid
        # record with every field null is dead-lettered too (possible only when all
        # are nullable).
        corrupt = decoded.isNull() | ~S.coalesce(ok, False).column()
        names = spec.dtype.get("fields") if isinstance(spec.dtype, dict) else None
        if names:
            corrupt = corrupt | functools.reduce(
                operator.and_, (decoded[f["name"]].isNull() for f in names)
            )
    return F.struct(
        decoded.alias("v"),
        F.lit(True).alias(N.END_FIELD),
        F.when(corrupt, F.lit(spec.format)).alias(N.CORRUPT_FIELD),
    )


def result_type(spec: PayloadSpec) -> StructType:
    """The type of a group's decoded column: a parse result of the payload's type."""
    return parse_result(parse_type(spec.dtype))


def _executor_group(group: Group) -> tuple[str, frozenset[int], PayloadSpec]:
    """What the executors get of ``group``: (column, target indexes, spec)."""
    assert group.spec is not None
    return group.name, frozenset(t.index for t in group.members), group.spec


def arrow_udf(group: Group) -> Any:
    """The Arrow UDF decoding ``group``'s payloads (``_xr_m``, ``_xr_bin`` -> result):
    only those two columns cross into Python, the rows stay in the JVM."""
    from pyspark.sql.pandas.types import to_arrow_type

    _, indexes, spec = _executor_group(group)
    result = result_type(spec)
    arrow_type = to_arrow_type(result, timezone="UTC")

    import pyarrow as pa  # type: ignore[import-untyped]

    def decode(matched: Any, payloads: Any) -> Any:
        return decode_array(matched, payloads, indexes, spec, arrow_type)

    # the type hints tell ``arrow_udf`` the kind (arrays to an array)
    decode.__annotations__ = {
        "matched": pa.Array,
        "payloads": pa.Array,
        "return": pa.Array,
    }
    udf = F.arrow_udf(decode, result)  # type: ignore[attr-defined]
    return udf(F.col(N.MATCH), F.col(N.PAYLOAD_BYTES))


def step_types(
    groups: Sequence[Group], schema: StructType
) -> tuple[StructType, dict[str, Any]]:
    """(the output schema of the ``mapInArrow`` step on input ``schema``, the Arrow type of
    each group's column)."""
    from pyspark.sql.pandas.types import to_arrow_type

    specs = [(g.name, g.spec) for g in groups if g.spec is not None]
    out = StructType(
        [*schema.fields] + [StructField(n, result_type(s)) for n, s in specs]
    )
    types = {n: to_arrow_type(result_type(s), timezone="UTC") for n, s in specs}
    return out, types


def arrow_step(
    df: DataFrame,
    groups: Sequence[Group],
    schema: StructType,
    arrow_types: dict[str, Any],
) -> DataFrame:
    """``df`` with one decoded column per group (:func:`.payloads.decode_batches`);
    ``schema`` and ``arrow_types`` from :func:`step_types`."""
    plain = [_executor_group(g) for g in groups]

    def run(batches: Iterable[Any]) -> Iterator[Any]:
        return decode_batches(batches, plain, arrow_types, N.MATCH, N.PAYLOAD_BYTES)

    return df.mapInArrow(run, schema)
