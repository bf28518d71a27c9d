"""Array privatization from IN and OUT regions (the hook of :mod:`..analysis.privatization`).

:func:`array_privatizer` is installed by :mod:`.verdicts` with
``private_variables``: a local array is private to a loop when its
address never reaches a pointer or a callee (it is only ever indexed), no
element an iteration imports (the IN region of the body) is written by the
loop (its WRITE region), and its values are dead after the loop (no OUT
region). Before::

    double tmp[8];
    for (i = 0; i < n; i++) {
        for (k = 0; k < 8; k++) tmp[k] = a[i] + k;
        for (k = 0; k < 8; k++) b[8 * i + k] = tmp[k];
    }

After: ``loop_privates(loop).private_arrays == ("tmp",)``.
"""

from __future__ import annotations

from collections.abc import Iterator

import islpy as isl
from pycparser import c_ast

from passman import Module, PassmanError
from passman.astutil import child_nodes

from ..cfacts.names import where
from .effect_model import ANYWHERE, FunctionScope, function_scope, is_variable

__all__ = ["array_privatizer"]

# ------------------------------------------------------------------ array privatization


def array_privatizer(module: Module, loop: c_ast.For, candidates: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The arrays among ``candidates`` that every iteration of ``loop`` can own, and why not the others.

    Called by :mod:`.privatization` for the arrays a loop writes. An
    array is private when it is a local, non-static array whose address
    never reaches a pointer, every element an iteration reads was written
    before by that iteration (the IN region of the body meets no element
    the loop writes), and the loop's values are dead after it (no OUT
    region).
    """
    if not candidates:
        return (), ()
    scope = function_scope(module)
    at = f"{where(loop)}: loop"
    local = _local_arrays(scope, loop)
    private, why = [], []
    pending = []
    for name in candidates:
        decl = local.get(name)
        if decl is None:
            why.append(f"{at}: array {name} is not private: it is not a local array of {module.name}")
        elif _escapes(scope, decl):
            why.append(f"{at}: array {name} is not private: its address is stored or computed at "
                       f"{_escapes(scope, decl)}")
        else:
            pending.append(name)
    if not pending:
        return (), tuple(why)
    try:
        cum = module.resource("cumulated_effects").of(loop)
        if any(e.var == ANYWHERE for e in cum):
            return (), tuple(why) + (f"{at}: no array is private: the loop may access any memory",)
        ins = module.resource("in_regions").of(loop.stmt)
        regs = module.resource("regions").of(loop)
        outs = module.resource("out_regions").of(loop)
    except PassmanError as err:
        return (), tuple(why) + (f"{at}: no array is private: regions are not available ({err})",)
    for name in pending:
        w = [r for r in regs if r.var == name and r.mode == "W"]
        imported = [r for r in ins if r.var == name]
        if not w:
            why.append(f"{at}: array {name} is not private: the regions show no write of it")
        elif any(not r.set.is_empty() for r in outs if r.var == name):
            why.append(f"{at}: array {name} is not private: its values are used after the loop")
        elif any(_meet(i.set, x.set) for i in imported for x in w):
            why.append(f"{at}: array {name} is not private: an iteration may read elements that "
                       "another iteration writes (IN region of the body)")
        else:
            private.append(name)
    return tuple(private), tuple(why)


def _meet(a: isl.Set, b: isl.Set) -> bool:
    """Whether two regions of one variable may share an element (True when they cannot be compared)."""
    try:
        return not a.intersect(b).is_empty()
    except isl.Error:
        return True


def _local_arrays(scope: FunctionScope, loop: c_ast.For) -> dict[str, c_ast.Decl]:
    """Local non-static arrays of the function, by name (names declared twice are left out)."""
    found: dict[str, list[c_ast.Decl]] = {}
    for d in scope.names.decls:
        if isinstance(d, c_ast.Decl) and d.name and is_variable(d):
            found.setdefault(d.name, []).append(d)
    return {name: ds[0] for name, ds in found.items()
            if len(ds) == 1 and scope.kind(ds[0]) == "local" and scope.category(ds[0]) == "array"}


def _escapes(scope: FunctionScope, decl: c_ast.Decl) -> str | None:
    """Where the address of array ``decl`` is used otherwise than to index it (``sizeof`` aside).

    Passing the array to a function counts: the callee may keep the address.
    One walk of the function answers for every array (kept with the scope):
    a function of 500 loops asked it once per loop and candidate, 525 walks
    and 54 s (fuzz case timeout_40e5ce02).
    """
    found = scope.memo.get("array escapes")
    if found is None:
        found = scope.memo["array escapes"] = _all_escapes(scope)
    return found.get(id(decl))


def _rank(scope: FunctionScope, decl: c_ast.Decl) -> int:
    rank, t = 0, scope.types.unalias(decl.type)
    while isinstance(t, c_ast.ArrayDecl):
        rank, t = rank + 1, scope.types.unalias(t.type)
    return rank


def _all_escapes(scope: FunctionScope) -> dict[int, str]:
    """``{id(array declaration): where its address first escapes}`` (arrays that never escape left out)."""
    parents: dict[int, c_ast.Node] = {}
    ranks: dict[int, int] = {}
    out: dict[int, str] = {}
    for n in _walk_with_parents(scope.func, parents):
        if not isinstance(n, c_ast.ID):
            continue
        decl = scope.names.decl_of(n)
        if decl is None or id(decl) in out:
            continue
        p = parents.get(id(n))
        if isinstance(p, c_ast.ArrayRef) and p.name is n:
            top, depth = p, 1
            while isinstance(parents.get(id(top)), c_ast.ArrayRef) and parents[id(top)].name is top:
                top, depth = parents[id(top)], depth + 1
            outer = parents.get(id(top))
            if id(decl) not in ranks:
                ranks[id(decl)] = _rank(scope, decl) if isinstance(decl, c_ast.Decl) else -1
            if depth != ranks[id(decl)] or (isinstance(outer, c_ast.UnaryOp) and outer.op == "&"):
                out[id(decl)] = where(n)  # a row (A[i] of a 2-D array) or an element's address
            continue
        if isinstance(p, c_ast.UnaryOp) and p.op in ("sizeof", "_Alignof"):
            continue
        out[id(decl)] = where(n)
    return out


def _walk_with_parents(root: c_ast.Node, parents: dict[int, c_ast.Node]) -> Iterator[c_ast.Node]:
    stack = [root]
    while stack:
        n = stack.pop()
        yield n
        for c in child_nodes(n):
            parents[id(c)] = n
            stack.append(c)
