"""black, in-process, with a cache.

black formats about 1,500-3,000 lines/s here, while a 1,100-message catalog renders tens of
thousands of lines, so formatting is cached at two levels:

1. whole files by content hash (a warm run formats nothing);
2. top-level chunks by *shape*: templates mark statement boundaries with ``render.CHUNK``; each
   chunk is formatted alone, after every ASCII digit has become ``0`` and every identifier of
   three or more characters that is not a keyword has become ``Q`` repeated to the same length;
   identifiers and digits are put back in order afterwards. Long classes are
   split further at ``render.MEMBER`` marks, each method formatted alone. black's
   decisions depend on token kinds and line lengths, not on identifier spelling, so the
   formatted placeholder text maps back exactly; chunks that differ only in names (one per
   message, typically) are formatted once. Chunks are joined with two blank lines, which black
   keeps between top-level statements. ``tests/unit/test_format.py`` and the e2e tests check
   that every generated file is a fixed point of ``black.format_str``.

The cache lives in one file per black version under ``$XRGEN_CACHE_DIR`` (default
``~/.cache/xrgen``); it is an optimization only: a missing or corrupt cache formats from scratch.
Every run loads and (when it formatted something) rewrites the whole file, so it is bounded:
files and shapes are kept in least-recently-used order and, beyond ``FILES_BUDGET`` and
``SHAPES_BUDGET`` characters, the oldest are dropped when the cache is saved (never one the run
used). Without the bound, a pre-commit hook regenerating an edited catalog added a full copy of
the package on every edit (about 25 MB for 11,000 messages).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import keyword
import os
import pickle
import re

import black

from .render import CHUNK, MEMBER
from .runcache import cache_root
from .write import replace_atomically

_MODE = black.Mode()
_BLACK_VERSION = importlib.metadata.version("black")
_KEEP = (
    frozenset(keyword.kwlist)
    | frozenset(keyword.softkwlist)
    | frozenset({"type", "ignore", "fmt", "off", "skip", "noqa", "print", "exec"})
)
_SPLIT = "\n" + CHUNK + "\n"
_MEMBER_SPLIT = re.compile(r"\n[ ]*" + re.escape(MEMBER) + r"\n")
_WRAPPER = "class Q:\n"
_DIGIT = re.compile("[0-9]")
_WORD_SPLIT = re.compile(r"((?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*)")
_ZERO = str.maketrans("123456789", "000000000")
#: characters of formatted text the cache keeps between runs (see the module docstring)
FILES_BUDGET = 64 * 2**20
SHAPES_BUDGET = 16 * 2**20


def _key(text: str) -> str:
    """The cache key of a file's or a shape's text."""
    return hashlib.sha256(text.encode()).hexdigest()


def _is_name(word: str) -> bool:
    return len(word) >= 3 and word not in _KEEP


def _interleave(parts: list[str], items: list[str]) -> str:
    out = [""] * (len(parts) + len(items))
    out[0::2] = parts
    out[1::2] = items
    return "".join(out)


def normalize(chunk: str) -> tuple[str, list[str], list[str]]:
    """The chunk's shape: identifiers (len >= 3, not keywords) become ``Q`` * len, digits ``0``.

    Returns the shape and, in order of appearance, the replaced identifiers and the digits
    (``restore`` puts them back: black keeps the order of words and digits)."""
    pieces = _WORD_SPLIT.split(chunk)  # text, word, text, word, ..., text
    words = pieces[1::2]
    shaped = {w: "Q" * len(w) if _is_name(w) else "" for w in set(words)}
    replaced = [w for w in words if shaped[w]]
    text = _interleave(pieces[0::2], [shaped[w] or w for w in words])
    return text.translate(_ZERO), replaced, _DIGIT.findall(text)


def restore(shape: str, replaced: list[str], digits: list[str]) -> str | None:
    """Inverse of ``normalize`` on black's output of the shape; ``None`` if it does not fit."""
    pieces = _DIGIT.split(shape)
    if len(pieces) != len(digits) + 1:
        return None
    pieces = _WORD_SPLIT.split(_interleave(pieces, digits))
    words = pieces[1::2]
    names = {w: _is_name(w) for w in set(words)}
    if sum(names[w] for w in words) != len(replaced):
        return None
    it = iter(replaced)
    return _interleave(pieces[0::2], [next(it) if names[w] else w for w in words])


def _touch(entries: dict[str, str], key: str) -> str | None:
    """``entries[key]`` moved to the end (dicts keep insertion order: oldest use first)."""
    found = entries.pop(key, None)
    if found is not None:
        entries[key] = found
    return found


def _trim(entries: dict[str, str], budget: int, keep: set[str]) -> None:
    """Drop the least recently used entries not in ``keep`` until the texts fit ``budget``."""
    total = sum(map(len, entries.values()))
    for key in [k for k in entries if k not in keep]:
        if total <= budget:
            break
        total -= len(entries.pop(key))


class Formatter:
    """Formats generated modules with black; see the module docstring for the caching."""

    def __init__(
        self, cache_dir: str | os.PathLike[str] | None = None, use_cache: bool = True
    ) -> None:
        self.use_cache = use_cache
        root = cache_root(cache_dir)
        self.root = root
        self.path = root / f"black-{_BLACK_VERSION}.pickle"
        #: shapes formatted and whole files newly cached in this run (a worker process hands
        #: them back with ``merge``)
        self.new_shapes: dict[str, str] = {}
        self.new_files: dict[str, str] = {}
        self.files: dict[str, str] = {}
        self.shapes: dict[str, str] = {}
        self.dirty = False
        #: lines that went through black in this run (for bench/progress)
        self.formatted_lines = 0
        #: chunks whose shape could not be restored and were formatted directly
        self.fallbacks = 0
        #: cache keys this run used: never dropped by ``save``
        self.used: set[str] = set()
        if use_cache:
            self._load()

    def _load(self) -> None:
        try:
            with open(self.path, "rb") as f:
                files, shapes = pickle.load(f)
            if isinstance(files, dict) and isinstance(shapes, dict):
                self.files, self.shapes = files, shapes
        except (OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError):
            pass

    def save(self) -> None:
        if not (self.use_cache and self.dirty):
            return
        _trim(self.files, FILES_BUDGET, self.used)
        _trim(self.shapes, SHAPES_BUDGET, self.used)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            replace_atomically(
                self.path,
                lambda f: pickle.dump(
                    (self.files, self.shapes), f, protocol=pickle.HIGHEST_PROTOCOL
                ),
                prefix=".cache-",
            )
            self.dirty = False
        except OSError:
            pass

    def merge(
        self, shapes: dict[str, str], files: dict[str, str], formatted_lines: int
    ) -> None:
        """Take over what a worker process formatted (its new shapes and files, its line
        count), so that the cache this process saves holds them."""
        for entries, new, found in (
            (self.shapes, self.new_shapes, shapes),
            (self.files, self.new_files, files),
        ):
            entries.update(found)
            new.update(found)
            self.used.update(found)
        self.formatted_lines += formatted_lines
        self.dirty = self.dirty or bool(shapes) or bool(files)

    def chunk(self, text: str) -> str:
        """Format one top-level statement; a class whose template marked its members is
        formatted member by member (each inside a stand-in ``class Q:``), one blank line
        between members as black puts them."""
        if MEMBER not in text:
            return self._shape(text)
        head, *members = _MEMBER_SPLIT.split(text)
        parts = [self._shape(head).rstrip("\n")]
        for member in members:
            done = self._shape(_WRAPPER + member.strip("\n"))
            parts.append(done[len(_WRAPPER) :].strip("\n"))
        return "\n\n".join(parts) + "\n"

    def _shape(self, text: str) -> str:
        shape, replaced, digits = normalize(text)
        key = _key(shape)
        done = _touch(self.shapes, key)
        self.used.add(key)
        if done is None:
            done = black.format_str(shape, mode=_MODE)
            self.formatted_lines += shape.count("\n") + 1
            self.shapes[key] = done
            self.new_shapes[key] = done
            self.dirty = True
        result = restore(done, replaced, digits)
        if result is None:  # should not happen with black; never risk bad output
            self.fallbacks += 1
            self.formatted_lines += text.count("\n") + 1
            return black.format_str(text, mode=_MODE)
        return result

    def take_new(self) -> tuple[dict[str, str], dict[str, str], int]:
        """What this formatter added since the last call: new shapes, new files, lines
        formatted (a worker process returns them for ``merge``)."""
        new = (self.new_shapes, self.new_files, self.formatted_lines)
        self.new_shapes, self.new_files, self.formatted_lines = {}, {}, 0
        return new

    def has_file(self, text: str) -> bool:
        """Whether ``file(text)`` is a whole-file cache hit."""
        return _key(text) in self.files

    def file(self, text: str) -> str:
        """Format one rendered module (chunk markers are removed)."""
        key = _key(text)
        done = _touch(self.files, key)
        self.used.add(key)
        if done is None:
            chunks = [c.strip("\n") for c in text.split(_SPLIT)]
            done = (
                "\n\n\n".join(self.chunk(c).rstrip("\n") for c in chunks if c.strip())
                + "\n"
            )
            self.files[key] = done
            self.new_files[key] = done
            self.dirty = True
        return done
