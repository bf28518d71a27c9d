"""The record of applied passes, and its replay on another workspace."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .workspace import Workspace


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
        """Apply this history's changing steps to ``ws``, in order; returns how many ran."""
        n = 0
        for step in self.applied():
            ws.apply(step.pass_name, step.target, **dict(step.args))
            n += 1
        return n

    def __str__(self) -> str:
        return "\n".join(str(s) for s in self.steps)
