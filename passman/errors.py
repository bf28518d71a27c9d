"""The errors passman raises, as PyPS defines them.

Every error is a :class:`PassmanError`. Recipes catch :class:`PassFailed` to
try a fallback; :class:`InvalidInput` and :class:`InternalError` usually end
the run. The command line prints ``str(error)`` as one line.
"""

from __future__ import annotations


class PassmanError(Exception):
    """Base class of every error passman raises on purpose."""


class InvalidInput(PassmanError):
    """The user asked for something ill-formed.

    No such file, loop, module or property; C that does not parse or that a C
    compiler rejects (:mod:`passman.semantic`; the message then starts with
    ``file:line:col: error:``).
    """


class PassFailed(PassmanError):
    """A pass does not apply here, or changed nothing; the workspace is unchanged.

    The message says why in source terms, so a recipe can log it or fall back
    to another pass.
    """

    def __init__(self, message: str, *, pass_name: str | None = None, target: str | None = None):
        super().__init__(message)
        self.pass_name = pass_name
        self.target = target


class InternalError(PassmanError):
    """A bug in passman (or in a plugin): please report it with the traceback."""


def located(coord: object, message: str, kind: str = "error") -> str:
    """Format ``message`` as ``file:line:col: kind: message`` from a pycparser coord."""
    if coord is None or getattr(coord, "file", None) is None:
        return f"{kind}: {message}"
    line = getattr(coord, "line", 0) or 0
    col = getattr(coord, "column", 0) or 0
    where = f"{coord.file}:{line}:{col}" if col else f"{coord.file}:{line}"
    return f"{where}: {kind}: {message}"
