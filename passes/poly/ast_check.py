"""Check the code isl generated against the dependences, before any C is written.

:func:`.schedule.check_schedule` proves a schedule legal; isl's AST
generator must then execute that schedule. It does not always: with every
band member ``atomic``, isl 2026.2 ran ``t0 = A[5][j][0]`` one iteration of
the ``simd`` loop too early, before the write of ``A[5][j][0]`` it must
follow (fuzz seed 91966). This module reads the order the AST itself
executes, independently of the schedule, and checks the dependences on it.

The order of an AST is a map from each statement instance to a vector
``[p0, c0, p1, c1, ..., pk, 0 ...]``: ``ck`` the value of the k-th
enclosing loop's iterator and ``pk`` the textual position, in the body of
that loop, of the item (a loop or a statement) that holds the instance.
``if`` nodes, blocks and marks add no level (they do not iterate, so
text order within one iteration is execution order). An instance is
executed where its leaf's enclosing loop bounds, strides and guards hold,
with its arguments equal to the call's expressions. The AST is legal when:

* it executes every instance of the part exactly once (the map is a
  function whose domain is the part's domain);
* each dependence's source comes first in that order;
* a loop under a mark promising independence carries no dependence: two
  dependent instances in the same iteration of its enclosing loops, both
  under it, have the same value of its iterator.

isl expressions are read back as isl sets and affine pieces; a
``select`` (``c ? a : b``) becomes pieces under ``c`` and its complement.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import islpy as isl

from passman.lazy import LazyAttribute

from .affine import ctx

_T = LazyAttribute("islpy", "ast_node_type")
_E = LazyAttribute("islpy", "ast_expr_type")

_BINARY = {"add": "+", "sub": "-"}
_COMPARE = {"eq": "=", "le": "<=", "lt": "<", "ge": ">=", "gt": ">"}

#: marks whose loop must carry no dependence (their first word, or the whole name)
INDEPENDENT_WORDS = ("passman parallel", "omp parallel for", "omp simd", "GCC ivdep")


class Unreadable(Exception):
    """An AST expression with no reading in isl's set syntax."""


def _is_int(x: str) -> bool:
    return x.lstrip("-").isdigit()


def _literal(x: str) -> str:
    """A divisor: isl's syntax wants a bare positive integer."""
    if not x.isdigit():
        raise Unreadable(f"division by {x}")
    return x


class _Reader:
    """isl AST expressions as isl objects over ``[params] -> { [iterators] }``.

    Conditions are sets; an expression is a list of (set, affine text) pieces
    (``select`` splits it). Negations are set differences, never text: the
    ``not`` of a large disjunction in isl's syntax expands exponentially.
    """

    def __init__(self, params: list[str], iterators: list[str], context: isl.Set) -> None:
        self.params = ", ".join(params)
        self.iterators = list(iterators)
        self.context = context
        self.universe = self.set("0 = 0")

    def set(self, text: str) -> isl.Set:
        """The set of iterator values where ``text`` holds, within the part's context."""
        s = isl.Set(
            f"[{self.params}] -> {{ [{', '.join(self.iterators)}] : {text} }}", context=ctx()
        )
        return s.intersect_params(self.context)

    def pieces(self, e: isl.AstExpr) -> list[tuple[isl.Set, str]]:
        t = e.get_type()
        if t == _E.int:
            return [(self.universe, str(e.get_val().to_python()))]
        if t == _E.id:
            return [(self.universe, e.get_id().get_name())]
        name = e.get_op_type().name
        args = [e.get_op_arg(k) for k in range(e.get_op_n_arg())]
        if name == "select":
            c = self.condition(args[0])
            out = [(p.intersect(c), x) for p, x in self.pieces(args[1])]
            out += [(p.subtract(c), x) for p, x in self.pieces(args[2])]
            return [(p, x) for p, x in out if not p.is_empty()]
        out = []
        for combo in itertools.product(*(self.pieces(a) for a in args)):
            cond = combo[0][0]
            for p, _ in combo[1:]:
                cond = cond.intersect(p)
            if cond.is_empty():
                continue
            out.append((cond, _text(name, [x for _, x in combo])))
        return out

    def condition(self, e: isl.AstExpr) -> isl.Set:
        if e.get_type() != _E.op:
            raise Unreadable("non-boolean condition")
        name = e.get_op_type().name
        args = [e.get_op_arg(k) for k in range(e.get_op_n_arg())]
        if name in ("and_", "and_then"):
            return self.condition(args[0]).intersect(self.condition(args[1]))
        if name in ("or_", "or_else"):
            return self.condition(args[0]).union(self.condition(args[1]))
        if name in _COMPARE:
            out = self.universe.subtract(self.universe)
            for (ca, xa), (cb, xb) in itertools.product(self.pieces(args[0]), self.pieces(args[1])):
                out = out.union(ca.intersect(cb).intersect(self.set(f"{xa} {_COMPARE[name]} {xb}")))
            return out
        if name == "select":
            c = self.condition(args[0])
            return c.intersect(self.condition(args[1])).union(
                self.condition(args[2]).subtract(c)
            )
        raise Unreadable(name)


def _text(name: str, xs: list[str]) -> str:
    """Operation ``name`` of the affine texts ``xs``, in isl's syntax."""
    if name == "mul":  # isl's syntax: a constant factor, bare
        if _is_int(xs[0]):
            return f"{xs[0]} * ({xs[1]})"
        if _is_int(xs[1]):
            return f"{xs[1]} * ({xs[0]})"
        raise Unreadable("product of two variables")
    if name in _BINARY:
        return f"({xs[0]}) {_BINARY[name]} ({xs[1]})"
    if name == "minus":
        return f"-({xs[0]})"
    if name in ("min", "max"):
        return f"{name}({', '.join(xs)})"
    if name in ("fdiv_q", "pdiv_q", "div"):
        return f"floor(({xs[0]})/{_literal(xs[1])})"
    if name in ("pdiv_r", "zdiv_r"):
        return f"(({xs[0]}) mod {_literal(xs[1])})"
    raise Unreadable(name)


@dataclass
class _Leaf:
    call: str  # statement name
    args: list[list[tuple[isl.Set, str]]]
    iterators: list[str]
    positions: list[int]
    path: isl.Set
    loops: list[int]  # ids of the enclosing for nodes, outermost first


@dataclass
class _Walk:
    read: _Reader
    leaves: list[_Leaf] = field(default_factory=list)
    #: (id of a for node under an independence mark, its depth)
    independent: list[tuple[int, int]] = field(default_factory=list)
    depth: int = 0

    def visit(self, node: isl.AstNode, its: list[str], pos: list[int], path: isl.Set,
              loops: list[int], mark: bool) -> None:  # fmt: skip
        t = node.get_type()
        if path.is_empty():
            return  # code isl generated for no instance (it keeps no empty branch, but be safe)
        if t == _T.block:
            lst = node.block_get_children()
            for k in range(lst.n_ast_node()):
                self.visit(lst.get_at(k), its, pos, path, loops, mark)
        elif t == _T.mark:
            name = node.mark_get_id().get_name()
            promise = any(name.startswith(w) for w in INDEPENDENT_WORDS)
            self.visit(node.mark_get_node(), its, pos, path, loops, mark or promise)
        elif t == _T.if_:
            cond = self.read.condition(node.if_get_cond())
            self.visit(node.if_get_then_node(), its, pos, path.intersect(cond), loops, mark)
            if node.if_has_else_node():
                self.visit(node.if_get_else_node(), its, pos, path.subtract(cond), loops, mark)
        elif t == _T.for_:
            self.loop(node, its, pos, path, loops, mark)
        elif t == _T.user:
            call = node.user_get_expr()
            name = call.get_op_arg(0).get_id().get_name()
            args = [self.read.pieces(call.get_op_arg(k)) for k in range(1, call.get_op_n_arg())]
            pos[-1] += 1
            self.leaves.append(_Leaf(name, args, list(its), list(pos), path, list(loops)))
        else:
            raise Unreadable(f"AST node {t}")

    def loop(self, node: isl.AstNode, its: list[str], pos: list[int], path: isl.Set,
             loops: list[int], mark: bool) -> None:  # fmt: skip
        read = self.read
        it = node.for_get_iterator().get_id().get_name()
        if it not in read.iterators:
            raise Unreadable(f"iterator {it}")
        inc = node.for_get_inc()
        if inc.get_type() != _E.int or inc.get_val().to_python() < 1:
            raise Unreadable("loop step")
        step = inc.get_val().to_python()
        init = read.pieces(node.for_get_init())
        empty = read.universe.subtract(read.universe)
        if node.for_is_degenerate():
            values = empty
            for c, x in init:
                values = values.union(c.intersect(read.set(f"{it} = {x}")))
        else:
            values = empty
            for c, x in init:
                cons = f"{it} >= {x}"
                if step > 1:
                    cons += f" and exists (e0 : {it} = {x} + {step} e0)"
                values = values.union(c.intersect(read.set(cons)))
            values = values.intersect(read.condition(node.for_get_cond()))
        pos[-1] += 1
        me = len(loops)
        if mark:
            self.independent.append((id(node), me))
        self.depth = max(self.depth, me + 1)
        self.visit(node.for_get_body(), [*its, it], [*pos, 0], path.intersect(values),
                   [*loops, id(node)], False)  # fmt: skip


def _leaf_map(leaf: _Leaf, read: _Reader, width: int) -> isl.UnionMap:
    """``{ S[args] -> [p0, c0, p1, ...] }`` of one leaf, padded to ``width`` with zeros."""
    vec: list[str] = []
    for k, it in enumerate(leaf.iterators):
        vec += [str(leaf.positions[k]), it]
    vec.append(str(leaf.positions[-1]))
    vec += ["0"] * (width - len(vec))
    # iterators of no enclosing loop are 0: the leaf's instances have one iterator vector
    unused = [f"{it} = 0" for it in read.iterators if it not in leaf.iterators]
    path = leaf.path.intersect(read.set(" and ".join(unused) or "0 = 0"))
    its = ", ".join(read.iterators)
    where = isl.Map(f"[{read.params}] -> {{ [{its}] -> [{', '.join(vec)}] }}", context=ctx())
    names = [f"s{k}" for k in range(len(leaf.args))]
    result = None
    for combo in itertools.product(*leaf.args):
        cond = path
        for c, _ in combo:
            cond = cond.intersect(c)
        if cond.is_empty():
            continue
        eqs = " and ".join(f"{n} = {x}" for n, (_, x) in zip(names, combo)) or "0 = 0"
        call = isl.Map(
            f"[{read.params}] -> {{ [{its}] -> {leaf.call}[{', '.join(names)}] : {eqs} }}",
            context=ctx(),
        ).intersect_domain(cond)
        m = isl.UnionMap.from_map(call.reverse().apply_range(where))
        result = m if result is None else result.union(m)
    return result if result is not None else isl.UnionMap("{ }", context=ctx())


def _same_until(width: int, k: int, differ: bool) -> isl.UnionMap:
    """``{ [v] -> [w] : v0..vk-1 = w0..wk-1 }``, and ``vk != wk`` when ``differ``."""
    v = [f"v{i}" for i in range(width)]
    w = [f"w{i}" for i in range(width)]
    cons = [f"v{i} = w{i}" for i in range(k)]
    if differ:
        cons.append(f"(v{k} < w{k} or v{k} > w{k})")
    text = f"{{ [{', '.join(v)}] -> [{', '.join(w)}] : {' and '.join(cons) or '0 = 0'} }}"
    return isl.UnionMap(text, context=ctx())


def ast_violation(
    tree: isl.AstNode, domain: isl.UnionSet, context: isl.Set, params: list[str],
    iterators: list[str], deps: list[tuple[isl.Map, str]],
) -> str | None:  # fmt: skip
    """Why the AST ``tree`` does not execute the part legally, or None when it does.

    ``iterators`` are the names isl gave the loops (``AstBuild.set_iterators``);
    ``deps`` the part's dependence relations with a description each (the
    text of the reason). Raises :class:`Unreadable` for an AST whose
    expressions this module cannot read back.
    """
    read = _Reader(params, iterators, context)
    walk = _Walk(read)
    walk.visit(tree, [], [0], read.universe, [], False)
    width = 2 * walk.depth + 1
    maps = [_leaf_map(leaf, read, width).coalesce() for leaf in walk.leaves]
    order = isl.UnionMap("{ }", context=ctx())
    for m in maps:
        order = order.union(m)
    order = order.intersect_params(context).coalesce()
    domain = domain.intersect_params(context)
    if not order.domain().is_equal(domain):
        return "it does not execute exactly the statement instances of the part"
    if not order.is_single_valued():
        return "it executes a statement instance twice"
    vectors = isl.Set(f"{{ [{', '.join(f'v{i}' for i in range(width))}] }}", context=ctx())
    not_before = isl.UnionMap.from_map(isl.Map.lex_ge(vectors.get_space()))
    for rel, why in deps:
        r = isl.UnionMap.from_map(rel).intersect_params(context)
        # the dependence between the vectors of its source and sink: the source must come first
        if not r.apply_domain(order).apply_range(order).intersect(not_before).is_empty():
            return f"it executes the sink of a dependence before its source: {why}"
    for loop_id, level in walk.independent:
        sub = isl.UnionMap("{ }", context=ctx())
        for m, leaf in zip(maps, walk.leaves):
            if loop_id in leaf.loops:
                sub = sub.union(m)
        sub = sub.intersect_params(context)
        # equal positions and iterators of the enclosing loops, the same position of the
        # loop, and two values of its iterator
        together = sub.apply_range(_same_until(width, 2 * level + 1, True)).apply_range(sub.reverse())
        for rel, why in deps:
            if not isl.UnionMap.from_map(rel).intersect(together).is_empty():
                return f"a loop marked independent carries a dependence: {why}"
    return None
