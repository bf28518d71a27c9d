"""Static control parts (passes.poly.scop) and affine conversion (passes.poly.affine)."""

from __future__ import annotations

import islpy as isl
import pytest
from conftest import CORPUS, corpus_programs, program_id
from passman.passes.poly.affine import AffineBuilder
from pycparser import CParser

from passman import Workspace

# ---------------------------------------------------------------------------- affine


def _expr(text: str):
    return CParser().parse(f"void f(void) {{ x = {text}; }}").ext[0].body.block_items[0].rvalue


def _builder(context: str | None = None) -> AffineBuilder:
    space = isl.Space.create_from_names(isl.DEFAULT_CONTEXT, set=["i", "j"])
    dims = {"i": 0, "j": 1}

    def lookup(ident):
        return ("dim", dims[ident.name]) if ident.name in dims else ("param", ident.name)

    return AffineBuilder(space, lookup, context=isl.Set(context) if context else None)


def _values(pa: isl.PwAff, i: int, j: int = 0) -> int:
    point = isl.Set(f"{{ [{i}, {j}] }}")
    val = pa.intersect_domain(point)
    (_, aff), = val.get_pieces()
    return aff.eval(point.sample_point()).to_python()


@pytest.mark.parametrize("text", ["(i + 1) / 2", "-i / 2", "i / -3", "i % 3", "(2 * i - 7) % 4"])
def test_division_and_modulo_follow_c_truncation(text):
    pa = _builder().expr(_expr(text))
    assert pa is not None
    for i in range(-9, 10):
        expect = eval(text.replace("/", "//").replace("%", "%"), {}, {"i": i})  # python floors
        # C truncates toward zero: recompute with C semantics
        expect = _c_eval(text, i)
        assert _values(pa, i) == expect, (text, i)


def _c_eval(text: str, i: int) -> int:
    def div(a, b):
        q = abs(a) // abs(b)
        return q if (a < 0) == (b < 0) else -q

    def mod(a, b):
        return a - b * div(a, b)

    env = {"i": i, "div": div, "mod": mod}
    expr = {
        "(i + 1) / 2": "div(i + 1, 2)", "-i / 2": "div(-i, 2)", "i / -3": "div(i, -3)",
        "i % 3": "mod(i, 3)", "(2 * i - 7) % 4": "mod(2 * i - 7, 4)",
    }[text]  # fmt: skip
    return eval(expr, {}, env)


def test_division_is_plain_floor_when_the_context_proves_it_nonnegative():
    pa = _builder("{ [i, j] : i >= 0 }").expr(_expr("(i + 1) / 2"))
    assert pa.n_piece() == 1


def test_non_affine_expressions_are_refused():
    b = _builder()
    assert b.expr(_expr("i * j")) is None
    assert b.expr(_expr("i / n")) is None
    assert b.expr(_expr("a[i]")) is None
    assert b.expr(_expr("f(i)")) is None


def test_min_as_ternary_and_conditions():
    b = _builder()
    pa = b.expr(_expr("i < n ? i : n"))
    assert pa.n_piece() == 2
    c = b.cond(_expr("i < n && j != 3"))
    assert c.is_equal(isl.Set("[n] -> { [i, j] : i < n and (j < 3 or j > 3) }"))


# ---------------------------------------------------------------------------- SCoPs

KERNELS = r"""
#include <math.h>
void tri(int n, double L[n][n], double x[n], double b[n]) {
    int i, j;
    for (i = 0; i < n; i++) {
        x[i] = b[i];
        for (j = 0; j < i; j++)
            x[i] -= L[i][j] * x[j];
        x[i] = x[i] / L[i][i];
    }
}
void hist(int n, int a[n], int h[256]) {
    for (int i = 0; i < n; i++)
        h[a[i]]++;
}
void clip(int n, double a[n], double m) {
    for (int i = 0; i < n; i++)
        if (a[i] > m)
            a[i] = sqrt(m);
}
void down(int n, double a[n]) {
    for (int i = n - 1; i >= 0; i -= 2)
        a[i] = 0.0;
}
void mixed(int n, double a[n]) {
    int k = 0;
    while (k < n) {
        for (int i = 0; i < n; i++)
            a[i] = a[i] + 1.0;
        k++;
    }
    for (int i = 0; i < n; i++)
        printf("%f\n", a[i]);
}
void bound_written(int n, double a[n]) {
    for (int i = 0; i < n; i++)
        a[i] = 0.0;
    n = n / 2;
    for (int i = 0; i < n; i++)
        a[i] = 1.0;
}
void after(int n, double a[n]) {
    int i;
    for (i = 0; i < n; i++)
        a[i] = 0.0;
    a[0] = i;
}
void mm(int n, double C[n][n], double A[n][n], double B[n][n]) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += A[i][k] * B[k][j];
            C[i][j] = s;
        }
}
"""


@pytest.fixture(scope="module")
def ws():
    return Workspace.from_code("#include <stdio.h>\n" + KERNELS, "kernels.c")


def test_trisolv_triangular_domain_is_exact(ws):
    (part,) = ws["tri"].resource("scops")
    s1 = part.statements[1]
    assert s1.iterators == ("i", "j")
    assert s1.domain.is_equal(isl.Set("[n] -> { S1[i, j] : 0 <= j < i < n }"))
    assert part.params == ("n",)
    # 2d+1 schedule: S0 before the j loop, S2 after it, inside loop i
    assert [s.positions for s in part.statements] == [(0, 0), (0, 1, 0), (0, 2)]
    sched = part.schedule()
    assert sched.is_equal(isl.UnionMap(
        "[n] -> { S0[i] -> [0, i, 0, 0, 0]; S1[i, j] -> [0, i, 1, j, 0]; S2[i] -> [0, i, 2, 0, 0] }"
    ).intersect_domain(part.domain()))
    reads = {a.text for a in s1.reads()}
    assert reads == {"x[i]", "L[i][j]", "x[j]"}
    (w,) = s1.writes()
    assert w.relation.is_equal(isl.Map("[n] -> { S1[i, j] -> x[i] : 0 <= j < i < n }"))


def test_non_affine_subscript_is_a_may_access_to_the_whole_array(ws):
    (part,) = ws["hist"].resource("scops")
    (s,) = part.statements
    h = [a for a in s.accesses if a.var == "h"]
    assert h and all(not a.affine and a.may for a in h)
    assert h[0].relation.range().is_equal(isl.Set("[n] -> { h[x] : 0 <= x < 256 and n > 0 }"))
    a = next(a for a in s.accesses if a.var == "a")
    assert a.affine and not a.may


def test_data_dependent_condition_makes_guarded_writes_may(ws):
    (part,) = ws["clip"].resource("scops")
    cond, body = part.statements
    assert [a.mode for a in cond.accesses] == ["read", "read"]  # a[i] and m
    assert body.conditional and all(a.may for a in body.writes())
    assert cond.positions < body.positions  # the test runs first


def test_decreasing_strided_loop(ws):
    (part,) = ws["down"].resource("scops")
    (s,) = part.statements
    assert part.loops[0].decreasing
    pts = s.domain.fix_val(isl.dim_type.param, 0, isl.Val.int_from_si(isl.DEFAULT_CONTEXT, 7))
    values = sorted(p.get_coordinate_val(isl.dim_type.set, 0).to_python()
                    for p in _points(pts))
    assert values == [0, 2, 4, 6]
    # execution order: the schedule decreases with i
    assert s.schedule.is_equal(isl.Map("[n] -> { S0[i] -> [0, -i, 0] }").intersect_domain(s.domain))


def _points(s: isl.Set) -> list:
    out = []
    s.foreach_point(out.append)
    return out


def test_while_loop_and_impure_calls_end_the_part(ws):
    scops = ws["mixed"].resource("scops")
    assert len(scops) == 1  # the for inside the while; printf makes the last loop impure
    inner, last = ws["mixed"].loops()  # the for inside the while, the printing loop
    assert scops.for_loop(inner) is not None
    assert scops.for_loop(last) is None
    assert "printf" in scops.reason(last)


def test_a_part_ends_where_a_loop_bound_is_written(ws):
    scops = ws["bound_written"].resource("scops")
    assert len(scops) == 2
    assert all(len(p.loops) == 1 for p in scops)


def test_iterator_read_after_its_loop_splits_the_part(ws):
    scops = ws["after"].resource("scops")
    assert len(scops) == 1 and len(scops[0].statements) == 1


def test_local_scalar_declared_in_a_loop_is_expanded(ws):
    (part,) = ws["mm"].resource("scops")
    sums = [a for s in part.statements for a in s.accesses if a.var == "s"]
    assert sums and all(a.relation.dim(isl.dim_type.out) == 2 for a in sums)
    assert part.arrays[sums[0].array].expanded == 2


def test_display_lists_statements_and_reasons(ws):
    text = ws["mixed"].annotated("scops")
    assert "SCoP 0 of mixed" in text and "S0[i]" in text
    assert "not static:" in text and "printf" in text


def test_scops_are_cached_and_follow_code_changes(ws):
    ws2 = ws.clone()
    m = ws2["tri"]
    first = m.resource("scops")
    assert m.resource("scops") is first
    m.code = m.code.replace("j < i", "j <= i")
    again = m.resource("scops")
    assert again is not first
    assert again[0].statements[1].domain.is_equal(isl.Set("[n] -> { S1[i, j] : 0 <= j <= i < n }"))


@pytest.mark.parametrize("files", corpus_programs(), ids=program_id)
def test_every_corpus_program_has_scops(files):
    ws = Workspace(*files)
    total = 0
    for m in ws.all_functions:
        scops = m.resource("scops")
        for part in scops:
            total += 1
            for s in part.statements:
                assert s.domain.get_tuple_name() == s.name
                for a in s.accesses:
                    assert a.relation.domain().is_subset(s.domain)
    if files[0].stem not in ("control_flow", "structs_pointers", "pragmas"):
        assert total > 0


def test_kernel_loops_of_the_corpus_are_static():
    ws = Workspace(CORPUS / "jacobi_2d.c")
    k = ws["kernel_jacobi_2d"]
    scops = k.resource("scops")
    assert all(scops.for_loop(lp) is not None for lp in k.all_loops)
