"""Interior and boundary clones of loops that test their index: ``split_boundaries``.

Pochoir (Freitag 2014, §5.1 claim 11) runs each tile of a stencil through
one of two clones of its kernel: the *boundary* clone, with the checks that
keep every access inside the grid, and the *interior* clone, without them,
for the tiles whose accesses cannot leave the interior. Here the same idea
works on a loop, wherever it is (a coarse-grain sweep, the point loop of a
diamond, split or trapezoidal tile): a body that tests its index against a
bound (``i > 0 ? a[i - 1] : a[i]``, ``if (j == n - 1)``, a clamp macro's
``(i - 1) > 0 ? ...``) runs the iterations where every test has the value
it has in the middle of the range through a copy with the tests folded
away, and the others through the body as written.

Why it is always legal: the iterations run in the same order, the first
ones and the last ones through the body as written and the middle ones
through a body that computes the same values there. Each test kept is a
comparison of the index against an expression of variables the body does
not change, affine in the index with a nonzero coefficient; the test that
bounds the middle (its *interior side*) is monotone in the index, so a
loop that runs while it is false, then one that runs while it is true,
splits the range exactly where it changes, whatever the values of the
variables (which side of the range a test changes near is a guess, from
its constant or its parameters: a wrong guess costs speed, never results).

The point: the interior copy has no test left, and the compiler vectorizes
it (a clamped 1-D stencil: 0.286 s -> 0.113 s with ``gcc -O3``; a periodic
one, whose remainders also cost a division per neighbour, 12x over ``gcc
-O3`` at two threads: ``benchmarks/bench_boundaries.py``).
"""

from __future__ import annotations

from pycparser import c_ast

from passman import Module, PassFailed, transformation
from passman.astutil import conjunction, copy_node, replace_child, transform, walk
from passman.printer import to_c

from ..analysis.effect_model import current_scope
from ..cfacts.control import detach_pragmas, pragmas_before
from ..cfacts.folding import int_value, make_int, simplify
from ..cfacts.forms import extreme
from ..cfacts.names import fresh_name, names_in_scope
from ..cfacts.sideeffects import has_side_effects
from ..cfacts.types import arith_type, expr_arith_type
from ..parallel.marker import clauses
from .counted import (
    BodyWrites,
    NotCounted,
    check_copyable_body,
    counted_header,
    refuse,
    stepped_header,
)
from .index_tests import (
    COMPARISONS,
    extreme_constant,
    index_tests,
    innermost_code,
    last_constant,
    mentions_index,
    near_start,
    needed,
    negated,
    strongest,
    threshold,
)

#: OpenMP constructs that share a loop's iterations out: a split loop's pieces would each need one
_WORKSHARING = ("for", "distribute", "taskloop", "loop")


# ------------------------------------------------------------------------ folding


def _constant(e: c_ast.Node) -> int | None:
    return int_value(e) if isinstance(e, (c_ast.Constant, c_ast.UnaryOp)) else None


def _truth(e: c_ast.Node) -> c_ast.Node:
    """``e`` where only its truth counts (a condition), with constant ``&&``, ``||``, ``!`` folded."""
    if isinstance(e, c_ast.BinaryOp) and e.op in ("&&", "||"):
        left, right = _truth(e.left), _truth(e.right)
        a, b = _constant(left), _constant(right)
        absorbing = 0 if e.op == "&&" else 1
        if a is not None:
            return make_int(absorbing, e.coord) if bool(a) == bool(absorbing) else right
        if b is not None and bool(b) != bool(absorbing):
            return left  # x && 1, x || 0
        if b is not None and not has_side_effects(left):
            return make_int(absorbing, e.coord)
        e.left, e.right = left, right
        return e
    if isinstance(e, c_ast.UnaryOp) and e.op == "!":
        inner = _truth(e.expr)
        v = _constant(inner)
        if v is not None:
            return make_int(int(not v), e.coord)
        e.expr = inner
        return e
    return e


def _folded(node: c_ast.Node, values: dict[str, int], remainders: dict[str, c_ast.Node]) -> c_ast.Node:
    """``node`` (a copy) with the tests ``values`` names replaced by their values, the remainders
    ``remainders`` names by theirs, and what became constant folded: conditional expressions and ``if``
    statements on a constant, ``&&``, ``||``, ``!`` in conditions."""

    def fold(n: c_ast.Node) -> c_ast.Node | None:
        if isinstance(n, c_ast.BinaryOp) and n.op in COMPARISONS:
            v = values.get(to_c(n))
            return None if v is None else make_int(v, n.coord)
        if isinstance(n, c_ast.BinaryOp) and n.op == "%":
            r = remainders.get(to_c(n))
            return None if r is None else copy_node(r)
        if isinstance(n, c_ast.TernaryOp):
            n.cond = _truth(n.cond)
            v = _constant(n.cond)
            return None if v is None else (n.iftrue if v else n.iffalse)
        if isinstance(n, c_ast.If):
            n.cond = _truth(n.cond)
            v = _constant(n.cond)
            if v is None:
                return None
            taken = n.iftrue if v else n.iffalse
            return taken if taken is not None else c_ast.EmptyStatement(n.coord)
        if isinstance(n, (c_ast.While, c_ast.DoWhile, c_ast.For)) and n.cond is not None:
            n.cond = _truth(n.cond)
        return None

    out = transform(copy_node(node), fold)
    for block in walk(out):  # drop the empty statements left by folded ifs
        if isinstance(block, c_ast.Compound) and block.block_items:
            block.block_items = [s for s in block.block_items if not isinstance(s, c_ast.EmptyStatement)]
    return out


def _disjunction(terms: list[c_ast.Node]) -> c_ast.Node:
    out = terms[0]
    for t in terms[1:]:
        out = c_ast.BinaryOp("||", out, t, t.coord)
    return out


def _relabelled(body: c_ast.Node, module: Module) -> c_ast.Node:
    """A copy of ``body`` whose loops carry fresh generated labels (the original's stay with the interior)."""
    out = copy_node(body)
    for n in walk(out):
        if isinstance(n, c_ast.Label) and isinstance(n.stmt, c_ast.For):
            n.name = module.new_label()
    return out


# ------------------------------------------------------------------------ the pass


def split_loop(module: Module, label: str) -> c_ast.For | None:
    """Split loop ``label`` of ``module`` (see :func:`split_boundaries`); its interior loop, or None when its
    body has no test to fold. Refuses (PassFailed) a loop it cannot split."""
    loop = module.loop(label)
    verb = "cannot split its boundary iterations"

    def fail(what: str) -> PassFailed:
        return refuse(loop, f"{verb}: {what}")

    site, f = loop.site, loop.node
    try:
        index, index_decl, lb, _ = stepped_header(f)
    except NotCounted as why:
        raise fail(str(why)) from None
    if f.cond is None or has_side_effects(f.cond):
        raise fail("its condition is missing or has side effects")
    if not any(mentions_index(n, index) for n in innermost_code(f)):
        return None  # no comparison of the index where the time goes: the common case, decided cheaply
    scope = current_scope(module)
    env, table = scope.types, scope.names
    index_id = f.init.lvalue if index_decl is None else None
    decl = index_decl if index_decl is not None else table.decl_of(index_id)
    if not isinstance(decl, c_ast.Decl) or env.category(decl.type) != "signed":
        return None  # an unsigned index wraps: its tests are not monotone
    declared = {d.name for d in walk(f.stmt) if isinstance(d, c_ast.Decl)}
    if index in declared:
        return None  # a name the body declares again: a test's text would not say which
    kept = BodyWrites(scope, f.stmt, module.ws)

    def invariant(v: c_ast.ID) -> bool:
        return v.name not in declared and kept.change(v) is None

    found = index_tests(f, index, invariant, env)
    if not found.hot:
        return None  # no test where the time goes: a copy would only add code
    sharing = None
    for p in pragmas_before(site.parent, site.labelled):
        words = p.string.split()
        if words[:1] == ["omp"] and any(w.split("(")[0] in _WORKSHARING for w in words[1:3]):
            why = _unsplittable_sharing(p.string)
            if why:
                raise fail(f"'#pragma {p.string}' shares its iterations out{why}")
            sharing = p
    for n in walk(f.stmt):
        if isinstance(n, c_ast.Pragma) and n.string.split()[:1] == ["omp"] and n.string.split()[1:2] != ["simd"]:
            raise fail(f"the body holds '#pragma {n.string}'")
    check_copyable_body(f.stmt, module.ws.generated_labels, fail)
    written = [w for w in kept.writes if w.base is not None and w.base.name == index]
    if written:
        raise fail(f"index {index} is written in the body (line {written[0].node.coord.line})")

    first, last = extreme_constant(lb, False), last_constant(f.cond, index)
    sides = [(near_start(t, first, last), t) for t in found.tests]
    remainders = {}
    for w in found.wraps:  # a remainder folds where both its tests are true, one near each end
        for value, tests in w.options:
            near = [near_start(t, first, last) for t in tests]
            if near == [True, False] and all(t.interior(n)[1] == 1 for n, t in zip(near, tests)):
                remainders[w.text] = value
                sides += list(zip(near, tests))
                break
    if not found.hot & ({t.text for _, t in sides} | set(remainders)):
        return None
    low = needed(strongest([t.interior(True)[0] for near, t in sides if near]), f, index, True)
    high = needed(strongest([t.interior(False)[0] for near, t in sides if not near]), f, index, False)
    interior_body = _folded(f.stmt, {t.text: t.interior(near)[1] for near, t in sides}, remainders)
    if not low and not high:  # the loop's own bounds keep every test constant: only the body changes
        f.stmt = interior_body
        return f
    if sharing is not None:
        return _split_shared(module, loop, sharing, low, high, interior_body, env, fail)
    # the pieces continue from one another: a `for (int i = ...)` index is declared before them
    hoisted: list[c_ast.Node] = []
    init, cond = f.init, f.cond
    if index_decl is not None:
        hoisted.append(copy_node(index_decl))
        init = None
        bound = _bound_variable(module, f, env)
        if bound is not None:  # a long bound (a tile's) is computed once and named, not written thrice
            hoisted.append(bound)
            cond = copy_node(cond)
            setattr(cond, "right" if to_c(cond.left) == index else "left", c_ast.ID(bound.name, f.coord))
    kept_pragmas = [p for p in detach_pragmas(site.parent, site.labelled) if p.string.split()[:1] != ["omp"]]

    def piece(first: bool, condition: c_ast.Node, body: c_ast.Node) -> c_ast.For:
        return c_ast.For(init if first else None, condition, copy_node(f.next), body, f.coord)

    items: list[c_ast.Node] = list(hoisted)
    if low:  # the first iterations, up to where every low test takes its interior value
        start = c_ast.BinaryOp("&&", copy_node(cond), _disjunction([negated(t) for t in low]), f.coord)
        items += [copy_node(p) for p in kept_pragmas] + [piece(True, start, _relabelled(f.stmt, module))]
    middle = copy_node(cond) if not high else c_ast.BinaryOp("&&", copy_node(cond), conjunction(high), f.coord)
    interior = piece(not low, middle, interior_body)
    site.labelled.stmt = interior
    items += kept_pragmas + [site.labelled]
    if high:  # the last ones
        items += [copy_node(p) for p in kept_pragmas] + [piece(False, copy_node(cond), _relabelled(f.stmt, module))]
    if hoisted:
        replace_child(site.parent, site.labelled, c_ast.Compound(items, f.coord))
    else:
        replace_child(site.parent, site.labelled, items)
    return interior


#: clauses a split keeps on each piece (for) or on the region (a combined construct's parallel part)
_FOR_CLAUSES = ("schedule", "nowait", "private", "firstprivate")
_PARALLEL_CLAUSES = ("private", "firstprivate", "shared", "default", "if", "num_threads", "proc_bind")


def _unsplittable_sharing(pragma: str) -> str:
    """Why the worksharing loop of ``#pragma <pragma>`` cannot become three (an empty string when it can):
    ``omp for`` with ``schedule(static)``, ``nowait``, ``private`` or ``firstprivate`` clauses (each piece
    keeps them), or ``omp parallel for`` with those and the region's own (``shared``, ``default``, ``if``,
    ``num_threads``, ``proc_bind``); a reduction, ``lastprivate``, ``ordered``, ``collapse`` or ``linear``
    would not mean the same on three loops."""
    words = pragma.split()
    if words[1:2] == ["for"]:
        rest, allowed = pragma.split(None, 2)[2:], _FOR_CLAUSES
    elif words[1:3] == ["parallel", "for"]:
        rest, allowed = pragma.split(None, 3)[3:], (*_FOR_CLAUSES, *_PARALLEL_CLAUSES)
    else:
        return f": its construct '{' '.join(words[:3])}' is not 'omp for' or 'omp parallel for'"
    for name, arg in clauses(rest[0] if rest else ""):
        if name not in allowed or (name == "nowait" and words[1] == "parallel"):
            return f": its clause {name} would not mean the same on three loops"
        if name == "schedule" and "static" not in (arg or ""):
            return f": its schedule({arg}) is not static"
    return ""


def _split_shared(module: Module, loop, sharing: c_ast.Pragma, low, high, interior_body: c_ast.Node, env,
                  fail) -> c_ast.For | None:  # fmt: skip
    """A worksharing loop ``#pragma omp for`` split into three worksharing loops in canonical form, the first
    two ``nowait`` (the iterations were independent: pieces may overlap in time as iterations did)::

        const int i_first = max(lb, min(ub, L)), i_past = max(i_first, min(ub, U));
        #pragma omp for nowait
        for (int i = lb; i < i_first; i++) ...      (the body as written)
        #pragma omp for nowait
        for (int i = i_first; i < i_past; i++) ...  (the interior copy)
        #pragma omp for
        for (int i = i_past; i < ub; i++) ...       (the body as written)

    ``L`` the largest of the low tests' thresholds, ``U`` the smallest of the high ones' (tests of the
    index with coefficient 1 or -1 only: None otherwise, the loop left as it is).
    """
    site, f = loop.site, loop.node
    try:
        cl = counted_header(f)
    except NotCounted as why:
        raise fail(f"{why} (a worksharing loop's pieces need bounds)") from None
    if cl.step != 1:
        raise fail("a worksharing loop is split when it steps by 1")
    # the index's type: its declaration in the loop, or outside (then private to each construct, and
    # unspecified after it, as after the loop: no lastprivate)
    decl = cl.index_decl if cl.index_decl is not None else current_scope(module).names.decl_of(f.init.lvalue)
    lows = [threshold(t, cl.index) for t in low]
    highs = [threshold(t, cl.index) for t in high]
    if any(x is None for x in lows + highs):
        return None
    index_type = arith_type(decl.type, env)
    if index_type is None or any(expr_arith_type(e, env) != index_type for e in (cl.lb, cl.ub_source)):
        raise fail("its bounds do not have its index's type")

    def pick(op: str, a: c_ast.Node, b: c_ast.Node) -> c_ast.Node:  # min or max, constants folded
        x, y = int_value(simplify(a)), int_value(simplify(b))
        if x is not None and y is not None:
            return make_int(min(x, y) if op == "<" else max(x, y))
        return extreme(op, a, b)

    def fold(op: str, xs: list[c_ast.Node]) -> c_ast.Node:
        out = xs[0]
        for x in xs[1:]:
            out = pick(op, out, x)
        return out

    taken = names_in_scope(module.ast, module.cu.ast.ext)
    first, past = fresh_name(f"{cl.index}_first", taken), fresh_name(f"{cl.index}_past", taken)

    start = pick(">", cl.lb, fold("<", [cl.ub, *lows])) if lows else copy_node(cl.lb)
    end = pick(">", start, fold("<", [cl.ub, *highs])) if int_value(start) is not None and highs else (
        extreme(">", c_ast.ID(first), fold("<", [cl.ub, *highs])) if highs else copy_node(cl.ub))
    detach_pragmas(site.parent, site.labelled)
    words = sharing.string.split()
    combined = words[1] == "parallel"
    last = sharing.string
    if combined:  # `parallel for` = a region around one `for`: here around three (the region's barrier ends them)
        given = [(n, "" if a is None else f"({a})") for n, a in clauses(" ".join(words[3:]))]
        region = " ".join(["omp parallel", *(n + a for n, a in given if n in _PARALLEL_CLAUSES)])
        last = " ".join(["omp for", *(n + a for n, a in given if n == "schedule"), "nowait"])
    clause = last if "nowait" in last.split() else last + " nowait"

    def piece(lo: c_ast.Node, hi: c_ast.Node, body: c_ast.Node) -> c_ast.For:
        if cl.index_decl is not None:
            own = copy_node(cl.index_decl)
            own.init = lo
            init = c_ast.DeclList([own], f.coord)
        else:
            init = c_ast.Assignment("=", c_ast.ID(cl.index), lo, f.coord)
        cond = c_ast.BinaryOp("<", c_ast.ID(cl.index), hi, f.coord)
        return c_ast.For(init, cond, copy_node(f.next), body, f.coord)

    # the split points, named unless constant (the interior's end is the loop's when no test is high)
    ends = [(first, start)] + ([(past, end)] if highs else [])
    decls = [_const_decl(decl, name, value, f.coord) for name, value in ends if int_value(value) is None]
    at_first = c_ast.ID(first) if int_value(start) is None else start
    at_past = (c_ast.ID(past) if int_value(end) is None else end) if highs else copy_node(cl.ub)
    interior = piece(copy_node(at_first), copy_node(at_past), interior_body)
    site.labelled.stmt = interior
    loops: list[c_ast.Node] = []
    if lows:
        loops.append(piece(copy_node(cl.lb), copy_node(at_first), _relabelled(f.stmt, module)))
    loops.append(site.labelled)
    if highs:
        loops.append(piece(copy_node(at_past), copy_node(cl.ub), _relabelled(f.stmt, module)))
    items: list[c_ast.Node] = list(decls)
    for k, lp in enumerate(loops):  # the last keeps the construct's end (its barrier), the others need none
        items += [c_ast.Pragma(last if k == len(loops) - 1 else clause, f.coord), lp]
    block = c_ast.Compound(items, f.coord)
    replace_child(site.parent, site.labelled, [c_ast.Pragma(region, f.coord), block] if combined else block)
    return interior


def _bound_variable(module: Module, f: c_ast.For, env) -> c_ast.Decl | None:
    """``const int i_bound = <bound>;`` for a counted loop ``for (int i = lb; i < bound; ...)`` whose bound
    is longer than a variable plus a constant and has the index's type (a narrower variable would change
    its value), else None."""
    try:
        cl = counted_header(f)
    except NotCounted:
        return None
    ub = cl.ub_source
    short = isinstance(ub, (c_ast.ID, c_ast.Constant)) or (
        isinstance(ub, c_ast.BinaryOp) and ub.op in ("+", "-") and isinstance(ub.left, (c_ast.ID, c_ast.Constant))
        and isinstance(ub.right, (c_ast.ID, c_ast.Constant))
    )
    index_type = arith_type(cl.index_decl.type, env)
    if short or index_type is None or expr_arith_type(ub, env) != index_type:
        return None
    name = fresh_name(f"{cl.index}_bound", names_in_scope(module.ast, module.cu.ast.ext))
    return _const_decl(cl.index_decl, name, copy_node(ub), f.coord)


def _const_decl(like: c_ast.Decl, name: str, value: c_ast.Node, coord: object) -> c_ast.Decl:
    """``const T name = value;`` with ``T`` the type of the declaration ``like`` (the loop index's)."""
    kind = copy_node(like.type)
    kind.declname = name
    kind.quals = ["const", *[q for q in kind.quals if q != "const"]]
    return c_ast.Decl(name, ["const"], [], [], [], kind, value, None, coord)


@transformation(scope="module", preserves=["callgraph"], reads=["unit_scope"])
def split_boundaries(module: Module, label: str = "") -> None:
    """Run the iterations of a loop where its index tests are constant through a copy without them.

    Before::

        for (int i = 0; i < n; i++)
            b[i] = (i > 0 ? a[i - 1] : a[i]) + a[i] + (i < n - 1 ? a[i + 1] : a[i]);

    After::

        {
            int i = 0;
            for (; i < n && i <= 0; i++)
                b[i] = (i > 0 ? a[i - 1] : a[i]) + a[i] + (i < n - 1 ? a[i + 1] : a[i]);
            for (; i < n && i < n - 1; i++)
                b[i] = a[i - 1] + a[i] + a[i + 1];
            for (; i < n; i++)
                b[i] = (i > 0 ? a[i - 1] : a[i]) + a[i] + (i < n - 1 ? a[i + 1] : a[i]);
        }

    Pochoir's interior and boundary clones (Freitag 2014, §5.1 claim 11),
    per loop: see the module docstring for why it is always legal. Folded:
    comparisons of the index (signed) with plain integer expressions
    (variables and literals, ``+``, ``-``, ``*``) that the body does not
    change, affine in the index, whose value changes near the start of the
    range (a constant: ``i > 0``, ``i == 0``, ``(i - 1) > 0``) or near its
    end (``i < n - 1``, ``j != m + 1``); in conditional expressions, ``if``
    statements and anywhere else in the body; and remainders affine in the
    index (periodic edges: ``a[(i + 1) % n]``, ``a[(i - 1 + n) % n]``),
    which are ``e - q*m`` between two such tests. Only loops with a test
    in their innermost loops' code are split; tests the loop's bounds imply
    are dropped (a loop whose bounds keep every test constant only changes
    its body). Loops are visited outer first; a split loop's interior copy
    is searched again for its inner loops' tests, its boundary copies are
    not (they run few iterations). An ``omp for`` loop (``schedule(static)``,
    ``nowait``, ``private``, ``firstprivate``) becomes up to three ``omp
    for`` loops with computed bounds, all but the last ``nowait``; an ``omp
    parallel for`` (those clauses and the region's: ``shared``, ``default``,
    ``if``, ``num_threads``, ``proc_bind``) a region around them; other loops run
    their pieces one after the other, the interior copy without an ``omp
    simd`` (its condition is not an OpenMP canonical form). Left as they
    are: loops with a step that is not a constant, bodies left before their
    end (``break``, ``return``, ``goto``), and worksharing loops with other
    clauses (a reduction, ``lastprivate``...; their inner loops are split).
    Refused when no loop was split.

    Properties:

    - label: split this loop only (and its inner loops); default: every loop of the function
    """
    done = 0
    reasons: list[str] = []

    def visit(node: c_ast.Node) -> None:
        nonlocal done
        for n in list(_outer_loops(node)):
            inner = n.stmt
            try:
                interior = split_loop(module, n.name)
            except PassFailed as why:
                reasons.append(str(why))
                interior = None
            if interior is not None:
                done += 1
                inner = interior.stmt
            visit(inner)

    if label:
        site = module.loop(label).site
        visit(c_ast.Compound([site.labelled]))
    else:
        visit(module.ast.body)
    if not done:
        why = f" ({reasons[0]})" if reasons else ""
        raise PassFailed(f"{module.name}: no loop tests its index against a bound the loop could split at{why}")


def _outer_loops(node: c_ast.Node):
    """The labelled ``for`` loops under ``node`` not nested in another one under it."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.Label) and isinstance(n.stmt, c_ast.For):
            yield n
            continue
        stack.extend(reversed([c for _, c in n.children()]))
