"""The tile dependence graph of Pochoir's trapezoidal decomposition (Freitag 2014 §3.3 (a), §3.2).

A model of the walk ``trapezoid_tile`` generates (:mod:`.trapezoid_walk`)
on a fixed grid: the hypertrapezoids (:class:`Zoid`) its recursion makes,
and the graph whose edge ``V -> W`` says that tile ``W`` reads what tile
``V`` computes. Built as Freitag's ``Expand`` / ``Expand_Spacecut`` /
``Expand_Timecut`` (Figs 3.6-3.8): start from one trapezoid larger than
the grid; a tile with no point of the grid is deleted; a tile whose
spacecut is legal (shorter base at least ``2*sigma*dt``, erratum E3) and
required (longer base above ``thr_x``) in some dimensions is cut in all of
them, one dimension after the other (edges ``L -> C``, ``R -> C`` upright,
``C -> L``, ``C -> R`` inverted); else one whose height is at least 2 and
above ``thr_t`` is cut in time (``B -> T``). The edges of a cut tile go to
its pieces by *checked inheritance*: ``U -> Y`` only when
``dependent(U, Y)``, an isl emptiness test (§3.2: ``(U & D).apply(dep) &
(Y & D)`` not empty). ``checked=False`` gives the unchecked graph (the
ordering the fork-join recursion suggests, §5.1 claim 5).

Conventions of the §5.2 regression rows: grid ``D = {1 <= t <= T, 1 <= x
<= N - 2}`` per space dimension, ``sigma = 1``, start trapezoid ``(t0 = 1,
t1 = T + 1, x0 = 1 - T, x1 = N - 1 + T, +1, -1)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import islpy as isl
import networkx as nx

from .affine import ctx

#: kinds of piece of a spacecut
LEFT, CENTRE, RIGHT = "L", "C", "R"


@dataclass(frozen=True)
class Zoid:
    """A hypertrapezoid ``t0 <= t < t1``, ``x0[i] + s0[i]*(t - t0) <= x[i] < x1[i] + s1[i]*(t - t0)``."""

    t0: int
    t1: int
    x0: tuple[int, ...]
    x1: tuple[int, ...]
    s0: tuple[int, ...]
    s1: tuple[int, ...]

    @property
    def height(self) -> int:
        """``dt = t1 - t0``."""
        return self.t1 - self.t0

    def bottom(self, i: int) -> int:
        """The bottom base of dimension ``i`` (at ``t0``)."""
        return self.x1[i] - self.x0[i]

    def top(self, i: int) -> int:
        """The top base of dimension ``i`` (at ``t1``)."""
        return self.bottom(i) + (self.s1[i] - self.s0[i]) * self.height

    def upright(self, i: int) -> bool:
        """Whether dimension ``i`` shrinks (or keeps its width) upwards."""
        return self.bottom(i) >= self.top(i)

    def isl_set(self) -> isl.Set:
        """The points, as an isl set ``[t, x0, ...]``."""
        xs = [f"x{i}" for i in range(len(self.x0))]
        cons = [f"{self.t0} <= t < {self.t1}"]
        for i, x in enumerate(xs):
            lo, hi = self.x0[i] - self.s0[i] * self.t0, self.x1[i] - self.s1[i] * self.t0
            cons.append(f"{lo} + {self.s0[i]}*t <= {x} < {hi} + {self.s1[i]}*t")
        return isl.Set(f"{{ [t, {', '.join(xs)}] : {' and '.join(cons)} }}", context=ctx())

    def box(self) -> tuple[tuple[int, int], ...]:
        """Inclusive bounds of ``t`` and each ``x[i]`` over the points (empty rows included)."""
        last = self.height - 1
        out = [(self.t0, self.t1 - 1)]
        for i in range(len(self.x0)):
            out.append((self.x0[i] + min(0, self.s0[i] * last), self.x1[i] - 1 + max(0, self.s1[i] * last)))
        return tuple(out)


def can_spacecut(z: Zoid, i: int, sigma: int) -> bool:
    """Pochoir's legality of a spacecut of dimension ``i``: the shorter base is at least ``2*sigma*dt`` (E3)."""
    return min(z.bottom(i), z.top(i)) >= 2 * sigma * z.height


def spacecut(z: Zoid, i: int, sigma: int) -> dict[str, Zoid]:
    """The pieces ``L``, ``C``, ``R`` of a spacecut of dimension ``i`` (errata E1, E2; pieces may be empty, E12)."""

    def piece(x0: int, x1: int, s0: int, s1: int) -> Zoid:
        def put(v: tuple[int, ...], value: int) -> tuple[int, ...]:
            return v[:i] + (value,) + v[i + 1:]

        return replace(z, x0=put(z.x0, x0), x1=put(z.x1, x1), s0=put(z.s0, s0), s1=put(z.s1, s1))

    dt, x0, x1, s0, s1 = z.height, z.x0[i], z.x1[i], z.s0[i], z.s1[i]
    if z.upright(i):
        m = x0 + s0 * dt + z.top(i) // 2
        return {LEFT: piece(x0, m, s0, -sigma), CENTRE: piece(m, m, -sigma, sigma), RIGHT: piece(m, x1, sigma, s1)}
    m = x0 + z.bottom(i) // 2
    return {LEFT: piece(x0, m - sigma * dt, s0, sigma), CENTRE: piece(m - sigma * dt, m + sigma * dt, sigma, -sigma),
            RIGHT: piece(m + sigma * dt, x1, -sigma, s1)}  # fmt: skip


def timecut(z: Zoid) -> tuple[Zoid, Zoid]:
    """The lower and upper halves ``B``, ``T`` of a timecut (``h = dt // 2``)."""
    h = z.height // 2
    upper = Zoid(z.t0 + h, z.t1, tuple(a + s * h for a, s in zip(z.x0, z.s0)),
                 tuple(a + s * h for a, s in zip(z.x1, z.s1)), z.s0, z.s1)  # fmt: skip
    return replace(z, t1=z.t0 + h), upper


@dataclass(frozen=True)
class Stencil:
    """A grid ``domain`` (isl set ``[t, x...]``), its dependences ``dep`` (source -> sink) and slopes.

    ``depth``: the most time steps a dependence spans (every one spans at
    least one, and at most ``sigma[i]`` points of ``x[i]`` per step).
    """

    domain: isl.Set
    dep: isl.Map
    sigmas: tuple[int, ...]
    depth: int = 1

    @property
    def dims(self) -> int:
        """Number of space dimensions."""
        return len(self.sigmas)


def heat_stencil(steps: int, n: int, dims: int = 1) -> Stencil:
    """§5.2's grid: ``1 <= t <= steps``, ``1 <= x[i] <= n - 2``; the 3-point (1-D) or 5-point (2-D) shape."""
    xs = [f"x{i}" for i in range(dims)]
    dom = isl.Set(f"{{ [t, {', '.join(xs)}] : 1 <= t <= {steps} and "
                  + " and ".join(f"1 <= {x} <= {n - 2}" for x in xs) + " }", context=ctx())  # fmt: skip
    maps = []
    for k in range(dims):
        for off in (-1, 0, 1):
            if off != 0 or k == 0:
                ys = [f"{x} + {off}" if j == k else x for j, x in enumerate(xs)]
                maps.append(f"[t, {', '.join(xs)}] -> [t + 1, {', '.join(ys)}]")
    return Stencil(dom, isl.Map("{ " + "; ".join(maps) + " }", context=ctx()), (1,) * dims)


def start_zoid(steps: int, n: int, dims: int = 1) -> Zoid:
    """§5.2's start trapezoid ``(1, T + 1; 1 - T, N - 1 + T; +1, -1)`` in every dimension."""
    return Zoid(1, steps + 1, (1 - steps,) * dims, (n - 1 + steps,) * dims, (1,) * dims, (-1,) * dims)


@dataclass
class TrapezoidGraph:
    """Freitag's ``Expand`` over a :class:`Stencil`; ``graph`` holds the tiles and their edges.

    ``thr_x``: a spacecut is required where the longer base exceeds it
    (one value, or one per dimension); ``thr_t``: a timecut where the
    height (at least 2) exceeds it; ``checked``: inherit only the real
    edges (False: every suggested one).
    """

    stencil: Stencil
    thr_x: int | tuple[int, ...]
    thr_t: int
    checked: bool = True
    #: stop once the graph holds more nodes than this (0: no limit), setting ``truncated``
    limit: int = 0
    truncated: bool = False
    graph: nx.DiGraph = field(default_factory=lambda: nx.DiGraph())
    #: tests made by ``dependent`` (isl or bounding boxes)
    tests: int = 0
    _points: dict[Zoid, isl.Set] = field(default_factory=dict)
    _reach: dict[Zoid, isl.Set] = field(default_factory=dict)

    # -- predicates (§3.2) --------------------------------------------------------------------
    def points(self, z: Zoid) -> isl.Set:
        """``z & D``."""
        if z not in self._points:
            self._points[z] = z.isl_set().intersect(self.stencil.domain)
        return self._points[z]

    def domain(self, z: Zoid) -> bool:
        """Whether ``z`` holds a point of the grid."""
        return not self.points(z).is_empty()

    def dependent(self, v: Zoid, w: Zoid) -> bool:
        """Whether ``w`` depends on ``v``: ``(v & D).apply(dep) & (w & D)`` is not empty."""
        self.tests += 1
        if not _boxes_meet(v.box(), w.box(), self.stencil):
            return False
        if v not in self._reach:
            self._reach[v] = self.points(v).apply(self.stencil.dep)
        return not self._reach[v].intersect(self.points(w)).is_empty()

    # -- Expand (Figs 3.6-3.8) ----------------------------------------------------------------
    def build(self, start: Zoid) -> nx.DiGraph:
        """The graph of the tiles the walk makes from ``start``."""
        self.graph.add_node(start)
        stack = [start]
        while stack:
            stack.extend(reversed(self._expand(stack.pop())))
            if self.limit and self.graph.number_of_nodes() > self.limit:
                self.truncated = True
                break
        return self.graph

    def _expand(self, v: Zoid) -> list[Zoid]:
        if not self.domain(v):
            self.graph.remove_node(v)
            return []
        dims = cut_dimensions(v, self.stencil, self.thr_x)
        if dims:
            return self._spacecut(v, dims)
        if v.height >= 2 and v.height > self.thr_t:
            lower, upper = timecut(v)
            self._cut_edge(lower, upper)
            self._inherit(v, [lower, upper])
            return [lower, upper]
        return []

    def _spacecut(self, v: Zoid, dims: Sequence[int]) -> list[Zoid]:
        queue = [v]
        for i in dims:
            nxt: list[Zoid] = []
            for x in queue:
                pieces = spacecut(x, i, self.stencil.sigmas[i])
                left, centre, right = pieces[LEFT], pieces[CENTRE], pieces[RIGHT]
                for a, b in [(left, centre), (right, centre)] if x.upright(i) else [(centre, left), (centre, right)]:
                    self._cut_edge(a, b)
                self._inherit(x, [left, centre, right])
                nxt += [left, centre, right]
            queue = nxt
        return queue

    def _cut_edge(self, a: Zoid, b: Zoid) -> None:
        """An intra-cut edge: Freitag adds it unchecked; checked here too, as the inherited ones (a
        piece clipped by the grid may not read the other: claim 3 then holds on small grids)."""
        if not self.checked or self.dependent(a, b):
            self.graph.add_edge(a, b)
        else:
            self.graph.add_nodes_from([a, b])

    def _inherit(self, x: Zoid, kids: Sequence[Zoid]) -> None:
        for u in list(self.graph.predecessors(x)):
            for y in kids:
                if not self.checked or self.dependent(u, y):
                    self.graph.add_edge(u, y)
        for u in list(self.graph.successors(x)):
            for y in kids:
                if not self.checked or self.dependent(y, u):
                    self.graph.add_edge(y, u)
        self.graph.remove_node(x)


def _boxes_meet(v: Sequence[tuple[int, int]], w: Sequence[tuple[int, int]], stencil: Stencil) -> bool:
    """Whether a point of box ``w`` can depend on a point of box ``v`` (1 to ``depth`` steps later,
    at most ``sigma`` points a step).

    Only a fast negative: when it says no, the isl test would too.
    """
    (vt0, vt1), (wt0, wt1) = v[0], w[0]
    if wt1 < vt0 + 1 or wt0 > vt1 + stencil.depth:
        return False
    reach = [s * stencil.depth for s in stencil.sigmas]
    return all(w[i + 1][1] >= v[i + 1][0] - r and w[i + 1][0] <= v[i + 1][1] + r for i, r in enumerate(reach))


def cut_dimensions(v: Zoid, stencil: Stencil, thr_x: int | Sequence[int]) -> list[int]:
    """The dimensions a hyperspace cut of ``v`` cuts: required (longer base above ``thr_x``) and legal."""
    widths = [thr_x] * stencil.dims if isinstance(thr_x, int) else list(thr_x)
    return [i for i in range(stencil.dims)
            if max(v.bottom(i), v.top(i)) > widths[i] and can_spacecut(v, i, stencil.sigmas[i])]  # fmt: skip


def fork_join_span(stencil: Stencil, start: Zoid, thr_x: int | tuple[int, ...], thr_t: int) -> int:
    """Tiles in sequence on the longest chain of Pochoir's fork-join recursion (levels and timecuts)."""
    model = TrapezoidGraph(stencil, thr_x, thr_t)

    def span(v: Zoid) -> int:
        if not model.domain(v):
            return 0
        dims = cut_dimensions(v, stencil, thr_x)
        if dims:
            levels: dict[int, int] = {}
            pieces = [(v, 0)]
            for i in dims:
                nxt = []
                for x, level in pieces:
                    cut = spacecut(x, i, stencil.sigmas[i])
                    dependent = {CENTRE} if x.upright(i) else {LEFT, RIGHT}
                    nxt += [(p, level + (kind in dependent)) for kind, p in cut.items()]
                pieces = nxt
            for p, level in pieces:
                levels[level] = max(levels.get(level, 0), span(p))
            return sum(levels.values())
        if v.height >= 2 and v.height > thr_t:
            lower, upper = timecut(v)
            return span(lower) + span(upper)
        return 1

    return span(start)


def tile_points(stencil: Stencil, tiles: Sequence[Zoid]) -> list[isl.Set]:
    """Each tile's points of the grid (for the partition check, claim 1)."""
    return [t.isl_set().intersect(stencil.domain) for t in tiles]


def brute_force_edges(model: TrapezoidGraph) -> set[tuple[Zoid, Zoid]]:
    """Every pair of tiles ``(v, w)``, ``v != w``, with ``dependent(v, w)`` (claim 4's all-pairs oracle)."""
    tiles = list(model.graph.nodes)
    return {(v, w) for v in tiles for w in tiles if v != w and model.dependent(v, w)}
