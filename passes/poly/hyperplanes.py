"""Tiling hyperplanes of time-iterated stencils: Pluto's legality constraints, Farkas by isl.

A tiling hyperplane gives every statement ``S`` of a part an affine form
``phi_S(t, x) = a_S * t + c_S . x + o_S`` over its iteration vector (time
``t`` first). It is *legal* for tiling when no dependence goes backwards
across it: ``phi_sink(y) - phi_source(x) >= 0`` for every dependence pair
``(x, y)`` (Pluto; Bondhugula 2008). A band of legal hyperplanes is
permutable, so rectangular tiles of the transformed space are legal
(Freitag 2014 erratum E14: the original ``(t, x)`` of a stencil is not).

The constraint is affine in the unknown coefficients only after the
dependence polyhedron's variables are eliminated: isl's
``Set.coefficients`` gives, per dependence relation, every
``(c_cst, c_params, c_src, c_sink)`` whose form is non-negative on it
(the affine form of Farkas' lemma); substituting the unknowns for those
coefficients yields the constraints of a small integer program that isl's
``lexmin`` solves. Before (jacobi-1d, statements ``S0: b = f(a)`` and
``S1: a = f(b)`` inside ``for t``)::

    row  +x: phi = a*t + i + o_S     row  -x: phi = a*t - i + o_S

After (``find_row``)::

    S0: 2t + i      S1: 2t + i + 1         S0: 2t - i      S1: 2t - i + 1

Their sum is ``4t + const`` for both statements: tiles along the time face
start concurrently (Bandishti et al., SC'12), the *diamond* tiling. A
:class:`RowShape` fixes the spatial coefficients of the deepest
statements (``+x1``, ``-x1``, ``+x2`` ...) and leaves free the time
coefficient, the statement offsets and every coefficient of the
statements of lesser depth (``Ey[0][j] = f[t]`` in FDTD), which the
program chooses smallest: time coefficient first, then the absolute
coefficients, then the offsets. Each solution is re-checked exactly on
the dependence relations (:func:`violated`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import islpy as isl

from .affine import ctx
from .scop import Scop, Statement

#: bound on the absolute value of a free coefficient, and on a statement offset
MAX_COEFFICIENT = 4
MAX_OFFSET = 16


@dataclass(frozen=True)
class RowShape:
    """The spatial coefficients a hyperplane gives the deepest statements of a part.

    ``spatial[k]`` is the coefficient of spatial dimension ``k`` (loop
    ``k + 1`` of the statement), an integer, or None for a free one
    (chosen ``>= 0``, as in a skew). The time coefficient is free and
    ``>= min_time``.
    """

    spatial: tuple[int | None, ...]
    min_time: int = 0


@dataclass(frozen=True)
class Row:
    """One hyperplane: statement name -> coefficients over its iterators, then the constant."""

    forms: dict[str, tuple[int, ...]]

    def aff(self, stmt: Statement) -> isl.Aff:
        """``phi_S`` as an isl affine expression on the statement's domain."""
        coefs = self.forms[stmt.name]
        ls = isl.LocalSpace.from_space(stmt.domain.get_space())
        aff = isl.Aff.zero_on_domain(ls).set_constant_val(isl.Val.int_from_si(ctx(), coefs[-1]))
        for k, c in enumerate(coefs[:-1]):
            aff = aff.set_coefficient_val(isl.dim_type.in_, k, isl.Val.int_from_si(ctx(), c))
        return aff

    def text(self, stmt: Statement) -> str:
        """``2t - i + 1`` in the statement's C loop variables."""
        coefs = self.forms[stmt.name]
        names = [lp.var for lp in stmt.loops]
        terms = []
        for c, n in zip(coefs[:-1], names):
            if c:
                terms.append(f"{'' if c == 1 else '-' if c == -1 else c}{n}")
        if coefs[-1] or not terms:
            terms.append(str(coefs[-1]))
        return " + ".join(terms).replace("+ -", "- ")


# ----------------------------------------------------------------------- unknowns


class Program:
    """The integer program of one row: unknowns by name, linear constraints, isl solution."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.constraints: list[tuple[dict[str, int], int, bool]] = []  # (coefs, const, equality)

    def var(self, name: str, lo: int | None = None, hi: int | None = None) -> str:
        self.names.append(name)
        if lo is not None:
            self.constraints.append(({name: 1}, -lo, False))
        if hi is not None:
            self.constraints.append(({name: -1}, hi, False))
        return name

    def add(self, coefs: dict[str, int], const: int, equality: bool = False) -> None:
        self.constraints.append((coefs, const, equality))

    def solve(self, objective: Sequence[str]) -> dict[str, int] | None:
        """The lexicographically smallest solution, ``objective`` variables first (None: infeasible)."""
        order = list(objective) + [n for n in self.names if n not in objective]
        bset = self.basic_set(order)
        if bset.is_empty():
            return None
        point = bset.lexmin().sample_point()
        return {n: point.get_coordinate_val(isl.dim_type.set, k).to_python() for k, n in enumerate(order)}

    def basic_set(self, order: Sequence[str]) -> isl.BasicSet:
        """The solutions, as a set over the unknowns in ``order`` (every unknown named there)."""
        space = isl.Space.set_alloc(ctx(), 0, len(order))
        for k, n in enumerate(order):
            space = space.set_dim_name(isl.dim_type.set, k, n)
        index = {n: k for k, n in enumerate(order)}
        bset = isl.BasicSet.universe(space)
        ls = isl.LocalSpace.from_space(space)
        for coefs, const, eq in self.constraints:
            c = (isl.Constraint.equality_alloc if eq else isl.Constraint.inequality_alloc)(ls)
            c = c.set_constant_val(isl.Val.int_from_si(ctx(), const))
            for n, v in coefs.items():
                if v:
                    c = c.set_coefficient_val(isl.dim_type.set, index[n], isl.Val.int_from_si(ctx(), v))
            bset = bset.add_constraint(c)
        return bset


def linear(terms: list[tuple[int, str | int]]) -> tuple[dict[str, int], int]:
    """Sum of ``coef * unknown`` (a name) or ``coef * constant`` (an int)."""
    out: dict[str, int] = {}
    const = 0
    for c, x in terms:
        if isinstance(x, str):
            out[x] = out.get(x, 0) + c
        else:
            const += c * x
    return out, const


# ----------------------------------------------------------------------- the row


def _farkas(program: Program, rel: isl.Map, src: list[str | int], snk: list[str | int],
            o_src: str, o_snk: str) -> None:  # fmt: skip
    """Constrain ``phi_snk(y) - phi_src(x) >= 0`` on ``rel`` (coefficient lists per dimension)."""
    n_par = rel.dim(isl.dim_type.param)
    n_src, n_snk = rel.dim(isl.dim_type.in_), rel.dim(isl.dim_type.out)
    # coefficient-space dims: c_cst, params, source dims, sink dims; each a linear expression
    exprs: list[tuple[dict[str, int], int]] = [linear([(1, o_snk), (-1, o_src)])]
    exprs += [({}, 0)] * n_par
    exprs += [linear([(-1, src[k])]) for k in range(n_src)]
    exprs += [linear([(1, snk[k])]) for k in range(n_snk)]
    farkas(program, rel, exprs)


def farkas(program: Program, rel: isl.Map, exprs: Sequence[tuple[dict[str, int], int]]) -> None:
    """Constrain the affine form whose coefficients are ``exprs`` to be ``>= 0`` on ``rel``.

    ``exprs`` are linear expressions of the program's unknowns (``({name: coef}, const)``), one per
    dimension of isl's coefficient space of ``rel`` wrapped: the constant, each parameter, each
    source dimension, each sink dimension.
    """
    # isl's Farkas takes no local variables: a superset of the pairs (divs dropped) asks more
    # of the row, never less (fuzz seed 140055: a strided dependence)
    coef_set = rel.wrap().remove_divs().coefficients().flatten()
    constraints: list[isl.Constraint] = []
    coef_set.foreach_constraint(constraints.append)
    for con in constraints:
        coefs: dict[str, int] = {}
        const = con.get_constant_val().to_python()
        for k, (lin, c0) in enumerate(exprs):
            g = con.get_coefficient_val(isl.dim_type.set, k).to_python()
            if not g:
                continue
            const += g * c0
            for n, v in lin.items():
                coefs[n] = coefs.get(n, 0) + g * v
        program.add(coefs, const, con.is_equality())


def find_row(
    scop: Scop, relations: Sequence[isl.Map], shape: RowShape, tag: str = "h"
) -> Row | None:
    """The smallest legal hyperplane of ``shape`` for ``relations`` (None: there is none).

    ``relations`` are dependence relations between statements of ``scop``
    (source instances to sink instances). The deepest statements get
    ``shape``'s spatial coefficients and a shared time coefficient; the
    others free coefficients in ``[-MAX_COEFFICIENT, MAX_COEFFICIENT]``.
    """
    depth = max(s.depth for s in scop.statements)
    p = Program()
    time = p.var(f"{tag}_a", shape.min_time, MAX_COEFFICIENT)
    absolute: list[str] = []
    coefs: dict[str, list[str | int]] = {}
    offsets: dict[str, str] = {}
    for s in scop.statements:
        row: list[str | int] = []
        if s.depth == depth:
            row.append(time)
            for k, c in enumerate(shape.spatial):
                if c is None:
                    v = p.var(f"{tag}_{s.name}_{k}", 0, MAX_COEFFICIENT)
                    absolute.append(v)
                    row.append(v)
                else:
                    row.append(c)
        else:
            for k in range(s.depth):
                pos = p.var(f"{tag}_{s.name}_{k}p", 0, MAX_COEFFICIENT)
                neg = p.var(f"{tag}_{s.name}_{k}n", 0, MAX_COEFFICIENT)
                v = p.var(f"{tag}_{s.name}_{k}", -MAX_COEFFICIENT, MAX_COEFFICIENT)
                p.add({v: 1, pos: -1, neg: 1}, 0, equality=True)
                absolute += [pos, neg]
                row.append(v)
        coefs[s.name] = row
        offsets[s.name] = p.var(f"{tag}_{s.name}_o", 0, MAX_OFFSET)
    total_abs = p.var(f"{tag}_abs")
    p.add({total_abs: -1, **{v: 1 for v in absolute}}, 0, equality=True)
    total_off = p.var(f"{tag}_off")
    p.add({total_off: -1, **{v: 1 for v in offsets.values()}}, 0, equality=True)
    for rel in relations:
        a = rel.get_tuple_name(isl.dim_type.in_)
        b = rel.get_tuple_name(isl.dim_type.out)
        _farkas(p, rel, coefs[a], coefs[b], offsets[a], offsets[b])
    got = p.solve([time, total_abs, total_off])
    if got is None:
        return None
    forms = {
        name: tuple(got[v] if isinstance(v, str) else v for v in row) + (got[offsets[name]],)
        for name, row in coefs.items()
    }
    return Row(forms)


def violated(relations: Sequence[isl.Map], row: Row) -> isl.Map | None:
    """The pairs of the first dependence relation that ``row`` goes backwards on, or None.

    Exact: the pairs ``(x, y)`` with ``phi_sink(y) < phi_source(x)``.
    """
    for rel in relations:
        a = row.forms[rel.get_tuple_name(isl.dim_type.in_)]
        b = row.forms[rel.get_tuple_name(isl.dim_type.out)]
        pairs = rel.wrap()
        ls = isl.LocalSpace.from_space(pairs.get_space())
        diff = isl.Aff.zero_on_domain(ls).set_constant_val(isl.Val.int_from_si(ctx(), b[-1] - a[-1]))
        n = len(a) - 1
        for k, c in enumerate(a[:-1]):
            diff = diff.set_coefficient_val(isl.dim_type.in_, k, isl.Val.int_from_si(ctx(), -c))
        for k, c in enumerate(b[:-1]):
            diff = diff.set_coefficient_val(isl.dim_type.in_, n + k, isl.Val.int_from_si(ctx(), c))
        bad = pairs.intersect(isl.Set.from_basic_set(diff.neg_basic_set()))
        if not bad.is_empty():
            return bad.unwrap()
    return None
