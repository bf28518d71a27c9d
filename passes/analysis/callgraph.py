"""The call graph of the program (a networkx ``DiGraph`` of function names), and the calls of each function."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from pycparser import c_ast

from passman import analysis
from passman.astutil import called_names, walk


def _display(module, graph) -> dict:
    callees = sorted(graph.successors(module.name))
    callers = sorted(graph.predecessors(module.name))
    return {
        module.ast: [
            f"callers: {', '.join(callers) or '(none)'}",
            f"callees: {', '.join(callees) or '(none)'}",
        ]
    }


@analysis(scope="program", provides="callgraph", display=_display)
def callgraph(ws):
    """Who calls whom: an edge ``f -> g`` for every call of ``g`` in ``f``.

    Nodes are every function of the workspace (attribute ``defined=True``)
    and every function called without a body here (``defined=False``). Edge
    attribute ``sites`` counts the call sites.
    """
    import networkx as nx

    g = nx.DiGraph()
    for m in ws.modules:
        g.add_node(m.name, defined=True, stub=m.is_stub)
    for m in ws.modules:
        for callee in called_names(m.ast.body):
            if callee not in g:
                g.add_node(callee, defined=False, stub=False)
            if g.has_edge(m.name, callee):
                g[m.name][callee]["sites"] += 1
            else:
                g.add_edge(m.name, callee, sites=1)
    return g


@dataclass(frozen=True)
class FunctionReferences:
    """How one function names functions: its direct calls, and the names it uses otherwise."""

    #: callee name -> the calls of it by name, in :func:`~passman.astutil.walk` order
    calls: Mapping[str, tuple[c_ast.FuncCall, ...]]
    #: identifier -> its first use that is not the callee of a call (``&f``, ``p = f``,
    #: ``g(f)``; variables too): a function named here may be called by pointer
    other: Mapping[str, c_ast.ID]


@analysis(scope="module", provides="function_references")
def function_references(module) -> FunctionReferences:
    """The calls by name a function makes, and the identifiers it uses otherwise (one walk).

    Cached per function, so that a pass looking for every call of a
    function (``propagate_constant_arguments``) reads the other functions'
    tables instead of walking the whole program.
    """
    calls: dict[str, list[c_ast.FuncCall]] = {}
    callee_ids: set[int] = set()
    ids: list[c_ast.ID] = []
    for n in walk(module.ast):
        if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID):
            calls.setdefault(n.name.name, []).append(n)
            callee_ids.add(id(n.name))
        elif isinstance(n, c_ast.ID):
            ids.append(n)
    other: dict[str, c_ast.ID] = {}
    for n in ids:
        if id(n) not in callee_ids:
            other.setdefault(n.name, n)
    return FunctionReferences(MappingProxyType({k: tuple(v) for k, v in calls.items()}),
                              MappingProxyType(other))
