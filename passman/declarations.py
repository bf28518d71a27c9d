"""Scopes and declarations of a C file, as the semantic check walks it.

:class:`Declarations` keeps the stack of scopes (file, function, block,
prototype), turns declarators into :class:`~passman.ctype.CType` values,
defines struct, union and enum tags, and applies C's rules on declaring a
name twice (``int i; int i;`` in one block, ``int f(int); double f(int);``,
``static`` after a non-static declaration). :mod:`passman.expressions` and
:mod:`passman.semantic` build the expression and statement checks on top.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from pycparser import c_ast

from .astutil import child_nodes
from .ctype import (
    INT,
    UNKNOWN,
    CType,
    Record,
    SpecifierError,
    arithmetic_type,
    compatible,
    constant_value,
    is_complete_object,
    is_integer,
    is_known,
    parameter_type,
    storage_problem,
)
from .errors import InvalidInput, located


def is_offsetof(call: c_ast.FuncCall) -> bool:
    """Whether a call node is pycparser's ``offsetof(type, member)``."""
    args = call.args.exprs if isinstance(call.args, c_ast.ExprList) else []
    return (isinstance(call.name, c_ast.ID) and call.name.name == "offsetof"
            and bool(args) and isinstance(args[0], c_ast.Typename))


@dataclass
class Symbol:
    """What an ordinary identifier names in a scope."""

    #: object, function, typedef or enumerator
    kind: str
    type: CType
    storage: tuple[str, ...] = ()
    #: a function with a body, an object with an initializer
    defined: bool = False
    #: the value of an enumeration constant
    value: int | None = None
    param: bool = False
    #: a K&R parameter not declared yet (``int`` until its declaration comes)
    placeholder: bool = False
    #: declared by a call to an undeclared function (gcc's implicit declaration)
    implicit: bool = False
    #: an object of automatic storage (its address is not a constant)
    automatic: bool = False


@dataclass
class Scope:
    """One scope: ordinary identifiers and tags declared in it."""

    kind: str
    names: dict[str, Symbol] = field(default_factory=dict)
    tags: dict[str, Record] = field(default_factory=dict)


class Declarations:
    """Scopes and declared types; ``expr`` (type-checking an expression) comes from a subclass."""

    def __init__(self) -> None:
        self.scopes: list[Scope] = [Scope("file")]
        self.records: dict[int, Record] = {}
        self.enums: set[int] = set()
        #: first call of each function called without a declaration
        self.implicit: dict[str, c_ast.Node] = {}
        self.last_coord: Any = None

    # -- errors ---------------------------------------------------------------
    def fail(self, node: c_ast.Node | None, message: str) -> None:
        """Reject the program: ``file:line:col: error: message`` at ``node``."""
        coord = getattr(node, "coord", None) or self.last_coord
        raise InvalidInput(located(coord, message))

    def expr(self, e: c_ast.Node) -> CType:  # pragma: no cover - defined by the checker
        """The type of expression ``e``, after checking it."""
        raise NotImplementedError

    # -- scopes ---------------------------------------------------------------
    @property
    def scope(self) -> Scope:
        """The innermost scope."""
        return self.scopes[-1]

    @property
    def at_file_scope(self) -> bool:
        """Whether declarations now go to file scope."""
        return self.scope.kind == "file"

    def lookup(self, name: str) -> Symbol | None:
        """The symbol ``name`` denotes here, if declared."""
        for s in reversed(self.scopes):
            sym = s.names.get(name)
            if sym is not None:
                return sym
        return None

    def enumerator_value(self, name: str) -> int | None:
        """The value of enumeration constant ``name`` (None if it is not one)."""
        sym = self.lookup(name)
        return sym.value if sym is not None and sym.kind == "enumerator" else None

    def value_of(self, e: c_ast.Node | None) -> int | None:
        """The value of an integer constant expression, when the model folds it."""
        return constant_value(e, self.enumerator_value)

    # -- declaring names ------------------------------------------------------
    def declare(self, name: str, new: Symbol, node: c_ast.Node) -> Symbol:
        """Enter ``name`` in the current scope, applying the rules on redeclaration."""
        scope = self.scope
        old = scope.names.get(name)
        if old is None and scope.kind == "file" and name in self.implicit:
            self._after_implicit(name, new, node)
        if old is not None and old.implicit:
            self._after_implicit(name, new, node)
        if old is None or old.implicit:
            scope.names[name] = new
            return new
        if old.kind != new.kind:
            if new.kind == "enumerator" and old.kind == "enumerator":
                self.fail(node, f"redeclaration of enumerator '{name}'")
            self.fail(node, f"'{name}' redeclared as different kind of symbol")
        if new.kind == "enumerator":
            self.fail(node, f"redeclaration of enumerator '{name}'")
        if new.kind == "typedef":
            if compatible(old.type, new.type) is False:
                self.fail(node, f"conflicting types for '{name}'")
            return old
        if scope.kind == "prototype":
            self.fail(node, f"redefinition of parameter '{name}'")
        if scope.kind == "file" or new.kind == "function" or (
            "extern" in old.storage and "extern" in new.storage
        ):
            return self._merge(name, old, new, node, file_scope=scope.kind == "file")
        if old.param:
            self.fail(node, f"'{name}' redeclared as different kind of symbol")
        if "extern" in new.storage:
            self.fail(node, f"extern declaration of '{name}' follows declaration with no linkage")
        if "extern" in old.storage:
            self.fail(node, f"declaration of '{name}' with no linkage follows extern declaration")
        if old.defined and new.defined:
            self.fail(node, f"redefinition of '{name}'")
        self.fail(node, f"redeclaration of '{name}' with no linkage")
        raise AssertionError("unreachable")

    def _merge(self, name: str, old: Symbol, new: Symbol, node: c_ast.Node, file_scope: bool) -> Symbol:
        """A second declaration of a name with linkage: it must agree with the first."""
        if old.defined and new.defined:
            self.fail(node, f"redefinition of '{name}'")
        if compatible(old.type, new.type) is False:
            self.fail(node, f"conflicting types for '{name}'")
        if file_scope and not old.implicit:
            if "static" in new.storage and "static" not in old.storage:
                self.fail(node, f"static declaration of '{name}' follows non-static declaration")
            if new.kind == "object" and "static" in old.storage and not new.storage:
                self.fail(node, f"non-static declaration of '{name}' follows static declaration")
        better = new.type
        if new.type.kind == "function" and new.type.params is None and old.type.params is not None:
            better = old.type
        if new.type.kind == "array" and new.type.size is None and old.type.kind == "array":
            better = old.type
        merged = Symbol(new.kind, better, old.storage if "static" in old.storage else new.storage,
                        defined=old.defined or new.defined)
        self.scope.names[name] = merged
        return merged

    def _after_implicit(self, name: str, new: Symbol, node: c_ast.Node) -> None:
        """A file-scope declaration of a function gcc declared implicitly (``int f()``) earlier.

        Only definitions are held against the implicit declaration: gcc knows
        the real prototypes of library functions (its built-ins) and accepts
        those declared after an implicit use.
        """
        if new.kind != "function":
            self.fail(node, f"'{name}' redeclared as different kind of symbol")
        if not new.defined:
            return
        if "static" in new.storage:
            self.fail(node, f"static declaration of '{name}' follows non-static declaration")
        if compatible(CType("function", of=INT), new.type) is False:
            self.fail(node, f"conflicting types for '{name}'")

    # -- types of declarators -------------------------------------------------
    def declared_type(self, t: c_ast.Node | None, name: str | None, params: Scope | None = None) -> CType:
        """The type a declarator gives ``name``.

        ``params``: the scope where the parameters of the outermost function
        declarator go (a function definition's scope); other function
        declarators get a prototype scope of their own.
        """
        match t:
            case c_ast.TypeDecl():
                base = self.specified_type(t.type)
                return replace(base, const=True) if "const" in (t.quals or []) else base
            case c_ast.PtrDecl():
                target = self.declared_type(t.type, name)
                return CType("pointer", of=target, const="const" in (t.quals or []))
            case c_ast.ArrayDecl():
                return self._array_type(t, name)
            case c_ast.FuncDecl():
                return self._function_type(t, name, params)
            case c_ast.Typename() | c_ast.Decl() | c_ast.Typedef():
                return self.declared_type(t.type, name, params)
            case c_ast.IdentifierType() | c_ast.Struct() | c_ast.Union() | c_ast.Enum():
                return self.specified_type(t)
        return UNKNOWN

    def specified_type(self, spec: c_ast.Node | None) -> CType:
        """The type named by type specifiers (``unsigned long``, a typedef name, a tag)."""
        match spec:
            case c_ast.IdentifierType():
                try:
                    t = arithmetic_type(list(spec.names))
                except SpecifierError as err:
                    self.fail(spec, str(err))
                    raise AssertionError("unreachable") from err
                if t is not None:
                    return t
                sym = self.lookup(spec.names[0])
                return sym.type if sym is not None and sym.kind == "typedef" else UNKNOWN
            case c_ast.Struct() | c_ast.Union():
                return CType("record", record=self.record(spec))
            case c_ast.Enum():
                self.enum(spec)
                if spec.values is None and spec.name and self.lookup_tag(spec.name) is None:
                    return CType("record", record=Record("enum", spec.name))  # incomplete
                return CType("int", "int", enum=True)
        return UNKNOWN

    def _array_type(self, t: c_ast.ArrayDecl, name: str | None) -> CType:
        elem = self.declared_type(t.type, name)
        what = f"'{name}'" if name else "type name"
        if elem.kind == "function":
            self.fail(t, f"declaration of {what} as array of functions")
        if elem.kind == "void":
            self.fail(t, f"declaration of {what} as array of voids")
        if elem.kind in ("array", "record") and is_complete_object(elem) is False:
            self.fail(t, f"array type has incomplete element type '{elem.spelled}'")
        size, variable = None, elem.variable
        dim = t.dim
        if dim is not None and not (isinstance(dim, c_ast.ID) and dim.name == "*"):
            dt = self.expr(dim)
            label = f"array '{name}'" if name else "unnamed array"
            if is_known(dt) and not is_integer(dt):
                self.fail(dim, f"size of {label} has non-integer type")
            size = self.value_of(dim)
            if size is not None and size < 0:
                self.fail(dim, f"size of {label} is negative")
            variable = variable or self.not_integer_constant(dim)
        return CType("array", of=elem, size=size, variable=variable, unsized=dim is None)

    def _function_type(self, t: c_ast.FuncDecl, name: str | None, params: Scope | None) -> CType:
        ret = self.declared_type(t.type, name)
        if ret.kind == "array":
            self.fail(t, f"'{name or 'type name'}' declared as function returning an array")
        if ret.kind == "function":
            self.fail(t, f"'{name or 'type name'}' declared as function returning a function")
        if t.args is None:
            return CType("function", of=ret)
        scope = params or Scope("prototype")
        self.scopes.append(scope)
        try:
            types, variadic, kr = self._parameters(t.args.params)
        finally:
            self.scopes.pop()
        return CType("function", of=ret, params=None if kr else tuple(types), variadic=variadic)

    def _parameters(self, params: list[c_ast.Node]) -> tuple[list[CType], bool, bool]:
        """Declare parameters in the current (prototype or function) scope; their types."""
        types: list[CType] = []
        variadic = kr = False
        for i, p in enumerate(params):
            if isinstance(p, c_ast.EllipsisParam):
                variadic = True
            elif isinstance(p, c_ast.ID):  # K&R identifier list: types come later
                kr = True
                self.declare(p.name, Symbol("object", INT, param=True, placeholder=True), p)
            elif isinstance(p, (c_ast.Decl, c_ast.Typename)):
                pt = self.declared_type(p.type, p.name)
                problem = storage_problem(list(getattr(p, "storage", None) or []))
                if problem:
                    self.fail(p, problem)
                if pt.kind == "void" and not pt.const:
                    if len(params) == 1 and not p.name:
                        return [], False, False
                    if p.name:
                        self.fail(p, f"parameter {i + 1} ('{p.name}') has incomplete type")
                    self.fail(p, "'void' must be the only parameter")
                types.append(pt)
                if p.name:
                    own = parameter_type(pt) if pt.kind in ("array", "function") else pt
                    self.declare(p.name, Symbol("object", own, param=True), p)
        return types, variadic, kr

    # -- tags ------------------------------------------------------------------
    def lookup_tag(self, name: str) -> Record | None:
        """The struct, union or enum tag ``name`` denotes here."""
        for s in reversed(self.scopes):
            if name in s.tags:
                return s.tags[name]
        return None

    def record(self, node: c_ast.Struct | c_ast.Union) -> Record:
        """The struct or union a specifier names, defining it when it has a body."""
        known = self.records.get(id(node))
        if known is not None:
            return known
        kind = "struct" if isinstance(node, c_ast.Struct) else "union"
        rec: Record | None = None
        if node.name:
            here = self.scope.tags.get(node.name)
            found = here if node.decls is not None else self.lookup_tag(node.name)
            if found is not None and found.kind != kind:
                self.fail(node, f"'{node.name}' defined as wrong kind of tag")
            if node.decls is not None and found is not None and found.members is not None:
                self.fail(node, f"redefinition of '{kind} {node.name}'")
            rec = found
        if rec is None:
            rec = Record(kind, node.name)
            if node.name:
                self.scope.tags[node.name] = rec
        self.records[id(node)] = rec
        if node.decls is not None:
            rec.members, rec.flat = self._members(node.decls)
        return rec

    def forward_declare(self, node: c_ast.Struct | c_ast.Union) -> None:
        """``struct s;``: a new incomplete tag in the current scope (unless declared here)."""
        kind = "struct" if isinstance(node, c_ast.Struct) else "union"
        here = self.scope.tags.get(node.name or "")
        if here is None:
            rec = Record(kind, node.name)
            self.scope.tags[node.name or ""] = rec
            self.records[id(node)] = rec
        else:
            self.record(node)

    def _members(self, decls: list[c_ast.Node]) -> tuple[dict[str, CType], bool]:
        """The members of a struct or union body; whether anonymous members were merged in."""
        members: dict[str, CType] = {}
        flat = False
        for d in decls:
            if not isinstance(d, c_ast.Decl):
                continue
            t = self.declared_type(d.type, d.name)
            if d.bitsize is not None:
                bt = self.expr(d.bitsize)
                if is_known(bt) and not is_integer(bt):
                    self.fail(d.bitsize, f"bit-field '{d.name}' width not an integer constant")
            if d.name is None:
                if t.kind == "record" and t.record is not None:
                    flat = True
                    for k, v in (t.record.members or {}).items():
                        if k in members:
                            self.fail(d, f"duplicate member '{k}'")
                        members[k] = v
                continue
            if d.name in members:
                self.fail(d, f"duplicate member '{d.name}'")
            if t.kind == "function":
                self.fail(d, f"field '{d.name}' declared as a function")
            if t.kind == "void":
                self.fail(d, f"variable or field '{d.name}' declared void")
            if t.kind == "record" and is_complete_object(t) is False:
                self.fail(d, f"field '{d.name}' has incomplete type")
            members[d.name] = t
        return members, flat

    def enum(self, node: c_ast.Enum) -> None:
        """Declare the constants of an enum definition (once per definition)."""
        if node.values is None or id(node) in self.enums:
            return
        self.enums.add(id(node))
        if node.name:
            if node.name in self.scope.tags and self.scope.tags[node.name].members is not None:
                self.fail(node, f"redefinition of 'enum {node.name}'")
            self.scope.tags[node.name] = Record("enum", node.name, {})
        value = 0
        for e in node.values.enumerators:
            if e.value is not None:
                t = self.expr(e.value)
                if (is_known(t) and not is_integer(t)) or self.not_integer_constant(e.value):
                    self.fail(e.value, f"enumerator value for '{e.name}' is not an integer constant")
                v = self.value_of(e.value)
                value = v if v is not None else value
            self.declare(e.name, Symbol("enumerator", INT, value=value), e)
            value += 1

    # -- constant expressions --------------------------------------------------
    def not_integer_constant(self, e: c_ast.Node) -> bool:
        """Whether ``e`` is surely not an integer constant expression (it reads an object)."""
        if isinstance(e, c_ast.UnaryOp) and e.op in ("sizeof", "_Alignof"):
            return False
        if isinstance(e, c_ast.ID):
            sym = self.lookup(e.name)
            return sym is not None and sym.kind in ("object", "function") and not sym.implicit
        if isinstance(e, c_ast.StructRef):
            return self.not_integer_constant(e.name)
        if isinstance(e, c_ast.FuncCall):
            if is_offsetof(e):
                return False
            return not (isinstance(e.name, c_ast.ID) and e.name.name.startswith("__builtin"))
        if isinstance(e, c_ast.Assignment) or isinstance(e, c_ast.UnaryOp) and e.op in (
                "++", "--", "p++", "p--"):
            return True
        if isinstance(e, (c_ast.Typename, c_ast.CompoundLiteral)):
            return False
        return any(self.not_integer_constant(c) for c in child_nodes(e))
