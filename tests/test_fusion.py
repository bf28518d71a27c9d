"""Loop distribution and loop fusion (passes/loops/fusion.py): shapes, differential runs, refusals."""

from __future__ import annotations

import textwrap

import pytest
from conftest import CORPUS
from passman.passes.loops.fusion import distribute

from passman import PassFailed, Workspace
from passman.testing import assert_same_output, expect

O0 = {"cflags": ["-O0"]}

MAIN = """
int main(void)
{
    for (int i = 0; i < 100; i++) {
        a[i] = i; b[i] = 2 * i; c[i] = i % 7; d[i] = 1;
    }
    f(99);
    double s = 0;
    for (int i = 0; i < 100; i++)
        s += a[i] + 3 * b[i] + 5 * c[i] + 7 * d[i];
    printf("%g\\n", s);
    return 0;
}
"""


def program(body: str) -> str:
    return ("#include <stdio.h>\ndouble a[100], b[100], c[100], d[100];\nvoid f(int n)\n{\n"
            + textwrap.dedent(body) + "\n}\n" + MAIN)


# -- distribution ---------------------------------------------------------------------


def test_distribution_topological_order(write_c):
    # b before a (a reads b[i - 1], written an iteration earlier); a before d (a reads d[i] before it is written)
    src = write_c(program("""
        int i;
        for (i = 1; i < n; i++) {
            a[i] = b[i - 1] + d[i];
            b[i] = c[i] + 1;
            d[i] = d[i - 1] * 0.5;
        }
    """))
    ws = Workspace(src)
    ws["f"].loop_distribution()
    expect(ws["f"].code, """
        void f(int n)
        {
            int i;
            for (i = 1; i < n; i++)
                b[i] = c[i] + 1;
            for (i = 1; i < n; i++)
                a[i] = b[i - 1] + d[i];
            for (i = 1; i < n; i++)
                d[i] = d[i - 1] * 0.5;
        }
    """)
    assert_same_output([src], ws, **O0)


def test_distribution_keeps_cycles_and_scalars_together(write_c):
    src = write_c(program("""
        int i;
        double t;
        for (i = 1; i < n; i++) {
            a[i] = b[i - 1] + 1;
            b[i] = a[i] * 2;
            t = c[i];
            d[i] = t + 1;
            c[i] = c[i] + 2;
        }
    """))
    ws = Workspace(src)
    ws["f"].loop_distribution()
    loops = ws["f"].loops()
    assert len(loops) == 3  # {a, b} (a cycle), {t, d} (through the scalar t), {c} (after the read of c[i])
    assert "t = c[i]" in loops[1].code and "d[i] = t + 1" in loops[1].code and "c[i] = c[i] + 2" in loops[2].code
    assert_same_output([src], ws, **O0)


def test_distribution_keeps_body_declarations_with_their_uses(write_c):
    src = write_c(program("""
        for (int i = 0; i < n; i++) {
            double u = c[i] * 2;
            a[i] = u;
            b[i] = d[i] + 1;
        }
    """))
    ws = Workspace(src)
    ws["f"].loop_distribution()
    loops = ws["f"].loops()
    assert len(loops) == 2
    assert "double u" in loops[0].code and "a[i] = u" in loops[0].code
    assert_same_output([src], ws, **O0)


def test_distribute_function_returns_labels(write_c):
    src = write_c(program("""
        int i;
        for (i = 0; i < n; i++) {
            a[i] = 1;
            b[i] = 2;
        }
    """))
    ws = Workspace(src)
    from passman import transformation
    seen = []

    @transformation(scope="loop", name="test_distribute_probe")
    def probe(loop):
        seen.extend(distribute(loop))

    try:
        ws["f"].loops()[0].test_distribute_probe()
    finally:
        ws.registry.passes.pop("test_distribute_probe", None)
    assert len(seen) == 2 and [lp.label for lp in ws["f"].loops()] == seen


def test_distribution_refuses_a_single_component(write_c):
    src = write_c(program("""
        int i;
        for (i = 1; i < n; i++) {
            a[i] = b[i - 1];
            b[i] = a[i];
        }
    """))
    ws = Workspace(src)
    before = ws["f"].code
    with pytest.raises(PassFailed, match="nothing to distribute: .*b\\[i"):
        ws["f"].loop_distribution(label=ws["f"].loops()[0].label)
    assert ws["f"].code == before


def test_distribution_non_affine_uses_effects(write_c):
    src = write_c(program("""
        int i;
        for (i = 0; i < n; i++) {
            a[(i * i) % 100] = c[i];
            b[i] = d[i] + 1;
            c[i] = a[(i * 3) % 100];
        }
    """))
    ws = Workspace(src)
    ws["f"].loop_distribution()
    loops = ws["f"].loops()
    assert len(loops) == 2
    assert "b[i] = d[i] + 1" in loops[1].code
    assert_same_output([src], ws, **O0)


@pytest.mark.parametrize("name,func", [("gemver", "kernel_gemver"), ("atax", "kernel_atax"),
                                       ("bicg", "kernel_bicg"), ("fdtd_2d", "kernel_fdtd_2d"),
                                       ("covariance", "kernel_covariance"), ("two_mm", "kernel_2mm")])
def test_distribution_corpus(name, func):
    src = CORPUS / f"{name}.c"
    ws = Workspace(src)
    try:
        ws[func].loop_distribution()
    except PassFailed:
        pass
    assert_same_output([src], ws, **O0)


# -- fusion ---------------------------------------------------------------------------


def test_fusion_forward_loop_independent(write_c):
    src = write_c(program("""
        int i, j;
        for (i = 0; i < n; i++)
            a[i] = b[i] * 2;
        for (j = 0; j < n; j++)
            c[j] = a[j] + 1;
    """))
    ws = Workspace(src)
    ws["f"].loops()[0].loop_fusion()
    expect(ws["f"].code, """
        void f(int n)
        {
            int i;
            int j;
            for (i = 0; i < n; i++) {
                a[i] = b[i] * 2;
                c[i] = a[i] + 1;
            }
        }
    """)
    assert_same_output([src], ws, **O0)


def test_fusion_refuses_backward_loop_carried_dependence(write_c):
    src = write_c(program("""
        int i;
        for (i = 0; i < n; i++)
            a[i] = b[i] * 2;
        for (i = 0; i < n; i++)
            c[i] = a[i + 1] + 1;
    """))
    ws = Workspace(src)
    before = ws["f"].code
    with pytest.raises(PassFailed, match=r"backward loop-carried flow dependence from a\[i\] .* to a\[i \+ 1\]"):
        ws["f"].loops()[0].loop_fusion()
    assert ws["f"].code == before


def test_fusion_forward_carried_depends_on_keep_parallel(write_c):
    src = write_c(program("""
        int i;
        for (i = 1; i < n; i++)
            a[i] = 0;
        for (i = 1; i < n; i++)
            b[i] = a[i - 1];
    """))
    ws = Workspace(src)
    with pytest.raises(PassFailed, match="forward loop-carried flow dependence"):
        ws["f"].loops()[0].loop_fusion()
    ws["f"].loops()[0].loop_fusion(keep_parallel=False)
    assert len(ws["f"].loops()) == 1
    assert_same_output([src], ws, **O0)


def test_fusion_refuses_different_bounds(write_c):
    src = write_c(program("""
        int i;
        for (i = 0; i < n; i++)
            a[i] = 0;
        for (i = 1; i < n; i++)
            b[i] = 1;
    """))
    ws = Workspace(src)
    with pytest.raises(PassFailed, match="bounds differ"):
        ws["f"].loops()[0].loop_fusion()


def test_fusion_refuses_to_rename_into_a_shadowing_declaration(write_c):
    # renaming j to i inside a body that declares its own i would read that i
    src = write_c(program("""
        for (int i = 0; i < n; i++)
            a[i] = 1;
        for (int j = 0; j < n; j++) {
            int i = 3;
            b[j] = 2 + i;
        }
    """))
    ws = Workspace(src)
    before = ws["f"].code
    with pytest.raises(PassFailed, match="names i"):
        ws["f"].loops()[0].loop_fusion()
    assert ws["f"].code == before


def test_fusion_of_three_nests(write_c):
    src = write_c(program("""
        int i;
        for (i = 0; i < n; i++)
            a[i] = 1.0;
        for (i = 0; i < n; i++)
            b[i] = 1.0;
        for (i = 0; i < n; i++)
            c[i] = a[i] + b[i];
    """))
    ws = Workspace(src)
    first = ws["f"].loops()[0]
    first.loop_fusion()
    first.loop_fusion()
    assert len(ws["f"].loops()) == 1
    assert_same_output([src], ws, **O0)


def test_ordered_components_match_networkx_condensation_in_lexicographic_order():
    """Distribution's own strongly connected components (networkx is not imported for them) equal
    networkx's condensation, in its lexicographical topological order, on random graphs."""
    import random

    import networkx as nx

    from passman.passes.loops.fusion import ordered_components

    rng = random.Random(7)
    for _ in range(500):
        n = rng.randint(1, 10)
        edges = {(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(0, 3 * n))}
        g = nx.DiGraph()
        g.add_nodes_from(range(n))
        g.add_edges_from(edges)
        cond = nx.condensation(g)
        order = nx.lexicographical_topological_sort(cond, key=lambda c: min(cond.nodes[c]["members"]))
        assert ordered_components(n, sorted(edges)) == [sorted(cond.nodes[c]["members"]) for c in order]
