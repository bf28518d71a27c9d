"""The polyhedral view of C: static control parts, dependences, preconditions, array regions.

Every set and relation is an islpy object; nothing here hand-rolls integer
set arithmetic. Modules, one idea each:

* :mod:`.affine`: C integer expressions and conditions -> isl (``AffineBuilder``);
* :mod:`.scop`: the static control parts of a function (the model); :mod:`.scop_build`:
  resource ``scops``, finding and modelling them;
* :mod:`.dependences`: resource ``dependences``, flow/anti/output per loop level;
* :mod:`.preconditions`: resource ``preconditions``, affine facts before each statement;
* :mod:`.regions`: resources ``regions``, ``in_regions``, ``out_regions``,
  ``summary_regions`` (convex array regions, interprocedural), and
  :func:`regions.rectangular_hull`;
* :mod:`.schedule` (with :mod:`.tile_band`): transformations ``auto_schedule``
  (isl scheduling, tiling, wavefront, parallel marks) and ``apply_schedule``;
* :mod:`.time_tiling`: transformation ``time_tile`` (diamond or skewed time tiles of
  stencils, run as OpenMP tasks or barrier fronts), with :mod:`.hyperplanes` (tiling
  hyperplanes, Farkas by isl), :mod:`.tile_graph` (tile dependence graphs) and
  :mod:`.tile_model` (tile sizes from footprint and caches);
* :mod:`.trapezoid_tiling`: transformation ``trapezoid_tile`` (Pochoir's recursive
  trapezoidal walk, :mod:`.trapezoid_walk`), with :mod:`.trapezoid_graph` (its tile
  dependence graph, Freitag 2014 §3.3 (a));
* :mod:`.balanced_hyperplanes` (Di 2013's balanced tiling hyperplanes, hindering false dependences)
  and :mod:`.di_shapes`:
  transformation ``eliminate_false_dependences`` (array copies).
"""

# Nothing is imported here: the passes' manifest (:mod:`passman.passes.manifest`) imports the
# module of an analysis or transformation when it is first asked for, so that importing one module
# of the package (``affine``, by the dependence tests of the parallelizers) costs that module only.
