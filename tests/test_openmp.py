"""OpenMP end to end: parallelizing passes, ompify, the ``openmp`` backend and recipe, the CLI.

The oracle is differential execution: every corpus program, parallelized by
the ``openmp`` recipe and built by the OpenMP backend (``-O1 -fopenmp`` to
keep the suite fast), prints with ``OMP_NUM_THREADS=1`` and ``2`` what the
original prints (built without OpenMP). Exactly, except where a reduction
on a floating-point variable reorders sums: then numbers are compared within
``rtol=1e-6``, ``atol=1e-6`` (the corpus prints 7 significant digits or 6
decimals, so a reordering shows at most in the last digit).
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import pytest
from conftest import THREADS_SEEN_C, corpus_programs, program_id
from passman.passes.analysis.effect_model import function_scope
from passman.passes.parallel.marker import clauses, pragmas_of, split_list
from passman.passes.parallel.ompify import omp_pragma_text
from passman.passes.parallel.parallelize import (
    ParallelMarker,
    has_omp_pragma,
    is_marked_parallel,
    marker,
    why_sequential,
)

from passman import PassFailed, Workspace
from passman.builder import run
from passman.cli import main as cli
from passman.recipe import load_recipe
from passman.testing import outputs_match, reference_output

CORPUS = Path(__file__).resolve().parent / "corpus"
RTOL = ATOL = 1e-6
PROGRAMS = corpus_programs()


@cache
def parallelized(name: str) -> Workspace:
    """A corpus program after the ``openmp`` recipe's coarse-grain path (shared: do not modify it).

    ``poly=False``: without ``auto_schedule`` (tests/test_openmp_recipe_poly.py tests the recipe with it).
    """
    files = next(p for p in PROGRAMS if program_id(p) == name)
    ws = Workspace(*files)
    load_recipe("openmp").main(ws, poly=False, program_work=0)  # the analyses at the corpus's small sizes
    return ws


def sources(name: str) -> list[Path]:
    return next(p for p in PROGRAMS if program_id(p) == name)


def omp_pragmas(module) -> list[str]:
    """The ``#pragma omp`` texts of a function, in source order."""
    from pycparser import c_ast

    from passman.astutil import walk

    return [n.string for n in walk(module.ast) if isinstance(n, c_ast.Pragma) and n.string.startswith("omp")]


def floating_reductions(ws: Workspace) -> bool:
    """Whether some OpenMP reduction clause of the program reduces a floating-point variable."""
    from pycparser import c_ast

    from passman.astutil import walk

    for m in ws.all_functions:
        scope = function_scope(m)
        unit = ws.rm.get("unit_scope", m)
        for text in omp_pragmas(m):
            for name, arg in clauses(text):
                if name != "reduction" or arg is None:
                    continue
                for item in split_list(arg.partition(":")[2]):
                    var = item.split("[")[0].strip()
                    decl = next((d for d in walk(m.ast) if isinstance(d, c_ast.Decl) and d.name == var), None)
                    decl = decl or unit.names.get(var)
                    t = decl.type if isinstance(decl, c_ast.Decl) else None
                    while isinstance(scope.types.unalias(t), (c_ast.ArrayDecl, c_ast.PtrDecl)):
                        t = scope.types.unalias(t).type
                    if scope.types.category(t) in ("float", "unknown"):
                        return True
    return False


def run_threads(binary: Path, threads: int):
    return run(binary, env={**os.environ, "OMP_NUM_THREADS": str(threads)}, timeout=120)


# ---------------------------------------------------------------------------- differential


@pytest.mark.parametrize("name", [program_id(p) for p in PROGRAMS])
def test_corpus_program_prints_the_same_with_1_and_2_threads(name, tmp_path):
    ws = parallelized(name)
    built = ws.build("openmp", tmp_path / "out", opt="-O1", cflags=["-DPASSMAN_THREADS_AFTER=0"])  # threads from the first region on
    ref = reference_output(sources(name))
    tol = RTOL if floating_reductions(ws) else 0.0
    for threads in (1, 2):
        got = run_threads(built.binary, threads)
        assert got.returncode == ref.returncode, got.stderr
        assert outputs_match(ref.stdout, got.stdout, rtol=tol, atol=tol), (
            f"{name} with {threads} thread(s) prints {got.stdout!r}, the original {ref.stdout!r}"
        )


def test_the_corpus_gets_parallel_loops():
    total = sum(len(omp_pragmas(m)) for p in PROGRAMS for m in parallelized(program_id(p)).all_functions)
    assert total >= 80  # every kernel program has some; see the verdict tests for which


# ---------------------------------------------------------------------------- verdicts


def outer(ws: Workspace, function: str) -> list:
    return ws[function].loops()


@pytest.mark.parametrize(
    "name, function, count",
    [
        ("matmul_global", "matmul", 1),
        ("gemm", "kernel_gemm", 1),
        ("two_mm", "kernel_2mm", 2),
        ("mvt", "kernel_mvt", 2),
        ("gemver", "kernel_gemver", 3),
        ("syrk", "kernel_syrk", 1),
        ("atax", "kernel_atax", 1),
        ("bicg", "kernel_bicg", 1),
    ],
)
def test_matrix_products_and_matrix_vector_kernels_get_a_parallel_outer_loop(name, function, count):
    ws = parallelized(name)
    nests = [lp for lp in outer(ws, function) if lp.loops()]  # the 2-D nests (gemver also adds vectors)
    assert len(nests) == count
    for loop in nests:
        assert has_omp_pragma(loop), why_sequential(loop)
        assert loop.pragma[-1].startswith("omp parallel for")


@pytest.mark.parametrize("name, vector", [("atax", "y[0:410]"), ("bicg", "s[0:390]")])
def test_transposed_matrix_vector_kernels_reduce_the_vector_in_parallel(name, vector):
    ws = parallelized(name)
    texts = omp_pragmas(ws[f"kernel_{name}"])
    assert any(f"reduction(+:{vector})" in t for t in texts), texts


def test_reductions_on_sections_of_unknown_size_get_a_sequential_version(write_c, tmp_path):
    src = CORPUS / "atax.c"
    ws = Workspace(src)
    load_recipe("openmp").main(ws, constants=False, poly=False, program_work=0)  # n stays a parameter: yv[0:n]
    kernel = ws["kernel_atax"]
    assert any("reduction(+:yv[0:n])" in t for t in omp_pragmas(kernel))
    # each thread's private copy lives on its stack: a sequential version runs for huge vectors
    assert "if (n >= 0 && (long)n <= 131072L) {" in kernel.code
    built = ws.build("openmp", tmp_path / "out", opt="-O1")
    assert outputs_match(reference_output([src]).stdout, run_threads(built.binary, 2).stdout, RTOL, ATOL)


@pytest.mark.parametrize(
    "name, function",
    [("jacobi_1d", "kernel_jacobi_1d"), ("jacobi_2d", "kernel_jacobi_2d"), ("heat_3d", "kernel_heat_3d"),
     ("fdtd_2d", "kernel_fdtd_2d")],
)
def test_jacobi_stencils_get_parallel_space_loops_inside_the_sequential_time_loop(name, function):
    ws = parallelized(name)
    (time_loop,) = outer(ws, function)
    # no work-sharing pragma: at most the region every step's loops share (hoist_parallel_regions)
    assert all(p.string.split() and "for" not in p.string.split() for p in pragmas_of(time_loop))
    assert "is not parallel" in why_sequential(time_loop)
    space = [lp for lp in time_loop.loops() if lp.loops() or name == "jacobi_1d"]  # the sweeps
    assert len(space) >= 2
    # at the corpus's sizes a sweep does less work than a fork/join at every time step costs
    # (tests/test_profitability.py): sequential, saying so; with the guard lifted, parallel
    for loop in time_loop.loops():
        assert has_omp_pragma(loop) or "too little work" in why_sequential(loop)
        assert has_omp_pragma(loop) or "parallel_region_work" in why_sequential(loop)
    lifted = Workspace(*sources(name))
    load_recipe("openmp").main(lifted, poly=False, region_work=0)
    (time_loop,) = outer(lifted, function)
    space = [lp for lp in time_loop.loops() if lp.loops() or name == "jacobi_1d"]
    for loop in space:
        assert has_omp_pragma(loop), why_sequential(loop)


def test_in_place_gauss_seidel_gets_no_pragma():
    ws = parallelized("seidel_2d")
    kernel = ws["kernel_seidel_2d"]
    assert omp_pragmas(kernel) == []
    for loop in kernel.all_loops:
        assert "is not parallel" in why_sequential(loop)


def test_dot_products_and_min_max_get_reduction_clauses():
    ws = parallelized("dot")
    assert omp_pragmas(ws["dot"]) == ["omp parallel for reduction(+:s)"]
    assert omp_pragmas(ws["vmax"]) == ["omp parallel for reduction(max:m)"]
    assert omp_pragmas(ws["vmin"]) == ["omp parallel for reduction(min:m)"]
    assert omp_pragmas(ws["isum"]) == ["omp parallel for reduction(+:s)"]
    assert omp_pragmas(ws["argmax_abs"]) == []  # an argmax is not a reduction OpenMP knows


def test_histogram_by_reduction_gets_an_array_section_reduction():
    ws = parallelized("histogram")
    texts = omp_pragmas(ws["compute_histogram"])
    assert "omp parallel for reduction(+:hist[0:256])" in texts  # h is always the global hist
    # without constant propagation, the pointer formal h gets the extent of what the calls pass
    plain = Workspace(*sources("histogram"))
    load_recipe("openmp").main(plain, constants=False, poly=False, program_work=0)
    # n is a parameter there: the profitability model's run-time test (tests/test_profitability.py)
    assert "omp parallel for reduction(+:h[0:256]) if((long)n * 2 >= 2000)" in omp_pragmas(plain["compute_histogram"])
    # w is a malloc'd block: its extent is unknown, no array section can hold it
    (_, accumulate) = ws["weighted_histogram"].loops()
    assert not has_omp_pragma(accumulate)
    assert "extent of w is unknown" in why_sequential(accumulate)


def test_every_loop_left_sequential_says_why():
    for files in PROGRAMS:
        ws = parallelized(program_id(files))
        for m in ws.all_functions:
            for loop in m.all_loops:
                if has_omp_pragma(loop):
                    assert why_sequential(loop) is None
                    continue
                why = why_sequential(loop)
                assert why and loop.label in why, (m.name, loop.label)


PRINTF_LOOP = """\
#include <stdio.h>
int a[100];
void show(void)
{
    for (int i = 0; i < 100; i++)
        printf("%d\\n", a[i]);
}
int main(void)
{
    for (int i = 0; i < 100; i++)
        a[i] = i * i;
    show();
    return 0;
}
"""


def test_a_loop_calling_printf_stays_sequential(write_c):
    ws = Workspace(write_c(PRINTF_LOOP))
    before = ws["show"].code
    with pytest.raises(PassFailed, match="stdio"):
        ws["show"].coarse_grain_parallelization_with_reduction(min_work=0)
    assert ws["show"].code == before  # refused: unchanged
    load_recipe("openmp").main(ws, min_work=0, poly=False)
    (fill,) = ws["main"].loops()
    (show,) = ws["show"].loops()
    assert has_omp_pragma(fill)
    assert not has_omp_pragma(show)
    assert "printf writes the stdio state" in show.why_not_parallel()
    assert "printf writes the stdio state" in why_sequential(show)


# ---------------------------------------------------------------------------- the passes

SMALL = """\
#include <stdio.h>
#define N 8
double a[N], b[N];
double A[300][300], B[300][300], C[300][300];
int main(void)
{
    int i, j, k;
    for (i = 0; i < N; i++)
        a[i] = i;
    for (i = 0; i < 300; i++)
        for (j = 0; j < 300; j++) {
            double s = 0.0;
            for (k = 0; k < 300; k++)
                s += A[i][k] * B[k][j];
            C[i][j] = s;
        }
    for (i = 1; i < N; i++)
        b[i] = b[i - 1] + a[i];
    printf("%f %f\\n", b[N - 1], C[1][2]);
    return 0;
}
"""


def test_profitability_guard_keeps_small_loops_sequential(write_c):
    ws = Workspace(write_c(SMALL))
    main = ws["main"]
    main.coarse_grain_parallelization()
    small, product, scan = main.loops()
    assert not is_marked_parallel(small)
    assert "too little work" in why_sequential(small) and "16 statement execution(s)" in why_sequential(small)
    assert is_marked_parallel(product)
    assert marker(product).private == ("i", "j", "k")  # the index too: declared outside the loop
    assert not is_marked_parallel(scan)
    # the guard is a property: with no threshold the small loop is parallel too
    ws2 = Workspace(write_c(SMALL, "t2.c"), parallel_min_work=0)
    ws2["main"].coarse_grain_parallelization()
    assert is_marked_parallel(ws2["main"].loops()[0])


CHANNELS = """\
#include <stdio.h>
double img[3][400][400], out[3][400][400];
int main(void)
{
    int c, i, j;
    for (c = 0; c < 3; c++)
        for (i = 0; i < 400; i++)
            for (j = 0; j < 400; j++)
                img[c][i][j] = (c + i * j) % 11;
    for (c = 0; c < 3; c++)
        for (i = 1; i < 399; i++)
            for (j = 0; j < 400; j++)
                out[c][i][j] = img[c][i - 1][j] + img[c][i + 1][j];
    printf("%.1f\\n", out[2][7][9]);
    return 0;
}
"""


def test_ompify_collapses_short_perfect_nests_but_never_the_innermost_loop(write_c, tmp_path):
    src = write_c(CHANNELS)
    ws = Workspace(src)
    main = ws["main"]
    main.coarse_grain_parallelization()  # j alone (400 statements) is under the guard
    main.ompify_code()
    for nest in main.loops():  # 3 channels: too few iterations for 2 threads and more
        assert nest.pragma == ["omp parallel for private(j) collapse(2)"]  # i: collapsed index
        (rows,) = nest.loops()
        assert rows.pragma == [] and rows.loops()[0].pragma == []
    built = ws.build("openmp", tmp_path / "out", opt="-O1")
    assert run_threads(built.binary, 2).stdout == reference_output([src]).stdout
    # a long outer loop is enough alone: the product of SMALL is not collapsed
    ws2 = Workspace(write_c(SMALL, "t2.c"))
    ws2["main"].coarse_grain_parallelization()
    ws2["main"].ompify_code()
    product = ws2["main"].loops()[1]
    assert product.pragma == ["omp parallel for private(j, k)"]
    assert product.loops()[0].pragma == ["omp parallel for private(k)"]  # nested: merge it
    ws2["main"].omp_merge_pragma()
    assert product.loops()[0].pragma == []
    assert product.pragma == ["omp parallel for private(j, k)"]
    # without collapsing, the short nest keeps one pragma per loop level (then limited)
    ws3 = Workspace(write_c(CHANNELS, "t3.c"))
    ws3["main"].coarse_grain_parallelization()
    ws3["main"].ompify_code(collapse=False)
    assert ws3["main"].loops()[0].pragma == ["omp parallel for private(i, j)"]


def test_limit_nested_parallelism_keeps_the_outermost_region(write_c):
    code = """\
double C[200][200], A[200][200], B[200][200];
void gemm(void)
{
    int i, j, k;
    for (i = 0; i < 200; i++)
        for (k = 0; k < 200; k++)
            for (j = 0; j < 200; j++)
                C[i][j] += A[i][k] * B[k][j];
}
"""
    ws = Workspace(write_c(code))
    f = ws["gemm"]
    f.coarse_grain_parallelization(min_work=0)  # j alone (200 statements) is under the default guard
    (i,) = f.loops()
    (k,) = i.loops()
    (j,) = k.loops()
    assert is_marked_parallel(i) and not is_marked_parallel(k) and is_marked_parallel(j)
    f.limit_nested_parallelism()
    assert is_marked_parallel(i) and not is_marked_parallel(j)
    with pytest.raises(PassFailed):
        f.limit_nested_parallelism()
    f.ompify_code()
    assert i.pragma == ["omp parallel for private(j, k)"]


def test_ompify_never_emits_a_pragma_the_analysis_does_not_prove(write_c):
    code = """\
int a[100];
void scan(void)
{
    #pragma passman parallel
    for (int i = 1; i < 100; i++)
        a[i] = a[i - 1] + i;
}
"""
    ws = Workspace(write_c(code))
    (loop,) = ws["scan"].loops()
    assert is_marked_parallel(loop)
    ws["scan"].ompify_code()
    assert loop.pragma == [] and not is_marked_parallel(loop)
    assert any("is marked parallel but is not" in w for w in ws.warnings)


def test_parallelization_refuses_when_nothing_is_parallel(write_c):
    code = """\
int a[100];
void scan(void)
{
    for (int i = 1; i < 100; i++)
        a[i] = a[i - 1] + i;
}
"""
    ws = Workspace(write_c(code))
    before = ws["scan"].code
    for name in ("coarse_grain_parallelization", "coarse_grain_parallelization_with_reduction",
                 "allen_kennedy_parallelization", "ompify_code"):
        with pytest.raises(PassFailed):
            getattr(ws["scan"], name)(min_work=0) if name != "ompify_code" else ws["scan"].ompify_code()
        assert ws["scan"].code == before
    with pytest.raises(PassFailed, match="a\\[i\\] written"):
        ws["scan"].coarse_grain_parallelization(min_work=0)


DISTRIBUTE = """\
#include <stdio.h>
#define N 5000
double a[N], b[N], c[N];
int main(void)
{
    int i;
    for (i = 0; i < N; i++) {
        b[i] = i % 7;
        c[i] = 0.5;
    }
    for (i = 1; i < N; i++) {
        a[i] = b[i] * 2.0 + 1.0;
        c[i] = c[i - 1] * 0.5 + a[i];
    }
    printf("%.6f %.6f\\n", a[N - 1], c[N - 1]);
    return 0;
}
"""


def test_allen_kennedy_distributes_and_parallelizes_the_free_component(write_c, tmp_path):
    src = write_c(DISTRIBUTE)
    ws = Workspace(src)
    main = ws["main"]
    main.coarse_grain_parallelization(min_work=0)
    init, both = main.loops()
    assert is_marked_parallel(init) and not is_marked_parallel(both)
    main.allen_kennedy_parallelization(min_work=0)
    init, free, recurrence = main.loops()
    assert is_marked_parallel(init) and is_marked_parallel(free)
    assert not is_marked_parallel(recurrence)
    assert "c[i - 1]" in why_sequential(recurrence)
    main.ompify_code()
    built = ws.build("openmp", tmp_path / "out", opt="-O1")
    ref = reference_output([src])
    for threads in (1, 2):
        assert run_threads(built.binary, threads).stdout == ref.stdout


def test_marker_text_round_trips():
    m = ParallelMarker(("j", "t"), ("i",), (("+", "s"), ("max", "m"), ("+", "h[0:n]")))
    assert m.text == "passman parallel private(j, t) lastprivate(i) reduction(+:s) reduction(max:m) reduction(+:h[0:n])"
    assert ParallelMarker.parse(m.text) == m
    assert ParallelMarker.parse("omp parallel for") is None
    assert omp_pragma_text(m, 2, ("i", "j")) == (
        "omp parallel for private(t) lastprivate(i) reduction(+:s, h[0:n]) reduction(max:m) collapse(2)"
    )


def test_user_labels_and_loop_pragmas_keep_their_place():
    ws = parallelized("pragmas")
    outer_loop = ws["scale_copy"].loop("outer")
    assert not has_omp_pragma(outer_loop)
    assert "label 'outer:'" in why_sequential(outer_loop)
    (inner,) = outer_loop.loops()
    assert inner.pragma == ["GCC ivdep"]
    # the user's own OpenMP pragmas are kept as they are
    assert omp_pragmas(ws["count_large"]) == ["omp parallel for private(j) reduction(+:cnt)"]


# ---------------------------------------------------------------------------- backend, recipe, CLI


def test_backend_writes_a_makefile_with_openmp_and_opt(tmp_path, write_c):
    ws = Workspace(write_c(SMALL))
    load_recipe("openmp").main(ws)
    out = tmp_path / "out"
    built = ws.build("openmp", out)
    makefile = (out / "Makefile").read_text()
    assert "CFLAGS = -O3 -fopenmp -fipa-pta" in makefile
    # gcc's OpenMP runtime linked in (loading libgomp.so costs each run 0.15-0.3 ms); no libgomp.so needed
    assert "LDLIBS = -lm -Wl,-Bstatic -lgomp -Wl,-Bdynamic" in makefile and "-fopenmp" not in makefile.split(
        "LDFLAGS =")[1].splitlines()[0]
    assert "libgomp.so" not in _needed(built.binary)
    text = (out / "t.c").read_text()
    assert text.startswith("/* t.c: parallelized by passman for OpenMP")
    assert "#include <omp.h>" not in text  # only pragmas: no need for it
    assert run_threads(built.binary, 2).stdout == reference_output([write_c(SMALL, "orig.c")]).stdout
    ws.props.openmp_opt = "-O1 -g"
    ws.build("openmp", out)
    assert "CFLAGS = -O1 -g -fopenmp -fipa-pta" in (out / "Makefile").read_text()


def _needed(binary: Path) -> str:
    """The shared libraries ``binary`` names (readelf's NEEDED entries)."""
    import subprocess

    return subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True, check=True).stdout


THREADS_SEEN = r"""
#include <stdio.h>
#include <string.h>
static double a[200000];
""" + THREADS_SEEN_C + r"""int main(void)
{
    double s = 0.0;
    for (int i = 0; i < 200000; i++)
        a[i] = (i % 13) * 0.25;
    for (int i = 0; i < 200000; i++)
        a[i] = a[i] * a[i] + 1.0;
    for (int i = 0; i < 200000; i++)
        s += a[i];
    printf("%.2f\n", s);
    threads_seen();
    return 0;
}
"""


@pytest.mark.parametrize("link", ["static", "dynamic"])
def test_backend_links_the_openmp_runtime_statically_or_dynamically_and_both_start_threads(tmp_path, write_c, link):
    ws = Workspace(write_c(THREADS_SEEN))
    load_recipe("openmp").main(ws, program_work=0)
    assert "#pragma omp parallel" in ws["main"].code
    built = ws.build("openmp", tmp_path / "out", link=link)
    assert ("libgomp.so" in _needed(built.binary)) == (link == "dynamic")
    for threads in (1, 2):
        got = run_threads(built.binary, threads)
        assert got.stdout == reference_output([write_c(THREADS_SEEN, "orig.c")]).stdout
        assert f"Threads:\t{threads}" in got.stderr, got.stderr  # the runtime reads OMP_NUM_THREADS either way


def test_backend_refuses_an_unknown_link_before_writing_anything(tmp_path, write_c, capsys):
    out = tmp_path / "out"
    rc = cli(["run", "openmp", str(write_c(THREADS_SEEN)), "-o", str(out), "--set", "openmp_link=foo", "--build"])
    err = capsys.readouterr().err
    assert rc != 0 and "error: openmp_link must be static or dynamic, not 'foo'" in err and "Traceback" not in err
    assert not out.exists()


def test_backend_links_the_openmp_runtime_dynamically_next_to_other_libraries(tmp_path, write_c):
    ws = Workspace(write_c(THREADS_SEEN))
    load_recipe("openmp").main(ws, program_work=0)
    ws.build("openmp", tmp_path / "out", libs=["-lm", "-lpthread"])  # a library that may bring its own libgomp
    makefile = (tmp_path / "out" / "Makefile").read_text()
    assert "LDFLAGS = -fopenmp" in makefile and "-lgomp" not in makefile


def test_backend_includes_omp_h_only_for_omp_calls(tmp_path, write_c):
    code = """\
#include <stdio.h>
int omp_get_max_threads(void);
int main(void) { printf("%d\\n", omp_get_max_threads() > 0); return 0; }
"""
    ws = Workspace(write_c(code))
    built = ws.build("openmp", tmp_path / "out")
    assert "#include <omp.h>" in (tmp_path / "out" / "t.c").read_text()
    assert run_threads(built.binary, 2).stdout == "1\n"


def test_cli_runs_the_openmp_recipe_builds_and_prints_the_output(tmp_path, capfd):
    out = tmp_path / "out"
    matmul = Path(__file__).resolve().parents[1] / "examples" / "matmul.c"
    assert cli(["run", "openmp", str(matmul), "-o", str(out), "--build", "--run"]) == 0
    printed = capfd.readouterr().out
    assert printed == reference_output([matmul]).stdout
    assert "#pragma omp parallel for" in (out / "matmul.c").read_text()
    assert (out / "Makefile").is_file()


CONSTANTS = """\
#include <stdio.h>
static void fill(int n, int m, double a[n][m], int k)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            a[i][j] = i * k + j;
}
static double a[30][40], b[30][40];
int main(void)
{
    fill(30, 40, a, 1);
    fill(30, 40, b, 2);
    printf("%.1f %.1f\\n", a[29][39], b[29][39]);
    return 0;
}
"""


def test_propagate_constant_arguments_uses_the_values_every_call_passes(write_c, tmp_path):
    src = write_c(CONSTANTS)
    ws = Workspace(src)
    fill = ws["fill"]
    fill.propagate_constant_arguments()
    assert "double a[30][40]" in fill.code and "i < 30" in fill.code and "j < 40" in fill.code
    assert "i * k + j" in fill.code  # k differs between the calls: kept
    assert "fill(30, 40, a, 1)" in ws["main"].code  # calls unchanged
    built = ws.build("c", tmp_path / "out")
    assert ws.run().stdout == reference_output([src]).stdout and built.ok
    with pytest.raises(PassFailed, match="k values that are not all the same constant"):
        fill.propagate_constant_arguments()
    with pytest.raises(PassFailed, match="main is called by the system"):
        ws["main"].propagate_constant_arguments()


VARIADIC = r"""
#include <stdarg.h>
#include <stdio.h>

static int sum(int n, ...)
{
    va_list ap;
    int s = 0;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        s += va_arg(ap, int);
    va_end(ap);
    return s;
}

int main(void) { printf("%d %d\n", sum(3, 1, 2, 3), sum(3, 4, 5, 6)); return 0; }
"""


def test_propagate_constant_arguments_leaves_va_start_its_last_named_parameter(write_c, tmp_path):
    src = write_c(VARIADIC)
    ws = Workspace(src)
    ws["sum"].propagate_constant_arguments()
    code = ws["sum"].code
    assert "i < 3" in code  # the count every call passes
    assert "__builtin_va_start(ap, n)" in code  # va_start(ap, 3) is not C
    built = ws.build("c", tmp_path / "out")
    assert built.ok and "va_start" not in built.stderr, built.stderr
    assert ws.run().stdout == reference_output([src]).stdout == "6 15\n"


ADDRESS_TAKEN = """#include <stdio.h>
static int twice(int n) { return 2 * n; }
int main(void)
{
    int (*f)(int) = twice;
    printf("%d %d\\n", twice(4), f(5));
    return 0;
}
"""


def test_propagate_constant_arguments_refuses_a_function_whose_address_is_taken(write_c):
    ws = Workspace(write_c(ADDRESS_TAKEN))
    before = ws["twice"].code
    with pytest.raises(PassFailed, match=r"its address is taken in main \(t.c:5\)"):
        ws["twice"].propagate_constant_arguments()
    assert ws["twice"].code == before


def test_propagate_constant_arguments_refuses_a_function_in_a_file_scope_table(write_c):
    table = ADDRESS_TAKEN.replace("int main(void)", "static int (*table[])(int) = {twice};\nint main(void)")
    ws = Workspace(write_c(table.replace("int (*f)(int) = twice;", "int (*f)(int) = table[0];")))
    before = ws["twice"].code
    with pytest.raises(PassFailed, match=r"its address is taken at file scope \(t.c:3\)"):
        ws["twice"].propagate_constant_arguments()  # table[0](5) passes 5, not 4
    assert ws["twice"].code == before


def test_triangular_nests_deal_iterations_round_robin_and_use_the_global_arrays():
    ws = parallelized("syrk")
    kernel = ws["kernel_syrk"]
    (nest,) = kernel.loops()
    # j <= i: row i costs i, so blocks of consecutive rows would give one thread 3/4 of the work
    assert nest.pragma == ["omp parallel for private(j, k) schedule(static, 1)"]
    # every call passes the globals C and A: the parallel region names them (no aliasing to fear)
    assert "C[i][j] += alpha * A[i][k] * A[j][k];" in kernel.code
    assert "double c[160][160], double a[160][120]" in kernel.code  # the signature is unchanged


NESTED_USER_PRAGMAS = """\
double A[300][300], B[300];
void f(void)
{
    int i, j, k;
    #pragma omp parallel for
    for (i = 0; i < 300; i++) {
        #pragma omp parallel for private(k)
        for (j = 0; j < 300; j++) {
            k = i + j;
            A[i][j] = k;
        }
    }
    #pragma omp parallel for private(j)
    for (i = 0; i < 300; i++) {
        double s = 0.0;
        #pragma omp parallel for reduction(+:s)
        for (j = 0; j < 300; j++)
            s += A[i][j];
        B[i] = s;
    }
}
"""


def test_omp_merge_pragma_removes_nested_regions_and_keeps_what_they_privatize(write_c):
    ws = Workspace(write_c(NESTED_USER_PRAGMAS))
    f = ws["f"]
    f.omp_merge_pragma()
    first, second = f.loops()
    assert first.pragma == ["omp parallel for private(j, k)"]  # j: the inner index, k: its private
    assert first.loops()[0].pragma == []
    assert second.pragma == ["omp parallel for private(j)"]  # s is declared inside: each thread's own
    assert second.loops()[0].pragma == []
    with pytest.raises(PassFailed):
        f.omp_merge_pragma()


def test_omp_merge_pragma_keeps_an_inner_reduction_on_a_shared_variable(write_c):
    code = NESTED_USER_PRAGMAS.replace("        double s = 0.0;\n", "").replace("double A", "double s, A")
    ws = Workspace(write_c(code))
    f = ws["f"]
    f.omp_merge_pragma()
    second = f.loops()[1]
    assert second.loops()[0].pragma == ["omp parallel for reduction(+:s)"]


def test_a_program_left_sequential_is_built_as_the_original(tmp_path, write_c):
    """No OpenMP directive left (the program rule): OPT alone, no -fopenmp, no libgomp."""
    code = SMALL.replace("double s = 0.0;", "double s = 1.0;").replace("300", "30")
    ws = Workspace(write_c(code))
    load_recipe("openmp").main(ws, program_work=10**9)
    assert not any("#pragma omp" in cu.code for cu in ws.compilation_units if not cu.is_stub)
    out = tmp_path / "out"
    built = ws.build("openmp", out)
    makefile = (out / "Makefile").read_text()
    assert "CFLAGS = -O3\n" in makefile and "gomp" not in makefile and "-fopenmp" not in makefile
    assert "libgomp" not in _needed(built.binary)
    assert run_threads(built.binary, 2).stdout == reference_output([write_c(code, "orig.c")]).stdout
    ws = Workspace(write_c(SMALL))  # the same program, its product tiled: omp simd stays, -fopenmp-simd
    load_recipe("openmp").main(ws, program_work=10**9)
    assert "#pragma omp simd" in ws["main"].code
    built = ws.build("openmp", out)
    makefile = (out / "Makefile").read_text()
    assert "CFLAGS = -O3 -fopenmp-simd\n" in makefile and "gomp" not in makefile
    assert "libgomp" not in _needed(built.binary)
    assert run_threads(built.binary, 1).stdout == reference_output([write_c(SMALL, "orig.c")]).stdout
