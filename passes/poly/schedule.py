"""Pluto-style automatic scheduling of static control parts: ``auto_schedule``, ``apply_schedule``.

For each SCoP (:mod:`.scop`) of a function, isl's scheduler computes an
affine schedule that respects every memory-based dependence (flow, anti,
output, MAY accesses included: :mod:`.dependences`), minimises dependence
distances (proximity) and looks for outer parallel loops (coincidence):
tiling hyperplanes as in Pluto, including the time skew of Jacobi-style
stencils. :mod:`.tile_band` then tiles the permutable bands, puts a
stride-1 loop innermost, turns a band without parallel member into a
wavefront of tiles, and marks the outermost parallel loop
``passman parallel`` and vectorisable innermost loops ``omp simd``.
Nests isl leaves unordered (a ``set`` node: independent components) keep the
source's order (:func:`textual_sets`). :func:`check_schedule` checks the final schedule against every dependence
before :mod:`.codegen` regenerates the part. A time loop of parallel steps
(Jacobi-style stencils) first gets ``time_tile``'s diamond tiles where
:mod:`.time_tiling_choice` says they pay (property ``time_tiling``); a
refusal leaves the part to the path above.

Before (``module.auto_schedule()``)::

    for (i = 0; i < ni; i++)
        for (k = 0; k < nk; k++)
            for (j = 0; j < nj; j++)
                C[i][j] += alpha * A[i][k] * B[k][j];

After (shape)::

    #pragma passman parallel
    for (int c0 = 0; c0 < ni; c0 += 32)
        for (int c1 = 0; c1 < nj; c1 += 64)
            for (int c2 = 0; c2 < nk; c2 += 32)
                for (int c3 = c0; c3 < (ni < c0 + 32 ? ni : c0 + 32); c3++)
                    for (int c4 = c2; c4 < ...; c4++)
                        #pragma omp simd
                        for (int c5 = c1; c5 < ...; c5++)
                            C[c3][c5] += alpha * A[c3][c4] * B[c4][c5];
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from typing import Literal, get_args

import islpy as isl

from passman import Module, PassFailed, transformation
from passman.deadline import Child, Clock, DeadlineExceeded, function_budget

from .affine import ctx, operation_budget, out_of_operations
from .dependences import Dependence, Dependences
from .schedule_check import (
    check_schedule,
    loop_declarations,
    parse_sizes,
    part_problem,
    same_order,
    validity,
)
from .scop import Scop
from .tile_band import TilingOptions, TreeReport, optimize_tree
from .time_tiling_choice import (
    TimeTiling,
    TimeTilingMode,
    TimeTilingSchedule,
    choose_time_tiling,
    time_tiling_pays,
)

#: type of ``auto_schedule``'s property ``fusion`` (any other value is refused when set)
Fusion = Literal["smart", "none", "max"]
FUSIONS = get_args(Fusion)
#: type of ``auto_schedule``'s property ``pragma``
ParallelPragma = Literal["passman parallel", "omp parallel for"]

#: the most elementary operations isl's scheduler may spend on one part (then: PassFailed)
MAX_OPERATIONS = 20_000_000

#: seconds isl's scheduler may take on one part with one fusion policy (then: PassFailed);
#: every corpus part takes less than one
POLICY_SECONDS = 8.0

#: seconds ``auto_schedule`` gives isl on one function, all parts (scheduling and code
#: generation): the parts left when they are spent stay as they are
FUNCTION_SECONDS = 20.0

#: seconds from the start of a part's scheduling during which the fusion policies still working
#: may finish once one schedule is in hand (a part that costs isl seconds per policy keeps the
#: first schedule found, and the function's time goes to code generation and the other parts)
EXPLORE_SECONDS = 2.0


class SchedulerTimeout(PassFailed):
    """isl's scheduler ran out of time (not: found no schedule) on a part."""


#: isl scheduler options per fusion policy
_FUSION_OPTIONS = {
    "smart": {"serialize_sccs": 0, "whole_component": 0, "outer_coincidence": 1},
    "none": {"serialize_sccs": 1, "whole_component": 0, "outer_coincidence": 0},
    "max": {"serialize_sccs": 0, "whole_component": 1, "outer_coincidence": 0},
    "pluto": {"serialize_sccs": 0, "whole_component": 0, "outer_coincidence": 0},
}


# ------------------------------------------------------------------ schedules


def compute_schedule(
    scop: Scop,
    rel: isl.UnionMap,
    fusion: str = "smart",
    clock: Clock | None = None,
    seconds: float = POLICY_SECONDS,
) -> isl.Schedule:
    """isl's schedule of a part: validity, proximity and coincidence are all ``rel``.

    ``fusion``: ``"smart"`` (fuse when no outer parallelism is lost),
    ``"none"`` (one loop nest per strongly connected component) or ``"max"``
    (fuse as much as the dependences allow). isl computes it in a child
    process (:func:`start_schedule`) given at most ``seconds`` (less if
    ``clock`` has less left): past that, or past :data:`MAX_OPERATIONS`,
    the pass fails.
    """
    if clock is not None:
        seconds = min(seconds, clock.left())
    if seconds <= 0:
        raise SchedulerTimeout(f"{scop.where}: no time left for isl's scheduler (fusion {fusion})")
    child = start_schedule(scop, rel, fusion)
    return isl.Schedule.read_from_str(ctx(), finish_schedule(child, scop, fusion, time.monotonic() + seconds, seconds))


def start_schedule(scop: Scop, rel: isl.UnionMap, fusion: str) -> Child:
    """isl's scheduler at work on the part with fusion policy ``fusion``, in a child process.

    The child sets the shared isl context's scheduler options and builds the
    constraints (its own copies: the parent's are untouched, and forks at
    once). :func:`finish_schedule` takes the answer.
    """
    if fusion not in _FUSION_OPTIONS:
        raise PassFailed(
            f"{scop.where}: unknown fusion policy {fusion!r} (one of {', '.join(FUSIONS)})"
        )

    # isl's scheduler can take minutes on some parts (constant-size boxes of 3-D stencils):
    # bound its work and its time, and refuse rather than hang
    def compute() -> str:
        c = ctx()
        for name, value in _FUSION_OPTIONS[fusion].items():
            getattr(c, f"set_schedule_{name}")(value)
        sc = isl.ScheduleConstraints.on_domain(scop.domain()).set_context(scop.context)
        if not rel.is_empty():
            sc = sc.set_validity(rel).set_proximity(rel).set_coincidence(rel)
        with operation_budget(MAX_OPERATIONS):
            return sc.compute_schedule().to_str()

    return Child(compute, "isl's scheduler")


def finish_schedule(child: Child, scop: Scop, fusion: str, until: float, seconds: float) -> str:
    """The text of the schedule ``child`` (:func:`start_schedule`) computes, waiting until ``until`` at most.

    :class:`SchedulerTimeout` past ``until`` (``seconds``: the limit the
    message gives), :class:`PassFailed` where isl found no schedule or ran
    out of operations.
    """
    try:
        return child.result(until)
    except DeadlineExceeded:
        raise SchedulerTimeout(
            f"{scop.where}: isl's scheduler did not finish in {seconds:.0f} s (fusion {fusion}); "
            "the part is left as it is"
        ) from None
    except isl.Error as err:
        if out_of_operations(err):
            raise PassFailed(
                f"{scop.where}: isl's scheduler gave up after {MAX_OPERATIONS} operations "
                f"(fusion {fusion}); the part is left as it is"
            ) from None
        # e.g. "unable to carry dependences": isl found no schedule with these options
        reason = str(err).split(" in /", 1)[0].removeprefix("call to ")
        raise PassFailed(
            f"{scop.where}: isl's scheduler found no schedule (fusion {fusion}): {reason}; "
            "the part is left as it is"
        ) from None


def textual_sets(schedule: isl.Schedule, scop: Scop) -> isl.Schedule:
    """``schedule`` with each ``set`` node made a ``sequence`` of its children in the source's order.

    isl's scheduler gathers independent strongly connected components
    under a ``set`` node (their order does not matter) and its AST
    generator emits them in its own order: polybench's ``init_array``
    came out as A, B, ``*beta = ...``, C. Any order of a set's children is
    legal; the order of the statements in the source (a child's first
    statement) keeps the code readable, and keeps where the program first
    touches each array, which decides where its pages live.
    """
    rank = {s.name: k for k, s in enumerate(scop.statements)}
    text = schedule.to_str()
    if "set: [" not in text:
        return schedule
    return isl.Schedule.read_from_str(schedule.get_ctx(), _ordered_sets(text, rank))


def _ordered_sets(text: str, rank: dict[str, int]) -> str:
    """The text of a schedule tree with every ``set: [...]`` a ``sequence: [...]`` in ``rank``'s order."""
    out: list[str] = []
    at = 0
    while True:
        match = _SET.search(text, at)
        if match is None:
            out.append(text[at:])
            return "".join(out)
        found = match.start()
        if _in_quotes(text, found):
            out.append(text[at:found + 1])
            at = found + 1
            continue
        start = match.end()
        items, end = _items(text, start)  # end: the index of the closing "]"
        children = [_ordered_sets(item, rank) for item in items]
        children.sort(key=lambda item: min((rank.get(n, len(rank)) for n in _STATEMENT.findall(item)),
                                           default=len(rank)))
        out.append(text[at:found] + "sequence: [ " + ", ".join(children) + " ]")
        at = end + 1


_STATEMENT = re.compile(r"\b(S\d+)\[")
#: a set node's key in isl's text of a schedule tree (not the end of another key)
_SET = re.compile(r"(?<![\w])set: \[")


def _in_quotes(text: str, index: int) -> bool:
    return text.count('"', 0, index) % 2 == 1


def _items(text: str, start: int) -> tuple[list[str], int]:
    """The comma-separated items of the list opened just before ``start``, and the index of its ``]``."""
    items, depth, quoted, begin = [], 0, False, start
    for k in range(start, len(text)):
        c = text[k]
        if c == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif c in "{[":
            depth += 1
        elif c in "}]":
            if depth == 0:
                items.append(text[begin:k].strip())
                return [i for i in items if i], k
            depth -= 1
        elif c == "," and depth == 0:
            items.append(text[begin:k].strip())
            begin = k + 1
    raise ValueError("unbalanced schedule tree text")


# ------------------------------------------------------------------ the passes


def apply_to_part(
    module: Module,
    scop: Scop,
    deps: list[Dependence],
    schedule: isl.Schedule,
    clock: Clock | None = None,
) -> None:
    """Check ``schedule`` against ``deps`` and replace the part's code by the code it generates."""
    from .codegen import generate, replace_part

    check_schedule(scop, deps, schedule)
    nodes = generate(module, scop, schedule, clock=clock, deps=deps)
    replace_part(module, scop, nodes)


def schedule_part(
    scop: Scop,
    deps: list[Dependence],
    fusion: str,
    options: TilingOptions,
    clock: Clock | None = None,
) -> tuple[isl.Schedule, TreeReport]:
    """The optimised schedule of one part (not yet checked) and what it gained.

    With ``fusion="smart"``, isl's policies are tried side by side, each in
    its own child process (:func:`start_schedule`), for at most
    :data:`POLICY_SECONDS` (less if ``clock`` has less left). Once one
    schedule is in hand, the policies still working get until
    :data:`EXPLORE_SECONDS` after the start, or until that schedule came if
    later: a part on which isl is slow keeps the first schedule found. The
    best of the schedules found wins, ties going to the earlier policy.
    """
    rel = validity(deps)
    # isl's outer-coincidence heuristic finds outer parallel loops, but on time-iterated
    # stencils only a hyperplane of points, and it fuses nests at the price of tiling
    # depth: with "smart", try the Pluto-like permutable bands and no fusion too, keep the best
    # ("none" only serializes strongly connected components: with one statement it is "pluto")
    policies = [fusion] + (["pluto", "none"][: 1 + (len(scop.statements) > 1)] if fusion == "smart" else [])
    seconds = POLICY_SECONDS if clock is None else min(POLICY_SECONDS, clock.left())
    if seconds <= 0:
        raise SchedulerTimeout(f"{scop.where}: no time left for isl's scheduler")
    start = time.monotonic()
    children = [(policy, _start_policy(scop, rel, policy)) for policy in policies]
    best: tuple[isl.Schedule, TreeReport] | None = None
    failure: PassFailed | None = None
    first = None  # when the first schedule came
    found: set[str] = set()  # the texts of the schedules weighed
    try:
        for policy, child in children:
            until = start + seconds
            if first is not None:
                until = min(until, max(first, start + EXPLORE_SECONDS))
            try:
                if isinstance(child, PassFailed):
                    raise child
                text = finish_schedule(child, scop, policy, until, seconds)
                if text in found:  # an earlier policy's schedule, weighed already: the same tiles, the same score
                    continue
                got = optimize_tree(scop, isl.Schedule.read_from_str(ctx(), text), rel, options)
            except PassFailed as err:  # isl found nothing with this policy: the others may
                failure = failure or err
                continue
            first = time.monotonic() if first is None else first
            found.add(text)
            if best is None or got[1].score() > best[1].score():
                best = got
    finally:
        for _, child in children:
            if isinstance(child, Child):
                child.kill()
    if best is None:
        assert failure is not None
        raise failure
    return best


def _start_policy(scop: Scop, rel: isl.UnionMap, policy: str) -> Child | PassFailed:
    try:
        return start_schedule(scop, rel, policy)
    except PassFailed as err:
        return err


def _reschedule(
    module: Module,
    part: Scop,
    deps: Dependences,
    fusion: str,
    options: TilingOptions,
    force_wavefront: bool,
    cache_size: int,
    clock: Clock,
    time_tiling: TimeTiling | None = None,
) -> str | None:
    """Reschedule one part of ``auto_schedule``: None when done, else why it is left as it is.

    ``time_tiling`` (:func:`.time_tiling_choice.choose_time_tiling`): time
    tiles first; when ``time_tile`` refuses them (before changing anything),
    the part takes isl's path as if they had not been asked for.
    """
    part_deps = deps.of_scop(part)
    if time_tiling is not None and time_tiling.shape == "dlt":
        from .dlt import dlt_time_loop

        try:
            dlt_time_loop(module, part, part_deps, parallel=True)
            return None
        except PassFailed:  # no sweep on whole vectors: what the model chose before
            time_tiling = replace(time_tiling, shape=time_tiling.fallback) if time_tiling.fallback else None
    if time_tiling is not None:
        try:
            if time_tiling.shape == "trapezoid":
                from .trapezoid_tiling import trapezoid_part

                trapezoid_part(module, part, part_deps)
            else:
                from .time_tiling import tile_part

                tile_part(module, part, part_deps, time_tiling.shape, time_tiling.schedule,
                          pragma=options.pragma)  # fmt: skip
            return None
        except PassFailed:
            pass  # e.g. no diamond: the dependences of the step forbid it
    if not force_wavefront:
        # decided before isl runs: which of its fusion policies is explored depends on how
        # fast it is (EXPLORE_SECONDS), and a stencil's fate must not depend on the machine's load
        steps = time_tiling_pays(module, part, deps, cache_size)
        if steps is not None:
            return steps
    try:
        sched, report = schedule_part(part, part_deps, fusion, options, clock)
    except PassFailed as err:
        return str(err)
    sched = textual_sets(sched, part)
    if not (report.tiled or report.parallel) and same_order(part, sched):
        return f"{part.where}: nothing to improve (no tile, no parallel loop, same order)"
    try:
        apply_to_part(module, part, part_deps, sched, clock)
    except PassFailed as err:
        return str(err)
    return None


@transformation(scope="module", requires=["dependences"], preserves=["callgraph"], reads=["function_scope", "poly_facts", "scops", "unit_scope"])
def auto_schedule(
    module: Module,
    fusion: Fusion = "smart",
    tile: bool = True,
    tile_sizes: str = "",
    wavefront: bool = True,
    label: str = "",
    pragma: ParallelPragma = "passman parallel",
    force_wavefront: bool = False,
    cache_size: int = 0,
    accumulate: bool = True,
    time_tiling: TimeTilingMode = "auto",
    time_tiling_schedule: TimeTilingSchedule = "auto",
) -> None:
    """Reschedule every static control part of the function: fusion, tiling, parallel and wavefront loops.

    Before::

        for (t = 0; t < T; t++)
            for (i = 1; i < n - 1; i++)
                A[i] = (A[i - 1] + A[i] + A[i + 1]) / 3;

    After (time-skewed tiles, a wavefront of tiles; shape)::

        for (int c0 = 0; c0 <= ...; c0++)               // T0 + T1
            #pragma passman parallel
            for (int c1 = ...; c1 <= ...; c1 += 32)      // tiles of one wavefront
                for (int c2 = ...; ...)                   // points of a tile
                    ...
                        A[c3 - ...] = ...;

    isl's scheduler (validity = proximity = coincidence = every memory-based
    dependence) gives the loop nests and permutable bands; see
    :mod:`.tile_band` for tiling, order and marks. The schedule is checked
    (:func:`check_schedule`) before any code is emitted. A part is left
    unchanged, with a reason, when it declares variables inside its loops,
    has statements under non-affine conditions, or when nothing improves
    (no tile, no parallel loop, the same order); the pass fails if no part
    was transformed. A scalar accumulator declared in a loop of a part
    (``double sum = 0; for (k...) sum += ...; C[i][j] = sum;``) first
    accumulates in its destination (``accumulate_in_place``), which makes
    the nest a part it can reschedule. Floating-point reductions may be
    reordered (``sum +=`` along a loop that moves), like any tiling.

    Properties:

    - fusion: "smart" (default: fuse unless outer parallelism is lost), "none" or "max"
    - tile: tile permutable bands of two or more loops where a tile keeps data (an element or a cache line used again: :func:`.tile_band.has_reuse`; not an initialisation or a copy) (default true)
    - tile_sizes: sizes per band member, "32,32,64", the last repeated ("" default: 32, 64 for a stride-1 innermost loop)
    - wavefront: make a wavefront of tiles when no tile loop is parallel (default true)
    - force_wavefront: isl's wavefront of time tiles on a time loop whose steps are parallel
      loops (Jacobi-style stencils), instead of ``time_tile``'s tiles (``time_tiling=auto``)
      and even where :func:`time_tiling_pays` leaves it to the coarse-grain path (data that
      fit in the cache, steps that are not 2-deep nests) (default false)
    - accumulate: run ``accumulate_in_place`` first on a function whose parts declare
      variables inside loops (default true)
    - cache_size: bytes of the last-level cache for that model (0 default: this machine's,
      from sysfs; 32 MiB where it does not tell)
    - time_tiling: "auto" (default: ``time_tile``'s diamond tiles on a time loop of parallel
      steps with enough work, :mod:`.time_tiling_choice`), "off" (never), "diamond",
      "skewed", "split", "hybrid", "balanced" (``time_tile``'s shapes) or "trapezoid" (``trapezoid_tile``'s
      walk, default thresholds, fork-join) on every time loop; where the shape is refused, the
      part takes the path below, unchanged
    - time_tiling_schedule: "auto" (default: OpenMP tasks when the part's data fit in the
      last-level cache, ``cache_size``; static fronts otherwise), "tasks" or "static"
    - label: only the part containing the loop with this label ("" default: every part)
    - pragma: of parallel loops, "passman parallel" (default: ompify_code's marker) or "omp parallel for" (final)

    With ``pragma="omp parallel for"`` the pragmas are final: the generated
    loops declare their iterators, and a parallel loop writes no scalar, so
    no clause is needed; later passes need not analyse the generated code
    again (``ompify_code`` recomputes dependences on it, which takes minutes
    on the wavefronts of 2-D stencils).
    """
    # fusion, pragma, time_tiling and time_tiling_schedule were checked when set (their Literal types)
    if force_wavefront and time_tiling == "auto":
        time_tiling = "off"  # isl's wavefront, as asked
    options = TilingOptions(
        tile=tile, sizes=parse_sizes(tile_sizes), wavefront=wavefront, pragma=pragma
    )
    if accumulate and any(loop_declarations(p) for p in module.resource("scops")):
        try:  # sum = 0; for k: sum += ...; C[i][j] = sum;  ->  C[i][j] = 0; for k: C[i][j] += ...;
            module.accumulate_in_place()  # undone with the rest if no part is rescheduled
        except PassFailed:
            pass
    deps: Dependences = module.resource("dependences")
    parts = list(module.resource("scops"))
    if label:
        parts = [p for p in parts if p.loop(label) is not None]
        if not parts:
            raise PassFailed(f"{module.name}: loop {label} is in no static control part")
    if not parts:
        raise PassFailed(f"{module.name}: no static control part")
    reasons: list[str] = []
    done = 0
    with function_budget(module, FUNCTION_SECONDS) as seconds:
        clock = Clock(seconds)
        for part in reversed(parts):  # later parts first: earlier parts' nodes keep their places
            why = part_problem(part)
            if why is None:
                if clock.expired():
                    why = (f"{part.where}: the function's {seconds:.0f} s for isl are spent; "
                           "the part is left as it is")
                else:
                    choice = choose_time_tiling(module, part, deps, time_tiling, time_tiling_schedule, cache_size)
                    why = _reschedule(
                        module, part, deps, fusion, options, force_wavefront, cache_size, clock, choice
                    )
                done += why is None
            if why is not None:
                reasons.append(why)
    if not done:
        raise PassFailed(f"{module.name}: no part rescheduled: " + "; ".join(reversed(reasons)))


@transformation(scope="module", requires=["dependences"], preserves=["callgraph"], reads=["scops"])
def apply_schedule(module: Module, part: int = 0, tree: str = "") -> None:
    """Replace static control part ``part`` by the code of an explicit isl schedule tree.

    Before (``apply_schedule(part=0, tree='{ domain: "[n] -> { S0[i] : 0 <= i < n }",
    child: { schedule: "[n] -> [{ S0[i] -> [(-i)] }]" } }')``)::

        for (i = 0; i < n; i++)
            a[i] = b[i];

    After::

        for (int c0 = -n + 1; c0 <= 0; c0++)
            a[-c0] = b[-c0];

    The tree (isl's YAML-like text, names of the ``scops`` resource: ``S0``,
    iterators, parameters) is checked with :func:`check_schedule` first:
    a schedule that reverses a dependence, or a mark ``passman parallel``
    on a loop that carries one, is refused and nothing changes.

    Properties:

    - part: index of the part in ``module.resource("scops")`` (default 0)
    - tree: the schedule tree, isl text
    """
    parts = module.resource("scops")
    if not 0 <= part < len(parts):
        raise PassFailed(f"{module.name}: no static control part {part} ({len(parts)} parts)")
    scop = parts[part]
    why = part_problem(scop)
    if why is not None:
        raise PassFailed(why)
    try:
        sched = isl.Schedule.read_from_str(ctx(), tree)
    except isl.Error as err:
        raise PassFailed(f"{scop.where}: unreadable schedule tree: {err}") from None
    apply_to_part(module, scop, module.resource("dependences").of_scop(scop), sched)
