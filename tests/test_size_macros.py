"""Size macros the build chooses stay names for the passes (passman/size_macros.py).

A macro whose definition is on the command line or inside a conditional
(``#ifndef N``, PolyBench's ``#ifdef LARGE_DATASET``) is a size the build
may change; the front end writes it back as a name wherever C allows one,
so the passes prove what they do for every size and the output builds at
any. Where C needs a constant (file-scope arrays, ``case``, static locals,
struct members, initialized arrays) the value stays, and the size guard
names the macro. The oracle: the output built at other sizes prints what
the original prints at those sizes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pycparser import c_ast

from passman import PassFailed, Workspace
from passman.astutil import walk
from passman.frontend import preprocess
from passman.macro_constants import MacroCoord
from passman.recipe import load_recipe
from passman.size_macros import build_chosen_macros
from passman.testing import build_and_run, outputs_match, reference_output

OPENMP = {"cflags": ["-O1", "-fopenmp"], "libs": ["-lm", "-fopenmp"], "env": {"OMP_NUM_THREADS": "2"}}

CONTEXTS = """\
#include <stdio.h>
#ifndef N
#define N 16
#endif
#define K 3

static double A[N];
struct row { double v[N]; };

static int kind(int x)
{
    switch (x) {
    case N:
        return 1;
    default:
        return 0;
    }
}

static double total(void)
{
    static int calls[N];
    double w[N] = {0};
    double t[N];
    double s = 0;
    for (int i = 0; i < N; i++) {
        t[i] = A[i] * K;
        w[i] = t[i];
    }
    for (int i = 0; i < N; i++)
        s += w[i];
    calls[0]++;
    return s;
}

int main(void)
{
    struct row r;
    for (int i = 0; i < N; i++)
        A[i] = i;
    r.v[0] = 1;
    printf("%.1f %d %d %.1f\\n", total(), kind(N), (int)(sizeof(r) / sizeof(double)), r.v[0]);
    return 0;
}
"""

PARAMETRIC = """\
#include <stdio.h>
#include <stdlib.h>
#ifndef N
# define N 37
#endif
#ifndef TSTEPS
# define TSTEPS 10
#endif

static void init(int n, double A[N][N], double B[N][N])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = B[i][j] = (double)(i * (j + 2) % 11) / 11;
}

static void jacobi(double A[N][N], double B[N][N])
{
    for (int t = 0; t < TSTEPS; t++) {
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
    }
}

int main(void)
{
    double (*A)[N] = malloc(sizeof(double) * N * N);
    double (*B)[N] = malloc(sizeof(double) * N * N);
    init(N, A, B);
    jacobi(A, B);
    double s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[i][j] * (i + 1);
    printf("%d %.10f\\n", N, s);
    free(A);
    free(B);
    return 0;
}
"""


def _named(ws: Workspace) -> set[tuple[int, str]]:
    return {(n.coord.line, n.name) for cu in ws.compilation_units for node in cu.own_nodes
            for n in walk(node) if isinstance(n, c_ast.ID) and isinstance(n.coord, MacroCoord)}


def _valued(ws: Workspace) -> set[tuple[int, str]]:
    return {(n.coord.line, n.coord.macro) for cu in ws.compilation_units for node in cu.own_nodes
            for n in walk(node) if isinstance(n, c_ast.Constant) and isinstance(n.coord, MacroCoord)}


def test_names_where_c_allows_them_values_where_c_needs_a_constant(write_c):
    ws = Workspace(write_c(CONTEXTS, "contexts.c"))
    # loop bounds, an automatic array without initializer, a call's argument
    assert _named(ws) == {(24, "N"), (26, "N"), (30, "N"), (39, "N"), (42, "N")}
    # file-scope array, struct member, case label, static local, initialized array; K is not chosen
    assert _valued(ws) == {(7, "N"), (8, "N"), (13, "N"), (22, "N"), (23, "N"), (27, "K")}


def test_no_op_is_byte_identical_and_openmp_is_right_with_the_guard(write_c, tmp_path):
    src = write_c(CONTEXTS, "contexts.c")
    assert Workspace(src).compilation_units[0].code == CONTEXTS
    ws = Workspace(src)
    load_recipe("openmp").main(ws, min_work=0, region_work=0)
    code = ws.compilation_units[0].code
    assert "c0 < N;" in code and "double t[N];" in code
    # A[16] at file scope: the passes saw 16 there, so another N stops the build
    assert '#error "passman transformed contexts.c for K == 3, N == 16' in code
    out = ws.save(tmp_path / "out")
    assert build_and_run(out, **OPENMP).stdout == reference_output([src]).stdout
    with pytest.raises(Exception, match="N == 16"):
        build_and_run(out, cppflags=["-DN=20"], **OPENMP)


def test_a_goto_keeps_automatic_arrays_constant(write_c):
    src = write_c("#ifndef N\n#define N 4\n#endif\nint f(int x)\n{\n    int t[N];\n    if (x) goto out;\n"
                  "    for (int i = 0; i < N; i++) t[i] = i;\n    return t[1];\nout:\n    return 0;\n}\n", "g.c")
    ws = Workspace(src)
    assert _valued(ws) == {(6, "N")}  # jumping into the scope of a variable-length array is an error
    assert _named(ws) == {(8, "N")}


@pytest.mark.parametrize("poly", [False, True])
def test_parametric_stencil_builds_at_every_size(write_c, tmp_path, poly):
    src = write_c(PARAMETRIC, "jacobi.c")
    ws = Workspace(src)
    load_recipe("openmp").main(ws, poly=poly)
    code = ws.compilation_units[0].code
    assert "#pragma omp" in code
    assert "#error" not in code
    assert "37" not in code.split("static void jacobi")[1].split("int main")[0]
    out = ws.save(tmp_path / "out")
    for sizes in ([], ["-DN=7"], ["-DN=45", "-DTSTEPS=3"], ["-DN=100", "-DTSTEPS=1"]):
        got = build_and_run(out, cppflags=sizes, **OPENMP)  # main's sum is a parallel reduction
        assert outputs_match(reference_output([src], cppflags=sizes).stdout, got.stdout, rtol=1e-12), sizes


def test_a_size_from_the_command_line_is_a_name(write_c, tmp_path):
    src = write_c("#include <stdio.h>\nint main(void)\n{\n    long s = 0;\n    for (int i = 0; i < N; i++)\n"
                  "        s += i * (long)i;\n    printf(\"%ld\\n\", s);\n    return 0;\n}\n", "cl.c")
    ws = Workspace(src, cppflags=["-DN=1000"])
    assert _named(ws) == {(5, "N")}
    load_recipe("openmp").main(ws, min_work=0, region_work=0)
    out = ws.save(tmp_path / "out")
    for n in ("1000", "77"):
        got = build_and_run(out, cppflags=[f"-DN={n}"], **OPENMP)
        assert got.stdout == reference_output([src], cppflags=[f"-DN={n}"]).stdout


def test_which_macros_the_build_chooses(tmp_path):
    (tmp_path / "sizes.h").write_text(
        "#ifndef SIZES_H\n#define SIZES_H\n#define PLAIN 10\n#ifdef BIG\n# define M 400\n#else\n# define M 40\n"
        "#endif\n#define LOOP_BOUND(x, y) x\n#define _PB_M LOOP_BOUND(M, m)\n#define TWICE (2 * PLAIN)\n"
        "#define GONE 5\n#undef GONE\n#endif\n")
    src = tmp_path / "p.c"
    src.write_text('#include "sizes.h"\n#define LOCAL 3\n#if 1\n#define INNER 4\n#endif\nint x;\n')
    names = {"PLAIN", "M", "_PB_M", "TWICE", "GONE", "LOCAL", "INNER", "CLI"}
    chosen = build_chosen_macros(names, lambda extra: preprocess(src, ["-DCLI=2", *extra]))
    # the include guard does not count; _PB_M expands to M; CLI comes from the command line
    assert chosen == {"M", "_PB_M", "INNER", "CLI"}


def test_specialize_sizes_puts_the_values_back(write_c):
    ws = Workspace(write_c(PARAMETRIC, "jacobi.c"))
    ws.apply("specialize_sizes", ws["jacobi"])
    assert "i < N - 1" in ws.compilation_units[0].code  # printed by name still
    assert (17, "N") in _valued(ws) and (19, "TSTEPS") in _valued(ws)
    assert '#error "passman transformed jacobi.c for N == 37, TSTEPS == 10' in ws.compilation_units[0].code
    with pytest.raises(PassFailed, match="names no size macro"):
        ws.apply("specialize_sizes", ws["jacobi"])


def test_the_hidden_declarations_are_not_printed(write_c):
    src = write_c(PARAMETRIC, "jacobi.c")
    ws = Workspace(src)
    assert {n.name for n in ws.compilation_units[0].ast.ext if isinstance(n, c_ast.Decl)} >= {"N", "TSTEPS"}
    load_recipe("openmp").main(ws)
    assert "extern const int" not in ws.compilation_units[0].code
    assert "extern const int" not in ws.compilation_units[0].printed
    assert Path(src).read_text() == PARAMETRIC


def test_the_macro_probe_runs_beside_the_parse_and_leaves_nothing_when_the_parse_fails(write_c, tmp_path,
                                                                                       monkeypatch):
    """The preprocessor's run that finds macro-named constants starts before the parse: where the file
    does not parse, the error is the parser's, and the probe's folder is gone; where it parses, the
    constants are marked as before."""
    import tempfile

    from passman import InvalidInput

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    bad = write_c("#define N 100\nint a[N];\nint f(void) { return a[N - 1] +; }\n", name="bad.c")
    with pytest.raises(InvalidInput, match=r"bad\.c:3:"):
        Workspace(bad)
    assert not list(scratch.iterdir())
    good = write_c("#define N 100\nint a[N];\nint f(void) { return a[N - 1]; }\n", name="good.c")
    ws = Workspace(good)
    marks = [n.coord.macro for n in walk(ws.compilation_units[0].ast)
             if isinstance(n, c_ast.Constant) and isinstance(n.coord, MacroCoord)]
    assert marks == ["N", "N"]
    assert not list(scratch.iterdir())
