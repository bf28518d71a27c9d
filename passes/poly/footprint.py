"""How much data a static control part touches, and how much the cache holds: the cache-fit model.

``auto_schedule`` uses it to decide whether time tiling can pay on a time
loop whose steps are parallel loops (Jacobi, heat, FDTD): when everything
the steps touch fits in the last-level cache, each step already reads its
data from the cache and the plain parallel loops of the coarse-grain path
run as fast as a wavefront of time tiles (measured: ``jacobi_2d`` with
16 MiB of data on a 32 MiB L3, 2.1x over gcc -O3 either way); when it does
not, every step streams the arrays from memory and time tiles win
(``jacobi_2d`` with 125 MiB: 2.7x against 1.4x).

The footprint is the bounding box of the elements each array's accesses
reach, times the element size, with the part's parameters replaced by the
values known for them: fixed by the part's context, or the constant every
call of the function passes (:func:`~..constant_arguments.constant_arguments`).
None when a size stays symbolic.
"""

from __future__ import annotations

from pathlib import Path

import islpy as isl
from pycparser import c_ast

from passman import Module

from ..cfacts.folding import int_value
from ..interproc.constant_arguments import constant_arguments
from .affine import constant_extent
from .scop import Scop

#: bytes of the C arithmetic types an array element may have (by the last type keyword)
_SIZES = {"char": 1, "short": 2, "int": 4, "float": 4, "long": 8, "double": 8}

#: the last-level cache assumed where the machine does not tell (bytes)
DEFAULT_CACHE = 32 << 20


def last_level_cache() -> int:
    """The size in bytes of this machine's largest CPU cache (Linux sysfs), else :data:`DEFAULT_CACHE`."""
    best = 0
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            text = (index / "size").read_text().strip().upper()
        except OSError:
            continue
        unit = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
        digits = text.rstrip("KMG")
        if digits.isdigit():
            best = max(best, int(digits) * unit)
    return best or DEFAULT_CACHE


def cache_budget(given: int) -> int:
    """``given`` bytes when positive, else this machine's last-level cache."""
    return given if given > 0 else last_level_cache()


def known_parameters(module: Module, scop: Scop) -> dict[str, int]:
    """The part's parameters (isl names) whose value is known: fixed in its context or by every call."""
    values: dict[str, int] = {}
    literals = constant_arguments(module)[0]
    for p in scop.params:
        k = scop.context.find_dim_by_name(isl.dim_type.param, p)
        fixed = scop.context.plain_get_val_if_fixed(isl.dim_type.param, k) if k >= 0 else None
        if fixed is not None and fixed.is_int():
            values[p] = fixed.to_python()
            continue
        lit = literals.get(scop.names.get(p, p))
        v = int_value(lit) if lit is not None else None
        if v is not None:
            values[p] = v
    return values


def element_size(decl: object) -> int:
    """Bytes of one element of the array declared by ``decl`` (8 when the type is not a plain arithmetic one)."""
    t = getattr(decl, "type", None)
    while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl, c_ast.TypeDecl)):
        t = t.type
    names = t.names if isinstance(t, c_ast.IdentifierType) else []
    for name in reversed(names):
        if name in _SIZES:
            return 16 if name == "double" and "long" in names else _SIZES[name]
    return 8


def fix_parameters(obj, values: dict[str, int]):
    """``obj`` (an isl set or map) with the parameters named in ``values`` fixed to those values."""
    for name, v in values.items():
        k = obj.find_dim_by_name(isl.dim_type.param, name)
        if k >= 0:
            obj = obj.fix_val(isl.dim_type.param, k, isl.Val.int_from_si(obj.get_ctx(), v))
    return obj


def box_size(s: isl.Set, values: dict[str, int]) -> int | None:
    """Points of the bounding box of ``s`` once the parameters named in ``values`` are fixed (None if not constant)."""
    s = fix_parameters(s, values)
    count = 1
    for d in range(s.dim(isl.dim_type.set)):
        extent = constant_extent(s, d)
        if extent is None:
            return None
        count *= extent
    return count


def data_footprint(scop: Scop, values: dict[str, int]) -> int | None:
    """Bytes of the array elements the part accesses (bounding box per array), None if not constant."""
    sets: list[isl.Set] = []
    scop.reads().union(scop.writes()).range().foreach_set(sets.append)
    total = 0
    for s in sets:
        count = box_size(s, values)
        if count is None:
            return None
        info = scop.arrays.get(s.get_tuple_name())
        total += count * element_size(info.decl if info is not None else None)
    return total


def array_extents(scop: Scop, values: dict[str, int]) -> dict[str, list[int | None]]:
    """Per array, how many elements each subscript spans over the whole part (parameters at ``values``).

    None for a subscript whose span is not a constant (an unknown parameter).
    """
    touched: dict[str, isl.Set] = {}
    for st in scop.statements:
        dom = fix_parameters(st.domain, values)
        for acc in st.accesses:
            if not acc.affine:
                continue
            try:
                image = dom.apply(acc.relation.align_params(dom.get_space()))
            except isl.Error:
                continue
            if acc.array in touched and touched[acc.array].dim(isl.dim_type.set) != image.dim(isl.dim_type.set):
                continue
            touched[acc.array] = touched[acc.array].union(image) if acc.array in touched else image
    return {array: [constant_extent(elems, d) for d in range(elems.dim(isl.dim_type.set))]
            for array, elems in touched.items()}
