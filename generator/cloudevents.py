"""CloudEvents 1.0 facts the generator stages share: the envelope name and its spellings, the
core context attributes (names, xRegistry types, which are required, which a catalog may leave
open), and the registry base of a catalog read over http(s) (relative ``dataschema`` values are
read against it)."""

from __future__ import annotations

import re
from typing import Any

#: the envelope as the current xRegistry spelling names it
CLOUDEVENTS = "CloudEvents/1.0"

#: the context attributes every event schema has, in column order (name, xRegistry type)
CORE_ATTRIBUTES: tuple[tuple[str, str], ...] = (
    ("specversion", "string"),
    ("id", "string"),
    ("source", "urireference"),
    ("type", "string"),
    ("time", "timestamp"),
    ("datacontenttype", "string"),
    ("dataschema", "uri"),
    ("subject", "string"),
)
#: the attributes every event has (``specversion`` included)
REQUIRED_CORE = frozenset({"specversion", "id", "source", "type"})
#: the attributes a catalog must not declare ``required: false``
IMPLICITLY_REQUIRED = ("type", "id", "source")
#: the attributes resolution adds to a CloudEvents message that does not declare them
IMPLIED = {
    "specversion": {"type": "string", "value": "1.0", "required": True},
    "id": {"type": "string", "required": True},
    "source": {"type": "urireference", "required": True},
    "type": {"type": "string", "required": True},
}
#: the xRegistry type of a core attribute declared without one
DEFAULT_TYPES = {
    "specversion": "string",
    "id": "string",
    "type": "string",
    "source": "uritemplate",
    "subject": "string",
    "time": "timestamp",
    "dataschema": "uritemplate",
    "datacontenttype": "string",
}
#: the ``time`` value that means "when the event is created"
NOW = "0000-01-01T00:00:00Z"
#: context attributes that a catalog may leave open (no value, or an empty one: XRG145); the
#: producer then takes them as arguments (``build``)
FREE_CORE = frozenset({"source", "subject", "dataschema"})


def is_cloudevents(s: Any) -> bool:
    """True for ``CloudEvents/1.0`` in any letter case and spacing (and bare ``CloudEvents``)."""
    if not isinstance(s, str):
        return False
    name, _, version = s.lower().replace(" ", "").partition("/")
    return name == "cloudevents" and version in ("", "1.0", "1")


def registry_base(file: str) -> str | None:
    """The registry root URL of a catalog read from http(s) (``file`` is its URL), else None:
    the URL without query and fragment, cut before its first xRegistry collection."""
    if not _HTTP.match(file):
        return None
    base = file.split("#", 1)[0].split("?", 1)[0]
    for collection in ("/messagegroups", "/schemagroups", "/endpoints"):
        base = base.split(collection, 1)[0]
    return base.rstrip("/")


def absolute_dataschema(base: str, value: str) -> str:
    """A registry-relative ``dataschema`` made absolute from the registry root ``base``."""
    if value.startswith("#"):
        value = value[1:]
    return base + value if value.startswith("/") else base + "/" + value


_HTTP = re.compile(r"^https?://", re.IGNORECASE)


def may_be_absolute(template: str) -> bool:
    """Whether ``template`` (a URI or a URI template) can expand to an absolute URI."""
    head = template.split("{", 1)[0]
    return (head == "" and template.startswith("{")) or _ABSOLUTE.match(head) is not None


_ABSOLUTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def takes_group_envelope(message: dict[str, Any]) -> bool:
    """Whether a message that declares no ``envelope`` is read with its group's: when it
    declares ``envelopemetadata``, or no ``protocol`` either. A message with a protocol and
    neither is a plain protocol message (docs/catalogs.md)."""
    return message.get("envelope") is None and (
        message.get("envelopemetadata") is not None or message.get("protocol") is None
    )
