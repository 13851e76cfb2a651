"""The event encoder of an endpoint sender: refuse events of undeclared messages, then encode
with the binding's codec (built by the binding's endpoint support)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .._dispatch import DispatcherBase
from ._errors import MessageNotDeclared

if TYPE_CHECKING:
    from .._event import Event
    from ._resolve import Settings

__all__ = ["checked_encoder"]

W = TypeVar("W")


def checked_encoder(
    settings: Settings, encode: Callable[[Event[Any]], W]
) -> Callable[[Event[Any]], W]:
    """``encode`` behind the check that the event is one of the endpoint's messages.

    An endpoint without message ids (no groups, no inline messages) sends any event. A
    CloudEvent passes by its ``type`` (one set lookup) when a definition fixes that type;
    definitions whose type is a template are matched like a dispatcher matches; a plain
    protocol message passes when the endpoint carries a plain (envelope-less) message.
    """
    endpoint = settings.endpoint
    if not endpoint.message_ids:
        return encode
    defs = [info.definition for info in endpoint.messages.values()]
    types = frozenset(d.type for d in defs if d.envelope and d.type is not None)
    templated = tuple(d for d in defs if d.envelope and d.type is None)
    plain = any(d.envelope is None for d in defs)
    matcher = _matcher(templated) if templated else None

    def encode_declared(event: Event[Any]) -> W:
        attributes = event.attributes
        if attributes:
            if attributes.get("type") in types or (
                matcher is not None and matcher(event)
            ):
                return encode(event)
        elif plain:
            return encode(event)
        raise MessageNotDeclared(
            f"endpoint {endpoint.id!r} does not declare a message of type "
            f"{attributes.get('type')!r}; it carries {', '.join(endpoint.message_ids)}"
        )

    return encode_declared


def _matcher(defs: tuple[Any, ...]) -> Callable[[Event[Any]], bool]:
    """Whether an event matches one of ``defs`` (as a dispatcher over them would route it)."""

    dispatcher = DispatcherBase(defs, dead_letter=_ignore)
    for d in defs:
        dispatcher.on(d.id)(_accept)

    def matches(event: Event[Any]) -> bool:
        return bool(dispatcher.dispatch_event(event))

    return matches


def _accept(event: object, params: object) -> None:
    """Handler of the matcher's dispatcher: matching is all it checks."""


def _ignore(original: object, reason: str, detail: str) -> None:
    """Dead letter of the matcher's dispatcher: a miss is the answer, not a problem."""
