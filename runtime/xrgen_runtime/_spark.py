"""Spark decoders of a generated xrgen package: CloudEvents rows -> typed DataFrames.

The generated ``spark.py`` holds the package's schemas (``SCHEMAS``, ``EVENT_SCHEMAS``) and its
``MessageDef`` tuple and calls the generic engine here. Everything is a native Spark column
expression (no Python UDF, no pandas UDF), so the same code runs in batch and in Structured
Streaming, on any Spark >= 4.0 cluster (``try_*`` functions and ANSI-safe expressions only).

What runs where:

- JSON payloads (``datacontenttype`` JSON or absent, whatever the schema format):
  ``from_json`` against the payload type. Runs everywhere, including plain local Spark.
- Avro binary and Protobuf payloads (a definition whose content type is Avro binary or
  Protobuf, with its Avro schema in ``avro_schemas`` / its descriptor set in
  ``proto_descriptors``): ``payloads="native"`` reads them with ``from_avro`` /
  ``from_protobuf`` (options ``mode=PERMISSIVE``, and ``emit.default.values=true`` so that
  proto3 scalars read as their defaults, as the Python codec reads them), which need Spark's
  connector packages on the cluster (``--packages org.apache.spark:spark-avro_2.13:<version>``
  / ``spark-protobuf_2.13``); ``payloads="arrow"`` decodes them with an Arrow UDF per
  payload type (``_spark_payloads``: Python on the executors, no connector; only the matched
  definition and the payload bytes cross into Python, and JSON rows as nulls; PySpark 4.0,
  without ``arrow_udf``, gets a ``mapInArrow`` step that carries every column);
  ``payloads="auto"`` (the
  default) checks the JVM for the connectors when the decoder is built (or at its first
  ``route`` when no SparkSession is active yet) and uses the native path when every needed
  one is there, else the Arrow path with a ``RuntimeWarning`` naming the missing package;
  ``native`` without a connector raises ``RuntimeError`` there; ``payloads="off"`` decodes
  none (such rows are dead-lettered: ``validation-error``, ``unsupported-format``) and keeps
  the decoder JVM-only. Both paths give the payload's
  Spark type (``SCHEMAS``); bytes that do not decode (a bad framing header or fingerprint,
  truncated or foreign bytes) are dead-lettered (``validation-error``, ``invalid payload``);
  with ``from_avro`` so is a record whose fields are all null (how PERMISSIVE ``from_avro``
  reports unreadable bytes), and trailing bytes after a record go unnoticed (the Arrow path
  rejects them). Avro framing is the package codec's (``plain``, ``single-object``: header
  stripped and fingerprint checked, ``confluent``: magic byte checked and the 5-byte header
  stripped). For Confluent framing, ``schema_ids`` (message id -> ids) or ``registry`` (a
  schema registry client asked once, at build, with ``lookup_schema`` under the codec's
  subjects) give the ids whose writer schema is the catalog's: the id then routes the row
  (a row of another id matches no definition); without ids any id is read with the
  catalog's schema. Structured events carry the bytes as ``data_base64``.

Pipeline (:meth:`SparkDecoder.route`), one pass over the input, each row parsed ONCE:

1. content mode (structured when the content type starts with ``application/cloudevents``,
   case-insensitive); binary rows read the binding's attribute headers / properties;
   structured rows parse the envelope with ``from_json`` (attributes as canonical strings;
   ``data`` typed with the payload type that the event's ``type`` selects, or as raw JSON
   text, see :meth:`SparkDecoder._envelope_choice`);
2. match (most specific first, as in the dispatcher: bound to the wire's protocol, then more
   constants and templates, then more constants, then catalog order; the first match wins):
   ``type`` constant, constant attributes, uritemplate attributes (Java regexes built from
   ``UriTemplate``), required attributes, ``datacontenttype`` constant, and protocol options
   of the decoded binding;
3. the payload of each row is parsed with the payload type of its matched definition only
   (rows of definitions with the same type share one ``from_json``; for a typed envelope,
   that was its parse), in PERMISSIVE mode with a corrupt-record field: bad JSON or a value
   of the wrong type dead-letters the row, and so does a missing required field (from the
   payload type's non-nullable fields);
4. definitions whose match conditions are equal (tied: the match gives the first of them)
   are told apart by their payloads, as the dispatcher does: the row is parsed with the type
   of each and goes to the first that accepts its payload, with the ``const`` / ``enum``
   values the generated ``PAYLOAD_CHECKS`` lists (``_spark_ties``);
5. one error struct per row: ``None`` when the row is good.

:meth:`SparkDecoder.split` turns the routed frame into one DataFrame per message id (columns:
the event's attributes by wire name, typed; ``data`` as the payload struct; ``params`` with
the uritemplate placeholder values when the message has placeholders; lineage columns of the
binding, e.g. ``topic``, ``partition``, ``offset``, ``timestamp`` for Kafka; a lineage column
whose name an attribute already uses gets a ``_`` prefix) and one dead-letter DataFrame (the
input columns plus ``reason`` and ``detail``). Every input row is in exactly one of them.

Dead-letter reasons are the dispatcher's: ``decode-error`` (detail ``invalid-json``,
``invalid-encoding`` for a bad percent-escape or invalid UTF-8 in a NATS/HTTP attribute
header, ``missing-attribute: <name>``, ``invalid-specversion``, ``invalid-attribute: <name>``,
``unsupported-format``), ``unknown-type``, ``no-match``, ``validation-error`` (detail
``unsupported-format``, ``no data``, ``invalid payload`` or ``missing field: <path>``).

Differences from the Python dispatcher: the payload is checked against the FIRST matching
definition only, except among tied definitions with JSON or opaque payloads (step 4), where
Spark's checks of a payload are its type, its required fields and the ``PAYLOAD_CHECKS``
values (the models also check formats, bounds and the values of optional members); each
uritemplate is read on its own (leftmost-shortest, as the dispatcher reads one template)
and a placeholder used in several templates takes the value of the first of them (the
dispatcher requires the values to agree, reading the least ambiguous template first); Kafka
header names are matched exactly (``ce_`` lower case, ``content-type``); the first of
repeated headers wins; ``from_json`` converts a JSON number or boolean found
where a string is declared into its text (so a JSON Structure ``int64`` or ``decimal`` written
as a JSON number is read, where the dispatcher wants the string JSON Structure writes;
``_spark_structure`` converts the other JSON Structure types as the models check them); when an envelope is parsed with ``data`` as text
(see :meth:`SparkDecoder._envelope_choice`), a ``data`` that is a JSON string is
read as the text of that string (the dispatcher validates the string itself, so a payload that
was JSON-encoded twice is dead-lettered there and decoded here); an envelope with two ``type``
members that select different envelope variants is dead-lettered (``decode-error``,
``duplicate-attribute: type``; the dispatcher takes the last one); a payload or envelope followed
by text that goes on with object members (``{"a":1},"b":2``) is read as the value before it
(``_wrapped``: other text after a value is rejected). ``decode_json`` rows carry no protocol,
so options are not checked there.

Performance: without keeping the routed rows, every output DataFrame re-runs the pipeline over
its source (correct, but N outputs cost N passes). Write all outputs of one input with
:meth:`SparkDecoder.foreach_batch` (streaming ``foreachBatch`` or a batch DataFrame): it routes
the batch once into a local checkpoint (:meth:`SparkDecoder._kept`: the rows in the block
manager, memory then disk, and no routing plan in the lineage of the output jobs), learns in
one scan which outputs have rows, writes those (and the dead letters, if any), and releases the
rows. A catalog of 1,100 definitions thus costs a Spark job per output present, not per
definition. Outputs are built on first lookup (:class:`Outputs`) and a decoder builds the
columns of outputs of the same shape once. How the routing plan is laid out for Spark's
optimizer: :meth:`SparkDecoder.route`. Input columns that only the dead letters read are nulled
on good rows before they are kept (:meth:`SparkDecoder._cacheable`). Definitions with identical
checks share one error branch, and definitions that differ only in their CloudEvents ``type``
share one match branch that looks the type up in a map (:meth:`SparkDecoder._match`): code
generated per definition would make the routing stage's method too big for the JVM to
compile.

Building: the expressions are SQL text (``_spark_sql``), one ``selectExpr`` call into the JVM
per stage, where ``Column`` objects cost several calls per operation (PySpark 4 records each
one's call site: ~14,000 calls for the routing of 1,100 definitions, now about 130). Each
output is one ``where`` on a frame selected once per output shape (:meth:`SparkDecoder.split`),
as cheap to build as any ``where``. A decoder builds its expressions once per input column
list and reuses them on every later call: keep one decoder per stream (the generated
``decoder()`` does).

Where things are: ``_spark_sql`` (SQL text, the only way catalog text reaches it),
``_spark_columns`` (shared expression helpers), ``_spark_wires`` (landing schemas and how each
shape is read), ``_spark_targets`` (definitions compiled for matching, uritemplates as Java
regexes), ``_spark_plan`` (payload parse groups, envelope variants, native or Arrow payloads),
``_spark_parse`` (envelopes and payloads), ``_spark_routing`` (the match), ``_spark_errors``
(dead-letter reasons), ``_spark_ties`` (tied definitions told apart by their payloads),
``_spark_outputs`` (``split``: the typed outputs and the dead letters),
``_spark_payloads`` (Avro / Protobuf: connector check, Arrow decode), ``_spark_check`` (the
native path checked against the Arrow path on a cluster), ``_spark_keep`` (how
``foreach_batch`` keeps a batch's routed rows); this module holds the stages and the entry
points.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql.types import DataType

from . import _spark_sql as S
from ._definitions import MessageDef
from ._spark_columns import (
    _CORRUPT,
    _S,
    _isin_indexes,
    _parse_wrapped,
    _text,
    _wrapped,
)
from ._spark_errors import (
    DECODE_ERROR,
    NO_MATCH,
    UNKNOWN_TYPE,
    VALIDATION_ERROR,
)
from ._spark_keep import Keep, keep_rows
from ._spark_outputs import Outputs, _apply, _Split
from ._spark_parse import parse_type
from ._spark_plan import PAYLOAD_MODES
from ._spark_sql import Expr as X
from ._spark_targets import (
    template_regex,
)
from ._spark_wires import LANDING_SCHEMAS

__all__ = [
    "DECODE_ERROR",
    "LANDING_SCHEMAS",
    "NO_MATCH",
    "PAYLOAD_MODES",
    "Outputs",
    "SparkDecoder",
    "UNKNOWN_TYPE",
    "VALIDATION_ERROR",
    "Writer",
    "decode_amqp",
    "decode_http",
    "decode_json",
    "decode_kafka",
    "decode_mqtt",
    "decode_nats",
    "decode_pulsar",
    "decode_rocketmq",
    "parse_type",
    "template_regex",
]

#: ``write(message_id, frame, batch_id)``; ``message_id`` is ``None`` for the dead letters.
Writer = Callable[[str | None, DataFrame, int], None]


class SparkDecoder(_Split):
    """Decodes DataFrames of one landing shape into typed per-message DataFrames.

    ``defs``: the package's message definitions in catalog order; ``schemas``: message id ->
    payload Spark type (messages without an entry have opaque ``binary`` data); ``binding``:
    ``kafka``, ``json`` (one string column ``value``), ``amqp``, ``mqtt``, ``nats``, ``http``,
    ``pulsar`` or ``rocketmq`` (the :data:`LANDING_SCHEMAS`); ``payloads``, ``avro_schemas``,
    ``proto_descriptors``, ``schema_ids``, ``registry``: Avro and Protobuf payloads, see the
    module docstring; ``spark``: the session whose JVM is checked for the connectors
    (default: the active one); ``payload_checks``: message id -> ``(path, values)`` pairs
    that tell tied definitions apart by their payloads (``_spark_ties``).
    """

    def route(self, df: DataFrame) -> DataFrame:
        """The input with the routing columns (``_xr_*``) added; one parse per row.

        The plan alternates code-generated stages with the two ``from_json`` projections
        (Spark runs a projection holding ``from_json`` outside whole-stage code generation,
        so nothing else is put in it):

        1. lookups: binary-mode attributes, options, content mode (generated code);
        2. the envelope ``from_json`` of structured rows, with ``data`` typed by the
           envelope variant that the event's ``type`` selects (:meth:`_envelope_choice`;
           read with ``get_json_object`` first when there are several), else as text;
        3. attributes, match, typed attributes, every error known before the payload parse
           (``_xr_e0``) and the payload text (generated code);
        4. the payload ``from_json`` of matched rows without an error so far (binary rows,
           ``data_base64``, ``data`` read as text), and a second envelope parse, with
           ``data`` as text, of the rows whose typed ``data`` did not fit (``_xr_rp``: is
           the envelope valid JSON? see :meth:`_env_ok`);
        5. payload errors and the final error ``_xr_e`` (generated code).

        A typed envelope is one parse for a structured row where text ``data`` needs two.
        Binary payloads are parsed in step 4, not beside the envelope in step 2 (where the
        match of a binary row could be known): steps 3 to 5 would then form one generated
        method over the JVM's 8,000-byte limit for compiling it. Step 1 is a stage of its
        own: merged into the envelope projection it would save binary rows one row copy but
        evaluate the envelope's wrapped text row by row without code generation, with no
        net gain in either content mode (``bench_spark.py --only-modes``).

        ``spark_partition_id()`` (never negative) is nondeterministic: the columns ``_xr_g``
        and ``_xr_b``, referenced by each later stage, keep Spark's optimizer from merging a
        ``from_json`` projection with its neighbours, and the guard of the final error keeps
        the output filters above the last stage (see the comment there).

        The column expressions are built once per input column list and reused (see
        :meth:`_memo`), which every streaming micro-batch would otherwise build again.
        """
        if self.specs and self.payloads is None:
            self._choose_payloads(df.sparkSession)
        key = ("route", tuple(df.columns))
        columns = tuple(df.columns)
        for stage in self._memo(key, lambda: self._route_stages(columns)):
            df = self._arrow_step(df) if stage is None else _apply(df, stage)
        return df

    def _route_stages(self, columns: tuple[str, ...]) -> list[list[Any] | None]:
        """The ``select`` lists of :meth:`route` for inputs with ``columns``; ``None``
        stands for the ``mapInArrow`` step of Arrow-decoded payloads without ``arrow_udf``
        (:meth:`_arrow_step`).
        """
        wire = self.wire
        # every binary-mode attribute is read unconditionally (so that Spark shares the
        # header key array between the lookups)
        raw = [
            (
                wire.datacontenttype() if n == "datacontenttype" else wire.attribute(n)
            ).alias("_xr_h_" + n)
            for n in self.attr_names
        ]
        structured = wire.structured()
        text = _text(S.col(wire.payload))
        invalid = wire.attribute_invalid(self.attr_names)
        checks = [] if invalid is None else [(~structured & invalid).alias("_xr_x")]
        carried = ["_xr_x"] if invalid is not None else []
        # the envelope variant of structured rows; with several, from the ``type`` text read
        # without checks (the parse decides whether the row is JSON; a row whose strict
        # ``type`` selects another variant is dead-lettered, see ``_error_before_parse``)
        variant = self._variant_of(S.fn("get_json_object", text, "$.type"))
        if variant is None:
            variant = S.lit(self.envelopes[1] if self.envelopes is not None else 0)
        options = self._option_map()
        # the wrapped envelope text of structured rows, computed in this code-generated
        # stage: inside ``from_json`` (no code generation) its expressions would be
        # interpreted row by row
        lookups: list[Any] = [
            "*",
            S.fn("spark_partition_id").alias("_xr_g"),
            structured.alias("_xr_s"),
            S.when(structured, _wrapped(text)).alias("_xr_w"),
            *raw,
            *checks,
            *(col.alias(name) for name, col in options.items()),
        ]
        s = S.col("_xr_s")
        parse = s & (S.col("_xr_g") >= 0)
        variants = self._envelope_variants()
        stage1: list[Any] = [
            "*",
            S.when(s, variant).alias("_xr_k"),
            *(
                S.when(
                    parse & (S.col("_xr_k") == j), _parse_wrapped(S.col("_xr_w"), t)
                ).alias(name)
                for j, name, t in variants
            ),
        ]
        attrs = [
            S.when(s, self._env_attr(n))
            .otherwise(S.col("_xr_h_" + n))
            .alias("_xr_a_" + n)
            for n in self.attr_names
        ]
        envelopes = [name for _, name, _ in variants]
        kept = [*columns, "_xr_g", "_xr_s", "_xr_k", *envelopes, *carried]
        stage2: list[Any] = [*map(S.col, kept), *attrs, *map(S.col, options)]
        flags: list[Any] = [
            "*",
            self._is_ce().alias("_xr_ce"),
            self._ce_ok().alias("_xr_ce_ok"),
        ]
        guard = S.col("_xr_g") >= 0
        match = S.when(guard, self._match()).alias("_xr_m")
        typed = self._typed_columns()
        stage3: list[Any] = ["*", match, *(c.alias(n) for n, c in typed.items())]
        # the wrapped payload text, computed in a code-generated stage (see ``_xr_w``)
        text_of_matched = S.when(
            S.col("_xr_m").isNotNull(), _wrapped(self._data_text())
        )
        # a typed envelope's ``data`` and whether the envelope was corrupt: what later stages
        # read of it (copying the whole envelope through them costs more). Nondeterministic
        # (``spark_partition_id()``): Spark infers no constraints from these aliases. As
        # plain field reads, each occurring in the constraints inferred below, every alias
        # doubled the constraint set (2^variants; tests/spark/test_plan_size.py)
        typed_envs = [(j, name) for j, name, _ in variants if j > 0]
        once = S.fn("spark_partition_id") >= 0
        taken = [
            x
            for j, name in typed_envs
            for x in (
                S.when(once, S.col(name)["v"]["data"]).alias(f"_xr_d{j}"),
                S.when(once, S.col(name)[_CORRUPT].isNotNull()).alias(f"_xr_c{j}"),
            )
        ]
        stage4: list[Any] = [
            "*",
            self._error_before_parse().alias("_xr_e0"),
            text_of_matched.alias("_xr_txt"),
            self._recheck().alias("_xr_rc"),
            S.fn("spark_partition_id").alias("_xr_b"),
            *taken,
        ]
        names = [
            *kept,
            *("_xr_a_" + n for n in self.attr_names),
            *options,
            "_xr_ce",
            "_xr_ce_ok",
            "_xr_m",
            *typed,
            "_xr_e0",
            "_xr_txt",
            "_xr_rc",
            "_xr_b",
            *(f"_xr_{k}{j}" for j, _ in typed_envs for k in "dc"),
        ]
        arrow = self._arrow_groups()
        if arrow:
            # the payload bytes of the rows decoded over Arrow
            indexes = sorted({i for _, ix, _ in arrow for i in ix})
            wanted = _isin_indexes("_xr_m", indexes) & S.col("_xr_e0").isNull()
            stage4.append(S.when(wanted, self._data_bytes()).alias("_xr_bin"))
            names.append("_xr_bin")
            if not self.arrow_udf:  # the columns the ``mapInArrow`` step adds
                names += [name for name, _, _ in arrow]
        guard = (S.col("_xr_b") >= 0) & S.col("_xr_e0").isNull()
        parsed = self._parse_columns(guard)
        names = [n for n in names if n not in {name for _, name in typed_envs}]
        stage5: list[Any] = [*map(S.col, names), *(c for _, c in parsed)]
        names += [name for name, _ in parsed]
        if self.envelopes is not None:
            # the rows whose typed ``data`` did not fit, parsed again with ``data`` as text:
            # is the envelope valid JSON? (see ``_env_ok``)
            again = S.col("_xr_rc") & (S.col("_xr_b") >= 0)
            envelope = _parse_wrapped(_wrapped(text), self._envelope_type(_S))
            stage5.append(S.when(again, envelope).alias("_xr_rp"))
            names.append("_xr_rp")
        drop = {"_xr_ce", "_xr_ce_ok", "_xr_b", "_xr_txt", "_xr_e0", "_xr_x", "_xr_bin"}
        if self.envelopes is None:
            drop |= {"_xr_s", "_xr_k", *envelopes, "_xr_rc"}
        keep = [S.col(c) for c in names if c not in drop]
        # ``spark_partition_id()`` keeps the output filters (on ``_xr_e``) above this stage, so
        # the error is computed once, here. Pushed below it, a filter would carry the error
        # expression itself: Spark then infers a second copy of it from the ``_xr_m`` test
        # beside it (two evaluations per good row and twice the generated code), and pushed
        # further it would inline the payload parse into the filter and evaluate it twice
        error = S.when(S.fn("spark_partition_id") >= 0, self._error())
        final: list[Any] = [*keep, error.alias("_xr_e")]
        out: list[list[Any] | None] = [
            lookups,
            stage1,
            stage2,
            flags,
            stage3,
            stage4,
            stage5,
            final,
        ]
        # the payloads choose among tied definitions
        for tie in self._tie_stages(names):
            out.insert(len(out) - 1, tie)
        if arrow and not self.arrow_udf:
            out.insert(6, None)
        return out

    def decode(self, df: DataFrame) -> tuple[Outputs, DataFrame]:
        """:meth:`split` of :meth:`route`: lazy frames (see the module note on performance)."""
        return self.split(self.route(df))

    def foreach_batch(
        self,
        write: Writer,
        *,
        write_empty: bool = False,
        keep: Keep = "checkpoint",
    ) -> Callable[[DataFrame, int], None]:
        """A ``foreachBatch`` function: route once (rows kept), write the outputs, release.

        ``write(message_id, frame, batch_id)`` is called once per message id that has rows in
        the batch, in catalog order, then once with ``None`` for the dead letters when there
        are any; with ``write_empty=True``, for every message id and the dead letters, empty
        frames included. Which outputs have rows is read in one scan of the kept rows, so a
        catalog of 1,100 definitions costs a Spark job per output present, not per
        definition. Also usable on a batch DataFrame: ``decoder.foreach_batch(write)(df, 0)``.

        ``keep`` is how the routed rows are kept for the outputs (:meth:`_kept`):
        ``"checkpoint"`` (a local checkpoint: the cheapest output jobs, but no lineage, so the
        batch fails if an executor holding kept rows is lost while it is written) or
        ``"cache"`` (persisted: lost blocks are recomputed, each output job costs more).
        """
        if keep not in ("checkpoint", "cache"):
            raise ValueError(f"keep must be 'checkpoint' or 'cache', not {keep!r}")

        def run(batch: DataFrame, batch_id: int) -> None:
            routed, release = self._kept(self.route(batch), keep)
            try:
                outputs, dead = self.split(routed)
                if write_empty:  # every id is written: no scan for the present ones
                    ids, any_dead = list(outputs), True
                else:
                    present, any_dead = self._present(routed)
                    ids = [m for m, t in self._by_id.items() if t.index in present]
                for message_id in ids:
                    write(message_id, outputs[message_id], batch_id)
                if any_dead:
                    write(None, dead, batch_id)
            finally:
                release()

        return run

    def _kept(
        self, routed: DataFrame, keep: Keep = "checkpoint"
    ) -> tuple[DataFrame, Callable[[], None]]:
        """``routed`` computed once for the outputs of a batch: (frame, release); how the
        rows are kept: :mod:`._spark_keep`."""
        return keep_rows(self._cacheable(routed), keep)

    def _present(self, routed: DataFrame) -> tuple[set[int], bool]:
        """(the target indexes of the good rows, whether there are dead letters) of a
        routed frame; on a persisted frame (``keep="cache"``) this job fills the cache.
        """
        good = self._good()
        m = S.fn("collect_set", S.when(good, S.col("_xr_m"))).alias("m")
        dead = S.coalesce(S.fn("max", ~good), False).alias("dead")
        row = routed.selectExpr(m.sql, dead.sql).head()
        assert row is not None  # a global aggregate has one row
        return set(row["m"]), bool(row["dead"])

    def _cacheable(self, routed: DataFrame) -> DataFrame:
        """``routed`` made cheap to keep and to read back once per output: input columns
        that only the dead letters need (all but the binding's lineage) are kept for bad
        rows only (a ``NULL`` has no variable-length part, and compresses to nothing in the
        columnar cache)."""
        columns = tuple(routed.columns)

        def build() -> list[X]:
            bad = S.col("_xr_e").isNotNull()
            return [
                (
                    S.col(c)
                    if c.startswith("_xr_") or c in self.wire.lineage
                    else S.when(bad, S.col(c)).alias(c)
                )
                for c in columns
            ]

        select = self._memo(("cacheable", columns), build)
        return _apply(routed, select)


# ---------------------------------------------------------------------------------------------
# Module-level decoders (what the generated spark.py calls)
# ---------------------------------------------------------------------------------------------


def _decoder(binding: str) -> Callable[..., tuple[Outputs, DataFrame]]:
    def decode(
        df: DataFrame,
        defs: Sequence[MessageDef],
        schemas: Mapping[str, DataType],
        **options: Any,
    ) -> tuple[Outputs, DataFrame]:
        return SparkDecoder(defs, schemas, binding, **options).decode(df)

    decode.__name__ = f"decode_{binding}"
    decode.__doc__ = (
        f"Decode a DataFrame of the ``{binding}`` landing shape: "
        "(message id -> typed DataFrame, dead-letter DataFrame)."
    )
    return decode


decode_kafka = _decoder("kafka")


decode_json = _decoder("json")


decode_amqp = _decoder("amqp")


decode_mqtt = _decoder("mqtt")


decode_nats = _decoder("nats")


decode_http = _decoder("http")


decode_pulsar = _decoder("pulsar")


decode_rocketmq = _decoder("rocketmq")
