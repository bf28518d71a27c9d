"""OpenMP generation: markers of parallel loops become ``#pragma omp parallel for``.

``ompify_code`` turns each ``#pragma passman parallel`` marker (see
:mod:`.parallelize`) into an OpenMP work-sharing pragma::

    #pragma passman parallel private(j, t) reduction(+:s)
    for (i = 0; i < n; i++) ...

becomes::

    #pragma omp parallel for private(j, t) reduction(+:s)
    for (i = 0; i < n; i++) ...

with ``collapse(n)`` for a perfect rectangular nest of marked loops whose
outer loop is too short to keep the threads busy (fewer iterations than the
property ``parallel_collapse_below``, 64; the inner markers removed; the
innermost loop of a nest is never collapsed so that it stays vectorizable). A marker whose loop the parallel-loop analysis
does not prove parallel in the current code, or that is not in OpenMP
canonical form, is dropped with a warning, never emitted.

``omp_merge_pragma`` removes parallel-for pragmas nested in another
parallel loop (a nested parallel region only adds overhead), carrying what
the inner pragma privatized to the outer one.
"""

from __future__ import annotations

from pycparser import c_ast, c_parser

from passman import Loop, Module, PassFailed, transformation
from passman.astutil import conjunction, copy_node, walk

from ..cfacts.control import user_labels
from ..cfacts.names import visible_names, where
from ..cfacts.sideeffects import variables
from .marker import (
    ParallelMarker,
    block_of,
    canonical_form,
    canonical_index,
    clauses,
    collapse_chain,
    constant_value,
    is_marked_parallel,
    marked_loops,
    placement_problem,
    pragmas_of,
    remove_marker,
    replace_pragma,
    sole_loop,
    split_list,
)
from .omp_clauses import (
    MAX_SECTION_ELEMENTS,
    reduction_items,
    section_lengths,
    section_size,
    varying_section,
)
from .verdicts import loop_verdict

__all__ = ["omp_merge_pragma", "omp_pragma_text", "ompify_code", "version_loop"]


def omp_pragma_text(m: ParallelMarker, collapse: int = 1, indices: tuple[str, ...] = (),
                    schedule: str | None = None) -> str:
    """``omp parallel for private(...) lastprivate(...) reduction(op:...) collapse(n) if(...)``.

    The loop indices of the collapsed nest are private by OpenMP's rules and
    are not listed as private (they stay lastprivate when their value is
    used after the loop). Reductions of one operator share a clause.
    """
    parts = ["omp parallel for"]
    last = tuple(dict.fromkeys(m.lastprivate))
    reduced = {_base(item) for _, item in m.reductions}
    private = [v for v in dict.fromkeys(m.private) if v not in indices and v not in last and v not in reduced]
    if private:
        parts.append(f"private({', '.join(private)})")
    if last:
        parts.append(f"lastprivate({', '.join(last)})")
    by_op: dict[str, list[str]] = {}
    for op, item in m.reductions:
        by_op.setdefault(op, []).append(item)
    parts += [f"reduction({op}:{', '.join(items)})" for op, items in by_op.items()]
    if schedule:
        parts.append(f"schedule({schedule})")
    if collapse > 1:
        parts.append(f"collapse({collapse})")
    if m.condition and not m.versioned:
        parts.append(f"if({m.condition})")
    return " ".join(parts)


def triangular(loop: Loop, indices: tuple[str, ...]) -> bool:
    """Whether a loop nested in ``loop`` has bounds that depend on the parallel ``indices``.

    Then the iterations of ``loop`` do unequal work (``for (j = 0; j <= i; j++)``):
    OpenMP's default schedule, one block of consecutive iterations per
    thread, gives one thread most of it; ``schedule(static, 1)`` deals the
    iterations round-robin instead.
    """
    for f in walk(loop.node.stmt):
        if isinstance(f, c_ast.For):
            bounds = [b for b in (f.init, f.cond) if b is not None]
            if any(v.name in indices for b in bounds for v in variables(b)):
                return True
    return False


def _base(item: str) -> str:
    return item.split("[", 1)[0].strip()


def _marker_pragma(loop: Loop) -> c_ast.Pragma | None:
    for p in pragmas_of(loop):
        if ParallelMarker.parse(p.string) is not None:
            return p
    return None


def _proven(loop: Loop, m: ParallelMarker) -> tuple[ParallelMarker | None, str]:
    """The marker completed with what the analysis requires, or None and why it cannot be emitted."""
    head = f"{where(loop.node)}: loop {loop.label} of {loop.module.name}"
    v = loop_verdict(loop)
    if not v.parallel:
        why = "; ".join(v.reasons) or "the analysis cannot prove it parallel"
        return None, f"{head} is marked parallel but is not: {why}"
    odd = canonical_form(loop)
    if odd:
        return None, f"{head} is not in OpenMP canonical form: {odd}"
    odd = placement_problem(loop)
    if odd:
        return None, f"{head}: {odd}"
    need, why = reduction_items(loop, v) if v.reductions else ((), None)
    if why:
        return None, f"{head}: {why}"
    # the analysis says which reductions the loop needs, on the code as it is now: a marker's own
    # reduction items may name what an earlier pass rewrote (C[k:1] after k became kk + 3)
    own = ParallelMarker(m.private, m.lastprivate, (), m.condition, m.versioned)
    return own.merged(ParallelMarker(tuple(v.private), tuple(v.lastprivate), need)), ""


@transformation(scope="module", reads=["parallel_loops"], preserves=["callgraph"])
def ompify_code(module: Module, collapse: bool = True) -> None:
    """Turn the ``#pragma passman parallel`` markers into ``#pragma omp parallel for``.

    Before::

        #pragma passman parallel private(j)
        for (i = 0; i < n; i++)
            #pragma passman parallel private(k)
            for (j = 0; j < n; j++) {
                for (k = 0; k < n; k++) ...
            }

    After (``n`` a constant below ``parallel_collapse_below``, else the
    ``i`` loop alone gets the pragma and ``j`` becomes private)::

        #pragma omp parallel for private(k) collapse(2)
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++) { ... }

    The clauses are the marker's, completed with the private variables and
    reductions the analysis finds on the current code, and
    ``schedule(static, 1)`` when inner loops have bounds that depend on the
    parallel index (a triangular nest: round-robin iterations balance the
    work). Markers of loops the
    analysis does not prove parallel, or that are not in OpenMP canonical
    form, are removed with a warning. Nested markers left after the outer
    one (a nest that is not collapsible) become nested pragmas: run
    ``limit_nested_parallelism`` before or ``omp_merge_pragma`` after.
    Each thread's copy of a reduced array section lives on its stack: when a
    section's size is not a constant, the loop is versioned,
    ``if (n >= 0 && (long)n <= 131072L) { #pragma omp ... loop } else loop``.
    Refused when the function has no marker.

    Properties:

    - collapse: merge short perfect rectangular nests of marked loops into one collapse(n) pragma (default true)
    """
    marked = marked_loops(module)
    if not marked:
        raise PassFailed(f"no loop of {module.name} is marked parallel (run a parallelization pass first)")
    done: set[str] = set()
    dropped: set[str] = set()
    for loop in marked:
        if loop.label in done:
            continue
        pragma = _marker_pragma(loop)
        if pragma is None:  # collapsed into its parent meanwhile
            continue
        m, why = _proven(loop, ParallelMarker.parse(pragma.string))
        if m is not None and m.condition:
            why = _stale_condition(module, loop, m.condition)
            m = None if why else m
        if m is None:
            module.ws.warn(f"{why}: no OpenMP pragma")
            remove_marker(loop)
            dropped.add(loop.label)
            continue
        chain = [loop]
        if collapse:
            chain = collapse_chain(loop, lambda lp: is_marked_parallel(lp) and lp.label not in dropped)
            while len(chain) > 1:
                inner = [_proven(lp, ParallelMarker.parse(_marker_pragma(lp).string)) for lp in chain[1:]]
                if all(im is not None for im, _ in inner):
                    merged = m
                    for im, _ in inner:
                        merged = merged.merged(im)
                    # an inner loop's section names an outer index (A[i:1]), or the loops reduce
                    # different sections of one array (OpenMP takes one per variable): no collapse
                    bases = [_base(item) for _, item in merged.reductions]
                    if varying_section(merged.reductions, loop.node) is None and len(set(bases)) == len(bases):
                        m = merged
                        break
                    chain = chain[:-1]
                    continue
                chain = chain[: 1 + next(k for k, (im, _) in enumerate(inner) if im is None)]
        for inner_loop in chain[1:]:
            remove_marker(inner_loop)
            done.add(inner_loop.label)
        indices = tuple(canonical_index(lp.node) for lp in chain)
        schedule = "static, 1" if triangular(chain[-1], indices) else None
        text = omp_pragma_text(m, len(chain), indices, schedule)
        guard = _stack_guard(m)
        if m.versioned and user_labels(loop.node, module.ws.generated_labels):
            text += f" if({m.condition})"  # a copy would duplicate the labels: OpenMP's if instead
        elif m.versioned:
            guard = conjunction([c for c in (guard, _expression(m.condition)) if c is not None])
        if guard is not None and user_labels(loop.node, module.ws.generated_labels):
            module.ws.warn(f"{where(loop.node)}: loop {loop.label} of {module.name}: the array sections of "
                           "its reductions have no constant size and its body has labels a sequential "
                           "copy would duplicate: no OpenMP pragma")
            remove_marker(loop)
            dropped.add(loop.label)
            continue
        replace_pragma(loop, _marker_pragma(loop), text)
        if guard is not None:
            version_loop(loop, guard)
        done.add(loop.label)


def _stack_guard(m: ParallelMarker) -> c_ast.Node | None:
    """``size <= MAX_SECTION_ELEMENTS`` for the array sections of non-constant size (None: all constant)."""
    conds = []
    for _, item in m.reductions:
        lengths = section_lengths(item)
        if not lengths or section_size(item) is not None:
            continue
        size: c_ast.Node | None = None
        for length in lengths:
            if _constant_length(length):
                e = _expression(length)
            else:
                conds.append(c_ast.BinaryOp(">=", _expression(length), c_ast.Constant("int", "0")))
                e = _expression(length)
            if size is None:
                long_type = c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(["long"]))
                e = c_ast.Cast(c_ast.Typename(None, [], None, long_type), e)
            size = e if size is None else c_ast.BinaryOp("*", size, e)
        conds.append(c_ast.BinaryOp("<=", size, c_ast.Constant("long", f"{MAX_SECTION_ELEMENTS}L")))
    return conjunction(conds)


def _constant_length(text: str) -> bool:
    return section_size(f"x[0:{text}]") is not None


def _stale_condition(module: Module, loop: Loop, condition: str) -> str:
    """Why the marker's run-time test cannot stand before the loop ("" when it can).

    A transformation since the loop was marked may have renamed what the
    test reads (``loop_normalize``: ``j_t`` became ``8 * j_t_n`` in the code,
    not in the pragma's text): then the loop keeps no pragma (it was not
    worth one at every size) rather than a test that does not compile.
    """
    try:
        names = {n.name for n in walk(_expression(condition)) if isinstance(n, c_ast.ID)}
    except c_parser.ParseError:
        return f"{where(loop.node)}: loop {loop.label} of {module.name}: its run-time test {condition} does not parse"
    unknown = names - visible_names(module.ast, loop.node, module.cu.ast.ext)
    if unknown:
        return (f"{where(loop.node)}: loop {loop.label} of {module.name}: its run-time test {condition} "
                f"reads {', '.join(sorted(unknown))}, not declared there (renamed since the loop was marked)")
    return ""


def _expression(text: str) -> c_ast.Node:
    ast = c_parser.CParser().parse(f"int __passman_x = ({text});")
    return ast.ext[0].init


def version_loop(loop: Loop, guard: c_ast.Node) -> None:
    """``if (guard) { #pragma omp ... loop } else loop-copy``: the copy runs when the sections are too big.

    The copy is sequential (markers inside it are removed); its generated
    labels are renamed by the framework after the pass.
    """
    site = loop.site
    items = block_of(site.parent)
    k = next(k for k, n in enumerate(items) if n is site.labelled)
    j = k
    while j > 0 and isinstance(items[j - 1], c_ast.Pragma):
        j -= 1
    pragmas = items[j:k]
    copy = copy_node(site.labelled)
    for n in list(walk(copy)):
        block = block_of(n) if isinstance(n, (c_ast.Compound, c_ast.Case, c_ast.Default)) else None
        if block:
            block[:] = [x for x in block if not (isinstance(x, c_ast.Pragma)
                                                 and ParallelMarker.parse(x.string) is not None)]
    parallel = c_ast.Compound([*pragmas, site.labelled], site.node.coord)
    items[j : k + 1] = [c_ast.If(guard, parallel, copy, site.node.coord)]


def _omp_for(loop: Loop) -> c_ast.Pragma | None:
    for p in pragmas_of(loop):
        words = p.string.split()
        if words[:1] == ["omp"] and "for" in words[1:4] and "parallel" in words[1:3]:
            return p
    return None


def _clause_vars(text: str) -> dict[str, set[str]]:
    """Variables named by each clause of an OpenMP pragma (array sections by their array)."""
    out: dict[str, set[str]] = {}
    for name, arg in clauses(text):
        if arg is None:
            continue
        if name == "reduction":
            arg = arg.partition(":")[2]
        out.setdefault(name, set()).update(_base(x) for x in split_list(arg))
    return out


#: clauses whose variables each thread owns
_OWNING = ("private", "firstprivate", "lastprivate", "reduction", "linear")


def _collapsed_indices(loop: Loop, text: str) -> list[str]:
    """The indices of the loops an OpenMP pragma on ``loop`` covers (``collapse(n)``: n loops)."""
    n = next((constant_value(arg) for name, arg in clauses(text) if name == "collapse" and arg), 1) or 1
    out, cur = [], loop.node
    for _ in range(n):
        index = canonical_index(cur)
        if index:
            out.append(index)
        inner = sole_loop(cur.stmt)
        if inner is None:
            break
        cur = inner.stmt
    return out


def _declared_inside(loop: Loop) -> set[str]:
    return {d.name for d in walk(loop.node) if isinstance(d, c_ast.Decl) and d.name}


@transformation(scope="module", preserves=["callgraph"])
def omp_merge_pragma(module: Module) -> None:
    """Remove ``#pragma omp parallel for`` from loops nested in another parallel loop.

    Before::

        #pragma omp parallel for private(j)
        for (i = 0; i < n; i++)
            #pragma omp parallel for
            for (j = 0; j < n; j++) ...

    After: only the outer pragma (an inner parallel region inside a parallel
    loop only adds overhead: OpenMP runs it with one thread by default).
    Variables the inner pragma privatizes become private in the outer one;
    an inner reduction or lastprivate on a variable the outer loop shares
    keeps its pragma. Refused when nothing is merged.
    """
    merged = 0
    for loop in module.all_loops:
        p = _omp_for(loop)
        if p is None:
            continue
        outer = loop.outer
        while outer is not None and _omp_for(outer) is None:
            outer = outer.outer
        if outer is None:
            continue
        op = _omp_for(outer)
        inner_vars = _clause_vars(p.string)
        outer_vars = _clause_vars(op.string)
        owned = _declared_inside(outer).union(*(outer_vars.get(k, set()) for k in _OWNING))
        indices = set(_collapsed_indices(loop, p.string))
        if any(v not in owned for k in ("reduction", "lastprivate", "linear") for v in inner_vars.get(k, ())):
            continue
        add = sorted((inner_vars.get("private", set()) | inner_vars.get("firstprivate", set()) | indices) - owned)
        if add:
            replace_pragma(outer, op, _add_private(op.string, add))
        items = block_of(loop.site.parent)
        items[:] = [n for n in items if n is not p]
        merged += 1
    if not merged:
        raise PassFailed(f"no parallel loop of {module.name} is nested in another one")


def _add_private(text: str, names: list[str]) -> str:
    """``text`` with ``names`` added to its ``private`` clause (one is added if there is none)."""
    out, found = [], False
    for name, arg in clauses(text):
        if name == "private" and arg is not None:
            arg = ", ".join([*split_list(arg), *names])
            found = True
        out.append(name if arg is None else f"{name}({arg})")
    if not found:
        out.append(f"private({', '.join(names)})")
    return " ".join(out)
