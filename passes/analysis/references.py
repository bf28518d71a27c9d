"""Proper memory references of one statement: which variables it reads and writes.

This is the syntactic layer under the effects, reductions, privatization and
polyhedral analyses. For one statement it lists every memory access the
statement itself performs (its *proper* references, in PIPS terms), not
those of the statements nested in it:

* ``for``: its initialisation, condition and increment;
* ``if``, ``while``, ``do``, ``switch``: their condition;
* an expression statement, ``return``, a declaration (array sizes and
  initialiser): everything in it.

Each access is a :class:`Ref`. The rules:

* ``a[i] += e`` and ``x++`` read and write their operand; ``x = e`` writes x;
* subscripts, and pointer variables used to address memory (``p`` in
  ``p[i]``, ``*p``, ``p->f``), are read;
* ``&x`` does not read x (see :func:`taken_addresses`), nor does an array
  name used as a value (``f(A)``, ``A[i]`` of a 2-D ``A``): both only compute
  an address;
* arguments of calls are read; what the callee does is for ``effects.py``;
* ``sizeof`` and ``_Alignof`` operands are not evaluated.

``*p`` is normalised to ``p[0]`` and ``*(p + e)`` to ``p[e]`` when ``p`` is a
pointer or array variable. Before::

    s += a[i] * *(b + i);

gives the references ``read s``, ``read a[i]``, ``read i``, ``read b``
(the pointer), ``read b[i]`` (through the pointer), ``read i``, ``write s``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pycparser import c_ast

from passman.astutil import walk

from ..cfacts.forms import array_ref_base
from ..cfacts.names import NameTable
from ..cfacts.types import TypeEnv

#: statements that hold other statements (their proper part is a header at most)
CONTROL = (
    c_ast.Compound, c_ast.If, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch,
    c_ast.Label, c_ast.Case, c_ast.Default,
)  # fmt: skip

#: statements with no memory reference of their own and nothing nested
_NOTHING = (
    c_ast.Break, c_ast.Continue, c_ast.Goto, c_ast.EmptyStatement, c_ast.Pragma,
    c_ast.Typedef, c_ast.StaticAssert,
)  # fmt: skip


@dataclass(frozen=True)
class Ref:
    """One memory access of a statement.

    ``node`` is the accessed expression (an ``ID``, ``ArrayRef``,
    ``StructRef`` or ``UnaryOp('*')``; for a normalised ``*(p + i)`` the
    ``UnaryOp``), ``var`` the base variable ("" for unknown memory) and
    ``decl`` its declaration as :func:`cfacts.resolve_names` binds it.
    ``subscripts`` are the index expressions, outermost first (``*p`` gives
    ``(0,)`` with a synthesised constant); None means the whole variable
    (scalars) or an unknown part. ``through_pointer``: the memory is reached
    through the value of a pointer (``p[i]``, ``*p``, ``p->f``), not the
    variable's own storage. ``exact`` is False when the accessed part is not
    fully known (struct fields, casts, pointer arithmetic, memory behind a
    pointer loaded from memory such as ``m[i][j]`` of a ``double **m``).
    """

    node: c_ast.Node
    var: str
    decl: object | None
    mode: str  # "read" | "write" (| "address" for taken_addresses)
    subscripts: tuple[c_ast.Node, ...] | None
    through_pointer: bool
    exact: bool
    stmt: c_ast.Node

    @property
    def is_scalar(self) -> bool:
        """A whole variable's own storage (``x``, not ``A[i]`` nor ``*p``)."""
        return self.subscripts is None and not self.through_pointer and self.exact


# --------------------------------------------------------------------- statements


def proper_parts(stmt: c_ast.Node) -> list[c_ast.Node]:
    """The expressions (and declarations) that belong to ``stmt`` itself, in evaluation order."""
    match stmt:
        case c_ast.For():
            return [p for p in (stmt.init, stmt.cond, stmt.next) if p is not None]
        case c_ast.If() | c_ast.While() | c_ast.DoWhile() | c_ast.Switch():
            return [stmt.cond] if stmt.cond is not None else []
        case c_ast.Return():
            return [stmt.expr] if stmt.expr is not None else []
        case c_ast.Compound() | c_ast.Label() | c_ast.Case() | c_ast.Default():
            return []
        case _ if isinstance(stmt, _NOTHING):
            return []
        case c_ast.FuncDef():
            return []
    return [stmt]


def is_statement(node: c_ast.Node) -> bool:
    """Whether ``node`` sits where C expects a statement (any node of a block is one)."""
    return not isinstance(node, (c_ast.FuncDef, c_ast.FileAST))


def statements(root: c_ast.Node) -> Iterator[c_ast.Node]:
    """Every statement under ``root`` (control statements included), in pre-order.

    ``root`` may be a ``FuncDef`` (its body is walked) or a statement.
    Declarations in a ``for`` initialisation belong to the ``for``.
    """
    if isinstance(root, c_ast.FuncDef):
        root = root.body
    stack = [root]
    while stack:
        s = stack.pop()
        yield s
        stack.extend(reversed(substatements(s)))


def substatements(stmt: c_ast.Node) -> list[c_ast.Node]:
    """The statements directly nested in ``stmt``."""
    match stmt:
        case c_ast.Compound():
            return [s for s in stmt.block_items or [] if s is not None]
        case c_ast.If():
            return [s for s in (stmt.iftrue, stmt.iffalse) if s is not None]
        case c_ast.For() | c_ast.While() | c_ast.DoWhile() | c_ast.Switch():
            return [stmt.stmt] if stmt.stmt is not None else []
        case c_ast.Label():
            return [stmt.stmt] if stmt.stmt is not None else []
        case c_ast.Case() | c_ast.Default():
            return [s for s in stmt.stmts or [] if s is not None]
    return []


def simple_statements(root: c_ast.Node) -> Iterator[tuple[c_ast.Node, tuple[c_ast.For, ...]]]:
    """Every leaf statement under ``root`` with its enclosing ``for`` loops (outermost first).

    Leaves are expression statements, declarations, ``return``, ``break``,
    ``continue`` and ``goto``; control statements (``if``, loops, ``switch``),
    blocks, labels, pragmas and empty statements are not yielded (their
    proper references come from :func:`statement_refs` on them). In source
    order; the enclosing loops are those of ``root`` and below.
    """
    if isinstance(root, c_ast.FuncDef):
        root = root.body

    def visit(s: c_ast.Node, loops: tuple[c_ast.For, ...]) -> Iterator:
        if isinstance(s, CONTROL):
            inner = loops + (s,) if isinstance(s, c_ast.For) else loops
            for sub in substatements(s):
                yield from visit(sub, inner)
        elif not isinstance(s, (c_ast.EmptyStatement, c_ast.Pragma, c_ast.Typedef, c_ast.StaticAssert)):
            yield s, loops

    yield from visit(root, ())


def call_sites(stmt: c_ast.Node) -> list[c_ast.FuncCall]:
    """The calls a statement makes itself (not those of nested statements), in pre-order."""
    return [n for p in proper_parts(stmt) for n in walk(p) if isinstance(n, c_ast.FuncCall)]


# ------------------------------------------------------------------ references


def statement_refs(stmt: c_ast.Node, names: NameTable, types: TypeEnv | None = None) -> list[Ref]:
    """The proper memory references of ``stmt``, in evaluation order (reads before the write they feed).

    ``names`` binds identifiers to declarations (``cfacts.resolve_names`` on
    the function, with the file scope as ``outer``); ``types`` (optional)
    resolves typedefs so that pointers and arrays hidden behind a typedef
    name are recognised.
    """
    c = _Collector(stmt, names, types)
    for part in proper_parts(stmt):
        c.part(part)
    return c.refs


def taken_addresses(stmt: c_ast.Node, names: NameTable, types: TypeEnv | None = None) -> list[Ref]:
    """The references whose address ``stmt`` takes (``&x``, ``&A[i]``), with mode ``"address"``.

    An array name passed as a value (``f(A)``) also exposes the array's
    address and is listed.
    """
    c = _Collector(stmt, names, types)
    for part in proper_parts(stmt):
        c.part(part)
    return c.addresses


_ZERO = c_ast.Constant("int", "0")


def _is_var_decl(d: object) -> bool:
    if not isinstance(d, c_ast.Decl):
        return False
    return not isinstance(d.type, c_ast.FuncDecl)


class _Collector:
    """Walks the proper part of one statement and records its references."""

    def __init__(self, stmt: c_ast.Node, names: NameTable, types: TypeEnv | None):
        self.stmt = stmt
        self.names = names
        self.types = types
        self.refs: list[Ref] = []
        self.addresses: list[Ref] = []

    # -- types ------------------------------------------------------------------
    def _unalias(self, t: c_ast.Node | None) -> c_ast.Node | None:
        if self.types is not None:
            return self.types.unalias(t)
        while isinstance(t, (c_ast.Decl, c_ast.Typename)):
            t = t.type
        return t

    def decl_type(self, ident: c_ast.ID) -> c_ast.Node | None:
        d = self.names.decl_of(ident)
        return self._unalias(d.type) if isinstance(d, c_ast.Decl) else None

    def _expr_type(self, e: c_ast.Node) -> c_ast.Node | None:
        if self.types is not None:
            return self._unalias(self.types.expr_type(e))
        if isinstance(e, c_ast.ID):
            return self.decl_type(e)
        return None

    # -- recording ------------------------------------------------------------------
    def add(self, node, var, decl, mode, subs, through, exact) -> None:
        self.refs.append(Ref(node, var, decl, mode, subs, through, exact, self.stmt))

    # -- walking ----------------------------------------------------------------------
    def part(self, p: c_ast.Node) -> None:
        if isinstance(p, c_ast.DeclList):
            for d in p.decls:
                self.decl(d)
        elif isinstance(p, c_ast.Decl):
            self.decl(p)
        else:
            self.value(p)

    def decl(self, d: c_ast.Decl) -> None:
        t = d.type
        while t is not None and not isinstance(t, (c_ast.TypeDecl, c_ast.IdentifierType)):
            if isinstance(t, c_ast.ArrayDecl) and t.dim is not None:
                self.value(t.dim)  # VLA sizes are evaluated
            if isinstance(t, c_ast.FuncDecl):
                return  # a prototype
            t = getattr(t, "type", None)
        if d.init is not None and d.name and "static" not in (d.storage or []):
            self.value(d.init)
            ident = c_ast.ID(d.name, d.coord)
            self.add(ident, d.name, d, "write", None, False, True)

    def value(self, e: c_ast.Node | None) -> None:
        """``e`` is evaluated for its value."""
        match e:
            case None | c_ast.Constant():
                return
            case c_ast.ID():
                d = self.names.decl_of(e)
                if d is not None and not _is_var_decl(d):
                    return  # function, enumerator, typedef name
                if isinstance(self.decl_type(e), c_ast.ArrayDecl):
                    self.address(e)  # an array decays to its address
                    return
                self.add(e, e.name, d, "read", None, False, True)
            case c_ast.ArrayRef() | c_ast.StructRef() | c_ast.UnaryOp(op="*"):
                self.access(e, "read")
            case c_ast.Assignment():
                if e.op == "=":
                    self.value(e.rvalue)
                    self.access(e.lvalue, "write")
                else:
                    self.access(e.lvalue, "read")
                    self.value(e.rvalue)
                    self.access(e.lvalue, "write", addressing=False)
            case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--"):
                self.access(e.expr, "read")
                self.access(e.expr, "write", addressing=False)
            case c_ast.UnaryOp(op="&"):
                self.address(e.expr)
            case c_ast.UnaryOp(op="sizeof" | "_Alignof"):
                return
            case c_ast.UnaryOp():
                self.value(e.expr)
            case c_ast.BinaryOp():
                self.value(e.left)
                self.value(e.right)
            case c_ast.TernaryOp():
                self.value(e.cond)
                self.value(e.iftrue)
                self.value(e.iffalse)
            case c_ast.Cast():
                self.value(e.expr)
            case c_ast.FuncCall():
                if not isinstance(e.name, c_ast.ID):
                    self.value(e.name)
                else:
                    d = self.names.decl_of(e.name)
                    if _is_var_decl(d):
                        self.value(e.name)  # a function pointer variable
                for a in (e.args.exprs if e.args is not None else []):
                    self.value(a)
            case c_ast.ExprList():
                for x in e.exprs:
                    self.value(x)
            case c_ast.InitList():
                for x in e.exprs:
                    self.value(x)
            case c_ast.NamedInitializer():
                self.value(e.expr)
            case c_ast.CompoundLiteral():
                self.value(e.init)
            case c_ast.Typename():
                return
            case _:
                for _, ch in e.children():
                    self.value(ch)

    def address(self, e: c_ast.Node) -> None:
        """The address of lvalue ``e`` is computed: only the addressing is read."""
        info = self._lvalue(e)
        if info is None:
            self.value(e)
            return
        var, decl, subs, through, exact, reads = info
        for r in reads:
            r()
        self.addresses.append(Ref(e, var, decl, "address", subs, through, exact, self.stmt))

    def access(self, e: c_ast.Node, mode: str, addressing: bool = True) -> None:
        """Lvalue ``e`` is read or written; its addressing is read first (once)."""
        info = self._lvalue(e)
        if info is None:  # not an lvalue we understand: its value is computed
            self.value(e)
            return
        var, decl, subs, through, exact, reads = info
        if addressing:
            for r in reads:
                r()
        if mode == "read" and self._is_array_value(e):
            self.addresses.append(Ref(e, var, decl, "address", subs, through, exact, self.stmt))
            return
        self.add(e, var, decl, mode, subs, through, exact)

    def _is_array_value(self, e: c_ast.Node) -> bool:
        """Whether ``e`` has array type (it then decays to an address, nothing is read)."""
        if isinstance(e, c_ast.ArrayRef):
            base, subs = array_ref_base(e)
            if isinstance(base, c_ast.ID):
                t = self.decl_type(base)
                for _ in subs:
                    if not isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
                        return False
                    t = self._unalias(t.type)
                return isinstance(t, c_ast.ArrayDecl)
        if isinstance(e, c_ast.StructRef) and self.types is not None:
            return isinstance(self._expr_type(e), c_ast.ArrayDecl)
        return False

    # -- lvalues -------------------------------------------------------------------------
    def _lvalue(self, e: c_ast.Node):
        """``(var, decl, subscripts, through_pointer, exact, addressing reads)`` of an lvalue.

        The addressing reads are thunks, run when the addressing is evaluated.
        Returns None for expressions that are not lvalues of a known shape.
        """
        match e:
            case c_ast.ID():
                d = self.names.decl_of(e)
                if d is not None and not _is_var_decl(d):
                    return None
                return e.name, d, None, False, True, []
            case c_ast.ArrayRef():
                return self._array_ref(e)
            case c_ast.UnaryOp(op="*"):
                return self._deref(e)
            case c_ast.StructRef():
                inner = self._lvalue(e.name) if e.type == "." else self._pointer_target(e.name)
                if inner is None:
                    return "", None, None, True, False, [lambda: self.value(e.name)]
                var, decl, subs, through, _, reads = inner
                return var, decl, subs, through, False, reads
            case c_ast.Cast():
                inner = self._lvalue(e.expr)
                if inner is None:
                    return None
                var, decl, subs, through, _, reads = inner
                return var, decl, subs, through, False, reads
        return None

    def _pointer_target(self, p: c_ast.Node):
        """The memory ``p`` points to (``p->f``, ``*p``): part of p's pointee, unknown offset."""
        base = _strip_casts(p)
        if isinstance(base, c_ast.ID) and _is_var_decl(self.names.decl_of(base)):
            t = self.decl_type(base)
            through = not isinstance(t, c_ast.ArrayDecl)
            zero = (_ZERO,)
            return base.name, self.names.decl_of(base), zero, through, base is p, [lambda: self.value(p)]
        ptr = self._pointer_var(base)
        if ptr is not None:  # *(p + i + 1), *p++, (p + k)->f: somewhere in p's pointee
            t = self.decl_type(ptr)
            return (ptr.name, self.names.decl_of(ptr), None, not isinstance(t, c_ast.ArrayDecl), False,
                    [lambda: self.value(p)])
        lv = (c_ast.ArrayRef, c_ast.StructRef, c_ast.UnaryOp)
        inner = self._lvalue(base) if isinstance(base, lv) else None
        if inner is not None:  # q->f with q = s.p[i], **m: memory behind a pointer loaded from memory
            var, decl, _, _, _, _ = inner
            return var, decl, None, True, False, [lambda: self.value(p)]
        return "", None, None, True, False, [lambda: self.value(p)]

    def _pointer_var(self, e: c_ast.Node) -> c_ast.ID | None:
        """The pointer or array variable a pointer expression moves along (``p`` in ``p++ + 2``)."""
        e = _strip_casts(e)
        match e:
            case c_ast.ID() if isinstance(self.decl_type(e), (c_ast.PtrDecl, c_ast.ArrayDecl)):
                return e
            case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--"):
                return self._pointer_var(e.expr)
            case c_ast.BinaryOp(op="+" | "-"):
                return self._pointer_var(e.left) or (self._pointer_var(e.right) if e.op == "+" else None)
            case c_ast.Assignment():
                return self._pointer_var(e.lvalue)
        return None

    def _deref(self, e: c_ast.UnaryOp):
        inner = _strip_casts(e.expr)
        # *(p + i), *(i + p), *(p - i) with p a pointer or array variable: p[i]
        if isinstance(inner, c_ast.BinaryOp) and inner.op in ("+", "-"):
            for ptr, off in ((inner.left, inner.right), (inner.right, inner.left) if inner.op == "+" else (None, None)):
                if isinstance(ptr, c_ast.ID) and isinstance(self.decl_type(ptr), (c_ast.PtrDecl, c_ast.ArrayDecl)):
                    t = self.decl_type(ptr)
                    through = isinstance(t, c_ast.PtrDecl)
                    idx = off if inner.op == "+" else c_ast.UnaryOp("-", off, off.coord)
                    reads = [lambda ptr=ptr: self.value(ptr), lambda off=off: self.value(off)]
                    exact = inner is e.expr and not isinstance(self._unalias(t.type), c_ast.ArrayDecl)
                    return ptr.name, self.names.decl_of(ptr), (idx,), through, exact, reads
        if isinstance(inner, c_ast.ID):
            t = self.decl_type(inner)
            if isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)):
                exact = inner is e.expr and not isinstance(self._unalias(t.type), c_ast.ArrayDecl)
                return (inner.name, self.names.decl_of(inner), (_ZERO,), isinstance(t, c_ast.PtrDecl),
                        exact, [lambda: self.value(inner)])
        return self._pointer_target(e.expr)

    def _array_ref(self, e: c_ast.ArrayRef):
        base, subs = array_ref_base(e)
        sub_reads = [lambda s=s: self.value(s) for s in subs]
        if isinstance(base, c_ast.ID) and _is_var_decl(self.names.decl_of(base)):
            decl = self.names.decl_of(base)
            t = self.decl_type(base)
            reads = []
            through = False
            exact = True
            if isinstance(t, c_ast.PtrDecl):
                through = True
                reads.append(lambda: self.value(base))
            elif not isinstance(t, c_ast.ArrayDecl):
                through, exact = True, False  # unknown type: assume a pointer
                reads.append(lambda: self.value(base))
            # a pointer inside the chain (double **m; m[i][j]) is loaded from memory
            kept = len(subs)
            level = t
            for k in range(len(subs)):
                reads.append(sub_reads[k])
                if not isinstance(level, (c_ast.ArrayDecl, c_ast.PtrDecl)):
                    continue
                nxt = self._unalias(level.type)
                if k + 1 < len(subs) and isinstance(nxt, c_ast.PtrDecl) and kept == len(subs):
                    prefix = _prefix(e, len(subs) - k - 1)
                    reads.append(lambda prefix=prefix, k=k, through=through, exact=exact: self.add(
                        prefix, base.name, decl, "read", tuple(subs[: k + 1]), through, exact))
                    through, exact = True, False
                    kept = k + 1
                level = nxt
            out_subs = tuple(subs) if kept == len(subs) else None
            return base.name, decl, out_subs, through, exact, reads
        # s.a[i], p->a[i], (*q)[i]: part of whatever the base designates (an array member)
        inner = self._lvalue(base) if isinstance(base, (c_ast.StructRef, c_ast.UnaryOp, c_ast.Cast)) else None
        if inner is None:
            return "", None, None, True, False, [lambda: self.value(base), *sub_reads]
        var, decl, isubs, through, _, reads = inner
        if not isinstance(self._expr_type(base), c_ast.ArrayDecl):
            # s->w[i] with a pointer member w: memory behind a pointer loaded from var's memory
            return var, decl, None, True, False, [lambda: self.value(base), *sub_reads]
        return var, decl, isubs, through, False, [*reads, *sub_reads]




def _prefix(e: c_ast.ArrayRef, drop: int) -> c_ast.Node:
    """``A[i][j][k]`` with ``drop=1`` -> the node ``A[i][j]``."""
    for _ in range(drop):
        e = e.name
    return e


def _strip_casts(e: c_ast.Node) -> c_ast.Node:
    while isinstance(e, c_ast.Cast):
        e = e.expr
    return e
