"""Di 2013 ch. 4: balanced tiling hyperplanes, hindering false dependences, array-copy elimination.

Golden values from the digest (``../shared/papers/notes/di2013-stencil-tiling-gpu.md`` §1.a):
Fig. 3.4's balanced rows ``(2, 1)`` then ``(1, 0)`` or ``(1, 1)`` (tied), Pluto's ``[(1, 0), (1, 1)]``;
its only hindering false dependence, the anti ``(0, 1)``; SOR without any; Fig. 4.4's eight
dependences and hyperplanes after the copy. Then differential runs at 1, 2 and 4 threads.
"""

from __future__ import annotations

import os

import pytest
from conftest import CORPUS
from passman.passes.poly.balanced_hyperplanes import di_hyperplanes, hindering_false_dependences
from passman.passes.poly.di_shapes import _same_step_flow
from passman.passes.poly.time_tiling import time_loop_part
from stencil_runs import same_output

from passman import PassFailed, Workspace
from passman.builder import run
from passman.testing import assert_same_output, reference_output

FIG_3_4 = """#include <stdio.h>
#define J 37
#define I 301
static double A[I + 2];
void f(int nj, int ni, double A[ni + 2])
{
    for (int j = 1; j <= nj; j++)
        for (int i = 1; i <= ni; i++)
            A[i] = 0.5 * (A[i] + A[i + 1]);
}
int main(void)
{
    for (int i = 0; i < I + 2; i++)
        A[i] = (i % 17) * 0.25 + 1.0;
    f(J, I, A);
    double s = 0;
    for (int i = 0; i < I + 2; i++)
        s += A[i] * (i % 5 + 1);
    printf("%.12f\\n", s);
    return 0;
}
"""


def _part(module):
    deps = module.resource("dependences")
    part = time_loop_part(module, "", deps)
    return part, deps.of_scop(part)


def _rows(rows, stmt="S0"):
    return [r.forms[stmt] for r in rows]


@pytest.fixture
def fig34(tmp_path):
    path = tmp_path / "fig34.c"
    path.write_text(FIG_3_4)
    return path


def test_balanced_and_pluto_hyperplanes_of_fig_3_4(fig34):
    part, deps = _part(Workspace(fig34)["f"])
    balanced = _rows(di_hyperplanes(part, deps))
    assert balanced[0] == (2, 1, 0)  # c2 >= 1, c1 >= 1, c1 - c2 >= 1, bounded by w = 2
    assert balanced[1] in [(1, 0, 0), (1, 1, 0)]  # tied at w = 1
    assert _rows(di_hyperplanes(part, deps, balanced=False)) == [(1, 0, 0), (1, 1, 0)]  # Fig. 4.1


@pytest.mark.parametrize("method", ["coefficients", "resolve"])
def test_the_only_hindering_false_dependence_of_fig_3_4(fig34, method):
    part, deps = _part(Workspace(fig34)["f"])
    assert [(d.kind, d.vector) for d in hindering_false_dependences(part, deps, method)] == [("anti", (0, 1))]


@pytest.mark.parametrize("method", ["coefficients", "resolve"])
def test_sor_has_no_hindering_false_dependence(method):
    part, deps = _part(Workspace(CORPUS / "sor_2d.c")["kernel_sor_2d"])
    assert hindering_false_dependences(part, deps, method) == []


def test_elimination_gives_fig_4_4(fig34, tmp_path):
    ws = Workspace(fig34)
    f = ws["f"]
    f.eliminate_false_dependences()
    assert "A0[i + 1]" in f.code and "A0[A0_x0] = A[A0_x0];" in f.code and "free(A0);" in f.code
    part, deps = _part(f)
    got = sorted((d.kind, d.array, d.source_stmt.name, d.sink_stmt.name, d.vector) for d in deps if d.is_direct)
    # S0: the copy A0[x] = A[x], S1: A[i] = 0.5 * (A[i] + A0[i + 1]); vectors over the common loops
    assert got == [
        ("anti", "A", "S0", "S1", (0,)), ("anti", "A", "S1", "S1", (1, 0)), ("anti", "A0", "S1", "S0", (1,)),
        ("flow", "A", "S1", "S0", (1,)), ("flow", "A", "S1", "S1", (1, 0)), ("flow", "A0", "S0", "S1", (0,)),
        ("output", "A", "S1", "S1", (1, 0)), ("output", "A0", "S0", "S0", (1, 0)),
    ]
    rows = di_hyperplanes(part, deps)
    assert _rows(rows, "S0") == [(1, 0, 0), (1, 1, 0)] and _rows(rows, "S1") == [(1, 0, 0), (1, 1, 1)]
    assert hindering_false_dependences(part, deps) == []
    built = ws.build("openmp", tmp_path / "out", opt="-O2")
    assert run(built.binary).stdout == reference_output([fig34]).stdout


@pytest.mark.parametrize("steps", [
    lambda m: m.time_tile(shape="balanced", schedule="static", tile_sizes="8,16"),
    lambda m: m.time_tile(shape="balanced", schedule="tasks", tile_sizes="4,8"),
    lambda m: (m.eliminate_false_dependences(), m.time_tile(shape="balanced", schedule="static", tile_sizes="8,16")),
    lambda m: (m.eliminate_false_dependences(), m.time_tile(shape="balanced", schedule="tasks")),
], ids=["balanced-static", "balanced-tasks", "copy-balanced-static", "copy-balanced-tasks"])
def test_balanced_tiles_keep_the_output(fig34, tmp_path, steps):
    ws = Workspace(fig34)
    steps(ws["f"])
    built = ws.build("openmp", tmp_path / "out", opt="-O2")
    ref = reference_output([fig34]).stdout
    for n in (1, 2, 4):
        got = run(built.binary, env={**os.environ, "OMP_NUM_THREADS": str(n)}, timeout=120)
        assert got.returncode == 0 and got.stdout == ref, f"{n} threads"


def test_balanced_tiles_of_a_corpus_stencil(tmp_path):
    same_output(tmp_path, "jacobi_1d", 203, lambda k: k.time_tile(shape="balanced", schedule="static",
                                                                        tile_sizes="32,32"))


def test_nothing_to_eliminate_is_refused_and_changes_nothing():
    ws = Workspace(CORPUS / "sor_2d.c")
    before = ws["kernel_sor_2d"].code
    with pytest.raises(PassFailed, match="no hindering false dependence"):
        ws["kernel_sor_2d"].eliminate_false_dependences()
    assert ws["kernel_sor_2d"].code == before


def test_a_read_of_values_written_in_the_same_step_is_not_copied(write_c):
    """``A[ni - i + 1]`` reads, in the second half of each step, values that step wrote: a copy
    taken at the start of the step would change them."""
    part, deps = _part(Workspace(write_c(
        "void f(int nj, int ni, double A[ni + 2])\n{\n    for (int j = 1; j <= nj; j++)\n"
        "        for (int i = 1; i <= ni; i++)\n            A[i] = 0.5 * (A[i] + A[ni - i + 1] + A[i + 1]);\n}\n"))["f"])
    reads = {a.text: a for s in part.statements for a in s.reads()}
    assert _same_step_flow(deps, reads["A[ni - i + 1]"])
    assert not _same_step_flow(deps, reads["A[i + 1]"])


def test_statements_of_different_depths_are_refused(write_c):
    f = Workspace(write_c(
        "void f(int nj, int ni, double A[ni], double s[nj])\n{\n    for (int j = 1; j < nj; j++) {\n"
        "        s[j] = s[j - 1];\n        for (int i = 1; i < ni; i++)\n            A[i] = A[i - 1] + s[j];\n    }\n}\n"))["f"]
    part = f.resource("scops")[0]
    deps = f.resource("dependences").of_scop(part)
    with pytest.raises(PassFailed, match="one depth"):
        di_hyperplanes(part, deps)


def test_a_guarded_read_copies_only_elements_inside_the_array(tmp_path):
    """``i + 1 < n ? A[i + 1] : 0.0`` over ``0 <= i < n``: the read is modelled wherever the statement
    runs, ``A[n]`` included; the copy stops at ``A[n - 1]`` (before: one element past the heap block,
    fuzz seed 310179), and the program prints what the original prints under ASan."""
    src = tmp_path / "guarded.c"
    src.write_text(
        "#include <stdio.h>\n#define N 50\nstatic double A[N];\n"
        "static void f(int tsteps, int n, double A[n])\n{\n    for (int t = 0; t < tsteps; t++)\n"
        "        for (int i = 0; i < n; i++)\n            A[i] = 0.5 * (A[i] + (i + 1 < n ? A[i + 1] : 0.0));\n}\n"
        "int main(void)\n{\n    double s = 0.0;\n    for (int i = 0; i < N; i++)\n        A[i] = (i * 37 + 3) % 17;\n"
        "    f(20, N, A);\n    for (int i = 0; i < N; i++)\n        s += A[i] * (1 + i % 7);\n"
        '    printf("%.10e\\n", s);\n    return 0;\n}\n'
    )
    ws = Workspace(src)
    ws["f"].eliminate_false_dependences()
    assert "A0_x0 <= n - 1;" in ws["f"].code, ws["f"].code
    asan = ["-fsanitize=address", "-fno-sanitize-recover=all"]
    assert_same_output([src], ws, cflags=["-O1", *asan], libs=["-lm", *asan])
