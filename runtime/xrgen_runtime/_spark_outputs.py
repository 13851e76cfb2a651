"""The frames a Spark decoder hands out: one typed DataFrame per message id (built when
first looked up, :class:`Outputs`) and the dead letters, from a routed frame.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from pyspark.sql import DataFrame

from . import _spark_sql as S
from ._spark_columns import _pct_decoded
from ._spark_sql import Expr as X
from ._spark_targets import _CORE, _CORE_KINDS, _TRACING, _TYPED_KINDS, _Target
from ._spark_ties import _Ties


class Outputs(Mapping[str, DataFrame]):
    """Message id -> typed DataFrame of one routed frame, in catalog order.

    Each DataFrame is built when first looked up, then kept: building one takes calls into
    the JVM (about 7 ms), which for a catalog of 1,100 definitions made every ``split`` cost
    7.5 s when only a few outputs were read.
    """

    __slots__ = ("_ids", "_build", "_frames")

    def __init__(self, ids: Iterable[str], build: Callable[[str], DataFrame]) -> None:
        self._ids = dict.fromkeys(ids)  # ordered, with O(1) membership
        self._build = build
        self._frames: dict[str, DataFrame] = {}

    def __getitem__(self, message_id: str) -> DataFrame:
        frame = self._frames.get(message_id)
        if frame is None:
            if message_id not in self._ids:
                raise KeyError(message_id)
            frame = self._frames[message_id] = self._build(message_id)
        return frame

    def __contains__(self, message_id: object) -> bool:
        return message_id in self._ids  # without building the DataFrame

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def __repr__(self) -> str:
        return f"Outputs({list(self._ids)!r})"


class _Split(_Ties):
    """:meth:`split`: a routed frame's typed outputs and dead letters."""

    def split(self, routed: DataFrame) -> tuple[Outputs, DataFrame]:
        """(message id -> typed DataFrame, dead-letter DataFrame) from :meth:`route`'s frame.

        The typed DataFrames are built when first looked up (see :class:`Outputs`): each is
        ``where(_xr_m = <its index>)`` on one frame per output shape (the good rows with
        that shape's columns, built once per routed frame): one call into the JVM and an
        analysis as cheap as Spark's for any ``where``.
        """
        columns = tuple(routed.columns)
        shapes: dict[tuple[Any, ...], DataFrame] = {}
        good: list[DataFrame] = []

        def output(message_id: str) -> DataFrame:
            t = self._by_id[message_id]
            key, select = self._output_columns(t)
            shape = shapes.get(key)
            if shape is None:
                if not good:
                    good.append(routed.where(self._good().sql))
                # the output columns and ``_xr_m``, then the output columns alone: the
                # ``where`` of each output names ``_xr_m``, which Spark finds in the select
                # below the last one, a plain column list (cheap to analyse again)
                full = _apply(good[0], [*select, S.col("_xr_m")])
                names = [S.quote(n) for n in full.columns[:-1]]
                shape = shapes[key] = full.selectExpr(*names)
            return shape.where(self._output_filter(t).sql)

        condition, select = self._memo(("dead", columns), lambda: self._dead(columns))
        return Outputs(self._by_id, output), _apply(routed.where(condition.sql), select)

    def _output_filter(self, t: _Target) -> X:
        """The rows of ``t``'s output among the good rows of its shape."""
        return S.col("_xr_m") == t.index

    def _good(self) -> X:
        """Whether a routed row is good (it has no error): it lands in a typed output."""
        return S.col("_xr_e").isNull()

    def _dead(self, columns: tuple[str, ...]) -> tuple[X, list[X]]:
        """(filter, select list) of the dead letters of a routed frame with ``columns``."""
        dead = [S.col(c) for c in columns if not c.startswith("_xr_")]
        dead += [self._attr(n).alias(n) for n in _TRACING if n not in columns]
        dead += [
            S.col("_xr_e")["reason"].alias("reason"),
            S.col("_xr_e")["detail"].alias("detail"),
        ]
        return ~self._good(), dead

    def _output_columns(self, t: _Target) -> tuple[tuple[Any, ...], list[X]]:
        """(shape key, select list) of ``t``'s output; targets of the same shape share one."""
        attrs = tuple(
            (name, _CORE_KINDS.get(name) or t.kinds.get(name, "string"))
            for name in dict.fromkeys(_CORE + tuple(t.kinds) + _TRACING)
        )
        key = (
            "output",
            attrs,
            t.dtype is None,
            self._payload_key(t),
            tuple(t.templates),
        )
        return key, self._memo(key, lambda: self._build_output_columns(t, attrs))

    def _build_output_columns(
        self, t: _Target, attrs: tuple[tuple[str, str], ...]
    ) -> list[X]:
        cols: list[X] = []
        names: list[str] = []
        for name, kind in attrs:
            if kind in _TYPED_KINDS:
                cols.append(S.col(f"_xr_t_{name}_{kind}").alias(name))
            else:
                cols.append(self._attr(name).alias(name))
            names.append(name)
        if t.dtype is None:
            data = S.col(self.groups[self._group_key(t)])
        else:
            data = self._payload(t)[0]
        cols.append(data.alias("data"))
        names.append("data")
        if t.placeholders:
            cols.append(self._params(t).alias("params"))
            names.append("params")
        for name in self.wire.lineage:
            cols.append(S.col(name).alias("_" + name if name in names else name))
        return cols

    def _params(self, t: _Target) -> X:
        """The struct of ``t``'s placeholder values (percent-decoded), one per template set."""
        key = ("params", tuple(t.templates))
        return self._memo(key, lambda: self._build_params(t))

    def _build_params(self, t: _Target) -> X:
        fields: dict[str, X] = {}
        for ref, regex, names in t.templates:
            src = self._source(ref)
            if src is None:
                continue
            for i, name in enumerate(names):
                if name not in fields:
                    raw = S.fn("regexp_extract", src, regex, i + 1)
                    fields[name] = _pct_decoded(raw)
        return S.named_struct(list(fields.items()))


def _apply(df: DataFrame, select: Sequence[Any]) -> DataFrame:
    """``df`` with the ``select`` list (``"*"``, :class:`Expr` or, for the native Avro /
    Protobuf expressions, ``Column``): one call into the JVM when all are SQL text."""
    if all(isinstance(c, (str, X)) for c in select):
        return df.selectExpr(*(c if isinstance(c, str) else c.sql for c in select))
    from pyspark.sql import functions as F

    return df.select(
        *(
            c if isinstance(c, str) else F.expr(c.sql) if isinstance(c, X) else c
            for c in select
        )
    )
