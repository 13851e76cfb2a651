"""Pure CloudEvents codecs, one module per protocol binding, plus the JSON event format.

Every module has ``encode(event, mode="binary"|"structured", **overrides) -> <X>Message`` and
``decode(message) -> Event`` (HTTP also ``encode_batch``/``decode_batch``; ``jsonformat`` works
on bytes). No client library is imported: the wire types are the frozen dataclasses of
``_core``, moved by the adapters.

``decode`` raises only ``DecodeError``; its ``reason`` is one of these stable codes:

- ``invalid-json``: a structured body (or JSON-format document) is not JSON / not an object
- ``invalid-batch``: a batch body is not a JSON array
- ``invalid-encoding``: bad UTF-8, bad percent-encoding, bad base64, bad quoted-string
- ``missing-attribute``: ``specversion``, ``id``, ``source`` or ``type`` is absent
- ``invalid-specversion``: ``specversion`` is not ``"1.0"``
- ``invalid-attribute``: an attribute value has the wrong type or form (empty ``id``, bad
  RFC 3339 ``time``, Integer out of the 32-bit range, non-absolute ``dataschema``, ...)
- ``invalid-attribute-name``: a CloudEvents name that is not ``[a-z0-9]+`` (or is ``data``)
- ``duplicate-attribute``: the same attribute (or content type) appears twice
- ``mixed-separators``: an AMQP message mixes ``cloudEvents_`` and ``cloudEvents:``
- ``invalid-data``: ``data`` and ``data_base64`` together, or non-string ``data`` with a
  non-JSON ``datacontenttype``
- ``unsupported-format``: structured mode in a format other than JSON (e.g. ``+avro``), or
  batch mode outside HTTP
- ``unexpected-batch``: ``http.decode`` got a batch (use ``http.decode_batch``)
- ``invalid-message``: the message object itself is malformed (wrong field types)

A message without any CloudEvents attribute (and not in structured mode) is a plain protocol
message: ``Event(attributes={}, data=payload, binding=<X>Binding(...))``; encoding such an event
writes the raw payload and the binding metadata.
"""
