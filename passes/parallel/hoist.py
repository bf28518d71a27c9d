"""One parallel region around a sequential loop of parallel loops: a barrier per step, not a fork and a join.

A time loop whose body is only parallel loops opens a parallel region at
each of its steps, once per loop::

    for (t = 0; t < tsteps; t++) {
        #pragma omp parallel for private(j)
        for (i = 1; i < n - 1; i++) ...
        #pragma omp parallel for private(j)
        for (i = 1; i < n - 1; i++) ...
    }

``hoist_parallel_regions`` opens the region once, around the time loop, and
turns each parallel loop into a work-sharing loop of that region::

    #pragma omp parallel private(t)
    for (t = 0; t < tsteps; t++) {
        #pragma omp for private(j)
        for (i = 1; i < n - 1; i++) ...
        #pragma omp for private(j)
        for (i = 1; i < n - 1; i++) ...
    }

Every thread runs the time loop (its index private, its bounds read from
variables nothing in it writes: the same steps in every thread); each
``omp for`` ends with a barrier, as each region ended with a join, so the
loops run in the same order against the same data. What changes is the cost
between two loops: a barrier instead of a join, then a fork (libgomp wakes
the team for each region).

The loops hoisted over are ``for`` loops whose body holds only parallel
loops (``#pragma omp parallel for`` and its loop) or such ``for`` loops
themselves (a wavefront's fronts in a time loop), nothing else: a statement
between two parallel loops would run in every thread. Their headers call no
function, read no memory (no array, pointer or field: a thread past the
last barrier may write it while another still reads the header) and no
variable but the function's own whose address is never taken and that the
loop does not write, and write nothing but their index; an index declared
outside the loop is used nowhere else in the function. A parallel loop with an ``if``
clause is hoisted over only when every one under that loop has the same
clause, which reads nothing the loop writes (it moves to the region: it is
evaluated once, before the loop); ``num_threads``, ``proc_bind``, ``copyin``,
``default`` and ``shared`` belong to a region and stop the hoisting.
"""

from __future__ import annotations

from pycparser import c_ast
from pycparser.c_parser import ParseError

from passman import Module, PassFailed, transformation
from passman.astutil import parent_map, strip_labels, walk

from ..cfacts.names import where
from ..cfacts.sideeffects import variables, writes
from .marker import block_of, canonical_index, clauses
from .profitability import expression

__all__ = ["hoist_parallel_regions"]

#: clauses of ``parallel for`` that belong to the region: a loop with one of them is not hoisted over
REGION_CLAUSES = frozenset({"num_threads", "proc_bind", "copyin", "default", "shared"})


def _parallel_for(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Pragma) and node.string.split()[:3] == ["omp", "parallel", "for"]


def _items(stmt: c_ast.Node) -> list[c_ast.Node]:
    return list(stmt.block_items or []) if isinstance(stmt, c_ast.Compound) else [stmt]


def _for(node: c_ast.Node) -> c_ast.For | None:
    """The ``for`` loop an item of a block is, past its labels (passman names loops with labels)."""
    node = strip_labels(node)
    return node if isinstance(node, c_ast.For) else None


def _labelled(loop: c_ast.For, parents: dict[int, c_ast.Node]) -> c_ast.Node:
    """The item of a block that ``loop`` is: the loop, or the outermost label on it."""
    node = loop
    while isinstance(parents.get(id(node)), c_ast.Label):
        node = parents[id(node)]
    return node


class _Plan:
    """What hoisting over one loop needs: its parallel loops' pragmas, the indices to privatize, the ``if``."""

    def __init__(self, plain: set[str]) -> None:
        #: the function's variables no call or pointer writes (:func:`_plain_locals`)
        self.plain = plain
        self.pragmas: list[c_ast.Pragma] = []
        self.indices: list[str] = []
        self.conditions: set[str] = set()


def _body_plan(stmt: c_ast.Node, plan: _Plan, module: Module) -> str:
    """Add the parallel loops of ``stmt`` (a loop body) to ``plan``; why it cannot be hoisted over ("": it can)."""
    items = _items(stmt)
    k = 0
    found = False
    while k < len(items):
        node = items[k]
        if _parallel_for(node):
            if k + 1 >= len(items) or _for(items[k + 1]) is None:
                return f"{where(node)}: a parallel pragma without its loop"
            words = dict(clauses(node.string))
            if REGION_CLAUSES & words.keys():
                return f"{where(node)}: '#pragma {node.string}' has a clause of the region"
            plan.conditions.add(words.get("if") or "")
            plan.pragmas.append(node)
            k += 2
            found = True
        elif _for(node) is not None:
            why = _loop_plan(_for(node), plan, module)
            if why:
                return why
            k += 1
            found = True
        else:
            return f"{where(node)}: a statement that every thread would run"
    return "" if found else "no parallel loop"


def _loop_plan(loop: c_ast.For, plan: _Plan, module: Module) -> str:
    """Check the header of a loop every thread runs, then its body."""
    header = [n for n in (loop.init, loop.cond, loop.next) if n is not None]
    if any(isinstance(n, c_ast.FuncCall) for h in header for n in walk(h)):
        return f"{where(loop)}: the loop's header calls a function"
    index = canonical_index(loop)
    if index is None:
        return f"{where(loop)}: the loop has no single index"
    written = {w.base.name for h in header for w in writes(h) if w.base is not None}
    if written - {index}:
        return f"{where(loop)}: the loop's header writes {', '.join(sorted(written - {index}))}"
    if any(isinstance(n, (c_ast.ArrayRef, c_ast.StructRef)) or (isinstance(n, c_ast.UnaryOp) and n.op == "*")
           for h in header for n in walk(h)):
        return f"{where(loop)}: the loop's header reads memory (threads may read it while another writes it)"
    body_writes = {w.base.name for w in writes(loop.stmt) if w.base is not None}
    read = {v.name for h in header for v in variables(h)} - {index}
    if read & body_writes or index in body_writes:
        return f"{where(loop)}: the loop's body writes what its header reads"
    unsafe = sorted(read - plan.plain)
    if unsafe:
        return f"{where(loop)}: the loop's header reads {', '.join(unsafe)}, which a call or a pointer may write"
    if not isinstance(loop.init, c_ast.DeclList):
        uses = [n for n in walk(module.ast.body) if isinstance(n, c_ast.ID) and n.name == index]
        inside = {id(n) for n in walk(loop) if isinstance(n, c_ast.ID)}
        if any(id(n) not in inside for n in uses):
            return f"{where(loop)}: its index {index} is used outside the loop"
        plan.indices.append(index)
    return _body_plan(loop.stmt, plan, module)


def _plain_locals(module: Module) -> set[str]:
    """The function's parameters and locals whose address is never taken: only a statement naming
    them writes them (not a call, not a pointer), and the threads' copies of the time loop read them."""
    decl = module.ast.decl
    params = getattr(getattr(decl.type, "args", None), "params", None) or []
    names = {p.name for p in params if isinstance(p, c_ast.Decl) and p.name}
    names |= {n.name for n in walk(module.ast.body) if isinstance(n, c_ast.Decl) and n.name}
    taken = {n.expr.name for n in walk(module.ast) if isinstance(n, c_ast.UnaryOp) and n.op == "&"
             and isinstance(n.expr, c_ast.ID)}
    return names - taken


def _condition_stays(condition: str, loop: c_ast.For, plain: set[str]) -> bool:
    """Whether an ``if`` clause of the loops in ``loop`` has one value over the whole loop: it reads only
    variables of ``plain`` that ``loop`` does not write (and calls nothing, which would read as a name)."""
    if not condition:
        return True
    try:
        names = {v.name for v in variables(expression(condition))}
    except ParseError:  # a clause the parser cannot read (a cast to a typedef) is not moved
        return False
    return not (names & _written(loop) or names - plain)


def _written(loop: c_ast.For) -> set[str]:
    """The variables ``loop`` writes (its indices included)."""
    return {w.base.name for w in writes(loop) if w.base is not None} | {
        d.name for n in walk(loop) if isinstance(n, c_ast.DeclList) for d in n.decls}


def _in_region(node: c_ast.Node, parents: dict[int, c_ast.Node]) -> bool:
    """Whether ``node`` is already inside an OpenMP construct (a pragma'd statement around it)."""
    child, parent = node, parents.get(id(node))
    while parent is not None:
        items = block_of(parent) if isinstance(parent, c_ast.Compound) else None
        if items is not None:
            k = next((i for i, n in enumerate(items) if n is child), None)
            while k is not None and k > 0 and isinstance(items[k - 1], c_ast.Pragma):
                if items[k - 1].string.split()[:1] == ["omp"]:
                    return True
                k -= 1
        child, parent = parent, parents.get(id(parent))
    return False


@transformation(scope="module", preserves=["callgraph"])
def hoist_parallel_regions(module: Module) -> None:
    """Open one parallel region around each sequential loop of parallel loops (see the module docstring).

    The outermost such loop of each nest is chosen. Refused when no loop
    qualifies; ``passman run openmp --verbose`` names why a loop did not.
    """
    body = module.ast.body
    parents = parent_map(module.ast)
    chosen: list[tuple[c_ast.For, _Plan]] = []
    taken: set[int] = set()
    reasons: list[str] = []
    plain = _plain_locals(module)
    for node in walk(body):  # outer loops first
        if not isinstance(node, c_ast.For) or id(node) in taken:
            continue
        item = _labelled(node, parents)
        parent = parents.get(id(item))
        items = block_of(parent) if isinstance(parent, c_ast.Compound) else None
        if items is None:
            continue  # not an item of a block (a loop's body): no place for a pragma
        k = next(i for i, n in enumerate(items) if n is item)
        if k > 0 and isinstance(items[k - 1], c_ast.Pragma):
            continue  # a loop with a pragma of its own (a parallel loop, a simd loop)
        plan = _Plan(plain)
        why = _loop_plan(node, plan, module)
        if not why and len(plan.conditions) > 1:
            why = f"{where(node)}: its parallel loops have different if clauses"
        if not why and not _condition_stays(next(iter(plan.conditions)), node, plain):
            why = f"{where(node)}: the if clause of its parallel loops reads what the loop or a call may write"
        if why or _in_region(node, parents):
            if why and why != "no parallel loop":
                reasons.append(why)
            continue
        chosen.append((node, plan))
        taken.update(id(n) for n in walk(node))
    if not chosen:
        raise PassFailed(f"no sequential loop of {module.name} holds only parallel loops"
                         + (f": {'; '.join(reasons[:3])}" if reasons else ""))
    edited = module.edit().body
    copies = {id(a): b for a, b in zip(walk(body), walk(edited))}
    new_parents = parent_map(edited)
    for loop, plan in chosen:
        for pragma in plan.pragmas:
            twin = copies[id(pragma)]
            words = [w for w in clauses(twin.string) if w[0] not in ("parallel", "if")]
            twin.string = " ".join(name if arg is None else f"{name}({arg})" for name, arg in words)
        text = "omp parallel"
        if plan.indices:
            text += f" private({', '.join(dict.fromkeys(plan.indices))})"
        condition = next(iter(plan.conditions))
        if condition:
            text += f" if({condition})"
        twin = _labelled(copies[id(loop)], new_parents)
        items = block_of(new_parents[id(twin)])
        k = next(i for i, n in enumerate(items) if n is twin)
        items.insert(k, c_ast.Pragma(text, loop.coord))
