"""The stencil fuzzer (passman.fuzz.stencils): its programs, and a fixed-seed budget through the tilings.

``PASSMAN_FUZZ=N`` sets the budget (cases), as for the other fuzz modes.
"""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from passman.fuzz.stencils import STEPS, check_stencil, generate_stencil, main, stencil_steps

BUDGET = int(os.environ.get("PASSMAN_FUZZ") or 6)
#: seeds of the budget run (fixed: a failure reproduces with --seed)
BUDGET_SEED = 3_000


@pytest.mark.parametrize("seed", range(1, 9))
def test_programs_are_valid_c_that_print_a_checksum(tmp_path, seed):
    src = tmp_path / "s.c"
    src.write_text(generate_stencil(seed))
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", "-O1", str(src), "-o", str(tmp_path / "s"), "-lm"], check=True)
    out = subprocess.run([str(tmp_path / "s")], capture_output=True, text=True, check=True).stdout
    assert float(out) > 0


def test_the_generator_draws_every_form_and_step():
    texts = [generate_stencil(s) for s in range(60)]
    assert any("[j]" in t for t in texts) and any("[j]" not in t for t in texts)  # 1-D and 2-D
    assert any("B[i" in t.split("static void kernel")[1].split("int main")[0].split(") {")[1]
               for t in texts)  # two-array steps
    assert any(t.count("for (int i = 2") == 2 for t in texts)  # two nests a step
    assert any("A[(t + 1) % 2][i] = " in t and "double A[2][n]" in t for t in texts)  # storage folded on 2
    assert any("    int t, i" in t and "for (t = " in t for t in texts)  # indices declared at the top
    assert any("n - 2 > " in t or "n - 3 >= " in t for t in texts) and any("= i + 1)" in t for t in texts)
    assert any(re.search(r"\* \((sqrt|sin|exp|fmax)\(", t) for t in texts)  # a libm call on a neighbour
    drawn = {(s.name, tuple(sorted(s.kwargs.items()))[:2]) for seed in range(200) for s in stencil_steps(seed)[:1]}
    assert {name for name, _ in STEPS} <= {name for name, _ in drawn}
    assert generate_stencil(5) == generate_stencil(5)


def test_budget_run():
    """No case of the budget is wrong, a traceback, a compile error, a time-out or a crash."""
    kinds = []
    for seed in range(BUDGET_SEED, BUDGET_SEED + BUDGET):
        v = check_stencil(seed, timeout=60)
        assert not v.failed, f"seed {seed}: {v.kind} {v.detail}\n" + "\n".join(v.steps) + v.stderr[-2000:]
        kinds.append(v.kind)
    assert "same" in kinds


def test_show(capsys):
    assert main(["--show", "7"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("#include <math.h>\n#include <stdio.h>") and "// step: " in out
