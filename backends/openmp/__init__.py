"""The OpenMP backend: the parallelized sources, a Makefile with ``-fopenmp``, gcc.

``ws.build("openmp", "out")`` (or ``passman run openmp app.c -o out --build``)
writes every compilation unit of the program through the source template
(``templates/source.c.j2``: a banner saying how to build and run it, then the
code, ``#include <omp.h>`` added only when the code calls ``omp_*``
functions without including it), and returns a :class:`BuildPlan` compiled
with ``$(OPT) -fopenmp``: the builder writes the Makefile and compiles. The
parallel loops themselves are already ``#pragma omp parallel for`` in the
code (``passes/parallel/ompify.py``); this backend decides nothing about them.

Properties (``--set NAME=VALUE``, ``ws.props.NAME``):

- ``openmp_opt``: the optimisation flags (default ``-O3``);
- ``openmp_cflags``: flags added after ``-fopenmp`` (default ``-fipa-pta``:
  gcc's interprocedural points-to analysis sees through the functions that
  outline each parallel region, where the pointers to shared arrays come
  from a structure and lose what the compiler knew of their aliasing in the
  original; without it gcc 12 runs the loops of ``two_mm`` twice slower per
  thread. Set it empty for compilers other than gcc);
- ``openmp_cc``: the C compiler (default ``gcc``; it must accept ``-fopenmp``);
- ``openmp_link``: ``static`` (default) links gcc's OpenMP runtime into the
  program (``-Wl,-Bstatic -lgomp -Wl,-Bdynamic``): loading ``libgomp.so``
  costs every run 0.15-0.3 ms, a tenth of a program that runs for 2 ms
  (``benchmarks/bench_never_slower.py``). It stays dynamic (``-fopenmp`` at
  link time) where the program links other libraries than libm (a library
  built with OpenMP brings its own libgomp, and two runtimes would each
  start a team), with a compiler other than gcc, or with ``dynamic``.

A program left with no OpenMP region and no ``omp_*`` call (the recipe's
program rule made it sequential) is built with ``$(OPT)`` alone, as the
user builds the original, plus ``-fopenmp-simd`` where ``omp simd`` loops
remain: neither ``-fopenmp``, ``openmp_cflags`` nor libgomp, whose
start-up every run would pay for nothing (a library the program links
keeps ``-fopenmp`` at link time).

Options of ``ws.build("openmp", dir, ...)`` override them: ``opt`` (a string
or a list of flags), ``extra``, ``cc``, ``cflags`` (flags after ``OPT``),
``ldflags``, ``libs`` (default ``["-lm"]``), ``link``, ``output``. Libraries the
program calls add their ``openmp`` implementation, as their brokers say.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pycparser import c_ast

from passman.astutil import walk
from passman.brokers import extend_plan
from passman.builder import BuildPlan, SourceFile, package_template
from passman.errors import InvalidInput
from passman.fsutil import atomic_write_text
from passman.registry import register_property

if TYPE_CHECKING:  # jinja2 is imported when a template is first rendered (passman.templating)
    import jinja2

__all__ = ["OpenMPBackend", "render_source", "omp_summary"]

OPT = register_property(
    "openmp_opt", str, "-O3", "optimisation flags of the OpenMP backend (Makefile CFLAGS before -fopenmp)"
)
CC = register_property("openmp_cc", str, "gcc", "C compiler of the OpenMP backend (must accept -fopenmp)")
EXTRA = register_property(
    "openmp_cflags", str, "-fipa-pta",
    "flags the OpenMP backend adds after OPT and -fopenmp (default -fipa-pta, for gcc: see the backend's docs)",
)

LINK = register_property(
    "openmp_link", str, "static",
    "how the OpenMP backend links gcc's OpenMP runtime: static (libgomp.a, where the program links no other "
    "library than libm) or dynamic (-fopenmp at link time)",
)

OPENMP_FLAG = "-fopenmp"
#: the flag that honours ``omp simd`` without the runtime
SIMD_FLAG = "-fopenmp-simd"
#: gcc's OpenMP runtime linked into the program: loading libgomp.so costs every run 0.15-0.3 ms
STATIC_GOMP = ["-Wl,-Bstatic", "-lgomp", "-Wl,-Bdynamic"]


def _template(name: str) -> jinja2.Template:
    return package_template(__package__, name)


_OMP_CALL = re.compile(r"\bomp_[a-z_]+\s*\(")
_OMP_H = re.compile(r"^\s*#\s*include\s*[<\"]omp\.h[>\"]", re.M)


class OmpSummary(NamedTuple):
    """What a unit's code asks of OpenMP."""

    #: ``#pragma omp`` lines
    pragmas: int
    #: whether the code calls ``omp_*`` functions
    calls: bool
    #: whether it needs the runtime: a directive other than ``omp simd``, or such a call
    runtime: bool


def omp_summary(cu: Any) -> OmpSummary:
    """The ``#pragma omp`` lines of a unit's functions, its ``omp_*`` calls, and whether it needs the runtime."""
    pragmas = 0
    calls = runtime = False
    for node in cu.own_nodes:
        if not isinstance(node, c_ast.FuncDef):
            continue
        for n in walk(node):
            if isinstance(n, c_ast.Pragma) and n.string.split()[:1] == ["omp"]:
                pragmas += 1
                words = n.string.split()
                runtime = runtime or (words[1:2] != ["simd"] and words[1:3] != ["declare", "simd"])
            elif isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and _OMP_CALL.match(
                n.name.name + "("
            ):
                calls = runtime = True
    return OmpSummary(pragmas, calls, runtime)


def render_source(cu: Any, code: str, cflags: list[str]) -> str:
    """The text of one output file: the template's banner, ``omp.h`` if needed, the code."""
    summary = omp_summary(cu)
    return _template("source.c.j2").render(
        source=cu.path.name if cu.path else cu.filename,
        pragmas=summary.pragmas,
        include_omp_h=summary.calls and not _OMP_H.search(code),
        cflags=shlex.join(cflags),
        code=code,
    )


class OpenMPBackend:
    """Writes the OpenMP program and builds it with ``$(OPT) -fopenmp`` (see the module docstring)."""

    name = "openmp"
    target = "openmp"

    def render(self, ws: Any, directory: Path, **options: Any) -> BuildPlan:
        """Write the sources into ``directory`` and return the build plan."""
        link = options.get("link", ws.props.openmp_link)
        if link not in ("static", "dynamic"):  # before anything is written
            raise InvalidInput(f"error: openmp_link must be static or dynamic, not {link!r}")
        opt = options.get("opt", ws.props.openmp_opt)
        opt = shlex.split(opt) if isinstance(opt, str) else list(opt)
        cc = options.get("cc", ws.props.openmp_cc)
        extra = options.get("extra", ws.props.openmp_cflags)
        extra = shlex.split(extra) if isinstance(extra, str) else list(extra)
        units = {cu.filename: cu for cu in ws.compilation_units if not cu.is_stub}
        # a program left with no OpenMP region (the program rule made it sequential) is built as the
        # user builds the original, OPT alone: neither -fopenmp's flags nor libgomp, whose start-up
        # every run would pay for nothing; its omp simd loops need only -fopenmp-simd
        summaries = [omp_summary(cu) for cu in units.values()]
        openmp = any(u.runtime for u in summaries)
        simd = not openmp and any(u.pragmas for u in summaries)
        cflags = [*opt, *options.get("cflags", []),
                  *([OPENMP_FLAG, *extra] if openmp else [SIMD_FLAG] if simd else [])]
        files = ws.save(directory)  # atomic, never over an input, copies user headers
        for path in files:
            cu = units.get(path.name)
            if cu is not None:
                atomic_write_text(path, render_source(cu, path.read_text(), cflags))
        plan = BuildPlan(
            sources=[SourceFile(Path(f.name)) for f in files],
            output=options.get("output", ws.name.replace(" ", "_") or "a.out"),
            cc=cc,
            cflags=cflags,
            ldflags=[*options.get("ldflags", []), *([OPENMP_FLAG] if openmp else [])],
            libs=list(options.get("libs", ["-lm"])),
        )
        plan = extend_plan(plan, ws, self.target)
        if not openmp and set(plan.libs) - {"-lm"}:
            plan.ldflags.append(OPENMP_FLAG)  # a library's OpenMP implementation may need the runtime
        if openmp and link == "static" and Path(cc).name.startswith("gcc") and set(plan.libs) <= {"-lm"}:
            # no library of the program brings its own libgomp: one runtime, linked in
            plan.ldflags = [f for f in plan.ldflags if f != OPENMP_FLAG] + ["-pthread"]
            plan.libs = [*plan.libs, *STATIC_GOMP]
        return plan
