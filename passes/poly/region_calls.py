"""Regions across calls: a function's summary, and its translation at call sites.

The summary of a function (:func:`summarize`) keeps the regions of its body
on what a caller can see: the pointees of pointer and array formals, globals,
static locals (renamed ``function::name``) and ``*anywhere*``; parameters that
are neither integer formals nor integer globals are projected out.

At a call site (:class:`CallTranslator`), each summary region is translated
into the caller's store (Amini 2012, Fig. 3.4):

* an integer formal becomes the actual argument when it is affine (else the
  region forgets it and becomes MAY);
* a pointer or array formal becomes the array its actual designates:
  ``A`` (offset 0), ``A[i]`` (row ``i`` of a 2-D ``A``), ``&A[i][j]`` and
  ``A + k`` (offsets on the last designated dimension). The formal's inner
  (VLA) dimensions must equal the actual's under the call's precondition,
  and the translated region must stay within the actual's extent;
  a 1-D formal viewing a multi-dimensional actual with constant inner
  sizes is delinearised exactly; anything else is a MAY region on the
  whole array (the designated row kept);
* globals keep their names; ``*anywhere*`` stays.

When a summary has inexact regions and some integer actuals are constants,
the callee is re-analysed with those formals (the ones it never modifies)
fixed to them, preconditions included (:meth:`CallTranslator.specialised`):
``A[i * lda + l]`` in a BLAS stub is then affine, and tests on enum formals
decided.

Unknown functions, calls through pointers and recursive calls take the
conservative effects of ``proper_effects`` (everything reachable from the
arguments, ``*anywhere*``), as MAY regions on whole arrays.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import islpy as isl
from pycparser import c_ast

from passman.lazy import LazyAttribute

from ..cfacts.folding import int_value
from ..cfacts.forms import array_ref_base
from . import region_sets as rs
from .affine import ctx, param_names
from .facts import extent_set, function_facts, variable_decl
from .region_out import exported
from .region_values import Foot, FormalInfo, Region, SummaryRegions

if TYPE_CHECKING:
    from .region_walk import Walker

_DT = LazyAttribute("islpy", "dim_type")


def _strip(e: c_ast.Node) -> c_ast.Node:
    while isinstance(e, c_ast.Cast):
        e = e.expr
    return e




class CallTranslator:
    """Adds the regions of the calls of a statement to its footprint."""

    def __init__(self, walker: Walker):
        self.w = walker
        self._recursive: dict[str, bool] = {}
        self._special: dict[tuple, tuple[SummaryRegions, SummaryRegions | None]] = {}

    def recursive(self, callee: str) -> bool:
        """Whether ``callee`` may call back the function being analysed (a call-graph cycle).

        Walks the callees of ``callee`` only (not the program's call graph),
        so the result depends on the functions reachable from it, as the
        summaries do: a change elsewhere keeps this function's regions cached.
        """
        hit = self._recursive.get(callee)
        if hit is None:
            ws, me = self.w.ws, self.w.module.name
            seen, todo = {callee}, [callee]
            hit = False
            while todo and not hit:
                for nxt in ws[todo.pop()].callees.names:
                    if nxt == me:
                        hit = True
                        break
                    if nxt not in seen:
                        seen.add(nxt)
                        todo.append(nxt)
            self._recursive[callee] = hit or callee == me
        return self._recursive[callee]

    def call(self, c: c_ast.FuncCall, foot: Foot, stmt: c_ast.Node) -> None:
        f = self.w.f
        if not isinstance(c.name, c_ast.ID) or variable_decl(f.names.decl_of(c.name)):
            self.w.effects_fallback(stmt, foot)
            return
        if f.callee_is_pure(c):
            return
        callee = self.w.ws.callee(c.name.name)
        if callee is None or self.recursive(callee.name):
            self.w.effects_fallback(stmt, foot)
            return
        summary: SummaryRegions = callee.resource("summary_regions")
        special = self.specialised(callee, summary, c)
        if special is not None:
            self.translate(special[0], c, foot, stmt)
            if self.w.with_in:
                self.translate(special[1], c, foot, stmt)
            return
        self.translate(summary, c, foot, stmt)
        if self.w.with_in:
            self.translate(callee.resource("summary_in_regions"), c, foot, stmt)

    def specialised(self, callee, summary: SummaryRegions, c: c_ast.FuncCall):
        """The callee's summaries re-computed with its integer formals taken as the call's
        constant actuals, or None.

        A subscript such as ``i * lda + l`` is not affine in the callee, whose summary
        is then a MAY region on the whole array; with ``lda`` constant it is. Only
        when some summary region is not exact, and only for formals the callee never
        modifies (cached per callee and constants).
        """
        if all(r.exact for r in summary.regions):
            return None
        args = list(c.args.exprs) if c.args is not None else []
        b = self.w.builder()
        consts: dict[str, int] = {}
        for k, fi in enumerate(summary.formals):
            if fi.kind != "int" or not fi.name or k >= len(args):
                continue
            pa = b.expr(args[k])
            if pa is None or not pa.is_cst() or pa.n_piece() != 1:
                continue
            val = pa.get_pieces()[0][1].get_constant_val()
            if val.is_int():
                consts[fi.name] = val.to_python()
        if not consts:
            return None

        cf = function_facts(callee)
        written = cf.int_writes(cf.func.body)
        consts = {n: v for n, v in consts.items() if n not in written}
        if not consts:
            return None
        key = (callee.name, self.w.with_in, tuple(sorted(consts.items())))
        hit = self._special.get(key)
        if hit is None:
            sw = type(self.w)(callee, with_in=self.w.with_in, consts=consts)
            sw.run()
            hit = (sw.summary(("R", "W")), sw.summary(("IN",)) if self.w.with_in else None)
            self._special[key] = hit
        return hit

    # -- translation ---------------------------------------------------------------------------------
    def translate(self, summary: SummaryRegions, c: c_ast.FuncCall, foot: Foot, stmt: c_ast.Node) -> None:
        w = self.w
        args = list(c.args.exprs) if c.args is not None else []
        b = w.builder()
        bindings: dict[str, isl.PwAff | None] = {}
        pointee: dict[str, tuple[int, FormalInfo]] = {}
        for k, fi in enumerate(summary.formals):
            if not fi.name:
                continue
            if fi.kind == "int":
                bindings[fi.name] = b.expr(args[k]) if k < len(args) else None
            elif fi.kind == "array":
                pointee[fi.name] = (k, fi)
        pre = w.pre.at(stmt)
        for region in summary.regions:
            target = {"R": foot.r, "W": foot.w, "IN": foot.i}[region.mode]
            pieces = rs.IN_PIECES if region.mode == "IN" else 1
            reg = rs.bind(rs.Reg(region.set, region.must, region.exact, pieces), bindings)
            if region.key in pointee:
                k, fi = pointee[region.key]
                got = self.actual(reg, fi, args[k] if k < len(args) else None, bindings, pre)
                if got is None:
                    w.effects_fallback(stmt, foot)
                    continue
                key, reg = got
            elif region.key == "*anywhere*":
                key = w.anywhere().key
            else:
                decl = w.f.global_decl(region.key)
                if decl is not None:
                    info = w.var(decl)
                else:
                    kind = "callee-static" if "::" in region.key else "global"
                    info = w.extern_var(region.key, region.var, region.rank, kind)
                key = info.key
            foot.add(target, key, reg)

    def address(self, arg: c_ast.Node | None):
        """What an actual argument designates: ``(decl, prefix, level, offset)``, ``("scalar", decl)``
        or None (unknown: a pointer that may alias, an expression)."""
        if arg is None:
            return None
        f = self.w.f
        e = _strip(arg)
        match e:
            case c_ast.ID():
                d = f.names.decl_of(e)
                if not variable_decl(d):
                    return None
                cat = f.category(d)
                if cat == "array" or (cat == "pointer" and f.stable_pointer(d)):
                    return d, [], 0, None
                return None
            case c_ast.UnaryOp(op="&"):
                x = _strip(e.expr)
                if isinstance(x, c_ast.ID):
                    d = f.names.decl_of(x)
                    if not variable_decl(d):
                        return None
                    if f.shape(d) is None:
                        return "scalar", d
                    return (d, [], 0, None) if f.category(d) == "array" else None
                if isinstance(x, c_ast.ArrayRef):
                    base, subs = array_ref_base(x)
                    got = self.address(base)
                    if got is None or got[0] == "scalar" or got[1]:
                        return None
                    return got[0], subs[:-1], len(subs) - 1, subs[-1]
                return None
            case c_ast.ArrayRef():
                base, subs = array_ref_base(e)
                got = self.address(base)
                if got is None or got[0] == "scalar" or got[1]:
                    return None
                return got[0], subs, len(subs), None
            case c_ast.BinaryOp(op="+" | "-"):
                for ptr, off in ((e.left, e.right), (e.right, e.left)):
                    got = self.address(ptr)
                    if got is None or got[0] == "scalar":
                        continue
                    if e.op == "-" and ptr is e.right:
                        return None
                    d, prefix, level, offset = got
                    delta = off if e.op == "+" else c_ast.UnaryOp("-", off)
                    new = delta if offset is None else c_ast.BinaryOp("+", offset, delta)
                    return d, prefix, level, new
                return None
        return None

    def actual(self, reg: rs.Reg, fi: FormalInfo, arg, bindings: Mapping[str, isl.PwAff | None],
               pre: isl.Set) -> tuple[str, rs.Reg] | None:
        """A formal's region moved onto the array its actual argument designates."""
        w = self.w
        got = self.address(arg)
        if got is None:
            return None
        if got[0] == "scalar":
            info = w.var(got[1])
            zero = isl.Set.universe(reg.over.get_space())
            for k in range(fi.rank):
                zero = zero.fix_dim_si(k, 0)
            ok = reg.over.is_subset(zero)
            space = w.space(info.key, 0)

            def flat(s: isl.Set) -> isl.Set:
                s = s.project_out(_DT.set, 0, s.dim(_DT.set))
                return isl.Set.universe(space).intersect_params(s.params())

            return info.key, rs.Reg(flat(reg.over), flat(reg.under.intersect(zero)), reg.exact and ok, reg.pieces)
        decl, prefix, level, offset = got
        info = w.var(decl)
        n, d = info.rank, fi.rank
        may = (info.key, rs.may(info.whole, reg.pieces))
        b = w.builder(reg.over.get_space())
        pre_prefix = [b.expr(p) for p in prefix]
        off = b.expr(offset) if offset is not None else b.const(0)
        if off is None or any(p is None for p in pre_prefix) or level + d > n:
            return may
        strides = self.constant_strides(decl, 0)
        if d == 1 and strides is not None:
            # delinearise from the element designated: exact, whatever row it spills into
            lin = off.scale_val(isl.Val.int_from_si(ctx(), strides[level])).add(b.dim(0))
            for j, p in enumerate(pre_prefix):
                lin = lin.add(p.scale_val(isl.Val.int_from_si(ctx(), strides[j])))
            comps = []
            for j in range(n):
                q = _floor_div(lin, strides[j])
                if j > 0:
                    q = q.mod_val(isl.Val.int_from_si(ctx(), strides[j - 1] // strides[j]))
                comps.append(isl.Map.from_pw_aff(q))
        elif level + d == n:
            comps = [isl.Map.from_pw_aff(p) for p in pre_prefix]
            comps.append(isl.Map.from_pw_aff(off.add(b.dim(0))))
            comps += [isl.Map.from_pw_aff(b.dim(t)) for t in range(1, d)]
            if d >= 2 and not self.same_inner_extents(fi, info, level, bindings, pre):
                return may
        else:
            return may
        rel = comps[0]
        for m in comps[1:]:
            rel = rel.flat_range_product(m)
        rel = rel.set_tuple_name(_DT.out, info.key)
        o = _rename_dims(reg.over.apply(rel), info.key, n)
        u = _rename_dims(reg.under.apply(rel), info.key, n)
        identity = level == 0 and offset is None and not prefix and d == n
        if not identity and not self.inside(o, decl, level, pre):
            return may
        return info.key, rs.convex(rs.Reg(o, u, reg.exact, reg.pieces))

    def inside(self, s: isl.Set, decl, first: int, pre: isl.Set) -> bool:
        """Whether the dimensions ``first..`` of ``s`` stay within the declared extents."""

        sh = self.w.f.shape(decl)
        n = s.dim(_DT.set)
        sp = pre if pre.n_basic_set() <= 1 else isl.Set.from_basic_set(pre.simple_hull())
        for j in range(first, n):
            ext = sh.extents[j] if j < len(sh.extents) else None
            if ext is None:
                continue
            proj = s.project_out(_DT.set, j + 1, n - j - 1).project_out(_DT.set, 0, j)
            proj = proj.reset_tuple_id().intersect_params(sp)
            if not proj.is_subset(extent_set(self.w.f, ext).intersect_params(sp)):
                return False
        return True

    def same_inner_extents(self, fi: FormalInfo, info, level: int, bindings, pre: isl.Set) -> bool:
        """Whether the formal's dimensions 2..d equal the actual's, under the call's precondition."""
        w = self.w
        sh = w.f.shape(w.f.decl_named(info.key))
        if sh is None:
            return False
        b = w.builder()
        for t in range(1, fi.rank):
            fe = fi.extents[t] if t < len(fi.extents) else None
            ae = sh.extents[level + t] if level + t < len(sh.extents) else None
            if fe is None or ae is None:
                return False
            ap = b.expr(ae)
            if ap is None:
                return False
            if not _extent_equal(fe, ap, bindings, pre):
                return False
        return True

    def constant_strides(self, decl, level: int) -> list[int] | None:
        """Element strides of dimensions ``level..n-1`` when the sizes after ``level`` are constants."""

        sh = self.w.f.shape(decl)
        sizes = []
        for ext in sh.extents[level + 1 :]:
            v = int_value(ext) if ext is not None else None
            if v is None or v <= 0:
                return None
            sizes.append(v)
        strides = [1]
        for v in reversed(sizes):
            strides.insert(0, strides[0] * v)
        return strides


def _floor_div(pa: isl.PwAff, k: int) -> isl.PwAff:
    return pa if k == 1 else pa.scale_down_val(isl.Val.int_from_si(ctx(), k)).floor()


def _rename_dims(s: isl.Set, key: str, n: int) -> isl.Set:
    for k in range(n):
        s = s.set_dim_name(_DT.set, k, f"PHI{k + 1}")
    return s.set_tuple_name(key).coalesce()


def _extent_equal(fe: isl.PwAff, ap: isl.PwAff, bindings: Mapping[str, isl.PwAff | None],
                  pre: isl.Set) -> bool:
    """Whether a callee's extent (its formals bound to the actuals) equals the caller's, under ``pre``."""
    tmp = {}
    graph = isl.Map.from_pw_aff(fe)
    for name in param_names(fe):
        if name in bindings:
            k = graph.find_dim_by_name(_DT.param, name)
            if not graph.involves_dims(_DT.param, k, 1):
                continue
            if bindings[name] is None:
                return False
            tmp[name] = f"__b{len(tmp)}"
            graph = graph.set_dim_name(_DT.param, k, tmp[name])
    same = graph.intersect(isl.Map.from_pw_aff(ap)).params()
    for name, t in tmp.items():
        same = same.intersect(rs.pw_equals(t, bindings[name]))
    for t in tmp.values():
        k = same.find_dim_by_name(_DT.param, t)
        if k >= 0:
            same = same.project_out(_DT.param, k, 1)
    return pre.is_subset(same)


# ------------------------------------------------------------------------------ summaries


def summarize(w: Walker, modes: tuple[str, ...] = ("R", "W")) -> SummaryRegions:
    """The summary regions of the walker's function (see the module docstring)."""

    f = w.f
    body = w.table[id(f.func.body)][1]
    formals: list[FormalInfo] = []
    allowed = set(f.int_globals)
    b = w.builder()
    for p in f.params:
        name = f.isl_name(p) if p.name else ""
        if f.is_int_scalar(p):
            formals.append(FormalInfo(name, "int", 0, ()))
            allowed.add(name)
            continue
        sh = f.shape(p)
        if sh is not None:
            exts = tuple(b.expr(e) if e is not None else None for e in sh.extents)
            formals.append(FormalInfo(name, "array", sh.rank, exts))
        else:
            formals.append(FormalInfo(name, "other", 0, ()))
    out: list[Region] = []
    names = dict(w.names)
    for mode, regs in (("R", body.r), ("W", body.w), ("IN", body.i)):
        if mode not in modes:
            continue
        for key in sorted(regs):
            if not exported(w, key):
                continue
            info = w.vars[key]
            reg = regs[key]
            drop = [n for n in set(param_names(reg.over)) | set(param_names(reg.under)) if n not in allowed]
            reg = rs.forget(reg, drop)
            new_key, var = key, info.var
            if info.kind == "static":
                new_key = var = f"{w.module.name}::{info.var}"
                reg = rs.Reg(reg.over.set_tuple_name(new_key), reg.under.set_tuple_name(new_key), reg.exact,
                             reg.pieces)
            if reg.over.is_empty():
                continue
            out.append(Region(var, new_key, mode, info.rank, reg.over, reg.under, reg.exact, names))
    return SummaryRegions(w.module.name, tuple(out), tuple(formals))
