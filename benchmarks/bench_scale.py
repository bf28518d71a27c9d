"""``passman run openmp`` on a 5,000-line, 300-function program: how long, and where the time goes.

Run:  python benchmarks/bench_scale.py [--functions 300] [--keep DIR] [--profile]

The program is generated (:func:`program`): groups of ten functions, each
group with its own struct type, small helpers that call one another
(scalar code, a call graph several levels deep), kernels over arrays (1-D
and 2-D loops, stencils, reductions, loops over arrays of structs), a
driver that allocates, initializes, calls the group's kernels and returns a
checksum, and a ``main`` calling every driver and printing the sum. Its
size is about 16 lines a function (5,000 lines for 300 functions).

It runs ``passman run openmp prog.c -o DIR --time-passes`` in a fresh
process (wall-clock time, the figure a user sees), checks that the output
compiles and prints what the original prints, and prints the
``--time-passes`` table's heaviest rows. ``--profile`` runs the same
recipe in this process under cProfile and prints the functions with the
most cumulative time (the hot spots inside the passes).

Target (issue #17, item 5): under 60 s for 300 functions.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

_GROUP = """\
typedef struct {{
    double x, y, z;
    double w;
    int id;
}} item{g}_t;

static double h{g}_scale(double a, int k)
{{
    double r = a;
    if (k % 3 == 0)
        r = r * 0.5 + {g};
    else if (k % 3 == 1)
        r = r - 0.25 * k;
    else
        r = r + 1.0 / (1 + k);
    return r;
}}

static double h{g}_mix(double a, double b, int k)
{{
    double s = h{g}_scale(a, k) + h{g}_scale(b, k + 1);
    /* keep the values bounded */
    if (s > 1e6)
        s = s / 2;
    else if (s < -1e6)
        s = -s / 2;
    return s;
}}

static int h{g}_clamp(int v, int lo, int hi)
{{
    /* saturate v to [lo, hi] */
    if (lo > hi) {{
        int t = lo;
        lo = hi;
        hi = t;
    }}
    if (v < lo)
        return lo;
    if (v > hi)
        return hi;
    return v;
}}

static double h{g}_weight(const item{g}_t *p)
{{
    double base = h{g}_mix(p->x, p->y, p->id);
    double extra = p->z * p->w;
    if (p->id % 2)
        extra = -extra;
    return base + extra;
}}

void k{g}_init(int n, double a[n], double b[n][n], item{g}_t items[n])
{{
    for (int i = 0; i < n; i++) {{
        a[i] = h{g}_scale((double)(i % 17), i);
        items[i].x = i * 0.5;
        items[i].y = (n - i) * 0.25;
        items[i].z = 1.0;
        items[i].w = 0.5;
        items[i].id = i;
        /* row i of b: a pattern depending on the group */
        for (int j = 0; j < n; j++)
            b[i][j] = (double)((i * j + {g}) % 11) / 11.0;
    }}
}}

void k{g}_stencil(int n, double b[n][n], double c[n][n])
{{
    /* boundary rows and columns are copied, the interior is smoothed */
    for (int j = 0; j < n; j++) {{
        c[0][j] = b[0][j];
        c[n - 1][j] = b[n - 1][j];
    }}
    for (int i = 0; i < n; i++) {{
        c[i][0] = b[i][0];
        c[i][n - 1] = b[i][n - 1];
    }}
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            c[i][j] = 0.2 * (b[i][j] + b[i - 1][j] + b[i + 1][j] + b[i][j - 1] + b[i][j + 1]);
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            b[i][j] = c[i][j];
}}

void k{g}_matvec(int n, double b[n][n], double a[n], double y[n])
{{
    /* y = B a, then a damped update of a */
    for (int i = 0; i < n; i++) {{
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += b[i][j] * a[j];
        y[i] = s;
    }}
    for (int i = 0; i < n; i++) {{
        double t = a[i] + 0.1 * y[i];
        if (t > 100.0)
            t = 100.0;
        a[i] = t;
    }}
}}

double k{g}_reduce(int n, double y[n], item{g}_t items[n])
{{
    double s = 0.0;
    double lo = y[0], hi = y[0];
    for (int i = 0; i < n; i++)
        s += y[i] * items[i].w;
    for (int i = 1; i < n; i++) {{
        if (y[i] < lo)
            lo = y[i];
        if (y[i] > hi)
            hi = y[i];
    }}
    for (int i = 0; i < n; i++)
        items[i].w = h{g}_weight(&items[i]) * 1e-3;
    /* the spread scales the sum */
    if (hi > lo)
        s = s / (hi - lo);
    return s;
}}

int k{g}_histogram(int n, double y[n], int hist[16])
{{
    int most = 0;
    for (int i = 0; i < 16; i++)
        hist[i] = 0;
    for (int i = 0; i < n; i++)
        hist[h{g}_clamp((int)y[i], 0, 15)]++;
    for (int i = 0; i < 16; i++)
        if (hist[i] > hist[most])
            most = i;
    return most;
}}

double d{g}_run(int n)
{{
    double *a = malloc(sizeof(double) * n);
    double *y = malloc(sizeof(double) * n);
    double (*b)[n] = malloc(sizeof(double) * n * n);
    double (*c)[n] = malloc(sizeof(double) * n * n);
    item{g}_t *items = malloc(sizeof(item{g}_t) * n);
    int hist[16];
    if (!a || !y || !b || !c || !items) {{
        fprintf(stderr, "out of memory in group {g}\\n");
        exit(1);
    }}
    k{g}_init(n, a, b, items);
    k{g}_stencil(n, b, c);
    k{g}_matvec(n, b, a, y);
    double r = k{g}_reduce(n, y, items) + k{g}_histogram(n, y, hist);
    free(a);
    free(y);
    free(b);
    free(c);
    free(items);
    return r;
}}

"""
_PER_GROUP = 10  # functions in _GROUP


def program(functions: int = 300) -> str:
    """A C program of about ``functions`` functions (groups of ten, plus ``main``)."""
    groups = max(1, functions // _PER_GROUP)
    head = "#include <stdio.h>\n#include <stdlib.h>\n\n"
    body = "".join(_GROUP.format(g=g) for g in range(groups))
    calls = "".join(f"    total += d{g}_run(24 + {g % 5});\n" for g in range(groups))
    main = ("int main(void)\n{\n    double total = 0.0;\n" + calls
            + '    printf("checksum %.6f\\n", total);\n    return 0;\n}\n')
    return head + body + main


def _top_rows(report: str, count: int) -> list[str]:
    """The ``count`` heaviest rows of a ``--time-passes`` table (rows ending in seconds)."""
    rows = []
    for line in report.splitlines():
        parts = line.split()
        try:
            seconds = float(parts[-1].rstrip("s")) if parts else None
        except ValueError:
            seconds = None
        if seconds is None:
            try:
                seconds = float(parts[1].rstrip("s")) if len(parts) > 1 else None
            except ValueError:
                seconds = None
        if seconds is not None:
            rows.append((seconds, line))
    rows.sort(key=lambda r: -r[0])
    return [line for _, line in rows[:count]]


def main(argv: list[str] | None = None) -> int:
    """Generate the program, time the recipe, check the output, print the report."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--functions", type=int, default=300)
    ap.add_argument("--keep", type=Path, default=None, help="write the program and output here")
    ap.add_argument("--profile", action="store_true", help="also profile the recipe in this process")
    ap.add_argument("--top", type=int, default=15)
    ns = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="passman-scale-") as tmp:
        work = ns.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        src = work / "prog.c"
        src.write_text(program(ns.functions))
        lines = src.read_text().count("\n")
        nfun = src.read_text().count("\n{\n")
        print(f"program: {lines} lines, {nfun} functions")

        out = work / "out"
        cmd = [sys.executable, "-m", "passman.cli", "run", "openmp", str(src), "-o", str(out),
               "--time-passes", "--build", "--run", "-q"]
        t0 = time.perf_counter()
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        res = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
        if res.returncode != 0:
            print(res.stderr[-4000:])
            return 1
        ref_bin = work / "ref"
        subprocess.run(["gcc", "-O1", str(src), "-o", str(ref_bin), "-lm"], check=True)
        expected = subprocess.run([str(ref_bin)], capture_output=True, text=True).stdout
        got = res.stdout
        pragmas = (out / "prog.c").read_text().count("#pragma omp")
        print(f"passman run openmp --build --run: {wall:.1f} s wall, {cpu:.1f} s CPU "
              f"(target < 60 s); {pragmas} OpenMP pragmas; output "
              f"{'matches' if got.strip().endswith(expected.strip()) else 'DIFFERS'}")
        print("heaviest rows of --time-passes:")
        for row in _top_rows(res.stderr, ns.top):
            print("  " + row)

        if ns.profile:
            from passman import Workspace
            from passman.recipe import load_recipe

            prof = cProfile.Profile()
            t0 = time.perf_counter()
            prof.enable()
            ws = Workspace(str(src))
            t_parse = time.perf_counter() - t0
            load_recipe("openmp").main(ws)
            prof.disable()
            print(f"in process: parse {t_parse:.1f} s, total {time.perf_counter() - t0:.1f} s")
            buf = io.StringIO()
            pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(ns.top * 2)
            print(buf.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
