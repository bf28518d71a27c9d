"""Parallel loops: classic verdicts, reasons in source terms, the conservative cases, the API."""

from __future__ import annotations

import re
import textwrap

import pytest
from conftest import CORPUS
from passman.passes.analysis.privatization import loop_privates
from passman.passes.parallel.verdicts import LoopVerdict, loop_verdict
from test_parallel_oracle import reordered_code

from passman import Workspace
from passman.testing import assert_same_output


def corpus(name: str) -> Workspace:
    return Workspace(CORPUS / name)


def program(write_c, code: str, name: str = "t.c") -> Workspace:
    return Workspace(write_c(textwrap.dedent(code), name))


def verdicts(ws: Workspace, func: str) -> list[LoopVerdict]:
    return [loop_verdict(lp) for lp in ws[func].all_loops]


# ------------------------------------------------------------------ classic verdicts


def test_matrix_product_outer_loops_are_parallel():
    ws = corpus("gemm.c")
    outer = ws["kernel_gemm"].loops()[0]
    v = loop_verdict(outer)
    assert v.parallel and v.reductions == () and v.reasons == ()
    assert set(v.private) >= {"j", "k"}
    ws = corpus("matmul_global.c")
    i_loop = ws["matmul"].loops()[0]
    j_loop = i_loop.loops()[0]
    k_loop = j_loop.loops()[0]
    for lp in (i_loop, j_loop):
        v = loop_verdict(lp)
        assert v.parallel and not v.reductions, lp
    k = loop_verdict(k_loop)
    assert k.parallel and [r.text for r in k.reductions] == ["sum[sum]"]


def test_gauss_seidel_loops_are_not_parallel():
    ws = corpus("seidel_2d.c")
    t_loop = ws["kernel_seidel_2d"].loops()[0]
    i_loop = t_loop.loops()[0]
    j_loop = i_loop.loops()[0]
    for lp in (t_loop, i_loop, j_loop):
        v = loop_verdict(lp)
        assert not v.parallel and v.reasons and not v.reductions
    why = i_loop.why_not_parallel()
    assert why.startswith(f"loop {i_loop.label} of kernel_seidel_2d (seidel_2d.c:20) is not parallel: ")
    assert re.search(r"A\[i\]\[j\] written at seidel_2d\.c:22 is read by A\[i - 1\]\[j( [-+] 1)?\] "
                     r"at seidel_2d\.c:22 one iteration later \(flow, distance 1\)", why), why
    assert re.search(r"is read by A\[i\]\[j - 1\] at seidel_2d\.c:23 one iteration later \(flow, distance 1\)",
                     j_loop.why_not_parallel())


def test_jacobi_space_loops_are_parallel_inside_the_sequential_time_loop():
    ws = corpus("jacobi_2d.c")
    t_loop = ws["kernel_jacobi_2d"].loops()[0]
    v = loop_verdict(t_loop)
    assert not v.parallel
    assert any("(flow, distance 1)" in r for r in v.reasons)
    space = t_loop.loops()
    assert len(space) == 2
    for lp in space + [lp.loops()[0] for lp in space]:
        v = loop_verdict(lp)
        assert v.parallel and not v.reductions, lp
        assert v.trip_count == "n - 2"


def test_dot_product_is_parallel_as_a_reduction():
    ws = corpus("dot.c")
    v = loop_verdict(ws["dot"].loops()[0])
    assert v.parallel
    assert [(r.var, r.op, r.kind) for r in v.reductions] == [("s", "+", "scalar")]
    assert [r.text for r in verdicts(ws, "vmax")[0].reductions] == ["max[m]"]
    assert [r.text for r in verdicts(ws, "vmin")[0].reductions] == ["min[m]"]
    argmax = verdicts(ws, "argmax_abs")[0]
    assert not argmax.parallel and any("best" in r for r in argmax.reasons)


def test_histogram_is_not_plainly_parallel():
    ws = corpus("histogram.c")
    clear, count = ws["compute_histogram"].loops()
    assert loop_verdict(clear).parallel and not loop_verdict(clear).reductions
    v = loop_verdict(count)
    assert not v.parallel or v.reductions  # an array reduction at best
    assert [(r.var, r.kind) for r in v.reductions] == [("h", "array")]
    assert not loop_verdict(ws["prefix"].loops()[0]).parallel
    assert not loop_verdict(ws["init_data"].loops()[0]).parallel  # the LCG state recurrence


def test_printf_in_a_loop_is_not_parallel(write_c):
    ws = program(write_c, """
        #include <stdio.h>
        void show(int n, double *a)
        {
            int i;
            for (i = 0; i < n; i++)
                printf("%f\\n", a[i]);
        }
        """)
    loop = ws["show"].loops()[0]
    v = loop_verdict(loop)
    assert not v.parallel
    assert v.reasons == ("printf writes the stdio state at t.c:7",)
    assert loop.why_not_parallel() == "loop l1 of show (t.c:6) is not parallel: printf writes the stdio state at t.c:7"


def test_pure_libm_calls_do_not_block_parallelism():
    ws = corpus("libm_calls.c")
    for func in ("transcendental", "powers", "init"):
        v = loop_verdict(ws[func].loops()[0])
        assert v.parallel and not v.reductions, func
    v = loop_verdict(ws["rounding"].loops()[0])
    assert v.parallel and [r.text for r in v.reductions] == ["sum[s]"]


def test_triangular_solver_outer_loop_sequential_inner_loop_a_reduction():
    ws = corpus("trisolv.c")
    outer = ws["kernel_trisolv"].loops()[0]
    v = loop_verdict(outer)
    assert not v.parallel
    assert any(r.startswith("x[i] written at trisolv.c:27 is read by x[j] at trisolv.c:26") and "(flow" in r
               for r in v.reasons), v.reasons
    inner = loop_verdict(outer.loops()[0])
    assert inner.parallel
    assert [(r.var, r.subscripts, r.op, r.kind) for r in inner.reductions] == [("x", ("i",), "+", "array_element")]
    assert inner.trip_count == "i"


# ------------------------------------------------------------------ conservative cases


CONSERVATIVE = """
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern void mystery(double *p);
double g;
void touch(void) { g += 1.0; }
void f(int n, double *a, double *b, char *s, int *idx, void (*fp)(double *))
{
    int i, last = 0;
    for (i = 0; i < n; i++)
        mystery(&a[i]);
    for (i = 0; i < n; i++)
        fp(&a[i]);
    for (i = 0; i < n; i++) {
        if (a[i] > 0)
            break;
        b[i] = 1;
    }
    for (i = 0; i < n; i++) {
        b[i] = a[i];
        n = n - 1;
    }
    for (i = 0; i < n; i++)
        if (a[i] > 0)
            last = i;
    for (i = 0; i < n; i++)
        a[idx[i]] = b[i];
    for (i = 0; i < n; i++) {
        b[i] = strlen(s);
        s[i + 1] = 'a';
    }
    for (i = 0; i < n; i++)
        touch();
    for (i = 0; i < n; i++)
        if (a[i] < 0)
            exit(1);
    for (i = 0; i < n; i *= 2)
        a[i] = 0;
    printf("%d\\n", last);
}
"""


def test_conservative_verdicts_name_their_reason(write_c):
    ws = program(write_c, CONSERVATIVE)
    reasons = [v.reasons for v in verdicts(ws, "f")]
    assert all(reasons), reasons
    expected = [
        "mystery at t.c:12 is an unknown function: it may access any memory",
        "the call through the function pointer fp at t.c:14 may access any memory",
        "break at t.c:17 leaves the loop early",
        "its bound n changes in the body (n written at t.c:22)",
        "last is written in some iterations only and is used after the loop",
        "a[idx[i]] written at t.c:28 may be written again by a[idx[i]] at t.c:28 in a later iteration "
        "(output, distance unknown)",
        "s[i + 1] written at t.c:31 may be read by s[*] (through the call to strlen) at t.c:30 in another "
        "iteration (anti, distance unknown)",
        "sum[g] is updated inside touch at t.c:34",
        "exit at t.c:37 ends the program",
        "its header at t.c:38 is not 'for (i = lower; i < upper; i += step)'",
    ]
    assert len(reasons) == len(expected)
    for got, want in zip(reasons, expected):
        assert any(r.startswith(want) for r in got), (want, got)


def test_non_affine_calls_are_decided_by_effects_and_regions(write_c):
    ws = program(write_c, """
        static void pair(double *p, double v) { p[0] = v; p[1] = -v; }
        static void put(double *p, double v) { *p = v; }
        void f(int n, double *a, double *b)
        {
            int i;
            for (i = 0; i < n; i++)
                pair(&a[2 * i], i);
            for (i = 0; i < n; i++)
                pair(&b[i], i);
            for (i = 0; i < n; i++)
                put(&a[i], b[i]);
        }
        """)
    apart, overlap, single = verdicts(ws, "f")
    assert apart.parallel and not apart.reductions
    assert not overlap.parallel
    assert overlap.reasons == ("b[i] (through the call to pair) written at t.c:10 may be written again by b[*] "
                               "(through the call to pair) at t.c:10 in another iteration (output, distance unknown)",)
    assert single.parallel


def test_scalars_private_and_lastprivate(write_c):
    ws = program(write_c, """
        #include <stdio.h>
        int main(void)
        {
            double a[100], b[100], t = 0;
            int i, last = -1;
            for (i = 0; i < 100; i++)
                a[i] = i * 0.5;
            for (i = 0; i < 100; i++) {
                t = a[i] * 2;
                last = i;
                b[i] = t + 1;
            }
            printf("%f %d %d %f\\n", t, last, i, b[7]);
            return 0;
        }
        """)
    v = verdicts(ws, "main")[1]
    assert v.parallel and not v.reductions
    assert v.lastprivate == ("i", "last", "t")
    assert v.trip_count == "100" and v.work_estimate == 3


def test_reordering_the_lastprivate_loop_keeps_the_output(write_c):
    path = write_c(textwrap.dedent("""
        #include <stdio.h>
        int main(void)
        {
            double a[100], t = 0;
            int i, last = -1;
            for (i = 0; i < 100; i++) {
                t = i * 0.5;
                last = i;
                a[i] = t + 1;
            }
            printf("%f %d %d %f\\n", t, last, i, a[99]);
            return 0;
        }
        """))
    ws = Workspace(path)
    loop = ws["main"].loops()[0]
    v = loop_verdict(loop)
    assert v.parallel
    for order in ("reverse", "shuffle"):
        variant = ws.clone()
        variant["main"].code = reordered_code(ws, "main", loop.label, order, v.lastprivate)
        assert_same_output([path], variant, cflags=["-O0"])


# ------------------------------------------------------------------ arrays


ARRAY_TEMP = """
#include <stdio.h>
int main(void)
{
    double a[64], b[64 * 8], tmp[8], keep[8];
    int i, k;
    for (i = 0; i < 64; i++)
        a[i] = i * 0.25;
    for (i = 0; i < 64; i++) {
        for (k = 0; k < 8; k++)
            tmp[k] = a[i] + k;
        for (k = 0; k < 8; k++)
            b[i * 8 + k] = tmp[k] * tmp[k];
    }
    for (i = 0; i < 64; i++) {
        for (k = 0; k < 8; k++)
            keep[k] = a[i] - k;
        b[i] = keep[0];
    }
    double s = 0;
    for (i = 0; i < 64 * 8; i++)
        s += b[i];
    printf("%f %f\\n", s, keep[3]);
    return 0;
}
"""


def test_array_privatization_from_in_regions(write_c):
    path = write_c(ARRAY_TEMP)
    ws = Workspace(path)
    loops = ws["main"].loops()
    private_tmp, live_keep = loops[1], loops[2]
    assert loop_privates(private_tmp).private_arrays == ("tmp",)
    v = loop_verdict(private_tmp)
    assert v.parallel and "tmp" in v.private and not v.reductions
    w = loop_verdict(live_keep)
    assert not w.parallel  # keep is used after the loop
    assert any("keep" in r for r in w.reasons)
    assert any("keep is not private: its values are used after the loop" in r for r in loop_privates(live_keep).why)
    for order in ("reverse", "shuffle"):
        variant = ws.clone()
        variant["main"].code = reordered_code(ws, "main", private_tmp.label, order)
        assert_same_output([path], variant, cflags=["-O0"])


def test_an_array_read_before_written_is_not_private(write_c):
    ws = program(write_c, """
        void f(int n, double *b)
        {
            double tmp[8] = {0};
            int i, k;
            for (i = 0; i < n; i++) {
                b[i] = tmp[3];
                for (k = 0; k < 8; k++)
                    tmp[k] = b[i] + k;
            }
        }
        """)
    loop = ws["f"].loops()[0]
    assert loop_privates(loop).private_arrays == ()
    assert not loop_verdict(loop).parallel


# ------------------------------------------------------------------ API and display


def test_display_annotates_every_loop(write_c):
    ws = program(write_c, """
        void f(int n, double A[n][n], double *x, double *s)
        {
            int i, j;
            for (i = 1; i < n; i++)
                for (j = 0; j < n; j++)
                    A[i][j] = A[i - 1][j] + x[j];
            for (i = 0; i < n; i++)
                *s += x[i];
        }
        """)
    text = ws["f"].annotated("parallel_loops")
    assert text == textwrap.dedent("""\
        void f(int n, double A[n][n], double *x, double *s)
        {
            int i;
            int j;
            // not parallel: A[i][j] written at t.c:7 is read by A[i - 1][j] at t.c:7 one iteration later (flow, distance 1)
            // loop l1
            for (i = 1; i < n; i++)
                // parallel, private: j
                // loop l2
                for (j = 0; j < n; j++)
                    A[i][j] = A[i - 1][j] + x[j];
            // parallel, private: i, reductions: sum[s[0]]
            // loop l3
            for (i = 0; i < n; i++)
                *s += x[i];
        }
        """)
    assert ws["f"].loop("l2").why_not_parallel() == ""


def test_verdicts_are_cached_and_follow_callee_changes(write_c):
    ws = program(write_c, """
        #include <stdio.h>
        double scale(double x) { return 2 * x; }
        void f(int n, double *a)
        {
            int i;
            for (i = 0; i < n; i++)
                a[i] = scale(a[i]);
        }
        void g(int n, double *b)
        {
            int i;
            for (i = 0; i < n; i++)
                b[i] = 1;
        }
        """)
    loop = ws["f"].loops()[0]
    assert loop_verdict(loop).parallel
    assert loop_verdict(ws["g"].loops()[0]).parallel
    count = ws.computations["parallel_loops"]
    assert loop_verdict(loop).parallel and ws.computations["parallel_loops"] == count
    ws["scale"].code = 'double scale(double x) { printf("%f\\n", x); return 2 * x; }'
    v = loop_verdict(loop)
    assert not v.parallel and v.reasons == ("scale writes the stdio state at t.c:8",)
    assert loop_verdict(ws["g"].loops()[0]).parallel
    assert ws.computations["parallel_loops"] == count + 1  # g was not analysed again


def test_loop_verdict_fields_and_work_estimates():
    ws = corpus("matmul_global.c")
    i_loop = ws["matmul"].loops()[0]
    v = loop_verdict(i_loop)
    assert v.label == i_loop.label
    assert v.trip_count == "150"
    # the j loop runs 150 x (its header, the declaration of sum, the k loop: 150 x 2, the store)
    assert v.work_estimate == 150 * (1 + 1 + 150 * 2 + 1)
    assert isinstance(v.private, tuple) and isinstance(v.reductions, tuple)
    with pytest.raises(AttributeError):
        v.parallel = False  # frozen


def test_lastprivate_needs_a_loop_that_certainly_runs():
    """A loop that may run no iteration cannot give a lastprivate variable its value (gcc writes
    an uninitialised copy back): fuzz case wrong_zero_trip_lastprivate."""
    code = r"""
    double f(int n)
    {
        int k;
        double t = 1.0, u = 1.0;
        for (k = 0; k < 4; k++)
            t = 0.3 * k;
        for (k = 0; k < n; k++)
            u = 0.3 * k;
        return t + u;
    }
    """
    module = Workspace.from_code(code, "f.c")["f"]
    sure, maybe = (loop_verdict(lp) for lp in module.all_loops)
    assert sure.parallel and sure.lastprivate == ("t",)
    assert not maybe.parallel
    assert any("may run no iteration" in r for r in maybe.reasons)
