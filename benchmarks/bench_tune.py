"""Iterative compilation (``passman tune``): strategies by replay, throughput, real runs.

Run:  python benchmarks/bench_tune.py                 # replay: TPE vs random, 10 seeds
      python benchmarks/bench_tune.py --measure       # measure the space exhaustively (~10 min)
      python benchmarks/bench_tune.py --throughput    # 1 vs 2 local workers, and Dask LocalCluster
      python benchmarks/bench_tune.py --real          # 100-trial tuning runs, best vs default

The space (:func:`gemm_space`) is the corpus's ``gemm.c`` at a larger size
(500 x 480 x 520, so that one run takes tens of milliseconds, not three),
tuned through ``auto_schedule``'s options: three tile sizes (powers of two
from 4 to 128) and the fusion policy, 6 x 6 x 6 x 3 = 648 variants.
``--measure`` evaluates every one (3 timed runs each, output checked) and
writes the record to ``benchmarks/results/tune_gemm_exhaustive.json``; the
default mode replays strategies against that record, building nothing:
the median over 10 seeds of the best time found within 10% of the space
(64 evaluations), against the exhaustive best (target: TPE within 5%), and
the evaluations each strategy needs to get within 5%, random search beside
it. Results go to ``benchmarks/results/tune_replay.json``.

``--throughput`` compares compile-and-check throughput (apply, build, one
checked run, one timed run: variants per second) of 2 local workers with 1
(median of ``--repeat`` runs of ``--variants`` each); the timed runs hold
the machine's timing lock, as in every study. It then runs a short TPE
study on a Dask ``LocalCluster`` and on the local pool, with the same seed,
and says whether they found the same best variant.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from passman.tune import Bool, Choice, Measure, Pow2, Program, Replay, Space, Study, replay

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
RESULTS = ROOT / "benchmarks" / "results"
CACHE = RESULTS / "tune_gemm_exhaustive.json"


def gemm_program(ni: int = 500, nj: int = 480, nk: int = 520) -> Program:
    """The corpus's gemm.c with larger arrays."""
    text = (CORPUS / "gemm.c").read_text()
    for name, value, new in (("NI", 120, ni), ("NJ", 110, nj), ("NK", 130, nk)):
        text = text.replace(f"#define {name} {value}\n", f"#define {name} {new}\n")
    return Program((("gemm.c", text),))


def gemm_space() -> Space:
    """648 variants: auto_schedule's three tile sizes and fusion policy on kernel_gemm."""
    return Space.pipeline(
        "auto_schedule@kernel_gemm{tile_sizes=$TI,$TJ,$TK,fusion=$F}",
        TI=Pow2(4, 128, default=32), TJ=Pow2(4, 128, default=32), TK=Pow2(4, 128, default=64),
        F=Choice("smart", "none", "max"))


def measure(args: argparse.Namespace) -> None:
    space = gemm_space()
    with tempfile.TemporaryDirectory() as tmp:
        study = Study("gemm-exhaustive", gemm_program(), space, storage=str(Path(tmp) / "tune.db"),
                      strategy="grid", seed=0, jobs=args.jobs, measure=Measure(runs=3, timeout=20))
        t = time.perf_counter()
        study.optimize(space.size())
        print(f"measured {space.size()} variants in {time.perf_counter() - t:.0f} s")
        print(study.table(10))
        study.export(CACHE)
    print(f"wrote {CACHE.relative_to(ROOT)}")


def reach(values: list[float | None], target: float) -> int | None:
    """How many evaluations a strategy needed to find a variant at most ``target`` (None: never)."""
    for n, v in enumerate(values, start=1):
        if v is not None and v <= target:
            return n
    return None


def compare(args: argparse.Namespace) -> None:
    record = Replay(CACHE)
    space = gemm_space()
    size = len(record.variants)
    budget = max(1, size // 10)
    best = record.best()
    out: dict[str, object] = {"space": size, "budget": budget, "exhaustive_best": best,
                              "baseline": record.baseline, "strategies": {}}
    print(f"space: {size} variants measured; exhaustive best {best:.4g} s "
          f"(original {record.baseline:.4g} s); budget {budget} evaluations (10%), seeds 0-{args.seeds - 1}")
    print(f"{'strategy':10s} {'median best/opt':>16s} {'worst':>8s} {'within 5%':>10s} "
          f"{'median evals to 5%':>19s} {'seconds':>8s}")
    for strategy in args.strategies.split(","):
        ratios, reaches = [], []
        t = time.perf_counter()
        for seed in range(args.seeds):
            values = replay(space, record, strategy=strategy, seed=seed, trials=budget)
            found = min(v for v in values if v is not None)
            ratios.append(found / best)
            full = replay(space, record, strategy=strategy, seed=seed, trials=size) if args.full else values
            reaches.append(reach(full, best * 1.05))
        seconds = time.perf_counter() - t
        within = sum(r <= 1.05 for r in ratios)
        got = [r for r in reaches if r is not None]
        med_reach = statistics.median(got) if len(got) == len(reaches) else None
        print(f"{strategy:10s} {statistics.median(ratios):16.3f} {max(ratios):8.3f} "
              f"{within:>7d}/{args.seeds} {str(med_reach) if med_reach else '> budget':>19s} {seconds:8.1f}")
        out["strategies"][strategy] = {"ratios": ratios, "median_ratio": statistics.median(ratios),
                                       "evals_to_5pct": reaches, "within_5pct": within}
    (RESULTS / "tune_replay.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {(RESULTS / 'tune_replay.json').relative_to(ROOT)}")


def throughput(args: argparse.Namespace) -> None:
    """Variants per second, compile and check (one timed run), 1 worker vs 2."""
    space = gemm_space()
    program = gemm_program(120, 110, 130)  # the corpus size: compile-bound
    rates: dict[int, list[float]] = {1: [], 2: []}
    for rep in range(args.repeat):
        for jobs in (1, 2):
            with tempfile.TemporaryDirectory() as tmp:
                study = Study(f"tp{jobs}", program, space, storage=str(Path(tmp) / "t.db"), strategy="random",
                              seed=rep, jobs=jobs, measure=Measure(runs=1), progress=False)
                study.optimize(1)  # the reference and the workers' first parse, not timed
                t = time.perf_counter()
                study.optimize(1 + args.variants)
                rates[jobs].append(args.variants / (time.perf_counter() - t))
        print(f"run {rep + 1}: 1 worker {rates[1][-1]:.2f} variants/s, 2 workers {rates[2][-1]:.2f} variants/s")
    one, two = statistics.median(rates[1]), statistics.median(rates[2])
    print(f"median: 1 worker {one:.2f}/s, 2 workers {two:.2f}/s, ratio {two / one:.2f}x (target >= 1.8x)")
    bests = {}
    for label, kw in (("local pool", {"jobs": 2}), ("dask LocalCluster", {"jobs": 2, "dask": "local"})):
        with tempfile.TemporaryDirectory() as tmp:  # the large gemm: tens of ms a run, less noise
            study = Study("same", gemm_program(), space, storage=str(Path(tmp) / "t.db"), strategy="grid", seed=3,
                          measure=Measure(runs=3), progress=False, **kw)
            t = time.perf_counter()
            study.optimize(args.dask_trials)
            best = study.best(1)[0]
            bests[label] = best.key
            print(f"{label:18s} {time.perf_counter() - t:6.1f} s  best {best.value:.4g} s  {best.key}")
    same = len(set(bests.values())) == 1
    print("same best variant" if same else "different best variants (timing noise between close variants)")
    (RESULTS / "tune_throughput.json").write_text(json.dumps(
        {"rates": rates, "ratio": two / one, "dask_same_best": same, "bests": bests}, indent=1) + "\n")


def jacobi_program(n: int = 600, tsteps: int = 20) -> Program:
    """The corpus's jacobi_2d.c with larger arrays (fewer time steps)."""
    text = (CORPUS / "jacobi_2d.c").read_text()
    text = text.replace("#define TSTEPS 40\n", f"#define TSTEPS {tsteps}\n").replace(
        "#define N 250\n", f"#define N {n}\n")
    return Program((("jacobi_2d.c", text),))


def jacobi_space() -> Space:
    """Tile both steps of the time loop (the same sizes) or not, then unroll the innermost loops or not.

    1 + 7 x 7 tilings x 4 unroll rates (1: none); the empty pipeline is the original program.
    """
    k = "kernel_jacobi_2d"

    def pipeline(p: dict) -> str:
        steps = [f"tile@{k}.{nest}{{sizes={p['TI']},{p['TJ']}}}?" for nest in ("l4", "l6") if p["tile"]]
        if p["U"] > 1:
            steps.append(f"unroll@{k}.inner_loops{{rate={p['U']}}}?")
        return ",".join(steps)

    return Space(tile=Bool(default=True), TI=Pow2(4, 256, default=32, when={"tile": True}),
                 TJ=Pow2(4, 256, default=32, when={"tile": True}), U=Choice(1, 2, 4, 8, default=4),
                 render=pipeline)


def real(args: argparse.Namespace) -> None:
    """100-trial TPE runs on a matrix product and a stencil: best found vs the default variant."""
    runs = {"gemm": (gemm_program, gemm_space), "jacobi_2d": (jacobi_program, jacobi_space)}
    out = RESULTS / "tune_real.json"
    summary = json.loads(out.read_text()) if out.exists() else {}
    for name in args.kernels.split(","):
        program, space = runs[name][0](), runs[name][1]()
        with tempfile.TemporaryDirectory() as tmp:
            storage = args.storage or str(Path(tmp) / "t.db")
            study = Study(name, program, space, storage=storage, strategy="tpe", seed=0,
                          jobs=args.jobs, measure=Measure(runs=5, apply_timeout=60))
            t = time.perf_counter()
            study.optimize(args.trials)
            best = study.best(1)[0]
            default, base = study.default_value, study.baseline
            print(f"{name}: {args.trials} trials in {time.perf_counter() - t:.0f} s; original {base:.4g} s, "
                  f"default {default:.4g} s, best {best.value:.4g} s: {default / best.value:.2f}x the default, "
                  f"{base / best.value:.2f}x the original\n  {best.key}")
            summary[name] = {"original": base, "default": default, "best": best.value, "variant": best.key,
                             "vs_default": default / best.value, "vs_original": base / best.value,
                             "trials": args.trials, "seconds": time.perf_counter() - t}
    out.write_text(json.dumps(summary, indent=1) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--measure", action="store_true", help="measure the space exhaustively (the record)")
    ap.add_argument("--throughput", action="store_true", help="1 vs 2 workers; Dask LocalCluster")
    ap.add_argument("--real", action="store_true", help="100-trial tuning runs")
    ap.add_argument("--strategies", default="tpe,random")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--full", action="store_true", help="also replay to the whole space for evals-to-5%%")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--variants", type=int, default=16)
    ap.add_argument("--dask-trials", type=int, default=12)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--kernels", default="gemm,jacobi_2d", help="--real: which runs")
    ap.add_argument("--storage", help="--real: keep the studies in this SQLite file (to plot them)")
    args = ap.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    if args.measure:
        measure(args)
    elif args.throughput:
        throughput(args)
    elif args.real:
        real(args)
    else:
        if not CACHE.exists():
            print(f"no record {CACHE}: run with --measure first", file=sys.stderr)
            return 1
        compare(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
