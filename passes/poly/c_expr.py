"""isl piecewise quasi-affine expressions and sets back to C expressions (``c_ast``).

For bounds that generated code will evaluate (the rectangular hull of a
region, :func:`regions.rectangular_hull`): parameters become the C
variables they stand for, pieces become ``?:`` chains, and isl's floor
divisions become C divisions guarded for the sign (C's ``/`` truncates)::

    [n, m] -> { [(n)] : n <= m; [(m)] : n > m }   ->   n <= m ? n : m
    [n] -> { [(floor((n)/2))] }                   ->   n >= 0 ? n / 2 : -((1 - n) / 2)
"""

from __future__ import annotations

from collections.abc import Mapping

import islpy as isl
from pycparser import c_ast

from passman.lazy import LazyAttribute

from ..cfacts.folding import make_int, simplify

_DT = LazyAttribute("islpy", "dim_type")


def _sum(terms: list[tuple[int, c_ast.Node]], const: int) -> c_ast.Node:
    out: c_ast.Node | None = None
    for c, node in [t for t in terms if t[0] > 0] + [t for t in terms if t[0] < 0]:
        if c == 0:
            continue
        term = node if abs(c) == 1 else c_ast.BinaryOp("*", make_int(abs(c)), node)
        if out is None:
            out = term if c > 0 else c_ast.UnaryOp("-", term)
        else:
            out = c_ast.BinaryOp("+" if c > 0 else "-", out, term)
    if out is None:
        return make_int(const)
    if const:
        out = c_ast.BinaryOp("+" if const > 0 else "-", out, make_int(abs(const)))
    return out


def _floor_div(num: c_ast.Node, den: int) -> c_ast.Node:
    """``floor(num / den)`` for ``den > 0`` in C (``/`` truncates toward zero)."""
    pos = c_ast.BinaryOp("/", num, make_int(den))
    negnum = c_ast.BinaryOp("-", make_int(den - 1), num)
    neg = c_ast.UnaryOp("-", c_ast.BinaryOp("/", negnum, make_int(den)))
    return c_ast.TernaryOp(c_ast.BinaryOp(">=", num, make_int(0)), pos, neg)


def aff_to_c(a: isl.Aff, names: Mapping[str, str]) -> c_ast.Node:
    """An affine (quasi-affine) expression over parameters as C."""
    den = a.get_denominator_val().to_python()
    if den != 1:
        return _floor_div(aff_to_c(a.scale_val(isl.Val.int_from_si(a.get_ctx(), den)), names), den)
    terms: list[tuple[int, c_ast.Node]] = []
    for k in range(a.dim(_DT.param)):
        c = a.get_coefficient_val(_DT.param, k).to_python()
        if c:
            n = a.get_dim_name(_DT.param, k)
            terms.append((c, c_ast.ID(names.get(n, n))))
    for k in range(a.dim(_DT.in_)):
        c = a.get_coefficient_val(_DT.in_, k).to_python()
        if c:
            n = a.get_dim_name(_DT.in_, k) or f"x{k}"
            terms.append((c, c_ast.ID(names.get(n, n))))
    for k in range(a.dim(_DT.div)):
        c = a.get_coefficient_val(_DT.div, k).to_python()
        if c:
            d = a.get_div(k)
            dd = d.get_denominator_val().to_python()
            inner = aff_to_c(d.scale_val(isl.Val.int_from_si(a.get_ctx(), dd)), names)
            terms.append((c, _floor_div(inner, dd)))
    return _sum(terms, a.get_constant_val().to_python())


def set_to_c(s: isl.Set, names: Mapping[str, str]) -> c_ast.Node:
    """A parameter set (a condition) as a C boolean expression."""
    disj: list[c_ast.Node] = []
    for b in s.coalesce().get_basic_sets():
        conj: list[c_ast.Node] = []
        for c in b.get_constraints():
            a = c.get_aff()
            e = aff_to_c(a, names)
            conj.append(c_ast.BinaryOp("==" if c.is_equality() else ">=", e, make_int(0)))
        if not conj:
            return make_int(1)
        expr = conj[0]
        for x in conj[1:]:
            expr = c_ast.BinaryOp("&&", expr, x)
        disj.append(expr)
    if not disj:
        return make_int(0)
    expr = disj[0]
    for x in disj[1:]:
        expr = c_ast.BinaryOp("||", expr, x)
    return expr


def pw_aff_to_c(pa: isl.PwAff, names: Mapping[str, str]) -> c_ast.Node | None:
    """A piecewise expression as C (None when undefined or unbounded somewhere)."""
    pa = pa.coalesce()
    pieces = pa.get_pieces()
    if not pieces or any(a.is_nan() for _, a in pieces):
        return None
    expr = _simple(aff_to_c(pieces[-1][1], names))
    for dom, a in reversed(pieces[:-1]):
        expr = c_ast.TernaryOp(set_to_c(dom.params(), names), _simple(aff_to_c(a, names)), expr)
    return expr


def dim_bounds_to_c(s: isl.Set, k: int, names: Mapping[str, str]) -> tuple[c_ast.Node | None, c_ast.Node | None]:
    """C expressions of the lowest and highest value of dimension ``k`` of ``s`` over its
    parameters; None on a side where it is unbounded (isl then refuses the optimum)."""
    out = []
    for extremum in (s.dim_min, s.dim_max):
        try:
            out.append(pw_aff_to_c(extremum(k), names))
        except isl.Error:  # "unbounded optimum"
            out.append(None)
    return out[0], out[1]


def _simple(e: c_ast.Node) -> c_ast.Node:
    try:
        return simplify(e)
    except Exception:  # noqa: BLE001 - folding is cosmetic
        return e
