"""The match of the Spark decoder: the index of the first definition a row passes (the
dispatcher's most-specific-first order), with the checks of definitions that differ only
in their CloudEvents ``type`` sharing one ``CASE`` branch and a type lookup.
"""

from __future__ import annotations

import operator

from . import _spark_sql as S
from ._spark_columns import _all, _canonical, _case, _media, _type_lookup
from ._spark_parse import _Parse
from ._spark_sql import Expr as X
from ._spark_targets import _Target


class _Routing(_Parse):
    """The match expressions of a decoder (see the module docstring)."""

    def _option_map(self) -> dict[str, X]:
        """Option column name -> its expression, for every readable option of the targets."""
        cols: dict[str, X] = {}
        for t in self.targets:
            paths = [o.path for o in t.options] + [
                p for p, _, _ in t.templates if isinstance(p, tuple)
            ]
            for path in paths:
                name = "_xr_o_" + "_".join(path)
                col = self.wire.option(path)
                if name not in cols and col is not None:
                    cols[name] = col
        return cols

    def _source(self, ref: str | tuple[str, ...]) -> X | None:
        if isinstance(ref, str):
            return S.col("_xr_a_" + ref)
        if self.wire.option(ref) is None:
            return None
        return S.col("_xr_o_" + "_".join(ref))

    def _condition(self, t: _Target, by_type: bool = True) -> X:
        """Whether a row passes ``t``'s checks; without its literal ``type`` unless ``by_type``.

        Everything it checks besides that ``type`` is in :meth:`_checks_key`.
        """
        conds: list[X] = []
        if t.ce:
            conds.append(S.col("_xr_ce_ok"))
            if by_type and t.literal_type is not None:
                conds.append(self._attr("type") == t.literal_type)
        else:
            conds.append(~S.col("_xr_ce"))
        conds += [self._attr(n).isNotNull() for n in t.required]
        conds += [self._attr(n) == v for n, v in t.constants]
        if t.content_type is not None:
            raw = self._attr("datacontenttype")
            media = S.coalesce(_media(raw), S.lit("application/json"))
            # the exact media type first: ``_media`` lower-cases (ICU, per row)
            same = S.when(raw == t.content_type, S.lit(True)).otherwise(
                media == t.content_type
            )
            conds.append(same)
        spec = self.specs.get(t.index)
        if spec is not None and spec.schema_ids:
            # Confluent framing with known schema ids: the id routes the row
            headers = [
                bytearray(b"\x00" + i.to_bytes(4, "big"))
                for i in sorted(spec.schema_ids)
            ]
            conds.append(S.fn("substring", self._data_bytes(), 1, 5).isin(headers))
        for opt in t.options:
            col = self.wire.option(opt.path)
            if col is not None:
                expected = self.wire.expected(opt.path, _canonical(opt.value))
                conds.append(S.col("_xr_o_" + "_".join(opt.path)) == expected)
        seen: dict[str, X] = {}
        for ref, regex, names in t.templates:
            src = self._source(ref)
            if src is None:
                continue
            conds.append(src.rlike(regex))
            for i, name in enumerate(names):
                value = S.fn("regexp_extract", src, regex, i + 1)
                if name in seen:
                    conds.append(seen[name] == value)
                else:
                    seen[name] = value
        return S.coalesce(_all(conds), S.lit(False))

    def _checks_key(self, t: _Target) -> tuple[object, ...]:
        """What :meth:`_condition` checks besides a literal ``type``: equal keys, equal checks."""
        return (
            tuple(t.required),
            tuple(t.constants),
            t.content_type,
            (
                tuple(sorted(self.specs[t.index].schema_ids))
                if t.index in self.specs
                else ()
            ),
            tuple((opt.path, _canonical(opt.value)) for opt in t.options),
            tuple(t.templates),
        )

    def _match(self) -> X:
        """The index of the first target whose checks a row passes (``NULL``: none).

        One ``CASE`` branch per :meth:`_match_entries` entry; an entry of several types looks
        the row's type up (:func:`_type_lookup`), so the generated code does not grow with
        the number of types. With a branch per type, 20 types made the stage's method too
        big for the JVM to compile (over 8,000 bytes of bytecode: it runs interpreted) and
        routing took ~2x as long as for one type.
        """
        branches: list[tuple[X, X]] = []
        for t, types in self._match_entries():
            if len(types) <= 1:
                branches.append((self._condition(t), S.lit(t.index)))
            else:
                index = _type_lookup(types, self._attr("type"))
                condition = index.isNotNull() & self._condition(t, by_type=False)
                branches.append((condition, index))
        return _case(branches)

    def _match_entries(self) -> list[tuple[_Target, dict[str, int]]]:
        """The branches of :meth:`_match` in order: (target, literal type -> target index).

        The order is the most-specific-match order (``_Target.rank``).

        Targets whose checks differ only in their literal CloudEvents ``type`` share the
        entry of the first of them (the types map to their own indexes). First match wins as
        with one branch per target: a target joins an earlier entry only if no entry in
        between could match a row of its type (one of the same type, or one whose type is a
        template or absent; entries without an envelope never match a CloudEvent).
        """
        entries: list[tuple[_Target, dict[str, int]]] = []
        latest: dict[tuple[object, ...], int] = {}  # checks key -> its latest entry
        holder: dict[str, int] = {}  # type -> the latest entry that looks it up
        barrier = -1  # the latest entry that can match a row of any type
        for t in sorted(self.targets, key=operator.attrgetter("rank")):
            ce_type = t.literal_type
            if ce_type is None:
                if t.ce:
                    barrier = len(entries)
                entries.append((t, {}))
                continue
            key = self._checks_key(t)
            at = latest.get(key, -1)
            if at <= barrier or holder.get(ce_type, -1) > at:
                at = latest[key] = len(entries)
                entries.append((t, {}))
            entries[at][1].setdefault(ce_type, t.index)
            holder[ce_type] = at
        return entries
