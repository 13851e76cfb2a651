"""The Apache RocketMQ binding (``BINDINGS['rocketmq']``), one package: its declaration (``spec``),
codec (``codec``), client-library adapter (``adapter``, public as
``xrgen_runtime.adapters.rocketmq``) and Spark reader (``spark``).

The package exposes its codec's names (``encode``, ``decode``, its wire types, ...); the codec
is imported on first use, so that the registry reads ``spec`` without importing pydantic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._spec import codec_attribute

if TYPE_CHECKING:
    from .codec import RocketMqBinding as RocketMqBinding
    from .codec import RocketMqMessage as RocketMqMessage
    from .codec import decode as decode
    from .codec import encode as encode

__all__ = ["RocketMqBinding", "RocketMqMessage", "encode", "decode"]

if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        return codec_attribute(__name__, name)
