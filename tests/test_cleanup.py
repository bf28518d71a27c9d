"""Dead code elimination, flatten_code, invariant code motion (passes/scalar/cleanup.py); the Fig. 5.6 fix point."""

from __future__ import annotations

import pytest
from conftest import CORPUS

from passman import PassFailed, Workspace
from passman.testing import assert_same_output, expect

O0 = {"cflags": ["-O0"]}


def refused(ws, module: str, apply, *words: str) -> str:
    before = ws[module].cu.code
    with pytest.raises(PassFailed) as err:
        apply()
    assert ws[module].cu.code == before
    for w in words:
        assert w in str(err.value), str(err.value)
    return str(err.value)


# -- dead code elimination --------------------------------------------------------------


def test_dce_shape(write_c):
    ws = Workspace(write_c("""
        #include <math.h>
        int g;
        int f(int n)
        {
            int t, u = 3;
            t = n * 2;
            u = t + 1;
            sqrt(2.0);
            t = t;
            return t;
            n = 0;
        }
    """))  # fmt: skip
    ws["f"].dead_code_elimination()
    expect(
        ws["f"].code,
        """
        int f(int n)
        {
            int t;
            t = n * 2;
            return t;
        }
        """,
    )


def test_dce_keeps_calls_stores_and_loops_that_matter(write_c):
    ws = Workspace(write_c("""
        int a[10], g;
        int h(int x) { g += x; return x; }
        int f(int n)
        {
            int i, k, dead;
            double tmp[10];
            dead = h(n);
            a[n] = 1;
            for (i = 0; i < n; i++)
                ;
            for (k = 0; k < n; k++) {
            }
            for (i = 0; i < 10; i++)
                tmp[i] = i * 2.0;
            while (g > 100)
                ;
            if (n > 3) {
            } else {
                g = 1;
            }
            return k;
        }
    """))  # fmt: skip
    ws["f"].dead_code_elimination()
    expect(
        ws["f"].code,
        """
        int f(int n)
        {
            int k;
            h(n);
            a[n] = 1;
            k = n > 0 ? n : 0;
            while (g > 100) ;
            if (!(n > 3)) {
                g = 1;
            }
            return k;
        }
        """,
    )


def test_dce_removes_array_stores_nobody_reads_by_out_regions(write_c):
    src = write_c(r"""
        #include <stdio.h>
        int g[10];
        double f(int n)
        {
            double t[4];
            int i;
            t[0] = 1.0;
            t[0] = 2.0;
            t[1] = 3.0;
            g[5] = n;
            for (i = 0; i < 4; i++)
                t[i] = i;
            for (i = 0; i < 2; i++)
                g[i] = t[i];
            return t[0] + n;
        }
        int main(void)
        {
            printf("%.1f %d %d\n", f(3), g[1], g[5]);
            return 0;
        }
    """)  # fmt: skip
    ws = Workspace(src)
    ws["f"].dead_code_elimination()
    code = ws["f"].code
    assert "t[0] = 1.0;" not in code and "t[0] = 2.0;" not in code and "t[1] = 3.0;" not in code
    assert "g[5] = n;" in code and "t[i] = i;" in code  # a global, and a store read later
    assert_same_output([src], ws, **O0)


def test_dce_refused_when_nothing_is_dead():
    ws = Workspace(CORPUS / "gemm.c")
    refused(ws, "kernel_gemm", ws["kernel_gemm"].dead_code_elimination, "nothing to remove", "gemm.c:")


def test_dce_pragmas_go_with_their_statement_and_unreachable_code(write_c):
    ws = Workspace(write_c("""
        int g;
        int f(int n)
        {
            switch (n) {
            case 1:
                g = 2;
                break;
                g = 3;
            case 2:
                return 5;
                g = 1;
            again:
                g++;
                if (g < 3)
                    goto again;
            }
            return g;
        }
        int h(int n)
        {
            int t = n;
        #pragma omp atomic
            t += 1;
        #pragma omp barrier
            return n;
        }
    """))  # fmt: skip
    ws["f"].dead_code_elimination()
    code = ws["f"].code
    assert "g = 3" not in code and "g = 1;" not in code and "again:" in code and "g = 2;" in code
    ws["h"].dead_code_elimination()
    code = ws["h"].code
    assert "atomic" not in code and "t += 1" not in code and "int t" not in code
    assert "#pragma omp barrier" in code  # a stand-alone directive stays


def test_dce_keeps_what_a_pragma_clause_reads(write_c):
    # fuzz case compile_error_pragma_condition_use: partial_eval folded the loop's bound, and
    # the run-time test of the loop's marker was left the only reader of m and p
    path = write_c("""
        #include <stdio.h>
        double a[100];
        int main(void)
        {
            int m = 1, p = 2, unused = 3;
            int i;
        #pragma omp parallel for if(m > 0) num_threads(p)
            for (i = 0; i < 100; i++)
                a[i] = i;
            printf("%g\\n", a[99]);
            return 0;
        }
    """)  # fmt: skip
    ws = Workspace(path)
    before = ws["main"].code
    ws["main"].dead_code_elimination()
    code = ws["main"].code
    assert "unused" in before and "unused" not in code  # the pass did run
    assert "int m = 1" in code and "p = 2" in code
    assert_same_output([path], ws)


# -- flatten_code ----------------------------------------------------------------------


def test_flatten_shape(write_c):
    ws = Workspace(write_c("""
        void f(int n, double *a)
        {
            int i;
            for (i = 0; i < n; i++) {
                double t = a[i] * 2;
                a[i] = t * t;
            }
            {
                int i = 3;
                static int calls = 0;
                a[i] = calls++;
            }
            for (int k = 0; k < 2; k++)
                a[k] += 1;
        }
    """))  # fmt: skip
    ws["f"].flatten_code()
    expect(
        ws["f"].code,
        """
        void f(int n, double *a)
        {
            int i;
            double t;
            int i_1;
            static int calls = 0;
            int k;
            for (i = 0; i < n; i++) {
                t = a[i] * 2;
                a[i] = t * t;
            }
            i_1 = 3;
            a[i_1] = calls++;
            for (k = 0; k < 2; k++)
                a[k] += 1;
        }
        """,
    )


def test_flatten_refuses_vla_sized_in_the_block(write_c):
    ws = Workspace(write_c("""
        double f(int n)
        {
            int m = n * 2;
            {
                double t[m];
                t[0] = 1.0;
                return t[0];
            }
        }
    """))  # fmt: skip
    refused(ws, "f", ws["f"].flatten_code, "variable-length array t", "computed inside the block")


def test_flatten_keeps_omp_private_declarations(write_c):
    ws = Workspace(write_c("""
        void f(int n, double *a)
        {
        #pragma omp parallel for
            for (int i = 0; i < n; i++) {
                double t = a[i];
                a[i] = t * t;
            }
            {
                double s = a[0];
                a[1] = s;
            }
        }
    """))  # fmt: skip
    ws["f"].flatten_code()
    code = ws["f"].code
    # private to each thread: stays in the loop
    assert "    for (int i = 0; i < n; i++) {\n        double t = a[i];" in code
    assert code.splitlines()[2] == "    double s;" and "    s = a[0];\n    a[1] = s;\n" in code


@pytest.mark.parametrize("program", ["adi", "dot", "histogram", "structs_pointers", "sor", "two_units"])
def test_flatten_on_corpus_keeps_output(program):
    files = sorted((CORPUS / program).glob("*.c")) if (CORPUS / program).is_dir() else [CORPUS / f"{program}.c"]
    ws = Workspace(*files)
    done = 0
    for m in ws.all_functions:
        try:
            m.flatten_code()
            done += 1
        except PassFailed:
            pass
    assert done
    assert_same_output(files, ws, **O0)


# -- invariant code motion -------------------------------------------------------------


def test_icm_shape(write_c):
    ws = Workspace(write_c("""
        void f(int n, double *a, double alpha, double beta)
        {
            int i;
            double t;
            for (i = 0; i < n; i++) {
                t = alpha * beta;
                double s = t + 1.0;
                a[i] = a[i] * s;
            }
        }
    """))  # fmt: skip
    ws["f"].loops()[0].invariant_code_motion()
    expect(
        ws["f"].code,
        """
        void f(int n, double *a, double alpha, double beta)
        {
            int i;
            double t;
            t = alpha * beta;
            double s = t + 1.0;
            for (i = 0; i < n; i++) {
                a[i] = a[i] * s;
            }
        }
        """,
    )


def test_icm_refusals(write_c):
    ws = Workspace(write_c("""
        int a[100];
        int f(int n, int d)
        {
            int i, t = 0, u, q = 0;
            for (i = 0; i < n; i++) {
                a[i] = t;
                t = d * 2;
            }
            for (i = 0; i < n; i++) {
                u = n / d;
                a[i] = u;
            }
            for (i = 0; i < n; i++) {
                q = a[0] + 1;
                a[i] = q;
            }
            return t + u + q;
        }
    """))  # fmt: skip
    used_before, trapping, memory = ws["f"].loops()
    refused(ws, "f", used_before.invariant_code_motion, "t may be read before it is assigned")
    refused(ws, "f", trapping.invariant_code_motion, "may run no iteration")
    refused(ws, "f", memory.invariant_code_motion, "a is written in the loop")


ICM = r"""
#include <stdio.h>
int a[64];

static int run(int n, int d, int k)
{
    int i, j, t = -1, u = -2, w = 0;
    for (i = 0; i < n; i++) {
        t = k * 3 + 1;
        u = t + d;
        a[i % 64] += u;
    }
    for (i = 0; i < 8; i++) {
        w = 100 / d;
        for (j = 0; j < n; j++) {
            int z = w * 2;
            a[(i + j) % 64] += z + j;
        }
    }
    return t * 10000 + u * 100 + w;
}

int main(void)
{
    long s = 0;
    int ns[] = {0, 1, 5, 40};
    for (int c = 0; c < 4; c++) {
        s += run(ns[c], c + 1, 7 - c);
        for (int q = 0; q < 64; q++)
            s = s * 7 % 1000003 + a[q];
    }
    printf("%ld\n", s);
    return 0;
}
"""


def test_icm_keeps_output_and_exit_values(write_c):
    src = write_c(ICM)
    ws = Workspace(src)
    moved = 0
    for loop in ws["run"].all_loops:
        try:
            loop.invariant_code_motion()
            moved += 1
        except PassFailed:
            pass
    code = ws["run"].code
    # w = 100 / d runs at least once (8 iterations): it moves; z = w * 2 moves out of the j loop
    assert code.index("w = 100 / d;") < code.index("for (i = 0; i < 8; i++)")
    assert code.index("int z = w * 2;") < code.index("for (j = 0; j < n; j++)")
    # t and u are read after a loop that may not run: they stay
    assert "        t = k * 3 + 1;\n" in code
    assert moved == 2
    assert_same_output([src], ws, **O0)


def test_icm_after_inlining_and_flattening_keeps_output():
    """inline + flatten_code expose invariant parameter bindings; ICM moves what it can."""
    src = CORPUS / "multi_function.c"
    ws = Workspace(src)
    ws["scale"].inline()
    ws["axpy"].inline()
    ws["pipeline"].flatten_code()
    for loop in ws["pipeline"].all_loops:
        try:
            loop.invariant_code_motion()
        except PassFailed:
            pass
    assert_same_output([src], ws, **O0)


@pytest.mark.parametrize("program", ["conv2d", "sor", "symm", "control_flow"])
def test_icm_on_corpus_keeps_output(program):
    src = CORPUS / f"{program}.c"
    ws = Workspace(src)
    for m in ws.all_functions:
        for loop in m.all_loops:
            try:
                loop.invariant_code_motion()
            except PassFailed:
                pass
    assert_same_output([src], ws, **O0)


# -- the PyPS Fig. 5.6 fix point ------------------------------------------------------------

FOLDABLE = r"""
#include <stdio.h>
#define SIZE 16
const int SCALE = 3;

static int scaled(int x)
{
    int verbose = 0;
    int factor = SCALE * 2;
    int y = x * factor;
    int spare = y - 1;
    if (verbose)
        printf("scaled %d\n", y);
    return y;
}

int main(void)
{
    int debug = 0;
    int n = SIZE;
    int m = n * SCALE;
    int unused = m * 2;
    long acc = 0;
    int a[SIZE * 3];
    for (int i = 0; i < m; i++)
        a[i] = scaled(i);
    if (debug) {
        printf("debug %d\n", m);
        unused++;
    }
    for (int i = 0; i < m; i++)
        acc += a[i] - 0;
    int tmp = acc * 2;
    printf("%ld\n", acc + n - SIZE);
    return 0;
    tmp++;
}
"""


def test_fig_5_6_partial_eval_and_dce_fixpoint(write_c):
    src = write_c(FOLDABLE)
    ws = Workspace(src)
    before = sum(len(m.code.splitlines()) for m in ws.all_functions)
    rounds = {}
    for module in ws.all_functions:
        rounds[module.name] = 0
        try:
            while True:
                module.partial_eval()
                module.dead_code_elimination()
                rounds[module.name] += 1
        except PassFailed:
            pass
    after = sum(len(m.code.splitlines()) for m in ws.all_functions)
    assert all(r >= 1 for r in rounds.values())
    assert after < before - 10
    assert "int y = x * 6;" in ws["scaled"].code and "verbose" not in ws["scaled"].code
    main = ws["main"].code
    assert "debug" not in main and "unused" not in main and "tmp" not in main
    assert "for (int i = 0; i < 48; i++)" in main
    assert_same_output([src], ws, **O0)
    assert ws.fixpoint(ws["main"].partial_eval, ws["main"].dead_code_elimination) == 0


def test_partial_eval_then_dce_on_corpus_keeps_output():
    src = CORPUS / "conv2d.c"
    ws = Workspace(src)
    for m in ws.all_functions:
        ws.fixpoint(m.partial_eval, m.dead_code_elimination)
    assert_same_output([src], ws, **O0)


def test_liveness_of_local_scalars(write_c):
    """The analysis under DCE: loops iterate to a fix point, globals and escaped locals are not tracked."""
    from passman.passes.analysis.liveness import ScalarFacts, liveness

    ws = Workspace(write_c("""
        int g;
        int f(int n)
        {
            int s = 0, t, u, e;
            int *p = &e;
            for (int i = 0; i < n; i++) {
                t = i * 2;
                s += t;
            }
            u = s;
            *p = u;
            return s + e;
        }
    """))  # fmt: skip
    facts = ScalarFacts(ws["f"])
    live = liveness(facts.func, facts.table, facts.env)
    items = facts.func.body.block_items
    loop, assign_u = items[-4], items[-3]
    assert live.names_after(loop) == ["p", "s"]
    assert live.names_after(assign_u) == ["p", "s", "u"]
    body = loop.stmt.stmt.block_items
    assert live.names_after(body[0]) == ["i", "n", "p", "s", "t"]
    assert all(d.name != "e" for d in facts.tracked.values())  # its address is taken
