"""Output as the user wrote it where passman changed nothing (``CompilationUnit.code``).

Untouched functions, comments, macros and directives come back byte for
byte; what changed is printed in its place; constants written as a macro
name are printed as that name; a transformed file refuses to build with
other sizes than the ones passman saw. tests/test_roundtrip.py checks the
whole corpus untouched.
"""

from __future__ import annotations

import re
import subprocess
import textwrap

import pytest
from pycparser import c_ast

from passman import Workspace
from passman.astutil import copy_node, walk
from passman.frontend import parse_string
from passman.macro_constants import MacroCoord
from passman.recipe import load_recipe
from passman.source_text import top_level_items
from passman.testing import assert_same_output, build_and_run, reference_output

PROGRAM = textwrap.dedent("""\
    /* A header comment. */
    #include <stdio.h>

    #define N 100   /* the size */
    #ifdef SMALL
    # define M 3
    #else
    # define M 4
    #endif

    static int table[N];   // a table

    /* Fill the table. */
    static void fill(int n)
    {
        for (int i = 0; i < n; i++)
            table[i] = i * M;   /* scaled */
    }

    /* Sum it,
       twice over. */
    static long sum(void)
    {
        long s = 0;
        for (int i = 0; i < N; i++)
            s += table[i] + 100;
        return s;
    }

    int main(void)
    {
        fill(N);
        printf("%ld\\n", sum());
        return 0;
    }
    """)


#: build options for OpenMP output (one thread: reductions sum in the original order)
OPENMP = {"cflags": ["-O1", "-fopenmp"], "libs": ["-lm", "-fopenmp"], "env": {"OMP_NUM_THREADS": "1"}}


@pytest.fixture
def program(write_c):
    return write_c(PROGRAM, "prog.c")


def span(text: str, start: str, end: str = "\n}\n") -> str:
    """The text from the line starting with ``start`` to the first ``end`` after it."""
    a = text.index(start)
    return text[a:text.index(end, a) + len(end)]


def test_untouched_program_is_byte_identical(program):
    ws = Workspace(program)
    assert ws.compilation_units[0].code == PROGRAM


def test_items_of_the_text():
    items = top_level_items(PROGRAM)
    texts = [PROGRAM[i.start:i.end] for i in items]
    assert texts[0] == "static int table[N];"
    assert texts[1].startswith("static void fill(int n)\n{") and texts[1].endswith("}")
    lead = PROGRAM[items[2].lead:items[2].start]
    assert lead == "/* Sum it,\n   twice over. */\n"
    assert top_level_items("int f(void) {") is None


def test_a_changed_function_is_printed_in_place(program):
    ws = Workspace(program)
    ws["sum"].code = "static long sum(void) { long s = 0; for (int i = N - 1; i >= 0; i--) s += table[i] + 100; return s; }"
    code = ws.compilation_units[0].code
    head, tail = PROGRAM.split("static long sum(void)")
    assert code.startswith(head)  # comments, directives, fill: as written
    assert code.endswith(span(PROGRAM, "int main(void)") + "\n" + _guard(code))
    assert "static long sum(void)\n{\n    long s = 0;\n" in code
    assert_same_output([program], ws)


def _guard(code: str) -> str:
    return code[code.index("#if (defined("):]


def test_constants_written_as_macros_keep_their_name(program):
    ws = Workspace(program)
    load_recipe("openmp").main(ws, poly=False, min_work=0, region_work=0)
    code = ws.compilation_units[0].code
    body = span(code, "static long sum(void)")
    assert "#pragma omp parallel for" in body
    assert "i < N;" in body  # the bound the user wrote as N
    assert "+ 100;" in body  # the literal 100 is not N
    assert "i * M;" in span(code, "static void fill")
    assert_same_output([program], ws, **OPENMP)


def test_constants_are_marked_where_the_user_wrote_a_macro(program):
    ws = Workspace(program)
    marked = {(c.coord.line, c.coord.macro) for c in _constants(ws) if isinstance(c.coord, MacroCoord)}
    assert marked == {(11, "N"), (25, "N"), (32, "N")}
    # M is chosen by the build (-DSMALL): the passes see the name, not 4
    named = {(n.coord.line, n.name) for cu in ws.compilation_units for node in cu.own_nodes
             for n in walk(node) if isinstance(n, c_ast.ID) and isinstance(n.coord, MacroCoord)}
    assert named == {(17, "M")}


def _constants(ws):
    for cu in ws.compilation_units:
        for node in cu.own_nodes:
            yield from (n for n in walk(node) if isinstance(n, c_ast.Constant))


def test_a_copy_of_an_unchanged_function_is_still_verbatim(program):
    ws = Workspace(program)
    cu = ws.compilation_units[0]
    k = next(i for i, n in enumerate(cu.ast.ext) if isinstance(n, c_ast.FuncDef) and n.decl.name == "fill")
    cu.ast.ext[k] = copy_node(cu.ast.ext[k])
    assert cu.code == PROGRAM


def test_clones_keep_their_own_text(program):
    ws = Workspace(program)
    other = ws.clone()
    other["fill"].code = "static void fill(int n) { for (int i = 0; i < n; i++) table[i] = 2 * i; }"
    assert ws.compilation_units[0].code == PROGRAM
    code = other.compilation_units[0].code
    assert span(code, "/* Sum it,") == span(PROGRAM, "/* Sum it,")
    assert "table[i] = 2 * i;" in code


def test_new_and_removed_nodes(program):
    ws = Workspace(program)
    cu = ws.compilation_units[0]
    ext = cu.ast.ext
    helper = parse_string("static int twice(int x) { return 2 * x; }").ext[0]
    for n in walk(helper):
        n.coord = None  # made by a pass
    k = next(i for i, n in enumerate(ext) if isinstance(n, c_ast.FuncDef) and n.decl.name == "sum")
    ext.insert(k, helper)
    code = cu.code
    # before the comment of the function it precedes
    assert "static int twice(int x)\n{\n    return 2 * x;\n}\n\n/* Sum it," in code
    ext.remove(helper)
    assert cu.code == PROGRAM
    fill = next(n for n in ext if isinstance(n, c_ast.FuncDef) and n.decl.name == "fill")
    ext.remove(fill)
    code = cu.code
    assert "static void fill" not in code and "/* Fill the table. */" in code
    assert span(code, "/* Sum it,") == span(PROGRAM, "/* Sum it,")


def test_an_added_include_goes_before_the_first_declaration(program):
    ws = Workspace(program)
    cu = ws.compilation_units[0]
    cu.directives.append("#include <stdlib.h>")
    try:
        code = cu.code
    finally:
        cu.directives.pop()
    assert code.index("#include <stdlib.h>\n") < code.index("static int table[N];")
    assert code.index("#endif") < code.index("#include <stdlib.h>\n")


def test_a_define_inside_a_changed_function_is_kept(write_c):
    path = write_c(textwrap.dedent("""\
        #include <stdio.h>
        static int f(int x)
        {
        #define SCALE 3
            return x * SCALE;
        }
        int main(void) { printf("%d\\n", f(2) + SCALE); return 0; }
        """))
    ws = Workspace(path)
    ws["f"].code = "static int f(int x) { return x * SCALE + 0; }"
    code = ws.compilation_units[0].code
    assert "#define SCALE 3" in code
    assert_same_output([path], ws)


# -- a PolyBench-style program -----------------------------------------------------

POLYBENCH_H = """\
/* A cut-down polybench.h: the macros PolyBench kernels use. */
#ifndef POLYBENCH_H
# define POLYBENCH_H

# include <stdlib.h>

# ifdef POLYBENCH_USE_SCALAR_LB
#  define POLYBENCH_LOOP_BOUND(x,y) y
# else
#  define POLYBENCH_LOOP_BOUND(x,y) x
# endif

# define POLYBENCH_PADDING_FACTOR 0
# define POLYBENCH_2D(var, dim1, dim2, ddim1, ddim2) \\
  var[dim1 + POLYBENCH_PADDING_FACTOR][dim2 + POLYBENCH_PADDING_FACTOR]
# define POLYBENCH_2D_ARRAY_DECL(var, type, dim1, dim2, ddim1, ddim2) \\
  type (*var)[dim2 + POLYBENCH_PADDING_FACTOR] = \\
    malloc(sizeof(type) * (dim1 + POLYBENCH_PADDING_FACTOR) * (dim2 + POLYBENCH_PADDING_FACTOR))
# define POLYBENCH_FREE_ARRAY(x) free((void *)x)
# define polybench_prevent_dce(func) func

#endif /* !POLYBENCH_H */
"""

GEMM_H = """\
#ifndef _GEMM_H
# define _GEMM_H

/* Default to STANDARD_DATASET. */
# if !defined(SMALL_DATASET) && !defined(LARGE_DATASET)
#  define STANDARD_DATASET
# endif

# ifdef SMALL_DATASET
#  define NI 24
#  define NJ 26
#  define NK 28
# endif

# ifdef STANDARD_DATASET /* Default if unspecified. */
#  define NI 60
#  define NJ 70
#  define NK 80
# endif

# ifdef LARGE_DATASET
#  define NI 200
#  define NJ 220
#  define NK 240
# endif

# define _PB_NI POLYBENCH_LOOP_BOUND(NI,ni)
# define _PB_NJ POLYBENCH_LOOP_BOUND(NJ,nj)
# define _PB_NK POLYBENCH_LOOP_BOUND(NK,nk)

# define DATA_TYPE double
# define DATA_PRINTF_MODIFIER "%0.2lf "

#endif /* !_GEMM_H */
"""

GEMM_C = """\
/**
 * gemm.c: a PolyBench-style program (same macros, same layout).
 */
#include <stdio.h>
#include <string.h>

/* Include polybench common header. */
#include "polybench.h"

/* Include benchmark-specific header. */
#include "gemm.h"


/* Array initialization. */
static
void init_array(int ni, int nj, int nk,
\t\tDATA_TYPE *alpha,
\t\tDATA_TYPE *beta,
\t\tDATA_TYPE POLYBENCH_2D(C,NI,NJ,ni,nj),
\t\tDATA_TYPE POLYBENCH_2D(A,NI,NK,ni,nk),
\t\tDATA_TYPE POLYBENCH_2D(B,NK,NJ,nk,nj))
{
  int i, j;

  *alpha = 32412;
  *beta = 2123;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] = ((DATA_TYPE) ((i*j) % 7)) / 8;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = ((DATA_TYPE) ((i*j) % 5)) / 4;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = ((DATA_TYPE) ((i*j) % 3)) / 2;
}


/* DCE code. Must scan the entire live-out data. */
static
void print_array(int ni, int nj,
\t\t DATA_TYPE POLYBENCH_2D(C,NI,NJ,ni,nj))
{
  int i, j;

  fprintf (stdout, "%d x %d\\n", ni, nj);
  for (i = 0; i < ni; i += 7) {
    for (j = 0; j < nj; j += 5)
      fprintf (stdout, DATA_PRINTF_MODIFIER, C[i][j]);
    fprintf (stdout, "\\n");
  }
}


/* Main computational kernel. */
static
void kernel_gemm(int ni, int nj, int nk,
\t\t DATA_TYPE alpha,
\t\t DATA_TYPE beta,
\t\t DATA_TYPE POLYBENCH_2D(C,NI,NJ,ni,nj),
\t\t DATA_TYPE POLYBENCH_2D(A,NI,NK,ni,nk),
\t\t DATA_TYPE POLYBENCH_2D(B,NK,NJ,nk,nj))
{
  int i, j, k;

#pragma scop
  /* C := alpha*A*B + beta*C */
  for (i = 0; i < _PB_NI; i++)
    {
      for (j = 0; j < _PB_NJ; j++)
\tC[i][j] *= beta;
      for (k = 0; k < _PB_NK; k++) {
\t for (j = 0; j < _PB_NJ; j++)
\t    C[i][j] += alpha * A[i][k] * B[k][j];
      }
    }
#pragma endscop

}


int main(int argc, char** argv)
{
  /* Retrieve problem size. */
  int ni = NI;
  int nj = NJ;
  int nk = NK;

  /* Variable declaration/allocation. */
  DATA_TYPE alpha;
  DATA_TYPE beta;
  POLYBENCH_2D_ARRAY_DECL(C,DATA_TYPE,NI,NJ,ni,nj);
  POLYBENCH_2D_ARRAY_DECL(A,DATA_TYPE,NI,NK,ni,nk);
  POLYBENCH_2D_ARRAY_DECL(B,DATA_TYPE,NK,NJ,nk,nj);

  /* Initialize array(s). */
  init_array (ni, nj, nk, &alpha, &beta, C, A, B);

  /* Run kernel. */
  kernel_gemm (ni, nj, nk, alpha, beta, C, A, B);

  /* Prevent dead-code elimination. */
  polybench_prevent_dce(print_array(ni, nj, C));

  /* Be clean. */
  POLYBENCH_FREE_ARRAY(C);
  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(B);

  return 0;
}
"""


@pytest.fixture
def gemm(write_c):
    write_c(POLYBENCH_H, "pb/polybench.h")
    write_c(GEMM_H, "pb/gemm.h")
    return write_c(GEMM_C, "pb/gemm.c")


def test_polybench_untouched_is_byte_identical(gemm):
    assert Workspace(gemm).compilation_units[0].code == GEMM_C


@pytest.mark.parametrize("poly", [False, True])
def test_polybench_openmp_output_selects_its_size_at_build_time(gemm, poly, tmp_path):
    ws = Workspace(gemm)
    load_recipe("openmp").main(ws, poly=poly)
    code = ws.compilation_units[0].code
    for name in ("/* DCE code.", "int main(int argc"):  # untouched functions: as written
        assert span(code, name) == span(GEMM_C, name)
    # the sizes are the build's: nothing bounds one run's work, the run starts the threads (guard_team_start)
    guard = re.search(r"#include <time.h>\n/\* passman: the threads start .*?#endif\n\n", code, re.S)
    assert guard is not None, code
    assert (code[:guard.start()] + code[guard.end():]).startswith(GEMM_C[:GEMM_C.index("static\nvoid init_array")])
    kernel = span(code, "static void kernel_gemm")
    assert "#pragma omp parallel for" in kernel
    assert "double C[NI + 0][NJ + 0]" in kernel and "< _PB_NI" in kernel and "< _PB_NK" in kernel
    assert "60" not in kernel and "70" not in kernel
    assert "#pragma scop" in kernel and "#pragma endscop" in kernel
    # the passes saw NI, NJ, NK as unknowns: no guard, and -DSMALL_DATASET / -DLARGE_DATASET work
    assert "#error" not in code
    out = ws.save(tmp_path / "out")
    for dataset in ([], ["-DSMALL_DATASET"], ["-DLARGE_DATASET"]):
        got = build_and_run(out, cppflags=dataset, **OPENMP)
        assert got.stdout == reference_output([gemm], cppflags=dataset).stdout, dataset


def test_accelerator_recipes_use_the_parsed_sizes_and_keep_the_guard(gemm, tmp_path):
    ws = Workspace(gemm)
    load_recipe("opencl").main(ws)
    code = ws.compilation_units[0].code
    assert "p4a_launcher_" in code  # gemm's nests became kernels
    assert '#error "passman transformed gemm.c for NI == 60, NJ == 70, NK == 80' in code
    out = tmp_path / "out"
    ws.render("opencl", out)
    other = subprocess.run(["make", "-C", str(out), "CPPFLAGS=-Ipassman_lib -DSMALL_DATASET"],
                           capture_output=True, text=True)
    assert other.returncode != 0 and "NI == 60, NJ == 70, NK == 80" in other.stderr
    assert subprocess.run(["make", "-C", str(out)], capture_output=True).returncode == 0


def test_polybench_openmp_with_the_build_sizes(gemm):
    small = Workspace(gemm, cppflags=["-DSMALL_DATASET"])
    load_recipe("openmp").main(small, poly=True)
    got = assert_same_output([gemm], small, **OPENMP)
    assert got.stdout.startswith("24 x 26\n")
    assert reference_output([gemm]).stdout.startswith("60 x 70\n")
