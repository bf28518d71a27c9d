"""A tuning study: a space, a program, a strategy, an Optuna storage, and the evaluation loop.

::

    from passman.tune import Study, Space, Pow2, Choice

    space = Space.pipeline("auto_schedule@kernel_gemm{tile_sizes=$TI,$TJ,fusion=$F}",
                           TI=Pow2(8, 256), TJ=Pow2(8, 256), F=Choice("smart", "max"))
    study = Study("gemm", ["gemm.c"], space, storage="tune.db", strategy="tpe", jobs=2)
    study.optimize(100)          # resumable: run it again after a crash, nothing lost
    print(study.table())
    study.write_best("out")

The loop asks Optuna for points (ask-and-tell), keeps ``jobs`` evaluations
in flight on the executor (a local process pool, or Dask), and tells each
result to the storage as soon as it arrives, so a killed tuner loses only
the variants in flight, which the next run evaluates first. A point whose
variant is already known (same canonical pipeline, or code identical to a
measured variant) is told the recorded measurement and never evaluated
again; a point that breaks a constraint is pruned before evaluation.
"""

from __future__ import annotations

import json
import logging
import os
import random
import warnings
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..recipe import load_recipe, recipe_entry
from .evaluate import FAILED, Job, Measure, Program, Result, evaluate, load_recipe_text
from .executors import make_executor
from .space import Space, format_value

#: ``passman -v tune`` logs each finished trial here
LOG = logging.getLogger("passman")

__all__ = ["STRATEGIES", "Study", "Variant", "make_sampler", "storage_url"]

STRATEGIES = ("tpe", "random", "grid", "cmaes", "nsga2", "genetic")
#: the default storage: a SQLite file in the current folder
DEFAULT_STORAGE = "passman_tune.db"
#: the sampler gave only known variants this many times in a row: the space is exhausted
EXHAUSTED_AFTER = 200


def storage_url(storage: str | None) -> str | None:
    """An Optuna storage URL from a URL, a file name (SQLite), or ``:memory:`` (``None``)."""
    if storage is None:
        storage = DEFAULT_STORAGE
    if storage == ":memory:":
        return None
    if "://" in storage:
        return storage
    return "sqlite:///" + os.path.abspath(storage)


def make_sampler(strategy: str, seed: int | None, objectives: int = 1) -> Any:
    """The Optuna sampler for a strategy name (:data:`STRATEGIES`), seeded."""
    import optuna

    if strategy not in STRATEGIES:
        raise InvalidInput(f"error: unknown strategy '{strategy}' (one of: {', '.join(STRATEGIES)})")
    if objectives > 1 and strategy not in ("nsga2", "random", "grid", "tpe"):
        raise InvalidInput(f"error: strategy {strategy} has one objective; use nsga2 for time and size")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if strategy == "tpe":
            return optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True,
                                              n_startup_trials=10)
        if strategy in ("random", "grid"):  # grid: points enqueued in order, random for the rest
            return optuna.samplers.RandomSampler(seed=seed)
        if strategy == "cmaes":
            return optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False)
        # nsga2 (two objectives) and genetic (one): Optuna's genetic algorithm, crossover over the steps
        return optuna.samplers.NSGAIISampler(seed=seed, population_size=20)


@dataclass
class Variant:
    """One finished trial as people read it."""

    number: int
    key: str
    status: str
    values: list[float] | None
    pipeline: str | None
    point: dict[str, Any]
    reason: str = ""
    evaluated: bool = False
    same_as: str | None = None
    code_hash: str | None = None

    @property
    def value(self) -> float | None:
        """The first objective (the time)."""
        return self.values[0] if self.values else None


class Study:
    """Tune ``sources`` over ``space`` (a :class:`Space`, or a recipe's ``TUNE``) in an Optuna study.

    Args:
        name: the study's name in the storage; an existing study is resumed.
        sources: the C files (``Program`` for text), ``cppflags`` their flags.
        space: the search space; with ``recipe`` (a ``.py`` file or a built-in
            name), defaults to the recipe's ``TUNE`` or ``tune_space(ws)``.
        storage: a SQLite file (default ``passman_tune.db``), an Optuna URL,
            or ``":memory:"``.
        strategy: one of :data:`STRATEGIES`; ``seed`` makes it reproducible.
        jobs: evaluations in flight (local process pool; 0: in this process).
        dask: a scheduler address, ``"local"`` (an embedded ``LocalCluster``
            of ``jobs`` workers) or a ``dask.distributed.Client``.
        measure: how variants are built, run and measured (:class:`Measure`).
        objectives: ``("time",)`` or ``("time", "size")`` (binary bytes).
        evaluator: replaces :func:`evaluate` (``passman.tune.replay.Replay``).
    """

    def __init__(self, name: str, sources: Sequence[str | os.PathLike[str]] | Program = (),
                 space: Space | None = None, *, recipe: str | None = None, cppflags: Sequence[str] = (),
                 storage: str | None = None, strategy: str = "tpe", seed: int | None = 0,
                 jobs: int = 1, dask: Any = None, measure: Measure | None = None,
                 objectives: Sequence[str] = ("time",), evaluator: Any = None,
                 progress: bool | None = None):
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.name = name
        self.objectives = tuple(objectives)
        if self.objectives not in (("time",), ("time", "size")):
            raise InvalidInput("error: objectives are time, or time,size")
        self.strategy, self.seed = strategy, seed
        self.sampler = make_sampler(strategy, seed, len(self.objectives))
        self.jobs, self.dask, self.progress = jobs, dask, progress
        self.evaluator = evaluator or evaluate
        self.measure = measure or Measure()
        self.recipe: tuple[str, str] | None = None
        self.program = sources if isinstance(sources, Program) else (
            Program.from_files(sources, cppflags) if sources else None)
        if recipe is not None:
            module = load_recipe(recipe)
            recipe_entry(module)
            self.recipe = (recipe, Path(module.__file__).read_text())
            if space is None:
                space = _recipe_space(module, self.program)
        self.space = space
        if space is not None and not space.is_pipeline and self.recipe is None:
            raise InvalidInput("error: a space of recipe options needs the recipe")
        self.storage = storage_url(storage)
        self.study = optuna.create_study(
            study_name=name, storage=self.storage, sampler=self.sampler, load_if_exists=True,
            directions=["minimize"] * len(self.objectives))
        attrs = self.study.user_attrs
        if attrs.get("objectives") and tuple(attrs["objectives"]) != self.objectives:
            raise InvalidInput(f"error: study {name} measures {','.join(attrs['objectives'])}")
        stored = attrs.get("program")
        if stored and self.program is not None and json.loads(json.dumps(asdict(self.program))) != stored:
            raise InvalidInput(f"error: study {name} was run on other sources (or flags): "
                               "give it another name (--study)")
        if self.program is None and "program" in attrs:
            self.program = Program(**{k: tuple(tuple(x) if isinstance(x, list) else x for x in v)
                                      for k, v in attrs["program"].items()})
        if self.recipe is None and attrs.get("recipe"):
            self.recipe = tuple(attrs["recipe"])

    # -- reading the study -------------------------------------------------------------------
    @classmethod
    def load(cls, name: str, storage: str | None = None) -> Study:
        """An existing study, to show, plot or export (no space: it cannot be optimized)."""
        import optuna

        url = storage_url(storage)
        if url and url.startswith("sqlite:///") and not os.path.exists(url[len("sqlite:///"):]):
            raise InvalidInput(f"error: no storage {storage or DEFAULT_STORAGE} (no study was run here)")
        try:
            names = optuna.study.get_all_study_names(storage=url) if url else []
        except Exception as err:  # noqa: BLE001 - a storage we cannot open is the user's input
            raise InvalidInput(f"error: cannot open storage {storage or DEFAULT_STORAGE}: {err}") from None
        if name not in names:
            known = ", ".join(names) or "none"
            raise InvalidInput(f"error: no study '{name}' in {storage or DEFAULT_STORAGE} (studies: {known})")
        objectives = optuna.load_study(study_name=name, storage=url).user_attrs.get("objectives", ["time"])
        return cls(name, storage=storage, objectives=objectives, progress=False)

    def variants(self) -> list[Variant]:
        """Every finished trial, in order (interrupted ones left out)."""
        from optuna.trial import TrialState

        out = []
        for t in self.study.get_trials(deepcopy=False):
            if t.state not in (TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED):
                continue
            a = t.user_attrs
            if t.state == TrialState.FAIL and a.get("status") not in FAILED:
                continue  # left running by a killed tuner, failed by _recover: asked again
            out.append(Variant(t.number, a.get("key", ""), a.get("status", t.state.name.lower()),
                               list(t.values) if t.values else None, a.get("pipeline"),
                               a.get("point", {}), a.get("reason", ""), bool(a.get("evaluated")),
                               a.get("same_as"), a.get("code_hash")))
        return out

    def best(self, k: int = 1) -> list[Variant]:
        """The ``k`` fastest distinct variants (for two objectives: the Pareto front first)."""
        seen, out = set(), []
        done = [v for v in self.variants() if v.values]
        if len(self.objectives) > 1:
            front = {t.number for t in self.study.best_trials}
            done.sort(key=lambda v: (v.number not in front, v.values))
        else:
            done.sort(key=lambda v: (v.value, v.number))
        for v in done:
            if v.key not in seen:
                seen.add(v.key)
                out.append(v)
        return out[:k]

    @property
    def baseline(self) -> float | None:
        """The original program's median time."""
        return self.study.user_attrs.get("baseline")

    @property
    def default_value(self) -> float | None:
        """The time of the space's default point (the recipe or pipeline as shipped)."""
        key = self.study.user_attrs.get("default_key")
        for v in self.variants():
            if v.key == key and v.values:
                return v.value
        return None

    def measurements(self) -> dict[str, dict[str, Any]]:
        """Every variant measured: key -> status, value(s), reason (what replay needs)."""
        out: dict[str, dict[str, Any]] = {}
        for v in self.variants():
            if v.status == "pruned" or v.key in out:
                continue
            out[v.key] = {"status": v.status if v.status != "duplicate" else "ok", "values": v.values,
                          "reason": v.reason, "pipeline": v.pipeline}
        return out

    def export(self, path: str | os.PathLike[str]) -> Path:
        """Write the measurements as a replay cache (JSON; :class:`passman.tune.replay.Replay` reads it)."""
        from ..fsutil import atomic_write_text

        data = {"study": self.name, "objectives": list(self.objectives), "baseline": self.baseline,
                "measure": self.study.user_attrs.get("measure"),
                "reference": self.study.user_attrs.get("reference"),
                "variants": self.measurements()}
        atomic_write_text(Path(path), json.dumps(data, indent=1, sort_keys=True) + "\n")
        return Path(path)

    # -- the search --------------------------------------------------------------------------
    def optimize(self, trials: int) -> list[Variant]:
        """Evaluate until the study holds ``trials`` evaluated variants (resuming counts the old ones).

        Duplicates and pruned points cost no evaluation and are not counted;
        the search also ends when the space is exhausted. Returns the best variants.
        """
        if self.space is None:
            raise InvalidInput("error: this study has no search space (give a recipe or a pipeline)")
        if self.program is None and self.evaluator is evaluate:
            raise InvalidInput("error: no C file to tune")
        self._recover()
        loop = _Loop(self, trials)
        try:
            loop.run()
        finally:
            loop.close()
        return self.best(5)

    def _recover(self) -> None:
        """Trials left running by a killed tuner: failed (with no key), their points asked again."""
        from optuna.trial import TrialState

        for t in self.study.get_trials(deepcopy=False, states=(TrialState.RUNNING, TrialState.WAITING)):
            if t.state == TrialState.WAITING:
                continue  # enqueued, never started: it will be asked
            self.study.tell(t.number, state=TrialState.FAIL)
            self.study.enqueue_trial(t.params, skip_if_exists=True)

    def record(self, trial: Any, result: Result, point: dict[str, Any], *, evaluated: bool,
               same_as: str | None = None) -> None:
        """Tell Optuna how a trial ended; every attribute is written to the storage at once."""
        from optuna.trial import TrialState

        attrs = {"key": result.key, "status": result.status, "point": _jsonable(point),
                 "evaluated": evaluated, "pipeline": result.pipeline, "code_hash": result.code_hash}
        if result.reason:
            attrs["reason"] = result.reason
        if result.times:
            attrs["times"] = result.times
        if result.size is not None:
            attrs["size"] = result.size
        if result.worker:
            attrs["worker"] = result.worker
        if same_as:
            attrs["same_as"] = same_as
        for k, v in attrs.items():
            if v is not None:
                trial.set_user_attr(k, v)
        if result.status == "pruned":
            self.study.tell(trial, state=TrialState.PRUNED)
        elif result.value is None:
            self.study.tell(trial, state=TrialState.FAIL)
        else:
            values = [result.value] + ([float(result.size or 0)] if len(self.objectives) > 1 else [])
            self.study.tell(trial, values)
        LOG.info("passman: trial %d: %s %s%s", trial.number, result.key, result.status,  # once stored
                 f" {result.value:.4g}" if result.value is not None else f": {result.reason}")

    # -- output ------------------------------------------------------------------------------
    def table(self, k: int = 10) -> str:
        """The best variants as a table, with their speed-up over the original and the default."""
        rows = self.best(k)
        variants = self.variants()
        counts: dict[str, int] = {}
        seen: set[str] = set()
        for v in variants:  # distinct variants: a point asked again is not counted twice
            if v.key not in seen:
                seen.add(v.key)
                counts[v.status] = counts.get(v.status, 0) + 1
        lines = [f"study {self.name}: {sum(v.evaluated for v in variants)} variants evaluated, "
                 + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))]
        base, default = self.baseline, self.default_value
        if base:
            lines.append(f"original: {base:.4g} s" + (f"; default variant: {default:.4g} s "
                                                        f"({base / default:.2f}x)" if default else ""))
        size_col = len(self.objectives) > 1
        head = f"{'rank':>4} {'trial':>5} {'time (s)':>10} {'vs orig':>8} {'vs dflt':>8}"
        lines.append(head + (f" {'bytes':>8}" if size_col else "") + "  variant")
        for i, v in enumerate(rows, start=1):
            t = v.value or 0.0
            row = (f"{i:>4} {v.number:>5} {t:>10.4g} {(base / t if base and t else 0):>7.2f}x "
                   f"{(default / t if default and t else 0):>7.2f}x")
            if size_col:
                row += f" {int(v.values[1]) if v.values and len(v.values) > 1 else 0:>8}"
            lines.append(row + "  " + _describe(v))
        return "\n".join(lines) + "\n"

    def variant_workspace(self, variant: Variant) -> Any:
        """The program with ``variant`` applied, in this process (to save or diff it)."""
        if self.program is None:
            raise InvalidInput("error: the study does not hold its program")
        ws = self.program.workspace().clone()
        text = variant.pipeline if variant.pipeline is not None else (
            variant.key if self.space is None or self.space.is_pipeline else None)
        if text is not None and not text.startswith("main{"):
            ws.apply_pipeline(text)
        elif self.recipe is not None:
            load_recipe_text(*self.recipe).main(ws, **variant.point)
        return ws

    def write_best(self, directory: str | os.PathLike[str]) -> list[Path]:
        """Save the best variant's code into ``directory``."""
        best = self.best(1)
        if not best:
            raise InvalidInput(f"error: study {self.name} has no measured variant yet")
        return self.variant_workspace(best[0]).save(directory)


def _describe(v: Variant) -> str:
    if v.pipeline is not None and v.pipeline != v.key and not v.key.startswith("main{"):
        return v.key
    return v.pipeline if v.pipeline is not None else v.key


def _jsonable(point: dict[str, Any]) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in point.items()}


def _recipe_space(module: Any, program: Program | None) -> Space:
    if isinstance(getattr(module, "TUNE", None), Space):
        return module.TUNE
    fn = getattr(module, "tune_space", None)
    if callable(fn):
        if program is None:
            raise InvalidInput("error: the recipe's tune_space(ws) needs the C files")
        space = fn(program.workspace().clone())
        if isinstance(space, Space):
            return space
    where = getattr(module, "__file__", module.__name__)
    raise InvalidInput(f"{where}: error: the recipe declares no search space "
                       "(TUNE = Space(...) or def tune_space(ws))")


class _Loop:
    """One run of :meth:`Study.optimize`: ask, dedupe, submit, tell."""

    def __init__(self, study: Study, trials: int):
        self.s = study
        self.target = trials
        self.in_flight: dict[Future, tuple[Any, str, dict[str, Any]]] = {}
        self.waiting: dict[str, list[tuple[Any, dict[str, Any]]]] = {}
        self.measured: dict[str, tuple[Result, str]] = {}
        self.code_index: dict[str, str] = {}
        self.evaluated = 0
        self.executor = None
        self.bar = None
        self.best: float | None = None
        self._grid: Iterator[dict[str, Any]] | None = None
        for v in study.variants():
            if v.status == "pruned":  # a constraint, not a measurement: checked again when asked
                continue
            result = Result(v.key, v.status, v.reason, v.value, pipeline=v.pipeline,
                            size=int(v.values[1]) if v.values and len(v.values) > 1 else None)
            self.measured.setdefault(v.key, (result, v.key))
            if v.code_hash and v.values:
                self.code_index.setdefault(v.code_hash, v.key)
            if v.evaluated:
                self.evaluated += 1
            if v.value is not None and (self.best is None or v.value < self.best):
                self.best = v.value

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        if self.executor is not None:
            self.executor.shutdown()

    def run(self) -> None:
        s = self.s
        if self.evaluated >= self.target:
            return
        self.executor = make_executor(s.jobs, s.dask)
        self._reference()
        if s.strategy == "grid":
            rng = random.Random(s.seed)
            points = list(s.space.points())
            rng.shuffle(points)
            self._grid = iter(points)
        from tqdm import tqdm

        self.bar = tqdm(total=self.target, initial=self.evaluated, desc=f"tune {s.name}", unit="variant",
                        disable=(None if s.progress is None else not s.progress), dynamic_ncols=True)
        self._show_best()
        idle = 0
        while True:
            while (len(self.in_flight) < max(1, self.executor.slots)
                   and self.evaluated + len(self.in_flight) < self.target and idle < EXHAUSTED_AFTER):
                if self._ask_one():
                    idle = 0
                else:
                    idle += 1
            if not self.in_flight:
                break
            done, _ = wait(list(self.in_flight), return_when=FIRST_COMPLETED)
            for fut in done:
                self._finish(fut)

    def _reference(self) -> None:
        """Build and run the original once: its output is the reference, its time the baseline."""
        s = self.s
        attrs = s.study.user_attrs
        if "reference" in attrs:
            return
        job = Job(s.program, s.measure, key="", pipeline="")
        result = self.executor.submit(s.evaluator, job).result()
        if not result.ok:
            raise InvalidInput(f"error: the original program does not run: {result.status}: {result.reason}")
        s.study.set_user_attr("reference", result.output)
        s.study.set_user_attr("baseline", result.value)
        s.study.set_user_attr("objectives", list(s.objectives))
        if s.program is not None:
            s.study.set_user_attr("program", asdict(s.program))
        s.study.set_user_attr("measure", _jsonable({k: v for k, v in asdict(s.measure).items()}))
        if s.recipe is not None:
            s.study.set_user_attr("recipe", list(s.recipe))
        default = s.space.default()
        s.study.set_user_attr("default_key", s.space.variant_key(default))
        s.study.enqueue_trial(_encode(s.space, default), skip_if_exists=True)

    def _ask_one(self) -> bool:
        """Ask for one point; whether it started an evaluation."""
        s = self.s
        if self._grid is not None and not self._enqueued():
            for point in self._grid:
                key = s.space.variant_key(point)
                if key not in self.measured and key not in self.waiting:
                    s.study.enqueue_trial(_encode(s.space, point))
                    break
            else:
                return False
        trial = s.study.ask()
        point = s.space.suggest(trial)
        why = s.space.violation(point)
        key = s.space.variant_key(point)
        if why is not None:
            s.record(trial, Result(key, "pruned", why), point, evaluated=False)
            return False
        if key in self.measured:
            result, _ = self.measured[key]
            s.record(trial, _copy(result, key), point, evaluated=False, same_as=key)
            return False
        if key in self.waiting:  # the same variant is being evaluated: told when it ends
            self.waiting[key].append((trial, point))
            return False
        job = Job(s.program, s.measure, key=key, reference=s.study.user_attrs["reference"],
                  known_code=frozenset(self.code_index),
                  pipeline=s.space.pipeline_of(point),
                  recipe=None if s.space.is_pipeline else s.recipe,
                  options=tuple(point.items()) if not s.space.is_pipeline else ())
        fut = self.executor.submit(s.evaluator, job)
        self.in_flight[fut] = (trial, key, point)
        self.waiting[key] = []
        return True

    def _enqueued(self) -> bool:
        """Whether a point waits in the storage (the default, an interrupted one): ask it first."""
        from optuna.trial import TrialState

        return bool(self.s.study.get_trials(deepcopy=False, states=(TrialState.WAITING,)))

    def _finish(self, fut: Future) -> None:
        s = self.s
        trial, key, point = self.in_flight.pop(fut)
        try:
            result = fut.result()
        except Exception as err:  # noqa: BLE001 - a lost worker is a failed trial, not a dead search
            result = Result(key, "error", f"the worker failed: {type(err).__name__}: {err}")
        same_as = None
        evaluated = result.status != "duplicate"
        if result.status == "duplicate":
            same_as = self.code_index.get(result.code_hash or "")
            if same_as in self.measured:
                known = self.measured[same_as][0]
                result = _copy(known, key, pipeline=result.pipeline, code_hash=result.code_hash)
            else:
                result = Result(key, "error", "duplicate of an unknown variant")
        s.record(trial, result, point, evaluated=evaluated, same_as=same_as)
        self.measured[key] = (result, key)
        if result.ok and result.code_hash and evaluated:
            self.code_index.setdefault(result.code_hash, key)
        for other, other_point in self.waiting.pop(key, []):
            s.record(other, _copy(result, key), other_point, evaluated=False, same_as=key)
        if evaluated:
            self.evaluated += 1
            self.bar.update(1)
        if result.value is not None and (self.best is None or result.value < self.best):
            self.best = result.value
        self._show_best()

    def _show_best(self) -> None:
        base = self.s.study.user_attrs.get("baseline")
        if self.best is not None and self.bar is not None:
            speed = f" ({base / self.best:.2f}x)" if base else ""
            self.bar.set_postfix_str(f"best {self.best:.4g}s{speed}")


def _copy(result: Result, key: str, **changes: Any) -> Result:
    """A recorded measurement told again for another trial (no worker ran it)."""
    return Result(**{**result.__dict__, "key": key, "worker": "", **changes})


def _encode(space: Space, point: dict[str, Any]) -> dict[str, Any]:
    """The Optuna parameters that make ``space.suggest`` give ``point`` (to enqueue it)."""
    return space.encode(point)


def describe_point(point: dict[str, Any]) -> str:
    """``name=value`` pairs of a point."""
    return ",".join(f"{k}={format_value(v)}" for k, v in point.items())
