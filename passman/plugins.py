"""Plugin discovery: the ``passman.passes``, ``passman.backends`` and ``passman.brokers``
entry-point groups, read once at start-up.

An entry point names a module (importing it registers what it defines with the
public decorators) or a callable, which is called with no argument. Built-in
passes, backends and brokers are registered exactly this way.
"""

from __future__ import annotations

import importlib
import sys
from importlib import metadata

from .errors import warn

GROUPS = ("passman.passes", "passman.backends", "passman.brokers")

#: built-in plugins, loaded even when package metadata is unavailable (source checkout)
BUILTINS = {
    "passman.passes": "passman.passes",
    "passman.backends": "passman.backends",
    "passman.brokers": "passman.stubs",
}

_loaded = False
errors: list[str] = []


def load_plugins(force: bool = False) -> None:
    """Import every registered plugin (once per process)."""
    global _loaded
    if _loaded and not force:
        return
    _loaded = True
    from .lazy import install

    install()  # islpy and networkx are imported when an analysis first needs them
    seen: set[str] = set()
    try:
        eps = metadata.entry_points()
        selected = {g: list(eps.select(group=g)) for g in GROUPS}
    except Exception:  # noqa: BLE001 - broken metadata must not stop passman
        selected = {g: [] for g in GROUPS}
    for group in GROUPS:
        builtin = BUILTINS[group]
        for ep in selected[group]:
            if ep.value == builtin:
                continue
            _load(ep.value, lambda ep=ep: ep.load(), seen)
        _load(builtin, lambda b=builtin: importlib.import_module(b), seen, quiet_missing=True)


def _load(key: str, loader, seen: set[str], quiet_missing: bool = False) -> None:
    if key in seen:
        return
    seen.add(key)
    try:
        obj = loader()
    except ModuleNotFoundError as err:
        if quiet_missing and err.name and key.startswith(err.name):
            return
        _report(key, err)
        return
    except Exception as err:  # noqa: BLE001 - a broken plugin is reported, not fatal
        _report(key, err)
        return
    if callable(obj) and not isinstance(obj, type(sys)):
        try:
            obj()
        except Exception as err:  # noqa: BLE001
            _report(key, err)


def _report(key: str, err: BaseException) -> None:
    msg = f"plugin {key} failed to load: {err!r}"
    errors.append(msg)
    warn(msg)
