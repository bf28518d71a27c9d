"""Instrumentation: hooks around every pass run and every analysis computation.

MLIR's ``PassInstrumentation`` is the model. Subclass :class:`Instrumentation`,
override the hooks you need and register an instance on a workspace::

    class Trace(Instrumentation):
        def before_pass(self, call):
            print("running", call.pass_name, "on", call.where)

    ws.instrument(Trace())

The workspace calls, in this order for a pass: ``before_pass(call)``, then
``before_analysis``/``after_analysis`` for each analysis computed while it
runs (cache hits are not computations), the hooks of passes it runs itself
(``call.depth`` > 0), then ``after_pass(call, changed, seconds)`` once its
transaction is committed, or ``after_pass_failed(call, error, seconds)``
once it is rolled back (the code is then as the pass found it). Analyses
computed outside a pass (by a recipe, by ``module.display``) get their hooks
too. A pass reports counters with ``ws.stat(name, amount)``; they reach
``on_stat(call, name, amount)`` with the running pass's call.

Clones and checkpoints share the instrumentations registered before they
were taken (``Workspace.clone``); with none registered a pass pays one test.
``passman.reports`` holds the ones behind ``passman run --print-after``,
``--print-on-failure``, ``--time-passes`` and ``--stats``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, eq=False)
class PassCall:
    """One run of a pass, as the hooks see it."""

    pass_name: str
    #: the Module, Loop, CompilationUnit or Workspace it runs on
    target: Any
    #: ``function f``, ``loop l3 of f``, ``unit u`` or ``the program``
    where: str
    #: the call's explicit arguments, ``(name, value)`` pairs (as in the history)
    args: tuple[tuple[str, Any], ...]
    #: 0 for a pass the user called, n for one run inside n other passes
    depth: int
    #: the pass running this one, if any
    parent: PassCall | None = field(default=None, repr=False)
    #: the workspace
    workspace: Any = field(default=None, repr=False)


class Instrumentation:
    """Base class of instrumentations: every hook does nothing."""

    def before_pass(self, call: PassCall) -> None:
        """A pass is about to run (its required analyses not computed yet)."""

    def after_pass(self, call: PassCall, changed: bool, seconds: float) -> None:
        """A pass succeeded; ``changed``: whether it modified the program."""

    def after_pass_failed(self, call: PassCall, error: BaseException, seconds: float) -> None:
        """A pass raised ``error`` (a :class:`PassFailed` refusal, usually) and was rolled back."""

    def before_analysis(self, name: str, owner: Any) -> None:
        """Resource ``name`` is about to be computed for ``owner`` (Module, Loop, unit or Workspace)."""

    def after_analysis(self, name: str, owner: Any, seconds: float) -> None:
        """Resource ``name`` was computed for ``owner`` (the analyses it required included)."""

    def after_analysis_failed(self, name: str, owner: Any, error: BaseException, seconds: float) -> None:
        """Computing resource ``name`` for ``owner`` raised ``error``."""

    def on_stat(self, call: PassCall | None, name: str, amount: int) -> None:
        """The running pass (``call``; None outside a pass) reported counter ``name``."""
