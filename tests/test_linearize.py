"""Array linearization (passes/interproc/linearize.py): ``linearize_array``.

Differential runs on the corpus kernels with VLA parameters (2-D and 3-D) and
on the two-unit program (its header is rewritten), golden shapes of a small
function and its call sites, propagation to callees, local arrays, refusals
that leave the workspace unchanged, and the analyses run on linear subscripts.
"""

from __future__ import annotations

import pytest
from conftest import CORPUS
from passman.passes.interproc.linearize import array_dims, linear_subscript

from passman import InvalidInput, PassFailed, Workspace
from passman.testing import assert_same_output, expect, workspace_output

WALL = {"cflags": ["-O2", "-Wall", "-Werror"]}


def program(name: str) -> list:
    folder = CORPUS / name
    return sorted(folder.glob("*.c")) if folder.is_dir() else [CORPUS / f"{name}.c"]


def snapshot(ws: Workspace) -> dict[str, tuple]:
    """Each unit's text and the headers it names (a refusal changes neither)."""
    return {
        cu.name: (cu.code, tuple(cu.local_headers)) for cu in ws.compilation_units if not cu.is_stub
    }


def multi_dim_params(ws: Workspace) -> list[str]:
    out = []
    for m in ws.all_functions:
        if m.is_stub:
            continue
        args = m.ast.decl.type.args
        for p in args.params if args else []:
            if getattr(p, "name", None) and array_dims(p.type) is not None:
                out.append(f"{m.name}.{p.name}")
    return out


def linearize_everything(ws: Workspace) -> list[str]:
    """Linearize every function with a multi-dimensional parameter; the names done."""
    done = []
    for m in list(ws.all_functions):
        if m.is_stub or not any(x.startswith(f"{m.name}.") for x in multi_dim_params(ws)):
            continue
        m.linearize_array()
        done.append(m.name)
    return done


# ------------------------------------------------------------------ corpus


@pytest.mark.parametrize(
    "name", ["gemm", "jacobi_2d", "heat_3d", "lu", "two_mm", "gemver", "doitgen", "two_units"]
)
def test_corpus_same_output(name):
    files = program(name)
    ws = Workspace(*files)
    done = linearize_everything(ws)
    assert done and multi_dim_params(ws) == []
    assert_same_output(files, ws)
    workspace_output(ws, **WALL)  # gcc -Wall -Werror: casts and prototypes are clean
    if name == "gemver":  # 1-D parameters stay as they are
        assert "double *A, double u1[n]" in ws["kernel_gemver"].code


def test_heat_3d_shape():
    ws = Workspace(CORPUS / "heat_3d.c")
    ws["kernel_heat_3d"].linearize_array()
    code = ws["kernel_heat_3d"].code
    assert "static void kernel_heat_3d(int tsteps, int n, double *a, double *b)" in code
    assert "b[(i * n + j) * n + k] = 0.125 * (a[((i + 1) * n + j) * n + k]" in code
    assert "a[(i * n + j) * n + k - 1]" in code  # k - 1 without extra parentheses
    assert "kernel_heat_3d(20, 40, (double *)A, (double *)B);" in ws["main"].code


def test_two_units_header_rewritten(tmp_path):
    files = program("two_units")
    ws = Workspace(*files)
    token = ws.checkpoint()
    ws["matmul"].linearize_array()
    assert "matmul(200, (double *)C, (double *)A, (double *)B);" in ws["main"].code
    out = ws.save(tmp_path / "out")
    header = (tmp_path / "out" / "kernels.h").read_text()
    assert "void matmul(int n, double *C, double *A, double *B);" in header
    assert "void smooth(int tsteps, int n, double A[n][n], double tmp[n][n]);" in header
    assert "#define N 200" in header  # the rest of the header is untouched
    assert_same_output(files, ws)
    # a second function of the same header, then going back to the checkpoint
    ws["smooth"].linearize_array()
    assert_same_output(files, ws)
    ws.restore(token)
    ws.save(tmp_path / "back")
    assert "double C[n][n]" in (tmp_path / "back" / "kernels.h").read_text()
    assert out


# ------------------------------------------------------------------ shapes

GOLDEN = """
#include <stdio.h>
#define M 64
static void row_scale(int m, double *r, double s)
{
    for (int j = 0; j < m; j++)
        r[j] *= s;
}
static void kernel(int n, int m, double C[n][m], const double A[restrict n][M])
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++)
            C[i][j] += A[i][j % M] * (double)sizeof(C[i]);
        row_scale(m, C[i], 0.5);
    }
}
static double X[10][20];
int main(void)
{
    static double Y[10][M];
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < M; j++)
            Y[i][j] = i + 0.5 * j;
    kernel(10, 20, X, Y);
    kernel(5, 20, &X[5], &Y[5]);
    double s = 0;
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 20; j++)
            s += X[i][j];
    printf("%.6f\\n", s);
    return 0;
}
"""


def test_golden_function_and_call_sites(write_c):
    src = write_c(GOLDEN)
    ws = Workspace(src)
    ws["kernel"].linearize_array()
    expect(
        ws["kernel"].code,
        """
        static void kernel(int n, int m, double *C, const double *restrict A)
        {
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < m; j++)
                    C[i * m + j] += A[i * 64 + j % 64] * (double)(sizeof(C[0]) * m);
                row_scale(m, &C[i * m], 0.5);
            }
        }
        """,
    )
    main = ws["main"].code
    assert "    kernel(10, 20, (double *)X, (double *)Y);\n" in main
    assert "    kernel(5, 20, (double *)&X[5], (double *)&Y[5]);\n" in main
    assert_same_output([src], ws)
    workspace_output(ws, **WALL)


def test_linear_subscript_folds_constants():
    from pycparser import c_ast

    from passman.printer import to_c

    def c(v):
        return c_ast.Constant("int", str(v))

    i, j = c_ast.ID("i"), c_ast.ID("j")
    assert to_c(linear_subscript([c(0), j], [None, c(64)])) == "j"
    assert to_c(linear_subscript([c(2), c(3)], [None, c(64)])) == "131"
    assert to_c(linear_subscript([i], [None, c_ast.ID("m"), c_ast.ID("p")])) == "i * m * p"


CALLEES = """
#include <stdio.h>
static double total(int n, int m, double B[n][m])
{
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += B[i][j] * (i + 1);
    return s;
}
static double planes(int p, int n, int m, double T[p][n][m])
{
    double s = 0;
    for (int k = 0; k < p; k++)
        s += total(n, m, T[k]) * (k + 1);
    return s;
}
static void fill(int p, int n, int m, double T[p][n][m])
{
    for (int k = 0; k < p; k++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < m; j++)
                T[k][i][j] = k + 0.25 * i - 0.125 * j;
}
static double G[3][4][5];
static double H[4][5];
int main(void)
{
    fill(3, 4, 5, G);
    printf("%.6f %.6f\\n", planes(3, 4, 5, G), total(4, 5, H) + total(2, 5, &G[1][2]));
    return 0;
}
"""


def test_callees_linearized_transitively(write_c):
    src = write_c(CALLEES)
    ws = Workspace(src)
    ws["planes"].linearize_array()
    # total receives a sub-array of the linearized T: its parameter is linearized too
    assert "static double total(int n, int m, double *B)" in ws["total"].code
    assert "s += B[i * m + j] * (i + 1);" in ws["total"].code
    assert "total(n, m, &T[k * n * m])" in ws["planes"].code
    main = ws["main"].code
    assert "planes(3, 4, 5, (double *)G)" in main
    assert "total(4, 5, (double *)H) + total(2, 5, (double *)&G[1][2])" in main
    assert "fill(3, 4, 5, G);" in main  # fill was not asked for
    assert_same_output([src], ws)
    workspace_output(ws, **WALL)


def test_selected_arrays_only(write_c):
    src = write_c(CALLEES)
    ws = Workspace(src)
    ws["fill"].linearize_array(arrays="T")
    assert "double *T" in ws["fill"].code
    with pytest.raises(InvalidInput):
        ws["total"].linearize_array(arrays="Z")


LOCALS = """
#include <stdio.h>
#define N 6
#define M 7
static double work(int n, int m)
{
    double T[N][M];
    double V[n][m];
    double s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            T[i][j] = i * 0.5 + j;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            V[i][j] = T[i % N][j % M] * 2;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += V[i][j] + (double)(sizeof(T) / sizeof(T[0]));
    return s;
}
int main(void)
{
    printf("%.6f\\n", work(5, 9));
    return 0;
}
"""


def test_local_arrays(write_c):
    src = write_c(LOCALS)
    ws = Workspace(src)
    with pytest.raises(PassFailed, match="nothing to linearize"):
        ws["work"].linearize_array()
    ws["work"].linearize_array(locals=True)
    code = ws["work"].code
    assert "double T[42];" in code and "double V[n * m];" in code
    assert "T[i * 7 + j] = i * 0.5 + j;" in code
    assert "V[i * m + j] = T[i % 6 * 7 + j % 7] * 2;" in code
    assert "sizeof(T) / (sizeof(T[0]) * 7)" in code
    assert_same_output([src], ws)
    workspace_output(ws, **WALL)


# ------------------------------------------------------------------ refusals

REFUSED = {
    "pointer arithmetic": (
        "static double f(int n, double A[n][n]) { double (*p)[n] = A + 1; return p[0][0]; }",
        "f",
        "`A \\+ 1` uses it as a pointer to arrays",
    ),
    "stored in a struct": (
        "struct s { double (*p)[4]; };\n"
        "static double f(int n, double A[n][4]) { struct s x; x.p = A; return x.p[0][0] + n; }",
        "f",
        "`x.p = A` uses it",
    ),
    "stub callee": (
        "void ext(int n, double A[n][n]);\nstatic double f(int n, double A[n][n]) { ext(n, A); return 0; }",
        "f",
        "passed to ext .*which has no body",
    ),
    "call through a pointer": (
        "static double f(int n, double A[n][n], double (*g)(int, double (*)[n])) { return g(n, A); }",
        "f",
        "call through a pointer",
    ),
    "address taken": (
        "static double f(int n, double A[n][n]) { return A[0][0] + n; }\n"
        "double (*fp)(int, double (*)[3]) = f;",
        "f",
        "its address is taken",
    ),
    "dimension modified": (
        "static double f(int n, int m, double A[n][m]) { m = m - 1; return A[1][m]; }",
        "f",
        "m, a dimension of A, is modified in f",
    ),
    "dimension hidden": (
        "static double f(int n, int m, double A[n][m]) { double s = 0; "
        "for (int i = 0; i < n; i++) { int m = i; s += A[i][m]; } return s; }",
        "f",
        "a local m hides the dimension m of A",
    ),
    "unknown argument type": (
        "#include <stdlib.h>\n"
        "static double f(int n, double A[n][n]) { return A[0][0] + n; }\n"
        "double g(void) { return f(2, malloc(32)); }",
        "f",
        "the argument `malloc\\(32\\)` in g is not a 2-D array",
    ),
    "block-scope prototype": (
        "static double f(int n, double A[n][n]) { return A[0][0] + n; }\n"
        "double g(void) { double f(int, double (*)[2]); double X[2][2] = {{1, 2}, {3, 4}}; "
        "return f(2, X); }",
        "f",
        "it is declared inside g",
    ),
    "row kept as a 2-D pointer": (
        "static double f(int n, double A[n][n][n]) { double (*r)[n] = A[1]; return r[0][0]; }",
        "f",
        "uses it as a pointer to arrays",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refusals_leave_workspace_unchanged(write_c, case):
    code, fname, reason = REFUSED[case]
    ws = Workspace(write_c(code + "\nint main(void) { return 0; }\n"))
    before = snapshot(ws)
    with pytest.raises(PassFailed, match=reason) as info:
        ws[fname].linearize_array()
    assert str(info.value).startswith("t.c:")  # file:line first
    assert snapshot(ws) == before


def test_refusal_in_another_caller_of_a_reached_callee(write_c):
    """f's array reaches g; a third function passes g something that is not an array: refused, f and g unchanged."""
    src = write_c(
        "static double g(int n, double B[n][n]) { return B[1][1]; }\n"
        "static double f(int n, double A[n][n]) { return g(n, A); }\n"
        "int main(void) { double (*p)[2] = 0; double *q = 0; return (int)(f(2, p) + g(2, (double (*)[2])q)); }\n"
    )
    ws = Workspace(src)
    ws["f"].linearize_array()
    assert "double *B" in ws["g"].code  # propagated
    ws2 = Workspace(
        write_c(
            "static double g(int n, double B[n][n]) { return B[1][1]; }\n"
            "static double f(int n, double A[n][n]) { return g(n, A); }\n"
            "static double h(double **P) { return g(2, (double (*)[2])P[0]) + g(2, 0); }\n"
            "int main(void) { return (int)h(0); }\n",
            "u.c",
        )
    )
    before = snapshot(ws2)
    with pytest.raises(PassFailed, match="the argument `0` in h is not a 2-D array"):
        ws2["f"].linearize_array()
    assert snapshot(ws2) == before


def test_twice_is_nothing_to_do():
    ws = Workspace(CORPUS / "gemm.c")
    ws["kernel_gemm"].linearize_array()
    before = snapshot(ws)
    with pytest.raises(PassFailed, match="nothing to linearize"):
        ws["kernel_gemm"].linearize_array()
    assert snapshot(ws) == before
    assert ws.fixpoint(lambda: ws["checksum"].linearize_array()) == 1


def test_main_and_stubs_refused():
    ws = Workspace(CORPUS / "gemm.c")
    with pytest.raises(PassFailed, match="nothing to linearize"):
        ws["main"].linearize_array()


# ------------------------------------------------------------------ analyses afterwards


def test_analyses_on_linear_subscripts():
    """Regions, SCoPs and dependences still run (``i * nj`` is not affine: MAY accesses)."""
    ws = Workspace(CORPUS / "gemm.c")
    m = ws["kernel_gemm"]
    assert m.resource("dependences").is_parallel(m.loops()[0]) is True
    m.linearize_array()
    loop = m.loops()[0]
    deps = m.resource("dependences")
    assert deps.is_parallel(loop) in (False, None)  # precision lost, never a wrong "parallel"
    regions = m.resource("regions")
    texts = [r.text() for r in regions.loop(loop)]
    assert any(t.startswith("<C[PHI1]-W-") for t in texts)
    assert "C[i * nj + j]" in m.display("regions")
    m.resource("scops")
    ws["main"].resource("regions")  # call-site translation with casts


UPWARD = """
#include <stdio.h>
static void smooth(int n, double A[n][n])
{
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            A[i][j] = 0.5 * A[i][j] + 0.125 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
}
static void steps(int t, int n, double A[n][n])
{
    for (int k = 0; k < t; k++)
        smooth(n, A);
}
static double G[12][12];
int main(void)
{
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++)
            G[i][j] = (i * 5 + j * 3) % 7;
    steps(4, 12, G);
    double s = 0;
    for (int i = 0; i < 12; i++)
        s += G[i][i] + G[i][11 - i];
    printf("%.6f\\n", s);
    return 0;
}
"""


@pytest.mark.parametrize("up", [False, True])
def test_callers_cast_or_linearized(write_c, up):
    src = write_c(UPWARD)
    ws = Workspace(src)
    ws["smooth"].linearize_array(callers=up)
    if up:
        assert "static void steps(int t, int n, double *A)" in ws["steps"].code
        assert "smooth(n, A);" in ws["steps"].code
        assert "steps(4, 12, (double *)G);" in ws["main"].code
    else:
        assert "smooth(n, (double *)A);" in ws["steps"].code
        assert "steps(4, 12, G);" in ws["main"].code
    assert_same_output([src], ws)
    workspace_output(ws, **WALL)


HEADER = """
/* ops.h: a header with comments, macros and a prototype over several lines */
#define SIZE 8
void scale(int n, /* rows */
           double A[n][SIZE], // the matrix, SIZE columns
           double s);
double trace(int n, double A[n][SIZE]); void other(void);
"""

OPS = """
#include "ops.h"
void scale(int n, double A[n][SIZE], double s)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < SIZE; j++)
            A[i][j] *= s;
}
double trace(int n, double A[n][SIZE])
{
    double t = 0;
    for (int i = 0; i < n && i < SIZE; i++)
        t += A[i][i];
    return t;
}
void other(void) {}
"""

MAIN = """
#include <stdio.h>
#include "ops.h"
int main(void)
{
    double M[5][SIZE];
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < SIZE; j++)
            M[i][j] = i - 0.5 * j;
    scale(5, M, 3.0);
    other();
    printf("%.3f\\n", trace(5, M));
    return 0;
}
"""


def test_header_with_comments_and_macros(write_c, tmp_path):
    write_c(HEADER, "p/ops.h")
    files = [write_c(OPS, "p/ops.c"), write_c(MAIN, "p/main.c")]
    ws = Workspace(*files)
    ws["scale"].linearize_array()
    ws.save(tmp_path / "out")
    header = (tmp_path / "out" / "ops.h").read_text()
    expected = "void scale(int n, /* rows */\n           double *A, // the matrix, SIZE columns\n"
    assert expected in header
    assert "#define SIZE 8" in header and "double A[n][SIZE]" in header  # trace untouched
    assert_same_output(files, ws)
    # the second prototype shares its line with another declaration: found by its column
    ws["trace"].linearize_array()
    ws.save(tmp_path / "out2")
    assert (
        "double trace(int n, double *A); void other(void);"
        in (tmp_path / "out2" / "ops.h").read_text()
    )
    assert_same_output(files, ws)
    workspace_output(ws, **WALL)


def test_header_prototype_made_by_a_macro_refused(write_c):
    write_c("#define PROTO(f) void f(int n, double A[n][n])\nPROTO(fill);\n", "q/m.h")
    src = write_c(
        '#include "m.h"\nvoid fill(int n, double A[n][n]) { A[0][0] = n; }\n'
        "int main(void) { double X[2][2]; fill(2, X); return (int)X[0][0]; }\n",
        "q/m.c",
    )
    ws = Workspace(src)
    before = snapshot(ws)
    with pytest.raises(PassFailed, match="m.h:2: cannot linearize the parameters of fill"):
        ws["fill"].linearize_array()
    assert snapshot(ws) == before


POINTERS = """
#include <stdio.h>
#include <string.h>
static void init(int n, double (*restrict A)[16], const double (*B)[16])
{
    memset(A, 0, sizeof(double) * n * 16);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 16; j++)
            A[i][j] += B[i][j] * 2;
    memcpy(A[1], B[0], sizeof(A[0]));
}
int main(void)
{
    double A[4][16], B[4][16];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 16; j++)
            B[i][j] = i * 16 + j;
    init(4, A, B);
    printf("%.1f %.1f %.1f\\n", A[1][3], A[2][5], A[3][15]);
    return 0;
}
"""


def test_pointer_to_array_parameters_and_void_pointer_calls(write_c):
    src = write_c(POINTERS)
    ws = Workspace(src)
    ws["init"].linearize_array()
    code = ws["init"].code
    assert "static void init(int n, double *restrict A, const double *B)" in code
    assert "memset(A, 0, sizeof(double) * n * 16);" in code  # a void * parameter
    assert "A[i * 16 + j] += B[i * 16 + j] * 2;" in code
    assert "memcpy(&A[16], &B[0], sizeof(A[0]) * 16);" in code
    assert "init(4, (double *)A, (double *)B);" in ws["main"].code
    assert_same_output([src], ws)
    workspace_output(ws, **WALL)


TYPEDEFS = """
#include <stdio.h>
#include <stdlib.h>
typedef float real;
struct grid { int n; real v[6][5]; };
static real sum2(int n, int m, real A[n][m], real B[n][m])
{
    real s = 0;
    int i = 0;
    while (i < n) {
        for (int j = 0; j < m; j++)
            s += A[i][j] - 0.5f * B[i][j];
        i++;
    }
    return s;
}
static real *row(int m, real A[][m], int i) { return A[i]; }
static real twice(int n, int m, real A[n][m]) { return sum2(n, m, A, A) + *row(m, A, 1); }
int main(void)
{
    struct grid g;
    g.n = 6;
    real (*h)[5] = malloc(sizeof(real[6][5]));
    for (int i = 0; i < 6; i++) for (int j = 0; j < 5; j++) { g.v[i][j] = i + j; h[i][j] = i * j; }
    printf("%.2f %.2f %.2f\\n", twice(6, 5, g.v), sum2(3, 5, &h[2], h), twice(2, 5, g.v + 1));
    free(h);
    return 0;
}
"""


def test_typedef_elements_struct_members_and_row_arithmetic(write_c):
    src = write_c(TYPEDEFS)
    ws = Workspace(src)
    ws["twice"].linearize_array()  # reaches sum2 and row through the calls
    assert "static real *row(int m, real *A, int i)" in ws["row"].code
    assert "return &A[i * m];" in ws["row"].code
    assert "return sum2(n, m, A, A) + *row(m, A, 1);" in ws["twice"].code
    main = ws["main"].code
    assert "twice(6, 5, (real *)g.v)" in main
    assert "sum2(3, 5, (real *)&h[2], (real *)h)" in main
    assert "twice(2, 5, (real *)(g.v + 1))" in main
    assert_same_output([src], ws)
    workspace_output(ws, **WALL)


def test_callee_then_caller(write_c):
    """Bottom-up: the caller's cast of its own array stays valid once the caller is linearized."""
    src = write_c(UPWARD)
    ws = Workspace(src)
    ws["smooth"].linearize_array()
    ws["steps"].linearize_array()
    assert "smooth(n, (double *)A);" in ws["steps"].code
    assert "static void steps(int t, int n, double *A)" in ws["steps"].code
    assert "steps(4, 12, (double *)G);" in ws["main"].code
    assert_same_output([src], ws)
    workspace_output(ws, **WALL)


def test_caller_defined_in_a_header_refused(write_c):
    write_c(
        "void kernel(int n, double A[n][n]);\n"
        "static inline void wrap(int n, double A[n][n]) { kernel(n, A); }\n",
        "h/w.h",
    )
    src = write_c(
        '#include "w.h"\nvoid kernel(int n, double A[n][n]) { A[1][1] = n; }\n'
        "int main(void) { double X[3][3]; wrap(3, X); return (int)X[1][1]; }\n",
        "h/w.c",
    )
    ws = Workspace(src)
    before = snapshot(ws)
    with pytest.raises(
        PassFailed, match="w.h:2: .* wrap would change, but it is defined in a header"
    ):
        ws["kernel"].linearize_array()
    assert snapshot(ws) == before


def test_local_with_initializer_refused(write_c):
    ws = Workspace(write_c("int main(void) { int T[2][2] = {{1, 2}, {3, 4}}; return T[1][0]; }\n"))
    before = snapshot(ws)
    with pytest.raises(
        PassFailed, match="t.c:1: cannot linearize T in main: it has an initializer"
    ):
        ws["main"].linearize_array(locals=True)
    assert snapshot(ws) == before


COMPLEX_ELEMENTS = r"""
#include <stdio.h>
typedef double cplx[2];

static double norm(int n, int m, cplx A[n][m])
{
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += A[i][j][0] * A[i][j][0] + A[i][j][1] * (j + 1);
    return s;
}

static void fill(int n, int m, cplx A[n][m])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            A[i][j][0] = i + 0.5 * j;
            A[i][j][1] = i - j;
        }
    printf("%.3f\n", norm(n, m, A));
}

int main(void)
{
    cplx A[7][5];
    fill(7, 5, A);
    printf("%.3f\n", norm(7, 5, A));
    return 0;
}
"""


def test_arrays_of_an_array_typedef_keep_the_element_subscripts(write_c):
    """``cplx A[n][m]`` (cplx: double[2]) becomes ``cplx *A``; ``A[i][j][1]`` is ``A[i * m + j][1]``."""
    src = write_c(COMPLEX_ELEMENTS)
    ws = Workspace(src)
    ws["fill"].linearize_array()  # and norm, through the call
    assert "static void fill(int n, int m, cplx *A)" in ws["fill"].code
    assert "A[i * m + j][1] = i - j;" in ws["fill"].code
    assert "s += A[i * m + j][0] * A[i * m + j][0] + A[i * m + j][1] * (j + 1);" in ws["norm"].code
    assert "fill(7, 5, (cplx *)A);" in ws["main"].code
    assert "norm(7, 5, (cplx *)A)" in ws["main"].code
    assert_same_output([src], ws)
    workspace_output(ws, **WALL)
