"""Protobuf payloads (needs ``protobuf``: ``pip install xrgen-runtime[protobuf]``).

The generated package holds the ``_pb2`` module protoc compiled from the catalog's ``.proto``
(``<package>/_proto/``); the codec imports it on first use. Encoding dumps the pydantic model
(proto field names, ``None`` left out) into the compiled class's constructor and serializes it;
decoding parses the bytes with the compiled class (``FromString``), turns the message into a dict
(enum numbers to names, unset message/``optional``/``oneof`` fields to ``None``) and validates it
into the model. Setting two members of one ``oneof`` is an error (Protobuf would keep the last).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from .._event import Event

__all__ = ["ProtobufCodec"]

_REPEATED = 3
_MESSAGE = 11
_ENUM = 14


class ProtobufCodec:
    """The Protobuf codec of one payload model and its compiled message class."""

    format = "protobuf"
    binary = True

    def __init__(
        self, model: type[BaseModel], package: str, module: str, message: str
    ) -> None:
        self.model = model
        #: ``__name__`` of a module of the generated package (the package is its parent)
        self.package = package.rpartition(".")[0] or package
        self.module = module
        self.message = message
        self._cls: Any = None
        self._to_dict: Callable[[Any], dict[str, Any]] | None = None
        self._oneofs: tuple[tuple[str, ...], ...] = ()
        self._validate = model.__pydantic_validator__.validate_python
        self._dump = model.__pydantic_serializer__.to_python

    @property
    def message_class(self) -> Any:
        """The compiled message class (imported on first use)."""
        if self._cls is None:
            try:
                mod = importlib.import_module(f"{self.package}.{self.module}")
            except ImportError as exc:
                raise ImportError(
                    f"Protobuf payloads need protobuf: pip install 'xrgen-runtime[protobuf]' ({exc})"
                ) from None
            short = self.message.rpartition(".")[2]
            cls = getattr(mod, short)
            self._oneofs = tuple(
                tuple(f.name for f in o.fields)
                for o in cls.DESCRIPTOR.oneofs
                if len(o.fields) > 1 or not o.name.startswith("_")
            )
            self._to_dict = _converter(cls.DESCRIPTOR, {})
            self._cls = cls
        return self._cls

    def encode(self, model: BaseModel, event: Event[Any] | None = None) -> bytes:
        cls = self._cls if self._cls is not None else self.message_class
        values = self._dump(model, by_alias=True, exclude_none=True)
        for members in self._oneofs:
            if sum(name in values for name in members) > 1:
                raise ValueError(
                    f"{type(model).__name__}: more than one of oneof {members}"
                )
        try:
            return cls(**values).SerializeToString()  # type: ignore[no-any-return]
        except (ValueError, TypeError, KeyError) as exc:
            raise ValueError(
                f"{type(model).__name__} does not fit its Protobuf message: {exc}"
            ) from None

    def decode(self, data: bytes, event: Event[Any] | None = None) -> BaseModel:
        cls = self._cls if self._cls is not None else self.message_class
        try:
            message = cls.FromString(data)
        except Exception as exc:  # google.protobuf.message.DecodeError and others
            raise ValueError(f"not Protobuf of {self.message}: {exc}") from None
        assert self._to_dict is not None
        try:
            return self._validate(self._to_dict(message))  # type: ignore[no-any-return]
        except ValidationError as exc:
            raise ValueError(str(exc)) from None


def _repeated(f: Any) -> bool:
    """Whether field descriptor ``f`` is ``repeated`` (``is_repeated``: protobuf >= 6)."""
    flag = getattr(f, "is_repeated", None)
    return bool(flag) if flag is not None else f.label == _REPEATED


def _converter(
    descriptor: Any, done: dict[str, Any]
) -> Callable[[Any], dict[str, Any]]:
    """A function message -> dict of field values for ``descriptor`` (cached per type)."""
    known = done.get(descriptor.full_name)
    if known is not None:
        return known  # type: ignore[no-any-return]
    plan: list[tuple[str, int, Any]] = []

    def convert(message: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, kind, extra in plan:
            if kind == 0:  # plain scalar
                out[name] = getattr(message, name)
            elif kind == 1:  # field with presence (message, optional, oneof member)
                if message.HasField(name):
                    value = getattr(message, name)
                    out[name] = extra(value) if extra is not None else value
                else:
                    out[name] = None
            elif kind == 2:  # repeated
                items = getattr(message, name)
                out[name] = (
                    [extra(x) for x in items] if extra is not None else list(items)
                )
            elif kind == 3:  # map
                items = getattr(message, name)
                out[name] = (
                    {k: extra(v) for k, v in items.items()}
                    if extra is not None
                    else dict(items)
                )
            else:  # singular enum without presence
                out[name] = extra(getattr(message, name))
        return out

    done[descriptor.full_name] = convert
    for f in descriptor.fields:
        value_fn: Any = None
        target = f
        is_map = (
            _repeated(f)
            and f.message_type is not None
            and f.message_type.GetOptions().map_entry
        )
        if is_map:
            target = f.message_type.fields_by_name["value"]
        if target.type == _MESSAGE:
            value_fn = _converter(target.message_type, done)
        elif target.type == _ENUM:
            names = {v.number: v.name for v in target.enum_type.values}
            value_fn = lambda n, names=names: names.get(n, n)  # noqa: E731
        if is_map:
            plan.append((f.name, 3, value_fn))
        elif _repeated(f):
            plan.append((f.name, 2, value_fn))
        elif f.has_presence:
            plan.append((f.name, 1, value_fn))
        elif value_fn is not None:
            plan.append((f.name, 4, value_fn))
        else:
            plan.append((f.name, 0, None))
    return convert
