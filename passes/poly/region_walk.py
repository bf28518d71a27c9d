"""The region analysis of one function: a walk over its statements (see :mod:`.regions`).

:class:`Walker` computes, bottom-up, the READ, WRITE and IN footprints
(:class:`Foot`) of every statement, each a map from variable to
:class:`region_sets.Reg`, valued in the store before the statement. A
sequence translates the footprint of what follows a statement back through
that statement (an affine integer assignment substitutes, any other write
of an integer forgets); a loop projects its iterator out over its
iteration set; a test restricts each branch by its affine condition. OUT
regions are then computed top-down (:meth:`Walker.out_regions`), and the
function's summary for its callers (:meth:`Walker.summary`). Calls use
the callees' summaries (:mod:`.region_calls`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast

from passman import Module
from passman.astutil import walk
from passman.deadline import function_budget
from passman.lazy import LazyAttribute

from ..analysis.references import Ref, call_sites
from ..cfacts.control import escaping_jumps
from ..cfacts.loops import for_header
from . import region_sets as rs
from .affine import AffineBuilder, ctx, params_universe, rename_param
from .counted_loops import bound_check
from .facts import FunctionFacts, function_facts, variable_decl
from .preconditions import specialised_preconditions
from .region_calls import CallTranslator, summarize
from .region_out import out_regions
from .region_values import Foot, add_region, map_regions, merge_regions

_DT = LazyAttribute("islpy", "dim_type")
ANYWHERE = "*anywhere*"
_IP = "__ip"
_DEFAULT = object()  # the default label of a switch



@dataclass(frozen=True)
class VarInfo:
    """A variable as the region analysis sees it: its index space and where it lives."""

    key: str
    var: str
    rank: int
    kind: str  # local | formal | global | static | anywhere | callee-static
    whole: isl.Set  # the declared extent (the universe of the space if unknown)
    pointee: bool = False  # elements reached through a pointer or array formal


@dataclass
class _LoopInfo:
    name: str | None  # the iterator's isl name (None: not a counted loop)
    domain: isl.Set | None  # iterator values, a parameter set (None: unknown)
    exact: bool  # every value in domain certainly runs
    modified: frozenset[str]  # integers modified by an iteration, the iterator excluded
    step: int = 1


class Walker:
    """The region analysis of one function."""

    def __init__(self, module: Module, with_in: bool = False, consts: Mapping[str, int] | None = None):
        self.module = module
        #: integer formals (isl names) taken as these constants: a summary specialised for a call site
        self.consts = dict(consts or {})
        #: also compute IN regions (they cost a third more: only for ``in_regions`` and ``out_regions``)
        self.with_in = with_in
        self.ws = module.ws
        self.f = function_facts(module)
        if self.consts:

            self.pre = specialised_preconditions(module, self.consts)
        else:
            self.pre = module.resource("preconditions")
        self.vars: dict[str, VarInfo] = {}
        self.names: dict[str, str] = {}
        self.table: dict[int, tuple[c_ast.Node, Foot]] = {}
        self.seqs: dict[int, tuple[list[c_ast.Node], list[Foot]]] = {}
        self.loops: dict[int, _LoopInfo] = {}
        self._spaces: dict[str, isl.Space] = {}
        self._transfer: dict[int, tuple] = {}
        self._effects = None
        self._convex_pre: dict[int, isl.Set] = {}
        self._escapes: dict[int, bool] = {}
        self._builders: dict[tuple | None, AffineBuilder] = {}

        self.calls = CallTranslator(self)

    # -- variables and spaces ---------------------------------------------------------------
    def space(self, key: str, rank: int) -> isl.Space:
        sp = self._spaces.get(key)
        if sp is None:
            sp = isl.Space.set_alloc(ctx(), 0, rank).set_tuple_name(_DT.set, key)
            for k in range(rank):
                sp = sp.set_dim_name(_DT.set, k, f"PHI{k + 1}")
            self._spaces[key] = sp
        return sp

    def lookup(self, ident: c_ast.ID):
        d = self.f.names.decl_of(ident)
        if isinstance(d, c_ast.Enumerator):
            v = self.f.enum_value(d)
            return None if v is None else ("const", v)
        if d is not None and self.f.is_int_scalar(d):
            name = self.f.isl_name(d)
            if name in self.consts:
                return ("const", self.consts[name])
            return ("param", name)
        return None

    def builder(self, space: isl.Space | None = None) -> AffineBuilder:
        key = None if space is None else (space.get_tuple_name(_DT.set), space.dim(_DT.set))
        b = self._builders.get(key)
        if b is None or (space is not None and not b.space.is_equal(space)):
            b = AffineBuilder(space or isl.Space.set_alloc(ctx(), 0, 0), self.lookup, self.f.types)
            self._builders[key] = b
        return b

    def kind_of(self, decl: object) -> str:
        f = self.f
        if not f.is_local(decl):
            return "global"
        if f.is_static_local(decl):
            return "static"
        if f.is_formal(decl):
            return "formal"
        return "local"

    def var(self, decl: object, pointer_self: bool = False) -> VarInfo:
        """The variable info of a declaration (``pointer_self``: a pointer's own storage)."""
        f = self.f
        base = f.isl_name(decl)
        key = base + "#ptr" if pointer_self else base
        info = self.vars.get(key)
        if info is not None:
            return info
        sh = None if pointer_self else f.shape(decl)
        rank = sh.rank if sh is not None else 0
        space = self.space(key, rank)
        whole = isl.Set.universe(space)
        if sh is not None:
            from .facts import extent_set

            for k, ext in enumerate(sh.extents):
                one = extent_set(f, ext)  # {[x] : 0 <= x < ext}
                lifted = one.insert_dims(_DT.set, 0, k).add_dims(_DT.set, rank - k - 1)
                whole = whole.intersect(_on(lifted, space))
        kind = self.kind_of(decl)
        pointee = sh is not None and (kind == "formal" or f.category(decl) == "pointer")
        info = VarInfo(key, decl.name, rank, kind, whole, pointee)
        self.vars[key] = info
        self.names.setdefault(base, decl.name)
        return info

    def extern_var(self, key: str, var: str, rank: int, kind: str) -> VarInfo:
        """A variable known from a callee's summary only (a global, another function's static)."""
        info = self.vars.get(key)
        if info is None:
            info = VarInfo(key, var, rank, kind, isl.Set.universe(self.space(key, rank)), False)
            self.vars[key] = info
        return info

    def anywhere(self) -> VarInfo:
        return self.extern_var(ANYWHERE, ANYWHERE, 0, "anywhere")

    # -- driving ------------------------------------------------------------------------------
    def run(self) -> None:
        for d in self.f.names.decls:
            if variable_decl(d) and d.name:
                self.names.setdefault(self.f.isl_name(d), d.name)
        with function_budget(self.module, rs.REGION_SECONDS) as seconds, rs.time_limit(seconds):
            self.stmt(self.f.func.body)
        for k in list(self.f._by_isl):
            self.names.setdefault(k, self.f.c_name(k))

    def stmt(self, s: c_ast.Node) -> Foot:
        match s:
            case c_ast.Compound():
                foot = self.seq(s, [x for x in s.block_items or [] if x is not None], drop_locals=True)
            case c_ast.Label():
                foot = self.stmt(s.stmt)
            case c_ast.If():
                foot = self.test(s)
            case c_ast.For():
                foot = self.for_loop(s)
            case c_ast.While() | c_ast.DoWhile():
                foot = self.loop_generic(s, [s.cond] if s.cond is not None else [], [], [])
            case c_ast.Switch():
                foot = self.switch(s)
            case c_ast.Case() | c_ast.Default():
                foot = self.seq(s, [x for x in s.stmts or [] if x is not None], drop_locals=False)
            case c_ast.Break() | c_ast.Continue() | c_ast.Goto() | c_ast.EmptyStatement() | c_ast.Pragma():
                foot = Foot()
            case c_ast.Typedef() | c_ast.StaticAssert():
                foot = Foot()
            case _:
                foot = self.leaf(s)
        self.table[id(s)] = (s, foot)
        return foot

    # -- leaves ---------------------------------------------------------------------------------
    def leaf(self, s: c_ast.Node, refs: list[Ref] | None = None, calls=None, record_pre: bool = True) -> Foot:
        f = self.f
        refs = f.refs(s) if refs is None else refs
        # each reference is intersected with the precondition *before* the union, so that
        # the hull of x[i] and x[j] under j < i is j <= PHI1 <= i, not everything
        pre = self.convex_pre(s) if record_pre else None
        foot = Foot(pre=pre)
        fallback = False
        for r in refs:
            got = self.ref_region(r)
            if got is None:
                fallback = True
                continue
            key, reg = got
            foot.add(foot.w if r.mode == "write" else foot.r, key, reg)
            if self.with_in and r.mode != "write":  # IN keeps a few pieces where READ takes the hull
                foot.add(foot.i, key, rs.with_pieces(reg, rs.IN_PIECES))
        for c in (self.f.calls(s) if calls is None else calls):
            self.calls.call(c, foot, s)
        if fallback:
            self.effects_fallback(s, foot)
        foot.pre = None
        if f.has_goto:
            gone = f.int_writes(f.func.body)
            foot = self.weaken(foot, gone)
        return foot

    def convex_pre(self, s: c_ast.Node) -> isl.Set:
        """The precondition of a statement, made convex (cached)."""
        hit = self._convex_pre.get(id(s))
        if hit is None:
            hit = rs.convex_precondition(self.pre.at(s))
            self._convex_pre[id(s)] = hit
        return hit

    def weaken(self, foot: Foot, names) -> Foot:
        def w(r: rs.Reg) -> rs.Reg:
            r = rs.forget(r, names)
            return rs.Reg(r.over, isl.Set.empty(r.over.get_space()), False, r.pieces)

        return Foot(*(map_regions(m, w) for m in foot.maps()))

    def ref_region(self, r: Ref) -> tuple[str, rs.Reg] | None:
        """The region of one reference; None when only the effects analysis knows (pointers)."""
        f = self.f
        d = r.decl
        if not r.var or not variable_decl(d):
            return ANYWHERE, rs.may(isl.Set.universe(self.space(ANYWHERE, 0)))
        cat = f.category(d)
        if r.subscripts is None and not r.through_pointer:
            info = self.var(d, pointer_self=(cat == "pointer"))
            if info.rank == 0 and r.exact:
                return info.key, rs.exact(isl.Set.universe(self.space(info.key, 0)))
            return info.key, rs.may(info.whole)
        sh = f.shape(d)
        if sh is None:
            return None if r.through_pointer else (self.var(d).key, rs.may(self.var(d).whole))
        if sh.pointer and not f.stable_pointer(d):
            return None
        info = self.var(d)
        if r.subscripts is None or len(r.subscripts) != info.rank or not r.exact:
            return info.key, rs.may(info.whole)
        space = self.space(info.key, info.rank)
        b = self.builder(space)
        s = isl.Set.universe(space)
        affine = True
        for k, sub in enumerate(r.subscripts):
            pa = b.expr(sub)
            if pa is None:
                affine = False
                continue
            s = s.intersect(b.dim(k).eq_set(pa))
        if not affine:
            return info.key, rs.may(s.intersect(info.whole).coalesce())
        return info.key, rs.exact(s.coalesce())

    def effects_fallback(self, s: c_ast.Node, foot: Foot) -> None:
        """MAY regions on every array the effects analysis says ``s`` touches (pointer aliasing)."""
        if self._effects is None:
            self._effects = self.module.resource("proper_effects")
        for e in self._effects.of(s):
            if e.kind == "anywhere":
                info = self.anywhere()
            elif e.is_scalar:
                continue
            else:
                decl = e.decl if e.decl is not None else self.f.decl_by_name(e.var, e.kind)
                if not variable_decl(decl):
                    info = self.anywhere()
                else:
                    info = self.var(decl)
            foot.add(foot.w if e.action == "write" else foot.r, info.key, rs.may(info.whole))
            if e.action != "write" and self.with_in:
                foot.add(foot.i, info.key, rs.may(info.whole))

    # -- transfers ---------------------------------------------------------------------------------
    def transfer(self, s: c_ast.Node) -> tuple:
        """``("assign", name, value)`` for ``x = affine``, else ``("forget", names)``."""
        hit = self._transfer.get(id(s))
        if hit is not None:
            return hit
        f = self.f
        names = f.int_writes(s)
        target, expr, op = None, None, "="
        if isinstance(s, c_ast.Decl) and variable_decl(s) and f.is_int_scalar(s):
            static = {"static", "extern"} & set(s.storage or [])
            target, expr = (None, None) if static else (s, s.init)
            names = names | {f.isl_name(s)}  # a new variable: its old value is unrelated
        elif isinstance(s, c_ast.Assignment) and isinstance(s.lvalue, c_ast.ID):
            target, expr, op = f.names.decl_of(s.lvalue), s.rvalue, s.op
        elif isinstance(s, c_ast.UnaryOp) and s.op in ("++", "--", "p++", "p--") and isinstance(s.expr, c_ast.ID):
            target = f.names.decl_of(s.expr)
            expr, op = c_ast.Constant("int", "1"), "+=" if "+" in s.op else "-="
        out: tuple = ("forget", names)
        if target is not None and expr is not None and f.is_int_scalar(target) and op in ("=", "+=", "-="):
            name = f.isl_name(target)
            if names == {name}:
                b = self.builder()
                e = b.expr(expr)
                if e is not None and op != "=":
                    e = b.param(name).add(e) if op == "+=" else b.param(name).sub(e)
                if e is not None:
                    out = ("assign", name, e)
        self._transfer[id(s)] = out
        return out

    def back(self, foot: Foot, s: c_ast.Node) -> Foot:
        """A footprint valued after ``s``, valued before it."""
        if isinstance(s, _Init):
            init = s.s.init
            parts = [] if init is None else list(init.decls) if isinstance(init, c_ast.DeclList) else [init]
            for part in reversed(parts):
                foot = self.back(foot, part)
            return foot
        if isinstance(s, _Proper):
            names = self.f.int_writes(s.s, proper=True)
            return foot if not names else Foot(*(map_regions(m, lambda r: rs.forget(r, names)) for m in foot.maps()))
        t = self.transfer(s)
        if t[0] == "assign":
            _, name, value = t
            return Foot(*(map_regions(m, lambda r: rs.substitute(r, name, value)) for m in foot.maps()))
        names = t[1]
        if not names:
            return foot
        return Foot(*(map_regions(m, lambda r: rs.forget(r, names)) for m in foot.maps()))

    # -- sequences -------------------------------------------------------------------------------------
    def seq(self, owner: c_ast.Node, items: list[c_ast.Node], drop_locals: bool) -> Foot:
        foots = [self.stmt(x) for x in items]
        acc, tails = self.chain(items, foots)
        self.seqs[id(owner)] = (items, tails)
        if drop_locals:
            local = {self.f.isl_name(d) for d in items if isinstance(d, c_ast.Decl) and variable_decl(d)
                     and not {"static", "extern"} & set(d.storage or [])}
            if local:
                acc = Foot(*({k: v for k, v in m.items() if k.split("#")[0] not in local} for m in acc.maps()))
        return acc

    def chain(self, items: list[c_ast.Node], foots: list[Foot]) -> tuple[Foot, list[Foot]]:
        """The footprint of a sequence, and for each item what follows it, valued before it."""
        acc = Foot()
        tails: list[Foot] = [Foot()] * len(items)
        for k in range(len(items) - 1, -1, -1):
            tail = self.back(acc, items[k]) if (acc.r or acc.w or acc.i) else acc
            if self.escapes(items[k]):
                tail = Foot(*(map_regions(m, lambda r: rs.Reg(r.over, isl.Set.empty(r.over.get_space()), False,
                                                              r.pieces))
                              for m in tail.maps()))
            tails[k] = tail
            acc = self.then(foots[k], tail)
        return acc, tails

    def escapes(self, s: c_ast.Node) -> bool:
        """Whether control may leave ``s`` other than by its end (break, return, goto ...)."""
        hit = self._escapes.get(id(s))
        if hit is None:
            hit = self.f.has_jumps(s) and bool(escaping_jumps(s))
            self._escapes[id(s)] = hit
        return hit

    def then(self, first: Foot, second: Foot) -> Foot:
        """``first`` then ``second`` (both valued before ``first``)."""
        if not self.with_in:
            return Foot(merge_regions(first.r, second.r), merge_regions(first.w, second.w))
        ins = dict(first.i)
        for k, reg in second.i.items():
            wr = first.w.get(k)
            add_region(ins, k, rs.minus(reg, wr) if wr is not None else reg)
        return Foot(merge_regions(first.r, second.r), merge_regions(first.w, second.w), ins)

    # -- tests ------------------------------------------------------------------------------------------
    def condition(self, e: c_ast.Node | None) -> isl.Set | None:
        if e is None or _has_side_effects(e):
            return None
        c = self.builder().cond(e)
        return None if c is None else c.params()

    def test(self, s: c_ast.If) -> Foot:
        head = self.leaf(s)
        ft = self.stmt(s.iftrue) if s.iftrue is not None else Foot()
        fe = self.stmt(s.iffalse) if s.iffalse is not None else Foot()
        c = self.condition(s.cond)
        branch = self.choice([ft, fe], [c, None if c is None else c.complement()])
        return self.then(head, self.back(branch, _Proper(s)) if head.w else branch)

    def choice(self, foots: list[Foot], conds: list[isl.Set | None]) -> Foot:
        """One of several footprints runs: by affine conditions if all known, else MAY."""
        if all(c is not None for c in conds):
            out = Foot()
            for foot, c in zip(foots, conds):
                for mine, theirs in zip(out.maps(), foot.maps()):
                    for k, reg in theirs.items():
                        add_region(mine, k, rs.restrict(reg, c))
            return out
        out = Foot()
        for mine, *theirs in zip(out.maps(), *(f.maps() for f in foots)):
            keys = set().union(*(t.keys() for t in theirs))
            for k in keys:
                regs = [t.get(k) for t in theirs]
                space = next(r for r in regs if r is not None).over.get_space()
                acc = regs[0]
                for r in regs[1:]:
                    acc = rs.alternative(acc, r, space)
                if acc is None:
                    continue
                mine[k] = acc
        return out

    def switch(self, s: c_ast.Switch) -> Foot:
        head = self.leaf(s)
        body = [x for x in (s.stmt.block_items if isinstance(s.stmt, c_ast.Compound) else [s.stmt]) or []
                if x is not None]
        for x in body:
            self.stmt(x)
        cases = [x for x in body if isinstance(x, (c_ast.Case, c_ast.Default))]
        b = self.builder()
        e = None if _has_side_effects(s.cond) else b.expr(s.cond)
        entries, values = [], []
        for k, case in enumerate(cases):
            items: list[c_ast.Node] = []
            for nxt in cases[k:]:
                stop = False
                for st in nxt.stmts or []:
                    if isinstance(st, c_ast.Break):
                        stop = True
                        break
                    items.append(st)
                if stop:
                    break
            entries.append(self.chain(items, [self.table[id(x)][1] for x in items])[0])
            values.append(b.expr(case.expr) if isinstance(case, c_ast.Case) else _DEFAULT)
        known = [v for v in values if v is not _DEFAULT]
        if e is not None and all(v is not None for v in known):
            taken = None
            for v in known:
                one = e.eq_set(v).params()
                taken = one if taken is None else taken.union(one)
            other = params_universe() if taken is None else taken.complement()
            conds = [other if v is _DEFAULT else e.eq_set(v).params() for v in values]
        else:
            conds = [None] * len(entries)
            if not any(v is _DEFAULT for v in values):
                entries.append(Foot())
                conds.append(None)
        branch = self.choice(entries, conds)
        return self.then(head, self.back(branch, _Proper(s)) if head.w else branch)

    # -- loops --------------------------------------------------------------------------------------------
    def loop_info(self, s: c_ast.For) -> _LoopInfo:
        hit = self.loops.get(id(s))
        if hit is not None:
            return hit
        f = self.f
        # past the time limit: a loop over unknown iterations (sound, coarse)
        header = None if rs.late() else for_header(s, f.names)
        info = _LoopInfo(None, None, False, f.int_writes(s))
        if header is not None and f.is_int_scalar(header[0]) and id(header[0]) not in f.address_taken:
            decl, lb, step = header
            name = f.isl_name(decl)
            body_mod = f.int_writes(s.stmt) if s.stmt is not None else frozenset()
            b = self.builder()
            lbf, c = b.expr(lb), self.condition(s.cond)
            uses = _vars(f, lb) | _vars(f, s.cond)
            if (name not in body_mod and lbf is not None and c is not None
                    and not ((uses - {name}) & body_mod) and not _has_side_effects(s.cond)):
                i = b.param(name)
                dom = (i.ge_set(lbf) if step > 0 else i.le_set(lbf)).params().intersect(c)
                if abs(step) > 1:
                    dom = dom.intersect(i.sub(lbf).mod_val(isl.Val.int_from_si(ctx(), abs(step))).zero_set().params())
                monotone = bound_check(lambda ident: ("dim", 0) if f.names.decl_of(ident) is decl
                                       else self.lookup(ident), f.types, lb, s.cond, step, True) is None
                jumps = [j for j in escaping_jumps(s.stmt) if not isinstance(j, c_ast.Continue)] \
                    if s.stmt is not None and f.has_jumps(s.stmt) else []
                info = _LoopInfo(name, dom.coalesce(), monotone and not jumps,
                                 frozenset(f.int_writes(s) - {name}), step)
        self.loops[id(s)] = info
        return info

    def earlier(self, reg: rs.Reg, info: _LoopInfo, later: bool = False, hull: bool = True) -> rs.Reg:
        """The union of ``reg`` over the iterations before the current one (``later``: after it)."""
        name = info.name
        dom = rename_param(info.domain, name, _IP)
        b = self.builder()
        ip, i = b.param(_IP), b.param(name)
        before = (ip.lt_set(i) if (info.step > 0) != later else ip.gt_set(i)).params()
        ctxset = dom.intersect(before)

        def shift(s: isl.Set) -> isl.Set:
            s = rename_param(s, name, _IP).intersect_params(ctxset)
            from .affine import project_out_params

            return project_out_params(s, [_IP]).coalesce()

        under = shift(reg.under) if info.exact else isl.Set.empty(reg.under.get_space())
        out = rs.Reg(shift(reg.over), under, reg.exact and info.exact, reg.pieces)
        return rs.convex(out) if hull else out

    def for_loop(self, s: c_ast.For) -> Foot:
        foot = self._for_loop(s)
        if isinstance(s.init, c_ast.DeclList):  # the loop's own variables die with it
            local = {self.f.isl_name(d) for d in s.init.decls if variable_decl(d)}
            foot = Foot(*({k: v for k, v in m.items() if k.split("#")[0] not in local} for m in foot.maps()))
            foot = Foot(*(map_regions(m, lambda r: rs.forget(r, local)) for m in foot.maps()))
        return foot

    def _for_loop(self, s: c_ast.For) -> Foot:
        f = self.f
        info = self.loop_info(s)
        init_refs = f.refs(s.init) if s.init is not None else []
        cond_refs = f.refs(s.cond) if s.cond is not None else []
        next_refs = f.refs(s.next) if s.next is not None else []
        if info.name is None:
            head = self.leaf(s, init_refs, calls=call_sites(s.init) if s.init is not None else [])
            body = self.loop_generic(s, [s.cond] if s.cond is not None else [], cond_refs, next_refs)
            return self.then(head, self.back(body, _Init(s)))
        fb = self.stmt(s.stmt) if s.stmt is not None else Foot()
        fnext = self.leaf(s, next_refs, calls=[], record_pre=False)
        fb = self.then(fb, fnext)
        m = info.modified
        dom = info.domain

        def proj(r: rs.Reg) -> rs.Reg:
            return rs.project(rs.forget(r, m), info.name, dom, info.exact)

        ins = {}
        for k, reg in (fb.i.items() if self.with_in else ()):
            wr = fb.w.get(k)
            if wr is not None:
                reg = rs.minus(rs.forget(reg, m), self.earlier(rs.forget(wr, m), info, hull=False), hull=False)
            ins[k] = proj(reg)
        body = Foot(map_regions(fb.r, proj), map_regions(fb.w, proj), ins)
        head = self.leaf(s, init_refs + cond_refs, calls=[])
        # the condition is evaluated after the initialisation: valued before the loop via it
        return self.then(head, self.back(body, _Init(s)))

    def loop_generic(self, s: c_ast.Node, conds: list, cond_refs: list[Ref], next_refs: list[Ref]) -> Foot:
        """A loop with unknown iterations: everything it modifies is forgotten, MAY."""
        f = self.f
        fb = self.stmt(s.stmt) if s.stmt is not None else Foot()
        if isinstance(s, (c_ast.While, c_ast.DoWhile)):
            fc = self.leaf(s)
        else:
            fc = self.leaf(s, cond_refs + next_refs, calls=[], record_pre=False)
        m = f.int_writes(s)
        one = self.then(fb, fc) if isinstance(s, c_ast.DoWhile) else self.then(fc, fb)
        forgotten = Foot(*(map_regions(mp, lambda r: rs.forget(r, m)) for mp in one.maps()))

        def merge(over: rs.Reg, first: rs.Reg | None) -> rs.Reg:
            under = first.under if first is not None else isl.Set.empty(over.over.get_space())
            o = over.over.union(under).coalesce()
            return rs.convex(rs.Reg(o, under, over.exact and o.is_equal(under), over.pieces))

        if isinstance(s, c_ast.DoWhile):
            first = one  # the first iteration runs in the entry store
        else:
            first = fc  # the first test runs in the entry store
        return Foot(*({k: merge(v, fm.get(k)) for k, v in mo.items()}
                      for mo, fm in zip(forgotten.maps(), first.maps())))

    # -- OUT regions and summaries ---------------------------------------------------------------------------
    def out_regions(self) -> dict[int, tuple[c_ast.Node, dict[str, rs.Reg]]]:
        """OUT regions of every statement (see :mod:`.region_out`)."""

        with function_budget(self.module, rs.REGION_SECONDS) as seconds, rs.time_limit(seconds):
            return out_regions(self)
    def summary(self, modes: tuple[str, ...] = ("R", "W")):

        return summarize(self, modes)


class _Proper:
    """A stand-in statement for the transfer of a test's own condition."""

    def __init__(self, s: c_ast.Node):
        self.s = s


class _Init:
    """A stand-in statement for the transfer of a loop's initialisation."""

    def __init__(self, s: c_ast.For):
        self.s = s


def _on(s: isl.Set, space: isl.Space) -> isl.Set:
    """``s`` (anonymous, same dimensions) moved into ``space``."""
    s = s.set_tuple_name(space.get_tuple_name(_DT.set))
    for k in range(space.dim(_DT.set)):
        s = s.set_dim_name(_DT.set, k, space.get_dim_name(_DT.set, k))
    return s


def _has_side_effects(e: c_ast.Node) -> bool:

    return any(isinstance(n, (c_ast.Assignment, c_ast.FuncCall)) or (
        isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--")) for n in walk(e))


def _vars(f: FunctionFacts, e: c_ast.Node | None) -> set[str]:

    if e is None:
        return set()
    return {f.isl_name(f.names.decl_of(n)) for n in walk(e)
            if isinstance(n, c_ast.ID) and variable_decl(f.names.decl_of(n))}
