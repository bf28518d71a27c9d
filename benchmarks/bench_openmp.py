"""OpenMP benchmark: passman's parallel output against the original program, same run.

Run:  python benchmarks/bench_openmp.py [--runs 5] [--only gemm,jacobi_2d] [--threads 1,2]

For each corpus kernel, a copy with larger sizes (the corpus's own program
with its ``#define`` sizes changed, nothing else, written to a temporary
folder) is

* compiled as it is with ``gcc -O3`` (the baseline),
* parallelized with the ``openmp`` recipe and built by the OpenMP backend
  (``gcc -O3 -fopenmp``),

then both are run, interleaved, ``--runs`` times at each thread count
(``OMP_NUM_THREADS``); the table gives the median wall-clock time of the
original and the ratios ``original / openmp`` (above 1: faster). Every run's
output is checked against the original's (numbers within ``rtol=1e-6``,
``atol=1e-6``: reductions reorder floating-point sums; the corpus prints 7
significant digits). ``--calibrate`` times the originals only (to choose
sizes of about a second).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "tests" / "corpus"

#: sizes giving about a second of ``gcc -O3`` on one core (an AMD EPYC vCPU)
SIZES: dict[str, dict[str, int]] = {
    "matmul_global": {"N": 1200},
    "gemm": {"NI": 1450, "NJ": 1450, "NK": 1450},
    "two_mm": {"NI": 1000, "NJ": 1000, "NK": 1000, "NL": 1000},
    "syrk": {"N": 1500, "M": 1300},
    "symm": {"M": 900, "N": 1100},
    "doitgen": {"NR": 200, "NQ": 200, "NP": 200},
    "mvt": {"N": 9000},
    "atax": {"M": 9000, "N": 10000},
    "bicg": {"M": 9000, "N": 10000},
    "gemver": {"N": 8000},
    "jacobi_1d": {"TSTEPS": 10000, "N": 100000},
    "jacobi_2d": {"TSTEPS": 1000, "N": 1000},
    "heat_3d": {"TSTEPS": 170, "N": 120},
    "fdtd_2d": {"TMAX": 300, "NX": 1000, "NY": 1000},
    "seidel_2d": {"TSTEPS": 100, "N": 1000},
    "adi": {"TSTEPS": 50, "N": 1000},
    "conv2d": {"H": 9000, "W": 9000},
    "covariance": {"M": 950, "N": 950},
    "correlation": {"M": 1000, "N": 1000},
    "lu": {"N": 1400},
    "cholesky": {"N": 1700},
    "trisolv": {"N": 8000},
    "floyd_warshall": {"N": 1080},
    "nussinov": {"N": 1700},
    "dot": {"N": 50_000_000},
    "histogram": {"N": 200_000_000},
    "libm_calls": {"N": 10_000_000},
    "prefix_sum": {"N": 30_000_000, "R": 4000, "C": 4000},
    "sor": {"N": 480},
}

RTOL = ATOL = 1e-6


def sized_copy(name: str, sizes: dict[str, int], folder: Path) -> Path:
    """The corpus program ``name`` with its ``#define`` sizes replaced, written into ``folder``."""
    text = (CORPUS / f"{name}.c").read_text()
    for macro, value in sizes.items():
        text, n = re.subn(rf"^(#define\s+{macro}\s+)\S+", rf"\g<1>{value}", text, count=1, flags=re.M)
        if n != 1:
            raise SystemExit(f"{name}.c has no '#define {macro}'")
    path = folder / f"{name}.c"
    path.write_text(text)
    return path


def build_original(src: Path, folder: Path) -> Path:
    """``gcc -O3 src -lm``: the baseline binary."""
    from passman.builder import BuildPlan, SourceFile, compile

    plan = BuildPlan(sources=[SourceFile(src)], output="original", cflags=["-O3"], libs=["-lm"])
    return compile(plan, folder).binary


def build_openmp(src: Path, folder: Path) -> tuple[Path, int]:
    """The ``openmp`` recipe on ``src``, built by the OpenMP backend (``-O3 -fopenmp``)."""
    from passman import Workspace
    from passman.recipe import load_recipe

    ws = Workspace(src)
    load_recipe("openmp").main(ws)
    result = ws.build("openmp", folder, opt="-O3")
    pragmas = sum(cu.code.count("#pragma omp") for cu in ws.compilation_units if not cu.is_stub)
    return result.binary, pragmas


def timed(binary: Path, threads: int | None, expect: str | None) -> tuple[float, str]:
    """Wall-clock seconds of one run (and its output, checked against ``expect``)."""
    from passman.builder import run
    from passman.testing import outputs_match

    env = dict(os.environ)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
        env.setdefault("OMP_PROC_BIND", "false")
    start = time.perf_counter()
    out = run(binary, env=env, timeout=600)
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"{binary} failed (rc={out.returncode}): {out.stderr[:500]}")
    if expect is not None and not outputs_match(expect, out.stdout, RTOL, ATOL):
        raise SystemExit(f"{binary} at {threads} thread(s) printed {out.stdout!r}, the original {expect!r}")
    return seconds, out.stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="runs per configuration (median; default 5)")
    ap.add_argument("--only", default="", help="comma-separated kernel names (default: all)")
    ap.add_argument("--threads", default="1,2", help="OMP_NUM_THREADS values (default 1,2)")
    ap.add_argument("--calibrate", action="store_true", help="time the originals only")
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(SIZES)
    unknown = [n for n in names if n not in SIZES]
    if unknown:
        raise SystemExit(f"unknown kernel(s): {', '.join(unknown)} (known: {', '.join(SIZES)})")
    threads = [int(t) for t in args.threads.split(",") if t]
    print(f"# {len(names)} kernels, median of {args.runs} runs; host: {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f}", file=sys.stderr)
    rows = []
    with tempfile.TemporaryDirectory(prefix="passman-bench-omp-") as tmp:
        for name in names:
            folder = Path(tmp) / name
            folder.mkdir()
            src = sized_copy(name, SIZES[name], folder)
            original = build_original(src, folder / "original")
            _, expect = timed(original, None, None)
            if args.calibrate:
                t = statistics.median(timed(original, None, None)[0] for _ in range(args.runs))
                print(f"{name:16s} {t:7.3f} s", flush=True)
                continue
            binary, pragmas = build_openmp(src, folder / "openmp")
            times: dict[str, list[float]] = {"original": []}
            times.update({f"omp{t}": [] for t in threads})
            for _ in range(args.runs):  # interleaved, so that drifts of the machine hit all alike
                times["original"].append(timed(original, None, expect)[0])
                for t in threads:
                    times[f"omp{t}"].append(timed(binary, t, expect)[0])
            med = {k: statistics.median(v) for k, v in times.items()}
            rows.append((name, pragmas, med))
            ratios = "  ".join(f"{med['original'] / med[f'omp{t}']:5.2f}x" for t in threads)
            print(f"# {name}: {pragmas} pragma(s), original {med['original']:.3f} s, speed-up {ratios}",
                  file=sys.stderr, flush=True)
    if args.calibrate:
        return 0
    head = "| kernel | omp pragmas | original gcc -O3 (s) | " + " | ".join(
        f"{t} thread{'s' if t > 1 else ''}: time (s) / speed-up" for t in threads) + " |"
    print(head)
    print("|" + "---|" * (3 + len(threads)))
    for name, pragmas, med in rows:
        cells = " | ".join(f"{med[f'omp{t}']:.3f} / {med['original'] / med[f'omp{t}']:.2f}x" for t in threads)
        print(f"| {name} | {pragmas} | {med['original']:.3f} | {cells} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
