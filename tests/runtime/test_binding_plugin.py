"""A binding is added as the design says: one package in the runtime's ``bindings/`` and its
module in the generator's ``protocols/``, nothing else.

The test copies the runtime package and the generator (with its templates) to a temporary
folder and adds a toy binding ``toy`` there: the package ``bindings/toy/`` (its declaration
``spec.py``, its codec ``codec.py``, its adapter ``adapter.py`` with its in-memory broker, its
Spark reader ``spark.py``) and its generator module ``protocols/toy.py``. A fresh interpreter
on that copy then generates a package from a catalog with a ``TOY`` message and drives the
binding through every part that loops over ``BINDINGS``: the registry, the producer, the codec,
the generated package's re-exports, the dispatcher's routing, the testing kit's brokers and
pytest fixtures, dead letters, Spark's landing shape, reader and decoder name, and the command
line's refusal of a package named like the client library. Last, the copied trees are compared
with the originals: the files added or changed are the toy's, in those two places.
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import xrgen_runtime

import xrgen

RUNTIME = Path(xrgen_runtime.__file__).parent
GENERATOR = Path(xrgen.__file__).parent
TEMPLATES = GENERATOR.parent / "templates"

TOY_FILES = {
    # the runtime: one package with the declaration, codec, adapter (the in-memory broker)
    # and Spark reader
    "xrgen_runtime/bindings/toy/__init__.py": '''
        """The toy binding; the package exposes its codec's names."""

        from __future__ import annotations

        from typing import TYPE_CHECKING, Any

        from .._spec import codec_attribute

        if TYPE_CHECKING:
            from .codec import ToyBinding as ToyBinding
            from .codec import ToyMessage as ToyMessage
            from .codec import decode as decode
            from .codec import encode as encode

        __all__ = ["ToyBinding", "ToyMessage", "decode", "encode"]

        if not TYPE_CHECKING:

            def __getattr__(name: str) -> Any:
                return codec_attribute(__name__, name)
    ''',
    "xrgen_runtime/bindings/toy/spec.py": '''
        """The toy binding's declaration."""

        from __future__ import annotations

        from collections.abc import Mapping
        from dataclasses import dataclass, field, replace

        from .._spec import BindingSpec, mapping

        @dataclass(frozen=True, slots=True)
        class ToyBinding:
            channel: str | None = None
            properties: Mapping[str, str] = field(default_factory=dict)

        @dataclass(frozen=True, slots=True)
        class ToyMessage:
            channel: str
            body: bytes
            properties: Mapping[str, str] = field(default_factory=dict)

        def readdress(m: ToyMessage, to: str, reason: str, detail: str) -> ToyMessage:
            props = {**m.properties, "dead-reason": reason, "dead-detail": detail}
            return replace(m, channel=to, properties=props)

        BINDING = BindingSpec(
            name="toy",
            family="TOY",
            protocols={"TOY": {}},
            binding_type=ToyBinding,
            message_type=ToyMessage,
            destination="channel",
            landing=(
                ("channel", "string"),
                ("body", "binary"),
                ("properties", mapping("string", "string")),
            ),
            decoder="decode_toy",
            decoder_doc="Decode landed toy messages (LANDING_SCHEMAS['toy']).",
            order=100,
            requirement="toyclient>=1.0",
            client_modules=frozenset({"toyclient"}),
            title="toy broker",
            spark_reader=".bindings.toy.spark:ToyWire",
            broker=".bindings.toy.adapter:ToyBroker",
            readdress=".bindings.toy.spec:readdress",
        )
    ''',
    "xrgen_runtime/bindings/toy/codec.py": '''
        """The toy binding's codec: CloudEvents attributes as ``toy-<name>`` properties."""

        from __future__ import annotations

        from typing import Any

        from ..._event import Event
        from .._common import check_mode
        from .._properties import PropertyMap
        from .spec import ToyBinding, ToyMessage

        __all__ = ["ToyBinding", "ToyMessage", "decode", "encode"]

        def _binding(message: ToyMessage, properties: dict[str, str]) -> ToyBinding:
            return ToyBinding(message.channel, properties)

        _MAP = PropertyMap("toy-", "toy-datacontenttype", binding=_binding)

        def encode(event: Event[Any], mode: str = "binary", **overrides: Any) -> ToyMessage:
            binary = check_mode(mode)
            b = event.binding if type(event.binding) is ToyBinding else ToyBinding()
            channel = overrides.get("channel") or b.channel
            if not channel:
                raise ValueError("toy.encode: no channel")
            body, props = _MAP.encode(event, binary, b.properties)
            return ToyMessage(channel, body, props)

        def decode(message: ToyMessage) -> Event[Any]:
            return _MAP.decode(message, message.properties, message.body)
    ''',
    "xrgen_runtime/bindings/toy/adapter.py": '''
        """The toy binding's adapter: its client is the in-memory broker."""

        from __future__ import annotations

        from ...testing._broker import Handler, InMemoryBroker, Subscription
        from .spec import ToyMessage

        __all__ = ["ToyBroker"]

        class ToyBroker(InMemoryBroker[ToyMessage]):
            """Toy channels by exact name."""

            codec = "toy"

            def _destination(self, message: ToyMessage) -> str:
                return message.channel

            def subscribe(
                self, pattern: str, handler: Handler[ToyMessage], *, group: str | None = None
            ) -> Subscription[ToyMessage]:
                return self._add(pattern, handler, lambda d, m: d == pattern, group)
    ''',
    "xrgen_runtime/bindings/toy/spark.py": '''
        """How Spark reads the toy binding's landing shape."""

        from __future__ import annotations

        from ...spark import sql as S
        from ...spark.sql import Expr
        from ...spark.wire import Wire

        class ToyWire(Wire):
            payload = "body"
            lineage = ("channel",)
            fields = {"channel": "channel"}

            def content_type(self) -> Expr:
                return S.col("properties")["toy-datacontenttype"]

            def attribute(self, name: str) -> Expr:
                return S.col("properties")["toy-" + name]
    ''',
    # the generator
    "xrgen/protocols/toy.py": '''
        """The toy binding (``TOY``)."""

        from __future__ import annotations

        from xrgen_runtime.bindings import BINDINGS

        from ..model.catalog import LooseStr, NameValueList, OptionsModel
        from ._base import Protocol, any_version

        class ToyOptions(OptionsModel):
            channel: LooseStr = None
            properties: NameValueList = None

        TOY = Protocol(
            id="TOY",
            names=("toy",),
            accepts=any_version,
            model=ToyOptions,
            scalars={"channel": ("channel",)},
            maps={"properties": "properties"},
            routing=frozenset({"channel"}),
            runtime=BINDINGS["toy"],
            connection=frozenset(),
            unapplied={},
        )
        PROTOCOLS = (TOY,)
    ''',
}

ORDER = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Order",
    "type": "object",
    "properties": {"id": {"type": "string"}, "n": {"type": "integer"}},
    "required": ["id"],
}
CATALOG = {
    "specversion": "1.0-rc2",
    "messagegroups": {
        "toys": {
            "messagegroupid": "toys",
            "messages": {
                "toys.Order": {
                    "messageid": "toys.Order",
                    "envelope": "CloudEvents/1.0",
                    "envelopemetadata": {
                        "type": {"value": "toys.Order"},
                        "source": {"value": "/shop/{shop}"},
                    },
                    "dataschemaformat": "JsonSchema/draft-07",
                    "dataschema": ORDER,
                    "protocol": "TOY",
                    "protocoloptions": {
                        "channel": "orders",
                        "properties": {"kind": {"value": "order"}},
                    },
                }
            },
        }
    },
}

DRIVE = """
import sys
from pathlib import Path

import pytest
import xrgen_runtime
from xrgen import api, cli
from xrgen.format import Formatter
from xrgen.write import write

here = Path(sys.argv[1])
assert Path(xrgen_runtime.__file__).is_relative_to(here), xrgen_runtime.__file__

# the registry
from xrgen_runtime.bindings import BINDINGS, by_protocol

spec = BINDINGS["toy"]
assert list(BINDINGS)[-1] == "toy" and by_protocol("TOY") is spec
ToyMessage = spec.message_type

# generate a package from a catalog with a TOY message, and import it
result = api.generate([str(here / "toy.json")], "toyshop", formatter=Formatter(cache_dir=here / "cache"))
assert result.ok, [str(d) for d in result.diagnostics]
write(here / "out", "toyshop", result.files)
sys.path.insert(0, str(here / "out"))
import toyshop

# the producer fills the toy's protocol metadata, the codec round-trips the event
event = toyshop.MESSAGES["toys.Order"].create({"id": "o-1", "n": 2}, shop="s 1")
assert type(event.binding) is spec.binding_type and event.binding.channel == "orders"
codec = spec.codec()
for mode in ("binary", "structured"):
    wire = codec.encode(event, mode)
    assert type(wire) is ToyMessage and wire.channel == "orders"
    back = codec.decode(wire)
    assert back.attributes["type"] == "toys.Order" and back.attributes["id"] == event.attributes["id"]
binary = codec.encode(event)
assert binary.properties["toy-type"] == "toys.Order" and binary.properties["kind"] == "order"

# the binding's package exposes its codec, and the generated package re-exports it and the adapter
from xrgen_runtime.bindings import toy as toy_binding
from toyshop.adapters import toy as toy_adapter
from toyshop.bindings import toy as toy_codec

assert toy_binding.encode is toy_codec.encode is codec.encode and "encode" in toy_codec.__all__
assert toy_adapter.ToyBroker is spec.part(spec.broker) and toy_adapter.__all__ == ["ToyBroker"]

# the dispatcher routes by the toy's options: the channel and the constant property
calls, dead = [], []
d = toyshop.consumer.Dispatcher(dead_letter=lambda wire, reason, detail: dead.append(reason))
d.on("toys.Order")(lambda ev, params: calls.append((ev.data.id, params)))
d.dispatch(binary)
assert calls == [("o-1", {"shop": "s 1"})], calls
d.dispatch(ToyMessage("elsewhere", binary.body, binary.properties))
d.dispatch(ToyMessage("orders", b"{", {**binary.properties, "toy-datacontenttype": "application/json"}))
assert len(calls) == 1 and len(dead) == 2, (calls, dead)

# the testing kit: the toy's broker, by name and by protocol, carries events to the dispatcher
from xrgen_runtime import testing
from xrgen_runtime.testing import Brokers, plugin

brokers = Brokers()
toy = brokers.for_protocol("TOY")
assert toy is brokers["toy"] is brokers.toy and type(toy) is testing.ToyBroker
assert "ToyBroker" in testing.__all__ and toy in list(brokers)
toy.subscribe("orders", d.dispatch)
toy.send(toyshop.MESSAGES["toys.Order"].create({"id": "o-2"}, shop="s2"))
assert calls[-1] == ("o-2", {"shop": "s2"}) and toy.messages("orders")
assert callable(getattr(plugin, "xrgen_toy_broker"))

# dead letters keep the toy message whole, addressed elsewhere
from xrgen_runtime.serving._deadletter import dead_letter_message

moved = dead_letter_message(binary, "dlq", "no-match", "x")
assert moved.channel == "dlq" and moved.body == binary.body
assert moved.properties["dead-reason"] == "no-match"

# the generator's command line refuses a package named like the toy's client library
assert cli.package_problem("toyclient") is not None

# Spark: the landing shape, its reader and the decoder's name
from xrgen_runtime import spark
from xrgen_runtime.spark.wires import WIRES

assert WIRES["toy"].spec is spec and WIRES["toy"].family == "TOY"
assert spark.LANDING_SCHEMAS["toy"].fieldNames() == ["channel", "body", "properties"]
assert "decode_toy" in spark.__all__
print("toy binding ok")
"""


def _different(original: Path, copy: Path, prefix: str) -> set[str]:
    """The files of ``copy`` that ``original`` lacks or has with other contents."""
    found = set()
    for path in copy.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        relative = path.relative_to(copy)
        before = original / relative
        if not before.is_file() or not filecmp.cmp(before, path, shallow=False):
            found.add(f"{prefix}/{relative.as_posix()}")
    return found


@pytest.mark.spark
def test_a_toy_binding_is_its_own_files(tmp_path: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(RUNTIME, tmp_path / "xrgen_runtime", ignore=ignore)
    shutil.copytree(GENERATOR, tmp_path / "xrgen", ignore=ignore)
    shutil.copytree(TEMPLATES, tmp_path / "templates", ignore=ignore)
    for name, text in TOY_FILES.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip())
    (tmp_path / "toy.json").write_text(json.dumps(CATALOG))

    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-c", DRIVE, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "toy binding ok" in run.stdout

    touched = _different(RUNTIME, tmp_path / "xrgen_runtime", "xrgen_runtime")
    touched |= _different(GENERATOR, tmp_path / "xrgen", "xrgen")
    assert touched == set(TOY_FILES)
    # one new folder in the runtime and one module in the generator, no other file touched
    places = {name.rpartition("/")[0] for name in touched}
    assert places == {"xrgen_runtime/bindings/toy", "xrgen/protocols"}, places
    assert {n for n in touched if n.startswith("xrgen/")} == {"xrgen/protocols/toy.py"}
