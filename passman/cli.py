"""The ``passman`` command line.

    passman [--version] [-v | -q] COMMAND ...
    passman run RECIPE FILE... [-o DIR] [-D..] [-I..] [-U..] [--set PROP=VALUE] [--build] [--run [-- ARGS]]
                [--extra-source FILE] [--cflags=FLAGS] [--ldflags=FLAGS] [--ldlibs=FLAGS]
    passman run -p PIPELINE FILE... [same options]
    passman passes [NAME]
    passman show FILE... [--module M] [--resource R]
    passman stubs [BROKER] [--functions]
    passman tune (RECIPE | -p PIPELINE) FILE... [--trials N] [--study S]   (passman/tune/cli.py)

Exit status: 0 when all went well (with ``--run``: the program's own
status, 124 if it timed out); 1 for a user error (bad command line, input
that does not parse, a refused pass, a failed build), printed as one
``file:line:col: error: ...`` line; 3 for a bug in passman, printed with a
traceback and a request to report it; 130 when interrupted.

Messages go through :mod:`logging` (the ``passman`` logger, on standard
error): notes such as ``passman: wrote out/app.c`` by default, more with
``-v`` (the history, its reproducer pipeline, tracebacks; ``-vv`` debug),
less with ``-q`` (warnings and errors; ``-qq`` errors only). Warnings are
:class:`~passman.PassmanWarning` (:mod:`warnings`), printed one line each.
``passman run`` shows a progress line (:mod:`passman.progress`: the phase,
the pass running, the functions it has done) on standard error once a run
passes two seconds: rewritten in place on a terminal (not with ``-q``), a
line every ten seconds with ``-v``.
The global options go before or after the command.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import logging
import os
import shlex
import sys
import tempfile
import threading
import traceback
import warnings
from typing import Any

from .builder import BuildError
from .errors import InternalError, InvalidInput, PassFailed, PassmanError, PassmanWarning

#: the logger ``--verbose`` turns on
LOG = logging.getLogger("passman")
#: the command line's notes (``passman: wrote ...``): shown unless ``-q``
NOTES = logging.getLogger("passman.cli")


class _StderrHandler(logging.StreamHandler):
    """Messages as they are, on the standard error of the moment (tests capture it)."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter("%(message)s"))
        #: the progress line of the run (``passman.progress.Progress``), erased before a message
        self.progress: Any = None

    def emit(self, record: logging.LogRecord) -> None:  # noqa: D102
        if self.progress is not None:
            self.progress.clear()
        super().emit(record)

    @property
    def stream(self):  # noqa: D102 - looked up at each message
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


_HANDLER = _StderrHandler()


def _configure_logging(verbosity: int) -> None:
    """``verbosity``: the number of ``-v`` minus the number of ``-q``."""
    if _HANDLER not in LOG.handlers:
        LOG.addHandler(_HANDLER)
    levels = {-2: logging.ERROR, -1: logging.WARNING, 0: logging.WARNING, 1: logging.INFO, 2: logging.DEBUG}
    LOG.setLevel(levels[max(-2, min(2, verbosity))])
    NOTES.setLevel(logging.INFO if verbosity >= 0 else LOG.level)


def _show_warning(message: Any, category: type, filename: str, lineno: int, file: Any = None,
                  line: str | None = None) -> None:
    """:data:`warnings.showwarning` while the command runs: a passman warning is one logged line."""
    if isinstance(message, PassmanWarning):
        LOG.warning("%s", message.line)
    else:
        LOG.warning("%s", warnings.formatwarning(message, category, filename, lineno, line).rstrip())


class _Version(argparse.Action):
    """``--version``: the version read from the installed distribution only when asked for."""

    def __call__(self, parser, namespace, values, option_string=None):  # noqa: ANN001 - argparse's signature
        import passman

        print(f"passman {passman.__version__}")
        parser.exit()


def _global_options(parser: argparse.ArgumentParser) -> None:
    """``--version``, ``-v`` and ``-q``, listed in every ``--help`` (:func:`_main` reads ``-v``/``-q``)."""
    parser.add_argument("--version", action=_Version, nargs=0, help="print passman's version and exit")
    parser.add_argument("--verbose", "-v", action="count", default=0,
                        help="show more (history, reproducer, tracebacks; -vv: debug); anywhere on the line")
    parser.add_argument("--quiet", "-q", action="count", default=0,
                        help="show less (-q: no notes; -qq: no warnings either); anywhere on the line")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="passman", description="A programmable pass manager for C.",
                                epilog="Exit status: 0 ok, 1 user error, 3 internal error (README).")
    _global_options(p)
    common = argparse.ArgumentParser(add_help=False)  # the same options after the command
    _global_options(common)
    sub = p.add_subparsers(dest="command", required=True)

    def cpp_args(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
        sp.add_argument("-U", dest="undefines", action="append", default=[], metavar="NAME")
        sp.add_argument("-I", dest="includes", action="append", default=[], metavar="DIR")
        sp.add_argument("--broker", dest="brokers", action="append", default=[], metavar="NAME",
                        help="enable a library broker (passman stubs lists them)")

    r = sub.add_parser(
        "run", parents=[common], help="apply a recipe or a pipeline to C files",
        usage="passman run [options] (RECIPE | -p PIPELINE) FILE... [-- ARGS]",
    )
    r.add_argument("inputs", nargs="+", metavar="RECIPE FILE...",
                   help="a recipe file (.py) or the name of a built-in recipe (not with -p), then C files")
    r.add_argument("-p", "--passes", dest="pipeline", metavar="PIPELINE",
                   help="run this textual pipeline instead of a recipe (docs/pipelines.md)")
    r.add_argument("-o", "--output", help="write the transformed sources (and Makefile) here")
    cpp_args(r)
    r.add_argument("--set", dest="sets", action="append", default=[], metavar="PROP=VALUE")
    r.add_argument("--backend", default=None, help="backend used by --build (default: the recipe's, else c)")
    r.add_argument("--extra-source", "--no-parse", dest="extra_sources", action="append", default=[],
                   metavar="FILE", help="build FILE with the program without parsing it (repeatable)")
    r.add_argument("--cflags", action="append", default=[], metavar="FLAGS",
                   help="add to the Makefile's CFLAGS, after the backend's (--cflags='-O2 -g')")
    r.add_argument("--ldflags", action="append", default=[], metavar="FLAGS", help="add to LDFLAGS")
    r.add_argument("--ldlibs", action="append", default=[], metavar="FLAGS",
                   help="add to LDLIBS, after the backend's (--ldlibs=-lpthread)")
    r.add_argument("--build", action="store_true", help="compile the result")
    r.add_argument("--run", action="store_true", help="compile and run the result (args after --)")
    r.add_argument("--print-after", action="append", default=[], metavar="PASS|all",
                   help="print the function's code after each run of PASS (repeatable, or PASS,PASS)")
    r.add_argument("--print-after-change", action="store_true",
                   help="print the function's code after each pass that changed it")
    r.add_argument("--print-on-failure", action="store_true",
                   help="print each refusal with the code the pass refused")
    r.add_argument("--time-passes", action="store_true",
                   help="print the time of each pass and analysis at the end")
    r.add_argument("--stats", action="store_true", help="print the counters of each pass at the end")

    ps = sub.add_parser("passes", parents=[common], help="list registered passes and their properties")
    ps.add_argument("name", nargs="?", help="show one pass in full")

    s = sub.add_parser("show", parents=[common], help="print code, optionally annotated with an analysis")
    s.add_argument("files", nargs="+")
    s.add_argument("--module", "-m", action="append", default=[], help="only this function")
    s.add_argument("--resource", "-r", help="annotate with this analysis resource")
    cpp_args(s)

    sub.add_parser("recipes", parents=[common], help="list built-in recipes")

    sub.add_parser("tune", add_help=False,
                   help="iterative compilation: search a recipe's or a pipeline's variants "
                        "(passman tune --help)")

    st = sub.add_parser("stubs", parents=[common],
                        help="list library brokers, the functions they model, their targets")
    st.add_argument("broker", nargs="?", help="show one broker in full")
    st.add_argument("--functions", action="store_true", help="list every modelled function")
    return p


def _cppflags(ns: argparse.Namespace) -> list[str]:
    flags = [f"-D{d}" for d in ns.defines] + [f"-U{u}" for u in ns.undefines]
    for inc in ns.includes:
        flags += ["-I", inc]
    return flags


def _parse_sets(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not key.strip().replace("_", "a").isalnum():
            raise InvalidInput(f"error: bad --set '{item}': expected PROP=VALUE")
        out[key.strip()] = value
    return out


def _run(ns: argparse.Namespace, extra: list[str]) -> int:
    progress = _progress()
    _HANDLER.progress = progress
    try:
        return _run_with(ns, extra, progress)
    finally:
        _HANDLER.progress = None
        if progress is not None:
            progress.clear()


def _progress() -> Any:
    """A progress line on standard error: live on a terminal (unless ``-q``), full lines with ``-v``."""
    from .progress import Progress

    verbose = LOG.isEnabledFor(logging.INFO)
    live = sys.stderr.isatty() and NOTES.isEnabledFor(logging.INFO)
    if not (live or verbose):
        return None
    return Progress(live=live)


def _run_with(ns: argparse.Namespace, extra: list[str], progress: Any) -> int:
    from .pipeline import parse
    from .recipe import bind_options, load_recipe, recipe_entry
    from .workspace import Workspace

    sets = _parse_sets(ns.sets)
    recipe = entry = pipeline = None
    if ns.pipeline is not None:
        pipeline = parse(ns.pipeline)  # a malformed pipeline stops before parsing the C files
    else:
        recipe = load_recipe(ns.recipe)
        entry = recipe_entry(recipe)
    if progress is not None:
        progress.phase("parsing")
    ws = Workspace(*ns.files, cppflags=_cppflags(ns), brokers=ns.brokers, extra_sources=ns.extra_sources)
    build_options = _build_flags(ws, ns, recipe)
    options = {}
    for key, value in sets.items():
        if key in ws.props:
            setattr(ws.props, key, value)
        elif pipeline is not None:
            raise InvalidInput(f"error: unknown property '{key}' (passman passes lists them)")
        else:
            options[key] = value
    reports = _instrument(ws, ns)
    if progress is not None:
        ws.instrument(progress)
        progress.phase("pipeline" if pipeline is not None else f"recipe {ns.recipe}")
    try:
        if pipeline is not None:
            ws.apply_pipeline(pipeline)
        else:
            _call_recipe(entry, ws, bind_options(entry, options), ns.recipe)
    finally:
        if progress is not None:
            ws.uninstrument(progress)
            progress.clear()
        for report in reports:
            sys.stderr.write(report.report())
    if LOG.isEnabledFor(logging.INFO):
        LOG.info(str(ws.history))
        try:
            quoted = "'" + ws.history.pipeline().replace("'", "'\\''") + "'"  # for a POSIX shell
            LOG.info("passman: reproducer: passman run -p %s", quoted)
        except InvalidInput as err:
            LOG.info("passman: no reproducer: %s", err)
    backend = ns.backend or getattr(recipe, "BACKEND", "c")
    if ns.build or ns.run:
        out = ns.output or tempfile.mkdtemp(prefix="passman-build-")
        if progress is not None:
            progress.phase("building")
        result = ws.build(backend, out)
        if progress is not None:
            progress.clear()
        NOTES.info("passman: built %s", result.binary)
        if ns.run:
            run = ws.run(extra, timeout=None)
            sys.stdout.write(run.stdout)
            sys.stderr.write(run.stderr)
            return run.returncode if run.returncode is not None else 124
        return 0
    if ns.output:
        if ns.backend or hasattr(recipe, "BACKEND") or build_options:  # a ready-to-make folder
            ws.render(backend, ns.output)
            NOTES.info("passman: wrote %s (%s; build and run it with: make -C %s run)",
                       ns.output, backend, shlex.quote(ns.output))
            return 0
        for path in ws.save(ns.output):
            NOTES.info("passman: wrote %s", path)
        return 0
    units = [cu for cu in ws.compilation_units if not cu.is_stub]
    for cu in units:
        if len(units) > 1:
            print(f"// ---- {cu.filename}")
        sys.stdout.write(cu.code)
    return 0


def _build_flags(ws: Any, ns: argparse.Namespace, recipe: Any) -> bool:
    """Add the recipe's ``CFLAGS``/``LDFLAGS``/``LDLIBS`` and the command line's to ``ws.build_flags``.

    Returns whether the user said anything about the build beyond ``-I/-D/-U``.
    """
    flags = ws.build_flags
    said = bool(ns.extra_sources)
    for name, attr, given in (("CFLAGS", "cflags", ns.cflags), ("LDFLAGS", "ldflags", ns.ldflags),
                              ("LDLIBS", "ldlibs", ns.ldlibs)):
        from_recipe = getattr(recipe, name, None)
        if from_recipe is not None:
            getattr(flags, attr).extend(shlex.split(from_recipe) if isinstance(from_recipe, str)
                                        else [str(f) for f in from_recipe])
        words = [w for item in given for w in shlex.split(item)]
        getattr(flags, attr).extend(words)
        said = said or bool(words)
    return said


def _instrument(ws: Any, ns: argparse.Namespace) -> list[Any]:
    """Register the instrumentations the flags ask for; return those that print a report at the end."""
    from .reports import PrintAfter, PrintOnFailure, StatsReport, TimeReport

    names = {n.strip() for item in ns.print_after for n in item.split(",") if n.strip()}
    if "all" in names:
        ws.instrument(PrintAfter())
    elif names:
        for name in sorted(names):
            ws.registry.get_pass(name)  # InvalidInput for an unknown pass
        ws.instrument(PrintAfter(names))
    if ns.print_after_change:
        ws.instrument(PrintAfter(only_changed=True))
    if ns.print_on_failure:
        ws.instrument(PrintOnFailure())
    reports: list[Any] = []
    if ns.time_passes:
        reports.append(ws.instrument(TimeReport()))
    if ns.stats:
        reports.append(ws.instrument(StatsReport()))
    return reports


def _call_recipe(entry: Any, ws: Any, options: dict[str, Any], spec: str) -> None:
    try:
        entry(ws, **options)
    except PassmanError:
        raise
    except Exception as err:  # an error in the user's recipe: point at its line
        tb = traceback.extract_tb(err.__traceback__)
        recipe_file = getattr(entry, "__code__", None)
        fname = recipe_file.co_filename if recipe_file else spec
        frames = [f for f in tb if f.filename == fname] or tb[-1:]
        f = frames[-1]
        raise InvalidInput(f"{f.filename}:{f.lineno}: error: {type(err).__name__}: {err}") from err


def _passes(ns: argparse.Namespace) -> int:
    from .plugins import load_plugins
    from .registry import REGISTRY

    load_plugins()
    if ns.name:
        info = REGISTRY.get_pass(ns.name)
        print(f"{info.name} ({info.kind}, {info.scope} scope)")
        if info.provides:
            print(f"  provides: {info.provides}")
        for label, items in (("requires", info.requires), ("reads", info.reads), ("preserves", info.preserves)):
            if items:
                print(f"  {label}: {', '.join(items)}")
        for prop in info.params + ([info.varargs] if info.varargs else []):
            print(f"  property {prop.name} = {prop.default!r}  {prop.doc}")
        print()
        print(info.doc)
        return 0
    for name, kind, scope, summary, props in REGISTRY.listing():  # imports no pass module
        print(f"{name:32s} {kind:14s} {scope:8s} {summary}")
        for prop, tname, default, doc in props:
            print(f"    {prop} ({tname}) = {default}" + (f"  {doc}" if doc else ""))
    return 0


def _show(ns: argparse.Namespace) -> int:
    from .workspace import Workspace

    ws = Workspace(*ns.files, cppflags=_cppflags(ns), brokers=ns.brokers)
    names = ns.module or [m.name for m in ws.all_functions]
    for i, name in enumerate(names):
        if i:
            print()
        sys.stdout.write(ws[name].annotated(ns.resource))
    return 0


def _recipes(ns: argparse.Namespace) -> int:
    import importlib

    from .recipe import builtin_recipes

    for name in builtin_recipes():
        mod = importlib.import_module(f"passman.recipes.{name}")
        doc = (mod.__doc__ or "").strip().splitlines()
        print(f"{name:16s} {doc[0] if doc else ''}")
    return 0


def _stubs(ns: argparse.Namespace) -> int:
    from .brokers import BROKERS, TARGETS
    from .plugins import load_plugins

    load_plugins()
    brokers = BROKERS.check([ns.broker]) if ns.broker else BROKERS.names()
    for i, name in enumerate(brokers):
        b = BROKERS.get(name)
        if ns.broker and i:
            print()
        functions = b.functions()
        if b.always:
            when = "always"
        elif b.detect_includes:
            when = "detected by " + ", ".join(f"<{h}>" for h in b.detect_includes)
        else:
            when = f"with --broker {b.name}"
        print(f"{b.name:8s} {b.feature:8s} {len(functions):4d} functions  {when}")
        if b.description:
            print(f"         {b.description}")
        for t in TARGETS:
            impl = b.full_implementation(t)
            if not impl.available:
                print(f"         {t:7s} unavailable: {impl.unavailable}")
                continue
            parts = [p.name for p in impl.sources] + impl.libs + impl.ldflags
            print(f"         {t:7s} {' '.join(parts) or '(nothing to add)'}")
        if ns.functions or ns.broker:
            print(_wrap(functions, "         "))
    return 0


def _wrap(words: list[str], indent: str, width: int = 100) -> str:
    import textwrap

    return textwrap.fill(" ".join(words), width, initial_indent=indent, subsequent_indent=indent)


#: new objects between two collections of the youngest generation (Python's default: 700)
GC_THRESHOLD = 20_000

_GLOBAL_FLAGS = {"-v": 1, "--verbose": 1, "-vv": 2, "-q": -1, "--quiet": -1, "-qq": -2}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``passman`` command; returns the exit status (module docstring)."""
    # the cyclic garbage collector walked the syntax trees 100-170 times a command (20-40 ms of a
    # 0.5 s run) for the few cycles a command leaves: every 20,000 new objects, not 700
    gc.set_threshold(GC_THRESHOLD, 50, 50)
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1 :]
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            return _main(argv, extra)
        except SystemExit as stop:  # argparse: --help, --version (0) or a usage error (2: a user error)
            code = stop.code
            return 0 if code is None else 1 if code == 2 or not isinstance(code, int) else code


def _main(argv: list[str], extra: list[str]) -> int:
    # -v/-q anywhere, even between a command's file names (argparse stops a list at an option)
    verbosity = sum(_GLOBAL_FLAGS.get(a, 0) for a in argv)
    argv = [a for a in argv if a not in _GLOBAL_FLAGS]
    _configure_logging(verbosity)
    _filter_warnings(verbosity)
    if argv[:1] == ["tune"]:  # its own parser: passman/tune/cli.py
        return _guarded(lambda: _tune(argv[1:] + extra))
    parser = _parser()
    ns, rest = parser.parse_known_args(argv)
    if ns.command == "run" and rest and not any(a.startswith("-") for a in rest):
        ns.inputs += rest  # files after an option (run openmp --set X=Y prog.c): argparse stops the list there
    elif rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if ns.command == "run":
        if ns.pipeline is not None:
            ns.recipe, ns.files = None, ns.inputs
        elif len(ns.inputs) < 2:
            print("usage: passman run [options] (RECIPE | -p PIPELINE) FILE... [-- ARGS]\n"
                  "passman run: error: a recipe and at least one C file are required", file=sys.stderr)
            return 1
        else:
            ns.recipe, ns.files = ns.inputs[0], ns.inputs[1:]
    commands = {"run": lambda: _run(ns, extra), "passes": lambda: _passes(ns), "show": lambda: _show(ns),
                "recipes": lambda: _recipes(ns), "stubs": lambda: _stubs(ns)}
    return _guarded(commands[ns.command])


def _filter_warnings(verbosity: int) -> None:
    """Every passman warning is shown (a workspace gives each once), none with ``-qq``."""
    warnings.simplefilter("ignore" if verbosity <= -2 else "always", PassmanWarning)


def _tune(argv: list[str]) -> int:
    from .tune.cli import main as tune_main

    return tune_main(argv)


def _guarded(command: Any) -> int:
    """Run a command; user errors as one line (exit 1), bugs as a traceback (exit 3)."""
    try:
        return command()
    except InternalError as err:
        traceback.print_exc()
        print(f"passman: internal error: {err}\nThis is a bug in passman: please report it "
              "with the command and the traceback above.", file=sys.stderr)
        return 3
    except BuildError as err:
        print(f"passman: error: build failed: {err}", file=sys.stderr)
        return 1
    except PassFailed as err:
        name = f"{err.pass_name}: " if err.pass_name else ""
        print(_one_line(f"passman: error: {name}{err}"), file=sys.stderr)
        LOG.info("%s", traceback.format_exc().rstrip())
        return 1
    except PassmanError as err:
        print(_one_line(_as_error(str(err))), file=sys.stderr)
        LOG.info("%s", traceback.format_exc().rstrip())
        return 1
    except BrokenPipeError:  # pragma: no cover - e.g. `passman show | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("passman: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # noqa: BLE001 - anything else is a bug
        traceback.print_exc()
        print(f"passman: internal error: {err!r}\nThis is a bug in passman: please report it.",
              file=sys.stderr)
        return 3


def _as_error(msg: str) -> str:
    if msg.startswith("error:"):
        return f"passman: {msg}"
    return msg if "error:" in msg else f"passman: error: {msg}"


def _one_line(msg: str) -> str:
    return " ".join(msg.splitlines())


def run() -> None:
    """The ``passman`` command: :func:`main`, then exit without tearing the interpreter down.

    Once a command is done (its outputs written atomically, its builds and
    runs finished), freeing every object one by one took 70-120 ms, a fifth
    of a typical ``passman run``: the exit handlers run, the output is
    flushed, and the process ends. Where a thread still runs (a library's),
    the interpreter exits as usual.
    """
    code = main()
    if threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()  # temporary folders, children to reap, logging's handlers
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: what Python's own exit would have met
        code = code or 120
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
