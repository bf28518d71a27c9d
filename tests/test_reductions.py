"""Reduction detection (Amini 2012 §4.4.1): statements, loops, function summaries, the corpus."""

from __future__ import annotations

import textwrap

import pytest
from conftest import CORPUS, corpus_programs, program_id
from passman.passes.analysis.reductions import loop_reduction_reasons, loop_reductions

from passman import Workspace

SUMPROD = r"""
void sumprod(double *x, double *y, double z) { *x = *x + z; *y = *y * z; }
double fsumprod(double *x, double *y, double z) { *x = *x + z; *y = *y * z; return z; }
void calls(int n, double s, double p)
{
    int i;
    for (i = 0; i < n; i++)
        sumprod(&s, &p, 2.0 + i);
    for (i = 0; i < n; i++) {
        sumprod(&s, &p, 2.0 + i);
        sumprod(&s, &p, fsumprod(&s, &p, 3.0));
    }
    for (i = 0; i < n; i++)
        sumprod(&p, &s, fsumprod(&s, &p, 3.0));
    for (i = 0; i < n; i++) {
        sumprod(&s, &p, 2.0 + i);
        sumprod(&p, &s, 1.0 - i);
    }
}
"""


def texts(reds) -> list[str]:
    return [r.text for r in reds]


def loops_of(ws, func):
    return ws[func].all_loops


def test_sum_and_product_detected_and_merged_across_calls_golden():
    ws = Workspace.from_code(SUMPROD, "sp.c")
    assert texts(ws["sumprod"].resource("reductions").summary) == ["sum[x[0]]", "prod[y[0]]"]
    assert ws["calls"].annotated("reductions") == textwrap.dedent("""\
        // summary reductions: (none)
        void calls(int n, double s, double p)
        {
            int i;
            // loop reductions: prod[p] sum[s]
            // loop l1
            for (i = 0; i < n; i++)
                // reductions: sum[s] prod[p]
                sumprod(&s, &p, 2.0 + i);
            // loop reductions: prod[p] sum[s]
            // loop l2
            for (i = 0; i < n; i++) {
                // reductions: sum[s] prod[p]
                sumprod(&s, &p, 2.0 + i);
                // reductions: sum[s] prod[p]
                sumprod(&s, &p, fsumprod(&s, &p, 3.0));
            }
            // loop l3
            for (i = 0; i < n; i++)
                sumprod(&p, &s, fsumprod(&s, &p, 3.0));
            // loop l4
            for (i = 0; i < n; i++) {
                // reductions: sum[s] prod[p]
                sumprod(&s, &p, 2.0 + i);
                // reductions: sum[p] prod[s]
                sumprod(&p, &s, 1.0 - i);
            }
        }
        """)
    l4 = loops_of(ws, "calls")[3]
    assert any("incompatible reductions" in why and "s" in why for why in loop_reduction_reasons(l4))


def test_self_sum_and_incompatible_reductions_on_one_variable_are_rejected():
    code = r"""
    void f(int n, double *a, double *out) {
        double b = 1, q = 0, s = 0, t = 0;
        for (int i = 0; i < n; i++) {
            b = b + b;
            q += a[i];
            q *= 2;
            s += a[i];
            s -= a[i] * a[i];
            t = t + a[i] - 1;
        }
        out[0] = b + q + s + t;
    }
    """
    ws = Workspace.from_code(code, "rej.c")
    loop = ws["f"].all_loops[0]
    assert texts(loop_reductions(loop)) == ["sum[s]", "sum[t]"]
    reasons = " ".join(loop_reduction_reasons(loop))
    assert "rej.c:4: loop l1: q has incompatible reductions (prod at rej.c:7, sum at rej.c:6)" in reasons
    stmt_reds = ws["f"].resource("reductions").statements
    assert not any(r.var == "b" for _, reds in stmt_reds.values() for r in reds)


def test_dot_product():
    ws = Workspace(CORPUS / "dot.c")
    (loop,) = ws["dot"].all_loops
    (red,) = loop_reductions(loop)
    assert (red.var, red.op, red.kind, red.subscripts) == ("s", "+", "scalar", None)


def test_max_and_min_reductions_in_every_form():
    code = r"""
    #include <math.h>
    void f(int n, const double *a, double *out) {
        double m1 = a[0], m2 = a[0], m3 = a[0], m4 = a[0], lo = a[0];
        for (int i = 0; i < n; i++) {
            m1 = fmax(m1, a[i]);
            m2 = m2 < a[i] ? a[i] : m2;
            if (a[i] > m3)
                m3 = a[i];
            m4 = a[i] > m4 ? a[i] : m4;
            lo = lo < a[i] ? lo : a[i];
        }
        out[0] = m1 + m2 + m3 + m4 + lo;
    }
    """
    ws = Workspace.from_code(code)
    loop = ws["f"].all_loops[0]
    assert {(r.var, r.op) for r in loop_reductions(loop)} == {
        ("m1", "max"), ("m2", "max"), ("m3", "max"), ("m4", "max"), ("lo", "min")}  # fmt: skip


def test_histogram_element_and_array_reductions():
    code = r"""
    int hist[256];
    void f(int n, const unsigned char *a, int k) {
        for (int i = 0; i < n; i++)
            hist[a[i]]++;
        for (int i = 0; i < n; i++)
            hist[k] += a[i];
        for (int i = 0; i < n; i++) {
            hist[k] += a[i];
            hist[3] = 0;
        }
    }
    """
    ws = Workspace.from_code(code)
    l1, l2, l3 = ws["f"].all_loops
    (r1,) = loop_reductions(l1)
    assert (r1.var, r1.op, r1.kind, r1.text) == ("hist", "+", "array", "sum[hist[*]]")
    (r2,) = loop_reductions(l2)
    assert (r2.kind, r2.subscripts) == ("array_element", ("k",))
    assert loop_reductions(l3) == ()  # hist[3] may be hist[k]
    assert "hist[3] written" in " ".join(loop_reduction_reasons(l3))
    assert ws["f"].resource("reductions").summary == ()  # hist[3] = 0 in l3


def test_conflicting_access_in_the_loop_body_is_not_a_reduction():
    code = r"""
    void f(int n, const double *a, double *b) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i];
            b[i] = s;
        }
    }
    """
    ws = Workspace.from_code(code, "conf.c")
    loop = ws["f"].all_loops[0]
    assert loop_reductions(loop) == ()
    assert loop_reduction_reasons(loop) == ("conf.c:4: loop l1: s is not a reduction: s read at conf.c:6",)


def test_side_effects_in_the_operand_and_used_increments_are_not_reductions():
    code = r"""
    void f(int n, int *s, int a, int b) {
        for (int i = 0; i < n; i++)
            s[a] = s[a] + b++;
    }
    """
    ws = Workspace.from_code(code)
    assert ws["f"].resource("reductions").statements == {}


def test_callee_summary_on_a_pointer_becomes_a_reduction_on_the_actual():
    code = r"""
    void acc(double *p, double v) { *p += v; }
    double total(int n, const double *a) {
        double s = 0;
        for (int i = 0; i < n; i++)
            acc(&s, a[i] * 2);
        return s;
    }
    """
    ws = Workspace.from_code(code)
    (red,) = loop_reductions(ws["total"].all_loops[0])
    assert (red.var, red.op, red.kind) == ("s", "+", "scalar")


def test_unknown_call_conflicts_with_a_global_but_not_with_a_private_local():
    code = r"""
    double g;
    void mystery(void);
    void f(int n, const double *a) {
        double s = 0;
        for (int i = 0; i < n; i++) { s += a[i]; g += a[i]; mystery(); }
        g += s;
    }
    """
    ws = Workspace.from_code(code)
    assert texts(loop_reductions(ws["f"].all_loops[0])) == ["sum[s]"]


@pytest.mark.parametrize("files", corpus_programs(), ids=program_id)
def test_corpus_reductions_are_written_in_their_loops(files):
    ws = Workspace(*files)
    for m in ws.all_functions:
        info = m.resource("reductions")
        cum = m.resource("cumulated_effects")
        for loop, reds in info.loops.values():
            written = {e.var for e in cum.of(loop.stmt) if e.action == "write"}
            for r in reds:
                assert r.var in written, (m.name, r.text)
                assert r.op in ("+", "*", "&", "|", "^", "&&", "||", "min", "max")
                assert r.kind in ("scalar", "array_element", "array")
