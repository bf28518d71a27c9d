"""The index tests of a loop body that a split can fold (:mod:`.boundaries`): comparisons and remainders
of the index that change value once along its range, where they change, and which side is the interior.

A test here is a comparison of a loop's index with plain signed integer
arithmetic on variables the body does not change, affine in the index
(:func:`index_test`), or a remainder ``e % m`` of such an expression
(:func:`wrap_of`: two tests). Each is monotone in the index: true from a
point on, or up to a point (:class:`IndexTest`). Which end of the range it
changes near (:func:`near_start`) is a guess from its constant or its
parameters; the split is exact whatever the guess.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pycparser import c_ast

from passman.astutil import copy_node
from passman.printer import to_c

from ..cfacts.folding import int_value, make_int, simplify
from ..cfacts.forms import linear_coefficient
from ..cfacts.names import substitute
from ..cfacts.sideeffects import variables
from .counted import NotCounted, counted_header

COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")


_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


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
        return negated(cmp), 0


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
    hot_nodes = {id(n) for n in innermost_code(f)}
    tests: dict[str, IndexTest] = {}
    wraps: dict[str, Wrap] = {}
    hot: set[str] = set()
    for n in _outside_headers(f.stmt):
        if not isinstance(n, c_ast.BinaryOp) or n.op not in (*COMPARISONS, "%"):
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


def innermost_code(f: c_ast.For):
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


def mentions_index(n: c_ast.Node, index: str) -> bool:
    """Whether ``n`` is a comparison or a remainder that names ``index`` (a candidate, before any typing)."""
    return (isinstance(n, c_ast.BinaryOp) and n.op in (*COMPARISONS, "%")
            and any(v.name == index for v in variables(n)))  # fmt: skip


def extreme_constant(e: c_ast.Node, upper: bool) -> int | None:
    """A constant the value of ``e`` cannot exceed (``upper``) or fall below, read from constants,
    ``+``/``-`` a constant, and minimum (maximum) conditional expressions; None when there is none."""
    v = int_value(e)
    if v is not None:
        return v
    match e:
        case c_ast.BinaryOp(op="+" | "-"):
            k = int_value(e.right)
            inner = extreme_constant(e.left, upper) if k is not None else None
            return None if inner is None else inner + (k if e.op == "+" else -k)
        case c_ast.TernaryOp(cond=c_ast.BinaryOp(op="<" | "<=" | ">" | ">=") as c):
            same = to_c(c.left) == to_c(e.iftrue) and to_c(c.right) == to_c(e.iffalse)
            swapped = to_c(c.left) == to_c(e.iffalse) and to_c(c.right) == to_c(e.iftrue)
            is_min = (same and c.op in ("<", "<=")) or (swapped and c.op in (">", ">="))
            is_max = (same and c.op in (">", ">=")) or (swapped and c.op in ("<", "<="))
            arms = [extreme_constant(x, upper) for x in (e.iftrue, e.iffalse)]
            known = [a for a in arms if a is not None]
            if (upper and is_min) or (not upper and is_max):  # any arm bounds it
                return (min(known) if upper else max(known)) if known else None
            if len(known) == 2:  # either arm: the worse of the two
                return max(known) if upper else min(known)
    return None


def near_start(test: IndexTest, first: int | None, last: int | None) -> bool:
    """Whether ``test`` changes value near the start of the index's range ``[first, last]`` (either may be
    unknown): a guess that costs speed when wrong, never results (see the module docstring)."""
    if test.point is None:
        return False  # it grows with the range's size
    if first is not None and last is not None:
        return test.point - first <= last - test.point
    if last is not None:
        return last - test.point > 8
    return True


def strongest(atoms: list[c_ast.BinaryOp]) -> list[c_ast.BinaryOp]:
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


def needed(atoms: list[c_ast.BinaryOp], f: c_ast.For, index: str, low: bool) -> list[c_ast.BinaryOp]:
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
        at = threshold(a, index) if a.op in ("<", "<=", ">", ">=") else None
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


def negated(cmp: c_ast.BinaryOp) -> c_ast.BinaryOp:
    return c_ast.BinaryOp(_NEGATED[cmp.op], copy_node(cmp.left), copy_node(cmp.right), cmp.coord)


def last_constant(cond: c_ast.Node, index: str) -> int | None:
    """The largest index value ``cond`` lets through, read from its conjuncts ``i < e``, ``i <= e``,
    ``e > i``, ``e >= i`` with a constant bound (:func:`extreme_constant`), or None."""
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
        v = extreme_constant(bound, True)
        if v is not None:
            found.append(v - 1 if strict else v)
    return min(found) if found else None


def threshold(atom: c_ast.BinaryOp, index: str) -> c_ast.Node | None:
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
