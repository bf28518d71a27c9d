"""Types of C expressions, checked as gcc checks them (for :mod:`passman.semantic`).

:class:`Expressions` gives the type of every expression (:mod:`passman.ctype`)
and rejects what gcc rejects: undeclared identifiers, operators on operands of
the wrong type, stores into non-lvalues, arrays and const objects, calls of
non-functions or with the wrong number of arguments, members that do not
exist, values of incompatible types in assignments, initializers, arguments
and returns, non-constant initializers of static objects.
"""

from __future__ import annotations

import re
from dataclasses import replace

from pycparser import c_ast

from .astutil import child_nodes
from .ctype import (
    CHAR,
    INT,
    UNKNOWN,
    UNSIGNED_LONG,
    VOID,
    CType,
    arithmetic_result,
    binary_result,
    constant_type,
    decay,
    is_arithmetic,
    is_complete_object,
    is_integer,
    is_known,
    parameter_type,
    pointer_to,
    unqualified,
)
from .declarations import Declarations, Scope, Symbol, is_offsetof

_LINE_MARKER = re.compile(r'#\s*(?:line\s+)?(\d+)\s+"((?:[^"\\]|\\.)*)"')
_FUNCTION_NAMES = ("__func__", "__FUNCTION__", "__PRETTY_FUNCTION__")
#: statement nodes (the last item of a statement expression may be one)
STATEMENTS = (
    c_ast.Compound, c_ast.Decl, c_ast.Typedef, c_ast.DeclList, c_ast.If, c_ast.While, c_ast.DoWhile,
    c_ast.For, c_ast.Switch, c_ast.Case, c_ast.Default, c_ast.Break, c_ast.Continue, c_ast.Return,
    c_ast.Label, c_ast.Goto, c_ast.EmptyStatement, c_ast.Pragma, c_ast.StaticAssert, c_ast.FuncDef,
)
_INCREMENTS = ("++", "--", "p++", "p--")


class SourceLines:
    """Lines of preprocessed text by the position pycparser gives them (``#line`` honoured)."""

    def __init__(self, text: str):
        self.text = text
        self._lines: dict[tuple[str, int], str] | None = None

    def line(self, file: str, number: int) -> str | None:
        """Line ``number`` of ``file`` as the parser saw it."""
        if self._lines is None:
            self._lines = {}
            file_now, n = "", 1
            for ln in self.text.splitlines():
                m = _LINE_MARKER.match(ln)
                if m:
                    file_now, n = m.group(2), int(m.group(1))
                    continue
                self._lines.setdefault((file_now, n), ln)
                n += 1
        return self._lines.get((file, number))


class Expressions(Declarations):
    """Expression types and checks; statements (``block``, ``statement``) come from a subclass."""

    def __init__(self, preprocessed: str | None = None) -> None:
        super().__init__()
        self.source = SourceLines(preprocessed) if preprocessed is not None else None
        #: whether the walk is inside a function body
        self.in_function = False

    def block(self, items: list[c_ast.Node]) -> None:  # pragma: no cover - defined by the checker
        """Check the items of a block in the current scope."""
        raise NotImplementedError

    def statement(self, s: c_ast.Node | None) -> None:  # pragma: no cover - defined by the checker
        """Check one statement."""
        raise NotImplementedError

    # -- initializers -------------------------------------------------------------
    def initializer(self, t: CType, init: c_ast.Node, static: bool) -> None:
        """Check an initializer of an object of type ``t``."""
        self.init_value(t, init)
        if static and self.not_constant(init):
            self.fail(init, "initializer element is not constant")

    def init_value(self, t: CType, init: c_ast.Node) -> None:
        """``init`` (an expression or a braced list) initializes an object of type ``t``."""
        if isinstance(init, c_ast.InitList):
            self._init_list(t, init)
            return
        if t.kind == "array":
            if isinstance(init, c_ast.Constant) and init.type == "string":
                if t.of is not None and t.of.kind in ("float", "pointer", "record"):
                    self.fail(init, "invalid initializer")
                return
            it = self.expr(init)
            if is_known(it) and not isinstance(init, c_ast.CompoundLiteral):
                self.fail(init, "invalid initializer")
            return
        it = self.value(init)
        if t.kind == "record" and is_known(it) and it.kind not in ("record", "void"):
            self.fail(init, "invalid initializer")
        self.assignable(t, it, init, f"incompatible types when initializing type '{unqualified(t).spelled}' "
                                     f"using type '{it.spelled}'")

    def _init_list(self, t: CType, lst: c_ast.InitList) -> None:
        targets: list[CType] | None = None
        if t.kind == "array" and t.of is not None:
            targets = [t.of] * len(lst.exprs)
        elif t.kind == "record" and t.record is not None and t.record.members is not None \
                and not t.record.flat:
            targets = list(t.record.members.values())[: 1 if t.record.kind == "union" else None]
        elif t.kind in ("int", "float", "pointer"):
            targets = [t]
        for i, item in enumerate(lst.exprs):
            if isinstance(item, c_ast.NamedInitializer):
                targets = None  # designators: positions are no longer followed
                for d in item.name:
                    if not isinstance(d, c_ast.ID):
                        self.expr(d)
                self.init_value(UNKNOWN, item.expr)
                continue
            target = targets[i] if targets is not None and i < len(targets) else UNKNOWN
            if isinstance(item, c_ast.InitList) or target.kind not in ("array", "record"):
                self.init_value(target, item)
                continue
            it = self.value(item)  # an aggregate from an expression, or braces elided
            if not (target.kind == "record" and it.kind == "record" and target.record is it.record):
                targets = None

    def not_constant(self, e: c_ast.Node, address: bool = False) -> bool:
        """Whether an initializer surely is not a constant (it reads an object or calls)."""
        match e:
            case c_ast.InitList():
                return any(self.not_constant(x) for x in e.exprs)
            case c_ast.NamedInitializer():
                return self.not_constant(e.expr)
            case c_ast.ID():
                sym = self.lookup(e.name)
                if sym is None or sym.kind != "object":
                    return False
                if address or sym.type.kind in ("array", "function"):
                    return sym.automatic or sym.param
                return not (sym.type.const and sym.type.kind != "record")
            case c_ast.UnaryOp(op="sizeof" | "_Alignof"):
                return False
            case c_ast.UnaryOp(op="&"):
                return self.not_constant(e.expr, address=True)
            case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--") | c_ast.Assignment():
                return True
            case c_ast.UnaryOp(op="*") | c_ast.ArrayRef() | c_ast.StructRef():
                return self._reads_memory(e, address)
            case c_ast.FuncCall():
                if is_offsetof(e):
                    return False
                builtin = isinstance(e.name, c_ast.ID) and e.name.name.startswith("__builtin")
                return not builtin or any(self.not_constant(a) for a in _arguments(e))
            case c_ast.CompoundLiteral() | c_ast.Typename():
                return False
        return any(self.not_constant(c) for c in child_nodes(e))

    def _reads_memory(self, e: c_ast.Node, address: bool) -> bool:
        """``*p``, ``a[i]``, ``s.f``, ``p->f`` in an initializer: an address or a read."""
        if not address and self.expr(e).kind in ("array", "function"):
            address = True  # decays to an address
        if isinstance(e, c_ast.UnaryOp):
            return self.not_constant(e.expr) if address else self._mentions_object(e.expr)
        if isinstance(e, c_ast.ArrayRef):
            if address:
                return self.not_constant(e.name, address=True) or self.not_constant(e.subscript)
            return self._mentions_object(e.name) or self.not_constant(e.subscript)
        if address:
            return self.not_constant(e.name, address=e.type == ".")
        return self._mentions_object(e.name)

    def _mentions_object(self, e: c_ast.Node) -> bool:
        if isinstance(e, c_ast.ID):
            sym = self.lookup(e.name)
            return sym is not None and sym.kind == "object"
        if isinstance(e, c_ast.UnaryOp) and e.op in ("sizeof", "_Alignof"):
            return False
        if isinstance(e, c_ast.StructRef):
            return self._mentions_object(e.name)
        return any(self._mentions_object(c) for c in child_nodes(e))

    def scalar(self, e: c_ast.Node, t: CType) -> None:
        """Reject a value of type ``t`` where C wants a scalar."""
        if t.kind == "void":
            self.fail(e, "void value not ignored as it ought to be")
        if t.kind == "record":
            kind = t.record.kind if t.record else "struct"
            self.fail(e, f"used {kind} type value where scalar is required")

    def assignable(self, dst: CType, src: CType, node: c_ast.Node, message: str) -> None:
        """Reject storing a value of type ``src`` into an object of type ``dst``."""
        if src.kind == "void":
            self.fail(node, "void value not ignored as it ought to be")
        if not is_known(dst) or not is_known(src):
            return
        if dst.kind in ("int", "float"):  # pointer to integer: a warning, but not to an enum
            ok = is_arithmetic(src) or src.kind == "pointer" and dst.kind == "int" and not dst.enum
        elif dst.kind == "pointer":
            ok = src.kind == "pointer" or src.kind == "int" and not src.enum
        elif dst.kind == "record":
            ok = src.kind == "record" and (src.record is dst.record or None in (src.record, dst.record))
        else:
            ok = True
        if not ok:
            self.fail(node, message)

    # -- expressions --------------------------------------------------------------
    def value(self, e: c_ast.Node) -> CType:
        """The type of ``e`` used as a value (arrays and functions decay to pointers)."""
        return decay(self.expr(e))

    def expr(self, e: c_ast.Node) -> CType:
        """Check expression ``e`` and return its type (UNKNOWN where the model cannot tell)."""
        if e.coord is not None:
            self.last_coord = e.coord
        check = getattr(self, f"_{type(e).__name__}", None)
        if check is None:
            for c in child_nodes(e):
                self.expr(c)
            return UNKNOWN
        return check(e)

    def _ID(self, e: c_ast.ID) -> CType:
        sym = self.lookup(e.name)
        if sym is None:
            if e.name in _FUNCTION_NAMES and self.in_function:
                return CType("array", of=CHAR)
            where = "(first use in this function)" if self.in_function else "here (not in a function)"
            self.fail(e, f"'{e.name}' undeclared {where}")
        return sym.type if sym.kind != "typedef" else UNKNOWN

    def _Constant(self, e: c_ast.Constant) -> CType:
        return constant_type(e)

    def _Compound(self, e: c_ast.Compound) -> CType:
        """A GNU statement expression ``({ ...; value; })``."""
        items = e.block_items or []
        self.scopes.append(Scope("block"))
        try:
            self.block(items[:-1])
            if not items:
                return VOID
            if isinstance(items[-1], STATEMENTS):
                self.statement(items[-1])
                return UNKNOWN
            return self.value(items[-1])
        finally:
            self.scopes.pop()

    def _Typename(self, e: c_ast.Typename) -> CType:
        self.declared_type(e, None)
        return UNKNOWN

    def _InitList(self, e: c_ast.InitList) -> CType:
        self.init_value(UNKNOWN, e)
        return UNKNOWN

    def _CompoundLiteral(self, e: c_ast.CompoundLiteral) -> CType:
        t = self.declared_type(e.type, None)
        self.init_value(t, e.init)
        return t

    def _ExprList(self, e: c_ast.ExprList) -> CType:
        t = UNKNOWN
        for x in e.exprs:
            t = self.value(x)
        return t

    def _ArrayRef(self, e: c_ast.ArrayRef) -> CType:
        a, i = self.value(e.name), self.value(e.subscript)
        if a.kind == "pointer" or i.kind == "pointer":
            ptr, index = (a, i) if a.kind == "pointer" else (i, a)
            if index.kind == "pointer" or is_known(index) and not is_integer(index):
                self.fail(e, "array subscript is not an integer")
            if ptr.of is not None and ptr.of.kind == "function":
                self.fail(e, "subscripted value is pointer to function")
            return ptr.of or UNKNOWN
        if is_known(a) and is_known(i):
            self.fail(e, "subscripted value is neither array nor pointer nor vector")
        return UNKNOWN

    def _StructRef(self, e: c_ast.StructRef) -> CType:
        t = self.expr(e.name)
        member = e.field.name
        if e.type == "->":
            p = decay(t)
            if not is_known(p) or p.kind == "pointer" and not is_known(p.of or UNKNOWN):
                return UNKNOWN
            if p.kind != "pointer" or p.of is None or p.of.kind != "record":
                self.fail(e, f"invalid type argument of '->' (have '{p.spelled}')")
            t = p.of
        elif t.kind != "record":
            if t.kind == "pointer" and t.of is not None and t.of.kind == "record":
                self.fail(e, f"'{_text(e.name)}' is a pointer; did you mean to use '->'?")
            if is_known(t):
                self.fail(e, f"request for member '{member}' in something not a structure or union")
            return UNKNOWN
        rec = t.record
        if rec is None:
            return UNKNOWN
        if rec.members is None:
            self.fail(e, f"invalid use of undefined type '{rec.spelled}'")
        if member not in rec.members:
            self.fail(e.field, f"'{rec.spelled}' has no member named '{member}'")
        m = rec.members[member]
        return replace(m, const=True) if t.const and not m.const else m

    def _FuncCall(self, e: c_ast.FuncCall) -> CType:
        args = _arguments(e)
        if is_offsetof(e):
            self.declared_type(args[0], None)
            return UNSIGNED_LONG
        name = e.name.name if isinstance(e.name, c_ast.ID) else None
        if name is not None and self.lookup(name) is None and not self._parenthesized(e.name):
            if name.startswith("__builtin"):
                for a in args:
                    self.expr(a)
                return UNKNOWN
            self.implicit.setdefault(name, e)
            implicit = Symbol("function", CType("function", of=INT), ("extern",), implicit=True)
            self.scope.names[name] = implicit
        ft = self.expr(e.name)
        f = ft if ft.kind == "function" else ft.of if ft.kind == "pointer" else None
        types = [self.value(a) for a in args]
        for a, t in zip(args, types):
            if t.kind == "void":
                self.fail(a, "invalid use of void expression")
        if f is None or f.kind != "function":
            if is_known(ft) and (f is None or is_known(f)):
                called = f"called object '{name}'" if name else "called object"
                self.fail(e, f"{called} is not a function or function pointer")
            return UNKNOWN
        if f.params is not None:
            label = name or _text(e.name)
            if len(args) > len(f.params) and not f.variadic:
                self.fail(e, f"too many arguments to function '{label}'")
            if len(args) < len(f.params):
                self.fail(e, f"too few arguments to function '{label}'")
            for k, (p, a, t) in enumerate(zip(f.params, args, types)):
                self.assignable(parameter_type(p), t, a, f"incompatible type for argument {k + 1} of '{label}'")
        return unqualified(f.of) if f.of is not None else UNKNOWN

    def _UnaryOp(self, e: c_ast.UnaryOp) -> CType:
        op = e.op
        if op in ("sizeof", "_Alignof"):
            t = self.declared_type(e.expr, None) if isinstance(e.expr, c_ast.Typename) else self.expr(e.expr)
            if t.kind != "void" and is_complete_object(t) is False:
                self.fail(e, f"invalid application of '{op}' to incomplete type '{t.spelled}'")
            return UNSIGNED_LONG
        if op == "&":
            t = self.expr(e.expr)
            if t.kind != "function" and self.lvalue(e.expr) is False:
                self.fail(e, "lvalue required as unary '&' operand")
            if isinstance(e.expr, c_ast.ID):
                sym = self.lookup(e.expr.name)
                if sym is not None and "register" in sym.storage:
                    self.fail(e, f"address of register variable '{e.expr.name}' requested")
            return pointer_to(t)
        if op in _INCREMENTS:
            return self._increment(e)
        t = self.value(e.expr)
        if op == "*":
            if t.kind == "pointer":
                return t.of or UNKNOWN
            if is_known(t):
                self.fail(e, f"invalid type argument of unary '*' (have '{t.spelled}')")
            return UNKNOWN
        if t.kind == "void":
            self.fail(e, "void value not ignored as it ought to be")
        if op == "!":
            if t.kind == "record":
                self.fail(e, "wrong type argument to unary exclamation mark")
            return INT
        if not is_known(t):
            return UNKNOWN
        if op in ("-", "+") and not is_arithmetic(t):
            self.fail(e, f"wrong type argument to unary {'minus' if op == '-' else 'plus'}")
        if op == "~" and not (is_integer(t) or "_Complex" in t.name):
            self.fail(e, "wrong type argument to bit-complement")
        return arithmetic_result(t, t) if is_arithmetic(t) else UNKNOWN

    def _increment(self, e: c_ast.UnaryOp) -> CType:
        what = "increment" if "++" in e.op else "decrement"
        t = self.expr(e.expr)
        if self.lvalue(e.expr) is False or t.kind in ("array", "function"):
            self.fail(e, f"lvalue required as {what} operand")
        if t.kind in ("record", "void"):
            self.fail(e, f"wrong type argument to {what}")
        if t.const:
            self.fail(e, f"{what} of {self._read_only(e.expr)}")
        return unqualified(t)

    def _BinaryOp(self, e: c_ast.BinaryOp) -> CType:
        a, b = self.value(e.left), self.value(e.right)
        if e.op in ("&&", "||"):
            self.scalar(e.left, a)
            self.scalar(e.right, b)
            return INT
        if a.kind == "void" or b.kind == "void":
            self.fail(e, "void value not ignored as it ought to be")
        if not is_known(a) or not is_known(b):
            return UNKNOWN
        r = binary_result(e.op, a, b)
        if r is None:
            self.fail(e, f"invalid operands to binary {e.op} (have '{a.spelled}' and '{b.spelled}')")
        return r

    def _Assignment(self, e: c_ast.Assignment) -> CType:
        lt = self.expr(e.lvalue)
        rt = self.value(e.rvalue)
        if lt.kind == "array":
            self.fail(e, "assignment to expression with array type")
        if self.lvalue(e.lvalue) is False or lt.kind == "function":
            self.fail(e, "lvalue required as left operand of assignment")
        if lt.const:
            self.fail(e, f"assignment of {self._read_only(e.lvalue)}")
        if e.op == "=":
            self.assignable(lt, rt, e.rvalue, f"incompatible types when assigning to type "
                                              f"'{unqualified(lt).spelled}' from type '{rt.spelled}'")
        else:
            if rt.kind == "void":
                self.fail(e, "void value not ignored as it ought to be")
            op = e.op[:-1]
            if is_known(lt) and is_known(rt) and binary_result(op, decay(lt), rt) is None:
                self.fail(e, f"invalid operands to binary {op} (have '{decay(lt).spelled}' and '{rt.spelled}')")
        return unqualified(lt)

    def _TernaryOp(self, e: c_ast.TernaryOp) -> CType:
        self.condition(e.cond)
        a, b = self.value(e.iftrue), self.value(e.iffalse)
        if not is_known(a) or not is_known(b):
            return UNKNOWN
        if is_arithmetic(a) and is_arithmetic(b):
            return arithmetic_result(a, b)
        if a.kind == "void" or b.kind == "void":
            return VOID
        if a.kind == "pointer" and b.kind in ("pointer", "int"):
            return a
        if b.kind == "pointer" and a.kind == "int":
            return b
        if a.kind == b.kind == "record" and a.record is b.record:
            return a
        self.fail(e, "type mismatch in conditional expression")
        return UNKNOWN

    def _Cast(self, e: c_ast.Cast) -> CType:
        to = unqualified(self.declared_type(e.to_type, None))
        src = self.value(e.expr)
        if to.kind == "void" or not is_known(to) or not is_known(src):
            return to
        if src.kind == "void":
            self.fail(e, "void value not ignored as it ought to be")
        problem = {
            "record": None if src.kind == "record" and src.record is to.record else "conversion to non-scalar type requested",
            "array": "cast specifies array type",
            "function": "cast specifies function type",
            "pointer": "cannot convert to a pointer type" if src.kind in ("float", "record") else None,
            "float": "pointer value used where a floating-point was expected" if src.kind == "pointer"
            else "aggregate value used where a floating-point was expected" if src.kind == "record" else None,
            "int": "aggregate value used where an integer was expected" if src.kind == "record" else None,
        }.get(to.kind)
        if problem:
            self.fail(e, problem)
        return to

    def _parenthesized(self, ident: c_ast.ID) -> bool:
        """Whether an identifier was written in parentheses (``(f)(x)`` declares nothing)."""
        coord = ident.coord
        line = self.source.line(coord.file, coord.line) if self.source and coord else None
        start = (coord.column or 0) - 1 if coord else -1
        if line is None or start < 0 or line[start : start + len(ident.name)] != ident.name:
            return False
        return line[:start].rstrip().endswith("(") and line[start + len(ident.name) :].lstrip().startswith(")")

    # -- lvalues --------------------------------------------------------------------
    def lvalue(self, e: c_ast.Node) -> bool | None:
        """Whether ``e`` designates an object (None: the model cannot tell)."""
        match e:
            case c_ast.ID():
                sym = self.lookup(e.name)
                return None if sym is None else sym.kind == "object"
            case c_ast.UnaryOp(op="*") | c_ast.ArrayRef() | c_ast.CompoundLiteral():
                return True
            case c_ast.StructRef():
                return True if e.type == "->" else self.lvalue(e.name)
            case c_ast.Constant():
                return e.type == "string"
            case (c_ast.Assignment() | c_ast.BinaryOp() | c_ast.Cast() | c_ast.TernaryOp()
                  | c_ast.FuncCall() | c_ast.ExprList() | c_ast.UnaryOp()):
                return False
        return None

    def _read_only(self, e: c_ast.Node) -> str:
        if isinstance(e, c_ast.ID):
            sym = self.lookup(e.name)
            return f"read-only {'parameter' if sym is not None and sym.param else 'variable'} '{e.name}'"
        if isinstance(e, c_ast.StructRef):
            return f"member '{e.field.name}' in read-only object"
        return "read-only location"


def _arguments(call: c_ast.FuncCall) -> list[c_ast.Node]:
    args = call.args
    if args is None:
        return []
    return list(args.exprs) if isinstance(args, c_ast.ExprList) else [args]


def _text(e: c_ast.Node) -> str:
    """A short spelling of a simple expression, for messages."""
    match e:
        case c_ast.ID():
            return e.name
        case c_ast.UnaryOp(op="*"):
            return f"*{_text(e.expr)}"
        case c_ast.StructRef():
            return f"{_text(e.name)}{e.type}{e.field.name}"
        case c_ast.ArrayRef():
            return f"{_text(e.name)}[...]"
    return "expression"
