"""isl ASTs back to C (``c_ast``): loops, guards, statement copies, readable expressions.

The conversion behind :func:`.codegen.generate`. Before (isl's AST, as isl prints it)::

    for (int c0 = 0; c0 <= floord(n - 1, 4); c0 += 1)
      for (int c1 = 4 * c0; c1 <= min(n - 1, 4 * c0 + 3); c1 += 1)
        S0(c1);

After::

    for (int c0 = 0; 4 * c0 < n; c0++)
        for (int c1 = 4 * c0; c1 < (n < 4 * c0 + 4 ? n : 4 * c0 + 4); c1++)
            a[c1] = 2 * b[c1 + 1];

* loops declare their iterator in the for-init; ``c <= e - 1`` is printed
  ``c < e`` (when that saves a constant), ``c <= floord(a, b)`` as
  ``b * c <= a``, ``c <= min(a, b, d)`` as ``c <= a && c <= b && c <= d``
  (except for the loops right under an OpenMP-like mark, which keep one
  comparison), ``c += 1`` as ``c++``; a loop whose statements all use its
  iterator negated (``S(-c0)``, a decreasing original loop) runs downwards;
* sums are printed in isl's order of terms, subtracted terms after added
  ones, the constant last (``1 - n`` when nothing is added); parameters get
  back their C names (``Scop.names``), unsigned ones cast to the iterator
  type, and a loop variable of another type than the iterators is replaced
  by a cast (``(unsigned)c0``);
* ``min``/``max`` become ``a < b ? a : b``/``a > b ? a : b``; isl's
  divisions of a non-negative dividend (``pdiv_q``, ``pdiv_r``) are plain
  ``/`` and ``%``; a floor division ``fdiv_q`` is plain ``/`` when the
  dividend is non-negative on every path to it (checked with isl on the
  enclosing loop bounds and guards), else ``a < 0 ? -((b - 1 - a) / b) : a / b``;
* a user node ``S3(e0, e1)`` is a copy of statement ``S3`` with its k-th
  loop variable replaced by ``ek`` (all at once, shadowing honoured);
* a *mark* whose name is a pragma (first word in :data:`PRAGMA_WORDS`)
  becomes ``#pragma <name>`` before each outermost loop under it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import islpy as isl
from pycparser import c_ast

from passman import PassFailed
from passman.astutil import copy_node, transform, walk
from passman.lazy import LazyAttribute
from passman.printer import to_c

from ..cfacts.folding import make_int, simplify
from ..cfacts.names import resolve_names
from .affine import ctx
from .scop import Scop, Statement

_T = LazyAttribute("islpy", "ast_node_type")
_E = LazyAttribute("islpy", "ast_expr_type")
_OP = LazyAttribute("islpy", "ast_expr_op_type")

#: first words of mark names that are pragma texts (``"omp parallel for"``, ``"GCC ivdep"``)
PRAGMA_WORDS: frozenset[str] = frozenset({"omp", "passman", "GCC", "clang", "acc", "ivdep", "simd"})

#: the start of the text of a mark whose subtree becomes one OpenMP task (a block after the pragma)
TASK_MARK = "omp task"
#: what ends a task mark whose ``$k`` code generation fills in, before the index of its prefix
#: schedule (:func:`.codegen._bind_marks`)
TASK_TAG = " #prefix"
#: the annotation of a task mark's AST node, before the index of its coordinates
TASK_COORDS = "passman task coordinates "

#: separates a pragma mark's text from the iterator of the loop it is about (:func:`bind_mark`)
MARK_LOOP = " @"


def is_pragma_mark(text: str) -> bool:
    """Whether a mark name is a pragma text (its first word is in :data:`PRAGMA_WORDS`)."""
    words = text.split()
    return bool(words) and words[0] in PRAGMA_WORDS


def bind_mark(text: str, iterator: str) -> str:
    """The name of a pragma mark that applies only to the loop of ``iterator``.

    isl leaves out a loop that runs once (a tile loop with one tile per
    wavefront): the mark then sits right above the *next* loop, which the
    pragma must not reach. The converter puts the pragma on a loop of that
    iterator only, and drops it when there is none.
    """
    return f"{text}{MARK_LOOP}{iterator}"

_BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pdiv_q": "/", "pdiv_r": "%",
           "zdiv_r": "%", "and_": "&&", "and_then": "&&", "or_": "||", "or_else": "||",
           "eq": "==", "le": "<=", "lt": "<", "ge": ">=", "gt": ">"}  # fmt: skip
_ISL_TEXT = {"add": "+", "sub": "-", "mul": "*", "eq": "=", "le": "<=", "lt": "<", "ge": ">=",
             "gt": ">", "and_": "and", "and_then": "and", "or_": "or", "or_else": "or"}  # fmt: skip


@dataclass
class Instance:
    """A generated copy of a statement and the C expressions of its domain dimensions."""

    stmt: Statement
    root: c_ast.Node
    args: list[c_ast.Node]


def _annotation(node: isl.AstNode) -> str | None:
    """The name of an AST node's annotation, None if it has none."""
    try:
        ann = node.get_annotation()
    except isl.Error:
        return None
    return None if ann is None else ann.get_name()


@dataclass
class AstConverter:
    """Turns one isl AST into ``c_ast`` for one part (see the module docstring).

    ``instances`` collects the statement copies made, with their arguments;
    statements in the branches of a data-dependent ``if`` (``owner``) are
    left as holes (``EmptyStatement``), recorded in ``holes``: the copy of
    the ``if`` statement executes them.
    """

    scop: Scop
    iterators: set[str]
    itype: str
    coord: object
    #: statement name -> the data-dependent ``if`` statement whose branches hold it
    owner: dict[str, str] = field(default_factory=dict)
    #: declaration statements whose variable is declared at the start of the part
    split: set[str] = field(default_factory=set)
    instances: list[Instance] = field(default_factory=list)
    #: instances of ``owner`` statements, by ``id`` of their hole
    holes: dict[int, Instance] = field(default_factory=dict)
    #: isl constraints true at the node being converted (isl's names)
    path: list[str] = field(default_factory=list)
    #: C names of the parameters to cast to the iterator type (unsigned ones)
    casts: set[str] = field(default_factory=set)
    #: loop variable (isl name) -> its type, when it is not the iterator type
    var_types: dict[str, c_ast.Node] = field(default_factory=dict)
    #: non-affine parts of sums, by ``@`` and a number (see :meth:`var`)
    atoms: dict[str, c_ast.Node] = field(default_factory=dict)
    #: iterators of the loops printed downwards: ``c`` stands for isl's ``-c``
    negated: set[str] = field(default_factory=set)
    #: under an OpenMP-like mark, no loop yet: the next loops need a canonical test (``c < e``)
    canonical: bool = False
    #: per tagged task mark isl generated (its node's annotation gives the index here): its tag
    #: and the value of each schedule dimension around it (``$k`` in its text; a loop isl
    #: generated away has a value, no iterator)
    task_coords: list[tuple[int, list[isl.AstExpr]]] = field(default_factory=list)

    # -- nodes ---------------------------------------------------------------------------
    def nodes(self, node: isl.AstNode) -> list[c_ast.Node]:
        t = node.get_type()
        if t == _T.block:
            lst = node.block_get_children()
            return [x for k in range(lst.n_ast_node()) for x in self.nodes(lst.get_at(k))]
        if t == _T.for_:
            return [self.loop(node)]
        if t == _T.if_:
            return [self.branch(node)]
        if t == _T.user:
            return [self.user(node.user_get_expr())]
        if t == _T.mark:
            text, _, iterator = node.mark_get_id().get_name().partition(MARK_LOOP)
            saved, self.canonical = self.canonical, text.split()[:1] in (["omp"], ["passman"])
            inner = self.nodes(node.mark_get_node())
            self.canonical = saved
            if text.startswith(TASK_MARK):  # a task: everything under the mark, whatever it is
                pragma = c_ast.Pragma(self.task_text(text, _annotation(node)), self.coord)
                return [pragma, c_ast.Compound(inner, self.coord)]
            if is_pragma_mark(text):
                return _put_pragma(inner, text, self.coord, iterator or None)
            return inner
        raise PassFailed(
            f"{self.scop.where}: cannot regenerate the part: unexpected isl AST node {t}"
        )

    def task_text(self, text: str, annotation: str | None) -> str:
        """A task mark's text with each ``$k`` replaced by the value of schedule dimension ``k`` there
        (``annotation``: the node's, naming its coordinates in :attr:`task_coords`)."""
        text, tag, index = text.rpartition(TASK_TAG)
        if not tag:
            return index  # no tag: the whole text, its ``$k`` already iterators
        at = annotation.removeprefix(TASK_COORDS) if annotation is not None else ""
        if not at.isdigit() or int(at) >= len(self.task_coords) or self.task_coords[int(at)][0] != int(index):
            raise PassFailed(f"{self.scop.where}: cannot regenerate the part: a task mark without "
                             "its coordinates")  # fmt: skip
        coords = self.task_coords[int(at)][1]

        def value(m: re.Match) -> str:
            k = int(m.group(1))
            if k >= len(coords):
                raise PassFailed(f"{self.scop.where}: cannot regenerate the part: a task mark names "
                                 f"schedule dimension {k} below it")  # fmt: skip
            e = self.expr(coords[k])
            return to_c(e) if isinstance(e, (c_ast.ID, c_ast.Constant)) else f"({to_c(e)})"

        return re.sub(r"\$(\d+)", value, text)

    def body(self, node: isl.AstNode) -> c_ast.Node:
        items = self.nodes(node)
        if len(items) == 1 and not isinstance(items[0], (c_ast.Decl, c_ast.Pragma)):
            return items[0]
        return c_ast.Compound(items, self.coord)

    def loop(self, node: isl.AstNode) -> c_ast.Node:
        it = node.for_get_iterator().get_id().get_name()
        init_e, cond_e, inc_e = node.for_get_init(), node.for_get_cond(), node.for_get_inc()
        step = inc_e.get_val().to_python() if inc_e.get_type() == _E.int else None
        init, cond = self.expr(init_e), None
        canonical, self.canonical = self.canonical, False  # OpenMP: one comparison, no conjunction
        if canonical:
            cond = self.readable_condition(cond_e)
            if not (isinstance(cond, c_ast.BinaryOp) and isinstance(cond.left, c_ast.ID) and cond.left.name == it
                    and cond.op in ("<", "<=")):  # fmt: skip
                cond = self.expr(cond_e)
        if (
            not canonical
            and step is not None
            and not node.for_is_degenerate()
            and self.reversed_reads_better(node, it)
        ):
            self.negated.add(it)  # the loop runs over -it, downwards
            init, cond = self.expr(init_e, scale=-1), self.condition(cond_e, it)
            if init is None or cond is None:
                self.negated.discard(it)
                init, cond = self.expr(init_e), None
        down = it in self.negated
        decl = c_ast.Decl(it, [], [], [], [], c_ast.TypeDecl(it, [], None, c_ast.IdentifierType([self.itype])),
                          init, None, self.coord)  # fmt: skip
        saved = len(self.path)
        self.constrain(f"{it} >= {_isl(init_e)}")
        if node.for_is_degenerate():
            self.canonical = canonical
            body = self.body(node.for_get_body())
            del self.path[saved:]
            items = body.block_items if isinstance(body, c_ast.Compound) else [body]
            return c_ast.Compound([decl, *items], self.coord)
        self.constrain(_isl(cond_e))
        if cond is None:
            cond = self.condition(cond_e)
        if step == 1:
            nxt: c_ast.Node = c_ast.UnaryOp("p--" if down else "p++", c_ast.ID(it), self.coord)
        else:
            nxt = c_ast.Assignment(
                "-=" if down else "+=", c_ast.ID(it), self.expr(inc_e), self.coord
            )
        body = self.body(node.for_get_body())
        del self.path[saved:]
        self.negated.discard(it)
        self.canonical = canonical
        return c_ast.For(c_ast.DeclList([decl], self.coord), cond, nxt, body, self.coord)

    def reversed_reads_better(self, node: isl.AstNode, it: str) -> bool:
        """Whether every statement argument under the loop uses its iterator negated (``S(-c0)``)."""
        signs: list[int] = []

        def visit(n: isl.AstNode) -> bool:
            if n.get_type() == _T.user:
                call = n.user_get_expr()
                for k in range(1, call.get_op_n_arg()):
                    lin = self.linear(call.get_op_arg(k))
                    signs.append(0 if lin is None else lin[0].get(it, 0))
            return True

        node.for_get_body().foreach_descendant_top_down(visit)
        return bool(signs) and all(c <= 0 for c in signs) and any(c < 0 for c in signs)

    def branch(self, node: isl.AstNode) -> c_ast.Node:
        cond_e = node.if_get_cond()
        saved = len(self.path)
        self.constrain(_isl(cond_e))
        then = self.body(node.if_get_then_node())
        del self.path[saved:]
        orelse = self.body(node.if_get_else_node()) if node.if_has_else_node() else None
        return c_ast.If(self.condition(cond_e), then, orelse, self.coord)

    def user(self, call: isl.AstExpr) -> c_ast.Node:
        name = call.get_op_arg(0).get_id().get_name()
        stmt = self.scop.statement(name)
        args = [self.expr(call.get_op_arg(k)) for k in range(1, call.get_op_n_arg())]
        if name in self.owner:  # a branch of a data-dependent if: a hole, filled by its if
            hole = c_ast.EmptyStatement(self.coord)
            self.holes[id(hole)] = Instance(stmt, hole, args)
            return hole
        values = {}
        for k, lp in enumerate(stmt.loops):
            t = self.var_types.get(lp.iterator)
            values[lp.var] = args[k] if t is None else _cast(copy_node(t), args[k])
        root = _substitute(copy_node(stmt.node), values)
        if name in self.split:  # declared at the start of the part: assign here
            root = c_ast.Assignment("=", c_ast.ID(root.name), root.init, stmt.node.coord)
        self.instances.append(Instance(stmt, root, args))
        return root

    def constrain(self, text: str | None) -> None:
        if text is not None:
            self.path.append(text)

    # -- expressions ---------------------------------------------------------------------
    def condition(self, e: isl.AstExpr, loop: str | None = None) -> c_ast.Node | None:
        """A loop or ``if`` condition (see :meth:`readable_condition`).

        None only for the condition of a loop printed downwards (``loop``), when
        it is not an upper bound on its iterator.
        """
        out = self.readable_condition(e)
        return out if out is not None or loop in self.negated else self.expr(e)

    def readable_condition(self, e: isl.AstExpr) -> c_ast.Node | None:
        """A loop or ``if`` condition, made readable (None when it cannot be).

        ``x <= e - 1`` becomes ``x < e`` when that reads better; ``x <=
        floord(a, b)`` becomes ``b * x <= a`` (no floor division); ``x <=
        min(...)`` with such an argument, or more than two, a conjunction.
        """
        if e.get_type() != _E.op or e.get_op_type() not in (_OP.le, _OP.lt):
            return None
        x, bound = e.get_op_arg(0), e.get_op_arg(1)
        offset = -1 if e.get_op_type() == _OP.lt else 0
        args = [bound]
        if bound.get_type() == _E.op and bound.get_op_type() == _OP.min:
            args = [bound.get_op_arg(k) for k in range(bound.get_op_n_arg())]
        if len(args) <= 2 and not any(_is_floor(a) for a in args):
            return self.at_most(x, bound, offset)
        out: c_ast.Node | None = None
        for a in args:
            c = self.at_most(x, a, offset)
            if c is None:
                return None
            out = c if out is None else c_ast.BinaryOp("&&", out, c)
        return out

    def at_most(self, x: isl.AstExpr, bound: isl.AstExpr, offset: int = 0) -> c_ast.Node | None:
        """``x <= bound + offset``: ``b * x <= a`` for ``bound = floor(a / b)``, ``x < e`` for ``e - 1``.

        When ``x`` is a reversed iterator ``-c``, ``c >= -bound`` (or ``c > -bound - 1``).
        """
        lin = self.linear(x)
        sign = -1 if lin is not None and any(c < 0 for c in lin[0].values()) else 1
        scale = 1
        if _is_floor(bound):  # x <= floor(a / b) + offset  <=>  b * x <= a + b * offset
            scale = bound.get_op_arg(1).get_val().to_python()
            bound = bound.get_op_arg(0)
        left = self.expr(x, scale=sign * scale)
        right = self.expr(bound, scale=sign, shift=sign * offset * scale)
        plus = self.expr(bound, scale=sign, shift=sign * (offset * scale + 1))
        if left is None or right is None:
            return None
        strict, loose = ("<", "<=") if sign > 0 else (">", ">=")
        zero = isinstance(right, c_ast.Constant) and right.value == "0"  # c <= 0, not c < 1
        if plus is not None and not zero and _constants(plus) + (sign < 0) <= _constants(right):
            return c_ast.BinaryOp(strict, left, plus)
        return c_ast.BinaryOp(loose, left, right)

    def expr(self, e: isl.AstExpr, scale: int = 1, shift: int = 0) -> c_ast.Node:
        """``scale * e + shift`` as C: sums in order, constants last, ``min``/``max`` as ``?:``.

        Scaling and shifting go inside a ``min``/``max`` (``-min(a, b)`` is
        ``max(-a, -b)``) and into the terms of a sum.
        """
        op = e.get_op_type().name if e.get_type() == _E.op else None
        if op in ("min", "max"):
            args = [self.expr(e.get_op_arg(k), scale, shift) for k in range(e.get_op_n_arg())]
            if scale < 0:
                op = "max" if op == "min" else "min"
            out = args[0]
            for a in args[1:]:
                test = c_ast.BinaryOp("<" if op == "min" else ">", copy_node(out), copy_node(a))
                out = c_ast.TernaryOp(test, out, a)
            return out
        lin = self.linear(e, atoms=True)
        assert lin is not None
        terms, const = lin
        return _sum([(c * scale, n) for n, c in terms.items()], const * scale + shift, self.var)

    def operation(self, e: isl.AstExpr) -> c_ast.Node:
        """An isl operation that is not affine (divisions, conditions, ``min``/``max`` inside sums)."""
        op = e.get_op_type().name
        if op in ("min", "max"):
            return self.expr(e)
        args = [self.expr(e.get_op_arg(k)) for k in range(e.get_op_n_arg())]
        if op in _BINARY:
            return c_ast.BinaryOp(_BINARY[op], args[0], args[1])
        if op in ("cond", "select"):
            return c_ast.TernaryOp(args[0], args[1], args[2])
        if op == "fdiv_q":
            if self.non_negative(e.get_op_arg(0)):
                return c_ast.BinaryOp("/", args[0], args[1])
            b = e.get_op_arg(1).get_val().to_python()
            return _floor_div(args[0], args[1], self.expr(e.get_op_arg(0), scale=-1, shift=b - 1))
        raise PassFailed(
            f"{self.scop.where}: cannot regenerate the part: isl expression {e.to_C_str()}"
        )

    def var(self, name: str) -> c_ast.Node:
        """A term of a generated sum: a variable (``(long)n`` for an unsigned parameter ``n``),
        or a non-affine part (``@`` and a number)."""
        if name.startswith("@"):
            return copy_node(self.atoms[name])
        if name not in self.casts:
            return c_ast.ID(name)
        return _cast(c_ast.IdentifierType([self.itype]), c_ast.ID(name))

    def linear(self, e: isl.AstExpr, atoms: bool = False) -> tuple[dict[str, int], int] | None:
        """``({variable: coefficient}, constant)`` of an affine expression.

        A part that is not affine (a division, a product of variables) is
        None, or with ``atoms`` a term of its own (see :meth:`var`).
        """
        t = e.get_type()
        if t == _E.int:
            return {}, e.get_val().to_python()
        if t == _E.id:
            n = e.get_id().get_name()
            if n in self.iterators:
                return {n: -1 if n in self.negated else 1}, 0
            return {self.scop.names.get(n, n): 1}, 0
        op = e.get_op_type().name
        out: tuple[dict[str, int], int] | None = None
        # only sums and products can be affine: anything else is an atom at once (converting
        # its operands here and again in :meth:`operation` doubles the work at every level)
        args = (
            [self.linear(e.get_op_arg(k), atoms) for k in range(e.get_op_n_arg())]
            if op in ("minus", "add", "sub", "mul")
            else [None]
        )
        if any(a is None for a in args):
            pass
        elif op == "minus":
            out = {n: -c for n, c in args[0][0].items()}, -args[0][1]
        elif op in ("add", "sub"):
            sign = 1 if op == "add" else -1
            terms = dict(args[0][0])
            for n, c in args[1][0].items():
                terms[n] = terms.get(n, 0) + sign * c
            out = {n: c for n, c in terms.items() if c}, args[0][1] + sign * args[1][1]
        elif op == "mul" and not (args[0][0] and args[1][0]):
            (ta, ca), (tb, cb) = args
            k, (terms, const) = (ca, (tb, cb)) if not ta else (cb, (ta, ca))
            out = {n: c * k for n, c in terms.items() if c * k}, const * k
        if out is not None or not atoms:
            return out
        key = f"@{len(self.atoms)}"  # converted here: a division's guard depends on the context
        self.atoms[key] = self.operation(e)
        return {key: 1}, 0

    def non_negative(self, e: isl.AstExpr) -> bool:
        """Whether ``e`` is ``>= 0`` wherever it is evaluated (isl, on the enclosing bounds and guards)."""
        text = _isl(e)
        if text is None:
            return False
        dims = ", ".join(sorted(self.iterators))
        cond = " and ".join(f"({c})" for c in [*self.path, f"{text} < 0"])
        try:
            s = isl.Set(
                f"[{', '.join(self.scop.params)}] -> {{ [{dims}] : {cond} }}", context=ctx()
            )
            return s.intersect_params(self.scop.context).is_empty()
        except isl.Error:
            return False


def _isl(e: isl.AstExpr) -> str | None:
    """An isl AST expression in isl's set syntax (None when it has no affine reading)."""
    t = e.get_type()
    if t == _E.int:
        return str(e.get_val().to_python())
    if t == _E.id:
        return e.get_id().get_name()
    op = e.get_op_type()
    opname = op.name
    args = [_isl(e.get_op_arg(k)) for k in range(e.get_op_n_arg())]
    if any(a is None for a in args):
        return None
    if opname in _ISL_TEXT:
        return f"({args[0]}) {_ISL_TEXT[opname]} ({args[1]})"
    if opname == "minus":
        return f"-({args[0]})"
    if opname in ("min", "max"):
        return f"{opname}({', '.join(args)})"
    if opname in ("fdiv_q", "pdiv_q", "div"):
        return f"floor(({args[0]})/({args[1]}))"
    if opname in ("pdiv_r", "zdiv_r"):
        return f"({args[0]}) mod ({args[1]})"
    return None


def _is_floor(e: isl.AstExpr) -> bool:
    """A floor division by a positive constant (isl's ``fdiv_q``/``pdiv_q``)."""
    return (
        e.get_type() == _E.op
        and e.get_op_type() in (_OP.fdiv_q, _OP.pdiv_q)
        and e.get_op_arg(1).get_type() == _E.int
        and e.get_op_arg(1).get_val().to_python() > 0
    )


def _floor_div(a: c_ast.Node, b: c_ast.Node, neg: c_ast.Node | None) -> c_ast.Node:
    """``floor(a / b)`` for ``b > 0`` (C's ``/`` truncates): ``a < 0 ? -((b - 1 - a) / b) : a / b``.

    ``neg`` is ``b - 1 - a`` when the caller could fold it.
    """
    if neg is None:
        neg = c_ast.BinaryOp("-", c_ast.BinaryOp("-", copy_node(b), make_int(1)), copy_node(a))
    return c_ast.TernaryOp(
        _negative(a),
        c_ast.UnaryOp("-", c_ast.BinaryOp("/", neg, copy_node(b))),
        c_ast.BinaryOp("/", a, b),
    )


def _negative(a: c_ast.Node) -> c_ast.Node:
    """``a < 0``, with a sum's subtracted terms moved to the right (``1 < n`` for ``1 - n < 0``)."""
    if isinstance(a, c_ast.BinaryOp) and a.op == "-":
        return c_ast.BinaryOp("<", copy_node(a.left), copy_node(a.right))
    return c_ast.BinaryOp("<", copy_node(a), make_int(0))


def _sum(terms: list[tuple[int, str]], const: int, var: Callable[[str], c_ast.Node]) -> c_ast.Node:
    """``c1 * x1 + ... + const``: positive terms first, then the constant when all else is subtracted.

    ``var(name)`` gives the C expression of a variable.
    """
    pos = [(c, n) for c, n in terms if c > 0]
    neg = [(-c, n) for c, n in terms if c < 0]
    out: c_ast.Node | None = None
    if not pos and const > 0:
        out, const = make_int(const), 0
    for c, n in pos:
        term = var(n) if c == 1 else c_ast.BinaryOp("*", make_int(c), var(n))
        out = term if out is None else c_ast.BinaryOp("+", out, term)
    for c, n in neg:
        term = var(n) if c == 1 else c_ast.BinaryOp("*", make_int(c), var(n))
        out = c_ast.UnaryOp("-", term) if out is None else c_ast.BinaryOp("-", out, term)
    if out is None:
        return make_int(const)
    if const:
        out = c_ast.BinaryOp("+" if const > 0 else "-", out, make_int(abs(const)))
    return out


def _cast(t: c_ast.Node, e: c_ast.Node) -> c_ast.Node:
    """``(t)e`` for a type specifier ``t`` (an ``IdentifierType``)."""
    return c_ast.Cast(c_ast.Typename(None, [], None, c_ast.TypeDecl(None, [], None, t)), e)


def _constants(e: c_ast.Node) -> int:
    return sum(isinstance(n, c_ast.Constant) for n in walk(e))


def _substitute(root: c_ast.Node, values: dict[str, c_ast.Node]) -> c_ast.Node:
    """Replace free occurrences of each variable named in ``values`` by a copy of its value, at once.

    Under ``sizeof`` too: a value has the type of the variable (cast when needed).
    """
    markers = {name: object() for name in values}
    table = resolve_names(root, markers)
    by_marker = {id(m): name for name, m in markers.items()}
    targets = {k: by_marker[id(b)] for k, b in table.binding.items() if id(b) in by_marker}
    made: set[int] = set()

    def replace(n: c_ast.Node) -> c_ast.Node | None:
        if id(n) not in targets:
            return None
        new = copy_node(values[targets[id(n)]])
        made.update(id(x) for x in walk(new))
        return new

    def fold(n: c_ast.Node) -> None:  # ``a[c0 + 1 - 1]`` is ``a[c0]``
        if isinstance(n, c_ast.ArrayRef) and any(id(x) in made for x in walk(n.subscript)):
            n.subscript = simplify(n.subscript)

    root = transform(root, replace)
    transform(root, fold)
    return root


def _loop_iterator(loop: c_ast.For) -> str | None:
    decls = loop.init.decls if isinstance(loop.init, c_ast.DeclList) else []
    return decls[0].name if decls else None


def _put_pragma(
    items: list[c_ast.Node], text: str, coord: object, iterator: str | None = None
) -> list[c_ast.Node]:
    """``#pragma text`` before each outermost loop of ``items`` (through blocks and ``if``).

    With ``iterator``, only before loops of that iterator: an outermost loop
    of another one is the loop below a marked loop that isl left out, and
    gets no pragma.
    """
    out: list[c_ast.Node] = []
    for n in items:
        if isinstance(n, c_ast.For):
            if iterator is None or _loop_iterator(n) == iterator:
                out.append(c_ast.Pragma(text, coord))
            out.append(n)
            continue
        if isinstance(n, c_ast.Compound):
            n.block_items = _put_pragma(n.block_items or [], text, coord, iterator)
        elif isinstance(n, c_ast.If):
            for attr in ("iftrue", "iffalse"):
                sub = getattr(n, attr)
                if isinstance(sub, c_ast.For):
                    if iterator is None or _loop_iterator(sub) == iterator:
                        setattr(n, attr, c_ast.Compound([c_ast.Pragma(text, coord), sub], coord))
                elif isinstance(sub, c_ast.Compound):
                    sub.block_items = _put_pragma(sub.block_items or [], text, coord, iterator)
        out.append(n)
    return out
