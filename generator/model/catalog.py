"""Our pydantic models of the xRegistry message catalog document (structural validation).

They describe the normalized entities that ``load`` produces (current spelling: ``envelope``,
``envelopemetadata``, ``dataschemauri``, ``messageid``, ...). Types are strict (``"true"`` is not
a boolean), unknown attributes are allowed (xRegistry extensions), and protocol option values are
loose on purpose: real catalogs write either a literal (``"qos": 1``) or an attribute definition
(``"qos": {"type": "integer", "value": 1}``), so both are accepted wherever a value goes.
Children collections (``messages``, ``schemas``, ``versions``) are validated entity by entity,
not through the parent model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

Json = Any


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True, populate_by_name=True)


class AttributeDef(_Model):
    """A property definition (envelope attribute, protocol header/property)."""

    type: str | None = None
    value: Json = None
    required: bool | None = None
    description: str | None = None
    specurl: str | None = None


def _attr_def_error(v: dict[str, Any]) -> str | None:
    for key, kinds in (("type", str), ("required", bool), ("description", str), ("specurl", str)):
        if key in v and v[key] is not None and not isinstance(v[key], kinds):
            return f"'{key}' must be a {kinds.__name__}"
    return None


def _loose_check(*kinds: type, what: str) -> Callable[[Any], Any]:
    """A protocol option value: one of ``kinds``, an attribute definition, or a string (for
    non-string options only a template with a ``{placeholder}``)."""

    templates_only = str not in kinds  # an integer/boolean option may be a "{placeholder}"

    def check(v: Any) -> Any:
        if v is None or (isinstance(v, kinds) and not _bool_for_int(v, kinds)):
            return v
        if isinstance(v, str) and (not templates_only or "{" in v):
            return v
        if isinstance(v, dict):
            problem = _attr_def_error(v)
            if problem is None:
                return v
            raise PydanticCustomError(
                "attribute_def", "invalid attribute definition: {p}", {"p": problem}
            )
        raise PydanticCustomError(
            "loose_value",
            "expected {what}, a template string or an attribute definition {type, value, ...}",
            {"what": what},
        )

    return check


def _bool_for_int(v: Any, kinds: tuple[type, ...]) -> bool:
    return isinstance(v, bool) and bool not in kinds


def _shape_check(*, lists: bool, maps: bool, what: str) -> Callable[[Any], Any]:
    """Headers/properties collections: an array of ``{name, value}`` and/or a map."""

    def check(v: Any) -> Any:
        if v is None or (maps and isinstance(v, dict)):
            return v
        if lists and isinstance(v, list):
            for i, item in enumerate(v):
                if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                    raise PydanticCustomError(
                        "name_value", "item {i} must be an object with a string 'name'", {"i": i}
                    )
            return v
        raise PydanticCustomError("collection", "expected {what}", {"what": what})

    return check


LooseStr = Annotated[Any, AfterValidator(_loose_check(str, what="a string"))]
LooseInt = Annotated[Any, AfterValidator(_loose_check(int, what="an integer"))]
LooseBool = Annotated[Any, AfterValidator(_loose_check(bool, what="a boolean"))]
LooseStatus = Annotated[Any, AfterValidator(_loose_check(str, int, what="a status code"))]
NameValueList = Annotated[
    Any,
    AfterValidator(
        _shape_check(lists=True, maps=True, what="an array of {name, value} objects or a map")
    ),
]


class Meta(_Model):
    """The ``meta`` entity of a resource (only what we read)."""

    xref: str | None = None
    defaultversionid: str | None = None
    readonly: bool | None = None


class _Common(_Model):
    """xRegistry common attributes (those present in catalogs we read)."""

    name: str | None = None
    description: str | None = None
    documentation: str | None = None
    labels: dict[str, str] | None = None
    epoch: int | None = None
    createdat: str | None = None
    modifiedat: str | None = None
    deprecated: dict[str, Json] | None = None


class Message(_Common):
    messageid: str
    basemessage: str | None = None
    xref: str | None = None
    meta: Meta | None = None
    envelope: str | None = None
    envelopemetadata: dict[str, AttributeDef] | None = None
    envelopeoptions: dict[str, Json] | None = None
    protocol: str | None = None
    protocoloptions: dict[str, Json] | None = None
    dataschemaformat: str | None = None
    dataschema: Json = None
    dataschemauri: str | None = None
    dataschemaxid: str | None = None
    datacontenttype: str | None = None


class MessageGroup(_Common):
    messagegroupid: str
    envelope: str | None = None
    protocol: str | None = None
    envelopeoptions: dict[str, Json] | None = None
    protocoloptions: dict[str, Json] | None = None
    xref: str | None = None
    meta: Meta | None = None


class SchemaGroup(_Common):
    schemagroupid: str
    format: str | None = None


class Schema(_Common):
    schemaid: str
    format: str | None = None
    meta: Meta | None = None


class SchemaVersion(_Common):
    versionid: str
    format: str | None = None
    schema_: Json = Field(default=None, alias="schema")
    schemaurl: str | None = None
    schemabase64: str | None = None
    isdefault: bool | None = None


class Endpoint(_Common):
    endpointid: str
    usage: list[str] | None = None
    channel: str | None = None
    envelope: str | None = None
    envelopeoptions: dict[str, Json] | None = None
    protocol: str | None = None
    protocoloptions: dict[str, Json] | None = None
    messagegroups: list[str] | None = None
    messages: dict[str, dict[str, Json]] | None = None


# ------------------------------------------------------------------ protocol options


class OptionsModel(_Model):
    """Base of the option models of the bindings (``generator/protocols/``)."""
