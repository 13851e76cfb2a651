"""Avro binary payloads (needs ``fastavro``: ``pip install xrgen-runtime[avro]``).

The writer schema is the catalog's. Encoding dumps the pydantic model (wire names) and writes
it with ``fastavro.schemaless_writer`` against the schema parsed once per codec; decoding reads
with ``fastavro.schemaless_reader`` (all bytes must be consumed) and validates the record into
the model (constraints, enums, logical types).

Framing (``framing``; per package with ``xrgen generate --avro-framing``, per message with the
``avro-framing-messages`` setting, which reaches the codec as ``framing_by_type``):

- ``plain``: the Avro binary encoding of the datum, nothing else;
- ``single-object``: Avro single-object encoding: ``C3 01``, the 8-byte little-endian
  CRC-64-AVRO fingerprint of the schema's parsing canonical form, then the datum; decoding
  rejects another fingerprint;
- ``confluent``: the Confluent wire format: ``00``, the 4-byte big-endian schema id, then the
  datum. Ids come from a schema registry client: any object with the interface of
  confluent-kafka's ``SchemaRegistryClient`` (``register_schema(subject, schema)`` and
  ``get_schema(schema_id)``), set with ``use_schema_registry(client)`` (all codecs) or on a
  codec's ``registry`` attribute. The subject is ``<topic>-value`` when the event has a Kafka
  topic (confluent-kafka's default ``TopicNameStrategy``), else the record's full name.
  Decoding reads the datum with the writer schema the registry has for the id (cached per id)
  and resolves it into the catalog's schema (Avro schema resolution); without a registry,
  the catalog's schema is taken as the writer schema.
"""

from __future__ import annotations

import io
import json
import struct
from collections.abc import Mapping
from datetime import datetime, time, timezone
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ValidationError

from .._event import Event
from ..bindings import KafkaBinding
from ._avro_compile import Unsupported, compile_codec

__all__ = [
    "FRAMINGS",
    "AvroCodec",
    "LocalTimestampMicros",
    "LocalTimestampMillis",
    "TimeMicros",
    "TimeMillis",
    "TimestampMicros",
    "TimestampMillis",
    "use_schema_registry",
]


def _millis(value: Any) -> Any:
    """``value`` (a datetime or time) with microseconds cut to whole milliseconds."""
    return value.replace(microsecond=value.microsecond // 1000 * 1000)


def _wall_clock(value: Any) -> Any:
    """``value`` (a datetime or time) without its zone: the wall-clock reading it has."""
    return value.replace(tzinfo=None)


def _wall_clock_millis(value: Any) -> Any:
    return _millis(_wall_clock(value))


def _instant(value: datetime) -> datetime:
    """``value``, a datetime without zone taken as UTC (as the Avro writer takes it)."""
    return value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)


def _instant_millis(value: datetime) -> datetime:
    return _millis(_instant(value))  # type: ignore[no-any-return]


#: an instant as Avro ``timestamp-millis`` holds it: whole milliseconds, a datetime without
#: zone taken as UTC (model field type)
TimestampMillis = Annotated[datetime, AfterValidator(_instant_millis)]
#: as ``TimestampMillis`` for ``timestamp-micros``/``-nanos`` (microseconds)
TimestampMicros = Annotated[datetime, AfterValidator(_instant)]
#: a date and time of day with no zone, as Avro ``local-timestamp-millis`` holds it: whole
#: milliseconds, a zone given is dropped (its wall-clock reading kept) (model field type)
LocalTimestampMillis = Annotated[datetime, AfterValidator(_wall_clock_millis)]
#: as ``LocalTimestampMillis`` for ``local-timestamp-micros``/``-nanos`` (microseconds)
LocalTimestampMicros = Annotated[datetime, AfterValidator(_wall_clock)]
#: a time of day as Avro ``time-millis`` holds it: whole milliseconds, no zone (model field
#: type; a zone given is dropped)
TimeMillis = Annotated[time, AfterValidator(_wall_clock_millis)]
#: a time of day as Avro ``time-micros`` holds it: no zone (model field type)
TimeMicros = Annotated[time, AfterValidator(_wall_clock)]

FRAMINGS = ("plain", "single-object", "confluent")
_SINGLE_OBJECT = b"\xc3\x01"
_CONFLUENT = b"\x00"
_registry: Any = None


def use_schema_registry(client: Any) -> None:
    """Use ``client`` (confluent-kafka ``SchemaRegistryClient`` interface) for every
    Confluent-framed Avro codec that has no ``registry`` of its own; ``None`` unsets it.
    """
    global _registry
    _registry = client


def _fastavro() -> Any:
    try:
        import fastavro
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Avro payloads need fastavro: pip install 'xrgen-runtime[avro]'"
        ) from None
    return fastavro


class AvroCodec:
    """The Avro codec of one payload model (see the module doc)."""

    format = "avro"
    binary = True

    def __init__(
        self,
        model: type[BaseModel],
        schema: str | Mapping[str, Any] | list[Any],
        framing: str = "plain",
        framing_by_type: Mapping[str, str] | None = None,
        registry: Any = None,
    ) -> None:
        for f in (framing, *(framing_by_type or {}).values()):
            if f not in FRAMINGS:
                raise ValueError(f"Avro framing must be one of {FRAMINGS}, not {f!r}")
        self.model = model
        self.schema: Any = json.loads(schema) if isinstance(schema, str) else schema
        self.framing = framing
        self.framing_by_type = dict(framing_by_type or {})
        self.registry = registry
        self._parsed: Any = None
        self._codec: tuple[Any, Any] | None = None
        self._fingerprint: bytes | None = None
        self._validate = model.__pydantic_validator__.validate_python
        self._dump = model.__pydantic_serializer__.to_python
        #: subject -> schema id; schema id -> parsed writer schema
        self._ids: dict[str, int] = {}
        self._writers: dict[int, Any] = {}
        self._cached_for: Any = None
        #: subject -> the 5-byte Confluent header
        self._headers: dict[str, bytes] = {}

    # ------------------------------------------------------------------ schema facts

    @property
    def parsed(self) -> Any:
        """The schema parsed by fastavro (once)."""
        if self._parsed is None:
            self._parsed = _fastavro().parse_schema(self.schema)
        return self._parsed

    @property
    def fingerprint(self) -> bytes:
        """CRC-64-AVRO fingerprint of the parsing canonical form, 8 bytes little-endian."""
        if self._fingerprint is None:
            from fastavro.schema import fingerprint, to_parsing_canonical_form

            hex_ = fingerprint(to_parsing_canonical_form(self.schema), "CRC-64-AVRO")
            self._fingerprint = int(hex_, 16).to_bytes(8, "little")
        return self._fingerprint

    def framing_of(self, event: Event[Any] | None) -> str:
        """The framing for ``event`` (its CloudEvents type may have its own)."""
        if self.framing_by_type and event is not None:
            t = event.attributes.get("type")
            if isinstance(t, str) and t in self.framing_by_type:
                return self.framing_by_type[t]
        return self.framing

    def subject(self, event: Event[Any] | None) -> str:
        binding = event.binding if event is not None else None
        if isinstance(binding, KafkaBinding) and binding.topic:
            return binding.topic + "-value"
        name = self.schema.get("name") if isinstance(self.schema, dict) else None
        space = self.schema.get("namespace") if isinstance(self.schema, dict) else None
        if isinstance(name, str):
            return (
                f"{space}.{name}"
                if isinstance(space, str) and "." not in name
                else name
            )
        return self.model.__name__

    def _client(self) -> Any:
        client = self.registry if self.registry is not None else _registry
        if client is not self._cached_for:
            # ids belong to a registry: another registry starts empty caches
            self._ids.clear()
            self._writers.clear()
            self._headers.clear()
            self._cached_for = client
        return client

    def schema_id(self, subject: str) -> int:
        """The registry's id of the schema under ``subject`` (registered once, then cached)."""
        client = self._client()
        known = self._ids.get(subject)
        if known is not None:
            return known
        if client is None:
            raise ValueError(
                "Confluent-framed Avro needs a schema registry: "
                "xrgen_runtime.formats.avro.use_schema_registry(client)"
            )
        text = json.dumps(self.schema, separators=(",", ":"))
        try:
            from confluent_kafka.schema_registry import Schema

            schema: Any = Schema(text, "AVRO")
        except ImportError:
            schema = _Schema(text)
        sid = int(client.register_schema(subject, schema))
        self._ids[subject] = sid
        self._writers.setdefault(sid, self.parsed)
        return sid

    # ------------------------------------------------------------------ codec

    def _compiled(self) -> tuple[Any, Any]:
        """The schema's compiled ``(encode, decode)`` (``_avro_compile``), or fastavro's."""
        if self._codec is None:
            try:
                self._codec = compile_codec(self.parsed)
            except Unsupported:
                self._codec = (self._fastavro_encode, self._fastavro_decode)
        return self._codec

    def _fastavro_encode(self, datum: Any) -> bytes:
        out = io.BytesIO()
        try:
            _fastavro().schemaless_writer(out, self.parsed, datum)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise ValueError(f"value does not fit the Avro schema: {exc}") from None
        return out.getvalue()

    def _fastavro_decode(self, data: bytes, writer: Any = None) -> Any:
        buf = io.BytesIO(data)
        try:
            datum = _fastavro().schemaless_reader(
                buf, writer or self.parsed, None if writer is None else self.parsed
            )
        except Exception as exc:  # fastavro raises many kinds for corrupt input
            raise ValueError(f"not Avro binary of the schema: {exc!r}") from None
        if buf.tell() != len(data):
            raise ValueError(f"{len(data) - buf.tell()} bytes after the Avro datum")
        return datum

    def encode(self, model: BaseModel, event: Event[Any] | None = None) -> bytes:
        encode = self._codec[0] if self._codec is not None else self._compiled()[0]
        try:
            body: bytes = encode(self._dump(model, by_alias=True))
        except ValueError as exc:
            raise ValueError(f"{type(model).__name__}: {exc}") from None
        framing = self.framing_of(event) if self.framing_by_type else self.framing
        if framing == "plain":
            return body
        if framing == "single-object":
            return _SINGLE_OBJECT + self.fingerprint + body
        subject = self.subject(event)
        header = (
            self._headers.get(subject) if self._cached_for is self._client() else None
        )
        if header is None:
            header = _CONFLUENT + struct.pack(">I", self.schema_id(subject))
            self._headers[subject] = header
        return header + body

    def decode(self, data: bytes, event: Event[Any] | None = None) -> BaseModel:
        framing = self.framing_of(event)
        view = memoryview(data)
        writer = self.parsed
        if framing == "single-object":
            if bytes(view[:2]) != _SINGLE_OBJECT:
                raise ValueError("not Avro single-object encoding (no C3 01 marker)")
            if bytes(view[2:10]) != self.fingerprint:
                raise ValueError(
                    f"Avro schema fingerprint {bytes(view[2:10]).hex()} is not the catalog's"
                )
            view = view[10:]
        elif framing == "confluent":
            if len(view) < 5 or view[0] != 0:
                raise ValueError("not the Confluent wire format (no magic byte 0)")
            writer = self._writer(struct.unpack(">I", view[1:5])[0])
            view = view[5:]
        if writer is self.parsed:
            decode = self._codec[1] if self._codec is not None else self._compiled()[1]
            datum = decode(bytes(view))
        else:
            datum = self._fastavro_decode(bytes(view), writer)
        try:
            return self._validate(datum)  # type: ignore[no-any-return]
        except ValidationError as exc:
            raise ValueError(str(exc)) from None

    def _writer(self, schema_id: int) -> Any:
        client = self._client()
        if client is None:
            return self.parsed
        known = self._writers.get(schema_id)
        if known is not None:
            return known
        try:
            registered = json.loads(client.get_schema(schema_id).schema_str)
            same = registered == self.schema
            parsed = self.parsed if same else _fastavro().parse_schema(registered)
        except Exception as exc:
            raise ValueError(f"schema id {schema_id}: {exc}") from None
        self._writers[schema_id] = parsed
        return parsed


class _Schema:
    """Stand-in for confluent-kafka's ``Schema`` when that package is absent."""

    def __init__(self, schema_str: str) -> None:
        self.schema_str = schema_str
        self.schema_type = "AVRO"
        self.references: list[Any] = []
