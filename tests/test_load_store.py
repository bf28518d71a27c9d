"""Transfers from regions (passes.gpu.load_store.kernel_load_store), run on the CPU emulation.

The oracle: after gpu_ify and kernel_load_store, a program linked with the
accel runtime's emulation (device buffers separate from the host arrays and
filled with garbage) prints the original's output only if every element a
kernel reads was copied in and every element the rest of the program reads
was copied back. Golden tests check the shapes the digest gives (Amini 2012
§3.4: the FIR kernel, a MAY write copied in first).
"""

from __future__ import annotations

import re

import pytest
from conftest import corpus_params, skip_slow
from passman.recipes.accel import accelerate

from passman import InvalidInput, PassFailed, Workspace


def _accelerate(ws: Workspace) -> int:
    return accelerate(ws, transfers="naive")  # gpu_ify + kernel_load_store per function, together or not at all


def _stats(stderr: str) -> tuple[int, int, int, int]:
    m = re.search(r"passman-accel: (\d+) copies to device \((\d+) bytes\), (\d+) copies from device \((\d+) bytes\)",
                  stderr)
    assert m, stderr[-500:]
    return tuple(int(x) for x in m.groups())


#: the programs run by default (the rest with -m slow): stencils, products, a solver with
#: scalars carried between kernels, libm calls, control flow, structs and a histogram
EMULATED = ["adi", "gemm", "jacobi_2d", "gramschmidt", "durbin", "libm_calls", "fdtd_2d",
            "histogram", "two_mm", "structs_pointers", "control_flow"]


@pytest.mark.parametrize("files", corpus_params(EMULATED))
def test_every_corpus_program_through_the_emulation(files, tmp_path, request):
    skip_slow(request)
    reference = Workspace(*map(str, files))
    reference.build("c", tmp_path / "ref")
    expected = reference.run()
    ws = Workspace(*map(str, files))
    _accelerate(ws)
    ws.build("c", tmp_path / "accel")
    got = ws.run(env={"PASSMAN_ACCEL_STATS": "1", "PASSMAN_ACCEL_CHECK": "1"})
    assert got.returncode == expected.returncode, got.stderr[-2000:]
    assert got.stdout == expected.stdout


FIR = r"""
void fir(int n, int k, int src[n], int dst[n - k + 1], int m[k])
{
    for (int i = 0; i <= n - k; i++) {
        int v = 0;
        for (int j = 0; j < k; j++)
            v += src[i + j] * m[j];
        dst[i] = v;
    }
}
"""


def _transfers(code: str, function: str) -> str:
    ws = Workspace.from_code(code, "t.c")
    ws.apply("gpu_ify", ws[function])
    ws.apply("kernel_load_store", ws[function])
    return ws[function].code if hasattr(ws[function], "code") else ws.compilation_units[0].code


def _calls(text: str, fn: str) -> list[str]:
    return re.findall(rf"passman_accel_{fn}\((\w+)", text)


def test_fir_copies_the_hulls_in_and_dst_only_out():
    text = _transfers(FIR, "fir")
    assert sorted(_calls(text, "copy_to")) == ["m_d", "src_d"]
    assert _calls(text, "copy_from") == ["dst"]
    # src: the union over i of src[i .. i + k - 1], i from 0 to n - k: src[0 .. n - 1]
    assert "passman_accel_copy_to(src_d, src, sizeof(src[0]), 1, (size_t []){n}, (size_t []){0}" in text
    # m[0 .. k - 1], where the launch runs at all (the region is empty otherwise)
    assert "(size_t []){k - 1 >= 0 && n - k >= 0 ? k : 0}" in text
    assert ("passman_accel_copy_from(dst, dst_d, sizeof(dst[0]), 1, (size_t []){n - k + 1}, (size_t []){0}, "
            "(size_t []){n - k >= 0 ? n - k + 1 : 0})") in text


def test_a_box_is_empty_where_its_region_is():
    """A launch in a loop that writes nothing at some iterations (``j`` from ``i + 1`` to 4,
    ``i`` up to 8): isl's bounds of the region ``B[i + 1]`` (2 <= i <= 3, what no later
    iteration overwrites) say nothing about the other iterations, and a box there (offset
    ``i + 1``, count 1) would copy the device's garbage back, or copy past the array."""
    code = r"""
    void f(double B[6])
    {
        for (int i = 2; i < 9; i++)
            for (int j = i + 1; j < 5; j++)
                B[j] = 0.25;
    }
    """
    ws = Workspace.from_code(code, "t.c")
    ws.apply("gpu_ify", ws["f"], max_dims=1)
    ws.apply("kernel_load_store", ws["f"])
    text = ws["f"].code
    assert ("passman_accel_copy_from(B, B_d, sizeof(B[0]), 1, (size_t []){6}, (size_t []){i + 1}, "
            "(size_t []){i - 2 >= 0 && -i + 3 >= 0 ? 1 : 0})") in text
    assert _calls(text, "copy_to") == []  # the launch writes all of what comes back


def test_one_kernel_one_copy_each_way():
    code = r"""
    void step(int n, double in[n], double out[n])
    {
        for (int i = 0; i < n; i++)
            out[i] = 0.5 * in[i];
    }
    """
    text = _transfers(code, "step")
    assert _calls(text, "copy_to") == ["in_d"] and _calls(text, "copy_from") == ["out"]
    assert text.count("passman_accel_malloc(") == 2
    assert text.count("passman_accel_free(") == 2


MAY_WRITE = r"""
#include <stdio.h>
#define N 1000
static double in[N], out[N];
void keep_positive(int n, double in[n], double out[n])
{
    for (int i = 0; i < n; i++)
        if (in[i] > 0)
            out[i] = in[i];
}
int main(void)
{
    double s = 0;
    for (int i = 0; i < N; i++) {
        in[i] = (i % 7) - 3.0;
        out[i] = -1.0;
    }
    keep_positive(N, in, out);
    for (int i = 0; i < N; i++)
        s += out[i] * (i % 5 + 1);
    printf("%.17g\n", s);
    return 0;
}
"""


def test_a_may_write_is_copied_in_first(tmp_path):
    """Elements the kernel may not write keep their host values (the emulation's buffers are garbage)."""
    text = _transfers(MAY_WRITE, "keep_positive")
    assert sorted(_calls(text, "copy_to")) == ["in_d", "out_d"]
    reference = Workspace.from_code(MAY_WRITE, "t.c")
    reference.build("c", tmp_path / "ref")
    ws = Workspace.from_code(MAY_WRITE, "t.c")
    ws.apply("gpu_ify", ws["keep_positive"])
    ws.apply("kernel_load_store", ws["keep_positive"])
    ws.build("c", tmp_path / "accel")
    got = ws.run(env={"PASSMAN_ACCEL_STATS": "1"})
    assert got.stdout == reference.run().stdout
    to, to_bytes, back, back_bytes = _stats(got.stderr)
    assert (to, to_bytes, back, back_bytes) == (2, 2 * 8000, 1, 8000)


def test_launch_without_gpu_ify_is_refused():
    ws = Workspace.from_code("void f(int n, double a[n]) { for (int i = 0; i < n; i++) a[i] = 0; }", "t.c")
    with pytest.raises(PassFailed, match="run gpu_ify first"):
        ws.apply("kernel_load_store", ws["f"])


ISOLATE = r"""
#include <stdio.h>
#define N 500
double A[N], B[N];
int main(void)
{
    for (int i = 0; i < N; i++) {
        A[i] = (i * 37) % 101;
        B[i] = -1.0;
    }
smooth:
    for (int i = 10; i < N - 10; i++)
        B[i] = A[i - 1] + 2.0 * A[i] + A[i + 1];
    double s = 0;
    for (int i = 0; i < N; i++)
        s += B[i] * (i % 3 + 1);
    printf("%.17g\n", s);
    return 0;
}
"""


def test_isolate_statement_copies_exactly_its_regions(tmp_path):
    reference = Workspace.from_code(ISOLATE, "t.c")
    reference.build("c", tmp_path / "ref")
    ws = Workspace.from_code(ISOLATE, "t.c")
    ws.apply("isolate_statement", ws["main"], label="smooth")
    text = ws.compilation_units[0].code
    assert "B_d[i] = A_d[i - 1] + 2.0 * A_d[i] + A_d[i + 1];" in text
    # A[9 .. 490] in, B[10 .. 489] out; B is written whole there: not copied in
    assert "passman_accel_copy_to(A_d, A, sizeof(A[0]), 1, (size_t []){N}, (size_t []){9}, (size_t []){482});" in text
    assert "passman_accel_copy_from(B, B_d, sizeof(B[0]), 1, (size_t []){N}, (size_t []){10}, (size_t []){480});" in text
    assert _calls(text, "copy_to") == ["A_d"]
    ws.build("c", tmp_path / "iso")
    expected = reference.run().stdout
    for shuffle in ("0", "1"):
        got = ws.run(env={"PASSMAN_ACCEL_STATS": "1", "PASSMAN_ACCEL_CHECK": "1", "PASSMAN_ACCEL_SHUFFLE": shuffle})
        assert got.stdout == expected, got.stderr[-1000:]
        assert _stats(got.stderr) == (1, 482 * 8, 1, 480 * 8)


def test_isolate_statement_refuses_a_statement_that_moves_a_pointer():
    code = """
    void f(int n, double a[n], double *p)
    {
    s1: for (int i = 0; i < n; i++)
            *p++ = a[i];
    }
    """
    ws = Workspace.from_code(code, "t.c")
    before = ws.compilation_units[0].code
    with pytest.raises(PassFailed, match=r"changes the pointer p itself|size of p is unknown"):
        ws.apply("isolate_statement", ws["f"], label="s1")
    assert ws.compilation_units[0].code == before
    with pytest.raises(InvalidInput, match="no statement labelled 'nowhere'"):
        ws.apply("isolate_statement", ws["f"], label="nowhere")
