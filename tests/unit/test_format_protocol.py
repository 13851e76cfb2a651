"""Every package of ``formats/`` is a whole ``PayloadFormat``: each member defined, the methods
callable, and no submodule of the package named like a member (importing it would replace the
member on the package)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest

from xrgen.formats import FORMATS
from xrgen.formats._protocol import PayloadFormat

MEMBERS = {
    name: member
    for name, member in vars(PayloadFormat).items()
    if not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, property))
}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_a_format_defines_every_member(name: str) -> None:
    fmt = FORMATS[name]
    assert isinstance(fmt, ModuleType)
    for member_name, member in MEMBERS.items():
        assert hasattr(fmt, member_name), member_name
        if inspect.isfunction(member):
            assert inspect.isfunction(getattr(fmt, member_name)), member_name


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_no_submodule_shadows_a_member(name: str) -> None:
    fmt = FORMATS[name]
    assert isinstance(fmt, ModuleType)
    submodules = {m.name for m in pkgutil.iter_modules(fmt.__path__)}
    assert not submodules & set(MEMBERS)
    for sub in submodules:
        importlib.import_module(f"{fmt.__name__}.{sub}")
    for member_name, member in MEMBERS.items():
        if inspect.isfunction(member):
            assert inspect.isfunction(getattr(fmt, member_name)), member_name


def test_the_names_are_the_table_keys() -> None:
    assert {f.NAME for f in FORMATS.values()} == set(FORMATS)
    assert len(MEMBERS) >= 20
