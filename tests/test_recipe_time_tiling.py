"""The ``openmp`` recipe picks ``time_tile``'s stencil tilings (``auto_schedule``, issue 18 item 5).

``auto_schedule`` gives diamond time tiles to a time loop of parallel steps
with enough work (:mod:`passman.passes.poly.time_tiling_choice`): static
fronts when the data do not fit in the last-level cache; in it (the corpus
sizes) the transposed layout (``dlt``: one region, the sweeps shared out) for
1-D steps, the coarse-grain path for 2-D and 3-D ones; forced diamond tiles
in the cache are OpenMP tasks. Gauss-Seidel gets skewed tiles with static fronts, gemm is untouched, a
refusal of ``time_tile`` leaves the part to isl's path, and the properties
``auto_schedule_time_tiling`` / ``auto_schedule_time_tiling_schedule`` override
the choice, from the command line too. The oracle is the original program's
output, at 1, 2 and 4 threads.
"""

from __future__ import annotations

import re
from functools import cache

import pytest
from conftest import CORPUS
from passman.passes.manifest import PASSES, PROPERTIES
from stencil_runs import same_output as stencil_same_output
from stencil_runs import stencil_program
from test_openmp import RTOL, floating_reductions, run_threads

from passman import InvalidInput, PassFailed, Workspace
from passman.cli import main as cli
from passman.recipe import load_recipe
from passman.registry import REGISTRY, type_name
from passman.testing import outputs_match, reference_output

TRANSPOSED = ["jacobi_1d"]
COARSE_IN_CACHE = ["jacobi_2d", "jacobi_2d_9pt", "heat_3d", "fdtd_2d"]


@cache
def recipe(name: str, **props: str) -> Workspace:
    """A corpus program after the ``openmp`` recipe, with properties set (shared: do not modify it)."""
    ws = Workspace(str(CORPUS / f"{name}.c"))
    for key, value in props.items():
        setattr(ws.props, key, value)
    load_recipe("openmp").main(ws)
    return ws


def same_output(ws: Workspace, name: str, tmp_path, threads=(1, 2, 4)) -> None:
    built = ws.build("openmp", tmp_path / "out", opt="-O1")
    ref = reference_output([CORPUS / f"{name}.c"])
    tol = RTOL if floating_reductions(ws) else 0.0
    for n in threads:
        got = run_threads(built.binary, n)
        assert got.returncode == ref.returncode, got.stderr
        assert outputs_match(ref.stdout, got.stdout, rtol=tol, atol=tol), (
            f"{name} with {n} thread(s) prints {got.stdout!r}, the original {ref.stdout!r}"
        )


@pytest.mark.parametrize("name", TRANSPOSED)
def test_1d_steps_in_the_cache_get_the_transposed_layout_and_print_the_same(name, tmp_path):
    ws = recipe(name)
    code = ws[f"kernel_{name}"].code
    assert "passman_dlt_" in code and "#pragma omp for schedule(static) nowait" in code, code
    assert "omp task" not in code, code  # no time tiles
    assert re.search(r"#pragma omp parallel\n\s*for \(long passman_t", code), code  # one region, the time loop in it
    same_output(ws, name, tmp_path)


@pytest.mark.parametrize("name", TRANSPOSED)
def test_forced_diamond_tiles_in_the_cache_are_tasks(name, tmp_path):
    ws = recipe(name, auto_schedule_time_tiling="diamond")
    code = ws[f"kernel_{name}"].code
    assert "#pragma omp task depend(in: passman_tiles[" in code, code
    assert "#pragma omp single" in code and "passman_dlt_" not in code
    same_output(ws, name, tmp_path)


def work_shared(code: str) -> bool:
    """Whether the code has parallel loops: ``omp parallel for``, or ``omp for`` in a region around
    a time loop or a wavefront's fronts (hoist_parallel_regions)."""
    return "#pragma omp parallel for" in code or (
        "#pragma omp for" in code and re.search(r"#pragma omp parallel( private\(|\n)", code) is not None)


@pytest.mark.parametrize("name", COARSE_IN_CACHE)
def test_deeper_steps_in_the_cache_take_the_coarse_grain_path(name, tmp_path):
    ws = Workspace(str(CORPUS / f"{name}.c"))
    load_recipe("openmp").main(ws, min_work=0, region_work=0)  # every parallel loop kept, however small
    code = ws[f"kernel_{name}"].code
    assert "omp task" not in code and "for (int c0" not in code, code  # no time tiles
    assert work_shared(code), code  # the steps' loops, in parallel
    same_output(ws, name, tmp_path)


@pytest.mark.parametrize("name, rows", [("jacobi_2d", 260), ("jacobi_2d_9pt", 300), ("heat_3d", 40)])
def test_long_rows_of_2d_steps_in_the_cache_get_the_transposed_layout(name, rows, tmp_path):
    """Rows of 256 points or more (DLT_MIN_ROW) in a 2-D step: ``dlt``; a 3-D step keeps the coarse path."""
    def schedule(kernel):
        kernel.auto_schedule(cache_size=64 << 20, pragma="omp parallel for")

    sizes = {"N": rows, "TSTEPS": 6}
    if name == "heat_3d":
        ws = Workspace(str(stencil_program(tmp_path, name, sizes)))
        with pytest.raises(PassFailed, match="left to the coarse-grain path"):
            schedule(ws[f"kernel_{name}"])
        return
    ws = stencil_same_output(tmp_path, name, sizes, schedule)
    assert "passman_dlt_" in ws[f"kernel_{name}"].code


@pytest.mark.parametrize("name", COARSE_IN_CACHE)
def test_deeper_steps_out_of_the_cache_get_static_diamond_fronts(name):
    """A 1 KiB last-level cache: no data fit, static fronts of diamond tiles."""
    ws = Workspace(str(CORPUS / f"{name}.c"))
    ws[f"kernel_{name}"].auto_schedule(cache_size=1024, pragma="omp parallel for")
    code = ws[f"kernel_{name}"].code
    assert "omp task" not in code and "#pragma omp parallel for" in code and "for (int c0" in code, code
    step = next(s for s in reversed(ws.history) if s.pass_name == "auto_schedule")
    assert step.changed


def test_seidel_gets_skewed_tiles_with_static_fronts(tmp_path):
    ws = recipe("seidel_2d")
    code = ws["kernel_seidel_2d"].code
    assert "omp task" not in code and "for (int c0" in code, code  # no diamond: not parallel steps
    assert work_shared(code), code
    chosen = Workspace(str(CORPUS / "seidel_2d.c"))
    chosen["kernel_seidel_2d"].auto_schedule()
    forced = Workspace(str(CORPUS / "seidel_2d.c"))
    forced["kernel_seidel_2d"].auto_schedule(time_tiling="skewed", time_tiling_schedule="static")
    plain = Workspace(str(CORPUS / "seidel_2d.c"))
    plain["kernel_seidel_2d"].auto_schedule(time_tiling="off")
    assert chosen["kernel_seidel_2d"].code == forced["kernel_seidel_2d"].code  # time_tile's skewed tiles
    assert plain["kernel_seidel_2d"].code != chosen["kernel_seidel_2d"].code  # not isl's wavefront
    same_output(ws, "seidel_2d", tmp_path)


def test_static_fronts_on_request(tmp_path):
    ws = recipe("jacobi_2d", auto_schedule_time_tiling_schedule="static")
    code = ws["kernel_jacobi_2d"].code
    assert "omp task" not in code and work_shared(code), code
    assert "2 * c" in code or "c0" in code  # the diamond loops
    same_output(ws, "jacobi_2d", tmp_path, threads=(2, 4))


def test_off_restores_the_coarse_grain_path_and_gemm_is_unaffected():
    ws = recipe("jacobi_2d", auto_schedule_time_tiling="off")
    code = ws["kernel_jacobi_2d"].code
    assert "omp task" not in code and "for (int c0" not in code, code
    steps = [s for s in ws.history if s.pass_name == "auto_schedule" and s.target == ("module", "kernel_jacobi_2d")]
    assert steps and not steps[0].changed  # refused: parallel steps inside a time loop
    assert recipe("gemm")["kernel_gemm"].code == recipe("gemm", auto_schedule_time_tiling="off")["kernel_gemm"].code


def test_a_refused_time_tiling_leaves_the_part_to_isl():
    """A diamond is illegal on Gauss-Seidel: time_tile refuses, nothing changes, isl's path follows."""
    forced = Workspace(str(CORPUS / "seidel_2d.c"))
    forced["kernel_seidel_2d"].auto_schedule(time_tiling="diamond")
    plain = Workspace(str(CORPUS / "seidel_2d.c"))
    plain["kernel_seidel_2d"].auto_schedule(time_tiling="off")
    assert forced["kernel_seidel_2d"].code == plain["kernel_seidel_2d"].code


def test_bad_time_tiling_values_are_refused():
    """Refused when set (a keyword argument, ``ws.props``), not inside the recipe."""
    ws = Workspace(str(CORPUS / "jacobi_1d.c"))
    before = ws["kernel_jacobi_1d"].code
    with pytest.raises(InvalidInput, match="auto_schedule_time_tiling: 'hexagon' is not one of auto, off, diamond"):
        ws["kernel_jacobi_1d"].auto_schedule(time_tiling="hexagon")
    with pytest.raises(InvalidInput, match="time_tiling_schedule: 'dynamic' is not one of auto, tasks, static"):
        ws["kernel_jacobi_1d"].auto_schedule(time_tiling_schedule="dynamic")
    with pytest.raises(InvalidInput, match="'bogus' is not one of"):
        ws.props.auto_schedule_time_tiling = "bogus"
    with pytest.raises(InvalidInput, match="'bogus' is not one of"):
        ws.apply("auto_schedule{time_tiling=bogus}")
    assert ws.props.auto_schedule_time_tiling == "auto"
    assert ws["kernel_jacobi_1d"].code == before


@pytest.mark.parametrize(("setting", "listed"), [
    ("auto_schedule_time_tiling=bogus", "auto, off, diamond, skewed"),
    ("auto_schedule_time_tiling_schedule=dynamic", "auto, tasks, static"),
    ("time_tile_shape=hexagon", "auto, diamond, skewed"),
])  # fmt: skip
def test_cli_refuses_a_bad_choice_when_it_is_set(tmp_path, capsys, setting, listed):
    out = tmp_path / "out"
    assert cli(["run", "openmp", "--set", setting, str(CORPUS / "jacobi_1d.c"), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    name, _, value = setting.partition("=")
    assert f"error: property {name}: '{value}' is not one of {listed}" in err, err
    assert "Traceback" not in err and not out.exists()


def test_every_pass_property_is_in_the_manifest():
    """``--set NAME=...`` finds a property through the manifest before its module is imported."""
    for name, (*_, rows) in PASSES.items():
        for prop, *_ in rows:
            assert prop in PROPERTIES, (name, prop)
    assert PROPERTIES["auto_schedule_force_wavefront"] == "passman.passes.poly.schedule"


def kernel_text(out) -> str:
    """The text of ``kernel_jacobi_1d`` in the output directory ``out``."""
    return (out / "jacobi_1d.c").read_text().split("void kernel_jacobi_1d")[1].split("int main")[0]


def test_cli_sets_the_time_tiling_properties(tmp_path):
    src = str(CORPUS / "jacobi_1d.c")
    out = tmp_path / "static"
    assert cli(["run", "openmp", src, "-o", str(out), "--set", "auto_schedule_time_tiling_schedule=static"]) == 0
    text = kernel_text(out)
    assert "omp task" not in text and work_shared(text), text
    out = tmp_path / "off"
    assert cli(["run", "openmp", src, "-o", str(out), "--set", "auto_schedule_time_tiling=off"]) == 0
    text = kernel_text(out)
    assert "omp task" not in text and "c0" not in text, text
    out = tmp_path / "wavefront"
    assert cli(["run", "openmp", src, "-o", str(out), "--set", "auto_schedule_force_wavefront=true"]) == 0
    text = kernel_text(out)
    assert "omp task" not in text and "for (int c0" in text, text  # isl's wavefront, as forced


def test_an_enumerated_property_lists_its_choices():
    prop = REGISTRY.properties["auto_schedule_time_tiling"]
    assert prop.choices == ("auto", "off", "diamond", "skewed", "split", "hybrid", "balanced", "trapezoid", "dlt")
    assert type_name(prop.type) == "auto|off|diamond|skewed|split|hybrid|balanced|trapezoid|dlt"
    assert prop.convert("skewed") == "skewed"
    assert REGISTRY.properties["auto_schedule_tile"].choices is None


def test_in_place_stencils_are_told_from_other_time_loops():
    """Gauss-Seidel-like parts (2-D in-place steps, uniform direct dependences) and no others."""
    from passman.passes.poly.time_tiling_choice import in_place_time_steps

    def verdict(name: str) -> str | None:
        module = Workspace(str(CORPUS / f"{name}.c"))[f"kernel_{name}"]
        return in_place_time_steps(module.resource("scops")[0], module.resource("dependences"))

    assert "in-place steps of uniform dependences" in verdict("seidel_2d")
    assert verdict("sor_2d") is not None
    for other in ("lu", "cholesky", "floyd_warshall", "nussinov", "jacobi_2d", "heat_3d", "gemm"):
        assert verdict(other) is None, other
    wavefront = Workspace.from_code(
        "void k(int n, double A[n][n], double B[n][n])\n{\n"
        "    for (int i = 1; i < n; i++)\n        for (int j = 1; j < n; j++) {\n"
        "            A[i][j] = A[i - 1][j] + B[i][j - 1];\n            B[i][j] = A[i][j] * 0.5;\n        }\n}\n",
        "k.c")
    part = wavefront["k"].resource("scops")[0]
    assert in_place_time_steps(part, wavefront["k"].resource("dependences")) is None  # steps of one loop
