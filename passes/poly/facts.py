"""What the polyhedral analyses need to know about one function's variables.

:class:`FunctionFacts` gathers, once per analysis run, the syntactic facts
that scops, preconditions and regions share: name resolution (from
:func:`effects.function_scope`), the isl name of every variable (unique
within the function: a local shadowing another variable gets ``name_1``;
globals keep their C name so that callers and callees agree), array shapes,
integer scalars, address-taken and modified variables, the proper
references of each statement, and which calls are pure.

Not a resource: it holds AST nodes of the function and is rebuilt by each
analysis (it costs one walk of the function).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast

from passman import Module, PassmanError, analysis
from passman.astutil import walk

from ..analysis.effects import function_scope
from ..analysis.references import (
    Ref,
    call_sites,
    statement_refs,
    statements,
    substatements,
    taken_addresses,
)
from ..cfacts.names import unevaluated
from ..cfacts.sideeffects import PURE_LIBM, calls
from ..cfacts.types import TypeEnv
from .affine import AffineBuilder, ctx, is_integer_type

_JUMPS = (c_ast.Break, c_ast.Continue, c_ast.Return, c_ast.Goto, c_ast.Case, c_ast.Default)

#: isl names the analyses use for their own dimensions (program variables never get them)
RESERVED_PREFIXES = ("PHI", "__")


@dataclass(frozen=True)
class Shape:
    """The array view of a variable: ``double A[n][m]`` has rank 2 and extents ``(n, m)``.

    ``extents[k]`` is the C expression of dimension ``k``'s size, None when
    unknown (a pointer, ``double x[]``); ``pointer`` tells that the first
    level is a pointer (``double *p``, ``double (*A)[N]``).
    """

    rank: int
    extents: tuple[c_ast.Node | None, ...]
    pointer: bool
    element: c_ast.Node | None


def variable_decl(d: object) -> bool:
    """Whether ``d`` declares a variable (not a function, typedef or enumerator)."""
    return isinstance(d, c_ast.Decl) and not isinstance(d.type, c_ast.FuncDecl)


class FunctionFacts:
    """Names, shapes and syntactic facts of one function (see the module docstring)."""

    def view(self) -> FunctionFacts:
        """A copy sharing the local facts, with fresh caches for what depends on callees."""
        out = copy.copy(self)
        out._pure = {}
        out._int_writes = {}
        out._shared = None
        return out

    def __init__(self, module: Module):
        self.module = module
        self.ws = module.ws
        scope = function_scope(module)
        self.scope = scope
        self.func: c_ast.FuncDef = scope.func
        self.names = scope.names
        self.types: TypeEnv = scope.types
        self.params: list[c_ast.Decl] = scope.params
        self._isl: dict[int, str] = {}
        self._by_isl: dict[str, object] = {}
        self._lazy: dict[str, object] = {}  # shared by views: local facts computed on demand
        self._taken_global: set[str] = set()
        self._refs: dict[int, list[Ref]] = {}
        self._pure: dict[str, bool] = {}
        # globals first, with their C names (stable across functions and units)
        for gname, gdecl in module.ws.resource("poly_unit_variables", module):
            self._claim(gdecl, gname)
        gotos: set[str] = set()
        amp = False
        for n in walk(self.func):
            if isinstance(n, c_ast.ID):
                d = self.names.decl_of(n)
                if d is not None and variable_decl(d) and not self.names.is_local(d):
                    self._claim(d, n.name)
            elif isinstance(n, c_ast.Goto):
                gotos.add(n.name)
            elif isinstance(n, c_ast.UnaryOp) and n.op == "&":
                amp = True
        for d in self.names.decls:
            if variable_decl(d) and d.name:
                self._claim(d, d.name)
        self.address_taken: set[int] = set()
        self.modified: set[int] = set()
        for s in statements(self.func):
            if amp:  # only ``&x`` exposes a scalar
                for r in taken_addresses(s, self.names, self.types):
                    if r.decl is not None and r.subscripts is None and not r.through_pointer:
                        self.address_taken.add(id(r.decl))
            for r in self.refs(s):
                if r.mode == "write" and r.decl is not None and r.subscripts is None and not r.through_pointer:
                    self.modified.add(id(r.decl))
        #: labels some ``goto`` jumps to
        self.goto_targets = frozenset(gotos)
        self.has_goto = bool(self.goto_targets)
        self.int_globals = {self._isl[k] for k, d in ((id(d), d) for d in self._all_globals())
                            if self.is_int_scalar(d)}
        self.taken_names = {self._isl[i] for i in self.address_taken if i in self._isl}
        self._int_writes: dict[int, frozenset[str]] = {}
        self._shared: frozenset[int] | None = None

    # -- names -----------------------------------------------------------------------
    def _claim(self, d: object, base: str) -> str:
        if id(d) in self._isl:
            return self._isl[id(d)]
        name = base
        if name.startswith(RESERVED_PREFIXES):
            name = "v_" + name.lstrip("_")
        k = 1
        while name in self._by_isl:
            name = f"{base}_{k}"
            k += 1
        self._isl[id(d)] = name
        self._by_isl[name] = d
        return name

    def isl_name(self, decl: object) -> str:
        """The isl name of a variable declaration (unique in the function)."""
        n = self._isl.get(id(decl))
        if n is None:
            n = self._claim(decl, getattr(decl, "name", None) or "v")
        return n

    def decl_named(self, isl_name: str) -> object | None:
        """The declaration behind an isl name."""
        return self._by_isl.get(isl_name)

    def c_name(self, isl_name: str) -> str:
        """The C spelling of an isl variable name (``n_1`` -> ``n``)."""
        d = self._by_isl.get(isl_name)
        return getattr(d, "name", None) or isl_name

    def _all_globals(self) -> list[object]:
        return [d for d in self._by_isl.values() if not self.names.is_local(d)]

    def int_writes(self, root: c_ast.Node, proper: bool = False) -> frozenset[str]:
        """isl names of the integer scalars a statement (with what it nests) may modify.

        Writes through pointers may modify address-taken variables; calls to
        functions that are not pure may modify those and every global.
        ``proper``: the statement's own part only (a loop's header, an ``if``'s test).
        """
        key = id(root) * 2 + proper
        hit = self._int_writes.get(key)
        if hit is not None:
            return hit
        out: set[str] = set()
        for r in self.refs(root):
            if r.mode != "write":
                continue
            if r.subscripts is None and not r.through_pointer and self.is_int_scalar(r.decl):
                out.add(self.isl_name(r.decl))
            elif r.through_pointer or not r.var:
                out |= self.taken_names
        for c in self.calls(root):
            if not self.callee_is_pure(c):
                out |= self.taken_names | self.int_globals
        if not proper:
            for sub in substatements(root):
                out |= self.int_writes(sub)
        res = frozenset(out)
        self._int_writes[key] = res
        return res

    def calls(self, stmt: c_ast.Node) -> list[c_ast.FuncCall]:
        """The calls a statement makes itself (cached :func:`references.call_sites`)."""
        cache = self._lazy.setdefault("calls", {})
        hit = cache.get(id(stmt))
        if hit is None:
            hit = call_sites(stmt)
            cache[id(stmt)] = hit
        return hit

    def has_jumps(self, stmt: c_ast.Node) -> bool:
        """Whether a statement contains ``break``, ``continue``, ``return``, ``goto`` or a case label."""
        cache = self._lazy.setdefault("jumps", {})
        hit = cache.get(id(stmt))
        if hit is None:
            hit = isinstance(stmt, _JUMPS) or any(self.has_jumps(x) for x in substatements(stmt))
            cache[id(stmt)] = hit
        return hit

    def enum_value(self, decl: object) -> int | None:
        """The value of an enumerator constant (None if not a known constant)."""
        if "enums" not in self._lazy:
            from ..cfacts.folding import int_value

            values: dict[int, int] = {}
            self._lazy["enums"] = values
            for root in [self.func, *self.module.cu.ast.ext]:
                for n in walk(root):
                    if isinstance(n, c_ast.Enum) and n.values is not None:
                        v: int | None = -1
                        for e in n.values.enumerators:
                            v = int_value(e.value) if e.value is not None else (None if v is None else v + 1)
                            if v is not None:
                                values[id(e)] = v
        return self._lazy["enums"].get(id(decl))

    def decl_by_name(self, name: str, kind: str) -> object | None:
        """A variable by C name: a formal, a local (the last one declared) or a global."""
        if kind == "formal":
            return next((p for p in self.params if p.name == name), None)
        if kind in ("local", "static"):
            found = [d for d in self.names.decls if variable_decl(d) and d.name == name]
            return found[-1] if found else None
        return self.global_decl(name)

    def global_decl(self, name: str) -> object | None:
        """The file-scope declaration of a variable, by C name."""
        d = self._by_isl.get(name)
        return d if d is not None and not self.names.is_local(d) else None

    # -- kinds -----------------------------------------------------------------------
    def is_local(self, decl: object) -> bool:
        """Declared in the function (parameters included), not at file scope."""
        return self.names.is_local(decl)

    def is_formal(self, decl: object) -> bool:
        """A parameter of the function."""
        return any(p is decl for p in self.params)

    def is_static_local(self, decl: object) -> bool:
        """A ``static`` local (its storage outlives the call)."""
        return self.is_local(decl) and isinstance(decl, c_ast.Decl) and "static" in (decl.storage or [])

    def category(self, decl: object) -> str:
        """Type category (``signed``, ``float``, ``pointer``, ``array`` ...) of a variable."""
        cats = self._lazy.setdefault("categories", {})
        hit = cats.get(id(decl))
        if hit is None:
            hit = self.types.category(decl.type) if isinstance(decl, c_ast.Decl) else "unknown"
            cats[id(decl)] = hit
        return hit

    def is_int_scalar(self, decl: object) -> bool:
        """An integer (or enum) scalar variable."""
        ints = self._lazy.setdefault("ints", {})
        hit = ints.get(id(decl))
        if hit is None:
            hit = variable_decl(decl) and is_integer_type(decl.type, self.types)
            ints[id(decl)] = hit
        return hit

    def is_arith_scalar(self, decl: object) -> bool:
        """An integer or floating-point scalar variable."""
        return variable_decl(decl) and self.category(decl) in ("signed", "unsigned", "float")

    def is_symbol(self, decl: object) -> bool:
        """An integer scalar whose value the affine analyses may name (address never taken)."""
        return self.is_int_scalar(decl) and id(decl) not in self.address_taken

    def shape(self, decl: object) -> Shape | None:
        """The array shape of a variable (None for scalars and non-variables)."""
        if not variable_decl(decl):
            return None
        t = self.types.unalias(decl.type)
        extents: list[c_ast.Node | None] = []
        pointer = isinstance(t, c_ast.PtrDecl)
        level = 0
        while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
            if isinstance(t, c_ast.PtrDecl) and level > 0:
                return Shape(level, tuple(extents), pointer, None)  # pointer inside: stop here
            extents.append(t.dim if isinstance(t, c_ast.ArrayDecl) else None)
            t = self.types.unalias(t.type)
            level += 1
        if level == 0:
            return None
        return Shape(level, tuple(extents), pointer, t)

    def element_is_arith(self, decl: object) -> bool:
        """Whether the elements of an array or pointer variable are arithmetic scalars."""
        sh = self.shape(decl)
        if sh is None or sh.element is None:
            return False
        return self.types.category(sh.element) in ("signed", "unsigned", "float")

    def _pointer_assignments(self) -> dict[int, list[c_ast.Node]]:
        """For each variable, the right-hand sides assigned to it (``None``: escapes as a value)."""
        if "pointers" not in self._lazy:
            src: dict[int, list] = {}
            for n in walk(self.func.body):
                if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID):
                    d = self.names.decl_of(n.lvalue)
                    src.setdefault(id(d), []).append(n.rvalue if n.op == "=" else None)
                    rhs = n.rvalue
                elif isinstance(n, c_ast.Decl) and n.init is not None:
                    d = n
                    src.setdefault(id(n), []).append(n.init)
                    rhs = n.init
                else:
                    continue
                if self.category(d) not in ("pointer", "array", "unknown"):
                    continue
                # a pointer copied into another variable (q = p + 1) may alias it; an operand of
                # sizeof copies nothing (p = malloc(n * sizeof(*p))): it is not evaluated, and
                # when it is (a VLA type) its value is a size (assignments inside it are seen
                # by this walk on their own)
                skip = unevaluated(rhs)
                for x in walk(rhs):
                    if isinstance(x, c_ast.ID) and id(x) not in skip:
                        dx = self.names.decl_of(x)
                        if variable_decl(dx) and self.category(dx) in ("pointer", "array"):
                            src.setdefault(id(dx), []).append(None)
            self._lazy["pointers"] = src
        return self._lazy["pointers"]

    def stable_pointer(self, decl: object) -> bool:
        """A pointer that designates one array of its own for the whole function.

        A pointer formal never assigned, or a local only assigned fresh memory
        (``malloc``, ``calloc``); and never copied into another variable nor
        address-taken. (Distinct formals are assumed not to overlap.)
        """
        if not variable_decl(decl) or id(decl) in self.address_taken:
            return False
        sources = self._pointer_assignments().get(id(decl), [])
        if self.is_formal(decl):
            return not sources and id(decl) not in self.modified and id(decl) not in self.shared_formals()
        if not self.is_local(decl):
            return False
        for rhs in sources:
            while isinstance(rhs, c_ast.Cast):
                rhs = rhs.expr
            if not (isinstance(rhs, c_ast.FuncCall) and isinstance(rhs.name, c_ast.ID)
                    and rhs.name.name in ("malloc", "calloc", "aligned_alloc")):
                return False
        return True

    def shared_formals(self) -> frozenset[int]:
        """Pointer formals that a call of the function binds to memory it reaches otherwise.

        A call passing a global array (or pointer) that the function also
        names (``k(x1)`` with ``k`` reading ``x1``), or the same variable to
        two formals (``k(x, x + 1)``). Distinct variables are still assumed
        not to overlap, and so are formals when not every call is known (the
        program has no ``main``, the function's address is taken).
        """
        if self._shared is None:
            self._shared = frozenset(self._find_shared())
        return self._shared

    def _find_shared(self) -> set[int]:
        name = self.module.name
        if "main" not in self.ws or name == "main":
            return set()
        mine = {n.name for n in walk(self.func.body) if isinstance(n, c_ast.ID)
                and variable_decl(d := self.names.decl_of(n)) and not self.names.is_local(d)
                and self.category(d) in ("pointer", "array")}
        formals = [p for p in self.params if self.category(p) in ("pointer", "array")]
        written = {id(r.decl) for s in statements(self.func) for r in self.refs(s)
                   if r.mode == "write" and r.decl is not None}
        twins = len(formals) > 1 and any(id(p) in written for p in formals)
        if not mine and not twins:
            return set()  # nothing to overlap: the callers need not be read (nor followed)
        out: set[int] = set()
        for caller in self.module.callers:
            scope = function_scope(caller)
            for call in calls(caller.ast):
                if not (isinstance(call.name, c_ast.ID) and call.name.name == name):
                    continue
                args = call.args.exprs if call.args is not None else []
                bases: list[set[str]] = []  # the arrays and pointers each argument may point into
                globs: list[set[str]] = []  # those of them declared at file scope
                for a in args:
                    skip = unevaluated(a)  # sizeof(*p) passes no pointer
                    ids = [x for x in walk(a) if isinstance(x, c_ast.ID) and id(x) not in skip
                           and scope.types.decl_category(x) in ("pointer", "array", "unknown")
                           and variable_decl(scope.names.decl_of(x))]
                    bases.append({x.name for x in ids})
                    globs.append({x.name for x in ids if not scope.names.is_local(scope.names.decl_of(x))})
                for k, formal in enumerate(self.params[: len(args)]):
                    others = set().union(*(o for j, o in enumerate(bases) if j != k))
                    if (globs[k] & mine) or (twins and bases[k] & others):
                        out.add(id(formal))
        return out

    # -- statements --------------------------------------------------------------------
    def refs(self, stmt: c_ast.Node) -> list[Ref]:
        """The proper references of a statement (cached)."""
        r = self._refs.get(id(stmt))
        if r is None:
            r = statement_refs(stmt, self.names, self.types)
            self._refs[id(stmt)] = r
        return r

    def callee_is_pure(self, call: c_ast.FuncCall) -> bool:
        """Whether a call can neither write nor read anything but its (scalar) arguments."""
        if not isinstance(call.name, c_ast.ID):
            return False
        d = self.names.decl_of(call.name)
        if variable_decl(d):
            return False  # a function pointer
        name = call.name.name
        if name in self._pure:
            return self._pure[name]
        pure = False
        getter = getattr(self.ws, "stub_info", None)
        info = None
        if getter is not None:
            try:
                info = getter(name)
            except Exception:  # noqa: BLE001 - a broker that knows nothing of the name
                info = None
        if info is not None and getattr(info, "pure", False):
            pure = True
        elif name in PURE_LIBM:
            pure = True
        else:
            callee = self.ws.callee(name)
            if callee is not None and callee.name != self.module.name:
                try:
                    summary = callee.resource("summary_effects")
                except PassmanError:  # a call-graph cycle: not provably pure
                    summary = None
                pure = summary is not None and len(summary) == 0
        self._pure[name] = pure
        return pure


def function_facts(module: Module) -> FunctionFacts:
    """The facts of a module for one analysis run.

    The purely local part is the cached resource ``poly_facts``; what depends
    on other functions (which calls are pure, hence which integers a
    statement may modify) is recomputed by each run, so that it follows the
    callees' versions.
    """
    return module.resource("poly_facts").view()


@analysis(scope="module", provides="poly_facts", reads=["function_scope", "poly_unit_variables"])
def poly_facts(module: Module) -> FunctionFacts:
    """Internal: names, shapes and syntactic facts of a function for the polyhedral analyses."""
    return FunctionFacts(module)


@analysis(scope="unit", provides="poly_unit_variables", reads=["unit_scope"])
def poly_unit_variables(cu) -> tuple[tuple[str, c_ast.Decl], ...]:
    """Internal: the variables declared at file scope in a unit, ``(name, declaration)``."""
    names = cu.ws.resource("unit_scope", cu).names
    return tuple((n, d) for n, d in names.items() if variable_decl(d))


# ------------------------------------------------------------------ declared extents


def extent_set(f: FunctionFacts, extent: c_ast.Node | None) -> isl.Set:
    """``{[x] : 0 <= x < extent}`` for a declared dimension (the universe if unknown)."""
    cache = f._lazy.setdefault("extents", {})
    hit = cache.get(id(extent))
    if hit is None:
        hit = _extent_set(f, extent)
        cache[id(extent)] = hit
    return hit


def _extent_set(f: FunctionFacts, extent: c_ast.Node | None) -> isl.Set:
    space = isl.Space.set_alloc(ctx(), 0, 1)
    b = AffineBuilder(space, lambda ident: _stable_symbol(f, ident), f.types)
    u = isl.Set.universe(space)
    if extent is None:
        return u
    e = b.expr(extent)
    if e is None:
        return u
    x = b.dim(0)
    return x.ge_set(b.const(0)).intersect(x.lt_set(e))


def _stable_symbol(f: FunctionFacts, ident: c_ast.ID):
    d = f.names.decl_of(ident)
    if f.is_symbol(d) and id(d) not in f.modified:
        return ("param", f.isl_name(d))
    return None
