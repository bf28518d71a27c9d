"""What OpenMP clauses can say: reductions as clause items, array sections, private arrays.

:func:`reduction_items` writes the reductions a loop needs (from its
:class:`~.parallel.LoopVerdict`) as ``reduction(op:item)`` items: a scalar,
one element as a one-element section (``hist[k:1]``), a whole array as the
section of its extent (``hist[0:256]``), the extent read from the
declaration or, for a pointer formal, from the arrays every call passes.
They are refused (with a reason in source terms) where OpenMP's semantics
would differ: the loop also touches other elements of a reduced array (a
section reduction redirects the whole array to the thread's copy), the
extent is unknown, or a constant section is too big for a thread's stack.
:func:`private_array_problem` does the same for privatized arrays.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pycparser import c_ast

from passman import Loop, Module
from passman.astutil import child_nodes, walk
from passman.printer import to_c

from ..analysis.effect_model import function_scope
from ..cfacts.folding import int_value, simplify
from ..cfacts.sideeffects import variables, writes
from .marker import constant_value
from .verdicts import LoopVerdict

__all__ = [
    "MAX_SECTION_ELEMENTS",
    "private_array_problem",
    "reduction_items",
    "section_lengths",
    "varying_section",
    "section_size",
]

def private_array_problem(loop: Loop, v: LoopVerdict) -> str | None:
    """Why an array the loop privatizes cannot be an OpenMP ``private`` (None: they all can).

    OpenMP copies what the name designates: an array declared with a
    constant size (at most :data:`MAX_SECTION_ELEMENTS` elements, each
    thread's copy is on its stack) is fine; an array formal or a pointer
    would give each thread an uninitialized pointer instead of its own memory.
    """
    from ..analysis.privatization import loop_privates

    arrays = set(loop_privates(loop).private_arrays) & set(v.private)
    if not arrays:
        return None
    scope = function_scope(loop.module)
    unit = loop.module.ws.resource("unit_scope", loop.module)
    for name in sorted(arrays):
        decl = next((d for d in walk(loop.module.ast) if isinstance(d, c_ast.Decl) and d.name == name), None)
        decl = decl or unit.names.get(name)
        formal = any(p is decl for p in scope.params)
        t = scope.types.unalias(decl.type) if isinstance(decl, c_ast.Decl) else None
        if formal or not isinstance(t, c_ast.ArrayDecl):
            return (f"{name} must be private to each iteration, but it is reached through a pointer: "
                    "OpenMP would privatize the pointer, not the memory")
        size = section_size(name + "".join(f"[0:{to_c(d)}]" for d in _dims(t, scope)))
        if size is None or size > MAX_SECTION_ELEMENTS:
            return (f"{name} must be private to each iteration, but a copy per thread of its "
                    f"{size or 'non-constant number of'} elements may not fit on a thread's stack")
    return None


def _dims(t: c_ast.Node, scope) -> list[c_ast.Node]:
    dims = []
    while isinstance(t, c_ast.ArrayDecl):
        dims.append(t.dim if t.dim is not None else c_ast.ID("?"))
        t = scope.types.unalias(t.type)
    return dims



def _extents(module: Module, var: str, decl: object | None) -> list[c_ast.Node] | None:
    """The declared extents of array ``var`` (None when one is unknown: a pointer).

    A pointer formal has the extent of the arrays the calls pass, when they
    all pass arrays of one constant size.
    """
    scope = function_scope(module)
    if decl is None:
        decl = next((p for p in scope.params if p.name == var), None)
    if decl is None:
        unit = module.ws.resource("unit_scope", module)
        decl = unit.names.get(var)
    if not isinstance(decl, c_ast.Decl):
        return None
    if any(p is decl for p in scope.params) and scope.types.category(decl.type) == "pointer":
        extent = _extent_at_calls(module, [p.name for p in scope.params].index(decl.name))
        return None if extent is None else [c_ast.Constant("int", str(extent))]
    t = scope.types.unalias(decl.type)
    dims = []
    while isinstance(t, c_ast.ArrayDecl):
        if t.dim is None:
            return None
        dims.append(t.dim)
        t = scope.types.unalias(t.type)
    if not dims:
        return None
    written = {w.base.name for w in writes(module.ast) if w.base is not None and w.kind == "whole"}
    if any(v.name in written for d in dims for v in variables(d)):
        return None
    return dims


def _extent_at_calls(module: Module, position: int) -> int | None:
    """The extent of the array every call passes as argument ``position`` (None: unknown or different).

    Only for a program whose calls are all visible: it has a ``main``, and
    ``module`` is called by name only (its address is never taken).
    """
    ws = module.ws
    if "main" not in ws:
        return None
    extents = set()
    for caller in ws.all_functions:
        scope = function_scope(caller)
        calls = {id(c.name) for c in walk(caller.ast) if isinstance(c, c_ast.FuncCall)}
        for n in walk(caller.ast):
            if isinstance(n, c_ast.ID) and n.name == module.name and id(n) not in calls:
                return None  # a function pointer may call it with anything
            if not (isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name == module.name):
                continue
            args = n.args.exprs if n.args is not None else []
            actual = args[position] if position < len(args) else None
            decl = scope.names.decl_of(actual) if isinstance(actual, c_ast.ID) else None
            t = scope.types.unalias(decl.type) if isinstance(decl, c_ast.Decl) else None
            size = int_value(simplify(t.dim)) if isinstance(t, c_ast.ArrayDecl) and t.dim is not None else None
            if size is None or any(p is decl for p in scope.params):
                return None  # not an array of known size (a formal array is a pointer)
            extents.add(size)
    return extents.pop() if len(extents) == 1 else None


def _other_access(loop: Loop, r) -> str | None:
    """An access to ``r.var`` in the loop that is not the reduced reference itself (C text), if any."""
    parents = {}
    for n in walk(loop.node):
        for c in child_nodes(n):
            parents[id(c)] = n
    holders = (c_ast.Compound, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.If, c_ast.Label,
               c_ast.Case, c_ast.Default)
    stmts: set[int] = set()
    updated: set[str] = set()  # C text of the references the updates write
    for node in r.stmts:  # the updates (statements or their references): their whole statements
        while id(node) in parents and not isinstance(parents[id(node)], holders):
            node = parents[id(node)]
        stmts.update(id(n) for n in walk(node))
        for w in writes(node):
            if not w.address:
                target = w.node.lvalue if isinstance(w.node, c_ast.Assignment) else w.node.expr
                updated.add("".join(to_c(target).split()))
    for n in walk(loop.node):
        if not (isinstance(n, c_ast.ID) and n.name == r.var):
            continue
        ref: c_ast.Node = n
        while isinstance(parents.get(id(ref)), c_ast.ArrayRef) and parents[id(ref)].name is ref:
            ref = parents[id(ref)]
        up = parents.get(id(ref))
        if isinstance(up, c_ast.UnaryOp) and up.op == "*" and ref is n:
            ref = up
        text = to_c(ref).strip()
        if r.kind == "array":
            # in an update, only the updated reference itself (``hist[k] += C[16][k]`` reads
            # another element of the array: the section reduction would make it read a copy)
            argument = isinstance(up, c_ast.ExprList) and isinstance(parents.get(id(up)), c_ast.FuncCall)
            if id(n) not in stmts or not (argument or "".join(text.split()) in updated):
                return text
            continue
        subs = r.subscripts or ("0",)
        wanted = {r.var + "".join(f"[{x}]" for x in subs)}
        if r.pointee and subs == ("0",):
            wanted.add(f"*{r.var}")
        if "".join(text.split()) not in {"".join(w.split()) for w in wanted}:
            return text
    return None


def reduction_items(loop: Loop, v: LoopVerdict) -> tuple[tuple[tuple[str, str], ...], str | None]:
    """The ``(operator, item)`` pairs of the loop's reductions, or why OpenMP cannot express one.

    A scalar is itself; one element is a one-element array section
    (``hist[k:1]``, ``p[0:1]`` for ``*p``); a whole array is the section of
    its declared extent (``hist[0:256]``), refused when the extent is not
    known (a pointer to a block of unknown size). A variable reduced in
    several ways at once is refused.
    """
    out: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    for r in v.reductions:
        if r.var in seen:
            return (), f"{r.var} is reduced twice ({seen[r.var]} and {r.text}): OpenMP takes one reduction per variable"
        seen[r.var] = r.text
        if r.kind != "scalar" or r.pointee:
            other = _other_access(loop, r)
            if other:
                return (), (f"reduction {r.text}: the loop also accesses {other}, which an OpenMP array "
                            f"section reduction would redirect to the thread's private copy")
        if r.kind == "scalar" and not r.pointee:
            out.append((r.op, r.var))
        elif r.kind == "array_element":
            subs = r.subscripts or ("0",)
            out.append((r.op, r.var + "".join(f"[{s}:1]" for s in subs)))
        else:
            dims = _extents(loop.module, r.var, r.decl)
            if dims is None:
                return (), f"reduction {r.text}: the extent of {r.var} is unknown, so no OpenMP array section can hold it"
            item = r.var + "".join(f"[0:{to_c(d)}]" for d in dims)
            size = section_size(item)
            if size is not None and size > MAX_SECTION_ELEMENTS:
                return (), (f"reduction {r.text}: each thread would hold a private copy of {size} elements "
                            f"of {r.var} on its stack (more than {MAX_SECTION_ELEMENTS})")
            out.append((r.op, item))
    varying = varying_section(out, loop.node)
    if varying:
        return (), varying
    return tuple(out), None


def varying_section(items: Iterable[tuple[str, str]], loop: c_ast.Node) -> str | None:
    """Why an OpenMP reduction item on ``loop`` would be wrong: a section bound the loop changes.

    OpenMP evaluates ``reduction(+:A[i:1][12:1])`` once, when the construct
    starts: a bound that names the loop's own index, the index of a loop
    it contains (``collapse``), or any variable the loop assigns, does not
    name the elements the iterations update. None when every item is fixed.
    """
    written = {w.base.name for w in writes(loop) if w.base is not None and w.kind == "whole"}
    written |= {d.name for d in walk(loop) if isinstance(d, c_ast.Decl) and d.name}
    for _, item in items:
        _, _, sections = item.partition("[")
        names = set(re.findall(r"[A-Za-z_]\w*", sections)) & written
        if names:
            return (f"the reduction section {item} depends on {', '.join(sorted(names))}, which the loop "
                    "changes: OpenMP fixes a section when the loop starts")
    return None


#: largest array section a reduction may privatize: each thread's copy lives on its stack
MAX_SECTION_ELEMENTS = 1 << 17


def section_lengths(item: str) -> list[str]:
    """The lengths of an OpenMP array section, as C text: ``A[0:n][0:m]`` -> ``["n", "m"]`` (``[]``: a scalar)."""
    out, depth, cur, inside = [], 0, "", False
    for ch in item:
        if ch == "[":
            depth += 1
            if depth == 1:
                cur, inside = "", True
                continue
        elif ch == "]":
            depth -= 1
            if depth == 0:
                out.append(cur.rpartition(":")[2].strip() if ":" in cur else "1")
                inside = False
                continue
        if inside:
            cur += ch
    return out


def section_size(item: str) -> int | None:
    """Number of elements of an array section when its lengths are constants (1 for a scalar)."""
    size = 1
    for length in section_lengths(item):
        n = constant_value(length)
        if n is None:
            return None
        size *= n
    return size
