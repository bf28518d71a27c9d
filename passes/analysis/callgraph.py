"""The call graph of the program (a networkx ``DiGraph`` of function names)."""

from __future__ import annotations

from passman import analysis
from passman.astutil import called_names


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
