"""The accelerator runtime (``backends/runtime``): hand-written C programs on its three
implementations.

The programs in ``tests/accel_runtime/`` call the runtime's API directly: box copies of
ranks 1 to 4, kernels over extents that are not multiples of the work-group sizes, the
statistics line, shuffled work-item orders, guard zones, misuse. They run on the CPU
emulation (gcc -fopenmp) and on OpenCL (PoCL, skipped without ``CL/cl.h`` or a platform);
the CUDA implementation and launchers are compiled and linked with nvcc, and run only
where a GPU is (marker ``gpu``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

RUNTIME = Path(__file__).resolve().parents[1] / "backends" / "runtime"
PROGRAMS = Path(__file__).resolve().parent / "accel_runtime"
GCC = ["gcc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{RUNTIME}", f"-I{PROGRAMS}"]
NVCC_FLAGS = ["-O2", "-arch=sm_90", "-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra,-Werror",
              f"-I{RUNTIME}", f"-I{PROGRAMS}"]
STATS = re.compile(
    r"passman-accel: (\d+) copies to device \((\d+) bytes\), (\d+) copies from device "
    r"\((\d+) bytes\), (\d+) kernel launches, \d+\.\d{6} s in kernels, \d+\.\d{6} s in copies"
)


def compile_c(args: list[str]) -> None:
    """Runs a compiler command line; fails the test with the compiler's messages."""
    proc = subprocess.run(args, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(args)}\n{proc.stdout}{proc.stderr}"


def run(exe: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Runs a test program with the runtime's variables cleared, then set from ``env``."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PASSMAN_")}
    clean.setdefault("OMP_NUM_THREADS", "2")
    clean.update(env)
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env=clean,
                          timeout=60)


def find_nvcc() -> str | None:
    """nvcc on PATH or in /usr/local/cuda/bin."""
    found = shutil.which("nvcc")
    if found:
        return found
    default = Path("/usr/local/cuda/bin/nvcc")
    return str(default) if default.is_file() else None


def build(out: Path, runtime_obj: Path, launchers: str, lib: list[str]) -> dict[str, Path]:
    """Links the test programs against one implementation's object file."""
    exes = {
        "kernels": [PROGRAMS / "kernels_main.c", PROGRAMS / launchers],
        "copy_box": [PROGRAMS / "copy_box.c"],
        "errors": [PROGRAMS / "errors.c"],
    }
    built = {}
    for name, sources in exes.items():
        exe = out / name
        compile_c([*GCC, *[str(s) for s in sources], str(runtime_obj), "-o", str(exe), *lib])
        built[name] = exe
    return built


@pytest.fixture(scope="module")
def emu(tmp_path_factory) -> dict[str, Path]:
    """The test programs on the emulation (passman_accel_omp.c)."""
    out = tmp_path_factory.mktemp("emu")
    obj = out / "emu.o"
    compile_c([*GCC, "-fopenmp", "-c", str(RUNTIME / "passman_accel_omp.c"), "-o", str(obj)])
    built = build(out, obj, "launch_emu.c", ["-fopenmp", "-lm"])
    built["config"] = out / "config"
    compile_c([*GCC, str(PROGRAMS / "config.c"), str(obj), "-o", str(built["config"]),
               "-fopenmp"])
    return built


def have_opencl_header() -> bool:
    """True when gcc finds CL/cl.h."""
    proc = subprocess.run(["gcc", "-E", "-x", "c", "-", "-o", os.devnull],
                          input="#include <CL/cl.h>\n", capture_output=True, text=True)
    return proc.returncode == 0


@pytest.fixture(scope="module")
def opencl(tmp_path_factory) -> dict[str, Path]:
    """The test programs on OpenCL, with kernels.cl next to them (as the backend does)."""
    if not have_opencl_header():
        pytest.skip("CL/cl.h not found (Debian: apt-get install ocl-icd-opencl-dev)")
    out = tmp_path_factory.mktemp("opencl")
    obj = out / "opencl.o"
    compile_c([*GCC, "-c", str(RUNTIME / "passman_accel_opencl.c"), "-o", str(obj)])
    built = build(out, obj, "launch_opencl.c", ["-lOpenCL"])
    built["source"] = out / "source"
    compile_c([*GCC, str(PROGRAMS / "opencl_source.c"), str(obj), "-o", str(built["source"]),
               "-lOpenCL"])
    probe = run(built["copy_box"], "1")
    if "no OpenCL platform" in probe.stderr or "no OpenCL device" in probe.stderr:
        pytest.skip(f"no OpenCL platform or device: {probe.stderr.strip()} "
                    "(Debian: apt-get install pocl-opencl-icd)")
    (out / "kernels.cl").write_text(
        (RUNTIME / "passman_accel_cl.h").read_text() + (PROGRAMS / "kernels.inc").read_text()
    )
    return built


@pytest.fixture(params=["emu", "opencl"])
def target(request) -> dict[str, Path]:
    """Each implementation that runs here."""
    return request.getfixturevalue(request.param)


def ok(proc: subprocess.CompletedProcess[str]) -> str:
    """The program's stdout, after checking that it succeeded."""
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


# ---------------------------------------------------------------------------
# Launch configuration (shared code: checked on the emulation)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "extent, expected",
    [
        ("1000", "global=1024 local=256"),
        ("256", "global=256 local=256"),
        ("5", "global=8 local=8"),
        ("1", "global=1 local=1"),
        ("0", "global=0 local=1"),
        ("37 13", "global=64x16 local=32x8"),
        ("100 3", "global=128x4 local=32x4"),
        ("1 1000", "global=1x1000 local=1x8"),
        ("100 100 100", "global=128x100x100 local=32x4x2"),
        ("3 3 3", "global=4x4x4 local=4x4x2"),
    ],
)
def test_config_defaults(emu, extent, expected):
    assert ok(run(emu["config"], *extent.split())).strip() == expected


@pytest.mark.parametrize(
    "block, extent, expected",
    [
        ("16x2", "37 13", "global=48x14 local=16x2"),
        ("64", "37 13", "global=64x13 local=64x1"),
        ("8x8x4", "9 9 9", "global=16x16x12 local=8x8x4"),
        ("512", "3", "global=512 local=512"),
    ],
)
def test_config_block_from_environment(emu, block, extent, expected):
    out = run(emu["config"], *extent.split(), PASSMAN_ACCEL_BLOCK=block)
    assert ok(out).strip() == expected


@pytest.mark.parametrize("block", ["32x", "0", "8x-1", "64x32", "a"])
def test_config_bad_block_is_refused(emu, block):
    proc = run(emu["config"], "100", PASSMAN_ACCEL_BLOCK=block)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"passman-accel: PASSMAN_ACCEL_BLOCK={block}: ")


# ---------------------------------------------------------------------------
# Copies, kernels, statistics: emulation and OpenCL
# ---------------------------------------------------------------------------


def test_box_copies_move_only_the_box(target):
    assert ok(run(target["copy_box"], "400")).strip() == "copy_box ok 400"


def test_kernels_over_ragged_extents(target):
    assert ok(run(target["kernels"], "grid")).strip() == "grid ok"


def test_every_item_of_the_global_range_runs_once(target):
    out = ok(run(target["kernels"], "mark")).strip()
    assert out == "mark global=64x16 local=32x8 items=1024 ones=1024"


def test_stats_line_counts_copies_bytes_and_launches(target):
    proc = run(target["kernels"], "stats", PASSMAN_ACCEL_STATS="1")
    assert ok(proc).strip() == "stats done"
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and STATS.fullmatch(lines[0]), proc.stderr
    # 8000 + 48 bytes in, 80 out; the two empty copies are not counted.
    assert STATS.fullmatch(lines[0]).groups() == ("2", "8048", "1", "80", "2")
    assert run(target["kernels"], "stats").stderr == ""


def test_mapped_host_arrays_keep_one_buffer_that_grows(target):
    proc = run(target["kernels"], "mapped", PASSMAN_ACCEL_STATS="1", PASSMAN_ACCEL_CHECK="1")
    assert ok(proc).strip() == "mapped bad=0"
    # a in, then the growth's two copies through the host (a's buffer out and in), out back
    assert STATS.fullmatch(proc.stderr.strip()).groups()[:3] == ("2", str(64 * 8 + 64 * 8), "2")


def test_empty_copies_and_launches_do_nothing(target):
    proc = run(target["kernels"], "zero", PASSMAN_ACCEL_STATS="1")
    assert ok(proc).strip() == "zero ok"
    assert STATS.fullmatch(proc.stderr.strip()).groups() == ("0", "0", "0", "0", "0")


@pytest.mark.parametrize(
    "mode, message",
    [
        ("box", "passman_accel_copy_to: the box 5..8 of dimension 1 is outside the array"),
        ("free", "passman_accel_free: 0x"),
        ("twice", "is not a live device buffer"),
        ("size", "the array (384 bytes) is larger than the device buffer (192 bytes)"),
        ("rank", "passman_accel_copy_to: rank 5 (1 to 4 expected)"),
    ],
)
def test_misuse_is_reported(target, mode, message):
    proc = run(target["errors"], mode)
    assert proc.returncode == 1 and "not reported" not in proc.stdout
    assert proc.stderr.startswith("passman-accel: ") and message in proc.stderr


# ---------------------------------------------------------------------------
# What only the emulation does
# ---------------------------------------------------------------------------


def test_emulation_checks_pass_on_correct_kernels(emu):
    for env in ({"PASSMAN_ACCEL_CHECK": "1"}, {"PASSMAN_ACCEL_SHUFFLE": "1"},
                {"PASSMAN_ACCEL_BLOCK": "8x2x2"}):
        assert ok(run(emu["kernels"], "grid", **env)).strip() == "grid ok", env
        assert ok(run(emu["copy_box"], "100", **env)).strip() == "copy_box ok 100", env


def test_shuffle_keeps_a_race_free_result(emu):
    plain = ok(run(emu["kernels"], "racefree"))
    for seed in ("1", "2", "3"):
        assert ok(run(emu["kernels"], "racefree", PASSMAN_ACCEL_SHUFFLE="1",
                      PASSMAN_ACCEL_SEED=seed)) == plain


@pytest.mark.parametrize("mode, last", [("racy", 999), ("racy1", 199)])
def test_shuffle_exposes_an_order_dependent_kernel(emu, mode, last):
    # One thread throughout: only the order of the work-items can change the result
    # (racy1 is one work-group: the items inside it must be shuffled too).
    in_order = ok(run(emu["kernels"], mode, OMP_NUM_THREADS="1"))
    assert in_order.split()[-1] == f"last={last}"  # out[i] = out[i-1] + 1, item i after i-1
    shuffled = [ok(run(emu["kernels"], mode, OMP_NUM_THREADS="1", PASSMAN_ACCEL_SHUFFLE="1",
                       PASSMAN_ACCEL_SEED=seed)) for seed in ("1", "2", "3")]
    assert any(out != in_order for out in shuffled)
    assert ok(run(emu["kernels"], mode, OMP_NUM_THREADS="1", PASSMAN_ACCEL_SHUFFLE="1",
                  PASSMAN_ACCEL_SEED="2")) == shuffled[1]  # reproducible per seed


def test_uncopied_device_data_is_garbage(emu):
    assert ok(run(emu["kernels"], "garbage")).strip() == "garbage finite=0"


def test_guard_zone_catches_a_write_past_the_end(emu):
    proc = run(emu["kernels"], "poke", PASSMAN_ACCEL_CHECK="1")
    assert proc.returncode == 1 and "poked" not in proc.stdout
    assert proc.stderr == "passman-accel: write past the end of a device buffer of 80 bytes\n"


# ---------------------------------------------------------------------------
# What only OpenCL does
# ---------------------------------------------------------------------------


def test_opencl_source_lookup_order(opencl, tmp_path):
    exe = tmp_path / "alone" / "source"
    exe.parent.mkdir()
    shutil.copy(opencl["source"], exe)
    assert ok(run(exe)).strip() == "42 42 42 42"  # the registered text
    (exe.parent / "passman_accel_cl.h").write_text((RUNTIME / "passman_accel_cl.h").read_text())
    (exe.parent / "kernels.cl").write_text(
        '#include "passman_accel_cl.h"\n'
        "PASSMAN_KERNEL void k_const(PASSMAN_GLOBAL int *out, long n)\n"
        "{ long i = PASSMAN_INDEX(0); if (i < n) out[i] = 7; }\n")
    assert ok(run(exe)).strip() == "7 7 7 7"  # next to the executable, with its #include
    other = tmp_path / "other.cl"
    other.write_text("__kernel void k_const(__global int *out, long n)\n"
                     "{ if (get_global_id(0) < n) out[get_global_id(0)] = 13; }\n")
    assert ok(run(exe, PASSMAN_OPENCL_SOURCE=str(other))).strip() == "13 13 13 13"
    missing = run(exe, PASSMAN_OPENCL_SOURCE=str(tmp_path / "missing.cl"))
    assert missing.returncode == 1 and "PASSMAN_OPENCL_SOURCE=" in missing.stderr


def test_opencl_errors_name_the_call(opencl, tmp_path):
    proc = run(opencl["source"], "k_missing")
    assert proc.returncode == 1
    assert re.search(r"passman_accel_opencl\.c:\d+: OpenCL error CL_INVALID_KERNEL_NAME\(-46\) "
                     r"in clCreateKernel \(k_missing\)", proc.stderr), proc.stderr
    broken = tmp_path / "broken.cl"
    broken.write_text("__kernel void k_const(__global int *out, long n) { out[0] = undeclared; }\n")
    proc = run(opencl["source"], PASSMAN_OPENCL_SOURCE=str(broken))
    assert proc.returncode == 1
    assert f"building the OpenCL program {broken} failed" in proc.stderr
    assert "undeclared" in proc.stderr  # the build log
    assert "CL_BUILD_PROGRAM_FAILURE(-11) in clBuildProgram" in proc.stderr
    proc = run(opencl["copy_box"], "1", PASSMAN_OPENCL_DEVICE="no such device")
    assert proc.returncode == 1 and "matches no OpenCL device" in proc.stderr


# ---------------------------------------------------------------------------
# CUDA: compiled and linked wherever nvcc is, run where a GPU is
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cuda(tmp_path_factory) -> Path:
    """kernels_main linked with the CUDA launchers and runtime (nvcc, warnings as errors)."""
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found (PATH, /usr/local/cuda/bin)")
    out = tmp_path_factory.mktemp("cuda")
    compile_c([nvcc, *NVCC_FLAGS, "-c", str(RUNTIME / "passman_accel_cuda.cu"), "-o",
               str(out / "runtime.o")])
    compile_c([nvcc, *NVCC_FLAGS, "-c", str(PROGRAMS / "launch_cuda.cu"), "-o",
               str(out / "launch.o")])
    compile_c([*GCC, "-c", str(PROGRAMS / "kernels_main.c"), "-o", str(out / "main.o")])
    compile_c([nvcc, "-arch=sm_90", str(out / "main.o"), str(out / "launch.o"),
               str(out / "runtime.o"), "-o", str(out / "kernels")])
    return out / "kernels"


def test_cuda_runtime_and_launchers_compile(cuda):
    assert cuda.is_file()


def have_gpu() -> bool:
    """True when nvidia-smi lists a GPU."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    proc = subprocess.run([smi, "-L"], capture_output=True, text=True)
    return proc.returncode == 0 and "GPU" in proc.stdout


@pytest.mark.gpu
def test_cuda_kernels_run(cuda):
    if not have_gpu():
        pytest.skip("no NVIDIA GPU")
    assert ok(run(cuda, "grid")).strip() == "grid ok"
    assert ok(run(cuda, "mark")).strip() == "mark global=64x16 local=32x8 items=1024 ones=1024"
    assert ok(run(cuda, "zero")).strip() == "zero ok"
    proc = run(cuda, "stats", PASSMAN_ACCEL_STATS="1")
    assert STATS.fullmatch(proc.stderr.strip()).groups() == ("2", "8048", "1", "80", "2")
