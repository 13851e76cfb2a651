"""The runtime's hook slot: what an observer (``xrgen_runtime.otel``) plugs into.

``HOOKS.observer`` is ``None`` (not instrumented: each hook costs one attribute test) or an
object with the methods of :class:`Observer`. The producer (``_produce``), the dispatcher
(``_dispatch``) and the senders (``adapters/_sender``) read the slot at each use;
``xrgen_runtime.otel.instrument`` fills it and ``uninstrument`` empties it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ._dispatch import DispatcherBase
    from ._event import Event
    from ._outcome import DispatchResult, PendingDead
    from ._produce import Emitter

__all__ = ["HOOKS", "Hooks", "Observer"]


class Observer(Protocol):
    """What the runtime calls on the observer in the slot."""

    def created(self, emitter: Emitter, event: Event[Any]) -> None:
        """A producer created ``event``."""

    def send(
        self,
        send: Callable[..., Any],
        sender: Any,
        message: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:
        """Run ``send(sender, message, *args, **kwargs)`` and return its result."""

    async def send_async(
        self,
        send: Callable[..., Awaitable[Any]],
        sender: Any,
        message: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:
        """:meth:`send` for the asyncio senders."""

    def process(
        self,
        dispatcher: DispatcherBase,
        run: Callable[[Event[Any], str | None, object], DispatchResult],
        event: Event[Any],
        family: str | None,
        origin: object,
    ) -> DispatchResult:
        """Run ``run(event, family, origin)`` (dispatch after decoding) and return its result."""

    async def process_async(
        self,
        dispatcher: DispatcherBase,
        run: Callable[[Event[Any], str | None, object], Awaitable[DispatchResult]],
        event: Event[Any],
        family: str | None,
        origin: object,
    ) -> DispatchResult:
        """:meth:`process` for ``dispatch_async``."""

    def undecodable(
        self,
        dispatcher: DispatcherBase,
        dead: Callable[[PendingDead], DispatchResult],
        pending: PendingDead,
    ) -> DispatchResult:
        """Run ``dead(pending)`` (the dead letter of an undecodable message), return its result."""

    async def undecodable_async(
        self,
        dispatcher: DispatcherBase,
        dead: Callable[[PendingDead], Awaitable[DispatchResult]],
        pending: PendingDead,
    ) -> DispatchResult:
        """:meth:`undecodable` for ``dispatch_async``."""

    def decode_failed(self, message: object, reason: str) -> None:
        """A wire message did not decode (``reason``: the codec's)."""

    def handler_failed(self, error: BaseException) -> None:
        """A handler raised ``error``."""


class Hooks:
    """The slot (one instance: :data:`HOOKS`)."""

    __slots__ = ("observer",)

    def __init__(self) -> None:
        self.observer: Observer | None = None


#: the runtime's one hook slot
HOOKS = Hooks()
