"""What the interior copies of ``split_boundaries`` win on stencils whose edges are guarded.

Run:  python benchmarks/bench_boundaries.py [--repeat 5] [--threads 2] [--out F]

``heat_2d_edges`` (the corpus's 2-D heat equation over the whole grid, its
neighbours clamped to the edge in one sweep and zero outside it in the
other) and ``heat_1d_periodic`` (1-D heat on a ring: ``(i - 1 + n) % n``),
each at an in-cache and an out-of-cache size, built five ways:

* ``gcc``: ``gcc -O3`` of the original (the baseline, run at ``--threads``
  like the others: it has no OpenMP);
* ``polly``: ``clang-14 -O3 -mllvm -polly -mllvm -polly-parallel -fopenmp``;
* ``no split``: ``passman run openmp --set boundaries=false``;
* ``passman``: ``passman run openmp`` (the recipe: its last step splits the
  boundary iterations off every loop that tests its index);
* ``split only``: ``passman run openmp --set poly=false``: the coarse-grain
  path (no polyhedral scheduling, no time tiling), then the split.

Each variant must print what the original prints; the table gives ``gcc``'s
median seconds and each variant's speed-up over it (medians of
``--repeat`` interleaved runs).
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_polly import (  # noqa: E402
    Measure,
    build_gcc,
    build_passman,
    build_polly,
    log,
    publish,
    run_interleaved,
    sized_copy,
    timed,
)

SIZES = {
    "heat_2d_edges": {"in": {"N": 500, "TSTEPS": 400}, "out": {"N": 3000, "TSTEPS": 30}},
    "heat_1d_periodic": {"in": {"N": 100000, "TSTEPS": 2000}, "out": {"N": 8000000, "TSTEPS": 40}},
}
VARIANTS = {
    "no split": ["boundaries=false"],
    "passman": [],
    "split only": ["poly=false"],
}


def bench(kernel: str, size: str, folder: Path, args: argparse.Namespace) -> dict[str, Measure]:
    """Build the variants of one kernel at one size, run them interleaved, check their outputs."""
    src = sized_copy(kernel, SIZES[kernel][size], folder / "src")
    built = {"gcc": build_gcc(src, folder / "gcc")}
    if "polly" in args.variants:
        built["polly"] = build_polly(src, folder / "polly", [])
    for name, sets in VARIANTS.items():
        if name in args.variants:
            built[name] = build_passman(src, folder / name.replace(" ", "_"), sets)
    for name, (_, m) in built.items():
        if m.error:
            log(f"  {size}/{name}: build failed: {m.error.splitlines()[-1]}")
    _, expect, err = timed(built["gcc"][0], args.threads, args.timeout)
    if err:
        raise SystemExit(f"the original does not run: {err}")
    return run_interleaved(built, expect, args, f"{kernel} {size}")


def table(rows: dict[tuple[str, str], dict[str, Measure]], variants: list[str]) -> str:
    head = "| kernel | size | gcc s | " + " | ".join(f"{v} x" for v in variants) + " | split / no split |"
    lines = [head, "|" + "---|" * (len(variants) + 4)]
    for (kernel, size), results in rows.items():
        base = results["gcc"].median
        cells = []
        for v in variants:
            m = results.get(v)
            cells.append("FAILED" if m is None or m.median is None or not base else f"{base / m.median:.2f}")
        split, plain = results.get("passman"), results.get("no split")
        gain = f"{plain.median / split.median:.2f}" if split and plain and split.median and plain.median else "-"
        lines.append(f"| {kernel} | {size} | {base:.3f} | " + " | ".join(cells) + f" | {gain} |")
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5, help="interleaved runs per variant (default 5)")
    p.add_argument("--threads", type=int, default=2, help="OMP_NUM_THREADS (default 2)")
    p.add_argument("--sizes", default="in,out", help="in, out or both (default in,out)")
    p.add_argument("--kernels", default=",".join(SIZES), help=f"comma-separated (default {','.join(SIZES)})")
    p.add_argument("--variants", default="polly,no split,passman,split only",
                   help="comma-separated: polly, no split, passman, split only")  # fmt: skip
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--out", type=Path, default=None, help="also write the report there (markdown)")
    args = p.parse_args(argv)
    args.variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    args.kernels = [k.strip() for k in args.kernels.split(",") if k.strip()]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rows = {}
    with tempfile.TemporaryDirectory(prefix="passman-bench-edges-") as tmp:
        for kernel in args.kernels:
            for size in [s.strip() for s in args.sizes.split(",") if s.strip()]:
                log(f"{kernel} {size} {SIZES[kernel][size]}")
                rows[kernel, size] = bench(kernel, size, Path(tmp) / kernel / size, args)
    variants = ([v for v in ("polly",) if v in args.variants]
                + [v for v in VARIANTS if v in args.variants])  # fmt: skip
    report = (
        f"# split_boundaries on stencils with guarded edges, {datetime.date.today()}\n\n"
        f"`python benchmarks/bench_boundaries.py --repeat {args.repeat} --threads {args.threads}` on "
        f"{platform.node()}; sizes {SIZES}; speed-ups over `gcc -O3` of the original, medians of interleaved "
        "runs, every output checked.\n\n" + table(rows, variants) + "\n"
    )
    publish(report, args.out)
    return 1 if any(m.wrong for r in rows.values() for m in r.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
