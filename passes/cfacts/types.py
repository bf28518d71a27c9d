"""Declared types (:class:`TypeEnv`: variables, members, subscripts) and the arithmetic
type of an expression (:func:`expr_arith_type`, C's usual conversions).
"""

from __future__ import annotations

from collections.abc import Iterable

from pycparser import c_ast

from .folding import int_literal
from .names import NameTable, TopLevelMemo, declaring_nodes

# -------------------------------------------------------------------- types


def typedefs(*roots: Iterable[c_ast.Node] | c_ast.Node) -> dict[str, c_ast.Typedef]:
    """Typedefs declared in ``roots`` (node lists or subtrees), by name; later ones win.

    In a list of top-level nodes, a function definition counts by its
    signature (see :func:`~.names.declaring_nodes`).
    """
    return {n.name: n for n in declaring_nodes(roots) if isinstance(n, c_ast.Typedef)}




def _declared_types(roots: list, typedefs: dict[str, c_ast.Typedef], tags: dict[str, c_ast.Node]) -> None:
    """Add the typedefs and struct or union definitions of ``roots`` (:func:`~.names.declaring_nodes`)."""
    for n in declaring_nodes(roots):
        if isinstance(n, c_ast.Typedef):
            typedefs[n.name] = n
        elif isinstance(n, (c_ast.Struct, c_ast.Union)) and n.name and n.decls is not None:
            tags[n.name] = n


def _top_level_types(ext: list[c_ast.Node]) -> tuple[dict[str, c_ast.Typedef], dict[str, c_ast.Node]]:
    typedefs: dict[str, c_ast.Typedef] = {}
    tags: dict[str, c_ast.Node] = {}
    _declared_types([ext], typedefs, tags)
    return typedefs, tags


#: the typedefs and tags of a unit's top-level nodes: its headers are walked once, not at each
#: :class:`TypeEnv` (1,500 of them on the corpus's recipe)
_TOP_LEVEL = TopLevelMemo()


class TypeEnv:
    """Declared types of variables and expressions, from the declarations in scope.

    ``TypeEnv(table, cu.ast.ext, func)``: typedefs and struct or union
    definitions are taken from the given roots (by name, later ones win);
    in a list of top-level nodes such as ``ext``, the other functions count
    by their signatures, not their bodies (:func:`~.names.declaring_nodes`).
    """

    def __init__(self, table: NameTable, *roots: Iterable[c_ast.Node] | c_ast.Node):
        self.table = table
        self.typedefs: dict[str, c_ast.Typedef] = {}
        self.tags: dict[str, c_ast.Node] = {}
        for root in roots:
            if isinstance(root, c_ast.Node):
                _declared_types([root], self.typedefs, self.tags)
            else:
                typedefs, tags = _TOP_LEVEL.get(list(root), _top_level_types)
                self.typedefs.update(typedefs)
                self.tags.update(tags)

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
            v = int_literal(e.value)
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
