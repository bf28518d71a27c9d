"""The geometry of a time-iterated stencil: levels, space coordinates and dependence slopes.

Split tiling (:mod:`.split_tiling`) and the trapezoidal walk
(:mod:`.trapezoid_tiling`) cut the iteration space of a time loop along
cones: both see each statement of a time step as a *level* of pseudo time
``tau = K*t + k`` (``K`` statement positions in the time loop, ``k`` the
statement's), its space iterators as coordinates ``x0..x(d-1)`` (a
statement in fewer loops, FDTD's ``Ey[0][j] = f[t]``, aligned on the
innermost ones, a constant *filler* for the others), and need, per space
dimension ``k``, a slope ``sigma_k`` with ``|dx_k| <= sigma_k * dtau`` for
every dependence (flow, anti, output): every dependence goes forward in
pseudo time, or stays at one point of one level (two statements of one
loop body, which a tile runs in order). These are exact isl inclusion
tests, for all parameter values. For Jacobi 1-D::

    for (t = 0; t < T; t++) {
        for (i = 1; i < n - 1; i++) B[i] = (A[i-1] + A[i] + A[i+1]) / 3;   /* tau = 2t     */
        for (i = 1; i < n - 1; i++) A[i] = B[i];                           /* tau = 2t + 1 */
    }

has ``K = 2`` and slope 1: ``B[i]`` at ``2t`` reads ``A[i +- 1]`` written
at ``2t - 1``. Gauss-Seidel (``A[i][j]`` from ``A[i][j-1]`` of the same
step) has no slope: a dependence moves in space within one level.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import islpy as isl

from passman import PassFailed

from ..cfacts.names import where
from .affine import ctx, instance_map
from .dependences import Dependence
from .scop import Scop

#: the largest slope (points per level) accepted
SLOPE_MAX = 8
#: values tried for the space coordinates a statement in fewer loops lacks (FDTD's ``Ey[0][j] = f[t]``)
FILLERS = (0, 1, -1, 2, -2)


@dataclass(frozen=True)
class StencilGeometry:
    """The levels and space coordinates of a part's instances, and the slopes of its dependences."""

    levels: int  # K: statement positions per time step
    coordinates: isl.UnionMap  # instance -> [tau, x0, ..., x(d-1)]
    slopes: tuple[int, ...]

    @property
    def dims(self) -> int:
        """Number of space dimensions."""
        return len(self.slopes)


def stencil_coordinates(part: Scop, filler: int = 0) -> tuple[int, isl.UnionMap]:
    """``K`` and instance -> ``[K*t + k, x0, ..., x(d-1)]``.

    ``k``: the statement's position in the time loop; ``x``: its space
    iterators, a statement in fewer loops aligned on the innermost ones
    (``filler`` for the others).
    """
    positions = sorted({s.positions[1] for s in part.statements})
    level = {p: k for k, p in enumerate(positions)}
    n = len(positions)
    depth = max(s.depth for s in part.statements) - 1
    out = isl.UnionMap.empty(isl.Space.params_alloc(ctx(), 0))
    for s in part.statements:
        space = isl.LocalSpace.from_space(s.domain.get_space())

        def var(k: int, space: isl.LocalSpace = space) -> isl.Aff:
            return isl.Aff.var_on_domain(space, isl.dim_type.set, k)

        def const(v: int, space: isl.LocalSpace = space) -> isl.Aff:
            return isl.Aff.zero_on_domain(space).set_constant_val(isl.Val.int_from_si(ctx(), v))

        sign = -1 if s.loops[0].decreasing else 1
        tau = var(0).scale_val(isl.Val.int_from_si(ctx(), sign * n)).add(const(level[s.positions[1]]))
        affs = [tau] + [const(filler)] * (depth - s.depth + 1) + [var(k) for k in range(1, s.depth)]
        out = out.union(isl.UnionMap.from_map(instance_map(affs, s.domain)))
    return n, out


def dependence_deltas(d: Dependence, coordinates: isl.UnionMap) -> isl.Set:
    """The differences ``(dtau, dx...)`` of a dependence's instance pairs in ``coordinates``."""
    rel = isl.UnionMap.from_map(d.relation).apply_domain(coordinates).apply_range(coordinates)
    sets: list[isl.Set] = []
    rel.deltas().foreach_set(sets.append)
    return sets[0] if sets else isl.Set.empty(coordinates.range().get_space())


def _names(dims: int) -> str:
    return ", ".join(["dt"] + [f"d{m}" for m in range(dims)])


def cone_slope(deltas: isl.Set, k: int) -> int | None:
    """The least ``sigma <= SLOPE_MAX`` with ``|dx_k| <= sigma * dtau`` on every difference (None: none)."""
    names = _names(deltas.dim(isl.dim_type.set) - 1)
    for sigma in range(SLOPE_MAX + 1):
        cone = isl.Set(f"{{ [{names}] : -{sigma}dt <= d{k} <= {sigma}dt }}", context=ctx())
        if deltas.is_subset(cone.align_params(deltas.get_space())):
            return sigma
    return None


def _moves_within_a_level(deltas: isl.Set, dims: int) -> bool:
    """Whether some difference has ``dtau <= 0`` and moves in space, or goes back in pseudo time."""
    xs = [f"d{m}" for m in range(dims)]
    still = " and ".join(f"{x} = 0" for x in xs) or "true"
    ok = isl.Set(f"{{ [{_names(dims)}] : dt >= 1 or (dt = 0 and {still}) }}", context=ctx())
    return not deltas.subtract(ok.align_params(deltas.get_space())).is_empty()


def stencil_slopes(part: Scop, deps: Sequence[Dependence], coordinates: isl.UnionMap,
                   technique: str) -> tuple[int, ...] | str:  # fmt: skip
    """Per space dimension the slope of the dependences, or why there is none (the dependence
    named, for ``technique``: "split tiling", "trapezoidal tiling")."""
    dims = max(s.depth for s in part.statements) - 1
    time = part.statements[0].loops[0].var
    slopes = [0] * dims
    for d in deps:
        deltas = dependence_deltas(d, coordinates)
        why = ("moves in space within one time step (no tile of one level orders it)"
               if _moves_within_a_level(deltas, dims) else None)  # fmt: skip
        for k in range(dims):
            if why is not None:
                break
            sigma = cone_slope(deltas, k)
            if sigma is None:
                why = f"has no slope of at most {SLOPE_MAX} points per step in space dimension {k}"
            else:
                slopes[k] = max(slopes[k], sigma)
        if why is not None:
            return f"{where(d.sink_stmt.node)}: no {technique} of loop {time}: {d.kind} dependence {d.why()} {why}"
    return tuple(slopes)


def stencil_geometry(part: Scop, deps: Sequence[Dependence], technique: str = "split tiling") -> StencilGeometry:
    """Levels, coordinates and slopes of a time loop, the filler giving the least slopes
    (PassFailed naming the dependence without a slope)."""
    shallow = any(s.depth < max(t.depth for t in part.statements) for s in part.statements)
    best: StencilGeometry | None = None
    first = ""
    for filler in FILLERS if shallow else (0,):
        levels, coords = stencil_coordinates(part, filler)
        slopes = stencil_slopes(part, deps, coords, technique)
        if isinstance(slopes, str):
            first = first or slopes
            continue
        if best is None or sum(slopes) < sum(best.slopes):
            best = StencilGeometry(levels, coords, slopes)
    if best is None:
        raise PassFailed(first)
    return best
