"""Load stage: JSON / YAML files, split-file folders and http(s) xRegistry URLs -> ``Registry``.

Every source is parsed into plain JSON data, normalized to the current xRegistry spelling (each
legacy or loose spelling is rewritten with a warning, XRG11x) and stacked into one ``Registry``:
a later document shadows an earlier one per entity (a message, schema version or endpoint is
replaced; groups and schemas merge their children). Every entity remembers the display name of
the file it came from and its JSON Pointer inside that file.

Problems never raise: unreadable sources are ``XRG100`` (an I/O error, see ``IO_ERROR_CODES``),
syntax errors ``XRG101`` with ``line:col``, input past a limit (``limits.Limits``: document
size, nesting, YAML aliases, integer digits) or that is not JSON data (YAML tags, NaN,
duplicate keys) ``XRG104``-``XRG109`` with its pointer; the rest of the catalog still loads.
URLs are fetched over http(s) only, at every hop, within one deadline and the size cap.

Split-file folders (``index.json`` per level) follow the xRegistry path layout::

    DIR/index.json                                 the registry document (optional)
    DIR/<groups>/index.json                        map of groups
    DIR/<groups>/<gid>/index.json                  one group
    DIR/<groups>/<gid>/<resources>/<rid>/index.json  one resource (message, schema)
    DIR/<groups>/<gid>/<resources>/<rid>$meta/index.json  the resource's meta entity
    DIR/<groups>/<gid>/<resources>/<rid>/versions/<vid>/index.json  one version

Deeper files are stacked after shallower ones, so a version file wins over the same version
inlined in the registry document.
"""

from __future__ import annotations

import gc
import http.client
import json
import math
import os
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from . import formats, protocols
from .diagnostics import Diagnostics, pointer
from .limits import (
    MAX_INT_DIGITS,
    Limits,
)
from .registry import (
    Entity,
    MessageGroupEntry,
    Registry,
    SchemaEntry,
    SchemaGroupEntry,
)

#: diagnostics that mean "could not read the input" (the CLI exits 2 on them)
IO_ERROR_CODES = frozenset({"XRG100"})

_COLLECTIONS = ("messagegroups", "schemagroups", "endpoints")
#: legacy (CNCF discovery / early xRegistry drafts) spellings of root collections
_ROOT_RENAMES = (
    ("definitionGroups", "messagegroups"),
    ("definitiongroups", "messagegroups"),
    ("schemaGroups", "schemagroups"),
)
_URL_RE = re.compile(r"^https?://", re.IGNORECASE)
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def is_io_error(code: str) -> bool:
    """True when a diagnostic code reports an unreadable input (exit code 2 in the CLI)."""
    return code in IO_ERROR_CODES


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building large acyclic JSON trees.

    Parsing and walking a big catalog allocates millions of containers; the collector's full
    passes over them made a 10x larger catalog take 25x longer. Catalog data holds no cycles,
    so pausing is safe; the previous state is restored on exit."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


# --------------------------------------------------------------------------------------------
# format / protocol spelling helpers (used by validate and resolve)

_DRAFT_RE = re.compile(r"^(?:draft[-/_ ]?)?0?(\d)$|^(?:draft[-/_ ]?)?(20\d\d-\d\d)$")


@lru_cache(maxsize=1024)
def _split_format(s: str) -> tuple[str, str]:
    name, _, version = s.strip().lower().partition("/")
    return name.strip(), version.strip()


def schema_format_family(s: str | None) -> str | None:
    """The family id (``"json"``, ``"avro"``, ``"protobuf"``, ``"xsd"``: see ``formats``) of a
    schema format string in any common spelling (``JsonSchema/draft-07``, ``JSONSchema/Draft-07``,
    ``jsonschema``, ``AVRO/1.11``, ``Proto/3``, ``XSD/1.1``, ...); ``None`` for other formats
    (JsonStructure, ...) or no string."""
    if not isinstance(s, str) or not s.strip():
        return None
    name, _ = _split_format(s)
    return formats.family(name)


def schema_format_version(s: str | None) -> str | None:
    """The normalized version of a schema format string, or ``None`` when it has none.

    JSON Schema: ``draft-04`` ... ``draft-07``, ``2019-09``, ``2020-12`` (``draft/2020-12``,
    ``Draft-07``, ``draft7`` all recognized). Protobuf: the syntax major (``"3"`` for
    ``Protobuf/3.0`` or ``proto3``). Avro and others: the version text as written.
    """
    if not isinstance(s, str) or not s.strip():
        return None
    family = schema_format_family(s)
    name, version = _split_format(s)
    if family == "protobuf" and name in ("proto3", "proto2"):
        return name[-1]
    if not version:
        return None
    if family == "json":
        m = _DRAFT_RE.match(version.replace("draft/", ""))
        if m:
            return f"draft-0{m.group(1)}" if m.group(1) else m.group(2)
        return version
    if family == "protobuf":
        return version.split(".", 1)[0]
    return s.strip().partition("/")[2].strip()


def is_cloudevents(s: str | None) -> bool:
    """True for ``CloudEvents/1.0`` in any letter case (and bare ``CloudEvents``)."""
    if not isinstance(s, str):
        return False
    name, version = _split_format(s)
    return name == "cloudevents" and version in ("", "1.0", "1")


# --------------------------------------------------------------------------------------------
# reading sources


class _SourceError(Exception):
    """A source could not be read or parsed; carries the diagnostic to report."""

    def __init__(self, code: str, message: str, ptr: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.pointer = ptr


#: what ``parse_text`` raises (``code``, ``message``, ``pointer``)
SourceError = _SourceError


#: a document too large (bytes) or a string value too long
XRG_TOO_LARGE = "XRG104"
#: nesting deeper than ``Limits.max_depth``
XRG_TOO_DEEP = "XRG105"
#: YAML aliases that repeat too much content, or refer to themselves
XRG_ALIASES = "XRG107"
#: a value that is not JSON data: a YAML tag like !!set, !!binary or !!python/..., NaN or
#: Infinity, an integer with more than ``MAX_INT_DIGITS`` digits
XRG_NOT_JSON = "XRG108"
#: the same key twice in one object
XRG_DUPLICATE_KEY = "XRG109"
#: a YAML key that is not a string (``1.0:``, ``true:``): read as its text, as written
XRG_KEY_NOT_STRING = "XRG119"

_DEFAULT_LIMITS = Limits()


def _scan(data: Any, limits: Limits, strings: bool) -> int | None:
    """One pass over a parsed document, level by level: the number of object keys, or
    ``None`` when something is nested deeper than ``max_depth`` or (with ``strings``) a string
    value is longer than ``max_string_chars`` (``_check_tree`` then finds where). Iterative:
    a deep document must not exhaust the interpreter stack."""
    smax = limits.max_string_chars
    level: list[Any] = [data]
    depth = 1
    keys = 0
    while level:
        if depth > limits.max_depth:
            return None
        below: list[Any] = []
        extend = below.extend
        for node in level:
            if type(node) is dict:
                keys += len(node)
                values: Any = node.values()
            else:
                values = node
            extend([v for v in values if type(v) is dict or type(v) is list])
            if strings:
                for v in values:
                    if type(v) is str and len(v) > smax:
                        return None
        level = below
        depth += 1
    return keys


def _first_too_deep(data: Any, limit: int) -> str | None:
    """The JSON Pointer of the first container nested deeper than ``limit``, else ``None``."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return _path_to(data, node)
        for v in node.values() if type(node) is dict else node:
            if type(v) is dict or type(v) is list:
                stack.append((v, depth + 1))
    return None


def _path_to(root: Any, target: Any) -> str:
    """The JSON Pointer of the container ``target`` (by identity) inside ``root``."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if node is target:
            return pointer(*path)
        items = node.items() if type(node) is dict else enumerate(node)
        for k, v in items:
            if type(v) is dict or type(v) is list:
                stack.append((v, (*path, str(k))))
    return ""


def _long_string(data: Any, limit: int) -> str | None:
    """The pointer of the first string (value or key) longer than ``limit`` characters."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(data, ())]
    while stack:
        node, path = stack.pop()
        items = node.items() if type(node) is dict else enumerate(node)
        for k, v in items:
            if (type(k) is str and len(k) > limit) or (type(v) is str and len(v) > limit):
                return pointer(*path, str(k))
            if type(v) is dict or type(v) is list:
                stack.append((v, (*path, str(k))))
    return None


def _refuse_constant(name: str) -> Any:
    raise _SourceError(XRG_NOT_JSON, f"{name} is not a JSON number")


#: a key in JSON text: a string, optional whitespace, a colon
_JSON_KEY = re.compile(r'"\s*:')


def _parse_json(text: str, limits: Limits) -> Any:
    try:
        # 1e400 would parse as inf: catalogs hold few floats, so checking each costs little
        data = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError as e:
        raise _SourceError(
            "XRG101", f"invalid JSON at line {e.lineno}:{e.colno}: {e.msg}"
        ) from None
    except RecursionError:
        raise _SourceError(
            XRG_TOO_DEEP, f"arrays and objects nested deeper than {limits.max_depth} levels"
        ) from None
    except ValueError:  # int() past sys.get_int_max_str_digits()
        raise _SourceError(
            XRG_NOT_JSON, f"an integer has more than {MAX_INT_DIGITS} digits"
        ) from None
    _check_tree(data, limits, text)
    return data


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _SourceError(XRG_NOT_JSON, f"{text} is too large for a floating-point number")
    return value


def _check_tree(data: Any, limits: Limits, text: str) -> None:
    """Depth, string length and duplicate keys of a parsed JSON document.

    Duplicate keys: every key in the text is a string followed by a colon, so when the text
    has as many ``":`` as the parsed objects have keys, no key was repeated (the fast path,
    a C-speed count); otherwise (a repeat, or ``":`` inside a string) the text is parsed
    again, seeing every object's key list."""
    if type(data) is not dict and type(data) is not list:
        if type(data) is str and len(data) > limits.max_string_chars:
            raise _SourceError(
                XRG_TOO_LARGE, f"a string longer than {limits.max_string_chars} characters"
            )
        return
    # no string can be longer than the text it is in
    keys = _scan(data, limits, strings=len(text) > limits.max_string_chars)
    if keys is None:
        deep = _first_too_deep(data, limits.max_depth)
        if deep is not None:
            raise _SourceError(
                XRG_TOO_DEEP,
                f"arrays and objects nested deeper than {limits.max_depth} levels",
                deep,
            )
        long = _long_string(data, limits.max_string_chars)
        raise _SourceError(
            XRG_TOO_LARGE, f"a string longer than {limits.max_string_chars} characters", long or ""
        )
    if keys != text.count('":') and keys != _JSON_KEY.subn("", text)[1]:
        _find_duplicate_key(text)


def _find_duplicate_key(text: str) -> None:
    """Parse ``text`` again with every object's key list; raise XRG109 at the first repeat."""
    duplicates: list[tuple[dict[str, Any], str]] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        d = dict(pairs)
        if len(d) != len(pairs):
            seen: set[str] = set()
            for k, _ in pairs:
                if k in seen:
                    duplicates.append((d, k))
                    break
                seen.add(k)
        return d

    data = json.loads(text, object_pairs_hook=pairs_hook)
    if duplicates:
        d, key = duplicates[0]
        raise _SourceError(
            XRG_DUPLICATE_KEY,
            f"duplicate key {key!r}: an object may hold each key once",
            _path_to(data, d) + pointer(key),
        )


_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_YAML = "tag:yaml.org,2002:"
#: the YAML tags that are JSON data (timestamps stay strings: the resolver is removed below)
_YAML_SCALARS = frozenset(_YAML + t for t in ("str", "int", "float", "bool", "null"))


class _StrTimestampLoader(_BaseLoader):  # type: ignore[misc]
    """Safe YAML loader that keeps timestamps as strings (catalogs are JSON data)."""


_StrTimestampLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _YAML + "timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _YamlBuilder:
    """JSON data from a composed YAML node graph, within ``Limits``.

    PyYAML's constructor shares the object of an anchor between its aliases, so an alias bomb
    stays small until something walks it; this builder counts what the aliases expand to and
    stops past ``max_alias_nodes``, refuses an alias inside its own anchor, tags that are not
    JSON data (``!!set``, ``!!binary``, ``!!python/...``), NaN/Infinity, over-long integers and
    duplicate keys, and reads a non-string key as its text (warning)."""

    def __init__(self, loader: Any, limits: Limits) -> None:
        self.loader = loader
        self.limits = limits
        self.sizes: dict[int, int] = {}
        self.expanded = 0
        self.distinct = 0
        self.warnings: list[tuple[str, str]] = []

    def check_aliases(self, root: yaml.Node) -> None:
        """Count the nodes of the document as aliases expand it (memoized per node, so the
        count itself is linear in the document); refuse recursion and bombs."""
        sizes = self.sizes
        state: dict[int, int] = {}  # 1 on the path, 2 done
        stack: list[tuple[yaml.Node, bool]] = [(root, False)]
        while stack:
            node, done = stack.pop()
            key = id(node)
            if done:
                total = 1
                for child in _children(node):
                    total += sizes[id(child)]
                sizes[key] = total
                state[key] = 2
                if total - self.distinct > self.limits.max_alias_nodes:
                    self._bomb(node)
                continue
            st = state.get(key)
            if st == 2:
                continue
            if st == 1:
                raise _SourceError(
                    XRG_ALIASES,
                    f"a YAML alias refers to its own anchor{_mark(node)}: the document is infinite",
                )
            state[key] = 1
            self.distinct += 1
            stack.append((node, True))
            for child in _children(node):
                cst = state.get(id(child))
                if cst == 1:
                    raise _SourceError(
                        XRG_ALIASES,
                        f"a YAML alias refers to its own anchor{_mark(child)}: "
                        "the document is infinite",
                    )
                if cst is None:
                    stack.append((child, False))
        if sizes[id(root)] - self.distinct > self.limits.max_alias_nodes:
            self._bomb(root)

    def _bomb(self, node: yaml.Node) -> None:
        raise _SourceError(
            XRG_ALIASES,
            f"YAML aliases expand the document by more than {self.limits.max_alias_nodes} "
            f"nodes{_mark(node)}",
        )

    def build(self, node: yaml.Node, path: tuple[str, ...], depth: int) -> Any:
        if depth > self.limits.max_depth:
            raise _SourceError(
                XRG_TOO_DEEP,
                f"arrays and objects nested deeper than {self.limits.max_depth} levels",
                pointer(*path),
            )
        tag = node.tag
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node, path)
        if isinstance(node, yaml.SequenceNode) and tag == _YAML + "seq":
            return [self.build(v, (*path, str(i)), depth + 1) for i, v in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode) and tag == _YAML + "map":
            return self._mapping(node, path, depth)
        raise _SourceError(
            XRG_NOT_JSON, f"YAML tag {tag} is not JSON data{_mark(node)}", pointer(*path)
        )

    def _mapping(self, node: yaml.MappingNode, path: tuple[str, ...], depth: int) -> Any:
        own = [(k, v) for k, v in node.value if k.tag != _YAML + "merge"]
        merged: dict[str, Any] = {}
        if len(own) != len(node.value):  # merge keys (<<: *base): own keys override them
            self.loader.flatten_mapping(node)
            own_ids = {id(k) for k, _ in own}
            inherited = [(k, v) for k, v in node.value if id(k) not in own_ids]
            merged = self._pairs(inherited, path, depth, duplicates=False)
        return merged | self._pairs(own, path, depth, duplicates=True)

    def _pairs(
        self,
        pairs: list[tuple[yaml.Node, yaml.Node]],
        path: tuple[str, ...],
        depth: int,
        duplicates: bool,
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for knode, vnode in pairs:
            if not isinstance(knode, yaml.ScalarNode):
                raise _SourceError(
                    XRG_NOT_JSON, f"a YAML key is not a scalar{_mark(knode)}", pointer(*path)
                )
            key = knode.value
            if knode.tag != _YAML + "str" and key != _yaml_key(self._key_value(knode)):
                self.warnings.append(
                    (
                        pointer(*path, key),
                        f"YAML key {key} is a {knode.tag.rsplit(':', 1)[-1]}, not a string; read as "
                        f"the string {key!r} as written, not {_yaml_key(self._key_value(knode))!r}"
                        " (quote it to say so)",
                    )
                )
            if duplicates and key in out:
                raise _SourceError(
                    XRG_DUPLICATE_KEY,
                    f"duplicate key {key!r}{_mark(knode)}: an object may hold each key once",
                    pointer(*path, key),
                )
            if len(key) > self.limits.max_string_chars:
                raise _SourceError(
                    XRG_TOO_LARGE,
                    f"a key longer than {self.limits.max_string_chars} characters",
                    pointer(*path),
                )
            out[key] = self.build(vnode, (*path, key), depth + 1)
        return out

    def _key_value(self, node: yaml.ScalarNode) -> Any:
        try:
            return self._scalar(node, ())
        except _SourceError:
            return None

    def _scalar(self, node: yaml.ScalarNode, path: tuple[str, ...]) -> Any:
        tag = node.tag
        if tag not in _YAML_SCALARS:
            raise _SourceError(
                XRG_NOT_JSON, f"YAML tag {tag} is not JSON data{_mark(node)}", pointer(*path)
            )
        text = node.value
        if tag == _YAML + "str":
            if len(text) > self.limits.max_string_chars:
                raise _SourceError(
                    XRG_TOO_LARGE,
                    f"a string longer than {self.limits.max_string_chars} characters",
                    pointer(*path),
                )
            return text
        if tag == _YAML + "int" and sum(c.isdigit() for c in text) > MAX_INT_DIGITS:
            raise _SourceError(
                XRG_NOT_JSON,
                f"an integer has more than {MAX_INT_DIGITS} digits{_mark(node)}",
                pointer(*path),
            )
        value = self.loader.construct_object(node)
        if isinstance(value, float) and not math.isfinite(value):
            raise _SourceError(
                XRG_NOT_JSON, f"{text} is not a JSON number{_mark(node)}", pointer(*path)
            )
        return value


def _yaml_key(k: Any) -> str:
    """How a non-string YAML key reads as a string by its value (``1.00`` -> ``1.0``)."""
    if isinstance(k, bool):
        return "true" if k else "false"
    return "null" if k is None else str(k)


def _children(node: yaml.Node) -> Iterator[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        yield from node.value
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            yield k
            yield v


def _mark(node: yaml.Node) -> str:
    mark = node.start_mark
    return f" (line {mark.line + 1}:{mark.column + 1})" if mark is not None else ""


def _parse_yaml(text: str, limits: Limits, diags: Diagnostics | None, file: str) -> Any:
    loader = _StrTimestampLoader(text)
    try:
        try:
            node = loader.get_single_node()
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f" at line {mark.line + 1}:{mark.column + 1}" if mark is not None else ""
            problem = getattr(e, "problem", None) or str(e).splitlines()[0]
            raise _SourceError("XRG101", f"invalid YAML{where}: {problem}") from None
        except RecursionError:  # the pure-Python composer (no libyaml)
            raise _SourceError(
                XRG_TOO_DEEP, f"arrays and objects nested deeper than {limits.max_depth} levels"
            ) from None
        if node is None:
            return None
        builder = _YamlBuilder(loader, limits)
        if "&" in text:  # without an anchor there is no alias, no bomb, no recursion
            builder.check_aliases(node)
        try:
            data = builder.build(node, (), 1)
        except yaml.YAMLError as e:  # a constructor's complaint, e.g. a merge key on a list
            problem = getattr(e, "problem", None) or str(e).splitlines()[0]
            raise _SourceError(XRG_NOT_JSON, f"invalid YAML{_mark(node)}: {problem}") from None
    finally:
        loader.dispose()
    if diags is not None:
        for ptr, message in builder.warnings:
            diags.warning(XRG_KEY_NOT_STRING, file, ptr, message)
    return data


def parse_text(
    text: str,
    yaml_syntax: bool,
    limits: Limits = _DEFAULT_LIMITS,
    diags: Diagnostics | None = None,
    file: str = "",
) -> Any:
    """Parse a document into JSON data within ``limits``; raises ``_SourceError`` (XRG101 with
    line:col on syntax errors, XRG104-109 past a limit or for data that is not JSON, with the
    pointer where known). Warnings (non-string YAML keys) go to ``diags``."""
    if yaml_syntax:
        return _parse_yaml(text, limits, diags, file)
    return _parse_json(text, limits)


def _is_yaml_name(name: str) -> bool:
    return name.lower().endswith((".yaml", ".yml"))


def _read_file(path: Path, limits: Limits, diags: Diagnostics, file: str) -> Any:
    try:
        with path.open("rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > limits.max_document_bytes:
                raise _too_large(limits)
            raw = f.read(limits.max_document_bytes + 1)
        if len(raw) > limits.max_document_bytes:  # a file that grows, a device
            raise _too_large(limits)
        text = raw.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise _SourceError("XRG100", f"cannot read file: {_os_reason(e)}") from None
    return parse_text(text, _is_yaml_name(path.name), limits, diags, file)


def _too_large(limits: Limits) -> _SourceError:
    return _SourceError(
        XRG_TOO_LARGE,
        f"the document is larger than {limits.max_document_bytes} bytes "
        "(--max-document-bytes, [tool.xrgen] max-document-bytes)",
    )


def _os_reason(e: Exception) -> str:
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return str(e)


def display_name(source: str, cwd: Path | None = None) -> str:
    """How diagnostics name a source: URLs as given; a relative path as given (normalized,
    ``/``-separated); an absolute path relative to the cwd when it lies below it."""
    if _URL_RE.match(source):
        return source
    p = Path(source)
    if p.is_absolute():
        try:
            p = p.relative_to(cwd or Path.cwd())
        except ValueError:
            return p.as_posix()
    return Path(os.path.normpath(p)).as_posix()


# -------------------------------------------------------------------------------- http(s)


def _add_query(url: str, **params: str) -> str:
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    names = {k for k, _ in query}
    query += [(k, v) for k, v in params.items() if k not in names]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query, safe="*,")))


class _Deadline:
    """One deadline for every fetch of a URL source: when it passes, every socket opened
    for the source is shut down, which ends any read blocked on it (a server that drips
    its headers or body one byte at a time is cut off on time, not per read)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.expired = False
        self._lock = threading.Lock()
        self._socks: list[socket.socket] = []
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def remaining(self) -> float:
        left = self.end - time.monotonic()
        if left <= 0 or self.expired:
            raise self.error()
        return left

    def error(self) -> _SourceError:
        return _SourceError(
            "XRG100",
            f"fetching took longer than {self.seconds:g} s "
            "(--fetch-timeout, [tool.xrgen] fetch-timeout)",
        )

    def add(self, sock: socket.socket) -> None:
        with self._lock:
            self._socks.append(sock)
            if not self.expired:
                return
        self._shutdown(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            socks = list(self._socks)
        for sock in socks:
            self._shutdown(sock)

    @staticmethod
    def _shutdown(sock: socket.socket) -> None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # closed already

    def cancel(self) -> None:
        self._timer.cancel()


def _connection(base: type[http.client.HTTPConnection], deadline: _Deadline) -> Any:
    class Connection(base):  # type: ignore[valid-type, misc]
        def connect(self) -> None:
            super().connect()
            deadline.add(self.sock)

    return Connection


class _HttpHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self.deadline = deadline

    def http_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_connection(http.client.HTTPConnection, self.deadline), req)


class _HttpsHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self.deadline = deadline

    def https_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_connection(http.client.HTTPSConnection, self.deadline), req)


class _RedirectHandler(urllib.request.HTTPRedirectHandler):
    """Redirects stay on http(s): ``file://``, ``ftp://`` and every other scheme are refused."""

    max_redirections = 10

    def http_error_302(
        self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any
    ) -> Any:
        newurl = headers.get("location") or headers.get("uri")
        if newurl is not None:
            target = urllib.parse.urljoin(req.full_url, newurl)
            if not _URL_RE.match(target):
                raise _SourceError(
                    "XRG100",
                    f"{req.full_url} redirects to {target!r}: only http(s) is followed",
                )
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    """An opener that speaks http and https only (no file, ftp or data handlers)."""
    opener = urllib.request.OpenerDirector()
    for handler in (
        urllib.request.ProxyHandler(),
        urllib.request.UnknownHandler(),
        _HttpHandler(deadline),
        _HttpsHandler(deadline),
        urllib.request.HTTPDefaultErrorHandler(),
        _RedirectHandler(),
        urllib.request.HTTPErrorProcessor(),
    ):
        opener.add_handler(handler)
    return opener


def _fetch(url: str, deadline: _Deadline, limits: Limits, diags: Diagnostics) -> Any:
    """GET one URL within the deadline and size cap and parse it (JSON, or YAML by
    name/content type)."""
    if not _URL_RE.match(url):
        raise _SourceError("XRG100", f"refusing to fetch {url!r}: only http(s) URLs are loaded")
    req = urllib.request.Request(
        url, headers={"Accept": "application/json, application/yaml;q=0.9, */*;q=0.1"}
    )
    chunks: list[bytes] = []
    try:
        with _opener(deadline).open(req, timeout=deadline.remaining()) as resp:
            length = resp.headers.get("Content-Length", "")
            if length.isdigit() and int(length) > limits.max_document_bytes:
                raise _too_large(limits)
            size = 0
            while chunk := resp.read(65536):
                size += len(chunk)
                if size > limits.max_document_bytes:
                    raise _too_large(limits)
                chunks.append(chunk)
                deadline.remaining()
            ctype = resp.headers.get("Content-Type", "")
        deadline.remaining()
    except urllib.error.HTTPError as e:
        raise _SourceError("XRG100", f"HTTP {e.code} {e.reason} fetching {url}") from None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as e:
        if deadline.expired:
            raise deadline.error() from None
        reason = getattr(e, "reason", e)
        raise _SourceError("XRG100", f"cannot fetch {url}: {reason}") from None
    try:
        text = b"".join(chunks).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _SourceError("XRG101", f"{url} did not return UTF-8 text") from None
    path = urllib.parse.urlsplit(url).path
    return parse_text(text, _is_yaml_name(path) or "yaml" in ctype.lower(), limits, diags, url)


def _load_url(url: str, limits: Limits, diags: Diagnostics) -> Any:
    """Fetch an xRegistry document or server root. A server root that only links its
    collections (``messagegroupsurl`` without ``messagegroups``) is fetched again with
    ``?inline=*``; collections still missing are fetched from their ``<coll>url`` (http(s)
    only). All fetches share one deadline (``Limits.fetch_timeout``)."""
    deadline = _Deadline(limits.fetch_timeout)
    try:
        doc = _fetch(url, deadline, limits, diags)
        if not isinstance(doc, dict) or not _missing_collections(doc):
            return doc
        try:
            inlined = _fetch(_add_query(url, inline="*"), deadline, limits, diags)
        except _SourceError as e:
            if deadline.expired:
                raise
            if e.code != "XRG100":
                raise
            inlined = None  # a server without the inline flag: fetch the collections instead
        if isinstance(inlined, dict):
            doc = inlined
        for coll in _missing_collections(doc):
            link = urllib.parse.urljoin(url, str(doc[coll + "url"]))
            part = _fetch(_add_query(link, inline="*"), deadline, limits, diags)
            if isinstance(part, dict):
                doc[coll] = part
        return doc
    finally:
        deadline.cancel()


def _missing_collections(doc: dict[str, Any]) -> list[str]:
    return [
        c
        for c in _COLLECTIONS
        if c not in doc and isinstance(doc.get(c + "url"), str) and doc.get(c + "count") != 0
    ]


# ---------------------------------------------------------------------------- normalization


class _Norm:
    """Normalization helpers bound to one entity's location (file + pointer)."""

    __slots__ = ("diags", "file", "ptr")

    def __init__(self, diags: Diagnostics, file: str, ptr: str) -> None:
        self.diags = diags
        self.file = file
        self.ptr = ptr

    def rename(self, data: dict[str, Any], old: str, new: str, code: str = "XRG110") -> None:
        """Rename a legacy attribute (only when the current spelling is absent)."""
        if old in data and new not in data:
            data[new] = data.pop(old)
            self.diags.warning(
                code,
                self.file,
                self.ptr + pointer(old),
                f"legacy attribute '{old}' read as '{new}'",
            )

    def ensure_id(
        self, data: dict[str, Any], singular: str, key: str, warn_missing: bool = False
    ) -> None:
        """``id`` -> ``<singular>id``; a missing id is the map key (a warning only when
        ``warn_missing``: messages, whose id should be the CloudEvents type); a different id
        is an error."""
        idname = singular + "id"
        if "id" in data and idname not in data:
            data[idname] = data.pop("id")
            self.diags.warning(
                "XRG111", self.file, self.ptr + "/id", f"legacy attribute 'id' read as '{idname}'"
            )
        value = data.get(idname)
        if value is None:
            data[idname] = key
            if warn_missing:
                self.diags.warning(
                    "XRG112", self.file, self.ptr, f"'{idname}' missing; using the map key '{key}'"
                )
        elif value != key:
            self.diags.error(
                "XRG113",
                self.file,
                self.ptr + pointer(idname),
                f"'{idname}' {value!r} differs from its map key {key!r}",
            )

    def format_to_envelope_or_protocol(self, data: dict[str, Any]) -> None:
        """Legacy ``format``: ``CloudEvents/1.0`` -> ``envelope``; a protocol -> ``protocol``."""
        fmt = data.get("format")
        if is_cloudevents(fmt):
            self.rename(data, "format", "envelope")
        elif protocols.lookup(fmt) is not None:
            self.rename(data, "format", "protocol")


_ATTR_TYPE_ALIASES = {
    "datetime": "timestamp",
    "date-time": "timestamp",
    "uri-reference": "urireference",
    "uri-template": "uritemplate",
    "int": "integer",
    "bool": "boolean",
}

_MESSAGE_RENAMES = (
    ("metadata", "envelopemetadata"),
    ("schemaurl", "dataschemauri"),
    ("schemauri", "dataschemauri"),
    ("dataschemaurl", "dataschemauri"),
    ("schema", "dataschema"),
    ("basemessageurl", "basemessage"),
    ("basemessageuri", "basemessage"),
    ("protocolmetadata", "protocoloptions"),
)

def normalize_message(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of a message in current spelling (see module docstring); warnings for each fix."""
    data = dict(data)
    n = _Norm(diags, file, ptr)
    n.ensure_id(data, "message", key, warn_missing=True)
    n.format_to_envelope_or_protocol(data)
    for old, new in _MESSAGE_RENAMES:
        n.rename(data, old, new)
    em = data.get("envelopemetadata")
    if isinstance(em, dict):
        data["envelopemetadata"] = _normalize_envelopemetadata(em, n)
    _normalize_entity_options(data, n)
    return data


def _normalize_envelopemetadata(em: dict[str, Any], n: _Norm) -> dict[str, Any]:
    inner = em.get("attributes")
    if (
        len(em) == 1
        and isinstance(inner, dict)
        and all(isinstance(v, dict) for v in inner.values())
    ):
        em = inner  # the spec's `envelopemetadata.attributes` form, read flat
    out = dict(em)
    base = n.ptr + "/envelopemetadata"
    for name, attr in em.items():
        if isinstance(attr, dict) and isinstance(attr.get("type"), str):
            alias = _ATTR_TYPE_ALIASES.get(attr["type"].lower())
            if alias is not None:
                out[name] = {**attr, "type": alias}
                n.diags.warning(
                    "XRG116",
                    n.file,
                    base + pointer(name, "type"),
                    f"attribute type '{attr['type']}' read as '{alias}'",
                )
    return out


def _normalize_protocoloptions(po: dict[str, Any], protocol: Any, n: _Norm) -> dict[str, Any]:
    proto = protocols.lookup(protocol)
    po = dict(po)
    if proto is None:
        return po
    n2 = _Norm(n.diags, n.file, n.ptr + "/protocoloptions")
    wrapped = po.get(proto.wrapper) if proto.wrapper else None
    if proto.wrapper and isinstance(wrapped, dict) and not any(k in po for k in proto.scalars):
        po.pop(proto.wrapper)
        for k, v in wrapped.items():
            po.setdefault(k, v)
        n.diags.warning(
            "XRG117",
            n.file,
            n2.ptr + pointer(proto.wrapper),
            f"legacy {proto.family} '{proto.wrapper}' wrapper read as top-level protocol options",
        )
    for old, new in proto.renames:
        n2.rename(po, old, new, "XRG117")
    return po


def normalize_messagegroup(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of a message group (its ``messages`` included, legacy ``definitions`` renamed)."""
    data = dict(data)
    n = _Norm(diags, file, ptr)
    n.ensure_id(data, "messagegroup", key)
    n.format_to_envelope_or_protocol(data)
    n.rename(data, "definitions", "messages")
    _normalize_entity_options(data, n)
    return data


def _normalize_entity_options(data: dict[str, Any], n: _Norm) -> None:
    po = data.get("protocoloptions")
    if isinstance(po, dict):
        data["protocoloptions"] = _normalize_protocoloptions(po, data.get("protocol"), n)


def normalize_endpoint(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of an endpoint: legacy ``config`` -> ``protocol``/``protocoloptions``, ``format``
    -> ``envelope``, string ``usage`` -> list, inline messages normalized like group messages."""
    data = dict(data)
    n = _Norm(diags, file, ptr)
    n.ensure_id(data, "endpoint", key)
    n.format_to_envelope_or_protocol(data)
    n.rename(data, "definitions", "messages")
    config = data.get("config")
    if isinstance(config, dict) and "protocoloptions" not in data:
        options = dict(data.pop("config"))
        if "protocol" in options and "protocol" not in data:
            data["protocol"] = options.pop("protocol")
        eps = options.get("endpoints")
        if isinstance(eps, list):
            options["endpoints"] = [{"uri": e} if isinstance(e, str) else e for e in eps]
        data["protocoloptions"] = options
        diags.warning(
            "XRG110",
            file,
            ptr + "/config",
            "legacy attribute 'config' read as 'protocol' and 'protocoloptions'",
        )
    _normalize_entity_options(data, n)
    if isinstance(data.get("usage"), str):
        data["usage"] = [data["usage"]]
        diags.warning("XRG110", file, ptr + "/usage", "'usage' is a single string; read as a list")
    msgs = data.get("messages")
    if isinstance(msgs, dict):
        mptr = ptr + "/messages"
        data["messages"] = {
            mid: normalize_message(m, mid, file, mptr + pointer(mid), diags)
            if isinstance(m, dict)
            else m
            for mid, m in msgs.items()
        }
    return data


_RESOURCE_LEVEL = (
    "versions",
    "meta",
    "schemaid",
    "self",
    "xid",
    "metaurl",
    "versionsurl",
    "versionscount",
)
_META_ATTRS = (
    "xref",
    "defaultversionid",
    "defaultversionurl",
    "defaultversionsticky",
    "readonly",
    "compatibility",
)


def normalize_schema(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of a schema resource. Top-level ``defaultversionid``/``xref`` move into ``meta``;
    a resource holding its document directly (``schema``/``schemaurl``/``schemabase64``) and
    no ``versions`` gets one version (its ``versionid``, else ``"1"``)."""
    data = dict(data)
    n = _Norm(diags, file, ptr)
    n.ensure_id(data, "schema", key)
    meta = dict(data["meta"]) if isinstance(data.get("meta"), dict) else {}
    for attr in ("defaultversionid", "xref"):
        if attr in data and attr not in meta:
            meta[attr] = data.pop(attr)
            diags.warning(
                "XRG110",
                file,
                ptr + pointer(attr),
                f"'{attr}' belongs in the resource's 'meta'; read as 'meta.{attr}'",
            )
    if meta:
        data["meta"] = meta
    n.rename(data, "schemauri", "schemaurl")
    has_doc = any(k in data for k in ("schema", "schemaurl", "schemabase64"))
    if "versions" not in data and has_doc:
        vid = str(data.get("versionid") or "1")
        version = {k: v for k, v in data.items() if k not in _RESOURCE_LEVEL}
        version["versionid"] = vid
        data["versions"] = {vid: version}
        diags.warning(
            "XRG115",
            file,
            ptr,
            f"schema has no 'versions'; its document is read as version '{vid}'",
        )
    return data


def normalize_version(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of a schema version (legacy ``id`` -> ``versionid``; missing -> map key, silently,
    as versions are nearly always written without their id)."""
    data = dict(data)
    n = _Norm(diags, file, ptr)
    n.ensure_id(data, "version", key)
    n.rename(data, "schemauri", "schemaurl")
    return data


def normalize_schemagroup(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of a schema group (legacy ``id`` -> ``schemagroupid``)."""
    data = dict(data)
    _Norm(diags, file, ptr).ensure_id(data, "schemagroup", key)
    return data


# ------------------------------------------------------------------------------- stacking


class _Stacker:
    """Adds documents (or split-file pieces) to a ``Registry``, later shadowing earlier."""

    def __init__(self, reg: Registry, diags: Diagnostics) -> None:
        self.reg = reg
        self.diags = diags
        #: message groups made from endpoints' own messages (a later endpoint replaces them)
        self.endpoint_groups: set[str] = set()

    # -- whole documents
    def document(self, doc: Any, file: str, ptr: str = "", whole: bool = False) -> None:
        """Add a document; ``whole``: a complete catalog (not a split folder's root index),
        which must hold at least one collection."""
        if not isinstance(doc, dict):
            self.diags.error(
                "XRG102", file, ptr, f"a catalog document must be an object, not {_kind(doc)}"
            )
            return
        for old, new in _ROOT_RENAMES:
            if old in doc and new not in doc:
                doc = {new if k == old else k: v for k, v in doc.items()}
                self.diags.warning(
                    "XRG110", file, ptr + pointer(old), f"legacy collection '{old}' read as '{new}'"
                )
        if whole and not any(coll in doc for coll in _COLLECTIONS):
            self.diags.error(
                "XRG114",
                file,
                ptr,
                "the document holds no xRegistry collection (messagegroups, schemagroups,"
                " endpoints); it has "
                + (", ".join(repr(k) for k in list(doc)[:8]) or "no attributes"),
            )
        for coll, add in (
            ("messagegroups", self.messagegroup),
            ("schemagroups", self.schemagroup),
            ("endpoints", self.endpoint),
        ):
            if coll in doc:
                self.collection(doc[coll], file, ptr + "/" + coll, add)

    def collection(
        self, items: Any, file: str, ptr: str, add: Callable[[str, Any, str, str], None]
    ) -> None:
        if not isinstance(items, dict):
            if items is not None:
                self.diags.error(
                    "XRG103",
                    file,
                    ptr,
                    f"a collection must be an object keyed by id, not {_kind(items)}",
                )
            return
        for key, item in items.items():
            add(key, item, file, ptr + pointer(key))

    def _entity_ok(self, item: Any, file: str, ptr: str) -> bool:
        if isinstance(item, dict):
            return True
        self.diags.error("XRG103", file, ptr, f"an entity must be an object, not {_kind(item)}")
        return False

    # -- message groups
    def messagegroup(self, gid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        data = normalize_messagegroup(item, gid, file, ptr, self.diags)
        msgs = data.pop("messages", None)
        entry = self.reg.messagegroups.get(gid)
        if entry is None:
            entry = self.reg.messagegroups[gid] = MessageGroupEntry(Entity(data, file, ptr))
        else:
            entry.entity = Entity({**entry.entity.data, **data}, file, ptr)
        mkey = "definitions" if "definitions" in item and "messages" not in item else "messages"
        if msgs is not None:
            self.collection(
                msgs, file, ptr + "/" + mkey, lambda k, m, f, p: self.message(gid, k, m, f, p)
            )

    def message(self, gid: str, mid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        entry = self.reg.messagegroups.get(gid)
        if entry is None:  # a split file for a group the documents never declared
            entry = self.reg.messagegroups[gid] = MessageGroupEntry(
                Entity({"messagegroupid": gid}, file, ptr)
            )
        entry.messages[mid] = Entity(normalize_message(item, mid, file, ptr, self.diags), file, ptr)

    # -- schema groups
    def schemagroup(self, gid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        data = normalize_schemagroup(item, gid, file, ptr, self.diags)
        schemas = data.pop("schemas", None)
        entry = self.reg.schemagroups.get(gid)
        if entry is None:
            entry = self.reg.schemagroups[gid] = SchemaGroupEntry(Entity(data, file, ptr))
        else:
            entry.entity = Entity({**entry.entity.data, **data}, file, ptr)
        if schemas is not None:
            self.collection(
                schemas, file, ptr + "/schemas", lambda k, s, f, p: self.schema(gid, k, s, f, p)
            )

    def _schema_group_entry(self, gid: str, file: str, ptr: str) -> SchemaGroupEntry:
        entry = self.reg.schemagroups.get(gid)
        if entry is None:
            entry = self.reg.schemagroups[gid] = SchemaGroupEntry(
                Entity({"schemagroupid": gid}, file, ptr)
            )
        return entry

    def schema(self, gid: str, sid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        data = normalize_schema(item, sid, file, ptr, self.diags)
        versions = data.pop("versions", None)
        group = self._schema_group_entry(gid, file, ptr)
        entry = group.schemas.get(sid)
        if entry is None:
            entry = group.schemas[sid] = SchemaEntry(Entity(data, file, ptr))
        else:
            merged = {**entry.entity.data, **data}
            if "meta" in entry.entity.data and "meta" in data:
                merged["meta"] = {**entry.entity.data["meta"], **data["meta"]}
            entry.entity = Entity(merged, file, ptr)
        meta = entry.entity.data.get("meta")
        if isinstance(meta, dict) and meta.get("defaultversionid") is not None:
            entry.default_version = str(meta["defaultversionid"])
        if versions is None:
            return
        if not isinstance(versions, dict):
            self.diags.error(
                "XRG103",
                file,
                ptr + "/versions",
                f"'versions' must be an object, not {_kind(versions)}",
            )
            return
        # a version made from the resource's own document is located at the resource
        synthesized = "versions" not in item
        for vid, v in versions.items():
            self.version(
                entry, vid, v, file, ptr if synthesized else ptr + pointer("versions", vid)
            )

    def version(self, entry: SchemaEntry, vid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        entry.versions[vid] = Entity(normalize_version(item, vid, file, ptr, self.diags), file, ptr)

    # -- endpoints
    def endpoint(self, eid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        item = dict(item)
        key = "messages" if "messages" in item else "definitions"
        inline = item.pop(key, None)
        data = normalize_endpoint(item, eid, file, ptr, self.diags)
        self.reg.endpoints[eid] = Entity(data, file, ptr)
        if isinstance(inline, dict) and inline:
            self.endpoint_messages(eid, data, inline, file, ptr + pointer(key))

    def endpoint_messages(
        self, eid: str, endpoint: dict[str, Any], inline: dict[str, Any], file: str, ptr: str
    ) -> None:
        """An endpoint's own messages form the message group named like the endpoint, bound
        to its protocol and options (warning XRG118 when a message group has that id)."""
        entry = self.reg.messagegroups.get(eid)
        if entry is not None and eid not in self.endpoint_groups:
            self.diags.warning(
                "XRG118",
                file,
                ptr,
                f"the messages of endpoint {eid!r} are left out: a message group has that id",
            )
            return
        self.endpoint_groups.add(eid)
        group = {"messagegroupid": eid}
        group.update({k: endpoint[k] for k in ("envelope", "protocol", "protocoloptions") if k in endpoint})
        entry = self.reg.messagegroups[eid] = MessageGroupEntry(Entity(group, file, ptr))
        self.collection(inline, file, ptr, lambda k, m, f, p: self.message(eid, k, m, f, p))


def _kind(o: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", type(None): "null"}.get(
        type(o), type(o).__name__
    )


# ------------------------------------------------------------------------------ split files

_DOC_KEYS = frozenset(
    {
        "versions",
        "schema",
        "schemaurl",
        "schemabase64",
        "format",
        "schemaid",
        "id",
        "meta",
        "versionid",
    }
)


def _load_folder(folder: Path, display: str, st: _Stacker, limits: Limits) -> None:
    """Stack every ``index.json`` (or ``.yaml``) below a split-file folder, shallow first."""
    files = [
        p
        for p in folder.rglob("index.*")
        if p.is_file() and p.suffix.lower() in (".json", ".yaml", ".yml")
    ]
    if not files:
        st.diags.error("XRG100", display, "", "folder holds no index.json")
        return
    files.sort(key=lambda p: (len(p.relative_to(folder).parts), p.as_posix()))
    for path in files:
        rel = path.relative_to(folder)
        file = f"{display}/{rel.as_posix()}" if display not in ("", ".") else rel.as_posix()
        try:
            data = _read_file(path, limits, st.diags, file)
        except _SourceError as e:
            st.diags.error(e.code, file, e.pointer, e.message)
            continue
        _split_piece(list(rel.parts[:-1]), data, file, st)


def _split_piece(parts: list[str], data: Any, file: str, st: _Stacker) -> None:
    """Place one split file by its folder path (see the module docstring)."""
    n = len(parts)
    coll = parts[0] if parts else None
    adders = {
        "messagegroups": st.messagegroup,
        "schemagroups": st.schemagroup,
        "endpoints": st.endpoint,
    }
    if n == 0:
        st.document(data, file)
    elif coll not in adders:
        st.diags.warning("XRG106", file, "", "file is not at an xRegistry path; ignored")
    elif n == 1:
        st.collection(data, file, "", adders[coll])
    elif n == 2:
        adders[coll](parts[1], data, file, "")
    elif n == 4 and coll == "messagegroups" and parts[2] == "messages":
        st.message(parts[1], parts[3], data, file, "")
    elif n == 4 and coll == "schemagroups" and parts[2] == "schemas":
        _split_schema(parts[1], parts[3], data, file, st)
    elif n == 6 and coll == "schemagroups" and parts[2] == "schemas" and parts[4] == "versions":
        _split_version(parts[1], parts[3], parts[5], data, file, st)
    elif n == 4 and coll == "endpoints" and parts[2] == "messages" and isinstance(data, dict):
        ep = st.reg.endpoints.get(parts[1])
        if ep is None:
            st.diags.warning("XRG106", file, "", f"endpoint '{parts[1]}' is not declared; ignored")
            return
        msgs = dict(ep.data.get("messages") or {})
        msgs[parts[3]] = normalize_message(data, parts[3], file, "", st.diags)
        ep.data = {**ep.data, "messages": msgs}
    else:
        st.diags.warning("XRG106", file, "", "file is not at an xRegistry path; ignored")


def _split_schema(gid: str, sid: str, data: Any, file: str, st: _Stacker) -> None:
    if sid.endswith("$meta"):
        sid = sid[: -len("$meta")]
        if isinstance(data, dict):
            meta = {k: v for k, v in data.items() if k in _META_ATTRS}
            rest = {k: v for k, v in data.items() if k not in _META_ATTRS}
            data = {**rest, "meta": meta} if meta else rest
    elif not (isinstance(data, dict) and _DOC_KEYS & data.keys()):
        data = {"schema": data}  # the bare schema document of the default version
    st.schema(gid, sid, data, file, "")


def _split_version(gid: str, sid: str, vid: str, data: Any, file: str, st: _Stacker) -> None:
    ptr = ""
    if (
        isinstance(data, dict)
        and isinstance(data.get("versions"), dict)
        and vid in data["versions"]
    ):
        data, ptr = data["versions"][vid], pointer("versions", vid)
    elif not (isinstance(data, dict) and _DOC_KEYS & data.keys()):
        data = {"schema": data}
    group = st._schema_group_entry(gid, file, ptr)
    entry = group.schemas.get(sid)
    if entry is None:
        entry = group.schemas[sid] = SchemaEntry(Entity({"schemaid": sid}, file, ptr))
    st.version(entry, vid, data, file, ptr)


# --------------------------------------------------------------------------------- entry


def load(
    sources: Sequence[str], diags: Diagnostics, *, limits: Limits | None = None
) -> Registry:
    """Load and stack the given sources (files, split-file folders, http(s) URLs), in order.

    Never raises for bad input: every problem becomes a diagnostic (I/O ones have a code in
    ``IO_ERROR_CODES``, limits XRG104-109) and the remaining sources still load.
    """
    limits = limits or _DEFAULT_LIMITS
    reg = Registry()
    st = _Stacker(reg, diags)
    with paused_gc():
        for source in sources:
            _load_source(source, reg, st, limits)
    return reg


def _load_source(source: str, reg: Registry, st: _Stacker, limits: Limits) -> None:
    """Load one source into the registry; read/parse failures become diagnostics."""
    name = display_name(source)
    reg.sources.append(name)
    try:
        if _URL_RE.match(source):
            st.document(_load_url(source, limits, st.diags), name, whole=True)
        elif _SCHEME_RE.match(source) and not Path(source).exists():
            raise _SourceError("XRG100", "only http(s) URLs are loaded")
        elif Path(source).is_dir():
            _load_folder(Path(source), name, st, limits)
        else:
            st.document(_read_file(Path(source), limits, st.diags, name), name, whole=True)
    except _SourceError as e:
        st.diags.error(e.code, name, e.pointer, e.message)
