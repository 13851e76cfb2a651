"""The version of xrgen-runtime; xrgen (the generator) is released with the same number."""

__version__ = "0.3.0"
