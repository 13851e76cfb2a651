"""The diagnostic codes of JSON Schema payload models."""

from __future__ import annotations

#: a JSON Schema could not be mapped: the payload gets a permissive model
XRG_JSON_UNMAPPED = "XRG320"
#: a ``$ref`` that cannot be resolved locally (remote, relative file, anchor): typed ``Any``
XRG_REF_UNSUPPORTED = "XRG321"
#: datamodel-code-generator warned about a schema (unknown format, ...)
XRG_JSON_WARNING = "XRG323"
