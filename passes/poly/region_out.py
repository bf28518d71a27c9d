"""OUT regions, top-down (Amini 2012, §3.2): what a statement writes that is used later.

The body's OUT regions are its writes that outlive the call (pointees of
formals, globals, static locals, ``*anywhere*``: callers are not
examined). Then, for a statement ``s_k`` of a sequence, OUT is what it
writes among what is live after it: the OUT of the sequence not certainly
overwritten by the rest, plus what the rest imports (its IN regions); in
a loop, what the following iterations import, or the loop's OUT not
overwritten by following iterations; in a branch, the test's OUT under its
condition. Over-approximations use the rest's MUST writes, under-approximations
its MAY writes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import islpy as isl
from pycparser import c_ast

from . import region_sets as rs
from .region_values import Foot, add_region, map_regions, merge_regions

if TYPE_CHECKING:
    from .region_walk import Walker


def out_regions(w: Walker) -> dict[int, tuple[c_ast.Node, dict[str, rs.Reg]]]:
    """OUT regions of every statement of the walker's function."""
    body = w.f.func.body
    writes = w.table[id(body)][1].w
    out: dict[int, tuple[c_ast.Node, dict[str, rs.Reg]]] = {}
    out_stmt(w, body, {k: r for k, r in writes.items() if exported(w, k)}, out)
    return out

def out_stmt(w: Walker, s: c_ast.Node, live: dict[str, rs.Reg], out: dict) -> None:
    """Record ``live`` as the OUT of ``s`` and propagate to what ``s`` contains."""
    out[id(s)] = (s, live)
    match s:
        case c_ast.Compound() | c_ast.Case() | c_ast.Default():
            items, tails = w.seqs.get(id(s), ([], []))
            cur = live
            for k, item in enumerate(items):
                tail = tails[k]
                alive = {}
                for key, reg in cur.items():
                    wr = tail.w.get(key)
                    alive[key] = rs.minus(reg, wr) if wr is not None else reg
                alive = merge_regions(alive, tail.i)
                mine = w.table.get(id(item), (item, Foot()))[1].w
                out_stmt(w, item, _meet(mine, alive), out)
                t = w.transfer(item)
                names = {t[1]} if t[0] == "assign" else t[1]
                if names:
                    cur = map_regions(cur, lambda r, names=names: rs.forget(r, names))
        case c_ast.Label():
            out_stmt(w, s.stmt, live, out)
        case c_ast.If():
            c = w.condition(s.cond)
            for branch, cond in ((s.iftrue, c), (s.iffalse, None if c is None else c.complement())):
                if branch is None:
                    continue
                bl = live if cond is None else map_regions(live, lambda r, cond=cond: rs.restrict(r, cond))
                out_stmt(w, branch, _meet(w.table[id(branch)][1].w, bl), out)
        case c_ast.For() if s.stmt is not None:
            info = w.loop_info(s)
            fb = w.table[id(s.stmt)][1]
            if info.name is None:
                m = w.f.int_writes(s)
                bl = merge_regions(map_regions(live, lambda r: rs.forget(r, m)), map_regions(fb.i, lambda r: rs.forget(r, m)))
                out_stmt(w, s.stmt, _meet(fb.w, _weak(bl)), out)
                return
            m = info.modified | {info.name}
            cur = map_regions(live, lambda r: rs.forget(r, m))
            alive = {}
            for key, reg in cur.items():
                wr = fb.w.get(key)
                alive[key] = rs.minus(reg, w.earlier(wr, info, later=True)) if wr is not None else reg
            for key, reg in fb.i.items():
                add_region(alive, key, w.earlier(reg, info, later=True))
            alive = map_regions(alive, lambda r: rs.restrict(r, info.domain))
            out_stmt(w, s.stmt, _meet(fb.w, alive), out)
        case c_ast.While() | c_ast.DoWhile() if s.stmt is not None:
            m = w.f.int_writes(s)
            fb = w.table[id(s.stmt)][1]
            bl = merge_regions(map_regions(live, lambda r: rs.forget(r, m)), map_regions(fb.i, lambda r: rs.forget(r, m)))
            out_stmt(w, s.stmt, _meet(fb.w, _weak(bl)), out)
        case c_ast.Switch():
            for x in (s.stmt.block_items if isinstance(s.stmt, c_ast.Compound) else []) or []:
                fx = w.table.get(id(x), (x, Foot()))[1]
                out_stmt(w, x, _meet(fx.w, _weak(live)), out)


def _meet(writes: dict[str, rs.Reg], live: dict[str, rs.Reg]) -> dict[str, rs.Reg]:
    return {k: rs.intersect(w, live[k]) for k, w in writes.items() if k in live}


def _weak(d: dict[str, rs.Reg]) -> dict[str, rs.Reg]:
    return {k: rs.Reg(r.over, isl.Set.empty(r.over.get_space()), False, r.pieces) for k, r in d.items()}


def exported(w: Walker, key: str) -> bool:
    """Whether a variable outlives the function: a formal's pointee, a global, a static."""
    v = w.vars[key]
    return v.kind in ("global", "static", "anywhere", "callee-static") or (v.kind == "formal" and v.pointee)
