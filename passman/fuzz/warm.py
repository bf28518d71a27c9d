"""A warm passman for the fuzzer: modules imported once, each case in a forked child.

A fuzz case runs passman as a command (``python -m passman.cli run openmp
prog.c -o out``). Starting the interpreter and importing passman, its passes
and islpy takes about half of a small case's time, and a campaign runs
thousands. A campaign's worker process therefore imports everything once
(:func:`preload`) and runs each command in a child forked from it
(:func:`run_module`): the child calls the module's ``main(argv)`` in the
case's folder, its standard output and error go to files, and it is killed
(with every process it started) when its time is up. The child starts from
the parent's state, which no case changes (each runs in its own child), so
a case behaves as in a fresh process; ``PASSMAN_FUZZ_WARM=0`` turns this off
(then every command is a fresh interpreter, as ``--check`` always does).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import signal
import sys
import time
import traceback
from pathlib import Path

from ..builder import RunResult

__all__ = ["available", "enable", "enabled", "preload", "run_module"]

#: the packages a case may import (all of them, imported once by :func:`preload`)
PACKAGES = ("passman", "passman.passes", "passman.backends", "passman.recipes")
_SKIP = ("passman.fuzz.__main__",)
_state = {"enabled": False, "preloaded": False}


def available() -> bool:
    """Whether commands can run warm here (``os.fork`` exists and ``PASSMAN_FUZZ_WARM`` is not 0)."""
    return hasattr(os, "fork") and os.environ.get("PASSMAN_FUZZ_WARM", "1") != "0"


def enable() -> None:
    """Run the oracle's passman commands warm in this process from now on (when :func:`available`)."""
    if available():
        preload()
        _state["enabled"] = True


def enabled() -> bool:
    """Whether the oracle runs its passman commands warm in this process."""
    return _state["enabled"]


def preload() -> None:
    """Import every module of passman's packages (once; a module that fails to import is skipped)."""
    if _state["preloaded"]:
        return
    _state["preloaded"] = True
    for name in PACKAGES:
        try:
            package = importlib.import_module(name)
        except ImportError:
            continue
        paths = getattr(package, "__path__", None)
        if paths is None:
            continue
        for info in pkgutil.walk_packages(paths, prefix=f"{name}."):
            if info.name in _SKIP:
                continue
            try:
                importlib.import_module(info.name)
            except Exception:  # noqa: BLE001 - an optional backend's dependency may be missing
                continue


def run_module(module: str, args: list[str], cwd: Path, timeout: float) -> RunResult:
    """``python -m module args`` in ``cwd``, as a child of this process: its exit status and output.

    ``module.main(args)`` is called; its return value (or ``SystemExit``'s code)
    is the exit status, an uncaught exception prints a traceback and exits 1.
    After ``timeout`` seconds the child and its own children are killed and the
    result says ``timed_out``.
    """
    cwd = Path(cwd)
    out_path, err_path = cwd / ".warm-stdout", cwd / ".warm-stderr"
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            os.setpgid(0, 0)
            os.chdir(cwd)
            for fd, path in ((1, out_path), (2, err_path)):
                handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(handle, fd)
                os.close(handle)
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)
            # the parent's sys.stdout may not write to descriptor 1 (pytest's capture replaces it)
            sys.stdout = open(1, "w", encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
            sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
            sys.argv = [module, *args]
            try:
                result = importlib.import_module(module).main(list(args))
                code = result if isinstance(result, int) else 0
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            except BaseException:  # noqa: BLE001 - what a fresh interpreter would print
                traceback.print_exc()
                code = 1
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    try:
        os.setpgid(pid, pid)
    except OSError:  # the child did it first (or already exited)
        pass
    timed_out = False
    status = 0
    deadline = time.monotonic() + timeout
    delay = 0.002
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            timed_out = True
            _kill_group(pid)
            _, status = os.waitpid(pid, 0)
            break
        time.sleep(delay)
        delay = min(0.02, delay * 1.5)
    _kill_group(pid)  # what the child started and left running (forked deadline workers)
    returncode = None if timed_out else os.waitstatus_to_exitcode(status)
    read = lambda p: p.read_text(errors="replace") if p.is_file() else ""  # noqa: E731
    result = RunResult(returncode, read(out_path), read(err_path), time.perf_counter() - start, timed_out)
    for path in (out_path, err_path):
        path.unlink(missing_ok=True)
    return result


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
