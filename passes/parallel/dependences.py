"""Loop-carried dependences for :mod:`.verdicts`: in source terms, and the reductions they prove.

Inside a static control part the dependences of :mod:`.poly.dependences`
are exact. :func:`describe_dependence` says one in source terms (the two
references with their lines, the kind and the distance at the loop's
level); :func:`dependence_reductions` recognises updates ``x op= e``,
``x = x op e``, ``x++`` whose carried dependences all join their own
accesses to ``x`` (the reductions :mod:`..analysis.reductions` does not see, such as
``x[i] -= L[i][j] * x[j]`` over ``j``, or ``total += f(i)`` with a pure ``f``).
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast

from passman.astutil import walk
from passman.lazy import LazyAttribute
from passman.printer import to_c

from ..analysis.reductions import Reduction
from ..cfacts.names import where
from ..cfacts.sideeffects import has_side_effects, variables
from ..poly.affine import hard
from .memory import subscript_text

__all__ = ["best_dependence", "dependence_reductions", "describe_dependence"]

_DT = LazyAttribute("islpy", "dim_type")

# ------------------------------------------------------------------ dependences


def _rank(d) -> tuple:
    return (not d.is_direct, {"flow": 0, "anti": 1, "output": 2}[d.kind], d.may, not d.uniform,
            d.source_stmt.name, d.source.index)


def best_dependence(deps: list):
    """The dependence that explains a conflict best (direct, flow first, exact, uniform)."""
    return min(deps, key=_rank)


def _iterations(n: int) -> str:
    return "one iteration" if n == 1 else f"{n} iterations"


_VERBS = {"flow": "is read by", "anti": "is overwritten by", "output": "is written again by"}


def describe_dependence(d, step: int) -> str:
    """A carried dependence in source terms.

    ``A[i][j] written at seidel_2d.c:23 is read by A[i - 1][j] at seidel_2d.c:23
    one iteration later (flow, distance 1)``; the distance is that of the
    loop's iterator (negative for a decreasing loop). A dependence between
    references whose subscripts are not affine is a MAY one: ``may be read
    by ... in a later iteration (flow, distance unknown)``.
    """
    src, snk = d.source, d.sink
    level = d.level - 1
    verb = _VERBS[d.kind]
    later, dist = "in a later iteration", "distance unknown"
    if not (src.affine and snk.affine):
        verb = "may be " + verb.removeprefix("is ")
    elif d.vector is not None:
        v = d.vector[level]
        later = f"{_iterations(abs(v) // max(abs(step), 1) or 1)} later"
        dist = f"distance {v}"
    else:
        dist = f"distance {_distance_bound(d, level)}"
    what = "written" if src.is_write else "read"
    return (f"{src.text} {what} at {where(src.node)} {verb} {snk.text} at {where(snk.node)} {later} "
            f"({d.kind}, {dist})")


def _distance_bound(d, level: int) -> str:
    """``>= 1`` (``<= -1`` for a decreasing loop), or the direction, of a non-uniform dependence."""
    direction = d.direction[level] if level < len(d.direction) else "*"
    dist = d.distance
    if direction in "<>" and not hard(dist):  # a lexmin on a hard set may not finish
        try:
            n = dist.dim(_DT.set)
            proj = dist.project_out(_DT.set, level + 1, n - level - 1).project_out(_DT.set, 0, level)
            edge = proj.lexmin() if direction == "<" else proj.lexmax()
            if edge.is_singleton():
                v = edge.sample_point().get_coordinate_val(_DT.set, 0).to_python()
                return f">= {v}" if v > 0 else f"<= {v}"
        except (isl.Error, AttributeError, ValueError):
            pass
    return {"<": "> 0", ">": "< 0"}.get(direction, "varies")


# ------------------------------------------------------------------ reductions from dependences

_UPDATE_OPS = {"+=": "+", "-=": "+", "*=": "*", "&=": "&", "|=": "|", "^=": "^"}
_BINARY = {"+": "+", "-": "+", "*": "*", "&": "&", "|": "|", "^": "^"}
_COMMUTATIVE = {"+", "*", "&", "|", "^"}


@dataclass(frozen=True)
class _Update:
    op: str  # operator class
    lhs: c_ast.Node
    nodes: frozenset[int]  # ids of the nodes that stand for the updated reference


def _update(stmt: c_ast.Node) -> _Update | None:
    """``x op= e``, ``x = x op e``, ``x = e op x`` (commutative op), ``x++``: the update of one reference."""
    match stmt:
        case c_ast.Assignment(op=op) if op in _UPDATE_OPS:
            if has_side_effects(stmt.rvalue) and not _pure_calls_only(stmt.rvalue):
                return None
            return _Update(_UPDATE_OPS[op], stmt.lvalue, frozenset({id(stmt.lvalue)}))
        case c_ast.Assignment(op="="):
            rhs = stmt.rvalue
            if not isinstance(rhs, c_ast.BinaryOp) or rhs.op not in _BINARY:
                return None
            lhs_text = to_c(stmt.lvalue)
            if to_c(rhs.left) == lhs_text:
                operand, other = rhs.left, rhs.right
            elif rhs.op in _COMMUTATIVE and to_c(rhs.right) == lhs_text:
                operand, other = rhs.right, rhs.left
            else:
                return None
            if has_side_effects(other) and not _pure_calls_only(other):
                return None
            return _Update(_BINARY[rhs.op], stmt.lvalue, frozenset({id(stmt.lvalue), id(operand)}))
        case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--"):
            return _Update("+", stmt.expr, frozenset({id(stmt.expr)}))
    return None


def _pure_calls_only(e: c_ast.Node) -> bool:
    """No assignment nor ``++`` in ``e`` (calls were checked pure by the SCoP extraction)."""
    return not any(isinstance(n, c_ast.Assignment) or (isinstance(n, c_ast.UnaryOp) and n.op in (
        "++", "--", "p++", "p--")) for n in walk(e))


def dependence_reductions(deps: list, loop_written: frozenset[str], proper) -> tuple[dict[str, Reduction], list]:
    """Reductions proven by the dependences, and the dependences they do not explain.

    A variable is reduced when every carried dependence on it joins two
    accesses to the updated reference of update statements (``x op= e``,
    ``x = x op e``) of one operator class: the updates may then run in any
    order. Statements of a SCoP call pure functions only.
    """
    by_var: dict[str, list] = {}
    for d in deps:
        by_var.setdefault(d.array, []).append(d)
    found: dict[str, Reduction] = {}
    left = []
    for var, ds in by_var.items():
        red = _reduction_of(var, ds, loop_written, proper)
        if red is None:
            left.extend(ds)
        else:
            found[var] = red
    return found, left


def _reduction_of(var: str, ds: list, loop_written: frozenset[str], proper) -> Reduction | None:
    updates: dict[int, tuple[c_ast.Node, _Update]] = {}
    for d in ds:
        for stmt, acc in ((d.source_stmt.node, d.source), (d.sink_stmt.node, d.sink)):
            u = updates.get(id(stmt))
            if u is None:
                up = _update(stmt)
                if up is None:
                    return None
                updates[id(stmt)] = (stmt, up)
                u = updates[id(stmt)]
            if id(acc.node) not in u[1].nodes:
                return None
    ops = {u.op for _, u in updates.values()}
    if len(ops) != 1:
        return None
    texts = {to_c(u.lhs) for _, u in updates.values()}
    lhs = next(iter(updates.values()))[1].lhs
    subs = _subscripts(lhs)
    pointee = any(e.pointee for s, _ in updates.values() for e in proper.of(s)
                  if e.var == var and e.action == "write")
    decl = None
    moving = any(v.name in loop_written for _, u in updates.values() for s in (_subscripts(u.lhs) or ())
                 for v in variables(s))
    if subs is None and not isinstance(lhs, c_ast.ID):
        kind, sub_texts = "array", None
    elif len(texts) == 1 and not moving:
        kind = "scalar" if subs is None else "array_element"
        sub_texts = None if subs is None else tuple(subscript_text(s) for s in subs)
    else:
        kind, sub_texts = "array", None
    stmts = tuple(s for s, _ in updates.values())
    return Reduction(var, sub_texts, ops.pop(), kind, pointee, decl, stmts)


def _subscripts(e: c_ast.Node) -> tuple[c_ast.Node, ...] | None:
    subs = []
    while isinstance(e, c_ast.ArrayRef):
        subs.insert(0, e.subscript)
        e = e.name
    if isinstance(e, c_ast.UnaryOp) and e.op == "*":
        return (c_ast.Constant("int", "0"),)
    return tuple(subs) if subs else None
