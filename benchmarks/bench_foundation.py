"""Foundation benchmarks: start-up, parse/print/save of a 2,000-line program, cloning.

Run:  python benchmarks/bench_foundation.py [--repeat 5]

Every figure is a median of several runs, reported with a ratio against a
baseline measured in the same run:
- start-up: ``import passman`` + a workspace + a first pass, in a fresh
  interpreter, against a bare ``python -c pass``;
- parse/print/save of a ~2,000-line program, against pycparser parsing the
  same preprocessed text alone;
- 100 clones of the largest corpus workspace, against building that
  workspace once; extra memory measured with tracemalloc.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from synth import program_of_lines  # noqa: E402

CORPUS = HERE.parent / "tests" / "corpus"


def median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def bench_startup(repeat: int, tmp: Path) -> tuple[float, float]:
    src = tmp / "small.c"
    src.write_text((CORPUS / "dot.c").read_text())
    code = (
        "import passman\n"
        f"ws = passman.Workspace({str(src)!r})\n"
        "ws['main'].resource('callgraph') if False else ws.resource('callgraph')\n"
    )
    first = median_time(lambda: subprocess.run([sys.executable, "-c", code], check=True), repeat)
    base = median_time(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), repeat)
    return first, base


def bench_parse_print_save(repeat: int, tmp: Path) -> tuple[float, float, int]:
    from passman import Workspace
    from passman.frontend import parse_text, preprocess

    src = tmp / "big.c"
    src.write_text(program_of_lines(2000))
    nlines = src.read_text().count("\n")

    def full():
        ws = Workspace(src)
        _ = ws.cu.big.code
        ws.save(tmp / "out")

    text = preprocess(src, [])

    def baseline():
        parse_text(text, str(src))

    return median_time(full, repeat), median_time(baseline, repeat), nlines


def largest_corpus_program() -> list[Path]:
    progs = [[p] for p in CORPUS.glob("*.c")]
    progs += [sorted(d.glob("*.c")) for d in CORPUS.iterdir() if d.is_dir()]
    return max(progs, key=lambda fs: sum(f.stat().st_size for f in fs))


def bench_clones(repeat: int) -> tuple[float, float, float, str]:
    from passman import Workspace

    files = largest_corpus_program()
    ws = Workspace(*files)
    ws.resource("callgraph")

    def clones():
        return [ws.clone() for _ in range(100)]

    t = median_time(clones, repeat)
    base = median_time(lambda: Workspace(*files), repeat)

    def clones_modified():
        out = []
        for _ in range(100):
            c = ws.clone()
            for m in c.all_functions:
                for lp in m.inner_loops():
                    try:
                        lp.unroll(2)
                        break
                    except Exception:  # noqa: BLE001 - refused loops are fine here
                        pass
            out.append(c)
        return out

    tm = median_time(clones_modified, max(1, repeat // 2))
    tracemalloc.start()
    keep = clones()
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del keep
    return t, base, size / 2**20, "+".join(f.name for f in files), tm


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        start, base = bench_startup(args.repeat, tmp)
        print(f"{'measure':44s} {'median':>10s} {'baseline':>10s} {'ratio':>7s}  target")
        print(f"{'start-up: import + workspace + first analysis':44s} {start:9.3f}s {base:9.3f}s "
              f"{start / base:6.1f}x  < 0.5 s (python -c pass as baseline)")
        full, parse_only, n = bench_parse_print_save(args.repeat, tmp)
        print(f"{f'{n}-line program: parse+print+save':44s} {full:9.3f}s {parse_only:9.3f}s "
              f"{full / parse_only:6.1f}x  < 1 s (pycparser parse alone as baseline)")
        t, b, mb, name, tm = bench_clones(args.repeat)
        print(f"{f'100 clones of {name}':44s} {t:9.3f}s {b:9.3f}s {t / b:6.1f}x  "
              f"< 2 s, < 200 MB (one parse as baseline); memory {mb:.1f} MB")
        print(f"{'100 clones, each unrolling one loop/function':44s} {tm:9.3f}s {b:9.3f}s "
              f"{tm / b:6.1f}x  (copy on write of the modified functions)")


if __name__ == "__main__":
    main()
