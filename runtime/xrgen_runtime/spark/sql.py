"""Spark SQL expression text for the decoder: the one place catalog text becomes SQL.

The decoder builds its column expressions as SQL text (:class:`Expr`, with the operators and
methods of ``pyspark.sql.Column`` it uses) and hands each ``select`` list to the JVM in one
call (``DataFrame.selectExpr``). Built with ``Column`` objects, every operation is a call into
the JVM (several, as PySpark 4 records each operation's call site): a decoder of 1,100
definitions took about 14,000 calls to build its routing. The text parses to the same
Catalyst expressions.

Catalog text (types, constants, regexes, field names) only ever appears in a string literal
(:func:`lit`): printable ASCII without ``'``, ``\\`` and ``$`` as itself, anything else as
``CAST(X'<hex of its UTF-8>' AS STRING)``. So no catalog text can end a literal, start an
escape, or be read by Spark's ``${var}`` substitution, whatever the session's parser settings
(``spark.sql.parser.escapedStringLiterals``). Field and map keys are literals too
(``expr['name']``); identifiers are the decoder's own column names and the landing schemas'
(backquoted, a backquote doubled). The optimizer folds the casts of constants into literals.
:func:`apply` hands a ``select`` list to the JVM.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .names import LAMBDA

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["Expr", "apply", "col", "fn", "lit", "when"]

_PLAIN = re.compile(r"[ !\"#%&()*+,\-./0-9:;<=>?@A-Z\[\]^_a-z{|}~]*")
_LAMBDAS = [0]  # variables numbered so far


def quote(name: str) -> str:
    """``name`` as a backquoted identifier."""
    return "`" + name.replace("`", "``") + "`"


def text_literal(value: str) -> str:
    """A string literal whose value is ``value``, inert whatever ``value`` holds."""
    if _PLAIN.fullmatch(value):
        return "'" + value + "'"
    return "CAST(X'" + value.encode("utf-8", "surrogatepass").hex() + "' AS STRING)"


def _literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if -(2**31) <= value < 2**31:
            return str(value) if value >= 0 else f"({value})"
        return f"{value}L" if value >= 0 else f"({value}L)"
    if isinstance(value, float) and math.isfinite(value):
        return f"CAST('{value!r}' AS DOUBLE)"
    if isinstance(value, str):
        return text_literal(value)
    if isinstance(value, (bytes, bytearray)):
        return "X'" + bytes(value).hex() + "'"
    raise TypeError(f"no SQL literal for {type(value).__name__}")


class Expr:
    """A SQL expression (text); operators build bigger ones, as with ``Column``.

    ``&`` and ``|`` chains stay flat (``a AND b AND c``): nested parentheses would grow the
    parser's recursion with the number of conditions.
    """

    __slots__ = ("sql", "_op", "_parts")
    __hash__ = None  # type: ignore[assignment]  # ``==`` builds an expression

    def __init__(self, sql: str, op: str = "", parts: tuple[str, ...] = ()) -> None:
        self.sql = sql
        self._op = op
        self._parts = parts

    def __repr__(self) -> str:
        return f"Expr({self.sql!r})"

    def __str__(self) -> str:
        return self.sql

    def __bool__(self) -> bool:
        raise TypeError("an Expr has no truth value; use &, |, ~")

    # -- boolean ---------------------------------------------------------------------------

    def _chain(self, op: str, other: object) -> Expr:
        parts = [*self._operands(op), *_expr(other)._operands(op)]
        return Expr("(" + f" {op} ".join(parts) + ")", op, tuple(parts))

    def _operands(self, op: str) -> tuple[str, ...]:
        return self._parts if self._op == op else (self.sql,)

    def __and__(self, other: object) -> Expr:
        return self._chain("AND", other)

    def __or__(self, other: object) -> Expr:
        return self._chain("OR", other)

    def __invert__(self) -> Expr:
        return Expr(f"(NOT {self.sql})")

    # -- comparison and arithmetic ---------------------------------------------------------

    def _binary(self, op: str, other: object) -> Expr:
        return Expr(f"({self.sql} {op} {_expr(other).sql})")

    def __eq__(self, other: object) -> Expr:  # type: ignore[override]
        return self._binary("=", other)

    def __ne__(self, other: object) -> Expr:  # type: ignore[override]
        return self._binary("!=", other)

    def __ge__(self, other: object) -> Expr:
        return self._binary(">=", other)

    def __gt__(self, other: object) -> Expr:
        return self._binary(">", other)

    def __le__(self, other: object) -> Expr:
        return self._binary("<=", other)

    def __lt__(self, other: object) -> Expr:
        return self._binary("<", other)

    def __add__(self, other: object) -> Expr:
        return self._binary("+", other)

    def __sub__(self, other: object) -> Expr:
        return self._binary("-", other)

    def __truediv__(self, other: object) -> Expr:
        return self._binary("/", other)

    def __mod__(self, other: object) -> Expr:
        return self._binary("%", other)

    # -- the Column methods the decoder uses -----------------------------------------------

    def isNull(self) -> Expr:  # noqa: N802 (Column's name)
        return Expr(f"({self.sql} IS NULL)")

    def isNotNull(self) -> Expr:  # noqa: N802
        return Expr(f"({self.sql} IS NOT NULL)")

    def getField(self, name: str) -> Expr:  # noqa: N802
        return self[name]

    def __getitem__(self, key: object) -> Expr:
        return Expr(f"{self.sql}[{_expr(key).sql}]")

    def cast(self, dtype: str) -> Expr:
        return Expr(f"CAST({self.sql} AS {dtype})")

    def try_cast(self, dtype: str) -> Expr:
        return Expr(f"TRY_CAST({self.sql} AS {dtype})")

    def startswith(self, prefix: str) -> Expr:
        return fn("startswith", self, prefix)

    def endswith(self, suffix: str) -> Expr:
        return fn("endswith", self, suffix)

    def contains(self, part: str) -> Expr:
        return fn("contains", self, part)

    def rlike(self, regex: str) -> Expr:
        return Expr(f"({self.sql} RLIKE {_literal(regex)})")

    def isin(self, values: Iterable[object]) -> Expr:
        listed = ", ".join(_literal(v) for v in values)
        return Expr(f"({self.sql} IN ({listed}))")

    def alias(self, name: str) -> Expr:
        return Expr(f"{self.sql} AS {quote(name)}")

    def column(self) -> Any:
        """This expression as a ``pyspark.sql.Column`` (one call into the JVM)."""
        from pyspark.sql import functions as F

        return F.expr(self.sql)


def _expr(value: object) -> Expr:
    return value if isinstance(value, Expr) else Expr(_literal(value))


def lit(value: object) -> Expr:
    """A literal: ``None``, bool, int, str or bytes."""
    return Expr(_literal(value))


def col(name: str) -> Expr:
    """The column ``name`` (exactly that name: no dotted path)."""
    return Expr(quote(name))


def fn(name: str, *args: object) -> Expr:
    """``name(args...)``: a SQL function (``name`` is the decoder's, never catalog text)."""
    return Expr(f"{name}(" + ", ".join(_expr(a).sql for a in args) + ")")


def lambda_(body: Any) -> str:
    """``x -> body(x)`` with a variable name no input column can shadow in the body."""
    _LAMBDAS[0] += 1
    var = f"{LAMBDA}{_LAMBDAS[0]}"
    return f"{var} -> {_expr(body(Expr(var))).sql}"


def higher(name: str, array: Expr, body: Any) -> Expr:
    """A higher-order function: ``name(array, x -> body(x))``."""
    return Expr(f"{name}({array.sql}, {lambda_(body)})")


def map_values(value: Expr, body: Any) -> Expr:
    """``transform_values(value, (k, v) -> body(v))``, variables named as ``lambda_``'s."""
    _LAMBDAS[0] += 1
    k, v = f"{LAMBDA}k{_LAMBDAS[0]}", f"{LAMBDA}v{_LAMBDAS[0]}"
    return Expr(
        f"transform_values({value.sql}, ({k}, {v}) -> {_expr(body(Expr(v))).sql})"
    )


class Case(Expr):
    """``CASE WHEN ... END`` under construction (``when(...).when(...).otherwise(...)``)."""

    __slots__ = ("_branches",)

    def __init__(self, branches: tuple[tuple[str, str], ...]) -> None:
        self._branches = branches
        super().__init__(self._text(None))

    def _text(self, otherwise: str | None) -> str:
        body = " ".join(f"WHEN {c} THEN {v}" for c, v in self._branches)
        tail = f" ELSE {otherwise}" if otherwise is not None else ""
        return f"CASE {body}{tail} END"

    def when(self, cond: object, value: object) -> Case:
        return Case((*self._branches, (_expr(cond).sql, _expr(value).sql)))

    def otherwise(self, value: object) -> Expr:
        return Expr(self._text(_expr(value).sql))


def when(cond: object, value: object) -> Case:
    return Case(((_expr(cond).sql, _expr(value).sql),))


def coalesce(*values: object) -> Expr:
    return fn("coalesce", *values)


def concat(*values: object) -> Expr:
    return fn("concat", *values)


def named_struct(fields: Sequence[tuple[str, object]]) -> Expr:
    """``named_struct(name, value, ...)`` (names as literals)."""
    args: list[object] = []
    for name, value in fields:
        args += [name, value]
    return fn("named_struct", *args)


def str_map(options: dict[str, str]) -> Expr:
    """``map(k, v, ...)`` of strings (``from_json`` options)."""
    args: list[object] = []
    for key, value in options.items():
        args += [key, value]
    return fn("map", *args)


def from_json(text: Expr, schema: Any, options: dict[str, str] | None = None) -> Expr:
    """``from_json(text, schema[, options])``; ``schema`` a ``DataType`` or a DDL string."""
    spec = schema if isinstance(schema, str) else schema.json()
    args: list[object] = [text, spec]
    if options:
        args.append(str_map(options))
    return fn("from_json", *args)


def json_text(value: object) -> str:
    """Compact JSON of ``value`` (for literals the optimizer folds)."""
    return json.dumps(value, separators=(",", ":"))


def apply(df: DataFrame, select: Sequence[Any]) -> DataFrame:
    """``df`` with the ``select`` list (``"*"``, :class:`Expr` or, for the native Avro /
    Protobuf expressions, ``Column``): one call into the JVM when all are SQL text."""
    if all(isinstance(c, (str, Expr)) for c in select):
        return df.selectExpr(*(c if isinstance(c, str) else c.sql for c in select))
    from pyspark.sql import functions as F

    return df.select(
        *(
            c if isinstance(c, str) else F.expr(c.sql) if isinstance(c, Expr) else c
            for c in select
        )
    )
