"""Accelerator benchmark: passman's kernels (OpenCL, the CPU emulation) against gcc -O3 and OpenMP, same run.

Run:  python benchmarks/bench_gpu.py [--runs 5] [--only gemm,jacobi_2d] [--threads 1,2] [--scale 0.1]
      [--transfers optimized,naive] [--cuda]

For each corpus kernel, a copy with larger sizes (``bench_openmp``'s
``SIZES``: about a second of ``gcc -O3``; the corpus's own program with its
``#define`` sizes changed, nothing else, written to a temporary folder) is

* compiled as it is with ``gcc -O3`` (the baseline),
* parallelized with the ``openmp`` recipe (``passman run openmp``, built
  ``-O3 -fopenmp``),
* mapped to kernels with the ``accel`` recipe and built for the accelerator
  runtime's CPU emulation (``passman run accel``, ``-O3 -fopenmp``: separate
  device buffers, work-items on OpenMP threads),
* mapped to kernels with the ``opencl`` recipe and built for OpenCL
  (``passman run opencl``, host code ``-O3``; PoCL's CPU device here, the
  first GPU of any OpenCL platform where one exists, ``--opencl-device``
  picks one by name),
* with ``--cuda``, mapped with the ``cuda`` recipe and built with nvcc
  (``-arch=sm_90`` unless ``--cuda-arch``): run only where a GPU answers
  (``nvidia-smi -L``); otherwise built and reported as not run, or skipped
  where nvcc is missing,

then all are run, interleaved, ``--runs`` times, the CPU variants at each
thread count of ``--threads`` (``OMP_NUM_THREADS``; ``POCL_MAX_PTHREAD_COUNT``
for PoCL). Each variant first runs once untimed (a warm-up: PoCL compiles
the kernels for the device at their first launch, into a cache in the
temporary folder that the timed runs reuse). The accelerator variants run
with ``PASSMAN_ACCEL_STATS=1``: the runtime's line at exit gives the time in
kernels (each launch to its end) and in copies (host <-> device), and the
number of launches and copies (and bytes) the program made.

The table (stdout, Markdown) has one row per variant and thread count: the
median wall-clock time, the speed-up ``original / variant`` (above 1:
faster), the median time in kernels and in copies, the kernels the recipe
made (launchers in the code), the launches and copies of one run and the
megabytes copied. A program whose nests all stay on the host (no kernel) is
a row with 0 launches; a variant that fails to build, fails, times out or
prints another output than the original's (numbers within ``rtol=1e-6``,
``atol=1e-6``: device reductions reorder floating-point sums; the corpus
prints 7 significant digits) says so in its row. ``--scale F`` multiplies
every size of a kernel by ``F**(1/d)``, ``d`` the degree of its run time in
the sizes (``DEGREE``), so that it runs about ``F`` times as long
(``--scale 0.1`` for a quick check); ``--only`` also takes the corpus's
other programs, at their own sizes (``structs_pointers``: no nest maps);
``--json`` writes every measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from passman import Workspace
from passman.builder import run
from passman.recipe import load_recipe
from passman.testing import outputs_match

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_openmp import (  # noqa: E402
    ATOL,
    CORPUS,
    RTOL,
    SIZES,
    build_openmp,
    build_original,
    sized_copy,
)

#: the degree of each kernel's run time in a factor common to its sizes (gemm: NI*NJ*NK, 3;
#: jacobi_2d: TSTEPS*N*N, 3), for ``--scale``; a kernel not listed: its number of sizes
DEGREE: dict[str, int] = {
    "matmul_global": 3, "gemm": 3, "two_mm": 3, "syrk": 3, "symm": 3, "doitgen": 4, "mvt": 2,
    "atax": 2, "bicg": 2, "gemver": 2, "jacobi_1d": 2, "jacobi_2d": 3, "heat_3d": 4, "fdtd_2d": 3,
    "seidel_2d": 3, "adi": 3, "conv2d": 2, "covariance": 3, "correlation": 3, "lu": 3,
    "cholesky": 3, "trisolv": 2, "floyd_warshall": 3, "nussinov": 3, "dot": 1, "histogram": 1,
    "libm_calls": 1, "prefix_sum": 2, "sor": 2,
}

#: the line ``PASSMAN_ACCEL_STATS=1`` makes the runtime print at exit (backends/runtime/README.md)
STATS = re.compile(
    r"passman-accel: (\d+) copies to device \((\d+) bytes\), (\d+) copies from device \((\d+) bytes\), "
    r"(\d+) kernel launches, ([0-9.eE+-]+) s in kernels, ([0-9.eE+-]+) s in copies")

#: a variant's run is stopped after this many times the original's run (at least MIN_TIMEOUT seconds)
TIMEOUT_FACTOR = 50
MIN_TIMEOUT = 60.0


@dataclass
class Stats:
    """The accelerator runtime's counts and times for one run."""

    copies_to: int
    bytes_to: int
    copies_from: int
    bytes_from: int
    launches: int
    kernel_s: float
    copy_s: float


def parse_stats(stderr: str) -> Stats | None:
    """The statistics line of a run's standard error (None: the program printed none)."""
    found = STATS.findall(stderr)
    if not found:
        return None
    a, b, c, d, e, k, u = found[-1]
    return Stats(int(a), int(b), int(c), int(d), int(e), float(k), float(u))


#: a run that never touched the runtime (every nest on the host) prints no statistics
NO_DEVICE = Stats(0, 0, 0, 0, 0, 0.0, 0.0)


@dataclass
class Variant:
    """One program to time: its binary, its environment and what happened to it."""

    name: str
    threads: int | None
    binary: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    kernels: int | None = None  # launchers in the code (accelerator variants)
    pragmas: int | None = None  # ``#pragma omp`` in the code (openmp)
    accel: bool = False  # runs on the accelerator runtime (statistics expected)
    status: str | None = None  # why it is not timed: "build failed: ...", "wrong", ...
    times: list[float] = field(default_factory=list)
    stats: list[Stats] = field(default_factory=list)


def build_failed(what: str, err: BaseException) -> str:
    """A table cell for a build that raised ``err`` (its whole message goes to stderr)."""
    text = str(err).strip() or type(err).__name__
    print(f"# {what}: build failed ({type(err).__name__}):\n#   "
          + "\n#   ".join(text.splitlines()[:30]), file=sys.stderr, flush=True)
    line = text.splitlines()[0].removeprefix("build failed: ").removeprefix("error: ")
    return "build failed: " + (line if len(line) <= 80 else line[:77] + "...")


def build_accel(src: Path, recipe_name: str, folder: Path, transfers: str = "optimized",
                **options: object) -> tuple[Path, int]:
    """``passman run RECIPE src -o folder --build --set transfers=T`` (with ``options`` for the
    backend): binary, kernels."""
    recipe = load_recipe(recipe_name)
    ws = Workspace(src)
    recipe.main(ws, transfers=transfers)
    kernels = sum(cu.code.count("#pragma passman launch") for cu in ws.compilation_units if not cu.is_stub)
    result = ws.build(recipe.BACKEND, folder, **options)
    return result.binary, kernels


def gpu_present() -> bool:
    """Whether ``nvidia-smi -L`` lists a GPU."""
    if shutil.which("nvidia-smi") is None:
        return False
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


def measure(v: Variant, expect: str | None, timeout: float) -> tuple[float, str] | None:
    """One run of ``v`` (its output checked against ``expect``); None, with ``v.status`` set, if it failed."""
    start = time.perf_counter()
    out = run(v.binary, env=v.env, timeout=timeout)
    seconds = time.perf_counter() - start
    if out.timed_out:
        v.status = f"timed out ({timeout:.0f} s)"
    elif out.returncode != 0:
        why = next((ln for ln in out.stderr.splitlines() if ln.strip()), "")[:80]
        v.status = f"failed (rc={out.returncode}{': ' + why if why else ''})"
    elif expect is not None and not outputs_match(expect, out.stdout, RTOL, ATOL):
        v.status = "wrong"
        print(f"# {v.binary} ({v.name}, {v.threads or 1} thread(s)) printed {out.stdout[:300]!r}, "
              f"the original {expect[:300]!r}", file=sys.stderr, flush=True)
    if v.status is not None:
        return None
    if v.accel:
        v.stats.append(parse_stats(out.stderr) or NO_DEVICE)
    return seconds, out.stdout


def scaled(name: str, scale: float) -> dict[str, int]:
    """The sizes of kernel ``name`` for a run time about ``scale`` times the full one's: each size
    times ``scale ** (1/d)``, ``d`` its ``DEGREE`` (at least 2); {} (the corpus's sizes) outside ``SIZES``."""
    sizes = SIZES.get(name, {})
    if not sizes:
        return {}
    f = scale ** (1 / DEGREE.get(name, len(sizes)))
    return {m: max(2, round(v * f)) for m, v in sizes.items()}


def variants_of(src: Path, folder: Path, threads: list[int], args: argparse.Namespace,
                base_env: dict[str, str]) -> list[Variant]:
    """Build every variant of ``src`` in ``folder`` (a failed build is a variant with its status)."""
    out: list[Variant] = []
    stats_env = {**base_env, "PASSMAN_ACCEL_STATS": "1"}

    def omp_env(t: int) -> dict[str, str]:
        return {**base_env, "OMP_NUM_THREADS": str(t),
                "OMP_PROC_BIND": base_env.get("OMP_PROC_BIND", "false")}

    try:
        binary, pragmas = build_openmp(src, folder / "openmp")
        status = None
    except Exception as err:  # a variant that cannot be built is a row, not the end of the benchmark
        binary, pragmas, status = None, None, build_failed(f"{src.stem} openmp", err)
    out += [Variant("openmp", t, binary, omp_env(t), pragmas=pragmas, status=status) for t in threads]

    for recipe, options, env_of in (
        ("accel", {"cflags": ["-O3"]}, lambda t: {**omp_env(t), **stats_env}),
        ("opencl", {"cflags": ["-O3"]},
         lambda t: {**stats_env, "POCL_MAX_PTHREAD_COUNT": str(t), **(
             {"PASSMAN_OPENCL_DEVICE": args.opencl_device} if args.opencl_device else {})}),
    ):
        for transfers in args.transfers.split(","):
            label = recipe if transfers == "optimized" else f"{recipe} ({transfers})"
            try:
                binary, kernels = build_accel(src, recipe, folder / f"{recipe}_{transfers}", transfers, **options)
                status = None
            except Exception as err:  # as above
                binary, kernels, status = None, None, build_failed(f"{src.stem} {label}", err)
            out += [Variant(label, t, binary, env_of(t), kernels=kernels, accel=True, status=status)
                    for t in threads]

    if args.cuda:
        v = Variant("cuda", None, env=dict(stats_env), accel=True)
        if shutil.which("nvcc") is None:
            v.status = "skipped (no nvcc)"
        else:
            try:
                v.binary, v.kernels = build_accel(src, "cuda", folder / "cuda", cflags=["-O3"],
                                                  nvcc_flags=["-O3"], arch=args.cuda_arch)
                if not args.gpu:
                    v.status = "built, not run (no GPU)"
            except Exception as err:  # as above
                v.status = build_failed(f"{src.stem} cuda", err)
        out.append(v)
    return out


def median_or_none(values: list[float]) -> float | None:
    """The median, or None for no values."""
    return statistics.median(values) if values else None


def table(rows: list[tuple[str, Variant, float | None]], original_name: str) -> list[str]:
    """The Markdown table: one line per (kernel, variant)."""
    lines = ["| kernel | variant | threads | time (s) | speed-up | in kernels (s) | in copies (s) "
             "| kernels | launches | copies | MB copied |",
             "|" + "---|" * 11]
    for name, v, base in rows:
        threads = "1" if v.name == original_name else "" if v.threads is None else str(v.threads)
        made = ("" if v.kernels is None and v.pragmas is None else f"{v.pragmas} omp pragmas"
                if v.pragmas is not None else str(v.kernels) if v.kernels else "0 (all on host)")
        cells = ["", "", "", "", made, "", "", ""]
        if v.status is not None or not v.times:
            cells[0] = v.status or "not run"
        else:
            t = statistics.median(v.times)
            cells[0:2] = [f"{t:.3f}", f"{base / t:.2f}x" if base else ""]
            if v.accel and v.stats:
                s = v.stats[-1]
                cells[2] = f"{statistics.median(x.kernel_s for x in v.stats):.3f}"
                cells[3] = f"{statistics.median(x.copy_s for x in v.stats):.3f}"
                cells[5] = str(s.launches)
                cells[6] = str(s.copies_to + s.copies_from)
                cells[7] = f"{(s.bytes_to + s.bytes_from) / 1e6:.1f}"
        label = "gcc -O3 (baseline)" if v.name == original_name else v.name
        lines.append(f"| {name} | {label} | {threads} | " + " | ".join(cells) + " |")
    return lines


def bench_kernel(name: str, folder: Path, threads: list[int], args: argparse.Namespace,
                 base_env: dict[str, str]) -> tuple[list[tuple[str, Variant, float | None]], dict]:
    """Build, warm up and time every variant of kernel ``name`` in ``folder``: its table rows
    (kernel, variant, the original's median) and its record for ``--json``."""
    folder.mkdir()
    sizes = scaled(name, args.scale)
    src = sized_copy(name, sizes, folder)
    original = Variant("original", None, env=dict(base_env))
    try:
        original.binary = build_original(src, folder / "original")
    except Exception as err:  # as in variants_of
        original.status = build_failed(f"{name} original", err)
    first = measure(original, None, 3600) if original.status is None else None
    if first is None:
        print(f"# {name}: the original: {original.status}", file=sys.stderr, flush=True)
        return [(name, original, None)], {"sizes": sizes, "error": original.status}
    t0, expect = first
    timeout = max(MIN_TIMEOUT, TIMEOUT_FACTOR * t0)
    start = time.perf_counter()
    variants = variants_of(src, folder, threads, args, base_env)
    built = time.perf_counter() - start
    for v in variants:  # the warm-up, which checks the output once before any timing
        if v.status is None:
            measure(v, expect, timeout)
            v.stats.clear()
    for _ in range(args.runs):  # interleaved, so that drifts of the machine hit all alike
        r = measure(original, expect, timeout)
        if r is None:
            print(f"# {name}: the original: {original.status}", file=sys.stderr, flush=True)
            break
        original.times.append(r[0])
        for v in variants:
            if v.status is None:
                r = measure(v, expect, timeout)
                if r is not None:
                    v.times.append(r[0])
    base = median_or_none(original.times)

    def speedup(v: Variant) -> float | None:
        return base / statistics.median(v.times) if base and v.times else None

    summary = ", ".join(f"{v.name}{'' if v.threads is None else '@' + str(v.threads)} "
                        + (v.status or (f"{speedup(v):.2f}x" if speedup(v) else "not run"))
                        for v in variants)
    print(f"# {name} {sizes or 'at the corpus sizes'}: original {base or 0:.3f} s "
          f"(built the variants in {built:.0f} s); {summary}", file=sys.stderr, flush=True)
    record = {"sizes": sizes, "variants": [
        {**{k: val for k, val in asdict(v).items() if k not in ("binary", "env")},
         "median": median_or_none(v.times), "speedup": speedup(v)}
        for v in [original, *variants]]}
    return [(name, v, base) for v in [original, *variants]], record


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="timed runs per variant (median; default 5)")
    ap.add_argument("--only", default="",
                    help="comma-separated kernel names (default: all of SIZES; another corpus program "
                         "runs at its own sizes)")
    ap.add_argument("--threads", default="1,2",
                    help="OMP_NUM_THREADS / POCL_MAX_PTHREAD_COUNT values (default 1,2)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="run time about this times the full sizes' (each size times SCALE**(1/degree); "
                         "0.1 for a quick check)")
    ap.add_argument("--transfers", default="optimized,naive",
                    help="the recipes' transfer schemes to compare (optimized: kernel_data_mapping, "
                         "naive: copies around each launch; default both)")
    ap.add_argument("--cuda", action="store_true", help="also the cuda recipe (run only where a GPU is)")
    ap.add_argument("--cuda-arch", default="sm_90", help="nvcc -arch (default sm_90)")
    ap.add_argument("--opencl-device", default="",
                    help="PASSMAN_OPENCL_DEVICE: a substring of the device name")
    ap.add_argument("--json", type=Path, help="write every measurement to this file")
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(SIZES)
    unknown = [n for n in names if n not in SIZES and not (CORPUS / f"{n}.c").is_file()]
    if unknown:
        raise SystemExit(f"unknown kernel(s): {', '.join(unknown)} (known: {', '.join(SIZES)}, "
                         "or any tests/corpus/*.c at its own sizes)")
    if args.runs < 1 or args.scale <= 0:
        raise SystemExit("--runs must be at least 1 and --scale above 0")
    threads = [int(t) for t in args.threads.split(",") if t]
    args.gpu = args.cuda and gpu_present()
    print(f"# {len(names)} kernels, median of {args.runs} runs after a warm-up, scale {args.scale:g}; "
          f"host: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}"
          + (f"; CUDA: {'a GPU' if args.gpu else 'no GPU, not run'}" if args.cuda else ""),
          file=sys.stderr)
    rows: list[tuple[str, Variant, float | None]] = []
    record: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="passman-bench-gpu-") as tmp:
        # PoCL's kernel cache in the temporary folder: the warm-up run fills it, the timed runs reuse it
        base_env = {**os.environ, "POCL_CACHE_DIR": str(Path(tmp) / "pocl-cache")}
        for name in names:
            kernel_rows, record[name] = bench_kernel(name, Path(tmp) / name, threads, args, base_env)
            rows += kernel_rows
    print("\n".join(table(rows, "original")))
    if args.json:
        data = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "host": {"cpus": os.cpu_count(), "load_average": os.getloadavg(),
                         "platform": platform.platform()},
                "runs": args.runs, "threads": threads, "scale": args.scale, "rtol": RTOL, "atol": ATOL,
                "cuda": args.cuda, "gpu": args.gpu, "kernels": record}
        args.json.write_text(json.dumps(data, indent=1) + "\n")
        print(f"# wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
