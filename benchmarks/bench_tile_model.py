"""Tile-size model against sampled tile sizes: is the model's choice within 5% of the best of 100?

Run:  python benchmarks/bench_tile_model.py [--samples 100] [--kernels jacobi_2d,heat_3d]
      python benchmarks/bench_tile_model.py --out benchmarks/results/tile-model-DATE.md

Di 2013 (ch. 5) reports his model's tile sizes within 6.04% of the best of the
sizes he sampled; issue 18 asks for 5% on each stencil of the corpus. For each
time-iterated stencil (jacobi-1d, jacobi-2d, the 9-point jacobi-2d, heat-3d,
FDTD-2d, seidel-2d) at one out-of-cache size (:data:`SIZES`, where tile sizes
decide the speed), with the shape ``time_tile`` takes by default (diamond,
skewed for seidel-2d) and the schedule ``auto_schedule`` takes out of cache
(``static``: a barrier per front; ``--schedule tasks`` for the other):

1. the model's sizes (:func:`passman.passes.poly.time_tiling.model_tile_sizes`);
2. ``--samples`` distinct size vectors drawn at random (seeded: ``--seed``),
   each free row log-uniform in ``[--low, --high]`` (the two faces of a
   diamond tied, as the model ties them); a sample whose code generation fell
   back to equal sizes (a warning) is dropped and replaced;
3. every variant built (``time_tile(tile_sizes=...)``, the OpenMP backend,
   ``-O3 -fopenmp``; two builds at a time, nothing timed meanwhile);
4. *screening*: every sample and the model run once, output checked against
   the original's;
5. *confirmation*: the ``--confirm`` fastest samples of the screening and the
   model, ``--repeat`` interleaved runs each; the report compares the model's
   median with the best confirmed median (a single screening run is a noisy
   minimum: the confirmation removes that bias).

``model / best`` at most 1.05 meets the target. Runs use
``OMP_NUM_THREADS=--threads`` (2); a time is the wall clock of the process.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import random
import statistics
import sys
import tempfile
import warnings
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_polly import build_gcc, log, publish, same_output, sized_copy, timed  # noqa: E402
from bench_stencils import STENCILS  # noqa: E402

#: kernel -> sizes: beyond the last-level cache, a gcc -O3 run of 0.5 to 2 s
SIZES: dict[str, dict[str, int]] = {
    "jacobi_1d": {"TSTEPS": 200, "N": 4000000},
    "jacobi_2d": {"TSTEPS": 50, "N": 3000},
    "jacobi_2d_9pt": {"TSTEPS": 40, "N": 3000},
    "heat_3d": {"TSTEPS": 40, "N": 200},
    "fdtd_2d": {"TMAX": 40, "NX": 2000, "NY": 2000},
    "seidel_2d": {"TSTEPS": 10, "N": 2000},
}


@dataclass
class Variant:
    """One tile-size vector of one kernel: its binary and its run times."""

    sizes: tuple[int, ...]
    model: bool = False
    binary: Path | None = None
    error: str | None = None
    screen: float | None = None
    times: list[float] = field(default_factory=list)

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times else None


def build(src: Path, folder: Path, function: str, shape: str, schedule: str,
          sizes: tuple[int, ...]) -> tuple[Path | None, str | None]:  # fmt: skip
    """``time_tile`` with these sizes, built by the OpenMP backend; (binary, None) or (None, why)."""
    from passman import PassmanError, Workspace

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            ws = Workspace(src)
            ws[function].time_tile(shape=shape, schedule=schedule,
                                   tile_sizes=",".join(map(str, sizes)))  # fmt: skip
            built = ws.build("openmp", folder)
        except PassmanError as err:
            return None, str(err).splitlines()[0]
    fell_back = [w for w in caught if "took too long" in str(w.message)]
    if fell_back:
        return None, "fell back to equal sizes: " + str(fell_back[0].message)
    return Path(built.binary), None


def model_sizes(src: Path, function: str) -> tuple[str, tuple[int, ...]]:
    """The shape ``time_tile`` takes by default and the model's sizes for it."""
    from passman.passes.poly.time_tiling import model_tile_sizes

    from passman import Workspace

    ws = Workspace(src)
    return model_tile_sizes(ws[function])


def draw(rng: random.Random, kind: str, rows: int, low: int, high: int) -> tuple[int, ...]:
    """One size vector: each free row log-uniform in [low, high], the diamond's faces tied."""
    def one() -> int:
        return int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))

    sizes = [one() for _ in range(rows)]
    if kind == "diamond":
        sizes[1] = sizes[0]
    return tuple(sizes)


def bench(name: str, folder: Path, args: argparse.Namespace) -> dict:
    """Model, samples, screening, confirmation of one kernel."""
    function = STENCILS[name][0]
    src = sized_copy(name, SIZES[name], folder / "src")
    gcc_bin, gcc = build_gcc(src, folder / "gcc")
    if gcc.error:
        raise SystemExit(f"{name}: gcc failed: {gcc.error}")
    seconds, expect, err = timed(gcc_bin, 1, args.timeout)
    if err:
        raise SystemExit(f"{name}: the original failed: {err}")
    kind, msizes = model_sizes(src, function)
    log(f"{name}: {kind} tiles, model sizes {msizes}, gcc {seconds:.2f} s")
    rng = random.Random(f"{args.seed}-{name}")
    variants = [Variant(msizes, model=True)]
    seen = {msizes}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for _ in range(4):  # draws whose build fails are replaced, up to 3 times
            built = sum(1 for v in variants if v.binary is not None and not v.model)
            batch = [v for v in variants if v.model and v.binary is None and v.error is None]
            while len(batch) < args.samples - built + (1 if batch else 0):
                s = draw(rng, kind, len(msizes), args.low, args.high)
                if s not in seen:
                    seen.add(s)
                    batch.append(Variant(s))
            if len(batch) == 0:
                break
            futures = [(v, pool.submit(build, src, folder / "-".join(map(str, v.sizes)), function, kind,
                                       args.schedule, v.sizes)) for v in batch]  # fmt: skip
            for v, fut in futures:
                v.binary, v.error = fut.result()
                if v.error:
                    log(f"  {v.sizes}: {v.error}")
            variants += [v for v in batch if not v.model]
            log(f"  built {sum(1 for v in variants if v.binary is not None)} of {len(variants)}")
    model = variants[0]
    if model.binary is None:
        raise SystemExit(f"{name}: the model's sizes {msizes} failed: {model.error}")
    good = [v for v in variants if v.binary is not None]
    for v in good:  # screening: one run each
        t, out, err = timed(v.binary, args.threads, args.timeout)
        if err or not same_output(expect, out):
            v.error = err or "WRONG output"
            log(f"  {v.sizes}: {v.error}")
            continue
        v.screen = t
    screened = sorted((v for v in good if v.screen is not None and not v.model), key=lambda v: v.screen)
    finalists = [model] + screened[: args.confirm]
    for _ in range(args.repeat):  # confirmation: interleaved
        for v in finalists:
            t, out, err = timed(v.binary, args.threads, args.timeout)
            if err is None:
                v.times.append(t)
    best = min((v for v in finalists[1:] if v.median), key=lambda v: v.median)
    rank = 1 + sum(1 for v in screened if v.screen < model.screen)
    return {
        "name": name, "kind": kind, "gcc": seconds, "model": model, "best": best,
        "samples": len(screened), "rank": rank,
        "screen_best": screened[0].screen, "screen_median": statistics.median(v.screen for v in screened),
        "screen_worst": screened[-1].screen,
    }  # fmt: skip


def report(results: list[dict], args: argparse.Namespace) -> str:
    lines = [
        f"# Tile-size model against {args.samples} sampled sizes, {datetime.date.today()}",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; "
        f"OMP_NUM_THREADS={args.threads}; schedule {args.schedule}; samples log-uniform in "
        f"[{args.low}, {args.high}] per free row (seed {args.seed}); the {args.confirm} fastest of the "
        f"screening and the model re-run {args.repeat} times, interleaved (medians).",
        "",
        "Sizes: " + "; ".join(f"{r['name']} {SIZES[r['name']]}" for r in results),
        "",
        "| kernel | tiles | gcc s | model sizes | model s | best sampled sizes | best s | model / best "
        "| model's screening rank | screening best / median / worst s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    ratios = []
    for r in results:
        m, b = r["model"], r["best"]
        ratio = m.median / b.median
        ratios.append(ratio)
        lines.append(
            f"| {r['name']} | {r['kind']} | {r['gcc']:.2f} | {','.join(map(str, m.sizes))} | {m.median:.3f} "
            f"| {','.join(map(str, b.sizes))} | {b.median:.3f} | {ratio:.3f} | {r['rank']} of {r['samples'] + 1} "
            f"| {r['screen_best']:.3f} / {r['screen_median']:.3f} / {r['screen_worst']:.3f} |"
        )
    worst = max(ratios) if ratios else float("nan")
    lines += ["", f"Worst model / best: {worst:.3f} (target: at most 1.05)."]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--kernels", default=",".join(SIZES), help="comma-separated kernels")
    p.add_argument("--samples", type=int, default=100)
    p.add_argument("--seed", type=int, default=18)
    p.add_argument("--low", type=int, default=4, help="smallest sampled size of a row")
    p.add_argument("--high", type=int, default=512, help="largest sampled size of a row")
    p.add_argument("--schedule", choices=("static", "tasks"), default="static")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--confirm", type=int, default=5, help="screening's fastest samples re-run")
    p.add_argument("--repeat", type=int, default=5, help="confirmation runs of each finalist")
    p.add_argument("--jobs", type=int, default=2, help="builds at a time")
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--out", type=Path, help="write the Markdown report here")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory(prefix="passman-tile-model-") as tmp:
        for name in args.kernels.split(","):
            results.append(bench(name, Path(tmp) / name, args))
    text = report(results, args)
    publish(text + "\n", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
