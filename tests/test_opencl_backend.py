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
