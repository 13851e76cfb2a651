"""Envelopes and payloads in the Spark decoder: whether a row is a well-formed CloudEvent,
its typed attributes, and each payload parsed with its matched definition's type (JSON with
``from_json``; Avro and Protobuf with ``from_avro`` / ``from_protobuf`` or over Arrow).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Iterator
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql.types import BooleanType, DataType, StructField, StructType

from . import _spark_sql as S
from ._spark_columns import (
    _CORRUPT,
    _END,
    _S,
    _any,
    _isin_indexes,
    _parse_wrapped,
    _text,
    _typed,
    _typed_read,
    _unparsed,
)
from ._spark_payloads import PayloadSpec, decode_array, decode_batches
from ._spark_plan import _BINARY_FORMATS, _Plan
from ._spark_sql import Expr as X
from ._spark_structure import convert
from ._spark_targets import _CORE_KINDS, _REQUIRED, _TYPED_KINDS, _Target

_SINGLE_OBJECT = b"\xc3\x01"
_MAX_INT = 2**31 - 1


class _Parse(_Plan):
    """The envelope and payload expressions of a decoder (see the module docstring)."""

    def _is_ce(self) -> X:
        present = [self._attr(n).isNotNull() for n in _REQUIRED]
        return S.col("_xr_s") | _any(present)

    def _ce_ok(self) -> X:
        """A well-formed CloudEvent: parsed, ``specversion`` 1.0, non-empty core attributes."""
        ok = (self._attr("specversion") == "1.0") & ~self.wire.unsupported()
        for name in _REQUIRED[1:]:
            ok = ok & self._attr(name).isNotNull() & (self._attr(name) != "")
        return S.coalesce(ok & (~S.col("_xr_s") | self._env_ok()), S.lit(False))

    def _env_ok(self) -> X:
        """Whether a structured row's envelope parsed as one JSON object.

        With ``data`` as text any parse error marks the row (``_unparsed``). With a typed
        ``data``, the corrupt-record field is also set when ``data`` does not fit the
        payload type (the rest of the envelope is still read): that is a payload error,
        decided after the match; JSON syntax errors inside ``data`` that Spark recovers from
        look the same, and a second parse tells them apart (:meth:`_recheck`).
        """

        return self._by_variant(
            lambda j, env: ~_unparsed(env) if j == 0 else _typed_read(env)
        )

    def _recheck(self) -> X:
        """Whether a row's verdict depends on whether its envelope is valid JSON: read as an
        object with a typed ``data`` that did not fit (see :meth:`_env_ok`). The payload
        parse stage parses these rows again with ``data`` as text (``_xr_rp``); an
        unsupported content mode (HTTP batch) is reported before any JSON error."""

        def ambiguous(j: int, env: X) -> X:
            if j == 0:
                return S.lit(False)
            return _typed_read(env) & env[_CORRUPT].isNotNull()

        if self.envelopes is None:
            return S.lit(False)
        checked = self._by_variant(ambiguous) & ~self.wire.unsupported()
        return S.coalesce(S.col("_xr_s") & checked, S.lit(False))

    def _payload(self, t: _Target) -> tuple[X, X]:
        """(the payload value, whether it is not a valid value of ``t``'s type) of a row
        matched to ``t`` (``t`` has a payload type); one pair per parse group and variant.
        """
        return self._memo(
            ("payload", *self._payload_key(t)), lambda: self._build_payload(t)
        )

    def _payload_key(self, t: _Target) -> tuple[str, int]:
        """What :meth:`_payload` depends on: (parse group column, typed envelope variant)."""
        return self.groups[self._group_key(t)], self._typed_variant(t)

    def _build_payload(self, t: _Target) -> tuple[X, X]:
        value, bad = self._parsed_payload(t)
        if t.read is None:
            return value, bad
        # a JSON Structure payload: from the wire type to the payload type
        typed, invalid = convert(value, t.read[1], t.read[0])
        return typed, bad | invalid

    def _parsed_payload(self, t: _Target) -> tuple[X, X]:
        parsed = S.col(self.groups[self._group_key(t)])
        j = self._typed_variant(t)
        if not j or self._env_column(j) is None:
            return parsed["v"], _unparsed(parsed)
        # structured rows: ``data`` from the envelope, else the ``data_base64`` parse (the
        # envelope's ``data`` and whether it was corrupt, taken out of it before the
        # payload parse stage: see ``_route_stages``)
        data = S.col(f"_xr_d{j}")
        inline = S.col("_xr_s") & data.isNotNull()
        value = S.when(inline, data).otherwise(parsed["v"])
        bad = S.when(
            S.col("_xr_s"),
            S.col(f"_xr_c{j}") | (data.isNull() & _unparsed(parsed)),
        ).otherwise(_unparsed(parsed))
        return value, bad

    def _typed_columns(self) -> dict[str, X]:
        cols = {
            f"_xr_t_{name}_{kind}": _typed(self._attr(name), kind)
            for name, kind in _CORE_KINDS.items()
        }
        for t in self.targets:
            for name, kind in t.kinds.items():
                if kind in _TYPED_KINDS and name not in _CORE_KINDS:
                    cols.setdefault(
                        f"_xr_t_{name}_{kind}", _typed(self._attr(name), kind)
                    )
        return cols

    def _data_text(self) -> X:
        """The payload text to parse: binary rows' payload; for a structured row ``data``
        (an envelope parsed with ``data`` as text) or the text of ``data_base64``."""

        def text(j: int, env: X) -> X:
            v = env["v"]
            from_b64 = _text(S.fn("try_to_binary", v["data_base64"], "base64"))
            if j == 0:
                return S.coalesce(v["data"], from_b64)
            return S.when(v["data"].isNull(), from_b64)  # else parsed with the envelope

        structured = self._by_variant(text)
        return S.when(S.col("_xr_s"), structured).otherwise(
            _text(self.wire.payload_bytes())
        )

    def _data_bytes(self) -> X:
        text_data = self._env_column(0)  # the envelope with ``data`` as text
        if text_data is None:  # no structured row selects it
            return self.wire.payload_bytes()
        env = text_data["v"]
        return S.when(
            S.col("_xr_s"),
            S.coalesce(
                S.fn("try_to_binary", env["data_base64"], "base64"),
                env["data"].cast("binary"),
            ),
        ).otherwise(self.wire.payload_bytes())

    def _parse_columns(self, guard: X) -> list[tuple[str, Any]]:
        """(name, expression) of each payload parse group's column; a native Avro /
        Protobuf group's is a ``Column`` (``from_avro`` / ``from_protobuf``)."""
        cols: list[tuple[str, Any]] = []
        for (kind, _), name in self.groups.items():
            members = [
                t for t in self.targets if self.groups[self._group_key(t)] == name
            ]
            # rows of a run of tied definitions carry its first one's index until the
            # payloads choose (``_spark_ties``): each member's parse reads them too
            rows = {t.index for t in members}
            rows |= {
                self.tie_leader[t.index] for t in members if t.index in self.tie_leader
            }
            when = _isin_indexes("_xr_m", sorted(rows)) & guard
            sample = members[0]
            if kind in _BINARY_FORMATS:
                from pyspark.sql import functions as F

                if self.payloads == "arrow":
                    if self.arrow_udf:
                        indexes = frozenset(t.index for t in members)
                        udf = self._arrow_udf(indexes, self.specs[sample.index])
                        cols.append((name, udf.alias(name)))
                    # else the ``mapInArrow`` step added the column
                    continue

                native = self._parse_native(self.specs[sample.index])
                cols.append((name, F.when(when.column(), native).alias(name)))
                continue
            if kind == "bytes":
                value = self._data_bytes()
            else:
                value = _parse_wrapped(S.col("_xr_txt"), sample.parse_dtype)
            cols.append((name, S.when(when, value).alias(name)))
        return cols

    def _parse_native(self, spec: PayloadSpec) -> Any:
        """``from_avro`` / ``from_protobuf`` of the row's payload bytes (framing stripped and
        checked) as the result struct of a JSON parse (``v``, ``_xr_end``, ``_xr_corrupt``):
        a ``Column``, as ``pyspark.sql.avro`` / ``pyspark.sql.protobuf`` build them.
        """
        from pyspark.sql import functions as F

        data = self._data_bytes()
        if spec.format == "protobuf":
            from pyspark.sql.protobuf.functions import from_protobuf

            decoded = from_protobuf(
                data.column(),
                spec.message,
                options={"mode": "PERMISSIVE", "emit.default.values": "true"},
                binaryDescriptorSet=spec.descriptors,
            )
            corrupt = decoded.isNull()
        else:
            from pyspark.sql.avro.functions import from_avro

            ok = S.lit(True)
            if spec.framing == "single-object":
                header = bytearray(_SINGLE_OBJECT + spec.fingerprint)
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
            F.lit(True).alias(_END),
            F.when(corrupt, F.lit(spec.format)).alias(_CORRUPT),
        )

    def _arrow_groups(self) -> list[tuple[str, frozenset[int], PayloadSpec]]:
        """(parse group column, its target indexes, spec) decoded over Arrow."""
        if self.payloads != "arrow":
            return []
        out = []
        for (kind, _), name in self.groups.items():
            if kind in _BINARY_FORMATS:
                members = [
                    t for t in self.targets if self.groups[self._group_key(t)] == name
                ]
                out.append(
                    (
                        name,
                        frozenset(t.index for t in members),
                        self.specs[members[0].index],
                    )
                )
        return out

    def _arrow_result_type(self, spec: PayloadSpec) -> StructType:
        return StructType(
            [
                StructField("v", parse_type(spec.dtype)),
                StructField(_END, BooleanType()),
                StructField(_CORRUPT, _S),
            ]
        )

    def _arrow_udf(self, indexes: frozenset[int], spec: PayloadSpec) -> Any:
        """The Arrow UDF decoding one group's payloads (``_xr_m``, ``_xr_bin`` -> result):
        only those two columns cross into Python, the rows stay in the JVM."""
        from pyspark.sql import functions as F
        from pyspark.sql.pandas.types import to_arrow_type

        result = self._arrow_result_type(spec)
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
        return udf(F.col("_xr_m"), F.col("_xr_bin"))

    def _arrow_step(self, df: DataFrame) -> DataFrame:
        """``df`` with one decoded column per Arrow group (:func:`decode_batches`)."""
        from pyspark.sql.pandas.types import to_arrow_type

        groups = self._arrow_groups()
        key = ("arrow", tuple(df.columns))

        def build() -> tuple[StructType, dict[str, Any]]:
            schema = StructType(
                [*df.schema.fields]
                + [StructField(n, self._arrow_result_type(s)) for n, _, s in groups]
            )
            types = {
                n: to_arrow_type(self._arrow_result_type(s), timezone="UTC")
                for n, _, s in groups
            }
            return schema, types

        schema, types = self._memo(key, build)

        def run(batches: Iterable[Any]) -> Iterator[Any]:
            return decode_batches(batches, groups, types, "_xr_m", "_xr_bin")

        return df.mapInArrow(run, schema)


def parse_type(value: Any) -> DataType:
    """A Spark type from its JSON form (``DataType.jsonValue()``), as ``spark_types`` emits."""
    from pyspark.sql.types import _parse_datatype_json_value

    result: DataType = _parse_datatype_json_value(value)
    return result
