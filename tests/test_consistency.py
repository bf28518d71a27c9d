"""The consistency manager: analyses computed once, reused, invalidated, preserved.

Test-only passes are registered here through the public decorators.
"""

from __future__ import annotations

import pytest
from pycparser import c_ast

from passman import InternalError, PassFailed, Workspace, analysis, transformation
from passman.astutil import find_all

PROG = """\
int g(int x) { return x + 1; }
int h(int x) { return 2 * x; }
int f(int x) { return g(x) + h(x); }
int main(void) { return f(1) - 7; }
"""


@analysis(scope="module", provides="t_constants")
def t_constants(module):
    """Integer constants of a function (test analysis)."""
    return sorted(int(c.value) for c in find_all(module.ast, c_ast.Constant) if c.type == "int")


@analysis(scope="module", provides="t_deep_constants")
def t_deep_constants(module):
    """Constants of a function and of everything it calls (bottom-up, test analysis)."""
    mine = list(module.resource("t_constants"))
    for callee in module.callees:
        mine += callee.resource("t_deep_constants")
    return sorted(mine)


@analysis(scope="module", provides="t_constants")
def t_constants_doubled(module):
    """An alternative producer of t_constants (for activate())."""
    return [2 * c for c in t_constants(module)]


def _bump_constants(module, by: int = 1):
    for c in find_all(module.ast, c_ast.Constant):
        if c.type == "int":
            c.value = str(int(c.value) + by)


@transformation(scope="module")
def t_bump(module, by: int = 1):
    """Add ``by`` to every integer constant (test transformation)."""
    _bump_constants(module, by)


@transformation(scope="module", preserves=["callgraph"])
def t_bump_preserving(module, by: int = 1):
    """Same, declaring that the call graph survives (it does: no call changes)."""
    _bump_constants(module, by)


@transformation(scope="module", preserves=["callgraph"])
def t_add_helper_preserving(module):
    """Adds a function that ``module`` calls, and (wrongly) declares the call graph kept."""
    from pycparser import c_parser

    helper = c_parser.CParser().parse("int t_helper(int x) { return x; }").ext[0]
    ext = module.cu.ast.ext
    ext.insert(next(k for k, n in enumerate(ext) if n is module.ast), helper)
    ret = module.ast.body.block_items[-1]
    ret.expr = c_ast.FuncCall(c_ast.ID("t_helper"), c_ast.ExprList([ret.expr]))


@transformation(scope="module")
def t_bump_then_fail(module):
    """Mutates, then refuses: the workspace must come back unchanged."""
    _bump_constants(module, 100)
    raise PassFailed("refused after mutating")


@transformation(scope="module")
def t_crash(module):
    """Mutates, then crashes: an internal error, and the workspace comes back unchanged."""
    _bump_constants(module, 100)
    return 1 // 0


@transformation(scope="module")
def t_noop(module):
    """Changes nothing (so it must raise PassFailed)."""


@pytest.fixture
def ws(write_c):
    return Workspace(write_c(PROG))


def test_computed_once_then_reused(ws):
    n0 = ws.computations["t_constants"]
    assert ws["f"].resource("t_constants") == []
    assert ws["main"].resource("t_constants") == [1, 7]
    assert ws["main"].resource("t_constants") == [1, 7]
    assert ws.computations["t_constants"] == n0 + 2


def test_recomputed_after_change_only_for_the_changed_module(ws):
    ws["main"].resource("t_constants")
    ws["g"].resource("t_constants")
    n = ws.computations["t_constants"]
    ws["main"].t_bump()
    assert ws["main"].resource("t_constants") == [2, 8]  # recomputed
    assert ws["g"].resource("t_constants") == [1]  # untouched module: reused
    assert ws.computations["t_constants"] == n + 1


def test_interprocedural_resource_follows_callees(ws):
    assert ws["main"].resource("t_deep_constants") == [1, 1, 2, 7]
    n = ws.computations["t_deep_constants"]
    ws["h"].resource("t_deep_constants")  # already computed as a callee: reused
    assert ws.computations["t_deep_constants"] == n
    ws["g"].t_bump(by=10)  # a callee changes: main's resource is recomputed
    assert ws["main"].resource("t_deep_constants") == [1, 2, 7, 11]
    assert ws.computations["t_deep_constants"] == n + 3  # g, f, main; not h
    ws["h"].resource("t_deep_constants")
    assert ws.computations["t_deep_constants"] == n + 3


def test_preserved_resources_are_kept(ws):
    ws.resource("callgraph")
    n = ws.computations["callgraph"]
    ws["g"].t_bump_preserving()
    ws.resource("callgraph")
    assert ws.computations["callgraph"] == n
    ws["g"].t_bump()  # does not declare preserves: recomputed
    ws.resource("callgraph")
    assert ws.computations["callgraph"] == n + 1


def test_nothing_is_preserved_across_a_new_function(ws):
    """A pass that adds a function (auto_schedule's trapezoidal walk) changed the call graph, whatever
    it declares: the cached one is not carried over."""
    before = ws.resource("callgraph")
    n = ws.computations["callgraph"]
    ws["f"].t_add_helper_preserving()
    after = ws.resource("callgraph")
    assert ws.computations["callgraph"] == n + 1
    assert "t_helper" in ws and after is not before
    assert "t_helper" in {c.name for c in ws["f"].callees}


def test_activate_chooses_the_producer(ws):
    assert ws["main"].resource("t_constants") == [1, 7]
    ws.activate("t_constants_doubled")
    assert ws["main"].resource("t_constants") == [2, 14]
    ws.activate("t_constants")
    assert ws["main"].resource("t_constants") == [1, 7]


def test_failed_transformation_leaves_code_identical_and_cache_usable(ws):
    before = ws.cu.t.code
    ws["main"].resource("t_constants")
    n = ws.computations["t_constants"]
    with pytest.raises(PassFailed, match="refused after mutating"):
        ws["main"].t_bump_then_fail()
    assert ws.cu.t.code == before
    assert ws["main"].resource("t_constants") == [1, 7]
    with pytest.raises(InternalError, match="ZeroDivisionError"):
        ws["main"].t_crash()
    assert ws.cu.t.code == before
    assert ws.computations["t_constants"] <= n + 1


def test_refusal_before_mutation_keeps_cache(ws):
    ws["main"].resource("t_constants")
    n = ws.computations["t_constants"]
    with pytest.raises(PassFailed, match="changed nothing"):
        ws["main"].t_noop()
    ws["main"].resource("t_constants")
    assert ws.computations["t_constants"] == n


def test_history_and_replay(ws, write_c):
    ws["main"].t_bump(by=3)
    with pytest.raises(PassFailed):
        ws["g"].t_noop()
    steps = list(ws.history)
    assert [(s.pass_name, s.target, s.changed) for s in steps] == [
        ("t_bump", ("module", "main"), True),
        ("t_noop", ("module", "g"), False),
    ]
    assert dict(steps[0].args) == {"by": 3} and steps[0].seconds >= 0
    other = Workspace(write_c(PROG, "t2.c"))
    assert ws.history.replay(other) == 1
    assert other["main"].code == ws["main"].code


def test_property_scoped_to_the_call(ws):
    ws.props.t_bump_by = 5
    ws["g"].t_bump()
    assert ws["g"].resource("t_constants") == [6]
    ws["g"].t_bump(by=1)
    assert ws.props.t_bump_by == 5  # restored after the call
    assert ws["g"].resource("t_constants") == [7]


def test_fixpoint_ends_on_passfailed(ws):
    state = {"n": 0}

    def step():
        state["n"] += 1
        if state["n"] > 3:
            raise PassFailed("nothing left")

    assert ws.fixpoint(step) == 3


def test_replacing_one_function_keeps_the_others_analyses(ws):
    ws["g"].resource("t_constants")
    n = ws.computations["t_constants"]
    ws["h"].code = "int h(int x) { return 3 * x; }"  # body change, same signature
    assert ws["g"].resource("t_constants") == [1]
    assert ws.computations["t_constants"] == n
    assert ws["h"].resource("t_constants") == [3]


def test_signature_change_invalidates_unit_level_resources(ws):
    from passman.consistency import Entry  # noqa: F401 - the cache holds Entry objects

    ws["g"].resource("unit_scope")
    n = ws.computations["unit_scope"]
    ws["h"].code = "int h(int x) { return 3 * x; }"
    ws["g"].resource("unit_scope")
    assert ws.computations["unit_scope"] == n  # same declarations: reused
    ws["h"].code = "int h(long x) { return 3 * x; }"
    ws["g"].resource("unit_scope")
    assert ws.computations["unit_scope"] == n + 1


def test_is_cached(ws):
    assert not ws.rm.is_cached("t_constants", ws["g"])
    ws["g"].resource("t_constants")
    assert ws.rm.is_cached("t_constants", ws["g"])
    ws["g"].t_bump()
    assert not ws.rm.is_cached("t_constants", ws["g"])
