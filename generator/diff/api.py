"""The generated Python API: what breaks code that imports the package. Names come from the
IR (``build.py`` is the only namer), so the comparison sees exactly the names the generated
modules define: group producer and dispatcher classes, producer methods, their keyword
arguments (placeholders and free attributes), handler registrations (``on_<method>`` on the
group's and the package-wide dispatcher), payload model classes and their fields.

A name removed or renamed breaks callers (``AttributeError``/``TypeError``), and so does a new
required keyword argument; these are warnings, and errors with ``--api``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import formats
from ..diagnostics import pointer_escape
from ..model import ir
from .changes import Change
from .payload import split_location

Key = tuple[str, str]


def _fields(payload: ir.Payload | None) -> set[str]:
    """Top-level field names of the payload model (``PayloadFormat.field_names``)."""
    fmt = formats.get(payload.format) if payload is not None else None
    return fmt.field_names(payload.schema) if payload is not None and fmt is not None else set()


def _arguments(m: ir.Message) -> dict[str, bool]:
    """Keyword arguments of the producer method -> required."""
    out = {p.py_name: True for p in m.placeholders}
    for a in m.attributes:
        if a.py_name and a.py_name not in out:
            out[a.py_name] = a.required
    return out


def _added_beside(group: ir.MessageGroup | None, added: list[ir.Message]) -> str:
    """``"; the group adds ComExShopProducer.pong (com.ex.Pong)"``: the methods a renamed
    message may have become, named beside the removal."""
    if group is None or not added:
        return ""
    methods = ", ".join(f"{group.producer_class}.{m.py_name} ({m.id})" for m in added)
    return f"; the group adds {methods}"


def compare_api(
    a: ir.Catalog, b: ir.Catalog, pairs: Sequence[tuple[Key, Key]], new_file: str
) -> list[Change]:
    out: list[Change] = []
    olds = {(m.group_id, m.id): m for m in a.messages()}
    news = {(m.group_id, m.id): m for m in b.messages()}
    ogroups = {g.id: g for g in a.groups}
    ngroups = {g.id: g for g in b.groups}

    def add(code: str, file: str, pointer: str, mid: str | None, text: str) -> None:
        out.append(Change(code, file, pointer, mid, text, api=True))

    for gid, og in ogroups.items():
        ng = ngroups.get(gid)
        if ng is None:
            gfile, gptr = split_location(og.location)
            add(
                "XRG590",
                new_file,
                gptr,
                None,
                f"group {gid!r} removed: classes {og.producer_class} and {og.dispatcher_class} are gone",
            )
            continue
        gfile, gptr = split_location(ng.location)
        for what, x, y in (
            ("producer class", og.producer_class, ng.producer_class),
            ("dispatcher class", og.dispatcher_class, ng.dispatcher_class),
        ):
            if x != y:
                add("XRG590", gfile, gptr, None, f"group {gid!r}: {what} {x} renamed to {y}")
        oc = {p.py_name for p in og.common_placeholders}
        nc = {p.py_name for p in ng.common_placeholders}
        for name in sorted(oc - nc):
            add(
                "XRG592",
                gfile,
                gptr,
                None,
                f"group {gid!r}: argument {name!r} of {ng.producer_class}() removed or renamed",
            )
        for name in sorted(nc - oc):
            add(
                "XRG592",
                gfile,
                gptr,
                None,
                f"group {gid!r}: required argument {name!r} added to {ng.producer_class}()",
            )
    paired_old = {p[0] for p in pairs}
    paired_new = {p[1] for p in pairs}
    added: dict[str, list[ir.Message]] = {}
    for key, m in news.items():
        if key not in paired_new:
            added.setdefault(m.group_id, []).append(m)
    for key, m in olds.items():
        if key not in paired_old:
            _, mptr = split_location(m.location)
            og = ogroups[m.group_id]
            add(
                "XRG591",
                new_file,
                mptr,
                m.id,
                f"{m.id}: producer method {og.producer_class}.{m.py_name} and handler {m.handler} removed"
                + _added_beside(ngroups.get(m.group_id), added.get(m.group_id, [])),
            )
    for ok, nk in pairs:
        om, nm = olds[ok], news[nk]
        og, ng = ogroups[om.group_id], ngroups[nm.group_id]
        file, mptr = split_location(nm.location)
        old_method = f"{og.producer_class}.{om.py_name}"
        new_method = f"{ng.producer_class}.{nm.py_name}"
        if old_method != new_method:
            add(
                "XRG591",
                file,
                mptr,
                nm.id,
                f"{nm.id}: producer method {old_method} renamed to {new_method}",
            )
        for what, x, y in (
            (
                "handler registration",
                f"{og.dispatcher_class}.{om.handler}",
                f"{ng.dispatcher_class}.{nm.handler}",
            ),
            (
                "package-wide handler registration",
                f"Dispatcher.{om.package_handler}",
                f"Dispatcher.{nm.package_handler}",
            ),
        ):
            if x != y:
                add("XRG594", file, mptr, nm.id, f"{nm.id}: {what} {x} renamed to {y}")
        oargs, nargs = _arguments(om), _arguments(nm)
        for name in sorted(oargs.keys() - nargs.keys()):
            add(
                "XRG592",
                file,
                mptr,
                nm.id,
                f"{nm.id}: argument {name!r} of {new_method} removed or renamed",
            )
        for name in sorted(nargs.keys() - oargs.keys()):
            if nargs[name]:
                add(
                    "XRG592",
                    file,
                    mptr,
                    nm.id,
                    f"{nm.id}: required argument {name!r} added to {new_method}",
                )
        op, np_ = om.payload, nm.payload
        if op is not None and np_ is not None:
            pfile, pptr = split_location(np_.location)
            if op.model_name != np_.model_name:
                add(
                    "XRG593",
                    pfile,
                    pptr,
                    nm.id,
                    f"{nm.id}: payload model {op.model_name} renamed to {np_.model_name}",
                )
            for name in sorted(_fields(op) - _fields(np_)):
                fmt = formats.get(np_.format)
                where = pptr + (
                    fmt.field_pointer(name)
                    if fmt is not None
                    else "/properties/" + pointer_escape(name)
                )
                add(
                    "XRG593",
                    pfile,
                    where,
                    nm.id,
                    f"{nm.id}: field {name!r} of model {np_.model_name} removed or renamed",
                )
        elif op is not None and np_ is None:
            add(
                "XRG593",
                file,
                mptr,
                nm.id,
                f"{nm.id}: payload model {op.model_name} removed (data is bytes)",
            )
    return out
