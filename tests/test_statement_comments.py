"""Comments inside a function stay with their statements when a pass moves them (passman/statement_comments.py).

A function a pass changed is printed again by ``CompilationUnit.code``; the
comments of its body come back above the statements they were attached to at
parse time, as written and re-indented.
"""

from __future__ import annotations

import textwrap

from passman import Workspace
from passman.recipe import load_recipe
from passman.testing import assert_same_output, expect

O0 = {"cflags": ["-O0"]}
OPENMP = {"cflags": ["-O1", "-fopenmp"], "libs": ["-lm", "-fopenmp"], "env": {"OMP_NUM_THREADS": "1"}}

DISTRIBUTE = textwrap.dedent("""\
    #include <stdio.h>
    double a[100], b[100], c[100], d[100];

    /* untouched */
    static double g(int n)
    {
        // sum it
        double s = 0;   /* total */
        for (int i = 0; i < n; i++)
            s += a[i];
        return s;
    }

    void f(int n)
    {
        int i;  // the index
        /* the loop to split */
        for (i = 1; i < n; i++) {
            // reads b of the previous iteration
            a[i] = b[i - 1] + d[i];
            b[i] = c[i] + 1;   // b from c
                /* halve d,
                 * again */
            d[i] = d[i - 1] * 0.5;
        }
        if (n > 3) {
            a[0] += 1;
        } else {  // small n
            a[0] -= 1;
            // nothing else to do
        }  // end if
    }

    int main(void)
    {
        for (int i = 0; i < 100; i++) {
            a[i] = i; b[i] = 2 * i; c[i] = i % 7; d[i] = 1;
        }
        f(99);
        double s = 0;
        for (int i = 0; i < 100; i++)
            s += a[i] + 3 * b[i] + 5 * c[i] + 7 * d[i];
        printf("%g %g\\n", s, g(100));
        return 0;
    }
    """)


def test_comments_follow_statements_that_distribution_reorders(write_c):
    src = write_c(DISTRIBUTE)
    ws = Workspace(src)
    ws["f"].loop_distribution()
    code = ws.compilation_units[0].code
    head, tail = DISTRIBUTE.split("void f(int n)\n")
    assert code.startswith(head)  # g, untouched, byte for byte
    assert code.endswith(DISTRIBUTE[DISTRIBUTE.index("int main(void)"):])
    expect(code[code.index("void f(int n)"):code.index("int main")], """
        void f(int n)
        {
            // the index
            int i;
            /* the loop to split */
            for (i = 1; i < n; i++)
                // b from c
                b[i] = c[i] + 1;
            for (i = 1; i < n; i++)
                // reads b of the previous iteration
                a[i] = b[i - 1] + d[i];
            for (i = 1; i < n; i++)
                /* halve d,
                 * again */
                d[i] = d[i - 1] * 0.5;
            if (n > 3) {
                a[0] += 1;
            } else {
                // small n
                a[0] -= 1;
                // nothing else to do
                // end if
            }
        }

    """)
    assert_same_output([src], ws, **O0)


def test_module_code_prints_no_comments(write_c):
    ws = Workspace(write_c(DISTRIBUTE))
    ws["f"].loop_distribution()
    assert "//" not in ws["f"].code and "/*" not in ws["f"].code


INTERCHANGE = textwrap.dedent("""\
    #include <stdio.h>
    #define N 64
    double A[N][N], B[N][N];

    void k(int n)
    {
        int i, j;
        // over the columns
        for (j = 0; j < n; j++)
            for (i = 0; i < n; i++) {
                /* copy, transposed */
                A[i][j] = B[j][i] * 2;  // scaled
            }
    }

    int main(void)
    {
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                B[i][j] = i * N + j;
        k(N);
        double s = 0;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                s += A[i][j] * (i + 1);
        printf("%g\\n", s);
        return 0;
    }
    """)


def test_comments_follow_interchanged_loops(write_c):
    src = write_c(INTERCHANGE)
    ws = Workspace(src)
    ws["k"].loops()[0].interchange()
    code = ws.compilation_units[0].code
    expect(code[code.index("void k(int n)"):code.index("int main")], """
        void k(int n)
        {
            int i;
            int j;
            for (i = 0; i < n; i++)
                // over the columns
                for (j = 0; j < n; j++) {
                    /* copy, transposed */
                    // scaled
                    A[i][j] = B[j][i] * 2;
                }
        }

    """)
    assert_same_output([src], ws, **O0)


def test_an_unrolled_statement_keeps_its_comments_once(write_c):
    src = write_c(INTERCHANGE)
    ws = Workspace(src)
    ws["k"].loops()[0].loops()[0].unroll(4)
    body = ws.compilation_units[0].code.split("int main")[0]
    assert body.count("/* copy, transposed */") == 1 and body.count("// scaled") == 1
    first = body.index("A[i][j] = B[j][i] * 2;")
    assert body.index("// scaled") < first < body.index("A[i + 1][j]")  # above the first copy
    assert_same_output([src], ws, **O0)


OPENMP_PROGRAM = textwrap.dedent("""\
    #include <stdio.h>
    #define N 200

    static double x[N], y[N];

    static void axpy(double alpha)
    {
        /* y += alpha x */
        for (int i = 0; i < N; i++) {
            // one element
            y[i] += alpha * x[i];   /* fused */
        }
        // all done
    }

    int main(void)
    {
        for (int i = 0; i < N; i++) {
            x[i] = i;
            y[i] = N - i;
        }
        axpy(0.5);
        double s = 0;
        for (int i = 0; i < N; i++)
            s += y[i] * (i % 3);
        printf("%.3f\\n", s);
        return 0;
    }
    """)


def test_comments_stay_under_the_openmp_recipe(write_c):
    src = write_c(OPENMP_PROGRAM)
    ws = Workspace(src)
    load_recipe("openmp").main(ws, poly=False, min_work=0, region_work=0)
    code = ws.compilation_units[0].code
    axpy = code[code.index("static void axpy"):code.index("int main")]
    assert "#pragma omp parallel for" in axpy
    lines = [line.strip() for line in axpy.splitlines()]
    k = lines.index("/* y += alpha x */")
    assert lines[k + 1].startswith("#pragma omp parallel for") and lines[k + 2].startswith("for (int i = 0;")
    k = lines.index("// one element")
    assert lines[k + 1] == "/* fused */" and lines[k + 2] == "y[i] += alpha * x[i];"
    assert lines[-4:] == ["// all done", "}", "", ""] or lines[-3:] == ["// all done", "}", ""]
    assert_same_output([src], ws, **OPENMP)


def test_a_deleted_statement_takes_its_comments(write_c):
    src = write_c(textwrap.dedent("""\
        #include <stdio.h>
        int f(int n)
        {
            int unused = n * 2;  // never read
            // the result
            int r = n + 1;
            return r;
        }

        int main(void)
        {
            printf("%d\\n", f(4));
            return 0;
        }
        """))
    ws = Workspace(src)
    ws["f"].dead_code_elimination()
    code = ws.compilation_units[0].code
    assert "never read" not in code and "unused" not in code
    assert "    // the result\n    int r = n + 1;\n" in code
    assert_same_output([src], ws, **O0)
