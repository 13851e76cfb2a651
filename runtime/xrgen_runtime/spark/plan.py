"""The decoder's plan: what it decodes and how, fixed when the decoder is built.

:func:`build_plan` compiles the definitions that apply to a landing shape (:mod:`.targets`),
settles how each payload is parsed (payload parse groups: one per JSON payload type, Avro /
Protobuf spec, or opaque payloads), which definitions only their payloads tell apart (tied
runs, :mod:`.ties`), and how structured rows' envelopes are read (envelope variants). The
stages (:mod:`.route`) are functions of a :class:`Plan`; nothing here builds an expression.
"""

from __future__ import annotations

import collections
import json
import operator
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pyspark.sql import functions as F
from pyspark.sql.types import DataType, _parse_datatype_json_value

from .._definitions import MessageDef
from . import names as N
from .payloads import PayloadSpec
from .specs import (
    BINARY_FORMATS,
    PAYLOAD_MODES,
    choose_payloads,
    payload_spec,
    spec_key,
)
from .targets import CORE, TRACING, PayloadCheck, Target, compile_target, tie_groups
from .wires import WIRES, Wire


@dataclass(frozen=True, eq=False)
class Group:
    """A payload parse group: the targets whose payloads are parsed alike, in one column."""

    #: its column (:func:`.names.group`)
    name: str
    #: ``json``, ``bytes`` (opaque), ``avro`` or ``protobuf``
    kind: str
    #: the payload type (``None`` for opaque payloads)
    dtype: DataType | None
    #: Avro / Protobuf: how the payload is decoded
    spec: PayloadSpec | None
    members: tuple[Target, ...]


@dataclass(frozen=True)
class Plan:
    """What a decoder decodes and how (see the module docstring)."""

    #: the landing shape and its reader
    binding: str
    wire: Wire
    #: the definitions that rows of this shape can match, in catalog order
    targets: tuple[Target, ...]
    #: message id -> its target (ids are unique in a generated package)
    by_id: Mapping[str, Target]
    #: the attributes read from every row: core, tracing, then the definitions' own
    attr_names: tuple[str, ...]
    #: target index -> how its Avro / Protobuf payload is decoded
    specs: Mapping[int, PayloadSpec]
    #: the ``payloads`` asked for (:data:`.specs.PAYLOAD_MODES`)
    requested: str
    #: ``native`` or ``arrow`` (``None``: no Avro / Protobuf payload, or not decided yet:
    #: :func:`settle_payloads`)
    payloads: str | None
    #: Arrow-decoded payloads through an Arrow UDF (PySpark >= 4.1: only the payload
    #: bytes and the match cross into Python), else a ``mapInArrow`` step (every column)
    arrow_udf: bool
    #: payload parse groups in order, and each target's
    groups: tuple[Group, ...]
    group_of: Mapping[int, Group]
    #: message id -> what its payload must hold to be taken among tied definitions
    payload_checks: Mapping[str, tuple[PayloadCheck, ...]]
    #: runs of definitions that the match cannot tell apart, routed by their payloads
    #: (:mod:`.ties`); JSON and opaque payloads only
    ties: tuple[tuple[Target, ...], ...]
    #: tied target index -> the index of the first of its run (which the match gives)
    tie_leader: Mapping[int, int]
    #: target index -> how a structured row of it is parsed (:func:`_variant`)
    variant: Mapping[int, int]
    #: see :func:`_envelope_choice`; ``None``: envelopes are read with ``data`` as text
    envelopes: tuple[Mapping[str, int], int] | None


def build_plan(
    defs: Sequence[MessageDef],
    schemas: Mapping[str, DataType],
    binding: str = "kafka",
    *,
    payloads: str = "auto",
    avro_schemas: Mapping[str, str] | None = None,
    proto_descriptors: Mapping[str, tuple[str, bytes]] | None = None,
    schema_ids: Mapping[str, int | Iterable[int]] | None = None,
    registry: Any = None,
    payload_checks: Mapping[str, Sequence[PayloadCheck]] | None = None,
    structure_reads: Mapping[str, tuple[Any, Any]] | None = None,
) -> Plan:
    """The plan of a decoder (arguments: ``SparkDecoder``'s); ``payloads`` is settled
    later (:func:`settle_payloads`) unless ``"arrow"`` or ``"off"``."""
    if binding not in WIRES:
        raise ValueError(
            f"unknown binding {binding!r}; expected one of {sorted(WIRES)}"
        )
    if payloads not in PAYLOAD_MODES:
        raise ValueError(f"payloads must be one of {PAYLOAD_MODES}, not {payloads!r}")
    wire = WIRES[binding]
    compiled = [
        compile_target(i, d, schemas.get(d.id), wire) for i, d in enumerate(defs)
    ]
    reads = structure_reads or {}
    targets = tuple(_with_read(t, reads.get(t.defn.id)) for t in compiled if t.applies)
    specs: dict[int, PayloadSpec] = {}
    for t in targets if payloads != "off" else ():
        spec = payload_spec(
            t, avro_schemas or {}, proto_descriptors or {}, schema_ids or {}, registry
        )
        if spec is not None:
            specs[t.index] = spec
    names: dict[str, None] = dict.fromkeys(CORE + TRACING)
    for t in targets:
        names.update(dict.fromkeys(t.kinds))
    groups, group_of = _groups(targets, specs)
    checks = {k: tuple(v) for k, v in (payload_checks or {}).items()}
    ranked = sorted(targets, key=operator.attrgetter("rank"))
    ties = tuple(
        g
        for g in tie_groups(ranked, lambda t: group_of[t.index].name, checks)
        if all(group_of[t.index].kind in ("json", "bytes") for t in g)
    )
    json_groups = [g.name for g in groups if g.kind == "json"]
    variant = {t.index: _variant(group_of[t.index], json_groups) for t in targets}
    by_id: dict[str, Target] = {}
    for t in targets:
        by_id.setdefault(t.defn.id, t)
    return Plan(
        binding=binding,
        wire=wire,
        targets=targets,
        by_id=by_id,
        attr_names=tuple(names),
        specs=specs,
        requested=payloads,
        payloads="arrow" if specs and payloads == "arrow" else None,
        arrow_udf=hasattr(F, "arrow_udf"),
        groups=groups,
        group_of=group_of,
        payload_checks=checks,
        ties=ties,
        tie_leader={t.index: g[0].index for g in ties for t in g[1:]},
        variant=variant,
        envelopes=_envelope_choice(targets, variant),
    )


def settle_payloads(plan: Plan, spark: Any, stacklevel: int = 1) -> Plan:
    """``plan`` with native or Arrow decoding of Avro / Protobuf payloads settled for the
    session ``spark`` (default: the active one; unchanged without one): see
    :func:`.specs.choose_payloads`."""
    if not plan.specs or plan.payloads is not None:
        return plan
    formats = (s.format for s in plan.specs.values())
    chosen = choose_payloads(plan.requested, formats, spark, stacklevel + 1)
    return plan if chosen is None else replace(plan, payloads=chosen)


def _groups(
    targets: Sequence[Target], specs: Mapping[int, PayloadSpec]
) -> tuple[tuple[Group, ...], dict[int, Group]]:
    """The payload parse groups of ``targets``, in order of their first member."""
    keys: dict[tuple[str, str], list[Target]] = {}
    for t in targets:
        keys.setdefault(_group_key(t, specs.get(t.index)), []).append(t)
    groups = tuple(
        Group(
            N.group(number),
            kind,
            members[0].parse_dtype,
            specs.get(members[0].index),
            tuple(members),
        )
        for number, ((kind, _), members) in enumerate(keys.items())
    )
    return groups, {t.index: g for g in groups for t in g.members}


def _group_key(t: Target, spec: PayloadSpec | None) -> tuple[str, str]:
    """What tells parse groups apart: (kind, payload type and spec as text)."""
    if t.dtype is None:
        return ("bytes", "")
    if spec is not None:
        return (spec.format, t.dtype.json() + "\0" + spec_key(spec))
    if t.read is not None:
        return ("json", t.read[0].json() + "\0" + json.dumps(t.read[1]))
    return ("json", t.dtype.json())


def _with_read(t: Target, read: tuple[Any, Any] | None) -> Target:
    """``t`` with its JSON Structure read (wire type as JSON, conversion tree)."""
    if read is None or t.dtype is None:
        return t
    return replace(t, read=(_parse_datatype_json_value(read[0]), read[1]))


def _variant(group: Group, json_groups: Sequence[str]) -> int:
    """How a structured row of a target of ``group`` is parsed: ``i + 1`` with JSON group
    ``i``'s payload type as ``data``, 0 with ``data`` as text (opaque payloads), -1 when its
    payload is parsed after its envelope (Avro binary or Protobuf: ``from_avro`` /
    ``from_protobuf`` or the Arrow step).
    """
    if group.kind == "json":
        return json_groups.index(group.name) + 1
    return 0 if group.kind == "bytes" else -1


def _envelope_choice(
    targets: Sequence[Target], variant: Mapping[int, int]
) -> tuple[dict[str, int], int] | None:
    """(CloudEvents type -> variant, variant of every other type), or ``None``.

    A structured row is parsed ONCE, with the envelope variant its ``type`` selects (read
    before the parse with ``get_json_object``; needed only when there are several), if
    every type selects one variant: no two definitions that a row of one type could
    match have different variants (a definition whose type is a template or absent can
    match a row of any type). Otherwise (or with a definition of variant -1), ``None``:
    envelopes are parsed with ``data`` as text, and their payloads in the payload parse
    stage after the match (see :func:`.route.stages`).
    """
    if any(v < 0 for v in variant.values()):
        return None
    ce = [t for t in targets if t.ce]
    any_type = {variant[t.index] for t in ce if t.literal_type is None}
    if len(any_type) > 1:
        return None
    by_type: dict[str, set[int]] = {}
    for t in ce:
        if t.literal_type is not None:
            by_type.setdefault(t.literal_type, set()).add(variant[t.index])
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


def used_variants(plan: Plan) -> set[int]:
    """The envelope variants a structured row can select (:func:`_envelope_choice`)."""
    if plan.envelopes is None:
        return {0}
    types, default = plan.envelopes
    return set(types.values()) | {default}


def typed_variant(plan: Plan, t: Target) -> int:
    """The envelope variant of ``t``'s structured rows when ``data`` is typed, else 0."""
    j = plan.variant[t.index]
    return j if t.ce and j > 0 else 0


def arrow_groups(plan: Plan) -> list[Group]:
    """The parse groups decoded over Arrow."""
    if plan.payloads != "arrow":
        return []
    return [g for g in plan.groups if g.kind in BINARY_FORMATS]
