"""Redundant load-store elimination (``redundant_load_store_elimination``, Amini 2012 §3.8.1).

Guelton's pass (PIPS ``redundant_load_store_elimination``) on the copies the
accelerator path writes: ``memcpy(dst, src, n)`` (the thesis's
``memload``/``memstore``, as :func:`.load_store.isolate_statement` and hand-written
DMA code use them), ``passman_accel_copy_to``/``_copy_from`` (a box between a
host array and a device buffer) and ``passman_accel_update_device``/``_host``
(a host array and its device copy). Loads move up, stores move down, and a copy
whose data is already where it goes, or whose result is overwritten before
anything reads it, disappears. Before (Fig 3.18; ``memload``/``memstore`` are
``memcpy``)::

    void bar(int i, int j[2], int k[2])
    {
        while (i-- >= 0) {
            memcpy(k, j, sizeof(int) * 2);       /* load */
            k[0]++;
            memcpy(j, k, sizeof(int) * 2);       /* store */
        }
    }
    void foo(int j[2], int k[2])
    {
        bar(0, j, k);
        bar(1, j, k);
    }

After (``ws.apply("redundant_load_store_elimination")``)::

    void bar(int i, int j[2], int k[2])
    {
        while (i-- >= 0) {
            k[0]++;
        }
    }
    void foo(int j[2], int k[2])
    {
        memcpy(k, j, sizeof(int) * 2);
        bar(0, j, k);
        memcpy(j, k, sizeof(int) * 2);
        bar(1, j, k);                            /* the load before it was redundant */
        memcpy(j, k, sizeof(int) * 2);
    }

The rules, applied to a fix point (a copy moves ``a <- b`` over an extent,
the C text of its sizes, offsets and counts):

1. *Redundant copy*: a copy ``a <- b`` (or ``b <- a``) earlier in the same
   block, same extent, with nothing in between that writes ``a`` or ``b``,
   changes a variable of the extent or is the target of a jump: the data is
   already there (``memcpy(a, b, n); memcpy(b, a, n)``: the second goes).
2. *Dead copy*: a later copy into ``a`` over the same extent in the same
   block, with nothing in between that reads ``a``, changes the extent or
   leaves the block: the first copy's result is never read.
3. *Out of a loop*: a loop body that starts with a load ``a <- b`` and ends
   with the store ``b <- a`` (or has one of them, the rest of the body not
   touching ``b``, nor ``a`` for a lone load) loads before the loop and stores
   after it. The loop must run at least once (an extra ``a <- b`` would change
   ``a``): proved from the preconditions at the loop, or, for a function
   whose loop depends on its formals, at every call site from the constant
   arguments; its header must not touch ``a``, ``b`` or the extent, and its
   body must not leave it (``break``, ``return``, ``goto``).
4. *Across calls*: a function that starts with a load of formals or globals
   has it moved before every call (formals replaced by the arguments, which
   must be side-effect free and read no array); one that ends with a store
   (no ``return``, the formals it names never assigned) has it moved after
   every call. The function must be called only directly, as a statement of a
   block, and not recursively.

Refused (PassFailed, nothing changed) when no copy is removed or moved; the
message gives the first reason a candidate was kept. Distinct arrays are
assumed not to overlap (as everywhere in passman: ``memcpy`` requires it).
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl
import networkx as nx
from pycparser import c_ast

from passman import PassFailed, transformation
from passman.astutil import copy_node, parent_map, replace_child, walk
from passman.printer import to_c

from ..analysis.effect_model import ANYWHERE
from ..cfacts.control import describe_jump, escaping_jumps
from ..cfacts.folding import int_value
from ..cfacts.loops import for_init
from ..cfacts.names import unevaluated, where
from ..cfacts.sideeffects import has_side_effects
from ..poly.affine import AffineBuilder, params_universe, project_out_params
from ..poly.preconditions import specialised_preconditions
from .load_store import launchers

#: the calls that move data, and how many arguments each takes
COPIES = {
    "memcpy": 3,
    "passman_accel_copy_to": 7,
    "passman_accel_copy_from": 7,
    "passman_accel_update_device": 2,
    "passman_accel_update_host": 2,
}
#: runtime calls that touch no array's device copy
_NEUTRAL = {"passman_accel_malloc", "passman_accel_free", "passman_accel_time", "passman_accel_init",
            "passman_accel_release", "passman_accel_launched", "passman_accel_copy_to", "passman_accel_copy_from"}


@dataclass(frozen=True)
class Transfer:
    """One copy statement: ``dst <- src`` over ``extent``.

    An end is ``("mem", decl)`` (the memory a variable names or points to) or
    ``("dev", decl)`` (the device copy of a host array, for ``update_*``).
    ``guards`` are the declarations whose own value the copy depends on (the
    pointers and the scalars of the extent).
    """

    call: c_ast.FuncCall
    dst: tuple
    src: tuple
    extent: str
    guards: tuple

    def text(self) -> str:
        """The call as C."""
        return to_c(self.call)

    def ends(self) -> set:
        """The two ends, as comparable keys."""
        return {_key(self.dst), _key(self.src)}


def _key(end: tuple) -> tuple:
    return (end[0], id(end[1]))


def _strip(e: c_ast.Node) -> c_ast.Node:
    while isinstance(e, c_ast.Cast):
        e = e.expr
    return e


class _Function:
    """What the pass knows of one function: names, effects, preconditions."""

    def __init__(self, module, overlay: dict):
        self.module = module
        self.facts = module.resource("poly_facts")
        self.proper = module.resource("proper_effects")
        self.pre = module.resource("preconditions")
        self.overlay = overlay  # id(ID) -> declaration, for the nodes the pass creates
        self.gotos = {n.name for n in walk(module.ast.body) if isinstance(n, c_ast.Goto)}

    def decl_of(self, ident: c_ast.ID):
        d = self.overlay.get(id(ident))
        return d if d is not None else self.facts.names.decl_of(ident)

    def variable(self, e: c_ast.Node):
        e = _strip(e)
        if isinstance(e, c_ast.ID):
            d = self.decl_of(e)
            if isinstance(d, c_ast.Decl) and not isinstance(d.type, c_ast.FuncDecl):
                return d
        return None

    def transfer(self, stmt: c_ast.Node) -> Transfer | None:
        """The copy ``stmt`` is, or None."""
        if not (isinstance(stmt, c_ast.FuncCall) and isinstance(stmt.name, c_ast.ID)):
            return None
        fn = stmt.name.name
        args = stmt.args.exprs if stmt.args else []
        if COPIES.get(fn) != len(args) or self.module.ws.stub_info(fn) is None and fn in self.module.ws:
            return None
        if fn.startswith("passman_accel_update"):
            host = self.variable(args[0])
            if host is None:
                return None
            pair = (("dev", host), ("mem", host)) if fn.endswith("device") else (("mem", host), ("dev", host))
            rest = args[1:]
        else:
            dst, src = self.variable(args[0]), self.variable(args[1])
            if dst is None or src is None or dst is src:
                return None
            pair = (("mem", dst), ("mem", src))
            rest = args[2:]
        if any(has_side_effects(e) for e in rest):
            return None
        skip = set().union(*(unevaluated(e) for e in rest)) if rest else set()
        guards = {id(pair[0][1]): pair[0][1], id(pair[1][1]): pair[1][1]}
        for e in rest:
            for n in walk(e):
                if isinstance(n, c_ast.ID) and id(n) not in skip:
                    d = self.decl_of(n)
                    if d is None:
                        return None
                    guards[id(d)] = d
        extent = ", ".join(to_c(e) for e in rest)
        return Transfer(stmt, pair[0], pair[1], extent, tuple(guards.values()))


class _Pass:
    """The fix point of the rules over the program."""

    def __init__(self, ws):
        self.ws = ws
        self.graph = ws.resource("callgraph")
        names = [m.name for m in ws.modules if not ws.stub_info(m.name)]
        with_copies = {n for n in names
                       if any(isinstance(c, c_ast.FuncCall) and isinstance(c.name, c_ast.ID) and c.name.name in COPIES
                              for c in walk(ws[n].ast.body))}
        touched = set(with_copies)
        for n in with_copies:
            if n in self.graph:
                touched |= nx.ancestors(self.graph, n)
        self.names = [n for n in names if n in touched]
        for n in self.names:  # before the analyses: an edit may copy the AST they would point into
            ws[n].edit()
        self.overlay: dict = {}
        self.functions = {n: _Function(ws[n], self.overlay) for n in self.names}
        launch = set()
        for n in names:
            launch |= launchers(ws[n])
        active = set(launch)
        for n in names:
            if any(isinstance(c, c_ast.FuncCall) and isinstance(c.name, c_ast.ID)
                   and c.name.name.startswith("passman_accel_") and c.name.name not in ("passman_accel_time",)
                   for c in walk(ws[n].ast.body)):
                active.add(n)
        for n in list(active):
            if n in self.graph:
                active |= nx.ancestors(self.graph, n)
        self.device_active = active
        # a device pointer kept in a variable escapes the syntactic view of device copies
        self.device_tracked = True
        for n in names:
            parents = None
            for c in walk(ws[n].ast.body):
                if isinstance(c, c_ast.FuncCall) and isinstance(c.name, c_ast.ID) \
                        and c.name.name == "passman_accel_resolve":
                    parents = parents or parent_map(ws[n].ast.body)
                    holder = parents.get(id(parents.get(id(c))))
                    if not (isinstance(holder, c_ast.FuncCall) and isinstance(holder.name, c_ast.ID)
                            and (holder.name.name in launch or self._keeps_no_pointer(holder.name.name))):
                        self.device_tracked = False  # kept, or handed to a function that may keep it
        self.reasons: list[str] = []
        self.changes = 0

    def _keeps_no_pointer(self, name: str) -> bool:
        """Whether function ``name`` only indexes its pointer parameters (no copy of them, no
        call but library models): a device pointer handed to it goes nowhere else."""
        if name not in self.ws or self.ws.stub_info(name):
            return False
        func = self.ws[name].ast
        params = {p.name for p in (func.decl.type.args.params if func.decl.type.args else [])
                  if isinstance(p, c_ast.Decl) and isinstance(p.type, (c_ast.PtrDecl, c_ast.ArrayDecl))}
        parents = parent_map(func.body)
        for n in walk(func.body):
            if isinstance(n, c_ast.FuncCall) and not (isinstance(n.name, c_ast.ID) and self.ws.stub_info(n.name.name)):
                return False
            if isinstance(n, c_ast.ID) and n.name in params:
                p = parents.get(id(n))
                if not (isinstance(p, c_ast.ArrayRef) and p.name is n):
                    return False
        return True

    # ---- effects -------------------------------------------------------------------------

    def touches(self, f: _Function, stmt: c_ast.Node, end: tuple, mode: str) -> bool:
        """Whether ``stmt`` may read (``mode="read"``) or write (``"write"``, ``"own"``: the
        variable itself) the end ``end`` of a copy. Conservative for what is unknown."""
        kind, decl = end
        if kind == "dev":
            return self.touches_device(f, stmt, decl)
        t = f.transfer(stmt)
        if t is not None:
            if mode == "write":
                return _key(t.dst) == ("mem", id(decl))
            if mode == "read":
                return _key(t.src) == ("mem", id(decl))
            return False
        children: list = []
        header = True
        match stmt:
            case c_ast.Compound():
                children, header = stmt.block_items or [], False
            case c_ast.Label():
                children, header = [stmt.stmt], False
            case c_ast.If():
                children = [stmt.iftrue, stmt.iffalse]
            case c_ast.For() | c_ast.While() | c_ast.DoWhile() | c_ast.Switch():
                children = [stmt.stmt]
            case c_ast.Case() | c_ast.Default():
                children, header = stmt.stmts or [], False
            case c_ast.EmptyStatement() | c_ast.Pragma() | c_ast.Break() | c_ast.Continue() | c_ast.Goto():
                header = False
        if header:
            if stmt not in f.proper and not (isinstance(stmt, c_ast.Return) and stmt.expr is None):
                return True  # a statement the analyses did not see
            for e in f.proper.of(stmt):
                if self._matches(e, decl, mode):
                    return True
        return any(c is not None and self.touches(f, c, end, mode) for c in children)

    @staticmethod
    def _matches(e, decl, mode: str) -> bool:
        if e.var == ANYWHERE or e.kind == "anywhere":
            return e.action == ("read" if mode == "read" else "write")
        if e.var != decl.name:  # by name: a call's effects may name a same-named declaration
            return False
        if mode == "read":
            return e.action == "read" and (e.pointee or e.subscripts is not None)
        if mode == "own":
            return e.action == "write" and not e.pointee and e.subscripts is None
        return e.action == "write"

    def touches_device(self, f: _Function, stmt: c_ast.Node, host) -> bool:
        """Whether ``stmt`` may use or change the device copy of ``host``: a call of the
        runtime on it (``resolve`` passed to a launch), a function with device activity, an
        unknown function; anything when the program keeps device pointers in variables."""
        if not self.device_tracked:
            return True
        for c in walk(stmt):
            if not isinstance(c, c_ast.FuncCall):
                continue
            if not isinstance(c.name, c_ast.ID):
                return True  # through a pointer
            fn = c.name.name
            if fn in _NEUTRAL:
                continue
            if fn.startswith("passman_accel_"):
                args = c.args.exprs if c.args else []
                if fn in ("passman_accel_update_device", "passman_accel_update_host", "passman_accel_resolve"):
                    other = f.variable(args[0]) if args else None
                    if other is not None and other.name != host.name:
                        continue
                return True
            if fn in self.device_active:
                return True
            if fn not in self.ws and self.ws.stub_info(fn) is None:
                return True  # an unknown function
        return False

    def disturbs(self, f: _Function, stmt: c_ast.Node, t: Transfer) -> bool:
        """Whether ``stmt`` may change what ``t`` moves or between what."""
        if any(isinstance(n, (c_ast.Case, c_ast.Default)) or isinstance(n, c_ast.Label) and n.name in f.gotos
               for n in walk(stmt)):
            return True  # control may arrive there without the earlier copy
        if any(self.touches(f, stmt, end, "write") for end in (t.dst, t.src)):
            return True
        return any(self.touches(f, stmt, ("mem", g), "own") for g in t.guards)

    # ---- rule 1 and 2: in a block ----------------------------------------------------------

    def redundant(self, f: _Function, items: list) -> bool:
        for j, stmt in enumerate(items):
            t2 = f.transfer(stmt)
            if t2 is None:
                continue
            for k in range(j - 1, -1, -1):
                t1 = f.transfer(items[k])
                if t1 is not None and t1.ends() == t2.ends() and t1.extent == t2.extent:
                    del items[j]
                    return True
                if self.disturbs(f, items[k], t2):
                    break
        return False

    def dead(self, f: _Function, items: list) -> bool:
        for j, stmt in enumerate(items):
            t1 = f.transfer(stmt)
            if t1 is None:
                continue
            for k in range(j + 1, len(items)):
                t2 = f.transfer(items[k])
                if (t2 is not None and _key(t2.dst) == _key(t1.dst) and t2.extent == t1.extent
                        and _key(t2.src) != _key(t1.dst)):
                    del items[j]
                    return True
                s = items[k]
                if (self.touches(f, s, t1.dst, "read") or self.disturbs(f, s, t1) or escaping_jumps(s)
                        or isinstance(s, c_ast.Label)):
                    break
        return False

    # ---- rule 3: out of loops --------------------------------------------------------------

    def out_of_loop(self, f: _Function, items: list, j: int) -> bool:
        outer = items[j]
        loop = outer.stmt if isinstance(outer, c_ast.Label) else outer
        if not isinstance(loop, (c_ast.For, c_ast.While, c_ast.DoWhile)) or not isinstance(loop.stmt, c_ast.Compound):
            return False
        body = loop.stmt.block_items or []
        if not body:
            return False
        load, store = f.transfer(body[0]), f.transfer(body[-1]) if len(body) > 1 else None
        if load is not None and store is not None and not (
                _key(store.dst) == _key(load.src) and _key(store.src) == _key(load.dst) and store.extent == load.extent):
            store = None
        if load is None and store is None:
            return False
        t = load or store
        what = f"{t.text()} in the loop at {where(loop)}"
        if isinstance(outer, c_ast.Label) and outer.name in f.gotos:
            return self._keep(f"{what}: the loop is the target of a goto")
        if escaping_jumps(loop.stmt):
            return self._keep(f"{what}: the loop body can leave the loop ({describe_jump(escaping_jumps(loop.stmt)[0])})")
        middle = body[1:-1] if load is not None and store is not None else body[1:] if load is not None else body[:-1]
        ends = [t.dst, t.src]
        for s in middle:
            if any(self.touches(f, s, ("mem", g), "own") for g in t.guards):
                return self._keep(f"{what}: the loop changes a variable of the copy")
        if self._header_touches(f, loop, t):
            return self._keep(f"{what}: the loop header uses what it copies")
        if load is not None and store is not None:
            kept = store.dst  # b: the body must not use it between the copies
            if any(self.touches(f, s, kept, "read") or self.touches(f, s, kept, "write") for s in middle):
                return self._keep(f"{what}: the loop body uses {kept[1].name} between the copies")
        elif load is not None:
            if any(self.touches(f, s, end, "write") for s in middle for end in ends):
                return self._keep(f"{what}: the loop body writes what it loads")
        else:
            kept = store.dst
            if any(self.touches(f, s, kept, "read") or self.touches(f, s, kept, "write") for s in middle):
                return self._keep(f"{what}: the loop body uses {kept[1].name} before the store")
        why = self.runs_once(f, loop)
        if why:
            return self._keep(f"{what}: {why}")
        if load is not None:
            body.remove(load.call)
            items.insert(j, load.call)
            j += 1
        if store is not None:
            body.remove(store.call)
            items.insert(j + 1, store.call)
        return True

    def _header_touches(self, f: _Function, loop, t: Transfer) -> bool:
        if loop not in f.proper:
            return True
        for e in f.proper.of(loop):
            for end in (t.dst, t.src):
                if end[0] == "mem" and (self._matches(e, end[1], "read") or self._matches(e, end[1], "write")):
                    return True
            if any(self._matches(e, g, "own") for g in t.guards):
                return True
        parts = [p for p in (getattr(loop, "init", None), loop.cond, getattr(loop, "next", None)) if p is not None]
        return any(end[0] == "dev" and self.touches_device(f, p, end[1]) for p in parts for end in (t.dst, t.src))

    def _keep(self, reason: str) -> bool:
        self.reasons.append(reason)
        return False

    def runs_once(self, f: _Function, loop) -> str | None:
        """None when the loop surely runs its body at least once, else why not."""
        if isinstance(loop, c_ast.DoWhile):
            return None
        first = self._first_test(f, loop)
        if first is None:
            return "the loop may run zero times (its first test is not affine)"
        if _implies(f.pre.at(loop), *first):
            return None
        module = f.module
        sites = self.call_sites(module.name)
        if isinstance(sites, str) or not sites:
            return f"the loop may run zero times ({to_c(loop.cond)} is not known to hold on entry)"
        for _, _, call in sites:
            consts = {}
            for p, a in zip(f.facts.params, call.args.exprs if call.args else [], strict=False):
                v = int_value(a)
                if v is not None and f.facts.is_int_scalar(p):
                    consts[f.facts.isl_name(p)] = v
            if not _implies(specialised_preconditions(module, consts).at(loop), *first):
                return (f"the loop may run zero times: {to_c(loop.cond)} is not known to hold for the call "
                        f"at {where(call)}")
        return None

    def _first_test(self, f: _Function, loop) -> tuple[isl.Set, list[str]] | None:
        """The condition of a loop's first test on the values before the loop (a parameter
        set), and the variables its initialization assigns (forgotten from what held before)."""
        facts = f.facts

        def lookup(ident: c_ast.ID):  # signed integers only: the copy has no types, and no wrap-around
            d = f.decl_of(ident)
            if d is not None and facts.is_int_scalar(d) and facts.category(d) != "unsigned":
                return ("param", facts.isl_name(d))
            return None

        b = AffineBuilder(isl.Space.set_alloc(params_universe().get_ctx(), 0, 0), lookup)
        if loop.cond is None:
            return params_universe(), []
        cond = self.bound_copy(f, loop.cond)
        for n in list(walk(cond)):  # the value of i-- and i++ is i's
            for _, child in n.children():
                if isinstance(child, c_ast.UnaryOp) and child.op in ("p++", "p--"):
                    replace_child(n, child, child.expr)
        if isinstance(cond, c_ast.UnaryOp) and cond.op in ("p++", "p--"):
            cond = cond.expr
        if has_side_effects(cond):
            return None
        test = b.cond(cond)
        if test is None:
            return None
        test = test.params()
        if not isinstance(loop, c_ast.For) or loop.init is None:
            return test, []
        start = for_init(loop, f)
        if start is None or not facts.is_int_scalar(start[0]):
            return None
        decl, value = start
        v = b.expr(value)
        if v is None:
            return None
        name = facts.isl_name(decl)
        eq = b.param(name).eq_set(v).params()
        test = test.align_params(eq.get_space()).intersect(eq.align_params(test.get_space()))
        return project_out_params(test, [name]), [name]

    def bound_copy(self, f: _Function, node: c_ast.Node) -> c_ast.Node:
        """A copy of an expression whose identifiers name what the original's do."""
        new = copy_node(node)
        for o, n in zip(walk(node), walk(new), strict=True):
            if isinstance(o, c_ast.ID):
                d = f.decl_of(o)
                if d is not None:
                    self.overlay[id(n)] = d
        return new

    # ---- rule 4: across calls --------------------------------------------------------------

    def call_sites(self, name: str):
        """``[(caller, block, call)]`` of every call of ``name``, or why they cannot take a copy."""
        if name == "main":
            return "main has no caller"
        if name in self.graph and any(name in self.graph.successors(s)
                                      for s in nx.descendants(self.graph, name) | {name}):
            return f"{name} is recursive"
        out = []
        for m in self.ws.modules:
            if self.ws.stub_info(m.name) or m.name == name:
                continue
            uses = [n for n in walk(m.ast) if isinstance(n, c_ast.ID) and n.name == name]
            if not uses:
                continue
            if m.name not in self.functions:
                return f"{m.name} uses {name}"
            parents = parent_map(m.ast)
            for n in uses:
                p = parents.get(id(n))
                if not (isinstance(p, c_ast.FuncCall) and p.name is n):
                    return f"{name} is used as a pointer at {where(n)}"
                block = parents.get(id(p))
                if not isinstance(block, c_ast.Compound):
                    return f"the call at {where(p)} is not a statement of a block"
                out.append((m.name, block, p))
        return out

    def across_calls(self, name: str) -> bool:
        """Rule 4 on function ``name``: its first load before its calls, its last store after."""
        f = self.functions[name]
        body = f.module.ast.body.block_items or []
        for t, after in ((f.transfer(body[0]) if body else None, False),
                         (f.transfer(body[-1]) if body else None, True)):
            if t is None:
                continue
            sites = self.call_sites(name)
            why = sites if isinstance(sites, str) else None if sites else f"{name} is never called"
            why = why or self._movable(f, t, after, body)
            translated = []
            for caller, block, call in [] if why else sites:
                c = self._translate(f, t, self.functions[caller], call)
                if isinstance(c, str):
                    why = c
                    break
                translated.append((block, call, c))
            if why is not None:
                self._keep(f"{t.text()} at {where(t.call)}: {why}")
                continue
            body.remove(t.call)
            for block, call, c in translated:
                k = next(i for i, x in enumerate(block.block_items) if x is call)
                block.block_items.insert(k + 1 if after else k, c)
            return True
        return False

    def _movable(self, f: _Function, t: Transfer, after: bool, body: list) -> str | None:
        """Why the first (``after`` False) or last copy of a function cannot leave it."""
        for end in (t.dst[1], t.src[1], *t.guards):
            if f.facts.is_local(end) and not f.facts.is_formal(end):
                return f"{end.name} is a local of {f.module.name}"
        if after:
            if any(isinstance(n, c_ast.Return) for n in walk(f.module.ast.body)):
                return f"{f.module.name} has a return statement"
            for g in t.guards:
                if f.facts.is_formal(g) and any(self.touches(f, s, ("mem", g), "own") for s in body):
                    return f"{f.module.name} assigns {g.name}"
        return None

    def _translate(self, f: _Function, t: Transfer, caller: _Function, call: c_ast.FuncCall):
        """``t`` with the formals replaced by the arguments of ``call``, or why not."""
        args = call.args.exprs if call.args else []
        if len(args) != len(f.facts.params):
            return f"the call at {where(call)} does not pass every argument"
        for a in args:
            if has_side_effects(a) or any(isinstance(n, (c_ast.ArrayRef, c_ast.StructRef))
                                          or isinstance(n, c_ast.UnaryOp) and n.op == "*" for n in walk(a)):
                return f"an argument of the call at {where(call)} has side effects or reads memory"
        by_formal = {id(p): a for p, a in zip(f.facts.params, args, strict=True)}
        sizeof = unevaluated(t.call)
        new = copy_node(t.call)
        parents = parent_map(new)
        for o, n in zip(walk(t.call), walk(new), strict=True):
            if not isinstance(o, c_ast.ID) or o is t.call.name:
                continue
            d = f.decl_of(o)
            if d is None:
                return f"{o.name} in {t.text()} is not a variable"
            if id(d) in by_formal:
                actual = by_formal[id(d)]
                if id(o) in sizeof and not _same_element(f, d, caller, actual):
                    return f"sizeof names {o.name}, whose type differs from the argument's at {where(call)}"
                moved = copy_node(actual)
                for a_old, a_new in zip(walk(actual), walk(moved), strict=True):
                    if isinstance(a_old, c_ast.ID):
                        cd = caller.decl_of(a_old)
                        if cd is None:
                            return f"{a_old.name} at {where(call)} is not a variable"
                        self.overlay[id(a_new)] = cd
                replace_child(parents[id(n)], n, moved)
            else:  # a global: the caller must see the same one
                if any(isinstance(x, c_ast.Decl) and x.name == d.name for x in walk(caller.module.ast)):
                    return f"{d.name} is not the same variable in {caller.module.name}"
                self.overlay[id(n)] = d
        for end in (t.dst, t.src):
            if id(end[1]) in by_formal and caller.variable(by_formal[id(end[1])]) is None:
                return f"the argument for {end[1].name} at {where(call)} is not an array variable"
        new.coord = call.coord
        if caller.transfer(new) is None:
            return f"the copy would not be one at {where(call)}"
        return new

    # ---- driver ----------------------------------------------------------------------------

    def run(self) -> int:
        while self.step():
            self.changes += 1
        return self.changes

    def step(self) -> bool:
        for name in self.names:
            f = self.functions[name]
            for block in [n for n in walk(f.module.ast.body) if isinstance(n, c_ast.Compound)]:
                items = block.block_items or []
                if self.redundant(f, items) or self.dead(f, items):
                    return True
                for j in range(len(items)):
                    if self.out_of_loop(f, items, j):
                        return True
        for name in self.names:
            if self.across_calls(name):
                return True
        return False


def _element_text(decl) -> tuple[str, int]:
    """The element type's names and the rank of an array or pointer declaration."""
    t, rank = decl.type, 0
    while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        t, rank = t.type, rank + 1
    names = getattr(getattr(t, "type", None), "names", None)
    return (" ".join(names) if names else "?", rank)


def _same_element(f: _Function, formal, caller: _Function, actual: c_ast.Node) -> bool:
    """Whether ``sizeof`` of a formal's elements is that of the argument's (one dimension)."""
    d = caller.variable(actual)
    if d is None:
        return False
    a, b = _element_text(formal), _element_text(d)
    return a[0] != "?" and a == b and a[1] <= 1


def _implies(pre: isl.Set, test: isl.Set, forget: list[str]) -> bool:
    """Whether ``test`` holds wherever ``pre`` does, once ``forget`` are reassigned."""
    pre = project_out_params(pre, forget)
    pre = pre.align_params(test.get_space())
    test = test.align_params(pre.get_space())
    return pre.is_subset(test)


@transformation(scope="program", reads=["callgraph", "poly_facts", "proper_effects", "preconditions"])
def redundant_load_store_elimination(ws) -> None:
    """Move loads up and stores down, and remove the redundant ones (see the module docstring)."""
    p = _Pass(ws)
    if not p.run():
        why = f": {p.reasons[0]}" if p.reasons else ""
        raise PassFailed(f"redundant_load_store_elimination: no copy to remove or move{why}")
