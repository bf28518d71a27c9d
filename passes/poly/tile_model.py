"""Tile sizes of time tiles from a model: footprint against the caches (Di 2013, ch. 5, CPU analogue).

Di chooses GPU tile sizes by predicting each candidate's run time from its
data-reuse rate ``D = instances / memory accesses`` under the constraint that
its footprint fits in shared memory. On a CPU the shared memory is the
private cache of a core: a tile whose footprint fits in it reads its data
from memory once and reuses it over the tile's time steps. For each
candidate size vector (powers of two) this module computes

* the tile's footprint: for every array, the bounding box of the elements
  the instances of one full tile access, times the element size (isl on
  the tile of the hyperplane rows, no parameter needed);
* its instances: ``statements * prod(sizes) / |det(rows)|`` (the lattice
  points of a box of the transformed space);

and keeps the candidate with the highest reuse (instances per byte) whose
footprint fits in :data:`CACHE_FRACTION` of the per-core cache it targets
(L2 by default, read from ``/sys/devices/system/cpu/cpu0/cache``, else
``os.sysconf``), and, where the extent of the tiled dimensions is known, with
at least :data:`MIN_TILES_PER_FRONT` tiles per wavefront per thread.
Ties go to the larger tile (fewer tasks). Before::

    choose_sizes(part, rows, caches=Caches(l1=48 << 10, l2=2 << 20, l3=0))

After (jacobi-2d, diamond rows ``2t+i``, ``2t-i``, ``2t+j``): ``(64, 64, 128)``.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import islpy as isl

from .affine import constant_extent, ctx
from .footprint import element_size
from .hyperplanes import Row
from .scop import Scop

#: share of the target cache a tile's footprint may fill (the rest: the next tile's halo, code)
CACHE_FRACTION = 0.5
#: tiles each thread should get per wavefront, where the extent is known
MIN_TILES_PER_FRONT = 2
#: candidate sizes of a row
CANDIDATES = (8, 16, 32, 64, 128, 256, 512)
#: candidate sizes of the innermost (unit-stride) row
INNER_CANDIDATES = (32, 64, 128, 256, 512, 1024)
#: candidate sizes of the innermost row when the innermost loop carries a dependence inside a
#: time step (Gauss-Seidel's ``A[i][j-1]`` to ``A[i][j]``): each row of a tile is then a chain of
#: dependent operations, and short rows let the chains of successive rows overlap in the core
#: (seidel-2d, 2026-11-28: inner size 4 or 8, 0.12 s; 1024, 0.24 s; gcc -O3, 0.36 s). 4 alone:
#: the recipe's seidel-2d ran 18-24% faster with rows of 4 than of 8 at three sizes (medians of
#: 15 interleaved runs at 2 threads: 400 x 500 0.26 s against 0.34 s, 40 x 3000 0.86 s against
#: 1.07 s, 10 x 2000 0.13 s against 0.16 s)
CHAIN_CANDIDATES = (4,)
#: sizes added for a front row of few values (a time loop of a few steps)
SMALL_CANDIDATES = (1, 2, 4)
#: the rows whose tiles make a wavefront (the fronts are ``z0 + z1``): each needs
#: :data:`MIN_TILES_PER_FRONT` tiles per thread, where its extent is known
FRONT_ROWS = 2
#: the least size of the innermost row (or its whole extent, if shorter): a tile's unit-stride
#: rows long enough for vector loops and the prefetcher (2026-11-28, 100 sampled sizes:
#: heat-3d at 16x16x16x32 ran 1.14x slower than with rows of 200; jacobi-2d at 128 1.05x)
MIN_INNER = 256

_SYSFS = Path("/sys/devices/system/cpu/cpu0/cache")


@dataclass(frozen=True)
class Caches:
    """Data cache sizes in bytes, per level as one core sees them (0: unknown)."""

    l1: int
    l2: int
    l3: int

    def target(self) -> int:
        """The cache a tile should fit in: L2, else L1, else 256 KiB."""
        return self.l2 or self.l1 or 256 << 10


def _size(text: str) -> int:
    text = text.strip().upper()
    unit = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    digits = text.rstrip("KMG")
    return int(digits) * unit if digits.isdigit() else 0


def machine_caches() -> Caches:
    """This machine's data caches (Linux sysfs, else ``os.sysconf``; 0 where neither tells)."""
    sizes = {1: 0, 2: 0, 3: 0}
    for index in sorted(_SYSFS.glob("index*")):
        try:
            level = int((index / "level").read_text())
            kind = (index / "type").read_text().strip()
            size = _size((index / "size").read_text())
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified") and level in sizes:
            sizes[level] = max(sizes[level], size)
    for level, name in ((1, "SC_LEVEL1_DCACHE_SIZE"), (2, "SC_LEVEL2_CACHE_SIZE"),
                        (3, "SC_LEVEL3_CACHE_SIZE")):  # fmt: skip
        if not sizes[level] and name in os.sysconf_names:
            try:
                sizes[level] = max(os.sysconf(name), 0)
            except (OSError, ValueError):
                pass
    return Caches(sizes[1], sizes[2], sizes[3])


def _determinant(rows: list[list[int]]) -> Fraction:
    m = [[Fraction(x) for x in r] for r in rows]
    n = len(m)
    det = Fraction(1)
    for c in range(n):
        p = next((r for r in range(c, n) if m[r][c]), None)
        if p is None:
            return Fraction(0)
        if p != c:
            m[c], m[p] = m[p], m[c]
            det = -det
        det *= m[c][c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            m[r] = [a - f * b for a, b in zip(m[r], m[c])]
    return det


def _tile_set(stmt_space: isl.Space, rows: Sequence[Row], name: str, sizes: Sequence[int]) -> isl.Set:
    """The instances of tile 0 of one statement, without domain bounds."""
    tile = isl.Set.universe(stmt_space)
    ls = isl.LocalSpace.from_space(stmt_space)
    for row, size in zip(rows, sizes):
        coefs = row.forms[name]
        phi = isl.Aff.zero_on_domain(ls).set_constant_val(isl.Val.int_from_si(ctx(), coefs[-1]))
        for k, c in enumerate(coefs[:-1]):
            phi = phi.set_coefficient_val(isl.dim_type.in_, k, isl.Val.int_from_si(ctx(), c))
        zero = isl.Aff.zero_on_domain(ls)
        top = zero.set_constant_val(isl.Val.int_from_si(ctx(), size))
        tile = tile.intersect(phi.ge_set(zero)).intersect(phi.lt_set(top))
    return tile


class TileFootprint:
    """Bytes of the array elements one full tile accesses (bounding box per array), for many sizes.

    The subscripts of every access are taken once; per tile, the box of an
    array is the least and greatest value of each subscript over the tile's
    integer points (isl ``min_val``/``max_val``, exact), one pair per linear
    part (``A[i-1]``, ``A[i]``, ``A[i+1]`` share theirs). An access that is
    no single affine function goes through the images of the tile instead.
    """

    def __init__(self, scop: Scop, limits: dict[str, list[int | None]] | None = None):
        self.scop = scop
        #: per array, the elements each subscript spans over the whole part (None: not known): a tile's
        #: box is no wider than what the part touches (a row longer than the array is the whole row)
        self.limits = limits or {}
        self.affine = all(acc.affine for s in scop.statements for acc in s.accesses)
        #: per statement: (space, name, {array: {(dim, linear part): (aff, [constants])}}, relations)
        self.parts: list[tuple[isl.Space, str, dict[str, dict], list[tuple[str, isl.Map]]]] = []
        self.functions = True
        for st in scop.statements:
            space = st.domain.get_space().drop_dims(isl.dim_type.param, 0, st.domain.dim(isl.dim_type.param))
            subs: dict[str, dict] = {}
            rels: list[tuple[str, isl.Map]] = []
            for acc in st.accesses if self.affine else ():
                rel = acc.relation.gist_domain(acc.relation.domain())  # the subscripts alone
                rel = rel.project_out(isl.dim_type.param, 0, rel.dim(isl.dim_type.param))
                rels.append((acc.array, rel))
                affs = _subscripts(rel)
                if affs is None:
                    self.functions = False
                    continue
                per = subs.setdefault(acc.array, {})
                for d, aff in enumerate(affs):
                    const = aff.get_constant_val().to_python()
                    linear = aff.set_constant_val(isl.Val.zero(ctx()))
                    per.setdefault((d, str(linear)), (linear, []))[1].append(const)
            self.parts.append((space, st.name, subs, rels))

    def __call__(self, rows: Sequence[Row], sizes: Sequence[int]) -> int | None:
        """The footprint of a tile of ``sizes`` along ``rows``, None if unbounded."""
        if not self.affine:
            return None
        boxes = self._boxes(rows, sizes) if self.functions else None
        if boxes is None:
            return self._by_images(rows, sizes)
        total = 0
        for array, box in boxes.items():
            count = 1
            for d, (lo, hi) in enumerate(box):
                count *= self._clamped(array, d, max(hi - lo + 1, 0))
            info = self.scop.arrays.get(array)
            total += count * element_size(info.decl if info is not None else None)
        return total

    def _boxes(self, rows: Sequence[Row], sizes: Sequence[int]) -> dict[str, list[tuple[int, int]]] | None:
        """``{array: [(least, greatest) per subscript]}``, None where a bound is not a finite integer."""
        bounds: dict[str, dict[int, tuple[int, int]]] = {}
        for space, name, subs, _ in self.parts:
            tile = _tile_set(space, rows, name, sizes)
            for array, forms in subs.items():
                per = bounds.setdefault(array, {})
                for (d, _), (linear, consts) in forms.items():
                    lo, hi = tile.min_val(linear), tile.max_val(linear)
                    if not (lo.is_int() and hi.is_int()):
                        return None
                    lo_v, hi_v = lo.to_python() + min(consts), hi.to_python() + max(consts)
                    if d in per:
                        lo_v, hi_v = min(lo_v, per[d][0]), max(hi_v, per[d][1])
                    per[d] = (lo_v, hi_v)
        return {array: [per[d] for d in sorted(per)] for array, per in bounds.items()}

    def _by_images(self, rows: Sequence[Row], sizes: Sequence[int]) -> int | None:
        boxes: dict[str, isl.Set] = {}
        for space, name, _, rels in self.parts:
            tile = _tile_set(space, rows, name, sizes)
            for array, rel in rels:
                touched = tile.apply(rel)
                boxes[array] = boxes[array].union(touched) if array in boxes else touched
        total = 0
        for array, elems in boxes.items():
            count = 1
            for d in range(elems.dim(isl.dim_type.set)):
                extent = constant_extent(elems, d)
                if extent is None:
                    return None
                count *= self._clamped(array, d, extent)
            info = self.scop.arrays.get(array)
            total += count * element_size(info.decl if info is not None else None)
        return total


    def _clamped(self, array: str, d: int, extent: int) -> int:
        limits = self.limits.get(array, [])
        limit = limits[d] if d < len(limits) else None
        return extent if limit is None else min(extent, limit)


def _subscripts(rel: isl.Map) -> list[isl.Aff] | None:
    """The subscripts of an access relation that is one affine function on its whole domain, else None."""
    if not rel.is_single_valued() or not rel.domain().plain_is_universe():
        return None
    pma = isl.PwMultiAff.from_map(rel)
    if pma.n_piece() != 1:
        return None
    pieces: list = []
    pma.foreach_piece(lambda dom, ma: pieces.append((dom, ma)))
    dom, ma = pieces[0]
    if not dom.plain_is_universe():
        return None
    affs = [ma.get_at(d) for d in range(ma.dim(isl.dim_type.out))]
    if any(a.dim(isl.dim_type.div) for a in affs):
        return None
    return affs


def footprint(scop: Scop, rows: Sequence[Row], sizes: Sequence[int]) -> int | None:
    """Bytes of the array elements one full tile accesses (bounding box per array), None if unbounded."""
    return TileFootprint(scop)(rows, sizes)


def instances(scop: Scop, rows: Sequence[Row], sizes: Sequence[int],
              extents: Sequence[float | None] = ()) -> float:  # fmt: skip
    """Statement instances in one full tile (the deepest statements); a row no longer than its ``extents``."""
    depth = max(s.depth for s in scop.statements)
    deep = [s for s in scop.statements if s.depth == depth]
    det = abs(_determinant([list(r.forms[deep[0].name][:-1]) for r in rows]))
    volume = 1
    for k, s in enumerate(sizes):
        extent = extents[k] if k < len(extents) else None
        volume *= s if extent is None else min(s, extent)
    return len(deep) * volume / float(det) if det else 0.0


@dataclass(frozen=True)
class SizeChoice:
    """The sizes chosen and the figures behind the choice."""

    sizes: tuple[int, ...]
    footprint: int
    reuse: float  # instances per byte
    budget: int


def _row_candidates(k: int, n: int, extent: float | None, many: bool, threads: int,
                    chained: bool) -> tuple[int, ...]:  # fmt: skip
    """The sizes tried for row ``k`` of ``n`` (its ``extent``: values it takes, when known)."""
    if k == n - 1 and n > 1:
        return _within(CHAIN_CANDIDATES if chained else INNER_CANDIDATES, extent)  # the unit-stride row
    out = CANDIDATES[1:5] if many else CANDIDATES
    if k < FRONT_ROWS and extent is not None and extent < MIN_TILES_PER_FRONT * threads * out[0]:
        out = SMALL_CANDIDATES + out  # a short row (a few time steps): small tiles keep fronts wide
    return _within(out, extent)


def _within(sizes: tuple[int, ...], extent: float | None) -> tuple[int, ...]:
    """The sizes up to the first that covers ``extent`` (a larger tile is the same single tile,
    and sizes far past the extent only make isl's code generation slower)."""
    if extent is None:
        return sizes
    kept = tuple(s for s in sizes if s < extent)
    cover = [s for s in sizes if s >= extent]
    return kept + tuple(cover[:1])


def choose_sizes(
    scop: Scop,
    rows: Sequence[Row],
    *,
    caches: Caches | None = None,
    threads: int = 2,
    tiles_across: Sequence[float | None] = (),
    tied: Sequence[tuple[int, int]] = ((0, 1),),
    chained: bool = False,
    limits: dict[str, list[int | None]] | None = None,
) -> SizeChoice:
    """The tile sizes of ``rows`` with the best reuse whose footprint fits (see the module docstring).

    ``tiles_across[k]``: the extent of row ``k`` (its values over the part,
    when known), to keep enough tiles per wavefront; ``tied``: rows that
    get the same size (the two faces of a diamond); ``chained``: the
    innermost loop carries a dependence inside a time step (Gauss-Seidel):
    short innermost rows (:data:`CHAIN_CANDIDATES`) instead of long ones;
    ``limits``: per array, the elements each subscript spans over the part
    (:func:`.footprint.array_extents`, where the sizes are known): a tile's footprint
    and instances count no more than the part has, so a row that covers a
    whole short dimension (heat-3d's 200 points) is weighed as what it
    holds, not as the box of its size.
    """
    caches = caches or machine_caches()
    budget = int(caches.target() * CACHE_FRACTION)
    n = len(rows)
    free = [k for k in range(n) if not any(k == b for _, b in tied)]
    extents = list(tiles_across) + [None] * (n - len(tiles_across))
    scored: list[tuple[bool, bool, SizeChoice]] = []  # (enough tiles per front, long inner row, choice)
    many = len(free) > 2  # 3-D: fewer sizes for the middle rows
    measure = TileFootprint(scop, limits)
    options = [_row_candidates(k, n, extents[k], many, threads, chained) for k in free]
    for combo in itertools.product(*options):
        sizes = [0] * n
        for k, s in zip(free, combo):
            sizes[k] = s
        for a, b in tied:
            sizes[b] = sizes[a]
        fp = measure(rows, sizes)
        if fp is None:
            continue
        slack = all(extents[k] is None or extents[k] / sizes[k] >= MIN_TILES_PER_FRONT * threads
                    for k in range(min(FRONT_ROWS, n)))  # fmt: skip
        inner = extents[-1]
        long_inner = chained or n < 2 or sizes[-1] >= min(MIN_INNER, inner if inner is not None else MIN_INNER)
        choice = SizeChoice(tuple(sizes), fp, instances(scop, rows, sizes, extents) / max(fp, 1), budget)
        scored.append((slack, long_inner, choice))
    if not scored:
        return SizeChoice(tuple([32] * n), 0, 0.0, budget)
    fits = [c for c in scored if c[2].footprint <= budget]
    if not any(c[1] for c in fits) and caches.l3:
        # no tile with long rows fits the core's cache: the core's share of the last level
        # (heat-3d: 16x16x16x256, 2.2 MiB, ran as fast as the best of 100 sampled sizes)
        shared = int(caches.l3 / max(threads, 1) * CACHE_FRACTION)
        wider = [c for c in scored if c[1] and c[2].footprint <= shared]
        if wider:
            return max(wider, key=lambda c: (c[0], c[2].reuse, sum(c[2].sizes)))[2]
    if not fits:  # nothing fits: the smallest tile
        return min(scored, key=lambda c: c[2].footprint)[2]
    return max(fits, key=lambda c: (c[0], c[1], c[2].reuse, sum(c[2].sizes)))[2]
