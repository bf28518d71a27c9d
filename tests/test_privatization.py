"""Scalar privatization: temporaries and loop indices, live-out scalars, refusals, the corpus."""

from __future__ import annotations

import textwrap

import pytest
from conftest import CORPUS, corpus_programs, program_id
from passman.passes.analysis import privatization
from passman.passes.analysis.privatization import loop_privates
from pycparser import c_ast

from passman import Workspace

MATMUL_T = r"""
#include <stdio.h>
void mm(int n, double A[n][n], double B[n][n], double C[n][n])
{
    int i, j, k;
    double t, last;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            t = 0;
            for (k = 0; k < n; k++)
                t += A[i][k] * B[k][j];
            C[i][j] = t;
            last = t;
        }
    printf("%f\n", last);
}
"""


def test_temporary_of_a_matrix_product_is_private_golden():
    ws = Workspace.from_code(MATMUL_T, "mmt.c")
    assert ws["mm"].annotated("private_variables") == textwrap.dedent("""\
        void mm(int n, double A[n][n], double B[n][n], double C[n][n])
        {
            int i;
            int j;
            int k;
            double t;
            double last;
            // private: i j k t
            // lastprivate: last
            // loop l1
            for (i = 0; i < n; i++)
                // private: j k t
                // lastprivate: last
                // loop l2
                for (j = 0; j < n; j++) {
                    t = 0;
                    // private: k
                    // loop l3
                    for (k = 0; k < n; k++)
                        t += A[i][k] * B[k][j];
                    C[i][j] = t;
                    last = t;
                }
            printf("%f\\n", last);
        }
        """)
    inner = ws["mm"].loop("l3")
    assert loop_privates(inner).why == (
        "mmt.c:10: loop l3: t is not private: it may be read at mmt.c:11 before being written in the "
        "iteration (its value flows between iterations)",)


def test_corpus_matmul_accumulator_declared_in_the_body():
    ws = Workspace(CORPUS / "matmul_global.c")
    outer = ws["matmul"].loops()[0]
    assert loop_privates(outer).private == ("i", "j", "k")  # sum is declared in the body
    assert loop_privates(outer).lastprivate == ()


def test_live_out_scalar_is_lastprivate_not_private():
    code = r"""
    int f(int n, const int *a) {
        int x = 0, i;
        for (i = 0; i < n; i++)
            x = a[i] * 2;
        return x + i;
    }
    """
    ws = Workspace.from_code(code)
    lp = loop_privates(ws["f"].loops()[0])
    assert lp.private == ()
    assert lp.lastprivate == ("i", "x")


def test_value_recomputed_after_the_loop_is_not_live_out():
    code = r"""
    int f(int n, const int *a, int *b) {
        int x, i;
        for (i = 0; i < n; i++) {
            x = a[i] * 2;
            b[i] = x;
        }
        x = 5;
        i = 0;
        return x + i;
    }
    """
    ws = Workspace.from_code(code)
    assert loop_privates(ws["f"].loops()[0]).private == ("i", "x")


def test_refusals_address_taken_global_touched_by_callee_flowing_value():
    code = r"""
    double g;
    void use(void) { g += 1; }
    void touch(double *p);
    void f(int n, double *a) {
        double t, s = 0, u;
        for (int i = 0; i < n; i++) {
            t = a[i];
            touch(&t);
            g = a[i];
            use();
            s = s + a[i];
            u = a[i];
            a[i] = u * 2;
        }
        a[0] = s;
    }
    """
    ws = Workspace.from_code(code, "ref.c")
    lp = loop_privates(ws["f"].loops()[0])
    assert lp.private == ("u",)
    why = "\n".join(lp.why)
    assert "ref.c:7: loop l1: t is not private: its address is taken at ref.c:9" in why
    assert "g is not private: a function called in the loop may access it" in why
    assert "s is not private: it may be read at ref.c:12" in why


def test_goto_disables_privatization():
    code = r"""
    void f(int n, int *a) {
        int t;
        for (int i = 0; i < n; i++) { t = a[i]; if (t < 0) goto out; a[i] = t; }
    out:
        a[0] = 0;
    }
    """
    ws = Workspace.from_code(code)
    lp = loop_privates(ws["f"].loops()[0])
    assert lp.private == () and "goto" in lp.why[0]


def test_conditional_write_is_not_private_when_read_unconditionally():
    code = r"""
    void f(int n, int *a) {
        int t = 0;
        for (int i = 0; i < n; i++) {
            if (a[i] > 0)
                t = a[i];
            a[i] = t;
        }
    }
    """
    ws = Workspace.from_code(code)
    assert loop_privates(ws["f"].loops()[0]).private == ()


def test_array_privatization_hook():
    code = r"""
    void f(int n, double *a) {
        double tmp[4];
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < 4; k++) tmp[k] = a[i] * k;
            a[i] = tmp[0] + tmp[3];
        }
    }
    """
    seen = []

    def privatizer(module, loop, arrays):
        seen.append((module.name, isinstance(loop, c_ast.For), arrays))
        return arrays, ()

    with pytest.MonkeyPatch.context() as mp:  # the decision is privatization.array_privatizer's
        mp.setattr(privatization, "array_privatizer", privatizer)
        ws = Workspace.from_code(code)
        lp = loop_privates(ws["f"].loops()[0])
    assert lp.private_arrays == ("tmp",)
    assert seen[0] == ("f", True, ("tmp",))  # the outer loop first, then the inner one


@pytest.mark.parametrize("files", corpus_programs(), ids=program_id)
def test_corpus_private_scalars_are_written_and_not_flowing(files):
    ws = Workspace(*files)
    for m in ws.all_functions:
        cum = m.resource("cumulated_effects")
        reds = m.resource("reductions")
        for loop, lp in m.resource("private_variables").values():
            assert not set(lp.private) & set(lp.lastprivate)
            written = {e.var for e in cum.of(loop) if e.action == "write" and e.subscripts is None}
            reduced = {r.var for r in reds.loop(loop)}
            for v in lp.private + lp.lastprivate:
                assert v in written, (m.name, v)
                assert v not in reduced, (m.name, v)


def test_global_written_directly_and_by_a_callee_is_not_private():
    code = r"""
    double g;
    double bump(double x) { g = g + x; return g; }
    void f(int n, double *a) {
        for (int i = 0; i < n; i++) {
            g = bump(a[i]);
            a[i] = g;
        }
    }
    """
    ws = Workspace.from_code(code)
    lp = loop_privates(ws["f"].loops()[0])
    assert "g" not in lp.private + lp.lastprivate
    assert any("g is not private: a function called in the loop may access it" in w for w in lp.why)
