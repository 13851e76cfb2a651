"""The CloudEvent of a row: structured rows' envelopes (parsed with the variant that the
event's ``type`` selects, :func:`.plan._envelope_choice`), the attributes of either content
mode, typed, and whether the row is a well-formed CloudEvent.
"""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql.types import DataType, StructField, StructType

from . import names as N
from . import sql as S
from .columns import STRING, any_of, case, type_lookup, typed_read, unparsed
from .plan import Plan, used_variants
from .sql import Expr as X
from .targets import CORE_KINDS, REQUIRED, TYPED_KINDS
from .values import typed


def attribute(name: str) -> X:
    """The canonical text of attribute ``name`` of a row (either content mode)."""
    return S.col(N.attribute(name))


def envelope_type(plan: Plan, data: DataType) -> StructType:
    """The envelope as ``from_json`` reads it: attributes as text, ``data`` typed."""
    return StructType(
        [StructField(n, STRING) for n in plan.attr_names]
        + [StructField("data", data), StructField("data_base64", STRING)]
    )


def variants(plan: Plan) -> list[tuple[int, str, DataType]]:
    """(variant, column, envelope type) of every envelope variant a row can select."""
    if plan.envelopes is None:
        return [(0, N.envelope(0), envelope_type(plan, STRING))]
    used = used_variants(plan)
    out: list[tuple[int, str, DataType]] = []
    if 0 in used:
        out.append((0, N.envelope(0), envelope_type(plan, STRING)))
    json_groups = [g for g in plan.groups if g.kind == "json"]
    for j, group in enumerate(json_groups, 1):
        if j in used and group.dtype is not None:
            out.append((j, N.envelope(j), envelope_type(plan, group.dtype)))
    return out


def columns(plan: Plan) -> list[tuple[int, X]]:
    """(variant, parsed envelope column) of each envelope variant."""
    return [(j, S.col(name)) for j, name, _ in variants(plan)]


def column(plan: Plan, variant: int) -> X | None:
    """The parsed envelope column of ``variant`` (``None``: no row selects it)."""
    return dict(columns(plan)).get(variant)


def by_variant(plan: Plan, pick: Callable[[int, X], X]) -> X:
    """``pick(variant, envelope)`` for the variant a structured row was parsed with."""
    envs = columns(plan)
    if len(envs) == 1:
        return pick(*envs[0])
    return case([(S.col(N.VARIANT) == j, pick(j, env)) for j, env in envs])


def variant_of(plan: Plan, ce_type: X) -> X | None:
    """The envelope variant that a CloudEvents ``type`` selects; ``None`` when there is
    one variant (or envelopes are read with ``data`` as text).
    """
    if plan.envelopes is None or len(used_variants(plan)) == 1:
        return None
    types, default = plan.envelopes
    return S.coalesce(type_lookup(types, ce_type), S.lit(default))


def structured_attribute(plan: Plan, name: str) -> X:
    """The text of attribute ``name`` in a structured row's envelope (whichever variant)."""
    values = [env["v"][name] for _, env in columns(plan)]
    return values[0] if len(values) == 1 else S.coalesce(*values)


def is_ce() -> X:
    """Whether a row is a CloudEvent: structured, or one required attribute present."""
    present = [attribute(n).isNotNull() for n in REQUIRED]
    return S.col(N.STRUCTURED) | any_of(present)


def ce_ok(plan: Plan) -> X:
    """A well-formed CloudEvent: parsed, ``specversion`` 1.0, non-empty core attributes."""
    ok = (attribute("specversion") == "1.0") & ~plan.wire.unsupported()
    for name in REQUIRED[1:]:
        ok = ok & attribute(name).isNotNull() & (attribute(name) != "")
    return S.coalesce(ok & (~S.col(N.STRUCTURED) | ok_json(plan)), S.lit(False))


def ok_json(plan: Plan) -> X:
    """Whether a structured row's envelope parsed as one JSON object.

    With ``data`` as text any parse error marks the row (``unparsed``). With a typed
    ``data``, the corrupt-record field is also set when ``data`` does not fit the
    payload type (the rest of the envelope is still read): that is a payload error,
    decided after the match; JSON syntax errors inside ``data`` that Spark recovers from
    look the same, and a second parse tells them apart (:func:`recheck`).
    """
    return by_variant(
        plan, lambda j, env: ~unparsed(env) if j == 0 else typed_read(env)
    )


def recheck(plan: Plan) -> X:
    """Whether a row's verdict depends on whether its envelope is valid JSON: read as an
    object with a typed ``data`` that did not fit (see :func:`ok_json`). The payload
    parse stage parses these rows again with ``data`` as text (``names.REPARSED``); an
    unsupported content mode (HTTP batch) is reported before any JSON error."""

    def ambiguous(j: int, env: X) -> X:
        if j == 0:
            return S.lit(False)
        return typed_read(env) & env[N.CORRUPT_FIELD].isNotNull()

    if plan.envelopes is None:
        return S.lit(False)
    checked = by_variant(plan, ambiguous) & ~plan.wire.unsupported()
    return S.coalesce(S.col(N.STRUCTURED) & checked, S.lit(False))


def typed_attributes(plan: Plan) -> dict[str, X]:
    """Column name -> the attribute as a value of its type, for every typed attribute."""
    cols = {
        N.typed(name, kind): typed(attribute(name), kind)
        for name, kind in CORE_KINDS.items()
    }
    for t in plan.targets:
        for name, kind in t.kinds.items():
            if kind in TYPED_KINDS and name not in CORE_KINDS:
                cols.setdefault(N.typed(name, kind), typed(attribute(name), kind))
    return cols
