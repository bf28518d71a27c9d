"""Iterative compilation: search spaces, evaluation, studies, replay, pictures.

``passman tune`` on the command line (``docs/tune.md``); in Python::

    from passman.tune import Study, Space, Pow2, Choice
    space = Space.pipeline("auto_schedule@kernel{tile_sizes=$TI,$TJ}", TI=Pow2(8, 256), TJ=Pow2(8, 256))
    Study("kernel", ["app.c"], space).optimize(100)

Optuna supplies the samplers and the storage, dask.distributed the cluster;
both are imported when a study starts, not with this package.
"""

from .evaluate import Job, Measure, Program, Result, compare_outputs, evaluate
from .replay import Replay, replay
from .space import Bool, Choice, Int, Param, Permutation, Pow2, Space, Vector
from .study import STRATEGIES, Study, Variant

__all__ = [
    "STRATEGIES",
    "Bool",
    "Choice",
    "Int",
    "Job",
    "Measure",
    "Param",
    "Permutation",
    "Pow2",
    "Program",
    "Replay",
    "Result",
    "Space",
    "Study",
    "Variant",
    "Vector",
    "compare_outputs",
    "evaluate",
    "replay",
]
