"""Dead-letter reasons: one error struct (``reason``, ``detail``) per row, ``NULL`` for a
good row; the dispatcher's reasons and details.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from . import names as N
from . import payload
from . import sql as S
from .columns import case, err, isin_indexes, type_lookup, unparsed
from .envelope import attribute, column, ok_json, variant_of, variants
from .plan import Plan, typed_variant
from .sql import Expr as X
from .targets import CORE_KINDS, REQUIRED, TYPED_KINDS, Target
from .values import missing_fields

_JSON_MEDIA = r"(?i)^\s*[^/\s;]+/([^/\s;]*\+)?json\s*(;.*)?$"
DECODE_ERROR = "decode-error"
UNKNOWN_TYPE = "unknown-type"
NO_MATCH = "no-match"
VALIDATION_ERROR = "validation-error"


def unmatched(plan: Plan) -> X:
    """Why a row matched no definition."""
    branches = [
        (plan.wire.unsupported(), err(DECODE_ERROR, "unsupported-format")),
        (S.col(N.STRUCTURED) & ~ok_json(plan), err(DECODE_ERROR, "invalid-json")),
    ]
    ce = S.col(N.IS_CE)
    for name in REQUIRED:
        missing = attribute(name).isNull() | (attribute(name) == "")
        branches.append((ce & missing, err(DECODE_ERROR, f"missing-attribute: {name}")))
    branches.append(
        (
            ce & (attribute("specversion") != "1.0"),
            err(DECODE_ERROR, "invalid-specversion"),
        )
    )
    typed = [t.defn.type for t in plan.targets if t.ce and t.defn.type is not None]
    untyped = any(t.ce and t.defn.type is None for t in plan.targets)
    described = S.concat("type ", S.coalesce(attribute("type"), "?"))
    if not untyped:
        unknown = (
            type_lookup(dict.fromkeys(typed, 0), attribute("type")).isNull()
            if typed
            else S.lit(True)
        )
        branches.append((ce & unknown, err(UNKNOWN_TYPE, described)))
    if not any(not t.ce for t in plan.targets):
        branches.append((~ce, err(UNKNOWN_TYPE, "not a CloudEvent")))
    return case(branches, err(NO_MATCH, described))


def _target_checks(
    plan: Plan, t: Target
) -> tuple[tuple[tuple[str, str], ...], bool, str | None]:
    """What :func:`_matched` checks for ``t`` besides presence of data: (typed
    attributes, has a payload type, binary payload format or ``None``). Targets with
    equal checks share one branch of the error (definitions of different payload types
    too)."""
    kinds = tuple(CORE_KINDS.items()) + tuple(
        (n, k) for n, k in t.kinds.items() if k in TYPED_KINDS and n not in CORE_KINDS
    )
    spec = plan.specs.get(t.index)
    return kinds, t.dtype is not None, spec.format if spec is not None else None


def _matched(plan: Plan, targets: Sequence[Target]) -> X:
    """Why a row matched to one of ``targets`` is not good, as far as known before its
    payload parse: attribute types, content type and presence of data (``NULL`` when
    all pass). The targets have the same :func:`_target_checks`; where their rows were
    parsed with different envelope variants, presence of data is read per variant.
    """
    branches: list[tuple[X, X]] = []
    kinds, has_payload, binary = _target_checks(plan, targets[0])
    for name, kind in kinds:
        bad = attribute(name).isNotNull() & S.col(N.typed(name, kind)).isNull()
        branches.append((bad, err(DECODE_ERROR, f"invalid-attribute: {name}")))
    if has_payload:
        ct = attribute("datacontenttype")
        if binary is None:
            json_ct = ct.isNull() | (ct == "application/json") | ct.rlike(_JSON_MEDIA)
        else:  # the definition's content type matched: its format
            json_ct = S.lit(True)
        branches.append((~json_ct, err(VALIDATION_ERROR, "unsupported-format")))
        structured = by_targets(
            targets,
            lambda t: typed_variant(plan, t),
            lambda ts: _no_data(plan, typed_variant(plan, ts[0])),
        )
        no_data = S.when(S.col(N.STRUCTURED), structured).otherwise(
            plan.wire.payload_bytes().isNull()
        )
        branches.append((no_data, err(VALIDATION_ERROR, "no data")))
    return case(branches)


def _no_data(plan: Plan, variant: int) -> X:
    """Whether a structured row parsed with envelope ``variant`` (0: ``data`` as text,
    see :func:`.plan.typed_variant`) has neither ``data`` nor ``data_base64`` (a typed
    ``data`` that did not fit the payload type is there: a payload error)."""
    env = column(plan, variant) if variant else None
    if env is None:
        env = S.col(variants(plan)[0][1])
        return env["v"]["data"].isNull() & env["v"]["data_base64"].isNull()
    v = env["v"]
    return (
        v["data"].isNull() & v["data_base64"].isNull() & env[N.CORRUPT_FIELD].isNull()
    )


def of_payload(plan: Plan, t: Target) -> X:
    """Why the parsed payload of a row matched to ``t`` is not good (``NULL`` when it is)."""
    if t.dtype is None:
        return S.lit(None)
    value, bad = payload.value(plan, t)
    branches = [(bad, err(VALIDATION_ERROR, "invalid payload"))]
    for cond, path in missing_fields(value, t.dtype, ""):
        branches.append((cond, err(VALIDATION_ERROR, f"missing field: {path}")))
    return case(branches)


def by_targets(
    targets: Sequence[Target],
    key: Callable[[Target], object],
    build: Callable[[list[Target]], X],
) -> X:
    """``build(group)`` for the group of ``targets`` (equal ``key``) that a matched row's
    ``_xr_m`` is in: one ``CASE`` branch per group, no test with one group (the caller
    only asks for rows matched to one of ``targets``).

    Targets checked alike share one branch: with many definitions of one payload type
    this keeps the generated code small (a 20-branch ``CASE`` of identical checks is ~2x
    slower).
    """
    groups: dict[object, list[Target]] = {}
    for t in targets:
        groups.setdefault(key(t), []).append(t)
    branches = [
        (isin_indexes(N.MATCH, [t.index for t in ts]), build(ts))
        for ts in groups.values()
    ]
    return branches[0][1] if len(branches) == 1 else case(branches)


def before_parse(plan: Plan) -> X:
    """The error of a row known before its payload parse (``NULL``: none yet)."""
    matched = by_targets(
        plan.targets,
        lambda t: _target_checks(plan, t),
        lambda ts: _matched(plan, ts),
    )
    error = S.when(S.col(N.MATCH).isNull(), unmatched(plan)).otherwise(matched)
    variant = variant_of(plan, attribute("type"))
    if variant is not None:
        # the strict ``type`` selects another envelope variant than the text read
        # before the parse did: only a ``type`` member repeated with another value
        other = S.col(N.STRUCTURED) & (variant != S.col(N.VARIANT))
        duplicate = err(DECODE_ERROR, "duplicate-attribute: type")
        error = S.when(S.col(N.MATCH).isNotNull() & other, duplicate).otherwise(error)
    if plan.wire.attribute_invalid(plan.attr_names) is None:
        return error
    encoding = err(DECODE_ERROR, "invalid-encoding")
    return S.when(S.col(N.INVALID_ENCODING), encoding).otherwise(error)


def final(plan: Plan) -> X:
    """The error struct of a row (``NULL`` when good)."""
    # a row without an error before the parse is matched; targets whose payload is
    # read and checked alike (same parse group, see ``payload.value``) share a branch
    of_payloads = by_targets(
        plan.targets,
        lambda t: (plan.group_of[t.index].name, t.ce),
        lambda ts: of_payload(plan, ts[0]),
    )
    error = S.coalesce(S.col(N.ERROR_BEFORE_PARSE), of_payloads)
    if plan.envelopes is not None:
        # a typed ``data`` that did not fit in an envelope that is not valid JSON either
        invalid = S.col(N.RECHECK) & unparsed(S.col(N.REPARSED))
        error = S.when(invalid, err(DECODE_ERROR, "invalid-json")).otherwise(error)
    if not plan.ties:
        return error
    # a row of a tied run that no member accepts keeps the first member's error, else
    # ``invalid payload`` (its checks: ``ties``)
    rejected = S.when(S.col(N.TIE_NONE), err(VALIDATION_ERROR, "invalid payload"))
    return S.coalesce(error, rejected)
