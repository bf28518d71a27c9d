"""Forms of expressions and references: the base and subscripts of ``A[i][j]``, the linear
coefficient of a variable, ``min``/``max`` as C, accesses through pointers.
"""

from __future__ import annotations

from pycparser import c_ast

from passman.astutil import copy_node, walk

from .folding import int_value, simplify
from .sideeffects import variables
from .types import TypeEnv

# ------------------------------------------------------------- affine forms


def array_ref_base(ref: c_ast.Node) -> tuple[c_ast.Node, list[c_ast.Node]]:
    """The base of ``A[i][j]`` (``A``) and its subscripts, outermost first (``[i, j]``)."""
    subs = []
    while isinstance(ref, c_ast.ArrayRef):
        subs.insert(0, ref.subscript)
        ref = ref.name
    return ref, subs


def remove_declaration(root: c_ast.Node, d: c_ast.Decl) -> None:
    """Remove declaration ``d`` from the block (or declaration list) under ``root`` that holds it."""
    for n in walk(root):
        if isinstance(n, c_ast.Compound) and n.block_items and any(x is d for x in n.block_items):
            n.block_items = [x for x in n.block_items if x is not d]
            return
        if isinstance(n, c_ast.DeclList) and any(x is d for x in n.decls):
            n.decls = [x for x in n.decls if x is not d]
            return


def reads_through_pointer(e: c_ast.Node, env: TypeEnv) -> bool:
    """Whether ``e`` accesses memory through a pointer (``*p``, ``p->f``, ``p[i]`` on a non-array)."""
    for n in walk(e):
        if isinstance(n, c_ast.UnaryOp) and n.op == "*":
            return True
        if isinstance(n, c_ast.StructRef) and n.type == "->":
            return True
        if isinstance(n, c_ast.ArrayRef):
            base = n.name
            while isinstance(base, c_ast.ArrayRef):
                base = base.name
            if not isinstance(base, c_ast.ID) or env.decl_category(base) != "array":
                return True
    return False


def linear_coefficient(e: c_ast.Node, name: str) -> int | None:
    """The coefficient ``c`` of variable ``name`` when ``e`` is ``c*name + f`` with ``f`` free of it.

    0 when ``e`` does not use ``name``; None when it does in any other way
    (under a division, a call, a subscript, multiplied by a non-constant ...).
    """
    match e:
        case c_ast.ID():
            return 1 if e.name == name else 0
        case c_ast.Constant():
            return 0
        case c_ast.UnaryOp(op="-" | "+"):
            c = linear_coefficient(e.expr, name)
            return None if c is None else (-c if e.op == "-" else c)
        case c_ast.BinaryOp(op="+" | "-"):
            a, b = linear_coefficient(e.left, name), linear_coefficient(e.right, name)
            if a is None or b is None:
                return None
            return a + b if e.op == "+" else a - b
        case c_ast.BinaryOp(op="*"):
            a, b = linear_coefficient(e.left, name), linear_coefficient(e.right, name)
            if a is None or b is None:
                return None
            if a and b:
                return None
            if a:
                k = int_value(simplify(e.right))
                return None if k is None else a * k
            if b:
                k = int_value(simplify(e.left))
                return None if k is None else b * k
            return 0
    uses = any(v.name == name for v in variables(e)) if isinstance(e, c_ast.Node) else False
    return None if uses else 0


def extreme(op: str, a: c_ast.Node, b: c_ast.Node) -> c_ast.Node:
    """``a op b ? a : b`` (copies): ``<`` gives the minimum, ``>`` the maximum."""
    return c_ast.TernaryOp(c_ast.BinaryOp(op, copy_node(a), copy_node(b)), copy_node(a), copy_node(b))
