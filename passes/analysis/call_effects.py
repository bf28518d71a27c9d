"""The effects of calls and of writes through pointers.

* :class:`CallTranslator`: at a call site, the callee's ``summary_effects``
  translated to the actual arguments, the pure, FFTW-plan and unknown-function
  models, and the recursion fallback (:func:`recursive_summary`);
* :class:`PointsTo`: flow-insensitive targets of the pointers of a function,
  so that a write through a local pointer also writes what it may point to;
* :func:`bottom_up`: computes an interprocedural resource callees first,
  iteratively (no deep Python recursion on long call chains);
* ``plan_captures``: the arrays FFTW-like plans capture, over the program.

See :mod:`effects` for the models and the aliasing assumption.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from pycparser import c_ast

from passman import Module, PassFailed, analysis
from passman.astutil import walk
from passman.printer import to_c

from ..cfacts.names import NameTable, resolve_names
from ..cfacts.sideeffects import PURE_LIBM, has_side_effects
from ..cfacts.types import TypeEnv
from .effect_model import (
    Effect,
    FunctionScope,
    anywhere,
    freeze,
    function_scope,
    is_variable,
    param_decls,
    strip_casts,
    stub_info,
    union,
)
from .references import Ref, statement_refs

if TYPE_CHECKING:
    from .effects import ModuleEffects

_ALLOCATORS = frozenset({"malloc", "calloc", "aligned_alloc", "alloca", "valloc", "memalign"})
class PointsTo:
    """Flow-insensitive targets of the pointers of one function.

    A *source* is a region a pointer may point into: ``("pointee", v)``
    (where ``v`` points), ``("reach", v)`` (anywhere reachable from ``v``,
    for a pointer loaded from ``v``'s memory), ``("storage", v)`` (``v``'s
    own storage, ``&v``) or ``("unknown",)``. ``shallow[v]``: what was
    assigned to pointer ``v`` itself; ``deep[v]``: pointers stored into the
    memory of ``v`` (``m[i] = p``, ``s.p = q``, ``&s`` given to a callee).
    """

    def __init__(self, fx: ModuleEffects):
        self.fx = fx
        scope = fx.scope
        self.decls: dict[str, object] = {}
        self.shallow: dict[str, set[tuple]] = {}
        self.deep: dict[str, set[tuple]] = {}
        for n in walk(fx.func.body):
            match n:
                case c_ast.Decl(init=init) if init is not None and n.name:
                    if scope.category(n) == "pointer":
                        self._add(self.shallow, n.name, n, self._rhs_sources(init))
                    elif isinstance(init, c_ast.InitList):
                        self._add(self.deep, n.name, n, self._rhs_sources(init))
                case c_ast.Assignment():
                    lhs = strip_casts(n.lvalue)
                    base = base_ident(lhs)
                    if base is None or "pointer" not in (
                        scope.types.expr_category(n.rvalue), scope.types.expr_category(lhs)
                    ):
                        continue
                    table = self.shallow if lhs is base else self.deep
                    self._add(table, base.name, scope.names.decl_of(base), self._rhs_sources(n.rvalue))
                case c_ast.FuncCall(args=c_ast.ExprList()):
                    # a callee given &q, &s or an array of pointers may store any pointer there
                    for a in n.args.exprs:
                        self._escape(a)

    def _escape(self, a: c_ast.Node) -> None:
        scope = self.fx.scope
        a = strip_casts(a)
        if isinstance(a, c_ast.BinaryOp) and a.op in ("+", "-"):
            self._escape(a.left)
            self._escape(a.right)
            return
        if isinstance(a, c_ast.UnaryOp) and a.op == "&":
            lhs = strip_casts(a.expr)
        elif isinstance(a, c_ast.ID) and scope.category(scope.names.decl_of(a)) == "array":
            lhs = a
        else:
            return
        base = base_ident(lhs)
        if base is None or through_pointer(lhs, scope):
            return
        decl = scope.names.decl_of(base)
        if holds_pointers(decl, scope.types):
            self._add(self.shallow if lhs is base else self.deep, base.name, decl, [("unknown",)])
            self._add(self.deep, base.name, decl, [("unknown",)])

    def _add(self, table: dict[str, set[tuple]], name: str, decl: object, srcs: Iterable[tuple]) -> None:
        self.decls.setdefault(name, decl)
        got = table.setdefault(name, set())
        got.update(src for src in srcs if src != ("pointee", name))

    def _rhs_sources(self, e: c_ast.Node) -> list[tuple]:
        """The regions a pointer-valued expression may point into."""
        scope = self.fx.scope
        e = strip_casts(e)
        match e:
            case c_ast.Constant():
                return []
            case c_ast.ID():
                d = scope.names.decl_of(e)
                cat = scope.category(d)
                if cat == "array" and scope.kind(d) != "formal":
                    return [("storage", e.name)]
                if cat in ("pointer", "array", "unknown"):
                    return [("pointee", e.name)]
                return []
            case c_ast.UnaryOp(op="&"):
                lv = strip_casts(e.expr)
                base = base_ident(lv)
                if base is None:
                    return [("unknown",)]
                if not is_variable(scope.names.decl_of(base)) and scope.names.decl_of(base) is not None:
                    return []  # &function
                if not through_pointer(lv, scope):
                    return [("storage", base.name)]
                if isinstance(lv, c_ast.ArrayRef) and isinstance(lv.name, c_ast.ID):
                    return [("pointee", base.name)]  # &p[i]
                return [("reach", base.name)]
            case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--"):
                return self._rhs_sources(e.expr)
            case c_ast.BinaryOp(op="+" | "-"):
                return self._rhs_sources(e.left) + self._rhs_sources(e.right)
            case c_ast.TernaryOp():
                return self._rhs_sources(e.iftrue) + self._rhs_sources(e.iffalse)
            case c_ast.Assignment():
                return self._rhs_sources(e.rvalue)
            case c_ast.ExprList():
                return self._rhs_sources(e.exprs[-1]) if e.exprs else []
            case c_ast.FuncCall():
                name = e.name.name if isinstance(e.name, c_ast.ID) else None
                info = stub_info(self.fx.ws, name) if name else None
                if name in _ALLOCATORS or "allocates" in (getattr(info, "model", None) or {}):
                    return []
                if name == "realloc" and e.args and e.args.exprs:
                    return self._rhs_sources(e.args.exprs[0])
                return [("unknown",)]
            case c_ast.ArrayRef() | c_ast.StructRef() | c_ast.UnaryOp(op="*"):
                base = base_ident(e)  # a pointer (or array) designated inside base's memory
                if base is None:
                    return [("unknown",)]
                if scope.types.expr_category(e) == "pointer" and isinstance(
                    scope.types.unalias(scope.types.expr_type(e)), c_ast.ArrayDecl
                ):
                    return self._rhs_sources(c_ast.UnaryOp("&", e))  # an array member decays
                return [("reach", base.name)]
            case c_ast.InitList():
                return [src for x in e.exprs for src in self._rhs_sources(x)
                        if isinstance(x, c_ast.InitList) or scope.types.expr_category(x) == "pointer"]
        return [("unknown",)]

    def regions(self, var: str, shallow: bool) -> set[tuple]:
        """The regions the memory behind ``var`` may alias (besides ``var``'s own pointee)."""
        start = (var, "shallow" if shallow else "full")
        seen = {start}
        todo = [start]
        out: set[tuple] = set()
        while todo:
            v, mode = todo.pop()
            srcs = set(self.shallow.get(v, ()))
            if mode == "full":
                srcs |= self.deep.get(v, set())
            for src in srcs:
                if src[0] == "unknown":
                    out.add(src)
                    continue
                kind, name = src
                out.add(("storage" if kind == "storage" else "pointee", name))
                nxt = [(name, "full")] if kind in ("reach", "storage") else [(name, mode)]
                if kind == "storage" and mode == "shallow":
                    nxt = []  # the storage itself, not what it holds
                for state in nxt:
                    if state not in seen:
                        seen.add(state)
                        todo.append(state)
        out.discard(("pointee", var))
        return out

    def expand(self, effects: list[Effect]) -> list[Effect]:
        """Add, for each effect through a pointer, MAY effects on what it may point to."""
        if not self.shallow and not self.deep:
            return effects
        out = list(effects)
        for e in effects:
            if not e.pointee or (e.var not in self.shallow and e.var not in self.deep):
                continue
            for src in self.regions(e.var, e.shallow):
                if src[0] == "unknown":
                    out.append(anywhere(e.action))
                else:
                    out.append(self.fx.whole(src[1], self._decl(src[1]), e.action, src[0] == "pointee"))
        return out

    def _decl(self, name: str) -> object | None:
        d = self.decls.get(name)
        if d is not None:
            return d
        for decl in self.fx.scope.names.decls:
            if getattr(decl, "name", None) == name:
                return decl
        for p in param_decls(self.fx.func):
            if p.name == name:
                return p
        return self.fx.ws.resource("unit_scope", self.fx.module).names.get(name)


def holds_pointers(decl: object, types: TypeEnv) -> bool:
    """Whether a variable's own storage may hold pointers (a pointer, a struct, arrays of them)."""
    if not isinstance(decl, c_ast.Decl):
        return True
    t = types.unalias(decl.type)
    while isinstance(t, c_ast.ArrayDecl):
        t = types.unalias(t.type)
    return types.category(t) in ("pointer", "struct", "unknown")


def base_ident(e: c_ast.Node) -> c_ast.ID | None:
    """The variable an lvalue or address expression is based on (``s`` in ``s->a[i].x``)."""
    while True:
        match e:
            case c_ast.ID():
                return e
            case c_ast.ArrayRef():
                e = e.name
            case c_ast.StructRef():
                e = e.name
            case c_ast.UnaryOp(op="*" | "&" | "++" | "--" | "p++" | "p--"):
                e = e.expr
            case c_ast.Cast():
                e = e.expr
            case c_ast.BinaryOp(op="+" | "-"):
                left = base_ident(e.left)
                return left if left is not None else base_ident(e.right)
            case _:
                return None


def through_pointer(e: c_ast.Node, scope: FunctionScope) -> bool:
    """Whether lvalue ``e`` designates memory reached through a pointer value."""
    match e:
        case c_ast.ID():
            return False
        case c_ast.ArrayRef():
            base = e.name
            if isinstance(base, c_ast.ID):
                d = scope.names.decl_of(base)
                return scope.category(d) == "pointer" or scope.kind(d) == "formal"
            return through_pointer(base, scope) or scope.types.expr_category(base) == "pointer"
        case c_ast.StructRef():
            return e.type == "->" or through_pointer(e.name, scope)
        case c_ast.Cast():
            return through_pointer(e.expr, scope)
    return True


# ------------------------------------------------------------------ calls


class CallTranslator:
    """The effects of one call site, from the callee's model."""

    def __init__(self, fx: ModuleEffects, call: c_ast.FuncCall):
        self.fx = fx
        self.call = call
        self.ws = fx.ws
        self.args = list(call.args.exprs) if call.args is not None else []

    def effects(self) -> list[Effect]:
        call, ws, scope = self.call, self.ws, self.fx.scope
        if not isinstance(call.name, c_ast.ID) or is_variable(scope.names.decl_of(call.name)):
            what = to_c(call.name)
            self._warn(f"call through function pointer '{what}'")
            return self.unknown()
        name = call.name.name
        info = stub_info(ws, name)
        if info is not None and getattr(info, "pure", False):
            return []
        callee = ws.callee(name)
        if callee is None and name in PURE_LIBM:
            return []
        model = getattr(info, "model", None) or {}
        if "executes_plan" in model:
            plan = self.plan_effects(model["executes_plan"])
            if plan is not None:
                return plan
        if callee is None:
            self._warn(f"no model for function '{name}'", name)
            return self.unknown()
        try:
            summary = ws.resource("summary_effects", callee)
        except PassFailed as err:
            if "recursive dependence" not in str(err):
                raise
            summary = recursive_summary(callee)
        out = self.translate(summary, callee)
        varargs = model.get("varargs")
        if varargs in ("read", "write"):
            out += self.variadic(callee, varargs)
        return out

    def variadic(self, callee: Module, mode: str) -> list[Effect]:
        """Effects through the pointer arguments of the variadic part (``scanf``: written)."""
        out = []
        actions = ("read", "write") if mode == "write" else ("read",)
        for a in self.args[len(param_decls(callee.ast)):]:
            for var, decl, pointee in self._reachable(a):
                if mode == "write" and not pointee and isinstance(strip_casts(a), c_ast.UnaryOp):
                    r = self._cell(a)
                    if r is not None:  # scanf("%d", &x): x itself
                        out.append(self.fx.effect_of_ref(dataclasses.replace(r, mode="write"), "may"))
                        continue
                out.extend(self.fx.whole(var, decl, act, pointee) for act in actions)
        return out

    def _cell(self, a: c_ast.Node) -> Ref | None:
        """The reference ``&x`` or ``&A[i]`` designates (None for other expressions)."""
        a = strip_casts(a)
        if not (isinstance(a, c_ast.UnaryOp) and a.op == "&") or has_side_effects(a.expr):
            return None
        refs = statement_refs(c_ast.ExprList([a.expr]), self.fx.scope.names, self.fx.scope.types)
        target = [r for r in refs if r.node is a.expr]
        return target[0] if target else None

    def _warn(self, what: str, name: str | None = None) -> None:
        ws = self.ws
        if name is not None and name in getattr(ws, "unknown_functions", {}):
            return  # the broker warned at the first call site
        if any(f": {what};" in w for w in ws.warnings):
            return
        c = self.call.coord
        where = f"{c.file}:{c.line}:{c.column}" if c is not None else "<unknown>"
        ws.warn(f"{where}: warning: {what}; assuming it reads and writes everything reachable "
                "from its arguments and globals")

    # -- the conservative model ----------------------------------------------------------
    def unknown(self) -> list[Effect]:
        out = [anywhere("read"), anywhere("write")]
        for a in self.args:
            for var, decl, pointee in self._reachable(a):
                for action in ("read", "write"):
                    out.append(self.fx.whole(var, decl, action, pointee))
        return out

    def _reachable(self, a: c_ast.Node) -> list[tuple[str, object, bool]]:
        """Variables whose memory a pointer argument reaches: ``(name, decl, through_pointer)``."""
        scope = self.fx.scope
        if scope.types.expr_category(a) not in ("pointer", "unknown"):
            return []
        out = []
        for src in self.fx.aliases._rhs_sources(a):
            if src[0] == "unknown":
                continue
            d = self.fx.aliases._decl(src[1])
            out.append((src[1], d, src[0] == "pointee"))
        return out

    # -- translation of a summary ------------------------------------------------------------
    def translate(self, summary: Iterable[Effect], callee: Module) -> list[Effect]:
        params = [p.name for p in param_decls(callee.ast)]
        out: list[Effect] = []
        for e in summary:
            if e.kind == "anywhere":
                out.append(e)
            elif e.kind == "global":
                out.append(_callee_global(e))
            elif e.kind == "formal" and e.pointee and e.var in params:
                k = params.index(e.var)
                if k < len(self.args):
                    out.extend(self.actual(self.args[k], e))
        return out

    def actual(self, a: c_ast.Node, e: Effect) -> list[Effect]:
        """The callee effect ``e`` through a formal, on the actual argument ``a``."""
        fx = self.fx
        a = strip_casts(a)
        if e.subscripts is not None and all(s == "0" for s in e.subscripts):
            r = self._cell(a)
            if r is not None:  # *acc with &x or &A[i]: that very cell
                return [fx.effect_of_ref(dataclasses.replace(r, mode=e.action), e.approx)]
        out = [fx.whole(var, decl, e.action, pointee) for var, decl, pointee in self._reachable(a)]
        if any(src[0] == "unknown" for src in fx.aliases._rhs_sources(a)):
            out.append(anywhere(e.action))
        return out

    # -- FFTW-like plans ---------------------------------------------------------------------
    def plan_effects(self, index: int) -> list[Effect] | None:
        if index >= len(self.args):
            return None
        plan = self.args[index]
        while isinstance(plan, c_ast.Cast):
            plan = plan.expr
        if not isinstance(plan, c_ast.ID):
            return None
        scope = self.fx.scope
        decl = scope.names.decl_of(plan)
        kind = scope.kind(decl)
        owner = "" if kind == "global" else self.fx.module.name
        table = self.ws.resource("plan_captures", self.ws)
        entry = table.get((owner, plan.name))
        if entry is None:
            return None
        out = []
        for action, captured in (("read", entry[0]), ("write", entry[1])):
            for var, vkind, func in captured:
                if vkind != "global" and func != self.fx.module.name:
                    return None  # captured a local of another function: cannot name it here
                d = self.fx.aliases._decl(var)
                pointee = vkind == "formal" or scope.category(d) == "pointer"
                out.append(self.fx.whole(var, d, action, pointee))
        return out


def _callee_global(e: Effect) -> Effect:
    """A callee's effect on a global, seen from a caller: subscripts naming callee variables become ``*``."""
    if e.subscripts is None:
        return e
    idx = e.index_vars or tuple(frozenset({"?"}) for _ in e.subscripts)
    subs = tuple(s if not names else "*" for s, names in zip(e.subscripts, idx))
    if subs == e.subscripts:
        return e
    return e.replace(subscripts=subs, approx="may", index_vars=tuple(frozenset() for _ in subs))


def recursive_summary(callee: Module) -> tuple[Effect, ...]:
    """A conservative summary for a callee on a call-graph cycle.

    Reads and writes (MAY) of the callee's pointer and array formals, of
    every global named in the functions it reaches, and of
    :data:`ANYWHERE` if one of them calls an unknown function or a
    function pointer.
    """
    ws = callee.ws
    out: list[Effect] = []
    types = TypeEnv(NameTable())
    types.typedefs = dict(ws.resource("unit_scope", callee).typedefs)
    for p in param_decls(callee.ast):
        if types.category(p.type) in ("pointer", "array", "unknown"):
            for action in ("read", "write"):
                out.append(Effect(p.name, action, "may", ("*",), True, "formal", None, (frozenset(),)))
    seen = {callee.name}
    todo = [callee]
    unknown = False
    while todo:
        m = todo.pop()
        unit = ws.resource("unit_scope", m)
        names = resolve_names(m.ast, unit.names)
        for n in walk(m.ast.body):
            if isinstance(n, c_ast.ID):
                d = names.decl_of(n)
                if is_variable(d) and not names.is_local(d):
                    for action in ("read", "write"):
                        out.append(Effect(n.name, action, "may", None, False, "global"))
                        if isinstance(d.type, (c_ast.PtrDecl, c_ast.ArrayDecl)):
                            out.append(Effect(n.name, action, "may", ("*",), isinstance(d.type, c_ast.PtrDecl),
                                              "global", None, (frozenset(),)))
            elif isinstance(n, c_ast.FuncCall):
                if not isinstance(n.name, c_ast.ID) or is_variable(names.decl_of(n.name)):
                    unknown = True
                    continue
                info = stub_info(ws, n.name.name)
                if info is not None and getattr(info, "pure", False):
                    continue
                nxt = ws.callee(n.name.name)
                if nxt is None:
                    unknown = unknown or n.name.name not in PURE_LIBM
                elif nxt.name not in seen:
                    seen.add(nxt.name)
                    todo.append(nxt)
    if unknown:
        out += [anywhere("read"), anywhere("write")]
    return freeze(union(out).values())


# ------------------------------------------------------------------ resources


def bottom_up(module: Module, resource: str) -> None:
    """Compute ``resource`` for every function ``module`` reaches, callees first.

    Interprocedural analyses call this before their own work, so that a long
    chain of calls is walked iteratively rather than by nested requests (no
    deep Python recursion). A function on a call-graph cycle is left to the
    recursion fallback of the analysis.
    """
    ws = module.ws
    order: list[Module] = []
    seen = {module.name}
    stack = [(module, iter(_callee_names(module)))]
    while stack:
        m, it = stack[-1]
        for name in it:
            if name in seen:
                continue
            seen.add(name)
            info = stub_info(ws, name)
            callee = None if info is not None and getattr(info, "pure", False) else ws.callee(name)
            if callee is not None and not _cached(ws, resource, callee):
                stack.append((callee, iter(_callee_names(callee))))
                break
        else:
            stack.pop()
            if m is not module:
                order.append(m)
    for m in order:
        try:
            ws.resource(resource, m)
        except PassFailed as err:
            if "recursive dependence" not in str(err):
                raise


def _cached(ws, resource: str, module: Module) -> bool:
    """Whether ``resource`` of ``module`` is cached and valid (then so is everything below it)."""
    return ws.is_cached(resource, module)


def _callee_names(module: Module) -> list[str]:
    return list(dict.fromkeys(
        n.name.name for n in walk(module.ast.body) if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)
    ))


@analysis(scope="program", provides="plan_captures")
def plan_captures(ws) -> Mapping[tuple[str, str], tuple[tuple, tuple]]:
    """Arrays captured by FFTW-like plans, flow-insensitively over the program.

    ``{(function or "" for a global, plan variable): (inputs, outputs)}``, each
    a tuple of ``(variable, kind, function)``; from the calls whose stub
    metadata has ``model["captures"] = {"in": k, "out": l}``.
    """
    table: dict[tuple[str, str], tuple[set, set]] = {}
    if getattr(ws, "stub_info", None) is None:
        return MappingProxyType({})
    for m in ws.all_functions:
        creations = [c for c in walk(m.ast.body) if isinstance(c, c_ast.FuncCall) and isinstance(c.name, c_ast.ID)
                     and "captures" in (getattr(stub_info(ws, c.name.name), "model", None) or {})]
        if not creations:
            continue
        scope = function_scope(m)
        targets: dict[int, c_ast.Node] = {}
        for n in walk(m.ast.body):
            if isinstance(n, c_ast.Assignment) and n.op == "=":
                targets[id(strip_casts(n.rvalue))] = n.lvalue
            elif isinstance(n, c_ast.Decl) and n.init is not None:
                targets[id(strip_casts(n.init))] = c_ast.ID(n.name)
        for c in creations:
            lhs = targets.get(id(c))
            if not isinstance(lhs, c_ast.ID):
                continue
            decl = scope.names.decl_of(lhs) if id(lhs) in scope.names.binding else _find_decl(scope, lhs.name)
            kind = scope.kind(decl)
            key = ("" if kind == "global" else m.name, lhs.name)
            ins, outs = table.setdefault(key, (set(), set()))
            cap = stub_info(ws, c.name.name).model["captures"]
            args = list(c.args.exprs) if c.args else []
            for which, acc in (("in", ins), ("out", outs)):
                k = cap.get(which)
                if isinstance(k, int) and k < len(args):
                    base = base_ident(args[k])
                    if base is not None:
                        d = scope.names.decl_of(base)
                        acc.add((base.name, scope.kind(d), m.name))
    return MappingProxyType({k: (tuple(sorted(a)), tuple(sorted(b))) for k, (a, b) in table.items()})


def _find_decl(scope: FunctionScope, name: str) -> object | None:
    for d in scope.names.decls:
        if getattr(d, "name", None) == name:
            return d
    return None
