"""The names build decides (``build.py`` through ``naming.py``), from small catalogs run through
load, validate and resolve as ``api.analyze`` does; and, per collision case, the generated
package imported and driven: every message keeps its own ``MESSAGES`` entry, producer method,
create function and handler decorator, and dispatch calls exactly its own handler."""

from __future__ import annotations

import importlib
import inspect
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from xrgen import api
from xrgen.build import MODULE_NAMES
from xrgen.model import ir

CE = "CloudEvents/1.0"


def message(mid: str, source: str = "/s", title: str | None = None, **meta: Any) -> dict[str, Any]:
    """A CloudEvents message whose type is its id; ``title`` gives it a JSON Schema payload."""
    m: dict[str, Any] = {
        "messageid": mid,
        "envelope": CE,
        "envelopemetadata": {"type": {"value": mid}, "source": {"value": source}, **meta},
    }
    if title is not None:
        m["dataschemaformat"] = "JsonSchema/draft-07"
        m["dataschema"] = {
            "title": title,
            "type": "object",
            # the title names a property too: schemas identical but for their title share a model
            "properties": {title: {"type": "string"}},
        }
    return m


def document(groups: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    return {
        "specversion": "1.0-rc2",
        "messagegroups": {
            gid: {
                "messagegroupid": gid,
                "envelope": CE,
                "messages": {m["messageid"]: m for m in messages},
            }
            for gid, messages in groups.items()
        },
    }


def analyze(tmp_path: Path, groups: dict[str, list[dict[str, Any]]]) -> tuple[ir.Catalog, list[str]]:
    """The IR of the catalog and its XRG301 warnings as ``pointer: message``."""
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(document(groups), ensure_ascii=False), encoding="utf-8")
    analysis = api.analyze([str(path)])
    assert not analysis.diagnostics.has_errors, [str(d) for d in analysis.diagnostics]
    assert analysis.catalog is not None
    warnings = [f"{d.pointer}: {d.message}" for d in analysis.diagnostics if d.code == "XRG301"]
    return analysis.catalog, warnings


def by_id(catalog: ir.Catalog) -> dict[str, ir.Message]:
    return {m.id: m for m in catalog.messages()}


def module_names(catalog: ir.Catalog) -> list[str]:
    """Every module-level name build decided for the catalog."""
    names: list[str] = []
    for g in catalog.groups:
        names += [g.producer_class, g.dispatcher_class, g.handlers_class, g.defs_const, g.entries_var]
        if g.group_handlers_class != g.handlers_class:
            names.append(g.group_handlers_class)
        for m in g.messages:
            names += [m.def_const, m.emitter, m.create, m.params_class]
    names += [p.spark_var for p in catalog.payloads]
    return names


def assert_distinct_names(catalog: ir.Catalog) -> None:
    names = module_names(catalog)
    assert len(names) == len(set(names))
    assert not set(names) & MODULE_NAMES
    handlers = [m.package_handler for m in catalog.messages()]
    assert len(handlers) == len(set(handlers))
    for g in catalog.groups:
        members = [m.py_name for m in g.messages] + list(g.producer_attrs)
        assert len(members) == len(set(members))
    for m in catalog.messages():
        params = [p.py_name for p in m.placeholders] + [a.py_name for a in m.attributes if a.py_name]
        assert len(params) == len(set(params))
        assert all(p.isidentifier() for p in params)


# ---------------------------------------------------------------------------------- the names


def test_names_of_a_plain_catalog(tmp_path: Path) -> None:
    catalog, warnings = analyze(
        tmp_path,
        {
            "com.acme.base": [
                message("com.acme.Reading", "/plants/{plant}/{sensor}", "Reading"),
                message("com.acme.ReadingBatch", "/plants/{plant}/{line}", "Batch"),
            ]
        },
    )
    assert warnings == []
    (g,) = catalog.groups
    assert (g.py_name, g.producer_class, g.dispatcher_class) == (
        "ComAcmeBase",
        "ComAcmeBaseProducer",
        "ComAcmeBaseDispatcher",
    )
    assert (g.handlers_class, g.group_handlers_class) == ("_ComAcmeBaseHandlers",) * 2
    assert (g.defs_const, g.entries_var) == ("G_COMACMEBASE", "_M_COMACMEBASE")
    assert [p.name for p in g.common_placeholders] == ["plant"]
    assert g.producer_attrs == ("_plant",)
    reading, batch = g.messages
    assert (reading.py_name, reading.handler, reading.package_handler) == (
        "reading",
        "on_reading",
        "on_reading",
    )
    assert (reading.def_const, reading.emitter, reading.create) == (
        "D_READING",
        "_E_READING",
        "_create_reading",
    )
    assert (batch.py_name, batch.def_const, batch.create) == (
        "reading_batch",
        "D_READING_BATCH",
        "_create_reading_batch",
    )
    assert [(p.model_name, p.spark_var) for p in catalog.payloads] == [
        ("Reading", "_T_READING"),
        ("Batch", "_T_BATCH"),
    ]
    assert_distinct_names(catalog)


GROUPS_XYZ = {"x.yz": [message("x.yz.A")], "xy.z": [message("xy.z.B")]}


def test_groups_whose_constants_upper_case_alike(tmp_path: Path) -> None:
    catalog, warnings = analyze(tmp_path, GROUPS_XYZ)
    first, second = catalog.groups
    assert (first.producer_class, second.producer_class) == ("XYzProducer", "XyZProducer")
    assert (first.defs_const, first.entries_var) == ("G_XYZ", "_M_XYZ")
    assert (second.defs_const, second.entries_var) == ("G_XYZ_2", "_M_XYZ_2")
    assert warnings == [
        "/messagegroups/xy.z: constant name 'G_XYZ' is taken; using 'G_XYZ_2'"
    ]
    assert_distinct_names(catalog)


def test_groups_whose_classes_collide(tmp_path: Path) -> None:
    catalog, warnings = analyze(tmp_path, {"a.b": [message("a.b.A")], "a-b": [message("a-b.B")]})
    first, second = catalog.groups
    assert (first.producer_class, second.producer_class) == ("ABProducer", "AB_2Producer")
    assert (second.dispatcher_class, second.defs_const) == ("AB_2Dispatcher", "G_AB_2")
    assert warnings == ["/messagegroups/a-b: class name 'ABProducer' is taken; using 'AB_2Producer'"]
    assert_distinct_names(catalog)


MODELS_V2 = {
    "g": [message("g.First", title="ReadingV2"), message("g.Second", title="Readingv2")]
}


def test_models_whose_constants_upper_case_alike(tmp_path: Path) -> None:
    catalog, warnings = analyze(tmp_path, MODELS_V2)
    assert [(p.model_name, p.spark_var) for p in catalog.payloads] == [
        ("ReadingV2", "_T_READINGV2"),
        ("Readingv2", "_T_READINGV2_2"),
    ]
    assert warnings == [
        "/messagegroups/g/messages/g.Second/dataschema: "
        "constant name '_T_READINGV2' is taken; using '_T_READINGV2_2'"
    ]
    assert_distinct_names(catalog)


def test_models_whose_names_collide(tmp_path: Path) -> None:
    catalog, warnings = analyze(
        tmp_path, {"g": [message("g.First", title="Reading"), message("g.Second", title="reading")]}
    )
    assert [p.model_name for p in catalog.payloads] == ["Reading", "Reading_2"]
    assert warnings == [
        "/messagegroups/g/messages/g.Second/dataschema: "
        "model name 'Reading' is taken; using 'Reading_2'"
    ]


METHODS = {
    "g": [message("g.ReadingV2"), message("g.reading_v2")],
    "h": [message("h.ReadingV2")],
}


def test_messages_whose_methods_snake_alike(tmp_path: Path) -> None:
    catalog, warnings = analyze(tmp_path, METHODS)
    m = by_id(catalog)
    one, two, other = m["g.ReadingV2"], m["g.reading_v2"], m["h.ReadingV2"]
    assert (one.py_name, two.py_name, other.py_name) == ("reading_v_2", "reading_v_2_2", "reading_v_2")
    assert (one.handler, two.handler, other.handler) == (
        "on_reading_v_2",
        "on_reading_v_2_2",
        "on_reading_v_2",
    )
    # the package-wide dispatcher holds every group: its decorators are unique across them
    assert (one.package_handler, two.package_handler, other.package_handler) == (
        "on_reading_v_2",
        "on_reading_v_2_2",
        "on_reading_v_2_3",
    )
    assert (one.def_const, two.def_const, other.def_const) == (
        "D_READING_V_2",
        "D_READING_V_2_2",
        "D_READING_V_2_3",
    )
    g, h = catalog.groups
    # group h's own dispatcher keeps its method names: it gets its own registrations
    assert (g.group_handlers_class, h.group_handlers_class) == ("_GHandlers", "_HGroupHandlers")
    assert warnings == [
        "/messagegroups/g/messages/g.reading_v2: method name 'reading_v_2' is taken; using 'reading_v_2_2'",
        "/messagegroups/g/messages/g.reading_v2: handler name 'on_reading_v_2' is taken; using 'on_reading_v_2_2'",
        "/messagegroups/h/messages/h.ReadingV2: handler name 'on_reading_v_2' is taken; using 'on_reading_v_2_3'",
    ]
    assert_distinct_names(catalog)


PLACEHOLDERS = {
    "p": [
        message(
            "p.Odd",
            "/{self}/{data}/{class}/{1st}/{models}/{pick}/{x}/{X}/{_}/{__}",
            datetime={"type": "string"},
            cls={"type": "string", "required": True},
        )
    ]
}


def test_placeholders_never_take_reserved_names(tmp_path: Path) -> None:
    catalog, warnings = analyze(tmp_path, PLACEHOLDERS)
    (m,) = catalog.messages()
    assert [(p.name, p.py_name) for p in m.placeholders] == [
        ("self", "self_2"),
        ("data", "data_2"),
        ("class", "class_"),
        ("1st", "n1_st"),
        ("models", "models_2"),
        ("pick", "pick_2"),
        ("x", "x"),
        ("X", "x_2"),
        ("_", "x_3"),
        ("__", "x_4"),
    ]
    assert {a.name: a.py_name for a in m.attributes if a.py_name} == {
        "datetime": "datetime",  # a name annotations use is no parameter's business
        "cls": "cls_2",
    }
    where = "/messagegroups/p/messages/p.Odd"
    assert warnings == [
        f"{where}: placeholder name 'self' is taken; using 'self_2'",
        f"{where}: placeholder name 'data' is taken; using 'data_2'",
        f"{where}: placeholder name 'models' is taken; using 'models_2'",
        f"{where}: placeholder name 'pick' is taken; using 'pick_2'",
        f"{where}: placeholder name 'x' is taken; using 'x_2'",
        f"{where}: placeholder name 'x' is taken; using 'x_3'",
        f"{where}: placeholder name 'x' is taken; using 'x_4'",
        f"{where}: attribute name 'cls' is taken; using 'cls_2'",
    ]
    assert_distinct_names(catalog)


UNICODE = {
    "ñandú.eventos": [message("ñandú.eventos.Größe"), message("ñandú.eventos.日本")],
    "ñandu-eventos": [message("ñandu-eventos.Größe")],
}


def test_unicode_ids(tmp_path: Path) -> None:
    catalog, warnings = analyze(tmp_path, UNICODE)
    first, second = catalog.groups
    assert (first.producer_class, second.producer_class) == (
        "NanduEventosProducer",
        "NanduEventos_2Producer",
    )
    # a last segment without ASCII letters: the previous segment names the method
    assert [m.py_name for m in first.messages] == ["groe", "eventos"]
    assert [m.package_handler for m in catalog.messages()] == ["on_groe", "on_eventos", "on_groe_2"]
    assert warnings == [
        "/messagegroups/ñandu-eventos: class name 'NanduEventosProducer' is taken; "
        "using 'NanduEventos_2Producer'",
        "/messagegroups/ñandu-eventos/messages/ñandu-eventos.Größe: "
        "handler name 'on_groe' is taken; using 'on_groe_2'",
    ]
    assert_distinct_names(catalog)


# ------------------------------------------------------------------- the generated packages

CASES = {
    "groups_xyz": GROUPS_XYZ,
    "models_v2": MODELS_V2,
    "methods": METHODS,
    "placeholders": PLACEHOLDERS,
    "unicode": UNICODE,
}


def _generate(generated: Any, tmp_path: Path, case: str) -> tuple[ModuleType, ir.Catalog]:
    path = tmp_path / f"{case}.json"
    path.write_text(json.dumps(document(CASES[case]), ensure_ascii=False), encoding="utf-8")
    analysis = api.analyze([str(path)])
    assert analysis.catalog is not None
    return generated(path, package=f"naming_{case}"), analysis.catalog


def _arguments(m: ir.Message) -> dict[str, str]:
    """A value for every placeholder and required free attribute of ``m``."""
    values = {p.py_name: f"v{i}" for i, p in enumerate(m.placeholders)}
    values |= {a.py_name: "a" for a in m.attributes if a.py_name and a.required}
    return values


def _data(pkg: ModuleType, m: ir.Message) -> Any:
    return {} if pkg.MESSAGES[m.id].model is not None else b"opaque"


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_message_keeps_its_own_names(generated: Any, tmp_path: Path, case: str) -> None:
    pkg, catalog = _generate(generated, tmp_path, case)
    messages = catalog.messages()
    assert sorted(pkg.MESSAGES) == sorted(m.id for m in messages)
    kafka = importlib.import_module(pkg.__name__ + ".bindings.kafka")
    wires: dict[str, Any] = {}
    for g in catalog.groups:
        producer = getattr(pkg.producer, g.producer_class)()
        for m in g.messages:
            by_method = getattr(producer, m.py_name)(_data(pkg, m), **_arguments(m))
            created = pkg.MESSAGES[m.id].create(_data(pkg, m), **_arguments(m))
            assert by_method.attributes["type"] == created.attributes["type"] == m.id
            assert created.attributes["source"] == by_method.attributes["source"]
            wires[m.id] = kafka.encode(created, mode="structured", topic="t")

    def drive(cls: Any, names: dict[str, str]) -> None:
        """Register every handler by its decorator; each event must reach its own."""
        calls: list[str] = []
        dead: list[str] = []
        dispatcher = cls(dead_letter=lambda _w, reason, detail: dead.append(f"{reason}: {detail}"))
        assert {n for n in dir(dispatcher) if n.startswith("on_")} == set(names.values())
        for mid, name in names.items():
            getattr(dispatcher, name)(lambda _e, _p, mid=mid: calls.append(mid))
        for mid in names:
            calls.clear()
            assert dispatcher.dispatch(wires[mid]).handled, dead
            assert calls == [mid]

    drive(pkg.consumer.Dispatcher, {m.id: m.package_handler for m in messages})
    for g in catalog.groups:
        drive(getattr(pkg.consumer, g.dispatcher_class), {m.id: m.handler for m in g.messages})


def test_every_payload_keeps_its_spark_type(generated: Any, tmp_path: Path) -> None:
    pkg, _ = _generate(generated, tmp_path, "models_v2")
    spark = importlib.import_module(pkg.__name__ + ".spark")
    fields = {mid: spark.SCHEMAS[mid].fieldNames() for mid in pkg.MESSAGES}
    assert fields == {"g.First": ["ReadingV2"], "g.Second": ["Readingv2"]}


def test_generated_modules_define_only_decided_names(generated: Any, tmp_path: Path) -> None:
    """What a generated module holds at module level is in ``MODULE_NAMES`` or decided for the
    catalog, so the reserved list and the templates cannot drift apart."""
    pkg, catalog = _generate(generated, tmp_path, "methods")
    decided = set(module_names(catalog))
    for name in ("", "._defs", ".producer", ".consumer"):
        _assert_only_decided(pkg.__name__ + name, decided)
    base = importlib.import_module("xrgen_runtime").DispatcherBase
    assert not [n for n in dir(base) if n.startswith("on_")]


def test_spark_module_defines_only_decided_names(generated: Any, tmp_path: Path) -> None:
    pkg, catalog = _generate(generated, tmp_path, "methods")
    _assert_only_decided(pkg.__name__ + ".spark", set(module_names(catalog)))


def _assert_only_decided(module_name: str, decided: set[str]) -> None:
    module = importlib.import_module(module_name)
    names = {n for n in vars(module) if not (n.startswith("__") and n.endswith("__"))}
    assert names - MODULE_NAMES - decided == set(), module_name


def test_create_signature_requires_every_placeholder(generated: Any, tmp_path: Path) -> None:
    pkg, catalog = _generate(generated, tmp_path, "placeholders")
    (m,) = catalog.messages()
    params = inspect.signature(pkg.MESSAGES[m.id].create).parameters
    required = {n for n, p in params.items() if p.kind is p.KEYWORD_ONLY and p.default is p.empty}
    assert required == set(_arguments(m)) and "cls_2" in required
    assert params["datetime"].default is None
