"""The opencl backend (backends/opencl) and recipe: every corpus program on PoCL.

The oracle: the program after the ``opencl`` recipe (gpu_ify,
kernel_load_store), its kernels in OpenCL C in ``kernels.cl`` and its host
code launching them through the runtime's OpenCL implementation, prints the
original's output. PoCL runs the work-items of a group one after another on
the CPU, so this proves the translation and the transfers, not the absence
of races (the emulation's shuffled order does that: test_accel_backend.py).
Skipped where OpenCL (``CL/cl.h``, a platform) is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import corpus_params, program_id, skip_slow

from passman import Workspace
from passman.recipe import load_recipe, recipe_entry

HAVE_OPENCL = Path("/usr/include/CL/cl.h").exists() and any(Path("/etc/OpenCL/vendors").glob("*.icd"))
pytestmark = pytest.mark.skipif(not HAVE_OPENCL or shutil.which("gcc") is None,
                                reason="no OpenCL headers or platform (Debian: ocl-icd-opencl-dev pocl-opencl-icd)")

MAPPED = ("gemm", "jacobi_2d", "atax", "two_mm", "heat_3d", "conv2d", "matmul_global", "fdtd_2d")
#: always run (the whole corpus with -m slow or PASSMAN_SLOW=1)
DEFAULT = MAPPED + ("nussinov", "symm", "dot", "histogram")


@pytest.mark.parametrize("files", corpus_params(DEFAULT))
def test_corpus_program_on_opencl(files, tmp_path, request):
    skip_slow(request)
    reference = Workspace(*map(str, files))
    reference.build("c", tmp_path / "ref")
    expected = reference.run()
    ws = Workspace(*map(str, files))
    recipe_entry(load_recipe("opencl"))(ws)
    ws.build("opencl", tmp_path / "ocl")
    kernels = (tmp_path / "ocl" / "kernels.cl").read_text()
    count = len(re.findall(r"^PASSMAN_KERNEL void", kernels, re.M))
    if program_id(files) in MAPPED:
        assert count, "no kernel"
    got = ws.run(env={**os.environ, "PASSMAN_ACCEL_STATS": "1"}, timeout=300)  # PoCL needs PATH (ld)
    assert got.returncode == expected.returncode, got.stderr[-2000:]
    assert got.stdout == expected.stdout
    if count:
        m = re.search(r"(\d+) kernel launches", got.stderr)
        assert m and int(m.group(1)) > 0, got.stderr[-300:]


#: fftw_complex (a header's typedef of double[2]) arrays in kernels: the kernels take flat
#: pointers to the element type and need the header's typedef
COMPLEX = r"""
#include <stdio.h>
#include <fftw3.h>
#define N 64
#define M 32

static void scale(int n, int m, fftw_complex A[n][m], double s)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            A[i][j][0] = A[i][j][0] * s + j;
            A[i][j][1] = A[i][j][1] * s - i;
        }
}

int main(void)
{
    static fftw_complex A[N][M];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            A[i][j][0] = i * 0.5 + j;
            A[i][j][1] = i - j * 0.25;
        }
    scale(N, M, A, 1.5);
    double sum = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            sum += A[i][j][0] * (i + 1) - A[i][j][1] * (j + 2);
    printf("%.17g\n", sum);
    return 0;
}
"""


@pytest.mark.skipif(not Path("/usr/include/fftw3.h").exists(), reason="no fftw3.h (Debian: libfftw3-dev)")
def test_kernels_on_arrays_of_fftw_complex(tmp_path):
    src = tmp_path / "cplx.c"
    src.write_text(COMPLEX)
    reference = Workspace(str(src))
    reference.build("c", tmp_path / "ref")
    expected = reference.run()
    ws = Workspace(str(src))
    recipe_entry(load_recipe("opencl"))(ws)
    ws.build("opencl", tmp_path / "ocl")
    kernels = (tmp_path / "ocl" / "kernels.cl").read_text()
    assert len(re.findall(r"^PASSMAN_KERNEL void", kernels, re.M)) == 3
    assert "typedef double fftw_complex[2];" in kernels
    assert "A[i * m + j][0] = A[i * m + j][0] * s + j;" in kernels
    # the host side is warning-free C (array parameters' size passed as a pointer's)
    host = subprocess.run(["gcc", "-fsyntax-only", "-Wall", "-Werror", "-Ipassman_lib", "cplx.c"],
                          cwd=tmp_path / "ocl", capture_output=True, text=True)
    assert host.returncode == 0, host.stderr
    got = ws.run(env=dict(os.environ), timeout=300)
    assert got.returncode == 0, got.stderr[-2000:]
    assert got.stdout == expected.stdout
