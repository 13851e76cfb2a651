"""The decoder: a :class:`.plan.Plan` and the stages built from it (:mod:`.route`,
:mod:`.outputs`), each built once per input column list and reused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from pyspark.sql import DataFrame
from pyspark.sql.types import DataType

from .._definitions import MessageDef
from ..bindings import BINDINGS
from . import binary, outputs, route
from . import names as N
from . import sql as S
from .keep import Keep, keep_rows
from .outputs import Outputs
from .plan import arrow_groups, build_plan, settle_payloads
from .sql import Expr as X
from .targets import PayloadCheck

M = TypeVar("M")

#: ``write(message_id, frame, batch_id)``; ``message_id`` is ``None`` for the dead letters.
Writer = Callable[[str | None, DataFrame, int], None]


class SparkDecoder:
    """Decodes DataFrames of one landing shape into typed per-message DataFrames.

    ``defs``: the package's message definitions in catalog order; ``schemas``: message id ->
    payload Spark type (messages without an entry have opaque ``binary`` data); ``binding``:
    ``kafka``, ``json`` (one string column ``value``), ``amqp``, ``mqtt``, ``nats``, ``http``,
    ``pulsar`` or ``rocketmq`` (the ``LANDING_SCHEMAS``); ``payloads``, ``avro_schemas``,
    ``proto_descriptors``, ``schema_ids``, ``registry``: Avro and Protobuf payloads, see the
    package docstring; ``spark``: the session whose JVM is checked for the connectors
    (default: the active one); ``payload_checks``: message id -> ``(path, values)`` pairs
    that tell tied definitions apart by their payloads (:mod:`.ties`); ``structure_reads``:
    message id -> (wire type as JSON, conversion tree) of a JSON Structure payload
    (:mod:`.structure`).
    """

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
        plan = build_plan(
            defs,
            schemas,
            binding,
            payloads=payloads,
            avro_schemas=avro_schemas,
            proto_descriptors=proto_descriptors,
            schema_ids=schema_ids,
            registry=registry,
            payload_checks=payload_checks,
            structure_reads=structure_reads,
        )
        #: what this decoder decodes and how; replaced (once) when the choice of native
        #: or Arrow payloads waits for a session (:meth:`route`)
        self.plan = settle_payloads(plan, spark, stacklevel=2)
        #: what :meth:`_memo` built, by key
        self._built: dict[tuple[Any, ...], Any] = {}

    def route(self, df: DataFrame) -> DataFrame:
        """The input with the routing columns (``_xr_*``) added; one parse per row.

        The stages (:func:`.route.stages`) are built once per input column list and reused
        (:meth:`_memo`), which every streaming micro-batch would otherwise build again.
        """
        if self.plan.specs and self.plan.payloads is None:
            self.plan = settle_payloads(self.plan, df.sparkSession, stacklevel=2)
        columns = tuple(df.columns)
        built = self._memo(("route", columns), lambda: route.stages(self.plan, columns))
        for stage in built:
            df = self._arrow_step(df) if stage is None else S.apply(df, stage)
        return df

    def split(self, routed: DataFrame) -> tuple[Outputs, DataFrame]:
        """(message id -> typed DataFrame, dead-letter DataFrame) from :meth:`route`'s frame.

        The typed DataFrames are built when first looked up (see :class:`.outputs.Outputs`):
        each is ``where(_xr_m = <its index>)`` on one frame per output shape (the good rows
        with that shape's columns, built once per routed frame): one call into the JVM and
        an analysis as cheap as Spark's for any ``where``.
        """
        plan = self.plan
        columns = tuple(routed.columns)
        shapes: dict[tuple[Any, ...], DataFrame] = {}
        good: list[DataFrame] = []

        def output(message_id: str) -> DataFrame:
            t = plan.by_id[message_id]
            key = outputs.shape(plan, t)
            shape = shapes.get(key)
            if shape is None:
                select = self._memo(key, lambda: outputs.columns(plan, t))
                if not good:
                    good.append(routed.where(outputs.good().sql))
                # the output columns and ``_xr_m``, then the output columns alone: the
                # ``where`` of each output names ``_xr_m``, which Spark finds in the select
                # below the last one, a plain column list (cheap to analyse again)
                full = S.apply(good[0], [*select, S.col(N.MATCH)])
                names = [S.quote(n) for n in full.columns[:-1]]
                shape = shapes[key] = full.selectExpr(*names)
            return shape.where(outputs.of_target(t).sql)

        condition, select = self._memo(("dead", columns), lambda: outputs.dead(columns))
        return Outputs(plan.by_id, output), S.apply(routed.where(condition.sql), select)

    def decode(self, df: DataFrame) -> tuple[Outputs, DataFrame]:
        """:meth:`split` of :meth:`route`: lazy frames (see the package docstring on
        performance)."""
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
                found, dead = self.split(routed)
                if write_empty:  # every id is written: no scan for the present ones
                    ids, any_dead = list(found), True
                else:
                    present, any_dead = self._present(routed)
                    by_id = self.plan.by_id
                    ids = [m for m, t in by_id.items() if t.index in present]
                for message_id in ids:
                    write(message_id, found[message_id], batch_id)
                if any_dead:
                    write(None, dead, batch_id)
            finally:
                release()

        return run

    def _kept(
        self, routed: DataFrame, keep: Keep = "checkpoint"
    ) -> tuple[DataFrame, Callable[[], None]]:
        """``routed`` computed once for the outputs of a batch: (frame, release); how the
        rows are kept: :mod:`.keep`."""
        return keep_rows(self._cacheable(routed), keep)

    def _present(self, routed: DataFrame) -> tuple[set[int], bool]:
        """(the target indexes of the good rows, whether there are dead letters) of a
        routed frame; on a persisted frame (``keep="cache"``) this job fills the cache.
        """
        good = outputs.good()
        m = S.fn("collect_set", S.when(good, S.col(N.MATCH))).alias("m")
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
        lineage = self.plan.wire.lineage

        def build() -> list[X]:
            bad = S.col(N.ERROR).isNotNull()
            return [
                (
                    S.col(c)
                    if c.startswith(N.PREFIX) or c in lineage
                    else S.when(bad, S.col(c)).alias(c)
                )
                for c in columns
            ]

        return S.apply(routed, self._memo(("cacheable", columns), build))

    def _arrow_step(self, df: DataFrame) -> DataFrame:
        """``df`` with one decoded column per Arrow group (:func:`.binary.arrow_step`)."""
        groups = arrow_groups(self.plan)
        schema, types = self._memo(
            ("arrow", tuple(df.columns)), lambda: binary.step_types(groups, df.schema)
        )
        return binary.arrow_step(df, groups, schema, types)

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


#: a landing shape's decoder: ``decode(df, defs, schemas, **options)``
Decode = Callable[..., tuple[Outputs, DataFrame]]


def _decoder(binding: str) -> Decode:
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


#: the decoder of each landing shape by its public name: ``decode_json`` and every declared
#: binding's (``BindingSpec.decoder``), also attributes of this module
DECODERS: dict[str, Decode] = {
    "decode_json": _decoder("json"),
    **{b.decoder: _decoder(name) for name, b in BINDINGS.items()},
}
globals().update(DECODERS)
if TYPE_CHECKING:
    decode_json: Decode
    decode_kafka: Decode
    decode_amqp: Decode
    decode_mqtt: Decode
    decode_nats: Decode
    decode_http: Decode
    decode_pulsar: Decode
    decode_rocketmq: Decode
