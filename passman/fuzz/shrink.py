"""Shrink a failing case to a small program that fails the same way, and save it.

Greedy passes over the structured form, biggest cuts first: drop steps (api
mode), nests, statements; replace a loop by its body (its index by its
first value) and a condition by its body; move the nests to ``main`` and the
arrays to file scope; halve the parameters and the trip counts, make bounds
constant, steps 1; simplify right-hand sides and subscripts. Each candidate
that is still a valid program (:func:`~passman.fuzz.program.problems`) goes
through the oracle and is kept when the verdict has the same signature (the
kind, and a traceback's exception type). Stops when a whole pass keeps
nothing, or at the time budget.

A ``timeout`` shrinks under a third of the limit (at least 5 s): a
candidate that passes is quick, one that still hangs costs the limit, and
the budget buys three times more of them.
"""

from __future__ import annotations

import copy
import hashlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from .case import Case, api_steps, judge
from .generator import MAX_WORK
from .oracle import Verdict
from .program import (
    Affine,
    ArrayRef,
    Assign,
    Bin,
    Expr,
    If,
    IndexValue,
    Loop,
    Node,
    Num,
    Program,
    Read,
    Ref,
    drop_unused,
    param_env,
    problems,
    scopes,
    to_c,
    walk,
    work,
)

#: an edit of a copy of the program; False when it does not apply
Edit = Callable[[Program], bool]


# ----------------------------------------------------------------------------- tree edits


def bodies(program: Program) -> list[list[Node]]:
    """Every statement list of the program (the nests, then each loop's and condition's body)."""
    return [program.nests] + [n.body for n in walk(program.nests) if isinstance(n, (Loop, If))]


def prune(nodes: list[Node]) -> list[Node]:
    """``nodes`` without the loops and conditions left empty."""
    out: list[Node] = []
    for node in nodes:
        if isinstance(node, (Loop, If)):
            node.body = prune(node.body)
            if not node.body:
                continue
        out.append(node)
    return out


def _map_expr(expr: Expr, f: Callable[[Ref], Ref], g: Callable[[Affine], Affine]) -> Expr:
    if isinstance(expr, Read):
        return Read(f(expr.ref))
    if isinstance(expr, IndexValue):
        return IndexValue(g(expr.value), expr.scale)
    if isinstance(expr, Bin):
        return Bin(expr.op, _map_expr(expr.left, f, g), _map_expr(expr.right, f, g))
    return expr


def substitute(nodes: list[Node], var: str, value: Affine) -> None:
    """Replace index ``var`` by ``value`` everywhere in ``nodes`` (in place)."""

    def aff(a: Affine) -> Affine:
        return a.substitute(var, value)

    def ref(r: Ref) -> Ref:
        return ArrayRef(r.array, tuple(aff(s) for s in r.subscripts)) if isinstance(r, ArrayRef) else r

    for node in walk(nodes):
        if isinstance(node, Loop):
            node.start, node.stop = aff(node.start), aff(node.stop)
        elif isinstance(node, If):
            node.cond = replace(node.cond, left=aff(node.cond.left), right=aff(node.cond.right))
        else:
            node.target = ref(node.target)
            node.value = _map_expr(node.value, ref, aff)


def _subexpressions(expr: Expr) -> list[Expr]:
    if isinstance(expr, Bin):
        return [expr.left, expr.right]
    return []


def _reads(expr: Expr) -> int:
    if isinstance(expr, Read):
        return 1
    if isinstance(expr, Bin):
        return _reads(expr.left) + _reads(expr.right)
    return 0


def _replace_read(expr: Expr, k: int, new: Expr) -> tuple[Expr, int]:
    """``expr`` with its ``k``-th read replaced by ``new``, and how many reads it holds."""
    if isinstance(expr, Read):
        return (new if k == 0 else expr), 1
    if isinstance(expr, Bin):
        left, n = _replace_read(expr.left, k, new)
        right, m = _replace_read(expr.right, k - n, new)
        return Bin(expr.op, left, right), n + m
    return expr, 0


def _simpler(a: Affine) -> list[Affine]:
    """Simpler subscripts: without the constant, without one term, with coefficients 1."""
    out = []
    if a.const:
        out.append(Affine(0, a.terms))
    if len(a.terms) > 1:
        out += [Affine(a.const, a.terms[:k] + a.terms[k + 1 :]) for k in range(len(a.terms))]
    if any(c != 1 for _, c in a.terms):
        out.append(Affine(a.const, tuple((t, 1) for t, _ in a.terms)))
    return out


def _refs_of(node: Assign) -> list[ArrayRef]:
    out = []
    if isinstance(node.target, ArrayRef):
        out.append(node.target)

    def visit(e: Expr) -> None:
        if isinstance(e, Read) and isinstance(e.ref, ArrayRef):
            out.append(e.ref)
        elif isinstance(e, Bin):
            visit(e.left)
            visit(e.right)

    visit(node.value)
    return out


# ----------------------------------------------------------------------------- candidates


def _delete(b: int, k: int) -> Edit:
    def edit(p: Program) -> bool:
        del bodies(p)[b][k]
        return True

    return edit


def _unwrap(b: int, k: int) -> Edit:
    def edit(p: Program) -> bool:
        lst = bodies(p)[b]
        node = lst[k]
        if isinstance(node, Loop):
            substitute(node.body, node.var, node.start)
        lst[k : k + 1] = node.body
        return True

    return edit


def _loop_edit(b: int, k: int, how: str) -> Edit:
    def edit(p: Program) -> bool:
        node = bodies(p)[b][k]
        assert isinstance(node, Loop)
        env = next(e for n, e, _ in scopes(p) if n is node)
        lo, hi = node.range(env)
        if how == "halve":
            if hi - lo < 2 * abs(node.step):
                return False
            node.stop = Affine.of(lo + (hi - lo + 1) // 2)  # the first (or last) half of the values
            return True
        if how == "constant":
            params = param_env(p)
            old = (node.start, node.stop)
            for name in list(params):
                value = Affine.of(params[name][0])
                node.start, node.stop = node.start.substitute(name, value), node.stop.substitute(name, value)
            return (node.start, node.stop) != old
        if how == "step":
            if abs(node.step) == 1:
                return False
            node.step = 1 if node.step > 0 else -1
            return True
        if how == "start":  # the first value, constant (a triangular loop becomes rectangular)
            if not node.start.terms:
                return False
            node.start = Affine.of(lo if node.step > 0 else hi)
            return True
        return False

    return edit


def _value_edit(b: int, k: int, how: str, n: int = 0) -> Edit:
    def edit(p: Program) -> bool:
        node = bodies(p)[b][k]
        assert isinstance(node, Assign)
        if how == "part":  # the n-th operand of the top operation
            parts = _subexpressions(node.value)
            if n >= len(parts):
                return False
            node.value = parts[n]
        elif how == "constant":  # the n-th read becomes 1.0
            if n >= _reads(node.value):
                return False
            node.value = _replace_read(node.value, n, Num("1.0"))[0]
        elif how == "assign":
            if node.op == "=":
                return False
            node.op = "="
        return True

    return edit


def _subscript_edit(b: int, k: int, r: int, d: int, v: int) -> Edit:
    def edit(p: Program) -> bool:
        node = bodies(p)[b][k]
        assert isinstance(node, Assign)
        refs = _refs_of(node)
        old = refs[r]
        options = _simpler(old.subscripts[d])
        if v >= len(options):
            return False
        new = ArrayRef(old.array, (*old.subscripts[:d], options[v], *old.subscripts[d + 1 :]))
        count = [0]

        def swap(ref: Ref) -> Ref:
            hit = isinstance(ref, ArrayRef) and count[0] == r
            count[0] += isinstance(ref, ArrayRef)
            return new if hit else ref

        node.target = swap(node.target)
        node.value = _map_expr(node.value, swap, lambda a: a)
        return True

    return edit


def _program_edit(how: str, name: str = "") -> Edit:
    def edit(p: Program) -> bool:
        if how == "main":
            if not p.in_kernel:
                return False
            p.in_kernel = False
        elif how == "global":
            if not any(a.local for a in p.arrays):
                return False
            for a in p.arrays:
                a.local = False
        elif how == "unprint":
            scalar = next(s for s in p.scalars if s.name == name)
            if not scalar.printed:
                return False
            scalar.printed = False
        elif how in ("half", "less"):
            value = p.params[name]
            new = value // 2 if how == "half" else value - 1
            if new < 1:
                return False
            p.params[name] = new
        return True

    return edit


def candidates(program: Program) -> Iterator[tuple[str, Edit]]:
    """The edits to try on ``program``, biggest cuts first."""
    lists = bodies(program)
    places = [(b, k, node) for b, lst in enumerate(lists) for k, node in enumerate(lst)]
    for b, k, _ in places:
        yield f"delete {b}/{k}", _delete(b, k)
    for b, k, node in places:
        if isinstance(node, (Loop, If)):
            yield f"unwrap {b}/{k}", _unwrap(b, k)
    yield "nests in main", _program_edit("main")
    yield "arrays global", _program_edit("global")
    for s in program.scalars:
        yield f"unprint {s.name}", _program_edit("unprint", s.name)
    for name in program.params:
        yield f"halve {name}", _program_edit("half", name)
    for b, k, node in places:
        if isinstance(node, Loop):
            for how in ("halve", "constant", "step", "start"):
                yield f"{how} loop {b}/{k}", _loop_edit(b, k, how)
    for b, k, node in places:
        if isinstance(node, Assign):
            yield f"assign {b}/{k}", _value_edit(b, k, "assign")
            for n in range(2):
                yield f"part {n} of {b}/{k}", _value_edit(b, k, "part", n)
            for n in range(_reads(node.value)):
                yield f"read {n} of {b}/{k} is 1.0", _value_edit(b, k, "constant", n)
    for b, k, node in places:
        if isinstance(node, Assign):
            for r, ref in enumerate(_refs_of(node)):
                for d, sub in enumerate(ref.subscripts):
                    for v in range(len(_simpler(sub))):
                        yield f"subscript {r}.{d}.{v} of {b}/{k}", _subscript_edit(b, k, r, d, v)
    for name in program.params:
        yield f"decrement {name}", _program_edit("less", name)


def edited(program: Program, edit: Edit) -> Program | None:
    """A copy of ``program`` with ``edit`` made and cleaned up, None when invalid or unchanged."""
    new = copy.deepcopy(program)
    if not edit(new):
        return None
    new.nests = prune(new.nests)
    drop_unused(new)
    if problems(new) or work(new) > MAX_WORK:
        return None
    return new


def shrink(
    case: Case,
    verdict: Verdict,
    budget: float = 180,
    timeout: float = 30,
    log: Callable[[str], None] | None = None,
    oracle: Callable[[Case, float], Verdict] = judge,
) -> tuple[Case, Verdict]:
    """A smaller case with ``verdict``'s signature, within ``budget`` seconds (oracle runs included).

    ``oracle(case, timeout)`` judges each candidate (default: :func:`~passman.fuzz.case.judge`).
    """
    deadline = time.monotonic() + budget
    target = verdict.signature()
    if verdict.kind == "timeout":
        timeout = min(timeout, max(5.0, timeout / 3))
    best, best_verdict = case, verdict

    def keeps(candidate: Case) -> bool:
        nonlocal best, best_verdict
        got = oracle(candidate, timeout)
        if got.signature() != target:
            return False
        best, best_verdict = candidate, got
        if log:
            log(f"shrink: {len(to_c(candidate.program).splitlines())} lines, {len(candidate.steps)} steps")
        return True

    if case.mode == "api":  # fewer steps first
        k = 0
        while k < len(best.steps) and time.monotonic() < deadline:
            if not keeps(replace(best, steps=best.steps[:k] + best.steps[k + 1 :])):
                k += 1
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        start = 0
        while time.monotonic() < deadline:
            text = to_c(best.program)
            for index, (_what, edit) in enumerate(candidates(best.program)):
                if index < start:
                    continue
                if time.monotonic() >= deadline:
                    break
                new = edited(best.program, edit)
                if new is None or to_c(new) == text:
                    continue
                if keeps(replace(best, program=new)):
                    progress = True
                    start = index
                    break
            else:
                break
    if best.mode == "api":
        best = replace(best, steps=[s for s in best.steps if s.loop is None or
                                    s.loop in {n.uid for n in walk(best.program.nests) if isinstance(n, Loop)}])
    return best, best_verdict


# ----------------------------------------------------------------------------- saving


def _comment(text: str) -> str:
    return text.replace("*/", "* /")


def save(case: Case, verdict: Verdict, directory: str | Path) -> Path:
    """Write the case's program to ``directory/<kind>_<hash>.c`` with a header saying how to reproduce it."""
    program = copy.deepcopy(case.program)
    body = to_c(program)
    digest = hashlib.sha1(f"{case.mode}{case.options}{body}".encode()).hexdigest()[:8]
    path = Path(directory) / f"{verdict.kind}_{digest}.c"
    options = " ".join(case.options)
    header = [
        f"Fuzz case: {verdict.kind} in {case.mode} mode, seed {case.seed}, shrunk automatically.",
        f"Found by: python -m passman.fuzz --mode {case.mode} --seed {case.seed} --cases 1",
        f"Check it: python -m passman.fuzz --check {path.name}",
    ]
    if case.mode == "openmp":
        header.append(f"Or: passman run openmp {path.name} -o out {options}".rstrip())
    if case.mode == "accel":
        header.append(f"Or: passman run accel {path.name} -o out --build --run {options}".rstrip())
        header.append("passman-mode: accel")
    header.append(_comment(f"Problem: {verdict.detail}"[:400]))
    if options:
        header.append(f"passman-options: {options}")
    if verdict.kind == "timeout" and verdict.limit:
        header.append(f"passman-timeout: {verdict.limit:g}")
    if case.mode == "api":
        steps = [s.to_json() for s in api_steps(case)]
        header.append(_comment(f"passman-steps: {json.dumps(steps)}"))
    program.header = header
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_c(program))
    return path

