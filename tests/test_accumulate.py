"""accumulate_in_place (passes/scalar/accumulate.py): differential runs, golden text, refusals, auto_schedule."""

from __future__ import annotations

import textwrap

import pytest
from conftest import CORPUS

from passman import PassFailed, Workspace
from passman.testing import assert_same_output, expect

# float data so that a change of rounding (or of the order of the sums) shows in the output
VARIANTS = r"""
#include <stdio.h>
#define N 37
static float A[N][N], B[N][N], C[N][N], D[N][N];
static double E[N][N];

/* sum -= e, with a non-zero initial value */
void mm_minus(int n, float A[n][n], float B[n][n], float C[n][n])
{
    int i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            float sum = 1.0f / (i + 1);
            for (k = 0; k < n; k++)
                sum -= A[i][k] * B[k][j];
            C[i][j] = sum;
        }
}

/* sum = sum + e and sum = e + sum, stored through an expression */
void mm_plus(int n, float A[n][n], float B[n][n], float D[n][n])
{
    int i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            float sum = 0.0f;
            for (k = 0; k < n; k += 2) {
                sum = sum + A[i][k] * B[k][j];
                if (k + 1 < n)
                    sum = A[i][k + 1] * B[k + 1][j] + sum;
            }
            D[i][j] = sum / 3.0f + A[i][j];
        }
}

/* sum *= e on doubles */
void products(int n, float A[n][n], double E[n][n])
{
    int i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            double p = 1.0;
            for (k = 0; k < 4; k++)
                p *= 1.0 + A[i][(j + k) % n] * 0.1;
            E[i][j] = p;
        }
}

int main(void)
{
    double s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = (float)((i * 7 + j * 3) % 13) / 7.0f;
            B[i][j] = (float)((i * 5 + j) % 11) / 3.0f;
        }
    mm_minus(N, A, B, C);
    mm_plus(N, A, B, D);
    products(N, A, E);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += C[i][j] * (i + 1) + D[i][j] * (j + 2) + E[i][j];
    printf("%.17g %.9g %.9g %.17g\n", s, C[3][5], D[7][2], E[1][1]);
    return 0;
}
"""

# the accumulator declared at the top of the function, reset before each loop
TOP_DECLARED = r"""
#include <stdio.h>
#define N 53
static double a[N][N], x[N], y[N];

void gemv(int n)
{
    double s;
    int i, j;
    for (i = 0; i < n; i++) {
        s = 0;
        for (j = 0; j < n; j++)
            s += a[i][j] * x[j];
        y[i] = s;
    }
}

int main(void)
{
    double t = 0;
    for (int i = 0; i < N; i++) {
        x[i] = (i % 7) / 3.0;
        for (int j = 0; j < N; j++)
            a[i][j] = ((i + 2 * j) % 9) / 7.0;
    }
    gemv(N);
    for (int i = 0; i < N; i++)
        t += y[i] * (i % 5 - 2);
    printf("%.17g\n", t);
    return 0;
}
"""


# -- differential runs ------------------------------------------------------------------


@pytest.mark.parametrize("program,func", [("matmul_global", "matmul"), ("conv2d", "conv2d")])
def test_corpus_nests_keep_their_exact_output(program, func):
    src = CORPUS / f"{program}.c"
    ws = Workspace(src)
    before = ws[func].code
    ws[func].accumulate_in_place()
    code = ws[func].code
    assert code != before
    assert "sum" not in code and "acc" not in code
    assert_same_output([src], ws)


def test_conv2d_keeps_the_final_expression():
    ws = Workspace(CORPUS / "conv2d.c")
    ws["conv2d"].accumulate_in_place()
    code = ws["conv2d"].code
    assert "o[i][j] += f[di][dj] * in[i + di - r][j + dj - r];" in code
    assert "o[i][j] = o[i][j] / 256.0f;" in code


def test_vla_products_minus_plus_and_times(write_c):
    src = write_c(VARIANTS)
    ws = Workspace(src)
    for f in ("mm_minus", "mm_plus", "products"):
        ws[f].accumulate_in_place()
    code = "\n".join(ws[f].code for f in ("mm_minus", "mm_plus", "products"))
    assert "sum" not in code and "double p" not in code
    assert "C[i][j] -= A[i][k] * B[k][j];" in code
    assert "D[i][j] = D[i][j] + A[i][k] * B[k][j];" in code
    assert "D[i][j] = A[i][k + 1] * B[k + 1][j] + D[i][j];" in code
    assert "D[i][j] = D[i][j] / 3.0f + A[i][j];" in code
    assert "E[i][j] *= 1.0 + A[i][(j + k) % n] * 0.1;" in code
    assert_same_output([src], ws)


def test_accumulator_declared_at_the_top(write_c):
    src = write_c(TOP_DECLARED)
    ws = Workspace(src)
    ws["gemv"].accumulate_in_place()
    expect(ws["gemv"].code, """
        void gemv(int n)
        {
            int i;
            int j;
            for (i = 0; i < n; i++) {
                y[i] = 0;
                for (j = 0; j < n; j++)
                    y[i] += a[i][j] * x[j];
            }
        }
    """)
    assert_same_output([src], ws)


# -- golden text ------------------------------------------------------------------------


def test_matmul_golden():
    ws = Workspace(CORPUS / "matmul_global.c")
    ws["matmul"].accumulate_in_place()
    expect(ws["matmul"].code, """
        void matmul(void)
        {
            int i;
            int j;
            int k;
            for (i = 0; i < 150; i++) {
                for (j = 0; j < 150; j++) {
                    C[i][j] = 0.0;
                    for (k = 0; k < 150; k++)
                        C[i][j] += A[i][k] * B[k][j];
                }
            }
        }
    """)


# -- refusals ---------------------------------------------------------------------------

REFUSED = {
    "double_into_float": (
        """
        float C[8][8]; double A[8][8];
        void f(int n)
        {
            int i, j, k;
            for (i = 0; i < n; i++)
                for (j = 0; j < n; j++) {
                    double sum = 0.0;
                    for (k = 0; k < n; k++)
                        sum += A[i][k];
                    C[i][j] = sum;
                }
        }
        """,
        "sum is double but the elements of C are float",
    ),
    "target_read_in_loop": (
        """
        double C[8][8];
        void f(int n)
        {
            int i, j, k;
            for (i = 0; i < n; i++)
                for (j = 0; j < n; j++) {
                    double sum = 0.0;
                    for (k = 0; k < n; k++)
                        sum += C[i][k];
                    C[i][j] = sum;
                }
        }
        """,
        "the loop accesses C at t.c:9",
    ),
    "used_after_store": (
        """
        double A[8][8], C[8][8], total;
        void f(int n)
        {
            int i, j, k;
            double sum;
            for (i = 0; i < n; i++)
                for (j = 0; j < n; j++) {
                    sum = 0.0;
                    for (k = 0; k < n; k++)
                        sum += A[i][k];
                    C[i][j] = sum;
                    total += sum;
                }
        }
        """,
        "sum is also used at t.c:12",
    ),
    "subscript_written_in_loop": (
        """
        double A[8][8], y[8];
        void f(int n)
        {
            int i, k, m = 0;
            for (i = 0; i < n; i++) {
                double sum = 0.0;
                for (k = 0; k < n; k++) {
                    sum += A[i][k];
                    m = k;
                }
                y[m] = sum;
            }
        }
        """,
        "m, in subscript m, is written in the loop",
    ),
    "impure_call_in_loop": (
        """
        double A[8][8], y[8];
        int calls;
        double get(int i, int k) { calls++; return A[i][k]; }
        void f(int n)
        {
            int i, k;
            for (i = 0; i < n; i++) {
                double sum = 0.0;
                for (k = 0; k < n; k++)
                    sum += get(i, k);
                y[i] = sum;
            }
        }
        """,
        "the loop calls get at t.c:10",
    ),
    "return_in_loop": (
        """
        double A[8][8], y[8];
        void f(int n)
        {
            int i, k;
            for (i = 0; i < n; i++) {
                double sum = 0.0;
                for (k = 0; k < n; k++) {
                    if (A[i][k] < 0)
                        return;
                    sum += A[i][k];
                }
                y[i] = sum;
            }
        }
        """,
        "the loop may leave early",
    ),
    "no_pattern": (
        """
        double A[8][8], y[8];
        void f(int n)
        {
            int i, k;
            for (i = 0; i < n; i++)
                for (k = 0; k < n; k++)
                    y[i] += A[i][k];
        }
        """,
        "f: no accumulation",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refusals_leave_the_function_unchanged(write_c, case):
    code, reason = REFUSED[case]
    ws = Workspace(write_c(textwrap.dedent(code).lstrip("\n")))
    before = ws["f"].code
    with pytest.raises(PassFailed) as err:
        ws["f"].accumulate_in_place()
    assert reason in str(err.value)
    assert ws["f"].code == before


def test_refused_sites_do_not_block_legal_ones(write_c):
    src = write_c("""
        double A[8][8], C[8][8], y[8], total;
        void f(int n)
        {
            int i, k;
            double t;
            for (i = 0; i < n; i++) {
                double sum = 0.0;
                for (k = 0; k < n; k++)
                    sum += A[i][k];
                y[i] = sum;
                t = 0.0;
                for (k = 0; k < n; k++)
                    t += A[k][i];
                C[i][0] = t;
                total += t;
            }
        }
    """)
    ws = Workspace(src)
    ws["f"].accumulate_in_place()
    code = ws["f"].code
    assert "y[i] += A[i][k];" in code and "t += A[k][i];" in code and "sum" not in code


# -- enabling the polyhedral scheduler --------------------------------------------------


def test_auto_schedule_accepts_matmul_after_the_pass():
    src = CORPUS / "matmul_global.c"
    ws = Workspace(src)
    with pytest.raises(PassFailed, match="declaration of sum"):
        ws.clone()["matmul"].auto_schedule(accumulate=False)
    ws["matmul"].accumulate_in_place()
    ws["matmul"].auto_schedule(accumulate=False)
    assert "double sum" not in ws["matmul"].code
    # the k loop still runs in increasing order for each C[i][j]: the sums are the same
    assert_same_output([src], ws)


def test_auto_schedule_accumulates_in_place_itself():
    src = CORPUS / "matmul_global.c"
    ws = Workspace(src)
    ws["matmul"].auto_schedule()
    code = ws["matmul"].code
    assert "double sum" not in code and "C[c" in code and "+= 32" in code, code  # tiled
    assert [s.pass_name for s in ws.history.steps if s.changed] == ["accumulate_in_place", "auto_schedule"]
    assert_same_output([src], ws)


CLIPPED = """
#include <stdio.h>
#define N 60
static double a[N][N], b[N];
static void kernel(int n)
{
    int i, k;
    for (i = 0; i < n; i++) {
        double s = 0.0;
        for (k = 0; k < n; k++)
            s += a[i][k];
        b[i] = s;
        if (b[i] > 40.0)
            b[i] = 40.0;
    }
}
int main(void)
{
    double t = 0.0;
    for (int i = 0; i < N; i++)
        for (int k = 0; k < N; k++)
            a[i][k] = (i * k % 7) * 0.25;
    kernel(N);
    for (int i = 0; i < N; i++)
        t += b[i] * (i % 3);
    printf("%.6f\\n", t);
    return 0;
}
"""


def test_auto_schedule_undoes_the_accumulation_when_it_fails(write_c):
    """Accumulating in place is legal here, but the part keeps a data-dependent if: refused."""
    src = write_c(CLIPPED)
    ws = Workspace(str(src))
    before = ws["kernel"].code
    trial = ws.clone()
    trial["kernel"].accumulate_in_place()  # applies on its own
    assert "double s" not in trial["kernel"].code
    assert_same_output([src], trial)
    with pytest.raises(PassFailed, match="condition that is not affine"):
        ws["kernel"].auto_schedule()
    assert ws["kernel"].code == before
