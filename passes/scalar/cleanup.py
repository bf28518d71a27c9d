"""Cleaning passes: dead code elimination, block flattening, loop-invariant code motion.

They work on what the syntax says about local scalars (:mod:`liveness`);
stores to globals and through pointers are kept (a store into a local array
goes when nothing reads it later, by the syntax or the OUT regions), calls
with side effects are never removed, and pragmas go with the statement they
apply to.
"""

from __future__ import annotations

from pycparser import c_ast

from passman import Loop, Module, PassFailed, PassmanError, transformation
from passman.astutil import find_all, replace_child, same_tree, walk
from passman.printer import to_c

from ..analysis.effects import runs_once
from ..analysis.liveness import Liveness, ScalarFacts, is_volatile, liveness
from ..analysis.references import statements
from ..cfacts.control import escaping_jumps, pragma_names
from ..cfacts.folding import int_value, simplify
from ..cfacts.names import fresh_name, names_in_scope, rename_declaration, statement_lists, where
from ..cfacts.sideeffects import calls, is_pure_call, variables, writes
from ..loops.counted import check_invariant_bounds, counted_loop
from ..loops.normalize import exit_value

#: OpenMP directives that stand alone (they do not apply to the next statement)
_STANDALONE = ("barrier", "flush", "taskwait", "taskyield", "threadprivate", "declare", "requires",
               "cancel", "cancellation", "depobj", "scan")  # fmt: skip


def applies_to_next(pragma: c_ast.Pragma) -> bool:
    """Whether a ``#pragma`` applies to the statement after it (``omp for``, ``GCC ivdep`` ...)."""
    words = pragma.string.split()
    if words[:1] == ["omp"]:
        return words[1:2] != [] and words[1] not in _STANDALONE
    return words[:1] not in (["GCC"],) or words[1:2] in (["ivdep"], ["unroll"])


def _effectful(fn: ScalarFacts, e: c_ast.Node) -> bool:
    """Whether evaluating ``e`` may change anything or read a ``volatile`` (pure calls do not)."""
    if any(not w.address for w in writes(e)):
        return True
    if any(not is_pure_call(c, fn.table, fn.module.ws) for c in calls(e)):
        return True
    return any(
        isinstance(n, c_ast.ID) and isinstance(fn.decl(n), c_ast.Decl) and is_volatile(fn.decl(n))
        for n in walk(e)
    )


def _single_bodies(root: c_ast.Node) -> list[tuple[c_ast.Node, c_ast.Node]]:
    """``(statement, body)`` for the bodies of loops and branches that are not blocks."""
    out = []
    for n in statements(root):
        for body in _bodies(n):
            if body is not None and not isinstance(body, (c_ast.Compound, c_ast.EmptyStatement)):
                out.append((n, body))
    return out


def _bodies(n: c_ast.Node) -> list[c_ast.Node | None]:
    if isinstance(n, c_ast.If):
        return [n.iftrue, n.iffalse]
    if isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile)):
        return [n.stmt]
    return []


def _statement_positions(root: c_ast.Node) -> list[c_ast.Node]:
    """Every statement in a block or as the body of a loop or branch."""
    out = [item for items in statement_lists(root) for item in items]
    return out + [body for _, body in _single_bodies(root)]


def _is_empty(s: c_ast.Node | None) -> bool:
    return s is None or isinstance(s, c_ast.EmptyStatement) or (
        isinstance(s, c_ast.Compound) and not s.block_items
    )


# ------------------------------------------------------------------ dead code elimination


class _Dce:
    """One round of dead code elimination over a function."""

    def __init__(self, module: Module):
        self.module = module
        self.fn = ScalarFacts(module)
        self.live: Liveness = liveness(self.fn.func, self.fn.table, self.fn.env)
        self.targets = {g.name for g in find_all(self.fn.func, c_ast.Goto)}
        self.auto = module.ws.generated_labels
        self.removed = 0
        self.out = None  # the OUT regions, computed when a store needs them
        self.write_only = self._write_only_arrays()

    # -- what may stay -----------------------------------------------------------------
    def entry(self, item: c_ast.Node) -> bool:
        """Whether control may enter ``item`` other than from the statement before it."""
        if isinstance(item, (c_ast.Case, c_ast.Default)):
            return True
        if any(isinstance(n, c_ast.Label) and n.name in self.targets for n in walk(item)):
            return True
        return any(isinstance(j, (c_ast.Case, c_ast.Default)) for j in escaping_jumps(item))

    def _write_only_arrays(self) -> set[int]:
        """Local arrays only ever stored into (``a[i] = e;`` statements), by ``id(decl)``."""
        fn = self.fn
        stores: dict[int, int] = {}
        ok_bases: set[int] = set()
        for item in _statement_positions(fn.func.body):
            if isinstance(item, c_ast.Assignment) and item.op == "=" and isinstance(item.lvalue, c_ast.ArrayRef):
                base = item.lvalue
                while isinstance(base, c_ast.ArrayRef):
                    base = base.name
                if isinstance(base, c_ast.ID):
                    ok_bases.add(id(base))
        for n in walk(fn.func.body):
            if isinstance(n, c_ast.ID):
                d = fn.decl(n)
                if isinstance(d, c_ast.Decl):
                    stores.setdefault(id(d), 0)
                    if id(n) not in ok_bases:
                        stores[id(d)] = -1
        in_body = {id(d) for d in walk(fn.func.body) if isinstance(d, c_ast.Decl)}
        self.local_arrays = {
            id(d) for d in fn.table.decls
            if isinstance(d, c_ast.Decl) and id(d) in in_body and fn.env.category(d.type) == "array"
            and not is_volatile(d) and not set(d.storage or []) & {"static", "extern"}
        }  # fmt: skip
        return {k for k in self.local_arrays if stores.get(k, -1) > -1}

    # -- one statement -------------------------------------------------------------------
    def dead(self, item: c_ast.Node) -> list[c_ast.Node] | None:
        """What replaces a useless ``item`` ([] to remove it), or None to keep it."""
        fn = self.fn
        match item:
            case c_ast.EmptyStatement():
                return []
            case c_ast.Compound() if not item.block_items:
                return []
            case c_ast.Assignment():
                return self._assignment(item)
            case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--") if isinstance(item.expr, c_ast.ID):
                d = fn.decl(item.expr)
                if id(d) in fn.tracked and not self.live.live_after(item, d):
                    return []
                return None
            case c_ast.Decl():
                if (id(item) in fn.tracked and item.init is not None and not self.live.live_after(item, item)
                        and not _effectful(fn, item.init)):
                    item.init = None
                    self.removed += 1
                return None
            case c_ast.If():
                return self._if(item)
            case c_ast.Label() if isinstance(item.stmt, c_ast.For) and item.name not in self.targets:
                return self._empty_loop(item)
            case c_ast.FuncCall() | c_ast.BinaryOp() | c_ast.UnaryOp() | c_ast.ID() | c_ast.Constant() \
                    | c_ast.Cast() | c_ast.ArrayRef() | c_ast.StructRef() | c_ast.TernaryOp() | c_ast.ExprList():
                return None if _effectful(fn, item) else []
        return None

    def _assignment(self, item: c_ast.Assignment) -> list[c_ast.Node] | None:
        fn = self.fn
        lv, rv = item.lvalue, item.rvalue
        if item.op == "=" and same_tree(lv, rv) and not _effectful(fn, lv):
            return []
        if isinstance(lv, c_ast.ID):
            d = fn.decl(lv)
            if id(d) not in fn.tracked or self.live.live_after(item, d):
                return None
        elif isinstance(lv, c_ast.ArrayRef) and item.op == "=":
            base = lv
            while isinstance(base, c_ast.ArrayRef):
                base = base.name
            if _effectful(fn, lv) or not isinstance(base, c_ast.ID):
                return None
            if id(fn.decl(base)) not in self.write_only and not self._unexported(item, base):
                return None
        else:
            return None
        if not _effectful(fn, rv):
            return []
        if isinstance(rv, (c_ast.FuncCall, c_ast.Assignment)) or (
            isinstance(rv, c_ast.UnaryOp) and rv.op in ("++", "--", "p++", "p--")
        ):
            return [rv]
        return None

    def _unexported(self, item: c_ast.Node, base: c_ast.ID) -> bool:
        """Whether the OUT regions say no element ``item`` stores into local array ``base`` is read later."""
        d = self.fn.decl(base)
        if id(d) not in self.local_arrays:
            return False
        if self.out is None:
            self.out = False
            if self.module.ws.registry.producers.get("out_regions"):
                try:
                    self.out = self.module.resource("out_regions")
                except PassmanError:
                    self.out = False
        if not self.out or id(item) not in self.out.table:
            return False
        return not any(r.var == base.name for r in self.out.table[id(item)][1])

    def _if(self, item: c_ast.If) -> list[c_ast.Node] | None:
        fn = self.fn
        then_empty, else_empty = _is_empty(item.iftrue), _is_empty(item.iffalse)
        if then_empty and else_empty:
            if self.entry(item):
                return None
            return [item.cond] if _effectful(fn, item.cond) else []
        if item.iffalse is not None and else_empty and not self.entry(item.iffalse):
            item.iffalse = None
            self.removed += 1
        elif then_empty and not self.entry(item.iftrue) and not isinstance(item.iftrue, type(None)):
            cond = item.cond
            neg = cond.expr if isinstance(cond, c_ast.UnaryOp) and cond.op == "!" else c_ast.UnaryOp("!", cond)
            item.cond, item.iftrue, item.iffalse = neg, item.iffalse, None
            self.removed += 1
        return None

    def _empty_loop(self, item: c_ast.Label) -> list[c_ast.Node] | None:
        f = item.stmt
        if not _is_empty(f.stmt):
            return None
        try:
            cl = counted_loop(Loop(self.module, item.name), "cannot remove")
            check_invariant_bounds(cl, "cannot remove")
        except PassFailed:
            return None
        if any(_effectful(self.fn, p) for p in (cl.lb, cl.ub_source)):
            return None
        if cl.index_decl is None:
            decl = self.fn.decl(cl.index_ref)
            if self.live.live_after(item, decl):
                return [c_ast.Assignment("=", c_ast.ID(cl.index), exit_value(cl), f.coord)]
        return []

    # -- the lists ---------------------------------------------------------------------
    def run(self) -> int:
        for items in statement_lists(self.fn.func.body):
            self.sweep(items)
        for holder, body in _single_bodies(self.fn.func.body):
            new = self.dead(body)
            if new is not None and len(new) <= 1:
                replace_child(holder, body, new[0] if new else c_ast.EmptyStatement(body.coord))
                self.removed += 1
        self.unused_declarations()
        return self.removed

    def sweep(self, items: list[c_ast.Node]) -> None:
        out: list[c_ast.Node] = []
        unreachable = False
        for item in items:
            if unreachable:
                if self.entry(item):
                    unreachable = False
                elif not isinstance(item, (c_ast.Decl, c_ast.Typedef, c_ast.DeclList, c_ast.StaticAssert)):
                    self._drop_pragmas(out)
                    self.removed += 1
                    continue
            new = self.dead(item)
            if new is None:
                out.append(item)
            else:
                if not new:
                    self._drop_pragmas(out)
                out.extend(new)
                self.removed += 1
            if isinstance(item, (c_ast.Return, c_ast.Break, c_ast.Continue, c_ast.Goto)):
                unreachable = True
        items[:] = out

    @staticmethod
    def _drop_pragmas(out: list[c_ast.Node]) -> None:
        while out and isinstance(out[-1], c_ast.Pragma) and applies_to_next(out[-1]):
            out.pop()

    def unused_declarations(self) -> None:
        fn = self.fn
        fn.refresh()
        used = {id(fn.decl(n)) for n in walk(fn.func) if isinstance(n, c_ast.ID)}
        named = set().union(*(pragma_names(p) for p in walk(fn.func) if isinstance(p, c_ast.Pragma)))
        for items in statement_lists(fn.func.body):
            keep = []
            for item in items:
                if (isinstance(item, c_ast.Decl) and item.name and id(item) not in used
                        and item.name not in named  # a pragma's clause may read it
                        and fn.table.is_local(item) and "extern" not in (item.storage or [])
                        and fn.env.category(item.type) != "function" and not is_volatile(item)
                        and not any(getattr(n, "decls", None) is not None or getattr(n, "values", None) is not None
                                    for n in walk(item.type))
                        and not (item.init is not None and _effectful(fn, item.init))
                        and not _effectful(fn, item.type)):
                    self.removed += 1
                    continue
                keep.append(item)
            items[:] = keep


@transformation(scope="module", reads=["in_region_analysis", "out_regions", "preconditions", "unit_scope"])
def dead_code_elimination(module: Module) -> None:
    """Remove statements whose results are never used, and code that cannot run.

    Before::

        int f(int n)
        {
            int t, u = 3;
            t = n * 2;
            u = t + 1;
            return t;
            n = 0;
        }

    After::

        int f(int n)
        {
            int t;
            t = n * 2;
            return t;
        }

    Removed, until nothing changes: assignments (and ``++``/``--``) to a
    tracked local scalar dead after them (a call with side effects in the
    value stays, as a statement); initialisers of dead declarations;
    expression statements without side effects (pure library calls
    included); ``x = x;``; stores into a local array that is never read, or
    whose elements the OUT regions (``out_regions``) show nobody reads later;
    statements after ``return``, ``break``, ``continue`` or ``goto`` up to
    the next label a ``goto`` or a ``case`` can reach; empty statements and
    blocks; empty branches of ``if`` (the whole ``if`` when its condition
    has no side effect); counted ``for`` loops with an empty body (replaced
    by the exit value of their index when it is read afterwards); local
    declarations no longer referenced. Stores to globals, to parameters'
    arrays and through pointers are kept (they outlive the call or may
    alias). ``#pragma`` lines applying to a removed statement go with it.
    Refused when nothing is removed.
    """
    total = 0
    for _ in range(1000):
        n = _Dce(module).run()
        total += n
        if not n:
            break
    if not total:
        raise PassFailed(f"{where(module.ast)}: dead_code_elimination: nothing to remove in {module.name}")


# ------------------------------------------------------------------ flatten_code


def _statement_compounds(func: c_ast.FuncDef) -> list[c_ast.Compound]:
    return [s for s in statements(func) if isinstance(s, c_ast.Compound) and s is not func.body]


def _omp_regions(func: c_ast.FuncDef) -> set[int]:
    """Nodes inside a statement an OpenMP directive applies to (their declarations are private)."""
    out: set[int] = set()
    for items in statement_lists(func.body):
        for k, item in enumerate(items[:-1]):
            if isinstance(item, c_ast.Pragma) and item.string.split()[:1] == ["omp"] and applies_to_next(item):
                nxt = next((n for n in items[k + 1:] if not isinstance(n, c_ast.Pragma)), None)
                if nxt is not None:
                    out.update(id(n) for n in walk(nxt))
    return out


class _Flattener:
    def __init__(self, module: Module):
        self.module = module
        self.fn = ScalarFacts(module)
        self.func = self.fn.func
        self.reasons: list[str] = []
        self.local_types = self._local_types()
        args = self.func.decl.type.args
        self.params = {id(p) for p in (args.params if args else []) if isinstance(p, c_ast.Decl)}
        self.assigned = {id(self.fn.decl(w.base)) for w in writes(self.func) if w.base is not None}

    def _local_types(self) -> set[str]:
        out = set()
        for n in walk(self.func.body):
            if isinstance(n, c_ast.Typedef):
                out.add(n.name)
            elif isinstance(n, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and n.name and (
                getattr(n, "decls", None) is not None or getattr(n, "values", None) is not None
            ):
                out.add(n.name)
        return out

    def movable(self, d: c_ast.Node) -> bool:
        """Whether declaration ``d`` can move to the top of the function."""
        fn = self.fn
        if not isinstance(d, c_ast.Decl) or not d.name or fn.env.category(d.type) == "function":
            self.reasons.append(f"{where(d)}: {to_c(d) if not isinstance(d, c_ast.Decl) else d.name} "
                                "is not a variable declaration")
            return False
        static = "static" in (d.storage or []) or "extern" in (d.storage or [])
        for n in walk(d.type):
            if isinstance(n, c_ast.IdentifierType) and set(n.names) & self.local_types:
                self.reasons.append(f"{where(d)}: the type of {d.name} is declared inside the function")
                return False
            if isinstance(n, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and (
                n.name in self.local_types or getattr(n, "decls", None) is not None
                or getattr(n, "values", None) is not None
            ):
                self.reasons.append(f"{where(d)}: the type of {d.name} is defined inside the function")
                return False
            if isinstance(n, c_ast.ArrayDecl) and n.dim is not None and int_value(simplify(n.dim)) is None:
                for v in variables(n.dim):
                    vd = fn.decl(v)
                    if isinstance(vd, c_ast.Enumerator):
                        continue
                    if id(vd) not in self.params or id(vd) in self.assigned or bool(calls(n.dim)):
                        self.reasons.append(f"{where(d)}: the size of variable-length array {d.name} "
                                            "is computed inside the block")
                        return False
        if d.init is not None and not static and (
            isinstance(d.init, c_ast.InitList) or fn.env.category(d.type) == "array"
        ):
            self.reasons.append(f"{where(d)}: {d.name} has an initializer that cannot become an assignment")
            return False
        return True

    def _lhs(self, d: c_ast.Decl) -> c_ast.ID:
        """A new reference to ``d`` (renamed with it)."""
        ident = c_ast.ID(d.name, d.coord)
        self.lhs.setdefault(id(d), []).append(ident)
        return ident

    def run(self) -> int:
        func, fn = self.func, self.fn
        self.lhs: dict[int, list[c_ast.ID]] = {}
        omp = _omp_regions(func)
        moved: list[c_ast.Decl] = []
        changes = 0
        scopes = []
        for s in statements(func):
            if id(s) in omp:
                continue
            if isinstance(s, c_ast.Compound) and s is not func.body:
                scopes.append(s)
            elif isinstance(s, c_ast.For) and isinstance(s.init, c_ast.DeclList):
                scopes.append(s)
        # names: every declaration of the function, and every name in it or at file scope
        taken = names_in_scope(func, self.module.cu.ast.ext)
        names_of: dict[str, list[object]] = {}
        for d in fn.table.decls:
            if getattr(d, "name", None):
                names_of.setdefault(d.name, []).append(d)
        bound: dict[str, set[int]] = {}
        for n in walk(func):
            if isinstance(n, c_ast.ID):
                bound.setdefault(n.name, set()).add(id(fn.decl(n)))
            elif isinstance(n, c_ast.IdentifierType):  # a type name the variable would hide
                for t in n.names:
                    bound.setdefault(t, set()).add(-1)
        for scope in scopes:
            if isinstance(scope, c_ast.For):
                decls = scope.init.decls
                if not all(self.movable(d) for d in decls) or any(
                    d.init is not None and "static" in (d.storage or []) for d in decls
                ):
                    continue
                assigns = [c_ast.Assignment("=", self._lhs(d), d.init, d.coord) for d in decls
                           if d.init is not None]
                for d in decls:
                    d.init = None
                    moved.append(d)
                scope.init = (None if not assigns else assigns[0] if len(assigns) == 1
                              else c_ast.ExprList(assigns, scope.coord))
                changes += 1
                continue
            items = scope.block_items or []
            new_items = []
            for item in items:
                if isinstance(item, c_ast.Decl) and self.movable(item):
                    moved.append(item)
                    changes += 1
                    static = set(item.storage or []) & {"static", "extern"}
                    if item.init is not None and not static:
                        new_items.append(c_ast.Assignment("=", self._lhs(item), item.init, item.coord))
                        item.init = None
                        _drop_const(item)
                else:
                    new_items.append(item)
            scope.block_items = new_items
        moved_ids = {id(d) for d in moved}
        claimed: set[int] = set()  # moved declarations that keep their name

        def clashes(k: int) -> bool:
            return k != id(d) and (k not in moved_ids or k in claimed)

        for d in moved:
            others = [o for o in names_of.get(d.name, []) if clashes(id(o))]
            foreign = [k for k in bound.get(d.name, set()) if clashes(k)]
            if not others and not foreign:
                claimed.add(id(d))
            else:
                new = fresh_name(d.name, taken)
                for n in walk(func):
                    if isinstance(n, c_ast.ID) and fn.decl(n) is d:
                        n.name = new
                for n in self.lhs.get(id(d), []):
                    n.name = new
                rename_declaration(d, new)
        top = func.body.block_items if func.body.block_items is not None else []
        pos = 0
        while pos < len(top) and isinstance(top[pos], (c_ast.Decl, c_ast.Typedef)):
            pos += 1
        top[pos:pos] = moved
        func.body.block_items = top
        changes += self._unbrace()
        return changes

    def _unbrace(self) -> int:
        """Remove the braces of blocks (items of other blocks) holding no declaration."""
        done = 0
        for items in statement_lists(self.func.body):
            k = 0
            while k < len(items):
                item = items[k]
                prev = items[k - 1] if k else None
                if (isinstance(item, c_ast.Compound)
                        and not any(isinstance(s, (c_ast.Decl, c_ast.Typedef, c_ast.DeclList, c_ast.StaticAssert))
                                    for s in item.block_items or [])
                        and not (isinstance(prev, c_ast.Pragma) and applies_to_next(prev))):
                    items[k:k + 1] = list(item.block_items or [])
                    done += 1
                    continue
                k += 1
        return done


def _drop_const(d: c_ast.Decl) -> None:
    d.quals = [q for q in d.quals or [] if q != "const"]
    t = d.type
    if isinstance(t, (c_ast.TypeDecl, c_ast.PtrDecl)):
        t.quals = [q for q in t.quals or [] if q != "const"]


@transformation(scope="module", preserves=["callgraph"], reads=["unit_scope"])
def flatten_code(module: Module) -> None:
    """Move the declarations of nested blocks to the top of the function and drop the braces left.

    Before::

        void f(int n, double *a)
        {
            int i;
            for (i = 0; i < n; i++) {
                double t = a[i] * 2;
                a[i] = t * t;
            }
            {
                int i = 3;
                a[i] = 0;
            }
        }

    After::

        void f(int n, double *a)
        {
            int i;
            double t;
            int i_1;
            for (i = 0; i < n; i++) {
                t = a[i] * 2;
                a[i] = t * t;
            }
            i_1 = 3;
            a[i_1] = 0;
        }

    Declarations of nested blocks and of ``for`` initialisations move, in
    source order, after the declarations at the top of the function; their
    initialisers stay in place as assignments (``static`` ones keep their
    initialiser and storage; ``const`` is dropped where an assignment
    replaces the initialiser). A moved variable whose name is declared or
    used elsewhere in the function is renamed (``i_1``). Blocks that are
    statements of other blocks and no longer declare anything lose their
    braces (loop and branch bodies keep theirs).

    Left in place, with the reason given when nothing at all can be done:
    variable-length arrays whose size is computed in the function (not a
    constant nor an unmodified parameter), arrays and structures with an
    initialiser list, types declared inside the function, and declarations
    inside statements an OpenMP directive applies to (they are private there).
    """
    flat = _Flattener(module)
    if not flat.run():
        why = f": {flat.reasons[0]}" if flat.reasons else ""
        raise PassFailed(f"{where(module.ast)}: flatten_code: nothing to flatten in {module.name}{why}")


# ------------------------------------------------------------------ invariant code motion


def _trapping(e: c_ast.Node) -> bool:
    """Whether evaluating ``e`` may trap: memory reads, calls, integer division by a non-constant."""
    for n in walk(e):
        if isinstance(n, (c_ast.ArrayRef, c_ast.FuncCall)) or (
            isinstance(n, c_ast.UnaryOp) and n.op == "*"
        ) or (isinstance(n, c_ast.StructRef) and n.type == "->"):
            return True
        if isinstance(n, c_ast.BinaryOp) and n.op in ("/", "%"):
            d = int_value(simplify(n.right))
            if not d:
                return True
    return False


class _Hoister:
    def __init__(self, loop: Loop):
        self.loop = loop
        self.module = loop.module
        self.hoisted: list[c_ast.Node] = []
        self.reasons: list[str] = []

    def facts(self) -> None:
        self.fn = ScalarFacts(self.module)
        self.f = self.loop.node
        self.live = liveness(self.fn.func, self.fn.table, self.fn.env)
        self.inside = {id(n) for n in walk(self.f)}
        self.writes = writes(self.f)
        self.impure = [c for c in calls(self.f) if not is_pure_call(c, self.fn.table, self.module.ws)]
        cl = None
        try:
            cl = counted_loop(self.loop, "no trip count")
        except PassFailed:
            pass
        trips = cl.trip_count() if cl is not None else None
        self.runs = bool(trips) or runs_once(self.f)

    def items(self) -> list[c_ast.Node]:
        body = self.f.stmt
        return body.block_items or [] if isinstance(body, c_ast.Compound) else [body]

    def invariant(self, e: c_ast.Node) -> str | None:
        """None when ``e`` has the same value at every iteration; else why not."""
        fn = self.fn
        for v in variables(e):
            d = fn.decl(v)
            if not isinstance(d, c_ast.Decl):
                continue
            if id(d) in self.inside:
                return f"{v.name} is declared in the loop"
            if fn.env.category(d.type) == "function":
                continue
            for w in self.writes:
                if w.base is not None and fn.decl(w.base) is d and w.kind != "deref":
                    return f"{v.name} is written in the loop (line {w.node.coord.line})"
            if id(d) not in fn.tracked and fn.env.category(d.type) != "array":
                if self.impure:
                    return f"{v.name} may be written by the call to {to_c(self.impure[0].name)}"
                if any(w.kind == "deref" for w in self.writes):
                    return f"{v.name} may be written through a pointer in the loop"
        memory = [n for n in walk(e) if isinstance(n, (c_ast.ArrayRef, c_ast.StructRef))
                  or (isinstance(n, c_ast.UnaryOp) and n.op == "*")]
        if memory:
            if self.impure:
                return f"the call to {to_c(self.impure[0].name)} may write the memory it reads"
            if any(w.kind != "whole" and (w.base is None or id(fn.decl(w.base)) not in fn.tracked)
                   for w in self.writes):
                return "the loop writes memory it may read"
        return None

    def candidate(self, pos: int, item: c_ast.Node, items: list[c_ast.Node]) -> bool:
        fn = self.fn
        if isinstance(item, c_ast.Assignment) and item.op == "=" and isinstance(item.lvalue, c_ast.ID):
            t, e, decl_item = fn.decl(item.lvalue), item.rvalue, False
        elif (isinstance(item, c_ast.Decl) and item.init is not None and not isinstance(item.init, c_ast.InitList)
              and id(item) in fn.tracked):
            t, e, decl_item = item, item.init, True
        else:
            return False
        if id(t) not in fn.tracked:
            return False
        name = t.name
        why = None
        count = sum(1 for w in self.writes if w.base is not None and fn.decl(w.base) is t)
        if count != (0 if decl_item else 1):
            why = f"{name} is written more than once in the loop"
        elif any(name in pragma_names(p) for p in self.loop.pragma):
            why = f"{name} is named in the loop's pragma"
        elif not decl_item and id(t) in self.inside:
            why = f"{name} is declared in the loop"
        elif _effectful(fn, e) or any(not is_pure_call(c, fn.table, self.module.ws) for c in calls(e)):
            why = "it has side effects"
        else:
            why = self.invariant(e)
        if why is None and not decl_item:
            uses_head = any(fn.decl(v) is t for p in (self.f.init, self.f.cond, self.f.next) if p is not None
                            for v in variables(p))
            if uses_head or self.live.live_before(self.f.stmt, t):
                why = f"{name} may be read before it is assigned in an iteration"
        early = any(escaping_jumps(x) or isinstance(x, (c_ast.Break, c_ast.Continue, c_ast.Return, c_ast.Goto))
                    for x in items[:pos])
        executed = self.runs and not early
        if why is None and not executed and _trapping(e):
            why = "the loop may run no iteration and the expression may trap"
        if why is None and not decl_item and not executed and self.live.live_after(self.loop.site.labelled, t):
            why = f"{name} is read after the loop, which may run no iteration"
        if why is None and decl_item:
            func = fn.func
            clash = [d for d in fn.table.decls if getattr(d, "name", None) == name and d is not t]
            foreign = [n for n in walk(func) if isinstance(n, c_ast.ID) and n.name == name and fn.decl(n) is not t]
            if clash or foreign:
                why = f"another variable is named {name}"
        if why is not None:
            self.reasons.append(f"{where(item)}: {to_c(item) if not decl_item else name}: {why}")
            return False
        return True

    def run(self) -> int:
        while True:
            self.facts()
            items = self.items()
            for pos, item in enumerate(items):
                if self.candidate(pos, item, items):
                    break
            else:
                return len(self.hoisted)
            if isinstance(self.f.stmt, c_ast.Compound):
                self.f.stmt.block_items.remove(item)
            else:
                self.f.stmt = c_ast.Compound([], self.f.stmt.coord)
            site = self.loop.site
            parent_items = getattr(site.parent, "block_items", None)
            if parent_items is None:
                block = c_ast.Compound([item, site.labelled], site.labelled.coord)
                replace_child(site.parent, site.labelled, block)
            else:
                k = next(i for i, n in enumerate(parent_items) if n is site.labelled)
                while k > 0 and isinstance(parent_items[k - 1], c_ast.Pragma) and applies_to_next(parent_items[k - 1]):
                    k -= 1
                parent_items.insert(k, item)
            self.hoisted.append(item)
            self.reasons.clear()


@transformation(scope="loop", preserves=["callgraph"], reads=["unit_scope"])
def invariant_code_motion(loop: Loop) -> None:
    """Hoist loop-invariant scalar computations out of a loop.

    Before::

        for (i = 0; i < n; i++) {
            t = alpha * beta;
            double s = t + 1.0;
            a[i] = a[i] * s;
        }

    After::

        t = alpha * beta;
        double s = t + 1.0;
        for (i = 0; i < n; i++) {
            a[i] = a[i] * s;
        }

    A statement ``t = e;`` (or a declaration ``T t = e;``) among the
    top-level statements of the body moves before the loop, in order, when
    ``t`` is a tracked local written nowhere else in the loop and not read
    before it in an iteration, ``e`` has no side effect, reads no variable
    written in the loop (nor memory the loop may write, through stores,
    pointers or calls), and either the loop surely runs its first iteration
    up to the statement, or ``e`` cannot trap (no memory read, no call, no
    integer division but by a nonzero constant) and ``t`` is dead after the
    loop. A moved declaration must not clash with another variable's name.
    Repeated until nothing moves; refused, with the first reason, when
    nothing does.
    """
    h = _Hoister(loop)
    if not h.run():
        why = f": {h.reasons[0]}" if h.reasons else ""
        raise PassFailed(f"{where(loop.node)}: loop {loop.label} of {loop.module.name}: no invariant scalar "
                         f"computation to hoist{why}")

