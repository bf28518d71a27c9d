"""Loop distribution (Allen–Kennedy) and loop fusion (Amini 2012 §4.6, regions-based test on isl).

* :func:`distribute` / ``loop_distribution``: split a loop into one loop per
  strongly connected component of the dependence graph of its body's
  statements, in topological order.
* ``loop_fusion``: fuse a loop with the loop that follows it in the same
  block; legality from the access relations of both bodies (isl).

Both refuse with :class:`~passman.PassFailed`, naming the dependence.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from pycparser import c_ast

from passman import Loop, Module, PassFailed, transformation
from passman.astutil import copy_node, replace_child, walk
from passman.lazy import LazyAttribute
from passman.printer import to_c

from ..analysis.effect_model import ANYWHERE
from ..cfacts.control import only_loop_index, pragmas_before
from ..cfacts.names import file_scope, resolve_names, substitute, where
from ..cfacts.sideeffects import impure_calls
from .counted import check_invariant_bounds, counted_loop, refuse

_DT = LazyAttribute("islpy", "dim_type")

__all__ = ["distribute", "loop_distribution", "loop_fusion", "fuse", "statements_conflict"]


# ---------------------------------------------------------------------- distribution


def body_items(body: c_ast.Node) -> list[c_ast.Node]:
    if isinstance(body, c_ast.Compound):
        return list(body.block_items or [])
    return [body]


def _owner_index(items: list[c_ast.Node]) -> dict[int, int]:
    """id(node) -> index of the top-level item holding it."""
    out = {}
    for k, it in enumerate(items):
        for n in walk(it):
            out[id(n)] = k
    return out


def _dependence_edges(loop: Loop, items: list[c_ast.Node]) -> list[tuple[int, int, str]] | None:
    """Edges (source item, sink item, why) from the SCoP dependences; None when the loop is in no SCoP."""
    module = loop.module
    deps = module.resource("dependences")
    part = deps.scops.for_loop(loop.label)
    if part is None:
        return None
    lp = part.loop(loop.label)
    owner = _owner_index(items)
    covered: set[int] = set()
    inside = {}
    for s in part.statements:
        if len(s.loops) > lp.depth and s.loops[lp.depth].node is lp.node:
            k = owner.get(id(s.node))
            if k is None:
                return None  # the AST changed under the analysis: be safe
            inside[s.name] = k
            covered.add(k)
    for k, it in enumerate(items):
        if k not in covered and not _trivial(it):
            return None
    edges = []
    for d in deps.of_scop(part):
        a, b = inside.get(d.source_stmt.name), inside.get(d.sink_stmt.name)
        if a is None or b is None or a == b:
            continue
        if d.level and d.level <= lp.depth:
            continue  # carried by an enclosing loop: one iteration of it at a time
        edges.append((a, b, d.why()))
    return edges


def _trivial(item: c_ast.Node) -> bool:
    return isinstance(item, (c_ast.Pragma, c_ast.EmptyStatement)) or (
        isinstance(item, c_ast.Decl) and item.init is None
    )


def _effect_edges(loop: Loop, items: list[c_ast.Node], index: str) -> list[tuple[int, int, str]]:
    """Conservative edges from cumulated effects: any conflict ties two items both ways."""
    module = loop.module
    cum = module.resource("cumulated_effects")
    table = resolve_names(module.ast, file_scope(module.cu.ast.ext))
    fx = []
    for it in items:
        rd, wr = set(), set()
        for e in cum.of(it):
            if e.var == index and not e.pointee:
                continue
            key = (e.var, e.pointee, id(e.decl) if e.decl is not None else e.kind)
            (wr if e.action == "write" else rd).add(key)
        fx.append((rd, wr, bool(impure_calls(it, table, module.ws))))
    edges = []
    for a in range(len(items)):
        for b in range(a + 1, len(items)):
            ra, wa, ca = fx[a]
            rb, wb, cb = fx[b]
            clash = (wa & (rb | wb)) | (wb & ra)
            any_a = any(k[0] == ANYWHERE for k in wa | ra)
            any_b = any(k[0] == ANYWHERE for k in wb | rb)
            if clash or (ca and cb) or ((any_a or any_b) and (wa or wb)):
                names = sorted({k[0] for k in clash}) or ["memory touched by calls"]
                why = f"{', '.join(names)} accessed by both ({where(items[a])} and {where(items[b])})"
                edges += [(a, b, why), (b, a, why)]
    return edges


def _binding_edges(module: Module, items: list[c_ast.Node]) -> list[tuple[int, int, str]]:
    """Declarations of the body stay with every statement naming them; pragmas with the next item."""
    edges = []
    table = resolve_names(module.ast, file_scope(module.cu.ast.ext))
    for k, it in enumerate(items):
        if isinstance(it, c_ast.Pragma) and k + 1 < len(items):
            edges += [(k, k + 1, "pragma"), (k + 1, k, "pragma")]
        decls = [it] if isinstance(it, c_ast.Decl) else list(it.decls) if isinstance(it, c_ast.DeclList) else []
        for d in decls:
            for j in range(k + 1, len(items)):
                if any(isinstance(n, c_ast.ID) and table.decl_of(n) is d for n in walk(items[j])):
                    why = f"declaration of {d.name} ({where(d)})"
                    edges += [(k, j, why), (j, k, why)]
    return edges


#: a dependence graph of body items: (source item, sink item) -> why the edge exists
Edges = dict[tuple[int, int], str]


def plan_distribution(loop: Loop) -> tuple[list[list[int]], list[c_ast.Node], Edges]:
    """The groups of body items (indices) of a maximal distribution, in execution order, and the edges.

    A group is a strongly connected component of the items' dependence
    graph; the groups come in topological order, the one holding the
    earliest item first among those ready. Refuses (``PassFailed``) loops
    that are not counted loops with invariant bounds and escaping jumps.
    """
    cl = counted_loop(loop, "cannot distribute")
    check_invariant_bounds(cl, "cannot distribute")
    items = body_items(cl.node.stmt)
    edges = _dependence_edges(loop, items)
    if edges is None:
        edges = _effect_edges(loop, items, cl.index)
    graph: Edges = {}
    for a, b, why in edges + _binding_edges(loop.module, items):
        graph.setdefault((a, b), why)
    return ordered_components(len(items), graph), items, graph


def ordered_components(n: int, edges: Iterable[tuple[int, int]]) -> list[list[int]]:
    """The strongly connected components of the graph of nodes ``0..n-1``, each sorted, in topological
    order (of the graph of components), the component with the smallest node first among those ready.

    Tarjan's algorithm, without recursion, then Kahn's. (networkx's
    ``condensation`` and ``lexicographical_topological_sort`` give the same;
    importing networkx costs 0.09 s of a command's start.)
    """
    succ: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        succ[a].append(b)
    index: list[int | None] = [None] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    comp = [-1] * n
    components: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] is not None:
            continue
        work = [(root, 0)]
        while work:
            v, k = work.pop()
            if k == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack[v] = True
            if k < len(succ[v]):
                work.append((v, k + 1))
                w = succ[v][k]
                if index[w] is None:
                    work.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])  # type: ignore[type-var]
                continue
            if low[v] == index[v]:
                members = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp[w] = len(components)
                    members.append(w)
                    if w == v:
                        break
                components.append(sorted(members))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    preds = [set() for _ in components]
    for a in range(n):
        for b in succ[a]:
            if comp[a] != comp[b]:
                preds[comp[b]].add(comp[a])
    waiting = [len(p) for p in preds]
    after: list[list[int]] = [[] for _ in components]
    for c, p in enumerate(preds):
        for q in p:
            after[q].append(c)
    ready = [(components[c][0], c) for c in range(len(components)) if not waiting[c]]
    heapq.heapify(ready)
    order: list[list[int]] = []
    while ready:
        _, c = heapq.heappop(ready)
        order.append(components[c])
        for d in after[c]:
            waiting[d] -= 1
            if not waiting[d]:
                heapq.heappush(ready, (components[d][0], d))
    return order


def _why_together(edges: Edges, group: list[int]) -> str:
    pairs = sorted(((a, b) for a in group for b in group if (a, b) in edges), key=lambda e: e[0] < e[1])
    for a, b in pairs:  # a backward edge first: it closes the cycle
        if edges[a, b] != "pragma":
            return edges[a, b]
    return "its statements depend on each other"


def distribute(loop: Loop) -> list[str]:
    """Distribute ``loop`` in place (inside a transformation) and return the labels of the loops.

    The first loop keeps ``loop``'s label; the others get fresh generated
    labels. Raises :class:`PassFailed` when the loop cannot be distributed or
    its body forms a single strongly connected component.
    """
    groups, items, g = plan_distribution(loop)
    groups = [gr for gr in groups if not all(isinstance(items[k], c_ast.EmptyStatement) for k in gr)]
    if len(groups) < 2:
        what = _why_together(g, groups[0]) if groups and len(groups[0]) > 1 else "a single statement"
        raise refuse(loop, f"nothing to distribute: {what}")
    site = loop.site
    f = site.node
    pragmas = pragmas_before(site.parent, site.labelled)
    new_nodes: list[c_ast.Node] = []
    labels = []
    for n, gr in enumerate(groups):
        stmts = [items[k] for k in gr]
        body = stmts[0] if len(stmts) == 1 and not isinstance(stmts[0], (c_ast.Decl, c_ast.DeclList)) \
            else c_ast.Compound(stmts, f.stmt.coord)
        if n == 0:
            f.stmt = body
            labels.append(site.label)
            new_nodes.append(site.labelled)
            continue
        copy = c_ast.For(copy_node(f.init), copy_node(f.cond), copy_node(f.next), body, f.coord)
        lab = loop.module.new_label()
        labels.append(lab)
        new_nodes += [copy_node(p) for p in pragmas]
        new_nodes.append(c_ast.Label(lab, copy, f.coord))
    replace_child(site.parent, site.labelled, new_nodes)
    return labels


@transformation(scope="module", requires=["dependences", "cumulated_effects"], preserves=["callgraph"], reads=["scops", "unit_scope"])
def loop_distribution(module: Module, label: str = "") -> None:
    """Maximal loop distribution (Allen–Kennedy): one loop per strongly connected component.

    Before::

        for (i = 1; i < n; i++) {
            a[i] = b[i] + 1;
            c[i] = c[i - 1] + a[i];
        }

    After::

        for (i = 1; i < n; i++)
            a[i] = b[i] + 1;
        for (i = 1; i < n; i++)
            c[i] = c[i - 1] + a[i];

    The graph has one vertex per statement of the body and an edge per
    dependence (from ``dependences`` where the loop is a static control
    part; otherwise any conflict of ``cumulated_effects`` ties two
    statements together). Components come out in topological order,
    ties in source order. Scalars written in the body always tie their
    statements together (their loop-carried anti dependences close a cycle),
    so no scalar crosses components; a declaration of the body stays with
    every statement naming it. With ``label`` empty every loop is
    distributed, outer loops first, then the loops nested in the results.
    Refused: loops that are not counted loops with invariant bounds,
    bodies with ``break``/``continue``/``return``/``goto``, and bodies that
    form one component (the message names a dependence of the cycle).

    Properties:

    - label: the loop to distribute (default: every loop)
    """
    if label:
        distribute(module.loop(label))
        return
    work = [lp.label for lp in module.loops()]
    changed, reasons = False, []
    while work:
        lab = work.pop(0)
        try:
            done = distribute(module.loop(lab))
            changed = True
        except PassFailed as e:
            reasons.append(str(e))
            done = [lab]
        for d in done:
            work.extend(child.label for child in module.loop(d).loops())
    if not changed:
        raise PassFailed(reasons[0] if reasons else f"{module.name} has no loop to distribute")


# ---------------------------------------------------------------------- fusion


def _next_loop(loop: Loop) -> Loop:
    site = loop.site
    items = getattr(site.parent, "block_items", None)
    if not items:
        raise refuse(loop, "cannot fuse: it is not in a block")
    k = next(i for i, n in enumerate(items) if n is site.labelled)
    if k + 1 >= len(items):
        raise refuse(loop, "cannot fuse: no statement follows it in its block")
    nxt = items[k + 1]
    if not (isinstance(nxt, c_ast.Label) and isinstance(nxt.stmt, c_ast.For)):
        raise refuse(loop, f"cannot fuse: the next statement ({where(nxt)}) is not a for loop")
    return Loop(loop.module, nxt.name)


def _same(a: c_ast.Node, b: c_ast.Node) -> bool:
    return to_c(a) == to_c(b)


def fusion_conflict(first: Loop, second: Loop, keep_parallel: bool = True) -> str | None:
    """Why fusing ``first`` with the following ``second`` is illegal (None: legal).

    Both must belong to one static control part. For every pair of accesses
    to one variable, one a write, one in each body, the instances touching
    the same element at the same iterations of the enclosing loops are split
    by the fused index: ``i2 < i1`` is a backward loop-carried dependence
    (always illegal), ``i1 < i2`` forward carried (illegal when
    ``keep_parallel`` and one of the loops is parallel), ``i1 == i2``
    forward loop-independent (legal).
    """
    deps = first.module.resource("dependences")
    part = deps.scops.for_loop(first.label)
    if part is None or deps.scops.for_loop(second.label) is not part:
        why = deps.scops.reason(first.label) or deps.scops.reason(second.label) or "they are in different parts"
        return f"the loops are not one static control part: {why}"
    l1, l2 = part.loop(first.label), part.loop(second.label)
    d = l1.depth

    def stmts(lp):
        return [s for s in part.statements if len(s.loops) > d and s.loops[d].node is lp.node]

    s1, s2 = stmts(l1), stmts(l2)
    parallel = deps.is_parallel(first.label) or deps.is_parallel(second.label)
    return statements_conflict(s1, s2, d, l1.var, keep_parallel and parallel)


def statements_conflict(
    s1: list, s2: list, d: int, var: str, forbid_forward: bool, flag: str = "loop_fusion_keep_parallel"
) -> str | None:
    """Why the SCoP statements ``s1`` (one loop body) and ``s2`` (a later one) cannot share loop ``d``.

    ``d`` is the 0-based position of the fused loop in the statements'
    domains (the positions before it are common enclosing loops); ``var``
    names its index in messages. A backward loop-carried conflict is always
    returned; a forward loop-carried one when ``forbid_forward`` (``flag``
    names the property asking for it). None: fusing keeps every dependence.
    """
    for a in s1:
        for b in s2:
            for x in a.accesses:
                for y in b.accesses:
                    if x.array != y.array or not (x.is_write or y.is_write):
                        continue
                    rel = x.relation.apply_range(y.relation.reverse())
                    for p in range(d):
                        rel = rel.equate(_DT.in_, p, _DT.out, p)
                    if rel.is_empty():
                        continue
                    kind = "flow" if x.is_write and not y.is_write else "anti" if y.is_write and not x.is_write \
                        else "output"
                    text = f"{kind} dependence from {x.text} ({where(a.node)}) to {y.text} ({where(b.node)})"
                    if not rel.order_gt(_DT.in_, d, _DT.out, d).is_empty():
                        return (f"backward loop-carried {text}: after fusion {y.text} would run at an earlier "
                                f"iteration of {var} than {x.text}")
                    if forbid_forward and not rel.order_lt(_DT.in_, d, _DT.out, d).is_empty():
                        return f"forward loop-carried {text} would make the fused loop sequential ({flag})"
    return None


def fuse(first: Loop, keep_parallel: bool = True) -> str:
    """Fuse ``first`` with the loop right after it, in place; returns the fused loop's label."""
    second = _next_loop(first)
    c1 = counted_loop(first, "cannot fuse")
    c2 = counted_loop(second, "cannot fuse")
    check_invariant_bounds(c1, "cannot fuse")
    table = check_invariant_bounds(c2, "cannot fuse")
    for lp in (first, second):
        if lp.pragma:
            raise refuse(lp, f"cannot fuse: it carries #pragma {lp.pragma[0]}; fuse before adding pragmas")
    body2 = c2.node.stmt
    if c1.index != c2.index:
        if any(isinstance(n, (c_ast.ID, c_ast.Decl)) and n.name == c1.index for n in walk(body2)):
            raise refuse(second, f"cannot fuse: its body names {c1.index}, the index of loop {first.label}")
        if c2.index_decl is None:
            decl = table.decl_of(c2.index_ref)
            if not only_loop_index(first.module.ast, decl, table, second.site.labelled):
                raise refuse(second, f"cannot fuse: its index {c2.index} is used after the loop")
    bounds1 = (c1.lb, c1.ub, c1.step)
    bounds2 = (c2.lb, c2.ub, c2.step)
    if not (_same(c1.lb, c2.lb) and _same(c1.ub, c2.ub) and c1.step == c2.step):
        show = [f"[{to_c(b[0])}, {to_c(b[1])}) step {b[2]}" for b in (bounds1, bounds2)]
        raise refuse(first, f"cannot fuse with loop {second.label}: bounds differ ({show[0]} vs {show[1]})")
    why = fusion_conflict(first, second, keep_parallel)
    if why:
        raise refuse(first, f"cannot fuse with loop {second.label}: {why}")
    if c1.index != c2.index:
        body2 = substitute(body2, c2.index, lambda: c_ast.ID(c1.index))
    i1, i2 = body_items(c1.node.stmt), body_items(body2)
    if any(isinstance(n, (c_ast.Decl, c_ast.DeclList)) for n in i1 + i2):
        i1, i2 = [c_ast.Compound(i1, c1.node.coord)], [c_ast.Compound(i2, body2.coord)]
    c1.node.stmt = c_ast.Compound(i1 + i2, c1.node.stmt.coord)
    site2 = second.site
    site2.parent.block_items.remove(site2.labelled)
    return first.label


@transformation(scope="loop", requires=["dependences"], preserves=["callgraph"], reads=["scops", "unit_scope"])
def loop_fusion(loop: Loop, keep_parallel: bool = True) -> None:
    """Fuse ``loop`` with the loop that follows it in the same block (Amini 2012 §4.6.5).

    Before::

        for (i = 0; i < n; i++)
            a[i] = b[i] * 2;
        for (i = 0; i < n; i++)
            c[i] = a[i] + 1;

    After::

        for (i = 0; i < n; i++) {
            a[i] = b[i] * 2;
            c[i] = a[i] + 1;
        }

    Legality on isl from the access relations of both bodies (second index
    renamed to the first): a dependence from an iteration of the second loop
    to an earlier iteration of the first after fusion (backward carried) is
    always refused; a forward carried one is refused when ``keep_parallel``
    and one of the loops is parallel; loop-independent ones are fine. The
    loops must be counted loops with the same bounds and step, in one static
    control part, without pragmas; a different index in the second loop is
    renamed when it carries no value out of the loop.

    Properties:

    - keep_parallel: refuse fusions that turn a parallel loop sequential (default True)
    """
    fuse(loop, keep_parallel)
