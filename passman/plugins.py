"""Plugin discovery: the ``passman.passes``, ``passman.backends`` and ``passman.brokers``
entry-point groups, read once at start-up.

An entry point names a module (importing it registers what it defines with the
public decorators) or a callable, which is called with no argument. Built-in
passes, backends and brokers are registered exactly this way.
"""

from __future__ import annotations

import importlib
import os
import re
import sys

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
        selected = entry_points(GROUPS)
    except Exception:  # noqa: BLE001 - broken metadata must not stop passman
        selected = {g: [] for g in GROUPS}
    for group in GROUPS:
        builtin = BUILTINS[group]
        for value in selected[group]:
            if value == builtin:
                continue
            _load(value, lambda v=value: _load_value(v), seen)
        _load(builtin, lambda b=builtin: importlib.import_module(b), seen, quiet_missing=True)


def entry_points(groups: tuple[str, ...]) -> dict[str, list[str]]:
    """The values (``module`` or ``module:attribute``) of the installed distributions' entry points in ``groups``.

    Read from each ``*.dist-info``/``*.egg-info`` folder's ``entry_points.txt``
    on ``sys.path``, the first distribution of a name winning, as
    ``importlib.metadata`` finds them; that module costs 15-25 ms of
    imports (``email``, ``zipfile``, ``socket``) at every start, and is used
    only where a path entry is not a folder (a zipped distribution).
    """
    if any(entry and not os.path.isdir(entry) and os.path.exists(entry) for entry in sys.path):
        from importlib import metadata

        eps = metadata.entry_points()
        return {g: [ep.value for ep in eps.select(group=g)] for g in groups}
    found: dict[str, list[str]] = {g: [] for g in groups}
    dists: set[str] = set()
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for name in names:
            stem, dot, kind = name.rpartition(".")
            if not dot or kind not in ("dist-info", "egg-info"):
                continue
            dist = re.sub(r"[-_.]+", "-", stem.split("-", 1)[0]).lower()
            if dist in dists:
                continue
            dists.add(dist)
            try:
                with open(os.path.join(entry or ".", name, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                continue
            for group, value in _entries(text):
                if group in found:
                    found[group].append(value)
    return found


def _entries(text: str) -> list[tuple[str, str]]:
    """``(group, value)`` of each ``name = value`` line of an ``entry_points.txt`` (INI: ``[group]`` sections)."""
    out, group = [], None
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1].strip()
        elif "=" in line and group is not None:
            out.append((group, line.split("=", 1)[1].strip()))
    return out


def _load_value(value: str):
    """What an entry point's value names: a module, or an attribute of one (``pkg.mod:obj.attr``)."""
    module, _, attrs = value.partition(":")
    obj = importlib.import_module(module.strip())
    for attr in filter(None, attrs.split("[", 1)[0].strip().split(".")):
        obj = getattr(obj, attr)
    return obj


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
