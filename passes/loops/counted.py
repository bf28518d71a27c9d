"""Counted loops ``for (i = lb; i < ub; i += s)``: recognition (:func:`counted_header` of a ``for``
node, :func:`counted_loop` of a labelled loop; the accepted spellings), invariant bounds, body copies with the index substituted; the refusal helper
of the loop transformations (:func:`refuse`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pycparser import c_ast

from passman import Loop, PassFailed
from passman.astutil import copy_node, transform, walk
from passman.printer import to_c

from ..analysis.effect_model import FunctionScope, current_scope
from ..cfacts.control import (
    describe_jump,
    escaping_jumps,
    user_labels,
)
from ..cfacts.folding import int_value, make_int, simplify
from ..cfacts.forms import reads_through_pointer
from ..cfacts.names import NameTable, substitute, where
from ..cfacts.sideeffects import has_side_effects, impure_calls, variables, writes
from ..cfacts.types import TypeEnv


class NotCounted(Exception):
    """Why a ``for`` header is not a counted loop's (the words of the refusal)."""


@dataclass
class CountedHeader:
    """``for (i = lb; i < ub; i += step)`` read from a header (see :func:`counted_header`)."""

    index: str
    #: the declaration in ``for (int i = lb; ...)``, None when the index is declared outside
    index_decl: c_ast.Decl | None
    lb: c_ast.Node
    #: exclusive upper bound, simplified (``i <= n`` gives ``n + 1``)
    ub: c_ast.Node
    step: int
    #: the bound as written in the condition (its identifiers are the function's)
    ub_source: c_ast.Node


@dataclass
class CountedLoop(CountedHeader):
    """A ``for`` loop in the form the unrollers handle: ``for (i = lb; i < ub; i += step)``."""

    loop: Loop
    node: c_ast.For
    #: whether the main loop's bound must guard against ``ub - lb`` wrapping around
    guarded: bool = False

    def fail(self, what: str) -> PassFailed:
        """A refusal naming the loop's place and label."""
        return refuse(self.loop, what)

    @property
    def index_ref(self) -> c_ast.ID:
        """The index as the condition names it (bound to its declaration)."""
        cond = self.node.cond
        return cond.left if _is_index(cond.left, self.index) else cond.right

    def offset(self, k: int) -> c_ast.Node:
        """The index of copy ``k`` of the body: ``i + k*step``."""
        return simplify(c_ast.BinaryOp("+", c_ast.ID(self.index), make_int(k * self.step)))

    def trip_count(self) -> int | None:
        """The number of iterations when ``ub - lb`` is a constant."""
        span = int_value(simplify(c_ast.BinaryOp("-", copy_node(self.ub), copy_node(self.lb))))
        if span is None:
            return None
        return max(0, -(-span // self.step))


def refuse(loop: Loop, what: str) -> PassFailed:
    """``file:line: loop L of f: <what>``."""
    return PassFailed(f"{where(loop.node)}: loop {loop.label} of {loop.module.name}: {what}")


def _is_index(e: c_ast.Node, name: str) -> bool:
    return isinstance(e, c_ast.ID) and e.name == name


def _step(nxt: c_ast.Node | None, index: str) -> c_ast.Node | int | None:
    """The step of the increment ``nxt`` (an int, an expression, or None if not an increment)."""
    match nxt:
        case c_ast.UnaryOp(op="++" | "p++") if _is_index(nxt.expr, index):
            return 1
        case c_ast.UnaryOp(op="--" | "p--") if _is_index(nxt.expr, index):
            return -1
        case c_ast.Assignment(op="+=" | "-=") if _is_index(nxt.lvalue, index):
            v = int_value(simplify(nxt.rvalue))
            if v is None:
                return nxt.rvalue
            return v if nxt.op == "+=" else -v
        case c_ast.Assignment(op="=", rvalue=c_ast.BinaryOp(op="+" | "-") as r) if _is_index(
            nxt.lvalue, index
        ):
            if _is_index(r.left, index):
                v = int_value(simplify(r.right))
                if v is None:
                    return r.right
                return v if r.op == "+" else -v
            if r.op == "+" and _is_index(r.right, index):
                v = int_value(simplify(r.left))
                return r.left if v is None else v
    return None


def stepped_header(f: c_ast.For) -> tuple[str, c_ast.Decl | None, c_ast.Node, int]:
    """``(index, declaration or None, lower bound, step)`` of a loop ``for (i = lb; ...; i += c)`` whatever
    its condition, or raise :class:`NotCounted` with the reason (the spellings of :func:`counted_header`)."""
    decl = None
    match f.init:
        case c_ast.DeclList(decls=[c_ast.Decl(init=init) as decl]) if init is not None and not isinstance(
            init, c_ast.InitList
        ):
            index, lb = decl.name, init
        case c_ast.Assignment(op="=", lvalue=c_ast.ID(name=index), rvalue=lb):
            pass
        case None:
            raise NotCounted("it has no initialization 'i = lb'")
        case _:
            raise NotCounted(f"initialization '{to_c(f.init)}' is not 'i = lb' or 'int i = lb'")
    step = _step(f.next, index)
    if step is None:
        what = to_c(f.next) if f.next is not None else "nothing"
        raise NotCounted(f"increment '{what}' is not {index}++, {index} += c or {index} = {index} + c")
    if isinstance(step, c_ast.Node):
        raise NotCounted(f"step {to_c(step)} of {index} is not a constant")
    if step <= 0:
        raise NotCounted(f"step {step} of {index} is not positive")
    return index, decl, lb, step


def counted_header(f: c_ast.For) -> CountedHeader:
    """Read the header of ``f`` as a counted loop's, or raise :class:`NotCounted` with the reason.

    Accepted: init ``i = lb`` or ``T i = lb``; condition ``i < ub``,
    ``i <= ub``, ``ub > i`` or ``ub >= i``; increment ``i++``, ``++i``,
    ``i += c``, ``i = i + c`` or ``i = c + i`` with a positive constant ``c``;
    bounds that do not use ``i``. These are all canonical loop forms of OpenMP.
    """
    index, decl, lb, step = stepped_header(f)
    match f.cond:
        case c_ast.BinaryOp(op="<" | "<=") if _is_index(f.cond.left, index):
            ub, inclusive = f.cond.right, f.cond.op == "<="
        case c_ast.BinaryOp(op=">" | ">=") if _is_index(f.cond.right, index):
            ub, inclusive = f.cond.left, f.cond.op == ">="
        case _:
            cond = to_c(f.cond) if f.cond is not None else "none"
            raise NotCounted(f"condition '{cond}' is not {index} < ub or {index} <= ub")
    for what, e in (("lower bound", lb), ("upper bound", ub)):
        if any(v.name == index for v in variables(e)):
            raise NotCounted(f"{what} {to_c(e)} uses the index {index}")
    exclusive = simplify(c_ast.BinaryOp("+", copy_node(ub), make_int(1)) if inclusive else ub)
    return CountedHeader(index, decl, lb, exclusive, step, ub)


def counted_loop(loop: Loop, verb: str) -> CountedLoop:
    """Read ``loop`` as a counted loop (the spellings of :func:`counted_header`), or refuse
    (``verb``: "cannot unroll" ...)."""
    try:
        h = counted_header(loop.node)
    except NotCounted as why:
        raise refuse(loop, f"{verb}: {why}") from None
    return CountedLoop(**vars(h), loop=loop, node=loop.node)


def check_invariant_bounds(cl: CountedLoop, verb: str) -> NameTable:
    """Refuse unless the index and the bounds are integers not modified by the body.

    Also refuses bodies left other than at their end (``break``, ``continue``,
    ``return``, ``goto``), user labels and ``static`` declarations in the
    body, which copies would duplicate. Sets ``cl.guarded`` when the bound
    needs a guard against wrapping around (see :func:`_check_types`) and
    returns the function's name table.
    """
    loop, body = cl.loop, cl.node.stmt
    module = loop.module
    scope = current_scope(module)  # the function as it is now, the file scope cached (unit_scope)
    table, env = scope.names, scope.types

    def fail(what: str) -> PassFailed:
        return cl.fail(f"{verb}: {what}")

    for what, e in (("lower bound", cl.lb), ("upper bound", cl.ub_source)):
        if has_side_effects(e):
            raise fail(f"{what} {to_c(e)} has side effects or calls a function")
    check_copyable_body(body, module.ws.generated_labels, fail)

    index_id = cl.index_ref
    index_decl = table.decl_of(index_id)
    if not isinstance(index_decl, c_ast.Decl):
        raise fail(f"cannot find the declaration of index {cl.index}")
    cl.guarded = _check_types(cl, index_decl, env, fail)

    kept = BodyWrites(scope, body, module.ws)
    roles = [(index_id, "index")] + [(v, "bound") for e in (cl.lb, cl.ub_source) for v in variables(e)]
    for ident, role in roles:
        how = kept.change(ident)
        if how:
            raise fail(f"{role} {ident.name} {how}")
    for what, e in (("lower bound", cl.lb), ("upper bound", cl.ub_source)):
        if reads_through_pointer(e, env) and (kept.pointer_stores or kept.calls):
            raise fail(f"{what} {to_c(e)} reads memory that the body may write")
    return table


def check_copyable_body(body: c_ast.Node, generated_labels, fail: Callable[[str], PassFailed]) -> None:
    """Refuse (``fail(reason)``) a body left other than at its end (``break``, ``continue``, ``return``,
    ``goto``), or holding user labels or ``static`` declarations, which copies would duplicate."""
    for j in escaping_jumps(body):
        raise fail(f"the body contains {describe_jump(j)}")
    for lab in user_labels(body, generated_labels):
        raise fail(f"the body contains label {lab.name}, which copies would duplicate")
    for d in walk(body):
        if isinstance(d, c_ast.Decl) and "static" in d.storage:
            raise fail(f"the body declares static variable {d.name}, which copies would duplicate")


class BodyWrites:
    """What a loop body may modify, to tell whether a variable keeps its value through the body."""

    def __init__(self, scope: FunctionScope, body: c_ast.Node, ws: object):
        self.table, self.env = scope.names, scope.types
        env = self.env
        self.writes = writes(body)
        self.calls = impure_calls(body, self.table, ws)
        self.escaped = {id(self.table.decl_of(w.base)) for w in writes(scope.func) if w.address and w.base is not None}
        self.pointer_stores = [
            w for w in self.writes
            if w.kind == "deref" or (w.kind == "part" and env.decl_category(w.base) in ("pointer", "unknown"))
        ]  # fmt: skip

    def change(self, ident: c_ast.ID) -> str | None:
        """How the body may change the variable ``ident`` names ("is written in the body (line 3)" ...);
        None when it cannot (enumerators and function names included)."""
        table = self.table
        d = table.decl_of(ident)
        if not isinstance(d, c_ast.Decl) or self.env.category(d.type) == "function":
            return None  # an enumerator or a function name: constant
        kind = self.env.category(d.type)
        for w in self.writes:
            if w.base is None or table.decl_of(w.base) is not d or w.kind == "deref":
                continue
            if w.kind == "whole" or kind != "pointer":
                how = "has its address taken" if w.address else "is written"
                return f"{how} in the body (line {w.node.coord.line})"
        shared = not table.is_local(d) or id(d) in self.escaped or "static" in d.storage
        if shared and self.calls:
            return f"may be modified by the call to {to_c(self.calls[0].name)} in the body"
        if shared and self.pointer_stores:
            return f"may be modified through a pointer (line {self.pointer_stores[0].node.coord.line})"
        return None


def _check_types(cl: CountedLoop, index_decl: c_ast.Decl, env: TypeEnv, fail) -> bool:
    """Refuse index and bound types for which the main loop's bound could wrap around.

    Returns whether the bound needs the guard ``ub > lb ? ... : lb`` (an
    unsigned index from a nonzero lower bound: ``ub - lb`` wraps when ``ub < lb``).
    """
    kind = env.category(index_decl.type)
    if kind not in ("signed", "unsigned", "pointer"):
        raise fail(f"index {cl.index} is not an integer or a pointer ({kind})")
    if cl.trip_count() is not None:
        return False  # computed exactly here
    cats = {}
    for what, e in (("lower bound", cl.lb), ("upper bound", cl.ub_source)):
        cats[what] = env.expr_category(e)
        if cats[what] == "float":
            raise fail(f"{what} {to_c(e)} is floating point")
        if cats[what] == "unknown":
            raise fail(f"cannot tell the type of {what} {to_c(e)}")
    lb_value = int_value(simplify(cl.lb))
    lb_cat, ub_cat = cats["lower bound"], cats["upper bound"]
    if kind == "pointer" and lb_cat == ub_cat == "pointer":
        return False
    if kind == "signed" and (lb_cat == ub_cat == "signed" or (lb_value == 0 and ub_cat == "unsigned")):
        return False
    if kind == "unsigned" and ub_cat == "unsigned":
        if lb_value == 0:
            return False
        if lb_cat == "unsigned" or (lb_value is not None and lb_value > 0):
            return True
    raise fail(
        f"bounds {to_c(cl.lb)} and {to_c(cl.ub)} of {kind} index {cl.index} mix signedness: "
        f"the trip count {to_c(simplify(c_ast.BinaryOp('-', copy_node(cl.ub), copy_node(cl.lb))))} "
        "could wrap around"
    )


def body_copies(body: c_ast.Node, index: str, values: list[c_ast.Node | None]) -> list[c_ast.Node]:
    """Copies of ``body`` with ``index`` replaced by each value (None: left as is).

    A compound body with declarations keeps its braces per copy; otherwise the
    copies' statements are spliced.
    """
    keep_braces = isinstance(body, c_ast.Compound) and any(
        isinstance(s, (c_ast.Decl, c_ast.Typedef, c_ast.DeclList, c_ast.StaticAssert))
        for s in body.block_items or []
    )
    out: list[c_ast.Node] = []
    for v in values:
        c = copy_node(body)
        if v is not None:
            c = substitute_index(c, index, v)
        if isinstance(c, c_ast.Compound) and not keep_braces:
            out.extend(c.block_items or [])
        elif not isinstance(c, c_ast.EmptyStatement):
            out.append(c)
    return out


def substitute_index(stmt: c_ast.Node, index: str, value: c_ast.Node) -> c_ast.Node:
    """Replace ``index`` by ``value``, folding ``(i + 2) - 1`` into ``i + 1``."""
    made: set[int] = set()

    def make() -> c_ast.Node:
        n = copy_node(value)
        made.add(id(n))
        return n

    def merge(n: c_ast.Node) -> c_ast.Node | None:
        # integer arithmetic on the index only: reassociating is exact
        if isinstance(n, c_ast.BinaryOp) and n.op in ("+", "-") and id(n.left) in made:
            if int_value(n.right) is not None:
                folded = simplify(n)
                made.add(id(folded))
                return folded
        return None

    return transform(substitute(stmt, index, make), merge)


def main_bound(cl: CountedLoop, rate: int) -> tuple[c_ast.Node, int | None]:
    """The main loop's bound and, for constant bounds, the trip count."""
    trips = cl.trip_count()
    lb, ub, s = cl.lb, cl.ub, cl.step
    if trips is not None:
        bound = c_ast.BinaryOp("+", copy_node(lb), make_int(rate * s * (trips // rate)))
        return simplify(bound), trips
    span = c_ast.BinaryOp("-", copy_node(ub), copy_node(lb))
    if s == 1:  # lb + rate * ((ub - lb) / rate)
        groups = c_ast.BinaryOp("/", span, make_int(rate))
    else:  # lb + rate*s * ((ub - lb + s - 1) / (s*rate))
        groups = c_ast.BinaryOp("/", c_ast.BinaryOp("+", span, make_int(s - 1)), make_int(s * rate))
    bound = simplify(c_ast.BinaryOp("+", copy_node(lb), c_ast.BinaryOp("*", make_int(rate * s), groups)))
    if cl.guarded:  # ub > lb ? bound : lb
        test = c_ast.BinaryOp(">", copy_node(ub), copy_node(lb))
        bound = c_ast.TernaryOp(test, bound, copy_node(lb))
    return bound, None
