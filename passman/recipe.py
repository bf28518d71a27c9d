"""Recipes: Python scripts that drive a workspace.

A recipe is a Python file (or a module of ``passman.recipes``) that defines::

    def main(ws, **options):
        for loop in ws["kernel"].inner_loops():
            loop.unroll(4)

``passman run RECIPE app.c`` parses the files into a workspace ``ws`` and
calls ``main(ws, **options)``. ``--set NAME=VALUE`` sets property ``NAME``
when one is registered, and otherwise passes ``NAME`` to ``main`` (converted
to the type of ``main``'s parameter default or annotation), which must accept
it. The recipe may save or build itself; otherwise the command line does what
its flags say (``-o``, ``--build``, ``--run``).

Two helpers say "this pass may refuse" without a ``try``/``except`` block:
:func:`attempt` (``?`` of a textual pipeline) and :func:`try_in_order`
(PyPS's "try this, else that")::

    attempt(module.limit_nested_parallelism)          # refusal tolerated
    try_in_order(lambda: loop.tile(32, 32), lambda: loop.unroll(4))
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import typing
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from .errors import InvalidInput, PassFailed
from .registry import convert_value


def builtin_recipes() -> list[str]:
    """Names of the recipes shipped in ``passman.recipes``."""
    try:
        pkg = importlib.import_module("passman.recipes")
    except ModuleNotFoundError:
        return []
    return sorted(m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_"))


def load_recipe(spec: str) -> ModuleType:
    """Load a recipe from a path to a ``.py`` file or by built-in name."""
    path = Path(spec)
    if spec.endswith(".py") or path.is_file():
        if not path.is_file():
            raise InvalidInput(f"{spec}: error: no such recipe file")
        modspec = importlib.util.spec_from_file_location(f"passman_recipe_{path.stem}", path)
        if modspec is None or modspec.loader is None:
            raise InvalidInput(f"{spec}: error: cannot load recipe")
        module = importlib.util.module_from_spec(modspec)
        try:
            modspec.loader.exec_module(module)
        except SyntaxError as err:
            raise InvalidInput(f"{err.filename}:{err.lineno}:{err.offset or 0}: error: {err.msg}") from None
        return module
    if spec not in builtin_recipes():
        known = ", ".join(builtin_recipes()) or "none"
        raise InvalidInput(f"error: no recipe '{spec}' (a .py file or one of: {known})")
    return importlib.import_module(f"passman.recipes.{spec}")


def recipe_entry(module: ModuleType) -> Callable[..., Any]:
    """The recipe's ``main(ws, **options)``."""
    fn = getattr(module, "main", None)
    if not callable(fn):
        where = getattr(module, "__file__", module.__name__)
        raise InvalidInput(f"{where}: error: a recipe must define main(ws, **options)")
    return fn


def bind_options(fn: Callable[..., Any], options: dict[str, str]) -> dict[str, Any]:
    """Convert ``--set`` options for ``main``; unknown names are :class:`InvalidInput`."""
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())[1:]
    accepts_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    named = {p.name: p for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD}
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - a recipe's odd annotations fall back to defaults
        hints = {}
    out: dict[str, Any] = {}
    for key, raw in options.items():
        if key in named:
            p = named[key]
            tp = hints.get(key)
            if tp is None and p.default is not inspect.Parameter.empty and p.default is not None:
                tp = type(p.default)
            out[key] = convert_value(key, tp, raw) if tp else raw
        elif accepts_any:
            out[key] = raw
        else:
            raise InvalidInput(f"error: unknown property '{key}' (not a registered property nor an option of the recipe)")
    return out


def attempt(call: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
    """Call ``call(*args, **kwargs)`` (a pass); whether it applied, False when it refused.

    A refusal (:class:`PassFailed`) leaves the workspace as it was; any other
    error propagates. ``attempt(module.ompify_code)`` is ``ompify_code?`` in
    a pipeline.
    """
    try:
        call(*args, **kwargs)
    except PassFailed:
        return False
    return True


def try_in_order(*calls: Callable[[], Any]) -> int:
    """Call each of ``calls`` in turn until one does not refuse; return its index.

    "Try this, else that": ``try_in_order(lambda: loop.tile(32, 32), lambda:
    loop.unroll(4))``. When every one refuses, raises :class:`PassFailed`
    with each reason (the workspace is as before: each refusal undid itself).
    """
    reasons = []
    for k, call in enumerate(calls):
        try:
            call()
        except PassFailed as err:
            reasons.append(f"{err.pass_name + ': ' if err.pass_name else ''}{err}")
            continue
        return k
    raise PassFailed("every alternative refused: " + "; ".join(reasons) if reasons else "no alternative given")
