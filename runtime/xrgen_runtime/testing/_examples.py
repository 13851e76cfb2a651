"""Example events: a valid ``Event`` for any message id, built through the package's own
producer method from a payload synthesized from the model's JSON Schema."""

from __future__ import annotations

import json
import math
import random
import re
import string
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from .._event import Event
from ._schema import (
    FORMATS,
    PLAIN_FORMATS,
    ExampleError,
    Parameter,
    bounds,
    exclusive_groups,
    merge_all_of,
    message,
    multiple,
    parameters,
    payload_schema,
    resolve,
    simple_type,
    split_overrides,
)

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

#: how deep optional members and array items are filled before only required ones are
_FULL_DEPTH = 3
#: beyond this depth a nullable or optional recursive member is left out
_MAX_DEPTH = 12
_EPOCH = datetime(2024, 5, 6, 7, 8, 9, tzinfo=timezone.utc)
_SAFE = string.ascii_letters + string.digits


class _Synth:
    """The JSON instance of a schema: ``full`` fills optional members too (near the root),
    choices (enum members, union branches, numbers) come from ``rng``."""

    def __init__(self, root: Mapping[str, Any], rng: random.Random, full: bool) -> None:
        self.root = root
        self.rng = rng
        self.full = full

    def value(
        self, schema: Mapping[str, Any], depth: int, name: str, index: int
    ) -> Any:
        if depth > _MAX_DEPTH * 2:
            raise ExampleError("the schema nests too deep (a required recursion?)")
        schema = resolve(schema, self.root)
        if "allOf" in schema:
            schema = merge_all_of(schema, self.root)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return schema["enum"][
                (self.rng.randrange(len(schema["enum"])) + index) % len(schema["enum"])
            ]
        for key in ("anyOf", "oneOf"):
            if key in schema:
                options = [resolve(o, self.root) for o in schema[key]]
                real = [o for o in options if o.get("type") != "null"]
                if not real or (depth > _MAX_DEPTH and len(real) < len(options)):
                    return None
                rest = {
                    k: v for k, v in schema.items() if k not in (key, "discriminator")
                }
                choice = real[self.rng.randrange(len(real))]
                return self.value({**rest, **choice}, depth, name, index)
        kind = simple_type(schema)
        if kind == "object":
            return self.object(schema, depth)
        if kind == "array":
            return self.array(schema, depth, name)
        if kind == "string":
            return self.string(schema, name, index)
        if kind == "integer" or kind == "number":
            return self.number(schema, kind == "integer", index)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        if kind is None:
            return f"{name or 'value'}-{index + 1}"
        raise ExampleError(f"JSON Schema type {kind!r}")

    def object(self, schema: Mapping[str, Any], depth: int) -> dict[str, Any]:
        props: Mapping[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", ()))
        out: dict[str, Any] = {}
        left_out: set[str] = set()
        for group in exclusive_groups(schema):  # at most one member of each (oneof)
            keep = [m for m in group if m in required]
            keep = keep or [group[self.rng.randrange(len(group))]]
            left_out.update(m for m in group if m not in keep)
        for key, sub in props.items():
            if key in left_out:
                continue
            if key in required or (self.full and depth < _FULL_DEPTH):
                out[key] = self.value(sub, depth + 1, key, 0)
        extra = schema.get("additionalProperties")
        wanted = schema.get("minProperties", 0)
        if isinstance(extra, dict) and not props and (self.full or wanted):
            wanted = max(wanted, 1)
        names = schema.get("propertyNames", {})
        i = 0
        while len(out) < wanted and extra is not False:
            key = self.string(names, "key", i) if names else f"key{i + 1}"
            if key not in out:
                out[key] = self.value(
                    extra if isinstance(extra, dict) else {}, depth + 1, key, i
                )
            i += 1
            if i > wanted + 50:
                raise ExampleError("no distinct member names for minProperties")
        return out

    def array(self, schema: Mapping[str, Any], depth: int, name: str) -> list[Any]:
        prefix: list[Any] = schema.get("prefixItems", [])
        items = schema.get("items", {})
        low = schema.get("minItems", 0)
        high = schema.get("maxItems")
        count = max(low, len(prefix), 1 if self.full and depth < _FULL_DEPTH else 0)
        if items is False:
            count = len(prefix)
        if high is not None:
            count = min(count, high)
        unique = bool(schema.get("uniqueItems"))
        out: list[Any] = []
        seen: set[str] = set()
        for i in range(count):
            sub = prefix[i] if i < len(prefix) else items
            sub = sub if isinstance(sub, dict) else {}
            for salt in range(i, i + count * 20 + 1, count or 1):
                value = self.value(sub, depth + 1, name, salt)
                key = json.dumps(value, sort_keys=True)
                if not unique or key not in seen:
                    break
            else:
                raise ExampleError(f"{name}: no distinct array items for uniqueItems")
            seen.add(key)
            out.append(value)
        return out

    def string(self, schema: Mapping[str, Any], name: str, index: int) -> str:
        low = schema.get("minLength", 0)
        high = schema.get("maxLength")
        pattern = schema.get("pattern")
        fmt = schema.get("format")
        if isinstance(pattern, str):
            plain = (
                None if fmt else self.string({**schema, "pattern": None}, name, index)
            )
            if plain is not None and _matches(pattern, plain):  # a readable example
                return plain
            text = regex_example(pattern, self.rng, low, high)
            if text is None:
                raise ExampleError(f"{name}: no example for pattern {pattern!r}")
            return text
        if fmt == "date-time" and index:
            return (
                (_EPOCH + timedelta(seconds=index)).isoformat().replace("+00:00", "Z")
            )
        if isinstance(fmt, str) and fmt in FORMATS:
            text = FORMATS[fmt]
            fits = low <= len(text) and (high is None or len(text) <= high)
            if fits or fmt not in PLAIN_FORMATS:
                return text
        base = name or "text"
        text = base if index == 0 else f"{base}-{index + 1}"
        if high is not None and len(text) > high:
            suffix = str(index) if index else ""
            text = (base[: max(high - len(suffix), 0)] + suffix)[:high]
        if len(text) < low:
            text += "x" * (low - len(text))
        return text

    def number(
        self, schema: Mapping[str, Any], integer: bool, index: int
    ) -> int | float:
        low, high = bounds(schema, integer)
        if integer:
            low = None if low is None else math.ceil(low)
            high = None if high is None else math.floor(high)
        step = self.rng.randint(0, 10) + index
        if low is not None and high is not None and low <= 0 <= high:
            value: float = min(step, high)
        elif low is not None and high is not None:
            value = low + min(step, high - low) if high >= low else low
        elif low is not None:
            value = low + step
        elif high is not None:
            value = high - step
        else:
            value = self.rng.randint(0, 100) + index
        step_of = schema.get("multipleOf")
        if isinstance(step_of, int | float) and step_of > 0:
            n = math.ceil(value / step_of)
            if high is not None and multiple(n, step_of) > high:
                n -= 1
            value = multiple(n, step_of)
        return int(value) if integer else float(value)


# ------------------------------------------------------------------------------ regexes

_CATEGORIES = {
    "CATEGORY_DIGIT": string.digits,
    "CATEGORY_NOT_DIGIT": string.ascii_letters,
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": _SAFE,
    "CATEGORY_WORD": _SAFE + "_",
    "CATEGORY_NOT_WORD": "-",
}


def _parse(pattern: str) -> Any:
    import re._parser as parser  # type: ignore[import-not-found,unused-ignore]

    return parser.parse(pattern)


class _RegexText:
    """A string matching a parsed regex: repetition counts and alternatives from ``rng``."""

    def __init__(self, rng: random.Random, extra: int) -> None:
        self.rng = rng
        #: how many repetitions beyond the minimum to aim for
        self.extra = extra
        self.groups: dict[int, str] = {}

    def chars(self, items: Any) -> str:
        allowed: list[str] = []
        negate = False
        for op, av in items:
            kind = str(op)
            if kind == "NEGATE":
                negate = True
            elif kind == "LITERAL":
                allowed.append(chr(av))
            elif kind == "RANGE":
                lo, hi = av
                allowed.extend(chr(c) for c in range(lo, min(hi, lo + 25) + 1))
            elif kind == "CATEGORY":
                allowed.extend(_CATEGORIES.get(str(av), ""))
        if negate:
            excluded = set(allowed)
            allowed = [c for c in _SAFE + "_-" if c not in excluded]
        return "".join(allowed)

    def text(self, parsed: Any) -> str:
        out: list[str] = []
        for op, av in parsed:
            kind = str(op)
            if kind == "LITERAL":
                out.append(chr(av))
            elif kind == "NOT_LITERAL":
                out.append("a" if chr(av) != "a" else "b")
            elif kind == "ANY":
                out.append("x")
            elif kind == "IN":
                chars = self.chars(av)
                if not chars:
                    raise ExampleError("empty character class")
                out.append(chars[self.rng.randrange(len(chars))])
            elif kind == "BRANCH":
                branches = av[1]
                out.append(self.text(branches[self.rng.randrange(len(branches))]))
            elif kind in ("SUBPATTERN", "ATOMIC_GROUP"):
                sub = av[-1] if kind == "SUBPATTERN" else av
                group = av[0] if kind == "SUBPATTERN" else None
                piece = self.text(sub)
                if group is not None:
                    self.groups[group] = piece
                out.append(piece)
            elif kind in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                low, high, sub = av
                count = low + self.rng.randint(0, self.extra)
                count = min(count, high)
                out.extend(self.text(sub) for _ in range(count))
            elif kind == "GROUPREF":
                out.append(self.groups.get(av, ""))
            elif kind in ("AT", "ASSERT", "ASSERT_NOT"):
                continue
            else:
                raise ExampleError(f"regex construct {kind}")
        return "".join(out)


def _matches(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False


def regex_example(
    pattern: str, rng: random.Random, min_length: int = 0, max_length: int | None = None
) -> str | None:
    """A string that ``pattern`` matches (JSON Schema semantics: anywhere in the string)
    within the length bounds, or ``None`` when none was found."""
    try:
        compiled = re.compile(pattern)
        parsed = _parse(pattern)
    except (re.error, ExampleError):
        return None
    for attempt in range(40):
        try:
            text = _RegexText(rng, min(attempt // 4, 8) + 1).text(parsed)
        except ExampleError:
            return None
        if len(text) < min_length:
            padded = text + "x" * (min_length - len(text))
            text = padded if compiled.search(padded) else text
        if (
            compiled.search(text)
            and len(text) >= min_length
            and (max_length is None or len(text) <= max_length)
        ):
            return text
    return None


# ---------------------------------------------------------------------------- the factory


def _argument(p: Parameter, rng: random.Random) -> Any:
    """An example value of a placeholder or extension attribute parameter."""
    n = rng.randint(1, 99)
    kind = p.attribute.kind if p.attribute is not None else None
    if p.kind == "datetime":
        return _EPOCH + timedelta(minutes=n)
    if p.kind == "bool":
        return True
    if p.kind == "int":
        return n
    if p.kind == "bytes":
        return bytes([1, 2, n])
    if kind == "uri":
        return f"https://example.com/{p.name}/{n}"
    if kind == "urireference":
        return f"/{p.name}/{n}"
    return f"{p.name.replace('_', '-')}-{n}"


def payload_instance(model: type[BaseModel], seed: int) -> BaseModel:
    """A valid instance of ``model`` synthesized from its JSON Schema and validated from
    JSON (as a consumer validates it): every member first, then only the required ones.
    """
    schema = payload_schema(model)
    problems: list[str] = []
    for full in (True, False):
        synth = _Synth(schema, random.Random(seed), full)
        try:
            document = synth.value(schema, 0, "", 0)
            return model.model_validate_json(json.dumps(document))
        except ExampleError as exc:
            problems.append(str(exc))
        except ValidationError as exc:
            problems.append(
                str(exc).splitlines()[0] + ": " + str(exc.errors()[0]["loc"])
            )
    raise ExampleError(f"{model.__name__}: {problems[-1]}")


def example_event(
    package_or_messages: Any, message_id: str, *, seed: int = 0, **overrides: Any
) -> Event[Any]:
    """A valid event of message ``message_id``, made by the package's own producer method
    (``MESSAGES[message_id].create``), so the producer's checks apply.

    ``package_or_messages`` is a generated package or its ``MESSAGES``. The payload is
    synthesized from the model's JSON Schema (every member near the root, enum members,
    formats, bounds, lengths, patterns, nested models, arrays, unions); an opaque payload is
    ``b"example"``. Placeholders and extension attributes get values of their annotated
    type. The result depends on ``seed`` only (``id`` and ``time`` aside, which the producer
    fills unless given). ``overrides``: an argument of the producer method by name
    (``data=``, a placeholder, an extension attribute, ``id=``, ``time=``), or a payload field
    by name or alias (merged into the synthesized payload, then validated by the producer).
    ``ExampleError`` (a ``ValueError``) when no valid payload can be synthesized.
    """
    info = message(package_or_messages, message_id)
    params, names = parameters(info)
    arguments, fields = split_overrides(info, names, overrides)
    rng = random.Random(seed)
    for p in params:
        value = _argument(p, rng)
        arguments.setdefault(p.name, value)
    if "data" not in arguments:
        model = info.definition.model
        if model is None:
            arguments["data"] = b"example"
        else:
            try:
                instance = payload_instance(model, seed)
            except ExampleError as exc:
                raise ExampleError(f"{message_id}: {exc}") from None
            if fields:
                document = instance.model_dump(by_alias=True)
                document.update(fields)
                arguments["data"] = document
            else:
                arguments["data"] = instance
    data = arguments.pop("data")
    return info.create(data, **arguments)


def example_events(
    package_or_messages: Any, message_id: str, **overrides: Any
) -> SearchStrategy[Event[Any]]:
    """A hypothesis strategy of valid events of ``message_id`` (needs ``hypothesis``:
    ``pip install 'xrgen-runtime[testing]'``); ``overrides`` as for :func:`example_event`,
    where a value may itself be a strategy."""
    try:
        from . import _strategies
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "example_events needs hypothesis: pip install 'xrgen-runtime[testing]'"
        ) from exc
    return _strategies.events(message(package_or_messages, message_id), overrides)
