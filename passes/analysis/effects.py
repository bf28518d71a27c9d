"""Memory effects: which variables each statement, loop and function reads and writes.

Three resources, after PIPS (Amini 2012 §3.2 uses them under the regions):

* ``proper_effects``: the effects of each statement itself (a loop's header,
  an ``if``'s condition, a whole expression statement), calls included: at a
  call site the callee's ``summary_effects`` are translated to the actual
  arguments (interprocedural, bottom-up through the call graph).
* ``cumulated_effects``: the effects of each statement with everything
  nested in it. An access ``A[i]`` in a loop over ``i`` becomes ``A[*]``
  (MAY): a subscript is kept only while no variable in it is written in the
  loop. Effects on variables declared in a block are dropped at that block.
* ``summary_effects``: the effects of a function visible to its callers:
  on globals, and through pointer and array formals. Locals and the own
  storage of by-value formals are dropped.

An :class:`Effect` is MUST (certainly happens when the statement runs) or
MAY. Before / after (``module.display("cumulated_effects")``)::

    // <must be read>: i n
    // <may be read>: a a[*] s
    // <must be written>: i
    // <may be written>: s
    for (i = 0; i < n; i++)
        // <must be read>: a a[i] i s
        // <must be written>: s
        s += a[i];

Calls:

* a function of the program, or a library stub from the broker
  (``ws.callee(name)``): its summary, translated. A pointer or array formal
  maps to the actual's base variable; subscripts are not translated (VLA
  shapes and offsets differ), so the effect is on the whole array, MAY,
  except ``*acc`` with an actual ``&x`` or ``&A[i]``, which stays exact;
* pure functions (``ws.stub_info(name).pure``, else :data:`cfacts.PURE_LIBM`):
  nothing beyond reading their arguments;
* FFTW-like plans (``stub_info(name).model``): a plan-creation call
  ``{"captures": {"in": k, "out": l}}`` records, flow-insensitively over the
  program, which arrays the plan assigned to a variable captured; a call
  ``{"executes_plan": k}`` reads the captured inputs and writes the captured
  outputs, exactly;
* unknown functions and calls through function pointers: everything
  reachable from pointer and array arguments is read and written, and
  :data:`ANYWHERE` is read and written (MAY); a warning names the function;
* recursion: a callee whose summary is being computed (a cycle of the call
  graph) gets a conservative summary: its pointer and array formals, and
  every global named in the functions it reaches, read and written (MAY);
  :data:`ANYWHERE` too if it reaches an unknown function.

Aliasing assumption (as in Pluto, PPCG and Par4All): distinct named arrays,
and distinct pointer or array formals, never overlap; ``f(A, A)`` with two
formals written is outside the model. Pointers *are* followed inside a
function, flow-insensitively: a write through a pointer ``q`` also writes
(MAY) every array ``q`` may point to: what was assigned to it (``q = p + 1``,
``q = &x``, ``q = A``), what was stored into it or loaded from the memory
of a variable; a pointer whose address escapes, or that comes from an
unknown call or from a call to any function but an allocator (a returned
pointer is not tracked across calls), may point anywhere. Memory from
``malloc`` and friends (and stubs whose model says ``allocates``) is fresh.
Variadic arguments are read (written when the stub's model says
``"varargs": "write"``, as for ``scanf``). :data:`ANYWHERE` stands for every global and every memory block
reachable through pointers; it does not include locals whose address never
escapes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from types import MappingProxyType

from pycparser import c_ast

from passman import Loop, Module, analysis
from passman.astutil import walk
from passman.printer import to_c

from ..cfacts.control import escaping_jumps
from ..cfacts.folding import int_value, simplify
from ..cfacts.sideeffects import has_side_effects, variables
from .call_effects import CallTranslator, PointsTo, bottom_up
from .effect_model import (
    ANYWHERE,
    Effect,
    EffectsMap,
    FunctionScope,
    anywhere,
    freeze,
    function_scope,
    generalize,
    join,
    rank,
    stub_info,
    union,
    weaken,
    written_names,
)
from .references import Ref, call_sites, proper_parts, statement_refs

# the vocabulary lives in effect_model; it is re-exported here, where users look for it
__all__ = [
    "ANYWHERE", "Effect", "EffectsMap", "FunctionScope", "anywhere", "body_effects", "format_effects",
    "function_scope", "loop_effects", "stub_info",
]  # fmt: skip

# ------------------------------------------------------------------ proper effects


class ModuleEffects:
    """Computes the proper and cumulated effects of one function."""

    def __init__(self, module: Module):
        self.module = module
        self.ws = module.ws
        self.scope = function_scope(module)
        self.func = self.scope.func
        self.aliases = PointsTo(self)
        self.proper: dict[int, tuple[c_ast.Node, tuple[Effect, ...]]] = {}
        self.cumulated: dict[int, tuple[c_ast.Node, tuple[Effect, ...]]] = {}

    # -- effects of references --------------------------------------------------------
    def effect_of_ref(self, r: Ref, approx: str = "must") -> Effect:
        if not r.var:
            return anywhere(r.mode)
        kind = self.scope.kind(r.decl)
        pointee = r.through_pointer or (kind == "formal" and self.scope.category(r.decl) == "array")
        subs = idx = None
        if r.subscripts is not None:
            subs, idx = self.subscripts(r.subscripts)
        exact = r.exact and approx == "must"
        return Effect(r.var, r.mode, "must" if exact else "may", subs, pointee, kind,
                      r.decl if kind in ("local", "static") else None, idx,
                      shallow=r.through_pointer and r.subscripts is not None)

    def subscripts(self, nodes: Iterable[c_ast.Node]) -> tuple[tuple[str, ...], tuple[frozenset[str], ...]]:
        texts, idx = [], []
        for s in nodes:
            if has_side_effects(s):
                texts.append("*")
                idx.append(frozenset())
            else:
                texts.append(to_c(simplify(s)) if isinstance(s, (c_ast.BinaryOp, c_ast.UnaryOp)) else to_c(s))
                idx.append(frozenset(v.name for v in variables(s)))
        return tuple(texts), tuple(idx)

    def whole(self, var: str, decl: object | None, action: str, pointee: bool) -> Effect:
        """A MAY effect on all of ``var`` (its elements if an array, its pointee if ``pointee``)."""
        kind = self.scope.kind(decl)
        if kind == "formal" and self.scope.category(decl) == "array":
            pointee = True
        dims = rank(decl.type, self.scope.types) if isinstance(decl, c_ast.Decl) else 0
        if pointee:
            subs = ("*",) * max(dims, 1)
        else:
            subs = ("*",) * dims if self.scope.category(decl) == "array" else None
        return Effect(var, action, "may", subs, pointee, kind,
                      decl if kind in ("local", "static") else None,
                      tuple(frozenset() for _ in subs) if subs else None)

    # -- statements ---------------------------------------------------------------------
    def statement(self, stmt: c_ast.Node) -> tuple[Effect, ...]:
        parts = proper_parts(stmt)
        if not parts:
            return ()
        refs = statement_refs(stmt, self.scope.names, self.scope.types)
        weak = _conditional_nodes(stmt)
        out = [self.effect_of_ref(r, "may" if id(r.node) in weak else "must") for r in refs]
        for call in call_sites(stmt):
            eff = self.call(call)
            out.extend(weaken(eff) if id(call) in weak else eff)
        out = self.aliases.expand(out)
        return freeze(union(out).values())

    def call(self, call: c_ast.FuncCall) -> list[Effect]:
        """The effects of the callee of ``call``, translated to the caller."""
        return CallTranslator(self, call).effects()

    # -- cumulated ------------------------------------------------------------------------
    def run(self) -> None:
        self.cum(self.func.body)

    def cum(self, s: c_ast.Node) -> list[Effect]:
        proper = self.statement(s)
        self.proper[id(s)] = (s, proper)
        out: Iterable[Effect]
        match s:
            case c_ast.Compound():
                out = self.sequence(s.block_items or [], local_decls=True)
            case c_ast.If():
                then = self.cum(s.iftrue) if s.iftrue is not None else []
                other = self.cum(s.iffalse) if s.iffalse is not None else []
                out = union(proper, join(then, other).values()).values()
            case c_ast.For():
                body = self.cum(s.stmt) if s.stmt is not None else []
                header = list(proper)
                written = written_names([*proper, *body])
                body = generalize(body, written)
                if not runs_once(s):
                    body = weaken(body)
                    header = self._weaken_next(s, proper)
                out = union(header, body).values()
                if isinstance(s.init, c_ast.DeclList):
                    out = _drop_decls(out, s.init.decls)
            case c_ast.While():
                body = self.cum(s.stmt) if s.stmt is not None else []
                written = written_names([*proper, *body])
                out = union(proper, weaken(generalize(body, written))).values()
            case c_ast.DoWhile():
                body = self.cum(s.stmt) if s.stmt is not None else []
                written = written_names([*proper, *body])
                out = union(proper, generalize(body, written)).values()
            case c_ast.Switch():
                body = self.cum(s.stmt) if s.stmt is not None else []
                out = union(proper, weaken(body)).values()
            case c_ast.Label():
                out = self.cum(s.stmt) if s.stmt is not None else []
            case c_ast.Case() | c_ast.Default():
                out = self.sequence(s.stmts or [], local_decls=False)
            case _:
                out = proper
        result = freeze(out)
        if not isinstance(s, c_ast.Label):  # a label stands for its statement
            self.cumulated[id(s)] = (s, result)
        return list(result)

    def _weaken_next(self, loop: c_ast.For, proper: Iterable[Effect]) -> list[Effect]:
        """Header effects with those of the increment made MAY (it runs only after an iteration)."""
        if loop.next is None:
            return list(proper)
        nxt = {e.key for e in self._part_effects(loop.next)}
        keep = {e.key for p in (loop.init, loop.cond) if p is not None for e in self._part_effects(p)}
        return [e.replace(approx="may") if e.key in nxt - keep else e for e in proper]

    def _part_effects(self, part: c_ast.Node) -> list[Effect]:
        return [self.effect_of_ref(r) for r in statement_refs(part, self.scope.names, self.scope.types)]

    def sequence(self, items: list[c_ast.Node], local_decls: bool) -> Iterable[Effect]:
        acc: dict[tuple, Effect] = {}
        jumped = False
        decls = []
        for item in items:
            eff = self.cum(item)
            if jumped:
                eff = weaken(eff)
            acc = union(acc.values(), eff)
            if isinstance(item, c_ast.Decl):
                decls.append(item)
            if not jumped and not isinstance(item, (c_ast.Decl, c_ast.Pragma)) and escaping_jumps(item):
                jumped = True
        out = acc.values()
        if local_decls and decls:
            out = _drop_decls(out, decls)
        return out


def _drop_decls(effects: Iterable[Effect], decls: Iterable[c_ast.Node]) -> list[Effect]:
    """Effects not on the (non-static) variables ``decls`` declare; subscripts naming them become ``*``."""
    decls = [d for d in decls if isinstance(d, c_ast.Decl) and d.name]
    gone = {id(d) for d in decls if "static" not in (d.storage or [])}
    kept = [e for e in effects if id(e.decl) not in gone or e.decl is None]
    return generalize(kept, frozenset(d.name for d in decls))


def _conditional_nodes(stmt: c_ast.Node) -> set[int]:
    """Nodes evaluated only conditionally inside a statement's own expressions (``?:``, ``&&``, ``||``)."""
    out: set[int] = set()
    for part in proper_parts(stmt):
        for n in walk(part):
            if isinstance(n, c_ast.TernaryOp):
                for b in (n.iftrue, n.iffalse):
                    out.update(id(x) for x in walk(b))
            elif isinstance(n, c_ast.BinaryOp) and n.op in ("&&", "||"):
                out.update(id(x) for x in walk(n.right))
    return out


def runs_once(loop: c_ast.For) -> bool:
    """Whether a ``for (i = a; i < b; ...)`` loop provably runs at least one iteration."""
    init, cond = loop.init, loop.cond
    start = None
    var = None
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
        var, start = init.decls[0].name, int_value(simplify(init.decls[0].init))
    elif isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        var, start = init.lvalue.name, int_value(simplify(init.rvalue))
    if start is None or not isinstance(cond, c_ast.BinaryOp):
        return False
    if not (isinstance(cond.left, c_ast.ID) and cond.left.name == var):
        return False
    bound = int_value(simplify(cond.right))
    if bound is None:
        return False
    return {"<": start < bound, "<=": start <= bound, ">": start > bound,
            ">=": start >= bound, "!=": start != bound}.get(cond.op, False)


# ------------------------------------------------------------------ pointers


def _compute(module: Module) -> ModuleEffects:
    bottom_up(module, "summary_effects")
    fx = ModuleEffects(module)
    fx.run()
    return fx


def _format(effects: Iterable[Effect]) -> list[str]:
    groups: dict[tuple[str, str], list[str]] = {}
    for e in effects:
        groups.setdefault((e.approx, e.action), []).append(e.text)
    parts = []
    for approx, action in (("must", "read"), ("may", "read"), ("must", "write"), ("may", "write")):
        names = groups.get((approx, action))
        if names:
            verb = "read" if action == "read" else "written"
            parts.append(f"<{approx} be {verb}>: {' '.join(sorted(dict.fromkeys(names)))}")
    return parts


def format_effects(effects: Iterable[Effect]) -> str:
    """PIPS-style one-line text: ``<must be read>: i n  <may be written>: A[*]``."""
    return "  ".join(_format(effects))


def _display_map(module: Module, value: EffectsMap) -> dict:
    out = {}
    for node, effects in value.by_id.values():
        if effects:
            out[node] = _format(effects)
    return out


def _display_summary(module: Module, value: tuple[Effect, ...]) -> dict:
    return {module.ast: [f"summary effects of {module.name}:", *(_format(value) or ["(none)"])]}


@dataclass(frozen=True)
class EffectsTables:
    """Proper and cumulated effects of a function, computed together."""

    proper: EffectsMap
    cumulated: EffectsMap


@analysis(scope="module", provides="effects_tables", reads=["function_scope", "summary_effects", "unit_scope"])
def effects_tables(module: Module) -> EffectsTables:
    """Proper and cumulated effects of every statement of a function, in one walk."""
    fx = _compute(module)
    return EffectsTables(EffectsMap(MappingProxyType(fx.proper)), EffectsMap(MappingProxyType(fx.cumulated)))


@analysis(scope="module", provides="proper_effects", display=_display_map, reads=["effects_tables"])
def proper_effects(module: Module) -> EffectsMap:
    """Effects of each statement itself, calls translated from the callees' summaries.

    Before: ``a[i] = b[i] + f(&s);`` with ``void f(double *p) { *p += 1; }``
    After:  ``// <must be read>: b[i] i s  <must be written>: a[i] s``
    """
    return module.resource("effects_tables").proper


@analysis(scope="module", provides="cumulated_effects", display=_display_map, reads=["effects_tables"])
def cumulated_effects(module: Module) -> EffectsMap:
    """Effects of each statement with everything nested in it (loops generalised).

    Before: ``for (i = 0; i < n; i++) a[i] = 0;``
    After:  ``// <must be read>: n  <may be read>: i  <must be written>: i  <may be written>: a[*]``
    """
    return module.resource("effects_tables").cumulated


@analysis(scope="module", provides="summary_effects", display=_display_summary, reads=["cumulated_effects"])
def summary_effects(module: Module) -> tuple[Effect, ...]:
    """Effects of a function visible to its callers: globals, and through pointer/array formals.

    Before: ``void scale(double *v, int n, double s) { for (...) v[i] *= s; }``
    After:  ``// <may be read>: v[*]  <may be written>: v[*]``
    """
    cum = module.resource("cumulated_effects")
    body = module.ast.body
    out = []
    for e in cum.of(body):
        if e.kind in ("global", "anywhere"):
            out.append(e.replace(decl=None))
        elif e.kind == "formal" and e.pointee:
            out.append(e)
        elif e.kind == "static":
            out.append(e.replace(var=f"{module.name}:{e.var}", kind="global", decl=None))
    return freeze(union(out).values())


# ------------------------------------------------------------------ queries


def loop_effects(loop: Loop) -> tuple[Effect, ...]:
    """The cumulated effects of a loop (header and body, subscripts generalised)."""
    return loop.module.resource("cumulated_effects").of(loop.node)


def body_effects(module: Module, loop: c_ast.For) -> tuple[Effect, ...]:
    """The cumulated effects of one iteration of a loop's body (subscripts not generalised)."""
    return module.resource("cumulated_effects").of(loop.stmt)
