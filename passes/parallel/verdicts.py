"""Parallel loops: which loops may run their iterations in any order, and why the others may not.

For every ``for`` loop of a function, a :class:`LoopVerdict`: parallel or
not, given the scalars (and arrays) each iteration must own
(:mod:`..analysis.privatization`) and the reductions it needs (:mod:`..analysis.reductions`);
otherwise the reasons, in source terms. Before / after
(``module.display("parallel_loops")``, generated labels shown)::

    // not parallel: A[i][j] written at t.c:7 is read by A[i - 1][j] at t.c:7 one iteration later (flow, distance 1)
    // loop l1
    for (i = 1; i < n; i++)
        // parallel, private: j
        // loop l2
        for (j = 0; j < n; j++)
            A[i][j] = A[i - 1][j] + x[j];
    // parallel, private: i, reductions: sum[s[0]]
    // loop l3
    for (i = 0; i < n; i++)
        *s += x[i];

How a verdict is reached (exact where the code is affine, conservative
where it is not, never wrong):

1. the loop must be counted: ``for (i = lb; i < ub; i += step)`` (``<=``,
   ``>``, ``>=``, ``&&`` of bounds) on an integer ``i`` that the body does not
   write, with bounds the body does not change, and no ``break``, ``return``,
   ``goto`` out of the body, nor a call that ends the program;
2. calls: an unknown function or a call through a function pointer may
   access any memory (``*anywhere*``); a library function that writes
   library state (``printf`` writes the stdio state ``__passman_io_state``,
   ``malloc`` the heap state) orders the iterations; pure functions
   (``sqrt``, ``exp``, program functions without effects) do not, but
   what pure library functions read through their pointer arguments
   (``strlen(s)`` reads ``s[*]``) counts;
3. scalars written in the loop must be private, lastprivate (and then
   written in every iteration, so that the last iteration gives the value)
   or reductions; a reduction on a global that a called function updates
   is refused (the callee would not see the private copy);
4. memory: inside a static control part, no dependence may be carried by
   the loop (:mod:`.poly.dependences`) except on private, lastprivate or
   reduced variables; updates ``x op= e`` whose carried dependences are all
   between their own accesses to ``x`` are reductions too. Elsewhere, the
   proper effects of the body, pairwise, then the convex array regions
   (:mod:`.memory`; dependences in source terms and the
   reductions they prove: :mod:`.dependences`).

Resources: ``parallel_loops`` (module): ``{label: LoopVerdict}`` in source
order; ``why_not_parallel`` (loop): ``loop.why_not_parallel()`` is ``""`` for a
parallel loop, else one sentence naming the loop and every reason.

Private arrays come from :mod:`..analysis.privatization`
(:func:`..analysis.array_privatization.array_privatizer`, from IN and OUT regions).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from pycparser import c_ast

from passman import HELPER_PREFIX, Loop, Module, PassmanError, analysis
from passman.astutil import copy_node
from passman.loop import iter_sites, loop_sites
from passman.printer import to_c

from ..analysis.effect_model import (
    ANYWHERE,
    Effect,
    function_scope,
    is_variable,
    stub_info,
    written_names,
)
from ..analysis.reductions import Reduction
from ..analysis.references import call_sites, statement_refs, statements
from ..cfacts.control import escaping_jumps
from ..cfacts.folding import int_value, simplify
from ..cfacts.loops import for_header
from ..cfacts.names import where
from ..cfacts.sideeffects import PURE_LIBM, has_side_effects, variables
from .dependences import best_dependence, dependence_reductions, describe_dependence
from .memory import Access, AccessConflicts

__all__ = ["LoopHeader", "LoopVerdict", "loop_header", "loop_verdict", "parallel_loops", "why_not_parallel"]

#: descriptions of the library state variables of the stubs
_STATES = {"__passman_io_state": "the stdio state", "__passman_heap_state": "the heap state"}
_LIBRARY_STATE = HELPER_PREFIX  # library-internal state of the stubs


@dataclass(frozen=True)
class LoopVerdict:
    """Whether a loop's iterations may run in any order, and what that needs.

    ``parallel``: true given the privatizations and reductions listed;
    ``private``: scalars (and arrays) each iteration must own (the loop index
    included when it is declared outside the loop); ``lastprivate``: private
    but live after the loop (the value of the sequentially last iteration is
    needed); ``reductions``: those needed to run in parallel (empty: plainly
    parallel); ``reasons``: why not parallel, in source terms (empty when
    parallel); ``trip_count``: C expression of the number of iterations when
    known (``"n - 2"``; it may be negative for a loop that does not run);
    ``work_estimate``: statement executions per iteration, inner trip counts
    times statements when they are constants (None when unknown).
    """

    label: str
    parallel: bool
    private: tuple[str, ...]
    lastprivate: tuple[str, ...]
    reductions: tuple[Reduction, ...]
    reasons: tuple[str, ...]
    trip_count: str | None
    work_estimate: int | None


# ------------------------------------------------------------------ loop headers


@dataclass(frozen=True)
class LoopHeader:
    """``for (index = lower; index op bound [&& ...]; index += step)``."""

    index: str
    decl: c_ast.Decl
    lower: c_ast.Node
    bounds: tuple[tuple[str, c_ast.Node], ...]  # (op, bound) read as ``index op bound``
    step: int

    def trip_count(self) -> str | None:
        """C expression of the number of iterations (one bound only), or None."""
        if len(self.bounds) != 1:
            return None
        op, bound = self.bounds[0]
        s = abs(self.step)
        hi, lo = (bound, self.lower) if self.step > 0 else (self.lower, bound)
        span: c_ast.Node = c_ast.BinaryOp("-", copy_node(hi), copy_node(lo))
        extra = s if op in ("<=", ">=") else s - 1
        if extra:
            span = c_ast.BinaryOp("+", span, c_ast.Constant("int", str(extra)))
        if s != 1:
            span = c_ast.BinaryOp("/", span, c_ast.Constant("int", str(s)))
        span = simplify(span)
        value = int_value(span)
        if value is not None:
            return str(max(value, 0))
        return to_c(span)


_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def loop_header(loop: c_ast.For, module: Module) -> tuple[LoopHeader | None, str | None]:
    """The counted-loop shape of ``loop``, or None and why it is not one."""
    scope = function_scope(module)
    shape = for_header(loop, scope.names)
    if shape is None:
        return None, f"its header at {where(loop)} is not 'for (i = lower; i < upper; i += step)'"
    decl, lower, step = shape
    if not isinstance(decl, c_ast.Decl) or scope.category(decl) not in ("signed", "unsigned"):
        return None, f"its index {getattr(decl, 'name', '?')} at {where(loop)} is not an integer variable"
    if has_side_effects(lower):
        return None, f"its lower bound at {where(loop)} has side effects"
    bounds = []
    conjuncts = _conjuncts(loop.cond) if loop.cond is not None else []
    if not conjuncts:
        return None, f"it has no condition at {where(loop)}"
    for c in conjuncts:
        b = _bound(c, decl, scope)
        if b is None:
            return None, f"its condition {to_c(c)} at {where(loop)} is not a bound on {decl.name}"
        op, e = b
        if (step > 0) != (op in ("<", "<=")):
            return None, (f"its condition {to_c(c)} at {where(loop)} does not bound {decl.name} in the "
                          "direction it moves")
        bounds.append(b)
    return LoopHeader(decl.name, decl, lower, tuple(bounds), step), None


def _conjuncts(e: c_ast.Node) -> list[c_ast.Node]:
    if isinstance(e, c_ast.BinaryOp) and e.op == "&&":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _bound(c: c_ast.Node, decl: object, scope) -> tuple[str, c_ast.Node] | None:
    if not isinstance(c, c_ast.BinaryOp) or c.op not in _MIRROR:
        return None

    def is_index(e: c_ast.Node) -> bool:
        return isinstance(e, c_ast.ID) and scope.names.decl_of(e) is decl

    def free(e: c_ast.Node) -> bool:
        return not has_side_effects(e) and not any(scope.names.decl_of(v) is decl for v in variables(e))

    if is_index(c.left) and free(c.right):
        return c.op, c.right
    if is_index(c.right) and free(c.left):
        return _MIRROR[c.op], c.left
    return None


def work_estimate(stmt: c_ast.Node | None, module: Module) -> int | None:
    """Statement executions of one run of ``stmt`` (inner loops with constant trip counts), or None."""
    match stmt:
        case None | c_ast.EmptyStatement() | c_ast.Pragma():
            return 0
        case c_ast.Compound():
            total = 0
            for s in stmt.block_items or []:
                w = work_estimate(s, module)
                if w is None:
                    return None
                total += w
            return total
        case c_ast.Label():
            return work_estimate(stmt.stmt, module)
        case c_ast.If():
            a, b = work_estimate(stmt.iftrue, module), work_estimate(stmt.iffalse, module)
            return None if a is None or b is None else 1 + max(a, b)
        case c_ast.For():
            hdr, _ = loop_header(stmt, module)
            trips = hdr.trip_count() if hdr is not None else None
            n = int(trips) if trips is not None and trips.isdigit() else None
            body = work_estimate(stmt.stmt, module)
            return None if n is None or body is None else n * (body + 1)
        case c_ast.While() | c_ast.DoWhile() | c_ast.Switch():
            return None
    return 1


# ------------------------------------------------------------------ verdicts


class _ModuleVerdicts:
    """The verdicts of the loops of one function."""

    def __init__(self, module: Module):
        self.module = module
        self.ws = module.ws
        self.scope = function_scope(module)
        self.proper = module.resource("proper_effects")
        self.cumulated = module.resource("cumulated_effects")
        self.reductions = module.resource("reductions")
        self.privates = module.resource("private_variables")
        self._deps: object = False

    def dependences(self):
        """The ``dependences`` resource, or None when the polyhedral view is unavailable."""
        if self._deps is False:
            try:
                self._deps = self.module.resource("dependences")
            except PassmanError:
                self._deps = None
        return self._deps

    def verdict(self, node: c_ast.For, label: str) -> LoopVerdict:
        causes: list[str] = []
        hdr, why = loop_header(node, self.module)
        if why:
            causes.append(why)
        body_eff = self.cumulated.of(node.stmt) if node.stmt is not None else ()
        loop_eff = self.cumulated.of(node)
        causes += self.jumps(node)
        if hdr is not None:
            causes += self.bound_changes(node, hdr, body_eff)
        causes += self.calls(node, loop_eff)
        lp = self.privates[id(node)][1] if id(node) in self.privates else None
        private = set(lp.private) | set(lp.private_arrays) if lp else set()
        last = set(lp.lastprivate) if lp else set()
        reds = {r.var: r for r in self.reductions.loop(node) if not r.var.startswith(_LIBRARY_STATE)}
        needed: dict[str, Reduction] = {}
        index = hdr.index if hdr is not None else None
        pending: dict[str, str] = {}
        for e in loop_eff:
            if e.action != "write" or not e.is_scalar or e.var.startswith(_LIBRARY_STATE) or e.var == index:
                continue
            name = e.var
            if name in reds:
                needed[name] = reds[name]
            elif name in private:
                continue
            elif name in last:
                if not _written_always(name, body_eff):
                    causes.append(f"{name} is written in some iterations only and is used after the loop "
                                  "(no last iteration gives its final value)")
                elif not _runs(hdr):
                    causes.append(f"{name} is used after the loop, which may run no iteration (then "
                                  "OpenMP's lastprivate does not keep its value)")
            else:
                pending[name] = self.scalar_cause(node, lp, name)
        if hdr is not None:
            in_bounds = {v.name for _, b in hdr.bounds for v in variables(b)}
            pending = {k: v for k, v in pending.items() if k not in in_bounds or not causes}
        if hdr is not None and not causes:
            causes += self.memory(node, label, hdr, loop_eff, private, last, reds, needed, pending)
        elif hdr is not None:
            causes += list(pending.values())
        for var in sorted(needed):
            via = self.updated_by_callee(node, var, loop_eff)
            if via:
                causes.append(f"{needed[var].text} is updated inside {via}: a reduction on a global "
                              "updated by a callee cannot be given a private copy")
        causes = list(dict.fromkeys(causes))
        parallel = not causes
        return LoopVerdict(
            label=label,
            parallel=parallel,
            private=tuple(sorted(private - set(needed))),
            lastprivate=tuple(sorted(last - set(needed))),
            reductions=tuple(sorted(needed.values(), key=lambda r: (r.var, r.op))) if parallel else (),
            reasons=tuple(causes),
            trip_count=hdr.trip_count() if hdr is not None else None,
            work_estimate=work_estimate(node.stmt, self.module),
        )

    # -- control ------------------------------------------------------------------------
    def jumps(self, node: c_ast.For) -> list[str]:
        out = []
        for j in escaping_jumps(node.stmt) if node.stmt is not None else []:
            if isinstance(j, c_ast.Continue):
                continue
            word = {c_ast.Return: "return", c_ast.Break: "break"}.get(type(j), "")
            if isinstance(j, c_ast.Goto):
                word = f"goto {j.name}"
            out.append(f"{word or 'a jump'} at {where(j)} leaves the loop early")
        return out

    def bound_changes(self, node: c_ast.For, hdr: LoopHeader, body_eff: Iterable[Effect]) -> list[str]:
        written = written_names(body_eff)
        out = []
        if hdr.index in written:
            out.append(f"the body writes the loop index {hdr.index} (at {self.writer(node, hdr.index)})")
        for _, bound in hdr.bounds:
            for name in sorted({v.name for v in variables(bound)} & written):
                out.append(f"its bound {to_c(bound)} changes in the body ({name} written at "
                           f"{self.writer(node, name)})")
            if ANYWHERE in written and any(
                r.mode == "read" and not r.is_scalar for r in statement_refs(bound, self.scope.names, self.scope.types)
            ):
                out.append(f"its bound {to_c(bound)} at {where(node)} reads memory the body may write")
        return out

    def writer(self, node: c_ast.For, name: str) -> str:
        """``file:line`` of the first statement of the body that writes ``name``."""
        for s in statements(node.stmt):
            if any(e.var == name and e.action == "write" for e in self.proper.of(s)):
                return where(s)
        return where(node)

    # -- calls --------------------------------------------------------------------------
    def calls(self, node: c_ast.For, loop_eff: Iterable[Effect]) -> list[str]:
        out: list[str] = []
        for s in statements(node):
            for call in call_sites(s):
                out.extend(self.call_causes(call))
        if not out and any(e.var == ANYWHERE for e in loop_eff):
            for s in statements(node):
                if any(e.var == ANYWHERE for e in self.proper.of(s)):
                    out.append(f"the statement at {where(s)} may access any memory (through a pointer "
                               "whose target is unknown)")
                    break
            else:
                out.append(f"the loop at {where(node)} may access any memory")
        return out

    def call_causes(self, call: c_ast.FuncCall) -> list[str]:
        at = where(call)
        if not isinstance(call.name, c_ast.ID) or is_variable(self.scope.names.decl_of(call.name)):
            return [f"the call through the function pointer {to_c(call.name)} at {at} may access any memory"]
        name = call.name.name
        info = stub_info(self.ws, name)
        model = getattr(info, "model", None) or {}
        if model.get("noreturn"):
            return [f"{name} at {at} ends the program"]
        if info is not None and getattr(info, "pure", False):
            return []
        callee = self.ws.callee(name)
        if callee is None:
            if name in PURE_LIBM:
                return []
            return [f"{name} at {at} is an unknown function: it may access any memory"]
        try:
            summary = self.ws.resource("summary_effects", callee)
        except PassmanError:
            return [f"{name} at {at} may access any memory (its effects are unknown)"]
        out = []
        if any(e.var == ANYWHERE for e in summary):
            out.append(f"{name} at {at} may access any memory")
        for var in sorted({e.var for e in summary if e.action == "write" and e.var.startswith(_LIBRARY_STATE)}):
            state = _STATES.get(var, f"the library state {var}")
            out.append(f"{name} writes {state} at {at}")
        return out

    def updated_by_callee(self, node: c_ast.For, var: str, loop_eff: Iterable[Effect]) -> str | None:
        """``f at file:line`` when ``var`` is a global (or static) that a function called in the loop accesses."""
        if not any(e.var == var and e.kind in ("global", "static") for e in loop_eff):
            return None
        for s in statements(node):
            for call in call_sites(s):
                callee = self.ws.callee(call.name.name) if isinstance(call.name, c_ast.ID) else None
                if callee is None or callee.is_stub:
                    continue
                try:
                    summary = self.ws.resource("summary_effects", callee)
                except PassmanError:
                    return f"{callee.name} at {where(call)}"
                if any(e.var == var for e in summary):
                    return f"{callee.name} at {where(call)}"
        return None

    # -- scalars ------------------------------------------------------------------------
    def scalar_cause(self, node: c_ast.For, lp, name: str) -> str:
        text = f"{name} is written at {self.writer(node, name)} and is neither private nor a reduction"
        for w in lp.why if lp else ():
            k = w.find(f": {name} is not private")
            if k >= 0:
                text = w[k + 2:]
                break
        for r in self.reductions.reasons(node):
            k = r.find(f": {name}")
            if k >= 0 and "is not a reduction" in r:
                text += f"; {r[k + 2:]}"
                break
        return text

    # -- memory -------------------------------------------------------------------------
    def memory(self, node, label, hdr, loop_eff, private, last, reds, needed, pending) -> list[str]:
        scalars = _scalars_written(loop_eff) - {hdr.index}
        owned = private | last | {hdr.index}
        deps = self.dependences()
        carried = deps.carried_at(label) if deps is not None else None
        if carried is None:
            conflicts = AccessConflicts(self.module, node, hdr.index, scalars)
            return list(pending.values()) + self.access_conflicts(conflicts, owned, reds, needed, None)
        remaining = []
        for d in carried:
            if d.array in reds:
                needed[d.array] = reds[d.array]
            elif d.array not in owned:
                remaining.append(d)
        found, left = dependence_reductions(remaining, scalars, self.proper)
        needed.update(found)
        by_var: dict[str, list] = {}
        for d in left:
            by_var.setdefault(d.array, []).append(d)
        causes = [describe_dependence(best_dependence(ds), hdr.step) for ds in by_var.values()]
        # pure library functions may read through their pointer arguments, which the SCoP does not model
        if self.calls_pure_library(node):
            conflicts = AccessConflicts(self.module, node, hdr.index, scalars)
            through_calls = {a.effect.var for a in conflicts.accesses if a.by_call} - set(by_var) - set(found)
            if through_calls:
                causes += self.access_conflicts(conflicts, owned, reds, needed, through_calls)
        return causes

    def calls_pure_library(self, node: c_ast.For) -> bool:
        """Whether the body calls a pure library function that may read through a pointer."""
        for s in statements(node.stmt):
            for c in call_sites(s):
                if isinstance(c.name, c_ast.ID) and c.name.name not in PURE_LIBM and c.args is not None:
                    info = stub_info(self.ws, c.name.name)
                    if info is not None and getattr(info, "pure", False):
                        return True
        return False

    def access_conflicts(self, conflicts: AccessConflicts, owned: set[str], reds: dict[str, Reduction],
                         needed: dict[str, Reduction], only: set[str] | None) -> list[str]:
        """Causes from the pairwise test of the body's accesses (variables in ``only`` if given)."""
        causes = []
        for key, group in conflicts.by_variable().items():
            var = key[0]
            if var in owned or (only is not None and var not in only):
                continue
            pair = conflicts.conflict(group)
            if pair is None:
                continue
            if var in reds:
                needed[var] = reds[var]
                continue
            causes.append(_describe_pair(*pair))
        return causes


def _runs(hdr: LoopHeader | None) -> bool:
    """Whether the loop certainly runs at least one iteration (its trip count is a constant >= 1).

    gcc's lastprivate writes an uninitialised private copy back when a loop runs no iteration
    (fuzz case wrong_zero_trip_lastprivate: ``for (k = 2; k < 2; k++) t = 0.3;`` left t = 0).
    """
    count = hdr.trip_count() if hdr is not None else None
    return count is not None and count.isdigit() and int(count) >= 1


def _scalars_written(effects: Iterable[Effect]) -> frozenset[str]:
    """Variables whose own storage is written (their value changes), ``*anywhere*`` included."""
    return frozenset(e.var for e in effects if e.action == "write" and (e.is_scalar or e.var == ANYWHERE))


def _written_always(name: str, body_eff: Iterable[Effect]) -> bool:
    return any(e.var == name and e.action == "write" and e.approx == "must" and e.is_scalar for e in body_eff)


def _describe_pair(w: Access, x: Access) -> str:
    if x is w:
        return (f"{w.describe()} written at {w.where} may be written again by another iteration "
                "(output, distance unknown)")
    if x.is_write:
        return (f"{w.describe()} written at {w.where} may be written again by {x.describe()} at {x.where} "
                "in another iteration (output, distance unknown)")
    kind = "flow" if w.order <= x.order else "anti"
    return (f"{w.describe()} written at {w.where} may be read by {x.describe()} at {x.where} "
            f"in another iteration ({kind}, distance unknown)")


# ------------------------------------------------------------------ resources


def _display(module: Module, value: Mapping[str, LoopVerdict]) -> dict:
    out: dict = {}
    for site in iter_sites(loop_sites(module.ast)):
        v = value.get(site.label)
        if v is None:
            continue
        if v.parallel:
            parts = ["parallel"]
            if v.private:
                parts.append("private: " + " ".join(v.private))
            if v.lastprivate:
                parts.append("lastprivate: " + " ".join(v.lastprivate))
            if v.reductions:
                parts.append("reductions: " + " ".join(r.text for r in v.reductions))
            out[site.node] = [", ".join(parts)]
        else:
            out[site.node] = [f"not parallel: {r}" for r in v.reasons]
    return out


@analysis(scope="module", provides="parallel_loops", display=_display, reads=["cumulated_effects", "dependences", "function_scope", "preconditions", "private_variables", "proper_effects", "reductions", "region_analysis", "regions", "scops", "summary_effects"])
def parallel_loops(module: Module) -> Mapping[str, LoopVerdict]:
    """Whether each loop of a function is parallel, with privatizations and reductions, or why not.

    Before: ``for (i = 0; i < n; i++) s += x[i] * y[i];``
    After:  ``// parallel, reductions: sum[s]``; ``loop_verdict(loop).reductions`` holds ``sum[s]``
    """
    mv = _ModuleVerdicts(module)
    out = {}
    for site in iter_sites(loop_sites(module.ast)):
        out[site.label] = mv.verdict(site.node, site.label)
    return MappingProxyType(out)


def loop_verdict(loop: Loop) -> LoopVerdict:
    """The verdict of one loop (from the cached ``parallel_loops`` of its function)."""
    return loop.module.resource("parallel_loops")[loop.label]


@analysis(scope="loop", provides="why_not_parallel")
def why_not_parallel(loop: Loop) -> str:
    """Why a loop is not parallel, in source terms ("" when it is).

    Before: ``for (i = 1; i < n; i++) a[i] = a[i - 1] + 1;``
    After:  ``loop l1 of f (f.c:3) is not parallel: a[i] written at f.c:4 is read by a[i - 1]
    at f.c:4 one iteration later (flow, distance 1)``
    """
    v = loop_verdict(loop)
    if v.parallel:
        return ""
    return (f"loop {loop.label} of {loop.module.name} ({where(loop.node)}) is not parallel: "
            + "; ".join(v.reasons))


