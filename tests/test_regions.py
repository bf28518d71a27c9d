"""Convex array regions (passes.poly.regions): READ/WRITE, IN/OUT, summaries, call sites."""

from __future__ import annotations

import islpy as isl
import pytest
from conftest import CORPUS, corpus_programs, program_id
from passman.passes.poly.regions import hull_is_exact, rectangular_hull
from pycparser import c_ast

from passman import Workspace
from passman.astutil import find_all
from passman.printer import to_c

# The examples of Amini 2012, §3.2 (Figs. 3.4 and 3.6), written as C.
PAPERS = r"""
void kernel(int i, int n, int k, int src[n], int dst[n - k + 1], int m[k])
{
    int j, v = 0;
    for (j = 0; j < k; j++)
        v += src[i + j] * m[j];
    dst[i] = v;
}

void fir(int n, int k, int src[n], int dst[n - k + 1], int m[k])
{
    int i;
    for (i = 0; i <= n - k; i++)
        kernel(i, n, k, src, dst, m);
}

void guarded(int n, int a[n])
{
    for (int i = 0; i < n; i++)
        if (i != 3)
            a[i] = 0;
}

void sw(int i, int c, int in[], int out[])
{
    switch (c) {
    case 0:
        out[i] = in[i];
        break;
    case 1:
        out[i] = in[i + 1];
        break;
    default:
        out[i] = in[i + 2];
    }
}

void temp(int n, double a[n], double b[n])
{
    double tmp[100];
    for (int i = 0; i < n; i++)
        tmp[i] = a[i] * 2.0;
    for (int i = 0; i < n; i++)
        b[i] = tmp[i] + 1.0;
}
"""

CALLS = r"""
double G[64];
void row(int m, double *r) { for (int j = 0; j < m; j++) r[j] = G[j]; }
void rows(int n, int m, double A[n][m], double B[10][20], int idx[n])
{
    for (int i = 0; i < n; i++)
        row(m, &A[i][0]);
    row(5, B[1] + 3);
    row(40, &B[0][0]);
    A[idx[0]][1] = 2.0;
}
void whole(int n, int m, double C[n][m]) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            C[i][j] = 0.0;
}
void vla(int n, int m, double A[n][m], double D[n][2 * m]) {
    whole(n, m, A);
    whole(n, m, D);
    mystery(A);
}
"""


@pytest.fixture(scope="module")
def ws():
    return Workspace.from_code(PAPERS, "amini.c")


@pytest.fixture(scope="module")
def calls():
    return Workspace.from_code(CALLS, "calls.c")


def _set(text: str) -> isl.Set:
    return isl.Set(text)


def _equal(region, text: str) -> bool:
    return region.set.is_equal(_set(text))


def test_fir_kernel_summary(ws):
    s = ws["kernel"].resource("summary_regions")
    src, m, dst = s.find("src", "R"), s.find("m", "R"), s.find("dst", "W")
    assert _equal(src, "[i, k] -> { src[PHI1] : i <= PHI1 <= i + k - 1 }") and src.tag == "EXACT"
    assert _equal(m, "[k] -> { m[PHI1] : 0 <= PHI1 <= k - 1 }") and m.tag == "EXACT"
    assert _equal(dst, "[i] -> { dst[PHI1] : PHI1 = i }") and dst.tag == "EXACT"
    assert {r.var for r in s.regions} == {"src", "m", "dst"}  # no local, no by-value formal
    text = ws["kernel"].annotated("regions")
    assert "// <dst[PHI1]-W-EXACT-{PHI1==i}>" in text
    assert "// <src[PHI1]-R-EXACT-{i<=PHI1<=i+k-1}>" in text


def test_fir_inner_loop_and_single_iteration(ws):
    m = ws["kernel"]
    regs = m.resource("regions")
    (loop,) = m.all_loops
    assert _equal(regs.find(loop.node, "src", "R"), "[i, k] -> { src[PHI1] : i <= PHI1 <= i + k - 1 }")
    body = loop.node.stmt
    one = regs.find(body, "src", "R")
    assert one.set.is_subset(_set("[i, j] -> { src[PHI1] : PHI1 = i + j }"))
    assert {r.var for r in regs.of(loop.node) if r.mode == "R"} >= {"i", "src", "m", "v"}


def test_fir_call_site_adds_the_loop_precondition(ws):
    m = ws["fir"]
    regs = m.resource("regions")
    call = find_all(m.ast.body, c_ast.FuncCall)[0]
    src = regs.find(call, "src", "R")
    assert _equal(src, "[i, k, n] -> { src[PHI1] : i <= PHI1 <= i + k - 1 and 0 <= i <= n - k }")
    assert src.tag == "EXACT"
    assert _equal(regs.find(call, "dst", "W"), "[i, k, n] -> { dst[PHI1] : PHI1 = i and 0 <= i <= n - k }")
    # over the whole i loop: every element of src
    (loop,) = m.all_loops
    whole = regs.find(loop.node, "src", "R")
    assert whole.set.gist_params(_set("[n, k] -> { : 1 <= k <= n }")).is_equal(
        _set("[n, k] -> { src[PHI1] : 0 <= PHI1 <= n - 1 }"))


def test_guarded_write_is_a_may_region_over_the_whole_range(ws):
    m = ws["guarded"]
    regs = m.resource("regions")
    (loop,) = m.all_loops
    a = regs.find(loop.node, "a", "W")
    assert a.tag == "MAY"
    assert _equal(a, "[n] -> { a[PHI1] : 0 <= PHI1 <= n - 1 }")
    assert not a.must.is_equal(a.set) and a.must.is_subset(a.set)
    assert "<a[PHI1]-W-MAY-{0<=PHI1<=n-1}>" in m.annotated("regions")


def test_switch_reads_three_elements_may(ws):
    m = ws["sw"]
    regs = m.resource("regions")
    switch = find_all(m.ast.body, c_ast.Switch)[0]
    read = regs.find(switch, "in", "R")
    assert read.tag == "MAY"
    assert _equal(read, "[i] -> { in[PHI1] : i <= PHI1 <= i + 2 }")
    write = regs.find(switch, "out", "W")
    assert write.tag == "EXACT" and _equal(write, "[i] -> { out[PHI1] : PHI1 = i }")
    lo, hi = rectangular_hull(read)[0]
    assert (to_c(lo), to_c(hi)) == ("i", "i + 2")
    assert not hull_is_exact(read) and hull_is_exact(write)


def test_in_and_out_regions_tell_a_temporary_from_a_result(ws):
    m = ws["temp"]
    ins, outs = m.resource("in_regions"), m.resource("out_regions")
    first, second = m.all_loops
    # the function imports a only: tmp is written before it is read
    assert {r.var for r in ins.function_regions} == {"a", "n"}
    assert {r.var for r in ins.of(second.node)} >= {"tmp"}
    # what lives after each loop: the first exports tmp (read by the second), the second b
    assert {r.var for r in outs.of(first.node)} == {"tmp"}
    assert {r.var for r in outs.of(second.node)} == {"b"}
    assert {r.var for r in outs.function_regions} == {"b"}
    b = outs.find(second.node, "b")
    assert b.tag == "EXACT" and _equal(b, "[n] -> { b[PHI1] : 0 <= PHI1 <= n - 1 }")


def test_in_region_of_a_loop_subtracts_earlier_writes():
    ws = Workspace.from_code(r"""
void scan(int n, double a[n]) {
    for (int i = 1; i < n; i++)
        a[i] = a[i] + a[i - 1];
}
""")
    m = ws["scan"]
    (loop,) = m.all_loops
    a = m.resource("in_regions").find(loop.node, "a")
    assert a.tag == "EXACT" and _equal(a, "[n] -> { a[PHI1] : 0 <= PHI1 <= n - 1 and n >= 2 }")
    # a[i - 1] comes from the previous iteration except at i = 1, a[i] from the entry
    body = m.resource("in_regions").find(loop.node.stmt, "a")
    assert body.set.is_equal(_set("[i, n] -> { a[PHI1] : i - 1 <= PHI1 <= i and 1 <= i < n }"))


# durbin's middle loop as gpu_ify leaves it: a kernel per point (i bounded by its guard only)
# reads y[i] and y[k - i - 1], after earlier iterations of k wrote them
LEVINSON = r"""
void point(int k, int i, int n, double y[n], double z[n])
{
    if (i < k)
        z[i] = y[i] + 0.5 * y[k - i - 1];
}

void levinson(int n, double y[n], double z[n], int first)
{
    if (first)
        y[0] = 1.0;
    for (int k = 1; k < n; k++) {
        for (int i = 0; i < k; i++)
            point(k, i, n, y, z);
        for (int i = 0; i < k; i++)
            y[i] = z[i];
        y[k] = 0.25;
    }
}
"""


def test_in_region_keeps_a_union_that_its_convex_hull_would_widen():
    """IN regions keep a few convex pieces: {PHI1 == i} ∪ {PHI1 == k-i-1} (i < k) is exact,
    where its convex hull (over i, k and PHI1) is every element; READ regions stay convex."""
    m = Workspace.from_code(LEVINSON, "levinson.c")["point"]
    y = m.resource("summary_in_regions").find("y", "IN")
    assert y.tag == "EXACT"
    assert _equal(y, "[i, k] -> { y[PHI1] : (PHI1 = i or PHI1 = k - i - 1) and i < k }")
    assert y.text() == "<y[PHI1]-IN-EXACT-{PHI1==i, i<=k-1} or {PHI1==k-i-1, i<=k-1}>"
    read = m.resource("summary_regions").find("y", "R")
    assert read.tag == "MAY" and y.set.is_strict_subset(read.set)


def test_in_region_of_durbin_s_loop_is_what_no_earlier_iteration_wrote():
    """The calls over 0 <= i < k import y[0..k-1] exactly; over k, earlier iterations wrote all
    of it but y[0] at k = 1: the function imports y[0] only, and only when the test does not
    write it first (never less: an element read before it is written stays)."""
    m = Workspace.from_code(LEVINSON, "levinson.c")["levinson"]
    k_loop, i_loop, _ = m.all_loops
    ins = m.resource("in_regions")
    calls = ins.find(i_loop.node, "y")
    assert calls.tag == "EXACT" and _equal(calls, "[k, n] -> { y[PHI1] : 0 <= PHI1 < k < n }")
    assert _equal(ins.find(k_loop.node, "y"), "[n] -> { y[0] : n >= 2 }")
    y = m.resource("summary_in_regions").find("y", "IN")
    assert _equal(y, "[first, n] -> { y[0] : first = 0 and n >= 2 }")


MALLOC_SIZEOF = r"""
#include <stdlib.h>
void fill(int n, double *p) { for (int i = 0; i < n; i++) p[i] = i; }
int main(void)
{
    double *p = malloc(10 * sizeof(*p));
    double *q = malloc(10 * sizeof q);
    double *r = malloc(sizeof *r * 10);
    double *alias = r;
    fill(10, p);
    fill(10, q);
    fill(10, r);
    return (int)(p[3] + q[4] + alias[5]);
}
"""


def test_sizeof_operand_is_no_copy_of_the_pointer():
    """``p = malloc(n * sizeof(*p))`` and ``sizeof q`` copy nothing (the operand is not evaluated):
    p and q designate their own arrays and the calls write them exactly; r, copied into alias, may
    be written through it, so its region is MAY."""
    m = Workspace.from_code(MALLOC_SIZEOF, "t.c")["main"]
    regs = m.resource("regions")
    calls = [c for c in find_all(m.ast.body, c_ast.FuncCall) if c.name.name == "fill"]
    for call, var in zip(calls[:2], "pq"):
        w = regs.find(call, var, "W", rank=1)
        assert w.tag == "EXACT" and _equal(w, f"{{ {var}[PHI1] : 0 <= PHI1 <= 9 }}")
    assert regs.find(calls[2], "r", "W", rank=1).tag == "MAY"


# --------------------------------------------------------------------- call translation


def test_offsets_into_rows_and_delinearisation(calls):
    m = calls["rows"]
    regs = m.resource("regions")
    (loop,) = m.all_loops
    a = regs.find(loop.node, "A", "W")
    assert a.tag == "EXACT" and _equal(a, "[n, m] -> { A[PHI1, PHI2] : 0 <= PHI1 < n and 0 <= PHI2 < m }")
    call2, call3 = find_all(m.ast.body, c_ast.FuncCall)[1:3]
    assert _equal(regs.find(call2, "B", "W"), "{ B[1, PHI2] : 3 <= PHI2 <= 7 }")
    b40 = regs.find(call3, "B", "W")  # 40 elements from B[0][0]: two rows of 20
    assert b40.tag == "EXACT" and _equal(b40, "{ B[PHI1, PHI2] : 0 <= PHI1 <= 1 and 0 <= PHI2 <= 19 }")
    # globals read by the callee appear at the call site
    assert _equal(regs.find(call3, "G", "R"), "{ G[PHI1] : 0 <= PHI1 <= 39 }")


def test_non_affine_subscript_is_may_over_the_declared_extent(calls):
    m = calls["rows"]
    regs = m.resource("regions")
    st = find_all(m.ast.body, c_ast.Assignment)[-1]
    a = regs.find(st, "A", "W")
    assert a.tag == "MAY" and _equal(a, "[n, m] -> { A[PHI1, 1] : 0 <= PHI1 < n and m >= 2 }") or \
        _equal(a, "[n, m] -> { A[PHI1, 1] : 0 <= PHI1 < n }")


def test_vla_dimensions_must_match(calls):
    m = calls["vla"]
    regs = m.resource("regions")
    c1, c2, c3 = find_all(m.ast.body, c_ast.FuncCall)
    same = regs.find(c1, "A", "W")
    assert same.tag == "EXACT"
    assert _equal(same, "[n, m] -> { A[PHI1, PHI2] : 0 <= PHI1 < n and 0 <= PHI2 < m }")
    other = regs.find(c2, "D", "W")  # D has 2m columns: the formal's rows are not D's rows
    assert other.tag == "MAY"
    unknown = regs.of(c3)
    assert {r.var for r in unknown} >= {"A", "*anywhere*"}
    assert all(r.tag == "MAY" for r in unknown if r.var in ("A", "*anywhere*"))


def test_rectangular_hull_prints_as_c(calls):
    m = calls["rows"]
    (loop,) = m.all_loops
    a = m.resource("regions").find(loop.node, "A", "W")
    bounds = [(to_c(lo), to_c(hi)) for lo, hi in rectangular_hull(a)]
    assert bounds == [("0", "n - 1"), ("0", "m - 1")]


def test_regions_are_cached_per_function_and_shared_by_clones():
    ws = Workspace(CORPUS / "jacobi_2d.c")
    k = ws["kernel_jacobi_2d"]
    first = k.resource("regions")
    k.resource("summary_regions")
    assert ws.computations["region_analysis"] == 1  # one analysis behind the views
    k.resource("in_regions")
    k.resource("out_regions")
    assert ws.computations["in_region_analysis"] == 1  # IN/OUT: one more, only when asked
    assert ws.clone()["kernel_jacobi_2d"].resource("regions") is first


def test_jacobi_regions():
    ws = Workspace(CORPUS / "jacobi_2d.c")
    k = ws["kernel_jacobi_2d"]
    regs = k.resource("regions")
    t = k.all_loops[0]
    b = regs.find(t.node, "B", "W")
    assert b.tag == "EXACT"
    assert b.set.gist_params(_set("[n, tsteps] -> { : n >= 3 and tsteps >= 1 }")).is_equal(
        _set("[n] -> { B[PHI1, PHI2] : 1 <= PHI1 <= n - 2 and 1 <= PHI2 <= n - 2 }"))


@pytest.mark.parametrize("files", corpus_programs(), ids=program_id)
def test_every_corpus_program(files):
    ws = Workspace(*files)
    for m in ws.all_functions:
        regs = m.resource("regions")
        ins, outs = m.resource("in_regions"), m.resource("out_regions")
        summary = m.resource("summary_regions")
        summary_in = m.resource("summary_in_regions")
        for _, rs in regs.table.values():
            for r in rs:
                assert r.must.is_subset(r.set)
                assert r.text().startswith(f"<{r.var}")
        for node, rs in ins.table.values():
            reads = {r.key for r in regs.of(node) if r.mode == "R"}
            assert {r.key for r in rs} <= reads
        for node, rs in outs.table.values():
            written = {r.key: r for r in regs.of(node) if r.mode == "W"}
            for r in rs:
                assert r.set.is_subset(written[r.key].set)
        assert all(r.mode in ("R", "W") for r in summary.regions)
        assert all(r.mode == "IN" for r in summary_in.regions)


def test_regions_of_a_function_survive_changes_elsewhere():
    """Resources are per function: editing one function keeps the others' regions cached.

    Except where the analysis reads the callers: a function that writes
    through one of several pointer formals (axpy, matvec) checks at every
    call that the arguments do not overlap, so its static control parts (and
    what is built on them, up to the regions of their callers) follow any
    change that may add a call.
    """
    ws = Workspace(CORPUS / "multi_function.c")
    names = [m.name for m in ws.all_functions]
    kinds = ("regions", "scops", "dependences", "preconditions")
    before = {(n, r): ws[n].resource(r) for n in names for r in kinds}
    count = ws.computations["region_analysis"]
    main = ws["main"]
    main.code = main.code.replace("return 0;", "return 1;")
    for n in names:
        for r in kinds:
            again = ws[n].resource(r)
            follows_callers = (n in ("axpy", "matvec") and r != "preconditions") or (
                (n, r) == ("pipeline", "regions"))  # it translates axpy's summary at its call
            assert (again is before[n, r]) == (n != "main" and not follows_callers), (n, r)
    assert ws.computations["region_analysis"] == count + 4  # main, axpy, matvec, pipeline


DGEMM = r"""
#include <stdio.h>
#include <cblas.h>
double A[4 * 8], B[5 * 6], C[4 * 7];
void f(void) { cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 4, 3, 5, 1.0, A, 8, B, 6, 0.5, C, 7); }
int main(void) { f(); printf("%f\n", C[0]); return 0; }
"""


def test_cblas_dgemm_call_regions_follow_sizes_and_leading_dimensions(tmp_path):
    """The callee's ``i * lda + l`` is affine once its formals take the call's constants."""
    path = tmp_path / "dg.c"
    path.write_text(DGEMM)
    m = Workspace(path)["f"]
    (call,) = find_all(m.ast, c_ast.FuncCall)
    regs = m.resource("regions")
    # C[i * 7 + j], 0 <= i < 4, 0 <= j < 3; A[i * 8 + l], l < 5; B[l * 6 + j]
    for var, mode, last, ld, rows, cols, size in (("C", "W", 3 * 7 + 2, 7, 4, 3, 28),
                                                  ("A", "R", 3 * 8 + 4, 8, 4, 5, 32),
                                                  ("B", "R", 4 * 6 + 2, 6, 5, 3, 30)):
        r = regs.find(call, var, mode)
        assert r is not None and not r.set.params().dim(isl.dim_type.param)
        assert r.set.is_subset(_set(f"{{ {var}[PHI1] : 0 <= PHI1 <= {last} }}"))
        touched = _set(f"{{ {var}[PHI1] : exists i, j : PHI1 = {ld} i + j"
                       f" and 0 <= i < {rows} and 0 <= j < {cols} }}")
        assert touched.is_subset(r.set)
        assert r.set.is_subset(_set(f"{{ {var}[PHI1] : 0 <= PHI1 < {size} }}"))
        assert not r.set.is_equal(_set(f"{{ {var}[PHI1] : 0 <= PHI1 < {size} }}"))
