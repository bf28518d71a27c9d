"""The fuzzer's structured form of a C program: arrays, loop nests, statements.

A :class:`Program` is what the generator builds, what the shrinker edits and
what :func:`render` prints as C::

    Program(params={"n": 30}, arrays=[Array("A", 1), Array("B", 2)], nests=[
        Loop("i", Affine.of(1), Affine.of(1, n=1), 1, [
            Loop("j", Affine.of(1), Affine.of(-2, n=1), 1, [
                If(Cond(Affine.of(0, j=1, i=1), "<", Affine.of(9)), [
                    Assign(ArrayRef("A", (Affine.of(0, j=1),)), "=",
                           Read(ArrayRef("B", (Affine.of(0, i=1), Affine.of(0, j=1)))))])])])])

prints ``for (i = 1; i < n + 1; i++) for (j = 1; j < n - 2; j++) if (j + i < 9)
A[j] = B[i][j];`` inside a ``main`` that initialises every array, runs the
nests and prints a weighted checksum of every array.

Array extents are not part of the form: :func:`extents` computes them from
the largest value each subscript can reach (interval arithmetic over the loop
bounds, conditions ignored, so an over-approximation), plus a margin. Every
access is therefore in bounds by construction, as long as no subscript can
go below zero (:func:`problems` says when one can).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field

#: what a subscript's largest value adds to the array's extent
MARGIN = 2
#: integer parameters: ``"n / 2"`` is an atom of its own, worth ``n // 2``
HALF = " / 2"

Interval = tuple[int, int]


@dataclass(frozen=True)
class Affine:
    """An integer affine expression ``const + sum(coeff * atom)`` in C ``int`` arithmetic.

    Atoms are loop indices, parameters (``n``, ``m``) and halved parameters
    (``"n / 2"``).
    """

    const: int = 0
    terms: tuple[tuple[str, int], ...] = ()

    @staticmethod
    def of(const: int = 0, **coeffs: int) -> Affine:
        """``Affine.of(1, i=2, j=1)`` is ``2 * i + j + 1``."""
        return Affine(const, tuple((k, v) for k, v in coeffs.items() if v))

    def atoms(self) -> set[str]:
        """The names the expression reads (``"n / 2"`` reads ``n``)."""
        return {a.removesuffix(HALF) for a, _ in self.terms}

    def shifted(self, delta: int) -> Affine:
        """The expression plus ``delta``."""
        return Affine(self.const + delta, self.terms)

    def substitute(self, name: str, value: Affine) -> Affine:
        """The expression with atom ``name`` replaced by ``value``."""
        const, terms = self.const, {}
        for atom, coeff in self.terms:
            if atom == name:
                const += coeff * value.const
                for a, c in value.terms:
                    terms[a] = terms.get(a, 0) + coeff * c
            else:
                terms[atom] = terms.get(atom, 0) + coeff
        return Affine(const, tuple((a, c) for a, c in terms.items() if c))

    def interval(self, env: dict[str, Interval]) -> Interval:
        """Smallest and largest values when each atom ranges over ``env``."""
        lo = hi = self.const
        for atom, coeff in self.terms:
            a, b = env[atom]
            lo += min(coeff * a, coeff * b)
            hi += max(coeff * a, coeff * b)
        return lo, hi

    def c(self) -> str:
        """C text: ``2 * t + 1``, ``n - 1``, ``j + i``, ``0``."""
        out = ""
        for atom, coeff in self.terms:
            name = f"({atom})" if HALF in atom and abs(coeff) != 1 else atom
            mag = name if abs(coeff) == 1 else f"{abs(coeff)} * {name}"
            if not out:
                out = mag if coeff > 0 else f"-{mag}"
            else:
                out += f" + {mag}" if coeff > 0 else f" - {mag}"
        if not out:
            return str(self.const)
        if self.const:
            out += f" + {self.const}" if self.const > 0 else f" - {-self.const}"
        return out


@dataclass(frozen=True)
class ArrayRef:
    """``A[i - 1][j + 3]``."""

    array: str
    subscripts: tuple[Affine, ...]

    def c(self) -> str:
        """C text of the reference."""
        return self.array + "".join(f"[{s.c()}]" for s in self.subscripts)


@dataclass(frozen=True)
class ScalarRef:
    """A ``double`` scalar declared at function scope (``s0``, ``t6``)."""

    name: str

    def c(self) -> str:
        """C text of the reference."""
        return self.name


Ref = ArrayRef | ScalarRef


@dataclass(frozen=True)
class Num:
    """A constant: ``0.5``, ``3``."""

    text: str


@dataclass(frozen=True)
class Read:
    """The value of an array element or a scalar."""

    ref: Ref


@dataclass(frozen=True)
class IndexValue:
    """An index expression used as a value: ``j * 1.5``, ``(i + j) * 0.5``."""

    value: Affine
    scale: str


@dataclass(frozen=True)
class Bin:
    """``left op right`` with ``op`` one of ``+`` and ``*``."""

    op: str
    left: Expr
    right: Expr


Expr = Num | Read | IndexValue | Bin


@dataclass
class Assign:
    """``target op value;`` with ``op`` one of ``=`` and ``+=``."""

    target: Ref
    op: str
    value: Expr


@dataclass(frozen=True)
class Cond:
    """``left op right`` on integers: ``j + i < 9``, ``i < n / 2``."""

    left: Affine
    op: str
    right: Affine

    def c(self) -> str:
        """C text of the condition."""
        return f"{self.left.c()} {self.op} {self.right.c()}"


@dataclass
class If:
    """``if (cond) { body }``."""

    cond: Cond
    body: list[Node]


@dataclass
class Loop:
    """A counted loop.

    ``step > 0``: ``for (var = start; var < stop; var += step)``;
    ``step < 0``: ``for (var = start; var >= stop; var -= -step)`` (``stop`` is
    then the last value, inclusive). ``uid`` names the loop across shrinking.
    """

    var: str
    start: Affine
    stop: Affine
    step: int
    body: list[Node]
    uid: int = 0

    def header(self) -> str:
        """C text of the ``for (...)`` line."""
        if self.step > 0:
            inc = f"{self.var}++" if self.step == 1 else f"{self.var} += {self.step}"
            return f"for ({self.var} = {self.start.c()}; {self.var} < {self.stop.c()}; {inc})"
        dec = f"{self.var}--" if self.step == -1 else f"{self.var} -= {-self.step}"
        return f"for ({self.var} = {self.start.c()}; {self.var} >= {self.stop.c()}; {dec})"

    def range(self, env: dict[str, Interval]) -> Interval:
        """The values the index can take (``hi < lo``: the loop never runs)."""
        if self.step > 0:
            return self.start.interval(env)[0], self.stop.interval(env)[1] - 1
        return self.stop.interval(env)[0], self.start.interval(env)[1]


Node = Loop | If | Assign


@dataclass
class Array:
    """A ``double`` array of ``rank`` dimensions, global (``static``) or local to ``main``."""

    name: str
    rank: int
    local: bool = False


@dataclass
class Scalar:
    """A ``double`` scalar of the function holding the nests; ``printed`` at its end."""

    name: str
    printed: bool = False


@dataclass
class Program:
    """A whole program: parameters set in ``main``, arrays, scalars and loop nests.

    With ``in_kernel`` the nests are in ``static void kernel(int n, int m,
    <local arrays>)`` called from ``main``; otherwise in ``main`` itself.
    """

    params: dict[str, int]
    arrays: list[Array]
    scalars: list[Scalar]
    nests: list[Loop]
    in_kernel: bool = False
    header: list[str] = field(default_factory=list)

    @property
    def function(self) -> str:
        """The name of the function that holds the nests."""
        return "kernel" if self.in_kernel else "main"


# ----------------------------------------------------------------------------- walking


def walk(nodes: list[Node]) -> Iterator[Node]:
    """Every node of a body, outer before inner, in source order."""
    for node in nodes:
        yield node
        if isinstance(node, (Loop, If)):
            yield from walk(node.body)


def expr_reads(expr: Expr) -> Iterator[Ref]:
    """The references an expression reads."""
    if isinstance(expr, Read):
        yield expr.ref
    elif isinstance(expr, Bin):
        yield from expr_reads(expr.left)
        yield from expr_reads(expr.right)


def refs(program: Program) -> Iterator[Ref]:
    """Every reference of the nests, written or read."""
    for node in walk(program.nests):
        if isinstance(node, Assign):
            yield node.target
            yield from expr_reads(node.value)


def used_names(program: Program) -> set[str]:
    """The arrays, scalars, parameters and loop indices the nests use."""
    names: set[str] = set()
    for ref in refs(program):
        names.add(ref.array if isinstance(ref, ArrayRef) else ref.name)
        if isinstance(ref, ArrayRef):
            for s in ref.subscripts:
                names |= s.atoms()
    for node in walk(program.nests):
        if isinstance(node, Loop):
            names |= {node.var} | node.start.atoms() | node.stop.atoms()
        elif isinstance(node, If):
            names |= node.cond.left.atoms() | node.cond.right.atoms()
        elif isinstance(node, Assign):
            names |= _index_atoms(node.value)
    return names


def _index_atoms(expr: Expr) -> set[str]:
    if isinstance(expr, IndexValue):
        return expr.value.atoms()
    if isinstance(expr, Bin):
        return _index_atoms(expr.left) | _index_atoms(expr.right)
    return set()


def drop_unused(program: Program) -> None:
    """Forget the arrays and scalars the nests no longer use."""
    used = used_names(program)
    program.arrays = [a for a in program.arrays if a.name in used]
    program.scalars = [s for s in program.scalars if s.name in used]


# ----------------------------------------------------------------------------- ranges


def param_env(program: Program) -> dict[str, Interval]:
    """The parameters' (and halved parameters') values, as intervals."""
    env: dict[str, Interval] = {}
    for name, value in program.params.items():
        env[name] = (value, value)
        env[name + HALF] = (value // 2, value // 2)
    return env


def scopes(program: Program) -> Iterator[tuple[Node, dict[str, Interval], int]]:
    """Each node with the intervals of the indices around it and its execution count bound."""

    def visit(nodes: list[Node], env: dict[str, Interval], count: int):
        for node in nodes:
            yield node, env, count
            if isinstance(node, Loop):
                lo, hi = node.range(env)
                trips = max(0, (hi - lo) // abs(node.step) + 1)
                yield from visit(node.body, {**env, node.var: (lo, max(lo, hi))}, count * trips)
            elif isinstance(node, If):
                yield from visit(node.body, env, count)

    yield from visit(program.nests, param_env(program), 1)


def subscript_ranges(program: Program) -> dict[str, list[Interval]]:
    """For each array, the smallest and largest value of each subscript (over-approximated)."""
    out: dict[str, list[Interval]] = {}
    for node, env, _ in scopes(program):
        if not isinstance(node, Assign):
            continue
        for ref in [node.target, *expr_reads(node.value)]:
            if isinstance(ref, ArrayRef):
                dims = out.setdefault(ref.array, [(0, 0)] * len(ref.subscripts))
                for d, s in enumerate(ref.subscripts):
                    lo, hi = s.interval(env)
                    dims[d] = (min(dims[d][0], lo), max(dims[d][1], hi))
    return out


def extents(program: Program) -> dict[str, list[int]]:
    """The declared size of each array: largest subscript value plus :data:`MARGIN`."""
    ranges = subscript_ranges(program)
    return {
        a.name: [hi + MARGIN for _, hi in ranges.get(a.name, [(0, 1)] * a.rank)]
        for a in program.arrays
    }


def work(program: Program) -> int:
    """An upper bound on the statement executions of the nests, initialisation and checksums."""
    total = sum(count for node, _, count in scopes(program) if isinstance(node, Assign))
    for dims in extents(program).values():
        size = 1
        for d in dims:
            size *= d
        total += 2 * size
    return total


def problems(program: Program) -> list[str]:
    """Why the program is not valid: a subscript that may go below zero, an unbound name."""
    out = []
    for name, dims in subscript_ranges(program).items():
        out += [f"{name}: subscript {d} may be {lo}" for d, (lo, _) in enumerate(dims) if lo < 0]
    known = set(program.params) | {a.name for a in program.arrays}
    known |= {s.name for s in program.scalars}
    bound: set[str] = set()

    def visit(nodes: list[Node], indices: set[str]) -> None:
        for node in nodes:
            names: set[str] = set()
            if isinstance(node, Loop):
                if node.var in indices:
                    out.append(f"index {node.var} reused in its own nest")
                names = node.start.atoms() | node.stop.atoms()
                visit(node.body, indices | {node.var})
                bound.add(node.var)
            elif isinstance(node, If):
                names = node.cond.left.atoms() | node.cond.right.atoms()
                visit(node.body, indices)
            else:
                names = {r.array if isinstance(r, ArrayRef) else r.name
                         for r in [node.target, *expr_reads(node.value)]}
                for r in [node.target, *expr_reads(node.value)]:
                    if isinstance(r, ArrayRef):
                        names |= set().union(*(s.atoms() for s in r.subscripts))
                names |= _index_atoms(node.value)
            out.extend(f"'{n}' is not in scope" for n in sorted(names - known - indices))

    visit(program.nests, set())
    return out


# ----------------------------------------------------------------------------- printing


@dataclass
class Rendered:
    """A program's C text, and for each function its loops in source order (None: not a nest's)."""

    text: str
    loops: dict[str, list[int | None]]


def _expr_c(expr: Expr, parent: str = "") -> str:
    if isinstance(expr, Num):
        return expr.text
    if isinstance(expr, Read):
        return expr.ref.c()
    if isinstance(expr, IndexValue):
        value = expr.value.c()
        if expr.value.terms and (len(expr.value.terms) > 1 or expr.value.const):
            value = f"({value})"
        return f"{value} * {expr.scale}"
    text = f"{_expr_c(expr.left, expr.op)} {expr.op} {_expr_c(expr.right, expr.op)}"
    return f"({text})" if parent == "*" and expr.op == "+" else text


def _body_c(nodes: list[Node], indent: int, loops: list[int | None]) -> list[str]:
    pad = "    " * indent
    lines: list[str] = []
    for node in nodes:
        if isinstance(node, Assign):
            lines.append(f"{pad}{node.target.c()} {node.op} {_expr_c(node.value)};")
            continue
        if isinstance(node, Loop):
            loops.append(node.uid)
            head = node.header()
        else:
            head = f"if ({node.cond.c()})"
        if len(node.body) == 1 and not isinstance(node.body[0], If):
            lines.append(pad + head)
            lines += _body_c(node.body, indent + 1, loops)
        else:
            lines.append(pad + head + " {")
            lines += _body_c(node.body, indent + 1, loops)
            lines.append(pad + "}")
    return lines


def _array_decl(a: Array, dims: list[int]) -> str:
    return f"double {a.name}" + "".join(f"[{d}]" for d in dims)


_CHECK_VARS = ("i", "j", "k")


def _array_loops(a: Array, dims: list[int], statement: str, loops: list[int | None]) -> list[str]:
    lines = []
    for d in range(a.rank):
        v = _CHECK_VARS[d]
        lines.append("    " * (d + 1) + f"for ({v} = 0; {v} < {dims[d]}; {v}++)")
        loops.append(None)
    lines.append("    " * (a.rank + 1) + statement)
    return lines


def _element(a: Array) -> str:
    return a.name + "".join(f"[{v}]" for v in _CHECK_VARS[: a.rank])


def _init_value(a: Array) -> str:
    weights = (7, 3, 5)
    terms = " + ".join(f"{v} * {w}" for v, w in zip(_CHECK_VARS[: a.rank], weights))
    return f"({terms} + {ord(a.name[0]) % 5 + 1}) % 11 * 0.25"


def _checksum_weight(a: Array) -> str:
    weights = (3, 7, 11)
    terms = " + ".join(f"{v} * {w}" for v, w in zip(_CHECK_VARS[: a.rank], weights))
    return f"(({terms}) % 13 + 1)"


def render(program: Program) -> Rendered:
    """The C text of ``program`` (declarations, init, nests, checksums) and its loop order."""
    dims = extents(program)
    used = used_names(program)
    params = [p for p in program.params if p in used]
    indices = sorted({n.var for n in walk(program.nests) if isinstance(n, Loop)})
    check_vars = list(_CHECK_VARS[: max((a.rank for a in program.arrays), default=0)])
    locals_ = [a for a in program.arrays if a.local]
    globals_ = [a for a in program.arrays if not a.local]
    loops: dict[str, list[int | None]] = {"main": []}
    out = [f"/* {line} */" if line else "" for line in program.header]
    out += ["", "#include <stdio.h>", ""] if out else ["#include <stdio.h>", ""]
    out += [f"static {_array_decl(a, dims[a.name])};" for a in globals_]
    if globals_:
        out.append("")
    nest_loops: list[int | None] = []
    nests = _body_c(program.nests, 1, nest_loops)
    scalar_decl = ["    double " + ", ".join(f"{s.name} = 0.0" for s in program.scalars) + ";"]
    prints = [f'    printf("{s.name} %.17g\\n", {s.name});' for s in program.scalars if s.printed]
    if not program.scalars:
        scalar_decl = []
    if program.in_kernel:
        formals = [f"int {p}" for p in params] + [_array_decl(a, dims[a.name]) for a in locals_]
        out += [f"static void kernel({', '.join(formals) or 'void'})", "{"]
        out += ["    int " + ", ".join(indices) + ";"] if indices else []
        out += scalar_decl + nests + prints + ["}", ""]
        loops["kernel"] = nest_loops
        main_indices = check_vars
    else:
        main_indices = sorted(set(indices) | set(check_vars))
    out += ["int main(void)", "{"]
    if params:
        out.append("    int " + ", ".join(f"{p} = {program.params[p]}" for p in params) + ";")
    if main_indices:
        out.append("    int " + ", ".join(main_indices) + ";")
    if program.arrays:
        out.append("    double sum;")
    if not program.in_kernel:
        out += scalar_decl
    out += [f"    {_array_decl(a, dims[a.name])};" for a in locals_]
    for a in program.arrays:
        out += _array_loops(a, dims[a.name], f"{_element(a)} = {_init_value(a)};", loops["main"])
    if program.in_kernel:
        out.append(f"    kernel({', '.join(params + [a.name for a in locals_])});")
    else:
        out += nests + prints
        loops["main"] += nest_loops
    for a in program.arrays:
        out.append("    sum = 0.0;")
        out += _array_loops(a, dims[a.name], f"sum += {_element(a)} * {_checksum_weight(a)};",
                            loops["main"])
        out.append(f'    printf("{a.name} %.17g\\n", sum);')
    out += ["    return 0;", "}", ""]
    return Rendered("\n".join(out), loops)


def to_c(program: Program) -> str:
    """The C text of ``program``."""
    return render(program).text


def loop_uids(program: Program) -> list[int]:
    """The uids of the nests' loops, outer before inner, in source order."""
    return [n.uid for n in walk(program.nests) if isinstance(n, Loop)]


def fresh_uids(program: Program) -> None:
    """Number the nests' loops 1, 2, … in source order."""
    counter = itertools.count(1)
    for node in walk(program.nests):
        if isinstance(node, Loop):
            node.uid = next(counter)
