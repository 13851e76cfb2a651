import keyword

import pytest

from xrgen.naming import Scope, last_segment, pascal, snake, words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("com.acme.ReadingV2", "com_acme_reading_v_2"),
        ("TurnedOn", "turned_on"),
        ("HTTPServerError", "http_server_error"),
        ("class", "class_"),
        ("print", "print_"),
        ("match", "match_"),
        ("1st-event", "n1_st_event"),
        ("café crème", "cafe_creme"),
        ("日本", "x"),
        ("", "x"),
        ("../../etc/passwd", "etc_passwd"),
    ],
)
def test_snake(text: str, expected: str) -> None:
    assert snake(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("com.acme.base", "ComAcmeBase"),
        ("Fabrikam.Lumen", "FabrikamLumen"),
        ("none", "None_"),
        ("3d", "N3D"),
        ("x-y_z", "XYZ"),
    ],
)
def test_pascal(text: str, expected: str) -> None:
    assert pascal(text) == expected


def test_names_are_identifiers_and_not_keywords() -> None:
    for text in ["def", "async", "await", "True", "type", "_", "__init__", "0", "a b", "ünïcödé"]:
        for name in (snake(text), pascal(text)):
            assert name.isidentifier()
            assert not keyword.iskeyword(name)


def test_words_split_humps_and_digits() -> None:
    assert words("XMLHttpRequest2Go") == ["XML", "Http", "Request", "2", "Go"]


def test_last_segment() -> None:
    assert last_segment("com.acme.Reading") == "Reading"
    assert last_segment("com.acme.") == "acme"
    assert last_segment("...") == "..."


def test_scope_collisions_get_numbered() -> None:
    s = Scope(frozenset({"dispatch"}))
    assert s.claim("dispatch") == ("dispatch_2", True)
    assert s.claim("a") == ("a", False)
    assert s.claim("a") == ("a_2", True)
    t = Scope()
    assert [t.claim("x")[0] for _ in range(3)] == ["x", "x_2", "x_3"]
