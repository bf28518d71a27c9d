"""Exact work of loop nests whose bounds are constants, by running their headers.

The profitability model (:mod:`.profitability`) counts statement executions
from closed forms and interval bounds. Code that ``auto_schedule`` generated
(a wavefront: a sequential loop over fronts around a parallel loop over the
tiles of a front, bounds full of ``min``/``max`` and skewed indices) defeats
both: the trip count of a front depends on the front, and interval bounds of
skewed indices are loose by orders of magnitude. When every bound is a
constant expression of the loop indices, the nest's headers can simply be
run: this module evaluates the loops' ``init``/``cond``/``next`` (never their
bodies' statements) and counts, with the model's conventions, the statement
executions of each run of a target loop and how many times it runs. A
budget of loop iterations keeps it cheap (an innermost loop without inner
control is counted from its bounds without iterating); past it, or on
anything it cannot evaluate, the answer is None and the model keeps its
estimate.
"""

from __future__ import annotations

import weakref
from typing import Any

from pycparser import c_ast

from passman import Module
from passman.astutil import child_nodes, walk

from ..cfacts.sideeffects import writes

#: loop iterations (and branches) simulated at most per question
BUDGET = 50_000


class Enough(Exception):
    """The work counted reached the counter's limit: the caller knows all it asked."""


class Unknown(Exception):
    """Something the counter cannot evaluate: the caller gets None."""


def evaluate(e: c_ast.Node, env: dict[str, int]) -> int:
    """The value of the integer expression ``e`` (C semantics: division truncates) under ``env``."""
    fn = _COMPILED.get(id(e))
    if fn is None or fn[0] is not e:
        fn = (e, eval(f"lambda env: {_python(e)}", {"_div": _div, "_mod": _mod, "Unknown": Unknown}))  # noqa: S307
        if len(_COMPILED) > 50_000:
            _COMPILED.clear()
        _COMPILED[id(e)] = fn
    try:
        return fn[1](env)
    except (KeyError, ZeroDivisionError):
        raise Unknown from None


#: id(expression) -> (expression, its Python function): a header is evaluated thousands of times
_COMPILED: dict[int, tuple[c_ast.Node, object]] = {}


def _div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _mod(a: int, b: int) -> int:
    return a - _div(a, b) * b


_OPS = {"+": "+", "-": "-", "*": "*", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "==", "!=": "!="}


def _python(e: c_ast.Node) -> str:
    """``e`` as Python text over ``env`` (raises :class:`Unknown` for anything but integer arithmetic)."""
    match e:
        case c_ast.Constant(type="int" | "long int" | "long long int" | "unsigned int" | "unsigned long int"):
            text = e.value.rstrip("uUlL")
            if text[:2] in ("0x", "0X"):
                return str(int(text, 16))
            return str(int(text, 8) if len(text) > 1 and text[0] == "0" else int(text))
        case c_ast.ID():
            return f"env[{e.name!r}]"
        case c_ast.Cast():
            return _python(e.expr)
        case c_ast.UnaryOp(op="-" | "+"):
            return f"({e.op}{_python(e.expr)})"
        case c_ast.UnaryOp(op="!"):
            return f"int(not {_python(e.expr)})"
        case c_ast.TernaryOp():
            return f"({_python(e.iftrue)} if {_python(e.cond)} else {_python(e.iffalse)})"
        case c_ast.BinaryOp(op="&&" | "||"):
            word = "and" if e.op == "&&" else "or"
            return f"int(bool({_python(e.left)}) {word} bool({_python(e.right)}))"
        case c_ast.BinaryOp(op="/" | "%"):
            return f"{'_div' if e.op == '/' else '_mod'}({_python(e.left)}, {_python(e.right)})"
        case c_ast.BinaryOp(op=op) if op in _OPS:
            text = f"({_python(e.left)} {_OPS[op]} {_python(e.right)})"
            return f"int{text}" if op in ("<", "<=", ">", ">=", "==", "!=") else text
    raise Unknown


class _Counter:
    def __init__(self, module: Module, target: c_ast.Node | None, runs_only: bool = False, limit: int = 0):
        self.module = module
        self.limit = limit  # > 0: stop (Enough) once this much work is counted anywhere
        self.target = target
        self.runs_only = runs_only  # count the target's runs, not the work of anything
        self.budget = BUDGET
        self.facts: dict[int, tuple[set[str], bool, bool]] = {}  # loop -> control names, writes, target inside
        self.calls: dict[int, bool] = {}
        self.bounds: dict[int, tuple] = {}  # loop -> (its condition as (op, bound), or None)
        self.splits: dict[int, list[c_ast.Node] | None] = {}  # loop -> :func:`_split_bounds`
        self.openings = 0
        self.inside = 0  # statement executions inside the target's runs

    def count(self, stmt: c_ast.Node | None, env: dict[str, int]) -> int:
        """Statement executions of one run of ``stmt`` (the model's conventions)."""
        if stmt is self.target and stmt is not None:
            n = 1 if self.runs_only else self._count(stmt, env)
            self.openings += 1
            self.inside += n
            if self.limit and self.inside >= self.limit:
                raise Enough
            return n
        return self._count(stmt, env)

    def _count(self, stmt: c_ast.Node | None, env: dict[str, int]) -> int:
        match stmt:
            case None | c_ast.EmptyStatement() | c_ast.Pragma() | c_ast.Decl(init=None):
                return 0
            case c_ast.Compound():
                return sum(self.count(s, env) for s in stmt.block_items or [])
            case c_ast.Label():
                return self.count(stmt.stmt, env)
            case c_ast.If():
                self._spend()
                return 1 + self.count(stmt.iftrue if evaluate(stmt.cond, env) else stmt.iffalse, env)
            case c_ast.For():
                return self._loop(stmt, env)
            case c_ast.While() | c_ast.DoWhile() | c_ast.Switch() | c_ast.Goto() | c_ast.Break() \
                    | c_ast.Continue() | c_ast.Return():
                raise Unknown
        if self.runs_only:
            return 1
        calls = self.calls.get(id(stmt))
        if calls is None:
            calls = self.calls[id(stmt)] = any(isinstance(n, c_ast.FuncCall) for n in walk(stmt)) \
                and _calls_loops(stmt, self.module)
        if calls:
            raise Unknown
        return 1

    def _loop(self, loop: c_ast.For, env: dict[str, int]) -> int:
        index, value = _start(loop.init, env)
        step = _step(loop.next, index, env)
        facts = self.facts.get(id(loop))
        if facts is None:
            written = step == 0 or loop.cond is None or _written(loop.stmt, index, loop.cond)
            target = self.target is not None and any(n is self.target for n in walk(loop.stmt))
            facts = self.facts[id(loop)] = (control_names(loop.stmt), written, target)
        control, written, target = facts
        if written:
            raise Unknown
        inner = dict(env)
        if not target and index not in control:
            inner[index] = value
            body = self.count(loop.stmt, inner)  # the same at every iteration: count it once
            return self._over(self._trips(loop, index, value, step, inner) * (body + 1))
        if index not in control:  # every iteration counts the same: run the body once, multiply
            trips = self._trips(loop, index, value, step, inner)
            if trips == 0:
                return 0
            inner[index] = value
            return self._over(trips * (self._repeated(loop.stmt, inner, trips) + 1))
        splits = self.splits.get(id(loop), False)
        if splits is False:
            splits = self.splits[id(loop)] = _split_bounds(loop.stmt, index)
        if splits is not None:  # the index only chooses branches: count each stretch of equal choices once
            return self._stretches(loop, index, value, step, inner, splits)
        total = 0
        while True:
            inner[index] = value
            if not evaluate(loop.cond, inner):
                return total
            self._spend()
            total = self._over(total + self.count(loop.stmt, inner) + 1)
            value += step

    def _stretches(self, loop: c_ast.For, index: str, value: int, step: int, env: dict[str, int],
                   bounds: list[c_ast.Node]) -> int:
        """The loop's work where its index only decides comparisons ``index op b`` (``bounds``: the
        ``b``): every ``index >= p`` for ``p`` in ``b`` and ``b + 1`` is the same along a stretch of
        iterations, and so is every such comparison, hence the body's count: one count per stretch."""
        trips = self._trips(loop, index, value, step, env)
        cuts = {0, trips}
        for b in bounds:
            v = evaluate(b, env)
            for p in (v, v + 1):  # where "index >= p" turns (true from there on, or false with step < 0)
                k = -((value - p) // step) if step > 0 else -((value - p + 1) // step)
                if 0 < k < trips:
                    cuts.add(k)
        total = 0
        points = sorted(cuts)
        for k0, k1 in zip(points, points[1:]):
            self._spend()
            env[index] = value + k0 * step
            total = self._over(total + (k1 - k0) * (self._repeated(loop.stmt, env, k1 - k0) + 1))
        return total

    def _repeated(self, body: c_ast.Node, env: dict[str, int], times: int) -> int:
        """``body``'s count at ``env``, run ``times`` times alike: the target's openings and the work
        inside them grow ``times`` fold (:class:`Enough` once the work reaches the limit)."""
        openings, inside = self.openings, self.inside
        count = self.count(body, env)
        self.openings += (times - 1) * (self.openings - openings)
        self.inside += (times - 1) * (self.inside - inside)
        if self.limit and self.inside >= self.limit:
            raise Enough
        return count

    def _over(self, work: int) -> int:
        # with a target, what counts is the work inside its runs (``inside``, checked as it grows):
        # the loops around it may hold far more work outside it (blur's tap loop, a two-version
        # loop whose parallel copy never runs, inside the pixel loops)
        if self.limit and self.target is None and work >= self.limit:
            raise Enough
        return work

    def _trips(self, loop: c_ast.For, index: str, value: int, step: int, env: dict[str, int]) -> int:
        """Iterations of ``loop`` from ``value``: the first false condition, found by doubling then
        halving (a condition true, then false, as loop bounds are; an estimate otherwise)."""
        self._spend()
        direct = self._bound(loop, index)
        if direct is not None:
            return _direct_trips(direct, value, step, env)

        def holds(k: int) -> bool:
            env[index] = value + k * step
            return bool(evaluate(loop.cond, env))

        if not holds(0):
            return 0
        good, bad = 0, 1
        while holds(bad):
            good, bad = bad, bad * 2
            if bad > 1 << 40:
                raise Unknown
        while bad - good > 1:
            mid = (good + bad) // 2
            good, bad = (mid, bad) if holds(mid) else (good, mid)
        return bad

    def _bound(self, loop: c_ast.For, index: str) -> tuple[str, c_ast.Node] | None:
        """``(op, bound)`` when the loop's condition is ``index op bound`` (or ``bound op index``, turned
        around) with a bound that does not read the index; None otherwise (cached per loop)."""
        key = id(loop)
        found = self.bounds.get(key)
        if found is None:
            found = self.bounds[key] = (_bound_form(loop.cond, index),)
        return found[0]

    def _spend(self) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise Unknown


_TURNED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _bound_form(cond: c_ast.Node | None, index: str) -> tuple[str, c_ast.Node] | None:
    """``cond`` as ``index op bound`` (``op`` one of ``< <= > >=``, ``bound`` free of ``index``)."""
    if not isinstance(cond, c_ast.BinaryOp) or cond.op not in _TURNED:
        return None
    for mine, other, op in ((cond.left, cond.right, cond.op), (cond.right, cond.left, _TURNED[cond.op])):
        if isinstance(mine, c_ast.ID) and mine.name == index and not any(
                isinstance(n, c_ast.ID) and n.name == index for n in walk(other)):
            return op, other
    return None


def _direct_trips(form: tuple[str, c_ast.Node], value: int, step: int, env: dict[str, int]) -> int:
    """Iterations of a loop from ``value`` by ``step`` while ``index op bound`` holds: what
    :meth:`_Counter._trips`'s search finds, from the bound's value at once."""
    op, bound = form
    b = evaluate(bound, env)
    if step > 0 and op in ("<", "<="):
        last = b - 1 if op == "<" else b
        n = 0 if value > last else (last - value) // step + 1
    elif step < 0 and op in (">", ">="):
        first = b + 1 if op == ">" else b
        n = 0 if value < first else (value - first) // -step + 1
    elif (op in ("<", "<=") and value < b + (op == "<=")) or (op in (">", ">=") and value > b - (op == ">=")):
        raise Unknown  # a loop that moves away from its bound runs until it overflows
    else:
        n = 0
    if n > 1 << 40:
        raise Unknown
    return n


def _split_bounds(body: c_ast.Node, index: str) -> list[c_ast.Node] | None:
    """The ``b`` of the comparisons ``index op b`` (``b`` free of ``index``) through which alone the
    control of ``body`` reads ``index``: ``if`` conditions made of such comparisons with ``&&``, ``||``
    and ``!``, outside the loops of ``body``, which do not read it. None otherwise."""
    bounds: list[c_ast.Node] = []
    for n in walk(body):
        if isinstance(n, c_ast.For):
            if index in control_names(n):
                return None
        elif isinstance(n, c_ast.If) and not _comparisons(n.cond, index, bounds):
            return None
    return bounds


def _reads(e: c_ast.Node, name: str) -> bool:
    return any(isinstance(x, c_ast.ID) and x.name == name for x in walk(e))


def _comparisons(e: c_ast.Node, index: str, bounds: list[c_ast.Node]) -> bool:
    """Whether ``e`` reads ``index`` only in comparisons ``index op b``; their ``b`` go to ``bounds``."""
    if not _reads(e, index):
        return True
    match e:
        case c_ast.BinaryOp(op="&&" | "||"):
            return _comparisons(e.left, index, bounds) and _comparisons(e.right, index, bounds)
        case c_ast.UnaryOp(op="!"):
            return _comparisons(e.expr, index, bounds)
        case c_ast.BinaryOp(op="<" | "<=" | ">" | ">=" | "==" | "!="):
            for mine, other in ((e.left, e.right), (e.right, e.left)):
                if isinstance(mine, c_ast.ID) and mine.name == index and not _reads(other, index):
                    bounds.append(other)
                    return True
    return False


def control_names(body: c_ast.Node) -> set[str]:
    """The names the loop headers and conditions under ``body`` read."""
    out: set[str] = set()
    for n in walk(body):
        parts = [n.init, n.cond, n.next] if isinstance(n, c_ast.For) else [n.cond] if isinstance(n, c_ast.If) else []
        for part in parts:
            if part is not None:
                out |= {x.name for x in walk(part) if isinstance(x, c_ast.ID)}
    return out


def _start(init: c_ast.Node | None, env: dict[str, int]) -> tuple[str, int]:
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
        return init.decls[0].name, evaluate(init.decls[0].init, env)
    if isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name, evaluate(init.rvalue, env)
    raise Unknown


def _step(nxt: c_ast.Node | None, index: str, env: dict[str, int]) -> int:
    match nxt:
        case c_ast.UnaryOp(op="p++" | "++", expr=c_ast.ID(name=n)) if n == index:
            return 1
        case c_ast.UnaryOp(op="p--" | "--", expr=c_ast.ID(name=n)) if n == index:
            return -1
        case c_ast.Assignment(op="+=" | "-=", lvalue=c_ast.ID(name=n)) if n == index:
            v = evaluate(nxt.rvalue, env)
            return v if nxt.op == "+=" else -v
    raise Unknown


def _written(body: c_ast.Node, index: str, cond: c_ast.Node) -> bool:
    """Whether the body writes the index or a variable of the condition."""
    names = {index} | {n.name for n in walk(cond) if isinstance(n, c_ast.ID)}
    return any(w.base is not None and w.base.name in names for w in writes(body))


def _calls_loops(stmt: c_ast.Node, module: Module) -> bool:
    return any(_loops_in_callee(n, module) for n in walk(stmt))


def _loops_in_callee(n: c_ast.Node, module: Module) -> bool:
    """Whether ``n`` is a call by name of a function of the program (not a library model) with loops."""
    if not (isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)):
        return False
    callee = module.ws.callee(n.name.name)
    return callee is not None and not callee.is_stub and any(
        isinstance(x, (c_ast.For, c_ast.While, c_ast.DoWhile)) for x in walk(callee.ast))


def region_runs(top: c_ast.For, target: c_ast.Node, module: Module, env: dict[str, int] | None = None,
                runs_only: bool = False, limit: int = 0) -> tuple[int, int] | None:
    """How many times ``target`` runs in one run of ``top`` (``env``: values known on entry), and the
    statement executions of all those runs together (with ``runs_only``, only the first is
    counted); None when the headers cannot be run.

    Answers are kept per workspace by the shape of ``top`` (its tree, less
    its pragmas, and where ``target`` is in it), the values the count
    reads from ``env``, and whether the functions it calls have loops: the
    recipe asks the same question exactly (the profitability of a loop)
    and later, of the code printed again, up to a limit (the program's
    work), and a question that spends the whole budget takes 0.1 s. A
    count that ran to its end, or failed, having counted less than
    ``limit`` is what a count up to ``limit`` finds too: ``inside`` only
    grows, and a count stops early only once it reaches the limit.
    """
    shape = _shape(top, target, module)
    read = control_names(top)  # the values the count may read: those of its loops' headers and conditions
    key = (shape, runs_only, tuple(sorted((k, v) for k, v in (env or {}).items() if k in read)))
    kept = _answers(module).get(key) if shape is not None else None
    if kept is not None and (not limit or kept[1] < limit):
        return kept[0]
    counter = _Counter(module, target, runs_only, limit)
    try:
        counter.count(top, dict(env or {}))
    except Enough:
        return counter.openings, max(counter.inside, limit)
    except (Unknown, RecursionError):
        answer = None
    else:
        answer = counter.openings, counter.inside
    if shape is not None:
        _answers(module)[key] = (answer, counter.inside)
    return answer


#: workspace -> the answers of :func:`region_runs`, by the shape of the question
_ANSWERS: weakref.WeakKeyDictionary[Any, dict] = weakref.WeakKeyDictionary()
#: answers kept per workspace at most
MAX_ANSWERS = 256


def _answers(module: Module) -> dict:
    try:
        table = _ANSWERS.setdefault(module.ws, {})
    except TypeError:  # a stand-in workspace (a test's): nothing kept
        return {}
    if len(table) >= MAX_ANSWERS:
        table.clear()
    return table


def _shape(top: c_ast.Node, target: c_ast.Node, module: Module) -> tuple | None:
    """What a count of ``target``'s runs in ``top`` depends on besides the values of names: every node
    of ``top`` but pragmas (its class and attributes), the target's place, and whether each function
    called has loops. None where the target is not in ``top``."""
    out: list = []
    found = False
    while isinstance(target, c_ast.Label):  # its runs are its statement's
        target = target.stmt
    stack = [top]
    while stack:
        n = stack.pop()
        if n is target:
            out.append("<target>")
            found = True
        if isinstance(n, c_ast.Label):  # its name counts nothing
            out.append("Label")
        else:
            out.append((type(n).__name__, *(_hashable(getattr(n, a)) for a in n.attr_names)))
        if isinstance(n, c_ast.FuncCall):
            out.append(_loops_in_callee(n, module))
        kids = [k for k in child_nodes(n) if not isinstance(k, c_ast.Pragma)]
        out.append(len(kids))
        stack.extend(reversed(kids))
    return tuple(out) if found else None


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def statement_of(node: c_ast.Node, parents: dict[int, c_ast.Node]) -> c_ast.Node:
    """The statement (an item of a block, or a loop's or branch's body) that holds ``node``."""
    child = node
    parent = parents.get(id(child))
    while parent is not None:
        if isinstance(parent, c_ast.Compound) or (
                isinstance(parent, (c_ast.For, c_ast.While, c_ast.DoWhile)) and parent.stmt is child) or (
                isinstance(parent, c_ast.If) and child in (parent.iftrue, parent.iffalse)):
            return child
        child, parent = parent, parents.get(id(parent))
    return child


def runs_per_call(stmt: c_ast.Node, body: c_ast.Node, parents: dict[int, c_ast.Node], module: Module,
                  env: dict[str, int] | None = None, runs_only: bool = False,
                  limit: int = 0) -> tuple[int, int] | None:
    """How many times ``stmt`` runs in one call of the function whose body is ``body``, and the
    statement executions of those runs together (``env``: the parameters known); None when the
    headers cannot be run."""
    top = None
    node = parents.get(id(stmt))
    while node is not None and node is not body:
        if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile)):
            top = node
        node = parents.get(id(node))
    if top is None:
        if runs_only:
            return 1, 0
        counter = _Counter(module, None, limit=limit)
        try:
            return 1, counter.count(stmt, dict(env or {}))
        except Enough:
            return 1, limit
        except (Unknown, RecursionError):
            return None
    if not isinstance(top, c_ast.For):
        return None
    return region_runs(top, stmt, module, env, runs_only, limit)
