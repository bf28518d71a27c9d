"""Loop-nest transformations of perfect bands: ``interchange``, ``skew``, ``unroll_and_jam``.

A *band* is a perfect nest of counted loops (``for (i = lb; i < ub; i++)``,
see :func:`loops.counted_loop`) starting at the receiver: the body of every
loop but the last is exactly the next loop. Inner bounds may be affine in the
indices of enclosing band loops (triangular bands).

Legality is proven with the dependences of the SCoP holding the band
(resource ``dependences``): for each dependence not carried by a loop
outside the band, the set of its (memory-based) distance vectors restricted
to the band is checked exactly with isl. A band outside a static control
part is refused unless the transformation is trivially legal (``skew``,
strip-mining a single loop). Tiling lives in :mod:`.tile` and shares the
helpers here.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast

from passman import Loop, PassFailed, transformation
from passman.astutil import copy_node, replace_child
from passman.lazy import LazyAttribute
from passman.printer import to_c

from ..analysis.liveness import liveness
from ..cfacts.control import only_loop_index
from ..cfacts.folding import make_int, simplify
from ..cfacts.forms import linear_coefficient
from ..cfacts.names import NameTable, where
from ..cfacts.types import TypeEnv
from .counted import (
    CountedLoop,
    body_copies,
    check_invariant_bounds,
    counted_loop,
    main_bound,
    refuse,
    substitute_index,
)

_DT = LazyAttribute("islpy", "dim_type")


# ------------------------------------------------------------------------------ bands


@dataclass
class Band:
    """A perfect band of counted loops with step 1, outermost first."""

    loops: list[CountedLoop]
    table: NameTable
    #: coefficient of the index of band loop m in the lower/upper bound of band loop k: coef[k][m]
    lb_coef: list[list[int]]
    ub_coef: list[list[int]]

    @property
    def indices(self) -> list[str]:
        """The index names, outermost first."""
        return [cl.index for cl in self.loops]

    @property
    def head(self) -> Loop:
        """The outermost loop."""
        return self.loops[0].loop

    def rectangular(self) -> bool:
        """Whether no bound uses another band index."""
        return not any(any(row) for row in self.lb_coef + self.ub_coef)

    def uses(self, k: int, m: int) -> bool:
        """Whether a bound of band loop ``k`` uses the index of band loop ``m``."""
        return bool(self.lb_coef[k][m] or self.ub_coef[k][m])


def only_loop(stmt: c_ast.Node) -> c_ast.Label | None:
    """The labelled loop that is exactly ``stmt`` (possibly in braces), else None."""
    if isinstance(stmt, c_ast.Compound) and stmt.block_items and len(stmt.block_items) == 1:
        stmt = stmt.block_items[0]
    if isinstance(stmt, c_ast.Label) and isinstance(stmt.stmt, c_ast.For):
        return stmt
    return None


def perfect_band(
    loop: Loop, depth: int, verb: str, *, signed: bool = False, live: bool = True
) -> Band:
    """Read the band of ``depth`` loops starting at ``loop``, or refuse.

    ``signed``: refuse indices that are not signed integers (new bounds
    subtract or add offsets that could wrap). ``live``: refuse indices whose
    value may be read outside the loops that initialise them (their exit
    values change).
    """
    module = loop.module
    if depth < 1:
        raise refuse(loop, f"{verb}: a band has at least one loop")
    cls: list[CountedLoop] = []
    cur = loop
    table = None
    for k in range(depth):
        cl = counted_loop(cur, verb)
        if cl.step != 1:
            raise cl.fail(
                f"{verb}: step {cl.step} of {cl.index} is not 1 (normalize the loop first)"
            )
        table = check_invariant_bounds(cl, verb)
        if cl.index in [c.index for c in cls]:
            raise cl.fail(
                f"{verb}: index {cl.index} is also the index of an enclosing loop of the band"
            )
        cls.append(cl)
        if k < depth - 1:
            child = only_loop(cl.node.stmt)
            if child is None:
                raise cl.fail(
                    f"{verb}: the band of {depth} loops is not perfect: the body of loop {cur.label} "
                    f"({cl.index}) is not exactly one loop"
                )
            cur = Loop(module, child.name)
    env = TypeEnv(table, module.cu.ast.ext, module.ast)
    idx = [cl.index for cl in cls]
    lb_coef, ub_coef = [], []
    for k, cl in enumerate(cls):
        rows = []
        for what, e in (("lower bound", cl.lb), ("upper bound", cl.ub)):
            row = []
            for m, name in enumerate(idx):
                c = linear_coefficient(e, name)
                if m >= k and c:
                    raise cl.fail(
                        f"{verb}: {what} {to_c(e)} of {cl.index} uses the index {name} of an inner loop"
                    )
                if c is None:
                    raise cl.fail(f"{verb}: {what} {to_c(e)} of {cl.index} is not affine in {name}")
                row.append(c)
            rows.append(row)
        lb_coef.append(rows[0])
        ub_coef.append(rows[1])
        decl = table.decl_of(cl.index_ref)
        if signed and env.category(decl.type) != "signed":
            raise cl.fail(
                f"{verb}: index {cl.index} is not a signed integer ({env.category(decl.type)})"
            )
        if (
            live
            and cl.index_decl is None
            and not only_loop_index(module.ast, decl, table, loop.site.labelled)
            and _live_after_band(loop, decl, table, env)
        ):
            raise cl.fail(
                f"{verb}: index {cl.index} may be read outside the loops that initialise it, "
                "and its exit value would change"
            )
    for cl in cls[1:]:
        if cl.loop.pragma:
            raise cl.fail(f"{verb}: the loop carries '#pragma {cl.loop.pragma[0]}'")
    if any(p.split()[:1] == ["omp"] for p in loop.pragma):
        raise refuse(loop, f"{verb}: the loop carries '#pragma {loop.pragma[0]}' (remove it first)")
    return Band(cls, table, lb_coef, ub_coef)


def _live_after_band(loop: Loop, decl: object, table: NameTable, env: TypeEnv) -> bool:
    """Whether the value of ``decl`` may be read after the band starting at ``loop``."""
    live = liveness(loop.module.ast, table, env)
    return live.live_after(loop.site.labelled, decl)


# --------------------------------------------------------------------------- legality


@dataclass
class BandDependence:
    """A dependence relevant to a band: its distances over the band's loops."""

    dep: object  # passes.poly.dependences.Dependence
    distances: isl.Set  # over the band loops only (outer components are zero)


def vector_text(v) -> str:
    return "(" + ",".join(str(x) for x in v) + ")"


def band_dependences(band: Band, verb: str) -> list[BandDependence] | None:
    """The dependences not carried outside the band, with distances over the band.

    None when the band is in no static control part.
    """
    loop = band.head
    deps = loop.module.resource("dependences")
    part = deps.scops.for_loop(loop.label)
    if part is None:
        return None
    sl = [part.loop(cl.loop.label) for cl in band.loops]
    if any(s is None for s in sl):
        return None
    depth, n = sl[0].depth, len(sl)
    out = []
    for d in deps.of_scop(part):
        if len(d.loops) < depth + n or d.loops[depth].node is not sl[0].node:
            continue
        if 0 < d.level <= depth:
            continue  # carried by an enclosing loop: the band's order does not matter
        m = len(d.loops)
        rel = d.relation
        na, nb = rel.dim(_DT.in_), rel.dim(_DT.out)
        r = rel.project_out(_DT.in_, m, na - m).project_out(_DT.out, m, nb - m)
        r = r.reset_tuple_id(_DT.in_).reset_tuple_id(_DT.out)
        dist = r.deltas()
        dist = dist.project_out(_DT.set, depth + n, m - depth - n).project_out(_DT.set, 0, depth)
        out.append(BandDependence(d, dist.coalesce()))
    return out


def _constraint(space: isl.Space, k: int, kind: str) -> isl.Constraint:
    if kind == "zero":
        return isl.Constraint.alloc_equality(space).set_coefficient_val(_DT.set, k, 1)
    c = isl.Constraint.alloc_inequality(space).set_coefficient_val(_DT.set, k, -1)
    return c.set_constant_val(-1)  # -x - 1 >= 0: x < 0


def integer_sample(s: isl.Set) -> tuple[int, ...]:
    p = s.sample_point()
    return tuple(p.get_coordinate_val(_DT.set, k).to_python() for k in range(s.dim(_DT.set)))


def lex_negative_after(bd: BandDependence, order: tuple[int, ...]) -> tuple[int, ...] | None:
    """A distance vector of ``bd`` that ``order`` makes lexicographically negative, or None."""
    space = bd.distances.get_space()
    for p in range(len(order)):
        s = bd.distances
        for q in range(p):
            s = s.add_constraint(_constraint(space, order[q], "zero"))
        s = s.add_constraint(_constraint(space, order[p], "neg"))
        if not s.is_empty():
            return integer_sample(s)
    return None


def negative_component(bd: BandDependence) -> tuple[int, tuple[int, ...]] | None:
    """A band position where some distance of ``bd`` is negative, with such a distance."""
    space = bd.distances.get_space()
    for k in range(bd.distances.dim(_DT.set)):
        s = bd.distances.add_constraint(_constraint(space, k, "neg"))
        if not s.is_empty():
            return k, integer_sample(s)
    return None


def describe(bd: BandDependence, example: tuple[int, ...]) -> str:
    """``flow dependence A[i][j] -> A[i - 1][j + 1] with distance (1,-1)`` (the band's components)."""
    d = bd.dep
    dist = vector_text(example) if bd.distances.is_singleton() else f"{vector_text(example)} (among others)"
    return f"{d.kind} dependence {d.source.text} -> {d.sink.text} with distance {dist}"


def band_names(band: Band, positions) -> str:
    return " and ".join(f"{band.loops[k].loop.label} ({band.loops[k].index})" for k in positions)


def site_text(band: Band) -> str:
    return f"{band.head.module.name} ({where(band.head.node)})"


def check_permutation(band: Band, order: tuple[int, ...], what: str) -> None:
    """Refuse unless permuting the band by ``order`` keeps every dependence."""
    deps = band_dependences(band, what)
    if deps is None:
        raise PassFailed(
            f"{what} in {site_text(band)} is illegal: dependences unknown, "
            f"not a static control part ({band.head.module.resource('scops').reason(band.head.label)})"
        )
    for bd in deps:
        bad = lex_negative_after(bd, order)
        if bad is not None:
            after = tuple(bad[k] for k in order)
            raise PassFailed(
                f"{what} in {site_text(band)} is illegal: {describe(bd, bad)} would become {vector_text(after)}"
            )


# -------------------------------------------------------------------------- interchange


@transformation(scope="loop", preserves=["callgraph"], reads=["dependences", "scops", "unit_scope"])
def interchange(loop: Loop, order: tuple[int, ...] = ()) -> None:
    """Permute the loops of a perfect band starting at ``loop``.

    Before (``order=()`` swaps ``loop`` with its only child loop)::

        for (i = 0; i < n; i++)
            for (j = 0; j < m; j++)
                a[j][i] = b[j][i];

    After::

        for (j = 0; j < m; j++)
            for (i = 0; i < n; i++)
                a[j][i] = b[j][i];

    ``order`` lists, outermost first, the band position (0 = ``loop``) of the
    loop placed at each depth: ``(2, 0, 1)`` moves the third loop of a 3-deep
    band outermost. Labels move with their loops. Triangular bounds are kept
    where every loop still encloses the loops whose bounds use its index.

    Legal when every dependence's distance vector over the band, permuted,
    stays lexicographically positive (checked exactly on the distance sets).
    Refused: bands that are not perfect or not counted loops of step 1,
    permutations that would need new bounds, bands outside a static control
    part, indices whose exit value is read later.

    Properties:

    - order: the permutation (default ``()``: swap the two outermost loops)
    """
    order = tuple(order) if order else (1, 0)
    n = len(order)
    if sorted(order) != list(range(n)):
        raise refuse(loop, f"cannot interchange: order {order} is not a permutation of 0..{n - 1}")
    if order == tuple(range(n)):
        raise refuse(loop, f"cannot interchange: order {order} leaves the band as it is")
    band = perfect_band(loop, n, "cannot interchange")
    for p in range(n):
        for q in range(p + 1, n):
            inner, outer = order[p], order[q]  # loop at depth p, loop at deeper depth q
            if band.uses(inner, outer):
                cl, other = band.loops[inner], band.loops[outer]
                raise cl.fail(
                    f"cannot interchange: the bounds of {cl.index} use {other.index}, "
                    f"which would no longer enclose it"
                )
    what = f"interchange of {band_names(band, range(n))}"
    check_permutation(band, order, what)
    site = loop.site
    labelled = [cl.loop.site.labelled for cl in band.loops]
    body = band.loops[-1].node.stmt
    for p in range(n - 1):
        labelled[order[p]].stmt.stmt = labelled[order[p + 1]]
    labelled[order[-1]].stmt.stmt = body
    replace_child(site.parent, site.labelled, labelled[order[0]])  # pragmas stay on the outermost


# --------------------------------------------------------------------------------- skew


def _times(k: int, name: str) -> c_ast.Node:
    return c_ast.ID(name) if k == 1 else c_ast.BinaryOp("*", make_int(k), c_ast.ID(name))


def _plus(e: c_ast.Node, k: int, name: str) -> c_ast.Node:
    """``e + k*name`` (``e - |k|*name`` for negative k)."""
    if k == 0:
        return e
    return simplify(c_ast.BinaryOp("+" if k > 0 else "-", copy_node(e), _times(abs(k), name)))


@transformation(scope="loop", preserves=["callgraph"], reads=["unit_scope"])
def skew(loop: Loop, factor: int = 1) -> None:
    """Skew the child loop of ``loop`` by ``factor`` times ``loop``'s index.

    Before::

        for (i = 1; i < n; i++)
            for (j = 0; j < n - 1; j++)
                A[i][j] = A[i - 1][j + 1] + A[i][j - 1];

    After (``factor=1``; ``j`` now stands for ``j + i``)::

        for (i = 1; i < n; i++)
            for (j = i; j < n - 1 + i; j++)
                A[i][j - i] = A[i - 1][j - i + 1] + A[i][j - i - 1];

    A unimodular change of basis of a perfect 2-loop band, so always legal:
    dependence distances ``(d1, d2)`` become ``(d1, d2 + factor*d1)``, which
    makes a band with distances ``(1, -1)`` fully permutable (tileable).
    Refused: bands that are not perfect 2-deep nests of counted loops of
    step 1, bounds of the child loop that are not affine in ``loop``'s index,
    a factor of 0, an index that is not a signed integer or whose exit value
    is read after the loop.

    Properties:

    - factor: the skewing factor (default 1)
    """
    if factor == 0:
        raise refuse(loop, "cannot skew: factor 0 leaves the band as it is")
    band = perfect_band(loop, 2, "cannot skew", signed=True)
    outer, inner = band.loops
    i, j = outer.index, inner.index
    f = inner.node
    lb, ub = _plus(inner.lb, factor, i), _plus(inner.ub, factor, i)
    if inner.index_decl is not None:
        inner.index_decl.init = lb
    else:
        f.init = c_ast.Assignment("=", c_ast.ID(j), lb, f.coord)
    f.cond = c_ast.BinaryOp("<", c_ast.ID(j), ub, f.coord)
    value = c_ast.BinaryOp("-" if factor > 0 else "+", c_ast.ID(j), _times(abs(factor), i))
    f.stmt = substitute_index(f.stmt, j, value)


# ------------------------------------------------------------------------ unroll and jam


@transformation(scope="loop", preserves=["callgraph"], reads=["dependences", "scops", "unit_scope"])
def unroll_and_jam(loop: Loop, factor: int = 2) -> None:
    """Unroll the outer loop of a 2-deep perfect nest by ``factor`` and fuse the inner copies.

    Before (by 2)::

        for (i = 0; i < n; i++)
            for (j = 0; j < m; j++)
                c[i] += a[i][j] * b[j];

    After::

        for (i = 0; i < 2 * (n / 2); i += 2)
            for (j = 0; j < m; j++) {
                c[i] += a[i][j] * b[j];
                c[i + 1] += a[i + 1][j] * b[j];
            }
        for (; i < n; i++)
            for (j = 0; j < m; j++)
                c[i] += a[i][j] * b[j];

    Legal when interchanging the two loops would be (no dependence with
    direction ``(<, >)``). Refused also when the inner bounds depend on the
    outer index, and as ``unroll`` refuses.

    Properties:

    - factor: number of copies of the inner body per iteration of the outer loop (default 2)
    """
    if factor < 2:
        raise refuse(loop, f"cannot unroll and jam: factor {factor} leaves the loop as it is")
    band = perfect_band(loop, 2, "cannot unroll and jam", live=False)
    outer, inner = band.loops
    if band.uses(1, 0):
        raise inner.fail(f"cannot unroll and jam: the bounds of {inner.index} use {outer.index}")
    if outer.index_decl is not None:
        raise outer.fail(
            f"cannot unroll and jam: index {outer.index} is declared in the loop "
            "(the epilogue needs it; declare it before the loop)"
        )
    check_permutation(band, (1, 0), f"unroll and jam of {band_names(band, (0, 1))}")
    site = loop.site
    o = outer.node
    bound, trips = main_bound(outer, factor)
    epilogue = None
    if trips is None or trips % factor:
        epilogue = c_ast.For(None, copy_node(o.cond), copy_node(o.next), copy_node(o.stmt), o.coord)
    inner_for = inner.node
    copies = body_copies(
        inner_for.stmt, outer.index, [None] + [outer.offset(k) for k in range(1, factor)]
    )
    inner_for.stmt = c_ast.Compound(copies, inner_for.stmt.coord)
    o.cond = c_ast.BinaryOp("<", c_ast.ID(outer.index), bound, o.coord)
    o.next = c_ast.Assignment("+=", c_ast.ID(outer.index), make_int(factor), o.coord)
    if epilogue is not None:
        replace_child(site.parent, site.labelled, [site.labelled, epilogue])
