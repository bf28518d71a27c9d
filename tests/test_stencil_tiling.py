"""Time tiling of stencils (``time_tile``): hyperplanes, tile dependence graphs, tile sizes, code.

Oracles:

* Freitag 2014 §5.2 (diamond rows): the tile dependence graph of heat-1d
  with ``phi = (t + x, t - x)`` has the stated tiles, edges, diagonal edges,
  edges after transitive reduction, barrier-implied edges, longest path and
  wavefronts; §5.1 claims 13, 14, 16;
* Di 2013 Table 3.1: the direct dependences of Fig. 3.4;
* differential execution: every corpus stencil, tiled (diamond or skewed,
  tasks or barrier fronts, several tile and problem sizes), prints exactly
  what the original prints with OMP_NUM_THREADS 1, 2 and 4 (tiling keeps
  every point's expression and inputs: bit-identical);
* storage folding (Freitag's digest §5.3): a shift-only stencil on
  ``A[t % 2]`` has the folded buffers' anti-dependences among its
  dependences, and prints the same through every shape;
* refusals: not a time loop, a diamond Gauss-Seidel, bad options; the
  function is unchanged.
"""

from __future__ import annotations

import re
from pathlib import Path

import islpy as isl
import pytest
from conftest import CORPUS
from passman.passes.poly import tile_model, time_tiling
from passman.passes.poly.footprint import array_extents, known_parameters
from passman.passes.poly.hyperplanes import RowShape, find_row, violated
from passman.passes.poly.tile_graph import (
    depend_clause,
    graph_stats,
    reduce_deltas,
    tile_deltas,
    tile_graph,
)
from passman.passes.poly.tile_model import Caches, choose_sizes, footprint, machine_caches
from stencil_runs import STENCILS, program_same_output, same_output

from passman import InvalidInput, PassFailed, Workspace

# ------------------------------------------------------------------------ Freitag §5.2


def _diamond_graph(size: int, steps: int = 24, n: int = 70):
    dom = isl.Set(f"{{ S[t, x] : 1 <= t <= {steps} and 1 <= x <= {n - 2} }}")
    deps = isl.Map("{ S[t, x] -> S[t + 1, y] : -1 <= y - x <= 1 }")
    tiles = isl.Map(f"{{ S[t, x] -> [floor((t + x) / {size}), floor((t - x) / {size})] }}")
    return tile_graph(dom, deps, tiles)


@pytest.mark.parametrize(
    "size, tiles, edges, diagonal, reduced, barrier, path",
    [(8, 71, 169, 51, 118, 558, 8), (4, 244, 645, 204, 441, 3961, 14), (6, 119, 294, 88, 206, 1284, 10)],
)
def test_diamond_tile_graph_of_heat_1d_has_freitag_figures(size, tiles, edges, diagonal, reduced, barrier, path):
    stats = graph_stats(_diamond_graph(size))
    assert (stats.tiles, stats.edges, stats.reduced, stats.barrier) == (tiles, edges, reduced, barrier)
    assert stats.longest_path == stats.wavefronts == path
    if size == 8:  # the only row of §5.2 that states the diagonal edges
        assert stats.diagonal == diagonal


def test_diamond_edges_go_to_neighbours_diagonals_included():
    # claim 14 (and erratum E6): every edge is a step in {0,1}^2 \ {0}, diagonals are real edges
    g = _diamond_graph(8)
    steps = {(b[0] - a[0], b[1] - a[1]) for a, b in g.edges}
    assert steps == {(0, 1), (1, 0), (1, 1)}


def test_rectangular_tiles_of_a_skewed_box_freitag_fig_1_5():
    # claim 16: i in [0,99], j in [100,199], T = [[1,-1],[0,1]], 25x25 tiles: 20 tiles, 12 full
    dom = isl.Set("{ S[i, j] : 0 <= i <= 99 and 100 <= j <= 199 }")
    tiles = isl.Map("{ S[i, j] -> [floor((i - j) / 25), floor(j / 25)] }").intersect_domain(dom)
    points: list[isl.Point] = []
    tiles.range().foreach_point(points.append)
    sizes = [tiles.intersect_range(isl.Set.from_point(p)).domain().count_val().to_python() for p in points]
    assert len(sizes) == 20 and sizes.count(625) == 12


def test_parametric_tile_directions_drop_the_implied_diagonal():
    dom = isl.UnionSet("[T, N] -> { S[t, x] : 1 <= t <= T and 1 <= x <= N - 2 }")
    deps = isl.UnionMap("{ S[t, x] -> S[t + 1, y] : -1 <= y - x <= 1 }").intersect_domain(dom).intersect_range(dom)
    tiles = isl.UnionMap("{ S[t, x] -> [floor((t + x) / 8), floor((t - x) / 8)] }").intersect_domain(dom)
    deltas = tile_deltas(deps, tiles)
    assert deltas == [(0, 1), (1, 0), (1, 1)]
    assert reduce_deltas(isl.Set.from_union_set(tiles.range()), deltas) == [(0, 1), (1, 0)]


def test_a_direction_without_a_path_around_it_is_kept():
    # a diagonal line of tiles: no (0, 1) or (1, 0) pair exists, so (1, 1) has no path around it
    line = isl.Set("[n] -> { [a, b] : a = b and 0 <= a < n }")
    assert reduce_deltas(line, [(0, 1), (1, 0), (1, 1)]) == [(1, 1)]


def test_depend_clause_names_the_tile_and_its_predecessors():
    text = depend_clause(["c1", "c0 - c1"], [(0, 1), (1, 0)])
    assert text.startswith("task depend(in: ")
    assert "((c1 - 1) & 255) << 8 | ((c0 - c1) & 255)" in text
    assert text.endswith("depend(out: passman_tiles[((c1) & 255) << 8 | ((c0 - c1) & 255)])")


# ------------------------------------------------------------------------ hyperplanes


HEAT_1D = """
#define T 24
#define N 70
double A[T + 1][N];
void heat(void)
{
    for (int t = 0; t < T; t++)
        for (int i = 1; i < N - 1; i++)
            A[t + 1][i] = 0.125 * (A[t][i - 1] - 2.0 * A[t][i] + A[t][i + 1]);
}
"""


def _part(ws: Workspace, fn: str):
    module = ws[fn]
    part = module.resource("scops")[0]
    deps = [d for d in module.resource("dependences").of_scop(part) if not d.relation.is_empty()]
    return part, deps


def test_heat_1d_hyperplanes_with_and_without_concurrent_start(tmp_path):
    # claim 13: heat-1d gives {(1,1), (1,-1)} with concurrent start, time then (1,1) without
    src = tmp_path / "heat.c"
    src.write_text(HEAT_1D)
    part, deps = _part(Workspace(src), "heat")
    rels = [d.relation for d in deps]
    plus, minus = (find_row(part, rels, RowShape((c,))) for c in (1, -1))
    assert plus.forms["S0"] == (1, 1, 0) and minus.forms["S0"] == (1, -1, 0)
    assert find_row(part, rels, RowShape((0,), min_time=1)).forms["S0"] == (1, 0, 0)
    assert violated(rels, plus) is None


def test_jacobi_1d_diamond_rows_are_plutos():
    part, deps = _part(Workspace(CORPUS / "jacobi_1d.c"), "kernel_jacobi_1d")
    kind, rows = time_tiling.tiling_rows(part, deps, "diamond")
    s0, s1 = part.statements
    assert [(r.text(s0), r.text(s1)) for r in rows] == [("2t + i", "2t + i + 1"), ("2t - i", "2t - i + 1")]


def test_a_row_going_against_a_dependence_is_caught():
    part, deps = _part(Workspace(CORPUS / "jacobi_1d.c"), "kernel_jacobi_1d")
    rels = [d.relation for d in deps]
    wrong = time_tiling.Row({"S0": (1, -1, 0), "S1": (1, -1, 0)})
    assert violated(rels, wrong) is not None


def test_direct_dependences_of_di_fig_3_4_are_table_3_1(tmp_path):
    src = tmp_path / "fig34.c"
    src.write_text("void f(int J, int I, double A[I + 2])\n{\n    for (int j = 1; j <= J; j++)\n"
                   "        for (int i = 1; i <= I; i++)\n            A[i] = 0.5 * (A[i] + A[i + 1]);\n}\n")
    deps = Workspace(src)["f"].resource("dependences").all
    got = sorted((d.kind, d.vector) for d in deps if d.is_direct)
    assert got == [("anti", (0, 1)), ("anti", (1, 0)), ("flow", (1, -1)), ("flow", (1, 0)), ("output", (1, 0))]


# ------------------------------------------------------------------------ tile sizes


def test_machine_caches_are_read():
    caches = machine_caches()
    assert caches.target() > 0


def test_model_sizes_fit_the_cache_and_shrink_with_it():
    part, deps = _part(Workspace(CORPUS / "jacobi_2d.c"), "kernel_jacobi_2d")
    _, rows = time_tiling.tiling_rows(part, deps, "diamond")
    big = choose_sizes(part, rows, caches=Caches(32 << 10, 2 << 20, 0))
    small = choose_sizes(part, rows, caches=Caches(32 << 10, 256 << 10, 0))
    assert big.sizes[0] == big.sizes[1] and small.sizes[0] == small.sizes[1]
    assert big.footprint <= big.budget and small.footprint <= small.budget
    assert footprint(part, rows, small.sizes) < footprint(part, rows, big.sizes)


def _sized(tmp_path: Path, name: str, sizes: dict[str, int]) -> Path:
    text = (CORPUS / f"{name}.c").read_text()
    for macro, value in sizes.items():
        text, n = re.subn(rf"^(#define\s+{macro}\s+)\S+", rf"\g<1>{value}", text, count=1, flags=re.M)
        assert n == 1, macro
    path = tmp_path / f"{name}.c"
    path.write_text(text)
    return path


@pytest.mark.parametrize("name, sizes", [
    ("jacobi_2d", {"TSTEPS": 50, "N": 3000}),
    ("heat_3d", {"TSTEPS": 40, "N": 200}),
])  # fmt: skip
def test_model_keeps_the_unit_stride_rows_long(tmp_path, name, sizes):
    """Innermost rows of at least MIN_INNER points; heat-3d's only fit the core's share of the L3."""
    part, deps = _part(Workspace(_sized(tmp_path, name, sizes)), f"kernel_{name}")
    _, rows = time_tiling.tiling_rows(part, deps, "diamond")
    caches = Caches(32 << 10, 1 << 20, 32 << 20)
    across = [4 * sizes["N"]] * len(rows)
    got = choose_sizes(part, rows, caches=caches, tiles_across=across)
    assert got.sizes[-1] >= tile_model.MIN_INNER, got
    assert got.sizes[0] == got.sizes[1]
    old = choose_sizes(part, rows, caches=Caches(32 << 10, 1 << 20, 0), tiles_across=across)
    if name == "heat_3d":  # no long-row tile fits half the L2: without an L3, the short rows
        assert old.sizes[-1] < tile_model.MIN_INNER and got.footprint > got.budget, (old, got)
        assert got.footprint <= (32 << 20) // 4  # half the core's share of the L3, at 2 threads
    else:
        assert got.footprint <= got.budget


def test_model_weighs_a_row_longer_than_the_array_as_the_whole_row(tmp_path):
    """heat-3d at 200 points: a tile row of 512 covers the whole unit-stride dimension (the skewed row
    spans 276 values). Its footprint and instances are those of the 200 points, not of a 512 box:
    the model then takes the whole row (2026-11-28, 40 x 200: 0.51 s against 0.57 s for its
    choice without the limits, 16x16x64x256; 100 x 200: 1.26 s against 1.32 s)."""
    ws = Workspace(_sized(tmp_path, "heat_3d", {"TSTEPS": 40, "N": 200}))
    module = ws["kernel_heat_3d"]
    part, deps = _part(ws, "kernel_heat_3d")
    _, rows = time_tiling.tiling_rows(part, deps, "diamond")
    limits = array_extents(part, known_parameters(module, part))
    assert limits == {"a": [200, 200, 200], "b": [200, 200, 200]}
    clamped = tile_model.TileFootprint(part, limits)
    whole = clamped(rows, [16, 16, 64, 512])
    assert whole == clamped(rows, [16, 16, 64, 1024]) < footprint(part, rows, [16, 16, 64, 512])
    across = [276] * len(rows)
    assert tile_model.instances(part, rows, [16, 16, 64, 1024], across) == \
        tile_model.instances(part, rows, [16, 16, 64, 276], across)
    caches = Caches(32 << 10, 1 << 20, 32 << 20)
    got = choose_sizes(part, rows, caches=caches, tiles_across=across, limits=limits)
    assert got.sizes[-1] >= 276, got  # the whole row
    assert choose_sizes(part, rows, caches=caches, tiles_across=across).sizes[-1] < 276  # the box alone


def test_model_gives_gauss_seidel_short_rows_and_a_short_time_loop_small_time_tiles(tmp_path):
    """seidel-2d: its j loop carries A[i][j-1] -> A[i][j] (chains: short rows); 10 steps: time tiles of 1-2."""
    ws = Workspace(_sized(tmp_path, "seidel_2d", {"TSTEPS": 10, "N": 2000}))
    assert time_tiling.inner_chain(_part(ws, "kernel_seidel_2d")[1])
    kind, sizes = time_tiling.model_tile_sizes(ws["kernel_seidel_2d"])
    assert kind == "skewed"
    assert sizes[-1] in tile_model.CHAIN_CANDIDATES, sizes
    assert sizes[0] <= 2, sizes  # at least 4 time tiles: fronts of 2 tiles per thread
    jacobi = Workspace(CORPUS / "jacobi_2d.c")
    assert not time_tiling.inner_chain(_part(jacobi, "kernel_jacobi_2d")[1])
    assert time_tiling.model_tile_sizes(jacobi["kernel_jacobi_2d"])[1][-1] >= tile_model.MIN_INNER


SHORT = """\
static void kernel(int tsteps, int n, double A[n], double B[n])
{
    for (int t = 0; t < tsteps; t++) {
        for (int i = 2; i < n - 2; i++)
            B[i] = 0.45 * (A[i + 1] + A[i + 2]) + 0.01;
        for (int i = 2; i < n - 2; i++)
            A[i] = 0.3 * (B[i + 1] + B[i + 2] + B[i - 2]);
    }
}
int main(void)
{
    static double A[63], B[63];
    kernel(3, 63, A, B);
    return (int)A[5];
}
"""


def test_model_sizes_stop_at_the_extent_of_their_rows(tmp_path):
    """Stencil fuzz seed 3004: 3 steps of 59 points. Sizes past a row's extent (512 x 1024) made
    isl's code generation run past its 8 s cap twice; the first candidate covering it is the limit."""
    src = tmp_path / "short.c"
    src.write_text(SHORT)
    ws = Workspace(src)
    kind, sizes = time_tiling.model_tile_sizes(ws["kernel"], shape="balanced")
    assert kind == "balanced" and max(sizes) <= 128, sizes
    ws["kernel"].time_tile(shape="balanced", schedule="static")  # generated within the cap
    assert "for (int c0" in ws["kernel"].code


# ------------------------------------------------------------------------ differential


def _same_output(tmp_path: Path, name: str, extent: int | None = None, **options) -> Workspace:
    return same_output(tmp_path, name, extent, lambda kernel: kernel.time_tile(**options), opt="-O1")


CASES = [
    ("jacobi_1d", None, dict(shape="diamond", schedule="tasks", tile_sizes="16")),
    ("jacobi_1d", 1001, dict(shape="diamond", schedule="static", tile_sizes="8")),
    ("jacobi_1d", 777, dict(shape="skewed", schedule="tasks", tile_sizes="8,16")),
    ("jacobi_2d", None, dict(shape="diamond", schedule="tasks", tile_sizes="16,16,32")),
    ("jacobi_2d", 97, dict(shape="diamond", schedule="static", tile_sizes="8,8,16")),
    ("jacobi_2d_9pt", None, dict(schedule="tasks", tile_sizes="16,16,16")),
    ("jacobi_2d_9pt", 61, dict(schedule="static", tile_sizes="8")),
    ("fdtd_2d", None, dict(schedule="tasks", tile_sizes="8,8,16")),
    ("fdtd_2d", 57, dict(schedule="static", tile_sizes="8")),
    ("seidel_2d", None, dict(schedule="tasks", tile_sizes="4,8,16")),
    ("seidel_2d", 71, dict(schedule="static", tile_sizes="4,8,8")),
    ("heat_3d", None, dict(schedule="tasks", tile_sizes="8")),
]


@pytest.mark.parametrize("name, extent, options", CASES, ids=[f"{c[0]}-{c[1]}-{c[2].get('schedule')}" for c in CASES])
def test_time_tiled_stencil_prints_what_the_original_prints(tmp_path, name, extent, options):
    ws = _same_output(tmp_path, name, extent, **options)
    code = ws[STENCILS[name][0]].code
    if options.get("schedule") == "tasks":
        assert "#pragma omp task depend(in: " in code and "#pragma omp single" in code
    else:
        assert "#pragma omp parallel for" in code


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(STENCILS))
@pytest.mark.parametrize("schedule", ["tasks", "static"])
def test_time_tiled_stencil_with_model_sizes_prints_the_same(tmp_path, name, schedule):
    _same_output(tmp_path, name, None, schedule=schedule)


def test_the_diamond_of_jacobi_1d_needs_no_diagonal_task_edge():
    ws = Workspace(CORPUS / "jacobi_1d.c")
    ws["kernel_jacobi_1d"].time_tile(shape="diamond", schedule="tasks", tile_sizes="16")
    pragma = next(line for line in ws["kernel_jacobi_1d"].code.splitlines() if "omp task" in line)
    assert pragma.count("passman_tiles[") == 3  # two predecessors, the tile itself


# ------------------------------------------------------------------------ storage folding (§5.3)

#: a shift-only stencil on two buffers A[t % 2] (Freitag's digest §5.3: with flow dependences alone, a
#: tiling of it is wrong; its rough start keeps half its amplitude over the 40 steps, so a value from
#: the wrong step shows)
FOLDED = """#include <stdio.h>
#define T 40
#define N 600
double A[2][N];
static void kernel(int tsteps, int n, double a[2][n])
{
    int t, i;
    for (t = 0; t < tsteps; t++)
        for (i = 1; i < n - 1; i++)
            a[(t + 1) % 2][i] = 0.6 * a[t % 2][i - 1] + 0.4 * a[t % 2][i];
}
int main(void)
{
    for (int i = 0; i < N; i++)
        A[0][i] = A[1][i] = (double)((i * 37 + 11) % 17) / 17.0;
    kernel(T, N, A);
    double s = 0;
    for (int i = 0; i < N; i++)
        s += A[T % 2][i] * (i % 7 + 1) + A[(T + 1) % 2][i];
    printf("%.12e\\n", s);
    return 0;
}
"""


def test_the_folded_buffers_anti_dependences_are_among_the_dependences(tmp_path):
    src = tmp_path / "folded.c"
    src.write_text(FOLDED)
    deps = Workspace(src)["kernel"].resource("dependences").all
    got = {(d.kind, d.vector) for d in deps if d.is_direct}
    assert ("anti", (1, -1)) in got  # the read of a[t % 2][i - 1] before step t + 1 overwrites it
    assert {("flow", (1, 0)), ("flow", (1, 1))} <= got


@pytest.mark.parametrize("transform", [
    lambda m: m.time_tile(shape="diamond", schedule="tasks", tile_sizes="8,16"),
    lambda m: m.time_tile(shape="diamond", schedule="static", tile_sizes="8,16"),
    lambda m: m.time_tile(shape="skewed", schedule="tasks", tile_sizes="8,16"),
    lambda m: m.time_tile(shape="split", schedule="tasks", tile_sizes="4,24,4"),
    lambda m: m.trapezoid_tile(base_steps=4, base_width="16"),
    lambda m: m.dlt(parallel=True),
], ids=["diamond-tasks", "diamond-static", "skewed-tasks", "split-tasks", "trapezoid", "dlt"])  # fmt: skip
def test_a_storage_folded_shift_stencil_prints_the_same_through_every_shape(tmp_path, transform):
    ws = program_same_output(tmp_path, "folded.c", FOLDED, "kernel", transform)
    assert "#pragma omp" in ws["kernel"].code or any("trapezoid" in n for n in ws.function_names())


# ------------------------------------------------------------------------ refusals


def test_a_nest_without_time_loop_is_refused_and_left_unchanged():
    ws = Workspace(CORPUS / "gemm.c")
    module = next(m for m in ws.all_functions if "gemm" in m.name)
    before = module.code
    with pytest.raises(PassFailed, match="no time loop"):
        module.time_tile()
    assert module.code == before


def test_a_diamond_gauss_seidel_is_refused_with_the_dependence():
    ws = Workspace(CORPUS / "seidel_2d.c")
    before = ws["kernel_seidel_2d"].code
    with pytest.raises(PassFailed, match=r"seidel_2d.c:\d+: no diamond tiling of loop t: .*dependence"):
        ws["kernel_seidel_2d"].time_tile(shape="diamond")
    assert ws["kernel_seidel_2d"].code == before


@pytest.mark.parametrize(("options", "error"), [
    (dict(shape="hexagon"), InvalidInput),  # refused when the property is set
    (dict(schedule="dynamic"), InvalidInput),
    (dict(tile_sizes="0"), PassFailed),
])  # fmt: skip
def test_bad_options_are_refused(options, error):
    ws = Workspace(CORPUS / "jacobi_1d.c")
    before = ws["kernel_jacobi_1d"].code
    with pytest.raises(error):
        ws["kernel_jacobi_1d"].time_tile(**options)
    assert ws["kernel_jacobi_1d"].code == before


def test_reducing_directions_past_its_budget_keeps_them():
    """Out of time (or past MAX_BOX points for a direction), reduce_deltas keeps the directions it
    has not shown redundant: every kept direction is a real edge, so the order stays legal."""
    from passman.passes.poly import tile_graph

    tiles = isl.Set("{ [a, b] : 0 <= a < 40 and 0 <= b < 40 }")
    deltas = [(0, 1), (1, 0), (2, 2)]  # (2, 2): a path of the others, found by the search over its box
    assert tile_graph.reduce_deltas(tiles, deltas) == [(0, 1), (1, 0)]
    assert tile_graph.reduce_deltas(tiles, deltas, seconds=0.0) == deltas
    long = [(0, 1), (1, 0), (20, 20)]
    old = tile_graph.MAX_BOX
    try:
        tile_graph.MAX_BOX = 100
        assert (20, 20) in tile_graph.reduce_deltas(tiles, long)  # 441 points in its box
    finally:
        tile_graph.MAX_BOX = old
    assert tile_graph.reduce_deltas(tiles, long) == [(0, 1), (1, 0)]
