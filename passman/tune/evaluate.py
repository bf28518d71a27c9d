"""Evaluating one variant: apply to a clone, save, build, run N times, check, measure.

:func:`evaluate` runs in a worker (a local process, or a Dask worker on
another machine). It receives a :class:`Job`: the program's sources and
flags as text (:class:`Program`), how to build and measure it
(:class:`Measure`) and the variant (a pipeline, or a recipe's text and
options), never a pickled AST. Each worker process parses a program once
and applies every variant to a clone of that workspace.

Every way a variant can go wrong is a :class:`Result` with a status and a
reason, never an exception: ``refused`` (a pass raised ``PassFailed``),
``invalid`` (the pipeline names a loop that is not there...), ``build``
(the compiler failed), ``crash`` (non-zero exit), ``wrong`` (the output
differs from the original's), ``timeout`` (the program, or the passes,
ran past their time), ``error`` (anything else, a bug in a pass).

Timing and the cores: compiling and the check run take a *shared* lock,
the timed runs an *exclusive* one (``flock`` on a file of the machine,
``Measure.lock``), so no compile of another worker runs while a variant is
timed (``timing="exclusive"``, the default). ``"serial"`` only keeps the
timed runs from overlapping each other; ``"parallel"`` takes no lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import signal
import socket
import statistics
import tempfile
import threading
import time
import traceback
import types
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..builder import BuildError
from ..builder import run as run_binary
from ..errors import InvalidInput, PassFailed
from ..workspace import Workspace

__all__ = ["Job", "Measure", "Program", "Result", "compare_outputs", "default_lock_path", "evaluate",
           "load_recipe_text"]

FAILED = ("refused", "invalid", "build", "crash", "wrong", "timeout", "error")
_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


@dataclass(frozen=True)
class Program:
    """A C program as text: its sources (compiled), its local headers, its preprocessor flags."""

    sources: tuple[tuple[str, str], ...]
    headers: tuple[tuple[str, str], ...] = ()
    cppflags: tuple[str, ...] = ()

    @classmethod
    def from_files(cls, paths: Sequence[str | os.PathLike[str]], cppflags: Sequence[str] = ()) -> Program:
        """Read ``paths`` and the headers they include with ``#include "..."`` (beside them)."""
        sources, headers, seen = [], [], set()
        names = [Path(p) for p in paths]
        if len({p.name for p in names}) != len(names):
            raise InvalidInput("error: two sources have the same file name")
        pending: list[Path] = []
        for p in names:
            if not p.is_file():
                raise InvalidInput(f"{p}: error: no such file")
            text = p.read_text()
            sources.append((p.name, text))
            pending += [p.parent / h for h in _INCLUDE.findall(text)]
        while pending:
            h = pending.pop()
            if h.name in seen or not h.is_file() or ".." in Path(h.name).parts:
                continue
            seen.add(h.name)
            text = h.read_text()
            headers.append((h.name, text))
            pending += [h.parent / g for g in _INCLUDE.findall(text)]
        return cls(tuple(sources), tuple(sorted(headers)), tuple(cppflags))

    @property
    def key(self) -> str:
        """A hash of everything that makes the program."""
        h = hashlib.sha256(repr((self.sources, self.headers, self.cppflags)).encode())
        return h.hexdigest()[:16]

    def write(self, directory: str | os.PathLike[str]) -> list[Path]:
        """Write the files into ``directory``; the paths of the sources."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        for name, text in self.headers:
            (d / name).write_text(text)
        out = []
        for name, text in self.sources:
            (d / name).write_text(text)
            out.append(d / name)
        return out

    def workspace(self) -> Workspace:
        """The program parsed (once per process; the caller clones it)."""
        ws = _PARSED.get(self.key)
        if ws is None:
            d = tempfile.mkdtemp(prefix="passman-tune-src-")
            ws = Workspace(*self.write(d), cppflags=list(self.cppflags))
            _PARSED[self.key] = ws
        return ws


_PARSED: dict[str, Workspace] = {}
_APPLY_LOCK = threading.Lock()
_RECIPES: dict[str, types.ModuleType] = {}


def default_lock_path() -> str:
    """The machine's timing lock: one file in the temporary folder, shared by every tuner."""
    return os.path.join(tempfile.gettempdir(), f"passman-tune-{os.getuid()}.lock")


@dataclass(frozen=True)
class Measure:
    """How a variant is built, run, checked and measured.

    ``runs`` timed runs (the objective is their median wall time, or the
    median of ``metric``: a regex whose first group, else whole match, is a
    number in the output, e.g. PolyBench's printed time). Outputs are
    compared with the original's token by token, numbers within a relative
    ``tolerance`` (0: exactly); lines matching ``metric`` are not compared.
    ``timeout`` bounds each run and ``apply_timeout`` the passes (in a
    worker's main thread only). ``timing``: ``exclusive``, ``serial`` or
    ``parallel`` (module docstring).
    """

    backend: str = "c"
    build_options: tuple[tuple[str, Any], ...] = ()
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    runs: int = 3
    timeout: float = 60.0
    apply_timeout: float = 300.0
    tolerance: float = 0.0
    metric: str | None = None
    timing: str = "exclusive"
    lock: str | None = None

    def __post_init__(self) -> None:
        if self.timing not in ("exclusive", "serial", "parallel"):
            raise InvalidInput(f"error: timing must be exclusive, serial or parallel, not '{self.timing}'")
        if self.runs < 1:
            raise InvalidInput("error: at least one timed run is needed (runs >= 1)")
        if self.metric is not None:
            try:
                re.compile(self.metric)
            except re.error as err:
                raise InvalidInput(f"error: bad metric regex '{self.metric}': {err}") from None


@dataclass(frozen=True)
class Job:
    """One variant to evaluate: ``pipeline`` text, or ``recipe`` (name, source text) with ``options``.

    ``reference`` is the original program's output (``None``: this is the
    original, whose output becomes the reference). ``known_code`` are the
    hashes of code already measured: such a variant returns ``duplicate``
    without building.
    """

    program: Program
    measure: Measure
    key: str
    pipeline: str | None = None
    recipe: tuple[str, str] | None = None
    options: tuple[tuple[str, Any], ...] = ()
    reference: str | None = None
    known_code: frozenset[str] = frozenset()


@dataclass
class Result:
    """What became of a variant: ``status`` is ``ok``, ``duplicate`` or one of :data:`FAILED`."""

    key: str
    status: str
    reason: str = ""
    value: float | None = None
    times: list[float] = field(default_factory=list)
    size: int | None = None
    pipeline: str | None = None
    code_hash: str | None = None
    output: str | None = None
    compile_seconds: float = 0.0
    worker: str = ""

    @property
    def ok(self) -> bool:
        """Whether the variant was measured."""
        return self.status == "ok"


class _ApplyTimeout(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`_ApplyTimeout` after ``seconds`` (main thread only; elsewhere no limit)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise _ApplyTimeout()

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@contextlib.contextmanager
def _flock(path: str | None, exclusive: bool) -> Iterator[None]:
    if path is None:
        yield
        return
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _compile_lock(m: Measure) -> contextlib.AbstractContextManager[None]:
    return _flock(m.lock or default_lock_path(), False) if m.timing == "exclusive" else contextlib.nullcontext()


def _timing_lock(m: Measure) -> contextlib.AbstractContextManager[None]:
    return _flock(m.lock or default_lock_path(), True) if m.timing != "parallel" else contextlib.nullcontext()


def load_recipe_text(name: str, text: str) -> types.ModuleType:
    """A recipe module from its source text (once per process)."""
    key = hashlib.sha256(text.encode()).hexdigest()
    mod = _RECIPES.get(key)
    if mod is None:
        mod = types.ModuleType(f"passman_tune_recipe_{name}")
        mod.__file__ = name
        exec(compile(text, name, "exec"), mod.__dict__)  # noqa: S102 - the user's recipe
        _RECIPES[key] = mod
    return mod


def evaluate(job: Job) -> Result:
    """Evaluate one variant (in a worker): never raises, every failure is a :class:`Result`."""
    worker = f"{socket.gethostname()}:{os.getpid()}"
    try:
        result = _evaluate(job)
    except Exception as err:  # noqa: BLE001 - a bug in a pass is a failed variant, not a dead search
        last = traceback.extract_tb(err.__traceback__)[-1]
        result = Result(job.key, "error", f"{type(err).__name__}: {err} ({Path(last.filename).name}:{last.lineno})")
    result.worker = worker
    return result


def _evaluate(job: Job) -> Result:
    build_dir = tempfile.mkdtemp(prefix="passman-tune-build-")
    try:
        with _compile_lock(job.measure):  # released before the timed runs take the exclusive one
            prepared = _prepare(job, build_dir)
        if isinstance(prepared, Result):
            return prepared
        return _time_runs(job, *prepared)
    finally:
        shutil.rmtree(build_dir, ignore_errors=True)


def _prepare(job: Job, build_dir: str) -> Result | tuple[Result, Path, dict[str, str] | None, str]:
    """Apply, build and check: a final result (failed, duplicate, reference), or what to time."""
    m = job.measure
    start = time.perf_counter()
    try:
        # the passes run one at a time in a process (a threaded Dask worker): the registry's lazy
        # loading and the parsed-program cache are not thread-safe; builds and runs overlap
        with _APPLY_LOCK, _time_limit(m.apply_timeout):
            ws = job.program.workspace().clone()
            if job.recipe is not None:
                name, text = job.recipe
                load_recipe_text(name, text).main(ws, **dict(job.options))
            elif job.pipeline:
                ws.apply_pipeline(job.pipeline)
            code = "".join(cu.code for cu in ws.compilation_units if not cu.is_stub)
    except PassFailed as err:
        who = f"{err.pass_name}: " if err.pass_name else ""
        return Result(job.key, "refused", _one_line(f"{who}{err}"))
    except InvalidInput as err:
        return Result(job.key, "invalid", _one_line(str(err)))
    except _ApplyTimeout:
        return Result(job.key, "timeout", f"the passes ran past {m.apply_timeout:g} s")
    try:
        pipeline = ws.history.pipeline()
    except InvalidInput:
        pipeline = None
    code_hash = hashlib.sha256(code.encode()).hexdigest()[:16]
    if code_hash in job.known_code:
        return Result(job.key, "duplicate", "same code as a variant already measured",
                      pipeline=pipeline, code_hash=code_hash)
    base = Result(job.key, "ok", pipeline=pipeline, code_hash=code_hash)
    try:
        build = ws.build(m.backend, build_dir, **dict(m.build_options))
    except BuildError as err:
        base.status, base.reason = "build", _one_line(str(err))[:500]
        return base
    binary = build.binary
    base.size = os.path.getsize(binary)
    env = {**os.environ, **dict(m.env)} if m.env else None
    check = run_binary(binary, m.args, cwd=build_dir, env=env, timeout=m.timeout)
    base.compile_seconds = time.perf_counter() - start
    failure = _run_failure(check, m)
    if failure:
        base.status, base.reason = failure
        return base
    if job.reference is None:
        base.output = check.stdout
    else:
        diff = compare_outputs(job.reference, check.stdout, m.tolerance, m.metric)
        if diff:
            base.status, base.reason = "wrong", diff
            return base
    return base, binary, env, build_dir


def _time_runs(job: Job, base: Result, binary: Path, env: dict[str, str] | None, build_dir: str) -> Result:
    """The timed runs, alone on the machine's cores (``Measure.timing``); the objective is their median."""
    m = job.measure
    runs = []
    with _timing_lock(m):
        for _ in range(m.runs):
            r = run_binary(binary, m.args, cwd=build_dir, env=env, timeout=m.timeout)
            failure = _run_failure(r, m)
            if failure:
                base.status, base.reason = failure
                return base
            runs.append(r)
    if m.metric is not None:
        values = [_metric(r.stdout, m.metric) for r in runs]
        if any(v is None for v in values):
            base.status, base.reason = "error", f"no match of the metric /{m.metric}/ in the output"
            return base
        base.times = [float(v) for v in values if v is not None]
    else:
        base.times = [r.seconds for r in runs]
    base.value = statistics.median(base.times)
    return base


def _run_failure(r: Any, m: Measure) -> tuple[str, str] | None:
    if r.timed_out:
        return "timeout", f"the program ran past {m.timeout:g} s"
    if r.returncode != 0:
        what = f"killed by signal {-r.returncode}" if r.returncode < 0 else f"exit status {r.returncode}"
        tail = _one_line(r.stderr.strip())[-200:]
        return "crash", what + (f": {tail}" if tail else "")
    return None


def _metric(text: str, regex: str) -> float | None:
    found = re.search(regex, text)
    if not found:
        return None
    try:
        return float(found.group(1) if found.groups() else found.group(0))
    except (TypeError, ValueError):
        return None


def compare_outputs(expected: str, got: str, tolerance: float = 0.0, metric: str | None = None) -> str | None:
    """Why ``got`` is not ``expected`` (``None`` when it is).

    Token by token; with ``tolerance`` > 0 two numbers match when their
    relative difference (absolute, near zero) is at most ``tolerance``.
    Lines matching ``metric`` (a timing the program prints) are skipped.
    """
    def lines(text: str) -> list[str]:
        return [ln for ln in text.splitlines() if not (metric and re.search(metric, ln))]

    exp, out = lines(expected), lines(got)
    for n, (a, b) in enumerate(zip(exp, out), start=1):
        if a == b:
            continue
        ta, tb = a.split(), b.split()
        if len(ta) == len(tb) and all(_same_token(x, y, tolerance) for x, y in zip(ta, tb)):
            continue
        return f"line {n}: expected '{a.strip()[:80]}', got '{b.strip()[:80]}'"
    if len(exp) != len(out):
        return f"expected {len(exp)} lines of output, got {len(out)}"
    return None


def _same_token(a: str, b: str, tolerance: float) -> bool:
    if a == b:
        return True
    if tolerance <= 0:
        return False
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    return abs(x - y) <= tolerance * max(abs(x), abs(y), 1e-300) or abs(x - y) <= tolerance * 1e-12


def _one_line(text: str) -> str:
    return " ".join(text.split())
