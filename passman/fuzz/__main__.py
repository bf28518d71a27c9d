"""``python -m passman.fuzz``: run a fuzz campaign, or check saved cases.

    python -m passman.fuzz --cases 150 --seed 1 --mode both --jobs 2 --shrink --save tests/corpus/fuzz
    python -m passman.fuzz --show 1234                  # print the program of seed 1234
    python -m passman.fuzz --check tests/corpus/fuzz/*.c

Exits 1 when some case is wrong, a traceback, a compile error, a timeout,
a crash (or invalid: a fuzzer bug).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .campaign import Result, campaign, describe, table
from .case import EXTRA_MODES, MODES, make_case
from .oracle import (
    Verdict,
    check_accel,
    check_api,
    check_openmp,
    header_options,
    header_steps,
    header_timeout,
)
from .program import to_c


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m passman.fuzz", description=__doc__.split("\n")[0])
    p.add_argument("--cases", type=int, default=50, help="cases per mode (default 50)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first case (case k: seed + k)")
    p.add_argument("--mode", choices=[*MODES, *EXTRA_MODES, "both"], default="both",
                   help="both: openmp and api; accel (the accelerator recipe on the emulation) when named")
    p.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    p.add_argument("--timeout", type=float, default=30, help="seconds passman may take per case")
    p.add_argument("--shrink", action="store_true", help="shrink the failing cases")
    p.add_argument("--shrink-budget", type=float, default=180, help="seconds per shrink (default 180)")
    p.add_argument("--save", metavar="DIR", help="save the failing (shrunk) programs here")
    p.add_argument("--show", type=int, metavar="SEED", help="print the program of SEED and exit")
    p.add_argument("--check", nargs="+", metavar="FILE", help="judge saved programs (header options and steps)")
    return p


def check_files(files: list[str], timeout: float) -> int:
    """Judge each file in openmp mode (and api mode when its header lists steps); 1 when one fails.

    A header's ``passman-timeout`` replaces ``timeout``.
    """
    failed = 0
    for name in files:
        text = Path(name).read_text()
        limit = header_timeout(text) or timeout
        if "passman-mode: accel" in text:
            verdicts: list[Verdict] = [check_accel(text, header_options(text), limit)]
        else:
            verdicts = [check_openmp(text, header_options(text), limit)]
        steps = header_steps(text)
        if steps is not None:
            verdicts.append(check_api(text, steps, timeout=limit))
        for v in verdicts:
            failed += v.failed
            print(f"{name}: {v.mode}: {v.kind} {v.detail}".rstrip())
            if v.failed:
                for line in [ln for ln in v.stderr.splitlines() if ln.strip()][-8:]:
                    print(f"    | {line}")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    ns = _parser().parse_args(argv)
    if ns.show is not None:
        sys.stdout.write(to_c(make_case(ns.show, "openmp").program))
        return 0
    if ns.check:
        return check_files(ns.check, ns.timeout)
    modes = list(MODES) if ns.mode == "both" else [ns.mode]
    seeds = range(ns.seed, ns.seed + ns.cases)
    start = time.perf_counter()

    def progress(done: int, total: int, r: Result) -> None:
        v = r.verdict
        print(f"[{done}/{total}] seed {r.seed} {r.mode}: {v.kind} ({v.seconds:.1f} s)", flush=True)
        if v.failed:
            describe(r)

    results = campaign(seeds, modes, ns.jobs, ns.timeout, ns.shrink_budget if ns.shrink else 0,
                       ns.save, progress)
    print(f"\n{len(results)} cases in {time.perf_counter() - start:.0f} s")
    print(table(results))
    return 1 if any(r.verdict.failed for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
