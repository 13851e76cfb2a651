"""``ENDPOINTS`` of a generated package: a read-only mapping from endpoint id to ``Endpoint``
whose missing ids raise ``UnknownEndpoint`` naming the closest declared ids."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from typing import TypeVar

from ._errors import UnknownEndpoint

V = TypeVar("V")

__all__ = ["EndpointTable"]


class EndpointTable(Mapping[str, V]):
    """An immutable mapping of endpoint ids; ``table[id]`` of an undeclared id raises
    ``UnknownEndpoint`` (a ``KeyError``) that names the closest ids, else the declared ones.
    """

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, V]) -> None:
        self._items = dict(items)

    def __getitem__(self, key: str) -> V:
        try:
            return self._items[key]
        except KeyError:
            raise UnknownEndpoint(key, self._unknown(key)) from None

    def _unknown(self, key: object) -> str:
        ids = sorted(self._items)
        if not ids:
            return f"no endpoint {key!r}: the catalog declares no endpoints"
        close = (
            difflib.get_close_matches(str(key), ids, n=3, cutoff=0.6)
            if isinstance(key, str)
            else []
        )
        if close:
            return f"no endpoint {key!r}; did you mean {' or '.join(map(repr, close))}?"
        shown = ", ".join(map(repr, ids[:10])) + (
            f" and {len(ids) - 10} more" if len(ids) > 10 else ""
        )
        return f"no endpoint {key!r}; the catalog declares {shown}"

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __repr__(self) -> str:
        return f"EndpointTable({self._items!r})"
