"""Spark fixtures: ONE local SparkSession per test run, the runtime's ``spark`` package.

pyspark missing: the spark tests are skipped locally with an install hint, and FAIL under
``CI=true`` (a missing dependency must not hide behind a skip there).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

INSTALL_HINT = 'make setup (or: pip install -e ".[spark]"; needs a Java 17+ runtime)'


def _require_pyspark() -> None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"pyspark is required under CI=true: {INSTALL_HINT}")
        pytest.skip(f"pyspark is not installed: {INSTALL_HINT}")


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """A local[2] SparkSession shared by the whole run (UI off, bound to 127.0.0.1)."""
    _require_pyspark()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder
    # extra jars for the session, e.g. spark-avro so that the from_avro tests decode for real
    jars = os.environ.get("XRGEN_SPARK_JARS")
    if jars:
        builder = builder.config("spark.jars", jars)
    session = (
        builder.master("local[2]")
        .appName("xrgen-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def spark_rt(runtime_package: ModuleType, spark: Any) -> ModuleType:
    """The runtime package's ``spark`` package (imported after the session exists)."""
    import importlib

    return importlib.import_module(runtime_package.__name__ + ".spark")


# ---------------------------------------------------------------------------------------------
# A small catalog (as the generated spark.py would pass it) and Kafka-source rows
# ---------------------------------------------------------------------------------------------

READING_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "value": {"type": "number"},
        "unit": {"type": "string", "enum": ["C", "F"]},
        "at": {"type": "string", "format": "date-time"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "location": {"$ref": "#/definitions/Location"},
    },
    "required": ["value", "unit"],
    "definitions": {
        "Location": {
            "type": "object",
            "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
            "required": ["lat", "lon"],
        }
    },
}
ALARM_SCHEMA = {
    "type": "object",
    "properties": {
        "code": {"type": "integer"},
        "message": {"type": ["string", "null"]},
    },
    "required": ["code"],
}


class Catalog:
    """Message definitions + payload types + helpers to build Kafka-source rows."""

    def __init__(self, rt: ModuleType) -> None:
        import importlib

        from pyspark.sql.types import StructType

        from xrgen.formats.jsonschema import spark_type as json_schema_to_spark

        core = rt
        self.rt = rt
        self.kafka = importlib.import_module(rt.__name__ + ".bindings.kafka")
        A = core.AttrDef
        self.defs = (
            core.MessageDef(
                id="com.acme.Reading",
                group="com.acme",
                envelope="CloudEvents/1.0",
                type="com.acme.Reading",
                attributes=(
                    A("type", "string", True, "com.acme.Reading"),
                    A(
                        "source",
                        "uritemplate",
                        True,
                        "/plants/{plant}/sensors/{sensor}",
                    ),
                    A("seq", "integer", True),
                    A("urgent", "boolean"),
                ),
                protocol="KAFKA",
                options=(core.OptionDef(("topic",), "readings"),),
                datacontenttype="application/json",
                schemaformat="json",
            ),
            core.MessageDef(
                id="com.acme.Alarm",
                group="com.acme",
                envelope="CloudEvents/1.0",
                type="com.acme.Alarm",
                attributes=(
                    A("type", "string", True, "com.acme.Alarm"),
                    A("source", "string", True, "/alarms"),
                ),
                schemaformat="json",
            ),
            core.MessageDef(
                id="com.acme.Blob",
                group="com.acme",
                envelope="CloudEvents/1.0",
                type="com.acme.Blob",
                attributes=(A("type", "string", True, "com.acme.Blob"),),
            ),
        )
        self.schemas = {
            "com.acme.Reading": StructType.fromJson(
                json_schema_to_spark(READING_SCHEMA)
            ),
            "com.acme.Alarm": StructType.fromJson(json_schema_to_spark(ALARM_SCHEMA)),
        }

    def event(
        self,
        ce_type: str,
        data: Any,
        source: str,
        topic: str = "readings",
        **attrs: Any,
    ) -> Any:
        core = self.rt
        attributes = {
            "specversion": "1.0",
            "id": attrs.pop("id", "e-1"),
            "source": source,
        }
        attributes["type"] = ce_type
        attributes.update(attrs)
        return core.Event(attributes, data, core.KafkaBinding(topic=topic))

    @staticmethod
    def row(msg: Any, offset: int = 0) -> tuple[Any, ...]:
        """A Kafka-source row (Spark's schema) from a ``KafkaMessage``."""
        from datetime import datetime, timezone

        ts = datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc)
        headers = [(k, v) for k, v in msg.headers]
        return (
            msg.key,
            msg.value,
            msg.topic,
            msg.partition or 0,
            offset,
            ts,
            0,
            headers,
        )


@pytest.fixture(scope="session")
def catalog(spark_rt: ModuleType, runtime_package: ModuleType) -> Catalog:
    return Catalog(runtime_package)


@pytest.fixture(scope="session")
def kafka_df(spark: Any, spark_rt: ModuleType) -> Any:
    """``kafka_df(rows)``: a DataFrame with Spark's Kafka-source schema."""

    def make(rows: list[tuple[Any, ...]]) -> Any:
        return spark.createDataFrame(rows, spark_rt.LANDING_SCHEMAS["kafka"])

    return make
