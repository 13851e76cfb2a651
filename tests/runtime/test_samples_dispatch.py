"""Every message of every real sample catalog, end to end through its generated package:
producer factory -> codec of its protocol (both content modes where the binding has them)
-> the package's dispatcher -> a typed handler, with nothing dead-lettered."""

from __future__ import annotations

from typing import Any

import pytest
from sample_catalogs import ABSENT_REASON, GOOD, PRESENT, SAMPLES, package_name
from sample_events import events, relative_dataschema, wire_messages

if not PRESENT:
    pytest.skip(ABSENT_REASON, allow_module_level=True)


@pytest.mark.parametrize("sample", GOOD)
def test_every_sample_message_reaches_its_handler(generated: Any, sample: str) -> None:
    pkg = generated(SAMPLES / sample, package=package_name(sample))
    built, skipped = events(pkg)
    assert not skipped, skipped  # every sample payload is synthesizable today
    dead: list[tuple[str, str]] = []
    dispatcher = pkg.consumer.Dispatcher(
        dead_letter=lambda _m, r, d: dead.append((r, d))
    )
    received: list[tuple[str, Any]] = []
    for message_id in pkg.MESSAGES:
        dispatcher.on(message_id)(
            lambda ev, params, mid=message_id: received.append((mid, ev))
        )
    for info, event in built:
        for codec, mode, wire in wire_messages(pkg, info, event):
            received.clear()
            dead.clear()
            result = dispatcher.dispatch(wire)
            if relative_dataschema(
                info
            ):  # generation warned (XRG144): CloudEvents forbids it
                assert dead == [
                    (
                        "decode-error",
                        "invalid-attribute: dataschema: not an absolute URI",
                    )
                ]
                continue
            assert result.handled and not dead, (
                info.id,
                codec,
                mode,
                result.reason,
                dead,
            )
            ((message_id, got),) = received
            # several definitions may share a CloudEvents type: the first in catalog order wins
            assert pkg.MESSAGES[message_id].type == info.type, (info.id, message_id)
            if info.definition.envelope is not None:
                assert got.attributes["id"] == event.attributes["id"]
            if info.model is not None:
                assert got.data == event.data, (info.id, codec, mode)
