"""Syntactic facts about C code, shared by the loop transformations and outlining.

Everything here reads the AST only (no dependence or region analysis):

* :func:`resolve_names`: which declaration each identifier refers to, with C's
  block scopes, shadowing and ``for (int i = ...)`` declarations;
* :func:`writes`, :func:`calls`, :func:`has_side_effects`: what a statement
  may modify, and whether an expression is free of side effects;
* :class:`TypeEnv`: declared types of variables, members and subscripts, and
  the arithmetic category of a type or expression (signed, unsigned, float ...);
* :func:`simplify`, :func:`int_value`: constant folding of integer expressions
  (``0 + 4 * ((n - 0) / 4)`` becomes ``4 * (n / 4)``);
* :func:`escaping_jumps`, :func:`user_labels`: control flow leaving a statement;
* :func:`only_loop_index`: whether a variable is dead around a statement
  because every use of it is a loop index initialised by its own loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast

from passman.astutil import copy_node, parent_map, same_tree, transform, walk

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


def where(node: c_ast.Node) -> str:
    """``file:line`` of a node, for messages in source terms."""
    c = node.coord
    if c is None:
        return "<unknown>"
    return f"{Path(c.file).name if c.file else '<unknown>'}:{c.line}"


# ---------------------------------------------------------------------------- names


@dataclass
class NameTable:
    """The result of :func:`resolve_names`."""

    #: ``id(ID node)`` -> the node declaring it (``Decl``, ``Typedef``, ``Enumerator``,
    #: or a value of the ``outer`` mapping)
    binding: dict[int, object] = field(default_factory=dict)
    #: declarations found under the root, in source order
    decls: list[c_ast.Node] = field(default_factory=list)
    _order: dict[int, int] = field(default_factory=dict, repr=False)

    def add(self, decl: c_ast.Node) -> None:
        """Record a declaration found under the root."""
        self._order[id(decl)] = len(self.decls)
        self.decls.append(decl)

    def decl_of(self, ident: c_ast.ID) -> object | None:
        """The declaration an identifier refers to (None: not declared under the root or outer)."""
        return self.binding.get(id(ident))

    def is_local(self, decl: object) -> bool:
        """Whether ``decl`` was declared under the root (not in ``outer``)."""
        return id(decl) in self._order

    def position(self, decl: object) -> int:
        """Source order of a declaration found under the root."""
        return self._order[id(decl)]

    def uses(self, root: c_ast.Node, decl: object) -> list[c_ast.ID]:
        """The identifiers under ``root`` that refer to ``decl``."""
        return [n for n in walk(root) if isinstance(n, c_ast.ID) and self.binding.get(id(n)) is decl]


def resolve_names(root: c_ast.Node, outer: Mapping[str, object] | None = None) -> NameTable:
    """Bind every identifier used as a value under ``root`` to its declaration.

    Block scopes, shadowing, ``for``-init declarations, function parameters
    (including VLA sizes), typedef and enumerator names are honoured; struct
    fields, designators and labels are not identifiers of the ordinary name
    space and are skipped. ``outer`` gives the names visible around ``root``.
    """
    table = NameTable()
    scopes: list[dict[str, object]] = [dict(outer or {})]

    def lookup(name: str) -> object | None:
        for scope in reversed(scopes):
            if name in scope:
                return scope[name]
        return None

    def declare(name: str | None, node: object) -> None:
        if name:
            scopes[-1][name] = node

    def visit_type(t: c_ast.Node | None) -> None:
        # declarator parts that hold expressions: array sizes, prototype scopes
        while t is not None:
            if isinstance(t, c_ast.ArrayDecl):
                if t.dim is not None:
                    visit(t.dim)
            elif isinstance(t, c_ast.FuncDecl):
                scopes.append({})
                for p in (t.args.params if t.args else []):
                    if isinstance(p, c_ast.Decl):
                        decl(p, record=False)
                scopes.pop()
            elif isinstance(t, c_ast.TypeDecl):
                visit_type(t.type)
                return
            elif isinstance(t, c_ast.Enum):
                for e in (t.values.enumerators if t.values else []):
                    if e.value is not None:
                        visit(e.value)
                    declare(e.name, e)
                return
            elif isinstance(t, (c_ast.Struct, c_ast.Union, c_ast.IdentifierType)):
                return
            elif isinstance(t, c_ast.Typename):
                visit_type(t.type)
                return
            t = getattr(t, "type", None)

    def decl(d: c_ast.Decl, record: bool = True) -> None:
        visit_type(d.type)
        if d.bitsize is not None:
            visit(d.bitsize)
        if record:
            table.add(d)
        declare(d.name, d)
        if d.init is not None:
            visit(d.init)

    def visit(n: c_ast.Node) -> None:
        match n:
            case c_ast.ID():
                b = lookup(n.name)
                if b is not None:
                    table.binding[id(n)] = b
            case c_ast.Decl():
                decl(n)
            case c_ast.Typedef():
                visit_type(n.type)
                table.add(n)
                declare(n.name, n)
            case c_ast.StructRef():
                visit(n.name)
            case c_ast.NamedInitializer():
                visit(n.expr)
            case c_ast.Typename():
                visit_type(n.type)
            case c_ast.FuncDef():
                declare(n.decl.name, n.decl)
                scopes.append({})
                ftype = n.decl.type
                if isinstance(ftype, c_ast.FuncDecl) and ftype.args:
                    for p in ftype.args.params:
                        if isinstance(p, c_ast.Decl):
                            decl(p)
                for p in n.param_decls or []:
                    decl(p)
                visit(n.body)
                scopes.pop()
            case c_ast.Compound() | c_ast.For():
                scopes.append({})
                for _, c in n.children():
                    visit(c)
                scopes.pop()
            case _:
                for _, c in n.children():
                    visit(c)

    visit(root)
    return table


def file_scope(ext: Iterable[c_ast.Node]) -> dict[str, c_ast.Node]:
    """Names declared at file scope: variables, functions, typedefs, enumerators."""
    names: dict[str, c_ast.Node] = {}
    for n in ext:
        d = n.decl if isinstance(n, c_ast.FuncDef) else n
        if isinstance(d, (c_ast.Decl, c_ast.Typedef)):
            if d.name:
                names[d.name] = d
            for e in walk(d.type):
                if isinstance(e, c_ast.Enumerator):
                    names[e.name] = e
    return names


def unevaluated(root: c_ast.Node) -> set[int]:
    """``id`` of every node under ``sizeof`` or ``_Alignof`` in ``root`` (never evaluated)."""
    return {
        id(i)
        for s in walk(root)
        if isinstance(s, c_ast.UnaryOp) and s.op in ("sizeof", "_Alignof")
        for i in walk(s.expr)
    }


def substitute(root: c_ast.Node, name: str, make: Callable[[], c_ast.Node]) -> c_ast.Node:
    """Replace the free occurrences of variable ``name`` under ``root`` by ``make()``.

    Occurrences shadowed by an inner declaration, and those under ``sizeof``
    (whose value is never computed), are left alone. Returns the new root.
    """
    marker = object()
    table = resolve_names(root, {name: marker})
    skip = unevaluated(root)
    targets = {k for k, b in table.binding.items() if b is marker and k not in skip}
    return transform(root, lambda n: make() if id(n) in targets else None)


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


# -------------------------------------------------------------------- types


def typedefs(*roots: Iterable[c_ast.Node] | c_ast.Node) -> dict[str, c_ast.Typedef]:
    """Typedefs declared in ``roots`` (node lists or subtrees), by name; later ones win."""
    return {n.name: n for n in _all_nodes(roots) if isinstance(n, c_ast.Typedef)}


def _all_nodes(roots) -> Iterable[c_ast.Node]:
    for r in roots:
        for top in [r] if isinstance(r, c_ast.Node) else r:
            yield from walk(top)


class TypeEnv:
    """Declared types of variables and expressions, from the declarations in scope.

    ``TypeEnv(table, cu.ast.ext, func)``: typedefs and struct or union
    definitions are taken from the given roots (by name, later ones win).
    """

    def __init__(self, table: NameTable, *roots: Iterable[c_ast.Node] | c_ast.Node):
        self.table = table
        self.typedefs: dict[str, c_ast.Typedef] = {}
        self.tags: dict[str, c_ast.Node] = {}
        for n in _all_nodes(roots):
            if isinstance(n, c_ast.Typedef):
                self.typedefs[n.name] = n
            elif isinstance(n, (c_ast.Struct, c_ast.Union)) and n.name and n.decls is not None:
                self.tags[n.name] = n

    def unalias(self, t: c_ast.Node | None) -> c_ast.Node | None:
        """``t`` with typedef names replaced by what they name (outermost level only)."""
        for _ in range(64):
            if isinstance(t, (c_ast.Decl, c_ast.Typename, c_ast.Typedef)):
                t = t.type
            elif (
                isinstance(t, c_ast.TypeDecl)
                and isinstance(t.type, c_ast.IdentifierType)
                and len(t.type.names) == 1
                and t.type.names[0] in self.typedefs
            ):
                t = self.typedefs[t.type.names[0]].type
            else:
                return t
        return t

    def category(self, t: c_ast.Node | None) -> str:
        """Category of a declared type once promoted.

        One of ``signed``, ``unsigned`` (unsigned int or wider), ``float``,
        ``pointer``, ``array``, ``struct``, ``function``, ``void``, ``unknown``.
        """
        t = self.unalias(t)
        match t:
            case c_ast.ArrayDecl():
                return "array"
            case c_ast.PtrDecl():
                return "pointer"
            case c_ast.FuncDecl():
                return "function"
            case c_ast.TypeDecl(type=c_ast.Struct() | c_ast.Union()):
                return "struct"
            case c_ast.TypeDecl(type=c_ast.Enum()):
                return "signed"
            case c_ast.TypeDecl(type=c_ast.IdentifierType(names=names)):
                kinds = set(names)
                if kinds & {"float", "double", "_Complex"}:
                    return "float"
                if kinds == {"void"}:
                    return "void"
                if kinds & {"char", "short", "_Bool"}:
                    return "signed"  # promoted to int
                if "unsigned" in kinds:
                    return "unsigned"
                if kinds & {"int", "long", "signed"}:
                    return "signed"
        return "unknown"

    def decl_category(self, ident: c_ast.ID | None) -> str:
        """Category of the variable an identifier names (``unknown`` if undeclared)."""
        d = self.table.decl_of(ident) if ident is not None else None
        return self.category(d.type) if isinstance(d, c_ast.Decl) else "unknown"

    def expr_type(self, e: c_ast.Node) -> c_ast.Node | None:
        """Declared type of a variable, member, subscript, dereference or cast expression."""
        match e:
            case c_ast.ID():
                d = self.table.decl_of(e)
                return d.type if isinstance(d, c_ast.Decl) else None
            case c_ast.Cast():
                return e.to_type.type
            case c_ast.ArrayRef() | c_ast.UnaryOp(op="*"):
                t = self.unalias(self.expr_type(e.name if isinstance(e, c_ast.ArrayRef) else e.expr))
                return t.type if isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)) else None
            case c_ast.StructRef():
                t = self.unalias(self.expr_type(e.name))
                if e.type == "->":
                    t = self.unalias(t.type) if isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)) else None
                if not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, (c_ast.Struct, c_ast.Union)):
                    return None
                su = t.type if t.type.decls is not None else self.tags.get(t.type.name)
                for d in (su.decls or []) if su is not None else []:
                    if d.name == e.field.name:
                        return d.type
        return None

    def expr_category(self, e: c_ast.Node) -> str:
        """Category of an expression after the usual arithmetic conversions (arrays decay)."""
        match e:
            case c_ast.Constant():
                return _constant_category(e)
            case c_ast.ID() if isinstance(self.table.decl_of(e), c_ast.Enumerator):
                return "signed"
            case c_ast.ID() | c_ast.ArrayRef() | c_ast.StructRef() | c_ast.UnaryOp(op="*") | c_ast.Cast():
                k = self.category(self.expr_type(e))
                return "pointer" if k == "array" else k
            case c_ast.UnaryOp(op="sizeof" | "_Alignof"):
                return "unsigned"
            case c_ast.UnaryOp(op="!"):
                return "signed"
            case c_ast.UnaryOp(op="-" | "+" | "~" | "++" | "--" | "p++" | "p--"):
                return self.expr_category(e.expr)
            case c_ast.BinaryOp(op="<" | ">" | "<=" | ">=" | "==" | "!=" | "&&" | "||"):
                return "signed"
            case c_ast.BinaryOp(op="<<" | ">>"):
                return self.expr_category(e.left)
            case c_ast.BinaryOp():
                a, b = self.expr_category(e.left), self.expr_category(e.right)
                if e.op == "-" and a == b == "pointer":
                    return "signed"  # ptrdiff_t
                return _usual(a, b)
            case c_ast.TernaryOp():
                return _usual(self.expr_category(e.iftrue), self.expr_category(e.iffalse))
        return "unknown"


def _constant_category(c: c_ast.Constant) -> str:
    if c.type in ("float", "double", "long double"):
        return "float"
    if c.type == "string":
        return "pointer"
    if "unsigned" in c.type or c.value.rstrip("lL")[-1:] in ("u", "U"):
        return "unsigned"
    return "signed"


def _usual(a: str, b: str) -> str:
    for k in ("unknown", "struct", "void", "function", "pointer", "float", "unsigned"):
        if k in (a, b):
            return k
    return "signed"


# ------------------------------------------------------------ constant folding

_INT_MAX = 2**31 - 1


def int_value(e: c_ast.Node | None) -> int | None:
    """The value of an integer constant expression made of literals, or None."""
    match e:
        case c_ast.Constant(type="int" | "char") if e.value[-1:] not in "uUlL":
            return _literal(e.value)
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


def _literal(text: str) -> int | None:
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


# ------------------------------------------------------------- control flow


def escaping_jumps(stmt: c_ast.Node) -> list[c_ast.Node]:
    """Statements under ``stmt`` that transfer control out of it (or into it from a switch).

    ``return``; ``break`` and ``continue`` not bound to a loop or switch inside
    ``stmt``; ``goto`` to a label not defined inside ``stmt``; ``case`` and
    ``default`` labels of a switch outside ``stmt``.
    """
    labels = {n.name for n in walk(stmt) if isinstance(n, c_ast.Label)}
    out: list[c_ast.Node] = []

    def visit(n: c_ast.Node, in_loop: bool, in_switch: bool) -> None:
        match n:
            case c_ast.Return():
                out.append(n)
            case c_ast.Break() if not (in_loop or in_switch):
                out.append(n)
            case c_ast.Continue() if not in_loop:
                out.append(n)
            case c_ast.Goto() if n.name not in labels:
                out.append(n)
            case c_ast.Case() | c_ast.Default() if not in_switch:
                out.append(n)
        loop = in_loop or isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile))
        switch = in_switch or isinstance(n, c_ast.Switch)
        for _, c in n.children():
            visit(c, loop, switch)

    visit(stmt, False, False)
    return out


def describe_jump(n: c_ast.Node) -> str:
    """``return``, ``break``, ``goto done`` ... as written in the source, with its line."""
    word = {
        c_ast.Return: "return", c_ast.Break: "break", c_ast.Continue: "continue",
        c_ast.Case: "case label", c_ast.Default: "default label",
    }.get(type(n), "goto")  # fmt: skip
    if isinstance(n, c_ast.Goto):
        word = f"goto {n.name}"
    return f"{word} at line {n.coord.line}" if n.coord else word


def user_labels(root: c_ast.Node, generated: Iterable[str]) -> list[c_ast.Label]:
    """The ``Label`` nodes under ``root`` that the user wrote (not generated loop labels)."""
    gen = set(generated)
    return [n for n in walk(root) if isinstance(n, c_ast.Label) and n.name not in gen]


def pragmas_before(parent: c_ast.Node, stmt: c_ast.Node) -> list[c_ast.Pragma]:
    """The ``#pragma`` lines right before ``stmt`` in its block (they apply to it)."""
    items = getattr(parent, "block_items", None) or []
    i = next((k for k, n in enumerate(items) if n is stmt), 0)
    j = i
    while j > 0 and isinstance(items[j - 1], c_ast.Pragma):
        j -= 1
    return items[j:i]


def detach_pragmas(parent: c_ast.Node, stmt: c_ast.Node) -> list[c_ast.Pragma]:
    """Remove and return the ``#pragma`` lines right before ``stmt`` in its block."""
    pragmas = pragmas_before(parent, stmt)
    if pragmas:
        parent.block_items[:] = [n for n in parent.block_items if not any(n is p for p in pragmas)]
    return pragmas


# ------------------------------------------------------------------ liveness


def only_loop_index(
    func: c_ast.Node, decl: object, table: NameTable, stmt: c_ast.Node
) -> bool:
    """Whether variable ``decl`` carries no value into or out of ``stmt``.

    True when every use of the variable in ``func`` sits inside a ``for`` loop
    whose initialisation assigns it (from an expression not using it), and no
    such loop encloses ``stmt`` without being ``stmt`` itself or inside it:
    every read then sees a value its own loop just wrote.
    """
    parents = parent_map(func)
    enclosing = set()
    p = parents.get(id(stmt))
    while p is not None:
        enclosing.add(id(p))
        p = parents.get(id(p))

    def assigns(f: c_ast.For) -> bool:
        inits = f.init.exprs if isinstance(f.init, c_ast.ExprList) else [f.init]
        return any(
            isinstance(a, c_ast.Assignment)
            and a.op == "="
            and isinstance(a.lvalue, c_ast.ID)
            and table.decl_of(a.lvalue) is decl
            and not any(table.decl_of(i) is decl for i in variables(a.rvalue))
            for a in inits
        )

    def visit(n: c_ast.Node, covered: bool) -> bool:
        if isinstance(n, c_ast.ID) and table.decl_of(n) is decl and not covered:
            return False
        if isinstance(n, c_ast.For) and id(n) not in enclosing and assigns(n):
            covered = True
        return all(visit(c, covered) for _, c in n.children())

    return visit(func, False)


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


# ------------------------------------------------------------------ names


def taken_names(*roots: c_ast.Node | Iterable[c_ast.Node]) -> set[str]:
    """Every identifier, declared name and label under ``roots`` (to pick names that clash with none)."""
    out: set[str] = set()
    for n in _all_nodes(roots):
        match n:
            case c_ast.ID() | c_ast.Label() | c_ast.Goto():
                out.add(n.name)
            case c_ast.Decl() | c_ast.Typedef() | c_ast.Enumerator() if n.name:
                out.add(n.name)
            case c_ast.TypeDecl() if n.declname:
                out.add(n.declname)
            case c_ast.IdentifierType():
                out.update(n.names)
            case c_ast.Struct() | c_ast.Union() | c_ast.Enum() if n.name:
                out.add(n.name)
    return out


def fresh_name(base: str, taken: set[str]) -> str:
    """``base``, or ``base_1``, ``base_2`` ... : the first name not in ``taken`` (which it joins)."""
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name


def rename_declaration(decl: c_ast.Decl, name: str) -> None:
    """Give a variable declaration a new name (its ``Decl`` and its declarator)."""
    decl.name = name
    t = decl.type
    while t is not None and not isinstance(t, c_ast.TypeDecl):
        t = getattr(t, "type", None)
    if t is not None:
        t.declname = name


def statement_lists(root: c_ast.Node) -> list[list[c_ast.Node]]:
    """The statement lists under ``root``: block items of each ``Compound``, statements of each ``case``."""
    out = []
    for n in walk(root):
        if isinstance(n, c_ast.Compound) and n.block_items is not None:
            out.append(n.block_items)
        elif isinstance(n, (c_ast.Case, c_ast.Default)) and n.stmts is not None:
            out.append(n.stmts)
    return out


# ------------------------------------------------------------ arithmetic types

#: canonical arithmetic type names, by integer conversion rank (LP64)
_INT_RANKS = {"int": 1, "long": 2, "long long": 3}
_CANONICAL = {
    frozenset({"char"}): "char", frozenset({"signed", "char"}): "signed char",
    frozenset({"unsigned", "char"}): "unsigned char", frozenset({"_Bool"}): "_Bool",
    frozenset({"short"}): "short", frozenset({"short", "int"}): "short",
    frozenset({"signed", "short"}): "short", frozenset({"signed", "short", "int"}): "short",
    frozenset({"unsigned", "short"}): "unsigned short", frozenset({"unsigned", "short", "int"}): "unsigned short",
    frozenset({"int"}): "int", frozenset({"signed"}): "int", frozenset({"signed", "int"}): "int",
    frozenset({"unsigned"}): "unsigned int", frozenset({"unsigned", "int"}): "unsigned int",
    frozenset({"long"}): "long", frozenset({"long", "int"}): "long", frozenset({"signed", "long"}): "long",
    frozenset({"signed", "long", "int"}): "long",
    frozenset({"unsigned", "long"}): "unsigned long", frozenset({"unsigned", "long", "int"}): "unsigned long",
    frozenset({"float"}): "float", frozenset({"double"}): "double", frozenset({"long", "double"}): "long double",
}  # fmt: skip
#: value ranges of the integer types (LP64, plain char signed as on x86)
INT_RANGES = {
    "char": (-(2**7), 2**7 - 1), "signed char": (-(2**7), 2**7 - 1), "unsigned char": (0, 2**8 - 1),
    "short": (-(2**15), 2**15 - 1), "unsigned short": (0, 2**16 - 1),
    "int": (-(2**31), 2**31 - 1), "unsigned int": (0, 2**32 - 1),
    "long": (-(2**63), 2**63 - 1), "unsigned long": (0, 2**64 - 1),
    "long long": (-(2**63), 2**63 - 1), "unsigned long long": (0, 2**64 - 1),
}  # fmt: skip


def arith_type(t: c_ast.Node | None, env: TypeEnv) -> str | None:
    """The canonical name of an arithmetic type (``unsigned int``, ``long``, ``double`` ...), or None."""
    t = env.unalias(t)
    if not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, c_ast.IdentifierType):
        return None
    names = list(t.type.names)
    if names.count("long") == 2:
        names = [n for n in names if n not in ("long", "int", "signed")]
        return "unsigned long long" if "unsigned" in names else "long long"
    return _CANONICAL.get(frozenset(names))


def _promote(t: str | None) -> str | None:
    if t in ("char", "signed char", "unsigned char", "short", "unsigned short", "_Bool"):
        return "int"
    return t


def _usual_types(a: str | None, b: str | None) -> str | None:
    if a is None or b is None:
        return None
    for f in ("long double", "double", "float"):
        if f in (a, b):
            return f
    def parts(t: str) -> tuple[bool, int]:
        u = t.startswith("unsigned ")
        return u, _INT_RANKS[t[9:] if u else t]
    (ua, ra), (ub, rb) = parts(a), parts(b)
    if ua == ub:
        return a if ra >= rb else b
    (us, rs), (ss, sr) = ((a, ra), (b, rb)) if ua else ((b, rb), (a, ra))
    if rs >= sr:
        return us
    if sr > 1:  # long and long long hold every unsigned int (LP64)
        return ss if rs < 2 else "unsigned " + ss
    return us


def expr_arith_type(e: c_ast.Node, env: TypeEnv) -> str | None:
    """The canonical arithmetic type of expression ``e`` after C's conversions, or None if unknown."""
    match e:
        case c_ast.Constant(type="int"):
            v = _literal(e.value)
            suffix = e.value.lower().lstrip("0123456789abcdefx")
            if e.value.lower().startswith("0x"):
                suffix = e.value.lower()[2:].lstrip("0123456789abcdef")
            base = {"": "int", "u": "unsigned int", "l": "long", "ul": "unsigned long", "lu": "unsigned long",
                    "ll": "long long", "ull": "unsigned long long", "llu": "unsigned long long"}.get(suffix)
            if base == "int" and v is not None and v > 2**31 - 1:
                return None  # a wider type: let the caller cast
            return base
        case c_ast.Constant(type="char"):
            return "int"
        case c_ast.Constant(type="double"):
            return "float" if e.value[-1:] in "fF" else "long double" if e.value[-1:] in "lL" else "double"
        case c_ast.Constant(type="float"):
            return "float"
        case c_ast.ID() | c_ast.ArrayRef() | c_ast.StructRef() | c_ast.UnaryOp(op="*"):
            if isinstance(e, c_ast.ID) and isinstance(env.table.decl_of(e), c_ast.Enumerator):
                return "int"
            return _promote(arith_type(env.expr_type(e), env))
        case c_ast.Cast():
            return _promote(arith_type(e.to_type.type, env))
        case c_ast.UnaryOp(op="!") | c_ast.BinaryOp(op="<" | ">" | "<=" | ">=" | "==" | "!=" | "&&" | "||"):
            return "int"
        case c_ast.UnaryOp(op="-" | "+" | "~"):
            return expr_arith_type(e.expr, env)
        case c_ast.BinaryOp(op="<<" | ">>"):
            return expr_arith_type(e.left, env)
        case c_ast.BinaryOp(op="+" | "-" | "*" | "/" | "%" | "&" | "|" | "^"):
            return _usual_types(expr_arith_type(e.left, env), expr_arith_type(e.right, env))
        case c_ast.TernaryOp():
            return _usual_types(expr_arith_type(e.iftrue, env), expr_arith_type(e.iffalse, env))
    return None


def names_in_scope(func: c_ast.Node, ext: Iterable[c_ast.Node]) -> set[str]:
    """The names a new local of ``func`` must avoid: every name in ``func`` and every file-scope name."""
    return taken_names(func) | set(file_scope(ext))
