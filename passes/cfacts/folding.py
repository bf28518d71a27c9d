"""Constant folding of integer expressions: :func:`int_value`, :func:`simplify`
(``0 + 4 * ((n - 0) / 4)`` becomes ``4 * (n / 4)``).
"""

from __future__ import annotations

from pycparser import c_ast

from passman.astutil import copy_node, same_tree, transform

# ------------------------------------------------------------ constant folding

_INT_MAX = 2**31 - 1


def int_value(e: c_ast.Node | None) -> int | None:
    """The value of an integer constant expression made of literals, or None."""
    match e:
        case c_ast.Constant(type="int" | "char") if e.value[-1:] not in "uUlL":
            return int_literal(e.value)
        case c_ast.UnaryOp(op="-"):
            v = int_value(e.expr)
            return None if v is None else -v
        case c_ast.UnaryOp(op="+"):
            return int_value(e.expr)
        case c_ast.BinaryOp(op="+" | "-" | "*" | "/" | "%"):
            a, b = int_value(e.left), int_value(e.right)
            if a is None or b is None:
                return None
            return _arith(e.op, a, b)
    return None


def int_literal(text: str) -> int | None:
    if text.startswith("'"):
        body = text[1:-1]
        return ord(body) if len(body) == 1 else None
    t = text.rstrip("uUlL")
    try:
        if len(t) > 1 and t[0] == "0" and t[1] not in "xXbB":
            return int(t, 8)
        return int(t, 0)
    except ValueError:
        return None


def _arith(op: str, a: int, b: int) -> int | None:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        return None
    q = abs(a) // abs(b)
    q = -q if (a < 0) != (b < 0) else q  # C truncates toward zero
    return q if op == "/" else a - b * q


def make_int(v: int, coord: object = None) -> c_ast.Node:
    """An ``int`` literal (a negation for negative values)."""
    if v < 0:
        return c_ast.UnaryOp("-", c_ast.Constant("int", str(-v), coord), coord)
    return c_ast.Constant("int", str(v), coord)


def simplify(e: c_ast.Node) -> c_ast.Node:
    """Fold integer constants in a side-effect-free expression (returns a new tree).

    Sums are flattened so that constants meet (``n - 1 + 1`` is ``n``) and
    identical terms cancel; ``x * 1``, ``1 * x``, ``x / 1`` and ``0 + x`` lose
    the neutral element. Values that do not fit an ``int`` are left unfolded.
    """
    e = copy_node(e)
    return transform(e, _fold_node)


def _fold_node(n: c_ast.Node) -> c_ast.Node | None:
    if not isinstance(n, (c_ast.BinaryOp, c_ast.UnaryOp)):
        return None
    if isinstance(n, c_ast.UnaryOp):
        v = int_value(n) if n.op in ("-", "+") else None
        if v is not None and abs(v) <= _INT_MAX:
            return make_int(v, n.coord)
        return None
    if n.op in ("+", "-"):
        return _fold_sum(n)
    a, b = int_value(n.left), int_value(n.right)
    if a is not None and b is not None:
        v = _arith(n.op, a, b) if n.op in ("*", "/", "%") else None
        return make_int(v, n.coord) if v is not None and abs(v) <= _INT_MAX else None
    if n.op == "*" and a == 1:
        return n.right
    if n.op in ("*", "/") and b == 1:
        return n.left
    return None


def _terms(n: c_ast.Node, sign: int, out: list[tuple[int, c_ast.Node]]) -> int:
    """Flatten a +/- tree into signed terms; return the sum of its constants."""
    if isinstance(n, c_ast.BinaryOp) and n.op in ("+", "-"):
        c = _terms(n.left, sign, out)
        return c + _terms(n.right, sign if n.op == "+" else -sign, out)
    v = int_value(n)
    if v is not None:
        return sign * v
    for k, (s, t) in enumerate(out):  # x - x cancels
        if s == -sign and same_tree(t, n):
            del out[k]
            return 0
    out.append((sign, n))
    return 0


def _fold_sum(n: c_ast.BinaryOp) -> c_ast.Node:
    terms: list[tuple[int, c_ast.Node]] = []
    const = _terms(n, 1, terms)
    if abs(const) > _INT_MAX:
        return n
    if not terms:
        return make_int(const, n.coord)
    s0, expr = terms[0]
    if s0 < 0:
        expr = c_ast.UnaryOp("-", expr, n.coord)
    for s, t in terms[1:]:
        expr = c_ast.BinaryOp("+" if s > 0 else "-", expr, t, n.coord)
    if const:
        expr = c_ast.BinaryOp("+" if const > 0 else "-", expr, make_int(abs(const)), n.coord)
    return expr
