"""Tile dependence graphs (Freitag 2014, ch. 3): which tiles wait for which, and no more.

A tiling maps every statement instance to a tile (a vector of integers,
``tile_of``). Tile ``W`` depends on tile ``V`` when some dependence pair
goes from an instance of ``V`` to one of ``W`` (``d(V) & W`` non-empty in
Freitag's notation); the *tile dependence graph* (TDG) has exactly those
edges. A wavefront schedule with a barrier per front orders every tile
after *every* tile of the previous front (a complete bipartite graph
between fronts); the TDG keeps only the real edges, and its transitive
reduction only the edges no path implies.

Two forms, both from isl:

* :func:`tile_graph`: the concrete graph for fixed sizes (networkx), with
  :func:`graph_stats` (tiles, edges, diagonal edges, edges after transitive
  reduction, edges a barrier per wavefront implies, longest path) -- the
  figures of Freitag's section 5.2, for tests;
* :func:`tile_deltas` and :func:`reduce_deltas`: the same for parametric
  sizes, per edge *direction* ``v = W - V``: the directions of the real
  edges, then every direction whose edges (between existing tiles, at any
  parameter values) are all implied by paths of the other kept directions
  is dropped, exactly (an isl inclusion test, no approximation). The kept
  directions are the ``depend(in: ...)`` clauses of one OpenMP task per tile
  (:func:`depend_clause`): OpenMP orders a task after the last task created
  before it that names the same address in ``depend(out: ...)``, so the tasks
  run as soon as the tiles they depend on are done, with no barrier.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import islpy as isl
import networkx as nx

from .affine import ctx

#: the name of the array of task addresses (one ``char`` per tile, modulo its size)
TASK_ARRAY = "passman_tiles"
#: bits of the index into it (its size is ``1 << TASK_BITS``)
TASK_BITS = 16


# ------------------------------------------------------------------ concrete graphs


def tile_graph(domain: isl.Set | isl.UnionSet, deps: isl.Map | isl.UnionMap,
               tile_of: isl.Map | isl.UnionMap) -> nx.DiGraph:  # fmt: skip
    """The TDG of fixed-size sets: a node per non-empty tile (a tuple), an edge per real dependence.

    ``domain``: the instances (no parameter left), ``deps``: dependence
    pairs, ``tile_of``: instance -> tile vector (one tuple space).
    """
    domain = isl.UnionSet(domain) if isinstance(domain, isl.Set) else domain
    deps = isl.UnionMap(deps) if isinstance(deps, isl.Map) else deps
    tile_of = (isl.UnionMap(tile_of) if isinstance(tile_of, isl.Map) else tile_of).intersect_domain(domain)
    graph = nx.DiGraph()
    for point in _points(tile_of.range()):
        graph.add_node(point)
    edges = deps.intersect_domain(domain).intersect_range(domain)
    between = edges.apply_domain(tile_of).apply_range(tile_of)
    pairs: list[isl.Point] = []
    between.wrap().foreach_point(pairs.append)
    for p in pairs:
        values = _coordinates(p)
        half = len(values) // 2
        src, dst = tuple(values[:half]), tuple(values[half:])
        if src != dst:
            graph.add_edge(src, dst)
    return graph


def _coordinates(point: isl.Point) -> list[int]:
    n = point.get_space().dim(isl.dim_type.set)
    return [point.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(n)]


def _points(s: isl.UnionSet | isl.Set) -> list[tuple[int, ...]]:
    out: list[isl.Point] = []
    s.foreach_point(out.append)
    return sorted(tuple(_coordinates(p)) for p in out)


@dataclass(frozen=True)
class GraphStats:
    """Figures of a TDG (Freitag 2014, section 5.2)."""

    tiles: int
    edges: int
    diagonal: int  # edges between tiles differing in more than one coordinate
    reduced: int  # edges of the transitive reduction
    barrier: int  # edges a barrier between consecutive wavefronts implies
    longest_path: int  # tiles on the longest path (the critical path)
    wavefronts: int


def graph_stats(graph: nx.DiGraph, wavefront: Sequence[int] = (1, 1)) -> GraphStats:
    """The figures of a TDG; ``wavefront``: the front of a tile is this dot its coordinates."""
    if not nx.is_directed_acyclic_graph(graph):
        raise ValueError("the tile graph has a cycle: the tiling is not legal")
    diagonal = sum(1 for a, b in graph.edges if sum(x != y for x, y in zip(a, b)) > 1)
    fronts: dict[int, int] = {}
    for z in graph.nodes:
        w = sum(c * x for c, x in zip(wavefront, z))
        fronts[w] = fronts.get(w, 0) + 1
    order = sorted(fronts)
    barrier = sum(fronts[a] * fronts[b] for a, b in zip(order, order[1:]))
    return GraphStats(
        tiles=graph.number_of_nodes(),
        edges=graph.number_of_edges(),
        diagonal=diagonal,
        reduced=nx.transitive_reduction(graph).number_of_edges(),
        barrier=barrier,
        longest_path=nx.dag_longest_path_length(graph) + 1 if graph.number_of_nodes() else 0,
        wavefronts=len(order),
    )


# ------------------------------------------------------------------ parametric directions


def direct_tile_deltas(deps: Iterable, tiles: isl.UnionMap) -> list[tuple[int, ...]] | None:
    """:func:`tile_deltas` of the dependences ``deps`` (each with its ``direct`` relation: the
    value-based flow and nearest anti and output pairs; every memory-based pair is a chain of
    them, so a path of tiles for each orders every dependence)."""
    direct = isl.UnionMap.empty(isl.Space.params_alloc(ctx(), 0))
    for d in deps:
        direct = direct.union(isl.UnionMap.from_map(d.direct))
    return tile_deltas(direct, tiles)


def tile_deltas(deps: isl.UnionMap, tile_of: isl.UnionMap) -> list[tuple[int, ...]] | None:
    """The directions ``W - V`` of the real edges between distinct tiles (None: not a finite set)."""
    between = deps.apply_domain(tile_of).apply_range(tile_of)
    deltas = between.deltas()
    sets: list[isl.Set] = []
    deltas.foreach_set(sets.append)
    out: set[tuple[int, ...]] = set()
    for s in sets:
        s = s.project_out(isl.dim_type.param, 0, s.dim(isl.dim_type.param))
        if not s.is_bounded():
            return None
        out.update(p for p in _points(s) if any(p))
    return sorted(out)


def _translate(tiles: isl.Set, v: Sequence[int]) -> isl.Set:
    """The tiles ``z`` such that ``z + v`` is a tile."""
    n = tiles.dim(isl.dim_type.set)
    names = [f"z{k}" for k in range(n)]
    shifted = ", ".join(f"{x} + {c}" for x, c in zip(names, v))
    m = isl.Map(f"{{ [{', '.join(names)}] -> [{shifted}] }}", context=ctx())
    if tiles.has_tuple_id():
        m = m.set_tuple_id(isl.dim_type.in_, tiles.get_tuple_id())
        m = m.set_tuple_id(isl.dim_type.out, tiles.get_tuple_id())
    m = m.align_params(tiles.get_space())
    return tiles.apply(m.reverse()).intersect(tiles)


#: pieces a reachability set of :func:`reduce_deltas` may have before isl coalesces it
_COALESCE_PIECES = 8


def _box(v: Sequence[int]) -> list[tuple[int, ...]]:
    """The points ``0 <= p <= v`` (componentwise), in an order where ``p - s`` precedes ``p``."""
    return sorted(itertools.product(*(range(c + 1) for c in v)), key=sum)


#: seconds :func:`reduce_deltas` may spend; past them the directions not yet shown redundant are
#: kept (every direction kept is a real edge: the order stays legal, only less free)
REDUCE_SECONDS = 2.0
#: the most points of a box ``0 <= p <= v`` the path search of :func:`_implied` walks
MAX_BOX = 4096


class _OutOfTime(Exception):
    pass


def _implied(v: tuple[int, ...], others: Sequence[tuple[int, ...]], at, deadline: float = math.inf) -> bool:
    """Whether every pair of tiles ``(z, z + v)`` is joined by a path of ``others`` through tiles.

    ``at(p)``: the tiles ``z`` such that ``z + p`` is a tile. First the
    paths of two steps (an intersection each: most implied directions are
    proven there), then every path at once: ``R(p)``, the pairs' tiles ``z``
    that reach ``z + p``, is the union over the steps ``s`` of ``R(p - s)``
    restricted to ``at(p)``, over the box ``0 <= p <= v`` (the union over
    every path of the intersection of its tiles, without listing the paths).
    """
    pairs = at(v)
    if pairs.is_empty():
        return True  # no pair of tiles at this direction: nothing to order
    covered = None
    for u in others:
        if tuple(a - b for a, b in zip(v, u)) in others:
            covered = at(u) if covered is None else covered.union(at(u))
            if pairs.is_subset(covered):
                return True
    if math.prod(c + 1 for c in v) > MAX_BOX:
        return False  # too many intermediate tiles to follow: kept (seed 24 of the stencil fuzzer)
    reach: dict[tuple[int, ...], isl.Set] = {}
    for p in _box(v):
        if time.monotonic() > deadline:
            raise _OutOfTime
        if not any(p):
            reach[p] = pairs
            continue
        got = None
        for s in others:
            before = tuple(a - b for a, b in zip(p, s))
            if before in reach:
                got = reach[before] if got is None else got.union(reach[before])
        if got is not None:
            got = got if p == v else got.intersect(at(p))
            reach[p] = got.coalesce() if got.n_basic_set() > _COALESCE_PIECES else got
    return v in reach and pairs.is_subset(reach[v])


def reduce_deltas(tiles: isl.Set, deltas: Sequence[tuple[int, ...]],
                  seconds: float = REDUCE_SECONDS) -> list[tuple[int, ...]]:  # fmt: skip
    """The directions left when those implied by paths of the others are dropped (exact, within
    ``seconds``: past them, or for a direction with more than :data:`MAX_BOX` tiles in its box,
    directions are kept that might have been dropped).

    A direction ``v`` is dropped when, for every pair of existing tiles
    ``(z, z + v)`` (all parameter values), a path of the other kept
    directions leads from ``z`` to ``z + v`` through existing tiles: the
    reachability between tiles, hence every legal order, is unchanged.
    Directions must be non-negative (the tiles of a permutable band); the
    longest are tried first (see :func:`_implied`).
    """
    if any(c < 0 for v in deltas for c in v):
        return list(deltas)
    shifted: dict[tuple[int, ...], isl.Set] = {}

    def at(p: tuple[int, ...]) -> isl.Set:  # the tiles z such that z + p is a tile
        if p not in shifted:
            shifted[p] = _translate(tiles, p)
        return shifted[p]

    kept = list(deltas)
    deadline = time.monotonic() + seconds
    for v in sorted(deltas, key=lambda d: (-sum(d), d)):
        others = [u for u in kept if u != v]
        try:
            if _implied(v, others, at, deadline):
                kept = others
        except _OutOfTime:
            break
    return sorted(kept)


# ------------------------------------------------------------------ OpenMP tasks


def _index(coords: Sequence[str]) -> str:
    """A C index into :data:`TASK_ARRAY` for a tile (its coordinates, bits shared out)."""
    n = len(coords)
    bits = [TASK_BITS // n + (1 if k < TASK_BITS % n else 0) for k in range(n)]
    parts = []
    shift = 0
    for c, b in zip(reversed(coords), reversed(bits)):
        term = f"(({c}) & {(1 << b) - 1})"
        parts.append(f"{term} << {shift}" if shift else term)
        shift += b
    return " | ".join(reversed(parts))


def depend_clause(coords: Sequence[str], deltas: Sequence[tuple[int, ...]]) -> str:
    """``task depend(in: ...) depend(out: ...)`` for the tile whose coordinates are the C ``coords``.

    Tiles are told apart modulo ``1 << TASK_BITS`` addresses: two tiles that
    share one are merely ordered (in creation order, a topological order), so
    aliasing never breaks a dependence.
    """

    def shifted(v: tuple[int, ...]) -> list[str]:
        return [c if not d else f"{c} - {d}" for c, d in zip(coords, v)]

    ins = ", ".join(f"{TASK_ARRAY}[{_index(shifted(v))}]" for v in deltas)
    out = f"depend(out: {TASK_ARRAY}[{_index(list(coords))}])"
    return f"task {'depend(in: ' + ins + ') ' if ins else ''}{out}"
