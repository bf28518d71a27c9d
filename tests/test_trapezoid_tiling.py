"""Pochoir's trapezoidal decomposition (``trapezoid_tile``) and its tile dependence graph (Freitag 2014).

Oracles:

* differential execution: the corpus stencils (jacobi_1d, jacobi_2d,
  jacobi_2d_9pt, heat_3d, fdtd_2d) at their sizes and another one, run as
  the recursive walk, compiled ``-O2 -fopenmp``, print exactly what the
  original prints with OMP_NUM_THREADS 1, 2 and 4 (each point keeps its
  expression and inputs: bit-identical);
* refusals (in-place Gauss-Seidel with its dependence named, no time loop,
  bad thresholds): the function is unchanged;
* golden shape of jacobi_1d's walk (key lines);
* the tile dependence graph model (:mod:`.trapezoid_graph`): Freitag 2014
  §5.2 Pochoir rows and §5.1 claims 1-4 and 12.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import islpy as isl
import networkx as nx
import pytest
from conftest import CORPUS
from passman.passes.poly.trapezoid_graph import (
    CENTRE,
    LEFT,
    RIGHT,
    TrapezoidGraph,
    Zoid,
    brute_force_edges,
    can_spacecut,
    fork_join_span,
    heat_stencil,
    spacecut,
    start_zoid,
    tile_points,
    timecut,
)
from stencil_runs import STENCILS, program_same_output, same_output

from passman import InvalidInput, PassFailed, Workspace

# ------------------------------------------------------------------------ differential


def _same_output(tmp_path: Path, name: str, sizes: int | dict[str, int] | None = None, **options) -> Workspace:
    return same_output(tmp_path, name, sizes, lambda kernel: kernel.trapezoid_tile(**options))


CASES = [
    ("jacobi_1d", None, {}),
    ("jacobi_1d", 1001, dict(base_steps=3, base_width="8")),
    ("jacobi_2d", None, {}),
    ("jacobi_2d", 53, dict(base_steps=2, base_width="4,8")),
    ("jacobi_2d_9pt", None, {}),
    ("jacobi_2d_9pt", 41, dict(base_width="6")),
    ("heat_3d", None, {}),
    ("heat_3d", 13, dict(base_steps=2, base_width="3")),
    ("fdtd_2d", None, {}),
    ("fdtd_2d", 37, dict(base_steps=3, base_width="5,7")),
    # tiny grids, no time step, the smallest thresholds (the deepest recursion)
    ("jacobi_1d", {"N": 4, "TSTEPS": 3}, dict(base_steps=1, base_width="2")),
    ("jacobi_1d", {"N": 5, "TSTEPS": 0}, {}),
    ("jacobi_2d", {"N": 17, "TSTEPS": 5}, dict(base_steps=1, base_width="2")),
    ("fdtd_2d", {"NX": 2, "NY": 3, "TMAX": 3}, dict(base_steps=1, base_width="2")),
]


@pytest.mark.parametrize("name, extent, options", CASES, ids=[f"{c[0]}-{c[1]}-{len(c[2])}".replace(" ", "")
                                                             for c in CASES])  # fmt: skip
def test_trapezoid_tiled_stencil_prints_what_the_original_prints(tmp_path, name, extent, options):
    ws = _same_output(tmp_path, name, extent, **options)
    code = ws[STENCILS[name][0]].cu.code
    assert "#pragma omp task firstprivate(" in code and "#pragma omp taskwait" in code


TWO_IN_ONE_NEST = """
#include <stdio.h>
#define T 37
#define N 211
double a[N], b[N], c[N];
static void kernel(int steps, int n)
{
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++) {
            b[i] = 0.5 * (a[i - 1] + a[i + 1]);
            c[i] = 2.0 * b[i] - a[i];
        }
        for (int i = 2; i < n - 2; i++)
            a[i] = 0.25 * (c[i - 1] + c[i + 1]) + 0.5 * b[i];
    }
}
int main(void)
{
    double s = 0.0;
    for (int i = 0; i < N; i++)
        a[i] = (double)(i % 17) / 3.0;
    kernel(T, N);
    for (int i = 0; i < N; i++)
        s += a[i] + b[i] + c[i];
    printf("%.12e\\n", s);
    return 0;
}
"""


def test_two_statements_of_one_nest_share_a_sub_step(tmp_path):
    # b[i] then c[i] = f(b[i]) at one point of one sub-step: one base case runs them in order
    program_same_output(tmp_path, "two.c", TWO_IN_ONE_NEST, "kernel",
                        lambda kernel: kernel.trapezoid_tile(base_steps=2, base_width="4"))


def test_jacobi_1d_walk_has_the_golden_key_lines():
    ws = Workspace(CORPUS / "jacobi_1d.c")
    ws["kernel_jacobi_1d"].trapezoid_tile()
    lines = [line.strip() for line in ws["kernel_jacobi_1d"].cu.code.splitlines()]
    golden = [
        "static void kernel_jacobi_1d_trapezoid(int tsteps, int n, double a[n], double b[n], long trap_t0, "
        "long trap_t1, const long *trap_x0, const long *trap_x1, const long *trap_s0, const long *trap_s1, "
        "const long *trap_box)",
        "const long trap_sigma[1] = {1};",
        "const long trap_width[1] = {512};",
        "trap_cut[trap_i] = trap_longer > trap_width[trap_i] && trap_shorter >= 2 * trap_sigma[trap_i] * trap_dt;",
        "#pragma omp task firstprivate(trap_px0, trap_px1, trap_ps0, trap_ps1)",
        "kernel_jacobi_1d_trapezoid(tsteps, n, a, b, trap_t0, trap_t1, trap_px0, trap_px1, trap_ps0, trap_ps1, trap_box);",
        "#pragma omp taskwait",
        "kernel_jacobi_1d_trapezoid_base(tsteps, n, a, b, trap_t0, trap_t1, trap_x0, trap_x1, trap_s0, trap_s1);",
        "} else if (trap_dt >= 2 && trap_dt > 16) {",
        "for (int c1 = 1 > trap_lo0 ? 1 : trap_lo0; c1 < (trap_hi0 < n - 1 ? trap_hi0 : n - 1); c1++)",
        "b[c1] = 0.33333 * (a[c1 - 1] + a[c1] + a[c1 + 1]);",
        "a[c1] = 0.33333 * (b[c1 - 1] + b[c1] + b[c1 + 1]);",
        "if (tsteps >= 1 && n >= 3) {",
        "const long trap_box[4] = {0, 2 * tsteps, 1, n - 1};",
        "#pragma omp parallel",
        "#pragma omp single",
        "kernel_jacobi_1d_trapezoid(tsteps, n, a, b, trap_box[0], trap_box[1], trap_x0, trap_x1, trap_s0, "
        "trap_s1, trap_box);",
    ]
    missing = [g for g in golden if g not in lines]
    assert not missing, "\n".join(missing)
    # the walk comes before the kernel, which keeps no time loop
    code = ws["kernel_jacobi_1d"].cu.code
    assert code.index("static void kernel_jacobi_1d_trapezoid(") < code.index("void kernel_jacobi_1d(int")
    assert "for (t = 0" not in ws["kernel_jacobi_1d"].code


# ------------------------------------------------------------------------ refusals


def _refused(path: Path, fn: str, error: type[Exception], match: str, **options) -> None:
    ws = Workspace(path)
    module = next(m for m in ws.all_functions if m.name == fn)
    before, unit = module.code, module.cu.code
    with pytest.raises(error, match=match):
        module.trapezoid_tile(**options)
    assert module.code == before and module.cu.code == unit


def test_in_place_gauss_seidel_is_refused_with_the_dependence():
    _refused(CORPUS / "seidel_2d.c", "kernel_seidel_2d", PassFailed,
             r"seidel_2d.c:\d+: no trapezoidal tiling of loop t: \w+ dependence .* moves in space within one "
             r"time step")  # fmt: skip


def test_a_nest_without_time_loop_is_refused():
    ws = Workspace(CORPUS / "gemm.c")
    fn = next(m.name for m in ws.all_functions if "gemm" in m.name)
    _refused(CORPUS / "gemm.c", fn, PassFailed, "no time loop")


NON_UNIFORM = """
#define T 10
#define N 100
double a[2 * N], b[N];
void kernel(void)
{
    for (int t = 0; t < T; t++) {
        for (int i = 1; i < N - 1; i++)
            b[i] = 0.5 * (a[2 * i] + a[i]);
        for (int i = 1; i < N - 1; i++)
            a[i] = b[i];
    }
}
"""


def test_a_non_uniform_access_is_refused(tmp_path):
    src = tmp_path / "nonuniform.c"
    src.write_text(NON_UNIFORM)
    _refused(src, "kernel", PassFailed, r"dependence .* has no slope of at most 8 points per step")


@pytest.mark.parametrize(("options", "error", "match"), [
    (dict(base_steps=-1), PassFailed, "negative"),
    (dict(base_width="1"), PassFailed, "at least 2"),
    (dict(base_width="8,x"), PassFailed, "not a list of integers"),
    (dict(base_steps="many"), InvalidInput, "base_steps"),
])  # fmt: skip
def test_bad_thresholds_are_refused(options, error, match):
    _refused(CORPUS / "jacobi_1d.c", "kernel_jacobi_1d", error, match, **options)


# ------------------------------------------------------------------------ tile dependence graph


@pytest.mark.parametrize(("steps", "n", "dims", "thr_x", "thr_t", "figures"), [
    (24, 70, 1, 8, 4, (162, 356, 230, 10146, 16, 55)),
    (12, 30, 2, 6, 3, (364, 1470, 702, 48942, 12, 48)),
])  # fmt: skip
def test_pochoir_tile_graph_has_freitag_figures(steps, n, dims, thr_x, thr_t, figures):
    # §5.2: tiles, TDG edges (= real), transitive reduction, suggested (unchecked inheritance) edges,
    # TDG longest path (tiles), original fork-join span
    stencil, start = heat_stencil(steps, n, dims), start_zoid(steps, n, dims)
    graph = TrapezoidGraph(stencil, thr_x, thr_t).build(start)
    suggested = TrapezoidGraph(stencil, thr_x, thr_t, checked=False).build(start)
    got = (graph.number_of_nodes(), graph.number_of_edges(), nx.transitive_reduction(graph).number_of_edges(),
           suggested.number_of_edges(), nx.dag_longest_path_length(graph) + 1,
           fork_join_span(stencil, start, thr_x, thr_t))  # fmt: skip
    assert got == figures
    # claim 5: the real edges are among the suggested ones; claim 7: the critical path is shorter
    assert set(graph.edges) <= set(suggested.edges)
    assert got[4] < got[5]


def test_pochoir_tile_graph_of_the_long_heat_1d_row():
    stencil, start = heat_stencil(64, 258), start_zoid(64, 258)
    graph = TrapezoidGraph(stencil, 8, 4).build(start)
    got = (graph.number_of_nodes(), graph.number_of_edges(), nx.transitive_reduction(graph).number_of_edges(),
           nx.dag_longest_path_length(graph) + 1, fork_join_span(stencil, start, 8, 4))  # fmt: skip
    assert got == (1018, 2428, 1490, 32, 202)


def _dependent(stencil, v: Zoid, w: Zoid) -> bool:
    """The §3.2 predicate by isl alone (no bounding-box shortcut): the oracle of claims 3 and 4."""
    reach = v.isl_set().intersect(stencil.domain).apply(stencil.dep)
    return not reach.intersect(w.isl_set().intersect(stencil.domain)).is_empty()


@pytest.mark.parametrize(("steps", "n", "dims", "thr_x", "thr_t"), [(10, 24, 1, 3, 2), (4, 12, 2, 3, 2)])
def test_small_tile_graphs_partition_the_grid_and_have_exactly_the_real_edges(steps, n, dims, thr_x, thr_t):
    stencil = heat_stencil(steps, n, dims)
    model = TrapezoidGraph(stencil, thr_x, thr_t)
    graph = model.build(start_zoid(steps, n, dims))
    tiles = list(graph.nodes)
    # claim 1: the tiles' points are disjoint and cover the grid; no tile is empty
    parts = tile_points(stencil, tiles)
    assert all(not p.is_empty() for p in parts)
    union = parts[0]
    for p in parts[1:]:
        union = union.union(p)
    assert union.is_equal(stencil.domain)
    total = sum(p.count_val().to_python() for p in parts)
    assert total == stencil.domain.count_val().to_python()
    # claim 2: a DAG, every tile reachable from a root before the sources
    assert nx.is_directed_acyclic_graph(graph)
    rooted = graph.copy()
    rooted.add_edges_from(("R", v) for v in tiles if graph.in_degree(v) == 0)
    assert nx.descendants(rooted, "R") == set(tiles)
    # claims 3 and 4: every edge is a real dependence, every real dependence an edge (all pairs)
    reach = {v: p.apply(stencil.dep) for v, p in zip(tiles, parts)}
    points = dict(zip(tiles, parts))
    real = {(v, w) for v, w in itertools.permutations(tiles, 2) if not reach[v].intersect(points[w]).is_empty()}
    assert set(graph.edges) <= real
    assert set(graph.edges) == real == brute_force_edges(model)


def _count(z: Zoid) -> int:
    return z.isl_set().count_val().to_python()


@pytest.mark.parametrize("zoid", [
    Zoid(0, 4, (0,), (20,), (1,), (-1,)),       # upright
    Zoid(0, 3, (0,), (9,), (0,), (0,)),         # rectangle (upright branch)
    Zoid(0, 4, (5,), (13,), (-1,), (1,)),       # inverted
    Zoid(2, 5, (0,), (12,), (1,), (-1,)),       # upright, shorter base exactly 2 sigma dt
    Zoid(0, 3, (0, 4), (14, 10), (1, -1), (-1, 1)),  # 2-D: upright in x0, inverted in x1
])  # fmt: skip
def test_cut_algebra(zoid):
    # claim 12: the pieces partition the trapezoid, L and R are independent, the intra-cut edges are real,
    # every base is at least 0 and one of each piece's is positive (E12)
    stencil = heat_stencil(40, 60, len(zoid.x0))
    stencil = type(stencil)(isl.Set.universe(stencil.domain.get_space()), stencil.dep, stencil.sigmas)
    for i in range(len(zoid.x0)):
        assert can_spacecut(zoid, i, 1)
        pieces = spacecut(zoid, i, 1)
        left, centre, right = pieces[LEFT], pieces[CENTRE], pieces[RIGHT]
        assert sum(_count(p) for p in pieces.values()) == _count(zoid)
        union = left.isl_set().union(centre.isl_set()).union(right.isl_set())
        assert union.is_equal(zoid.isl_set())
        assert not _dependent(stencil, left, right) and not _dependent(stencil, right, left)
        if zoid.upright(i):
            assert _dependent(stencil, left, centre) and _dependent(stencil, right, centre)
            assert not _dependent(stencil, centre, left) and not _dependent(stencil, centre, right)
        else:
            assert _dependent(stencil, centre, left) and _dependent(stencil, centre, right)
            assert not _dependent(stencil, left, centre) and not _dependent(stencil, right, centre)
        for p in pieces.values():
            assert min(p.bottom(i), p.top(i)) >= 0 and max(p.bottom(i), p.top(i)) > 0
    lower, upper = timecut(zoid)
    assert _count(lower) + _count(upper) == _count(zoid)
    assert lower.isl_set().union(upper.isl_set()).is_equal(zoid.isl_set())
    assert _dependent(stencil, lower, upper) and not _dependent(stencil, upper, lower)


def test_a_spacecut_below_two_sigma_dt_is_not_legal():
    assert not can_spacecut(Zoid(0, 4, (0,), (15,), (1,), (-1,)), 0, 1)  # top base 7 < 8
    assert can_spacecut(Zoid(0, 4, (0,), (16,), (1,), (-1,)), 0, 1)


# ------------------------------------------------------------------------ execution="graph"


GRAPH_CASES = [
    ("jacobi_1d", {"TSTEPS": 30, "N": 301}, dict(base_steps=4, base_width="16")),
    ("jacobi_2d", {"TSTEPS": 8, "N": 41}, dict(base_steps=4, base_width="8")),
    ("fdtd_2d", {"TMAX": 5, "NX": 23, "NY": 29}, dict(base_steps=4, base_width="8")),
]


@pytest.mark.parametrize("name, extent, options", GRAPH_CASES, ids=[c[0] for c in GRAPH_CASES])
def test_the_tile_graph_run_by_counters_prints_what_the_original_prints(tmp_path, name, extent, options):
    ws = _same_output(tmp_path, name, extent, execution="graph", **options)
    code = ws[STENCILS[name][0]].cu.code
    assert "#pragma omp atomic capture seq_cst" in code and "_trapezoid_indegree[" in code


def test_the_tile_graph_needs_constant_sizes(tmp_path):
    src = tmp_path / "heat.c"
    src.write_text("void heat(int steps, int n, double a[n], double b[n])\n{\n"
                   "    for (int t = 0; t < steps; t++) {\n"
                   "        for (int i = 1; i < n - 1; i++)\n            b[i] = a[i - 1] + a[i + 1];\n"
                   "        for (int i = 1; i < n - 1; i++)\n            a[i] = b[i];\n    }\n}\n")  # fmt: skip
    _refused(src, "heat", PassFailed, "needs constant sizes", execution="graph")
