"""The one recogniser of counted ``for`` headers: ``for (i = lb; ...; i += step)``, the index
declaration, its lower bound and its constant step (the condition is each client's: affine
bounds for the polyhedral model, C bounds for the verdicts and the loop transformations).
"""

from __future__ import annotations

from pycparser import c_ast

from .folding import int_value, simplify


def for_init(loop: c_ast.For, names) -> tuple[object, c_ast.Node] | None:
    """``(declaration of i, initial value)`` of ``for (int i = v; ...)`` or ``for (i = v; ...)``, else None."""
    init = loop.init
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
        return init.decls[0], init.decls[0].init
    if isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        decl = names.decl_of(init.lvalue)
        return None if decl is None else (decl, init.rvalue)
    return None


def for_header(loop: c_ast.For, names) -> tuple[object, c_ast.Node, int] | None:
    """``(iterator declaration, lower bound, step)`` of ``for (i = lb; ...; i += step)``, else None."""
    start = for_init(loop, names)
    if start is None:
        return None
    decl, lb = start
    step = for_step(loop.next, decl, names)
    return None if step is None else (decl, lb, step)


def for_step(nxt: c_ast.Node | None, decl: object, names) -> int | None:
    """The constant step of a loop's increment ``i++``, ``i -= 2``, ``i = i + 4`` ... on ``decl``, else None."""
    def mine(e: c_ast.Node) -> bool:
        return isinstance(e, c_ast.ID) and names.decl_of(e) is decl

    match nxt:
        case c_ast.UnaryOp(op="++" | "p++") if mine(nxt.expr):
            return 1
        case c_ast.UnaryOp(op="--" | "p--") if mine(nxt.expr):
            return -1
        case c_ast.Assignment(op="+=" | "-=") if mine(nxt.lvalue):
            v = int_value(simplify(nxt.rvalue))
            if v:
                return v if nxt.op == "+=" else -v
        case c_ast.Assignment(op="=") if mine(nxt.lvalue) and isinstance(nxt.rvalue, c_ast.BinaryOp):
            e = nxt.rvalue
            if e.op == "+" and mine(e.left):
                v = int_value(simplify(e.right))
            elif e.op == "+" and mine(e.right):
                v = int_value(simplify(e.left))
            elif e.op == "-" and mine(e.left):
                v = int_value(simplify(e.right))
                v = -v if v is not None else None
            else:
                v = None
            if v:
                return v
    return None
