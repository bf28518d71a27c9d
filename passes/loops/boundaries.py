"""Interior and boundary clones of loops that test their index: ``split_boundaries``.

Pochoir (Freitag 2014, §5.1 claim 11) runs each tile of a stencil through
one of two clones of its kernel: the *boundary* clone, with the checks that
keep every access inside the grid, and the *interior* clone, without them,
for the tiles whose accesses cannot leave the interior. Here the same idea
works on a loop, wherever it is (a coarse-grain sweep, the point loop of a
diamond, split or trapezoidal tile): a body that tests its index against a
bound (``i > 0 ? a[i - 1] : a[i]``, ``if (j == n - 1)``, a clamp macro's
``(i - 1) > 0 ? ...``) runs the iterations where every test has the value
it has in the middle of the range through a copy with the tests folded
away, and the others through the body as written.

Why it is always legal: the iterations run in the same order, the first
ones and the last ones through the body as written and the middle ones
through a body that computes the same values there. Each test kept is a
comparison of the index against an expression of variables the body does
not change, affine in the index with a nonzero coefficient; the test that
bounds the middle (its *interior side*) is monotone in the index, so a
loop that runs while it is false, then one that runs while it is true,
splits the range exactly where it changes, whatever the values of the
variables (which side of the range a test changes near is a guess, from
its constant or its parameters: a wrong guess costs speed, never results).

The point: the interior copy has no test left, and the compiler vectorizes
it (a clamped 1-D stencil: 0.286 s -> 0.113 s with ``gcc -O3``; a periodic
one, whose remainders also cost a division per neighbour, 12x over ``gcc
-O3`` at two threads: ``benchmarks/bench_boundaries.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pycparser import c_ast

from passman import Module, PassFailed, transformation
from passman.astutil import copy_node, replace_child, transform, walk
from passman.printer import to_c

from ..analysis.effect_model import current_scope
from ..cfacts.control import detach_pragmas, pragmas_before
from ..cfacts.folding import int_value, make_int, simplify
from ..cfacts.forms import extreme, linear_coefficient
from ..cfacts.names import fresh_name, names_in_scope, substitute
from ..cfacts.sideeffects import has_side_effects, variables
from ..cfacts.types import arith_type, expr_arith_type
from .counted import (
    BodyWrites,
    NotCounted,
    check_copyable_body,
    counted_header,
    refuse,
    stepped_header,
)

_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
#: OpenMP constructs that share a loop's iterations out: a split loop's pieces would each need one
_WORKSHARING = ("for", "distribute", "taskloop", "loop")


@dataclass
class IndexTest:
    """A comparison of the body that changes value once as the index grows."""

    #: the comparison as written (its text identifies its copies in the body)
    cmp: c_ast.BinaryOp
    #: coefficient of the index in ``left - right``
    coef: int
    #: where it changes value when that is a constant (``-rest / coef``), else None
    point: float | None

    @property
    def text(self) -> str:
        return to_c(self.cmp)

    def interior(self, low: bool) -> tuple[c_ast.BinaryOp, int]:
        """The comparison true exactly on the interior side (rising with the index when the test changes
        near the range's start, ``low``, falling otherwise) and the test's value there."""
        cmp, coef = self.cmp, self.coef
        rising = _rising(cmp.op, coef)
        if rising is None:  # == is false in the interior, != true; the interior side: beyond the point
            op = ">" if (coef > 0) == low else "<"
            return c_ast.BinaryOp(op, copy_node(cmp.left), copy_node(cmp.right), cmp.coord), int(cmp.op == "!=")
        if rising == low:  # true on the interior side
            return copy_node(cmp), 1
        return _negated(cmp), 0


def _plain(e: c_ast.Node) -> bool:
    """Integer arithmetic on variables and literals only (``+``, ``-``, ``*``), nothing read from memory."""
    match e:
        case c_ast.ID():
            return True
        case c_ast.Constant(type=t):
            return int_value(e) is not None and t in ("int", "long int", "long long int")
        case c_ast.UnaryOp(op="-" | "+"):
            return _plain(e.expr)
        case c_ast.BinaryOp(op="+" | "-" | "*"):
            return _plain(e.left) and _plain(e.right)
    return False


def _rising(op: str, coef: int) -> bool | None:
    """Whether ``coef*i + r  op  0`` goes from false to true as ``i`` grows (None for == and !=)."""
    if op in ("==", "!="):
        return None
    return (op in (">", ">=")) == (coef > 0)


def index_test(cmp: c_ast.BinaryOp, index: str, invariant: Callable[[c_ast.ID], bool], env) -> IndexTest | None:
    """``cmp`` as a test of ``index`` the split can fold, or None.

    Both sides plain signed integer arithmetic (:func:`_plain`), affine in
    the index with a nonzero coefficient; every other variable ``invariant``
    and entering linearly, and the point where the test changes either a
    constant or growing with every variable in it (``n - 1``, ``n + m``:
    near the end of a range that grows with them). Other tests are not
    folded. ``env`` None: the operands' types were checked where they came
    from (:func:`wrap_of`'s tests).
    """
    if not (_plain(cmp.left) and _plain(cmp.right)):
        return None
    if env is not None and (env.expr_category(cmp.left) != "signed" or env.expr_category(cmp.right) != "signed"):
        return None
    diff = c_ast.BinaryOp("-", cmp.left, cmp.right)
    coef = linear_coefficient(diff, index)
    if not coef:
        return None
    others = {v.name for v in variables(diff) if v.name != index}
    if not all(invariant(v) for v in variables(diff) if v.name != index):
        return None
    # where the test changes: index = -(rest)/coef; its coefficient on each variable v is -c_v/coef
    signs = set()
    for name in others:
        c = linear_coefficient(diff, name)
        if c is None:
            return None
        if c:
            signs.add(-c * coef > 0)
    if signs:
        return IndexTest(cmp, coef, None) if signs == {True} else None
    rest = int_value(simplify(substitute(copy_node(diff), index, lambda: make_int(0))))
    return None if rest is None else IndexTest(cmp, coef, -rest / coef)


@dataclass
class Wrap:
    """``e % m`` (a periodic edge: ``(i + 1) % n``, ``(i - 1 + n) % n``) where it equals ``e - q*m``:
    between its two tests, ``e - q*m >= 0`` and ``e - q*m < m`` (then ``m > 0`` and ``e >= 0``, and C's
    remainder is the mathematical one). One option per quotient ``q`` (0, 1) whose tests are foldable:
    the split takes the one whose tests change one near each end of the range."""

    node: c_ast.BinaryOp
    #: ``(e - q*m`` simplified (``(i - 1 + n) % n``, q = 1: ``i - 1``), its two tests)
    options: list[tuple[c_ast.Node, tuple[IndexTest, IndexTest]]]

    @property
    def text(self) -> str:
        return to_c(self.node)


def wrap_of(mod: c_ast.BinaryOp, index: str, invariant: Callable[[c_ast.ID], bool], env) -> Wrap | None:
    """``mod`` (``e % m``) as a remainder the split can fold, or None: ``e`` and ``m`` plain signed
    arithmetic, ``e`` affine in the index, ``m`` free of it, their other variables ``invariant``, and a
    quotient ``q`` of 0 or 1 whose two tests are foldable (:func:`index_test`)."""
    e, m = mod.left, mod.right
    if not (_plain(e) and _plain(m)) or env.expr_category(e) != "signed" or env.expr_category(m) != "signed":
        return None
    if not linear_coefficient(e, index) or linear_coefficient(m, index) != 0:
        return None
    if not all(invariant(v) for x in (e, m) for v in variables(x) if v.name != index):
        return None
    options = []
    for q in (0, 1):
        value = simplify(copy_node(e) if q == 0 else c_ast.BinaryOp("-", copy_node(e), copy_node(m)))
        low = index_test(c_ast.BinaryOp(">=", value, make_int(0), mod.coord), index, lambda _: True, None)
        high = index_test(c_ast.BinaryOp("<", copy_node(value), copy_node(m), mod.coord), index, lambda _: True, None)
        if low is not None and high is not None:
            options.append((value, (low, high)))
    return Wrap(mod, options) if options else None


@dataclass
class Found:
    """The foldable tests and remainders of a body, and which of them sit where the time goes."""

    tests: list[IndexTest]
    wraps: list[Wrap]
    #: the texts of those in the innermost loops' code
    hot: set[str]


def index_tests(f: c_ast.For, index: str, invariant: Callable[[c_ast.ID], bool], env) -> Found:
    """The distinct foldable tests (:func:`index_test`) and remainders (:func:`wrap_of`) of ``index`` in
    the body of ``f``, outside the headers of its loops (:func:`_outside_headers`)."""
    hot_nodes = {id(n) for n in _innermost_code(f)}
    tests: dict[str, IndexTest] = {}
    wraps: dict[str, Wrap] = {}
    hot: set[str] = set()
    for n in _outside_headers(f.stmt):
        if not isinstance(n, c_ast.BinaryOp) or n.op not in (*_COMPARISONS, "%"):
            continue
        found = index_test(n, index, invariant, env) if n.op != "%" else wrap_of(n, index, invariant, env)
        if found is None:
            continue
        (tests if n.op != "%" else wraps).setdefault(found.text, found)
        if id(n) in hot_nodes:
            hot.add(found.text)
    return Found(list(tests.values()), list(wraps.values()), hot)


def _outside_headers(root: c_ast.Node):
    """The nodes under ``root`` but those of nested ``for`` headers: their bounds' minima and maxima
    (a tile's) are not the boundary tests a split is for, and would split tile loops for nothing."""
    stack = [root]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, c_ast.For):
            stack.append(n.stmt)
        else:
            stack.extend(c for _, c in n.children())


def _innermost_code(f: c_ast.For):
    """The nodes of the innermost loops' bodies under ``f`` (``f``'s own when it is innermost), calls'
    arguments left out: a test the split folds must be there to pay for its copies (a tile's peeled
    first iteration, ``if (c2 >= 1)`` around a loop, would cost code for one branch per row)."""
    loops = [n for n in _outside_headers(f.stmt) if isinstance(n, c_ast.For)]
    for loop in [f, *loops]:
        if any(isinstance(n, c_ast.For) for n in _outside_headers(loop.stmt)):
            continue
        stack = [loop.stmt]
        while stack:
            n = stack.pop()
            yield n
            if not isinstance(n, c_ast.FuncCall):
                stack.extend(c for _, c in n.children())


def _mentions(n: c_ast.Node, index: str) -> bool:
    """Whether ``n`` is a comparison or a remainder that names ``index`` (a candidate, before any typing)."""
    return (isinstance(n, c_ast.BinaryOp) and n.op in (*_COMPARISONS, "%")
            and any(v.name == index for v in variables(n)))  # fmt: skip


def _extreme_constant(e: c_ast.Node, upper: bool) -> int | None:
    """A constant the value of ``e`` cannot exceed (``upper``) or fall below, read from constants,
    ``+``/``-`` a constant, and minimum (maximum) conditional expressions; None when there is none."""
    v = int_value(e)
    if v is not None:
        return v
    match e:
        case c_ast.BinaryOp(op="+" | "-"):
            k = int_value(e.right)
            inner = _extreme_constant(e.left, upper) if k is not None else None
            return None if inner is None else inner + (k if e.op == "+" else -k)
        case c_ast.TernaryOp(cond=c_ast.BinaryOp(op="<" | "<=" | ">" | ">=") as c):
            same = to_c(c.left) == to_c(e.iftrue) and to_c(c.right) == to_c(e.iffalse)
            swapped = to_c(c.left) == to_c(e.iffalse) and to_c(c.right) == to_c(e.iftrue)
            is_min = (same and c.op in ("<", "<=")) or (swapped and c.op in (">", ">="))
            is_max = (same and c.op in (">", ">=")) or (swapped and c.op in ("<", "<="))
            arms = [_extreme_constant(x, upper) for x in (e.iftrue, e.iffalse)]
            known = [a for a in arms if a is not None]
            if (upper and is_min) or (not upper and is_max):  # any arm bounds it
                return (min(known) if upper else max(known)) if known else None
            if len(known) == 2:  # either arm: the worse of the two
                return max(known) if upper else min(known)
    return None


def _near_start(test: IndexTest, first: int | None, last: int | None) -> bool:
    """Whether ``test`` changes value near the start of the index's range ``[first, last]`` (either may be
    unknown): a guess that costs speed when wrong, never results (see the module docstring)."""
    if test.point is None:
        return False  # it grows with the range's size
    if first is not None and last is not None:
        return test.point - first <= last - test.point
    if last is not None:
        return last - test.point > 8
    return True


# ------------------------------------------------------------------------ folding


def _constant(e: c_ast.Node) -> int | None:
    return int_value(e) if isinstance(e, (c_ast.Constant, c_ast.UnaryOp)) else None


def _truth(e: c_ast.Node) -> c_ast.Node:
    """``e`` where only its truth counts (a condition), with constant ``&&``, ``||``, ``!`` folded."""
    if isinstance(e, c_ast.BinaryOp) and e.op in ("&&", "||"):
        left, right = _truth(e.left), _truth(e.right)
        a, b = _constant(left), _constant(right)
        absorbing = 0 if e.op == "&&" else 1
        if a is not None:
            return make_int(absorbing, e.coord) if bool(a) == bool(absorbing) else right
        if b is not None and bool(b) != bool(absorbing):
            return left  # x && 1, x || 0
        if b is not None and not has_side_effects(left):
            return make_int(absorbing, e.coord)
        e.left, e.right = left, right
        return e
    if isinstance(e, c_ast.UnaryOp) and e.op == "!":
        inner = _truth(e.expr)
        v = _constant(inner)
        if v is not None:
            return make_int(int(not v), e.coord)
        e.expr = inner
        return e
    return e


def _folded(node: c_ast.Node, values: dict[str, int], remainders: dict[str, c_ast.Node]) -> c_ast.Node:
    """``node`` (a copy) with the tests ``values`` names replaced by their values, the remainders
    ``remainders`` names by theirs, and what became constant folded: conditional expressions and ``if``
    statements on a constant, ``&&``, ``||``, ``!`` in conditions."""

    def fold(n: c_ast.Node) -> c_ast.Node | None:
        if isinstance(n, c_ast.BinaryOp) and n.op in _COMPARISONS:
            v = values.get(to_c(n))
            return None if v is None else make_int(v, n.coord)
        if isinstance(n, c_ast.BinaryOp) and n.op == "%":
            r = remainders.get(to_c(n))
            return None if r is None else copy_node(r)
        if isinstance(n, c_ast.TernaryOp):
            n.cond = _truth(n.cond)
            v = _constant(n.cond)
            return None if v is None else (n.iftrue if v else n.iffalse)
        if isinstance(n, c_ast.If):
            n.cond = _truth(n.cond)
            v = _constant(n.cond)
            if v is None:
                return None
            taken = n.iftrue if v else n.iffalse
            return taken if taken is not None else c_ast.EmptyStatement(n.coord)
        if isinstance(n, (c_ast.While, c_ast.DoWhile, c_ast.For)) and n.cond is not None:
            n.cond = _truth(n.cond)
        return None

    out = transform(copy_node(node), fold)
    for block in walk(out):  # drop the empty statements left by folded ifs
        if isinstance(block, c_ast.Compound) and block.block_items:
            block.block_items = [s for s in block.block_items if not isinstance(s, c_ast.EmptyStatement)]
    return out


def _strongest(atoms: list[c_ast.BinaryOp]) -> list[c_ast.BinaryOp]:
    """``atoms`` (a conjunction) without those another one implies: of ``i + 1 < n`` and ``i - 1 < n``
    only the first (same terms but the constant, same direction; integers, so ``x < 0`` is ``x + 1 <= 0``)."""
    best: dict[tuple[str, str], tuple[int, c_ast.BinaryOp]] = {}
    kept: list[c_ast.BinaryOp] = []
    for a in atoms:
        if a.op not in ("<", "<=", ">", ">="):
            kept.append(a)
            continue
        diff = simplify(c_ast.BinaryOp("-", copy_node(a.left), copy_node(a.right)))
        zero = copy_node(diff)  # substitute rewrites in place
        for v in {v.name for v in variables(diff)}:
            zero = substitute(zero, v, lambda: make_int(0))
        c = int_value(simplify(zero))
        if c is None:
            kept.append(a)
            continue
        terms = to_c(simplify(c_ast.BinaryOp("-", diff, make_int(c))))
        # as `terms + c' <= 0` or `terms + c' >= 0`: the larger c' is the stronger for <=, the smaller for >=
        upper = a.op in ("<", "<=")
        strength = (c + (a.op == "<")) if upper else -(c - (a.op == ">"))
        key = (terms, "<=" if upper else ">=")
        if key not in best or strength > best[key][0]:
            best[key] = (strength, a)
    return kept + [a for _, a in best.values()]


def _needed(atoms: list[c_ast.BinaryOp], f: c_ast.For, index: str, low: bool) -> list[c_ast.BinaryOp]:
    """``atoms`` without those the loop's own bounds make true: a low one true from the first index on
    (``i >= 0`` from ``i = 0``), a high one true wherever the condition is (``i < m`` under ``i < m``)."""
    try:
        h = counted_header(f)
    except NotCounted:
        h = None
    conjuncts, stack = set(), [f.cond]
    while stack:
        c = stack.pop()
        if isinstance(c, c_ast.BinaryOp) and c.op == "&&":
            stack += [c.left, c.right]
        else:
            conjuncts.add(to_c(c))
    out = []
    for a in atoms:
        at = _threshold(a, index) if a.op in ("<", "<=", ">", ">=") else None
        if at is not None and h is not None:
            bound = h.lb if low else h.ub
            same = to_c(simplify(at)) == to_c(simplify(bound))
            x, b = int_value(at), int_value(simplify(bound))
            if same or (x is not None and b is not None and (b >= x if low else b <= x)):
                continue
        if not low and to_c(a) in conjuncts:
            continue
        out.append(a)
    return out


def _conjunction(terms: list[c_ast.Node]) -> c_ast.Node:
    out = terms[0]
    for t in terms[1:]:
        out = c_ast.BinaryOp("&&", out, t, t.coord)
    return out


def _disjunction(terms: list[c_ast.Node]) -> c_ast.Node:
    out = terms[0]
    for t in terms[1:]:
        out = c_ast.BinaryOp("||", out, t, t.coord)
    return out


def _negated(cmp: c_ast.BinaryOp) -> c_ast.BinaryOp:
    return c_ast.BinaryOp(_NEGATED[cmp.op], copy_node(cmp.left), copy_node(cmp.right), cmp.coord)


def _relabelled(body: c_ast.Node, module: Module) -> c_ast.Node:
    """A copy of ``body`` whose loops carry fresh generated labels (the original's stay with the interior)."""
    out = copy_node(body)
    for n in walk(out):
        if isinstance(n, c_ast.Label) and isinstance(n.stmt, c_ast.For):
            n.name = module.new_label()
    return out


# ------------------------------------------------------------------------ the pass


def _last_constant(cond: c_ast.Node, index: str) -> int | None:
    """The largest index value ``cond`` lets through, read from its conjuncts ``i < e``, ``i <= e``,
    ``e > i``, ``e >= i`` with a constant bound (:func:`_extreme_constant`), or None."""
    found = []
    stack = [cond]
    while stack:
        c = stack.pop()
        if isinstance(c, c_ast.BinaryOp) and c.op == "&&":
            stack += [c.left, c.right]
            continue
        if not isinstance(c, c_ast.BinaryOp) or c.op not in ("<", "<=", ">", ">="):
            continue
        if to_c(c.left) == index and c.op in ("<", "<="):
            bound, strict = c.right, c.op == "<"
        elif to_c(c.right) == index and c.op in (">", ">="):
            bound, strict = c.left, c.op == ">"
        else:
            continue
        v = _extreme_constant(bound, True)
        if v is not None:
            found.append(v - 1 if strict else v)
    return min(found) if found else None


def split_loop(module: Module, label: str) -> c_ast.For | None:
    """Split loop ``label`` of ``module`` (see :func:`split_boundaries`); its interior loop, or None when its
    body has no test to fold. Refuses (PassFailed) a loop it cannot split."""
    loop = module.loop(label)
    verb = "cannot split its boundary iterations"

    def fail(what: str) -> PassFailed:
        return refuse(loop, f"{verb}: {what}")

    site, f = loop.site, loop.node
    try:
        index, index_decl, lb, _ = stepped_header(f)
    except NotCounted as why:
        raise fail(str(why)) from None
    if f.cond is None or has_side_effects(f.cond):
        raise fail("its condition is missing or has side effects")
    if not any(_mentions(n, index) for n in _innermost_code(f)):
        return None  # no comparison of the index where the time goes: the common case, decided cheaply
    scope = current_scope(module)
    env, table = scope.types, scope.names
    index_id = f.init.lvalue if index_decl is None else None
    decl = index_decl if index_decl is not None else table.decl_of(index_id)
    if not isinstance(decl, c_ast.Decl) or env.category(decl.type) != "signed":
        return None  # an unsigned index wraps: its tests are not monotone
    declared = {d.name for d in walk(f.stmt) if isinstance(d, c_ast.Decl)}
    if index in declared:
        return None  # a name the body declares again: a test's text would not say which
    kept = BodyWrites(scope, f.stmt, module.ws)

    def invariant(v: c_ast.ID) -> bool:
        return v.name not in declared and kept.change(v) is None

    found = index_tests(f, index, invariant, env)
    if not found.hot:
        return None  # no test where the time goes: a copy would only add code
    sharing = None
    for p in pragmas_before(site.parent, site.labelled):
        words = p.string.split()
        if words[:1] == ["omp"] and any(w.split("(")[0] in _WORKSHARING for w in words[1:3]):
            why = _unsplittable_sharing(p.string)
            if why:
                raise fail(f"'#pragma {p.string}' shares its iterations out{why}")
            sharing = p
    for n in walk(f.stmt):
        if isinstance(n, c_ast.Pragma) and n.string.split()[:1] == ["omp"] and n.string.split()[1:2] != ["simd"]:
            raise fail(f"the body holds '#pragma {n.string}'")
    check_copyable_body(f.stmt, module.ws.generated_labels, fail)
    written = [w for w in kept.writes if w.base is not None and w.base.name == index]
    if written:
        raise fail(f"index {index} is written in the body (line {written[0].node.coord.line})")

    first, last = _extreme_constant(lb, False), _last_constant(f.cond, index)
    sides = [(_near_start(t, first, last), t) for t in found.tests]
    remainders = {}
    for w in found.wraps:  # a remainder folds where both its tests are true, one near each end
        for value, tests in w.options:
            near = [_near_start(t, first, last) for t in tests]
            if near == [True, False] and all(t.interior(n)[1] == 1 for n, t in zip(near, tests)):
                remainders[w.text] = value
                sides += list(zip(near, tests))
                break
    if not found.hot & ({t.text for _, t in sides} | set(remainders)):
        return None
    low = _needed(_strongest([t.interior(True)[0] for near, t in sides if near]), f, index, True)
    high = _needed(_strongest([t.interior(False)[0] for near, t in sides if not near]), f, index, False)
    interior_body = _folded(f.stmt, {t.text: t.interior(near)[1] for near, t in sides}, remainders)
    if not low and not high:  # the loop's own bounds keep every test constant: only the body changes
        f.stmt = interior_body
        return f
    if sharing is not None:
        return _split_shared(module, loop, sharing, low, high, interior_body, env, fail)
    # the pieces continue from one another: a `for (int i = ...)` index is declared before them
    hoisted: list[c_ast.Node] = []
    init, cond = f.init, f.cond
    if index_decl is not None:
        hoisted.append(copy_node(index_decl))
        init = None
        bound = _bound_variable(module, f, env)
        if bound is not None:  # a long bound (a tile's) is computed once and named, not written thrice
            hoisted.append(bound)
            cond = copy_node(cond)
            setattr(cond, "right" if to_c(cond.left) == index else "left", c_ast.ID(bound.name, f.coord))
    kept_pragmas = [p for p in detach_pragmas(site.parent, site.labelled) if p.string.split()[:1] != ["omp"]]

    def piece(first: bool, condition: c_ast.Node, body: c_ast.Node) -> c_ast.For:
        return c_ast.For(init if first else None, condition, copy_node(f.next), body, f.coord)

    items: list[c_ast.Node] = list(hoisted)
    if low:  # the first iterations, up to where every low test takes its interior value
        start = c_ast.BinaryOp("&&", copy_node(cond), _disjunction([_negated(t) for t in low]), f.coord)
        items += [copy_node(p) for p in kept_pragmas] + [piece(True, start, _relabelled(f.stmt, module))]
    middle = copy_node(cond) if not high else c_ast.BinaryOp("&&", copy_node(cond), _conjunction(high), f.coord)
    interior = piece(not low, middle, interior_body)
    site.labelled.stmt = interior
    items += kept_pragmas + [site.labelled]
    if high:  # the last ones
        items += [copy_node(p) for p in kept_pragmas] + [piece(False, copy_node(cond), _relabelled(f.stmt, module))]
    if hoisted:
        replace_child(site.parent, site.labelled, c_ast.Compound(items, f.coord))
    else:
        replace_child(site.parent, site.labelled, items)
    return interior


def _clauses(text: str) -> list[tuple[str, str]]:
    """The clauses of an OpenMP directive's text after its construct words: ``(name, "(args)" or "")``."""
    out: list[tuple[str, str]] = []
    k, n = 0, len(text)
    while k < n:
        while k < n and text[k] in " ,\t":
            k += 1
        start = k
        while k < n and (text[k].isalnum() or text[k] == "_"):
            k += 1
        name = text[start:k]
        while k < n and text[k] == " ":
            k += 1
        args = ""
        if k < n and text[k] == "(":
            depth, begin = 0, k
            while k < n:
                depth += {"(": 1, ")": -1}.get(text[k], 0)
                k += 1
                if depth == 0:
                    break
            args = text[begin:k]
        if not name:
            break
        out.append((name, args))
    return out


#: clauses a split keeps on each piece (for) or on the region (a combined construct's parallel part)
_FOR_CLAUSES = ("schedule", "nowait", "private", "firstprivate")
_PARALLEL_CLAUSES = ("private", "firstprivate", "shared", "default", "if", "num_threads", "proc_bind")


def _unsplittable_sharing(pragma: str) -> str:
    """Why the worksharing loop of ``#pragma <pragma>`` cannot become three (an empty string when it can):
    ``omp for`` with ``schedule(static)``, ``nowait``, ``private`` or ``firstprivate`` clauses (each piece
    keeps them), or ``omp parallel for`` with those and the region's own (``shared``, ``default``, ``if``,
    ``num_threads``, ``proc_bind``); a reduction, ``lastprivate``, ``ordered``, ``collapse`` or ``linear``
    would not mean the same on three loops."""
    words = pragma.split()
    if words[1:2] == ["for"]:
        rest, allowed = pragma.split(None, 2)[2:], _FOR_CLAUSES
    elif words[1:3] == ["parallel", "for"]:
        rest, allowed = pragma.split(None, 3)[3:], (*_FOR_CLAUSES, *_PARALLEL_CLAUSES)
    else:
        return f": its construct '{' '.join(words[:3])}' is not 'omp for' or 'omp parallel for'"
    for name, args in _clauses(rest[0] if rest else ""):
        if name not in allowed or (name == "nowait" and words[1] == "parallel"):
            return f": its clause {name} would not mean the same on three loops"
        if name == "schedule" and "static" not in args:
            return f": its schedule{args} is not static"
    return ""


def _threshold(atom: c_ast.BinaryOp, index: str) -> c_ast.Node | None:
    """Where ``atom`` (``a*i + r op 0`` with ``a`` 1 or -1) changes: the first index it holds at when it
    rises (``i + r > 0``: ``-r + 1``), the first it fails at when it falls (``i + r < 0``: ``-r``)."""
    diff = simplify(c_ast.BinaryOp("-", copy_node(atom.left), copy_node(atom.right)))
    a = linear_coefficient(diff, index)
    if a not in (1, -1):
        return None
    # -r = i - diff when a = 1, r = diff + i when a = -1 (the sums flattened: i - (i - n + 1) is n - 1)
    if a == 1:
        base = simplify(c_ast.BinaryOp("-", c_ast.ID(index), diff))
    else:
        base = simplify(c_ast.BinaryOp("+", diff, c_ast.ID(index)))
    # a = 1: i > -r, i >= -r, i < -r, i <= -r;  a = -1: i < r, i <= r, i > r, i >= r
    op = atom.op if a == 1 else {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[atom.op]
    return simplify(c_ast.BinaryOp("+", base, make_int(1))) if op in (">", "<=") else base


def _split_shared(module: Module, loop, sharing: c_ast.Pragma, low, high, interior_body: c_ast.Node, env,
                  fail) -> c_ast.For | None:  # fmt: skip
    """A worksharing loop ``#pragma omp for`` split into three worksharing loops in canonical form, the first
    two ``nowait`` (the iterations were independent: pieces may overlap in time as iterations did)::

        const int i_first = max(lb, min(ub, L)), i_past = max(i_first, min(ub, U));
        #pragma omp for nowait
        for (int i = lb; i < i_first; i++) ...      (the body as written)
        #pragma omp for nowait
        for (int i = i_first; i < i_past; i++) ...  (the interior copy)
        #pragma omp for
        for (int i = i_past; i < ub; i++) ...       (the body as written)

    ``L`` the largest of the low tests' thresholds, ``U`` the smallest of the high ones' (tests of the
    index with coefficient 1 or -1 only: None otherwise, the loop left as it is).
    """
    site, f = loop.site, loop.node
    try:
        cl = counted_header(f)
    except NotCounted as why:
        raise fail(f"{why} (a worksharing loop's pieces need bounds)") from None
    if cl.step != 1:
        raise fail("a worksharing loop is split when it steps by 1")
    # the index's type: its declaration in the loop, or outside (then private to each construct, and
    # unspecified after it, as after the loop: no lastprivate)
    decl = cl.index_decl if cl.index_decl is not None else current_scope(module).names.decl_of(f.init.lvalue)
    lows = [_threshold(t, cl.index) for t in low]
    highs = [_threshold(t, cl.index) for t in high]
    if any(x is None for x in lows + highs):
        return None
    index_type = arith_type(decl.type, env)
    if index_type is None or any(expr_arith_type(e, env) != index_type for e in (cl.lb, cl.ub_source)):
        raise fail("its bounds do not have its index's type")

    def pick(op: str, a: c_ast.Node, b: c_ast.Node) -> c_ast.Node:  # min or max, constants folded
        x, y = int_value(simplify(a)), int_value(simplify(b))
        if x is not None and y is not None:
            return make_int(min(x, y) if op == "<" else max(x, y))
        return extreme(op, a, b)

    def fold(op: str, xs: list[c_ast.Node]) -> c_ast.Node:
        out = xs[0]
        for x in xs[1:]:
            out = pick(op, out, x)
        return out

    taken = names_in_scope(module.ast, module.cu.ast.ext)
    first, past = fresh_name(f"{cl.index}_first", taken), fresh_name(f"{cl.index}_past", taken)

    def const(name: str, value: c_ast.Node) -> c_ast.Decl:
        kind = copy_node(decl.type)
        kind.declname = name
        kind.quals = ["const", *[q for q in kind.quals if q != "const"]]
        return c_ast.Decl(name, ["const"], [], [], [], kind, value, None, f.coord)

    start = pick(">", cl.lb, fold("<", [cl.ub, *lows])) if lows else copy_node(cl.lb)
    end = pick(">", start, fold("<", [cl.ub, *highs])) if int_value(start) is not None and highs else (
        extreme(">", c_ast.ID(first), fold("<", [cl.ub, *highs])) if highs else copy_node(cl.ub))
    detach_pragmas(site.parent, site.labelled)
    words = sharing.string.split()
    combined = words[1] == "parallel"
    last = sharing.string
    if combined:  # `parallel for` = a region around one `for`: here around three (the region's barrier ends them)
        clauses = _clauses(sharing.string.split(None, 3)[3] if len(words) > 3 else "")
        region = " ".join(["omp parallel", *(n + a for n, a in clauses if n in _PARALLEL_CLAUSES)])
        last = " ".join(["omp for", *(n + a for n, a in clauses if n == "schedule"), "nowait"])
    clause = last if "nowait" in last.split() else last + " nowait"

    def piece(lo: c_ast.Node, hi: c_ast.Node, body: c_ast.Node) -> c_ast.For:
        if cl.index_decl is not None:
            own = copy_node(cl.index_decl)
            own.init = lo
            init = c_ast.DeclList([own], f.coord)
        else:
            init = c_ast.Assignment("=", c_ast.ID(cl.index), lo, f.coord)
        cond = c_ast.BinaryOp("<", c_ast.ID(cl.index), hi, f.coord)
        return c_ast.For(init, cond, copy_node(f.next), body, f.coord)

    # the split points, named unless constant (the interior's end is the loop's when no test is high)
    ends = [(first, start)] + ([(past, end)] if highs else [])
    decls = [const(name, value) for name, value in ends if int_value(value) is None]
    at_first = c_ast.ID(first) if int_value(start) is None else start
    at_past = (c_ast.ID(past) if int_value(end) is None else end) if highs else copy_node(cl.ub)
    interior = piece(copy_node(at_first), copy_node(at_past), interior_body)
    site.labelled.stmt = interior
    loops: list[c_ast.Node] = []
    if lows:
        loops.append(piece(copy_node(cl.lb), copy_node(at_first), _relabelled(f.stmt, module)))
    loops.append(site.labelled)
    if highs:
        loops.append(piece(copy_node(at_past), copy_node(cl.ub), _relabelled(f.stmt, module)))
    items: list[c_ast.Node] = list(decls)
    for k, lp in enumerate(loops):  # the last keeps the construct's end (its barrier), the others need none
        items += [c_ast.Pragma(last if k == len(loops) - 1 else clause, f.coord), lp]
    block = c_ast.Compound(items, f.coord)
    replace_child(site.parent, site.labelled, [c_ast.Pragma(region, f.coord), block] if combined else block)
    return interior


def _bound_variable(module: Module, f: c_ast.For, env) -> c_ast.Decl | None:
    """``const int i_bound = <bound>;`` for a counted loop ``for (int i = lb; i < bound; ...)`` whose bound
    is longer than a variable plus a constant and has the index's type (a narrower variable would change
    its value), else None."""
    try:
        cl = counted_header(f)
    except NotCounted:
        return None
    ub = cl.ub_source
    short = isinstance(ub, (c_ast.ID, c_ast.Constant)) or (
        isinstance(ub, c_ast.BinaryOp) and ub.op in ("+", "-") and isinstance(ub.left, (c_ast.ID, c_ast.Constant))
        and isinstance(ub.right, (c_ast.ID, c_ast.Constant))
    )
    index_type = arith_type(cl.index_decl.type, env)
    if short or index_type is None or expr_arith_type(ub, env) != index_type:
        return None
    name = fresh_name(f"{cl.index}_bound", names_in_scope(module.ast, module.cu.ast.ext))
    kind = copy_node(cl.index_decl.type)
    kind.declname = name
    kind.quals = ["const", *[q for q in kind.quals if q != "const"]]
    return c_ast.Decl(name, ["const"], [], [], [], kind, copy_node(ub), None, f.coord)


@transformation(scope="module", preserves=["callgraph"], reads=["unit_scope"])
def split_boundaries(module: Module, label: str = "") -> None:
    """Run the iterations of a loop where its index tests are constant through a copy without them.

    Before::

        for (int i = 0; i < n; i++)
            b[i] = (i > 0 ? a[i - 1] : a[i]) + a[i] + (i < n - 1 ? a[i + 1] : a[i]);

    After::

        {
            int i = 0;
            for (; i < n && i <= 0; i++)
                b[i] = (i > 0 ? a[i - 1] : a[i]) + a[i] + (i < n - 1 ? a[i + 1] : a[i]);
            for (; i < n && i < n - 1; i++)
                b[i] = a[i - 1] + a[i] + a[i + 1];
            for (; i < n; i++)
                b[i] = (i > 0 ? a[i - 1] : a[i]) + a[i] + (i < n - 1 ? a[i + 1] : a[i]);
        }

    Pochoir's interior and boundary clones (Freitag 2014, §5.1 claim 11),
    per loop: see the module docstring for why it is always legal. Folded:
    comparisons of the index (signed) with plain integer expressions
    (variables and literals, ``+``, ``-``, ``*``) that the body does not
    change, affine in the index, whose value changes near the start of the
    range (a constant: ``i > 0``, ``i == 0``, ``(i - 1) > 0``) or near its
    end (``i < n - 1``, ``j != m + 1``); in conditional expressions, ``if``
    statements and anywhere else in the body; and remainders affine in the
    index (periodic edges: ``a[(i + 1) % n]``, ``a[(i - 1 + n) % n]``),
    which are ``e - q*m`` between two such tests. Only loops with a test
    in their innermost loops' code are split; tests the loop's bounds imply
    are dropped (a loop whose bounds keep every test constant only changes
    its body). Loops are visited outer first; a split loop's interior copy
    is searched again for its inner loops' tests, its boundary copies are
    not (they run few iterations). An ``omp for`` loop (``schedule(static)``,
    ``nowait``, ``private``, ``firstprivate``) becomes up to three ``omp
    for`` loops with computed bounds, all but the last ``nowait``; an ``omp
    parallel for`` (those clauses and the region's: ``shared``, ``default``,
    ``if``, ``num_threads``, ``proc_bind``) a region around them; other loops run
    their pieces one after the other, the interior copy without an ``omp
    simd`` (its condition is not an OpenMP canonical form). Left as they
    are: loops with a step that is not a constant, bodies left before their
    end (``break``, ``return``, ``goto``), and worksharing loops with other
    clauses (a reduction, ``lastprivate``...; their inner loops are split).
    Refused when no loop was split.

    Properties:

    - label: split this loop only (and its inner loops); default: every loop of the function
    """
    done = 0
    reasons: list[str] = []

    def visit(node: c_ast.Node) -> None:
        nonlocal done
        for n in list(_outer_loops(node)):
            inner = n.stmt
            try:
                interior = split_loop(module, n.name)
            except PassFailed as why:
                reasons.append(str(why))
                interior = None
            if interior is not None:
                done += 1
                inner = interior.stmt
            visit(inner)

    if label:
        site = module.loop(label).site
        visit(c_ast.Compound([site.labelled]))
    else:
        visit(module.ast.body)
    if not done:
        why = f" ({reasons[0]})" if reasons else ""
        raise PassFailed(f"{module.name}: no loop tests its index against a bound the loop could split at{why}")


def _outer_loops(node: c_ast.Node):
    """The labelled ``for`` loops under ``node`` not nested in another one under it."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.Label) and isinstance(n.stmt, c_ast.For):
            yield n
            continue
        stack.extend(reversed([c for _, c in n.children()]))
