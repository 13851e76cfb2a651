"""HTTP (``HTTP``, ``HTTP/1.1``, ``HTTP/2``, ``HTTPS`` ...)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from xrgen_runtime.bindings import BINDINGS

from ..catalog_model import LooseStatus, LooseStr, NameValueList, OptionsModel
from ..diagnostics import Diagnostics
from ._base import Protocol, any_version, literal


class HttpOptions(OptionsModel):
    headers: NameValueList = None
    query: NameValueList = None
    path: LooseStr = None
    method: LooseStr = None
    status: LooseStatus = None


_METHODS = frozenset(
    {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}
)
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")


def _check(po: dict[str, Any], file: str, ptr: str, diags: Diagnostics) -> None:
    method = literal(po.get("method"))
    if isinstance(method, str) and "{" not in method:
        if not _TOKEN.match(method):
            diags.error("XRG165", file, ptr + "/method", f"'{method}' is not a valid HTTP method")
        elif method not in _METHODS:
            known = method.upper() in _METHODS
            diags.warning(
                "XRG165",
                file,
                ptr + "/method",
                f"HTTP method '{method}'"
                + (
                    " is case-sensitive; write it in upper case"
                    if known
                    else " is not a standard method"
                ),
            )
    status = literal(po.get("status"))
    if status is not None and not (isinstance(status, str) and "{" in status):
        text = str(status) if not isinstance(status, bool) else ""
        if not (text.isdigit() and len(text) == 3 and 100 <= int(text) <= 599):
            diags.error(
                "XRG166",
                file,
                ptr + "/status",
                f"HTTP status must be a code 100-599, not {status!r}",
            )
    headers = po.get("headers")
    names: Iterable[Any] = ()
    if isinstance(headers, list):
        names = (h.get("name") for h in headers if isinstance(h, dict))
    elif isinstance(headers, dict):
        names = headers.keys()
    for name in names:
        if isinstance(name, str) and not _TOKEN.match(name):
            diags.error(
                "XRG167", file, ptr + "/headers", f"'{name}' is not a valid HTTP header name"
            )


def _check_complete(po: dict[str, Any], file: str, ptr: str, diags: Diagnostics) -> None:
    if po.get("method") is not None and po.get("status") is not None:
        diags.error("XRG164", file, ptr, "HTTP 'method' and 'status' are mutually exclusive")


#: the runtime's declaration of the binding (types, fields, transit fields, Spark landing)
_RUNTIME = BINDINGS["http"]

HTTP = Protocol(
    id="HTTP",
    names=("http", "https"),
    accepts=any_version,
    model=HttpOptions,
    scalars={"method": ("method",), "path": ("path",), "status": ("status",)},
    maps={"headers": "headers", "query": "query"},
    routing=frozenset({"path", "method"}),
    runtime=_RUNTIME,
    connection=frozenset({"timeout", "tls", "auth"}),
    check=_check,
    check_complete=_check_complete,
    separate_roles=True,
)
PROTOCOLS = (HTTP,)
