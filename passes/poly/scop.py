"""Static control parts (SCoPs): affine loop nests as isl domains, schedules and accesses.

A SCoP is a maximal sequence of consecutive statements of one block whose
control is static: ``for`` loops ``for (i = lb; cond; i += c)`` (``++``,
``--``, ``+= c``, ``-= c``, ``i = i + c``; ``cond`` any affine condition
that stays false once false, such as ``i < ub``, ``i <= ub``, ``i >= lb``,
``&&`` of bounds, ``?:`` min/max) with lower bound and condition affine in
enclosing iterators and *parameters* (integer variables not written inside
the part), ``if`` with affine conditions, and expression statements and
declarations whose only calls are to pure functions. Before::

    for (i = 0; i < n; i++)
        for (j = 0; j < i; j++)
            x[i] -= L[i][j] * x[j];

After (``module.resource("scops")[0]``)::

    S0  domain [n] -> { S0[i, j] : 0 <= j < i < n }   schedule [0, i, 0, j, 0]
        reads  x[i], L[i][j], x[j]     writes x[i]

How C is modelled, never beyond what is known:

* each statement instance is a point of its domain; the original order is
  the 2d+1 schedule ``[p0, i1, p1, ..., id, pd]`` (``-i`` for a decreasing
  loop), padded with zeros to the deepest statement of the part;
* scalars are 0-dimensional arrays; a scalar or array declared inside a loop
  of the part is a fresh object each iteration, so it gets one leading
  dimension per enclosing loop of the part (its accesses never conflict
  across iterations);
* a subscript that is not affine (``hist[a[i]]``) gives a MAY access to the
  whole array (within its declared extent), flagged ``affine=False``;
* statements under an ``if`` whose condition is not affine are kept, their
  writes MAY, and the condition becomes a statement reading its operands;
  operands of ``?:``, ``&&`` and ``||`` that may not be evaluated are MAY;
* loops whose bounds are not affine, ``while``/``do``/``switch``, jumps,
  calls to functions that may write memory, struct fields, pointer
  arithmetic and address-taken scalars end the part: the analysis looks for
  smaller parts inside. ``Scops.reason(label)`` says why a loop is outside.

Aliasing assumption (as in Pluto, PPCG and PIPS): distinct array and
pointer variables never overlap.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import islpy as isl
from pycparser import c_ast

from passman import Loop
from passman.lazy import LazyAttribute

from ..cfacts.names import where
from .affine import ctx

_DT = LazyAttribute("islpy", "dim_type")


# ----------------------------------------------------------------------------- values


@dataclass(frozen=True)
class ScopLoop:
    """A ``for`` loop of a SCoP: its label, node, iterator (isl dim name) and direction."""

    label: str | None
    node: c_ast.For
    iterator: str
    var: str
    depth: int  # 0 for the outermost loop of the part
    step: int

    @property
    def decreasing(self) -> bool:
        """Whether the iterator decreases."""
        return self.step < 0


@dataclass(frozen=True)
class ArrayInfo:
    """An array (or scalar, rank 0) accessed in a SCoP, by its isl tuple name."""

    name: str
    var: str
    decl: object
    rank: int
    expanded: int  # leading dimensions added for a variable declared inside loops of the part
    extents: tuple[c_ast.Node | None, ...]


@dataclass(frozen=True)
class Access:
    """One read or write of a statement: ``relation`` maps instances to array elements."""

    stmt: str
    index: int
    node: c_ast.Node
    array: str
    var: str
    mode: str  # "read" | "write"
    relation: isl.Map
    affine: bool = True
    may: bool = False

    @property
    def is_write(self) -> bool:
        """A write access."""
        return self.mode == "write"

    @property
    def text(self) -> str:
        """The reference as written in the source (``A[i][j-1]``)."""
        from passman.printer import to_c

        return to_c(self.node).strip().rstrip(";") if not isinstance(self.node, c_ast.Decl) else self.var


@dataclass(frozen=True)
class Statement:
    """A statement of a SCoP with its iteration domain, schedule and accesses."""

    name: str
    node: c_ast.Node
    domain: isl.Set
    schedule: isl.Map
    loops: tuple[ScopLoop, ...]
    accesses: tuple[Access, ...]
    positions: tuple[int, ...]
    conditional: bool = False

    @property
    def iterators(self) -> tuple[str, ...]:
        """isl names of the enclosing loops' iterators, outermost first."""
        return tuple(lp.iterator for lp in self.loops)

    @property
    def depth(self) -> int:
        """Number of enclosing loops of the part."""
        return len(self.loops)

    def reads(self) -> list[Access]:
        """The read accesses."""
        return [a for a in self.accesses if a.mode == "read"]

    def writes(self) -> list[Access]:
        """The write accesses."""
        return [a for a in self.accesses if a.mode == "write"]


@dataclass(frozen=True)
class Scop:
    """One static control part of a function."""

    index: int
    function: str
    nodes: tuple[c_ast.Node, ...]
    context: isl.Set
    params: tuple[str, ...]
    statements: tuple[Statement, ...]
    arrays: Mapping[str, ArrayInfo]
    loops: tuple[ScopLoop, ...]
    names: Mapping[str, str]  # isl name -> C name, for messages

    def _union(self, maps: list[isl.Map]) -> isl.UnionMap:
        out = isl.UnionMap.empty(isl.Space.params_alloc(ctx(), 0))
        for m in maps:
            out = out.union(isl.UnionMap.from_map(m))
        return out

    def domain(self) -> isl.UnionSet:
        """Every statement instance."""
        out = isl.UnionSet.empty(isl.Space.params_alloc(ctx(), 0))
        for s in self.statements:
            out = out.union(isl.UnionSet.from_set(s.domain))
        return out

    def schedule(self) -> isl.UnionMap:
        """The original (2d+1) schedule."""
        return self._union([s.schedule for s in self.statements])

    def reads(self) -> isl.UnionMap:
        """All read accesses."""
        return self._union([a.relation for s in self.statements for a in s.reads()])

    def writes(self) -> isl.UnionMap:
        """All write accesses (MAY ones included)."""
        return self._union([a.relation for s in self.statements for a in s.writes()])

    def must_writes(self) -> isl.UnionMap:
        """The writes that certainly happen."""
        return self._union([a.relation for s in self.statements for a in s.writes() if not a.may])

    def loop(self, label: str) -> ScopLoop | None:
        """The loop of the part with this label."""
        return next((lp for lp in self.loops if lp.label == label), None)

    def statement(self, name: str) -> Statement:
        """A statement by name (``S3``)."""
        return next(s for s in self.statements if s.name == name)

    @property
    def where(self) -> str:
        """``file:line`` of the part's first statement."""
        return where(self.nodes[0])


@dataclass(frozen=True)
class Scops:
    """The SCoPs of one function (the value of resource ``scops``)."""

    function: str
    parts: tuple[Scop, ...]
    reasons: Mapping[str, str] = field(default_factory=dict)  # loop label -> why not static

    def __iter__(self) -> Iterator[Scop]:
        return iter(self.parts)

    def __len__(self) -> int:
        return len(self.parts)

    def __getitem__(self, k: int) -> Scop:
        return self.parts[k]

    def for_loop(self, loop: Loop | str) -> Scop | None:
        """The SCoP containing a loop (a :class:`Loop` or its label), or None."""
        label = loop if isinstance(loop, str) else loop.label
        return next((p for p in self.parts if p.loop(label) is not None), None)

    def statement(self, node: c_ast.Node) -> Statement | None:
        """The SCoP statement of an AST node, if it is one."""
        for p in self.parts:
            for s in p.statements:
                if s.node is node:
                    return s
        return None

    def reason(self, loop: Loop | str) -> str | None:
        """Why a loop is not in any SCoP (None if it is in one)."""
        label = loop if isinstance(loop, str) else loop.label
        if self.for_loop(label) is not None:
            return None
        return self.reasons.get(label, "it is inside a part that is not a static control part")


# ---------------------------------------------------------------------------- resource
