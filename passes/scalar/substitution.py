"""Substitutions of scalar values: forward substitution, induction variables, partial evaluation.

All three work on *tracked* local scalars (:func:`liveness.tracked_scalars`:
locals and parameters whose address is never taken, not ``static`` nor
``volatile``) and on ``const`` globals; they never move a computation across
a write of what it reads, and never fold floating point.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pycparser import c_ast

from passman import Module, PassFailed, transformation
from passman.astutil import child_nodes, copy_node, find_all, replace_child, transform, walk

from ..analysis.liveness import ScalarFacts, is_volatile, liveness
from ..cfacts.control import escaping_jumps
from ..cfacts.folding import int_value, make_int, simplify
from ..cfacts.names import statement_lists, unevaluated, where
from ..cfacts.sideeffects import calls, has_side_effects, is_pure_call, variables, writes
from ..cfacts.types import INT_RANGES, arith_type, expr_arith_type
from ..loops.counted import check_invariant_bounds, counted_loop
from ..loops.normalize import trip_count_expr


def _replace_ids(root: c_ast.Node, targets: set[int], make: Callable[[c_ast.ID], c_ast.Node]) -> c_ast.Node:
    return transform(root, lambda n: make(n) if id(n) in targets else None)


def _typename(decl: c_ast.Decl) -> c_ast.Typename:
    t = copy_node(decl.type)
    inner = t
    while not isinstance(inner, c_ast.TypeDecl):
        inner = inner.type
    inner.declname = None
    return c_ast.Typename(None, [], None, t)


# ------------------------------------------------------------------ forward substitution


def _definition(fn: ScalarFacts, item: c_ast.Node) -> tuple[c_ast.Decl, c_ast.Node, c_ast.Node | None] | None:
    """``(decl of x, e, lvalue)`` when ``item`` is ``x = e;`` or ``T x = e;`` with a tracked arithmetic x."""
    if isinstance(item, c_ast.Assignment) and item.op == "=" and fn.is_tracked(item.lvalue):
        return fn.decl(item.lvalue), item.rvalue, item.lvalue
    if isinstance(item, c_ast.Decl) and item.init is not None and not isinstance(item.init, c_ast.InitList):
        if id(item) in fn.tracked and fn.env.category(item.type) in ("signed", "unsigned", "float"):
            return item, item.init, None
    return None


class _Reads:
    """What an expression reads: tracked scalars by declaration, named arrays, other memory."""

    def __init__(self, fn: ScalarFacts, e: c_ast.Node):
        self.decls = {id(fn.decl(v)) for v in variables(e) if fn.decl(v) is not None}
        self.names = {v.name for v in variables(e)}
        arrays = {id(n.name) for n in walk(e) if isinstance(n, c_ast.ArrayRef)}
        #: memory reached through pointers (or a variable another name may reach)
        self.indirect = False
        #: any memory besides tracked scalars
        self.memory = False
        for n in walk(e):
            if isinstance(n, c_ast.UnaryOp) and n.op == "*" or isinstance(n, c_ast.StructRef) and n.type == "->":
                self.indirect = self.memory = True
            elif isinstance(n, c_ast.ArrayRef):
                self.memory = True
                base = n.name
                if not isinstance(base, (c_ast.ID, c_ast.ArrayRef)) or (
                    isinstance(base, c_ast.ID) and (not isinstance(fn.decl(base), c_ast.Decl)
                                                    or fn.env.decl_category(base) != "array")
                ):
                    self.indirect = True
            elif isinstance(n, c_ast.StructRef):
                self.memory = True
            elif isinstance(n, c_ast.ID) and id(n) not in arrays:
                d = fn.decl(n)
                if isinstance(d, c_ast.Decl) and id(d) not in fn.tracked and fn.env.category(d.type) != "function":
                    self.memory = True
                    self.indirect = True  # a global or an escaped local: pointers may reach it

    def killed_by(self, fn: ScalarFacts, item: c_ast.Node, x: c_ast.Decl) -> bool:
        """Whether ``item`` may change ``x`` or what the expression reads."""
        for w in writes(item):
            d = fn.decl(w.base) if w.base is not None else None
            if d is x or id(d) in self.decls:
                return True
            if not self.memory or id(d) in fn.tracked:
                continue
            if w.kind == "deref" or d is None or self.indirect:
                return True
            if fn.env.decl_category(w.base) != "array" or w.base.name in self.names:
                return True
        return self.memory and any(not is_pure_call(c, fn.table, fn.module.ws) for c in calls(item))


def _substitutable_item(item: c_ast.Node) -> bool:
    if isinstance(item, (c_ast.Label, c_ast.Case, c_ast.Default, c_ast.Pragma, c_ast.Compound, c_ast.If,
                         c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch, c_ast.Goto, c_ast.Break,
                         c_ast.Continue, c_ast.EmptyStatement, c_ast.Typedef, c_ast.StaticAssert, c_ast.DeclList)):
        return False
    return not any(isinstance(n, c_ast.Compound) for n in walk(item))


def _forward(fn: ScalarFacts, items: list[c_ast.Node], k: int) -> int:
    """Substitute the definition ``items[k]`` into the following statements; return the uses replaced."""
    found = _definition(fn, items[k])
    if found is None:
        return 0
    x, e, _ = found
    if has_side_effects(e) or any(fn.decl(v) is x for v in variables(e)):
        return 0
    if any(is_volatile(d) for d in (fn.decl(v) for v in variables(e)) if isinstance(d, c_ast.Decl)):
        return 0
    reads = _Reads(fn, e)
    x_type = arith_type(x.type, fn.env)
    cast = x_type is None or expr_arith_type(e, fn.env) != x_type
    replaced = 0

    def make(_: c_ast.ID) -> c_ast.Node:
        v = copy_node(e)
        return c_ast.Cast(_typename(x), v) if cast else v

    for j in range(k + 1, len(items)):
        item = items[j]
        if not _substitutable_item(item):
            break
        if isinstance(item, c_ast.Decl) and (item.name in reads.names or item.name == x.name):
            break
        kills = reads.killed_by(fn, item, x)
        simple = (
            isinstance(item, c_ast.Assignment)
            and not calls(item)
            and len(writes(item)) == 1
            and not (item.op != "=" and fn.decl(item.lvalue) is x)
        )
        if kills and not simple:
            break
        skip = unevaluated(item)
        if isinstance(item, c_ast.Assignment) and fn.decl(item.lvalue) is x:
            skip.add(id(item.lvalue))
        targets = {
            id(n) for n in walk(item)
            if isinstance(n, c_ast.ID) and fn.decl(n) is x and id(n) not in skip
        }  # fmt: skip
        if targets:
            items[j] = _replace_ids(item, targets, make)
            replaced += len(targets)
        if kills or isinstance(item, c_ast.Return):
            break
    return replaced


@transformation(scope="module", preserves=["callgraph"], reads=["unit_scope"])
def forward_substitute(module: Module) -> None:
    """Replace the uses of a scalar by the expression last assigned to it, in the same basic block.

    Before::

        t = a[i] * 2;
        u = t + 1;
        b[i] = t * u;

    After (``t`` and ``u`` dead afterwards)::

        b[i] = a[i] * 2 * (a[i] * 2 + 1);

    A definition ``x = e;`` (or ``T x = e;``) of a tracked arithmetic local
    ``x``, with ``e`` free of side effects and not reading ``x``, is copied
    into the following statements of its block (expression statements,
    declarations, ``return``) up to the first one that may change ``x`` or
    something ``e`` reads (a variable, an array it reads, memory through
    pointers or calls) or ends the basic block (a label, a control
    statement). When ``x`` and ``e`` have different types, the copy is cast
    to the type of ``x`` (``(int) (d * 2.0)``) so that the value is the one
    stored. A definition whose variable is then dead is removed (a
    declaration keeps its name when still used). Refused when no use can be
    replaced.
    """
    fn = ScalarFacts(module)
    done: list[tuple[list, c_ast.Node]] = []
    total = 0
    for items in statement_lists(fn.func.body):
        for k in range(len(items)):
            n = _forward(fn, items, k)
            if n:
                done.append((items, items[k]))
                total += n
                fn.refresh()
    if not total:
        raise PassFailed(f"{where(fn.func)}: forward_substitute: no use of a scalar definition can be "
                         f"replaced in {module.name}")
    fn.refresh()
    live = liveness(fn.func, fn.table, fn.env)
    for items, item in done:
        x = item if isinstance(item, c_ast.Decl) else fn.decl(item.lvalue)
        if live.live_after(item, x):
            continue
        if isinstance(item, c_ast.Decl):
            if fn.table.uses(fn.func, item):
                item.init = None
            else:
                items.remove(item)
        else:
            items.remove(item)


# ------------------------------------------------------------------ induction variables


def _increment(fn: ScalarFacts, item: c_ast.Node) -> tuple[c_ast.Decl, int] | None:
    """``(decl of k, c)`` for ``k++``, ``k--``, ``k += c``, ``k -= c``, ``k = k + c`` with a constant c."""
    match item:
        case c_ast.UnaryOp(op="++" | "p++" | "--" | "p--") if isinstance(item.expr, c_ast.ID):
            return fn.decl(item.expr), 1 if "++" in item.op else -1
        case c_ast.Assignment(op="+=" | "-=") if isinstance(item.lvalue, c_ast.ID):
            c = int_value(simplify(item.rvalue))
            if c is not None:
                return fn.decl(item.lvalue), c if item.op == "+=" else -c
        case c_ast.Assignment(op="=", rvalue=c_ast.BinaryOp(op="+" | "-") as r) if isinstance(
            item.lvalue, c_ast.ID
        ):
            d = fn.decl(item.lvalue)
            if isinstance(r.left, c_ast.ID) and fn.decl(r.left) is d:
                c = int_value(simplify(r.right))
                if c is not None:
                    return d, c if r.op == "+" else -c
            if r.op == "+" and isinstance(r.right, c_ast.ID) and fn.decl(r.right) is d:
                c = int_value(simplify(r.left))
                if c is not None:
                    return d, c
    return None


def _initial_value(fn: ScalarFacts, loop_site, k: c_ast.Decl) -> c_ast.Node:
    """The constant assigned to ``k`` just before the loop in its block, else ``k`` itself."""
    items = getattr(loop_site.parent, "block_items", None) or []
    pos = next((i for i, n in enumerate(items) if n is loop_site.labelled), None)
    if pos is None or any(g.name == loop_site.label for g in find_all(fn.func, c_ast.Goto)):
        return c_ast.ID(k.name)
    for item in reversed(items[:pos]):
        if isinstance(item, (c_ast.Label, c_ast.Case, c_ast.Default)):
            break
        if isinstance(item, c_ast.Pragma):
            continue
        if isinstance(item, c_ast.Decl) and item is k and item.init is not None:
            v = int_value(simplify(item.init))
            return make_int(v) if v is not None else c_ast.ID(k.name)
        if isinstance(item, c_ast.Assignment) and item.op == "=" and fn.decl(item.lvalue) is k:
            v = int_value(simplify(item.rvalue))
            return make_int(v) if v is not None else c_ast.ID(k.name)
        if any(fn.decl(w.base) is k for w in writes(item) if w.base is not None) or escaping_jumps(item):
            break
        if any(isinstance(n, c_ast.Label) for n in walk(item)):
            break
    return c_ast.ID(k.name)


def _induction_in(fn: ScalarFacts, loop) -> bool:
    """Rewrite one induction variable of ``loop``; False when there is none."""
    try:
        cl = counted_loop(loop, "no induction")
        check_invariant_bounds(cl, "no induction")
    except PassFailed:
        return False
    body = cl.node.stmt
    if not isinstance(body, c_ast.Compound) or not body.block_items:
        return False
    index_decl = fn.decl(cl.index_ref)
    if arith_type(getattr(index_decl, "type", None), fn.env) not in ("int", "long", "long long"):
        return False
    items = body.block_items
    incs: dict[int, list[tuple[int, int]]] = {}
    for pos, item in enumerate(items):
        inc = _increment(fn, item)
        if inc is not None and id(inc[0]) in fn.tracked and inc[0] is not index_decl:
            incs.setdefault(id(inc[0]), []).append((pos, inc[1]))
    header = [p for p in (cl.node.init, cl.node.cond, cl.node.next) if p is not None]
    for key, steps in incs.items():
        k = fn.tracked[key]
        if arith_type(k.type, fn.env) != arith_type(index_decl.type, fn.env):
            continue
        if any(re.search(rf"\b{re.escape(k.name)}\b", p) for p in loop.pragma):
            continue
        inc_items = {id(items[p]) for p, _ in steps}
        other_writes = [
            w for w in writes(cl.node)
            if w.base is not None and fn.decl(w.base) is k and not any(id(w.node) == i for i in inc_items)
        ]  # fmt: skip
        if other_writes or any(fn.decl(v) is k for p in header for v in variables(p)):
            continue
        _rewrite_induction(fn, loop, cl, k, steps)
        return True
    return False


def _rewrite_induction(fn: ScalarFacts, loop, cl, k: c_ast.Decl, steps: list[tuple[int, int]]) -> None:
    site = loop.site
    items = cl.node.stmt.block_items
    base = _initial_value(fn, site, k)
    total = sum(c for _, c in steps)
    iteration = simplify(c_ast.BinaryOp("-", c_ast.ID(cl.index), copy_node(cl.lb)))
    if cl.step == 1:
        growth = c_ast.BinaryOp("*", make_int(total), iteration)
    elif total % cl.step == 0:
        growth = c_ast.BinaryOp("*", make_int(total // cl.step), iteration)
    else:
        growth = c_ast.BinaryOp("*", make_int(total), c_ast.BinaryOp("/", iteration, make_int(cl.step)))
    live = liveness(fn.func, fn.table, fn.env).live_after(site.labelled, k)
    positions = [p for p, _ in steps]
    skip = unevaluated(cl.node.stmt)
    for pos, item in enumerate(items):
        if pos in positions:
            continue
        offset = sum(c for p, c in steps if p < pos)
        value = simplify(c_ast.BinaryOp("+", c_ast.BinaryOp("+", copy_node(base), copy_node(growth)),
                                        make_int(offset)))
        targets = {id(n) for n in walk(item)
                   if isinstance(n, c_ast.ID) and fn.decl(n) is k and id(n) not in skip}
        if targets:
            items[pos] = _replace_ids(item, targets, lambda _, v=value: copy_node(v))
    items[:] = [it for p, it in enumerate(items) if p not in positions]
    if live:
        trips = cl.trip_count()
        total_growth = c_ast.BinaryOp("*", make_int(total), trip_count_expr(cl))
        final = simplify(c_ast.BinaryOp("+", copy_node(base), total_growth))
        if trips is None:
            test = c_ast.BinaryOp(">", copy_node(cl.ub), copy_node(cl.lb))
            final = c_ast.TernaryOp(test, final, copy_node(base))
        assign = c_ast.Assignment("=", c_ast.ID(k.name), final, cl.node.coord)
        replace_child(site.parent, site.labelled, [site.labelled, assign])


@transformation(scope="module", preserves=["callgraph"], reads=["unit_scope"])
def induction_substitution(module: Module) -> None:
    """Replace induction variables of counted loops by affine functions of the loop index.

    Before::

        k = 0;
        for (i = 0; i < n; i++) {
            a[k] = b[i];
            k += 2;
        }

    After::

        k = 0;
        for (i = 0; i < n; i++)
            a[2 * i] = b[i];          // printed with the braces of the original body
        k = n > 0 ? 2 * n : 0;

    An induction variable is a tracked local of the index's type (``int``,
    ``long`` or ``long long``) whose only writes in the loop are increments
    by constants (``k++``, ``k += c``, ``k = k - c`` ...) among the
    top-level statements of the body, executed once per iteration; it is not
    used in the loop header. Each use becomes ``k0 + c*(i - lb)/s`` plus the
    increments that precede it in the iteration, where ``k0`` is the constant
    assigned to ``k`` right before the loop, else ``k`` itself (no longer
    written in the loop). When ``k`` may be read after the loop, it is
    assigned its final value, guarded for a loop that runs no iteration.
    Loops ``unroll`` refuses are left alone, as are variables named in the
    loop's pragmas. Refused when no loop has an induction variable.
    """
    fn = ScalarFacts(module)
    changed = False
    progress = True
    while progress:
        progress = False
        for loop in reversed(module.all_loops):
            if _induction_in(fn, loop):
                fn.refresh()
                changed = progress = True
                break
    if not changed:
        raise PassFailed(f"{where(fn.func)}: induction_substitution: no induction variable in the counted "
                         f"loops of {module.name}")


# ------------------------------------------------------------------ partial evaluation


def _literal(v: int, type_name: str) -> c_ast.Node | None:
    lo, hi = INT_RANGES.get(type_name, (1, 0))
    if not lo <= v <= hi:
        return None
    suffix = {"unsigned int": "U", "long": "L", "unsigned long": "UL", "long long": "LL",
              "unsigned long long": "ULL"}.get(type_name, "")  # fmt: skip
    if not suffix:
        return make_int(v)
    lit = c_ast.Constant(type_name, f"{abs(v)}{suffix}")
    return c_ast.UnaryOp("-", lit) if v < 0 else lit


def _dominated_uses(fn: ScalarFacts, items: list, k: int, decl: object, skip: set[int]) -> bool:
    """Whether every use of ``decl`` in the function lies in ``items[k+1:]`` (so after ``items[k]``)."""
    later = {id(n) for item in items[k + 1:] for n in walk(item)}
    if any(isinstance(item, (c_ast.Case, c_ast.Default)) for item in items[k + 1:]):
        return False
    return all(id(u) in later or id(u) in skip for u in fn.table.uses(fn.func, decl))


def _constants(fn: ScalarFacts) -> dict[int, tuple[c_ast.Node, set[int]]]:
    """Variables with one constant integer value: ``id(decl) -> (literal, ID nodes not to replace)``."""
    out: dict[int, tuple[c_ast.Node, set[int]]] = {}
    has_goto = bool(find_all(fn.func, c_ast.Goto))
    for d in set(fn.table.binding.values()):
        if not isinstance(d, c_ast.Decl) or fn.table.is_local(d) or d.init is None:
            continue
        quals = set(d.quals or []) | set(getattr(d.type, "quals", []) or [])
        if "const" in quals and "volatile" not in quals:
            tname = arith_type(d.type, fn.env)
            v = int_value(simplify(d.init)) if not isinstance(d.init, c_ast.InitList) else None
            lit = _literal(v, tname) if v is not None and tname in INT_RANGES else None
            if lit is not None:
                out[id(d)] = (lit, set())
    if has_goto:
        return out
    defs: dict[int, list] = {}
    for w in writes(fn.func):
        d = fn.decl(w.base) if w.base is not None else None
        if id(d) in fn.tracked:
            defs.setdefault(id(d), []).append(w)
    for items in statement_lists(fn.func.body):
        for k, item in enumerate(items):
            if isinstance(item, c_ast.Decl) and id(item) in fn.tracked and item.init is not None:
                decl, value, lhs = item, item.init, None
                if defs.get(id(decl)):
                    continue
            elif (isinstance(item, c_ast.Assignment) and item.op == "=" and isinstance(item.lvalue, c_ast.ID)
                  and id(fn.decl(item.lvalue)) in fn.tracked):
                decl, value, lhs = fn.decl(item.lvalue), item.rvalue, item.lvalue
                if len(defs.get(id(decl), [])) != 1 or decl.init is not None:
                    continue
            else:
                continue
            if isinstance(value, c_ast.InitList):
                continue
            tname = arith_type(decl.type, fn.env)
            v = int_value(simplify(value))
            lit = _literal(v, tname) if v is not None and tname in INT_RANGES else None
            skip = {id(lhs)} if lhs is not None else set()
            if lit is not None and _dominated_uses(fn, items, k, decl, skip):
                out[id(decl)] = (lit, skip)
    return out


def _propagate(fn: ScalarFacts) -> int:
    consts = _constants(fn)
    if not consts:
        return 0
    skip = unevaluated(fn.func.body)
    addressed = {id(n.expr) for n in walk(fn.func.body) if isinstance(n, c_ast.UnaryOp) and n.op == "&"}
    targets: dict[int, c_ast.Node] = {}
    for n in walk(fn.func.body):
        if isinstance(n, c_ast.ID) and id(n) not in skip and id(n) not in addressed:
            entry = consts.get(id(fn.decl(n)))
            if entry is not None and id(n) not in entry[1]:
                targets[id(n)] = entry[0]
    if targets:
        transform(fn.func.body, lambda n: copy_node(targets[id(n)]) if id(n) in targets else None)
    return len(targets)


_EXPRESSIONS = (c_ast.BinaryOp, c_ast.UnaryOp, c_ast.ID, c_ast.Constant, c_ast.Cast, c_ast.ArrayRef,
                c_ast.StructRef, c_ast.TernaryOp)
_TYPES = (c_ast.Typename, c_ast.TypeDecl, c_ast.IdentifierType, c_ast.PtrDecl, c_ast.ArrayDecl)


def _integer_only(fn: ScalarFacts, e: c_ast.Node) -> bool:
    """Whether every value computed in ``e`` is an integer, with no side effect and no volatile read."""
    if has_side_effects(e):
        return False
    stack = [e]
    while stack:
        n = stack.pop()
        if not isinstance(n, _EXPRESSIONS):
            return False
        if isinstance(n, c_ast.UnaryOp) and n.op in ("sizeof", "_Alignof"):
            continue
        if fn.env.expr_category(n) not in ("signed", "unsigned"):
            return False
        match n:
            case c_ast.ID() if isinstance(fn.decl(n), c_ast.Decl) and is_volatile(fn.decl(n)):
                return False
            case c_ast.ArrayRef():
                while isinstance(n, c_ast.ArrayRef):
                    stack.append(n.subscript)
                    n = n.name
                if not isinstance(n, c_ast.ID) or (isinstance(fn.decl(n), c_ast.Decl) and is_volatile(fn.decl(n))):
                    return False
            case c_ast.StructRef():
                continue
            case c_ast.Cast():
                stack.append(n.expr)
            case _:
                stack.extend(c for c in child_nodes(n))
    return True


_COMPARE = {"<": lambda a, b: a < b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
            ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
            "&&": lambda a, b: bool(a and b), "||": lambda a, b: bool(a or b)}  # fmt: skip


def _fold_logic(n: c_ast.Node) -> c_ast.Node | None:
    if isinstance(n, c_ast.BinaryOp) and n.op in _COMPARE:
        a, b = int_value(n.left), int_value(n.right)
        if a is not None and b is not None:
            return make_int(int(_COMPARE[n.op](a, b)), n.coord)
    if isinstance(n, c_ast.UnaryOp) and n.op == "!":
        a = int_value(n.expr)
        if a is not None:
            return make_int(int(not a), n.coord)
    if isinstance(n, c_ast.TernaryOp):
        # c ? a : b of constants: only plain int literals, whose conversion is the identity
        c, a, b = int_value(n.cond), _plain_int(n.iftrue), _plain_int(n.iffalse)
        if c is not None and a is not None and b is not None:
            return make_int(a if c else b, n.coord)
    return None


def _plain_int(n: c_ast.Node) -> int | None:
    """The value of an unsuffixed ``int`` literal, or of its negation (None otherwise)."""
    inner = n.expr if isinstance(n, c_ast.UnaryOp) and n.op == "-" else n
    if isinstance(inner, c_ast.Constant) and inner.type == "int" and inner.value.isdigit():
        return int_value(n)
    return None


def _fold_expr(e: c_ast.Node) -> c_ast.Node:
    return transform(simplify(e), _fold_logic)


def _size(n: c_ast.Node) -> int:
    return sum(1 for _ in walk(n))


def _fold_all(fn: ScalarFacts) -> int:
    """Fold the maximal integer-only subexpressions; return how many got smaller."""
    folded = 0

    def visit(n: c_ast.Node) -> c_ast.Node | None:
        nonlocal folded
        if isinstance(n, (c_ast.BinaryOp, c_ast.UnaryOp)) and _integer_only(fn, n):
            new = _fold_expr(n)
            if _size(new) < _size(n):
                folded += 1
                return new
            return None
        for child in _expr_children(n):
            new = visit(child)
            if new is not None:
                replace_child(n, child, new)
        return None

    visit(fn.func.body)
    return folded


def _expr_children(n: c_ast.Node) -> list[c_ast.Node]:
    """The children of ``n`` that are not parts of a type (array sizes in declarations stay)."""
    return [child for _, child in n.children() if not isinstance(child, _TYPES)]


def _has_labels(n: c_ast.Node | None, targets: set[str]) -> bool:
    """Whether control may enter ``n`` other than from its start (a ``goto`` target, a ``case``)."""
    if n is None:
        return False
    if any(lab.name in targets for lab in find_all(n, c_ast.Label)):
        return True
    return any(isinstance(j, (c_ast.Case, c_ast.Default)) for j in escaping_jumps(n))


def _branch_items(n: c_ast.Node | None) -> list[c_ast.Node]:
    if n is None:
        return []
    if isinstance(n, c_ast.Compound) and not any(
        isinstance(s, (c_ast.Decl, c_ast.Typedef, c_ast.DeclList)) for s in n.block_items or []
    ):
        return list(n.block_items or [])
    return [n]


def _fold_branches(fn: ScalarFacts) -> int:
    """``if (1) A else B`` becomes ``A``, ``if (0) A else B`` becomes ``B``, ``while (0) S`` goes."""
    done = 0
    changed = True
    targets = {g.name for g in find_all(fn.func, c_ast.Goto)}
    while changed:
        changed = False
        parents = {}
        for p in walk(fn.func.body):
            for c in child_nodes(p):
                parents[id(c)] = p
        for n in walk(fn.func.body):
            if isinstance(n, c_ast.If):
                v = int_value(n.cond)
                if v is None:
                    continue
                keep, drop = (n.iftrue, n.iffalse) if v else (n.iffalse, n.iftrue)
                if _has_labels(drop, targets):
                    continue
                new = _branch_items(keep)
            elif isinstance(n, c_ast.While) and int_value(n.cond) == 0 and not _has_labels(n.stmt, targets):
                new = []
            else:
                continue
            parent = parents[id(n)]
            if isinstance(parent, (c_ast.Compound, c_ast.Case, c_ast.Default)):
                replace_child(parent, n, new)
            else:
                replace_child(parent, n, new[0] if len(new) == 1 else c_ast.Compound(new) if new
                              else c_ast.EmptyStatement())
            done += 1
            changed = True
            break
    return done


@transformation(scope="module", reads=["unit_scope"])
def partial_eval(module: Module) -> None:
    """Propagate integer constants and fold integer expressions; decide constant conditions.

    Before::

        const int N = 8;                // a global
        void f(int *a)
        {
            int k = 2, m;
            m = k * N + 1;
            if (m > 10)
                a[0] = m;
            else
                a[0] = -m;
        }

    After::

        void f(int *a)
        {
            int k = 2;
            int m;
            m = 17;
            a[0] = 17;
        }

    Constants are the ``const`` integer globals with a constant initialiser
    and the tracked integer locals with a single definition, a constant
    (``int k = 2;``, or ``k = 2;`` when every use follows it in its block
    and the function has no ``goto``). Uses (not under ``sizeof`` nor
    ``&``) become literals of the variable's type (``2L`` for a ``long``).
    Expressions made only of integer values are folded with ``cfacts.simplify``
    (``n - 1 + 1`` is ``n``), comparisons, ``!`` and ``c ? a : b`` of constants too;
    floating point is never folded. ``if`` with a constant condition keeps
    the branch taken, ``while (0)`` goes, unless a label would be lost.
    Repeated until nothing changes; refused when nothing did. Dead
    definitions stay for ``dead_code_elimination``.
    """
    fn = ScalarFacts(module)
    total = 0
    while True:
        n = _propagate(fn)
        fn.refresh()
        n += _fold_all(fn)
        n += _fold_branches(fn)
        fn.refresh()
        total += n
        if not n:
            break
        if total > 100000:
            break
    if not total:
        raise PassFailed(f"{where(fn.func)}: partial_eval: no constant to propagate or fold in {module.name}")
