"""Library launches (passes/gpu/library_launch.py): library calls between kernels run on the
device buffers ``kernel_data_mapping`` keeps.

The oracle is the runtime's emulation: its device buffers are separate and garbage-filled,
and the device entry points of the emulation run the CPU library (OpenBLAS, FFTW) on them, so
a missing copy around a library launch changes the output. Each program is compared with the
original built with gcc, in order and with shuffled work-items; ``PASSMAN_ACCEL_STATS=1``
gives the copies, which must be those of the stubs' regions and no more.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_cuda_backend import cuda_libraries

from passman import Workspace
from passman.builder import compile as compile_plan
from passman.recipe import load_recipe, recipe_entry

LIBRARIES = Path(__file__).resolve().parent / "libraries"
BLAS = LIBRARIES / "blas_between_kernels.c"
FFT = LIBRARIES / "fft_between_kernels.c"
STATS = re.compile(r"(\d+) copies to device \((\d+) bytes\), (\d+) copies from device \((\d+) bytes\)")


def _links(*libs: str) -> bool:
    try:
        proc = subprocess.run(["gcc", "-x", "c", "-", "-o", os.devnull, *libs], input="int main(void){return 0;}",
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


needs_blas = pytest.mark.skipif(not _links("-lopenblas"), reason="no OpenBLAS (Debian: libopenblas-dev)")
needs_fftw = pytest.mark.skipif(not _links("-lfftw3"), reason="no FFTW (Debian: libfftw3-dev)")


def accelerated(source: Path, recipe: str = "accel", **options) -> Workspace:
    ws = Workspace(str(source))
    recipe_entry(load_recipe(recipe))(ws, **options)
    return ws


def copies_on_the_emulation(source: Path, tmp_path: Path, **options) -> tuple[Workspace, tuple[int, int]]:
    """The program after the accel recipe with ``options``, run on the emulation in order and
    shuffled: the original's output each time; the (to device, from device) copy counts."""
    reference = Workspace(str(source))
    reference.build("c", tmp_path / "ref")
    expected = reference.run()
    assert expected.returncode == 0, expected.stderr
    ws = accelerated(source, **options)
    ws.build("accel", tmp_path / "accel")
    counts = set()
    for env in ({}, {"PASSMAN_ACCEL_SHUFFLE": "1"}, {"PASSMAN_ACCEL_SHUFFLE": "1", "PASSMAN_ACCEL_SEED": "5"}):
        got = ws.run(env={"PASSMAN_ACCEL_STATS": "1", "PASSMAN_ACCEL_CHECK": "1", **env})
        assert got.returncode == 0, got.stderr[-2000:]
        assert got.stdout == expected.stdout, env
        m = STATS.search(got.stderr)
        assert m, got.stderr[-500:]
        counts.add((int(m.group(1)), int(m.group(3))))
    assert len(counts) == 1
    return ws, counts.pop()


def host_code(ws: Workspace) -> str:
    return ws["main"].code


@needs_blas
def test_blas_levels_1_to_3_between_kernels_run_on_the_device_buffers(tmp_path):
    """dgemm, dgemv, daxpy, dscal and a ddot into a scalar, between kernels, run as library
    launches: the copies are the arrays the host initialised (A, B, x) and those the stubs say
    the calls read before anything wrote them (dgemm reads C, dgemv reads y: beta = 0 only
    scales them), in at the start, and the checksum's partial sums out at the end. Kept on the
    host, each call copies its arrays back before it and the next kernel's after it."""
    ws, device = copies_on_the_emulation(BLAS, tmp_path / "device", host="init")
    code = host_code(ws)
    for f in ("dgemm", "dgemv", "daxpy", "dscal", "ddot"):
        assert f"passman_dev_cblas_{f}(" in code
        assert f" cblas_{f}(" not in code and not re.search(rf"^\s*cblas_{f}\(", code, re.M)
    # pointer arguments: &A[0][0], B[0], x + 1, &y[0] become addresses in the device buffers
    assert "passman_accel_resolve_at(A, sizeof(A[0][0]) * 24 * 24, &A[0][0])" in code
    assert "passman_accel_resolve_at(B, sizeof(B[0][0]) * 24 * 24, B[0])" in code
    assert "passman_accel_resolve_at(x, sizeof(x[0]) * 24, x + 1)" in code
    assert "d = passman_dev_cblas_ddot(24, passman_accel_resolve(x, sizeof(x[0]) * 24), 1, " in code
    lines = [ln.strip() for ln in code.splitlines()]
    dgemm = next(k for k, ln in enumerate(lines) if ln.startswith("passman_dev_cblas_dgemm("))
    assert not lines[dgemm + 1].startswith("passman_accel_update")
    assert not any(ln.startswith("passman_accel_update_host(") for ln in lines[:dgemm])
    assert device == (5, 1)
    _, host = copies_on_the_emulation(BLAS, tmp_path / "host", host="init", libraries="host")
    assert host == (4, 3)
    _, naive = copies_on_the_emulation(BLAS, tmp_path / "naive", host="init", transfers="naive")
    assert naive == (6, 4)


@needs_fftw
def test_fftw_round_trips_between_kernels_run_on_the_device_buffers(tmp_path):
    """fftw_execute(p) runs as the new-array execution of p on the device copies of the arrays
    p captured (complex, r2c and c2r plans). The stub's execution writes its output as a may-
    write, so y and spec (never written before) go to the device once; nothing moves around
    the executions. The one copy back is the checksum's partial sums: nothing else is read on
    the host after the kernels (fftw_destroy_plan touches only the library's state)."""
    ws, device = copies_on_the_emulation(FFT, tmp_path / "device")
    code = host_code(ws)
    assert "passman_dev_fftw_execute_dft(fwd, passman_accel_resolve(x, " in code
    assert "passman_dev_fftw_execute_dft(bwd, passman_accel_resolve(y, " in code
    assert "passman_dev_fftw_execute_dft_r2c(r2c, passman_accel_resolve(re, " in code
    assert "passman_dev_fftw_execute_dft_c2r(c2r, passman_accel_resolve(spec, " in code
    assert "fftw_execute(" not in code.replace("_execute_dft", "")
    assert device == (2, 1)
    _, host = copies_on_the_emulation(FFT, tmp_path / "host", libraries="host")
    assert host == (4, 5)


FALLBACK = r"""
#include <stdio.h>
#include <cblas.h>
#define N 32
static double x[N], y[N];
static int idx[2] = {3, 1};

int main(void)
{
    for (int i = 0; i < N; i++) {
        x[i] = i * 0.5;
        y[i] = 1.0 - i;
    }
    for (int i = 0; i < N; i++)
        x[i] = x[i] * 2 + 1;
    cblas_daxpy(N - 4, 2.0, x, 1, &y[idx[0]], 1);   /* the address reads the host's idx */
    printf("%.6f\n", cblas_ddot(N, x, 1, y, 1));    /* inside an expression */
    cblas_dscal(N, 0.5, x, 1);                      /* a library launch */
    for (int i = 0; i < N; i++)
        y[i] = y[i] + x[i];
    double s = 0;
    for (int i = 0; i < N; i++)
        s += y[i] * (i % 3);
    printf("%.6f\n", s);
    return 0;
}
"""


@needs_blas
def test_calls_the_pass_cannot_prove_stay_host_calls(tmp_path):
    """An argument whose address reads another array (``&y[idx[0]]``) and a call inside an
    expression stay host calls, their arrays copied back around them; the output is right."""
    src = tmp_path / "fallback.c"
    src.write_text(FALLBACK)
    ws, (to, back) = copies_on_the_emulation(src, tmp_path)
    code = host_code(ws)
    assert re.search(r"^\s*cblas_daxpy\(N - 4, 2\.0, x, 1, &y\[idx\[0\]\], 1\);", code, re.M) or \
        "cblas_daxpy(32 - 4, 2.0, x, 1, &y[idx[0]], 1);" in code
    assert "printf(\"%.6f\\n\", cblas_ddot(" in code
    assert "passman_dev_cblas_dscal(" in code
    assert "passman_dev_cblas_daxpy(" not in code and "passman_dev_cblas_ddot(" not in code


def test_opencl_keeps_library_calls_on_the_host():
    """The blas broker has no OpenCL implementation: the opencl recipe keeps the calls."""
    code = host_code(accelerated(BLAS, "opencl", host="init"))
    assert "passman_dev_" not in code
    assert re.search(r"^\s*cblas_dgemm\(", code, re.M)
    assert "passman_accel_update_host(A, " in code  # A comes back for the host's call


def test_cuda_output_calls_the_device_entry_points(tmp_path):
    """The cuda recipe's host code calls the cuBLAS wrapper's device entry points on the
    mapped buffers; the build links cblas_cublas.cu (nvcc) and passman_dev_cblas.h. The host C
    compiles with gcc against the real <cblas.h>."""
    ws = accelerated(BLAS, "cuda", host="init")
    code = host_code(ws)
    assert "passman_dev_cblas_dgemm(" in code and "passman_dev_cblas_ddot(" in code
    plan = ws.render("cuda", tmp_path / "cu")
    assert ("passman_lib/cblas_cublas.cu", "nvcc") in [(str(s.path), s.compiler) for s in plan.sources]
    assert "-lcublas" in plan.libs and "-lopenblas" not in plan.libs
    assert (tmp_path / "cu" / "passman_lib" / "passman_dev_cblas.h").exists()
    if not Path("/usr/include/cblas.h").exists() and not _links("-lopenblas"):
        return
    host = tmp_path / "cu" / "blas_between_kernels.c"
    proc = subprocess.run(["gcc", "-std=gnu11", "-Wall", "-Werror", "-c", "-Ipassman_lib", host.name, "-o",
                           os.devnull], cwd=host.parent, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc (CUDA toolkit)")
@pytest.mark.parametrize("source, lib", [(BLAS, "-lcublas"), (FFT, "-lcufft")])
def test_cuda_library_launches_build_with_nvcc(source, lib, tmp_path, monkeypatch):
    """The cuda recipe's output, library launches included, compiles with nvcc and links with
    cuBLAS/cuFFT (skips where their headers or libraries are missing)."""
    flags = cuda_libraries(tmp_path)
    if flags is None:
        pytest.skip("cuBLAS/cuFFT not found (CUDA toolkit, PASSMAN_CUDA_INCLUDE and PASSMAN_CUDA_LIB, "
                    "or pip install nvidia-cublas nvidia-cufft)")
    ws = accelerated(source, "cuda", host="init")
    assert "passman_dev_" in host_code(ws)
    plan = ws.render("cuda", tmp_path / "cu")
    assert lib in plan.libs
    plan.cppflags += [f for f in flags if f.startswith("-I")]
    plan.ldflags += [f for f in flags if not f.startswith("-I")]
    assert compile_plan(plan, tmp_path / "cu").binary.exists()
