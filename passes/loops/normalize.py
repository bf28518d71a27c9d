"""Loop normalization, strip-mining and reversal of counted loops.

All three read the loop as :func:`loops.counted_loop` does
(``for (i = lb; i < ub; i += s)`` and its spellings, constant positive step)
and refuse what :func:`loops.check_invariant_bounds` refuses (bounds or index
written in the body, bodies left before their end ...). The index keeps its
exit value where it may be read after the loop: the passes assign it
(``i = n > 0 ? n : 0``) when the liveness of local scalars cannot rule that out.
"""

from __future__ import annotations

from pycparser import c_ast

from passman import Loop, PassFailed, transformation
from passman.astutil import copy_node, replace_child, walk
from passman.printer import to_c

from ..analysis.liveness import liveness
from ..cfacts.folding import int_value, make_int, simplify
from ..cfacts.forms import linear_coefficient
from ..cfacts.names import fresh_name, names_in_scope, substitute
from ..cfacts.sideeffects import impure_calls, variables, writes
from ..cfacts.types import TypeEnv
from .counted import CountedLoop, check_invariant_bounds, counted_loop, substitute_index


def _bin(op: str, a: c_ast.Node, b: c_ast.Node) -> c_ast.BinaryOp:
    return c_ast.BinaryOp(op, a, b)


def trip_count_expr(cl: CountedLoop) -> c_ast.Node:
    """The number of iterations as C, ``(ub - lb + s - 1) / s`` (at most 0 when the loop does not run).

    Constant when ``ub - lb`` is; guarded by ``ub > lb ? ... : 0`` when the
    subtraction could wrap around (unsigned index, see ``CountedLoop.guarded``).
    """
    trips = cl.trip_count()
    if trips is not None:
        return make_int(trips)
    span = _bin("-", copy_node(cl.ub), copy_node(cl.lb))
    if cl.step == 1:
        count = simplify(span)
    else:
        count = simplify(_bin("/", _bin("+", span, make_int(cl.step - 1)), make_int(cl.step)))
    if cl.guarded:
        count = c_ast.TernaryOp(_bin(">", copy_node(cl.ub), copy_node(cl.lb)), count, make_int(0))
    return count


def exit_value(cl: CountedLoop) -> c_ast.Node:
    """The value of the index when the loop ends: ``lb + s * max(0, trips)``, as C."""
    trips = cl.trip_count()
    if trips is not None:
        return simplify(_bin("+", copy_node(cl.lb), make_int(trips * cl.step)))
    if cl.step == 1:
        last = copy_node(cl.ub)
    else:
        span = _bin("-", copy_node(cl.ub), copy_node(cl.lb))
        groups = _bin("/", _bin("+", span, make_int(cl.step - 1)), make_int(cl.step))
        last = simplify(_bin("+", copy_node(cl.lb), _bin("*", make_int(cl.step), groups)))
    return c_ast.TernaryOp(_bin(">", copy_node(cl.ub), copy_node(cl.lb)), last, copy_node(cl.lb))


def _index_decl(cl: CountedLoop, table) -> c_ast.Decl:
    return table.decl_of(cl.index_ref)


def _index_type(decl: c_ast.Decl, env: TypeEnv, name: str) -> c_ast.Node:
    """The type of a new variable counting like ``decl`` (``int`` for narrower integers)."""
    t = env.unalias(decl.type)
    if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType):
        if set(t.type.names) & {"char", "short", "_Bool"}:
            return c_ast.TypeDecl(name, [], None, c_ast.IdentifierType(["int"]))
    t = copy_node(decl.type)
    t.quals = [q for q in t.quals if q not in ("const", "volatile")]
    t.declname = name
    return t


def _new_var(name: str, type_: c_ast.Node, init: c_ast.Node | None) -> c_ast.Decl:
    return c_ast.Decl(name, [], [], [], [], type_, init, None)


def _needs_exit_value(cl: CountedLoop, table, env) -> bool:
    """Whether the index may be read after the loop (the loop then assigns it its exit value)."""
    if cl.index_decl is not None:
        return False
    module = cl.loop.module
    live = liveness(module.ast, table, env)
    return live.live_after(cl.loop.site.labelled, _index_decl(cl, table))


def _append_after(loop: Loop, stmt: c_ast.Node) -> None:
    site = loop.site
    replace_child(site.parent, site.labelled, [site.labelled, stmt])


def _prepare(loop: Loop, verb: str):
    cl = counted_loop(loop, verb)
    table = check_invariant_bounds(cl, verb)
    module = loop.module
    env = TypeEnv(table, module.cu.ast.ext, module.ast)
    decl = _index_decl(cl, table)
    if env.category(decl.type) == "pointer":
        raise cl.fail(f"{verb}: index {cl.index} is a pointer")
    return cl, table, env, decl


def _shared_index_reads(cl: CountedLoop, table, decl, verb: str) -> None:
    """Refuse a global (or address-taken) index that the body could read other than by its name."""
    module = cl.loop.module
    func = module.ast
    escaped = any(
        n.op == "&" and isinstance(n.expr, c_ast.ID) and table.decl_of(n.expr) is decl
        for n in walk(func) if isinstance(n, c_ast.UnaryOp)
    )
    shared = not table.is_local(decl) or escaped or "static" in (decl.storage or [])
    if not shared:
        return
    body = cl.node.stmt
    calls = impure_calls(body, table, module.ws)
    if calls:
        raise cl.fail(f"{verb}: index {cl.index} is not a local variable and the call to "
                      f"{to_c(calls[0].name)} in the body may read it")
    for n in walk(body):
        if (isinstance(n, c_ast.UnaryOp) and n.op == "*") or (isinstance(n, c_ast.StructRef) and n.type == "->"):
            raise cl.fail(f"{verb}: index {cl.index} is not a local variable and the body reads through "
                          f"a pointer (line {n.coord.line})")


@transformation(scope="loop", preserves=["callgraph"], reads=["unit_scope"])
def loop_normalize(loop: Loop) -> None:
    """Rewrite a counted loop to count from 0 by 1, the index becoming an affine function.

    Before::

        for (i = 2; i <= n; i += 3)
            a[i] = a[i - 2];
        x = i;

    After::

        for (int ii = 0; ii < (n + 1) / 3; ii++)
            a[3 * ii + 2] = a[3 * ii];
        i = n + 1 > 2 ? 3 * ((n + 1) / 3) + 2 : 2;
        x = i;

    The new index is declared in the loop (``ii`` from ``i``; ``k_n`` from a
    longer name, made unique), with the index's type (``int`` for narrower
    integers). The old index is assigned its exit value after the loop unless
    it is dead there (declared in the loop, or never read before being
    written again). The loop keeps its label and pragmas.

    Refused: loops already normalized, loops ``unroll`` refuses (not a counted
    loop with a constant positive step, bounds or index written in the body,
    ``break``/``continue``/``return``/``goto`` in the body ...), a pointer
    index, and an index that is not a plain local when the body calls a
    function or reads through a pointer (it might read the index there).
    """
    verb = "cannot normalize"
    cl, table, env, decl = _prepare(loop, verb)
    if cl.step == 1 and int_value(simplify(cl.lb)) == 0:
        raise cl.fail(f"already normalized: {cl.index} counts from 0 by 1")
    _shared_index_reads(cl, table, decl, verb)
    module = loop.module
    taken = names_in_scope(module.ast, module.cu.ast.ext)
    new = fresh_name(cl.index * 2 if len(cl.index) == 1 else f"{cl.index}_n", taken)
    f = cl.node
    count = trip_count_expr(cl)
    value = simplify(_bin("+", copy_node(cl.lb), _bin("*", make_int(cl.step), c_ast.ID(new))))
    final = _needs_exit_value(cl, table, env)
    f.stmt = substitute_index(f.stmt, cl.index, value)
    f.init = c_ast.DeclList([_new_var(new, _index_type(decl, env, new), make_int(0))], f.coord)
    f.cond = _bin("<", c_ast.ID(new), count)
    f.next = c_ast.UnaryOp("p++", c_ast.ID(new))
    if final:
        _append_after(loop, c_ast.Assignment("=", c_ast.ID(cl.index), exit_value(cl), f.coord))


def _min(a: c_ast.Node, b: c_ast.Node) -> c_ast.Node:
    return c_ast.TernaryOp(_bin("<", a, b), copy_node(a), copy_node(b))


@transformation(scope="loop", preserves=["callgraph"], reads=["unit_scope"])
def strip_mine(loop: Loop, factor: int = 32) -> None:
    """Split a counted loop into strips of ``factor`` iterations: an outer loop over strips, an inner one.

    Before (factor 32)::

        for (i = 0; i < n; i++)
            a[i] = b[i];

    After::

        for (int i_t = 0; i_t < n; i_t += 32)
            for (i = i_t; i < (i_t + 32 < n ? i_t + 32 : n); i++)
                a[i] = b[i];

    Any trip count: the last strip stops at the loop's bound (no ``?:`` when
    a constant trip count is a multiple of ``factor``). The outer loop keeps
    the label and the pragmas; the strip index (``i_t``, made unique) has the
    index's type. Where the index may be read after the loop and the loop
    may run no iteration, ``i = lb;`` comes first so that it keeps its exit
    value.

    Refused: factor below 2, loops ``unroll`` refuses, a pointer index, and an
    OpenMP loop whose index is not declared in the loop (the index would be
    shared by the strips).

    Properties:

    - factor: iterations per strip (default 32)
    """
    verb = "cannot strip-mine"
    if factor < 2:
        raise PassFailed(f"{loop.module.name}: loop {loop.label}: cannot strip-mine by {factor}: "
                         "the factor must be at least 2")
    cl, table, env, decl = _prepare(loop, verb)
    if cl.index_decl is None and any(p.split()[:1] == ["omp"] for p in loop.pragma):
        raise cl.fail(f"{verb}: '#pragma {loop.pragma[0]}' would make index {cl.index} shared by the strips")
    outer = loop
    while outer is not None:
        for p in outer.pragma:
            if p.split()[:1] == ["omp"] and "collapse" in p:
                raise cl.fail(f"{verb}: '#pragma {p}' collapses loops whose nest would change")
        outer = outer.outer
    module = loop.module
    taken = names_in_scope(module.ast, module.cu.ast.ext)
    tile = fresh_name(f"{cl.index}_t", taken)
    f = cl.node
    width = cl.step * factor
    trips = cl.trip_count()
    need_start = _needs_exit_value(cl, table, env) and not trips
    strip_end = simplify(_bin("+", c_ast.ID(tile), make_int(width)))
    if trips is not None and trips % factor == 0:
        bound = strip_end
    else:
        bound = _min(strip_end, copy_node(cl.ub))
    outer_cond = substitute(copy_node(f.cond), cl.index, lambda: c_ast.ID(tile))
    outer = c_ast.For(
        c_ast.DeclList([_new_var(tile, _index_type(decl, env, tile), copy_node(cl.lb))], f.coord),
        outer_cond,
        c_ast.Assignment("+=", c_ast.ID(tile), make_int(width)),
        f,
        f.coord,
    )
    if cl.index_decl is not None:
        cl.index_decl.init = c_ast.ID(tile)
    else:
        f.init = c_ast.Assignment("=", c_ast.ID(cl.index), c_ast.ID(tile), f.coord)
    f.cond = _bin("<", c_ast.ID(cl.index), bound)
    site = loop.site
    site.labelled.stmt = outer
    if need_start:
        pragmas = loop.pragma
        items = getattr(site.parent, "block_items", None)
        start = c_ast.Assignment("=", c_ast.ID(cl.index), copy_node(cl.lb), f.coord)
        if items is not None:
            k = next(i for i, n in enumerate(items) if n is site.labelled) - len(pragmas)
            items.insert(k, start)
        else:
            replace_child(site.parent, site.labelled, [start, site.labelled])


def _check_reversible(loop: Loop, cl: CountedLoop, table) -> None:
    """Refuse a loop that may carry a dependence (see :func:`reverse`)."""
    from ..analysis.privatization import loop_privates

    module = loop.module
    verb = "cannot reverse"
    if module.ws.registry.producers.get("dependences"):
        deps = module.resource("dependences")
        carried = deps.carried_at(loop)
        if carried is not None:
            privates = loop_privates(loop)
            private = set(privates.private) | set(privates.private_arrays)
            real = [d for d in carried if d.array not in private]
            if real:
                best = sorted(real, key=lambda d: (not d.is_direct, d.kind != "flow", d.may))[0]
                raise cl.fail(f"{verb}: {best.why()}")
            return
    _check_reversible_by_effects(loop, cl, table, verb)


def _check_reversible_by_effects(loop: Loop, cl: CountedLoop, table, verb: str) -> None:
    """The fallback without dependences: private scalars, and writes injective in the index."""
    from ..analysis.effect_model import ANYWHERE
    from ..analysis.effects import body_effects
    from ..analysis.privatization import loop_privates

    module = loop.module
    body = cl.node.stmt
    for call in impure_calls(body, table, module.ws):
        callee = module.ws.callee(call.name.name) if isinstance(call.name, c_ast.ID) else None
        if callee is None or callee.is_stub or any(e.action == "write" for e in callee.resource("summary_effects")):
            raise cl.fail(f"{verb}: the call to {to_c(call.name)} (line {call.coord.line}) "
                          "may depend on the order of iterations")
    privates = loop_privates(loop)
    effects = body_effects(module, cl.node)
    for var in sorted({e.var for e in effects if e.action == "write" and e.is_scalar} - {cl.index}):
        if var in privates.private:
            continue
        if var in privates.lastprivate:
            raise cl.fail(f"{verb}: {var} is used after the loop; its last value would come from "
                          "another iteration")
        why = next((w for w in privates.why if f": {var} is not private" in w), None)
        raise cl.fail(f"{verb}: " + (why.split(": ", 2)[-1] if why else
                                     f"{var} is written in the loop and may carry a value between iterations"))
    if any(e.var == ANYWHERE and e.action == "write" for e in effects):
        raise cl.fail(f"{verb}: the body may write any memory")
    written = sorted({e.var for e in effects if e.action == "write" and not e.is_scalar})
    if written and any(e.var == ANYWHERE for e in effects):
        raise cl.fail(f"{verb}: the body may read any memory while it writes {written[0]}")
    body_written = {id(table.decl_of(w.base)) for w in writes(body) if w.base is not None}
    for var in written:
        on_var = [e for e in effects if e.var == var]
        refs = _array_refs(body, var)
        if refs is None or not refs:
            raise cl.fail(f"{verb}: {var} is accessed other than by subscripts")
        why = _injective_dimension(cl, var, on_var, refs, table, body_written)
        if why:
            raise cl.fail(f"{verb}: {why}")


def _array_refs(body: c_ast.Node, var: str) -> list[list[c_ast.Node]] | None:
    """Subscript lists of the references ``var[e1][e2]...`` in ``body`` (None: another kind of use)."""
    out = []
    inner: set[int] = set()
    for n in walk(body):
        if isinstance(n, c_ast.ArrayRef) and id(n) not in inner:
            subs, base = [], n
            while isinstance(base, c_ast.ArrayRef):
                subs.insert(0, base.subscript)
                inner.add(id(base.name))
                base = base.name
            if isinstance(base, c_ast.ID) and base.name == var:
                out.append(subs)
                inner.add(id(base))
    for n in walk(body):
        if isinstance(n, c_ast.ID) and n.name == var and id(n) not in inner:
            return None
    return out


def _injective_dimension(cl, var, effects, refs, table, body_written) -> str | None:
    """None when some dimension of every reference to ``var`` is the same ``c*i + f`` (c != 0, f invariant)."""
    from passman.astutil import same_tree

    rank = {len(r) for r in refs}
    if len(rank) != 1:
        return f"{var} is accessed with different numbers of subscripts"
    for e in effects:
        if e.subscripts is None:
            return f"{var} is accessed as a whole ({e.text})"
    for d in range(rank.pop()):
        first = simplify(refs[0][d])
        if any(not same_tree(simplify(r[d]), first) for r in refs[1:]):
            continue
        if any(len(e.subscripts) <= d or e.subscripts[d] == "*" for e in effects):
            continue
        c = linear_coefficient(first, cl.index)
        if not c:
            continue
        others = [v for v in variables(first) if v.name != cl.index]
        if any(id(table.decl_of(v)) in body_written for v in others):
            continue
        return None
    texts = sorted({"".join(f"[{to_c(s)}]" for s in r) for r in refs})
    return (f"{var} is accessed as {var}{f', {var}'.join(texts)}: different iterations of {cl.index} "
            "may touch the same element")


@transformation(scope="loop", requires=["private_variables"], preserves=["callgraph"], reads=["cumulated_effects", "dependences", "scops", "summary_effects", "unit_scope"])
def reverse(loop: Loop) -> None:
    """Run the iterations of a counted loop in the opposite order.

    Before::

        for (i = 0; i < n; i++)
            a[i] = b[i] * 2;

    After::

        for (i = n - 1; i >= 0; i--)
            a[i] = b[i] * 2;

    For a step ``s`` the first value is the last one of the original loop,
    ``lb + s*((ub - lb + s - 1)/s - 1)``, which is below ``lb`` when the loop
    runs no iteration. The index gets its original exit value after the loop
    when it may be read there.

    Legal only when the loop carries no dependence. With the ``dependences``
    analysis registered, its answer decides for loops in a static control
    part; otherwise the loop is reversed only when every scalar written in it
    is private to an iteration (``private_variables``), the body calls no
    function with side effects, and for every array written, some dimension
    of all its references in the body is the same ``c*i + f`` (``c`` != 0,
    ``f`` invariant): different iterations then touch different elements.
    Distinct pointer or array parameters are assumed not to overlap (as in
    the effects analysis). Refused too: loops ``unroll`` refuses, and an index
    that is not a signed integer or bounds that are not (counting down could
    wrap around).
    """
    verb = "cannot reverse"
    cl, table, env, decl = _prepare(loop, verb)
    if env.category(decl.type) != "signed":
        raise cl.fail(f"{verb}: index {cl.index} is not a signed integer; counting down could wrap around")
    if cl.trip_count() is None:
        for what, e in (("lower bound", cl.lb), ("upper bound", cl.ub_source)):
            if env.expr_category(e) != "signed":
                raise cl.fail(f"{verb}: {what} {to_c(e)} is not a signed integer")
    _check_reversible(loop, cl, table)
    final = _needs_exit_value(cl, table, env)
    f = cl.node
    trips = trip_count_expr(cl)
    first = simplify(_bin("+", copy_node(cl.lb), _bin("*", make_int(cl.step), _bin("-", trips, make_int(1)))))
    exit_ = exit_value(cl)
    if cl.index_decl is not None:
        cl.index_decl.init = first
    else:
        f.init = c_ast.Assignment("=", c_ast.ID(cl.index), first, f.coord)
    f.cond = _bin(">=", c_ast.ID(cl.index), copy_node(cl.lb))
    if cl.step == 1:
        f.next = c_ast.UnaryOp("p--", c_ast.ID(cl.index))
    else:
        f.next = c_ast.Assignment("-=", c_ast.ID(cl.index), make_int(cl.step))
    if final:
        _append_after(loop, c_ast.Assignment("=", c_ast.ID(cl.index), exit_, f.coord))
