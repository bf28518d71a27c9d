"""Analyses and passes on functions of many loops: work per question, not per function walk.

A random API sequence (fuzz case timeout_40e5ce02) made a function of 500
loops, on which ``ompify_code`` walked the whole function for each question
about each loop (1,000 walks) and array privatization walked it again for
each loop and array (525 walks). These tests count the walks, so they fail
if the per-question walk comes back, whatever the machine's speed.
"""

from __future__ import annotations

import pytest
from passman.passes.analysis import array_privatization

import passman.loop as loop_module
from passman import Workspace
from passman.errors import InvalidInput

N_LOOPS = 30


def many_loops(n: int = N_LOOPS) -> str:
    body = "\n".join(
        f"    for (int i = 0; i < 1000; i++) {{ for (int j = 0; j < 8; j++) t[j] = B[i] + j; A[{k}][i] = t[3]; }}"
        for k in range(n)
    )
    return f"""
void kernel(double A[{n}][1000], double B[1000])
{{
    double t[8];
{body}
}}
"""


def test_ompify_walks_the_function_a_bounded_number_of_times(monkeypatch):
    ws = Workspace.from_code(many_loops(), "k.c")
    ws.apply("coarse_grain_parallelization", ws["kernel"], min_work=0)
    assert ws["kernel"].code.count("passman parallel private(t)") == N_LOOPS  # and the inner loops
    walks = []
    real = loop_module.loop_sites
    monkeypatch.setattr(loop_module, "loop_sites", lambda root: walks.append(1) or real(root))
    ws.apply("ompify_code", ws["kernel"])
    code = ws["kernel"].code
    assert code.count("#pragma omp parallel for private(t)") == N_LOOPS
    assert len(walks) < N_LOOPS  # was about ten per marked loop


def test_array_escapes_are_found_in_one_walk_per_function(monkeypatch):
    ws = Workspace.from_code(many_loops(), "k.c")
    calls = []
    real = array_privatization._all_escapes
    monkeypatch.setattr(array_privatization, "_all_escapes", lambda scope: calls.append(1) or real(scope))
    verdicts = ws["kernel"].resource("parallel_loops")
    outer = [lp for lp in ws["kernel"].loops]
    assert all("t" in verdicts[lp.label].private for lp in outer)
    assert len(calls) == 1


def test_a_remembered_loop_site_is_checked_before_use():
    ws = Workspace.from_code(many_loops(3), "k.c")
    m = ws["kernel"]
    sites = loop_module.located_sites(m.ast)  # the outermost loops
    first = sites[0]
    handle = loop_module.Loop(m, first.label, first)
    assert handle.site.labelled is first.labelled and handle.site.path == first.path
    # moved: wrapped in a block of its own, the handle finds the loop where it is now
    from pycparser import c_ast

    block = first.parent
    k = block.block_items.index(first.labelled)
    block.block_items[k] = c_ast.Compound([first.labelled])
    assert handle.site.labelled is first.labelled and isinstance(handle.site.parent, c_ast.Compound)
    assert handle.site.parent is block.block_items[k]
    # removed: no stale answer
    other = loop_module.Loop(m, sites[-1].label, sites[-1])
    block.block_items.remove(sites[-1].labelled)
    with pytest.raises(InvalidInput):
        other.site  # noqa: B018
