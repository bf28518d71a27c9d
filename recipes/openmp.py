"""Parallelize for OpenMP: C in, parallel C out (Amini 2012, Fig. 5.9; Par4All's OpenMP mode).

    passman run openmp app.c -o out --build --run      # prints the program's output
    OMP_NUM_THREADS=2 make -C out run                   # again, by hand
    passman run openmp app.c --set tile=false --set fusion=max -o out

Each function first goes through the polyhedral scheduler (``auto_schedule``:
affine schedule, tiling, wavefront parallelism, final ``#pragma omp parallel
for`` / ``omp simd``, every mark checked against the dependences) where it
has static-control parts the scheduler can improve; the time loops of
stencils get ``time_tile``'s diamond tiles there (OpenMP tasks when the data
fit in the cache, static fronts otherwise; ``--set
auto_schedule_time_tiling=off|diamond|skewed|split|hybrid|balanced|trapezoid|dlt`` and
``--set auto_schedule_time_tiling_schedule=tasks|static`` override it, see
``docs/stencils.md``). The functions it leaves
as they are take the coarse-grain path (Fig. 5.9: whole loops as they are,
reductions included, then loop distribution; ``limit_nested_parallelism``,
``ompify_code`` and ``omp_merge_pragma`` turn its markers into OpenMP).
A scheduled function's loops outside static-control parts stay sequential:
the coarse-grain analyses on tiled wavefront code cost minutes. On both
paths, a sequential loop of parallel loops (a time loop of sweeps, a
wavefront's fronts) then opens one parallel region around it, its loops
becoming ``omp for`` (``hoist_parallel_regions``: a barrier per loop
instead of a join and a fork), unless the program has OpenMP of its own.

Options (``--set NAME=VALUE``):

* ``poly`` (default true): use ``auto_schedule`` (when a pass of that name is
  registered); false gives the coarse-grain path alone;
* ``tile`` (default true), ``fusion`` (``smart``, ``none`` or ``max``;
  default ``smart``), ``tile_sizes`` (``"32,32,32"``; default ``""``: the
  scheduler chooses), ``wavefront`` (default true): ``auto_schedule``'s
  properties ``auto_schedule_tile``, ``auto_schedule_fusion``,
  ``auto_schedule_tile_sizes``, ``auto_schedule_wavefront``. Left unset,
  the properties keep their values (``--set auto_schedule_tile=false``
  works too). ``tile_sizes`` is also the name of the ``tile`` pass's
  property, so ``--set tile_sizes=32,32`` sets that property: the recipe
  reads it from there when the option itself is not given;
* ``time_tiling`` (default ``""``: the property ``auto_schedule_time_tiling``,
  ``auto``): the stencil tiling ``auto_schedule`` gives every time loop,
  ``off``, ``diamond``, ``skewed``, ``split``, ``hybrid``, ``balanced``, ``trapezoid`` or ``dlt``
  (``passman tune openmp prog.c --param time_tiling=diamond,split,trapezoid``
  searches over them);
* ``distribute`` (default true) falls back to loop distribution
  (Allen–Kennedy) for the loops coarse grain left sequential;
* ``min_work`` (default 2000) and ``region_work`` (default: the property
  ``parallel_region_work``, the fork/join cost at two threads measured on
  this machine, see ``passes/parallel/profitability.py``) are the
  profitability model, on both paths: a parallel loop whose work per region
  (iterations x statements) is known and under ``min_work`` stays
  sequential, and so does one inside a sequential loop (its region would
  open at each iteration) under ``region_work``; work that depends on
  parameters gives the pragma an OpenMP ``if(work >= threshold)`` clause.
  ``min_work=0`` keeps the second guard (``region_work=0`` lifts it);
  last, ``sequential_program`` removes every region of a program whose
  regions hold, in one run, less work in all than starting the threads
  costs (``program_work``, property ``parallel_program_work``; by default
  twice this machine's measured thread start-up over 0.4 ns per statement
  execution, :mod:`passman.machine`: 1,000,000 at 200 us; 0, or
  ``min_work=0``, lifts it), where that work is known, and
  ``revert_function`` puts back as the file defines it every function whose
  loops are no deeper than they were (no tile: what changed served the
  regions only); where the regions'
  work cannot be counted (tiled or wavefront bounds), an upper bound of the
  whole program's work, taken before anything changed, stands for it;
  where nothing bounds it (a ``while`` loop, sizes from the input or the
  build), ``guard_team_start`` lets the run decide: the regions start the
  threads once the program has used that much processor time
  (``if(clock() >= PASSMAN_THREADS_AFTER * CLOCKS_PER_SEC)``);
* ``constants`` (default true) replaces integer parameters by the
  constant every call passes (``propagate_constant_arguments``), after the
  scheduler, and folds the scheduled functions' bounds that became
  constant (``partial_eval``);
* ``boundaries`` (default true): last, ``split_boundaries`` gives every
  loop whose body tests its index against a bound (clamped, zero-padded or
  periodic edges: ``i > 0 ? a[i - 1] : a[i]``, ``a[(i + 1) % n]``) a copy
  without the tests for the iterations where they are constant (Pochoir's
  interior clone, per loop; an ``omp for`` loop becomes three);
* ``verbose`` says why ``auto_schedule`` left a function as it was, why
  each loop left sequential is, and which regions got an ``if`` clause.
"""

from __future__ import annotations

from typing import Any

from passman import InvalidInput, PassFailed
from passman.recipe import attempt

#: ``--build`` and ``--run`` use the OpenMP backend (Makefile with -fopenmp, $(OPT) = -O3)
BACKEND = "openmp"

#: the pass the ``poly`` option runs first on every function
SCHEDULER = "auto_schedule"


def has_scheduler(ws) -> bool:
    """Whether the polyhedral scheduler (``auto_schedule``) is registered in ``ws``'s registry."""
    return SCHEDULER in ws.registry.passes


def schedule_options(
    ws,
    tile: bool | None = None,
    fusion: str = "",
    tile_sizes: str | None = None,
    wavefront: bool | None = None,
    time_tiling: str = "",
) -> dict[str, Any]:
    """The ``auto_schedule`` keyword arguments for the recipe's options (None, "": keep the property).

    ``tile_sizes`` not given falls back to the ``tile`` pass's property
    ``tile_sizes`` when the user set it (``--set tile_sizes=...`` on the
    command line lands there, the property being registered).
    """
    if tile_sizes is None and "tile_sizes" in ws.props:
        sizes = ws.props.tile_sizes
        default = ws.registry.properties["tile_sizes"].default
        if sizes and sizes != default:
            tile_sizes = ",".join(str(s) for s in sizes)
    if fusion and fusion not in ("smart", "none", "max"):
        raise InvalidInput(
            f"error: recipe option fusion must be smart, none or max, not {fusion!r}"
        )
    if time_tiling:
        from passman.passes.poly.time_tiling_choice import TIME_TILINGS

        if time_tiling not in TIME_TILINGS:
            raise InvalidInput(
                f"error: recipe option time_tiling must be one of {', '.join(TIME_TILINGS)}, not {time_tiling!r}"
            )
    given = {
        "tile": tile,
        "fusion": fusion or None,
        "tile_sizes": tile_sizes,
        "wavefront": wavefront,
        "time_tiling": time_tiling or None,
    }
    return {k: v for k, v in given.items() if v is not None}


def scheduled(module, options: dict[str, Any], verbose: bool = False) -> bool:
    """Run ``auto_schedule`` on one function; whether it transformed it.

    A refusal (no static-control part it can improve, a part it cannot
    regenerate, a schedule its legality check rejects) leaves the function
    as it was, for the coarse-grain path.
    """
    try:
        getattr(module, SCHEDULER)(**options)
    except PassFailed as why:
        if verbose:
            print(f"passman: {SCHEDULER} left {module.name} as it was: {why}")
        return False
    return True


def openmp(module, distribute: bool = True) -> bool:
    """Fig. 5.9 for one function: find parallelism, else distribute, then generate pragmas.

    Loops already marked (by ``auto_schedule``) keep their marker: the
    parallelizers skip them, and ``limit_nested_parallelism`` removes the
    markers they add inside. Reductions and private variables are analyses
    the parallelizers ask for (``module.display("reductions")``,
    ``module.display("private_variables")`` show them). Returns whether the
    function got an OpenMP pragma.
    """
    # whole loops, as they are, reductions included (Amini 2012 §4.3.2, §4.4); when
    # nothing is parallel as it is, distribution may find some
    attempt(module.coarse_grain_parallelization_with_reduction)
    if distribute:
        # the loops still sequential: one loop per dependence cycle, maximal parallel loops
        attempt(module.allen_kennedy_parallelization)
    # one parallel region per nest: drop markers nested in another parallel loop
    attempt(module.limit_nested_parallelism)
    # directive generation: #pragma omp parallel for private(...) reduction(...) collapse(n)
    if not attempt(module.ompify_code):
        return False  # no parallel loop in this function
    attempt(module.omp_merge_pragma)  # parallel-for pragmas left nested (the user's, say)
    return True


def loop_depth(node) -> int:
    """The most ``for`` loops nested in one another under ``node``."""
    from pycparser import c_ast

    from passman.astutil import child_nodes

    inner = max((loop_depth(c) for c in child_nodes(node)), default=0)
    return inner + 1 if isinstance(node, c_ast.For) else inner


def propagate_constants(ws) -> None:
    """Give functions the integer constants all their calls pass (callers first, to a fix point).

    The compiler sees them in the original when it inlines a kernel into
    ``main``; in an OpenMP region outlined from the kernel it no longer does.
    """
    while any([attempt(module.propagate_constant_arguments) for module in ws.all_functions]):
        pass  # every function tried in each round: a list, not a lazy any()


def main(
    ws,
    distribute: bool = True,
    min_work: int = 2000,
    region_work: int | None = None,
    constants: bool = True,
    verbose: bool = False,
    poly: bool = True,
    tile: bool | None = None,
    fusion: str = "",
    tile_sizes: str | None = None,
    wavefront: bool | None = None,
    program_work: int | None = None,
    time_tiling: str = "",
    boundaries: bool = True,
):
    """Parallelize every function of the program (see the module docstring).

    ``program_work``: the ``parallel_program_work`` property for this run
    (0: a program keeps its regions however little work they hold in all).
    """
    from passman.passes.parallel.parallelize import why_sequential
    from passman.passes.parallel.profitability import (
        region_decisions,
        user_openmp,
        whole_program_work,
    )
    from passman.passes.scalar.revert import original_definition

    options = schedule_options(ws, tile, fusion, tile_sizes, wavefront, time_tiling)  # checked before any change
    ws.props.parallel_min_work = min_work
    if region_work is not None:
        ws.props.parallel_region_work = region_work
    if program_work is not None:
        ws.props.parallel_program_work = program_work
    elif min_work == 0:
        ws.props.parallel_program_work = 0  # no guard on little work: none on the program's either
    use_poly = poly and has_scheduler(ws)
    # the whole program's work, bounded while its loops are still the user's: tiled and wavefront
    # bounds defeat the count of the regions' work (sequential_program falls back on this bound)
    original_work = whole_program_work(ws)[0] if ws.props.parallel_program_work else None
    done: set[str] = set()
    created: set[str] = set()
    if use_poly:
        # final pragmas: the scheduler checked every mark against the dependences, and the
        # loops it generates declare their iterators and write no scalar (no clauses needed);
        # re-analysing tiled wavefront code would cost minutes for nothing. Scheduled before
        # constants are propagated: isl's scheduler is fast on parametric sizes, and can take
        # minutes on constant-size boxes (heat_3d); the constants then reach the tiled code.
        options = {**options, "pragma": "omp parallel for"}
        before = {m.name for m in ws.all_functions}
        done = {m.name for m in ws.all_functions if scheduled(m, options, verbose)}
        # functions the scheduler created (a trapezoidal walk and its base case: OpenMP tasks
        # already, checked by their pass) take neither the coarse-grain path nor the model
        created = {m.name for m in ws.all_functions} - before
    if constants:
        propagate_constants(ws)
        for name in done:  # the scheduler's bounds on the constants: fold what became constant
            attempt(ws[name].partial_eval)
    for name in sorted(done):  # the scheduler's parallel loops, weighed on the final bounds
        if verbose:
            for loop, pays in region_decisions(ws[name], ws.props.parallel_min_work,
                                               ws.props.parallel_region_work):
                if pays.reason:
                    state = "guarded" if pays.parallel else "sequential"
                    print(f"passman: {state}: loop {loop.label} of {name}: {pays.reason}")
        attempt(ws[name].parallel_profitability)
    for module in ws.all_functions:
        if module.name in done or module.name in created:
            continue  # its other loops (outside static-control parts) stay as they are
        openmp(module, distribute)
        if verbose:
            for loop in module.all_loops:
                why = why_sequential(loop)
                if why:
                    print(f"passman: sequential: {why}")
    # the threads start once per run: a program whose regions hold too little work in all stays sequential
    try:
        ws.sequential_program(original_work=original_work)
        if verbose:
            print("passman: sequential: the whole program: its parallel regions hold too little work to pay "
                  "for starting the threads (property parallel_program_work)")
        # what served only the regions goes too: a function whose loops are no deeper than the user's got
        # no tiles, only an order for its regions (loops distributed, nests split: fdtd_2d's main ran
        # 8-10% slower); a tiled one keeps its tiles, which pay on one thread too (seidel_2d, lu)
        # (a function calling one the scheduler created, a trapezoidal walk, keeps its call: its loops moved there)
        for module in ws.all_functions:
            keep = module.name in created or any(c.name in created for c in module.callees)
            original = None if keep else original_definition(module)
            if original is not None and loop_depth(module.ast) <= loop_depth(original):
                if attempt(module.revert_function) and verbose:
                    print(f"passman: sequential: {module.name} is as the file defines it (no tile to keep)")
    except PassFailed as why:
        if verbose and "at least" not in str(why):
            print(f"passman: kept parallel: {why}")
        # nothing bounds one run's work (a while loop, sizes from the input or the build): the run decides
        try:
            ws.guard_team_start(original_work=original_work)
            if verbose:
                print("passman: guarded: the threads start once the program has run as long as starting them "
                      "is worth (PASSMAN_THREADS_AFTER seconds of processor time)")
        except PassFailed:
            pass
    # a sequential loop of parallel loops (a time loop, a wavefront's fronts) opens one region, not one
    # per step; the user's own OpenMP is left as written. After the program rule: a region whose if
    # clause asks the run (clock()) is not hoisted, its one test before the loop would decide it all
    if not user_openmp(ws):
        for module in ws.all_functions:
            attempt(module.hoist_parallel_regions)
    # last, the loops whose bodies test their index against a bound (clamped or zero-padded edges) run
    # their middle iterations through a copy without the tests (Pochoir's interior clone, per loop)
    if boundaries:
        for module in ws.all_functions:
            attempt(module.split_boundaries)
