"""Liveness of local scalars, statement by statement, over the structured AST.

The cleaning and substitution passes ask one question: after this statement,
may the current value of local scalar ``x`` still be read? :func:`liveness`
answers it for every statement of a function by a backward walk of the AST
(loops iterated to their fix point, ``break`` and ``continue`` going to
their targets, ``switch`` cases as entry points).

Only *tracked* variables are followed (:func:`tracked_scalars`): scalars of
the function (parameters included) that nothing but their own name can reach
(not global, not ``static``, not ``volatile``, address never taken, of an
arithmetic or pointer type). Anything else is live everywhere. A function
with a ``goto``, or ``case`` labels not directly in their ``switch``'s
block, is not analysed: every tracked variable is live everywhere.

Before (live scalars after each statement, as ``module.display`` would show)::

    t = a[0] * 2;      // live after: t n
    u = t + 1;         // live after: n t   (u is dead: never read)
    return t * n;

A ``#pragma`` reads every tracked variable its text names (clause
expressions such as ``if(n > 100)`` are C kept as text).

Definitions (kills) are only certain ones: the variable of a declaration,
and the left side ``x`` of an expression statement ``x = e``; writes nested
in expressions (``a[x = 1]``, ``x++``) are uses, conservatively.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pycparser import c_ast

from passman import Module
from passman.astutil import walk

from ..cfacts.control import pragma_names
from ..cfacts.names import NameTable
from ..cfacts.sideeffects import writes
from ..cfacts.types import TypeEnv
from .effect_model import current_scope

Live = frozenset  # of id(decl)


def _quals(d: c_ast.Decl) -> set[str]:
    out = set(d.quals or [])
    t = d.type
    while t is not None:
        out.update(getattr(t, "quals", None) or [])
        t = getattr(t, "type", None) if not isinstance(t, c_ast.IdentifierType) else None
    return out


def tracked_scalars(func: c_ast.FuncDef, table: NameTable, env: TypeEnv) -> dict[int, c_ast.Decl]:
    """The local scalars whose value only their own name reads or writes, by ``id(decl)``."""
    escaped = {id(table.decl_of(w.base)) for w in writes(func) if w.address and w.base is not None}
    out: dict[int, c_ast.Decl] = {}
    for d in table.decls:
        if not isinstance(d, c_ast.Decl) or not d.name or id(d) in escaped:
            continue
        if set(d.storage or []) & {"static", "extern", "typedef"} or "volatile" in _quals(d):
            continue
        if env.category(d.type) not in ("signed", "unsigned", "float", "pointer"):
            continue
        out[id(d)] = d
    return out


def is_volatile(d: c_ast.Decl) -> bool:
    """Whether a declaration is ``volatile``-qualified (at any level)."""
    return "volatile" in _quals(d)


class _Unknown(Exception):
    """The function's control flow is not structured enough for this analysis."""


@dataclass
class _Ctx:
    brk: Live | None = None
    cont: Live | None = None


@dataclass
class Liveness:
    """Live tracked scalars before and after each statement (see the module docstring)."""

    tracked: dict[int, c_ast.Decl]
    table: NameTable
    #: False when the function was not analysed (every tracked variable live everywhere)
    known: bool = True
    before: dict[int, Live] = field(default_factory=dict)
    after: dict[int, Live] = field(default_factory=dict)

    def live_after(self, stmt: c_ast.Node, decl: object) -> bool:
        """Whether the value of ``decl`` may be read after ``stmt`` runs."""
        return self._live(self.after, stmt, decl)

    def live_before(self, stmt: c_ast.Node, decl: object) -> bool:
        """Whether the value ``decl`` has before ``stmt`` may be read."""
        return self._live(self.before, stmt, decl)

    def _live(self, where: dict[int, Live], stmt: c_ast.Node, decl: object) -> bool:
        if not self.known or id(decl) not in self.tracked or id(stmt) not in where:
            return True
        return id(decl) in where[id(stmt)]

    def names_after(self, stmt: c_ast.Node) -> list[str]:
        """Names of the tracked variables live after ``stmt`` (for messages and tests)."""
        live = self.after.get(id(stmt), frozenset(self.tracked))
        return sorted(self.tracked[k].name for k in live)

    # -- the backward walk --------------------------------------------------------------
    def uses(self, e: c_ast.Node | None, skip: c_ast.Node | None = None) -> Live:
        """Tracked variables read by expression (or declaration) ``e``; ``skip``: an lvalue not read."""
        if e is None:
            return frozenset()
        out = set()
        for n in walk(e):
            if isinstance(n, c_ast.ID) and n is not skip:
                d = self.table.decl_of(n)
                if id(d) in self.tracked:
                    out.add(id(d))
        return frozenset(out)

    def _pragma_uses(self, pragma: c_ast.Pragma) -> Live:
        """Tracked variables a pragma's clauses may read (by name: every declaration of it)."""
        names = pragma_names(pragma)
        return frozenset(k for k, d in self.tracked.items() if d.name in names)

    def _kill(self, e: c_ast.Node) -> tuple[Live, c_ast.Node | None]:
        if isinstance(e, c_ast.Assignment) and e.op == "=" and isinstance(e.lvalue, c_ast.ID):
            d = self.table.decl_of(e.lvalue)
            if id(d) in self.tracked:
                return frozenset({id(d)}), e.lvalue
        return frozenset(), None

    def stmt(self, s: c_ast.Node | None, out: Live, ctx: _Ctx) -> Live:
        if s is None:
            return out
        live = self._stmt(s, out, ctx)
        self.after[id(s)] = out
        self.before[id(s)] = live
        return live

    def seq(self, items: Iterable[c_ast.Node], out: Live, ctx: _Ctx) -> Live:
        cur = out
        for item in reversed(list(items)):
            cur = self.stmt(item, cur, ctx)
        return cur

    def _stmt(self, s: c_ast.Node, out: Live, ctx: _Ctx) -> Live:
        match s:
            case c_ast.Compound():
                return self.seq(s.block_items or [], out, ctx)
            case c_ast.Decl():
                dims = self.uses(s.type)
                init = self.uses(s.init)
                return (out - {id(s)}) | dims | init
            case c_ast.DeclList():
                return self.seq(s.decls, out, ctx)
            case c_ast.If():
                a = self.stmt(s.iftrue, out, ctx)
                b = self.stmt(s.iffalse, out, ctx) if s.iffalse is not None else out
                return self.uses(s.cond) | a | b
            case c_ast.For():
                return self._for(s, out, ctx)
            case c_ast.While():
                head = self.uses(s.cond) | out
                while True:
                    body = self.stmt(s.stmt, head, _Ctx(out, head))
                    new = self.uses(s.cond) | out | body
                    if new == head:
                        return head
                    head = new
            case c_ast.DoWhile():
                cond = self.uses(s.cond) | out
                while True:
                    body = self.stmt(s.stmt, cond, _Ctx(out, cond))
                    new = self.uses(s.cond) | out | body
                    if new == cond:
                        return body
                    cond = new
            case c_ast.Switch():
                return self._switch(s, out, ctx)
            case c_ast.Label():
                return self.stmt(s.stmt, out, ctx)
            case c_ast.Case() | c_ast.Default():
                raise _Unknown("case label outside its switch block")
            case c_ast.Return():
                return self.uses(s.expr)
            case c_ast.Break():
                return ctx.brk if ctx.brk is not None else out
            case c_ast.Continue():
                return ctx.cont if ctx.cont is not None else out
            case c_ast.Goto():
                raise _Unknown("goto")
            case c_ast.Pragma():
                return out | self._pragma_uses(s)
            case c_ast.EmptyStatement() | c_ast.Typedef() | c_ast.StaticAssert():
                return out
        kill, lhs = self._kill(s)
        return (out - kill) | self.uses(s, skip=lhs)

    def _for(self, s: c_ast.For, out: Live, ctx: _Ctx) -> Live:
        cond = self.uses(s.cond)
        nkill, nlhs = self._kill(s.next) if s.next is not None else (frozenset(), None)
        nuse = self.uses(s.next, skip=nlhs)
        head = cond | out if s.cond is not None else frozenset()
        while True:
            nxt = (head - nkill) | nuse
            body = self.stmt(s.stmt, nxt, _Ctx(out, nxt))
            new = (cond | out if s.cond is not None else frozenset()) | body
            if new == head:
                break
            head = new
        if isinstance(s.init, c_ast.DeclList):
            return self.seq(s.init.decls, head, ctx)
        if s.init is not None:
            kill, lhs = self._kill(s.init)
            return (head - kill) | self.uses(s.init, skip=lhs)
        return head

    def _switch(self, s: c_ast.Switch, out: Live, ctx: _Ctx) -> Live:
        inner = _Ctx(out, ctx.cont)
        items = s.stmt.block_items if isinstance(s.stmt, c_ast.Compound) else [s.stmt]
        entries = set()
        has_default = False
        cur = out
        for sub in reversed(items or []):
            if isinstance(sub, (c_ast.Case, c_ast.Default)):
                has_default |= isinstance(sub, c_ast.Default)
                cur = self.seq(sub.stmts or [], cur, inner)
                self.before[id(sub)] = cur
                entries |= cur
            else:
                cur = self.stmt(sub, cur, inner)
        if not has_default:
            entries |= out
        return self.uses(s.cond) | frozenset(entries)


def liveness(func: c_ast.FuncDef, table: NameTable, env: TypeEnv) -> Liveness:
    """Live tracked scalars before and after every statement of ``func``."""
    live = Liveness(tracked_scalars(func, table, env), table)
    try:
        live.stmt(func.body, frozenset(), _Ctx())
    except _Unknown:
        live.known = False
        live.before.clear()
        live.after.clear()
    return live


class ScalarFacts:
    """Name table, types and tracked scalars of a module's function; ``refresh()`` after a change.

    A pass using it reads the ``unit_scope`` resource (the file scope).
    """

    def __init__(self, module: Module):
        self.module = module
        self.func = module.ast
        self.refresh()

    def refresh(self) -> None:
        scope = current_scope(self.module)  # the function walked again, the file scope cached
        self.table: NameTable = scope.names
        self.env: TypeEnv = scope.types
        self.tracked = tracked_scalars(self.func, self.table, self.env)

    def decl(self, ident: c_ast.Node) -> object | None:
        return self.table.decl_of(ident) if isinstance(ident, c_ast.ID) else None

    def is_tracked(self, ident: c_ast.Node, categories=("signed", "unsigned", "float")) -> bool:
        d = self.decl(ident)
        return id(d) in self.tracked and self.env.category(d.type) in categories
