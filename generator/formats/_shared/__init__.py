"""What the payload formats share: the pydantic model helpers (``models``), Spark type
builders (``spark``) and JSON Pointer reading (``pointers``)."""
