"""The race amplifier (passman.jitter): right programs print the same, unordered tasks still race.

Oracles: a program whose synchronisation is right (tasks with ``depend``
clauses and captured data of several alignments, nested tasks and
``taskwait``, a static loop, a barrier, ``single``) prints with the shim
what its sequential build prints, at 1, 2 and 4 threads, every call
delayed or one in four; tasks left without their ``depend`` clauses still
run out of order under it (a shim that ran tasks in creation order would
hide every missing edge).
"""

from __future__ import annotations

import os

import pytest

from passman.builder import BuildPlan, compile, run
from passman.jitter import WRAPPED, jitter_env, jittered

RIGHT = r"""
#include <stdio.h>
#include <stdint.h>
struct wide { _Alignas(64) double v[3]; };
static double chain[200];
static double grid[2][1000];
static int misaligned;

static void nested(int k)
{
    double local[5] = {k, k + 1, k + 2, k + 3, k + 4};
    #pragma omp task firstprivate(local)
    chain[k] += local[4] - local[0];
    #pragma omp taskwait
}

int main(void)
{
    struct wide w = {{1.0, 2.0, 3.0}};
    chain[0] = 1.0;
    #pragma omp parallel
    #pragma omp single
    for (int k = 1; k < 200; k++) {
        #pragma omp task depend(in: chain[k - 1]) depend(out: chain[k]) firstprivate(w)
        {
            if ((uintptr_t)&w % 64 != 0)
                misaligned = 1;
            chain[k] = chain[k - 1] * 1.01 + w.v[k % 3];
            nested(k);
        }
    }
    for (int i = 0; i < 1000; i++)
        grid[0][i] = (i * 37 % 17) / 17.0;
    #pragma omp parallel
    for (int t = 0; t < 50; t++) {
        #pragma omp for schedule(static) nowait
        for (int i = 1; i < 999; i++)
            grid[(t + 1) % 2][i] = 0.3 * (grid[t % 2][i - 1] + grid[t % 2][i] + grid[t % 2][i + 1]);
        #pragma omp single
        grid[(t + 1) % 2][0] = grid[(t + 1) % 2][999] = t;
        #pragma omp barrier
    }
    double s = 0.0;
    for (int i = 0; i < 1000; i++)
        s += grid[0][i] * (1 + i % 7);
    printf("%.12e %.12e %d\n", chain[199], s, misaligned);
    return 0;
}
"""

#: a chain of tasks that needs its depend clauses, without them
UNORDERED = r"""
#include <stdio.h>
static unsigned long chain[300]; /* unsigned: wraps, no overflow */
int main(void)
{
    #pragma omp parallel
    #pragma omp single
    for (int k = 1; k < 300; k++) {
        #pragma omp task
        chain[k] = chain[k - 1] * 3 + k;
    }
    unsigned long s = 0;
    for (int k = 0; k < 300; k++)
        s = s * 7 + chain[k];
    printf("%lu\n", s);
    return 0;
}
"""


def _builds(tmp_path, text: str):
    (tmp_path / "prog.c").write_text(text)
    serial = compile(BuildPlan(sources=["prog.c"], output="serial", cflags=["-O2"]), tmp_path)
    plan = BuildPlan(sources=["prog.c"], output="prog", cflags=["-O2", "-fopenmp"], ldflags=["-fopenmp"])
    amplified = compile(jittered(plan), tmp_path)
    return run(serial.binary).stdout, amplified


def test_the_plan_links_the_shim_with_the_entry_points_wrapped():
    plan = jittered(BuildPlan(sources=["prog.c"], output="prog", ldflags=["-fopenmp"]))
    assert plan.output == "prog_jitter"
    assert [str(s.path) for s in plan.sources] == ["prog.c", "passman_jitter.c"]
    assert "__wrap_GOMP_task" in plan.extra_files["passman_jitter.c"]
    assert plan.ldflags[-1] == "-Wl," + ",".join(f"--wrap={name}" for name in WRAPPED)
    sequential = jittered(BuildPlan(sources=["prog.c"], output="prog"))  # nothing to wrap: renamed only
    assert sequential.output == "prog_jitter" and [str(s.path) for s in sequential.sources] == ["prog.c"]
    assert not sequential.extra_files and not sequential.ldflags


@pytest.mark.parametrize("shift", [0, 2])
def test_a_rightly_synchronised_program_prints_the_same_under_the_amplifier(tmp_path, shift):
    expected, amplified = _builds(tmp_path, RIGHT)
    assert expected.endswith(" 0\n")
    for threads in (1, 2, 4):
        got = run(amplified.binary, env={**os.environ, **jitter_env(seed=threads, shift=shift),
                                         "OMP_NUM_THREADS": str(threads)})  # fmt: skip
        assert got.returncode == 0, got.stderr
        assert got.stdout == expected, f"{threads} threads, shift {shift}"


def test_tasks_without_their_edges_still_race_under_the_amplifier(tmp_path):
    expected, amplified = _builds(tmp_path, UNORDERED)
    outputs = {
        run(amplified.binary, env={**os.environ, **jitter_env(seed=s, shift=0), "OMP_NUM_THREADS": "4"}).stdout
        for s in range(3)
    }
    assert outputs - {expected}, "every task ran in creation order under the amplifier"
