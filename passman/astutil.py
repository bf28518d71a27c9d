"""Small, fast helpers over pycparser's ``c_ast``: copy, compare, walk, parents.

These are the primitives the workspace, its transactions and every pass use;
they know nothing about any particular pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from pycparser import c_ast

N = TypeVar("N", bound=c_ast.Node)

_FIELDS: dict[type, tuple[str, ...]] = {}


class IndexDesignator(c_ast.ID):
    """An identifier that is an array index in a designator: ``RED`` in ``{ [RED] = "red" }``.

    pycparser gives ``[RED] =`` and the field designator ``.RED =`` the same
    ``ID``; the front end makes the first one this subclass so that the
    printer writes it back in brackets. Everything else sees an ``ID``.
    """

    __slots__ = ()


def fields(cls: type) -> tuple[str, ...]:
    """The data slots of a c_ast node class (children and attributes, no coord)."""
    f = _FIELDS.get(cls)
    if f is None:
        slots = [s for k in reversed(cls.__mro__) for s in getattr(k, "__slots__", ())]
        f = tuple(dict.fromkeys(s for s in slots if s not in ("coord", "__weakref__")))
        _FIELDS[cls] = f
    return f


def copy_node(node: N) -> N:
    """A deep copy of ``node``; coordinates are shared (they are never mutated).

    About ten times faster than :func:`copy.deepcopy` on pycparser trees.
    """
    cls = node.__class__
    new = cls.__new__(cls)
    for name in fields(cls):
        value = getattr(node, name)
        if isinstance(value, c_ast.Node):
            value = copy_node(value)
        elif isinstance(value, list):
            value = [copy_node(v) if isinstance(v, c_ast.Node) else v for v in value]
        setattr(new, name, value)
    new.coord = node.coord
    return new


def same_tree(a: object, b: object) -> bool:
    """Structural equality of two trees (or values), ignoring coordinates."""
    if a is b:
        return True
    if isinstance(a, c_ast.Node):
        if a.__class__ is not b.__class__:
            return False
        return all(same_tree(getattr(a, f), getattr(b, f)) for f in fields(a.__class__))
    if isinstance(a, list):
        return (
            isinstance(b, list)
            and len(a) == len(b)
            and all(same_tree(x, y) for x, y in zip(a, b))
        )
    return a == b


#: node class -> the function listing its children (:func:`child_nodes`)
_CHILDREN: dict[type, Callable[[c_ast.Node], list[c_ast.Node]]] = {}


def _children_function(cls: type) -> Callable[[c_ast.Node], list[c_ast.Node]]:
    """A function listing the children of a ``cls`` node as ``cls.children()`` orders them.

    pycparser's ``children()`` names each child (``"block_items[3]"``, a
    string formatted per child); walking a tree spends most of its time
    there. For a class whose ``children()`` is pycparser's own, the function
    reads the slots directly: which slots hold a list and in what order
    ``children()`` lists them is asked of ``children()`` once, on a probe
    node. Any other class (the front end's own nodes) keeps its ``children()``.
    """
    owner = next((k for k in cls.__mro__ if "children" in k.__dict__), None)
    order = _slot_order(cls) if owner is not None and owner.__module__ == c_ast.__name__ else None
    if order is None:
        def generic(n: c_ast.Node) -> list[c_ast.Node]:
            return [c for _, c in n.children()]

        _CHILDREN[cls] = generic
        return generic
    lines = ["def children(n):", "    out = []"]
    for slot, is_list in order:
        lines += [f"    v = n.{slot}", "    if v:" if is_list else "    if v is not None:",
                  "        out += v" if is_list else "        out.append(v)"]
    lines.append("    return out")
    namespace: dict = {}
    exec("\n".join(lines), namespace)  # noqa: S102 - code made from the class's own slot names
    _CHILDREN[cls] = namespace["children"]
    return namespace["children"]


def _slot_order(cls: type) -> list[tuple[str, bool]] | None:
    """``(slot, holds a list)`` in the order ``cls.children()`` lists them; None if it lists anything else."""
    slots = [s for s in fields(cls) if s not in getattr(cls, "attr_names", ())]
    probe = cls.__new__(cls)
    markers: dict[int, tuple[str, bool]] = {}
    for name in fields(cls):
        setattr(probe, name, None)
    probe.coord = None
    for name in slots:  # a list of one marker: a list slot yields the marker, a node slot the list
        marker = c_ast.ID(name)
        setattr(probe, name, [marker])
        markers[id(marker)] = (name, True)
    try:
        listed = [c for _, c in probe.children()]
        for name, value in zip(slots, [getattr(probe, s) for s in slots]):
            if any(c is value for c in listed):  # the slot holds one node
                marker = c_ast.ID(name)
                setattr(probe, name, marker)
                markers[id(marker)] = (name, False)
        listed = [c for _, c in probe.children()]
    except Exception:  # noqa: BLE001 - a children() that needs real values: keep it
        return None
    order = [markers.get(id(c)) for c in listed]
    if None in order or len(order) != len(slots):
        return None
    return order


def child_nodes(node: c_ast.Node) -> list[c_ast.Node]:
    """The children of ``node`` in ``node.children()``'s order, without their names (a new list)."""
    fn = _CHILDREN.get(node.__class__)
    if fn is None:
        fn = _children_function(node.__class__)
    return fn(node)


def walk(node: c_ast.Node) -> Iterator[c_ast.Node]:
    """All nodes of the tree rooted at ``node``, in pre-order."""
    stack = [node]
    pop = stack.pop
    table = _CHILDREN
    while stack:
        n = pop()
        yield n
        fn = table.get(n.__class__)
        kids = (fn or _children_function(n.__class__))(n)
        if kids:
            kids.reverse()
            stack += kids


def find_all(node: c_ast.Node, cls: type[N] | tuple[type, ...]) -> list[N]:
    """Every node of type ``cls`` under (and including) ``node``, in pre-order."""
    return [n for n in walk(node) if isinstance(n, cls)]


def parent_map(root: c_ast.Node) -> dict[int, c_ast.Node]:
    """Map ``id(child) -> parent`` for every node under ``root``."""
    parents: dict[int, c_ast.Node] = {}
    stack = [root]
    while stack:
        n = stack.pop()
        for c in child_nodes(n):
            parents[id(c)] = n
            stack.append(c)
    return parents


def conjunction(conds: list[c_ast.Node]) -> c_ast.Node | None:
    """``c1 && c2 && ...`` (left-associated), or None for no condition."""
    out = None
    for c in conds:
        out = c if out is None else c_ast.BinaryOp("&&", out, c)
    return out


def replace_child(parent: c_ast.Node, old: c_ast.Node, new: c_ast.Node | list[c_ast.Node]) -> None:
    """Replace ``old`` by ``new`` among ``parent``'s children.

    ``new`` may be a list only where ``old`` sits in a list (a block's items);
    elsewhere a list is wrapped into a ``Compound``.
    """
    for name in fields(parent.__class__):
        value = getattr(parent, name)
        if value is old:
            if isinstance(new, list):
                new = c_ast.Compound(new, old.coord)
            setattr(parent, name, new)
            return
        if isinstance(value, list):
            for i, v in enumerate(value):
                if v is old:
                    value[i : i + 1] = new if isinstance(new, list) else [new]
                    return
    raise ValueError(f"{type(old).__name__} is not a child of {type(parent).__name__}")


def transform(node: c_ast.Node, fn: Callable[[c_ast.Node], c_ast.Node | None]) -> c_ast.Node:
    """Rebuild ``node`` bottom-up in place: ``fn`` may return a replacement or None."""
    for name in fields(node.__class__):
        value = getattr(node, name)
        if isinstance(value, c_ast.Node):
            setattr(node, name, transform(value, fn))
        elif isinstance(value, list):
            value[:] = [transform(v, fn) if isinstance(v, c_ast.Node) else v for v in value]
    out = fn(node)
    return node if out is None else out


def strip_labels(stmt: c_ast.Node) -> c_ast.Node:
    """The statement under any chain of labels."""
    while isinstance(stmt, c_ast.Label):
        stmt = stmt.stmt
    return stmt


def func_name(fd: c_ast.FuncDef) -> str:
    """Name of the function a ``FuncDef`` defines."""
    return fd.decl.name


def callee_name(node: c_ast.Node | None) -> str | None:
    """The name of the function ``node`` calls directly (``f(...)``), None for anything else."""
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
        return node.name.name
    return None


def called_names(node: c_ast.Node) -> list[str]:
    """Names of the functions called directly (by name) under ``node``, in order."""
    return [name for n in walk(node) if (name := callee_name(n)) is not None]


def deepest(node: c_ast.Node) -> tuple[int, c_ast.Node]:
    """The depth of the tree rooted at ``node`` (``node`` alone: 1) and its deepest node.

    Iterative, so that it measures trees too deep for recursive walks.
    """
    best, best_node = 0, node
    stack = [(node, 1)]
    while stack:
        n, d = stack.pop()
        if d > best:
            best, best_node = d, n
        stack.extend((c, d + 1) for c in child_nodes(n))
    return best, best_node
