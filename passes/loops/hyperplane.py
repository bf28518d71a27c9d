"""Wavefront change of basis of a perfect band: ``loop_hyperplane`` (PIPS name).

The outer loop of the new nest enumerates the hyperplanes ``h . x = const``
of the band's iteration space, the inner loops the points of each
hyperplane. The change of basis is a unimodular matrix ``T`` whose first
row is ``h``; the new bounds come from the image of the band's domain
under ``T`` (isl), projected level by level and checked exact. Band reading
and dependence distances are shared with :mod:`.interchange` (``skew`` is the
2-loop special case ``h = (1, 0)`` completed by ``(f, 1)``).
"""

from __future__ import annotations

import math

import islpy as isl
from pycparser import c_ast

from passman import Loop, PassFailed, transformation
from passman.astutil import copy_node
from passman.lazy import LazyAttribute
from passman.printer import to_c

from ..cfacts.folding import int_value, make_int, simplify
from ..cfacts.forms import extreme, linear_coefficient
from ..cfacts.names import fresh_name, rename_declaration, substitute, taken_names
from ..cfacts.sideeffects import variables
from ..poly.c_expr import aff_to_c
from .counted import substitute_index
from .interchange import (
    Band,
    BandDependence,
    band_dependences,
    band_names,
    describe,
    integer_sample,
    only_loop,
    perfect_band,
    refuse,
    site_text,
    vector_text,
)

_DT = LazyAttribute("islpy", "dim_type")

__all__ = ["loop_hyperplane", "unimodular_completion"]

_VERB = "cannot apply loop_hyperplane"


# ------------------------------------------------------------------------ the matrix


def _egcd(a: int, b: int) -> tuple[int, int, int]:
    """``(g, s, t)`` with ``s*a + t*b == g == gcd(a, b)``."""
    if b == 0:
        return (abs(a), 1 if a >= 0 else -1, 0)
    g, s, t = _egcd(b, a % b)
    return g, t, s - (a // b) * t


def _rows_of(m: isl.Map, n: int) -> list[list[int]]:
    """The integer matrix of a linear map ``{x -> y}`` given as an isl map."""
    pma = m.as_pw_multi_aff()
    pieces = []
    pma.foreach_piece(lambda _s, ma: pieces.append(ma))
    ma = pieces[0]
    return [
        [ma.get_aff(r).get_coefficient_val(_DT.in_, c).to_python() for c in range(n)]
        for r in range(n)
    ]


def _lin(terms: list[tuple[int, str]]) -> str:
    """``2*x0 - x1 + p`` in isl syntax (``0`` when empty)."""
    out = ""
    for c, name in terms:
        if c:
            out += f" {'-' if c < 0 else '+'} {abs(c)}" + (f"*{name}" if name else "")
    out = out.strip()
    if not out:
        return "0"
    return out[2:] if out.startswith("+ ") else "-" + out[2:]


def _linear_map(rows: list[list[int]], src: str, dst: str) -> isl.Map:
    n = len(rows)
    xs = ", ".join(f"{src}{k}" for k in range(n))
    ys = ", ".join(f"{dst}{k}" for k in range(n))
    eqs = " and ".join(
        f"{dst}{r} = " + _lin([(c, f"{src}{k}") for k, c in enumerate(row)])
        for r, row in enumerate(rows)
    )
    return isl.Map(f"{{ [{xs}] -> [{ys}] : {eqs} }}")


def unimodular_completion(h: tuple[int, ...]) -> list[list[int]]:
    """A unimodular integer matrix whose first row is ``h`` (``gcd(h) == 1``).

    When some ``|h[p]| == 1`` (the last such p) the other rows are the unit
    vectors ``e_k, k != p``: the inner loops keep the original indices and
    only ``x_p`` is rewritten. Otherwise column operations (extended Euclid)
    build ``U`` with ``h U = e_1`` and the matrix is ``U^-1`` (inverted by isl).
    """
    n = len(h)
    ones = [k for k in range(n) if abs(h[k]) == 1]
    if ones:
        p = ones[-1]
        return [list(h)] + [[int(c == k) for c in range(n)] for k in range(n) if k != p]
    u = [[int(r == c) for c in range(n)] for r in range(n)]
    v = list(h)
    for k in range(1, n):
        a, b = v[0], v[k]
        if b == 0:
            continue
        g, s, t = _egcd(a, b)
        for r in range(n):
            c0, ck = u[r][0], u[r][k]
            u[r][0], u[r][k] = s * c0 + t * ck, (-b // g) * c0 + (a // g) * ck
        v[0], v[k] = g, 0
    if v[0] < 0:
        for r in range(n):
            u[r][0] = -u[r][0]
    # y = T x  <=>  x = U y
    return _rows_of(_linear_map(u, "y", "x").reverse(), n)


# ------------------------------------------------------------------------ legality


def _first_violation(
    bd: BandDependence, rows: list[list[int]]
) -> tuple[int, tuple[int, ...]] | None:
    """``(level, distance)``: a distance ``d`` of ``bd`` with ``T d`` lexicographically negative."""
    space = bd.distances.get_space()
    for p in range(len(rows)):
        s = bd.distances
        for q in range(p + 1):
            c = (isl.Constraint.alloc_equality(space) if q < p
                 else isl.Constraint.alloc_inequality(space).set_constant_val(-1))  # fmt: skip
            for k, coef in enumerate(rows[q]):
                c = c.set_coefficient_val(_DT.set, k, coef if q < p else -coef)
            s = s.add_constraint(c)
        if not s.is_empty():
            return p, integer_sample(s)
    return None


def _check(band: Band, rows: list[list[int]], what: str) -> None:
    deps = band_dependences(band, _VERB)
    if deps is None:
        why = band.head.module.resource("scops").reason(band.head.label)
        raise PassFailed(
            f"{what} is illegal: dependences unknown, not a static control part ({why})"
        )
    h = rows[0]
    for bd in deps:
        bad = _first_violation(bd, rows)
        if bad is None:
            continue
        level, d = bad
        hd = sum(a * b for a, b in zip(h, d))
        if level == 0:
            why = f"h . d = {hd} < 0: the sink would run on an earlier hyperplane than the source"
        else:
            img = tuple(sum(a * b for a, b in zip(r, d)) for r in rows)
            why = (f"h . d = 0 and the points of a hyperplane would run it backwards "
                   f"(new distance {vector_text(img)})")  # fmt: skip
        raise PassFailed(f"{what} is illegal: {describe(bd, d)}: {why}")


# ------------------------------------------------------------------------ bounds


def _split_affine(e: c_ast.Node) -> tuple[list[tuple[int, str]], int] | None:
    """``e`` as ``sum c*v + const`` over its variables (integer coefficients), else None."""
    names = sorted({v.name for v in variables(e)})
    terms = []
    for v in names:
        c = linear_coefficient(e, v)
        if c is None:
            return None
        terms.append((c, v))
    const = copy_node(e)
    for v in names:
        const = substitute(const, v, lambda: make_int(0))
    value = int_value(simplify(const))
    return None if value is None else (terms, value)


def _signed_terms(e: c_ast.Node) -> list[tuple[int, c_ast.Node]]:
    """``a - b + c`` as ``[(1, a), (-1, b), (1, c)]`` (top-level ``+``/``-`` chain)."""
    if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-"):
        right = _signed_terms(e.right)
        if e.op == "-":
            right = [(-s, t) for s, t in right]
        return _signed_terms(e.left) + right
    if isinstance(e, c_ast.UnaryOp) and e.op == "-":
        return [(-s, t) for s, t in _signed_terms(e.expr)]
    return [] if to_c(e) == "0" else [(1, e)]


class _Bounds:
    """The band's domain as an isl set over ``x0..`` with one parameter per distinct residual bound."""

    def __init__(self, band: Band):
        self.band = band
        self.residuals: dict[str, c_ast.Node] = {}  # isl parameter -> C expression
        by_text: dict[str, str] = {}
        n = len(band.loops)
        cons = []
        for k, cl in enumerate(band.loops):
            for e, coefs, low in ((cl.lb, band.lb_coef[k], True), (cl.ub, band.ub_coef[k], False)):
                rest = copy_node(e)
                for name in band.indices:
                    rest = substitute(rest, name, lambda: make_int(0))
                rest = simplify(rest)
                terms = [(c, f"x{m}") for m, c in enumerate(coefs)]
                split = _split_affine(rest)
                if split is None:  # an opaque invariant expression: one parameter
                    text = to_c(rest)
                    if text not in by_text:
                        by_text[text] = f"hpP{len(by_text)}"
                        self.residuals[by_text[text]] = rest
                    terms.append((1, by_text[text]))
                    const = 0
                else:
                    var_terms, const = split
                    for c, var in var_terms:
                        self.residuals.setdefault(f"hpV_{var}", c_ast.ID(var))
                        terms.append((c, f"hpV_{var}"))
                const = const if low else const - 1
                lin = _lin(terms + [(const, "")]) if const else _lin(terms)
                cons.append(f"x{k} {'>=' if low else '<='} {lin}")
        params = ", ".join(self.residuals)
        xs = ", ".join(f"x{k}" for k in range(n))
        self.domain = isl.Set(f"[{params}] -> {{ [{xs}] : {' and '.join(cons)} }}")

    def to_c(self, aff: isl.Aff, names: dict[str, str], visited: isl.Set) -> c_ast.Node:
        """An affine bound as C, residual parameters replaced by their C expressions.

        A floor division whose dividend is never negative where the bound is
        evaluated (``visited``) becomes a plain C division.
        """
        e = None
        if aff.dim(_DT.div) == 1:
            div = aff.get_div(0)
            den = div.get_denominator_val()
            num = div.scale_val(den)
            zero = isl.Aff.zero_on_domain(num.get_domain_space())
            plain = all(
                num.get_coefficient_val(_DT.div, k).is_zero() for k in range(num.dim(_DT.div))
            )
            if (
                plain
                and visited.intersect(
                    isl.PwAff.from_aff(num).lt_set(isl.PwAff.from_aff(zero))
                ).is_empty()
            ):
                coef = aff.get_coefficient_val(_DT.div, 0)
                quot = c_ast.BinaryOp("/", aff_to_c(num, names), make_int(den.to_python()))
                term = (
                    quot if coef.is_one() else c_ast.BinaryOp("*", make_int(coef.to_python()), quot)
                )
                rest = aff.set_coefficient_val(_DT.div, 0, 0)
                e = term
                for sign, t in _signed_terms(aff_to_c(rest, names)):
                    e = c_ast.BinaryOp("+" if sign > 0 else "-", e, t)
        if e is None:
            e = aff_to_c(aff, names)
        for p, node in self.residuals.items():
            e = substitute(e, p, lambda node=node: copy_node(node))
        return simplify(e)


def _combine(exprs: list[c_ast.Node], op: str) -> c_ast.Node:
    seen: dict[str, c_ast.Node] = {}
    for e in exprs:
        seen.setdefault(to_c(e), e)
    out = None
    for e in seen.values():
        out = e if out is None else extreme(op, out, e)
    return out


def _level_bounds(image: isl.Set, n: int, q: int) -> tuple[list[isl.Aff], list[isl.Aff], isl.Set]:
    """Lower and upper bounds of ``y_q`` (affine in ``y_<q`` and parameters), and the set they scan."""
    b = image.project_out(_DT.set, q + 1, n - q - 1).remove_redundancies()
    b = b.convex_hull().remove_divs().remove_redundancies()
    lows, highs = [], []
    scanned = isl.Set.universe(image.get_space())
    for c in b.get_constraints():
        a = c.get_coefficient_val(_DT.set, q).to_python()
        if a == 0:
            continue
        full = isl.BasicSet.universe(b.get_space()).add_constraint(c)
        full = full.insert_dims(_DT.set, q + 1, n - q - 1)
        scanned = scanned.intersect(isl.Set.from_basic_set(full))
        rest = c.get_aff().set_coefficient_val(_DT.in_, q, 0)
        val = isl.Val.int_from_si(rest.get_ctx(), abs(a))
        lo = rest.neg().scale_down_val(val).ceil() if a > 0 else None
        hi = rest.scale_down_val(val).floor() if a < 0 else None
        if c.is_equality():  # a*y + rest = 0: y = -rest/a, an integer only where a divides rest
            exact = rest.neg().scale_down_val(isl.Val.int_from_si(rest.get_ctx(), a))
            lo, hi = exact.ceil(), exact.floor()  # lo > hi (no iteration) where it does not
        if lo is not None:
            lows.append(lo)
        if hi is not None:
            highs.append(hi)
    return lows, highs, scanned


def _rebuild(loop: Loop, band: Band, rows: list[list[int]]) -> None:
    n = len(rows)
    bounds = _Bounds(band)
    tmap = _linear_map(rows, "x", "y")
    image = bounds.domain.apply(tmap)
    for k in range(n):
        image = image.set_dim_name(_DT.set, k, f"y{k}")
    # names of the new indices: x_k where row q is e_k, else fresh
    taken = taken_names(loop.module.cu.ast.ext)
    reused: dict[int, int] = {}  # row -> band position
    for q, row in enumerate(rows):
        if q and sorted(row) == [0] * (n - 1) + [1]:
            reused[q] = row.index(1)
    names = []
    for q in range(n):
        if q in reused:
            names.append(band.indices[reused[q]])
        else:
            base = "".join(band.indices) if q == 0 else f"{band.indices[0]}{q}"
            names.append(fresh_name(base, taken))
    ynames = {f"y{q}": names[q] for q in range(n)}
    scanned = isl.Set.universe(image.get_space())
    headers = []
    for q in range(n):
        lows, highs, part = _level_bounds(image, n, q)
        # the outer indices the loops visit: where the bounds of y_q are evaluated
        visited = scanned.project_out(_DT.set, q + 1, n - q - 1)
        scanned = scanned.intersect(part)
        if not lows or not highs:
            raise refuse(loop, f"{_VERB}: the band's iteration space is unbounded along {names[q]}")
        lo = _combine([bounds.to_c(a, ynames, visited) for a in lows], ">")
        hi = _combine([bounds.to_c(a, ynames, visited) for a in highs], "<")
        headers.append((lo, hi))
    if not scanned.is_equal(image):
        raise refuse(loop, f"{_VERB}: no exact loop bounds for the new basis (isl projection)")
    # x = T^-1 y, for the indices that are not loop indices any more
    inv = _linear_map(rows, "x", "y").reverse()
    inv_rows = _rows_of(inv, n)
    body = band.loops[-1].node.stmt
    kept = set(reused.values())
    for m in range(n):
        if m in kept:
            continue
        terms = [(c, names[q]) for q, c in enumerate(inv_rows[m]) if c]
        expr = None
        for c, name in terms:
            t = (
                c_ast.ID(name)
                if abs(c) == 1
                else c_ast.BinaryOp("*", make_int(abs(c)), c_ast.ID(name))
            )
            if expr is None:
                expr = t if c > 0 else c_ast.UnaryOp("-", t)
            else:
                expr = c_ast.BinaryOp("+" if c > 0 else "-", expr, t)
        body = substitute_index(body, band.indices[m], expr)
    head_decl = band.table.decl_of(band.loops[0].index_ref)
    labelled = [cl.loop.site.labelled for cl in band.loops]
    inner: c_ast.Node = body
    for q in reversed(range(n)):
        lo, hi = headers[q]
        coord = band.loops[min(q, n - 1)].node.coord
        name = names[q]
        if q in reused:
            cl = band.loops[reused[q]]
            if cl.index_decl is not None:
                decl = cl.index_decl
                decl.init = lo
                init = c_ast.DeclList([decl], coord)
            else:
                init = c_ast.Assignment("=", c_ast.ID(name), lo, coord)
        else:
            decl = copy_node(head_decl)
            rename_declaration(decl, name)
            decl.init, decl.storage, decl.funcspec, decl.bitsize = lo, [], [], None
            init = c_ast.DeclList([decl], coord)
        f = c_ast.For(
            init, c_ast.BinaryOp("<=", c_ast.ID(name), hi, coord),
            c_ast.UnaryOp("p++", c_ast.ID(name), coord), inner, coord,
        )  # fmt: skip
        if q == 0:
            labelled[0].stmt = f
            inner = labelled[0]
        elif q in reused and reused[q] != 0:
            lab = labelled[reused[q]]
            lab.stmt = f
            inner = lab
        else:
            inner = f


# ------------------------------------------------------------------------ the pass


def _nest_depth(loop: Loop) -> int:
    depth, node = 1, loop.node
    while True:
        child = only_loop(node.stmt)
        if child is None:
            return depth
        depth, node = depth + 1, child.stmt


@transformation(scope="loop", requires=["dependences"], preserves=["callgraph"], reads=["scops", "unit_scope"])
def loop_hyperplane(loop: Loop, direction: tuple[int, ...] = ()) -> None:
    """Change the basis of a perfect band so that the outer loop scans hyperplanes ``h . x = c``.

    Before (``loop.loop_hyperplane((1, 1))``, a 5-point Gauss–Seidel sweep)::

        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                A[i][j] = (A[i - 1][j] + A[i][j - 1] + A[i][j] + A[i][j + 1] + A[i + 1][j]) / 5;

    After (``ij`` enumerates the anti-diagonals; the loop over ``i`` is parallel)::

        for (int ij = 2; ij <= 2 * n - 4; ij++)
            for (i = (1 > ij - n + 2 ? 1 : ij - n + 2); i <= (n - 2 < ij - 1 ? n - 2 : ij - 1); i++)
                A[i][ij - i] = (A[i - 1][ij - i] + ... ) / 5;

    The new indices are ``y = T x`` with ``T`` unimodular and first row ``h``
    (:func:`unimodular_completion`: when some ``|h_p| == 1``, the inner
    loops keep the other original indices and ``x_p`` is rewritten from
    ``y``). Bounds are the image of the band's domain under ``T``,
    projected level by level with isl (triangular bands included) and
    checked to scan exactly the same points; min/max become ``?:``.

    Legal when every dependence distance ``d`` not carried outside the band
    satisfies ``h . d > 0``, or ``h . d == 0`` and the remaining rows of
    ``T d`` are lexicographically positive (checked exactly on the distance
    sets); the refusal names the dependence. The inner loops are parallel
    when no distance lies on the hyperplane (``h . d == 0``): ``(1, 1)``
    for a 5-point Gauss–Seidel, ``(2, 1)`` for the 9-point ``seidel_2d``.
    Refused also: bands that are not perfect, not counted loops of step 1,
    indices that are not signed integers or are read after the band,
    ``h`` with a gcd other than 1, bands outside a static control part.

    Properties:

    - direction: the normal h, one integer per band loop (default: ones over the perfect nest)
    """
    h = tuple(int(c) for c in direction) if direction else (1,) * _nest_depth(loop)
    n = len(h)
    if n < 2:
        raise refuse(loop, f"{_VERB}: a direction {vector_text(h)} over one loop leaves it as it is")
    g = 0
    for c in h:
        g = math.gcd(g, c)
    if g != 1:
        raise refuse(loop, f"{_VERB}: direction {vector_text(h)} has gcd {g}, not 1 (no unimodular basis)")
    band = perfect_band(loop, n, _VERB, signed=True)
    rows = unimodular_completion(h)
    if rows == [[int(r == c) for c in range(n)] for r in range(n)]:
        raise refuse(loop, f"{_VERB}: direction {vector_text(h)} leaves the band as it is")
    what = f"loop_hyperplane {vector_text(h)} of {band_names(band, range(n))} in {site_text(band)}"
    _check(band, rows, what)
    _rebuild(loop, band, rows)
