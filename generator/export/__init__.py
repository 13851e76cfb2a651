"""Exports of a catalog into other description formats (``xrgen export``).

An export reads what the pipeline made (the resolved documents and the IR of ``api.analyze``);
it never reads a catalog itself. ``asyncapi``: an AsyncAPI 3.0 document (docs/asyncapi.md).
"""
