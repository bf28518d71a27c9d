"""Polyhedral scheduling (passes/poly/schedule.py, tile_band.py): auto_schedule, apply_schedule.

Differential runs of every corpus program after ``auto_schedule`` (default
properties, and other fusion / tiling settings on a representative subset),
tiled bands with a parallel marker on the matrix products, wavefronts of
tiles on the time-iterated stencils, the legality check refusing wrong
schedules (workspace unchanged), and OpenMP output that runs on 2 threads.

Outputs are compared exactly: the schedules found here never reorder the
terms of one floating-point reduction (a reduction loop keeps its direction
and its tiles run in order), so the checksums are bit-identical.
"""

from __future__ import annotations

import re

import islpy as isl
import pytest
from conftest import CORPUS, corpus_programs, program_id
from passman.passes.poly.affine import ctx
from passman.passes.poly.schedule import check_schedule, compute_schedule, validity
from passman.passes.poly.schedule_check import strictly_before

from passman import InvalidInput, PassFailed, Workspace
from passman.testing import assert_same_output


def schedule_all(ws: Workspace, **props) -> list[str]:
    """``auto_schedule`` on every function; the names of those it transformed."""
    done = []
    for m in ws.all_functions:
        if m.is_stub:
            continue
        try:
            m.auto_schedule(**props)
            done.append(m.name)
        except PassFailed:
            pass
    return done


def kernel_code(path, name: str, **props) -> tuple[Workspace, str]:
    ws = Workspace(str(CORPUS / path))
    ws[name].auto_schedule(**props)
    return ws, ws[name].code


# ------------------------------------------------------------------ differential, whole corpus


@pytest.mark.parametrize("files", corpus_programs(), ids=program_id)
def test_corpus_keeps_output(files):
    ws = Workspace(*map(str, files))
    schedule_all(ws)
    assert_same_output(files, ws)


SUBSET = ["gemm.c", "two_mm.c", "jacobi_2d.c", "seidel_2d.c", "lu.c", "fdtd_2d.c", "covariance.c",
          "nussinov.c", "trisolv.c", "atax.c"]  # fmt: skip
SETTINGS = {
    "no_tiling": {"tile": False},
    "fusion_none": {"fusion": "none"},
    "fusion_max": {"fusion": "max"},
    "odd_tiles": {"tile_sizes": "7,5"},
    "no_wavefront": {"wavefront": False, "tile_sizes": "16,8,4"},
}


@pytest.mark.parametrize("setting", sorted(SETTINGS))
@pytest.mark.parametrize("name", SUBSET)
def test_other_settings_keep_output(name, setting):
    if setting in ("fusion_max", "no_wavefront") and name not in (
        "two_mm.c",
        "jacobi_2d.c",
        "fdtd_2d.c",
    ):
        pytest.skip("representative subset")
    ws = Workspace(str(CORPUS / name))
    assert schedule_all(ws, **SETTINGS[setting])
    assert_same_output([CORPUS / name], ws)


# ------------------------------------------------------------------ shapes


@pytest.mark.parametrize(("path", "name"), [("gemm.c", "kernel_gemm"), ("two_mm.c", "kernel_2mm"),
                                            ("syrk.c", "kernel_syrk")])  # fmt: skip
def test_matrix_products_get_parallel_tiles(path, name):
    _, code = kernel_code(path, name)
    lines = code.splitlines()
    marks = [k for k, line in enumerate(lines) if line.strip() == "#pragma passman parallel"]
    assert marks, code
    tiled = 0
    for k in marks:  # the marked loop is outermost in its nest, a tile loop where the nest has reuse
        tiled += bool(re.match(r"\s*for \(int c\d+ = .*; c\d+ \+= (32|64)\)$", lines[k + 1]))
        assert not any(
            line.lstrip().startswith("for")
            for line in lines[:k]
            if len(line) - len(line.lstrip()) < len(lines[k]) - len(lines[k].lstrip())
        ), code
    # every product (an element of C read again along k) is in a tiled nest; an untiled nest
    # only initialises or scales (each element once)
    products = sum(1 for line in lines if "+=" in line and "*" in line.split("+=", 1)[1] and "[" in line)
    assert tiled >= 1 and all("+=" not in "\n".join(_nest(lines, k)) for k in marks
                              if not re.match(r"\s*for \(int c\d+ = .*; c\d+ \+= (32|64)\)$", lines[k + 1])), code
    assert products
    assert "floord" not in code and "#pragma omp simd" in code or name == "kernel_syrk"


def _nest(lines: list[str], k: int) -> list[str]:
    """The lines of the loop nest after the pragma at line ``k`` (deeper than the pragma)."""
    indent = len(lines[k]) - len(lines[k].lstrip())
    out = [lines[k + 1]]
    for line in lines[k + 2:]:
        if len(line) - len(line.lstrip()) <= indent:
            break
        out.append(line)
    return out


GEMM = """
    #pragma passman parallel
    for (int c0 = 0; c0 < ni; c0++)
        for (int c1 = 0; c1 < nj; c1++)
            C[c0][c1] *= beta;
    #pragma passman parallel
    for (int c0 = 0; c0 < ni; c0 += 32)
        for (int c1 = 0; c1 < nj; c1 += 64)
            for (int c2 = 0; c2 < nk; c2 += 32)
                for (int c3 = c0; c3 < (ni < c0 + 32 ? ni : c0 + 32); c3++)
                    for (int c4 = c2; c4 < (nk < c2 + 32 ? nk : c2 + 32); c4++) {
                        #pragma omp simd
                        for (int c5 = c1; c5 < (nj < c1 + 64 ? nj : c1 + 64); c5++)
                            C[c3][c5] += alpha * A[c3][c4] * B[c4][c5];
                    }
}
"""


def test_gemm_shape():
    """Not fused (fusing C *= beta into the k tiles puts guards in the point loops); the
    stride-1 loop (j: C[i][j], B[k][j]) innermost, with a larger tile. C *= beta touches each
    element once: not tiled (no reuse for a tile to keep)."""
    _, code = kernel_code("gemm.c", "kernel_gemm")
    assert code.endswith(GEMM), code


@pytest.mark.parametrize(("path", "name"), [("jacobi_2d.c", "kernel_jacobi_2d"),
                                            ("seidel_2d.c", "kernel_seidel_2d")])  # fmt: skip
def test_stencils_get_a_wavefront(path, name):
    ws, code = kernel_code(path, name, force_wavefront=True)
    lines = code.splitlines()
    first = next(k for k, line in enumerate(lines) if line.lstrip().startswith("for"))
    assert "pragma" not in lines[first - 1]  # the outer loop (wavefront) is sequential
    k = next(k for k, line in enumerate(lines) if "#pragma passman parallel" in line)
    assert k > first and lines[k + 1].rstrip().endswith("+= 32)"), (
        code
    )  # a parallel tile loop inside
    assert "floord" not in code
    assert_same_output([CORPUS / path], ws)


@pytest.mark.parametrize("explore", ["isl's speed", "a slow isl"])
@pytest.mark.parametrize("name", ["jacobi_1d", "jacobi_2d", "heat_3d", "fdtd_2d"])
def test_time_loops_of_parallel_steps_are_left_to_the_coarse_grain_path(name, explore, monkeypatch):
    """Which fusion policies isl explores depends on its speed (EXPLORE_SECONDS); whether a
    stencil goes to the coarse-grain path must not (CI, loaded, once rescheduled heat-3d)."""
    from passman.passes.poly import schedule

    if explore == "a slow isl":
        monkeypatch.setattr(schedule, "EXPLORE_SECONDS", 0.0)  # keep the first schedule found
    ws = Workspace(str(CORPUS / f"{name}.c"))
    module = ws[f"kernel_{name}"]
    before = module.code
    with pytest.raises(PassFailed, match="loop t repeats steps whose loops are parallel.*left to the coarse-grain path"):
        module.auto_schedule(time_tiling="off")  # time_tile's tiles: tests/test_stencil_tiling.py
    assert module.code == before


def sized(write_c, name: str, **defines: int):
    """The corpus program ``name`` with its ``#define`` sizes replaced (written to tmp_path)."""
    text = (CORPUS / f"{name}.c").read_text()
    for macro, value in defines.items():
        text, n = re.subn(rf"^#define {macro} \d+", f"#define {macro} {value}", text, flags=re.M)
        assert n == 1, macro
    return write_c(text, f"{name}.c")


def test_time_loops_whose_data_exceed_the_cache_get_time_tiles(write_c):
    """The cache-fit model: the same stencil, sizes known from the calls, is tiled once its data
    (two arrays of doubles) exceed the cache."""
    src = sized(write_c, "jacobi_2d", N=3000)  # 137 MiB
    ws = Workspace(str(src))
    module = ws["kernel_jacobi_2d"]
    module.auto_schedule(cache_size=32 << 20, time_tiling="off")
    assert "#pragma passman parallel" in module.code and "for (int c0" in module.code
    ws = Workspace(str(CORPUS / "jacobi_2d.c"))  # the corpus's sizes, with a tiny cache
    ws["kernel_jacobi_2d"].auto_schedule(cache_size=64 << 10, time_tiling="off")
    assert "for (int c0" in ws["kernel_jacobi_2d"].code
    assert_same_output([CORPUS / "jacobi_2d.c"], ws)


@pytest.mark.parametrize(("name", "shape"), [("jacobi_1d", "1-deep nests"), ("heat_3d", "3-deep nests"),
                                             ("fdtd_2d", "nests of different depths")])  # fmt: skip
def test_time_loops_of_other_steps_stay_on_the_coarse_grain_path(name, shape):
    ws = Workspace(str(CORPUS / f"{name}.c"))
    module = ws[f"kernel_{name}"]
    before = module.code
    with pytest.raises(PassFailed, match=shape):
        module.auto_schedule(cache_size=1024, time_tiling="off")  # whatever the data
    assert module.code == before


def test_the_footprint_counts_every_array_once_with_its_element_size(write_c):
    from passman.passes.poly.footprint import data_footprint, known_parameters

    ws = Workspace(str(sized(write_c, "jacobi_2d", N=1000)))
    module = ws["kernel_jacobi_2d"]
    (part,) = module.resource("scops")
    values = known_parameters(module, part)
    assert sorted(values.values()) == sorted([1000, 40])  # n and tsteps, from the only call
    # A: rows and columns 0..999 are read (the borders too); B: the interior 1..998; 8 bytes each
    assert data_footprint(part, values) == (1000 * 1000 + 998 * 998) * 8
    assert data_footprint(part, {}) is None  # symbolic sizes


def test_tiling_off_gives_plain_parallel_loops():
    _, code = kernel_code("gemm.c", "kernel_gemm", tile=False)
    assert "+= 32" not in code and "#pragma passman parallel" in code


# ------------------------------------------------------------------ refusals


RECURRENCE = """
#include <stdio.h>
double a[100], b[100];
void kernel(int n)
{
    int i;
    for (i = 1; i < n; i++)
        a[i] = a[i - 1] + b[i];
}
int main(void)
{
    for (int i = 0; i < 100; i++)
        b[i] = i % 7;
    kernel(100);
    printf("%.1f\\n", a[99]);
    return 0;
}
"""


def test_nothing_to_improve_is_refused(write_c):
    ws = Workspace(str(write_c(RECURRENCE)))
    before = ws["kernel"].code
    with pytest.raises(PassFailed, match="nothing to improve"):
        ws["kernel"].auto_schedule()
    assert ws["kernel"].code == before


def test_declaration_in_loop_is_skipped_with_reason():
    ws = Workspace(str(CORPUS / "matmul_global.c"))
    before = ws["matmul"].code
    with pytest.raises(PassFailed, match="declaration of sum inside a loop"):
        ws["matmul"].auto_schedule(accumulate=False)
    assert ws["matmul"].code == before


REVERSED = '{ domain: "[n] -> { S0[i] : 0 < i < n }", child: { schedule: "[n] -> [{ S0[i] -> [(-i)] }]" } }'
MARKED = (
    '{ domain: "[n] -> { S0[i] : 0 < i < n }", child: { mark: "passman parallel", '
    'child: { schedule: "[n] -> [{ S0[i] -> [(i)] }]" } } }'
)


@pytest.mark.parametrize(("tree", "why"), [(REVERSED, "sink before its source"),
                                           (MARKED, "marked 'passman parallel' carries")])  # fmt: skip
def test_wrong_schedule_is_refused(write_c, tree, why):
    ws = Workspace(str(write_c(RECURRENCE)))
    before = ws["kernel"].code
    with pytest.raises(PassFailed, match=why) as err:
        ws["kernel"].apply_schedule(part=0, tree=tree)
    assert "a[i]" in str(err.value) and "t.c:" in str(err.value)  # the dependence, in source terms
    assert ws["kernel"].code == before


def test_explicit_schedule_applies(write_c):
    path = write_c(RECURRENCE)
    ws = Workspace(str(path))
    tree = REVERSED.replace("(-i)", "(i)")
    ws["kernel"].apply_schedule(part=0, tree=tree)
    assert "c0" in ws["kernel"].code
    assert_same_output([path], ws)


def test_check_schedule_on_isl_schedules():
    ws = Workspace(str(CORPUS / "seidel_2d.c"))
    m = ws["kernel_seidel_2d"]
    part = m.resource("scops")[0]
    deps = m.resource("dependences").of_scop(part)
    good = compute_schedule(part, validity(deps))
    check_schedule(part, deps, good)
    # interchange t and i: Gauss-Seidel's flow dependences (1, -1, *) forbid it
    bad = isl.Schedule.from_domain(part.domain()).insert_partial_schedule(
        isl.MultiUnionPwAff(
            "[tsteps, n] -> [{ S0[t, i, j] -> [(i)] }, { S0[t, i, j] -> [(t)] }, "
            "{ S0[t, i, j] -> [(j)] }]"
        )  # fmt: skip
    )
    with pytest.raises(PassFailed, match="dependence"):
        check_schedule(part, deps, bad)


@pytest.mark.parametrize("name", ["seidel_2d", "heat_3d"])
def test_the_order_check_by_images_agrees_with_the_order_of_instances(name):
    """``strictly_before`` compares the pairs' times; the instances' order gives the same answer."""
    ws = Workspace(str(CORPUS / f"{name}.c"))
    m = ws[f"kernel_{name}"]
    part = m.resource("scops")[0]
    deps = [d for d in m.resource("dependences").of_scop(part) if not d.relation.is_empty()]
    swapped = part.schedule().apply_range(isl.UnionMap(  # interchange t and i: illegal for both
        "{ [a0, a1, a2, a3, a4, a5, a6] -> [a0, a3, a2, a1, a4, a5, a6];"
        "  [a0, a1, a2, a3, a4, a5, a6, a7, a8] -> [a0, a3, a2, a1, a4, a5, a6, a7, a8] }"))
    verdicts = {}
    for label, smap in [("original", part.schedule()), ("swapped", swapped)]:
        before = strictly_before(smap)
        for d in deps:
            rel = isl.UnionMap.from_map(d.relation)
            src, snk = smap.intersect_domain(rel.domain()), smap.intersect_domain(rel.range())
            expected = rel.subtract(src.lex_lt_union_map(snk)).is_empty()
            assert before(rel) == expected, (label, d.why())
            verdicts.setdefault(label, set()).add(expected)
    assert verdicts["original"] == {True} and False in verdicts["swapped"]


def test_scheduler_options_are_restored():
    c = ctx()
    before = (c.get_schedule_serialize_sccs(), c.get_schedule_whole_component(),
              c.get_schedule_outer_coincidence(), c.get_tile_scale_tile_loops(),
              c.get_tile_shift_point_loops())  # fmt: skip
    kernel_code("two_mm.c", "kernel_2mm", fusion="none")
    after = (c.get_schedule_serialize_sccs(), c.get_schedule_whole_component(),
             c.get_schedule_outer_coincidence(), c.get_tile_scale_tile_loops(),
             c.get_tile_shift_point_loops())  # fmt: skip
    assert before == after


def test_bad_properties_are_refused():
    ws = Workspace(str(CORPUS / "gemm.c"))
    before = ws["kernel_gemm"].code
    with pytest.raises(InvalidInput, match="auto_schedule_fusion: 'some' is not one of smart, none, max"):
        ws["kernel_gemm"].auto_schedule(fusion="some")
    with pytest.raises(InvalidInput, match="auto_schedule_pragma: 'omp for' is not one of"):
        ws["kernel_gemm"].auto_schedule(pragma="omp for")
    with pytest.raises(PassFailed, match="tile sizes"):
        ws["kernel_gemm"].auto_schedule(tile_sizes="32,x")
    assert ws["kernel_gemm"].code == before


def test_label_restricts_to_one_part(write_c):
    src = RECURRENCE.replace(
        "        a[i] = a[i - 1] + b[i];\n",
        '        a[i] = a[i - 1] + b[i];\n    printf("-\\n");\n'
        "    par: for (i = 0; i < n; i++)\n        b[i] = 2 * b[i];\n",
    ).replace("for (i = 1; i < n; i++)", "rec: for (i = 1; i < n; i++)")
    path = write_c(src)
    ws = Workspace(str(path))
    with pytest.raises(PassFailed, match="nothing to improve"):
        ws["kernel"].auto_schedule(label="rec")
    ws["kernel"].auto_schedule(label="par")
    code = ws["kernel"].code
    assert "rec:\n    for (i = 1; i < n; i++)" in code and "#pragma passman parallel" in code, code
    assert_same_output([path], ws)


# ------------------------------------------------------------------ OpenMP


@pytest.mark.parametrize(
    ("path", "name"), [("gemm.c", "kernel_gemm"), ("jacobi_1d.c", "kernel_jacobi_1d")]
)
def test_ompify_turns_marks_into_openmp(path, name):
    ws, _ = kernel_code(path, name, force_wavefront=True)
    ws[name].ompify_code()
    code = ws[name].code
    assert "#pragma omp parallel for" in code and "passman parallel" not in code, code
    assert_same_output([CORPUS / path], ws, cflags=["-O2", "-fopenmp"], libs=["-lm", "-fopenmp"],
                       env={"OMP_NUM_THREADS": "2"})  # fmt: skip


@pytest.mark.parametrize(("path", "name"), [("jacobi_2d.c", "kernel_jacobi_2d"), ("seidel_2d.c", "kernel_seidel_2d"),
                                            ("two_mm.c", "kernel_2mm")])  # fmt: skip
def test_openmp_pragmas_directly(path, name):
    ws, code = kernel_code(path, name, pragma="omp parallel for", force_wavefront=True)
    assert "#pragma omp parallel for" in code and "passman" not in code
    assert_same_output([CORPUS / path], ws, cflags=["-O2", "-fopenmp"], libs=["-lm", "-fopenmp"],
                       env={"OMP_NUM_THREADS": "2"})  # fmt: skip


SMALL = """
#include <stdio.h>
double a[8][8], b[8][8];
void kernel(void)
{
    int i, j;
    for (i = 0; i < 8; i++)
        for (j = 0; j < 8; j++)
            a[i][j] = b[j][i] + 1;
}
int main(void)
{
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            b[i][j] = i - j;
    kernel();
    printf("%.1f %.1f\\n", a[1][2], a[7][0]);
    return 0;
}
"""


def test_small_trip_counts_are_not_tiled(write_c):
    path = write_c(SMALL)
    ws = Workspace(str(path))
    ws["kernel"].auto_schedule()
    code = ws["kernel"].code
    assert (
        "+= 32" not in code
        and "#pragma passman parallel\n    for (int c0 = 0; c0 < 8; c0++)" in code
    ), code
    assert_same_output([path], ws)


TWO_LOOPS = """
#include <stdio.h>
double a[50], b[50], c[50];
void kernel(int n)
{
    int i;
    for (i = 0; i < n; i++)
        a[i] = b[i] + 1;
    for (i = 0; i < n; i++)
        c[i] = a[n - 1 - i];
}
int main(void)
{
    for (int i = 0; i < 50; i++)
        b[i] = i;
    kernel(50);
    printf("%.1f\\n", c[3]);
    return 0;
}
"""


def test_unordered_set_with_dependence_is_refused(write_c):
    path = write_c(TWO_LOOPS)
    ws = Workspace(str(path))
    loops = [f'{{ filter: "[n] -> {{ S{k}[i] }}", child: {{ schedule: "[n] -> [{{ S{k}[i] -> [(i)] }}]" }} }}'
             for k in (0, 1)]  # fmt: skip
    tree = (
        '{ domain: "[n] -> { S0[i] : 0 <= i < n; S1[i] : 0 <= i < n }", child: { %s: [ '
        + ", ".join(loops)
        + " ] } }"
    )
    before = ws["kernel"].code
    with pytest.raises(PassFailed, match="unordered: flow dependence a\\[i\\]"):
        ws["kernel"].apply_schedule(tree=tree % "set")
    assert ws["kernel"].code == before
    ws["kernel"].apply_schedule(tree=tree % "sequence")
    assert_same_output([path], ws)


INDEPENDENT_NESTS = r"""
#include <stdio.h>
#define N 300
static double A[N][N], B[N][N], C[N][N];
static double alpha, beta;
static void init(int n)
{
    alpha = 1.5;
    beta = 1.2;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            C[i][j] = (double)((i * j + 1) % n) / n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = (double)(i * (j + 1) % n) / n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            B[i][j] = (double)(i * (j + 2) % n) / n;
}
int main(void)
{
    init(N);
    double s = alpha + beta;
    for (int i = 0; i < N; i++)
        s += A[i][i] + 2 * B[i][N - 1 - i] + 3 * C[N - 1 - i][i];
    printf("%.6f\n", s);
    return 0;
}
"""


def test_independent_nests_keep_the_order_of_the_source(write_c):
    """isl gathers independent nests under a set node and emits them in its own order; auto_schedule
    emits them in the source's (polybench's init_array came out as A, B, beta = ..., C)."""
    src = write_c(INDEPENDENT_NESTS, "init.c")
    ws = Workspace(str(src))
    ws["init"].auto_schedule(pragma="omp parallel for")
    code = ws["init"].code
    order = [code.index(text) for text in ("alpha = 1.5", "beta = 1.2", "C[c0][c1] =", "A[c0][c1] =", "B[c0][c1] =")]
    assert order == sorted(order), code
    assert_same_output([src], ws)


def test_a_set_becomes_a_sequence_in_the_order_of_its_statements():
    from passman.passes.poly.schedule import _ordered_sets

    text = ('{ domain: "{ S0[]; S1[i] : 0 <= i < 4; S2[] }", child: { set: [ '
            '{ filter: "{ S2[] }" }, '
            '{ filter: "{ S1[i] }", child: { set: [ { filter: "{ S1[i] : i > 1 }" }, { filter: "{ S1[i] : i <= 1 }" } ] } }, '
            '{ filter: "{ S0[] }" } ] } }')
    out = _ordered_sets(text, {"S0": 0, "S1": 1, "S2": 2})
    assert "set:" not in out
    assert out.index('filter: "{ S0[] }"') < out.index('filter: "{ S1[i] }"') < out.index('filter: "{ S2[] }"')
    # the inner set's children hold the same statement: their order is kept (a stable sort)
    assert out.index("i > 1") < out.index("i <= 1")
    schedule = isl.Schedule.read_from_str(ctx(), out)
    assert schedule.get_domain().is_equal(isl.UnionSet("{ S0[]; S1[i] : 0 <= i < 4; S2[] }"))
