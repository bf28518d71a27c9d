"""``astutil.child_nodes`` and ``walk`` read the slots directly: they must list what ``children()`` lists, in order."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from pycparser import c_ast

from passman import Workspace
from passman.astutil import child_nodes, fields, walk
from passman.frontend import GenericSelection

CORPUS = Path(__file__).parent / "corpus"

NODE_CLASSES = [c for _, c in inspect.getmembers(c_ast, inspect.isclass)
                if issubclass(c, c_ast.Node) and c is not c_ast.Node and c.__module__ == c_ast.__name__]


def _named_children(n: c_ast.Node) -> list[c_ast.Node]:
    return [c for _, c in n.children()]


def _blank(cls: type) -> c_ast.Node:
    node = cls.__new__(cls)
    for name in fields(cls):
        setattr(node, name, None)
    node.coord = None
    return node


@pytest.mark.parametrize("cls", NODE_CLASSES, ids=lambda c: c.__name__)
def test_children_of_every_pycparser_class_in_order(cls):
    slots = [s for s in fields(cls) if s not in cls.attr_names]
    source = inspect.getsource(cls.children)  # the oracle: which slots children() reads as lists
    lists = {s for s in slots if f"self.{s} or []" in source}
    node = _blank(cls)
    assert child_nodes(node) == _named_children(node) == []
    for i, name in enumerate(slots):
        setattr(node, name, [c_ast.ID(f"x{i}"), c_ast.ID(f"y{i}")] if name in lists else c_ast.ID(f"x{i}"))
    assert child_nodes(node) == _named_children(node)
    assert len(child_nodes(node)) == len(slots) + len(lists)
    for name in lists:  # an empty list, then None, lists nothing
        for empty in ([], None):
            saved = getattr(node, name)
            setattr(node, name, empty)
            assert child_nodes(node) == _named_children(node)
            setattr(node, name, saved)


def test_a_class_of_the_front_end_keeps_its_own_children():
    g = GenericSelection(c_ast.ID("x"), [(None, c_ast.ID("d")), (c_ast.Typename(None, [], None, None), c_ast.ID("e"))])
    assert child_nodes(g) == _named_children(g)
    assert [type(n).__name__ for n in walk(g)][:3] == ["GenericSelection", "ID", "ID"]


def _old_walk(node: c_ast.Node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(_named_children(n)))


@pytest.mark.parametrize("name", ["adi", "structs_pointers", "control_flow", "blur"])
def test_walk_visits_what_children_visit_in_the_same_order(name):
    ws = Workspace(str(CORPUS / f"{name}.c"))
    for cu in ws.compilation_units:
        assert [id(n) for n in walk(cu.ast)] == [id(n) for n in _old_walk(cu.ast)]
