"""Convex array regions (Creusillet & Irigoin; Amini 2012 §3.2): READ, WRITE, IN, OUT.

For every statement (leaves, loops, tests, blocks, the function body) and
every variable it accesses, the set of elements read and written, as an isl
set over the variable's index space ``PHI1..PHIn`` whose parameters are
program variables valued in the store *before* the statement. Each region
is tagged **EXACT**, **MAY** (an over-approximation) or, for the
under-approximations the analysis also keeps (:attr:`Region.must`),
**MUST**. Before (the FIR kernel of Amini 2012, Fig. 3.4)::

    void kernel(int i, int n, int k, int src[n], int dst[n - k + 1], int m[k])
    {
        int j, v = 0;
        for (j = 0; j < k; j++)
            v += src[i + j] * m[j];
        dst[i] = v;
    }

After (``module.display("regions")``, on the loop)::

    // <m[PHI1]-R-EXACT-{0<=PHI1<=k-1}>
    // <src[PHI1]-R-EXACT-{i<=PHI1<=i+k-1}>
    // <v-R-EXACT-{}> <v-W-EXACT-{1<=k}> ...

Resources (module scope; see :class:`Regions` and :class:`SummaryRegions`):

* ``regions``: READ and WRITE regions of every statement;
* ``in_regions``: elements a statement imports (reads before any write of
  its own): ``IN(s1; s2) = IN(s1) ∪ (IN(s2) − W_must(s1))``, and over a
  loop, each iteration's IN minus what earlier iterations certainly wrote;
* ``out_regions``: elements a statement writes that the rest of the
  function may read, or that outlive the call (formals' pointees, globals,
  static locals; this analysis does not look into callers);
* ``summary_regions`` (READ, WRITE) and ``summary_in_regions`` (IN): the
  regions of a function on its formals' pointees and globals, in the
  values of the formals at entry;
  at a call site they are translated: scalar formal -> actual expression,
  array formal -> the actual array, with the offsets of ``&A[i][0]``,
  ``A[i]``, ``A + k`` and checks of VLA dimensions, and intersected with the
  call site's precondition (so the FIR call inside ``for (i = 0; i <= n -
  k; i++)`` reads ``src[PHI1]`` with ``i<=PHI1<=i+k-1, 0<=i<=n-k``).

Where approximation comes from: a non-convex union (convex hull; IN and
OUT regions keep up to :data:`region_sets.IN_PIECES` convex pieces first), a
subscript that is not affine (the whole declared extent), a condition
that is not affine, a loop whose bounds are not affine or that may exit
early, variables modified in a loop or unknown after a statement
(projected out), calls to unknown functions (every array reachable from
the arguments, and ``*anywhere*``: any global or memory behind a pointer,
read and written, MAY), pointers that may designate several arrays (the
conservative points-to of ``proper_effects``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import islpy as isl
from pycparser import c_ast

from passman import Module, analysis
from passman.lazy import LazyAttribute

from . import region_sets as rs
from .region_values import FormalInfo, Region, Regions, SummaryRegions
from .region_walk import ANYWHERE, VarInfo, Walker

_DT = LazyAttribute("islpy", "dim_type")


def _regions_of(walker: Walker, foot: Mapping[str, rs.Reg], mode: str) -> tuple[Region, ...]:
    out = []
    for key in sorted(foot, key=lambda k: (walker.vars[k].var, k)):
        r = foot[key]
        if r.over.is_empty():
            continue
        v: VarInfo = walker.vars[key]
        out.append(Region(v.var, key, mode, v.rank, r.over, r.under, r.exact, walker.names))
    return tuple(out)


# ------------------------------------------------------------------------- hull


def rectangular_hull(region: Region) -> list[tuple[c_ast.Node | None, c_ast.Node | None]]:
    """Per dimension, C expressions of the lowest and highest index of a region.

    Bounds are in terms of program variables (C names), valid in the store
    before the region's statement; None where unbounded. Min/max show up as
    ``?:``, floor divisions as C divisions guarded for the sign. The hull
    contains the region; it equals it only for a box (then transfers of the
    hull are exact).
    """
    from .c_expr import dim_bounds_to_c

    return [dim_bounds_to_c(region.set, k, region.names) for k in range(region.rank)]


def hull_is_exact(region: Region) -> bool:
    """Whether a region is exactly its rectangular hull (an exact box: transfers lose nothing)."""
    if not region.exact or region.rank == 0:
        return region.exact
    return set_is_box(region.set)


def set_is_box(s: isl.Set) -> bool:
    """Whether ``s`` is the box of its per-dimension intervals (for every value of the parameters)."""
    rank = s.dim(_DT.set)
    if rank == 0:
        return True
    box = None
    for k in range(rank):
        proj = s.project_out(_DT.set, k + 1, rank - k - 1).project_out(_DT.set, 0, k)
        # an interval: {0, 2} (a stride) projects onto itself but its hull is 0..2
        proj = isl.Set.from_basic_set(proj.polyhedral_hull()) if not proj.is_empty() else proj
        box = proj if box is None else box.flat_product(proj)
    return box.set_tuple_name(s.get_tuple_name()).is_equal(s)


# --------------------------------------------------------------------- resources


def _display_lines(regions: tuple[Region, ...]) -> list[str]:
    return [r.text() for r in regions]


def _display(module: Module, value: Regions) -> dict:
    out: dict[c_ast.Node, list[str]] = {}
    for node, regs in value.table.values():
        if isinstance(node, (c_ast.Compound, c_ast.Label, c_ast.Case, c_ast.Default)) or not regs:
            continue
        out[node] = _display_lines(regs)
    body = value.of(value.body)
    if body:
        out[module.ast] = [f"{value.kind} of {value.function}:"] + _display_lines(body)
    return out


def _walker(module: Module) -> Walker:
    return module.resource("region_analysis")


@analysis(scope="module", provides="region_analysis", requires=["preconditions"], reads=["function_references", "function_scope", "poly_facts", "proper_effects", "region_analysis", "summary_effects", "summary_regions"])
def region_analysis(module: Module) -> Walker:
    """Internal: the READ and WRITE region analysis of one function (footprints per statement).

    ``regions`` and ``summary_regions`` are views of it.
    """
    w = Walker(module)
    w.run()
    return w


@analysis(scope="module", provides="in_region_analysis", requires=["preconditions"], reads=["function_references", "function_scope", "in_region_analysis", "poly_facts", "proper_effects", "region_analysis", "summary_effects", "summary_in_regions", "summary_regions"])
def in_region_analysis(module: Module) -> Walker:
    """Internal: the region analysis with IN regions (for ``in_regions``, ``out_regions``).

    IN regions cost about a third more than READ/WRITE alone, so they are
    computed only when asked for; callees then provide ``summary_in_regions``.
    """
    w = Walker(module, with_in=True)
    w.run()
    return w


def _labels(module: Module) -> dict[str, c_ast.Node]:
    from passman.loop import iter_sites, loop_sites

    return {site.label: site.node for site in iter_sites(loop_sites(module.ast))}


@analysis(scope="module", provides="regions", requires=["region_analysis"], display=_display)
def regions(module: Module) -> Regions:
    """READ and WRITE convex array regions of every statement (see :mod:`passes.poly.regions`).

    Before: ``for (i = 0; i < n; i++) if (i != 3) a[i] = 0;``
    After:  ``// <a[PHI1]-W-MAY-{0<=PHI1<=n-1}>`` on the loop
    """
    w = _walker(module)
    table = {}
    for key, (node, foot) in w.table.items():
        table[key] = (node, _regions_of(w, foot.r, "R") + _regions_of(w, foot.w, "W"))
    return Regions(module.name, "regions", MappingProxyType(table), module.ast.body,
                   MappingProxyType(_labels(module)))


@analysis(scope="module", provides="in_regions", requires=["in_region_analysis"], display=_display)
def in_regions(module: Module) -> Regions:
    """IN regions: what each statement reads before writing it itself.

    Before: ``t = a[0]; a[0] = 1; b = a[0];``
    After:  the block imports ``a[0]`` once (the second read is covered by the write)
    """
    w = module.resource("in_region_analysis")
    table = {k: (node, _regions_of(w, foot.i, "IN")) for k, (node, foot) in w.table.items()}
    return Regions(module.name, "in_regions", MappingProxyType(table), module.ast.body,
                   MappingProxyType(_labels(module)))


@analysis(scope="module", provides="out_regions", requires=["in_region_analysis"], display=_display)
def out_regions(module: Module) -> Regions:
    """OUT regions: what each statement writes that is used afterwards or outlives the call.

    Before: ``for (...) tmp[i] = a[i]; for (...) b[i] = tmp[i];`` (``tmp`` local)
    After:  the first loop exports ``tmp``, the second ``b``, nothing exports ``tmp`` out of the body
    """
    w = module.resource("in_region_analysis")
    outs = w.out_regions()
    table = {k: (node, _regions_of(w, foot, "OUT")) for k, (node, foot) in outs.items()}
    return Regions(module.name, "out_regions", MappingProxyType(table), module.ast.body,
                   MappingProxyType(_labels(module)))


def _display_summary(module: Module, value: SummaryRegions) -> dict:
    return {module.ast: [r.text() for r in value.regions]} if value.regions else {}


@analysis(scope="module", provides="summary_regions", requires=["region_analysis"], display=_display_summary)
def summary_regions(module: Module) -> SummaryRegions:
    """READ and WRITE regions of a function on its formals and globals, for call sites.

    Before: ``void k(int i, int k, int src[], ...) { for (j = 0; j < k; j++) v += src[i + j]; }``
    After:  ``// <src[PHI1]-R-EXACT-{i<=PHI1<=i+k-1}>``
    """
    w = _walker(module)
    return w.summary(("R", "W"))


@analysis(scope="module", provides="summary_in_regions", requires=["in_region_analysis"],
          display=_display_summary)
def summary_in_regions(module: Module) -> SummaryRegions:
    """IN regions of a function on its formals and globals: what a call imports.

    Before: ``void f(int n, double a[n]) { a[0] = 1; s = a[0] + a[1]; }``
    After:  ``// <a[PHI1]-IN-EXACT-{PHI1==1}>``
    """
    return module.resource("in_region_analysis").summary(("IN",))


__all__ = [
    "ANYWHERE", "FormalInfo", "Region", "Regions", "SummaryRegions", "hull_is_exact", "in_regions",
    "out_regions", "rectangular_hull", "regions", "summary_in_regions", "summary_regions",
]
