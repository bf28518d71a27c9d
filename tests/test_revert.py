"""``revert_function`` (passes/scalar/revert.py) and the OpenMP recipe's use of it on sequential programs."""

from __future__ import annotations

import pytest
from conftest import CORPUS

from passman import PassFailed, Workspace
from passman.recipe import load_recipe
from passman.testing import assert_same_output

SUMS = r"""
#include <stdio.h>
#define N 1000
static double x[N], y[N];
static int scale(int n, double a)
{
    for (int i = 0; i < n; i++) {
        x[i] = a * i;
        y[i] = y[i] + x[i] / 2;
    }
    return n;
}
int main(void)
{
    for (int i = 0; i < N; i++)
        y[i] = i % 7;
    scale(N, 1.5);
    double s = 0;
    for (int i = 0; i < N; i++)
        s += x[i] + y[i];
    printf("%.3f\n", s);
    return 0;
}
"""


def test_a_function_goes_back_as_its_file_defines_it(write_c):
    ws = Workspace(write_c(SUMS, "sums.c"))
    scale = ws["scale"]
    before = scale.code
    scale.loops()[0].unroll(2)
    assert scale.code != before
    scale.revert_function()
    assert scale.code == before
    assert "revert_function@scale" in ws.history.pipeline()
    # the history replays to the same code
    again = Workspace(write_c(SUMS, "sums.c"))
    again.apply(ws.history.pipeline())
    assert again["scale"].code == before
    assert_same_output([write_c(SUMS, "sums.c")], ws)
    # the unit prints it as the user wrote it
    text = next(cu.code for cu in ws.compilation_units if not cu.is_stub)
    assert "        x[i] = a * i;\n        y[i] = y[i] + x[i] / 2;" in text


def test_refusals_leave_the_function_as_it_is(write_c):
    ws = Workspace(write_c(SUMS, "sums.c"))
    with pytest.raises(PassFailed, match="changed nothing"):
        ws["scale"].revert_function()
    with pytest.raises(PassFailed, match="library model"):
        ws["printf"].revert_function()


VLA = r"""
#include <stdio.h>
#define N 100
static double A[N][N];
static void fill(int n, double a[n][n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i][j] = i - j;
}
int main(void)
{
    fill(N, A);
    printf("%.1f\\n", A[3][5]);
    return 0;
}
"""


def test_sizes_propagated_into_array_parameters_are_reverted_too(write_c):
    """Constants propagated into an array parameter's type (``double a[100][100]``) change nothing a
    call passes: the function goes back whole, signature included."""
    ws = Workspace(write_c(VLA, "vla.c"))
    before = ws["fill"].code
    ws["fill"].propagate_constant_arguments()
    assert "double a[100][100]" in ws["fill"].code
    ws["fill"].revert_function()
    assert ws["fill"].code == before
    assert_same_output([write_c(VLA, "vla.c")], ws)


def test_a_changed_signature_is_refused(write_c):
    """linearize_array gives fill a pointer parameter and changes its callers: refused, unchanged."""
    ws = Workspace(write_c(VLA, "vla.c"))
    ws["fill"].linearize_array()
    code = ws["fill"].code
    assert "double *a" in code
    with pytest.raises(PassFailed, match="signature of fill changed"):
        ws["fill"].revert_function()
    assert ws["fill"].code == code


def test_a_sequential_program_keeps_tiles_and_loses_the_rest():
    """fdtd_2d stays sequential: its main, whose three sums isl had split into three nests for the
    regions since removed, is the user's again; seidel_2d's time tiles, which pay on one thread, stay."""
    ws = Workspace(str(CORPUS / "fdtd_2d.c"))
    original = ws["main"].code
    load_recipe("openmp").main(ws, program_work=10**9)  # sequential whatever this machine's team start-up
    assert ws["main"].code == original
    assert "#pragma omp" not in "".join(cu.code for cu in ws.compilation_units if not cu.is_stub)
    assert_same_output([CORPUS / "fdtd_2d.c"], ws)
    ws = Workspace(str(CORPUS / "seidel_2d.c"))
    original = ws["kernel_seidel_2d"].code
    load_recipe("openmp").main(ws, program_work=10**9)
    code = ws["kernel_seidel_2d"].code
    assert code != original and "for (int c3" in code and "#pragma omp" not in code


def test_a_function_calling_a_trapezoidal_walk_keeps_it():
    """The walk's loops moved into the functions the scheduler created: the caller's own loops are
    fewer than the user's, and it is not reverted (its call to the walk stays)."""
    ws = Workspace(str(CORPUS / "jacobi_1d.c"))
    load_recipe("openmp").main(ws, program_work=10**9, time_tiling="trapezoid")
    kernel = ws["kernel_jacobi_1d"]
    created = [m.name for m in kernel.callees if not m.is_stub]
    assert created, kernel.code  # the walk
    assert_same_output([CORPUS / "jacobi_1d.c"], ws)
