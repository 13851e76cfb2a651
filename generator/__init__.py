"""xrgen: typed Python code generator for xRegistry message catalogs."""

__version__ = "0.2.0"
