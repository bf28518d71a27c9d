"""Accumulation in place: a scalar accumulator of a loop becomes the array element it is stored into.

The inverse of :func:`passes.parallel.verdicts.privatize.scalarization` for the reduction idiom
``T s = init; for (...) s += e; X = f(s);``: afterwards no scalar is declared
inside the loop nest, which the polyhedral scheduler (``auto_schedule``)
requires. Purely syntactic (names, types, writes); see :func:`accumulate_in_place`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from passman import Module, PassFailed, transformation
from passman.astutil import copy_node, parent_map, strip_labels, transform, walk
from passman.printer import to_c

from ..analysis.effect_model import current_names, current_scope, param_decls
from ..cfacts.control import describe_jump, escaping_jumps, user_labels
from ..cfacts.forms import array_ref_base, reads_through_pointer, remove_declaration
from ..cfacts.names import statement_lists, where
from ..cfacts.sideeffects import has_side_effects, impure_calls, variables, writes
from ..cfacts.types import arith_type

__all__ = ["accumulate_in_place"]

#: operators of an accumulation ``s op= e``, ``s = s op e`` or ``s = e op s``
_OPS = ("+", "-", "*")
#: statements whose child statement's value is not used
_STATEMENT_PARENTS = (c_ast.Compound, c_ast.Case, c_ast.Default, c_ast.Label, c_ast.If, c_ast.For,
                      c_ast.While, c_ast.DoWhile)  # fmt: skip


@dataclass
class _Site:
    """One accumulation to store in place: ``items[k]`` (init), ``items[k + 1]`` (loop), ``items[k + 2]``."""

    items: list[c_ast.Node]
    k: int
    s: c_ast.Decl
    init: c_ast.Node
    loop: c_ast.For
    target: c_ast.ArrayRef
    store: c_ast.Assignment
    #: ``id`` of the uses of ``s`` in the loop and in the store, to replace by the element
    uses: set[int]


class _Finder:
    """The accumulation sites of one function, with the reasons for those refused."""

    def __init__(self, module: Module):
        self.module = module
        self.func = module.ast
        scope = current_scope(module)  # the file scope cached (unit_scope)
        self.table, self.env = scope.names, scope.types
        self.params = {id(p) for p in param_decls(self.func)}
        self.reasons: list[str] = []

    def first(self) -> _Site | None:
        """The first legal site, in source order (the reasons for the refused ones before it are kept)."""
        for items in statement_lists(self.func.body):
            for k in range(len(items) - 2):
                site = self.site(items, k)
                if isinstance(site, str):
                    self.reasons.append(site)
                elif site is not None:
                    return site
        return None

    def accumulations(self, loop: c_ast.For, s: c_ast.Decl) -> tuple[set[int], c_ast.ID | None]:
        """``id`` of the uses of ``s`` that accumulations of ``loop`` make, and a use that is none."""
        parents = parent_map(loop)
        ok: set[int] = set()
        for n in walk(loop):
            if not (isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID)):
                continue
            if self.table.decl_of(n.lvalue) is not s:
                continue
            parent = parents.get(id(n))
            if not isinstance(parent, _STATEMENT_PARENTS) or getattr(parent, "cond", None) is n:
                continue  # its value is used: a read of s
            operand = None
            if n.op in ("+=", "-=", "*="):
                rest = n.rvalue
            elif n.op == "=" and isinstance(n.rvalue, c_ast.BinaryOp) and n.rvalue.op in _OPS:
                left, right = n.rvalue.left, n.rvalue.right
                is_s = [isinstance(x, c_ast.ID) and self.table.decl_of(x) is s for x in (left, right)]
                if is_s == [True, False]:
                    operand, rest = left, right
                elif is_s == [False, True]:
                    operand, rest = right, left
                else:
                    continue
            else:
                continue
            if not self.table.uses(rest, s):
                ok |= {id(n.lvalue)} | ({id(operand)} if operand is not None else set())
        stray = next((u for u in self.table.uses(loop, s) if id(u) not in ok), None)
        return ok, stray

    def site(self, items: list[c_ast.Node], k: int) -> _Site | str | None:
        """The site starting at ``items[k]``: a ``_Site``, the reason it is refused, or None (no pattern)."""
        first = items[k]
        if isinstance(first, c_ast.Decl) and first.init is not None and not isinstance(first.init, c_ast.InitList):
            s, init = first, first.init
        elif isinstance(first, c_ast.Assignment) and first.op == "=" and isinstance(first.lvalue, c_ast.ID):
            s, init = self.table.decl_of(first.lvalue), first.rvalue
        else:
            return None
        if not isinstance(s, c_ast.Decl) or arith_type(s.type, self.env) is None:
            return None
        loop = strip_labels(items[k + 1])
        if not isinstance(loop, c_ast.For):
            return None
        acc, stray = self.accumulations(loop, s)
        if not acc:
            return None  # the loop does not accumulate into s
        store = strip_labels(items[k + 2])
        what = f"{where(first)}: {self.module.name}: accumulation into {s.name}"
        if not (isinstance(store, c_ast.Assignment) and store.op == "=" and isinstance(store.lvalue, c_ast.ArrayRef)):
            return f"{what}: the statement after the loop does not store {s.name} into an array element"
        e_uses = self.table.uses(store.rvalue, s)
        if len(e_uses) != 1:
            return f"{where(store)}: {self.module.name}: {to_c(store)} does not use {s.name} exactly once"
        x = store.lvalue
        what = f"{what} stored into {to_c(x)}"
        why = self.refusal(items, k, s, init, loop, store, stray, acc | {id(e_uses[0])})
        if why:
            return f"{what}: {why}"
        return _Site(items, k, s, init, loop, x, store, acc | {id(e_uses[0])})

    def refusal(self, items, k, s, init, loop, store, stray, uses) -> str | None:
        """Why the site is illegal, in source terms (None: legal)."""
        table, env, x = self.table, self.env, store.lvalue
        lhs = getattr(items[k], "lvalue", None)  # s in ``s = init;``
        labels = [lab for st in items[k + 1 : k + 3] for lab in user_labels(st, self.module.ws.generated_labels)]
        if labels:
            return f"label {labels[0].name} at {where(labels[0])} (a jump could enter between the statements)"
        if not table.is_local(s) or id(s) in self.params:
            return f"{s.name} is a {'parameter' if table.is_local(s) else 'global variable'}, not a local"
        if set(s.storage) & {"static", "extern"} or "volatile" in s.quals:
            return f"{s.name} is declared {' '.join(s.storage + s.quals)}"
        if stray is not None:
            return f"{where(stray)}: {s.name} is used in the loop other than by accumulations `{s.name} op= e`"
        if others := [u for u in self.table.uses(self.func.body, s) if id(u) not in uses and u is not lhs]:
            return f"{s.name} is also used at {where(others[0])}"
        base, subs = array_ref_base(x)
        xd = table.decl_of(base) if isinstance(base, c_ast.ID) else None
        if not isinstance(xd, c_ast.Decl) or env.category(xd.type) != "array":
            return f"{to_c(x)} is not an element of an array variable"
        elem = env.unalias(env.expr_type(x))
        ts, tx = arith_type(s.type, env), arith_type(elem, env)
        if tx is None:
            return f"{to_c(x)} is not an arithmetic element of {xd.name}"
        if ts != tx:
            return f"{s.name} is {ts} but the elements of {xd.name} are {tx} (rounding would change)"
        if "volatile" in xd.quals + list(getattr(elem, "quals", [])):
            return f"{xd.name} is volatile"
        written = {id(table.decl_of(w.base)) for w in writes(loop) if w.base is not None}
        local = {d.name for d in walk(loop) if isinstance(d, c_ast.Decl)}
        for sub in subs:
            if has_side_effects(sub) or reads_through_pointer(sub, env):
                return f"subscript {to_c(sub)} has side effects or reads through a pointer"
            for v in variables(sub):
                if table.decl_of(v) is s or table.decl_of(v) is xd:
                    return f"subscript {to_c(sub)} uses {v.name}"
                if id(table.decl_of(v)) in written:
                    return f"{v.name}, in subscript {to_c(sub)}, is written in the loop"
        if clash := [v.name for v in variables(x) if v.name in local]:
            return f"the loop declares its own {clash[0]}"
        if named := self.table.uses(loop, xd):
            return f"the loop accesses {xd.name} at {where(named[0])}"
        if calls := impure_calls(loop, table, self.module.ws):
            return f"the loop calls {to_c(calls[0].name)} at {where(calls[0])}, which may access {xd.name}"
        if reads_through_pointer(loop, env):
            return f"the loop accesses memory through a pointer, which may be {xd.name}"
        if jumps := escaping_jumps(loop):
            return f"the loop may leave early ({describe_jump(jumps[0])}): {to_c(x)} would hold a partial result"
        for part, name in ((init, "initial value"), (store.rvalue, "stored expression")):
            if self.table.uses(part, xd) or (part is init and self.table.uses(part, s)):
                return f"the {name} {to_c(part)} reads {xd.name if self.table.uses(part, xd) else s.name}"
            if writes(part) or impure_calls(part, table, self.module.ws) or reads_through_pointer(part, env):
                return f"the {name} {to_c(part)} has side effects or reads through a pointer"
        return None


def _apply(site: _Site) -> None:
    def element(n: c_ast.Node) -> c_ast.Node | None:
        return copy_node(site.target) if id(n) in site.uses else None

    transform(site.loop, element)
    first = site.items[site.k]
    if id(site.store.rvalue) in site.uses:
        del site.items[site.k + 2]  # X = s; would become X = X;
    else:
        transform(site.store, element)
    site.items[site.k] = c_ast.Assignment("=", copy_node(site.target), site.init, first.coord)


@transformation(scope="module", requires=[], preserves=["callgraph"], reads=["unit_scope"])
def accumulate_in_place(module: Module) -> None:
    """Accumulate into the array element a scalar accumulator is stored into, instead of the scalar.

    Before (the way matrix products and convolutions are often written)::

        for (j = 0; j < n; j++) {
            double sum = 0.0;
            for (k = 0; k < n; k++)
                sum += A[i][k] * B[k][j];
            C[i][j] = sum;
        }

    After::

        for (j = 0; j < n; j++) {
            C[i][j] = 0.0;
            for (k = 0; k < n; k++)
                C[i][j] += A[i][k] * B[k][j];
        }

    The pattern, three adjacent statements of one block: ``T s = init;`` (or
    ``s = init;``), a ``for`` loop (nest) whose only uses of ``s`` are
    accumulations ``s op= e``, ``s = s op e`` or ``s = e op s`` (``op`` in
    ``+ - *``, ``e`` free of ``s``), then a store ``X = E`` of an array element
    ``X`` where ``E`` uses ``s`` once. It becomes ``X = init;``, the loop with
    ``X`` for ``s``, and ``X = E[s := X]`` (dropped when ``E`` is ``s``); the
    declaration of ``s`` goes when nothing uses it any more. Each operation is
    the same, in the same order, on the same type: results are bit-identical.
    Requires nothing (syntactic); preserves the call graph.

    Legality (a site is refused otherwise, with the reason):

    - ``s`` is a local non-``static`` variable, neither parameter nor global,
      used nowhere else in the function (its address is not taken);
    - ``X``'s elements and ``s`` have the same arithmetic type (``double`` into
      ``float`` is refused: the rounding would change);
    - ``X``'s subscripts have no side effects and use no variable the loop
      writes (nor ``s``, nor the array, nor a pointer);
    - the loop names neither ``X``'s array nor, for a loop-local declaration,
      a variable of ``X``; it makes no impure call, no access through a pointer
      (array variables and array parameters only: distinct arrays do not
      overlap, the assumption of the effects analysis) and no jump out of it;
    - ``init`` and ``E`` do not read ``X``'s array, write nothing, call only
      pure functions; no user label lies on the loop or the store.

    Applied at every legal site of the function; refused (``PassFailed``, the
    function unchanged) when there is none, with the reasons.

    Properties: none.
    """
    applied = 0
    while True:
        finder = _Finder(module)
        site = finder.first()
        if site is None:
            break
        _apply(site)
        applied += 1
        table = current_names(module)
        s = site.s
        dead = not table.uses(module.ast.body, s) and (s.init is None or not has_side_effects(s.init))
        if dead and any(x is s for items in statement_lists(module.ast.body) for x in items):
            remove_declaration(module.ast.body, s)
    if not applied:
        if finder.reasons:
            raise PassFailed("; ".join(finder.reasons))
        raise PassFailed(
            f"{where(module.ast)}: {module.name}: no accumulation `s = init; for (...) s += e; X[...] = f(s);`"
        )
