"""Transfers around each launch, from array regions (``kernel_load_store``, Amini 2012 §3.4).

Before (after :mod:`.gpu_ify`)::

    void kernel(int n, int m, double C[n][m], double A[n][m])
    {
        p4a_launcher_0(n, m, C, A);          /* reads A[0..n-1][0..m-1], writes C[1..n-1][*] */
    }

After (``module.apply("kernel_load_store")``)::

    void kernel(int n, int m, double C[n][m], double A[n][m])
    {
        {
            double (*C_d)[m] = passman_accel_malloc(sizeof(C[0][0]) * n * m);
            double (*A_d)[m] = passman_accel_malloc(sizeof(A[0][0]) * n * m);
            passman_accel_copy_to(A_d, A, sizeof(A[0][0]), 2, (size_t []){n, m},
                                  (size_t []){0, 0}, (size_t []){n, m});
            p4a_launcher_0(n, m, C_d, A_d);
            passman_accel_copy_from(C, C_d, sizeof(C[0][0]), 2, (size_t []){n, m},
                                    (size_t []){1, 0}, (size_t []){n - 1, m});
            passman_accel_free(C_d);
            passman_accel_free(A_d);
        }
    }

For each array argument of a launcher call (a function holding ``#pragma
passman launch``), a device buffer holds the whole array (same layout, so
the kernel indexes it as the host code does); what moves is the rectangular
hull of a region, its bounds C expressions of the variables at the call:

* copied in: the hull of the IN region (elements read before the launch
  writes them), plus the hull of the OUT region unless the launch certainly
  writes all of that hull (a MAY or partial write would otherwise copy back
  the device buffer's garbage);
* copied out: the hull of the OUT region (nothing for an array the rest of
  the program does not read);
* an array the launch does not touch is passed as it was.

The program stays plain C: linked with the accel runtime's CPU emulation
(separate device buffers filled with garbage), it prints the original's
output exactly when the transfers are right. The unit includes
``<passman_accel.h>`` and the ``accel`` broker is enabled.

Refused (PassFailed, code unchanged): no launcher call; an array argument
whose size is unknown (a pointer, ``double x[]``), or that is not a plain
variable (``&A[1][0]``); a region with no hull in C.
"""

from __future__ import annotations

from dataclasses import replace

import islpy as isl
from pycparser import c_ast

from passman import InvalidInput, Module, PassFailed, transformation
from passman.astutil import child_nodes, copy_node, replace_child, walk

from ..cfacts.folding import simplify
from ..cfacts.names import fresh_name, pointer_declaration, where
from ..poly.c_expr import pw_aff_to_c, set_to_c
from ..poly.facts import extent_set
from ..poly.regions import hull_is_exact, rectangular_hull

HEADER = "passman_accel.h"
_DT = isl.dim_type
_SIZE_T = c_ast.Typename(None, [], None, c_ast.ArrayDecl(
    c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(["size_t"])), None, []))


def launchers(module: Module) -> set[str]:
    """Names of the functions of the program that launch a kernel (``#pragma passman launch``)."""
    out = set()
    for m in module.ws.modules:
        if module.ws.stub_info(m.name):
            continue
        if any(isinstance(n, c_ast.Pragma) and n.string.startswith("passman launch") for n in walk(m.ast.body)):
            out.add(m.name)
    return out


def _list(items: list[c_ast.Node]) -> c_ast.CompoundLiteral:
    """``(size_t []){a, b}``."""
    return c_ast.CompoundLiteral(copy_node(_SIZE_T), c_ast.InitList(items))


def _int(v: int) -> c_ast.Constant:
    return c_ast.Constant("int", str(v))


def _call(name: str, args: list[c_ast.Node]) -> c_ast.FuncCall:
    return c_ast.FuncCall(c_ast.ID(name), c_ast.ExprList(args))


def _element(name: str, rank: int) -> c_ast.Node:
    e: c_ast.Node = c_ast.ID(name)
    for _ in range(rank):
        e = c_ast.ArrayRef(e, _int(0))
    return e


def _in_bounds(region, facts=None, declared=()):
    """The region without the indices outside the array's declared extents.

    A region over-approximates: ``g[i][j - 1]`` with ``j >= 1 + (i + c) % 2`` reaches ``j - 1 ==
    -1`` for a negative ``c`` the program never passes; a hull of reads through a call may
    lose the relation to the caller's index. An index outside its dimension is undefined
    behaviour in C, and a box reaching there would be copied from outside the array. Indices
    are kept from 0; below the extents the declaration gives (``declared``, C expressions;
    None for a pointer's first dimension) when ``facts`` can read them.
    """
    s = region.set
    for k in range(region.rank):
        s = s.add_constraint(isl.Constraint.inequality_alloc(isl.LocalSpace.from_space(s.get_space())).set_coefficient_val(_DT.set, k, 1))
    if facts is not None and declared:
        try:
            box = None
            for e in declared:
                d = extent_set(facts, e)
                box = d if box is None else box.flat_product(d)
            if s.has_tuple_id():
                box = box.set_tuple_id(s.get_tuple_id())
            box = box.align_params(s.get_space())
            s = s.align_params(box.get_space()).intersect(box)
        except isl.Error:
            pass
    return replace(region, set=s)


def _box(region, extents: tuple[c_ast.Node, ...], facts=None,
         declared: tuple = ()) -> tuple[list[c_ast.Node], list[c_ast.Node]]:
    """Offsets and counts of a region's rectangular hull (the whole extent where unbounded).

    isl's lowest and highest index of a dimension are defined only for the values of the
    variables where the region has a point (``B[i + 1]`` with ``2 <= i <= 3``: a launch in
    a loop that writes nothing at some iterations), and there the count is at least 1; the
    C expression of a bound extends its last piece to every other value, so where the region
    may be empty a count is guarded by the condition that it is not (the offsets there mean
    nothing: an empty box moves nothing).
    """
    bounded = _in_bounds(region, facts, declared)
    s, names = bounded.set, bounded.names
    domain = s.params().coalesce()
    guard = None if domain.is_equal(isl.Set.universe(domain.get_space())) else set_to_c(domain, names)
    offsets, counts = [], []
    for k, ((lo, hi), ext) in enumerate(zip(rectangular_hull(bounded), extents, strict=True)):
        if lo is not None and hi is not None:
            span = s.dim_max(k).sub(s.dim_min(k))
            one = isl.Aff.zero_on_domain(isl.LocalSpace.from_space(span.get_domain_space())).set_constant_val(1)
            count = pw_aff_to_c(span.add(isl.PwAff.from_aff(one)).coalesce(), names)
            if count is None:
                raise ValueError(f"no count for dimension {k}")
            count = simplify(count)
        else:
            lo = lo if lo is not None else _int(0)
            hi = hi if hi is not None else c_ast.BinaryOp("-", copy_node(ext), _int(1))
            count = simplify(c_ast.BinaryOp("+", c_ast.BinaryOp("-", copy_node(hi), copy_node(lo)), _int(1)))
            if not isinstance(count, c_ast.Constant):  # the extent may be below the region's start
                count = c_ast.TernaryOp(c_ast.BinaryOp(">", count, _int(0)), copy_node(count), _int(0))
        if isinstance(count, c_ast.Constant) and int(count.value) <= 0:
            count = _int(0)
        elif guard is not None and (not isinstance(count, c_ast.Constant) or k == 0):
            count = c_ast.TernaryOp(copy_node(guard), count, _int(0))
        offsets.append(lo)
        counts.append(count)
    return offsets, counts


def _union(a: isl.Set, b: isl.Set) -> isl.Set:
    """``a ∪ b`` over the parameters of both (regions name only the variables they involve)."""
    b = b.align_params(a.get_space())
    return a.align_params(b.get_space()).union(b)


def reach(name: str, regions: list) -> c_ast.Node | None:
    """``1 + the highest first index the regions touch``, or None (unbounded, or below 0)."""
    touched = regions[0].set
    for r in regions[1:]:
        touched = _union(touched, r.set)
    try:
        low, high = touched.dim_min(0), touched.dim_max(0)
    except isl.Error:
        return None
    zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(low.get_domain_space()))
    if not low.lt_set(zero).is_empty():  # p[-1]: the buffer would not start at p
        return None
    one = isl.PwAff.from_aff(isl.Aff.zero_on_domain(isl.LocalSpace.from_space(high.get_domain_space())).set_constant_val(1))
    return pw_aff_to_c(high.add(one).max(one), regions[0].names)


def _certainly_written(write, out) -> bool:
    """Whether the launch writes every element of the OUT region's hull."""
    if write is None or not hull_is_exact(out):
        return False
    return out.set.is_subset(write.must)


def _is_buffer(decl) -> bool:
    """Whether ``decl`` declares a device buffer (``T *x = passman_accel_malloc(...)``)."""
    init = getattr(decl, "init", None)
    return (isinstance(init, c_ast.FuncCall) and isinstance(init.name, c_ast.ID)
            and init.name.name == "passman_accel_malloc")


def _arrays(stmt: c_ast.Node, facts) -> list:
    """The arrays declared outside ``stmt`` that it names, in order of first use.

    A launcher call's arguments must be plain variables (``&A[1][0]`` is refused): the
    launcher's regions are those of its formals, bound to whole arrays.
    """
    inside = {id(n) for n in walk(stmt)}
    out: list = []
    for n in walk(stmt):
        if not isinstance(n, c_ast.ID):
            continue
        decl = facts.names.decl_of(n)
        if decl is None or id(decl) in inside or facts.shape(decl) is None or _is_buffer(decl):
            continue
        if all(decl is not d for d in out):
            out.append(decl)
    return out


def _rename(stmt: c_ast.Node, facts, renames: dict[int, str]) -> None:
    """Make every use of a renamed declaration in ``stmt`` name the new variable."""
    for n in walk(stmt):
        if isinstance(n, c_ast.ID):
            new = renames.get(id(facts.names.decl_of(n)))
            if new is not None:
                n.name = new


def _reassigned(stmt: c_ast.Node, decl, facts) -> c_ast.Node | None:
    """A node of ``stmt`` that changes the pointer ``decl`` itself or takes its address."""
    for n in walk(stmt):
        target = None
        if isinstance(n, c_ast.Assignment):
            target = n.lvalue
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&"):
            target = n.expr
        if isinstance(target, c_ast.ID) and facts.names.decl_of(target) is decl:
            return n
    return None


def _transfers(module: Module, stmt: c_ast.Node, tables, facts, what: str) -> tuple[list, list, dict]:
    """(declarations and copies in, copies out and frees, renamings) of one isolated statement."""
    ins, outs, rw = tables
    before: list[c_ast.Node] = []
    after: list[c_ast.Node] = []
    frees: list[c_ast.Node] = []
    renames: dict[int, str] = {}
    taken = {getattr(d, "name", None) for d in facts.names.decls}
    for decl in _arrays(stmt, facts):
        shape = facts.shape(decl)
        name = decl.name
        read, write = rw.find(stmt, name, "R", shape.rank), rw.find(stmt, name, "W", shape.rank)
        if read is None and write is None:
            continue
        changed = _reassigned(stmt, decl, facts)
        if changed is not None:
            raise PassFailed(f"{where(changed)}: cannot isolate {what}: it changes the pointer {name} itself")
        extents = list(shape.extents)
        declared = tuple(shape.extents)
        if extents and extents[0] is None:  # a pointer or ``x[]``: as far as the statement reaches
            extents[0] = reach(name, [r for r in (read, write) if r is not None])
        if any(e is None for e in extents):
            raise PassFailed(f"{where(stmt)}: cannot isolate {what}: the size of {name} is unknown "
                             "(declare it with its extents)")
        shape = replace(shape, extents=tuple(extents))
        imported, exported = ins.find(stmt, name, "IN", shape.rank), outs.find(stmt, name, "OUT", shape.rank)
        dev = fresh_name(f"{name}_d", taken)
        rank = shape.rank
        elem = c_ast.UnaryOp("sizeof", _element(name, rank))
        size: c_ast.Node = copy_node(elem)
        for e in shape.extents:
            size = c_ast.BinaryOp("*", size, copy_node(e))
        before.append(pointer_declaration(decl, dev, _call("passman_accel_malloc", [size])))
        dims = _list([copy_node(e) for e in shape.extents])
        copy_in = imported
        if exported is not None and not _certainly_written(write, exported):
            copy_in = exported if copy_in is None else replace(copy_in, set=_union(copy_in.set, exported.set))
        for region, fn, src, dst, where_to in (
            (copy_in, "passman_accel_copy_to", name, dev, before),
            (exported, "passman_accel_copy_from", dev, name, after),
        ):
            if region is None or region.set.is_empty():
                continue
            try:
                offsets, counts = _box(region, shape.extents, facts, declared)
            except (TypeError, ValueError) as err:
                raise PassFailed(f"{where(stmt)}: cannot isolate {what}: the region of {name} has no hull "
                                 f"in C ({err})") from None
            where_to.append(_call(fn, [
                c_ast.ID(dst), c_ast.ID(src), copy_node(elem), _int(rank), copy_node(dims),
                _list(offsets), _list(counts),
            ]))
        frees.append(_call("passman_accel_free", [c_ast.ID(dev)]))
        renames[id(decl)] = dev
    return before, after + frees, renames


def _isolate(module: Module, plans) -> None:
    """Apply planned transfers: each statement, renamed, in a block between its copies."""
    facts = module.resource("poly_facts")
    for parent, stmt, (before, after, renames) in plans:
        _rename(stmt, facts, renames)
        block = c_ast.Compound(before + [stmt] + after, stmt.coord)
        if isinstance(parent, c_ast.Compound):
            k = next(j for j, x in enumerate(parent.block_items) if x is stmt)
            parent.block_items[k] = block
        else:
            replace_child(parent, stmt, block)
    module.cu.include(HEADER)
    module.ws.enable_broker("accel")


def _tables(module: Module) -> tuple:
    return module.resource("in_regions"), module.resource("out_regions"), module.resource("regions")


@transformation(scope="module", reads=["in_regions", "out_regions", "poly_facts", "regions"])
def kernel_load_store(module: Module) -> None:
    """Allocate, copy in, copy out and free around each launch (see the module docstring)."""
    names = launchers(module)
    sites = []
    for block in walk(module.ast.body):
        if not isinstance(block, c_ast.Compound):
            continue
        for stmt in block.block_items or []:
            if isinstance(stmt, c_ast.FuncCall) and isinstance(stmt.name, c_ast.ID) and stmt.name.name in names:
                sites.append((block, stmt))
    if not sites:
        raise PassFailed(f"kernel_load_store: {module.name} calls no kernel launcher (run gpu_ify first)")
    tables, facts = _tables(module), module.resource("poly_facts")
    plans = []
    for block, call in sites:
        for arg in call.args.exprs if call.args else []:
            if not isinstance(arg, c_ast.ID) and any(
                    isinstance(n, c_ast.ID) and facts.shape(facts.names.decl_of(n)) is not None for n in walk(arg)):
                raise PassFailed(f"{where(call)}: cannot compute the transfers of {call.name.name}: "
                                 "an array argument is not a plain variable")
        plans.append((block, call, _transfers(module, call, tables, facts, f"the launch {call.name.name}")))
    _isolate(module, plans)


@transformation(scope="module", reads=["in_regions", "out_regions", "poly_facts", "regions"])
def isolate_statement(module: Module, label: str = "") -> None:
    """Give the statement ``label`` its own (device) copies of the arrays it uses.

    Before (``module.apply("isolate_statement", label="l1")``)::

        l1: for (i = 0; i < n - 1; i++)
            B[i] = A[i] + A[i + 1];

    After::

        {
            double *B_d = passman_accel_malloc(sizeof(B[0]) * n);
            double *A_d = passman_accel_malloc(sizeof(A[0]) * n);
            passman_accel_copy_to(A_d, A, sizeof(A[0]), 1, (size_t []){n}, (size_t []){0}, (size_t []){n});
            l1: for (i = 0; i < n - 1; i++)
                B_d[i] = A_d[i] + A_d[i + 1];
            passman_accel_copy_from(B, B_d, sizeof(B[0]), 1, (size_t []){n}, (size_t []){0}, (size_t []){n - 1});
            passman_accel_free(B_d);
            passman_accel_free(A_d);
        }

    The copies are those of :func:`kernel_load_store` (the hulls of the statement's IN and OUT
    regions), which applies this to each launch. The isolated statement uses only its
    copies, so it can run where they live: as it is on the runtime's CPU emulation (the
    ``accel`` backend), or on a device once outlined into a kernel. Scalars stay shared.

    Refused (PassFailed, code unchanged): an array of unknown size, a region with no hull in
    C, a statement that changes an array pointer itself (``p = q``, ``p++``, ``&p``).

    Properties:

    - label: label of the statement (a loop label, generated or user)
    """
    if not label:
        raise InvalidInput(f"error: isolate_statement: no label given (label=...) for function {module.name}")
    found = [(parent, n) for parent in walk(module.ast.body) for n in child_nodes(parent)
             if isinstance(n, c_ast.Label) and n.name == label]
    if not found:
        raise InvalidInput(f"error: no statement labelled '{label}' in function {module.name}")
    parent, stmt = found[0]
    tables, facts = _tables(module), module.resource("poly_facts")
    before, after, renames = _transfers(module, stmt, tables, facts, f"statement {label} of {module.name}")
    if not renames:
        raise PassFailed(f"{where(stmt)}: statement {label} of {module.name} uses no array: nothing to isolate")
    _isolate(module, [(parent, stmt, (before, after, renames))])


def _children(node: c_ast.Node) -> list[c_ast.Node]:
    return [c for c in child_nodes(node)]
