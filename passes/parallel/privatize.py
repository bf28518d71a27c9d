"""Array and scalar placement: ``scalarization`` (Amini 2012 §4.7) and ``privatize``.

* ``scalarization``: an array element that every iteration of a loop body
  accesses through one loop-invariant reference becomes a scalar of the body,
  loaded before (when the body imports it: IN regions) and stored after (when
  it is live afterwards: OUT regions). A temporary written then read in each
  iteration and dead after the loop is contracted to a scalar entirely.
* ``privatize``: the private scalars of a loop (``private_variables``) get
  their declaration in the loop body.
"""

from __future__ import annotations

from pycparser import c_ast

from passman import Loop, Module, PassFailed, transformation
from passman.astutil import copy_node, transform, walk
from passman.loop import iter_sites, loop_sites
from passman.printer import to_c

from ..analysis.effect_model import ANYWHERE
from ..cfacts.control import escaping_jumps
from ..cfacts.forms import array_ref_base, remove_declaration
from ..cfacts.names import file_scope, fresh_name, resolve_names, taken_names, where
from ..cfacts.sideeffects import has_side_effects, impure_calls, variables, writes
from .marker import without_variable

__all__ = ["privatize", "scalarization"]


# ---------------------------------------------------------------------- scalarization


def _array_shape(decl: c_ast.Decl) -> tuple[int, c_ast.TypeDecl | None]:
    """Rank of a declared array and its element's ``TypeDecl`` (0, None for a non-array)."""
    t, rank = decl.type, 0
    while isinstance(t, c_ast.ArrayDecl):
        t, rank = t.type, rank + 1
    return (rank, t) if isinstance(t, c_ast.TypeDecl) else (0, None)


def _outermost_refs(body: c_ast.Node) -> list[c_ast.ArrayRef]:
    inner = set()
    out = []
    for n in walk(body):
        if isinstance(n, c_ast.ArrayRef):
            if id(n) not in inner:
                out.append(n)
            inner.add(id(n.name))
    return out


def _in_inner_loop(body: c_ast.Node, ref: c_ast.Node) -> bool:
    for n in walk(body):
        if isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile)):
            if any(m is ref for m in walk(n)):
                return True
    return False


def _single_loop(body: c_ast.Node) -> c_ast.For | None:
    while isinstance(body, c_ast.Compound) and len(body.block_items or []) == 1:
        body = body.block_items[0]
    while isinstance(body, c_ast.Label):
        body = body.stmt
    return body if isinstance(body, c_ast.For) else None


class _Scalarizer:
    def __init__(self, module: Module, break_perfect_nest: bool):
        self.module = module
        self.break_perfect_nest = break_perfect_nest
        self.func = module.ast
        self.table = resolve_names(self.func, file_scope(module.cu.ast.ext))
        self.in_regions = module.resource("in_regions")
        self.out_regions = module.resource("out_regions")
        self.effects = module.resource("cumulated_effects")
        self.deps = module.resource("dependences")
        self.taken = taken_names(module.cu.ast)
        self.reasons: list[str] = []
        self.changed = 0

    def loop(self, label: str, node: c_ast.For) -> None:
        body = node.stmt
        self.table = resolve_names(self.func, file_scope(self.module.cu.ast.ext))  # sees earlier rewrites
        if escaping_jumps(body) or impure_calls(body, self.table, self.module.ws):
            return
        if any(e.var == ANYWHERE and e.action == "write" for e in self.effects.of(body)):
            return
        groups: dict[int, list[c_ast.ArrayRef]] = {}
        decls = {}
        for ref in _outermost_refs(body):
            base, _ = array_ref_base(ref)
            if isinstance(base, c_ast.ID):
                d = self.table.decl_of(base)
                if isinstance(d, c_ast.Decl):
                    groups.setdefault(id(d), []).append(ref)
                    decls[id(d)] = d
        plans = []
        for key, refs in groups.items():
            plan = self.candidate(label, node, decls[key], refs)
            if plan is not None:
                plans.append(plan)
        for plan in plans:
            self.apply(node, *plan)

    def candidate(self, label: str, node: c_ast.For, d: c_ast.Decl, refs: list[c_ast.ArrayRef]):
        body = node.stmt
        rank, elem = _array_shape(d)
        if rank == 0 or {"volatile"} & set(elem.quals) or "volatile" in d.quals:
            return None
        texts = set()
        for r in refs:
            _, subs = array_ref_base(r)
            if len(subs) != rank:
                return None
            texts.add(tuple(to_c(s) for s in subs))
        if len(texts) != 1:
            return None
        uses = [n for n in walk(body) if isinstance(n, c_ast.ID) and self.table.decl_of(n) is d]
        if len(uses) != len(refs):
            return None  # named other than as this element (address taken, passed whole ...)
        _, subs = array_ref_base(refs[0])
        local = {id(x) for x in walk(body) if isinstance(x, c_ast.Decl)}
        written = {id(self.table.decl_of(w.base)) for w in writes(body) if w.base is not None}
        for s in subs:
            if has_side_effects(s):
                return None
            for v in variables(s):
                vd = self.table.decl_of(v)
                if id(vd) in local or id(vd) in written:
                    return None
        sub_text = next(iter(texts))
        for e in self.effects.of(body):
            if e.var == d.name and e.subscripts is not None and tuple(e.subscripts) != tuple(
                t.replace(" ", "") for t in sub_text
            ) and tuple(e.subscripts) != sub_text:
                return None
        known = id(body) in self.in_regions.table
        copy_in = not known or any(r.var == d.name for r in self.in_regions.of(body))
        is_written = any(
            w.base is not None and self.table.decl_of(w.base) is d for w in writes(body)
        )
        copy_out = is_written and (
            id(body) not in self.out_regions.table or any(r.var == d.name for r in self.out_regions.of(body))
        )
        if copy_out and not copy_in and not _surely_assigned(body, refs):
            # the store after the body must put back the old value where the body did not write
            # (an inner loop that runs zero times, a write under an if): load it first
            copy_in = True
        if not any(_in_inner_loop(body, r) for r in refs) and (copy_in or copy_out or len(refs) < 2):
            return None  # nothing to gain: a load and a store per iteration, as before
        inner = _single_loop(body)
        if inner is not None and not self.break_perfect_nest:
            if self.deps.is_parallel(label) and self._parallel(inner):
                self.reasons.append(
                    f"{where(refs[0])}: scalarizing {to_c(refs[0])} in loop {label} would break "
                    "a perfect parallel nest (scalarization_break_perfect_nest)"
                )
                return None
        return d, elem, refs, copy_in, copy_out

    def _parallel(self, f: c_ast.For) -> bool:
        for s in iter_sites(loop_sites(self.func)):
            if s.node is f:
                return bool(self.deps.is_parallel(s.label))
        return False

    def apply(self, node: c_ast.For, d, elem, refs, copy_in: bool, copy_out: bool) -> None:
        name = fresh_name(f"scal_{d.name}", self.taken)
        ids = {id(r) for r in refs}
        model = copy_node(refs[0])
        body = transform(node.stmt, lambda n: c_ast.ID(name, n.coord) if id(n) in ids else None)
        t = copy_node(elem)
        t.declname = name
        t.quals = [q for q in t.quals if q not in ("const",)]
        decl = c_ast.Decl(name, [], [], [], [], t, copy_node(model) if copy_in else None, None, node.coord)
        items = list(body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
        items = [decl, *items]
        if copy_out:
            items.append(c_ast.Assignment("=", copy_node(model), c_ast.ID(name), node.coord))
        node.stmt = c_ast.Compound(items, node.stmt.coord)
        self.changed += 1


@transformation(scope="module", requires=["in_regions", "out_regions", "cumulated_effects", "dependences"],
                preserves=["callgraph"], reads=["in_region_analysis", "preconditions", "scops"])
def scalarization(module: Module, break_perfect_nest: bool = False) -> None:
    """Replace array elements that a loop body accesses at one invariant place by a scalar.

    Before (matrix product)::

        for (j = 0; j < n; j++) {
            C[i][j] = 0;
            for (k = 0; k < n; k++)
                C[i][j] += A[i][k] * B[k][j];
        }

    After::

        for (j = 0; j < n; j++) {
            double scal_C;
            scal_C = 0;
            for (k = 0; k < n; k++)
                scal_C += A[i][k] * B[k][j];
            C[i][j] = scal_C;
        }

    In the body of each loop (innermost first), an array whose every
    reference is the same full element with subscripts the body does not
    modify, named at least twice or inside an inner loop, becomes a scalar
    declared in the body: initialised from the element when the body's IN
    region holds the array, stored back when the body writes it and its OUT
    region holds it. A temporary written before being read in each iteration
    and dead afterwards is contracted away (no load, no store). Skipped:
    bodies with jumps out, impure calls or writes to unknown memory, and
    arrays named otherwise (address taken, passed to a call). Refused
    (``PassFailed``) when nothing is scalarized, naming a candidate kept to
    preserve a perfect parallel nest.

    Properties:

    - break_perfect_nest: also scalarize in the body of a parallel loop whose body is a parallel loop
      (default False)
    """
    sc = _Scalarizer(module, break_perfect_nest)
    sites = list(iter_sites(loop_sites(module.ast)))
    for s in sorted(sites, key=lambda s: -s.depth):
        sc.loop(s.label, s.node)
    if not sc.changed:
        raise PassFailed(sc.reasons[0] if sc.reasons else f"{module.name}: no array element to scalarize")


def _surely_assigned(body: c_ast.Node, refs: list[c_ast.ArrayRef]) -> bool:
    """Whether a statement of ``body`` itself (not under a loop or an ``if``) assigns one of ``refs``."""
    ids = {id(r) for r in refs}
    items = (body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
    return any(
        isinstance(item, c_ast.Assignment) and item.op == "=" and id(item.lvalue) in ids
        for item in items
    )


# ---------------------------------------------------------------------- privatize


@transformation(scope="loop", requires=["private_variables"], preserves=["callgraph"])
def privatize(loop: Loop) -> None:
    """Declare the private scalars of ``loop`` in its body (``private_variables`` says which).

    Before::

        double t;
        for (i = 0; i < n; i++) {
            t = a[i] * 2;
            b[i] = t + t;
        }

    After::

        for (i = 0; i < n; i++) {
            double t;
            t = a[i] * 2;
            b[i] = t + t;
        }

    A declaration left unused outside the loop is removed; otherwise the one
    in the body shadows it. The loop's own index stays where it is.
    Declarations with an initializer, ``static``/``extern`` ones, globals and
    parameters are not moved. Refused when no private scalar can be moved.
    """
    from ..analysis.privatization import loop_privates

    module = loop.module
    func = module.ast
    lp = loop_privates(loop)
    table = resolve_names(func, file_scope(module.cu.ast.ext))
    site = loop.site
    node = site.node
    # the header (any direction, any spelling) runs outside the body: its variables stay
    parts = [x for x in (node.init, node.cond, node.next) if x is not None]
    header = {v.name for part in parts for v in variables(part)}
    top = {}
    for n in walk(func.body):
        if isinstance(n, c_ast.Decl) and table.is_local(n):
            top.setdefault(n.name, []).append(n)
    inside = {id(n) for n in walk(node)}
    moved = []
    reasons = []
    for name in lp.private:
        if name in header:
            continue
        ds = [d for d in top.get(name, []) if id(d) not in inside]
        uses = [n for n in walk(node.stmt) if isinstance(n, c_ast.ID) and n.name == name]
        if len(ds) != 1 or not uses:
            continue
        d = ds[0]
        if not all(table.decl_of(u) is d for u in uses):
            continue
        if d.init is not None or set(d.storage) & {"static", "extern"} or not isinstance(d.type, c_ast.TypeDecl):
            reasons.append(f"{where(d)}: declaration of {name} has an initializer or storage class")
            continue
        moved.append(d)
    if not moved:
        why = reasons[0] if reasons else "no private scalar declared outside it"
        raise PassFailed(f"{where(node)}: loop {loop.label} of {module.name}: nothing to privatize: {why}")
    body = node.stmt if isinstance(node.stmt, c_ast.Compound) else c_ast.Compound([node.stmt], node.stmt.coord)
    body.block_items = [copy_node(d) for d in moved] + list(body.block_items or [])
    node.stmt = body
    # drop outer declarations no longer used, and their names from the clauses in their scope
    table = resolve_names(func, file_scope(module.cu.ast.ext))
    for d in moved:
        if not any(isinstance(n, c_ast.ID) and table.decl_of(n) is d for n in walk(func.body)):
            scope = _block_holding(func.body, d)
            remove_declaration(func.body, d)
            if scope is not None:
                _drop_from_clauses(scope, d.name)


def _block_holding(root: c_ast.Node, d: c_ast.Decl) -> c_ast.Node | None:
    """The block (or ``for`` with a declaration list) whose items hold declaration ``d``."""
    for n in walk(root):
        if isinstance(n, c_ast.Compound) and any(x is d for x in n.block_items or ()):
            return n
        if isinstance(n, c_ast.For) and isinstance(n.init, c_ast.DeclList) and any(x is d for x in n.init.decls):
            return n
    return None


def _declares(block: c_ast.Compound, name: str) -> bool:
    return any(isinstance(x, c_ast.Decl) and x.name == name for x in block.block_items or ())


def _drop_from_clauses(scope: c_ast.Node, name: str) -> None:
    """Remove ``name`` from the data clauses of the pragmas in ``scope`` that can see its removed declaration.

    Pragmas in a nested block declaring ``name`` again refer to that
    declaration (the copy ``privatize`` put in a loop body) and stay.
    """

    def visit(node: c_ast.Node) -> None:
        for _, child in node.children():
            if isinstance(child, c_ast.Compound) and _declares(child, name):
                continue
            if isinstance(child, c_ast.Pragma):
                child.string = without_variable(child.string, name)
            visit(child)

    visit(scope)
