"""Polyhedral analyses on a large synthetic program: effects, SCoPs, dependences, regions.

Run:  python benchmarks/bench_poly.py [--functions 1000] [--repeat 3]

A program of N PolyBench-like functions (benchmarks/synth.py) and a
``main`` calling each once. Every figure is a median of several runs of a
fresh workspace (nothing cached), reported with its ratio against parsing
the same program into a workspace, measured in the same run:

- effects: ``proper_effects``, ``cumulated_effects``, ``summary_effects``;
- dependences: ``scops`` and ``dependences``;
- regions: ``preconditions``, ``regions`` and ``summary_regions``;
- IN/OUT regions (not part of the budget): ``in_regions``, ``out_regions``.

The target set by issue #3: effects + dependences + regions of 1,000
functions in under 30 s in total.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from synth import program  # noqa: E402

GROUPS = {
    "effects": ["proper_effects", "cumulated_effects", "summary_effects"],
    "dependences": ["scops", "dependences"],
    "regions": ["preconditions", "regions", "summary_regions"],
    "in/out regions": ["in_regions", "out_regions"],
}


def run_once(code: str) -> dict[str, float]:
    from passman import Workspace

    t = time.perf_counter()
    ws = Workspace.from_code(code, "synth.c")
    out = {"parse": time.perf_counter() - t}
    for group, resources in GROUPS.items():
        t = time.perf_counter()
        for m in ws.all_functions:
            for r in resources:
                m.resource(r)
        out[group] = time.perf_counter() - t
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--functions", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    code = program(args.functions)
    runs = [run_once(code) for _ in range(args.repeat)]
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    base = med["parse"]
    print(f"{args.functions} functions, median of {args.repeat} runs")
    print(f"{'phase':<16}{'seconds':>10}{'x parse':>10}")
    for k, v in med.items():
        print(f"{k:<16}{v:>10.2f}{v / base:>10.1f}")
    budget = med["effects"] + med["dependences"] + med["regions"]
    print(f"{'budgeted total':<16}{budget:>10.2f}{budget / base:>10.1f}   (target: < 30 s)")


if __name__ == "__main__":
    main()
