"""Outlining: move a labelled statement into a new function and call it instead."""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from passman import InvalidInput, Module, PassFailed, transformation
from passman.astutil import copy_node, parent_map, replace_child, transform, walk

from ..cfacts.control import (
    describe_jump,
    detach_pragmas,
    escaping_jumps,
    only_loop_index,
    pragma_names,
    pragmas_before,
)
from ..cfacts.names import NameTable, file_scope, resolve_names, where
from ..cfacts.sideeffects import variables, writes
from ..cfacts.types import TypeEnv, typedefs

C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if "
    "inline int long register restrict return short signed sizeof static struct switch typedef "
    "union unsigned void volatile while _Bool _Complex _Imaginary _Alignas _Alignof _Atomic "
    "_Generic _Noreturn _Static_assert _Thread_local".split()
)


@dataclass
class Parameter:
    """A variable of the enclosing function that the outlined statement uses."""

    decl: c_ast.Decl
    #: "value" (declared type; arrays decay as in any call), "pointer" (``T *x``, uses
    #: become ``*x``), "local" (dead around the statement: declared in the new function)
    #: or "declaration" (a block-scope ``extern`` or function declaration, copied)
    mode: str

    def declaration(self) -> c_ast.Decl:
        """The parameter (or local declaration) of the new function."""
        d = copy_node(self.decl)
        d.init, d.bitsize = None, None
        d.storage = [s for s in d.storage if s == "extern"] if self.mode == "declaration" else []
        if self.mode == "pointer":
            d.type = c_ast.PtrDecl([], d.type, d.coord)
        return d

    def argument(self) -> c_ast.Node:
        """The argument of the call."""
        ident = c_ast.ID(self.decl.name)
        return c_ast.UnaryOp("&", ident) if self.mode == "pointer" else ident


def check_new_function_name(ws, name: str, verb: str) -> None:
    """Refuse (``InvalidInput``) a name a new function cannot take: not an identifier, or taken."""
    if not name.isidentifier() or not name.isascii() or name in C_KEYWORDS:
        raise InvalidInput(f"error: {verb}: '{name}' is not a valid C function name")
    if name in ws:
        raise InvalidInput(f"error: {verb}: a function named {name} already exists")
    for cu in ws.compilation_units:
        if name in file_scope(cu.ast.ext):
            raise InvalidInput(f"error: {verb}: {name} already names a global declaration ({cu.filename})")


def _check_name(ws, module: Module, name: str, table: NameTable) -> None:
    if not name:
        raise InvalidInput("error: outline: no name given for the new function (name=...)")
    check_new_function_name(ws, name, "outline")
    for d in table.decls:
        if getattr(d, "name", None) == name:
            raise InvalidInput(f"error: outline: {name} names a local of {module.name} ({where(d)})")


def _local_types(func: c_ast.FuncDef, stmt: c_ast.Node) -> tuple[set[str], set[str], set[int]]:
    """Typedef names, struct/union/enum tags and enumerators declared in ``func`` outside ``stmt``."""
    inside = {id(n) for n in walk(stmt)}
    names, tags, enumerators = set(), set(), set()
    for n in walk(func.body):
        if id(n) in inside:
            continue
        if isinstance(n, c_ast.Typedef):
            names.add(n.name)
        elif isinstance(n, (c_ast.Struct, c_ast.Union)) and n.decls is not None and n.name:
            tags.add(n.name)
        elif isinstance(n, c_ast.Enum) and n.values is not None:
            if n.name:
                tags.add(n.name)
            enumerators.update(id(e) for e in n.values.enumerators)
    return names, tags, enumerators


def _check_types(func, stmt, params: list[Parameter], table: NameTable, fail) -> None:
    """Refuse types (and enumerators) declared in the enclosing function but used by the statement."""
    names, tags, enumerators = _local_types(func, stmt)
    own = typedefs(stmt)
    roots = [stmt] + [p.decl.type for p in params]
    for root in roots:
        for n in walk(root):
            if isinstance(n, c_ast.IdentifierType) and len(n.names) == 1:
                if n.names[0] in names and n.names[0] not in own:
                    raise fail(f"it uses type {n.names[0]}, declared inside the function")
            elif isinstance(n, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and n.name in tags:
                kind = type(n).__name__.lower()
                raise fail(f"it uses {kind} {n.name}, declared inside the function")
            elif isinstance(n, c_ast.ID) and id(table.decl_of(n)) in enumerators:
                raise fail(f"it uses enumerator {n.name}, declared inside the function")
    for p in params:
        for n in walk(p.decl.type):
            if getattr(n, "decls", None) is not None or getattr(n, "values", None) is not None:
                raise fail(f"the type of {p.decl.name} is defined in its declaration")


def _free_declarations(stmt: c_ast.Node, table: NameTable) -> list[c_ast.Decl]:
    """Declarations of the enclosing function the statement uses, with VLA sizes, in source order."""
    inside = {id(n) for n in walk(stmt)}
    found: dict[int, c_ast.Decl] = {}
    todo = [stmt]
    while todo:
        root = todo.pop()
        for ident in variables(root):
            d = table.decl_of(ident)
            if isinstance(d, c_ast.Decl) and table.is_local(d) and id(d) not in inside and id(d) not in found:
                found[id(d)] = d
                todo.append(d.type)  # the sizes of a VLA
    return sorted(found.values(), key=table.position)


def _classify(d: c_ast.Decl, func, stmt, env: TypeEnv, escaped: set[int], fail) -> Parameter:
    """How the new function receives variable ``d`` (see :class:`Parameter`)."""
    table = env.table
    kind = env.category(d.type)
    if kind == "function" or "extern" in d.storage:
        return Parameter(d, "declaration")
    stored = [
        w for w in writes(stmt)
        if w.base is not None and table.decl_of(w.base) is d and w.kind != "deref"
        and (w.kind == "whole" or kind not in ("pointer", "array"))
    ]  # fmt: skip
    if kind == "array":
        if stored:  # an array parameter is a pointer that C lets one assign
            raise fail(f"it assigns array parameter {d.name} (line {stored[0].node.coord.line})")
        uses = {id(u) for u in table.uses(stmt, d)}
        for n in walk(stmt):
            ops = ("sizeof", "&", "_Alignof")
            if isinstance(n, c_ast.UnaryOp) and n.op in ops and id(n.expr) in uses and not _is_parameter(func, d):
                raise fail(f"'{n.op} {d.name}' would apply to a pointer in the new function")
        return Parameter(d, "value")
    if stored and only_loop_index(func, d, table, stmt):
        return Parameter(d, "local")
    if stored or id(d) in escaped or "volatile" in _quals(d):
        if "register" in d.storage:
            raise fail(f"{d.name} is declared register: its address cannot be passed")
        return Parameter(d, "pointer")
    return Parameter(d, "value")


def _is_parameter(func: c_ast.FuncDef, d: c_ast.Decl) -> bool:
    args = func.decl.type.args
    return any(p is d for p in (args.params if args else [])) or any(
        p is d for p in func.param_decls or []
    )


def _quals(d: c_ast.Decl) -> list[str]:
    t = d.type
    while not isinstance(t, c_ast.TypeDecl) and hasattr(t, "type"):
        t = t.type
    return list(d.quals) + list(getattr(t, "quals", []) or [])


@transformation(scope="module")
def outline(module: Module, label: str = "", name: str = "") -> None:
    """Move the statement labelled ``label`` into a new function ``name``, and call it.

    Before (``main.outline(label="l2", name="kernel")``, ``l2`` the loop on ``i``)::

        int main(void)
        {
            int i;
            double s = 0.0, a[100];
            for (i = 0; i < 100; i++)
                s += a[i];
            printf("%f\\n", s);
        }

    After::

        void kernel(double *s, double a[100])
        {
            int i;
            for (i = 0; i < 100; i++)
                *s += a[i];
        }

        int main(void)
        {
            int i;
            double s = 0.0, a[100];
            kernel(&s, a);
            printf("%f\\n", s);
        }

    The parameters are the variables of the enclosing function the statement
    uses, in declaration order (VLA sizes before their arrays): arrays with
    their declared type, scalars and pointers by value, or by pointer when
    the statement writes them (or their address escapes elsewhere). A
    variable written by the statement but used elsewhere only as the index
    of loops that initialise it (``i`` above) is declared in the new function
    instead. Globals stay global. The new function is inserted just before
    the enclosing one, ``static`` if that one is; a loop keeps its label.

    Refused with InvalidInput: no statement labelled ``label``, an empty or
    invalid ``name``, a ``name`` that already names a function, a global or
    a local. Refused with PassFailed: a statement containing ``return``, a
    ``break``/``continue``/``goto`` leaving it, a label reached by a ``goto``
    outside it, or using a type declared inside the enclosing function.

    Properties:

    - label: label of the statement to outline (a loop label, generated or user)
    - name: name of the new function
    """
    ws = module.ws
    func = module.ast
    if not label:
        raise InvalidInput(f"error: outline: no label given (label=...) for function {module.name}")
    targets = [n for n in walk(func.body) if isinstance(n, c_ast.Label) and n.name == label]
    if not targets:
        raise InvalidInput(f"error: no statement labelled '{label}' in function {module.name}")
    stmt = targets[0]
    cu = module.cu
    table = resolve_names(func, file_scope(cu.ast.ext))
    _check_name(ws, module, name, table)

    def fail(what: str) -> PassFailed:
        return PassFailed(f"{where(stmt)}: cannot outline {label} of {module.name} into {name}: {what}")

    for j in escaping_jumps(stmt):
        raise fail(f"it contains {describe_jump(j)}")
    inside = {id(n) for n in walk(stmt)}
    own_labels = {n.name for n in walk(stmt) if isinstance(n, c_ast.Label)}
    for g in walk(func.body):
        if isinstance(g, c_ast.Goto) and g.name in own_labels and id(g) not in inside:
            raise fail(f"label {g.name} is the target of goto {g.name} at {where(g)}")

    env = TypeEnv(table, cu.ast.ext, func)
    escaped = {
        id(table.decl_of(w.base))
        for w in writes(func)
        if w.address and w.base is not None and id(w.node) not in inside
    }
    params = [_classify(d, func, stmt, env, escaped, fail) for d in _free_declarations(stmt, table)]
    _check_types(func, stmt, params, table, fail)
    _check_sizes(func, params, table, fail)
    names = [p.decl.name for p in params]
    for n in names:
        if names.count(n) > 1:
            raise fail(f"it uses two different variables named {n}")

    parent = parent_map(func)[id(stmt)]
    pragmas = pragmas_before(parent, stmt)
    moved_pragmas = pragmas + [n for n in walk(stmt) if isinstance(n, c_ast.Pragma)]
    _check_pragmas(moved_pragmas, params, fail)
    _check_pragma_locals(func, stmt, moved_pragmas, params, fail)
    by_pointer = {id(p.decl) for p in params if p.mode == "pointer"}
    derefs = {id(u) for u in walk(stmt) if isinstance(u, c_ast.ID) and id(table.decl_of(u)) in by_pointer}
    detach_pragmas(parent, stmt)
    moved = transform(stmt, lambda n: c_ast.UnaryOp("*", n, n.coord) if id(n) in derefs else None)

    formal = [p for p in params if p.mode in ("value", "pointer")]
    prologue = [p.declaration() for p in params if p.mode in ("local", "declaration")]
    own_file = stmt.coord is not None and func.decl.coord is not None and stmt.coord.file == func.decl.coord.file
    coord = stmt.coord if own_file else func.decl.coord  # the unit prints only its own file's nodes
    storage = ["static"] if "static" in func.decl.storage else []
    kernel = _void_function(name, [p.declaration() for p in formal], prologue + pragmas + [moved], storage, coord)
    call = c_ast.FuncCall(c_ast.ID(name, coord), c_ast.ExprList([p.argument() for p in formal]), coord)
    replace_child(parent, stmt, call)
    ext = cu.ast.ext
    ext.insert(next(k for k, n in enumerate(ext) if n is func), kernel)


def _void_function(name: str, params: list[c_ast.Decl], body: list[c_ast.Node], storage: list[str], coord):
    """``storage void name(params) { body }``."""
    void = c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(["void"]))
    plist = c_ast.ParamList(params or [c_ast.Typename(None, [], None, void)])
    ftype = c_ast.FuncDecl(plist, c_ast.TypeDecl(name, [], None, c_ast.IdentifierType(["void"])))
    fdecl = c_ast.Decl(name, [], [], storage, [], ftype, None, None, coord)
    return c_ast.FuncDef(fdecl, None, c_ast.Compound(body, coord), coord)


def _check_pragma_locals(func: c_ast.FuncDef, stmt: c_ast.Node, pragmas: list[c_ast.Pragma],
                         params: list[Parameter], fail) -> None:
    """Refuse a pragma naming a local of the function the statement does not use (``if(m > 0)``).

    The statement's code does not read it, so it is no parameter, and the
    new function would not compile.
    """
    inside = {id(n) for n in walk(stmt)}
    passed = {p.decl.name for p in params}
    local = {d.name for d in walk(func) if isinstance(d, c_ast.Decl) and d.name and id(d) not in inside
             and d is not func.decl}  # fmt: skip
    for pr in pragmas:
        for name in sorted((pragma_names(pr) & local) - passed):
            raise fail(f"'#pragma {pr.string}' names {name}, which the statement does not use")


def _check_pragmas(pragmas: list[c_ast.Pragma], params: list[Parameter], fail) -> None:
    """Refuse pragmas naming a variable that becomes a pointer (``reduction(+:s)``)."""
    for p in params:
        for pr in pragmas:
            if p.mode == "pointer" and p.decl.name in pragma_names(pr):
                raise fail(f"'#pragma {pr.string}' names {p.decl.name}, which would be passed by pointer")


def _check_sizes(func, params: list[Parameter], table: NameTable, fail) -> None:
    """Refuse VLA parameters whose sizes may differ in the new function.

    Sizes are evaluated again at the call: a size variable must be passed by
    value and, except for the outermost dimension (which decays), never be
    assigned in the function nor be a global.
    """
    modes = {id(p.decl): p.mode for p in params}
    assigned = {id(table.decl_of(w.base)) for w in writes(func) if w.base is not None and w.kind == "whole"}
    for p in params:
        t = p.decl.type
        outermost = True
        while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
            if isinstance(t, c_ast.ArrayDecl) and t.dim is not None:
                for v in variables(t.dim):
                    d = table.decl_of(v)
                    if not isinstance(d, c_ast.Decl):
                        continue  # an enumerator
                    if id(d) not in modes and not outermost:
                        raise fail(f"size {v.name} of array {p.decl.name} is a global: it may have changed")
                    if id(d) in modes and (
                        modes[id(d)] != "value" or (not outermost and id(d) in assigned)
                    ):
                        raise fail(f"size {v.name} of array {p.decl.name} is modified")
            outermost = False
            t = t.type
