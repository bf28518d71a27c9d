"""Built-in passes, by family; registered through the public decorators.

* :mod:`.cfacts`: syntactic facts about C code (names, side effects, types,
  constant folding, control flow, reference forms): no pass, used by all;
* :mod:`.analysis`: references, memory effects, reductions, private
  variables, liveness, the call graph;
* :mod:`.poly`: the polyhedral view: static control parts, dependences,
  preconditions, array regions, ``auto_schedule``;
* :mod:`.loops`: loop transformations (counted loops, unroll, tile,
  interchange / skew / unroll-and-jam, normalize / strip-mine / reverse,
  hyperplane, fusion and distribution);
* :mod:`.scalar`: statement-level transformations (substitutions, partial
  evaluation, dead code, invariant code motion, accumulation in place);
* :mod:`.interproc`: inline, clone, outline, constant arguments, array
  linearization;
* :mod:`.parallel`: loop verdicts, parallelizers, privatization, the OpenMP
  marker and clauses.

Loaded at start-up through the ``passman.passes`` entry point, exactly as a
third-party plugin is.
"""

from . import poly  # noqa: F401
from .analysis import (  # noqa: F401
    call_effects,
    callgraph,
    effect_model,
    effects,
    privatization,
    reductions,
    references,
)
from .interproc import constant_arguments, inline, linearize, outline  # noqa: F401
from .loops import (  # noqa: F401
    fusion,
    fusion_regions,
    hyperplane,
    interchange,
    normalize,
    tile,
    unroll,
)
from .parallel import ompify, parallelize, privatize, verdicts  # noqa: F401
from .scalar import accumulate, cleanup, substitution  # noqa: F401
