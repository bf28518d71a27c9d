"""What a statement may modify (:func:`writes`), the calls it makes and whether they are pure
(:data:`PURE_LIBM`), whether an expression has side effects.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from passman.astutil import walk

from .names import NameTable

#: libm (and <stdlib.h> abs) functions that read only their arguments and write nothing
#: a C program can observe (errno aside): calling them cannot change a variable.
PURE_LIBM: frozenset[str] = frozenset(
    f"{base}{suffix}"
    for base in (
        "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow",
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
        "asinh", "acosh", "atanh", "fabs", "floor", "ceil", "round", "trunc", "rint",
        "nearbyint", "fmod", "remainder", "fmax", "fmin", "fdim", "fma", "hypot",
        "copysign", "erf", "erfc",
    )
    for suffix in ("", "f", "l")
) | frozenset({"abs", "labs", "llabs"})  # fmt: skip

# ------------------------------------------------------------------ effects


@dataclass(frozen=True)
class Write:
    """One place where a statement may modify memory.

    ``kind`` is ``"whole"`` (``x = …``, ``x++``, ``&x``), ``"part"`` (``x[i] = …``,
    ``x.f = …``: part of the object named ``x``, or memory ``x`` points to when
    ``x`` is a pointer) or ``"deref"`` (``*p = …``, ``p->f = …``, through a
    pointer; ``base`` is the pointer variable when there is one).
    """

    node: c_ast.Node
    base: c_ast.ID | None
    kind: str
    address: bool = False  # the address escapes (``&x``) rather than a store


def _lvalue(e: c_ast.Node) -> tuple[c_ast.ID | None, str]:
    match e:
        case c_ast.ID():
            return e, "whole"
        case c_ast.ArrayRef() | c_ast.StructRef(type="."):
            base, kind = _lvalue(e.name)
            return base, "part" if kind in ("whole", "part") else kind
        case c_ast.StructRef():  # p->f
            base, _ = _lvalue(e.name)
            return base, "deref"
        case c_ast.UnaryOp(op="*"):
            base, _ = _lvalue(e.expr)
            return base, "deref"
        case c_ast.Cast():
            return _lvalue(e.expr)
    return None, "deref"


def writes(root: c_ast.Node) -> list[Write]:
    """Every assignment, increment and address-of under ``root`` (calls excluded: see :func:`calls`)."""
    out = []
    for n in walk(root):
        if isinstance(n, c_ast.Assignment):
            out.append(Write(n, *_lvalue(n.lvalue)))
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"):
            out.append(Write(n, *_lvalue(n.expr)))
        elif isinstance(n, c_ast.UnaryOp) and n.op == "&":
            base, kind = _lvalue(n.expr)
            if kind != "deref":
                out.append(Write(n, base, kind, address=True))
    return out


def calls(root: c_ast.Node) -> list[c_ast.FuncCall]:
    """Every function call under ``root``."""
    return [n for n in walk(root) if isinstance(n, c_ast.FuncCall)]


def is_pure_call(call: c_ast.FuncCall, table: NameTable | None = None, ws: object = None) -> bool:
    """Whether a call cannot modify anything the program sees.

    True for a call by name (not through a local function pointer) to a
    function that a broker models as pure (``ws.stub_info(name).pure``), or
    to a known libm function (:data:`PURE_LIBM`) the program does not define.
    """
    if not isinstance(call.name, c_ast.ID):
        return False
    if table is not None and table.is_local(table.decl_of(call.name)):
        return False  # a local function pointer, or a block-scope declaration
    name = call.name.name
    if ws is not None:
        info = ws.stub_info(name) if hasattr(ws, "stub_info") else None
        if info is not None and getattr(info, "pure", False):
            return True
        if name in ws:
            return False
    return name in PURE_LIBM


def impure_calls(root: c_ast.Node, table: NameTable | None = None, ws: object = None) -> list[c_ast.FuncCall]:
    """The calls under ``root`` that may write memory (see :func:`is_pure_call`)."""
    return [c for c in calls(root) if not is_pure_call(c, table, ws)]


def has_side_effects(e: c_ast.Node) -> bool:
    """Whether evaluating ``e`` may modify anything (assignments, ``++``/``--``, calls)."""
    return bool(calls(e)) or any(not w.address for w in writes(e))


def variables(e: c_ast.Node) -> list[c_ast.ID]:
    """The identifiers used as values in ``e``."""
    fields = {id(n.field) for n in walk(e) if isinstance(n, c_ast.StructRef)}
    return [n for n in walk(e) if isinstance(n, c_ast.ID) and id(n) not in fields]
