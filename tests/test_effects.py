"""Memory references and effects: golden displays, calls, aliasing, the corpus."""

from __future__ import annotations

import textwrap

import pytest
from conftest import corpus_programs, program_id
from passman.passes.analysis.effects import ANYWHERE, loop_effects
from passman.passes.analysis.references import (
    call_sites,
    simple_statements,
    statement_refs,
    statements,
    taken_addresses,
)
from passman.passes.cfacts.names import file_scope, resolve_names
from passman.passes.cfacts.types import TypeEnv
from pycparser import c_ast

from passman import Workspace, transformation
from passman.astutil import walk
from passman.printer import to_c

MATMUL = r"""
void matmul(int n, double A[n][n], double B[n][n], double C[n][n])
{
    int i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            C[i][j] = 0;
            for (k = 0; k < n; k++)
                C[i][j] += A[i][k] * B[k][j];
        }
}
"""


def golden(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def effects_of(module, stmt, resource="proper_effects"):
    return {(e.action, e.approx, e.text) for e in module.resource(resource).of(stmt)}


def leaf(module, code: str):
    """The leaf statement of ``module`` printed as ``code``."""
    for s, _ in simple_statements(module.ast):
        if to_c(s).strip().rstrip(";") == code.rstrip(";"):
            return s
    raise AssertionError(f"no statement {code!r}")


# ------------------------------------------------------------------ references


def refs_of(code: str, func: str, stmt_text: str):
    ws = Workspace.from_code(code)
    m = ws[func]
    names = resolve_names(m.ast, file_scope(m.cu.ast.ext))
    types = TypeEnv(names, m.cu.ast.ext, m.ast)
    s = leaf(m, stmt_text)
    return s, statement_refs(s, names, types), taken_addresses(s, names, types)


def show(r) -> tuple:
    subs = None if r.subscripts is None else tuple(to_c(x) for x in r.subscripts)
    return (r.mode, r.var, subs, r.through_pointer, r.exact)


def test_refs_compound_assignment_pointer_normalisation_and_address():
    code = r"""
    struct S { double a[4]; double x; };
    void f(int n, double A[n][n], double *p, double **m, struct S s, int i, int j) {
        A[i][j] += *(p + i) + p[j] + *p;
        m[i][j] = s.a[i];
        g(&s, A[i], sizeof(p[i]));
    }
    """
    s, refs, _ = refs_of(code, "f", "A[i][j] += *(p + i) + p[j] + *p;")
    got = [show(r) for r in refs]
    assert got[0] == ("read", "i", None, False, True)
    assert ("read", "A", ("i", "j"), False, True) in got
    assert got[-1] == ("write", "A", ("i", "j"), False, True)
    assert ("read", "p", ("i",), True, True) in got  # *(p + i) normalised to p[i]
    assert ("read", "p", ("0",), True, True) in got  # *p is p[0]
    assert ("read", "p", None, False, True) in got  # the pointer itself
    assert all(r.stmt is s for r in refs)

    _, refs, _ = refs_of(code, "f", "m[i][j] = s.a[i];")
    got = [show(r) for r in refs]
    assert ("read", "m", ("i",), True, True) in got  # the row pointer is loaded
    assert ("write", "m", None, True, False) in got  # behind it: unknown part
    assert ("read", "s", None, False, False) in got  # a struct field: inexact

    s, refs, addrs = refs_of(code, "f", "g(&s, A[i], sizeof(p[i]));")
    assert [show(r) for r in refs] == [("read", "i", None, False, True)]  # &s, A[i] decay, sizeof
    assert {r.var for r in addrs} == {"s", "A"}
    assert [to_c(c) for c in call_sites(s)] == ["g(&s, A[i], sizeof(p[i]))"]


def test_proper_parts_of_loops_and_leaves_with_enclosing_loops():
    ws = Workspace.from_code(MATMUL)
    m = ws["matmul"]
    leaves = [(to_c(s).strip().rstrip(";") + ";", [lp.init.lvalue.name for lp in loops]) for s, loops in simple_statements(m.ast)]
    assert leaves[-2:] == [("C[i][j] = 0;", ["i", "j"]), ("C[i][j] += A[i][k] * B[k][j];", ["i", "j", "k"])]
    names = resolve_names(m.ast, file_scope(m.cu.ast.ext))
    outer = next(s for s in statements(m.ast) if isinstance(s, c_ast.For))
    got = {(r.mode, r.var) for r in statement_refs(outer, names)}
    assert got == {("write", "i"), ("read", "i"), ("read", "n")}  # the header only


# ------------------------------------------------------------------ golden displays


def test_matrix_product_cumulated_effects_golden():
    ws = Workspace.from_code(MATMUL, "mm.c")
    assert ws["matmul"].annotated("cumulated_effects") == golden("""
        void matmul(int n, double A[n][n], double B[n][n], double C[n][n])
        {
            // <must be read>: n
            // <may be read>: A[*][*] B[*][*] C[*][*]
            // <may be written>: C[*][*]
            int i;
            int j;
            int k;
            // <must be read>: i n
            // <may be read>: A[*][*] B[*][*] C[*][*] j k
            // <must be written>: i
            // <may be written>: C[*][*] j k
            // loop l1
            for (i = 0; i < n; i++)
                // <must be read>: j n
                // <may be read>: A[i][*] B[*][*] C[i][*] i k
                // <must be written>: j
                // <may be written>: C[i][*] k
                // loop l2
                for (j = 0; j < n; j++) {
                    // <must be read>: i j k n
                    // <may be read>: A[i][*] B[*][j] C[i][j]
                    // <must be written>: C[i][j] k
                    // <must be read>: i j
                    // <must be written>: C[i][j]
                    C[i][j] = 0;
                    // <must be read>: k n
                    // <may be read>: A[i][*] B[*][j] C[i][j] i j
                    // <must be written>: k
                    // <may be written>: C[i][j]
                    // loop l3
                    for (k = 0; k < n; k++)
                        // <must be read>: A[i][k] B[k][j] C[i][j] i j k
                        // <must be written>: C[i][j]
                        C[i][j] += A[i][k] * B[k][j];
                }
        }
        """)
    assert ws["matmul"].annotated("summary_effects").startswith(golden("""
        // summary effects of matmul:
        // <may be read>: A[*][*] B[*][*] C[*][*]
        // <may be written>: C[*][*]
        void matmul("""))


def test_call_through_vla_formal_is_a_whole_array_may_effect():
    code = r"""
    void fill(int n, int m, double A[n][m], double v)
    {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < m; j++)
                A[i][j] = v;
    }
    double first(int n, const double *x) { return x[0] + n; }
    int main(void)
    {
        double T[10][20];
        double u[5], s;
        fill(10, 20, T, 1.0);
        s = first(5, u);
        return (int)s + (int)T[0][0];
    }
    """
    ws = Workspace.from_code(code, "vla.c")
    assert ws["fill"].resource("summary_effects")[0].text == "A[*][*]"
    assert ws["main"].annotated("proper_effects") == golden("""
        int main(void)
        {
            double T[10][20];
            double u[5];
            double s;
            // <may be written>: T[*][*]
            fill(10, 20, T, 1.0);
            // <may be read>: u[*]
            // <must be written>: s
            s = first(5, u);
            // <must be read>: T[0][0] s
            return (int)s + (int)T[0][0];
        }
        """)


def test_scalar_through_pointer_formal_keeps_the_exact_cell():
    code = r"""
    void acc(double *s, double x) { *s += x; }
    void f(int n, double *a, double A[n]) {
        double t = 0;
        for (int i = 0; i < n; i++) { acc(&t, a[i]); acc(&A[i], 1.0); }
    }
    """
    ws = Workspace.from_code(code)
    m = ws["f"]
    assert {e.text for e in ws["acc"].resource("summary_effects")} == {"s[0]"}
    assert effects_of(m, leaf(m, "acc(&t, a[i]);")) == {
        ("read", "must", "t"), ("write", "must", "t"), ("read", "must", "a"), ("read", "must", "a[i]"),
        ("read", "must", "i")}  # fmt: skip
    assert ("write", "must", "A[i]") in effects_of(m, leaf(m, "acc(&A[i], 1.0);"))


def test_unknown_function_is_conservative_and_warned_once():
    code = r"""
    double g[4];
    void mystery(double *p, int n);
    void f(int n, double *a, double *b) {
        int k = 0;
        mystery(a, n);
        mystery(a, k);
        b[0] = g[k];
    }
    """
    ws = Workspace.from_code(code, "unk.c")
    m = ws["f"]
    got = effects_of(m, leaf(m, "mystery(a, n);"))
    assert {("read", "may", ANYWHERE), ("write", "may", ANYWHERE), ("write", "may", "a[*]")} <= got
    assert ("write", "may", "k") not in effects_of(m, leaf(m, "mystery(a, k);"))  # k's address never escapes
    assert ("write", "may", "b[*]") not in got  # b is not reachable from the arguments
    summary = {(e.action, e.text) for e in m.resource("summary_effects")}
    assert ("write", ANYWHERE) in summary
    m.resource("cumulated_effects")
    warned = [w for w in ws.warnings if "mystery" in w]
    assert len(warned) == 1
    assert "unk.c:6:" in warned[0] and "no model for function 'mystery'" in warned[0]


def test_libm_call_in_a_loop_has_no_effect_beyond_its_arguments():
    code = r"""
    #include <math.h>
    void f(int n, const double *a, double *b) {
        for (int i = 0; i < n; i++)
            b[i] = sqrt(a[i]) + pow(fabs(a[i]), 1.5);
    }
    """
    ws = Workspace.from_code(code)
    m = ws["f"]
    assert effects_of(m, leaf(m, "b[i] = sqrt(a[i]) + pow(fabs(a[i]), 1.5);")) == {
        ("read", "must", "a"), ("read", "must", "a[i]"), ("read", "must", "b"), ("read", "must", "i"),
        ("write", "must", "b[i]")}  # fmt: skip
    assert {e.text for e in m.resource("summary_effects")} == {"a[*]", "b[*]"}
    assert not [w for w in ws.warnings if "sqrt" in w or "pow" in w]


def test_printf_writes_the_stdio_state():
    ws = Workspace.from_code('#include <stdio.h>\nint main(void) { int x = 3; printf("%d\\n", x); return 0; }')
    if getattr(ws, "stub_info", None) is None or ws.stub_info("printf") is None:
        pytest.skip("no stubs broker for stdio")
    m = ws["main"]
    got = m.resource("proper_effects").of(leaf(m, 'printf("%d\\n", x);'))
    state = [e for e in got if e.action == "write" and e.kind == "global"]
    assert state and all(e.var not in ("x", ANYWHERE) for e in state)
    assert not any(e.var == ANYWHERE for e in got)


def test_fftw_execute_reads_and_writes_the_captured_arrays_exactly():
    code = r"""
    #include <fftw3.h>
    int main(void) {
        fftw_complex in[64], out[64], other[64];
        fftw_plan p = fftw_plan_dft_1d(64, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
        for (int i = 0; i < 64; i++) { in[i][0] = i; in[i][1] = 0; }
        fftw_execute(p);
        other[0][0] = out[0][0];
        return 0;
    }
    """
    ws = Workspace.from_code(code)
    info = ws.stub_info("fftw_execute") if getattr(ws, "stub_info", None) else None
    if info is None or "executes_plan" not in info.model:
        pytest.skip("no FFTW broker")
    m = ws["main"]
    assert effects_of(m, leaf(m, "fftw_execute(p);")) == {
        ("read", "must", "p"), ("read", "may", "in[*][*]"), ("write", "may", "out[*][*]")}  # fmt: skip


def test_recursion_gets_a_conservative_summary():
    code = r"""
    int calls;
    long fib(int k) { calls++; return k < 2 ? k : fib(k - 1) + fib(k - 2); }
    void walk(int n, double *v) { if (n > 0) { v[n] = 0; walk(n - 1, v); } }
    int main(void) { double v[10]; long r = fib(10); walk(9, v); return (int)r + (int)v[0]; }
    """
    ws = Workspace.from_code(code)
    summary = {(e.action, e.text) for e in ws["fib"].resource("summary_effects")}
    assert ("write", "calls") in summary and ("write", ANYWHERE) not in summary
    assert ("write", "v[*]") in {(e.action, e.text) for e in ws["walk"].resource("summary_effects")}
    m = ws["main"]
    assert ("write", "may", "v[*]") in effects_of(m, leaf(m, "walk(9, v);"))


def test_writes_through_a_local_pointer_reach_the_array_it_points_to():
    code = r"""
    void shift(int n, double *a, double *b) {
        double *q = a + 1;
        double *r;
        r = q;
        for (int i = 0; i < n - 1; i++)
            r[i] = b[i];
    }
    """
    ws = Workspace.from_code(code)
    summary = {(e.action, e.approx, e.text) for e in ws["shift"].resource("summary_effects")}
    assert ("write", "may", "a[*]") in summary
    assert ("write", "may", "b[*]") not in summary  # distinct formals do not alias


def test_loop_index_generalisation_and_invariant_subscripts():
    code = r"""
    void f(int n, int k, double *a, double *h) {
        for (int i = 0; i < n; i++) { a[i] = 0; h[k] += 1; }
    }
    """
    ws = Workspace.from_code(code)
    texts = {(e.action, e.text) for e in loop_effects(ws["f"].loops()[0])}
    assert ("write", "a[*]") in texts and ("write", "h[k]") in texts


@transformation(scope="module")
def t_store_p2(module):
    """Append ``p[2] = 3;`` to a function (a test stand-in for a real transformation)."""
    p = module.ast.decl.type.args.params[0].name
    module.ast.body.block_items.append(
        c_ast.Assignment("=", c_ast.ArrayRef(c_ast.ID(p), c_ast.Constant("int", "2")), c_ast.Constant("int", "3")))


def test_effects_are_cached_per_function_and_follow_callee_changes():
    code = r"""
    void g(double *p) { p[0] = 1; }
    void h(double *p) { p[1] = 2; }
    void f(double *a) { g(a); }
    """
    ws = Workspace.from_code(code)
    ws["f"].resource("proper_effects")
    ws["h"].resource("proper_effects")
    n = ws.computations["proper_effects"]
    ws["f"].resource("proper_effects")
    ws["h"].resource("proper_effects")
    assert ws.computations["proper_effects"] == n
    ws["g"].t_store_p2()
    assert {e.text for e in ws["g"].resource("summary_effects")} == {"p[0]", "p[2]"}
    ws["f"].resource("proper_effects")  # recomputed: its callee changed
    ws["h"].resource("proper_effects")  # not recomputed: unrelated
    assert ws.computations["proper_effects"] == n + 1


# ------------------------------------------------------------------ the corpus


def _loop_bodies_written_vars_are_in_cumulated_effects(ws) -> int:
    """Every variable a loop writes (not declared in it) appears in the loop's cumulated writes."""
    checked = 0
    for m in ws.all_functions:
        cum = m.resource("cumulated_effects")
        fs = m.ast
        names = resolve_names(fs, file_scope(m.cu.ast.ext))
        for loop in [s for s in statements(fs) if isinstance(s, c_ast.For)]:
            local = {id(d) for d in walk(loop) if isinstance(d, c_ast.Decl)}
            written = {e.var for e in cum.of(loop) if e.action == "write"}
            for s in statements(loop):
                for r in statement_refs(s, names):
                    if r.mode != "write" or not r.var or id(r.decl) in local:
                        continue
                    assert r.var in written or ANYWHERE in written, (m.name, to_c(s), r.var)
                    checked += 1
    return checked


@pytest.mark.parametrize("files", corpus_programs(), ids=program_id)
def test_corpus_effects_complete_and_sane(files):
    ws = Workspace(*files)
    for m in ws.all_functions:
        proper = m.resource("proper_effects")
        cum = m.resource("cumulated_effects")
        summary = m.resource("summary_effects")
        assert all(e.kind in ("global", "anywhere") or (e.kind == "formal" and e.pointee) for e in summary)
        for _, effects in cum.by_id.values():
            assert all(e.action in ("read", "write") and e.approx in ("must", "may") for e in effects)
        assert cum.of(m.ast.body) is not None and proper is not None
    _loop_bodies_written_vars_are_in_cumulated_effects(ws)


def test_file_scope_follows_the_declarations_it_was_asked_about(write_c):
    """file_scope keeps its answer for the same declarations: a declaration added, renamed or given
    another type is seen at once, and the caller's copy is its own."""
    from pycparser import c_ast

    ws = Workspace(write_c("enum color { RED, GREEN };\nint n;\nvoid f(void) { n = RED; }\n"))
    ext = ws["f"].cu.ast.ext
    first = file_scope(ext)
    assert {"RED", "GREEN", "n", "f"} <= set(first)
    first["mine"] = None
    assert "mine" not in file_scope(ext)
    decl = next(d for d in ext if isinstance(d, c_ast.Decl) and d.name == "n")
    decl.name = "m"
    assert "m" in file_scope(ext) and "n" not in file_scope(ext)
    enum = c_ast.Enum("shade", c_ast.EnumeratorList([c_ast.Enumerator("DARK", None)]))
    ext.append(c_ast.Decl(None, [], [], [], [], enum, None, None))
    assert "DARK" in file_scope(ext)
    decl.type = c_ast.TypeDecl("m", [], None, c_ast.Enum("other", c_ast.EnumeratorList([c_ast.Enumerator("LIGHT", None)])))
    assert "LIGHT" in file_scope(ext)


def test_type_environments_follow_the_top_level_declarations(write_c):
    """TypeEnv keeps a unit's typedefs and tags for the same top-level nodes: a typedef added or a
    declaration given another type is seen by the next environment."""
    from passman.passes.cfacts.types import TypeEnv
    from pycparser import c_ast

    ws = Workspace(write_c("typedef double real;\nstruct p { real x; };\nvoid f(void) { }\n"))
    ext = ws["f"].cu.ast.ext
    env = TypeEnv(resolve_names(ws["f"].ast, {}), ext, ws["f"].ast)
    assert "real" in env.typedefs and "p" in env.tags and "whole" not in env.typedefs
    ext.append(c_ast.Typedef("whole", [], ["typedef"], c_ast.TypeDecl("whole", [], None, c_ast.IdentifierType(["long"]))))
    assert "whole" in TypeEnv(resolve_names(ws["f"].ast, {}), ext).typedefs
    holder = next(d for d in ext if isinstance(d, c_ast.Decl) and isinstance(d.type, c_ast.Struct))
    holder.type = c_ast.Struct("q", [c_ast.Decl("y", [], [], [], [], c_ast.TypeDecl("y", [], None, c_ast.IdentifierType(["int"])), None, None)])
    tags = TypeEnv(resolve_names(ws["f"].ast, {}), ext).tags
    assert "q" in tags and "p" not in tags
