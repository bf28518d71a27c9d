"""Data dependences (passes.poly.dependences): kinds, levels, distances, loop parallelism."""

from __future__ import annotations

import islpy as isl
import networkx as nx
import pytest
from conftest import CORPUS, corpus_programs, program_id
from passman.passes.poly.dependences import Dependence, value_flows

from passman import Workspace

DI = r"""
void di(int J, int I, double A[I + 2]) {
    int i, j;
    for (j = 1; j <= J; j++)
        for (i = 1; i <= I; i++)
            A[i] = 0.5 * (A[i] + A[i + 1]);
}
void down(int n, double a[n]) {
    for (int i = n - 2; i >= 0; i--)
        a[i] = a[i + 1] + 1.0;
}
void kill(int n, double a[n], double b[n]) {
    for (int i = 0; i < n; i++) {
        a[i] = 1.0;
        a[i] = 2.0;
        b[i] = a[i];
    }
}
void guarded(int n, double a[n], double x[n]) {
    for (int i = 0; i < n; i++) {
        a[i] = 0.0;
        if (x[i] > 0.0)
            a[i] = x[i];
        x[i] = a[i];
    }
}
void notscop(int n, double a[n]) {
    int k = 0;
    for (int i = 0; i < n; i += k + 1)
        a[i] = 0.0;
}
"""


@pytest.fixture(scope="module")
def ws():
    return Workspace.from_code(DI, "di.c")


def _direct(deps) -> list[tuple[str, tuple[int, ...], str, str]]:
    return sorted((d.kind, d.vector, d.source.text, d.sink.text) for d in deps if d.is_direct)


def test_table_3_1_of_di_2013(ws):
    """The five nearest dependences of Fig. 3.4: flow (1,0), (1,-1); anti (0,1), (1,0); output (1,0)."""
    deps = ws["di"].resource("dependences")
    assert _direct(deps) == [
        ("anti", (0, 1), "A[i + 1]", "A[i]"),
        ("anti", (1, 0), "A[i]", "A[i]"),
        ("flow", (1, -1), "A[i]", "A[i + 1]"),
        ("flow", (1, 0), "A[i]", "A[i]"),
        ("output", (1, 0), "A[i]", "A[i]"),
    ]
    by = {(d.kind, d.vector): d for d in deps if d.is_direct}
    e2 = by[("flow", (1, -1))]
    assert e2.level == 1 and e2.uniform and e2.direction == ("<", ">")
    # the polyhedron of e2 (regenerated with isl, Table 3.1's bounds are off by one)
    assert e2.direct.is_equal(isl.Map(
        "[I, J] -> { S0[j, i] -> S0[j + 1, i - 1] : 1 <= j < J and 2 <= i <= I }"))
    assert by[("anti", (0, 1))].level == 2
    # memory-based, the anti dependence A[i+1] -> A[i] is also carried by j (not nearest)
    far = [d for d in deps if d.kind == "anti" and d.level == 1 and d.source.text == "A[i + 1]"]
    assert far and not far[0].is_direct and not far[0].uniform


def test_levels_and_parallel_loops(ws):
    m = ws["di"]
    deps = m.resource("dependences")
    lj, li = m.all_loops
    assert {d.level for d in deps.carried_at(lj)} == {1}
    assert [d.kind for d in deps.carried_at(li)] == ["anti"]
    assert not deps.is_parallel(lj) and not deps.is_parallel(li)
    why = deps.explain(li)
    assert why.startswith(f"loop {li.label} of di is not parallel: ")
    assert "A[i + 1] read at iteration i (di.c:6) is overwritten by A[i] at i+1" in why


def test_decreasing_loop_distance_is_negative(ws):
    deps = ws["down"].resource("dependences")
    (flow,) = [d for d in deps if d.kind == "flow" and d.is_direct]
    assert flow.level == 1 and flow.vector == (-1,)
    assert "at i-1" in flow.why()


def test_value_based_flow_skips_killed_writes(ws):
    deps = ws["kill"].resource("dependences")
    flows = [d for d in deps if d.kind == "flow" and d.source.var == "a"]
    killed = [d for d in flows if d.source.stmt == "S0"]
    live = [d for d in flows if d.source.stmt == "S1"]
    assert killed and not any(d.is_direct for d in killed)  # memory-based only
    assert live and all(d.is_direct and d.level == 0 for d in live)
    assert deps.is_parallel(ws["kill"].loops()[0])


def test_may_writes_do_not_kill(ws):
    deps = ws["guarded"].resource("dependences")
    sources = {d.source_stmt.name for d in deps if d.kind == "flow" and d.sink.text == "a[i]"
               and d.is_direct and d.sink_stmt.name == "S3"}
    assert sources == {"S0", "S2"}  # the guarded write may not happen


def test_loop_outside_any_scop_is_unknown(ws):
    m = ws["notscop"]
    deps = m.resource("dependences")
    (lp,) = m.all_loops
    assert deps.carried_at(lp) is None and deps.is_parallel(lp) is None
    assert "not a static control part" in deps.explain(lp)


def test_dependence_graph(ws):
    deps = ws["kill"].resource("dependences")
    g = deps.graph
    assert isinstance(g, nx.MultiDiGraph)
    assert set(g.nodes) == {"S0", "S1", "S2"}
    assert g.has_edge("S1", "S2") and g.has_edge("S0", "S1")
    assert all(isinstance(data["dep"], Dependence) for _, _, data in g.edges(data=True))


def test_single_writer_shortcut_agrees_with_compute_flow(ws):
    """Flows with one certain writer are computed by lexmax; check against isl's compute_flow."""
    for name in ("di", "down", "kill"):
        deps = ws[name].resource("dependences")
        for part in deps.scops:
            arrays = {a.array for s in part.statements for a in s.accesses}
            for arr in arrays:
                acc = [a for s in part.statements for a in s.accesses if a.array == arr]
                reads = [a for a in acc if not a.is_write]
                writes = [a for a in acc if a.is_write]
                if not reads or not writes:
                    continue
                ref = value_flows(part, arr, reads, writes)
                for d in deps.of_scop(part):
                    if d.kind != "flow" or d.source.array != arr:
                        continue
                    key = (f"{d.source.stmt}__{d.source.index}", f"{d.sink.stmt}__{d.sink.index}")
                    m = ref.get(key)
                    expect = isl.Map.empty(d.direct.get_space()) if m is None else m.set_tuple_name(
                        isl.dim_type.in_, d.source_stmt.name).set_tuple_name(
                        isl.dim_type.out, d.sink_stmt.name).intersect(d.relation)
                    assert d.direct.is_equal(expect), (name, str(d))


# ----------------------------------------------------------------------- classic kernels


def test_matmul_i_and_j_loops_carry_nothing():
    ws = Workspace(CORPUS / "matmul_global.c")
    m = ws["matmul"]
    deps = m.resource("dependences")
    li, lj, lk = m.all_loops
    assert deps.carried_at(li) == [] and deps.carried_at(lj) == []
    assert deps.is_parallel(li) and deps.is_parallel(lj)
    assert not deps.is_parallel(lk)  # the sum is a reduction over k
    assert "sum" in deps.explain(lk)


def test_gauss_seidel_carries_dependences_at_every_level():
    ws = Workspace(CORPUS / "seidel_2d.c")
    m = ws["kernel_seidel_2d"]
    deps = m.resource("dependences")
    loops = m.all_loops
    assert len(loops) == 3
    for lp in loops:
        carried = deps.carried_at(lp)
        assert carried, lp
        assert any(d.kind == "flow" and d.is_direct for d in carried)


def test_jacobi_space_loops_carry_nothing_inside_the_time_loop():
    ws = Workspace(CORPUS / "jacobi_2d.c")
    m = ws["kernel_jacobi_2d"]
    deps = m.resource("dependences")
    t, *space = m.all_loops
    assert len(space) == 4
    assert deps.carried_at(t)
    for lp in space:
        assert deps.carried_at(lp) == [], deps.explain(lp)
    why = deps.explain(t)
    assert why.startswith(f"loop {t.label} of kernel_jacobi_2d is not parallel: ")
    assert "jacobi_2d.c:" in why and "at iteration t" in why


def test_dependences_are_cached():
    ws = Workspace(CORPUS / "jacobi_2d.c")
    m = ws["kernel_jacobi_2d"]
    a = m.resource("dependences")
    n = ws.computations["dependences"]
    assert m.resource("dependences") is a and ws.computations["dependences"] == n
    clone = ws.clone()
    assert clone["kernel_jacobi_2d"].resource("dependences") is a


def test_display(ws):
    text = ws["di"].annotated("dependences")
    assert "// dependence flow S0:A[i] -> S0:A[i + 1] level 1 distance (1, -1)" in text


@pytest.mark.parametrize("files", corpus_programs(), ids=program_id)
def test_every_corpus_program(files):
    ws = Workspace(*files)
    for m in ws.all_functions:
        deps = m.resource("dependences")
        for d in deps:
            assert d.kind in ("flow", "anti", "output")
            assert 0 <= d.level <= len(d.loops)
            assert not d.relation.is_empty()
            assert d.direct.is_subset(d.relation)
        for lp in m.all_loops:
            why = deps.explain(lp)
            assert why is None or why.startswith(f"loop {lp.label} of {m.name} ")


def test_value_based_flow_past_its_budget_falls_back_to_memory_based(monkeypatch):
    """isl's dataflow has an operation budget; beyond it every flow pair counts (never fewer)."""
    from passman.passes.poly import dependences as deps_module

    exact = Workspace.from_code(DI, "di.c")["kill"].resource("dependences")
    monkeypatch.setattr(deps_module, "FLOW_OPERATIONS", 1)
    rough = Workspace.from_code(DI, "di.c")["kill"].resource("dependences")
    direct = {(d.kind, d.source.stmt, d.sink.stmt, d.level) for d in exact if d.is_direct}
    rough_direct = {(d.kind, d.source.stmt, d.sink.stmt, d.level) for d in rough if d.is_direct}
    assert direct < rough_direct  # the killed write S0 -> a[i] now counts as direct
    assert any(d.kind == "flow" and d.source.stmt == "S0" and d.is_direct for d in rough)
