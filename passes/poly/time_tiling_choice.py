"""Which time loops ``auto_schedule`` gives time tiles (``time_tile``'s), and how: the models.

Two questions per static control part, answered from the measurements of
``benchmarks/results/stencils-2026-11-24.md`` (2 threads):

1. Does ``time_tile`` pay? On a time loop of parallel steps (Jacobi 1-D/2-D,
   the 9-point Jacobi, heat-3d, FDTD-2d: :func:`parallel_time_steps`) with
   enough work, yes: diamond tiles beat the coarse-grain path out of the
   cache (static fronts 1.6-3.8x over gcc -O3, coarse grain 1.1-2.0x) and in
   it (tasks 0.9-2.1x, coarse grain 0.04-0.3x, except FDTD: 1.7x against
   2.0x). Gauss-Seidel's steps are not parallel: a diamond is illegal there
   and the skewed tiles measured 0.89x of coarse grain, below
   ``auto_schedule``'s own wavefront: it keeps that path.
2. Static fronts or tasks? Tasks where the part's data fit in the
   last-level cache (no barrier; 1.03-2.13x against 0.86-1.62x for static),
   static fronts where they do not or their size is unknown (jacobi-2d 3.23x
   against 2.63x, heat-3d 1.61x against 1.20x: the tasks' creation order
   loses the streaming locality of a front).

``auto_schedule``'s properties ``time_tiling`` (``auto``, ``off``,
``diamond``, ``skewed``) and ``time_tiling_schedule`` (``auto``, ``tasks``,
``static``) override both answers. The older cache-fit model of
``auto_schedule``'s own wavefront (:func:`time_tiling_pays`) still decides
for the parts left to it (``time_tiling=off``, or ``time_tile`` refused).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from passman import Module

from ..cfacts.sideeffects import variables
from .dependences import Dependence, Dependences
from .footprint import box_size, cache_budget, data_footprint, known_parameters
from .scop import Scop
from .time_tiling import time_loop_problem

#: type of ``auto_schedule``'s property ``time_tiling`` (any other value is refused when set)
TimeTilingMode = Literal["auto", "off", "diamond", "skewed", "split", "hybrid", "balanced", "trapezoid"]
#: type of ``auto_schedule``'s property ``time_tiling_schedule``
TimeTilingSchedule = Literal["auto", "tasks", "static"]
#: values of ``auto_schedule``'s property ``time_tiling``
TIME_TILINGS = get_args(TimeTilingMode)
#: values of ``auto_schedule``'s property ``time_tiling_schedule``
TIME_SCHEDULES = get_args(TimeTilingSchedule)

#: statement instances a part needs (where its sizes are known) for time tiles to pay in
#: ``auto`` mode: a few model tiles per thread (jacobi-2d's 64x64x128 diamonds hold 2^18)
MIN_TIME_TILED_WORK = 1 << 18


@dataclass(frozen=True)
class TimeTiling:
    """How ``auto_schedule`` time-tiles one part: ``time_tile``'s shape and schedule, and why."""

    shape: str
    schedule: str
    why: str


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
    if schedule == "auto":
        schedule = "tasks" if fits else "static"
    where = "in" if fits else "out of"
    why = f"{data}, {where} the {budget / 2**20:.0f} MiB cache: {schedule}"
    if mode != "auto":
        return TimeTiling(mode, schedule, f"{part.where}: {mode} time tiles forced ({why})")
    steps = parallel_time_steps(part, deps)
    if steps is None:
        return None  # Gauss-Seidel-like: auto_schedule's wavefront measured faster
    work = part_work(module, part)
    if work is not None and work < MIN_TIME_TILED_WORK:
        return None
    return TimeTiling("diamond", schedule, f"{steps}: diamond time tiles ({why})")


def parallel_time_steps(part: Scop, deps: Dependences) -> str | None:
    """Whether ``part`` is a time loop of parallel steps: a description of it, else None.

    The part's outer loop is sequential, its index appears in no bound of the
    loops inside, and every statement sits in a loop of the step that is
    parallel as it is (Jacobi 1-D/2-D, heat-3d, FDTD). Each step then has a
    full, constant amount of parallel work; unlike Gauss–Seidel or LU, whose
    steps have no parallel loop or shrinking ones, such a part gains from a
    wavefront of time tiles only through the cache (see :func:`time_tiling_pays`).
    """
    outer = {s.loops[0].node: s.loops[0] for s in part.statements if s.loops}
    if len(outer) != 1 or len(part.statements) != sum(1 for s in part.statements if s.loops):
        return None
    (time,) = outer.values()
    if time.label is None or deps.is_parallel(time.label) is not False:
        return None
    for s in part.statements:
        if len(s.loops) < 2:
            return None  # a statement of the step outside its loops
        step = s.loops[1]
        if step.label is None or not deps.is_parallel(step.label):
            return None
        for lp in s.loops[1:]:
            bounds = [lp.node.init, lp.node.cond]
            if any(v.name == time.var for b in bounds if b is not None for v in variables(b)):
                return None
    return f"{part.where}: loop {time.var} repeats steps whose loops are parallel as they are"


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
