"""Checkpoints and clones: independent, cheap, sharing what did not change."""

from __future__ import annotations

import pytest
from pycparser import c_ast

from passman import PassFailed, Workspace, transformation
from passman.astutil import find_all

PROG = """\
int g(int x) { return x + 1; }
int main(void) { int s = 0; for (int i = 0; i < 10; i++) s += g(i); return s - 55; }
"""


@transformation(scope="module")
def t_state_bump(module, by: int = 1):
    """Add ``by`` to every integer constant (test transformation)."""
    for c in find_all(module.ast, c_ast.Constant):
        if c.type == "int":
            c.value = str(int(c.value) + by)


@pytest.fixture
def ws(write_c):
    return Workspace(write_c(PROG))


def test_clone_is_independent_both_ways(ws):
    base = ws.cu.t.code
    c1 = ws.clone()
    c2 = ws.clone()
    c1["g"].t_state_bump(by=1)
    c2["g"].t_state_bump(by=2)
    assert ws.cu.t.code == base
    assert "x + 2" in c1["g"].code and "x + 3" in c2["g"].code
    ws["g"].t_state_bump(by=5)
    assert "x + 6" in ws["g"].code
    assert "x + 2" in c1["g"].code and "x + 3" in c2["g"].code
    assert len(c1.history) == 1 and len(ws.history) == 1


def test_clone_shares_unmodified_functions_and_analyses(ws):
    ws.resource("callgraph")
    c = ws.clone()
    assert c._funcdef("g") is ws._funcdef("g")
    n = c.computations["callgraph"]
    c.resource("callgraph")
    assert c.computations["callgraph"] == n  # cached value carried to the clone
    c["main"].t_state_bump()
    assert c._funcdef("g") is ws._funcdef("g")  # untouched function still shared
    assert c._funcdef("main") is not ws._funcdef("main")


def test_failed_pass_on_clone_leaves_both_unchanged(ws):
    c = ws.clone()
    before = c.cu.t.code

    @transformation(scope="module", name="t_state_fail")
    def fail(module):
        """Mutate then refuse."""
        t_state_bump(module, 50)
        raise PassFailed("no")

    with pytest.raises(PassFailed):
        c["main"].t_state_fail()
    assert c.cu.t.code == before == ws.cu.t.code


def test_checkpoint_restore(ws):
    token = ws.checkpoint()
    before = ws.cu.t.code
    ws["g"].t_state_bump(by=4)
    assert ws.cu.t.code != before
    ws.restore(token)
    assert ws.cu.t.code == before and len(ws.history) == 0
    ws["g"].t_state_bump(by=1)
    ws.restore(token)  # the token is reusable
    assert ws.cu.t.code == before


def test_several_workspaces_in_one_process(write_c):
    a = Workspace(write_c(PROG, "a.c"))
    b = Workspace(write_c(PROG.replace("x + 1", "x + 9"), "b.c"))
    a["g"].t_state_bump()
    assert "x + 2" in a["g"].code and "x + 9" in b["g"].code
