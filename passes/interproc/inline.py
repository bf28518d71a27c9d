"""Interprocedural transformations: inlining a function into its callers, cloning (specialising) it."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
from pycparser import c_ast

from passman import InvalidInput, Module, PassFailed, transformation
from passman.astutil import (
    copy_node,
    find_all,
    parent_map,
    replace_child,
    same_tree,
    strip_labels,
    transform,
    walk,
)

from ..analysis.liveness import tracked_scalars
from ..cfacts.folding import int_value, simplify
from ..cfacts.names import (
    NameTable,
    file_scope,
    fresh_name,
    names_in_scope,
    rename_declaration,
    resolve_names,
    unevaluated,
    where,
)
from ..cfacts.sideeffects import has_side_effects, writes
from ..cfacts.types import TypeEnv, arith_type, expr_arith_type
from ..scalar.cleanup import applies_to_next
from .outline import check_new_function_name


def params_of(fd: c_ast.FuncDef) -> list[c_ast.Decl]:
    """The parameter declarations of a function (none for ``f(void)``)."""
    args = fd.decl.type.args
    return [p for p in (args.params if args else []) if isinstance(p, c_ast.Decl) and p.name]


def _is_variadic(fd: c_ast.FuncDef) -> bool:
    args = fd.decl.type.args
    return any(isinstance(p, c_ast.EllipsisParam) for p in (args.params if args else []))


def _return_type(fd: c_ast.FuncDef, name: str | None) -> c_ast.Node:
    t = copy_node(fd.decl.type.type)
    inner = t
    while not isinstance(inner, c_ast.TypeDecl):
        inner = inner.type
    inner.declname = name
    return t


def _is_void(t: c_ast.Node) -> bool:
    return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and t.type.names == ["void"]


def _decayed(t: c_ast.Node) -> c_ast.Node:
    """The type a parameter declared with type ``t`` has: arrays and functions become pointers."""
    if isinstance(t, c_ast.ArrayDecl):
        return c_ast.PtrDecl(list(t.dim_quals or []), t.type)
    if isinstance(t, c_ast.FuncDecl):
        return c_ast.PtrDecl([], t)
    return t


def _fresh_labels(ws, module: Module, root: c_ast.Node, taken: set[str]) -> None:
    """New generated labels for copied loops; user labels (and their gotos) renamed apart from ``taken``."""
    auto = ws.generated_labels
    renames: dict[str, str] = {}
    for lab in find_all(root, c_ast.Label):
        if lab.name in auto:
            lab.name = module.new_label()
        else:
            new = fresh_name(lab.name, taken)
            renames[lab.name] = new
            lab.name = new
    for g in find_all(root, c_ast.Goto):
        g.name = renames.get(g.name, g.name)


def _static_locals(fd: c_ast.FuncDef) -> list[c_ast.Decl]:
    return [d for d in find_all(fd.body, c_ast.Decl) if "static" in (d.storage or [])]


def _type_names(root: c_ast.Node) -> tuple[set[str], set[str]]:
    """Typedef-like identifier-type names and struct/union/enum tags used under ``root``."""
    names, tags = set(), set()
    for n in walk(root):
        if isinstance(n, c_ast.IdentifierType):
            names.update(n.names)
        elif isinstance(n, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and n.name:
            tags.add(n.name)
    return names, tags


def _visible_before(cu, node: c_ast.Node) -> tuple[dict[str, c_ast.Node], set[str]]:
    """File-scope names and tags declared in ``cu`` before top-level ``node``."""
    ext = cu.ast.ext
    k = next(i for i, n in enumerate(ext) if n is node)
    names = file_scope(ext[:k])
    _, tags = _type_names(c_ast.FileAST(ext[:k]))
    return names, tags


# ------------------------------------------------------------------ inlining


@dataclass
class _Site:
    """Where a call sits: the statement to insert before, and how."""

    call: c_ast.FuncCall
    anchor: c_ast.Node  # the statement holding the call (what the inlined code comes before)
    holder: c_ast.Node  # the node whose list or field holds the anchor


def _refuse_site(caller: Module, call: c_ast.FuncCall, what: str) -> PassFailed:
    return PassFailed(f"{where(call)}: cannot inline the call to {call.name.name} in {caller.name}: {what}")


def _find_site(caller: Module, call: c_ast.FuncCall, parents: dict[int, c_ast.Node], goto_targets: set[str]) -> _Site:
    """The statement before which the call can be evaluated, or a refusal."""
    node: c_ast.Node = call
    skip = unevaluated(caller.ast)
    if id(call) in skip:
        raise _refuse_site(caller, call, "it is under sizeof (never evaluated)")
    while True:
        parent = parents[id(node)]
        match parent:
            case c_ast.BinaryOp(op="&&" | "||") if node is parent.right:
                raise _refuse_site(caller, call, f"it is evaluated only if the left side of '{parent.op}' allows")
            case c_ast.TernaryOp() if node is not parent.cond:
                raise _refuse_site(caller, call, "it is a branch of '?:', evaluated conditionally")
            case c_ast.ExprList() if not isinstance(parents.get(id(parent)), c_ast.FuncCall) and (
                node is not parent.exprs[0]
            ):
                raise _refuse_site(caller, call, "it follows a comma operator whose left side must run first")
            case c_ast.For() if node is parent.cond or node is parent.next:
                raise _refuse_site(caller, call, "it is in a loop condition or increment")
            case c_ast.While() | c_ast.DoWhile() if node is parent.cond:
                raise _refuse_site(caller, call, "it is in a loop condition")
            case c_ast.Compound() | c_ast.Case() | c_ast.Default():
                return _Site(call, node, parent)
            case c_ast.If() if node is parent.iftrue or node is parent.iffalse:
                return _Site(call, node, parent)
            case c_ast.Switch() | c_ast.For() | c_ast.While() | c_ast.DoWhile() if node is parent.stmt:
                return _Site(call, node, parent)
            case c_ast.Label():
                if isinstance(node, c_ast.For):  # a loop: insert before its label, unless a goto targets it
                    if parent.name in goto_targets:
                        raise _refuse_site(caller, call, f"loop label {parent.name} is the target of a goto")
                    node = parent
                    continue
                return _Site(call, node, parent)
            case c_ast.FuncDef():
                raise _refuse_site(caller, call, "it is not inside a statement")
        node = parent


class _Inliner:
    """Inline one callee into call sites, one at a time."""

    def __init__(self, callee: Module):
        self.callee = callee
        self.ws = callee.ws
        fd = callee.ast
        self.fd = fd
        self.name = callee.name
        self.params = params_of(fd)
        self.returns_void = _is_void(fd.decl.type.type)
        ctable = resolve_names(fd, file_scope(callee.cu.ast.ext))
        self.free = {}
        for n in walk(fd):
            if isinstance(n, c_ast.ID):
                d = ctable.decl_of(n)
                if not ctable.is_local(d) and n.name != self.name:
                    self.free[n.name] = d
        self.type_names, self.tags = _type_names(fd)
        for d in find_all(fd.body, c_ast.Decl):
            if d.name:
                self.type_names.discard(d.name)
        local_types = {t.name for t in find_all(fd.body, c_ast.Typedef)}
        local_tags = {s.name for s in find_all(fd.body, (c_ast.Struct, c_ast.Union, c_ast.Enum))
                      if s.name and (getattr(s, "decls", None) is not None or getattr(s, "values", None) is not None)}
        self.type_names -= local_types | _BUILTIN_TYPES
        self.tags -= local_tags
        self.vla = any(
            isinstance(t, c_ast.ArrayDecl) and t.dim is not None and int_value(simplify(t.dim)) is None
            for d in find_all(fd.body, c_ast.Decl) for t in walk(d.type)
        )

    def check_callee(self) -> None:
        fd, name = self.fd, self.name
        if fd.param_decls:
            raise PassFailed(f"{where(fd)}: cannot inline {name}: old-style (K&R) parameter declarations")
        if _is_variadic(fd):
            raise PassFailed(f"{where(fd)}: cannot inline {name}: it is variadic")
        g = self.ws.resource("callgraph")
        if g.has_edge(name, name) or any(nx.has_path(g, c, name) for c in g.successors(name)):
            raise PassFailed(f"{where(fd)}: cannot inline {name}: it is recursive")
        for d in _static_locals(fd):
            raise PassFailed(f"{where(d)}: cannot inline {name}: static variable {d.name} would be duplicated")
        if self.name == "main":
            raise PassFailed(f"{where(fd)}: cannot inline main")

    def check_caller(self, caller: Module, table: NameTable) -> None:
        """Refuse a caller where the callee's globals or types would mean something else."""
        cu = caller.cu
        names, tags = _visible_before(cu, caller.ast)
        other_unit = cu is not self.callee.cu and cu.name != self.callee.cu.name
        for n, d in sorted(self.free.items()):
            if n not in names:
                raise PassFailed(f"{where(caller.ast)}: cannot inline {self.name} into {caller.name}: "
                                 f"{n} is not declared before {caller.name}")
            if other_unit and isinstance(d, c_ast.Decl) and "static" in (d.storage or []):
                raise PassFailed(f"{where(caller.ast)}: cannot inline {self.name} into {caller.name}: "
                                 f"{n} is static in {self.callee.cu.filename}")
            for local in table.decls:
                if getattr(local, "name", None) == n and table.is_local(local):
                    raise PassFailed(f"{where(local)}: cannot inline {self.name} into {caller.name}: "
                                     f"local {n} of {caller.name} hides the global {n} that {self.name} uses")
        for n in sorted(self.type_names):
            if n not in names:
                raise PassFailed(f"{where(caller.ast)}: cannot inline {self.name} into {caller.name}: "
                                 f"type {n} is not declared before {caller.name}")
        for t in sorted(self.tags):
            if t not in tags:
                raise PassFailed(f"{where(caller.ast)}: cannot inline {self.name} into {caller.name}: "
                                 f"struct, union or enum {t} is not declared before {caller.name}")

    def calls_in(self, caller: Module, table: NameTable) -> list[c_ast.FuncCall]:
        out = []
        for c in find_all(caller.ast.body, c_ast.FuncCall):
            if isinstance(c.name, c_ast.ID) and c.name.name == self.name and not table.is_local(table.decl_of(c.name)):
                out.append(c)
        return out

    # -- one call site --------------------------------------------------------------------
    def inline_one(self, caller: Module, call: c_ast.FuncCall) -> None:
        func = caller.ast
        ext = caller.cu.ast.ext
        table = resolve_names(func, file_scope(ext))
        env = TypeEnv(table, ext, func)
        parents = parent_map(func)
        goto_targets = {g.name for g in find_all(func, c_ast.Goto)}
        site = _find_site(caller, call, parents, goto_targets)
        args = list(call.args.exprs) if call.args is not None else []
        if len(args) != len(self.params):
            raise _refuse_site(caller, call, f"{len(args)} arguments for {len(self.params)} parameters")
        taken = names_in_scope(func, ext)
        body = copy_node(self.fd)  # the whole definition, so that parameter types come along
        btable = resolve_names(body, file_scope(self.callee.cu.ast.ext))
        benv = TypeEnv(btable, self.callee.cu.ast.ext, body)
        bparams = params_of(body)
        prologue: list[c_ast.Node] = []
        direct: dict[int, c_ast.Node] = {}
        tracked = tracked_scalars(func, table, env)
        for p, a in zip(bparams, args):
            repl = self._direct(p, a, body, btable, benv, table, env, tracked, direct)
            if repl is not None:
                direct[id(p)] = repl
        # rename the callee's locals (parameters bound to temporaries included)
        for d in btable.decls:
            if isinstance(d, c_ast.Decl) and d.name and btable.is_local(d) and id(d) not in direct:
                new = fresh_name(d.name, taken)
                if new != d.name:
                    for n in walk(body):
                        if isinstance(n, c_ast.ID) and btable.decl_of(n) is d:
                            n.name = new
                    rename_declaration(d, new)
        # parameters: direct substitution or a temporary initialised with the argument
        targets: dict[int, c_ast.Node] = {}
        for n in walk(body):
            if isinstance(n, c_ast.ID) and id(btable.decl_of(n)) in direct:
                targets[id(n)] = direct[id(btable.decl_of(n))]
        transform(body, lambda n: copy_node(targets[id(n)]) if id(n) in targets else None)
        for p, a in zip(bparams, args):
            if id(p) in direct:
                continue
            temp = c_ast.Decl(p.name, list(p.quals or []), [], [s for s in p.storage if s == "register"],
                              [], _decayed(p.type), a, None, call.coord)
            prologue.append(temp)
        _fresh_labels(self.ws, caller, body.body, taken)
        items = list(body.body.block_items or [])
        # the call's value
        as_statement = site.anchor is call
        result_name = None
        stmt_target: c_ast.Node | None = None  # the variable the anchor assigns the value to
        if not self.returns_void and not as_statement:
            stmt_target = self._assigned_variable(site.anchor, call, table, env)
            if stmt_target is None:
                result_name = fresh_name(f"{self.name}_result", taken)
        items = self._returns(caller, call, items, result_name, stmt_target, taken)
        block = c_ast.Compound(prologue + items, call.coord)
        self._place(caller, site, call, block, result_name, stmt_target)

    def _direct(self, p, a, body, btable, benv, table, env, tracked, direct) -> c_ast.Node | None:
        """What replaces parameter ``p`` in the body when the argument can be used as it is (else None).

        An array or pointer argument that is a declared array or a tracked
        local pointer, indexed with the same inner dimensions; a tracked local
        scalar or a literal of exactly the parameter's type. Never for a
        parameter the body assigns or takes the address of.
        """
        for w in writes(body):
            if w.base is not None and btable.decl_of(w.base) is p and (w.kind == "whole" or w.address):
                return None
        kind = benv.category(p.type)
        hidden = unevaluated(body)
        if any(isinstance(n, c_ast.ID) and btable.decl_of(n) is p and id(n) in hidden for n in walk(body)):
            return None  # sizeof of the parameter would measure the argument instead
        if isinstance(a, c_ast.ID):
            d = table.decl_of(a)
            if not isinstance(d, c_ast.Decl):
                return None
            akind = env.category(d.type)
            if kind in ("array", "pointer") and (akind == "array" or (akind == "pointer" and id(d) in tracked)):
                if self._same_shape(p.type, d.type, benv, env, btable, direct):
                    return c_ast.ID(a.name, a.coord)
                return None
            if kind in ("signed", "unsigned", "float") and id(d) in tracked:
                t = arith_type(p.type, benv)
                if t is not None and t == arith_type(d.type, env):
                    return c_ast.ID(a.name, a.coord)
            return None
        if kind in ("signed", "unsigned", "float") and (
            isinstance(a, c_ast.Constant) or (isinstance(a, c_ast.UnaryOp) and a.op == "-"
                                              and isinstance(a.expr, c_ast.Constant))
        ):
            t = arith_type(p.type, benv)
            if t is not None and expr_arith_type(a, env) == t:
                return copy_node(a)
        return None

    def _same_shape(self, ptype, atype, benv, env, btable, direct) -> bool:
        """Whether indexing the argument as the parameter's type reaches the same elements."""
        def shape(t, e):
            t = e.unalias(t)
            if isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
                t = e.unalias(t.type)
            dims = []
            while isinstance(t, c_ast.ArrayDecl):
                dims.append(t.dim)
                t = e.unalias(t.type)
            return dims, t
        pdims, pbase = shape(ptype, benv)
        adims, abase = shape(atype, env)
        if len(pdims) != len(adims) or arith_type(pbase, benv) != arith_type(abase, env) or arith_type(pbase, benv) is None:
            return False
        for pd, ad in zip(pdims, adims):
            if pd is None or ad is None:
                return False
            pv = _dim_value(pd, btable, direct)
            av = int_value(simplify(ad))
            if pv is None or av is None or pv != av:
                if not (pv is None and av is None and same_tree(_subst_dims(pd, btable, direct), ad)):
                    return False
        return True

    def _assigned_variable(self, anchor, call, table, env) -> c_ast.Node | None:
        """``y`` when the anchor is ``y = f(...);`` or ``T y = f(...);`` with ``y`` a local of the return type."""
        rtype = self.fd.decl.type.type
        benv = TypeEnv(resolve_names(self.fd), self.callee.cu.ast.ext, self.fd)
        rname = arith_type(rtype, benv)
        if rname is None:
            return None
        if isinstance(anchor, c_ast.Assignment) and anchor.op == "=" and anchor.rvalue is call and isinstance(
            anchor.lvalue, c_ast.ID
        ):
            d = table.decl_of(anchor.lvalue)
            if isinstance(d, c_ast.Decl) and table.is_local(d) and arith_type(d.type, env) == rname:
                return anchor.lvalue
        if isinstance(anchor, c_ast.Decl) and anchor.init is call and arith_type(anchor.type, env) == rname:
            return anchor
        return None

    def _returns(self, caller, call, items, result, target, taken) -> list[c_ast.Node]:
        """Turn the callee's returns into assignments of the value (and a goto to the end when early)."""
        block = c_ast.Compound(items)
        returns = find_all(block, c_ast.Return)
        name = result if result is not None else getattr(target, "name", None)

        def value_stmt(r: c_ast.Return) -> list[c_ast.Node]:
            if r.expr is None:
                return []
            if name is not None:
                return [c_ast.Assignment("=", c_ast.ID(name, r.coord), r.expr, r.coord)]
            return [r.expr] if has_side_effects(r.expr) else []

        if not returns:
            return items
        if len(returns) == 1 and items and returns[0] is items[-1]:
            return items[:-1] + value_stmt(items[-1])
        final = strip_labels(items[-1]) if items else None
        if any(r is not final for r in returns):
            if self.vla:
                raise _refuse_site(caller, call, f"{self.name} returns early and declares a variable-length array")
            if any(p.string.split()[:1] == ["omp"] for p in find_all(block, c_ast.Pragma)):
                raise _refuse_site(caller, call, f"{self.name} returns early and holds OpenMP constructs")
        end = fresh_name(f"{self.name}_end", taken)
        parents = parent_map(block)
        jumps = 0
        for r in returns:
            stmts = value_stmt(r)
            if r is not final:
                stmts.append(c_ast.Goto(end, r.coord))
                jumps += 1
            holder = parents[id(r)]
            if isinstance(holder, (c_ast.Compound, c_ast.Case, c_ast.Default)):
                replace_child(holder, r, stmts)
            else:
                replace_child(holder, r, stmts[0] if len(stmts) == 1 else c_ast.Compound(stmts, r.coord)
                              if stmts else c_ast.EmptyStatement(r.coord))
        tail = [c_ast.Label(end, c_ast.EmptyStatement())] if jumps else []
        return list(block.block_items) + tail

    def _place(self, caller, site: _Site, call, block, result_name, target) -> None:
        """Put the inlined block before the statement holding the call, the value in place of the call."""
        anchor, holder = site.anchor, site.holder
        before: list[c_ast.Node] = []
        if result_name is not None:
            rtype = _return_type(self.fd, result_name)
            before.append(c_ast.Decl(result_name, [], [], [], [], rtype, None, None, call.coord))
            replace_child(parent_map(anchor)[id(call)], call, c_ast.ID(result_name, call.coord))
        if isinstance(target, c_ast.Decl):  # T y = f(...);  becomes  T y;  { ... y = ...; }
            target.init = None
            new = [anchor, block]
        elif anchor is call or isinstance(target, c_ast.ID):  # the block does all the statement did
            new = [block]
        else:
            new = before + [block, anchor]
        if isinstance(holder, (c_ast.Compound, c_ast.Case, c_ast.Default)):
            items = holder.block_items if isinstance(holder, c_ast.Compound) else holder.stmts
            k = next(i for i, n in enumerate(items) if n is anchor)
            j = k
            while j > 0 and isinstance(items[j - 1], c_ast.Pragma) and applies_to_next(items[j - 1]):
                j -= 1
            if j < k and anchor not in new:
                raise _refuse_site(caller, call, f"'#pragma {items[j].string}' applies to the statement")
            if anchor in new and new[-1] is anchor:
                new = new[:-1] + items[j:k] + [anchor]
            else:
                new = items[j:k] + new
            items[j:k + 1] = new
        else:
            replace_child(holder, anchor, c_ast.Compound(new, call.coord))


_BUILTIN_TYPES = frozenset({"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
                            "_Bool", "_Complex"})


def _dim_value(dim, btable, direct) -> int | None:
    """The value of a parameter's array dimension once directly-bound parameters are replaced."""
    return int_value(simplify(_subst_dims(dim, btable, direct)))


def _subst_dims(dim, btable, direct) -> c_ast.Node:
    """A copy of a dimension with the directly-bound parameters replaced by their arguments."""
    d = copy_node(dim)
    ids = {id(o): n for o, n in zip(walk(dim), walk(d))}
    targets = {}
    for o in walk(dim):
        if isinstance(o, c_ast.ID) and id(btable.decl_of(o)) in direct:
            targets[id(ids[id(o)])] = direct[id(btable.decl_of(o))]
    return transform(d, lambda n: copy_node(targets[id(n)]) if id(n) in targets else None)


def _caller_list(module: Module, callers: str) -> list[Module]:
    ws = module.ws
    if callers.strip():
        out = []
        for name in (c.strip() for c in callers.split(",")):
            if not name:
                continue
            if name not in ws:
                raise InvalidInput(f"error: inline: no function '{name}' in the workspace")
            if name not in module.callers:
                raise PassFailed(f"{where(ws[name].ast)}: cannot inline {module.name} into {name}: "
                                 f"{name} does not call it")
            out.append(ws[name])
        return out
    out = [c for c in module.callers if not c.is_stub and c.name != module.name]
    if not out:
        raise PassFailed(f"{where(module.ast)}: cannot inline {module.name}: it is never called")
    return out


@transformation(scope="module", requires=["callgraph"], reads=["function_references"])
def inline(module: Module, callers: str = "") -> None:
    """Replace the calls to ``module`` by copies of its body (PIPS ``inlining``).

    Before (``ws["axpy"].inline()``)::

        static void axpy(int n, double a, double *x, double *y)
        {
            for (int i = 0; i < n; i++)
                y[i] += a * x[i];
        }
        ...
        axpy(n, 2.0, u, v);
        s = dot(n, u, v);

    After (in the caller; ``u`` and ``v`` arrays, ``n`` a local)::

        {
            for (int i = 0; i < n; i++)
                v[i] += 2.0 * u[i];
        }
        s = dot(n, u, v);

    Parameters are replaced by the argument when it can stand for them
    (a declared array or local pointer with the same inner dimensions, a
    local scalar or a literal of the parameter's type, the parameter never
    assigned); otherwise they become temporaries initialised with the
    argument, with the parameter's type (``double (*A)[n] = B;``: the
    conversion the call did). The callee's locals keep their names where no
    name of the caller clashes, else get fresh ones (``i_1``); user labels
    too; loops get new labels. A ``return`` at the end assigns the value to
    the variable the call's statement assigns (``y = f(x);``,
    ``T y = f(x);`` of the same type) or to a new ``f_result`` that replaces
    the call; earlier returns jump to a new label ``f_end`` at the end of the
    inlined block. The function stays defined.

    Refused: library stubs, recursive, variadic or K&R functions, functions
    with static locals, ``main``; a call evaluated conditionally or repeatedly
    where a statement cannot go before it (right of ``&&``, ``||``, a branch
    of ``?:``, after a comma operator, a loop condition or increment), under
    ``sizeof``, or with a pragma applying to its statement; a callee using
    globals, functions or types the caller does not see, or that a local
    of the caller hides; early returns with variable-length arrays or OpenMP
    constructs in the callee.

    Properties:

    - callers: comma-separated callers to inline into (default: every caller)
    """
    inl = _Inliner(module)
    inl.check_callee()
    targets = _caller_list(module, callers)
    for caller in targets:
        caller.edit()
        table = resolve_names(caller.ast, file_scope(caller.cu.ast.ext))
        inl.check_caller(caller, table)
        for _ in range(10000):
            table = resolve_names(caller.ast, file_scope(caller.cu.ast.ext))
            sites = inl.calls_in(caller, table)
            if not sites:
                break
            inl.inline_one(caller, sites[0])


# ------------------------------------------------------------------ cloning


def _parse_value(value: str) -> c_ast.Node:
    text = value.strip()
    neg = text.startswith("-")
    body = text[1:].strip() if neg else text
    try:
        int(body, 0)
        lit = c_ast.Constant("int", body)
    except ValueError:
        try:
            float(body.rstrip("fFlL"))
        except ValueError:
            raise InvalidInput(f"error: clone: value '{value}' is not an integer or floating constant") from None
        lit = c_ast.Constant("double", body)
    return c_ast.UnaryOp("-", lit) if neg else lit


def _same_value(arg: c_ast.Node, value: c_ast.Node) -> bool:
    v = int_value(value)
    if v is not None:
        return int_value(simplify(arg)) == v
    lit = value.expr if isinstance(value, c_ast.UnaryOp) else value
    a = arg.expr if isinstance(arg, c_ast.UnaryOp) and arg.op == "-" else arg
    if not isinstance(a, c_ast.Constant) or a.type not in ("double", "float", "int"):
        return False
    sign = -1 if isinstance(value, c_ast.UnaryOp) else 1
    asign = -1 if a is not arg else 1
    try:
        return sign * float(lit.value.rstrip("fFlL")) == asign * float(a.value.rstrip("fFlLuU"))
    except ValueError:
        return False


def _check_clone_name(ws, name: str) -> None:
    check_new_function_name(ws, name, "clone")


def _prototype(fd: c_ast.FuncDef) -> c_ast.Decl:
    d = copy_node(fd.decl)
    d.coord = None
    return d


@transformation(scope="module", requires=["callgraph"])
def clone(module: Module, name: str = "", caller: str = "", argument: int = -1, value: str = "") -> None:
    """Copy a function under a new name, optionally specialised for one argument value.

    Before (``ws["scale"].clone(name="scale_half", caller="main", argument=2, value="0.5")``)::

        static void scale(double *v, int n, double s) { for (...) v[i] *= s; }
        ... scale(x, n, 0.5); scale(y, n, 2.0);

    After::

        static void scale_half(double *v, int n)
        {
            double s = 0.5;
            for (...) v[i] *= s;
        }
        ... scale_half(x, n); scale(y, n, 2.0);

    Without ``argument`` the copy is exact and, when ``caller`` is given,
    every call in ``caller`` goes to it. With ``argument`` (0-based) and
    ``value`` (an integer or floating constant), the parameter becomes a
    local initialised with the value (``partial_eval`` can then fold it),
    sizes of array parameters naming it use the value, and the calls in
    ``caller`` (every caller when empty) passing that constant go to the
    clone without that argument. The clone is defined right after the
    original, ``static`` if it is; a prototype is added before a caller that
    comes earlier or lives in another unit. Loops of the copy get new labels.

    Refused with InvalidInput: an invalid or taken ``name``, an unknown
    ``caller``, an ``argument`` out of range or without a ``value``, a value
    that is not a constant. Refused with PassFailed: library stubs,
    functions with static locals (the copy would have its own), a parameter
    that is not an arithmetic scalar, and no call site matching.

    Properties:

    - name: name of the copy (default: ``<function>_clone``, made unique)
    - caller: the function whose calls are redirected (default: none, or every caller with ``argument``)
    - argument: 0-based rank of the parameter to specialise (-1: none)
    - value: the constant value of that parameter
    """
    ws = module.ws
    fd = module.ast
    if not name:
        taken = set(ws.function_names())
        for cu in ws.compilation_units:
            taken |= set(file_scope(cu.ast.ext))
        name = fresh_name(f"{module.name}_clone", taken)
    _check_clone_name(ws, name)
    for d in _static_locals(fd):
        raise PassFailed(f"{where(d)}: cannot clone {module.name}: static variable {d.name} would be duplicated")
    params = params_of(fd)
    spec = None
    if argument >= 0 or value:
        if argument < 0 or not value:
            raise InvalidInput("error: clone: argument and value go together")
        if argument >= len(params) or _is_variadic(fd) and argument >= len(params):
            raise InvalidInput(f"error: clone: {module.name} has no argument {argument} "
                               f"(it has {len(params)}, numbered from 0)")
        spec = _parse_value(value)
        p = params[argument]
        table = resolve_names(fd, file_scope(module.cu.ast.ext))
        env = TypeEnv(table, module.cu.ast.ext, fd)
        kind = env.category(p.type)
        if kind not in ("signed", "unsigned", "float"):
            raise PassFailed(f"{where(p)}: cannot specialise {module.name} on {p.name}: it is not an arithmetic scalar")
        if kind != "float" and int_value(spec) is None:
            raise InvalidInput(f"error: clone: {p.name} of {module.name} is an integer, not {value}")
    # the call sites to redirect
    if caller:
        if caller not in ws:
            raise InvalidInput(f"error: clone: no function '{caller}' in the workspace")
        callers = [ws[caller]]
    elif spec is not None:
        callers = [c for c in module.callers if not c.is_stub]
    else:
        callers = []
    sites: dict[str, list[c_ast.FuncCall]] = {}
    for c in callers:
        c.edit()  # copy on write first: the calls collected here are the ones changed below
        table = resolve_names(c.ast, file_scope(c.cu.ast.ext))
        for call in find_all(c.ast.body, c_ast.FuncCall):
            if not isinstance(call.name, c_ast.ID) or call.name.name != module.name:
                continue
            if table.is_local(table.decl_of(call.name)):
                continue
            args = call.args.exprs if call.args is not None else []
            if spec is not None and (len(args) <= argument or not _same_value(args[argument], spec)):
                continue
            sites.setdefault(c.name, []).append(call)
    if callers and not sites:
        what = f" passing {value} as argument {argument}" if spec is not None else ""
        names = ", ".join(c.name for c in callers)
        raise PassFailed(f"{where(fd)}: cannot clone {module.name}: no call in {names}{what}")
    # the copy
    new = copy_node(fd)
    rename_declaration(new.decl, name)
    new.decl.name = name
    _fresh_labels(ws, module, new.body, set())
    if spec is not None:
        p = params_of(new)[argument]
        plist = new.decl.type.args
        plist.params = [q for q in plist.params if q is not p]
        if not plist.params:
            void = c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(["void"]))
            plist.params = [c_ast.Typename(None, [], None, void)]
        for q in plist.params:  # sizes naming the parameter
            if isinstance(q, c_ast.Decl):
                q.type = transform(q.type, lambda n: copy_node(spec)
                                   if isinstance(n, c_ast.ID) and n.name == p.name else None)
        local = c_ast.Decl(p.name, list(p.quals or []), [], [], [], p.type, copy_node(spec), None, p.coord)
        new.body.block_items = [local] + list(new.body.block_items or [])
        # the prototype in the FuncDef's declaration is the same node list, nothing else to do
    ext = module.cu.ast.ext
    pos = next(i for i, n in enumerate(ext) if n is fd)
    ext.insert(pos + 1, new)
    for cname, calls in sites.items():
        cm = ws[cname]
        cm.edit()
        for call in calls:
            call.name = c_ast.ID(name, call.name.coord)
            if spec is not None:
                call.args.exprs = [a for k, a in enumerate(call.args.exprs) if k != argument]
        cext = cm.cu.ast.ext
        cpos = next(i for i, n in enumerate(cext) if n is cm.ast)
        if cm.cu is not module.cu or cpos <= pos:
            if not any(isinstance(n, c_ast.Decl) and n.name == name for n in cext[:cpos]):
                cext.insert(cpos, _prototype(new))
