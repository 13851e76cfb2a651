"""The Spark decoder's plan: its compiled definitions, how their payloads are parsed
(payload parse groups; Avro / Protobuf natively or over Arrow) and how structured rows'
envelopes are read (envelope variants).

:class:`_Plan` holds that state; the layers above it build the column expressions:
``_spark_parse`` (envelopes and payloads), ``_spark_routing`` (the match),
``_spark_errors`` (dead-letter reasons) and ``_spark`` (the stages and the outputs).
"""

from __future__ import annotations

import collections
import json
import operator
import warnings
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from pyspark.sql.types import (
    DataType,
    StructField,
    StructType,
    _parse_datatype_json_value,
)

from . import _spark_sql as S
from ._definitions import MessageDef
from ._spark_columns import _S, _case, _type_lookup
from ._spark_payloads import CONNECTORS, PayloadSpec, connector_present
from ._spark_sql import Expr as X
from ._spark_targets import _CORE, _TRACING, PayloadCheck, _Target, tie_groups
from ._spark_wires import _WIRES
from .formats import codec_for, wire_format

#: how Avro / Protobuf payloads are decoded (``SparkDecoder(payloads=...)``)
PAYLOAD_MODES = ("auto", "native", "arrow", "off")
_BINARY_FORMATS = frozenset({"avro", "protobuf"})
M = TypeVar("M")


class _Plan:
    """What a decoder decodes and how (see the module docstring); ``SparkDecoder``'s base."""

    def __init__(
        self,
        defs: Sequence[MessageDef],
        schemas: Mapping[str, DataType],
        binding: str = "kafka",
        *,
        payloads: str = "auto",
        avro_schemas: Mapping[str, str] | None = None,
        proto_descriptors: Mapping[str, tuple[str, bytes]] | None = None,
        schema_ids: Mapping[str, int | Iterable[int]] | None = None,
        registry: Any = None,
        spark: Any = None,
        payload_checks: Mapping[str, Sequence[PayloadCheck]] | None = None,
        structure_reads: Mapping[str, tuple[Any, Any]] | None = None,
    ) -> None:
        if binding not in _WIRES:
            raise ValueError(
                f"unknown binding {binding!r}; expected one of {sorted(_WIRES)}"
            )
        if payloads not in PAYLOAD_MODES:
            raise ValueError(
                f"payloads must be one of {PAYLOAD_MODES}, not {payloads!r}"
            )
        self.binding = binding
        self.wire = _WIRES[binding]
        self.avro_schemas = dict(avro_schemas or {})
        self.proto_descriptors = dict(proto_descriptors or {})
        self.targets = [
            _Target(i, d, schemas.get(d.id), self.wire) for i, d in enumerate(defs)
        ]
        self.targets = [t for t in self.targets if t.applies]
        for t in self.targets:
            read = (structure_reads or {}).get(t.defn.id)
            if read is not None and t.dtype is not None:
                t.read = (_parse_datatype_json_value(read[0]), read[1])
        #: target index -> how its Avro / Protobuf payload is decoded
        self.specs: dict[int, PayloadSpec] = {}
        for t in self.targets if payloads != "off" else ():
            spec = self._payload_spec(t, schema_ids or {}, registry)
            if spec is not None:
                self.specs[t.index] = spec
        #: "native" or "arrow" (``auto`` is decided here, or at the first ``route`` when
        #: no SparkSession is active yet)
        self.requested = payloads
        self.payloads: str | None = None
        #: Arrow-decoded payloads through an Arrow UDF (PySpark >= 4.1: only the payload
        #: bytes and the match cross into Python), else a ``mapInArrow`` step (every column)
        from pyspark.sql import functions as F

        self.arrow_udf = hasattr(F, "arrow_udf")
        if self.specs:
            self._choose_payloads(spark)
        names: dict[str, None] = dict.fromkeys(_CORE + _TRACING)
        for t in self.targets:
            names.update(dict.fromkeys(t.kinds))
        self.attr_names = tuple(names)
        #: payload parse groups: (kind, type json) -> column name
        self.groups: dict[tuple[str, str], str] = {}
        for t in self.targets:
            self.groups.setdefault(self._group_key(t), f"_xr_p{len(self.groups)}")
        #: message id -> what its payload must hold to be taken among tied definitions
        self.payload_checks = {k: tuple(v) for k, v in (payload_checks or {}).items()}
        ranked = sorted(self.targets, key=operator.attrgetter("rank"))
        #: runs of definitions that the match cannot tell apart, routed by their payloads
        #: (``_spark_ties``); JSON and opaque payloads only
        self.ties = [
            g
            for g in tie_groups(ranked, self._group_key, self.payload_checks)
            if all(self._group_key(t)[0] in ("json", "bytes") for t in g)
        ]
        #: tied target index -> the index of the first of its run (which the match gives)
        self.tie_leader = {t.index: g[0].index for g in self.ties for t in g[1:]}
        #: JSON payload groups in order: a structured row of group ``i`` can be parsed with
        #: the envelope type whose ``data`` is that group's payload type (variant ``i + 1``)
        self.json_groups = [n for (kind, _), n in self.groups.items() if kind == "json"]
        self.variant = {t.index: self._variant(t) for t in self.targets}
        #: see :meth:`_envelope_choice`; ``None``: envelopes are read with ``data`` as text
        self.envelopes = self._envelope_choice()
        #: message id -> its target (ids are unique in a generated package)
        self._by_id: dict[str, _Target] = {}
        for t in self.targets:
            self._by_id.setdefault(t.defn.id, t)
        #: what :meth:`_memo` built, by key
        self._built: dict[tuple[Any, ...], Any] = {}

    def _payload_spec(
        self, t: _Target, schema_ids: Mapping[str, int | Iterable[int]], registry: Any
    ) -> PayloadSpec | None:
        """How ``t``'s payload is decoded when its content type is Avro binary (with its
        Avro schema known) or Protobuf (with its descriptor set known); else ``None``.
        """
        if t.dtype is None:
            return None
        fmt = wire_format(t.defn.datacontenttype)
        dtype = t.dtype.jsonValue()
        if fmt == "protobuf" and t.defn.id in self.proto_descriptors:
            message, descriptors = self.proto_descriptors[t.defn.id]
            return PayloadSpec(
                "protobuf", dtype, message=message, descriptors=bytes(descriptors)
            )
        if fmt != "avro" or t.defn.id not in self.avro_schemas:
            return None
        schema = self.avro_schemas[t.defn.id]
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
                ids = self._registry_ids(t, schema, registry)
        return PayloadSpec(
            "avro",
            dtype,
            schema=schema,
            framing=framing,
            fingerprint=fingerprint,
            schema_ids=ids,
        )

    @staticmethod
    def _registry_ids(t: _Target, schema: str, registry: Any) -> frozenset[int]:
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
            from .formats.avro import _Schema

            wanted = _Schema(schema)
        ids = set()
        for subject in subjects:
            try:
                ids.add(int(registry.lookup_schema(subject, wanted).schema_id))
            except Exception:  # not registered under that subject
                continue
        return frozenset(ids)

    def _choose_payloads(self, spark: Any) -> None:
        """Settle native vs Arrow decoding of Avro / Protobuf payloads for the session:
        ``native`` without the connector is an error, ``auto`` falls back to Arrow with a
        warning naming the missing package (both said when the decoder is built)."""
        if self.requested == "arrow":
            self.payloads = "arrow"
            return
        if spark is None:
            from pyspark.sql import SparkSession

            spark = SparkSession.getActiveSession()
            if spark is None:  # decided at the first ``route``
                return
        formats = sorted({s.format for s in self.specs.values()})
        present = {f: connector_present(spark, f) for f in formats}
        missing = [f for f in formats if present[f] is False]
        if not missing:
            self.payloads = "native"
            return
        import pyspark

        packages = ",".join(
            f"{CONNECTORS[f][0]}:{pyspark.__version__}" for f in missing
        )
        what = " and ".join(f"{f} ({CONNECTORS[f][0]})" for f in missing)
        if self.requested == "native":
            raise RuntimeError(
                f"the Spark connector for {what} is not on this cluster: start Spark with "
                f"--packages {packages}, or use payloads='arrow'"
            )
        warnings.warn(
            f"the Spark connector for {what} is not on this cluster: Avro/Protobuf payloads "
            f"are decoded over Arrow (Python on the executors); "
            f"--packages {packages} enables from_avro/from_protobuf",
            RuntimeWarning,
            stacklevel=3,
        )
        self.payloads = "arrow"

    def _variant(self, t: _Target) -> int:
        """How a structured row of ``t`` is parsed: ``i + 1`` with JSON group ``i``'s payload
        type as ``data``, 0 with ``data`` as text (opaque payloads), -1 when its payload is
        parsed after its envelope (Avro binary or Protobuf: ``from_avro`` / ``from_protobuf`` or the
        Arrow step).
        """
        kind = self._group_key(t)[0]
        if kind == "json":
            return self.json_groups.index(self.groups[self._group_key(t)]) + 1
        return 0 if kind == "bytes" else -1

    def _envelope_choice(self) -> tuple[dict[str, int], int] | None:
        """(CloudEvents type -> variant, variant of every other type), or ``None``.

        A structured row is parsed ONCE, with the envelope variant its ``type`` selects (read
        before the parse with ``get_json_object``; needed only when there are several), if
        every type selects one variant: no two definitions that a row of one type could
        match have different variants (a definition whose type is a template or absent can
        match a row of any type). Otherwise (or with a definition of variant -1), ``None``:
        envelopes are parsed with ``data`` as text, and their payloads in the payload parse
        stage after the match (see :meth:`route`).
        """
        if any(v < 0 for v in self.variant.values()):
            return None
        ce = [t for t in self.targets if t.ce]
        any_type = {self.variant[t.index] for t in ce if t.literal_type is None}
        if len(any_type) > 1:
            return None
        by_type: dict[str, set[int]] = {}
        for t in ce:
            if t.literal_type is not None:
                by_type.setdefault(t.literal_type, set()).add(self.variant[t.index])
        types: dict[str, int] = {}
        for name, found in by_type.items():
            found = found | any_type
            if len(found) > 1:
                return None
            types[name] = found.pop()
        if any_type:
            return types, any_type.pop()
        # a row of any other type matches no definition: any variant tells its verdict, so
        # the most common one (with one variant nothing is read before the parse)
        counts = collections.Counter(sorted(types.values()))
        return types, counts.most_common(1)[0][0] if counts else 0

    def _group_key(self, t: _Target) -> tuple[str, str]:
        if t.dtype is None:
            return ("bytes", "")
        spec = self.specs.get(t.index)
        if spec is not None:
            return (spec.format, t.dtype.json() + "\0" + _spec_key(spec))
        if t.read is not None:
            return ("json", t.read[0].json() + "\0" + json.dumps(t.read[1]))
        return ("json", t.dtype.json())

    def _memo(self, key: tuple[Any, ...], build: Callable[[], M]) -> M:
        """``build()``, once per ``key`` for this decoder.

        Expressions are unresolved (they name columns; Spark resolves a copy in each plan),
        so the same ones serve every DataFrame with the same column names.
        """
        try:
            found: M = self._built[key]
        except KeyError:
            found = self._built[key] = build()
        return found

    def _envelope_type(self, data: DataType) -> StructType:
        """The envelope as ``from_json`` reads it: attributes as text, ``data`` typed."""
        return StructType(
            [StructField(n, _S) for n in self.attr_names]
            + [StructField("data", data), StructField("data_base64", _S)]
        )

    def _envelope_variants(self) -> list[tuple[int, str, DataType]]:
        """(variant, column, envelope type) of every envelope variant a row can select."""
        if self.envelopes is None:
            return [(0, "_xr_env", self._envelope_type(_S))]
        used = self._used_variants()
        out: list[tuple[int, str, DataType]] = []
        if 0 in used:
            out.append((0, "_xr_env", self._envelope_type(_S)))
        for j, name in enumerate(self.json_groups, 1):
            if j in used:
                data = self._group_type(name)
                out.append((j, f"_xr_q{j}", self._envelope_type(data)))
        return out

    def _used_variants(self) -> set[int]:
        """The envelope variants a structured row can select (:meth:`_envelope_choice`)."""
        if self.envelopes is None:
            return {0}
        types, default = self.envelopes
        return set(types.values()) | {default}

    def _group_type(self, name: str) -> DataType:
        """The payload type of parse group ``name``."""
        for t in self.targets:
            if self.groups[self._group_key(t)] == name and t.parse_dtype is not None:
                return t.parse_dtype
        raise KeyError(name)

    def _attr(self, name: str) -> X:
        return S.col("_xr_a_" + name)

    def _typed_variant(self, t: _Target) -> int:
        """The envelope variant of ``t``'s structured rows when ``data`` is typed, else 0."""
        j = self.variant[t.index]
        return j if t.ce and j > 0 else 0

    def _env_columns(self) -> list[tuple[int, X]]:
        """(variant, parsed envelope column) of each envelope variant."""
        return [(j, S.col(name)) for j, name, _ in self._envelope_variants()]

    def _env_column(self, variant: int) -> X | None:
        """The parsed envelope column of ``variant`` (``None``: no row selects it)."""
        return dict(self._env_columns()).get(variant)

    def _env_attr(self, name: str) -> X:
        """The text of attribute ``name`` in a structured row's envelope (whichever variant)."""
        values = [env["v"][name] for _, env in self._env_columns()]
        return values[0] if len(values) == 1 else S.coalesce(*values)

    def _by_variant(self, pick: Callable[[int, X], X]) -> X:
        """``pick(variant, envelope)`` for the variant a structured row was parsed with."""
        envs = self._env_columns()
        if len(envs) == 1:
            return pick(*envs[0])
        return _case([(S.col("_xr_k") == j, pick(j, env)) for j, env in envs])

    def _variant_of(self, ce_type: X) -> X | None:
        """The envelope variant that a CloudEvents ``type`` selects (:meth:`_envelope_choice`);
        ``None`` when there is one variant (or envelopes are read with ``data`` as text).
        """
        if self.envelopes is None or len(self._used_variants()) == 1:
            return None
        types, default = self.envelopes
        return S.coalesce(_type_lookup(types, ce_type), S.lit(default))


def _spec_key(spec: PayloadSpec) -> str:
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
