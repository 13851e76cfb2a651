"""HTTP (``HTTP``, ``HTTP/1.1``, ``HTTP/2``, ``HTTPS`` ...)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from xrgen_runtime.bindings import BINDINGS

from ..diagnostics import Diagnostics, pointer
from ..model.catalog import LooseStatus, LooseStr, NameValueList, OptionsModel
from ._base import Protocol, any_version, entries, literal
from ._endpoint import EndpointOption, EndpointOptions


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
    connection=frozenset(
        {
            "timeout", "tls", "auth",
            # rc4 endpoint options (generator/endpoints reads them on endpoints)
            "apikeyname", "apikeyin", "plainscheme", "plainusernamefield", "plainpasswordfield",
        }
    ),  # fmt: skip
    check=_check,
    check_complete=_check_complete,
    separate_roles=True,
)
PROTOCOLS = (HTTP,)


# ------------------------------------------------------------------------ endpoints (rc4)

#: header names that carry credentials
_CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization"})


def _check_endpoint(
    po: Mapping[str, Any], usage: frozenset[str], file: str, ptr: str, diags: Diagnostics
) -> None:
    """Credentials are supplied out of band, never stored in endpoint metadata: an
    ``Authorization`` header, or the API key's header or query parameter (``apikeyname``),
    may only hold a placeholder."""
    keyname = po.get("apikeyname")
    keyname = keyname.lower() if isinstance(keyname, str) else None
    for option in ("headers", "query"):
        for name, item, sub in entries(po.get(option)):
            value = literal(item)
            if not isinstance(name, str) or not isinstance(value, str) or "{" in value:
                continue
            carrier = name.lower()
            if (option == "headers" and carrier in _CREDENTIAL_HEADERS) or carrier == keyname:
                diags.error(
                    "XRG199",
                    file,
                    ptr + pointer(option) + sub,
                    f"HTTP {option} {name!r} holds a credential value; endpoint metadata must"
                    " not store credentials: use a placeholder (e.g. '{token}') supplied at run time",
                )


_PRODUCER = frozenset({"producer"})
ENDPOINT = EndpointOptions(
    protocol="HTTP",
    options={
        "method": EndpointOption("string", message="method", default_roles=_PRODUCER),
        "headers": EndpointOption("headers", message="headers", default_roles=_PRODUCER),
        "query": EndpointOption("stringmap", message="query", default_roles=_PRODUCER),
        "apikeyname": EndpointOption("string"),
        "apikeyin": EndpointOption("string", values=("header", "query")),
        "plainscheme": EndpointOption("string", values=("basic", "form", "query")),
        "plainusernamefield": EndpointOption("string"),
        "plainpasswordfield": EndpointOption("string"),
    },
    retired=frozenset({"timeout", "tls", "auth"}),
    schemes=frozenset({"http", "https"}),
    one_usage=True,
    check=_check_endpoint,
)
ENDPOINTS = (ENDPOINT,)
