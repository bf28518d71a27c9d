"""Polyhedral benchmark: passman's OpenMP output against gcc -O3 and Polly, in one run.

Run:  python benchmarks/bench_polly.py [--repeat 5] [--kernels gemm,jacobi_2d] [--json out.json]
      python benchmarks/bench_polly.py --quick --repeat 1        # corpus sizes: checks the harness

For each kernel of the corpus (``tests/corpus/K.c``), a copy with larger
sizes (its ``#define`` lines rewritten, nothing else, in a temporary folder)
is built four ways:

* ``gcc``: the original, ``gcc -O3 K.c -lm`` (the baseline);
* ``passman``: ``passman run openmp K.c -o DIR`` (the OpenMP recipe:
  ``auto_schedule``, then the coarse-grain path), built by the backend's
  Makefile (``make -C DIR``: ``gcc -O3 -fopenmp -fipa-pta``);
* ``coarse``: the same with ``--set poly=false`` (the coarse-grain path alone,
  Fig. 5.9), so that wavefronts can be compared with it;
* ``polly``: the original through Polly,
  ``clang-14 -O3 -mllvm -polly -mllvm -polly-parallel -fopenmp K.c -lm``
  (Polly's parallel code calls libgomp; where clang's default runtime,
  libomp, is not installed, ``-fopenmp=libgomp`` links that instead).

The parallel programs run with ``OMP_NUM_THREADS=2`` (``--threads``). Each
program runs ``--repeat`` times, the variants interleaved so that drifts of
the machine hit all alike; a time is the wall clock of the whole process
(initialisation included), and the table gives the median of the
original and each variant's speed-up over it (above 1: faster), with
geometric means over the kernels each variant ran correctly. Every run's
output must be the original's (numbers within ``rtol=1e-6``,
``atol=1e-6``: reordered floating-point sums may change the last printed
digit); a variant that fails to build or run shows as FAILED, one that
prints something else (in any run) as WRONG, and either is left out of its
geometric mean. ``--json`` writes every measurement, with the number of
OpenMP pragmas of passman's outputs and whether Polly's binary calls the
OpenMP runtime at all.

Kernels and sizes: the matrix products, triangular kernels, data-mining
kernels, the 2-D convolution and the time-iterated stencils, at sizes
where ``gcc -O3`` runs about a second or more on one core (calibrated on
an AMD EPYC vCPU with a 32 MiB L3). The Jacobi, heat and FDTD stencils
use data beyond that cache (64 to 270 MiB, like PolyBench's extra-large
sizes), where time tiling is meant to pay; with data inside the cache
``auto_schedule`` leaves them to the coarse-grain path (its cache-fit model). The matrix-vector kernels (``mvt``, ``atax``, ``bicg``,
``gemver``, ``trisolv``) need half a gigabyte for a second, mostly spent
initialising the matrix: they run only when named (``--kernels mvt``).
"""

from __future__ import annotations

import argparse
import json
import math
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

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "tests" / "corpus"

#: ``#define`` values giving about a second or more of ``gcc -O3`` (one core)
SIZES: dict[str, dict[str, int]] = {
    "gemm": {"NI": 1700, "NJ": 1700, "NK": 1700},
    "two_mm": {"NI": 1100, "NJ": 1100, "NK": 1100, "NL": 1100},
    "matmul_global": {"N": 1400},
    "syrk": {"N": 1900, "M": 1600},
    "symm": {"M": 1100, "N": 1300},
    "doitgen": {"NR": 200, "NQ": 200, "NP": 250},
    "lu": {"N": 1600},
    "cholesky": {"N": 2000},
    "covariance": {"M": 1200, "N": 1200},
    "correlation": {"M": 1300, "N": 1300},
    "conv2d": {"H": 10000, "W": 10000},
    "jacobi_1d": {"TSTEPS": 300, "N": 4000000},
    "jacobi_2d": {"TSTEPS": 100, "N": 2800},
    "heat_3d": {"TSTEPS": 20, "N": 260},
    "seidel_2d": {"TSTEPS": 140, "N": 1000},
    "fdtd_2d": {"TMAX": 100, "NX": 2400, "NY": 2400},
}

#: run only when named: a second of them needs about 0.5 GB, mostly initialisation
MATRIX_VECTOR: dict[str, dict[str, int]] = {
    "mvt": {"N": 9000},
    "atax": {"M": 9000, "N": 10000},
    "bicg": {"M": 9000, "N": 10000},
    "gemver": {"N": 8000},
    "trisolv": {"N": 8000},
}

VARIANTS = ("gcc", "passman", "coarse", "polly")
POLLY = ["clang-14", "-O3", "-mllvm", "-polly", "-mllvm", "-polly-parallel"]
RTOL = ATOL = 1e-6


@dataclass
class Measure:
    """One variant of one kernel: how it was built, its times and whether its output was right."""

    command: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    error: str | None = None
    wrong: bool = False  # the error is a wrong output (not a failed build or run)
    parallel: int | None = (
        None  # passman: ``#pragma omp`` lines; Polly: 1 if it calls the OpenMP runtime
    )
    build_seconds: float | None = None

    @property
    def median(self) -> float | None:
        """Median wall-clock seconds (None: no correct run)."""
        return statistics.median(self.times) if self.times and self.error is None else None


def sized_copy(name: str, sizes: dict[str, int], folder: Path) -> Path:
    """The corpus program ``name`` with its ``#define`` sizes replaced, written into ``folder``."""
    text = (CORPUS / f"{name}.c").read_text()
    for macro, value in sizes.items():
        text, n = re.subn(
            rf"^(#define\s+{macro}\s+)\S+", rf"\g<1>{value}", text, count=1, flags=re.M
        )
        if n != 1:
            raise SystemExit(f"{name}.c has no '#define {macro}'")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.c"
    path.write_text(text)
    return path


def _check(cmd: list[str], cwd: Path | None = None) -> str | None:
    """Run a build command; None on success, else the end of its output."""
    try:
        out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"{cmd[0]}: {err}"
    if out.returncode != 0:
        return (out.stderr or out.stdout).strip()[-800:] or f"{cmd[0]} exited with {out.returncode}"
    return None


def build_gcc(src: Path, folder: Path) -> tuple[Path, Measure]:
    """The baseline: ``gcc -O3 src -lm``."""
    folder.mkdir(parents=True, exist_ok=True)
    binary = folder / src.stem
    cmd = ["gcc", "-O3", str(src), "-o", str(binary), "-lm"]
    return binary, Measure(command=cmd, error=_check(cmd))


def passman_command() -> list[str]:
    """How to call passman's command line (the script beside this Python, else ``-c``)."""
    script = Path(sys.executable).with_name("passman")
    if script.is_file():
        return [str(script)]
    found = shutil.which("passman")
    return (
        [found]
        if found
        else [sys.executable, "-c", "import sys; from passman.cli import main; sys.exit(main())"]
    )


def build_passman(src: Path, folder: Path, sets: list[str]) -> tuple[Path, Measure]:
    """``passman run openmp src -o folder [--set ...]``, then ``make -C folder``."""
    cmd = [*passman_command(), "run", "openmp", str(src), "-o", str(folder)]
    for s in sets:
        cmd += ["--set", s]
    start = time.perf_counter()
    m = Measure(command=cmd + ["&&", "make", "-C", str(folder)], error=_check(cmd))
    m.build_seconds = time.perf_counter() - start
    if m.error is None:
        m.error = _check(["make", "-s", "-C", str(folder)])
        m.parallel = sum(f.read_text().count("#pragma omp") for f in folder.glob("*.c"))
    return folder / src.stem, m


_polly_runtime: list[str] | None = None


def polly_openmp_flags() -> list[str]:
    """``-fopenmp`` when clang-14 can link its default runtime (libomp), else ``-fopenmp=libgomp``."""
    global _polly_runtime
    if _polly_runtime is None:
        _polly_runtime = ["-fopenmp=libgomp"]
        with tempfile.TemporaryDirectory(prefix="passman-polly-") as tmp:
            probe = Path(tmp) / "probe.c"
            probe.write_text("int main(void) { return 0; }\n")
            if (
                shutil.which("clang-14")
                and _check(["clang-14", "-fopenmp", str(probe), "-o", str(Path(tmp) / "p")]) is None
            ):
                _polly_runtime = ["-fopenmp"]
    return _polly_runtime


def build_polly(src: Path, folder: Path, extra: list[str]) -> tuple[Path, Measure]:
    """``clang-14 -O3 -mllvm -polly -mllvm -polly-parallel -fopenmp src -lm`` (+ ``--polly-flags``)."""
    folder.mkdir(parents=True, exist_ok=True)
    binary = folder / src.stem
    if not shutil.which("clang-14"):
        return binary, Measure(
            error="clang-14 not found (Debian: apt-get install clang-14 libpolly-14-dev)"
        )
    cmd = [*POLLY, *polly_openmp_flags(), *extra, str(src), "-o", str(binary), "-lm"]
    m = Measure(command=cmd, error=_check(cmd))
    if m.error is None:  # did Polly parallelize anything? (calls into the OpenMP runtime)
        nm = subprocess.run(["nm", "-u", str(binary)], capture_output=True, text=True)
        m.parallel = int(bool(re.search(r"GOMP_parallel|__kmpc_fork_call", nm.stdout)))
    return binary, m


def timed(binary: Path, threads: int, timeout: float) -> tuple[float, str, str | None]:
    """Wall-clock seconds of one run, its output, and an error (None: it ran to completion)."""
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    env.setdefault("OMP_PROC_BIND", "false")
    start = time.perf_counter()
    try:
        out = subprocess.run(
            [str(binary)],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return timeout, "", f"timed out after {timeout:.0f} s"
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        return seconds, out.stdout, f"exit status {out.returncode}: {out.stderr.strip()[-300:]}"
    return seconds, out.stdout, None


def same_output(expect: str, got: str) -> bool:
    """The original's output, numbers within ``RTOL``/``ATOL``."""
    from passman.testing import outputs_match

    return outputs_match(expect, got, RTOL, ATOL)


def bench_kernel(
    name: str, sizes: dict[str, int], folder: Path, args: argparse.Namespace
) -> dict[str, Measure]:
    """Build every variant of one kernel, run them interleaved, check their outputs."""
    src = sized_copy(name, sizes, folder / "src") if sizes else CORPUS / f"{name}.c"
    built: dict[str, tuple[Path, Measure]] = {}
    for v in args.variants:
        if v == "gcc":
            built[v] = build_gcc(src, folder / "gcc")
        elif v == "passman":
            built[v] = build_passman(src, folder / "passman", args.set)
        elif v == "coarse":
            built[v] = build_passman(src, folder / "coarse", ["poly=false", *args.set])
        elif v == "polly":
            built[v] = build_polly(src, folder / "polly", args.polly_flags.split())
        if built[v][1].error:
            log(f"  {name}/{v}: build failed: {built[v][1].error.splitlines()[-1]}")
    base = built["gcc"]
    if base[1].error:
        return {v: m for v, (_, m) in built.items()}
    _, expect, err = timed(base[0], args.threads, args.timeout)
    if err:
        base[1].error = err
        return {v: m for v, (_, m) in built.items()}
    if re.search(r"\b(nan|inf)\b", expect, re.I):
        log(
            f"  {name}: warning: the original prints {expect.strip()!r} (sizes too large for its data?)"
        )
    return run_interleaved(built, expect, args, name)


def run_interleaved(built: dict[str, tuple[Path, Measure]], expect: str, args: argparse.Namespace,
                    label: str) -> dict[str, Measure]:  # fmt: skip
    """Run every variant built without error ``args.repeat`` times, interleaved, at ``args.threads``;
    a run that fails or prints other than ``expect`` ends its variant (logged as ``label/variant``)."""
    for _ in range(args.repeat):
        for v, (binary, m) in built.items():
            if m.error:
                continue
            seconds, out, err = timed(binary, args.threads, args.timeout)
            if err is None and not same_output(expect, out):
                err = f"prints {out.strip()[:200]!r}, the original {expect.strip()[:200]!r}"
                m.wrong = True
            if err:
                m.error = err
                log(f"  {label}/{v}: {err}")
            else:
                m.times.append(seconds)
    return {v: m for v, (_, m) in built.items()}


def speedup(results: dict[str, Measure], v: str) -> float | None:
    """``gcc`` median over variant ``v``'s median (None: one of them failed)."""
    base, other = results["gcc"].median, results[v].median if v in results else None
    return base / other if base and other else None


def geomean(values: list[float]) -> float | None:
    """Geometric mean (None when empty)."""
    return math.exp(sum(math.log(x) for x in values) / len(values)) if values else None


def table(rows: dict[str, dict[str, Measure]], variants: list[str], threads: int) -> str:
    """The markdown table: gcc -O3 seconds, then each variant's speed-up and geometric means."""
    others = [v for v in variants if v != "gcc"]
    head = {"passman": "passman", "coarse": "passman coarse", "polly": "Polly"}
    lines = [
        "| kernel | gcc -O3 (s) | "
        + " | ".join(f"{head[v]} ({threads} thr)" for v in others)
        + " |",
        "|---|---:|" + "---:|" * len(others),
    ]
    for name, res in rows.items():
        base = res["gcc"].median
        cells = []
        for v in others:
            s, m = speedup(res, v), res[v]
            cells.append(
                f"{s:.2f}x" if s else ("WRONG" if m.wrong else "FAILED" if m.error else "-")
            )
        lines.append(f"| {name} | {base:.3f} | " if base else f"| {name} | FAILED | ")
        lines[-1] += " | ".join(cells) + " |"
    means = []
    for v in others:
        vals = [s for res in rows.values() if (s := speedup(res, v))]
        g = geomean(vals)
        means.append(f"**{g:.2f}x** ({len(vals)}/{len(rows)})" if g else "-")
    lines.append("| geometric mean | | " + " | ".join(means) + " |")
    return "\n".join(lines)


def publish(report: str, out: Path | None) -> None:
    """Print a benchmark's Markdown report, and write it to ``out`` (atomically, its folder made) if given."""
    from passman.fsutil import atomic_write_text

    print(report, end="" if report.endswith("\n") else "\n")
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(out, report)


def log(text: str) -> None:
    """Progress, on stderr."""
    print(text, file=sys.stderr, flush=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument(
        "--kernels",
        default="",
        help="comma-separated kernel names (default: all but the matrix-vector ones)",
    )
    ap.add_argument(
        "--repeat", type=int, default=5, help="runs per variant; the median is reported (default 5)"
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="the corpus's own small sizes (checks the harness, times nothing)",
    )
    ap.add_argument(
        "--threads",
        type=int,
        default=2,
        help="OMP_NUM_THREADS of the parallel variants (default 2)",
    )
    ap.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help=f"among {','.join(VARIANTS)} (gcc always runs)",
    )
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="passed to `passman run openmp` for the passman variants (e.g. tile_sizes=64,64,64)",
    )
    ap.add_argument("--polly-flags", default="", help="extra clang flags for the Polly variant")
    ap.add_argument(
        "--timeout", type=float, default=600, help="seconds before a run is killed (default 600)"
    )
    ap.add_argument("--json", type=Path, help="write every measurement to this file")
    ap.add_argument(
        "--keep", type=Path, help="build in this folder and keep it (default: a temporary one)"
    )
    args = ap.parse_args(argv)
    known = {**SIZES, **MATRIX_VECTOR}
    args.kernels = [k for k in args.kernels.split(",") if k] or list(SIZES)
    unknown = [k for k in args.kernels if k not in known]
    if unknown:
        ap.error(f"unknown kernel(s) {', '.join(unknown)} (known: {', '.join(known)})")
    variants = [v for v in args.variants.split(",") if v]
    bad = [v for v in variants if v not in VARIANTS]
    if bad:
        ap.error(f"unknown variant(s) {', '.join(bad)} (known: {', '.join(VARIANTS)})")
    args.variants = ["gcc", *[v for v in VARIANTS[1:] if v in variants]]
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    """Build, run and tabulate (see the module docstring)."""
    args = parse_args(argv)
    known = {**SIZES, **MATRIX_VECTOR}
    log(
        f"# {len(args.kernels)} kernel(s), median of {args.repeat} run(s), OMP_NUM_THREADS={args.threads}; "
        f"host: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}"
    )
    rows: dict[str, dict[str, Measure]] = {}
    with tempfile.TemporaryDirectory(prefix="passman-bench-polly-") as tmp:
        root = args.keep or Path(tmp)
        for name in args.kernels:
            sizes = {} if args.quick else known[name]
            rows[name] = res = bench_kernel(name, sizes, root / name, args)
            base = res["gcc"].median
            summary = ", ".join(
                (
                    f"{v} {s:.2f}x"
                    if (s := speedup(res, v))
                    else f"{v} {'wrong' if res[v].wrong else 'failed'}"
                )
                + (f" ({res[v].parallel} parallel)" if res[v].parallel is not None else "")
                for v in args.variants
                if v != "gcc"
            )
            log(
                f"# {name}: gcc -O3 {base:.3f} s; {summary}"
                if base
                else f"# {name}: the original failed"
            )
    print(table(rows, args.variants, args.threads))
    if args.json:
        data = {
            "host": {
                "cpus": os.cpu_count(),
                "load_average": os.getloadavg(),
                "platform": platform.platform(),
            },
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "repeat": args.repeat,
            "threads": args.threads,
            "quick": args.quick,
            "rtol": RTOL,
            "atol": ATOL,
            "kernels": {
                name: {
                    "sizes": {} if args.quick else known[name],
                    "variants": {
                        v: {**asdict(m), "median": m.median, "speedup": speedup(res, v)}
                        for v, m in res.items()
                    },
                }
                for name, res in rows.items()
            },
            "geomean": {
                v: geomean([s for res in rows.values() if (s := speedup(res, v))])
                for v in args.variants
                if v != "gcc"
            },
        }
        args.json.write_text(json.dumps(data, indent=1) + "\n")
        log(f"# wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
