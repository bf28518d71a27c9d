"""The fuzzer's warm runner: passman's commands in children forked from a process that imported it."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from passman.fuzz import oracle, warm

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")

PROGRAM = """#include <stdio.h>
double a[64];
int main(void) {
  for (int i = 0; i < 64; i++) a[i] = i * 0.5;
  double s = 0;
  for (int i = 0; i < 64; i++) s += a[i];
  printf("%.6f\\n", s);
  return 0;
}
"""


def _module(tmp_path, name: str, body: str) -> str:
    (tmp_path / f"{name}.py").write_text(body)
    sys.path.insert(0, str(tmp_path))
    return name


def test_exit_status_output_and_folder(tmp_path):
    name = _module(tmp_path, "warm_echo", "import os, sys\n"
                   "def main(argv):\n    print('out', *argv, os.getcwd())\n"
                   "    print('err', file=sys.stderr)\n    return 3\n")
    work = tmp_path / "case"
    work.mkdir()
    try:
        res = warm.run_module(name, ["a", "b"], work, timeout=20)
    finally:
        sys.path.remove(str(tmp_path))
    assert res.returncode == 3 and not res.timed_out
    assert res.stdout.split() == ["out", "a", "b", str(work)]
    assert res.stderr.strip() == "err"
    assert os.getcwd() != str(work)  # the parent did not move
    assert not list(work.glob(".warm-*"))


def test_uncaught_exception_prints_a_traceback(tmp_path):
    name = _module(tmp_path, "warm_boom", "def main(argv):\n    raise KeyError('boom')\n")
    try:
        res = warm.run_module(name, [], tmp_path, timeout=20)
    finally:
        sys.path.remove(str(tmp_path))
    assert res.returncode == 1
    assert "Traceback (most recent call last)" in res.stderr and "KeyError: 'boom'" in res.stderr
    assert oracle._passman_failed(res).startswith("KeyError")


def test_time_out_kills_the_child_and_what_it_started(tmp_path):
    marker = tmp_path / "grandchild.pid"
    name = _module(tmp_path, "warm_hang", "import os, time\n"
                   "def main(argv):\n    pid = os.fork()\n"
                   "    if pid == 0:\n        time.sleep(60)\n        os._exit(0)\n"
                   f"    open({str(marker)!r}, 'w').write(str(pid))\n    time.sleep(60)\n")
    start = time.monotonic()
    try:
        res = warm.run_module(name, [], tmp_path, timeout=1.0)
    finally:
        sys.path.remove(str(tmp_path))
    assert res.timed_out and res.returncode is None
    assert time.monotonic() - start < 10
    grandchild = int(marker.read_text())
    time.sleep(0.2)
    status = Path(f"/proc/{grandchild}/status")
    if status.exists():  # killed, not yet reaped by whoever adopted it
        assert "zombie" in status.read_text()


def test_warm_and_fresh_give_the_same_verdict(monkeypatch):
    """The oracle's verdict on a program is the same with passman warm and as a fresh process."""
    fresh = oracle.check_openmp(PROGRAM, ["--set", "min_work=0"], timeout=60)
    monkeypatch.setitem(warm._state, "enabled", False)
    warm.enable()
    assert warm.enabled()
    try:
        warmed = oracle.check_openmp(PROGRAM, ["--set", "min_work=0"], timeout=60)
    finally:
        warm._state["enabled"] = False
    assert fresh.kind == warmed.kind == "same", (fresh.detail, warmed.detail)
    assert "passman: wrote out" in fresh.stderr and fresh.stderr == warmed.stderr


def test_turned_off_by_the_environment(monkeypatch):
    monkeypatch.setenv("PASSMAN_FUZZ_WARM", "0")
    monkeypatch.setitem(warm._state, "enabled", False)
    warm.enable()
    assert not warm.enabled()
