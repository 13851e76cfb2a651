"""The hostile catalog (catalogs/hostile): keyword/unicode/``../`` ids, quotes, backslashes and
newlines in descriptions and values, keyword placeholders. Its package must import and behave."""

from __future__ import annotations

import importlib
import inspect
from types import ModuleType

import pytest

from conftest import CATALOGS


@pytest.fixture(scope="module")
def hostile(generated) -> ModuleType:  # type: ignore[no-untyped-def]
    return generated(CATALOGS / "hostile" / "catalog.json", package="hostile_pkg")


def test_ids_stay_wire_names(hostile: ModuleType) -> None:
    assert set(hostile.MESSAGES) == {"../../escape/def", "print", "Print", "café.日本", "None"}


def test_keyword_placeholders_and_escaping(hostile: ModuleType) -> None:
    info = hostile.MESSAGES["../../escape/def"]
    ev = info.create({"def": "x", "1abc": 2, "a-b": True, "über": 1.5}, class_="c/1", def_="d", import_="i")
    assert ev.attributes["source"] == "/x/c%2F1/d/i"
    assert ev.attributes["type"] == 'evil."quoted".type\\n'
    assert ev.attributes["subject"] == "line1\nline2 é 😀"
    assert ev.binding.topic == "t.c%2F1" and ev.binding.headers == (('x-evil"', b"d"),)
    dumped = ev.data.model_dump(by_alias=True, exclude_unset=True)
    assert dumped == {"def": "x", "1abc": 2, "a-b": True, "über": 1.5}


def test_docstrings_carry_the_text_without_breaking_code(hostile: ModuleType) -> None:
    producer = hostile.producer
    cls = next(c for n, c in inspect.getmembers(producer, inspect.isclass) if n.startswith("Class") and "2" not in n)
    assert '"""' in (cls.__doc__ or "") and "\\" in (cls.__doc__ or "")


def test_reserved_placeholder_names_get_suffixes(hostile: ModuleType) -> None:
    # the template /u/{id}/{time}/{data}/{self} collides with the method's own parameters
    info = hostile.MESSAGES["café.日本"]
    params = set(inspect.signature(info.create).parameters)
    assert {"id_", "time_2", "data_2", "self_2"} <= params  # id is a builtin: id_
    ev = info.create(None, id_="1", time_2="2", data_2="3", self_2="4", id="event-id")
    assert ev.attributes["source"] == "/u/1/2/3/4" and ev.attributes["id"] == "event-id"


def test_round_trip_through_every_codec(hostile: ModuleType) -> None:
    kafka = importlib.import_module("hostile_pkg.bindings.kafka")
    ev = hostile.MESSAGES["../../escape/def"].create({"def": "x"}, class_="c", def_="d", import_="i")
    dead: list[str] = []
    d = hostile.consumer.Dispatcher(dead_letter=lambda w, r, detail: dead.append(r))
    got: list[dict[str, str]] = []
    d.on("../../escape/def")(lambda e, p: got.append(p))
    for mode in ("binary", "structured"):
        assert d.dispatch(kafka.encode(ev, mode=mode)), dead
    assert got == [{"class": "c", "def": "d", "import": "i"}] * 2


def test_endpoint_text_stays_data(hostile: ModuleType) -> None:
    """Quotes, backslashes and newlines in endpoint ids, descriptions, addresses and options
    reach the endpoint objects as they are written, and generate no code of their own."""
    evil = hostile.ENDPOINTS['evil."""endpoint\\n']
    assert evil is hostile.endpoints.endpoint_n
    assert evil.description == "'''\"\"\" import os; os.system('rm -rf /') # \\ \n second line"
    assert evil.channel == '"); raise SystemExit("'
    assert evil.uris == ('https://example.com/"""\\n{host}',) and evil.placeholders == ("host",)
    assert evil.authorization[0].mechanism == 'PLAIN"""\\'
    assert '"""' in (evil.dispatcher_class.__doc__ or "")
    keyword = hostile.ENDPOINTS["class"]
    assert keyword is hostile.endpoints.class_
    assert keyword.dispatcher_class is hostile.consumer.ClassEndpointDispatcher
    assert keyword.message_ids == ("None",)
    options = hostile.endpoints.options.options
    assert options["consumergroup"] == "g'\"\\"
    assert dict(options["headers"]) == {'x-evil"\\': '"""{def}'}
    assert options["keyserializer"] == "'''\"\"\" \\"
