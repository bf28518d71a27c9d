"""Forward substitution, induction variables, partial evaluation (passes/scalar/substitution.py)."""

from __future__ import annotations

import textwrap

import pytest
from conftest import CORPUS

from passman import PassFailed, Workspace
from passman.testing import assert_same_output, expect

O0 = {"cflags": ["-O0"]}

GLOBALS = "const int N = 8;\nint a[100], b[100];\n"


def unit(code: str, head: str = "") -> str:
    return f"{head}\n{GLOBALS}{textwrap.dedent(code)}"


def refused(ws, module: str, apply, *words: str) -> str:
    before = ws[module].cu.code
    with pytest.raises(PassFailed) as err:
        apply()
    assert ws[module].cu.code == before
    for w in words:
        assert w in str(err.value), str(err.value)
    return str(err.value)


# -- forward substitution ------------------------------------------------------------


def test_forward_substitute_shape(write_c):
    ws = Workspace(write_c(unit("""
        void f(int i)
        {
            int t, u;
            t = a[i] * 2;
            u = t + 1;
            b[i] = t * u;
        }
    """)))  # fmt: skip
    ws["f"].forward_substitute()
    expect(
        ws["f"].code,
        """
        void f(int i)
        {
            int t;
            int u;
            b[i] = a[i] * 2 * (a[i] * 2 + 1);
        }
        """,
    )


def test_forward_substitute_casts_and_stops_at_writes(write_c):
    ws = Workspace(write_c(unit("""
        int f(int i)
        {
            double d = i * 1.5;
            int q, t;
            q = d;
            t = a[i];
            a[i] = 0;
            b[i] = t;
            return q + t;
        }
    """)))  # fmt: skip
    ws["f"].forward_substitute()
    code = ws["f"].code
    # q = d converts: the copy is cast to the type of q
    assert "return (int)(i * 1.5) + t;" in code
    # a[i] changes between t = a[i] and its uses: t stays
    assert "t = a[i];\n    a[i] = 0;\n    b[i] = t;" in code


def test_forward_substitute_refused_when_nothing_changes(write_c):
    ws = Workspace(write_c(unit("""
        int g(int i)
        {
            int t;
            t = i++;
            a[0] = t;
            return t + i;
        }
    """)))  # fmt: skip
    refused(ws, "g", ws["g"].forward_substitute, "t.c:", "forward_substitute", "no use")


# -- induction variables ---------------------------------------------------------------


def test_induction_substitution_shape(write_c):
    ws = Workspace(write_c(unit("""
        void f(int n)
        {
            int i, k;
            k = 0;
            for (i = 0; i < n; i++) {
                a[k] = b[i];
                k += 2;
            }
            b[0] = k;
        }
    """)))  # fmt: skip
    ws["f"].induction_substitution()
    expect(
        ws["f"].code,
        """
        void f(int n)
        {
            int i;
            int k;
            k = 0;
            for (i = 0; i < n; i++) {
                a[2 * i] = b[i];
            }
            k = n > 0 ? 2 * n : 0;
            b[0] = k;
        }
        """,
    )


def test_induction_without_known_start_and_with_step(write_c):
    ws = Workspace(write_c(unit("""
        void f(int n, int k)
        {
            int i;
            for (i = 1; i < n; i += 2) {
                k++;
                a[k] = b[i];
                k += 3;
            }
            b[0] = k;
        }
    """)))  # fmt: skip
    ws["f"].induction_substitution()
    code = ws["f"].code
    assert "a[k + 2 * (i - 1) + 1] = b[i];" in code
    assert "k = n > 1 ? k + 4 * (n / 2) : k;" in code


INDUCTION = r"""
#include <stdio.h>
int a[1000], b[1000];

static int walk(int n, int start)
{
    int i, k = start, m = 0, j = 5;
    for (i = 0; i < n; i++) {
        a[k] = b[i] + m;
        k += 3;
        m--;
    }
    for (i = 2; i <= n; i += 4) {
        j = j + 2;
        a[j] += i;
    }
    return k * 1000 + m * 10 + j;
}

int main(void)
{
    for (int q = 0; q < 1000; q++)
        b[q] = q % 13;
    long s = 0;
    int ns[] = {0, -3, 1, 7, 100};
    for (int c = 0; c < 5; c++) {
        s += walk(ns[c], c);
        for (int q = 0; q < 1000; q++)
            s = s * 3 % 1000003 + a[q];
    }
    printf("%ld\n", s);
    return 0;
}
"""


def test_induction_substitution_keeps_output(write_c):
    src = write_c(INDUCTION)
    ws = Workspace(src)
    ws["walk"].induction_substitution()
    code = ws["walk"].code
    assert "k += 3" not in code and "m--" not in code and "j = j + 2" not in code
    assert_same_output([src], ws, **O0)


def test_induction_refused_without_induction_variables():
    ws = Workspace(CORPUS / "gemm.c")
    refused(ws, "kernel_gemm", ws["kernel_gemm"].induction_substitution, "no induction variable")


def test_induction_conditional_increment_is_not_an_induction(write_c):
    ws = Workspace(write_c(unit("""
        void f(int n)
        {
            int i, k = 0;
            for (i = 0; i < n; i++) {
                if (b[i])
                    k++;
                a[k] = i;
            }
        }
    """)))  # fmt: skip
    refused(ws, "f", ws["f"].induction_substitution, "no induction variable")


# -- partial evaluation -------------------------------------------------------------


def test_partial_eval_shape(write_c):
    ws = Workspace(write_c(unit("""
        void f(int *p)
        {
            int k = 2, m;
            m = k * N + 1;
            if (m > 10)
                p[0] = m;
            else
                p[0] = -m;
        }
    """)))  # fmt: skip
    ws["f"].partial_eval()
    expect(
        ws["f"].code,
        """
        void f(int *p)
        {
            int k = 2;
            int m;
            m = 17;
            p[0] = 17;
        }
        """,
    )


def test_partial_eval_leaves_floats_and_types_alone(write_c):
    ws = Workspace(write_c(unit("""
        double f(double x, int n)
        {
            long big = 3;
            int j = 1;
            double h = 0.1;
            x = x + 1.0 - 1.0;
            x = x * h;
            b[0] = n * big + (j - j) + n - 1 + 1;
            if (0)
                return 2.0;
            return x;
        }
    """)))  # fmt: skip
    ws["f"].partial_eval()
    code = ws["f"].code
    assert "x = x + 1.0 - 1.0;" in code  # floating point is never folded
    assert "x = x * h;" in code  # nor propagated
    assert "b[0] = n * 3L + n;" in code  # a long constant keeps its type
    assert "return 2.0" not in code


def test_partial_eval_single_definition_must_dominate(write_c):
    ws = Workspace(write_c(unit("""
        int f(int n)
        {
            int k, s = 0;
            for (int i = 0; i < n; i++) {
                s += k;
                k = 4;
            }
            return s;
        }
    """)))  # fmt: skip
    refused(ws, "f", ws["f"].partial_eval, "no constant")


@pytest.mark.parametrize("program", ["conv2d", "covariance", "prefix_sum", "heat_3d", "control_flow"])
def test_partial_eval_on_corpus_keeps_output(program):
    src = CORPUS / f"{program}.c"
    ws = Workspace(src)
    changed = 0
    for m in ws.all_functions:
        try:
            m.partial_eval()
            changed += 1
        except PassFailed:
            pass
    assert changed
    assert_same_output([src], ws, **O0)


@pytest.mark.parametrize("program", ["adi", "control_flow", "sor", "dot"])
def test_forward_substitute_on_corpus_keeps_output(program):
    src = CORPUS / f"{program}.c"
    ws = Workspace(src)
    for m in ws.all_functions:
        try:
            m.forward_substitute()
        except PassFailed:
            pass
    assert_same_output([src], ws, **O0)


SUBST = r"""
#include <stdio.h>
double x[64];
int idx[64];

static double mix(int n, double w)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double t = x[i] * w;
        int j = i * 3 % 64;
        char c = i * 37;
        float f = t;
        s += f;
        x[j] = t + 1.0;
        s += t * f + c + x[j];
        idx[i] = j;
        j = idx[(i + 1) % 64];
        s += j;
    }
    return s;
}

int main(void)
{
    for (int i = 0; i < 64; i++)
        x[i] = i * 0.25;
    printf("%.6f\n", mix(64, 1.5));
    printf("%.6f\n", mix(10, -0.5));
    return 0;
}
"""


def test_forward_substitute_types_and_stores_keep_output(write_c):
    src = write_c(SUBST)
    ws = Workspace(src)
    ws["mix"].forward_substitute()
    code = ws["mix"].code
    assert "(char)(i * 37)" in code and "(float)(x[i] * w)" in code
    assert_same_output([src], ws, **O0)
