"""Sequential promotion: host code between kernels runs on the device, on one work-item.

Amini 2012 §3.7 (PIPS's ``gpu_promote_sequential``). In a sequential loop
whose body launches kernels, the host statements between the launches use
the arrays the kernels change, so every iteration copies them back and
forth. Run on the device as a kernel of one work-item, they are slow (one
thread) but move nothing: lu, atax, gramschmidt keep their arrays on the
device for the whole loop (with :mod:`.data_mapping`).

Before (after ``gpu_ify``)::

    for (i = 0; i < n; i++) {
        for (j = 0; j < i; j++)                  /* sequential: on the host */
            a[i][j] /= a[j][j];
        p4a_launcher_0(n, a, i);
    }

After (``module.apply("gpu_promote_sequential")``)::

    for (i = 0; i < n; i++) {
        p4a_launcher_1(n, a, i);                 /* one work-item runs the j loop */
        p4a_launcher_0(n, a, i);
    }

A *run* is a maximal sequence of statements of such a loop body that are not
launches, declarations or pragmas. It is promoted when it can run on the
device (no call but the math library, no structure; see ``gpu_ify``), does
not leave the loop (``break``, ``return``...), and every scalar it writes is
its own (not read before the run writes it, not read after it: those get a
declaration in the kernel), or a local scalar that can become a one-element
array, a *cell* (``double alpha`` -> ``double alpha[1]``, uses ``alpha[0]``,
launchers and kernels taking the cell rather than its value): then the value
stays where its last writer put it and the transfers move it like an array
(durbin's recurrence). With ``when="transfers"`` (the default) only a
run that uses an array some launch of the loop uses is promoted (otherwise
it moves nothing); ``when="always"`` promotes every eligible run. Each run
left on the host is logged on ``passman.gpu`` with its reason.

A loop's *prologue*, the run right before a loop that launches kernels in a
block that is no loop's body (``y[0] = -r[0]; alpha = -r[0];`` before
durbin's loop), is promoted too when it holds no loop (one work-item then does
a constant amount of work), uses only arrays of the loop's kernels (with
``when="transfers"``) and writes no scalar that is not its own or already a
cell: on the host it would send every array it writes part of to the device
whole.

Properties:

- when: ``transfers`` (promote runs that share an array with the loop's launches) or ``always``
- prefix: prefix of the new functions' names (as gpu_ify's)
"""

from __future__ import annotations

import logging
from typing import Literal

from pycparser import c_ast

from passman import Module, PassFailed, transformation
from passman.astutil import callee_name, parent_map, replace_child, walk

from ..analysis.liveness import liveness
from ..cfacts.control import escaping_jumps
from ..cfacts.names import file_scope, resolve_names, where
from ..cfacts.sideeffects import writes
from ..cfacts.types import TypeEnv
from ..interproc.outline import outline
from .gpu_ify import device_obstacle, fresh_index, pass_globals
from .load_store import launchers

log = logging.getLogger("passman.gpu")


def _launch_name(stmt: c_ast.Node, names: set[str]) -> str | None:
    name = callee_name(stmt)
    return name if name in names else None


def _runs(body: c_ast.Compound, names: set[str]) -> list[list[c_ast.Node]]:
    """Maximal runs of a loop body's statements that are not launches, declarations or pragmas."""
    runs: list[list[c_ast.Node]] = []
    cur: list[c_ast.Node] = []
    for item in body.block_items or []:
        if (_launch_name(item, names) or isinstance(item, (c_ast.Decl, c_ast.Pragma, c_ast.EmptyStatement))
                or any(_launch_name(n, names) for n in walk(item))):
            if cur:
                runs.append(cur)
            cur = []
            continue
        cur.append(item)
    if cur:
        runs.append(cur)
    return runs


class _Cells(Exception):
    """Scalars a promoted run shares with the host code or the kernels: make them cells."""

    def __init__(self, decls: list):
        super().__init__()
        self.decls = decls


def _cell_uses(func: c_ast.FuncDef, is_target) -> None:
    """``x`` -> ``x[0]`` for every use under ``func`` of a declaration ``is_target`` accepts."""
    table = resolve_names(func, file_scope([]))
    parents = parent_map(func)
    for n in [n for n in walk(func.body) if isinstance(n, c_ast.ID)]:
        if is_target(table.decl_of(n)):
            replace_child(parents[id(n)], n, c_ast.ArrayRef(c_ast.ID(n.name), c_ast.Constant("int", "0"), n.coord))


def _cell_type(d: c_ast.Decl) -> None:
    """``T x = e`` -> ``T x[1] = {e}``."""
    d.type = c_ast.ArrayDecl(d.type, c_ast.Constant("int", "1"), [])
    if d.init is not None and not isinstance(d.init, c_ast.InitList):
        d.init = c_ast.InitList([d.init])


def make_cells(module: Module, decls: list, launchers: set[str]) -> None:
    """Turn the scalars ``decls`` of ``module`` into one-element arrays (cells), and the launchers
    and kernels that take them by value into ones that take the cell: the value then stays
    where the last writer (host or device) put it, and transfers move it like any array."""
    ws = module.ws
    func = module.ast
    names = {d.name for d in decls}
    targets = {id(d) for d in decls}
    table = resolve_names(func, file_scope(module.cu.ast.ext))
    calls = []
    for call in walk(func.body):
        if _launch_name(call, launchers) and call.args:
            for pos, a in enumerate(call.args.exprs):
                if isinstance(a, c_ast.ID) and id(table.decl_of(a)) in targets:
                    calls.append((call.name.name, pos))
    for d in decls:
        _cell_type(d)
    _cell_uses(func, lambda x: id(x) in targets)
    for call in walk(func.body):  # launches take the cell itself
        if _launch_name(call, launchers) and call.args:
            for pos, a in enumerate(call.args.exprs):
                if (isinstance(a, c_ast.ArrayRef) and isinstance(a.name, c_ast.ID) and a.name.name in names
                        and (call.name.name, pos) in calls):
                    call.args.exprs[pos] = a.name
    for launcher, pos in sorted(set(calls)):
        lf = ws[launcher].edit()
        param = lf.decl.type.args.params[pos]
        _cell_type(param)
        for kc in walk(lf.body):  # the kernel call passes the parameter on
            if isinstance(kc, c_ast.FuncCall) and isinstance(kc.name, c_ast.ID) and kc.args:
                for kpos, a in enumerate(kc.args.exprs):
                    if isinstance(a, c_ast.ID) and a.name == param.name and kc.name.name in ws:
                        kf = ws[kc.name.name].edit()
                        kparam = kf.decl.type.args.params[kpos]
                        if isinstance(kparam.type, c_ast.ArrayDecl):
                            continue
                        _cell_type(kparam)
                        _cell_uses(kf, lambda x, k=kparam: x is k)


class _Promoter:
    def __init__(self, module: Module, when: str, prefix: str):
        self.module, self.when, self.prefix = module, when, prefix
        self.names = launchers(module)
        func = module.ast
        self.table = resolve_names(func, file_scope(module.cu.ast.ext))
        self.live = liveness(func, self.table, TypeEnv(self.table, module.cu.ast.ext, func))
        self.done = 0
        self.refused: list[str] = []

    def arrays(self, nodes: list[c_ast.Node]) -> set[int]:
        out = set()
        for node in nodes:
            for n in walk(node):
                if isinstance(n, c_ast.ID):
                    d = self.table.decl_of(n)
                    if isinstance(d, c_ast.Decl) and isinstance(d.type, (c_ast.ArrayDecl, c_ast.PtrDecl)):
                        out.add(id(d))
        return out

    def obstacle(self, run: list[c_ast.Node], launches: list[c_ast.Node],
                 cells: bool = True) -> tuple[str | None, set]:
        """Why ``run`` stays on the host (None: it can go), and its own scalars; ``cells``:
        a scalar it shares with the code around may become a cell."""
        block = c_ast.Compound(run)
        for j in escaping_jumps(block):
            return f"it contains a jump out of it at line {j.coord.line if j.coord else '?'}", set()
        why = device_obstacle(self.module, block)
        if why:
            return why, set()
        if self.when == "transfers" and not self.arrays(run) & self.arrays(launches):
            return "it uses no array of the loop's kernels (nothing to save)", set()
        own: set = set()
        shared: list = []
        for w in writes(block):
            if w.address:
                return f"it takes the address of {w.base.name if w.base else 'a variable'}", set()
            d = self.table.decl_of(w.base) if w.base is not None else None
            if w.kind != "whole" or not isinstance(d, c_ast.Decl):
                continue  # an element of an array: the device buffer holds it
            if self.live.live_before(run[0], d) or self.live.live_after(run[-1], d):
                if not cells or not self.cellable(d):
                    return f"it writes the scalar {d.name}, whose value is used outside it", set()
                if all(d is not x for x in shared):
                    shared.append(d)
                continue
            own.add(d.name)
        if shared:  # they become one-element arrays, which the device holds
            raise _Cells(shared)
        return None, own

    def cellable(self, d: c_ast.Decl) -> bool:
        """A local arithmetic scalar that only its name reaches (it can become ``T x[1]``)."""
        func = self.module.ast
        params = func.decl.type.args.params if func.decl.type.args else []
        if any(p is d for p in params) or not isinstance(d.type, c_ast.TypeDecl):
            return False
        if not isinstance(d.type.type, c_ast.IdentifierType) or d.storage or "volatile" in d.type.quals:
            return False
        if not any(d is n for n in walk(func.body)):
            return False
        return not any(isinstance(n, c_ast.UnaryOp) and n.op == "&" and isinstance(n.expr, c_ast.ID)
                       and self.table.decl_of(n.expr) is d for n in walk(func.body))

    def loop(self, loop: c_ast.Node) -> None:
        body = loop.stmt
        if not isinstance(body, c_ast.Compound):
            return
        launches = [n for n in walk(body) if _launch_name(n, self.names)]
        if not launches:
            return
        for run in _runs(body, self.names):
            why, own = self.obstacle(run, launches)
            if why:
                self.refused.append(f"{where(run[0])}: statements of {self.module.name} stay on the host: {why}")
                continue
            self.promote(body, run, own)

    def prologue(self, loop: c_ast.Node, parents: dict) -> bool:
        """The host statements right before ``loop`` (a loop that launches kernels, in a block
        that is no loop's body: a function's body, a branch) that write the arrays its
        kernels use: ``y[0] = -r[0]`` before durbin's loop. On the host, they leave the
        arrays valid only there, and the device then needs a copy of each whole array
        they write a part of. Promoted when they contain no loop (one work-item does a
        constant amount of work, which no copy undercuts), every array they use is one of
        the loop's kernels' (no array moves for them), and every scalar they write is their
        own or already a cell. Whether it promoted them."""
        item = loop
        block = parents.get(id(loop))
        if isinstance(block, c_ast.Label):
            item, block = block, parents.get(id(block))
        if not isinstance(block, c_ast.Compound) or isinstance(
                parents.get(id(block)), (c_ast.For, c_ast.While, c_ast.DoWhile)):
            return False  # a loop's body: its runs are the loop's (see loop())
        items = block.block_items or []
        at = next(j for j, x in enumerate(items) if x is item)
        run = next((r for r in _runs(block, self.names) if at > 0 and r[-1] is items[at - 1]), None)
        launches = [n for n in walk(loop) if _launch_name(n, self.names)]
        if run is None or not launches:
            return False
        if any(isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile)) for x in run for n in walk(x)):
            why = "it holds a loop (before the loop, only straight-line code runs on one work-item)"
        elif self.when == "transfers" and not self.arrays(run) <= self.arrays(launches):
            why = "it uses an array the kernels after it do not (it would move)"
        else:
            why, own = self.obstacle(run, launches, cells=False)
        if why:
            self.refused.append(f"{where(run[0])}: statements of {self.module.name} stay on the host: {why}")
            return False
        self.promote(block, run, own)
        return True

    def promote(self, body: c_ast.Compound, run: list[c_ast.Node], own: set) -> None:
        """Replace ``run`` in ``body`` by a call of a launcher of a one-work-item kernel."""
        from .gpu_ify import own_privates

        module = self.module
        k = fresh_index(module, self.prefix)
        kernel, launcher = f"{self.prefix}_kernel_{k}", f"{self.prefix}_launcher_{k}"
        inner = own_privates(module, c_ast.Compound(list(run), run[0].coord), own)
        label, outer = module.new_label(), module.new_label()
        index = f"{self.prefix}_seq"
        decl = c_ast.Decl(index, [], [], [], [], c_ast.TypeDecl(index, [], None, c_ast.IdentifierType(["int"])),
                          c_ast.Constant("int", "0"), None)
        loop = c_ast.For(c_ast.DeclList([decl]), c_ast.BinaryOp("<=", c_ast.ID(index), c_ast.Constant("int", "0")),
                         c_ast.UnaryOp("p++", c_ast.ID(index)), c_ast.Label(label, inner, run[0].coord), run[0].coord)
        at = next(j for j, x in enumerate(body.block_items) if x is run[0])
        body.block_items[at:at + len(run)] = [c_ast.Pragma(f"passman launch {kernel}", run[0].coord),
                                              c_ast.Label(outer, loop, run[0].coord)]
        outline(module, label=label, name=kernel)
        pass_globals(module, kernel)
        outline(module, label=outer, name=launcher)
        pass_globals(module, launcher)
        self.names.add(launcher)
        self.done += 1
        log.info("%s: statements of %s run on the device as %s (one work-item)", where(run[0]), module.name, kernel)


@transformation(scope="module", reads=["function_scope"])
def gpu_promote_sequential(
    module: Module, when: Literal["transfers", "always"] = "transfers", prefix: str = "p4a"
) -> None:
    """Run the host statements between a loop's kernels on the device (see the module docstring)."""
    for _ in range(20):  # again after scalars became cells
        p = _Promoter(module, when, prefix)
        if not p.names:
            raise PassFailed(f"gpu_promote_sequential: {module.name} launches no kernel (run gpu_ify first)")
        loops = [n for n in walk(module.ast.body) if isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile))]
        try:
            for loop in loops:
                if any(loop is n for n in walk(module.ast.body)):  # not moved into a kernel
                    p.loop(loop)
        except _Cells as cells:
            make_cells(module, cells.decls, p.names)
            continue
        break
    done, refused = p.done, p.refused
    while True:  # then the loops' prologues, one at a time on the code as it now is
        q = _Promoter(module, when, prefix)
        parents = parent_map(module.ast.body)
        loops = [n for n in walk(module.ast.body) if isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile))]
        if not any(q.prologue(loop, parents) for loop in loops):
            refused = refused + q.refused
            break
        done += q.done
    for line in refused:
        log.info("%s", line)
    if not done:
        raise PassFailed(f"gpu_promote_sequential: no host statement of {module.name} can run on the device"
                         + (f" ({refused[0]})" if refused else ""))
