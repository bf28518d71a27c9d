"""Interior and boundary clones of loops (``split_boundaries``, passes/loops/boundaries.py).

Oracles:

* golden text: the clamped 1-D stencil of the docstring, a zero-padded
  2-D one (outer loop split, inner loops split in its interior copy only);
* differential execution on random loops: random bounds, steps and index
  tests (every comparison, coefficients 1, -1, 2, constants and
  parameters on either side, in ``?:``, ``if``, ``&&``/``||`` and as
  values), run for sizes from negative to 100 (the split must hold
  whatever the guess of where each test changes);
* differential execution of clamped and zero-padded stencils, as written
  and after ``time_tile`` (diamond tiles, tasks and static fronts), at 1, 2
  and 4 threads and under the race amplifier; the OpenMP recipe;
* Freitag's claim 11: on the interior iterations the copy without checks
  computes what the checked body computes (the runs above), and it has no
  test left (golden text);
* refusals and loops left alone: the workspace unchanged.
"""

from __future__ import annotations

import random
import re
import subprocess

import pytest
from stencil_runs import program_same_output

from passman import PassFailed, Workspace
from passman.recipe import load_recipe
from passman.testing import assert_same_output, expect

CLAMP_1D = """\
#include <stdio.h>
#define TSTEPS 30
#define N 200
double A[N], B[N];
static void kernel(int tsteps, int n, double a[n], double b[n])
{
    for (int t = 0; t < tsteps; t++) {
        for (int i = 0; i < n; i++)
            b[i] = 0.25 * ((i > 0 ? a[i - 1] : a[i]) + 2.0 * a[i] + (i < n - 1 ? a[i + 1] : a[i]));
        for (int i = 0; i < n; i++)
            a[i] = 0.25 * ((i > 0 ? b[i - 1] : b[i]) + 2.0 * b[i] + (i < n - 1 ? b[i + 1] : b[i]));
    }
}
int main(void)
{
    double s = 0.0;
    for (int i = 0; i < N; i++)
        A[i] = B[i] = (double)((i * 37 + 3) % 17);
    kernel(TSTEPS, N, A, B);
    for (int i = 0; i < N; i++)
        s += A[i] * (1 + i % 7);
    printf("%.10e\\n", s / N);
    return 0;
}
"""

PAD_2D = """\
#include <stdio.h>
#define TSTEPS 12
#define N 60
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
double A[N][N], B[N][N];
static void kernel(int tsteps, int n, double a[n][n], double b[n][n])
{
    for (int t = 0; t < tsteps; t++) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = a[i][j];
                if (i > 0)
                    s += a[i - 1][j];
                if (i < n - 1)
                    s += a[i + 1][j];
                s += (j > 0 ? a[i][j - 1] : 0.0) + (j != n - 1 ? a[i][j + 1] : 0.0);
                b[i][j] = 0.2 * s;
            }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                a[i][j] = 0.25 * (b[MAX(i - 1, 0)][j] + b[MIN(i + 1, n - 1)][j]
                                  + b[i][MAX(j - 1, 0)] + b[i][MIN(j + 1, n - 1)]);
    }
}
int main(void)
{
    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = B[i][j] = (double)((i * 37 + j * 11 + 3) % 17);
    kernel(TSTEPS, N, A, B);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[i][j] * (1 + (i + 2 * j) % 7);
    printf("%.10e\\n", s / N);
    return 0;
}
"""


def _write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


# ------------------------------------------------------------------------ golden text


def test_clamped_sweep_gets_an_interior_copy_without_tests(tmp_path):
    src = _write(tmp_path, "clamp.c", CLAMP_1D)
    ws = Workspace(src)
    ws["kernel"].split_boundaries()
    expect(
        ws["kernel"].code,
        """
        static void kernel(int tsteps, int n, double a[n], double b[n])
        {
            for (int t = 0; t < tsteps; t++) {
                {
                    int i = 0;
                    for (; i < n && i <= 0; i++)
                        b[i] = 0.25 * ((i > 0 ? a[i - 1] : a[i]) + 2.0 * a[i] + (i < n - 1 ? a[i + 1] : a[i]));
                    for (; i < n && i < n - 1; i++)
                        b[i] = 0.25 * (a[i - 1] + 2.0 * a[i] + a[i + 1]);
                    for (; i < n; i++)
                        b[i] = 0.25 * ((i > 0 ? a[i - 1] : a[i]) + 2.0 * a[i] + (i < n - 1 ? a[i + 1] : a[i]));
                }
                {
                    int i = 0;
                    for (; i < n && i <= 0; i++)
                        a[i] = 0.25 * ((i > 0 ? b[i - 1] : b[i]) + 2.0 * b[i] + (i < n - 1 ? b[i + 1] : b[i]));
                    for (; i < n && i < n - 1; i++)
                        a[i] = 0.25 * (b[i - 1] + 2.0 * b[i] + b[i + 1]);
                    for (; i < n; i++)
                        a[i] = 0.25 * ((i > 0 ? b[i - 1] : b[i]) + 2.0 * b[i] + (i < n - 1 ? b[i + 1] : b[i]));
                }
            }
        }
        """,
    )
    assert_same_output([src], ws)


PERIODIC_1D = CLAMP_1D.replace("(i > 0 ? a[i - 1] : a[i])", "a[(i - 1 + n) % n]").replace(
    "(i < n - 1 ? a[i + 1] : a[i])", "a[(i + 1) % n]").replace("(i > 0 ? b[i - 1] : b[i])", "b[(i - 1 + n) % n]").replace(
    "(i < n - 1 ? b[i + 1] : b[i])", "b[(i + 1) % n]")  # fmt: skip


def test_periodic_edges_fold_their_remainders(tmp_path):
    src = _write(tmp_path, "periodic.c", PERIODIC_1D)
    assert "% n]" in PERIODIC_1D
    ws = Workspace(src)
    ws["kernel"].split_boundaries()
    code = ws["kernel"].code
    # (i - 1 + n) % n is i - 1 where i - 1 >= 0, (i + 1) % n is i + 1 where i + 1 < n (and i - 1 < n, implied)
    assert "for (; i < n && i - 1 < 0; i++)" in code, code
    assert "for (; i < n && i + 1 < n; i++)\n                b[i] = 0.25 * (a[i - 1] + 2.0 * a[i] + a[i + 1]);" in code
    assert code.count("%") == 8  # the boundary copies keep theirs
    assert_same_output([src], ws)


def test_padded_2d_splits_inner_loops_of_the_interior_rows_only(tmp_path):
    src = _write(tmp_path, "pad.c", PAD_2D)
    ws = Workspace(src)
    ws["kernel"].split_boundaries()
    code = ws["kernel"].code
    # the interior rows: neither the row tests nor the column tests are left in the interior of the interior
    interior = re.search(r"for \(; j < n && j < n - 1; j\+\+\) \{(.*?)\n                \}", code, re.S)
    assert interior is not None, code
    assert "?" not in interior.group(1) and "if" not in interior.group(1), interior.group(1)
    assert "s += a[i][j - 1] + a[i][j + 1];" in interior.group(1)
    # the clamp macros: MAX(j - 1, 0) gives the test j - 1 > 0, folded in the middle columns
    assert "a[i][j] = 0.25 * (b[i - 1][j] + b[i + 1][j] + b[i][j - 1] + b[i][j + 1]);" in code
    # boundary rows keep every test, their column loops are not split (one row each)
    assert code.count("for (int j = 0; j < n; j++)") == 4
    assert_same_output([src], ws)


# ------------------------------------------------------------------------ random loops


_LHS = ["i", "i", "i", "i - 1", "i + 2", "2 * i", "-i", "n - i", "3 - i", "i + m", "2 * i - n"]
_RHS = ["0", "1", "-2", "5", "n", "n - 1", "n - 2", "m", "m + 1", "n + m", "2 * n", "-n"]


def _test(rng: random.Random, index: str = "i") -> str:
    lhs = rng.choice(_LHS).replace("i", index)
    op = rng.choice(["<", "<=", ">", ">=", "==", "!="])
    rhs = rng.choice(_RHS)
    return f"{rhs} {op} {lhs}" if rng.random() < 0.2 else f"{lhs} {op} {rhs}"


def _statement(rng: random.Random, index: str, other: str | None = None) -> str:
    def t() -> str:
        if other is not None and rng.random() < 0.3:
            return _test(rng, other)
        return _test(rng, index)

    forms = [
        f"s = s * 3u + ({t()} ? {index} : 7 * {index} + 1);",
        f"if ({t()}) s += {index} * 5; else s -= 2;",
        f"if ({t()} && {t()}) s ^= {index};",
        f"s += ({t()}) * 11;",
        f"s += ({t()} || {t()}) ? 1 : 2;",
        f"if (!({t()})) s += 13;",
        f"s = s * 5u + ({t()} ? ({t()} ? 1 : 2) : 3);",
        f"s = s * 7u + (unsigned long) {_remainder(rng, index)};",
        f"s = s * 3u + (unsigned long) ({_remainder(rng, index)} + {_remainder(rng, index)});",
    ]
    return rng.choice(forms)


def _remainder(rng: random.Random, index: str) -> str:
    """A periodic edge, ``(i + 1) % K`` or ``(i - 2 + K) % K``, with a divisor that is never 0 here."""
    k = rng.choice(["7", "(n + 200)", "(m + 300)", "(n + 200)"])
    c = rng.choice([1, 2, 0, 3])
    return rng.choice([f"(({index} + {c}) % {k})", f"(({index} - {c} + {k}) % {k})", f"((2 * {index} + {c}) % {k})"])


def _random_function(rng: random.Random, k: int) -> str:
    lb = rng.choice(["0", "1", "-3", "m", "n - 5", "2"])
    cond = rng.choice(["<", "<="])
    ub = rng.choice(["n", "n + 1", "m", "10", "n - 1", "n + m"])
    step = rng.choice([1, 1, 1, 2, 3])
    inc = "i++" if step == 1 else rng.choice([f"i += {step}", f"i = i + {step}"])
    outside = rng.random() < 0.3
    extra = rng.choice(["", "", "", " && i * i < 4 * n + 50", " && m + 3 > i"])  # conditions of any form
    head = f"for ({'' if outside else 'int '}i = {lb}; i {cond} {ub}{extra}; {inc})"
    body = [_statement(rng, "i") for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.3:  # a nested loop: the outer index is invariant in it
        jlb = rng.choice(["0", "i", "1"])
        inner = [_statement(rng, "j", "i") for _ in range(rng.randint(1, 2))]
        body.append(f"for (int j = {jlb}; j < n; j++) {{ {' '.join(inner)} }}")
    decl = "    int i;\n" if outside else ""
    after = "    s += (unsigned long) i;\n" if outside else ""
    return (
        f"static unsigned long f{k}(int n, int m)\n{{\n    unsigned long s = 1;\n{decl}"
        f"    {head} {{\n        " + "\n        ".join(body) + f"\n    }}\n{after}    return s;\n}}\n"
    )


def _random_program(seed: int, count: int) -> str:
    rng = random.Random(seed)
    funcs = [_random_function(rng, k) for k in range(count)]
    calls = "\n".join(f'        printf("%lu ", f{k}(sizes[q][0], sizes[q][1]));' for k in range(count))
    return (
        "#include <stdio.h>\n" + "\n".join(funcs)
        + "\nint main(void)\n{\n"
        + "    static const int sizes[][2] = {{-2, 0}, {0, 0}, {1, 1}, {2, 5}, {3, -1}, {7, 3}, {20, 4}, {100, 50},"
        + " {6, 100}};\n"
        + "    for (int q = 0; q < 9; q++) {\n" + calls + '\n        printf("\\n");\n    }\n    return 0;\n}\n'
    )  # fmt: skip


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_index_tests_print_the_same(tmp_path, seed):
    src = _write(tmp_path, f"random_{seed}.c", _random_program(seed, 60))
    ws = Workspace(src)
    split = 0
    for module in ws.modules:
        if module.name.startswith("f"):
            try:
                module.split_boundaries()
                split += 1
            except PassFailed:
                pass
    assert split >= 45, split  # most random loops test their index foldably: the test is not vacuous
    assert "% (n + 200)" in src.read_text()  # and some have periodic edges
    sanitized = ["-fsanitize=undefined", "-fno-sanitize-recover"]
    assert_same_output([src], ws, cflags=["-O1", *sanitized], libs=["-lm", *sanitized])


# ------------------------------------------------------------------------ stencils, tiled and in the recipe


def _diamond(schedule: str):
    def transform(module):
        module.time_tile(shape="diamond", schedule=schedule, tile_sizes="8,8")
        module.split_boundaries()

    return transform


@pytest.mark.parametrize("schedule", ["tasks", "static"])
def test_tiled_clamped_stencil_split_runs_the_same(tmp_path, schedule):
    ws = program_same_output(tmp_path, "clamp.c", CLAMP_1D, "kernel", _diamond(schedule))
    assert "b[c3] = 0.25 * (a[c3 - 1] + 2.0 * a[c3] + a[c3 + 1]);" in ws["kernel"].code


#: PAD_2D with its first sweep in one expression (a declaration in the loops stops the time tiling)
PAD_2D_EXPRESSIONS = PAD_2D.replace(
    """            for (int j = 0; j < n; j++) {
                double s = a[i][j];
                if (i > 0)
                    s += a[i - 1][j];
                if (i < n - 1)
                    s += a[i + 1][j];
                s += (j > 0 ? a[i][j - 1] : 0.0) + (j != n - 1 ? a[i][j + 1] : 0.0);
                b[i][j] = 0.2 * s;
            }""",
    """            for (int j = 0; j < n; j++)
                b[i][j] = 0.2 * (a[i][j] + (i > 0 ? a[i - 1][j] : 0.0) + (i < n - 1 ? a[i + 1][j] : 0.0)
                                 + (j > 0 ? a[i][j - 1] : 0.0) + (j != n - 1 ? a[i][j + 1] : 0.0));""",
)


@pytest.mark.parametrize("schedule", ["tasks", "static"])
def test_tiled_padded_2d_split_runs_the_same(tmp_path, schedule):
    assert PAD_2D_EXPRESSIONS != PAD_2D
    ws = program_same_output(tmp_path, "pad.c", PAD_2D_EXPRESSIONS, "kernel", _diamond(schedule))
    assert "c4 - 1 > 0" not in ws["kernel"].code.split("c4 < n - 1")[1].split("for (;")[0]


def _coarse_recipe(module):
    """The OpenMP recipe's coarse-grain path, its regions kept however small (the sweeps become `omp for`
    loops in one region around the time loop: worksharing loops to split)."""
    load_recipe("openmp").main(module.ws, poly=False, min_work=0, region_work=0, program_work=0)


#: PERIODIC_1D with the index declared at the top of the kernel (private to each worksharing loop)
PERIODIC_OUTSIDE = PERIODIC_1D.replace("    for (int t = 0;", "    int i;\n    for (int t = 0;").replace(
    "        for (int i = 0; i < n; i++)", "        for (i = 0; i < n; i++)")  # fmt: skip


@pytest.mark.parametrize("text, index", [(CLAMP_1D, "int i"), (PERIODIC_1D, "int i"), (PERIODIC_OUTSIDE, "i")],
                         ids=["clamped", "periodic", "periodic-index-outside"])  # fmt: skip
def test_worksharing_sweeps_split_into_three_worksharing_loops(tmp_path, text, index):
    ws = program_same_output(tmp_path, "sweep.c", text, "kernel", _coarse_recipe)
    code = ws["kernel"].code
    assert code.count("#pragma omp for nowait") == 4, code  # two pieces of each sweep, the third waits
    # the sizes are constants by then (N = 200): the split points too
    interior = f"for ({index} = 1; i < 199; i++)\n" + " " * 16 + "b[i] = 0.25 * (a[i - 1] + 2.0 * a[i] + a[i + 1]);"
    assert interior in code.replace("A[", "a[").replace("B[", "b["), code


def test_worksharing_loops_with_reductions_are_not_split(write_c):
    text = """
double a[100];
double f(int n)
{
    double s = 0.0;
    #pragma omp parallel for reduction(+:s)
    for (int i = 0; i < n; i++)
        s += i > 0 ? a[i - 1] : a[i];
    return s;
}
"""
    ws = Workspace(write_c(text))
    before = ws["f"].code
    with pytest.raises(PassFailed, match="its clause reduction"):
        ws["f"].split_boundaries()
    assert ws["f"].code == before
    ws = Workspace(write_c(text.replace("parallel for reduction", "for reduction")))
    with pytest.raises(PassFailed, match="its clause reduction"):
        ws["f"].split_boundaries()


def test_openmp_recipe_splits_the_boundaries(tmp_path):
    src = _write(tmp_path, "pad.c", PAD_2D)
    out = tmp_path / "out"
    got = subprocess.run(["passman", "run", "openmp", str(src), "-o", str(out), "--build", "--run"],
                         capture_output=True, text=True, env={"OMP_NUM_THREADS": "2", "PATH": _path()})  # fmt: skip
    assert got.returncode == 0, got.stderr
    expected = subprocess.run(["sh", "-c", f"gcc -O2 {src} -o {tmp_path}/ref && {tmp_path}/ref"],
                              capture_output=True, text=True)  # fmt: skip
    assert got.stdout.strip().splitlines()[-1] == expected.stdout.strip()
    text = (out / "pad.c").read_text()
    interior = re.compile(r"s \+= ([aA])\[i\]\[j - 1\] \+ \1\[i\]\[j \+ 1\];")  # the parameter, or the global
    assert interior.search(text), text
    off = subprocess.run(["passman", "run", "openmp", str(src), "-o", str(tmp_path / "off"), "--set", "boundaries=false"],
                         capture_output=True, text=True, env={"PATH": _path()})  # fmt: skip
    assert off.returncode == 0, off.stderr
    assert not interior.search((tmp_path / "off" / "pad.c").read_text())


def _path() -> str:
    import os
    import sys
    from pathlib import Path

    return f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"


# ------------------------------------------------------------------------ refusals and loops left alone


@pytest.mark.parametrize(
    "loop, why",
    [
        ("for (i = 0; i < n; i++) { if (i > 0) s += a[i - 1]; if (s > 100) break; }", "break"),
        ("for (i = 0; i < n; i++) { s += i > k ? a[i] : 0; k++; }", "no loop tests"),
        ("for (u = 0; u < (unsigned) n; u++) s += u > 0 ? a[u - 1] : 0;", "no loop tests"),
        ("for (i = 0; i < n; i++) s += i > 0 ? a[i - 1] : a[i] > 0;", None),
        ("for (i = 0; i < n; i++) s += a[i] > 0 ? a[i] : 0;", "no loop tests"),
        ("for (i = 0; i < n; i++) { s += i > 0 ? a[i] : 0; if (s > 5) i++; }", "index i is written"),
        ("for (i = 0; i < n; i += k) s += i > 0 ? a[i] : 0;", "step k of i is not a constant"),
    ],
)
def test_refusals_leave_the_function_unchanged(write_c, loop, why):
    text = (
        "int a[100];\nint f(int n, int k)\n{\n    int i, s = 0;\n    unsigned u;\n"
        f"    {loop}\n    return s + k + (int) u;\n}}\n"
    )
    ws = Workspace(write_c(text))
    before = ws["f"].code
    if why is None:
        ws["f"].split_boundaries()  # a[i] > 0 is not an index test, i > 0 is
        assert "s += a[i - 1];" in ws["f"].code
        return
    with pytest.raises(PassFailed, match=why):
        ws["f"].split_boundaries()
    assert ws["f"].code == before


BLUR_ONCE = """\
#include <stdio.h>
#define N 70
double a[N][N], b[N][N];
static void smooth(int n)
{
    int i;
    #pragma omp parallel for private(i) schedule(static)
    for (i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            b[i][j] = 0.2 * (a[i][j] + (i > 0 ? a[i - 1][j] : 0.0) + (i < n - 1 ? a[i + 1][j] : 0.0)
                             + (j > 0 ? a[i][j - 1] : 0.0) + (j < n - 1 ? a[i][j + 1] : 0.0));
}
int main(void)
{
    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = (i * 37 + j * 11 + 3) % 17;
    smooth(N);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += b[i][j] * (1 + (i + 2 * j) % 7);
    printf("%.10e\\n", s);
    return 0;
}
"""


def test_a_parallel_for_becomes_a_region_of_worksharing_pieces(tmp_path):
    """The user's ``parallel for`` (an image filter run once): a region around three ``omp for`` loops,
    the region's clauses on it, the schedule on each loop; the rows' tests folded in the middle rows."""
    ws = program_same_output(tmp_path, "smooth.c", BLUR_ONCE, "smooth", lambda m: m.split_boundaries())
    code = ws["smooth"].code
    assert "#pragma omp parallel private(i)\n    {" in code, code
    assert code.count("#pragma omp for schedule(static) nowait") == 3
    assert "b[i][j] = 0.2 * (a[i][j] + a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);" in code


def test_tests_the_bounds_decide_fold_in_place(write_c):
    """``i % m`` over ``0 <= i < m`` is ``i`` everywhere: no piece, the body alone changes."""
    ws = Workspace(write_c("double p[100];\nvoid f(int m)\n{\n    for (int i = 0; i < m; i++)\n"
                           "        p[i] = (double)(i % m) / m + (i >= 0 ? 1.0 : 2.0);\n}\n"))
    ws["f"].split_boundaries()
    expect(ws["f"].code, """
        void f(int m)
        {
            for (int i = 0; i < m; i++)
                p[i] = (double)i / m + 1.0;
        }
        """)
