"""passman: a programmable pass manager for source-to-source compilation of C.

>>> from passman import Workspace
>>> with Workspace("app.c") as ws:                       # doctest: +SKIP
...     for loop in ws["kernel"].inner_loops():
...         loop.unroll(4)
...     ws.save("out")
"""


from .brokers import HELPER_PREFIX, Stub
from .display import Display
from .errors import InternalError, InvalidInput, PassFailed, PassmanError, PassmanWarning
from .history import History, Step
from .instrument import Instrumentation, PassCall
from .loop import Loop, LoopList
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
from .size_macros import specialize as specialize_size_macros
from .unit import CompilationUnit
from .workspace import Workspace


def _package_version() -> str:
    """The installed distribution's version (pyproject.toml), or a marker in a bare checkout."""
    from importlib import metadata  # 25 ms of imports: only when the version is asked for

    try:
        return metadata.version("passman")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def __getattr__(name: str) -> str:
    """``passman.__version__``, read from the distribution on first use."""
    if name == "__version__":
        version = _package_version()
        globals()["__version__"] = version
        return version
    raise AttributeError(f"module 'passman' has no attribute {name!r}")

__all__ = [
    "REGISTRY",
    "CompilationUnit",
    "Display",
    "HELPER_PREFIX",
    "History",
    "Instrumentation",
    "InternalError",
    "InvalidInput",
    "Loop",
    "LoopList",
    "Module",
    "Modules",
    "PassCall",
    "PassFailed",
    "PassInfo",
    "PassmanError",
    "PassmanWarning",
    "Property",
    "Step",
    "Stub",
    "Workspace",
    "analysis",
    "register_backend",
    "register_property",
    "specialize_size_macros",
    "transformation",
]
