"""The payload of a row: its text or bytes in either content mode, the parse of each
payload group (JSON with ``from_json``; Avro and Protobuf in :mod:`.binary`), and the
parsed value of a row matched to a target.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import functions as F

from . import binary
from . import names as N
from . import sql as S
from .columns import as_text, isin_indexes, parse_wrapped, unparsed
from .envelope import by_variant, column
from .plan import Plan, typed_variant
from .specs import BINARY_FORMATS
from .sql import Expr as X
from .structure import convert
from .targets import Target


def text(plan: Plan) -> X:
    """The payload text to parse: binary rows' payload; for a structured row ``data``
    (an envelope parsed with ``data`` as text) or the text of ``data_base64``."""

    def structured(j: int, env: X) -> X:
        v = env["v"]
        from_b64 = as_text(S.fn("try_to_binary", v["data_base64"], "base64"))
        if j == 0:
            return S.coalesce(v["data"], from_b64)
        return S.when(v["data"].isNull(), from_b64)  # else parsed with the envelope

    return S.when(S.col(N.STRUCTURED), by_variant(plan, structured)).otherwise(
        as_text(plan.wire.payload_bytes())
    )


def data_bytes(plan: Plan) -> X:
    """The payload bytes: binary rows' payload; a structured row's ``data_base64`` or the
    bytes of its ``data`` text."""
    text_data = column(plan, 0)  # the envelope with ``data`` as text
    if text_data is None:  # no structured row selects it
        return plan.wire.payload_bytes()
    env = text_data["v"]
    return S.when(
        S.col(N.STRUCTURED),
        S.coalesce(
            S.fn("try_to_binary", env["data_base64"], "base64"),
            env["data"].cast("binary"),
        ),
    ).otherwise(plan.wire.payload_bytes())


def key(plan: Plan, t: Target) -> tuple[str, int]:
    """What :func:`value` depends on: (parse group column, typed envelope variant)."""
    return plan.group_of[t.index].name, typed_variant(plan, t)


def value(plan: Plan, t: Target) -> tuple[X, X]:
    """(the payload value, whether it is not a valid value of ``t``'s type) of a row
    matched to ``t`` (``t`` has a payload type); one pair per :func:`key`. A JSON
    Structure payload is parsed with its wire type and converted (:mod:`.structure`).
    """
    result, bad = _parsed(plan, t)
    if t.read is None:
        return result, bad
    typed, invalid = convert(result, t.read[1], t.read[0])
    return typed, bad | invalid


def _parsed(plan: Plan, t: Target) -> tuple[X, X]:
    """(the parsed payload value, whether it is unparsed) of a row matched to ``t``."""
    parsed = S.col(plan.group_of[t.index].name)
    j = typed_variant(plan, t)
    if not j or column(plan, j) is None:
        return parsed["v"], unparsed(parsed)
    # structured rows: ``data`` from the envelope, else the ``data_base64`` parse (the
    # envelope's ``data`` and whether it was corrupt, taken out of it before the
    # payload parse stage: see ``route``)
    data = S.col(N.data(j))
    inline = S.col(N.STRUCTURED) & data.isNotNull()
    result = S.when(inline, data).otherwise(parsed["v"])
    bad = S.when(
        S.col(N.STRUCTURED),
        S.col(N.corrupt(j)) | (data.isNull() & unparsed(parsed)),
    ).otherwise(unparsed(parsed))
    return result, bad


def parse_columns(plan: Plan, guard: X) -> list[tuple[str, Any]]:
    """(name, expression) of each payload parse group's column (``guard``: whether a row's
    payload is parsed at all); a native Avro /
    Protobuf group's is a ``Column`` (``from_avro`` / ``from_protobuf``); none for a group
    decoded by the ``mapInArrow`` step, which adds the column itself."""
    cols: list[tuple[str, Any]] = []
    for group in plan.groups:
        name = group.name
        # rows of a run of tied definitions carry its first one's index until the
        # payloads choose (``ties``): each member's parse reads them too
        rows = {t.index for t in group.members}
        rows |= {
            plan.tie_leader[t.index]
            for t in group.members
            if t.index in plan.tie_leader
        }
        when = isin_indexes(N.MATCH, sorted(rows)) & guard
        if group.kind in BINARY_FORMATS:
            assert group.spec is not None
            if plan.payloads == "arrow":
                if plan.arrow_udf:
                    cols.append((name, binary.arrow_udf(group)))
                continue
            native = binary.parse_native(group.spec, data_bytes(plan))
            cols.append((name, F.when(when.column(), native)))
            continue
        if group.kind == "bytes":
            parsed = data_bytes(plan)
        else:
            parsed = parse_wrapped(S.col(N.PAYLOAD_TEXT), group.dtype)
        cols.append((name, S.when(when, parsed)))
    return cols
