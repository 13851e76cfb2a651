"""One document's text -> JSON data: a file read within the size cap, parsed as JSON or (by
its name) YAML."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostics
from ..limits import Limits
from .errors import SourceError, os_reason, too_large
from .jsontext import parse_json

DEFAULT_LIMITS = Limits()


def parse_text(
    text: str,
    yaml_syntax: bool,
    limits: Limits = DEFAULT_LIMITS,
    diags: Diagnostics | None = None,
    file: str = "",
) -> Any:
    """Parse a document into JSON data within ``limits``; raises ``SourceError`` (XRG101 with
    line:col on syntax errors, XRG104-109 past a limit or for data that is not JSON, with the
    pointer where known). Warnings (non-string YAML keys) go to ``diags``."""
    if not text.strip():
        raise SourceError("XRG101", "the document is empty")
    if yaml_syntax:
        from .yamltext import parse_yaml  # PyYAML only for YAML documents

        return parse_yaml(text, limits, diags, file)
    return parse_json(text, limits)


def is_yaml_name(name: str) -> bool:
    return name.lower().endswith((".yaml", ".yml"))


def read_file(path: Path, limits: Limits, diags: Diagnostics, file: str) -> Any:
    try:
        with path.open("rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > limits.max_document_bytes:
                raise too_large(limits)
            raw = f.read(limits.max_document_bytes + 1)
        if len(raw) > limits.max_document_bytes:  # a file that grows, a device
            raise too_large(limits)
        text = raw.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise SourceError("XRG100", f"cannot read file: {os_reason(e)}") from None
    return parse_text(text, is_yaml_name(path.name), limits, diags, file)
