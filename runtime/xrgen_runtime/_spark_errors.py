"""Dead-letter reasons of the Spark decoder: one error struct (``reason``, ``detail``) per
row, ``NULL`` for a good row; the dispatcher's reasons and details.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from . import _spark_sql as S
from ._spark_columns import (
    _CORRUPT,
    _case,
    _err,
    _isin_indexes,
    _missing_fields,
    _type_lookup,
    _unparsed,
)
from ._spark_routing import _Routing
from ._spark_sql import Expr as X
from ._spark_targets import _CORE_KINDS, _REQUIRED, _TYPED_KINDS, _Target

_JSON_MEDIA = r"(?i)^\s*[^/\s;]+/([^/\s;]*\+)?json\s*(;.*)?$"
DECODE_ERROR = "decode-error"
UNKNOWN_TYPE = "unknown-type"
NO_MATCH = "no-match"
VALIDATION_ERROR = "validation-error"


class _Errors(_Routing):
    """The error expressions of a decoder (see the module docstring)."""

    def _pre_error(self) -> X:
        """Why a row matched no definition."""
        s = S.col("_xr_s")
        bad_json = s & ~self._env_ok()
        branches = [
            (self.wire.unsupported(), _err(DECODE_ERROR, "unsupported-format")),
            (bad_json, _err(DECODE_ERROR, "invalid-json")),
        ]
        ce = S.col("_xr_ce")
        for name in _REQUIRED:
            missing = self._attr(name).isNull() | (self._attr(name) == "")
            branches.append(
                (ce & missing, _err(DECODE_ERROR, f"missing-attribute: {name}"))
            )
        branches.append(
            (
                ce & (self._attr("specversion") != "1.0"),
                _err(DECODE_ERROR, "invalid-specversion"),
            )
        )
        typed = [t.defn.type for t in self.targets if t.ce and t.defn.type is not None]
        untyped = any(t.ce and t.defn.type is None for t in self.targets)
        described = S.concat("type ", S.coalesce(self._attr("type"), "?"))
        if not untyped:
            unknown = (
                _type_lookup(dict.fromkeys(typed, 0), self._attr("type")).isNull()
                if typed
                else S.lit(True)
            )
            branches.append((ce & unknown, _err(UNKNOWN_TYPE, described)))
        plain = any(not t.ce for t in self.targets)
        if not plain:
            branches.append((~ce, _err(UNKNOWN_TYPE, "not a CloudEvent")))
        return _case(branches, _err(NO_MATCH, described))

    def _target_error(self, targets: Sequence[_Target]) -> X:
        """Why a row matched to one of ``targets`` is not good, as far as known before its
        payload parse: attribute types, content type and presence of data (``NULL`` when
        all pass). The targets have the same :meth:`_target_checks`; where their rows were
        parsed with different envelope variants, presence of data is read per variant.
        """
        t = targets[0]
        branches: list[tuple[X, X]] = []
        kinds, has_payload, binary = self._target_checks(t)
        for name, kind in kinds:
            raw = self._attr(name)
            bad = raw.isNotNull() & S.col(f"_xr_t_{name}_{kind}").isNull()
            branches.append((bad, _err(DECODE_ERROR, f"invalid-attribute: {name}")))
        if has_payload:
            ct = self._attr("datacontenttype")
            if binary is None:
                json_ct = (
                    ct.isNull() | (ct == "application/json") | ct.rlike(_JSON_MEDIA)
                )
            else:  # the definition's content type matched: its format
                json_ct = S.lit(True)
            branches.append((~json_ct, _err(VALIDATION_ERROR, "unsupported-format")))
            structured = self._by_targets(
                targets,
                self._typed_variant,
                lambda ts: self._structured_no_data(self._typed_variant(ts[0])),
            )
            raw = S.when(S.col("_xr_s"), structured).otherwise(
                self.wire.payload_bytes().isNull()
            )
            branches.append((raw, _err(VALIDATION_ERROR, "no data")))
        return _case(branches)

    def _target_checks(
        self, t: _Target
    ) -> tuple[tuple[tuple[str, str], ...], bool, str | None]:
        """What :meth:`_target_error` checks for ``t`` besides presence of data: (typed
        attributes, has a payload type, binary payload format or ``None``). Targets with
        equal checks share one branch of the error (definitions of different payload types
        too)."""
        kinds = tuple(_CORE_KINDS.items()) + tuple(
            (n, k)
            for n, k in t.kinds.items()
            if k in _TYPED_KINDS and n not in _CORE_KINDS
        )
        spec = self.specs.get(t.index)
        return kinds, t.dtype is not None, spec.format if spec is not None else None

    def _structured_no_data(self, variant: int) -> X:
        """Whether a structured row parsed with envelope ``variant`` (0: ``data`` as text,
        see :meth:`_typed_variant`) has neither ``data`` nor ``data_base64`` (a typed
        ``data`` that did not fit the payload type is there: a payload error)."""
        env = self._env_column(variant) if variant else None
        if env is None:
            env = S.col(self._envelope_variants()[0][1])
            return env["v"]["data"].isNull() & env["v"]["data_base64"].isNull()
        v = env["v"]
        return v["data"].isNull() & v["data_base64"].isNull() & env[_CORRUPT].isNull()

    def _payload_error(self, t: _Target) -> X:
        """Why the parsed payload of a row matched to ``t`` is not good (``NULL`` when it is)."""
        if t.dtype is None:
            return S.lit(None)
        value, bad = self._payload(t)
        branches = [(bad, _err(VALIDATION_ERROR, "invalid payload"))]
        for cond, path in _missing_fields(value, t.dtype, ""):
            branches.append((cond, _err(VALIDATION_ERROR, f"missing field: {path}")))
        return _case(branches)

    def _by_targets(
        self,
        targets: Sequence[_Target],
        key: Callable[[_Target], object],
        build: Callable[[list[_Target]], X],
    ) -> X:
        """``build(group)`` for the group of ``targets`` (equal ``key``) that a matched row's
        ``_xr_m`` is in: one ``CASE`` branch per group, no test with one group (the caller
        only asks for rows matched to one of ``targets``).

        Targets checked alike share one branch: with many definitions of one payload type
        this keeps the generated code small (a 20-branch ``CASE`` of identical checks is ~2x
        slower).
        """
        groups: dict[object, list[_Target]] = {}
        for t in targets:
            groups.setdefault(key(t), []).append(t)
        branches = [
            (_isin_indexes("_xr_m", [t.index for t in ts]), build(ts))
            for ts in groups.values()
        ]
        return branches[0][1] if len(branches) == 1 else _case(branches)

    def _error_before_parse(self) -> X:
        """The error of a row known before its payload parse (``NULL``: none yet)."""
        matched = self._by_targets(
            self.targets, self._target_checks, self._target_error
        )
        error = S.when(S.col("_xr_m").isNull(), self._pre_error()).otherwise(matched)
        variant = self._variant_of(self._attr("type"))
        if variant is not None:
            # the strict ``type`` selects another envelope variant than the text read
            # before the parse did: only a ``type`` member repeated with another value
            other = S.col("_xr_s") & (variant != S.col("_xr_k"))
            duplicate = _err(DECODE_ERROR, "duplicate-attribute: type")
            error = S.when(S.col("_xr_m").isNotNull() & other, duplicate).otherwise(
                error
            )
        if self.wire.attribute_invalid(self.attr_names) is None:
            return error
        encoding = _err(DECODE_ERROR, "invalid-encoding")
        return S.when(S.col("_xr_x"), encoding).otherwise(error)

    def _error(self) -> X:
        """The error struct of a row (``NULL`` when good)."""
        # a row without an error before the parse is matched; targets whose payload is
        # read and checked alike (same parse group, see ``_payload``) share a branch
        payload = self._by_targets(
            self.targets,
            lambda t: (self._group_key(t), t.ce),
            lambda ts: self._payload_error(ts[0]),
        )
        error = S.coalesce(S.col("_xr_e0"), payload)
        if self.envelopes is None:
            return error
        # a typed ``data`` that did not fit in an envelope that is not valid JSON either
        invalid = S.col("_xr_rc") & _unparsed(S.col("_xr_rp"))
        return S.when(invalid, _err(DECODE_ERROR, "invalid-json")).otherwise(error)
