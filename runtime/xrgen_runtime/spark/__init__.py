"""Spark decoders of a generated xrgen package: CloudEvents rows -> typed DataFrames.

The generated ``spark.py`` holds the package's schemas (``SCHEMAS``, ``EVENT_SCHEMAS``) and its
``MessageDef`` tuple and calls the generic engine here (the names in ``__all__``). Everything is a native Spark column
expression (no Python UDF, no pandas UDF), so the same code runs in batch and in Structured
Streaming, on any Spark >= 4.0 cluster (``try_*`` functions and ANSI-safe expressions only).

What runs where:

- JSON payloads (``datacontenttype`` JSON or absent, whatever the schema format):
  ``from_json`` against the payload type. Runs everywhere, including plain local Spark.
- Avro binary and Protobuf payloads (a definition whose content type is Avro binary or
  Protobuf, with its Avro schema in ``avro_schemas`` / its descriptor set in
  ``proto_descriptors``): ``payloads="native"`` reads them with ``from_avro`` /
  ``from_protobuf`` (options ``mode=PERMISSIVE``, and ``emit.default.values=true`` so that
  proto3 scalars read as their defaults, as the Python codec reads them), which need Spark's
  connector packages on the cluster (``--packages org.apache.spark:spark-avro_2.13:<version>``
  / ``spark-protobuf_2.13``); ``payloads="arrow"`` decodes them with an Arrow UDF per
  payload type (:mod:`.payloads`: Python on the executors, no connector; only the matched
  definition and the payload bytes cross into Python, and JSON rows as nulls; PySpark 4.0,
  without ``arrow_udf``, gets a ``mapInArrow`` step that carries every column);
  ``payloads="auto"`` (the
  default) checks the JVM for the connectors when the decoder is built (or at its first
  ``route`` when no SparkSession is active yet) and uses the native path when every needed
  one is there, else the Arrow path with a ``RuntimeWarning`` naming the missing package;
  ``native`` without a connector raises ``RuntimeError`` there; ``payloads="off"`` decodes
  none (such rows are dead-lettered: ``validation-error``, ``unsupported-format``) and keeps
  the decoder JVM-only. Both paths give the payload's
  Spark type (``SCHEMAS``); bytes that do not decode (a bad framing header or fingerprint,
  truncated or foreign bytes) are dead-lettered (``validation-error``, ``invalid payload``);
  with ``from_avro`` so is a record whose fields are all null (how PERMISSIVE ``from_avro``
  reports unreadable bytes), and trailing bytes after a record go unnoticed (the Arrow path
  rejects them). Avro framing is the package codec's (``plain``, ``single-object``: header
  stripped and fingerprint checked, ``confluent``: magic byte checked and the 5-byte header
  stripped). For Confluent framing, ``schema_ids`` (message id -> ids) or ``registry`` (a
  schema registry client asked once, at build, with ``lookup_schema`` under the codec's
  subjects) give the ids whose writer schema is the catalog's: the id then routes the row
  (a row of another id matches no definition); without ids any id is read with the
  catalog's schema. Structured events carry the bytes as ``data_base64``.

Pipeline (``SparkDecoder.route``), one pass over the input, each row parsed ONCE:

1. content mode (structured when the content type starts with ``application/cloudevents``,
   case-insensitive); binary rows read the binding's attribute headers / properties;
   structured rows parse the envelope with ``from_json`` (attributes as canonical strings;
   ``data`` typed with the payload type that the event's ``type`` selects, or as raw JSON
   text, see ``plan._envelope_choice``);
2. match (most specific first, as in the dispatcher: bound to the wire's protocol, then more
   constants and templates, then more constants, then catalog order; the first match wins):
   ``type`` constant, constant attributes, uritemplate attributes (Java regexes built from
   ``UriTemplate``), required attributes, ``datacontenttype`` constant, and protocol options
   of the decoded binding;
3. the payload of each row is parsed with the payload type of its matched definition only
   (rows of definitions with the same type share one ``from_json``; for a typed envelope,
   that was its parse), in PERMISSIVE mode with a corrupt-record field: bad JSON or a value
   of the wrong type dead-letters the row, and so does a missing required field (from the
   payload type's non-nullable fields);
4. definitions whose match conditions are equal (tied: the match gives the first of them)
   are told apart by their payloads, as the dispatcher does: the row is parsed with the type
   of each and goes to the first that accepts its payload, with the ``const`` / ``enum``
   values the generated ``PAYLOAD_CHECKS`` lists (:mod:`.ties`);
5. one error struct per row: ``None`` when the row is good.

``SparkDecoder.split`` turns the routed frame into one DataFrame per message id (columns:
the event's attributes by wire name, typed; ``data`` as the payload struct; ``params`` with
the uritemplate placeholder values when the message has placeholders; lineage columns of the
binding, e.g. ``topic``, ``partition``, ``offset``, ``timestamp`` for Kafka; a lineage column
whose name an attribute already uses gets a ``_`` prefix) and one dead-letter DataFrame (the
input columns plus ``reason`` and ``detail``). Every input row is in exactly one of them.

Dead-letter reasons are the dispatcher's: ``decode-error`` (detail ``invalid-json``,
``invalid-encoding`` for a bad percent-escape or invalid UTF-8 in a NATS/HTTP attribute
header, ``missing-attribute: <name>``, ``invalid-specversion``, ``invalid-attribute: <name>``,
``unsupported-format``), ``unknown-type``, ``no-match``, ``validation-error`` (detail
``unsupported-format``, ``no data``, ``invalid payload`` or ``missing field: <path>``).

Differences from the Python dispatcher: the payload is checked against the FIRST matching
definition only, except among tied definitions with JSON or opaque payloads (step 4), where
Spark's checks of a payload are its type, its required fields and the ``PAYLOAD_CHECKS``
values (the models also check formats, bounds and the values of optional members); each
uritemplate is read on its own (leftmost-shortest, as the dispatcher reads one template)
and a placeholder used in several templates takes the value of the first of them (the
dispatcher requires the values to agree, reading the least ambiguous template first); Kafka
header names are matched exactly (``ce_`` lower case, ``content-type``); the first of
repeated headers wins; ``from_json`` converts a JSON number or boolean found
where a string is declared into its text (so a JSON Structure ``int64`` or ``decimal`` written
as a JSON number is read, where the dispatcher wants the string JSON Structure writes;
:mod:`.structure` converts the other JSON Structure types as the models check them); when an envelope is parsed with ``data`` as text
(see ``plan._envelope_choice``), a ``data`` that is a JSON string is
read as the text of that string (the dispatcher validates the string itself, so a payload that
was JSON-encoded twice is dead-lettered there and decoded here); an envelope with two ``type``
members that select different envelope variants is dead-lettered (``decode-error``,
``duplicate-attribute: type``; the dispatcher takes the last one); a payload or envelope followed
by text that goes on with object members (``{"a":1},"b":2``) is read as the value before it
(``columns.wrapped``: other text after a value is rejected). ``decode_json`` rows carry no protocol,
so options are not checked there.

Performance: without keeping the routed rows, every output DataFrame re-runs the pipeline over
its source (correct, but N outputs cost N passes). Write all outputs of one input with
``SparkDecoder.foreach_batch`` (streaming ``foreachBatch`` or a batch DataFrame): it routes
the batch once into a local checkpoint (:mod:`.keep`: the rows in the block
manager, memory then disk, and no routing plan in the lineage of the output jobs), learns in
one scan which outputs have rows, writes those (and the dead letters, if any), and releases the
rows. A catalog of 1,100 definitions thus costs a Spark job per output present, not per
definition. Outputs are built on first lookup (:class:`.outputs.Outputs`) and a decoder builds the
columns of outputs of the same shape once. How the routing plan is laid out for Spark's
optimizer: :mod:`.route`. Input columns that only the dead letters read are nulled
on good rows before they are kept (``SparkDecoder._cacheable``). Definitions with identical
checks share one error branch, and definitions that differ only in their CloudEvents ``type``
share one match branch that looks the type up in a map (:func:`.match.match`): code
generated per definition would make the routing stage's method too big for the JVM to
compile.

Building: the expressions are SQL text (:mod:`.sql`), one ``selectExpr`` call into the JVM
per stage, where ``Column`` objects cost several calls per operation (PySpark 4 records each
one's call site: ~14,000 calls for the routing of 1,100 definitions, now about 130). Each
output is one ``where`` on a frame selected once per output shape (``SparkDecoder.split``),
as cheap to build as any ``where``. A decoder builds its expressions once per input column
list and reuses them on every later call: keep one decoder per stream (the generated
``decoder()`` does).

Where things are: :mod:`.plan` (the frozen plan: compiled definitions, :mod:`.targets`,
payload parse groups, envelope variants, native or Arrow payloads, :mod:`.specs`), the
stages as functions of the plan (:mod:`.route` composes them: :mod:`.envelope`,
:mod:`.payload`, :mod:`.binary`, :mod:`.match`, :mod:`.errors`, :mod:`.ties`), the outputs
(:mod:`.outputs`), :mod:`.decoder` (``SparkDecoder``: the stages built once per input,
``route``, ``split``, ``foreach_batch``, how a batch's rows are kept: :mod:`.keep`); the
routing columns are named in :mod:`.names` only; expressions are SQL text (:mod:`.sql`, the
only way catalog text reaches it) built from :mod:`.columns` and :mod:`.values`; landing
schemas and readers in :mod:`.wires`; the executors' side of the Arrow path in
:mod:`.payloads`; :mod:`.check` compares the native path with the Arrow path on a cluster.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ..bindings import BINDINGS

if TYPE_CHECKING:
    from .columns import parse_type
    from .decoder import (
        SparkDecoder,
        Writer,
        decode_amqp,
        decode_http,
        decode_json,
        decode_kafka,
        decode_mqtt,
        decode_nats,
        decode_pulsar,
        decode_rocketmq,
    )
    from .errors import DECODE_ERROR, NO_MATCH, UNKNOWN_TYPE, VALIDATION_ERROR
    from .outputs import Outputs
    from .specs import PAYLOAD_MODES
    from .targets import template_regex
    from .wires import LANDING_SCHEMAS

#: the module of each public name, imported on first use (the executors of the Arrow path
#: import :mod:`.payloads` alone)
_HOMES = {
    "DECODE_ERROR": ".errors",
    "LANDING_SCHEMAS": ".wires",
    "NO_MATCH": ".errors",
    "PAYLOAD_MODES": ".specs",
    "Outputs": ".outputs",
    "SparkDecoder": ".decoder",
    "UNKNOWN_TYPE": ".errors",
    "VALIDATION_ERROR": ".errors",
    "Writer": ".decoder",
    "decode_json": ".decoder",
    **{b.decoder: ".decoder" for b in BINDINGS.values()},
    "parse_type": ".columns",
    "template_regex": ".targets",
}

__all__ = [
    "DECODE_ERROR",
    "LANDING_SCHEMAS",
    "NO_MATCH",
    "PAYLOAD_MODES",
    "Outputs",
    "SparkDecoder",
    "UNKNOWN_TYPE",
    "VALIDATION_ERROR",
    "Writer",
    "decode_amqp",
    "decode_http",
    "decode_json",
    "decode_kafka",
    "decode_mqtt",
    "decode_nats",
    "decode_pulsar",
    "decode_rocketmq",
    "parse_type",
    "template_regex",
]
__all__ += sorted(set(_HOMES) - set(__all__))


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
