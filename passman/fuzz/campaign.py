"""Run many fuzz cases in parallel processes, shrink and save the failures, tabulate.

Case ``k`` of a campaign started at seed ``S`` has seed ``S + k``: one seed
reproduces one case (``python -m passman.fuzz --seed S+k --cases 1``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from . import warm
from .case import Case, judge, make_case
from .oracle import FAILURES, KINDS, Verdict
from .program import to_c
from .shrink import save, shrink

#: the table's columns (``invalid``, a fuzzer bug, shows only when some case is)
COLUMNS = KINDS[:-1]


@dataclass
class Result:
    """One case's verdict, and the shrunk program when it failed and was shrunk."""

    seed: int
    mode: str
    verdict: Verdict
    shrunk: Verdict | None = None
    shrunk_text: str = ""
    saved: str = ""
    log: list[str] = field(default_factory=list)


def run_case(
    seed: int,
    mode: str,
    timeout: float = 30,
    shrink_budget: float = 0,
    save_dir: str | None = None,
) -> Result:
    """Judge the case of ``seed`` in ``mode``; shrink it (``shrink_budget`` > 0) and save it when it fails."""
    case = make_case(seed, mode)
    verdict = judge(case, timeout)
    result = Result(seed, mode, verdict)
    if not verdict.failed:
        return result
    small: Case = case
    if shrink_budget > 0:
        small, result.shrunk = shrink(case, verdict, shrink_budget, timeout, result.log.append)
        result.shrunk_text = to_c(small.program)
    if save_dir:
        result.saved = str(save(small, result.shrunk or verdict, save_dir))
    return result


def campaign(
    seeds: Iterable[int],
    modes: Iterable[str],
    jobs: int = 2,
    timeout: float = 30,
    shrink_budget: float = 0,
    save_dir: str | None = None,
    progress: Callable[[int, int, Result], None] | None = None,
) -> list[Result]:
    """Run every (seed, mode) case in ``jobs`` processes; results in (mode, seed) order."""
    work = [(s, m) for m in modes for s in seeds]
    results: list[Result] = []
    with ProcessPoolExecutor(max_workers=max(1, jobs), initializer=warm.enable) as pool:
        futures = [pool.submit(run_case, s, m, timeout, shrink_budget, save_dir) for s, m in work]
        for done, future in enumerate(as_completed(futures), 1):
            result = future.result()
            results.append(result)
            if progress:
                progress(done, len(futures), result)
    order = {m: k for k, m in enumerate(dict.fromkeys(m for _, m in work))}
    return sorted(results, key=lambda r: (order[r.mode], r.seed))


def table(results: list[Result]) -> str:
    """Counts per mode and kind, then the seeds of the failing cases."""
    modes = list(dict.fromkeys(r.mode for r in results))
    columns = list(COLUMNS) + (["invalid"] if any(r.verdict.kind == "invalid" for r in results) else [])
    header = ["mode", "cases", *columns]
    rows = []
    for mode in modes:
        mine = [r for r in results if r.mode == mode]
        rows.append([mode, str(len(mine))] + [str(sum(r.verdict.kind == k for r in mine)) for k in columns])
    widths = [max(len(row[c]) for row in [header, *rows]) for c in range(len(header))]
    lines = ["  ".join(cell.rjust(w) if c else cell.ljust(w) for c, (cell, w) in enumerate(zip(row, widths)))
             for row in [header, *rows]]
    failing = [r for r in results if r.verdict.kind in FAILURES]
    if failing:
        lines.append("failing seeds:")
        for mode in modes:
            for kind in FAILURES:
                seeds = [str(r.seed) for r in failing if r.mode == mode and r.verdict.kind == kind]
                if seeds:
                    lines.append(f"  {mode} {kind}: {' '.join(seeds)}")
    return "\n".join(lines)


def describe(result: Result, out=sys.stdout) -> None:
    """Print a failing case: its verdict, passman's stderr tail, the shrunk program."""
    v = result.shrunk or result.verdict
    print(f"--- seed {result.seed} ({result.mode}): {result.verdict.kind}: {result.verdict.detail}", file=out)
    for line in v.steps:
        print(f"    step {line}", file=out)
    tail = [ln for ln in v.stderr.splitlines() if ln.strip()][-8:]
    for line in tail:
        print(f"    | {line}", file=out)
    if result.saved:
        print(f"    saved {Path(result.saved)}", file=out)
