"""Affine preconditions: what holds between integer scalars before each statement.

Intraprocedural, after PIPS: a precondition is a set of affine constraints
on the values of the function's integer scalar variables (an isl set of
parameters, one parameter per variable, named as in :class:`FunctionFacts`),
true every time control reaches the statement. Sources of facts: loop
bounds, affine assignments (``k = 2 * i + 1``, ``k++``, ``int j = n - 1``) and
affine branch conditions. Before::

    for (i = 0; i <= n - k; i++)
        kernel(i, n, k, src, dst, m);

After (``module.display("preconditions")``)::

    // P: {0<=i, i<=n-k}
    kernel(i, n, k, src, dst, m);

Soundness over precision: a loop forgets every variable its body, header
or condition modify (the invariant ``i >= lb``, the stride and the
condition are then added back); a non-affine assignment, a write through a
pointer or a call forgets what it may modify (address-taken variables, and
globals at calls to functions that are not pure); a ``goto`` target knows
only the variables the function never modifies. Unions of branch states
are coalesced, and hulled past a few pieces. The entry precondition is the
universe (unsigned variables non-negative).

Regions (:mod:`.regions`) intersect their sets with these to stay precise
at call sites (the FIR example's ``0<=i<=n-k``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import islpy as isl
from pycparser import c_ast

from passman import Module, analysis
from passman.deadline import function_budget
from passman.lazy import LazyAttribute

from ..analysis.references import CONTROL, statements, substatements
from ..cfacts.loops import for_header
from .affine import AffineBuilder, ctx, params_universe, project_out_params, rename_param
from .facts import function_facts, variable_decl
from .text import set_text

_DT = LazyAttribute("islpy", "dim_type")
_MAX_PIECES = 4
_PRE = "__pre"


@dataclass(frozen=True)
class Preconditions:
    """The value of resource ``preconditions``: a parameter set before each statement."""

    function: str
    table: Mapping[int, tuple[c_ast.Node, isl.Set]]
    names: Mapping[str, str]  # isl name -> C name
    entry: isl.Set

    def at(self, node: c_ast.Node) -> isl.Set:
        """The precondition before a statement (the universe for unknown nodes)."""
        hit = self.table.get(id(node))
        return hit[1] if hit is not None else params_universe()

    def text(self, node: c_ast.Node) -> str:
        """The precondition before a statement in C-like syntax."""
        return set_text(self.at(node))


def _join(a: isl.Set, b: isl.Set) -> isl.Set:
    u = a.union(b).coalesce()
    if u.n_basic_set() > _MAX_PIECES:
        u = isl.Set.from_basic_set(u.simple_hull())
    return u


#: seconds the preconditions of one function may take; past them no statement has any (the
#: universe: sound, nothing known), as in a function too costly to analyse (tiled code)
FUNCTION_SECONDS = 4.0


class _TooCostly(Exception):
    """The function's preconditions took longer than they may."""


class _Analysis:
    def __init__(self, module: Module, seconds: float = FUNCTION_SECONDS):
        self.deadline = time.monotonic() + seconds
        self.f = function_facts(module)
        self.table: dict[int, tuple[c_ast.Node, isl.Set]] = {}
        self._modified: dict[int, set[str]] = {}
        self.loop_breaks: list[list[isl.Set]] = []
        f = self.f
        self.function_modified = self.modified(f.func.body)
        self.entry = self._entry()

    def _all_decls(self):
        seen = {}
        for s in statements(self.f.func):
            for r in self.f.refs(s):
                if variable_decl(r.decl):
                    seen[id(r.decl)] = r.decl
        for d in self.f.names.decls:
            if variable_decl(d):
                seen[id(d)] = d
        return list(seen.values())

    def _entry(self) -> isl.Set:
        p = params_universe()
        for d in self.f.params:
            if self.f.is_int_scalar(d) and self.f.category(d) == "unsigned":
                p = p.intersect(self.nonneg(self.f.isl_name(d)))
        return p

    # -- helpers ------------------------------------------------------------------------
    def builder(self, rename: Mapping[str, str] | None = None) -> AffineBuilder:
        f = self.f
        rename = rename or {}

        def lookup(ident: c_ast.ID):
            d = f.names.decl_of(ident)
            if isinstance(d, c_ast.Enumerator):
                v = f.enum_value(d)
                return None if v is None else ("const", v)
            if d is not None and f.is_int_scalar(d):
                n = f.isl_name(d)
                return ("param", rename.get(n, n))
            return None

        return AffineBuilder(isl.Space.set_alloc(ctx(), 0, 0), lookup, f.types)

    def nonneg(self, name: str) -> isl.Set:
        b = self.builder()
        return b.param(name).ge_set(b.const(0)).params()

    def cond(self, e: c_ast.Node | None) -> isl.Set | None:
        c = self.builder().cond(e) if e is not None else None
        return None if c is None else c.params()

    def modified(self, root: c_ast.Node) -> set[str]:
        """isl names of the integer scalars a statement (and what it nests) may modify."""
        return set(self.f.int_writes(root))

    @staticmethod
    def forget(p: isl.Set, names) -> isl.Set:
        return project_out_params(p, names)

    def assign(self, p: isl.Set, name: str, expr: c_ast.Node | None, op: str = "=") -> isl.Set:
        """``name op expr`` (``=``, ``+=``, ``-=``) as a transfer on ``p``."""
        if expr is None:
            return self.forget(p, [name])
        b = self.builder({name: _PRE})
        e = b.expr(expr)
        if e is None:
            return self.forget(p, [name])
        if op in ("+=", "-="):
            old = b.param(_PRE)
            e = old.add(e) if op == "+=" else old.sub(e)
        elif op != "=":
            return self.forget(p, [name])
        q = rename_param(self.forget(p, [_PRE]), name, _PRE)
        eq = b.param(name).eq_set(e).params()
        return self.forget(q.intersect(eq), [_PRE]).coalesce()

    def record(self, node: c_ast.Node, p: isl.Set) -> None:
        self.table[id(node)] = (node, p)

    # -- statements ----------------------------------------------------------------------
    def block(self, items: list[c_ast.Node], p: isl.Set) -> isl.Set:
        for s in items:
            if s is not None:
                p = self.stmt(s, p)
        return p

    def stmt(self, s: c_ast.Node, p: isl.Set) -> isl.Set:
        if time.monotonic() > self.deadline:
            raise _TooCostly
        f = self.f
        if isinstance(s, c_ast.Label) and s.name in self.f.goto_targets:
            p = self.forget(_join(p, self.entry), self.function_modified)
        self.record(s, p)
        match s:
            case c_ast.Compound():
                items = [x for x in s.block_items or [] if x is not None]
                out = self.block(items, p)
                local = [f.isl_name(d) for d in items if isinstance(d, c_ast.Decl) and variable_decl(d)
                         and not {"static", "extern"} & set(d.storage or [])]
                return self.forget(out, local)
            case c_ast.Label():
                return self.stmt(s.stmt, p)
            case c_ast.If():
                p = self.leaf_effects(s, p)
                c = self.cond(s.cond) if not self.modified_in_cond(s.cond) else None
                pt = p if c is None else p.intersect(c)
                pe = p if c is None else p.subtract(c)
                out = self.stmt(s.iftrue, pt.coalesce()) if s.iftrue is not None else pt
                if s.iffalse is not None:
                    return _join(out, self.stmt(s.iffalse, pe.coalesce()))
                return _join(out, pe)
            case c_ast.For():
                return self.for_loop(s, p)
            case c_ast.While() | c_ast.DoWhile():
                return self.while_loop(s, p)
            case c_ast.Switch():
                p = self.leaf_effects(s, p)
                inv = self.forget(p, self.modified(s.stmt))
                self.loop_breaks.append([])
                for case in substatements(s):
                    self.stmt(case, inv)
                self.loop_breaks.pop()
                return inv
            case c_ast.Case() | c_ast.Default():
                self.block(list(s.stmts or []), p)
                return p
            case c_ast.Break():
                if self.loop_breaks:
                    self.loop_breaks[-1].append(p)
                return isl.Set.empty(p.get_space())
            case c_ast.Continue() | c_ast.Goto() | c_ast.Return():
                if isinstance(s, c_ast.Return):
                    self.leaf_effects(s, p)
                return isl.Set.empty(p.get_space())
        if isinstance(s, CONTROL):
            return p
        return self.leaf(s, p)

    def modified_in_cond(self, e: c_ast.Node | None) -> bool:
        """Whether evaluating an expression (or a statement's proper part) writes or calls."""
        if e is None:
            return False
        from passman.astutil import walk

        return any(isinstance(n, (c_ast.Assignment, c_ast.FuncCall)) or (
            isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--")) for n in walk(e))

    def leaf_effects(self, s: c_ast.Node, p: isl.Set) -> isl.Set:
        """Forget what the proper part of ``s`` may modify (its header or condition)."""
        gone = self.f.int_writes(s, proper=True)
        return self.forget(p, gone) if gone else p

    def leaf(self, s: c_ast.Node, p: isl.Set) -> isl.Set:
        f = self.f
        target, expr, op = None, None, "="
        if isinstance(s, c_ast.Decl) and variable_decl(s) and f.is_int_scalar(s):
            if {"static", "extern"} & set(s.storage or []):
                return self.forget(p, [f.isl_name(s)])  # initialised once, not here
            target, expr = s, s.init
        elif isinstance(s, c_ast.Assignment) and isinstance(s.lvalue, c_ast.ID):
            target, expr, op = f.names.decl_of(s.lvalue), s.rvalue, s.op
        elif isinstance(s, c_ast.UnaryOp) and s.op in ("++", "--", "p++", "p--") and isinstance(s.expr, c_ast.ID):
            target = f.names.decl_of(s.expr)
            expr, op = c_ast.Constant("int", "1"), "+=" if "+" in s.op else "-="
        if target is not None and f.is_int_scalar(target) and id(target) not in f.address_taken:
            name = f.isl_name(target)
            # other side effects first (there are none in the usual case)
            rest = [r for r in f.refs(s) if r.mode == "write" and r.decl is not target]
            if rest or f.calls(s):
                p = self.leaf_effects(s, p)
                return self.forget(p, [name])
            out = self.assign(p, name, expr, op)
            if f.category(target) == "unsigned":
                out = out.intersect(self.nonneg(name))
            return out
        return self.leaf_effects(s, p)

    def for_loop(self, s: c_ast.For, p: isl.Set) -> isl.Set:
        f = self.f
        header = for_header(s, f.names)
        if header is None or not f.is_int_scalar(header[0]) or id(header[0]) in f.address_taken:
            if s.init is not None:
                p = self.leaf_effects(s, p) if not isinstance(s.init, c_ast.DeclList) else self.block(
                    list(s.init.decls), p)
            return self.generic_loop(s, p, s.cond, test_first=True)
        decl, lb, step = header
        name = f.isl_name(decl)
        p0 = self.assign(p, name, lb)
        mod = self.modified(s.stmt) | self.modified_header(s) | {name}
        inv = self.forget(p0, mod)
        b = self.builder()
        lbf = b.expr(lb)
        lb_vars = self.vars_of(lb)
        cond_ok = not (self.vars_of(s.cond) & (mod - {name}))
        if lbf is not None and not (lb_vars & mod):
            i = b.param(name)
            facts = (i.ge_set(lbf) if step > 0 else i.le_set(lbf)).params()
            if abs(step) > 1:
                facts = facts.intersect(i.sub(lbf).mod_val(isl.Val.int_from_si(ctx(), abs(step))).zero_set().params())
            c = self.cond(s.cond) if cond_ok and not self.modified_in_cond(s.cond) else None
            if c is not None:
                # at the loop head: first iteration, or the previous one passed the test
                prev = self.builder({name: _PRE}).cond(s.cond)
                if prev is not None:
                    shifted = b.param(_PRE).eq_set(i.sub(b.const(step))).params()
                    was = self.forget(prev.params().intersect(shifted), [_PRE])
                    first = i.eq_set(lbf).params()
                    facts = facts.intersect(_join(first, was))
            inv = inv.intersect(facts).coalesce()
        c = None if self.modified_in_cond(s.cond) else self.cond(s.cond)
        body_p = inv if c is None else inv.intersect(c).coalesce()
        self.loop_breaks.append([])
        self.stmt(s.stmt, body_p)
        breaks = self.loop_breaks.pop()
        out = inv if c is None else inv.subtract(c).coalesce()
        for bp in breaks:
            out = _join(out, bp)
        return self.forget(out, self.init_decls(s))

    def init_decls(self, s: c_ast.For) -> list[str]:
        """isl names of the variables a ``for`` declares (dead after the loop)."""
        if isinstance(s.init, c_ast.DeclList):
            return [self.f.isl_name(d) for d in s.init.decls if variable_decl(d)]
        return []

    def modified_header(self, s: c_ast.Node) -> set[str]:
        return set(self.f.int_writes(s, proper=True))

    def vars_of(self, e: c_ast.Node | None) -> set[str]:
        if e is None:
            return set()
        from passman.astutil import walk

        out = set()
        for n in walk(e):
            if isinstance(n, c_ast.ID):
                d = self.f.names.decl_of(n)
                if variable_decl(d):
                    out.add(self.f.isl_name(d))
        return out

    def generic_loop(self, s: c_ast.Node, p: isl.Set, cond: c_ast.Node | None, test_first: bool) -> isl.Set:
        mod = self.modified(s.stmt) | self.modified_header(s)
        inv = self.forget(self.leaf_effects(s, p) if not isinstance(s, c_ast.For) else p, mod)
        c = None if cond is None or self.modified_in_cond(cond) else self.cond(cond)
        body_p = inv.intersect(c) if (c is not None and test_first) else inv
        self.loop_breaks.append([])
        self.stmt(s.stmt, body_p.coalesce())
        breaks = self.loop_breaks.pop()
        out = inv.subtract(c) if c is not None else inv
        for bp in breaks:
            out = _join(out, bp)
        if isinstance(s, c_ast.For):
            out = self.forget(out, self.init_decls(s))
        return out.coalesce()

    def while_loop(self, s: c_ast.Node, p: isl.Set) -> isl.Set:
        return self.generic_loop(s, p, s.cond, test_first=isinstance(s, c_ast.While))


def _display(module: Module, value: Preconditions) -> dict:
    out = {}
    for node, p in value.table.values():
        if isinstance(node, (c_ast.Compound, c_ast.Label)):
            continue
        out[node] = [f"P: {set_text(p)}"]
    return out


@analysis(scope="module", provides="preconditions", display=_display, reads=["poly_facts", "summary_effects"])
def preconditions(module: Module) -> Preconditions:
    """Affine constraints on integer scalars before each statement (see the module docstring).

    Before: ``for (i = 0; i < n; i++) a[i] = 0;``
    After:  ``// P: {0<=i<=n-1}`` before ``a[i] = 0;``
    """
    return specialised_preconditions(module, {})


def specialised_preconditions(module: Module, consts: Mapping[str, int]) -> Preconditions:
    """The preconditions of ``module`` when its entry also fixes integer formals (isl names) to
    constants (a callee's summary specialised for a call site's constant actuals)."""
    with function_budget(module, FUNCTION_SECONDS) as seconds:
        an = _Analysis(module, seconds)
        b = an.builder()
        for name, v in consts.items():
            an.entry = an.entry.intersect(b.param(name).eq_set(b.const(v)).params())
        try:
            an.stmt(module.ast.body, an.entry)
        except _TooCostly:  # a loop's invariant may be half computed: keep nothing
            an.table.clear()
    f = an.f
    names = {f.isl_name(d): d.name for d in an._all_decls() if getattr(d, "name", None)}
    return Preconditions(module.name, MappingProxyType(an.table), MappingProxyType(names), an.entry)

