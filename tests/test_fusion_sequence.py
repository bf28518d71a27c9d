"""loop_fusion_with_regions (passes/loops/fusion_regions.py): the sequence-level fusion heuristic."""

from __future__ import annotations

import textwrap

import pytest
from conftest import CORPUS
from test_arrays import THREE_NESTS

from passman import PassFailed, Workspace
from passman.testing import assert_same_output, expect

O0 = {"cflags": ["-O0"]}

MAIN = """
int main(void)
{
    for (int i = 0; i < 100; i++) {
        a[i] = i; b[i] = 2 * i; c[i] = i % 7; d[i] = 1; e[i] = i % 3;
    }
    f(99);
    double s = 0;
    for (int i = 0; i < 100; i++)
        s += a[i] + 3 * b[i] + 5 * c[i] + 7 * d[i] + 11 * e[i];
    printf("%g\\n", s);
    return 0;
}
"""


def program(body: str) -> str:
    return (
        "#include <stdio.h>\ndouble a[100], b[100], c[100], d[100], e[100];\nvoid f(int n)\n{\n"
        + textwrap.dedent(body)
        + "\n}\n"
        + MAIN
    )


def test_three_nests_become_one_then_two_temporaries_become_scalars(write_c):
    # Amini 2012 Fig. 4.10 / 4.21 (§5.3): fusion along flow edges, innermost sequences after
    src = write_c(THREE_NESTS)
    ws = Workspace(src)
    k = ws["kernel"]
    done = k.loop_fusion_with_regions()
    assert len(done) == 2 and all("(flow)" in line for line in done)
    k.scalarization()
    expect(
        k.code,
        """
        void kernel(int n, double a[n][n], double c[n][n])
        {
            double t1[50][50];
            double t2[50][50];
            int i;
            int j;
            for (i = 0; i < n; i++) {
                for (j = 0; j < n; j++) {
                    double scal_t2;
                    double scal_t1;
                    scal_t1 = a[i][j] * 2.0;
                    scal_t2 = scal_t1 + 3.0;
                    c[i][j] = scal_t1 * scal_t2;
                }
            }
        }
    """,
    )
    assert_same_output([src], ws, **O0)
    step = [s for s in ws.history if s.pass_name == "loop_fusion_with_regions"][-1]
    assert step.changed


def test_flow_edge_fuses_producer_and_consumer_around_an_unrelated_loop(write_c):
    src = write_c(
        program("""
        int i;
        for (i = 0; i < n; i++)
            a[i] = b[i] * 2;
        for (i = 0; i < n - 1; i++)
            d[i] = d[i + 1] + 1;
        for (i = 0; i < n; i++)
            c[i] = a[i] + 1;
    """)
    )
    ws = Workspace(src)
    done = ws["f"].loop_fusion_with_regions()
    assert done == ["f: loops l1, l3 fused (flow)"]
    expect(
        ws["f"].code,
        """
        void f(int n)
        {
            int i;
            for (i = 0; i < n; i++) {
                a[i] = b[i] * 2;
                c[i] = a[i] + 1;
            }
            for (i = 0; i < n - 1; i++)
                d[i] = d[i + 1] + 1;
        }
    """,
    )
    assert_same_output([src], ws, **O0)


def test_statements_the_consumer_needs_move_before_the_fused_loop(write_c):
    src = write_c(
        program("""
        int i;
        for (i = 0; i < n; i++)
            a[i] = b[i] * 2;
        e[0] = 3;
        for (i = 0; i < n; i++)
            c[i] = a[i] + e[0];
    """)
    )
    ws = Workspace(src)
    ws["f"].loop_fusion_with_regions()
    expect(
        ws["f"].code,
        """
        void f(int n)
        {
            int i;
            e[0] = 3;
            for (i = 0; i < n; i++) {
                a[i] = b[i] * 2;
                c[i] = a[i] + e[0];
            }
        }
    """,
    )
    assert_same_output([src], ws, **O0)


def test_read_read_fusion(write_c):
    src = write_c(
        program("""
        int i;
        for (i = 0; i < n; i++)
            a[i] = b[i] + 1;
        for (i = 0; i < n; i++)
            c[i] = b[i] * 2;
    """)
    )
    ws = Workspace(src)
    before = ws["f"].code
    with pytest.raises(PassFailed, match="no two loops"):
        ws["f"].loop_fusion_with_regions(read_read=False, greedy=False)
    assert ws["f"].code == before
    assert ws["f"].loop_fusion_with_regions(greedy=False) == ["f: loops l1, l2 fused (read-read)"]
    assert len(ws["f"].loops()) == 1
    assert_same_output([src], ws, **O0)


def test_refuses_a_backward_loop_carried_dependence(write_c):
    src = write_c(
        program("""
        int i;
        for (i = 0; i < n; i++)
            a[i] = b[i] * 2;
        for (i = 0; i < n; i++)
            c[i] = a[i + 1] + 1;
    """)
    )
    ws = Workspace(src)
    before = ws["f"].code
    with pytest.raises(
        PassFailed, match=r"backward loop-carried flow dependence from a\[i\] .* to a\[i \+ 1\]"
    ):
        ws["f"].loop_fusion_with_regions(maximize_parallelism=False)
    assert ws["f"].code == before


def test_parallel_loops_stay_parallel_unless_told(write_c):
    # Amini 2012 Fig. 4.11: legal, but the fused loop would carry a[i] -> a[i - 1]
    src = write_c(
        program("""
        int i;
        for (i = 1; i < n; i++)
            a[i] = 0;
        for (i = 1; i < n; i++)
            b[i] = a[i - 1];
    """)
    )
    ws = Workspace(src)
    with pytest.raises(PassFailed, match="forward loop-carried flow dependence .* sequential"):
        ws["f"].loop_fusion_with_regions()
    ws["f"].loop_fusion_with_regions(maximize_parallelism=False)
    assert len(ws["f"].loops()) == 1
    assert_same_output([src], ws, **O0)


def test_typed_fusion_keeps_parallel_and_sequential_apart(write_c):
    src = write_c(
        program("""
        int i;
        for (i = 1; i < n; i++)
            a[i] = b[i] + 1;
        for (i = 1; i < n; i++)
            c[i] = c[i - 1] + a[i];
    """)
    )
    ws = Workspace(src)
    with pytest.raises(PassFailed, match="parallel loop l1 with sequential loop l2"):
        ws["f"].loop_fusion_with_regions()
    ws["f"].loop_fusion_with_regions(maximize_parallelism=False)
    assert len(ws["f"].loops()) == 1
    assert_same_output([src], ws, **O0)


def test_never_creates_a_cycle_through_a_statement_in_between(write_c):
    src = write_c(
        program("""
        int i;
        double s;
        for (i = 0; i < n; i++)
            a[i] = b[i] * 2;
        s = a[5];
        for (i = 0; i < n; i++)
            c[i] = a[i] + s;
    """)
    )
    ws = Workspace(src)
    before = ws["f"].code
    with pytest.raises(PassFailed, match="a statement between them depends on the first loop"):
        ws["f"].loop_fusion_with_regions()
    assert ws["f"].code == before


def test_declarations_move_with_their_uses(write_c):
    # Amini 2012 Fig. 4.18: "int k; k = d[1];" moves before the fused loop
    src = write_c(
        program("""
        int i;
        for (i = 0; i < n; i++)
            a[i] = b[i] * 2;
        double k;
        k = d[1];
        for (i = 0; i < n; i++)
            c[i] = a[i] + k;
    """)
    )
    ws = Workspace(src)
    ws["f"].loop_fusion_with_regions()
    expect(
        ws["f"].code,
        """
        void f(int n)
        {
            int i;
            double k;
            k = d[1];
            for (i = 0; i < n; i++) {
                a[i] = b[i] * 2;
                c[i] = a[i] + k;
            }
        }
    """,
    )
    assert_same_output([src], ws, **O0)


def test_statements_outside_the_static_control_part_stay_barriers(write_c):
    src = write_c(
        program("""
        int i;
        for (i = 0; i < n; i++)
            a[i] = b[i] * 2;
        printf("%g\\n", a[3]);
        for (i = 0; i < n; i++)
            c[i] = b[i] + 1;
    """)
    )
    ws = Workspace(src)
    before = ws["f"].code
    with pytest.raises(PassFailed):
        ws["f"].loop_fusion_with_regions()
    assert ws["f"].code == before


def test_inner_sequences_first(write_c):
    src = write_c(
        program("""
        int i, j;
        for (i = 0; i < 9; i++) {
            for (j = 0; j < 10; j++)
                a[10 * i + j] = b[10 * i + j] + i;
            for (j = 0; j < 10; j++)
                c[10 * i + j] = a[10 * i + j] * 2;
        }
    """)
    )
    ws = Workspace(src)
    assert ws["f"].loop_fusion_with_regions() == ["f: loops l2, l3 fused (flow)"]
    expect(
        ws["f"].code,
        """
        void f(int n)
        {
            int i;
            int j;
            for (i = 0; i < 9; i++) {
                for (j = 0; j < 10; j++) {
                    a[10 * i + j] = b[10 * i + j] + i;
                    c[10 * i + j] = a[10 * i + j] * 2;
                }
            }
        }
    """,
    )
    assert_same_output([src], ws, **O0)


NESTS = """
#include <stdio.h>
#define N 40
static double A[N][N], B[N][N], C[N][N];
void nests(int n, int m)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            A[i][j] = i + j;
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            B[i][j] = A[i][j] * 2;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            C[i][j] = A[i][j] + 1;
}
int main(void)
{
    double s = 0;
    nests(N, N - 3);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[i][j] + 2 * B[i][j] + 3 * C[i][j];
    printf("%g\\n", s);
    return 0;
}
"""


def test_keep_perfect_nests(write_c):
    src = write_c(NESTS)
    ws = Workspace(src)
    # the second nest's inner loop has other bounds: fusing it would break a perfect nest
    done = ws["nests"].loop_fusion_with_regions(keep_perfect_nests=True)
    assert done == ["nests: loops l2, l6 fused (perfect nest)", "nests: loops l1, l5 fused (flow)"]
    expect(
        ws["nests"].code,
        """
        void nests(int n, int m)
        {
            int i;
            int j;
            for (i = 0; i < n; i++)
                for (j = 0; j < n; j++) {
                    A[i][j] = i + j;
                    C[i][j] = A[i][j] + 1;
                }
            for (i = 0; i < n; i++)
                for (j = 0; j < m; j++)
                    B[i][j] = A[i][j] * 2;
        }
    """,
    )
    assert_same_output([src], ws, **O0)
    ws2 = Workspace(src)
    ws2["nests"].loop_fusion_with_regions()  # without: the three outer loops fuse
    assert len(ws2["nests"].loops()) == 1
    assert_same_output([src], ws2, **O0)


@pytest.mark.parametrize(
    "name", ["gemver", "fdtd_2d", "two_mm", "correlation", "covariance", "adi", "atax", "bicg"]
)
@pytest.mark.parametrize("opts", [{}, {"maximize_parallelism": False, "keep_perfect_nests": True}])
def test_corpus_every_function(name, opts):
    src = CORPUS / f"{name}.c"
    ws = Workspace(src)
    for m in ws.all_functions:
        try:
            m.loop_fusion_with_regions(**opts)
        except PassFailed:
            pass
    assert_same_output([src], ws, **O0)


def test_refuses_to_rename_into_a_local_of_the_same_name(write_c):
    src = write_c(
        program("""
        int j;
        for (int i = 0; i < n; i++)
            a[i] = 1;
        for (j = 0; j < n; j++) {
            int i;
            b[j] = 2;
        }
    """)
    )
    ws = Workspace(src)
    before = ws["f"].code
    with pytest.raises(PassFailed, match="its body names or declares i, the index of loop"):
        ws["f"].loop_fusion_with_regions()
    assert ws["f"].code == before
