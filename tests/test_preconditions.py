"""Affine preconditions (passes.poly.preconditions)."""

from __future__ import annotations

import islpy as isl
import pytest
from conftest import corpus_programs, program_id
from pycparser import c_ast

from passman import Workspace
from passman.astutil import find_all

CODE = r"""
void kernel(int i, int n, int k, int src[n], int dst[n], int m[k]);
void fir(int n, int k, int src[n], int dst[n], int m[k]) {
    int i;
    for (i = 0; i <= n - k; i++)
        kernel(i, n, k, src, dst, m);
}
int flow(int n, int a[]) {
    int k = 2 * n + 1;
    int j;
    if (n > 3)
        a[0] = k;
    else
        a[1] = k;
    for (j = 0; j < n; j++)
        a[j] = 0;
    a[2] = j;
    while (k > 0)
        k--;
    return k;
}
int jumps(int n, int a[]) {
    int i = 0;
again:
    a[i] = 0;
    i++;
    if (i < n)
        goto again;
    return i;
}
unsigned usum(unsigned n, unsigned a[]) {
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++)
        s += a[i];
    return s;
}
"""


@pytest.fixture(scope="module")
def ws():
    return Workspace.from_code(CODE, "pre.c")


def _stmt(module, cls, k=0):
    return find_all(module.ast.body, cls)[k]


def _P(text: str) -> isl.Set:
    return isl.Set(text)


def test_loop_bounds_at_the_fir_call_site(ws):
    m = ws["fir"]
    pre = m.resource("preconditions")
    call = _stmt(m, c_ast.FuncCall)
    assert pre.at(call).is_equal(_P("[i, n, k] -> { : 0 <= i <= n - k }"))
    assert pre.text(call) == "{0<=i<=n-k}"


def test_assignments_branches_and_loop_exit(ws):
    m = ws["flow"]
    pre = m.resource("preconditions")
    then, other = [a for a in find_all(m.ast.body, c_ast.Assignment) if a.rvalue.__class__ is c_ast.ID][:2]
    assert pre.at(then).is_equal(_P("[n, k] -> { : k = 2n + 1 and n >= 4 }"))
    assert pre.at(other).is_equal(_P("[n, k] -> { : k = 2n + 1 and n <= 3 }"))
    loop_body = _stmt(m, c_ast.For).stmt
    assert pre.at(loop_body).is_subset(_P("[j, n] -> { : 0 <= j < n }"))
    after = find_all(m.ast.body, c_ast.Assignment)[-1]  # a[2] = j, after the loop
    exit_p = pre.at(after)
    expect = _P("[j, n, k] -> { : k = 2n + 1 and ((j = n and n >= 0) or (j = 0 and n < 0)) }")
    assert exit_p.is_equal(expect)
    # the while loop forgets k, then knows the condition
    dec = find_all(m.ast.body, c_ast.UnaryOp)[-1]
    assert pre.at(dec).is_equal(_P("[j, n, k] -> { : k > 0 and ((j = n and n >= 0) or (j = 0 and n < 0)) }"))


def test_goto_targets_know_only_unmodified_variables(ws):
    m = ws["jumps"]
    pre = m.resource("preconditions")
    store = _stmt(m, c_ast.Label).stmt
    assert pre.at(store).is_equal(_P("{ : }"))


def test_unsigned_variables_are_non_negative(ws):
    m = ws["usum"]
    pre = m.resource("preconditions")
    body = _stmt(m, c_ast.For).stmt
    assert pre.at(body).is_equal(_P("[i, n] -> { : 0 <= i < n }"))
    assert pre.entry.is_subset(_P("[n] -> { : n >= 0 }"))


def test_display(ws):
    text = ws["fir"].annotated("preconditions")
    assert "// P: {0<=i<=n-k}" in text


@pytest.mark.parametrize("files", corpus_programs(), ids=program_id)
def test_every_corpus_program(files):
    ws = Workspace(*files)
    for m in ws.all_functions:
        pre = m.resource("preconditions")
        for _node, p in pre.table.values():
            assert p.is_params()
