"""The PyPS idioms of Amini 2012, section 5.3 (Figs. 5.3-5.7), run as written in Python 3."""

from __future__ import annotations

import pytest
from conftest import CORPUS
from pycparser import c_ast

from passman import InvalidInput, PassFailed, Workspace, transformation
from passman.astutil import find_all, replace_child
from passman.testing import assert_same_output

GEMM = CORPUS / "gemm.c"


@transformation(scope="module")
def t_drop_self_assignment(module):
    """Remove one statement ``x = x;`` (a test stand-in for Fig. 5.6's cleaning passes)."""
    for comp in find_all(module.ast, c_ast.Compound):
        for item in comp.block_items or []:
            if (
                isinstance(item, c_ast.Assignment)
                and item.op == "="
                and isinstance(item.lvalue, c_ast.ID)
                and isinstance(item.rvalue, c_ast.ID)
                and item.lvalue.name == item.rvalue.name
            ):
                comp.block_items.remove(item)
                return


def test_fig_5_3_conditional_pass_switch():
    conditions = {"unroll": True}
    ws = Workspace(GEMM)
    module = ws["kernel_gemm"]
    before = module.code
    if conditions.get("unroll", False):
        module.inner_loops()[0].unroll(4)
    if conditions.get("if_conversion", False):  # switched off: never called
        module.if_conversion()
    assert module.code != before
    assert_same_output([GEMM], ws)


def test_fig_5_4b_unroll_inner_loops():
    ws = Workspace(GEMM)
    module = ws["kernel_gemm"]
    for l in module.inner_loops():  # noqa: E741 - as in the figure
        l.unroll(4)
    assert "4 * (nj / 4)" in module.code
    assert_same_output([GEMM], ws)


def test_fig_5_5_try_then_fallback():
    ws = Workspace(GEMM)
    module = ws["init_array"]
    used = None
    try:
        module.loops()[0].unroll(1)  # rate 1: nothing to do, the pass fails
        used = "unroll"
    except PassFailed:
        try:
            module.inner_loops()[0].unroll(2)
            used = "fallback"
        except PassFailed:
            pass
    assert used == "fallback"
    assert_same_output([GEMM], ws)


def test_fig_5_6_fixpoint_ended_by_passfailed(write_c):
    ws = Workspace(write_c("int main(void) { int x = 1; x = x; x = x; x = x; return x - 1; }\n"))
    module = ws["main"]
    rounds = 0
    try:
        while True:
            module.t_drop_self_assignment()
            rounds += 1
    except PassFailed:
        pass
    assert rounds == 3 and "x = x" not in module.code
    assert ws.fixpoint(module.t_drop_self_assignment) == 0


def test_fig_5_7_outline_loops_into_kernels():
    ws = Workspace(GEMM)
    module = ws["kernel_gemm"]
    counter = 0
    kernels = []
    for loop in module.loops():
        kernel = module.name + str(counter)
        counter += 1  # the figure forgets this; without it the second outline would clash
        module.outline(label=loop.label, name=kernel)
        kernels.append(ws[kernel])
    assert [k.name for k in kernels] == ["kernel_gemm0"]
    assert kernels[0].loops()[0].loops()  # the moved loop nest keeps its inner loops
    assert_same_output([GEMM], ws)
    with pytest.raises(InvalidInput):
        ws["init_array"].outline(label=ws["init_array"].loops()[0].label, name="kernel_gemm0")


def test_fig_5_8_autotiler_shape_with_for_not_map():
    """Fig. 5.8 relies on Python 2's eager map; in Python 3 it must be a for loop."""
    ws = Workspace(GEMM)
    unrolled = []

    def autotiler(loop):
        if loop.loops():
            for inner in loop.loops():
                autotiler(inner)
        else:
            loop.unroll(2)
            unrolled.append(loop.label)

    for loop in ws["kernel_gemm"].loops():
        autotiler(loop)
    assert len(unrolled) == 2
    assert_same_output([GEMM], ws)


def test_replace_child_helper_roundtrip():
    # a guard that the astutil helper used by passes splices lists in blocks
    comp = c_ast.Compound([c_ast.EmptyStatement(), c_ast.Break()])
    replace_child(comp, comp.block_items[0], [c_ast.Continue(), c_ast.Continue()])
    assert [type(x).__name__ for x in comp.block_items] == ["Continue", "Continue", "Break"]
