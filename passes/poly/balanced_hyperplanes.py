"""Di's tile shapes (Di 2013, ch. 4): balanced tiling hyperplanes, hindering false dependences.

**Balanced hyperplanes** (Algorithm 4.1). Tiling hyperplanes ``phi(x) = c . x
+ o_S`` are found one row at a time, Pluto-style, by an integer program whose
constraints come from every direct dependence ``e`` (value-based flow,
nearest anti and output: Table 3.1's semantics) through Farkas' lemma
(:func:`.hyperplanes.farkas`):

* legality (Eq 3.16): ``phi_T(y) - phi_S(x) >= 0`` on ``e``'s pairs;
* balance (Eq 4.1), first row only, self dependences only: ``>= 1``: the
  outermost point loop of a tile then carries every self dependence and
  the intra-tile wavefronts are *balanced* (the same number of instances of
  each statement in every wavefront of a full tile, Def 4.1): the point
  loops below it carry none, so the innermost one is a SIMD loop on a CPU;
* bounding (Pluto): ``phi_T(y) - phi_S(x) <= u . n + w``;
* linear independence from the rows found (``h . c >= 1`` for a row ``h``
  of the orthogonal complement ``I - H^T (H H^T)^-1 H``, each tried, the
  smallest solution kept).

The program is solved lexicographically: ``u``, ``w``, then the
coefficients, then the offsets. Coefficients are non-negative (Pluto's
convention) and shared by the statements of the part, which must have the
same depth; each statement has its own offset (Fig. 4.4: ``S1`` gets
``+1`` on the second row). Every row is checked exactly against the
memory-based dependences (:func:`.hyperplanes.violated`). Fig. 3.4
(``A[i] = 0.5 * (A[i] + A[i + 1])``): balanced ``[(2, 1), (1, 0)]`` (the
thesis' tie-break gives ``(1, 1)`` second, equally bounded), Pluto's
communication-minimal ``[(1, 0), (1, 1)]`` (``balanced=False``).

**Hindering false dependences** (Def 4.2, Algorithm 4.2). A false (anti or
output) dependence hinders parallelism when a constraint it generates
(legality, and balance on the first row) is not implied by those of the
other dependences: the coefficient-space test ``C(E - e) ⊄ C(e)``
(``method="coefficients"``), or when leaving it out changes the
hyperplanes (``method="resolve"``, the thesis' re-solve test; the two can
disagree when a non-redundant constraint does not move the optimum). In
Fig. 3.4 only the anti dependence ``(0, 1)`` hinders; SOR has none.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import gcd, lcm
from typing import Literal

import islpy as isl

from passman import PassFailed

from .dependences import Dependence
from .hyperplanes import MAX_COEFFICIENT, MAX_OFFSET, Program, Row, farkas, violated
from .scop import Scop

#: how a false dependence is judged hindering (Def 4.2's test, or Algorithm 4.2's re-solve)
Method = Literal["coefficients", "resolve"]
#: bound on the bounding function's parameter coefficients and constant
MAX_BOUND = 64


# ------------------------------------------------------------------------ the integer program


def _direct(deps: Sequence[Dependence]) -> list[Dependence]:
    """The direct dependences (value-based flow, nearest anti and output), one per relation."""
    return [d for d in deps if not d.direct.is_empty()]


def _unknowns(p: Program, part: Scop, tag: str) -> tuple[list[str], dict[str, str], list[str], str]:
    """Shared coefficients, per-statement offsets, bounding ``u`` per parameter and ``w``."""
    depth = _common_depth(part)
    coefs = [p.var(f"{tag}_c{k}", 0, MAX_COEFFICIENT) for k in range(depth)]
    offsets = {s.name: p.var(f"{tag}_o_{s.name}", 0, MAX_OFFSET) for s in part.statements}
    n_par = part.context.dim(isl.dim_type.param)
    us = [p.var(f"{tag}_u{k}", 0, MAX_BOUND) for k in range(n_par)]
    w = p.var(f"{tag}_w", 0, MAX_BOUND)
    return coefs, offsets, us, w


def _common_depth(part: Scop) -> int:
    depths = {s.depth for s in part.statements}
    if len(depths) != 1:
        raise PassFailed(f"{part.where}: Di's tile shapes need statements of one depth (here {sorted(depths)})")
    return depths.pop()


def _delta(rel: isl.Map, coefs: list[str], o_src: str, o_snk: str, shift: int = 0,
           sign: int = 1) -> list[tuple[dict[str, int], int]]:  # fmt: skip
    """Coefficient-space expressions of ``sign * (phi_T(y) - phi_S(x)) - shift`` on ``rel``."""
    n_par = rel.dim(isl.dim_type.param)
    exprs = [({o_snk: sign, o_src: -sign}, -shift)] + [({}, 0)] * n_par
    exprs += [({c: -sign}, 0) for c in coefs[: rel.dim(isl.dim_type.in_)]]
    exprs += [({c: sign}, 0) for c in coefs[: rel.dim(isl.dim_type.out)]]
    return exprs


def _constrain(p: Program, deps: Sequence[Dependence], coefs: list[str], offsets: dict[str, str],
               balanced: bool, bound: tuple[list[str], str] | None = None) -> None:  # fmt: skip
    """Legality (and balance on self dependences) for ``deps``; Pluto's bounding function when given."""
    for d in deps:
        rel = d.direct
        a, b = d.source_stmt.name, d.sink_stmt.name
        self_dep = a == b
        farkas(p, rel, _delta(rel, coefs, offsets[a], offsets[b], shift=1 if balanced and self_dep else 0))
        if bound is not None:
            us, w = bound
            exprs = _delta(rel, coefs, offsets[a], offsets[b], sign=-1)
            exprs[0] = ({**exprs[0][0], w: 1}, exprs[0][1])
            for k, u in enumerate(us):
                exprs[1 + k] = ({u: 1}, 0)
            farkas(p, rel, exprs)


def _orthogonal(rows: list[tuple[int, ...]], n: int) -> list[tuple[int, ...]]:
    """Integer rows spanning the orthogonal complement of ``rows`` (``I - H^T (H H^T)^-1 H``)."""
    if not rows:
        return [tuple(int(i == k) for i in range(n)) for k in range(n)]
    h = [[Fraction(x) for x in r] for r in rows]
    m = len(h)
    gram = [[sum(h[a][k] * h[b][k] for k in range(n)) for b in range(m)] for a in range(m)]
    inv = _inverse(gram)
    proj = [[Fraction(int(i == j)) - sum(h[a][i] * inv[a][b] * h[b][j] for a in range(m) for b in range(m))
             for j in range(n)] for i in range(n)]  # fmt: skip
    out: list[tuple[int, ...]] = []
    for row in proj:
        if not any(row):
            continue
        scale = lcm(*(x.denominator for x in row))
        ints = [int(x * scale) for x in row]
        g = gcd(*ints)
        prim = tuple(x // g for x in ints)
        if prim not in out and tuple(-x for x in prim) not in out:
            out.append(prim)
    return out


def _inverse(a: list[list[Fraction]]) -> list[list[Fraction]]:
    n = len(a)
    m = [row[:] + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(a)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if m[r][col] != 0)
        m[col], m[pivot] = m[pivot], m[col]
        f = m[col][col]
        m[col] = [x / f for x in m[col]]
        for r in range(n):
            if r != col and m[r][col] != 0:
                g = m[r][col]
                m[r] = [x - g * y for x, y in zip(m[r], m[col])]
    return [row[n:] for row in m]


# ------------------------------------------------------------------------ Algorithm 4.1


def di_hyperplanes(part: Scop, deps: Sequence[Dependence], balanced: bool = True) -> list[Row]:
    """A full permutable band of tiling hyperplanes of ``part`` (Algorithm 4.1; see the module docstring).

    ``balanced=False`` drops Eq. 4.1: Pluto's communication-minimal rows.
    PassFailed when some row has no solution (the band would not be full).
    """
    depth = _common_depth(part)
    direct = _direct(deps)
    memory = [d.relation for d in deps if not d.relation.is_empty()]
    rows: list[Row] = []
    found: list[tuple[int, ...]] = []
    for k in range(depth):
        best: tuple[tuple[int, ...], Row] | None = None
        for h in ([None] if k == 0 else [v for r in _orthogonal(found, depth) for v in (r, tuple(-x for x in r))]):
            p = Program()
            coefs, offsets, us, w = _unknowns(p, part, f"r{k}")
            _constrain(p, direct, coefs, offsets, balanced and k == 0, (us, w))
            if h is None:
                p.add(dict.fromkeys(coefs, 1), -1)  # not the zero row
            else:
                p.add({c: x for c, x in zip(coefs, h) if x}, -1)  # h . c >= 1
            order = [*us, w, *coefs, *offsets.values()]
            got = p.solve(order)
            if got is None:
                continue
            key = tuple(got[v] for v in order)
            if best is None or key < best[0]:
                row = Row({s.name: tuple(got[c] for c in coefs) + (got[offsets[s.name]],) for s in part.statements})
                best = (key, row)
        if best is None:
            raise PassFailed(f"{part.where}: no {'balanced ' if balanced and k == 0 else ''}tiling hyperplane "
                             f"{k + 1} of {depth} (Di 2013, Algorithm 4.1)")  # fmt: skip
        row = best[1]
        if violated(memory, row) is not None:  # pragma: no cover - chains of direct pairs
            raise PassFailed(f"{part.where}: hyperplane {k + 1} goes against a dependence")
        rows.append(row)
        found.append(row.forms[part.statements[0].name][:-1])
    return rows


# ------------------------------------------------------------------------ Def 4.2, Algorithm 4.2


def _first_row_set(part: Scop, deps: Sequence[Dependence]) -> isl.BasicSet:
    """``C(deps)``: the coefficients and offsets legal (and balanced) for ``deps``, Eq. 3.16 + 4.1."""
    p = Program()
    coefs, offsets, _, _ = _unknowns(p, part, "f")
    _constrain(p, deps, coefs, offsets, balanced=True)
    return p.basic_set(p.names)


def hindering_false_dependences(part: Scop, deps: Sequence[Dependence],
                                method: Method = "coefficients") -> list[Dependence]:  # fmt: skip
    """The false dependences of ``part`` that hinder parallelism (Def 4.2, or Algorithm 4.2's re-solve)."""
    direct = _direct(deps)
    false = [d for d in direct if d.kind in ("anti", "output")]
    out = []
    if method == "coefficients":
        for e in false:
            others = [d for d in direct if d is not e]
            if not _first_row_set(part, others).is_subset(_first_row_set(part, [e])):
                out.append(e)
        return out
    base = di_hyperplanes(part, deps)
    for e in false:
        try:
            again = di_hyperplanes(part, [d for d in direct if d is not e])
        except PassFailed:
            continue
        if [r.forms for r in again] != [r.forms for r in base]:
            out.append(e)
    return out
