"""What this machine charges an OpenMP program for starting its threads, measured once and kept.

The first parallel region of a run creates the team. On a quiet many-core
host that costs 0.1-0.2 ms; on a 2-vCPU virtual machine with libgomp's
default spinning it costs 2-10 ms (the worker is created on the master's
CPU, and the master spins there until the scheduler moves it). A program
whose regions hold less work than that, at two threads, runs slower in
parallel than sequentially: :func:`passman.passes.parallel.profitability.sequential_program`
keeps it sequential, with a threshold drawn from :func:`team_start_ns`.

:func:`team_start_ns` compiles a probe with the C compiler (``$CC``, else
``cc``; ``-O2 -fopenmp``), runs it :data:`PROBE_RUNS` times with
``OMP_NUM_THREADS=2`` and the caller's ``OMP_*``/``GOMP_*`` settings, and
takes the median wall time of its first parallel region (a region doing
nothing, so all of it is the team's start). The figure is kept in
``$PASSMAN_CACHE_DIR/machine.json`` (else the user cache,
``~/.cache/passman``), keyed by the host, its CPU count, the compiler and
those settings: the probe runs once per machine (about 0.2 s). Where it
cannot run (no compiler, no OpenMP), :data:`DEFAULT_TEAM_START_NS` is used.

``PASSMAN_TEAM_START_NS=<nanoseconds>`` overrides the measurement (the test
suite pins it, so that what the recipe produces does not depend on the
machine the tests run on).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from .fsutil import atomic_write_text, cache_path

__all__ = [
    "DEFAULT_TEAM_START_NS",
    "PROBE_RUNS",
    "cache_file",
    "machine_key",
    "measure_team_start",
    "team_start_ns",
]

#: nanoseconds assumed where the probe cannot run (a quiet host, or ``OMP_WAIT_POLICY=passive``)
DEFAULT_TEAM_START_NS = 200_000
#: process runs of the probe (the median is kept)
PROBE_RUNS = 7
#: bump when the probe or the cache's fields change
VERSION = 1

PROBE_C = r"""
#include <stdio.h>
#include <omp.h>
static volatile double sink[64];
int main(void)
{
    double t0 = omp_get_wtime();
    #pragma omp parallel
    sink[omp_get_thread_num() % 64] += 1.0;
    double t1 = omp_get_wtime();
    printf("%.0f\n", (t1 - t0) * 1e9);
    return 0;
}
"""

_memo: dict[str, int] = {}


def _settings() -> dict[str, str]:
    """The environment settings that change what a team costs."""
    return {k: v for k, v in sorted(os.environ.items())
            if k.startswith(("OMP_", "GOMP_")) and k != "OMP_NUM_THREADS"}  # fmt: skip


def _compiler() -> str | None:
    cc = os.environ.get("CC") or "cc"
    return shutil.which(cc) or shutil.which("gcc")


def machine_key() -> str:
    """What the measurement depends on: host, CPUs, compiler, OpenMP settings."""
    settings = ",".join(f"{k}={v}" for k, v in _settings().items())
    return f"v{VERSION}|{platform.node()}|{os.cpu_count()}|{_compiler()}|{settings}"


def cache_file() -> Path | None:
    """``machine.json`` in passman's cache directory (None: ``PASSMAN_CACHE_DIR`` is empty)."""
    return cache_path("machine.json")


def measure_team_start(runs: int = PROBE_RUNS) -> int | None:
    """Nanoseconds of the probe's first parallel region at two threads (median), None if it cannot run."""
    cc = _compiler()
    if cc is None:
        return None
    with tempfile.TemporaryDirectory(prefix="passman-probe-") as tmp:
        src, exe = Path(tmp) / "probe.c", Path(tmp) / "probe"
        src.write_text(PROBE_C)
        try:
            built = subprocess.run([cc, "-O2", "-fopenmp", str(src), "-o", str(exe)], capture_output=True,
                                   timeout=60)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired):
            return None
        if built.returncode != 0:
            return None
        env = {**os.environ, "OMP_NUM_THREADS": "2"}
        times = []
        for _ in range(runs):
            try:
                out = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=30)
                times.append(float(out.stdout.split()[0]))
            except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
                return None
    return round(statistics.median(times))


def team_start_ns() -> int:
    """Nanoseconds the first parallel region of a run costs at two threads on this machine.

    ``PASSMAN_TEAM_START_NS`` when set; else the cached measurement; else
    :func:`measure_team_start`, kept for the next runs; else
    :data:`DEFAULT_TEAM_START_NS`.
    """
    pinned = os.environ.get("PASSMAN_TEAM_START_NS")
    if pinned:
        try:
            return max(int(pinned), 0)
        except ValueError:
            pass
    key = machine_key()
    if key in _memo:
        return _memo[key]
    path = cache_file()
    stored: dict = {}
    if path is not None:
        try:
            stored = json.loads(path.read_text())
        except (OSError, ValueError):
            stored = {}
        if isinstance(stored.get(key), int):
            _memo[key] = stored[key]
            return stored[key]
    measured = measure_team_start()
    if measured is None:
        _memo[key] = DEFAULT_TEAM_START_NS
        return DEFAULT_TEAM_START_NS
    _memo[key] = measured
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            kept = stored if isinstance(stored, dict) else {}
            atomic_write_text(path, json.dumps({**kept, key: measured}, indent=1) + "\n")
        except OSError:
            pass  # a read-only cache: measured again next time
    return measured
