"""Random C programs with affine loop nests, one per seed.

``generate(seed)`` builds a :class:`~passman.fuzz.program.Program` with
``random.Random(seed)``: the same seed always gives the same program.
Each feature is drawn at random:

* 1 to 3 nests of 1 to 4 loops; time loops around 1-D and 2-D stencils
  (Jacobi ping-pong, copy-back, in-place Gauss-Seidel);
* bounds: rectangular, triangular (``j < i + 1``, ``k = j``), decreasing
  (``for (k = m - 1; k >= 3; k--)``), step 2; constants or the parameters
  ``n`` and ``m`` set in ``main``;
* 1-D to 3-D ``double`` arrays, global or local to ``main`` (passed to
  ``kernel`` when the nests are there);
* subscripts with offsets, small coefficients, sums of indices and constants
  (``B[i - 1][j + 3]``, ``A[2 * t + 1]``, ``C[t + j][j]``, ``C[k][15]``);
* conditions on indices (``if (j + i < 9)``, ``if (i < n / 2)``);
* scalar reductions (``s0 += ...``), array reductions (``C[k][15] += C[16][k]``),
  scalar temporaries at function scope written then read in a body (or read
  before they are written: a value carried across iterations), sometimes
  printed at the end.

Accesses are in bounds by construction (subscripts shifted to start at 0 or
more, extents computed from their largest values); values stay finite
(coefficients below one, at most a product of two elements, few steps);
the work stays below :data:`MAX_WORK` statement executions.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .program import (
    HALF,
    Affine,
    Array,
    ArrayRef,
    Assign,
    Bin,
    Cond,
    Expr,
    If,
    IndexValue,
    Interval,
    Loop,
    Node,
    Num,
    Program,
    Read,
    Scalar,
    ScalarRef,
    extents,
    fresh_uids,
    param_env,
    problems,
    to_c,
    work,
)

#: upper bound on the statement executions of a program (nests, init and checksums)
MAX_WORK = 200_000
#: largest array, in elements; local arrays are smaller (they live on main's stack)
MAX_ELEMENTS = 60_000
MAX_LOCAL_ELEMENTS = 20_000
ARRAY_NAMES = "ABCDEFGH"
INDICES = ("i", "j", "k", "l")
COEFFICIENTS = ("0.5", "0.25", "0.75", "0.3", "0.2")
SCALES = ("1.5", "0.5", "0.25")


@dataclass
class _Scope:
    """Where a statement is generated: the indices around it, innermost last, and their ranges."""

    indices: list[str]
    env: dict[str, Interval]
    in_time_loop: bool = False
    temps: list[str] = field(default_factory=list)


class _Generator:
    """The state of one generation: the random stream and the program built so far."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        rng = self.rng
        self.program = Program(
            params={"n": rng.randint(8, 30), "m": rng.randint(6, 20)},
            arrays=[],
            scalars=[],
            nests=[],
            in_kernel=rng.random() < 0.5,
        )
        self.local_bias = rng.choice([0.0, 0.3, 0.6])

    # -- names ------------------------------------------------------------------------
    def array(self, rank: int | None = None) -> Array:
        """An array of ``rank`` dimensions (any when None), existing or new."""
        arrays = self.program.arrays
        fits = [a for a in arrays if rank is None or a.rank == rank]
        if fits and (len(arrays) >= 5 or self.rng.random() < 0.65):
            return self.rng.choice(fits)
        name = next(n for n in ARRAY_NAMES if n not in {a.name for a in arrays})
        rank = rank or self.rng.choice((1, 2, 2, 3))
        new = Array(name, rank, local=self.rng.random() < self.local_bias)
        arrays.append(new)
        return new

    def scalar(self, prefix: str, printed: bool) -> str:
        """A new scalar ``s0``, ``t6``…"""
        taken = {s.name for s in self.program.scalars}
        k = self.rng.randint(0, 9)
        while f"{prefix}{k}" in taken:
            k += 1
        self.program.scalars.append(Scalar(f"{prefix}{k}", printed))
        return f"{prefix}{k}"

    # -- integer expressions ----------------------------------------------------------------
    def upper(self) -> Affine:
        """A loop's upper bound: a constant or ``n``/``m`` plus a small offset."""
        rng = self.rng
        if rng.random() < 0.45:
            return Affine.of(rng.randint(4, 16))
        return Affine.of(rng.choice((0, 0, -1, -2, 1)), **{rng.choice(("n", "m")): 1})

    def bounds(self, var: str, scope: _Scope) -> Loop:
        """A loop on ``var`` with random bounds (its body empty)."""
        rng = self.rng
        kind = rng.choices(("rect", "tri", "decr", "step2"), (5, 2.5, 1.5, 1))[0]
        outer = scope.indices
        if kind == "tri" and outer:
            o = rng.choice(outer)
            if rng.random() < 0.5:  # j < i + c
                return Loop(var, Affine.of(rng.choice((0, 1))), Affine.of(rng.randint(0, 2), **{o: 1}), 1, [])
            return Loop(var, Affine.of(rng.choice((0, 1)), **{o: 1}), self.upper(), 1, [])
        if kind == "decr":
            if outer and rng.random() < 0.3:  # for (k = i; k >= 0; k--)
                return Loop(var, Affine.of(0, **{rng.choice(outer): 1}), Affine.of(0), -1, [])
            return Loop(var, self.upper().shifted(-1), Affine.of(rng.randint(0, 3)), -1, [])
        step = 2 if kind == "step2" else 1
        return Loop(var, Affine.of(rng.choice((0, 0, 1, 1, 2, 3))), self.upper(), step, [])

    def subscript(self, scope: _Scope, var: str | None = None) -> Affine:
        """One subscript: an index with an offset, ``2 * t + 1``, ``j + i``, or a constant."""
        rng = self.rng
        indices = scope.indices
        r = rng.random()
        if not indices or r < 0.12:
            s = Affine.of(rng.randint(0, 16))
        else:
            v = var or rng.choice(indices[-2:] if rng.random() < 0.7 else indices)
            if var is not None or r < 0.7:
                s = Affine.of(rng.choice((0, 0, 0, -1, 1, -2, 3)), **{v: 1})
            elif r < 0.82:
                s = Affine.of(rng.choice((0, 1)), **{v: 2})
            elif len(indices) >= 2:
                w = rng.choice([x for x in indices if x != v])
                s = Affine(rng.choice((0, 0, 2)), ((v, 1), (w, 1)))
            else:
                s = Affine.of(0, **{v: 1})
        lo = s.interval(scope.env)[0]
        return s.shifted(-lo) if lo < 0 else s

    def ref(self, scope: _Scope, array: Array | None = None, aligned: bool = False) -> ArrayRef:
        """An element of ``array`` (a random one when None); ``aligned``: indexed by the nest's indices."""
        a = array or self.array()
        if aligned and len(scope.indices) >= 1:
            inner = scope.indices[-a.rank :]
            vars_ = [None] * (a.rank - len(inner)) + inner
            return ArrayRef(a.name, tuple(self.subscript(scope, v) for v in vars_))
        return ArrayRef(a.name, tuple(self.subscript(scope) for _ in range(a.rank)))

    def condition(self, scope: _Scope) -> Cond:
        """``j + i < 9``, ``i < n / 2``, ``k >= 3``."""
        rng = self.rng
        vs = rng.sample(scope.indices, min(len(scope.indices), rng.choice((1, 1, 2))))
        left = Affine(0, tuple((v, 1) for v in vs))
        lo, hi = left.interval(scope.env)
        op = rng.choice(("<", "<=", ">", ">="))
        if rng.random() < 0.25 and len(vs) == 1:
            return Cond(left, op, Affine(0, ((rng.choice(("n", "m")) + HALF, 1),)))
        return Cond(left, op, Affine.of(rng.randint(lo, max(lo, hi))))

    # -- values -----------------------------------------------------------------------------
    def term(self, scope: _Scope, coefficient: str | None) -> Expr:
        """One term of a right-hand side."""
        rng = self.rng
        r = rng.random()
        if r < 0.55:
            read: Expr = Read(self.ref(scope, aligned=rng.random() < 0.4))
        elif r < 0.7:  # neighbours: 0.5 * (B[i - 1] + B[i + 1])
            a = self.ref(scope, aligned=True)
            b = ArrayRef(a.array, (*a.subscripts[:-1], a.subscripts[-1].shifted(rng.choice((1, 2)))))
            read = Bin("+", Read(a), Read(b))
            coefficient = coefficient or "0.5"
        elif r < 0.8 and scope.indices:
            v = rng.choice(scope.indices)
            return IndexValue(Affine.of(0, **{v: 1}), rng.choice(SCALES))
        elif r < 0.88:
            return Num(rng.choice(("1.0", "0.5", "2.0", "3")))
        elif r < 0.94 and not scope.in_time_loop:  # C[i][2] * C[2 * t][j]
            read = Bin("*", Read(self.ref(scope)), Read(self.ref(scope)))
            coefficient = coefficient or "0.25"
        elif scope.temps:
            read = Read(ScalarRef(rng.choice(scope.temps)))
        else:
            read = Read(self.ref(scope))
        return Bin("*", Num(coefficient), read) if coefficient else read

    def value(self, scope: _Scope, terms: int | None = None) -> Expr:
        """A right-hand side of 1 to 3 terms whose coefficients sum to one at most."""
        rng = self.rng
        k = terms or rng.choice((1, 1, 2, 2, 3))
        choices = {1: ("0.5", "0.75", None, "0.3"), 2: ("0.5", "0.25", "0.3", "0.2")}
        expr: Expr | None = None
        for _ in range(k):
            t = self.term(scope, rng.choice(choices.get(k, ("0.3", "0.2", "0.25"))))
            expr = t if expr is None else Bin("+", expr, t)
        assert expr is not None
        return expr

    # -- statements -------------------------------------------------------------------------
    def statements(self, scope: _Scope) -> list[Node]:
        """One to three statements, some under a condition."""
        rng = self.rng
        out: list[Node] = []
        for _ in range(rng.choice((1, 1, 2, 2, 3))):
            group = self.statement(scope)
            if scope.indices and rng.random() < 0.18:
                group = [If(self.condition(scope), group)]
            out += group
        return out

    def statement(self, scope: _Scope) -> list[Node]:
        """An assignment, an accumulation, a scalar reduction, or a temporary and its use."""
        rng = self.rng
        kind = rng.choices(("assign", "accumulate", "reduce", "temp"), (5, 2, 1.2, 1.5))[0]
        if kind == "accumulate":  # C[k][15] += C[16][k], A[i][12] += 3
            target = self.ref(scope, aligned=rng.random() < 0.3)
            value = self.value(scope, 1) if rng.random() < 0.6 else Num(rng.choice(("3", "1.0")))
            return [Assign(target, "+=", value)]
        if kind == "reduce":
            s = self.scalar("s", printed=True)
            if rng.random() < 0.3:
                return [Assign(ScalarRef(s), "=", Bin("+", Read(ScalarRef(s)), self.value(scope, 1)))]
            return [Assign(ScalarRef(s), "+=", self.value(scope))]
        target = self.ref(scope, aligned=rng.random() < 0.6)
        if kind == "assign":
            return [Assign(target, "=", self.value(scope))]
        t = self.scalar("t", printed=rng.random() < 0.3)
        define = Assign(ScalarRef(t), "=", self.value(scope) if rng.random() < 0.8 else Num("0.75"))
        use = Assign(target, "=", Bin("+", Bin("*", Num("0.5"), Read(ScalarRef(t))), self.value(scope, 1)))
        scope.temps.append(t)
        return [use, define] if rng.random() < 0.15 else [define, use]

    # -- nests ------------------------------------------------------------------------------
    def nest(self, depth: int, scope: _Scope) -> list[Node]:
        """A loop nest of ``depth`` loops around statements (sometimes an imperfect one)."""
        var = INDICES[len([v for v in scope.indices if v != "t"])]
        loop = self.bounds(var, scope)
        lo, hi = loop.range(scope.env)
        inner = _Scope([*scope.indices, var], {**scope.env, var: (lo, max(lo, hi))},
                       scope.in_time_loop, scope.temps)
        if depth == 1:
            loop.body = self.statements(inner)
        else:
            loop.body = self.nest(depth - 1, inner)
            if self.rng.random() < 0.15:
                extra = self.statements(inner)
                loop.body = extra + loop.body if self.rng.random() < 0.5 else loop.body + extra
        return [loop]

    def time_loop(self, scope: _Scope) -> Loop:
        """``for (t = 0; t < T; t++)`` around a stencil or a random nest."""
        rng = self.rng
        steps = rng.choice((2, 3, 4, 5, 8, 12, 50))
        loop = Loop("t", Affine.of(0), Affine.of(steps), 1, [])
        inner = _Scope(["t"], {**scope.env, "t": (0, steps - 1)}, True, scope.temps)
        if rng.random() < 0.6:
            loop.body = self.stencil(inner)
        else:
            loop.body = self.nest(rng.choice((1, 2, 2, 3)), inner)
        return loop

    def stencil(self, scope: _Scope) -> list[Node]:
        """Jacobi (ping-pong or copy-back) or Gauss-Seidel sweeps of a 1-D or 2-D array."""
        rng = self.rng
        rank = rng.choice((1, 1, 2))
        a = self.array(rank)
        b = self.array(rank)
        upper = [self.upper() for _ in range(rank)]

        def sweep(dst: Array, src: Array, weights: str, copy: bool = False) -> Loop:
            indices = list(INDICES[:rank])
            env = dict(scope.env)
            loops = []
            for v, hi in zip(indices, upper):
                loops.append(Loop(v, Affine.of(1), hi.shifted(-1), 1, []))
                env[v] = (1, max(1, hi.interval(env)[1] - 2))
            centre = tuple(Affine.of(0, **{v: 1}) for v in indices)
            if copy:
                value: Expr = Read(ArrayRef(src.name, centre))
            else:
                reads: Expr = Read(ArrayRef(src.name, centre))
                for d in range(rank):
                    for delta in (-1, 1):
                        sub = list(centre)
                        sub[d] = sub[d].shifted(delta)
                        reads = Bin("+", reads, Read(ArrayRef(src.name, tuple(sub))))
                value = Bin("*", Num(weights), reads)
            loops[-1].body = [Assign(ArrayRef(dst.name, centre), "=", value)]
            for outer, inner in zip(loops, loops[1:]):
                outer.body = [inner]
            return loops[0]

        weights = "0.3" if rank == 1 else "0.2"
        if a is b:  # in place
            return [sweep(a, a, weights)]
        if rng.random() < 0.5:
            return [sweep(b, a, weights), sweep(a, b, weights)]
        return [sweep(b, a, weights), sweep(a, b, weights, copy=True)]

    def top_nest(self) -> Loop:
        """One top-level nest."""
        rng = self.rng
        scope = _Scope([], param_env(self.program), temps=[])
        if rng.random() < 0.3:
            return self.time_loop(scope)
        depth = rng.choices((1, 2, 3, 4), (1, 3, 3, 1))[0]
        (loop,) = self.nest(depth, scope)
        assert isinstance(loop, Loop)
        return loop


def acceptable(program: Program) -> bool:
    """Whether ``program`` is valid, small enough in work and memory."""
    if problems(program) or work(program) > MAX_WORK:
        return False
    for a in program.arrays:
        size = 1
        for d in extents(program)[a.name]:
            size *= d
        if size > (MAX_LOCAL_ELEMENTS if a.local else MAX_ELEMENTS):
            return False
    return True


def generate(seed: int) -> Program:
    """The program of ``seed`` (deterministic)."""
    gen = _Generator(seed)
    program = gen.program
    for _ in range(gen.rng.choice((1, 1, 2, 2, 3))):
        for _attempt in range(20):
            arrays, scalars = list(program.arrays), list(program.scalars)
            program.nests.append(gen.top_nest())
            if acceptable(program):
                break
            program.nests.pop()
            program.arrays, program.scalars = arrays, scalars
    if not program.nests:  # every attempt too big: one small loop
        program.arrays.append(Array("A", 1))
        program.nests.append(
            Loop("i", Affine.of(1), Affine.of(8), 1,
                 [Assign(ArrayRef("A", (Affine.of(0, i=1),)), "=",
                         Bin("*", Num("0.5"), Read(ArrayRef("A", (Affine.of(-1, i=1),)))))])
        )
    fresh_uids(program)
    return program


def generate_c(seed: int) -> str:
    """The C text of the program of ``seed``."""
    return to_c(generate(seed))
