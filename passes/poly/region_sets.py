"""The set algebra of convex array regions: over- and under-approximations together.

A :class:`Reg` is what the region analysis knows about the elements of one
variable accessed by a statement: ``over`` contains every element that may
be accessed (MAY), ``under`` only elements certainly accessed (MUST), and
``exact`` tells that the two are equal. Both are isl sets over the
variable's index space (``PHI1..PHIn``; no dimension for a scalar) whose
parameters are program variables, valued in the store before the
statement.

Regions are *convex*, as in PIPS: a union that is not convex is replaced
by its convex hull, and the region is no longer exact (``for (i...) if
(i != 3) a[i] = 0`` writes the MAY region ``{0 <= PHI1 <= n-1}``). The
under-approximation may stay a (small) union. A region may allow itself a
few convex pieces instead (:attr:`Reg.pieces`): IN regions do
(:data:`IN_PIECES`), since what they lose is copied to the device. The
kernel ``z[i] = y[i] + alpha * y[k - i - 1]`` imports ``{PHI1 == i} ∪
{PHI1 == k - i - 1}``, whose convex hull (in the space of ``i, k`` and
``PHI1``) is every element; over ``0 <= i < k`` the union is ``0..k-1``.
Every operation keeps the ``pieces`` of its operands (the larger of two).

All functions return new values; nothing is mutated.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

import islpy as isl

from passman.lazy import LazyAttribute

from .affine import (
    convex_hull,
    hard,
    involves_param,
    operation_budget,
    param_names,
    project_out_params,
    rename_param,
)

_DT = LazyAttribute("islpy", "dim_type")
_MAX_UNDER = 3

#: convex pieces an IN region (and the OUT regions built from it) may keep rather than its hull
IN_PIECES = 3


@dataclass(frozen=True)
class Reg:
    """The elements of one variable a statement accesses (see the module docstring)."""

    over: isl.Set
    under: isl.Set
    exact: bool
    #: convex pieces ``over`` may keep where their convex hull would add elements (1: convex)
    pieces: int = 1


def exact(s: isl.Set, pieces: int = 1) -> Reg:
    """A region known exactly."""
    return Reg(s, s, True, pieces)


def may(s: isl.Set, pieces: int = 1) -> Reg:
    """A region known only as an over-approximation."""
    return Reg(s, isl.Set.empty(s.get_space()), False, pieces)


def with_pieces(r: Reg, pieces: int) -> Reg:
    """``r``, allowed ``pieces`` convex pieces from now on (an IN region from a READ one)."""
    return Reg(r.over, r.under, r.exact, pieces)


#: seconds one region analysis of a function spends on exact set operations; past them,
#: differences and hulls are coarse (still sound) over-approximations
REGION_SECONDS = 3.0

#: end times of the :func:`time_limit` blocks in force (the earliest counts)
_ends: list[float] = []


@contextmanager
def time_limit(seconds: float = REGION_SECONDS) -> Iterator[None]:
    """Within the block, once ``seconds`` have passed, :func:`minus` and hulls answer coarsely.

    Each isl call is bounded by its operation budget, but a function with
    hundreds of accesses makes hundreds of them: past the limit a difference
    keeps its first operand (``over``; nothing certain), a hull is isl's
    simple hull. Both over-approximate, so the analyses stay sound; they
    only see less.
    """
    end = time.monotonic() + seconds
    _ends.append(min(end, _ends[-1]) if _ends else end)
    try:
        yield
    finally:
        _ends.pop()


def late() -> bool:
    """Whether the :func:`time_limit` in force is spent (the analyses then answer coarsely)."""
    return bool(_ends) and time.monotonic() > _ends[-1]


#: hulls already computed, by the text of the set (analyses of one function meet the same
#: union many times: 15 times one 0.4 s hull in fuzz case timeout_39bc0ad2)
_HULLS: dict[str, isl.Set] = {}
_MAX_HULLS = 4096


def _hull(s: isl.Set) -> tuple[isl.Set, bool]:
    """``(convex set containing s, whether it equals s)``.

    The convex hull, as PIPS computes it (:func:`.affine.convex_hull`, from
    the dual for small unions); it can be costly on sets with existential
    variables or many parameters, so it runs under an operation budget and
    falls back to the (cheaper, coarser) simple hull,
    as it does at once when the :func:`time_limit` is spent. A scalar's
    region (no dimension: only conditions on the parameters) gets the simple
    hull too: the convex hull of 12 pieces over the 4 parameters of tiled
    code took 0.5 s, 42 times in one pass (fuzz case timeout_5b7ce08b), and
    what it would add is a condition on when the scalar is accessed. So does
    a set with coefficients past :data:`.affine.HARD_COEFFICIENT`: the hull of
    3 pieces with coefficients up to 70 took 2.5 s (fuzz seed 70240).
    """
    s = s.coalesce()
    if s.n_basic_set() <= 1:
        return s, True
    src = s.remove_divs() if s.involves_locals() else s
    if late() or src.n_basic_set() > MAX_HULL_PIECES or src.dim(_DT.set) == 0 or hard(src):
        return isl.Set.from_basic_set(src.simple_hull()).coalesce(), False
    key = str(src)
    if key not in _HULLS:
        if len(_HULLS) >= _MAX_HULLS:
            _HULLS.clear()
        h = bounded(lambda: convex_hull(src))
        _HULLS[key] = isl.Set.from_basic_set(h if h is not None else src.simple_hull())
    h = _HULLS[key]
    same = bounded(lambda: h.is_subset(s))
    return h.coalesce(), bool(same)


#: pieces of a union beyond which its convex hull is not tried (the simple hull is used):
#: isl checks its operation budget too rarely inside the convex hull, and one hull of 28
#: pieces in 3 dimensions took 3 s (fuzz seed 50681)
MAX_HULL_PIECES = 16

#: isl operations allowed to one potentially costly call before its fallback is used
OPERATION_BUDGET = 200_000


def bounded(fn):
    """``fn()`` under isl's operation budget; None if it ran out."""
    try:
        with operation_budget(OPERATION_BUDGET):
            return fn()
    except isl.Error:
        return None


def _trim(s: isl.Set) -> isl.Set:
    s = s.coalesce()
    if s.n_basic_set() <= _MAX_UNDER:
        return s
    pieces = s.get_basic_sets()[:_MAX_UNDER]
    out = isl.Set.from_basic_set(pieces[0])
    for b in pieces[1:]:
        out = out.union(isl.Set.from_basic_set(b))
    return out


def convex(r: Reg) -> Reg:
    """``r`` with a convex ``over`` (hull, no longer exact if the hull adds elements).

    A region allowed several pieces (:attr:`Reg.pieces`) keeps ``over`` as it is
    when it has no more pieces than that (once coalesced): exact stays exact.
    """
    o, same = _pieces(r.over, r.pieces)
    u = _trim(r.under)
    if r.exact and same and u.n_basic_set() == r.under.coalesce().n_basic_set():
        return Reg(o, u, True, r.pieces)
    return Reg(o, u, False, r.pieces)


def _pieces(s: isl.Set, pieces: int) -> tuple[isl.Set, bool]:
    """``(s, True)`` when ``s`` has at most ``pieces`` convex pieces, else its hull (:func:`_hull`)."""
    if pieces > 1 and not late():
        c = s.coalesce()
        if c.n_basic_set() <= pieces:
            return c, True
    return _hull(s)


def union(a: Reg, b: Reg) -> Reg:
    """Elements accessed by one statement and the other (both execute)."""
    r = convex(Reg(a.over.union(b.over), a.under.union(b.under), a.exact and b.exact, max(a.pieces, b.pieces)))
    if not r.exact and not r.under.is_empty() and r.over.is_subset(r.under):
        return Reg(r.over, r.under, True, r.pieces)
    return r


def alternative(a: Reg | None, b: Reg | None, space: isl.Space) -> Reg:
    """Elements accessed by one of two statements, not knowing which runs."""
    if a is None or b is None:
        one = a or b
        return Reg(one.over, isl.Set.empty(space), False, one.pieces)
    o = a.over.union(b.over)
    u = a.under.intersect(b.under)
    ex = a.exact and b.exact and a.over.is_equal(b.over)
    return convex(Reg(o, u, ex, max(a.pieces, b.pieces)))


def restrict(r: Reg, cond: isl.Set) -> Reg:
    """``r`` where the parameter condition ``cond`` holds (an affine test)."""
    return convex(Reg(r.over.intersect_params(cond), r.under.intersect_params(cond), r.exact, r.pieces))


def minus(a: Reg, b: Reg, hull: bool = True) -> Reg:
    """Elements of ``a`` not in ``b`` (``over - b.under``, ``under - b.over``).

    ``hull=False`` keeps the difference exact (possibly not convex), for a
    caller that projects before making it convex (a loop's IN regions).
    """
    if late():  # past the time limit: all of ``a`` may remain, none of it surely
        return convex(Reg(a.over, isl.Set.empty(a.under.get_space()), False, a.pieces))
    o, o_exact = _difference(a.over, b.under, over=True)
    u, u_exact = _difference(a.under, b.over, over=False)
    r = Reg(o, u, a.exact and b.exact and o_exact and u_exact, a.pieces)
    return convex(r) if hull else r


#: pieces of a difference beyond which it is not coalesced (coarse answer instead): one
#: difference of 312 pieces took 14 s to coalesce (fuzz case timeout_eb3c3cbd)
MAX_DIFFERENCE_PIECES = 64


def _difference(x: isl.Set, y: isl.Set, over: bool) -> tuple[isl.Set, bool]:
    """``(x - y, exact)``: a sound approximation of it when the exact one may take unbounded time.

    ``over``: the result may be larger (an over-approximation: ``y`` may shrink, to nothing);
    else smaller (``y`` may grow: its existential variables are dropped, which only enlarges it).
    The exact difference with a ``y`` whose existential variables have large coefficients
    (hulls of projected regions) splits into hundreds of pieces; with such an ``x`` it may take
    seconds: ``x`` itself (``over``) or nothing is the answer then.
    """
    exact = True
    if x.involves_locals() and hard(x):  # isl may take seconds on one such difference (5.7 s in
        # fuzz case timeout_hard_difference), unbounded by its operation budget: x - y lies in x
        return (x if over else isl.Set.empty(x.get_space())), False
    if y.involves_locals() and hard(y):
        if over:
            return x, False
        y, exact = y.remove_divs(), False
    # under the operation budget: strided regions (j += 2 against 2 * i + 1) made one difference
    # take over 20 s (fuzz case timeout_strided_difference)
    d = bounded(lambda: x.subtract(y))
    if d is None or d.n_basic_set() > MAX_DIFFERENCE_PIECES:
        return (x if over else isl.Set.empty(x.get_space())), False
    done = bounded(d.coalesce)
    return (d if done is None else done), exact


def intersect(a: Reg, b: Reg) -> Reg:
    """Elements in both."""
    return convex(Reg(a.over.intersect(b.over), a.under.intersect(b.under), a.exact and b.exact,
                      max(a.pieces, b.pieces)))


def forget(r: Reg, names: Iterable[str]) -> Reg:
    """``r`` for any value of the named program variables (they changed, or are unknown)."""
    names = [n for n in names if involves_param(r.over, n) or involves_param(r.under, n)]
    if not names:
        return r
    o = project_out_params(r.over, names).coalesce()
    involved = any(involves_param(r.under, n) for n in names)
    u = isl.Set.empty(r.under.get_space()) if involved else r.under
    u = project_out_params(u, names)
    return convex(Reg(o, u, r.exact and not involved and o.is_equal(u), r.pieces))


def project(r: Reg, name: str, domain: isl.Set, domain_exact: bool) -> Reg:
    """The union over the values of ``name`` in ``domain`` (a loop over its iterator).

    ``domain`` is a parameter set; the under-approximation survives when
    every value in ``domain`` certainly occurs (``domain_exact``).
    """
    if late():  # past the time limit: forget what involves ``name`` (no projection), none surely
        o = _forget_param(r.over, name)
        return Reg(o, isl.Set.empty(o.get_space()), False, r.pieces)
    o = project_out_params(r.over.intersect_params(domain), [name]).coalesce()
    if domain_exact:
        u = project_out_params(r.under.intersect_params(domain), [name])
        return convex(Reg(o, u, r.exact, r.pieces))
    return convex(Reg(o, isl.Set.empty(o.get_space()), False, r.pieces))


def _forget_param(s: isl.Set, name: str) -> isl.Set:
    """A superset of ``s`` that does not involve parameter ``name`` (its constraints dropped)."""
    k = s.find_dim_by_name(_DT.param, name)
    if k < 0:
        return s
    return s.drop_constraints_involving_dims(_DT.param, k, 1).project_out(_DT.param, k, 1)


def substitute(r: Reg, name: str, value: isl.PwAff, tmp: str = "__post") -> Reg:
    """``r`` (valued after ``name = value``) valued before the assignment."""
    if not (involves_param(r.over, name) or involves_param(r.under, name)):
        return r
    eq = pw_equals(tmp, value)

    def sub(s: isl.Set) -> isl.Set:
        s = rename_param(s, name, tmp)
        return project_out_params(s.intersect_params(eq), [tmp]).coalesce()

    return convex(Reg(sub(r.over), sub(r.under), r.exact, r.pieces))


def pw_equals(name: str, value: isl.PwAff) -> isl.Set:
    """The parameter set ``{ name == value }`` (``value`` over a 0-dimensional space)."""
    sp = value.get_domain_space()
    sp = sp.add_dims(_DT.param, 1).set_dim_name(_DT.param, sp.dim(_DT.param), name)
    var = isl.PwAff.from_aff(isl.Aff.var_on_domain(isl.LocalSpace.from_space(sp), _DT.param, sp.dim(_DT.param) - 1))
    return var.eq_set(value).params()


def bind(r: Reg, bindings: Mapping[str, isl.PwAff | None], prefix: str = "__f") -> Reg:
    """Replace parameters by values (a call site: formal -> actual); None forgets it.

    Every name is renamed first, so the values may mention the same names
    (the caller's ``n`` is not the callee's ``n``).
    """
    todo = [n for n in bindings if involves_param(r.over, n) or involves_param(r.under, n)]
    if not todo:
        return r
    tmp = {n: f"{prefix}{k}" for k, n in enumerate(todo)}
    eqs = None
    exact_ok = True
    for n in todo:
        v = bindings[n]
        if v is None:
            exact_ok = exact_ok and not involves_param(r.under, n)
            continue
        e = pw_equals(tmp[n], v)
        eqs = e if eqs is None else eqs.intersect(e)

    def sub(s: isl.Set) -> isl.Set:
        for n in todo:
            s = rename_param(s, n, tmp[n])
        if eqs is not None:
            s = s.intersect_params(eqs)
        return project_out_params(s, tmp.values()).coalesce()

    o = sub(r.over)
    u = sub(r.under) if exact_ok else isl.Set.empty(o.get_space())
    return convex(Reg(o, u, r.exact and exact_ok, r.pieces))


_COMPONENTS: dict[int, tuple[isl.Set, dict[str, str]]] = {}


def relevant(pre: isl.Set, seeds: Iterable[str]) -> isl.Set:
    """The part of a precondition connected to the named variables (others projected out).

    Two variables are connected when a constraint mentions both; keeping
    the component of the seeds keeps every fact that can bound them.
    """
    names = param_names(pre)
    if not names:
        return pre
    hit = _COMPONENTS.get(id(pre))
    if hit is None or hit[0] is not pre:
        hit = (pre, _components(pre, names))
        if len(_COMPONENTS) > 4096:
            _COMPONENTS.clear()
        _COMPONENTS[id(pre)] = hit
    roots = hit[1]
    keep = {roots[s] for s in seeds if s in roots}
    drop = [n for n in names if roots[n] not in keep]
    return project_out_params(pre, drop) if drop else pre


def _components(pre: isl.Set, names: list[str]) -> dict[str, str]:
    """Each parameter's representative: parameters linked by constraints share one."""
    parent = {n: n for n in names}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for b in pre.get_basic_sets():
        for c in b.get_constraints():
            inv = [names[k] for k in range(len(names)) if not c.get_coefficient_val(_DT.param, k).is_zero()]
            for x in inv[1:]:
                parent[find(x)] = find(inv[0])
        for k in range(b.dim(_DT.div)):
            div = b.get_div(k)
            inv = [names[j] for j in range(len(names)) if not div.get_coefficient_val(_DT.param, j).is_zero()]
            for x in inv[1:]:
                parent[find(x)] = find(inv[0])
    return {n: find(n) for n in names}


def convex_precondition(pre: isl.Set) -> isl.Set:
    """A convex set containing a precondition (so that sharpened regions stay convex)."""
    if pre.n_basic_set() <= 1:
        return pre
    h, _ = _hull(pre)
    return h


def sharpen(r: Reg, pre: isl.Set) -> Reg:
    """``r`` intersected with what a (convex) precondition says about its variables."""
    seeds = set(param_names(r.over)) | set(param_names(r.under))
    seeds = {s for s in seeds if involves_param(r.over, s) or involves_param(r.under, s)}
    if not seeds:
        return r
    p = relevant(pre, seeds)
    if p.plain_is_universe():
        return r
    return Reg(r.over.intersect_params(p).coalesce(), r.under.intersect_params(p).coalesce(), r.exact, r.pieces)
