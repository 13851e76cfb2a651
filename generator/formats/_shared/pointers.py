"""JSON Pointers into schema documents (JSON Schema, JSON Structure)."""

from __future__ import annotations

import urllib.parse
from typing import Any

Pointer = tuple[str, ...]


def pointer_tokens(pointer: str) -> Pointer:
    """``a/b~1c`` -> ``("a", "b/c")`` (a JSON pointer without its leading ``/``)."""
    if not pointer:
        return ()
    return tuple(
        urllib.parse.unquote(t).replace("~1", "/").replace("~0", "~")
        for t in pointer.split("/")
    )


def node_at(document: Any, tokens: Pointer) -> Any:
    """The node of ``document`` at ``tokens`` (``None``: there is none)."""
    node = document
    for token in tokens:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node
