"""Loop unrolling (passes/loops/unroll.py): golden shapes, differential runs, refusals, PyPS idioms."""

from __future__ import annotations

import textwrap

import pytest
from conftest import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st
from passman.passes.cfacts.folding import simplify
from pycparser import c_ast

from passman import InvalidInput, PassFailed, Workspace
from passman.testing import assert_same_output, expect

O0 = {"cflags": ["-O0"]}


def c_func(body: str, params: str = "int n", head: str = "") -> str:
    """A compilable unit holding ``void f(params) { body }``."""
    return f"{head}\nint a[100], b[100];\nvoid f({params})\n{{\n{textwrap.dedent(body)}\n}}\n"


# -- golden shapes -----------------------------------------------------------------


def test_unroll_by_4_shape(write_c):
    ws = Workspace(write_c(c_func("    int i;\n    for (i = 0; i < n; i++)\n        a[i] = b[i] + i;")))
    ws["f"].loops()[0].unroll(4)
    expect(
        ws["f"].code,
        """
        void f(int n)
        {
            int i;
            for (i = 0; i < 4 * (n / 4); i += 4) {
                a[i] = b[i] + i;
                a[i + 1] = b[i + 1] + (i + 1);
                a[i + 2] = b[i + 2] + (i + 2);
                a[i + 3] = b[i + 3] + (i + 3);
            }
            for (; i < n; i++)
                a[i] = b[i] + i;
        }
        """,
    )


def test_constant_bounds_fold_to_constants(write_c):
    ws = Workspace(write_c(c_func("""
        int i;
        for (i = 0; i < 10; i++)
            a[i] = 1;
        for (i = 0; i < 12; i++)
            a[i] = 2;
    """)))  # fmt: skip
    first, second = ws["f"].loops()
    first.unroll(4)
    second.unroll(4)
    lines = [ln.strip() for ln in ws["f"].code.splitlines()]
    assert "for (i = 0; i < 8; i += 4) {" in lines
    assert "for (; i < 10; i++)" in lines
    # 12 iterations by 4: no epilogue is needed
    assert "for (i = 0; i < 12; i += 4) {" in lines
    assert "for (; i < 12; i++)" not in lines


def test_index_declared_in_init_is_hoisted_into_a_block(write_c):
    ws = Workspace(write_c(c_func("""
        for (int i = 2; i <= n; i++) {
            int t = b[i];
            a[i] = t;
        }
    """)))  # fmt: skip
    ws["f"].loops()[0].unroll(2)
    expect(
        ws["f"].code,
        """
        void f(int n)
        {
            {
                int i;
                for (i = 2; i < 2 * ((n - 1) / 2) + 2; i += 2) {
                    {
                        int t = b[i];
                        a[i] = t;
                    }
                    {
                        int t = b[i + 1];
                        a[i + 1] = t;
                    }
                }
                for (; i <= n; i++) {
                    int t = b[i];
                    a[i] = t;
                }
            }
        }
        """,
    )


def test_general_step_bound_and_reversed_condition(write_c):
    ws = Workspace(write_c(c_func("    int i;\n    for (i = 1; n > i; i = i + 3)\n        a[i] = 0;")))
    ws["f"].loops()[0].unroll(4)
    lines = [ln.strip() for ln in ws["f"].code.splitlines()]
    # lb + rate*s*((ub - lb + s - 1) / (s*rate)) with lb = 1, s = 3, rate = 4
    assert "for (i = 1; i < 12 * ((n + 1) / 12) + 1; i += 12) {" in lines
    assert ["a[i] = 0;", "a[i + 3] = 0;", "a[i + 6] = 0;", "a[i + 9] = 0;"] == lines[4:8]
    assert "for (; n > i; i = i + 3)" in lines


def test_offsets_fold_into_subscripts(write_c):
    ws = Workspace(write_c(c_func("    int i;\n    for (i = 1; i < n; i++)\n        a[i] = b[i - 1];")))
    ws["f"].loops()[0].unroll(3)
    code = ws["f"].code
    assert "a[i + 1] = b[i];" in code and "a[i + 2] = b[i + 1];" in code


def test_main_loop_keeps_the_label_and_inner_labels_stay_unique(write_c):
    ws = Workspace(write_c(c_func("""
        int i, j;
    rows:
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++)
                a[j] += i;
    """)))  # fmt: skip
    module = ws["f"]
    module.loop("rows").unroll(3)
    main = module.loop("rows")
    assert "i += 3" in main.code.splitlines()[1]
    labels = [lp.label for lp in module.all_loops]
    assert len(labels) == len(set(labels)) == 1 + 3 + 1 + 1  # main, 3 copies, epilogue, its copy


def test_unsigned_index_from_nonzero_bound_is_guarded(write_c):
    src = c_func("""
        size_t i;
        for (i = 1; i < n; i++)
            a[i] = 1;
    """, params="size_t n", head="#include <stddef.h>")  # fmt: skip
    ws = Workspace(write_c(src))
    ws["f"].loops()[0].unroll(4)
    assert "for (i = 1; i < (n > 1 ? 4 * ((n - 1) / 4) + 1 : 1); i += 4) {" in ws["f"].code


def test_omp_loop_epilogue_starts_from_the_main_bound(write_c):
    ws = Workspace(write_c(c_func("""
        int i;
    #pragma omp parallel for
        for (i = 0; i < n; i++)
            a[i] = b[i];
    """)))  # fmt: skip
    ws["f"].loops()[0].unroll(2)
    lines = [ln.strip() for ln in ws["f"].code.splitlines()]
    assert lines[3:5] == ["#pragma omp parallel for", "for (i = 0; i < 2 * (n / 2); i += 2) {"]
    assert "for (i = 2 * (n / 2); i < n; i++)" in lines


# -- differential: corpus programs ------------------------------------------------

PROGRAMS = ["gemm", "jacobi_2d", "seidel_2d", "trisolv", "lu", "histogram", "dot", "libm_calls"]


@pytest.mark.parametrize("rate", [2, 3, 4, 7])
@pytest.mark.parametrize("program", PROGRAMS)
def test_unroll_every_inner_loop_keeps_output(program, rate):
    src = CORPUS / f"{program}.c"
    ws = Workspace(src)
    unrolled = 0
    for module in ws.all_functions:
        for loop in module.inner_loops():
            loop.unroll(rate)  # every inner loop of these programs is a counted loop
            unrolled += 1
    assert unrolled >= 3
    assert_same_output([src], ws, **O0)


# -- differential: trip counts, steps, declarations ---------------------------------

SHAPES = r"""
#include <stdio.h>
#include <stddef.h>

static long sum_lt(int lo, int hi)
{
    long s = 0;
    int i;
    for (i = lo; i < hi; i++)
        s = s * 3 + i;
    return s * 1000 + i;
}

static long sum_le_step(int lo, int hi, int *x)
{
    long s = 0;
    for (int i = lo; i <= hi; i += 3) {
        int t = i * i;
        x[i - lo] = t;
        s = s * 7 + t;
    }
    return s;
}

static long sum_gt_step(int lo, int hi)
{
    long s = 0;
    int i;
    for (i = lo; hi > i; i = 2 + i)
        s = s * 5 + i;
    return s * 1000 + i;
}

static long sum_unsigned(size_t lo, size_t hi)
{
    long s = 0;
    size_t i;
    for (i = lo; i < hi; ++i)
        s = s * 3 + (long)i;
    return s * 1000 + (long)i;
}

static long sum_pointer(const int *p, int n)
{
    long s = 0;
    const int *q;
    for (q = p; q < p + n; q++)
        s = s * 3 + *q;
    return s;
}

static long constant_trips(void)
{
    long s = 0;
    int i;
    for (i = 0; i < 10; i++)
        s = s * 3 + i;
    for (i = 3; i < 3; i++)
        s += 1000;
    for (i = 0; i <= 12; i += 4)
        s = s * 3 + i;
    return s;
}

int main(void)
{
    int x[64] = {0};
    long total = constant_trips();
    for (int lo = -2; lo < 3; lo++)
        for (int hi = -3; hi < 20; hi++) {
            total = total * 31 + sum_lt(lo, hi);
            total = total * 31 + sum_le_step(lo, hi, x);
            total = total * 31 + sum_gt_step(lo, hi);
            total = total * 31 + sum_pointer(x, hi > 0 ? hi : 0);
            if (lo >= 0 && hi >= 0)
                total = total * 31 + sum_unsigned((size_t)lo, (size_t)hi);
        }
    printf("%ld\n", total);
    return 0;
}
"""


@pytest.mark.parametrize("rate", [2, 3, 4, 7])
def test_remainders_and_zero_trip_loops_keep_output(write_c, rate):
    src = write_c(SHAPES, "shapes.c")
    ws = Workspace(src)
    refused = []
    for module in ws.all_functions:
        if module.name == "main":
            continue
        for loop in module.all_loops:
            try:
                loop.unroll(rate)
            except PassFailed as err:
                refused.append(str(err))
    assert refused == []
    assert_same_output([src], ws, **O0)


# -- refusals: the workspace is unchanged ----------------------------------------------

REFUSED = {
    "bound written": ("for (i = 0; i < n; i++) { n--; a[i] = 0; }", "bound n is written in the body"),
    "index written": ("for (i = 0; i < n; i++) { a[i] = 0; i += 1; }", "index i is written"),
    "index address": ("for (i = 0; i < n; i++) g(&i);", "index i has its address taken"),
    "break": ("for (i = 0; i < n; i++) { if (a[i]) break; a[i] = 1; }", "contains break"),
    "continue": ("for (i = 0; i < n; i++) { if (a[i]) continue; a[i] = 1; }", "contains continue"),
    "return": ("for (i = 0; i < n; i++) if (a[i]) return;", "contains return"),
    "goto": ("for (i = 0; i < n; i++) if (a[i]) goto out;\nout:;", "contains goto out"),
    "user label": ("for (i = 0; i < n; i++) { here: a[i] = 0; }", "label here"),
    "static": ("for (i = 0; i < n; i++) { static int c; c++; a[i] = c; }", "static variable c"),
    "global bound and call": ("for (i = 0; i < gn; i++) g(a);", "gn may be modified by the call to g"),
    "global bound and pointer store": ("for (i = 0; i < gn; i++) *p = i;", "through a pointer"),
    "variable step": ("for (i = 0; i < n; i += n) a[i] = 0;", "step n of i is not a constant"),
    "decreasing": ("for (i = n - 1; i >= 0; i--) a[i] = 0;", "step -1 of i is not positive"),
    "not equal": ("for (i = 0; i != n; i++) a[i] = 0;", "condition 'i != n'"),
    "two inits": ("for (i = 0, n = 3; i < n; i++) a[i] = 0;", "initialization 'i = 0, n = 3'"),
    "side effect bound": ("for (i = 0; i < g(a); i++) a[i] = 0;", "has side effects or calls"),
    "floating bound": ("for (i = 0; i < x; i++) a[i] = 0;", "upper bound x is floating point"),
    "bound uses index": ("for (i = 0; i < 2 * i + n; i++) a[i] = 0;", "uses the index i"),
    "bound through pointer": ("for (i = 0; i < *p; i++) p[i] = 0;", "reads memory that the body may write"),
}


@pytest.mark.parametrize("case", list(REFUSED), ids=list(REFUSED))
def test_refusals_leave_the_workspace_unchanged(write_c, case):
    loop_text, reason = REFUSED[case]
    head = "int gn;\nint g(int *v);"
    body = f"    int i;\n    {loop_text}"
    ws = Workspace(write_c(c_func(body, params="int n, double x, int *p", head=head)))
    cu = ws.compilation_units[0]
    before = cu.code
    loop = ws["f"].loops()[0]
    with pytest.raises(PassFailed) as err:
        loop.unroll(4)
    assert reason in str(err.value)
    assert str(err.value).startswith(f"t.c:{loop.coord.line}: loop {loop.label} of f: cannot unroll: ")
    assert cu.code == before
    assert ws.history.steps[-1].error is not None


@pytest.mark.parametrize("rate", [1, 0, -3])
def test_rate_below_two_is_refused(write_c, rate):
    ws = Workspace(write_c(c_func("    int i;\n    for (i = 0; i < n; i++)\n        a[i] = 0;")))
    before = ws.compilation_units[0].code
    with pytest.raises(PassFailed, match="nothing to unroll"):
        ws["f"].loops()[0].unroll(rate)
    assert ws.compilation_units[0].code == before


def test_unsigned_index_with_signed_bound_is_refused(write_c):
    ws = Workspace(write_c(c_func("    unsigned i;\n    for (i = 2; i < n; i++)\n        a[i] = 0;")))
    with pytest.raises(PassFailed, match="could wrap around"):
        ws["f"].loops()[0].unroll(2)


def test_break_inside_an_inner_switch_or_loop_is_fine(write_c):
    body = """
        int i, j;
        for (i = 0; i < n; i++) {
            switch (b[i]) { case 0: a[i] = 1; break; default: a[i] = 2; }
            for (j = 0; j < 3; j++) { if (j == b[i]) break; a[i] += j; }
        }
    """
    ws = Workspace(write_c(c_func(body)))
    ws["f"].loops()[0].unroll(2)
    assert ws["f"].code.count("switch") == 3


# -- properties and PyPS idioms ------------------------------------------------------------


def test_rate_property_defaults_and_keywords(write_c):
    ws = Workspace(write_c(c_func("    int i, j;\n    for (i = 0; i < n; i++)\n        a[i] = 0;\n"
                                   "    for (j = 0; j < n; j++)\n        b[j] = 0;")))  # fmt: skip
    first, second = ws["f"].loops()
    ws.props.unroll_rate = 2
    first.unroll()
    second.unroll(rate=8)
    code = ws["f"].code
    assert "i < 2 * (n / 2); i += 2" in code and "j < 8 * (n / 8); j += 8" in code
    with pytest.raises(InvalidInput):
        first.unroll(factor=2)


def test_pyps_unroll_inner_loops_idiom():
    ws = Workspace(CORPUS / "gemm.c")
    module = ws["kernel_gemm"]
    for l in module.inner_loops():  # noqa: E741 - Fig. 5.4b
        l.unroll(4)
    assert "for (j = 0; j < 4 * (nj / 4); j += 4)" in module.code
    assert_same_output([CORPUS / "gemm.c"], ws, **O0)


def test_pyps_try_except_fallback_idiom():
    ws = Workspace(CORPUS / "control_flow.c")
    done = []
    for loop in ws["first_multiple"].all_loops + ws["main"].all_loops:
        try:
            loop.unroll(4)
            done.append(loop.label)
        except PassFailed:
            pass
    assert done and ws["first_multiple"].code.count("for (") == 1  # the loop with continue stays
    assert_same_output([CORPUS / "control_flow.c"], ws, **O0)


# -- full unroll ----------------------------------------------------------------------------


def test_full_unroll_shape_and_output(write_c):
    src = write_c("""
        #include <stdio.h>
        int main(void)
        {
            int a[8], i, j, s = 0;
            for (i = 0; i < 8; i++)
                a[i] = i * i;
            for (j = 2; j < 2 + 3; j++)
                s += a[j];
            printf("%d %d %d\\n", s, i, j);
            return 0;
        }
    """)  # fmt: skip
    ws = Workspace(src)
    ws["main"].loops()[1].full_unroll()
    code = ws["main"].code
    assert "s += a[2];\n    s += a[3];\n    s += a[4];\n    j = 5;\n" in code
    assert len(ws["main"].loops()) == 1
    assert_same_output([src], ws, **O0)


def test_full_unroll_refusals(write_c):
    ws = Workspace(write_c(c_func("    int i;\n    for (i = 0; i < n; i++)\n        a[i] = 0;\n"
                                   "    for (i = 0; i < 100; i++)\n        b[i] = 0;")))  # fmt: skip
    first, second = ws["f"].loops()
    with pytest.raises(PassFailed, match="is not a constant"):
        first.full_unroll()
    with pytest.raises(PassFailed, match="100 iterations exceed max_iterations=64"):
        second.full_unroll()
    second.full_unroll(max_iterations=100)
    assert ws["f"].code.count("b[") == 100


def test_full_unroll_keeps_a_user_label_and_drops_dead_index_and_pragmas(write_c):
    src = write_c("""
        #include <stdio.h>
        int main(void)
        {
            int a[3], i, s = 0;
        fill:
            for (i = 0; i < 3; i++)
                a[i] = 2 * i;
        #pragma GCC ivdep
            for (i = 0; i < 3; i++)
                s += a[i];
            printf("%d\\n", s);
            return 0;
        }
    """)  # fmt: skip
    ws = Workspace(src)
    ws["main"].loop("fill").full_unroll()
    ws["main"].loops()[0].full_unroll()
    code = ws["main"].code
    assert "fill:\n    {\n        a[0] = 2 * 0;\n        a[1] = 2 * 1;\n        a[2] = 2 * 2;\n    }\n" in code
    assert "    s += a[0];\n    s += a[1];\n    s += a[2];\n    printf" in code
    assert "#pragma" not in code and "i = 3;" not in code
    assert_same_output([src], ws, **O0)


def test_global_bound_allows_pure_libm_calls(write_c):
    src = write_c("""
        #include <math.h>
        #include <stdio.h>
        int gn = 10;
        double v[16];
        int main(void)
        {
            int i;
            for (i = 0; i < gn; i++)
                v[i] = sqrt((double)i) + fabs(-1.0 * i);
            printf("%.6f %.6f\\n", v[3], v[gn - 1]);
            return 0;
        }
    """)  # fmt: skip
    ws = Workspace(src)
    ws["main"].loops()[0].unroll(4)
    assert "i < 4 * (gn / 4)" in ws["main"].code
    assert_same_output([src], ws, **O0)


# -- the bound arithmetic ------------------------------------------------------------------


def _c_eval(e, env):
    if isinstance(e, c_ast.ID):
        return env[e.name]
    if isinstance(e, c_ast.Constant):
        return int(e.value)
    if isinstance(e, c_ast.UnaryOp):
        return -_c_eval(e.expr, env)
    a, b = _c_eval(e.left, env), _c_eval(e.right, env)
    if e.op == "/":
        q = abs(a) // abs(b)
        return q if (a < 0) == (b < 0) else -q
    return {"+": a + b, "-": a - b, "*": a * b}[e.op]


def test_bound_folding_preserves_c_integer_values():
    leaves = st.one_of(
        st.sampled_from(["n", "m"]).map(c_ast.ID),
        st.integers(0, 9).map(lambda v: c_ast.Constant("int", str(v))),
    )
    exprs = st.recursive(
        leaves,
        lambda sub: st.tuples(st.sampled_from("+-*/"), sub, sub).map(lambda t: c_ast.BinaryOp(*t)),
        max_leaves=8,
    )

    @settings(max_examples=300, deadline=None)
    @given(exprs, st.integers(-50, 50), st.integers(-50, 50))
    def check(e, n, m):
        env = {"n": n, "m": m}
        try:
            want = _c_eval(e, env)
        except ZeroDivisionError:
            return
        assert _c_eval(simplify(e), env) == want

    check()
