"""Interoperability with the cloudevents SDK (2.x core bindings)."""
