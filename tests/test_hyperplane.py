"""loop_hyperplane (passes/loops/hyperplane.py): wavefronts, triangular bands, refusals, differential runs."""

from __future__ import annotations

import islpy as isl
import pytest
from conftest import CORPUS
from passman.passes.loops.hyperplane import unimodular_completion

from passman import PassFailed, Workspace
from passman.testing import assert_same_output, expect

O0 = {"cflags": ["-O0"]}

GAUSS_SEIDEL = """
#include <stdio.h>
#define N 30
static double A[N][N];
void gs(int n, double A[n][n])
{
    int i, j;
    for (i = 1; i < n - 1; i++)
        for (j = 1; j < n - 1; j++)
            A[i][j] = (A[i - 1][j] + A[i][j - 1] + A[i][j] + A[i][j + 1] + A[i + 1][j]) / 5;
}
int main(void)
{
    double s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = (i * 7 + j * 3) % 11;
    gs(N, A);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[i][j] * (i + 1);
    printf("%.6f\\n", s);
    return 0;
}
"""

TRIANGLE = """
#include <stdio.h>
#define N 25
static long X[N][N];
void tri(int n, long X[n][n])
{
    for (int i = 1; i < n; i++)
        for (int j = 1; j <= i; j++)
            X[i][j] = X[i - 1][j - 1] + 2 * X[i][j - 1] + (i ^ j);
}
int main(void)
{
    long s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            X[i][j] = (i + 3 * j) % 5;
    tri(N, X);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s = (s * 31 + X[i][j]) % 1000003;
    printf("%ld\\n", s);
    return 0;
}
"""

CUBE = """
#include <stdio.h>
#define N 12
static long A[N][N][N];
void cube(int n, long A[n][n][n])
{
    for (int i = 1; i < n; i++)
        for (int j = 1; j < n; j++)
            for (int k = 1; k < n; k++)
                A[i][j][k] = (A[i - 1][j][k] + A[i][j - 1][k] + A[i][j][k - 1]) % 1009;
}
int main(void)
{
    long s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                A[i][j][k] = (i + 2 * j + 3 * k) % 7;
    cube(N, A);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                s = (s * 7 + A[i][j][k]) % 1000003;
    printf("%ld\\n", s);
    return 0;
}
"""


def test_gauss_seidel_wavefront_shape_and_parallel_inner_loop(write_c):
    src = write_c(GAUSS_SEIDEL)
    ws = Workspace(src)
    gs = ws["gs"]
    gs.loops()[0].loop_hyperplane((1, 1))
    expect(
        gs.code,
        """
        void gs(int n, double A[n][n])
        {
            int i;
            int j;
            for (int ij = 2; ij <= 2 * n - 4; ij++)
                for (i = 1 > ij - n + 2 ? 1 : ij - n + 2; i <= (ij - 1 < n - 2 ? ij - 1 : n - 2); i++)
                    A[i][ij - i] = (A[i - 1][ij - i] + A[i][ij - i - 1] + A[i][ij - i] + A[i][ij - i + 1] + A[i + 1][ij - i]) / 5;
        }
    """,
    )
    deps = gs.resource("dependences")
    outer = gs.loops()[0]
    assert deps.is_parallel(outer.loops()[0]) is True
    assert deps.is_parallel(outer) is False
    assert_same_output([src], ws, **O0)


@pytest.mark.parametrize("h,parallel", [((2, 1), True), ((1, 1), False)])
def test_seidel_2d_wavefront(h, parallel):
    src = CORPUS / "seidel_2d.c"
    ws = Workspace(src)
    k = ws["kernel_seidel_2d"]
    k.loops()[0].loops()[0].loop_hyperplane(h)
    inner = k.loops()[0].loops()[0].loops()[0]
    # 9 points: (1,-1) lies on the hyperplane i + j = c, not on 2i + j = c
    assert k.resource("dependences").is_parallel(inner) is parallel
    assert_same_output([src], ws, **O0)


def test_refuses_a_direction_against_a_dependence(write_c):
    src = write_c(GAUSS_SEIDEL)
    ws = Workspace(src)
    before = ws["gs"].code
    with pytest.raises(
        PassFailed,
        match=r"illegal: flow dependence A\[i\]\[j\] -> A\[i\]\[j - 1\] "
        r"with distance \(0,1\): h \. d = -1 < 0",
    ):
        ws["gs"].loops()[0].loop_hyperplane((1, -1))
    assert ws["gs"].code == before


@pytest.mark.parametrize(
    "h,why", [((2, 2), "gcd 2"), ((1, 0), "leaves the band as it is"), ((1,), "over one loop")]
)
def test_refuses_useless_or_non_unimodular_directions(write_c, h, why):
    src = write_c(GAUSS_SEIDEL)
    ws = Workspace(src)
    before = ws["gs"].code
    with pytest.raises(PassFailed, match=why):
        ws["gs"].loops()[0].loop_hyperplane(h)
    assert ws["gs"].code == before


@pytest.mark.parametrize("h", [(1, 1), (2, 1), (1, 2), (3, 2), (0, 1)])
def test_gauss_seidel_directions_keep_output(write_c, h):
    src = write_c(GAUSS_SEIDEL)
    ws = Workspace(src)
    ws["gs"].loops()[0].loop_hyperplane(h)
    assert_same_output([src], ws, **O0)


@pytest.mark.parametrize("h", [(1, 1), (2, 1), (1, 2)])
def test_triangular_band(write_c, h):
    src = write_c(TRIANGLE)
    ws = Workspace(src)
    ws["tri"].loops()[0].loop_hyperplane(h)
    assert_same_output([src], ws, **O0)


@pytest.mark.parametrize("h", [(1, 1), (2, 1)])
def test_bounds_with_opaque_invariant_expressions(write_c, h):
    # (n * 3) / 4 and n - n % 3 are not affine: each becomes one isl parameter
    src = write_c(
        TRIANGLE.replace(
            "for (int i = 1; i < n; i++)", "for (int i = 1; i < (n * 3) / 4; i++)"
        ).replace("for (int j = 1; j <= i; j++)", "for (int j = i; j < n - (n % 3); j++)")
    )
    ws = Workspace(src)
    ws["tri"].loops()[0].loop_hyperplane(h)
    assert "n % 3" in ws["tri"].code
    assert_same_output([src], ws, **O0)


def test_default_direction_is_all_ones_over_the_nest(write_c):
    src = write_c(CUBE)
    ws = Workspace(src)
    cube = ws["cube"]
    cube.loops()[0].loop_hyperplane()
    assert "ijk <= 3 * n - 3" in cube.code
    inner = cube.loops()[0].loops()[0]
    deps = cube.resource("dependences")
    assert deps.is_parallel(inner) and deps.is_parallel(inner.loops()[0])
    assert_same_output([src], ws, **O0)


@pytest.mark.parametrize("h", [(1, 1), (2, 1), (3, 2), (1, 0, 1), (2, 3, 5), (-1, 2), (4, 6, 9)])
def test_unimodular_completion(h):
    rows = unimodular_completion(h)
    assert tuple(rows[0]) == h
    n = len(h)
    m = isl.Map(
        "{ ["
        + ", ".join(f"x{k}" for k in range(n))
        + "] -> ["
        + ", ".join(" + ".join(f"{c}*x{k}" for k, c in enumerate(r)) for r in rows).replace(
            "+ -", "- "
        )
        + "] }"
    )
    # unimodular: a bijection of Z^n onto itself
    assert m.is_bijective()
    assert m.range().is_equal(isl.Set("{ [" + ", ".join(f"y{k}" for k in range(n)) + "] }"))


#: a band with one value of j: the image's bound on the new inner loop is an equality,
#: ij - 2 i = 3, with no integer i where ij - 3 is odd (fuzz case wrong_hyperplane_equality)
ONE_COLUMN = r"""
#include <stdio.h>
static double A[12][3];
static void one(int lo)
{
    for (int i = 1; i < 4; i++)
        for (int j = lo; j < lo + 1; j++)
            A[j + 2 * i][0] += 0.5 * i + A[j][1];
}
int main(void)
{
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 3; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    one(3);
    double s = 0;
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 3; j++)
            s += A[i][j] * (i * 3 + j + 1);
    printf("%.17g\n", s);
    return 0;
}
"""


@pytest.mark.parametrize("h", [(2, 1), (3, 1), (3, 2)])
def test_an_equality_bound_scans_only_integer_points(write_c, h):
    src = write_c(ONE_COLUMN)
    ws = Workspace(src)
    ws["one"].loops()[0].loop_hyperplane(h)
    assert_same_output([src], ws, **O0)
