"""Names in C code: which declaration an identifier refers to (:func:`resolve_names`, with
block scopes, shadowing and ``for (int i = ...)``), fresh and taken names, renaming, ``where``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pycparser import c_ast

from passman.astutil import child_nodes, copy_node, parent_map, transform, walk


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
                for c in child_nodes(n):
                    visit(c)
                scopes.pop()
            case _:
                for c in child_nodes(n):
                    visit(c)

    visit(root)
    return table


def file_scope(ext: Iterable[c_ast.Node]) -> dict[str, c_ast.Node]:
    """Names declared at file scope: variables, functions, typedefs, enumerators (a new dict).

    The enumerators are found by walking every declaration's type, the
    headers' prototypes included (3 ms a unit): the answer is kept by
    :data:`_FILE_SCOPES` for the same top-level declarations.
    """
    return dict(_FILE_SCOPES.get(list(ext), _file_scope))


def _file_scope(ext: list[c_ast.Node]) -> dict[str, c_ast.Node]:
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


class TopLevelMemo:
    """The last answers of a function of a unit's top-level nodes (a file's ``ext``), each kept while
    the list holds the same nodes with the same names and type nodes (a function definition's: its
    declaration's): an added, removed, renamed or retyped declaration is computed again."""

    def __init__(self, size: int = 8):
        self.size = size
        self.entries: list[tuple[list[tuple], Any]] = []

    def get(self, ext: list[c_ast.Node], compute: Callable[[list[c_ast.Node]], Any]) -> Any:
        """``compute(ext)``, or its answer kept for the same nodes (not to be changed by the caller)."""
        key = [(n, getattr(d, "name", None), getattr(d, "type", None))
               for n in ext for d in [n.decl if isinstance(n, c_ast.FuncDef) else n]]
        for kept, answer in self.entries:
            if len(kept) == len(key) and all(a[0] is b[0] and a[1] == b[1] and a[2] is b[2]
                                             for a, b in zip(kept, key)):
                return answer
        answer = compute(ext)
        self.entries.insert(0, (key, answer))
        del self.entries[self.size:]
        return answer


#: the last answers of :func:`file_scope`
_FILE_SCOPES = TopLevelMemo()


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

# ------------------------------------------------------------------ names


def taken_names(*roots: c_ast.Node | Iterable[c_ast.Node]) -> set[str]:
    """Every identifier, declared name and label under ``roots`` (to pick names that clash with none)."""
    out: set[str] = set()
    for n in all_nodes(roots):
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


def pointer_declaration(decl: c_ast.Decl, name: str, init: c_ast.Node | None) -> c_ast.Decl:
    """``T *name = init`` for a scalar ``T x`` or a pointer ``T *x``, ``T (*name)[m] = init`` for
    an array ``T x[n][m]``.

    A pointer to the elements ``decl`` holds or points to: it can hold the address of storage
    laid out the same way (a copy on a device, one value per iteration). Qualifiers are dropped.
    """
    t = copy_node(decl.type)
    element = t.type if isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)) else t
    out = c_ast.Decl(name, [], [], [], [], c_ast.PtrDecl([], element), init, None)
    rename_declaration(out, name)
    inner = out.type
    while not isinstance(inner, c_ast.TypeDecl):
        inner = inner.type
    inner.quals = []
    return out


def statement_lists(root: c_ast.Node) -> list[list[c_ast.Node]]:
    """The statement lists under ``root``: block items of each ``Compound``, statements of each ``case``."""
    out = []
    for n in walk(root):
        if isinstance(n, c_ast.Compound) and n.block_items is not None:
            out.append(n.block_items)
        elif isinstance(n, (c_ast.Case, c_ast.Default)) and n.stmts is not None:
            out.append(n.stmts)
    return out


def visible_names(func: c_ast.FuncDef, node: c_ast.Node, ext: Iterable[c_ast.Node]) -> set[str]:
    """The names an expression written right before ``node`` (inside ``func``) may use.

    The file scope, the function's parameters, and the declarations of the
    enclosing blocks before ``node`` (``for`` headers included).
    """
    parents = parent_map(func)
    names = set(file_scope(ext))
    fdecl = func.decl.type
    if isinstance(fdecl, c_ast.FuncDecl) and fdecl.args is not None:
        names |= {p.name for p in fdecl.args.params if getattr(p, "name", None)}
    child = node
    while id(child) in parents:
        up = parents[id(child)]
        if isinstance(up, c_ast.Compound):
            for item in up.block_items or []:
                if item is child:
                    break
                if isinstance(item, c_ast.Decl) and item.name:
                    names.add(item.name)
                elif isinstance(item, c_ast.DeclList):
                    names |= {d.name for d in item.decls if d.name}
        elif isinstance(up, c_ast.For) and isinstance(up.init, c_ast.DeclList):
            names |= {d.name for d in up.init.decls if d.name}
        child = up
    return names


def names_in_scope(func: c_ast.Node, ext: Iterable[c_ast.Node]) -> set[str]:
    """The names a new local of ``func`` must avoid: every name in ``func`` and every file-scope name."""
    return taken_names(func) | set(file_scope(ext))

def all_nodes(roots) -> Iterable[c_ast.Node]:
    """Every node of ``roots`` (nodes, or lists of nodes such as a file's ``ext``), in order."""
    for r in roots:
        for top in [r] if isinstance(r, c_ast.Node) else r:
            yield from walk(top)


def declaring_nodes(roots) -> Iterable[c_ast.Node]:
    """:func:`all_nodes`, less the bodies of the function definitions listed in a list of ``roots``.

    ``declaring_nodes([cu.ast.ext, func])``: what declares the types
    ``func`` sees, the file scope (the other functions' signatures, not
    their bodies: what they declare is local to them) and ``func`` whole,
    without walking the whole file.
    """
    for r in roots:
        if isinstance(r, c_ast.Node):
            yield from walk(r)
            continue
        for top in r:
            if isinstance(top, c_ast.FuncDef):
                yield from walk(top.decl)
                for d in top.param_decls or ():
                    yield from walk(d)
            else:
                yield from walk(top)
