"""Which time loops ``auto_schedule`` gives time tiles (``time_tile``'s), and how: the models.

Four questions per static control part, answered from the measurements of
``benchmarks/results/stencils-2026-11-28.md`` (2 threads, a quiet host, the
tile-size model of that day):

1. Does ``time_tile`` pay on a time loop of parallel steps (Jacobi 1-D/2-D,
   the 9-point Jacobi, heat-3d, FDTD-2d: :func:`parallel_time_steps`) with
   enough work? Out of the last-level cache, always: diamond tiles with
   static fronts ran 2.3-5.4x over gcc -O3 where the coarse-grain path ran
   1.4-1.9x. In the cache, only for 1-D steps (jacobi-1d: tasks 1.8-2.1x,
   coarse grain 1.2-1.6x: a fork/join per short step). 2-D and 3-D steps in
   the cache stay on the coarse-grain path: diamond tiles tied or lost there
   (jacobi-2d 1.71x static against 1.70x coarse, the 9-point 1.56x against
   1.69x, FDTD 1.15x against 1.29x; tasks 1.0-1.3x).
2. Static fronts or tasks? Static out of the cache (the tasks' creation
   order loses the streaming locality of a front: jacobi-2d 2.8x against
   4.9x), tasks in it (1-D: no barrier per front).
3. In the cache, the transposed layout (``dlt``, :mod:`.dlt`: SDSL's DLT,
   one region, the sweeps shared out) beats both for 1-D steps (jacobi-1d:
   2.2-2.5x where coarse grain ran 1.7-2.0x and the diamond tasks 1.6-1.8x;
   diamond tasks where ``dlt`` refuses) and for 2-D steps with rows of
   :data:`DLT_MIN_ROW` points or more (jacobi-2d, the 9-point, FDTD at
   400-500 points: 1.0-1.2x over coarse grain); 3-D steps and short rows
   (heat-3d's 80) keep the coarse-grain path.
4. A Gauss-Seidel step (in place, uniform dependences:
   :func:`in_place_time_steps`) is not parallel: a diamond is illegal, and
   skewed tiles with static fronts, with the model's short innermost rows,
   ran 3.5-3.7x over gcc -O3 where ``auto_schedule``'s own wavefront ran
   1.6-2.1x. LU-like parts keep that path.

``auto_schedule``'s properties ``time_tiling`` (``auto``, ``off``,
``diamond``, ``skewed``, ...) and ``time_tiling_schedule`` (``auto``,
``tasks``, ``static``) override these answers (a forced schedule also
time-tiles 2-D and 3-D steps in the cache). The older cache-fit model of
``auto_schedule``'s own wavefront (:func:`time_tiling_pays`) still decides
for the parts left to it (``time_tiling=off``, or ``time_tile`` refused).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from passman import Module

from ..cfacts.names import where
from ..cfacts.sideeffects import variables
from .dependences import Dependence, Dependences
from .footprint import array_extents, box_size, cache_budget, data_footprint, known_parameters
from .schedule_check import part_problem
from .scop import Scop, ScopLoop


def time_loop_problem(part: Scop, deps: Sequence[Dependence]) -> str | None:
    """Why ``part`` is not a time-iterated stencil (None: it is one).

    Every statement sits in the part's outer loop (time) and in at least
    one loop inside it (space), and the time loop carries a dependence.
    """
    why = part_problem(part)
    if why is not None:
        return why
    outer = {id(s.loops[0].node) for s in part.statements if s.loops}
    if len(outer) != 1 or any(not s.loops for s in part.statements):
        return f"{part.where}: not a time loop: the part's statements are not all in one outer loop"
    time = part.statements[0].loops[0]
    flat = [s for s in part.statements if s.depth < 2]
    if flat:
        return f"{where(flat[0].node)}: not a stencil: a statement of loop {time.var} is in no loop inside it"
    if not any(d.level == 1 and not d.relation.is_empty() for d in deps):
        return f"{part.where}: loop {time.var} carries no dependence: not a time loop (parallel as it is)"
    return None


#: type of ``auto_schedule``'s property ``time_tiling`` (any other value is refused when set)
TimeTilingMode = Literal["auto", "off", "diamond", "skewed", "split", "hybrid", "balanced", "trapezoid", "dlt"]
#: type of ``auto_schedule``'s property ``time_tiling_schedule``
TimeTilingSchedule = Literal["auto", "tasks", "static"]
#: values of ``auto_schedule``'s property ``time_tiling``
TIME_TILINGS = get_args(TimeTilingMode)
#: values of ``auto_schedule``'s property ``time_tiling_schedule``
TIME_SCHEDULES = get_args(TimeTilingSchedule)

#: points of a 2-D step's rows from which the transposed layout (``dlt``) is chosen in the cache
DLT_MIN_ROW = 256
#: statement instances a part needs (where its sizes are known) for time tiles to pay in
#: ``auto`` mode: a few model tiles per thread (jacobi-2d's 64x64x128 diamonds hold 2^18)
MIN_TIME_TILED_WORK = 1 << 18


@dataclass(frozen=True)
class TimeTiling:
    """How ``auto_schedule`` time-tiles one part: ``time_tile``'s shape and schedule, and why."""

    shape: str
    schedule: str
    why: str
    #: for ``shape="dlt"``: the shape where ``dlt`` refuses (None: ``auto_schedule``'s own path)
    fallback: str | None = None


def part_work(module: Module, part: Scop) -> int | None:
    """Statement instances of ``part`` (bounding box of each domain), None where a size is unknown."""
    values = known_parameters(module, part)
    total = 0
    for s in part.statements:
        count = box_size(s.domain, values)
        if count is None:
            return None
        total += count
    return total


def choose_time_tiling(
    module: Module,
    part: Scop,
    deps: Dependences,
    mode: str = "auto",
    schedule: str = "auto",
    cache_size: int = 0,
) -> TimeTiling | None:
    """Whether and how to time-tile ``part`` (None: ``auto_schedule``'s own path), see the module docstring.

    ``mode``: ``"auto"`` (the model), ``"off"``, or a shape forced on every
    time loop (:func:`.time_tiling.time_loop_problem`); ``schedule``:
    ``"auto"`` (the cache-fit model, ``cache_size`` bytes of last-level
    cache, 0: this machine's) or forced.
    """
    if mode == "off":
        return None
    part_deps: Sequence[Dependence] = deps.of_scop(part)
    if time_loop_problem(part, part_deps) is not None:
        return None
    values = known_parameters(module, part)
    size = data_footprint(part, values)
    budget = cache_budget(cache_size)
    fits = size is not None and size <= budget
    data = f"{size / 2**20:.1f} MiB of data" if size is not None else "data of unknown size"
    schedule_mode = schedule
    if schedule == "auto":
        schedule = "tasks" if fits else "static"
    where = "in" if fits else "out of"
    why = f"{data}, {where} the {budget / 2**20:.0f} MiB cache: {schedule}"
    if mode != "auto":
        return TimeTiling(mode, schedule, f"{part.where}: {mode} time tiles forced ({why})")
    work = part_work(module, part)
    if work is not None and work < MIN_TIME_TILED_WORK:
        return None
    steps = parallel_time_steps(part, deps)
    if steps is None:
        in_place = in_place_time_steps(part, deps)
        if in_place is None:
            return None  # LU-like steps: auto_schedule's own path
        chosen = "static" if schedule_mode == "auto" else schedule
        return TimeTiling("skewed", chosen, f"{in_place}: skewed time tiles ({data}: {chosen})")
    depth = max(len(s.loops) for s in part.statements) - 1
    dlt = f"{steps}: transposed layout, one region, sweeps shared out ({why})"
    if fits and depth == 1 and schedule_mode == "auto":
        # in the cache, a 1-D step runs at the core's speed: time tiles save no memory time, but the
        # transposed layout (DLT) makes its vectors whole (jacobi-1d: 1.34x on one thread)
        return TimeTiling("dlt", schedule, dlt, fallback="diamond")
    if fits and depth == 2 and schedule_mode == "auto" and (innermost_extent(part, values) or 0) >= DLT_MIN_ROW:
        # rows long enough for the transposed layout's fixed costs per row (a call, the lanes' ends):
        # 1.06-1.11x over coarse grain at 500 points, a tie at 400, 0.93 for heat-3d's rows of 80
        return TimeTiling("dlt", schedule, dlt)
    if fits and depth > 1 and schedule_mode == "auto":
        return None  # in the cache, 2-D and 3-D steps: the coarse-grain path is as fast
    return TimeTiling("diamond", schedule, f"{steps}: diamond time tiles ({why})")


def innermost_extent(part: Scop, values: dict[str, int]) -> int | None:
    """The fewest elements the innermost subscript of an array of ``part``'s deepest rank spans (the
    rows a transposed layout would cut in lanes); None where one is unknown."""
    extents = array_extents(part, values)
    rank = max((len(e) for e in extents.values()), default=0)
    rows = [e[-1] for e in extents.values() if len(e) == rank and rank > 0]
    if not rows or any(r is None for r in rows):
        return None
    return min(rows)


def _rectangular_time_loop(part: Scop) -> ScopLoop | None:
    """The part's time loop when its statements all sit in it and in steps whose bounds do not use it."""
    outer = {s.loops[0].node: s.loops[0] for s in part.statements if s.loops}
    if len(outer) != 1 or len(part.statements) != sum(1 for s in part.statements if s.loops):
        return None
    (time,) = outer.values()
    if time.label is None:
        return None
    for s in part.statements:
        if len(s.loops) < 2:
            return None  # a statement of the step outside its loops
        for lp in s.loops[1:]:
            bounds = [lp.node.init, lp.node.cond]
            if any(v.name == time.var for b in bounds if b is not None for v in variables(b)):
                return None
    return time


def parallel_time_steps(part: Scop, deps: Dependences) -> str | None:
    """Whether ``part`` is a time loop of parallel steps: a description of it, else None.

    The part's outer loop is sequential, its index appears in no bound of the
    loops inside, and every statement sits in a loop of the step that is
    parallel as it is (Jacobi 1-D/2-D, heat-3d, FDTD). Each step then has a
    full, constant amount of parallel work; unlike Gauss–Seidel or LU, whose
    steps have no parallel loop or shrinking ones, such a part gains from a
    wavefront of time tiles only through the cache (see :func:`time_tiling_pays`).
    """
    time = _rectangular_time_loop(part)
    if time is None or deps.is_parallel(time.label) is not False:
        return None
    for s in part.statements:
        step = s.loops[1]
        if step.label is None or not deps.is_parallel(step.label):
            return None
    return f"{part.where}: loop {time.var} repeats steps whose loops are parallel as they are"


def in_place_time_steps(part: Scop, deps: Dependences) -> str | None:
    """Whether ``part`` is an in-place stencil (Gauss-Seidel): a description of it, else None.

    A time loop of rectangular steps of two loops or more (as
    :func:`parallel_time_steps`) whose steps are not parallel, and whose direct dependences all have constant
    distances: the values of one step flow to the next points of the same
    step. Skewed time tiles (the only shape legal there) with static fronts
    and the model's short innermost rows measured 3.3x (in the cache) and
    4.2x (out of it) over gcc -O3, where ``auto_schedule``'s own wavefront
    ran 2.2x and 1.6x (seidel-2d, 2026-11-28). LU, Cholesky or
    Floyd-Warshall (distances that depend on the iteration) are not such parts.
    """
    time = _rectangular_time_loop(part)
    if time is None or deps.is_parallel(time.label) is not False:
        return None
    if parallel_time_steps(part, deps) is not None:
        return None
    if any(len(s.loops) < 3 for s in part.statements):
        return None  # steps of one loop (a 2-deep wavefront nest): isl's path, not measured otherwise
    # the direct (value-based, nearest) dependences: the memory-based ones are chains of them
    mine = [d for d in deps.of_scop(part) if d.is_direct]
    if not mine or not all(d.uniform for d in mine):
        return None
    return f"{part.where}: loop {time.var} repeats in-place steps of uniform dependences"


#: the depth of the steps (loops inside the time loop) where time tiles measured faster
TILED_STEP_DEPTH = 2


def time_tiling_pays(module: Module, part: Scop, deps: Dependences, cache_size: int) -> str | None:
    """Why a wavefront of time tiles does not pay on ``part`` (None: it may): the cache-fit model.

    On a time loop of parallel steps (:func:`parallel_time_steps`) whose data
    fit in the last-level cache (``cache_size`` bytes; 0: this machine's,
    :func:`.footprint.cache_budget`), every step reads its data from the
    cache and the parallel loops of the coarse-grain path are as fast as
    time tiles, without their guards and wavefront start-up: the part is
    left to that path. Data that do not fit, or whose size is not known,
    are time-tiled when every step is a 2-deep nest (Jacobi 2-D, 125 MiB:
    2.7x over gcc -O3 at 2 threads, against 1.4x for the coarse-grain path). Other
    steps stay on the coarse-grain path, measured faster there
    (benchmarks/bench_polly.py, out-of-cache sizes): 1-D steps give a
    wavefront of at most T/32 tiles of 32x32 points per front, too little
    work per synchronization (jacobi_1d 0.55x against 1.6x); 3-D steps give
    32^4 tiles whose data exceed the mid-level cache (heat_3d 0.8x against
    1.7x); steps mixing nest depths (FDTD's boundary row) 1.0x against 1.7x.
    """
    steps = parallel_time_steps(part, deps)
    if steps is None:
        return None
    force = "auto_schedule_force_wavefront=true forces time tiles"
    depths = {len(s.loops) - 1 for s in part.statements}
    if depths != {TILED_STEP_DEPTH}:
        shape = "nests of different depths" if len(depths) > 1 else f"{depths.pop()}-deep nests"
        return f"{steps}, {shape}: left to the coarse-grain path (faster there; {force})"
    size = data_footprint(part, known_parameters(module, part))
    budget = cache_budget(cache_size)
    if size is None or size > budget:
        return None
    return (
        f"{steps}, and their data ({size / 2**20:.1f} MiB) fit in the cache "
        f"({budget / 2**20:.0f} MiB): left to the coarse-grain path ({force})"
    )
