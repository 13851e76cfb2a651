"""References to entities of the registry (xids and URIs), read the ways catalogs write them.

``#/messagegroups/g``, ``/messagegroups/g`` and ``messagegroups/g`` are the same reference;
so is an absolute URL under one of the registry's own root URLs (the http(s) URL a catalog
was read from, or the root ``self`` of its documents): ``https://reg.example.com/messagegroups/g``
in a catalog whose ``self`` is ``https://reg.example.com``. Any other absolute URI points into
another registry, which xrgen never fetches.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .cloudevents import registry_base
from .model.registry import Registry

ABSOLUTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def bases(reg: Registry, file: str) -> list[str]:
    """The root URLs of the registry a reference written in ``file`` points into."""
    own = registry_base(file)
    return [*reg.bases, own] if own else list(reg.bases)


def tokens(ref: str, roots: Sequence[str] = ()) -> list[str] | None:
    """The unescaped path tokens of ``ref`` inside this registry; None for an absolute URI
    into another registry."""
    if ABSOLUTE.match(ref):
        inside = _under(ref, roots)
        if inside is None:
            return None
        ref = inside
    ref = ref[1:] if ref.startswith("#") else ref
    parts = [t for t in ref.strip("/").split("/") if t != ""]
    return [t.replace("~1", "/").replace("~0", "~") for t in parts]


def _under(url: str, roots: Sequence[str]) -> str | None:
    """The path of ``url`` below one of ``roots`` (query and fragment dropped), else None."""
    url = url.split("#", 1)[0].split("?", 1)[0]
    for root in roots:
        if url.lower().startswith(root.lower()) and url[len(root) : len(root) + 1] in ("/", ""):
            return url[len(root) :] or "/"
    return None


def message_path(path: list[str] | None) -> tuple[str, str] | None:
    """``(group id, message id)`` of a message xid: ``messagegroups/g/messages/m``, also with
    ``/versions/v`` (a message definition has one version)."""
    if not path or len(path) not in (4, 6) or path[0] != "messagegroups":
        return None
    if path[2] != "messages" or (len(path) == 6 and path[4] != "versions"):
        return None
    return path[1], path[3]
