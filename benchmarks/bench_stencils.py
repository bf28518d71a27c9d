"""Stencil benchmark: time tilings (diamond/skewed, barrier fronts or tasks) against coarse grain, in one run.

Run:  python benchmarks/bench_stencils.py [--repeat 3] [--threads 2] [--kernels jacobi_1d,heat_3d]
      python benchmarks/bench_stencils.py --sizes in --repeat 1      # in-cache sizes only
      python benchmarks/bench_stencils.py --out benchmarks/results/stencils-DATE.md

For each time-iterated stencil of the corpus (jacobi-1d, jacobi-2d, the
9-point jacobi-2d, heat-3d, FDTD-2d, seidel-2d), at an *in-cache* size
(data of a few MiB: inside this machine's last-level cache) and an
*out-of-cache* one (64 to 150 MiB: beyond a 32 MiB L3, with 40 to 400 time
steps, so that time tiles have steps to reuse the cache over; until
2026-11-27 these were about 0.5 GiB and 6 to 40 steps, where a time tile
has almost nothing to reuse), each run long enough (0.3 s or more) that
start-up does not decide the row, a copy with its ``#define``
sizes rewritten is built these ways:

* ``gcc``: the original, ``gcc -O3`` (sequential; the baseline of the ratios);
* ``coarse``: ``passman run openmp --set poly=false`` (the coarse-grain path:
  the parallel space loops of each time step, a fork/join per nest);
* ``recipe``: ``passman run openmp`` as it is (``auto_schedule`` chooses the
  time tiling, its shape and its traversal from the model, then the
  profitability rules);
* ``wavefront``: ``auto_schedule(force_wavefront=True, pragma="omp parallel for")``
  on the kernel (the recipe's scheduler, forced to its pipelined wavefront of
  time tiles, a barrier per front; in-process: ``--set auto_schedule_*`` on the
  command line is refused before the pass's module is loaded);
* ``tile-static``: ``time_tile(schedule="static")``: diamond tiles (skewed
  where no diamond is legal: seidel-2d), wavefronts with a barrier per front;
* ``tile-tasks``: ``time_tile(schedule="tasks")``: the same tiles as OpenMP
  tasks with ``depend`` clauses from the tile dependence graph (no barrier);
* ``split-static``: ``time_tile(shape="split", schedule="static")`` for 1-D
  stencils, ``shape="hybrid"`` for the others (SDSL's split / hybrid split
  tiles, upright then inverted tiles per band, a barrier after each phase;
  Gauss-Seidel is refused: FAILED);
* ``split-tasks``: the same tiles as OpenMP tasks on their tile dependence
  graph (Freitag's "opt-split");
* ``balanced-static``, ``balanced-tasks``: ``time_tile(shape="balanced")``:
  Di's tiles (Algorithm 4.1's hyperplanes: the outermost point loop carries
  every self dependence, the innermost is a vector loop), barrier fronts or
  tasks (FDTD, whose statements have two depths, is refused: FAILED);
* ``trapezoid``: ``trapezoid_tile()``: Pochoir's recursive trapezoidal walk
  (hyperspace cuts, pieces of a level as OpenMP tasks, default thresholds;
  Gauss-Seidel is refused: FAILED);
* ``dlt``: ``dlt(parallel=True)``: the arrays transposed (SDSL's DLT, two
  doubles a vector), one OpenMP region around the time loop, the sweeps
  shared out (not a time tiling: no tile keeps data between steps);
* ``polly``: ``clang-14 -O3 -mllvm -polly -mllvm -polly-parallel`` where
  clang-14 is installed (else left out, with a note).

Tile sizes are the model's (:mod:`passman.passes.poly.tile_model`) unless
``--tile-sizes`` is given. Programs run with ``OMP_NUM_THREADS=2``; each
variant ``--repeat`` times, the variants interleaved; a time is the wall
clock of the whole process (initialisation included). The table gives the
median of ``gcc`` and every variant's speed-up over it, and the best of
``recipe``, the tilings and ``dlt`` against ``coarse``. Every output must be the original's (``rtol=atol=1e-6``;
the tilings themselves are bit-exact).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_polly import (  # noqa: E402
    Measure,
    build_gcc,
    build_passman,
    build_polly,
    geomean,
    log,
    publish,
    same_output,
    sized_copy,
    timed,
)

#: kernel -> (function, in-cache sizes, out-of-cache sizes)
STENCILS: dict[str, tuple[str, dict[str, int], dict[str, int]]] = {
    "jacobi_1d": ("kernel_jacobi_1d", {"TSTEPS": 4000, "N": 100000}, {"TSTEPS": 400, "N": 4000000}),
    "jacobi_2d": ("kernel_jacobi_2d", {"TSTEPS": 2000, "N": 500}, {"TSTEPS": 100, "N": 3000}),
    "jacobi_2d_9pt": ("kernel_jacobi_2d_9pt", {"TSTEPS": 1000, "N": 500}, {"TSTEPS": 100, "N": 3000}),
    "heat_3d": ("kernel_heat_3d", {"TSTEPS": 500, "N": 80}, {"TSTEPS": 100, "N": 200}),
    "fdtd_2d": ("kernel_fdtd_2d", {"TMAX": 1000, "NX": 400, "NY": 400},
                {"TMAX": 100, "NX": 2000, "NY": 2000}),  # fmt: skip
    "seidel_2d": ("kernel_seidel_2d", {"TSTEPS": 400, "N": 500}, {"TSTEPS": 40, "N": 3000}),
}

VARIANTS = ("gcc", "coarse", "recipe", "wavefront", "tile-static", "tile-tasks", "split-static", "split-tasks",
            "balanced-static", "balanced-tasks", "trapezoid", "dlt", "polly")
#: the split shape of a kernel (hybrid split tiling for two space dimensions or more)
SPLIT_SHAPES = {"jacobi_1d": "split"}


def build_in_process(src: Path, folder: Path, function: str, call: str, **options) -> tuple[Path, Measure]:
    """Pass ``call(**options)`` on ``function``, built by the OpenMP backend (``-O3 -fopenmp``)."""
    from passman import PassmanError, Workspace

    m = Measure(command=[f"{call}({options})", "openmp"])
    start = time.perf_counter()
    try:
        ws = Workspace(src)
        getattr(ws[function], call)(**options)
        built = ws.build("openmp", folder)
        m.parallel = sum(f.read_text().count("#pragma omp") for f in folder.glob("*.c"))
    except PassmanError as err:
        m.error = str(err).splitlines()[0]
        return folder / src.stem, m
    m.build_seconds = time.perf_counter() - start
    return Path(built.binary), m


def bench(name: str, sizes: dict[str, int], folder: Path, args: argparse.Namespace) -> dict[str, Measure]:
    """Build every variant of one kernel at one size, run them interleaved, check outputs."""
    function = STENCILS[name][0]
    src = sized_copy(name, sizes, folder / "src")
    built: dict[str, tuple[Path, Measure]] = {}
    for v in args.variants:
        if v == "gcc":
            built[v] = build_gcc(src, folder / v)
        elif v == "coarse":
            built[v] = build_passman(src, folder / v, ["poly=false"])
        elif v == "recipe":
            built[v] = build_passman(src, folder / v, [])
        elif v == "wavefront":
            built[v] = build_in_process(src, folder / v, function, "auto_schedule",
                                        force_wavefront=True, pragma="omp parallel for")
        elif v in ("tile-static", "tile-tasks"):
            built[v] = build_in_process(src, folder / v, function, "time_tile",
                                        schedule=v.split("-")[1], tile_sizes=args.tile_sizes)
        elif v in ("split-static", "split-tasks"):
            built[v] = build_in_process(src, folder / v, function, "time_tile", schedule=v.split("-")[1],
                                        shape=SPLIT_SHAPES.get(name, "hybrid"), tile_sizes=args.split_sizes)
        elif v == "trapezoid":
            built[v] = build_in_process(src, folder / v, function, "trapezoid_tile")
        elif v in ("balanced-static", "balanced-tasks"):
            built[v] = build_in_process(src, folder / v, function, "time_tile", schedule=v.split("-")[1],
                                        shape="balanced", tile_sizes=args.tile_sizes)
        elif v == "dlt":
            built[v] = build_in_process(src, folder / v, function, "dlt", parallel=True)
        elif v == "polly":
            built[v] = build_polly(src, folder / v, [])
        if built[v][1].error:
            log(f"  {name}/{v}: {built[v][1].error.splitlines()[-1]}")
    expect: str | None = None
    for _ in range(args.repeat):
        for v, (binary, m) in built.items():
            if m.error:
                continue
            seconds, out, err = timed(binary, 1 if v == "gcc" else args.threads, args.timeout)
            if err:
                m.error = err
                continue
            if v == "gcc" and expect is None:
                expect = out
            if expect is not None and not same_output(expect, out):
                m.error, m.wrong = "WRONG", True
                continue
            m.times.append(seconds)
    return {v: m for v, (_, m) in built.items()}


def table(rows: dict[tuple[str, str], dict[str, Measure]], variants: list[str]) -> str:
    """Markdown: gcc median, speed-up of each variant over gcc, best tiling over coarse."""
    tilings = [v for v in variants if v.startswith(("tile", "split", "balanced"))
               or v in ("wavefront", "recipe", "trapezoid", "dlt")]
    head = ["kernel", "size", "gcc s"] + [f"{v} x" for v in variants if v != "gcc"] + ["best tiling / coarse"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ratios: dict[str, list[float]] = {}
    for (name, size), res in rows.items():
        base = res["gcc"].median
        cells = [name, size, f"{base:.3f}" if base else "FAILED"]
        for v in variants:
            if v == "gcc":
                continue
            m = res.get(v)
            if m is None or m.median is None or base is None:
                cells.append("WRONG" if m is not None and m.wrong else "-" if m is None else "FAILED")
                continue
            cells.append(f"{base / m.median:.2f}")
            ratios.setdefault(v, []).append(base / m.median)
        best = [res[v].median for v in tilings if v in res and res[v].median]
        coarse = res.get("coarse")
        cells.append(f"{coarse.median / min(best):.2f}" if best and coarse and coarse.median else "-")
        lines.append("| " + " | ".join(cells) + " |")
    geo = ["geomean", "", ""] + [
        f"{geomean(ratios[v]):.2f}" if ratios.get(v) else "-" for v in variants if v != "gcc"
    ] + [""]
    lines.append("| " + " | ".join(geo) + " |")
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3, help="runs per variant, interleaved (default 3)")
    p.add_argument("--threads", type=int, default=2, help="OMP_NUM_THREADS of the parallel variants")
    p.add_argument("--kernels", default=",".join(STENCILS), help="comma-separated kernels")
    p.add_argument("--sizes", choices=("in", "out", "both"), default="both")
    p.add_argument("--tile-sizes", default="", help="time_tile's tile_sizes (default: the model's)")
    p.add_argument("--split-sizes", default="", help="split-*'s tile_sizes (default: the model's)")
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--out", type=Path, help="write the Markdown report here")
    p.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated variants (gcc always runs)")
    args = p.parse_args(argv)
    wanted = {"gcc", *args.variants.split(",")}
    args.polly_missing = "polly" in wanted and not shutil.which("clang-14")
    args.variants = [v for v in VARIANTS if v in wanted and (v != "polly" or not args.polly_missing)]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rows: dict[tuple[str, str], dict[str, Measure]] = {}
    with tempfile.TemporaryDirectory(prefix="passman-stencils-") as tmp:
        for name in args.kernels.split(","):
            _, small, large = STENCILS[name]
            for label, sizes in (("in", small), ("out", large)):
                if args.sizes not in (label, "both"):
                    continue
                log(f"{name} ({label}-cache: {sizes})")
                rows[(name, label)] = bench(name, sizes, Path(tmp) / name / label, args)
    text = table(rows, args.variants)
    notes = [
        f"# Stencil time tiling, {datetime.date.today()}",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; "
        f"OMP_NUM_THREADS={args.threads}; median of {args.repeat} interleaved runs; "
        "ratios are speed-ups over sequential `gcc -O3` measured in the same run (above 1: faster).",
        "",
        "Sizes: " + "; ".join(f"{k}: in {v[1]}, out {v[2]}" for k, v in STENCILS.items() if k in args.kernels),
        "",
        text,
        "",
    ]
    if args.polly_missing:
        notes.append("Polly: clang-14 is not installed on this machine; its column is left out.")
    report = "\n".join(notes)
    publish(report, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
