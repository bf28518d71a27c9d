"""Scalar privatization: the variables each loop can give every iteration its own copy of.

A scalar written in a loop is *private* to the loop when every iteration
writes it before reading it (loop indices of inner loops, temporaries) and
its value is not used after the loop. If its value is used after the loop,
it needs ``lastprivate`` and is reported as such, not as private. The loop's
own index is private (or lastprivate when used after the loop). Variables
declared inside the loop body are private by scope and are not listed.

Before / after (``module.display("private_variables")``)::

    for (i = 0; i < n; i++)                 // private: i j t
        for (j = 0; j < n; j++) {
            t = A[i][j] * 2;
            B[i][j] = t + t;
        }

Not private, with a reason in ``LoopPrivates.why``: a scalar read before it
is written in an iteration (its value flows from one iteration to the next,
reductions included), a scalar whose address is taken in the function, a
global a callee of the loop may access, any variable of a function with a
``goto``.

Arrays: privatizing an array needs IN regions (the polyhedral engineer's
array regions): :func:`.array_privatization.array_privatizer` decides, and
its answer lands in ``LoopPrivates.private_arrays``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from types import MappingProxyType

from pycparser import c_ast

from passman import Loop, Module, PassFailed, analysis
from passman.astutil import walk

from ..cfacts.names import where
from ..cfacts.sideeffects import PURE_LIBM
from .array_privatization import array_privatizer
from .effect_model import ANYWHERE, Effect, EffectsMap, function_scope, is_variable, stub_info
from .effects import runs_once
from .references import call_sites, statement_refs, statements, substatements, taken_addresses

#: key standing for every global (live at the function's exit)
_GLOBALS = ("*globals*",)


@dataclass(frozen=True)
class LoopPrivates:
    """Privatization facts of one loop.

    ``private``: scalars every iteration can own (names, sorted);
    ``lastprivate``: scalars that could be private but whose last value is
    used after the loop; ``private_arrays``: arrays found private by the
    registered array privatizer (empty without one); ``why``: for each
    scalar written in the loop and neither private nor lastprivate, the
    reason, in source terms.
    """

    loop: c_ast.For
    private: tuple[str, ...]
    lastprivate: tuple[str, ...]
    why: tuple[str, ...]
    private_arrays: tuple[str, ...] = ()


#: array privatizer: ``(module, loop node, candidate array names) -> (private arrays, reasons)``


# ------------------------------------------------------------------ variables


def _key(e: Effect) -> tuple:
    if e.kind in ("global", "static"):
        return ("global", e.var)
    return (e.kind, e.var, id(e.decl))


def _scalar(e: Effect) -> bool:
    return e.subscripts is None and not e.pointee and e.kind != "anywhere"


class _Facts:
    """Scalar reads and must-writes of statements, from the proper effects."""

    def __init__(self, module: Module):
        self.module = module
        self.proper: EffectsMap = module.resource("proper_effects")
        self.cumulated: EffectsMap = module.resource("cumulated_effects")
        self.scope = function_scope(module)
        self.func = self.scope.func
        self._cache: dict[int, tuple[frozenset, frozenset]] = {}
        self.addressed: dict[str, c_ast.Node] = {}
        for s in statements(self.func):
            for r in taken_addresses(s, self.scope.names, self.scope.types):
                if r.subscripts is None and not r.through_pointer:
                    self.addressed.setdefault(r.var, s)
        self.has_goto = any(isinstance(n, c_ast.Goto) for n in walk(self.func.body))
        self.loop_live_out: dict[int, set] = {}

    def rw(self, s: c_ast.Node) -> tuple[frozenset, frozenset]:
        """(scalar keys read, scalar keys certainly written) by ``s`` itself."""
        got = self._cache.get(id(s))
        if got is None:
            reads, writes = set(), set()
            for e in self.proper.of(s):
                if e.kind == "anywhere":
                    if e.action == "read":
                        reads.add(_GLOBALS)
                elif _scalar(e) or (e.action == "read" and not e.pointee):
                    if e.action == "read":
                        reads.add(_key(e))
                    elif e.approx == "must" and _scalar(e):
                        writes.add(_key(e))
            got = (frozenset(reads), frozenset(writes))
            self._cache[id(s)] = got
        return got

    def part_rw(self, part: c_ast.Node | None) -> tuple[frozenset, frozenset]:
        """Reads and must-writes of one expression of a loop header."""
        if part is None:
            return frozenset(), frozenset()
        reads, writes = set(), set()
        names = self.scope.names
        for r in statement_refs(part, names, self.scope.types):
            kind = self.scope.kind(r.decl)
            key = ("global", r.var) if kind in ("global", "static") else (kind, r.var, id(r.decl) if kind in (
                "local",) else id(None))
            if r.mode == "read":
                reads.add(key)
            elif r.is_scalar:
                writes.add(key)
        return frozenset(reads), frozenset(writes)


# ------------------------------------------------------------------ exposed reads


_TOP = None  # "every variable is written": the continuation is unreachable


def _inter(a, b):
    if a is _TOP:
        return b
    if b is _TOP:
        return a
    return a & b


def _minus(reads: Iterable, defined, at: dict | None = None, stmt: c_ast.Node | None = None) -> set:
    if defined is _TOP:
        return set()
    out = {k for k in reads if k not in defined}
    if at is not None and stmt is not None:
        for k in out:
            at.setdefault(k, stmt)
    return out


def exposed(f: _Facts, s: c_ast.Node, defined, at: dict | None = None) -> tuple[set, object]:
    """Scalars ``s`` may read before writing them, given the ``defined`` ones; and what is defined after.

    ``at`` (optional) receives, for each exposed scalar, the first statement that reads it.
    """
    out: set = set()
    match s:
        case c_ast.Compound():
            for item in s.block_items or []:
                e, defined = exposed(f, item, defined, at)
                out |= e
            return out, defined
        case c_ast.If():
            r, _ = f.rw(s)
            out = _minus(r, defined, at, s)
            e1, d1 = exposed(f, s.iftrue, defined, at) if s.iftrue is not None else (set(), defined)
            e2, d2 = exposed(f, s.iffalse, defined, at) if s.iffalse is not None else (set(), defined)
            return out | e1 | e2, _inter(d1, d2)
        case c_ast.For():
            ri, wi = f.part_rw(s.init)
            out = _minus(ri, defined, at, s)
            inner = defined if defined is _TOP else set(defined) | wi
            rc, _ = f.part_rw(s.cond)
            out |= _minus(rc, inner, at, s)
            eb, db = exposed(f, s.stmt, inner, at) if s.stmt is not None else (set(), inner)
            out |= eb
            rn, _ = f.part_rw(s.next)
            out |= _minus(rn, db if db is not _TOP else inner, at, s)
            after = db if runs_once(s) and db is not _TOP else inner
            return out, after
        case c_ast.While():
            r, _ = f.rw(s)
            eb, _ = exposed(f, s.stmt, defined, at) if s.stmt is not None else (set(), defined)
            return _minus(r, defined, at, s) | eb, defined
        case c_ast.DoWhile():
            eb, db = exposed(f, s.stmt, defined, at) if s.stmt is not None else (set(), defined)
            r, _ = f.rw(s)
            return eb | _minus(r, db, at, s), db
        case c_ast.Switch():
            r, _ = f.rw(s)
            out = _minus(r, defined, at, s)
            for sub in substatements(s.stmt) if isinstance(s.stmt, c_ast.Compound) else [s.stmt]:
                if isinstance(sub, (c_ast.Case, c_ast.Default)):
                    cur = defined
                    for x in sub.stmts or []:
                        e, cur = exposed(f, x, cur, at)
                        out |= e
                elif sub is not None:
                    e, _ = exposed(f, sub, defined, at)
                    out |= e
            return out, defined
        case c_ast.Label():
            return exposed(f, s.stmt, defined, at) if s.stmt is not None else (set(), defined)
        case c_ast.Return() | c_ast.Break() | c_ast.Continue() | c_ast.Goto():
            r, _ = f.rw(s)
            return _minus(r, defined, at, s), _TOP
    r, w = f.rw(s)
    out = _minus(r, defined, at, s)
    if defined is _TOP:
        return out, _TOP
    return out, set(defined) | w


# ------------------------------------------------------------------ liveness


@dataclass
class _Ctx:
    exit_live: frozenset
    brk: frozenset | None = None
    cont: frozenset | None = None


def live(f: _Facts, s: c_ast.Node, after: frozenset, ctx: _Ctx) -> frozenset:
    """Scalars live before ``s`` when ``after`` are live after it (records each loop's live-out)."""
    match s:
        case c_ast.Compound():
            cur = after
            for item in reversed(s.block_items or []):
                cur = live(f, item, cur, ctx)
            return cur
        case c_ast.If():
            r, _ = f.rw(s)
            a = live(f, s.iftrue, after, ctx) if s.iftrue is not None else after
            b = live(f, s.iffalse, after, ctx) if s.iffalse is not None else after
            return frozenset(r) | a | b
        case c_ast.For():
            f.loop_live_out.setdefault(id(s), set()).update(after)
            ri, wi = f.part_rw(s.init)
            rc, _ = f.part_rw(s.cond)
            rn, wn = f.part_rw(s.next)
            head = frozenset(rc) | after
            while True:
                nxt = (head - wn) | rn
                body = live(f, s.stmt, nxt, _Ctx(ctx.exit_live, after, nxt)) if s.stmt is not None else nxt
                new = frozenset(rc) | after | body
                if new == head:
                    break
                head = new
            return (head - wi) | ri
        case c_ast.While() | c_ast.DoWhile():
            r, _ = f.rw(s)
            head = frozenset(r) | after
            while True:
                body = live(f, s.stmt, head, _Ctx(ctx.exit_live, after, head)) if s.stmt is not None else head
                new = frozenset(r) | after | body
                if new == head:
                    break
                head = new
            return body if isinstance(s, c_ast.DoWhile) else head
        case c_ast.Switch():
            r, _ = f.rw(s)
            inner = _Ctx(ctx.exit_live, after, ctx.cont)
            entries = set(after)
            cur = after
            items = s.stmt.block_items if isinstance(s.stmt, c_ast.Compound) else [s.stmt]
            for sub in reversed(items or []):
                if isinstance(sub, (c_ast.Case, c_ast.Default)):
                    for x in reversed(sub.stmts or []):
                        cur = live(f, x, cur, inner)
                    entries |= cur
                elif sub is not None:
                    cur = live(f, sub, cur, inner)
            return frozenset(r) | frozenset(entries)
        case c_ast.Label():
            return live(f, s.stmt, after, ctx) if s.stmt is not None else after
        case c_ast.Return():
            r, _ = f.rw(s)
            return frozenset(r) | ctx.exit_live
        case c_ast.Break():
            return ctx.brk if ctx.brk is not None else after
        case c_ast.Continue():
            return ctx.cont if ctx.cont is not None else after
    r, w = f.rw(s)
    return (after - w) | r


# ------------------------------------------------------------------ the analysis


def _names(keys: Iterable[tuple]) -> dict[tuple, str]:
    return {k: k[1] for k in keys}


def _loop_privates(f: _Facts, loop: c_ast.For, label: str) -> LoopPrivates:
    cum = f.cumulated.of(loop)
    body_decls = {id(d) for d in walk(loop) if isinstance(d, c_ast.Decl)}
    written = {}
    for e in cum:
        if e.action == "write" and _scalar(e):
            written.setdefault(_key(e), e)
    # variables declared in the loop (for-init included) never reach the cumulated effects
    index = _own_index(f, loop)
    where_loop = f"{where(loop)}: loop {label}"
    why: list[str] = []
    private, lastprivate = [], []
    if f.has_goto:
        return LoopPrivates(loop, (), (), (f"{where_loop}: {f.module.name} has a goto; no privatization",))
    # one iteration: the condition, the body, the increment
    rc, _ = f.part_rw(loop.cond)
    first: dict = {k: loop for k in rc}
    eb, db = exposed(f, loop.stmt, set(), first) if loop.stmt is not None else (set(), set())
    rn, _ = f.part_rw(loop.next)
    upward = set(rc) | eb | _minus(rn, db, first, loop)
    calls_touch = _call_touched(f, loop)
    after = f.loop_live_out.get(id(loop), set())
    for key, e in sorted(written.items(), key=lambda kv: kv[0][1]):
        name = e.var
        if id(e.decl) in body_decls:
            continue
        if name in f.addressed and key != index:
            why.append(f"{where_loop}: {name} is not private: its address is taken at {where(f.addressed[name])}")
            continue
        if key[0] == "global" and (name in calls_touch or ANYWHERE in calls_touch):
            why.append(f"{where_loop}: {name} is not private: a function called in the loop may access it")
            continue
        if key != index and key in upward:
            why.append(f"{where_loop}: {name} is not private: it may be read at {where(first.get(key, loop))} "
                       "before being written in the iteration (its value flows between iterations)")
            continue
        is_live = key in after or (key[0] == "global" and _GLOBALS in after) or (
            name in f.addressed and _GLOBALS in after)
        (lastprivate if is_live else private).append(name)
    arrays: tuple[str, ...] = ()
    candidates = tuple(sorted({e.var for e in cum if e.action == "write" and not _scalar(e)
                               and e.kind not in ("anywhere",) and not e.pointee}))
    if candidates:
        arrays, reasons = array_privatizer(f.module, loop, candidates)
        why.extend(reasons)
    return LoopPrivates(loop, tuple(sorted(set(private))), tuple(sorted(set(lastprivate))), tuple(why),
                        tuple(arrays))


def _own_index(f: _Facts, loop: c_ast.For) -> tuple | None:
    """The key of the variable the loop's increment steps (``i`` in ``i++``, ``i += 2``)."""
    nxt = loop.next
    target = None
    if isinstance(nxt, c_ast.UnaryOp) and nxt.op in ("++", "--", "p++", "p--"):
        target = nxt.expr
    elif isinstance(nxt, c_ast.Assignment):
        target = nxt.lvalue
    if not isinstance(target, c_ast.ID):
        return None
    _, writes = f.part_rw(c_ast.Assignment("=", target, c_ast.Constant("int", "0")))
    return next(iter(writes), None)


def _call_touched(f: _Facts, loop: c_ast.For) -> set[str]:
    """Globals the callees of a loop may access (:data:`ANYWHERE` for unknown ones)."""
    ws = f.module.ws
    out: set[str] = set()
    for s in statements(loop):
        for call in call_sites(s):
            if not isinstance(call.name, c_ast.ID) or is_variable(f.scope.names.decl_of(call.name)):
                out.add(ANYWHERE)
                continue
            name = call.name.name
            info = stub_info(ws, name)
            if info is not None and getattr(info, "pure", False):
                continue
            callee = ws.callee(name)
            if callee is None:
                if name not in PURE_LIBM:
                    out.add(ANYWHERE)
                continue
            try:
                summary = ws.resource("summary_effects", callee)
            except PassFailed:
                out.add(ANYWHERE)
                continue
            out.update(e.var for e in summary if e.kind in ("global", "anywhere"))
    return out


def _display(module: Module, value) -> dict:
    out = {}
    for node, lp in value.values():
        lines = []
        if lp.private:
            lines.append("private: " + " ".join(lp.private))
        if lp.lastprivate:
            lines.append("lastprivate: " + " ".join(lp.lastprivate))
        if lp.private_arrays:
            lines.append("private arrays: " + " ".join(lp.private_arrays))
        if lines:
            out[node] = lines
    return out


@analysis(scope="module", provides="private_variables", display=_display, reads=["cumulated_effects", "function_scope", "in_region_analysis", "in_regions", "out_regions", "preconditions", "proper_effects", "region_analysis", "regions", "summary_effects"])
def private_variables(module: Module):
    """Scalars each loop can privatize: ``{id(for): (for, LoopPrivates)}``.

    Before: ``for (i...) for (j...) { t = a[i][j]; b[i][j] = t * t; }``
    After:  ``// private: i j t`` on the outer loop (``t`` and ``j`` are dead after it).
    """
    f = _Facts(module)
    exit_live = frozenset({_GLOBALS})
    if not f.has_goto:
        live(f, f.func.body, exit_live, _Ctx(exit_live))
    labels = {id(n.stmt): n.name for n in walk(f.func) if isinstance(n, c_ast.Label)}
    out = {}
    for s in statements(f.func):
        if isinstance(s, c_ast.For):
            out[id(s)] = (s, _loop_privates(f, s, labels.get(id(s), "?")))
    return MappingProxyType(out)


def loop_privates(loop: Loop) -> LoopPrivates:
    """The privatization facts of ``loop``."""
    return loop.module.resource("private_variables")[id(loop.node)][1]
