"""``NAME/endpoints.py`` (one ``xrgen_runtime.endpoints.Endpoint`` per catalog endpoint, and
``ENDPOINTS``) and the endpoint dispatchers of ``consumer.py``: views of ``ir.Endpoint`` with
every value already turned into source by ``literals``."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from ..literals import docstring, docstring_text, py_str, py_value
from ..model import ir
from . import OutputFile, Target
from .views import opt_str


def plan(catalog: ir.Catalog, target: Target, head: str) -> list[OutputFile]:
    return [
        OutputFile(
            PurePosixPath("endpoints.py"),
            "python/endpoints.py.j2",
            endpoints_context(catalog, target, head),
        )
    ]


def endpoints_context(catalog: ir.Catalog, target: Target, head: str) -> dict[str, Any]:
    views = [_endpoint(e) for e in catalog.endpoints]
    doc = (
        f"The endpoints of {', '.join(target.catalog_names)} (xRegistry 1.0-rc4): one"
        " immutable ``Endpoint`` per catalog endpoint, ``ENDPOINTS`` by endpoint id."
    )
    return {
        "header": head,
        "doc": docstring_text(doc),
        "package": py_str(target.package),
        "endpoints": views,
        "authorization": any(e.authorization for e in catalog.endpoints),
    }


def _endpoint(e: ir.Endpoint) -> dict[str, Any]:
    return {
        "name": e.py_name,
        "cls": e.dispatcher_class,
        "dispatcher_type": f"_consumer.{e.dispatcher_class}" if e.dispatcher_class else "None",
        "id": py_str(e.id),
        "usage": py_value(e.usage),
        "protocol": opt_str(e.protocol),
        "channel": opt_str(e.channel),
        "envelope": opt_str(e.envelope),
        "envelope_options": py_value(dict(e.envelope_options)),
        "uris": py_value(e.uris),
        "options": py_value(dict(e.options)),
        "authorization": [
            "Authorization("
            + ", ".join(
                f"{k}={py_str(v)}"
                for k, v in (
                    ("type", a.type),
                    ("mechanism", a.mechanism),
                    ("resourceuri", a.resourceuri),
                    ("authorityuri", a.authorityuri),
                )
                if v is not None
            )
            + ")"
            for a in e.authorization
        ],
        "deployed": py_value(e.deployed),
        "message_ids": py_value(e.message_ids),
        "placeholders": py_value(e.placeholders),
        "description": opt_str(e.description),
    }


def dispatchers(catalog: ir.Catalog) -> list[dict[str, Any]]:
    """The ``<Endpoint>Dispatcher`` classes of ``consumer.py``: the typed registrations of
    the endpoint's groups (the package-wide ``on_*`` names, unique across groups), over the
    definitions of those groups only."""
    by_id = {g.id: g for g in catalog.groups}
    out = []
    for e in catalog.endpoints:
        if e.dispatcher_class in ("Dispatcher", None):
            continue  # every message (the package-wide dispatcher), or it receives nothing
        groups = [by_id[gid] for gid in e.group_ids]
        out.append(
            {
                "cls": e.dispatcher_class,
                "bases": [g.handlers_class for g in groups] or ["DispatcherBase"],
                "doc": docstring(
                    f"Dispatcher for the messages endpoint {e.id} carries, and those only.",
                    "    ",
                ),
                "defs": " + ".join(f"_defs.{g.defs_const}" for g in groups) or "()",
            }
        )
    return out
