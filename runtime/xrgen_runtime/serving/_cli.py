"""``python -m xrgen_runtime run MODULE:APP --endpoint ID``: serve an ``App`` on an endpoint.

``MODULE:APP`` names an ``App`` (or a dispatcher, served with the defaults of ``App``) in an
importable module. Endpoint arguments (placeholder values, option overrides, client
settings) come from ``--arg NAME=VALUE`` (repeatable; a VALUE that parses as JSON is that
value, e.g. ``--arg partition=0``) and from the environment, ``XRGEN_ARG_<NAME>=VALUE``
(``NAME`` upper-cased; the arguments win); credentials from the endpoint's own environment
variables (docs/endpoints.md). ``--endpoint`` defaults to ``XRGEN_ENDPOINT``.

Exit status: 0 after a clean stop (SIGTERM or SIGINT: the messages in hand are handled and
acknowledged first; ``--max-messages``; ``--idle-timeout``), 1 when serving failed, 2 for a
usage error (an unknown module, app or endpoint, a malformed argument).
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from .. import otel
from .._dispatch import DispatcherBase
from .._retry import Retry
from ._app import App
from ._health import Health

__all__ = ["main"]

_log = logging.getLogger("xrgen_runtime.serving")
ENV_PREFIX = "XRGEN_ARG_"


class UsageError(Exception):
    """Exit status 2."""


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m xrgen_runtime",
        description="Serve the handlers of a generated package on a catalog endpoint.",
    )
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="serve MODULE:APP on --endpoint ID")
    run.add_argument("app", metavar="MODULE:APP", help="an App (or a dispatcher)")
    run.add_argument("--endpoint", default=os.environ.get("XRGEN_ENDPOINT"))
    run.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an endpoint argument (also XRGEN_ARG_<NAME>)",
    )
    run.add_argument("--concurrency", type=int, default=None)
    run.add_argument(
        "--attempts", type=int, default=None, help="handler calls per message"
    )
    run.add_argument("--retry-delay", type=float, default=None, metavar="SECONDS")
    run.add_argument("--deadletter", default=None, metavar="DESTINATION")
    run.add_argument("--health-port", type=int, default=None)
    run.add_argument(
        "--health-host", default="0.0.0.0"
    )  # noqa: S104  (the probes' port)
    run.add_argument("--ready-file", default=None)
    run.add_argument(
        "--otel",
        action="store_true",
        help="turn xrgen_runtime.otel on (the global OpenTelemetry providers)",
    )
    run.add_argument("--max-messages", type=int, default=None)
    run.add_argument("--idle-timeout", type=float, default=None, metavar="SECONDS")
    run.add_argument("--log-level", default="INFO")
    return ap


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def endpoint_arguments(
    given: Sequence[str], environ: Mapping[str, str]
) -> dict[str, Any]:
    """``XRGEN_ARG_<NAME>`` variables, then ``NAME=VALUE`` arguments over them."""
    out: dict[str, Any] = {}
    for key, text in environ.items():
        if key.startswith(ENV_PREFIX) and len(key) > len(ENV_PREFIX):
            out[key[len(ENV_PREFIX) :].lower()] = _value(text)
    for item in given:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--arg {item!r}: expected NAME=VALUE")
        out[name] = _value(text)
    return out


def load_app(spec: str) -> App:
    """The ``App`` named by ``MODULE:APP`` (a dispatcher becomes an ``App``)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"{spec!r}: expected MODULE:APP")
    sys.path.insert(0, os.getcwd())  # as ``python -m`` would find a module here
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"cannot import {module_name!r}: {exc}") from exc
    finally:
        sys.path.remove(os.getcwd())
    try:
        target = getattr(module, attr)
    except AttributeError:
        raise UsageError(f"{module_name!r} has no {attr!r}") from None
    if isinstance(target, DispatcherBase):
        return App(target)
    if not isinstance(target, App):
        raise UsageError(f"{spec} is a {type(target).__name__}, not an App")
    return target


def _configure(app: App, ns: argparse.Namespace) -> None:
    if ns.concurrency is not None:
        app.concurrency = ns.concurrency
    if ns.attempts is not None or ns.retry_delay is not None:
        base = app.retry or Retry()
        app.retry = Retry(
            attempts=ns.attempts if ns.attempts is not None else base.attempts,
            delay=ns.retry_delay if ns.retry_delay is not None else base.delay,
            factor=base.factor,
            max_delay=base.max_delay,
        )


def main(argv: Sequence[str] | None = None) -> int:
    ns = _parser().parse_args(argv)
    logging.basicConfig(
        level=ns.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        if not ns.endpoint:
            raise UsageError("--endpoint ID (or XRGEN_ENDPOINT) is required")
        app = load_app(ns.app)
        _configure(app, ns)
        arguments = endpoint_arguments(ns.arg, os.environ)
        if ns.deadletter:
            arguments["deadletter"] = ns.deadletter
        endpoint = app.endpoint(ns.endpoint)
    except (UsageError, KeyError, ValueError) as exc:
        print(f"xrgen_runtime run: {exc}", file=sys.stderr)
        return 2
    if ns.otel:
        otel.instrument()
    health = Health(ns.health_port, ns.health_host, ns.ready_file)
    health.start()
    try:
        handled = app.serve(
            endpoint,
            max_messages=ns.max_messages,
            idle_timeout=ns.idle_timeout,
            health=health,
            **arguments,
        )
    except KeyboardInterrupt:
        _log.warning("interrupted: the messages in hand went back to the server")
        return 1
    except Exception:
        _log.exception("serving %s failed", endpoint.id)
        return 1
    finally:
        health.close()
    _log.info("stopped after %d messages", handled)
    return 0
