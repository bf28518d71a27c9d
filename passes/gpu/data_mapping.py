"""Keep arrays on the device across launches, loops and calls (``kernel_data_mapping``).

Amini 2012 §3.6 (Par4All's *kernel data mapping*). After :mod:`.gpu_ify`,
instead of copying each launch's arrays in and out around it
(:func:`.load_store.kernel_load_store`), place copies of whole arrays where the
valid copy of an array changes sides: a copy to the device only before a
launch that needs an array the host changed, a copy back only before a host
statement that uses an array a launch changed; nothing inside a loop whose
host part does not touch the array; and across calls, a function's needs
and effects become a *contract* its callers satisfy, so a time loop in
``main`` around a function that launches kernels copies nothing per step.

Before (``ws.apply("kernel_data_mapping")``)::

    void step(int n, double A[n], double B[n])        /* after gpu_ify */
    {
        p4a_launcher_0(n, A, B);                       /* B[i] = A[i - 1] + A[i + 1] */
        p4a_launcher_1(n, A, B);                       /* A[i] = B[i] */
    }
    int main(void)
    {
        init(N, A, B);
        for (t = 0; t < T; t++)
            step(N, A, B);
        print(N, A);
    }

After::

    void step(int n, double A[n], double B[n])
    {
        p4a_launcher_0(n, passman_accel_resolve(A, sizeof(A[0]) * n),
                       passman_accel_resolve(B, sizeof(B[0]) * n));
        p4a_launcher_1(n, passman_accel_resolve(A, sizeof(A[0]) * n),
                       passman_accel_resolve(B, sizeof(B[0]) * n));
    }
    int main(void)
    {
        init(N, A, B);
        passman_accel_update_device(A, sizeof(A[0]) * 1000);
        passman_accel_update_device(B, sizeof(B[0]) * 1000);
        for (t = 0; t < T; t++)
            step(N, A, B);
        passman_accel_update_host(A, sizeof(A[0]) * 1000);
        print(N, A);
    }

The runtime maps each host array to one device buffer (``passman_accel_resolve``,
allocated on first use, freed at exit), so function signatures do not change.

**Library launches** (``library_target="cuda"``, or ``"cpu"`` for the runtime's
emulation; :mod:`.library_launch`). A library call whose broker has a device
entry point for the target is a launch whose IN and OUT are its stub's read
and write regions, run on the device buffers::

    p4a_launcher_0(N, A);                          /* A[i][j] = ... */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0,
                &A[0][0], N, B[0], N, 0.0, C[0], N);
    p4a_launcher_1(N, C, D);                       /* D[i][j] = C[i][j] ... */

becomes (no copy around the call: A and C stay on the device)::

    p4a_launcher_0(N, passman_accel_resolve(A, sizeof(A[0][0]) * 16 * 16));
    passman_dev_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0,
        passman_accel_resolve_at(A, sizeof(A[0][0]) * 16 * 16, &A[0][0]), N,
        passman_accel_resolve_at(B, sizeof(B[0][0]) * 16 * 16, B[0]), N, 0.0,
        passman_accel_resolve_at(C, sizeof(C[0][0]) * 16 * 16, C[0]), N);
    p4a_launcher_1(N, passman_accel_resolve(C, ...), passman_accel_resolve(D, ...));

and ``fftw_execute(p)`` runs as ``passman_dev_fftw_execute_dft(p, in, out)`` on
the device copies of the arrays ``p`` captured. A call it cannot prove stays
a host call (never a refusal); with ``library_target=""`` (the default) every
library call does.

**The analysis.** For each array, at each point, which sides hold a valid
copy: host, device, or both (1, 0, or ``E``: as at the function's entry).
A host statement needs the host copy (copy back before it when it is not
valid) and, when it writes the array, leaves only the host copy valid; a
launch needs the device copy of what it imports (``IN`` regions) and of
what it writes unless it writes the whole array (a partial write copied
back whole would otherwise bring back garbage) or nothing after it (outside
any loop around it, in a function whose callers cannot see the array) reads
an element it does not write, and leaves only the device copy valid for
what it writes. A call whose contract needs the device copy of an array the
call does not import is treated the same way (adi's work arrays ``v``,
``p``, ``q``, which nobody reads after the kernels, move nothing). Branches meet (valid on both paths); a
loop's head meets its entry and the end of its body, up to a fix point; where
a meet would leave no valid copy, a copy goes at the end of the path that
lacks it. Before a loop, the arrays its launches use and its host part does
not write are copied to the device, and those its host part reads and its
launches do not write are copied back: nothing moves inside. A function
that is called from the program starts with ``E``: when it needs a side
still as at entry, that becomes its contract's requirement (its callers
copy before the call, out of their own loops), and its state at exit is
the contract's effect. A root (``main``, or a function nobody calls) starts
with the host copy valid; a root other than ``main`` copies back at its end
what its callers may read.

Whole arrays move (Par4All's granularity); regions decide which arrays and
when. Refused (PassFailed, nothing changed): a kernel launcher's argument that
is not a plain array variable of known size; a function that uses an array through
another pointer it assigns (``p = A``); ``break``, ``continue``, ``goto`` or
``return`` leaving a loop or branch that launches kernels; a function with
kernels reached through a pointer, recursively, or with an argument that is
not a plain array variable; an array a loop's condition reads while the
loop's launches write it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial

import islpy as isl
import networkx as nx
from pycparser import c_ast

from passman import PassFailed, transformation
from passman.astutil import callee_name, child_nodes, copy_node, parent_map, replace_child, walk

from ..cfacts.control import describe_jump, escaping_jumps
from ..cfacts.names import unevaluated, where
from ..poly.facts import extent_set
from .library_launch import LibraryLaunch, device_call, library_launches
from .load_store import HEADER, launchers, reach

E = "E"  # a side as it was at the function's entry
HOST, DEV = 0, 1


@dataclass
class Contract:
    """What a function needs at entry and what it leaves at exit, by key (formal or global)."""

    needs: tuple[set, set] = field(default_factory=lambda: (set(), set()))  # (host, device)
    post: dict = field(default_factory=dict)  # key -> (host, device) at exit: 0, 1 or E


class _Restart(Exception):
    """A new requirement of the contract: analyse the function again."""


def _size(decl: c_ast.Decl, shape) -> c_ast.Node:
    """``sizeof(A[0][0]) * n * m``: the bytes of the whole array."""
    elem: c_ast.Node = c_ast.ID(decl.name)
    for _ in range(shape.rank):
        elem = c_ast.ArrayRef(elem, c_ast.Constant("int", "0"))
    size: c_ast.Node = c_ast.UnaryOp("sizeof", elem)
    for e in shape.extents:
        size = c_ast.BinaryOp("*", size, copy_node(e))
    return size


def _reaches_elements(ident: c_ast.ID, parent: c_ast.Node | None) -> bool:
    """Whether an array's name is used to reach its elements (subscript, ``*``, an argument),
    not only as a pointer value (``!A``, ``A == NULL``, ``sizeof A``)."""
    if isinstance(parent, c_ast.UnaryOp):
        return parent.op not in ("!", "sizeof")
    if isinstance(parent, c_ast.BinaryOp):
        return parent.op not in ("==", "!=", "&&", "||")
    return True


def _whole(facts, shape, write) -> bool:
    """Whether a write region certainly covers every element of the array."""
    if write is None or any(e is None for e in shape.extents):
        return False
    try:
        box = None
        for e in shape.extents:
            s = extent_set(facts, e)
            box = s if box is None else box.flat_product(s)
        must = write.must
        if must.has_tuple_id():
            box = box.set_tuple_id(must.get_tuple_id())
        box = box.align_params(must.get_space())
        return box.is_subset(must.align_params(box.get_space()))
    except isl.Error:
        return False


class _Plan:
    """The analysis of one function: its contract and the copies to insert."""

    def __init__(self, module, info: dict, contracts: dict[str, Contract], root: bool):
        self.module, self.info, self.contracts, self.root = module, info, contracts, root
        self.facts = module.resource("poly_facts")
        self.rw = module.resource("regions")
        self.ins = module.resource("in_regions")
        self.launchers = info["launchers"]
        self.active_names = info["active"]
        self.contract = Contract()
        self.decls: dict = {}  # key -> declaration
        self.shapes: dict = {}
        self.sizes: dict = {}  # key -> C expression of the bytes that move
        self.parents: dict | None = None  # id(node) -> parent in the function's body
        #: library calls that run on the device buffers, by id of the call (library_launch.py)
        self.library: dict[int, LibraryLaunch] = library_launches(
            module, self.facts, self.rw, info.get("library_target", ""), self.sized)

    # ---- keys and sides -------------------------------------------------------------------

    def key(self, decl) -> tuple:
        if self.facts.is_formal(decl):
            return ("formal", next(k for k, p in enumerate(self.facts.params) if p is decl))
        if not self.facts.is_local(decl):
            return ("global", decl.name)
        return ("local", id(decl))

    def track(self, decl, why: c_ast.Node, sized: bool = True) -> tuple:
        """The key of an array the analysis follows; ``sized``: its size must be known (it moves)."""
        k = self.key(decl)
        if k in self.decls and (not sized or all(e is not None for e in self.shapes[k].extents)):
            return k
        shape = self.facts.shape(decl)
        allocated = self.allocation(decl)
        if allocated is not None:
            self.sizes[k] = allocated
        if shape is not None and shape.extents and shape.extents[0] is None and allocated is None:
            # a pointer (``double (*A)[N] = malloc(...)``): as far as the function reaches
            regions = [r for n in self.scope_items(decl) for r in self.rw.of(n)
                       if r.var == decl.name and r.rank == shape.rank]
            far = reach(decl.name, regions) if regions else None
            if far is not None and not any(
                    isinstance(n, c_ast.ID) and id(self.facts.names.decl_of(n)) in self.facts.modified
                    for n in walk(far)):
                shape = replace(shape, extents=(far, *shape.extents[1:]))
        if shape is None or (sized and allocated is None and any(e is None for e in shape.extents)):
            raise PassFailed(f"{where(why)}: cannot keep {decl.name} on the device: its size is unknown "
                             "(declare it with its extents)")
        if k not in self.sizes and all(e is not None for e in shape.extents):
            self.sizes[k] = _size(decl, shape)
        self.decls[k], self.shapes[k] = decl, shape
        return k

    def sized(self, decl, why: c_ast.Node) -> bool:
        """Whether the analysis can follow and move the array ``decl`` (its size is known)."""
        try:
            self.track(decl, why)
        except PassFailed:
            return False
        return True

    def scope_items(self, decl) -> list[c_ast.Node]:
        """The statements of the block that declares ``decl`` (the function's body for a formal or
        a global): their regions name only variables visible where the array is."""
        body = self.module.ast.body
        for n in walk(body):
            if isinstance(n, c_ast.Compound) and any(x is decl for x in n.block_items or []):
                return list(n.block_items)
        return list(body.block_items or [])

    def allocation(self, decl) -> c_ast.Node | None:
        """The bytes of ``T *p = malloc(e)`` (``calloc(a, b)``: ``a * b``) when ``p`` and ``e``'s
        variables keep their values in the function, else None."""
        init = getattr(decl, "init", None)
        name = callee_name(init) if init is not None else None
        args = init.args.exprs if name in ("malloc", "calloc") and init.args else []
        if not (name == "malloc" and len(args) == 1 or name == "calloc" and len(args) == 2):
            return None
        if id(decl) in self.facts.address_taken or any(  # the pointer keeps its first value
                (isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID)
                 and self.facts.names.decl_of(n.lvalue) is decl)
                or (isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--")
                    and isinstance(n.expr, c_ast.ID) and self.facts.names.decl_of(n.expr) is decl)
                for n in walk(self.module.ast.body)):
            return None
        skip = {i for a in args for i in unevaluated(a)}
        if any(isinstance(n, c_ast.ID) and id(n) not in skip
               and id(self.facts.names.decl_of(n)) in self.facts.modified for a in args for n in walk(a)):
            return None
        return copy_node(args[0]) if name == "malloc" else c_ast.BinaryOp("*", copy_node(args[0]), copy_node(args[1]))

    def exported(self, key: tuple) -> bool:
        return not self.root and key[0] != "local"

    def valid(self, key: tuple, side: int, state: dict) -> bool:
        v = state.get(key, self.start(key))[side]
        return v == 1 or (v == E and key in self.contract.needs[side])

    def start(self, key: tuple) -> tuple:
        return (E, E) if self.exported(key) else (1, 0)

    # ---- copies ---------------------------------------------------------------------------

    def copy(self, key: tuple, side: int) -> c_ast.Node:
        decl = self.decls[key]
        if key not in self.sizes:
            raise PassFailed(f"{where(decl)}: cannot move {decl.name} between host and device: its size is "
                             "unknown (declare it with its extents)")
        fn = "passman_accel_update_host" if side == HOST else "passman_accel_update_device"
        return c_ast.FuncCall(c_ast.ID(fn), c_ast.ExprList([c_ast.ID(decl.name), copy_node(self.sizes[key])]))

    def emit(self, where_: tuple, node: c_ast.Node) -> None:
        if self.emitting:
            self.edits.append((*where_, node))

    def need(self, key: tuple, side: int, state: dict, at: tuple) -> None:
        """Make ``side`` valid for ``key`` before ``at`` (a copy, or a requirement of the contract)."""
        if self.valid(key, side, state):
            return
        v = state.get(key, self.start(key))
        if v[side] == E:  # untouched since entry: the callers will provide it
            self.contract.needs[side].add(key)
            raise _Restart
        if not self.valid(key, 1 - side, state):
            raise PassFailed(f"{where(at[1])}: kernel_data_mapping lost track of {self.decls[key].name}")
        self.emit(at, self.copy(key, side))
        state[key] = (1, 1)

    def read_beyond(self, stmt: c_ast.Node, key: tuple) -> bool:
        """Whether, after ``stmt``, an element of ``key`` that ``stmt`` does not certainly write
        may be read (by the host, a launch, or the callers).

        A launch (or a call) that writes part of an array needs the rest of it valid on the
        device only because the array moves whole: a copy back would bring the device's
        garbage over the elements it did not write. When ``stmt`` imports none of the array
        and what follows reads only elements ``stmt`` writes (their IN regions, in the
        function, after ``stmt`` and outside any loop around it), no copy is needed: adi's
        ``v``, ``p``, ``q``, durbin's ``z`` (work arrays nobody reads after the kernels).
        """
        if self.exported(key) or (self.root and self.module.name != "main" and key[0] != "local"):
            return True  # the callers may read any of it
        if self.facts.has_goto:
            return True
        decl, shape = self.decls[key], self.shapes[key]
        write = self.rw.find(stmt, decl.name, "W", shape.rank)
        written = write.must if write is not None else None
        body = self.module.ast.body
        if self.parents is None:
            self.parents = parent_map(body)
        node = stmt
        while node is not body:
            parent = self.parents.get(id(node))
            if isinstance(parent, c_ast.Compound):
                items = parent.block_items or []
                at = next(j for j, x in enumerate(items) if x is node)
                if any(self.imports_beyond(later, key, written) for later in items[at + 1:]):
                    return True
            elif not isinstance(parent, (c_ast.If, c_ast.Label)):
                return True  # a loop's next iteration, or an order this does not follow
            node = parent
        return False

    def imports_beyond(self, stmt: c_ast.Node, key: tuple, written: isl.Set | None) -> bool:
        """Whether ``stmt`` may read an element of ``key`` outside ``written`` that it does not
        write first (its IN region, compared only over variables the function never changes)."""
        decl, shape = self.decls[key], self.shapes[key]
        regions = self.rw.of(stmt)
        if any(r.var == "*anywhere*" for r in regions):
            return True
        if not any(r.var == decl.name for r in regions):
            return key in self.host_effects(stmt)[0]  # named without a region: an unknown use
        imported = self.ins.find(stmt, decl.name, "IN", shape.rank)
        if imported is None:
            return False
        if written is None:
            return True
        changing = {p for s_ in (imported.set, written) for p in s_.get_var_names(isl.dim_type.param)
                    if id(self.facts.decl_named(p)) in self.facts.modified}
        if changing:
            return True
        try:
            got = imported.set.align_params(written.get_space())
            return not got.is_subset(written.align_params(got.get_space()))
        except isl.Error:
            return True

    # ---- effects of leaves ----------------------------------------------------------------

    def host_effects(self, stmt: c_ast.Node) -> tuple[set, set]:
        """(keys read, keys written) by host code in ``stmt`` (no device activity inside)."""
        reads, writes = set(), set()
        tracked = {id(d): k for k, d in self.decls.items()}
        regions = self.rw.of(stmt)
        seen = set()
        for r in regions:
            if r.var == "*anywhere*":
                reads |= set(self.decls)
                writes |= set(self.decls)
                continue
            d = self.facts.decl_named(r.key)
            k = tracked.get(id(d))
            if k is None:
                continue
            seen.add(k)
            if r.rank == self.shapes[k].rank:  # the elements (not a pointer's own value)
                (reads if r.mode == "R" else writes).add(k)
        parents = parent_map(stmt)
        for n in walk(stmt):  # the elements named without a region (unknown effect)
            if isinstance(n, c_ast.ID) and _reaches_elements(n, parents.get(id(n))):
                k = tracked.get(id(self.facts.names.decl_of(n)))
                if k is not None and k not in seen:
                    reads.add(k)
                    writes.add(k)
        return reads, writes

    def host(self, stmt: c_ast.Node, state: dict, at: tuple) -> None:
        if callee_name(stmt) == "free":  # the contents die: no copy is needed for them
            return
        if isinstance(stmt, c_ast.Decl) and callee_name(stmt.init) == "malloc":
            k = next((k for k, d in self.decls.items() if d is stmt), None)
            if k is not None:  # fresh memory holds no value: either side is as good
                state[k] = (1, 1)
                return
        reads, writes = self.host_effects(stmt)
        for k in sorted(reads | writes, key=repr):
            self.need(k, HOST, state, at)
        for k in writes:
            state[k] = (1, 0)

    def launch(self, call: c_ast.FuncCall, state: dict, at: tuple) -> None:
        needs, writes = set(), set()
        for decl in self.launch_arrays(call):
            k = self.track(decl, call)
            shape = self.shapes[k]
            read, write = self.rw.find(call, decl.name, "R", shape.rank), self.rw.find(call, decl.name, "W", shape.rank)
            imported = self.ins.find(call, decl.name, "IN", shape.rank)
            if imported is not None or (write is not None and not _whole(self.facts, shape, write)
                                        and self.read_beyond(call, k)):
                needs.add(k)
            elif read is not None and write is None:
                needs.add(k)
            if write is not None:
                writes.add(k)
        for k in sorted(needs, key=repr):
            self.need(k, DEV, state, at)
        for k in writes:
            state[k] = (0, 1)

    def call(self, call: c_ast.FuncCall, state: dict, at: tuple, stmt: c_ast.Node) -> None:
        """A call of a function with a contract in ``stmt``: its needs, then its effects."""
        callee = call.name.name
        contract = self.contracts[callee]
        binding = self.bind(call)
        for side in (HOST, DEV):
            for ck in sorted(contract.needs[side], key=repr):
                if ck not in binding:
                    continue
                k = binding[ck]
                if side == DEV and self.ins.find(stmt, self.decls[k].name, "IN", self.shapes[k].rank) is None \
                        and not self.read_beyond(stmt, k):
                    continue  # the call imports none of it: only the device copy's garbage would come back
                self.need(k, side, state, at)
        for ck, (h, d) in contract.post.items():
            k = binding.get(ck)
            if k is None:
                continue
            old = state.get(k, self.start(k))
            state[k] = (old[HOST] if h == E else h, old[DEV] if d == E else d)

    def bind(self, call: c_ast.FuncCall) -> dict:
        """The caller's key of each key of the callee's contract."""
        callee = call.name.name
        contract = self.contracts[callee]
        args = call.args.exprs if call.args else []
        out = {}
        for ck in set(contract.post) | contract.needs[HOST] | contract.needs[DEV]:
            if ck[0] == "formal":
                arg = args[ck[1]] if ck[1] < len(args) else None
                decl = self.facts.names.decl_of(arg) if isinstance(arg, c_ast.ID) else None
                if decl is None or self.facts.shape(decl) is None:
                    names_array = arg is None or any(
                        isinstance(n, c_ast.ID) and self.facts.shape(self.facts.names.decl_of(n)) is not None
                        for n in walk(arg))
                    host_only = ck not in contract.needs[DEV] and contract.post.get(ck, (E, E))[HOST] != 0
                    if host_only and not names_array:  # ``&alpha``: memory only the host uses
                        continue
                    raise PassFailed(f"{where(call)}: cannot keep arrays on the device across the call to "
                                     f"{callee}: argument {ck[1] + 1} is not a plain array variable")
            else:
                decl = self.facts.global_decl(ck[1])
                if decl is None:
                    raise PassFailed(f"{where(call)}: {callee} uses the global {ck[1]}, hidden here")
            out[ck] = self.track(decl, call)
        return out

    # ---- statements -----------------------------------------------------------------------

    def is_launch(self, node: c_ast.Node) -> bool:
        """Whether ``node`` launches work on the device: a kernel's launcher or a library launch."""
        return callee_name(node) in self.launchers or id(node) in self.library

    def launch_arrays(self, call: c_ast.FuncCall) -> list:
        """The declarations of the arrays a launch uses (a launcher's array arguments, the arrays
        a library launch's pointers point into)."""
        if id(call) in self.library:
            return self.library[id(call)].decls
        out = []
        for arg in call.args.exprs if call.args else []:
            decl = self.facts.names.decl_of(arg) if isinstance(arg, c_ast.ID) else None
            if decl is not None and self.facts.shape(decl) is not None:
                out.append(decl)
        return out

    def active(self, stmt: c_ast.Node) -> bool:
        return any(callee_name(n) in self.active_names or self.is_launch(n) for n in walk(stmt))

    def run(self, stmt: c_ast.Node | None, state: dict, at: tuple) -> dict:
        """The state after ``stmt`` from ``state`` (mutated); ``at``: where copies before it go."""
        if stmt is None:
            return state
        if not self.active(stmt) and not (  # a branch: copies back go into the branch that reads
                isinstance(stmt, (c_ast.If, c_ast.Compound, c_ast.Label)) and not escaping_jumps(stmt)
                and not all(self.valid(k, HOST, state) for k in set().union(*self.host_effects(stmt)))):
            self.host(stmt, state, at)
            for j in escaping_jumps(stmt):
                if isinstance(j, c_ast.Return) and self.returns is not None:
                    self.returns.append(dict(state))
            return state
        match stmt:
            case c_ast.Compound():
                items = stmt.block_items or []
                for k, item in enumerate(items):
                    state = self.run(item, state, ("before", item, stmt, k))
                return state
            case c_ast.Label():
                return self.run(stmt.stmt, state, at)
            case c_ast.FuncCall() if self.is_launch(stmt):
                self.launch(stmt, state, at)
                return state
            case c_ast.Assignment() if self.is_launch(stmt.rvalue):  # ``s = cblas_ddot(...)``: a scalar
                self.launch(stmt.rvalue, state, at)
                return state
            case c_ast.If():
                self.plain(stmt)
                self.host(stmt.cond, state, at)
                then = self.run(stmt.iftrue, dict(state), ("start", stmt, "iftrue"))
                other = self.run(stmt.iffalse, dict(state), ("start", stmt, "iffalse"))
                return self.meet({"iftrue": then, "iffalse": other}, stmt)
            case c_ast.For() | c_ast.While() | c_ast.DoWhile():
                return self.loop(stmt, state, at)
            case c_ast.Switch() | c_ast.Goto() | c_ast.Case() | c_ast.Default():
                raise PassFailed(f"{where(stmt)}: kernel_data_mapping cannot place copies around this "
                                 "statement (it launches kernels)")
        self.calls(stmt, state, at)
        if isinstance(stmt, c_ast.Return) and self.returns is not None:
            self.returns.append(dict(state))
        return state

    def beside(self, stmt: c_ast.Node, inside: set) -> set:
        """Keys the host may use in ``stmt`` outside the nodes ``inside`` (calls with contracts):
        named there, or used by another function called there (its summary)."""
        tracked = {id(d): k for k, d in self.decls.items()}
        out = set()
        for n in walk(stmt):
            if id(n) in inside:
                continue
            if isinstance(n, c_ast.ID):
                k = tracked.get(id(self.facts.names.decl_of(n)))
                if k is not None:
                    out.add(k)
            elif isinstance(n, c_ast.FuncCall):
                name = callee_name(n)
                if name is None or name not in self.module.ws:
                    out |= {k for k in self.decls if k[0] == "global"}
                    continue
                summary = self.module.ws[name].resource("summary_regions")
                formals = {f.name for f in summary.formals}
                out |= {("global", r.var) for r in summary.regions
                        if r.var not in formals and ("global", r.var) in self.decls}
        return out

    def calls(self, stmt: c_ast.Node, state: dict, at: tuple) -> None:
        """A statement that calls functions with contracts in its expressions (``x = f(A)``,
        ``printf("%g", checksum(n, A))``): their needs and the host's before it, then their
        effects and the host's writes."""
        for n in walk(stmt):
            if self.is_launch(n):
                raise PassFailed(f"{where(n)}: the launch {callee_name(n)} is not a statement of its own")
        calls = [n for n in walk(stmt) if callee_name(n) in self.active_names]
        bound: dict = {}
        for c in calls:
            bound.update({k: c for k in self.bind(c).values()})
        inside = {id(x) for c in calls for x in walk(c)}
        reads, writes = self.host_effects(stmt)
        beside = self.beside(stmt, inside) & set(bound)
        reads, writes = reads - (set(bound) - beside), writes - (set(bound) - beside)
        for k in beside:  # used by the host beside a call, in an order C leaves open
            c = bound[k]
            ck = next(ck for ck, kk in self.bind(c).items() if kk == k)
            contract = self.contracts[callee_name(c)]
            if 0 in contract.post.get(ck, (E, E)) or (k in writes and ck in contract.needs[DEV]):
                raise PassFailed(f"{where(stmt)}: {self.decls[k].name} is used beside the call to "
                                 f"{callee_name(c)}, which moves it, in one statement (split the statement)")
        for k in sorted(reads | writes, key=repr):
            self.need(k, HOST, state, at)
        for c in calls:
            self.call(c, state, at, stmt)
        for k in writes:
            state[k] = (1, 0)

    def plain(self, stmt: c_ast.Node) -> None:
        for j in escaping_jumps(stmt):
            raise PassFailed(f"{where(j)}: cannot keep arrays on the device: {describe_jump(j)} leaves a "
                             "statement that launches kernels")

    def meet(self, paths: dict, stmt: c_ast.Node) -> dict:
        """The state after the branches of an ``if`` (a copy at the end of a branch where needed)."""
        keys = set().union(*paths.values())
        out = {}
        for k in keys:
            vals = {p: s.get(k, self.start(k)) for p, s in paths.items()}
            h = all(self.valid(k, HOST, s) for s in paths.values())
            d = all(self.valid(k, DEV, s) for s in paths.values())
            if not h and not d:  # no side valid on every path: make the host copy valid everywhere
                for p, s in paths.items():
                    if not self.valid(k, HOST, s):
                        self.emit(("end", stmt, p), self.copy(k, HOST))
                        s[k] = (1, 1)
                h = True
            out[k] = (self.side(k, HOST, vals.values(), h), self.side(k, DEV, vals.values(), d))
        return out

    def side(self, key, side, values, valid: bool):
        """One side after a meet: E when E on every path, else whether valid on every path."""
        if all(v[side] == E for v in values):
            return E
        return 1 if valid else 0

    def merge(self, a: dict, b: dict) -> dict:
        """The meet of two states (no copies: for the loop's fix point)."""
        out = {}
        for k in set(a) | set(b):
            va, vb = a.get(k, self.start(k)), b.get(k, self.start(k))
            out[k] = tuple(
                E if va[s] == E and vb[s] == E
                else 1 if self.valid(k, s, a) and self.valid(k, s, b) else 0
                for s in (HOST, DEV)
            )
        return out

    def loop(self, stmt, state: dict, at: tuple) -> dict:
        self.plain(stmt.stmt)
        header = [n for n in (getattr(stmt, "init", None), stmt.cond, getattr(stmt, "next", None)) if n is not None]
        if isinstance(stmt, c_ast.For) and stmt.init is not None:
            self.host(stmt.init, state, at)
        # before the loop: what its launches use and its host part does not write goes to the
        # device; what its host part reads and its launches do not write comes back
        dev_use, dev_write, host_read, host_write = self.touches(stmt.stmt)
        for n in header:
            r, w = self.host_effects(n)
            host_read |= r | w
            host_write |= w
            if (r | w) & dev_write:
                raise PassFailed(f"{where(stmt)}: the condition of this loop reads an array its kernels write")
        for k in self.overwritten(stmt):  # its value at entry is dead: either side is as good
            state[k] = (1, 1)
        for k in sorted(dev_use - host_write, key=repr):
            self.need(k, DEV, state, at)
        for k in sorted(host_read - dev_write, key=repr):
            self.need(k, HOST, state, at)
        entry = dict(state)
        emitting, self.emitting = self.emitting, False
        fixes: dict = {}
        head = entry
        try:
            for _ in range(100):
                end = self.iterate(stmt, dict(head), fixes)
                new = self.merge(entry, end)
                lost = [k for k in new if not self.valid(k, HOST, new) and not self.valid(k, DEV, new)]
                for k in lost:  # no side valid on every path into the head: copy at the body's end
                    fixes[k] = HOST if self.valid(k, HOST, entry) else DEV
                if lost:
                    continue
                if new == head:
                    break
                head = new
            else:  # pragma: no cover - the meet only goes down
                raise PassFailed(f"{where(stmt)}: kernel_data_mapping found no fix point for this loop")
        finally:
            self.emitting = emitting
        end = self.iterate(stmt, dict(head), fixes)
        if isinstance(stmt, c_ast.DoWhile):
            return end
        return head

    def overwritten(self, stmt: c_ast.Node) -> list:
        """Keys whose every element ``stmt`` writes before reading any (no IN region, a MUST write
        of the whole array): their values before ``stmt`` are never used."""
        out = []
        for k, decl in self.decls.items():
            shape = self.shapes[k]
            if self.ins.find(stmt, decl.name, "IN", shape.rank) is not None:
                continue
            if _whole(self.facts, shape, self.rw.find(stmt, decl.name, "W", shape.rank)):
                out.append(k)
        return out

    def iterate(self, stmt, state: dict, fixes: dict) -> dict:
        state = self.run(stmt.stmt, state, ("start", stmt, "stmt"))
        for k, side in sorted(fixes.items(), key=repr):
            if not self.valid(k, side, state):
                self.emit(("end", stmt, "stmt"), self.copy(k, side))
                state[k] = (1, 1)
        return state

    def touches(self, stmt: c_ast.Node) -> tuple[set, set, set, set]:
        """Keys used and written by launches, read and written by host code, under ``stmt``."""
        dev_use, dev_write, host_read, host_write = set(), set(), set(), set()

        def visit(s: c_ast.Node) -> None:
            if not self.active(s):
                r, w = self.host_effects(s)
                host_read.update(r | w)
                host_write.update(w)
                return
            name = callee_name(s)
            if isinstance(s, c_ast.Assignment):
                name, s = callee_name(s.rvalue), s.rvalue
            elif isinstance(s, c_ast.Return) and s.expr is not None:
                name, s = callee_name(s.expr), s.expr
            if self.is_launch(s):
                probe = {}
                saved = self.emitting
                self.emitting = False
                try:
                    for decl in self.launch_arrays(s):
                        k = self.track(decl, s)
                        dev_use.add(k)
                        probe[k] = (1, 1)
                    self.launch(s, probe, ("before", s, None, 0))
                finally:
                    self.emitting = saved
                dev_write.update(k for k, v in probe.items() if v == (0, 1))
                return
            if name in self.active_names:
                c = self.contracts[name]
                for ck, k in self.bind(s).items():
                    if ck in c.needs[HOST]:
                        host_read.add(k)
                    if ck in c.needs[DEV]:
                        dev_use.add(k)
                    h, d = c.post.get(ck, (E, E))
                    if h == 0:
                        dev_write.add(k)
                    if d == 0:
                        host_write.add(k)
                        host_read.add(k)
                return
            for n in (getattr(s, "cond", None), getattr(s, "init", None), getattr(s, "next", None)):
                if n is not None:
                    r, w = self.host_effects(n)
                    host_read.update(r | w)
                    host_write.update(w)
            for c in child_nodes(s):
                if isinstance(c, c_ast.Node) and not isinstance(c, c_ast.ExprList) and c not in (
                        getattr(s, "cond", None), getattr(s, "init", None), getattr(s, "next", None)):
                    visit(c)

        visit(stmt)
        return dev_use, dev_write, host_read, host_write

    # ---- the whole function ---------------------------------------------------------------

    def analyse(self) -> None:
        body = self.module.ast.body
        for _ in range(1000):
            self.edits: list = []
            self.emitting = True
            self.returns = [] if not self.root else None
            self.decls, self.shapes, self.sizes = {}, {}, {}
            self.parents = None
            try:
                self.prepare(body)
                state = self.run(body, {}, ("start", self.module.ast, "body"))
            except _Restart:
                continue
            break
        else:  # pragma: no cover - each restart adds a requirement
            raise PassFailed(f"kernel_data_mapping: no contract for {self.module.name}")
        exits = [state, *(self.returns or [])]
        if self.root:
            if self.module.name != "main":  # callers outside the program read the host copies
                for k in sorted(self.decls, key=repr):
                    if k[0] != "local" and not self.valid(k, HOST, state):
                        self.emit(("end", self.module.ast, "body"), self.copy(k, HOST))
            return
        post = exits[0]
        for s in exits[1:]:
            post = self.merge(post, s)
        for k, v in post.items():
            if k[0] == "local":
                continue
            if not self.valid(k, HOST, post) and not self.valid(k, DEV, post):
                raise PassFailed(f"{where(self.module.ast)}: {self.module.name} returns with no valid copy of "
                                 f"{self.decls[k].name} on every path")
            if v != (E, E):
                self.contract.post[k] = v

    def prepare(self, body: c_ast.Node) -> None:
        """Track every array a launch or a call with a contract uses; refuse aliases of them."""
        for n in walk(body):
            name = callee_name(n)
            if id(n) in self.library:
                for decl in self.launch_arrays(n):
                    self.track(decl, n)
            elif name in self.launchers:
                for arg in n.args.exprs if n.args else []:
                    if isinstance(arg, c_ast.ID):
                        d = self.facts.names.decl_of(arg)
                        if d is not None and self.facts.shape(d) is not None:
                            self.track(d, n)
                    elif any(isinstance(x, c_ast.ID) and self.facts.shape(self.facts.names.decl_of(x)) is not None
                             for x in walk(arg)):
                        raise PassFailed(f"{where(n)}: cannot keep arrays on the device: an array argument of "
                                         f"{name} is not a plain variable")
            elif name in self.active_names:
                self.bind(n)
        for n in walk(body):  # arrays of the callers used on the host: part of the contract
            for r in self.rw.of(n):
                d = self.facts.decl_named(r.key) if r.var != "*anywhere*" else None
                if d is None or self.facts.is_local(d) and not self.facts.is_formal(d):
                    continue
                shape = self.facts.shape(d)
                if shape is not None and r.rank == shape.rank:
                    self.track(d, n, sized=False)
        tracked = {id(d) for d in self.decls.values()}
        for n in walk(body):
            value = None
            if isinstance(n, c_ast.Assignment):
                value = n.rvalue
            elif isinstance(n, c_ast.Decl) and n.init is not None:
                value = n.init
            if value is not None and not isinstance(value, c_ast.InitList):
                base = value
                while isinstance(base, (c_ast.Cast, c_ast.UnaryOp)) and getattr(base, "op", "&") in ("&", "+", "-"):
                    base = base.expr
                if isinstance(base, c_ast.BinaryOp) and base.op in ("+", "-"):
                    base = base.left
                if isinstance(base, c_ast.ID) and id(self.facts.names.decl_of(base)) in tracked:
                    raise PassFailed(f"{where(n)}: cannot keep {base.name} on the device: another pointer "
                                     "is set to it")


def _program(ws) -> tuple[dict, list[str]]:
    """The launchers, and the functions with device activity, callees first."""
    import networkx  # noqa: F401  (the call graph is a networkx graph)

    graph = ws.resource("callgraph")
    launch = set()
    for m in ws.modules:
        if not ws.stub_info(m.name):
            launch |= launchers(m)
    kernels = set()
    for name in launch:
        kernels |= set(graph.successors(name)) if name in graph else set()
    active = set()
    changed = True
    while changed:
        changed = False
        for m in ws.modules:
            if m.name in active or m.name in launch or m.name in kernels or ws.stub_info(m.name):
                continue
            callees = set(graph.successors(m.name)) if m.name in graph else set()
            if callees & (launch | active):
                active.add(m.name)
                changed = True
    sub = graph.subgraph(active)
    try:
        order = list(reversed(list(nx.topological_sort(sub))))
    except nx.NetworkXUnfeasible:
        raise PassFailed("kernel_data_mapping: functions that launch kernels call each other recursively") from None
    return {"launchers": launch, "active": active}, order


@transformation(scope="program", reads=["callgraph", "poly_facts", "regions", "in_regions"])
def kernel_data_mapping(ws, library_target: str = "") -> None:
    """Keep arrays on the device across launches, loops and calls (see the module docstring).

    ``library_target`` (default ``""``: every library call stays a host call): the build target
    (``cpu`` for the runtime's emulation, ``cuda``) whose device implementations of library
    functions run the calls on the mapped device buffers (:mod:`.library_launch`).
    """
    info, order = _program(ws)
    info["library_target"] = library_target
    if not info["launchers"]:
        raise PassFailed("kernel_data_mapping: the program launches no kernel (run gpu_ify first)")
    graph = ws.resource("callgraph")
    for name in order:  # a function with kernels must be called, if at all, by its name
        for m in ws.modules:
            if m.name == name or ws.stub_info(m.name):
                continue
            uses = [n for n in walk(m.ast) if isinstance(n, c_ast.ID) and n.name == name]
            parents = parent_map(m.ast) if uses else {}
            for n in uses:
                parent = parents.get(id(n))
                if not (isinstance(parent, c_ast.FuncCall) and parent.name is n):
                    raise PassFailed(f"{where(n)}: {name} launches kernels and is used as a pointer")
    for name in order:  # before the analyses: an edit may copy the AST they would point into
        ws[name].edit()
    contracts: dict[str, Contract] = {}
    plans = []
    for name in order:
        module = ws[name]
        callers = [c for c in graph.predecessors(name) if c in info["active"] or c not in info["launchers"]]
        root = name == "main" or not callers
        plan = _Plan(module, info, contracts, root)
        plan.analyse()
        contracts[name] = plan.contract
        plans.append(plan)
    for plan in plans:
        _apply(plan)
    for plan in plans:
        for header in [HEADER, *(launch.header for launch in plan.library.values() if launch.header)]:
            plan.module.cu.include(header)
    ws.enable_broker("accel")


def _apply(plan: _Plan) -> None:
    """Insert the planned copies and make every launch take the arrays' device buffers."""
    module = plan.module
    starts: dict = {}
    befores: dict = {}
    for kind, node, where_, *rest in plan.edits:
        copy_ = rest[-1]
        if kind == "before":
            befores.setdefault(id(node), (node, where_, []))[2].append(copy_)
        else:
            starts.setdefault((kind, id(node), where_), (kind, node, where_, []))[3].append(copy_)
    placed: list = []
    for node, block, copies in befores.values():
        if block is None:
            continue
        items = block.block_items
        k = next(j for j, x in enumerate(items) if x is node)
        for c in _unique(copies):
            j = k
            if c.name.name == "passman_accel_update_device":  # right after the host's last write
                while j > 0 and _passes(plan, items[j - 1], c):
                    j -= 1
            placed.append((items, items[j], c))
    for items, anchor, c in placed:  # each copy goes just before its statement
        items.insert(next(i for i, x in enumerate(items) if x is anchor), c)
    for kind, node, attr, copies in starts.values():
        copies = _unique(copies)
        if attr == "body" and isinstance(node, c_ast.FuncDef):
            target = node.body
        else:
            target = getattr(node, attr)
            if not isinstance(target, c_ast.Compound):
                target = c_ast.Compound([] if target is None else [target], getattr(node, "coord", None))
                setattr(node, attr, target)
        target.block_items = target.block_items or []
        if kind == "start":
            target.block_items[0:0] = copies
        else:
            items = target.block_items
            k = len(items)
            while k > 0 and isinstance(items[k - 1], c_ast.Return):
                k -= 1
            items[k:k] = copies
    for n in walk(module.ast.body):
        if callee_name(n) in plan.launchers:
            args = n.args.exprs if n.args else []
            for j, arg in enumerate(args):
                decl = plan.facts.names.decl_of(arg) if isinstance(arg, c_ast.ID) else None
                key = next((k for k, d in plan.decls.items() if d is decl), None) if decl is not None else None
                if key is not None:
                    args[j] = c_ast.FuncCall(c_ast.ID("passman_accel_resolve"), c_ast.ExprList([
                        c_ast.ID(decl.name), copy_node(plan.sizes[key])]))
    if plan.library:  # library launches: the device entry point on the arrays' device addresses
        parents = parent_map(module.ast.body)
        for launch in plan.library.values():
            replace_child(parents[id(launch.call)], launch.call, device_call(launch, partial(_device_address, plan)))


def _device_address(plan: _Plan, position: int, decl, arg: c_ast.Node) -> c_ast.Node:
    """The device address of a library launch's pointer argument ``arg`` into the array ``decl``:
    its buffer (``passman_accel_resolve``), or the address in it (``passman_accel_resolve_at``)."""
    key = next(k for k, d in plan.decls.items() if d is decl)
    base = [c_ast.ID(decl.name), copy_node(plan.sizes[key])]
    bare = arg
    while isinstance(bare, c_ast.Cast):
        bare = bare.expr
    if isinstance(bare, c_ast.ID) and bare.name == decl.name:
        return c_ast.FuncCall(c_ast.ID("passman_accel_resolve"), c_ast.ExprList(base))
    return c_ast.FuncCall(c_ast.ID("passman_accel_resolve_at"), c_ast.ExprList([*base, arg]))


def _passes(plan: _Plan, stmt: c_ast.Node, copy_: c_ast.FuncCall) -> bool:
    """Whether a copy to the device can move up before ``stmt``: a plain host statement that
    neither uses the array nor declares or names a variable of the copy."""
    if plan.active(stmt) or isinstance(stmt, (c_ast.Case, c_ast.Default, c_ast.Pragma)):
        return False
    targets = {n.name for n in walk(plan.module.ast.body) if isinstance(n, c_ast.Goto)}
    if isinstance(stmt, c_ast.Label) and stmt.name in targets:
        return False
    names = {n.name for n in walk(copy_) if isinstance(n, c_ast.ID)}
    for n in walk(stmt):
        if isinstance(n, c_ast.ID) and n.name in names or isinstance(n, c_ast.Decl) and n.name in names:
            return False
    key = next((k for k, d in plan.decls.items() if d.name == copy_.args.exprs[0].name), None)
    reads, writes = plan.host_effects(stmt)
    return key is not None and key not in reads | writes


def _unique(copies: list) -> list:
    """Copies in order, each (function, array) once."""
    out, seen = [], set()
    for c in copies:
        sig = (c.name.name, c.args.exprs[0].name)
        if sig not in seen:
            seen.add(sig)
            out.append(c)
    return out
