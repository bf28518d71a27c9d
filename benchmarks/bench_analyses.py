"""The full analysis of growing programs: effects, regions, dependences, parallel verdicts.

Run:  python benchmarks/bench_analyses.py [--sizes 10,100,1000] [--repeat 3]

For synthetic programs of 10, 100 and 1000 functions (``synth.program``:
PolyBench-like kernels, each with a few loop nests, and a ``main`` calling
them all), in one process:

* the time of each phase over every function, in order: parsing (the
  workspace), memory effects (proper, cumulated, summary), convex array
  regions (READ/WRITE), IN and OUT regions, dependences (SCoPs and isl
  dependences), parallel verdicts (``parallel_loops``, with privatization
  and reductions); the median of ``--repeat`` runs, each on a fresh
  workspace (the largest size runs once). ``verdict path``: the phases
  ``parallel_loops`` needs on affine code (effects, dependences, verdicts);
* the analysis time per function, relative to the 10-function program
  measured in the same run (1.0 = linear growth);
* the time to analyse again after one kernel changed (``module.code = ...``):
  only that kernel and its caller are recomputed (caching per function),
  relative to the full analysis, with the number of functions whose
  verdicts were recomputed.

Times are the CPU time of this process (``--clock wall`` for wall-clock
time), so that other load on the machine does not distort them; everything
runs in this process except the preprocessor.

Targets (issue #3): under 30 s for 1000 functions, near-linear growth.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from synth import program  # noqa: E402

PHASES = (
    ("effects", ("cumulated_effects", "summary_effects")),
    ("regions", ("regions",)),
    ("IN/OUT", ("in_regions", "out_regions")),
    ("dependences", ("dependences",)),
    ("verdicts", ("parallel_loops",)),
)
#: what ``parallel_loops`` itself needs on affine code (regions only serve non-affine loops
#: and array privatization)
VERDICT_PHASES = ("effects", "dependences", "verdicts")


#: the clock (``--clock``): CPU time of this process by default
clock = time.process_time


def analyse(ws) -> dict[str, float]:
    """Seconds per phase over every function of ``ws`` (computed in phase order)."""
    out = {}
    modules = list(ws.all_functions)
    for phase, resources in PHASES:
        t = clock()
        for m in modules:
            for r in resources:
                m.resource(r)
        out[phase] = clock() - t
    return out


def measure(n: int, repeat: int, tmp: Path) -> dict[str, float]:
    """Median phase times for an ``n``-function program, and the re-analysis after one change."""
    from passman import Workspace

    src = tmp / f"synth{n}.c"
    src.write_text(program(n))
    runs = []
    ws = None
    for _ in range(repeat):
        gc.collect()
        t = clock()
        ws = Workspace(src)
        parse = clock() - t
        times = analyse(ws)
        times["parse"] = parse
        runs.append(times)
    result = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    result["analysis"] = sum(result[p] for p, _ in PHASES)
    result["verdict path"] = sum(result[p] for p in VERDICT_PHASES)
    # change one kernel (its constant), analyse everything again
    name = "k0_mm"
    before = ws.computations["parallel_loops"]
    ws[name].code = ws[name].code.replace("* 0.0;", "* 2.0;")
    t = clock()
    analyse(ws)
    result["reanalysis"] = clock() - t
    result["recomputed"] = ws.computations["parallel_loops"] - before
    result["loops"] = sum(len(m.all_loops) for m in ws.all_functions)
    result["parallel"] = sum(
        v.parallel for m in ws.all_functions for v in m.resource("parallel_loops").values())
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,100,1000", help="numbers of functions, comma-separated")
    ap.add_argument("--repeat", type=int, default=3, help="runs per size (the largest runs once)")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="CPU time of this process, or wall time")
    args = ap.parse_args()
    global clock
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    sizes = [int(s) for s in args.sizes.split(",")]
    results = {}
    wall = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        measure(2, 1, Path(d))  # warm-up: imports, first isl context, stub parsing
        for n in sizes:
            results[n] = measure(n, 1 if n == max(sizes) and n >= 1000 else args.repeat, Path(d))
    base = sizes[0]
    per_base = results[base]["analysis"] / (base + 1)
    vbase = results[base]["verdict path"] / (base + 1)
    head = f"{'functions':>9s} {'loops':>6s} {'parse':>7s}" + "".join(f" {p:>11s}" for p, _ in PHASES)
    print(head + f" {'analysis':>9s} {'per fn':>8s} {'ratio':>6s} {'verdict path':>12s} {'ratio':>6s}"
          f" {'1 change':>9s} {'ratio':>7s} {'recomp':>6s}")
    for n in sizes:
        r = results[n]
        per = r["analysis"] / (n + 1)  # the kernels and main
        vper = r["verdict path"] / (n + 1)
        print(f"{n:9d} {r['loops']:6d} {r['parse']:6.2f}s" + "".join(f" {r[p]:10.2f}s" for p, _ in PHASES)
              + f" {r['analysis']:8.2f}s {per * 1000:6.1f}ms {per / per_base:5.2f}x"
              + f" {r['verdict path']:11.2f}s {vper / vbase:5.2f}x"
              + f" {r['reanalysis']:8.3f}s {r['reanalysis'] / r['analysis']:6.3f}x {r['recomputed']:6d}")
    big = max(sizes)
    print(f"\nratio: time per function relative to the {base}-function program (1.00x = linear growth);")
    print("verdict path: effects + dependences + verdicts, what parallel_loops needs on affine code;")
    print("'1 change': analysing everything again after one kernel changed, relative to the full analysis;")
    print("'recomp': functions whose parallel verdicts were recomputed (the kernel and main, its caller).")
    total = results[big]["analysis"] + results[big]["parse"]
    print(f"({args.clock} time; the whole benchmark took {time.perf_counter() - wall:.0f} s of wall time)")
    print(f"{big} functions: {total:.1f} s with parsing (target < 30 s), verdict path "
          f"{results[big]['verdict path']:.1f} s; {results[big]['parallel']} of {results[big]['loops']} "
          "loops parallel")


if __name__ == "__main__":
    main()
