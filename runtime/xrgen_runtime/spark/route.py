"""The stages of ``SparkDecoder.route``: the ``select`` lists that add the routing columns
(:mod:`.names`) to an input, one parse per row.

The plan alternates code-generated stages with the two ``from_json`` projections (Spark
runs a projection holding ``from_json`` outside whole-stage code generation, so nothing
else is put in it):

1. lookups: binary-mode attributes, options, content mode (generated code);
2. the envelope ``from_json`` of structured rows, with ``data`` typed by the envelope
   variant that the event's ``type`` selects (``plan._envelope_choice``; read with
   ``get_json_object`` first when there are several), else as text;
3. attributes, match, typed attributes, every error known before the payload parse
   (``_xr_e0``) and the payload text (generated code);
4. the payload ``from_json`` of matched rows without an error so far (binary rows,
   ``data_base64``, ``data`` read as text), and a second envelope parse, with ``data`` as
   text, of the rows whose typed ``data`` did not fit (``_xr_rp``: is the envelope valid
   JSON? see ``envelope.ok_json``);
5. payload errors and the final error ``_xr_e`` (generated code).

A typed envelope is one parse for a structured row where text ``data`` needs two. Binary
payloads are parsed in step 4, not beside the envelope in step 2 (where the match of a
binary row could be known): steps 3 to 5 would then form one generated method over the
JVM's 8,000-byte limit for compiling it. Step 1 is a stage of its own: merged into the
envelope projection it would save binary rows one row copy but evaluate the envelope's
wrapped text row by row without code generation, with no net gain in either content mode
(``bench_spark.py --only-modes``).

``spark_partition_id()`` (never negative) is nondeterministic: the columns ``_xr_g`` and
``_xr_b``, referenced by each later stage, keep Spark's optimizer from merging a
``from_json`` projection with its neighbours, and the guard of the final error keeps the
output filters above the last stage (see :func:`stages`).

The stages of tied definitions (:mod:`.ties`) come before the last one; Avro / Protobuf
payloads decoded over Arrow without ``arrow_udf`` add a ``mapInArrow`` step before step 4.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import envelope, errors, match, payload, ties
from . import names as N
from . import sql as S
from .columns import STRING, as_text, isin_indexes, parse_wrapped, wrapped
from .plan import Plan, arrow_groups
from .sql import Expr as X

#: a ``select`` list (``"*"``, :class:`.sql.Expr` or ``Column``), or ``None`` for the
#: ``mapInArrow`` step of Arrow-decoded payloads without ``arrow_udf``
Stage = list[Any] | None
#: in a ``select``: a column kept by name, or (name, expression)
Entry = str | tuple[str, Any]


class _Stages:
    """The stages built so far, and the columns the last one leaves."""

    def __init__(self, columns: Sequence[str]) -> None:
        self.names = list(columns)
        self.out: list[Stage] = []

    def add(self, columns: Mapping[str, Any]) -> None:
        """A stage that adds ``columns`` (name -> expression) to every column."""
        self.out.append(["*", *(c.alias(n) for n, c in columns.items())])
        self.names += columns

    def select(self, entries: Sequence[Entry]) -> None:
        """A stage of exactly ``entries``."""
        self.out.append(
            [S.col(e) if isinstance(e, str) else e[1].alias(e[0]) for e in entries]
        )
        self.names = [e if isinstance(e, str) else e[0] for e in entries]

    def map_in_arrow(self, added: Sequence[str]) -> None:
        """The ``mapInArrow`` step, which adds the columns ``added``."""
        self.out.append(None)
        self.names += added

    def extend(self, stages: Sequence[Stage]) -> None:
        """``stages``, which keep every column (a column they add is dropped by the next
        :meth:`select` unless it names it)."""
        self.out += stages


def stages(plan: Plan, columns: Sequence[str]) -> list[Stage]:
    """The ``select`` lists of ``route`` for inputs with ``columns`` (module docstring)."""
    out = _Stages(columns)
    # 1. lookups
    lookups = _lookups(plan)
    out.add(lookups)
    # 2. the envelope parse
    variants = envelope.variants(plan)
    out.add(_envelopes(plan, variants))
    # 3. attributes, CloudEvent flags, the match, typed attributes, what is known before
    # the payload parse
    envelopes = [name for _, name, _ in variants]
    carried = [N.INVALID_ENCODING] if N.INVALID_ENCODING in lookups else []
    kept = [*columns, N.PARTITION, N.STRUCTURED, N.VARIANT, *envelopes, *carried]
    out.select([*kept, *_attributes(plan).items(), *match.options(plan)])
    out.add({N.IS_CE: envelope.is_ce(), N.CE_OK: envelope.ce_ok(plan)})
    matched = S.when(S.col(N.PARTITION) >= 0, match.match(plan))
    out.add({N.MATCH: matched, **envelope.typed_attributes(plan)})
    typed = [(j, name) for j, name, _ in variants if j > 0]
    out.add(_before_parse(plan, typed))
    # 4. the payload parse (after the ``mapInArrow`` step, if any); the typed envelopes
    # are left behind (what later stages read of them is taken out in step 3)
    arrow = arrow_groups(plan)
    if arrow and not plan.arrow_udf:
        out.map_in_arrow([g.name for g in arrow])
    typed_names = {name for _, name in typed}
    out.select([*(n for n in out.names if n not in typed_names), *_parse(plan).items()])
    names = out.names
    # the payloads choose among tied definitions
    out.extend(ties.stages(plan, names))
    # 5. the error, and the columns the outputs and dead letters read
    drop = {
        N.IS_CE,
        N.CE_OK,
        N.BARRIER,
        N.PAYLOAD_TEXT,
        N.ERROR_BEFORE_PARSE,
        N.INVALID_ENCODING,
        N.PAYLOAD_BYTES,
    }
    if plan.envelopes is None:
        drop |= {N.STRUCTURED, N.VARIANT, *envelopes, N.RECHECK}
    # ``spark_partition_id()`` keeps the output filters (on ``_xr_e``) above this stage, so
    # the error is computed once, here. Pushed below it, a filter would carry the error
    # expression itself: Spark then infers a second copy of it from the ``_xr_m`` test
    # beside it (two evaluations per good row and twice the generated code), and pushed
    # further it would inline the payload parse into the filter and evaluate it twice
    error = S.when(S.fn("spark_partition_id") >= 0, errors.final(plan))
    out.select([*(n for n in names if n not in drop), (N.ERROR, error)])
    return out.out


def _lookups(plan: Plan) -> dict[str, X]:
    """Stage 1: what later stages read of the input (every binary-mode attribute read
    unconditionally, so that Spark shares the header key array between the lookups), and
    a structured row's wrapped envelope text (computed in this code-generated stage:
    inside ``from_json`` its expressions would be interpreted row by row)."""
    wire = plan.wire
    structured = wire.structured()
    cols = {
        N.PARTITION: S.fn("spark_partition_id"),
        N.STRUCTURED: structured,
        N.WRAPPED: S.when(structured, wrapped(as_text(S.col(wire.payload)))),
    }
    for n in plan.attr_names:
        read = wire.datacontenttype() if n == "datacontenttype" else wire.attribute(n)
        cols[N.header(n)] = read
    invalid = wire.attribute_invalid(plan.attr_names)
    if invalid is not None:
        cols[N.INVALID_ENCODING] = ~structured & invalid
    cols.update(match.options(plan))
    return cols


def _envelopes(plan: Plan, variants: Sequence[tuple[int, str, Any]]) -> dict[str, X]:
    """Stage 2: the envelope variant of structured rows (with several, from the ``type``
    text read without checks: the parse decides whether the row is JSON, and a row whose
    strict ``type`` selects another variant is dead-lettered, ``errors.before_parse``),
    and the envelope parse of each variant."""
    text = as_text(S.col(plan.wire.payload))
    variant = envelope.variant_of(plan, S.fn("get_json_object", text, "$.type"))
    if variant is None:
        variant = S.lit(plan.envelopes[1] if plan.envelopes is not None else 0)
    s = S.col(N.STRUCTURED)
    parse = s & (S.col(N.PARTITION) >= 0)
    cols: dict[str, X] = {N.VARIANT: S.when(s, variant)}
    for j, name, dtype in variants:
        chosen = parse & (S.col(N.VARIANT) == j)
        cols[name] = S.when(chosen, parse_wrapped(S.col(N.WRAPPED), dtype))
    return cols


def _attributes(plan: Plan) -> dict[str, X]:
    """Stage 3: every attribute's text, from the envelope or the binary-mode lookup."""
    return {
        N.attribute(n): S.when(
            S.col(N.STRUCTURED), envelope.structured_attribute(plan, n)
        ).otherwise(S.col(N.header(n)))
        for n in plan.attr_names
    }


def _before_parse(plan: Plan, typed: Sequence[tuple[int, str]]) -> dict[str, X]:
    """Stage 3, last step: the error known before the payload parse, the payload text,
    whether the envelope must be parsed again, the guard of the payload parse; and a typed
    envelope's ``data`` and whether it was corrupt (``typed``: (variant, column)).

    Those two are what later stages read of a typed envelope (copying the whole envelope
    through them costs more). Nondeterministic (``spark_partition_id()``): Spark infers no
    constraints from these aliases. As plain field reads, each occurring in the
    constraints inferred below, every alias doubled the constraint set (2^variants;
    tests/spark/test_plan_size.py). With payloads decoded over Arrow: their bytes.
    """
    # the wrapped payload text, computed in a code-generated stage (see ``_lookups``)
    text = S.when(S.col(N.MATCH).isNotNull(), wrapped(payload.text(plan)))
    cols = {
        N.ERROR_BEFORE_PARSE: errors.before_parse(plan),
        N.PAYLOAD_TEXT: text,
        N.RECHECK: envelope.recheck(plan),
        N.BARRIER: S.fn("spark_partition_id"),
    }
    once = S.fn("spark_partition_id") >= 0
    for j, name in typed:
        cols[N.data(j)] = S.when(once, S.col(name)["v"]["data"])
        cols[N.corrupt(j)] = S.when(once, S.col(name)[N.CORRUPT_FIELD].isNotNull())
    arrow = arrow_groups(plan)
    if arrow:
        indexes = sorted({t.index for g in arrow for t in g.members})
        wanted = isin_indexes(N.MATCH, indexes) & S.col(N.ERROR_BEFORE_PARSE).isNull()
        cols[N.PAYLOAD_BYTES] = S.when(wanted, payload.data_bytes(plan))
    return cols


def _parse(plan: Plan) -> dict[str, Any]:
    """Step 4: the payload parse of each group, and the second envelope parse."""
    guard = (S.col(N.BARRIER) >= 0) & S.col(N.ERROR_BEFORE_PARSE).isNull()
    cols = dict(payload.parse_columns(plan, guard))
    if plan.envelopes is not None:
        # the rows whose typed ``data`` did not fit, parsed again with ``data`` as text:
        # is the envelope valid JSON? (see ``envelope.ok_json``)
        again = S.col(N.RECHECK) & (S.col(N.BARRIER) >= 0)
        text = wrapped(as_text(S.col(plan.wire.payload)))
        reparsed = parse_wrapped(text, envelope.envelope_type(plan, STRING))
        cols[N.REPARSED] = S.when(again, reparsed)
    return cols
