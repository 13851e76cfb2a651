"""The all-handlers check: every message of every catalog, end to end through its generated
package, reaches exactly its own handler while EVERY handler of the package is registered.

For each catalog in catalogs/ and each real sample catalog (../shared/catalogs/xrcg-samples,
skipped cleanly when absent): generate the package, create every message with its own
producer (``xrgen_runtime.testing.example_event``), encode it in every content mode of its
binding, dispatch it with a handler registered for every message id, and check that the
handler of its own definition (or of the definition its ``xref`` alias stands for) is the
only one called. The exceptions are the definitions the catalog itself makes
indistinguishable, which generation flags with XRG330: the set of definitions whose events go
elsewhere must be exactly that set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sample_catalogs import GOOD, PRESENT, SAMPLES, package_name
from sample_events import events, wire_messages

from xrgen import api, overlap

ROOT = Path(__file__).resolve().parents[2]
#: catalogs/ folders that generate a package (the others are error cases)
OWN = sorted(
    p.parent.name
    for p in (ROOT / "catalogs").glob("*/catalog.json")
    if api.analyze([str(p)]).diagnostics.has_errors is False
)
CASES = [("catalogs", name) for name in OWN] + [("samples", s) for s in GOOD]


def source(kind: str, name: str) -> Path:
    if kind == "catalogs":
        return ROOT / "catalogs" / name / "catalog.json"
    if not PRESENT:
        pytest.skip("../shared/catalogs/xrcg-samples is not beside the checkout")
    return SAMPLES / name


def route_all(pkg: Any, src: Path) -> tuple[dict[str, set[str]], set[str], int]:
    """``({message id: handlers its events reached}, XRG330 ids, deliveries)``."""
    analysis = api.analyze([str(src)])
    assert analysis.catalog is not None
    flagged = {m.id for m, _first in overlap.indistinguishable(analysis.catalog)}
    built, skipped = events(pkg)
    assert not skipped, skipped  # every payload is synthesizable
    dead: list[tuple[str, str]] = []
    dispatcher = pkg.consumer.Dispatcher(
        dead_letter=lambda _m, r, d: dead.append((r, d))
    )
    received: list[tuple[str, Any]] = []
    for message_id in pkg.MESSAGES:
        dispatcher.on(message_id)(
            lambda ev, _p, mid=message_id: received.append((mid, ev))
        )
    reached: dict[str, set[str]] = {}
    deliveries = 0
    for info, event in built:
        for codec, mode, wire in wire_messages(pkg, info, event):
            received.clear()
            dead.clear()
            result = dispatcher.dispatch(wire)
            assert result.handled and not dead, (
                info.id,
                codec,
                mode,
                result.reason,
                dead,
            )
            ((message_id, got),) = received  # exactly one handler call
            deliveries += 1
            reached.setdefault(info.id, set()).add(message_id)
            if message_id == info.id:
                if info.definition.envelope is not None:
                    assert got.attributes["id"] == event.attributes["id"]
                if info.model is not None:
                    assert got.data == event.data, (info.id, codec, mode)
    aliases = {m.id: m.alias_of for m in analysis.catalog.messages() if m.alias_of}
    for mid, handlers in reached.items():
        own = {mid, aliases.get(mid, mid)} | {a for a, t in aliases.items() if t == mid}
        reached[mid] = handlers - own
    return reached, flagged, deliveries


@pytest.mark.parametrize(("kind", "name"), CASES, ids=[f"{k}:{n}" for k, n in CASES])
def test_every_message_reaches_exactly_its_own_handler(
    generated: Any, kind: str, name: str
) -> None:
    src = source(kind, name)
    package = package_name(name) if kind == "samples" else f"own_{name}"
    pkg = generated(src, package=package)
    elsewhere, flagged, deliveries = route_all(pkg, src)
    misrouted = {mid for mid, others in elsewhere.items() if others}
    assert deliveries > 0
    assert misrouted == flagged, {
        mid: elsewhere.get(mid) for mid in misrouted ^ flagged
    }
