"""The cuda backend (backends/cuda) and recipe: the CUDA output compiles and links with nvcc,
and its launchers run on the CPU.

No GPU here: the programs are built (``kernels.cu`` and the runtime with
``nvcc -arch=sm_90 -Werror all-warnings``, the host code with gcc), and run
only where a GPU is (marker ``gpu``). The kernels are the text the OpenCL
backend runs on PoCL (test_opencl_backend.py). The launchers themselves, strip-
mining included, run on the CPU: ``kernels.cu`` compiled as C++ with
``tests/accel_runtime/cuda_on_cpu.h`` (``k<<<grid, block>>>(...)`` becomes a
loop over the grid's blocks and threads, with CUDA's index arithmetic) and
linked with the runtime's emulation. nvcc tests skip where nvcc is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from conftest import corpus_params, have_gpu, program_id, skip_slow
from test_accel_backend import TRIANGLE

from passman import Workspace
from passman.builder import SourceFile
from passman.builder import compile as compile_plan
from passman.builder import run as run_binary
from passman.recipe import load_recipe, recipe_entry

RUNTIME = Path(__file__).resolve().parents[1] / "backends" / "runtime"
CUDA_ON_CPU = Path(__file__).resolve().parent / "accel_runtime" / "cuda_on_cpu.h"
LAUNCH = re.compile(r"\b(\w+)<<<(\w+), (\w+)>>>\(")
TRACE = re.compile(r"^cuda-on-cpu: <<<(\d+)x(\d+)x(\d+), (\d+)x(\d+)x(\d+)>>>$", re.M)
LAUNCHES = re.compile(r"(\d+) kernel launches")


def _nvcc() -> str | None:
    return shutil.which("nvcc") or next((str(p) for p in [Path("/usr/local/cuda/bin/nvcc")] if p.exists()), None)


needs_nvcc = pytest.mark.skipif(_nvcc() is None, reason="no nvcc (CUDA toolkit)")


def build_on_cpu(ws: Workspace, directory: Path) -> Path:
    """The cuda backend's output built for the CPU: kernels.cu as C++ with cuda_on_cpu.h (its
    launch syntax replaced), the runtime's emulation instead of its CUDA implementation."""
    plan = ws.render("cuda", directory)
    cu = directory / "kernels.cu"
    if cu.exists():  # else no kernel: a C program
        (directory / "kernels_cpu.cpp").write_text(LAUNCH.sub(r"passman_cpu_launch(\1, \2, \3)(", cu.read_text()))
    emulation = "passman_lib/passman_accel_omp.c"
    sources = []
    for src in plan.sources:
        if src.path.name == "kernels.cu":
            sources.append(SourceFile(Path("kernels_cpu.cpp"), "g++", ["-O1", "-Wall", "-include", str(CUDA_ON_CPU)]))
        elif src.path.name == "passman_accel_cuda.cu":
            sources.append(SourceFile(Path(emulation), flags=["-fopenmp"]))
        else:
            if src.path.suffix == ".cu":  # a library's CUDA implementation (cuBLAS, cuFFT)
                pytest.skip(f"{src.path.name} has no CPU version")
            sources.append(src)
    plan.sources = sources
    plan.extra_files[emulation] = (RUNTIME / "passman_accel_omp.c").read_text()
    plan.linker = "g++"
    plan.ldflags += ["-fopenmp"]
    return compile_plan(plan, directory).binary


def run_env(**env: str) -> dict[str, str]:
    """The environment of a run: the runtime's variables cleared, then ``env``."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PASSMAN_")}
    clean.setdefault("OMP_NUM_THREADS", "2")
    return {**clean, **env}


DEFAULT = ("gemm", "jacobi_2d", "nussinov", "matmul_global")


@needs_nvcc
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


# ---------------------------------------------------------------------------
# Strip-mining: grids larger than the device takes in one launch
# ---------------------------------------------------------------------------

#: lower bounds 1 (jacobi_2d), 2-D and 3-D boxes (heat_3d), a 1-D reduction array (dot)
STRIPPED = ("jacobi_2d", "gemm", "heat_3d", "dot")


@pytest.mark.parametrize("files", corpus_params(STRIPPED))
@pytest.mark.parametrize("limit", ["1x1x1", "2x3x2"])
def test_launchers_strip_mine_on_the_cpu(files, limit, tmp_path, request):
    """PASSMAN_CUDA_MAX_GRID lowers the device's maxGridSize: every launch runs as strips of at
    most that many blocks per dimension, each with its offset added to the box's lower bounds,
    and the program still prints the original's output; the runtime counts one launch each."""
    skip_slow(request)
    reference = Workspace(*map(str, files))
    reference.build("c", tmp_path / "ref")
    expected = reference.run()
    ws = Workspace(*map(str, files))
    recipe_entry(load_recipe("cuda"))(ws)
    exe = build_on_cpu(ws, tmp_path / "cpu")
    plain = run_binary(exe, env=run_env(PASSMAN_CPU_TRACE="1", PASSMAN_ACCEL_STATS="1"))
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert plain.stdout == expected.stdout
    counted = LAUNCHES.search(plain.stderr)
    launches = int(counted.group(1)) if counted else 0
    assert len(TRACE.findall(plain.stderr)) == launches  # one strip each
    if program_id(files) in STRIPPED:
        assert launches, "no launch"
    elif not launches:
        return
    got = run_binary(exe, env=run_env(PASSMAN_CPU_TRACE="1", PASSMAN_ACCEL_STATS="1",
                                      PASSMAN_CUDA_MAX_GRID=limit))
    assert got.returncode == 0, got.stderr[-2000:]
    assert got.stdout == expected.stdout
    assert int(LAUNCHES.search(got.stderr).group(1)) == launches
    most = [int(v) for v in limit.split("x")]
    strips = TRACE.findall(got.stderr)
    assert len(strips) > launches
    for strip in strips:
        assert all(int(g) <= m for g, m in zip(strip[:3], most)), strip
    # the block is the one the rule chose for the whole grid: strips do not change it
    assert {s[3:] for s in strips} == {s[3:] for s in TRACE.findall(plain.stderr)}


def test_recipe_block_and_strips_keep_the_guards(tmp_path):
    """A triangular nest launched over its box with the recipe's block (16x4): strips of 3x5
    blocks (the last ones ragged) write only inside the nest (untouched elements count in the
    checksum), as one launch without strips does."""
    reference = Workspace.from_code(TRIANGLE, "t.c")
    reference.build("c", tmp_path / "ref")
    expected = reference.run().stdout
    ws = Workspace.from_code(TRIANGLE, "t.c")
    ws.apply("gpu_ify", ws["main"], block="16x4")
    ws.apply("kernel_data_mapping")
    exe = build_on_cpu(ws, tmp_path / "cpu")
    text = (tmp_path / "cpu" / "kernels.cu").read_text()
    assert '"p4a_kernel_0", (const size_t []){16, 4}, 2,' in text
    for limit in ("", "3x5", "1x1"):
        got = run_binary(exe, env=run_env(PASSMAN_CPU_TRACE="1", PASSMAN_CUDA_MAX_GRID=limit))
        assert got.returncode == 0, got.stderr[-2000:]
        assert got.stdout == expected
        grids = TRACE.findall(got.stderr)
        assert {g[3:] for g in grids} == {("16", "4", "1"), ("16", "1", "1")}  # 2-D and 1-D nests
        if limit:
            most = [int(v) for v in limit.split("x")]
            assert all(int(g[0]) <= most[0] and int(g[1]) <= most[1] for g in grids)


def test_bad_max_grid_is_refused(tmp_path):
    ws = Workspace(str(Path(__file__).resolve().parent / "corpus" / "dot.c"))
    recipe_entry(load_recipe("cuda"))(ws)
    exe = build_on_cpu(ws, tmp_path / "cpu")
    got = run_binary(exe, env=run_env(PASSMAN_CUDA_MAX_GRID="2x0"))
    assert got.returncode == 1
    assert got.stderr.startswith("passman-accel: PASSMAN_CUDA_MAX_GRID=2x0: expected")


@needs_nvcc
@pytest.mark.gpu
@pytest.mark.parametrize("files", corpus_params(("jacobi_2d", "heat_3d")))
def test_strip_mined_launches_run_on_the_gpu(files, tmp_path, request, monkeypatch):
    """The same with nvcc on a GPU: the original's output with and without strips."""
    skip_slow(request)
    if not have_gpu():
        pytest.skip("no NVIDIA GPU")
    monkeypatch.setenv("PATH", f"{Path(_nvcc()).parent}{os.pathsep}{os.environ['PATH']}")
    reference = Workspace(*map(str, files))
    reference.build("c", tmp_path / "ref")
    expected = reference.run()
    ws = Workspace(*map(str, files))
    recipe_entry(load_recipe("cuda"))(ws)
    ws.build("cuda", tmp_path / "cu")
    for env in ({}, {"PASSMAN_CUDA_MAX_GRID": "1x1x1"}, {"PASSMAN_CUDA_MAX_GRID": "2x3x2"}):
        got = ws.run(env=run_env(PASSMAN_ACCEL_STATS="1", **env))
        assert got.returncode == 0, got.stderr[-2000:]
        assert got.stdout == expected.stdout, env


# ---------------------------------------------------------------------------
# Libraries: the brokers' CUDA implementations (cuBLAS, cuFFT wrappers)
# ---------------------------------------------------------------------------

LIBRARIES = Path(__file__).resolve().parent / "libraries"


def cuda_libraries(tmp_path: Path) -> list[str] | None:
    """``-I``/``-L`` flags that find cuBLAS and cuFFT (headers and libraries): the CUDA toolkit,
    env PASSMAN_CUDA_INCLUDE / PASSMAN_CUDA_LIB (``os.pathsep``-separated), or NVIDIA's pip
    wheels (``nvidia-cublas``, ``nvidia-cufft``, which ship only versioned libraries: links
    ``libcublas.so`` and ``libcufft.so`` are made in ``tmp_path``). None when one is missing."""
    nvcc = _nvcc()
    roots = [Path(os.path.realpath(nvcc)).parent.parent] if nvcc else []
    includes = [Path(d) for d in os.environ.get("PASSMAN_CUDA_INCLUDE", "").split(os.pathsep) if d]
    libdirs = [Path(d) for d in os.environ.get("PASSMAN_CUDA_LIB", "").split(os.pathsep) if d]
    includes += [r / "include" for r in roots]
    libdirs += [r / sub for r in roots for sub in ("lib64", "lib")]
    for site in map(Path, sys.path):
        includes += sorted(site.glob("nvidia/*/include"))
        libdirs += sorted(site.glob("nvidia/*/lib"))
    flags: list[str] = []
    for header in ("cublas_v2.h", "cufft.h"):
        found = next((d for d in includes if (d / header).is_file()), None)
        if found is None:
            return None
        flags += [f"-I{found}"]
    links = tmp_path / "cuda_libs"
    for lib in ("cublas", "cufft"):
        found = next((d for d in libdirs if (d / f"lib{lib}.so").exists()), None)
        if found is None:
            versioned = next((p for d in libdirs for p in sorted(d.glob(f"lib{lib}.so.*"))), None)
            if versioned is None:
                return None
            links.mkdir(exist_ok=True)
            (links / f"lib{lib}.so").symlink_to(versioned)
            found = links
            flags += [f"-Xlinker=-rpath-link={versioned.parent}"]
        flags += [f"-L{found}"]
    return list(dict.fromkeys(flags))


def library_program(name: str, **recipe) -> Workspace:
    ws = Workspace(str(LIBRARIES / name))
    recipe_entry(load_recipe("cuda"))(ws, **recipe)
    return ws


def test_blas_calls_link_the_cublas_wrapper_with_host_transfers_around_them(tmp_path):
    """The cuda recipe keeps a CBLAS call on the host: the arrays its stub's regions read
    (A, B, C for dgemm: op(A), op(B) and C's M x N block) come back from the device before it,
    the one it writes (C) goes to the device after it for the next kernel; the wrapper
    (cblas_cublas.cu, nvcc) runs the call with cuBLAS, moving what it reads and writes
    (``libraries=host``; by default the call runs on the device buffers: test_library_launch.py)."""
    ws = library_program("blas_calls.c", libraries="host")
    plan = ws.render("cuda", tmp_path / "cu")
    assert [(str(s.path), s.compiler) for s in plan.sources if s.path.suffix == ".cu"] == [
        ("kernels.cu", "nvcc"), ("passman_lib/passman_accel_cuda.cu", "nvcc"),
        ("passman_lib/cblas_cublas.cu", "nvcc")]
    assert "-lcublas" in plan.libs and "-lopenblas" not in plan.libs
    host = (tmp_path / "cu" / "blas_calls.c").read_text()
    for macro, value in (("M", "12"), ("N", "10"), ("K", "7")):  # kept as macros or expanded
        host = re.sub(rf"\b{macro}\b(?!\s+\d)", value, host)
    lines = [ln.strip() for ln in host.splitlines()]
    at = next(k for k, ln in enumerate(lines) if ln.startswith("cblas_dgemm("))
    assert lines[at - 3:at] == [
        "passman_accel_update_host(A, sizeof(A[0][0]) * 12 * 7);",
        "passman_accel_update_host(B, sizeof(B[0][0]) * 10 * 7);",
        "passman_accel_update_host(C, sizeof(C[0][0]) * 12 * 10);",
    ]
    assert lines[at + 1] == "passman_accel_update_device(C, sizeof(C[0][0]) * 12 * 10);"
    assert not any(re.match(r"passman_accel_update_\w+\([AB],", ln) for ln in lines[at + 1:])
    at = next(k for k, ln in enumerate(lines) if ln.startswith("cblas_daxpy("))
    assert lines[at - 2:at] == ["passman_accel_update_host(x, sizeof(x[0]) * (12 * 10));",
                                "passman_accel_update_host(y, sizeof(y[0]) * (12 * 10));"]


@needs_nvcc
@pytest.mark.parametrize("name, recipe, lib", [
    ("blas_calls.c", {}, "-lcublas"),
    # no kernel (the loops over fftw_complex stay on the host): a C program on cuFFT
    ("fft_roundtrip.c", {"host": "round_trip_1d,round_trip_3d,round_trip_single,checksum"}, "-lcufft"),
])
def test_library_programs_build_against_cublas_and_cufft(name, recipe, lib, tmp_path, monkeypatch):
    """The program after the cuda recipe compiles with nvcc and links with the library's CUDA
    implementation; it runs, where a GPU is, with the original's output (libraries on the CPU:
    OpenBLAS, FFTW)."""
    flags = cuda_libraries(tmp_path)
    if flags is None:
        pytest.skip("cuBLAS/cuFFT not found (CUDA toolkit, PASSMAN_CUDA_INCLUDE and PASSMAN_CUDA_LIB, "
                    "or pip install nvidia-cublas nvidia-cufft)")
    monkeypatch.setenv("PATH", f"{Path(_nvcc()).parent}{os.pathsep}{os.environ['PATH']}")
    ws = library_program(name, **recipe)
    plan = ws.render("cuda", tmp_path / "cu")
    assert lib in plan.libs
    plan.cppflags += [f for f in flags if f.startswith("-I")]
    plan.ldflags += [f for f in flags if not f.startswith("-I")]
    result = compile_plan(plan, tmp_path / "cu")
    assert result.binary.exists()
    if not have_gpu():
        return
    reference = Workspace(str(LIBRARIES / name))
    reference.build("c", tmp_path / "ref")
    dirs = [f.rsplit("=", 1)[1] if "=" in f else f[2:] for f in flags if not f.startswith("-I")]
    got = run_binary(result.binary, env=run_env(LD_LIBRARY_PATH=os.pathsep.join(
        [*dirs, os.environ.get("LD_LIBRARY_PATH", "")])))
    assert got.returncode == 0, got.stderr[-2000:]
    assert got.stdout == reference.run().stdout
