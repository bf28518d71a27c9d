"""Optimising an isl schedule tree: tiling, intra-tile order, wavefront, parallel and simd marks.

Used by :mod:`.schedule` (``auto_schedule``) on the tree that isl's
scheduler computed for one SCoP. For every band of the tree, outermost
first:

* a *permutable* band of two or more members is tiled (``band_tile``) with
  rectangular tiles, unless every member but one is known to run fewer
  iterations than its tile. Tile loops come first with the coincident
  (parallel) members outermost; in the point loops the member with the most
  stride-1 accesses (and the fewest strided ones) becomes innermost. Any
  order of a permutable band is legal;
* when no member of a tiled band is coincident (time-iterated stencils
  after skewing), the first two tile loops become a wavefront: the outer
  tile loop counts ``T0 + T1`` (tile indices), and the second one is
  parallel (every dependence has non-negative tile distances in a
  permutable band, so two tiles on one wavefront never depend on each other);
* the outermost parallel loop gets a mark ``passman parallel`` (turned into
  ``#pragma passman parallel`` by the code generator, into OpenMP by
  ``ompify_code``), and the innermost point loop a mark ``omp simd`` when
  it carries no dependence.

Every decision about parallelism is re-checked on the dependences
(:func:`carries`), never taken from isl's flags alone; the final tree is
checked again as a whole by :func:`.schedule.check_schedule`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import islpy as isl

from .affine import constant_extent, ctx
from .codegen import tile_band
from .scop import Scop

PARALLEL = "passman parallel"
#: the mark of a vectorisable innermost loop: gcc ignores ``GCC ivdep`` on a loop whose test holds
#: a ``?:`` (a clipped point loop), not ``omp simd`` (honoured with -fopenmp or -fopenmp-simd)
SIMD = "omp simd"
#: marks that promise the loop below carries no dependence
INDEPENDENT_MARKS = (PARALLEL, SIMD, "GCC ivdep", "omp parallel for")

#: default tile size, and the one of the innermost point loop when it has stride-1 accesses
DEFAULT_TILE = 32
DEFAULT_INNER_TILE = 64


@dataclass
class TilingOptions:
    """What :func:`optimize_tree` may do."""

    tile: bool = True
    sizes: tuple[int, ...] = ()  # empty: defaults
    wavefront: bool = True
    pragma: str = PARALLEL  # the mark of parallel loops


@dataclass
class TreeReport:
    """What :func:`optimize_tree` did, to decide whether a part gained anything."""

    tiled: int = 0
    parallel: int = 0
    simd: int = 0
    #: statement name -> [under a parallel loop, minus the sequential loops above it,
    #: its tiled loops, minus the tiled loops it does not vary along (guards in point loops)]
    statements: dict[str, list[int]] = field(default_factory=dict)

    def note(self, node: isl.ScheduleNode, what: int, value: int) -> None:
        """Record ``value`` in slot ``what`` for every statement reaching ``node``."""
        sets: list[isl.Set] = []
        node.get_domain().foreach_set(sets.append)
        for s in sets:
            self.statements.setdefault(s.get_tuple_name(), [0, 0, 0, 0])[what] = value

    def note_band(self, node: isl.ScheduleNode, tiled: bool) -> None:
        """Record, for each statement of band ``node``, the members it varies along and the others."""
        maps: list[isl.Map] = []
        node.band_get_partial_schedule_union_map().intersect_domain(node.get_domain()).foreach_map(
            maps.append
        )
        n = node.band_n_member()
        for m in maps:
            row = self.statements.setdefault(m.get_tuple_name(isl.dim_type.in_), [0, 0, 0, 0])
            fixed = sum(1 for k in range(n) if m.range().dim_max(k).is_equal(m.range().dim_min(k)))
            if tiled:
                row[2] = n - fixed
            row[3] -= fixed

    def score(self) -> tuple[int, ...]:
        """How good the tree is: parallel statements, coarse parallelism, tiling, no guards."""
        rows = list(self.statements.values())
        return tuple(sum(r[k] for r in rows) for k in range(4))


# ------------------------------------------------------------------- dependence tests


def carries(
    node: isl.ScheduleNode, member: int, validity: isl.UnionMap, *, anywhere: bool = False
) -> isl.UnionMap:
    """The dependence pairs (of ``validity``) that band ``node``'s ``member`` carries or reverses.

    Pairs reaching the band with equal prefix schedule (the loops and
    sequence positions above it) and equal earlier members, but a different
    value of ``member``. Empty: the member's loop is parallel. ``anywhere``:
    ignore the earlier members (empty then means the member stays parallel
    wherever it moves in a permutable band).
    """
    dom = node.get_domain()
    rel = validity.intersect_domain(dom).intersect_range(dom)
    if rel.is_empty():
        return rel
    prefix = node.get_prefix_schedule_union_map()
    same = prefix.apply_range(prefix.reverse())
    partial = node.band_get_partial_schedule()
    for k in range(0 if anywhere else member):
        m = isl.UnionMap.from_union_pw_aff(partial.get_union_pw_aff(k))
        same = same.intersect(m.apply_range(m.reverse()))
    m = isl.UnionMap.from_union_pw_aff(partial.get_union_pw_aff(member))
    return rel.intersect(same).subtract(m.apply_range(m.reverse()))


def _is_parallel(
    node: isl.ScheduleNode, member: int, validity: isl.UnionMap, anywhere: bool = False
) -> bool:
    return carries(node, member, validity, anywhere=anywhere).is_empty()


# ---------------------------------------------------------------- access strides


def _coefficients(rel: isl.Map, dim: int) -> list[int] | None:
    """Coefficients of output ``dim`` of a single-valued affine map over its inputs (None: not affine)."""
    part = _affine_part(rel, dim)
    return None if part is None else part[0]


def stride_scores(scop: Scop, node: isl.ScheduleNode) -> list[int]:
    """Per member of band ``node``: how good it is as the innermost loop.

    Each affine array access (scalars aside) of the statements under the band
    counts +2 if consecutive values of the member touch consecutive elements
    (stride 1 in the last subscript, the others unchanged), +1 if they touch
    the same element, -3 otherwise (a strided access).
    """
    n = node.band_n_member()
    scores = [0] * n
    partial = node.band_get_partial_schedule_union_map().intersect_domain(node.get_domain())
    maps: list[isl.Map] = []
    partial.foreach_map(maps.append)
    for bm in maps:
        stmt = scop.statement(bm.get_tuple_name(isl.dim_type.in_))
        for acc in stmt.accesses:
            info = scop.arrays.get(acc.array)
            if not acc.affine or info is None or info.rank == 0:
                continue
            in_band = acc.relation.apply_domain(bm)  # [members] -> A[subscripts]
            rank = in_band.dim(isl.dim_type.out)
            coefs = [_coefficients(in_band, d) for d in range(rank)]
            if any(c is None for c in coefs):
                continue
            for k in range(n):
                inner = [c[k] for c in coefs[:-1]]
                last = coefs[-1][k]
                if any(inner):
                    scores[k] -= 3
                elif last == 0:
                    scores[k] += 1
                elif abs(last) == 1:
                    scores[k] += 2
                else:
                    scores[k] -= 3
    return scores


def has_reuse(scop: Scop, node: isl.ScheduleNode) -> bool:
    """Whether tiling band ``node`` can keep data in cache: an array element, or a cache line, is
    used again across its members. Some access is invariant along a member (``C[i][j]`` along
    ``k``, any array along a time loop); two accesses of an array differ by constants only (a
    stencil's neighbours); or two accesses run along their rows with different members (a
    transposition, ``b[i][j] = a[j][i]``: a tile uses each line of both). Not an
    initialisation, a scaling or a copy of the same layout, each element touched once (the
    corpus's init loops ran slower tiled). An access that is not an affine function of the
    members: no proof either way, tiled as before."""
    n = node.band_n_member()
    partial = node.band_get_partial_schedule_union_map().intersect_domain(node.get_domain())
    maps: list[isl.Map] = []
    partial.foreach_map(maps.append)
    offsets: dict[tuple[str, tuple], set[tuple[int, ...]]] = {}  # (array, linear part) -> constants
    rows: set[frozenset[int]] = set()  # per access: the members its last subscript moves with
    for bm in maps:
        stmt = scop.statement(bm.get_tuple_name(isl.dim_type.in_))
        for acc in stmt.accesses:
            info = scop.arrays.get(acc.array)
            if info is None or info.rank == 0:
                continue
            in_band = acc.relation.apply_domain(bm) if acc.affine else None  # [members] -> A[subscripts]
            parts = [_affine_part(in_band, d) for d in range(in_band.dim(isl.dim_type.out))] \
                if in_band is not None else [None]
            if any(p is None for p in parts):
                return True
            if any(all(coefs[k] == 0 for coefs, _ in parts) for k in range(n)):
                return True  # the same element along member k
            key = (acc.array, tuple(tuple(coefs) for coefs, _ in parts))
            offsets.setdefault(key, set()).add(tuple(c for _, c in parts))
            rows.add(frozenset(k for k in range(n) if parts[-1][0][k]))
    return len(rows) > 1 or any(len(found) > 1 for found in offsets.values())


def _affine_part(rel: isl.Map, dim: int) -> tuple[list[int], int] | None:
    """Coefficients and constant of output ``dim`` of a single-valued affine map (None: not affine)."""
    try:
        pieces = isl.PwMultiAff.from_map(rel).get_pw_aff(dim).get_pieces()
    except isl.Error:
        return None
    if len(pieces) != 1 or pieces[0][1].dim(isl.dim_type.div):
        return None
    aff = pieces[0][1]
    const = aff.get_constant_val()
    if not const.is_int():
        return None
    return [aff.get_coefficient_val(isl.dim_type.in_, k).to_python()
            for k in range(aff.dim(isl.dim_type.in_))], const.to_python()


# ---------------------------------------------------------------- band surgery


def _extent(node: isl.ScheduleNode, member: int) -> int | None:
    """The number of values band ``member`` takes when known (a constant), else None."""
    upa = node.band_get_partial_schedule().get_union_pw_aff(member)
    values = node.get_domain().apply(isl.UnionMap.from_union_pw_aff(upa))
    sets: list[isl.Set] = []
    values.foreach_set(sets.append)
    if len(sets) != 1:
        return None
    return constant_extent(sets[0], 0)


def permute_band(node: isl.ScheduleNode, order: Sequence[int]) -> isl.ScheduleNode:
    """Band ``node`` with its members in ``order`` (legal only for a permutable band)."""
    if list(order) == list(range(len(order))):
        return node
    partial = node.band_get_partial_schedule()
    permutable = node.band_get_permutable()
    coincident = [node.band_member_get_coincident(k) for k in range(len(order))]
    new = partial
    for k, src in enumerate(order):
        new = new.set_union_pw_aff(k, partial.get_union_pw_aff(src))
    node = node.delete().insert_partial_schedule(new)
    node = node.band_set_permutable(permutable)
    for k, src in enumerate(order):
        node = node.band_member_set_coincident(k, coincident[src])
    return node


def _mark(node: isl.ScheduleNode, text: str, report: TreeReport | None = None) -> isl.ScheduleNode:
    """Insert mark ``text`` above ``node``; return the node below the mark (the same band)."""
    if report is not None:
        report.parallel += 1
        report.note(node, 0, 1)
        report.note(node, 1, -node.get_schedule_depth())
    return node.insert_mark(isl.Id(text)).child(0)


def _wavefront(node: isl.ScheduleNode, sizes: Sequence[int]) -> isl.ScheduleNode:
    """Tile band ``node``: member 0 := T0 + T1 (tile indices), the rest unchanged."""
    partial = node.band_get_partial_schedule()
    t0 = partial.get_union_pw_aff(0).scale_down_val(isl.Val.int_from_si(ctx(), sizes[0]))
    t1 = partial.get_union_pw_aff(1).scale_down_val(isl.Val.int_from_si(ctx(), sizes[1]))
    new = partial.set_union_pw_aff(0, t0.add(t1))
    n = node.band_n_member()
    node = node.delete().insert_partial_schedule(new).band_set_permutable(1)
    for k in range(n):
        node = node.band_member_set_coincident(k, 0)
    return node


# ------------------------------------------------------------------ the walk


def _tile_sizes(n: int, options: TilingOptions, inner: int | None, stencil: bool) -> list[int]:
    if options.sizes:
        given = list(options.sizes)
        return (given + [given[-1]] * n)[:n]
    sizes = [DEFAULT_TILE] * n
    if inner is not None and not stencil:
        sizes[inner] = DEFAULT_INNER_TILE
    return sizes


def _innermost(scores: list[int], zero: list[bool] | None = None) -> int | None:
    """The member to make innermost: the best score, the last one on ties (None: no access).

    With ``zero`` (members carrying no dependence): a member that carries one
    (a reduction: gcc does not vectorize it without -ffast-math) gives way to
    the best dependence-free member whose accesses are no worse than neutral
    (syrk: ``j`` of ``C[i][j] += A[i][k] * A[j][k]`` rather than ``k``).
    """
    if not any(scores):
        return None
    best = max(scores)
    pick = max(k for k, s in enumerate(scores) if s == best)
    if zero is not None and not zero[pick]:
        free = [k for k, s in enumerate(scores) if zero[k] and s >= 0]
        if free:
            top = max(scores[k] for k in free)
            pick = max(k for k in free if scores[k] == top)
    return pick


def _process_band(
    scop: Scop,
    node: isl.ScheduleNode,
    validity: isl.UnionMap,
    options: TilingOptions,
    report: TreeReport,
    parallel_above: bool,
) -> tuple[isl.ScheduleNode, bool]:
    """Tile / mark one band; return the innermost band node produced and whether a loop is parallel."""
    n = node.band_n_member()
    permutable = bool(node.band_get_permutable()) or n == 1
    # zero[k]: member k has distance zero for every dependence not carried above the band
    zero = (
        [_is_parallel(node, k, validity, anywhere=True) for k in range(n)]
        if permutable
        else [False] * n
    )
    inner = _innermost(stride_scores(scop, node), zero) if permutable and n >= 2 else None
    tileable = options.tile and permutable and n >= 2
    tile = tileable and has_reuse(scop, node)
    # a band without reuse is as good untiled as tiled: it scores as tiled (the choice among isl's
    # fusion policies must not favour fusing it into a band that has reuse, guards and all)
    untiled_as_good = tileable and not tile
    if tile:
        sizes = _tile_sizes(n, options, inner, stencil=not any(zero))
        extents = [_extent(node, k) for k in range(n)]
        big = [k for k in range(n) if extents[k] is None or extents[k] > sizes[k]]
        tile = len(big) >= 2 and any(s > 1 for s in sizes)
    if not tile:
        if n >= 2:
            report.note_band(node, tiled=untiled_as_good)
        if permutable and n >= 2:  # parallel member outermost, stride-1 member innermost
            first = zero.index(True) if any(zero) else None
            order = [k for k in range(n) if k not in (first, inner)]
            order = (
                [k for k in (first,) if k is not None]
                + order
                + [k for k in (inner,) if k not in (None, first)]
            )
            node = permute_band(node, order)
            zero = [zero[k] for k in order]
        if parallel_above:
            return node, True
        first = next((k for k in range(n) if _is_parallel(node, k, validity)), None)
        if first is None:
            return node, False
        if first > 0:
            node = node.band_split(first).child(0)
        return _mark(node, options.pragma, report), True
    # tile loops: parallel members outermost; point loops: the stride-1 member innermost
    tile_order = [k for k in range(n) if zero[k]] + [k for k in range(n) if not zero[k]]
    point_order = [k for k in range(n) if k != inner] + ([inner] if inner is not None else [])
    node = tile_band(node, sizes)
    report.tiled += 1
    report.note_band(node, tiled=True)
    node = permute_band(node.child(0), point_order).parent()
    node = permute_band(node, tile_order)
    sizes_t = [sizes[k] for k in tile_order]
    marked = parallel_above
    if not parallel_above:
        wave = _wavefront(node, sizes_t).band_split(1).child(0) if options.wavefront else None
        if any(zero) and _is_parallel(node, 0, validity):
            node = _mark(node, options.pragma, report)
            marked = True
        elif not any(zero) and wave is not None and _is_parallel(wave, 0, validity):
            node = _mark(wave, options.pragma, report)
            marked = True
    # the innermost point loop: omp simd when it carries nothing
    point = node.child(0)
    while point.get_type() == isl.schedule_node_type.mark:
        point = point.child(0)
    m = point.band_n_member()
    if m > 1:
        point = point.band_split(m - 1).child(0)
    if _is_parallel(point, 0, validity):
        point = _mark(point, SIMD)
        report.simd += 1
    return point, marked


def optimize_tree(
    scop: Scop, schedule: isl.Schedule, validity: isl.UnionMap, options: TilingOptions
) -> tuple[isl.Schedule, TreeReport]:
    """Tile, reorder and mark the bands of ``schedule`` (see the module docstring)."""
    report = TreeReport()

    def visit(node: isl.ScheduleNode, parallel_above: bool) -> isl.ScheduleNode:
        depth = node.get_tree_depth()
        if node.get_type() == isl.schedule_node_type.band:
            node, parallel_above = _process_band(
                scop, node, validity, options, report, parallel_above
            )
        for k in range(node.n_children()):
            node = visit(node.child(k), parallel_above).parent()
        return node.ancestor(node.get_tree_depth() - depth)

    root = visit(schedule.get_root(), False)
    return root.get_schedule(), report
