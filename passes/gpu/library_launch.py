"""Library calls that run on the device buffers (*library launches*, for ``kernel_data_mapping``).

A broker may give a library function a *device entry point*: a function with
the same parameters whose pointers are device addresses, named by the model
fact ``device`` of the host function (``device = "passman_dev_{name}"``) and
modelled by the same broker, with an implementation per target (cuBLAS and
cuFFT wrappers on ``cuda``; on ``cpu``, the accelerator runtime's emulation,
the CPU library called on the emulated device buffers). Where the build
target has one, :mod:`.data_mapping` treats the call like a kernel launch:
its stub's read and write regions are the launch's IN and OUT, and the call
runs on the device buffers the mapping holds::

    cblas_dgemm(CblasRowMajor, ..., &A[0][0], K, B[0], K, 0.5, C, N);

becomes::

    passman_dev_cblas_dgemm(CblasRowMajor, ...,
        passman_accel_resolve_at(A, sizeof(A[0][0]) * 12 * 7, &A[0][0]), K,
        passman_accel_resolve_at(B, sizeof(B[0][0]) * 10 * 7, B[0]), K, 0.5,
        passman_accel_resolve(C, sizeof(C[0][0]) * 12 * 10), N);

An FFTW execution ``fftw_execute(p)`` runs the arrays ``p`` captured when it
was planned: the plan-creating function's fact ``execute_with`` names the
new-array execute function that does the same on given arrays
(``fftw_execute_dft(p, in, out)``), whose device entry point runs the plan
on device buffers; the plan itself stays on the host.

A call is a library launch only when everything is proved; otherwise it
stays a host call (:func:`library_launches` leaves it out, never refuses):
the call is a statement of its own, or ``v = f(...)`` with ``v`` a scalar;
every argument that names an array is the array, ``&A[i]...[k]``, a
sub-array ``A[i]`` or ``A + e`` (casts allowed; the subscripts and offsets
name no array) of an array whose size the mapping knows; the call's regions
name only those arrays (and the library's own state); an executed plan is a
local variable set once, by a plan-creating call whose captured arrays keep
their addresses in the function.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from passman import HELPER_PREFIX, Stub
from passman.astutil import callee_name, copy_node, parent_map, walk

#: names of library-internal state in stub code (never program arrays)
LIBRARY_STATE = HELPER_PREFIX


@dataclass
class LibraryLaunch:
    """A library call that runs on the device.

    ``call`` is the call in the program; ``entry`` the device entry point;
    ``arguments`` the entry point's arguments in host terms (the call's own,
    or, for an executed plan, the plan and the arguments that made it capture
    its arrays: nodes of the program, copied into the new call); ``arrays``
    the argument positions that are host pointers into arrays, with the
    array's declaration (each becomes a device address); ``header`` declares
    the entry point.
    """

    call: c_ast.FuncCall
    entry: str
    arguments: list[c_ast.Node]
    arrays: dict[int, object] = field(default_factory=dict)
    header: str | None = None

    @property
    def decls(self) -> list[object]:
        """The arrays the call reaches, each once."""
        out: list[object] = []
        for d in self.arrays.values():
            if not any(d is x for x in out):
                out.append(d)
        return out


def _strip(e: c_ast.Node) -> c_ast.Node:
    while isinstance(e, c_ast.Cast):
        e = e.expr
    return e


def device_stub(ws, name: str, target: str) -> Stub | None:
    """The stub of the device entry point of library function ``name`` when ``target`` has an
    implementation of it (None: the call stays on the host)."""
    stub = ws.library_stub(name)
    pattern = stub.model.get("device") if stub is not None else None
    if not isinstance(pattern, str) or not target:
        return None
    entry = ws.library_stub(pattern.format(name=name))
    if entry is None or not entry.implementation(target).available:
        return None
    return entry


class _Finder:
    """The library launches of one function."""

    def __init__(self, module, facts, regions, target: str, sized):
        self.ws, self.facts, self.rw, self.target, self.sized = module.ws, facts, regions, target, sized
        self.body = module.ast.body
        self.parents = parent_map(self.body)

    def array_of(self, e: c_ast.Node) -> object | None:
        """The declaration of the array a pointer argument points into, None when it names no
        array; raises ValueError when it names one in a form that cannot be resolved."""
        names = [n for n in walk(e) if isinstance(n, c_ast.ID) and self.facts.shape(self.facts.names.decl_of(n))]
        if not names:
            return None
        base = _strip(e)
        if isinstance(base, c_ast.BinaryOp) and base.op in ("+", "-"):
            pointer, offset = base.left, base.right
            if base.op == "+" and not self.names_array(base.left):
                pointer, offset = base.right, base.left
            if self.names_array(offset):
                raise ValueError
            base = _strip(pointer)
        subscripts: list[c_ast.Node] = []
        if isinstance(base, c_ast.UnaryOp) and base.op == "&":
            base = base.expr
            if not isinstance(base, c_ast.ArrayRef):
                raise ValueError
        while isinstance(base, c_ast.ArrayRef):
            subscripts.append(base.subscript)
            base = base.name
        if not isinstance(base, c_ast.ID) or any(self.names_array(s) for s in subscripts):
            raise ValueError
        decl = self.facts.names.decl_of(base)
        shape = self.facts.shape(decl)
        if shape is None or len(subscripts) > shape.rank or not self.sized(decl, self.call):
            raise ValueError
        return decl

    def names_array(self, e: c_ast.Node) -> bool:
        return any(isinstance(n, c_ast.ID) and self.facts.shape(self.facts.names.decl_of(n)) is not None
                   for n in walk(e))

    def position(self, call: c_ast.FuncCall) -> bool:
        """A statement of its own, or ``v = f(...)`` with ``v`` a scalar."""
        parent = self.parents.get(id(call))
        if isinstance(parent, (c_ast.Compound, c_ast.Label)):
            return True
        if isinstance(parent, c_ast.Assignment) and parent.rvalue is call and parent.op == "=":
            lvalue = parent.lvalue
            return (isinstance(lvalue, c_ast.ID) and self.facts.shape(self.facts.names.decl_of(lvalue)) is None
                    and isinstance(self.parents.get(id(parent)), (c_ast.Compound, c_ast.Label)))
        return False

    def plan_origin(self, plan: c_ast.Node) -> c_ast.FuncCall | None:
        """The plan-creating call that sets the local variable ``plan``, when it is its only value."""
        if not isinstance(plan, c_ast.ID):
            return None
        decl = self.facts.names.decl_of(plan)
        if decl is None or not self.facts.is_local(decl) or self.facts.is_formal(decl) \
                or id(decl) in self.facts.address_taken:
            return None
        sources = []
        for n in walk(self.body):
            if isinstance(n, c_ast.Decl) and n is decl and n.init is not None:
                sources.append(n.init)
            elif isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID) \
                    and self.facts.names.decl_of(n.lvalue) is decl:
                sources.append(n.rvalue if n.op == "=" else None)
            elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--") \
                    and isinstance(n.expr, c_ast.ID) and self.facts.names.decl_of(n.expr) is decl:
                sources.append(None)
        if len(sources) != 1 or callee_name(sources[0]) is None:
            return None
        return sources[0]

    def host_form(self, call: c_ast.FuncCall) -> tuple[str, list[c_ast.Node], set[int]] | None:
        """The host function and arguments the call amounts to (an executed plan: the new-array
        execution on its captured arrays), and the positions of arguments that are library state."""
        name = callee_name(call)
        stub = self.ws.stub_info(name)
        if stub is None:
            return None
        args = list(call.args.exprs) if call.args else []
        model = stub.model
        state = {model["executes_plan"]} if isinstance(model.get("executes_plan"), int) else set()
        if "device" in model:
            return name, args, state
        if not state or "in" in model:
            return None
        (k,) = state
        origin = self.plan_origin(args[k]) if k < len(args) else None
        maker = self.ws.stub_info(callee_name(origin)) if origin is not None else None
        facts = maker.model if maker is not None else {}
        execute, captures = facts.get("execute_with"), facts.get("captures", {})
        if not isinstance(execute, str) or not {"in", "out"} <= set(captures):
            return None
        execute = execute.format(prefix=callee_name(origin).split("_", 1)[0] + "_")  # fftw_ or fftwf_
        made = origin.args.exprs
        captured = [made[captures["in"]], made[captures["out"]]]
        if any(isinstance(n, c_ast.ID) and id(self.facts.names.decl_of(n)) in self.facts.modified
               for e in captured for n in walk(e)):
            return None  # the plan's arrays may not be where they were when it was made
        return execute, [args[k], *captured], {0}

    def launch(self, call: c_ast.FuncCall) -> LibraryLaunch | None:
        self.call = call
        if not self.position(call):
            return None
        form = self.host_form(call)
        if form is None:
            return None
        name, args, state = form
        entry = device_stub(self.ws, name, self.target)
        if entry is None:
            return None
        arrays: dict[int, object] = {}
        try:
            for k, arg in enumerate(args):
                if k in state:
                    continue
                decl = self.array_of(arg)
                if decl is not None:
                    arrays[k] = decl
        except ValueError:
            return None
        named = {d.name: d for d in arrays.values()}
        for r in self.rw.of(call):
            if r.var.startswith(LIBRARY_STATE):
                continue
            if r.var == "*anywhere*":
                return None
            decl = named.get(r.var)
            if decl is None:
                if r.rank > 0 or r.mode != "R":  # memory the call reaches beside its array arguments
                    return None
                continue
            if r.rank != self.facts.shape(decl).rank and not (r.rank == 0 and r.mode == "R"):
                return None  # the regions see the array another way than the mapping does
        return LibraryLaunch(call, entry.name, args, arrays, entry.header)


def library_launches(module, facts, regions, target: str, sized) -> dict[int, LibraryLaunch]:
    """The calls of ``module`` that run on the device for build ``target`` (``""``: none), by
    ``id`` of the call. ``sized(decl, call)`` tells whether the mapping knows an array's size."""
    if not target:
        return {}
    finder = _Finder(module, facts, regions, target, sized)
    out = {}
    for n in walk(module.ast.body):
        if isinstance(n, c_ast.FuncCall) and callee_name(n) is not None:
            launch = finder.launch(n)
            if launch is not None:
                out[id(n)] = launch
    return out


def device_call(launch: LibraryLaunch, address) -> c_ast.FuncCall:
    """The call of the entry point (on copies of the arguments), each array argument replaced by
    ``address(position, decl, argument)`` (its device address)."""
    args = [address(k, launch.arrays[k], copy_node(a)) if k in launch.arrays else copy_node(a)
            for k, a in enumerate(launch.arguments)]
    return c_ast.FuncCall(c_ast.ID(launch.entry), c_ast.ExprList(args), launch.call.coord)
