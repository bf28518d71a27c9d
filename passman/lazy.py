"""Deferred imports, so that ``import passman`` and start-up stay fast.

islpy and networkx cost about half a second to import; most runs of passman
need them only when a polyhedral or graph analysis actually runs.
:func:`install` registers lazy stand-ins for them in ``sys.modules`` (the real
module is imported on first attribute access), and :class:`LazyAttribute`
defers module-level aliases such as ``_DT = isl.dim_type``.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import types
from pathlib import Path
from typing import Any

#: heavy libraries whose import is deferred
DEFERRED = ("islpy", "networkx")


class _Deferred(types.ModuleType):
    """Stands in ``sys.modules`` for a library until one of its attributes is used."""

    def __getattr__(self, attribute: str) -> Any:
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        if name == "islpy":
            _islpy_version()
        real = importlib.import_module(name)
        self.__dict__.update(real.__dict__)  # later uses of this object go straight to it
        return getattr(real, attribute)


def _islpy_version() -> None:
    """Put islpy's ``islpy.version`` in ``sys.modules``, its version read from its distribution's METADATA.

    islpy's own module asks ``importlib.metadata`` for the version, which
    imports ``email``, ``socket`` and more: 12 ms of every command that
    schedules. Left to islpy when its distribution is not found beside its
    package, or says no version; any other name of the module is islpy's own
    (:func:`_real_version_attribute`).
    """
    if "islpy.version" in sys.modules:
        return
    spec = importlib.util.find_spec("islpy")
    if spec is None or not spec.submodule_search_locations:
        return
    site = Path(next(iter(spec.submodule_search_locations))).parent
    found = sorted(site.glob("islpy-*.dist-info/METADATA"))
    if len(found) != 1:
        return
    try:
        with found[0].open(encoding="utf-8") as f:
            text = next((ln[len("Version:"):].strip() for ln in f if ln.startswith("Version:")), "")
    except OSError:
        return
    match = re.match(r"^([0-9.]+)([a-z0-9]*?)$", text)
    if match is None:
        return
    module = types.ModuleType("islpy.version")
    module.VERSION_TEXT = text  # type: ignore[attr-defined]
    module.VERSION_STATUS = match.group(2)  # type: ignore[attr-defined]
    module.VERSION = tuple(int(n) for n in match.group(1).split(".") if n)  # type: ignore[attr-defined]
    module.__getattr__ = _real_version_attribute  # type: ignore[attr-defined]
    sys.modules["islpy.version"] = module


def _real_version_attribute(name: str) -> Any:
    """A name of ``islpy.version`` the stand-in does not have: from islpy's own module."""
    if name.startswith("__"):
        raise AttributeError(name)
    stand_in = sys.modules.pop("islpy.version")
    try:
        real = importlib.import_module("islpy.version")
    finally:
        sys.modules["islpy.version"] = stand_in
    return getattr(real, name)


def lazy_module(name: str) -> Any:
    """``name`` as a module object that is really imported on first attribute use."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    module = _Deferred(name)
    module.__spec__ = spec
    sys.modules[name] = module
    return module


def install() -> None:
    """Make :data:`DEFERRED` libraries lazy (idempotent; missing ones are left alone)."""
    for name in DEFERRED:
        try:
            lazy_module(name)
        except ModuleNotFoundError:
            pass


class LazyAttribute:
    """``LazyAttribute("islpy", "dim_type").set`` is ``islpy.dim_type.set``, looked up when used."""

    def __init__(self, module: str, attribute: str):
        self._module = module
        self._attribute = attribute
        self._target: Any = None

    def __getattr__(self, name: str) -> Any:
        target = self._target
        if target is None:  # once: hot loops (isl AST conversion) look attributes up millions of times
            target = self._target = getattr(importlib.import_module(self._module), self._attribute)
        return getattr(target, name)
