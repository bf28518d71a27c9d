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

Each budgeted analysis of a function (its polyhedral model, its
dependences, ``auto_schedule``'s isl time) has its own limit, and a sequence
of passes may pay them again after every change: a function's *pool*
(:func:`function_budget`) bounds what they spend together beyond
:data:`CHEAP_SECONDS` each, so that a long sequence of passes on code that
is costly to analyse degrades to the coarse (sound) answers instead of
running for minutes.

Where ``os.fork`` does not exist the function is called directly, with no
limit.
"""

from __future__ import annotations

import atexit
import os
import pickle
import select
import signal
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["Child", "Clock", "DeadlineExceeded", "function_budget", "run_with_deadline"]

#: seconds of budgeted analysis one function may spend beyond :data:`CHEAP_SECONDS` per
#: analysis, over every pass applied to it in one workspace
POOL_SECONDS = 8.0
#: seconds of an analysis never charged to its function's pool (no corpus analysis takes them)
CHEAP_SECONDS = 1.0
#: seconds an analysis still gets once its function's pool is spent
FLOOR_SECONDS = 0.5

#: workspace -> function name -> seconds charged to its pool
_spent: weakref.WeakKeyDictionary[Any, dict[str, float]] = weakref.WeakKeyDictionary()


@contextmanager
def function_budget(module: Any, seconds: float) -> Iterator[float]:
    """The seconds an analysis of ``module`` (a function) may take, at most ``seconds``.

    Less when the function's pool (:data:`POOL_SECONDS`) is running out,
    never less than :data:`FLOOR_SECONDS`. On leaving the block, the time
    taken beyond :data:`CHEAP_SECONDS` is charged to the pool::

        with function_budget(module, MODEL_SECONDS) as seconds:
            deadline = time.monotonic() + seconds
            ...
    """
    try:
        spent = _spent.setdefault(module.ws, {})
    except TypeError:  # not weakly referable (a stand-in in a test): no pool
        yield seconds
        return
    left = POOL_SECONDS - spent.get(module.name, 0.0)
    granted = min(seconds, max(FLOOR_SECONDS, left + CHEAP_SECONDS))
    start = time.monotonic()
    try:
        yield granted
    finally:
        excess = time.monotonic() - start - CHEAP_SECONDS
        if excess > 0:
            spent[module.name] = spent.get(module.name, 0.0) + excess



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


#: children that answered and were not reaped yet (:func:`_reap`)
_exiting: list[int] = []


def _reap(block: bool = False) -> None:
    """Reap the children of :data:`_exiting` that have exited (all of them, waiting, with ``block``)."""
    for pid in list(_exiting):
        try:
            done, _ = os.waitpid(pid, 0 if block else os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere (a SIGCHLD handler of the caller's)
            done = pid
        if done:
            _exiting.remove(pid)


atexit.register(_reap, True)


class Child:
    """``fn()`` computing in a forked child process from now on; :meth:`result` waits for it.

    Several children run side by side (``auto_schedule`` tries isl's fusion
    policies at once); one not asked for its result is killed by :meth:`kill`.
    """

    def __init__(self, fn: Callable[[], T], what: str = "the computation"):
        self.what = what
        _reap()
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
        self.pid: int | None = pid
        self.src = os.fdopen(read_end, "rb", buffering=0)

    def result(self, until: float, seconds: float | None = None) -> Any:
        """The answer, waiting until ``until`` (``time.monotonic()``) at most, else :class:`DeadlineExceeded`.

        ``seconds``: the limit the message gives. An answer already sent is
        read even past ``until``.
        """
        if self.pid is None:
            raise ChildFailed(f"{self.what}: the child was killed")
        chunks: list[bytes] = []
        try:
            with self.src:
                while True:
                    ready = select.select([self.src], [], [], max(0.0, until - time.monotonic()))[0]
                    if not ready:
                        self.kill()
                        given = f" in {seconds:.0f} s" if seconds is not None else ""
                        raise DeadlineExceeded(f"{self.what} did not finish{given}")
                    chunk = self.src.read(1 << 16)
                    if not chunk:
                        break
                    chunks.append(chunk)
        except BaseException:
            self.kill()
            raise
        # the child has answered and is exiting: unmapping its copy of this process takes it a few
        # milliseconds, which the parent need not wait for (reaped at the next call, or at exit)
        _exiting.append(self.pid)
        self.pid = None
        if not chunks:
            raise ChildFailed(f"{self.what}: the child process died without an answer")
        kind, value = pickle.loads(b"".join(chunks))
        if kind == "ok":
            return value
        if kind == "error":
            raise value
        raise ChildFailed(value)

    def kill(self) -> None:
        """Stop the child (if it still runs) and reap it."""
        if self.pid is None:
            return
        pid, self.pid = self.pid, None
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        self.src.close()


def run_with_deadline(fn: Callable[[], T], seconds: float, *, what: str = "the computation") -> T:
    """``fn()`` computed in a child process; :class:`DeadlineExceeded` after ``seconds``.

    ``fn``'s result must pickle. An exception ``fn`` raises is raised here
    (as :class:`ChildFailed` with its text when it does not pickle).
    """
    if not hasattr(os, "fork"):
        return fn()
    if seconds <= 0:
        raise DeadlineExceeded(f"{what}: no time left")
    return Child(fn, what).result(time.monotonic() + seconds, seconds)
