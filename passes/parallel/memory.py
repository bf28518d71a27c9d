"""Memory conflicts between the iterations of a loop outside static control parts, for :mod:`.verdicts`.

:class:`AccessConflicts` compares the accesses of the body of a loop to
non-scalar memory (its statements' proper effects, plus what pure library
functions read through their pointer arguments, which the effects do not
model) pairwise: two accesses are apart when one subscript is the same
affine function of the loop index in both, with a non-zero coefficient and
the other variables of that subscript unchanged in the loop (``A[i][j]``
and ``A[i][j - 1]`` over ``i``), on a variable where distinct subscripts
mean distinct memory (arrays, pointers to arrays, one level of pointer: not
``double **m``). Otherwise the convex array regions of the body decide:
its WRITE region at iteration ``i`` against its READ and WRITE regions at
``i' != i``, the variables the loop changes left free.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast, c_parser

from passman import Module, PassmanError
from passman.astutil import walk
from passman.lazy import LazyAttribute
from passman.printer import to_c

from ..analysis.effect_model import ANYWHERE, Effect, FunctionScope, function_scope, stub_info
from ..analysis.references import Ref, call_sites, statement_refs, statements
from ..cfacts.folding import int_value, simplify
from ..cfacts.names import where
from ..cfacts.sideeffects import has_side_effects, variables

__all__ = ["Access", "AccessConflicts", "body_accesses", "index_coefficient", "subscript_text"]

_DT = LazyAttribute("islpy", "dim_type")

# ------------------------------------------------------------------ references


def subscript_text(s: c_ast.Node) -> str:
    """A subscript as the effects print it (``i + 1``; ``*`` when it has side effects)."""
    if has_side_effects(s):
        return "*"
    return to_c(simplify(s)) if isinstance(s, (c_ast.BinaryOp, c_ast.UnaryOp)) else to_c(s)


def index_coefficient(e: c_ast.Node, name: str) -> int | None:
    """``c`` when ``e`` is ``c * name + f`` with ``f`` made of other variables and constants only.

    0 when ``e`` does not use ``name``; None when ``e`` reads memory, calls
    or uses ``name`` in any other way.
    """
    match e:
        case c_ast.ID():
            return 1 if e.name == name else 0
        case c_ast.Constant():
            return 0 if e.type in ("int", "char") else None
        case c_ast.UnaryOp(op="-" | "+"):
            c = index_coefficient(e.expr, name)
            return None if c is None else (-c if e.op == "-" else c)
        case c_ast.Cast():
            c = index_coefficient(e.expr, name)
            return c if c == 0 else None
        case c_ast.BinaryOp(op="+" | "-"):
            a, b = index_coefficient(e.left, name), index_coefficient(e.right, name)
            if a is None or b is None:
                return None
            return a + b if e.op == "+" else a - b
        case c_ast.BinaryOp(op="*"):
            a, b = index_coefficient(e.left, name), index_coefficient(e.right, name)
            if a is None or b is None:
                return None
            if a and b:
                return None
            k = int_value(simplify(e.right if a else e.left))
            if not (a or b):
                return 0
            return None if k is None else (a or b) * k
        case c_ast.BinaryOp(op="/" | "%" | "<<" | ">>" | "&" | "|" | "^"):
            a, b = index_coefficient(e.left, name), index_coefficient(e.right, name)
            return 0 if a == 0 and b == 0 else None
    return None


def _flat(decl: object, scope: FunctionScope) -> bool:
    """Whether distinct subscripts of a variable designate distinct memory.

    True for arrays, pointers to arrays and pointers to non-pointers (one
    level of pointer at most, outermost); False for ``double **m``, where
    ``m[i]`` and ``m[j]`` may hold the same row.
    """
    if not isinstance(decl, c_ast.Decl):
        return False
    t = scope.types.unalias(decl.type)
    if isinstance(t, c_ast.PtrDecl):
        t = scope.types.unalias(t.type)
    while isinstance(t, c_ast.ArrayDecl):
        t = scope.types.unalias(t.type)
    return not isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl))


@dataclass(frozen=True)
class Access:
    """A read or write of (part of) a non-scalar variable by one statement of a loop body."""

    effect: Effect
    stmt: c_ast.Node
    order: int  # position of the statement in the body (pre-order)
    subscripts: tuple[c_ast.Node, ...] | None  # the AST subscripts when the reference is exact
    text: str
    by_call: str | None  # the call the effect comes from ("printf"), None for a direct reference
    #: False for the reads of pure library functions through their pointer arguments, which
    #: neither the effects nor the regions model
    modelled: bool = True

    @property
    def memory(self) -> tuple:
        """Identity of the accessed variable (not of the element)."""
        e = self.effect
        return (e.var, e.pointee, id(e.decl))

    @property
    def is_write(self) -> bool:
        """A write access."""
        return self.effect.action == "write"

    @property
    def where(self) -> str:
        """``file:line`` of the reference (of its statement for effects of calls)."""
        return where(self.stmt)

    def describe(self) -> str:
        """``A[i][j]`` or ``A[*] (by the call to f)``."""
        return self.text + (f" (through the call to {self.by_call})" if self.by_call else "")


def body_accesses(module: Module, loop: c_ast.For, skip: set[int]) -> list[Access]:
    """The accesses of the body of ``loop`` to non-scalar memory, one per proper effect.

    Effects on variables declared inside the body (fresh each iteration),
    except ``static`` ones, are left out, as are the declarations ``skip``
    lists (by ``id``).
    """
    scope = function_scope(module)
    proper = module.resource("proper_effects")
    inner = {id(d) for d in walk(loop.stmt) if isinstance(d, c_ast.Decl) and "static" not in (d.storage or [])}
    inner |= skip
    out: list[Access] = []
    for order, s in enumerate(statements(loop.stmt)):
        effects = proper.of(s)
        if not effects:
            continue
        refs: list[Ref] | None = None
        calls = call_sites(s)
        for e in effects:
            if e.is_scalar or e.kind == "anywhere" or id(e.decl) in inner:
                continue
            if e.decl is not None and id(e.decl) in inner:
                continue
            if refs is None:
                refs = statement_refs(s, scope.names, scope.types)
            ref = _matching_ref(e, refs)
            if ref is not None:
                subs = ref.subscripts if ref.exact and _flat(ref.decl, scope) else None
                text = to_c(ref.node).strip() if not isinstance(ref.node, c_ast.Decl) else e.text
                out.append(Access(e, s, order, subs, text, None))
            else:
                callee = _call_name(calls)
                subs = _parsed(e.subscripts) if _flat(_decl_named(module, scope, e), scope) else None
                out.append(Access(e, s, order, subs, e.text, callee))
        for call, e in _pure_pointer_reads(module, scope, calls):
            if id(e.decl) not in inner:
                out.append(Access(e, s, order, None, e.text, call, modelled=False))
    return out


def _pure_pointer_reads(module: Module, scope: FunctionScope, calls: list[c_ast.FuncCall]) -> Iterator[tuple[str, Effect]]:
    """Reads of what the pointer arguments of calls to pure library functions point to.

    A pure stub "may read its arguments and what they point to"
    (``docs/brokers.md``); the proper effects keep only the pointer values,
    so these reads are added here (``strlen(s)`` reads ``s[*]``).
    """
    for call in calls:
        if not isinstance(call.name, c_ast.ID) or call.args is None:
            continue
        info = stub_info(module.ws, call.name.name)
        if info is None or not getattr(info, "pure", False):
            continue
        for arg in call.args.exprs:
            ident = _pointer_base(arg)
            decl = scope.names.decl_of(ident) if ident is not None else None
            if not isinstance(decl, c_ast.Decl) or scope.category(decl) not in ("pointer", "array"):
                continue
            kind = scope.kind(decl)
            pointee = scope.category(decl) == "pointer" or kind == "formal"
            keep = decl if kind in ("local", "static") else None
            yield call.name.name, Effect(ident.name, "read", "may", ("*",), pointee, kind, keep, (frozenset(),))


def _pointer_base(e: c_ast.Node) -> c_ast.ID | None:
    """The variable a pointer-valued argument is computed from (``p``, ``&A[i]``, ``A + k``)."""
    while True:
        match e:
            case c_ast.Cast():
                e = e.expr
            case c_ast.UnaryOp(op="&"):
                e = e.expr
            case c_ast.ArrayRef():
                e = e.name
            case c_ast.BinaryOp(op="+" | "-"):
                e = e.left
            case c_ast.ID():
                return e
            case _:
                return None


def _decl_named(module: Module, scope: FunctionScope, e: Effect) -> object | None:
    """The declaration of the variable of an effect (local, formal or global)."""
    if e.decl is not None:
        return e.decl
    for p in scope.params:
        if p.name == e.var:
            return p
    if e.kind == "global":
        return module.ws.resource("unit_scope", module).names.get(e.var)
    return None


@functools.lru_cache(maxsize=4096)
def _parsed(texts: tuple[str, ...] | None) -> tuple[c_ast.Node, ...] | None:
    """Subscripts printed by the effects (``i + 1``), parsed back (None for ``*`` or what does not parse)."""
    if texts is None or "*" in texts:
        return None
    try:
        ast = c_parser.CParser().parse("void f(void) { " + "".join(f"(void)({t});" for t in texts) + " }")
    except Exception:  # noqa: BLE001 - a cast to a typedef name: unknown subscript
        return None
    return tuple(stmt.expr for stmt in ast.ext[0].body.block_items)


def _matching_ref(e: Effect, refs: Iterable[Ref]) -> Ref | None:
    for r in refs:
        if r.var != e.var or r.mode != e.action or r.subscripts is None or e.subscripts is None:
            continue
        if len(r.subscripts) == len(e.subscripts) and all(
            subscript_text(a) == b for a, b in zip(r.subscripts, e.subscripts)
        ):
            return r
    return None


def _call_name(calls: list[c_ast.FuncCall]) -> str | None:
    for c in calls:
        return c.name.name if isinstance(c.name, c_ast.ID) else to_c(c.name)
    return None


# ------------------------------------------------------------------ pairwise test


class AccessConflicts:
    """Which accesses of a loop body may touch the same memory in two different iterations."""

    def __init__(self, module: Module, loop: c_ast.For, index: str, written: frozenset[str],
                 skip: set[int] | None = None):
        """``written``: the variables whose value the loop changes (scalars, pointers)."""
        self.module = module
        self.loop = loop
        self.index = index
        self.written = written - {index}
        self.accesses = body_accesses(module, loop, skip or set())
        self._regions: dict[str, bool] = {}

    def by_variable(self) -> dict[tuple, list[Access]]:
        """The accesses grouped by variable, for the variables the body writes."""
        groups: dict[tuple, list[Access]] = {}
        for a in self.accesses:
            groups.setdefault(a.memory, []).append(a)
        return {k: v for k, v in groups.items() if any(a.is_write for a in v)}

    def apart(self, w: Access, x: Access) -> bool:
        """Whether ``w`` and ``x`` never touch the same element in two different iterations."""
        if w.subscripts is None or x.subscripts is None or len(w.subscripts) != len(x.subscripts):
            return False
        if ANYWHERE in self.written or (w.effect.pointee and w.effect.var in self.written):
            return False  # the pointer itself moves
        for a, b in zip(w.subscripts, x.subscripts):
            ta = subscript_text(a)
            if ta == "*" or ta != subscript_text(b):
                continue
            c = index_coefficient(a, self.index)
            if not c:
                continue
            others = {v.name for v in variables(a)} - {self.index}
            if not others & self.written:
                return True
        return False

    def conflict(self, group: list[Access]) -> tuple[Access, Access] | None:
        """The first pair of accesses of one variable that may conflict across iterations, or None."""
        pairs = [(w, x) for w in group if w.is_write for x in group]
        bad = [(w, x) for w, x in pairs if not self.apart(w, x)]
        if not bad:
            return None
        var = group[0].effect.var
        if all(w.modelled and x.modelled for w, x in bad) and self.regions_apart(var):
            return None
        bad.sort(key=lambda p: (p[1].is_write, p[1].order < p[0].order, p[0].order, p[1].order))
        return bad[0]

    def regions_apart(self, var: str) -> bool:
        """Whether the convex regions of the body show no element shared by two iterations."""
        if var not in self._regions:
            try:
                self._regions[var] = _regions_apart(self.module, self.loop, self.index, self.written, var)
            except PassmanError:
                self._regions[var] = False
        return self._regions[var]


def _regions_apart(module: Module, loop: c_ast.For, index: str, written: frozenset[str], var: str) -> bool:
    regs = module.resource("regions").of(loop.stmt)
    if any(r.var == ANYWHERE for r in regs):
        return False
    mine = [r for r in regs if r.var == var]
    writes = [r for r in mine if r.mode == "W"]
    if not writes:
        return False
    names = writes[0].names
    idx = [p for p, c in names.items() if c == index]
    if len(idx) != 1:
        return False
    idx_name = idx[0]
    variant = {p for p, c in names.items() if c in written}
    try:
        return all(_disjoint_across(w.set, x.set, idx_name, variant) for w in writes for x in mine)
    except isl.Error:
        return False


def _disjoint_across(a: isl.Set, b: isl.Set, idx: str, variant: set[str]) -> bool:
    """Whether ``a`` at ``idx`` and ``b`` at ``idx' != idx`` (variant parameters free) never meet."""
    from ..poly.affine import param_names, rename_param

    if a.get_space().get_tuple_name(_DT.set) != b.get_space().get_tuple_name(_DT.set):
        return True
    if a.dim(_DT.set) != b.dim(_DT.set):
        return False
    used = set(param_names(a)) | set(param_names(b))
    for p in param_names(a):
        if p in variant and p != idx:
            a = rename_param(a, p, _fresh(p + "_a", used))
    for p in param_names(b):
        if p in variant and p != idx:
            b = rename_param(b, p, _fresh(p + "_b", used))
    other = _fresh(idx + "_other", used)
    b = rename_param(b, idx, other)
    both = a.intersect(b)
    if both.is_empty():
        return True
    for op in (">=", "<="):
        shift = "+ 1" if op == ">=" else "- 1"
        c = isl.Set(f"[{idx}, {other}] -> {{ : {other} {op} {idx} {shift} }}", context=both.get_ctx())
        if not both.intersect_params(c).is_empty():
            return False
    return True


def _fresh(base: str, used: set[str]) -> str:
    name, k = base, 0
    while name in used:
        k += 1
        name = f"{base}{k}"
    used.add(name)
    return name
