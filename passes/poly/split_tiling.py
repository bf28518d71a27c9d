"""Split and hybrid split time tiles of stencils (SDSL, Henretty et al. ICS'13; Freitag 2014, §2.3).

The shapes ``"split"`` and ``"hybrid"`` of ``time_tile``
(:mod:`.time_tiling`). Time is cut into *bands* of ``s^T`` time steps;
the statements of one time step are *levels* of it (jacobi-1d's
``b = f(a)`` then ``a = f(b)``: two levels), so a statement instance has the
level ``tau = K*t + k`` (``K`` statements positions in the time loop, ``k``
its position) and the row ``r = tau - H*band`` in its band of
``H = K*s^T`` levels. A space dimension ``x`` of slope ``sigma`` (the most
points a dependence moves per level, from the dependences themselves) is
cut in a band either

* *split* (widths ``U``, ``I``, period ``P = U + I``, ``a_j = j*P``):
  upright tiles ``U_j: a_j + sigma*r <= x < a_j + U - sigma*r`` (shrinking),
  then inverted tiles ``I_j: a_j - I - sigma*r <= x < a_j + sigma*r``
  (growing, between ``U_{j-1}`` and ``U_j``); the tiles of one kind are
  independent when ``U >= 2*sigma*(H - 1)`` (Freitag's erratum E4), or
* *parallelogram* (width ``s^P``, hybrid split tiling, its outermost space
  dimension only): ``p*s^P <= x + sigma*r < (p+1)*s^P``, tile ``p`` after
  tile ``p - 1``.

``shape="split"`` splits every space dimension (nested split tiling:
``2^d`` phases of tile kinds per band, in lexicographic order ``U..U``
first); ``shape="hybrid"`` cuts the outermost space dimension in
parallelograms and splits the others. The schedule tree, per statement
instance: ``band``, ``p`` (hybrid), the phase (a ``sequence`` of filters),
the tiles ``j`` of the phase (the outermost one ``omp parallel for``: a
barrier after each phase; or, with ``schedule="tasks"``, one OpenMP task
per tile with ``depend`` clauses on the real tile edges, Freitag's
"opt-split"), then the original order inside the tile.
Before (jacobi-1d)::

    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
        for (i = 1; i < n - 1; i++)
            a[i] = 0.33333 * (b[i - 1] + b[i] + b[i + 1]);
    }

After (``time_tile(shape="split", schedule="static", tile_sizes="4,16,4")``: bands of 4 time
steps, ``U = 16``, ``I = 4``; shape)::

    for (int c0 = 0; c0 <= floord(tsteps - 1, 4); c0++) {   // band
        #pragma omp parallel for
        for (int c1 = ...; ...; c1++)                         // upright tiles
            for (int c2 = 4 * c0; ...; c2++) {                // t, within the tile
                for (int c3 = ...; ...; c3++) b[c3] = ...;
                for (int c3 = ...; ...; c3++) a[c3] = ...;
            }
        #pragma omp parallel for
        for (int c1 = ...; ...; c1++)                         // inverted tiles
            ...
    }

Legality: the slopes are computed with isl from every memory-based
dependence (a dependence within one level that moves in space has no
slope: refused with its name, Gauss-Seidel's in-place sweeps); the shape
constraint is checked; the whole tree goes through
:func:`.schedule_check.check_schedule` (every instance once, every
dependence pair in order, the ``omp parallel for`` loops carry nothing).
:func:`split_tile_graph` builds the concrete tile dependence graph of a
tiling (Freitag 2014 §3.3 (c), the real edges only, by isl).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace

import islpy as isl
import networkx as nx
from pycparser import c_ast

from passman import Module, PassFailed
from passman.deadline import Clock

from .affine import constant_extent, ctx
from .codegen import generate, identity_schedule
from .dependences import Dependence
from .footprint import element_size, fix_parameters, known_parameters
from .schedule_check import check_schedule
from .scop import Scop
from .stencil_geometry import StencilGeometry, stencil_geometry
from .tile_graph import depend_clause, direct_tile_deltas, tile_graph
from .tile_model import CACHE_FRACTION, Caches, machine_caches

#: seconds the pass gives isl's code generation
SPLIT_CODEGEN_SECONDS = 20.0
#: candidate band heights (time steps), widths and parallelogram widths of the default sizes
HEIGHTS = (2, 4, 8, 16, 32)
WIDTHS = (8, 16, 32, 64, 128, 256)
PARALLELOGRAMS = (4, 8, 16, 32)
#: tiles each thread should get per phase where the extent is known
MIN_TILES_PER_PHASE = 2


# ------------------------------------------------------------------------ the tiles


@dataclass(frozen=True)
class SplitShape:
    """The tiles of a split (``parallelogram == 0``) or hybrid split tiling.

    ``height``: levels per band (``H``); ``slopes``: per space dimension,
    outermost first; ``parallelogram``: ``s^P`` of the outermost dimension
    (hybrid), 0 when every dimension is split; ``widths``: ``(U, I)`` per
    split dimension; ``origin``: the level of the first band; ``offsets``:
    ``o`` per split dimension (``a_j = o + j*(U + I)``, 0 by default).
    Refuses (``ValueError``) a shape whose tiles of one kind are not
    independent (:func:`shape_problem`).
    """

    height: int
    slopes: tuple[int, ...]
    widths: tuple[tuple[int, int], ...]
    parallelogram: int = 0
    origin: int = 0
    offsets: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        why = shape_problem(self)
        if why is not None:
            raise ValueError(why)

    @property
    def hybrid(self) -> bool:
        """Whether the outermost space dimension has parallelogram tiles."""
        return self.parallelogram > 0

    @property
    def split_slopes(self) -> tuple[int, ...]:
        """The slopes of the split dimensions."""
        return self.slopes[1:] if self.hybrid else self.slopes


def shape_problem(shape: SplitShape) -> str | None:
    """Why ``shape`` is not a legal split tiling (None: it is one)."""
    split = shape.split_slopes
    if shape.height < 1:
        return f"band height {shape.height} must be positive"
    if len(shape.widths) != len(split) or (shape.offsets and len(shape.offsets) != len(split)):
        return f"{len(split)} split dimensions need as many (U, I) widths, not {len(shape.widths)}"
    if shape.parallelogram < 0 or (shape.hybrid and not shape.slopes):
        return f"parallelogram width {shape.parallelogram} must be positive"
    for k, ((u, i), sigma) in enumerate(zip(shape.widths, split)):
        if u < 1 or i < 0:
            return f"split dimension {k}: widths U={u}, I={i} must be U >= 1, I >= 0"
        need = 2 * sigma * (shape.height - 1)
        if u < need:
            return (f"split dimension {k}: upright width U={u} < 2*sigma*(H-1) = 2*{sigma}*({shape.height}-1) = "
                    f"{need}: the inverted tiles of a band would overlap (U >= 2*sigma*(H-1), Freitag erratum E4)")
    return None


def tile_relation(shape: SplitShape) -> isl.Map:
    """``[tau, x0, ..., x(d-1)] -> [band, (p), kinds..., j...]`` (kind 0 upright, 1 inverted).

    The lexicographic order of the tile vectors is the schedule's order of
    the tiles (band, parallelogram, phase, then any order of the ``j``).
    """
    d = len(shape.slopes)
    h = shape.height
    xs = [f"x{k}" for k in range(d)]
    split = list(range(1, d)) if shape.hybrid else list(range(d))
    kinds = [f"y{k}" for k in split]
    tiles = [f"j{k}" for k in split]
    out = ["b"] + (["p"] if shape.hybrid else []) + kinds + tiles
    exist = ["r"] + [f"w{k}" for k in split]
    cons = [f"tau - ({shape.origin}) = {h}b + r", f"0 <= r < {h}"]
    if shape.hybrid:
        sp, s0 = shape.parallelogram, shape.slopes[0]
        cons.append(f"{sp}p <= x0 + {s0}r < {sp}p + {sp}")
    offsets = shape.offsets or (0,) * len(split)
    for n, k in enumerate(split):
        u, i = shape.widths[n]
        s, period = shape.slopes[k], shape.widths[n][0] + shape.widths[n][1]
        cons.append(f"x{k} - ({offsets[n]}) + {i} + {s}r = {period}j{k} + w{k} and 0 <= w{k} < {period}")
        cons.append(f"((y{k} = 0 and w{k} >= {i} + {2 * s}r) or (y{k} = 1 and w{k} < {i} + {2 * s}r))")
    text = (f"{{ [tau, {', '.join(xs)}] -> [{', '.join(out)}] : exists ({', '.join(exist)} : "
            f"{' and '.join(cons)}) }}")  # fmt: skip
    return isl.Map(text, context=ctx())


def tile_map(coordinates: isl.UnionMap, shape: SplitShape) -> isl.UnionMap:
    """Statement instance -> tile vector (:func:`tile_relation`), from instance -> ``[tau, x...]``."""
    return coordinates.apply_range(isl.UnionMap.from_map(tile_relation(shape)))


def split_tile_graph(domain: isl.Set | isl.UnionSet, deps: isl.Map | isl.UnionMap,
                     coordinates: isl.Map | isl.UnionMap, shape: SplitShape) -> nx.DiGraph:  # fmt: skip
    """The tile dependence graph of a split tiling of fixed sizes (real edges only, by isl).

    ``coordinates``: instance -> ``[tau, x...]``; nodes are the tile vectors
    of :func:`tile_relation`, an edge ``V -> W`` where a pair of ``deps``
    goes from ``V`` to ``W`` (Freitag's ``d(V) & W`` non-empty).
    """
    coordinates = isl.UnionMap(coordinates) if isinstance(coordinates, isl.Map) else coordinates
    return tile_graph(domain, deps, tile_map(coordinates, shape))


# ------------------------------------------------------------------------ the stencil


# ------------------------------------------------------------------------ the schedule


def _member(tiles: isl.UnionMap, k: int, n: int) -> isl.MultiUnionPwAff:
    """Coordinate ``k`` of the ``n``-dimensional tile vectors as a partial schedule."""
    names = [f"o{m}" for m in range(n)]
    proj = isl.Map(f"{{ [{', '.join(names)}] -> [{names[k]}] }}", context=ctx())
    return isl.MultiUnionPwAff.from_union_map(tiles.apply_range(isl.UnionMap.from_map(proj)))


def split_schedule(part: Scop, tiles: isl.UnionMap, shape: SplitShape, pragma: str = "omp parallel for",
                   deltas: Sequence[tuple[int, ...]] | None = None) -> isl.Schedule:  # fmt: skip
    """The schedule tree: band, parallelogram (hybrid), a sequence of phases, the tiles of a phase
    (the outermost marked ``pragma``), then the original order inside a tile.

    With ``deltas`` (the directions of the tile edges, :func:`split_task_deltas`),
    each tile is an OpenMP task instead: a mark ``omp task depend(...)``
    under the tile loops, none on them.
    """
    m = len(shape.split_slopes)
    lead = 2 if shape.hybrid else 1
    n = lead + 2 * m
    inner = identity_schedule(part)
    names = [f"o{k}" for k in range(n)]
    phases: list[isl.Schedule] = []
    for kinds in itertools.product((0, 1), repeat=m):
        fixed = " and ".join(f"{names[lead + k]} = {y}" for k, y in enumerate(kinds)) or "true"
        phase = tiles.intersect_range(isl.UnionSet(f"{{ [{', '.join(names)}] : {fixed} }}", context=ctx()))
        domain = phase.domain()
        if domain.is_empty():
            continue
        sub = inner.intersect_domain(domain)
        for k in reversed(range(m)):
            sub = sub.insert_partial_schedule(_member(phase, lead + m + k, n))
        node = sub.get_root().child(0)
        if deltas is None:
            sub = node.insert_mark(isl.Id(pragma, context=ctx())).get_schedule()
        else:
            for _ in range(m):
                node = node.child(0)
            # only the directions from tiles that exist: source kinds 0 (upright) or 1 (inverted)
            real = [v for v in deltas if all(0 <= y - v[lead + k] <= 1 for k, y in enumerate(kinds))]
            text = "omp " + depend_clause(*task_addresses(kinds, real, shape.hybrid))
            sub = node.insert_mark(isl.Id(text, context=ctx())).get_schedule()
        phases.append(sub)
    if not phases:
        raise PassFailed(f"{part.where}: the split tiles contain no instance")
    tree = phases[0]
    for sub in phases[1:]:
        tree = tree.sequence(sub)
    for k in reversed(range(lead)):
        tree = tree.insert_partial_schedule(_member(tiles, k, n))
    return tree


def task_addresses(kinds: Sequence[int], deltas: Sequence[tuple[int, ...]],
                   hybrid: bool) -> tuple[list[str], list[tuple[int, ...]]]:  # fmt: skip
    """The C coordinates of a task's address and the address offsets of its predecessors.

    A tile ``(band, [p,] kinds, j)`` has the address ``([p,] 2*j + kind, ...)``
    (``$k``: the tile loop at depth ``k``): the band is left out and each
    kind folded into its tile index, so that the bits of the address array
    go to the coordinates that take many values. Tiles sharing an address
    are ordered in creation order (the ``out`` clauses), which never breaks
    a dependence; here they are the same tile of successive bands, which
    depend on each other anyway. An offset 0 (the same tile, a band
    before) is the ``out`` clause's own ordering: left out.
    """
    m = len(kinds)
    lead = 2 if hybrid else 1
    coords = (["$1"] if hybrid else []) + [f"2 * ${lead + k}" + (" + 1" if y else "") for k, y in enumerate(kinds)]
    folded = {((v[1],) if hybrid else ()) + tuple(2 * v[lead + m + k] + v[lead + k] for k in range(m))
              for v in deltas}  # fmt: skip
    return coords, sorted(v for v in folded if any(v))


def split_task_deltas(part: Scop, deps: Sequence[Dependence], tiles: isl.UnionMap) -> list[tuple[int, ...]]:
    """The directions ``W - V`` of the real tile edges, for the tasks' ``depend`` clauses.

    From the value-based (flow) and nearest (anti, output) pairs: every
    memory-based pair is a chain of them, so a path of tiles orders each.
    Tasks are created in the lexicographic order of the tile vectors (the
    order of :func:`split_schedule`): every direction must be
    lexicographically positive (PassFailed otherwise, or if not finite).
    """
    deltas = direct_tile_deltas(deps, tiles)
    if deltas is None:
        raise PassFailed(f"{part.where}: the split tiles' dependences have no finite set of directions")
    backwards = [v for v in deltas if v <= tuple(0 for _ in v)]
    if backwards:
        raise PassFailed(f"{part.where}: a split tile dependence goes backwards: {backwards[0]}")
    return deltas


# ------------------------------------------------------------------------ tile sizes


def _extents(module: Module, part: Scop, geometry: StencilGeometry) -> list[int | None]:
    """The number of values of the level and each space coordinate, where the parameters are known."""
    values = known_parameters(module, part)
    image = geometry.coordinates.range()
    sets: list[isl.Set] = []
    image.foreach_set(sets.append)
    s = fix_parameters(sets[0], values)
    return [constant_extent(s, k) for k in range(len(geometry.slopes) + 1)]


def default_sizes(module: Module, part: Scop, geometry: StencilGeometry, hybrid: bool,
                  caches: Caches) -> tuple[int, ...]:  # fmt: skip
    """``(s^T, [s^P,] U, I, ...)`` from a footprint model: the most time steps and points per byte
    whose tile (with its halo) fits in :data:`~.tile_model.CACHE_FRACTION` of the target cache,
    with :data:`MIN_TILES_PER_PHASE` tiles per thread in a phase and bands no taller than the
    time loop where the extents are known.
    Upright widths are ``2*sigma*(H-1) + W`` and inverted ones ``W`` (tiles of equal work).
    """
    per_point = sum(element_size(a.decl) for a in part.arrays.values() if a.rank >= 1) or 8
    levels, *extents = _extents(module, part, geometry)
    steps = -(-levels // geometry.levels) if levels is not None else None
    split = list(range(1, len(geometry.slopes))) if hybrid else list(range(len(geometry.slopes)))
    threads = os.cpu_count() or 1
    budget = CACHE_FRACTION * caches.target()
    best: tuple[tuple[bool, float], tuple[int, ...]] | None = None
    for st, w, sp in itertools.product(HEIGHTS, WIDTHS, PARALLELOGRAMS if hybrid else (0,)):
        if steps is not None and st > max(steps, HEIGHTS[0]):
            continue  # a band taller than the time loop
        h = geometry.levels * st
        widths = [(2 * geometry.slopes[k] * (h - 1) + w, w) for k in split]
        span = [u + 2 * geometry.slopes[k] for (u, _), k in zip(widths, split)]
        points = float(st)
        for u, i in widths:
            points *= u + i
        if hybrid:
            span.append(sp + geometry.slopes[0] * (h + 1))
            points *= sp
        bytes_ = per_point
        for e in span:
            bytes_ *= e
        if bytes_ > budget:
            continue
        first = extents[split[0]]
        parallel = first is None or first >= MIN_TILES_PER_PHASE * threads * (widths[0][0] + widths[0][1])
        key = (parallel, points / bytes_)
        sizes = (st,) + ((sp,) if hybrid else ()) + tuple(x for pair in widths for x in pair)
        if best is None or key > best[0]:
            best = (key, sizes)
    if best is None:
        h = geometry.levels * HEIGHTS[0]
        pairs = tuple(x for k in split for x in (2 * geometry.slopes[k] * (h - 1) + WIDTHS[0], WIDTHS[0]))
        return (HEIGHTS[0],) + ((PARALLELOGRAMS[0],) if hybrid else ()) + pairs
    return best[1]


def parse_split_sizes(text: str) -> tuple[int, ...]:
    """``"4,16,4"`` -> ``(4, 16, 4)`` (``I`` may be 0); ``""`` -> ``()``; PassFailed if not integers >= 0."""
    try:
        sizes = tuple(int(x) for x in text.replace(" ", "").split(",") if x)
    except ValueError:
        raise PassFailed(f"tile sizes {text!r} must be a comma-separated list of integers") from None
    if any(s < 0 for s in sizes):
        raise PassFailed(f"tile sizes {text!r} must not be negative")
    return sizes


def split_shape(sizes: Sequence[int], geometry: StencilGeometry, hybrid: bool) -> SplitShape:
    """The :class:`SplitShape` of ``(s^T, [s^P,] U, I, U, I, ...)``, or PassFailed.

    Missing widths: the last ``(U, I)`` pair repeated (a lone ``U`` gets
    ``I = U``); with no pair, ``U = 2*sigma*(H-1) + 8`` and ``I = 8``; a
    missing ``s^P``: 8.
    """
    d = len(geometry.slopes)
    m = d - 1 if hybrid else d
    lead = 2 if hybrid else 1
    st = sizes[0]
    sp = (sizes[1] if len(sizes) > 1 else 8) if hybrid else 0
    rest = list(sizes[lead:])
    pairs = [(rest[k], rest[k + 1] if k + 1 < len(rest) else rest[k]) for k in range(0, len(rest), 2)]
    split = list(range(1, d)) if hybrid else list(range(d))
    if not pairs:
        pairs = [(2 * geometry.slopes[k] * (geometry.levels * st - 1) + 8, 8) for k in split]
    widths = tuple((pairs + [pairs[-1]] * m)[:m])
    if hybrid and sp < 1:
        raise PassFailed(f"tile sizes {','.join(map(str, sizes))}: the parallelogram width s^P must be positive")
    shown = ",".join(str(v) for v in (st,) + ((sp,) if hybrid else ()) + tuple(x for p in widths for x in p))
    try:
        return SplitShape(height=geometry.levels * st, slopes=geometry.slopes, widths=widths, parallelogram=sp)
    except ValueError as err:
        raise PassFailed(f"tile sizes {shown} (s^T={st} time steps = {geometry.levels * st} statement levels, "
                         f"slopes {geometry.slopes}): {err}") from None  # fmt: skip


# ------------------------------------------------------------------------ the pass


def grouped_dependences(deps: Sequence[Dependence]) -> list[Dependence]:
    """One dependence per (source, sink) statement pair, its relation the coalesced union of theirs.

    The same instance pairs as ``deps``, in far fewer isl operations: the
    order test of a schedule with the divisions of split tiles costs about
    the same for a union as for one of its members.
    """
    groups: dict[tuple[str, str], list[Dependence]] = {}
    for d in deps:
        groups.setdefault((d.source_stmt.name, d.sink_stmt.name), []).append(d)
    out = []
    for members in groups.values():
        rel = members[0].relation
        for d in members[1:]:
            rel = rel.union(d.relation)
        out.append(replace(members[0], relation=rel.coalesce()))
    return out


def check_split_schedule(part: Scop, deps: Sequence[Dependence], tree: isl.Schedule) -> None:
    """:func:`.schedule_check.check_schedule` on the grouped dependences, then, if it refuses, on each
    dependence (to name the one in the way).
    """
    try:
        check_schedule(part, grouped_dependences(deps), tree)
    except PassFailed:
        check_schedule(part, deps, tree)
        raise




def split_tile_nodes(module: Module, part: Scop, deps: Sequence[Dependence], shape: str = "split",
                     schedule: str = "static", tile_sizes: str = "", cache_size: int = 0,
                     pragma: str = "omp parallel for") -> list[c_ast.Node]:  # fmt: skip
    """The code of one time loop split-tiled (``shape="split"``) or hybrid-split-tiled (``"hybrid"``).

    ``schedule="static"``: barrier phases (``pragma`` on the tile loops);
    ``"tasks"``: one OpenMP task per tile, ``depend`` clauses on the real
    tile edges (Freitag's dynamic traversal; the caller wraps them in a task
    region). The work of ``time_tile`` for these shapes once the part is
    chosen (a time loop, :func:`.time_tiling.time_loop_problem`); nothing
    is changed: splice the result with :func:`.codegen.replace_part`.
    """
    part_deps = [d for d in deps if not d.relation.is_empty()]
    geometry = stencil_geometry(part, part_deps)
    hybrid = shape == "hybrid"
    if hybrid and len(geometry.slopes) < 2:
        raise PassFailed(f"{part.where}: hybrid split tiling needs two space dimensions or more: "
                         f"use shape=\"split\"")  # fmt: skip
    given = parse_split_sizes(tile_sizes)
    if not given:
        caches = machine_caches()
        if cache_size > 0:
            caches = Caches(caches.l1, cache_size, caches.l3)
        given = default_sizes(module, part, geometry, hybrid, caches)
    tiles_shape = split_shape(given, geometry, hybrid)
    tiles = tile_map(geometry.coordinates, tiles_shape)
    deltas = split_task_deltas(part, part_deps, tiles) if schedule == "tasks" else None
    tree = split_schedule(part, tiles, tiles_shape, pragma, deltas)
    check_split_schedule(part, part_deps, tree)
    return generate(module, part, tree, clock=Clock(SPLIT_CODEGEN_SECONDS), deps=part_deps)
