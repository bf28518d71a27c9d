"""Regions and dependences checked against brute force: a tiny interpreter traces every access.

For small values of the parameters, the interpreter runs the loop nests
(integer control only, array values ignored) and records each array
element read or written, with the iteration it happened in. Then:

* an EXACT region equals the traced set, a MAY region contains it, the
  MUST (under-approximation) is contained in it;
* a loop carries a dependence exactly when two traced accesses to one
  element, one a write, happen in different iterations of that loop
  within the same iteration of the enclosing loops.
"""

from __future__ import annotations

import itertools

import islpy as isl
import pytest
from pycparser import c_ast

from passman import Workspace
from passman.printer import to_c

KERNELS = r"""
void stencil(int n, int t, double A[n][n], double B[n][n]) {
    for (int s = 0; s < t; s++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                B[i][j] = A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1];
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                A[i][j] = B[i][j];
    }
}
void seidel(int n, int t, double A[n][n]) {
    for (int s = 0; s < t; s++)
        for (int i = 1; i <= n - 2; i++)
            for (int j = 1; j <= n - 2; j++)
                A[i][j] = A[i - 1][j - 1] + A[i][j + 1] + A[i + 1][j];
}
void tri(int n, double L[n][n], double x[n]) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++)
            x[i] = x[i] - L[i][j] * x[j];
        x[i] = x[i] / L[i][i];
    }
}
void guard(int n, double a[n], double b[n]) {
    for (int i = 0; i < n; i++)
        if (i != 3 && i < n - 2)
            a[i] = b[i + 2];
}
void skew(int n, int m, double a[], double b[n][m]) {
    for (int i = 0; i < n; i++)
        for (int j = i; j < m; j += 2)
            a[i + j] = a[i + j + 1] + b[i][j - i];
}
void down(int n, double a[n]) {
    for (int i = n - 1; i >= 1; i--)
        a[i - 1] = a[i] + a[(i < n - 3) ? i + 3 : n - 1];
}
void counter(int n, double a[], double b[]) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        b[k] = a[i];
        k = k + 2;
    }
    a[k] = 1.0;
}
void outer(int n, double a[n][n], double v[n]) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += a[i][j] * v[j];
        v[i] = s;
    }
}
"""

PARAMS = {
    "stencil": [{"n": 5, "t": 2}, {"n": 3, "t": 1}, {"n": 2, "t": 2}],
    "seidel": [{"n": 5, "t": 2}, {"n": 4, "t": 1}],
    "tri": [{"n": 4}, {"n": 1}],
    "guard": [{"n": 7}, {"n": 3}],
    "skew": [{"n": 3, "m": 6}, {"n": 4, "m": 3}],
    "down": [{"n": 7}, {"n": 2}],
    "counter": [{"n": 3}, {"n": 0}],
    "outer": [{"n": 3}],
}


class Trace:
    """Runs a function body with integer control, recording array accesses."""

    def __init__(self, func: c_ast.FuncDef, params: dict[str, int]):
        self.env: dict[str, int | float] = dict(params)
        self.loops: list[tuple[c_ast.For, int]] = []  # enclosing loops and current iteration count
        self.events: list[tuple[str, tuple[int, ...], str, tuple]] = []  # (array, index, mode, iteration)
        self.clock = 0
        self.block(func.body)

    def value(self, e: c_ast.Node):
        match e:
            case c_ast.Constant():
                return float(e.value) if "." in e.value else int(e.value)
            case c_ast.ID():
                return self.env.get(e.name, 0)
            case c_ast.ArrayRef():
                self.access(e, "read")
                return 0.0
            case c_ast.UnaryOp(op="-"):
                return -self.value(e.expr)
            case c_ast.BinaryOp(op="&&"):
                return int(bool(self.value(e.left)) and bool(self.value(e.right)))
            case c_ast.BinaryOp():
                a, b = self.value(e.left), self.value(e.right)
                return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                        "/": lambda: a / b if b else 0.0, "<": lambda: int(a < b),
                        "<=": lambda: int(a <= b), ">": lambda: int(a > b), ">=": lambda: int(a >= b),
                        "==": lambda: int(a == b), "!=": lambda: int(a != b)}[e.op]()
            case c_ast.TernaryOp():
                return self.value(e.iftrue) if self.value(e.cond) else self.value(e.iffalse)
        raise NotImplementedError(to_c(e))

    def access(self, e: c_ast.ArrayRef, mode: str) -> None:
        subs = []
        while isinstance(e, c_ast.ArrayRef):
            subs.append(int(self.value(e.subscript)))
            e = e.name
        self.clock += 1
        its = tuple((id(lp), k) for lp, k in self.loops)
        self.events.append((e.name, tuple(reversed(subs)), mode, its, self.clock))

    def assign(self, lv: c_ast.Node, rv, op: str) -> None:
        if isinstance(lv, c_ast.ArrayRef):
            if op != "=":
                self.access(lv, "read")
            self.access(lv, "write")
        else:
            old = self.env.get(lv.name, 0)
            self.env[lv.name] = rv if op == "=" else old + rv if op == "+=" else old - rv

    def block(self, s: c_ast.Node | None) -> None:
        match s:
            case None:
                return
            case c_ast.Compound():
                for x in s.block_items or []:
                    self.block(x)
            case c_ast.Label():
                self.block(s.stmt)
            case c_ast.Decl():
                if s.init is not None:
                    self.env[s.name] = self.value(s.init)
            case c_ast.Assignment():
                self.assign(s.lvalue, self.value(s.rvalue), s.op)
            case c_ast.If():
                if self.value(s.cond):
                    self.block(s.iftrue)
                else:
                    self.block(s.iffalse)
            case c_ast.For():
                init = s.init.decls[0] if isinstance(s.init, c_ast.DeclList) else s.init
                name = init.name if isinstance(init, c_ast.Decl) else init.lvalue.name
                self.env[name] = self.value(init.init if isinstance(init, c_ast.Decl) else init.rvalue)
                k = 0
                while self.value(s.cond):
                    self.loops.append((s, k))
                    self.block(s.stmt)
                    self.loops.pop()
                    nxt = s.next
                    if isinstance(nxt, c_ast.UnaryOp):
                        self.env[name] += 1 if "+" in nxt.op else -1
                    else:
                        self.env[name] += int(self.value(nxt.rvalue)) * (1 if nxt.op == "+=" else -1)
                    k += 1
            case _:
                raise NotImplementedError(type(s).__name__)


@pytest.fixture(scope="module")
def ws():
    return Workspace.from_code(KERNELS, "oracle.c")


def _points(region, params: dict[str, int]) -> set[tuple[int, ...]] | None:
    s = region
    for k in range(s.dim(isl.dim_type.param) - 1, -1, -1):
        name = s.get_dim_name(isl.dim_type.param, k)
        if name not in params:
            s = s.project_out(isl.dim_type.param, k, 1)  # not a parameter of the test: any value
        else:
            s = s.fix_val(isl.dim_type.param, k, isl.Val.int_from_si(isl.DEFAULT_CONTEXT, params[name]))
    out: set[tuple[int, ...]] = set()
    if not s.is_bounded():
        return None  # an unbounded MAY region: contains everything
    s.foreach_point(lambda p: out.add(tuple(
        p.get_coordinate_val(isl.dim_type.set, d).to_python() for d in range(s.dim(isl.dim_type.set)))))
    return out


CASES = [(name, p) for name, plist in PARAMS.items() for p in plist]


@pytest.mark.parametrize(("name", "params"), CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_function_regions_against_the_trace(ws, name, params):
    m = ws[name]
    trace = Trace(m.ast, params)
    regs = m.resource("regions")
    for region in regs.function_regions:
        if region.rank == 0 or region.mode not in ("R", "W"):
            continue
        mode = "read" if region.mode == "R" else "write"
        seen = {idx for arr, idx, md, _, _ in trace.events if arr == region.var and md == mode}
        over = _points(region.set, params)
        under = _points(region.must, params)
        if over is None:
            assert not region.exact
            continue
        assert seen <= over, (name, region.text(), seen - over)
        assert under <= seen, (name, region.text(), under - seen)
        if region.exact:
            assert over == seen, (name, region.text())


def _carried(trace: Trace, loop: c_ast.For) -> bool:
    """Two accesses to one element, one a write, in different iterations of ``loop``."""
    by_elem: dict[tuple, list] = {}
    for arr, idx, mode, its, clock in trace.events:
        by_elem.setdefault((arr, idx), []).append((mode, its, clock))
    for accesses in by_elem.values():
        for (m1, it1, _), (m2, it2, _) in itertools.combinations(accesses, 2):
            if m1 == "read" and m2 == "read":
                continue
            for (l1, k1), (l2, k2) in zip(it1, it2):
                if l1 != l2:
                    break
                if l1 == id(loop):
                    if k1 != k2:
                        return True
                    break
                if k1 != k2:
                    break
    return False


@pytest.mark.parametrize(("name", "params"), CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_carried_dependences_against_the_trace(ws, name, params):
    m = ws[name]
    trace = Trace(m.ast, params)
    deps = m.resource("dependences")
    for lp in m.all_loops:
        carried = deps.carried_at(lp)
        if carried is None:
            continue
        on_arrays = [d for d in carried if d.source.var in {e[0] for e in trace.events}]
        brute = _carried(trace, lp.node)
        if brute:
            assert on_arrays, (name, lp.label, params)
        # the analysis may see more (other parameter values), never less
        if not carried:
            assert not brute


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_loop_regions_contain_each_iteration(ws, name):
    """A loop's region contains what its body accesses in every traced iteration."""
    m = ws[name]
    regs = m.resource("regions")
    for params in PARAMS[name]:
        trace = Trace(m.ast, params)
        for lp in m.loops():
            loop_regions = {(r.var, r.mode): r for r in regs.of(lp.node) if r.rank}
            for arr, idx, mode, its, _ in trace.events:
                if not its or its[0][0] != id(lp.node):
                    continue
                r = loop_regions.get((arr, "R" if mode == "read" else "W"))
                assert r is not None, (name, arr, mode)
                pts = _points(r.set, params)
                assert pts is None or idx in pts, (name, r.text(), idx)


@pytest.mark.parametrize(("name", "params"), CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_in_regions_against_the_trace(ws, name, params):
    """IN: the elements whose first access in the function is a read."""
    m = ws[name]
    trace = Trace(m.ast, params)
    first: dict[tuple, str] = {}
    for arr, idx, mode, _, _ in trace.events:
        first.setdefault((arr, idx), mode)
    for region in m.resource("in_regions").function_regions:
        if region.rank == 0:
            continue
        seen = {idx for (arr, idx), mode in first.items() if arr == region.var and mode == "read"}
        over, under = _points(region.set, params), _points(region.must, params)
        if over is not None:
            assert seen <= over, (name, region.text(), seen - over)
        assert under <= seen, (name, region.text(), under - seen)
        if region.exact:
            assert over == seen, (name, region.text())
