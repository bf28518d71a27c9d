"""The values of the region resources: :class:`Region`, :class:`Regions`, :class:`SummaryRegions`.

Immutable by convention (the consistency manager shares them between
workspace clones). See :mod:`.regions` for what they mean.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import islpy as isl
from pycparser import c_ast

from passman import Loop

from . import region_sets as rs
from .affine import param_names
from .text import set_text


@dataclass(frozen=True)
class Region:
    """The elements of one variable a statement reads, writes, imports or exports."""

    var: str  # C name (``*anywhere*`` for unknown memory)
    key: str  # isl name of the variable (unique in the function)
    mode: str  # "R" | "W" | "IN" | "OUT"
    rank: int
    set: isl.Set  # MAY (over-approximation), equal to ``must`` when exact
    must: isl.Set  # MUST (under-approximation)
    exact: bool
    names: Mapping[str, str]  # isl name -> C name, for printing

    @property
    def tag(self) -> str:
        """``EXACT`` or ``MAY``."""
        return "EXACT" if self.exact else "MAY"

    @property
    def must_region(self) -> Region:
        """The under-approximation as a region of its own (tag MUST unless exact)."""
        return Region(self.var, self.key, self.mode, self.rank, self.must, self.must, True, self.names)

    @property
    def phis(self) -> tuple[str, ...]:
        """``PHI1..PHIn``."""
        return tuple(f"PHI{k + 1}" for k in range(self.rank))

    def params(self) -> list[str]:
        """The program variables the region depends on (isl names)."""
        return [p for p in param_names(self.set)]

    def text(self, tag: str | None = None) -> str:
        """``<A[PHI1][PHI2]-W-EXACT-{PHI1==i, 0<=PHI2<=n-1}>``."""
        tag = tag or self.tag
        which = self.set if tag != "MUST" else self.must
        head = self.var + "".join(f"[{p}]" for p in self.phis)
        return f"<{head}-{self.mode}-{tag}-{set_text(which, self.phis)}>"

    def __str__(self) -> str:
        return self.text()


@dataclass(frozen=True)
class Regions:
    """The value of ``regions``, ``in_regions`` or ``out_regions`` for one function."""

    function: str
    kind: str  # "regions" | "in_regions" | "out_regions"
    table: Mapping[int, tuple[c_ast.Node, tuple[Region, ...]]]
    body: c_ast.Node
    labels: Mapping[str, c_ast.Node]  # loop label -> its For node

    def of(self, node: c_ast.Node) -> tuple[Region, ...]:
        """The regions of a statement (loops: the ``For`` node or its label)."""
        hit = self.table.get(id(node))
        if hit is None and isinstance(node, c_ast.Label):
            hit = self.table.get(id(node.stmt))
        return hit[1] if hit is not None else ()

    def loop(self, loop: Loop | str) -> tuple[Region, ...]:
        """The regions of a loop (by :class:`Loop` or label)."""
        label = loop if isinstance(loop, str) else loop.label
        node = self.labels.get(label)
        return self.of(node) if node is not None else ()

    @property
    def function_regions(self) -> tuple[Region, ...]:
        """The regions of the whole body."""
        return self.of(self.body)

    def find(self, node: c_ast.Node, var: str, mode: str | None = None, rank: int | None = None) -> Region | None:
        """The region of ``var`` (C name) at a statement, for one mode (``R``, ``W`` ...).

        ``rank`` picks the elements of an array over a pointer variable's own value
        (``p[PHI1]`` rather than ``p#ptr[]``, both named ``p``).
        """
        for r in self.of(node):
            if r.var == var and (mode is None or r.mode == mode) and (rank is None or r.rank == rank):
                return r
        return None


@dataclass(frozen=True)
class FormalInfo:
    """A formal parameter as call sites need it."""

    name: str  # isl name in the callee ("" when unnamed)
    kind: str  # "int" (an integer scalar), "array" (pointer or array), "other"
    rank: int
    extents: tuple[isl.PwAff | None, ...]  # declared dimension sizes, over the callee's parameters


@dataclass(frozen=True)
class SummaryRegions:
    """The value of ``summary_regions``: a function's regions as its callers see them.

    ``regions`` are on formals' pointees (keyed by the formal's isl name),
    globals and static locals (``function::name``), and ``*anywhere*``;
    their parameters are formals (valued at entry) and globals.
    """

    function: str
    regions: tuple[Region, ...]
    formals: tuple[FormalInfo, ...]  # in order

    def find(self, var: str, mode: str) -> Region | None:
        """The region of a formal or global (C name) in one mode (``R``, ``W``, ``IN``)."""
        return next((r for r in self.regions if r.var == var and r.mode == mode), None)


@dataclass
class Foot:
    """READ, WRITE and IN regions of one statement, by variable key."""

    r: dict[str, rs.Reg] = field(default_factory=dict)
    w: dict[str, rs.Reg] = field(default_factory=dict)
    i: dict[str, rs.Reg] = field(default_factory=dict)
    pre: isl.Set | None = None  # while a leaf is built: its precondition

    def maps(self) -> tuple[dict, dict, dict]:
        return self.r, self.w, self.i

    def add(self, d: dict[str, rs.Reg], key: str, reg: rs.Reg) -> None:
        """Add one access's region to one of the maps (sharpened by the leaf's precondition)."""
        if self.pre is not None:
            reg = rs.sharpen(reg, self.pre)
        add_region(d, key, reg)


def add_region(d: dict[str, rs.Reg], key: str, reg: rs.Reg) -> None:
    old = d.get(key)
    d[key] = reg if old is None else rs.union(old, reg)


def merge_regions(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        add_region(out, k, v)
    return out


def map_regions(d: dict, fn) -> dict:
    return {k: fn(v) for k, v in d.items()}
