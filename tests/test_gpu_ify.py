"""Kernel mapping (passes.gpu.gpu_ify): launcher + kernel, the same program as plain C.

The oracle: after gpu_ify, every corpus program still prints the original's
output when compiled as C (the launcher's loops run the box, the kernel's
guard skips points outside the nest). Golden tests show the shape; the
refusals leave the code unchanged with a reason in source terms.
"""

from __future__ import annotations

import logging

import pytest
from conftest import corpus_programs, program_id

from passman import InvalidInput, PassFailed, Workspace
from passman.testing import assert_same_output, expect

TRIANGLE = r"""
#include <math.h>
void f(int n, double A[n][n], double B[n][n])
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < i; j++)
            A[i][j] = 2.0 * sqrt(B[j][i]);
}
"""


def test_triangular_nest_gets_a_box_and_a_guard():
    ws = Workspace.from_code(TRIANGLE, "f.c")
    ws.apply("gpu_ify", ws["f"])
    expect(ws.compilation_units[0].code.lstrip("\n"), r"""
        #include <math.h>
        void p4a_kernel_0(int n, double A[n][n], double B[n][n], int i, int j)
        {
            if (j < i)
                A[i][j] = 2.0 * sqrt(B[j][i]);
        }

        void p4a_launcher_0(int n, double A[n][n], double B[n][n])
        {
            #pragma passman launch p4a_kernel_0
            for (int i = 1; i <= n - 1; i++)
                for (int j = 0; j <= n - 2; j++)
                    p4a_kernel_0(n, A, B, i, j);
        }

        void f(int n, double A[n][n], double B[n][n])
        {
            int i;
            int j;
            p4a_launcher_0(n, A, B);
        }
        """)


def test_deeper_loops_stay_in_the_kernel_and_max_dims_is_honoured():
    code = r"""
    void f(int n, double A[n][n][n])
    {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                for (int k = 0; k < n; k++)
                    for (int l = 0; l < 4; l++)
                        A[i][j][k] += l;
    }
    """
    ws = Workspace.from_code(code, "f.c")
    ws.apply("gpu_ify", ws["f"])
    kernel = ws["p4a_kernel_0"]
    assert [p.name for p in kernel.ast.decl.type.args.params][-3:] == ["i", "j", "k"]
    assert len(kernel.all_loops) == 1  # the l loop runs inside each work-item
    ws = Workspace.from_code(code, "f.c")
    ws.apply("gpu_ify", ws["f"], max_dims=1)
    assert [p.name for p in ws["p4a_kernel_0"].ast.decl.type.args.params][-1:] == ["i"]
    assert len(ws["p4a_kernel_0"].all_loops) == 3


def test_inner_parallel_nest_under_a_sequential_time_loop():
    code = r"""
    void f(int T, int n, double A[n], double B[n])
    {
        for (int t = 0; t < T; t++) {
            for (int i = 1; i < n - 1; i++)
                B[i] = 0.5 * (A[i - 1] + A[i + 1]);
            for (int i = 1; i < n - 1; i++)
                A[i] = B[i];
        }
    }
    """
    ws = Workspace.from_code(code, "f.c")
    ws.apply("gpu_ify", ws["f"])
    text = ws["f"].code if hasattr(ws["f"], "code") else ws.compilation_units[0].code
    assert "p4a_launcher_0(" in text and "p4a_launcher_1(" in text
    assert "for (int t = 0; t < T; t++)" in ws.compilation_units[0].code


@pytest.mark.parametrize(
    "code, reason",
    [
        (r"""
        double g(double x);
        void f(int n, double A[n]) { for (int i = 0; i < n; i++) A[i] = g(A[i]); }
        """, "g at f.c:3 is an unknown function"),
        (r"""
        void f(int n, double A[n], double (*op)(double)) { for (int i = 0; i < n; i++) A[i] = op(A[i]); }
        """, "function pointer"),
        (r"""
        void f(int n, int a[n], int h[4]) { for (int i = 0; i < n; i++) h[a[i] & 3] += 1; }
        """, "it needs the reduction sum[h[*]]"),
        (r"""
        void f(int n, double A[n]) { for (int i = 0; i < n; i += 2) A[i] = 0; }
        """, "step 2"),
    ],
    ids=["unknown function", "function pointer", "reduction", "step"],
)
def test_nests_that_stay_on_the_host_say_why_and_change_nothing(code, reason, caplog):
    ws = Workspace.from_code(code, "f.c")
    before = ws.compilation_units[0].code
    with caplog.at_level(logging.INFO, logger="passman.gpu"), pytest.raises(PassFailed) as err:
        ws.apply("gpu_ify", ws["f"])
    assert reason in str(err.value)
    assert "f.c:" in str(err.value)
    assert ws.compilation_units[0].code == before


def test_named_loop_that_is_not_parallel_is_refused():
    code = "void f(int n, double A[n]) { for (int i = 1; i < n; i++) A[i] = A[i - 1]; }"
    ws = Workspace.from_code(code, "f.c")
    label = ws["f"].all_loops[0].label
    with pytest.raises(PassFailed, match="stays on the host"):
        ws.apply("gpu_ify", ws["f"], label=label)
    with pytest.raises(InvalidInput):
        ws.apply("gpu_ify", ws["f"], max_dims=4)


@pytest.mark.parametrize("files", corpus_programs(), ids=program_id)
def test_every_corpus_program_keeps_its_output(files):
    ws = Workspace(*map(str, files))
    mapped = 0
    for module in list(ws.modules):
        if ws.stub_info(module.name) or module.name.startswith("p4a_"):
            continue
        try:
            ws.apply("gpu_ify", module)
            mapped += 1
        except PassFailed:
            pass
    assert_same_output(files, ws)
    if program_id(files) in ("gemm", "jacobi_2d", "atax", "two_mm", "heat_3d", "conv2d"):
        assert mapped, "a kernel with parallel nests got none"


def test_private_scalars_declared_outside_get_one_copy_per_work_item():
    """Passed by pointer, ``t`` would be one variable shared by every work-item (a race)."""
    code = r"""
    void f(int n, double A[n][n], double B[n][n])
    {
        int i, j, k;
        double t;
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++) {
                t = 0;
                for (k = 0; k < n; k++)
                    t += A[i][k] * A[k][j];
                B[i][j] = t;
            }
        t = 1.0;
        B[0][0] = t;
    }
    """
    ws = Workspace.from_code(code, "f.c")
    ws.apply("gpu_ify", ws["f"])
    kernel = ws["p4a_kernel_0"]
    params = [p.name for p in kernel.ast.decl.type.args.params]
    assert "t" not in params and "k" not in params
    assert "double t;" in ws.compilation_units[0].code.split("p4a_launcher_0")[0]
    assert_same_output_src(code)


def assert_same_output_src(code: str) -> None:
    """The function keeps its meaning as C: called from a main, before and after."""
    main = code + r"""
    #include <stdio.h>
    int main(void)
    {
        static double A[20][20], B[20][20];
        double s = 0;
        for (int i = 0; i < 20; i++)
            for (int j = 0; j < 20; j++)
                A[i][j] = (i * 3 + j) % 7 - 2.5;
        f(20, A, B);
        for (int i = 0; i < 20; i++)
            for (int j = 0; j < 20; j++)
                s += B[i][j] * (i + 2 * j + 1);
        printf("%.17g\n", s);
        return 0;
    }
    """
    ref = Workspace.from_code(main, "m.c")
    ref.build("c")
    ws = Workspace.from_code(main, "m.c")
    ws.apply("gpu_ify", ws["f"])
    ws.build("c")
    assert ws.run().stdout == ref.run().stdout


def test_a_scalar_reduction_gets_one_partial_per_work_item():
    code = r"""
    double f(int n, double A[n][n])
    {
        double s = 0.0;
        for (int i = 1; i < n; i++)
            for (int j = 0; j < i; j++)
                s += A[i][j] * A[j][i];
        return s;
    }
    """
    ws = Workspace.from_code(code, "f.c")
    ws.apply("gpu_ify", ws["f"])
    text = ws.compilation_units[0].code
    assert "double s = 0;" in text.split("p4a_launcher_0")[0]  # the kernel's own partial
    assert "s_part[i - 1] = s;" in text
    assert "for (long s_k = 0; s_k < n - 1; s_k++)" in text and "free(s_part);" in text
    assert "#include <stdlib.h>" in text


REDUCTIONS = r"""
#include <stdio.h>
#define N 1000
double A[N];
int B[N];

int main(void)
{
    for (int i = 0; i < N; i++) {
        A[i] = (double) ((i * 7919) % 1009) - 500.0;
        B[i] = (i * 31) % 257 + 1;
    }
    double hi = -1e30, lo = 1e30, lo2 = 3.0;
    int any = 0, all = 1, bits = 0, mask = -1, x = 0;
    for (int i = 0; i < N; i++) {
        hi = hi < A[i] ? A[i] : hi;          /* max */
        if (A[i] < lo) lo = A[i];            /* min */
        lo2 = fmin(lo2, A[i] + 2.0);         /* min through fmin */
        any = any || B[i] > 250;
        all = all && B[i] > 0;
        bits |= B[i];
        mask &= B[i] | 1;
        x ^= B[i];
    }
    printf("%g %g %g %d %d %d %d %d\n", hi, lo, lo2, any, all, bits, mask, x);
    return 0;
}
"""


def test_min_max_and_bitwise_reductions_on_the_device(tmp_path):
    code = REDUCTIONS.replace("#include <stdio.h>", "#include <stdio.h>\n#include <math.h>")
    ref = Workspace.from_code(code, "m.c")
    ref.build("c", tmp_path / "ref")
    expected = ref.run()
    ws = Workspace.from_code(code, "m.c")
    ws.apply("gpu_ify", ws["main"], max_dims=1)
    text = ws.compilation_units[0].code
    assert text.count("p4a_launcher_") >= 4, text  # both loops are kernels (the init loop too)
    assert "double hi_start = hi;" in text and "hi = hi_part[hi_k] > hi ? hi_part[hi_k] : hi;" in text
    assert "x = x ^ x_part[x_k];" in text
    ws.build("c", tmp_path / "gpu")
    assert ws.run().stdout == expected.stdout
    ws.apply("kernel_load_store", ws["main"])
    ws.build("c", tmp_path / "accel")
    for shuffle in ("0", "1"):
        got = ws.run(env={"PASSMAN_ACCEL_SHUFFLE": shuffle, "PASSMAN_ACCEL_CHECK": "1"})
        assert got.stdout == expected.stdout, got.stderr[-2000:]
