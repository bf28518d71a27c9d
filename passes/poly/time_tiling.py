"""Time tiling of stencils: diamond (concurrent start) or skewed tiles, barrier fronts or tasks.

``time_tile`` retiles a static control part whose statements all sit in
one time loop (Jacobi, heat, FDTD, Gauss-Seidel sweeps). Its tiles come
from tiling hyperplanes (:mod:`.hyperplanes`, Pluto's legality, Farkas by
isl):

* ``shape="diamond"``: ``a*t + x1`` and ``a*t - x1`` (their sum is time:
  the tiles of a time band start concurrently, Bandishti et al. SC'12;
  Freitag 2014, §2.2), then ``a*t + xk`` for the other space dimensions;
* ``shape="skewed"``: time, then ``a*t + b.x + xk`` (the pipelined start of
  Pluto without concurrent start, also what Gauss-Seidel allows);
* ``shape="auto"``: diamond, else skewed;
* ``shape="split"`` / ``"hybrid"``: SDSL's split tiles (upright then
  inverted tiles per time band, every space dimension split) and hybrid
  split tiles (parallelograms in the outermost space dimension, the others
  split), as barrier phases (``static``: upright tiles, then inverted ones)
  or tasks on their tile dependence graph (``tasks``): :mod:`.split_tiling`.

Tiles are boxes of the transformed space of sizes ``tile_sizes`` (or the
model's, :mod:`.tile_model`); inside a tile the points run in the original
order. Tiles run by wavefronts ``w = z0 + z1``, the second tile coordinate
parallel inside a front (``schedule="static"``: ``#pragma omp parallel
for``, a barrier per front), or as one OpenMP task per tile with
``depend`` clauses on the directions of its tile dependence graph after
exact redundant-edge elimination (``schedule="tasks"``, :mod:`.tile_graph`,
Freitag 2014 ch. 3: no barrier, a tile starts when the tiles it reads
from are done). Before::

    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
        for (i = 1; i < n - 1; i++)
            a[i] = 0.33333 * (b[i - 1] + b[i] + b[i + 1]);
    }

After (``time_tile(shape="diamond", schedule="tasks")``, shape)::

    {
        char passman_tiles[65536];
        #pragma omp parallel
        #pragma omp single
        {
            for (int c0 = ...; ...; c0++)          // wavefront z0 + z1
                for (int c1 = ...; ...; c1++)      // z0 (2t + i) / 64
                    #pragma omp task depend(in: passman_tiles[...c1 - 1...], passman_tiles[...])
                                     depend(out: passman_tiles[...])
                    {
                        for (int c2 = ...; ...; c2++) {     // t, within the tile
                            for (int c3 = ...; ...; c3++)   // i
                                b[c3] = ...;
                            for (int c3 = ...; ...; c3++)
                                a[c3] = ...;
                        }
                    }
        }
    }

Legality: every hyperplane row is checked on every memory-based
dependence (:func:`.hyperplanes.violated`), the whole schedule by
:func:`.schedule.check_schedule` (order, parallel marks); with tasks, the
directions of the real tile edges are computed with isl from the
value-based dependences and must be non-negative and finite, and every
edge dropped is implied by a path of kept ones between existing tiles.
Anything else is refused with ``PassFailed`` and the function is unchanged.

Properties:

- shape: "auto" (default), "diamond", "skewed", "split" or "hybrid"
- schedule: "tasks" (default) or "static" (for split tiles: the upright, then the inverted ones)
- tile_sizes: sizes per hyperplane row, "64,64,128" ("" default: the model's); split and
  hybrid: "s^T,[s^P,]U,I,..." (time steps per band, parallelogram width, upright and
  inverted widths per split dimension)
- label: the time loop (the part containing it; "" default: the first part that is a time loop)
- cache_size: bytes of the per-core cache a tile should fit in (0 default: this machine's L2)
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Literal, get_args

import islpy as isl
from pycparser import c_ast

from passman import Module, PassFailed, transformation
from passman.deadline import Clock

from ..cfacts.names import names_in_scope, where
from .affine import constant_extent, ctx, instance_map
from .codegen import generate, identity_schedule, replace_part, schedule_nodes
from .dependences import Dependence, Dependences
from .footprint import array_extents, fix_parameters, known_parameters
from .hyperplanes import Row, RowShape, find_row, violated
from .schedule_check import check_schedule, parse_sizes, validity
from .scop import Scop
from .split_tiling import split_tile_nodes
from .tile_band import SIMD, carries
from .tile_graph import (
    TASK_ARRAY,
    TASK_BITS,
    depend_clause,
    direct_tile_deltas,
    reduce_deltas,
)
from .tile_model import Caches, choose_sizes, machine_caches
from .time_tiling_choice import time_loop_problem

#: type of ``time_tile``'s property ``shape`` (any other value is refused when set)
Shape = Literal["auto", "diamond", "skewed", "split", "hybrid", "balanced"]
#: type of ``time_tile``'s property ``schedule``
TileSchedule = Literal["tasks", "static"]
SHAPES = get_args(Shape)
SCHEDULES = get_args(TileSchedule)

#: seconds the pass gives isl's code generation before it retries with equal tile sizes
CODEGEN_SECONDS = 8.0


# ------------------------------------------------------------------------ the part


def _shapes(depth: int, shape: str) -> list[RowShape]:
    """The row shapes of a tiling of ``depth`` space dimensions."""
    unit = [tuple(1 if j == k else 0 for j in range(depth)) for k in range(depth)]
    if shape == "diamond":
        minus = tuple(-c for c in unit[0])
        return [RowShape(unit[0]), RowShape(minus)] + [RowShape(u) for u in unit[1:]]
    skew = [RowShape(tuple([None] * k + [1] + [0] * (depth - k - 1))) for k in range(depth)]
    return [RowShape((0,) * depth, min_time=1)] + skew


def tiling_rows(part: Scop, deps: Sequence[Dependence], shape: str) -> tuple[str, list[Row]]:
    """The shape used and its legal hyperplane rows, or PassFailed naming the dependence in the way."""
    if shape == "balanced":  # Di 2013's Algorithm 4.1: its own integer program
        from .balanced_hyperplanes import di_hyperplanes

        return shape, di_hyperplanes(part, deps)
    rels = [d.relation for d in deps if not d.relation.is_empty()]
    depth = max(s.depth for s in part.statements) - 1
    tried = ["diamond", "skewed"] if shape == "auto" else [shape]
    failure = ""
    for kind in tried:
        rows: list[Row] = []
        for k, rs in enumerate(_shapes(depth, kind)):
            row = find_row(part, rels, rs, tag=f"h{k}")
            if row is None:
                failure = _no_row(part, deps, rs, kind)
                break
            if violated(rels, row) is not None:  # pragma: no cover - Farkas is exact
                failure = f"{part.where}: {kind} row {k} is not legal"
                break
            rows.append(row)
        else:
            return kind, rows
    raise PassFailed(failure)


def _no_row(part: Scop, deps: Sequence[Dependence], rs: RowShape, kind: str) -> str:
    """Why no hyperplane of shape ``rs`` exists: the dependence a form of that shape cannot respect."""
    time = part.statements[0].loops[0]
    deep = max(s.depth for s in part.statements)
    for d in deps:
        if d.vector is None or d.source_stmt.depth != deep or d.sink_stmt.depth != deep:
            continue
        v = d.vector
        if len(v) != len(rs.spatial) + 1 or v[0] != 0:
            continue
        spatial = sum(c * x for c, x in zip(rs.spatial, v[1:]) if c is not None)
        if spatial < 0:
            return (f"{where(d.sink_stmt.node)}: no {kind} tiling of loop {time.var}: {d.kind} dependence "
                    f"{d.why()} within one time step goes against a face of the tile")  # fmt: skip
    return f"{part.where}: no {kind} tiling of loop {time.var}: no legal hyperplane {rs.spatial}"


# ------------------------------------------------------------------------ the schedule


def _floor_row(row: Row, stmt, size: int) -> isl.Aff:
    return row.aff(stmt).scale_down_val(isl.Val.int_from_si(ctx(), size)).floor()


def tile_map(part: Scop, rows: Sequence[Row], sizes: Sequence[int]) -> isl.UnionMap:
    """Instance -> tile coordinates ``[z0, ..., zd]`` (``floor(row / size)``)."""
    out = isl.UnionMap.empty(isl.Space.params_alloc(ctx(), 0))
    for s in part.statements:
        z = [_floor_row(row, s, size) for row, size in zip(rows, sizes)]
        out = out.union(isl.UnionMap.from_map(instance_map(z, s.domain)))
    return out


def _band(part: Scop, rows: Sequence[Row], sizes: Sequence[int]) -> isl.MultiUnionPwAff:
    """The tile band: ``z0 + z1`` (the wavefront), ``z0``, then ``z2`` ... (per statement)."""
    out = isl.UnionMap.empty(isl.Space.params_alloc(ctx(), 0))
    for s in part.statements:
        z = [_floor_row(row, s, size) for row, size in zip(rows, sizes)]
        members = [z[0].add(z[1]), z[0]] + z[2:]
        out = out.union(isl.UnionMap.from_map(instance_map(members, s.domain)))
    return isl.MultiUnionPwAff.from_union_map(out)


def _simd_marks(sched: isl.Schedule, validity: isl.UnionMap) -> isl.Schedule:
    """``omp simd`` on every innermost loop that carries no dependence (a canonical, vectorizable loop)."""

    def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if (node.get_type() == isl.schedule_node_type.band and node.get_tree_depth() > 1
                and len(schedule_nodes(node, isl.schedule_node_type.band)) == 1
                and carries(node, 0, validity).is_empty()):  # fmt: skip
            return node.insert_mark(isl.Id(SIMD, context=ctx())).child(0)
        return node

    return sched.map_schedule_node_bottom_up(visit)


def tiled_schedule(part: Scop, rows: Sequence[Row], sizes: Sequence[int], schedule: str,
                   pragma: str, deltas: Sequence[tuple[int, ...]] = (),
                   validity: isl.UnionMap | None = None) -> isl.Schedule:  # fmt: skip
    """The schedule tree: tile band (wavefront first), marks, the original order inside a tile."""
    inner = identity_schedule(part)
    if validity is not None:
        inner = _simd_marks(inner, validity)
    sched = inner.insert_partial_schedule(_band(part, rows, sizes))
    band = sched.get_root().child(0)
    band = band.band_set_permutable(0)
    if schedule == "static":
        band = band.band_split(1).child(0)
        return band.insert_mark(isl.Id(pragma, context=ctx())).get_schedule()
    # tile coordinates from the band's iterators: w = $0, z0 = $1, z1 = w - z0, z2 = $2 ...
    coords = ["$1", "$0 - $1"] + [f"${k}" for k in range(2, len(rows))]
    text = "omp " + depend_clause(coords, deltas)
    return band.child(0).insert_mark(isl.Id(text, context=ctx())).get_schedule()


def task_deltas(part: Scop, deps: Sequence[Dependence], tiles: isl.UnionMap) -> list[tuple[int, ...]]:
    """The ``depend`` directions of the tasks: real tile edges, redundant ones dropped (PassFailed if unbounded)."""
    deltas = direct_tile_deltas(deps, tiles)
    if deltas is None:
        raise PassFailed(f"{part.where}: the tiles' dependences have no finite set of directions")
    if any(c < 0 for v in deltas for c in v):
        raise PassFailed(f"{part.where}: a tile dependence goes backwards: {deltas}")
    space = tiles.range()
    sets: list[isl.Set] = []
    space.foreach_set(sets.append)
    return reduce_deltas(sets[0], deltas) if len(sets) == 1 else deltas


def _wrap_tasks(module: Module, part: Scop, nodes: list[c_ast.Node]) -> list[c_ast.Node]:
    """``{ char passman_tiles[...]; #pragma omp parallel / single { nodes } }``."""
    if any(isinstance(n, c_ast.Decl) for n in nodes):
        raise PassFailed(f"{part.where}: the part declares variables used after it: no task region")
    coord = part.nodes[0].coord
    taken = names_in_scope(module.ast, module.cu.ast.ext)
    if TASK_ARRAY in taken:
        raise PassFailed(f"{part.where}: the name {TASK_ARRAY} is taken")
    size = c_ast.Constant("int", str(1 << TASK_BITS))
    decl = c_ast.Decl(TASK_ARRAY, [], [], [], [], c_ast.ArrayDecl(
        c_ast.TypeDecl(TASK_ARRAY, [], None, c_ast.IdentifierType(["char"])), size, []),
        None, None, coord)  # fmt: skip
    return [c_ast.Compound([decl, c_ast.Pragma("omp parallel", coord), c_ast.Pragma("omp single", coord),
                            c_ast.Compound(nodes, coord)], coord)]  # fmt: skip


def _extents(module: Module, part: Scop, rows: Sequence[Row]) -> list[float | None]:
    """The number of values each row takes over the part, where the parameters are known."""
    values = known_parameters(module, part)
    deep = max(part.statements, key=lambda s: s.depth)
    dom = fix_parameters(deep.domain, values)
    out: list[float | None] = []
    for row in rows:
        image = dom.apply(isl.Map.from_aff(row.aff(deep).align_params(dom.get_space())))
        out.append(constant_extent(image, 0))
    return out


def _model_sizes(
    module: Module, part: Scop, kind: str, rows: Sequence[Row], cache_size: int,
    deps: Sequence[Dependence],
) -> tuple[int, ...]:
    """The tile model's sizes of ``rows`` (:func:`.tile_model.choose_sizes`; diamond faces tied)."""
    caches = machine_caches()
    if cache_size > 0:
        caches = Caches(caches.l1, cache_size, caches.l3)
    tied = ((0, 1),) if kind == "diamond" else ()
    across = _extents(module, part, rows)
    limits = array_extents(part, known_parameters(module, part))
    return choose_sizes(part, rows, caches=caches, tiles_across=across, tied=tied,
                        chained=inner_chain(deps), limits=limits).sizes  # fmt: skip


def inner_chain(deps: Sequence[Dependence]) -> bool:
    """Whether a dependence is carried by the innermost loop of a time step (Gauss-Seidel's ``j``)."""
    return any(d.level >= 2 and d.level == len(d.loops) and d.loops[-1].node is d.sink_stmt.loops[-1].node
               for d in deps if not d.relation.is_empty())  # fmt: skip


def model_tile_sizes(
    module: Module, shape: str = "auto", label: str = "", cache_size: int = 0
) -> tuple[str, tuple[int, ...]]:
    """The shape and the tile sizes ``time_tile(shape=shape)`` would use with no ``tile_sizes``; changes nothing.

    For diamond, skewed and balanced rows (split and hybrid tiles have
    their own model, :func:`.split_tiling.default_sizes`). What
    ``benchmarks/bench_tile_model.py`` compares against sampled sizes.
    """
    check_options(module, shape, "tasks")
    if shape in ("split", "hybrid"):
        raise PassFailed(f"{module.name}: model_tile_sizes is for diamond, skewed and balanced rows, "
                         f"not {shape}")  # fmt: skip
    deps: Dependences = module.resource("dependences")
    part = time_loop_part(module, label, deps)
    part_deps = [d for d in deps.of_scop(part) if not d.relation.is_empty()]
    kind, rows = tiling_rows(part, part_deps, shape)
    return kind, _model_sizes(module, part, kind, rows, cache_size, part_deps)


# ------------------------------------------------------------------------ the pass


def check_options(module: Module, shape: str, schedule: str) -> None:
    """Refuse a shape or a schedule ``time_tile`` does not know."""
    if shape not in SHAPES:
        raise PassFailed(f"{module.name}: shape {shape!r} is not one of {', '.join(SHAPES)}")
    if schedule not in SCHEDULES:
        raise PassFailed(f"{module.name}: schedule {schedule!r} is not one of {', '.join(SCHEDULES)}")


def time_loop_part(module: Module, label: str, deps: Dependences) -> Scop:
    """The static control part with a time loop to tile (the one holding loop ``label`` when given),
    or PassFailed saying why none is."""
    parts = list(module.resource("scops"))
    if label:
        parts = [p for p in parts if p.loop(label) is not None]
        if not parts:
            raise PassFailed(f"{module.name}: loop {label} is in no static control part")
        why = time_loop_problem(parts[0], deps.of_scop(parts[0]))
        if why is not None:
            raise PassFailed(why)
        return parts[0]
    reasons = []
    for p in parts:
        why = time_loop_problem(p, deps.of_scop(p))
        if why is None:
            return p
        reasons.append(why)
    raise PassFailed(f"{module.name}: no time loop to tile" + (": " + "; ".join(reasons) if reasons else ""))


@transformation(scope="module", requires=["dependences"], preserves=["callgraph"], reads=["function_scope", "poly_facts", "scops", "unit_scope"])
def time_tile(
    module: Module,
    shape: Shape = "auto",
    schedule: TileSchedule = "tasks",
    tile_sizes: str = "",
    label: str = "",
    cache_size: int = 0,
) -> None:
    """Tile a time-iterated stencil with diamond, skewed or split time tiles, as tasks or barrier fronts.

    See the module docstring of :mod:`passman.passes.poly.time_tiling` for
    the shapes, schedules, legality checks and a before/after example.

    Properties:

    - shape: "auto" (default: diamond, else skewed), "diamond", "skewed", "split" (split tiles
      in every space dimension) or "hybrid" (parallelograms in the outermost space dimension,
      split tiles in the others; two space dimensions or more): :mod:`.split_tiling`, or
      "balanced" (Di 2013's hyperplanes: balanced intra-tile wavefronts, :mod:`.balanced_hyperplanes`)
    - schedule: "tasks" (default: one OpenMP task per tile with depend clauses) or "static"
      (wavefronts of tiles, ``omp parallel for`` and a barrier per front; split and hybrid
      tiles: per band, the upright tiles in parallel, a barrier, the inverted ones)
    - tile_sizes: sizes per hyperplane row, "64,64,128", the last repeated ("" default: the model's);
      split: "s^T,U,I" (time steps per band, upright and inverted widths, a pair per space
      dimension, the last pair repeated), hybrid: "s^T,s^P,U,I" (s^P: parallelogram width);
      U >= 2*sigma*(H-1) is required (H = s^T * statements per time step)
    - label: the time loop to tile ("" default: the first part that is a time loop)
    - cache_size: bytes of the per-core cache a tile should fit in (0 default: this machine's L2)
    """
    check_options(module, shape, schedule)
    deps: Dependences = module.resource("dependences")
    part = time_loop_part(module, label, deps)
    tile_part(module, part, deps.of_scop(part), shape, schedule, tile_sizes, cache_size)


def tile_part(
    module: Module,
    part: Scop,
    deps: Sequence[Dependence],
    shape: str = "auto",
    schedule: str = "tasks",
    tile_sizes: str = "",
    cache_size: int = 0,
    pragma: str = "omp parallel for",
) -> str:
    """Time-tile one part (a time loop: :func:`time_loop_problem`); the shape used.

    The work of :func:`time_tile` once the part is chosen, also what
    ``auto_schedule`` calls on the parts its model gives time tiles.
    ``pragma`` marks the parallel tile loop of the static schedule
    (``"passman parallel"``: for ``ompify_code``). Every refusal
    (``PassFailed``) comes before the part's code is replaced: the function
    is then unchanged.
    """
    check_options(module, shape, schedule)
    if shape in ("split", "hybrid"):
        nodes = split_tile_nodes(module, part, deps, shape, schedule, tile_sizes, cache_size, pragma)
        replace_part(module, part, _wrap_tasks(module, part, nodes) if schedule == "tasks" else nodes)
        return shape
    part_deps = [d for d in deps if not d.relation.is_empty()]
    kind, rows = tiling_rows(part, part_deps, shape)
    rel = validity(part_deps)
    given = parse_sizes(tile_sizes)
    if given:
        sizes = list((list(given) + [given[-1]] * len(rows))[: len(rows)])
    else:
        sizes = list(_model_sizes(module, part, kind, rows, cache_size, part_deps))
    deltas: list[tuple[int, ...]] = []
    if schedule == "tasks":
        deltas = task_deltas(part, part_deps, tile_map(part, rows, sizes))
    tree = tiled_schedule(part, rows, sizes, schedule, pragma, deltas, rel)
    check_schedule(part, part_deps, tree)
    try:
        nodes = generate(module, part, tree, clock=Clock(CODEGEN_SECONDS), deps=part_deps)
    except PassFailed as err:
        if len(set(sizes)) == 1 or "did not finish" not in str(err):
            raise
        # unequal sizes can make isl's code generation take minutes: equal ones, with a warning
        size = max(sizes)
        warnings.warn(f"{part.where}: isl's code generation for tile sizes {sizes} took too long; "
                      f"using {size} for every row", stacklevel=2)  # fmt: skip
        sizes = [size] * len(rows)
        if schedule == "tasks":
            deltas = task_deltas(part, part_deps, tile_map(part, rows, sizes))
        tree = tiled_schedule(part, rows, sizes, schedule, pragma, deltas, rel)
        check_schedule(part, part_deps, tree)
        nodes = generate(module, part, tree, clock=Clock(CODEGEN_SECONDS), deps=part_deps)
    if schedule == "tasks":
        nodes = _wrap_tasks(module, part, nodes)
    replace_part(module, part, nodes)
    return kind
