"""The match: the index of the first target a row passes (the dispatcher's
most-specific-first order), with the checks of targets that differ only in their
CloudEvents ``type`` sharing one ``CASE`` branch and a type lookup.
"""

from __future__ import annotations

import operator

from . import names as N
from . import sql as S
from .columns import all_of, case, type_lookup
from .envelope import attribute
from .payload import data_bytes
from .plan import Plan
from .sql import Expr as X
from .targets import Target
from .values import canonical, media


def options(plan: Plan) -> dict[str, X]:
    """Option column name -> its expression, for every readable option of the targets."""
    cols: dict[str, X] = {}
    for t in plan.targets:
        paths = [o.path for o in t.options] + [
            p for p, _, _ in t.templates if isinstance(p, tuple)
        ]
        for path in paths:
            name = N.option(path)
            col = plan.wire.option(path)
            if name not in cols and col is not None:
                cols[name] = col
    return cols


def source(plan: Plan, ref: str | tuple[str, ...]) -> X | None:
    """The column a template of an attribute (name) or option (path) is read from."""
    if isinstance(ref, str):
        return attribute(ref)
    if plan.wire.option(ref) is None:
        return None
    return S.col(N.option(ref))


def condition(plan: Plan, t: Target, by_type: bool = True) -> X:
    """Whether a row passes ``t``'s checks; without its literal ``type`` unless ``by_type``.

    Everything it checks besides that ``type`` is in :func:`_checks_key`.
    """
    conds: list[X] = []
    if t.ce:
        conds.append(S.col(N.CE_OK))
        if by_type and t.literal_type is not None:
            conds.append(attribute("type") == t.literal_type)
    else:
        conds.append(~S.col(N.IS_CE))
    conds += [attribute(n).isNotNull() for n in t.required]
    conds += [attribute(n) == v for n, v in t.constants]
    if t.content_type is not None:
        raw = attribute("datacontenttype")
        content = S.coalesce(media(raw), S.lit("application/json"))
        # the exact media type first: ``media`` lower-cases (ICU, per row)
        same = S.when(raw == t.content_type, S.lit(True)).otherwise(
            content == t.content_type
        )
        conds.append(same)
    spec = plan.specs.get(t.index)
    if spec is not None and spec.schema_ids:
        # Confluent framing with known schema ids: the id routes the row
        headers = [
            bytearray(b"\x00" + i.to_bytes(4, "big")) for i in sorted(spec.schema_ids)
        ]
        conds.append(S.fn("substring", data_bytes(plan), 1, 5).isin(headers))
    for opt in t.options:
        if plan.wire.option(opt.path) is not None:
            expected = plan.wire.expected(opt.path, canonical(opt.value))
            conds.append(S.col(N.option(opt.path)) == expected)
    seen: dict[str, X] = {}
    for ref, regex, names in t.templates:
        src = source(plan, ref)
        if src is None:
            continue
        conds.append(src.rlike(regex))
        for i, name in enumerate(names):
            value = S.fn("regexp_extract", src, regex, i + 1)
            if name in seen:
                conds.append(seen[name] == value)
            else:
                seen[name] = value
    return S.coalesce(all_of(conds), S.lit(False))


def _checks_key(plan: Plan, t: Target) -> tuple[object, ...]:
    """What :func:`condition` checks besides a literal ``type``: equal keys, equal checks."""
    spec = plan.specs.get(t.index)
    return (
        t.required,
        t.constants,
        t.content_type,
        tuple(sorted(spec.schema_ids)) if spec is not None else (),
        tuple((opt.path, canonical(opt.value)) for opt in t.options),
        t.templates,
    )


def match(plan: Plan) -> X:
    """The index of the first target whose checks a row passes (``NULL``: none).

    One ``CASE`` branch per :func:`entries` entry; an entry of several types looks the
    row's type up (:func:`.columns.type_lookup`), so the generated code does not grow with
    the number of types. With a branch per type, 20 types made the stage's method too
    big for the JVM to compile (over 8,000 bytes of bytecode: it runs interpreted) and
    routing took ~2x as long as for one type.
    """
    branches: list[tuple[X, X]] = []
    for t, types in entries(plan):
        if len(types) <= 1:
            branches.append((condition(plan, t), S.lit(t.index)))
        else:
            index = type_lookup(types, attribute("type"))
            branches.append((index.isNotNull() & condition(plan, t, False), index))
    return case(branches)


def entries(plan: Plan) -> list[tuple[Target, dict[str, int]]]:
    """The branches of :func:`match` in order: (target, literal type -> target index).

    The order is the most-specific-match order (``Target.rank``).

    Targets whose checks differ only in their literal CloudEvents ``type`` share the
    entry of the first of them (the types map to their own indexes). First match wins as
    with one branch per target: a target joins an earlier entry only if no entry in
    between could match a row of its type (one of the same type, or one whose type is a
    template or absent; entries without an envelope never match a CloudEvent).
    """
    out: list[tuple[Target, dict[str, int]]] = []
    latest: dict[tuple[object, ...], int] = {}  # checks key -> its latest entry
    holder: dict[str, int] = {}  # type -> the latest entry that looks it up
    barrier = -1  # the latest entry that can match a row of any type
    for t in sorted(plan.targets, key=operator.attrgetter("rank")):
        ce_type = t.literal_type
        if ce_type is None:
            if t.ce:
                barrier = len(out)
            out.append((t, {}))
            continue
        key = _checks_key(plan, t)
        at = latest.get(key, -1)
        if at <= barrier or holder.get(ce_type, -1) > at:
            at = latest[key] = len(out)
            out.append((t, {}))
        out[at][1].setdefault(ce_type, t.index)
        holder[ce_type] = at
    return out
