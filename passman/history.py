"""The record of applied passes, and its replay on another workspace.

``history.pipeline()`` writes it as a textual pipeline (``docs/pipelines.md``)
that, run on a fresh workspace of the same files, gives the same code: a
reproducer (``passman run -p "$(cat repro.txt)" app.c``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import InvalidInput
from .pipeline import format_call

if TYPE_CHECKING:
    from .workspace import Workspace

#: the name under which ``module.code = text`` is recorded (not a registered pass)
SET_CODE = "set_code"


@dataclass(frozen=True)
class Step:
    """One pass application."""

    pass_name: str
    #: ("program", None) | ("unit", name) | ("module", name) | ("loop", (module, label))
    target: tuple[str, Any]
    args: tuple[tuple[str, Any], ...]
    changed: bool
    seconds: float
    error: str | None = None
    #: what the call ran with that a fresh workspace would not give it: its
    #: explicit arguments, its own properties not at their default, and the
    #: global properties (owned by no pass) not at their default
    options: tuple[tuple[str, Any], ...] = ()
    #: 0 for a pass the user called, n for one run by a pass inside n others
    depth: int = 0

    def __str__(self) -> str:
        kind, name = self.target
        where = "/".join(name) if isinstance(name, tuple) else (name or "program")
        args = ", ".join(f"{k}={v!r}" for k, v in self.args)
        status = "changed" if self.changed else f"failed: {self.error}" if self.error else "unchanged"
        return f"{self.pass_name}({args}) on {kind} {where}: {status} [{self.seconds * 1000:.1f} ms]"


@dataclass
class History:
    """Every pass applied to a workspace, in order."""

    steps: list[Step] = field(default_factory=list)

    def __iter__(self):
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, i: int) -> Step:
        return self.steps[i]

    def copy(self) -> History:
        """An independent copy (steps are immutable)."""
        return History(list(self.steps))

    def applied(self) -> list[Step]:
        """The steps that changed the program."""
        return [s for s in self.steps if s.changed]

    def replay(self, ws: Workspace) -> int:
        """Apply this history's changing steps to ``ws``, in order; returns how many ran.

        Steps that passes ran inside other passes are not replayed: the outer
        pass runs them again.
        """
        n = 0
        for step in self.applied():
            if step.depth:
                continue
            ws.apply(step.pass_name, step.target, **dict(step.args))
            n += 1
        return n

    def pipeline(self) -> str:
        """The history as a textual pipeline that replays to the same code.

        Every pass the user called (not those run inside another pass) that
        succeeded, on its recorded target (``pass@function``,
        ``pass@function.label``) with the options it ran with (see
        :attr:`Step.options`); refusals are left out (they changed nothing).
        Replayed by ``ws.apply(text)`` or ``passman run -p`` on the original
        files with properties at their defaults, it gives byte-identical code.
        Code set from text (``module.code = ...``) has no pipeline form:
        :class:`InvalidInput`.
        """
        steps = [s for s in self.steps if s.depth == 0 and s.error is None]
        for k, s in enumerate(steps, 1):
            if s.pass_name == SET_CODE:
                where = s.target[1]
                raise InvalidInput(
                    f"error: step {k} of the history sets the code of {where} from text: "
                    "it has no pipeline form"
                )
        return ",".join(format_call(s.pass_name, s.target, s.options) for s in steps)

    def __str__(self) -> str:
        return "\n".join(str(s) for s in self.steps)
