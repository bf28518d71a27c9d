"""The fuzzer's oracle: run passman on one program, compare outputs, classify the case.

The original is compiled with ``gcc -O1`` (no OpenMP) and run: that is the
reference. Passman then transforms it, in one of two modes:

* ``openmp``: ``passman run openmp prog.c -o out [--set ...]`` as a child
  process, under a wall-clock limit;
* ``api``: a list of Python API transformations (:mod:`.steps`) replayed in
  a child process under the same limit, the workspace saved to ``out``.

The transformed program is compiled with ``gcc -O1 -fopenmp`` (threads from
its first region on: ``-DPASSMAN_THREADS_AFTER=0``) and run with
``OMP_NUM_THREADS`` 1, 2 and 4, then once more at 4 threads linked with the
race amplifier of :mod:`passman.jitter` (random delays where threads start
work: a missing task edge or barrier shows on two cores). Outputs are compared number by number with
a relative tolerance of :data:`RTOL` (1e-9; absolute :data:`ATOL` near
zero), the text between numbers exactly: a parallel floating-point
reduction may be reassociated, which changes the last bits of a sum and
nothing else (generated values are non-negative: no cancellation).

A case is classified (:data:`KINDS`) as

* ``same``: every run printed the reference output;
* ``refused``: same output, and passman did nothing: no ``#pragma omp`` in
  the recipe's output (``openmp``), every step refused (``api``);
* ``wrong``: some run printed something else;
* ``traceback``: passman printed a traceback or ``internal error``, failed
  on this valid program, or a refused step changed the code;
* ``compile_error``: passman's output does not compile;
* ``timeout``: passman, or the transformed program, ran past its limit;
* ``crash``: the transformed program failed (the original did not);
* ``invalid``: the original itself does not compile or run (a fuzzer bug).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..builder import BuildPlan, RunResult, SourceFile, compile, run
from ..jitter import jitter_env, jittered
from ..testing import outputs_match
from . import warm
from .steps import Step

RTOL = 1e-9
ATOL = 1e-12
THREADS = (1, 2, 4)
#: threads of the run linked with the race amplifier (passman.jitter)
JITTER_THREADS = 4
KINDS = ("same", "refused", "wrong", "traceback", "compile_error", "timeout", "crash", "invalid")
#: the kinds that are bugs (in passman, or in the fuzzer for ``invalid``)
FAILURES = KINDS[2:]
#: how long one run of a compiled program may take (they run in milliseconds)
RUN_LIMIT = 10.0
_PRAGMA_OMP = re.compile(r"^\s*#\s*pragma\s+omp\b", re.M)
_EXCEPTION = re.compile(r"^(\w+(?:Error|Exception|Failed|Interrupt)\w*)(?::|$)", re.M)


@dataclass
class Verdict:
    """The class of one case, with what it needs for diagnosis."""

    kind: str
    mode: str
    detail: str = ""
    #: passman's standard error (the recipe's, or the child's that applied the steps)
    stderr: str = ""
    #: api mode: each step and what it did
    steps: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: the wall-clock limit passman ran under
    limit: float = 0.0

    @property
    def failed(self) -> bool:
        """Whether the case found a bug."""
        return self.kind in FAILURES

    def signature(self) -> str:
        """The kind, with the exception's type for a traceback (what shrinking keeps)."""
        if self.kind != "traceback":
            return self.kind
        found = _EXCEPTION.findall(self.stderr)
        if found:
            return f"traceback:{found[-1]}"
        return f"traceback:{self.detail.split(':')[0]}"


def _compile(sources: Sequence[Path], build: Path, openmp: bool, jitter: bool = False) -> tuple[Path | None, str]:
    """Compile ``sources`` with ``gcc -O1`` (and ``-fopenmp``, and the race amplifier with ``jitter``);
    the binary or the compiler's errors."""
    # threads from the first region on, however short the run (guard_team_start's macro): races show
    flags = ["-O1", "-fopenmp", "-DPASSMAN_THREADS_AFTER=0"] if openmp else ["-O1"]
    cpp = ["-I", str(sources[0].parent)] if sources else []
    plan = BuildPlan(
        sources=[SourceFile(p.resolve(), "gcc", []) for p in sources],
        output="prog",
        cflags=flags,
        cppflags=cpp,
        ldflags=["-fopenmp"] if openmp else [],
        libs=["-lm"],
    )
    result = compile(jittered(plan) if jitter else plan, build, check=False, jobs=1)
    return result.binary, result.stderr


def _run(binary: Path, threads: int | None = None, extra: dict[str, str] | None = None) -> RunResult:
    env = {**os.environ, **(extra or {})}
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    return run(binary, env=env, timeout=RUN_LIMIT)


def first_difference(expected: str, actual: str) -> str:
    """The first line that differs, as ``expected -> actual``."""
    a, b = expected.splitlines(), actual.splitlines()
    for k in range(max(len(a), len(b))):
        x = a[k] if k < len(a) else "<nothing>"
        y = b[k] if k < len(b) else "<nothing>"
        if not outputs_match(x, y, RTOL, ATOL):
            return f"line {k + 1}: {x!r} -> {y!r}"
    return "same lines"


def _compare(reference: RunResult, sources: list[Path], build: Path) -> tuple[str, str]:
    """Compile passman's output and run it with each thread count: (kind, detail)."""
    if not sources:
        return "compile_error", "passman wrote no C file"
    binary, errors = _compile(sources, build, openmp=True)
    if binary is None:
        lines = [ln for ln in errors.splitlines() if "error" in ln]
        return "compile_error", "; ".join(lines[:3]) or errors[:300]
    for threads in THREADS:
        if bad := _judged(reference, _run(binary, threads), f"{threads} threads"):
            return bad
    binary, errors = _compile(sources, build, openmp=True, jitter=True)
    if binary is None:
        return "compile_error", f"with the race amplifier (passman.jitter): {errors[:300]}"
    got = _run(binary, JITTER_THREADS, jitter_env(seed=zlib.crc32(sources[0].read_bytes())))
    return _judged(reference, got, f"{JITTER_THREADS} threads, race amplifier (passman.jitter)") or ("same", "")


def _judged(reference: RunResult, got: RunResult, where: str) -> tuple[str, str] | None:
    """``(kind, detail)`` of a run that timed out, failed or printed something else; None if it is right."""
    if got.timed_out:
        return "timeout", f"the transformed program ran past {RUN_LIMIT:g} s ({where})"
    if got.returncode != 0:
        return "crash", f"exit status {got.returncode} ({where}): {got.stderr[:300]}"
    if not outputs_match(reference.stdout, got.stdout, RTOL, ATOL):
        return "wrong", f"{where}: {first_difference(reference.stdout, got.stdout)}"
    return None


def _reference(source: Path, build: Path) -> tuple[RunResult | None, str]:
    binary, errors = _compile([source], build, openmp=False)
    if binary is None:
        return None, f"the original does not compile: {errors[:300]}"
    ref = _run(binary)
    if ref.returncode != 0:
        return None, f"the original failed (exit status {ref.returncode})"
    return ref, ""


def _passman_failed(res: RunResult) -> str:
    """Why passman's run is a bug ("" when it is not): a traceback, an internal error, a failure."""
    err = res.stderr
    if "Traceback (most recent call last)" in err or "internal error" in err:
        lines = [ln for ln in err.splitlines() if ln.strip()]
        found = [ln for ln in lines if _EXCEPTION.match(ln) or "internal error" in ln]
        return (found or lines or ["traceback"])[-1][:300]
    if res.returncode != 0:
        lines = [ln for ln in err.splitlines() if ln.strip()]
        return f"passman failed (exit status {res.returncode}): {(lines or [''])[-1][:300]}"
    return ""


def _run_passman(argv: list[str], cwd: Path, timeout: float) -> RunResult:
    """Run passman's command ``argv`` in ``cwd``: in a child forked from this warm process when
    :mod:`.warm` is enabled and ``argv`` is ``python -m passman…``, else as a fresh process."""
    if warm.enabled() and argv[:2] == [sys.executable, "-m"] and argv[2].split(".")[0] == "passman":
        return warm.run_module(argv[2], argv[3:], cwd, timeout)
    return run(argv[0], argv[1:], cwd=cwd, timeout=timeout)


def openmp_command(source: str, out: str, options: Sequence[str] = ()) -> list[str]:
    """The command line of the ``openmp`` mode."""
    return [sys.executable, "-m", "passman.cli", "run", "openmp", source, "-o", out, *options]


def _judge(mode: str, text: str, argv_of: Callable[[str, str], list[str]], timeout: float,
           compare: Callable[[RunResult, Path], tuple[str, str]]) -> Verdict:
    """Run the original and passman (``argv_of("prog.c", "out")``) in a fresh folder; classify
    passman's failures, then ``compare(reference, folder)`` gives the kind and detail."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="passman-fuzz-") as tmp:
        root = Path(tmp)
        source = root / "prog.c"
        source.write_text(text)
        reference, why = _reference(source, root / "ref")
        if reference is None:
            return Verdict("invalid", mode, why, seconds=time.perf_counter() - start)
        argv = argv_of("prog.c", "out")
        res = _run_passman(argv, root, timeout)
        verdict = Verdict("same", mode, stderr=res.stderr, limit=timeout)
        if res.timed_out:
            verdict.kind, verdict.detail = "timeout", f"passman ran past {timeout:g} s"
        elif mode == "accel" and "error: build failed" in res.stderr:
            verdict.kind, verdict.detail = "compile_error", res.stderr.strip().splitlines()[-1][:300]
        elif why := _passman_failed(res):
            verdict.kind, verdict.detail = "traceback", why
        else:
            verdict.kind, verdict.detail = compare(reference, root)
        verdict.seconds = time.perf_counter() - start
        return verdict


def check_openmp(
    text: str,
    options: Sequence[str] = (),
    timeout: float = 30,
    command: Callable[[str, str, Sequence[str]], list[str]] = openmp_command,
) -> Verdict:
    """Classify ``text`` through ``passman run openmp`` (extra ``options``: ``--set poly=false``).

    ``command(source, out, options)`` is the command line that transforms
    ``source`` into the folder ``out`` (the oracle's tests give a broken one).
    """

    def compare(reference: RunResult, root: Path) -> tuple[str, str]:
        sources = sorted((root / "out").glob("*.c"))
        kind, detail = _compare(reference, sources, root / "build")
        if kind == "same" and not _PRAGMA_OMP.search("".join(p.read_text() for p in sources)):
            kind = "refused"
        return kind, detail

    return _judge("openmp", text, lambda src, out: command(src, out, options), timeout, compare)


def accel_command(source: str, out: str, options: Sequence[str] = ()) -> list[str]:
    """The command line of the ``accel`` mode (the recipe builds with the emulation backend)."""
    return [sys.executable, "-m", "passman.cli", "run", "accel", source, "-o", out, "--build", *options]


#: the accel mode's runs: work-items in order, then shuffled, with guard zones around buffers
ACCEL_RUNS = ({"PASSMAN_ACCEL_CHECK": "1"}, {"PASSMAN_ACCEL_CHECK": "1", "PASSMAN_ACCEL_SHUFFLE": "1"})


def check_accel(text: str, options: Sequence[str] = (), timeout: float = 30) -> Verdict:
    """Classify ``text`` through ``passman run accel`` (kernels, transfers, the CPU emulation).

    The emulation's device buffers start as garbage and are separate from the host's arrays,
    so a missing transfer shows; a shuffled order of work-items shows a kernel whose
    work-items depend on each other. ``refused``: no kernel was launched.
    """

    def compare(reference: RunResult, root: Path) -> tuple[str, str]:
        binary = root / "out" / "prog"
        if not binary.exists():
            return "compile_error", "passman built no program"
        for extra in ACCEL_RUNS:
            got = run(binary, env={**os.environ, "OMP_NUM_THREADS": "2", **extra}, timeout=RUN_LIMIT)
            if bad := _judged(reference, got, str(extra)):
                return bad
        texts = "".join(p.read_text() for p in (root / "out").glob("*.c"))
        return ("same" if "passman_accel_emu_launch_for(" in texts else "refused"), ""

    return _judge("accel", text, lambda src, out: accel_command(src, out, options), timeout, compare)


def check_api(
    text: str, steps: Sequence[Step], counts: dict[str, int] | None = None, timeout: float = 30
) -> Verdict:
    """Classify ``text`` through ``steps`` (loops by position) applied in a child process.

    ``counts`` (loops per function) lets the child check that the positions
    name the loops they were meant to.
    """
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="passman-fuzz-") as tmp:
        root = Path(tmp)
        source = root / "prog.c"
        source.write_text(text)
        reference, why = _reference(source, root / "ref")
        if reference is None:
            return Verdict("invalid", "api", why, seconds=time.perf_counter() - start)
        spec = {"source": "prog.c", "out": "out", "steps": [s.to_json() for s in steps]}
        if counts is not None:
            spec["counts"] = counts
        (root / "spec.json").write_text(json.dumps(spec))
        res = _run_passman([sys.executable, "-m", "passman.fuzz.steps", "spec.json"], root, timeout)
        verdict = Verdict("same", "api", stderr=res.stderr, limit=timeout)
        log = root / "steps.json"
        outcomes = json.loads(log.read_text()) if log.is_file() else []
        verdict.steps = [f"{o['step']}: {o['result']} {o['message'][:200]}".rstrip() for o in outcomes]
        errors = [o for o in outcomes if o["result"] == "error"]
        if res.timed_out:
            verdict.kind, verdict.detail = "timeout", f"the steps ran past {timeout:g} s"
        elif errors:
            verdict.kind = "traceback"
            verdict.detail = f"{errors[0]['step']}: {errors[0]['message'][:300]}"
        elif why := _passman_failed(res) or ("" if log.is_file() else "no steps.json written"):
            verdict.kind, verdict.detail = "traceback", why
        else:
            sources = sorted((root / "out").glob("*.c"))
            verdict.kind, verdict.detail = _compare(reference, sources, root / "build")
            if verdict.kind == "same" and not any(o["result"] == "applied" for o in outcomes):
                verdict.kind = "refused"
        verdict.seconds = time.perf_counter() - start
        return verdict


# ----------------------------------------------------------------------------- corpus headers

_OPTIONS = re.compile(r"passman-options:(.*?)(?:\*/|$)", re.M)
_STEPS = re.compile(r"passman-steps:(.*?)(?:\*/|$)", re.M)
_TIMEOUT = re.compile(r"passman-timeout:\s*([0-9.]+)")


def header_options(text: str) -> list[str]:
    """The ``--set`` options a corpus file's header names (``/* passman-options: --set poly=false */``)."""
    found = _OPTIONS.search(text)
    return shlex.split(found.group(1)) if found else []


def header_steps(text: str) -> list[Step] | None:
    """The API steps a corpus file's header lists (``passman-steps: [...]``), None when none."""
    found = _STEPS.search(text)
    if not found:
        return None
    return [Step.from_json(s) for s in json.loads(found.group(1))]


def header_timeout(text: str) -> float | None:
    """The limit a corpus file's header sets on passman (``passman-timeout: 5``), for slowness bugs."""
    found = _TIMEOUT.search(text)
    return float(found.group(1)) if found else None
