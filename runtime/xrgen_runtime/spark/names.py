"""The columns the decoder adds to its input, named here and nowhere else.

Every name starts with :data:`PREFIX` (``_xr_``): the outputs and the dead letters drop such
columns, and no landing schema has one. In the order :func:`.route.stages` adds them:
"""

from __future__ import annotations

#: what every column of the decoder starts with (input columns never do)
PREFIX = "_xr_"

# -- stage 1: lookups ---------------------------------------------------------------------

#: ``spark_partition_id()`` of the lookups stage: the envelope parse's guard, which keeps
#: Spark's optimizer from merging the ``from_json`` projection with its neighbours
PARTITION = "_xr_g"
#: whether the row is in structured content mode
STRUCTURED = "_xr_s"
#: a structured row's envelope text, wrapped (``columns.wrapped``)
WRAPPED = "_xr_w"
#: binary mode: whether an attribute header is not validly encoded (NATS, HTTP)
INVALID_ENCODING = "_xr_x"


def header(attribute: str) -> str:
    """Binary mode: the text of CloudEvents attribute ``attribute`` in the wire's headers."""
    return "_xr_h_" + attribute


def option(path: tuple[str, ...]) -> str:
    """The text of protocol option ``path`` (``("headers", "x")``)."""
    return "_xr_o_" + "_".join(path)


# -- stage 2: the envelope parse ----------------------------------------------------------

#: the envelope variant a structured row is parsed with (``envelope.variants``)
VARIANT = "_xr_k"


def envelope(variant: int) -> str:
    """The parsed envelope of ``variant`` (0: ``data`` as text; ``j``: JSON group ``j``)."""
    return "_xr_env" if variant == 0 else f"_xr_q{variant}"


# -- stages 3 and 4: attributes, match ----------------------------------------------------


def attribute(name: str) -> str:
    """The canonical text of attribute ``name``, from either content mode."""
    return "_xr_a_" + name


#: whether the row is a CloudEvent (structured, or a required attribute header present)
IS_CE = "_xr_ce"
#: whether it is a well-formed CloudEvent
CE_OK = "_xr_ce_ok"
#: the index of the matched target (``NULL``: none)
MATCH = "_xr_m"


def typed(attribute: str, kind: str) -> str:
    """Attribute ``attribute`` as a value of CloudEvents type ``kind`` (``NULL``: bad)."""
    return f"_xr_t_{attribute}_{kind}"


# -- stage 5: what is known before the payload parse ---------------------------------------

#: the error known before the payload parse (``NULL``: none yet)
ERROR_BEFORE_PARSE = "_xr_e0"
#: the wrapped payload text of a matched row
PAYLOAD_TEXT = "_xr_txt"
#: whether the row's envelope must be parsed again with ``data`` as text
RECHECK = "_xr_rc"
#: ``spark_partition_id()`` of this stage: the payload parse's guard (see :data:`PARTITION`)
BARRIER = "_xr_b"
#: the payload bytes of rows decoded over Arrow
PAYLOAD_BYTES = "_xr_bin"


def data(variant: int) -> str:
    """The typed ``data`` of envelope ``variant`` (taken out of the envelope)."""
    return f"_xr_d{variant}"


def corrupt(variant: int) -> str:
    """Whether envelope ``variant`` had its corrupt-record field set."""
    return f"_xr_c{variant}"


# -- stage 6: the payload parse -----------------------------------------------------------


def group(number: int) -> str:
    """The parsed payloads of parse group ``number``."""
    return f"_xr_p{number}"


#: the envelope parsed again with ``data`` as text (rows of :data:`RECHECK`)
REPARSED = "_xr_rp"

# -- the payload choice among tied definitions ---------------------------------------------

#: the first member of a tied run that accepts the payload (``NULL``: none)
TIE_CHOICE = "_xr_tc"
#: whether no member of the row's run accepts its payload
TIE_NONE = "_xr_tn"

# -- the last stage -----------------------------------------------------------------------

#: the error struct (``reason``, ``detail``) of a row; ``NULL`` when the row is good
ERROR = "_xr_e"

# -- fields of a parse result and variables ------------------------------------------------

#: the corrupt-record field of a ``from_json`` result
CORRUPT_FIELD = "_xr_corrupt"
#: the wrapper member after the payload (``columns.wrapped``)
END_FIELD = "_xr_end"
#: what the variables of higher-order functions start with (then a number)
LAMBDA = "_xr_l"
