"""Kernel mapping: each outermost parallel loop nest becomes a kernel and its launcher.

Before (``module.apply("gpu_ify")``)::

    void f(int n, double A[n][n], double B[n][n])
    {
        int i, j;
        for (i = 0; i < n; i++)
            for (j = 0; j < i; j++)
                A[i][j] = 2.0 * B[j][i];
    }

After::

    void p4a_kernel_0(int n, double A[n][n], double B[n][n], int i, int j)
    {
        if (j < i)
            A[i][j] = 2.0 * B[j][i];
    }

    void p4a_launcher_0(int n, double A[n][n], double B[n][n])
    {
        #pragma passman launch p4a_kernel_0
        for (int i = 1; i <= n - 1; i++)
            for (int j = 0; j <= n - 2; j++)
                p4a_kernel_0(n, A, B, i, j);
    }

    void f(int n, double A[n][n], double B[n][n])
    {
        int i, j;
        p4a_launcher_0(n, A, B);
    }

The program stays plain C with the original's meaning (the launcher's loops
run the points of the iteration *box* in order; the kernel does one point,
or nothing outside the nest's domain), so every step can be checked by
running it. Backends turn the loops under ``#pragma passman launch K`` into
a launch of ``K`` over the box, the innermost loop on dimension 0.

What is mapped: the outermost loop that the parallel verdict
(:mod:`..parallel.verdicts`) declares parallel with no lastprivate
variable, and up to ``max_dims - 1`` loops perfectly nested in it that are
parallel too; deeper loops stay inside the kernel. A loop with scalar
reductions (``+ * ^ & | && ||``, min, max) on local variables is mapped
alone: each work-item keeps a partial value, the host combines them after
the launch (:func:`_partials`). The box is
the rectangular hull of the points where some statement of the body runs
(isl, from the static control part), as C expressions of the variables
live at the nest; a mapped loop whose bounds depend on another mapped index
gets its bounds back as the kernel's guard. Without a static control part,
mapped loops must have bounds free of the other mapped indices.

A nest stays on the host, with the reason (logged; a PassFailed when the
``label`` named it): a call to a function with no device version (anything
but the math library: inline program functions first), a call through a
function pointer, a reduction on an array or a non-local variable, a variable live
after the nest that the nest writes, a structure member access, a mapped loop of step other than 1 or
-1 (normalize it first), or a box that cannot be written in C.

Properties:

- label: the loop to map (default: every outermost parallel nest)
- max_dims: the most loops mapped onto device dimensions (1 to 3)
- prefix: prefix of the new functions' names (``p4a`` gives p4a_kernel_0, p4a_launcher_0)
- nested_reductions: map a reduction loop nested in a sequential loop (false: leave it on the
  host, for gpu_promote_sequential)
- block: the launches' block size, dimension 0 (the innermost loop) first (``32x8``; default:
  the runtime chooses from the device; ``PASSMAN_ACCEL_BLOCK_<kernel>`` overrides it)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast

from passman import InvalidInput, Module, PassFailed, transformation
from passman.astutil import conjunction, copy_node, replace_child, walk
from passman.printer import to_c

from ..cfacts.control import detach_pragmas
from ..cfacts.folding import simplify
from ..cfacts.names import (
    file_scope,
    fresh_name,
    pointer_declaration,
    rename_declaration,
    resolve_names,
    where,
)
from ..cfacts.sideeffects import writes
from ..interproc.outline import outline
from ..parallel.verdicts import loop_header
from ..poly.c_expr import dim_bounds_to_c

log = logging.getLogger("passman.gpu")

_DT = isl.dim_type

#: math functions every target has on the device (CUDA device math, OpenCL built-ins)
DEVICE_MATH = frozenset(
    "sqrt sqrtf exp expf exp2 log logf log2 log10 pow powf sin sinf cos cosf tan tanf asin acos atan "
    "atan2 sinh cosh tanh fabs fabsf floor floorf ceil ceilf fmin fmax fminf fmaxf fmod round trunc "
    "cbrt hypot erf erfc".split()
)


@dataclass
class Nest:
    """A nest chosen for the device: its mapped loops (outermost first) and their headers."""

    sites: list  # LoopSite, outermost first
    headers: list
    private: set  # names each iteration must own (the verdicts of the mapped loops)
    reductions: tuple = ()  # scalar reductions of the (single) mapped loop


def _single_loop(body: c_ast.Node):
    """The one labelled loop a loop body consists of (pragmas and empty statements aside), or None."""
    items = body.block_items or [] if isinstance(body, c_ast.Compound) else [body]
    rest = [n for n in items if not isinstance(n, (c_ast.Pragma, c_ast.EmptyStatement))]
    if len(rest) == 1 and isinstance(rest[0], c_ast.Label) and isinstance(rest[0].stmt, c_ast.For):
        return rest[0]
    return None


def _host_reason(module: Module, verdict, site) -> str | None:
    """Why a parallel loop cannot be the outermost of a kernel (None: it can)."""
    for r in verdict.reductions:
        if r.kind != "scalar" or r.pointee or r.decl is None or r.op not in _IDENTITY:
            return (f"it needs the reduction {r.text} (on the device: only {', '.join(_IDENTITY)} on a "
                    "local scalar; an array stays on the host)")
    if verdict.lastprivate:
        return f"{', '.join(verdict.lastprivate)} written by the nest is used after it"
    return device_obstacle(module, site.node.stmt)


def device_obstacle(module: Module, stmt: c_ast.Node) -> str | None:
    """Why ``stmt`` cannot run on the device (a call without a device version, a structure), or None."""
    for n in walk(stmt):
        if isinstance(n, c_ast.StructRef):
            return f"it accesses {to_c(n)} at {where(n)} (structures are not moved to the device yet)"
        if not isinstance(n, c_ast.FuncCall):
            continue
        if not isinstance(n.name, c_ast.ID):
            return f"it calls through a function pointer at {where(n)}"
        name = n.name.name
        if name in DEVICE_MATH:
            continue
        if name in module.ws.function_names():
            return f"it calls {name} at {where(n)}, which has no device version (inline it first)"
        return f"it calls {name} at {where(n)}, which has no device implementation"
    return None


def _choose(module: Module, site, verdicts, max_dims: int,
            nested_reductions: bool = True) -> tuple[Nest | None, str | None]:
    verdict = verdicts[site.label]
    if not verdict.parallel:
        return None, "; ".join(verdict.reasons) or "it is not parallel"
    why = _host_reason(module, verdict, site)
    if why:
        return None, why
    if verdict.reductions and site.outer is not None and not nested_reductions:
        return None, ("its reduction is inside a sequential loop (nested_reductions=false: its partial "
                      "values would come back at every iteration; gpu_promote_sequential can move it)")
    sites = [site]
    while len(sites) < (1 if verdict.reductions else max_dims):  # a reduction: one partial per i
        inner = _single_loop(sites[-1].node.stmt)
        if inner is None:
            break
        child = next(c for c in sites[-1].children if c.labelled is inner)
        v = verdicts[child.label]
        if not v.parallel or v.reductions or v.lastprivate:
            break
        sites.append(child)
    headers = []
    for s in sites:
        hdr, why = loop_header(s.node, module)
        if hdr is None:
            return None, f"loop {s.label}: {why}"
        if abs(hdr.step) != 1:
            return None, f"loop {s.label} at {where(s.node)} has step {hdr.step} (normalize it first)"
        headers.append(hdr)
    private = {name for site in sites for name in verdicts[site.label].private}
    indices = {h.index for h in headers}
    own = private | indices | {r.var for r in verdict.reductions}
    inside = {id(n) for n in walk(site.node)}
    table = resolve_names(module.ast, file_scope(module.cu.ast.ext))
    for w in writes(site.node.stmt):  # a scalar of the host the kernel would write through a pointer
        if w.kind == "whole" and w.base is not None and w.base.name not in own:
            d = table.decl_of(w.base)
            if isinstance(d, c_ast.Decl) and id(d) not in inside:
                return None, (f"it writes {w.base.name} at {where(w.node)}, declared outside it and neither "
                              "private nor a reduction")
    return Nest(sites, headers, private - indices, verdict.reductions), None


def _mentions(e: c_ast.Node, names: set[str]) -> bool:
    return any(isinstance(n, c_ast.ID) and n.name in names for n in walk(e))


def _box_from_headers(nest: Nest) -> list[tuple[c_ast.Node, c_ast.Node]] | None:
    """Bounds of each mapped loop from its header, when free of the other mapped indices."""
    indices = {h.index for h in nest.headers}
    out = []
    for h in nest.headers:
        if len(h.bounds) != 1 or _mentions(h.lower, indices) or _mentions(h.bounds[0][1], indices):
            return None
        op, bound = h.bounds[0]
        last: c_ast.Node = copy_node(bound)
        if op in ("<", ">"):
            last = c_ast.BinaryOp("-" if op == "<" else "+", last, c_ast.Constant("int", "1"))
        lo, hi = (copy_node(h.lower), last) if h.step > 0 else (last, copy_node(h.lower))
        out.append((lo, hi))
    return out


def _box_from_scop(module: Module, nest: Nest) -> list[tuple[c_ast.Node, c_ast.Node]] | None:
    """The rectangular hull of the points where a statement of the nest runs (isl)."""
    scops = module.resource("scops")
    part = scops.for_loop(nest.sites[0].label)
    if part is None:
        return None
    innermost = part.loop(nest.sites[-1].label)
    outer = part.loop(nest.sites[0].label)
    if innermost is None or outer is None:
        return None
    depth, m = outer.depth, len(nest.sites)
    names = dict(part.names)
    union = None
    for s in part.statements:
        if not any(lp.node is innermost.node for lp in s.loops):
            continue
        dom = s.domain.reset_tuple_id()
        n = dom.dim(_DT.set)
        dom = dom.project_out(_DT.set, depth + m, n - depth - m)
        for k in range(depth):  # enclosing loops' indices: variables of the launch
            dom = dom.set_dim_name(_DT.set, k, s.loops[k].iterator)
            names.setdefault(s.loops[k].iterator, s.loops[k].var)
        dom = dom.move_dims(_DT.param, dom.dim(_DT.param), _DT.set, 0, depth)
        union = dom if union is None else union.union(dom)
    if union is None or union.is_empty():
        return None
    out = [dim_bounds_to_c(union, k, names) for k in range(m)]
    return None if any(lo is None or hi is None for lo, hi in out) else out


def _enclosing_indices(site) -> set[str]:
    """The indices of the loops around a loop site (syntactically, from their ``init``)."""
    out = set()
    outer = site.outer
    while outer is not None:
        init = getattr(outer.node, "init", None)
        if isinstance(init, c_ast.DeclList) and init.decls:
            out.add(init.decls[0].name)
        elif isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
            out.add(init.lvalue.name)
        outer = outer.outer
    return out


def _guard(nest: Nest) -> c_ast.Node | None:
    """The bounds of the mapped loops that depend on other mapped indices or on the indices of
    enclosing loops (None: no guard). The box covers the points of the nest, but where the
    nest is empty for some value of an enclosing index (``for (k = i; k < 7; k++)`` at ``i =
    10``) isl's hull has no piece and the box's C expression may not be empty."""
    indices = {h.index for h in nest.headers}
    enclosing = _enclosing_indices(nest.sites[0])
    conds: list[c_ast.Node] = []
    for h in nest.headers:
        others = (indices - {h.index}) | enclosing
        if _mentions(h.lower, others):
            conds.append(c_ast.BinaryOp(">=" if h.step > 0 else "<=", c_ast.ID(h.index), copy_node(h.lower)))
        for op, bound in h.bounds:
            if _mentions(bound, others):
                conds.append(c_ast.BinaryOp(op, c_ast.ID(h.index), copy_node(bound)))
    return conjunction(conds)


def fresh_index(module: Module, prefix: str) -> int:
    taken = set(module.ws.function_names())
    k = 0
    while f"{prefix}_kernel_{k}" in taken or f"{prefix}_launcher_{k}" in taken:
        k += 1
    return k


def _strip_omp(node: c_ast.Node) -> None:
    """Remove OpenMP pragmas (meaningless on the device) from every block under ``node``."""
    for n in walk(node):
        items = getattr(n, "block_items", None)
        if items:
            n.block_items[:] = [x for x in items if not (isinstance(x, c_ast.Pragma) and x.string.split()[:1] == ["omp"])]


def _map(module: Module, nest: Nest, box, prefix: str, block: list[str] = ()) -> str:
    """Rewrite the nest as launcher + kernel; return the kernel's name."""
    k = fresh_index(module, prefix)
    kernel, launcher = f"{prefix}_kernel_{k}", f"{prefix}_launcher_{k}"
    guard = _guard(nest)
    outer = nest.sites[0]
    for site in nest.sites:
        if isinstance(site.parent, c_ast.Compound):
            detach_pragmas(site.parent, site.labelled)  # omp parallel for, passman parallel: replaced
    for site, hdr, (lo, hi) in zip(nest.sites, nest.headers, box, strict=True):
        i = c_ast.ID(hdr.index)
        init = site.node.init
        if isinstance(init, c_ast.DeclList):  # for (int i = lo; ...)
            init.decls[0].init = lo
        else:  # the index is private and dead after the nest: the loop declares its own
            own = copy_node(hdr.decl)
            own.storage, own.init = [], lo
            site.node.init = c_ast.DeclList([own])
        site.node.cond = c_ast.BinaryOp("<=", copy_node(i), hi)
        site.node.next = c_ast.UnaryOp("p++", copy_node(i))
    inner = nest.sites[-1].node
    body = inner.stmt
    _strip_omp(body)
    body = own_privates(module, body, nest.private)
    if guard is not None:
        body = c_ast.If(guard, body, None, body.coord)
    if nest.reductions:
        body = _partials(module, nest, box[0][0], body)
    label = module.new_label()
    inner.stmt = c_ast.Label(label, body, body.coord)
    outline(module, label=label, name=kernel)
    pass_globals(module, kernel)
    clause = f" block({', '.join(block[:len(nest.sites)])})" if block else ""
    mark = c_ast.Pragma(f"passman launch {kernel}{clause}", outer.node.coord)
    if isinstance(outer.parent, c_ast.Compound):
        items = outer.parent.block_items
        items.insert(next(j for j, x in enumerate(items) if x is outer.labelled), mark)
    else:
        replace_child(outer.parent, outer.labelled, c_ast.Compound([mark, outer.labelled], outer.node.coord))
    outline(module, label=outer.label, name=launcher)
    pass_globals(module, launcher)
    return kernel


#: the reductions a kernel can make (a partial value per work-item), by the value each
#: partial starts from: the operator's identity, or (None) the host's value before the nest,
#: which is neutral for an idempotent operator (``max(s, s) == s``)
_IDENTITY = {"+": "0", "*": "1", "^": "0", "&": None, "|": None, "&&": None, "||": None,
             "min": None, "max": None}


def _combine(op: str, a: c_ast.Node, b: c_ast.Node) -> c_ast.Node:
    """``a op b`` in C (``min``, ``max``: a conditional expression)."""
    if op in ("min", "max"):
        return c_ast.TernaryOp(c_ast.BinaryOp("<" if op == "min" else ">", b, a), copy_node(b), copy_node(a))
    return c_ast.BinaryOp(op, a, b)


def _partials(module: Module, nest: Nest, lo: c_ast.Node, body: c_ast.Node) -> c_ast.Node:
    """Give each work-item its partial value of every reduction; the host combines them after.

    ``for (i ...) s += f(i);`` becomes (``s_part`` allocated before the nest, one element per
    point of the box)::

        for (i = lo; i <= hi; i++) {           /* the launch */
            double s = 0;                       /* the identity: shadows the host's s */
            s += f(i);
            s_part[i - lo] = s;
        }
        for (long s_k = 0; s_k < hi - lo + 1; s_k++)
            s = s + s_part[s_k];
        free(s_part);

    The combination reassociates the operator, as OpenMP's reductions do.
    """
    outer = nest.sites[0]
    index = nest.headers[0].index
    items = body.block_items or [] if isinstance(body, c_ast.Compound) else [body]
    count = simplify(c_ast.BinaryOp("+", c_ast.BinaryOp("-", copy_node(outer.node.cond.right), copy_node(lo)),
                                    c_ast.Constant("int", "1")))
    offset = simplify(c_ast.BinaryOp("-", c_ast.ID(index), copy_node(lo)))
    taken = {getattr(d, "name", None) for d in walk(module.ast) if isinstance(d, c_ast.Decl)}
    before: list[c_ast.Node] = []
    after: list[c_ast.Node] = []
    head: list[c_ast.Node] = []
    tail: list[c_ast.Node] = []
    for r in nest.reductions:
        part = fresh_name(f"{r.var}_part", taken)
        k = fresh_name(f"{r.var}_k", taken)
        own = copy_node(r.decl)
        own.storage, own.init = [], c_ast.Constant("int", _IDENTITY[r.op] or "0")
        if _IDENTITY[r.op] is None:  # starts from the host's value, read before the launch
            start = fresh_name(f"{r.var}_start", taken)
            first = copy_node(r.decl)
            first.storage, first.init = [], c_ast.ID(r.var)
            rename_declaration(first, start)
            before.append(first)
            own.init = c_ast.ID(start)
        head.append(own)
        tail.append(c_ast.Assignment("=", c_ast.ArrayRef(c_ast.ID(part), copy_node(offset)), c_ast.ID(r.var)))
        size = c_ast.BinaryOp("*", c_ast.UnaryOp("sizeof", c_ast.ID(r.var)),
                              c_ast.TernaryOp(c_ast.BinaryOp(">", copy_node(count), c_ast.Constant("int", "0")),
                                              copy_node(count), c_ast.Constant("int", "1")))
        before.append(pointer_declaration(r.decl, part, c_ast.FuncCall(c_ast.ID("malloc"), c_ast.ExprList([size]))))
        kdecl = c_ast.Decl(k, [], [], [], [], c_ast.TypeDecl(k, [], None, c_ast.IdentifierType(["long"])),
                           c_ast.Constant("int", "0"), None)
        combine = c_ast.Assignment("=", c_ast.ID(r.var),
                                   _combine(r.op, c_ast.ID(r.var), c_ast.ArrayRef(c_ast.ID(part), c_ast.ID(k))))
        after.append(c_ast.For(c_ast.DeclList([kdecl]), c_ast.BinaryOp("<", c_ast.ID(k), copy_node(count)),
                               c_ast.UnaryOp("p++", c_ast.ID(k)), combine))
        after.append(c_ast.FuncCall(c_ast.ID("free"), c_ast.ExprList([c_ast.ID(part)])))
    parent = outer.parent
    if not isinstance(parent, c_ast.Compound):
        raise PassFailed(f"{where(outer.node)}: the reduction loop {outer.label} is not in a block")
    at = next(j for j, x in enumerate(parent.block_items) if x is outer.labelled)
    parent.block_items[at + 1:at + 1] = after
    parent.block_items[at:at] = before
    module.cu.include("stdlib.h")
    return c_ast.Compound(head + items + tail, body.coord)


def own_privates(module: Module, body: c_ast.Node, names: set) -> c_ast.Node:
    """``body`` declaring its own copy of each private variable declared outside it.

    Every work-item needs its own: passed by pointer, one variable would be shared by all of
    them (a race). The copies shadow the outer variables, which the nest does not use after
    (they are private, not lastprivate).
    """
    if not names:
        return body
    table = resolve_names(module.ast, file_scope(module.cu.ast.ext))
    inside = {id(n) for n in walk(body)}
    copies: dict[str, c_ast.Decl] = {}
    for ident in walk(body):
        if isinstance(ident, c_ast.ID) and ident.name in names and ident.name not in copies:
            d = table.decl_of(ident)
            if isinstance(d, c_ast.Decl) and id(d) not in inside:
                own = copy_node(d)
                own.storage, own.init = [], None
                copies[ident.name] = own
    if not copies:
        return body
    items = body.block_items or [] if isinstance(body, c_ast.Compound) else [body]
    return c_ast.Compound(list(copies.values()) + items, body.coord)


def pass_globals(module: Module, name: str) -> None:
    """Give the new function ``name`` the global arrays it uses as parameters of the same name.

    A device reaches host memory only through what it is handed, so the kernel and its
    launcher take the global arrays as arguments (the parameters shadow the globals: the
    body is unchanged), and the transfers see them at the launch.
    """
    ext = module.cu.ast.ext
    func = next(n for n in ext if isinstance(n, c_ast.FuncDef) and n.decl.name == name)
    table = resolve_names(func, file_scope(ext))
    at_file_scope = {id(n) for n in ext}
    arrays: list[c_ast.Decl] = []
    for ident in walk(func.body):
        d = table.decl_of(ident) if isinstance(ident, c_ast.ID) else None
        if (isinstance(d, c_ast.Decl) and id(d) in at_file_scope and isinstance(d.type, c_ast.ArrayDecl)
                and all(d is not a for a in arrays)):
            arrays.append(d)
    if not arrays:
        return
    params = func.decl.type.args.params
    if len(params) == 1 and isinstance(params[0], c_ast.Typename):  # (void)
        params.clear()
    for d in arrays:
        p = copy_node(d)
        p.storage, p.init, p.funcspec = [], None, []
        params.append(p)
    for call in walk(module.ast.body):
        if isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID) and call.name.name == name:
            if call.args is None:
                call.args = c_ast.ExprList([])
            call.args.exprs.extend(c_ast.ID(d.name) for d in arrays)


@transformation(scope="module", reads=["function_scope", "parallel_loops", "scops"])
def gpu_ify(module: Module, label: str = "", max_dims: int = 3, prefix: str = "p4a",
            nested_reductions: bool = True, block: str = "") -> None:
    """Map each outermost parallel loop nest to a kernel and a launcher (see the module docstring)."""
    if not 1 <= max_dims <= 3:
        raise InvalidInput(f"error: gpu_ify: max_dims must be 1, 2 or 3, not {max_dims}")
    sizes = block.lower().split("x") if block else []
    if block and not (len(sizes) <= 3 and all(x.isdigit() and int(x) > 0 for x in sizes)):
        raise InvalidInput(f"error: gpu_ify: block '{block}' is not 1 to 3 positive sizes such as 256 or 32x8")
    if not prefix.isidentifier():
        raise InvalidInput(f"error: gpu_ify: prefix '{prefix}' is not a C identifier")
    verdicts = module.resource("parallel_loops")
    loops = {lp.label: lp.site for lp in module.all_loops}
    if label and label not in loops:
        raise InvalidInput(f"error: function {module.name} has no loop labelled '{label}'")
    chosen: list[tuple[Nest, list]] = []
    refused: list[str] = []

    def visit(site) -> None:
        nest, why = _choose(module, site, verdicts, max_dims, nested_reductions)
        if nest is None:
            refused.append(f"{where(site.node)}: loop {site.label} of {module.name} stays on the host: {why}")
            for c in site.children:
                visit(c)
            return
        box = _box_from_scop(module, nest) or _box_from_headers(nest)
        if box is None:
            refused.append(f"{where(site.node)}: loop {site.label} of {module.name} stays on the host: "
                           "its iteration box cannot be written in C")
            return
        chosen.append((nest, box))

    if label:
        nest, why = _choose(module, loops[label], verdicts, max_dims, nested_reductions)
        if nest is None:
            raise PassFailed(f"{where(loops[label].node)}: loop {label} of {module.name} stays on the host: {why}")
        box = _box_from_scop(module, nest) or _box_from_headers(nest)
        if box is None:
            raise PassFailed(f"{where(loops[label].node)}: loop {label} of {module.name} stays on the host: "
                             "its iteration box cannot be written in C")
        chosen.append((nest, box))
    else:
        for site in [lp.site for lp in module.all_loops if lp.site.outer is None]:
            visit(site)
    for line in refused:
        log.info("%s", line)
    if not chosen:
        raise PassFailed(f"gpu_ify: no loop nest of {module.name} can run on the device"
                         + (f" ({refused[0]})" if refused else ""))
    for nest, box in chosen:
        kernel = _map(module, nest, box, prefix, sizes)
        n = len(nest.sites)
        log.info("%s: loop %s of %s becomes kernel %s (%d dimension%s: %s)", where(nest.sites[0].node),
                 nest.sites[0].label, module.name, kernel, n, "" if n == 1 else "s",
                 ", ".join(h.index for h in reversed(nest.headers)))
