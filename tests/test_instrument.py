"""Instrumentation: hooks around passes and analyses, the reports behind ``--print-after``,
``--print-on-failure``, ``--time-passes`` and ``--stats``, and ``--verbose`` through logging."""

from __future__ import annotations

import logging
import re

import pytest
from conftest import CORPUS
from pycparser import c_ast

from passman import PassFailed, Workspace, analysis, transformation
from passman.astutil import find_all
from passman.cli import main as cli
from passman.instrument import Instrumentation
from passman.reports import PrintAfter, PrintOnFailure, StatsReport, TimeReport

PROG = """\
int g(int x) { return x + 1; }
int main(void) {
    int s = 0;
    for (int i = 0; i < 10; i++)
        s += g(i);
    return s - 55;
}
"""


@analysis(scope="module", provides="t_inst_constants")
def t_inst_constants(module):
    """The integer constants of the function (test analysis)."""
    return [int(c.value) for c in find_all(module.ast, c_ast.Constant) if c.type == "int"]


@analysis(scope="module", provides="t_inst_total", requires=["t_inst_constants"])
def t_inst_total(module):
    """Their sum (test analysis requiring another)."""
    return sum(module.resource("t_inst_constants"))


@transformation(scope="module")
def t_inst_bump(module, by: int = 1):
    """Add ``by`` to every integer constant; report how many (test pass)."""
    n = 0
    for c in find_all(module.ast, c_ast.Constant):
        if c.type == "int":
            c.value = str(int(c.value) + by)
            n += 1
    module.ws.stat("constants bumped", n)


@transformation(scope="module", requires=["t_inst_total"])
def t_inst_outer(module):
    """Run ``t_inst_bump`` inside (a pass running a pass), after its required analysis."""
    module.t_inst_bump(by=2)


@transformation(scope="module")
def t_inst_refuse(module):
    """Report a counter, change the code, then refuse (test pass)."""
    module.ws.stat("constants bumped", 100)
    for c in find_all(module.ast, c_ast.Constant):
        c.value = "7"
    raise PassFailed(f"{module.name}: refused on purpose")


class Recorder(Instrumentation):
    """Every hook call, in order."""

    def __init__(self):
        self.events = []

    def before_pass(self, call):
        self.events.append(("before_pass", call.pass_name, call.where, call.depth,
                            call.parent.pass_name if call.parent else None))

    def after_pass(self, call, changed, seconds):
        assert seconds >= 0
        self.events.append(("after_pass", call.pass_name, changed))

    def after_pass_failed(self, call, error, seconds):
        # the hook sees the code as the pass found it (rolled back)
        self.events.append(("after_pass_failed", call.pass_name, type(error).__name__, call.target.code))

    def before_analysis(self, name, owner):
        self.events.append(("before_analysis", name, owner.name))

    def after_analysis(self, name, owner, seconds):
        self.events.append(("after_analysis", name, owner.name))

    def on_stat(self, call, name, amount):
        self.events.append(("stat", call.pass_name if call else None, name, amount))


@pytest.fixture
def ws(write_c):
    return Workspace(write_c(PROG, "p.c"))


def test_hooks_are_called_in_order_with_the_right_names(ws):
    rec = ws.instrument(Recorder())
    ws["main"].t_inst_outer()
    assert rec.events == [
        ("before_pass", "t_inst_outer", "function main", 0, None),
        ("before_analysis", "t_inst_total", "main"),
        ("before_analysis", "t_inst_constants", "main"),
        ("after_analysis", "t_inst_constants", "main"),
        ("after_analysis", "t_inst_total", "main"),
        ("before_pass", "t_inst_bump", "function main", 1, "t_inst_outer"),
        ("stat", "t_inst_bump", "constants bumped", 4),
        ("after_pass", "t_inst_bump", True),
        ("after_pass", "t_inst_outer", True),
    ]
    rec.events.clear()
    ws["main"].resource("t_inst_total")  # the code changed: computed again, outside any pass
    ws["main"].resource("t_inst_total")  # cached: no computation, no hook
    assert [e[:2] for e in rec.events] == [("before_analysis", "t_inst_total"), ("before_analysis", "t_inst_constants"),
                                           ("after_analysis", "t_inst_constants"), ("after_analysis", "t_inst_total")]


def test_a_refusal_reaches_after_pass_failed_once_rolled_back(ws):
    rec = ws.instrument(Recorder())
    before = ws["g"].code
    with pytest.raises(PassFailed):
        ws["g"].t_inst_refuse()
    assert rec.events == [
        ("before_pass", "t_inst_refuse", "function g", 0, None),
        ("stat", "t_inst_refuse", "constants bumped", 100),
        ("after_pass_failed", "t_inst_refuse", "PassFailed", before),
    ]
    assert ws["g"].code == before


def test_clones_share_instrumentations_registered_before_them(ws):
    rec = ws.instrument(Recorder())
    clone = ws.clone()
    ws.uninstrument(rec)
    ws["g"].t_inst_bump()
    assert rec.events == []
    clone["g"].t_inst_bump()
    assert rec.events[0] == ("before_pass", "t_inst_bump", "function g", 0, None)
    assert clone.instruments == [rec] and ws.instruments == []


def test_stats_count_reported_counters_and_drop_those_of_a_refused_pass(ws):
    stats = ws.instrument(StatsReport())
    ws["main"].t_inst_outer()
    with pytest.raises(PassFailed):
        ws["g"].t_inst_refuse()
    assert stats.counts[("t_inst_bump", "constants bumped")] == 4
    assert stats.counts[("t_inst_refuse", "constants bumped")] == 0
    assert stats.counts[("t_inst_refuse", "refused")] == 1 and stats.counts[("t_inst_refuse", "runs")] == 1
    assert stats.counts[("t_inst_outer", "changed")] == 1 and stats.counts[("t_inst_bump", "runs")] == 1
    report = stats.report()
    assert "       4  t_inst_bump: constants bumped" in report


def test_stats_count_omp_pragmas_added_from_outside(write_c):
    ws = Workspace(CORPUS / "dot.c")
    stats = ws.instrument(StatsReport())
    ws.apply("coarse_grain_parallelization_with_reduction?,ompify_code?")
    pragmas = sum(cu.code.count("#pragma omp") for cu in ws.compilation_units if not cu.is_stub)
    assert pragmas > 0
    assert stats.counts[("ompify_code", "omp pragmas added")] == pragmas
    assert stats.counts[("coarse_grain_parallelization_with_reduction", "omp pragmas added")] == 0


def test_time_report_self_time_excludes_nested_runs_and_counts_recomputations(ws):
    timing = ws.instrument(TimeReport())
    ws["main"].t_inst_outer()
    after_pass = timing.accounted
    ws["main"].resource("t_inst_total")
    lines = {(t.kind, t.name): t for t in timing.rows()}
    outer, bump = lines[("pass", "t_inst_outer")], lines[("pass", "t_inst_bump")]
    total = lines[("analysis", "t_inst_total")]
    constants = lines[("analysis", "t_inst_constants")]
    assert outer.calls == bump.calls == 1 and total.calls == constants.calls == 2
    assert total.recomputations == constants.recomputations == 1
    # the outer pass's self time is its time less the analyses and the pass run inside it
    nested_in_outer = outer.total - outer.self_time
    assert nested_in_outer >= bump.total and nested_in_outer <= bump.total + total.total + 1e-9
    assert all(t.self_time <= t.total + 1e-12 for t in timing.rows())
    assert after_pass == outer.total  # only the outermost runs are accounted for
    assert 0 < timing.accounted - after_pass < total.total
    selfs = [t.self_time for t in timing.rows()]
    assert selfs == sorted(selfs, reverse=True)


def test_print_after_and_on_failure(ws, capsys):
    ws.instrument(PrintAfter({"t_inst_bump"}))
    ws.instrument(PrintOnFailure())
    ws["g"].t_inst_bump(by=5)
    with pytest.raises(PassFailed):
        ws["main"].t_inst_refuse()
    err = capsys.readouterr().err
    assert "// *** after t_inst_bump on function g: changed ***\nint g(int x)\n{\n    return x + 6;\n}\n" in err
    assert "// *** t_inst_refuse refused on function main: main: refused on purpose ***\nint main(void)" in err
    assert "s - 55" in err and "7" not in err.split("refused on purpose ***")[1]


# ------------------------------------------------------------------------------------ CLI
def test_cli_time_passes_lists_passes_and_analyses(tmp_path, capsys):
    assert cli(["run", "openmp", str(CORPUS / "gemm.c"), "-o", str(tmp_path / "o"), "--time-passes"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("passman: time report: ")
    rows = [line for line in err.splitlines() if re.match(r"\s+\d+\.\d{4}\s", line)]
    names = [r.split()[-2] + " " + r.split()[-1] for r in rows]
    assert "auto_schedule (pass)" in names and "dependences (analysis)" in names, err
    selfs = [float(r.split()[0]) for r in rows]
    assert selfs == sorted(selfs, reverse=True)
    row = next(r for r in rows if r.endswith("auto_schedule (pass)")).split()
    assert int(row[3]) == 4 and int(row[5]) == 2, row  # gemm's 4 functions; 2 refusals


def test_cli_print_after_prints_the_code_after_that_pass(tmp_path, capsys):
    args = ["run", "openmp", str(CORPUS / "dot.c"), "-o", str(tmp_path / "o")]
    assert cli([*args, "--print-after=ompify_code"]) == 0
    err = capsys.readouterr().err
    headers = re.findall(r"// \*\*\* (.*) \*\*\*", err)
    assert headers and all(h.startswith("after ompify_code on function ") for h in headers), headers
    changed = err.split("after ompify_code on function ")[1]
    assert "#pragma omp parallel for" in changed
    assert cli([*args, "--print-after-change"]) == 0
    headers = re.findall(r"// \*\*\* (.*) \*\*\*", capsys.readouterr().err)
    assert headers and all(h.endswith(": changed") for h in headers)
    assert cli([*args, "--print-after=nope"]) == 1
    assert capsys.readouterr().err.strip() == "passman: error: unknown pass 'nope'"


def test_cli_print_on_failure_and_stats(tmp_path, capsys):
    args = ["run", "-p", "ompify_code?,coarse_grain_parallelization_with_reduction,ompify_code",
            str(CORPUS / "dot.c"), "-o", str(tmp_path / "o"), "--print-on-failure", "--stats"]
    assert cli(args) == 0
    err = capsys.readouterr().err
    assert re.search(r"// \*\*\* ompify_code refused on function \w+: no loop of \w+ is marked parallel", err)
    assert "passman: statistics" in err
    n = int(re.search(r"(\d+)  ompify_code: omp pragmas added", err).group(1))
    assert n == (tmp_path / "o" / "dot.c").read_text().count("#pragma omp")


@pytest.mark.parametrize("before", [True, False])
def test_verbose_works_before_and_after_the_command_through_logging(tmp_path, capfd, caplog, before):
    run = ["run", "-p", "coarse_grain_parallelization_with_reduction,ompify_code", str(CORPUS / "dot.c"),
           "-o", str(tmp_path / "o")]
    args = ["-v", *run] if before else [*run, "-v"]
    with caplog.at_level(logging.INFO, logger="passman"):
        assert cli(args) == 0
    err = capfd.readouterr().err
    assert re.search(r"^ompify_code\(\) on module \w+: changed", err, re.M), err
    assert "passman: reproducer: passman run -p 'coarse_grain_parallelization_with_reduction@" in err
    assert any(r.name == "passman" and "ompify_code()" in r.getMessage() for r in caplog.records)
    assert cli(run) == 0  # without -v: quiet again
    assert "ompify_code()" not in capfd.readouterr().err
