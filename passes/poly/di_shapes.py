"""Di's false-dependence elimination (Di 2013, ch. 4): array copies, transformation
``eliminate_false_dependences``; the hyperplanes and the hindering test are in
:mod:`.balanced_hyperplanes`.

**Array-copy elimination** (``eliminate_false_dependences``; Fig. 3.4 ->
Fig. 4.4, after Xue & Huang). A hindering anti dependence whose read sees,
at every instance, a value from before the current time step (no flow
dependence into it within one step: checked on the memory-based
relations) reads instead a copy of the array taken at the start of the
step: ``A0`` (heap, the array's shape, freed after the time loop), filled
by a copy loop over the elements that read touches, first statement of
the step. Nothing else changes; the program computes the same values.
"""

from __future__ import annotations

from collections.abc import Sequence

import islpy as isl
from pycparser import c_ast, c_parser

from passman import Module, PassFailed, transformation
from passman.astutil import copy_node, walk
from passman.printer import to_c_operand

from ..cfacts.names import file_scope, names_in_scope, pointer_declaration, resolve_names, where
from .affine import ctx
from .balanced_hyperplanes import Method, hindering_false_dependences
from .codegen import replace_part
from .dependences import Dependence, Dependences
from .facts import extent_set
from .isl_ast import AstConverter
from .scop import Scop
from .time_tiling import time_loop_part

# ------------------------------------------------------------------------ array-copy elimination


def _copy_name(module: Module, base: str) -> str:
    taken = names_in_scope(module.ast, module.cu.ast.ext)
    name, n = f"{base}0", 0
    while name in taken:
        n += 1
        name = f"{base}0_{n}"
    return name


def _same_step_flow(deps: Sequence[Dependence], read) -> bool:
    """Whether some instance of ``read`` may see a value written in the same time step."""
    for d in deps:
        if d.kind != "flow" or d.sink is not read or d.relation.is_empty():
            continue
        if not _equal_time(d.relation).is_empty():
            return True
    return False


def _equal_time(rel: isl.Map) -> isl.Map:
    """``rel``'s pairs whose first (time) coordinates are equal."""
    c = isl.Constraint.equality_alloc(isl.LocalSpace.from_space(rel.get_space()))
    c = c.set_coefficient_val(isl.dim_type.in_, 0, isl.Val.int_from_si(ctx(), 1))
    c = c.set_coefficient_val(isl.dim_type.out, 0, isl.Val.int_from_si(ctx(), -1))
    return rel.add_constraint(c)


def _in_bounds(image: isl.Set, part: Scop, read, facts) -> isl.Set:
    """The elements of ``image`` inside the array's declared extents.

    A conditional read (``i >= 2 ? A[i - 2] : 0.0``) is modelled as reading
    wherever its statement runs, edges included: the elements it names
    outside the array are never read, and a copy of them would read and
    write out of bounds (a heap overflow, fuzz seed 310179). Refused when a
    declared extent is not affine and the read is conditional.
    """
    info = part.arrays.get(read.array)
    if info is None or info.expanded:
        return image
    box = None
    for k in range(image.dim(isl.dim_type.set)):
        extent = info.extents[k] if k < len(info.extents) else None
        s = extent_set(facts, extent)
        if s.is_params() or s.plain_is_universe():
            if read.may:
                raise PassFailed(f"{where(read.node)}: {read.text} is read under a condition and dimension {k + 1} "
                                 f"of {read.var} has no affine extent: no bounds for its copy")
        box = s if box is None else box.flat_product(s)
    if box is None:
        return image
    box = box.set_tuple_name(image.get_tuple_name()).align_params(image.get_space())
    return image.align_params(box.get_space()).intersect(box).coalesce()


def _footprint_loop(part: Scop, read, copy: str, stmt, facts) -> c_ast.Node:
    """``for (x0 = lo0; x0 < hi0; x0++) ... copy[x0]... = A[x0]...;`` over the elements ``read`` touches."""
    image = _in_bounds(read.relation.intersect_domain(stmt.domain).range().coalesce(), part, read, facts)
    build = isl.AstBuild.from_context(part.context)
    conv = AstConverter(part, set(), "long", read.node.coord)
    rank = image.dim(isl.dim_type.set)
    names = [f"{copy}_x{k}" for k in range(rank)]
    bounds = []
    for k in range(rank):
        try:
            low, high = image.dim_min(k), image.dim_max(k)
        except isl.Error:
            raise PassFailed(f"{where(read.node)}: no bounds of the elements {read.text} reads") from None
        bounds.append((to_c_operand(conv.expr(build.expr_from_pw_aff(low))),
                       to_c_operand(conv.expr(build.expr_from_pw_aff(high)))))
    ref = "".join(f"[{n}]" for n in names)
    text = f"{copy}{ref} = {read.var}{ref};"
    for n, (lo, hi) in reversed(list(zip(names, bounds))):
        text = f"for (long {n} = {lo}; {n} <= {hi}; {n}++) {text}"
    body = c_parser.CParser().parse(f"void f(void) {{ {text} }}", "<copy>").ext[0].body.block_items[0]
    for n in walk(body):
        n.coord = read.node.coord
    return body


@transformation(scope="module", requires=["dependences"],
                reads=["function_scope", "poly_facts", "scops", "unit_scope"])  # fmt: skip
def eliminate_false_dependences(module: Module, label: str = "", method: Method = "coefficients") -> None:
    """Remove the time loop's hindering anti dependences with array copies (Di 2013 Fig. 4.4).

    Before (Fig. 3.4)::

        for (j = 1; j <= J; j++)
            for (i = 1; i <= I; i++)
                A[i] = 0.5 * (A[i] + A[i + 1]);

    After::

        double *A0 = malloc(sizeof(*A0) * (I + 2));
        for (j = 1; j <= J; j++) {
            for (long A0_x0 = 2; A0_x0 <= I + 1; A0_x0++)
                A0[A0_x0] = A[A0_x0];
            for (i = 1; i <= I; i++)
                A[i] = 0.5 * (A[i] + A0[i + 1]);
        }
        free(A0);

    Each read at the source of a hindering anti dependence (Def 4.2, or
    ``method="resolve"``) that sees no value written in the same time step
    reads a copy of the array taken at the start of the step; the part's
    hyperplanes can then be "regular" (``time_tile(shape="balanced")``).
    PassFailed when no hindering anti dependence can be removed so.

    Properties:

    - label: the time loop ("" default: the first part that is a time loop)
    - method: "coefficients" (default: Def 4.2's test) or "resolve" (Algorithm 4.2)
    """
    deps: Dependences = module.resource("dependences")
    part = time_loop_part(module, label, deps)
    part_deps = deps.of_scop(part)
    hindering = hindering_false_dependences(part, part_deps, method)
    reads = []
    reasons = []
    for d in hindering:
        if d.kind != "anti":
            reasons.append(f"{d.why()}: an output dependence (no copy removes it)")
            continue
        read = d.source
        if read in reads:
            continue
        if _same_step_flow(part_deps, read):
            reasons.append(f"{where(read.node)}: {read.text} may read a value written in the same time step")
            continue
        if not isinstance(read.node, c_ast.ArrayRef):
            reasons.append(f"{where(read.node)}: {read.text} is not an array element")
            continue
        reads.append(read)
    if not reads:
        why = "; ".join(reasons) if reasons else "no hindering false dependence"
        raise PassFailed(f"{part.where}: no false dependence to eliminate: {why}")
    table = resolve_names(module.ast, file_scope(module.cu.ast.ext))
    time_loop = part.statements[0].loops[0].node
    if not isinstance(time_loop.stmt, c_ast.Compound):
        time_loop.stmt = c_ast.Compound([time_loop.stmt], time_loop.stmt.coord)
    before: list[c_ast.Node] = []
    after: list[c_ast.Node] = []
    copies: dict[str, str] = {}
    copy_loops: list[c_ast.Node] = []
    for read in reads:
        base = read.node
        while isinstance(base, c_ast.ArrayRef):
            base = base.name
        decl = table.decl_of(base) if isinstance(base, c_ast.ID) else None
        dims = []
        t = decl.type if isinstance(decl, c_ast.Decl) else None
        while isinstance(t, c_ast.ArrayDecl):
            dims.append(t.dim)
            t = t.type
        if not dims or any(x is None for x in dims) or not isinstance(t, c_ast.TypeDecl):
            raise PassFailed(f"{where(read.node)}: {read.var} is not an array of known extents: no copy of it")
        if read.var not in copies:
            name = copies[read.var] = _copy_name(module, read.var)
            size = c_ast.BinaryOp("*", c_ast.UnaryOp("sizeof", c_ast.UnaryOp("*", c_ast.ID(name))),
                                  copy_node(dims[0]))
            before.append(pointer_declaration(decl, name, c_ast.FuncCall(c_ast.ID("malloc"), c_ast.ExprList([size]))))
            after.append(c_ast.FuncCall(c_ast.ID("free"), c_ast.ExprList([c_ast.ID(name)])))
        stmt = next(s for s in part.statements if s.name == read.stmt)
        copy_loops.append(_footprint_loop(part, read, copies[read.var], stmt, module.resource("poly_facts")))
        base.name = copies[read.var]
    time_loop.stmt.block_items[:0] = copy_loops
    nodes = list(part.nodes)
    replace_part(module, part, [c_ast.Compound(before + nodes + after, nodes[0].coord)])
    module.cu.include("stdlib.h")
