"""Array linearization: ``linearize_array`` (Amini 2012 §4.9, PIPS ``linearize_array``).

OpenCL forbids multi-dimensional array parameters and CUDA rejects C99 VLA
parameters, so kernels take flat pointers with linear subscripts. The pass
rewrites the multi-dimensional array parameters of a function (and, on
request, its local arrays) into pointers (flat arrays), every subscript into
its linear form, every declaration of the function in every unit, and every
call site. A function the linearized array is passed to is linearized too
(its parameter), transitively; callers that pass an array get a cast (or,
with ``callers``, their own array parameter is linearized in turn).

Prototypes in the user's headers are rewritten in a copy of the header that
the units then name (:class:`_Headers`), since saving copies headers as they
are. Linear subscripts with a parametric size (``i * m``) are not affine:
the polyhedral analyses see whole-array MAY accesses there; constant inner
sizes (``i * 64 + j``) stay affine and exact.
"""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast

from passman import InvalidInput, Module, PassFailed, transformation
from passman.astutil import (
    called_names,
    copy_node,
    find_all,
    func_name,
    parent_map,
    replace_child,
    walk,
)
from passman.printer import to_c

from ..cfacts.folding import int_value
from ..cfacts.names import NameTable, file_scope, resolve_names, where
from ..cfacts.sideeffects import has_side_effects, writes
from ..cfacts.types import TypeEnv

__all__ = ["array_dims", "linear_subscript", "linearize_array"]


# ------------------------------------------------------------------ shapes


def _levels(t: c_ast.Node) -> tuple[list[c_ast.Node], c_ast.Node]:
    """Syntactic array levels of a declared type (a leading pointer counts) and the element type."""
    levels = []
    first = True
    while isinstance(t, c_ast.ArrayDecl) or (first and isinstance(t, c_ast.PtrDecl)):
        levels.append(t)
        t = t.type
        first = False
    return levels, t


def array_dims(t: c_ast.Node) -> list[c_ast.Node | None] | None:
    """Dimensions of a declared multi-dimensional array type, None if not one.

    ``T A[n][m]`` gives ``[n, m]``, ``T (*A)[m]`` gives ``[None, m]``; the levels
    are syntactic (an element type that is a typedef of an array stays an element).
    """
    levels, elem = _levels(t)
    if len(levels) < 2 or not isinstance(elem, c_ast.TypeDecl):
        return None
    return [lv.dim if isinstance(lv, c_ast.ArrayDecl) else None for lv in levels]


def _element_rank(env: TypeEnv, t: c_ast.Node) -> int:
    """Array levels of the element type of a declared array (a typedef of an array: ``fftw_complex``)."""
    _, elem = _levels(t)
    rank, e = 0, env.unalias(elem)
    while isinstance(e, c_ast.ArrayDecl):
        rank, e = rank + 1, env.unalias(e.type)
    return rank


def _flat_type(t: c_ast.Node) -> c_ast.Node:
    """``T A[n][m]`` / ``T (*A)[m]`` as ``T *A``: qualifiers of the outer level and the element kept."""
    levels, elem = _levels(t)
    outer = levels[0]
    quals = list(outer.dim_quals or []) if isinstance(outer, c_ast.ArrayDecl) else list(outer.quals)
    quals = [q for q in quals if q != "static"]  # T A[static n][m]: no such pointer qualifier
    return c_ast.PtrDecl(quals, copy_node(elem), t.coord)


def _flat_local_type(t: c_ast.Node, dims: list[c_ast.Node]) -> c_ast.Node:
    """``T A[n][m]`` as ``T A[n * m]``."""
    levels, elem = _levels(t)
    size = copy_node(dims[0])
    for d in dims[1:]:
        size = _mul(size, copy_node(d))
    return c_ast.ArrayDecl(copy_node(elem), size, list(levels[0].dim_quals or []), t.coord)


def _arg_shape(e: c_ast.Node, env: TypeEnv) -> tuple[str, int, c_ast.Node | None]:
    """How an argument looks to a linearized parameter.

    ``("array", rank, element TypeDecl)`` for an array of arrays or a pointer to
    arrays (the argument gets a cast), ``("flat", 1, None)`` for a pointer to
    void or to an element, ``("unknown", 0, None)`` otherwise.
    """
    if isinstance(e, c_ast.BinaryOp) and e.op in "+-":  # X + k: a row further
        shape = _arg_shape(e.left, env)
        if e.op == "+" and shape[0] != "array":
            shape = _arg_shape(e.right, env)
        return shape if shape[0] == "array" else ("unknown", 0, None)
    extra = 0
    while isinstance(e, c_ast.UnaryOp) and e.op == "&":
        e, extra = e.expr, extra + 1
    if extra > 1:
        return "unknown", 0, None
    t = env.unalias(env.expr_type(e))
    if t is None:
        return "unknown", 0, None
    rank, first = extra, True
    while isinstance(t, c_ast.ArrayDecl) or (first and not extra and isinstance(t, c_ast.PtrDecl)):
        rank, first = rank + 1, False
        # a typedef'd row is one more level; a typedef'd element keeps its name
        inner = env.unalias(t.type)
        t = inner if isinstance(inner, (c_ast.ArrayDecl, c_ast.PtrDecl)) else t.type
    if not isinstance(t, c_ast.TypeDecl):
        return "unknown", 0, None
    return ("array" if rank >= 2 else "flat"), rank, t


def _element_pointer(elem: c_ast.TypeDecl) -> c_ast.Typename:
    td = copy_node(elem)
    td.declname = None
    return c_ast.Typename(None, [], None, c_ast.PtrDecl([], td))


def _mul(a: c_ast.Node, b: c_ast.Node) -> c_ast.Node:
    x, y = int_value(a), int_value(b)
    if x == 0 or y == 0:
        return c_ast.Constant("int", "0")
    if x is not None and y is not None and abs(x * y) < 2**31:
        return c_ast.Constant("int", str(x * y))
    if x == 1:
        return b
    if y == 1:
        return a
    return c_ast.BinaryOp("*", a, b)


def _add(a: c_ast.Node, b: c_ast.Node) -> c_ast.Node:
    if isinstance(b, c_ast.BinaryOp) and b.op in "+-" and int_value(b.right) is not None:
        return c_ast.BinaryOp(b.op, _add(a, b.left), b.right)  # i * m + j - 1, not i * m + (j - 1)
    x, y = int_value(a), int_value(b)
    if x == 0:
        return b
    if y == 0:
        return a
    if x is not None and y is not None and abs(x + y) < 2**31:
        return c_ast.Constant("int", str(x + y))
    return c_ast.BinaryOp("+", a, b)


def linear_subscript(subs: list[c_ast.Node], dims: list[c_ast.Node | None]) -> c_ast.Node:
    """``((s1 * d2 + s2) * d3 + s3) ...``: the flat offset of ``A[s1]...[sk]`` (start of a sub-array when k < n)."""
    e = subs[0]
    for k in range(1, len(dims)):
        e = _mul(e, copy_node(dims[k]))
        if k < len(subs):
            e = _add(e, subs[k])
    return e


# ------------------------------------------------------------------ planning


@dataclass
class _Array:
    """One array being linearized in one function."""

    decl: c_ast.Decl
    dims: list[c_ast.Node | None]
    position: int | None  # parameter rank; None for a local array


@dataclass
class _Chain:
    """A use of a linearized array: ``A``, ``A[i]``, ``A[i][j]`` (``top`` is the outermost node)."""

    array: _Array
    top: c_ast.Node
    subs: list[c_ast.Node]


@dataclass
class _FunctionPlan:
    """What changes in one function."""

    arrays: list[_Array] = field(default_factory=list)
    chains: list[_Chain] = field(default_factory=list)
    sizeofs: list[_Chain] = field(default_factory=list)
    casts: list[tuple[c_ast.ExprList, c_ast.Node, c_ast.Node]] = field(default_factory=list)


def _local_arrays(fd: c_ast.FuncDef) -> list[c_ast.Decl]:
    """The multi-dimensional arrays declared in the blocks of a function (not ``extern``)."""
    out = []
    for block in find_all(fd.body, (c_ast.Compound, c_ast.DeclList)):
        items = block.block_items if isinstance(block, c_ast.Compound) else block.decls
        for d in items or []:
            if isinstance(d, c_ast.Decl) and isinstance(d.type, c_ast.ArrayDecl):
                if array_dims(d.type) is not None and "extern" not in (d.storage or []):
                    out.append(d)
    return out


def _params(fd: c_ast.FuncDef) -> list[c_ast.Node]:
    args = fd.decl.type.args
    return list(args.params) if args else []


def _is_void(elem: c_ast.TypeDecl) -> bool:
    return isinstance(elem.type, c_ast.IdentifierType) and elem.type.names == ["void"]


def _show(n: c_ast.Node) -> str:
    text = to_c(n).strip().rstrip(";")
    return text if len(text) < 60 else text[:57] + "..."


# ------------------------------------------------------------------ the whole program


def _uses_outside_calls(root: c_ast.Node, fname: str) -> c_ast.ID | None:
    """An identifier naming function ``fname`` other than as the callee of a call."""
    callees = {id(n.name) for n in walk(root) if isinstance(n, c_ast.FuncCall)}
    for n in walk(root):
        if isinstance(n, c_ast.ID) and n.name == fname and id(n) not in callees:
            return n
    return None


def _is_prototype(n: c_ast.Node, fname: str) -> bool:
    return isinstance(n, c_ast.Decl) and n.name == fname and isinstance(n.type, c_ast.FuncDecl)


class _Linearizer:
    """The fix point over callees (and callers), the checks on every unit, then the rewrites."""

    def __init__(self, module: Module, arrays: str, locals_: bool, callers: bool):
        self.ws = module.ws
        self.module = module
        self.up = callers
        #: function name -> parameter positions to linearize
        self.positions: dict[str, set[int]] = {}
        #: indexes (in _local_arrays order) of the module's local arrays to linearize
        self.locals: set[int] = set()
        self.headers = _Headers(module.ws)
        self._select(module, arrays, locals_)

    # -- the arrays
    def _select(self, module: Module, arrays: str, locals_: bool) -> None:
        fd = module.ast
        fail = f"{where(fd.decl)}: cannot linearize arrays of {module.name}"
        if module.is_stub:
            raise PassFailed(f"{fail}: it is a library stub")
        names = [a.strip() for a in arrays.split(",") if a.strip()]
        params = _params(fd)
        chosen: set[int] = set()
        for k, p in enumerate(params):
            if isinstance(p, c_ast.Decl) and array_dims(p.type) is not None:
                if not names or p.name in names:
                    chosen.add(k)
        for k, d in enumerate(_local_arrays(fd) if locals_ else []):
            if names and d.name not in names:
                continue
            if d.init is not None:
                raise PassFailed(
                    f"{where(d)}: cannot linearize {d.name} in {module.name}: it has an initializer"
                )
            self.locals.add(k)
        declared = {p.name for p in params if isinstance(p, c_ast.Decl)}
        declared |= {d.name for d in find_all(fd.body, c_ast.Decl)}
        for n in names:
            if n not in declared:
                raise InvalidInput(f"error: linearize_array: {module.name} has no array '{n}'")
        if not chosen and not self.locals:
            what = "no multi-dimensional array parameter"
            if names:
                what = f"{', '.join(names)}: not a multi-dimensional array parameter"
                what += "" if locals_ else " (locals=True for local arrays)"
            raise PassFailed(f"{fail}: {what}, nothing to linearize")
        if chosen and module.name == "main":
            raise PassFailed(f"{fail}: main is called by the system")
        self.positions[module.name] = chosen

    def arrays_of(self, name: str, fd: c_ast.FuncDef) -> list[_Array]:
        out = []
        params = _params(fd)
        for k in sorted(self.positions.get(name, ())):
            p = params[k]
            out.append(_Array(p, array_dims(p.type), k))
        if name == self.module.name:
            decls = _local_arrays(fd)
            out += [_Array(decls[k], array_dims(decls[k].type), None) for k in sorted(self.locals)]
        return out

    # -- one function
    def plan(self, name: str) -> _FunctionPlan:
        """Check one function and list its rewrites; may add parameters of callees to linearize."""
        fd = self.ws[name].ast
        cu = self.ws[name].cu
        table = resolve_names(fd, file_scope(cu.ast.ext))
        env = TypeEnv(table, cu.ast.ext, fd)
        plan = _FunctionPlan(self.arrays_of(name, fd))
        if fd.param_decls and plan.arrays:
            raise PassFailed(
                f"{where(fd.decl)}: cannot linearize arrays of {name}: K&R-style definition"
            )
        by_decl = {id(a.decl): a for a in plan.arrays}
        for a in plan.arrays:
            self._check_dims(name, fd, table, a)
        parents = parent_map(fd)
        element_ranks = {id(a.decl): _element_rank(env, a.decl.type) for a in plan.arrays}
        for ident in find_all(fd.body, c_ast.ID):
            a = by_decl.get(id(table.decl_of(ident)))
            if a is not None:
                self._use(name, plan, a, ident, parents, table, element_ranks[id(a.decl)])
        for call in find_all(fd.body, c_ast.FuncCall):
            self._call(name, plan, call, table, env)
        return plan

    def _check_dims(self, name: str, fd: c_ast.FuncDef, table: NameTable, a: _Array) -> None:
        fail = f"{where(a.decl)}: cannot linearize {a.decl.name} in {name}"
        written = {id(table.decl_of(w.base)) for w in writes(fd.body) if w.base is not None}
        local_decls = find_all(fd.body, c_ast.Decl)
        for d in a.dims[1:]:
            if d is None or has_side_effects(d):
                raise PassFailed(f"{fail}: its dimensions are not plain expressions")
            for v in find_all(d, c_ast.ID):
                decl = table.decl_of(v)
                if isinstance(decl, c_ast.Enumerator):
                    continue
                if not isinstance(decl, c_ast.Decl) or not table.is_local(decl):
                    raise PassFailed(f"{fail}: its size uses the global {v.name}, which may change")
                if id(decl) in written:
                    raise PassFailed(
                        f"{fail}: {v.name}, a dimension of {a.decl.name}, is modified in {name}"
                    )
                if any(x.name == v.name and x is not decl for x in local_decls):
                    raise PassFailed(
                        f"{fail}: a local {v.name} hides the dimension {v.name} of {a.decl.name}"
                    )

    def _use(
        self, name: str, plan: _FunctionPlan, a: _Array, ident: c_ast.ID, parents, table,
        element_rank: int = 0,
    ) -> None:
        n = len(a.dims)
        subs: list[c_ast.Node] = []
        top: c_ast.Node = ident
        parent = parents.get(id(top))
        # the subscripts of the declared levels; those past them index the element, an array
        # itself when its type is a typedef of one (fftw_complex A[n][m]: A[i][j][0] is
        # A[i * m + j][0])
        while isinstance(parent, c_ast.ArrayRef) and parent.name is top and len(subs) < n:
            subs.append(parent.subscript)
            top, parent = parent, parents.get(id(parent))
        extra = 0
        probe = top
        while isinstance(parents.get(id(probe)), c_ast.ArrayRef) and parents[id(probe)].name is probe:
            extra, probe = extra + 1, parents[id(probe)]
        if extra and extra <= element_rank:
            plan.chains.append(_Chain(a, top, subs))
            return
        subs += [None] * extra  # more subscripts than the type has: refused below
        chain = _Chain(a, top, subs)
        k = len(subs)
        fail = f"{where(ident)}: cannot linearize {a.decl.name} in {name}"
        if k > n:
            raise PassFailed(f"{fail}: more subscripts than dimensions")
        if k == n:
            plan.chains.append(chain)
            return
        if isinstance(parent, c_ast.UnaryOp) and parent.op == "sizeof":
            if k == 0:
                return  # sizeof of the parameter (a pointer) or of the whole local array: unchanged
            if any(has_side_effects(s) for s in subs):
                raise PassFailed(f"{fail}: sizeof of a row with side effects in its subscripts")
            plan.sizeofs.append(_Chain(a, parent, subs))
            return
        accept = n - k
        if isinstance(parent, c_ast.UnaryOp) and parent.op == "&" and k > 0:
            accept, top, parent = accept + 1, parent, parents.get(id(parent))
            chain = _Chain(a, top, subs)
        if accept == 1 or isinstance(parent, c_ast.Cast):
            plan.chains.append(chain)  # a pointer to elements, or converted: the same address
            return
        call = parents.get(id(parent)) if isinstance(parent, c_ast.ExprList) else None
        if isinstance(call, c_ast.FuncCall) and call.args is parent:
            pos = next(i for i, x in enumerate(parent.exprs) if x is top)
            callee = self._callee(name, call, pos, table, f"{fail}: passed")
            if callee is None:
                plan.chains.append(chain)  # a void * parameter
                return
            cfd = self.ws[callee].ast
            cparams = _params(cfd)
            p = cparams[pos] if pos < len(cparams) else None
            pdims = array_dims(p.type) if isinstance(p, c_ast.Decl) else None
            if pdims is None or len(pdims) != accept:
                raise PassFailed(
                    f"{fail}: passed to {callee} ({where(call)}) whose parameter "
                    f"{pos + 1} is not a {accept}-D array"
                )
            self.positions.setdefault(callee, set()).add(pos)
            plan.chains.append(chain)
            return
        text = _show(parent) if parent is not None else a.decl.name
        raise PassFailed(
            f"{fail}: `{text}` uses it as a pointer to arrays "
            "(pointer arithmetic, assignment or escape)"
        )

    def _callee(
        self, name: str, call: c_ast.FuncCall, pos: int, table: NameTable, fail: str
    ) -> str | None:
        """The function of the workspace a call passes a multi-dimensional array to.

        None when the array goes to a ``void *`` parameter of a function without a body.
        """
        decl = table.decl_of(call.name) if isinstance(call.name, c_ast.ID) else None
        if decl is None and isinstance(call.name, c_ast.ID) and call.name.name in self.ws:
            decl = self.ws[call.name.name].ast.decl
        if (
            not isinstance(decl, c_ast.Decl)
            or not isinstance(decl.type, c_ast.FuncDecl)
            or table.is_local(decl)
        ):
            raise PassFailed(f"{fail} to a call through a pointer ({where(call)})")
        callee = call.name.name
        if callee in self.ws and not self.ws[callee].is_stub:
            if self.ws[callee].ast.param_decls or pos >= len(_params(self.ws[callee].ast)):
                raise PassFailed(
                    f"{fail} to {callee} ({where(call)}) as a variadic or K&R argument"
                )
            return callee
        args = decl.type.args
        ps = list(args.params) if args else []
        p = ps[pos] if pos < len(ps) else None
        t = p.type if isinstance(p, (c_ast.Decl, c_ast.Typename)) else None
        if isinstance(t, c_ast.PtrDecl) and isinstance(t.type, c_ast.TypeDecl) and _is_void(t.type):
            return None
        raise PassFailed(
            f"{fail} to {callee} ({where(call)}), which has no body here: "
            "its parameter expects the multi-dimensional type"
        )

    def _call(self, name: str, plan: _FunctionPlan, call: c_ast.FuncCall, table, env) -> None:
        """Casts for arguments of arrays (not linearized here) passed to linearized parameters."""
        if not isinstance(call.name, c_ast.ID):
            return
        callee = call.name.name
        if table.is_local(table.decl_of(call.name)) or callee not in self.positions:
            return
        exprs = call.args.exprs if call.args is not None else []
        mine = {id(c.top) for c in plan.chains}
        for pos in sorted(self.positions[callee]):
            if pos >= len(exprs) or id(exprs[pos]) in mine:
                continue
            arg = exprs[pos]
            kind, rank, elem = _arg_shape(arg, env)
            p = _params(self.ws[callee].ast)[pos]
            formals = _params(self.ws[name].ast)
            if self.up and name != "main" and isinstance(arg, c_ast.ID):
                own = [k for k, q in enumerate(formals) if q is table.decl_of(arg)]
                if own and array_dims(formals[own[0]].type) and kind == "array":
                    self.positions.setdefault(name, set()).add(own[0])
                    continue
            if kind == "flat" and elem is not None and rank == 1 and _is_void(elem):
                continue
            own_levels = len(array_dims(p.type) or [])
            element_rank = _element_rank(env, p.type)
            if kind == "array" and element_rank and rank == own_levels + element_rank:
                # fftw_complex A[n][m] passed on: the levels past the parameter's are its element's
                plan.casts.append((call.args, arg, _element_pointer(copy_node(_levels(p.type)[1]))))
                continue
            if kind != "array" or rank != own_levels:
                raise PassFailed(
                    f"{where(call)}: cannot linearize {p.name} of {callee}: the argument "
                    f"`{_show(arg)}` in {name} is not a {len(array_dims(p.type))}-D array"
                )
            plan.casts.append((call.args, arg, _element_pointer(elem)))

    def _callers(self, changed: list[str]) -> set[str]:
        return {
            m.name
            for m in self.ws.all_functions
            if not m.is_stub and set(called_names(m.ast.body)) & set(changed)
        }

    def run(self) -> None:
        """Plan to a fix point, check, then rewrite every function, declaration and header."""
        seen = None
        while seen != {f: frozenset(ps) for f, ps in self.positions.items()}:
            seen = {f: frozenset(ps) for f, ps in self.positions.items()}
            for f in sorted(seen):
                self.plan(f)  # may add parameters of callees to linearize
            if self.up:  # callers passing their own array parameters linearize them
                for f in sorted(self._callers([f for f, ps in seen.items() if ps])):
                    self.plan(f)
        changed = sorted(f for f, ps in self.positions.items() if ps)
        for f in changed:
            self._check_function(f)
        protos = self._prototypes(changed)
        self.headers.prepare()
        touched = sorted(set(changed) | self._callers(changed) | {self.module.name})
        for m in touched:
            if not self.ws[m].cu.is_own(self.ws[m].ast):
                raise PassFailed(
                    f"{where(self.ws[m].ast.decl)}: cannot linearize the parameters of "
                    f"{', '.join(changed)}: {m} would change, but it is defined in a header"
                )
            self.ws[m].edit()
        plans = {m: self.plan(m) for m in touched}
        for m, plan in plans.items():
            _apply(self.ws[m].ast, plan)
        for cu, k, new in protos:
            cu.ast.ext[k] = new
        self.headers.write()

    def _check_function(self, f: str) -> None:
        m = self.ws[f]
        fail = f"{where(m.ast.decl)}: cannot linearize the parameters of {f}"
        if m.is_stub:
            raise PassFailed(f"{fail}: it is a library stub")
        if f == "main":
            raise PassFailed(f"{fail}: main is called by the system")
        for cu in self.ws.compilation_units:
            if cu.is_stub:
                continue
            for node in cu.ast.ext:
                body = node.body if isinstance(node, c_ast.FuncDef) else node
                use = _uses_outside_calls(body, f)
                if use is not None:
                    raise PassFailed(
                        f"{fail}: its address is taken at {where(use)} "
                        "(calls through pointers cannot be adjusted)"
                    )
                if isinstance(node, c_ast.FuncDef):
                    for d in find_all(node.body, c_ast.Decl):
                        if _is_prototype(d, f):
                            raise PassFailed(
                                f"{fail}: it is declared inside {func_name(node)} ({where(d)})"
                            )

    def _prototypes(self, changed: list[str]) -> list[tuple[object, int, c_ast.Decl]]:
        """New file-scope declarations of the changed functions: (unit, index in ext, new Decl)."""
        out = []
        for cu in self.ws.compilation_units:
            if cu.is_stub:
                continue
            for k, node in enumerate(cu.ast.ext):
                if not isinstance(node, c_ast.Decl) or node.name not in changed:
                    continue
                if not isinstance(node.type, c_ast.FuncDecl) or node.type.args is None:
                    continue  # f(): no parameter types to change
                f = node.name
                new = copy_node(node)
                params = _params_of_decl(new)
                rank = {
                    k2: len(array_dims(_params(self.ws[f].ast)[k2].type))
                    for k2 in self.positions[f]
                }
                for pos, r in rank.items():
                    p = params[pos] if pos < len(params) else None
                    levels, _ = _levels(p.type) if p is not None else ([], None)
                    if len(levels) != r:
                        raise PassFailed(
                            f"{where(node)}: cannot linearize the parameters of {f}: "
                            f"this declaration gives parameter {pos + 1} another shape"
                        )
                    p.type = _flat_type(p.type)
                out.append((cu, k, new))
                if not cu.is_own(node):
                    self.headers.plan(node, new, sorted(self.positions[f]))
        return out


class _Headers:
    """Prototypes in the user's headers: the header text is rewritten, parameter by parameter.

    Headers are copied unchanged when the program is saved, so a header that
    declares a linearized function gets a rewritten copy (in a temporary
    folder) that the units name instead of the original. Only the text of the
    linearized parameters changes (macros and comments elsewhere stay); a
    declaration that is not literally ``name(...)`` at its position in the
    header (made by a macro, say) is refused.
    """

    def __init__(self, ws):
        self.ws = ws
        #: header file name -> [(line, column, function, {position: new parameter text})]
        self.edits: dict[str, list[tuple[int, int, str, int, dict[int, str]]]] = {}
        self.texts: dict[str, str] = {}

    def plan(self, old: c_ast.Decl, new: c_ast.Decl, positions: list[int]) -> None:
        name = Path(old.coord.file).name if old.coord and old.coord.file else ""
        params = _params_of_decl(new)
        texts = {k: to_c(params[k]).strip().rstrip(";") for k in positions}
        edit = (old.coord.line, old.coord.column, old.name, len(params), texts)
        if edit not in self.edits.setdefault(name, []):
            self.edits[name].append(edit)

    def _source(self, name: str) -> Path | None:
        for cu in self.ws.compilation_units:
            for h in cu.local_headers:
                if h.name == name:
                    return h
        return None

    def prepare(self) -> None:
        """Compute the new header texts (refuses before anything changed)."""
        for name, edits in self.edits.items():
            src = self._source(name)
            if src is None:
                line, _, f, _, _ = edits[0]
                raise PassFailed(
                    f"{name}:{line}: cannot linearize the parameters of {f}: "
                    f"its prototype is in {name}, a header the program does not copy"
                )
            text = src.read_text()
            for line, col, f, count, texts in sorted(edits, key=lambda e: e[:2], reverse=True):
                text = _rewrite_prototype(text, (line, col), f, count, texts, name)
            self.texts[name] = text

    def write(self) -> None:
        """Point every unit at the rewritten headers."""
        if not self.texts:
            return
        folder = Path(tempfile.mkdtemp(prefix="passman-headers-"))
        # the workspace reads the rewritten headers until it is saved: gone at exit
        atexit.register(shutil.rmtree, folder, True)
        for name, text in self.texts.items():
            (folder / name).write_text(text)
        for cu in self.ws.compilation_units:
            cu.local_headers = [
                folder / h.name if h.name in self.texts else h for h in cu.local_headers
            ]


_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def _rewrite_prototype(
    text: str, at: tuple[int, int], f: str, count: int, texts: dict[int, str], name: str
) -> str:
    """A header's text with parameters ``texts`` of the prototype of ``f`` at ``at`` replaced.

    ``at`` is the (line, column) of the function's name; the prototype has ``count``
    parameters. Line breaks stay where they were, so later positions still hold.
    """
    line, col = at
    fail = f"{name}:{line}: cannot linearize the parameters of {f}: cannot rewrite its prototype"
    scan = _COMMENT.sub(lambda c: re.sub(r"[^\n]", " ", c.group()), text)  # same offsets
    lines = scan.split("\n")
    if not 1 <= line <= len(lines):
        raise PassFailed(fail)
    m = re.compile(re.escape(f) + r"\s*\(").match(
        scan, sum(len(x) + 1 for x in lines[: line - 1]) + col - 1
    )
    if m is None:
        raise PassFailed(f"{fail} (it is not written `{f}(...)` there)")
    depth, k, cuts = 1, m.end(), [m.end()]
    while depth and k < len(scan):
        depth += (scan[k] in "([{") - (scan[k] in ")]}")
        if scan[k] == "," and depth == 1:
            cuts.append(k + 1)
        k += 1
    cuts.append(k)  # one past the closing parenthesis
    if depth or len(cuts) - 1 != count or "#" in scan[cuts[0] : k]:
        raise PassFailed(f"{fail} (a macro or a different parameter list)")
    out = [text[a : b - 1] for a, b in zip(cuts, cuts[1:])]
    for pos, new in texts.items():
        old = scan[cuts[pos] : cuts[pos + 1] - 1]
        lead = out[pos][: len(old) - len(old.lstrip())]  # with its comments
        out[pos] = lead + new + "\n" * (old.count("\n") - lead.count("\n"))
    return text[: cuts[0]] + ",".join(out) + text[k - 1 :]


def _params_of_decl(d: c_ast.Decl) -> list[c_ast.Node]:
    args = d.type.args
    return list(args.params) if args else []


def _apply(fd: c_ast.FuncDef, plan: _FunctionPlan) -> None:
    """Rewrite one function: casts of arguments, subscripts, sizeof, declarations."""
    parents = parent_map(fd)
    for args, arg, typename in plan.casts:
        replace_child(args, arg, c_ast.Cast(typename, arg, arg.coord))
    order = {id(n): k for k, n in enumerate(walk(fd))}
    for ch in sorted(plan.sizeofs, key=lambda c: -order[id(c.top)]):
        a = ch.array
        elem = c_ast.UnaryOp(
            "sizeof", c_ast.ArrayRef(c_ast.ID(a.decl.name), c_ast.Constant("int", "0"))
        )
        e: c_ast.Node = elem
        for d in a.dims[len(ch.subs) :]:
            e = c_ast.BinaryOp("*", e, copy_node(d))
        replace_child(parents[id(ch.top)], ch.top, e)
    for ch in sorted(plan.chains, key=lambda c: -order[id(c.top)]):
        a = ch.array
        base = c_ast.ID(a.decl.name, ch.top.coord)
        if not ch.subs:
            continue  # the whole array, passed to a linearized parameter: it is a flat pointer now
        ref = c_ast.ArrayRef(base, linear_subscript(ch.subs, a.dims), ch.top.coord)
        new = ref if len(ch.subs) == len(a.dims) else c_ast.UnaryOp("&", ref, ch.top.coord)
        replace_child(parents[id(ch.top)], ch.top, new)
    for a in plan.arrays:
        if a.position is not None:
            a.decl.type = _flat_type(a.decl.type)
        else:
            a.decl.type = _flat_local_type(a.decl.type, a.dims)


@transformation(scope="module", preserves=["callgraph"])
def linearize_array(
    module: Module, arrays: str = "", locals: bool = False, callers: bool = False
) -> None:
    """Turn multi-dimensional array parameters into pointers with linear subscripts.

    Before (``ws["mm"].linearize_array()``)::

        void mm(int n, int m, double C[n][m], const double A[restrict n][64])
        {
            C[i][j] += A[i][k];
            row(m, C[i]);
        }
        ... mm(n, m, X, Y);          // double X[N][M]; double (*Y)[64] = malloc(...)

    After::

        void mm(int n, int m, double *C, const double *restrict A)
        {
            C[i * m + j] += A[i * 64 + k];
            row(m, &C[i * m]);
        }
        ... mm(n, m, (double *)X, (double *)Y);

    Every declaration of the function in the program's units changes with it,
    every call passes a pointer to the first element (a cast of the array), a
    3-D ``A[i][j][k]`` becomes ``A[(i * m + j) * p + k]``, a row ``A[i]`` (or
    ``&A[i]``) becomes ``&A[i * m]``, ``sizeof(A[i])`` becomes
    ``sizeof(A[0]) * m``. When the array is passed whole (or a sub-array) to
    another function of the program, that function's parameter is linearized
    too, transitively. ``restrict``, ``const`` and other qualifiers stay. With
    ``locals``, local arrays ``T X[n][m]`` become ``T X[n * m]``. A prototype
    in a user header is rewritten in a copy of the header that the saved
    program uses (only the changed parameters; macros and comments stay).
    Subscripts are computed in the type of the indices and sizes, as written
    (``int`` indices into an array of more than ``INT_MAX`` elements overflow).

    Refused (PassFailed, nothing changed): nothing to linearize (no
    multi-dimensional array left: a fix-point loop ends); the array used other
    than through subscripts, ``sizeof`` or as a call argument (pointer
    arithmetic, assignment, stored in a struct); passed to a call through a
    pointer or to a function without a body (a library stub) unless as
    ``void *``; a dimension that the function modifies, that a local hides,
    or that names a global variable; the function's address taken, a
    block-scope prototype, a header prototype not written ``f(...)`` (made by
    a macro), ``main``; a call passing something that is not an array of the
    parameter's rank (``malloc(...)`` directly, a ``double **``); a local
    array with an initializer.

    Properties:

    - arrays: comma-separated names of the arrays to linearize (default: all, see ``locals``)
    - locals: also linearize the local multi-dimensional arrays (default False: parameters only)
    - callers: linearize a caller's own array parameter passed here, instead of a cast (default False)
    """
    _Linearizer(module, arrays, locals, callers).run()
