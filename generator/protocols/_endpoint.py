"""What a binding declares about its endpoints (xRegistry 1.0-rc4 endpoint-spec.md, "Protocol
Options"): the option names and value types, the spellings older catalogs use, which message
option an endpoint value is a default for, the address rules of ``protocoloptions.endpoints``
and the binding's MUST rules. Each binding module with an rc4 endpoint model declares one
``EndpointOptions`` (``ENDPOINT``); ``generator/endpoints`` reads and checks endpoints with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Diagnostics
from ..suggest import squash as squash

#: the ``usage`` values of the rc4 endpoint model
ROLES = ("producer", "consumer", "subscriber")
_ALL_ROLES = frozenset(ROLES)
#: the roles of an endpoint's sending clients and of its receiving ones
SENDS = frozenset({"producer"})
RECEIVES = frozenset({"consumer", "subscriber"})

#: ``check(options, usage, file, pointer, diagnostics)``: a binding's MUST rules on the
#: normalized options of one endpoint (``pointer``: its ``protocoloptions``)
EndpointCheck = Callable[[Mapping[str, Any], frozenset[str], str, str, Diagnostics], None]


@dataclass(frozen=True, slots=True)
class EndpointOption:
    """One rc4 endpoint option.

    ``kind``: ``string``, ``boolean``, ``integer``, ``uinteger``, ``stringmap`` (string to
    string), ``anymap`` (string to any JSON value), ``strings`` (array of strings),
    ``headers`` (array of ``{name, value}``), ``xid`` (a message reference) or ``any``."""

    kind: str
    #: the allowed values (an enum), empty for any value of the kind
    values: tuple[Any, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    #: the message option (its name at message level) this endpoint value is a default for
    message: str | None = None
    #: the roles whose endpoints pass the value to their messages
    default_roles: frozenset[str] = _ALL_ROLES
    #: the roles whose clients use the option (docs/endpoints.md); on an endpoint of other
    #: roles only, it is not applied (warning XRG149)
    roles: frozenset[str] = _ALL_ROLES


#: options every binding's endpoints take beside the rc4 ones, read by the runtime's serving
#: (docs/serving.md): ``deadletter``, the topic, queue node, subject or URL where a consumer
#: publishes the messages no handler took
SERVICE_OPTIONS: Mapping[str, EndpointOption] = {"deadletter": EndpointOption("string")}


@dataclass(frozen=True, slots=True)
class EndpointOptions:
    """The rc4 endpoint model of one binding (one canonical protocol id), with the
    :data:`SERVICE_OPTIONS`."""

    protocol: str
    #: rc4 option name -> its declaration
    options: Mapping[str, EndpointOption]
    #: legacy spellings read under their rc4 name (warning XRG117), beside the spellings that
    #: differ from an rc4 name only in case and ``-``/``_``/``.`` separators
    aliases: Mapping[str, str] = field(default_factory=dict)
    #: the aliases that are the binding's message option names (MQTT ``topic_name``): read
    #: the same way, the warning says what they are
    message_names: frozenset[str] = frozenset()
    #: rc4 options of the protocol's other version (MQTT) -> that version (warning XRG171)
    other_version: Mapping[str, str] = field(default_factory=dict)
    #: connection settings older catalogs write that rc4 does not define (warning XRG174)
    retired: frozenset[str] = frozenset()
    #: the attribute of a ``protocoloptions.endpoints`` entry holding the address
    address: str = "uri"
    #: URI schemes (lower case) an endpoint address may use
    schemes: frozenset[str] = frozenset()
    #: an endpoint URI must include a port (NATS)
    port_required: bool = False
    #: schemes whose URIs must not have a path (MQTT ``tcp``, ``ssl``, ``wss``)
    pathless: frozenset[str] = frozenset()
    #: a URI path is a topic name and must not hold wildcards (MQTT)
    path_is_topic: bool = False
    #: ``["subscriber", "consumer"]`` is allowed (one connection serves both roles)
    subscribe_and_consume: bool = False
    #: an endpoint declares exactly one usage (HTTP)
    one_usage: bool = False
    #: a legacy routing option holding a subscription filter on an endpoint that does not
    #: produce -> the rc4 filter option it is read as (MQTT ``topic`` -> ``topicfilter``)
    filters: Mapping[str, str] = field(default_factory=dict)
    #: whether a routing value holds a wildcard of the protocol (outside its placeholders)
    wildcard: Callable[[str], bool] = lambda value: False
    check: EndpointCheck | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", {**SERVICE_OPTIONS, **self.options})

    def is_filter(self, value: str) -> bool:
        """A subscription filter: wildcards, or (older catalogs) a comma list of filters."""
        return "," in value or self.wildcard(value)

    def message_defaults(self) -> dict[str, str]:
        """rc4 option -> the message option it is a default for."""
        return {k: o.message for k, o in self.options.items() if o.message is not None}


_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def literal_text(template: str) -> str:
    """``template`` without its ``{placeholder}`` expressions (the text the catalog fixes)."""
    return _PLACEHOLDER.sub("", template)


def mqtt_wildcard(value: str) -> bool:
    """Whether an MQTT topic holds a ``+`` or ``#`` wildcard outside its placeholders."""
    text = literal_text(value)
    return "+" in text or "#" in text


def nats_wildcard(value: str) -> bool:
    """Whether a NATS subject holds a ``*`` token or a final ``>`` outside its placeholders."""
    tokens = literal_text(value).split(".")
    return "*" in tokens or tokens[-1] == ">"
