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
import sys
import types
from typing import Any

#: heavy libraries whose import is deferred
DEFERRED = ("islpy", "networkx")


class _Deferred(types.ModuleType):
    """Stands in ``sys.modules`` for a library until one of its attributes is used."""

    def __getattr__(self, attribute: str) -> Any:
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        real = importlib.import_module(name)
        self.__dict__.update(real.__dict__)  # later uses of this object go straight to it
        return getattr(real, attribute)


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
