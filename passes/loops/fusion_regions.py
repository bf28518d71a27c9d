"""Sequence-level loop fusion (Amini 2012 §4.6.6): ``loop_fusion_with_regions`` (PIPS name).

Works on every block of a function, innermost first. The statements of a
block are the vertices of a *reduced dependence graph* (RDG); an edge
``u -> v`` says that ``v`` must stay after ``u`` (a dependence between
their statement instances at equal iterations of the enclosing loops, a
declaration and its uses, or anything across a statement outside the
static control part). Groups of loops are fused along three traversals, in
this order: flow (def-use) edges, read-read edges (data reuse), then
greedily any pair of loops; a fusion is kept only when:

* the quotient graph of the groups stays acyclic: the statements between
  two fused loops move before or after the fused loop;
* no dependence becomes backward loop-carried (:func:`fusion.statements_conflict`,
  on isl access relations);
* ``maximize_parallelism``: the loops are of one type (typed fusion:
  parallel with parallel, sequential with sequential) and two parallel
  loops stay parallel;
* ``keep_perfect_nests``: nests whose bodies are a single loop fuse only
  when their inner loops fuse too (recursively), so perfect nests stay
  perfect (the GPU setting).

The legality tests use the dependences of the function before the pass:
moving and fusing statements keeps every instance's accesses, so the
access relations stay valid throughout.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx
from pycparser import c_ast

from passman import Loop, Module, PassFailed, transformation
from passman.astutil import walk
from passman.printer import to_c

from ..cfacts.control import only_loop_index
from ..cfacts.names import file_scope, resolve_names, substitute
from .counted import check_invariant_bounds, counted_loop, refuse
from .fusion import body_items, statements_conflict
from .interchange import only_loop

__all__ = ["loop_fusion_with_regions"]

_FLAG = "loop_fusion_with_regions_maximize_parallelism"


@dataclass
class _Item:
    """One statement of a block (an RDG vertex)."""

    node: c_ast.Node
    pos: int
    label: str | None = None  # a candidate loop
    stmts: list = field(default_factory=list)  # SCoP statements inside
    part: int | None = None  # the SCoP holding the whole item
    barrier: bool = False
    decl: c_ast.Decl | None = None  # a declaration without initialiser


class _Fuser:
    def __init__(
        self, module: Module, maximize: bool, greedy: bool, read_read: bool, perfect: bool
    ):
        self.module = module
        self.maximize = maximize
        self.greedy = greedy
        self.read_read = read_read
        self.perfect = perfect
        self.deps = module.resource("dependences")
        self.scops = self.deps.scops
        self.stmt_of = {id(s.node): (s, p.index) for p in self.scops for s in p.statements}
        self.parallel: dict[str, bool] = {}
        self.fused: list[str] = []
        self.reasons: list[str] = []
        self.headers: dict[str, object] = {}

    # -- items and edges ---------------------------------------------------------------
    def item(self, node: c_ast.Node, pos: int, table) -> _Item:
        it = _Item(node, pos)
        if isinstance(node, c_ast.Label) and isinstance(node.stmt, c_ast.For):
            part = self.scops.for_loop(node.name)
            it.part = None if part is None else part.index
            it.label = node.name if part is not None else None
        elif (
            isinstance(node, c_ast.Decl)
            and node.init is None
            and "static" not in (node.storage or [])
            and not _variable_length(node)
        ):
            it.decl = node
            return it
        elif isinstance(node, c_ast.EmptyStatement):
            return it
        elif id(node) in self.stmt_of:
            it.part = self.stmt_of[id(node)][1]
        if it.part is None:
            it.barrier = True
            return it
        for n in walk(node):
            hit = self.stmt_of.get(id(n))
            if hit is not None:
                it.stmts.append(hit[0])
        if it.label is not None:
            f = node.stmt
            idx = _index_decl(f, table)
            if idx is not None and not only_loop_index(self.module.ast, idx, table, node):
                it.barrier, it.label = True, None  # its index's exit value is read later
        return it

    def edges(
        self, items: list[_Item], depth: dict[int, int], table
    ) -> tuple[nx.DiGraph, set, set]:
        """The RDG (all ordering edges), its flow edges and the read-read pairs."""
        g = nx.DiGraph()
        g.add_nodes_from(range(len(items)))
        flow, rr = set(), set()
        for a in range(len(items)):
            for b in range(a + 1, len(items)):
                x, y = items[a], items[b]
                if x.barrier or y.barrier:
                    g.add_edge(a, b)
                    continue
                if x.decl is not None or y.decl is not None:
                    if x.decl is not None and any(
                        isinstance(n, c_ast.ID) and table.decl_of(n) is x.decl for n in walk(y.node)
                    ):
                        g.add_edge(a, b)
                    continue
                if not x.stmts or not y.stmts:
                    continue
                if x.part != y.part:
                    g.add_edge(a, b)
                    continue
                kinds = _conflicts(x.stmts, y.stmts, depth[x.part])
                if kinds - {"read"}:
                    g.add_edge(a, b)
                if "flow" in kinds:
                    flow.add((a, b))
                if "read" in kinds:
                    rr.add((a, b))
        return g, flow, rr

    # -- legality of one fusion ----------------------------------------------------------
    def header(self, label: str):
        if label not in self.headers:
            loop = Loop(self.module, label)
            try:
                cl = counted_loop(loop, "cannot fuse")
                check_invariant_bounds(cl, "cannot fuse")
                if cl.step <= 0:
                    raise cl.fail("cannot fuse: the loop does not count upwards")
                if loop.pragma:
                    raise cl.fail(f"cannot fuse: it carries #pragma {loop.pragma[0]}")
                self.headers[label] = cl
            except PassFailed as e:
                self.headers[label] = str(e)
        return self.headers[label]

    def is_parallel(self, label: str) -> bool:
        if label not in self.parallel:
            self.parallel[label] = bool(self.deps.is_parallel(label))
        return self.parallel[label]

    def check(self, members: list[_Item], d: int, table) -> tuple[str | None, bool]:
        """Why the loops ``members`` (in block order) cannot become one loop; and its parallelism."""
        heads = [self.header(m.label) for m in members]
        for h in heads:
            if isinstance(h, str):
                return h, False
        host = heads[0]
        for m, h in zip(members[1:], heads[1:]):
            if not h.loop.generated:
                return refuse(
                    h.loop, f"cannot fuse: its label {m.label} is written in the source"
                ), False
            if not (
                to_c(h.lb) == to_c(host.lb) and to_c(h.ub) == to_c(host.ub) and h.step == host.step
            ):
                return refuse(
                    host.loop,
                    f"cannot fuse with loop {m.label}: bounds differ "
                    f"([{to_c(host.lb)}, {to_c(host.ub)}) vs [{to_c(h.lb)}, {to_c(h.ub)}))",
                ), False
            if h.index != host.index:
                if any(
                    (isinstance(n, c_ast.ID) and n.name == host.index)
                    or (isinstance(n, c_ast.Decl) and n.name == host.index)
                    for n in walk(h.node.stmt)
                ):
                    return refuse(
                        h.loop,
                        f"cannot fuse: its body names or declares {host.index}, "
                        f"the index of loop {members[0].label}",
                    ), False
        var = host.index
        parallel = all(self.is_parallel(m.label) for m in members)
        forward = False
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                why = statements_conflict(a.stmts, b.stmts, d, var, False)
                if why:
                    return refuse(
                        Loop(self.module, a.label), f"cannot fuse with loop {b.label}: {why}"
                    ), False
                fwd = statements_conflict(a.stmts, b.stmts, d, var, True, _FLAG)
                if fwd:
                    forward = True
                    if self.maximize and parallel:
                        return refuse(
                            Loop(self.module, a.label), f"cannot fuse with loop {b.label}: {fwd}"
                        ), False
        if self.maximize and len({self.is_parallel(m.label) for m in members}) > 1:
            par = [m.label for m in members if self.is_parallel(m.label)]
            seq = [m.label for m in members if not self.is_parallel(m.label)]
            return refuse(Loop(self.module, members[0].label),
                          f"cannot fuse parallel loop {par[0]} with sequential loop {seq[0]} "
                          f"({_FLAG})"), False  # fmt: skip
        if self.perfect:
            inner = [only_loop(m.node.stmt.stmt) for m in members]
            if any(x is not None for x in inner):
                if any(x is None for x in inner):
                    return refuse(Loop(self.module, members[0].label),
                                  "cannot fuse: a perfect nest would become imperfect "
                                  "(loop_fusion_with_regions_keep_perfect_nests)"), False  # fmt: skip
                kids = [self.item(x, m.pos, table) for x, m in zip(inner, members)]
                if any(k.label is None for k in kids):
                    return refuse(Loop(self.module, members[0].label),
                                  "cannot fuse: the inner loops of the perfect nests cannot be fused "
                                  "(loop_fusion_with_regions_keep_perfect_nests)"), False  # fmt: skip
                why, _ = self.check(kids, d + 1, table)
                if why:
                    return f"{why} (the inner loops of perfect nests, keep_perfect_nests)", False
        return None, parallel and not forward

    # -- one block ------------------------------------------------------------------------
    def block(self, comp: c_ast.Compound, enclosing: list[str]) -> None:
        items_nodes = list(comp.block_items or [])
        for n in items_nodes:
            self.descend(n, enclosing)
        table = resolve_names(self.module.ast, file_scope(self.module.cu.ast.ext))
        items = [self.item(n, k, table) for k, n in enumerate(items_nodes)]
        depth = {}
        for p in self.scops:
            depth[p.index] = sum(1 for lab in enclosing if p.loop(lab) is not None)
        g, flow, rr = self.edges(items, depth, table)
        groups = {k: [k] for k in range(len(items))}
        par: dict[int, bool] = {}
        how_of: dict[int, list[str]] = {}
        fused_here: list[str] = []

        def quotient(merge: tuple[int, int] | None = None) -> nx.DiGraph:
            owner = {m: r for r, ms in groups.items() for m in ms}
            if merge:
                owner = {m: (merge[0] if r == merge[1] else r) for m, r in owner.items()}
            q = nx.DiGraph()
            q.add_nodes_from(set(owner.values()))
            for a, b in g.edges:
                if owner[a] != owner[b]:
                    q.add_edge(owner[a], owner[b])
            return q

        def try_fuse(r1: int, r2: int, how: str) -> bool:
            if r1 == r2 or items[r1].label is None or items[r2].label is None:
                return False
            members = sorted(groups[r1] + groups[r2])
            part = items[r1].part
            if any(items[m].part != part for m in members):
                return False
            why, p = self.check([items[m] for m in members], depth[part], table)
            if why is None and not nx.is_directed_acyclic_graph(quotient((r1, r2))):
                why = refuse(Loop(self.module, items[r1].label),
                             f"cannot fuse with loop {items[r2].label}: a statement between them depends "
                             "on the first loop and the second loop depends on it")  # fmt: skip
            if why is not None:
                self.reasons.append(str(why))
                return False
            groups[r1] = members
            del groups[r2]
            par[r1] = p
            how_of[r1] = how_of.pop(r1, []) + how_of.pop(r2, []) + [how]
            fused_here.append(how)
            return True

        def owner(k: int) -> int:
            return next(r for r, ms in groups.items() if k in ms)

        def sweep(pairs, how: str) -> None:
            changed = True
            while changed:
                changed = False
                for a, b in sorted(pairs, key=lambda e: (items[e[0]].pos, items[e[1]].pos)):
                    ra, rb = owner(a), owner(b)
                    if ra == rb:
                        continue
                    first, second = (ra, rb) if min(groups[ra]) < min(groups[rb]) else (rb, ra)
                    if try_fuse(first, second, how):
                        changed = True
                        break

        sweep(flow, "flow")
        if self.read_read:
            sweep({(a, b) for a, b in rr if not nx.has_path(g, a, b)}, "read-read")
        if self.greedy:
            loops = [k for k, it in enumerate(items) if it.label is not None]
            sweep({(a, b) for a in loops for b in loops if a < b}, "greedy")
        if not fused_here:
            return
        q = quotient()
        order = list(nx.lexicographical_topological_sort(q, key=lambda r: min(groups[r])))
        new_nodes, fused_loops = [], []
        for r in order:
            ms = groups[r]
            if len(ms) == 1:
                new_nodes.append(items[ms[0]].node)
                continue
            host = self.merge([items[m] for m in ms], par[r], depth[items[r].part], table)
            labels = ", ".join(items[m].label for m in ms)
            kinds = ", ".join(dict.fromkeys(how_of.get(r, [])))
            self.fused.append(f"{self.module.name}: loops {labels} fused ({kinds})")
            new_nodes.append(host)
            fused_loops.append(host)
        comp.block_items = new_nodes
        self.headers.clear()  # bodies and indices changed
        for host in fused_loops:  # new sequences inside the fused bodies
            self.descend(host, enclosing)

    def merge(self, members: list[_Item], par: bool, d: int, table) -> c_ast.Label:
        """Fuse the loops ``members`` (block order) into the first; returns its labelled node.

        ``par``: whether the fused loop is parallel; ``d``: its position in the
        statements' domains.
        """
        heads = [self.header(m.label) for m in members]
        host = heads[0]
        bodies = []
        for h in heads:
            body = h.node.stmt
            if h.index != host.index:
                body = substitute(body, h.index, lambda: c_ast.ID(host.index))
            bodies.append(body)
        if self.perfect and all(only_loop(b) is not None for b in bodies):
            kids = [only_loop(b) for b in bodies]
            kid_items = [self.item(k, m.pos, table) for k, m in zip(kids, members)]
            _, kid_par = self.check(kid_items, d + 1, table)
            inner = self.merge(kid_items, kid_par, d + 1, table)
            labels = ", ".join(k.label for k in kid_items)
            self.fused.append(f"{self.module.name}: loops {labels} fused (perfect nest)")
            host.node.stmt = inner
        else:
            lists = [body_items(b) for b in bodies]
            if any(isinstance(n, (c_ast.Decl, c_ast.DeclList)) for lst in lists for n in lst):
                lists = [[b if isinstance(b, c_ast.Compound) else c_ast.Compound([b], b.coord)]
                         for b in bodies]  # fmt: skip
            host.node.stmt = c_ast.Compound([n for lst in lists for n in lst], host.node.stmt.coord)
        for m in members:
            self.parallel.pop(m.label, None)
        self.parallel[members[0].label] = par
        return members[0].node

    def descend(self, node: c_ast.Node, enclosing: list[str]) -> None:
        """Process the blocks nested in ``node`` (innermost first)."""
        if isinstance(node, c_ast.Label) and isinstance(node.stmt, c_ast.For):
            self.descend(node.stmt.stmt, enclosing + [node.name])
            return
        if isinstance(node, c_ast.Compound):
            self.block(node, enclosing)
            return
        for _, child in node.children():
            if isinstance(child, (c_ast.Compound, c_ast.Label, c_ast.If, c_ast.While, c_ast.DoWhile,
                                  c_ast.For, c_ast.Switch, c_ast.Case, c_ast.Default)):  # fmt: skip
                self.descend(child, enclosing)


def _index_decl(f: c_ast.For, table) -> object | None:
    """The declaration of a loop's index when it is declared outside the loop."""
    if isinstance(f.init, c_ast.DeclList):
        return None
    if isinstance(f.init, c_ast.Assignment) and isinstance(f.init.lvalue, c_ast.ID):
        return table.decl_of(f.init.lvalue)
    return None


def _variable_length(decl: c_ast.Decl) -> bool:
    """Whether a declaration's type has an array dimension that is not a literal (a VLA)."""
    t = decl.type
    while t is not None and not isinstance(t, c_ast.TypeDecl):
        if isinstance(t, c_ast.ArrayDecl) and not (
            t.dim is None or isinstance(t.dim, c_ast.Constant)
        ):
            return True
        t = getattr(t, "type", None)
    return False


def _conflicts(s1: list, s2: list, d: int) -> set[str]:
    """Kinds of conflicts (``flow``, ``anti``, ``output``, ``read``) from ``s1`` to the later ``s2``.

    Only instances at equal iterations of the ``d`` enclosing loops count.
    """
    from passman.lazy import LazyAttribute

    dt = LazyAttribute("islpy", "dim_type")
    out: set[str] = set()
    for a in s1:
        for b in s2:
            for x in a.accesses:
                for y in b.accesses:
                    if x.array != y.array:
                        continue
                    kind = ("output" if x.is_write and y.is_write else "flow" if x.is_write
                            else "anti" if y.is_write else "read")  # fmt: skip
                    if kind in out:
                        continue
                    rel = x.relation.apply_range(y.relation.reverse())
                    for p in range(d):
                        rel = rel.equate(dt.in_, p, dt.out, p)
                    if not rel.is_empty():
                        out.add(kind)
    return out


@transformation(scope="module", requires=["dependences"], preserves=["callgraph"], reads=["scops", "unit_scope"])
def loop_fusion_with_regions(
    module: Module,
    maximize_parallelism: bool = True,
    greedy: bool = True,
    read_read: bool = True,
    keep_perfect_nests: bool = False,
) -> list[str]:
    """Fuse the loops of every statement sequence of a function (Amini 2012 §4.6.6).

    Before (Fig. 4.10)::

        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++)
                a[i][j] = 1.0;
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++)
                b[i][j] = 1.0;
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++)
                c[i][j] = a[i][j] + b[i][j];

    After::

        for (i = 0; i < n; i++) {
            for (j = 0; j < n; j++) {
                a[i][j] = 1.0;
                b[i][j] = 1.0;
                c[i][j] = a[i][j] + b[i][j];
            }
        }

    Each block is processed innermost first; its statements form the reduced
    dependence graph, groups of loops are fused along flow edges, then
    read-read edges (loops reading the same data, not ordered by a path),
    then greedily, each fusion kept only when it is legal (see the module
    docstring); statements between fused loops move before or after them.
    The bodies of fused loops are then processed as new sequences. Loops
    must be counted loops with the same bounds and step, in one static
    control part, without pragmas. Returns one line per fused group
    (``"f: loops l1, l3 fused"``); raises ``PassFailed`` when nothing fuses,
    with the first reason found (the dependence it would break).

    Properties:

    - maximize_parallelism: typed fusion, two parallel loops stay parallel (default True)
    - greedy: then try every remaining pair of loops (default True)
    - read_read: fuse along read-read edges (default True)
    - keep_perfect_nests: perfect nests fuse only with their inner loops (GPU; default False)
    """
    f = _Fuser(module, maximize_parallelism, greedy, read_read, keep_perfect_nests)
    f.block(module.ast.body, [])
    if not f.fused:
        why = next((r for r in f.reasons if "dependence" in r), f.reasons[0] if f.reasons else None)
        raise PassFailed(why or f"{module.name}: no two loops of one sequence to fuse")
    return f.fused
