"""Automatic parallelization: the passes that mark the loops able to run in parallel.

They read the parallel-loop analysis (:mod:`.verdicts`, resource
``parallel_loops``: one :class:`~.parallel.LoopVerdict` per loop) and record
their decisions in the IR as an internal pragma right before the loop, which
:mod:`.ompify` later turns into OpenMP::

    #pragma passman parallel private(j, t) lastprivate(i) reduction(+:s)
    for (i = 0; i < n; i++) ...

* ``coarse_grain_parallelization``: every loop the analysis proves parallel
  as it is (no transformation, no reduction), Amini 2012 §4.3.2;
* ``coarse_grain_parallelization_with_reduction``: also the loops whose only
  conflicts are on reduced references; the marker carries ``reduction(op:x)``
  clauses (array sections for array reductions, refused when the array's
  extent is unknown);
* ``allen_kennedy_parallelization``: distributes the loops still sequential
  into the strongly connected components of their dependence graph (the
  transformation library's ``loop_distribution``) where a component becomes
  parallel, then marks the parallel loops (maximal parallel loops);
* ``limit_nested_parallelism``: keeps at most ``depth`` levels of parallel
  regions in each nest (a perfect rectangular nest that ``ompify_code`` will
  collapse counts as one level).

Profitability (:mod:`.profitability`): a loop whose estimated work per
execution, ``trip_count × work_estimate`` (statement executions), is known
and below ``min_work`` stays sequential, with a reason; a loop inside a
sequential loop (its region would open at each iteration of it) needs
``region_work`` per region (the fork/join cost at two threads); work that
depends on parameters gives the marker an ``if(...)`` clause with the
threshold, checked at run time; unknown work counts as profitable.
``min_work`` defaults to the global property ``parallel_min_work`` (2000),
``region_work`` to ``parallel_region_work``.

Never is a loop marked that the analysis does not prove parallel; every loop
left sequential can say why: :func:`why_sequential` (the analysis's reasons,
or the profitability guard's).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from passman import Loop, Module, PassFailed, register_property, transformation
from passman.astutil import walk

from ..cfacts.names import where
from .marker import (  # noqa: F401 - the marker API is part of this module's
    MARKER,
    ParallelMarker,
    collapse_chain,
    constant_value,
    has_omp_pragma,
    inside,
    is_marked_parallel,
    marker,
    placement_problem,
    remove_marker,
    set_marker,
)
from .omp_clauses import private_array_problem, reduction_items
from .profitability import Profitability, profitability
from .verdicts import LoopVerdict, loop_verdict

__all__ = [
    "MARKER",
    "ParallelMarker",
    "allen_kennedy_parallelization",
    "coarse_grain_parallelization",
    "coarse_grain_parallelization_with_reduction",
    "estimated_work",
    "has_omp_pragma",
    "is_marked_parallel",
    "limit_nested_parallelism",
    "mark_parallel_loops",
    "marker",
    "remove_marker",
    "set_marker",
    "unprofitable",
    "why_sequential",
]

MIN_WORK = register_property(
    "parallel_min_work",
    int,
    2000,
    "loops whose estimated work (iterations x statements per iteration) is known and below this stay sequential",
)


# ------------------------------------------------------------------------ profitability


def estimated_work(v: LoopVerdict) -> int | None:
    """Statement executions of one execution of the loop, ``trip_count × work_estimate``, if known."""
    trips = constant_value(v.trip_count)
    if trips is None or v.work_estimate is None:
        return None
    return max(trips, 0) * v.work_estimate


def _min_work(module: Module, min_work: int | None) -> int:
    return module.ws.props.parallel_min_work if min_work is None else min_work


def _region_work(module: Module, region_work: int | None) -> int:
    return module.ws.props.parallel_region_work if region_work is None else region_work


def loop_profitability(loop: Loop, min_work: int, region_work: int) -> Profitability:
    """The profitability model's decision for ``loop``, the parallel loops around it not counted as repeating it."""
    verdicts = loop.module.resource("parallel_loops")
    parallel_around: set[int] = set()
    outer = loop.outer
    while outer is not None:
        v = verdicts.get(outer.label)
        if is_marked_parallel(outer) or has_omp_pragma(outer) or (v is not None and v.parallel):
            parallel_around.add(id(outer.node))
        outer = outer.outer
    return profitability(loop, min_work, region_work, lambda node: id(node) in parallel_around)


def unprofitable(v: LoopVerdict, min_work: int) -> str | None:
    """Why the profitability guard keeps a parallel loop sequential (None: worth parallelizing)."""
    work = estimated_work(v)
    if work is None or work >= min_work:
        return None
    return (
        f"too little work to run in parallel: {v.trip_count} iterations x {v.work_estimate} "
        f"statement(s) = {work} < {min_work} (property parallel_min_work)"
    )


# ------------------------------------------------------------------------ marking


@dataclass
class _Outcome:
    marked: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)


def _skip(loop: Loop) -> bool:
    """Loops already decided: marked, carrying an OpenMP pragma, or inside one that does."""
    return (
        is_marked_parallel(loop)
        or has_omp_pragma(loop)
        or inside(loop, has_omp_pragma)
    )


def verdict_marker(loop: Loop, v: LoopVerdict, with_reductions: bool, min_work: int,
                   region_work: int | None = None) -> tuple[ParallelMarker | None, str]:
    """The marker a parallel loop gets, or None and why it stays sequential."""
    head = f"{where(loop.node)}: loop {loop.label} of {loop.module.name}"
    if not v.parallel:
        why = "; ".join(v.reasons) or "the analysis cannot prove it parallel"
        return None, f"{head} is not parallel: {why}"
    if v.reductions and not with_reductions:
        reds = " ".join(r.text for r in v.reductions)
        return None, f"{head} is parallel only with reductions ({reds}): use coarse_grain_parallelization_with_reduction"
    items, why = reduction_items(loop, v) if v.reductions else ((), None)
    if why:
        return None, f"{head}: {why}"
    why = placement_problem(loop) or private_array_problem(loop, v)
    if why:
        return None, f"{head}: {why}"
    pays = loop_profitability(loop, min_work, _region_work(loop.module, region_work))
    if not pays.parallel:
        return None, f"{head}: {pays.reason}"
    return ParallelMarker(tuple(v.private), tuple(v.lastprivate), items, pays.condition, pays.versioned), ""


def mark_parallel_loops(module: Module, with_reductions: bool, min_work: int,
                        region_work: int | None = None) -> _Outcome:
    """Mark every loop of ``module`` proven parallel and profitable (inside a transformation)."""
    out = _Outcome()
    verdicts = module.resource("parallel_loops")
    for loop in module.all_loops:
        if _skip(loop):
            continue
        v = verdicts.get(loop.label) or loop_verdict(loop)
        m, why = verdict_marker(loop, v, with_reductions, min_work, region_work)
        if m is None:
            out.reasons.append(why)
            continue
        set_marker(loop, m)
        out.marked.append(loop.label)
    return out


def _refuse(module: Module, what: str, reasons: list[str]) -> PassFailed:
    detail = "; ".join(reasons[:3]) + (f" (and {len(reasons) - 3} more)" if len(reasons) > 3 else "")
    return PassFailed(f"{what} in {module.name}" + (f": {detail}" if detail else ""))


@transformation(scope="module", requires=["parallel_loops"], preserves=["callgraph"], reads=["function_references", "function_scope", "private_variables", "unit_scope"])
def coarse_grain_parallelization(module: Module, min_work: int | None = None, region_work: int | None = None) -> None:
    """Mark the loops proven parallel as they are (no transformation, no reduction).

    Before::

        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++) {
                t = A[i][j];
                B[i][j] = t * t;
            }

    After::

        #pragma passman parallel private(j, t)
        for (i = 0; i < n; i++)
            #pragma passman parallel private(t)     (in a block of its own)
            for (j = 0; j < n; j++) { ... }

    Every loop the analysis proves parallel is marked, nested ones too
    (``limit_nested_parallelism`` and ``ompify_code`` choose among them).
    Loops needing reductions, loops with too little work, loops already
    under an OpenMP pragma stay as they are. Refused when no loop of the
    function can be marked (the reasons of the first loops are given).

    Properties:

    - min_work: the profitability threshold, in statement executions per execution of the loop (None: property parallel_min_work, 2000)
    - region_work: the threshold of a loop inside a sequential loop, per region (None: property parallel_region_work)
    """
    out = mark_parallel_loops(module, False, _min_work(module, min_work), region_work)
    if not out.marked:
        raise _refuse(module, "no parallel loop", out.reasons)


@transformation(scope="module", requires=["parallel_loops"], preserves=["callgraph"], reads=["function_references", "function_scope", "private_variables", "unit_scope"])
def coarse_grain_parallelization_with_reduction(module: Module, min_work: int | None = None, region_work: int | None = None) -> None:
    """Like ``coarse_grain_parallelization``, also marking loops parallel up to reductions.

    Conflicts on reduced references are ignored and the marker says how to
    combine the partial results (Amini 2012 §4.4)::

        #pragma passman parallel reduction(+:s) reduction(max:m)
        for (i = 0; i < n; i++) {
            s += a[i] * b[i];
            m = fmax(m, a[i]);
        }

    An array reduction (``hist[a[i]]++``) becomes an array section of the
    declared extent (``reduction(+:hist[0:256])``); when the extent is not
    known the loop stays sequential. Floating-point reductions change the
    order of the operations (the result may differ in the last bits).

    Properties:

    - min_work: the profitability threshold (None: property parallel_min_work, 2000)
    - region_work: the threshold of a loop inside a sequential loop, per region (None: property parallel_region_work)
    """
    out = mark_parallel_loops(module, True, _min_work(module, min_work), region_work)
    if not out.marked:
        raise _refuse(module, "no parallel loop, even with reductions,", out.reasons)


def _gains(loop: Loop) -> bool:
    """Whether distributing ``loop`` gives a component that no dependence carried by the loop ties.

    The dependences of the loop's SCoP between statements of one component
    of the distribution (as the transformation library plans it), carried by
    the loop, on variables that are neither private to it nor reduced by it.
    """
    from ..loops.fusion import plan_distribution

    try:
        groups, items, _ = plan_distribution(loop)
    except PassFailed:
        return False
    if len(groups) < 2:
        return False
    deps = loop.module.resource("dependences")
    carried = deps.carried_at(loop.label)
    if carried is None:
        return False
    v = loop_verdict(loop)
    free = set(v.private) | set(v.lastprivate) | {r.var for r in v.reductions}
    owner: dict[int, int] = {}
    for k, it in enumerate(items):
        for n in walk(it):
            owner[id(n)] = k
    for group in groups:
        members = set(group)
        tied = any(
            owner.get(id(d.source_stmt.node)) in members
            and owner.get(id(d.sink_stmt.node)) in members
            and d.source.var not in free
            for d in carried
        )
        if not tied:
            return True
    return False


@transformation(scope="module", requires=["parallel_loops"], preserves=["callgraph"], reads=["cumulated_effects", "dependences", "function_references", "function_scope", "private_variables", "unit_scope"])
def allen_kennedy_parallelization(module: Module, min_work: int | None = None, region_work: int | None = None) -> None:
    """Allen–Kennedy: distribute sequential loops into strongly connected components, mark the parallel ones.

    Before::

        for (i = 1; i < n; i++) {
            a[i] = b[i] + 1;
            c[i] = c[i - 1] + a[i];
        }

    After::

        #pragma passman parallel
        for (i = 1; i < n; i++)
            a[i] = b[i] + 1;
        for (i = 1; i < n; i++)
            c[i] = c[i - 1] + a[i];

    Loops the analysis does not prove parallel, outer first, that are not
    inside a parallel loop, are distributed by the transformation library's
    ``loop_distribution`` (components in topological order, each statement
    with everything it shares a dependence cycle with) when a component is
    free of the dependences the loop carries; then every loop proven
    parallel is marked as ``coarse_grain_parallelization_with_reduction``
    does. Refused when nothing is distributed and nothing is parallel.

    Properties:

    - min_work: the profitability threshold (None: property parallel_min_work, 2000)
    - region_work: the threshold of a loop inside a sequential loop, per region (None: property parallel_region_work)
    """
    tried: set[str] = set()
    distributed = True
    while distributed:
        distributed = False
        verdicts = module.resource("parallel_loops")
        for loop in module.all_loops:
            if loop.label in tried or _skip(loop):
                continue
            v = verdicts.get(loop.label)
            if v is None or v.parallel:
                continue
            if inside(loop, lambda o, vs=verdicts: getattr(vs.get(o.label), "parallel", False)):
                continue
            tried.add(loop.label)
            if not _gains(loop):
                continue
            try:
                module.loop_distribution(label=loop.label)
            except PassFailed:
                continue
            distributed = True
            break  # the analyses are recomputed on the distributed code
    out = mark_parallel_loops(module, True, _min_work(module, min_work), region_work)
    if not out.marked:
        raise _refuse(module, "no parallel loop after distribution", out.reasons)


@transformation(scope="module", preserves=["callgraph"])
def limit_nested_parallelism(module: Module, depth: int = 1) -> None:
    """Keep at most ``depth`` nested levels of parallel loops: remove the inner markers.

    Before::

        #pragma passman parallel private(k, j)
        for (i = 0; i < n; i++)
            for (k = 0; k < n; k++)
                #pragma passman parallel
                for (j = 0; j < n; j++) ...

    After: the marker of the ``j`` loop is gone (one parallel region per
    nest: nested regions only add overhead). A marked loop that is the whole
    body of its marked parent, with rectangular bounds (what
    ``ompify_code`` will collapse into one ``collapse(n)`` pragma), stays
    marked and counts at its parent's level. Refused when nothing is removed.

    Properties:

    - depth: how many nested parallel levels to keep (default 1)
    """
    removed = 0
    for loop in module.all_loops:
        if not is_marked_parallel(loop):
            continue
        level = _region_level(loop)
        if level > depth:
            remove_marker(loop)
            removed += 1
    if not removed:
        raise PassFailed(f"no parallel loop of {module.name} is nested deeper than {depth} level(s)")


def _region_level(loop: Loop) -> int:
    """1 + the number of parallel regions around ``loop`` (a collapsed nest is one region)."""
    level, inner = 1, loop
    outer = loop.outer
    while outer is not None:
        if is_marked_parallel(outer) or has_omp_pragma(outer):
            if inner not in collapse_chain(outer):
                level += 1
            inner = outer
        outer = outer.outer
    return level


# ------------------------------------------------------------------------ explanations


def why_sequential(loop: Loop, min_work: int | None = None, region_work: int | None = None) -> str | None:
    """Why ``loop`` is not parallel in the code as it is now (None when it is).

    A loop with an OpenMP pragma, a marker, or inside such a loop is
    parallel (or part of a parallel region); otherwise the analysis's
    reasons (``loop.why_not_parallel()``), the reduction it cannot express,
    or the profitability guard.
    """
    if is_marked_parallel(loop) or has_omp_pragma(loop):
        return None
    if inside(loop, lambda o: is_marked_parallel(o) or has_omp_pragma(o)):
        return f"loop {loop.label} of {loop.module.name} runs inside a parallel loop (one parallel region per nest)"
    v = loop_verdict(loop)
    _, why = verdict_marker(loop, v, True, _min_work(loop.module, min_work), region_work)
    return why or f"loop {loop.label} of {loop.module.name} is parallel but was not parallelized"
