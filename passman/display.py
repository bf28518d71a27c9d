"""What ``module.display()`` returns: code that shows itself once, in a terminal or a notebook.

:class:`Display` is a ``str`` (the code, as ``print`` would write it) whose
``repr`` is that text, so the Python prompt prints the code once, as code,
rather than a quoted string; IPython uses :meth:`Display._repr_pretty_` and
Jupyter :meth:`Display._repr_html_` (highlighted when Pygments is installed,
else a plain ``<pre>``; always escaped).

:func:`show` decides whether ``display()`` also prints: in a script it
prints, as PyPS's ``display()`` does; in an interactive session (the Python
prompt, IPython, Jupyter) it does not, since the session shows the returned
value itself, and printing too would show the code twice.
"""

from __future__ import annotations

import html
import sys
from typing import Any, TextIO

__all__ = ["Display", "interactive", "show"]


class Display(str):
    """C code (annotated or not), shown as code by the prompt, IPython and Jupyter."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self).rstrip("\n")

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """IPython's pretty printer: the code as it is."""
        p.text(repr(self))

    def _repr_html_(self) -> str:
        """Jupyter: the code highlighted by Pygments when it is installed, else escaped in ``<pre>``."""
        try:
            from pygments import highlight
            from pygments.formatters import HtmlFormatter
            from pygments.lexers import CLexer
        except ImportError:
            return f'<pre class="passman-code">{html.escape(str(self))}</pre>'
        return highlight(str(self), CLexer(), HtmlFormatter(noclasses=True))


def interactive() -> bool:
    """Whether Python runs an interactive session (prompt, IPython, Jupyter) that shows results itself."""
    if hasattr(sys, "ps1"):
        return True
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    return get is not None and get() is not None


def show(text: str, file: TextIO | None = None) -> Display:
    """``text`` as a :class:`Display`, printed to ``file`` if given, else to stdout outside a session."""
    shown = Display(text)
    if file is not None or not interactive():
        print(text, end="" if text.endswith("\n") else "\n", file=file or sys.stdout)
    return shown
