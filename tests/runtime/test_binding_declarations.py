"""Every consumer of the binding declarations (``xrgen_runtime.bindings.BINDINGS``) covers
every binding: adding a binding is its package ``bindings/<x>/`` (declaration ``spec.py``,
codec, adapter, endpoint support, Spark reader) and its generator module
(``generator/protocols/<x>.py``), and these tests name whatever else still lacks it."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest
import xrgen_runtime
from xrgen_runtime import bindings
from xrgen_runtime.bindings import BINDINGS, BindingSpec

from xrgen import protocols

RUNTIME = Path(xrgen_runtime.__file__).parent
SPECS = list(BINDINGS.values())
#: what ``import xrgen_runtime.bindings`` loads besides the bindings' packages and declarations
HEAD = {
    "xrgen_runtime",
    "xrgen_runtime._version",
    "xrgen_runtime.bindings",
    "xrgen_runtime.bindings._spec",
}
IDS = [b.name for b in SPECS]


def test_the_registry() -> None:
    assert IDS == ["kafka", "amqp", "mqtt", "nats", "http", "pulsar", "rocketmq"]
    for b in SPECS:
        assert BINDINGS[b.name] is b
        for protocol in b.protocols:
            assert bindings.by_protocol(protocol) is b
            assert protocol.split("/")[0] == b.family
    assert bindings.by_protocol(None) is None and bindings.by_protocol("AMQP/0.9.1") is None
    # one package per binding, whose ``spec`` declares it
    packages = {p.parent.name for p in (RUNTIME / "bindings").glob("*/__init__.py")}
    assert packages == set(BINDINGS)
    for b in SPECS:
        assert b.package == f"xrgen_runtime.bindings.{b.name}"
        assert importlib.import_module(f"{b.package}.spec").BINDING is b
        for part in ("codec", "adapter", "spark"):
            assert (RUNTIME / "bindings" / b.name / f"{part}.py").is_file(), (b.name, part)


@pytest.mark.parametrize("b", SPECS, ids=IDS)
def test_a_declaration(b: BindingSpec) -> None:
    """The facts a declaration holds fit its own types."""
    names = {f.name for f in dataclasses.fields(b.binding_type)}
    assert b.transit | b.caseless | b.upper | b.attribute_entries <= names
    for implied in b.protocols.values():
        assert set(implied) <= names
    assert b.binding_type.__name__ == b.stem + "Binding"
    for cls in (b.binding_type, b.message_type):
        assert getattr(bindings, cls.__name__) is cls
    assert b.decoder == "decode_" + b.name and b.decoder_doc


def test_the_wire_types_are_public_and_in_the_unions() -> None:
    binding_types = {b.binding_type for b in SPECS}
    message_types = {b.message_type for b in SPECS}
    assert set(typing.get_args(bindings.Binding)) == binding_types
    assert set(typing.get_args(bindings.WireMessage)) == message_types
    for cls in binding_types | message_types:
        assert getattr(xrgen_runtime, cls.__name__) is cls
        assert cls.__name__ in xrgen_runtime.__all__


def test_the_declarations_import_nothing_heavy() -> None:
    """The generator's command line and the pytest plugin read the declarations: no codec,
    pydantic or client library is imported with them."""
    code = (
        "import sys, xrgen_runtime.bindings as b; assert len(b.BINDINGS) == 7; "
        "print(sorted(m for m in sys.modules if m.startswith(('pydantic', 'xrgen_runtime'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = ast.literal_eval(out.stdout)  # a printed list of module names
    assert not [m for m in loaded if m.startswith("pydantic")]
    # each binding's package (its ``__init__``) and declaration, nothing else of it
    parts = {f"xrgen_runtime.bindings.{name}{part}" for name in IDS for part in ("", ".spec")}
    assert set(loaded) == HEAD | parts, loaded


# ------------------------------------------------------------------ consumers, one test each


@pytest.mark.parametrize("b", SPECS, ids=IDS)
def test_codec(b: BindingSpec) -> None:
    codec = b.codec()
    assert codec.__name__ == b.codec_module == f"{b.package}.codec"
    assert callable(codec.encode) and callable(codec.decode)
    assert {b.binding_type.__name__, b.message_type.__name__} <= set(codec.__all__)
    assert getattr(codec, b.binding_type.__name__) is b.binding_type
    # the binding's package exposes the codec's names (``bindings.kafka.encode``)
    package = importlib.import_module(b.package)
    assert package.__all__ == codec.__all__
    for name in codec.__all__:
        assert getattr(package, name) is getattr(codec, name), name
    with pytest.raises(AttributeError):
        package.no_such_name  # noqa: B018


def test_a_binding_package_imports_its_codec_on_first_use() -> None:
    code = (
        "import sys; from xrgen_runtime.bindings import kafka; "
        "assert 'xrgen_runtime.bindings.kafka.codec' not in sys.modules; "
        "from xrgen_runtime.bindings.kafka import encode; "
        "assert encode is sys.modules['xrgen_runtime.bindings.kafka.codec'].encode; "
        "assert kafka.KafkaMessage is kafka.spec.KafkaMessage; "
        # then the names are the package's own: reading them skips ``__getattr__``
        "assert set(kafka.__all__) <= set(vars(kafka))"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_dispatch() -> None:
    """The dispatcher decodes every binding's wire type with its codec and knows the family
    of every binding type."""
    dispatch = importlib.import_module("xrgen_runtime._dispatch")
    match = importlib.import_module("xrgen_runtime._match")
    for b in SPECS:
        assert dispatch._FAMILY_OF_WIRE[b.message_type] == b.family
        assert dispatch._FAMILY_OF_BINDING[b.binding_type] == b.family
        wire = dispatch._wire(b.message_type)
        assert wire is not None and wire[0] == b.family and wire[2] is b.codec().decode
        assert match._BY_FAMILY[b.family] is b
    assert len(dispatch._FAMILY_OF_WIRE) == len(dispatch._FAMILY_OF_BINDING) == len(SPECS)


def test_produce() -> None:
    """Producers build every protocol's binding type, and every field of it has a kind."""
    produce = importlib.import_module("xrgen_runtime._produce")
    for b in SPECS:
        kinds = produce._field_kinds(b.binding_type)
        assert set(kinds) == {f.name for f in dataclasses.fields(b.binding_type)}
        for protocol, implied in b.protocols.items():
            defn = xrgen_runtime.MessageDef("m", "g", None, None, protocol=protocol)
            emitter = produce.Emitter(defn)
            made = emitter.binding({})
            assert type(made) is b.binding_type
            for name, value in implied.items():
                assert getattr(made, name) == value


def test_testing_brokers() -> None:
    """One in-memory broker per binding: in ``Brokers``, by protocol, as a pytest fixture."""
    brokers = importlib.import_module("xrgen_runtime.testing._brokers")
    plugin = importlib.import_module("xrgen_runtime.testing.plugin")
    testing = importlib.import_module("xrgen_runtime.testing")
    every = brokers.Brokers()
    assert list(every) == [every[name] for name in IDS]
    for b in SPECS:
        broker: Any = getattr(every, b.name)
        assert every[b.name] is broker
        assert b.part(b.broker) is type(broker)
        assert type(broker).__name__ == b.stem + "Broker"
        assert getattr(testing, b.stem + "Broker") is type(broker)
        assert broker.codec == b.name
        for protocol in b.protocols:
            assert every.for_protocol(protocol) is broker
        assert hasattr(plugin, f"xrgen_{b.name}_broker")
    assert set(brokers.PROTOCOLS) == {p for b in SPECS for p in b.protocols}


def test_adapters() -> None:
    """Every binding has an adapter module in its package, and every public module of
    ``adapters/`` re-exports one of them (read, not imported: each imports its client
    library)."""
    for b in SPECS:
        assert importlib.util.find_spec(b.adapter_module) is not None, b.adapter_module
        assert b.adapter_module == f"{b.package}.adapter"
    public = {p.stem for p in (RUNTIME / "adapters").glob("*.py") if not p.stem.startswith("_")}
    assert public <= set(BINDINGS)
    for name in public:
        adapter = ast.parse((RUNTIME / "bindings" / name / "adapter.py").read_text())
        shim = ast.parse((RUNTIME / "adapters" / f"{name}.py").read_text())
        (exported,) = (n for n in adapter.body if _assigns(n, "__all__"))
        (reexported,) = (n for n in shim.body if _assigns(n, "__all__"))
        assert ast.literal_eval(reexported.value) == ast.literal_eval(exported.value), name
        sources = {n.module for n in shim.body if isinstance(n, ast.ImportFrom)}
        assert sources == {f"bindings.{name}.adapter"}, name


def _assigns(node: ast.stmt, name: str) -> bool:
    return isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == name for t in node.targets
    )


def test_generator_protocols() -> None:
    """The generator has a protocol for every protocol id a binding declares, each reading
    that declaration, and a Spark landing shape per binding."""
    assert set(protocols.PROTOCOLS) == {p for b in SPECS for p in b.protocols}
    for protocol_id, proto in protocols.PROTOCOLS.items():
        assert proto.runtime is bindings.by_protocol(protocol_id)
        assert proto.family == proto.runtime.family
    modules = {p.stem for p in Path(protocols.__file__).parent.glob("*.py")}
    assert set(BINDINGS) <= modules
    landings = [s for s in protocols.SPARK_LANDINGS if s.binding != "json"]
    assert [(s.binding, s.function, s.doc) for s in landings] == [
        (b.name, b.decoder, b.decoder_doc) for b in SPECS
    ]


# The Spark consumer (``spark/``): its landing schemas and decoders by binding. Owned by
# the Spark package; the check of what it reads from the declarations goes here.
def test_spark_landing_shapes() -> None:
    from pyspark.sql.types import StructType

    spark = importlib.import_module("xrgen_runtime.spark")
    wires = importlib.import_module("xrgen_runtime.spark.wires")
    assert set(spark.LANDING_SCHEMAS) == set(BINDINGS)
    # every landing shape has a reader, built from its declaration (and structured JSON text)
    assert set(wires.WIRES) == {*BINDINGS, "json"}
    for b in SPECS:
        assert StructType.fromJson(b.landing_json()) == spark.LANDING_SCHEMAS[b.name], b.name
        assert callable(getattr(spark, b.decoder))
        wire = wires.WIRES[b.name]
        assert wire.spec is b and wire.family == b.family and wire.transit == b.transit
        # the fields a reader reads exist in the landing shape
        landing = set(spark.LANDING_SCHEMAS[b.name].fieldNames())
        assert {wire.payload, *wire.lineage, *wire.fields.values()} <= landing, b.name
        assert all(wire.caseless(f) for f in b.caseless)
        assert all(wire.expected((f,), "x") == "X" for f in b.upper)


@pytest.mark.clients
def test_extras_and_client_modules() -> None:
    """The runtime's extra of each binding is its declared client library (``all`` has them
    all), and the generator refuses a package named like a client library's module."""
    import tomllib

    from xrgen import cli

    pyproject = tomllib.loads((RUNTIME.parent / "pyproject.toml").read_text())
    extras = pyproject["project"]["optional-dependencies"]
    (every,) = extras["all"]
    for b in SPECS:
        assert extras[b.name] == [b.requirement], b.name
        assert b.name in every.partition("[")[2].rstrip("]").split(","), b.name
        for module in b.client_modules:
            assert importlib.util.find_spec(module) is not None, module
            assert cli.package_problem(module) is not None, module


def test_dead_letter_readdressing() -> None:
    deadletter = importlib.import_module("xrgen_runtime.serving._deadletter")
    for b in SPECS:
        assert deadletter._READDRESS[b.message_type] is b.part(b.readdress)
