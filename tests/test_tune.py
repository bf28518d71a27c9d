"""Iterative compilation: spaces, evaluation and its failures, studies, resume after SIGKILL, replay, pictures.

Real studies here are small (a handful of variants of corpus programs, one
timed run each); speed is measured in ``benchmarks/bench_tune.py``, never
asserted here.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from pycparser import c_ast

from passman import PassFailed, transformation
from passman.astutil import find_all
from passman.cli import main as cli_main
from passman.errors import InvalidInput
from passman.tune import (
    Bool,
    Choice,
    Int,
    Measure,
    Permutation,
    Pow2,
    Replay,
    Space,
    Study,
    Vector,
    compare_outputs,
    replay,
)
from passman.tune.space import parse_param_spec

CORPUS = Path(__file__).resolve().parent / "corpus"
ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "benchmarks" / "results" / "tune_gemm_exhaustive.json"

SUM = """\
#include <stdio.h>
int main(void) {
    int s = 0;
    for (int i = 0; i < 1000; i++)
        s += i % 7;
    printf("sum=%d\\n", s);
    return 0;
}
"""


# ------------------------------------------------------------------ passes plugged in for the failure test
@transformation(scope="module")
def t_tune_wrong(module):
    """Miscompile on purpose: every integer constant of the loops plus one (test pass)."""
    for loop in find_all(module.ast, c_ast.For):
        for c in find_all(loop, c_ast.Constant):
            if c.type == "int":
                c.value = str(int(c.value) + 1)


@transformation(scope="module")
def t_tune_unbuildable(module):
    """Call a function that exists nowhere: the link fails (test pass)."""
    for call in find_all(module.ast, c_ast.FuncCall):
        call.name = c_ast.ID("no_such_function_anywhere")


@transformation(scope="module")
def t_tune_hang(module):
    """Drop every loop's increment: the program never ends (test pass)."""
    for loop in find_all(module.ast, c_ast.For):
        loop.next = None


@transformation(scope="module")
def t_tune_refuse(module):
    """Refuse, as an illegal transformation does (test pass)."""
    raise PassFailed(f"{module.name}: refused on purpose")


# ------------------------------------------------------------------ spaces
def test_parameters_enumerate_their_values():
    assert Pow2(8, 64).values() == [8, 16, 32, 64]
    assert Int(1, 7, step=3).values() == [1, 4, 7]
    assert Bool().values() == [False, True]
    assert Vector(Pow2(8, 16), 2).values() == [(8, 8), (8, 16), (16, 8), (16, 16)]
    assert sorted(Permutation(3).values()) == sorted(
        [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)])
    with pytest.raises(InvalidInput):
        Pow2(8, 100)


def test_every_point_round_trips_through_optuna_parameters():
    """encode(point) enqueued in a trial makes suggest() give that very point (grid, resume, default)."""
    from optuna.trial import FixedTrial

    space = Space(t=Vector(Pow2(8, 32), 2), order=Permutation("ijk"), f=Choice("smart", "max"),
                  u=Int(1, 4, when={"f": "max"}), tiles=Choice((8, 8), (16, 32)))
    points = list(space.points())
    assert len(points) == 9 * 6 * (1 + 4) * 2
    for point in points[::7]:
        assert space.suggest(FixedTrial(space.encode(point))) == point


def test_a_conditional_parameter_exists_only_where_its_condition_holds():
    space = Space(tile=Bool(), size=Pow2(8, 64, when={"tile": True}))
    points = list(space.points())
    assert {"tile": False} in points and len(points) == 5
    assert all(("size" in p) == p["tile"] for p in points)
    assert space.default() == {"tile": False}


def test_constraints_prune_with_their_reason():
    def small_tiles(p):
        return p["TI"] * p["TJ"] <= 1024 or f"tile {p['TI']}x{p['TJ']} exceeds 1024 elements"

    space = Space.pipeline("tile@k.l1{sizes=$TI,$TJ}", TI=Pow2(8, 64), TJ=Pow2(8, 64), constraints=[small_tiles])
    verdicts = [space.violation(p) for p in space.points()]
    assert sum(v is None for v in verdicts) == 4 + 4 + 3 + 2  # TI = 8, 16, 32, 64
    assert "tile 64x64 exceeds 1024 elements" in verdicts


def test_a_variant_is_its_ordered_canonical_pipeline():
    seq = Space.sequence(["unroll@main{rate=2}?", "loop_normalize@main?"], length=3)
    a = seq.variant_key({"step_0": "unroll@main{rate=2}?", "step_1": "-", "step_2": "loop_normalize@main?"})
    b = seq.variant_key({"step_0": "-", "step_1": "unroll@main{rate=2}?", "step_2": "loop_normalize@main?"})
    c = seq.variant_key({"step_0": "loop_normalize@main?", "step_1": "unroll@main{rate=2}?", "step_2": "-"})
    assert a == b == "unroll@main{rate=2}?,loop_normalize@main?"  # same sequence, one variant
    assert c != a  # [B,A] is not [A,B]
    t = Space.pipeline("auto_schedule@k{ tile_sizes = $T , fusion=$F }", T=Vector(Pow2(8, 16), 2),
                       F=Choice("max"))
    assert t.variant_key({"T": (8, 16), "F": "max"}) == "auto_schedule@k{tile_sizes=8,16,fusion=max}"


def test_space_declaration_errors_are_clear():
    with pytest.raises(InvalidInput, match=r"placeholder \$T has no domain"):
        Space.pipeline("unroll{rate=$T}")
    with pytest.raises(InvalidInput, match="not a placeholder"):
        Space.pipeline("unroll{rate=$T}", T=Int(1, 4), U=Int(1, 4))
    with pytest.raises(InvalidInput, match="pipeline:1:[0-9]+: error: unterminated options"):
        Space.sequence(["unroll{rate=2"], 2)
    with pytest.raises(InvalidInput, match="pipeline:1:[0-9]+: error: unterminated options"):
        Space.pipeline("unroll{rate=$T", T=Int(1, 4))  # checked when declared, not at the first trial


def test_parameter_specs_from_the_command_line():
    assert parse_param_spec("T=pow2(8,256)")[1].values()[-1] == 256
    assert parse_param_spec("F=smart,none,max")[1].values() == ["smart", "none", "max"]
    assert parse_param_spec("F=choice(smart, max)")[1].values() == ["smart", "max"]
    assert parse_param_spec("U=int(1,8,2)")[1].values() == [1, 3, 5, 7]
    assert parse_param_spec("V=vector(pow2(8,16),2)")[1].values()[1] == (8, 16)
    assert parse_param_spec("B=bool")[1].values() == [False, True]
    for bad in ("T", "T=frobnicate(1)", "1T=int(1,2)", "T=int(1"):
        with pytest.raises(InvalidInput):
            parse_param_spec(bad)


# ------------------------------------------------------------------ checking outputs
def test_outputs_compare_exactly_or_within_a_tolerance():
    assert compare_outputs("x=1.000000\n", "x=1.000000\n") is None
    assert "line 1" in compare_outputs("1.000000\n", "1.000001\n")
    assert compare_outputs("1.000000 2\n", "1.000001 2\n", tolerance=1e-5) is None
    assert compare_outputs("1.0\n", "1.1\n", tolerance=1e-5) is not None
    assert "lines" in compare_outputs("1\n2\n", "1\n")
    timed = "checksum 42\ntime 0.123\n"
    assert compare_outputs(timed, "checksum 42\ntime 0.456\n", metric=r"time ([0-9.]+)") is None
    assert compare_outputs(timed, "checksum 43\ntime 0.456\n", metric=r"time ([0-9.]+)") is not None


# ------------------------------------------------------------------ a real study, shared by several tests
@pytest.fixture(scope="module")
def gemm_study(tmp_path_factory):
    """Six variants of the corpus's gemm, two workers, one timed run each."""
    tmp = tmp_path_factory.mktemp("tune")
    space = Space.pipeline("auto_schedule@kernel_gemm{tile_sizes=$TI,32,fusion=$F}",
                           TI=Pow2(8, 32, default=16), F=Choice("smart", "max"))
    study = Study("gemm", [CORPUS / "gemm.c"], space, storage=str(tmp / "tune.db"), strategy="grid",
                  jobs=2, measure=Measure(runs=1), progress=False)
    study.optimize(10)
    return study, tmp


def test_a_study_measures_every_variant_once_and_checks_its_output(gemm_study):
    study, _ = gemm_study
    variants = study.variants()
    keys = [v.key for v in variants]
    assert len(keys) == len(set(keys)) == 6  # the grid is exhausted, each variant once
    assert variants[0].key == "auto_schedule@kernel_gemm{tile_sizes=16,32,fusion=smart}"  # the default first
    evaluated = [v for v in variants if v.evaluated]
    assert evaluated and all(v.status == "ok" and v.value > 0 for v in evaluated)
    for v in variants:
        if not v.evaluated:  # identical code: measured once, told again
            assert v.same_as in keys and v.value == next(w.value for w in variants if w.key == v.same_as)
    assert study.baseline > 0
    reference = study.study.user_attrs["reference"]
    assert reference.strip() == subprocess.run(
        ["sh", "-c", f"gcc -O2 {CORPUS / 'gemm.c'} -o {study.name}.bin -lm && ./{study.name}.bin; rm -f {study.name}.bin"],
        capture_output=True, text=True, cwd=gemm_study[1]).stdout.strip()


def test_show_prints_the_table_and_writes_the_best_variant(gemm_study, capsys):
    study, tmp = gemm_study
    best = study.best(1)[0]
    assert best.value == min(v.value for v in study.variants() if v.value)
    assert cli_main(["tune", "show", "gemm", "--storage", str(tmp / "tune.db"), "-o", str(tmp / "best")]) == 0
    out = capsys.readouterr().out
    assert best.key in out and "vs orig" in out and "6 ok" in out
    code = (tmp / "best" / "gemm.c").read_text()
    assert code == study.variant_workspace(best).compilation_units[0].code
    assert "c0 += " in code  # tiled
    exe = tmp / "best.bin"
    subprocess.run(["gcc", "-O2", str(tmp / "best" / "gemm.c"), "-o", str(exe), "-lm"], check=True)
    assert subprocess.run([str(exe)], capture_output=True, text=True).stdout == study.study.user_attrs["reference"]


def test_plot_writes_valid_pictures_and_a_report_naming_the_best(gemm_study):
    import html

    import matplotlib.image

    study, tmp = gemm_study
    out = tmp / "report"
    assert cli_main(["tune", "plot", "gemm", "--storage", str(tmp / "tune.db"), "-o", str(out)]) == 0
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs == ["history.png", "importance.png", "parallel.png"]
    for name in pngs:
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert matplotlib.image.imread(out / name).shape[:2] == (500, 800)
    page = (out / "report.html").read_text()
    best = study.best(1)[0]
    assert f"Best variant: <code class='best'>{html.escape(best.key)}</code>" in page
    assert all(f"src='{n}'" in page for n in pngs)
    assert "<span class='add'>+" in page  # the best variant's diff against the original


def test_resuming_a_finished_study_evaluates_nothing(gemm_study):
    study, tmp = gemm_study
    before = [(v.number, v.key, v.value) for v in study.variants()]
    again = Study("gemm", [CORPUS / "gemm.c"], study.space, storage=str(tmp / "tune.db"), strategy="grid",
                  jobs=0, measure=Measure(runs=1), progress=False,
                  evaluator=lambda job: pytest.fail(f"evaluated {job.key} again"))
    again.optimize(10)
    assert [(v.number, v.key, v.value) for v in again.variants()] == before


def test_a_study_refuses_to_resume_on_other_sources(gemm_study, write_c):
    study, tmp = gemm_study
    with pytest.raises(InvalidInput, match="study gemm was run on other sources"):
        Study("gemm", [write_c(SUM, "gemm.c")], study.space, storage=str(tmp / "tune.db"))


def test_replay_from_an_export_needs_no_build(gemm_study):
    study, tmp = gemm_study
    study.export(tmp / "m.json")
    record = Replay(tmp / "m.json")
    assert record.best() == study.best(1)[0].value
    values = replay(study.space, record, strategy="random", seed=1, trials=6)
    assert record.calls >= len(values) > 0 and min(values) == record.best()


# ------------------------------------------------------------------ failures never stop the search
def test_refusals_miscompiles_build_failures_and_hangs_are_failed_trials_with_reasons(write_c, tmp_path):
    src = write_c(SUM, "sum.c")
    space = Space.pipeline("$P@main", P=Choice("t_tune_wrong", "t_tune_unbuildable", "t_tune_hang",
                                                 "t_tune_refuse", "loop_normalize", "unroll"))
    study = Study("faults", [src], space, storage=str(tmp_path / "t.db"), strategy="grid", jobs=2,
                  measure=Measure(runs=1, timeout=1.5), progress=False)
    study.optimize(6)
    got = {v.key.split("@")[0]: v for v in study.variants()}
    assert got["t_tune_wrong"].status == "wrong" and "expected 'sum=" in got["t_tune_wrong"].reason
    assert got["t_tune_unbuildable"].status == "build" and "no_such_function_anywhere" in got[
        "t_tune_unbuildable"].reason
    assert got["t_tune_hang"].status == "timeout" and "1.5 s" in got["t_tune_hang"].reason
    assert got["t_tune_refuse"].status == "refused" and "refused on purpose" in got["t_tune_refuse"].reason
    assert got["unroll"].status == "ok" and got["unroll"].value > 0  # the search went on
    assert all(v.values is None for k, v in got.items() if k.startswith("t_tune"))
    assert "refused" in study.table()


# ------------------------------------------------------------------ a recipe declaring its space
RECIPE = '''
from passman.recipe import attempt
from passman.tune import Choice, Bool, Space

TUNE = Space(rate=Choice(2, 4, 8, default=4), normalize=Bool(),
             constraints=[lambda p: p["rate"] != 8 or "rate 8 overflows the i-cache (test constraint)"])

def main(ws, rate: int = 4, normalize: bool = False):
    for loop in ws["main"].inner_loops():
        loop.unroll(rate)
    if normalize:
        for loop in ws["main"].all_loops:
            attempt(loop.loop_normalize)
'''


def test_a_recipe_declares_its_space_and_variants_are_its_pipelines(write_c, tmp_path):
    src = write_c(SUM, "sum.c")
    recipe = tmp_path / "unrolling.py"
    recipe.write_text(RECIPE)
    study = Study("recipe", [src], recipe=str(recipe), storage=str(tmp_path / "t.db"), strategy="grid",
                  jobs=0, measure=Measure(runs=1), progress=False)
    study.optimize(10)
    variants = study.variants()
    pruned = [v for v in variants if v.status == "pruned"]
    assert len(pruned) == 2 and all("i-cache" in v.reason for v in pruned)
    measured = [v for v in variants if v.status == "ok"]
    assert len(measured) == 4
    assert {v.pipeline.split("{")[1] for v in measured if v.pipeline} >= {"rate=2}", "rate=4}"}
    assert all(v.pipeline.startswith("unroll@main.") for v in measured)
    assert study.best(1)[0].value == min(v.value for v in measured)


# ------------------------------------------------------------------ kill -9, resume
def _finished(db: Path) -> dict[int, tuple[str, str | None]]:
    """Trial number -> (state, value) of every finished trial, read from the SQLite file."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute(
            "select t.number, t.state, v.value from trials t left join trial_values v on v.trial_id = t.trial_id "
            "where t.state in ('COMPLETE', 'FAIL', 'PRUNED')").fetchall()
    finally:
        con.close()
    return {n: (s, v) for n, s, v in rows}


def test_sigkill_mid_run_then_resume_loses_nothing_and_evaluates_nothing_twice(write_c, tmp_path):
    src = write_c(SUM, "sum.c")
    db = tmp_path / "t.db"
    cmd = [sys.executable, "-c", "import sys; from passman.cli import main; sys.exit(main())", "tune",
           "-p", "unroll@main.inner_loops{rate=$R}", "--param", "R=int(2,40)", str(src), "--trials", "8",
           "--study", "crash", "--storage", str(db), "--jobs", "1", "--runs", "1", "--strategy", "random",
           "--no-progress"]
    # -v logs each finished trial on stderr: kill the tuner after the third
    proc = subprocess.Popen(cmd[:3] + ["-v"] + cmd[3:], cwd=tmp_path, stderr=subprocess.PIPE, text=True,
                            stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        logged = []
        while len(logged) < 3:
            line = proc.stderr.readline()
            assert line, "the tuner ended before its third trial: " + "".join(logged)
            if line.startswith("passman: trial "):
                logged.append(line)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        proc.stderr.close()
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the tuner's own pool worker, if it outlived it
        except ProcessLookupError:
            pass
    before = _finished(db)
    assert 3 <= len(before) < 9
    resumed = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    after = _finished(db)
    assert {n: after[n] for n in before} == before  # every finished trial is still there, unchanged
    study = Study.load("crash", str(db))
    variants = study.variants()
    evaluated = [v.key for v in variants if v.evaluated]
    assert len(evaluated) == len(set(evaluated)) == 8  # no variant evaluated twice, the budget reached
    assert {v.number for v in variants} >= {n for n, (s, _) in before.items() if s == "COMPLETE"}
    assert "crash" in resumed.stdout and "8 variants evaluated" in resumed.stdout


# ------------------------------------------------------------------ replay
def _synthetic_record(space: Space) -> dict:
    """A smooth landscape over the space, with an optimum at TI=32, TJ=64, F=max."""
    import math

    variants = {}
    for p in space.points():
        t = 1.0 + (math.log2(p["TI"]) - 5) ** 2 * 0.1 + (math.log2(p["TJ"]) - 6) ** 2 * 0.05
        t *= {"smart": 1.1, "none": 1.3, "max": 1.0}[p["F"]]
        variants[space.variant_key(p)] = {"status": "ok", "values": [t], "pipeline": None}
    return {"baseline": 2.0, "reference": "", "variants": variants}


def test_replay_is_deterministic_and_builds_nothing():
    space = Space.pipeline("auto_schedule@k{tile_sizes=$TI,$TJ,fusion=$F}", TI=Pow2(2, 256), TJ=Pow2(2, 256),
                           F=Choice("smart", "none", "max"))
    record = _synthetic_record(space)
    first = replay(space, record, strategy="tpe", seed=3, trials=30)
    assert first == replay(space, record, strategy="tpe", seed=3, trials=30)
    assert first != replay(space, record, strategy="tpe", seed=4, trials=30)
    assert len(first) == 30 and all(v is not None for v in first)
    assert first[0] == record["variants"][space.variant_key(space.default())]["values"][0]  # the default first
    whole = replay(space, record, strategy="grid", seed=0, trials=10_000)
    assert len(whole) == len(record["variants"]) and min(whole) == 1.0  # grid: every variant, once


@pytest.mark.parametrize("strategy", ["cmaes", "genetic", "random", "grid"])
def test_every_strategy_runs_seeded(strategy):
    space = Space.pipeline("auto_schedule@k{tile_sizes=$TI,$TJ,fusion=$F}", TI=Pow2(2, 256), TJ=Pow2(2, 256),
                           F=Choice("smart", "none", "max"))
    record = _synthetic_record(space)
    a = replay(space, record, strategy=strategy, seed=1, trials=25)
    assert a == replay(space, record, strategy=strategy, seed=1, trials=25)
    assert len(a) == 25 and len(set(a)) > 3


def test_two_objectives_with_nsga2_keep_the_pareto_front():
    space = Space.pipeline("unroll@f{rate=$R}", R=Int(1, 16))
    record = {"baseline": 1.0, "variants": {space.variant_key({"R": r}): {
        "status": "ok", "values": [1.0 / r, 100.0 * r]} for r in range(1, 17)}}
    study = Study("pareto", space=space, storage=":memory:", strategy="nsga2", seed=0, jobs=0,
                  evaluator=Replay(record), objectives=("time", "size"), progress=False)
    study.optimize(16)
    assert {len(v.values) for v in study.variants()} == {2}
    front = {t.user_attrs["key"] for t in study.study.best_trials}
    assert front == set(record["variants"])  # every rate trades time for size: all on the front
    assert [v.values for v in study.best(3)] == [[1 / 16, 1600.0], [1 / 15, 1500.0], [1 / 14, 1400.0]]


@pytest.mark.skipif(not RECORD.exists(), reason="no exhaustive record (benchmarks/bench_tune.py --measure)")
def test_tpe_gets_within_five_percent_of_the_exhaustive_best_in_a_tenth_of_the_space():
    """The committed record of 648 measured gemm variants: median over seeds, by replay."""
    import statistics

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_tune import gemm_space

    record = Replay(RECORD)
    space = gemm_space()
    assert len(record.variants) == space.size() >= 500
    best = record.best()
    budget = len(record.variants) // 10
    ratios = [min(v for v in replay(space, record, strategy="tpe", seed=s, trials=budget) if v) / best
              for s in range(10)]
    assert statistics.median(ratios) <= 1.05, ratios
    assert sum(v <= 1.05 * best for v in (r["values"][0] for r in record.variants.values())) <= 10  # not easy


# ------------------------------------------------------------------ command line
def passman(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; from passman.cli import main; sys.exit(main())",
                           *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize("args, status, message", [
    (["-p", "unroll{rate=$R}", "X.c"], 1, "placeholder $R has no domain"),
    (["-p", "unroll{rate=$R}", "--param", "R=nope(1)", "X.c"], 1, "unknown kind 'nope'"),
    (["-p", "unroll{rate=$R", "--param", "R=int(1,2)", "X.c"], 1, "pipeline:1:"),
    (["-p", "unroll{rate=$R}", "--param", "R=int(1,2)", "missing.c"], 1, "missing.c: error: no such file"),
    (["-p", "unroll{rate=$R}", "--param", "R=int(1,2)", "X.c", "--strategy", "magic"], 1, "invalid choice"),
    (["-p", "unroll{rate=$R}", "--param", "R=int(1,2)", "X.c", "--trials", "0"], 1, "--trials"),
    (["norecipe", "X.c"], 1, "no recipe 'norecipe'"),
    (["show", "nosuch", "--storage", "none.db"], 1, "no storage none.db"),
])
def test_bad_command_lines_give_one_clear_error(write_c, tmp_path, args, status, message):
    write_c(SUM, "X.c")
    r = passman("tune", *args, cwd=tmp_path)
    assert r.returncode == status, r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "passman_tune.db").exists() or status != 1 or args[0] != "show"


def test_the_command_line_tunes_a_pipeline_and_shows_it(write_c, tmp_path):
    write_c(SUM, "sum.c")
    r = passman("tune", "-p", "unroll@main.inner_loops{rate=$R}", "--param", "R=choice(2,4)", "sum.c",
                "--trials", "2", "--jobs", "0", "--runs", "1", "--study", "cli", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "2 variants evaluated" in r.stdout and "unroll@main.inner_loops{rate=" in r.stdout
    assert (tmp_path / "passman_tune.db").exists()  # the default storage
    data = json.loads(passman_json(tmp_path))
    assert set(data["variants"]) == {"unroll@main.inner_loops{rate=2}", "unroll@main.inner_loops{rate=4}"}


def passman_json(tmp_path: Path) -> str:
    r = passman("tune", "export", "cli", "m.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return (tmp_path / "m.json").read_text()


def test_a_dask_client_evaluates_the_same_variants(gemm_study, tmp_path):
    distributed = pytest.importorskip("distributed")
    study, _ = gemm_study
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
        on_dask = Study("dask", [CORPUS / "gemm.c"], study.space, storage=str(tmp_path / "t.db"),
                        strategy="grid", dask=client, jobs=2, measure=Measure(runs=1), progress=False)
        on_dask.optimize(10)
    assert {v.key: v.status for v in on_dask.variants()} == {v.key: v.status for v in study.variants()}
    workers = {t.user_attrs.get("worker") for t in on_dask.study.trials if t.user_attrs.get("evaluated")}
    assert workers == {f"{os.uname().nodename}:{os.getpid()}"}  # threads of this process: the Dask worker
