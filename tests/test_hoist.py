"""hoist_parallel_regions (passes/parallel/hoist.py): one parallel region around a sequential loop of parallel loops.

Golden shapes, the refusals that keep every thread from running a statement
the program runs once, and differential runs at 1, 2 and 4 threads (built
with ``-DPASSMAN_THREADS_AFTER=0``: threads from the first region on).
"""

from __future__ import annotations

import os
import re

import pytest

from passman import PassFailed, Workspace
from passman.builder import run
from passman.recipe import load_recipe
from passman.testing import outputs_match, reference_output

TIME_LOOP = r"""
#include <stdio.h>
#define N 300
#define T 50
static double A[N][N], B[N][N];
int main(void)
{
    int t, i, j;
    double s = 0.0;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            A[i][j] = (i * 7 + j * 3) % 11;
    for (t = 0; t < T; t++) {
        #pragma omp parallel for private(j)
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < N - 1; j++)
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
        #pragma omp parallel for private(j) reduction(+:s)
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < N - 1; j++) {
                A[i][j] = B[i][j];
                s += B[i][j];
            }
    }
    printf("%.6e %.6e\n", s, A[N / 2][N / 3]);
    return 0;
}
"""


def omp_lines(code: str) -> list[str]:
    return [ln.strip() for ln in code.splitlines() if ln.strip().startswith("#pragma omp")]


def _outputs(ws: Workspace, src, tmp_path, threads=(1, 2, 4)) -> None:
    built = ws.build("openmp", tmp_path / "out", opt="-O1", cflags=["-DPASSMAN_THREADS_AFTER=0"])
    ref = reference_output([src]).stdout
    for n in threads:
        got = run(built.binary, env={**os.environ, "OMP_NUM_THREADS": str(n)}, timeout=120)
        assert got.returncode == 0, got.stderr
        assert outputs_match(ref, got.stdout, 1e-9, 1e-9), (n, ref, got.stdout)


def test_a_time_loop_of_parallel_loops_opens_one_region(write_c, tmp_path):
    src = write_c(TIME_LOOP)
    ws = Workspace(src)
    ws["main"].hoist_parallel_regions()
    assert omp_lines(ws["main"].code) == [
        "#pragma omp parallel private(t)",
        "#pragma omp for private(j)",
        "#pragma omp for private(j) reduction(+:s)",
    ]
    assert re.search(r"#pragma omp parallel private\(t\)\n\s*for \(t = 0; t < 50; t\+\+\)", ws["main"].code)
    _outputs(ws, src, tmp_path)


@pytest.mark.parametrize("change, why", [
    ("        #pragma omp parallel for private(j) reduction(+:s)",
     "        s = s * 0.5;\n        #pragma omp parallel for private(j) reduction(+:s)"),
    ("for (t = 0; t < T; t++) {", "for (t = 0; t < T && s < 1e300; t++) {"),
    ("printf(\"%.6e %.6e\\n\", s,", "printf(\"%.6e %.6e %d\\n\", s, t,"),
    ("        #pragma omp parallel for private(j)\n        for (i = 1; i < N - 1; i++)\n            for (j = 1; j < N - 1; j++)\n                B",
     "        #pragma omp parallel for private(j) num_threads(2)\n        for (i = 1; i < N - 1; i++)\n            for (j = 1; j < N - 1; j++)\n                B"),
    ("        #pragma omp parallel for private(j) reduction(+:s)",
     "        #pragma omp parallel for private(j) reduction(+:s) if(t > 3)"),
    ("#pragma omp parallel for private(j)\n", "#pragma omp parallel for private(j) if(t > 3)\n"),
], ids=["a statement between the loops", "a bound the body writes", "the index read after the loop",
        "a clause of the region", "different if clauses", "an if clause on the index"])  # fmt: skip
def test_refusals_leave_the_function_as_it_was(write_c, change, why):
    old, new = change, why
    assert old in TIME_LOOP
    text = TIME_LOOP.replace(old, new, 1) if "if(t > 3)\n" not in new else TIME_LOOP.replace(old, new).replace(
        "reduction(+:s)\n", "reduction(+:s) if(t > 3)\n")  # the same clause everywhere, on the index
    ws = Workspace(write_c(text))
    before = ws["main"].code
    with pytest.raises(PassFailed):
        ws["main"].hoist_parallel_regions()
    assert ws["main"].code == before


def test_the_same_if_clause_moves_to_the_region(write_c, tmp_path):
    text = TIME_LOOP.replace("#pragma omp parallel for private(j)\n", "#pragma omp parallel for private(j) if(big)\n")
    text = text.replace("reduction(+:s)\n", "reduction(+:s) if(big)\n").replace("double s = 0.0;", "double s = 0.0;\n    int big = N > 2;")
    src = write_c(text)
    ws = Workspace(src)
    ws["main"].hoist_parallel_regions()
    assert omp_lines(ws["main"].code)[:2] == ["#pragma omp parallel private(t) if(big)", "#pragma omp for private(j)"]
    _outputs(ws, src, tmp_path, threads=(2,))


def test_the_recipe_hoists_time_loops_and_wavefronts_and_prints_the_same(tmp_path):
    """jacobi-2d in the cache (the coarse-grain path) and seidel-2d's static fronts: one region each."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from bench_polly import sized_copy

    src = sized_copy("jacobi_2d", {"TSTEPS": 30, "N": 120}, tmp_path / "j")
    ws = Workspace(src)
    load_recipe("openmp").main(ws, program_work=0, region_work=0, poly=False)
    code = ws["kernel_jacobi_2d"].code
    assert omp_lines(code) == ["#pragma omp parallel private(t)", "#pragma omp for private(j)",
                               "#pragma omp for private(j)"], code
    _outputs(ws, src, tmp_path / "jo")
    src = sized_copy("seidel_2d", {"TSTEPS": 12, "N": 90}, tmp_path / "s")
    ws = Workspace(src)
    ws.props.auto_schedule_time_tiling_schedule = "static"  # barrier fronts, not tasks
    load_recipe("openmp").main(ws, program_work=0, region_work=0, time_tiling="skewed")
    code = ws["kernel_seidel_2d"].code
    lines = omp_lines(code)
    assert lines[0].startswith("#pragma omp parallel") and "#pragma omp for" in lines, code
    assert "#pragma omp parallel for" not in code
    _outputs(ws, src, tmp_path / "so")


@pytest.mark.parametrize("declare, bound", [
    ("static int steps = T;", "steps"),  # a global: a call in a sweep may write it
    ("static int lim[1] = {T};", "lim[0]"),  # memory: a thread past the barrier may write it
    ("", "*&s > -1.0 ? T : 0"),  # through a pointer
])  # fmt: skip
def test_a_header_that_reads_memory_or_a_global_is_not_hoisted_over(write_c, declare, bound):
    text = TIME_LOOP.replace("static double A[N][N], B[N][N];", f"static double A[N][N], B[N][N];\n{declare}")
    ws = Workspace(write_c(text.replace("for (t = 0; t < T; t++) {", f"for (t = 0; t < {bound}; t++) {{")))
    with pytest.raises(PassFailed, match="header (reads|writes)"):
        ws["main"].hoist_parallel_regions()


@pytest.mark.parametrize("name, sizes", [
    ("jacobi_1d", {"TSTEPS": 20, "N": 3001}),
    ("jacobi_2d", {"TSTEPS": 9, "N": 77}),
    ("jacobi_2d_9pt", {"TSTEPS": 7, "N": 65}),
    ("heat_3d", {"TSTEPS": 6, "N": 23}),
    ("fdtd_2d", {"TMAX": 8, "NX": 51, "NY": 47}),
    ("seidel_2d", {"TSTEPS": 9, "N": 71}),
])  # fmt: skip
@pytest.mark.parametrize("poly", [True, False])
def test_stencils_through_the_recipe_with_hoisted_regions_print_the_same(tmp_path, name, sizes, poly):
    """Static fronts (poly) or the coarse-grain path: every time loop of parallel loops in one region."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from bench_polly import sized_copy

    src = sized_copy(name, sizes, tmp_path / "src")
    ws = Workspace(src)
    ws.props.auto_schedule_time_tiling_schedule = "static"
    load_recipe("openmp").main(ws, program_work=0, region_work=0, min_work=0, poly=poly)
    code = "".join(cu.code for cu in ws.compilation_units)
    # coarse grain: fdtd's time loop also sets ey[0][j] (every thread would run it), seidel's sweeps
    # are not parallel
    if poly or name not in ("fdtd_2d", "seidel_2d"):
        assert "#pragma omp for" in code, code
    _outputs(ws, src, tmp_path / "out")


def test_a_time_loop_whose_regions_ask_the_run_is_not_hoisted(write_c, tmp_path):
    """Steps read from the command line: nothing bounds the work, so the regions ask the run when to start
    the threads (guard_team_start). Hoisted, that test would run once, before the time loop, and a long
    run would stay on one thread: the recipe hoists after the program rule, and the clause (a call) stays."""
    text = "\n".join(ln for ln in TIME_LOOP.splitlines() if "#pragma omp" not in ln)  # the recipe's own
    text = text.replace("#include <stdio.h>", "#include <stdio.h>\n#include <stdlib.h>").replace(
        "int main(void)\n{", "int main(int argc, char **argv)\n{\n    int steps = argc > 5 ? atoi(argv[1]) : T;")
    src = write_c(text.replace("for (t = 0; t < T; t++) {", "for (t = 0; t < steps; t++) {"))
    ws = Workspace(src)
    load_recipe("openmp").main(ws, poly=False, region_work=0)
    lines = omp_lines(ws["main"].code)
    assert len(lines) >= 2 and all(p.startswith("#pragma omp parallel for") and "clock()" in p
                                   for p in lines), lines
    bounded = Workspace(write_c(text, "bounded.c"))  # T steps: the work is known, the time loop hoisted
    load_recipe("openmp").main(bounded, poly=False, region_work=0)
    assert "#pragma omp parallel private(t)" in bounded["main"].code, bounded["main"].code
    with pytest.raises(PassFailed, match="if clause"):
        ws["main"].hoist_parallel_regions()
    _outputs(ws, src, tmp_path, threads=(2,))
