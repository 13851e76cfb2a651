"""No option the xRegistry 1.0-rc4 endpoint specification defines is ever reported as one a
binding does not define (XRG175): not in any catalog under catalogs/ or ../shared/catalogs,
and not for any rc4 option of any binding, on an endpoint (where it is applied) or on a message
group (where it is a connection setting, XRG174)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sample_catalogs import ALL, PRESENT, SAMPLES

from xrgen import api, protocols
from xrgen.protocols._endpoint import SERVICE_OPTIONS, squash

ROOT = Path(__file__).resolve().parents[2]
OURS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "catalogs").glob("*/catalog.json"))
THEIRS = [str(SAMPLES / s) for s in ALL] if PRESENT else []
#: every rc4 endpoint option name and the spellings read as one, compared without separators
RC4 = {
    squash(name)
    for model in protocols.ENDPOINT_OPTIONS.values()
    for name in (*model.options, *model.aliases, *model.other_version)
}


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


@pytest.mark.parametrize("catalog", OURS + THEIRS)
def test_no_rc4_option_is_reported_undefined(catalog: str) -> None:
    analysis = api.analyze([str(ROOT / catalog)])
    undefined = [d for d in analysis.diagnostics if d.code == "XRG175"]
    rc4 = [str(d) for d in undefined if squash(_unescape(d.pointer.rsplit("/", 1)[1])) in RC4]
    assert not rc4


def _value(name: str, option: protocols.EndpointOption) -> Any:
    """A valid value of an rc4 option."""
    if option.values:
        return option.values[0]
    return {
        "string": "x",
        "xid": "/messagegroups/g/messages/g.m",
        "boolean": True,
        "integer": 0,
        "uinteger": 1,
        "stringmap": {"k": "v"},
        "anymap": {"k": 1},
        "strings": ["a"],
        "headers": [{"name": "x-a", "value": "v"}],
        "any": True,  # NATS jetstream (xrgen's; true or an object of its settings)
    }[option.kind]


#: options a rule ties to another option or to a role (MQTT, Kafka, NATS), left out below
_EXCLUSIVE = {"topicfilter", "sharedsubscriptiongroup", "subjectfilter", "queuegroup",
              "consumergroup", "autooffsetreset", "enableautocommit"}  # fmt: skip


@pytest.mark.parametrize("protocol", sorted(protocols.ENDPOINT_OPTIONS))
def test_every_rc4_option_of_a_binding_is_read(protocol: str, tmp_path: Path) -> None:
    model = protocols.ENDPOINT_OPTIONS[protocol]
    options = {n: _value(n, o) for n, o in model.options.items() if n not in _EXCLUSIVE}
    group = {
        "protocol": protocol,
        "protocoloptions": {
            n: _value(n, o) for n, o in model.options.items() if n not in SERVICE_OPTIONS
        },
        "messages": {
            "g.m": {
                "messageid": "g.m",
                "envelope": "CloudEvents/1.0",
                "envelopemetadata": {"type": {"value": "g.m"}, "source": {"value": "/s"}},
            }
        },
    }
    catalog = {
        "messagegroups": {"g": group},
        "endpoints": {
            "e": {"usage": ["producer"], "protocol": protocol, "protocoloptions": options,
                  "messagegroups": ["#/messagegroups/g"]},
        },
    }  # fmt: skip
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(catalog))
    analysis = api.analyze([str(path)])
    lines = [str(d) for d in analysis.diagnostics]
    assert not any(" XRG175" in line for line in lines), lines
    assert not analysis.diagnostics.has_errors, lines
    assert analysis.catalog is not None
    [endpoint] = analysis.catalog.endpoints
    if "willmessage" in options:
        options["willmessage"] = "g.m"  # the message the xid references, by id
    assert dict(endpoint.options) == options  # every rc4 option reaches the endpoint object
