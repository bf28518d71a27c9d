"""Dimension-lifted transpose of a time-iterated stencil's arrays (``dlt``).

Henretty et al. (CC 2011), the layout of SDSL (Freitag 2014 §2.3): the
innermost dimension of an array, of extent ``E``, is viewed as ``V`` rows
of ``M = ceil(E / V)`` elements and transposed, so element ``i`` lives at
``pos(i) = (i % M) * V + i / M``. The neighbours ``i - 1`` and ``i + 1`` of
``i`` then sit ``V`` places away, in the same lane of the next vectors:
``b[i] = f(a[i - 1], a[i], a[i + 1])`` over ``V`` consecutive ``i`` of the
new layout reads three whole, aligned vectors instead of two that straddle
their neighbours. On this project's x86-64 host (``gcc -O3``, SSE2, 2
doubles a vector) a sweep of jacobi-1d in the cache ran 1.4-1.5 times
faster, a sweep of jacobi-2d 1.3 times: the original's loads and stores at
``i +- 1`` cross a cache line every fourth vector.

The pass works on a static control part that is one loop (the time loop)
holding all its statements. Before (jacobi-1d)::

    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
        for (i = 1; i < n - 1; i++)
            a[i] = 0.33333 * (b[i - 1] + b[i] + b[i + 1]);
    }

After (``dlt()``, ``V = 2``; shape)::

    {
        long passman_dlt_m_a = ((long) n + 1) / 2;
        double *restrict passman_dlt_a = malloc(sizeof *passman_dlt_a * (size_t) (passman_dlt_m_a * 2));
        ... the same for b
        if (passman_dlt_a != NULL && passman_dlt_b != NULL) {
            if (<the part touches a>)
                for (long passman_x0 = 0; passman_x0 <= n - 1; passman_x0++)   // the elements it touches
                    passman_dlt_a[pos(passman_x0)] = a[passman_x0];
            ...
            for (t = 0; t < tsteps; t++) {
                {
                    long passman_lo = 1, passman_hi = n - 1;
                    long passman_klo = ..., passman_khi = ...;   // where every lane is inside
                    for (long passman_q = passman_klo * 2; passman_q < passman_khi * 2; passman_q++)
                        passman_dlt_b[passman_q] = 0.33333 * (passman_dlt_a[passman_q - 2]
                            + passman_dlt_a[passman_q] + passman_dlt_a[passman_q + 2]);
                    for (long passman_r = 0; passman_r < 2; passman_r++) {
                        ... the lanes' ends, element by element through pos()
                    }
                    i = passman_lo > passman_hi ? passman_lo : passman_hi;
                }
                ... the same for a
            }
            ... the elements the part writes copied back
        } else
            <the time loop as it was>
        free(passman_dlt_a);
        free(passman_dlt_b);
    }

A *sweep* (an innermost loop ``for (j = lo; j < hi; j++)`` of the part,
``<=`` too, step 1) runs on whole vectors when its index appears only as
the last subscript ``j + c`` (``c`` a constant) of transposed arrays of
one extent, and it carries no dependence (its iterations then run lane
by lane, in another order). Any other reference to a transposed array in
the part reads ``pos()`` of its subscript, in the original order.

Legality (never miscompile): the part calls nothing but libm's pure
functions (a call could read an array through another name); every
reference to a transposed array is a whole element ``X[..][..]`` (the name
is used for nothing else), affine, and inside the array's declared
extents (checked with isl, so the copies hold every element the part
touches); no declaration in the part takes a transposed array's name;
the elements the part writes form a box (the copy back writes exactly
them); each vector sweep carries no dependence. Distinct array variables
are assumed not to overlap, as in every polyhedral pass of passman
(:mod:`.scop`). Where an allocation fails the part runs as it was.
Refused with ``PassFailed`` otherwise; a refusal changes nothing.

Properties:

- vector: ``V``, elements of one vector (2 default: SSE2's doubles), 2 to 16
- label: the time loop (the part containing it; "" default: the first part that is a time loop)
- arrays: the arrays to transpose, "a,b" ("" default: every array some sweep can run on whole vectors)
- parallel: one OpenMP region around the time loop (false default): every thread runs the time
  loop (its index a fresh local); a sweep of the time loop's body is shared out in chunks beside
  its lanes' ends, then a barrier; a loop carrying no dependence is shared out (the scalars it
  writes private); anything else runs on one thread (``omp single``). Refused when a scalar the
  time loop writes is used outside it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import islpy as isl
from pycparser import c_ast, c_parser

from passman import Module, PassFailed, transformation
from passman.astutil import copy_node, parent_map, replace_child, walk
from passman.printer import to_c, to_c_operand

from ..cfacts.folding import int_value
from ..cfacts.names import (
    file_scope,
    fresh_name,
    names_in_scope,
    pointer_declaration,
    resolve_names,
    where,
)
from ..cfacts.sideeffects import PURE_LIBM, writes
from ..loops.counted import NotCounted, counted_header
from .c_expr import dim_bounds_to_c, set_to_c
from .codegen import replace_part
from .dependences import Dependence, Dependences
from .facts import extent_set, function_facts
from .regions import set_is_box
from .scop import ArrayInfo, Scop, ScopLoop

#: the widest vector ``dlt`` accepts
VECTOR_MAX = 16
#: prefix of every name the pass declares
PREFIX = "passman"
#: vector-loop elements per call where the threads share a sweep out
CHUNK = 4096
#: ``#pragma GCC unroll`` of the outlined vector loops
UNROLL = 8


@dataclass
class _Array:
    """A transposed array: its declaration, its copy's name and the name of its ``M``."""

    info: ArrayInfo
    decl: c_ast.Decl
    copy: str = ""
    m: str = ""

    @property
    def rank(self) -> int:
        return self.info.rank

    @property
    def last_extent(self) -> str:
        return to_c(self.info.extents[-1])


@dataclass
class _Sweep:
    """An innermost loop of the part that may run on whole vectors of the new layout."""

    loop: ScopLoop
    index: str
    lo: c_ast.Node
    hi: c_ast.Node  # exclusive
    outside: bool  # the index is declared outside the loop: its final value is assigned after it
    carried: str | None = None  # why the loop's iterations cannot run in another order
    top: bool = False  # a statement of the time loop's body itself (shared out among the threads)
    offsets: dict[int, int] = field(default_factory=dict)  # id(chain top) -> c of ``j + c``
    arrays: set[str] = field(default_factory=set)
    problem: str | None = None  # why it is no vector sweep (None: it is one)


def _chains(root: c_ast.Node) -> Iterator[tuple[c_ast.ArrayRef, c_ast.Node, list[c_ast.Node]]]:
    """Every maximal chain ``X[s0]..[sk]`` under ``root``: (its top, its base, its subscripts outermost first)."""
    stack = [root]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.ArrayRef):
            subs, base = [], n
            while isinstance(base, c_ast.ArrayRef):
                subs.append(base.subscript)
                base = base.name
            subs.reverse()
            yield n, base, subs
            stack.extend(subs)
            stack.append(base)
            continue
        stack.extend(c for _, c in n.children())


def _offset(sub: c_ast.Node, index: str) -> int | None:
    """``c`` when ``sub`` is ``index``, ``index + c``, ``c + index`` or ``index - c``; None otherwise."""
    match sub:
        case c_ast.ID(name=n) if n == index:
            return 0
        case c_ast.BinaryOp(op="+", left=c_ast.ID(name=n), right=r) if n == index:
            return int_value(r)
        case c_ast.BinaryOp(op="+", left=left, right=c_ast.ID(name=n)) if n == index:
            return int_value(left)
        case c_ast.BinaryOp(op="-", left=c_ast.ID(name=n), right=r) if n == index:
            v = int_value(r)
            return None if v is None else -v
    return None


def _along(base: c_ast.Node, subs: list[c_ast.Node], index: str, arrays) -> int | None:
    """``c`` when the chain ``base[subs..]`` is ``X[..][index + c]`` of an array in ``arrays`` whose
    other subscripts do not read ``index``; None otherwise."""
    if not (isinstance(base, c_ast.ID) and base.name in arrays):
        return None
    if any(isinstance(x, c_ast.ID) and x.name == index for s in subs[:-1] for x in walk(s)):
        return None
    return _offset(subs[-1], index)


def _header(loop: c_ast.For) -> tuple[str, c_ast.Node, c_ast.Node, bool] | None:
    """``(j, lo, hi exclusive, declared outside)`` of a counted loop of step 1 (the spellings of
    :func:`~passman.passes.loops.counted.counted_header`, all canonical for OpenMP); None for any
    other header."""
    try:
        h = counted_header(loop)
    except NotCounted:
        return None
    return (h.index, h.lb, h.ub, h.index_decl is None) if h.step == 1 else None


class _Plan:
    """What ``dlt`` does to one part, every check made before any change."""

    def __init__(self, module: Module, part: Scop, deps: Sequence[Dependence], vector: int, wanted: set[str],
                 parallel: bool = False):
        self.module, self.part, self.vector, self.parallel = module, part, vector, parallel
        self.deps = deps
        self.helpers: list[c_ast.FuncDef] = []  # the outlined vector loops, put before the function
        self.where = part.where
        self.nonempty: isl.Set | None = None  # the parameters where every declared extent is at least 1
        self._check_calls()
        self.arrays = self._candidates(wanted)
        self.sweeps = self._sweeps(deps)
        self._settle(wanted)
        for a in self.arrays.values():
            self._check_references(a)
        if parallel:
            self._check_parallel()

    # -- checks ------------------------------------------------------------------------------------

    def _check_calls(self) -> None:
        for top in self.part.nodes:
            for n in walk(top):
                if isinstance(n, c_ast.FuncCall):
                    name = n.name.name if isinstance(n.name, c_ast.ID) else to_c(n.name)
                    if name not in PURE_LIBM:
                        raise PassFailed(f"{where(n)}: the time loop calls {name}, which may read the arrays "
                                         "through another name: no transposed copy of them")

    def _candidates(self, wanted: set[str]) -> dict[str, _Array]:
        """Arrays of the part with declared extents, by C name."""
        out: dict[str, _Array] = {}
        for info in self.part.arrays.values():
            if info.rank == 0 or info.expanded or not isinstance(info.decl, c_ast.Decl):
                continue
            if any(e is None for e in info.extents) or len(info.extents) != info.rank:
                if info.var in wanted:
                    raise PassFailed(f"{self.where}: {info.var} has no declared extent in every dimension")
                continue
            out[info.var] = _Array(info, info.decl)
        for name in wanted - set(out):
            raise PassFailed(f"{self.where}: {name} is no array of the time loop")
        return out

    def _sweeps(self, deps: Sequence[Dependence]) -> list[_Sweep]:
        inner = {id(s.loops[-1].node): s.loops[-1] for s in self.part.statements if s.loops}
        out = []
        for lp in inner.values():
            if any(isinstance(n, c_ast.For) for n in walk(lp.node.stmt)):
                continue
            header = _header(lp.node)
            if header is None:
                continue
            index, lo, hi, outside = header
            sweep = _Sweep(lp, index, lo, hi, outside)
            carried = [d for d in deps if d.level == lp.depth + 1 and len(d.loops) > lp.depth
                       and d.loops[lp.depth].node is lp.node and not d.relation.is_empty()]
            if carried:
                sweep.carried = f"loop {lp.var} carries a dependence: {carried[0].why()}"
            out.append(sweep)
        return out

    def _classify(self, sweep: _Sweep) -> None:
        """The sweep's offsets, or its problem: its index used other than as ``X[..][j + c]``."""
        sweep.problem = sweep.carried
        if sweep.problem is not None:
            return
        body = sweep.loop.node.stmt
        sweep.offsets, sweep.arrays = {}, set()
        bases: set[int] = set()
        for top, base, subs in _chains(body):
            c = _along(base, subs, sweep.index, self.arrays)
            if c is None:
                continue
            sweep.offsets[id(top)] = c
            sweep.arrays.add(base.name)
            bases.add(id(subs[-1]))
        for top, base, subs in _chains(body):
            if id(top) in sweep.offsets:
                bases |= {id(x) for x in walk(subs[-1])}
            elif isinstance(base, c_ast.ID) and base.name in self.arrays:
                # the outlined loop sees the copies only through the chains along the index
                sweep.problem = f"{where(top)}: {to_c(top)} is not along {sweep.index}"
                return
        for n in walk(body):
            if isinstance(n, c_ast.ID) and n.name == sweep.index and id(n) not in bases:
                sweep.problem = f"{where(n)}: {sweep.index} is used other than as the last subscript of an array"
                return
        if not sweep.arrays:
            sweep.problem = f"loop {sweep.loop.var} reads no array along {sweep.index}"
        elif len({self.arrays[a].last_extent for a in sweep.arrays}) > 1:
            sweep.problem = f"the arrays of loop {sweep.loop.var} differ in their last extent"

    def _settle(self, wanted: set[str]) -> None:
        """Keep the arrays some vector sweep runs on; a sweep on an array dropped is no vector sweep."""
        if wanted:
            self.arrays = {k: v for k, v in self.arrays.items() if k in wanted}
        while True:
            for s in self.sweeps:
                self._classify(s)
            used = {a for s in self.sweeps if s.problem is None for a in s.arrays}
            if used == set(self.arrays):
                break
            self.arrays = {k: v for k, v in self.arrays.items() if k in used}
        if not any(s.problem is None for s in self.sweeps):
            reasons = "; ".join(sorted({s.problem for s in self.sweeps if s.problem})) or "no innermost loop"
            raise PassFailed(f"{self.where}: no loop of the time loop can run on whole vectors of a "
                             f"transposed layout: {reasons}")

    def _check_references(self, a: _Array) -> None:
        """Every use of the array is a whole element, affine, inside its declared extents."""
        name = a.info.var
        bases: set[int] = set()
        for top in self.part.nodes:
            for n in walk(top):
                if isinstance(n, c_ast.Decl) and n.name == name:
                    raise PassFailed(f"{where(n)}: a declaration in the time loop takes the name {name}")
            for _top, base, subs in _chains(top):
                if isinstance(base, c_ast.ID) and base.name == name:
                    if len(subs) != a.rank:
                        raise PassFailed(f"{where(base)}: {name} is used with {len(subs)} of its {a.rank} "
                                         "subscripts: no transposed copy of it")
                    bases.add(id(base))
            for n in walk(top):
                if isinstance(n, c_ast.ID) and n.name == name and id(n) not in bases:
                    raise PassFailed(f"{where(n)}: {name} is used other than as an element: "
                                     "no transposed copy of it")
        f = function_facts(self.module)
        box = None
        for ext in a.info.extents:
            one = extent_set(f, ext)
            if one.plain_is_universe():
                raise PassFailed(f"{self.where}: the extent {to_c(ext)} of {name} is not affine in the "
                                 "function's parameters")
            box = one if box is None else box.flat_product(one)
            # the transposed part runs only where every extent is at least 1 (:func:`dlt_part`'s guard)
            self.nonempty = one.params() if self.nonempty is None else self.nonempty.intersect(one.params())
        for s in self.part.statements:
            for acc in s.accesses:
                if acc.var != name:
                    continue
                if not acc.affine:
                    raise PassFailed(f"{where(acc.node)}: {acc.text} is not affine in the loop indices")
                rng = acc.relation.range()
                rng = rng.intersect_params(self.nonempty.align_params(rng.get_space()))
                declared = box.set_tuple_name(rng.get_tuple_name())
                rng = rng.align_params(declared.get_space())
                declared = declared.align_params(rng.get_space())
                if not rng.is_subset(declared):
                    raise PassFailed(f"{where(acc.node)}: {acc.text} may leave the declared extents of {name}")

    def _check_parallel(self) -> None:
        """One region around the time loop: a simple time loop header, and the scalars the threads
        write (the indices of loops other than the time loop's) used nowhere outside the part."""
        time = _unlabelled(self.part.nodes[0]) if len(self.part.nodes) == 1 else None
        if not isinstance(time, c_ast.For):
            raise PassFailed(f"{self.where}: the part is not one time loop: no parallel region around it")
        if _header(time) is None:
            raise PassFailed(f"{where(time)}: the time loop's header is not 'for (t = lo; t < hi; t++)': "
                             "no parallel region around it")
        inside = {id(n) for n in walk(time)}
        arrays = {base.name for _t, base, _s in _chains(time) if isinstance(base, c_ast.ID)}
        written = {w.base.name for w in writes(time.stmt) if w.base is not None} - arrays
        for n in walk(self.module.ast):
            if isinstance(n, c_ast.ID) and n.name in written and id(n) not in inside \
                    and n.name not in self.arrays:
                raise PassFailed(f"{where(n)}: {n.name}, written in the time loop, is used outside it: "
                                 "no parallel region around it")

    def loop_parallel(self, node: c_ast.For) -> bool:
        """Whether a loop of the part carries no dependence."""
        lp = next((lp for lp in self.part.loops if lp.node is node), None)
        return lp is not None and not any(
            d.level == lp.depth + 1 and len(d.loops) > lp.depth and d.loops[lp.depth].node is node
            and not d.relation.is_empty() for d in self.deps)

    # -- the sets copied -----------------------------------------------------------------------------

    def touched(self, a: _Array, writes_only: bool) -> isl.Set | None:
        out = None
        for s in self.part.statements:
            for acc in s.accesses:
                if acc.var == a.info.var and (acc.is_write or not writes_only):
                    r = acc.relation.range()
                    out = r if out is None else out.union(r)
        if out is None:
            return None
        return out.intersect_params(self.nonempty.align_params(out.get_space())).coalesce()


def _parse_statements(text: str) -> list[c_ast.Node]:
    """Statements of C text free of type names (the pass's own scaffolding)."""
    fn = c_parser.CParser().parse("void f(void) {\n" + text + "\n}").ext[0]
    for n in walk(fn):
        n.coord = None  # the caller gives them the part's
    return list(fn.body.block_items or [])


def _plus(e: str, c: int) -> str:
    return f"{e} + {c}" if c > 0 else f"{e} - {-c}" if c < 0 else e


def _lane_pos(c: int, m: str, v: int) -> str:
    """``pos(i + c)`` at a lane's end, ``i = r * M + k``: ``(k + c) * V + r`` while ``k + c`` stays in
    lane ``r``, the division only where it leaves it (rows of 80 points spent more in the divisions
    of their four ends than in their vector loop)."""
    p, kc = PREFIX, _plus(f"{PREFIX}_k", c)
    if c == 0:
        return f"{p}_k * {v} + {p}_r"
    leaves = f"{kc} >= {m}" if c > 0 else f"{kc} < 0"
    return f"({leaves} ? {_pos(_plus(f'{p}_i', c), m, v)} : ({kc}) * {v} + {p}_r)"


def _pos(e: str, m: str, v: int) -> str:
    return f"(({e}) % {m} * {v} + ({e}) / {m})"


def _copy_loops(plan: _Plan, a: _Array, s: isl.Set | None, back: bool) -> list[c_ast.Node]:
    """Loops copying the box around ``s`` into the transposed copy, or back (``s`` a box then)."""
    if s is None or s.is_empty():
        return []
    names = dict(plan.part.names)
    iters, head, bounds = [], "", []
    for k in range(a.rank):
        lo, hi = dim_bounds_to_c(s, k, names)
        if lo is None or hi is None:
            raise PassFailed(f"{plan.where}: the elements of {a.info.var} the time loop touches are unbounded")
        bounds.append((to_c_operand(lo), to_c_operand(hi)))
    for k, (lo, hi) in enumerate(bounds):
        x = f"{PREFIX}_x{k}"
        iters.append(x)
        head += f"for (long {x} = {lo}; {x} <= {hi}; {x}++)\n"
    orig = a.info.var + "".join(f"[{x}]" for x in iters)
    new = a.copy + "".join(f"[{x}]" for x in iters[:-1]) + f"[{_pos(iters[-1], a.m, plan.vector)}]"
    text = head + (f"{orig} = {new};" if back else f"{new} = {orig};")
    cond = to_c(set_to_c(s.params(), names))
    return _parse_statements(f"if ({cond})\n{text}" if cond not in ("1", "(1)") else text)


def _rewrite_sweep(plan: _Plan, sweep: _Sweep) -> c_ast.Node:
    """The sweep on whole vectors where every lane is inside, element by element at the lanes' ends."""
    v, body = plan.vector, sweep.loop.node.stmt
    arrays = {n: plan.arrays[n] for n in sweep.arrays}
    m = arrays[min(arrays)].m
    cmin = min([0, *sweep.offsets.values()])
    cmax = max([0, *sweep.offsets.values()])
    p = PREFIX
    text = f"""{{
long {p}_lo = {to_c_operand(sweep.lo)}, {p}_hi = {to_c_operand(sweep.hi)};
long {p}_klo = {p}_lo > {-cmin} ? {p}_lo : {-cmin};
long {p}_khi = {p}_hi - {v - 1} * {m} < {m} - {cmax} ? {p}_hi - {v - 1} * {m} : {m} - {cmax};
{p}_vector_part;
for (long {p}_r = 0; {p}_r < {v}; {p}_r++) {{
    for (long {p}_k = 0; {p}_k < {m} && {p}_k < {p}_klo; {p}_k++) {{
        long {p}_i = {p}_r * {m} + {p}_k;
        if ({p}_i >= {p}_lo && {p}_i < {p}_hi)
            {p}_lane_body;
    }}
    for (long {p}_k = {p}_khi > {p}_klo ? {p}_khi : {p}_klo; {p}_k < {m}; {p}_k++) {{
        long {p}_i = {p}_r * {m} + {p}_k;
        if ({p}_i >= {p}_lo && {p}_i < {p}_hi)
            {p}_lane_body;
    }}
}}
{f"{sweep.index} = {p}_lo > {p}_hi ? {p}_lo : {p}_hi;" if sweep.outside and not plan.parallel else ""}
}}"""
    block = _parse_statements(text)[0]

    def body_copy(lane: bool) -> c_ast.Node:
        out = copy_node(body)
        for top, base, subs in list(_chains(out)):
            c = _along(base, subs, sweep.index, arrays)
            if c is None:
                continue
            a = arrays[base.name]
            base.name = a.copy
            sub = _lane_pos(c, a.m, v) if lane else _plus(f"{p}_q", c * v)
            top.subscript = _parse_statements(f"x = {sub};")[0].rvalue
        return out

    for n in walk(block):
        for attr in ("stmt", "iftrue"):
            child = getattr(n, attr, None) if isinstance(n, (c_ast.For, c_ast.If)) else None
            if isinstance(child, c_ast.ID) and child.name == f"{p}_lane_body":
                setattr(n, attr, body_copy(True))
    q0, q1 = f"{p}_klo * {v}", f"{p}_khi * {v}"
    helper = _outlined(plan, sweep, body_copy(False))
    if helper is None:  # the loop itself (gcc reloads what it could keep: no restrict to tell it)
        vector = _parse_statements(f"for (long {p}_q = {q0}; {p}_q < {q1}; {p}_q++) ;")[0]
        vector.stmt = body_copy(False)
    elif plan.parallel and sweep.top:  # shared out by chunks, each a call
        name, args = helper
        vector = _parse_statements(
            f"for (long {p}_c = {q0}; {p}_c < {q1}; {p}_c += {CHUNK})\n"
            f"    {name}({p}_c, {p}_c + {CHUNK} < {q1} ? {p}_c + {CHUNK} : {q1}{args});")[0]
    else:
        name, args = helper
        vector = _parse_statements(f"{name}({q0}, {q1}{args});")[0]
    items = block.block_items
    k = next(i for i, n in enumerate(items) if isinstance(n, c_ast.ID) and n.name == f"{p}_vector_part")
    items[k] = vector
    _set_coords(block, sweep.loop.node.coord)
    return block


def _outlined(plan: _Plan, sweep: _Sweep, body: c_ast.Node) -> tuple[str, str] | None:
    """The vector loop as a static function whose arrays are ``restrict`` parameters (gcc then keeps
    ``x[q + V]`` in a register for the next vectors' ``x[q]``): its name and the call's arguments after
    the range; None where its free variables are not scalars, or a written array is reached through
    two rows (``restrict`` would then not hold)."""
    p = PREFIX
    copies = {a.copy: a for a in plan.arrays.values()}
    groups: dict[tuple[str, str], str] = {}
    args: list[str] = []
    params: list[c_ast.Node] = []
    written = {w.base.name for w in writes(body) if w.base is not None}
    for top, base, subs in list(_chains(body)):
        if not (isinstance(base, c_ast.ID) and base.name in copies):
            continue
        a = copies[base.name]
        key = (base.name, "".join(f"[{to_c(x)}]" for x in subs[:-1]))
        if key not in groups:
            if base.name in written and any(g[0] == base.name for g in groups):
                return None
            groups[key] = f"{p}_p{len(groups)}"
            args.append(base.name if a.rank == 1 else f"&{base.name}{key[1]}[0]")
            element = copy_node(_element_type(a.decl))
            params.append(c_ast.Decl(groups[key], [], [], [], [], c_ast.PtrDecl(["restrict"], c_ast.TypeDecl(
                groups[key], [], None, element)), None, None))
        top.name = c_ast.ID(groups[key])
    table = resolve_names(plan.module.ast, file_scope(plan.module.cu.ast.ext))
    original = sweep.loop.node.stmt
    calls = {id(n.name) for n in walk(original) if isinstance(n, c_ast.FuncCall)}
    local = {d.name for d in walk(original) if isinstance(d, c_ast.Decl)}
    used = {n.name for n in walk(body) if isinstance(n, c_ast.ID)}  # the chains' rows are arguments now
    seen: set[str] = set()
    for n in walk(original):
        if not isinstance(n, c_ast.ID) or id(n) in calls or n.name in local or n.name in plan.arrays \
                or n.name == sweep.index or n.name in seen or n.name not in used:
            continue
        seen.add(n.name)
        decl = table.decl_of(n)
        if decl is None or not table.is_local(decl):
            continue  # a global: the function sees it too
        if not (isinstance(decl, c_ast.Decl) and isinstance(decl.type, c_ast.TypeDecl)):
            return None
        t = copy_node(decl.type)
        t.declname = n.name
        params.append(c_ast.Decl(n.name, [], [], [], [], t, None, None))
        args.append(n.name)
    taken = {getattr(x, "name", None) or getattr(getattr(x, "decl", None), "name", None)
             for x in [*plan.module.cu.ast.ext, *plan.helpers]} | names_in_scope(plan.module.ast, plan.module.cu.ast.ext)
    name = fresh_name(f"{plan.module.name}_dlt_sweep", taken)
    # unrolled by 8: gcc's loop over a range known only at run time otherwise spends a quarter more
    # (jacobi-1d: 0.19 s against 0.15 s for a range it knows)
    text = (f"static void {name}(long {p}_q0, long {p}_q1) {{\n#pragma GCC unroll {UNROLL}\n"
            f"for (long {p}_q = {p}_q0; {p}_q < {p}_q1; {p}_q++) ;\n}}")
    func = c_parser.CParser().parse(text).ext[0]
    func.decl.type.args.params += params
    for n in walk(func):
        n.coord = plan.module.ast.decl.coord
    func.body.block_items[-1].stmt = body
    plan.helpers.append(func)
    return name, "".join(f", {x}" for x in args)


def _element_type(decl: c_ast.Decl) -> c_ast.Node:
    t = decl.type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    return t.type


def _parallel_region(plan: _Plan, time: c_ast.For, blocks: set[int]) -> c_ast.Node:
    """One ``omp parallel`` region around the time loop: every thread runs the time loop (its index a
    fresh local); a vector sweep is shared out (``omp for nowait``) beside its lanes' ends (``omp single
    nowait``), then a barrier; a loop that carries no dependence is shared out (``omp for``); anything
    else runs on one thread (``omp single``)."""
    index, lo, hi, outside = _header(time)
    taken = names_in_scope(plan.module.ast, plan.module.cu.ast.ext)
    t = fresh_name(f"{PREFIX}_t", taken)
    coord = time.coord
    items = time.stmt.block_items if isinstance(time.stmt, c_ast.Compound) else [time.stmt]
    out: list[c_ast.Node] = []
    for item in items:
        inner = _unlabelled(item)
        if id(inner) in blocks:
            _share_sweep(inner, coord)
            out.append(item)
        elif isinstance(inner, c_ast.For) and _header(inner) is not None and plan.loop_parallel(inner):
            # (a header OpenMP accepts as it is) the scalars its iterations write (inner loops'
            # indices): each thread's own
            own = {_header(inner)[0]}
            arrays = {base.name for _t, base, _s in _chains(inner) if isinstance(base, c_ast.ID)}
            declared = {d.name for d in walk(inner) if isinstance(d, c_ast.Decl)}
            private = sorted({w.base.name for w in writes(inner.stmt) if w.base is not None}
                             - arrays - declared - own)
            clause = f" private({', '.join(private)})" if private else ""
            out += [c_ast.Pragma(f"omp for schedule(static){clause}", coord), item]
        elif isinstance(item, c_ast.Pragma):
            continue
        else:
            out += [c_ast.Pragma("omp single", coord), item]
    for n in walk(c_ast.Compound(out, coord)):
        if isinstance(n, c_ast.ID) and n.name == index:
            n.name = t
    text = f"for (long {t} = {to_c_operand(lo)}; {t} < {to_c_operand(hi)}; {t}++) {{ }}"
    loop = _parse_statements(text)[0]
    loop.stmt.block_items = out
    region = [c_ast.Pragma("omp parallel", coord), loop]
    if outside:
        region += _parse_statements(f"{index} = {to_c_operand(lo)} > {to_c_operand(hi)} ? {to_c_operand(lo)} : {to_c_operand(hi)};")
    block = c_ast.Compound(region, coord)
    _set_coords(block, coord)
    return block


def _unlabelled(node: c_ast.Node) -> c_ast.Node:
    while isinstance(node, c_ast.Label):
        node = node.stmt
    return node


def _share_sweep(block: c_ast.Compound, coord: object) -> None:
    """The vector loop shared out, the lanes' ends beside it on one thread, a barrier after both."""
    items = block.block_items
    k = next(i for i, n in enumerate(items) if isinstance(n, c_ast.For))
    items[k:k + 2] = [c_ast.Pragma("omp for schedule(static) nowait", coord), items[k],
                      c_ast.Pragma("omp single nowait", coord), items[k + 1],
                      c_ast.Pragma("omp barrier", coord)]


def _set_coords(root: c_ast.Node, coord: object) -> None:
    for n in walk(root):
        if getattr(n, "coord", None) is None:
            n.coord = coord


@transformation(scope="module", requires=["dependences"], preserves=["callgraph"],
                reads=["function_scope", "poly_facts", "scops", "unit_scope"])
def dlt(module: Module, vector: int = 2, label: str = "", arrays: str = "", parallel: bool = False) -> None:
    """Transpose a time-iterated stencil's arrays (dimension-lifted transpose) so its sweeps run on whole vectors.

    See the module docstring of :mod:`passman.passes.poly.dlt` for the
    layout, the legality checks and a before/after example.

    Properties:

    - vector: elements of one vector (2 default: SSE2's doubles), 2 to 16
    - label: the time loop (the part containing it; "" default: the first part that is a time loop)
    - arrays: the arrays to transpose, "a,b" ("" default: every array a sweep can run on whole vectors)
    - parallel: one OpenMP region around the time loop, its sweeps shared out (false default)
    """
    if not 2 <= vector <= VECTOR_MAX:
        raise PassFailed(f"{module.name}: vector {vector} is not between 2 and {VECTOR_MAX}")
    wanted = {x.strip() for x in arrays.split(",") if x.strip()}
    deps: Dependences = module.resource("dependences")
    part = _time_part(module, label)
    dlt_time_loop(module, part, deps.of_scop(part), vector, wanted, parallel)


def _time_part(module: Module, label: str) -> Scop:
    """The first static control part that is one loop holding every statement of it (the one holding
    loop ``label`` when given), or PassFailed saying why none is."""
    parts = list(module.resource("scops"))
    if label:
        parts = [p for p in parts if p.loop(label) is not None]
        if not parts:
            raise PassFailed(f"{module.name}: loop {label} is in no static control part")
    reasons = []
    for p in parts:
        outer = {id(s.loops[0].node) for s in p.statements if s.loops}
        if len(p.nodes) == 1 and len(outer) == 1 and all(s.loops for s in p.statements):
            return p
        reasons.append(f"{p.where}: the part is not one loop holding all its statements")
    raise PassFailed(f"{module.name}: no time loop" + (": " + "; ".join(reasons) if reasons else ""))


def dlt_time_loop(module: Module, part: Scop, deps: Sequence[Dependence], vector: int = 2,
                  wanted: set[str] | None = None, parallel: bool = False) -> None:
    """The work of :func:`dlt` once the part (a time loop) is chosen; also what ``auto_schedule``
    calls for ``time_tiling="dlt"``. Every refusal comes before any change."""
    _apply(module, _Plan(module, part, deps, vector, wanted or set(), parallel))


def _apply(module: Module, plan: _Plan) -> None:
    """The change, once every check has passed."""
    part, v = plan.part, plan.vector
    taken = names_in_scope(module.ast, module.cu.ast.ext)
    for a in plan.arrays.values():
        a.copy = fresh_name(f"{PREFIX}_dlt_{a.info.var}", taken)
        a.m = fresh_name(f"{PREFIX}_dlt_m_{a.info.var}", taken)
    copies_in, copies_out = [], []
    for a in sorted(plan.arrays.values(), key=lambda x: x.info.var):
        copies_in += _copy_loops(plan, a, plan.touched(a, writes_only=False), back=False)
        written = plan.touched(a, writes_only=True)
        # back: exactly the elements written, box by box (the user's other elements stay untouched: a
        # caller's threads may be writing them); a piece that is no box is refused
        for piece in written.get_basic_sets() if written is not None else []:
            box = isl.Set.from_basic_set(piece)
            if not set_is_box(box):
                raise PassFailed(f"{plan.where}: some elements of {a.info.var} the time loop writes do not "
                                 "form a box: copying them back would write others")
            copies_out += _copy_loops(plan, a, box, back=True)
    original = [copy_node(n) for n in part.nodes]
    # vector sweeps first (they read the chains of the original nodes), then every other element
    parents: dict[int, c_ast.Node] = {}
    for top in part.nodes:
        parents.update(parent_map(top))
    time = _unlabelled(part.nodes[0])
    items = time.stmt.block_items if isinstance(time, c_ast.For) and isinstance(time.stmt, c_ast.Compound) \
        else [time.stmt] if isinstance(time, c_ast.For) else []
    direct = {id(_unlabelled(n)) for n in items}
    blocks: set[int] = set()
    for sweep in plan.sweeps:
        sweep.top = id(sweep.loop.node) in direct
        if sweep.problem is None:
            block = _rewrite_sweep(plan, sweep)
            blocks.add(id(block))
            replace_child(parents[id(sweep.loop.node)], sweep.loop.node, block)
    for top in part.nodes:
        for ref, base, _subs in list(_chains(top)):
            if isinstance(base, c_ast.ID) and base.name in plan.arrays:
                a = plan.arrays[base.name]
                base.name = a.copy
                ref.subscript = _parse_statements(f"x = {_pos(to_c(ref.subscript), a.m, v)};")[0].rvalue
    declarations: list[c_ast.Node] = []
    frees: list[c_ast.Node] = []
    ordered = sorted(plan.arrays.values(), key=lambda x: x.info.var)
    for a in ordered:
        declarations += _parse_statements(f"long {a.m} = ((long) ({a.last_extent}) + {v - 1}) / {v};")
        count = f"({a.m} * {v})" if a.rank == 1 else f"({to_c(a.info.extents[0])})"
        decl = pointer_declaration(a.decl, a.copy, None)
        inner = decl.type
        dims = []
        while not isinstance(inner, c_ast.TypeDecl):
            if isinstance(inner, c_ast.ArrayDecl):
                dims.append(inner)
            inner = inner.type
        if dims:
            dims[-1].dim = _parse_statements(f"x = {a.m} * {v};")[0].rvalue
        decl.type.quals = ["restrict"]
        decl.init = _parse_statements(f"x = malloc(sizeof *{a.copy} * {count});")[0].rvalue
        declarations.append(decl)
        frees += _parse_statements(f"free({a.copy});")
    extents = sorted({to_c(e) for a in ordered for e in a.info.extents if int_value(e) is None})
    test = " && ".join([f"{a.copy} != NULL" for a in ordered] + [f"{e} >= 1" for e in extents])
    branch = _parse_statements(f"if ({test}) {{ }} else {{ }}")[0]
    body = [_parallel_region(plan, _unlabelled(part.nodes[0]), blocks)] if plan.parallel else list(part.nodes)
    branch.iftrue.block_items = copies_in + body + copies_out
    branch.iffalse.block_items = original
    block = c_ast.Compound(declarations + [branch] + frees, part.nodes[0].coord)
    _set_coords(block, part.nodes[0].coord)
    replace_part(module, part, [block])
    ext = module.cu.ast.ext
    at = next(k for k, n in enumerate(ext) if n is module.ast)
    ext[at:at] = plan.helpers
    module.cu.include("stdlib.h")
