"""http(s) sources: an xRegistry document or server root fetched within one deadline and the
size cap, over http(s) only at every hop (redirects included); a server root that only links
its collections is fetched again with ``?inline=*`` or collection by collection."""

from __future__ import annotations

import http.client
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from ..diagnostics import Diagnostics
from ..limits import Limits
from .common import COLLECTIONS, URL_RE
from .errors import SourceError, too_large
from .text import is_yaml_name, parse_text


def _add_query(url: str, **params: str) -> str:
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    names = {k for k, _ in query}
    query += [(k, v) for k, v in params.items() if k not in names]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query, safe="*,")))


class _Deadline:
    """One deadline for every fetch of a URL source: when it passes, every socket opened
    for the source is shut down, which ends any read blocked on it (a server that drips
    its headers or body one byte at a time is cut off on time, not per read)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.expired = False
        self._lock = threading.Lock()
        self._socks: list[socket.socket] = []
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def remaining(self) -> float:
        left = self.end - time.monotonic()
        if left <= 0 or self.expired:
            raise self.error()
        return left

    def error(self) -> SourceError:
        return SourceError(
            "XRG100",
            f"fetching took longer than {self.seconds:g} s "
            "(--fetch-timeout, [tool.xrgen] fetch-timeout)",
        )

    def add(self, sock: socket.socket) -> None:
        with self._lock:
            self._socks.append(sock)
            if not self.expired:
                return
        self._shutdown(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            socks = list(self._socks)
        for sock in socks:
            self._shutdown(sock)

    @staticmethod
    def _shutdown(sock: socket.socket) -> None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # closed already

    def cancel(self) -> None:
        self._timer.cancel()


def _connection(base: type[http.client.HTTPConnection], deadline: _Deadline) -> Any:
    class Connection(base):  # type: ignore[valid-type, misc]
        def connect(self) -> None:
            super().connect()
            deadline.add(self.sock)

    return Connection


class _HttpHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self.deadline = deadline

    def http_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_connection(http.client.HTTPConnection, self.deadline), req)


class _HttpsHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self.deadline = deadline

    def https_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_connection(http.client.HTTPSConnection, self.deadline), req)


class _RedirectHandler(urllib.request.HTTPRedirectHandler):
    """Redirects stay on http(s): ``file://``, ``ftp://`` and every other scheme are refused."""

    max_redirections = 10

    def http_error_302(
        self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any
    ) -> Any:
        newurl = headers.get("location") or headers.get("uri")
        if newurl is not None:
            target = urllib.parse.urljoin(req.full_url, newurl)
            if not URL_RE.match(target):
                raise SourceError(
                    "XRG100",
                    f"{req.full_url} redirects to {target!r}: only http(s) is followed",
                )
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    """An opener that speaks http and https only (no file, ftp or data handlers)."""
    opener = urllib.request.OpenerDirector()
    for handler in (
        urllib.request.ProxyHandler(),
        urllib.request.UnknownHandler(),
        _HttpHandler(deadline),
        _HttpsHandler(deadline),
        urllib.request.HTTPDefaultErrorHandler(),
        _RedirectHandler(),
        urllib.request.HTTPErrorProcessor(),
    ):
        opener.add_handler(handler)
    return opener


def _fetch(url: str, deadline: _Deadline, limits: Limits, diags: Diagnostics) -> Any:
    """GET one URL within the deadline and size cap and parse it (JSON, or YAML by
    name/content type)."""
    if not URL_RE.match(url):
        raise SourceError("XRG100", f"refusing to fetch {url!r}: only http(s) URLs are loaded")
    req = urllib.request.Request(
        url, headers={"Accept": "application/json, application/yaml;q=0.9, */*;q=0.1"}
    )
    chunks: list[bytes] = []
    try:
        with _opener(deadline).open(req, timeout=deadline.remaining()) as resp:
            length = resp.headers.get("Content-Length", "")
            if length.isdigit() and int(length) > limits.max_document_bytes:
                raise too_large(limits)
            size = 0
            while chunk := resp.read(65536):
                size += len(chunk)
                if size > limits.max_document_bytes:
                    raise too_large(limits)
                chunks.append(chunk)
                deadline.remaining()
            ctype = resp.headers.get("Content-Type", "")
        deadline.remaining()
    except urllib.error.HTTPError as e:
        raise SourceError("XRG100", f"HTTP {e.code} {e.reason} fetching {url}") from None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as e:
        if deadline.expired:
            raise deadline.error() from None
        reason = getattr(e, "reason", e)
        raise SourceError("XRG100", f"cannot fetch {url}: {reason}") from None
    try:
        text = b"".join(chunks).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SourceError("XRG101", f"{url} did not return UTF-8 text") from None
    path = urllib.parse.urlsplit(url).path
    return parse_text(text, is_yaml_name(path) or "yaml" in ctype.lower(), limits, diags, url)


def load_url(url: str, limits: Limits, diags: Diagnostics) -> Any:
    """Fetch an xRegistry document or server root. A server root that only links its
    collections (``messagegroupsurl`` without ``messagegroups``) is fetched again with
    ``?inline=*``; collections still missing are fetched from their ``<coll>url`` (http(s)
    only). All fetches share one deadline (``Limits.fetch_timeout``)."""
    deadline = _Deadline(limits.fetch_timeout)
    try:
        doc = _fetch(url, deadline, limits, diags)
        if not isinstance(doc, dict) or not _missing_collections(doc):
            return doc
        try:
            inlined = _fetch(_add_query(url, inline="*"), deadline, limits, diags)
        except SourceError as e:
            if deadline.expired:
                raise
            if e.code != "XRG100":
                raise
            inlined = None  # a server without the inline flag: fetch the collections instead
        if isinstance(inlined, dict):
            doc = inlined
        for coll in _missing_collections(doc):
            link = urllib.parse.urljoin(url, str(doc[coll + "url"]))
            part = _fetch(_add_query(link, inline="*"), deadline, limits, diags)
            if isinstance(part, dict):
                doc[coll] = part
        return doc
    finally:
        deadline.cancel()


def _missing_collections(doc: dict[str, Any]) -> list[str]:
    return [
        c
        for c in COLLECTIONS
        if c not in doc and isinstance(doc.get(c + "url"), str) and doc.get(c + "count") != 0
    ]
