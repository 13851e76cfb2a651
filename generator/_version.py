"""The version of xrgen (the same as xrgen-runtime's: a generated package requires the runtime
of its release series)."""

__version__ = "0.3.0"
