"""The ``mlsor`` recipe: Di 2013 ch. 6's multi-layer SOR, opt-in, checked by the residual (issue 18 item 4).

MLSOR reorders the updates of SOR sweeps (it does not preserve their
dependences), so the oracle is not the original output but the solver's
quality: on ``sor_2d.c`` the residual after a fixed number of sweeps stays
within a small factor of the sequential one, and the tolerance is reached in
a comparable number of sweeps. The four phases are race-free, so the output
is the same at 1, 2 and 4 threads. Nests that are not in-place 2-D sweeps
are refused, the workspace unchanged.
"""

from __future__ import annotations

import re
from functools import cache

import pytest
from conftest import CORPUS
from test_openmp import run_threads

from passman import InvalidInput, PassFailed, Workspace
from passman.recipe import load_recipe
from passman.testing import reference_output

MLSOR = load_recipe("mlsor")


@cache
def reordered(size: int) -> Workspace:
    """``sor_2d.c`` after the recipe (shared: do not modify it)."""
    ws = Workspace(str(CORPUS / "sor_2d.c"))
    MLSOR.main(ws, size=size)
    return ws


def numbers(output: str) -> tuple[float, int, float]:
    """Residual after the fixed sweeps, sweeps to the tolerance, final residual."""
    fixed = float(re.search(r"after \d+ sweeps (\S+)", output).group(1))
    m = re.search(r"reached after (\d+) sweeps (\S+)", output)
    return fixed, int(m.group(1)), float(m.group(2))


@pytest.mark.parametrize("size", [32, 16])
def test_the_residual_stays_close_to_the_sequential_one_at_1_2_4_threads(size, tmp_path):
    ref = reference_output([CORPUS / "sor_2d.c"])
    fixed, sweeps, final = numbers(ref.stdout)
    built = reordered(size).build("openmp", tmp_path / "out", opt="-O2")
    outputs = set()
    for threads in (1, 2, 4):
        got = run_threads(built.binary, threads)
        assert got.returncode == 0, got.stderr
        outputs.add(got.stdout)
    assert len(outputs) == 1, f"the phases race: {outputs}"  # deterministic for any number of threads
    out = outputs.pop()
    assert out != ref.stdout  # the order did change
    got_fixed, got_sweeps, got_final = numbers(out)
    assert fixed < got_fixed < 2 * fixed, (out, ref.stdout)
    assert sweeps <= got_sweeps <= 1.5 * sweeps, (out, ref.stdout)
    assert got_final <= 1e-6 * 9.2 * 1.01  # the tolerance (relative to the initial residual 9.2) is met


GOLDEN = """\
    for (t = 0; t < sweeps; t += sweeps - t < 8 ? sweeps - t : 8) {
        const long layers = sweeps - t < 8 ? sweeps - t : 8;
        for (long phase = 0; phase < 4; phase++) {
            #pragma omp parallel for collapse(2) schedule(static) private(i, j)
            for (long si = 0; si < (n - 1 - 1 + 15) / 16; si++)
                for (long sj = 0; sj < (n - 1 - 1 + 15) / 16; sj++)
                    for (long k = 0; k < layers; k++) {
                        const long i_cut = si == 0 ? 1 : 1 + 16 * si + k < n - 1 ? 1 + 16 * si + k : n - 1;
                        const long i_mid = 1 + 16 * si + 15 - k < n - 1 ? 1 + 16 * si + 15 - k : n - 1;
                        const long i_next = 1 + 16 * si + 16 + k < n - 1 ? 1 + 16 * si + 16 + k : n - 1;
                        const long j_cut = sj == 0 ? 1 : 1 + 16 * sj + k < n - 1 ? 1 + 16 * sj + k : n - 1;
                        const long j_mid = 1 + 16 * sj + 15 - k < n - 1 ? 1 + 16 * sj + 15 - k : n - 1;
                        const long j_next = 1 + 16 * sj + 16 + k < n - 1 ? 1 + 16 * sj + 16 + k : n - 1;
                        for (i = phase < 2 ? i_cut : i_mid; i < (phase < 2 ? i_mid : i_next); i++)
                            for (j = phase % 2 == 0 ? j_cut : j_mid; j < (phase % 2 == 0 ? j_mid : j_next); j++)
                                u[i][j] = (1.0 - omega) * u[i][j] + omega * 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - f[i][j]);
                    }
        }
    }
"""


def test_golden_text_of_the_reordered_loops():
    code = reordered(16)["kernel_sor_2d"].code
    assert GOLDEN in code, code


def test_nine_point_gauss_seidel_is_recognized_and_the_tile_loop_is_parallel():
    ws = Workspace(str(CORPUS / "seidel_2d.c"))
    done = MLSOR.main(ws, size=8, layers=2)
    assert done.transformed == ["kernel_seidel_2d/l3"], done
    code = ws["kernel_seidel_2d"].code
    assert "#pragma omp parallel for collapse(2)" in code and "t += tsteps - t < 2 ? tsteps - t : 2" in code, code


NOT_SOR = {
    "two arrays (Jacobi)": ("B[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);",
                            "no read of B[i - 1][j] (not an in-place 5-point sweep)"),
    "a far neighbour": ("A[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 2]);",
                        "reads A[i][j + 2], not a nearest neighbour of A[i][j]"),
    "the time index": ("A[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]) + t;",
                       "the statement uses the time index t"),
    "transposed": ("A[j][i] = 0.25 * (A[j - 1][i] + A[j + 1][i] + A[j][i - 1] + A[j][i + 1]);",
                   "the statement is not an assignment to a[i][j]"),
}

PROGRAM = """\
double A[40][40], B[40][40];
int kernel(int steps, int n)
{{
    int t, i, j;
    for (t = 0; t < steps; t++)
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                {statement}
    return {result};
}}
"""


@pytest.mark.parametrize("case", sorted(NOT_SOR))
def test_other_nests_are_refused_with_a_reason_and_the_workspace_unchanged(case, tmp_path):
    statement, reason = NOT_SOR[case]
    path = tmp_path / "kernel.c"
    path.write_text(PROGRAM.format(statement=statement, result="t"))
    ws = Workspace(str(path))
    before = ws["kernel"].code
    with pytest.raises(PassFailed, match=re.escape(reason)):
        MLSOR.main(ws)
    assert ws["kernel"].code == before


def test_an_index_read_after_the_nest_is_refused(tmp_path):
    path = tmp_path / "kernel.c"
    sweep = "A[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);"
    path.write_text(PROGRAM.format(statement=sweep, result="i"))
    ws = Workspace(str(path))
    with pytest.raises(PassFailed, match="index i is read after the nest"):
        MLSOR.main(ws)
    path.write_text(PROGRAM.format(statement=sweep, result="t"))  # t keeps its final value: accepted
    assert MLSOR.main(Workspace(str(path))).transformed == ["kernel/l1"]


def test_a_program_without_a_sweep_is_refused_unchanged():
    ws = Workspace(str(CORPUS / "jacobi_2d.c"))
    before = {m.name: m.code for m in ws.all_functions}
    with pytest.raises(PassFailed, match="no SOR sweep to reorder"):
        MLSOR.main(ws)
    assert {m.name: m.code for m in ws.all_functions} == before


@pytest.mark.parametrize("options", [{"size": 8, "layers": 5}, {"size": 1}, {"size": 16, "layers": -1}])
def test_bad_sizes_are_refused(options):
    ws = Workspace(str(CORPUS / "sor_2d.c"))
    with pytest.raises(InvalidInput, match="size"):
        MLSOR.main(ws, **options)


def test_the_tiles_partition_the_layers_and_a_phase_has_no_race_exactly_up_to_half_the_size():
    for size in (2, 3, 8, 16, 32):
        for layers in range(1, size // 2 + 1):
            MLSOR.check_tiling(size, layers)  # raises if not
    with pytest.raises(InvalidInput, match="do not partition"):
        MLSOR.check_tiling(8, 5)
    with pytest.raises(InvalidInput, match="touch the same point"):
        MLSOR.check_tiling(3, 2)


def test_a_time_loop_inside_a_convergence_loop_is_recognized(tmp_path):
    path = tmp_path / "kernel.c"
    path.write_text("""\
double A[40][40];
int kernel(int n, double tol)
{
    int c = 0;
    double r = 1.0;
    while (r > tol && c < 100) {
        for (int k = 0; k < 3; k++)
            for (int t = 0; t < 8; t++)
                for (int i = 1; i < n - 1; i++)
                    for (int j = 1; j < n - 1; j++)
                        A[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
        r = A[1][1] - A[2][2];
        c += 24;
    }
    return c;
}
""")
    ws = Workspace(str(path))
    assert len(MLSOR.main(ws, size=8).transformed) == 1
    assert "for (int k = 0; k < 3; k++)\n" in ws["kernel"].code and "for (long phase" in ws["kernel"].code
