"""Inlining and cloning (passes/interproc/inline.py): shapes, runs, refusals."""

from __future__ import annotations

import textwrap

import pytest
from conftest import CORPUS, corpus_programs, program_id

from passman import InvalidInput, PassFailed, Workspace
from passman.testing import assert_same_output, expect

O0 = {"cflags": ["-O0"]}


def refused(ws, module: str, apply, *words: str) -> str:
    before = {cu.name: cu.code for cu in ws.compilation_units if not cu.is_stub}
    with pytest.raises(PassFailed) as err:
        apply()
    assert {cu.name: cu.code for cu in ws.compilation_units if not cu.is_stub} == before
    for w in words:
        assert w in str(err.value), str(err.value)
    return str(err.value)


PROGRAM = r"""
#include <stdio.h>
int g = 0;
double u[8], v[8];

static void axpy(int n, double a, double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}

static int clamp(int x, int lo, int hi)
{
    if (x < lo)
        return lo;
    if (x > hi)
        return hi;
    return x;
}

static int sq(int v)
{
    int r = v * v;
    return r;
}

static void bump(int k)
{
    g += k;
}

int main(void)
{
    int s = 0;
    for (int i = 0; i < 8; i++)
        u[i] = i;
    axpy(8, 2.0, u, v);
    for (int i = -5; i < 20; i++) {
        int c = clamp(i, 0, 10);
        s += c + sq(i) * 2;
        bump(sq(c));
    }
    if (s > 3 && sq(s) > 10)
        s++;
    printf("%d %d %f\n", s, g, v[7]);
    return 0;
}
"""


# -- inline: shapes ------------------------------------------------------------------


def test_inline_void_function_with_direct_arguments(write_c):
    src = write_c(PROGRAM)
    ws = Workspace(src)
    ws["axpy"].inline()
    code = ws["main"].code
    assert "axpy(" not in code
    assert "    {\n        for (int i_1 = 0; i_1 < 8; i_1++)\n            v[i_1] += 2.0 * u[i_1];\n    }\n" in code
    assert "axpy" in ws  # the function stays
    assert_same_output([src], ws, **O0)


def test_inline_early_returns_and_assigned_declaration(write_c):
    src = write_c(PROGRAM)
    ws = Workspace(src)
    ws["clamp"].inline()
    body = ws["main"].code
    expect(
        textwrap.dedent(body[body.index("    for (int i = -5"):body.index("    if (s > 3")]),
        """
            for (int i = -5; i < 20; i++) {
                int c;
                {
                    if (i < 0) {
                        c = 0;
                        goto clamp_end;
                    }
                    if (i > 10) {
                        c = 10;
                        goto clamp_end;
                    }
                    c = i;
                clamp_end:
                    ;
                }
                s += c + sq(i) * 2;
                bump(sq(c));
            }
        """,
    )
    assert_same_output([src], ws, **O0)


def test_inline_value_in_an_expression_gets_a_result_variable(write_c):
    src = write_c(PROGRAM.replace("    if (s > 3 && sq(s) > 10)\n        s++;\n", ""))
    ws = Workspace(src)
    ws["sq"].inline()
    code = ws["main"].code
    assert "sq(" not in code
    assert "int sq_result;" in code and "s += c + sq_result * 2;" in code
    assert "int k = sq_result_1;" in code or "bump(sq_result_1);" in code
    assert_same_output([src], ws, **O0)


def test_inline_renames_locals_that_clash(write_c):
    src = write_c(r"""
        #include <stdio.h>
        static int twice(int a)
        {
            int r = a * 2;
            return r;
        }
        int main(void)
        {
            int r = 5, a = 1;
            r = twice(r + a) + r;
            printf("%d %d\n", r, a);
            return 0;
        }
    """)  # fmt: skip
    ws = Workspace(src)
    ws["twice"].inline(callers="main")
    code = ws["main"].code
    assert "int a_1 = r + a;" in code and "int r_1 = a_1 * 2;" in code
    assert_same_output([src], ws, **O0)


# -- inline: refusals ------------------------------------------------------------------


def test_inline_refuses_conditional_call_and_keeps_everything(write_c):
    ws = Workspace(write_c(PROGRAM))
    refused(ws, "main", ws["sq"].inline, "'&&'", "sq")


def test_inline_refuses_recursion_stubs_and_loop_conditions(write_c):
    ws = Workspace(CORPUS / "multi_function.c")
    refused(ws, "fib", ws["fib"].inline, "recursive")
    ws2 = Workspace(write_c(r"""
        #include <math.h>
        static int more(int i) { return i < 10; }
        static int count(int n) { static int calls; calls++; return n + calls; }
        double f(double x)
        {
            int i = 0;
            while (more(i))
                i++;
            return sqrt(x) + count(i);
        }
    """))  # fmt: skip
    refused(ws2, "f", ws2["more"].inline, "loop condition")
    refused(ws2, "f", ws2["count"].inline, "static variable calls")
    if "sqrt" in ws2:
        refused(ws2, "f", ws2["sqrt"].inline, "stub")
    refused(ws2, "f", lambda: ws2["more"].inline(callers="count"), "does not call it")
    with pytest.raises(InvalidInput):
        ws2["more"].inline(callers="nowhere")


def test_inline_refuses_static_helpers_of_another_unit():
    files = sorted((CORPUS / "two_units").glob("*.c"))
    ws = Workspace(*files)
    refused(ws, "main", ws["init_matrix"].inline, "init_value is not declared before main")
    ws["matmul"].inline()  # uses only the extern kernel_calls, declared in the header
    assert "matmul(" not in ws["main"].code
    assert_same_output(files, ws, **O0)


# -- inline: every function of corpus programs -------------------------------------------

INLINED = ["multi_function", "dot", "control_flow", "structs_pointers", "nussinov", "two_units", "lu"]


@pytest.mark.parametrize("files", [p for p in corpus_programs() if program_id(p) in INLINED], ids=program_id)
def test_inline_everything_possible_keeps_output(files):
    ws = Workspace(*files)
    inlined = 0
    for m in list(ws.all_functions):
        if m.name == "main":
            continue
        try:
            m.inline()
            inlined += 1
        except PassFailed:
            pass
    assert inlined >= 1
    assert_same_output(files, ws, **O0)


# -- clone ------------------------------------------------------------------------------


def test_clone_specialises_an_argument_then_partial_eval_folds_it():
    src = CORPUS / "multi_function.c"
    ws = Workspace(src)
    ws["scale"].clone(name="scale_half", caller="pipeline", argument=2, value="0.5")
    expect(
        ws["scale_half"].code,
        """
        static void scale_half(double *v, int n)
        {
            double s = 0.5;
            int i;
            for (i = 0; i < n; i++)
                v[i] *= s;
        }
        """,
    )
    assert "scale_half(x, n);" in ws["pipeline"].code
    ws["weight"].clone(argument=1, value="500")
    assert "weight_clone" in ws and "weight_clone(i + j)" in ws["main"].code
    ws["weight_clone"].partial_eval()
    assert "(double)500" in ws["weight_clone"].code
    assert_same_output([src], ws, **O0)


def test_clone_sizes_of_array_parameters_and_prototype_in_another_unit():
    files = sorted((CORPUS / "two_units").glob("*.c"))
    ws = Workspace(*files)
    ws["frobenius"].clone(name="frob200", argument=0, value="200")
    assert ws["frob200"].code.startswith("double frob200(double A[200][200])\n")
    main_unit = ws["main"].cu.code
    assert main_unit.index("double frob200(double A[200][200]);") < main_unit.index("int main(void)")
    assert "f1 = frob200(C);" in main_unit
    assert_same_output(files, ws, **O0)


def test_clone_plain_copy_and_refusals(write_c):
    src = write_c(PROGRAM)
    ws = Workspace(src)
    ws["bump"].clone(name="bump2", caller="main")
    assert "bump2(sq(c));" in ws["main"].code
    assert_same_output([src], ws, **O0)
    refused(ws, "main", lambda: ws["clamp"].clone(name="c2", caller="main", argument=1, value="3"),
            "no call in main passing 3 as argument 1")
    with pytest.raises(InvalidInput):
        ws["clamp"].clone(name="axpy")
    with pytest.raises(InvalidInput):
        ws["clamp"].clone(name="c3", argument=7, value="1")
    with pytest.raises(InvalidInput):
        ws["clamp"].clone(name="c3", argument=0, value="x + 1")


def test_clone_in_a_workspace_clone_leaves_the_original_alone(write_c):
    """Regression (sweep): the redirected calls were edited in the AST shared with the original."""
    src = write_c(PROGRAM)
    base = Workspace(src)
    before = base["main"].code
    ws = base.clone()
    ws["bump"].clone(name="bump2", caller="main")
    assert "bump2(" in ws["main"].code
    assert base["main"].code == before and "bump2" not in base
    assert_same_output([src], ws, **O0)
    assert_same_output([src], base, **O0)
