"""Redundant load-store elimination (passes.gpu.rlse, Amini 2012 §3.8.1, Fig 3.18).

Golden tests of the digest's claims 20 (Fig 3.18: the DMAs leave ``bar``'s loop
and the function, the load before the second call is redundant) and 21
(``memcpy(a, b, n); memcpy(b, a, n)`` loses its second call, and a pass that
changes nothing raises, which ends the PyPS fix-point loop). Differential
tests run the program before and after (plain C, and the accel runtime's CPU
emulation with its copy counts); refusal tests leave the code unchanged.
"""

from __future__ import annotations

import re

import pytest

from passman import PassFailed, Workspace

RLSE = "redundant_load_store_elimination"

# Fig 3.18, with memload(dst, src, n) and memstore(dst, src, n) written as memcpy
FIG_3_18 = r"""
#include <string.h>
void bar(int i, int j[2], int k[2])
{
    while (i-- >= 0) {
        memcpy(k, j, sizeof(int) * 2);
        k[0]++;
        memcpy(j, k, sizeof(int) * 2);
    }
}
void foo(int j[2], int k[2])
{
    bar(0, j, k);
    bar(1, j, k);
}
"""

BAR_AFTER = """void bar(int i, int j[2], int k[2])
{
    while (i-- >= 0) {
        k[0]++;
    }
}
"""

FOO_AFTER = """void foo(int j[2], int k[2])
{
    memcpy(k, j, sizeof(int) * 2);
    bar(0, j, k);
    memcpy(j, k, sizeof(int) * 2);
    bar(1, j, k);
    memcpy(j, k, sizeof(int) * 2);
}
"""


def _code(ws: Workspace) -> str:
    return "".join(cu.code for cu in ws.compilation_units)


def _outputs(code: str, tmp_path, transform) -> tuple[str, str, str, str]:
    """(original stdout, transformed stdout, original stderr, transformed stderr) of ``code``."""
    reference = Workspace.from_code(code, "t.c")
    reference.build("c", tmp_path / "ref")
    expected = reference.run(env={"PASSMAN_ACCEL_STATS": "1"})
    ws = Workspace.from_code(code, "t.c")
    transform(ws)
    ws.build("c", tmp_path / "new")
    got = ws.run(env={"PASSMAN_ACCEL_STATS": "1", "PASSMAN_ACCEL_CHECK": "1"})
    assert expected.returncode == 0 and got.returncode == 0, got.stderr[-1000:]
    return expected.stdout, got.stdout, expected.stderr, got.stderr


def test_claim_20_fig_3_18_dmas_leave_the_loop_and_the_function():
    ws = Workspace.from_code(FIG_3_18, "t.c")
    ws.apply(RLSE)
    assert ws["bar"].code == BAR_AFTER
    assert ws["foo"].code == FOO_AFTER
    # a second run has nothing left to do: PassFailed, which ends a fix-point loop
    with pytest.raises(PassFailed, match="no copy to remove or move"):
        ws.apply(RLSE)


def test_claim_20_same_output_as_the_original(tmp_path):
    code = FIG_3_18 + r"""
#include <stdio.h>
int main(void)
{
    int j[2] = {5, 9}, k[2] = {-1, -2};
    foo(j, k);
    foo(k, j);
    printf("%d %d %d %d\n", j[0], j[1], k[0], k[1]);
    return 0;
}
"""
    expected, got, _, _ = _outputs(code, tmp_path, lambda ws: ws.apply(RLSE))
    assert got == expected == "11 9 11 9\n"


def test_claim_21_the_reciprocal_copy_goes_and_the_fix_point_ends():
    code = r"""
#include <string.h>
void f(int n, double a[n], double b[n])
{
    memcpy(a, b, sizeof(double) * n);
    memcpy(b, a, sizeof(double) * n);
    a[0] = 1.0;
}
"""
    ws = Workspace.from_code(code, "t.c")
    rounds = ws.fixpoint(lambda: ws.apply(RLSE))
    assert rounds == 1
    text = ws["f"].code
    assert text.count("memcpy(") == 1 and "memcpy(a, b, sizeof(double) * n);" in text


@pytest.mark.parametrize("between, why", [
    ("a[1] = 2.0;", "a written between the copies"),
    ("b[1] = 2.0;", "b written between the copies"),
    ("n = n - 1;", "the size changes"),
    ("g(a);", "a call that may write a"),
])
def test_a_copy_is_kept_when_something_between_may_change_it(between, why):
    code = f"""
#include <string.h>
void g(double *p);
void f(int n, double a[n], double b[n])
{{
    memcpy(a, b, sizeof(double) * n);
    {between}
    memcpy(b, a, sizeof(double) * n);
}}
"""
    ws = Workspace.from_code(code, "t.c")
    before = _code(ws)
    with pytest.raises(PassFailed):
        ws.apply(RLSE)
    assert _code(ws) == before, why


def test_a_copy_overwritten_before_it_is_read_is_dead():
    code = r"""
#include <string.h>
void f(int n, double a[n], double b[n], double c[n])
{
    memcpy(a, b, sizeof(double) * n);
    c[0] = 1.0;
    memcpy(a, c, sizeof(double) * n);
}
"""
    ws = Workspace.from_code(code, "t.c")
    ws.apply(RLSE)
    text = ws["f"].code
    assert "memcpy(a, b," not in text and "memcpy(a, c, sizeof(double) * n);" in text
    read_between = code.replace("c[0] = 1.0;", "c[0] = a[1];")
    ws = Workspace.from_code(read_between, "t.c")
    with pytest.raises(PassFailed):
        ws.apply(RLSE)


def test_a_loop_that_may_run_zero_times_keeps_its_copies():
    """bar(i, ...) with an unknown i: hoisting the load would change k when the loop does not run."""
    code = FIG_3_18.replace("bar(1, j, k);", "bar(j[0], j, k);")
    ws = Workspace.from_code(code, "t.c")
    before = _code(ws)
    with pytest.raises(PassFailed, match=r"may run zero times.*call at t.c:14"):
        ws.apply(RLSE)
    assert _code(ws) == before
    ws = Workspace.from_code(FIG_3_18.replace("bar(1, j, k);", "bar(-1, j, k);"), "t.c")
    with pytest.raises(PassFailed, match="may run zero times"):
        ws.apply(RLSE)


def test_a_loop_that_leaves_early_keeps_its_copies():
    code = r"""
#include <string.h>
int main(void)
{
    int j[2] = {1, 2}, k[2];
    for (int t = 0; t < 4; t++) {
        memcpy(k, j, sizeof(int) * 2);
        if (k[0] > 2)
            break;
        k[0]++;
        memcpy(j, k, sizeof(int) * 2);
    }
    return j[0];
}
"""
    ws = Workspace.from_code(code, "t.c")
    with pytest.raises(PassFailed, match="can leave the loop"):
        ws.apply(RLSE)


TIME_LOOP = r"""
#include <stdio.h>
#include <passman_accel.h>
#define N 64
#define T 10
static double A[N];
static void step(int n, double *a)
{
    for (int i = 0; i < n; i++)
        a[i] = 0.5 * a[i] + i;
}
int main(void)
{
    for (int i = 0; i < N; i++)
        A[i] = i % 7;
    double *A_d = passman_accel_malloc(sizeof(A[0]) * N);
    for (int t = 0; t < T; t++) {
        passman_accel_copy_to(A_d, A, sizeof(A[0]), 1, (size_t []){N}, (size_t []){0}, (size_t []){N});
        step(N, A_d);
        passman_accel_copy_from(A, A_d, sizeof(A[0]), 1, (size_t []){N}, (size_t []){0}, (size_t []){N});
    }
    passman_accel_free(A_d);
    double s = 0;
    for (int i = 0; i < N; i++)
        s += A[i] * (i + 1);
    printf("%.17g\n", s);
    return 0;
}
"""


def _copies(stderr: str) -> tuple[int, int]:
    m = re.search(r"passman-accel: (\d+) copies to device \(\d+ bytes\), (\d+) copies from device", stderr)
    assert m, stderr[-500:]
    return int(m.group(1)), int(m.group(2))


def test_device_copies_leave_a_time_loop_on_the_emulation(tmp_path):
    """The accel runtime's copies of a persistent buffer: 2T copies become 2, same output."""
    expected, got, before, after = _outputs(TIME_LOOP, tmp_path, lambda ws: ws.apply(RLSE))
    assert got == expected
    assert _copies(before) == (10, 10)
    assert _copies(after) == (1, 1)


def test_a_host_use_inside_the_time_loop_keeps_the_copies():
    code = TIME_LOOP.replace("step(N, A_d);", "step(N, A_d);\n        A_d[0] += A[1];")
    ws = Workspace.from_code(code, "t.c")
    before = _code(ws)
    with pytest.raises(PassFailed, match="uses A between the copies"):
        ws.apply(RLSE)
    assert _code(ws) == before


MAPPED = r"""
#include <stdio.h>
#include <passman_accel.h>
#define N 32
static double A[N];
static void scale(int n, double *a)
{
    for (int i = 0; i < n; i++)
        a[i] = 2.0 * a[i] + 1.0;
}
int main(void)
{
    for (int i = 0; i < N; i++)
        A[i] = i % 5;
    passman_accel_update_device(A, sizeof(A[0]) * N);
    scale(N, passman_accel_resolve(A, sizeof(A[0]) * N));
    passman_accel_update_host(A, sizeof(A[0]) * N);
    printf("%g\n", A[3]);
    passman_accel_update_device(A, sizeof(A[0]) * N);
    scale(N, passman_accel_resolve(A, sizeof(A[0]) * N));
    passman_accel_update_host(A, sizeof(A[0]) * N);
    double s = 0;
    for (int i = 0; i < N; i++)
        s += A[i] * (i + 1);
    printf("%.17g\n", s);
    return 0;
}
"""


def test_an_update_of_the_device_after_a_host_read_is_redundant(tmp_path):
    expected, got, before, after = _outputs(MAPPED, tmp_path, lambda ws: ws.apply(RLSE))
    assert got == expected
    assert _copies(before) == (2, 2)
    assert _copies(after) == (1, 2)


def test_an_update_of_the_device_after_a_host_write_stays():
    code = MAPPED.replace('printf("%g\\n", A[3]);', 'A[3] = 0.5;')
    assert code != MAPPED
    ws = Workspace.from_code(code, "t.c")
    with pytest.raises(PassFailed):
        ws.apply(RLSE)
    # a device pointer kept in a variable: the device copies are not tracked at all
    kept = MAPPED.replace("scale(N, passman_accel_resolve(A, sizeof(A[0]) * N));\n    passman_accel_update_host",
                          "double *d = passman_accel_resolve(A, sizeof(A[0]) * N);\n    scale(N, d);\n"
                          "    passman_accel_update_host", 1)
    assert kept != MAPPED
    ws = Workspace.from_code(kept, "t.c")
    with pytest.raises(PassFailed):
        ws.apply(RLSE)
