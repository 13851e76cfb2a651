"""The HTTP binding (``BINDINGS['http']``), one package: its declaration (``spec``), codec
(``codec``), client-library adapter (``adapter``, public as ``xrgen_runtime.adapters.http``),
endpoint support (``endpoint``) and Spark reader (``spark``).

The package exposes its codec's names (``encode``, ``decode``, its wire types, ...); the codec
is imported on first use, so that the registry reads ``spec`` without importing pydantic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._spec import codec_attribute

if TYPE_CHECKING:
    from .codec import HttpBinding as HttpBinding
    from .codec import HttpMessage as HttpMessage
    from .codec import decode as decode
    from .codec import decode_batch as decode_batch
    from .codec import encode as encode
    from .codec import encode_batch as encode_batch

__all__ = [
    "HttpBinding",
    "HttpMessage",
    "encode",
    "decode",
    "encode_batch",
    "decode_batch",
]

if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        return codec_attribute(__name__, name)
