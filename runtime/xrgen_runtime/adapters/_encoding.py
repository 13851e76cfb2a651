"""The event encoder of the adapter senders: ``send`` takes a wire message as it is and hands
anything else to the sender's encoder (an endpoint's sender encodes typed events with the
endpoint's binding and options, ``xrgen_runtime.endpoints``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Encoder", "encoder_or_refusal"]

#: event -> wire message of the sender's binding
Encoder = Callable[[Any], Any]


def encoder_or_refusal(encoder: Encoder | None, wire: type, sender: str) -> Encoder:
    """``encoder``, or one that refuses everything but the sender's wire message type."""
    if encoder is not None:
        return encoder

    def refuse(value: Any) -> Any:
        raise TypeError(
            f"{sender}.send takes a {wire.__name__}, not {type(value).__name__} (a sender "
            "built by an endpoint, ep.sender(), also takes typed events)"
        )

    return refuse
