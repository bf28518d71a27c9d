"""The OpenMP recipe with each of the seeds' tile shapes forced on stencils (``auto_schedule_time_tiling``).

``--set auto_schedule_time_tiling=split|hybrid|trapezoid`` (and ``passman
tune``, which sets the same property) makes ``auto_schedule`` tile the
time loops of the whole recipe with that shape; the program's output stays
the original's at 1, 2 and 4 threads, and the functions a trapezoidal walk
adds stay as their pass made them (no coarse-grain pragmas inside).
"""

from __future__ import annotations

import os

import pytest
from conftest import skip_slow
from stencil_runs import STENCILS, stencil_program

from passman import InvalidInput, Workspace
from passman.builder import run
from passman.recipe import load_recipe
from passman.testing import reference_output

CASES = [
    ("jacobi_1d", "trapezoid", 301),
    ("jacobi_2d", "trapezoid", 37),
    ("heat_3d", "trapezoid", 13),
    ("jacobi_2d", "split", 37),
    ("jacobi_2d_9pt", "hybrid", 29),
    pytest.param("heat_3d", "split", 13, marks=pytest.mark.slow),
    ("jacobi_2d", "balanced", 37),
]


def _recipe(tmp_path, name, shape, size):
    src = stencil_program(tmp_path, name, size)
    ws = Workspace(src)
    ws.props.auto_schedule_time_tiling = shape
    load_recipe("openmp").main(ws, min_work=0)
    return src, ws


@pytest.mark.parametrize("name, shape, size", CASES)
def test_forced_shape_keeps_the_output(tmp_path, request, name, shape, size):
    skip_slow(request)
    src, ws = _recipe(tmp_path, name, shape, size)
    kernel = ws[STENCILS[name][0]].code
    if shape == "trapezoid":
        walks = [m for m in ws.all_functions if m.name.startswith(f"{STENCILS[name][0]}_trapezoid")]
        assert walks, "no trapezoidal walk"
        assert all("omp parallel for" not in m.code for m in walks)  # left as their pass made them
        assert f"{walks[0].name}(" in kernel
    else:
        assert "omp" in kernel and kernel != (src.read_text())
    built = ws.build("openmp", tmp_path / "out", opt="-O2")
    ref = reference_output([src])
    for n in (1, 2, 4):
        got = run(built.binary, env={**os.environ, "OMP_NUM_THREADS": str(n)}, timeout=120)
        assert got.returncode == 0, got.stderr
        assert got.stdout == ref.stdout, f"{name} {shape} with {n} threads"


def test_a_refused_shape_leaves_the_part_to_the_usual_path(tmp_path):
    """Gauss-Seidel has no trapezoidal tiling (its steps are not parallel): isl's path, as before."""
    src, ws = _recipe(tmp_path, "seidel_2d", "trapezoid", 23)
    assert not any("trapezoid" in m.name for m in ws.all_functions)
    plain = Workspace(src)
    load_recipe("openmp").main(plain, min_work=0)
    assert ws[STENCILS["seidel_2d"][0]].code == plain[STENCILS["seidel_2d"][0]].code


def test_unknown_shape_is_refused_when_set(tmp_path):
    ws = Workspace(stencil_program(tmp_path, "jacobi_1d", 64))
    with pytest.raises(InvalidInput, match="trapezoid"):
        ws.props.auto_schedule_time_tiling = "pyramid"


def test_recipe_option_and_command_line(tmp_path):
    """``passman run openmp --set time_tiling=trapezoid`` (a recipe option: what ``passman tune``
    varies) gives the same program as the property; a bad value is one clean error line."""
    from passman.cli import main as cli

    src = stencil_program(tmp_path, "jacobi_1d", 301)
    assert cli(["-q", "run", "openmp", str(src), "-o", str(tmp_path / "a"), "--set", "time_tiling=trapezoid"]) == 0
    assert cli(["-q", "run", "openmp", str(src), "-o", str(tmp_path / "b"),
                "--set", "auto_schedule_time_tiling=trapezoid"]) == 0
    a, b = ((tmp_path / d / "jacobi_1d.c").read_text() for d in "ab")
    assert a == b and "kernel_jacobi_1d_trapezoid(" in a
    ws = Workspace(src)
    with pytest.raises(InvalidInput, match="time_tiling must be one of"):
        load_recipe("openmp").main(ws, time_tiling="pyramid")
