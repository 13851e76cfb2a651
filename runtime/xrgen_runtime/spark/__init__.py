"""Spark decoders of generated packages (needs ``pyspark``): what a generated ``spark.py``
imports.

``SparkDecoder`` turns DataFrames of CloudEvents (Kafka's source schema, structured JSON, or
the landing schemas of the other bindings, ``LANDING_SCHEMAS``) into one typed DataFrame per
message definition plus a dead-letter DataFrame (``Outputs``), with native column expressions
only; ``parse_type`` reads the Spark types the generated module declares as JSON. Which
payloads are decoded where (``from_json``, Spark's Avro/Protobuf connectors, Arrow batches) is
documented on ``SparkDecoder`` and in docs/spark.md.
"""

from __future__ import annotations

from .._spark import SparkDecoder
from .._spark_outputs import Outputs
from .._spark_parse import parse_type
from .._spark_wires import LANDING_SCHEMAS

__all__ = ["LANDING_SCHEMAS", "Outputs", "SparkDecoder", "parse_type"]
