"""The shape-cached formatter must produce exactly what black produces."""

import black
import pytest

from xrgen.format import Formatter, normalize, restore
from xrgen.render import CHUNK, MEMBER

SAMPLES = [
    "x   =  {'a':1,'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb':22222222222222222222222222222222222222222}\n",
    "def   function_name(argument_one,argument_two,*,keyword_only:int=0x1F,other=1e10)->None:\n  return None\n",
    "class Example0001(Base):\n    '''Doc with 3 digits 123 and \\\\n escapes'''\n    value:int=1  # type: ignore\n",
    "result = some_function_with_a_long_name(first_argument_value, second_argument_value, third_argument)\n",
]


@pytest.mark.parametrize("src", SAMPLES)
def test_chunk_matches_black(src: str, tmp_path) -> None:
    f = Formatter(cache_dir=tmp_path, use_cache=False)
    assert f.chunk(src) == black.format_str(src, mode=black.Mode())


def test_same_shape_is_formatted_once(tmp_path) -> None:
    f = Formatter(cache_dir=tmp_path, use_cache=False)
    a = f.chunk("value_aaaa = call_bbbb(argument_cccc, 1)\n")
    lines = f.formatted_lines
    b = f.chunk("value_dddd = call_eeee(argument_ffff, 7)\n")
    assert f.formatted_lines == lines  # cache hit: same shape
    assert b == "value_dddd = call_eeee(argument_ffff, 7)\n"
    assert a.startswith("value_aaaa")


def test_normalize_round_trip_and_keywords() -> None:
    text = "def some_name(self, value2): return value2 if value2 else None  # type: ignore 42"
    shape, replaced, digits = normalize(text)
    assert "def " in shape and " return " in shape and " if " in shape and "None" in shape
    assert "some_name" not in shape and len(shape) == len(text)
    assert replaced[:2] == ["some_name", "self"] and digits == ["4", "2"]  # value2 keeps its 2
    assert restore(shape, replaced, digits) == text


def test_restore_refuses_a_shape_that_does_not_fit() -> None:
    shape, replaced, digits = normalize("alpha = beta(1)\n")
    assert restore(shape + "QQQQ\n", replaced, digits) is None
    assert restore(shape.replace("0", "00"), replaced, digits) is None


def test_file_chunks_and_members_join_as_black_would(tmp_path) -> None:
    src = (
        '"""Module."""\n\nimport os\n' + CHUNK + "\n"
        "class A:\n    '''Doc.'''\n\n    def __init__(self) -> None:\n        pass\n"
        f"    {MEMBER}\n    def first(self, x:int)->int:\n        return x\n"
        f"    {MEMBER}\n    def second(self, y:int)->int:\n        return os.getpid()+y\n"
        + CHUNK
        + "\nX=1\n"
        + CHUNK
        + "\ndef f(): pass\n"
    )
    f = Formatter(cache_dir=tmp_path)
    out = f.file(src)
    assert CHUNK not in out and MEMBER not in out
    assert black.format_str(out, mode=black.Mode()) == out


def test_cache_persists(tmp_path) -> None:
    f = Formatter(cache_dir=tmp_path)
    f.file("x=1\n")
    f.save()
    g = Formatter(cache_dir=tmp_path)
    assert g.file("x=1\n") == "x = 1\n"
    assert g.formatted_lines == 0


def test_cache_keeps_the_most_recently_used_within_its_budget(tmp_path, monkeypatch) -> None:
    """The cache file is loaded and rewritten by every run, so it is bounded: beyond the
    budget the least recently used files go first, and nothing the saving run used goes."""
    import xrgen.format as fmt

    texts = [f"value_{i:02d} = {i}\n" for i in range(6)]
    size = len(black.format_str(texts[0], mode=black.Mode()))  # the same for every text
    assert {len(black.format_str(t, mode=black.Mode())) for t in texts} == {size}
    monkeypatch.setattr(fmt, "FILES_BUDGET", 4 * size)  # room for four, not five
    first = Formatter(cache_dir=tmp_path)
    for text in texts[:4]:
        first.file(text)
    first.save()
    second = Formatter(cache_dir=tmp_path)
    second.file(texts[0])  # a hit: texts[0] is now the most recently used
    second.file(texts[4])
    second.file(texts[5])
    second.save()
    kept = set(Formatter(cache_dir=tmp_path).files.values())
    assert kept == {black.format_str(t, mode=black.Mode()) for t in (texts[0], texts[3], texts[4], texts[5])}
    # a run that uses more than the budget keeps all of it (its next run is fully warm)
    monkeypatch.setattr(fmt, "FILES_BUDGET", size)
    third = Formatter(cache_dir=tmp_path)
    for text in texts:
        third.file(text)
    third.file("extra = 1\n")
    third.save()
    fourth = Formatter(cache_dir=tmp_path)
    for text in texts:
        fourth.file(text)
    assert fourth.formatted_lines == 0


def test_shapes_are_bounded_like_files(tmp_path, monkeypatch) -> None:
    import xrgen.format as fmt

    monkeypatch.setattr(fmt, "SHAPES_BUDGET", 0)
    first = Formatter(cache_dir=tmp_path)
    first.file("a_long_name = 1\n")
    first.save()
    second = Formatter(cache_dir=tmp_path)
    second.file("def fn():\n  return 1\n")  # a new shape; the first one is not used
    second.save()
    assert len(Formatter(cache_dir=tmp_path).shapes) == 1
