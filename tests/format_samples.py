"""The repository's payload-format catalogs and one valid payload of each kind, shared by the
runtime, broker and Spark tests of catalogs/avro, catalogs/protobuf and catalogs/xml."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

CATALOGS = Path(__file__).resolve().parents[1] / "catalogs"
AVRO_CATALOG = CATALOGS / "avro" / "catalog.json"
PROTOBUF_CATALOG = CATALOGS / "protobuf" / "catalog.json"
XML_CATALOG = CATALOGS / "xml" / "catalog.json"
WIND_CATALOG = CATALOGS / "windgenerator" / "catalog.json"

#: com.example.shop.OrderPlaced (Avro: nested records, unions, enums, arrays, maps, logical types)
ORDER = {
    "orderId": "6f1c1d3e-0b7a-4c55-9a43-0d5e3d2f1a10",
    "placedAt": "2024-05-01T10:00:00.123456Z",
    "deliveryDate": "2024-05-03",
    "total": "12.50",
    "status": "PAID",
    "customer": {"name": "Ann", "email": None, "address": {"street": "Main 1", "city": "Berlin"}},
    "lines": [
        {"sku": "a-1", "quantity": 2, "unitPrice": "6.25"},
        {"sku": "b-2", "quantity": 1, "unitPrice": "0.00"},
    ],
    "attributes": {"gift": "yes"},
    "payment": {"iban": "DE02120300000000202051", "reference": "r-7"},
    "priority": "high",
}
#: com.example.shop.OrderShipped (Avro)
SHIPMENT = {
    "orderId": "6f1c1d3e-0b7a-4c55-9a43-0d5e3d2f1a10",
    "carrier": "DHL",
    "shippedOn": "2024-05-02",
    "parcels": ["p1", "p2"],
    "weights": {"p1": 1.5, "p2": 0.25},
}
#: example.telemetry.DeviceReport (proto3: nested messages, enums, repeated, maps, oneof)
REPORT = {
    "device_id": "d-1",
    "sequence": 12345678901,
    "temperature": 21.3,
    "status": "DEGRADED",
    "readings": [{"sensor": "t", "value": 1.25, "quality": 3}, {"sensor": "h", "value": -0.5}],
    "labels": {"site": "berlin"},
    "location": {"lat": 52.5, "lon": 13.4},
    "battery_level": 0.75,
    "signature": b"\x00\x01\xff",
    "note": "hi",
    "codes": [-1, 2, -300],
    "latest": {"t": {"sensor": "t", "value": 9.0, "quality": 1}},
}

#: catalogs/windgenerator (plain Avro messages): message id -> (payload, placeholder values)
WIND_MESSAGES: dict[str, tuple[dict[str, Any], dict[str, str]]] = {
    "WindGenerator.Telemetry": (
        {
            "turbineId": "wt-07",
            "measuredAt": "2024-05-01T10:00:00.123Z",
            "windSpeed": 11.25,
            "rotorRpm": 14.5,
            "powerKw": 2_350,
            "state": "RUNNING",
            "alarm": None,
            "bladePitch": [1.5, 1.5, 1.75],
        },
        {"turbineid": "wt-07"},
    ),
    "WindGenerator.StatusChanged": (
        {"turbineId": "wt-07", "from": "RUNNING", "to": "FAULT", "changedAt": "2024-05-01T10:00:01Z"},
        {"farmid": "north", "turbineid": "wt-07"},
    ),
    "WindGenerator.MaintenanceScheduled": (
        {
            "turbineId": "wt-07",
            "window": {"start": "2024-05-02T06:00:00Z", "hours": 6},
            "crew": {"lead": "Ann", "tech": "Bo"},
        },
        {},
    ),
    "WindGenerator.YawAdjusted": ({"turbineId": "wt-07", "degrees": -12.5}, {"turbineid": "wt-07"}),
    "WindGenerator.PowerCurveReported": (
        {"turbineId": "wt-07", "points": [{"windSpeed": 3.5, "powerKw": 40}, {"windSpeed": 12.0, "powerKw": 3000}]},
        {"turbineid": "wt-07"},
    ),
    "WindGenerator.Curtailed": ({"farmId": "north", "limitKw": 50_000, "reason": "grid congestion"}, {}),
    "WindGenerator.AlertRaised": (
        {"turbineId": "wt-07", "code": 4711, "severity": "CRITICAL", "snapshot": "AAEC/w=="},
        {},
    ),
    "WindGenerator.Heartbeat": ({"turbineId": "wt-07", "uptimeSeconds": 86_400}, {}),
}


def binding(pkg: ModuleType, name: str) -> Any:
    """The generated package's codec module of binding ``name``."""
    return importlib.import_module(f"{pkg.__name__}.bindings.{name}")
