"""Reduction detection, after Amini 2012 §4.4.1 (Jouvelot and Dehbonei's framework, as in PIPS).

Per statement (proper reductions), a reduction is one of:

* ``x op= e`` with ``op`` in ``+ - * / | & ^`` (``-=`` is a sum, ``/=`` a product),
  ``x++``, ``++x``, ``x--``, ``--x`` (sums), at the top of an expression statement
  or of a ``for`` increment (a ``b++`` whose value is used is not one);
* ``x = x op e``, and ``x = e op x`` for a commutative ``op``, where the
  right-hand side reaches ``x`` only through operators of one class
  (``+ -``, ``* /``, ``&``, ``|``, ``^``, ``&&``, ``||``): ``x = x + a - b`` is a sum;
* ``x = x < e ? e : x`` (and its mirror forms), ``x = fmax(x, e)``, and
  ``if (e > x) x = e;``: max (min likewise);
* a call: the callee's summary reductions translated to the actuals
  (``acc(&s, v)`` with ``void acc(double *p, double v) { *p += v; }`` is a
  sum on ``s``).

``x`` is a scalar, an array element (``s[a]``, ``*p``) or a struct-free
reference. The operand ``e`` and the subscripts of ``x`` must be free of side
effects (calls only to pure functions) and must not access ``x``'s
variable: ``b = b + b`` is rejected. Two reductions of one statement on the
same reference are merged when their operators are compatible and both
dropped otherwise.

Per loop (and per function, on formals and globals): the set of
(reference, operator) pairs reducible over the whole body: every access to
the variable in the body belongs to a reduction of one operator class
(``s += a; s -= b`` is a sum; ``s += a; s *= b`` is none), except accesses to
other constant elements. An element whose subscripts do not change in the
loop stays an element reduction (``hist[k] += 1``); otherwise the reduction is
on the whole array (``hist[a[i]]++`` in a loop over ``i``).

Before / after (``module.display("reductions")``)::

    // loop reductions: max[m] sum[s]
    for (int i = 0; i < n; i++) {
        // reductions: sum[s]
        s += a[i] * b[i];
        // reductions: max[m]
        m = fmax(m, a[i]);
    }

Deviation from the thesis: for ``s[a] = s[a] + b++`` it lists ``sum[s[a]]``
and ``sum[b]``; here neither, because its own rule 4 (side-effect-free
operands) excludes the first, and a partial private ``b`` would feed wrong
values to ``s[a]``. Floating-point reductions are reported like integer
ones (exact arithmetic, as PIPS); the parallelizer decides whether
reassociation is acceptable.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from pycparser import c_ast

from passman import Loop, Module, PassFailed, analysis
from passman.astutil import same_tree, walk
from passman.printer import to_c

from ..cfacts.folding import int_value
from ..cfacts.names import where
from ..cfacts.sideeffects import PURE_LIBM, has_side_effects, variables
from .call_effects import bottom_up
from .effect_model import (
    ANYWHERE,
    Effect,
    EffectsMap,
    FunctionScope,
    function_scope,
    param_decls,
    stub_info,
    written_names,
)
from .references import Ref, proper_parts, statement_refs, statements, substatements

#: operator classes: the C operator a reduction uses, by the operators that update it
_CLASS = {
    "+": "+", "-": "+", "*": "*", "/": "*", "&": "&", "|": "|", "^": "^", "&&": "&&", "||": "||",
}  # fmt: skip
_COMMUTATIVE = {"+", "*", "&", "|", "^", "&&", "||"}
_NAMES = {
    "+": "sum", "*": "prod", "&": "bitand", "|": "bitor", "^": "bitxor", "&&": "and", "||": "or",
    "min": "min", "max": "max",
}  # fmt: skip
_MINMAX = {"fmax": "max", "fmaxf": "max", "fmaxl": "max", "fmin": "min", "fminf": "min", "fminl": "min"}


@dataclass(frozen=True)
class Reduction:
    """A reduction on a reference with an operator.

    ``op`` is the C operator of the reduction (``+``, ``*``, ``&``, ``|``,
    ``^``, ``&&``, ``||``) or ``min``/``max``, as OpenMP spells it. ``kind``:
    ``scalar`` (a variable), ``array_element`` (one element: ``subscripts``
    gives it, as C text; ``*p`` is ``p[0]``) or ``array`` (any elements of
    ``var``; ``subscripts`` None). ``pointee``: the memory is reached through
    the pointer ``var``.
    """

    var: str
    subscripts: tuple[str, ...] | None
    op: str
    kind: str
    pointee: bool = False
    #: declaration of a local variable (None for globals and formals)
    decl: object | None = field(default=None, repr=False)
    #: the statements that update it
    stmts: tuple[c_ast.Node, ...] = field(default=(), compare=False, repr=False)

    @property
    def reference(self) -> str:
        """``s``, ``hist[k]``, ``hist[*]``."""
        if self.kind == "array":
            return f"{self.var}[*]"
        return self.var + "".join(f"[{s}]" for s in self.subscripts or ())

    @property
    def text(self) -> str:
        """PIPS style: ``sum[s]``, ``max[m]``, ``sum[hist[*]]``."""
        return f"{_NAMES[self.op]}[{self.reference}]"

    @property
    def key(self) -> tuple:
        """The reduced memory (variable and element), without the operator."""
        return (self.var, self.subscripts, self.pointee, id(self.decl))


@dataclass(frozen=True)
class Reductions:
    """The ``reductions`` resource of a function.

    ``statements[id(s)] == (s, reductions)``: proper reductions of each
    statement; ``loops[id(for)] == (for, reductions)``: what each loop can
    reduce over its whole body; ``summary``: the function's reductions on
    its pointer formals' pointees and globals (for callers);
    ``why[id(for)] == (for, reasons)``: why candidates of a loop were
    rejected, in source terms.
    """

    statements: Mapping[int, tuple[c_ast.Node, tuple[Reduction, ...]]]
    loops: Mapping[int, tuple[c_ast.For, tuple[Reduction, ...]]]
    summary: tuple[Reduction, ...]
    why: Mapping[int, tuple[c_ast.Node, tuple[str, ...]]]

    def of(self, stmt: c_ast.Node) -> tuple[Reduction, ...]:
        """Proper reductions of a statement."""
        entry = self.statements.get(id(stmt))
        return entry[1] if entry else ()

    def loop(self, loop: c_ast.Node) -> tuple[Reduction, ...]:
        """Reductions of a loop (a ``For`` or the ``Label`` wrapping it)."""
        while isinstance(loop, c_ast.Label):
            loop = loop.stmt
        entry = self.loops.get(id(loop))
        return entry[1] if entry else ()

    def reasons(self, loop: c_ast.Node) -> tuple[str, ...]:
        """Why the candidate reductions of a loop were rejected."""
        while isinstance(loop, c_ast.Label):
            loop = loop.stmt
        entry = self.why.get(id(loop))
        return entry[1] if entry else ()


# ---------------------------------------------------------------- statements


@dataclass
class _Candidate:
    """A statement-level reduction before the loop-level checks."""

    red: Reduction
    #: the reference nodes the update itself accesses (not conflicts)
    nodes: frozenset[int]
    index_vars: frozenset[str]
    #: local, static, formal or global
    scope_kind: str = "global"


class _Detector:
    """Proper reductions of the statements of one function."""

    def __init__(self, module: Module):
        self.module = module
        self.ws = module.ws
        self.scope: FunctionScope = function_scope(module)
        self.proper: EffectsMap = module.resource("proper_effects")
        self.cumulated: EffectsMap = module.resource("cumulated_effects")
        self.labels = {id(n.stmt): n.name for n in walk(self.scope.func) if isinstance(n, c_ast.Label)}
        self.addressed = {
            r.var for s in statements(self.scope.func) for r in _addresses(s, self.scope)
        }

    # -- one statement ---------------------------------------------------------------
    def statement(self, stmt: c_ast.Node) -> tuple[list[_Candidate], list[str]]:
        """Candidate reductions of ``stmt`` itself and the reasons for rejected ones."""
        cands: list[_Candidate] = []
        why: list[str] = []
        if isinstance(stmt, c_ast.If):
            c = self.if_minmax(stmt)
            if c is not None:
                return [c], why
        tops = self._top_expressions(stmt)
        if not tops:
            return [], why
        refs = statement_refs(stmt, self.scope.names, self.scope.types)
        for e in tops:
            c = self.expression(e, why)
            if c is not None:
                cands.append(c)
        for call in (n for p in proper_parts(stmt) for n in walk(p) if isinstance(n, c_ast.FuncCall)):
            cands.extend(self.call(call, why))
        kept = []
        for c in cands:
            clash = [r for r in refs if id(r.node) not in c.nodes and _touches(r, c.red, self.scope)]
            if clash:
                why.append(f"{where(stmt)}: {c.red.reference} is also accessed in the same statement "
                           f"({to_c(clash[0].node)})")
                continue
            kept.append(c)
        return _merge(kept, why, where(stmt)), why

    def _top_expressions(self, stmt: c_ast.Node) -> list[c_ast.Node]:
        """Expressions whose value is discarded: a statement's, a ``for`` increment's, comma items."""
        if isinstance(stmt, c_ast.For):
            roots = [stmt.next] if stmt.next is not None else []
        elif isinstance(stmt, (c_ast.Assignment, c_ast.UnaryOp, c_ast.ExprList, c_ast.FuncCall)):
            roots = [stmt]
        else:
            return []
        out = []
        while roots:
            e = roots.pop(0)
            if isinstance(e, c_ast.ExprList):
                roots[:0] = e.exprs
            else:
                out.append(e)
        return out

    def expression(self, e: c_ast.Node, why: list[str]) -> _Candidate | None:
        match e:
            case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--"):
                return self.candidate(e.expr, "+", [e.expr], None, why)
            case c_ast.Assignment(op="="):
                return self.assignment(e, why)
            case c_ast.Assignment() if e.op[:-1] in _CLASS and e.op not in ("&&=", "||="):
                return self.candidate(e.lvalue, _CLASS[e.op[:-1]], [e.lvalue], e.rvalue, why)
        return None

    def assignment(self, e: c_ast.Assignment, why: list[str]) -> _Candidate | None:
        lhs, rhs = e.lvalue, e.rvalue
        key = self._ref_text(lhs)
        if key is None:
            return None
        # min / max
        mm = _minmax(lhs, rhs)
        if mm is not None:
            op, matches, operands = mm
            return self.candidate(lhs, op, [lhs, *matches], operands, why)
        if not isinstance(rhs, c_ast.BinaryOp) or rhs.op not in _CLASS:
            return None
        cls = _CLASS[rhs.op]
        path = _find_through(rhs, lhs, cls)
        if path is None:
            if any(same_tree(n, lhs) for n in walk(rhs)):
                why.append(f"{where(e)}: {to_c(lhs)} = {to_c(rhs)} is not a reduction: "
                           f"{to_c(lhs)} is not reached through '{rhs.op}'-compatible operators only")
            return None
        match, operands = path
        return self.candidate(lhs, cls, [lhs, match], operands, why)

    def candidate(self, ref: c_ast.Node, op: str, nodes: list[c_ast.Node],
                  operand: c_ast.Node | list[c_ast.Node] | None, why: list[str]) -> _Candidate | None:
        """Check the reference and the operand of an update; the candidate if they qualify."""
        r = self._ref(ref)
        if r is None:
            return None
        text = self._ref_text(ref)
        ops = operand if isinstance(operand, list) else ([operand] if operand is not None else [])
        subs = list(r.subscripts or ())
        for x in [*ops, *subs]:
            if _impure(x, self):
                why.append(f"{where(ref)}: {text} is not a reduction: {to_c(x)} has side effects")
                return None
            if any(v.name == r.var and self.scope.names.decl_of(v) is r.decl for v in variables(x)):
                why.append(f"{where(ref)}: {text} is not a reduction: {r.var} is also used in {to_c(x)}")
                return None
        kind = self.scope.kind(r.decl)
        pointee = r.through_pointer or (kind == "formal" and self.scope.category(r.decl) == "array")
        sub_text = None if r.subscripts is None else tuple(to_c(s) for s in r.subscripts)
        red = Reduction(r.var, sub_text, op, "scalar" if sub_text is None and not pointee else "array_element",
                        pointee, r.decl if kind in ("local", "static") else None, (ref,))
        idx = frozenset(v.name for s in subs for v in variables(s))
        return _Candidate(red, frozenset(id(n) for n in nodes), idx, kind)

    def _ref(self, e: c_ast.Node) -> Ref | None:
        """The reference ``e`` designates, if it is a variable or an exactly known element."""
        if not isinstance(e, (c_ast.ID, c_ast.ArrayRef, c_ast.UnaryOp)):
            return None
        refs = statement_refs(c_ast.ExprList([e]), self.scope.names, self.scope.types)
        mine = [r for r in refs if r.node is e]
        if not mine or not mine[0].var or not mine[0].exact:
            return None
        return mine[0]

    def _ref_text(self, e: c_ast.Node) -> str | None:
        return to_c(e) if isinstance(e, (c_ast.ID, c_ast.ArrayRef, c_ast.UnaryOp)) else None

    def if_minmax(self, stmt: c_ast.If) -> _Candidate | None:
        """``if (e > x) x = e;`` is ``x = max(x, e)``."""
        if stmt.iffalse is not None or not isinstance(stmt.cond, c_ast.BinaryOp):
            return None
        body = stmt.iftrue
        while isinstance(body, c_ast.Compound) and body.block_items and len(body.block_items) == 1:
            body = body.block_items[0]
        if not (isinstance(body, c_ast.Assignment) and body.op == "="):
            return None
        x, e = body.lvalue, body.rvalue
        op = _compare(stmt.cond, x, e)
        if op is None:
            return None
        c = self.candidate(x, op, [x], e, [])
        if c is None:
            return None
        refs = statement_refs(stmt, self.scope.names, self.scope.types)
        matched = [r.node for r in refs if same_tree(r.node, x)]
        red = Reduction(c.red.var, c.red.subscripts, op, c.red.kind, c.red.pointee, c.red.decl, (stmt,))
        return _Candidate(red, c.nodes | {id(n) for n in matched}, c.index_vars, c.scope_kind)

    # -- calls -----------------------------------------------------------------------
    def call(self, call: c_ast.FuncCall, why: list[str]) -> list[_Candidate]:
        """The callee's summary reductions, translated to the actuals of ``call``."""
        if not isinstance(call.name, c_ast.ID):
            return []
        name = call.name.name
        info = stub_info(self.ws, name)
        if info is not None and getattr(info, "pure", False):
            return []
        callee = self.ws.callee(name)
        if callee is None:
            return []
        try:
            summary = self.ws.resource("reductions", callee).summary
        except PassFailed as err:
            if "recursive dependence" not in str(err):
                raise
            return []
        params = [p.name for p in param_decls(callee.ast)]
        args = list(call.args.exprs) if call.args is not None else []
        out = []
        for red in summary:
            if not red.pointee or red.var not in params:
                if red.decl is None and not red.pointee and red.var not in params:  # a global
                    out.append(_Candidate(Reduction(red.var, red.subscripts, red.op, red.kind, False, None,
                                                    (call,)), frozenset(), frozenset()))
                continue
            k = params.index(red.var)
            if k >= len(args):
                continue
            c = self._actual(args[k], red, call)
            if c is None:
                why.append(f"{where(call)}: the {_NAMES[red.op]} of {name} on {red.reference} "
                           f"does not map to a reference through {to_c(args[k])}")
            else:
                out.append(c)
        return out

    def _actual(self, a: c_ast.Node, red: Reduction, call: c_ast.FuncCall) -> _Candidate | None:
        while isinstance(a, c_ast.Cast):
            a = a.expr
        if red.kind != "array_element" or any(s != "0" for s in red.subscripts or ()):
            return None
        if isinstance(a, c_ast.UnaryOp) and a.op == "&":
            target = a.expr
        elif isinstance(a, c_ast.ID) and self.scope.category(self.scope.names.decl_of(a)) == "pointer":
            target = c_ast.UnaryOp("*", a, a.coord)
        else:
            return None
        c = self.candidate(target, red.op, [target], None, [])
        if c is None:
            return None
        r = c.red
        return _Candidate(Reduction(r.var, r.subscripts, r.op, r.kind, r.pointee, r.decl, (call,)),
                          c.nodes, c.index_vars, c.scope_kind)


def _addresses(stmt: c_ast.Node, scope: FunctionScope) -> list[Ref]:
    from .references import taken_addresses

    return taken_addresses(stmt, scope.names, scope.types)


def _impure(e: c_ast.Node, det: _Detector) -> bool:
    """Side effects other than calls to pure functions (``fmax``, libm, pure stubs)."""
    for n in walk(e):
        if isinstance(n, c_ast.FuncCall):
            if not isinstance(n.name, c_ast.ID):
                return True
            name = n.name.name
            info = stub_info(det.ws, name)
            pure = (info is not None and getattr(info, "pure", False)) or (
                name in PURE_LIBM and (det.ws.callee(name) is None or det.ws.callee(name).is_stub))
            if not pure or det.scope.names.is_local(det.scope.names.decl_of(n.name)):
                return True
    return has_side_effects(_without_calls(e) if any(isinstance(n, c_ast.FuncCall) for n in walk(e)) else e)


def _without_calls(e: c_ast.Node) -> c_ast.Node:
    """``e`` with every call replaced by a constant (their purity is checked apart)."""
    from passman.astutil import copy_node, transform

    return transform(copy_node(e), lambda n: c_ast.Constant("int", "0") if isinstance(n, c_ast.FuncCall) else None)


def _touches(r: Ref, red: Reduction, scope: FunctionScope) -> bool:
    """Whether a reference may access the memory of a reduction."""
    if r.var != red.var or r.mode == "address":
        return False
    if red.decl is not None and r.decl is not red.decl:
        return False
    pointee = r.through_pointer or (scope.kind(r.decl) == "formal" and scope.category(r.decl) == "array")
    if pointee != red.pointee:
        return False  # the pointer itself, not what it points to
    return not _disjoint(r.subscripts, red.subscripts)


def _disjoint(subs: tuple | None, texts: tuple[str, ...] | None) -> bool:
    """Whether two element references differ in a constant subscript."""
    if subs is None or texts is None:
        return False
    for s, t in zip(subs, texts):
        a = int_value(s) if isinstance(s, c_ast.Node) else _int_text(s)
        b = _int_text(t)
        if a is not None and b is not None and a != b:
            return True
    return False


def _int_text(t: str) -> int | None:
    try:
        return int(t)
    except (TypeError, ValueError):
        return None


def _merge(cands: list[_Candidate], why: list[str], at: str) -> list[_Candidate]:
    """Rule 8: compatible reductions on one reference merge, incompatible ones are dropped."""
    by: dict[tuple, list[_Candidate]] = {}
    for c in cands:
        by.setdefault(c.red.key, []).append(c)
    out = []
    for group in by.values():
        ops = {c.red.op for c in group}
        if len(ops) > 1:
            why.append(f"{at}: incompatible reductions on {group[0].red.reference}: "
                       + " and ".join(sorted(_NAMES[o] for o in ops)))
            continue
        first = group[0]
        stmts = tuple(n for c in group for n in c.red.stmts)
        red = Reduction(first.red.var, first.red.subscripts, first.red.op, first.red.kind,
                        first.red.pointee, first.red.decl, stmts)
        out.append(_Candidate(red, frozenset().union(*(c.nodes for c in group)),
                              frozenset().union(*(c.index_vars for c in group)), first.scope_kind))
    return out


def _find_through(e: c_ast.Node, ref: c_ast.Node, cls: str):
    """Path from ``e`` down to an occurrence of ``ref`` through operators of class ``cls``.

    Returns ``(the matched node, the other operands)`` or None. For ``-`` and
    ``/`` only the left operand may lead to ``ref``.
    """
    if same_tree(e, ref):
        return e, []
    if not (isinstance(e, c_ast.BinaryOp) and _CLASS.get(e.op) == cls):
        return None
    sides = [(e.left, e.right)]
    if e.op in _COMMUTATIVE:
        sides.append((e.right, e.left))
    for down, other in sides:
        got = _find_through(down, ref, cls)
        if got is not None:
            return got[0], got[1] + [other]
    return None


def _minmax(lhs: c_ast.Node, rhs: c_ast.Node):
    """``(op, nodes matching x, operands)`` for ``x = x < e ? e : x``, ``x = fmax(x, e)``... or None."""
    if isinstance(rhs, c_ast.FuncCall) and isinstance(rhs.name, c_ast.ID) and rhs.name.name in _MINMAX:
        args = rhs.args.exprs if rhs.args else []
        if len(args) == 2:
            for k in (0, 1):
                if same_tree(args[k], lhs) and not same_tree(args[1 - k], lhs):
                    return _MINMAX[rhs.name.name], [args[k]], [args[1 - k]]
        return None
    if not isinstance(rhs, c_ast.TernaryOp) or not isinstance(rhs.cond, c_ast.BinaryOp):
        return None
    t, f = rhs.iftrue, rhs.iffalse
    sides = (rhs.cond.left, rhs.cond.right)
    x_side = [n for n in sides if same_tree(n, lhs)]
    e_side = [n for n in sides if not same_tree(n, lhs)]
    if same_tree(f, lhs) and not same_tree(t, lhs):  # x = cond ? e : x: x takes e when cond
        op = _compare(rhs.cond, lhs, t)
        return (op, [f, *x_side], [t, *e_side]) if op else None
    if same_tree(t, lhs) and not same_tree(f, lhs):  # x = cond ? x : e: x takes e when !cond
        op = {"max": "min", "min": "max"}.get(_compare(rhs.cond, lhs, f) or "")
        return (op, [t, *x_side], [f, *e_side]) if op else None
    return None


def _compare(cond: c_ast.BinaryOp, x: c_ast.Node, e: c_ast.Node) -> str | None:
    """``max`` if ``cond`` means ``e > x`` (x should take e), ``min`` if ``e < x``, else None."""
    if cond.op not in ("<", "<=", ">", ">="):
        return None
    a, b = cond.left, cond.right
    greater = cond.op in (">", ">=")
    if same_tree(a, e) and same_tree(b, x):
        return "max" if greater else "min"
    if same_tree(a, x) and same_tree(b, e):
        return "min" if greater else "max"
    return None


# ---------------------------------------------------------------- loops and functions


class _Summarizer:
    """Which candidate reductions hold over a whole region (a loop body, a function body)."""

    def __init__(self, det: _Detector, proper: dict[int, list[_Candidate]]):
        self.det = det
        self.proper = proper

    def region(self, root: c_ast.Node, effects: Iterable[Effect], what: str,
               keep=lambda red: True) -> tuple[tuple[Reduction, ...], list[str]]:
        """The reductions valid over ``root`` (whose cumulated effects are ``effects``), and reasons."""
        effects = list(effects)
        written = written_names(effects) | {d.name for d in walk(root) if isinstance(d, c_ast.Decl) and d.name}
        own_written = {e.var for e in effects if e.action == "write" and not e.pointee}
        units = list(_units(root, self.proper))
        cands: dict[str, list[tuple[c_ast.Node, _Candidate]]] = {}
        for s in units:
            for c in self.proper.get(id(s), []):
                if keep(c.red):
                    cands.setdefault(c.red.var, []).append((s, c))
        out, why = [], []
        for var, found in cands.items():
            ops = {c.red.op for _, c in found}
            if len(ops) > 1:
                lines = sorted({f"{_NAMES[c.red.op]} at {where(s)}" for s, c in found})
                why.append(f"{what}: {var} has incompatible reductions ({', '.join(lines)})")
                continue
            red0 = found[0][1].red
            reducing = {id(s) for s, _ in found}
            conflict = self._conflict(units, reducing, red0, found)
            if conflict is not None:
                why.append(f"{what}: {red0.reference} is not a reduction: {conflict}")
                continue
            subs = {c.red.subscripts for _, c in found}
            idx = frozenset().union(*(c.index_vars for _, c in found))
            moving = idx & written or (red0.pointee and var in own_written)
            if len(subs) == 1 and not moving:
                kind = red0.kind
                sub = red0.subscripts
            else:
                kind, sub = "array", None
            stmts = tuple(n for _, c in found for n in c.red.stmts)
            out.append(Reduction(var, sub, red0.op, kind, red0.pointee, red0.decl, stmts))
        return tuple(sorted(out, key=lambda r: (r.var, r.op))), why

    def _conflict(self, units, reducing: set[int], red: Reduction, found) -> str | None:
        """The first access to ``red``'s variable in the region that is not a reduction, as text."""
        det = self.det
        touchable = red.pointee or any(c.scope_kind in ("global", "static") for _, c in found) \
            or red.var in det.addressed
        elements = {c.red.subscripts for _, c in found}
        for s in units:
            effects = det.cumulated.of(s) if _is_unit_if(s, self.proper) else det.proper.of(s)
            for e in effects:
                if e.var == ANYWHERE and touchable:
                    return f"{_access(e)} by a call at {where(s)}"
                if e.var != red.var or (red.decl is not None and e.decl is not red.decl):
                    continue
                if id(s) in reducing:
                    continue
                if e.pointee != red.pointee:
                    continue
                if all(_disjoint_text(e.subscripts, sub) for sub in elements):
                    continue
                return f"{e.text} {_access(e)} at {where(s)}"
        return None


def _access(e: Effect) -> str:
    return "read" if e.action == "read" else "written"


def _disjoint_text(a: tuple[str, ...] | None, b: tuple[str, ...] | None) -> bool:
    if a is None or b is None:
        return False
    return any(_int_text(x) is not None and _int_text(y) is not None and _int_text(x) != _int_text(y)
               for x, y in zip(a, b))


def _is_unit_if(s: c_ast.Node, proper: Mapping[int, list[_Candidate]]) -> bool:
    return isinstance(s, c_ast.If) and any(s in c.red.stmts for c in proper.get(id(s), []))


def _units(root: c_ast.Node, proper: Mapping[int, list[_Candidate]]) -> Iterable[c_ast.Node]:
    """Every statement under ``root``, an ``if`` reduction counting as one statement."""
    stack = [root]
    while stack:
        s = stack.pop()
        yield s
        if _is_unit_if(s, proper):
            continue
        stack.extend(reversed(substatements(s)))


# ---------------------------------------------------------------- the resource


def _display(module: Module, value: Reductions) -> dict:
    out: dict = {}
    for node, reds in value.statements.values():
        if reds:
            out.setdefault(node, []).append("reductions: " + " ".join(r.text for r in reds))
    for node, reds in value.loops.values():
        if reds:
            out.setdefault(node, []).insert(0, "loop reductions: " + " ".join(r.text for r in reds))
    out.setdefault(module.ast, []).append(
        "summary reductions: " + (" ".join(r.text for r in value.summary) or "(none)"))
    return out


@analysis(scope="module", provides="reductions", display=_display, reads=["cumulated_effects", "function_scope", "proper_effects", "reductions"])
def reductions(module: Module) -> Reductions:
    """Reductions of each statement, each loop and the function (Amini 2012 §4.4.1).

    Before: ``for (i = 0; i < n; i++) s = s + a[i];``
    After:  ``// loop reductions: sum[s]`` on the loop, ``// reductions: sum[s]`` on the statement.
    """
    bottom_up(module, "reductions")
    det = _Detector(module)
    func = det.scope.func
    proper: dict[int, list[_Candidate]] = {}
    stmt_out: dict[int, tuple[c_ast.Node, tuple[Reduction, ...]]] = {}
    for s in statements(func):
        cands, _ = det.statement(s)
        if cands:
            proper[id(s)] = cands
            stmt_out[id(s)] = (s, tuple(c.red for c in cands))
    summ = _Summarizer(det, proper)
    loops: dict[int, tuple[c_ast.For, tuple[Reduction, ...]]] = {}
    why: dict[int, tuple[c_ast.Node, tuple[str, ...]]] = {}
    for s in statements(func):
        if not isinstance(s, c_ast.For):
            continue
        what = f"{where(s)}: loop {det.labels.get(id(s), '?')}"
        reds, reasons = summ.region(s, det.cumulated.of(s), what)
        loops[id(s)] = (s, reds)
        if reasons:
            why[id(s)] = (s, tuple(reasons))
    visible = _visible(det.scope)
    summary, _ = summ.region(func.body, det.cumulated.of(func.body), f"function {module.name}", keep=visible)
    return Reductions(MappingProxyType(stmt_out), MappingProxyType(loops), summary, MappingProxyType(why))


def _visible(scope: FunctionScope):
    """Reductions a caller can see: on globals and through pointer formals."""

    def keep(red: Reduction) -> bool:
        if red.decl is not None:
            return False
        formals = {p.name for p in scope.params}
        return red.pointee if red.var in formals else True

    return keep


def loop_reductions(loop: Loop) -> tuple[Reduction, ...]:
    """What ``loop`` can reduce over its whole body."""
    return loop.module.resource("reductions").loop(loop.node)


def loop_reduction_reasons(loop: Loop) -> tuple[str, ...]:
    """Why candidate reductions of ``loop`` were rejected, in source terms."""
    return loop.module.resource("reductions").reasons(loop.node)
