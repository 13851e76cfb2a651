"""AsyncAPI exports read back by the official AsyncAPI parser (tests/asyncapi/node)."""
