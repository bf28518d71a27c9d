"""Split and hybrid split time tiles (``time_tile(shape="split" | "hybrid")``, Freitag 2014 §2.3).

Oracles:

* Freitag 2014 §5.2, split rows: heat-1d (T=24, N=70, s^T=4, U=8, I=2,
  ``a_j = 10j``): 90 tiles, 224 real edges, longest path 12 = 2 phases x 6
  bands; 2-D 5-point hybrid (T=12, N=40x40, s^T=3, s^P=6, U=6, I=2): 308
  tiles, 1540 edges, longest path 17 (< 56 phases); claim 15 (in-band edges
  exactly ``U_j -> I_j`` and ``U_(j-1) -> I_j``, cross-band edges from band
  ``b-1`` to ``b`` only, ``U < 2 sigma (s^T - 1)`` rejected);
* the split graph equals a brute-force one built point by point from
  Freitag's definitions;
* differential execution: corpus stencils split- or hybrid-tiled (barrier
  phases or tasks) at several sizes, and a radius-2 stencil (slope 2), print
  exactly what the original prints with OMP_NUM_THREADS 1, 2, 4;
* refusals (Gauss-Seidel with its dependence named, no time loop, the shape
  constraint, hybrid in 1-D, bad sizes): the function is unchanged;
* legality comes from ``check_schedule``: a tiling with a wrong slope is
  refused there, naming a dependence.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import islpy as isl
import networkx as nx
import pytest
from conftest import CORPUS, skip_slow
from passman.passes.poly.split_tiling import (
    SplitShape,
    check_split_schedule,
    split_schedule,
    split_tile_graph,
    tile_map,
)
from passman.passes.poly.stencil_geometry import stencil_geometry
from stencil_runs import STENCILS, same_output

from passman import PassFailed, Workspace
from passman.builder import run
from passman.testing import reference_output

# ------------------------------------------------------------------------ Freitag §5.2, claim 15


def _heat_1d_graph(shape: SplitShape, steps: int = 24, n: int = 70) -> nx.DiGraph:
    dom = isl.Set(f"{{ S[t, x] : 1 <= t <= {steps} and 1 <= x <= {n - 2} }}")
    deps = isl.Map("{ S[t, x] -> S[t + 1, y] : -1 <= y - x <= 1 }")
    return split_tile_graph(dom, deps, isl.Map("{ S[t, x] -> [t, x] }"), shape)


def test_split_tile_graph_of_heat_1d_has_freitag_figures():
    g = _heat_1d_graph(SplitShape(height=4, slopes=(1,), widths=((8, 2),), origin=1))
    bands = len({b for b, _, _ in g.nodes})
    assert (g.number_of_nodes(), g.number_of_edges()) == (90, 224)
    assert nx.is_directed_acyclic_graph(g)
    assert nx.dag_longest_path_length(g) + 1 == 12 == 2 * bands


def test_split_tile_graph_has_claim_15_structure():
    g = _heat_1d_graph(SplitShape(height=4, slopes=(1,), widths=((8, 2),), origin=1))
    # tiles (band, kind, j): kind 0 upright U_j, 1 inverted I_j (between U_(j-1) and U_j)
    in_band = {(a[1], b[1], b[2] - a[2]) for a, b in g.edges if a[0] == b[0]}
    assert in_band == {(0, 1, 0), (0, 1, 1)}  # U_j -> I_j and U_(j-1) -> I_j, nothing else
    for a, b in g.edges:
        if a[0] != b[0]:
            assert b[0] == a[0] + 1
    across = {(a[1], b[1], b[2] - a[2]) for a, b in g.edges if a[0] != b[0]}
    # I_j -> U_j, I_(j+1) -> U_j; I_j -> I_j as I > 0; U_j -> U_j as U > 2 sigma (s^T - 1)
    assert {(1, 0, 0), (1, 0, -1), (1, 1, 0), (0, 0, 0)} <= across
    # every in-band pair U_j -> I_j with both tiles existing is an edge (checked, real)
    for b, kind, j in g.nodes:
        if kind == 1 and (b, 0, j) in g:
            assert g.has_edge((b, 0, j), (b, 1, j))


def _split_tile_by_hand(t: int, x: int, height: int, u: int, i: int, sigma: int = 1, origin: int = 1):
    """Freitag's definitions read literally: the band, then U_j or I_j (``a_j = j (U + I)``)."""
    band, r = divmod(t - origin, height)
    for j in range(-2, 70 // (u + i) + 3):
        a = j * (u + i)
        if a + sigma * r <= x < a + u - sigma * r:
            return (band, 0, j)
        if a - i - sigma * r <= x < a + sigma * r:
            return (band, 1, j)
    raise AssertionError(f"({t}, {x}) is in no tile")


@pytest.mark.parametrize("height, u, i", [(4, 8, 2), (4, 6, 0), (3, 7, 3)])
def test_split_tile_graph_equals_the_brute_force_graph(height, u, i):
    # claims 1, 3, 4: the tiles partition the grid, and the edges are exactly the real ones
    g = _heat_1d_graph(SplitShape(height=height, slopes=(1,), widths=((u, i),), origin=1))
    tile = {(t, x): _split_tile_by_hand(t, x, height, u, i) for t in range(1, 25) for x in range(1, 69)}
    edges = {(tile[t, x], tile[t + 1, y]) for (t, x) in tile for y in (x - 1, x, x + 1)
             if (t + 1, y) in tile and tile[t, x] != tile[t + 1, y]}  # fmt: skip
    assert set(g.nodes) == set(tile.values())
    assert set(g.edges) == edges


def test_upright_tiles_at_the_bound_have_no_upright_edge_across_bands():
    # U = 2 sigma (s^T - 1) exactly: the top row of an upright tile is empty, no U_j -> U_j edge
    g = _heat_1d_graph(SplitShape(height=4, slopes=(1,), widths=((6, 2),), origin=1))
    assert not any(a[0] != b[0] and a[1] == b[1] == 0 for a, b in g.edges)


def test_hybrid_tile_graph_of_2d_5_point_has_freitag_figures():
    dom = isl.Set("{ S[t, x, y] : 1 <= t <= 12 and 1 <= x <= 38 and 1 <= y <= 38 }")
    deps = isl.Map("{ S[t, x, y] -> S[t + 1, u, v] : (u = x and -1 <= v - y <= 1) or (v = y and -1 <= u - x <= 1) }")
    shape = SplitShape(height=3, slopes=(1, 1), widths=((6, 2),), parallelogram=6, origin=1)
    g = split_tile_graph(dom, deps, isl.Map("{ S[t, x, y] -> [t, x, y] }"), shape)
    phases = 2 * len({(b, p) for b, p, _, _ in g.nodes})
    assert (g.number_of_nodes(), g.number_of_edges()) == (308, 1540)
    assert nx.dag_longest_path_length(g) + 1 == 17 < phases == 56


@pytest.mark.parametrize("height, upright", [(4, 5), (3, 3), (2, 1)])
def test_a_split_shape_below_the_upright_bound_is_rejected(height, upright):
    with pytest.raises(ValueError, match=r"U=\d+ < 2\*sigma\*\(H-1\)"):
        SplitShape(height=height, slopes=(1,), widths=((upright, 2),))


def test_split_tiles_partition_the_instances():
    dom = isl.Set("{ S[t, x] : 1 <= t <= 24 and 1 <= x <= 68 }")
    coords = isl.UnionMap("{ S[t, x] -> [t, x] }").intersect_domain(isl.UnionSet(dom))
    tiles = tile_map(coords, SplitShape(height=4, slopes=(1,), widths=((8, 2),), origin=1))
    assert tiles.is_single_valued() and tiles.domain().is_equal(isl.UnionSet(dom))


# ------------------------------------------------------------------------ the pass: golden shape


def _skeleton(code: str) -> str:
    """The loop structure: ``if``, ``for``, pragmas and statements at their depth, bounds left out."""
    out = []
    for line in code.splitlines():
        text = line.strip()
        indent = " " * (len(line) - len(line.lstrip()))
        if text.startswith("for ("):
            out.append(indent + "for " + re.match(r"for \(int (c\d+)", text).group(1))
        elif text.startswith("if ("):
            out.append(indent + "if")
        elif text.startswith("#pragma") or re.match(r"[ab]\[c\d+\] =", text):
            out.append(indent + text.split(" = ")[0])
    return "\n".join(out) + "\n"


GOLDEN_JACOBI_1D = """\
    if
        for c0
            #pragma omp parallel for
            for c1
                for c2
                    for c3
                        b[c3]
                    for c3
                        a[c3]
            #pragma omp parallel for
            for c1
                for c2
                    for c3
                        b[c3]
                    for c3
                        a[c3]
"""


def test_split_jacobi_1d_has_the_golden_loop_structure():
    # bands (c0) of 4 time steps; upright tiles (c1, parallel), then inverted ones; in a tile
    # the original order: t (c2), b's loop, a's loop (c3)
    ws = Workspace(CORPUS / "jacobi_1d.c")
    module = ws["kernel_jacobi_1d"]
    module.time_tile(shape="split", schedule="static", tile_sizes="4,16,4")
    code = module.code
    assert _skeleton(code) == GOLDEN_JACOBI_1D
    assert "4 * c0 < tsteps" in code  # bands of 4 time steps
    assert "20 * c1 + 2 * c2 - 8 * c0" in code  # period U + I = 20, slope 1 per statement level


# ------------------------------------------------------------------------ differential


def _same_output(tmp_path: Path, name: str, extent: int | None = None, **options) -> Workspace:
    return same_output(tmp_path, name, extent, lambda kernel: kernel.time_tile(**options), opt="-O2")


CASES = [
    ("jacobi_1d", None, dict(shape="split", schedule="static", tile_sizes="4,16,4")),
    ("jacobi_1d", None, dict(shape="split", schedule="tasks", tile_sizes="4,16,4")),
    ("jacobi_1d", 1001, dict(shape="split", schedule="static", tile_sizes="8,30,0")),
    ("jacobi_1d", 777, dict(shape="split", schedule="tasks")),
    ("jacobi_2d", None, dict(shape="hybrid", schedule="static", tile_sizes="2,8,8,4")),
    ("jacobi_2d", 97, dict(shape="hybrid", schedule="tasks", tile_sizes="4,5,14,3")),
    ("jacobi_2d", 61, dict(shape="split", schedule="static", tile_sizes="2,8,4")),
    ("jacobi_2d_9pt", None, dict(shape="hybrid", schedule="static", tile_sizes="2,8,8,4")),
    ("jacobi_2d_9pt", 61, dict(shape="hybrid", schedule="tasks")),
    ("heat_3d", None, dict(shape="hybrid", schedule="static", tile_sizes="2,4,8,4")),
    ("heat_3d", 23, dict(shape="hybrid", schedule="tasks")),
    ("heat_3d", 19, dict(shape="split", schedule="static", tile_sizes="1,4,2")),
    ("fdtd_2d", None, dict(shape="hybrid", schedule="static", tile_sizes="2,8,16,4")),
    ("fdtd_2d", 57, dict(shape="hybrid", schedule="static", tile_sizes="1,3,6,1")),
    # isl generates the loop of a tile coordinate that takes one value away: its value goes into
    # the depend clauses (refused before: "the tile loops of c1, c2 were generated away")
    ("fdtd_2d", None, dict(shape="hybrid", schedule="tasks")),
    ("fdtd_2d", 57, dict(shape="hybrid", schedule="tasks", tile_sizes="1,3,6,1")),
]


#: cases of 5-6 s whose stencil and shape other cases cover at another size: with -m slow
SLOW_CASES = {("jacobi_2d_9pt", None), ("heat_3d", None)}


@pytest.mark.parametrize("name, extent, options", [
    pytest.param(*c, id=f"{c[0]}-{c[1]}-{c[2]['shape']}-{c[2]['schedule']}-{c[2].get('tile_sizes', 'model')}",
                 marks=pytest.mark.slow if c[:2] in SLOW_CASES else ()) for c in CASES])  # fmt: skip
def test_split_tiled_stencil_prints_what_the_original_prints(tmp_path, name, extent, options, request):
    skip_slow(request)
    ws = _same_output(tmp_path, name, extent, **options)
    code = ws[STENCILS[name][0]].code
    if options["schedule"] == "static":
        assert code.count("#pragma omp parallel for") >= 2  # the upright phase, then the inverted one
    else:
        assert code.count("#pragma omp task depend(in: ") >= 2 and "#pragma omp single" in code


def test_split_tasks_wait_for_the_real_tile_edges_only():
    # addresses 2j + kind (the band left out: a tile's out clause orders it after itself a band
    # before); U_j (2j) waits for I_(j+1), I_j of the band before; I_j (2j+1) for U_j, U_(j-1)
    ws = Workspace(CORPUS / "jacobi_1d.c")
    ws["kernel_jacobi_1d"].time_tile(shape="split", schedule="tasks", tile_sizes="4,16,4")
    tasks = [line.strip() for line in ws["kernel_jacobi_1d"].code.splitlines() if "omp task" in line]
    assert tasks == [
        "#pragma omp task depend(in: passman_tiles[((2 * c1 - -3) & 65535)], passman_tiles[((2 * c1 - -1) & 65535)])"
        " depend(out: passman_tiles[((2 * c1) & 65535)])",
        "#pragma omp task depend(in: passman_tiles[((2 * c1 + 1 - 1) & 65535)], passman_tiles[((2 * c1 + 1 - 3) & "
        "65535)]) depend(out: passman_tiles[((2 * c1 + 1) & 65535)])",
    ]


# ------------------------------------------------------------------------ refusals


@pytest.mark.parametrize("shape", ["split", "hybrid"])
def test_gauss_seidel_is_refused_with_the_dependence(shape):
    ws = Workspace(CORPUS / "seidel_2d.c")
    before = ws["kernel_seidel_2d"].code
    with pytest.raises(PassFailed, match=r"seidel_2d.c:\d+: no split tiling of loop t: flow dependence "
                                         r"A\[i\]\[j\] .* moves in space within one time step"):
        ws["kernel_seidel_2d"].time_tile(shape=shape)
    assert ws["kernel_seidel_2d"].code == before


def test_a_nest_without_time_loop_is_refused_and_left_unchanged():
    ws = Workspace(CORPUS / "gemm.c")
    module = next(m for m in ws.all_functions if "gemm" in m.name)
    before = module.code
    with pytest.raises(PassFailed, match="no time loop"):
        module.time_tile(shape="split")
    assert module.code == before


@pytest.mark.parametrize(("name", "options", "error"), [
    ("jacobi_1d", dict(shape="split", tile_sizes="4,13,2"), r"U=13 < 2\*sigma\*\(H-1\) = 2\*1\*\(8-1\) = 14"),
    ("jacobi_2d", dict(shape="split", tile_sizes="2,8,4,5,2"), r"split dimension 1: upright width U=5"),
    ("jacobi_1d", dict(shape="hybrid"), "hybrid split tiling needs two space dimensions"),
    ("jacobi_2d", dict(shape="hybrid", tile_sizes="2,0,8,4"), "parallelogram width"),
    ("jacobi_1d", dict(shape="split", tile_sizes="0,16,4"), "band height 0"),
    ("jacobi_1d", dict(shape="split", tile_sizes="4,-16"), "must not be negative"),
])  # fmt: skip
def test_bad_split_sizes_are_refused_and_the_function_unchanged(name, options, error):
    ws = Workspace(CORPUS / f"{name}.c")
    module = ws[STENCILS[name][0]]
    before = module.code
    with pytest.raises(PassFailed, match=error):
        module.time_tile(**options)
    assert module.code == before


def test_a_wrong_slope_is_caught_by_check_schedule():
    # slope 0 claims the dependences stay in their column: the split schedule is then illegal
    ws = Workspace(CORPUS / "jacobi_1d.c")
    module = ws["kernel_jacobi_1d"]
    part = module.resource("scops")[0]
    deps = [d for d in module.resource("dependences").of_scop(part) if not d.relation.is_empty()]
    geometry = stencil_geometry(part, deps)
    assert (geometry.levels, geometry.slopes) == (2, (1,))
    wrong = SplitShape(height=8, slopes=(0,), widths=((4, 4),))
    tree = split_schedule(part, tile_map(geometry.coordinates, wrong), wrong)
    with pytest.raises(PassFailed, match=r"jacobi_1d.c:\d+: .*dependence"):
        check_split_schedule(part, deps, tree)


WIDE_1D = """
#include <stdio.h>
#define T 37
#define N 500
double a[N], b[N];
static void kernel(int tsteps, int n)
{
    for (int t = 0; t < tsteps; t++) {
        for (int i = 2; i < n - 2; i++)
            b[i] = 0.2 * (a[i - 2] + a[i - 1] + a[i] + a[i + 1] + a[i + 2]);
        for (int i = 2; i < n - 2; i++)
            a[i] = b[i] + 0.5 * b[i - 1];
    }
}
int main(void)
{
    double s = 0.0;
    for (int i = 0; i < N; i++) {
        a[i] = (double)(i % 17) / N;
        b[i] = 0.0;
    }
    kernel(T, N);
    for (int i = 0; i < N; i++)
        s += a[i] * (i % 5 + 1);
    printf("%.10e\\n", s);
    return 0;
}
"""


@pytest.mark.parametrize("schedule", ["static", "tasks"])
def test_a_wider_stencil_gets_its_slope_and_its_constraint(tmp_path, schedule):
    # radius 2 then radius 1: slope 2 per statement level; H = 2 * 3 = 6, so U >= 2 * 2 * 5 = 20
    src = tmp_path / "wide.c"
    src.write_text(WIDE_1D)
    ws = Workspace(src)
    module = ws["kernel"]
    part = module.resource("scops")[0]
    deps = [d for d in module.resource("dependences").of_scop(part) if not d.relation.is_empty()]
    assert stencil_geometry(part, deps).slopes == (2,)
    before = module.code
    with pytest.raises(PassFailed, match=r"U=19 < 2\*sigma\*\(H-1\) = 2\*2\*\(6-1\) = 20"):
        module.time_tile(shape="split", schedule=schedule, tile_sizes="3,19,3")
    assert module.code == before
    module.time_tile(shape="split", schedule=schedule, tile_sizes="3,20,3")
    built = ws.build("openmp", tmp_path / "out", opt="-O2")
    ref = reference_output([src])
    for threads in (1, 2, 4):
        got = run(built.binary, env={**os.environ, "OMP_NUM_THREADS": str(threads)}, timeout=60)
        assert got.returncode == 0 and got.stdout == ref.stdout, f"{threads} threads"
