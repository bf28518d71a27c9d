"""``passman tune``: the command line of iterative compilation.

    passman tune (RECIPE | -p PIPELINE) FILE... [--param NAME=SPEC]... [--trials N] [--study S]
                 [--storage DB] [--strategy tpe] [--jobs N] [--dask ADDR|local] ...
    passman tune show NAME [--top K] [-o DIR]
    passman tune plot NAME [-o DIR]
    passman tune export NAME FILE

Errors in the input give one line and exit status 1 (``passman.cli`` prints
them); a bad option is argparse's usage line and status 2.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shlex
import sys
from pathlib import Path

from ..errors import InvalidInput
from .evaluate import Measure
from .space import Space, parse_param_spec
from .study import DEFAULT_STORAGE, STRATEGIES

__all__ = ["main", "parser"]

ACTIONS = ("show", "plot", "export")


def parser() -> argparse.ArgumentParser:
    """The parser of ``passman tune`` (searching)."""
    p = argparse.ArgumentParser(
        prog="passman tune",
        usage="passman tune [options] (RECIPE | -p PIPELINE) FILE...\n"
              "       passman tune show NAME [--top K] [-o DIR]\n"
              "       passman tune plot NAME [-o DIR]\n"
              "       passman tune export NAME FILE",
        description="Search the variants of a recipe or a pipeline for the fastest correct program "
                    "(docs/tune.md).")
    p.add_argument("inputs", nargs="+", metavar="RECIPE FILE...",
                   help="a recipe declaring TUNE (a .py file or a built-in name; not with -p), then C files")
    p.add_argument("-p", "--passes", dest="pipeline", metavar="PIPELINE",
                   help="a pipeline with $NAME placeholders, each given a domain by --param")
    p.add_argument("--param", action="append", default=[], metavar="NAME=SPEC",
                   help="a placeholder's values: pow2(8,256), int(1,8[,step]), choice(a,b), bool, "
                        "perm(3), vector(pow2(8,64),2), or a,b,c")
    p.add_argument("--sequence", action="append", default=[], metavar="MOVE",
                   help="search sequences of these pipeline calls (repeat; pypsearch-style)")
    p.add_argument("--length", type=int, default=3, help="steps of a --sequence variant (default 3)")
    p.add_argument("--trials", type=int, default=100, help="variants to evaluate (default 100)")
    p.add_argument("--study", help="the study's name (default: from the files and the space); resumes")
    p.add_argument("--storage", default=None, help=f"SQLite file or Optuna URL (default {DEFAULT_STORAGE})")
    p.add_argument("--strategy", default="tpe", choices=STRATEGIES)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1,
                   help="evaluations in parallel (default: the cores; 0: in this process)")
    p.add_argument("--dask", metavar="ADDR", help="a Dask scheduler (tcp://host:8786), or 'local'")
    p.add_argument("--runs", type=int, default=3, help="timed runs per variant (median; default 3)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per run (default 60)")
    p.add_argument("--tolerance", type=float, default=0.0,
                   help="relative tolerance on numbers in the output (default 0: exact)")
    p.add_argument("--metric", metavar="REGEX",
                   help="objective parsed from the output (group 1) instead of the wall time")
    p.add_argument("--objectives", default="time", choices=("time", "time,size"))
    p.add_argument("--backend", default=None, help="backend that builds variants (default: the recipe's, else c)")
    p.add_argument("--cflags", default=None, help="C compiler flags of the c backend (default -O2)")
    p.add_argument("--timing", default="exclusive", choices=("exclusive", "serial", "parallel"),
                   help="timed runs alone on the machine (default), only apart from each other, or anyhow")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    p.add_argument("-I", dest="includes", action="append", default=[], metavar="DIR")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _action_parser(action: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"passman tune {action}")
    p.add_argument("name", help="the study")
    p.add_argument("--storage", default=None, help=f"SQLite file or Optuna URL (default {DEFAULT_STORAGE})")
    if action == "show":
        p.add_argument("--top", type=int, default=10, help="variants in the table (default 10)")
        p.add_argument("-o", "--output", help="write the best variant's code here")
    elif action == "plot":
        p.add_argument("-o", "--output", help="folder of the PNGs and report.html (default NAME-report)")
        p.add_argument("--top", type=int, default=5, help="best variants in the report (default 5)")
    else:
        p.add_argument("file", help="the JSON file of measurements (for replay)")
    return p


def main(argv: list[str]) -> int:
    """Run ``passman tune ARGV``; the exit status."""
    if argv and argv[0] in ACTIONS:
        ns = _action_parser(argv[0]).parse_args(argv[1:])
        return _action(argv[0], ns)
    ns = parser().parse_args(argv)
    return _search(ns)


def _action(action: str, ns: argparse.Namespace) -> int:
    from .study import Study

    study = Study.load(ns.name, ns.storage)
    if action == "show":
        sys.stdout.write(study.table(ns.top))
        if ns.output:
            for path in study.write_best(ns.output):
                print(f"passman: wrote {path}", file=sys.stderr)
        return 0
    if action == "plot":
        from .report import write_report

        path = write_report(study, ns.output or f"{ns.name}-report", top=ns.top)
        print(f"passman: wrote {path} and its pictures", file=sys.stderr)
        return 0
    print(f"passman: wrote {study.export(ns.file)}", file=sys.stderr)
    return 0


def _space(ns: argparse.Namespace) -> Space | None:
    params = dict(parse_param_spec(item) for item in ns.param)
    if ns.sequence:
        if ns.pipeline or params:
            raise InvalidInput("error: --sequence makes its own space: not with -p or --param")
        return Space.sequence(ns.sequence, ns.length)
    if ns.pipeline is not None:
        return Space.pipeline(ns.pipeline, **params)
    if params:
        return Space(params)  # options of the recipe's main
    return None


def _search(ns: argparse.Namespace) -> int:
    from .study import Study

    if ns.trials < 1:
        raise InvalidInput("error: --trials must be at least 1")
    space = _space(ns)
    if ns.pipeline is not None or ns.sequence:
        recipe, files = None, ns.inputs
    elif len(ns.inputs) < 2:
        print("usage: passman tune [options] (RECIPE | -p PIPELINE) FILE...\n"
              "passman tune: error: a recipe (or -p PIPELINE) and at least one C file are required",
              file=sys.stderr)
        return 2
    else:
        recipe, files = ns.inputs[0], ns.inputs[1:]
    cppflags = [f"-D{d}" for d in ns.defines] + [f for inc in ns.includes for f in ("-I", inc)]
    backend = ns.backend or "c"
    if recipe is not None and ns.backend is None:
        from ..recipe import load_recipe

        backend = getattr(load_recipe(recipe), "BACKEND", "c")
    options = {"cflags": shlex.split(ns.cflags)} if ns.cflags is not None else {}
    measure = Measure(backend=backend, build_options=tuple(options.items()), runs=ns.runs,
                      timeout=ns.timeout, tolerance=ns.tolerance, metric=ns.metric, timing=ns.timing)
    name = ns.study or _default_name(files, recipe, ns)
    study = Study(name, files, space, recipe=recipe, cppflags=cppflags, storage=ns.storage,
                  strategy=ns.strategy, seed=ns.seed, jobs=ns.jobs, dask=ns.dask, measure=measure,
                  objectives=ns.objectives.split(","), progress=False if ns.no_progress else None)
    print(f"passman: study {name} in {ns.storage or DEFAULT_STORAGE} ({ns.strategy}, "
          f"{'dask ' + ns.dask if ns.dask else f'{ns.jobs} local workers'})", file=sys.stderr)
    try:
        study.optimize(ns.trials)
    except KeyboardInterrupt:
        print(f"passman: interrupted; every finished trial is saved: resume with --study {name}",
              file=sys.stderr)
        return 130
    sys.stdout.write(study.table(10))
    return 0


def _default_name(files: list[str], recipe: str | None, ns: argparse.Namespace) -> str:
    what = repr((recipe, ns.pipeline, sorted(ns.param), ns.sequence, ns.length, ns.objectives))
    digest = hashlib.sha256(what.encode()).hexdigest()[:8]
    return f"{Path(files[0]).stem}-{digest}" if files else digest
