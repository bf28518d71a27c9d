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
third-party plugin is, but lazily: importing this package registers every
built-in pass by name from :mod:`.manifest`, and a pass's module is imported
the first time the pass, a resource it provides or one of its properties is
looked up (``passman --help`` and ``passman passes`` import none of them).
"""

from passman import REGISTRY

from .manifest import PASSES, PROPERTIES

REGISTRY.install_manifest(PASSES, PROPERTIES)
