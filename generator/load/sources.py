"""The load stage's entry: each source (a file, a split-file folder, an http(s) URL) read and
stacked into one ``Registry``, in order."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ..diagnostics import Diagnostics
from ..limits import Limits
from ..model.registry import Registry
from .common import URL_RE, display_name, paused_gc
from .errors import SourceError
from .stack import Stacker
from .text import DEFAULT_LIMITS, read_file

_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def load(
    sources: Sequence[str], diags: Diagnostics, *, limits: Limits | None = None
) -> Registry:
    """Load and stack the given sources (files, split-file folders, http(s) URLs), in order.

    Never raises for bad input: every problem becomes a diagnostic (I/O ones have a code in
    ``IO_ERROR_CODES``, limits XRG104-109) and the remaining sources still load.
    """
    limits = limits or DEFAULT_LIMITS
    reg = Registry()
    st = Stacker(reg, diags)
    with paused_gc():
        for source in sources:
            _load_source(source, reg, st, limits)
    st.finish()
    return reg


def _load_source(source: str, reg: Registry, st: Stacker, limits: Limits) -> None:
    """Load one source into the registry; read/parse failures become diagnostics."""
    name = display_name(source)
    reg.sources.append(name)
    try:
        if URL_RE.match(source):
            from .fetch import load_url  # urllib only for URL sources

            st.document(load_url(source, limits, st.diags), name, whole=True)
        elif _SCHEME_RE.match(source) and not Path(source).exists():
            raise SourceError("XRG100", "only http(s) URLs are loaded")
        elif Path(source).is_dir():
            from .folder import load_folder

            load_folder(Path(source), name, st, limits)
        else:
            st.document(read_file(Path(source), limits, st.diags, name), name, whole=True)
    except SourceError as e:
        st.diags.error(e.code, name, e.pointer, e.message)
