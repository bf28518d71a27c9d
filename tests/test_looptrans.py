"""Loop-nest transformations (passes/loops/interchange.py, passes/loops/tile.py): interchange, tile, skew, unroll_and_jam.

Golden shapes, differential runs on corpus programs, refusals that leave the
workspace unchanged, and tiling a band that is not fully permutable refused,
then accepted after ``skew``.
"""

from __future__ import annotations

import pytest
from conftest import CORPUS

from passman import PassFailed, Workspace
from passman.testing import assert_same_output, expect

O0 = {"cflags": ["-O0"]}


def nest(module, *path: int):
    """The loop reached from ``module.loops()[path[0]]`` through child indices."""
    loop = module.loops()[path[0]]
    for k in path[1:]:
        loop = loop.loops()[k]
    return loop


SEIDEL = """
#include <stdio.h>
double A[40][40];
void kernel(int n)
{
    int i, j;
    for (i = 1; i < n; i++)
        for (j = 1; j < n - 1; j++)
            A[i][j] = A[i - 1][j + 1] + 0.5 * A[i][j - 1];
}
int main(void)
{
    for (int i = 0; i < 40; i++)
        for (int j = 0; j < 40; j++)
            A[i][j] = (i * 7 + j) % 11;
    kernel(40);
    double s = 0;
    for (int i = 0; i < 40; i++)
        for (int j = 0; j < 40; j++)
            s += A[i][j] * (i + 2 * j);
    printf("%.6f\\n", s);
    return 0;
}
"""

TRIANGLE = """
#include <stdio.h>
double A[37][37], B[37][37];
void kernel(int n)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j <= i; j++)
            B[i][j] = A[i][j] + 2.0 * A[j][i];
}
int main(void)
{
    for (int i = 0; i < 37; i++)
        for (int j = 0; j < 37; j++)
            A[i][j] = (i * 5 + j * 3) % 13;
    kernel(37);
    double s = 0;
    for (int i = 0; i < 37; i++)
        for (int j = 0; j < 37; j++)
            s += B[i][j] * (i + 3 * j);
    printf("%.6f\\n", s);
    return 0;
}
"""

RECT = """
double a[100][100], b[100][100];
void f(int n, int m)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            a[i][j] = b[j][i];
}
"""


# -- golden shapes -----------------------------------------------------------------


def test_tile_golden_shape_parametric_bounds(write_c):
    ws = Workspace(write_c(RECT))
    ws["f"].loops()[0].tile(32, 32)
    expect(
        ws["f"].code,
        """
        void f(int n, int m)
        {
            int i;
            int j;
            for (int it = 0; it < n; it += 32)
                for (int jt = 0; jt < m; jt += 32)
                    for (i = it; i < (it + 32 < n ? it + 32 : n); i++)
                        for (j = jt; j < (jt + 32 < m ? jt + 32 : m); j++)
                            a[i][j] = b[j][i];
        }
    """,
    )


def test_tile_golden_shape_constant_bounds_divisible_and_not(write_c):
    ws = Workspace(write_c(RECT.replace("i < n", "i < 64").replace("j < m", "j <= 99")))
    ws["f"].loops()[0].tile(16, 32)
    code = ws["f"].code
    assert "for (i = it; i < it + 16; i++)" in code  # 64 = 4 * 16: no min
    assert "for (j = jt; j < (jt + 32 < 100 ? jt + 32 : 100); j++)" in code


def test_tile_golden_shape_triangular(write_c):
    ws = Workspace(write_c(TRIANGLE))
    ws["kernel"].loops()[0].tile(8, 4)
    code = ws["kernel"].code
    assert "for (int it = 0; it < n; it += 8)\n" in code
    assert "for (int jt = 0; jt < it + 8; jt += 4)\n" in code
    assert "for (j = jt; j < (jt + 4 < i + 1 ? jt + 4 : i + 1); j++)" in code


def test_interchange_golden_shape_and_labels_move(write_c):
    ws = Workspace(write_c(RECT))
    outer = ws["f"].loops()[0]
    inner = outer.loops()[0]
    outer.interchange()
    assert ws["f"].loops()[0] == inner and inner.loops()[0] == outer
    assert (
        "    for (j = 0; j < m; j++)\n        for (i = 0; i < n; i++)\n            a[i][j] = b[j][i];"
        in ws["f"].code
    )


def test_skew_golden_shape_and_output(write_c):
    src = write_c(SEIDEL)
    ws = Workspace(src)
    ws["kernel"].loops()[0].skew(2)
    expect(
        ws["kernel"].code,
        """
        void kernel(int n)
        {
            int i;
            int j;
            for (i = 1; i < n; i++)
                for (j = 2 * i + 1; j < n + 2 * i - 1; j++)
                    A[i][j - 2 * i] = A[i - 1][j - 2 * i + 1] + 0.5 * A[i][j - 2 * i - 1];
        }
    """,
    )
    assert_same_output([src], ws, **O0)


# -- differential runs on the corpus ------------------------------------------------

DIFF = [
    ("gemm.c", "kernel_gemm", (0, 1), "tile", (32, 16)),
    ("gemm.c", "kernel_gemm", (0, 1), "tile", (7, 5)),
    ("gemm.c", "kernel_gemm", (0,), "tile", (7,)),
    ("gemm.c", "kernel_gemm", (0, 1), "interchange", ()),
    ("gemm.c", "kernel_gemm", (0, 1), "unroll_and_jam", (3,)),
    ("matmul_global.c", "matmul", (0,), "tile", (16, 7)),
    ("matmul_global.c", "matmul", (0,), "interchange", ()),
    ("matmul_global.c", "matmul", (0,), "unroll_and_jam", (4,)),
    ("jacobi_2d.c", "kernel_jacobi_2d", (0, 0), "tile", (5, 7)),
    ("jacobi_2d.c", "kernel_jacobi_2d", (0, 1), "interchange", ()),
    ("syrk.c", "kernel_syrk", (0, 1), "tile", (3, 5)),
    ("syrk.c", "kernel_syrk", (0, 1), "interchange", ()),
    ("two_mm.c", "kernel_2mm", (0,), "tile", (8, 3)),
    ("heat_3d.c", "kernel_heat_3d", (0, 0), "tile", (4, 5, 3)),
    ("heat_3d.c", "kernel_heat_3d", (0, 1), "interchange", ((2, 0, 1),)),
    ("lu.c", "kernel_lu", (0, 1), "tile", (5, 4)),
    ("lu.c", "kernel_lu", (0, 1), "interchange", ()),
    ("trisolv.c", "kernel_trisolv", (0, 0), "tile", (4,)),
]


@pytest.mark.parametrize("case", DIFF, ids=[f"{c[0][:-2]}-{c[3]}-{c[4]}" for c in DIFF])
def test_corpus_programs_keep_their_output(case):
    prog, func, path, name, args = case
    ws = Workspace(CORPUS / prog)
    before = ws[func].code
    getattr(nest(ws[func], *path), name)(*args)
    assert ws[func].code != before
    assert_same_output([CORPUS / prog], ws, **O0)


@pytest.mark.parametrize("sizes", [(8, 4), (5, 3), (1, 6)])
def test_triangular_band_tiles_keep_output(write_c, sizes):
    src = write_c(TRIANGLE)
    ws = Workspace(src)
    ws["kernel"].loops()[0].tile(*sizes)
    assert_same_output([src], ws, **O0)


def test_unroll_and_jam_epilogue_shape_and_output(write_c):
    src = write_c(TRIANGLE.replace("j <= i", "j < n"))
    ws = Workspace(src)
    ws["kernel"].loops()[0].unroll_and_jam(4)  # 37 = 4 * 9 + 1
    code = ws["kernel"].code
    assert "for (i = 0; i < 4 * (n / 4); i += 4)" in code and "for (; i < n; i++)" in code
    assert "B[i + 3][j] = A[i + 3][j] + 2.0 * A[j][i + 3];" in code
    assert_same_output([src], ws, **O0)


# -- the must-show: a band that is not fully permutable, then skew ----------------------


def test_tiling_non_permutable_band_is_refused_then_succeeds_after_skew(write_c):
    src = write_c(SEIDEL)
    ws = Workspace(src)
    cu = ws.compilation_units[0]
    before = cu.code
    loop = ws["kernel"].loops()[0]
    with pytest.raises(PassFailed) as err:
        loop.tile(8, 8)
    assert str(err.value) == (
        "tiling of l1 (i) and l2 (j) in kernel (t.c:7) is illegal: the band is not fully permutable: "
        "flow dependence A[i][j] -> A[i - 1][j + 1] with distance (1,-1) has a negative component "
        "for j (skew the band first)"
    )
    assert cu.code == before
    loop.skew()
    loop.tile(8, 8)
    assert "for (j = jt > i + 1 ? jt : i + 1;" in ws["kernel"].code
    assert_same_output([src], ws, **O0)


def test_seidel_2d_corpus_skew_then_tile():
    ws = Workspace(CORPUS / "seidel_2d.c")
    loop = nest(ws["kernel_seidel_2d"], 0, 0)
    with pytest.raises(PassFailed, match="not fully permutable"):
        loop.tile(4, 4)
    loop.skew()
    loop.tile(4, 4)
    assert_same_output([CORPUS / "seidel_2d.c"], ws, **O0)


# -- refusals: the workspace is unchanged ----------------------------------------------


def test_interchange_across_a_1_minus1_dependence_is_refused(write_c):
    ws = Workspace(write_c(SEIDEL))
    cu = ws.compilation_units[0]
    before = cu.code
    with pytest.raises(PassFailed) as err:
        ws["kernel"].loops()[0].interchange()
    assert str(err.value) == (
        "interchange of l1 (i) and l2 (j) in kernel (t.c:7) is illegal: flow dependence "
        "A[i][j] -> A[i - 1][j + 1] with distance (1,-1) would become (-1,1)"
    )
    assert cu.code == before
    assert ws.history.steps[-1].error is not None


def test_unroll_and_jam_across_a_1_minus1_dependence_is_refused(write_c):
    ws = Workspace(write_c(SEIDEL))
    before = ws.compilation_units[0].code
    with pytest.raises(
        PassFailed, match=r"unroll and jam .* is illegal: flow dependence .* \(1,-1\)"
    ):
        ws["kernel"].loops()[0].unroll_and_jam(2)
    assert ws.compilation_units[0].code == before


def test_interchange_of_a_triangular_band_is_refused(write_c):
    ws = Workspace(write_c(TRIANGLE))
    before = ws.compilation_units[0].code
    with pytest.raises(PassFailed, match="the bounds of j use i, which would no longer enclose it"):
        ws["kernel"].loops()[0].interchange()
    assert ws.compilation_units[0].code == before


REFUSED = {
    "not perfect": (
        "for (i = 0; i < n; i++) { a[i][0] = 0; for (j = 0; j < n; j++) a[i][j] = 1; }",
        "tile", (4, 4), "is not perfect",
    ),
    "step": ("for (i = 0; i < n; i += 2) for (j = 0; j < n; j++) a[i][j] = 1;", "tile", (4, 4), "step 2 of i"),
    "not static": (
        "for (i = 0; i < n; i++) for (j = 0; j < n; j++) a[i][j] = g(p, j);",
        "interchange", (), "not a static control part",
    ),
    "bound not affine": (
        "for (i = 0; i < n; i++) for (j = 0; j < i * i; j++) a[i][j] = 1;", "skew", (), "is not affine in i",
    ),
    "index read later": (
        "for (i = 0; i < n; i++) for (j = 0; j < n; j++) a[i][j] = 1;\n    a[0][0] = j;",
        "interchange", (), "exit value would change",
    ),
    "unsigned": ("for (u = 0; u < 64; u++) for (j = 0; j < n; j++) a[u][j] = 1;", "tile", (4, 4), "not a signed"),
    "bad order": ("for (i = 0; i < n; i++) for (j = 0; j < n; j++) a[i][j] = 1;", "interchange", ((0, 0),),
                  "not a permutation"),
    "no sizes": ("for (i = 0; i < n; i++) a[i][0] = 1;", "tile", (), "no tile sizes"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(REFUSED), ids=list(REFUSED))
def test_refusals_leave_the_workspace_unchanged(write_c, case):
    loop_text, name, args, reason = REFUSED[case]
    src = f"int a[100][100];\nint g(int *v, int k);\nvoid f(int n, int *p)\n{{\n    int i, j;\n    unsigned u;\n    {loop_text}\n}}\n"
    ws = Workspace(write_c(src))
    cu = ws.compilation_units[0]
    before = cu.code
    with pytest.raises(PassFailed) as err:
        getattr(ws["f"].loops()[0], name)(*args)
    assert reason in str(err.value)
    assert cu.code == before


def test_non_static_band_is_refused_with_the_reason(write_c):
    src = (
        "int a[100][100];\nint g(int *v, int k);\nvoid f(int n, int *p)\n{\n    int i, j;\n"
        "    for (i = 0; i < n; i++)\n        for (j = 0; j < n; j++)\n            a[i][j] = g(p, j);\n}\n"
    )
    ws = Workspace(write_c(src))
    with pytest.raises(PassFailed, match="not a static control part"):
        ws["f"].loops()[0].tile(4, 4)
    ws["f"].loops()[0].tile(4)  # strip-mining one loop is always legal


def test_index_reused_by_an_epilogue_elsewhere_does_not_block_tiling(write_c):
    """Regression (sweep): ``j`` read by an unroll epilogue before the band is dead after it (liveness)."""
    src = write_c("""
        #include <stdio.h>
        double a[30][30], c[30];
        void f(int n)
        {
            int i, j;
            for (i = 0; i < n; i++) {
                for (j = 0; j < n; j++)
                    c[j] = 2 * j;
                for (; j < n + 3; j++)
                    c[j - 3] += 1;
                for (int k = 0; k < n; k++)
                    for (j = 0; j < n; j++)
                        a[k][j] += c[j] * i;
            }
        }
        int main(void)
        {
            f(27);
            double s = 0;
            for (int i = 0; i < 30; i++)
                for (int j = 0; j < 30; j++)
                    s += a[i][j] * (i + j);
            printf("%.6f\\n", s);
            return 0;
        }
    """)
    ws = Workspace(src)
    band = nest(ws["f"], 0, 2)
    band.tile(4, 4)
    assert "jt += 4" in ws["f"].code
    assert_same_output([src], ws, **O0)
    # still refused when the index is read after the band
    late = src.read_text().replace("c[j] * i;\n", "c[j] * i;\n        c[0] = j;\n")
    ws2 = Workspace(write_c(late, "u.c"))
    with pytest.raises(PassFailed, match="exit value would change"):
        nest(ws2["f"], 0, 2).tile(4, 4)
