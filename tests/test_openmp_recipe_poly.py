"""The ``openmp`` recipe with the polyhedral scheduler: ``auto_schedule``, else the coarse-grain path.

The oracle is the one of ``test_openmp.py``: every corpus program through
the recipe (``poly`` on, the default), built by the OpenMP backend at
``-O1``, prints with ``OMP_NUM_THREADS=1`` and ``2`` what the original
prints; exactly, unless an OpenMP reduction reorders a floating-point sum
(then within ``rtol=atol=1e-6``). ``auto_schedule`` itself keeps the order
of the updates of every memory location (reductions are dependences to
it), so it needs no tolerance. The recipe's options (``poly``, ``tile``,
``fusion``, ``tile_sizes``, ``wavefront``) reach the pass from the command
line (``--set``): the workspace history records the arguments each pass got.
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path

import pytest
from conftest import corpus_programs, program_id
from test_openmp import RTOL, floating_reductions, omp_pragmas, run_threads

from passman import InvalidInput, Workspace
from passman.cli import main as cli
from passman.recipe import load_recipe
from passman.registry import REGISTRY
from passman.testing import outputs_match, reference_output

try:  # the scheduler registers itself when passes/poly imports it; import it here too
    importlib.import_module("passman.passes.poly.schedule")
except ModuleNotFoundError:  # pragma: no cover - not there yet: the recipe skips it
    pass

PROGRAMS = corpus_programs()
CORPUS = Path(__file__).resolve().parent / "corpus"
needs_scheduler = pytest.mark.skipif(
    "auto_schedule" not in REGISTRY.passes, reason="auto_schedule is not registered"
)


@cache
def scheduled(name: str) -> Workspace:
    """A corpus program after the ``openmp`` recipe with ``poly`` on (shared: do not modify it)."""
    files = next(p for p in PROGRAMS if program_id(p) == name)
    ws = Workspace(*files)
    load_recipe("openmp").main(ws, poly=True, program_work=0)  # the schedules at the corpus's small sizes
    return ws


def applied(ws: Workspace, pass_name: str) -> list:
    """The history steps of ``pass_name`` (applied or refused)."""
    return [s for s in ws.history if s.pass_name == pass_name]


# ---------------------------------------------------------------------------- differential


#: programs auto_schedule takes too long on for the suite (none since the recipe schedules
#: before propagating constants: isl took minutes on heat_3d's constant-size boxes)
SLOW: dict[str, str] = {}


@needs_scheduler
@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.skip(reason=SLOW[n])) if n in SLOW else n
        for n in (program_id(p) for p in PROGRAMS)
    ],
)
def test_corpus_program_prints_the_same_through_the_poly_recipe(name, tmp_path):
    ws = scheduled(name)
    files = next(p for p in PROGRAMS if program_id(p) == name)
    built = ws.build("openmp", tmp_path / "out", opt="-O1", cflags=["-DPASSMAN_THREADS_AFTER=0"])
    ref = reference_output(files)
    tol = RTOL if floating_reductions(ws) else 0.0
    for threads in (1, 2):
        got = run_threads(built.binary, threads)
        assert got.returncode == ref.returncode, got.stderr
        assert outputs_match(ref.stdout, got.stdout, rtol=tol, atol=tol), (
            f"{name} with {threads} thread(s) prints {got.stdout!r}, the original {ref.stdout!r}"
        )


@needs_scheduler
@pytest.mark.parametrize(
    "name, function, parallel",
    [
        ("gemm", "kernel_gemm", True),
        ("syrk", "kernel_syrk", True),
        ("lu", "kernel_lu", True),
        ("seidel_2d", "kernel_seidel_2d", False),  # a wavefront: parallel when ompify proves it
    ],
)
def test_the_scheduler_transforms_the_matrix_products_and_stencils(name, function, parallel):
    ws = scheduled(name)
    steps = [s for s in applied(ws, "auto_schedule") if s.target == ("module", function)]
    assert steps and steps[0].changed, steps
    assert "for (int c0 = " in ws[function].code
    if parallel:
        assert omp_pragmas(ws[function]), f"{name}: no OpenMP pragma in {function}"


@needs_scheduler
def test_jacobi_time_loop_gets_the_transposed_layout():
    ws = scheduled("jacobi_1d")  # 1-D steps in the cache: dlt, one region (2-D ones: the coarse-grain path)
    steps = [s for s in applied(ws, "auto_schedule") if s.target == ("module", "kernel_jacobi_1d")]
    assert steps and steps[0].changed, steps  # (tests/test_recipe_time_tiling.py, tests/test_dlt.py)
    assert "passman_dlt_" in ws["kernel_jacobi_1d"].code and "omp task" not in ws["kernel_jacobi_1d"].code


# ---------------------------------------------------------------------------- fallback

MIXED = """\
#include <stdio.h>
#define N 64
#define M 6000

static double half(double x) { return 0.5 * x + 1.0; }

static void kernel(int n, int m, double a[N][N], double b[N][N], double v[M], double w[M])
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            b[i][j] = 2.0 * a[j][i];
    for (i = 0; i < m; i++) {  /* a while loop: no static control part */
        double x = half(v[i]);
        int k = 0;
        while (x > 1.0) {
            x = x / 2.0;
            k++;
        }
        w[i] = x + k;
    }
}

static double a[N][N], b[N][N], v[M], w[M];

int main(void)
{
    int i, j;
    double s = 0.0;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            a[i][j] = (double)((i * 7 + j * 3) % 11);
    for (i = 0; i < M; i++)
        v[i] = (double)(i % 13);
    kernel(N, M, a, b, v, w);
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            s += b[i][j] * (i - j);
    for (i = 0; i < M; i++)
        s += w[i] * (i % 5);
    printf("%.6f\\n", s);
    return 0;
}
"""


@needs_scheduler
def test_a_scheduled_function_keeps_its_other_loops_and_its_output(write_c, tmp_path):
    src = write_c(MIXED)
    ws = Workspace(src)
    load_recipe("openmp").main(ws, tile_sizes="16,16", program_work=0)
    code = ws["kernel"].code
    assert "c0 += 16" in code, code  # the transposition is tiled by auto_schedule
    pragmas = [p for p in omp_pragmas(ws["kernel"]) if p.startswith("omp parallel")]
    assert len(pragmas) == 1, code  # the tile loop; the function's other loops stay as they are
    assert "for (i = 0; i < 6000; i++)" in code, code  # (the recipe skips the coarse path here)
    built = ws.build("openmp", tmp_path / "out", opt="-O1", cflags=["-DPASSMAN_THREADS_AFTER=0"])
    ref = reference_output([src])
    for threads in (1, 2):
        assert run_threads(built.binary, threads).stdout == ref.stdout


def test_poly_false_is_the_coarse_grain_path(write_c):
    src = write_c(MIXED)
    ws = Workspace(src)
    load_recipe("openmp").main(ws, poly=False, program_work=0)
    assert not applied(ws, "auto_schedule")
    assert "c0" not in ws["kernel"].code
    assert len(omp_pragmas(ws["kernel"])) == 2


# ---------------------------------------------------------------------------- options


def auto_schedule_steps(capfd) -> list[str]:
    """The ``auto_schedule`` lines of the history the CLI prints with ``--verbose``."""
    err = capfd.readouterr().err
    return [line for line in err.splitlines() if line.startswith("auto_schedule(")]


@needs_scheduler
def test_cli_options_reach_auto_schedule(tmp_path, capfd):
    src = CORPUS / "jacobi_1d.c"
    sets = ["tile=false", "fusion=none", "wavefront=false", "tile_sizes=8,8"]
    args = ["--verbose", "run", "openmp", str(src), "-o", str(tmp_path / "out")]
    assert cli([*args, *[x for s in sets for x in ("--set", s)]]) == 0
    steps = auto_schedule_steps(capfd)
    assert steps
    for step in steps:
        assert "tile=False" in step and "fusion='none'" in step, step
        assert "wavefront=False" in step and "tile_sizes='8,8'" in step, step
    # the default options stay unset (a property, not an option, forces jacobi's wavefront)
    assert cli([*args, "--set", "tile_sizes=8,8", "--set", "auto_schedule_force_wavefront=true"]) == 0
    steps = auto_schedule_steps(capfd)
    for step in steps:
        assert "tile_sizes='8,8'" in step, step
        assert all(f"{k}=" not in step for k in ("tile", "fusion", "wavefront")), step
    text = (tmp_path / "out" / "jacobi_1d.c").read_text()
    assert "c1 += 8" in text, text  # tiles of 8: a wavefront of tiles


@needs_scheduler
def test_cli_poly_false_does_not_call_the_scheduler(tmp_path, capfd):
    src = CORPUS / "gemm.c"
    args = [
        "--verbose",
        "run",
        "openmp",
        str(src),
        "-o",
        str(tmp_path / "out"),
        "--set",
        "poly=false",
    ]
    assert cli(args) == 0
    assert not auto_schedule_steps(capfd)
    assert "#pragma omp parallel for" in (tmp_path / "out" / "gemm.c").read_text()


def test_a_bad_fusion_option_is_refused(write_c, capfd):
    src = write_c(MIXED)
    ws = Workspace(src)
    before = ws["kernel"].code
    with pytest.raises(InvalidInput, match="fusion must be smart, none or max"):
        load_recipe("openmp").main(ws, fusion="most")
    assert ws["kernel"].code == before
    assert cli(["run", "openmp", str(src), "--set", "fusion=most"]) != 0
    assert "fusion must be smart, none or max" in capfd.readouterr().err
