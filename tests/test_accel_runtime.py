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
from conftest import have_gpu

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
#
# The rule (README.md, "Launch configuration"), with W the warp, C the compute units, M the
# most items a block: the block total B is the largest W * 2^j within 256 and M, halved while
# the N items of the grid would make fewer than 2 * C blocks (N < 2 * C * B), never below W;
# dimension 0 starts at W (the extent itself when smaller), the others at 1, then the smallest
# side doubles (the lowest dimension on a tie) while the block stays within B, each side
# within its extent (dimension 0: rounded up to a multiple of W). The emulation's device:
# W = 32, C = 8, M = 1024, 1024 x 1024 x 64 per dimension, so B = 256 from N = 4096 on.

EMU_W, EMU_C = 32, 8


@pytest.mark.parametrize(
    "extent, expected",
    [
        # 1-D: N < 16 * 64 -> B = 32 (the smallest, a warp); 100000 >= 16 * 256 -> 256
        ("1000", "global=1024 local=32"),
        ("2000", "global=2048 local=64"),     # 16 * 128 > 2000 >= 16 * 64
        ("100000", "global=100096 local=256"),  # 391 blocks of 256
        ("256", "global=256 local=32"),       # 8 blocks: a warp is the floor
        ("5", "global=5 local=5"),            # smaller than a warp: the extent itself
        ("1", "global=1 local=1"),
        ("0", "global=0 local=1"),
        # 2-D: B = 32 below N = 1024; squarish with dimension 0 a warp: 256 -> 32x8
        ("37 13", "global=64x13 local=32x1"),
        ("100 3", "global=128x3 local=32x1"),
        ("1 1000", "global=1x1024 local=1x32"),  # dimension 0 is 1: the block goes to 1
        ("1000 2", "global=1024x2 local=32x2"),  # B = 64: 32x2, dimension 1 is full
        ("64 32", "global=64x32 local=32x4"),    # N = 2048 -> B = 128 -> 32x4, 16 blocks
        ("64 64", "global=64x64 local=32x8"),    # N = 4096 -> B = 256, 16 blocks
        ("1000 1000", "global=1024x1000 local=32x8"),
        # 3-D: 256 -> 32x4x2; small sides stop at their extent
        ("100 100 100", "global=128x100x100 local=32x4x2"),
        ("3 3 3", "global=3x3x3 local=3x3x3"),   # B = 32, 27 items fit
        ("1 1 1000", "global=1x1x1024 local=1x1x32"),
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


@pytest.mark.parametrize(
    "args, env, expected",
    [
        # the recipe's block, when no variable is set
        ("-k k0 -b 16x16 100 100", {}, "global=112x112 local=16x16"),
        ("-b 16x16 100 100", {}, "global=112x112 local=16x16"),
        # PASSMAN_ACCEL_BLOCK beats the recipe's block
        ("-k k0 -b 16x16 100 100", {"PASSMAN_ACCEL_BLOCK": "64"}, "global=128x100 local=64x1"),
        # PASSMAN_ACCEL_BLOCK_<kernel> beats both, for that kernel only
        ("-k k0 -b 16x16 100 100", {"PASSMAN_ACCEL_BLOCK": "64", "PASSMAN_ACCEL_BLOCK_k0": "8x4"},
         "global=104x100 local=8x4"),
        ("-k k1 -b 16x16 100 100", {"PASSMAN_ACCEL_BLOCK_k0": "8x4"}, "global=112x112 local=16x16"),
        ("-k k0 100 100", {"PASSMAN_ACCEL_BLOCK_k0": "8x4"}, "global=104x100 local=8x4"),
        # a name alone: the heuristic (N = 10000 -> B = 256 -> 32x8)
        ("-k k0 100 100", {}, "global=128x104 local=32x8"),
    ],
)
def test_config_per_kernel_overrides(emu, args, env, expected):
    assert ok(run(emu["config"], *args.split(), **env)).strip() == expected


@pytest.mark.parametrize("args, message", [
    ("-k k0 -b 0x4 100 100", "passman-accel: passman_accel_config: kernel k0: the recipe's block 0x4x1"),
    ("-k k0 -b 64x32 100 100", "passman-accel: passman_accel_config: kernel k0: the recipe's block 64x32x1"),
])
def test_config_bad_recipe_block_is_refused(emu, args, message):
    proc = run(emu["config"], *args.split())
    assert proc.returncode == 1 and proc.stderr.startswith(message), proc.stderr


def test_config_bad_per_kernel_block_is_refused(emu):
    proc = run(emu["config"], "-k", "k0", "100", PASSMAN_ACCEL_BLOCK_k0="16x")
    assert proc.returncode == 1
    assert proc.stderr.startswith("passman-accel: PASSMAN_ACCEL_BLOCK_k0=16x: expected 1 to 3")


# The rule's pure functions on made-up devices (config_rules.c, one query a line).


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    """Answers config_rules queries: rules(["choose w=32 ...", ...]) -> the answers."""
    exe = tmp_path_factory.mktemp("rules") / "config_rules"
    compile_c([*GCC, "-fopenmp", str(PROGRAMS / "config_rules.c"), "-o", str(exe), "-lm"])

    def ask(queries: list[str], **env: str) -> list[str]:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("PASSMAN_")}
        clean.setdefault("OMP_NUM_THREADS", "2")
        clean.update(env)
        proc = subprocess.run([str(exe)], input="\n".join(queries) + "\n", capture_output=True,
                              text=True, env=clean, timeout=60)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        answers = proc.stdout.splitlines()
        assert len(answers) == len(queries)
        return answers

    return ask


def sizes(text: str) -> list[int]:
    return [int(v) for v in text.split("x")]


def answer(line: str) -> dict[str, list[int]]:
    """"total=256 local=32x8 global=64x64" -> {"total": [256], "local": [32, 8], ...}"""
    return {k: sizes(v) for k, v in (w.split("=") for w in line.split())}


def prod(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def pow2_floor(n: int) -> int:
    return 1 << (n.bit_length() - 1)


EXTENTS_1D = [1, 3, 7, 16, 31, 32, 33, 63, 64, 65, 100, 255, 256, 257, 500, 1000, 1023, 1024,
              2047, 3000, 4096, 5000, 10000, 65536, 100000, 1 << 22]
EXTENTS = ([(e,) for e in EXTENTS_1D]
           + [(a, b) for a in (1, 5, 31, 32, 37, 100, 1000, 4096) for b in (1, 3, 13, 64, 1000)]
           + [(a, b, c) for a in (1, 3, 33, 100, 1000) for b in (1, 5, 100) for c in (1, 3, 100)])
DEVICES = [(8, 4096, 2), (16, 1024, 14), (32, 1024, 8), (32, 1024, 14), (32, 1024, 132),
           (64, 256, 60), (32, 128, 4)]


def test_rule_dimension_0_is_a_warp_multiple_and_the_block_fits(rules):
    cases = [(d, e) for d in DEVICES for e in EXTENTS]
    answers = rules([f"choose w={w} m={m} cu={cu} x=1024x1024x64 e={'x'.join(map(str, e))}"
                     for (w, m, cu), e in cases])
    for ((w, m, cu), e), line in zip(cases, answers):
        got = answer(line)
        local, total = got["local"], got["total"][0]
        assert total % w == 0 and (total // w) & (total // w - 1) == 0, (w, m, cu, e, line)
        assert total <= min(256, m), line
        if e[0] >= w:
            assert local[0] % w == 0 and local[0] <= -(-e[0] // w) * w, (w, e, line)
        else:
            assert local[0] == e[0], (w, e, line)  # the extent itself
        assert all(1 <= size <= max(x, 1) for size, x in zip(local[1:], e[1:])), (e, line)
        assert local[-1] <= (64 if len(e) == 3 else 1024)
        assert prod(local) <= total, line


def test_rule_small_grids_get_two_blocks_per_compute_unit(rules):
    cases = [(d, e) for d in DEVICES for e in EXTENTS]
    answers = rules([f"choose w={w} m={m} cu={cu} e={'x'.join(map(str, e))}"
                     for (w, m, cu), e in cases])
    for ((w, m, cu), e), line in zip(cases, answers):
        got = answer(line)
        n, total, full = prod(e), got["total"][0], w * pow2_floor(min(256, m) // w)
        blocks = prod(-(-x // size) for x, size in zip(e, got["local"]))
        if n >= 2 * cu * w:  # the extent allows 2 blocks per compute unit of at least a warp
            assert blocks >= 2 * cu, (w, m, cu, e, line)
        # capped only as far as needed: twice the block would give too few blocks
        assert total == full or n < 2 * cu * 2 * total, (w, m, cu, e, line)
        assert total >= w


@pytest.mark.parametrize(
    "query, expected",
    [
        # Tesla C2050 (14 multiprocessors, warp 32): 28 blocks at least
        ("w=32 m=1024 cu=14 e=10000", "total=256 local=256 global=10240"),  # 7168 <= 10000
        ("w=32 m=1024 cu=14 e=5000", "total=128 local=128 global=5120"),    # 40 blocks
        ("w=32 m=1024 cu=14 e=1000", "total=32 local=32 global=1024"),      # 32 blocks
        ("w=32 m=1024 cu=14 e=500", "total=32 local=32 global=512"),        # a warp at least
        # H100 (132 multiprocessors): N < 264 * 256 caps
        ("w=32 m=1024 cu=132 e=67584", "total=256 local=256 global=67584"),
        ("w=32 m=1024 cu=132 e=67583", "total=128 local=128 global=67584"),
        ("w=32 m=1024 cu=132 e=1000x1000", "total=256 local=32x8 global=1024x1000"),
        ("w=32 m=1024 cu=132 e=200x200", "total=128 local=32x4 global=224x200"),  # 33792 <= 40000
        # a kernel limited to 128 items, a device limited to 96 (B: 64, a power of 2 of warps)
        ("w=32 m=128 cu=1 e=1000x1000", "total=128 local=32x4 global=1024x1000"),
        ("w=32 m=96 cu=1 e=1000x1000", "total=64 local=32x2 global=1024x1000"),
        # a CPU (PoCL: preferred multiple 8, 2 compute units)
        ("w=8 m=4096 cu=2 e=37x13", "total=64 local=8x8 global=40x16"),
        ("w=8 m=4096 cu=2 e=1000x1000", "total=256 local=16x16 global=1008x1008"),
        # no compute units known: no cap
        ("w=32 m=1024 cu=0 e=100", "total=256 local=128 global=128"),
    ],
)
def test_rule_examples(rules, query, expected):
    assert rules([f"choose {query}"]) == [expected]


@pytest.mark.parametrize(
    "occupancy, expected",
    [
        # H100, 72 registers a thread (64K registers a multiprocessor, whole blocks): blocks of
        # 32, 64, 128, 256 items keep 896, 896, 896, 768 resident: 128, the largest of the best
        ("896x896x896x768", "total=128 local=32x4"),
        # a light kernel: every size fills the multiprocessor, the target stays (256)
        ("1024x2048x2048x2048", "total=256 local=32x8"),
        # shared memory allows 2 blocks at most: the larger block holds more
        ("64x128x256x512", "total=256 local=32x8"),
        # a kernel whose blocks of 64 hold the most
        ("512x1024x768x512", "total=64 local=32x2"),
        # slots past the cap (max_group 128 below) are not considered
        ("", "total=256 local=32x8"),
    ],
)
def test_rule_occupancy_picks_the_block_that_keeps_most_items_resident(rules, occupancy, expected):
    occ = f" occ={occupancy}" if occupancy else ""
    assert rules([f"choose w=32 m=1024 cu=132 e=4096x4096{occ}"]) == [
        f"{expected} global=4096x4096"]


def test_rule_occupancy_respects_the_caps_and_the_small_grid_rule(rules):
    # slots above max_group (128) are ignored even if they report more
    assert rules(["choose w=32 m=128 cu=1 e=4096 occ=100x200x300x4000"]) == [
        "total=128 local=128 global=4096"]
    # the occupancy choice (128) is then halved for a small grid: 2 blocks per compute unit
    assert rules(["choose w=32 m=1024 cu=132 e=16896 occ=896x896x896x768"]) == [
        "total=64 local=64 global=16896"]


@pytest.mark.parametrize(
    "warp, shapes",
    [
        # dimension 0 at least a warp wins over squareness: 32 x (B / 32)
        (32, {128: "32x4", 256: "32x8", 512: "32x16", 1024: "32x32"}),
        # a 16-wide warp (half warps): square where B is a square, dimension 0 larger otherwise
        (16, {128: "16x8", 256: "16x16", 512: "32x16", 1024: "32x32"}),
        (64, {128: "64x2", 256: "64x4", 512: "64x8", 1024: "64x16"}),
    ],
)
def test_rule_2d_shapes_for_each_total(rules, warp, shapes):
    got = rules([f"shape w={warp} total={t} e=4096x4096" for t in shapes])
    assert got == [f"local={s}" for s in shapes.values()]


@pytest.mark.parametrize(
    "query, expected",
    [
        ("w=32 total=256 e=4096x4096x4096", "local=32x4x2"),
        ("w=32 total=1024 e=4096x4096x4096", "local=32x8x4"),
        ("w=32 total=512 e=4096x4096x4096", "local=32x4x4"),
        ("w=16 total=256 e=4096x4096x4096", "local=16x4x4"),
        ("w=32 total=256 e=100x3x100", "local=32x3x2"),     # dimension 1 stops at 3
        ("w=32 total=256 e=1x1x1000 x=1024x1024x64", "local=1x1x64"),  # blockDim.z <= 64
        ("w=32 total=256 e=5x5x5", "local=5x5x5"),
        ("w=32 total=256 e=1000x2", "local=128x2"),  # dimension 1 full: dimension 0 takes the rest
        ("w=32 total=256 e=5x1000", "local=5x32"),   # smaller than a warp: dimension 1 grows
        ("w=32 total=256 e=40", "local=64"),         # dimension 0 within 40 rounded up to 64
        ("w=32 total=256 e=20", "local=20"),
        ("w=32 total=16 e=1000", "local=16"),         # a device below a warp
    ],
)
def test_rule_shapes_3d_and_small_extents(rules, query, expected):
    assert rules([f"shape {query}"]) == [expected]


@pytest.mark.parametrize(
    "query, expected",
    [
        # CUDA: gridDim.y and z at most 65535 -> the block grows in y, x shrinks to fit 1024
        ("e=64x1000000 l=32x8", "local=32x16"),        # 1e6 / 16 = 62500 blocks
        ("e=64x10000000 l=32x8", "local=4x256"),       # 153 needed -> 256, 32x256 too big
        ("e=64x100000000 l=32x8", "fail"),             # 1526 > 1024 threads in y
        ("e=100x100x70000000 l=32x4x2", "fail"),       # z: 1069 > 64
        ("e=100x100x1000000 l=32x4x2", "local=32x2x16"),  # z: 16, then y halves, not x
        ("e=1000x1000 l=32x8", "local=32x8"),          # fits: unchanged
    ],
)
def test_rule_grids_fit_the_device(rules, query, expected):
    dev = "w=32 m=1024 x=1024x1024x64 g=2147483647x65535x65535"
    assert rules([f"fit {dev} {query}"]) == [expected]


def test_rule_large_grids_fit_in_the_configuration(rules):
    dev = "w=32 m=1024 cu=132 x=1024x1024x64 g=2147483647x65535x65535"
    assert rules([f"config {dev} e=64x1000000"]) == ["global=64x1000000 local=32x16"]


@pytest.mark.parametrize(
    "query, expected",
    [
        ("global=64x16 local=8x8 g=2x1", "n=8 0,0:16x8 16,0:16x8 32,0:16x8 48,0:16x8 "
                                         "0,8:16x8 16,8:16x8 32,8:16x8 48,8:16x8"),
        ("global=40 local=8 g=2", "n=3 0:16 16:16 32:8"),   # the last strip is shorter
        ("global=40x3 local=8x1 g=0x2", "n=2 0,0:40x2 0,2:40x1"),  # 0: any number
        ("global=40 local=8 g=5", "n=1 0:40"),
        ("global=0x8 local=1x8 g=1x1", "n=0"),
    ],
)
def test_rule_strips(rules, query, expected):
    assert rules([f"strips {query}"]) == [expected]


@pytest.mark.parametrize(
    "query, env, expected",
    [
        # the block is the rule's (32x8), not fitted (32x16): 125000 blocks in y, two strips
        ("e=64x1000000", {}, "global=64x1000000 local=32x8 groups=2147483647x65535 n=2"),
        ("e=64x10000000", {}, "global=64x10000000 local=32x8 groups=2147483647x65535 n=20"),
        # fits: one strip
        ("e=1000x1000", {}, "global=1024x1000 local=32x8 groups=2147483647x65535 n=1"),
        ("e=0x1000", {}, "global=0x1024 local=1x32 groups=2147483647x65535 n=0"),  # empty: none
        # the environment lowers the device's limit (never raises it); missing components: the device's
        ("e=1000x1000", {"PASSMAN_CUDA_MAX_GRID": "4x100000"}, "global=1024x1000 local=32x8 groups=4x65535 n=8"),
        ("e=1000x1000", {"PASSMAN_CUDA_MAX_GRID": "1"}, "global=1024x1000 local=32x8 groups=1x65535 n=32"),
        ("e=100x100x1000000", {"PASSMAN_CUDA_MAX_GRID": "1x1x1"},
         "global=128x100x1000000 local=32x4x2 groups=1x1x1 n=50000000"),
        # the overrides still win
        ("e=64x1000000", {"PASSMAN_ACCEL_BLOCK": "64x16"}, "global=64x1000000 local=64x16 groups=2147483647x65535 n=1"),
    ],
)
def test_rule_cuda_strips_keep_the_block_and_cut_the_grid(rules, query, env, expected):
    dev = "w=32 m=1024 cu=132 x=1024x1024x64 g=2147483647x65535x65535"
    assert rules([f"cudastrips {dev} {query}"], **env) == [expected]


def test_rule_cuda_strips_cover_the_grid_once(rules):
    # the strips of a strip-mined configuration tile the global range exactly
    dev = "w=32 m=1024 cu=132 x=1024x1024x64 g=2147483647x65535x65535"
    for extent, limit in (("100x37", "3x2"), ("1000", "7"), ("33x5x9", "2x1x4")):
        got = answer(rules([f"cudastrips {dev} e={extent}"], PASSMAN_CUDA_MAX_GRID=limit)[0])
        glob, local, groups, n = got["global"], got["local"], got["groups"], got["n"][0]
        line = rules([f"strips global={'x'.join(map(str, glob))} local={'x'.join(map(str, local))} "
                      f"g={'x'.join(map(str, groups))}"])[0]
        count, *strips = line.split()
        assert count == f"n={n}"
        covered = set()
        for strip in strips:
            offsets, sizes_ = strip.split(":")
            off, size = [int(v) for v in offsets.split(",")], sizes(sizes_)
            assert all(sz % lc == 0 and sz // lc <= g for sz, lc, g in zip(size, local, groups)), line
            cells = [range(o, o + sz) for o, sz in zip(off, size)]
            box = {(a, b, c) for a in cells[0] for b in (cells[1] if len(cells) > 1 else [0])
                   for c in (cells[2] if len(cells) > 2 else [0])}
            assert not box & covered, line
            covered |= box
        assert len(covered) == prod(glob)


def test_rule_cuda_bad_max_grid_is_refused(rules):
    with pytest.raises(AssertionError, match="PASSMAN_CUDA_MAX_GRID=0x4: expected"):
        rules(["cudastrips w=32 m=1024 e=100"], PASSMAN_CUDA_MAX_GRID="0x4")


def test_rule_overrides_by_environment_and_kernel(rules):
    dev = "w=32 m=1024 cu=8 e=100x100"
    queries = [f"config {dev}", f"config kernel=k0 {dev}", f"config kernel=k0 block=16x16 {dev}",
               f"config kernel=k1 block=16x16 {dev}"]
    assert rules(queries) == ["global=128x104 local=32x8"] * 2 + ["global=112x112 local=16x16"] * 2
    assert rules(queries, PASSMAN_ACCEL_BLOCK="64x2") == ["global=128x100 local=64x2"] * 4
    assert rules(queries, PASSMAN_ACCEL_BLOCK_k0="8x4") == [
        "global=128x104 local=32x8", "global=104x100 local=8x4", "global=104x100 local=8x4",
        "global=112x112 local=16x16"]


def test_emulation_launch_for_a_kernel(rules):
    queries = ["emu e=37x13", "emu kernel=k0 e=37x13", "emu kernel=k0 block=16x2 e=37x13",
               "emu kernel=k1 block=16x2 e=37x13", "emu e=37x13"]
    assert rules(queries) == ["global=64x13", "global=64x13", "global=48x14", "global=48x14",
                              "global=64x13"]
    assert rules(queries, PASSMAN_ACCEL_BLOCK_k0="8x4") == [
        "global=64x13", "global=40x16", "global=40x16", "global=48x14", "global=64x13"]


# ---------------------------------------------------------------------------
# Copies, kernels, statistics: emulation and OpenCL
# ---------------------------------------------------------------------------


def test_box_copies_move_only_the_box(target):
    assert ok(run(target["copy_box"], "400")).strip() == "copy_box ok 400"


def test_kernels_over_ragged_extents(target):
    assert ok(run(target["kernels"], "grid")).strip() == "grid ok"


MARK = re.compile(r"mark global=(\d+)x(\d+) local=(\d+)x(\d+) items=(\d+) ones=(\d+)")


def check_mark(out: str) -> tuple[int, ...]:
    """The 37 x 13 launch of ``kernels mark``: each item of the global range ran once."""
    m = MARK.fullmatch(out.strip())
    assert m, out
    g0, g1, l0, l1, items, ones = map(int, m.groups())
    assert g0 % l0 == 0 and g1 % l1 == 0 and g0 >= 37 and g1 >= 13
    assert items == ones == g0 * g1, out
    return g0, g1, l0, l1


def test_every_item_of_the_global_range_runs_once(target):
    check_mark(ok(run(target["kernels"], "mark")))


def test_every_item_runs_once_on_the_emulated_device(emu):
    # 37 x 13 = 481 items < 2 * 8 * 64: a block of one warp, 32x1
    assert check_mark(ok(run(emu["kernels"], "mark"))) == (64, 13, 32, 1)


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


@pytest.mark.parametrize("grid", ["1", "2x1", "1x2", "3x2x1"])
def test_opencl_strip_mines_grids_larger_than_a_launch(opencl, grid):
    # PASSMAN_OPENCL_MAX_GRID lowers the device's limit on work-groups per launch: the
    # launch becomes strips with global offsets; every result and every item once stays.
    assert ok(run(opencl["kernels"], "grid", PASSMAN_OPENCL_MAX_GRID=grid)).strip() == "grid ok"
    plain = check_mark(ok(run(opencl["kernels"], "mark")))
    assert check_mark(ok(run(opencl["kernels"], "mark", PASSMAN_OPENCL_MAX_GRID=grid))) == plain
    proc = run(opencl["kernels"], "stats", PASSMAN_ACCEL_STATS="1", PASSMAN_OPENCL_MAX_GRID=grid)
    assert STATS.fullmatch(proc.stderr.strip()).groups()[4] == "2"  # one launch, many strips


def test_opencl_bad_max_grid_is_refused(opencl):
    proc = run(opencl["kernels"], "grid", PASSMAN_OPENCL_MAX_GRID="0x4")
    assert proc.returncode == 1
    assert proc.stderr.startswith("passman-accel: PASSMAN_OPENCL_MAX_GRID=0x4: expected")


def test_opencl_launch_takes_the_per_kernel_block(opencl):
    # passman_accel_launch knows the kernel's name: PASSMAN_ACCEL_BLOCK_<name> applies to it
    env = {"PASSMAN_ACCEL_BLOCK_k_fill2d": "7x3", "PASSMAN_ACCEL_BLOCK_k_fill3d": "5x2x3"}
    assert ok(run(opencl["kernels"], "grid", **env)).strip() == "grid ok"
    proc = run(opencl["kernels"], "grid", PASSMAN_ACCEL_BLOCK_k_fill3d="x")
    assert proc.returncode == 1
    assert proc.stderr.startswith("passman-accel: PASSMAN_ACCEL_BLOCK_k_fill3d=x: expected")
    # another kernel's variable does not apply to k_mark2d
    plain = check_mark(ok(run(opencl["kernels"], "mark")))
    assert check_mark(ok(run(opencl["kernels"], "mark", PASSMAN_ACCEL_BLOCK_k_fill2d="7x3"))) == plain


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


@pytest.fixture(scope="module")
def cuda_config(cuda) -> Path:
    """config_cuda.cu linked with the CUDA runtime (built by the ``cuda`` fixture)."""
    exe = cuda.parent / "config_cuda"
    compile_c([find_nvcc(), *NVCC_FLAGS, str(PROGRAMS / "config_cuda.cu"),
               str(cuda.parent / "runtime.o"), "-o", str(exe)])
    return exe


def test_cuda_configuration_program_compiles(cuda_config):
    assert cuda_config.is_file()


@pytest.mark.gpu
def test_cuda_configuration_follows_the_rule_on_the_device(cuda_config, rules):
    if not have_gpu():
        pytest.skip("no NVIDIA GPU")
    lines = ok(run(cuda_config)).splitlines()
    assert lines[0].startswith("device ") and lines[-1] == "run ok", lines
    device = lines[0].split(" ", 1)[1]
    for line in lines[1:-1]:
        what, extent, rest = line.split(" ", 2)
        m = 128 if what == "bounded" else None  # __launch_bounds__(128)
        dev = re.sub(r"m=\d+", f"m={m}", device) if m else device
        assert rules([f"config {dev} {extent}"]) == [rest], line


@pytest.mark.gpu
def test_cuda_kernels_run(cuda):
    if not have_gpu():
        pytest.skip("no NVIDIA GPU")
    assert ok(run(cuda, "grid")).strip() == "grid ok"
    # 481 items: fewer than 2 blocks of a warp per multiprocessor on any recent GPU: 32x1
    assert ok(run(cuda, "mark")).strip() == "mark global=64x13 local=32x1 items=832 ones=832"
    assert ok(run(cuda, "zero")).strip() == "zero ok"
    proc = run(cuda, "stats", PASSMAN_ACCEL_STATS="1")
    assert STATS.fullmatch(proc.stderr.strip()).groups() == ("2", "8048", "1", "80", "2")
