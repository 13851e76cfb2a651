import ast

import pytest

from xrgen.literals import comment, docstring, docstring_text, py_str, py_value

HOSTILE = [
    'triple """ quotes',
    "back\\slash \\n not a newline",
    "line one\nline two\r\nline three",
    'ends with quote"',
    "ends with backslash\\",
    "nul \x00 and bell \x07",
    "unicode é 😀 \u2028 separator",
    "'; import os; os.system('x') #",
    'Payload 1 """',
    "",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_py_str_round_trips(text: str) -> None:
    assert ast.literal_eval(py_str(text)) == text


@pytest.mark.parametrize("text", HOSTILE)
def test_docstring_is_one_string_statement(text: str) -> None:
    src = f"def f():\n    {docstring(text, '    ') or 'pass'}\n    return 1\n"
    tree = ast.parse(src)
    body = tree.body[0].body  # type: ignore[attr-defined]
    assert isinstance(body[-1], ast.Return)
    if text.strip():
        assert isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
        assert len(body) == 2


@pytest.mark.parametrize("text", HOSTILE)
def test_comment_is_one_line(text: str) -> None:
    src = f"x = 1  # {comment(text)}\ny = 2\n"
    tree = ast.parse(src)
    assert len(tree.body) == 2


def test_py_value_nested() -> None:
    value = {"a": [1, 2.5, True, None, 'q"uote'], "b": {"c": ()}, "d": ("x",)}
    assert ast.literal_eval(py_value(value)) == {
        "a": [1, 2.5, True, None, 'q"uote'],
        "b": {"c": ()},
        "d": ("x",),
    }


@pytest.mark.parametrize("text", HOSTILE)
def test_docstring_text_stays_inside_a_docstring(text: str) -> None:
    src = f'"""Head {docstring_text(text)}\n\nTail."""\nx = 1\n'
    tree = ast.parse(src)
    assert len(tree.body) == 2 and isinstance(tree.body[0], ast.Expr)
    assert "\n" not in docstring_text(text)
