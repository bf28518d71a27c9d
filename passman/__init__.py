"""passman: a programmable pass manager for source-to-source compilation of C.

>>> from passman import Workspace
>>> with Workspace("app.c") as ws:                       # doctest: +SKIP
...     for loop in ws["kernel"].inner_loops():
...         loop.unroll(4)
...     ws.save("out")
"""

from .errors import InternalError, InvalidInput, PassFailed, PassmanError
from .history import History, Step
from .instrument import Instrumentation, PassCall
from .loop import Loop
from .module import Module, Modules
from .registry import (
    REGISTRY,
    PassInfo,
    Property,
    analysis,
    register_backend,
    register_property,
    transformation,
)
from .unit import CompilationUnit
from .workspace import Workspace

__version__ = "0.1.0"

__all__ = [
    "REGISTRY",
    "CompilationUnit",
    "History",
    "Instrumentation",
    "InternalError",
    "InvalidInput",
    "Loop",
    "Module",
    "Modules",
    "PassCall",
    "PassFailed",
    "PassInfo",
    "PassmanError",
    "Property",
    "Step",
    "Workspace",
    "analysis",
    "register_backend",
    "register_property",
    "transformation",
]
