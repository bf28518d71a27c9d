"""Code generation from isl schedules (passes/poly/codegen.py).

The identity schedule regenerates every corpus kernel with the same output;
tiled bands, pragma marks, floor divisions of negative values and long
iterators give golden shapes and differential runs; what cannot be
regenerated is refused and leaves the workspace unchanged.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import islpy as isl
import pytest
from conftest import CORPUS, corpus_programs, program_id
from hypothesis import given, settings
from hypothesis import strategies as st
from passman.passes.poly.codegen import generate, identity_schedule, replace_part, tile_band
from pycparser import c_ast

from passman import PassFailed, Workspace, transformation
from passman.astutil import walk
from passman.printer import to_c
from passman.testing import assert_same_output, expect

O0 = {"cflags": ["-O0"]}

#: reasons a corpus part may legitimately not be regenerated
EXPECTED_REFUSALS = ("whose condition is not affine", "is used outside its loops")


def _perfect_band(scop, schedule: isl.Schedule) -> isl.Schedule:
    """One band over all loops of a part made of one perfect nest with one statement."""
    (s,) = scop.statements
    assert len(scop.nodes) == 1
    text = ", ".join(("-" if lp.decreasing else "") + lp.iterator for lp in s.loops)
    names = ", ".join(lp.iterator for lp in s.loops)
    params = ", ".join(scop.params)
    umap = isl.UnionMap(f"[{params}] -> {{ {s.name}[{names}] -> [{text}] }}")
    mupa = isl.MultiUnionPwAff.from_union_map(umap.intersect_domain(scop.domain()))
    return isl.Schedule.from_domain(scop.domain()).insert_partial_schedule(mupa)


def _schedule(scop, kind: str) -> isl.Schedule:
    sched = identity_schedule(scop)
    if kind == "identity" or len(scop.statements) > 1 or len(scop.nodes) > 1:
        return sched
    sched = _perfect_band(scop, sched)
    band = sched.get_root().child(0)
    if kind == "tile":
        n = band.band_n_member()
        band = tile_band(band, [4] * n)
    elif kind == "mark":
        band = band.insert_mark(isl.Id("omp parallel for", context=isl.DEFAULT_CONTEXT))
    elif kind == "floor":  # S[i] -> [floor(i / 4), i]
        (s,) = scop.statements
        it = s.loops[0].iterator
        mupa = isl.MultiUnionPwAff(
            f"[{', '.join(scop.params)}] -> [{{ {s.name}[{it}] -> [floor({it} / 4)] }}]"
        )
        band = band.insert_partial_schedule(mupa)
    return band.get_schedule()


@transformation(scope="module")
def t_codegen(module, kind: str = "identity", strict: bool = False) -> None:
    """Test pass: regenerate every static control part of ``module`` from a schedule (``kind``).

    Parts whose regeneration is refused for an expected reason are left
    alone, unless ``strict``.
    """
    new = []
    for scop in module.resource("scops"):
        try:
            new.append((scop, generate(module, scop, _schedule(scop, kind))))
        except PassFailed as err:
            if strict or not any(r in str(err) for r in EXPECTED_REFUSALS):
                raise
    for scop, nodes in new:
        replace_part(module, scop, nodes)


def _generated(ws: Workspace, func: str, kind: str = "identity", k: int = 0) -> str:
    m = ws[func]
    scop = m.resource("scops")[k]
    return to_c(c_ast.Compound(generate(m, scop, _schedule(scop, kind))))


# ----------------------------------------------------------------------------- identity


@pytest.mark.parametrize("prog", ["gemm.c", "nussinov.c", "adi.c", "lu.c", "sor.c", "seidel_2d.c"])
def test_identity_schedule_keeps_the_order(prog):
    ws = Workspace(CORPUS / prog)
    for m in ws.all_functions:
        for scop in m.resource("scops"):
            tree = identity_schedule(scop).get_map()
            flat = scop.schedule()
            assert tree.lex_lt_union_map(tree).is_equal(flat.lex_lt_union_map(flat)), (
                m.name,
                scop.where,
            )
            assert tree.domain().is_equal(scop.domain())


@pytest.mark.parametrize("files", corpus_programs(), ids=program_id)
def test_identity_regeneration_keeps_the_output(files):
    ws = Workspace(*files)
    changed = 0
    for m in ws.all_functions:
        if m.is_stub or not len(m.resource("scops")):
            continue
        before = m.code
        try:
            m.t_codegen()
        except PassFailed as err:  # nothing regenerated: only expected refusals, or no change
            assert (
                "changed nothing" in str(err)
                or "no change" in str(err)
                or any(r in str(err) for r in EXPECTED_REFUSALS)
            ), str(err)
            assert m.code == before
            continue
        changed += 1
    if changed:
        assert_same_output(files, ws, **O0)


GRID = """
#include <stdio.h>
double A[100][80];
void fill(int n, int m)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 2; j <= m; j++)
            A[i][j] = i * 0.5 + j;
}
int main(void)
{
    double s = 0;
    fill(100, 70);
    for (int i = 0; i < 100; i++)
        for (int j = 0; j < 80; j++)
            s += A[i][j] * (i + 1);
    printf("%.3f\\n", s);
    return 0;
}
"""


def test_golden_identity_of_a_rectangular_nest(write_c):
    src = write_c(GRID)
    ws = Workspace(src)
    expect(_generated(ws, "fill"), """
        {
            for (int c0 = 0; c0 < n; c0++)
                for (int c1 = 2; c1 <= m; c1++)
                    A[c0][c1] = c0 * 0.5 + c1;
        }
        """)  # fmt: skip
    ws["fill"].t_codegen()
    assert "int i, j;" not in ws["fill"].code  # loop variables no longer used
    assert_same_output([src], ws, **O0)


def test_generate_does_not_modify_the_module():
    ws = Workspace(CORPUS / "gemm.c")
    m = ws["kernel_gemm"]
    before, scop = m.code, m.resource("scops")[0]
    nodes = generate(m, scop, identity_schedule(scop))
    assert m.code == before and scop.nodes[0] is m.resource("scops")[0].nodes[0]
    assert all(not any(n is x for x in scop.nodes) for n in nodes)



def test_code_generation_past_its_limit_is_refused_and_the_module_unchanged(monkeypatch):
    """The code is generated in a child process under :data:`AST_SECONDS`: a generation that takes
    longer (here made slow in the child) is refused, in the part's terms, and nothing changes."""
    import time

    from passman.passes.poly import codegen

    ws = Workspace(CORPUS / "gemm.c")
    m = ws["kernel_gemm"]
    before, scop = m.code, m.resource("scops")[0]
    real = codegen._generate

    def slow(*args):
        time.sleep(5)
        return real(*args)

    monkeypatch.setattr(codegen, "_generate", slow)
    monkeypatch.setattr(codegen, "AST_SECONDS", 0.3)
    start = time.monotonic()
    with pytest.raises(PassFailed, match=r"isl's code generation did not finish in 0 s; the part is left as it is"):
        generate(m, scop, identity_schedule(scop))
    assert time.monotonic() - start < 4
    assert m.code == before


def test_generated_code_crosses_from_the_child_whole():
    """The child sends the statements back pickled: pragmas, declarations and macro-named constants
    (their coordinates say which macro) arrive as the parent would have made them."""
    from passman.passes.poly import codegen

    from passman.macro_constants import MacroCoord

    ws = Workspace(CORPUS / "matmul_global.c")
    m = ws["init"]
    scop = m.resource("scops")[0]
    here = codegen._generate(m, scop, identity_schedule(scop), codegen._check_part(m, scop), "c", None, None)
    there = generate(m, scop, identity_schedule(scop))
    assert to_c(c_ast.Compound(there)) == to_c(c_ast.Compound(here))
    marks = lambda nodes: sorted((n.coord.macro, n.value) for top in nodes for n in walk(top)  # noqa: E731
                                 if isinstance(n.coord, MacroCoord))
    assert marks(here) and marks(there) == marks(here)


# ------------------------------------------------------------------------------ tiling

STRIP = """
#include <stdio.h>
double a[1000], b[1001];
void copy(int n)
{
    for (int i = 0; i < n; i++)
        a[i] = 2 * b[i + 1];
}
int main(void)
{
    double s = 0;
    for (int i = 0; i < 1001; i++)
        b[i] = i % 17;
    copy(999);
    for (int i = 0; i < 1000; i++)
        s += a[i] * i;
    printf("%.1f\\n", s);
    return 0;
}
"""


def test_golden_one_dimensional_tiling(write_c):
    src = write_c(STRIP)
    ws = Workspace(src)
    expect(_generated(ws, "copy", "tile"), """
        {
            for (int c0 = 0; c0 < n; c0 += 4)
                for (int c1 = c0; c1 < (n < c0 + 4 ? n : c0 + 4); c1++)
                    a[c1] = 2 * b[c1 + 1];
        }
        """)  # fmt: skip
    ws["copy"].t_codegen(kind="tile")
    assert_same_output([src], ws, **O0)


TRIANGLE = """
#include <stdio.h>
double L[60][60], B[60][60];
void tri(int n)
{
    int i, j;
    for (i = 1; i < n; i++)
        for (j = 0; j <= i; j++)
            L[i][j] = B[j][i] + i - 2 * j;
}
void box(int n, int m)
{
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < m - 1; j++)
            B[i][j] = (L[i - 1][j] + L[i + 1][j] + L[i][j - 1] + L[i][j + 1]) / 4;
}
int main(void)
{
    double s = 0;
    for (int i = 0; i < 60; i++)
        for (int j = 0; j < 60; j++)
            B[i][j] = (i * 7 + j * 3) % 11, L[i][j] = (i + j) % 5;
    tri(57);
    box(59, 53);
    for (int i = 0; i < 60; i++)
        for (int j = 0; j < 60; j++)
            s += (L[i][j] + B[i][j]) * (i + 2 * j + 1);
    printf("%.3f\\n", s);
    return 0;
}
"""


def test_two_dimensional_tiling_runs_the_same(write_c):
    src = write_c(TRIANGLE)
    ws = Workspace(src)
    ws["tri"].t_codegen(kind="tile")
    ws["box"].t_codegen(kind="tile")
    code = ws["tri"].code + ws["box"].code
    assert code.count("+= 4)") == 4, code
    assert_same_output([src], ws, **O0)


@pytest.mark.parametrize("prog", ["heat_3d.c", "syrk.c"])
def test_tiling_corpus_nests(prog):
    """Initialisation nests of ``main`` (no dependences) tiled by 4 in every dimension."""
    ws = Workspace(CORPUS / prog)
    ws["main"].t_codegen(kind="tile")
    assert "+= 4)" in ws["main"].code
    assert_same_output([CORPUS / prog], ws, **O0)


# ------------------------------------------------------------------------------- marks


def test_mark_becomes_a_pragma_before_its_loop(write_c):
    src = write_c(GRID)
    ws = Workspace(src)
    expect(_generated(ws, "fill", "mark"), """
        {
            #pragma omp parallel for
            for (int c0 = 0; c0 < n; c0++)
                for (int c1 = 2; c1 <= m; c1++)
                    A[c0][c1] = c0 * 0.5 + c1;
        }
        """)  # fmt: skip
    ws["fill"].t_codegen(kind="mark")
    assert "#pragma omp parallel for\n    for (int c0" in ws["fill"].code
    assert_same_output([src], ws, **O0)


# ---------------------------------------------------------------------- floor division

NEGATIVE = """
#include <stdio.h>
int a[200];
void shifted(int lo, int n)
{
    for (int i = lo; i < n; i++)
        a[i + 100] += i * 3 + 1;
}
int main(void)
{
    long s = 0;
    shifted(-97, 50);
    shifted(-5, -1);
    shifted(3, 90);
    for (int i = 0; i < 200; i++)
        s += a[i] * (i % 7 + 1);
    printf("%ld\\n", s);
    return 0;
}
"""


def test_floor_division_of_negative_values(write_c):
    src = write_c(NEGATIVE)
    ws = Workspace(src)
    code = _generated(ws, "shifted", "floor")
    assert "< 0 ? -(" in code, code  # a guarded floor division: lo may be negative
    ws["shifted"].t_codegen(kind="floor")
    assert_same_output([src], ws, **O0)


def test_floor_division_of_non_negative_values_is_plain(write_c):
    src = write_c(STRIP)
    ws = Workspace(src)
    code = _generated(ws, "copy", "floor")
    assert "for (int c0 = 0; 4 * c0 < n; c0++)" in code, code  # c0 <= floord(n - 1, 4), no division
    ws["copy"].t_codegen(kind="floor")
    assert_same_output([src], ws, **O0)


# ---------------------------------------------------------------------------- types

LONG = """
#include <stdio.h>
double v[300];
void scale(long n)
{
    long i;
    for (i = 0; i < n; i++)
        v[i] = v[i] * 2 + i;
}
int main(void)
{
    double s = 0;
    scale(300);
    for (int i = 0; i < 300; i++)
        s += v[i];
    printf("%.1f\\n", s);
    return 0;
}
"""


def test_iterators_are_long_when_the_part_is(write_c):
    src = write_c(LONG)
    ws = Workspace(src)
    assert "for (long c0 = 0; c0 < n; c0++)" in _generated(ws, "scale")
    ws["scale"].t_codegen()
    assert_same_output([src], ws, **O0)


def test_iterator_names_avoid_the_functions_names(write_c):
    src = write_c(
        GRID.replace("int i, j;", "int i, j, c0 = 0;").replace("A[i][j] = i", "A[i][j] = c0 + i")
    )
    ws = Workspace(src)
    code = _generated(ws, "fill")
    assert "for (int c0_1 = 0; c0_1 < n; c0_1++)" in code and "= c0 + c0_1 * 0.5 + c1;" in code, (
        code
    )
    ws["fill"].t_codegen()
    assert_same_output([src], ws, **O0)


# ---------------------------------------------------------------------------- refusals

LIVE = """
#include <stdio.h>
int a[100];
int last(int n)
{
    int i;
    for (i = 0; i < n; i++)
        a[i] = i;
    return i;
}
int main(void)
{
    printf("%d\\n", last(10));
    return 0;
}
"""


def test_refused_when_a_loop_variable_is_live_after_the_part(write_c):
    ws = Workspace(write_c(LIVE))
    before = ws["last"].code
    with pytest.raises(PassFailed, match=r"t.c:7: .*loop variable i is used outside its loops"):
        ws["last"].t_codegen(strict=True)
    assert ws["last"].code == before


PRIVATE = """
#include <stdio.h>
double a[100], b[100], c[10][10];
void f(int n)
{
    for (int i = 0; i < n; i++) {
        double t = a[i] * 2;
        b[i] = t + 1;
    }
}
void g(int n)
{
    for (int i = 0; i < n; i++) {
        double t = a[i] * 2;
        for (int j = 0; j < n; j++)
            c[i][j] = t + j;
    }
}
int main(void)
{
    for (int i = 0; i < 100; i++)
        a[i] = i;
    f(100);
    g(10);
    printf("%.1f %.1f\\n", b[99], c[9][8]);
    return 0;
}
"""


def _fissioned(scop) -> isl.Schedule:
    """Each statement in a loop of its own, in textual order."""
    parts = []
    for s in scop.statements:
        it = s.loops[0].iterator
        band = isl.MultiUnionPwAff(f"[n] -> [{{ {s.name}[{it}] -> [{it}] }}]")
        parts.append(
            isl.Schedule.from_domain(isl.UnionSet.from_set(s.domain)).insert_partial_schedule(band)
        )
    return parts[0].sequence(parts[1])


def test_declarations_inside_the_part(write_c):
    src = write_c(PRIVATE)
    ws = Workspace(src)
    m = ws["f"]
    scop = m.resource("scops")[0]
    # identity: the declaration stays with its use
    expect(_generated(ws, "f"), """
        {
            for (int c0 = 0; c0 < n; c0++) {
                double t = a[c0] * 2;
                b[c0] = t + 1;
            }
        }
        """)  # fmt: skip
    # distributed: the use would lose its declaration
    with pytest.raises(PassFailed, match="separates t from its declaration"):
        generate(m, scop, _fissioned(scop))
    # interchanged: the use would read the variable of another iteration
    g = ws["g"]
    scop = g.resource("scops")[0]
    s0, s1 = scop.statements
    i, j = s1.iterators
    swap = f"[n] -> {{ {s0.name}[{i}] -> [{i}, 0, 0]; {s1.name}[{i}, {j}] -> [{j}, 1, {i}] }}"
    swapped = isl.Schedule.from_domain(scop.domain()).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(isl.UnionMap(swap))
    )
    with pytest.raises(PassFailed, match="reads t of another iteration"):
        generate(g, scop, swapped)
    ws["f"].t_codegen()
    ws["g"].t_codegen()
    assert_same_output([src], ws, **O0)


def test_data_dependent_condition(write_c):
    ws = Workspace(CORPUS / "dot.c")
    m = ws["vmax"]
    scop = m.resource("scops")[0]
    expect(_generated(ws, "vmax"), """
        {
            double m = a[0];
            for (int c0 = 1; c0 < n; c0++)
                if (a[c0] > m)
                    m = a[c0];
        }
        """)  # fmt: skip
    # the branch in a loop of its own, after the loop of the condition: refused
    s0, s1, s2 = scop.statements
    assert isinstance(s1.node, c_ast.If) and s2.conditional
    (i,) = s1.iterators
    fission = f"[n] -> {{ {s0.name}[] -> [0, 0]; {s1.name}[{i}] -> [1, {i}]; {s2.name}[{i}] -> [2, {i}] }}"
    sched = isl.Schedule.from_domain(scop.domain()).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(isl.UnionMap(fission))
    )
    before = m.code
    with pytest.raises(
        PassFailed, match=r"separates statement S\d+ from the condition of its if \(dot.c:34\)"
    ):
        generate(m, scop, sched)
    assert m.code == before
    m.t_codegen()
    assert_same_output([CORPUS / "dot.c"], ws, **O0)


BACKWARD = """
#include <stdio.h>
double x[100], y[100];
void back(int n)
{
    int j;
    for (j = n - 2; j >= 1; j--)
        x[j] = x[j + 1] * 0.5 + y[j];
}
int main(void)
{
    for (int i = 0; i < 100; i++)
        x[i] = i % 3, y[i] = i % 5;
    back(100);
    printf("%.6f %.6f\\n", x[1], x[50]);
    return 0;
}
"""


def test_decreasing_loop_stays_decreasing(write_c):
    src = write_c(BACKWARD)
    ws = Workspace(src)
    expect(_generated(ws, "back"), """
        {
            for (int c0 = n - 2; c0 >= 1; c0--)
                x[c0] = x[c0 + 1] * 0.5 + y[c0];
        }
        """)  # fmt: skip
    ws["back"].t_codegen()
    assert_same_output([src], ws, **O0)


SUM = """
#include <stdio.h>
double a[50];
double sum(void)
{
    double s = 0.5;
    for (int i = 0; i < 50; i++)
        a[i] = i * 0.25;
    for (int i = 0; i < 50; i++)
        s += a[i];
    return s;
}
int main(void)
{
    printf("%.2f\\n", sum());
    return 0;
}
"""


@transformation(scope="module")
def t_codegen_late_init(module) -> None:
    """Test pass: initialise ``s`` inside the first loop, at its iteration 7 (still before its uses)."""
    scop = module.resource("scops")[0]
    s0, s1, s2 = scop.statements
    (i,) = s1.iterators
    (j,) = s2.iterators
    text = (
        f"{{ {s0.name}[] -> [7, 0]; {s1.name}[{i}] -> [{i}, 1]; {s2.name}[{j}] -> [100 + {j}, 0] }}"
    )
    sched = isl.Schedule.from_domain(scop.domain()).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(isl.UnionMap(text))
    )
    replace_part(module, scop, generate(module, scop, sched))


def test_declaration_initialised_where_the_schedule_says(write_c):
    src = write_c(SUM)
    ws = Workspace(src)
    assert _generated(ws, "sum").startswith(
        "{\n    double s = 0.5;\n    for (int c0 = 0; c0 < 50; c0++)"
    )
    ws["sum"].t_codegen_late_init()
    code = ws["sum"].code
    assert "    double s;\n" in code and "if (c0 == 7)\n            s = 0.5;" in code, code
    assert_same_output([src], ws, **O0)


def test_declaration_without_initialiser_in_a_loop_is_refused(write_c):
    src = write_c(PRIVATE.replace("double t = a[i] * 2;", "double t;\n        t = a[i] * 2;", 1))
    ws = Workspace(src)
    before = ws["f"].code
    with pytest.raises(PassFailed, match=r"t.c:7: .*declaration of t without initialiser"):
        ws["f"].t_codegen(strict=True)
    assert ws["f"].code == before


def test_iterator_prefix(write_c):
    ws = Workspace(write_c(GRID))
    m = ws["fill"]
    scop = m.resource("scops")[0]
    text = to_c(c_ast.Compound(generate(m, scop, identity_schedule(scop), iterator_prefix="t")))
    assert "for (int t0 = 0; t0 < n; t0++)" in text and "A[t0][t1]" in text, text


SHADOW = """
#include <stdio.h>
double t = 100, a[10], b[10], c[10];
void h(int n)
{
    for (int i = 0; i < n; i++) {
        b[i] = t;
        {
            double t = a[i];
            c[i] = t;
        }
    }
}
int main(void)
{
    for (int i = 0; i < 10; i++)
        a[i] = i;
    h(10);
    printf("%.1f %.1f\\n", b[3], c[4]);
    return 0;
}
"""


def test_a_use_is_never_captured_by_another_declaration(write_c):
    src = write_c(SHADOW)
    ws = Workspace(src)
    m = ws["h"]
    scop = m.resource("scops")[0]
    s0, s1, s2 = scop.statements
    (i,) = s0.iterators
    text = f"[n] -> {{ {s0.name}[{i}] -> [{i}, 2]; {s1.name}[{i}] -> [{i}, 0]; {s2.name}[{i}] -> [{i}, 1] }}"
    late = isl.Schedule.from_domain(scop.domain()).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(isl.UnionMap(text))
    )
    with pytest.raises(
        PassFailed, match=r"t.c:7: .*puts t in the scope of another declaration \(t.c:9\)"
    ):
        generate(m, scop, late)
    m.t_codegen()  # in the original order, b[c0] = t reads the global t before the local one
    assert_same_output([src], ws, **O0)


UNSIGNED = """
#include <stdio.h>
unsigned int u[64];
void f(unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        u[i] = (i - 5) / 2;
}
int main(void)
{
    unsigned long s = 0;
    f(40);
    for (int i = 0; i < 64; i++)
        s += u[i] % 1000;
    printf("%lu\\n", s);
    return 0;
}
"""


def test_unsigned_variables_keep_their_type(write_c):
    src = write_c(UNSIGNED)
    ws = Workspace(src)
    expect(_generated(ws, "f"), """
        {
            for (long c0 = 0; c0 < (long)n; c0++)
                u[(unsigned)c0] = ((unsigned)c0 - 5) / 2;
        }
        """)  # fmt: skip
    ws["f"].t_codegen()
    assert_same_output([src], ws, **O0)


# ----------------------------------------------------------------- isl's own schedules


def _isl_schedule(scop, tile: int) -> isl.Schedule:
    """isl's scheduler on the part's memory dependences, permutable bands tiled by ``tile``."""
    order = scop.schedule()

    def flow(sink, source):
        info = isl.UnionAccessInfo.from_sink(sink).set_may_source(source).set_schedule_map(order)
        return info.compute_flow().get_may_dependence()

    reads, writes = scop.reads(), scop.writes()
    deps = flow(reads, writes).union(flow(writes, writes)).union(flow(writes, reads))
    sched = (
        isl.ScheduleConstraints.on_domain(scop.domain())
        .set_validity(deps)
        .set_proximity(deps)
        .set_coincidence(deps)
        .compute_schedule()
    )

    def visit(node):
        band = node.get_type() == isl.schedule_node_type.band
        if band and node.band_n_member() > 1 and node.band_get_permutable():
            return tile_band(node, [tile] * node.band_n_member())
        return node

    return sched.map_schedule_node_bottom_up(visit)


@transformation(scope="module")
def t_codegen_isl(module, tile: int = 5) -> None:
    """Test pass: regenerate every part with isl's schedule (refusals for known reasons skipped)."""
    new = []
    for scop in module.resource("scops"):
        try:
            new.append((scop, generate(module, scop, _isl_schedule(scop, tile))))
        except PassFailed as err:
            if not any(r in str(err) for r in (*EXPECTED_REFUSALS, "from its declaration")):
                raise
    for scop, nodes in new:
        replace_part(module, scop, nodes)


@pytest.mark.parametrize(
    "prog",
    ["gemm.c", "lu.c", "jacobi_2d.c", "seidel_2d.c", "nussinov.c", "adi.c", "fdtd_2d.c", "symm.c"],
)
def test_isl_schedules_regenerate_to_the_same_output(prog):
    ws = Workspace(CORPUS / prog)
    changed = False
    for m in ws.all_functions:
        try:
            m.t_codegen_isl()
            changed = True
        except PassFailed as err:
            assert "changed nothing" in str(err), str(err)
    assert changed
    assert_same_output([CORPUS / prog], ws, **O0)


# ----------------------------------------------------------------- random nests

RANDOM_NEST = """
#include <stdio.h>
long A[50][50];
void k(int n, int m)
{
    for (int i = LB_I; i < UB_I; i++)
        for (int j = LB_J; j < UB_J; j++)
            A[i + 20][j + 20] += (i + 3) * 7 + (j + 5) * 3 + 1;
}
int main(void)
{
    long s = 0;
    k(3, 5);
    k(-2, 4);
    k(7, -3);
    k(0, 0);
    k(8, 8);
    for (int i = 0; i < 50; i++)
        for (int j = 0; j < 50; j++)
            s += A[i][j] * (i * 50 + j + 1);
    printf("%ld\\n", s);
    return 0;
}
"""

_SCHEDULES = {
    "interchange": "[{j}, {i}]",
    "reverse outer": "[-{i}, {j}]",
    "reverse inner": "[{i}, -{j}]",
    "skew": "[{i}, {i} + {j}]",
    "tile": "[{i}, {j}]",
    "tile skewed": "[{i} + {j}, {j}]",
    "tile reversed": "[-{i}, -{j}]",
}


@settings(max_examples=14, deadline=None)
@given(
    st.sampled_from(["-n", "0", "n - 5", "-3"]),
    st.sampled_from(["n", "m", "5"]),
    st.sampled_from(["0", "i", "i - m", "-2"]),
    st.sampled_from(["m", "i + 3", "n - i", "4"]),
    st.sampled_from(sorted(_SCHEDULES)),
    st.integers(1, 6),
    st.integers(2, 5),
)
def test_random_nests_and_schedules(lb_i, ub_i, lb_j, ub_j, kind, t0, t1):
    """Instances are independent, so every schedule is legal: the output must not change."""
    code = RANDOM_NEST.replace("LB_I", lb_i).replace("UB_I", ub_i).replace("LB_J", lb_j)
    code = code.replace("UB_J", ub_j)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "nest.c"
        src.write_text(code)
        ws = Workspace(src)
        ws["k"].t_codegen_random(kind=kind, t0=t0, t1=t1)
        assert_same_output([src], ws, **O0)


@transformation(scope="module")
def t_codegen_random(module, kind: str = "tile", t0: int = 4, t1: int = 4) -> None:
    """Test pass: regenerate the 2-D nest of ``module`` with schedule ``kind`` (tiles ``t0 x t1``)."""
    scop = module.resource("scops")[0]
    (s,) = scop.statements
    i, j = s.iterators
    text = f"[n, m] -> {{ {s.name}[{i}, {j}] -> {_SCHEDULES[kind].format(i=i, j=j)} }}"
    umap = isl.UnionMap(text).intersect_domain(scop.domain())
    sched = isl.Schedule.from_domain(scop.domain()).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(umap)
    )
    if kind.startswith("tile"):
        sched = tile_band(sched.get_root().child(0), [t0, t1]).get_schedule()
    replace_part(module, scop, generate(module, scop, sched))
