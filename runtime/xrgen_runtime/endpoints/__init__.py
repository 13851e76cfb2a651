"""Catalog endpoints (xRegistry 1.0-rc4) as objects that configure clients.

A generated package's ``ENDPOINTS`` maps each endpoint id to an :class:`Endpoint`:
its data (usage, protocol, URIs, options, authorization metadata, message ids) and, per role,
``sender``/``receiver`` (the binding's adapters, connected with the catalog's settings),
``config`` (the client library's own configuration) and ``dispatcher`` (accepting the
endpoint's messages only). Placeholders, overrides and credentials are keyword arguments;
credentials also come from environment variables (:func:`env_names`). docs/endpoints.md maps
every option to what it configures.

Importing this package loads neither pydantic nor a client library.
"""

from __future__ import annotations

from ._credentials import CREDENTIAL_FIELDS, Credentials, Secret, env_names
from ._errors import (
    EndpointConnectFailed,
    EndpointError,
    MessageNotDeclared,
    MissingCredential,
    MissingPlaceholder,
    UnknownEndpoint,
)
from ._model import ROLES, Authorization, Endpoint
from ._table import EndpointTable

__all__ = [
    "CREDENTIAL_FIELDS",
    "ROLES",
    "Authorization",
    "Credentials",
    "Endpoint",
    "EndpointError",
    "EndpointTable",
    "EndpointConnectFailed",
    "MessageNotDeclared",
    "MissingCredential",
    "MissingPlaceholder",
    "Secret",
    "UnknownEndpoint",
    "env_names",
]
