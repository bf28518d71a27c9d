"""Finding and modelling the static control parts of a function (see :mod:`.scop`).

Two steps. A syntactic pre-pass (:class:`Extractor`) classifies every
statement as static or not (with the reason), and greedily groups
consecutive static statements of a block into maximal runs whose loop
bounds are not written by the run and whose iterators are not used
outside their loops; non-static statements are searched for smaller runs
inside. Then :class:`_Builder` turns each run into isl domains, 2d+1
schedules and access relations.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import islpy as isl
from pycparser import c_ast

from passman import Module, analysis
from passman.astutil import walk
from passman.deadline import function_budget
from passman.lazy import LazyAttribute

from ..cfacts.loops import for_header
from ..cfacts.names import where
from .affine import AffineBuilder, ctx, param_names
from .counted_loops import bound_check
from .facts import Shape, extent_set, function_facts, variable_decl
from .scop import Access, ArrayInfo, Scop, ScopLoop, Scops, Statement
from .text import set_text

_DT = LazyAttribute("islpy", "dim_type")


class NotStatic(Exception):
    """Internal: why a statement cannot be part of a SCoP."""


#: pieces of a loop's iteration domain beyond which its part is not analysed (a safety net:
#: refusing wastes the work done on the part so far, so the limit is far above what occurs).
#: Tiled PolyBench kernels have at most 13; the code isl generated for a strip-mined then tiled
#: nest gave 212 before ``?:`` values were shared (fuzz case timeout_f8c910d4)
MAX_DOMAIN_PIECES = 256
#: seconds the model of one function's parts may take (a safety net like MAX_DOMAIN_PIECES: the
#: isl-tiled code of a fuzzed init nest took 16 s, seed 1001152 of the api mode); past them the
#: parts left are not static
MODEL_SECONDS = 5.0


@dataclass
class _Header:
    decl: c_ast.Decl
    lb: c_ast.Node
    cond: c_ast.Node
    step: int
    uses: set[int]


@dataclass(eq=False)
class _Item:
    node: c_ast.Node  # as it sits in its block (a loop's Label kept)
    stmt: c_ast.Node  # under labels
    kind: str  # leaf | for | if | block | nothing
    static: bool = True
    reason: str = ""
    children: list[_Item] = field(default_factory=list)
    orelse: list[_Item] = field(default_factory=list)
    written: set[int] = field(default_factory=set)
    declared: set[int] = field(default_factory=set)
    iterators: set[int] = field(default_factory=set)
    free_refs: set[int] = field(default_factory=set)
    bound_uses: set[int] = field(default_factory=set)
    has_loop: bool = False
    header: _Header | None = None
    label: str | None = None
    entry: bool = False  # a goto target: a part may start here, not run through it


def _valid_run(items: list[_Item]) -> bool:
    written: set[int] = set()
    iters: set[int] = set()
    for it in items:
        written |= it.written | it.declared
        iters |= it.iterators
    return all(not (it.bound_uses & written) and not (it.free_refs & iters) for it in items)


def block_items(stmt: c_ast.Node | None) -> list[c_ast.Node]:
    if stmt is None:
        return []
    if isinstance(stmt, c_ast.Compound):
        return [s for s in stmt.block_items or [] if s is not None]
    return [stmt]


class Extractor:
    """Finds the SCoPs of one function."""

    def __init__(self, module: Module, seconds: float = MODEL_SECONDS):
        self.module = module
        self.facts = function_facts(module)
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self.parts: list[Scop] = []
        self.reasons: dict[str, str] = {}
        self.n_statements = 0

    # -- identifiers ---------------------------------------------------------------------
    def enum_value(self, decl: object) -> int | None:
        """The value of an enumerator."""
        return self.facts.enum_value(decl)

    def symbol(self, ident: c_ast.ID, dims: Mapping[int, int], written: set[int]):
        """Classify an identifier for :class:`AffineBuilder` inside a part."""
        d = self.facts.names.decl_of(ident)
        if isinstance(d, c_ast.Enumerator):
            v = self.enum_value(d)
            return None if v is None else ("const", v)
        if d is None:
            return None
        if id(d) in dims:
            return ("dim", dims[id(d)])
        if self.facts.is_symbol(d) and id(d) not in written:
            return ("param", self.facts.isl_name(d))
        return None

    # -- items ---------------------------------------------------------------------------
    def item(self, node: c_ast.Node) -> _Item:
        stmt = node
        label = None
        if isinstance(node, c_ast.Label) and isinstance(node.stmt, c_ast.For):
            stmt, label = node.stmt, node.name
        try:
            match stmt:
                case c_ast.For():
                    it = self.loop_item(node, stmt, label)
                case c_ast.If():
                    it = self.if_item(node, stmt)
                case c_ast.Compound():
                    kids = [self.item(s) for s in block_items(stmt)]
                    it = _Item(node, stmt, "block", children=kids)
                    self.merge(it, kids)
                case c_ast.EmptyStatement() | c_ast.Pragma():
                    it = _Item(node, stmt, "nothing")
                case c_ast.Assignment() | c_ast.UnaryOp() | c_ast.FuncCall() | c_ast.Decl():
                    it = self.leaf_item(node, stmt)
                case _:
                    raise NotStatic(f"{where(stmt)}: {_describe(stmt)} is not static control")
        except NotStatic as err:
            it = _Item(node, stmt, "for" if isinstance(stmt, c_ast.For) else "other", static=False,
                       reason=str(err), label=label)
        if label is not None and label in self.facts.goto_targets:
            it.entry = True
        if not it.static and label is not None:
            self.reasons.setdefault(label, it.reason)
        return it

    def merge(self, it: _Item, kids: list[_Item]) -> None:
        for k in kids:
            if not k.static:
                raise NotStatic(k.reason)
            if k.entry:
                raise NotStatic(f"{where(k.stmt)}: a goto jumps to label {k.label} inside the part")
        if not _valid_run(kids):
            raise NotStatic(f"{where(it.stmt)}: a loop bound or iterator is written in the same part")
        for k in kids:
            it.written |= k.written
            it.declared |= k.declared
            it.iterators |= k.iterators
            it.free_refs |= k.free_refs
            it.bound_uses |= k.bound_uses
            it.has_loop = it.has_loop or k.has_loop

    def check_refs(self, stmt: c_ast.Node, it: _Item, allow_writes: bool = True) -> None:
        f = self.facts
        for c in f.calls(stmt):
            if not f.callee_is_pure(c):
                name = c.name.name if isinstance(c.name, c_ast.ID) else "a function pointer"
                raise NotStatic(f"{where(c)}: call to {name}, which may have side effects")
        from ..analysis.references import taken_addresses

        if taken_addresses(stmt, f.names, f.types):
            raise NotStatic(f"{where(stmt)}: an address is taken")
        for r in f.refs(stmt):
            d = r.decl
            if not r.var or not variable_decl(d):
                raise NotStatic(f"{where(r.node)}: access to unknown memory")
            if not r.exact:
                raise NotStatic(f"{where(r.node)}: access to part of {r.var} that is not an array element")
            if id(d) in f.address_taken:
                raise NotStatic(f"{where(r.node)}: the address of {r.var} is taken in the function")
            if r.mode == "write" and not allow_writes:
                raise NotStatic(f"{where(r.node)}: condition writes {r.var}")
            if r.subscripts is None:
                cat = f.category(d)
                if cat == "pointer" and r.mode == "read" and f.stable_pointer(d):
                    pass  # the pointer used to address its pointee (p[i])
                elif not f.is_arith_scalar(d):
                    raise NotStatic(f"{where(r.node)}: {r.var} is not an arithmetic scalar")
            else:
                sh = f.shape(d)
                if sh is None or sh.rank != len(r.subscripts) or not f.element_is_arith(d):
                    raise NotStatic(f"{where(r.node)}: {r.var} is not accessed element by element")
                if sh.pointer and not f.stable_pointer(d):
                    raise NotStatic(f"{where(r.node)}: {r.var} is a pointer that may alias another array")
            if r.mode == "write":
                it.written.add(id(d))
            it.free_refs.add(id(d))

    def leaf_item(self, node: c_ast.Node, stmt: c_ast.Node) -> _Item:
        it = _Item(node, stmt, "leaf")
        if isinstance(stmt, c_ast.Decl):
            if variable_decl(stmt) is False or "static" in (stmt.storage or []) or "extern" in (stmt.storage or []):
                raise NotStatic(f"{where(stmt)}: declaration of {stmt.name} is not static control")
            if not (self.facts.is_arith_scalar(stmt) or (self.facts.shape(stmt) and stmt.init is None
                                                           and self.facts.element_is_arith(stmt))):
                raise NotStatic(f"{where(stmt)}: declaration of {stmt.name} is not static control")
            if isinstance(stmt.init, c_ast.InitList):
                raise NotStatic(f"{where(stmt)}: initialiser list")
            it.declared.add(id(stmt))
            expr = stmt.init
        else:
            expr = stmt
        if expr is not None:
            top = expr
            if isinstance(top, c_ast.Assignment):
                inner = [top.rvalue, *_subscript_parts(top.lvalue)]
            elif isinstance(top, c_ast.UnaryOp) and top.op in ("++", "--", "p++", "p--"):
                inner = _subscript_parts(top.expr)
            else:
                inner = [top]
            for part in inner:
                args = {id(c.args) for c in walk(part) if isinstance(c, c_ast.FuncCall)}
                for n in walk(part):
                    if isinstance(n, c_ast.Assignment) or (
                        isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--")
                    ):
                        raise NotStatic(f"{where(n)}: side effect inside an expression")
                    if isinstance(n, c_ast.ExprList) and id(n) not in args:
                        raise NotStatic(f"{where(n)}: comma expression")
        self.check_refs(stmt, it)
        return it

    def if_item(self, node: c_ast.Node, stmt: c_ast.If) -> _Item:
        it = _Item(node, stmt, "if")
        args = {id(c.args) for c in walk(stmt.cond) if isinstance(c, c_ast.FuncCall)}
        for n in walk(stmt.cond):
            if isinstance(n, c_ast.Assignment) or (isinstance(n, c_ast.ExprList) and id(n) not in args) or (
                isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--")
            ):
                raise NotStatic(f"{where(n)}: side effect in a condition")
        self.check_refs(stmt, it, allow_writes=False)
        it.children = [self.item(s) for s in block_items(stmt.iftrue)]
        it.orelse = [self.item(s) for s in block_items(stmt.iffalse)]
        self.merge(it, it.children + it.orelse)
        return it

    def loop_item(self, node: c_ast.Node, loop: c_ast.For, label: str | None) -> _Item:
        h = self.header(loop)
        it = _Item(node, loop, "for", label=label, header=h)
        it.children = [self.item(s) for s in block_items(loop.stmt)]
        body = _Item(loop.stmt, loop.stmt, "block")
        self.merge(body, it.children)
        i = id(h.decl)
        if i in body.written or i in body.declared:
            raise NotStatic(f"{where(loop)}: the body of the loop writes its iterator {h.decl.name}")
        if h.uses & (body.written | body.declared):
            raise NotStatic(f"{where(loop)}: the body of the loop writes a variable of its bounds")
        it.written = body.written | {i}
        it.declared = body.declared
        it.iterators = body.iterators | {i}
        it.free_refs = (body.free_refs | h.uses) - {i}
        it.bound_uses = (body.bound_uses | h.uses) - {i}
        it.has_loop = True
        return it

    def header(self, loop: c_ast.For) -> _Header:
        f = self.facts
        w = where(loop)
        cond = loop.cond
        shape = for_header(loop, f.names)
        if shape is None:
            raise NotStatic(f"{w}: loop is not 'for (i = lower bound; condition; i += constant)'")
        decl, lb, step = shape
        if cond is None:
            raise NotStatic(f"{w}: loop has no condition")
        if not f.is_symbol(decl) or not f.is_local(decl):
            raise NotStatic(f"{w}: loop iterator is not a local integer variable")
        if f.calls(loop):
            raise NotStatic(f"{w}: call in the loop header")
        uses: set[int] = set()
        for r in f.refs(loop):
            if r.decl is decl:
                continue
            if r.subscripts is not None or r.through_pointer or not f.is_symbol(r.decl) or r.mode != "read":
                raise NotStatic(f"{w}: loop bounds read memory ({r.var})")
            uses.add(id(r.decl))
        verdict = bound_check(lambda ident: self.symbol(ident, {id(decl): 0}, set()), f.types, lb, cond, step)
        if verdict:
            raise NotStatic(f"{w}: {verdict}")
        return _Header(decl, lb, cond, step, uses)

    # -- runs ----------------------------------------------------------------------------
    def block(self, nodes: list[c_ast.Node]) -> None:
        items = [self.item(n) for n in nodes]
        k = 0
        while k < len(items):
            if not items[k].static or items[k].kind == "nothing" and not items[k].has_loop:
                if not items[k].static:
                    self.descend(items[k])
                k += 1
                continue
            run = [items[k]]
            j = k + 1
            while j < len(items) and items[j].static and not items[j].entry and _valid_run(run + [items[j]]):
                run.append(items[j])
                j += 1
            while run and _idle(run[-1]):
                run.pop()
            while run and _idle(run[0]):
                run.pop(0)
            if any(it.has_loop for it in run):
                try:
                    self.parts.append(_Builder(self, run, len(self.parts)).build())
                except NotStatic as err:  # too costly: its inner loops may still form parts
                    for it in run:
                        self._not_static(it, str(err))
            k = j

    def _not_static(self, it: _Item, why: str) -> None:
        if it.kind == "for" and it.label is not None:
            self.reasons.setdefault(it.label, why)
        self.descend(it)

    def descend(self, it: _Item) -> None:
        s = it.stmt
        match s:
            case c_ast.For() | c_ast.While() | c_ast.DoWhile():
                self.block(block_items(s.stmt))
            case c_ast.If():
                self.block(block_items(s.iftrue))
                self.block(block_items(s.iffalse))
            case c_ast.Compound():
                self.block(block_items(s))
            case c_ast.Switch():
                for case in block_items(s.stmt):
                    if isinstance(case, (c_ast.Case, c_ast.Default)):
                        self.block([x for x in case.stmts or [] if x is not None])
                    else:
                        self.block([case])
            case c_ast.Label():
                self.block([s.stmt])
            case c_ast.Case() | c_ast.Default():
                self.block([x for x in s.stmts or [] if x is not None])


def _idle(it: _Item) -> bool:
    """An item that makes no access: nothing, or a declaration without initialiser."""
    return it.kind == "nothing" or (
        it.kind == "leaf" and isinstance(it.stmt, c_ast.Decl) and it.stmt.init is None
    )


def _describe(stmt: c_ast.Node) -> str:
    return {
        c_ast.While: "while loop", c_ast.DoWhile: "do-while loop", c_ast.Switch: "switch",
        c_ast.Return: "return", c_ast.Break: "break", c_ast.Continue: "continue",
        c_ast.Goto: "goto", c_ast.Label: "label",
    }.get(type(stmt), type(stmt).__name__)  # fmt: skip


def _subscript_parts(lv: c_ast.Node) -> list[c_ast.Node]:
    out = []
    while isinstance(lv, c_ast.ArrayRef):
        out.append(lv.subscript)
        lv = lv.name
    if isinstance(lv, c_ast.UnaryOp) and lv.op == "*":
        out.append(lv.expr)
    return out


# ------------------------------------------------------------------------ isl model

_EVAL_MAYBE = (c_ast.TernaryOp, c_ast.BinaryOp)


def _maybe_evaluated(expr: c_ast.Node) -> set[int]:
    """Nodes that may not be evaluated: ``?:`` branches, right operands of ``&&``/``||``."""
    out: set[int] = set()
    for n in walk(expr):
        if isinstance(n, c_ast.TernaryOp):
            parts = [n.iftrue, n.iffalse]
        elif isinstance(n, c_ast.BinaryOp) and n.op in ("&&", "||"):
            parts = [n.right]
        else:
            continue
        for p in parts:
            out.update(id(x) for x in walk(p))
    return out


class _Builder:
    """Builds the isl model of one run of static items."""

    def __init__(self, ex: Extractor, run: list[_Item], index: int):
        self.ex = ex
        self.f = ex.facts
        self.run = run
        self.index = index
        self.written: set[int] = set()
        for it in run:
            self.written |= it.written | it.declared
        self.loops: list[ScopLoop] = []
        self.arrays: dict[str, ArrayInfo] = {}
        self.expansion: dict[int, int] = {}
        self.pending: list[tuple] = []  # (name, node, domain, loops, accesses, positions, conditional)
        self._iter_decl: dict[int, c_ast.Decl] = {}

    def build(self) -> Scop:
        zero = isl.Set.universe(isl.Space.set_alloc(ctx(), 0, 0))
        self.items(self.run, [], zero, False, [], [0])
        depth = max((len(p[3]) for p in self.pending), default=0)
        params: set[str] = set()
        stmts = []
        for name, node, dom, loops, accesses, positions, cond in self.pending:
            sched = _schedule(dom, loops, positions, depth)
            params.update(param_names(dom))
            for a in accesses:
                params.update(param_names(a.relation))
            stmts.append(Statement(name, node, dom, sched, tuple(loops), tuple(accesses), tuple(positions), cond))
        context = isl.Set.universe(isl.Space.params_alloc(ctx(), 0))
        for p in sorted(params):
            d = self.f.decl_named(p)
            if d is not None and self.f.category(d) == "unsigned":
                b = AffineBuilder(isl.Space.set_alloc(ctx(), 0, 0), lambda _: None)
                context = context.intersect(b.param(p).ge_set(b.const(0)).params())
        names = {self.f.isl_name(d): getattr(d, "name", "") for d in self.f.names.decls if variable_decl(d)}
        names.update({a.name: a.var for a in self.arrays.values()})
        for p in params:
            names.setdefault(p, self.f.c_name(p))
        return Scop(
            self.index, self.ex.module.name, tuple(it.node for it in self.run), context,
            tuple(sorted(params)), tuple(stmts), MappingProxyType(dict(self.arrays)), tuple(self.loops),
            MappingProxyType(names),
        )

    # -- walking -------------------------------------------------------------------------
    def lookup(self, loops: list[ScopLoop], dims: dict[int, int]):
        return lambda ident: self.ex.symbol(ident, dims, self.written)

    def items(self, items: list[_Item], loops, dom, conditional, prefix, counter) -> None:
        for it in items:
            self.item(it, loops, dom, conditional, prefix, counter)

    def item(self, it: _Item, loops, dom, conditional, prefix, counter) -> None:
        match it.kind:
            case "nothing":
                return
            case "block":
                self.items(it.children, loops, dom, conditional, prefix, counter)
            case "leaf":
                if self.leaf(it.stmt, it.stmt, loops, dom, conditional, prefix + [counter[0]]):
                    counter[0] += 1
            case "if":
                self.branch(it, loops, dom, conditional, prefix, counter)
            case "for":
                self.loop(it, loops, dom, conditional, prefix + [counter[0]])
                counter[0] += 1

    def dims_of(self, loops: list[ScopLoop]) -> dict[int, int]:
        return {id(self._iter_decl[id(lp.node)]): k for k, lp in enumerate(loops)}

    def branch(self, it: _Item, loops, dom, conditional, prefix, counter) -> None:
        stmt = it.stmt
        b = AffineBuilder(dom.get_space(), self.lookup(loops, self.dims_of(loops)), self.f.types, dom)
        c = b.cond(stmt.cond)
        if c is None:
            # data-dependent: the condition is a statement of its own, the branches are MAY
            if self.leaf(stmt, stmt.cond, loops, dom, conditional, prefix + [counter[0]]):
                counter[0] += 1
            self.items(it.children, loops, dom, True, prefix, counter)
            self.items(it.orelse, loops, dom, True, prefix, counter)
            return
        self.items(it.children, loops, dom.intersect(c).coalesce(), conditional, prefix, counter)
        self.items(it.orelse, loops, dom.subtract(c).coalesce(), conditional, prefix, counter)

    def loop(self, it: _Item, loops, dom, conditional, positions) -> None:
        if time.monotonic() > self.ex.deadline:
            raise NotStatic(f"{where(it.stmt)}: modelling the function's parts took over {self.ex.seconds:g} s "
                            "(too costly to analyse exactly)")
        h = it.header
        d = len(loops)
        name = self.f.isl_name(h.decl)
        lp = ScopLoop(it.label, it.stmt, name, h.decl.name, d, h.step)
        self._iter_decl[id(it.stmt)] = h.decl
        self.loops.append(lp)
        inner = loops + [lp]
        ndom = dom.add_dims(_DT.set, 1).set_dim_name(_DT.set, d, name)
        b = AffineBuilder(ndom.get_space(), self.lookup(inner, self.dims_of(inner)), self.f.types)
        lb, cond, i = b.expr(h.lb), b.cond(h.cond), b.dim(d)
        bounds = (i.ge_set(lb) if h.step > 0 else i.le_set(lb)).intersect(cond)
        if abs(h.step) > 1:
            bounds = bounds.intersect(i.sub(lb).mod_val(isl.Val.int_from_si(ctx(), abs(h.step))).zero_set())
        ndom = ndom.intersect(bounds).coalesce()
        if ndom.n_basic_set() > MAX_DOMAIN_PIECES:
            raise NotStatic(f"{where(it.stmt)}: the iteration domain has {ndom.n_basic_set()} pieces "
                            f"(more than {MAX_DOMAIN_PIECES}: too costly to analyse exactly)")
        self.items(it.children, inner, ndom, conditional, positions, [0])

    # -- statements and accesses -------------------------------------------------------------
    def leaf(self, stmt: c_ast.Node, expr: c_ast.Node, loops, dom, conditional, positions) -> bool:
        f = self.f
        if isinstance(stmt, c_ast.Decl):
            self.expansion[id(stmt)] = len(loops)
        refs = f.refs(stmt)
        dims = self.dims_of(loops)
        name = f"S{self.ex.n_statements}"
        sdom = dom.set_tuple_name(name)
        b = AffineBuilder(sdom.get_space(), self.lookup(loops, dims), f.types, sdom)
        maybe = _maybe_evaluated(expr) if expr is not None else set()
        accesses: list[Access] = []
        for r in refs:
            d = r.decl
            if r.subscripts is None:
                if id(d) in dims or f.category(d) == "pointer":
                    continue
                if f.is_symbol(d) and id(d) not in self.written:
                    continue  # a parameter
            arr = self.array(d)
            rel, affine = self.relation(b, sdom, arr, r.subscripts)
            may = conditional or not affine or (r.mode == "read" and id(r.node) in maybe)
            accesses.append(Access(name, len(accesses), r.node, arr.name, r.var, r.mode, rel, affine, may))
        if not accesses and isinstance(stmt, c_ast.Decl):
            return False
        self.ex.n_statements += 1
        self.pending.append((name, stmt, sdom, list(loops), accesses, positions, conditional))
        return True

    def array(self, decl: object) -> ArrayInfo:
        f = self.f
        name = f.isl_name(decl)
        info = self.arrays.get(name)
        if info is None:
            sh: Shape | None = f.shape(decl)
            rank = sh.rank if sh is not None else 0
            extents = sh.extents if sh is not None else ()
            info = ArrayInfo(name, decl.name, decl, rank, self.expansion.get(id(decl), 0), extents)
            self.arrays[name] = info
        return info

    def relation(self, b: AffineBuilder, sdom: isl.Set, arr: ArrayInfo, subs) -> tuple[isl.Map, bool]:
        space = sdom.get_space()
        comps: list[isl.Map] = [isl.Map.from_pw_aff(b.dim(k)) for k in range(arr.expanded)]
        affine = True
        for k, sub in enumerate(subs or ()):
            pa = b.expr(sub)
            if pa is None:
                affine = False
                comps.append(isl.Map.from_domain_and_range(isl.Set.universe(space), self.extent_set(arr, k)))
            else:
                comps.append(isl.Map.from_pw_aff(pa))
        if comps:
            rel = comps[0]
            for c in comps[1:]:
                rel = rel.flat_range_product(c)
        else:
            rel = isl.Map.from_domain_and_range(isl.Set.universe(space), isl.Set.universe(isl.Space.set_alloc(ctx(), 0, 0)))
        rel = rel.set_tuple_name(_DT.out, arr.name).intersect_domain(sdom)
        return rel.coalesce(), affine

    def extent_set(self, arr: ArrayInfo, k: int) -> isl.Set:
        return extent_set(self.f, arr.extents[k] if k < len(arr.extents) else None)


def _schedule(dom: isl.Set, loops: list[ScopLoop], positions: list[int], depth: int) -> isl.Map:
    n = dom.dim(_DT.set)
    space = isl.Space.set_alloc(ctx(), 0, n).set_tuple_name(_DT.set, dom.get_tuple_name())
    ls = isl.LocalSpace.from_space(space)
    affs = []
    for k in range(depth + 1):
        p = positions[k] if k < len(positions) else 0
        affs.append(isl.Aff.val_on_domain(ls, isl.Val.int_from_si(ctx(), p)))
        if k < depth:
            if k < len(loops):
                a = isl.Aff.var_on_domain(ls, _DT.set, k)
                affs.append(a.neg() if loops[k].decreasing else a)
            else:
                affs.append(isl.Aff.zero_on_domain(ls))
    mspace = isl.Space.map_from_domain_and_range(space, isl.Space.set_alloc(ctx(), 0, len(affs)))
    lst = isl.AffList.alloc(ctx(), len(affs))
    for a in affs:
        lst = lst.add(a)
    return isl.Map.from_multi_aff(isl.MultiAff.from_aff_list(mspace, lst)).intersect_domain(dom)


# -------------------------------------------------------------------- the analysis


def _display(module: Module, value: Scops) -> dict:
    out: dict = {}
    for part in value:
        names = dict(part.names)
        head = f"SCoP {part.index} of {part.function}: parameters [{', '.join(names.get(p, p) for p in part.params)}]"
        out.setdefault(part.nodes[0], []).append(head)
        for s in part.statements:
            its = [names.get(n, n) for n in s.iterators]
            sched = ", ".join(str(p) for p in s.positions)
            lines = [f"{s.name}[{', '.join(its)}]: {set_text(s.domain, its, names)} order ({sched})"]
            for mode in ("read", "write"):
                accs = [a for a in s.accesses if a.mode == mode]
                if accs:
                    texts = [a.text + ("(may)" if a.may else "") for a in accs]
                    lines.append(f"  {'reads' if mode == 'read' else 'writes'}: {' '.join(texts)}")
            out.setdefault(s.node, []).extend(lines)
    for label, why in sorted(value.reasons.items()):
        for lp in module.all_loops:
            if lp.label == label and value.for_loop(label) is None:
                out.setdefault(lp.site.labelled, []).append(f"not static: {why}")
    return out


@analysis(scope="module", provides="scops", display=_display, reads=["function_references", "function_scope", "poly_facts", "summary_effects"])
def scops(module: Module) -> Scops:
    """The static control parts of a function (see :mod:`passman.passes.poly.scop`).

    Before: ``for (i = 0; i < n; i++) a[i] = b[i + 1];``
    After:  ``// SCoP 0 of f: parameters [n]`` / ``// S0[i]: {0<=i<=n-1} order (0, 0)``
            ``//   reads: b[i + 1]`` / ``//   writes: a[i]``
    """
    with function_budget(module, MODEL_SECONDS) as seconds:
        ex = Extractor(module, seconds)
        ex.block(block_items(module.ast.body))
    return Scops(module.name, tuple(ex.parts), MappingProxyType(dict(ex.reasons)))
