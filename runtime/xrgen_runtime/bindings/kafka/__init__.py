"""The Kafka binding (``BINDINGS['kafka']``), one package: its declaration (``spec``), codec
(``codec``), client-library adapter (``adapter``, public as ``xrgen_runtime.adapters.kafka``),
endpoint support (``endpoint``) and Spark reader (``spark``).

The package exposes its codec's names (``encode``, ``decode``, its wire types, ...); the codec
is imported on first use, so that the registry reads ``spec`` without importing pydantic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._spec import codec_attribute

if TYPE_CHECKING:
    from .codec import KafkaBinding as KafkaBinding
    from .codec import KafkaMessage as KafkaMessage
    from .codec import KeyMapper as KeyMapper
    from .codec import decode as decode
    from .codec import encode as encode
    from .codec import partitionkey_key_mapper as partitionkey_key_mapper

__all__ = [
    "KafkaBinding",
    "KafkaMessage",
    "KeyMapper",
    "partitionkey_key_mapper",
    "encode",
    "decode",
]

if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        return codec_attribute(__name__, name)
