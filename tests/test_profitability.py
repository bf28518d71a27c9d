"""The profitability model of the OpenMP path (passes/parallel/profitability.py).

A parallel region pays when its work (statement executions per region) covers
its fork/join: ``min_work`` for a region run once, ``region_work`` (the
measured fork/join cost at two threads) for one inside a sequential loop;
parametric work gives an ``if`` clause (run once) or a parallel and a
sequential copy of the loop (repeated).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import THREADS_SEEN_C
from passman.passes.parallel.parallelize import why_sequential
from passman.passes.parallel.profitability import (
    FORK_JOIN_NS,
    REGION_WORK,
    STATEMENT_NS,
    loop_work,
    profitability,
)

from passman import PassFailed, Workspace
from passman.builder import run
from passman.recipe import load_recipe
from passman.testing import outputs_match, reference_output

CORPUS = Path(__file__).resolve().parent / "corpus"

SCALE = """
#include <stdio.h>
static double a[100000];
static void scale(int n, double *x)
{
    int i;
    for (i = 0; i < n; i++)
        x[i] = 2.0 * x[i] + 1.0;
}
int main(void)
{
    int i;
    double s = 0.0;
    for (i = 0; i < 100000; i++)
        a[i] = i % 7;
    scale(100000, a);
    scale(10, a);
    for (i = 0; i < 100000; i++)
        s += a[i];
    printf("%.1f\\n", s);
    return 0;
}
"""

TIME_LOOP = """
#include <stdio.h>
#define N 100
#define T 1000
static double A[N], B[N];
static void steps(int t_max, int n, double a[n], double b[n])
{
    int t, i;
    for (t = 0; t < t_max; t++) {
        for (i = 1; i < n - 1; i++)
            b[i] = 0.33 * (a[i - 1] + a[i] + a[i + 1]);
        for (i = 1; i < n - 1; i++)
            a[i] = b[i];
    }
}
int main(void)
{
    int i;
    double s = 0.0;
    for (i = 0; i < N; i++)
        A[i] = B[i] = (i * 7) % 11;
    steps(T, N, A, B);
    for (i = 0; i < N; i++)
        s += A[i];
    printf("%.6f\\n", s);
    return 0;
}
"""


def omp_lines(code: str) -> list[str]:
    return [line.strip() for line in code.splitlines() if line.strip().startswith("#pragma omp")]


def test_the_constant_is_the_break_even_of_the_measured_fork_join():
    assert REGION_WORK == round(2 * FORK_JOIN_NS / STATEMENT_NS)
    assert 1_000 <= FORK_JOIN_NS <= 1_000_000  # microseconds, not a guess in another unit


def test_blur_tap_loop_gets_no_region_per_pixel():
    """The 7-tap loop of tests/corpus/blur.c: a reduction, parallel, inside the (sequential) pixel loops.

    The pixel loops are not provably parallel (``y * w + x`` with ``w`` a
    parameter of two values), so the model says: no parallel loop here, the
    tap loop only in a copy chosen when 2r+1 taps would pay a region.
    """
    ws = Workspace(CORPUS / "blur.c")
    rows = ws["blur_rows"]
    tap = rows.all_loops[-1]
    pays = profitability(tap, 2000, REGION_WORK)
    assert pays.parallel and pays.versioned and f">= {REGION_WORK}" in pays.condition
    assert "would open once per iteration" in pays.reason
    load_recipe("openmp").main(ws, program_work=0)  # the per-region rule alone (as a whole: below)
    for name in ("blur_rows", "blur_columns"):
        code = ws[name].code
        # the only parallel copy of the tap loop sits under the run-time test; the pixel loops have none
        head = code.split("#pragma omp")[0]
        assert re.search(rf"if \(\(long\)\(.*\) \* 2 >= {REGION_WORK}\) {{\s*$", head, re.M), code
        assert len(omp_lines(code)) == 1
        for loop in ws[name].all_loops[:2]:  # y and x
            assert "not parallel" in why_sequential(loop)


def test_blur_tap_loop_is_sequential_when_its_size_is_known(write_c):
    """With one radius (a constant after propagation) the decision is static: 7 x 2 statements."""
    src = (CORPUS / "blur.c").read_text().replace("R - 1, img, tmp, wt + 1", "R, img, tmp, wt").replace(
        "R - 1, tmp, img, wt + 1", "R, tmp, img, wt")
    ws = Workspace(write_c(src, "blur1.c"))
    load_recipe("openmp").main(ws, program_work=0)  # the per-region rule alone (the program's reverts blur_rows)
    assert omp_lines(ws["blur_rows"].code) == []
    tap = ws["blur_rows"].all_loops[-1]
    why = why_sequential(tap)
    assert "too little work" in why and "statement execution(s) each" in why and "parallel_region_work" in why


def test_a_parametric_loop_gets_an_if_clause(write_c, tmp_path):
    ws = Workspace(write_c(SCALE))
    load_recipe("openmp").main(ws, poly=False, program_work=0)  # the per-region rule alone
    pragmas = omp_lines(ws["scale"].code)
    assert pragmas == ["#pragma omp parallel for if((long)n * 2 >= 2000)"]
    built = ws.build("openmp", tmp_path / "out", opt="-O2")
    ref = reference_output([tmp_path / "t.c"])
    for threads in (1, 2):
        got = run(built.binary, env={**os.environ, "OMP_NUM_THREADS": str(threads)}, timeout=60)
        assert got.stdout == ref.stdout


def test_min_work_zero_drops_the_if_clause(write_c):
    ws = Workspace(write_c(SCALE))
    load_recipe("openmp").main(ws, poly=False, min_work=0)
    assert omp_lines(ws["scale"].code) == ["#pragma omp parallel for"]


def test_small_loops_in_a_time_loop_stay_sequential_and_say_why(write_c, tmp_path):
    ws = Workspace(write_c(TIME_LOOP))
    load_recipe("openmp").main(ws, poly=False, min_work=0)  # min_work=0 does not lift the per-region guard
    steps = ws["steps"]
    assert omp_lines(steps.code) == []
    inner = steps.all_loops[1]
    why = why_sequential(inner)
    assert "would open 1000 times" in why and "for 196 statement" in why and f"under {REGION_WORK}" in why
    # region_work=0 (with min_work=0) lifts it: the space loops are parallel inside the time loop
    ws2 = Workspace(write_c(TIME_LOOP, "t2.c"))
    load_recipe("openmp").main(ws2, poly=False, min_work=0, region_work=0)
    # one region around the time loop (hoist_parallel_regions), the two space loops shared in it
    assert omp_lines(ws2["steps"].code) == ["#pragma omp parallel private(t)", "#pragma omp for", "#pragma omp for"]


def test_a_parametric_loop_in_a_time_loop_gets_two_copies(write_c, tmp_path):
    src = TIME_LOOP.replace("steps(T, N, A, B);", "steps(T, N, A, B);\n    steps(3, N / 2, A, B);")
    ws = Workspace(write_c(src))
    load_recipe("openmp").main(ws, poly=False, region_work=150, program_work=0)  # max(min_work, region_work)
    code = ws["steps"].code
    assert code.count("if ((long)(n - 2) * 2 >= 2000) {") == 2 and code.count("#pragma omp parallel for") == 2
    built = ws.build("openmp", tmp_path / "out", opt="-O2")
    ref = reference_output([tmp_path / "t.c"])
    for threads in (1, 2):
        got = run(built.binary, env={**os.environ, "OMP_NUM_THREADS": str(threads)}, timeout=60)
        assert outputs_match(ref.stdout, got.stdout, 1e-9, 1e-9)


def test_parallel_profitability_drops_small_scheduled_regions_and_refuses_when_all_pay(write_c):
    ws = Workspace(write_c(TIME_LOOP))
    steps = ws["steps"]
    steps.code = steps.code.replace("for (i = 1; i < n - 1; i++)\n            b[i]",
                                    "#pragma omp parallel for\n        for (i = 1; i < n - 1; i++)\n            b[i]")
    load_recipe("openmp").propagate_constants(ws)
    assert len(omp_lines(steps.code)) == 1
    steps.parallel_profitability()
    assert omp_lines(steps.code) == []
    before = steps.code
    with pytest.raises(PassFailed, match="pays for its region"):
        steps.parallel_profitability()
    assert steps.code == before


def test_work_bound_of_loops_with_min_max_bounds(write_c):
    ws = Workspace(write_c("""
void f(double *a)
{
    for (int c1 = -177; c1 < 12; c1++)
        for (int c2 = c1 > 0 ? c1 : 0; c2 <= (20 < c1 + 30 ? 20 : c1 + 30); c2 += 2)
            a[c2] = 1.0;
}
"""))
    inner = ws["f"].all_loops[1]
    work = loop_work(inner)
    assert work.value is None and work.bound is not None and 22 <= work.bound <= 2 * 110  # intervals: loose, sound


CALLED_IN_LOOP = """
#include <stdio.h>
#define N 300
static double A[N], B[N];
static void smooth(int n, double a[n], double b[n])
{
    for (int i = 1; i < n - 1; i++)
        b[i] = 0.25 * (a[i - 1] + 2.0 * a[i] + a[i + 1]);
    for (int i = 1; i < n - 1; i++)
        a[i] = b[i];
}
int main(void)
{
    double s = 0.0;
    for (int i = 0; i < N; i++)
        A[i] = B[i] = (i * 7) % 11;
    for (int t = 0; t < 500; t++)
        smooth(N, A, B);
    for (int i = 0; i < N; i++)
        s += A[i];
    printf("%.6f\\n", s);
    return 0;
}
"""


@pytest.mark.parametrize("poly", [False, True])
def test_a_function_called_in_a_loop_opens_its_regions_once_per_call(write_c, tmp_path, poly):
    src = write_c(CALLED_IN_LOOP)
    ws = Workspace(src)
    load_recipe("openmp").main(ws, poly=poly, program_work=0)  # the per-region rule at work, alone
    assert omp_lines(ws["smooth"].code) == []  # 298 statements per region, 500 calls
    if not poly:
        why = why_sequential(ws["smooth"].all_loops[0])
        assert "would open once per call (inside smooth, called inside l4 of main)" in why, why
        assert f"under {REGION_WORK}" in why
    # called once, the same loops pay (300 x 500 would not: this is the caller's loop at work)
    once = Workspace(write_c(CALLED_IN_LOOP.replace("for (int t = 0; t < 500; t++)\n        ", ""), "once.c"))
    load_recipe("openmp").main(once, poly=False, min_work=0)
    assert len(omp_lines(once["smooth"].code)) == 2
    built = ws.build("openmp", tmp_path / "out", opt="-O2")
    got = run(built.binary, env={**os.environ, "OMP_NUM_THREADS": "2"}, timeout=60)
    assert got.stdout == reference_output([src]).stdout


def test_region_runs_counts_a_wavefront_exactly(write_c):
    from passman.passes.parallel.work_count import region_runs

    ws = Workspace(write_c("""
void f(double a[64][64])
{
    for (int c0 = -1; 16 * c0 < 64; c0++)
        for (int c1 = (0 > 32 * c0 - 62 ? 0 : 32 * c0 - 62); c1 <= (62 < 32 * c0 + 30 ? 62 : 32 * c0 + 30); c1 += 32)
            for (int c2 = c1; c2 < (64 < c1 + 32 ? 64 : c1 + 32); c2++)
                for (int c3 = 0; c3 <= c2 % 5; c3++)
                    a[c2][c3] = 1.0;
}
"""))
    outer, front = ws["f"].all_loops[0].node, ws["f"].all_loops[1].node
    openings, inside = region_runs(outer, front, ws["f"])
    # what running the nest counts, statement by statement, under the model's conventions
    runs, total = 0, 0
    for c0 in range(-1, 4):
        runs += 1
        c1 = max(0, 32 * c0 - 62)
        while c1 <= min(62, 32 * c0 + 30):
            total += 1 + sum(1 + sum(1 + 1 for _ in range(c2 % 5 + 1)) for c2 in range(c1, min(64, c1 + 32)))
            c1 += 32
    assert (openings, inside) == (runs, total)
    assert region_runs(outer, front, ws["f"]) is not None


def test_a_wavefront_of_small_fronts_stays_sequential(tmp_path):
    ws = Workspace(str(CORPUS / "trisolv.c"))
    load_recipe("openmp").main(ws)
    fronts = [lp for lp in ws["kernel_trisolv"].all_loops if "too little work" in (why_sequential(lp) or "")]
    assert fronts and all("run(s) of the loop for" in why_sequential(lp) for lp in fronts)
    built = ws.build("openmp", tmp_path / "out", opt="-O2")
    got = run(built.binary, env={**os.environ, "OMP_NUM_THREADS": "2"}, timeout=60)
    assert outputs_match(reference_output([CORPUS / "trisolv.c"]).stdout, got.stdout, 1e-9, 1e-9)


TWO_KERNELS = """
#include <stdio.h>
#include <stdlib.h>
#define N 400
static double A[N][N], x[N], y[N];
static void mv(int n)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += A[i][j] * x[j];
        y[i] = s;
    }
}
int main(int argc, char **argv)
{
    int reps = REPS;
    for (int i = 0; i < N; i++) {
        x[i] = 1.0 / (i + 1);
        for (int j = 0; j < N; j++)
            A[i][j] = (i + j) % 5;
    }
    for (int r = 0; r < reps; r++)
        mv(N);
    printf("%.6f %.6f\\n", y[0], y[N - 1]);
    return 0;
}
"""


def test_program_parallel_work_counts_every_region_of_one_run(write_c):
    from passman.passes.parallel.profitability import program_parallel_work

    ws = Workspace(write_c(TWO_KERNELS.replace("int reps = REPS;", "int reps = 3;").replace(
        "for (int r = 0; r < reps; r++)", "for (int r = 0; r < 3; r++)")))
    load_recipe("openmp").main(ws, poly=False, program_work=0)
    total, _ = program_parallel_work(ws)
    # the model's convention: a loop costs (its body + 1) per iteration. main's init nest, run once:
    # 400 x (x[i] = ...; the j loop: 400 x (1 + 1); + 1); mv, 3 times: 400 x (s = 0; the j loop; y[i] = s; + 1)
    init = 400 * (1 + 400 * (1 + 1) + 1)
    mv = 400 * (1 + 400 * (1 + 1) + 1 + 1)
    assert total == init + 3 * mv


def test_program_work_is_counted_once_per_state_of_the_program(write_c):
    """sequential_program and guard_team_start ask the same counts: the second reads the first's
    (the analysis program_work keeps them) until a function changes."""
    from passman.passes.parallel.profitability import program_parallel_work

    ws = Workspace(write_c(TWO_KERNELS.replace("int reps = REPS;", "int reps = 3;").replace(
        "for (int r = 0; r < reps; r++)", "for (int r = 0; r < 3; r++)")))
    load_recipe("openmp").main(ws, poly=False, program_work=0)
    first = program_parallel_work(ws)
    tables = ws.computations["program_work"]
    assert first[0] is not None and program_parallel_work(ws) == first
    assert ws.computations["program_work"] == tables
    inner = [lp for lp in ws["mv"].all_loops if lp.depth == 1][0]
    inner.unroll(2)  # 400 x (body + 1) becomes 200 x (2 body + 1): the count must follow
    assert ws.computations["program_work"] == tables
    again = program_parallel_work(ws)
    assert ws.computations["program_work"] == tables + 1
    assert again[0] is not None and again[0] < first[0]


@pytest.mark.parametrize("reps, parallel", [(1, False), (20, True)])
def test_a_program_with_little_parallel_work_in_all_stays_sequential(write_c, tmp_path, reps, parallel):
    src = write_c(TWO_KERNELS.replace("REPS", str(reps)).replace("r < reps", f"r < {reps}"))
    ws = Workspace(src)
    load_recipe("openmp").main(ws, poly=False)
    code = "\n".join(ws[f].code for f in ("main", "mv"))
    # one run: 0.48M statement executions in the regions (under 1M: threads would not pay); 20 runs: 6.9M
    assert ("#pragma omp parallel" in code) == parallel, code
    assert "#pragma omp" in ws.compilation_units[0].printed or not parallel
    again = Workspace(src)
    load_recipe("openmp").main(again, poly=False, program_work=0)
    assert "#pragma omp parallel" in again["mv"].code  # the rule alone made it sequential
    built = ws.build("openmp", tmp_path / "out", opt="-O2")
    got = run(built.binary, env={**os.environ, "OMP_NUM_THREADS": "2"}, timeout=60)
    assert got.stdout == reference_output([src]).stdout


@pytest.mark.parametrize("team_ns, parallel", [("200000", True), ("5000000", False)])
def test_the_program_rule_weighs_this_machines_thread_start_up(write_c, monkeypatch, team_ns, parallel):
    """20 runs of the kernels: 6.9M statement executions pay for a 0.2 ms team start, not for a 5 ms one."""
    monkeypatch.setenv("PASSMAN_TEAM_START_NS", team_ns)
    src = write_c(TWO_KERNELS.replace("REPS", "20").replace("r < reps", "r < 20"))
    ws = Workspace(src)
    load_recipe("openmp").main(ws, poly=False)
    assert ("#pragma omp parallel" in ws["mv"].code) == parallel, ws["mv"].code


TWO_SIZES = """
#include <stdio.h>
static double a[1000];
static void scale(int n, double f)
{
    for (int i = 0; i < n; i++)
        a[i] = a[i] * f + 1.0;
}
int main(void)
{
    scale(10, 0.5);
    scale(1000, 0.25);
    printf("%f %f\\n", a[5], a[500]);
    return 0;
}
"""


def test_a_parameter_of_a_few_constants_counts_its_largest_work(write_c):
    """scale(10) and scale(1000): each call counted as the larger, 2 x 1000 x (1 + 1), an upper bound."""
    from passman.passes.parallel.profitability import program_parallel_work

    ws = Workspace(write_c(TWO_SIZES))
    load_recipe("openmp").main(ws, poly=False, min_work=0, region_work=0)
    assert "#pragma omp parallel" in ws["scale"].code
    total, why = program_parallel_work(ws)
    assert total == 2 * 1000 * 2, why


def test_blur_stays_sequential_as_a_whole():
    """blur_columns is called with r = 3 and r = 2: its work is now known, and under the threshold."""
    from passman.passes.parallel.profitability import program_parallel_work

    kept = Workspace(CORPUS / "blur.c")
    load_recipe("openmp").main(kept, program_work=0)
    total, why = program_parallel_work(kept)
    assert total is not None and 0 < total < 1_000_000, why
    ws = Workspace(CORPUS / "blur.c")
    load_recipe("openmp").main(ws)
    assert not any("#pragma omp parallel" in m.code for m in ws.all_functions if not m.is_stub)


def test_the_program_rule_needs_the_work_known_and_leaves_user_openmp_alone(write_c):
    unknown = Workspace(write_c(TWO_KERNELS.replace("int reps = REPS;", "int reps = argc;").replace(
        "r < reps", "r < reps * 1"), "u.c"))
    load_recipe("openmp").main(unknown, poly=False)
    assert "#pragma omp parallel" in unknown["mv"].code  # how often mv runs depends on argc
    with pytest.raises(PassFailed, match="how often mv runs is not known"):
        unknown.sequential_program()
    mine = Workspace(write_c(TWO_KERNELS.replace("REPS", "1").replace(
        "    for (int r = 0;", "    #pragma omp parallel for\n    for (int q = 0; q < 1; q++)\n        x[q] += 0.0;\n"
        "    for (int r = 0;"), "m.c"))
    load_recipe("openmp").main(mine, poly=False)
    with pytest.raises(PassFailed, match="OpenMP pragmas of its own"):
        mine.sequential_program()


#: loop nests (C, the same in Python: t's body counts the i loop's runs and statement executions)
_COUNTED_NESTS = [
    ("for (int i = 10; i >= 2; i -= 3) for (int j = 0; j <= i; j += 2) a[i][j] = 1.0;",
     lambda t: [(i, list(range(0, i + 1, 2))) for i in range(10, 1, -3)]),
    ("for (int i = 0; 7 > i; i++) for (int j = i; j < 9; j++) a[i][j] = 1.0;",
     lambda t: [(i, list(range(i, 9))) for i in range(0, 7)]),
    ("for (int i = 0; i < 6; i++) for (int j = i; j >= 0; j--) a[i][j] = 1.0;",
     lambda t: [(i, list(range(i, -1, -1))) for i in range(6)]),
    ("for (int i = t; i < 6; i++) for (int j = 0; 3 * j <= i + t; j++) a[i][j] = 1.0;",
     lambda t: [(i, [j for j in range(0, 20) if 3 * j <= i + t]) for i in range(t, 6)]),
    ("for (int i = 5; i > t; i--) for (int j = 9; j > i; j -= 4) a[i][j] = 1.0;",
     lambda t: [(i, list(range(9, i, -4))) for i in range(5, t, -1)]),
]


@pytest.mark.parametrize("nest, python", _COUNTED_NESTS)
def test_region_runs_against_running_the_nest(write_c, nest, python):
    """Trip counts from the bound at once (the i and j loops), and one count of a body that is the
    same at every iteration of the time loop, give what running the headers gives."""
    from passman.passes.parallel.work_count import region_runs

    ws = Workspace(write_c(f"void f(double a[16][16])\n{{\n    for (int t = 0; t < 4; t++)\n        {nest}\n}}\n"))
    outer, target = ws["f"].all_loops[0].node, ws["f"].all_loops[1].node
    runs, total = 0, 0
    for t in range(4):
        runs += 1
        # the model's convention: a loop costs its body + 1 per iteration, a statement 1
        total += sum(1 + len(js) * (1 + 1) for _, js in python(t))
    assert region_runs(outer, target, ws["f"]) == (runs, total)
    assert region_runs(outer, target, ws["f"], runs_only=True)[0] == runs



KEPT = """
void f(double a[200][200])
{
    for (int t = 0; t < 50; t++) {
        for (int i = t; i < 200; i++)
            for (int j = (i % 3 == 0 ? 0 : t); j < 200; j++)
                a[i][j] = 1.0;
    }
}
"""


def _count_the_counts(monkeypatch) -> list:
    """The counts region_runs makes from now on (one item each), by a stand-in for its counter."""
    from passman.passes.parallel import work_count

    counted = []

    class Counting(work_count._Counter):
        def __init__(self, *args, **kwargs):
            counted.append(args)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(work_count, "_Counter", Counting)
    return counted


def test_region_runs_answers_a_question_of_the_same_shape_from_the_one_it_counted(write_c, monkeypatch):
    """A count is kept by the shape of the question (the nest less its pragmas and labels, the target's
    place in it): a copy of the nest, with a pragma and a label, is answered without counting again,
    exactly and up to a limit above the work; a limit below the work, or another value read from the
    environment, is counted again, and gives what a fresh count gives."""
    from passman.passes.parallel import work_count
    from passman.passes.parallel.work_count import region_runs
    from pycparser import c_ast

    from passman.astutil import copy_node

    ws = Workspace(write_c(KEPT))
    outer, target = ws["f"].all_loops[0].node, ws["f"].all_loops[1].node
    exact = region_runs(outer, target, ws["f"])
    assert exact is not None and exact[0] == 50
    copy = copy_node(outer)
    labelled = copy.stmt.block_items[0]
    labelled.name = "l9"
    inner = labelled.stmt
    copy.stmt.block_items.insert(0, c_ast.Pragma("omp parallel for"))
    real = work_count._Counter
    counted = _count_the_counts(monkeypatch)
    assert region_runs(copy, labelled, ws["f"]) == exact
    assert region_runs(copy, inner, ws["f"], limit=exact[1] + 1) == exact
    assert not counted
    below = region_runs(copy, inner, ws["f"], limit=exact[1] // 2)
    assert counted and below[1] >= exact[1] // 2
    fresh = real(ws["f"], inner, False, exact[1] // 2)
    with pytest.raises(work_count.Enough):
        fresh.count(copy, {})
    assert below == (fresh.openings, max(fresh.inside, exact[1] // 2))
    counted.clear()
    assert region_runs(outer, target, ws["f"], env={"n": 7}) == exact  # no header reads n
    assert not counted
    assert region_runs(outer, target, ws["f"], env={"t": 3}) == exact  # a header reads t: counted again
    assert counted


def test_region_runs_keeps_a_failure_only_below_the_work_it_had_counted(write_c, monkeypatch):
    """A count that spends the budget is not tried again for the same question, nor for one with a
    limit above what it had counted; with a limit it reached, the count stops early and answers."""
    from passman.passes.parallel import work_count
    from passman.passes.parallel.work_count import region_runs

    ws = Workspace(write_c(KEPT))
    outer, target = ws["f"].all_loops[0].node, ws["f"].all_loops[1].node
    monkeypatch.setattr(work_count, "BUDGET", 500)
    assert region_runs(outer, target, ws["f"]) is None
    counted = _count_the_counts(monkeypatch)
    assert region_runs(outer, target, ws["f"]) is None
    assert region_runs(outer, target, ws["f"], limit=10**12) is None
    assert not counted
    early = region_runs(outer, target, ws["f"], limit=1000)
    assert counted and early is not None and early[1] >= 1000



@pytest.mark.parametrize("header", ["int i = -2; i < 29; i += 3", "int i = 27; i > -4; i -= 2", "int i = 0; i < 40; i++"])
@pytest.mark.parametrize("cond", ["i >= 1", "i < t + 2 && !(i == 2 * t)", "7 <= i || i != t", "i > 12 && i <= 12"])
def test_a_loop_whose_index_only_chooses_branches_is_counted_by_stretches(write_c, header, cond):
    """isl's guards (``if (c2 >= 1)`` around a tile's row) made the counter run every iteration; the
    index deciding only comparisons, the count of one iteration per stretch of equal decisions gives
    what running every iteration gives, for far less of the budget."""
    from passman.passes.parallel import work_count

    src = (f"void f(double a[100])\n{{\n    for (int t = 0; t < 6; t++)\n        for ({header}) {{\n"
           f"            if ({cond}) {{ for (int j = 0; j < t + 3; j++) a[j] = 1; if (i != 5) a[0] = 2; }}\n"
           f"            else a[1] = 3;\n        }}\n}}\n")
    ws = Workspace(write_c(src))
    outer, target = ws["f"].all_loops[0].node, ws["f"].all_loops[1].node
    by_stretch = work_count._Counter(ws["f"], target)
    got = (by_stretch.count(outer, {}), by_stretch.openings, by_stretch.inside)
    every = work_count._Counter(ws["f"], target)
    every.splits = {id(target): None}  # no stretches: every iteration is run
    assert got == (every.count(outer, {}), every.openings, every.inside)
    assert work_count.BUDGET - by_stretch.budget < (work_count.BUDGET - every.budget) / 2


# -------------------------------------------------- the whole program's work, an upper bound

TRIANGLES = """
#include <stdio.h>
#define N NN
static double A[N][N];
static void lower(int n, double a[n][n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            for (int k = 0; k < j; k++)
                a[i][j] -= a[i][k] * a[k][j];
            if (a[j][j] == 0.0)
                return;
            a[i][j] /= a[j][j];
        }
}
int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = (i == j) ? N : 1.0 / (i + j + 1);
    lower(N, A);
    printf("%.6e\\n", A[N - 1][N - 2]);
    return 0;
}
"""


def _triangle_work(n: int) -> int:
    """lower(n)'s statement executions, the model's convention (a loop costs its body + 1 per
    iteration), as if no return were taken."""
    return sum(1 + sum(1 + j * (1 + 1) + 1 + 1 + 1 for j in range(i)) for i in range(n))


@pytest.mark.parametrize("n", [40, 90])
def test_whole_program_work_bounds_a_triangular_nest_closely(write_c, n):
    """An upper bound (the early return cuts nothing, the branch counts its larger side) within 20%
    of the exact count: each loop range is cut in pieces, not bounded by the box of its indices."""
    from passman.passes.parallel.profitability import whole_program_work

    ws = Workspace(write_c(TRIANGLES.replace("NN", str(n))))
    main = n * (1 + n * (1 + 1)) + 3  # its nest, the call, printf, return
    exact = main + _triangle_work(n)
    bound, why = whole_program_work(ws)
    assert bound is not None, why
    assert exact <= bound <= 1.2 * exact, (bound, exact)
    box = n * (n * (n * 2 + 4) + 1)  # lower(n) with j and k up to n: what intervals alone give
    assert bound < 0.3 * (main + box), bound


def test_whole_program_work_is_unknown_where_a_trip_count_is(write_c):
    from passman.passes.parallel.profitability import whole_program_work

    src = TRIANGLES.replace("NN", "40").replace("    lower(N, A);\n",
                                                "    lower(N, A);\n    while (A[0][0] > 1.0)\n        A[0][0] /= 2.0;\n")
    bound, why = whole_program_work(Workspace(write_c(src)))
    assert bound is None and "main" in why


@pytest.mark.parametrize("team_ns, parallel", [("5000000", False), ("200000", True)])
def test_tiled_regions_fall_back_on_the_original_programs_work(write_c, monkeypatch, tmp_path, team_ns, parallel):
    """seidel_2d's skewed tiles defeat the count of its regions' work; the bound of the whole program
    taken before the schedule decides: its 1.7M statement executions stay sequential under a 5 ms
    team start-up (25M), and keep their regions under the suite's 0.2 ms (1M)."""
    from passman.passes.parallel.profitability import program_parallel_work

    monkeypatch.setenv("PASSMAN_TEAM_START_NS", team_ns)
    src = CORPUS / "seidel_2d.c"
    kept = Workspace(src)
    load_recipe("openmp").main(kept, program_work=0)
    assert "#pragma omp parallel" in kept["kernel_seidel_2d"].code
    assert program_parallel_work(kept)[0] is None  # what the fallback is for
    ws = Workspace(src)
    load_recipe("openmp").main(ws)
    assert ("#pragma omp parallel" in ws["kernel_seidel_2d"].code) == parallel
    assert ws["kernel_seidel_2d"].code != Workspace(src)["kernel_seidel_2d"].code  # still tiled, either way
    built = ws.build("openmp", tmp_path / "out", opt="-O2")
    got = run(built.binary, env={**os.environ, "OMP_NUM_THREADS": "2"}, timeout=60)
    assert outputs_match(reference_output([src]).stdout, got.stdout, 1e-9, 1e-9)


def test_a_forward_goto_only_cuts_the_whole_programs_work_and_a_backward_one_is_unknown(write_c):
    from passman.passes.parallel.profitability import whole_program_work

    src = TRIANGLES.replace("NN", "40").replace(
        "    lower(N, A);\n", "    if (A[0][0] < 0.0)\n        goto out;\n    lower(N, A);\nout:\n")
    bound, why = whole_program_work(Workspace(write_c(src, "f.c")))
    assert bound is not None and bound >= _triangle_work(40), why
    back = src.replace("out:\n", "").replace("    if (A[0][0] < 0.0)\n        goto out;\n",
                                             "again:\n    A[0][0] -= 1.0;\n    if (A[0][0] > 0.0)\n        goto again;\n")
    bound, why = whole_program_work(Workspace(write_c(back, "b.c")))
    assert bound is None and "main" in why


def test_a_local_set_once_to_a_constant_counts_as_that_constant(write_c):
    """``int n = 40; lower(n, A);``: n is 40 wherever it is read (declared once, never written)."""
    from passman.passes.parallel.profitability import whole_program_work

    src = TRIANGLES.replace("NN", "40").replace("    lower(N, A);\n", "    int n = N;\n    lower(n, A);\n")
    bound, why = whole_program_work(Workspace(write_c(src, "l.c")))
    assert bound is not None and bound >= _triangle_work(40), why
    written = src.replace("    lower(n, A);\n", "    n += (A[0][0] > 2.0);\n    lower(n, A);\n")
    bound, why = whole_program_work(Workspace(write_c(written, "w.c")))
    assert bound is None and "lower" in why


THREADS = r"""
#include <pthread.h>
#include <stdio.h>
#define N 300000
static double a[4][N];
static double b[N];
static void scale(double *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = 2.0 * x[i] + 1.0;
}
static void *work(void *p)
{
    scale((double *)p, N);
    return NULL;
}
static void fill(double *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = (i % 11) * 0.5;
}
int main(void)
{
    pthread_t t[4];
    double s = 0.0;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < N; i++)
            a[k][i] = (i + k) % 7;
    fill(b, N);
    for (int k = 0; k < 4; k++)
        pthread_create(&t[k], NULL, (void *(*)(void *))work, a[k]);
    for (int k = 0; k < 4; k++)
        pthread_join(t[k], NULL);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < N; i++)
            s += a[k][i] + b[i];
    printf("%.1f\n", s);
    return 0;
}
"""


def test_no_region_in_code_the_programs_own_threads_run(write_c, tmp_path):
    """``scale`` runs in the threads ``pthread_create`` starts (through ``work``): no team there; ``fill`` gets one."""
    src = write_c(THREADS)
    ws = Workspace(src)
    load_recipe("openmp").main(ws, poly=False, program_work=0)  # the per-region rule alone
    assert omp_lines(ws["scale"].code) == []
    why = why_sequential(ws["scale"].all_loops[0])
    assert "run by the threads pthread_create starts at" in why and "team of threads in each" in why, why
    assert omp_lines(ws["fill"].code), ws["fill"].code  # the same loop, called from main: a region
    built = ws.build("openmp", tmp_path / "out", opt="-O2")
    got = run(built.binary, env={**os.environ, "OMP_NUM_THREADS": "2"}, timeout=60)
    assert got.stdout == reference_output([src]).stdout


CONVERGE = r"""
#include <stdio.h>
#include <string.h>
#define N 200000
static double a[N];
""" + THREADS_SEEN_C + r"""int main(int argc, char **argv)
{
    double change = 1.0;
    int steps = 0;
    int n = argc > 5 ? 1000 : N;  /* a size from the command line */
    for (int i = 0; i < n; i++)
        a[i] = (i % 17) + 1.0;
    while (change > 1e-3) {  /* a convergence loop: nothing bounds one run's work */
        change = 0.0;
        for (int i = 0; i < N; i++)
            a[i] = 0.5 * a[i];
        for (int i = 0; i < N; i++)
            change = a[i] > change ? a[i] : change;
        steps++;
    }
    printf("%d %.6f\n", steps, change);
    threads_seen();
    return 0;
}
"""


def test_where_nothing_bounds_the_work_the_run_starts_the_threads_once_it_has_run_long_enough(write_c, tmp_path):
    """guard_team_start: every region gets ``if(clock() >= PASSMAN_THREADS_AFTER * CLOCKS_PER_SEC)``."""
    src = write_c(CONVERGE)
    ws = Workspace(src)
    load_recipe("openmp").main(ws, poly=False)
    code = ws.compilation_units[0].code
    pragmas = omp_lines(ws["main"].code)
    assert pragmas and all(p.endswith("clock() >= PASSMAN_THREADS_AFTER * CLOCKS_PER_SEC)") for p in pragmas), pragmas
    assert any(re.search(r" if\(\(\(long\)n \* 2 >= 2000\) && clock\(\)", p) for p in pragmas), pragmas  # joined
    # this suite's thread start-up, 200 us (conftest), twice: 0.4 ms of processor time
    assert "#include <time.h>" in code and "#define PASSMAN_THREADS_AFTER 0.0004\n" in code
    reference = reference_output([src]).stdout
    for after, threads_at_2 in (("0", 2), ("1000", 1)):  # at once; after 1000 s (never, in this run)
        built = ws.build("openmp", tmp_path / f"out{after}", opt="-O2", cflags=[f"-DPASSMAN_THREADS_AFTER={after}"])
        for threads in (1, 2):
            got = run(built.binary, env={**os.environ, "OMP_NUM_THREADS": str(threads)}, timeout=60)
            assert got.stdout == reference
            assert f"Threads:\t{min(threads, threads_at_2)}" in got.stderr, (after, threads, got.stderr)
    # where the work is bounded, sequential_program decides and this rule stays out
    bounded = Workspace(write_c(CONVERGE.replace("while (change > 1e-3)", "for (int t = 0; t < 3; t++)").replace(
        "argc > 5 ? 1000 : N", "N"), "b.c"))
    load_recipe("openmp").main(bounded, poly=False)
    assert "PASSMAN_THREADS_AFTER" not in bounded.compilation_units[0].code
    with pytest.raises(PassFailed, match="bounded"):
        bounded.guard_team_start()
    off = Workspace(src)
    load_recipe("openmp").main(off, poly=False, program_work=0)  # no program rule: no guard either
    assert "PASSMAN_THREADS_AFTER" not in off.compilation_units[0].code and omp_lines(off["main"].code)


def test_the_program_rule_works_on_a_workspace_shared_with_a_clone(write_c):
    """A clone shares the functions' trees until one side edits (copy on write): the pragmas to remove
    are the ones in the copy edit() returns (sequential_program refused here: 'not in a block')."""
    src = write_c(TWO_KERNELS.replace("REPS", "1").replace("r < reps", "r < 1"))
    ws = Workspace(src)
    load_recipe("openmp").main(ws, poly=False, program_work=0)
    assert "#pragma omp parallel" in ws["mv"].code
    clone = ws.clone()
    clone.sequential_program(program_work=-1)
    assert "#pragma omp parallel" not in clone["mv"].code and "#pragma omp parallel" in ws["mv"].code
    ws.sequential_program(program_work=-1)
    assert "#pragma omp parallel" not in ws["mv"].code


def test_weighing_a_function_resolves_its_names_once_and_never_keeps_them(write_c, monkeypatch):
    """region_decisions weighs every parallel loop of a function with one resolution of its names and
    types (it was one per loop weighed); a later weighing, after the code changed, resolves again."""
    from passman.passes.parallel import profitability as model
    from passman.passes.parallel.profitability import region_decisions

    ws = Workspace(write_c("""
void f(int n, int m, double a[n][m], double b[n])
{
    #pragma omp parallel for
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            a[i][j] = 0.0;
    #pragma omp parallel for
    for (int i = 0; i < n; i++)
        b[i] = 1.0;
}
"""))
    resolved = []
    real = model.current_scope

    def counting(module):
        resolved.append(module.name)
        return real(module)

    monkeypatch.setattr(model, "current_scope", counting)
    first = region_decisions(ws["f"], 2000, 2000)
    assert len(first) == 2 and all(pays.condition for _, pays in first)  # parametric: an if clause each
    assert resolved == ["f"]
    ws["f"].code = ws["f"].code.replace("b[i] = 1.0;", "b[i] = 2.0;")
    region_decisions(ws["f"], 2000, 2000)
    assert resolved == ["f", "f"]
