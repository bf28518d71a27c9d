"""Differential runs of the corpus's time-iterated stencils, for the time tiling tests.

A copy of a corpus stencil with its ``#define`` sizes rewritten, a
transformation of its kernel, then the transformed program built by the
OpenMP backend and run at several thread counts (and at the most, linked
with the race amplifier of :mod:`passman.jitter`): each run must print
exactly what the original prints (time tilings keep every point's
expression and inputs, so bit-identical output is the oracle).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from conftest import CORPUS

from passman import Module, Workspace
from passman.builder import compile, run
from passman.jitter import jitter_env, jittered
from passman.testing import reference_output

#: corpus stencil -> (kernel function, the #define of its space extent)
STENCILS = {
    "jacobi_1d": ("kernel_jacobi_1d", "N"),
    "jacobi_2d": ("kernel_jacobi_2d", "N"),
    "jacobi_2d_9pt": ("kernel_jacobi_2d_9pt", "N"),
    "heat_3d": ("kernel_heat_3d", "N"),
    "fdtd_2d": ("kernel_fdtd_2d", "NY"),
    "seidel_2d": ("kernel_seidel_2d", "N"),
}


def stencil_program(tmp_path: Path, name: str, sizes: int | dict[str, int] | None) -> Path:
    """A copy of corpus stencil ``name``: its space extent (an int) or the ``#define`` sizes given rewritten."""
    text = (CORPUS / f"{name}.c").read_text()
    given = {STENCILS[name][1]: sizes} if isinstance(sizes, int) else sizes or {}
    for macro, value in given.items():
        text = re.sub(rf"#define {macro} \d+", f"#define {macro} {value}", text)
    path = tmp_path / f"{name}.c"
    path.write_text(text)
    return path


def same_output(tmp_path: Path, name: str, sizes: int | dict[str, int] | None,
                transform: Callable[[Module], object], opt: str = "-O2",
                threads: Sequence[int] = (1, 2, 4)) -> Workspace:  # fmt: skip
    """Transform the kernel of a sized copy, build it (``opt``, ``-fopenmp``), run it at each thread count
    and assert that it prints what the original prints; the workspace."""
    src = stencil_program(tmp_path, name, sizes)
    return _runs_as_before(tmp_path, src, STENCILS[name][0], transform, opt, threads, f"{name} {sizes}")


def program_same_output(tmp_path: Path, name: str, text: str, function: str,
                        transform: Callable[[Module], object], opt: str = "-O2",
                        threads: Sequence[int] = (1, 2, 4)) -> Workspace:  # fmt: skip
    """The C program ``text`` (file ``name``) with ``function`` transformed, built (``opt``,
    ``-fopenmp``) and run at each thread count: it must print what the original prints; the workspace."""
    src = tmp_path / name
    src.write_text(text)
    return _runs_as_before(tmp_path, src, function, transform, opt, threads, name)


def _runs_as_before(tmp_path: Path, src: Path, function: str, transform: Callable[[Module], object], opt: str,
                    threads: Sequence[int], label: str) -> Workspace:  # fmt: skip
    """... and once more at the most threads, linked with the race amplifier (passman.jitter)."""
    ws = Workspace(src)
    transform(ws[function])
    plan = ws.render("openmp", tmp_path / "out", opt=opt)
    built = compile(plan, tmp_path / "out")
    amplified = compile(jittered(plan), tmp_path / "out")
    ref = reference_output([src])
    runs = [(n, built.binary, {}) for n in threads]
    if max(threads) > 1:
        runs.append((max(threads), amplified.binary, jitter_env(seed=len(label))))
    for n, binary, extra in runs:
        got = run(binary, env={**os.environ, **extra, "OMP_NUM_THREADS": str(n)}, timeout=120)
        assert got.returncode == 0, got.stderr
        assert got.stdout == ref.stdout, f"{label} with {n} threads{' (jittered)' if extra else ''}"
    return ws
