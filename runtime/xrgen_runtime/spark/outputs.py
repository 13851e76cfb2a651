"""What a decoder hands out of a routed frame: one typed DataFrame per message id (built
when first looked up, :class:`Outputs`) and the dead letters; their columns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from pyspark.sql import DataFrame

from . import names as N
from . import payload
from . import sql as S
from .envelope import attribute
from .match import source
from .plan import Plan
from .sql import Expr as X
from .targets import CORE, CORE_KINDS, TRACING, TYPED_KINDS, Target
from .values import pct_decoded


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


def good() -> X:
    """Whether a routed row is good (it has no error): it lands in a typed output."""
    return S.col(N.ERROR).isNull()


def of_target(t: Target) -> X:
    """The rows of ``t``'s output among the good rows of its shape."""
    return S.col(N.MATCH) == t.index


def dead(columns: Sequence[str]) -> tuple[X, list[X]]:
    """(filter, select list) of the dead letters of a routed frame with ``columns``: the
    input columns, the tracing attributes and the error's ``reason`` and ``detail``."""
    select = [S.col(c) for c in columns if not c.startswith(N.PREFIX)]
    select += [attribute(n).alias(n) for n in TRACING if n not in columns]
    select += [
        S.col(N.ERROR)["reason"].alias("reason"),
        S.col(N.ERROR)["detail"].alias("detail"),
    ]
    return ~good(), select


def shape(plan: Plan, t: Target) -> tuple[Any, ...]:
    """What ``t``'s output columns depend on: targets of the same shape share them."""
    return (
        "output",
        _attributes(t),
        t.dtype is None,
        payload.key(plan, t),
        t.templates,
    )


def _attributes(t: Target) -> tuple[tuple[str, str], ...]:
    """(name, CloudEvents type) of the attribute columns of ``t``'s output, in order."""
    return tuple(
        (name, CORE_KINDS.get(name) or t.kinds.get(name, "string"))
        for name in dict.fromkeys(CORE + tuple(t.kinds) + TRACING)
    )


def columns(plan: Plan, t: Target) -> list[X]:
    """The select list of ``t``'s output: its attributes by wire name, typed; ``data``;
    ``params`` (its placeholder values) when it has placeholders; the binding's lineage
    columns (``_``-prefixed where an attribute has the name)."""
    cols: list[X] = []
    names: list[str] = []
    for name, kind in _attributes(t):
        if kind in TYPED_KINDS:
            cols.append(S.col(N.typed(name, kind)).alias(name))
        else:
            cols.append(attribute(name).alias(name))
        names.append(name)
    if t.dtype is None:
        data = S.col(plan.group_of[t.index].name)
    else:
        data = payload.value(plan, t)[0]
    cols.append(data.alias("data"))
    names.append("data")
    if t.placeholders:
        cols.append(_params(plan, t).alias("params"))
        names.append("params")
    for name in plan.wire.lineage:
        cols.append(S.col(name).alias("_" + name if name in names else name))
    return cols


def _params(plan: Plan, t: Target) -> X:
    """The struct of ``t``'s placeholder values (percent-decoded), one per template set."""
    fields: dict[str, X] = {}
    for ref, regex, names in t.templates:
        src = source(plan, ref)
        if src is None:
            continue
        for i, name in enumerate(names):
            if name not in fields:
                raw = S.fn("regexp_extract", src, regex, i + 1)
                fields[name] = pct_decoded(raw)
    return S.named_struct(list(fields.items()))
