"""AMQP endpoint link settings applied to the real client library's links (python-qpid-proton
objects; no connection). Here rather than in tests/runtime: it needs the adapter's client library."""

from __future__ import annotations

import pytest

from .conftest import require_module


def test_amqp_link_settings_become_proton_terminus_settings() -> None:
    proton = require_module("proton", "python-qpid-proton")  # proton objects, no connection
    from xrgen_runtime.adapters.amqp import LinkSettings

    session = proton.Connection().session()
    receiver, sender = session.receiver("r"), session.sender("s")
    settings = LinkSettings({
        "properties": {"app": "billing"},
        "capabilities": ["queue"],
        "durability": "unsettled-state",
        "expiry_policy": "never",
        "timeout": 30,
        "distribution_mode": "copy",
        "filters": {"jms-selector": "a > 1"},
        "sender_settle_mode": "settled",
        "receiver_settle_mode": "second",
    })
    assert settings.test(receiver) and settings.test(sender)  # proton applies it to both
    settings.apply(receiver)
    settings.apply(sender)
    source, target = receiver.source, sender.target
    assert source.durability == proton.Terminus.DELIVERIES
    assert source.expiry_policy == proton.Terminus.EXPIRE_NEVER and source.timeout == 30
    assert source.distribution_mode == proton.Terminus.DIST_MODE_COPY
    selector = source.filter.get_object()[proton.symbol("jms-selector")]
    assert isinstance(selector, proton.Described)
    assert selector.descriptor == "apache.org:selector-filter:string"
    assert list(source.capabilities.get_object()) == ["queue"]
    assert receiver.properties == {proton.symbol("app"): "billing"}
    assert receiver.snd_settle_mode == proton.Link.SND_SETTLED
    assert receiver.rcv_settle_mode == proton.Link.RCV_SECOND
    # a sending link: its target, and no source-only settings
    assert target.durability == proton.Terminus.DELIVERIES
    assert sender.source.distribution_mode == proton.Terminus.DIST_MODE_UNSPECIFIED
    with pytest.raises(ValueError, match="durability: 'forever'"):
        LinkSettings({"durability": "forever"}).apply(session.receiver("x"))
