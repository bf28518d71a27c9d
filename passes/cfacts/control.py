"""Control flow leaving a statement (:func:`escaping_jumps`, labels, the pragmas before a
statement) and :func:`only_loop_index`: whether a variable is dead around a statement because
every use of it is a loop index initialised by its own loop.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pycparser import c_ast

from passman.astutil import child_nodes, parent_map, walk

from .names import NameTable
from .sideeffects import variables

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
        for c in child_nodes(n):
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


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def pragma_names(pragma: c_ast.Pragma | str) -> set[str]:
    """Every identifier of a ``#pragma``'s text (or of the text itself): the variables its clauses may read.

    Clause expressions (``if(n > 100)``, ``num_threads(p)``, a marker's
    ``version((long)(m - 2) * 2 >= 100000)``, ``firstprivate(x)``) are C
    kept as text, invisible to the analyses that walk the AST: a variable
    they name is read there (directive and clause words are names too, an
    over-approximation, the safe side for liveness and unused declarations).
    """
    text = pragma if isinstance(pragma, str) else pragma.string
    return set(_IDENTIFIER.findall(text)) if isinstance(text, str) else set()


def pragmas_before(parent: c_ast.Node, stmt: c_ast.Node) -> list[c_ast.Pragma]:
    """The ``#pragma`` lines right before ``stmt`` in its block (they apply to it).

    ``#pragma scop`` / ``endscop`` mark a region, not a statement: they and
    the lines above them are not ``stmt``'s.
    """
    items = getattr(parent, "block_items", None) or []
    i = next((k for k, n in enumerate(items) if n is stmt), 0)
    j = i
    while j > 0 and isinstance(items[j - 1], c_ast.Pragma) and items[j - 1].string.split()[:1] not in _MARKS:
        j -= 1
    return items[j:i]


#: pragmas that mark a region of code (PolyBench, Pluto, PPCG), not the statement after them
_MARKS = (["scop"], ["endscop"])


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
        return all(visit(c, covered) for c in child_nodes(n))

    return visit(func, False)
