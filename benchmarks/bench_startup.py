"""Start-up of the command line: ``passman --help``, ``passman passes``, the start of ``passman run openmp``.

Run:  python benchmarks/bench_startup.py [--repeat 7]

Each command runs in a fresh interpreter; the figure is the median wall time
of ``--repeat`` runs, next to a bare ``python -c pass`` measured in the same
run (the ratio is what passman adds). "run openmp (start-up)" runs the OpenMP
recipe on a program with no loop, so it measures imports, plugins and the
front end rather than analyses. Targets (issue 13): ``--help`` under 0.25 s,
the recipe's start-up under 0.4 s on the 2-core development machine.

Python's bytecode cache matters here: with ``PYTHONDONTWRITEBYTECODE=1`` (set
in the development environment) every run compiles passman's sources again,
about 0.15 s more; measure with it unset after a first run, as an installed
passman (``pip`` compiles the bytecode) starts.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EMPTY = "#include <stdio.h>\nint main(void) { printf(\"%d\\n\", 1); return 0; }\n"


def median_wall(cmd: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    py = sys.executable
    cli = [py, "-c", "import sys; from passman.cli import main; sys.exit(main(sys.argv[1:]))"]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "empty.c"
        src.write_text(EMPTY)
        base = median_wall([py, "-c", "pass"], args.repeat)
        rows = [
            ("passman --help", cli + ["--help"]),
            ("passman passes", cli + ["passes"]),
            ("passman run openmp (start-up)", cli + ["run", "openmp", str(src), "-o", str(Path(tmp) / "out")]),
        ]
        print(f"{'command':32s} {'median':>9s} {'python -c pass':>15s} {'added':>9s}")
        for name, cmd in rows:
            t = median_wall(cmd, args.repeat)
            print(f"{name:32s} {t:8.3f}s {base:14.3f}s {t - base:8.3f}s")


if __name__ == "__main__":
    main()
