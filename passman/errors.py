"""The errors passman raises, as PyPS defines them, and the warnings it gives.

Every error is a :class:`PassmanError`. Recipes catch :class:`PassFailed` to
try a fallback; :class:`InvalidInput` and :class:`InternalError` usually end
the run. The command line prints ``str(error)`` as one line.

Warnings (a library function with no model, a pragma dropped ...) go through
:mod:`warnings` with the category :class:`PassmanWarning`, so that a user
filters them as any other Python warning::

    warnings.filterwarnings("ignore", category=passman.PassmanWarning)
    warnings.filterwarnings("error", "no model", passman.PassmanWarning)
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path


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


class PassmanWarning(UserWarning):
    """A warning from passman: the analysis went on, conservatively, or an output was simplified.

    ``str(w)`` is the message without its location (what
    :func:`warnings.filterwarnings` matches); :attr:`where` is the C
    ``file:line:col`` it is about, if any; :attr:`line` is the one line the
    command line prints (``file:line:col: warning: message``).
    """

    def __init__(self, message: str, where: str | None = None) -> None:
        super().__init__(message)
        self.where = where

    @property
    def line(self) -> str:
        """``file:line:col: warning: message``, or ``passman: warning: message`` without a location."""
        return f"{self.where}: warning: {self}" if self.where else f"passman: warning: {self}"


_LOCATED = re.compile(r"^(?P<where>(?P<file>[^\n]*?):(?P<line>\d+)(?::\d+)?): warning: (?P<text>.*)$", re.S)
_HERE = Path(__file__).resolve().parent
#: passman's sources: the package, and the folders that install inside it (editable installs)
_PACKAGE_ROOTS = tuple(str(p) + "/" for p in (_HERE, *(_HERE.parent / d for d in ("passes", "backends", "recipes", "stubs"))))


def warn(message: str) -> PassmanWarning:
    """Give ``message`` as a :class:`PassmanWarning` (and return it).

    ``"file:line:col: warning: text"`` is shown at that line of the C file;
    other messages (a leading ``warning:`` is dropped) at the first caller
    outside passman (the user's recipe or script).
    """
    m = _LOCATED.match(message)
    if m:
        w = PassmanWarning(m.group("text"), m.group("where"))
        warnings.warn_explicit(w, PassmanWarning, m.group("file"), int(m.group("line")), module="passman")
        return w
    text = message[len("warning:"):].strip() if message.startswith("warning:") else message
    w = PassmanWarning(text)
    warnings.warn(w, stacklevel=_caller_level())
    return w


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside passman's sources (for :func:`warnings.warn`)."""
    frame = sys._getframe(2)  # the caller of warn(): stacklevel 2
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_ROOTS):
        frame = frame.f_back
        level += 1
    return level if frame is not None else 2
