"""Arrays kept on the device across launches, loops and calls (passes.gpu.data_mapping).

The oracle: after gpu_ify and kernel_data_mapping, the program linked with the
accel runtime's emulation (device buffers separate from the host arrays,
filled with garbage) prints the original's output only if every array a
launch reads is valid on the device and every array the host reads is valid
on the host. Golden tests check the placements the digest lists (Amini 2012
§3.6, testable claims 10-16) by the runtime's counts of copies.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import corpus_params, skip_slow
from passman.recipes.accel import accelerate

from passman import PassFailed, Workspace

CORPUS = Path(__file__).resolve().parent / "corpus"


def _stats(stderr: str) -> tuple[int, int]:
    m = re.search(r"passman-accel: (\d+) copies to device \(\d+ bytes\), (\d+) copies from device", stderr)
    assert m, stderr[-500:]
    return int(m.group(1)), int(m.group(2))


def _mapped(code: str, tmp_path, host: tuple[str, ...] = (),
            promote: bool = False) -> tuple[Workspace, str, tuple[int, int]]:
    """gpu_ify on every function but ``host``, kernel_data_mapping, then a run on the emulation
    compared with the original's output; the code and the (to, from) copy counts."""
    reference = Workspace.from_code(code, "t.c")
    reference.build("c", tmp_path / "ref")
    expected = reference.run()
    ws = Workspace.from_code(code, "t.c")
    for m in [m.name for m in ws.all_functions]:
        if m not in host:
            try:
                ws.apply("gpu_ify", ws[m])
                if promote:
                    ws.apply("gpu_promote_sequential", ws[m])
            except PassFailed:
                pass
    ws.apply("kernel_data_mapping")
    ws.build("accel", tmp_path / "accel")
    text = "".join(p.read_text() for p in (tmp_path / "accel").glob("*.c"))
    runs = [ws.run(env={"PASSMAN_ACCEL_STATS": "1", "PASSMAN_ACCEL_CHECK": "1", "PASSMAN_ACCEL_SHUFFLE": s})
            for s in ("0", "1")]
    for got in runs:
        assert got.returncode == expected.returncode, got.stderr[-2000:]
        assert got.stdout == expected.stdout
    return ws, text, _stats(runs[0].stderr)


@pytest.mark.parametrize("files", corpus_params(
    ("jacobi_2d", "lu", "atax", "pragmas", "bicg", "two_units", "gramschmidt", "durbin", "sor", "adi")))
def test_every_corpus_program_keeps_its_output(files, tmp_path, request):
    skip_slow(request)
    reference = Workspace(*map(str, files))
    reference.build("c", tmp_path / "ref")
    expected = reference.run()
    ws = Workspace(*map(str, files))
    accelerate(ws)  # optimized transfers, or the per-launch ones where the program needs them
    ws.build("accel", tmp_path / "accel")
    got = ws.run(env={"PASSMAN_ACCEL_CHECK": "1", "PASSMAN_ACCEL_SHUFFLE": "1"})
    assert got.returncode == expected.returncode, got.stderr[-2000:]
    assert got.stdout == expected.stdout


STENCIL = r"""
#include <stdio.h>
#define N 1000
#define T 30
static double A[N], B[N];

static void init(int n, double a[n], double b[n])
{
    for (int i = 0; i < n; i++) {
        a[i] = (i % 13) * 0.25;
        b[i] = 0.0;
    }
}

static void step(int n, double a[n], double b[n])
{
    for (int i = 1; i < n - 1; i++)
        b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
    for (int i = 1; i < n - 1; i++)
        a[i] = 0.33333 * (b[i - 1] + b[i] + b[i + 1]);
}

int main(void)
{
    init(N, A, B);
    for (int t = 0; t < T; t++) {
        step(N, A, B);
        CHECKPOINT
    }
    double s = 0;
    for (int i = 0; i < N; i++)
        s += A[i] * (i % 7 + 1);
    printf("%.12g\n", s);
    return 0;
}
"""


def test_a_time_loop_around_a_callee_moves_nothing_inside(tmp_path):
    """Claims 10, 11, 16: the callee's needs become its callers', out of their time loop; A in
    and B in (partly written by the kernels), A back once; B is dead after: never copied back."""
    ws, text, counts = _mapped(STENCIL.replace("CHECKPOINT", ""), tmp_path, host=("init", "main"))
    assert counts == (2, 1)
    step = ws["step"].code
    assert "passman_accel_update" not in step and step.count("passman_accel_resolve(") == 4
    main = ws["main"].code
    loop = main[main.index("for (int t"):main.index("double s")]
    assert "passman_accel_update" not in loop  # nothing in the time loop
    assert main.index("passman_accel_update_device(A") < main.index("for (int t")
    assert "passman_accel_update_host(B" not in main


def test_a_checkpoint_in_the_loop_copies_back_there_and_never_to_the_device(tmp_path):
    """Claim 12: a host read inside the loop costs one copy from the device there, no copy to it."""
    checkpoint = 'if (t % 10 == 9) printf("%g\\n", A[N / 2]);'
    ws, text, counts = _mapped(STENCIL.replace("CHECKPOINT", checkpoint), tmp_path, host=("init", "main"))
    assert counts == (2, 3 + 1)  # A and B in; A back at t = 9, 19, 29 and after the loop
    main = ws["main"].code
    body = main[main.index("for (int t"):main.index("double s")]
    assert body.count("passman_accel_update_host(A") == 1 and "passman_accel_update_device" not in body


HOST_WRITE = r"""
#include <stdio.h>
#define N 500
static double A[N], B[N];

static void twice(int n, double a[n], double b[n])
{
    for (int i = 0; i < n; i++)
        b[i] = 2.0 * a[i];
}

int main(void)
{
    for (int i = 0; i < N; i++)
        A[i] = i * 0.5;
    twice(N, A, B);
    for (int i = 0; i < N; i += 7)      /* the host writes A between the kernels */
        A[i] = -A[i];
    twice(N, A, B);
    double s = 0;
    for (int i = 0; i < N; i++)
        s += B[i] * (i % 3 + 1);
    printf("%.12g\n", s);
    return 0;
}
"""


def test_host_writes_between_kernels_and_whole_writes(tmp_path):
    """Claims 13-15: A goes to the device after each host write; B, which the kernel writes
    whole, never goes to the device; B comes back once, for the host's read."""
    ws, text, counts = _mapped(HOST_WRITE, tmp_path, host=("main",))
    assert counts == (2, 1)
    assert "passman_accel_update_device(B" not in ws["main"].code


def test_a_partial_write_is_copied_to_the_device_first(tmp_path):
    """Claim 14: a kernel writing part of B needs the rest of B valid on the device."""
    code = HOST_WRITE.replace("for (int i = 0; i < n; i++)\n        b[i] = 2.0 * a[i];",
                              "for (int i = 0; i < n - 5; i++)\n        b[i] = 2.0 * a[i];")
    code = code.replace("for (int i = 0; i < N; i++)\n        A[i] = i * 0.5;",
                        "for (int i = 0; i < N; i++)\n        A[i] = i * 0.5, B[i] = 1.0;")
    ws, text, counts = _mapped(code, tmp_path, host=("main",))
    assert "passman_accel_update_device(B" in ws["main"].code
    assert counts == (3, 1)


WORK_ARRAY = r"""
#include <stdio.h>
#define N 400
static double A[N], W[N], B[N];

static void smooth(int n, double a[n], double w[n], double b[n])
{
    for (int i = 1; i < n - 1; i++)
        w[i] = a[i - 1] + a[i + 1];          /* w[0] and w[n - 1] are never written */
    for (int i = 1; i < n - 1; i++)
        b[i] = 0.5 * w[i];
}

int main(void)
{
    for (int i = 0; i < N; i++)
        A[i] = i % 5, W[i] = 1.0, B[i] = 0.0;
    smooth(N, A, W, B);
    double s = 0;
    for (int i = 1; i < N - 1; i++)
        s += B[i] * (i % 3 + 1);
    printf("%.12g\n", s READ);
    return 0;
}
"""


def test_a_partial_write_nobody_reads_around_moves_nothing(tmp_path):
    """A partial write needs the rest of the array on the device only for a copy back that
    someone reads: W (a work array, dead after the call) and B (main reads only what the
    kernel writes) are not copied in; A in, B back (adi's v, p, q; durbin's z)."""
    ws, text, counts = _mapped(WORK_ARRAY.replace(" READ", ""), tmp_path, host=("main",))
    assert counts == (1, 1)
    main = ws["main"].code
    assert "passman_accel_update_device(W" not in main and "passman_accel_update_device(B" not in main


def test_a_partial_write_whose_rest_is_read_after_is_copied_in_first(tmp_path):
    """The same with main reading W[0], which the kernels do not write: W goes to the device
    before the call (the copy back brings W[0] with it), and comes back."""
    ws, text, counts = _mapped(WORK_ARRAY.replace(" READ", " + W[0]"), tmp_path, host=("main",))
    assert counts == (2, 2)
    assert "passman_accel_update_device(W" in ws["main"].code


def test_branches_meet_with_a_valid_copy(tmp_path):
    """A kernel on one branch only: after the branch, the host copy is valid on both paths."""
    code = r"""
    #include <stdio.h>
    #define N 300
    static double A[N];
    static void bump(int n, double a[n]) { for (int i = 0; i < n; i++) a[i] += 1.0; }
    int main(void)
    {
        for (int i = 0; i < N; i++)
            A[i] = i;
        for (int t = 0; t < 6; t++) {
            if (t % 2)
                bump(N, A);
            else
                A[t] = -1.0;
        }
        double s = 0;
        for (int i = 0; i < N; i++)
            s += A[i];
        printf("%.12g\n", s);
        return 0;
    }
    """
    _mapped(code, tmp_path, host=("main",))


def test_an_alias_of_a_device_array_is_refused_and_changes_nothing():
    code = r"""
    static double A[100];
    void f(void)
    {
        double *p = A;
        for (int i = 0; i < 100; i++)
            A[i] = i;
        p[3] = 1.0;
    }
    """
    ws = Workspace.from_code(code, "t.c")
    ws.apply("gpu_ify", ws["f"])
    before = ws.compilation_units[0].code
    with pytest.raises(PassFailed, match="another pointer is set to it"):
        ws.apply("kernel_data_mapping")
    assert ws.compilation_units[0].code == before


def test_without_launches_the_pass_is_refused():
    ws = Workspace.from_code("void f(int n, double a[n]) { for (int i = 0; i < n; i++) a[i] = 0; }", "t.c")
    with pytest.raises(PassFailed, match="run gpu_ify first"):
        ws.apply("kernel_data_mapping")


def test_a_copy_to_the_device_follows_the_host_write():
    """Claim 13: the copy goes right after the statement that writes the array, not just before
    the kernel, when other statements come between."""
    code = r"""
    #include <stdio.h>
    #define N 100
    static double A[N], B[N], C[N];
    static void twice(int n, double a[n], double b[n]) { for (int i = 0; i < n; i++) b[i] = 2.0 * a[i]; }
    int main(void)
    {
        for (int i = 0; i < N; i++)
            A[i] = i;
        for (int i = 0; i < N; i++)
            C[i] = -i;
        printf("%g\n", C[3]);
        twice(N, A, B);
        printf("%g\n", B[7]);
        return 0;
    }
    """
    ws = Workspace.from_code(code, "t.c")
    ws.apply("gpu_ify", ws["twice"])
    ws.apply("kernel_data_mapping")
    main = ws["main"].code
    assert main.index("A[i] = i;") < main.index("passman_accel_update_device(A") < main.index("C[i] = -i;")


#: Amini's Table 7.2 programs: copies of one run with only the kernel_* functions offloaded,
#: each at most the thesis's "Opt." count (atax, correlation, doitgen, lu: with sequential
#: promotion and whole-overwrite detection; three_mm reaches the "Hand" count; adi and
#: jacobi_2d go below it, their work arrays v, p, q and B being dead after the kernels), or
#: the least the corpus's program allows (gesummv: A, B, x in, y back; fdtd_2d: four arrays in,
#: three back; benchmarks/transfer_counts.py says why). durbin reaches it with the exact IN
#: region of its kernel (y[i] and y[k - i - 1], not their hull), gramschmidt the "Hand" count
#: (R is a stable pointer: the operand of sizeof in its malloc copies nothing).
TABLE_7_2 = {"jacobi_1d": 3, "jacobi_2d": 2, "lu": 2, "correlation": 2, "covariance": 2, "gemm": 4,
             "two_mm": 5, "three_mm": 5, "gemver": 10, "syrk": 3, "syr2k": 4, "doitgen": 3, "atax": 3,
             "symm": 4, "mvt": 7, "gramschmidt": 3, "durbin": 2, "adi": 2, "gesummv": 4, "fdtd_2d": 7}


@pytest.mark.parametrize("name", sorted(TABLE_7_2))
def test_transfer_counts_of_table_7_2(name, tmp_path):
    src = CORPUS / f"{name}.c"
    reference = Workspace(str(src))
    reference.build("c", tmp_path / "ref")
    ws = Workspace(str(src))
    accelerate(ws, host=",".join(m.name for m in ws.all_functions if not m.name.startswith("kernel_")))
    ws.build("accel", tmp_path / "accel")
    got = ws.run(env={"PASSMAN_ACCEL_STATS": "1"})
    assert got.stdout == reference.run().stdout
    assert sum(_stats(got.stderr)) == TABLE_7_2[name]


def test_sequential_promotion_runs_host_code_between_kernels_on_one_work_item(tmp_path, caplog):
    """Claim 19: lu's sequential j loop between kernels becomes a one-work-item kernel; the
    program prints the same; the i loop then moves nothing (2 copies in all)."""
    src = CORPUS / "lu.c"
    reference = Workspace(str(src))
    reference.build("c", tmp_path / "ref")
    ws = Workspace(str(src))
    ws.apply("gpu_ify", ws["kernel_lu"])
    with caplog.at_level("INFO", logger="passman.gpu"):
        ws.apply("gpu_promote_sequential", ws["kernel_lu"])
    assert "run on the device as p4a_kernel_1 (one work-item)" in caplog.text
    code = ws["kernel_lu"].code
    body = code[code.index("for (i = 0"):]
    assert "for (j" not in body and body.count("p4a_launcher_") == 2
    launcher = ws["p4a_launcher_1"].code
    assert "for (int p4a_seq = 0; p4a_seq <= 0; p4a_seq++)" in launcher
    ws.apply("kernel_data_mapping")
    ws.build("accel", tmp_path / "accel")
    for shuffle in ("0", "1"):
        got = ws.run(env={"PASSMAN_ACCEL_STATS": "1", "PASSMAN_ACCEL_SHUFFLE": shuffle})
        assert got.stdout == reference.run().stdout
        assert _stats(got.stderr) == (1, 1)  # a to the device before the loop, back after it


def test_promotion_keeps_runs_whose_scalars_live_on_on_the_host():
    code = r"""
    double f(int n, double a[n])
    {
        double s = 0;
        double *keep = &s;                      /* s is reached through a pointer: stays on the host */
        for (int t = 0; t < 4; t++) {
            s = a[t] * 2;
            for (int i = 0; i < n; i++)
                a[i] = a[i] + 1.0;
        }
        return *keep;
    }
    """
    ws = Workspace.from_code(code, "t.c")
    ws.apply("gpu_ify", ws["f"])
    with pytest.raises(PassFailed, match="writes the scalar s, whose value is used outside it"):
        ws.apply("gpu_promote_sequential", ws["f"])


PROLOGUE = r"""
#include <stdio.h>
#define N 64
static double r[N], y[N];

static void recur(int n, double r[n], double y[n])
{
    double alpha;
    y[0] = -r[0];
    alpha = -r[0];
    for (int k = 1; k < n; k++) {
        alpha = 0.5 * alpha + r[k] * y[k - 1];
        for (int i = 0; i < k; i++)
            y[i] = y[i] + alpha * r[i];
        y[k] = alpha;
    }
}

int main(void)
{
    for (int i = 0; i < N; i++)
        r[i] = (i % 9) * 0.125;
    recur(N, r, y);
    double s = 0;
    for (int i = 0; i < N; i++)
        s += y[i] * (i % 4 + 1);
    printf("%.12g\n", s);
    return 0;
}
"""


def test_straight_line_code_before_a_promoted_loop_runs_on_the_device(tmp_path, caplog):
    """durbin's shape: the statements before the loop write y and the cell alpha, which the
    loop's kernels use; on the host they would send y and alpha to the device whole. They
    run on one work-item too, so only r goes to the device and y comes back."""
    with caplog.at_level("INFO", logger="passman.gpu"):
        ws, text, counts = _mapped(PROLOGUE, tmp_path, host=("main",), promote=True)
    recur = ws["recur"].code
    assert "y[0] = -r[0];" not in recur and "alpha[0] = -r[0];" not in recur
    assert recur.index("p4a_launcher_") < recur.index("for (int k")  # the prologue's launch
    assert counts == (1, 1)


def test_a_prologue_with_a_loop_stays_on_the_host(caplog):
    """Before a loop, only straight-line code is promoted: one work-item would run a loop's
    iterations one by one, to save at most one copy."""
    code = PROLOGUE.replace("    y[0] = -r[0];\n", "    y[0] = -r[0];\n    for (int i = 1; i < n; i++)\n        y[i] = y[i - 1] * 0.5;\n")
    ws = Workspace.from_code(code, "t.c")
    ws.apply("gpu_ify", ws["recur"], nested_reductions=False)
    with caplog.at_level("INFO", logger="passman.gpu"):
        ws.apply("gpu_promote_sequential", ws["recur"])
    assert "y[0] = -r[0];" in ws["recur"].code
    assert "it holds a loop" in caplog.text


def test_scalars_shared_with_the_host_become_device_cells(tmp_path):
    """A run writing a scalar the kernels and the host read after it: the scalar becomes a
    one-element array that the launches take; the loop then moves nothing."""
    code = r"""
    #include <stdio.h>
    #define N 200
    static double a[N];
    int main(void)
    {
        double s = 1.0;
        for (int i = 0; i < N; i++)
            a[i] = i % 7;
        for (int t = 0; t < 5; t++) {
            s = 0.5 * s + a[t];                 /* host code between kernels: a recurrence */
            for (int i = 0; i < N; i++)
                a[i] = a[i] * 0.5 + s;
        }
        printf("%.12g %.12g\n", s, a[N - 1]);
        return 0;
    }
    """
    ws, text, counts = _mapped(code, tmp_path, promote=True)
    main = ws["main"].code
    assert "double s[1] = {1.0};" in main and "s[0] = 0.5 * s[0] + a[t];" not in main  # on the device
    assert counts == (1, 2)  # the cell in, a and the cell back


LEVINSON_MALLOC = r"""
#include <stdio.h>
#include <stdlib.h>
#define N 64

static void levinson(int n, double y[n], double z[n])
{
    y[0] = 1.0;
    for (int k = 1; k < n; k++) {
        for (int i = 0; i < k; i++)
            z[i] = y[i] + 0.5 * y[k - i - 1];
        for (int i = 0; i < k; i++)
            y[i] = z[i] / k;
        y[k] = 0.25;
    }
}

int main(void)
{
    double *y = malloc(N * sizeof(*y));
    double *z = malloc(sizeof z[0] * N);
    double s = 0.0;
    if (!y || !z)
        return 1;
    for (int i = 0; i < N; i++)
        y[i] = z[i] = 0.0;
    levinson(N, y, z);
    for (int i = 0; i < N; i++)
        s += y[i] * (i % 3 + 1);
    printf("%.12g\n", s);
    free(y);
    free(z);
    return 0;
}
"""


def test_arrays_written_before_read_by_the_kernels_are_never_copied_in(tmp_path):
    """durbin's pattern on malloc'd arrays: the kernels read y[i] and y[k - i - 1] after earlier
    iterations wrote them (an exact IN region, not its hull: all of y), and ``malloc(N *
    sizeof(*y))`` copies no pointer (y and z stay stable pointers, main's regions of the call
    exact): y comes back once, nothing goes to the device though main writes both arrays."""
    ws, text, counts = _mapped(LEVINSON_MALLOC, tmp_path, host=("main",), promote=True)
    assert counts == (0, 1)
    main = ws["main"].code
    assert "passman_accel_update_device" not in main
    assert main.index("levinson(") < main.index("passman_accel_update_host(y") < main.index("s += y[i]")
