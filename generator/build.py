"""Build stage: resolved catalog data -> ``ir.Catalog``. The only place that invents Python names.

Every name the generated package uses for a catalog entity is decided here, through
``naming.py``, in the scope where it lives (collisions get ``_2``, ``_3``... and warning XRG301):
- package module level (one scope for all generated modules, beside every name they import or
  define, ``MODULE_NAMES``): group classes ``<Group>Producer``/``<Group>Dispatcher`` and their
  handler mix-ins, and the constants ``G_``/``_M_`` (group), ``D_``/``_E_``/``_create_``
  (message), ``_T_`` (payload Spark type); upper-cased constants are checked here too, so
  ``x.yz``/``xy.z`` or ``ReadingV2``/``Readingv2`` never share one;
- per group: method names ``snake(last id segment)`` and the producer's attributes;
- package-wide dispatcher: ``on_<method>``, unique across groups;
- per message: placeholder and free-attribute parameters, never ``self``, ``data``, ``id``,
  ``time`` or a name the method body uses;
- endpoints: ``NAME.endpoints.<snake>`` (the ``endpoints`` module's scope) and their
  dispatchers ``<Pascal>Dispatcher`` (package module level), from the shortest tail of the
  endpoint id no other endpoint id ends with;
- payload models: the schema's title or Avro name, else ``<LastSegment>Data``; identical
  schemas share one model.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from . import formats, protocols
from .cloudevents import CLOUDEVENTS, FREE_CORE, is_cloudevents
from .diagnostics import Diagnostics
from .model import ir
from .model.resolved import Resolved, ResolvedEndpoint, ResolvedMessage, ResolvedSchema
from .naming import Scope, last_segment, pascal, short_names, snake
from .protocols import placeholders_of

CE_CONTEXT = frozenset(
    {"specversion", "id", "source", "type", "datacontenttype", "dataschema", "subject", "time"}
)
#: parameters of producer methods and create functions, and names their bodies use
_PARAMETERS_RESERVED = frozenset({"self", "cls", "data", "id", "time", "models", "pick"})
#: what every generated dispatcher has from ``DispatcherBase``
_DISPATCHER_ATTRIBUTES = frozenset(
    {"on", "dispatch", "dispatch_async", "dispatch_event", "dispatch_event_async", "message_ids"}
)
#: what the generated modules import or define at module level, and the package's submodules
#: (``tests/unit/test_build.py`` checks a generated package against this list)
MODULE_NAMES = frozenset(
    {
        # the package and its submodules
        "MESSAGES", "MessageInfo", "DecodeError", "Event", "MessageDef", "BaseModel",
        "Callable", "Mapping", "Any", "builtins", "annotations", "TYPE_CHECKING",
        "ENDPOINTS", "Endpoint", "EndpointTable", "Authorization", "MappingProxyType",
        "__getattr__", "importlib",
        "models", "producer", "consumer", "spark", "bindings", "adapters", "endpoints",
        "_defs", "_core", "_produce", "_dispatch", "_spark",
        "xrgen_runtime", "_require_runtime", "_missing",
        # _defs.py
        "AttrDef", "OptionDef", "ALL", "GROUPS",
        # producer.py
        "datetime", "Emitter", "pick", "Held", "Generic", "Literal", "overload",
        # consumer.py
        "Awaitable", "DeadLetter", "DispatcherBase", "Dispatcher", "TypedDict",
        # spark.py
        "functools", "json", "DataFrame", "DataType", "StructType", "LANDING_SCHEMAS",
        "Outputs", "SparkDecoder", "parse_type", "_type", "_struct", "SCHEMAS",
        "EVENT_SCHEMAS", "AVRO_SCHEMAS", "PROTO_DESCRIPTORS", "PAYLOAD_CHECKS", "decoder",
        "_decoder", "Iterable", "STRUCTURE_READS", "_read",
        *(landing.function for landing in protocols.SPARK_LANDINGS),
    }
)  # fmt: skip
_GROUP_CLASSES = ("{}Producer", "{}Dispatcher", "_{}Handlers", "_{}GroupHandlers")
_GROUP_CONSTANTS = ("G_{}", "_M_{}")
_MESSAGE_CONSTANTS = ("D_{}", "_E_{}")
_JSON_CT = re.compile(r"^[^/;\s]+/([^;\s]*\+)?json\s*(;.*)?$", re.IGNORECASE)

def is_json_content_type(ct: str | None) -> bool:
    return ct is None or bool(_JSON_CT.match(ct.strip()))


def schema_key(schema: ResolvedSchema) -> str:
    canon = json.dumps(schema.schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return schema.family + ":" + hashlib.sha256(canon.encode()).hexdigest()[:24]


class _Builder:
    def __init__(self, diags: Diagnostics) -> None:
        self.d = diags
        self.payloads: dict[str, ir.Payload] = {}
        #: id(schema object) -> key: messages referencing one schema version share the object
        self.schema_keys: dict[int, str] = {}
        self.model_names = Scope(frozenset({"BaseModel", "Field", "RootModel", "Any"}))
        #: the package's module-level names (every generated module)
        self.module = Scope(MODULE_NAMES)
        #: the package-wide dispatcher's ``on_*`` decorators
        self.package_handlers = Scope(_DISPATCHER_ATTRIBUTES)
        #: ``NAME.endpoints``: one attribute per endpoint
        self.endpoint_attrs = Scope(_ENDPOINTS_MODULE)

    def claim(
        self, scope: Scope, loc: str, what: str, stem: str, forms: tuple[str, ...] = ("{}",)
    ) -> str:
        """``stem`` made unique in ``scope`` for every form (see ``Scope.claim_family``); a
        collision gets warning XRG301 naming the form that was taken."""
        unique, taken = scope.claim_family(stem, forms)
        if taken is not None:
            file, _, ptr = loc.partition("#")
            name, used = taken.format(stem), taken.format(unique)
            self.d.warning("XRG301", file, ptr, f"{what} name {name!r} is taken; using {used!r}")
        return unique

    # -- payloads --------------------------------------------------------------------------
    def payload(self, rm: ResolvedMessage) -> ir.Payload | None:
        sch = rm.schema
        if sch is None:
            return None
        file, _, ptr = rm.location.partition("#")
        fmt = formats.get(sch.family)
        if fmt is None or not fmt.MODELED:
            self.d.warning(
                "XRG220",
                file,
                ptr,
                f"payload schema format {sch.format or sch.family!r} is not modeled; data stays bytes",
            )
            return None
        why = fmt.unusable(sch.schema)
        if why is not None:
            self.d.warning(
                "XRG220", file, ptr, f"{fmt.TITLE} payload is not modeled ({why}); data stays bytes"
            )
            return None
        ct = _declared_content_type(rm.data)
        if formats.wire_format(sch.family, ct) is None:
            own = fmt.CONTENT_TYPE
            self.d.warning(
                "XRG221",
                file,
                ptr,
                f"datacontenttype {ct!r} is neither JSON nor {own!r} ({fmt.TITLE}); the payload stays bytes",
            )
            return None
        key = self.schema_keys.get(id(sch.schema))
        if key is None:
            key = schema_key(sch)
            self.schema_keys[id(sch.schema)] = key
        if key in self.payloads:
            return self.payloads[key]
        name = fmt.root_name(sch.schema) or last_segment(rm.id) + "Data"
        model_name = self.claim(self.model_names, sch.location, "model", pascal(name))
        spark = self.claim(self.module, sch.location, "constant", model_name.upper(), ("_T_{}",))
        p = ir.Payload(key, sch.family, sch.schema, model_name, sch.location, "_T_" + spark)
        self.payloads[key] = p
        return p

    # -- attributes and options -------------------------------------------------------------
    def attributes(self, rm: ResolvedMessage) -> tuple[ir.Attribute, ...]:
        meta = rm.data.get("envelopemetadata")
        if not isinstance(meta, dict):
            return ()
        out: list[ir.Attribute] = []
        for name, spec in meta.items():
            spec = spec if isinstance(spec, dict) else {}
            kind = str(spec.get("type") or "string").lower()
            value = spec.get("value")
            value = _constant(value)
            if name == "time":
                # "now", or a fixed time (warned: XRG137): time is set when an event is
                # created (now unless given), never a constant to match on receipt
                value = None
            if name in FREE_CORE and value == "":
                value = None  # an empty source/subject/dataschema is no value (XRG145)
            if (
                isinstance(value, str)
                and kind in ("string", "uri", "urireference")
                and "{" in value
            ):
                kind = "uritemplate"
            holders = (
                placeholders_of(value) if kind == "uritemplate" and isinstance(value, str) else ()
            )
            out.append(
                ir.Attribute(
                    name=name,
                    kind=kind,
                    required=bool(spec.get("required", False)),
                    value=value,
                    placeholders=holders,
                    extension=name not in CE_CONTEXT,
                )
            )
        return tuple(out)


def _constant(value: Any) -> str | int | bool | None:
    """A catalog constant as an attribute value: whole floats become ints, other floats and
    structured values their JSON text (attribute values are strings, ints or booleans)."""
    if value is None or isinstance(value, (str, int, bool)):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return json.dumps(value)


def _declared_content_type(data: dict[str, Any]) -> str | None:
    meta = data.get("envelopemetadata")
    if isinstance(meta, dict) and isinstance(meta.get("datacontenttype"), dict):
        v = meta["datacontenttype"].get("value")
        if isinstance(v, str):
            return v
    ct = data.get("datacontenttype")
    return ct if isinstance(ct, str) else None


def build(resolved: Resolved, diags: Diagnostics) -> ir.Catalog:
    b = _Builder(diags)
    groups: list[ir.MessageGroup] = []
    for rg in resolved.groups:
        loc = f"{rg.file}#{rg.pointer}"
        gname = b.claim(b.module, loc, "class", pascal(rg.id), _GROUP_CLASSES)
        gconst = b.claim(b.module, loc, "constant", gname.upper(), _GROUP_CONSTANTS)
        #: the group's producer (methods and attributes); its dispatcher's ``on_<method>``
        #: names follow the methods and avoid what ``DispatcherBase`` defines
        members = Scope(frozenset(a[3:] for a in _DISPATCHER_ATTRIBUTES if a.startswith("on_")))
        messages: list[ir.Message] = []
        for rm in rg.messages:
            stem = snake(last_segment(rm.id))
            py_name = b.claim(members, rm.location, "method", stem)
            handler = b.claim(b.package_handlers, rm.location, "handler", "on_" + stem)
            messages.append(_message(b, rm, py_name, handler))
        common = _common_placeholders(messages)
        attrs = tuple(b.claim(members, loc, "attribute", "_" + p.py_name) for p in common)
        own_handlers = any(m.handler != m.package_handler for m in messages)
        groups.append(
            ir.MessageGroup(
                id=rg.id,
                py_name=gname,
                producer_class=gname + "Producer",
                dispatcher_class=gname + "Dispatcher",
                handlers_class=f"_{gname}Handlers",
                group_handlers_class=f"_{gname}{'Group' if own_handlers else ''}Handlers",
                defs_const="G_" + gconst,
                entries_var="_M_" + gconst,
                description=rg.data.get("description")
                if isinstance(rg.data.get("description"), str)
                else None,
                messages=tuple(messages),
                common_placeholders=common,
                producer_attrs=attrs,
                location=loc,
            )
        )
    short = short_names([rep.id for rep in resolved.endpoints])
    endpoints = tuple(_endpoint(b, rep, short[rep.id], groups) for rep in resolved.endpoints)
    return ir.Catalog(
        tuple(groups), tuple(b.payloads.values()), tuple(resolved.sources), endpoints
    )


#: what ``endpoints.py`` imports or defines beside the endpoint objects
_ENDPOINTS_MODULE = frozenset(
    {"annotations", "Any", "Authorization", "Endpoint", "EndpointTable", "ENDPOINTS", "Mapping",
     "MappingProxyType", "_consumer"}
)  # fmt: skip
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def receives(rep: ResolvedEndpoint) -> bool:
    """Whether clients of the endpoint receive messages, so that it needs a dispatcher: every
    usage but ``producer`` alone, except on HTTP, whose producer endpoint is the delivery
    target its receiver serves."""
    return set(rep.usage) != {"producer"} or (
        rep.protocol is not None and rep.protocol.family == "HTTP"
    )


def _endpoint(
    b: _Builder, rep: ResolvedEndpoint, short: str, groups: list[ir.MessageGroup]
) -> ir.Endpoint:
    """An endpoint with its names, from ``short`` (the tail of its id that no other endpoint's
    id ends with, ``naming.short_names``): ``NAME.endpoints.<snake>`` and
    ``consumer.<Pascal>Dispatcher``, or ``<Pascal>EndpointDispatcher`` when a message group's
    dispatcher has that name (an endpoint's own messages form a group named like it);
    remaining collisions get ``_2`` with warning XRG301."""
    data = rep.data
    py_name = b.claim(b.endpoint_attrs, rep.location, "endpoint", snake(short))
    by_id = {g.id: g for g in groups}
    carried = [by_id[gid] for gid in rep.groups if gid in by_id]
    dispatcher: str | None
    if not receives(rep):
        dispatcher = None
        if not (carried or data.get("messagegroups")):
            carried = groups  # no message group: every message
    elif carried or data.get("messagegroups"):
        stem = pascal(short)
        if stem + "Dispatcher" in b.module:
            stem += "Endpoint"
        stem = b.claim(b.module, rep.location, "class", stem, ("{}Dispatcher",))
        dispatcher = stem + "Dispatcher"
    else:
        carried, dispatcher = groups, "Dispatcher"  # no message group: every message
    message_ids = tuple(dict.fromkeys(m.id for g in carried for m in g.messages))
    envelope = data.get("envelope")
    if isinstance(envelope, str) and is_cloudevents(envelope):
        envelope = CLOUDEVENTS
    eopts = data.get("envelopeoptions")
    protocol = rep.protocol.id if rep.protocol is not None else _unknown_protocol(data.get("protocol"))
    found: set[str] = set()
    for value in (rep.uris, rep.options):
        _placeholders(value, found)
    return ir.Endpoint(
        id=rep.id,
        py_name=py_name,
        dispatcher_class=dispatcher,
        usage=rep.usage,
        protocol=protocol,
        channel=data.get("channel") if isinstance(data.get("channel"), str) else None,
        envelope=envelope if isinstance(envelope, str) else None,
        envelope_options=tuple(eopts.items()) if isinstance(eopts, dict) else (),
        uris=tuple(rep.uris),
        options=tuple(rep.options.items()),
        authorization=tuple(ir.Authorization(**a) for a in rep.authorization),
        deployed=rep.deployed,
        group_ids=tuple(g.id for g in carried),
        message_ids=message_ids,
        placeholders=tuple(sorted(found)),
        description=data.get("description") if isinstance(data.get("description"), str) else None,
        location=rep.location,
    )


def _placeholders(value: Any, found: set[str]) -> None:
    """Every ``{name}`` in a JSON value (strings, array items, map keys and values)."""
    if isinstance(value, str):
        found.update(_PLACEHOLDER.findall(value))
    elif isinstance(value, dict):
        for k, v in value.items():
            _placeholders(k, found)
            _placeholders(v, found)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _placeholders(v, found)


def _message(b: _Builder, rm: ResolvedMessage, py_name: str, package_handler: str) -> ir.Message:
    data = rm.data
    attrs = b.attributes(rm)
    proto = protocols.lookup(data.get("protocol"))
    opts = data.get("protocoloptions")
    options: tuple[ir.ProtocolOption, ...] = ()
    file, _, ptr = rm.location.partition("#")
    # an xref alias is its target's definition: warned once, at the target
    diags = b.d if rm.alias_of is None else None
    if proto is not None and isinstance(opts, dict):
        options = protocols.to_ir(proto, opts, file, ptr + "/protocoloptions", diags)
    stem = package_handler.removeprefix("on_")
    const = b.claim(b.module, rm.location, "constant", stem.upper(), _MESSAGE_CONSTANTS)
    create = b.claim(b.module, rm.location, "function", stem, ("_create_{}",))
    params_class = b.claim(b.module, rm.location, "class", pascal(stem), ("{}Params",))
    params = Scope(_PARAMETERS_RESERVED)
    names: list[str] = []
    for holder_list in [a.placeholders for a in attrs] + [o.placeholders for o in options]:
        for h in holder_list:
            if h not in names:
                names.append(h)
    placeholders = [
        ir.Placeholder(h, b.claim(params, rm.location, "placeholder", snake(h))) for h in names
    ]
    free_ext = []
    for a in attrs:
        if (a.extension or a.name in FREE_CORE) and a.value is None:
            # a value the catalog leaves open: a keyword argument of the factory
            py = b.claim(params, rm.location, "attribute", snake(a.name))
            required = a.required or a.name == "source"  # CloudEvents requires a source
            free_ext.append(
                ir.Attribute(a.name, a.kind, required, None, (), a.extension, py)
            )
        else:
            free_ext.append(a)
    ct = _declared_content_type(data)
    return ir.Message(
        id=rm.id,
        group_id=rm.group_id,
        py_name=py_name,
        handler="on_" + py_name,
        package_handler=package_handler,
        def_const="D_" + const,
        emitter="_E_" + const,
        create="_create_" + create,
        params_class=params_class + "Params",
        description=data.get("description") if isinstance(data.get("description"), str) else None,
        envelope=data.get("envelope") if isinstance(data.get("envelope"), str) else None,
        attributes=tuple(free_ext),
        protocol=proto.id if proto is not None else _unknown_protocol(data.get("protocol")),
        options=options,
        datacontenttype=ct,
        payload=b.payload(rm),
        placeholders=tuple(placeholders),
        alias_of=rm.alias_of,
        location=rm.location,
    )


def _unknown_protocol(value: Any) -> str | None:
    """A protocol no binding spells (warned: XRG162): kept as written, matched by name."""
    return value.strip().upper() if isinstance(value, str) and value.strip() else None


def _common_placeholders(messages: list[ir.Message]) -> tuple[ir.Placeholder, ...]:
    if not messages:
        return ()
    first = messages[0].placeholders
    return tuple(p for p in first if all(p in m.placeholders for m in messages[1:]))
