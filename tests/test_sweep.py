"""The corpus-wide sweep: every transformation, everywhere it is legal, keeps the program's output.

For each corpus program and each (transformation, parameters) pair, one
clone of the program's workspace receives the transformation at *every*
place it can apply (each loop, each function, each call): the places are
independent requests, each one checked for legality by the pass on the
program as it is at that point, so their composition must keep the output
too. Refusals (:class:`PassFailed`) are expected and counted, and each must
leave the program text exactly as it was; any other exception is a bug. When
something applied, the program is compiled and run once and its output
compared with the original's, exactly (none of these transformations
reorders floating-point operations); when it differs, the places are
replayed one at a time to name the culprit.

Besides the corpus, a small program of the sweep's own (:data:`EXTRAS`)
gives the cleaning passes something to do (invariant scalars, an induction
variable, dead stores), since the corpus is written cleanly, and holds a
fully permutable 3-deep band for the 3-deep parameters.

The default run sweeps a representative part of the corpus (:data:`DEFAULT`)
with one parameter set per (program, transformation), picked by a fixed
hash so that several values (non-dividing unroll rates and tile sizes
among them) show up, and the sweep's own program with every parameter set.
The exhaustive variant (every program, every parameter set) is marked
``slow`` and runs with ``-m slow`` or ``PASSMAN_SLOW=1``. A last test
checks that each transformation, with each parameter set, succeeded
somewhere in the default run (the sweep cannot pass vacuously).
"""

from __future__ import annotations

import functools
import itertools
import os
import tempfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import corpus_programs, program_id
from pycparser import c_ast

from passman import Loop, PassFailed, Workspace, transformation
from passman.astutil import find_all
from passman.testing import assert_same_output

CFLAGS = ["-O0"]

PERMUTATIONS_3 = [p for p in itertools.permutations(range(3)) if p != (0, 1, 2)]

#: loop-level passes: name -> parameter sets (positional arguments or keyword dicts)
LOOP_PASSES: dict[str, list] = {
    "loop_normalize": [()],
    "unroll": [(2,), (3,), (4,), (7,)],
    "full_unroll": [()],
    "strip_mine": [(3,), (8,)],
    "tile": [(4,), (5, 3), (32, 32), (7, 5, 3)],
    "interchange": [{}] + [{"order": p} for p in PERMUTATIONS_3],
    "skew": [(1,), (2,)],
    "reverse": [()],
    "unroll_and_jam": [(2,), (3,)],
    "loop_fusion": [()],
    "invariant_code_motion": [()],
    "privatize": [()],
    "loop_hyperplane": [(), {"direction": (2, 1)}],
}
#: module-level passes applied to every function
MODULE_PASSES: dict[str, list] = {
    name: [()]
    for name in (
        "induction_substitution",
        "forward_substitute",
        "partial_eval",
        "dead_code_elimination",
        "flatten_code",
        "scalarization",
        "loop_distribution",
        "loop_fusion_with_regions",
        "accumulate_in_place",
    )
}
#: program-level ones: targets are calls or loops, see :func:`_targets`
PROGRAM_PASSES: dict[str, list] = {"inline": [()], "clone": [()], "outline": [()], "linearize_array": [()]}

ALL_PASSES = {**LOOP_PASSES, **MODULE_PASSES, **PROGRAM_PASSES}

#: a program of the sweep's own for the cleaning passes that the (clean) corpus never triggers:
#: invariant scalars, an induction variable, dead stores, small constant trip counts, and a
#: fully permutable 3-deep band for the parameters of 3-deep tiles and interchanges
EXTRAS = r"""#include <stdio.h>

#define N 61

static double a[N], b[N], c[N][N], d[N][N];
static int idx[3 * N];
static double e[12][10][9], x[N], y[N], rs[N];

/* scalars computed in loops that do not change there; an induction variable; dead stores */
static double kernel(int n, double alpha, double beta)
{
    int i, j, k = 0, unused = 0;
    double s = 0.0, t, u, w;
    for (i = 0; i < n; i++) {
        t = alpha * beta;
        u = t + 1.0;
        unused = i * 3;
        a[i] = a[i] * u + b[i];
        idx[k] = i;
        k += 2;
        w = a[i] * 0.5;
        s += w;
    }
    for (i = n - 1; i >= 1; i--)
        b[i] = b[i - 1] + a[i];
    for (j = 0; j < 4; j++)
        for (i = 1; i < n; i++)
            c[i][j] = c[i - 1][j] + d[i][j] * 0.25;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            d[i][j] = d[i][j] * 0.5 + c[i][j % 4];
    for (i = 2; i < n; i += 3)
        a[i] += s / (double)(i + 1);
    return s + k;
}

/* a fully permutable 3-deep band, loops to fuse, a row sum to scalarize, a constant to fold */
static void more(int n)
{
    int i, j, l, m = 8;
    for (i = 1; i < 12; i++)
        for (j = 0; j < 10; j++)
            for (l = 1; l < 9; l++)
                e[i][j][l] = e[i - 1][j][l] * 0.5 + e[i][j][l - 1] * 0.25 + j;
    for (i = 0; i < n; i++)
        x[i] = a[i] * 2.0;
    for (i = 0; i < n; i++)
        y[i] = x[i] + b[i];
    for (i = 0; i < n; i++) {
        rs[i] = 0.0;
        for (j = 0; j < m; j++)
            rs[i] += c[i][j] * y[j];
    }
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        a[i] = (i * 7) % 11 + 0.5;
        b[i] = (i * 3) % 5;
        for (int j = 0; j < N; j++) {
            c[i][j] = (i + j) % 3;
            d[i][j] = (i * j) % 7;
        }
    }
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 10; j++)
            for (int l = 0; l < 9; l++)
                e[i][j][l] = (i + 2 * j + 3 * l) % 5;
    double r = kernel(N, 1.5, 2.0);
    more(N);
    double sum = r;
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 10; j++)
            for (int l = 0; l < 9; l++)
                sum += e[i][j][l] * 0.001;
    for (int i = 0; i < N; i++) {
        sum += a[i] + 2.0 * b[i] + idx[2 * i] * 0.125 + x[i] + y[i] * 0.5 + rs[i] * 0.25;
        for (int j = 0; j < N; j++)
            sum += c[i][j] * 0.01 + d[i][j] * 0.001;
    }
    printf("%.6f\n", sum);
    return 0;
}
"""

PROGRAMS = {program_id(p): p for p in corpus_programs()}
PROGRAMS["sweep_extras"] = []  # written on first use: see program_files()

#: the programs swept on every run (the whole corpus is swept by the ``slow`` variant): dense
#: and triangular linear algebra, stencils, dynamic programming, control flow, calls, two units
DEFAULT = (
    "gemm", "two_mm", "matmul_global", "gemver", "lu", "trisolv", "cholesky", "jacobi_2d",
    "seidel_2d", "fdtd_2d", "doitgen", "conv2d", "nussinov", "dot", "histogram", "prefix_sum",
    "control_flow", "multi_function", "pragmas", "two_units", "sweep_extras",
)  # fmt: skip


@functools.cache
def program_files(program: str) -> tuple[Path, ...]:
    """The source files of ``program`` (the extras program goes to a temporary folder)."""
    if program == "sweep_extras":
        path = Path(tempfile.mkdtemp(prefix="passman-sweep-")) / "sweep_extras.c"
        path.write_text(EXTRAS)
        return (path,)
    return tuple(PROGRAMS[program])


def _slow_enabled(config) -> bool:
    return "slow" in (config.getoption("-m") or "") or os.environ.get("PASSMAN_SLOW") == "1"


# ----------------------------------------------------------------------------- one sweep


@dataclass
class Outcome:
    """What one (program, pass, parameters) sweep did."""

    applied: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    #: bugs: unexpected exceptions, refusals that changed the code, wrong output
    errors: list[str] = field(default_factory=list)


#: one place: (description, the call on a workspace, whether it may touch other functions)
Place = tuple[str, Callable[[Workspace], object], bool]


def _call(target, name: str, params) -> object:
    method = getattr(target, name)
    return method(**params) if isinstance(params, dict) else method(*params)


class _Gone(Exception):
    """The loop a place names is gone: fused, fully unrolled or removed by an earlier place."""


def _loop_place(func: str, label: str, name: str, params) -> Place:
    def apply(ws: Workspace) -> object:
        if label not in {lp.label for lp in ws[func].all_loops}:
            raise _Gone
        return _call(ws[func].loop(label), name, params)

    return f"{func}/{label}", apply, False


def _calls(ws: Workspace, callee: str) -> Iterator[tuple[str, c_ast.FuncCall]]:
    for m in ws.all_functions:
        for call in find_all(m.ast, c_ast.FuncCall):
            if isinstance(call.name, c_ast.ID) and call.name.name == callee:
                yield m.name, call


def _targets(ws: Workspace, name: str, params) -> list[Place]:
    """Every place of ``ws`` where pass ``name`` is asked to apply."""
    functions = [m.name for m in ws.all_functions]
    if name in LOOP_PASSES:
        return [_loop_place(f, lp.label, name, params) for f in functions for lp in ws[f].all_loops]
    if name in MODULE_PASSES:
        return [(f, lambda w, f=f: _call(w[f], name, params), False) for f in functions]
    places: list[Place] = []
    if name == "linearize_array":  # rewrites the callers too: compare the whole program
        return [(f, lambda w, f=f: _call(w[f], name, params), True) for f in functions]
    if name == "outline":
        for f in functions:
            for k, lp in enumerate(ws[f].loops()):
                kernel = f"{f}_kernel{k}"
                places.append(
                    (
                        f"{f}/{lp.label}",
                        lambda w, f=f, lb=lp.label, kn=kernel: w[f].outline(label=lb, name=kn),
                        True,
                    )
                )
        return places
    for f in functions:
        sites = list(_calls(ws, f))
        if name == "inline" and sites:
            places.append((f, lambda w, f=f: w[f].inline(), True))
        if name == "clone":
            for caller in dict.fromkeys(c for c, _ in sites):
                places.append(
                    (f"{f}@{caller}", lambda w, f=f, c=caller: w[f].clone(caller=c), True)
                )
            for caller, call in sites:  # specialise for each constant argument
                for k, arg in enumerate(call.args.exprs if call.args else []):
                    if isinstance(arg, c_ast.Constant) and arg.type in ("int", "double"):
                        places.append((
                            f"{f}@{caller}[{k}]={arg.value}",
                            lambda w, f=f, c=caller, k=k, v=arg.value: w[f].clone(caller=c, argument=k, value=v),
                            True,
                        ))  # fmt: skip
    return places


def _text(ws: Workspace, func: str | None) -> str:
    """The code of one function, or of the whole program."""
    if func is not None:
        return ws[func].code if func in ws else ""
    return "\n".join(m.code for m in ws.all_functions)


def _apply(ws: Workspace, places: list[Place], out: Outcome) -> list[str]:
    """Apply each place in turn; return the descriptions of those that applied."""
    done = []
    for what, apply, wide in places:
        func = None if wide else what.split("/")[0]
        before = _text(ws, func)
        try:
            apply(ws)
        except _Gone:
            continue
        except PassFailed as why:
            out.refused.append(f"{what}: {why}")
            if _text(ws, func) != before:
                out.errors.append(f"{what}: refused ({why}) but the code changed")
            continue
        except Exception as err:  # noqa: BLE001 - any other exception is a bug
            out.errors.append(f"{what}: {type(err).__name__}: {str(err)[:300]}")
            continue
        done.append(what)
    return done


def _differs(files: list[Path], ws: Workspace) -> str | None:
    try:
        assert_same_output(files, ws, cflags=CFLAGS)
    except Exception as err:  # noqa: BLE001 - a build failure is a wrong program too
        return f"{type(err).__name__}: {str(err)[:600]}"
    return None


@functools.cache
def base_workspace(program: str) -> Workspace:
    """The program's workspace (clones of it share its cached analyses)."""
    return Workspace(*program_files(program))


@functools.cache
def sweep(program: str, name: str, params_key: str) -> Outcome:
    """Apply pass ``name`` with the parameters ``params_key`` names everywhere in ``program``."""
    params = {repr(p): p for p in ALL_PASSES[name]}[params_key]
    files = list(program_files(program))
    base = base_workspace(program)
    ws = base.clone()
    out = Outcome()
    places = _targets(ws, name, params)
    out.applied = _apply(ws, places, out)
    if out.applied and (diff := _differs(files, ws)):
        wrong = culprits(program, [p for p in places if p[0] in out.applied])
        out.errors.append(f"wrong output after {name}{params} at {wrong or out.applied}: {diff}")
    return out


def culprits(program: str, places: list[Place]) -> list[str]:
    """The places that, applied alone to ``program``, change its output."""
    files = list(program_files(program))
    wrong = []
    for place in places:
        one = base_workspace(program).clone()
        if _apply(one, [place], Outcome()) and _differs(files, one):
            wrong.append(place[0])
    return wrong


def picked(program: str, name: str) -> list:
    """The parameter sets the default sweep uses for ``name`` on ``program``.

    One set, chosen by a fixed hash, on a corpus program; every set on the
    sweep's own program (so that each value runs on every run).
    """
    options = ALL_PASSES[name]
    if program == "sweep_extras":
        return list(options)
    return [options[zlib.crc32(f"{program}/{name}".encode()) % len(options)]]


def every(_program: str, name: str) -> list:
    """Every parameter set of ``name`` (the exhaustive sweep)."""
    return list(ALL_PASSES[name])


def check(program: str, choose: Callable[[str, str], list]) -> list[str]:
    """Sweep ``program`` with every pass; return the bugs found."""
    errors = []
    for name in ALL_PASSES:
        for params in choose(program, name):
            out = sweep(program, name, repr(params))
            errors += [f"{program}: {name}{params} {e}" for e in out.errors]
    return errors


# ----------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("program", DEFAULT)
def test_sweep_keeps_output(program):
    errors = check(program, picked)
    assert not errors, "\n".join(errors)


@pytest.mark.slow
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_sweep_every_parameter(program, request):
    if not _slow_enabled(request.config):
        pytest.skip("exhaustive sweep: run with -m slow or PASSMAN_SLOW=1")
    errors = check(program, every)
    assert not errors, "\n".join(errors)


def test_every_transformation_applies_somewhere():
    """The sweep is not vacuous: each pass (and each parameter set) succeeded on some program."""
    applied: dict[str, int] = dict.fromkeys(ALL_PASSES, 0)
    params_seen: set[tuple[str, str]] = set()
    for program in DEFAULT:
        for name in ALL_PASSES:
            for params in picked(program, name):
                out = sweep(program, name, repr(params))
                applied[name] += len(out.applied)
                if out.applied:
                    params_seen.add((name, repr(params)))
    assert all(applied.values()), [n for n, k in applied.items() if not k]
    missing = [
        (n, repr(p)) for n, ps in ALL_PASSES.items() for p in ps if (n, repr(p)) not in params_seen
    ]
    assert not missing, missing


@transformation(scope="loop")
def t_sweep_drop_last_iteration(loop: Loop) -> None:
    """A broken transformation for the test below: ``i < n`` becomes ``i < n - 1``."""
    cond = loop.node.cond
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op == "<"):
        raise PassFailed(f"loop {loop.label}: not a '<' loop")
    cond.right = c_ast.BinaryOp("-", cond.right, c_ast.Constant("int", "1"))


def test_the_sweep_catches_a_miscompile_and_names_the_loop():
    """The oracle can fail: a transformation that drops iterations is reported, with its place."""
    program = "prefix_sum"
    ws = base_workspace(program).clone()
    places = [
        _loop_place(m.name, lp.label, "t_sweep_drop_last_iteration", ())
        for m in ws.all_functions
        for lp in m.loops()
    ]
    out = Outcome()
    out.applied = _apply(ws, places, out)
    assert out.applied and not out.errors
    assert _differs(list(program_files(program)), ws) is not None
    wrong = culprits(program, places)  # replayed alone, the loops that matter are named
    assert wrong and set(wrong) <= set(out.applied)
