"""Never slower: every corpus program, ``gcc -O3`` of the original against ``passman run openmp``.

Run:  python benchmarks/bench_never_slower.py [--runs 7] [--only blur,gemm] [--threads 1,2]
      python benchmarks/bench_never_slower.py --fork-join      # the profitability model's constant

For each program of ``tests/corpus/*.c`` (at its own sizes, as the tests run
it; ``blur.c`` is the 2-D blur whose 7-tap loop used to get a parallel region
per pixel) and of the real-world corpus ``tests/realworld/`` (its one-file
programs, named ``realworld/NAME``, and the two-file PolyBench-like
``realworld/polybench_gemm`` at its default dataset), the original is built with ``gcc -O3`` and the output of the
``openmp`` recipe with the OpenMP backend (``-O3 -fopenmp``); then the
original and the OpenMP build at each ``OMP_NUM_THREADS`` run interleaved,
``--runs`` times, and the table gives the medians and the ratio
``openmp / original`` (above 1: slower). A program with OpenMP pragmas of
its own is built with ``-fopenmp`` too and compared at the same number of
threads: the user's program as the user runs it. Target: no ratio above 1.05.
Each run's output is checked against the original's (``rtol=atol=1e-6``).
Each time is of a batch of ``--repeat`` runs of the program, so that process
start-up noise is smaller than a few percent.

``--fork-join`` measures what :data:`passes.parallel.profitability.FORK_JOIN_NS`
and ``STATEMENT_NS`` hold: the cost of a ``#pragma omp parallel for`` region
of 16 iterations (minus the same loop without the pragma) at 1 and 2 threads,
and the cost of one statement execution, medians of interleaved batches.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "tests" / "corpus"
REALWORLD = HERE.parent / "tests" / "realworld"
POLYBENCH = REALWORLD / "polybench_gemm"
TOLERANCE = 1.05

FORK_JOIN_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#define N 4096
static double a[N], b[N];
int main(int argc, char **argv)
{
    int regions = atoi(argv[1]), n = atoi(argv[2]);
    double t0, t1, t2;
    for (int i = 0; i < N; i++) { a[i] = i; b[i] = 1.0 / (i + 1); }
    t0 = omp_get_wtime();
    for (int r = 0; r < regions; r++) {
        for (int i = 0; i < n; i++) a[i] = a[i] * 0.5 + b[i];
        __asm__ volatile("" ::: "memory");
    }
    t1 = omp_get_wtime();
    for (int r = 0; r < regions; r++) {
        #pragma omp parallel for
        for (int i = 0; i < n; i++) a[i] = a[i] * 0.5 + b[i];
    }
    t2 = omp_get_wtime();
    /* ns per statement execution, ns per region beyond the sequential loop */
    printf("%.3f %.1f %g\n", (t1 - t0) / regions / n * 1e9, ((t2 - t1) - (t1 - t0)) / regions * 1e9, a[3]);
    return 0;
}
"""


def fork_join(runs: int) -> int:
    """Print the fork/join cost at 1 and 2 threads and the cost of a statement (medians)."""
    with tempfile.TemporaryDirectory(prefix="passman-fj-") as tmp:
        src, exe = Path(tmp) / "fj.c", Path(tmp) / "fj"
        src.write_text(FORK_JOIN_C)
        subprocess.run(["gcc", "-O3", "-fopenmp", str(src), "-o", str(exe)], check=True)
        region: dict[int, list[float]] = {1: [], 2: []}
        statement: list[float] = []
        for _ in range(runs):
            for t in (1, 2):
                env = {**os.environ, "OMP_NUM_THREADS": str(t)}
                out = subprocess.run([str(exe), "5000", "16"], env=env, capture_output=True, text=True).stdout
                region[t].append(float(out.split()[1]))
            out = subprocess.run([str(exe), "200", "4096"], env={**os.environ, "OMP_NUM_THREADS": "1"},
                                 capture_output=True, text=True).stdout
            statement.append(float(out.split()[0]))
    print(f"# host: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    print("| measure | median | min | max |")
    print("|---|---|---|---|")
    for t in (1, 2):
        v = region[t]
        print(f"| fork/join, {t} thread(s) (ns) | {statistics.median(v):.0f} | {min(v):.0f} | {max(v):.0f} |")
    print(f"| statement execution (ns) | {statistics.median(statement):.2f} | {min(statement):.2f} | "
          f"{max(statement):.2f} |")
    return 0


def program(name: str) -> tuple[list[Path], list[str]]:
    """The source files and preprocessor flags of a program of the table."""
    if name == "realworld/polybench_gemm":
        return [POLYBENCH / "gemm.c", POLYBENCH / "utilities" / "polybench.c"], [f"-I{POLYBENCH / 'utilities'}"]
    if name.startswith("realworld/"):
        return [REALWORLD / f"{name.split('/', 1)[1]}.c"], []
    return [CORPUS / f"{name}.c"], []


def own_openmp(files: list[Path]) -> bool:
    """Whether the program has OpenMP pragmas of its own (it is then built and run as an OpenMP program)."""
    from passman.passes.parallel.profitability import has_openmp_pragmas

    return any(has_openmp_pragmas(f.read_text()) for f in files)


def build_original(files: list[Path], cppflags: list[str], folder: Path) -> Path:
    """``gcc -O3 files -lm`` (with ``-fopenmp`` for a program with pragmas of its own): the baseline binary."""
    from passman.builder import BuildPlan, SourceFile, compile

    omp = ["-fopenmp"] if own_openmp(files) else []
    plan = BuildPlan(sources=[SourceFile(f) for f in files], output="original", cflags=["-O3", *omp],
                     cppflags=cppflags, ldflags=omp, libs=["-lm"])  # fmt: skip
    return compile(plan, folder).binary


def build_openmp(files: list[Path], cppflags: list[str], folder: Path) -> tuple[Path, int, float]:
    """The ``openmp`` recipe on ``files`` built by the OpenMP backend; its pragmas and the recipe's seconds."""
    from passman import Workspace
    from passman.recipe import load_recipe

    start = time.perf_counter()
    ws = Workspace(*files, cppflags=cppflags)
    load_recipe("openmp").main(ws)
    seconds = time.perf_counter() - start
    result = ws.build("openmp", folder, opt="-O3")
    pragmas = sum(cu.code.count("#pragma omp parallel") for cu in ws.compilation_units if not cu.is_stub)
    return result.binary, pragmas, seconds


def timed(binary: Path, threads: int | None, expect: str | None, repeat: int) -> tuple[float, str]:
    """Wall-clock seconds of ``repeat`` runs (and the output, checked against ``expect``)."""
    from passman.testing import outputs_match

    env = dict(os.environ)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    out = ""
    start = time.perf_counter()
    for _ in range(repeat):
        p = subprocess.run([str(binary)], env=env, capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            raise SystemExit(f"{binary} failed (rc={p.returncode}): {p.stderr[:500]}")
        out = p.stdout
    seconds = time.perf_counter() - start
    if expect is not None and not outputs_match(expect, out, 1e-6, 1e-6):
        raise SystemExit(f"{binary} at {threads} thread(s) printed {out!r}, the original {expect!r}")
    return seconds, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="interleaved runs per configuration (median; default 7)")
    ap.add_argument("--repeat", type=int, default=5, help="program runs per timed batch (default 5)")
    ap.add_argument("--only", default="", help="comma-separated program names (default: every tests/corpus/*.c, "
                    "then realworld/NAME for tests/realworld/)")
    ap.add_argument("--threads", default="1,2", help="OMP_NUM_THREADS values (default 1,2)")
    ap.add_argument("--fork-join", action="store_true", help="measure the fork/join cost and exit")
    args = ap.parse_args(argv)
    if args.fork_join:
        return fork_join(max(args.runs, 5))
    names = [n for n in args.only.split(",") if n] or (
        sorted(p.stem for p in CORPUS.glob("*.c"))
        + sorted(f"realworld/{p.stem}" for p in REALWORLD.glob("*.c"))
        + ["realworld/polybench_gemm"]
    )
    threads = [int(t) for t in args.threads.split(",") if t]
    print(f"# {len(names)} programs, median of {args.runs} interleaved batches of {args.repeat} runs; "
          f"host: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}", file=sys.stderr)
    head = ("| program | omp regions | recipe (s) | gcc -O3 (ms) | "
            + " | ".join(f"{t} thr (ms) | ratio" for t in threads) + " |")
    print(head)
    print("|" + "---|" * (4 + 2 * len(threads)), flush=True)
    slower = []
    with tempfile.TemporaryDirectory(prefix="passman-never-slower-") as tmp:
        for name in names:
            folder = Path(tmp) / name
            folder.mkdir(parents=True)
            files, cppflags = program(name)
            original = build_original(files, cppflags, folder / "original")
            _, expect = timed(original, None, None, 1)
            binary, pragmas, recipe_s = build_openmp(files, cppflags, folder / "openmp")
            # a program with OpenMP of its own runs as the user runs it: at the same number of threads
            bases = [f"original{t}" for t in threads] if own_openmp(files) else ["original"]
            times: dict[str, list[float]] = {**{b: [] for b in bases}, **{f"omp{t}": [] for t in threads}}
            for _ in range(args.runs):  # interleaved: drifts of the machine hit every configuration alike
                for b in bases:
                    at = int(b[len("original"):]) if b != "original" else None
                    times[b].append(timed(original, at, expect, args.repeat)[0])
                for t in threads:
                    times[f"omp{t}"].append(timed(binary, t, expect, args.repeat)[0])
            med = {k: statistics.median(v) / args.repeat * 1e3 for k, v in times.items()}
            med["original"] = med[bases[0]]
            if len(bases) > 1:
                name = f"{name} (own OpenMP: -fopenmp, same threads)"
            cells = []
            for t in threads:
                ratio = med[f"omp{t}"] / med[f"original{t}" if len(bases) > 1 else "original"]
                if ratio > TOLERANCE:
                    slower.append(f"{name}@{t}")
                cells.append(f"{med[f'omp{t}']:.2f} | {ratio:.2f}{' **' if ratio > TOLERANCE else ''}")
            print(f"| {name} | {pragmas} | {recipe_s:.2f} | {med['original']:.2f} | " + " | ".join(cells) + " |",
                  flush=True)
    print(f"\n{len(slower)} configuration(s) slower than gcc -O3 by more than {TOLERANCE - 1:.0%}: "
          + (", ".join(slower) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
