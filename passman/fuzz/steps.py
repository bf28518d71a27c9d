"""Random sequences of passman's Python API transformations, and their replay.

:func:`plan` draws, from a seed, a few transformations on random loops and
functions of a generated program (``tile(4, 3)`` on the loop of uid 3,
``auto_schedule(fusion="max")`` on ``kernel``…), always ending with
``ompify_code`` on each function so that the parallel markers become
OpenMP. :func:`apply` replays such a list on a workspace: each step in
``try/except PassFailed``, a refusal that changed the program's text is a
bug, any other exception is a bug.

Steps name loops by their position in ``module.all_loops`` of the program
as written (positions survive in a corpus file's header; the generator's
uids do not), resolved to passman's labels before the first step.

Run as a program (``python -m passman.fuzz.steps SPEC.json``), it reads
``{"source", "out", "steps"}``, applies the steps, saves the workspace to
``out`` and writes ``out/../steps.json`` with each step's outcome: the
oracle runs it as a child process so that a hang can be killed.
"""

from __future__ import annotations

import json
import random
import sys
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, PassFailed
from ..workspace import Workspace

#: loop-level transformations and their parameter sets: (positional, keyword)
LOOP_PASSES: dict[str, list[tuple[tuple, dict[str, Any]]]] = {
    "unroll": [((2,), {}), ((3,), {}), ((4,), {})],
    "full_unroll": [((), {})],
    "tile": [((4,), {}), ((4, 3), {}), ((8, 8), {}), ((3, 5, 2), {})],
    "interchange": [((), {}), ((), {"order": (2, 0, 1)}), ((), {"order": (1, 0, 2)})],
    "strip_mine": [((3,), {}), ((8,), {})],
    "reverse": [((), {})],
    "loop_normalize": [((), {})],
    "loop_fusion": [((), {}), ((), {"keep_parallel": False})],
    "privatize": [((), {})],
    "invariant_code_motion": [((), {})],
    "loop_hyperplane": [((), {}), ((), {"direction": (2, 1)})],
    "skew": [((1,), {}), ((2,), {})],
    "unroll_and_jam": [((2,), {})],
}
#: function-level transformations and their parameter sets
MODULE_PASSES: dict[str, list[tuple[tuple, dict[str, Any]]]] = {
    "auto_schedule": [((), {}), ((), {"tile": False}), ((), {"fusion": "max"}),
                      ((), {"wavefront": False, "tile_sizes": "4,3"})],
    "coarse_grain_parallelization": [((), {"min_work": 0})],
    "coarse_grain_parallelization_with_reduction": [((), {"min_work": 0}), ((), {})],
    "allen_kennedy_parallelization": [((), {"min_work": 0})],
    "loop_distribution": [((), {})],
    "limit_nested_parallelism": [((), {})],
    "partial_eval": [((), {})],
    "forward_substitute": [((), {})],
    "dead_code_elimination": [((), {})],
    "scalarization": [((), {}), ((), {"break_perfect_nest": True})],
    "accumulate_in_place": [((), {})],
    "induction_substitution": [((), {})],
    "flatten_code": [((), {})],
    "loop_fusion_with_regions": [((), {})],
    "linearize_array": [((), {}), ((), {"locals": True})],
    "propagate_constant_arguments": [((), {})],
    "omp_merge_pragma": [((), {})],
}
#: the parallelizers, drawn more often than the others
PARALLELIZERS = ("auto_schedule", "coarse_grain_parallelization",
                 "coarse_grain_parallelization_with_reduction", "allen_kennedy_parallelization")


@dataclass
class Step:
    """One transformation: a pass on a function (``loop`` None) or on one of its loops.

    ``loop`` is a loop's uid while planning (:func:`plan`) and its position
    in the function's ``all_loops`` once :func:`positioned`.
    """

    name: str
    function: str
    loop: int | None = None
    args: tuple = ()
    kwargs: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """``tile(4, 3) on kernel loop #2``."""
        params = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        where = self.function if self.loop is None else f"{self.function} loop #{self.loop}"
        return f"{self.name}({', '.join(params)}) on {where}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> Step:
        """The step of a :meth:`to_json` dict (lists become tuples again)."""
        kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in data["kwargs"].items()}
        return Step(data["name"], data["function"], data["loop"], tuple(data["args"]), kwargs)


@dataclass
class Outcome:
    """What one step did: ``applied``, ``refused``, ``gone`` (its loop no longer exists) or ``error``.

    A step whose parameters do not fit its target (``InvalidInput``: three
    tile sizes on a two-deep band) counts as refused.
    """

    step: str
    result: str
    message: str = ""


def plan(loops: dict[str, list[int | None]], seed: int) -> list[Step]:
    """A random sequence of 1 to 6 steps on the nests' loops (uids) and functions, then ompify_code."""
    rng = random.Random(f"steps:{seed}")
    functions = sorted(loops)
    targets = [(f, uid) for f in functions for uid in loops[f] if uid is not None]
    steps = []
    for _ in range(rng.randint(1, 6)):
        if targets and rng.random() < 0.55:
            function, uid = rng.choice(targets)
            name = rng.choice(sorted(LOOP_PASSES))
            args, kwargs = rng.choice(LOOP_PASSES[name])
            steps.append(Step(name, function, uid, args, dict(kwargs)))
            continue
        function = rng.choice([f for f in functions if loops[f]] or functions)
        name = rng.choice(PARALLELIZERS) if rng.random() < 0.4 else rng.choice(sorted(MODULE_PASSES))
        args, kwargs = rng.choice(MODULE_PASSES[name])
        steps.append(Step(name, function, None, args, dict(kwargs)))
    steps += [Step("ompify_code", f) for f in functions]
    return steps


def positioned(steps: list[Step], loops: dict[str, list[int | None]]) -> list[Step]:
    """The steps with loop uids turned into positions; steps on loops that no longer exist dropped."""
    out = []
    for s in steps:
        if s.loop is None:
            out.append(s)
        elif s.function in loops and s.loop in loops[s.function]:
            out.append(Step(s.name, s.function, loops[s.function].index(s.loop), s.args, s.kwargs))
    return out


def _text(ws: Workspace) -> str:
    return "\n".join(cu.code for cu in ws.compilation_units if not cu.is_stub)


def apply(ws: Workspace, steps: list[Step]) -> list[Outcome]:
    """Apply ``steps`` (loops by position) to ``ws``; stop at the first bug (an ``error`` outcome)."""
    labels = {m.name: [lp.label for lp in m.all_loops] for m in ws.all_functions}
    outcomes: list[Outcome] = []
    for step in steps:
        what = step.describe()
        if step.loop is None:
            target: Any = ws[step.function]
        else:
            label = labels[step.function][step.loop]
            if label not in {lp.label for lp in ws[step.function].all_loops}:
                outcomes.append(Outcome(what, "gone"))
                continue
            target = ws[step.function].loop(label)
        before = _text(ws)
        try:
            ws.apply(step.name, target, *step.args, **step.kwargs)
        except (PassFailed, InvalidInput) as why:  # a parameter that does not fit: refused too
            if _text(ws) != before:
                outcomes.append(Outcome(what, "error", f"refused ({why}) but the code changed"))
                break
            outcomes.append(Outcome(what, "refused", str(why)))
            continue
        except Exception as err:  # noqa: BLE001 - any other exception is a bug
            traceback.print_exc()
            outcomes.append(Outcome(what, "error", f"{type(err).__name__}: {err}"))
            break
        outcomes.append(Outcome(what, "applied"))
    return outcomes


def main(argv: list[str]) -> int:
    """The child process: ``python -m passman.fuzz.steps SPEC.json``."""
    spec = json.loads(Path(argv[0]).read_text())
    result = Path(spec["out"]).parent / "steps.json"
    ws = Workspace(spec["source"])
    counts = {m.name: len(m.all_loops) for m in ws.all_functions}
    expected = spec.get("counts", counts)
    if any(counts.get(f) != n for f, n in expected.items()):
        outcomes = [Outcome("loop map", "error", f"loops per function {counts}, expected {expected}")]
    else:
        outcomes = apply(ws, [Step.from_json(s) for s in spec["steps"]])
    if not any(o.result == "error" for o in outcomes):
        ws.save(spec["out"])
    result.write_text(json.dumps([asdict(o) for o in outcomes]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
