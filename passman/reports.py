"""Instrumentations behind ``passman run``'s flags (see :mod:`passman.instrument`).

* :class:`PrintAfter`: ``--print-after=PASS|all`` (the code of the function
  after each run of that pass) and ``--print-after-change`` (after each run
  that changed the code);
* :class:`PrintOnFailure`: ``--print-on-failure`` (each refusal, with the
  code it refused);
* :class:`TimeReport`: ``--time-passes`` (a table of passes and analyses:
  calls, recomputations, total and self time);
* :class:`StatsReport`: ``--stats`` (counters per pass: the ones passes
  report with ``ws.stat``, and those seen from outside).

They write to a stream (standard error by default, looked up when they
write, so that a test capturing it sees the output).
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TextIO

from pycparser import c_ast

from .astutil import walk
from .errors import PassFailed, PassmanError
from .instrument import Instrumentation, PassCall
from .loop import Loop
from .module import Module
from .unit import CompilationUnit


def _stream(stream: TextIO | None) -> TextIO:
    return stream if stream is not None else sys.stderr


def target_code(call: PassCall) -> str:
    """The code a pass ran on: its function (a loop's function), else every unit of the program."""
    target = call.target
    try:
        if isinstance(target, Loop):
            return target.module.code
        if isinstance(target, (Module, CompilationUnit)):
            return target.code
        ws = call.workspace
        return "".join(cu.code for cu in ws.compilation_units if not cu.is_stub)
    except PassmanError as err:  # the target is gone (a pass removed it)
        return f"// (no code: {err})\n"


def _inside(call: PassCall) -> str:
    return f" (inside {call.parent.pass_name})" if call.parent is not None else ""


def _emit(stream: TextIO, header: str, code: str) -> None:
    stream.write(f"// *** {header} ***\n{code}")
    if not code.endswith("\n"):
        stream.write("\n")


class PrintAfter(Instrumentation):
    """Print the code after the passes named in ``passes`` (``None``: all), or after changes only."""

    def __init__(self, passes: Iterable[str] | None = None, *, only_changed: bool = False,
                 stream: TextIO | None = None):
        self.passes = None if passes is None else set(passes)
        self.only_changed = only_changed
        self.stream = stream

    def after_pass(self, call: PassCall, changed: bool, seconds: float) -> None:
        if self.passes is not None and call.pass_name not in self.passes:
            return
        if self.only_changed and not changed:
            return
        status = "changed" if changed else "unchanged"
        _emit(_stream(self.stream), f"after {call.pass_name} on {call.where}{_inside(call)}: {status}",
              target_code(call))


class PrintOnFailure(Instrumentation):
    """Print each refusal (or failure) with the code the pass refused to change."""

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream

    def after_pass_failed(self, call: PassCall, error: BaseException, seconds: float) -> None:
        what = "refused" if isinstance(error, PassFailed) else f"failed ({type(error).__name__})"
        reason = " ".join(str(error).splitlines())
        _emit(_stream(self.stream), f"{call.pass_name} {what} on {call.where}{_inside(call)}: {reason}",
              target_code(call))


@dataclass
class Timing:
    """The time report's line for one pass or analysis."""

    name: str
    kind: str  # "pass" or "analysis"
    calls: int = 0
    failures: int = 0
    recomputations: int = 0
    total: float = 0.0
    self_time: float = 0.0


class TimeReport(Instrumentation):
    """``--time-passes``: wall-clock time per pass and per analysis, total and self.

    Self time is a run's time minus that of the passes and analyses computed
    inside it; an analysis computed again for an owner it was already
    computed for (the code changed under it) counts as a recomputation.
    """

    def __init__(self) -> None:
        self.lines: dict[tuple[str, str], Timing] = {}
        self._nested: list[float] = []  # time of nested runs, one slot per running pass/analysis
        self._computed: set[tuple[str, Any]] = set()
        #: wall-clock time of the outermost runs (what the table accounts for)
        self.accounted = 0.0

    def _line(self, name: str, kind: str) -> Timing:
        key = (kind, name)
        if key not in self.lines:
            self.lines[key] = Timing(name, kind)
        return self.lines[key]

    def _begin(self) -> None:
        self._nested.append(0.0)

    def _end(self, line: Timing, seconds: float, failed: bool) -> None:
        nested = self._nested.pop() if self._nested else 0.0
        line.calls += 1
        line.failures += failed
        line.total += seconds
        line.self_time += max(seconds - nested, 0.0)
        if self._nested:
            self._nested[-1] += seconds
        else:
            self.accounted += seconds

    def before_pass(self, call: PassCall) -> None:
        self._begin()

    def after_pass(self, call: PassCall, changed: bool, seconds: float) -> None:
        self._end(self._line(call.pass_name, "pass"), seconds, False)

    def after_pass_failed(self, call: PassCall, error: BaseException, seconds: float) -> None:
        self._end(self._line(call.pass_name, "pass"), seconds, True)

    def before_analysis(self, name: str, owner: Any) -> None:
        self._begin()

    def _analysis_done(self, name: str, owner: Any, seconds: float, failed: bool) -> None:
        line = self._line(name, "analysis")
        key = (name, owner)
        if key in self._computed:
            line.recomputations += 1
        self._computed.add(key)
        self._end(line, seconds, failed)

    def after_analysis(self, name: str, owner: Any, seconds: float) -> None:
        self._analysis_done(name, owner, seconds, False)

    def after_analysis_failed(self, name: str, owner: Any, error: BaseException, seconds: float) -> None:
        self._analysis_done(name, owner, seconds, True)

    def rows(self) -> list[Timing]:
        """The lines, longest self time first."""
        return sorted(self.lines.values(), key=lambda t: (-t.self_time, -t.total, t.name))

    def report(self) -> str:
        """The table ``--time-passes`` prints."""
        rows = self.rows()
        out = [f"passman: time report: {self.accounted:.3f} s in passes and analyses "
               "(self: without the passes and analyses run inside; sorted by self time)",
               f"{'self (s)':>9} {'self %':>6} {'total (s)':>9} {'calls':>6} {'recomp':>6} "
               f"{'failed':>6}  name"]
        for t in rows:
            share = 100.0 * t.self_time / self.accounted if self.accounted else 0.0
            recomp = str(t.recomputations) if t.kind == "analysis" else "-"
            out.append(f"{t.self_time:9.4f} {share:6.1f} {t.total:9.4f} {t.calls:6d} {recomp:>6} "
                       f"{t.failures:6d}  {t.name} ({t.kind})")
        return "\n".join(out) + "\n"


class StatsReport(Instrumentation):
    """``--stats``: counters per pass.

    For every pass: ``runs``, ``changed``, ``refused``. For the passes the
    user called (not those run inside another pass), what changed in the
    program: ``omp pragmas added``/``removed``, ``loops added``/``removed``,
    ``functions added``/``removed``. And whatever a pass reports with
    ``ws.stat(name, amount)`` (a refused pass's reports are dropped, like
    its changes).
    """

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()
        self._pending: list[Counter[tuple[str, str]]] = []
        self._shapes: dict[int, tuple[int, int, int]] = {}

    @staticmethod
    def shape(ws: Any) -> tuple[int, int, int]:
        """(``#pragma omp`` lines, ``for`` loops, functions) of the program's own functions."""
        pragmas = loops = functions = 0
        for module in ws.all_functions:
            functions += 1
            for node in walk(module.ast):
                if isinstance(node, c_ast.For):
                    loops += 1
                elif isinstance(node, c_ast.Pragma) and node.string.split()[:1] == ["omp"]:
                    pragmas += 1
        return pragmas, loops, functions

    def before_pass(self, call: PassCall) -> None:
        self._pending.append(Counter())
        if call.depth == 0:
            self._shapes[id(call)] = self.shape(call.workspace)

    def _close(self, call: PassCall, keep: bool) -> None:
        pending = self._pending.pop() if self._pending else Counter()
        before = self._shapes.pop(id(call), None)
        name = call.pass_name
        if not keep:  # rolled back: what it (and the passes inside it) did is undone
            pending = Counter({k: n for k, n in pending.items() if k[1] in ("runs", "refused")})
            pending[(name, "refused")] += 1
        elif before is not None:
            after = self.shape(call.workspace)
            for what, b, a in zip(("omp pragmas", "loops", "functions"), before, after):
                if a > b:
                    pending[(name, f"{what} added")] += a - b
                elif a < b:
                    pending[(name, f"{what} removed")] += b - a
        pending[(name, "runs")] += 1
        target = self._pending[-1] if self._pending else self.counts
        target.update(pending)

    def after_pass(self, call: PassCall, changed: bool, seconds: float) -> None:
        if changed:
            (self._pending[-1] if self._pending else self.counts)[(call.pass_name, "changed")] += 1
        self._close(call, True)

    def after_pass_failed(self, call: PassCall, error: BaseException, seconds: float) -> None:
        self._close(call, False)

    def on_stat(self, call: PassCall | None, name: str, amount: int) -> None:
        key = (call.pass_name if call is not None else "(no pass)", name)
        (self._pending[-1] if self._pending else self.counts)[key] += amount

    def report(self) -> str:
        """The table ``--stats`` prints."""
        by_pass: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for (name, counter), n in self.counts.items():
            by_pass[name].append((counter, n))
        out = ["passman: statistics (count  pass: counter)"]
        for name in sorted(by_pass):
            for counter, n in sorted(by_pass[name]):
                out.append(f"{n:8d}  {name}: {counter}")
        return "\n".join(out) + "\n"
