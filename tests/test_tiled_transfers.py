"""Per-tile loads of what earlier tiles did not load (passes.gpu.tiled_transfers, Amini 2012 §3.9).

Golden test of the digest's claim 22 (tiled FIR, Fig 3.19: after the first
tile, a tile loads the single element ``src[i + k - 1]``; ``if (i == 0)`` holds
the full loads; N + 2k - 1 elements move in instead of 2Nk), measured by the
accel runtime's counts on its CPU emulation, whose device buffers are garbage
until copied: a missing element changes the output. Refusals leave the code
unchanged.
"""

from __future__ import annotations

import re

import pytest

from passman import PassFailed, Workspace

N, K = 1000, 16
TILES = N - K + 1

FIR = rf"""
#include <stdio.h>
#define N {N}
#define K {K}
static void fir_tap(int i, int n, int k, int src[n], int dst[n - k + 1], int m[k])
{{
    int v = 0;
    for (int j = 0; j < k; j++)
        v += src[i + j] * m[j];
    dst[i] = v;
}}
static void fir(int n, int k, int src[n], int dst[n - k + 1], int m[k])
{{
tiles:
    for (int i = 0; i <= n - k; i++) {{
    tap:
        fir_tap(i, n, k, src, dst, m);
    }}
}}
int src[N], dst[N - K + 1], m[K];
int main(void)
{{
    for (int i = 0; i < N; i++)
        src[i] = (i * 7) % 13 - 6;
    for (int j = 0; j < K; j++)
        m[j] = j % 5 - 2;
    fir(N, K, src, dst, m);
    long s = 0;
    for (int i = 0; i <= N - K; i++)
        s += (long) dst[i] * (i % 7 + 1);
    printf("%ld\n", s);
    return 0;
}}
"""


def _stats(stderr: str) -> tuple[int, int, int, int]:
    m = re.search(r"passman-accel: (\d+) copies to device \((\d+) bytes\), (\d+) copies from device \((\d+) bytes\)",
                  stderr)
    assert m, stderr[-500:]
    return tuple(int(x) for x in m.groups())


def _run(ws: Workspace, where) -> tuple[str, tuple]:
    ws.build("c", where)
    got = ws.run(env={"PASSMAN_ACCEL_STATS": "1", "PASSMAN_ACCEL_CHECK": "1"})
    assert got.returncode == 0, got.stderr[-1000:]
    return got.stdout, _stats(got.stderr)


def _code(ws: Workspace) -> str:
    return "".join(cu.code for cu in ws.compilation_units)


def test_claim_22_tiled_fir_loads_one_new_element_per_tile(tmp_path):
    reference = Workspace.from_code(FIR, "t.c")
    reference.build("c", tmp_path / "ref")
    expected = reference.run().stdout
    ws = Workspace.from_code(FIR, "t.c")
    ws.apply("isolate_statement", ws["fir"], label="tap")
    naive_out, naive = _run(ws, tmp_path / "naive")
    ws.apply("tiled_transfers", ws["fir"].loop("tiles"))
    text = ws["fir"].code
    out, tiled = _run(ws, tmp_path / "tiled")
    assert naive_out == out == expected
    # the first tile loads src[0 .. k - 1] and m; every later one src[i + k - 1] alone
    assert "if (i == 0) {" in text
    assert ("passman_accel_copy_to(src_d, src, sizeof(src[0]), 1, (size_t []){n}, (size_t []){i + k - 1}, "
            "(size_t []){1});") in text
    assert text.count("passman_accel_copy_to(m_d") == 1
    # the buffers of src and m live across the tiles: allocated before the loop, freed after
    assert text.index("int *src_d = passman_accel_malloc") < text.index("for (int i = 0;")
    assert text.rindex("passman_accel_free(src_d);") > text.rindex("fir_tap(")
    elem = 4
    assert naive[:2] == (2 * TILES, 2 * TILES * K * elem)  # 2Nk elements
    assert tiled[:2] == (TILES + 1, (TILES + 2 * K - 1) * elem)  # N + 2k - 1 elements
    assert tiled[2:] == naive[2:]  # dst is copied out per tile as before


STENCIL = r"""
#include <stdio.h>
#define N 803
static double A[N], B[N];
static void smooth(int n, double a[n], double b[n])
{
tiles:
    for (int t = 0; t < (n - 2) / 8; t++) {
    tile:
        for (int i = 8 * t + 1; i < 8 * t + 9; i++)
            b[i] = a[i - 1] + 2.0 * a[i] + a[i + 1];
    }
}
int main(void)
{
    for (int i = 0; i < N; i++) {
        A[i] = (i * 37) % 101;
        B[i] = -1.0;
    }
    smooth(N, A, B);
    double s = 0;
    for (int i = 0; i < N; i++)
        s += B[i] * (i % 3 + 1);
    printf("%.17g\n", s);
    return 0;
}
"""


def test_strip_mined_stencil_reloads_only_the_new_elements(tmp_path):
    """Tiles of 8 points read 10 elements of a; 2 of them the previous tile already loaded."""
    reference = Workspace.from_code(STENCIL, "t.c")
    reference.build("c", tmp_path / "ref")
    expected = reference.run().stdout
    ws = Workspace.from_code(STENCIL, "t.c")
    ws.apply("isolate_statement", ws["smooth"], label="tile")
    _, naive = _run(ws, tmp_path / "naive")
    ws.apply("tiled_transfers", ws["smooth"].loop("tiles"))
    out, tiled = _run(ws, tmp_path / "tiled")
    assert out == expected
    tiles = (803 - 2) // 8
    assert naive[:2] == (tiles, tiles * 10 * 8)
    assert tiled[:2] == (tiles, (10 + 8 * (tiles - 1)) * 8)


def test_a_loop_without_isolated_statement_is_refused():
    ws = Workspace.from_code(FIR, "t.c")
    before = _code(ws)
    with pytest.raises(PassFailed, match="not one isolated statement"):
        ws.apply("tiled_transfers", ws["fir"].loop("tiles"))
    assert _code(ws) == before


def test_tiles_that_share_nothing_are_refused():
    code = STENCIL.replace("b[i] = a[i - 1] + 2.0 * a[i] + a[i + 1];", "b[i] = 2.0 * a[i];")
    ws = Workspace.from_code(code, "t.c")
    ws.apply("isolate_statement", ws["smooth"], label="tile")
    before = _code(ws)
    with pytest.raises(PassFailed, match="every tile loads a elements no earlier tile loaded"):
        ws.apply("tiled_transfers", ws["smooth"].loop("tiles"))
    assert _code(ws) == before


def test_an_array_the_tiles_write_keeps_its_loads(tmp_path):
    """a[i] += ...: a later tile must see the host's value as the earlier tile left it."""
    code = STENCIL.replace("b[i] = a[i - 1] + 2.0 * a[i] + a[i + 1];", "a[i] = a[i - 1] + a[i + 1];")
    ws = Workspace.from_code(code, "t.c")
    ws.apply("isolate_statement", ws["smooth"], label="tile")
    before = _code(ws)
    with pytest.raises(PassFailed, match="no copy in to reduce"):
        ws.apply("tiled_transfers", ws["smooth"].loop("tiles"))
    assert _code(ws) == before
