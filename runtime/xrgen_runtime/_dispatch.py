"""Generic consumer dispatch engine of a generated xrgen package.

The generated ``consumer.py`` subclasses :class:`DispatcherBase` once per message group and
once for the whole package, passing the group's ``MessageDef`` tuple, and adds one typed
decorator per message (``on_reading``) that calls :meth:`DispatcherBase._register`.

Pipeline of :meth:`DispatcherBase.dispatch` (and :meth:`DispatcherBase.dispatch_async`):

1. decode the wire message with the codec of its binding (``bindings.<protocol>.decode``);
2. find the candidate definitions: O(1) by CloudEvents ``type`` (definitions without a fixed
   ``type`` are candidates for every type); a message without CloudEvents attributes is a
   plain protocol message and its candidates are the plain definitions of its protocol
   (or without a protocol);
3. keep the candidates whose constant attributes, uritemplate attributes and protocol options
   all match, collecting the template placeholder values (percent-decoded) into ``params``;
   a definition bound to a protocol only matches events that arrived over that protocol;
4. most specific first, the first matching definition that has a handler and whose payload
   model validates (strictly, JSON semantics) receives a NEW ``Event`` (same attributes and
   binding, ``data`` = the model instance, or ``bytes`` for opaque payloads) and ``params``.
   Most specific: a definition bound to the wire's protocol before a protocol-less one, then
   the one with more constants and templates to match (attributes, ``datacontenttype``, a
   fixed ``type``, protocol options), then the one with more constants among them, then
   catalog order (docs/routing.md). Candidates are sorted so once, when the dispatcher is
   built: a protocol-bound definition never matches another protocol's wire, so the order is
   the same for every wire and matching stays one pass.

Every input ends in exactly one handler call or exactly one dead-letter call
``dead_letter(original, reason, detail)`` with ``original`` the wire message, whole and as
received (or the event for :meth:`DispatcherBase.dispatch_event`). ``reason`` is one of the
single-line tokens below; ``detail`` is one line of at most ``DETAIL_MAX`` (4,096)
characters with control characters escaped (``_limits.bounded_detail``), so the default
callback's log line never carries raw CR/LF whatever the input. Reasons:
``malformed-message`` (a field of the wire message holds a value of the wrong type:
``bindings._shape``), ``decode-error``, ``unknown-type``, ``no-match``,
``validation-error``, ``no-handler``, ``handler-error``,
``async-handler-in-sync-dispatch`` and (for bugs only) ``internal-error``. Nothing raises out
of ``dispatch``: a dead-letter callback that raises is logged, and the result says so
(``DispatchResult.settled`` is ``False``): a receiver's ``run`` then leaves the message
unacknowledged and gives it back. The one exception is a dispatcher set to give handler
errors back (``handler_errors = "raise"``): a handler that raises then makes ``dispatch``
raise ``HandlerError`` instead of dead-lettering the message; the error carries the dead
letter for the receiver to deliver once its retries are used up (``HandlerError.dead_letter``).

Async handlers: :meth:`DispatcherBase.dispatch_async` awaits them (and runs synchronous
handlers through ``offload`` when given: a receiver serving at a concurrency above one runs
them in its threads). The synchronous
:meth:`DispatcherBase.dispatch` runs an async handler with ``asyncio.run`` when no event loop
is running in the thread; inside a running loop it cannot wait for it, so it dead-letters the
message with reason ``async-handler-in-sync-dispatch`` (use ``dispatch_async`` there).

Protocol options that the network may legitimately change in transit (MQTT ``qos``,
``retain``, ``message_expiry_interval``; Kafka ``partition``; Pulsar ``event_time``: each
binding's ``BindingSpec.transit``) are not used for matching.

Where the parts live: ``_match`` compiles a definition and matches events against it,
``_payload`` validates the payload and builds the handler's event, ``_outcome`` holds the
results and dead-letter reasons; this module indexes the candidates, runs the pipeline and
delivers handler calls and dead letters, synchronously or awaited.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any, TypeVar

from ._compile import mypyc_attr
from ._definitions import MessageDef
from ._errors import DecodeError
from ._event import Event
from ._hooks import HOOKS
from ._match import CompiledDef, fixed_type, protocol_family, rank
from ._outcome import (
    ASYNC_IN_SYNC,
    DEAD_LETTER_REASONS,
    DECODE_ERROR,
    HANDLER_ERROR,
    INTERNAL_ERROR,
    MALFORMED_MESSAGE,
    NO_HANDLER,
    NO_MATCH,
    UNKNOWN_TYPE,
    VALIDATION_ERROR,
    DeadLetter,
    DispatchResult,
    Handler,
    HandlerError,
    PendingDead,
)
from ._payload import Invalid
from .bindings import BINDINGS, BindingSpec, WireMessage
from .bindings._shape import shape_check, wire_problem

__all__ = [
    "DEAD_LETTER_REASONS",
    "DeadLetter",
    "DispatchResult",
    "DispatcherBase",
    "Handler",
    "HandlerError",
    "protocol_family",
]

_log = logging.getLogger(__name__)

#: the hook slot: an observer in it (``xrgen_runtime.otel``) runs each dispatch through its
#: ``process`` (or ``undecodable``) and sees decode failures and handler exceptions
_HOOKS = HOOKS

H = TypeVar("H", bound=Callable[..., Any])
#: ``offload(handler, event, params)``: runs a synchronous handler for ``dispatch_async``
Offload = Callable[[Handler, Event[Any], dict[str, str]], Awaitable[object]]

#: wire message type -> its binding, and the protocol family it arrives over
_BINDING_OF_WIRE: dict[type, BindingSpec] = {
    b.message_type: b for b in BINDINGS.values()
}
_FAMILY_OF_WIRE: dict[type, str] = {b.message_type: b.family for b in BINDINGS.values()}
#: ``Event.binding`` type -> the protocol family of the binding
_FAMILY_OF_BINDING: dict[type, str] = {
    b.binding_type: b.family for b in BINDINGS.values()
}
#: wire message type -> (protocol family, the fast check of its fields' types
#: (``bindings._shape``), the ``decode`` of its binding's codec), built at first use
_wires: dict[type, tuple[str, Callable[[Any], bool], Callable[[Any], Event[Any]]]] = {}


def _wire(
    wire_type: type,
) -> tuple[str, Callable[[Any], bool], Callable[[Any], Event[Any]]] | None:
    """What ``_decode`` needs for ``wire_type`` (the codec imported once); ``None`` for a
    type that is no binding's wire message."""
    binding = _BINDING_OF_WIRE.get(wire_type)
    if binding is None:
        return None
    entry = _wires[wire_type] = (
        binding.family,
        shape_check(wire_type),
        binding.codec().decode,
    )
    return entry


# --------------------------------------------------------------------------------------------
# The dispatcher
# --------------------------------------------------------------------------------------------


@mypyc_attr(allow_interpreted_subclasses=True)
class DispatcherBase:
    """Typed consumer dispatch over a tuple of message definitions (see the module doc).

    ``defs`` are in catalog order (that order breaks ties between definitions that all match
    an event). ``dead_letter(original, reason, detail)`` receives every input that no handler
    took; by default it is logged as a warning. ``handler_errors``: ``"dead-letter"`` (the
    default) sends a message whose handler raised to ``dead_letter`` (reason
    ``handler-error``); ``"raise"`` raises ``HandlerError`` from the handler's exception
    instead, for a receiver to redeliver the message.
    """

    handler_errors: str = "dead-letter"

    def __init__(
        self,
        defs: tuple[MessageDef, ...],
        dead_letter: DeadLetter | None = None,
    ) -> None:
        self._dead_letter: DeadLetter = dead_letter or _log_dead_letter
        compiled = [CompiledDef(d, i) for i, d in enumerate(defs)]
        self._by_id: dict[str, CompiledDef] = {}
        for c in compiled:
            self._by_id.setdefault(c.id, c)
        self._by_type, self._untyped = _index_by_type(compiled)
        self._plain, self._plain_any = _index_plain(compiled)
        self._results: dict[tuple[str | None, str, bool], DispatchResult] = {}

    # ---------------------------------------------------------------- registration

    @property
    def message_ids(self) -> tuple[str, ...]:
        """The ids of the definitions this dispatcher knows, in catalog order."""
        return tuple(self._by_id)

    def _register(self, message_id: str, handler: H) -> H:
        """Set the handler of ``message_id`` (replacing any earlier one); return ``handler``."""
        c = self._by_id.get(message_id)
        if c is None:
            raise KeyError(f"unknown message id {message_id!r}")
        c.handler = handler
        c.is_async = inspect.iscoroutinefunction(handler)
        return handler

    def handlers(self) -> dict[str, Handler]:
        """The registered handlers by message id (catalog order)."""
        return {c.id: c.handler for c in self._by_id.values() if c.handler is not None}

    def on(self, message_id: str) -> Callable[[H], H]:
        """Decorator registering ``handler(event, params)`` for ``message_id``."""

        def decorate(handler: H) -> H:
            return self._register(message_id, handler)

        return decorate

    # ---------------------------------------------------------------- dispatch

    def dispatch(self, message: WireMessage) -> DispatchResult:
        """Decode, match, validate and hand ``message`` (any ``*Message``) to its handler.

        Never raises; returns what happened (see :class:`DispatchResult`).
        """
        # the usual message, without ``_decode``'s frame (which any other one takes)
        wire = _wires.get(message.__class__)
        observer = _HOOKS.observer
        if wire is not None and observer is None and wire[1](message):
            try:
                event = wire[2](message)
            except Exception:
                pass  # ``_decode`` below says why, as for any other input
            else:
                return self._run_sync(event, wire[0], message, own=True)
        decoded = self._decode(message)
        if type(decoded) is PendingDead:
            if observer is not None:
                return observer.undecodable(self, self._dead, decoded)
            return self._dead(decoded)
        event, family = decoded
        if observer is not None:
            return observer.process(self, self._run_sync, event, family, message)
        return self._run_sync(event, family, message, own=True)

    def dispatch_event(self, event: Event[Any], wire: object = None) -> DispatchResult:
        """Dispatch an already decoded event; ``wire`` (default: ``event``) goes to dead letter."""
        family = _FAMILY_OF_BINDING.get(event.binding.__class__)
        origin = event if wire is None else wire
        observer = _HOOKS.observer
        if observer is not None:
            return observer.process(self, self._run_sync, event, family, origin)
        return self._run_sync(event, family, origin)

    async def dispatch_async(
        self, message: WireMessage, *, offload: Offload | None = None
    ) -> DispatchResult:
        """:meth:`dispatch` for async code: coroutine handlers (and dead letters) are awaited.

        ``offload(handler, event, params)``, when given, runs a synchronous handler instead of
        calling it in the event loop (e.g. in a thread: ``asyncio.to_thread``).
        """
        observer = _HOOKS.observer
        # the usual message, as in ``dispatch``
        wire = _wires.get(message.__class__)
        if wire is not None and observer is None and wire[1](message):
            try:
                event = wire[2](message)
            except Exception:
                pass  # ``_decode`` below says why, as for any other input
            else:
                return await self._run_async(event, wire[0], message, offload, own=True)
        decoded = self._decode(message)
        if type(decoded) is PendingDead:
            if observer is not None:
                return await observer.undecodable_async(self, self._dead_async, decoded)
            return await self._dead_async(decoded)
        event, family = decoded
        run = (
            self._run_async
            if offload is None
            else partial(self._run_async, offload=offload)
        )
        if observer is not None:
            return await observer.process_async(self, run, event, family, message)
        return await run(event, family, message, own=True)

    async def dispatch_event_async(
        self, event: Event[Any], wire: object = None
    ) -> DispatchResult:
        """:meth:`dispatch_event` awaiting coroutine handlers."""
        family = _FAMILY_OF_BINDING.get(event.binding.__class__)
        origin = event if wire is None else wire
        observer = _HOOKS.observer
        if observer is not None:
            return await observer.process_async(
                self, self._run_async, event, family, origin
            )
        return await self._run_async(event, family, origin)

    # ---------------------------------------------------------------- internals
    #
    # One pipeline for both paths: ``_decode`` and ``_select`` (candidates, matching, payload
    # validation, the handler's event) end in the handler to call or the dead letter to
    # send; only calling that handler and delivering dead letters differ between ``_run_sync``
    # and ``_run_async`` (awaited there).

    def _decode(self, message: object) -> tuple[Event[Any], str] | PendingDead:
        cls = message.__class__
        wire = _wires.get(cls) or _wire(cls)
        if wire is None:
            why = "unsupported-message-type"
            detail = f"unsupported wire message type {type(message).__name__}"
            return self._undecodable(message, DECODE_ERROR, why, detail)
        family, well_formed, decode = wire
        if not well_formed(message):
            detail = wire_problem(message) or "a field of the wrong type"
            return self._undecodable(
                message, MALFORMED_MESSAGE, MALFORMED_MESSAGE, detail
            )
        try:
            return decode(message), family
        except DecodeError as bad:  # one name per class (mypyc types it)
            why = bad.reason
            detail = f"{bad.reason}: {bad.detail}" if bad.detail else bad.reason
        except Exception as exc:  # a codec bug or a missing codec module
            why, detail = "codec-failure", f"codec failure: {exc!r}"
        if why in ("invalid-message", "codec-failure"):
            # the codec failed unexpectedly: on a header or property of the wrong type?
            problem = wire_problem(message)
            if problem is not None:
                return self._undecodable(
                    message, MALFORMED_MESSAGE, MALFORMED_MESSAGE, problem
                )
        return self._undecodable(message, DECODE_ERROR, why, detail)

    @staticmethod
    def _undecodable(
        message: object, reason: str, why: str, detail: str
    ) -> PendingDead:
        """The dead letter of a message that does not decode (``why``: the codec's reason)."""
        observer = _HOOKS.observer
        if observer is not None:
            observer.decode_failed(message, why)
        return PendingDead(message, reason, detail, None)

    def _select(
        self, event: Event[Any], family: str | None, origin: object, own: bool
    ) -> tuple[CompiledDef, Handler, Event[Any], dict[str, str]] | PendingDead:
        """The definition, its handler, the handler's event and the params for ``event``, or
        the dead letter to send (also for a bug in here: exactly one dead letter). ``own``:
        ``event`` was decoded here, so it becomes the handler's event."""
        try:
            attrs = event.attributes
            if attrs:
                etype = attrs.get("type")
                candidates = (
                    self._by_type.get(etype, self._untyped)
                    if etype.__class__ is str
                    else ()
                )
            else:
                candidates = self._plain.get(family, self._plain_any)
            if not candidates:
                return PendingDead(origin, UNKNOWN_TYPE, _describe(attrs, family), None)
            binding = event.binding
            matched: list[tuple[CompiledDef, dict[str, str]]] | None = None
            for c in candidates:
                params = c.match(attrs, binding, family)
                if params is None:
                    continue
                if c.handler is not None:
                    try:
                        data = c.payload(event)
                    except Invalid:
                        pass
                    else:
                        # one ``except ... as`` name per class: mypyc types the name
                        try:
                            new = c.handler_event(event, data, own)
                        except DecodeError as bad:
                            detail = str(bad)
                            return PendingDead(origin, VALIDATION_ERROR, detail, c.id)
                        return c, c.handler, new, params
                if matched is None:
                    matched = []
                matched.append((c, params))
            if matched is None:
                ids = ", ".join(c.id for c in candidates[:5])
                detail = f"{_describe(attrs, family)} matched none of: {ids}"
                only = candidates[0].id if len(candidates) == 1 else None
                return PendingDead(origin, NO_MATCH, detail, only)
            return _explain_failure(event, matched, origin)
        except Exception as exc:  # a bug here must still end in exactly one dead letter
            problem = (
                wire_problem(origin) if origin.__class__ in _FAMILY_OF_WIRE else None
            )
            if problem is not None:  # matching failed on a value of the wrong type
                return PendingDead(origin, MALFORMED_MESSAGE, problem, None)
            return _internal_error(origin, exc)

    def _run_sync(
        self, event: Event[Any], family: str | None, origin: object, own: bool = False
    ) -> DispatchResult:
        selected = self._select(event, family, origin, own)
        if type(selected) is PendingDead:
            return self._dead(selected)
        c, handler, new, params = selected
        try:
            if c.is_async:
                return self._run_awaitable(c, handler(new, params), origin)
            outcome = handler(new, params)
        except HandlerError:
            raise  # from the async handler just run (``_run_awaitable``)
        except Exception as exc:
            observer = _HOOKS.observer
            if observer is not None:
                observer.handler_failed(exc)
            dead = PendingDead(origin, HANDLER_ERROR, repr(exc), c.id)
            if self.handler_errors == "raise":
                raise HandlerError(c.id, (self, dead)) from exc
            return self._dead(dead)
        if outcome is not None and inspect.isawaitable(outcome):
            return self._run_awaitable(c, outcome, origin)
        return c.ok

    def _run_awaitable(
        self, c: CompiledDef, awaitable: Any, origin: object
    ) -> DispatchResult:
        """Finish an async handler from synchronous dispatch (see the module doc)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            try:
                asyncio.run(_await(awaitable))
            except Exception as exc:
                observer = _HOOKS.observer
                if observer is not None:
                    observer.handler_failed(exc)
                dead = PendingDead(origin, HANDLER_ERROR, repr(exc), c.id)
                if self.handler_errors == "raise":
                    raise HandlerError(c.id, (self, dead)) from exc
                return self._dead(dead)
            return c.ok
        if inspect.iscoroutine(awaitable):
            awaitable.close()
        detail = (
            f"{c.id}: async handler called from dispatch() inside a running event loop"
        )
        return self._dead(PendingDead(origin, ASYNC_IN_SYNC, detail, c.id))

    async def _run_async(
        self,
        event: Event[Any],
        family: str | None,
        origin: object,
        offload: Offload | None = None,
        own: bool = False,
    ) -> DispatchResult:
        selected = self._select(event, family, origin, own)
        if type(selected) is PendingDead:
            return await self._dead_async(selected)
        c, handler, new, params = selected
        try:
            if offload is not None and not c.is_async:
                outcome = await offload(handler, new, params)
            else:
                outcome = handler(new, params)
            if outcome is not None and inspect.isawaitable(outcome):
                await outcome
        except Exception as exc:
            observer = _HOOKS.observer
            if observer is not None:
                observer.handler_failed(exc)
            dead = PendingDead(origin, HANDLER_ERROR, repr(exc), c.id)
            if self.handler_errors == "raise":
                raise HandlerError(c.id, (self, dead)) from exc
            return await self._dead_async(dead)
        return c.ok

    def _result(
        self, message_id: str | None, reason: str, settled: bool = True
    ) -> DispatchResult:
        key = (message_id, reason, settled)
        result = self._results.get(key)
        if result is None:
            result = DispatchResult(False, message_id, reason, settled)
            self._results[key] = result
        return result

    def _dead(self, dead: PendingDead) -> DispatchResult:
        try:
            outcome = self._dead_letter(dead.origin, dead.reason, dead.detail)
            if outcome is not None and inspect.isawaitable(outcome):
                _finish_dead_letter_sync(outcome)
        except Exception:
            _log.exception("dead-letter callback failed (reason %s)", dead.reason)
            return self._result(dead.message_id, dead.reason, False)
        return self._result(dead.message_id, dead.reason)

    async def _dead_async(self, dead: PendingDead) -> DispatchResult:
        try:
            outcome = self._dead_letter(dead.origin, dead.reason, dead.detail)
            if outcome is not None and inspect.isawaitable(outcome):
                await outcome
        except Exception:
            _log.exception("dead-letter callback failed (reason %s)", dead.reason)
            return self._result(dead.message_id, dead.reason, False)
        return self._result(dead.message_id, dead.reason)


def _internal_error(origin: object, exc: Exception) -> PendingDead:
    _log.exception("dispatch engine failure")
    return PendingDead(origin, INTERNAL_ERROR, repr(exc), None)


def _explain_failure(
    event: Event[Any], matched: list[tuple[CompiledDef, dict[str, str]]], origin: object
) -> PendingDead:
    """Why no handler took an event that matched at least one definition.

    ``no-handler`` when a matching definition without a handler also accepts the payload, or
    when no matching definition has a handler at all; otherwise ``validation-error``.
    """
    first_error: str | None = None
    first_error_id: str | None = None
    for c, _params in matched:
        if c.handler is not None:
            try:
                c.payload(event)
            except Invalid as exc:
                if first_error is None:
                    first_error, first_error_id = str(exc), c.id
            continue
        try:
            c.payload(event)
        except Invalid:
            continue
        return PendingDead(origin, NO_HANDLER, f"{c.id}: no handler registered", c.id)
    if first_error is None:
        c = matched[0][0]
        return PendingDead(origin, NO_HANDLER, f"{c.id}: no handler registered", c.id)
    return PendingDead(origin, VALIDATION_ERROR, first_error, first_error_id)


def _describe(attrs: Mapping[str, Any], family: str | None) -> str:
    if attrs:
        return f"type {attrs.get('type')!r}"
    return f"plain {family or 'unknown'} message"


def _index_by_type(
    compiled: list[CompiledDef],
) -> tuple[dict[object, tuple[CompiledDef, ...]], tuple[CompiledDef, ...]]:
    """CloudEvents candidates by ``type``, each tuple in catalog order with the untyped ones."""
    untyped = [c for c in compiled if c.defn.envelope and not fixed_type(c.defn)]
    typed: dict[object, list[CompiledDef]] = {}
    for c in compiled:
        if c.defn.envelope and fixed_type(c.defn):
            typed.setdefault(c.defn.type, []).append(c)
    by_type: dict[object, tuple[CompiledDef, ...]] = {
        t: tuple(sorted(cs + untyped, key=rank)) for t, cs in typed.items()
    }
    return by_type, tuple(sorted(untyped, key=rank))


def _index_plain(
    compiled: list[CompiledDef],
) -> tuple[dict[str | None, tuple[CompiledDef, ...]], tuple[CompiledDef, ...]]:
    """Plain (no envelope) candidates by protocol family, with the protocol-less ones."""
    plain = sorted((c for c in compiled if not c.defn.envelope), key=rank)
    anywhere = tuple(c for c in plain if c.family is None)
    families = {c.family for c in plain if c.family is not None}
    by_family: dict[str | None, tuple[CompiledDef, ...]] = {
        f: tuple(c for c in plain if c.family in (f, None)) for f in families
    }
    return by_family, anywhere


async def _await(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _finish_dead_letter_sync(awaitable: Awaitable[Any]) -> None:
    """Run an async dead-letter callback from synchronous dispatch."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(_await(awaitable))
        return
    if inspect.iscoroutine(awaitable):
        awaitable.close()
    raise RuntimeError(
        "async dead-letter callback called from dispatch() in a running loop"
    )


def _log_dead_letter(original: object, reason: str, detail: str) -> None:
    """The default dead-letter callback: a warning with the reason and detail."""
    _log.warning("dead letter (%s): %s [%s]", reason, detail, type(original).__name__)
