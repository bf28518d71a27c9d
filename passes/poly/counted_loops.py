"""``for`` loops that count: header recognition and the affine test of their bounds.

``for (i = lb; cond; i += step)`` with ``step`` a non-zero constant
(``i++``, ``i--``, ``i += c``, ``i -= c``, ``i = i + c``) and ``cond`` a
bound (once false, false for every later value of ``i``) runs exactly
``lb, lb + step, ...`` while ``cond`` holds. Shared by the SCoP extraction,
the preconditions and the regions.
"""

from __future__ import annotations

import islpy as isl
from pycparser import c_ast

from passman.astutil import walk

from .affine import AffineBuilder, ctx


def bound_check(lookup, types, lb: c_ast.Node, cond: c_ast.Node, step: int,
                affine_known: bool = False) -> str | None:
    """Why ``for (i = lb; cond; i += step)`` does not run over an affine interval (None if it does).

    ``lookup`` classifies identifiers with the iterator as dimension 0 of a
    one-dimensional space. The condition must be affine and, once false,
    stay false as the iterator advances (``i < n``, ``i <= min(n, m)``, not
    ``i != 5``): the iterations are then exactly ``lb, lb + step, ...`` while
    the condition holds.
    """
    if affine_known and _plain_bound(cond, lookup, step):
        return None
    space = isl.Space.create_from_names(ctx(), set=["i"])
    b = AffineBuilder(space, lookup, types)
    lbf, cset = b.expr(lb), b.cond(cond)
    if lbf is None or cset is None:
        return "loop bounds are not affine"
    if _plain_bound(cond, lookup, step):
        return None
    run = cset.intersect(b.dim(0).ge_set(lbf) if step > 0 else b.dim(0).le_set(lbf))
    if not run.is_bounded():  # for (j = 0; r < c; j++): no bound on j
        return "the loop condition does not bound its iterator"
    prev = b.dim(0).sub(b.const(step))  # the previous iteration's value
    started = prev.ge_set(lbf) if step > 0 else prev.le_set(lbf)
    prev_ok = isl.Map.from_pw_aff(prev).intersect_range(cset).domain()
    if not cset.intersect(started).subtract(prev_ok).is_empty():
        return "the loop condition is not a bound (it may become true again)"
    return None


def _plain_bound(cond: c_ast.Node, lookup, step: int) -> bool:
    """``i < e``, ``i <= e`` (``>``, ``>=`` for a decreasing loop) and ``&&`` of them, ``e``
    free of ``i``: a bound whatever ``e`` is (the general test is then not needed)."""
    def is_iter(e: c_ast.Node) -> bool:
        return isinstance(e, c_ast.ID) and lookup(e) == ("dim", 0)

    def free(e: c_ast.Node) -> bool:
        return not any(isinstance(n, c_ast.ID) and lookup(n) == ("dim", 0) for n in walk(e))

    if isinstance(cond, c_ast.BinaryOp) and cond.op == "&&":
        return _plain_bound(cond.left, lookup, step) and _plain_bound(cond.right, lookup, step)
    if not isinstance(cond, c_ast.BinaryOp):
        return False
    up, down = ("<", "<="), (">", ">=")
    if is_iter(cond.left) and free(cond.right):
        return cond.op in (up if step > 0 else down)
    if is_iter(cond.right) and free(cond.left):
        return cond.op in (down if step > 0 else up)
    return False


