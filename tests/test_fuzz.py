"""The fuzzer (passman.fuzz): generator, oracle, shrinker, a budget run, the fuzz corpus.

The budget run judges ``PASSMAN_FUZZ`` cases per mode when that variable is
set (``PASSMAN_FUZZ=300 pytest tests/test_fuzz.py -k budget``), else
:data:`DEFAULT_BUDGET`. Every program of ``tests/corpus/fuzz/`` (the known
bug classes, and the shrunk failures the fuzzer found) must come out of the
OpenMP recipe with the original's output.
"""

from __future__ import annotations

import io
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import skip_slow

from passman import PassFailed, Workspace, transformation
from passman.fuzz.__main__ import main as fuzz_main
from passman.fuzz.campaign import Result, campaign, describe, table
from passman.fuzz.case import make_case
from passman.fuzz.generator import generate, generate_c
from passman.fuzz.known import known_programs
from passman.fuzz.oracle import (
    Verdict,
    check_accel,
    check_api,
    check_openmp,
    header_options,
    header_steps,
    header_timeout,
)
from passman.fuzz.program import (
    HALF,
    ArrayRef,
    Assign,
    Bin,
    If,
    Loop,
    Program,
    Read,
    ScalarRef,
    render,
    to_c,
    walk,
)
from passman.fuzz.shrink import save, shrink
from passman.fuzz.steps import Step, apply
from passman.testing import outputs_match

CORPUS = Path(__file__).resolve().parent / "corpus" / "fuzz"
DEFAULT_BUDGET = 20
BUDGET = int(os.environ.get("PASSMAN_FUZZ") or DEFAULT_BUDGET)
#: the seeds of the budget run (fixed: a failure reproduces with --seed)
BUDGET_SEED = 20_000


# ----------------------------------------------------------------------------- generator


def features(program: Program) -> set[str]:
    """The generator features ``program`` shows."""
    out: set[str] = set()
    params = set(program.params)

    def nest_depth(loop: Loop) -> int:
        inner = [n for n in loop.body if isinstance(n, Loop)]
        return 1 + max((nest_depth(n) for n in inner), default=0)

    out |= {f"depth{nest_depth(n)}" for n in program.nests}
    out |= {f"rank{a.rank}" for a in program.arrays}
    out |= {"local array" if a.local else "global array" for a in program.arrays}
    out.add("kernel function" if program.in_kernel else "nests in main")
    for node in walk(program.nests):
        if isinstance(node, Loop):
            atoms = node.start.atoms() | node.stop.atoms()
            out |= {"param bound"} if atoms & params else {"constant bound"}
            if atoms - params:
                out.add("triangular")
            out |= {"decreasing"} if node.step < 0 else set()
            out |= {"step 2"} if node.step == 2 else set()
            if node.var == "t":
                out.add("time loop")
                if len([n for n in node.body if isinstance(n, Loop)]) > 1:
                    out.add("several nests in a time loop")
            if any(isinstance(n, (Assign, If)) for n in node.body) and any(
                isinstance(n, Loop) for n in node.body
            ):
                out.add("imperfect nest")
        elif isinstance(node, If):
            out.add("condition")
            if len(node.cond.left.terms) > 1:
                out.add("condition on two indices")
            if any(HALF in a for a, _ in node.cond.right.terms):
                out.add("condition on n / 2")
        elif isinstance(node, Assign):
            target = node.target
            if isinstance(target, ScalarRef):
                out.add("scalar reduction" if target.name.startswith("s") else "temporary")
            elif node.op == "+=":
                out.add("array reduction")
            refs = [target] + [r for r in _reads(node.value)]
            for ref in refs:
                if isinstance(ref, ArrayRef):
                    for s in ref.subscripts:
                        if not s.terms:
                            out.add("constant subscript")
                        elif len(s.terms) > 1:
                            out.add("sum subscript")
                        elif s.terms[0][1] == 2:
                            out.add("coefficient subscript")
                        elif s.const:
                            out.add("offset subscript")
            if _has_product(node.value):
                out.add("product")
            if any(isinstance(r, ScalarRef) and r.name.startswith("t") for r in _reads(node.value)):
                out.add("temporary read")
    out |= {"printed temporary" for s in program.scalars if s.printed and s.name.startswith("t")}
    return out


def _reads(expr):
    if isinstance(expr, Read):
        yield expr.ref
    elif isinstance(expr, Bin):
        yield from _reads(expr.left)
        yield from _reads(expr.right)


def _has_product(expr) -> bool:
    if isinstance(expr, Bin):
        if expr.op == "*" and isinstance(expr.left, Read) and isinstance(expr.right, Read):
            return True
        return _has_product(expr.left) or _has_product(expr.right)
    return False


EVERY_FEATURE = {
    "depth1", "depth2", "depth3", "depth4", "rank1", "rank2", "rank3", "local array",
    "global array", "kernel function", "nests in main", "param bound", "constant bound",
    "triangular", "decreasing", "step 2", "time loop", "several nests in a time loop",
    "imperfect nest", "condition", "condition on two indices", "condition on n / 2",
    "scalar reduction", "temporary", "array reduction", "constant subscript", "sum subscript",
    "coefficient subscript", "offset subscript", "product", "temporary read", "printed temporary",
}  # fmt: skip


def test_generator_is_deterministic():
    for seed in (0, 1, 17, 4242):
        assert generate_c(seed) == generate_c(seed)
    assert len({generate_c(seed) for seed in range(20)}) == 20


def test_every_feature_appears():
    seen: set[str] = set()
    for seed in range(300):
        seen |= features(generate(seed))
    assert EVERY_FEATURE <= seen, EVERY_FEATURE - seen


def test_generated_programs_are_valid_in_bounds_and_finite(tmp_path):
    """gcc -Wall says nothing; ASan and UBSan say nothing; every checksum is a finite number."""
    for seed in range(20):
        source = tmp_path / f"g{seed}.c"
        source.write_text(generate_c(seed))
        binary = tmp_path / f"g{seed}"
        cc = subprocess.run(
            ["gcc", "-Wall", "-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
             str(source), "-o", str(binary), "-lm"],
            capture_output=True, text=True,
        )  # fmt: skip
        assert cc.returncode == 0 and not cc.stderr, (seed, cc.stderr)
        out = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0 and not out.stderr, (seed, out.stderr[:2000])
        values = re.findall(r"^\w+ (\S+)$", out.stdout, re.M)
        assert values and len(values) == len(out.stdout.splitlines()), (seed, out.stdout)
        assert all(math.isfinite(float(v)) for v in values), (seed, out.stdout)


def test_loop_positions_match_passman():
    """The printer's loop order is passman's ``all_loops`` order (api steps name loops by position)."""
    for seed in range(6):
        rendered = render(generate(seed))
        ws = Workspace.from_code(rendered.text, "prog.c")
        assert {m.name: len(m.all_loops) for m in ws.all_functions} == {
            f: len(loops) for f, loops in rendered.loops.items()
        }


def test_known_bug_classes_are_generator_programs():
    """The hand-shrunk bug classes are programs of the structured form, printed as in the corpus."""
    for name, program in known_programs().items():
        assert (CORPUS / f"{name}.c").read_text() == to_c(program), name


# ----------------------------------------------------------------------------- oracle

PROGRAM = """#include <stdio.h>

static double A[20];

int main(void)
{
    int i;
    double sum = 0.0;
    for (i = 0; i < 20; i++)
        A[i] = i * 0.5;
    for (i = 1; i < 18; i++)
        A[i] = 0.5 * A[i] + 0.25;
    for (i = 0; i < 20; i++)
        sum += A[i] * (i % 13 + 1);
    printf("A %.17g\\n", sum);
    return 0;
}
"""


def _fake_passman(script: str):
    """A stand-in for ``passman run openmp``: a Python script run on (source, out)."""

    def command(source: str, out: str, options) -> list[str]:
        return [sys.executable, "-c", script, source, out]

    return command


_COPY = """import sys, pathlib
src, out = sys.argv[1], pathlib.Path(sys.argv[2])
out.mkdir()
text = pathlib.Path(src).read_text()
"""


def test_oracle_says_same_for_a_correct_parallel_program():
    script = _COPY + "(out / 'prog.c').write_text(text.replace('    for (i = 1;', '    #pragma omp parallel for\\n    for (i = 1;'))"
    v = check_openmp(PROGRAM, command=_fake_passman(script))
    assert v.kind == "same", v


def test_oracle_says_refused_when_nothing_is_parallel():
    v = check_openmp(PROGRAM, command=_fake_passman(_COPY + "(out / 'prog.c').write_text(text)"))
    assert v.kind == "refused", v


def test_oracle_catches_a_changed_loop_bound():
    script = _COPY + "(out / 'prog.c').write_text(text.replace('i < 18', 'i < 17'))"
    v = check_openmp(PROGRAM, command=_fake_passman(script))
    assert v.kind == "wrong" and "threads" in v.detail, v


def test_oracle_catches_a_traceback():
    script = "import sys\nraise RuntimeError('boom')"
    v = check_openmp(PROGRAM, command=_fake_passman(script))
    assert v.kind == "traceback" and v.signature() == "traceback:RuntimeError", v
    assert "boom" in v.stderr


def test_oracle_catches_an_internal_error_message():
    script = "import sys\nprint('passman: internal error: oops', file=sys.stderr)\nsys.exit(3)"
    v = check_openmp(PROGRAM, command=_fake_passman(script))
    assert v.kind == "traceback", v


def test_oracle_catches_compile_errors_crashes_and_timeouts():
    broken = _COPY + "(out / 'prog.c').write_text(text.replace('return 0;', 'return 0'))"
    assert check_openmp(PROGRAM, command=_fake_passman(broken)).kind == "compile_error"
    crash = _COPY + "(out / 'prog.c').write_text(text.replace('return 0;', 'return *(volatile int *)0;'))"
    assert check_openmp(PROGRAM, command=_fake_passman(crash)).kind == "crash"
    slow = "import time\ntime.sleep(30)"
    assert check_openmp(PROGRAM, timeout=1, command=_fake_passman(slow)).kind == "timeout"


def test_outputs_compare_within_the_stated_tolerance():
    assert outputs_match("A 1.0000000000001\n", "A 1.0000000000002\n", 1e-9, 1e-12)
    assert not outputs_match("A 1.0001\n", "A 1.0002\n", 1e-9, 1e-12)
    assert not outputs_match("A 1\n", "B 1\n", 1e-9, 1e-12)


@transformation(scope="loop")
def t_fuzz_crash(loop) -> None:
    """A broken transformation for the test below: it raises something else than PassFailed."""
    raise ZeroDivisionError("t_fuzz_crash")


@transformation(scope="loop")
def t_fuzz_refuse(loop) -> None:
    """A transformation that always refuses."""
    raise PassFailed(f"loop {loop.label}: t_fuzz_refuse refuses")


def test_api_steps_report_refusals_and_errors():
    ws = Workspace.from_code(PROGRAM, "prog.c")
    before = ws["main"].code
    outcomes = apply(ws, [Step("t_fuzz_refuse", "main", 1), Step("t_fuzz_crash", "main", 1),
                          Step("unroll", "main", 1, (2,))])
    assert [o.result for o in outcomes] == ["refused", "error"]
    assert "ZeroDivisionError" in outcomes[1].message
    assert ws["main"].code == before


def test_api_mode_applies_steps_and_compares():
    steps = [Step("unroll", "main", 1, (3,)), Step("coarse_grain_parallelization", "main", None, (),
                                                   {"min_work": 0}), Step("ompify_code", "main")]
    v = check_api(PROGRAM, steps, {"main": 3})
    assert v.kind == "same", v
    assert v.steps and v.steps[0].startswith("unroll(3) on main loop #1: applied")
    v = check_api(PROGRAM, [Step("loop_fusion", "main", 0)], {"main": 3})
    assert v.kind in ("same", "refused"), v


# ----------------------------------------------------------------------------- shrinker


def test_shrinker_keeps_the_failure_and_saves_a_small_program(tmp_path):
    """With an oracle that calls every array reduction wrong, a case shrinks to one statement."""

    def oracle(case, timeout):
        bad = any(isinstance(n, Assign) and n.op == "+=" and isinstance(n.target, ArrayRef)
                  for n in walk(case.program.nests))
        return Verdict("wrong" if bad else "same", case.mode, "fake")

    seed = next(s for s in range(100) if oracle(make_case(s, "api"), 0).kind == "wrong")
    case = make_case(seed, "api")
    small, verdict = shrink(case, oracle(case, 0), budget=60, oracle=oracle)
    assert verdict.kind == "wrong" and oracle(small, 0).kind == "wrong"
    statements = [n for n in walk(small.program.nests) if isinstance(n, Assign)]
    assert len(statements) == 1 and not small.steps
    assert len(to_c(small.program)) < len(to_c(case.program))
    path = save(small, verdict, tmp_path)
    text = path.read_text()
    assert path.name.startswith("wrong_") and f"seed {seed}" in text and "api mode" in text
    assert header_steps(text) == []


# ----------------------------------------------------------------------------- command line


def test_cli_shows_a_program_and_tabulates_results(capsys):
    assert fuzz_main(["--show", "3"]) == 0
    assert capsys.readouterr().out == generate_c(3)
    results = [Result(1, "openmp", Verdict("same", "openmp")), Result(2, "openmp", Verdict("wrong", "openmp")),
               Result(1, "api", Verdict("refused", "api"))]
    rows = [line.split() for line in table(results).splitlines()]
    assert rows[0] == ["mode", "cases", "same", "refused", "wrong", "traceback", "compile_error",
                       "timeout", "crash"]
    assert rows[1] == ["openmp", "2", "1", "0", "1", "0", "0", "0", "0"]
    assert rows[2] == ["api", "1", "0", "1", "0", "0", "0", "0", "0"]
    assert rows[3:] == [["failing", "seeds:"], ["openmp", "wrong:", "2"]]


# ----------------------------------------------------------------------------- budget run


def test_fuzz_budget_finds_no_bug():
    """A fixed-seed campaign through the OpenMP recipe and the API: no wrong output, no traceback…"""
    seeds = range(BUDGET_SEED, BUDGET_SEED + BUDGET)
    results = campaign(seeds, ("openmp", "api"), jobs=2, timeout=30)
    failing = [r for r in results if r.verdict.failed]
    report = [table(results)]
    for r in failing:
        buf = io.StringIO()
        describe(r, buf)
        report.append(buf.getvalue())
    assert not failing, "\n".join(report)
    assert any(r.verdict.kind == "same" for r in results if r.mode == "openmp")
    assert any(r.verdict.kind == "same" for r in results if r.mode == "api")


# ----------------------------------------------------------------------------- corpus


#: time-out regressions that take 5-9 s each (the suite's budget): they run with -m slow or PASSMAN_SLOW=1
SLOW_CASES = {"timeout_dual_hull", "timeout_dual_hull_cost", "timeout_shared_ternaries", "timeout_40a98c21",
              "timeout_scalar_hulls", "timeout_flow_budget", "timeout_isl_hull_budget",
              "timeout_stencil_task_directions", "timeout_stencil_wavefront_dependences",
              "timeout_tiled_init_dependences", "timeout_slow_scheduler_policies",
              "timeout_analyses_of_tiled_code", "timeout_region_analyses_pool"}


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem, marks=pytest.mark.slow if p.stem in SLOW_CASES else ())
                                  for p in sorted(CORPUS.glob("*.c"))])
def test_fuzz_corpus(path, request):
    skip_slow(request)
    text = path.read_text()
    limit = header_timeout(text) or 120  # a slowness bug sets its own limit
    if "passman-mode: accel" in text:  # found by the accel mode: the accelerator recipe's bug
        v = check_accel(text, header_options(text), timeout=limit)
        assert v.kind in ("same", "refused"), f"{v.kind}: {v.detail}\n{v.stderr[-3000:]}"
        return
    v = check_openmp(text, header_options(text), timeout=limit)
    assert v.kind in ("same", "refused"), f"{v.kind}: {v.detail}\n{v.stderr[-3000:]}"
    steps = header_steps(text)
    if steps is not None:
        v = check_api(text, steps, timeout=limit)
        assert v.kind in ("same", "refused"), f"{v.kind}: {v.detail}\n{v.stderr[-3000:]}"
