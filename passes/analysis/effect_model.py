"""The vocabulary of memory effects: :class:`Effect`, sets of effects, and the scopes they name.

An effect is a read or a write, MUST or MAY, of a variable's own storage or
of what it points to, optionally narrowed to subscripts. The set operations
here are those of PIPS's effects: a sequence keeps MUST (:func:`union`),
alternatives keep MUST only when both branches have it (:func:`join`), loops
generalise subscripts that change (:func:`generalize`). The computation lives
in :mod:`effects` (statements) and :mod:`call_effects` (calls and pointers).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from pycparser import c_ast

from passman import Module, analysis

from ..cfacts.names import NameTable, file_scope, resolve_names
from ..cfacts.types import TypeEnv

#: the name of the effect on any memory: every global, everything reachable through pointers
ANYWHERE = "*anywhere*"

@dataclass(frozen=True)
class Effect:
    """A read or write of (part of) one variable.

    ``var`` is the variable's name (:data:`ANYWHERE` for any memory);
    ``kind`` is ``local``, ``static`` (a static local), ``formal``,
    ``global`` or ``anywhere``; ``pointee`` is True when the memory is
    reached through the variable's value (``p[i]``, ``*p``, the elements of
    an array formal), not its own storage. ``subscripts`` are the C text of
    the indices (``"*"``: any index), None for the whole variable or an
    unknown part of it. ``approx`` is ``must`` or ``may``. Locals carry their
    declaration (``decl``) so that shadowed names stay apart.
    """

    var: str
    action: str  # "read" | "write"
    approx: str  # "must" | "may"
    subscripts: tuple[str, ...] | None = None
    pointee: bool = False
    kind: str = "local"
    decl: object | None = field(default=None, repr=False)
    #: variables named in each subscript (to tell loop-invariant ones)
    index_vars: tuple[frozenset[str], ...] | None = field(default=None, compare=False, repr=False)
    #: exactly the memory a pointer designates (``p[i]``), not memory behind pointers stored there
    shallow: bool = field(default=False, compare=False, repr=False)

    @property
    def key(self) -> tuple:
        """Identity of the accessed memory and action, without the approximation."""
        return (self.var, self.action, self.subscripts, self.pointee, self.kind, id(self.decl))

    @property
    def is_scalar(self) -> bool:
        """An effect on a variable's own storage as a whole (``x``)."""
        return self.subscripts is None and not self.pointee and self.kind != "anywhere"

    @property
    def text(self) -> str:
        """``x``, ``A[i][*]``, ``p[*]``, ``*anywhere*``."""
        if self.subscripts is not None:
            return self.var + "".join(f"[{s}]" for s in self.subscripts)
        if self.pointee:
            return f"{self.var}[*]"
        return self.var

    def replace(self, **kw) -> Effect:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **kw)


def anywhere(action: str) -> Effect:
    """The MAY effect on any memory."""
    return Effect(ANYWHERE, action, "may", kind="anywhere")


@dataclass(frozen=True)
class EffectsMap:
    """Effects per statement: ``by_id[id(stmt)] == (stmt, effects)`` (effects sorted)."""

    by_id: Mapping[int, tuple[c_ast.Node, tuple[Effect, ...]]]

    def of(self, stmt: c_ast.Node) -> tuple[Effect, ...]:
        """The effects of ``stmt`` (a ``Label`` stands for its statement); () if unknown."""
        while isinstance(stmt, c_ast.Label) and id(stmt) not in self.by_id:
            stmt = stmt.stmt
        entry = self.by_id.get(id(stmt))
        return entry[1] if entry else ()

    def __contains__(self, stmt: object) -> bool:
        return id(stmt) in self.by_id


# ------------------------------------------------------------------ effect sets


def _sort_key(e: Effect) -> tuple:
    return (e.action != "read", e.approx != "must", e.var, e.subscripts or (), e.pointee)


def freeze(effects: Iterable[Effect]) -> tuple[Effect, ...]:
    """A sorted tuple of effects."""
    return tuple(sorted(effects, key=_sort_key))


def union(*sets: Iterable[Effect]) -> dict[tuple, Effect]:
    """Effects of statements all executed: MUST wins."""
    out: dict[tuple, Effect] = {}
    for s in sets:
        for e in s:
            old = out.get(e.key)
            if old is None or (old.approx == "may" and e.approx == "must"):
                out[e.key] = e
    return out


def join(a: Iterable[Effect], b: Iterable[Effect]) -> dict[tuple, Effect]:
    """Effects of one of two alternatives: MUST only if MUST in both."""
    da, db = union(a), union(b)
    out = {}
    for k in da.keys() | db.keys():
        x, y = da.get(k), db.get(k)
        e = x or y
        must = x is not None and y is not None and x.approx == y.approx == "must"
        out[k] = e.replace(approx="must" if must else "may")
    return out


def weaken(effects: Iterable[Effect]) -> list[Effect]:
    """Every effect as MAY."""
    return [e if e.approx == "may" else e.replace(approx="may") for e in effects]


def written_names(effects: Iterable[Effect]) -> frozenset[str]:
    """Names of the variables written (own storage or through them)."""
    return frozenset(e.var for e in effects if e.action == "write")


def generalize(effects: Iterable[Effect], written: frozenset[str]) -> list[Effect]:
    """Replace by ``*`` every subscript naming a variable in ``written`` (MAY then)."""
    anywhere_written = ANYWHERE in written
    out = []
    for e in effects:
        if e.subscripts is None or e.index_vars is None:
            out.append(e)
            continue
        subs = list(e.subscripts)
        idx = list(e.index_vars)
        changed = False
        for k, names in enumerate(idx):
            if subs[k] != "*" and (names & written or (anywhere_written and names)):
                subs[k] = "*"
                idx[k] = frozenset()
                changed = True
        if changed:
            out.append(e.replace(subscripts=tuple(subs), approx="may", index_vars=tuple(idx)))
        else:
            out.append(e)
    return out


# ------------------------------------------------------------------ the unit level


@dataclass(frozen=True)
class UnitScope:
    """File-scope names and types of a compilation unit (shared by its functions)."""

    names: Mapping[str, c_ast.Node]
    typedefs: Mapping[str, c_ast.Typedef]
    tags: Mapping[str, c_ast.Node]


@analysis(scope="unit", provides="unit_scope")
def unit_scope(cu) -> UnitScope:
    """The names declared at file scope and the typedefs and struct tags of a unit."""
    top = [n for n in cu.ast.ext if not isinstance(n, c_ast.FuncDef)]
    env = TypeEnv(NameTable(), top)
    return UnitScope(MappingProxyType(file_scope(cu.ast.ext)), MappingProxyType(env.typedefs),
                     MappingProxyType(env.tags))


@dataclass
class FunctionScope:
    """Names and types of one function (not a resource: rebuilt by each analysis)."""

    func: c_ast.FuncDef
    names: NameTable
    types: TypeEnv
    params: list[c_ast.Decl]
    #: facts derived from the scope by one walk of the function, kept as long as the scope is
    #: (by the analysis that derives them: ``memo["array escapes"]``...)
    memo: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._param_ids = {id(p) for p in self.params}

    def kind(self, decl: object | None) -> str:
        """``local``, ``static``, ``formal`` or ``global`` for a declaration."""
        if decl is None or not self.names.is_local(decl):
            return "global"
        if id(decl) in self._param_ids:
            return "formal"
        if isinstance(decl, c_ast.Decl) and "static" in (decl.storage or []):
            return "static"
        return "local"

    def category(self, decl: object | None) -> str:
        """Type category of a variable (``pointer``, ``array``, ``float`` ...)."""
        return self.types.category(decl.type) if isinstance(decl, c_ast.Decl) else "unknown"


def function_scope(module: Module) -> FunctionScope:
    """Name resolution and types of a module (the cached ``function_scope`` resource)."""
    return module.ws.resource("function_scope", module)


@analysis(scope="module", provides="function_scope", name="function_scope", reads=["unit_scope"])
def _function_scope(module: Module) -> FunctionScope:
    """Name resolution and types of a function, file scope from the cached unit resource (read only)."""
    return current_scope(module)


def current_scope(module: Module) -> FunctionScope:
    """Names and types of the function as it is now, not as cached (see :func:`current_names`).

    The function is walked again; the file scope is the cached ``unit_scope``
    resource (one walk of the file per change of the unit, not one per call:
    the pass calling this reads ``unit_scope``).
    """
    func = module.ast
    unit = module.ws.resource("unit_scope", module)
    names = resolve_names(func, unit.names)
    types = TypeEnv(names, func)
    types.typedefs = {**unit.typedefs, **types.typedefs}
    types.tags = {**unit.tags, **types.tags}
    return FunctionScope(func, names, types, param_decls(func))


def current_names(module: Module) -> NameTable:
    """Name resolution of the function as it is now, not as cached.

    A pass that rewrites one part of a function and then examines another
    must use this: the cached table does not bind the identifiers of the
    code it generated (``id`` of new nodes, possibly reused ids).
    """
    return resolve_names(module.ast, module.ws.resource("unit_scope", module).names)


def param_decls(func: c_ast.FuncDef) -> list[c_ast.Decl]:
    ftype = func.decl.type
    params = ftype.args.params if isinstance(ftype, c_ast.FuncDecl) and ftype.args else []
    out = [p for p in params if isinstance(p, c_ast.Decl) and p.name]
    if func.param_decls:  # K&R definitions
        out = list(func.param_decls)
    return out


def rank(t: c_ast.Node | None, types: TypeEnv) -> int:
    n = 0
    t = types.unalias(t)
    while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        n += 1
        t = types.unalias(t.type)
    return n


def is_variable(d: object) -> bool:
    return isinstance(d, c_ast.Decl) and not isinstance(d.type, c_ast.FuncDecl)


def stub_info(ws, name: str):
    """The broker's metadata for ``name`` (``.pure``, ``.model``), or None."""
    getter = getattr(ws, "stub_info", None)
    if getter is None:
        return None
    try:
        return getter(name)
    except Exception:  # noqa: BLE001 - a broker that knows nothing of the name
        return None


def strip_casts(e: c_ast.Node) -> c_ast.Node:
    while isinstance(e, c_ast.Cast):
        e = e.expr
    return e
