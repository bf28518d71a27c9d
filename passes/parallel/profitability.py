"""Profitability of a parallel loop: is an OpenMP region here worth its fork and join?

A parallel loop becomes one parallel region each time it runs. The region
costs a fork and a join (:data:`FORK_JOIN_NS`) and saves, at two threads,
half of the loop's work. The model counts work in *statement executions*
(:func:`loop_work`: the loop's trip count times the statements of its body,
inner loops included), the unit of ``LoopVerdict.work_estimate``:

* a region run once per call of its function is parallel when its work is
  at least ``min_work`` (property ``parallel_min_work``, 2000): a loss there
  costs one fork/join at most;
* a region run many times, inside a sequential loop of its function (the
  loop is nested in a time loop, a pixel loop, a ``while``), must pay its
  fork/join at every execution: its own work per region must be at least
  ``region_work`` (property ``parallel_region_work``, :data:`REGION_WORK`
  statement executions, the break-even of :data:`FORK_JOIN_NS` at two
  threads). ``min_work=0`` does not lift this guard (``region_work=0`` does);
* when the work is a known constant the decision is taken here; when it
  depends on parameters (``n * m`` statement executions) the region gets an
  OpenMP ``if`` clause with the threshold, ``if(n * m >= 2000)``, and the
  decision is taken at run time (a false ``if`` runs the loop on the
  encountering thread, without waking the others); when it is unknown but
  bounded (bounds with ``min``/``max`` ternaries, triangular loops), an upper
  bound below the threshold keeps it sequential;
* work that cannot be estimated (a call to a program function in the body, a
  ``while`` loop) counts as profitable, as before.

Before (``r`` a parameter that takes two values, the pixel loops not
provably parallel, the tap loop a reduction)::

    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) {
            float s = 0.0f;
            #pragma omp parallel for reduction(+:s)
            for (k = -r; k <= r; k++)
                s += wt[k + r] * in[y * w + clamp(x + k, 0, w - 1)];
            out[y * w + x] = s;
        }

After: no pragma; ``why_sequential`` says "a parallel region here would open
once per iteration of the sequential loops l3, l4 around it for 2 * r + 1
statement executions each: under ... it stays sequential", with the
run-time guard ``if(2 * r + 1 >= 100000)`` the loop would need.

Every decision is a :class:`Profitability`: parallel or not, the ``if``
condition, and the reason in source terms.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from pycparser import c_ast, c_parser

from passman import Loop, Module, PassFailed, analysis, register_property, transformation
from passman.astutil import parent_map, walk
from passman.printer import to_c

from ..analysis.effect_model import FunctionScope, current_scope
from ..cfacts.control import user_labels
from ..cfacts.folding import int_value, simplify
from ..cfacts.loops import for_init
from ..cfacts.names import where
from ..cfacts.sideeffects import PURE_LIBM, variables, writes
from ..cfacts.types import expr_arith_type
from .marker import block_of, clauses, pragmas_of, replace_pragma
from .ompify import version_loop
from .verdicts import loop_header
from .work_count import Unknown, control_names, evaluate, region_runs, runs_per_call, statement_of

__all__ = [
    "FORK_JOIN_NS",
    "REGION_WORK",
    "STATEMENT_NS",
    "Profitability",
    "Work",
    "enclosing_loops",
    "loop_work",
    "parallel_profitability",
    "profitability",
    "region_decisions",
]

#: Cost of one OpenMP parallel region (fork, then join) at 2 threads, in nanoseconds. Measured on
#: the project's 2-core host (libgomp, gcc 12) by ``python benchmarks/bench_never_slower.py
#: --fork-join``: 0.3-0.4 us at 1 thread; at 2 threads 20-50 us when the host is busy (the second
#: thread waits for a core: other processes run there), up to milliseconds when it is
#: oversubscribed; a quiet host measures 1-3 us. The lowest figure of the busy host is taken: the
#: programs run there, and a wrong "sequential" costs at most the speed-up of a small region.
FORK_JOIN_NS = 20_000

#: Cost of one statement execution (the unit of the work estimates), in nanoseconds: the same
#: benchmark's vectorised ``a[i] = a[i] * 0.5 + b[i]`` runs at 0.3-0.4 ns. The lower figure makes
#: regions look smaller, so the model errs toward sequential code.
STATEMENT_NS = 0.4

#: Statement executions a region must do to pay its fork/join at two threads (it saves half of
#: its work: work / 2 >= FORK_JOIN_NS / STATEMENT_NS). 100,000 with the figures above.
REGION_WORK = round(2 * FORK_JOIN_NS / STATEMENT_NS)

REGION_WORK_PROPERTY = register_property(
    "parallel_region_work",
    int,
    REGION_WORK,
    "a parallel loop inside a sequential loop (a region opened many times) needs this much work per region "
    "(statement executions; the fork/join cost at 2 threads, passes/parallel/profitability.py)",
)


# ------------------------------------------------------------------------ work


@dataclass(frozen=True)
class Work:
    """The statement executions of one execution of a loop.

    ``value``: a known constant; ``expr``: a C expression of the parameters
    (valid right before the loop) when not constant; ``bound``: an upper
    bound from the ranges of the loop indices (None: unknown).
    """

    value: int | None = None
    expr: c_ast.Node | None = None
    bound: int | None = None

    @property
    def text(self) -> str:
        """The work as people read it: ``7``, ``2 * r + 1``, ``at most 40``, ``unknown``."""
        if self.value is not None:
            return str(self.value)
        if self.expr is not None:
            text = to_c(self.expr)
            if len(text) <= 60 or self.bound is None:
                return text
        if self.bound is not None:
            return f"at most {self.bound}"
        return "unknown"


def _const(v: int) -> c_ast.Constant:
    return c_ast.Constant("int", str(v))


def expression(text: str) -> c_ast.Node:
    """The C expression ``text`` as an AST."""
    ast = c_parser.CParser().parse(f"int __passman_x = ({text});")
    return ast.ext[0].init


def _times(a: c_ast.Node, b: c_ast.Node) -> c_ast.Node:
    return simplify(c_ast.BinaryOp("*", a, b))


def _plus(a: c_ast.Node, b: c_ast.Node) -> c_ast.Node:
    return simplify(c_ast.BinaryOp("+", a, b))


def _symbolic(stmt: c_ast.Node | None, module: Module) -> c_ast.Node | None:
    """Statement executions of one run of ``stmt`` as a C expression, or None (loops of unknown count, calls)."""
    match stmt:
        case None | c_ast.EmptyStatement() | c_ast.Pragma() | c_ast.Decl(init=None):
            return _const(0)
        case c_ast.Compound():
            total: c_ast.Node = _const(0)
            for s in stmt.block_items or []:
                w = _symbolic(s, module)
                if w is None:
                    return None
                total = _plus(total, w)
            return total
        case c_ast.Label():
            return _symbolic(stmt.stmt, module)
        case c_ast.If():
            a, b = _symbolic(stmt.iftrue, module), _symbolic(stmt.iffalse, module)
            if a is None or b is None:
                return None
            va, vb = int_value(a), int_value(b)
            if va is not None and vb is not None:
                return _const(1 + max(va, vb))
            return _plus(_const(1), _plus(a, b))  # both branches: an over-estimate
        case c_ast.For():
            hdr, _ = loop_header(stmt, module)
            trips = hdr.trip_count() if hdr is not None and _integer_bounds(stmt, module) else None
            body = _symbolic(stmt.stmt, module)
            if trips is None or body is None:
                return None
            return _times(expression(trips), _plus(body, _const(1)))
        case c_ast.While() | c_ast.DoWhile() | c_ast.Switch() | c_ast.Goto():
            return None
    if _calls_program_function(stmt, module):
        return None
    return _const(1)


#: while the model weighs loops without changing the code (:func:`_weighing`): each function's names
#: and types, resolved once (by ``id`` of its definition) instead of once per loop
_SCOPES: dict[int, FunctionScope] | None = None


@contextmanager
def _weighing() -> Iterator[None]:
    """While the code does not change: :func:`_integer_bounds` resolves a function's names once."""
    global _SCOPES
    outer = _SCOPES
    if outer is None:
        _SCOPES = {}
    try:
        yield
    finally:
        _SCOPES = outer


def _integer_bounds(loop: c_ast.For, module: Module) -> bool:
    """Whether the operands of the loop's condition and its initial value have integer types.

    The trip count becomes C code (an ``if`` clause): ``i < A`` with an array
    ``A`` (invalid C that gcc only warns about) must not give ``(long)A * 2``.
    """
    scope = _SCOPES.get(id(module.ast)) if _SCOPES is not None else None
    if scope is None or scope.func is not module.ast:
        scope = current_scope(module)
        if _SCOPES is not None:
            _SCOPES[id(module.ast)] = scope
    table, env = scope.names, scope.types
    start = for_init(loop, table)
    if start is None or not isinstance(loop.cond, c_ast.BinaryOp):
        return False
    for e in (loop.cond.left, loop.cond.right, start[1]):
        t = expr_arith_type(e, env)
        if t is None or t in ("float", "double", "long double"):
            return False
    return True


def _calls_program_function(stmt: c_ast.Node, module: Module) -> bool:
    """Whether ``stmt`` calls a function of the program (its cost is not one statement)."""
    for n in walk(stmt):
        if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID):
            name = n.name.name
            if name in PURE_LIBM:
                continue
            callee = module.ws.callee(name)
            if callee is not None and not callee.is_stub and _has_loop(callee.ast):
                return True
    return False


def _has_loop(node: c_ast.Node) -> bool:
    return any(isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile)) for n in walk(node))


def _defined_inside(node: c_ast.For) -> set[str]:
    """Names whose value changes in the loop (written, declared inside, loop indices)."""
    out = {w.base.name for w in writes(node) if w.base is not None}
    out |= {d.name for d in walk(node) if isinstance(d, c_ast.Decl) and d.name}
    return out


# ------------------------------------------------------------------------ intervals


Interval = tuple[int, int]


def _interval(e: c_ast.Node, env: dict[str, Interval]) -> Interval | None:
    """Bounds of the integer expression ``e`` given bounds of its variables (None: unbounded)."""
    v = int_value(e)
    if v is not None:
        return v, v
    match e:
        case c_ast.ID():
            return env.get(e.name)
        case c_ast.UnaryOp(op="-"):
            a = _interval(e.expr, env)
            return None if a is None else (-a[1], -a[0])
        case c_ast.Cast():
            return _interval(e.expr, env)
        case c_ast.TernaryOp():
            a, b = _interval(e.iftrue, env), _interval(e.iffalse, env)
            return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
        case c_ast.BinaryOp(op="+" | "-" | "*" | "/" | "%"):
            a, b = _interval(e.left, env), _interval(e.right, env)
            if e.op == "%" and a is None and b is not None and not b[0] <= 0 <= b[1]:
                m = max(abs(b[0]), abs(b[1])) - 1
                return -m, m  # whatever the dividend: |a % b| < |b|
            if a is None or b is None:
                return None
            if e.op == "+":
                return a[0] + b[0], a[1] + b[1]
            if e.op == "-":
                return a[0] - b[1], a[1] - b[0]
            if e.op == "*":
                c = [x * y for x in a for y in b]
                return min(c), max(c)
            if b[0] <= 0 <= b[1]:
                return None
            if e.op == "%":
                m = max(abs(b[0]), abs(b[1])) - 1
                return (-m if a[0] < 0 else 0), (m if a[1] > 0 else 0)
            c = [int(x / y) for x in a for y in b]  # C truncates toward zero
            return min(c), max(c)
    return None


def _index_range(node: c_ast.For, module: Module, env: dict[str, Interval]) -> tuple[str, Interval] | None:
    """The index of ``node`` and the bounds of its values, or None."""
    hdr, _ = loop_header(node, module)
    return None if hdr is None else _header_range(hdr, env)


def _header_range(hdr, env: dict[str, Interval]) -> tuple[str, Interval] | None:
    """The index of a loop of header ``hdr`` (:func:`loop_header`) and the bounds of its values, or None."""
    lo = _interval(hdr.lower, env)
    his = [_interval(b, env) for _, b in hdr.bounds]
    if lo is None or any(h is None for h in his):
        return None
    if hdr.step > 0:
        hi = min(h[1] - (1 if op == "<" else 0) for (op, _), h in zip(hdr.bounds, his))
        return hdr.index, (lo[0], max(lo[0], hi))
    low = max(h[0] + (1 if op == ">" else 0) for (op, _), h in zip(hdr.bounds, his))
    return hdr.index, (min(lo[1], low), lo[1])


def _bound(stmt: c_ast.Node | None, module: Module, env: dict[str, Interval]) -> int | None:
    """An upper bound of the statement executions of one run of ``stmt``, or None."""
    return _Bounder(module).bound(stmt, env)


class _Bounder:
    """Upper bounds of statement executions from interval bounds of the loop indices.

    ``pieces`` > 1: the range of a loop whose index bounds an inner loop is
    cut into that many pieces, each bounded with its own interval of the
    index (a triangular nest's bound then tends to its exact count instead
    of its box's); at most ``budget`` pieces are evaluated (None past it).
    ``calls`` (the whole program's bound): a call of a program function
    counts as one statement (the caller adds its work), and so does a
    ``goto`` to a later label (it only skips work). ``only``: count the runs
    of that statement alone.
    """

    def __init__(self, module: Module, pieces: int = 1, calls: bool = False, budget: int = 0,
                 only: c_ast.Node | None = None):
        self.module, self.pieces, self.calls, self.only = module, pieces, calls, only
        self.budget = budget
        self.loops: dict[int, tuple] = {}  # loop -> (its header, whether its index bounds an inner loop)
        self.labels: dict[str, object] | None = None  # label -> where it is (read on the first goto)

    def bound(self, stmt: c_ast.Node | None, env: dict[str, Interval]) -> int | None:
        only = self.only
        if only is not None and stmt is only:
            return 1
        match stmt:
            case None | c_ast.EmptyStatement() | c_ast.Pragma() | c_ast.Decl(init=None):
                return 0
            case c_ast.Compound():
                parts = [self.bound(s, env) for s in stmt.block_items or []]
                return None if any(p is None for p in parts) else sum(parts)
            case c_ast.Label():
                return self.bound(stmt.stmt, env)
            case c_ast.If():
                a, b = self.bound(stmt.iftrue, env), self.bound(stmt.iffalse, env)
                return None if a is None or b is None else (only is None) + max(a, b)
            case c_ast.For():
                return self._loop(stmt, env)
            case c_ast.Goto() if self.calls and self._forward(stmt):
                return 0 if only is not None else 1  # like an early return: it only skips work
            case c_ast.While() | c_ast.DoWhile() | c_ast.Switch() | c_ast.Goto():
                return None
        if only is not None:
            return 0
        if not self.calls and _calls_program_function(stmt, self.module):
            return None
        return 1

    def _forward(self, goto: c_ast.Goto) -> bool:
        """Whether ``goto`` jumps to a label later in its function (it cannot repeat work)."""
        if self.labels is None:
            self.labels = {n.name: n.coord for n in walk(self.module.ast) if isinstance(n, c_ast.Label)}
        to, at = self.labels.get(goto.name), goto.coord
        return to is not None and at is not None and (to.line, to.column) > (at.line, at.column)

    def _loop(self, loop: c_ast.For, env: dict[str, Interval]) -> int | None:
        facts = self.loops.get(id(loop))
        if facts is None:
            hdr, _ = loop_header(loop, self.module)
            split = hdr is not None and self.pieces > 1 and hdr.index in control_names(loop.stmt)
            facts = self.loops[id(loop)] = (hdr, split)
        hdr, split = facts
        rng = _header_range(hdr, env) if hdr is not None else None
        if rng is None:
            return None
        index, (lo, hi) = rng
        width, step = hi - lo + 1, abs(hdr.step)
        n = min(self.pieces, width) if split else 1
        total = 0
        for k in range(n):
            a, b = lo + k * width // n, lo + (k + 1) * width // n - 1
            if self.pieces > 1:
                self.budget -= 1
                if self.budget < 0:
                    return None
            body = self.bound(loop.stmt, {**env, index: (a, b)})
            if body is None:
                return None
            total += ((b - a) // step + 1) * (body + (self.only is None))
        return total


def _trips_bound(node: c_ast.For, module: Module, env: dict[str, Interval]) -> int | None:
    hdr, _ = loop_header(node, module)
    rng = _index_range(node, module, env) if hdr is not None else None
    if rng is None:
        return None
    lo, hi = rng[1]
    return max(0, (hi - lo) // abs(hdr.step) + 1)


def _outer_env(loops: list[c_ast.Node], module: Module) -> dict[str, Interval]:
    """Bounds of the indices of the ``for`` loops around (outermost first)."""
    env: dict[str, Interval] = {}
    for node in loops:
        if isinstance(node, c_ast.For):
            rng = _index_range(node, module, env)
            if rng is not None:
                env[rng[0]] = rng[1]
    return env


def loop_work(loop: Loop, around: list[c_ast.Node] | None = None) -> Work:
    """Statement executions of one execution of ``loop`` (see :class:`Work`)."""
    node = loop.node
    module = loop.module
    hdr, _ = loop_header(node, module)
    trips = hdr.trip_count() if hdr is not None else None
    body = _symbolic(node.stmt, module)
    if trips is not None and body is not None:
        total = _times(expression(trips), _plus(body, _const(1)))
        v = int_value(total)
        if v is not None:
            return Work(value=max(v, 0))
    env = _outer_env(around if around is not None else enclosing_loops(loop), module)
    bound = _bound(node, module, env)
    if trips is not None and body is not None:
        names = {n.name for n in variables(total)}
        if not names & _defined_inside(node):  # the indices of the loops around are fine
            return Work(expr=total, bound=bound)
    return Work(bound=bound)


# ------------------------------------------------------------------------ regions


def enclosing_loops(loop: Loop) -> list[c_ast.Node]:
    """The loops (``for``, ``while``, ``do``) of the function around ``loop``, outermost first."""
    parents = parent_map(loop.module.ast)
    out = []
    node = parents.get(id(loop.node))
    while node is not None:
        if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile)):
            out.append(node)
        node = parents.get(id(node))
    return out[::-1]


def _executions(loops: list[c_ast.Node], around: list[c_ast.Node], module: Module) -> int | None:
    """How many times ``loops`` (some of ``around``) run their body: the product of their trip counts (None: unknown)."""
    count = 1
    env: dict[str, Interval] = {}
    chosen = {id(n) for n in loops}
    for node in around:
        if id(node) in chosen and not isinstance(node, c_ast.For):
            return None
        if not isinstance(node, c_ast.For):
            continue
        if id(node) in chosen:
            trips = _trips_bound(node, module, env)
            if trips is None:
                return None
            count *= trips
        rng = _index_range(node, module, env)
        if rng is not None:
            env[rng[0]] = rng[1]
    return count


def _label(node: c_ast.Node, module: Module) -> str:
    for lp in module.all_loops:
        if lp.node is node:
            return lp.label
    return {c_ast.While: "while", c_ast.DoWhile: "do-while"}.get(type(node), "for") + f" at {where(node)}"


def repeated_call(module: Module) -> str | None:
    """Where ``module``'s function is called over and over, or None.

    A call inside a loop of a caller (or in a function that is itself
    called so, or a recursive one): each parallel region of the function
    then opens once per call, like a region inside a sequential loop.
    Returns the place in words (``"inside loop l2 of main"``).
    """
    seen: set[str] = set()
    todo = [module]
    while todo:
        m = todo.pop()
        if m.name in seen:
            if m.name == module.name:
                return f"recursively by {module.name}"
            continue
        seen.add(m.name)
        for caller in m.callers:
            parents = parent_map(caller.ast)
            for call in walk(caller.ast.body):
                if not (isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID)
                        and call.name.name == m.name):
                    continue
                node = parents.get(id(call))
                while node is not None:
                    if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile)):
                        return f"inside {_label(node, caller)} of {caller.name}"
                    node = parents.get(id(node))
            todo.append(caller)
    return None


#: functions that start a thread, and the position of the start routine among their arguments
THREAD_STARTERS = {"pthread_create": 2, "thrd_create": 1}


def _function_named(e: c_ast.Node) -> str | None:
    """The function an argument names (``f``, ``&f``, ``(void *(*)(void *))f``), or None."""
    while isinstance(e, c_ast.Cast) or (isinstance(e, c_ast.UnaryOp) and e.op == "&"):
        e = e.expr
    return e.name if isinstance(e, c_ast.ID) else None


def user_threads(module: Module) -> str | None:
    """Where the program's own threads run ``module``'s function, or None.

    The function, or a function that calls it, is the start routine of a
    ``pthread_create`` or ``thrd_create``: the program already runs it on
    several threads at once, and a parallel region there would start a team
    in each of them (more threads than cores). Returns the place in words
    (``"by the threads pthread_create starts at app.c:91"``).
    """
    ws = module.ws
    starts: list[tuple[str, str, c_ast.FuncCall]] = []  # (start routine, starter, call)
    for f in ws.modules:
        calls = ws.resource("function_references", f).calls
        for starter, position in THREAD_STARTERS.items():
            for call in calls.get(starter, ()):
                args = call.args.exprs if call.args is not None else []
                routine = _function_named(args[position]) if len(args) > position else None
                if routine is not None:
                    starts.append((routine, starter, call))
    if not starts:  # most programs: no walk up the callers
        return None
    names: set[str] = set()
    todo = [module]
    while todo:
        m = todo.pop()
        if m.name not in names:
            names.add(m.name)
            todo.extend(m.callers)
    for routine, starter, call in starts:
        if routine in names:
            return f"by the threads {starter} starts at {where(call)}"
    return None


@dataclass(frozen=True)
class Profitability:
    """Whether a parallel region on a loop pays: ``parallel``, the run-time ``condition`` ("" none), why."""

    parallel: bool
    condition: str = ""
    reason: str = ""
    #: the condition chooses between a parallel and a sequential copy of the loop (a region opened
    #: repeatedly: an OpenMP ``if(false)`` still calls the outlined body through the runtime)
    versioned: bool = False


def profitability(
    loop: Loop,
    min_work: int,
    region_work: int,
    parallel: Callable[[c_ast.Node], bool] = lambda node: False,
) -> Profitability:
    """The model's decision for a parallel region on ``loop`` (see the module docstring).

    ``parallel(node)``: whether a loop around is itself parallel; then it, not
    ``loop``, opens the region (or collapses ``loop`` into its own), and it
    does not count among the sequential loops that would open ``loop``'s
    region repeatedly.
    """
    with _weighing():
        return _profitability(loop, min_work, region_work, parallel)


def _profitability(
    loop: Loop, min_work: int, region_work: int, parallel: Callable[[c_ast.Node], bool]
) -> Profitability:
    threads = user_threads(loop.module)
    if threads is not None:
        return Profitability(False, "", f"{loop.module.name} is run {threads}: a parallel region here "
                                        f"would start a team of threads in each of them")
    around = enclosing_loops(loop)
    sequential = [n for n in around if not parallel(n)]
    runs = _executions(sequential, around, loop.module) if sequential else 1
    caller = repeated_call(loop.module)
    if caller is not None:
        runs = None
    repeated = runs is None or runs > 1
    threshold = max(min_work, region_work) if repeated else min_work
    work = loop_work(loop, around)
    if repeated:
        names = ", ".join(_label(n, loop.module) for n in sequential)
        times = (f"{runs} times" if runs is not None else "once per iteration" if names else "once per call")
        inside = [f"the sequential loop(s) {names}"] if names else []
        if caller is not None:
            inside.append(f"{loop.module.name}, called {caller}")
        where_ = (f"a parallel region here would open {times} (inside {' and '.join(inside)}) "
                  f"for {work.text} statement execution(s) each")
        what = "parallel_region_work"
    else:
        where_ = f"{work.text} statement execution(s) in the region"
        what = "parallel_min_work"
    if threshold <= 0:
        return Profitability(True)
    if work.value is None and not any(parallel(n) for n in around):
        counted = region_runs(around[0] if around else loop.node, loop.node, loop.module)
        if counted is not None and counted[0] > 0:  # constant bounds: the headers were run
            openings, inside = counted
            each = inside // openings
            if each >= threshold:
                return Profitability(True)
            text = (f"{openings} run(s) of the loop for {each} statement execution(s) each on average"
                    if openings > 1 else f"{each} statement execution(s)")
            return Profitability(False, "", f"too little work to run in parallel: {where_.split(' for ')[0]}"
                                            f" ({text}), under {threshold} (property {what})")
    if work.value is not None:
        if work.value >= threshold:
            return Profitability(True)
        return Profitability(False, "", f"too little work to run in parallel: {where_}, under {threshold} "
                                        f"(property {what})")
    if work.bound is not None and work.bound < threshold:
        most = "" if work.text.startswith("at most") else f" (at most {work.bound})"
        return Profitability(False, "", f"too little work to run in parallel: {where_}{most}, under "
                                        f"{threshold} (property {what})")
    if work.expr is not None:
        cond = f"{_guarded(work.expr)} >= {threshold}"
        how = "a parallel and a sequential copy, chosen by" if repeated else "an if clause,"
        return Profitability(True, cond, f"{where_}: {how} {cond} (property {what})", repeated)
    return Profitability(True)


def _guarded(e: c_ast.Node) -> str:
    """The work expression computed without int overflow: a product gets a ``(long)`` first factor."""
    if isinstance(e, c_ast.BinaryOp) and e.op == "*":
        factors = _factors(e)
        if len(factors) > 1 and any(int_value(f) is None for f in factors):
            return " * ".join(["(long)" + _paren(factors[0])] + [_paren(f) for f in factors[1:]])
    return to_c(e)


def _factors(e: c_ast.Node) -> list[c_ast.Node]:
    if isinstance(e, c_ast.BinaryOp) and e.op == "*":
        return _factors(e.left) + _factors(e.right)
    return [e]


def _paren(e: c_ast.Node) -> str:
    text = to_c(e)
    return text if isinstance(e, (c_ast.ID, c_ast.Constant)) else f"({text})"


# ------------------------------------------------------------------------ OpenMP pragmas already written


def _omp_parallel_for(loop: Loop) -> c_ast.Pragma | None:
    for p in pragmas_of(loop):
        words = p.string.split()
        if words[:3] == ["omp", "parallel", "for"]:
            return p
    return None


def region_decisions(module: Module, min_work: int, region_work: int) -> list[tuple[Loop, Profitability]]:
    """The model's decision for each ``#pragma omp parallel for`` loop of ``module`` that has no ``if`` clause."""
    with _weighing():
        return _region_decisions(module, min_work, region_work)


def _region_decisions(module: Module, min_work: int, region_work: int) -> list[tuple[Loop, Profitability]]:
    out = []
    for loop in module.all_loops:
        pragma = _omp_parallel_for(loop)
        if pragma is None or any(name == "if" for name, _ in clauses(pragma.string)):
            continue
        around = {id(o.node) for o in _outers(loop) if _omp_parallel_for(o) is not None}
        out.append((loop, profitability(loop, min_work, region_work, lambda node, a=around: id(node) in a)))
    return out


def _outers(loop: Loop) -> list[Loop]:
    out = []
    outer = loop.outer
    while outer is not None:
        out.append(outer)
        outer = outer.outer
    return out


@transformation(scope="module", preserves=["callgraph"], reads=["function_references"])
def parallel_profitability(module: Module, min_work: int | None = None, region_work: int | None = None) -> None:
    """Weigh the ``#pragma omp parallel for`` loops already written (``auto_schedule``'s): keep, guard or drop.

    Before (a time loop of 1000 steps around a parallel loop of 30 iterations)::

        for (int c0 = 0; c0 < 1000; c0++)
            #pragma omp parallel for
            for (int c1 = 1; c1 < 31; c1++)
                A[c1] = 0.33 * (B[c1 - 1] + B[c1] + B[c1 + 1]);

    After: the pragma is gone (30 statement executions per region, under
    ``region_work``). A loop whose work depends on parameters gets
    ``if(work >= threshold)``, or, inside a sequential loop, two copies
    (``if (work >= threshold) { #pragma omp ... loop } else loop``); see
    :mod:`.profitability` for the model.
    Pragmas that already have an ``if`` clause are left alone. Refused when
    nothing changes.

    Properties:

    - min_work: threshold of a region run once per call (None: property parallel_min_work, 2000)
    - region_work: threshold per region of a loop inside a sequential loop (None: property parallel_region_work)
    """
    min_work = module.ws.props.parallel_min_work if min_work is None else min_work
    region_work = module.ws.props.parallel_region_work if region_work is None else region_work
    changed = 0
    for loop, pays in region_decisions(module, min_work, region_work):
        pragma = _omp_parallel_for(loop)
        if not pays.parallel:
            items = block_of(loop.site.parent)
            items[:] = [n for n in items if n is not pragma]
            changed += 1
        elif pays.versioned and not user_labels(loop.node, module.ws.generated_labels):
            version_loop(loop, expression(pays.condition))
            changed += 1
        elif pays.condition:
            replace_pragma(loop, pragma, f"{pragma.string} if({pays.condition})")
            changed += 1
    if not changed:
        raise PassFailed(f"every parallel loop of {module.name} pays for its region")


# ------------------------------------------------------------------------ the whole program

#: nanoseconds the first parallel region of a run costs at two threads (creating the team) where
#: nothing was measured: :func:`passman.machine.team_start_ns` measures it on the machine passman
#: runs on (2026-11-25: 120-220 us with OMP_WAIT_POLICY=passive; with libgomp's default spinning,
#: 2-10 ms on the project's 2-core VM)
TEAM_START_NS = 200_000
#: statement executions a program's parallel regions need together for its team to pay:
#: at two threads they save half of it (2 * TEAM_START_NS / STATEMENT_NS: 1,000,000)
PROGRAM_WORK = round(2 * TEAM_START_NS / STATEMENT_NS)
#: the property's default: the threshold of this machine's measured team start-up
MACHINE = -1

PROGRAM_WORK_PROPERTY = register_property(
    "parallel_program_work",
    int,
    MACHINE,
    "the OpenMP regions of a program must hold this much work together (statement executions in one run, "
    "where it is known) to pay for starting its threads, or the program stays sequential (0: no such rule; "
    "-1, the default: 2 x this machine's measured thread start-up / 0.4 ns, passman.machine)",
)


def program_work_threshold(value: int) -> int:
    """The threshold a value of ``parallel_program_work`` means (-1: from this machine's team start-up)."""
    if value >= 0:
        return value
    from passman.machine import team_start_ns

    return round(2 * team_start_ns() / STATEMENT_NS)


def _creates_threads(p: c_ast.Pragma) -> bool:
    words = p.string.split()
    return words[:2] == ["omp", "parallel"]


def program_parallel_work(ws, limit: int = 0) -> tuple[int | None, str]:
    """Statement executions inside the program's parallel regions in one run, and how it was counted.

    None (with the reason) where a count is not known: a loop of unknown
    bounds, a function called from an unknown number of places, recursion.
    With ``limit``, a region's count stops there (the total is then at least ``limit``).
    """
    return _counted(ws, ("regions", limit), lambda: _per_run(ws, limit, regions=True))


@analysis(scope="program", provides="program_work")
def program_work(ws) -> dict:
    """The counts of :func:`program_parallel_work` and :func:`whole_program_work` made so far (filled on demand).

    An empty table whose entry is valid while no function or unit of the
    program changes (it reads them all): the recipe asks the same counts of
    the same program twice (``sequential_program``, then ``guard_team_start``
    when the first could not count), and a count can take a tenth of a second.
    """
    for m in ws.all_functions:
        m.ast  # noqa: B018 - the counts read every function
    for cu in ws.compilation_units:
        cu.ast  # noqa: B018 - and the units' declarations (constant globals)
    return {}


def _counted(ws, key: tuple, count: Callable[[], tuple[int | None, str]]) -> tuple[int | None, str]:
    """``count()``, kept in the program's :func:`program_work` table under ``key``."""
    table = ws.resource("program_work")
    if key not in table:
        table[key] = count()
    return table[key]


def whole_program_work(ws) -> tuple[int | None, str]:
    """An upper bound of the statement executions of one run of the whole program, and how it was counted.

    Every statement of every function, each function weighed by how many
    times it runs (as :func:`program_parallel_work` weighs regions). A branch
    whose condition is not known counts its larger side, an early ``return``
    or ``break`` cuts nothing: an upper bound. None where a trip count is not
    known (a ``while`` loop, bounds read from input). Counted on the program
    as written, it bounds the work any parallel version's regions hold: a
    schedule reorders statement instances and adds none but loop headers.
    """
    return _counted(ws, ("whole",), lambda: _per_run(ws, 0, regions=False))


#: pieces per loop range tried in turn (fewer when a nest is too deep for the budget), and the
#: most pieces evaluated, when bounding a whole function's work: 16 pieces bound a triangular
#: nest within 15% of its count, 1 (the box of its indices) within 6x
PIECES = (16, 4, 1)
PIECES_BUDGET = 4_000


def _whole_bound(m: Module, body: c_ast.Node, env: dict[str, int], only: c_ast.Node | None = None) -> int | None:
    """An upper bound of one run of a function's ``body`` (calls as one statement), or of ``only``'s runs."""
    points = {k: (v, v) for k, v in env.items()}
    for pieces in PIECES:
        bounder = _Bounder(m, pieces, True, PIECES_BUDGET, only)
        got = bounder.bound(body, points)
        if got is not None or bounder.budget >= 0:
            return got  # known, or unknown for a reason more pieces would not change
    return None


def _per_run(ws, limit: int, regions: bool) -> tuple[int | None, str]:
    if "main" not in ws:
        return None, "no main function"
    functions = [m for m in ws.all_functions if not m.is_stub]
    known, several = _parameter_constants(functions)
    per_call: dict[str, int] = {}  # function -> statement executions (in its regions) per call
    sites: dict[str, list[tuple[str, int]]] = {m.name: [] for m in functions}  # callee -> (caller, runs)
    for m in functions:
        body = m.ast.body
        parents = parent_map(m.ast)
        envs = _environments(known[m.name], several.get(m.name, {}))
        if regions:
            work = 0
            for p in walk(body):
                if isinstance(p, c_ast.Pragma) and _creates_threads(p):
                    stmt = _pragma_target(p, parents)
                    counted = None
                    for env in envs:
                        one = runs_per_call(stmt, body, parents, m, env, limit=limit) if stmt is not None else None
                        if one is None:
                            counted = None
                            break
                        counted = one if counted is None or one[1] > counted[1] else counted
                    if counted is None:
                        return None, f"the work of the region at {where(p)} in {m.name} is not known"
                    work += counted[1]
        else:
            counts = [_whole_bound(m, body, env) for env in envs]
            if None in counts:
                return None, f"the work of {m.name} is not known"
            work = max(counts)
        per_call[m.name] = work
        for call in walk(body):
            if isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID) and call.name.name in sites:
                stmt = statement_of(call, parents)
                if regions:
                    counted = runs_per_call(stmt, body, parents, m, known[m.name], True)
                    runs = None if counted is None else counted[0]
                else:  # an upper bound, as the work is
                    bounds = [_whole_bound(m, body, env, stmt) for env in envs]
                    runs = None if None in bounds else max(bounds)
                sites[call.name.name].append((m.name, runs))
    calls: dict[str, int] = {}

    def times(name: str, path: tuple[str, ...]) -> int | None:
        """How many times function ``name`` runs in one run of the program (None: not known)."""
        if name in path:
            return None  # recursion
        if name not in calls:
            if name == "main":
                calls[name] = 1
            else:
                total = 0
                for caller, n in sites.get(name, []):
                    t = times(caller, (*path, name))
                    if t is None or n is None:
                        return None
                    total += t * n
                calls[name] = total
        return calls[name]

    total = 0
    for m in functions:
        if per_call[m.name]:
            t = times(m.name, ())
            if t is None:
                return None, f"how often {m.name} runs is not known"
            total += t * per_call[m.name]
    what = "in the program's parallel regions" if regions else "in one run of the whole program"
    return total, f"{total} statement execution(s) {what}"


def _pragma_target(p: c_ast.Pragma, parents: dict[int, c_ast.Node]) -> c_ast.Node | None:
    """The statement an ``omp parallel`` pragma applies to (the next item of its block, past pragmas)."""
    block = parents.get(id(p))
    items = getattr(block, "block_items", None) or []
    k = next((i for i, n in enumerate(items) if n is p), None)
    if k is None:
        return None
    for n in items[k + 1:]:
        if not isinstance(n, c_ast.Pragma):
            return n
    return None


#: most combinations of call-site constants a region's work is counted for (the largest is kept)
MAX_ENVIRONMENTS = 8


def _environments(known: dict[str, int], several: dict[str, set[int]]) -> list[dict[str, int]]:
    """The parameter values a call of a function may see: every combination of the constants its
    calls pass to parameters that take a few (``several``), with the single-valued ones (``known``).
    The work counted is the largest over them: an upper bound of any call's (each call passes one
    of the combinations)."""
    envs = [dict(known)]
    for name, values in sorted(several.items()):
        envs = [{**e, name: v} for e in envs for v in sorted(values)]
        if len(envs) > MAX_ENVIRONMENTS:
            return [dict(known)]
    return envs


def _parameter_constants(
    functions: list[Module],
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, set[int]]]]:
    """For each function, its integer parameters to which every call passes a constant: those
    that always get the same one (their value, with the function's :func:`_fixed_locals`), and
    those that get two or more (their values)."""
    fixed = {m.name: _fixed_locals(m) for m in functions}
    values = _call_constants(functions, fixed)
    single = {f: {**fixed[f], **{p: next(iter(v)) for p, v in vals.items() if v is not None and len(v) == 1}}
              for f, vals in values.items()}  # fmt: skip
    several = {f: {p: v for p, v in vals.items() if v is not None and len(v) > 1}
               for f, vals in values.items()}  # fmt: skip
    return single, several


def _fixed_locals(m: Module) -> dict[str, int]:
    """The integer variables of function ``m`` that are constants: declared once, at the top of its
    body, with a constant initializer, and never assigned, incremented or taken the address of
    (conv2d's ``int r = 2;``, passed to its kernel). A size macro the build chooses (PolyBench's
    ``int ni = NI;``) is a name, not a constant: it stays unknown."""
    decls = [d for d in walk(m.ast) if isinstance(d, c_ast.Decl) and d.name]
    once = {name for name, n in Counter(d.name for d in decls).items() if n == 1}
    written = {w.base.name for w in writes(m.ast.body) if w.base is not None}
    out: dict[str, int] = {}
    for d in m.ast.body.block_items or []:
        if (isinstance(d, c_ast.Decl) and d.name in once and d.name not in written and d.init is not None
                and isinstance(d.type, c_ast.TypeDecl)):  # fmt: skip
            try:
                out[d.name] = evaluate(d.init, {})
            except Unknown:
                pass
    return out


def _call_constants(functions: list[Module],
                    fixed: dict[str, dict[str, int]] | None = None) -> dict[str, dict[str, set[int] | None]]:
    """For each function and parameter, the constants its calls pass (None: a call passes something
    else); ``fixed``: per function, variables whose values its calls may pass."""
    values: dict[str, dict[str, set[int] | None]] = {}
    params: dict[str, list[str]] = {}
    for m in functions:
        args = m.ast.decl.type.args
        params[m.name] = [p.name for p in (args.params if args else []) if isinstance(p, c_ast.Decl)]
        values[m.name] = {p: set() for p in params[m.name]}
    for m in functions:
        for call in walk(m.ast.body):
            if not (isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID)
                    and call.name.name in values):
                continue
            names = params[call.name.name]
            exprs = call.args.exprs if call.args else []
            for k, name in enumerate(names):
                seen = values[call.name.name][name]
                if seen is None:
                    continue
                try:
                    seen.add(evaluate(exprs[k], (fixed or {}).get(m.name, {})))
                except (Unknown, IndexError):
                    values[call.name.name][name] = None
    return values


def user_openmp(ws) -> bool:
    """Whether the program as the user wrote it has OpenMP pragmas (passman leaves those alone)."""
    return any(has_openmp_pragmas(cu.original.text) for cu in ws.compilation_units if cu.original is not None)


def has_openmp_pragmas(text: str) -> bool:
    """Whether C source ``text`` has a ``#pragma omp`` line."""
    return any(line.lstrip().startswith("#") and line.lstrip("# \t").startswith("pragma")
               and "omp" in line.split() for line in text.splitlines())


def _is_passman_omp(p: c_ast.Pragma) -> bool:
    """An OpenMP pragma of the parallelization (not ``omp simd``, which keeps the code sequential)."""
    words = p.string.split()
    return words[:1] == ["omp"] and words[1:2] not in (["simd"], ["declare"])


@transformation(scope="program", reads=["function_references"])
def sequential_program(ws, program_work: int | None = None, original_work: int | None = None) -> None:
    """Remove the OpenMP parallelization of a program whose regions hold too little work in all.

    The first parallel region of a run starts the threads
    (:data:`TEAM_START_NS`); at two threads the regions save half of their
    work. When the statement executions inside all the program's regions in
    one run are known (bounds that are constants, or parameters that every
    call passes the same constant) and are under ``program_work`` (property
    ``parallel_program_work``; by default twice this machine's measured
    thread start-up over :data:`STATEMENT_NS`, :mod:`passman.machine`), the OpenMP pragmas
    (``omp simd`` aside) are removed: what runs is what one thread ran.

    When the regions' own work cannot be counted (tiled or wavefront
    bounds), an upper bound of the whole program's work stands for it: that
    of the program now (:func:`whole_program_work`), or ``original_work``, the same
    bound taken by a recipe before it transformed the program (a schedule
    adds no statement instance; its bounds defeat the count).

    Refuses when the total is not known, when it pays, or when the user's
    program has OpenMP pragmas of its own.
    """
    threshold, total, why = _program_total(ws, "sequential_program", program_work, original_work)
    if total is None:
        raise PassFailed(f"sequential_program: {why}")
    if total >= threshold:
        raise PassFailed(f"sequential_program: {why}, at least {threshold} (property parallel_program_work)")
    edited = 0
    for _, body, pragmas in _edited_pragmas(ws, _is_passman_omp):
        parents = parent_map(body)
        for p in pragmas:
            block = parents.get(id(p))
            if not isinstance(block, c_ast.Compound):
                raise PassFailed(f"{where(p)}: sequential_program: '#pragma {p.string}' is not in a block")
            block.block_items = [n for n in block.block_items if n is not p]
        edited += 1
    if not edited:
        raise PassFailed("sequential_program: the program has no parallel region")


def _edited_pragmas(ws, keep: Callable[[c_ast.Pragma], bool]) -> Iterator[tuple[Module, c_ast.Node, list]]:
    """Each function with pragmas that ``keep`` selects: the body being edited, and those pragmas in it.

    The pragmas are looked for in the body :meth:`Module.edit` returns, which
    is a copy where the function's tree is shared with a clone or a checkpoint.
    """
    for m in ws.all_functions:
        if m.is_stub or not any(isinstance(p, c_ast.Pragma) and keep(p) for p in walk(m.ast.body)):
            continue
        body = m.edit().body
        yield m, body, [p for p in walk(body) if isinstance(p, c_ast.Pragma) and keep(p)]


def _program_total(ws, name: str, program_work: int | None,
                   original_work: int | None) -> tuple[int, int | None, str]:
    """The program rule's threshold, the work it weighs (None: not known) and how it was counted."""
    threshold = program_work_threshold(ws.props.parallel_program_work if program_work is None else program_work)
    if threshold <= 0:
        raise PassFailed(f"{name}: parallel_program_work is 0 (no such rule)")
    if user_openmp(ws):
        raise PassFailed(f"{name}: the program has OpenMP pragmas of its own")
    total, why = program_parallel_work(ws, limit=threshold)
    if total is None:
        bounds = [original_work] if original_work is not None and original_work < threshold else \
            [b for b in (original_work, whole_program_work(ws)[0]) if b is not None]
        if not bounds:
            return threshold, None, why
        joined = "but" if min(bounds) < threshold else "and"
        why = f"{why}, {joined} the whole program executes at most {min(bounds)} statement(s) in one run"
        return threshold, min(bounds), why
    return threshold, total, why


#: the macro of :func:`guard_team_start`'s output: seconds of CPU time the program runs before its threads start
THREADS_AFTER = "PASSMAN_THREADS_AFTER"


#: the condition guard_team_start gives each region
THREADS_PAY = f"clock() >= {THREADS_AFTER} * CLOCKS_PER_SEC"


@transformation(scope="program", reads=["function_references"])
def guard_team_start(ws, program_work: int | None = None, original_work: int | None = None) -> None:
    """Start the threads only once the program has run as long as starting them is worth (a run-time test).

    Where nothing bounds the work of one run (a ``while`` loop, loop
    bounds read from the input or sizes chosen by the build, as in
    ``-DNI=4000``), :func:`sequential_program` cannot tell a run that is
    too short for its threads from a long one. This pass lets the run
    tell: each of passman's ``omp parallel`` pragmas gets the clause
    ``if(clock() >= PASSMAN_THREADS_AFTER * CLOCKS_PER_SEC)`` (joined
    with ``&&`` to an ``if`` it has), and the unit defines
    ``PASSMAN_THREADS_AFTER`` (unless the build does, ``-D``) as the
    processor time of the program's own threshold: ``parallel_program_work``
    statement executions at :data:`STATEMENT_NS`, twice this machine's
    thread start-up by default. Before that much time has run, a region
    runs on the encountering thread and no team is created; after it, a
    team is (the processor time only grows). A run shorter than the
    threshold never pays for the threads; a longer one loses at most the
    threshold's half (the ski-rental bound). ``-DPASSMAN_THREADS_AFTER=0``
    starts them at the first region.

    Before (``n`` read from the input)::

        #pragma omp parallel for
        for (i = 0; i < n; i++)

    After::

        #pragma omp parallel for if(clock() >= PASSMAN_THREADS_AFTER * CLOCKS_PER_SEC)
        for (i = 0; i < n; i++)

    Refuses where the program's work is bounded (:func:`sequential_program`
    decides there), where the rule is off (``parallel_program_work`` 0),
    where the program has OpenMP pragmas of its own, and where it has no
    region.
    """
    threshold, total, why = _program_total(ws, "guard_team_start", program_work, original_work)
    if total is not None:
        raise PassFailed(f"guard_team_start: the program's work is bounded ({why}): sequential_program decides")
    seconds = threshold * STATEMENT_NS * 1e-9
    units = set()
    for m, _, pragmas in _edited_pragmas(ws, lambda p: _creates_threads(p) and THREADS_AFTER not in p.string):
        for p in pragmas:
            p.string = _with_condition(p.string, THREADS_PAY)
        units.add(id(m.cu))
    if not units:
        raise PassFailed("guard_team_start: the program has no parallel region")
    for cu in ws.compilation_units:
        if id(cu) in units:
            cu.include("time.h")
            cu.directives.append(f"/* passman: the threads start once the program has run this long (seconds of "
                                 f"processor time, twice\n   their start-up where passman ran); "
                                 f"-D{THREADS_AFTER}=0 starts them at the first region */\n"
                                 f"#ifndef {THREADS_AFTER}\n#define {THREADS_AFTER} {seconds:.3g}\n#endif\n")


def _with_condition(pragma: str, condition: str) -> str:
    """``pragma`` with ``condition`` in its ``if`` clause (joined with ``&&`` to one it has)."""
    for name, arg in clauses(pragma):
        if name == "if" and arg is not None:
            found = re.search(rf"\bif\s*\({re.escape(arg)}\)", pragma)
            if found is not None:
                return f"{pragma[:found.start()]}if(({arg}) && {condition}){pragma[found.end():]}"
    return f"{pragma} if({condition})"
