"""What a time tiling can win on each stencil at a size: the cost of an update where the data live.

Run:  python benchmarks/bench_stencil_bound.py [--repeat 5] [--kernels jacobi_2d,heat_3d] [--copies 2] [--out F]

A time tiling wins by keeping a tile's data in a core's private cache over
several time steps: it cannot make an update cheaper than one whose data
are already there. For each time-iterated stencil of the corpus this runs
the original, ``gcc -O3``, sequential, at three sizes:

* ``L2``: all its arrays fit in half of one core's L2 (512 KiB or less),
  with enough time steps to run as long as the others;
* ``in``: ``bench_stencils.py``'s in-cache size (in the last-level cache,
  not in one L2);
* ``out``: ``bench_stencils.py``'s out-of-cache size;

and prints the nanoseconds per point update (the run's time over the
updates of every time step; initialisation included, under 3% here) and
each size's cost over the ``L2`` one. A ratio near 1 says the updates are
bound by the core, not by the caches: a time tiling of that size can win
at most that ratio over a parallel loop with the same vector code (its
tiles add their own costs). Medians of ``--repeat`` interleaved runs.
With ``--copies 2`` each run is two copies at once (one per core): the
demand two threads make on the shared last-level cache.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_polly import build_gcc, log, publish, sized_copy, timed  # noqa: E402
from bench_stencils import STENCILS  # noqa: E402

#: kernel -> (sizes whose data fit in half an L2, point updates of one time step from the sizes)
BOUND: dict[str, tuple[dict[str, int], object]] = {
    "jacobi_1d": ({"N": 20000}, lambda s: 2 * (s["N"] - 2)),
    "jacobi_2d": ({"N": 150}, lambda s: 2 * (s["N"] - 2) ** 2),
    "jacobi_2d_9pt": ({"N": 150}, lambda s: 2 * (s["N"] - 2) ** 2),
    "heat_3d": ({"N": 30}, lambda s: 2 * (s["N"] - 2) ** 3),
    "fdtd_2d": ({"NX": 120, "NY": 120},
                lambda s: s["NY"] + (s["NX"] - 1) * s["NY"] + s["NX"] * (s["NY"] - 1) + (s["NX"] - 1) * (s["NY"] - 1)),
    "seidel_2d": ({"N": 200}, lambda s: (s["N"] - 2) ** 2),
}  # fmt: skip
#: the time-step macro of each kernel
STEPS = {"fdtd_2d": "TMAX"}


def updates(name: str, sizes: dict[str, int]) -> int:
    """Point updates of the whole run."""
    return sizes[STEPS.get(name, "TSTEPS")] * BOUND[name][1](sizes)


def l2_sizes(name: str) -> dict[str, int]:
    """The L2 size, with as many updates as the in-cache run."""
    space, per_step = BOUND[name]
    target = updates(name, STENCILS[name][1])
    return {**space, STEPS.get(name, "TSTEPS"): max(1, round(target / per_step(space)))}


def copies_timed(binary: Path, copies: int) -> float:
    """Wall-clock seconds of ``copies`` runs of ``binary`` started together (one thread each)."""
    if copies == 1:
        seconds, _, err = timed(binary, 1, 600)
        if err:
            raise SystemExit(f"{binary}: {err}")
        return seconds
    start = time.perf_counter()
    procs = [subprocess.Popen([str(binary)], stdout=subprocess.DEVNULL) for _ in range(copies)]
    if any(p.wait(timeout=600) != 0 for p in procs):
        raise SystemExit(f"{binary} failed")
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--kernels", default=",".join(BOUND))
    p.add_argument("--copies", type=int, default=1, help="copies run at once (default 1)")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="passman-bound-") as tmp:
        for name in args.kernels.split(","):
            sizes = {"L2": l2_sizes(name), "in": STENCILS[name][1], "out": STENCILS[name][2]}
            binaries = {}
            for label, s in sizes.items():
                src = sized_copy(name, s, Path(tmp) / name / label / "src")
                binaries[label], m = build_gcc(src, Path(tmp) / name / label)
                if m.error:
                    raise SystemExit(f"{name} {label}: {m.error}")
            times: dict[str, list[float]] = {label: [] for label in sizes}
            for _ in range(args.repeat):
                for label, binary in binaries.items():
                    times[label].append(copies_timed(binary, args.copies))
            ns = {label: statistics.median(times[label]) / updates(name, sizes[label]) * 1e9 for label in sizes}
            log(f"{name}: " + ", ".join(f"{k} {v:.3f} ns" for k, v in ns.items()))
            rows.append((name, sizes, ns))
    lines = [
        f"# Stencil updates where the data live, {datetime.date.today()}",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; `gcc -O3`, one thread, "
        f"{args.copies} cop{'y' if args.copies == 1 else 'ies'} at once; median of {args.repeat} interleaved runs; ns per point update (whole run).",
        "",
        "| kernel | L2 sizes | ns (L2) | ns (in) | ns (out) | in / L2 | out / L2 |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, sizes, ns in rows:
        lines.append(f"| {name} | {sizes['L2']} | {ns['L2']:.3f} | {ns['in']:.3f} | {ns['out']:.3f} | "
                     f"{ns['in'] / ns['L2']:.2f} | {ns['out'] / ns['L2']:.2f} |")  # fmt: skip
    report = "\n".join(lines) + "\n"
    publish(report, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
