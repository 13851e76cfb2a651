"""The AMQP 1.0 binding (``BINDINGS['amqp']``), one package: its declaration (``spec``), codec
(``codec``), client-library adapter (``adapter``, public as ``xrgen_runtime.adapters.amqp``),
endpoint support (``endpoint``) and Spark reader (``spark``).

The package exposes its codec's names (``encode``, ``decode``, its wire types, ...); the codec
is imported on first use, so that the registry reads ``spec`` without importing pydantic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._spec import codec_attribute

if TYPE_CHECKING:
    from .codec import AmqpBinding as AmqpBinding
    from .codec import AmqpMessage as AmqpMessage
    from .codec import decode as decode
    from .codec import encode as encode

__all__ = ["AmqpBinding", "AmqpMessage", "encode", "decode"]

if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        return codec_attribute(__name__, name)
