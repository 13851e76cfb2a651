"""The only way catalog text reaches generated source code.

Every string from a catalog (ids, descriptions, template text, constant values) is turned into
source here: string literals through ``repr`` (which escapes quotes, backslashes, newlines and
control characters), comments and docstrings with everything that could end them neutralized.
Templates print the results of these functions and never raw catalog text.
"""

from __future__ import annotations

from typing import Any


def py_str(value: str) -> str:
    """A Python string literal for ``value`` (double quotes, as black would normalize)."""
    r = repr(value)
    if r.startswith("'") and '"' not in value:
        return '"' + r[1:-1].replace("\\'", "'") + '"'
    return r


def py_value(value: Any) -> str:
    """A Python literal for a JSON-like value (str, int, float, bool, None, list, dict)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return py_str(value)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(py_value(v) for v in value)
        return (
            f"({inner},)"
            if isinstance(value, tuple) and len(value) == 1
            else (f"({inner})" if isinstance(value, tuple) else f"[{inner}]")
        )
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py_str(str(k))}: {py_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no literal for {type(value).__name__}")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def comment(text: str | None) -> str:
    """Text safe inside a ``#`` comment: one line, control characters removed."""
    if not text:
        return ""
    return _one_line("".join(c if c.isprintable() else " " for c in text))


def docstring_text(text: str) -> str:
    """``text`` made safe to stand inside a triple-quoted string, on one line.

    Backslashes are doubled and ``\"\"\"`` broken up, so the text can neither end the literal nor
    form escapes; non-printable characters and newlines become spaces. For text that does not
    end the docstring (``docstring`` pads a final quote)."""
    clean = "".join(c if c.isprintable() else " " for c in text)
    return " ".join(clean.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').split())


def docstring(text: str | None, indent: str = "") -> str:
    """A complete triple-quoted docstring literal for ``text`` (empty string if none).

    Backslashes are doubled and ``\"\"\"`` broken up, so the text can neither end the literal nor
    form escapes; non-printable characters become spaces; lines are re-indented with
    ``indent``. A trailing quote gets a space, as black would add.
    """
    if not text or not text.strip():
        return ""
    clean = "".join(c if (c.isprintable() or c == "\n") else " " for c in text)
    clean = clean.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = [ln.rstrip() for ln in clean.strip().splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    body = ("\n" + indent).join(lines).replace("\n" + indent + "\n", "\n\n")
    body = "\n".join(ln if ln.strip() else "" for ln in body.split("\n"))
    if body.endswith('"'):
        body += " "  # as black pads a docstring that ends in a quote
    if len(lines) > 1:
        return f'"""{body}\n{indent}"""'
    return f'"""{body}"""'
