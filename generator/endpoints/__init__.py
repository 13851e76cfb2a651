"""The xRegistry 1.0-rc4 endpoint model (endpoint-spec.md): read and checked with the catalog,
typed in the IR, rendered as ``NAME/endpoints.py``.

One module per stage, each imported where its stage runs (this package imports nothing):
``normalize`` (load: legacy spellings in rc4 form), ``checks`` and ``addresses`` (validate: the
MUST rules), ``references`` (resolve: message groups, will messages, message defaults and the
rules that need resolved messages). Per-protocol endpoint options live with their binding
(``protocols/<x>.py``, ``ENDPOINTS``); build names the endpoints and ``targets/endpoints.py``
renders them.
"""
