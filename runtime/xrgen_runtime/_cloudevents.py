"""The CloudEvents facts the runtime works by (CloudEvents 1.0, ``spec.md`` and
``formats/json-format.md``), in one place: the spec version, the core attributes and their
kinds, the required ones, the type system's Python types, the naming rule, and the media types
of the JSON event format.

Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime

__all__ = [
    "AttrValue",
    "CORE_ATTRIBUTE_KINDS",
    "INT32_MAX",
    "INT32_MIN",
    "JSON_BATCH_MEDIA_TYPE",
    "JSON_MEDIA_TYPE",
    "KIND_TYPES",
    "REQUIRED_ATTRIBUTES",
    "SPECVERSION",
    "STRUCTURED_PREFIX",
    "TIME_NOW",
    "is_attribute_name",
]

SPECVERSION = "1.0"

#: xRegistry/CloudEvents kind of every core attribute (spec.md "Context Attributes").
CORE_ATTRIBUTE_KINDS: Mapping[str, str] = {
    "specversion": "string",
    "id": "string",
    "source": "urireference",
    "type": "string",
    "datacontenttype": "string",
    "dataschema": "uri",
    "subject": "string",
    "time": "timestamp",
}
#: Attributes every CloudEvent carries (spec.md "REQUIRED Attributes").
REQUIRED_ATTRIBUTES = ("specversion", "id", "source", "type")

#: Canonical Python types of CloudEvents attribute values (spec.md "Type System"):
#: String/URI/URI-reference -> str, Integer -> int, Boolean -> bool, Binary -> bytes,
#: Timestamp -> timezone-aware datetime.
AttrValue = str | int | bool | bytes | datetime
#: the attribute kinds whose canonical Python type is not ``str``, and that type
KIND_TYPES: Mapping[str, type] = {
    "timestamp": datetime,
    "boolean": bool,
    "integer": int,
    "binary": bytes,
}
#: the range of the Integer type (signed 32 bits)
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

#: the ``time`` value of a message definition that means "the time the event is made"
#: (xRegistry message spec), not a constant to match
TIME_NOW = "0000-01-01T00:00:00Z"

#: media type of the JSON event format (json-format.md section 1.1)
JSON_MEDIA_TYPE = "application/cloudevents+json"
#: media type of the JSON batch format (json-format.md section 4)
JSON_BATCH_MEDIA_TYPE = "application/cloudevents-batch+json"
#: what the content type of a structured-mode message starts with (case-insensitive;
#: bindings, "Content Modes")
STRUCTURED_PREFIX = "application/cloudevents"

_NAME = re.compile(r"[a-z0-9]+")


def is_attribute_name(name: str) -> bool:
    """Whether ``name`` is a valid attribute name: ``[a-z0-9]+`` and not ``data``.

    spec.md "Attribute Naming Convention": lower-case ASCII letters or digits, at least one
    character, and (1.0.3-wip) not ``data``.
    """
    return _NAME.fullmatch(name) is not None and name != "data"
