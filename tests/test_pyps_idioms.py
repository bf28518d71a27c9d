"""The PyPS idioms of Amini 2012, section 5.3 (Figs. 5.3-5.7), run as written in Python 3."""

from __future__ import annotations

import re

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


def test_fig_5_8_autotiler_as_written_with_real_tiles():
    """Fig. 5.8 in Python 3: ``tile`` where the band allows it, else recurse; unroll the leaves."""
    ws = Workspace(GEMM)
    tiled, unrolled = [], []

    def autotiler(loop):
        if loop.loops():
            try:
                loop.tile(8, 8)
                tiled.append(loop.label)
            except PassFailed:
                for inner in loop.loops():  # not map(autotiler, loop.loops()): lazy in Python 3
                    autotiler(inner)
        else:
            loop.unroll(4)
            unrolled.append(loop.label)

    for module in (ws["kernel_gemm"], ws["init_array"]):
        for loop in module.loops():
            autotiler(loop)
    # kernel_gemm: the i loop holds two nests (not a band): its j loop is unrolled, its k-j band tiled
    assert len(tiled) == 4 and len(unrolled) == 1
    code = ws["kernel_gemm"].code
    assert "kt += 8" in code and "jt += 8" in code and "4 * (nj / 4)" in code
    assert_same_output([GEMM], ws)


@pytest.mark.parametrize(
    "name, tiled, unrolled",
    [("gemm", 4, 2), ("jacobi_2d", 3, 1), ("lu", 1, 3)],
)
def test_autotiler_recipe(name, tiled, unrolled):
    """The built-in ``autotiler`` recipe (``passman run autotiler app.c``): tiles and unrolled loops."""
    from passman.recipes import autotiler

    src = CORPUS / f"{name}.c"
    ws = Workspace(src)
    done = autotiler.main(ws, size=8, rate=3)
    assert (len(done.tiled), len(done.unrolled)) == (tiled, unrolled), done
    code = "\n".join(m.code for m in ws.all_functions)
    assert len(re.findall(r"t(_\d+)? \+= 8\)", code)) == 2 * tiled  # two tile loops per 2-deep band
    assert code.count(" += 3) {") == unrolled
    # each nest left alone says why, in source terms
    assert all(f"{name}.c:" in why or "perfect nest" in why for why in done.kept), done.kept
    assert_same_output([src], ws, cflags=["-O0"])


def test_autotiler_recipe_from_the_command_line(tmp_path, capsys):
    from passman.cli import main

    out = tmp_path / "out"
    assert (
        main(
            [
                "run",
                "autotiler",
                str(CORPUS / "jacobi_2d.c"),
                "-o",
                str(out),
                "--set",
                "size=16",
                "--set",
                "verbose=true",
            ]
        )
        == 0
    )
    said = capsys.readouterr().out
    assert "tiled kernel_jacobi_2d/" in said and "size 16" in said and "unrolled main/" in said
    assert "it += 16" in (out / "jacobi_2d.c").read_text()


DEAD = """
#include <stdio.h>

static int scaled(int n, int a[n])
{
    int debug = 0;
    int factor = 3;
    int offset = 2;
    int unused;
    int s = 0;
    if (debug)
        factor = n;
    unused = factor * 7;
    offset = factor + 1;
    for (int i = 0; i < n; i++) {
        int t = a[i] * factor;
        int w = t + offset;
        s += t;
    }
    if (offset > 100)
        printf("never\\n");
    return s + offset;
}

int main(void)
{
    int a[50];
    for (int i = 0; i < 50; i++)
        a[i] = (i * 7) % 13;
    printf("%d\\n", scaled(50, a));
    return 0;
}
"""

DEAD_CLEANED = """\
static int scaled(int n, int a[n])
{
    int s = 0;
    for (int i = 0; i < n; i++) {
        int t = a[i] * 3;
        s += t;
    }
    return s + 4;
}
"""


def test_fig_5_6_redundant_dead_code_fixpoint_as_written(write_c):
    """Fig. 5.6 with real cleaning passes: both in a ``while True``, ended by the first PassFailed."""
    src = write_c(DEAD)
    ws = Workspace(src)
    module = ws["scaled"]
    rounds = 0
    try:
        while True:
            module.partial_eval()
            module.dead_code_elimination()
            rounds += 1
    except PassFailed:
        # an exception is raised by the previous passes when nothing is cleaned up
        pass
    assert rounds == 2  # the second round folds what the first one's dead code hid
    assert module.code == DEAD_CLEANED
    assert_same_output([src], ws)
    # the same with the helper that wraps the idiom, on a fresh workspace
    again = Workspace(src)
    assert again.fixpoint(again["scaled"].partial_eval, again["scaled"].dead_code_elimination) == 2
    assert again["scaled"].code == DEAD_CLEANED


from test_arrays import THREE_NESTS  # noqa: E402 - the same program as the fusion tests


def test_fusion_then_scalarization_recipe(write_c):
    """Three 2-D nests fused into one, then two temporaries become scalars (Amini 2012, §4.6, §7.5.2)."""
    src = write_c(THREE_NESTS)
    ws = Workspace(src)
    module = ws["kernel"]
    first = module.loops()[0]
    # fuse the outer loops while it works, then the inner ones: fix points ended by PassFailed
    assert ws.fixpoint(first.loop_fusion) == 2
    assert ws.fixpoint(lambda: first.loops()[0].loop_fusion()) == 2
    assert len(module.loops()) == 1 and len(module.all_loops) == 2
    module.scalarization()
    module.dead_code_elimination()  # the arrays nothing uses any more: full contraction
    code = module.code
    assert "t1" not in code.replace("scal_t1", "") and "t2" not in code.replace("scal_t2", "")
    assert "double scal_t1;" in code and "double scal_t2;" in code
    assert_same_output([src], ws)


def test_replace_child_helper_roundtrip():
    # a guard that the astutil helper used by passes splices lists in blocks
    comp = c_ast.Compound([c_ast.EmptyStatement(), c_ast.Break()])
    replace_child(comp, comp.block_items[0], [c_ast.Continue(), c_ast.Continue()])
    assert [type(x).__name__ for x in comp.block_items] == ["Continue", "Continue", "Break"]
