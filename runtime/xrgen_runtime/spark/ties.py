"""Definitions that the match cannot tell apart, routed by their payloads, as the dispatcher
routes them: the first of them (most specific first, then catalog order) whose payload is
accepted takes the row.

The match gives a row of such a run (``Plan.ties``: targets with equal match conditions,
next to each other in match order) the index of the first of the run. The payload parse
stage parses the row with the payload type of every member (``payload.parse_columns``), and
the stages after it (:func:`stages`) replace ``_xr_m`` with the first member that
accepts the payload: no payload error (``from_json`` and the required fields, as for any
row) and, where the generated ``spark.py`` lists them (``PAYLOAD_CHECKS``: the ``const`` /
``enum`` values of required payload members of tied definitions), those values. When no
member accepts it, the row stays with the first one and is dead-lettered with its payload
error, or ``validation-error`` / ``invalid payload`` when only the checks failed, as the
dispatcher reports the first candidate's (``errors.final``). The outputs and errors then
follow the chosen index. A decoder without such runs has no extra stage.

Runs are made of JSON and opaque payloads only: tied Avro or Protobuf payloads go to the
first definition, as the match gives them. A run ends at a definition with other conditions,
even where the next one is tied with it again (the dispatcher would try that one in between).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pyspark.sql.types import (
    BooleanType,
    ByteType,
    DataType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    ShortType,
    StringType,
    StructType,
)

from . import errors, payload
from . import names as N
from . import sql as S
from .columns import case, isin_indexes
from .plan import Plan
from .sql import Expr as X
from .targets import Target

_INTEGERS = (ByteType, ShortType, IntegerType, LongType)
_FLOATS = (FloatType, DoubleType)


def stages(plan: Plan, names: Sequence[str]) -> list[list[X]]:
    """The ``select`` lists that set ``_xr_m`` to the chosen member of each run and
    ``_xr_tn`` (no member accepts the payload) on the columns ``names``; none without
    runs."""
    if not plan.ties:
        return []
    choose = [*map(S.col, names), _choice(plan).alias(N.TIE_CHOICE)]
    chosen = S.col(N.TIE_CHOICE)
    first = isin_indexes(N.MATCH, [run[0].index for run in plan.ties])
    settle = [
        *(S.col(n) for n in names if n != N.MATCH),
        S.coalesce(chosen, S.col(N.MATCH)).alias(N.MATCH),
        (first & chosen.isNull()).alias(N.TIE_NONE),
    ]
    return [choose, settle]


def _choice(plan: Plan) -> X:
    """The index of the first member of its run that accepts a row's payload (``NULL``:
    none does, or the row is in no run)."""
    return case(
        [
            (
                S.col(N.MATCH) == run[0].index,
                case([(_accepts(plan, t), S.lit(t.index)) for t in run]),
            )
            for run in plan.ties
        ]
    )


def _accepts(plan: Plan, t: Target) -> X:
    """Whether ``t`` takes a row of its run: no payload error, and its checks hold."""
    ok = errors.of_payload(plan, t).isNull()
    if t.dtype is not None:
        value = payload.value(plan, t)[0]
        for path, values in plan.payload_checks.get(t.defn.id, ()):
            ok = ok & _holds(value, t.dtype, path, values)
    return S.coalesce(ok, S.lit(False))


def _holds(value: X, dtype: DataType, path: Sequence[str], values: Sequence[Any]) -> X:
    """Whether the member at ``path`` of a parsed payload ``value`` is one of ``values``
    (read as its Spark type holds them); true when the type has no such member."""
    for name in path:
        if not isinstance(dtype, StructType) or name not in dtype.names:
            return S.lit(True)
        dtype = dtype[name].dataType
        value = value[name]
    literals = _literals(dtype, values)
    if literals is None:
        return S.lit(True)
    if not literals:
        return S.lit(False)
    return value.isin(literals)


def _literals(dtype: DataType, values: Sequence[Any]) -> list[Any] | None:
    """``values`` as values of a column of ``dtype`` (``from_json`` reads a JSON number or
    boolean into a string column as its text); ``None`` for a type not compared here."""
    if isinstance(dtype, StringType):
        return [v if isinstance(v, str) else json.dumps(v) for v in values]
    if isinstance(dtype, BooleanType):
        return [v for v in values if isinstance(v, bool)]
    numbers = [
        v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)
    ]
    if isinstance(dtype, _INTEGERS):
        return [int(v) for v in numbers if float(v).is_integer()]
    if isinstance(dtype, _FLOATS):
        return [float(v) for v in numbers]
    return None
