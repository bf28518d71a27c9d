"""A progress line for long runs: the phase, the pass running, the functions it has done.

``passman run`` registers a :class:`Progress` on its workspace when standard
error is a terminal (one line, rewritten in place) or with ``-v`` (a full
line now and then, for logs). Nothing shows for the first two seconds, so
short runs print nothing::

    passman: 12.4 s  recipe openmp  121/301 functions  allen_kennedy_parallelization on h12_kernel

The count is the number of functions the pass shown has finished with (its
changes kept or refused) out of the program's functions: a recipe that runs
one pass over every function, then the next, shows each sweep filling up
(a pass coming back to a function it has done starts a new sweep).
The line goes to standard error (looked up when written, as the reports
do), never to standard output, and :meth:`Progress.clear` erases it before
other messages are printed.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import TextIO

from .instrument import Instrumentation, PassCall
from .loop import Loop
from .module import Module


class Progress(Instrumentation):
    """Shows the phase, the top-level pass and its functions done on standard error.

    ``live``: rewrite one line in place (a terminal), at most every
    ``refresh`` seconds; otherwise print a full line every ``every``
    seconds. Nothing is shown before ``delay`` seconds have passed since the
    progress began.
    """

    def __init__(self, *, live: bool, delay: float = 2.0, refresh: float = 0.1, every: float = 10.0,
                 stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic):
        self.live = live
        self.delay = delay
        self.interval = refresh if live else every
        self.stream = stream
        self.clock = clock
        self.start = clock()
        self.phase_name = ""
        self.current = ""
        self.done: defaultdict[str, set[str]] = defaultdict(set)
        self._last_function: dict[str, str] = {}  # pass -> the function it last finished with
        self.total = 0
        self._last = self.start - self.interval + self.delay  # the first line, once the delay has passed
        self._shown = False  # a live line is on the screen

    # -- what is running ----------------------------------------------------------
    def phase(self, name: str) -> None:
        """Start phase ``name`` (``parsing``, ``recipe openmp``, ``building``), shown from now on."""
        self.phase_name = name
        self.current = ""
        self.done.clear()
        self._last_function.clear()
        self.update()

    def before_pass(self, call: PassCall) -> None:
        """Show the pass the user's recipe or pipeline runs (not the passes it runs itself)."""
        if call.depth == 0:
            function = _function(call)
            self.current = call.pass_name + (f" on {function}" if function else f" on {call.where}")
            done = self.done[call.pass_name]
            if function in done and function != self._last_function.get(call.pass_name):
                done.clear()  # a new sweep over the functions (another round of a fix point)
            if not self.total and call.workspace is not None:
                self.total = len(call.workspace.all_functions)
        self.update()

    def after_pass(self, call: PassCall, changed: bool, seconds: float) -> None:
        """Count the function done."""
        self._done(call)

    def after_pass_failed(self, call: PassCall, error: BaseException, seconds: float) -> None:
        """Count the function done (refused: it is as it was)."""
        self._done(call)

    def after_analysis(self, name: str, owner: object, seconds: float) -> None:
        """Long analyses keep the elapsed time moving."""
        self.update()

    def _done(self, call: PassCall) -> None:
        if call.depth == 0:
            function = _function(call)
            if function:
                self.done[call.pass_name].add(function)
                self._last_function[call.pass_name] = function
        self.update()

    # -- the line -------------------------------------------------------------------
    def text(self) -> str:
        """The progress line (without the terminal's control characters)."""
        parts = [f"passman: {self.clock() - self.start:.1f} s"]
        if self.phase_name:
            parts.append(self.phase_name)
        if self.current:
            name = self.current.split(" ", 1)[0]
            if self.total and name in self.done:  # before the pass: a narrow terminal cuts the end
                parts.append(f"{len(self.done[name])}/{self.total} functions")
            parts.append(self.current)
        return "  ".join(parts)

    def update(self) -> None:
        """Show the line if it is time to (``delay`` passed, ``interval`` since the last one)."""
        now = self.clock()
        if now - self._last < self.interval:
            return
        self._last = now
        out = self.stream if self.stream is not None else sys.stderr
        line = self.text()
        if self.live:
            width = max(20, shutil.get_terminal_size().columns - 1)
            out.write("\r" + line[:width] + "\x1b[K")
            self._shown = True
        else:
            out.write(line + "\n")
        out.flush()

    def clear(self) -> None:
        """Erase a live line (before another message, and at the end)."""
        if self._shown:
            out = self.stream if self.stream is not None else sys.stderr
            out.write("\r\x1b[K")
            out.flush()
            self._shown = False


def _function(call: PassCall) -> str:
    target = call.target
    if isinstance(target, Loop):
        return target.module.name
    if isinstance(target, Module):
        return target.name
    return ""
