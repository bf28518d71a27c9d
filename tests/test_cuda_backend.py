"""The cuda backend (backends/cuda) and recipe: the CUDA output compiles and links with nvcc.

No GPU here: the programs are built (``kernels.cu`` and the runtime with
``nvcc -arch=sm_90 -Werror all-warnings``, the host code with gcc), not run.
The kernels are the text the OpenCL backend runs on PoCL
(test_opencl_backend.py), and the launches follow the runtime's CUDA
launcher (test_accel_runtime.py). Skipped where nvcc is missing.
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


def _nvcc() -> str | None:
    return shutil.which("nvcc") or next((str(p) for p in [Path("/usr/local/cuda/bin/nvcc")] if p.exists()), None)


pytestmark = pytest.mark.skipif(_nvcc() is None, reason="no nvcc (CUDA toolkit)")

DEFAULT = ("gemm", "jacobi_2d", "nussinov", "matmul_global")


@pytest.mark.parametrize("files", corpus_params(DEFAULT))
def test_corpus_program_builds_with_nvcc_without_warnings(files, tmp_path, request, monkeypatch):
    skip_slow(request)
    monkeypatch.setenv("PATH", f"{Path(_nvcc()).parent}{os.pathsep}{os.environ['PATH']}")
    ws = Workspace(*map(str, files))
    recipe_entry(load_recipe("cuda"))(ws)
    result = ws.build("cuda", tmp_path / "cu", nvcc_flags=["-O2", "-Werror", "all-warnings"],
                      cflags=["-O2", "-Wall", "-Wno-unused-variable", "-Wno-unused-but-set-variable"])
    assert result.binary.exists()
    cu = tmp_path / "cu" / "kernels.cu"
    text = cu.read_text() if cu.exists() else ""  # no kernel: no device file
    kernels = len(re.findall(r"^PASSMAN_KERNEL void", text, re.M))
    launches = text.count("<<<passman_grid, passman_block>>>")
    assert kernels == launches
    if program_id(files) in DEFAULT:
        assert kernels, "no kernel"
