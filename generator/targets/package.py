"""The Python package target: ``__init__``, ``_defs``, ``producer``, ``consumer``, and
``bindings/`` and ``adapters/``, which re-export the modules of the xrgen-runtime distribution
(the package holds catalog-specific code only)."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from .. import formats, literals
from ..literals import comment, docstring, docstring_text, py_str
from ..model import ir
from ..runtime_info import runtime_source
from . import OutputFile, Target
from . import endpoints as endpoints_target
from .views import (
    PY_TYPES,
    attr_defs,
    data_type,
    model_ref,
    opt_str,
    option_defs,
    schemaformat,
)


def header(target: Target) -> str:
    return literals.header(target.version, target.catalog_names)


def plan(catalog: ir.Catalog, target: Target) -> list[OutputFile]:
    head = header(target)
    files = [
        OutputFile(
            PurePosixPath("__init__.py"),
            "python/__init__.py.j2",
            init_context(catalog, target, head),
        ),
        OutputFile(PurePosixPath("_defs.py"), "python/_defs.py.j2", defs_context(catalog, head, target)),
        OutputFile(
            PurePosixPath("producer.py"), "python/producer.py.j2", producer_context(catalog, head)
        ),
        OutputFile(
            PurePosixPath("consumer.py"), "python/consumer.py.j2", consumer_context(catalog, head)
        ),
        OutputFile(PurePosixPath("py.typed"), text="", python=False),
        *endpoints_target.plan(catalog, target, head),
    ]
    files += _proto_modules(catalog, head)
    for module in target.runtime_info().modules:
        path = PurePosixPath(*module.split("."))
        path = path / "__init__.py" if "." not in module else path.with_suffix(".py")
        source = runtime_source(module)
        context = {
            "header": head,
            "doc": docstring_text(f"Re-export of {source}: see its documentation."),
            "module": source,
            "has_all": "." in module,
        }
        files.append(OutputFile(path, "python/reexport.py.j2", context))
    return files


def _proto_modules(catalog: ir.Catalog, head: str) -> list[OutputFile]:
    """``_proto/``: the modules protoc compiled from the catalog's .proto schemas."""
    modules = formats.protobuf.output_files(catalog.payloads)
    if not modules:
        return []
    doc = docstring_text("Protobuf modules compiled by protoc from the catalog's .proto schemas.")
    files = [OutputFile(PurePosixPath("_proto", "__init__.py"), text=f'{head}\n"""{doc}"""\n')]
    for path, text in sorted(modules.items()):
        source = formats.protobuf.module_source(text, head)
        files.append(OutputFile(PurePosixPath(path), text=source, preformatted=True))
    return files


def defs_context(catalog: ir.Catalog, head: str, target: Target) -> dict[str, Any]:
    defs = []
    for m in catalog.messages():
        defs.append(
            {
                "const": m.def_const,
                "alias_target": m.alias_of is not None,
                "alias_comment": comment(m.alias_of),
                "id": py_str(m.id),
                "group": py_str(m.group_id),
                "envelope": opt_str(m.envelope),
                "type": opt_str(m.ce_type),
                "attributes": attr_defs(m),
                "protocol": opt_str(m.protocol),
                "options": option_defs(m),
                "datacontenttype": opt_str(m.datacontenttype),
                "schemaformat": schemaformat(m),
                "model": model_ref(m),
            }
        )
    codecs, codec_imports = payload_codecs(catalog, target)
    groups = [
        {
            "const": g.defs_const,
            "id": py_str(g.id),
            "defs": [m.def_const for m in g.messages],
        }
        for g in catalog.groups
    ]
    return {
        "header": head,
        "defs": defs,
        "groups": groups,
        "codecs": codecs,
        "codec_imports": codec_imports,
    }


def payload_codecs(catalog: ir.Catalog, target: Target) -> tuple[list[dict[str, str]], list[str]]:
    """``register(model, codec)`` calls for payloads that travel in a format other than JSON
    (``formats/<format>.runtime_codec``), and the import lines they need."""
    codecs: list[dict[str, str]] = []
    imports: set[str] = set()
    messages = catalog.messages()
    for p in catalog.payloads:
        fmt = formats.get(p.format)
        if fmt is None or fmt.RUNTIME_MODULE is None:
            continue
        mine = [m for m in messages if m.payload is not None and m.payload.key == p.key]
        made = fmt.runtime_codec(p, mine, target.options)
        if made is None:
            continue
        name, call = made
        imports.add(f"from xrgen_runtime.formats.{fmt.RUNTIME_MODULE} import {name}")
        codecs.append({"model": f"models.{p.model_name}", "codec": call})
    return codecs, sorted(imports)


def _extension_param(a: ir.Attribute) -> str:
    t = PY_TYPES.get(a.kind, "str")
    return f"{a.py_name}: {t}" if a.required else f"{a.py_name}: {t} | None = None"


def producer_context(catalog: ir.Catalog, head: str) -> dict[str, Any]:
    groups = []
    for g in catalog.groups:
        creates = []
        attr_of = {p.name: a for p, a in zip(g.common_placeholders, g.producer_attrs, strict=True)}
        methods = []
        for m in g.messages:
            ext = [a for a in m.attributes if a.py_name]
            free = [_extension_param(a) for a in ext if a.required]
            free += [_extension_param(a) for a in ext if not a.required]
            required = [f"{p.py_name}: str" for p in m.placeholders]
            dt = data_type(m)
            call = {
                "emitter": m.emitter,
                "def_const": m.def_const,
                "emit": "emit" if m.payload else "emit_raw",
                "model_expr": model_ref(m) if m.payload else "",
                "data_param": f"{dt} | dict[str, Any]" if m.payload else "bytes | None = None",
                "data_type": dt,
                "extension_values": [f"{py_str(a.name)}: {a.py_name}" for a in ext],
                "doc": docstring(m.description, "        "),
            }
            # MESSAGES[id].create: every placeholder is a required keyword
            creates.append(
                call
                | {
                    "name": m.create,
                    "params": required + free,
                    "template_values": [f"{py_str(p.name)}: {p.py_name}" for p in m.placeholders],
                    "doc": docstring(m.description, "    "),
                }
            )
            # the group's method: a placeholder the constructor may hold is optional, unless
            # the producer was built without placeholders (``Held`` is ``Literal["none"]``)
            params = [f"{p.py_name}: str" for p in m.placeholders if p.name not in attr_of]
            held = [p for p in m.placeholders if p.name in attr_of]
            values = [
                f"{py_str(p.name)}: pick({p.py_name}, self.{attr_of[p.name]}, {py_str(p.name)})"
                if p.name in attr_of
                else f"{py_str(p.name)}: {p.py_name}"
                for p in m.placeholders
            ]
            methods.append(
                call
                | {
                    "name": m.py_name,
                    "params": params + [f"{p.py_name}: str | None = None" for p in held] + free,
                    "params_unheld": params + [f"{p.py_name}: str" for p in held] + free,
                    "template_values": values,
                }
            )
        groups.append(
            {
                "cls": g.producer_class,
                "doc": docstring(g.description, "    "),
                "ctor": [
                    {"param": p.py_name, "attr": a}
                    for p, a in zip(g.common_placeholders, g.producer_attrs, strict=True)
                ],
                "methods": methods,
                "creates": creates,
            }
        )
    return {"header": head, "groups": groups, "typestate": any(g["ctor"] for g in groups)}


def consumer_context(catalog: ir.Catalog, head: str) -> dict[str, Any]:
    handler_sets = []
    groups = []
    package_bases = []
    for g in catalog.groups:

        def method(m: ir.Message, name: str) -> dict[str, str]:
            return {
                "name": name,
                "id": py_str(m.id),
                "data_type": data_type(m),
                "params_type": m.params_class,
            }

        handler_sets.append(
            {
                "cls": g.handlers_class,
                "group_comment": comment(g.id),
                "methods": [method(m, m.package_handler) for m in g.messages],
            }
        )
        package_bases.append(g.handlers_class)
        if g.group_handlers_class != g.handlers_class:
            handler_sets.append(
                {
                    "cls": g.group_handlers_class,
                    "group_comment": comment(g.id),
                    "methods": [method(m, m.handler) for m in g.messages],
                }
            )
        groups.append(
            {
                "cls": g.dispatcher_class,
                "base": g.group_handlers_class,
                "doc": docstring(g.description, "    "),
                "defs_const": g.defs_const,
            }
        )
    if not package_bases:
        package_bases = ["DispatcherBase"]
    params = [
        {
            "cls": m.params_class,
            "id_comment": comment(m.id),
            "fields": ", ".join(f"{py_str(p.name)}: str" for p in m.placeholders),
        }
        for m in catalog.messages()
    ]
    return {
        "header": head,
        "params": params,
        "handler_sets": handler_sets,
        "groups": groups,
        "package_bases": package_bases,
        "endpoints": endpoints_target.dispatchers(catalog),
    }


def init_context(catalog: ir.Catalog, target: Target, head: str) -> dict[str, Any]:
    groups = [
        {
            "entries_var": g.entries_var,
            "entries": [f"_defs.{m.def_const}, producer.{m.create}" for m in g.messages],
        }
        for g in catalog.groups
    ]
    doc = "Typed CloudEvents package for " + ", ".join(target.catalog_names)
    upper = next_series(target.version)
    missing = (
        f"{target.package} needs xrgen-runtime>={target.version},<{upper}: "
        f"pip install 'xrgen-runtime>={target.version},<{upper}'"
    )
    return {
        "header": head,
        "runtime_version": py_str(target.version),
        "runtime_missing": py_str(missing),
        "groups": groups,
        "package_doc": docstring_text(doc),
        "spark_note": ", ``spark`` (PySpark schemas and decoders)" if target.options.spark else "",
    }


def next_series(version: str) -> str:
    """The first version outside ``version``'s release series: ``0.2.1`` -> ``0.3``,
    ``1.4.0`` -> ``2`` (the rule ``xrgen_runtime.require`` applies)."""
    parts = [int("".join(ch for ch in p if ch.isdigit()) or 0) for p in version.split(".")[:2]]
    major, minor = (parts + [0, 0])[:2]
    return f"0.{minor + 1}" if major == 0 else str(major + 1)
