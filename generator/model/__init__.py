"""The data the pipeline's stages hand on: ``registry`` (what load produces), ``catalog`` (the
pydantic models validate checks documents against), ``resolved`` (what resolve produces) and
``ir`` (what build produces and every target renders from). Each stage imports these from here;
no stage imports another stage for its data."""
