"""The one Jinja2 environment passman renders C and Makefiles with.

Undefined variables are errors, block tags leave no blank lines, nothing is
escaped (the output is C). ``jinja2`` is imported on the first use, so that
a module holding templates (a pass, a backend) costs nothing at start-up.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jinja2

__all__ = ["c_environment"]


@functools.cache
def c_environment() -> jinja2.Environment:
    """The shared environment (compile templates with ``c_environment().from_string(text)``)."""
    import jinja2

    return jinja2.Environment(
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
