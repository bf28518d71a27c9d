"""Rectangular tiling of a perfect band: ``tile``.

Shares the band reading and the dependence tests of :mod:`.interchange`.
"""

from __future__ import annotations

from pycparser import c_ast

from passman import Loop, PassFailed, transformation
from passman.astutil import copy_node, replace_child

from ..cfacts.folding import make_int, simplify
from ..cfacts.forms import extreme
from ..cfacts.names import fresh_name, rename_declaration, substitute, taken_names
from .interchange import (
    Band,
    band_dependences,
    band_names,
    describe,
    negative_component,
    perfect_band,
    refuse,
    site_text,
    vector_text,
)


def _extreme(
    e: c_ast.Node, band: Band, k: int, coefs: list[int], names, sizes, low: bool
) -> c_ast.Node:
    """Bound ``e`` of band loop ``k`` with each outer band index replaced by its extreme over a tile.

    Index ``x_m`` of a tile lies in ``[xt_m, xt_m + T_m - 1]``: ``low`` gives a
    value no larger than ``e`` anywhere in the tile, otherwise one no smaller.
    """
    e = copy_node(e)
    for m in range(k):
        c = coefs[m]
        if not c:
            continue
        at_start = (c > 0) == low
        value = (
            c_ast.ID(names[m])
            if at_start
            else c_ast.BinaryOp("+", c_ast.ID(names[m]), make_int(sizes[m] - 1))
        )
        e = substitute(e, band.indices[m], lambda v=value: copy_node(v))
    return simplify(e)


@transformation(scope="loop", preserves=["callgraph"], reads=["dependences", "scops"])
def tile(loop: Loop, *sizes: int) -> None:
    """Tile the band of ``len(sizes)`` loops starting at ``loop`` with rectangular tiles.

    Before (``loop.tile(32, 32)``)::

        for (i = 0; i < n; i++)
            for (j = 0; j < m; j++)
                a[i][j] = b[j][i];

    After::

        for (int it = 0; it < n; it += 32)
            for (int jt = 0; jt < m; jt += 32)
                for (i = it; i < (it + 32 < n ? it + 32 : n); i++)
                    for (j = jt; j < (jt + 32 < m ? jt + 32 : m); j++)
                        a[i][j] = b[j][i];

    Tile loops (new, with fresh indices of the index's type) enclose the point
    loops, which keep the original loops' labels. Partial tiles are clipped
    with a minimum; the minimum is left out when a size divides a constant
    trip count. Triangular bands (bounds affine in enclosing band indices)
    are tiled too: tile loops scan a hull of the band, point loops start at
    ``max(tile start, lower bound)``.

    Legal when the band is fully permutable: every component over the band of
    every dependence distance not carried outside the band is ``>= 0``
    (checked exactly on the distance sets). A single loop (strip-mining) is
    always legal. Refused: bands that are not perfect, not counted loops of
    step 1 or with indices that are not signed integers, indices read after
    the band, bands outside a static control part, sizes below 1.

    Properties:

    - sizes: one tile size per loop of the band, outermost first
    """
    sizes = tuple(sizes)
    if not sizes:
        raise refuse(loop, "cannot tile: no tile sizes given")
    if any(not isinstance(s, int) or s < 1 for s in sizes):
        raise refuse(loop, f"cannot tile: tile sizes {vector_text(sizes)} must be positive integers")
    if all(s == 1 for s in sizes):
        raise refuse(loop, "cannot tile: tiles of size 1 leave the band as it is")
    n = len(sizes)
    band = perfect_band(loop, n, "cannot tile", signed=True)
    if n > 1:
        deps = band_dependences(band, "cannot tile")
        what = f"tiling of {band_names(band, range(n))} in {site_text(band)}"
        if deps is None:
            why = (
                loop.module.resource("scops").reason(loop.label)
                or "a loop of the band is outside it"
            )
            raise PassFailed(
                f"{what} is illegal: dependences unknown, not a static control part ({why})"
            )
        for bd in deps:
            neg = negative_component(bd)
            if neg is not None:
                k, example = neg
                raise PassFailed(
                    f"{what} is illegal: the band is not fully permutable: {describe(bd, example)} "
                    f"has a negative component for {band.indices[k]} (skew the band first)"
                )
    module = loop.module
    taken = taken_names(module.cu.ast.ext)
    names = [fresh_name(f"{x}t", taken) for x in band.indices]
    site = loop.site
    tiles: list[c_ast.For] = []
    for k, cl in enumerate(band.loops):
        f, t, size = cl.node, names[k], sizes[k]
        lo = _extreme(cl.lb, band, k, band.lb_coef[k], names, sizes, low=True)
        hi = _extreme(cl.ub, band, k, band.ub_coef[k], names, sizes, low=False)
        decl = copy_node(band.table.decl_of(cl.index_ref))
        rename_declaration(decl, t)
        decl.init, decl.storage, decl.funcspec, decl.bitsize = lo, [], [], None
        tiles.append(c_ast.For(
            c_ast.DeclList([decl], f.coord),
            c_ast.BinaryOp("<", c_ast.ID(t), hi, f.coord),
            c_ast.Assignment("+=", c_ast.ID(t), make_int(size), f.coord),
            None, f.coord,
        ))  # fmt: skip
        # the point loop
        start = c_ast.ID(t) if not any(band.lb_coef[k]) else extreme(">", c_ast.ID(t), cl.lb)
        end = simplify(c_ast.BinaryOp("+", c_ast.ID(t), make_int(size)))
        trips = cl.trip_count()
        exact = (
            not any(band.lb_coef[k])
            and not any(band.ub_coef[k])
            and trips is not None
            and trips % size == 0
        )
        if not exact:
            end = extreme("<", end, cl.ub)
        if cl.index_decl is not None:
            cl.index_decl.init = start
        else:
            f.init = c_ast.Assignment("=", c_ast.ID(cl.index), start, f.coord)
        f.cond = c_ast.BinaryOp("<", copy_node(cl.index_ref), end, f.coord)
        f.next = c_ast.UnaryOp("p++", c_ast.ID(cl.index), f.coord)
    outer = site.labelled
    for k in range(n - 1):
        tiles[k].stmt = tiles[k + 1]
    tiles[-1].stmt = outer
    replace_child(site.parent, outer, tiles[0])
