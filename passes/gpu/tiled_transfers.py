"""Load per tile only what earlier tiles did not load (``tiled_transfers``, Amini 2012 §3.9).

A loop whose body is one isolated statement (:func:`.load_store.isolate_statement`:
device buffers, copies in, the statement, copies out) runs its tiles one after
the other; with the device buffers kept across the iterations, a tile needs to
load only the part of its region that no earlier tile loaded (Theorem 3.1,
``Load(T) = R(T) - R(t < T)`` for an array the tiles only read). Before (FIR,
the call isolated in each iteration)::

    for (int i = 0; i <= n - k; i++) {
        {
            int *src_d = passman_accel_malloc(sizeof(src[0]) * n);
            passman_accel_copy_to(src_d, src, sizeof(src[0]), 1, (size_t []){n}, (size_t []){i}, (size_t []){k});
            int *m_d = passman_accel_malloc(sizeof(m[0]) * k);
            passman_accel_copy_to(m_d, m, sizeof(m[0]), 1, (size_t []){k}, (size_t []){0}, (size_t []){k});
            ...
        tap:
            fir_tap(i, n, k, src_d, dst_d, m_d);
            ...
            passman_accel_free(src_d);
            passman_accel_free(m_d);
        }
    }

After (``module.loop(label).tiled_transfers()``)::

    int *src_d = passman_accel_malloc(sizeof(src[0]) * n);
    int *m_d = passman_accel_malloc(sizeof(m[0]) * k);
    for (int i = 0; i <= n - k; i++) {
        {
            ...
            if (i == 0) {
                passman_accel_copy_to(src_d, src, ..., (size_t []){i}, (size_t []){k});
                passman_accel_copy_to(m_d, m, ..., (size_t []){0}, (size_t []){k});
            } else if (k - 1 >= 0)
                passman_accel_copy_to(src_d, src, ..., (size_t []){i + k - 1}, (size_t []){1});
        tap:
            fir_tap(i, n, k, src_d, dst_d, m_d);
            ...
        }
    }
    passman_accel_free(src_d);
    passman_accel_free(m_d);

For each array copied in and neither copied out nor written on either side
in the loop, the box a tile ``i`` loads, ``C(i)``, is read from the copy's
offsets and counts (isl), the union of the boxes of the iterations ``lb <=
t < i`` is taken away, and the rectangular hull of what is left is loaded
instead (under a guard where it is empty for some values): the first
iteration loads its whole box. The buffer moves out of the loop, allocated
before it and freed after it. Arrays copied both ways, or written, keep their
copies per tile.

Refused (PassFailed, nothing changed): a loop that does not count up by one
from a bound the body does not change; a body that is not one isolated
statement or that can leave the loop; no array whose loads shrink (every tile
reads what no earlier tile read, or the boxes are not affine).
"""

from __future__ import annotations

from collections.abc import Mapping

import islpy as isl
from pycparser import c_ast

from passman import Loop, PassFailed, transformation
from passman.astutil import copy_node, parent_map, walk

from ..analysis.effect_model import ANYWHERE
from ..cfacts.control import describe_jump, escaping_jumps
from ..cfacts.folding import simplify
from ..cfacts.loops import for_header
from ..cfacts.names import where
from ..poly.affine import AffineBuilder, ctx, project_out_params, rename_param
from ..poly.c_expr import pw_aff_to_c, set_to_c

_TILE = "__tile_t"


class _Names(Mapping):
    """isl names of a function's variables -> their C names."""

    def __init__(self, facts):
        self.facts = facts

    def __getitem__(self, key: str) -> str:
        return self.facts.c_name(key)

    def __iter__(self):
        return iter(())

    def __len__(self) -> int:
        return 0

    def get(self, key, default=None):
        return self.facts.c_name(key)


def _call(stmt: c_ast.Node, name: str) -> bool:
    return isinstance(stmt, c_ast.FuncCall) and isinstance(stmt.name, c_ast.ID) and stmt.name.name == name


def _arg_name(call: c_ast.FuncCall, k: int) -> str | None:
    args = call.args.exprs if call.args else []
    return args[k].name if len(args) > k and isinstance(args[k], c_ast.ID) else None


def _buffer(stmt: c_ast.Node) -> str | None:
    """The name a ``T *X_d = passman_accel_malloc(...)`` declares."""
    if isinstance(stmt, c_ast.Decl) and _call(stmt.init, "passman_accel_malloc"):
        return stmt.name
    return None


def _items(literal: c_ast.Node) -> list[c_ast.Node] | None:
    """The expressions of ``(size_t []){a, b}``."""
    if isinstance(literal, c_ast.CompoundLiteral) and isinstance(literal.init, c_ast.InitList):
        return list(literal.init.exprs)
    return None


def _size_list(exprs: list[c_ast.Node]) -> c_ast.CompoundLiteral:
    t = c_ast.Typename(None, [], None, c_ast.ArrayDecl(
        c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(["size_t"])), None, []))
    return c_ast.CompoundLiteral(t, c_ast.InitList(exprs))


class _Tiles:
    """The loop, its iteration space, and the isl view of its copies."""

    def __init__(self, loop: Loop):
        self.loop = loop
        self.module = loop.module
        self.site = loop.site
        self.node = self.site.node
        self.facts = self.module.resource("poly_facts")
        self.cumulated = self.module.resource("cumulated_effects")
        self.pre = self.module.resource("preconditions")
        self.names = _Names(self.facts)
        self.what = f"{where(self.node)}: loop {loop.label} of {self.module.name}"
        header = for_header(self.node, self.facts.names)
        if header is None or header[2] != 1 or self.node.cond is None:
            raise PassFailed(f"{self.what} does not count up by one (for (i = lb; i < ub; i++))")
        self.index, self.lb, _ = header
        if not self.facts.is_int_scalar(self.index) or self.facts.category(self.index) == "unsigned":
            raise PassFailed(f"{self.what}: its index is not a signed integer")
        self.i = self.facts.isl_name(self.index)

    def builder(self) -> AffineBuilder:
        facts = self.facts

        def lookup(ident: c_ast.ID):
            d = facts.names.decl_of(ident)
            if d is not None and facts.is_int_scalar(d) and facts.category(d) != "unsigned":
                return ("param", facts.isl_name(d))
            return None

        return AffineBuilder(isl.Space.set_alloc(ctx(), 0, 0), lookup)

    def domain(self) -> isl.Set:
        """The values of the index that run, with what holds before the loop (parameters)."""
        b = self.builder()
        lb, cond = b.expr(self.lb), b.cond(self.node.cond)
        if lb is None or cond is None:
            raise PassFailed(f"{self.what}: its bounds are not affine")
        dom = b.param(self.i).ge_set(lb).params().intersect(cond.params())
        before = project_out_params(self.pre.at(self.node), [self.i])
        return dom.align_params(before.get_space()).intersect_params(before.align_params(dom.get_space()))

    def box(self, call: c_ast.FuncCall) -> isl.Set | None:
        """The elements a copy moves: ``{x : offset <= x < offset + count}`` per dimension."""
        args = call.args.exprs
        offsets, counts = _items(args[5]), _items(args[6])
        if offsets is None or counts is None or len(offsets) != len(counts):
            return None
        rank = len(offsets)
        facts = self.facts

        def lookup(ident: c_ast.ID):
            d = facts.names.decl_of(ident)
            if d is not None and facts.is_int_scalar(d):
                return ("param", facts.isl_name(d))
            return None

        b = AffineBuilder(isl.Space.set_alloc(ctx(), 0, rank), lookup)
        s = b.universe()
        for k, (o, c) in enumerate(zip(offsets, counts, strict=True)):
            lo, n = b.expr(o), b.expr(c)
            if lo is None or n is None:
                return None
            x = b.dim(k)
            s = s.intersect(x.ge_set(lo)).intersect(x.lt_set(lo.add(n)))
        return s

    def earlier(self, box: isl.Set, dom: isl.Set) -> isl.Set:
        """The union of ``box`` over the iterations before the current one."""
        b = self.builder()
        t_box = rename_param(box, self.i, _TILE)
        t_dom = rename_param(dom, self.i, _TILE)
        order = b.param(_TILE).lt_set(b.param(self.i)).params()
        ctx_ = t_dom.align_params(order.get_space()).intersect(order.align_params(t_dom.get_space()))
        t_box = t_box.align_params(ctx_.get_space())
        return project_out_params(t_box.intersect_params(ctx_.align_params(t_box.get_space())), [_TILE])


def _plan(t: _Tiles):
    """What to change: the isolated block, the refined arrays and their incremental copies."""
    body = t.node.stmt
    if not isinstance(body, c_ast.Compound):
        raise PassFailed(f"{t.what}: its body is not one isolated statement (run isolate_statement)")
    jumps = escaping_jumps(body)
    if jumps:
        raise PassFailed(f"{t.what}: its body can leave the loop ({describe_jump(jumps[0])})")
    items = body.block_items or []
    block = items[0] if len(items) == 1 and isinstance(items[0], c_ast.Compound) else body
    parts = block.block_items or []
    buffers = {_buffer(s): s for s in parts if _buffer(s)}
    if not buffers:
        raise PassFailed(f"{t.what}: its body is not one isolated statement (no device buffer; "
                         "run isolate_statement)")
    loads = [s for s in parts if _call(s, "passman_accel_copy_to") and _arg_name(s, 0) in buffers]
    stores = [s for s in parts if _call(s, "passman_accel_copy_from") and _arg_name(s, 1) in buffers]
    frees = [s for s in parts if _call(s, "passman_accel_free") and _arg_name(s, 0) in buffers]
    work = [s for s in parts if s not in loads and s not in stores and s not in frees and not _buffer(s)]
    if not work:
        raise PassFailed(f"{t.what}: the isolated block holds no statement")
    first_work = parts.index(work[0])
    dom = t.domain()
    b = t.builder()
    later = dom.intersect(b.param(t.i).gt_set(b.expr(t.lb)).params())
    modified = t.facts.int_writes(t.node)
    reasons: list[str] = []
    refined: list = []  # (buffer decl, load, free, incremental copy or None, guard or None)
    for name, decl in buffers.items():
        mine = [s for s in loads if _arg_name(s, 0) == name]
        if len(mine) != 1 or any(_arg_name(s, 1) == name for s in stores):
            continue
        load = mine[0]
        host = _arg_name(load, 1)
        free = [s for s in frees if _arg_name(s, 0) == name]
        if host is None or len(free) != 1 or parts.index(load) > first_work or parts.index(decl) > parts.index(load):
            reasons.append(f"{name}: not an isolated copy in")
            continue
        if any(_arg_name(s, 0) == host for s in stores) or _writes(t, work, {name, host}):
            reasons.append(f"{host} is written in the loop")
            continue
        copy_vars = {t.facts.isl_name(d) for n in walk(load)
                     if isinstance(n, c_ast.ID) and (d := t.facts.names.decl_of(n)) is not None
                     and t.facts.is_int_scalar(d)}
        local = {id(d) for d in walk(t.node) if isinstance(d, c_ast.Decl)}
        if any((d := t.facts.names.decl_of(n)) is not None and id(d) in local
               for n in walk(decl.init) if isinstance(n, c_ast.ID)):
            reasons.append(f"the size of {name} depends on the loop")
            continue
        lb_vars = {t.facts.isl_name(d) for n in walk(t.lb) if isinstance(n, c_ast.ID)
                   and (d := t.facts.names.decl_of(n)) is not None and t.facts.is_int_scalar(d)}
        size_isl = {t.facts.isl_name(d) for n in walk(decl.init) if isinstance(n, c_ast.ID)
                    and (d := t.facts.names.decl_of(n)) is not None and t.facts.is_int_scalar(d)}
        changed = ((copy_vars | lb_vars) - {t.i} | size_isl) & set(modified)
        if changed:
            reasons.append(f"the loop changes {', '.join(sorted(t.facts.c_name(v) for v in changed))}")
            continue
        box = t.box(load)
        if box is None:
            reasons.append(f"the box of {host} is not affine")
            continue
        box = box.align_params(dom.get_space())
        rest = box.subtract(t.earlier(box, dom).align_params(box.get_space()))
        rest = rest.intersect_params(later.align_params(rest.get_space()))
        if rest.is_equal(box.intersect_params(later.align_params(box.get_space()))):
            reasons.append(f"every tile loads {host} elements no earlier tile loaded")
            continue
        refined.append((decl, load, free[0], _incremental(t, load, rest, later), host))
    if not refined:
        why = f": {reasons[0]}" if reasons else ""
        raise PassFailed(f"{t.what}: no copy in to reduce{why}")
    return block, work[0], refined


def _writes(t: _Tiles, stmts: list, names: set[str]) -> bool:
    """Whether the statements may write a variable of ``names`` (or anything)."""
    for s in stmts:
        for e in t.cumulated.of(s):
            if e.action == "write" and (e.var in names or e.var == ANYWHERE):
                return True
        if s not in t.cumulated and not isinstance(s, c_ast.Label):
            return True
    return False


def _incremental(t: _Tiles, load: c_ast.FuncCall, rest: isl.Set, later: isl.Set):
    """``(copy, guard)`` of the hull of ``rest`` (None when it is always empty)."""
    nonempty = rest.params()
    if nonempty.is_empty():
        return None
    offsets, counts = [], []
    for k in range(rest.dim(isl.dim_type.set)):
        lo, hi = rest.dim_min(k).gist_params(nonempty), rest.dim_max(k).gist_params(nonempty)
        one = isl.PwAff.from_aff(isl.Aff.zero_on_domain(isl.LocalSpace.from_space(hi.get_domain_space()))
                                 .set_constant_val(1))
        off, count = pw_aff_to_c(lo, t.names), pw_aff_to_c(hi.sub(lo).add(one), t.names)
        if off is None or count is None:
            raise PassFailed(f"{t.what}: the new part of a box has no bounds in C")
        offsets.append(simplify(off))
        counts.append(simplify(count))
    args = [copy_node(a) for a in load.args.exprs]
    args[5], args[6] = _size_list(offsets), _size_list(counts)
    copy_ = c_ast.FuncCall(c_ast.ID("passman_accel_copy_to"), c_ast.ExprList(args), load.coord)
    later = later.align_params(nonempty.get_space())
    nonempty = nonempty.align_params(later.get_space())
    guard = None if later.is_subset(nonempty) else set_to_c(nonempty.gist(later), t.names)
    return copy_, guard


@transformation(scope="loop", reads=["poly_facts", "cumulated_effects", "preconditions"])
def tiled_transfers(loop: Loop) -> None:
    """Load per tile only what earlier tiles did not load (see the module docstring)."""
    t = _Tiles(loop)
    block, first_work, refined = _plan(t)
    module = loop.module
    outer = t.site.labelled if t.site.labelled is not None else t.node
    parent = parent_map(module.ast).get(id(outer))
    if not isinstance(parent, c_ast.Compound):
        raise PassFailed(f"{t.what}: the loop is not a statement of a block")
    items = block.block_items
    firsts, nexts = [], []
    for decl, load, free, inc, _ in refined:
        items.remove(decl)
        items.remove(load)
        items.remove(free)
        firsts.append(load)
        if inc is not None:
            copy_, guard = inc
            nexts.append(copy_ if guard is None else c_ast.If(guard, copy_, None, copy_.coord))
    first = c_ast.BinaryOp("==", c_ast.ID(t.index.name), copy_node(t.lb))
    other = None if not nexts else nexts[0] if len(nexts) == 1 else c_ast.Compound(nexts)
    test = c_ast.If(first, c_ast.Compound(firsts), other, t.node.coord)
    items.insert(items.index(first_work), test)
    k = next(j for j, x in enumerate(parent.block_items) if x is outer)
    parent.block_items[k + 1:k + 1] = [free for _, _, free, _, _ in refined]
    parent.block_items[k:k] = [decl for decl, _, _, _, _ in refined]
