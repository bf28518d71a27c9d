"""Wall-clock limits on computations that cannot be interrupted (isl's scheduler, its AST builder).

isl can take minutes on some inputs (scheduling constant-size boxes, AST
generation of unequal wavefront tiles), and while it works it holds the
interpreter: neither a signal handler nor a timer thread runs until it
returns, and its operation counter does not bound every algorithm. So a
computation that may blow up runs in a forked child process, which is
killed when its time is up::

    text = run_with_deadline(lambda: schedule.to_str(), 5.0, what="isl's scheduler")

The result travels back pickled (an isl object as its text); the parent's
state is never touched by the child. A :class:`Clock` shares one budget
between several such calls (all the parts of one function, say).

Where ``os.fork`` does not exist the function is called directly, with no
limit.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

__all__ = ["Clock", "DeadlineExceeded", "run_with_deadline"]


class DeadlineExceeded(Exception):
    """The computation did not finish in the time it was given."""


class ChildFailed(Exception):
    """The computation raised an exception that could not be sent back as it was."""


class Clock:
    """A wall-clock budget shared by several :func:`run_with_deadline` calls."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.start = time.monotonic()

    def left(self) -> float:
        """Seconds left (never negative)."""
        return max(0.0, self.seconds - (time.monotonic() - self.start))

    def expired(self) -> bool:
        """Whether the budget is spent."""
        return self.left() <= 0.0


def run_with_deadline(fn: Callable[[], T], seconds: float, *, what: str = "the computation") -> T:
    """``fn()`` computed in a child process; :class:`DeadlineExceeded` after ``seconds``.

    ``fn``'s result must pickle. An exception ``fn`` raises is raised here
    (as :class:`ChildFailed` with its text when it does not pickle).
    """
    if not hasattr(os, "fork"):
        return fn()
    if seconds <= 0:
        raise DeadlineExceeded(f"{what}: no time left")
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, leave without running the parent's exit handlers
        os.close(read_end)
        try:
            try:
                payload = pickle.dumps(("ok", fn()))
            except BaseException as err:  # noqa: BLE001 - everything goes back to the parent
                try:
                    payload = pickle.dumps(("error", err))
                except Exception:  # noqa: BLE001
                    payload = pickle.dumps(("text", f"{type(err).__name__}: {err}"))
            with os.fdopen(write_end, "wb") as out:
                out.write(payload)
        finally:
            os._exit(0)
    os.close(write_end)
    chunks: list[bytes] = []
    end = time.monotonic() + seconds
    try:
        with os.fdopen(read_end, "rb", buffering=0) as src:
            while True:
                left = end - time.monotonic()
                if left <= 0 or not select.select([src], [], [], left)[0]:
                    os.kill(pid, signal.SIGKILL)
                    raise DeadlineExceeded(f"{what} did not finish in {seconds:.0f} s")
                chunk = src.read(1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
    finally:
        os.waitpid(pid, 0)
    if not chunks:
        raise ChildFailed(f"{what}: the child process died without an answer")
    kind, value = pickle.loads(b"".join(chunks))
    if kind == "ok":
        return value
    if kind == "error":
        raise value
    raise ChildFailed(value)
