"""The dimension-lifted transpose of a stencil's arrays (``dlt``, Henretty et al. 2011; Freitag 2014 §2.3).

Oracles:

* differential execution: the corpus stencils at their sizes and odd ones
  (lanes of unequal use, tiny grids, no time step), vector lengths 2, 3 and
  4, sequential and with one OpenMP region (1, 2 and 4 threads), print
  exactly what the original prints (every point keeps its expression and
  inputs: bit-identical);
* the layout itself: ``pos(i)`` is a bijection of ``[0, E)`` into the copy,
  and the neighbours ``i +- c`` of an interior point sit ``c * V`` away;
* refusals, the function unchanged: a sweep carrying a dependence
  (Gauss-Seidel), a call in the time loop, an array passed whole, an access
  that may leave the declared extents, a bad vector length;
* golden lines of jacobi-1d's vector loop.
"""

from __future__ import annotations

import pytest
from conftest import CORPUS
from stencil_runs import STENCILS, program_same_output, same_output

from passman import PassFailed, Workspace

CASES = [
    ("jacobi_1d", None, 2), ("jacobi_1d", 1001, 2), ("jacobi_1d", 7, 3), ("jacobi_1d", 3, 4),
    ("jacobi_1d", {"N": 9, "TSTEPS": 0}, 2),
    ("jacobi_2d", None, 2), ("jacobi_2d", 33, 4),
    ("jacobi_2d_9pt", 17, 2), ("heat_3d", 11, 3), ("fdtd_2d", 29, 2),
]


@pytest.mark.parametrize("name, sizes, vector", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}".replace(" ", "") for c in CASES])
def test_transposed_stencil_prints_what_the_original_prints(tmp_path, name, sizes, vector):
    ws = same_output(tmp_path, name, sizes, lambda kernel: kernel.dlt(vector=vector), threads=(1,))
    assert "passman_dlt_" in ws[STENCILS[name][0]].code


PARALLEL = [("jacobi_1d", None), ("jacobi_1d", 1001), ("jacobi_2d", 33), ("fdtd_2d", 29), ("heat_3d", 11)]


@pytest.mark.parametrize("name, sizes", PARALLEL, ids=[f"{c[0]}-{c[1]}" for c in PARALLEL])
def test_one_region_around_the_time_loop_prints_the_same_at_1_2_4_threads(tmp_path, name, sizes):
    ws = same_output(tmp_path, name, sizes, lambda kernel: kernel.dlt(parallel=True))
    code = ws[STENCILS[name][0]].cu.code
    assert "#pragma omp parallel\n" in code and "#pragma omp barrier" in code or "#pragma omp for" in code, code


BOUNDARY = """
#include <stdio.h>
#define T 23
#define N 157
double u[N], v[N];
static int kernel(int steps)
{
    int t, i;
    for (t = 0; t < steps; t++) {
        u[0] = u[1] + 1.0;
        for (i = 2; i < N - 3; i++)
            v[i] = 0.25 * (u[i - 2] + u[i + 3]) + 0.5 * u[i];
        for (i = 5; i <= N - 6; i++)
            u[i] = 0.5 * (v[i - 1] + v[i + 1]) - 0.125 * v[i];
        u[N - 1] = v[N - 4] * 0.5;
    }
    return i;
}
int main(void)
{
    double s = 0.0;
    for (int i = 0; i < N; i++) {
        u[i] = (double)(i % 13) / 7.0;
        v[i] = (double)(i % 5);
    }
    int last = kernel(T);
    for (int i = 0; i < N; i++)
        s += u[i] * (i + 1) + v[i];
    printf("%d %.15e\\n", last, s);
    return 0;
}
"""


@pytest.mark.parametrize("vector, n", [(2, 157), (4, 157), (5, 157), (4, 9), (3, 9)])
def test_sub_ranges_uneven_offsets_boundary_updates_and_the_index_after(tmp_path, vector, n):
    # sweeps over [2, n-3) and [5, n-5] with offsets -2..+3, boundary statements through pos(), and
    # the sweep index returned after the time loop; with 9 points, lanes of 2 or 3: offsets that
    # cross more than one lane
    ws = program_same_output(tmp_path, "boundary.c", BOUNDARY.replace("#define N 157", f"#define N {n}"),
                             "kernel", lambda kernel: kernel.dlt(vector=vector), threads=(1,))
    code = ws["kernel"].cu.code
    assert code.count("_dlt_sweep(") >= 2 or code.count("passman_q - ") >= 1, code


def test_other_counted_spellings_of_a_sweep_are_transposed(tmp_path):
    # `N - 3 > i`, `i = i + 1`, `i = 1 + i`, `i <= N - 6`: the spellings of counted_header, all OpenMP's
    text = (BOUNDARY.replace("for (i = 2; i < N - 3; i++)", "for (i = 2; N - 3 > i; i = i + 1)")
            .replace("for (i = 5; i <= N - 6; i++)", "for (i = 5; N - 6 >= i; i = 1 + i)"))
    assert "N - 3 > i" in text and "i = 1 + i" in text
    ws = program_same_output(tmp_path, "spellings.c", text, "kernel", lambda k: k.dlt(vector=2))
    assert ws["kernel"].cu.code.count("_dlt_sweep") >= 2


MIXED = """
#include <stdio.h>
#define T 13
#define N 61
double A[N][N], B[N][N], a[N], b[N];
static void kernel(int steps)
{
    int t, i, j;
    for (t = 0; t < steps; t++) {
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < N - 1; j++)
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i - 1][j] + A[i + 1][j]);
        for (i = 1; i < N - 1; i++)
            for (j = N - 2; j >= 1; j--)
                A[i][j] = B[i][j] * 0.5 + B[i - 1][j] * 0.25 + A[0][j] * 0.001;
        for (i = 1; i < N - 1; i++)
            b[i] = a[i - 1] + a[i + 1] + a[3] * 0.5;
        for (i = 1; i < N - 1; i++)
            a[i] = 0.5 * b[i] + B[i][i] * 0.01;
    }
}
int main(void)
{
    double s = 0.0;
    for (int i = 0; i < N; i++) {
        a[i] = (double)(i % 7);
        for (int j = 0; j < N; j++)
            A[i][j] = (double)((i * 7 + j * 3) % 11) / 5.0;
    }
    kernel(T);
    for (int i = 0; i < N; i++) {
        s += a[i] + 2 * b[i];
        for (int j = 0; j < N; j++)
            s += A[i][j] * (i + 1) + B[i][j];
    }
    printf("%.15e\\n", s);
    return 0;
}
"""


def test_inner_indices_private_decreasing_and_constant_subscripts_keep_the_original_order(tmp_path):
    # the decreasing j loop is no sweep (its j private where the i loop is shared out), a[3] is not
    # along i (that sweep reads pos() in order), B[i][i] is read through pos()
    ws = program_same_output(tmp_path, "mixed.c", MIXED, "kernel", lambda kernel: kernel.dlt(parallel=True))
    assert "#pragma omp for schedule(static) private(j)" in ws["kernel"].cu.code


def test_the_layout_is_a_bijection_and_keeps_neighbours_one_vector_apart():
    def pos(i: int, m: int, v: int) -> int:
        return i % m * v + i // m

    for extent in (1, 2, 7, 8, 100, 101):
        for v in (2, 3, 4):
            m = (extent + v - 1) // v
            places = [pos(i, m, v) for i in range(extent)]
            assert len(set(places)) == extent and all(0 <= p < m * v for p in places)
            for i in range(extent):
                for c in (-2, -1, 1, 2):
                    if 0 <= i % m + c < m and 0 <= i + c < extent:
                        assert pos(i + c, m, v) == pos(i, m, v) + c * v


def test_jacobi_1d_vector_loop_has_the_golden_lines():
    ws = Workspace(CORPUS / "jacobi_1d.c")
    ws["kernel_jacobi_1d"].dlt()
    lines = [line.strip() for line in ws["kernel_jacobi_1d"].cu.code.splitlines()]
    for golden in [
        "static void kernel_jacobi_1d_dlt_sweep(long passman_q0, long passman_q1, double *restrict passman_p0, "
        "double *restrict passman_p1)",
        "#pragma GCC unroll 8",
        "passman_p1[passman_q] = 0.33333 * (passman_p0[passman_q - 2] + passman_p0[passman_q] + "
        "passman_p0[passman_q + 2]);",
        "long passman_dlt_m_a = ((long)n + 1) / 2;",
        "if (passman_dlt_a != NULL && passman_dlt_b != NULL && n >= 1) {",
        "kernel_jacobi_1d_dlt_sweep(passman_klo * 2, passman_khi * 2, passman_dlt_a, passman_dlt_b);",
        "free(passman_dlt_a);",
    ]:
        assert golden in lines, golden


REFUSED = {
    "call": ("""
static double sq(double x) { return x * x; }
void k(int steps, int n, double a[n], double b[n])
{
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
            b[i] = sq(a[i - 1]) + a[i + 1];
        for (int i = 1; i < n - 1; i++)
            a[i] = b[i];
    }
}
""", "calls sq, which may read the arrays"),
    "whole": ("""
double a[100], b[100];
void k(int steps)
{
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < 99; i++)
            b[i] = a[i - 1] + a[i + 1] + sizeof(a);
        for (int i = 1; i < 99; i++)
            a[i] = b[i];
    }
}
""", "a is used other than as an element"),
    "outside": ("""
void k(int steps, int n, double a[n], double b[n])
{
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n; i++)
            b[i] = a[i - 1] + a[i + 1];
        for (int i = 1; i < n - 1; i++)
            a[i] = b[i];
    }
}
""", "may leave the declared extents of a"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refusals_leave_the_function_unchanged(tmp_path, case):
    text, reason = REFUSED[case]
    src = tmp_path / f"{case}.c"
    src.write_text(text)
    ws = Workspace(src)
    before = ws["k"].code
    with pytest.raises(PassFailed, match=reason):
        ws["k"].dlt()
    assert ws["k"].code == before


def test_gauss_seidel_is_refused_with_its_dependence(tmp_path):
    ws = Workspace(CORPUS / "seidel_2d.c")
    before = ws["kernel_seidel_2d"].code
    with pytest.raises(PassFailed, match=r"loop j carries a dependence: A\[i\]\[j\] written"):
        ws["kernel_seidel_2d"].dlt()
    assert ws["kernel_seidel_2d"].code == before


@pytest.mark.parametrize("vector", [1, 17])
def test_a_vector_length_out_of_range_is_refused(vector):
    ws = Workspace(CORPUS / "jacobi_1d.c")
    before = ws["kernel_jacobi_1d"].code
    with pytest.raises(PassFailed, match="not between 2 and 16"):
        ws["kernel_jacobi_1d"].dlt(vector=vector)
    assert ws["kernel_jacobi_1d"].code == before
