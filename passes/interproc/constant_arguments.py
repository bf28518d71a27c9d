"""Interprocedural constant propagation into formals: ``propagate_constant_arguments``.

When every call of a function passes the same constant for a parameter, the
function's code can use the constant itself: an integer (loops get constant
bounds, array parameters constant sizes) or a global array (accesses become
accesses to that array, which the compiler knows overlaps no other). A C
compiler does this for the original program when it inlines a kernel into
``main``; once a parallel loop is outlined into an OpenMP region it no
longer sees the facts (measured with gcc 12 -O3, one thread: ``gemm`` 35 %
slower without its constant sizes, ``syrk`` 60 % slower without knowing its
arrays are two distinct globals), so the OpenMP recipe gives them back at
the source level first. PIPS obtains the same from interprocedural
preconditions and ``partial_eval``.
"""

from __future__ import annotations

from pycparser import c_ast

from passman import Module, PassFailed, transformation
from passman.astutil import copy_node, transform, walk

from ..analysis.callgraph import FunctionReferences
from ..analysis.effect_model import function_scope, param_decls
from ..cfacts.folding import int_value, make_int, simplify
from ..cfacts.names import unevaluated, where
from ..cfacts.sideeffects import writes
from ..cfacts.types import INT_RANGES, arith_type

__all__ = ["constant_arguments", "propagate_constant_arguments"]

_SUFFIX = {"int": "", "long": "L", "long long": "LL", "unsigned int": "u", "unsigned long": "UL",
           "unsigned long long": "ULL"}  # fmt: skip


def _calls(module: Module) -> list[tuple[Module, c_ast.FuncCall]] | str:
    """Every call of ``module`` in the program (with its caller), or why not all of them are known.

    Reads each function's cached ``function_references`` (a walk of the
    functions changed since), not the whole program.
    """
    ws = module.ws
    if module.name == "main":
        return "main is called by the system"
    if "main" not in ws:
        return "the program has no main: other callers may exist"
    for cu in ws.compilation_units:  # a table of function pointers: calls through it pass anything
        for n in cu.ast.ext:
            if isinstance(n, c_ast.Decl) and n.init is not None:
                uses = (i for i in walk(n.init) if isinstance(i, c_ast.ID) and i.name == module.name)
                taken = next(uses, None)
                if taken is not None:
                    return f"its address is taken at file scope ({where(taken)}): unknown calls may reach it"
    out: list[tuple[Module, c_ast.FuncCall]] = []
    for caller in ws.all_functions:
        refs: FunctionReferences = ws.resource("function_references", caller)
        out.extend((caller, call) for call in refs.calls.get(module.name, ()))
        taken = refs.other.get(module.name)
        if taken is not None:
            return f"its address is taken in {caller.name} ({where(taken)}): unknown calls may reach it"
    if not out:
        return "it is never called"
    return out


#: ``va_start(ap, last)`` after the preprocessor (passman's ``<stdarg.h>``, GCC's), and as written
_VA_START = ("__builtin_va_start", "va_start")


def _va_start_last(root: c_ast.Node) -> set[int]:
    """``id`` of every identifier naming the last named parameter in a ``va_start`` under ``root``.

    It must stay the parameter: ``va_start(ap, 3)`` is not valid C (gcc:
    "second parameter of 'va_start' not last named argument").
    """
    return {
        id(n.args.exprs[1])
        for n in walk(root)
        if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name in _VA_START
        and n.args is not None and len(n.args.exprs) > 1 and isinstance(n.args.exprs[1], c_ast.ID)
    }


def _shape(t: c_ast.Node | None, types) -> tuple[list[int | None], str] | None:
    """(dimensions, element type) of an array or pointer type: ``double [10][20]`` -> ([10, 20], "double")."""
    dims: list[int | None] = []
    t = types.unalias(t)
    while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        if isinstance(t, c_ast.PtrDecl):
            dims.append(None)
        else:
            dims.append(int_value(simplify(copy_node(t.dim))) if t.dim is not None else None)
        t = types.unalias(t.type)
    if not dims or not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, c_ast.IdentifierType):
        return None
    quals = sorted(q for q in t.quals if q != "const")
    return dims, " ".join(quals + list(t.type.names))


def _global_array(module: Module, caller: Module, arg: c_ast.Node) -> c_ast.Decl | None:
    """The file-scope array a call argument names, if it is one declared before ``module``."""
    if not isinstance(arg, c_ast.ID):
        return None
    scope = function_scope(caller)
    decl = scope.names.decl_of(arg)
    if not isinstance(decl, c_ast.Decl) or scope.names.is_local(decl):
        return None
    if not isinstance(scope.types.unalias(decl.type), c_ast.ArrayDecl):
        return None
    ext = module.cu.ast.ext
    here = next((k for k, n in enumerate(ext) if n is module.ast), None)
    where_decl = next((k for k, n in enumerate(ext) if n is decl), None)
    if here is None or where_decl is None or where_decl > here:
        return None  # not visible where the function is defined
    return decl


def constant_arguments(module: Module) -> tuple[dict[str, c_ast.Node], list[str]]:
    """The formals every call sets to one constant (name -> the C expression to use), and why not the others.

    Integer formals get an integer literal; array and pointer formals the
    global array every call passes, when its element type and inner
    dimensions are the formal's.
    """
    calls = _calls(module)
    if isinstance(calls, str):
        return {}, [calls]
    scope = function_scope(module)
    params = param_decls(module.ast)
    written = {id(scope.names.decl_of(w.base)) for w in writes(module.ast.body)
               if w.base is not None and w.kind == "whole"}  # the formal itself, not what it points to
    va_last = _va_start_last(module.ast.body)
    used = {id(scope.names.decl_of(n)) for n in walk(module.ast)
            if isinstance(n, c_ast.ID) and id(n) not in va_last}
    in_sizeof = unevaluated(module.ast.body)
    declared = {d.name for d in walk(module.ast) if isinstance(d, c_ast.Decl)}
    out: dict[str, c_ast.Node] = {}
    why: list[str] = []
    for k, p in enumerate(params):
        if id(p) not in used:
            continue
        if id(p) in written:
            why.append(f"{p.name} is assigned (or its address taken) in {module.name}")
            continue
        args = [call.args.exprs[k] if call.args is not None and k < len(call.args.exprs) else None
                for _, call in calls]
        kind = arith_type(p.type, scope.types)
        if kind in _SUFFIX:
            values = {int_value(simplify(copy_node(a))) if a is not None else None for a in args}
            if None in values or len(values) != 1:
                why.append(f"the calls pass {p.name} values that are not all the same constant")
                continue
            v = values.pop()
            lo, hi = INT_RANGES[kind]
            if lo <= v <= hi:
                lit = make_int(v)
                if _SUFFIX[kind]:
                    inner = lit.expr if isinstance(lit, c_ast.UnaryOp) else lit
                    inner.value += _SUFFIX[kind]
                    inner.type = kind
                out[p.name] = lit
            continue
        formal = _shape(p.type, scope.types)
        if formal is None:
            continue
        globals_ = {id(g): g for g in (_global_array(module, caller, a) for (caller, _), a in zip(calls, args))}
        if None in (g for g in globals_.values()) or len(globals_) != 1:
            why.append(f"the calls pass {p.name} arrays that are not all the same global array")
            continue
        g = next(iter(globals_.values()))
        actual = _shape(g.type, scope.types)
        if actual is None or actual[1] != formal[1] or actual[0][1:] != formal[0][1:] or None in formal[0][1:]:
            why.append(f"{p.name} and the global {g.name} every call passes have different shapes")
            continue
        if g.name in declared - {p.name} or g.name == p.name:
            continue  # shadowed inside the function, or nothing to gain
        if any(isinstance(n, c_ast.ID) and scope.names.decl_of(n) is p and id(n) in in_sizeof
               for n in walk(module.ast.body)):
            why.append(f"{p.name} is under sizeof, where the global {g.name} would be an array, not a pointer")
            continue
        out[p.name] = c_ast.ID(g.name)
    return out, why


# unit_scope holds: the signature changes (array sizes), not the names the file declares
@transformation(scope="module", preserves=["callgraph", "unit_scope"],
                reads=["function_references", "function_scope"])
def propagate_constant_arguments(module: Module) -> None:
    """Use the constant that every call passes for a formal in place of the formal.

    Before::

        double A[1000][1000], C[1000][1000];
        static void kernel(int n, double c[n][n], double a[n][n])
        {
            for (i = 0; i < n; i++) ... c[i][j] += a[i][k] * a[j][k];
        }
        int main(void) { ... kernel(1000, C, A); ... }

    After::

        static void kernel(int n, double c[1000][1000], double a[1000][1000])
        {
            for (i = 0; i < 1000; i++) ... C[i][j] += A[i][k] * A[j][k];
        }

    Integer formals (the same integer constant in every call) and array or
    pointer formals (the same global array in every call, declared before
    the function, of the formal's element type and inner dimensions). The
    signature keeps every parameter (the calls do not change). Only when
    all calls are known (the program has ``main``, the function's address
    is never taken, in a function or a file-scope initializer, it is not
    ``main``), and the function never assigns the formal nor takes its
    address. ``va_start``'s second argument stays the last named
    parameter. Refused when no formal qualifies (the reasons are given).
    """
    values, why = constant_arguments(module)
    if not values:
        raise PassFailed(f"{where(module.ast)}: no constant argument to propagate into {module.name}"
                         + (f": {'; '.join(why)}" if why else ""))
    scope = function_scope(module)
    params = {p.name: p for p in param_decls(module.ast)}
    va_last = _va_start_last(module.ast.body)
    targets: dict[int, c_ast.Node] = {}
    for n in walk(module.ast):
        if (isinstance(n, c_ast.ID) and n.name in values and id(n) not in va_last
                and scope.names.decl_of(n) is params[n.name]):
            new = copy_node(values[n.name])
            for m in walk(new):
                m.coord = n.coord
            targets[id(n)] = new
    transform(module.ast, lambda n: targets.get(id(n)))
