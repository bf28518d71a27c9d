"""Loop unrolling: ``unroll`` (by a rate, with an epilogue loop) and ``full_unroll``.

Both accept counted loops ``for (i = lb; i < ub; i += s)`` (see :func:`counted_loop`
for the accepted spellings) whose bounds are invariant in the body and whose
body is left only at its end; they refuse anything else with
:class:`~passman.PassFailed`, saying why in source terms.
"""

from __future__ import annotations

from pycparser import c_ast

from passman import Loop, transformation
from passman.astutil import copy_node, replace_child
from passman.printer import to_c

from ..cfacts.control import (
    detach_pragmas,
    only_loop_index,
)
from ..cfacts.folding import make_int, simplify
from .counted import body_copies, check_invariant_bounds, counted_loop, main_bound, refuse


@transformation(scope="loop", preserves=["callgraph"], reads=["unit_scope"])
def unroll(loop: Loop, rate: int = 4) -> None:
    """Unroll a counted loop by ``rate``, with an epilogue loop for the remaining iterations.

    Before, by 4::

        for (i = 0; i < n; i++)
            a[i] = b[i];

    After::

        for (i = 0; i < 4 * (n / 4); i += 4) {
            a[i] = b[i];
            a[i + 1] = b[i + 1];
            a[i + 2] = b[i + 2];
            a[i + 3] = b[i + 3];
        }
        for (; i < n; i++)
            a[i] = b[i];

    The main loop keeps the loop's label. For a step ``s`` other than 1 its
    bound is ``lb + rate*s*((ub - lb + s - 1) / (s*rate))``; constant bounds
    give a constant (and no epilogue when ``rate`` divides the trip count).
    An index declared in the loop (``for (int i = ...)``) is declared in a
    new block around both loops, so that the epilogue continues from it.
    Refused: rate below 2, loops that are not counted loops with a constant
    positive step, an index or bound written in the body (or, when global,
    possibly written by a call), bounds with side effects, and bodies with
    ``break``, ``continue``, ``return``, ``goto``, user labels or ``static``
    declarations.

    Properties:

    - rate: number of body copies per iteration of the main loop (default 4)
    """
    if rate < 2:
        what = "rate 1 leaves the loop as it is" if rate == 1 else f"rate {rate} is not a positive number"
        raise refuse(loop, f"nothing to unroll: {what}")
    cl = counted_loop(loop, "cannot unroll")
    check_invariant_bounds(cl, "cannot unroll")
    site = loop.site
    f = cl.node
    bound, trips = main_bound(cl, rate)
    copies = body_copies(f.stmt, cl.index, [None] + [cl.offset(k) for k in range(1, rate)])
    epilogue = None
    if trips is None or trips % rate:
        start = None
        if any(p.split()[:1] == ["omp"] for p in loop.pragma):  # the index is private in the main loop
            start = c_ast.Assignment("=", c_ast.ID(cl.index), copy_node(bound), f.coord)
        epilogue = c_ast.For(start, f.cond, f.next, f.stmt, f.coord)
    if cl.index_decl is not None and epilogue is not None:
        hoisted = copy_node(cl.index_decl)
        hoisted.init = None
        f.init = c_ast.Assignment("=", c_ast.ID(cl.index), cl.lb, f.coord)
    f.cond = c_ast.BinaryOp("<", c_ast.ID(cl.index), bound, f.coord)
    f.next = c_ast.Assignment("+=", c_ast.ID(cl.index), make_int(rate * cl.step), f.coord)
    f.stmt = c_ast.Compound(copies, f.stmt.coord)
    if epilogue is None:
        return
    if cl.index_decl is not None:
        pragmas = detach_pragmas(site.parent, site.labelled)
        block = c_ast.Compound([hoisted, *pragmas, site.labelled, epilogue], f.coord)
        replace_child(site.parent, site.labelled, block)
    else:
        replace_child(site.parent, site.labelled, [site.labelled, epilogue])


@transformation(scope="loop", preserves=["callgraph"], reads=["unit_scope"])
def full_unroll(loop: Loop, max_iterations: int = 64) -> None:
    """Replace a loop with a constant trip count by that many copies of its body.

    Before::

        for (i = 0; i < 3; i++)
            s += a[i];

    After::

        s += a[0];
        s += a[1];
        s += a[2];
        i = 3;

    The final assignment of the index is omitted when the index is declared
    in the loop or is only ever used as the index of loops that initialise it.
    The trip count may be constant without constant bounds
    (``for (j = i; j < i + 4; j++)``). A user label on the loop stays, on a
    block holding the copies; ``#pragma`` lines on the loop go with it.
    Refused as for ``unroll``, and when the trip count is not a constant or
    exceeds ``max_iterations``.

    Properties:

    - max_iterations: largest trip count unrolled (default 64)
    """
    cl = counted_loop(loop, "cannot fully unroll")
    table = check_invariant_bounds(cl, "cannot fully unroll")
    trips = cl.trip_count()
    if trips is None:
        raise cl.fail(
            f"cannot fully unroll: the trip count from {to_c(cl.lb)} to {to_c(cl.ub)} is not a constant"
        )
    if trips > max_iterations:
        raise cl.fail(f"cannot fully unroll: {trips} iterations exceed max_iterations={max_iterations}")
    site, f = loop.site, cl.node
    value = [simplify(c_ast.BinaryOp("+", copy_node(cl.lb), make_int(k * cl.step))) for k in range(trips)]
    stmts = body_copies(f.stmt, cl.index, value)
    if cl.index_decl is None:
        decl = table.decl_of(cl.index_ref)
        if not only_loop_index(loop.module.ast, decl, table, site.labelled):
            final = simplify(c_ast.BinaryOp("+", copy_node(cl.lb), make_int(trips * cl.step)))
            stmts.append(c_ast.Assignment("=", c_ast.ID(cl.index), final, f.coord))
    detach_pragmas(site.parent, site.labelled)  # they applied to the loop, which is gone
    if site.label in loop.module.ws.generated_labels:
        replace_child(site.parent, site.labelled, stmts)
    else:
        site.labelled.stmt = c_ast.Compound(stmts, f.coord)
