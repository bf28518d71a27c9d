"""Pochoir's trapezoidal decomposition of a time-iterated stencil (``trapezoid_tile``).

Pochoir (Tang et al., SPAA 2011; Freitag 2014 §2.1) runs a stencil by a
cache-oblivious recursive walk over hypertrapezoids of (time, space):
hyperspace cuts (every dimension whose shorter base is at least
``2*sigma*dt`` trisected, the pieces in dependence levels, the pieces of a
level in parallel), timecuts, and a base case below size thresholds. The
walk's C shape is :mod:`.trapezoid_walk`; its tile dependence graph model
is :mod:`.trapezoid_graph`.

Several statements per time step (jacobi-1d's ``b = f(a)`` then ``a =
f(b)``, FDTD's four sweeps) are *sub-steps* of a pseudo time ``tp = K*t +
k`` (``K`` statement positions in the time loop, ``k`` the statement's);
the space coordinates are the statement's space iterators (a statement in
fewer loops, FDTD's ``Ey[0][j] = f[t]``, gets a constant for the missing
outer ones). The slope ``sigma[i]`` of dimension ``i`` is the least
integer with ``|dx_i| <= sigma[i] * dtp`` on every dependence. Before::

    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
        for (i = 1; i < n - 1; i++)
            a[i] = 0.33333 * (b[i - 1] + b[i] + b[i + 1]);
    }

After (``trapezoid_tile()``; shape)::

    static void kernel_jacobi_1d_trapezoid_base(int tsteps, int n, double a[n], double b[n],
        long trap_t0, long trap_t1, const long *trap_x0, const long *trap_x1, const long *trap_s0,
        const long *trap_s1)
    {
        for (long trap_tp = trap_t0; trap_tp < trap_t1; trap_tp++) {
            long trap_lo0 = trap_x0[0] + trap_s0[0] * (trap_tp - trap_t0);
            long trap_hi0 = trap_x1[0] + trap_s1[0] * (trap_tp - trap_t0);
            if (trap_tp >= 1 && 2 * tsteps >= trap_tp + 1 && (trap_tp + 1) % 2 == 0)
                for (int c1 = 1 > trap_lo0 ? 1 : trap_lo0; c1 < (trap_hi0 < n - 1 ? trap_hi0 : n - 1); c1++)
                    a[c1] = 0.33333 * (b[c1 - 1] + b[c1] + b[c1 + 1]);
            else if (...)
                ... b[c1] = ...;
        }
    }

    static void kernel_jacobi_1d_trapezoid(int tsteps, int n, double a[n], double b[n], long trap_t0,
        long trap_t1, const long *trap_x0, const long *trap_x1, const long *trap_s0,
        const long *trap_s1, const long *trap_box)
    {
        ... hyperspace cut: for each level, each piece of the level:
                #pragma omp task firstprivate(trap_px0, trap_px1, trap_ps0, trap_ps1)
                kernel_jacobi_1d_trapezoid(tsteps, n, a, b, trap_t0, trap_t1, trap_px0, ...);
            #pragma omp taskwait
        ... else timecut: the lower half, then the upper one
        ... else kernel_jacobi_1d_trapezoid_base(tsteps, n, a, b, trap_t0, trap_t1, trap_x0, ...);
    }

    void kernel_jacobi_1d(int tsteps, int n, double a[n], double b[n])
    {
        int t, i;
        if (tsteps >= 1 && n >= 3) {
            const long trap_box[4] = { 0, 2 * tsteps, 1, n - 1 };
            ... the start trapezoid: the box widened by sigma * height on each side, slopes +sigma, -sigma
            #pragma omp parallel
            #pragma omp single
            kernel_jacobi_1d_trapezoid(tsteps, n, a, b, trap_box[0], trap_box[1], trap_x0, ...);
        }
    }

Legality (never miscompile): every memory-based dependence (flow, anti,
output) between two instances is checked with isl in the coordinates
``(tp, x)``: it goes forward in pseudo time (``dtp >= 1``; or it joins two
statements at the same point, which one base case runs in the original
order) and stays in the cone ``|dx_i| <= sigma[i] * dtp`` -- Pochoir's
condition for every trapezoidal decomposition to respect it (a cut
separates its pieces by lines of slope ``sigma``; timecut pieces go forward
in time). Refused with ``PassFailed`` naming the dependence: one within a
sub-step that moves in space (in-place Gauss-Seidel), one whose slope
exceeds :data:`.stencil_geometry.SLOPE_MAX` or has none (non-uniform, non-affine accesses);
also no time loop, more than :data:`MAX_DIMS` space dimensions, a part
using a local array or a local scalar it writes (other than its loop
variables), loop variables used after the part, names taken, bad options.
A refusal changes nothing.

``execution="graph"``: the walk's tile dependence graph
(:mod:`.trapezoid_graph`, Freitag §3.3 (a) with checked inheritance) is
built here for the parameter values every call passes, from the direct
dependences (value-based flow, nearest anti and output) in ``(tp, x)``,
and emitted as tables; the kernel runs it as tasks released by in-degree
counters (Freitag §3.5, no barrier) when its parameters have those
values, and the fork-join walk otherwise (:func:`tile_table`).

Properties:

- base_steps: pseudo time steps below which a trapezoid is not cut in time (0 default:
  :data:`DEFAULT_STEPS` per statement position of a time step)
- base_width: per space dimension, outermost first, the longer base at or below which a
  trapezoid is not cut in that dimension, "16,256", the last repeated ("" default:
  :data:`DEFAULT_WIDTH` outer, :data:`DEFAULT_INNER_WIDTH` innermost); at least 2
- label: the time loop (the part containing it; "" default: the first part that is a time loop)
- execution: "fork_join" (default) or "graph" (the precomputed tile graph, constant sizes)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import islpy as isl
import networkx as nx
from pycparser import c_ast, c_parser

from passman import Module, PassFailed, transformation
from passman.astutil import copy_node, walk
from passman.printer import to_c

from ..cfacts.names import file_scope, names_in_scope, resolve_names, where
from .affine import ctx
from .codegen import generate, identity_schedule, replace_part
from .dependences import Dependence, Dependences
from .footprint import fix_parameters, known_parameters
from .isl_ast import AstConverter
from .scop import Scop
from .stencil_geometry import StencilGeometry, stencil_geometry
from .time_tiling import time_loop_part
from .trapezoid_graph import Stencil, TrapezoidGraph, Zoid
from .trapezoid_walk import (
    ARGS,
    BASE_CASE,
    PREFIX,
    TileTable,
    WalkShape,
    base_text,
    call_text,
    graph_text,
    walk_text,
)

#: type of ``trapezoid_tile``'s property ``execution``
Execution = Literal["fork_join", "graph"]
#: the most tiles ``execution="graph"`` tabulates
MAX_GRAPH_TILES = 20000
#: the most space dimensions (a hyperspace cut makes ``3**d`` pieces)
MAX_DIMS = 3
#: default time threshold, pseudo time steps per statement position of a time step
DEFAULT_STEPS = 8
#: default width thresholds: outer space dimensions, innermost one
DEFAULT_WIDTH = 32
DEFAULT_INNER_WIDTH = 512


# ------------------------------------------------------------------------ geometry and legality


def trapezoid_geometry(part: Scop, deps: Sequence[Dependence]) -> StencilGeometry:
    """Levels, coordinates and slopes of a time loop, or PassFailed naming a dependence no trapezoid respects."""
    dims = max(s.depth for s in part.statements) - 1
    if dims > MAX_DIMS:
        raise PassFailed(f"{part.where}: {dims} space dimensions: trapezoidal tiling handles at most {MAX_DIMS}")
    return stencil_geometry(part, deps, "trapezoidal tiling")


# ------------------------------------------------------------------------ options


def parse_widths(text: str, dims: int, where_: str) -> tuple[int, ...]:
    """``base_width`` per space dimension (the last repeated; defaults for "")."""
    if not text.strip():
        return tuple([DEFAULT_WIDTH] * (dims - 1) + [DEFAULT_INNER_WIDTH])
    try:
        given = [int(w) for w in text.split(",")]
    except ValueError:
        raise PassFailed(f"{where_}: base_width {text!r} is not a list of integers") from None
    if any(w < 2 for w in given):
        raise PassFailed(f"{where_}: base_width {text!r}: every width must be at least 2")
    return tuple((given + [given[-1]] * dims)[:dims])


# ------------------------------------------------------------------------ code


def _kernel_parameters(func: c_ast.FuncDef) -> list[c_ast.Decl]:
    """The function's parameters (none for ``(void)``); PassFailed for a parameter without a name."""
    plist = func.decl.type.args
    params = [] if plist is None else list(plist.params)
    if len(params) == 1 and isinstance(params[0], c_ast.Typename):
        return []
    for p in params:
        if not isinstance(p, c_ast.Decl) or not p.name:
            raise PassFailed(f"{where(func)}: a parameter of {func.decl.name} has no name")
    return params


def _check_captures(module: Module, part: Scop) -> None:
    """Refuse a part using a local of the function (not a parameter, not its loop variables)."""
    func = module.ast
    table = resolve_names(func, file_scope(module.cu.ast.ext))
    params = {id(p) for p in _kernel_parameters(func)}
    loop_vars = {lp.var for lp in part.loops}
    for top in part.nodes:
        for n in walk(top):
            if not isinstance(n, c_ast.ID):
                continue
            d = table.decl_of(n)
            if d is None or not table.is_local(d) or id(d) in params or n.name in loop_vars:
                continue
            raise PassFailed(f"{where(n)}: no trapezoidal tiling of {part.where}: it uses {n.name}, a local of "
                             f"{module.name} (only parameters and globals reach the recursive walk)")  # fmt: skip


def _fresh_name(module: Module, base: str) -> str:
    """``base``, or ``base_1``, ``base_2`` ...: the first name neither the function nor its file uses."""
    taken = names_in_scope(module.ast, module.cu.ast.ext)
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


def _base_case(module: Module, part: Scop, geometry: StencilGeometry) -> list[c_ast.Node]:
    """isl's code for the part's instances at pseudo time ``trap_tp`` inside ``trap_lo[i] <= x[i] < trap_hi[i]``."""
    dims = geometry.dims
    xs = [f"x{k}" for k in range(dims)]
    params = [f"{PREFIX}tp"] + [f"{PREFIX}lo{k}" for k in range(dims)] + [f"{PREFIX}hi{k}" for k in range(dims)]
    cons = " and ".join([f"tp = {PREFIX}tp"] + [f"{PREFIX}lo{k} <= x{k} < {PREFIX}hi{k}" for k in range(dims)])
    row = isl.Set(f"[{', '.join(params)}] -> {{ [tp, {', '.join(xs)}] : {cons} }}", context=ctx())
    domain = geometry.coordinates.intersect_range(isl.UnionSet.from_set(row)).domain()
    nodes = generate(module, part, identity_schedule(part).intersect_domain(domain))
    if any(isinstance(n, c_ast.Decl) for n in nodes):
        raise PassFailed(f"{part.where}: the part declares variables: no trapezoidal tiling")
    return nodes


def _box(part: Scop, geometry: StencilGeometry) -> tuple[str, list[str]]:
    """C texts: the condition under which the part has instances, and the bounds of their coordinates."""
    image = isl.Set.from_union_set(geometry.coordinates.range()).coalesce()
    build = isl.AstBuild.from_context(part.context)
    conv = AstConverter(part, set(), "long", part.nodes[0].coord)
    params = image.params()
    universe = isl.Set.universe(params.get_space())
    guard = "1" if universe.is_subset(params) else to_c(conv.expr(build.expr_from_set(params)))
    bounds = []
    for k in range(geometry.dims + 1):
        try:
            low, high = image.dim_min(k), image.dim_max(k)
        except isl.Error:
            raise PassFailed(f"{part.where}: no trapezoidal tiling: isl finds no bounds of the instances' "
                             f"coordinate {k}") from None  # fmt: skip
        bounds += [to_c(conv.expr(build.expr_from_pw_aff(low))), to_c(conv.expr(build.expr_from_pw_aff(high), shift=1))]
    return guard, bounds


def _set_coords(root: c_ast.Node, coord) -> None:
    for n in walk(root):
        n.coord = coord


def _splice_args(root: c_ast.Node, args: list[c_ast.Node]) -> None:
    """Replace the argument ``trap_args`` of every call by the kernel's parameters."""
    for n in walk(root):
        if isinstance(n, c_ast.FuncCall) and n.args is not None:
            exprs = []
            for e in n.args.exprs:
                exprs += [copy_node(a) for a in args] if isinstance(e, c_ast.ID) and e.name == ARGS else [e]
            n.args.exprs = exprs


def _new_definitions(func: c_ast.FuncDef, shape: WalkShape, base: list[c_ast.Node],
                     table: TileTable | None) -> list[c_ast.Node]:  # fmt: skip
    """The base case, the walk and (with ``table``) the tile tables and the tile task, at file scope."""
    text = base_text(shape) + walk_text(shape) + (graph_text(shape, table) if table else "")
    ext = c_parser.CParser().parse(text, "<trapezoid>").ext
    params = _kernel_parameters(func)
    for node in ext:
        if not isinstance(node, c_ast.FuncDef):
            continue
        plist = node.decl.type.args
        plist.params = [copy_node(p) for p in params] + plist.params[1:]
        _splice_args(node.body, [c_ast.ID(p.name) for p in params])
        for n in walk(node.body):
            items = getattr(n, "block_items", None)
            for k, item in enumerate(items or []):
                if isinstance(item, c_ast.ID) and item.name == BASE_CASE:
                    items[k] = c_ast.Compound(base)
    for node in ext:
        _set_coords(node, func.decl.coord)
    return list(ext)


def _entry(func: c_ast.FuncDef, shape: WalkShape, guard: str, box: list[str],
           table: TileTable | None) -> list[c_ast.Node]:  # fmt: skip
    entry = c_parser.CParser().parse(call_text(shape, guard, box, table), "<trapezoid>").ext[0]
    _splice_args(entry.body, [c_ast.ID(p.name) for p in _kernel_parameters(func)])
    return list(entry.body.block_items)


def _check_names(module: Module, part: Scop, nodes: list[c_ast.Node], name: str) -> None:
    taken = names_in_scope(module.ast, module.cu.ast.ext)
    mine = {n.name for top in nodes for n in walk(top)
            if isinstance(n, (c_ast.ID, c_ast.Decl)) and n.name and n.name.startswith((PREFIX, name))}  # fmt: skip
    clash = sorted(mine & taken)
    if clash:
        raise PassFailed(f"{part.where}: the name {clash[0]} is taken: no trapezoidal tiling")


# ------------------------------------------------------------------------ the tile graph (execution="graph")


def _fixed(obj, values: dict[str, int]):
    """``obj`` (an isl set or map) with its parameters fixed to ``values``, then dropped."""
    obj = fix_parameters(obj, values)
    return obj.project_out(isl.dim_type.param, 0, obj.dim(isl.dim_type.param))


def tile_table(module: Module, part: Scop, deps: Sequence[Dependence], geometry: StencilGeometry,
               shape: WalkShape) -> TileTable:  # fmt: skip
    """The tile dependence graph of the walk for the parameter values every call passes (PassFailed
    when one is unknown, or the graph is too large).

    The model of :mod:`.trapezoid_graph` on the part's instances in ``(tp,
    x)`` and their direct dependences (value-based flow, nearest anti and
    output: every memory-based pair is a chain of them, so a path of tiles
    orders it), from the start trapezoid of the generated call.
    """
    values = known_parameters(module, part)
    missing = [scop_name for scop_name in part.params if scop_name not in values]
    if missing:
        raise PassFailed(f"{part.where}: execution=\"graph\" needs constant sizes: the value of "
                         f"{part.names.get(missing[0], missing[0])} is not known")  # fmt: skip
    domain = _fixed(isl.Set.from_union_set(geometry.coordinates.range()), values).coalesce()
    direct = isl.UnionMap.empty(isl.Space.params_alloc(ctx(), 0))
    for d in deps:
        direct = direct.union(isl.UnionMap.from_map(d.direct))
    coords = geometry.coordinates
    moved = direct.apply_domain(coords).apply_range(coords)
    dep = _fixed(isl.Map.from_union_map(moved), values).coalesce() if not moved.is_empty() else None
    if domain.is_empty() or dep is None:
        raise PassFailed(f"{part.where}: execution=\"graph\": the part has no instance or no dependence")
    box = [(domain.dim_min_val(k).to_python(), domain.dim_max_val(k).to_python()) for k in range(geometry.dims + 1)]
    height = box[0][1] + 1 - box[0][0]
    longest = dep.deltas().dim_max_val(0)
    depth = longest.to_python() if longest.is_int() else height
    start = Zoid(box[0][0], box[0][1] + 1, tuple(lo - s * height for (lo, _), s in zip(box[1:], geometry.slopes)),
                 tuple(hi + 1 + s * height for (_, hi), s in zip(box[1:], geometry.slopes)), geometry.slopes,
                 tuple(-s for s in geometry.slopes))  # fmt: skip
    model = TrapezoidGraph(Stencil(domain, dep, geometry.slopes, max(depth, 1)), shape.widths, shape.steps,
                           limit=MAX_GRAPH_TILES)  # fmt: skip
    graph = model.build(start)
    if graph.number_of_nodes() > MAX_GRAPH_TILES or model.truncated:
        raise PassFailed(f"{part.where}: execution=\"graph\": more than {MAX_GRAPH_TILES} tiles (raise "
                         "base_steps or base_width)")  # fmt: skip
    order = list(nx.topological_sort(graph))
    index = {z: k for k, z in enumerate(order)}
    first, nxt = [0], []
    for z in order:
        nxt += sorted(index[w] for w in graph.successors(z))
        first.append(len(nxt))
    tiles = tuple((z.t0, z.t1) + z.x0 + z.x1 + z.s0 + z.s1 for z in order)
    condition = " && ".join(f"{part.names.get(p, p)} == {values[p]}" for p in part.params) or "1"
    return TileTable(tiles, tuple(first), tuple(nxt), tuple(graph.in_degree(z) for z in order), condition)


@transformation(scope="module", requires=["dependences"],
                reads=["function_references", "function_scope", "poly_facts", "scops", "unit_scope"])
def trapezoid_tile(module: Module, base_steps: int = 0, base_width: str = "", label: str = "",
                   execution: Execution = "fork_join") -> None:  # fmt: skip
    """Run a time-iterated stencil as Pochoir's recursive trapezoidal walk (hyperspace cuts, OpenMP tasks).

    See the module docstring of :mod:`passman.passes.poly.trapezoid_tiling`
    for the walk, the legality check and a before/after example.

    Properties:

    - base_steps: pseudo time steps below which a trapezoid is not cut in time (0 default:
      8 per statement position of a time step)
    - base_width: per space dimension, outermost first, the longer base at or below which a
      trapezoid is not cut in that dimension, "16,256", the last repeated ("" default: 32 outer,
      512 innermost); every width at least 2
    - label: the time loop to tile ("" default: the first part that is a time loop)
    - execution: "fork_join" (default: the recursive walk, a taskwait per level) or "graph" (the
      walk's tile dependence graph computed here for the sizes every call passes, its tiles run as
      tasks released by in-degree counters, no barrier; the walk for other sizes)
    """
    if base_steps < 0:
        raise PassFailed(f"{module.name}: base_steps {base_steps} is negative")
    deps: Dependences = module.resource("dependences")
    part = time_loop_part(module, label, deps)
    trapezoid_part(module, part, deps.of_scop(part), base_steps, base_width, execution)


def trapezoid_part(module: Module, part: Scop, deps: Sequence[Dependence], base_steps: int = 0,
                   base_width: str = "", execution: str = "fork_join") -> None:  # fmt: skip
    """The work of :func:`trapezoid_tile` once the part (a time loop) is chosen; also what
    ``auto_schedule`` calls for ``time_tiling="trapezoid"``. Every refusal comes before any change."""
    part_deps = [d for d in deps if not d.relation.is_empty()]
    geometry = trapezoid_geometry(part, part_deps)
    widths = parse_widths(base_width, geometry.dims, part.where)
    steps = base_steps or DEFAULT_STEPS * geometry.levels
    _check_captures(module, part)
    func = module.ast
    shape = WalkShape(_fresh_name(module, f"{module.name}_trapezoid"), geometry.slopes, widths, steps)
    table = tile_table(module, part, part_deps, geometry, shape) if execution == "graph" else None
    base = _base_case(module, part, geometry)
    guard, box = _box(part, geometry)
    definitions = _new_definitions(func, shape, base, table)
    entry = _entry(func, shape, guard, box, table)
    _check_names(module, part, entry + definitions, shape.name)
    coord = part.nodes[0].coord
    for n in entry:
        _set_coords(n, coord)
    replace_part(module, part, [c_ast.Compound(entry, coord)])
    ext = module.cu.ast.ext
    at = next(k for k, n in enumerate(ext) if n is func)
    ext[at:at] = definitions
