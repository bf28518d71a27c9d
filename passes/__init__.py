"""Built-in passes, one module per family; registered through the public decorators.

Loaded at start-up through the ``passman.passes`` entry point, exactly as a
third-party plugin is.
"""

from . import (  # noqa: F401
    accumulate,
    arrays,
    call_effects,
    callgraph,
    cleanup,
    constant_arguments,
    effect_model,
    effects,
    functions,
    fusion,
    fusion_sequence,
    hyperplane,
    linearize,
    loops,
    looptrans,
    normalize,
    ompify,
    outlining,
    parallel,
    parallelize,
    poly,
    privatization,
    reductions,
    references,
    substitution,
    tiling,
)
