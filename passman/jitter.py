"""A race amplifier for differential runs of OpenMP programs (tests and the fuzzer's oracle).

On a machine of two cores the threads of an OpenMP program run nearly in
step: a task that starts before its predecessor ends (a missing ``depend``
edge), or a loop that reads what another thread has not written yet (a
missing barrier), seldom shows in its output. :func:`jittered` turns a
build plan into one linked with ``backends/runtime/passman_jitter.c``,
whose wrappers of libgomp's entry points (``-Wl,--wrap=...``, GNU ld) sleep
for a random while where a thread starts work (a task, a parallel region,
after a barrier or a ``single``), so that other orders happen::

    plan = ws.render("openmp", folder)
    result = compile(jittered(plan), folder)
    run(result.binary, env={**os.environ, **jitter_env(seed=3), "OMP_NUM_THREADS": "4"})

Measured (2026-11-28, 20 runs each, on two cores): a diamond-tiled shift
stencil with one of its two ``depend(in:)`` directions dropped printed a
wrong result in 20 and 15 runs at 2 threads without the shim, 7 and 2 at 4
threads, 20 and 20 at 4 threads with it; ``dlt``'s region with a barrier
dropped, 20 of 20 in every way. A program whose synchronisation is right
prints the same with or without it.
"""

from __future__ import annotations

import dataclasses
from importlib import resources

from .builder import BuildPlan, SourceFile

#: libgomp's entry points the shim wraps
WRAPPED = ("GOMP_task", "GOMP_parallel", "GOMP_barrier", "GOMP_single_start", "omp_get_thread_num")
#: the shim's file name in the build folder
SHIM = "passman_jitter.c"


def shim_text() -> str:
    """The shim's C source (package data of ``passman.backends.runtime``)."""
    return resources.files("passman.backends.runtime").joinpath(SHIM).read_text()


def jittered(plan: BuildPlan, output: str | None = None) -> BuildPlan:
    """A copy of ``plan`` that also compiles the shim and links with libgomp's entry points wrapped.

    The executable is ``output`` (default: the plan's, with ``_jitter`` added), beside the plan's
    own; the plan's C compiler compiles the shim, GNU ld links. A plan without OpenMP (no
    ``-fopenmp``, no ``-lgomp``: nothing to wrap) is only renamed.
    """
    output = output or f"{plan.output}_jitter"
    if not any(flag in ("-fopenmp", "-lgomp") for flag in (*plan.cflags, *plan.ldflags, *plan.libs)):
        return dataclasses.replace(plan, output=output)
    return dataclasses.replace(
        plan,
        sources=[*plan.sources, SourceFile(SHIM)],
        output=output,
        ldflags=[*plan.ldflags, "-Wl," + ",".join(f"--wrap={name}" for name in WRAPPED)],
        extra_files={**plan.extra_files, SHIM: shim_text()},
    )


def jitter_env(seed: int, shift: int = 2) -> dict[str, str]:
    """The environment of a jittered run: its seed, and one call delayed in ``2 ** shift``."""
    return {"PASSMAN_JITTER_SEED": str(seed), "PASSMAN_JITTER_SHIFT": str(shift)}
