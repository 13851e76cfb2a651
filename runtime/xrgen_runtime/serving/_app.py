"""``App``: a service made of the handlers of one generated package, served on any of its
consumer endpoints (``App.serve``, ``python -m xrgen_runtime run MODULE:APP --endpoint ID``).

Serving an endpoint: the endpoint's dispatcher gets the app's handlers for the endpoint's
messages (``redeliver``: handler errors are retried per ``retry``, then dead-lettered); the
dead letters go to the endpoint's ``deadletter`` destination when the catalog or the caller
names one (``DeadLetterPublisher``), then to the app's ``dead_letter`` callback; the
endpoint's receiver serves at ``concurrency``. The first SIGTERM or SIGINT stops taking
messages: the messages in hand finish and are acknowledged, ``serve`` returns the count
handled; a second one interrupts. ``health`` (``Health``) is ready while messages are taken.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import logging
import threading
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from .._dispatch import DeadLetter, DispatcherBase
from .._retry import Retry
from ..adapters._serve import signals_calling
from ._deadletter import publisher_for
from ._health import Health

__all__ = ["App"]

_log = logging.getLogger("xrgen_runtime.serving")


class App:
    """The handlers of ``dispatcher`` (any dispatcher of a generated package: its
    registered handlers are the app's), with how to serve them (see the module doc).

    ``arguments``: defaults of the endpoint arguments (placeholder values, option overrides,
    client settings) that ``serve`` merges under its own.
    """

    def __init__(
        self,
        dispatcher: DispatcherBase,
        *,
        retry: Retry | None = None,
        concurrency: int = 1,
        redeliver: bool = True,
        dead_letter: DeadLetter | None = None,
        arguments: Mapping[str, Any] | None = None,
        package: ModuleType | None = None,
    ) -> None:
        if not isinstance(dispatcher, DispatcherBase):
            raise TypeError(f"App needs a dispatcher, not {dispatcher!r}")
        self.dispatcher = dispatcher
        self.retry = retry
        self.concurrency = concurrency
        self.redeliver = redeliver
        self.dead_letter = dead_letter
        self.arguments = dict(arguments or {})
        if package is None:
            module = type(dispatcher).__module__
            package = importlib.import_module(module.rpartition(".")[0] or module)
        self.package = package

    def endpoint(self, endpoint: Any) -> Any:
        """The endpoint object of ``endpoint`` (an id of the package, or the object)."""
        if isinstance(endpoint, str):
            endpoints: Mapping[str, Any] = getattr(self.package, "ENDPOINTS", {})
            if endpoint not in endpoints:
                known = ", ".join(sorted(endpoints)) or "none"
                raise KeyError(
                    f"{self.package.__name__} has no endpoint {endpoint!r} (it has: {known})"
                )
            return endpoints[endpoint]
        return endpoint

    def is_async(self) -> bool:
        """Whether any handler is a coroutine function (``serve`` then runs the asyncio
        shape of the receiver)."""
        return any(
            inspect.iscoroutinefunction(h) for h in self.dispatcher.handlers().values()
        )

    def _dispatcher(self, ep: Any, dead_letter: Any) -> Any:
        d = ep.dispatcher(dead_letter, redeliver=self.redeliver)
        handlers = self.dispatcher.handlers()
        missing = [m for m in ep.message_ids if m not in handlers]
        if missing:
            _log.warning(
                "%s: no handler for %s (their messages go to the dead letter)",
                ep.id,
                ", ".join(missing),
            )
        for message_id in ep.message_ids:
            if message_id in handlers:
                d.on(message_id)(handlers[message_id])
        return d

    def serve(
        self,
        endpoint: Any,
        *,
        stop: threading.Event | None = None,
        max_messages: int | None = None,
        idle_timeout: float | None = None,
        handle_signals: bool = True,
        health: Health | None = None,
        **arguments: Any,
    ) -> int:
        """Serve ``endpoint`` until stopped (see the module doc); returns the count handled.
        ``arguments``: the endpoint arguments (placeholder values, overrides, client
        settings, ``deadletter=``), over the app's ``arguments``."""
        if self.is_async():
            return asyncio.run(
                self.serve_async(
                    endpoint,
                    stop=stop,
                    max_messages=max_messages,
                    idle_timeout=idle_timeout,
                    handle_signals=handle_signals,
                    health=health,
                    **arguments,
                )
            )
        ep = self.endpoint(endpoint)
        args = {**self.arguments, **arguments}
        health = health or Health()
        stopping = stop or threading.Event()

        def on_signal() -> None:
            health.not_ready()
            stopping.set()

        publisher = publisher_for(ep, args, then=self.dead_letter)
        receiving = {k: v for k, v in args.items() if k != "deadletter"}
        try:
            d = self._dispatcher(ep, publisher or self.dead_letter)
            with (
                signals_calling(on_signal, handle_signals),
                ep.receiver(**receiving) as receiver,
            ):
                health.ready()
                try:
                    return int(
                        receiver.run(
                            d,
                            stop=stopping,
                            max_messages=max_messages,
                            idle_timeout=idle_timeout,
                            handle_signals=False,
                            concurrency=self.concurrency,
                            retry=self.retry,
                        )
                    )
                finally:
                    health.not_ready()
        except BaseException:
            health.failed()
            raise
        finally:
            if publisher is not None:
                publisher.close()

    async def serve_async(
        self,
        endpoint: Any,
        *,
        stop: asyncio.Event | threading.Event | None = None,
        max_messages: int | None = None,
        idle_timeout: float | None = None,
        handle_signals: bool = True,
        health: Health | None = None,
        **arguments: Any,
    ) -> int:
        """:meth:`serve` in the running event loop (the asyncio shape of the receiver)."""
        ep = self.endpoint(endpoint)
        args = {**self.arguments, **arguments}
        health = health or Health()
        stopping: asyncio.Event | threading.Event = stop or asyncio.Event()
        loop = asyncio.get_running_loop()

        def on_signal() -> None:
            health.not_ready()
            loop.call_soon_threadsafe(stopping.set)

        publisher = await asyncio.to_thread(
            publisher_for, ep, args, then=self.dead_letter
        )
        receiving = {k: v for k, v in args.items() if k != "deadletter"}
        try:
            d = self._dispatcher(ep, publisher or self.dead_letter)
            with signals_calling(on_signal, handle_signals):
                async with ep.async_receiver(**receiving) as receiver:
                    health.ready()
                    try:
                        return int(
                            await receiver.run(
                                d,
                                stop=stopping,
                                max_messages=max_messages,
                                idle_timeout=idle_timeout,
                                handle_signals=False,
                                concurrency=self.concurrency,
                                retry=self.retry,
                            )
                        )
                    finally:
                        health.not_ready()
        except BaseException:
            health.failed()
            raise
        finally:
            if publisher is not None:
                await asyncio.to_thread(publisher.close)
