"""Differential execution: the oracle for every transformation.

Compile and run the original program and the transformed one, compare their
outputs::

    from passman.testing import assert_same_output
    ws = Workspace("gemm.c")
    ws["kernel"].loops()[0].unroll(4)
    assert_same_output(["gemm.c"], ws)

The original is compiled from the user's files against the real system
headers (not through passman), so a bug in passman's front end or printer
shows up as a difference too. Reference outputs are cached per process.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import tempfile
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .builder import BuildPlan, SourceFile, compile, run

DEFAULT_CFLAGS = ("-O1",)
_cache: dict[str, ProgramOutput] = {}


@dataclass(frozen=True)
class ProgramOutput:
    """What a run printed, and how it ended."""

    stdout: str
    stderr: str
    returncode: int | None


def _key(files: Sequence[Path], *parts: Any) -> str:
    h = hashlib.sha256()
    for f in files:
        h.update(str(f).encode())
        h.update(f.read_bytes())
    h.update(repr(parts).encode())
    return h.hexdigest()


def build_and_run(
    files: Sequence[str | os.PathLike[str]],
    *,
    cflags: Iterable[str] = DEFAULT_CFLAGS,
    cppflags: Iterable[str] = (),
    libs: Iterable[str] = ("-lm",),
    args: Iterable[str] = (),
    env: dict[str, str] | None = None,
    timeout: float = 120,
    cc: str = "gcc",
) -> ProgramOutput:
    """Compile C ``files`` into a temporary folder, run the binary, return its output."""
    paths = [Path(f).resolve() for f in files]
    with tempfile.TemporaryDirectory(prefix="passman-diff-") as tmp:
        flags = list(cflags)
        plan = BuildPlan(
            sources=[SourceFile(p, cc, flags) for p in paths],
            output="prog",
            cc=cc,
            cflags=flags,
            cppflags=list(cppflags),
            libs=list(libs),
        )
        result = compile(plan, Path(tmp))
        out = run(result.binary, list(args), env=env, timeout=timeout)
        return ProgramOutput(out.stdout, out.stderr, out.returncode)


def reference_output(files: Sequence[str | os.PathLike[str]], **kw: Any) -> ProgramOutput:
    """Output of the original program (cached by file contents and options)."""
    paths = [Path(f).resolve() for f in files]
    key = _key(paths, sorted((k, repr(v)) for k, v in kw.items()))
    if key not in _cache:
        _cache[key] = build_and_run(paths, **kw)
    return _cache[key]


def workspace_output(ws: Any, **kw: Any) -> ProgramOutput:
    """Output of a workspace's program: saved to a temporary folder, compiled, run."""
    with tempfile.TemporaryDirectory(prefix="passman-ws-") as tmp:
        files = ws.save(Path(tmp) / "out")
        cpp = [f for f in ws.cppflags]
        return build_and_run(files, cppflags=cpp + list(kw.pop("cppflags", ())), **kw)


_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)", re.I)


def outputs_match(expected: str, actual: str, rtol: float = 0.0, atol: float = 0.0) -> bool:
    """Exact comparison, or numbers compared within ``rtol``/``atol`` when given."""
    if rtol == 0.0 and atol == 0.0:
        return expected == actual
    if _NUMBER.sub("#", expected) != _NUMBER.sub("#", actual):
        return False
    for a, b in zip(_NUMBER.findall(expected), _NUMBER.findall(actual)):
        x, y = float(a), float(b)
        if math.isnan(x) and math.isnan(y):
            continue
        if not math.isclose(x, y, rel_tol=rtol, abs_tol=atol):
            return False
    return True


def assert_same_output(
    original: Sequence[str | os.PathLike[str]],
    ws: Any,
    *,
    rtol: float = 0.0,
    atol: float = 0.0,
    **kw: Any,
) -> ProgramOutput:
    """Assert that the transformed workspace prints what the original program prints."""
    ref = reference_output(original, cppflags=list(getattr(ws, "cppflags", [])), **kw)
    got = workspace_output(ws, **kw)
    if ref.returncode != got.returncode or not outputs_match(ref.stdout, got.stdout, rtol, atol):
        raise AssertionError(
            f"outputs differ\n--- original (rc={ref.returncode}):\n{ref.stdout[:2000]}\n--- transformed (rc={got.returncode}):\n{got.stdout[:2000]}"
        )
    return got


def expect(code: str, text: str) -> None:
    """Assert that ``code`` is exactly ``text`` (dedented, without its first newline): golden tests."""
    assert code == textwrap.dedent(text).lstrip("\n"), code
