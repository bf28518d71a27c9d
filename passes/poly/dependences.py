"""Data dependences between the statement instances of each SCoP (isl).

For every pair of references to the same array, at least one a write, in
one SCoP (:mod:`.scop`): a **flow** (write then read), **anti** (read then
write) or **output** (write then write) dependence, one :class:`Dependence`
per loop level that carries it (``level`` is 1-based over the loops common
to both statements; 0 means loop-independent, the source textually first).

* ``relation`` is *memory-based*: every pair of instances touching the same
  element, source executed first (an isl map ``S1[i,j] -> S2[i',j']``);
* ``direct`` is *value-based*: for a flow dependence, the last write before
  each read (isl's ``compute_flow``, MAY writes do not kill); for anti and
  output dependences, the nearest sink after each source (the semantics of
  Di 2013, Table 3.1). A loop carries some memory-based dependence exactly
  when it carries some direct one, and the direct relation gives the
  distances people expect (``(1,0)`` rather than ``(k,0), k >= 1``).

Before (Di 2013, Fig. 3.4)::

    for (j = 1; j <= J; j++)
        for (i = 1; i <= I; i++)
            A[i] = 0.5 * (A[i] + A[i + 1]);

After (the dependences with a non-empty ``direct`` relation)::

    flow   A[i] -> A[i]       level 1  distance (1, 0)
    flow   A[i] -> A[i + 1]   level 1  distance (1, -1)
    anti   A[i + 1] -> A[i]   level 2  distance (0, 1)
    anti   A[i] -> A[i]       level 1  distance (1, 0)
    output A[i] -> A[i]       level 1  distance (1, 0)

Distances are differences of iterator values (sink minus source) over the
common loops, so a dependence carried by a decreasing loop has a negative
distance at its level. Query with :meth:`Dependences.carried_at` (a
:class:`passman.Loop` or label) and :meth:`Dependences.explain`, which says
in source terms why a loop is not parallel.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass

import islpy as isl
import networkx as nx
from pycparser import c_ast

from passman import Loop, Module, analysis
from passman.deadline import function_budget
from passman.lazy import LazyAttribute

from ..cfacts.names import where
from .affine import hard, operation_budget, out_of_operations
from .scop import Access, Scop, ScopLoop, Scops, Statement

_DT = LazyAttribute("islpy", "dim_type")

#: isl operations allowed to the value-based flow of one array (``compute_flow``) before the
#: analysis falls back to memory-based flow for that array
FLOW_OPERATIONS = 1_000_000
#: stands for the flows of an array whose value-based analysis ran out of its budget
MEMORY_BASED = object()


@dataclass(frozen=True)
class Dependence:
    """One dependence between two references, at one loop level."""

    kind: str  # "flow" | "anti" | "output"
    source: Access
    sink: Access
    source_stmt: Statement
    sink_stmt: Statement
    level: int
    relation: isl.Map  # memory-based
    direct: isl.Map  # value-based (flow) or nearest (anti, output); may be empty
    distance: isl.Set  # over the common loops (of direct if not empty, else of relation)
    direction: tuple[str, ...]
    uniform: bool
    vector: tuple[int, ...] | None
    loops: tuple[ScopLoop, ...]  # the common loops
    scop: int

    @property
    def array(self) -> str:
        """The C name of the array (or scalar)."""
        return self.source.var

    @property
    def is_direct(self) -> bool:
        """Whether some value-based (or nearest) instance pair is carried at this level."""
        return not self.direct.is_empty()

    @property
    def may(self) -> bool:
        """An over-approximation: one of the references is a MAY access."""
        return self.source.may or self.sink.may

    @property
    def carrier(self) -> ScopLoop | None:
        """The loop carrying the dependence (None if loop-independent)."""
        return self.loops[self.level - 1] if self.level else None

    def distance_text(self) -> str:
        """``(1, -1)``, or the isl set of distances when not uniform."""
        if self.vector is not None:
            return "(" + ", ".join(str(v) for v in self.vector) + ")"
        return "(" + ", ".join(self.direction) + ")"

    def why(self) -> str:
        """The dependence in source terms.

        ``A[i] written at iteration j (jacobi.c:12) is read by A[i + 1] at j+1 (jacobi.c:12)``.
        """
        src_verb = "written" if self.source.is_write else "read"
        sink_verb = {"flow": "read", "anti": "overwritten", "output": "overwritten"}[self.kind]
        if self.kind == "output":
            sink_verb = "written again"
        if self.level == 0:
            at, later = "", "later in the same iteration"
        else:
            var = self.loops[self.level - 1].var
            d = self.vector[self.level - 1] if self.vector is not None else None
            at = f" at iteration {var}"
            if d is None:
                later = f"at a later iteration of {var}"
            else:
                later = f"at {var}{d:+d}"
        sink_ref = "" if self.sink.text == self.source.text else f" by {self.sink.text}"
        return (
            f"{self.source.text} {src_verb}{at} ({where(self.source_stmt.node)}) is {sink_verb}{sink_ref} "
            f"{later} ({where(self.sink_stmt.node)})"
        )

    def __str__(self) -> str:
        return (
            f"{self.kind} {self.source_stmt.name}:{self.source.text} -> {self.sink_stmt.name}:{self.sink.text}"
            f" level {self.level} distance {self.distance_text()}"
        )


@dataclass(frozen=True)
class Dependences:
    """The value of resource ``dependences`` for one function."""

    function: str
    scops: Scops
    all: tuple[Dependence, ...]

    @functools.cached_property
    def graph(self) -> nx.MultiDiGraph:
        """Statement names; edge attribute ``"dep"``. Built on first use: most passes never read
        it, and building it imports networkx (0.1 s of every command's start)."""
        return _graph(list(self.all), self.scops)

    def __iter__(self) -> Iterator[Dependence]:
        return iter(self.all)

    def __len__(self) -> int:
        return len(self.all)

    def of_scop(self, scop: Scop | int) -> list[Dependence]:
        """The dependences of one SCoP."""
        k = scop if isinstance(scop, int) else scop.index
        return [d for d in self.all if d.scop == k]

    def direct(self) -> list[Dependence]:
        """The dependences with a non-empty value-based/nearest relation."""
        return [d for d in self.all if d.is_direct]

    def carried_at(self, loop: Loop | str) -> list[Dependence] | None:
        """The dependences carried by a loop; None when the loop is in no SCoP (unknown)."""
        label = loop if isinstance(loop, str) else loop.label
        part = self.scops.for_loop(label)
        if part is None:
            return None
        lp = part.loop(label)
        return [
            d for d in self.all
            if d.scop == part.index and d.level == lp.depth + 1 and d.loops[lp.depth].node is lp.node
        ]  # fmt: skip

    def is_parallel(self, loop: Loop | str) -> bool | None:
        """Whether a loop carries no dependence (None: unknown, the loop is in no SCoP)."""
        deps = self.carried_at(loop)
        return None if deps is None else not deps

    def explain(self, loop: Loop | str) -> str | None:
        """Why a loop is not parallel, in source terms (None if it is parallel).

        ``loop l2 of jacobi is not parallel: A[i][j] written at iteration i (jacobi.c:9) is read
        by A[i - 1][j] at i+1 (jacobi.c:9)``
        """
        label = loop if isinstance(loop, str) else loop.label
        deps = self.carried_at(label)
        if deps is None:
            why = self.scops.reason(label)
            return f"loop {label} of {self.function} is not a static control part: {why}"
        if not deps:
            return None
        best = min(deps, key=_rank)
        return f"loop {label} of {self.function} is not parallel: {best.why()}"


def _rank(d: Dependence) -> tuple:
    return (not d.is_direct, {"flow": 0, "anti": 1, "output": 2}[d.kind], d.may, not d.uniform,
            d.source_stmt.name, d.source.index)


# ------------------------------------------------------------------------ computation


def _common(a: Statement, b: Statement) -> int:
    m = 0
    for la, lb in zip(a.loops, b.loops):
        if la.node is not lb.node:
            break
        m += 1
    return m


def _level_relation(a: Statement, b: Statement, m: int, k: int) -> isl.Map | None:
    """Instance pairs of ``a`` then ``b`` separated first at common loop ``k`` (0: same iteration)."""
    rel = isl.Map.from_domain_and_range(
        isl.Set.universe(a.domain.get_space()), isl.Set.universe(b.domain.get_space())
    )
    if k == 0:
        if a is b or a.positions[m] >= b.positions[m]:
            return None
        for p in range(m):
            rel = rel.equate(_DT.in_, p, _DT.out, p)
        return rel
    for p in range(k - 1):
        rel = rel.equate(_DT.in_, p, _DT.out, p)
    if a.loops[k - 1].decreasing:
        return rel.order_gt(_DT.in_, k - 1, _DT.out, k - 1)
    return rel.order_lt(_DT.in_, k - 1, _DT.out, k - 1)


def _exec_order(s: Statement) -> isl.Map | None:
    """``S[x] -> S[±x]``: lexicographic order of the image is execution order (None: identity)."""
    if not any(lp.decreasing for lp in s.loops):
        return None
    space = s.domain.get_space()
    ls = isl.LocalSpace.from_space(isl.Space.set_alloc(space.get_ctx(), 0, len(s.loops)).set_tuple_name(
        _DT.set, s.name))
    lst = isl.AffList.alloc(space.get_ctx(), len(s.loops))
    for k, lp in enumerate(s.loops):
        a = isl.Aff.var_on_domain(ls, _DT.set, k)
        lst = lst.add(a.neg() if lp.decreasing else a)
    mspace = isl.Space.map_from_domain_and_range(ls.get_space(), ls.get_space())
    return isl.Map.from_multi_aff(isl.MultiAff.from_aff_list(mspace, lst))


def _nearest(rel: isl.Map, target: Statement, last: bool = False) -> isl.Map:
    """For each domain instance, its first image instance in execution order (``last``: the last)."""
    order = _exec_order(target)
    if order is None:
        return rel.lexmax() if last else rel.lexmin()
    rel = rel.apply_range(order)
    return (rel.lexmax() if last else rel.lexmin()).apply_range(order.reverse())


def _tag(acc: Access) -> str:
    return f"{acc.stmt}__{acc.index}"


def value_flows(scop: Scop, array: str, reads: list[Access], writes: list[Access]) -> dict[tuple[str, str], isl.Map]:
    """Value-based flow relations per (write tag, read tag), by isl's ``compute_flow``."""
    stmts = {s.name: s for s in scop.statements}
    sink = must = may = sched = None

    def add(u, m):
        m = isl.UnionMap.from_map(m)
        return m if u is None else u.union(m)

    for acc in reads + writes:
        sched = add(sched, stmts[acc.stmt].schedule.set_tuple_name(_DT.in_, _tag(acc)))
    for r in reads:
        sink = add(sink, r.relation.set_tuple_name(_DT.in_, _tag(r)))
    for w in writes:
        m = w.relation.set_tuple_name(_DT.in_, _tag(w))
        if w.may:
            may = add(may, m)
        else:
            must = add(must, m)
    info = isl.UnionAccessInfo.from_sink(sink)
    if must is not None:
        info = info.set_must_source(must)
    if may is not None:
        info = info.set_may_source(may)
    flow = info.set_schedule_map(sched).compute_flow()
    out: dict[tuple[str, str], isl.Map] = {}
    maps: list[isl.Map] = []
    flow.get_may_dependence().foreach_map(maps.append)
    for m in maps:
        out[(m.get_tuple_name(_DT.in_), m.get_tuple_name(_DT.out))] = m
    return out


def _distance(rel: isl.Map, m: int) -> isl.Set:
    na, nb = rel.dim(_DT.in_), rel.dim(_DT.out)
    r = rel.project_out(_DT.in_, m, na - m).project_out(_DT.out, m, nb - m)
    r = r.reset_tuple_id(_DT.in_).reset_tuple_id(_DT.out)
    return r.deltas().coalesce()


def _direction(dist: isl.Set) -> tuple[str, ...]:
    out = []
    space = dist.get_space()
    ls = isl.LocalSpace.from_space(space)
    for k in range(dist.dim(_DT.set)):
        x = isl.PwAff.from_aff(isl.Aff.var_on_domain(ls, _DT.set, k))
        zero = isl.PwAff.from_aff(isl.Aff.zero_on_domain(ls))
        pos = not dist.intersect(x.gt_set(zero)).is_empty()
        eq = not dist.intersect(x.eq_set(zero)).is_empty()
        neg = not dist.intersect(x.lt_set(zero)).is_empty()
        out.append({(True, False, False): "<", (False, True, False): "=", (False, False, True): ">",
                    (True, True, False): "<=", (False, True, True): ">=", (True, False, True): "!=",
                    }.get((pos, eq, neg), "*"))  # fmt: skip
    return tuple(out)


def _vector(dist: isl.Set) -> tuple[int, ...] | None:
    if dist.is_empty() or not dist.is_singleton():
        return None
    p = dist.sample_point()
    return tuple(p.get_coordinate_val(_DT.set, k).to_python() for k in range(dist.dim(_DT.set)))


def scop_dependences(scop: Scop, deadline: float = math.inf) -> list[Dependence]:
    """Every dependence of one SCoP (see the module docstring); past ``deadline`` (``time.monotonic``),
    the pairs left depend at every ordered level (:func:`_every_pair`, without looking at domains)."""
    by_array: dict[str, tuple[list[Access], list[Access]]] = {}
    stmts = {s.name: s for s in scop.statements}
    for s in scop.statements:
        for a in s.accesses:
            reads, writes = by_array.setdefault(a.array, ([], []))
            (writes if a.is_write else reads).append(a)
    out: list[Dependence] = []
    orders: dict[tuple[str, str, int], isl.Map | None] = {}
    boxes: dict[int, Box] = {}
    ranges: dict[int, isl.Set] = {}
    for array in sorted(by_array):
        reads, writes = by_array[array]
        if not writes:
            continue
        if not reads:
            flows = {}
        elif len(writes) == 1 and not writes[0].may:
            flows = None  # one certain writer: the last write is the nearest source (below)
        else:
            try:  # isl's dataflow can blow up on big unions: memory-based flow beyond the budget
                with operation_budget(FLOW_OPERATIONS):
                    flows = value_flows(scop, array, reads, writes)
            except isl.Error:  # out of operations, or a case compute_flow refuses (fuzz case
                flows = MEMORY_BASED  # traceback_compute_flow): every pair counts, which is sound
        pairs = [("flow", w, r) for w in writes for r in reads]
        pairs += [("anti", r, w) for r in reads for w in writes]
        pairs += [("output", w1, w2) for w1 in writes for w2 in writes]
        for kind, src, dst in pairs:
            a, b = stmts[src.stmt], stmts[dst.stmt]
            if time.monotonic() > deadline:
                out += _every_pair(scop, kind, src, dst, a, b, domains=False)
                continue
            if _apart(_box_of(src, boxes), _box_of(dst, boxes)) or _disjoint(src, dst, ranges):
                continue
            try:  # isl can take minutes on the pairs of generated tiled code: every pair beyond the budget
                with operation_budget(PAIR_OPERATIONS):
                    out += _pair_dependences(scop, kind, src, dst, a, b, orders, flows)
            except isl.Error as err:
                if not out_of_operations(err):
                    raise
                out += _every_pair(scop, kind, src, dst, a, b)
    return out


#: isl operations the dependences of one pair of references may take (the 17 pairs of one
#: fuzzed stencil's isl-tiled wavefront took 25 s, seed 17 of passman.fuzz.stencils); past
#: them the pair depends at every level where the order allows it (:func:`_every_pair`)
PAIR_OPERATIONS = 1_000_000


#: seconds the dependences of one function may take in all (a fuzzed init nest's isl-tiled code:
#: 46 s, seed 1001152 of the api mode); past them the pairs left take :func:`_every_pair`
FUNCTION_SECONDS = 5.0


def _every_pair(scop: Scop, kind: str, src: Access, dst: Access, a: Statement, b: Statement,
                domains: bool = True) -> list[Dependence]:  # fmt: skip
    """The sound answer for a pair whose exact dependences cost too much: at every common level
    (and the same iteration), every pair of instances the execution order puts first ``a`` then
    ``b`` depends, with no known distance (``domains=False``: not even restricted to the
    statements' domains, when there is no time left for isl)."""
    m = _common(a, b)
    out = []
    for k in range(m + 1):
        lvl = _level_relation(a, b, m, k)
        if lvl is None:
            continue
        part = lvl.intersect_domain(a.domain).intersect_range(b.domain) if domains else lvl
        if domains and part.is_empty():
            continue
        out.append(Dependence(kind, src, dst, a, b, k, part, part, _unknown_distance(part, m),
                              _level_direction(a, m, k), False,
                              None, a.loops[:m], scop.index))
    return out


def _unknown_distance(part: isl.Map, m: int) -> isl.Set:
    """Every distance over the ``m`` common loops (what is known of a pair given up on)."""
    space = part.get_space().domain()
    return isl.Set.universe(space).project_out(_DT.set, m, space.dim(_DT.set) - m).reset_tuple_id()


def _pair_dependences(scop: Scop, kind: str, src: Access, dst: Access, a: Statement, b: Statement,
                      orders: dict, flows) -> list[Dependence]:  # fmt: skip
    """The dependences of one pair of references, at each level (see the module docstring)."""
    out: list[Dependence] = []
    mem, coarse = _conflicts(src, dst)
    if mem.is_empty():
        return out
    m = _common(a, b)
    levels = []
    for k in range(m + 1):
        key = (a.name, b.name, k)
        if key not in orders:
            orders[key] = _level_relation(a, b, m, k)
        lvl = orders[key]
        if lvl is None:
            continue
        part = mem.intersect(lvl)
        if not part.is_empty():
            levels.append((k, part))
    if not levels:
        return out
    every = _all_pairs(levels)
    exact = not coarse and not hard(every)  # else the memory-based relation is the direct one
    if kind == "flow" and flows is MEMORY_BASED or not exact:  # every pair: sound, less precise
        direct = every
    elif kind == "flow" and flows is not None:
        direct = flows.get((_tag(src), _tag(dst)))
        if direct is not None:
            direct = direct.set_tuple_name(_DT.in_, a.name).set_tuple_name(_DT.out, b.name)
    elif kind == "flow":
        direct = _nearest(every.reverse(), a, last=True).reverse()
    else:
        direct = _nearest(every, b)
    for k, part in levels:
        dpart = direct.intersect(part) if direct is not None else isl.Map.empty(part.get_space())
        dist = _distance(dpart if not dpart.is_empty() else part, m)
        vec = _vector(dist) if exact else None
        if vec is not None:
            direction = tuple("<" if v > 0 else ">" if v < 0 else "=" for v in vec)
        else:
            direction = _direction(dist) if exact else _level_direction(a, m, k)
        out.append(Dependence(
            kind, src, dst, a, b, k, part, dpart, dist, direction, vec is not None, vec,
            a.loops[:m], scop.index,
        ))
    return out


#: pieces of the relation of instances that touch the same element (pieces of the source's
#: access relation times the sink's) beyond which each access is replaced by its simple hull:
#: strip-mined then tiled code gave 124 pieces per access, and intersecting the 15,378 pieces
#: of their product with one level took 57 s (fuzz case timeout_f8c910d4)
MAX_CONFLICT_PIECES = 1024


#: bounds of the elements an access may touch, per array dimension (None: unbounded that way)
Box = tuple[tuple[int | None, int | None], ...]


def _box_of(access: Access, boxes: dict[int, Box]) -> Box:
    if id(access) not in boxes:
        boxes[id(access)] = _element_box(access.relation)
    return boxes[id(access)]


def _element_box(relation: isl.Map) -> Box:
    """Constant bounds of the elements ``relation`` reaches, for any parameter values.

    Each dimension's range is projected alone, with the parameters and local
    variables dropped (a superset), and its bounds read from its simple hull,
    so they are sound; a dimension without a constant bound gets None on
    that side.
    """
    rng = relation.range()
    n = rng.dim(_DT.set)
    box: list[tuple[int | None, int | None]] = []
    try:
        rng = rng.project_out(_DT.param, 0, rng.dim(_DT.param))
        for k in range(n):
            one = rng.project_out(_DT.set, k + 1, n - k - 1).project_out(_DT.set, 0, k)
            box.append(_bounds(one.remove_divs().simple_hull()))
    except isl.Error:
        return tuple((None, None) for _ in range(n))
    return tuple(box)


def _bounds(interval: isl.BasicSet) -> tuple[int | None, int | None]:
    """``(lowest, highest)`` of a one-dimensional set without parameters (None: unbounded)."""
    lo: int | None = None
    hi: int | None = None
    for c in interval.get_constraints():
        a = c.get_coefficient_val(_DT.set, 0).to_python()
        b = c.get_constant_val().to_python()
        if a == 0:
            if b < 0 or (c.is_equality() and b != 0):
                return (1, 0)  # no element at all
            continue
        # a*x + b >= 0 (or = 0): a > 0 bounds x below by ceil(-b/a), a < 0 above by floor(b/-a)
        if c.is_equality():
            if b % a:
                return (1, 0)
            low = high = -b // a
        else:
            low, high = (-(b // a), None) if a > 0 else (None, b // -a)
        if low is not None:
            lo = low if lo is None else max(lo, low)
        if high is not None:
            hi = high if hi is None else min(hi, high)
    return (lo, hi)


def _disjoint(src: Access, dst: Access, ranges: dict[int, isl.Set]) -> bool:
    """Whether the two accesses surely touch no common element (their ranges do not meet)."""
    try:  # under the pair's budget (a fuzzed init nest's isl-tiled ranges took minutes to meet,
        # seed 1001152): past it, or on any isl error, not known disjoint (the pair is analysed)
        with operation_budget(PAIR_OPERATIONS):
            for a in (src, dst):
                if id(a) not in ranges:
                    ranges[id(a)] = a.relation.range().coalesce()
            return ranges[id(src)].intersect(ranges[id(dst)]).is_empty()
    except isl.Error:
        return False


def _apart(x: Box, y: Box) -> bool:
    """Whether two boxes of one array surely share no element."""
    if len(x) != len(y):
        return False
    for (lo1, hi1), (lo2, hi2) in zip(x, y):
        if (lo1 is not None and hi1 is not None and lo1 > hi1) or (lo2 is not None and hi2 is not None
                                                                    and lo2 > hi2):
            return True
        if (hi1 is not None and lo2 is not None and hi1 < lo2) or (hi2 is not None and lo1 is not None
                                                                   and hi2 < lo1):
            return True
    return False


def _conflicts(src: Access, dst: Access) -> tuple[isl.Map, bool]:
    """``(instance pairs of src and dst that touch the same element, whether over-approximated)``."""
    a, b = src.relation, dst.relation
    if a.n_basic_map() * b.n_basic_map() <= MAX_CONFLICT_PIECES:
        return a.apply_range(b.reverse()), False
    a = isl.Map.from_basic_map(a.remove_divs().simple_hull())  # dropping constraints: a superset
    b = isl.Map.from_basic_map(b.remove_divs().simple_hull())
    return a.apply_range(b.reverse()), True


def _level_direction(a: Statement, m: int, k: int) -> tuple[str, ...]:
    """What level ``k`` alone says of the direction over the ``m`` common loops."""
    if k == 0:
        return ("=",) * m
    return ("=",) * (k - 1) + (">" if a.loops[k - 1].decreasing else "<",) + ("*",) * (m - k)


def _all_pairs(levels: list[tuple[int, isl.Map]]) -> isl.Map:
    """The instance pairs of every level, as one relation."""
    out = levels[0][1]
    for _, part in levels[1:]:
        out = out.union(part)
    return out


def _graph(deps: list[Dependence], scops: Scops) -> nx.MultiDiGraph:
    g = nx.MultiDiGraph()
    for part in scops:
        for s in part.statements:
            g.add_node(s.name, node=s.node, scop=part.index)
    for d in deps:
        g.add_edge(d.source_stmt.name, d.sink_stmt.name, kind=d.kind, level=d.level, dep=d)
    return g


def _display(module: Module, value: Dependences) -> dict:
    out: dict[c_ast.Node, list[str]] = {}
    for d in value.all:
        if d.is_direct:
            out.setdefault(d.source_stmt.node, []).append(f"dependence {d}")
    return out


@analysis(scope="module", provides="dependences", requires=["scops"], display=_display)
def dependences(module: Module) -> Dependences:
    """Flow, anti and output dependences of every SCoP of a function, per loop level.

    Before: ``for (i = 1; i < n; i++) a[i] = a[i - 1] + 1;``
    After:  ``// dependence flow S0:a[i] -> S0:a[i - 1] level 1 distance (1)``
    """
    scops: Scops = module.resource("scops")
    deps: list[Dependence] = []
    with function_budget(module, FUNCTION_SECONDS) as seconds:
        deadline = time.monotonic() + seconds
        for part in scops:
            deps.extend(scop_dependences(part, deadline))
    return Dependences(module.name, scops, tuple(deps))

