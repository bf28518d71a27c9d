"""The one Jinja2 environment passman renders C and Makefiles with.

Undefined variables are errors, block tags leave no blank lines, nothing is
escaped (the output is C). ``jinja2`` is imported on the first use, so that
a module holding templates (a pass, a backend) costs nothing at start-up.

Templates compiled by :func:`template` keep their Python code between runs
(Jinja's bytecode cache, in ``templates`` beside the stubs' cache: see
:func:`passman.stubcache.cache_dir`): compiling the OpenMP backend's source
template and the Makefile's took 10-15 ms of every ``passman run``.
"""

from __future__ import annotations

import functools
import hashlib
import os
from typing import TYPE_CHECKING

from .fsutil import cache_path

if TYPE_CHECKING:
    import jinja2

__all__ = ["c_environment", "template"]

#: template name -> its source, for the environment's loader (:func:`template`)
_SOURCES: dict[str, str] = {}


@functools.cache
def c_environment() -> jinja2.Environment:
    """The shared environment (compile templates with :func:`template`, or ``c_environment().from_string(text)``)."""
    import jinja2

    return jinja2.Environment(
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        loader=jinja2.FunctionLoader(_SOURCES.get),
        bytecode_cache=_bytecode_cache(),
    )


def template(key: str, source: str) -> jinja2.Template:
    """``source`` compiled (``key`` names it in Jinja's errors), its code kept on disk between runs.

    The name the environment knows it by holds a digest of ``source``: an
    edited template is compiled again, in this process and on disk.
    """
    name = f"{key}@{hashlib.sha256(source.encode()).hexdigest()[:16]}"
    _SOURCES[name] = source
    return c_environment().get_template(name)


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Jinja's cache of compiled templates, in a folder this user can write (None: no folder, no cache)."""
    import jinja2

    folder = cache_path("templates")
    if folder is None:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    if not os.access(folder, os.W_OK | os.X_OK):
        return None
    return jinja2.FileSystemBytecodeCache(str(folder))
