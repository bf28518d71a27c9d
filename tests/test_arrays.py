"""Scalarization and privatize (passes/parallel/privatize.py), with fusion: shapes, differential runs, refusals."""

from __future__ import annotations

import pytest
from conftest import CORPUS

from passman import PassFailed, Workspace
from passman.testing import assert_same_output, expect

O0 = {"cflags": ["-O0"]}

MATMUL = """
#include <stdio.h>
#define N 40
static double A[N][N], B[N][N], C[N][N];
void matmul(int n, double A[n][n], double B[n][n], double C[n][n])
{
    int i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            C[i][j] = 0;
            for (k = 0; k < n; k++)
                C[i][j] += A[i][k] * B[k][j];
        }
}
int main(void)
{
    double s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = (i * j + 1) % 7;
            B[i][j] = (i + 2 * j) % 5;
        }
    matmul(N, A, B, C);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += C[i][j] * (i + j);
    printf("%g\\n", s);
    return 0;
}
"""

# three 2-D nests: t1 and t2 are temporaries consumed by the next nest (Amini 2012, Fig. 4.10/4.21)
THREE_NESTS = """
#include <stdio.h>
#define N 50
static double a[N][N], c[N][N];
void kernel(int n, double a[n][n], double c[n][n])
{
    double t1[N][N], t2[N][N];
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            t1[i][j] = a[i][j] * 2.0;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            t2[i][j] = t1[i][j] + 3.0;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            c[i][j] = t1[i][j] * t2[i][j];
}
int main(void)
{
    double s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = (i * 3 + j) % 11;
    kernel(N, a, c);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += c[i][j] * (i + 1);
    printf("%g\\n", s);
    return 0;
}
"""


def test_scalarization_of_a_matrix_product_accumulator(write_c):
    src = write_c(MATMUL)
    ws = Workspace(src)
    ws["matmul"].scalarization()
    expect(ws["matmul"].code, """
        void matmul(int n, double A[n][n], double B[n][n], double C[n][n])
        {
            int i;
            int j;
            int k;
            for (i = 0; i < n; i++)
                for (j = 0; j < n; j++) {
                    double scal_C;
                    scal_C = 0;
                    for (k = 0; k < n; k++)
                        scal_C += A[i][k] * B[k][j];
                    C[i][j] = scal_C;
                }
        }
    """)
    assert_same_output([src], ws, **O0)


def test_fusion_then_scalarization_contracts_two_temporaries(write_c):
    src = write_c(THREE_NESTS)
    ws = Workspace(src)
    k = ws["kernel"]
    first = k.loops()[0]
    for _ in range(2):  # fuse the outer loops, then the inner ones
        first.loop_fusion()
        first.loops()[0].loop_fusion()
    assert len(k.loops()) == 1 and len(first.loops()) == 1
    k.scalarization()
    expect(k.code, """
        void kernel(int n, double a[n][n], double c[n][n])
        {
            double t1[50][50];
            double t2[50][50];
            int i;
            int j;
            for (i = 0; i < n; i++) {
                for (j = 0; j < n; j++) {
                    double scal_t2;
                    double scal_t1;
                    scal_t1 = a[i][j] * 2.0;
                    scal_t2 = scal_t1 + 3.0;
                    c[i][j] = scal_t1 * scal_t2;
                }
            }
        }
    """)
    assert_same_output([src], ws, **O0)


def test_scalarization_refuses_to_break_a_perfect_parallel_nest(write_c):
    src = write_c("""
        double A[64][64], u1[64], u2[64];
        void f(int n)
        {
            int i, j;
            for (i = 0; i < n; i++)
                for (j = 0; j < n; j++) {
                    A[i][j] += u1[i] + u2[i];
                    A[i][j] *= u1[i];
                }
        }
    """)
    ws = Workspace(src)
    before = ws["f"].code
    with pytest.raises(PassFailed, match="perfect parallel nest"):
        ws["f"].scalarization()
    assert ws["f"].code == before
    ws["f"].scalarization(break_perfect_nest=True)
    assert "scal_u1" in ws["f"].code


def test_scalarization_keeps_live_elements(write_c):
    src = write_c("""
        double a[100], b[100];
        void f(int n)
        {
            int i, k;
            for (i = 0; i < n; i++) {
                for (k = 0; k < n; k++)
                    a[i] += b[k];
            }
        }
    """)
    ws = Workspace(src)
    ws["f"].scalarization()
    code = ws["f"].code
    assert "double scal_a = a[i];" in code and "a[i] = scal_a;" in code


@pytest.mark.parametrize("name,func", [("gemm", "kernel_gemm"), ("two_mm", "kernel_2mm"),
                                       ("covariance", "kernel_covariance"), ("atax", "kernel_atax"),
                                       ("bicg", "kernel_bicg"), ("gemver", "kernel_gemver")])
def test_scalarization_corpus(name, func):
    src = CORPUS / f"{name}.c"
    ws = Workspace(src)
    try:
        ws[func].scalarization()
    except PassFailed:
        pass
    assert_same_output([src], ws, **O0)


def test_scalarization_two_mm_changes_code():
    src = CORPUS / "two_mm.c"
    ws = Workspace(src)
    ws["kernel_2mm"].scalarization()
    assert "scal_tmp" in ws["kernel_2mm"].code and "scal_D_" in ws["kernel_2mm"].code
    assert_same_output([src], ws, **O0)


# -- privatize ------------------------------------------------------------------------


def test_privatize_moves_declarations(write_c):
    src = write_c("""
        #include <stdio.h>
        double a[100], b[100];
        void f(int n)
        {
            int i;
            double t;
            for (i = 0; i < n; i++) {
                t = a[i] * 2;
                b[i] = t + t;
            }
        }
        int main(void)
        {
            for (int i = 0; i < 100; i++) a[i] = i;
            f(100);
            printf("%g\\n", b[7] + b[99]);
            return 0;
        }
    """)
    ws = Workspace(src)
    ws["f"].loops()[0].privatize()
    expect(ws["f"].code, """
        void f(int n)
        {
            int i;
            for (i = 0; i < n; i++) {
                double t;
                t = a[i] * 2;
                b[i] = t + t;
            }
        }
    """)
    assert_same_output([src], ws, **O0)


def test_privatize_refuses_without_private_scalar(write_c):
    src = write_c("""
        double a[100];
        double f(int n)
        {
            int i;
            double s = 0;
            for (i = 0; i < n; i++)
                s += a[i];
            return s;
        }
    """)
    ws = Workspace(src)
    before = ws["f"].code
    with pytest.raises(PassFailed, match="nothing to privatize"):
        ws["f"].loops()[0].privatize()
    assert ws["f"].code == before


def test_privatize_keeps_the_index_of_a_decreasing_loop_outside(write_c):
    """Regression (sweep): ``for (i = n - 1; i >= 0; --i)`` got ``int i;`` in its own body."""
    src = write_c("""
        #include <stdio.h>
        int a[100], b[100];
        void f(int n)
        {
            int i, j, t;
            for (i = n - 1; i >= 0; --i) {
                t = a[i] * 2;
                for (j = 0; j < 3; j++)
                    b[i] += t + j;
            }
        }
        int main(void)
        {
            for (int i = 0; i < 100; i++) a[i] = i;
            f(100);
            printf("%d %d\\n", b[7], b[99]);
            return 0;
        }
    """)
    ws = Workspace(src)
    ws["f"].loops()[0].privatize()
    code = ws["f"].code
    assert "for (i = n - 1; i >= 0; --i) {\n        int j;\n        int t;\n" in code, code
    assert "int i;\n" in code.split("for")[0]
    assert_same_output([src], ws, **O0)
