"""The wrong-code classes the fuzzer found (issue 12), each at the pass that was wrong.

End to end, their shrunk programs live in ``tests/corpus/fuzz/`` and go
through the whole OpenMP recipe (``tests/test_fuzz.py``). Here each class is
pinned where its root cause was:

* W, B, C: a pragma mark on a loop that isl's AST generation leaves out
  (a tile loop that runs once per wavefront, a tile larger than its loop)
  landed on the loop below it: the time loop, a loop whose iterations write
  the same element, a loop that writes shared scalars. The mark now binds to
  the iterator of its own loop (``isl_ast.bind_mark``) and is dropped with it.
* D: an array-section reduction while the statement also reads another
  element of the array (the private copy reads 0).
* E: a reduction section naming an index of the collapsed nest.
* F: isl's scheduler failing ("unable to carry dependences") escaped as an
  internal error.
* G: a rewritten later part hid, from the cached name table, that it reads
  an earlier loop's index after the loop (the index's final value was lost).
* H: a pointer formal that a call binds to a global the function names, or
  to the array another formal gets, was assumed to overlap nothing.
"""

from __future__ import annotations

import os

import pytest
from passman.passes.parallel.omp_clauses import varying_section

from passman import PassFailed, Workspace
from passman.builder import run
from passman.testing import outputs_match, reference_output

PROLOGUE = "#include <stdio.h>\n"

W = PROLOGUE + """
double B[20];
int main(void)
{
    int i, j;
    for (i = 0; i < 20; i++)
        B[i] = i * 0.5;
    for (i = 0; i < 50; i++)
        for (j = 1; j < 12; j++)
            B[j] = 0.5 * (B[j - 1] + B[j]);
    double s = 0;
    for (i = 0; i < 20; i++)
        s += B[i] * (i + 1);
    printf("%.17g\\n", s);
    return 0;
}
"""

W_KERNEL = PROLOGUE + """
double B[20];
void kernel(void)
{
    int i, j;
    for (i = 0; i < 50; i++)
        for (j = 1; j < 12; j++)
            B[j] = 0.5 * (B[j - 1] + B[j]);
}
int main(void)
{
    int i;
    for (i = 0; i < 20; i++)
        B[i] = i * 0.5;
    kernel();
    double s = 0;
    for (i = 0; i < 20; i++)
        s += B[i] * (i + 1);
    printf("%.17g\\n", s);
    return 0;
}
"""

B = PROLOGUE + """
double A[40], B[40][40];
int main(void)
{
    int i, j, n = 30;
    for (i = 0; i < 40; i++) {
        A[i] = i;
        for (j = 0; j < 40; j++)
            B[i][j] = i * 40 + j;
    }
    for (i = 1; i < n + 1; i++)
        for (j = 1; j < n - 2; j++)
            if (j + i < 9)
                A[j] = B[i][j];
    double s = 0;
    for (i = 0; i < 40; i++)
        s += A[i] * (i + 1);
    printf("%.17g\\n", s);
    return 0;
}
"""

C = PROLOGUE + """
double A[40], B[40][40];
int main(void)
{
    int t, i, j;
    double t6 = 0, t7 = 0;
    for (i = 0; i < 40; i++) {
        A[i] = i * 0.3;
        for (j = 0; j < 40; j++)
            B[i][j] = (i * 7 + j) % 11 * 0.1;
    }
    for (t = 0; t < 3; t++)
        for (i = 1; i < 3; i++)
            for (j = 1; j < 4; j += 2) {
                t6 = 0.75 * B[j][j] + 0.3 * A[j - 1];
                B[t + j][j] = 0.5 * t6 + A[2 * t + 1];
                t7 = 0.75;
                A[t] = 0.5 * t7 + 1.5 * B[i - 1][j + 3];
            }
    double s = 0;
    for (i = 0; i < 40; i++) {
        s += A[i] * (i + 1);
        for (j = 0; j < 40; j++)
            s += B[i][j] * (i + 2 * j + 1);
    }
    printf("%.17g %.17g %.17g\\n", s, t6, t7);
    return 0;
}
"""

D = PROLOGUE + """
double C[20][20];
int main(void)
{
    int i, k;
    for (i = 0; i < 20; i++)
        for (k = 0; k < 20; k++)
            C[i][k] = i + k * 0.25;
    for (i = 0; i < 1000; i++)
        for (k = 0; k < 10; k++)
            C[k][15] += C[16][k];
    double s = 0;
    for (i = 0; i < 20; i++)
        for (k = 0; k < 20; k++)
            s += C[i][k] * (i + 1 + k);
    printf("%.17g\\n", s);
    return 0;
}
"""

E = PROLOGUE + """
double A[40][40], B[40][40];
int main(void)
{
    int i, j, k;
    for (i = 0; i < 40; i++)
        for (j = 0; j < 40; j++) {
            A[i][j] = i + j;
            B[i][j] = i - j;
        }
    for (i = 0; i < 8; i++)
        for (j = 0; j < 16; j++)
            for (k = 15; k >= 3; k--) {
                if (i < 4)
                    A[i][12] += 3;
                B[i + 3][k - 1] += j * 1.5;
            }
    double s = 0;
    for (i = 0; i < 40; i++)
        for (j = 0; j < 40; j++)
            s += (A[i][j] + 2 * B[i][j]) * (i + 2 * j + 1);
    printf("%.17g\\n", s);
    return 0;
}
"""

F = PROLOGUE + """
double C[40][40];
int main(void)
{
    int t, i, j;
    for (i = 0; i < 40; i++)
        for (j = 0; j < 40; j++)
            C[i][j] = (i * 3 + j) % 7 * 0.1;
    for (t = 0; t < 5; t++)
        for (i = 1; i < 9; i++)
            for (j = 3; j < 8; j += 2)
                C[t + 2][i + j] = 0.2 * C[j + i][j] + 0.3 * C[i][13] + C[i][2] * C[2 * t][j];
    double s = 0;
    for (i = 0; i < 40; i++)
        for (j = 0; j < 40; j++)
            s += C[i][j] * (i + 1 + j);
    printf("%.17g\\n", s);
    return 0;
}
"""


def same_at_every_thread_count(ws: Workspace, src, tmp_path, rtol: float = 0.0) -> None:
    """Build ``ws`` with OpenMP and compare with the original at 1, 2 and 4 threads."""
    built = ws.build("openmp", tmp_path / "out", opt="-O1")
    ref = reference_output([src]).stdout
    for threads in (1, 2, 4):
        got = run(built.binary, env={**os.environ, "OMP_NUM_THREADS": str(threads)}, timeout=60)
        assert outputs_match(ref, got.stdout, rtol=rtol), (threads, ref, got.stdout, ws["main"].code)


# W as an explicit tree: the wavefront of 32x32 tiles of (i, i + j); at i < 50 and
# i + j < 62 every front holds one tile, so isl leaves the marked tile loop out
WAVEFRONT = """
{ domain: "{ S0[i, j] : 0 <= i <= 49 and 0 < j <= 11 }",
  child: { schedule: "[{ S0[i, j] -> [(floor((i)/32) + floor((i + j)/32))] }]",
  child: { mark: "omp parallel for",
  child: { schedule: "[{ S0[i, j] -> [(i + j - (i + j) mod 32)] }]",
  child: { schedule: "[{ S0[i, j] -> [(i)] }]",
  child: { schedule: "[{ S0[i, j] -> [(i + j)] }]" } } } } } }
"""


def test_a_mark_on_a_loop_isl_leaves_out_reaches_no_other_loop(write_c, tmp_path):
    src = write_c(W_KERNEL)
    ws = Workspace(str(src))
    kernel = ws["kernel"]
    kernel.apply_schedule(part=0, tree=WAVEFRONT)  # legal: the check passes it
    (front,) = kernel.loops()
    (time,) = front.loops()  # the tile loop is left out: the time loop is next
    (point,) = time.loops()
    assert "omp parallel for" not in kernel.code
    assert not (front.pragma or time.pragma or point.pragma)
    same_at_every_thread_count(ws, src, tmp_path)


@pytest.mark.parametrize("code", [W, B, C], ids=["W-wavefront", "B-conditional-write", "C-scalars"])
def test_scheduled_programs_keep_their_output_at_every_thread_count(write_c, tmp_path, code):
    src = write_c(code)
    ws = Workspace(str(src))
    ws["main"].auto_schedule(pragma="omp parallel for")
    same_at_every_thread_count(ws, src, tmp_path)


def test_no_section_reduction_when_the_statement_reads_other_elements(write_c, tmp_path):
    src = write_c(D)
    ws = Workspace(str(src))
    main = ws["main"]
    main.coarse_grain_parallelization_with_reduction(min_work=0)
    main.ompify_code()
    assert "reduction(+:C[" not in main.code
    same_at_every_thread_count(ws, src, tmp_path)


def test_a_section_naming_a_collapsed_index_is_not_collapsed(write_c, tmp_path):
    src = write_c(E)
    ws = Workspace(str(src))
    main = ws["main"]
    main.coarse_grain_parallelization_with_reduction(min_work=0)
    main.ompify_code()
    for line in main.code.splitlines():
        if "A[i:1]" in line:
            assert "collapse" not in line  # i is fixed in the j loop, not across a collapsed nest
    outer = main.loops()[1]
    assert outer.pragma and "collapse" not in outer.pragma[0] and "A[" not in outer.pragma[0]
    same_at_every_thread_count(ws, src, tmp_path, rtol=1e-12)


def test_varying_section_names_what_the_loop_changes(write_c):
    ws = Workspace(str(write_c(E)))
    nest = ws["main"].loops()[1]  # for (i ...) for (j ...) for (k ...)
    assert varying_section([("+", "A[i:1][12:1]")], nest.node) is not None
    assert "depends on i" in varying_section([("+", "A[i:1][12:1]")], nest.node)
    assert varying_section([("+", "A[i:1][12:1]")], nest.loops()[0].node) is None  # j loop
    assert varying_section([("+", "B[0:40][0:40]"), ("+", "s")], nest.node) is None


def test_isl_finding_no_schedule_is_a_refusal_or_a_correct_schedule(write_c, tmp_path):
    src = write_c(F)
    ws = Workspace(str(src))
    before = ws["main"].code
    try:
        ws["main"].auto_schedule(pragma="omp parallel for")
    except PassFailed:
        assert ws["main"].code == before
    same_at_every_thread_count(ws, src, tmp_path)


# G: the later part is rescheduled first (with i as a parameter); checking the earlier
# part then looked the new code up in the cached name table, which does not bind it,
# and missed that i's final value is read after its loop
G = PROLOGUE + """
double a[4][8], c[16][8];
int main(void)
{
    int i, j;
    for (i = 0; i < 4; i++)
        for (j = 0; j < 8; j++)
            a[i][j] = i + j;
    for (j = 0; j < 8; j++)
        c[i][j] = i * j;
    printf("%g %g\\n", a[3][7], c[4][7]);
    return 0;
}
"""


def test_a_loop_index_read_after_its_loop_in_a_rescheduled_part_keeps_its_value(write_c, tmp_path):
    src = write_c(G)
    ws = Workspace(str(src))
    ws["main"].auto_schedule(pragma="omp parallel for")  # the later part, at least
    assert "c[i][" in ws["main"].code  # the first nest is left as written: i is live after it
    same_at_every_thread_count(ws, src, tmp_path)


# H: a pointer formal bound by the only call to a global array the function also names
# (v1 is x1): the two nests were reordered, and v[i] = x[i - 1] + 1 parallelized
H_GLOBAL = PROLOGUE + """
#define N 16
double x1[N], x2[N], A[N][N];
void k(int n, double A[n][n], double *v1, double *v2)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            v1[i] = v1[i] + A[i][j];
    for (j = 0; j < n; j++)
        v2[j] = x1[j] * 2;
}
int main(void)
{
    int i, j;
    for (i = 0; i < N; i++) { x1[i] = i; x2[i] = 0; for (j = 0; j < N; j++) A[i][j] = i * j % 7; }
    k(N, A, x1, x2);
    double s = 0;
    for (i = 0; i < N; i++) s += x2[i] * (i + 1);
    printf("%.17g\\n", s);
    return 0;
}
"""

H_TWICE = PROLOGUE + """
#define N 5000
double x[N];
void shift(int n, double *v, double *w)
{
    int i;
    for (i = 1; i < n; i++)
        w[i] = v[i - 1] + 1;
}
int main(void)
{
    int i;
    for (i = 0; i < N; i++) x[i] = 0;
    shift(N, x, x);
    double s = 0;
    for (i = 0; i < N; i++) s += x[i] * (i % 7);
    printf("%.17g\\n", s);
    return 0;
}
"""


@pytest.mark.parametrize("code", [H_GLOBAL, H_TWICE], ids=["formal-is-a-global", "one-array-twice"])
def test_formals_bound_to_the_same_memory_are_not_assumed_apart(write_c, tmp_path, code):
    src = write_c(code)
    ws = Workspace(str(src))
    for m in ws.all_functions:
        try:
            m.auto_schedule(pragma="omp parallel for")
        except PassFailed:
            pass
    same_at_every_thread_count(ws, src, tmp_path)


def test_atomic_generation_is_not_used_where_a_stride_would_be_lost():
    """I: isl's atomic loops ran a stride-2 statement at every value when another statement shared them."""
    import islpy as isl
    from passman.passes.poly.codegen import _loop_types

    domain = ("[m] -> { S3[i] : (1 + i) mod 2 = 0 and 3 <= i <= 10; "
              "S4[i, j, k] : (1 + i) mod 2 = 0 and i >= 3 and 2 <= j < m and k > i and 6 <= k <= 9 }")
    band = ('schedule: "[m] -> [{ S3[i] -> [(1 + i)]; S4[i, j, k] -> [(k)] }, '
            '{ S3[i] -> [(i)]; S4[i, j, k] -> [(1 + i)] }]", permutable: 1')
    tree = isl.Schedule.read_from_str(isl.DEFAULT_CONTEXT, '{ domain: "' + domain + '", child: { ' + band + " } }")
    code = isl.AstBuild.from_context(isl.Set("[m] -> { : }")).node_from_schedule(_loop_types(tree)).to_C_str()
    # every S3 instance the code runs is in its domain: i odd (the atomic version ran S3(c0 - 1) at odd c0)
    assert "atomic" not in str(_loop_types(tree))
    assert "S3(c0 - 1)" not in code or "c0 % 2 == 0" in code, code
