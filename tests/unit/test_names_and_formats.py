"""Closest-name suggestions and schema format strings (pure functions)."""

from __future__ import annotations

import pytest

from xrgen.formats.spelling import format_hint, format_problem
from xrgen.suggest import closest, did_you_mean, same_name


def test_case_and_separator_variants_are_one_name() -> None:
    known = ["protocoloptions", "dataschemauri", "messagegroups"]
    assert same_name("protocolOptions", known) == "protocoloptions"
    assert same_name("data_schema_uri", known) == "dataschemauri"
    assert same_name("message-groups", known) == "messagegroups"
    assert same_name("protocol", known) is None


def test_the_closest_name_or_none() -> None:
    known = ["dataschemaformat", "description", "versions", "envelopeoptions"]
    assert closest("schemaformatr", known) == "dataschemaformat"
    assert closest("descripton", known) == "description"
    assert closest("x-owner", known) is None
    assert did_you_mean("envelopeoptoins", known) == " (did you mean 'envelopeoptions'?)"
    assert did_you_mean("labels", known) == ""


@pytest.mark.parametrize(
    "spelled",
    ["JSONSchema/draft-07", "JsonSchema/2020-12", "Avro/1.11.1", "AVRO/1.11.2", "Proto/3",
     "Protobuf/3.0", "Protobuf/2.0", "proto3", "XSD/1.0"],
)  # fmt: skip
def test_spellings_the_real_catalogs_use_are_fine(spelled: str) -> None:
    assert format_problem(spelled) is None and format_hint(spelled) == ""


@pytest.mark.parametrize(
    ("spelled", "problem"),
    [
        ("JSON", "names a data format, not a schema language; read as JSON Schema"),
        ("XML", "names a data format, not a schema language; read as XML Schema"),
        ("JsonSchema", "has no version ('JsonSchema/<version>', e.g. 'JsonSchema/draft-07')"),
        (
            "JsonStructure",
            "has no version ('JsonStructure/<version>', e.g. 'JsonStructure/draft-04')",
        ),
        ("JsonSchema/draft-99", "JSON Schema version 'draft-99' is not one xrgen knows"),
        ("Avro/2.0", "Avro schema version '2.0' is not one xrgen knows"),
        ("Protobuf/4", "Protobuf schema version '4' is not one xrgen knows"),
    ],
)
def test_known_formats_spelled_against_name_and_version(spelled: str, problem: str) -> None:
    found = format_problem(spelled)
    assert found is not None and problem in found


@pytest.mark.parametrize(
    ("spelled", "hint"),
    [
        ("Jsn/1", "JsonSchema"),
        ("Avr/1.11", "Avro"),
        ("Protobf/3", "Protobuf"),
        ("XDS/1.1", "XSD"),
        ("JsonStructur/draft-04", "JsonStructure"),
    ],
)
def test_unknown_formats_name_the_closest(spelled: str, hint: str) -> None:
    assert format_problem(spelled) is None
    assert format_hint(spelled) == f" (did you mean {hint!r}?)"


@pytest.mark.parametrize("spelled", ["JsonStructure/draft-04", "JSONStructure/draft-02", "json-structure/1"])
def test_json_structure_is_a_known_name_never_a_misspelling(spelled: str) -> None:
    assert format_problem(spelled) is None and format_hint(spelled) == ""


def test_unrelated_format_names_get_no_suggestion() -> None:
    assert format_hint("CSV/1") == "" and format_hint("Parquet/2") == ""
