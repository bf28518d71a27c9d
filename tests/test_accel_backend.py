"""The accel backend (backends/accel_omp) and recipe: every corpus program on the emulation.

The oracle: the program after the ``accel`` recipe, built with the ``accel``
backend (launches through ``passman_accel_emu_launch``, device buffers
separate and garbage-filled), prints the original's output in the normal
order of work-items and in two shuffled orders (``PASSMAN_ACCEL_SHUFFLE``):
a kernel whose work-items depend on each other, or a missing transfer,
changes the output.
"""

from __future__ import annotations

import re

import pytest
from conftest import corpus_params, program_id, skip_slow

from passman import Workspace
from passman.recipe import load_recipe, recipe_entry

#: programs whose parallel nests must become launches
MAPPED = ("gemm", "jacobi_2d", "atax", "two_mm", "heat_3d", "conv2d", "matmul_global", "fdtd_2d")
#: always run (the whole corpus with -m slow or PASSMAN_SLOW=1)
DEFAULT = MAPPED + ("nussinov", "symm", "dot", "histogram", "cholesky", "lu")


@pytest.mark.parametrize("files", corpus_params(DEFAULT))
def test_corpus_program_on_the_emulation_in_any_order(files, tmp_path, request):
    skip_slow(request)
    reference = Workspace(*map(str, files))
    reference.build("c", tmp_path / "ref")
    expected = reference.run()
    ws = Workspace(*map(str, files))
    recipe_entry(load_recipe("accel"))(ws)
    ws.build("accel", tmp_path / "accel")
    text = "".join(p.read_text() for p in (tmp_path / "accel").glob("*.c"))
    launches = text.count("passman_accel_emu_launch_for(")
    if program_id(files) in MAPPED:
        assert launches, "no launch"
    for env in ({}, {"PASSMAN_ACCEL_SHUFFLE": "1"}, {"PASSMAN_ACCEL_SHUFFLE": "1", "PASSMAN_ACCEL_SEED": "7"}):
        got = ws.run(env={"PASSMAN_ACCEL_STATS": "1", "PASSMAN_ACCEL_CHECK": "1", **env})
        assert got.returncode == expected.returncode, got.stderr[-2000:]
        assert got.stdout == expected.stdout, env
        m = re.search(r"(\d+) kernel launches", got.stderr)
        if launches:  # the runtime counts them
            assert m and int(m.group(1)) > 0, got.stderr[-300:]
        else:  # nothing went to the device: the runtime is not even linked
            assert m is None


TRIANGLE = r"""
#include <stdio.h>
#define N 997
#define M 13
double A[N][N + M], B[N + M];

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N + M; j++)
            A[i][j] = -1.0;
    for (int j = 0; j < N + M; j++)
        B[j] = (j % 17) * 0.5;
    for (int i = 0; i < N; i++)          /* triangular: launched over the box, guarded */
        for (int j = i; j < i + M; j++)
            A[i][j] = B[j] * (i + 1);
    double s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N + M; j++)
            s += A[i][j] * ((i + j) % 5 + 1);
    printf("%.17g\n", s);
    return 0;
}
"""


@pytest.mark.parametrize("block", ["32x8", "7x3", "1000x1"])
def test_triangular_nest_over_ragged_blocks_writes_nothing_outside(block, tmp_path):
    """A rectangular launch rounded up to whole blocks: the guard keeps every write inside the
    nest (the untouched -1.0 elements count in the sum; guard zones catch writes past a buffer)."""
    reference = Workspace.from_code(TRIANGLE, "t.c")
    reference.build("c", tmp_path / "ref")
    expected = reference.run()
    ws = Workspace.from_code(TRIANGLE, "t.c")
    recipe_entry(load_recipe("accel"))(ws)
    ws.build("accel", tmp_path / "accel")
    text = "".join(p.read_text() for p in (tmp_path / "accel").glob("*.c"))
    assert text.count("passman_accel_emu_launch_for(") >= 3
    assert any(f"if (j >= i && {bound})" in text for bound in ("j < i + 13", "j <= i + 12", "j < i + M")), text
    for shuffle in ("0", "1"):
        got = ws.run(env={"PASSMAN_ACCEL_BLOCK": block, "PASSMAN_ACCEL_CHECK": "1", "PASSMAN_ACCEL_SHUFFLE": shuffle})
        assert got.returncode == 0, got.stderr[-2000:]
        assert got.stdout == expected.stdout


def test_a_block_chosen_by_the_recipe_reaches_the_launch(tmp_path):
    """gpu_ify{block=...} writes ``block(...)`` on the launch; the emulation's launch takes it
    (PASSMAN_ACCEL_BLOCK_<kernel> overrides it); the output stays the original's."""
    reference = Workspace.from_code(TRIANGLE, "t.c")
    reference.build("c", tmp_path / "ref")
    expected = reference.run().stdout
    ws = Workspace.from_code(TRIANGLE, "t.c")
    ws.apply("gpu_ify", ws["main"], block="16x4")
    assert "#pragma passman launch p4a_kernel_0 block(16, 4)" in ws.compilation_units[0].code
    ws.apply("kernel_data_mapping")
    ws.build("accel", tmp_path / "accel")
    text = "".join(p.read_text() for p in (tmp_path / "accel").glob("*.c"))
    assert 'passman_accel_emu_launch_for("p4a_kernel_0", (const size_t []){16, 4},' in text
    assert ws.run().stdout == expected
    assert ws.run(env={"PASSMAN_ACCEL_BLOCK_p4a_kernel_2": "8x2"}).stdout == expected
