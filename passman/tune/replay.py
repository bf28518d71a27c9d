"""Replay: run a strategy against recorded measurements, building nothing.

A study's measurements (``Study.export`` or ``passman tune export``) are a
JSON file: ``variants`` maps each variant's key (its canonical pipeline) to
its status, objective values and reason. :class:`Replay` is an evaluator
that answers from that file, so a strategy replays in milliseconds and
deterministically; tests and ``benchmarks/bench_tune.py`` compare strategies
this way on a space measured exhaustively once.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from .evaluate import Job, Result
from .space import Space

__all__ = ["Replay", "replay"]


class Replay:
    """An evaluator answering from recorded measurements; ``calls`` counts the evaluations it answered."""

    def __init__(self, cache: str | os.PathLike[str] | dict[str, Any]):
        if isinstance(cache, dict):
            data = cache
        else:
            try:
                data = json.loads(Path(cache).read_text())
            except (OSError, ValueError) as err:
                raise InvalidInput(f"{cache}: error: cannot read measurements: {err}") from None
        self.variants: dict[str, dict[str, Any]] = data.get("variants", {})
        self.baseline: float | None = data.get("baseline")
        self.reference: str = data.get("reference") or ""
        self.calls = 0

    def best(self) -> float:
        """The best recorded first objective (the exhaustive optimum when the record is complete)."""
        values = [r["values"][0] for r in self.variants.values() if r.get("values")]
        if not values:
            raise InvalidInput("error: no measured variant in the record")
        return min(values)

    def __call__(self, job: Job) -> Result:
        if job.key == "":  # the original program
            return Result("", "ok", value=self.baseline, times=[self.baseline or 0.0], output=self.reference)
        self.calls += 1
        rec = self.variants.get(job.key)
        if rec is None:
            return Result(job.key, "error", "not in the recorded measurements")
        values = rec.get("values") or []
        return Result(job.key, rec.get("status", "ok") if values or rec.get("status") != "ok" else "error",
                      rec.get("reason", ""), values[0] if values else None,
                      times=values[:1], size=int(values[1]) if len(values) > 1 else None,
                      pipeline=rec.get("pipeline"))


def replay(space: Space, cache: str | os.PathLike[str] | dict[str, Any] | Replay, *, strategy: str = "tpe",
           seed: int = 0, trials: int = 50, objectives: tuple[str, ...] = ("time",)) -> list[float | None]:
    """The first objective of each variant a strategy evaluates, in order (``None``: a failed one).

    The study lives in memory; the running minimum of the list is the
    strategy's convergence curve.
    """
    from .study import Study

    evaluator = cache if isinstance(cache, Replay) else Replay(cache)
    study = Study(f"replay-{strategy}-{seed}", space=space, storage=":memory:", strategy=strategy,
                  seed=seed, jobs=0, evaluator=evaluator, objectives=objectives, progress=False)
    study.optimize(trials)
    return [v.value for v in study.variants() if v.evaluated]
